/* test_gemm_split.c - split-K on the wgmma GEMM, on the CPU:
 *   - the work units (gemm_split_range, the C twin of mmagen_split_range
 *     in templates/gemm_sm90.ptx.in) cover every (tile, K block) of an
 *     enumeration built here from M, N, K exactly once, each unit a
 *     non-empty run of K blocks, a tile's slices consecutive and in K
 *     order, balanced to one block, for many M, N, K, tiles and S
 *     (including S that does not divide the K blocks and S > K blocks);
 *   - the request's rule, the manifest and the kernel's parameters;
 *   - mmagen_gemm_split_for and mmagen_gemm_split_buffers against figures
 *     worked out by hand below. */
#include "gemm_plan.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static unsigned ceil_div(unsigned long long a, unsigned b)
{
	return (unsigned)((a + b - 1) / b);
}

static void cover_grid(unsigned m, unsigned n, unsigned k, unsigned bn, unsigned bk, unsigned s,
		       unsigned grid)
{
	unsigned tiles = ceil_div(m, 128) * ceil_div(n, bn), kblocks = ceil_div(k, bk);
	unsigned want = s < kblocks ? s : kblocks;     /* never an empty slice */
	unsigned slices = gemm_split_slices(s, kblocks);
	unsigned whole = gemm_split_whole(tiles, grid);
	unsigned char *seen = calloc((size_t)tiles * kblocks, 1);
	unsigned lo = ~0u, hi = 0, bad = 0, prev_end = 0;

	CHECK(slices == want, "M %u N %u K %u S %u: %u slices, want %u", m, n, k, s, slices, want);
	/* whole waves of the grid, and a tail of fewer tiles than the grid */
	CHECK(whole % grid == 0 && whole <= tiles && tiles - whole < grid,
	      "%u tiles on a grid of %u: %u whole", tiles, grid, whole);
	if (!seen || slices != want) {
		free(seen);
		return;
	}
	for (unsigned u = 0; u < whole + (tiles - whole) * slices; u++) {
		unsigned t, kb, cnt;
		gemm_split_range(u, whole, slices, kblocks, &t, &kb, &cnt);
		unsigned want_t = u < whole ? u : whole + (u - whole) / slices;
		unsigned first = u < whole || (u - whole) % slices == 0;
		if (t != want_t || cnt == 0 || kb + cnt > kblocks || kb != (first ? 0 : prev_end) ||
		    (u < whole && cnt != kblocks))
			bad++;
		prev_end = kb + cnt;
		if (u >= whole) {
			lo = cnt < lo ? cnt : lo;
			hi = cnt > hi ? cnt : hi;
		}
		for (unsigned i = 0; t < tiles && i < cnt && kb + i < kblocks; i++)
			seen[(size_t)t * kblocks + kb + i]++;
	}
	size_t wrong = 0;
	for (size_t i = 0; i < (size_t)tiles * kblocks; i++)
		wrong += seen[i] != 1;
	CHECK(!bad && !wrong && (lo == ~0u || hi - lo <= 1),
	      "M %u N %u K %u tile N %u K %u, S %u, grid %u: %u bad units, %zu (tile, K block) not covered once, slices %u..%u blocks",
	      m, n, k, bn, bk, s, grid, bad, wrong, lo, hi);
	free(seen);
}

/* grids of 1, 7 and 132 CTAs, and one of every tile (no whole wave past
 * the first when the tiles are fewer) */
static void cover(unsigned m, unsigned n, unsigned k, unsigned bn, unsigned bk, unsigned s)
{
	unsigned tiles = ceil_div(m, 128) * ceil_div(n, bn);
	static const unsigned grids[] = { 1, 7, 132 };
	for (unsigned g = 0; g < sizeof grids / sizeof grids[0]; g++)
		cover_grid(m, n, k, bn, bk, s, grids[g]);
	cover_grid(m, n, k, bn, bk, s, tiles * s);
}

static void test_units(void)
{
	static const unsigned ms[] = { 1, 16, 128, 129, 333, 4096 };
	static const unsigned ns[] = { 8, 250, 256, 258, 4096, 14336 };
	static const unsigned ks[] = { 1, 8, 64, 65, 200, 1000, 4096, 14336 };
	static const unsigned tn[][2] = { { 256, 64 }, { 128, 128 }, { 64, 32 } };
	static const unsigned ss[] = { 1, 2, 3, 4, 5, 7, 8, 13, 16, 64, 255, 256 };
	for (size_t a = 0; a < sizeof ms / sizeof *ms; a++)
		for (size_t b = 0; b < sizeof ns / sizeof *ns; b++)
			for (size_t c = 0; c < sizeof ks / sizeof *ks; c++)
				for (size_t t = 0; t < sizeof tn / sizeof *tn; t++)
					for (size_t s = 0; s < sizeof ss / sizeof *ss; s++)
						cover(ms[a], ns[b], ks[c], tn[t][0], tn[t][1], ss[s]);
	/* the kernel takes splits 0 as 1 */
	CHECK_EXPR(gemm_split_slices(0, 10) == 1);
	CHECK_EXPR(gemm_split_slices(7, 3) == 3);
}

