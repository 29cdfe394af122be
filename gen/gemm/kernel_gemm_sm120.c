/* kernel_gemm_sm120.c - the warp-level GEMM of sm_120a: kind::f8f6f4 and
 * the block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4) of mma.sync, fed by a
 * cp.async pipeline, swizzled shared memory and ldmatrix
 * (templates/gemm_sm120.ptx.in says how the kernel runs).
 *
 * Everything is handled in bytes.  A stage row is GEMM120_ROW_BYTES (128)
 * bytes of K: 128 elements in byte containers (FP8; FP6 in bits 0..5;
 * e2m1 in bits 2..5) or 256 packed e2m1 (mxf4, mxf4nvf4).  One mma.sync
 * step eats 32 bytes of K (m16n8k32 or m16n8k64), so a stage is four
 * steps, and the fragment bytes of both shapes sit at the places of the
 * 8-bit m16n8k32 ones: one ldmatrix.b16 pattern loads all of them.
 *
 * The scales ride with the elements: after A's and B's rows a stage holds
 * their scale rows, spb = 4 S bytes per A row and per B row (S =
 * scale_vec: the scale blocks one step covers), copied from SA / SB
 * (M and N rows of ldsa / ldsb bytes, `mmagen quantize`'s block order) with
 * one cp.async of spb bytes per row.  Step s reads bytes s S .. s S + S - 1
 * of a row into byte 0.. of the scale register, as the instruction expects
 * with {byte-id, thread-id} = {0, 0}.
 *
 * Every offset that depends on the thread or the lane is a .const table of
 * the PTX (mmagen_tcp_src, mmagen_tcp_dst, mmagen_tld, mmagen_tls, legend
 * at gemm120_tables in gemm_plan.h), so that tests/unit/test_gemm_sm120.c
 * replays the kernel's own placements on the CPU. */
#include "gemm_plan.h"
#include "gemm_abi.h"

#include <assert.h>
#include <string.h>

#define WARP_TILE 64
#define STEP_BYTES 32
#define STEPS (GEMM120_ROW_BYTES / STEP_BYTES)

/* ---- the layout (gemm_plan.h) ---- */

unsigned gemm120_swizzle(unsigned row, unsigned chunk)
{
	/* a row is one 128-byte line of the 32 banks: eight consecutive
	 * rows put a logical chunk on eight distinct 16-byte slots */
	return row * GEMM120_ROW_BYTES + ((chunk ^ (row & 7)) << 4);
}

void gemm120_tables(unsigned threads, unsigned spb, struct gemm120_tab *t)
{
	memset(t, 0, sizeof *t);
	assert(threads >= 64 && threads <= GEMM120_MAX_THREADS);
	/* copy 0 of thread x: row x / 8, chunk x % 8; copy i adds
	 * threads / 8 rows, a multiple of 8, so the swizzle stays */
	for (unsigned x = 0; x < threads; x++) {
		t->cp_src[x] = (x / 8) << 16 | (x % 8) * 16;
		t->cp_dst[x] = gemm120_swizzle(x / 8, x % 8);
	}
	for (unsigned l = 0; l < 32; l++) {
		unsigned g = l >> 3;
		for (unsigned s = 0; s < STEPS; s++) {
			/* A: matrices (rows 0-7, lo), (8-15, lo), (0-7, hi),
			 * (8-15, hi): a0..a3 of an m16 tile */
			unsigned r = (l & 7) + 8 * (g & 1), c = 2 * s + (g >> 1);
			t->ld[l * 8 + s] = gemm120_swizzle(r, c);
			/* B: (n 0-7, lo), (0-7, hi), (8-15, lo), (8-15, hi):
			 * b0, b1 of two n8 tiles */
			r = (l & 7) + 8 * (g >> 1);
			c = 2 * s + (g & 1);
			t->ld[l * 8 + 4 + s] = gemm120_swizzle(r, c);
		}
		/* scales, thread-id 0: A's pair lane % 4 = 0, 1 holds rows
		 * g, g + 8 (the other lanes' bytes are not read: the same
		 * rows, harmless); B's lane % 4 = 0 holds column g */
		t->ls[l * 2] = (l / 4 + 8 * (l & 1)) * spb;
		t->ls[l * 2 + 1] = (l / 4) * spb;
	}
}

/* ---- the plan ---- */

/* e4m3, e5m2, e3m2, e2m3, e2m1: the types kind::f8f6f4 multiplies */
static int is_fp(mmagen_type t)
{
	return (mmagen_type_class(t) & (TYPE_FP8 | TYPE_FP6 | TYPE_FP4)) != 0;
}

/* Whether element type t belongs to quantize format q. */
static int in_format(unsigned q, mmagen_type t)
{
	mmagen_quant_spec s;
	return !mmagen_quant_spec_init(&s, q, t);
}

static mmagen_status select_form(const struct gemm_plan *g, unsigned kind, unsigned sv,
				 mmagen_type st, const mmagen_form **out)
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
	r.c = r.d = MMAGEN_F32;
	r.alayout = MMAGEN_ROW;
	r.blayout = MMAGEN_COL;
	r.satfinite = 0;
	r.kind = kind;
	r.block_scale = kind != MMAGEN_KIND_F8F6F4;
	r.scale_vec = sv;
	r.stype = st;
	return mmagen_select(&r, out);
}

