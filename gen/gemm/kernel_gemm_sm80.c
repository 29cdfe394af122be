/* kernel_gemm_sm80.c - the warp-level GEMM: cp.async pipeline, swizzled
 * shared memory, ldmatrix, mma.sync (templates/gemm_sm80.ptx.in says how
 * the kernel runs).
 *
 * Every type is handled in bytes: a stage row is 64 or 128 bytes (the
 * plan's row_bytes) of K (K-major operands) or of M/N (MN-major, 16-bit
 * only), one mma.sync step eats 32 bytes of K, so a K block is two or four
 * steps, and the fragment bytes of m16n8k16 (16-bit), m16n8k8 (tf32),
 * m16n8k32 (8-bit) and m16n8k64 (4-bit) sit at the same places, so one
 * ldmatrix.b16 pattern loads all of them.  The C side writes the copies,
 * the fragment loads, the mma sequence and the epilogue. */
#include "gemm_plan.h"
#include "gemm_abi.h"

#include <assert.h>
#include <string.h>

#define WARP_TILE 64            /* each warp: 64 x 64 of D */
#define STEP_BYTES 32           /* K bytes of one mma.sync */
#define MAX_STEPS (GEMM80_ROW_WIDE / STEP_BYTES)
/* the staged epilogue (emit_store_staged): a row of 64 32-bit sums plus
 * 8 words, 16 rows a warp */
#define STAGED_PITCH (4 * (WARP_TILE + 8))
#define STAGED_BAND (16 * STAGED_PITCH)

/* ---- the shared-memory layout (gemm_plan.h) ---- */

/* The XOR key of a row.  128 bytes make one line of the 32 banks: two
 * 64-byte rows share a line (key (row >> 1) & 3), a 128-byte row fills
 * one (key row & 7); either way one logical chunk of eight consecutive
 * rows lands on eight distinct 16-byte slots, and the key repeats every
 * 8 rows, so offsets of 8k rows can be immediates. */
static unsigned swizzle_key(unsigned rb, unsigned row)
{
	return rb == GEMM80_ROW_NARROW ? (row >> 1) & 3 : row & 7;
}

unsigned gemm80_swizzle(unsigned rb, unsigned row, unsigned chunk)
{
	return row * rb + ((chunk ^ swizzle_key(rb, row)) << 4);
}

/* ldmatrix.x4: lanes 8i..8i+7 give the rows of matrix i.  Pattern 1:
 * matrices (rows 0-7, chunk 0), (rows 8-15, chunk 0), (0-7, 1), (8-15,
 * 1): A's a0..a3 from K-major rows, or two n8 tiles' b0, b1 from k-rows
 * of an N-major B (.trans).  Pattern 2: (0-7, 0), (0-7, 1), (8-15, 0),
 * (8-15, 1): two n8 tiles' b0, b1 from a K-major B, or a0..a3 from
 * k-rows of an M-major A (.trans). */
void gemm80_ldmatrix_lane(int pattern, unsigned lane, unsigned *row, unsigned *chunk)
{
	unsigned g = lane >> 3;
	*row = (lane & 7) + 8 * (pattern == 1 ? g & 1 : g >> 1);
	*chunk = pattern == 1 ? g >> 1 : g & 1;
}

void gemm80_frag_origin(int mn, unsigned rb, unsigned bk, unsigned i, unsigned step,
			unsigned *row, unsigned *chunk)
{
	unsigned per = rb / 32;   /* ldmatrix of 16 columns in one panel */
	if (!mn) {          /* rows 16i.., K bytes 32 step.. */
		*row = 16 * i;
		*chunk = 2 * step;
	} else {            /* panel i/per (rb/2 columns), k-rows 16 step.. */
		*row = (i / per) * bk + 16 * step;
		*chunk = 2 * (i % per);
	}
}

unsigned gemm80_warp_rows(int mn, unsigned rb, unsigned bk)
{
	return mn ? WARP_TILE / (rb / 2) * bk : WARP_TILE;
}

/* ---- the plan ---- */

/* Dynamic shared memory a block may have (the opt-in maximum, targets.def). */
unsigned gemm80_smem_limit(int target)
{
	return mmagen_target_smem(target);
}

static mmagen_status gemm_form(const struct gemm_plan *g, const mmagen_form **out)
{
	mmagen_request r;
	mmagen_request_init(&r);
	r.target = g->req.target;
	r.family = MMAGEN_FAM_MMA;
	r.sparse = MMAGEN_SPARSE_NONE;
	r.m = 16;
	r.n = 8;
	r.k = g->mma_k;
	r.a = g->req.a;
	r.b = g->req.b;
	r.c = r.d = g->acc;
	r.alayout = MMAGEN_ROW;
	r.blayout = MMAGEN_COL;
	r.satfinite = 0;
	r.bitop = MMAGEN_BITOP_NONE;
	return mmagen_select(&r, out);
}

static int tile_ok(unsigned v)
{
	return v == 64 || v == 128 || v == 256;
}

/* The stage row: the tile K asked for (bk elements of a 64- or 128-byte
 * row), or 128 bytes where 4 stages of them fit (at least the stages
 * asked for) and A and B are K-major: half the barriers and loop turns
 * per mma of 64-byte rows, but a stage twice the size.  4 wide stages
 * keep as many bytes in flight as 6 narrow ones (the H200, bf16
 * 128x256: 510 TFLOP/s against 499 with 6 narrow, 474 with 3 wide), so
 * sm_80's 163 KB and sm_86/sm_89's 99 KB keep 64-byte rows for the
 * 8-warp tiles.  nn, nt and tt take 128-byte rows only when asked:
 * their copies once kept a pointer, K row and predicate each and ptxas
 * spilled; since they share one pointer (emit_mn_load), bf16 nn/nt/tt
 * assemble without spills for sm_80 and sm_90 with either row, but
 * their 128-byte rows have not been timed on a GPU. */
static mmagen_status pick_rows(const mmagen_gemm_request *req, struct gemm_plan *g,
			       unsigned limit)
{
	unsigned narrow = GEMM80_ROW_NARROW * 8 / g->bits, wide = GEMM80_ROW_WIDE * 8 / g->bits;
	if (req->tile_k) {
		if (req->tile_k != narrow && req->tile_k != wide)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"the mma.sync GEMM's tile K is %u or %u for %s (64- or 128-byte stage rows), not %u; use --tile %ux%ux%u",
				narrow, wide, mmagen_type_name(req->a), req->tile_k, g->bm, g->bn,
				2 * req->tile_k < narrow + wide ? narrow : wide);
		g->row_bytes = req->tile_k * g->bits / 8;
		return MMAGEN_OK;
	}
	unsigned want = req->stages > 4 ? req->stages : 4;
	int fits = want * (g->bm + g->bn) * GEMM80_ROW_WIDE <= limit;
	g->row_bytes = fits && !g->a_mn && !g->b_mn ? GEMM80_ROW_WIDE : GEMM80_ROW_NARROW;
	return MMAGEN_OK;
}