static mmagen_gemm_request req(mmagen_type a, mmagen_type out, unsigned split)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = r.b = a;
	r.out = out;
	r.split_k = split;
	return r;
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* The request, its manifest and its kernel. */
static void test_request(void)
{
	mmagen_gemm_info i = { .size = sizeof i };
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, 4);
	char *t = NULL;

	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK && i.split_k == 4 &&
	      i.path == MMAGEN_GEMM_PATH_WGMMA, "split 4: info split_k %u", i.split_k);
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK && i.split_k == 0, "auto: split_k %u",
	      i.split_k);
	for (unsigned s = 0; s <= 1; s++) {
		r.split_k = s;
		CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK && i.split_k == 1,
		      "split %u: no split-K kernel", s);
	}
	r.split_k = 257;
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "1 to 256"), "257 slices refused: %s", mmagen_last_error());
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_UNSUPPORTED &&
	      strstr(mmagen_last_error(), "--split-k 4"), "auto on the mma.sync path is refused: %s",
	      mmagen_last_error());

	/* the kernel: three more parameters; one 16-byte store and load per
	 * 4 accumulators (64 x N f32 per warpgroup over 128 threads: N/8) */
	static const struct { mmagen_type a, out; unsigned bn, cluster; } k[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 256, 1 }, { MMAGEN_E4M3, MMAGEN_F32, 128, 1 },
		{ MMAGEN_S8, MMAGEN_S32, 256, 2 }, { MMAGEN_TF32, MMAGEN_F16, 64, 2 },
	};
	for (size_t c = 0; c < sizeof k / sizeof *k; c++) {
		r = req(k[c].a, k[c].out, c % 2 ? MMAGEN_GEMM_SPLIT_AUTO : 3);
		r.tile_n = k[c].bn;
		r.cluster = k[c].cluster;
		CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &t, NULL) == MMAGEN_OK, "%zu: %s", c,
		      mmagen_last_error());
		if (!t)
			continue;
		CHECK(strstr(t, ".param .u32 pd_tma,\n\t.param .u64 pworkspace,\n\t.param .u64 pcounters,\n"
				"\t.param .u32 psplits)") != NULL, "%zu: the parameters", c);
		CHECK(count(t, "st.global.cg.v4.b32") == k[c].bn / 8 &&
		      count(t, "ld.global.cg.v4.b32") == k[c].bn / 8,
		      "%zu: %u stores, %u loads of partial sums, want %u", c,
		      count(t, "st.global.cg.v4.b32"), count(t, "ld.global.cg.v4.b32"), k[c].bn / 8);
		CHECK(count(t, "atom.acq_rel.gpu.global.inc.u32") == 1 &&
		      count(t, k[c].a == MMAGEN_S8 ? "add.s32" : "add.f32") >= k[c].bn / 2,
		      "%zu: the arrival and the ordered sum", c);
		mmagen_free(t);
		t = NULL;
	}
	/* without split-K: none of it */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 1);
	if (mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &t, NULL) == MMAGEN_OK) {
		CHECK(!strstr(t, "psplits") && !strstr(t, "atom.") && !strstr(t, "mmagen_split_range"),
		      "split 1: the plain kernel");
		mmagen_free(t);
	}
	/* the manifest says what the host must pass */
	r = req(MMAGEN_BF16, MMAGEN_F32, MMAGEN_GEMM_SPLIT_AUTO);
	t = NULL;
	CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &t, NULL) == MMAGEN_OK && t &&
	      strstr(t, "\"name\": \"workspace\"") && strstr(t, "\"name\": \"counters\"") &&
	      strstr(t, "\"name\": \"splits\"") && strstr(t, "\"split_k\": \"auto\"") &&
	      strstr(t, "tiles * S * 131072 bytes") && strstr(t, "every launch leaves them zero"),
	      "manifest: %s", t ? t : mmagen_last_error());
	mmagen_free(t);
}

static unsigned split_for(mmagen_type a, unsigned cluster, unsigned split, unsigned m, unsigned n,
			  unsigned k, unsigned sms)
{
	mmagen_gemm_request r = req(a, a == MMAGEN_E4M3 ? MMAGEN_BF16 : a, split);
	mmagen_gemm_info i = { .size = sizeof i };
	r.cluster = cluster;
	if (a == MMAGEN_E4M3)
		r.tile_n = 128;         /* the figures below assume N 128 (default 192) */
	if (mmagen_gemm_info_of(&r, &i))
		return 999;
	return mmagen_gemm_split_for(&i, m, n, k, sms);
}

