/* gemm_plan.c - what a wgmma GEMM plan takes from the request's split_k
 * (gemm_split_plan), and the split-K work units' K ranges as
 * templates/gemm_sm90.ptx.in computes them (gemm_split_range).  gemm.c
 * and the chooser (gemm_split.c) build on these; the plan itself and
 * each path's entry points are declared in gemm_plan.h. */
#include "gemm_plan.h"

#include <assert.h>

unsigned gemm_split_slices(unsigned splits, unsigned kblocks)
{
	unsigned s = splits ? splits : 1;
	return s < kblocks ? s : kblocks ? kblocks : 1;
}

/* The whole tiles of a grid of `grid` CTAs (or clusters) walking `tiles`
 * tiles: as many as fill whole waves. */
unsigned gemm_split_whole(unsigned tiles, unsigned grid)
{
	assert(grid >= 1);
	return tiles / grid * grid;
}

/* Below whole: tile unit, all K blocks.  Past it, v = unit - whole: tile
 * whole + v / S; slice v % S gets kblocks / S blocks, and one more if it
 * is among the first kblocks % S: no product exceeds kblocks. */
void gemm_split_range(unsigned unit, unsigned whole, unsigned slices, unsigned kblocks,
		      unsigned *tile, unsigned *kbeg, unsigned *kcount)
{
	assert(slices >= 1);
	if (unit < whole) {
		*tile = unit, *kbeg = 0, *kcount = kblocks;
		return;
	}
	unsigned v = unit - whole;
	unsigned s = v % slices, q = kblocks / slices, r = kblocks % slices;
	*tile = whole + v / slices;
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
	/* ping-pong's warpgroups walk whole tiles, taking turns */
	if (g->pingpong) {
		if (s == MMAGEN_GEMM_SPLIT_AUTO)
			return MMAGEN_OK;
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--schedule pingpong runs whole tiles, not K slices; use --split-k 1, or --schedule cooperative");
	}
	g->split_kernel = 1;
	g->split = s == MMAGEN_GEMM_SPLIT_AUTO ? 0 : s;
	return MMAGEN_OK;
}

void gemm_emit_tile_order(struct kb *kb, const char *slot, unsigned group, kreg tile,
			  kreg tiles_m, kreg tiles_n, kreg tm, kreg tn)
{
	kreg per_group = kb_reg(kb, K_B32), grp = kb_reg(kb, K_B32), first = kb_reg(kb, K_B32);
	kreg rows = kb_reg(kb, K_B32), in = kb_reg(kb, K_B32);
	kb_at(kb, slot);
	ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tdiv.u32 $r, $r, $r;\n\tmul.lo.u32 $r, $r, $u;\n"
	       "\tsub.u32 $r, $r, $r;\n\tmin.u32 $r, $r, $u;\n\trem.u32 $r, $r, $r;\n"
	       "\trem.u32 $r, $r, $r;\n\tadd.u32 $r, $r, $r;\n\tdiv.u32 $r, $r, $r;\n",
	   per_group, tiles_n, group, grp, tile, per_group, first, grp, group,
	   rows, tiles_m, first, rows, rows, group, in, tile, per_group,
	   tm, in, rows, tm, tm, first, tn, in, rows);
}