mmagen_status gemm_plan_sm80(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	const char *target = mmagen_target_name(req->target);
	mmagen_status s;

	memset(g, 0, sizeof *g);
	g->req = *req;
	g->path = MMAGEN_GEMM_PATH_MMA_SYNC;
	g->bits = mmagen_type_bits(req->a);
	g->acc = req->acc ? req->acc : mmagen_type_is_float(req->a) ? MMAGEN_F32 : MMAGEN_S32;
	g->bm = req->tile_m ? req->tile_m : 128;
	g->bn = req->tile_n ? req->tile_n : 256;
	g->mma_k = STEP_BYTES * 8 / g->bits;
	g->a_mn = req->layout == MMAGEN_GEMM_NN || req->layout == MMAGEN_GEMM_NT;
	g->b_mn = req->layout == MMAGEN_GEMM_NT || req->layout == MMAGEN_GEMM_TT;
	g->cluster = 1;
	g->group = req->group ? req->group : 8;
	g->split = req->split_k ? req->split_k : 1;
	if (!tile_ok(g->bm) || !tile_ok(g->bn) || g->bm * g->bn > 128 * 256)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the mma.sync GEMM tile is M and N of 64, 128 or 256 (warps of 64 x 64), at most 8 warps, not %ux%u; use 128x256, 128x128 or 64x64",
			g->bm, g->bn);
	if (req->cluster > 1)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"clusters are the wgmma path's (TMA multicast); the mma.sync GEMM takes --cluster 1");
	if (g->group > 65535 || req->stages > 32 || g->split > 256)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s %u is out of range; use %s",
			g->group > 65535 ? "group" : req->stages > 32 ? "stages" : "split-k",
			g->group > 65535 ? g->group : req->stages > 32 ? req->stages : g->split,
			g->group > 65535 ? "1 to 65535 tile rows" :
			req->stages > 32 ? "2 to 32 stages (shared memory allows fewer)" :
			"1 to 256 K slices");
	/* split-K: each slice's sums go to a workspace slot of the
	 * accumulator's type (f32 or s32), which the last slice of a tile to
	 * arrive adds in slice order and turns into D, whatever D's type.
	 * (f32 and s32 D once took the slices by red.global.add into a
	 * zeroed D: slower, and f32 sums in no fixed order.) */
	if (g->split > 1) {
		if (g->acc != MMAGEN_F32 && g->acc != MMAGEN_S32)
			return mmagen_set_error(MMAGEN_UNSUPPORTED,
				"split-K keeps each slice's sums in f32, not %s accumulators; with --acc %s use --split-k 1, or --acc f32",
				mmagen_type_name(g->acc), mmagen_type_name(g->acc));
		g->split_ws = 1;
	}
	g->threads = g->bm * g->bn / (WARP_TILE * WARP_TILE) * 32;
	if ((s = gemm_form(g, &g->form)))
		return s;
	unsigned limit = gemm80_smem_limit(req->target);
	if ((s = pick_rows(req, g, limit)))
		return s;
	g->bk = g->row_bytes * 8 / g->bits;
	g->a_stage = g->bm * g->row_bytes;
	g->b_stage = g->bn * g->row_bytes;
	unsigned stage = g->a_stage + g->b_stage;
	/* Default depth: 4 stages.  A CTA of 8 warps needs about 240
	 * registers a thread, the whole register file, so one CTA runs per
	 * SM and shared memory beyond its stages would sit idle: there take
	 * up to 6 (as many as fit).  The wait before each K block leaves
	 * stages - 2 blocks in flight; at 580 TFLOP/s a 128 x 256 x 32 bf16
	 * block takes about 0.5 us per SM, so 4 stages cover about 1 us of
	 * L2/HBM latency and 6 about 2 us (Little's law: the bytes in flight
	 * per SM must cover bandwidth x latency).  A block of 128-byte rows
	 * takes twice as long: 4 of them cover what 6 narrow ones do. */
	g->stages = req->stages ? req->stages : g->threads == 256 ? 6 : 4;
	if (!req->stages && g->stages * stage > limit)
		g->stages = limit / stage;
	g->smem = g->stages * stage;
	unsigned most = limit / stage > 32 ? 32 : limit / stage;
	if (g->stages < 2 && most >= 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the pipeline has at least 2 stages (one filled while another is read), not %u; use 2 to %u stages",
			g->stages, most);
	if (g->stages < 2 || g->smem > limit)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%u stages of %u bytes do not fit the %u bytes of shared memory a block can have on %s; use 2 to %u stages",
			g->stages, stage, limit, target, most);
	/* two stages always hold the staged epilogue's bands: 8 warps
	 * (128 x 256) take 36 KB, two stages of 64-byte rows 48 KB */
	if (g->threads / 32 * STAGED_BAND > g->smem)
		return mmagen_set_error(MMAGEN_INTERNAL,
			"the %u-byte stages cannot hold the epilogue's %u bytes of D; use more --stages",
			g->smem, g->threads / 32 * STAGED_BAND);
	return MMAGEN_OK;
}

/* ---- the kernel ---- */

/* What the generator and the template share, beyond the slots. */
struct k80 {
	const struct gemm_plan *g;
	struct kb *kb;
	kreg tid, warp, lane, m, n, k, m0, n0, z, kb_begin, kb_end, smem;
	kreg kload, wbase, rstage, wstage;
	kreg wm, wn;                 /* the warp's row and column of warp tiles */
	/* copies: per operand, the copies a thread makes; soff: the stage
	 * offsets of the thread's chunk in copies 0 .. nsoff-1 (one, unless
	 * a copy pass is fewer than the 8 rows after which the swizzle
	 * repeats) */
	unsigned copies[2], nsoff;
	kreg base[2], kstride[2], soff[2];
	/* an operand's copies share one pointer gptr (copy 0's), koff its
	 * K position, rstride a byte stride and left the rows (K-major) or
	 * columns (MN-major) of the matrix from copy 0's on: K-major copy
	 * i is i * tr rows (rstride) further, inside while i * tr < left;
	 * MN-major, see mn_groups (rstride only with several groups).
	 * Per-copy pointers, K rows and predicates cost the 8-warp tile 24
	 * registers and 12 predicates with 128-byte rows, and ptxas
	 * spilled */
	kreg gptr[2], koff[2], rstride[2], left[2];
	/* fragments: per operand, the lane's offset for logical chunk 2h
	 * (the K bytes of step h in a K-major row, or 16 columns h of an
	 * MN-major panel), for h < nlad; lad: loff + the read stage.  64-byte
	 * rows keep both of theirs; 128-byte rows would need four, which the
	 * 8-warp tile has no registers for (ptxas spilled), so they keep
	 * chunk 0's and take chunk 2h's as lad ^ 32h: bits 4-6 of a lane's
	 * address are its chunk alone (stages and rows are whole 128-byte
	 * lines, the shared window 128-byte aligned) */
	unsigned nlad;
	kreg loff[2][2], lad[2][2];
	kreg fa[2], fb[2];           /* two buffers: A 4 x 4 regs, B 8 x 2 */
	kreg acc;
	struct instr in;
};

/* x (elements, u64) *= the element's bytes: 4-bit elements are half one. */
static void to_bytes(struct kb *kb, kreg x, unsigned bits)
{
	if (bits < 8)
		ke(kb, "\tshr.b64 $r, $r, 1;\n", x, x);
	else
		ke(kb, "\tshl.b64 $r, $r, $u;\n", x, x, gemm_log2u(bits / 8));
}

/* t = the swizzle key of stage row `row` (swizzle_key in PTX) */
static void emit_swizzle_key(struct kb *kb, unsigned rb, kreg t, kreg row)
{
	if (rb == GEMM80_ROW_NARROW)
		ke(kb, "\tshr.u32 $r, $r, 1;\n\tand.b32 $r, $r, 3;\n", t, row, t, t);
	else
		ke(kb, "\tand.b32 $r, $r, 7;\n", t, row);
}