/* bf16: tile 128 x 256 x 64, 3 stages; e4m3: 128 x 128 x 128, 6 stages.
 * Outside the streaming shapes (M <= 128 with N >= 2048, or tile M below
 * 128) the large-tile model (gemm_split.c), in ns: waves * (500 +
 * ceil(KB/S) * max(compute, load)) + (S > 1: 10000 + S * rows * tile N *
 * 4 / 15), with compute = warpgroup rows inside M * tile N * tile K * 2 /
 * 3000 (bf16), load = (rows * tile K * 2 + tile N * tile K * 2 / cluster)
 * / min(20, 3000 / busy CTAs), rows = min(M, 128); S <= KB / stages, <=
 * 16, and one wave of units when S > 1; the cheapest S, the smaller on a
 * tie.  The figures were worked out with an independent script of that
 * model. */
static void test_split_for(void)
{
	const unsigned A = MMAGEN_GEMM_SPLIT_AUTO;
	/* N 1024: 4 tiles, 64 K blocks, 16 rows; S 11 of at most 64 / 3 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 16, 1024, 4096, 132) == 11);
	/* 128 rows: S 4 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 128, 1024, 4096, 132) == 4);
	/* 224 K blocks: S 8; M 256 the same */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 128, 1024, 14336, 132) == 8);
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 256, 1024, 14336, 132) == 8);
	/* streaming shapes: at most 2 slices.  16 x 4096 x 4096, 16 tiles: a
	 * K block of 48 KB at min(3 * 48 KB / 1600, 110) = 92 B/ns (533 ns;
	 * compute 2 * 64 * 256 * 64 / 5000 = 419); S 1: 3 + 64 * 0.533 =
	 * 37.1 us (DRAM 10.2); S 2: 3 + 32 * 0.533 + 5 = 25.1 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 16, 4096, 4096, 132) == 2);
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 128, 4096, 14336, 132) <= 2);
	/* 56 tiles at M 16: a quarter wave or more, so the streaming model
	 * (gemm_split.c): a K block of 48 KB at min(4 * 48 KB / 1600, 110) =
	 * 110 B/ns (447 ns; compute 2 * 64 * 256 * 64 / 5000 = 419); S 1:
	 * 3 + max(64 * 0.447, DRAM (16 + 14336) * 2 * 4096 / 3300 = 35.6) =
	 * 38.6 us; S 2: 3 + max(14.3, 35.6) + 5 = 43.6 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 16, 14336, 4096, 132) == 1);
	/* 512 tiles: more than a wave already: S 1 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 4096, 4096, 4096, 132) == 1);
	/* no SMs known; one K block */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 16, 4096, 4096, 0) == 1);
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 1, 8, 64, 132) == 1);
	/* one tile of one row: as many slices as allowed, 4096/64/4 = 16 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 1, 8, 4096, 132) == 16);
	/* K 1000: 16 blocks / 4 stages = 4 at most */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, A, 1, 8, 1000, 132) == 4);
	/* e4m3 at N 1024: 8 tiles, 32 K blocks, at most 32 / 6 = 5: S 5 */
	CHECK_EXPR(split_for(MMAGEN_E4M3, 1, A, 16, 1024, 4096, 132) == 5);
	/* clusters: 8 CTA tiles (4 pairs), S 8 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 2, A, 16, 1024, 4096, 132) == 8);
	/* a fixed S kernel is still advised; the plain kernel: 1 */
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, 3, 16, 1024, 4096, 132) == 11);
	CHECK_EXPR(split_for(MMAGEN_BF16, 1, 1, 16, 4096, 4096, 132) == 1);
	CHECK_EXPR(mmagen_gemm_split_for(NULL, 16, 4096, 4096, 132) == 1);
}

/* Past whole waves only the tail is split (gemm_split.c's tail model, in
 * ns, the figures worked out by hand):
 * - e4m3 4096^3, tile 128 x 192 x 128 (FP8: a slot's 24 chunks loaded at
 *   once): a K block 2 * 128 * 192 * 128 / 10800 = 582.5; 704 tiles on
 *   132 CTAs, 5 whole waves of 32 blocks (93.2 us) and 44 tail tiles.  A
 *   slot: max(500, 98304 / 100) = 983.  S 1: + 18.6 = 111.8 us (H200:
 *   112.1); S 2, 88 units: + 16 * 582.5 + 4500 + 2 * 983 = 109.0 (109.1);
 *   S 3, 132 units: + 6407 + 4500 + 2949 = 107.0 (107.5); S 4, 176 units
 *   in 2 waves: + 2 * 13092 = 119.4 (118.6).  S 3.
 * - bf16 4096 x 14336 x 4096, 128 x 256 x 64, cluster 2 (4 chunks of a
 *   slot at a time): a K block 723; 896 cluster tiles on 66 clusters, 13
 *   whole waves and 38 tail tiles; a slot 8 * 500 = 4000.  S 1: tail 46.3
 *   us; S 2, 76 units in 2 waves: 2 * (23.1 + 4.5 + 8) = 71.3; S 3, 2
 *   waves: 2 * (15.9 + 4.5 + 12) = 64.8.  S 1 (H200: S 2 and 3 1-3%
 *   slower). */