/* The kind, scale vector and scale type of the request. */
static mmagen_status pick_kind(const mmagen_gemm_request *r, unsigned *kind, unsigned *sv,
			       mmagen_type *st, unsigned *block)
{
	unsigned q = r->quant;
	const char *qn = mmagen_qformat_name(q);

	*sv = 0, *st = MMAGEN_TYPE_NONE, *block = 0;
	if (!q) {
		*kind = MMAGEN_KIND_F8F6F4;
		return MMAGEN_OK;
	}
	if (q == MMAGEN_QF_FP8_BLOCK)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm --quant fp8-block (f32 scales per 1 x 128 and 128 x 128 blocks) is the sm_90a wgmma GEMM's; on %s use --quant mxfp8, mxfp6, mxfp4 or nvfp4",
			mmagen_target_name(r->target));
	if (q >= MMAGEN_QF_END)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"gemm --quant is mxfp8, mxfp6, mxfp4 or nvfp4 (got %u)", q);
	if (q == MMAGEN_QF_NVFP4) {
		if (r->a != MMAGEN_E2M1 || r->b != MMAGEN_E2M1)
			return mmagen_set_error(MMAGEN_UNSUPPORTED,
				"nvfp4 (kind::mxf4nvf4, ue4m3 per 16) takes e2m1 A and B (got %s and %s); use --a e2m1 --b e2m1, or an MX format (--quant mxfp8) for other types",
				mmagen_type_name(r->a), mmagen_type_name(r->b));
		*kind = MMAGEN_KIND_MXF4NVF4, *sv = 4, *st = MMAGEN_UE4M3, *block = 16;
		return MMAGEN_OK;
	}
	/* the MX formats share ue8m0 scales per 32: kind::mxf8f6f4 mixes
	 * any two of their element types; the name must fit one of them */
	if (!in_format(q, r->a) && !in_format(q, r->b))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--quant %s: neither A (%s) nor B (%s) is a %s element type; use --quant %s",
			qn, mmagen_type_name(r->a), mmagen_type_name(r->b), qn,
			in_format(MMAGEN_QF_MXFP8, r->a) ? "mxfp8" :
			in_format(MMAGEN_QF_MXFP6, r->a) ? "mxfp6" : "mxfp4");
	*st = MMAGEN_UE8M0, *block = 32;
	if (r->a == MMAGEN_E2M1 && r->b == MMAGEN_E2M1 && q == MMAGEN_QF_MXFP4 &&
	    r->kind != MMAGEN_KIND_MXF8F6F4)  /* packed, two per byte */
		*kind = r->kind == MMAGEN_KIND_MXF4NVF4 ? MMAGEN_KIND_MXF4NVF4 : MMAGEN_KIND_MXF4, *sv = 2;
	else
		*kind = MMAGEN_KIND_MXF8F6F4, *sv = 1;
	return MMAGEN_OK;
}

static const char *kind_name(unsigned k)
{
	return k == MMAGEN_KIND_F8F6F4 ? "f8f6f4" : k == MMAGEN_KIND_MXF8F6F4 ? "mxf8f6f4" :
	       k == MMAGEN_KIND_MXF4 ? "mxf4" : k == MMAGEN_KIND_MXF4NVF4 ? "mxf4nvf4" : "other";
}

static int tile_ok(unsigned v)
{
	return v == 64 || v == 128 || v == 256;
}