/* An MN-major operand's copy i is stage row row + i tr (row = tid / cpr):
 * k-row r % bk of panel r / bk (rb/2 columns each).  tr and bk are
 * powers of two, so copy i = nj p + j is k-row kr0 + j tr of panel p0 +
 * p pstep, kr0 and p0 being copy 0's: nj = bk / tr k-row groups share a
 * panel where a pass is fewer rows than a K block (pstep 1), else one
 * group (nj 1) and each copy is pstep = tr / bk panels further. */
static void mn_groups(unsigned tr, unsigned bk, unsigned *nj, unsigned *pstep)
{
	*nj = tr < bk ? bk / tr : 1;
	*pstep = tr < bk ? 1 : tr / bk;
}

/* Per-thread copy addresses.  A row is cpr = rb/16 chunks; copy c of a
 * thread covers stage row r = c * tr + tid/cpr (tr = threads/cpr), chunk
 * tid % cpr.  Each operand keeps one pointer (copy 0's), a byte stride
 * and the rows (K-major) or columns (MN-major) left from copy 0's on;
 * the copies' other offsets are immediates. */
static void emit_copy_setup(struct k80 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned rb = g->row_bytes, cpr = rb / 16, tr = g->threads / cpr;
	kreg row = kb_reg(kb, K_B32), ch = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	kreg col = kb_reg(kb, K_B32), w = kb_reg(kb, K_B64), x = kb_reg(kb, K_B64);

	ke(kb, "\t// cp.async: this thread's chunk (tid %% $u) of stage rows tid / $u + $u c\n",
	   cpr, cpr, tr);
	ke(kb, "\tshr.u32 $r, $r, $u;\n\tand.b32 $r, $r, $u;\n", row, c->tid, gemm_log2u(cpr), ch,
	   c->tid, cpr - 1);
	/* copy c adds c * tr rows as an immediate where tr is a multiple of
	 * the key's 8 rows; 32 threads of 128-byte rows pass 4 rows, so
	 * copies 0 and 1 have an offset each, copy c the one of c % 2 */
	c->nsoff = tr >= 8 ? 1 : 8 / tr;
	assert(c->nsoff <= 2);
	for (unsigned j = 0; j < c->nsoff; j++) {
		kreg rj = row;
		c->soff[j] = kb_reg(kb, K_B32);
		if (j) {
			rj = kb_reg(kb, K_B32);
			ke(kb, "\tadd.u32 $r, $r, $u;\n", rj, row, j * tr);
		}
		emit_swizzle_key(kb, rb, t, rj);
		ke(kb, "\txor.b32 $r, $r, $r;\n\tshl.b32 $r, $r, 4;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
		   t, t, ch, t, t, c->soff[j], rj, rb, t);
	}
	for (int op = 0; op < 2; op++) {
		int mn = op ? g->b_mn : g->a_mn;
		unsigned rows = op ? g->bn : g->bm;
		kreg ld = kb_reg(kb, K_B32), lim = op ? c->n : c->m, o0 = op ? c->n0 : c->m0;
		c->base[op] = frag_param_ptr(kb, op ? "pb" : "pa");
		c->kstride[op] = kb_reg(kb, K_B32);
		ke(kb, "\tld.param.u32 $r, [$s];\n", ld, op ? "pldb" : "plda");
		if (mn)      /* a K block is bk rows of ld elements */
			ke(kb, "\tshl.b32 $r, $r, $u;\n", c->kstride[op], ld,
			   gemm_log2u(g->bk) + gemm_log2u(g->bits / 8));
		else
			ke(kb, "\tmov.u32 $r, $u;\n", c->kstride[op], rb);
		c->copies[op] = rows * cpr / g->threads;
		assert(c->copies[op] >= c->nsoff && c->copies[op] <= 16);
		if (!mn) {
			/* row o0 + row, bytes ch * 16 of the K block; copy
			 * i: tr i rows further */
			kreg gp = kb_reg(kb, K_B64), rs = kb_reg(kb, K_B64);
			kreg lf = kb_reg(kb, K_B32), ko = kb_reg(kb, K_B32);
			c->gptr[op] = gp;
			c->rstride[op] = rs;
			c->left[op] = lf;
			c->koff[op] = ko;
			ke(kb, "\tadd.u32 $r, $r, $r;\n\tmax.u32 $r, $r, $r;\n\tsub.u32 $r, $r, $r;\n"
			       "\tmul.wide.u32 $r, $r, $r;\n",
			   t, o0, row, lf, lim, t, lf, lf, t, w, t, ld);
			to_bytes(kb, w, g->bits);
			ke(kb, "\tadd.u64 $r, $r, $r;\n\tmul.wide.u32 $r, $r, 16;\n\tadd.u64 $r, $r, $r;\n"
			       "\tmul.wide.u32 $r, $r, $u;\n",
			   gp, c->base[op], w, x, ch, gp, gp, x, rs, ld, tr);
			to_bytes(kb, rs, g->bits);
			ke(kb, "\tshl.b32 $r, $r, $u;\n", ko, ch, gemm_log2u(128 / g->bits));
			continue;
		}
		/* copy 0: k-row kr0 (koff) of panel p0, columns o0 + rb/2 p0
		 * + 8 ch on; left: the columns from there on; rstride: tr
		 * k-rows, the step between k-row groups */
		unsigned nj, pstep;
		mn_groups(tr, g->bk, &nj, &pstep);
		assert(g->bits == 16 && c->copies[op] % nj == 0);
		kreg gp = kb_reg(kb, K_B64), lf = kb_reg(kb, K_B32), kr = kb_reg(kb, K_B32);
		c->gptr[op] = gp;
		c->left[op] = lf;
		c->koff[op] = kr;
		ke(kb, "\tand.b32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n"
		       "\tshl.b32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n\tmad.lo.u32 $r, $r, 8, $r;\n"
		       "\tmax.u32 $r, $r, $r;\n\tsub.u32 $r, $r, $r;\n",
		   kr, row, g->bk - 1, col, row, gemm_log2u(g->bk), col, col, gemm_log2u(rb / 2),
		   col, col, o0, col, ch, col, lf, lim, col, lf, lf, col);
		ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n",
		   w, kr, ld, x, col, w, w, x);
		to_bytes(kb, w, g->bits);
		ke(kb, "\tadd.u64 $r, $r, $r;\n", gp, c->base[op], w);
		if (nj > 1) {
			c->rstride[op] = kb_reg(kb, K_B64);
			ke(kb, "\tmul.wide.u32 $r, $r, $u;\n", c->rstride[op], ld, tr);
			to_bytes(kb, c->rstride[op], g->bits);
		}
	}
}

/* An MN-major operand's copies (mn_groups): k-row group j is inside K
 * while j tr < kl, the K rows from copy 0's on; panel p inside N (M)
 * while p pstep rb/2 < left, the columns from copy 0's on.  The pointer
 * moves rstride a group; a panel's pstep rb bytes are immediates.  With
 * one panel, its test goes into the K block's (one setp for all copies:
 * per-copy tests of 16 groups, both operands, made ptxas spill). */