static void test_tail(void)
{
	mmagen_gemm_request r = req(MMAGEN_E4M3, MMAGEN_BF16, 0);
	CHECK(mmagen_gemm_choose(&r, 4096, 4096, 4096, 132) == MMAGEN_OK && r.tile_n == 192 &&
	      r.cluster == 1 && r.split_k == 3, "e4m3 4096^3: %u/%u/%u", r.tile_n, r.cluster,
	      r.split_k);
	mmagen_gemm_info i = { .size = sizeof i };
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK &&
		   mmagen_gemm_split_for(&i, 4096, 4096, 4096, 132) == 3);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.schedule = MMAGEN_GEMM_SCHED_COOP;    /* (left open: ping-pong 128x192) */
	CHECK(mmagen_gemm_choose(&r, 4096, 14336, 4096, 132) == MMAGEN_OK && r.tile_n == 256 &&
	      r.cluster == 2 && r.split_k == 1, "bf16 4096x14336x4096: %u/%u/%u", r.tile_n,
	      r.cluster, r.split_k);
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK &&
		   mmagen_gemm_split_for(&i, 4096, 14336, 4096, 132) == 1);
	/* whole waves exactly (M 8448: 33 cluster rows x 32 = 16 waves): no tail */
	CHECK_EXPR(mmagen_gemm_split_for(&i, 8448, 8192, 8192, 132) == 1);
	/* the buffers on the split grid: 8192^3 in S 3 on 132 CTAs, 1024
	 * cluster tiles, 15 whole waves of 66 and 34 tail tiles, 68 CTA tiles
	 * of 3 slots of 128 KiB; 16 waves exactly: none */
	uint64_t ws = 0, ctr = 0;
	CHECK(mmagen_gemm_split_buffers_grid(&i, 8192, 8192, 3, 132, &ws, &ctr) == MMAGEN_OK &&
	      ws == 68ull * 3 * 131072 && ctr == 68 * 8, "tail buffers %llu %llu",
	      (unsigned long long)ws, (unsigned long long)ctr);
	CHECK(mmagen_gemm_split_buffers_grid(&i, 8448, 8192, 3, 132, &ws, &ctr) == MMAGEN_OK &&
	      !ws && !ctr, "whole waves: %llu %llu", (unsigned long long)ws, (unsigned long long)ctr);
}

static mmagen_gemm_request chosen(mmagen_type a, mmagen_type out, unsigned m, unsigned n,
				  unsigned k)
{
	mmagen_gemm_request r = req(a, out, 0);
	CHECK(mmagen_gemm_choose(&r, m, n, k, 132) == MMAGEN_OK, "choose %ux%ux%u: %s", m, n, k,
	      mmagen_last_error());
	return r;
}

/* The mma.sync path's choice (gemm_split.c, choose_sync): the tile and
 * K slices of the least estimated time (warps' K units per wave, the
 * scheduler share, a split's slots, bytes per flop), splits only within
 * one wave of resident CTAs, tile M 64 and N <= 128 for M <= 64, the
 * generator's stages; no split where the generator has none (f16
 * accumulators, SM120). */
static mmagen_gemm_request sync_chosen(const char *target, mmagen_type a, mmagen_type out,
				       unsigned m, unsigned n, unsigned k)
{
	mmagen_gemm_request r = req(a, out, 0);
	mmagen_target_parse(target, &r.target);
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	CHECK(mmagen_gemm_choose(&r, m, n, k, 132) == MMAGEN_OK, "sync %ux%ux%u: %s", m, n, k,
	      mmagen_last_error());
	mmagen_gemm_info i = { .size = sizeof i };
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK && i.path == MMAGEN_GEMM_PATH_MMA_SYNC,
	      "sync %ux%ux%u: the generator takes it: %s", m, n, k, mmagen_last_error());
	return r;
}