mmagen_status gemm_plan_sm120(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	static const mmagen_type outs[] = { MMAGEN_F32, MMAGEN_F16, MMAGEN_BF16 };
	const char *target = mmagen_target_name(req->target);
	unsigned kind = 0, sv, block;
	mmagen_type st;
	mmagen_status s;
	const unsigned smem_limit = mmagen_target_smem(req->target); /* the opt-in maximum */

	memset(g, 0, sizeof *g);
	g->req = *req;
	if (!is_fp(req->a) || !is_fp(req->b))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm on %s takes A and B as e4m3, e5m2, e3m2, e2m3 or e2m1 (kind::f8f6f4, or block-scaled with --quant), not %s and %s; for 16-bit and integer types use --arch sm_89 (its PTX runs on SM120 too)",
			target, mmagen_type_name(req->a), mmagen_type_name(req->b));
	if ((s = pick_kind(req, &kind, &sv, &st, &block)))
		return s;
	if (req->kind && req->kind != kind)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm on %s: %s x %s%s%s is kind::%s, not kind::%s%s", target,
			mmagen_type_name(req->a), mmagen_type_name(req->b),
			req->quant ? " with --quant " : "", req->quant ? mmagen_qformat_name(req->quant) : "",
			kind_name(kind), kind_name(req->kind),
			req->quant == MMAGEN_QF_MXFP4 && req->a == MMAGEN_E2M1 && req->b == MMAGEN_E2M1
				? " (e2m1 x e2m1 mxfp4 takes mxf4, mxf4nvf4 or mxf8f6f4)" : "; leave --kind out");
	if (req->acc && req->acc != MMAGEN_F32)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm on %s accumulates in f32 (got --acc %s); leave --acc out",
			target, mmagen_type_name(req->acc));
	if (req->out != outs[0] && req->out != outs[1] && req->out != outs[2])
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm on %s writes D as f32, f16 or bf16 (got %s)", target,
			mmagen_type_name(req->out));
	if (req->layout != MMAGEN_GEMM_TN)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s mma.sync reads A and B K-major only (as `mmagen quantize` writes rows along K): use layout tn",
			target);
	if (req->path == MMAGEN_GEMM_PATH_WGMMA)
		return mmagen_set_error(MMAGEN_TARGET,
			"%s has no wgmma; its GEMM is the mma.sync path (--path mma.sync or none)", target);
	if (req->split_k > 1)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"the %s GEMM has no split-K; use --split-k 1 (got %u)", target, req->split_k);
	if (req->cluster > 1)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"the %s GEMM runs one CTA per tile; use --cluster 1 (got %u)", target,
			req->cluster);
	g->path = MMAGEN_GEMM_PATH_MMA_SYNC;
	g->acc = MMAGEN_F32;
	g->bits = kind == MMAGEN_KIND_MXF4 || kind == MMAGEN_KIND_MXF4NVF4 ? 4 : 8;
	g->bk = GEMM120_ROW_BYTES * 8 / g->bits;
	g->mma_k = STEP_BYTES * 8 / g->bits;
	g->bm = req->tile_m ? req->tile_m : 128;
	g->bn = req->tile_n ? req->tile_n : 128;
	g->cluster = 1;
	g->split = 1;
	g->group = req->group ? req->group : 8;
	g->sv = sv;
	g->stype = st;
	g->scale_block = block;
	g->spb = sv * STEPS;
	if (!tile_ok(g->bm) || !tile_ok(g->bn) || g->bm * g->bn < 2 * WARP_TILE * WARP_TILE ||
	    g->bm * g->bn > 8 * WARP_TILE * WARP_TILE)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the %s GEMM tile is M and N of 64, 128 or 256 with 2 to 8 warps of 64 x 64, not %ux%u; use 128x128, 128x64 or 128x256",
			target, g->bm, g->bn);
	if (g->group > 65535 || req->stages > 32)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s %u is out of range; use %s",
			g->group > 65535 ? "group" : "stages", g->group > 65535 ? g->group : req->stages,
			g->group > 65535 ? "1 to 65535 tile rows" : "2 to 32 stages (shared memory allows fewer)");
	g->threads = g->bm * g->bn / (WARP_TILE * WARP_TILE) * 32;
	if ((s = select_form(g, kind, sv, st, &g->form)) == MMAGEN_TARGET)
		return mmagen_set_error(MMAGEN_TARGET,
			"the GEMM's kind::%s mma.sync needs an arch-specific target such as sm_120a (got %s); use --arch sm_120a",
			kind_name(kind), target);
	if (s)
		return s;
	g->a_stage = g->bm * GEMM120_ROW_BYTES;
	g->b_stage = g->bn * GEMM120_ROW_BYTES;
	unsigned stage = g->a_stage + g->b_stage + (g->bm + g->bn) * g->spb;
	g->stages = req->stages ? req->stages : 4;
	if (!req->stages && g->stages * stage > smem_limit)
		g->stages = smem_limit / stage;
	g->smem = g->stages * stage;
	if (smem_limit / stage < 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"a %ux%u tile takes %u bytes per stage here: two stages do not fit the %u bytes of shared memory a block can have on %s; use --tile 128x128",
			g->bm, g->bn, stage, smem_limit, target);
	unsigned most = smem_limit / stage > 32 ? 32 : smem_limit / stage;
	if (g->stages < 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the pipeline has at least 2 stages (one filled while another is read), not %u; use 2 to %u stages",
			g->stages, most);
	if (g->smem > smem_limit)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%u stages of %u bytes do not fit the %u bytes of shared memory a block can have on %s; use 2 to %u stages or a smaller --tile",
			g->stages, stage, smem_limit, target, most);
	return MMAGEN_OK;
}

/* ---- the kernel ---- */

struct k120 {
	const struct gemm_plan *g;
	struct kb *kb;
	kreg tid, warp, lane, m, n, k, m0, n0, kblocks, smem, kload, wbase, rstage, wstage;
	kreg wm, wn;
	/* copies: per operand (A, B) */
	kreg gbase[2], gnext[2], ldb[2], rowb[2], ch, cpdst, kbytes;
	kreg sbase[2], snext[2], srowg[2], ldsb[2], nsc, srow;
	/* fragments: per operand and step, the lane's ldmatrix address in
	 * the read stage (the warp's rows included); the same for scales */
	kreg lad[2][STEPS], lsad[2];
	kreg fa[2], fb[2], sa, sb;
	kreg acc;
	struct instr in;
	unsigned stage;                   /* bytes of one stage */
};