static void emit_mn_load(struct k80 *c, int op, kreg inc, kreg kpos, kreg kv, const kreg *dst)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned rb = g->row_bytes, tr = g->threads / (rb / 16), ns = c->nsoff, nj, pstep;
	unsigned off = op ? g->a_stage : 0;
	kreg kp = kb_reg(kb, K_B32), kl = kb_reg(kb, K_B32);
	kreg q = kb_reg(kb, K_PRED), p = kb_reg(kb, K_PRED);
	kreg cur = kb_reg(kb, K_B64), at = kb_reg(kb, K_B64);

	mn_groups(tr, g->bk, &nj, &pstep);
	unsigned np = c->copies[op] / nj;
	ke(kb, "\tadd.u32 $r, $r, $r;\n\tadd.u64 $r, $r, $r;\n", kp, kpos, c->koff[op], cur,
	   c->gptr[op], inc);
	if (nj > 1)          /* kl: the K rows left from copy 0's on */
		ke(kb, "\tmax.u32 $r, $r, $r;\n\tsub.u32 $r, $r, $r;\n", kl, c->k, kp, kl, kl, kp);
	kreg kq = kv;        /* what each group's K test is and-ed with */
	if (np == 1) {
		kq = kb_reg(kb, K_PRED);
		ke(kb, "\tsetp.gt.and.u32 $r, $r, 0, $r;\n", kq, c->left[op], kv);
	}
	for (unsigned j = 0; j < nj; j++) {
		if (j)
			ke(kb, "\tadd.u64 $r, $r, $r;\n", cur, cur, c->rstride[op]);
		if (nj > 1)
			ke(kb, "\tsetp.gt.and.u32 $r, $r, $u, $r;\n", q, kl, j * tr, kq);
		else
			ke(kb, "\tsetp.lt.and.u32 $r, $r, $r, $r;\n", q, kp, c->k, kq);
		for (unsigned pi = 0; pi < np; pi++) {
			unsigned i = pi * nj + j;
			kreg a = cur, ok = q;
			if (pi)
				ke(kb, "\tadd.u64 $r, $r, $u;\n", a = at, cur, pi * pstep * rb);
			if (np > 1)
				ke(kb, "\tsetp.gt.and.u32 $r, $r, $u, $r;\n", ok = p, c->left[op],
				   pi * pstep * rb / 2, q);
			ke(kb, "\tcp.async.cg.shared.global [$r+$u], [$r], 16, !$r;\n",
			   dst[i % ns], off + (i - i % ns) * tr * rb, a, ok);
		}
	}
}

/* The copies of K block `kload` into the stage at `wbase`: zero fill
 * (cp.async's ignore-src predicate, PTX 7.5: the source is not read)
 * where the chunk is outside the matrix or the K block outside this
 * slice.  (A src-size chosen by selp, and A's or B's base as the source,
 * took two instructions a copy, and ptxas gave every copy's size one
 * register: each selp waited for the copy before it to read it, 4% of
 * the H200's stall samples at bf16 8192^3.) */
static void emit_load(struct k80 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	kreg kpos = kb_reg(kb, K_B32), kv = kb_reg(kb, K_PRED), p = kb_reg(kb, K_PRED);
	kreg inc = kb_reg(kb, K_B64), kp = kb_reg(kb, K_B32);
	kreg dst[2] = { kb_reg(kb, K_B32) };
	unsigned tr = g->threads / (g->row_bytes / 16), ns = c->nsoff;

	ke(kb, "\tshl.b32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n\tadd.u32 $r, $r, $r;\n",
	   kpos, c->kload, gemm_log2u(g->bk), kv, c->kload, c->kb_end, dst[0], c->wbase, c->soff[0]);
	for (unsigned j = 1; j < ns; j++) {
		dst[j] = kb_reg(kb, K_B32);
		ke(kb, "\tadd.u32 $r, $r, $r;\n", dst[j], c->wbase, c->soff[j]);
	}
	for (int op = 0; op < 2; op++) {
		unsigned off = op ? g->a_stage : 0;
		ke(kb, "\tmul.wide.u32 $r, $r, $r;\n", inc, c->kload, c->kstride[op]);
		if (op ? g->b_mn : g->a_mn) {
			emit_mn_load(c, op, inc, kpos, kv, dst);
			continue;
		}
		/* one K position for every copy; rows by `left` */
		kreg q = kb_reg(kb, K_PRED), cur = kb_reg(kb, K_B64);
		ke(kb, "\tadd.u32 $r, $r, $r;\n\tsetp.lt.and.u32 $r, $r, $r, $r;\n"
		       "\tadd.u64 $r, $r, $r;\n",
		   kp, kpos, c->koff[op], q, kp, c->k, kv, cur, c->gptr[op], inc);
		for (unsigned i = 0; i < c->copies[op]; i++) {
			if (i)
				ke(kb, "\tadd.u64 $r, $r, $r;\n", cur, cur, c->rstride[op]);
			ke(kb, "\tsetp.gt.and.u32 $r, $r, $u, $r;\n"
			       "\tcp.async.cg.shared.global [$r+$u], [$r], 16, !$r;\n",
			   p, c->left[op], i * tr, q,
			   dst[i % ns], off + (i - i % ns) * tr * g->row_bytes, cur, p);
		}
	}
}

/* Lane offsets of the fragment loads: for each operand the stage byte
 * offset of this lane's row and chunk for logical chunk 2h, h < steps
 * (chunk 2h is mma step h of a K-major row, or columns 16h.. of an
 * MN-major panel), the warp's own rows included. */
static void emit_frag_setup(struct k80 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned warps_m = g->bm / WARP_TILE, rb = g->row_bytes;
	kreg rl = kb_reg(kb, K_B32), cl = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	kreg wrow = kb_reg(kb, K_B32);

	c->nlad = rb == GEMM80_ROW_NARROW ? 2 : 1;
	c->wm = kb_reg(kb, K_B32);
	c->wn = kb_reg(kb, K_B32);
	ke(kb, "\t// ldmatrix: warp (wm, wn) of the $u x $u warps, this lane's row and chunk\n",
	   warps_m, g->bn / WARP_TILE);
	ke(kb, "\trem.u32 $r, $r, $u;\n\tdiv.u32 $r, $r, $u;\n", c->wm, c->warp, warps_m,
	   c->wn, c->warp, warps_m);
	for (int op = 0; op < 2; op++) {
		int mn = op ? g->b_mn : g->a_mn;
		int pattern = mn == op ? 1 : 2;   /* gemm80_ldmatrix_lane */
		kreg w = op ? c->wn : c->wm;
		ke(kb, "\tshr.u32 $r, $r, 3;\n", t, c->lane);
		if (pattern == 1)
			ke(kb, "\tand.b32 $r, $r, 1;\n\tshr.u32 $r, $r, 4;\n", rl, t, cl, c->lane);
		else
			ke(kb, "\tshr.u32 $r, $r, 1;\n\tand.b32 $r, $r, 1;\n", rl, t, cl, t);
		ke(kb, "\tand.b32 $r, $r, 7;\n\tmad.lo.u32 $r, $r, 8, $r;\n", t, c->lane, rl, rl, t);
		/* cl ^= the key of rl: the swizzle */
		emit_swizzle_key(kb, rb, t, rl);
		ke(kb, "\txor.b32 $r, $r, $r;\n", cl, cl, t);
		/* the warp's first stage row: 64 rows (K-major) or 64
		 * columns' panels of bk rows (MN-major) per warp */
		ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n\tshl.b32 $r, $r, $u;\n",
		   wrow, w, gemm80_warp_rows(mn, rb, g->bk), wrow, wrow, rl, wrow, wrow,
		   gemm_log2u(rb));
		for (unsigned h = 0; h < c->nlad; h++) {
			c->loff[op][h] = kb_reg(kb, K_B32);
			c->lad[op][h] = kb_reg(kb, K_B32);
			ke(kb, "\txor.b32 $r, $r, $u;\n\tshl.b32 $r, $r, 4;\n\tadd.u32 $r, $r, $r;\n",
			   t, cl, 2 * h, t, t, c->loff[op][h], wrow, t);
		}
	}
}