static void test_choose_sync(void)
{
	/* 16 x 4096 x 14336: tile M 64, N 128 (32 tiles, two CTAs of 2
	 * warps an SM), K in 4 to 8 slices, all in one wave */
	mmagen_gemm_request r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_F32, 16, 4096, 14336);
	CHECK(r.tile_m == 64 && r.tile_n == 128 && r.stages == 0 && r.split_k >= 4 &&
	      r.split_k <= 8 && !r.cluster,
	      "16x4096x14336 f32: %ux%u stages %u split %u", r.tile_m, r.tile_n, r.stages, r.split_k);
	/* a bf16 D splits the same (every D through the workspace); f16
	 * accumulators do not split */
	mmagen_gemm_request rb = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 16, 4096, 14336);
	CHECK(rb.tile_n == r.tile_n && rb.split_k == r.split_k, "16x4096x14336 bf16: split %u",
	      rb.split_k);
	r = req(MMAGEN_F16, MMAGEN_F16, 0);
	r.acc = MMAGEN_F16;
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 14336, 132) == MMAGEN_OK && r.split_k == 1,
	      "acc f16, f16 D: split %u", r.split_k);
	/* K 64 = one 128-byte unit: no room for slices of 8; K 1024 (16
	 * units) at most 2 slices */
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_F32, 16, 4096, 64);
	CHECK(r.split_k == 1, "K 64: split %u", r.split_k);
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_F32, 16, 4096, 1024);
	CHECK(r.split_k <= 2, "K 1024: split %u", r.split_k);
	/* s8 (128 elements a unit) at K 4096: 32 units, split in 2 to 4
	 * (H200: 16 x 4096 x 4096 in 64x128 23.2 TOP/s whole, 29.8-32.3 in
	 * 2-4 slices; M 128 184.7 whole, 221-229 in 2-3) */
	r = sync_chosen("sm_90a", MMAGEN_S8, MMAGEN_S32, 16, 4096, 4096);
	CHECK(r.tile_m == 64 && r.split_k >= 2 && r.split_k <= 4, "s8 16x4096x4096: %ux%u split %u",
	      r.tile_m, r.tile_n, r.split_k);
	r = sync_chosen("sm_90a", MMAGEN_S8, MMAGEN_S32, 128, 4096, 4096);
	CHECK(r.split_k >= 2 && r.split_k <= 4, "s8 128x4096x4096: %ux%u split %u", r.tile_m,
	      r.tile_n, r.split_k);
	/* M 128: 128x128 tiles in 4 slices (128 CTAs of 4 warps), the
	 * fastest measured for K 4096 and 14336 */
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 128, 4096, 14336);
	CHECK(r.tile_m == 128 && r.tile_n == 128 && r.split_k == 4 && r.stages == 0,
	      "128x4096x14336: %ux%u split %u stages %u", r.tile_m, r.tile_n, r.split_k, r.stages);
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 128, 14336, 4096);
	CHECK(r.tile_m == 128 && r.tile_n == 128 && r.split_k == 1 && r.stages == 0,
	      "128x14336x4096: %ux%u split %u stages %u", r.tile_m, r.tile_n, r.split_k, r.stages);
	/* big: 128x256 (8 warps, every pipe fed) at the default stages */
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 4096, 4096, 4096);
	CHECK(r.tile_m == 128 && r.tile_n == 256 && r.stages == 0 && r.split_k == 1,
	      "4096^3: %ux%u stages %u", r.tile_m, r.tile_n, r.stages);
	/* 2048^3: 128 tiles of 128x256, one wave, no split */
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 2048, 2048, 2048);
	CHECK(r.tile_m == 128 && r.tile_n == 256 && r.split_k == 1, "2048^3: %ux%u split %u",
	      r.tile_m, r.tile_n, r.split_k);
	/* N 8, M 1: one warp */
	r = sync_chosen("sm_90a", MMAGEN_BF16, MMAGEN_BF16, 1, 8, 16);
	CHECK(r.tile_m == 64 && r.tile_n == 64, "1x8x16: %ux%u", r.tile_m, r.tile_n);
	/* another target's shared memory: sm_86 (99 KB) */
	r = sync_chosen("sm_86", MMAGEN_F16, MMAGEN_F32, 16, 4096, 4096);
	CHECK(r.tile_m == 64 && r.tile_n <= 128 && r.stages == 0, "sm_86: %ux%u stages %u",
	      r.tile_m, r.tile_n, r.stages);
	/* fixed fields stay */
	r = req(MMAGEN_BF16, MMAGEN_F32, 0);
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	r.tile_m = 128;
	r.tile_n = 256;
	r.stages = 3;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 4096, 132) == MMAGEN_OK && r.tile_m == 128 &&
	      r.tile_n == 256 && r.stages == 3 && r.split_k >= 1, "fixed: %ux%u stages %u",
	      r.tile_m, r.tile_n, r.stages);
	/* SM120: no split, its default stages */
	r = sync_chosen("sm_120a", MMAGEN_E4M3, MMAGEN_F32, 16, 4096, 4096);
	CHECK(r.stages == 0 && r.split_k <= 1, "sm_120a: stages %u split %u", r.stages, r.split_k);
	/* 64 x 256, a legal tile, fixed: stages and split filled as for others */
	r = req(MMAGEN_BF16, MMAGEN_F32, 0);
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	r.tile_m = 64;
	r.tile_n = 256;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 14336, 132) == MMAGEN_OK && r.tile_n == 256 &&
	      r.stages == 0 && r.split_k > 1, "fixed 64x256: stages %u split %u", r.stages, r.split_k);
}

/* mmagen_gemm_choose: the measured H200 picks (bf16: 1024^3 fastest with
 * tile N 64, 8192^3 with cluster 2, M = 16: a 16-row tile, 16 x 14336 x
 * 4096 unsplit with tile N 128, 16 x 4096 x 14336 in at most two slices), and its
 * rules over many shapes: only open fields filled (tile M for M <= 64:
 * the smallest of 16/32/64 that holds M; up to 128: 64 or 128), a choice the
 * generator takes, cluster 2 only with three waves of tiles, split-K only
 * in one wave (at most 2 slices and tile N 64/128 for streaming shapes:
 * a small tile, or M <= 128 with N >= 2048), none with f16 accumulators;
 * stages left alone on the wgmma path. */