/* Per-thread constants from mmagen_tcp_*; the copy pointers. */
static void emit_setup(struct k120 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	kreg x = kb_reg(kb, K_B64), tab = kb_reg(kb, K_B64), src = kb_reg(kb, K_B32);

	c->ch = kb_reg(kb, K_B32);
	c->cpdst = kb_reg(kb, K_B32);
	ke(kb, "\t// cp.async: this thread's row and byte of copy 0, and their swizzled place\n"
	       "\tmul.wide.u32 $r, $r, 4;\n\tmov.u64 $r, mmagen_tcp_src;\n\tadd.u64 $r, $r, $r;\n"
	       "\tld.const.u32 $r, [$r];\n\tmov.u64 $r, mmagen_tcp_dst;\n\tadd.u64 $r, $r, $r;\n"
	       "\tld.const.u32 $r, [$r];\n",
	   x, c->tid, tab, tab, tab, x, src, tab, tab, tab, tab, x, c->cpdst, tab);
	ke(kb, "\tand.b32 $r, $r, 255;\n\tshr.u32 $r, $r, 16;\n", c->ch, src, src, src);
	for (int op = 0; op < 2; op++) {
		kreg ld = kb_reg(kb, K_B32), o0 = op ? c->n0 : c->m0;
		ke(kb, "\t// $s: row $s0 + (src >> 16), byte (src & 255); copy i is $u i rows on\n",
		   op ? "B" : "A", op ? "n" : "m", g->threads / 8);
		c->gbase[op] = frag_param_ptr(kb, op ? "pb" : "pa");
		c->gnext[op] = kb_reg(kb, K_B64);
		c->ldb[op] = kb_reg(kb, K_B64);
		c->rowb[op] = kb_reg(kb, K_B32);
		ke(kb, "\tld.param.u32 $r, [$s];\n", ld, op ? "pldb" : "plda");
		if (g->bits == 4)
			ke(kb, "\tshr.u32 $r, $r, 1;\n", ld, ld);
		ke(kb, "\tadd.u32 $r, $r, $r;\n\tmul.wide.u32 $r, $r, $r;\n\tadd.u64 $r, $r, $r;\n"
		       "\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n",
		   c->rowb[op], o0, src, x, c->rowb[op], ld, c->gnext[op], c->gbase[op], x,
		   x, c->ch, c->gnext[op], c->gnext[op], x);
		ke(kb, "\tmul.wide.u32 $r, $r, $u;\n", c->ldb[op], ld, g->threads / 8);
	}
	if (!g->spb)
		return;
	c->nsc = kb_reg(kb, K_B32);
	c->srow = kb_reg(kb, K_B32);
	ke(kb, "\t// scales: ceil(K / $u) per row exist; scale row tid (+ $u i) is this thread's\n",
	   g->scale_block, g->threads);
	ke(kb, "\tadd.u32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n\tmul.lo.u32 $r, $r, $u;\n",
	   c->nsc, c->k, g->scale_block - 1, c->nsc, c->nsc, gemm_log2u(g->scale_block), c->srow,
	   c->tid, g->spb);
	for (int op = 0; op < 2; op++) {
		kreg ld = kb_reg(kb, K_B32), o0 = op ? c->n0 : c->m0;
		c->sbase[op] = frag_param_ptr(kb, op ? "psb" : "psa");
		c->snext[op] = kb_reg(kb, K_B64);
		c->srowg[op] = kb_reg(kb, K_B32);
		c->ldsb[op] = kb_reg(kb, K_B64);
		ke(kb, "\tld.param.u32 $r, [$s];\n\tadd.u32 $r, $r, $r;\n\tmul.wide.u32 $r, $r, $r;\n"
		       "\tadd.u64 $r, $r, $r;\n",
		   ld, op ? "pldsb" : "pldsa", c->srowg[op], o0, c->tid, x, c->srowg[op], ld,
		   c->snext[op], c->sbase[op], x);
		ke(kb, "\tmul.wide.u32 $r, $r, $u;\n", c->ldsb[op], ld, g->threads);
	}
}

/* The warp's place and the lanes' fragment and scale offsets. */
static void emit_frag_setup(struct k120 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned warps_m = g->bm / WARP_TILE;
	kreg x = kb_reg(kb, K_B64), w = kb_reg(kb, K_B32), tab = kb_reg(kb, K_B64);

	c->wm = kb_reg(kb, K_B32);
	c->wn = kb_reg(kb, K_B32);
	ke(kb, "\t// warp (wm, wn) of the $u x $u warps; this lane's offsets (mmagen_tld, mmagen_tls)\n",
	   warps_m, g->bn / WARP_TILE);
	ke(kb, "\trem.u32 $r, $r, $u;\n\tdiv.u32 $r, $r, $u;\n", c->wm, c->warp, warps_m,
	   c->wn, c->warp, warps_m);
	ke(kb, "\tmul.wide.u32 $r, $r, 32;\n\tmov.u64 $r, mmagen_tld;\n\tadd.u64 $r, $r, $r;\n",
	   x, c->lane, tab, tab, tab, x);
	for (int op = 0; op < 2; op++) {
		ke(kb, "\tmul.lo.u32 $r, $r, $u;\n", w, op ? c->wn : c->wm,
		   WARP_TILE * GEMM120_ROW_BYTES);
		for (unsigned s = 0; s < STEPS; s++) {
			c->lad[op][s] = kb_reg(kb, K_B32);
			ke(kb, "\tld.const.u32 $r, [$r+$u];\n\tadd.u32 $r, $r, $r;\n\tadd.u32 $r, $r, $r;\n",
			   c->lad[op][s], tab, 4 * (op * 4 + s), c->lad[op][s], c->lad[op][s], w,
			   c->lad[op][s], c->lad[op][s], c->smem);
		}
	}
	if (!g->spb)
		return;
	ke(kb, "\tmul.wide.u32 $r, $r, 8;\n\tmov.u64 $r, mmagen_tls;\n\tadd.u64 $r, $r, $r;\n",
	   x, c->lane, tab, tab, tab, x);
	for (int op = 0; op < 2; op++) {
		c->lsad[op] = kb_reg(kb, K_B32);
		ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tld.const.u32 $r, [$r+$u];\n\tadd.u32 $r, $r, $r;\n"
		       "\tadd.u32 $r, $r, $r;\n",
		   w, op ? c->wn : c->wm, WARP_TILE * g->spb, c->lsad[op], tab, 4 * op,
		   c->lsad[op], c->lsad[op], w, c->lsad[op], c->lsad[op], c->smem);
	}
}

/* One cp.async of `bytes` (4, 8 or 16) with src-size `sz`. */
static void cp_async(struct kb *kb, unsigned bytes, kreg dst, unsigned off, kreg src, kreg sz)
{
	ke(kb, "cp.async.$s.shared.global [$r+$u], [$r], $u, $r;\n", bytes == 16 ? "cg" : "ca",
	   dst, off, src, bytes, sz);
}

/* The copies of K block `kload` into the stage at `wbase`.  src-size is
 * the bytes of the chunk inside the matrix -- 0 past M or N, K's bytes
 * left clamped to 0..16 (0 past the last K block) -- and cp.async fills
 * the rest of the 16 bytes with zeros; a chunk of 0 bytes reads from the
 * matrix's base.  The scale rows the same way, spb bytes each. */
