/* gemm_split.c - split-K on the wgmma GEMM: the request's rule, the work
 * units' K ranges (as the kernel computes them), the default S, and the
 * sizes of the workspace and counters.  The kernel's side is
 * templates/gemm_sm90.ptx.in (the units) and kernel_gemm_sm90_split.c
 * (the reduction). */
#include "gemm.h"

#include <assert.h>
#include <stddef.h>

/* The automatic S: at most AUTO_MAX slices, each at least `stages` K
 * blocks long, chosen by a cost in K-block times (one K block of a tile
 * on one SM): waves * (K blocks per slice + FILL) + REDUCE * S * rows /
 * tile_m, where waves = ceil(units * S / SMs), FILL is the pipeline's
 * start and the epilogue, and REDUCE the last CTA's read of one partial
 * tile of tile_m rows (a K block reads 48 KiB from L2 and computes; a
 * partial of 128 x 256 f32 is 128 KiB through one SM's port: about two).
 * rows = min(M, tile_m): small M stores and reads only its rows. */
#define AUTO_MAX 16u
#define FILL 2u
#define REDUCE 2u

unsigned gemm_split_slices(unsigned splits, unsigned kblocks)
{
	unsigned s = splits ? splits : 1;
	return s < kblocks ? s : kblocks ? kblocks : 1;
}

/* Tile unit / S; slice unit % S gets kblocks / S blocks, and one more if
 * it is among the first kblocks % S: no product exceeds kblocks. */
void gemm_split_range(unsigned unit, unsigned slices, unsigned kblocks, unsigned *tile,
		      unsigned *kbeg, unsigned *kcount)
{
	assert(slices >= 1);
	unsigned s = unit % slices, q = kblocks / slices, r = kblocks % slices;
	*tile = unit / slices;
	*kbeg = s * q + (s < r ? s : r);
	*kcount = q + (s < r);
}

mmagen_status gemm_split_plan(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	unsigned s = req->split_k;
	if (s <= 1)
		return MMAGEN_OK;
	if (s != MMAGEN_GEMM_SPLIT_AUTO && s > GEMM_SPLIT_MAX)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"split-k %u is out of range; use 1 to %u K slices, or auto", s, GEMM_SPLIT_MAX);
	/* the reduction adds 32-bit partial sums: f16 accumulators have no
	 * split kernel (auto then means none) */
	if (g->acc == MMAGEN_F16) {
		if (s == MMAGEN_GEMM_SPLIT_AUTO)
			return MMAGEN_OK;
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"split-K adds f32/s32 partial tiles; with --acc f16 use --split-k 1 (or auto, which then does not split)");
	}
	g->split_kernel = 1;
	g->split = s == MMAGEN_GEMM_SPLIT_AUTO ? 0 : s;
	return MMAGEN_OK;
}

static int is_split_kernel(const mmagen_gemm_info *i)
{
	return i && i->size >= offsetof(mmagen_gemm_info, elem_bits_a) && i->path == MMAGEN_GEMM_PATH_WGMMA &&
	       i->split_k != 1 && i->tile_m && i->tile_n && i->tile_k;
}

/* CTA tiles: whole clusters of tile rows times tile columns */
static uint64_t cta_tiles(const mmagen_gemm_info *i, uint32_t m, uint32_t n)
{
	uint64_t cl = i->cluster[0] ? i->cluster[0] : 1;
	uint64_t rows = ((uint64_t)m + i->tile_m - 1) / i->tile_m;
	return (rows + cl - 1) / cl * cl * (((uint64_t)n + i->tile_n - 1) / i->tile_n);
}

unsigned mmagen_gemm_split_for(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
			       uint32_t k, unsigned sms)
{
	if (!is_split_kernel(info) || !m || !n || !k || !sms)
		return 1;
	uint64_t cl = info->cluster[0] ? info->cluster[0] : 1;
	uint64_t units = cta_tiles(info, m, n) / cl;     /* per cluster */
	uint64_t slots = sms / cl ? sms / cl : 1;
	uint64_t kblocks = ((uint64_t)k + info->tile_k - 1) / info->tile_k;
	uint64_t most = kblocks / (info->stages ? info->stages : 1);
	uint64_t rows = m < info->tile_m ? m : info->tile_m, best = 1, best_cost = 0;
	if (most > AUTO_MAX)
		most = AUTO_MAX;
	/* costs scaled by tile_m to stay in integers; ties keep the smaller S */
	for (uint64_t s = 1; s == 1 || s <= most; s++) {
		uint64_t waves = (units * s + slots - 1) / slots;
		uint64_t cost = waves * ((kblocks + s - 1) / s + FILL) * info->tile_m +
				(s > 1 ? REDUCE * s * rows : 0);
		if (s == 1 || cost < best_cost)
			best = s, best_cost = cost;
	}
	return (unsigned)best;
}

mmagen_status mmagen_gemm_split_buffers(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
					unsigned splits, uint64_t *workspace_bytes,
					uint64_t *counter_bytes)
{
	if (!info || !workspace_bytes || !counter_bytes)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_gemm_split_buffers: NULL argument");
	*workspace_bytes = *counter_bytes = 0;
	if (!is_split_kernel(info))
		return MMAGEN_OK;
	if (!splits || splits > GEMM_SPLIT_MAX)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"split-K takes 1 to %u K slices, not %u", GEMM_SPLIT_MAX, splits);
	uint64_t tiles = cta_tiles(info, m, n);
	*workspace_bytes = tiles * splits * info->tile_m * info->tile_n * 4;
	*counter_bytes = tiles * 2 * 4;
	return MMAGEN_OK;
}