static void test_choose(void)
{
	static const unsigned ms[] = { 1, 16, 100, 128, 129, 1000, 2048, 4096, 8192 };
	static const unsigned ns[] = { 8, 200, 1024, 4096, 14336 };
	static const unsigned ks[] = { 8, 64, 1000, 4096, 14336 };
	static const mmagen_type types[] = { MMAGEN_BF16, MMAGEN_TF32, MMAGEN_E4M3, MMAGEN_S8 };
	mmagen_gemm_request r = chosen(MMAGEN_BF16, MMAGEN_BF16, 1024, 1024, 1024);
	CHECK(r.tile_n == 64 && r.cluster == 1 && r.split_k == 1, "1024^3: %u/%u/%u", r.tile_n,
	      r.cluster, r.split_k);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.schedule = MMAGEN_GEMM_SCHED_COOP;
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK && r.tile_n == 256 &&
	      r.cluster == 2 && r.split_k == 1, "8192^3: %u/%u/%u", r.tile_n, r.cluster, r.split_k);
	/* the schedule left open: ping-pong where its tile fills the waves
	 * with less work per CTA (choose_pingpong; H200 sweeps in its
	 * comment): 128x192 at 8192^3 and 4096 x 14336 x 4096 (s8 cluster
	 * 1), 128x128 at 2048^3 (one wave of 128x256); the cooperative
	 * 128x256 where a ping-pong tile would be narrower by more than 64
	 * (4096^3), and for FP8, small M and explicit split-K */
	static const struct { mmagen_type a; unsigned m, n, k, sched, tile_n, cluster; } pp[] = {
		{ MMAGEN_S8, 8192, 8192, 8192, MMAGEN_GEMM_SCHED_PINGPONG, 192, 1 },
		{ MMAGEN_BF16, 8192, 8192, 8192, MMAGEN_GEMM_SCHED_PINGPONG, 192, 2 },
		{ MMAGEN_BF16, 4096, 14336, 4096, MMAGEN_GEMM_SCHED_PINGPONG, 192, 2 },
		{ MMAGEN_S8, 4096, 14336, 4096, MMAGEN_GEMM_SCHED_PINGPONG, 192, 1 },
		{ MMAGEN_BF16, 2048, 2048, 2048, MMAGEN_GEMM_SCHED_PINGPONG, 128, 1 },
		{ MMAGEN_BF16, 4096, 4096, 4096, 0, 256, 2 },
		{ MMAGEN_S8, 4096, 4096, 14336, 0, 256, 2 },
		{ MMAGEN_E4M3, 8192, 8192, 8192, 0, 192, 1 },
		{ MMAGEN_BF16, 128, 14336, 4096, 0, 128, 1 },
	};
	for (size_t i = 0; i < sizeof pp / sizeof pp[0]; i++) {
		mmagen_type out = pp[i].a == MMAGEN_S8 ? MMAGEN_S32 : pp[i].a == MMAGEN_TF32 ? MMAGEN_F32 : MMAGEN_BF16;
		r = chosen(pp[i].a, out, pp[i].m, pp[i].n, pp[i].k);
		CHECK(r.schedule == pp[i].sched && r.tile_n == pp[i].tile_n &&
		      r.cluster == pp[i].cluster && (!r.schedule || (r.split_k == 1 && !r.tile_m)),
		      "%s %ux%ux%u: schedule %u tile N %u cluster %u split %u", mmagen_type_name(pp[i].a),
		      pp[i].m, pp[i].n, pp[i].k, r.schedule, r.tile_n, r.cluster, r.split_k);
	}
	/* a tile N of the caller's: the cooperative kernel stays (the rule
	 * compares ping-pong's tiles with the pick's, not a tile with itself) */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.tile_n = 96;
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK && !r.schedule &&
	      r.tile_n == 96, "tile N given: cooperative (schedule %u)", r.schedule);
	r = req(MMAGEN_S8, MMAGEN_S32, 0);
	r.split_k = 2;
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK && !r.schedule,
	      "split-K asked for: cooperative (schedule %u)", r.schedule);
	r = req(MMAGEN_S8, MMAGEN_S32, 0);
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK && !r.schedule &&
	      r.split_k == MMAGEN_GEMM_SPLIT_AUTO,
	      "split-K auto asks for the split kernel: cooperative (schedule %u, split %u)",
	      r.schedule, r.split_k);
	r = req(MMAGEN_S8, MMAGEN_S32, 1);
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK &&
	      r.schedule == MMAGEN_GEMM_SCHED_PINGPONG && r.split_k == 1,
	      "split-K 1: ping-pong (schedule %u, split %u)", r.schedule, r.split_k);
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 16, 14336, 4096);
	CHECK(r.tile_m == 16 && r.tile_n == 128 && r.cluster == 1 && r.split_k == 1,
	      "16x14336x4096: %u/%u/%u/%u", r.tile_m, r.tile_n, r.cluster, r.split_k);
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 16, 4096, 14336);
	CHECK(r.tile_m == 16 && r.cluster == 1 && r.split_k <= 2, "16x4096x14336: %u/%u/%u/%u",
	      r.tile_m, r.tile_n, r.cluster, r.split_k);
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 40, 4096, 4096);
	CHECK(r.tile_m == 64, "M 40: tile M %u", r.tile_m);
	/* M 128: 64-row tiles for N 4096 (bf16 128 x 4096 x 4096 on the
	 * H200: 64x64 16.4 us, 128x64 in 2 slices 19.4, cuBLASLt 16.7), 128
	 * rows for N 14336 (128x128 36.0 us, 64x128 37.7) */
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 128, 4096, 4096);
	CHECK(r.tile_m == 64 && r.tile_n == 64 && r.split_k == 1, "128x4096x4096: %u/%u/%u",
	      r.tile_m, r.tile_n, r.split_k);
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 128, 14336, 4096);
	CHECK(r.tile_m == 0 && r.tile_n == 128 && r.split_k == 1, "128x14336x4096: %u/%u/%u",
	      r.tile_m, r.tile_n, r.split_k);
	r = chosen(MMAGEN_BF16, MMAGEN_BF16, 129, 4096, 4096);
	CHECK(r.tile_m == 0, "M 129: tile M %u", r.tile_m);
	r = chosen(MMAGEN_E4M3, MMAGEN_BF16, 8192, 8192, 8192);
	CHECK(r.tile_n == 192 && r.cluster == 1, "e4m3 8192^3: %u/%u", r.tile_n, r.cluster);
	/* FP8 tiles of 16-64 rows take K blocks in pairs, one promotion wait
	 * per pair: e4m3 128 x 4096 x 14336 in 64x64 tiles unsplit (H200:
	 * 23.1 us; before the pairs the model chose 128x64 in 2 slices,
	 * 24.9 us); 16 rows at M 16 */
	r = chosen(MMAGEN_E4M3, MMAGEN_BF16, 128, 4096, 14336);
	CHECK(r.tile_m == 64 && r.tile_n == 64 && r.split_k == 1, "e4m3 128x4096x14336: %u/%u/%u",
	      r.tile_m, r.tile_n, r.split_k);
	r = chosen(MMAGEN_E4M3, MMAGEN_BF16, 16, 4096, 4096);
	CHECK(r.tile_m == 16 && r.tile_n == 64 && r.split_k == 1, "e4m3 16x4096x4096: %u/%u/%u",
	      r.tile_m, r.tile_n, r.split_k);

	for (unsigned t = 0; t < 4; t++)
		for (unsigned a = 0; a < 9; a++)
			for (unsigned b = 0; b < 5; b++)
				for (unsigned c = 0; c < 5; c++) {
					mmagen_type ty = types[t];
					unsigned m = ms[a], n = ns[b], k = ks[c];
					r = chosen(ty, ty == MMAGEN_S8 ? MMAGEN_S32 : MMAGEN_BF16, m, n, k);
					mmagen_gemm_info i = { .size = sizeof i };
					int ok = mmagen_gemm_info_of(&r, &i) == MMAGEN_OK;
					unsigned tm = m <= 16 ? 16 : m <= 32 ? 32 : m <= 64 ? 64 : 0;
					/* M up to 128: 64 or 128 rows */
					if (m > 64 && m <= 128 && r.tile_m == 64)
						tm = 64;
					unsigned long long tiles = ceil_div(m, tm ? tm : 128) * (unsigned long long)ceil_div(n, r.tile_n);
					unsigned kb = ceil_div(k, i.tile_k);
					unsigned s = r.split_k < kb ? r.split_k : kb;
					CHECK(ok && r.tile_n && r.cluster && r.split_k &&
					      (r.cluster == 1 || tiles >= 3 * 132) &&
					      (s <= 1 || tiles * s <= 132 || tiles >= 132) && r.tile_m == tm &&
					      (!(tm || (m <= 128 && n >= 2048)) ||
					       (r.split_k <= 2 && r.tile_n <= 128)) && r.stages == 0,
					      "%s %ux%ux%u: tile N %u cluster %u split %u (%s)",
					      mmagen_type_name(ty), m, n, k, r.tile_n, r.cluster,
					      r.split_k, ok ? "ok" : mmagen_last_error());
				}
	/* what the request fixed stays; f16 accumulators: no split */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.tile_n = 256;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 14336, 132) == MMAGEN_OK && r.tile_n == 256 &&
	      r.split_k > 1, "fixed tile: %u/%u", r.tile_n, r.split_k);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.tile_m = 128;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 4096, 132) == MMAGEN_OK && r.tile_m == 128,
	      "fixed tile M: %u", r.tile_m);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.layout = MMAGEN_GEMM_NN;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 4096, 132) == MMAGEN_OK && r.tile_m == 0,
	      "nn (M-major A): tile M %u", r.tile_m);
	/* a fixed tile N outside 64/128/widest is still the one, and the open
	 * fields are filled (M 16: cluster 1, split) */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.tile_n = 192;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 14336, 132) == MMAGEN_OK && r.tile_n == 192 &&
	      r.cluster == 1 && r.split_k > 1, "tile 192: %u/%u/%u", r.tile_n, r.cluster, r.split_k);
	r = req(MMAGEN_F16, MMAGEN_F16, 0);
	r.acc = MMAGEN_F16;
	CHECK(mmagen_gemm_choose(&r, 16, 4096, 4096, 132) == MMAGEN_OK && r.split_k == 1,
	      "acc f16: split %u", r.split_k);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.layout = MMAGEN_GEMM_NT;
	CHECK(mmagen_gemm_choose(&r, 8192, 8192, 8192, 132) == MMAGEN_OK && r.cluster == 1 &&
	      r.tile_n % 64 == 0, "nt: cluster %u tile %u", r.cluster, r.tile_n);
	test_choose_sync();
	/* bad input: one line, nothing changed */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	CHECK(mmagen_gemm_choose(&r, 0, 4096, 4096, 132) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "at least 1") && !r.tile_n, "M 0: %s", mmagen_last_error());
	CHECK_EXPR(mmagen_gemm_choose(&r, 16, 16, 16, 0) == MMAGEN_INVALID_ARGUMENT);
	CHECK_EXPR(mmagen_gemm_choose(NULL, 16, 16, 16, 132) == MMAGEN_INVALID_ARGUMENT);
}