static void emit_load(struct k120 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	unsigned t8 = g->threads / 8;
	kreg p = kb_reg(kb, K_PRED), left = kb_reg(kb, K_B32), sz = kb_reg(kb, K_B32);
	kreg r = kb_reg(kb, K_B32), src = kb_reg(kb, K_B64), run = kb_reg(kb, K_B64);
	kreg dst = kb_reg(kb, K_B32), nz = kb_reg(kb, K_PRED);

	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n\tsub.s32 $r, $r, $r;\n\tmax.s32 $r, $r, 0;\n"
	       "\tmin.s32 $r, $r, 16;\n\tadd.u32 $r, $r, $r;\n",
	   left, c->kload, GEMM120_ROW_BYTES, c->ch, left, c->kbytes, left, left, left, left, left,
	   dst, c->wbase, c->cpdst);
	for (int op = 0; op < 2; op++) {
		unsigned rows = op ? g->bn : g->bm, off = op ? g->a_stage : 0;
		ke(kb, "\t// $s: $u copies\n\tmad.wide.u32 $r, $r, $u, $r;\n", op ? "B" : "A",
		   rows / t8, run, c->kload, GEMM120_ROW_BYTES, c->gnext[op]);
		for (unsigned i = 0; i < rows / t8; i++) {
			if (i)
				ke(kb, "\tadd.u64 $r, $r, $r;\n", run, run, c->ldb[op]);
			ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n"
			       "\tselp.u32 $r, $r, 0, $r;\n\tsetp.ne.u32 $r, $r, 0;\n"
			       "\tselp.b64 $r, $r, $r, $r;\n",
			   r, c->rowb[op], i * t8, p, r, op ? c->n : c->m, sz, left, p, nz, sz,
			   src, run, c->gbase[op], nz);
			ke(kb, "\t");
			cp_async(kb, 16, dst, off + i * t8 * GEMM120_ROW_BYTES, src, sz);
		}
	}
	if (!g->spb)
		return;
	kreg sdst = kb_reg(kb, K_B32), own = kb_reg(kb, K_PRED);
	ke(kb, "\t// scale rows: spb = $u bytes of K block kload each\n"
	       "\tmul.lo.u32 $r, $r, $u;\n\tsub.s32 $r, $r, $r;\n\tmax.s32 $r, $r, 0;\n"
	       "\tmin.s32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n",
	   g->spb, r, c->kload, g->spb, left, c->nsc, r, left, left, left, left, g->spb,
	   sdst, c->wbase, c->srow);
	for (int op = 0; op < 2; op++) {
		unsigned rows = op ? g->bn : g->bm;
		unsigned off = g->a_stage + g->b_stage + (op ? g->bm * g->spb : 0);
		kreg lim = op ? c->n : c->m;
		ke(kb, "\tmad.wide.u32 $r, $r, $u, $r;\n", run, c->kload, g->spb, c->snext[op]);
		for (unsigned i = 0; i * g->threads < rows; i++) {
			if (i)
				ke(kb, "\tadd.u64 $r, $r, $r;\n", run, run, c->ldsb[op]);
			ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n",
			   r, c->srowg[op], i * g->threads, p, r, lim);
			ke(kb, "\tselp.u32 $r, $r, 0, $r;\n\tsetp.ne.u32 $r, $r, 0;\n"
			       "\tselp.b64 $r, $r, $r, $r;\n",
			   sz, left, p, nz, sz, src, run, c->sbase[op], nz);
			if ((i + 1) * g->threads > rows) {   /* threads past the tile's rows */
				ke(kb, "\tsetp.lt.u32 $r, $r, $u;\n\t@$r ", own, c->tid,
				   rows - i * g->threads, own);
			} else {
				ke(kb, "\t");
			}
			cp_async(kb, g->spb, sdst, off + i * g->threads * g->spb, src, sz);
		}
	}
}

/* The read stage moved on (rstage is the new one): the lanes' addresses
 * follow, one stage on or back to stage 0. */
static void emit_read_stage(struct k120 *c, kreg p)
{
	struct kb *kb = c->kb;
	kreg delta = kb_reg(kb, K_B32);
	ke(kb, "\tsetp.eq.u32 $r, $r, 0;\n\tselp.b32 $r, $d, $u, $r;\n", p, c->rstage, delta,
	   -(int)((c->g->stages - 1) * c->stage), c->stage, p);
	for (int op = 0; op < 2; op++) {
		for (unsigned s = 0; s < STEPS; s++)
			ke(kb, "\tadd.u32 $r, $r, $r;\n", c->lad[op][s], c->lad[op][s], delta);
		if (c->g->spb)
			ke(kb, "\tadd.u32 $r, $r, $r;\n", c->lsad[op], c->lsad[op], delta);
	}
}

/* Fragments of mma step `step` into buffer `buf`: per operand four
 * ldmatrix.x4 (A: m16 tile i = rows 16 i..; B: n8 tiles 2 i, 2 i + 1 =
 * rows 16 i..), 2048 bytes apart.  The scales (emit_scales) of A's m16
 * tile i at 16 i spb, of B's n8 tile j at 8 j spb, plus step * S. */
static void emit_frags(struct k120 *c, unsigned buf, unsigned step)
{
	struct kb *kb = c->kb;
	for (int op = 0; op < 2; op++) {
		kreg f = op ? c->fb[buf] : c->fa[buf];
		for (unsigned i = 0; i < 4; i++) {
			kreg v = { .cls = f.cls, .n = 4, .id = f.id + 4 * i };
			ke(kb, "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 $v, [$r+$u];\n", v,
			   c->lad[op][step], (op ? c->g->a_stage : 0) + i * 16 * GEMM120_ROW_BYTES);
		}
	}
}

/* The scale registers of mma step `step` (one buffer: loaded after the
 * mma of the step before have been issued). */