/* lad = loff + the read stage's base */
static void emit_read_stage(struct k80 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	kreg base = kb_reg(kb, K_B32);
	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n", base, c->rstage, g->a_stage + g->b_stage, c->smem);
	for (int op = 0; op < 2; op++)
		for (unsigned h = 0; h < c->nlad; h++)
			ke(kb, "\tadd.u32 $r, $r, $r;\n", c->lad[op][h], c->loff[op][h], base);
}

/* Fragments of mma step `step` into buffer `buf`. */
static void emit_frags(struct k80 *c, unsigned buf, unsigned step)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	for (int op = 0; op < 2; op++) {
		int mn = op ? g->b_mn : g->a_mn;
		unsigned stage_off = op ? g->a_stage : 0;
		kreg f = op ? c->fb[buf] : c->fa[buf];
		kreg x[MAX_STEPS];         /* chunk 2h's lane address */
		unsigned have = (1u << c->nlad) - 1;
		for (unsigned h = 0; h < c->nlad; h++)
			x[h] = c->lad[op][h];
		for (unsigned i = 0; i < 4; i++) {   /* 4 m16 tiles, or 4 pairs of n8 */
			unsigned chunk, row;
			gemm80_frag_origin(mn, g->row_bytes, g->bk, i, step, &row, &chunk);
			unsigned h = chunk / 2;
			if (!(have >> h & 1)) {
				x[h] = kb_reg(kb, K_B32);
				ke(kb, "\txor.b32 $r, $r, $u;\n", x[h], c->lad[op][0], 32 * h);
				have |= 1u << h;
			}
			kreg v = { .cls = f.cls, .n = 4, .id = f.id + 4 * i };
			ke(kb, "\tldmatrix.sync.aligned.m8n8.x4$s.shared.b16 $v, [$r+$u];\n",
			   mn ? ".trans" : "", v, x[h], stage_off + row * g->row_bytes);
		}
	}
}

static void emit_mmas(struct k80 *c, unsigned buf)
{
	struct operand *od = tile_find_op(&c->in, "d"), *oa = tile_find_op(&c->in, "a");
	struct operand *ob = tile_find_op(&c->in, "b"), *oc = tile_find_op(&c->in, "c");
	unsigned nacc = od->count;
	for (unsigned i = 0; i < 4; i++)
		for (unsigned jj = 0; jj < 8; jj++) {
			/* serpentine over N: the B fragment of the turn stays */
			unsigned j = i % 2 ? 7 - jj : jj;
			kreg d = { .cls = c->acc.cls, .n = (uint16_t)nacc,
				   .id = c->acc.id + (i * 8 + j) * nacc };
			od->reg = oc->reg = d;
			oa->reg = (kreg){ .cls = c->fa[buf].cls, .n = 4, .id = c->fa[buf].id + 4 * i };
			ob->reg = (kreg){ .cls = c->fb[buf].cls, .n = 2, .id = c->fb[buf].id + 2 * j };
			emit_instruction(kb_buf(c->kb), c->g->form, &c->in);
		}
}

/* One K block of rb/32 steps.  The fragments of step s live in buffer
 * s % 2 (the steps are even, so step 0 is always buffer 0): each step
 * loads the next one's while its mma run.  The copies go out in step 0;
 * the last step waits for K block kb+1 and moves on to its stage. */
static void emit_body(struct k80 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	kreg p = kb_reg(kb, K_PRED);
	unsigned steps = g->row_bytes / STEP_BYTES;
	assert(steps % 2 == 0 && steps <= MAX_STEPS);
	ke(kb, "\t// step 0: fragments of step 1, the copies of K block kb+$u, mma\n",
	   g->stages - 1);
	emit_frags(c, 1, 1);
	emit_load(c);
	ke(kb, "\tcp.async.commit_group;\n");
	emit_mmas(c, 0);
	for (unsigned s = 1; s + 1 < steps; s++) {
		ke(kb, "\t// step $u: fragments of step $u, mma\n", s, s + 1);
		emit_frags(c, (s + 1) % 2, s + 1);
		emit_mmas(c, s % 2);
	}
	ke(kb, "\t// step $u: K block kb+1 is in; every warp is done with stage kb-1\n"
	       "\tcp.async.wait_group $u;\n\tbar.sync 0;\n", steps - 1, g->stages - 2);
	ke(kb, "\tadd.u32 $r, $r, 1;\n\tsetp.eq.u32 $r, $r, $u;\n\t@$r mov.u32 $r, 0;\n"
	       "\tadd.u32 $r, $r, 1;\n\tsetp.eq.u32 $r, $r, $u;\n\t@$r mov.u32 $r, 0;\n",
	   c->rstage, c->rstage, p, c->rstage, g->stages, p, c->rstage,
	   c->wstage, c->wstage, p, c->wstage, g->stages, p, c->wstage);
	emit_read_stage(c);
	emit_frags(c, 0, 0);
	emit_mmas(c, 1);
}

/* ---- the epilogue ---- */
struct ep {
	struct gemm_epi x;        /* the per-element arithmetic (gemm_epi.h) */
	kreg gd, gc, ldd, ldc;
	kreg row0, col0;
	unsigned esize;
};

static void emit_epilogue_setup(struct k80 *c, struct ep *e)
{
	struct kb *kb = c->kb;
	kreg t = kb_reg(kb, K_B32);
	e->gd = frag_param_ptr(kb, "pd");
	e->gc = frag_param_ptr(kb, "pc");
	e->ldd = kb_reg(kb, K_B32);
	e->ldc = kb_reg(kb, K_B32);
	ke(kb, "\tld.param.u32 $r, [pldd];\n\tld.param.u32 $r, [pldc];\n", e->ldd, e->ldc);
	gemm_epi_params(kb, &e->x);
	gemm_epi_params_out(kb, &e->x);
	/* the accumulator layout of m16n8: lane l holds rows l/4 (c0, c1)
	 * and l/4 + 8 (c2, c3), columns 2 (l % 4) and +1 */
	e->row0 = kb_reg(kb, K_B32);
	e->col0 = kb_reg(kb, K_B32);
	ke(kb, "\tshl.b32 $r, $r, 6;\n\tadd.u32 $r, $r, $r;\n\tshr.u32 $r, $r, 2;\n\tadd.u32 $r, $r, $r;\n",
	   e->row0, c->wm, e->row0, e->row0, c->m0, t, c->lane, e->row0, e->row0, t);
	ke(kb, "\tshl.b32 $r, $r, 6;\n\tadd.u32 $r, $r, $r;\n\tand.b32 $r, $r, 3;\n"
	       "\tshl.b32 $r, $r, 1;\n\tadd.u32 $r, $r, $r;\n",
	   e->col0, c->wn, e->col0, e->col0, c->n0, t, c->lane, t, t, e->col0, e->col0, t);
}