static void test_buffers(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, 3);
	mmagen_gemm_info i = { .size = sizeof i };
	uint64_t ws = 1, ctr = 1;
	r.cluster = 1;              /* (the default is 2) */

	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK);
	/* 333 x 258: 3 x 2 tiles of 128 x 256, 3 slices of 128 KiB */
	CHECK(mmagen_gemm_split_buffers(&i, 333, 258, 3, &ws, &ctr) == MMAGEN_OK &&
	      ws == 6ull * 3 * 131072 && ctr == 6 * 8, "buffers %llu %llu",
	      (unsigned long long)ws, (unsigned long long)ctr);
	CHECK(mmagen_gemm_split_buffers(&i, 333, 258, 0, &ws, &ctr) == MMAGEN_INVALID_ARGUMENT,
	      "0 slices refused");
	r.cluster = 2;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK);
	/* tile rows in whole clusters: 4 x 2 */
	CHECK(mmagen_gemm_split_buffers(&i, 333, 258, 5, &ws, &ctr) == MMAGEN_OK &&
	      ws == 8ull * 5 * 131072 && ctr == 8 * 8, "cluster buffers %llu %llu",
	      (unsigned long long)ws, (unsigned long long)ctr);
	r = req(MMAGEN_BF16, MMAGEN_BF16, 0);
	r.cluster = 1;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK);
	CHECK(mmagen_gemm_split_buffers(&i, 333, 258, 3, &ws, &ctr) == MMAGEN_OK && !ws && !ctr,
	      "no split-K: no buffers");
	CHECK_EXPR(mmagen_gemm_split_buffers(&i, 1, 1, 1, NULL, &ctr) == MMAGEN_INVALID_ARGUMENT);
	/* the split kernel: 2^25 x 2^24 tiles of 128 x 256 in 256 slices of
	 * 2^17 bytes: 2^49 * 2^25 bytes, past 2^64: refused, not wrapped */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 3);
	r.cluster = 1;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK);
	CHECK(mmagen_gemm_split_buffers(&i, 0xffffffffu, 0xffffffffu, 256, &ws, &ctr) ==
		      MMAGEN_INVALID_ARGUMENT && strstr(mmagen_last_error(), "2^64"),
	      "overflow: %s", mmagen_last_error());
	/* M 2^20 (2^13 tile rows) x N 2^24 (2^16 tile columns) in 256
	 * slices: 2^29 tiles * 2^25 bytes = 2^54 */
	CHECK(mmagen_gemm_split_buffers(&i, 1u << 20, 1u << 24, 256, &ws, &ctr) == MMAGEN_OK &&
		      ws == (1ull << 54), "2^54 workspace: %llu", (unsigned long long)ws);
	/* the mma.sync kernel numbers its slots in 32 bits: 2^26 x 2^26
	 * tiles of 64 x 64 in 2 slices refused (it wrapped to 0 before);
	 * 2^15 x 2^15 tiles in 2 slices, 2^31 slots, taken */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 2);
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	r.tile_m = r.tile_n = 64;
	CHECK_EXPR(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK && i.split_workspace);
	CHECK(mmagen_gemm_split_buffers(&i, 0xffffffffu, 0xffffffffu, 2, &ws, &ctr) ==
		      MMAGEN_INVALID_ARGUMENT && strstr(mmagen_last_error(), "2^32"),
	      "mma.sync slots: %s", mmagen_last_error());
	CHECK(mmagen_gemm_split_buffers(&i, 1u << 21, 1u << 21, 2, &ws, &ctr) == MMAGEN_OK &&
		      ws == (1ull << 31) * 64 * 64 * 4 && ctr == (1ull << 30) * 4,
	      "mma.sync 2^31 slots: %llu", (unsigned long long)ws);
}

int main(void)
{
	test_units();
	test_request();
	test_split_for();
	test_tail();
	test_choose();
	test_buffers();
	return check_summary();
}