static void emit_scales(struct k120 *c, unsigned step)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	static const char *const width[] = { "", "u8", "u16", "", "u32" };
	if (!g->spb)
		return;
	for (int op = 0; op < 2; op++) {
		unsigned off = g->a_stage + g->b_stage + (op ? g->bm * g->spb : 0);
		unsigned tiles = op ? 8 : 4, rows = op ? 8 : 16;
		kreg sr = op ? c->sb : c->sa;
		for (unsigned i = 0; i < tiles; i++)
			ke(kb, "\tld.shared.$s $r, [$r+$u];\n", width[g->sv], kr_at(sr, i),
			   c->lsad[op], off + i * rows * g->spb + step * g->sv);
	}
}

static void emit_mmas(struct k120 *c, unsigned buf)
{
	struct operand *od = tile_find_op(&c->in, "d"), *oa = tile_find_op(&c->in, "a");
	struct operand *ob = tile_find_op(&c->in, "b"), *oc = tile_find_op(&c->in, "c");
	struct operand *osa = tile_find_op(&c->in, "sa"), *osb = tile_find_op(&c->in, "sb");
	for (unsigned i = 0; i < 4; i++)
		for (unsigned jj = 0; jj < 8; jj++) {
			unsigned j = i % 2 ? 7 - jj : jj;   /* serpentine: B stays */
			kreg d = { .cls = c->acc.cls, .n = 4, .id = c->acc.id + (i * 8 + j) * 4 };
			od->reg = oc->reg = d;
			oa->reg = (kreg){ .cls = c->fa[buf].cls, .n = 4, .id = c->fa[buf].id + 4 * i };
			ob->reg = (kreg){ .cls = c->fb[buf].cls, .n = 2, .id = c->fb[buf].id + 2 * j };
			if (osa) {
				osa->reg = kr_at(c->sa, i);
				osb->reg = kr_at(c->sb, j);
			}
			emit_instruction(kb_buf(c->kb), c->g->form, &c->in);
		}
}

/* One K block: steps 0..3, the fragments of the next step loaded while
 * the mma of this one run; the copies of K block kb+S-1 after the first
 * loads; at the last step the wait for K block kb+1 and the barrier. */
static void emit_body(struct k120 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	kreg p = kb_reg(kb, K_PRED);
	for (unsigned s = 0; s < STEPS; s++) {
		ke(kb, "\t// step $u\n", s);
		if (s + 1 < STEPS) {
			emit_frags(c, (s + 1) % 2, s + 1);
		} else {
			ke(kb, "\t// K block kb+1 is in; every warp is done with stage kb\n"
			       "\tcp.async.wait_group $u;\n\tbar.sync 0;\n", g->stages - 2);
			ke(kb, "\tadd.u32 $r, $r, 1;\n\tsetp.eq.u32 $r, $r, $u;\n\t@$r mov.u32 $r, 0;\n"
			       "\tadd.u32 $r, $r, 1;\n\tsetp.eq.u32 $r, $r, $u;\n\t@$r mov.u32 $r, 0;\n",
			   c->rstage, c->rstage, p, c->rstage, g->stages, p, c->rstage,
			   c->wstage, c->wstage, p, c->wstage, g->stages, p, c->wstage);
			emit_read_stage(c, p);
			emit_frags(c, 0, 0);
		}
		if (!s) {
			ke(kb, "\t// the copies of K block kb+$u into the stage read last turn\n",
			   g->stages - 1);
			emit_load(c);
			ke(kb, "\tcp.async.commit_group;\n");
		}
		emit_mmas(c, s % 2);
		emit_scales(c, (s + 1) % STEPS);
	}
}

/* ---- the epilogue ----
 * The accumulator layout of m16n8: lane l holds rows l/4 (c0, c1) and
 * l/4 + 8 (c2, c3), columns 2 (l % 4) and +1.  The per-element steps are
 * gemm_epi.c's, shared with the other paths: D = alpha acc + beta C, C
 * read only when beta != 0 (under the element's predicate and has_c, 0
 * elsewhere); an element pair is stored whole when both columns are
 * inside N, else its first alone. */