/* D through shared memory (STAGED_PITCH, STAGED_BAND: at the top).
 * Straight from the m16n8 accumulators a warp's store covers 8 rows of
 * 16 bytes (4 lanes' pairs of 16-bit D a row), half of each row's 32-byte
 * sector, and C was read the same way, each load after the last store
 * (D may alias C, so no load could move above one).  Staged, each
 * 16-row band of the warp's 64 x 64 goes to shared memory as 32-bit sums
 * and comes back a row at a time, lane l with columns 2l and 2l + 1: one
 * store writes the row's 64 elements whole (128 bytes of 16-bit D, 256
 * of f32), and the band's 16 rows of C are loaded before any of its
 * stores.  On the H200 (--path mma.sync, 8192 x 8192 x 512) bf16 D went
 * from 311 to 334 TFLOP/s, with beta = 1 from 163 to 266 (f32 D 113 to
 * 229; s8 -> s32 at K 1024 225 to 460 TOP/s); 8192^3 did not move.
 * The bands live in the stages, free once every warp has passed the
 * bar.sync after the K loop; each warp has a region of its own, reused
 * band after band behind bar.warp.sync.  The pitch, 64 words + 8, puts
 * rows r and r + 1 eight banks apart: a half-warp's pairs (rows 4h..4h+3,
 * 4 lanes of 8 bytes each) fill the 32 banks once, and a row read back
 * is 256 consecutive bytes. */

/* p0: row r of the band and column 0 of the lane's pair inside D, p1:
 * both columns, ps: only column 0 */
static void staged_preds(struct k80 *c, kreg t, kreg row, unsigned r, kreg pc1, kreg pc2,
			 kreg prow, kreg p0, kreg p1, kreg ps)
{
	ke(c->kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n"
		  "\tand.pred $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
		  "\tnot.pred $r, $r;\n\tand.pred $r, $r, $r;\n",
	   t, row, r, prow, t, c->m, p0, prow, pc1, p1, prow, pc2, ps, pc2, ps, ps, p0);
}

static void emit_store_staged(struct k80 *c, const struct ep *e)
{
	struct kb *kb = c->kb;
	unsigned es = e->esize, nacc = tile_find_op(&c->in, "d")->count;
	kreg t = kb_reg(kb, K_B32), sw = kb_reg(kb, K_B32), sr = kb_reg(kb, K_B32);
	kreg col = kb_reg(kb, K_B32), row = kb_reg(kb, K_B32), rowb = kb_reg(kb, K_B32);
	kreg pc1 = kb_reg(kb, K_PRED), pc2 = kb_reg(kb, K_PRED), prow = kb_reg(kb, K_PRED);
	kreg p0 = kb_reg(kb, K_PRED), p1 = kb_reg(kb, K_PRED), ps = kb_reg(kb, K_PRED);
	kreg lddb = kb_reg(kb, K_B64), ldcb = kb_reg(kb, K_B64);
	kreg v = kb_regs(kb, e->x.out == MMAGEN_S32 ? K_B32 : K_F32, 2);
	kreg x = kb_regs(kb, c->g->acc == MMAGEN_S32 ? K_B32 : K_F32, 2);
	kreg pair = kb_regs(kb, K_F32, 2);
	kreg no_c = kb_regs(kb, K_LABEL, 4), done = kb_regs(kb, K_LABEL, 4);

	ke(kb, "\t// D through shared memory: every warp is done with the stages\n"
	       "\tbar.sync 0;\n");
	/* sw: the lane's pair in band row lane/4, columns 2 (lane % 4);
	 * sr: row 0's columns 2 lane */
	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n\tshr.u32 $r, $r, 2;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
	       "\tand.b32 $r, $r, 3;\n\tmad.lo.u32 $r, $r, 8, $r;\n\tmad.lo.u32 $r, $r, 8, $r;\n",
	   sr, c->warp, STAGED_BAND, c->smem, t, c->lane, sw, t, STAGED_PITCH, sr,
	   t, c->lane, sw, t, sw, sr, c->lane, sr);
	/* the warp's first row and the lane's columns in D */
	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n\tmad.lo.u32 $r, $r, 2, $r;\n"
	       "\tsetp.lt.u32 $r, $r, $r;\n\tadd.u32 $r, $r, 1;\n\tsetp.lt.u32 $r, $r, $r;\n",
	   rowb, c->wm, WARP_TILE, c->m0, col, c->wn, WARP_TILE, c->n0, col, c->lane, col,
	   pc1, col, c->n, t, col, pc2, t, c->n);
	ke(kb, "\tmul.wide.u32 $r, $r, $u;\n\tmul.wide.u32 $r, $r, $u;\n",
	   lddb, e->ldd, es, ldcb, e->ldc, es);
	for (unsigned i = 0; i < 4; i++) {
		ke(kb, "\t// band $u: rows $u..$u of the warp's tile\n", i, 16 * i, 16 * i + 15);
		if (i)
			ke(kb, "\tbar.warp.sync -1;\n");
		for (unsigned h = 0; h < 2; h++)
			for (unsigned j = 0; j < 8; j++) {
				kreg first = { .cls = c->acc.cls, .n = (uint16_t)nacc,
					       .id = c->acc.id + (i * 8 + j) * nacc };
				kreg a0, a1;
				if (c->g->acc == MMAGEN_F16) {   /* f16x2 {c0, c1}, {c2, c3} */
					kreg lo = kb_reg(kb, K_B16), hi = kb_reg(kb, K_B16);
					ke(kb, "\tmov.b32 {$r, $r}, $r;\n\tcvt.f32.f16 $r, $r;\n\tcvt.f32.f16 $r, $r;\n",
					   lo, hi, kr_at(first, h), kr_at(pair, 0), lo, kr_at(pair, 1), hi);
					a0 = kr_at(pair, 0);
					a1 = kr_at(pair, 1);
				} else {
					a0 = kr_at(first, 2 * h);
					a1 = kr_at(first, 2 * h + 1);
				}
				ke(kb, "\tst.shared.v2.b32 [$r+$u], {$r, $r};\n", sw,
				   8 * h * STAGED_PITCH + 32 * j, a0, a1);
			}
		ke(kb, "\tbar.warp.sync -1;\n\tadd.u32 $r, $r, $u;\n", row, rowb, 16 * i);
		kreg ad = gemm_elem_addr(kb, e->gd, row, col, e->ldd, es);
		kreg ac = gemm_elem_addr(kb, e->gc, row, col, e->ldc, es);
		ke(kb, "\t@!$r bra.uni $r;\n", e->x.has_c, kr_at(no_c, i));
		for (int with_c = 1; with_c >= 0; with_c--) {
			kreg cv[32];
			if (with_c)      /* C's 16 rows first: a load after a store to D
					  * (which may alias C) could not move above it */
				for (unsigned r = 0; r < 16; r++) {
					staged_preds(c, t, row, r, pc1, pc2, prow, p0, p1, ps);
					cv[2 * r] = gemm_c_value(kb, &e->x, p0, ac, 0);
					cv[2 * r + 1] = gemm_c_value(kb, &e->x, p1, ac, es);
					if (r < 15)
						ke(kb, "\tadd.u64 $r, $r, $r;\n", ac, ac, ldcb);
				}
			else
				ke(kb, "$r:\n", kr_at(no_c, i));
			for (unsigned r = 0; r < 16; r++) {
				staged_preds(c, t, row, r, pc1, pc2, prow, p0, p1, ps);
				ke(kb, "\tld.shared.v2.b32 {$r, $r}, [$r+$u];\n", kr_at(x, 0), kr_at(x, 1),
				   sr, r * STAGED_PITCH);
				/* the staged sums: f32 (f16 accumulators were
				 * widened on the way in) or s32 */
				struct gemm_epi_c cin = { .x = { cv[2 * r], cv[2 * r + 1] } };
				gemm_epi_pair(kb, &e->x, v, kr_at(x, 0), kr_at(x, 1),
					      with_c ? &cin : NULL);
				gemm_epi_store(kb, &e->x, p1, ps, ad, 0, v);
				if (r < 15)
					ke(kb, "\tadd.u64 $r, $r, $r;\n", ad, ad, lddb);
			}
			if (with_c)
				ke(kb, "\tbra.uni $r;\n", kr_at(done, i));
		}
		ke(kb, "$r:\n", kr_at(done, i));
	}
}