static void emit_epilogue(struct k120 *c)
{
	const struct gemm_plan *g = c->g;
	struct kb *kb = c->kb;
	struct gemm_epi e = { .out = g->req.out, .acc = MMAGEN_F32, .cvt_bf16 = 1 };
	unsigned es = mmagen_type_bits(e.out) / 8;
	kreg gd = frag_param_ptr(kb, "pd"), gc = frag_param_ptr(kb, "pc");
	kreg ldd = kb_reg(kb, K_B32), ldc = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	kreg row0 = kb_reg(kb, K_B32), col0 = kb_reg(kb, K_B32), row = kb_reg(kb, K_B32);
	kreg pin1 = kb_regs(kb, K_PRED, 8), pin2 = kb_regs(kb, K_PRED, 8), prow = kb_reg(kb, K_PRED);
	kreg p0 = kb_reg(kb, K_PRED), p1 = kb_reg(kb, K_PRED), ps = kb_reg(kb, K_PRED);
	kreg q0 = kb_reg(kb, K_PRED), q1 = kb_reg(kb, K_PRED);
	kreg ad = kb_reg(kb, K_B64), ac = kb_reg(kb, K_B64), x = kb_reg(kb, K_B64);
	kreg v = kb_regs(kb, K_F32, 2);

	ke(kb, "\tld.param.u32 $r, [pldd];\n\tld.param.u32 $r, [pldc];\n", ldd, ldc);
	gemm_epi_params(kb, &e);
	/* D is f32, f16 or bf16 here (gemm_plan_sm120): nothing to add */
	gemm_epi_params_out(kb, &e);
	ke(kb, "\tshl.b32 $r, $r, 6;\n\tadd.u32 $r, $r, $r;\n\tshr.u32 $r, $r, 2;\n\tadd.u32 $r, $r, $r;\n",
	   row0, c->wm, row0, row0, c->m0, t, c->lane, row0, row0, t);
	ke(kb, "\tshl.b32 $r, $r, 6;\n\tadd.u32 $r, $r, $r;\n\tand.b32 $r, $r, 3;\n"
	       "\tshl.b32 $r, $r, 1;\n\tadd.u32 $r, $r, $r;\n",
	   col0, c->wn, col0, col0, c->n0, t, c->lane, t, t, col0, col0, t);
	for (unsigned j = 0; j < 8; j++)
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n"
		       "\tadd.u32 $r, $r, 1;\n\tsetp.lt.u32 $r, $r, $r;\n",
		   t, col0, 8 * j, kr_at(pin1, j), t, c->n, t, t, kr_at(pin2, j), t, c->n);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned hh = 0; hh < 2; hh++) {
			ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n",
			   row, row0, 16 * i + 8 * hh, prow, row, c->m);
			for (int o = 0; o < 2; o++)
				ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tcvt.u64.u32 $r, $r;\n"
				       "\tadd.u64 $r, $r, $r;\n\tshl.b64 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
				   o ? ac : ad, row, o ? ldc : ldd, x, col0, o ? ac : ad, o ? ac : ad, x,
				   o ? ac : ad, o ? ac : ad, gemm_log2u(es), o ? ac : ad, o ? ac : ad,
				   o ? gc : gd);
			for (unsigned j = 0; j < 8; j++) {
				unsigned off = 8 * j * es, a0 = ((i * 8 + j) * 4) + 2 * hh;
				/* p0: element 0 inside, p1: both, ps: element 0
				 * alone; q0, q1: C's elements read */
				ke(kb, "\tand.pred $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
				       "\tnot.pred $r, $r;\n\tand.pred $r, $r, $r;\n"
				       "\tand.pred $r, $r, $r;\n\tand.pred $r, $r, $r;\n",
				   p0, prow, kr_at(pin1, j), p1, prow, kr_at(pin2, j), ps, kr_at(pin2, j),
				   ps, ps, p0, q0, p0, e.has_c, q1, p1, e.has_c);
				struct gemm_epi_c cin = { .p = { q0, q1 }, .addr = ac,
							  .off = { off, off + es } };
				gemm_epi_pair(kb, &e, v, kr_at(c->acc, a0), kr_at(c->acc, a0 + 1), &cin);
				gemm_epi_store(kb, &e, p1, ps, ad, off, v);
			}
		}
}

static void set_sizes(struct kb *kb, const struct gemm_plan *g, unsigned stage)
{
	char op[256];
	kb_set(kb, "kernel", "$s", GEMM_KERNEL_NAME);
	kb_set(kb, "arch", "$s", mmagen_target_name(g->req.target));
	kb_set(kb, "a_type", "$t", g->req.a);
	kb_set(kb, "b_type", "$t", g->req.b);
	kb_set(kb, "d_type", "$t", g->req.out);
	kb_set(kb, "mma_shape", "$s", mmagen_form_opcode(g->form, op, sizeof op));
	kb_set(kb, "scales", "$s", g->spb ? "scales per K block" : "no scales (kind::f8f6f4)");
	gemm_entry_params(kb, g);
	kb_set(kb, "bm", "$u", g->bm);
	kb_set(kb, "bn", "$u", g->bn);
	kb_set(kb, "bk", "$u", g->bk);
	kb_set(kb, "spb", "$u", g->spb);
	kb_set(kb, "bm_log2", "$u", gemm_log2u(g->bm));
	kb_set(kb, "bn_log2", "$u", gemm_log2u(g->bn));
	kb_set(kb, "bm_minus_1", "$u", g->bm - 1);
	kb_set(kb, "bn_minus_1", "$u", g->bn - 1);
	kb_set(kb, "row_bytes_minus_1", "$u", GEMM120_ROW_BYTES - 1);
	kb_set(kb, "row_bytes_log2", "$u", gemm_log2u(GEMM120_ROW_BYTES));
	kb_set(kb, "stages", "$u", g->stages);
	kb_set(kb, "stages_minus_1", "$u", g->stages - 1);
	kb_set(kb, "stages_minus_2", "$u", g->stages - 2);
	kb_set(kb, "stage_bytes", "$u", stage);
	kb_set(kb, "group", "$u", g->group);
	kb_set(kb, "threads", "$u", g->threads);
	kb_set(kb, "warps", "$u", g->threads / 32);
	kb_flag(kb, "half_k", g->bits == 4);
}

/* The .const tables (gemm_plan.h: gemm120_tables). */
static void emit_tables(struct kb *kb, const struct gemm_plan *g)
{
	struct gemm120_tab t;
	gemm120_tables(g->threads, g->spb, &t);
	kb_at(kb, "tables");
	ke(kb, "// cp.async, per thread: (row << 16) | byte of copy 0; its swizzled stage offset\n");
	frag_table_words(kb, "mmagen_tcp_src", t.cp_src, g->threads);
	frag_table_words(kb, "mmagen_tcp_dst", t.cp_dst, g->threads);
	ke(kb, "// ldmatrix, per lane: A steps 0..3, B steps 0..3 (stage offsets of the warp's rows)\n");
	frag_table_words(kb, "mmagen_tld", t.ld, 32 * 8);
	if (g->spb) {
		ke(kb, "// scales, per lane: offset of its A row, of its B row, in the scale rows\n");
		frag_table_words(kb, "mmagen_tls", t.ls, 32 * 2);
	}
}

mmagen_status gemm_emit_sm120(const struct gemm_plan *g, struct buf *out)
{
	struct kb kb;
	struct k120 c = { .g = g, .kb = &kb };

	c.stage = g->a_stage + g->b_stage + (g->bm + g->bn) * g->spb;
	kb_init(&kb, "gemm_sm120");
	instr_of(g->form, &c.in);
	set_sizes(&kb, g, c.stage);
	kb_at(&kb, "header");
	/* cp.async and ldmatrix need PTX 7.0; the instruction needs more */
	emit_header(kb_buf(&kb), g->req.target, mmagen_form_min_ptx(g->form, g->req.target));
	emit_tables(&kb, g);
	c.tid = kb_slot_reg(&kb, "tid", K_B32);
	c.warp = kb_slot_reg(&kb, "warp", K_B32);
	c.lane = kb_slot_reg(&kb, "lane", K_B32);
	c.m = kb_slot_reg(&kb, "m", K_B32);
	c.n = kb_slot_reg(&kb, "n", K_B32);
	c.k = kb_slot_reg(&kb, "k", K_B32);
	c.m0 = kb_slot_reg(&kb, "m0", K_B32);
	c.n0 = kb_slot_reg(&kb, "n0", K_B32);
	c.kblocks = kb_slot_reg(&kb, "kblocks", K_B32);
	c.kbytes = kb_slot_reg(&kb, "kbytes", K_B32);
	c.smem = kb_slot_reg(&kb, "smem", K_B32);
	c.kload = kb_slot_reg(&kb, "kload", K_B32);
	c.wbase = kb_slot_reg(&kb, "wbase", K_B32);
	c.rstage = kb_slot_reg(&kb, "rstage", K_B32);
	c.wstage = kb_slot_reg(&kb, "wstage", K_B32);
	c.acc = kb_regs(&kb, K_F32, 4 * 8 * 4);
	for (int b = 0; b < 2; b++) {
		c.fa[b] = kb_regs(&kb, K_B32, 16);
		c.fb[b] = kb_regs(&kb, K_B32, 16);
	}
	if (g->spb) {
		c.sa = kb_regs(&kb, K_B32, 4);
		c.sb = kb_regs(&kb, K_B32, 8);
	}
	kb_at(&kb, "setup");
	emit_setup(&c);
	emit_frag_setup(&c);
	ke(&kb, "\t// the accumulators start at zero\n");
	for (unsigned i = 0; i < c.acc.n; i++)
		ke(&kb, "\tmov.f32 $r, 0f00000000;\n", kr_at(c.acc, i));
	kb_at(&kb, "load_prologue");
	emit_load(&c);
	kb_at(&kb, "first_frags");
	emit_frags(&c, 0, 0);
	emit_scales(&c, 0);
	kb_at(&kb, "body");
	emit_body(&c);
	kb_at(&kb, "epilogue");
	emit_epilogue(&c);
	/* the tile order (gemm_plan.c), its registers handed out last */
	kreg tile = kb_slot_reg(&kb, "tile", K_B32), tiles_m = kb_slot_reg(&kb, "tiles_m", K_B32);
	kreg tiles_n = kb_slot_reg(&kb, "tiles_n", K_B32), tm = kb_slot_reg(&kb, "tm", K_B32);
	kreg tn = kb_slot_reg(&kb, "tn", K_B32);
	gemm_emit_tile_order(&kb, "tile_order", g->group, tile, tiles_m, tiles_n, tm, tn);
	return kb_render(&kb, out);
}

/* ---- the manifest ---- */
void gemm_json_sm120(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i)
{
	char op[256];
	const char *elems = g->bits == 4 ? "e2m1 packed two per byte, element 2i in the low nibble"
					 : "one byte per element (FP6 in bits 0..5, e2m1 in bits 2..5)";
	emitf(b, "{\n  \"kernel\": \"$s\",\n  \"target\": \"$s\",\n  \"path\": \"mma.sync\",\n"
		 "  \"instruction\": \"$s\",\n"
		 "  \"a\": \"$t\", \"b\": \"$t\", \"acc\": \"f32\", \"out\": \"$t\", \"layout\": \"tn\",\n",
	      i->kernel, mmagen_target_name(g->req.target),
	      mmagen_form_opcode(g->form, op, sizeof op), g->req.a, g->req.b, g->req.out);
	if (g->spb)
		emitf(b, "  \"quant\": \"$s\", \"scale_type\": \"$t\", \"scale_block\": $u,\n",
		      mmagen_qformat_name(g->req.quant), g->stype, g->scale_block);
	else
		emitf(b, "  \"quant\": \"none\",\n");
	emitf(b, "  \"block\": [$u, 1, 1],\n  \"cluster\": [1, 1, 1],\n"
		 "  \"grid\": \"ceil(M/$u) * ceil(N/$u) x 1 x 1\",\n"
		 "  \"dynamic_shared_bytes\": $u,\n  \"tile\": [$u, $u, $u],\n  \"stages\": $u,\n",
	      i->block[0], i->tile_m, i->tile_n, i->smem, i->tile_m, i->tile_n, i->tile_k,
	      i->stages);
	emitf(b, "  \"elements\": \"$s\",\n", elems);
	gemm_json_params(b, g, i);
	emitf(b, "  \"rules\": [\"K >= 1$s\", \"A, B: base 16-byte aligned, lda and ldb multiples of $u elements (16 bytes)\"",
	      g->bits == 4 ? "\", \"K even (a row ends on a byte)" : "", 128 / g->bits);
	if (g->spb)
		emitf(b, ", \"SA, SB: base 16-byte aligned, ldsa and ldsb multiples of $u and at least ceil(K / $u)\"",
		      g->spb, g->scale_block);
	emitf(b, ", \"D, C: base aligned to 2 elements, ldd and ldc even\"]\n}\n");
}