/* The accumulator register of element (i, j, h, x): m16n8 tile (i, j),
 * row half h (c0, c1 or c2, c3), column x; and its byte offset in a
 * row-major bm x bn slot from the thread's first element. */
static kreg acc_elem(const struct k80 *c, unsigned nacc, unsigned i, unsigned j, unsigned h,
		     unsigned x, unsigned *off)
{
	*off = ((16 * i + 8 * h) * c->g->bn + 8 * j + x) * 4;
	return (kreg){ .cls = c->acc.cls, .n = 1, .id = c->acc.id + (i * 8 + j) * nacc + 2 * h + x };
}

/* Split-K through the workspace: every slice stores its sums into a slot
 * of its own (bm x bn of the accumulator's type, row-major; slot t * S +
 * z for tile t, slice z) with plain 8-byte stores; the last slice to
 * arrive (a counter per tile, atom.inc wrapping to 0 at S-1, so every
 * launch leaves it zero) adds the S slots in slice order into its
 * accumulators, ((p0 + p1) + p2) + ..., whatever order the slices
 * arrived in (the same D every launch), and goes on to the plain
 * epilogue; the others jump to `fin`.  Ordering as on the wgmma path:
 * the stores, bar.sync, then thread 0's atom.acq_rel.gpu (release for
 * the CTA's stores, acquire for the earlier slices'), bar.red.or to tell
 * the CTA.  (It added every slice into one zeroed slot with scalar
 * red.global.add before: the H100, bf16 2048^3 in 128x128 tiles, 382
 * TFLOP/s whole and 159 in 2 slices.) */
static void emit_split_ws(struct k80 *c, const struct ep *e, kreg fin)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned nacc = tile_find_op(&c->in, "d")->count, o, slot = g->bm * g->bn * 4;
	const char *ty = g->acc == MMAGEN_F32 ? "f32" : "s32";
	kreg ws = frag_param_ptr(kb, "pworkspace"), ctr = frag_param_ptr(kb, "pcounters");
	kreg t = kb_reg(kb, K_B32), tn = kb_reg(kb, K_B32), col = kb_reg(kb, K_B32);
	kreg base = kb_reg(kb, K_B64), a64 = kb_reg(kb, K_B64), old = kb_reg(kb, K_B32);
	kreg s = kb_reg(kb, K_B32), s1 = kb_reg(kb, K_B32), idx = kb_reg(kb, K_B32);
	kreg last = kb_reg(kb, K_PRED), t0 = kb_reg(kb, K_PRED), more = kb_reg(kb, K_PRED);
	kreg r0 = kb_reg(kb, K_B32), c0 = kb_reg(kb, K_B32), cnt = kb_reg(kb, K_B32);
	kreg loop = kb_label(kb), summed = kb_label(kb);
	enum kclass cls = g->acc == MMAGEN_F32 ? K_F32 : K_B32;
	/* S = gridDim.z, which must be the plan's: the workspace holds that
	 * many slots a tile, and another grid would write past it */
	ke(kb, "\t// split-K: a grid of exactly $u K slices (the workspace's slots)\n"
	       "\tmov.u32 $r, %nctaid.z;\n\tsetp.ne.u32 $r, $r, $u;\n\t@$r trap;\n",
	   g->split, s, more, s, g->split, more);
	/* tile t = (m0 / bm) * ceil(N / bn) + n0 / bn */
	ke(kb, "\t// split-K: this slice's sums into its own workspace slot\n"
	       "\tadd.u32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n"
	       "\tshr.u32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, $r, $r;\n",
	   tn, c->n, g->bn - 1, tn, tn, gemm_log2u(g->bn),
	   t, c->m0, gemm_log2u(g->bm), col, c->n0, gemm_log2u(g->bn), t, t, tn, col);
	/* a64: the thread's first element (tile row row0 - m0, column col0
	 * - n0) in bytes; base: slot t * S + z */
	ke(kb, "\tsub.u32 $r, $r, $r;\n\tsub.u32 $r, $r, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
	       "\tmul.wide.u32 $r, $r, 4;\n\tadd.u64 $r, $r, $r;\n"
	       "\tmad.lo.u32 $r, $r, $r, $r;\n\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   r0, e->row0, c->m0, c0, e->col0, c->n0, r0, r0, g->bn, c0,
	   a64, r0, a64, a64, ws, idx, t, s, c->z, base, idx, slot, base, base, a64);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 8; j++)
			for (unsigned h = 0; h < 2; h++) {
				kreg v1 = acc_elem(c, nacc, i, j, h, 1, &o);
				kreg v0 = acc_elem(c, nacc, i, j, h, 0, &o);
				ke(kb, "\tst.global.cg.v2.$s [$r+$u], {$r, $r};\n", ty, base, o, v0, v1);
			}
	/* thread 0 arrives on the tile's counter; the S-th arrival is last */
	ke(kb, "\tbar.sync 0;\n\tsetp.eq.u32 $r, $r, 0;\n\tmov.u32 $r, 0;\n"
	       "\tmul.wide.u32 $r, $r, 4;\n\tadd.u64 $r, $r, $r;\n\tsub.u32 $r, $r, 1;\n",
	   t0, c->tid, old, base, t, base, base, ctr, s1, s);
	ke(kb, "\t@$r atom.acq_rel.gpu.global.inc.u32 $r, [$r], $r;\n"
	       "\tsetp.eq.u32 $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
	       "\tbar.red.or.pred $r, 0, $r;\n\t@!$r bra.uni $r;\n",
	   t0, old, base, s1, last, old, s1, last, last, t0, last, last, last, fin);
	/* the last slice: slot 0 into the accumulators, then slots 1 .. S-1
	 * added in turn, 8 v2 loads (16 values) in flight at a time */
	ke(kb, "\t// the last slice: the S slots added in slice order\n"
	       "\tmul.lo.u32 $r, $r, $r;\n\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   idx, t, s, base, idx, slot, base, base, a64);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 8; j++)
			for (unsigned h = 0; h < 2; h++) {
				kreg v1 = acc_elem(c, nacc, i, j, h, 1, &o);
				kreg v0 = acc_elem(c, nacc, i, j, h, 0, &o);
				ke(kb, "\tld.global.cg.v2.$s {$r, $r}, [$r+$u];\n", ty, v0, v1, base, o);
			}
	kreg tmp = kb_regs(kb, cls, 16);
	ke(kb, "\tmov.u32 $r, 1;\n$r:\n\tsetp.lt.u32 $r, $r, $r;\n\t@!$r bra.uni $r;\n"
	       "\tadd.u64 $r, $r, $u;\n",
	   cnt, loop, more, cnt, s, more, summed, base, base, slot);
	for (unsigned q = 0; q < 64; q += 8) {
		for (unsigned u = 0; u < 8; u++) {
			unsigned w = q + u, i = w / 16, j = w / 2 % 8, h = w % 2;
			acc_elem(c, nacc, i, j, h, 0, &o);
			ke(kb, "\tld.global.cg.v2.$s {$r, $r}, [$r+$u];\n", ty, kr_at(tmp, 2 * u),
			   kr_at(tmp, 2 * u + 1), base, o);
		}
		for (unsigned u = 0; u < 8; u++) {
			unsigned w = q + u, i = w / 16, j = w / 2 % 8, h = w % 2;
			for (unsigned x = 0; x < 2; x++) {
				kreg v = acc_elem(c, nacc, i, j, h, x, &o);
				ke(kb, "\tadd.$s $r, $r, $r;\n", ty, v, v, kr_at(tmp, 2 * u + x));
			}
		}
	}
	ke(kb, "\tadd.u32 $r, $r, 1;\n\tbra.uni $r;\n$r:\n", cnt, cnt, loop, summed);
}

static void emit_epilogue(struct k80 *c, struct ep *e)
{
	struct kb *kb = c->kb;
	kreg done = kb_label(kb);
	if (c->g->split_ws)
		emit_split_ws(c, e, done);
	emit_store_staged(c, e);
	ke(kb, "$r:\n", done);
}

static void set_sizes(struct kb *kb, const struct gemm_plan *g)
{
	kb_set(kb, "bm", "$u", g->bm);
	kb_set(kb, "bn", "$u", g->bn);
	kb_set(kb, "bk", "$u", g->bk);
	kb_set(kb, "bm_log2", "$u", gemm_log2u(g->bm));
	kb_set(kb, "bn_log2", "$u", gemm_log2u(g->bn));
	kb_set(kb, "bk_log2", "$u", gemm_log2u(g->bk));
	kb_set(kb, "bm_minus_1", "$u", g->bm - 1);
	kb_set(kb, "bn_minus_1", "$u", g->bn - 1);
	kb_set(kb, "bk_minus_1", "$u", g->bk - 1);
	kb_set(kb, "stages", "$u", g->stages);
	kb_set(kb, "stages_minus_1", "$u", g->stages - 1);
	kb_set(kb, "stages_minus_2", "$u", g->stages - 2);
	kb_set(kb, "stage_bytes", "$u", g->a_stage + g->b_stage);
	kb_set(kb, "group", "$u", g->group);
	kb_set(kb, "threads", "$u", g->threads);
	kb_set(kb, "warps", "$u", g->threads / 32);
	kb_set(kb, "a_major", "$s", g->a_mn ? "M-major" : "K-major");
	kb_set(kb, "b_major", "$s", g->b_mn ? "N-major" : "K-major");
}

mmagen_status gemm_emit_sm80(const struct gemm_plan *g, struct buf *out)
{
	struct kb kb;
	struct k80 c = { .g = g, .kb = &kb };
	/* the staged sums are f32 or s32; bf16 C by a shift (this path also
	 * serves sm_80-89, which have no cvt.f32.bf16) */
	struct ep e = { .esize = mmagen_type_bits(g->req.out) / 8,
			.x = { .out = g->req.out, .acc = g->acc == MMAGEN_S32 ? MMAGEN_S32 : MMAGEN_F32,
			       .cvt_bf16 = 0 } };
	char op[256];

	kb_init(&kb, "gemm_sm80");
	instr_of(g->form, &c.in);
	kb_set(&kb, "kernel", "$s", GEMM_KERNEL_NAME);
	kb_set(&kb, "arch", "$s", mmagen_target_name(g->req.target));
	kb_set(&kb, "a_type", "$t", g->req.a);
	kb_set(&kb, "b_type", "$t", g->req.b);
	kb_set(&kb, "d_type", "$t", g->req.out);
	kb_set(&kb, "mma_shape", "$s", mmagen_form_opcode(g->form, op, sizeof op));
	set_sizes(&kb, g);
	gemm_entry_params(&kb, g);
	kb_at(&kb, "header");
	/* cp.async and ldmatrix need PTX 7.0, cp.async's ignore-src 7.5; the
	 * instruction may need more */
	unsigned v = mmagen_form_min_ptx(g->form, g->req.target);
	emit_header(kb_buf(&kb), g->req.target, v < 75 ? 75 : v);
	c.tid = kb_slot_reg(&kb, "tid", K_B32);
	c.warp = kb_slot_reg(&kb, "warp", K_B32);
	c.lane = kb_slot_reg(&kb, "lane", K_B32);
	c.m = kb_slot_reg(&kb, "m", K_B32);
	c.n = kb_slot_reg(&kb, "n", K_B32);
	c.k = kb_slot_reg(&kb, "k", K_B32);
	c.m0 = kb_slot_reg(&kb, "m0", K_B32);
	c.n0 = kb_slot_reg(&kb, "n0", K_B32);
	c.z = kb_slot_reg(&kb, "z", K_B32);
	c.kb_begin = kb_slot_reg(&kb, "kb_begin", K_B32);
	c.kb_end = kb_slot_reg(&kb, "kb_end", K_B32);
	c.smem = kb_slot_reg(&kb, "smem", K_B32);
	c.kload = kb_slot_reg(&kb, "kload", K_B32);
	c.wbase = kb_slot_reg(&kb, "wbase", K_B32);
	c.rstage = kb_slot_reg(&kb, "rstage", K_B32);
	c.wstage = kb_slot_reg(&kb, "wstage", K_B32);
	unsigned nacc = tile_find_op(&c.in, "d")->count;
	enum kclass acls = g->acc == MMAGEN_F32 ? K_F32 : K_B32;
	c.acc = kb_regs(&kb, acls, 4 * 8 * nacc);
	for (int b = 0; b < 2; b++) {
		c.fa[b] = kb_regs(&kb, K_B32, 16);
		c.fb[b] = kb_regs(&kb, K_B32, 16);
	}
	kb_at(&kb, "setup");
	emit_copy_setup(&c);
	emit_frag_setup(&c);
	emit_epilogue_setup(&c, &e);
	ke(&kb, "\t// the accumulators start at zero\n");
	for (unsigned i = 0; i < c.acc.n; i++)
		ke(&kb, acls == K_F32 ? "\tmov.f32 $r, 0f00000000;\n" : "\tmov.b32 $r, 0;\n",
		   kr_at(c.acc, i));
	kb_at(&kb, "load_prologue");
	emit_load(&c);
	kb_at(&kb, "first_frags");
	emit_read_stage(&c);
	emit_frags(&c, 0, 0);
	kb_at(&kb, "body");
	emit_body(&c);
	kb_at(&kb, "epilogue");
	emit_epilogue(&c, &e);
	/* the tile order (gemm_plan.c), its registers handed out last */
	kreg tile = kb_slot_reg(&kb, "tile", K_B32), tiles_m = kb_slot_reg(&kb, "tiles_m", K_B32);
	kreg tiles_n = kb_slot_reg(&kb, "tiles_n", K_B32), tm = kb_slot_reg(&kb, "tm", K_B32);
	kreg tn = kb_slot_reg(&kb, "tn", K_B32);
	gemm_emit_tile_order(&kb, "tile_order", g->group, tile, tiles_m, tiles_n, tm, tn);
	return kb_render(&kb, out);
}
