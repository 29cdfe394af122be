/* kernel_gemm_sm90.c - the sm_90a GEMM: wgmma + TMA + mbarriers, a
 * producer warpgroup and two consumer warpgroups, persistent over tiles
 * (templates/gemm_sm90.ptx.in says how the kernel runs).
 *
 * The C side decides the tile and the instruction from the table, and
 * writes what the template cannot: the wgmma sequence of one K block and
 * the epilogue, which names each of the accumulator registers. */
#include "gemm.h"

#include <string.h>

#define GEMM_THREADS 384        /* producer + two consumer warpgroups */
#define GEMM_BM 128             /* two consumer warpgroups of 64 rows */
#define SWIZZLE_BYTES 128       /* one K block = one 128-byte swizzle row */
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232       /* 40*128 + 232*256 <= 64K registers */
#define SMEM_LIMIT (227u * 1024u)

static unsigned log2u(unsigned v)
{
	unsigned l = 0;
	while ((1u << l) < v)
		l++;
	return l;
}

/* The wgmma form for one K step: m64 n<bn> k<16/8/32>, A and B from
 * shared memory, accumulating in acc. */
static mmagen_status gemm_form(const struct gemm_plan *g, const mmagen_form **out)
{
	mmagen_request r;
	mmagen_request_init(&r);
	r.target = g->req.target;
	r.family = MMAGEN_FAM_WGMMA;
	r.sparse = MMAGEN_SPARSE_NONE;
	r.m = 64;
	r.n = g->bn;
	r.k = g->mma_k;
	r.a = g->req.a;
	r.b = g->req.b;
	r.c = r.d = g->acc;
	r.asrc = MMAGEN_ASRC_SMEM;
	return mmagen_select(&r, out);
}

mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	unsigned abits = mmagen_type_bits(req->a);
	mmagen_status s;

	memset(g, 0, sizeof *g);
	g->req = *req;
	g->acc = req->acc ? req->acc : mmagen_type_is_float(req->a) ? MMAGEN_F32 : MMAGEN_S32;
	g->bm = GEMM_BM;
	g->promote = req->a == MMAGEN_E4M3 || req->a == MMAGEN_E5M2;
	/* FP8 keeps two accumulators (partial and promoted): N 128 fits the
	 * registers */
	g->bn = req->tile_n ? req->tile_n : g->promote ? 128 : 256;
	g->bk = SWIZZLE_BYTES * 8 / abits;
	g->mma_k = 256 / abits;               /* 32 bytes of K per wgmma */

	g->group = req->group ? req->group : 8;
	if (g->group > 65535 || req->stages > 32)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s %u is out of range; use %s", g->group > 65535 ? "group" : "stages",
			g->group > 65535 ? g->group : req->stages,
			g->group > 65535 ? "1 to 65535 tile rows" : "2 to 32 stages (shared memory allows fewer)");
	g->cluster = req->cluster ? req->cluster : 1;
	if (g->cluster != 1 && g->cluster != 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"cluster is 1 or 2 CTAs (two CTAs share B through TMA multicast), not %u",
			g->cluster);
	if (req->tile_m && req->tile_m != GEMM_BM)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the sm_90a GEMM tile has M = %u (two consumer warpgroups of 64 rows), not %u",
			GEMM_BM, req->tile_m);
	if (g->bn % 16 || g->bn < 16 || g->bn > 256)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile N is a multiple of 16 from 16 to 256 (wgmma's N), not %u", g->bn);
	if (g->promote && g->bn > 192)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"FP8 tiles keep two accumulators (wgmma's partial sums and the f32 sums): tile N is at most 192, not %u",
			g->bn);
	if ((s = gemm_form(g, &g->form)))
		return s;
	g->a_stage = g->bm * SWIZZLE_BYTES;
	g->b_stage = g->bn * SWIZZLE_BYTES;
	/* as many stages as shared memory holds, up to 6 */
	g->stages = req->stages ? req->stages :
		    (SMEM_LIMIT - 64) / (g->a_stage + g->b_stage + 16);
	if (!req->stages && g->stages > 6)
		g->stages = 6;
	g->smem = g->stages * (g->a_stage + g->b_stage) + 2 * 8 * g->stages;
	if (g->stages < 2 || g->smem > SMEM_LIMIT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%u stages of %u bytes do not fit the %u bytes of shared memory a block can have; use 2 to %u stages",
			g->stages, g->a_stage + g->b_stage, SMEM_LIMIT,
			(SMEM_LIMIT - 64) / (g->a_stage + g->b_stage + 16));
	return MMAGEN_OK;
}

/* One K block: mma_per_kblock wgmma, each 32 bytes further along K in the
 * swizzled rows (the descriptor's start address in 16-byte units). */
static void emit_kblock(struct kb *kb, const struct gemm_plan *g, struct instr *in,
			kreg da, kreg db, kreg first, kreg always)
{
	struct operand *oa = tile_find_op(in, "da"), *ob = tile_find_op(in, "db");
	struct operand *sd = tile_find_op(in, "sd");
	unsigned steps = g->bk / g->mma_k;

	memset(in->pre, 0, sizeof in->pre);     /* the template fences and commits */
	memset(in->post, 0, sizeof in->post);
	for (unsigned i = 0; i < steps; i++) {
		if (i) {
			oa->reg = kb_reg(kb, K_B64);
			ob->reg = kb_reg(kb, K_B64);
			ke(kb, "\tadd.s64 $r, $r, $u;\n\tadd.s64 $r, $r, $u;\n",
			   oa->reg, da, 2 * i, ob->reg, db, 2 * i);
		} else {
			oa->reg = da;
			ob->reg = db;
		}
		sd->reg = i ? always : first;
		emit_instruction(kb_buf(kb), g->form, in);
	}
}

/* Per-thread values the epilogue needs, loaded once. */
struct ep {
	kreg gd, gc, m, n, ldd, ldc, alpha, beta, has_c;
	kreg alpha_i, beta_i;     /* s32 D: alpha and beta as integers */
	kreg row, col;
	unsigned esize;           /* bytes of a D (and C) element */
	mmagen_type out;
	int int_acc;              /* the accumulator is s32 */
};

static void emit_epilogue_setup(struct kb *kb, struct ep *e)
{
	e->gd = frag_param_ptr(kb, "pd");
	e->gc = frag_param_ptr(kb, "pc");
	e->m = kb_reg(kb, K_B32);
	e->n = kb_reg(kb, K_B32);
	e->ldd = kb_reg(kb, K_B32);
	e->ldc = kb_reg(kb, K_B32);
	e->alpha = kb_reg(kb, K_F32);
	e->beta = kb_reg(kb, K_F32);
	e->has_c = kb_reg(kb, K_PRED);
	ke(kb, "\tld.param.u32 $r, [pm];\n\tld.param.u32 $r, [pn];\n"
	       "\tld.param.u32 $r, [pldd];\n\tld.param.u32 $r, [pldc];\n"
	       "\tld.param.f32 $r, [palpha];\n\tld.param.f32 $r, [pbeta];\n"
	       "\tsetp.neu.f32 $r, $r, 0f00000000;\n",
	   e->m, e->n, e->ldd, e->ldc, e->alpha, e->beta, e->has_c, e->beta);
	if (e->out == MMAGEN_S32) {
		e->alpha_i = kb_reg(kb, K_B32);
		e->beta_i = kb_reg(kb, K_B32);
		ke(kb, "\tcvt.rzi.s32.f32 $r, $r;\n\tcvt.rzi.s32.f32 $r, $r;\n",
		   e->alpha_i, e->alpha, e->beta_i, e->beta);
	}
}

/* Address of (row, col) in a row-major matrix at g with leading
 * dimension ld, into a fresh register. */
static kreg elem_addr(struct kb *kb, kreg g, kreg row, kreg col, kreg ld, unsigned esize)
{
	kreg a = kb_reg(kb, K_B64), c = kb_reg(kb, K_B64);
	ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n"
	       "\tshl.b64 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   a, row, ld, c, col, a, a, c, a, a, log2u(esize), a, a, g);
	return a;
}

/* v = alpha * acc: in f32 (from an s32 accumulator converted first), or
 * in wrapping s32 arithmetic for s32 D. */
static void scale_acc(struct kb *kb, const struct ep *e, kreg v, kreg acc)
{
	if (e->out == MMAGEN_S32)
		ke(kb, "\tmul.lo.s32 $r, $r, $r;\n", v, e->alpha_i, acc);
	else if (e->int_acc)
		ke(kb, "\tcvt.rn.f32.s32 $r, $r;\n\tmul.f32 $r, $r, $r;\n", v, acc, v, e->alpha, v);
	else
		ke(kb, "\tmul.f32 $r, $r, $r;\n", v, e->alpha, acc);
}

/* The output conversion of a pair (lo, hi) and of one value. */
static void store_pair(struct kb *kb, mmagen_type out, kreg p, kreg addr, unsigned off,
		       kreg lo, kreg hi)
{
	if (out == MMAGEN_F32 || out == MMAGEN_S32) {
		ke(kb, "\t@$r st.global.v2.b32 [$r+$u], {$r, $r};\n", p, addr, off, lo, hi);
		return;
	}
	kreg w = kb_reg(kb, K_B32);
	ke(kb, "\tcvt.rn.$s.f32 $r, $r, $r;\n\t@$r st.global.b32 [$r+$u], $r;\n",
	   out == MMAGEN_BF16 ? "bf16x2" : "f16x2", w, hi, lo, p, addr, off, w);
}

static void store_one(struct kb *kb, mmagen_type out, kreg p, kreg addr, unsigned off, kreg v)
{
	if (out == MMAGEN_F32 || out == MMAGEN_S32) {
		ke(kb, "\t@$r st.global.b32 [$r+$u], $r;\n", p, addr, off, v);
		return;
	}
	kreg h = kb_reg(kb, K_B16);
	ke(kb, "\tcvt.rn.$t.f32 $r, $r;\n\t@$r st.global.b16 [$r+$u], $r;\n",
	   out, h, v, p, addr, off, h);
}

/* v += beta * C(addr+off), under p. */
static void add_c(struct kb *kb, const struct ep *e, kreg p, kreg addr, unsigned off, kreg v)
{
	mmagen_type t = e->out;
	if (t == MMAGEN_S32) {
		kreg c = kb_reg(kb, K_B32);
		ke(kb, "\tmov.b32 $r, 0;\n\t@$r ld.global.b32 $r, [$r+$u];\n"
		       "\tmad.lo.s32 $r, $r, $r, $r;\n", c, p, c, addr, off, v, e->beta_i, c, v);
		return;
	}
	kreg c = kb_reg(kb, K_F32);
	ke(kb, "\tmov.f32 $r, 0f00000000;\n", c);
	if (t == MMAGEN_F32) {
		ke(kb, "\t@$r ld.global.f32 $r, [$r+$u];\n", p, c, addr, off);
	} else {
		kreg h = kb_reg(kb, K_B16);
		ke(kb, "\tmov.b16 $r, 0;\n\t@$r ld.global.b16 $r, [$r+$u];\n\tcvt.f32.$t $r, $r;\n",
		   h, p, h, addr, off, t, c, h);
	}
	ke(kb, "\tfma.rn.f32 $r, $r, $r, $r;\n", v, e->beta, c, v);
}

/* D for this thread's accumulators (wgmma m64nN layout: register 4j+2h+i
 * is row + 8h, column col + 8j + i), with or without beta * C.  Pairs
 * inside N are stored whole; a pair that N cuts is stored as one value. */
static void emit_store_all(struct kb *kb, const struct gemm_plan *g, const struct ep *e,
			   kreg acc, int with_c)
{
	kreg row[2] = { e->row, kb_reg(kb, K_B32) };
	kreg prow[2] = { kb_reg(kb, K_PRED), kb_reg(kb, K_PRED) };
	kreg ad[2], ac[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	kreg cj = kb_reg(kb, K_B32), pin1 = kb_reg(kb, K_PRED), pin2 = kb_reg(kb, K_PRED);
	kreg p0 = kb_reg(kb, K_PRED), p1 = kb_reg(kb, K_PRED), ps = kb_reg(kb, K_PRED);
	kreg v = kb_regs(kb, e->out == MMAGEN_S32 ? K_B32 : K_F32, 2);
	unsigned es = e->esize;

	ke(kb, "\tadd.u32 $r, $r, 8;\n\tsetp.lt.u32 $r, $r, $r;\n\tsetp.lt.u32 $r, $r, $r;\n",
	   row[1], row[0], prow[0], row[0], e->m, prow[1], row[1], e->m);
	for (int h = 0; h < 2; h++) {
		ad[h] = elem_addr(kb, e->gd, row[h], e->col, e->ldd, es);
		if (with_c)
			ac[h] = elem_addr(kb, e->gc, row[h], e->col, e->ldc, es);
	}
	for (unsigned j = 0; j < g->bn / 8; j++) {
		/* columns col+8j (pin1) and col+8j+1 (pin2) inside N? */
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n"
		       "\tadd.u32 $r, $r, 1;\n\tsetp.lt.u32 $r, $r, $r;\n",
		   cj, e->col, 8 * j, pin1, cj, e->n, cj, cj, pin2, cj, e->n);
		for (unsigned h = 0; h < 2; h++) {
			unsigned off = 8 * j * es;
			/* p0: element 0 inside, p1: both, ps: only element 0 */
			ke(kb, "\tand.pred $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
			       "\tnot.pred $r, $r;\n\tand.pred $r, $r, $r;\n",
			   p0, prow[h], pin1, p1, prow[h], pin2, ps, pin2, ps, ps, p0);
			for (unsigned i = 0; i < 2; i++)
				scale_acc(kb, e, kr_at(v, i), kr_at(acc, 4 * j + 2 * h + i));
			if (with_c) {
				add_c(kb, e, p0, ac[h], off, kr_at(v, 0));
				add_c(kb, e, p1, ac[h], off + es, kr_at(v, 1));
			}
			store_pair(kb, e->out, p1, ad[h], off, kr_at(v, 0), kr_at(v, 1));
			store_one(kb, e->out, ps, ad[h], off, kr_at(v, 0));
		}
	}
}

static void emit_epilogue(struct kb *kb, const struct gemm_plan *g, struct ep *e, kreg acc)
{
	kreg no_c = kb_label(kb), done = kb_label(kb);
	ke(kb, "\t@!$r bra.uni $r;\n", e->has_c, no_c);
	emit_store_all(kb, g, e, acc, 1);
	ke(kb, "\tbra.uni $r;\n$r:\n", done, no_c);
	emit_store_all(kb, g, e, acc, 0);
	ke(kb, "$r:\n", done);
}

/* FP8: each K block's wgmma start from zero (their own accumulation has
 * reduced precision on sm_90) and are added into f32 sums, as DeepGEMM
 * does; `sums` holds them. */
static void emit_promotion(struct kb *kb, kreg sums, kreg part)
{
	kb_at(kb, "tile_start");
	for (unsigned i = 0; i < sums.n; i++)
		ke(kb, "\tmov.f32 $r, 0f00000000;\n", kr_at(sums, i));
	kb_at(kb, "promote_sums");
	for (unsigned i = 0; i < sums.n; i++)
		ke(kb, "\tadd.f32 $r, $r, $r;\n", kr_at(sums, i), kr_at(sums, i), kr_at(part, i));
}

static mmagen_status set_sizes(struct kb *kb, const struct gemm_plan *g)
{
	kb_set(kb, "bm", "$u", g->bm);
	kb_set(kb, "bn", "$u", g->bn);
	kb_set(kb, "bk", "$u", g->bk);
	kb_set(kb, "bm_log2", "$u", log2u(g->bm));
	kb_set(kb, "bn_log2", "$u", log2u(g->bn));
	kb_set(kb, "bk_log2", "$u", log2u(g->bk));
	kb_set(kb, "bm_minus_1", "$u", g->bm - 1);
	kb_set(kb, "bn_minus_1", "$u", g->bn - 1);
	kb_set(kb, "bk_minus_1", "$u", g->bk - 1);
	kb_set(kb, "stages", "$u", g->stages);
	kb_set(kb, "stages_minus_1", "$u", g->stages - 1);
	kb_set(kb, "stages_x8", "$u", 8 * g->stages);
	kb_set(kb, "group", "$u", g->group);
	kb_set(kb, "b_offset", "$u", g->stages * g->a_stage);
	kb_set(kb, "bar_offset", "$u", g->stages * (g->a_stage + g->b_stage));
	kb_set(kb, "stage_bytes", "$u", g->a_stage + g->b_stage);
	kb_set(kb, "a_stage_bytes", "$u", g->a_stage);
	kb_set(kb, "b_stage_bytes", "$u", g->b_stage);
	kb_set(kb, "a_stage_units", "$u", g->a_stage / 16);
	kb_set(kb, "b_stage_units", "$u", g->b_stage / 16);
	kb_set(kb, "a_wg_bytes", "$u", 64 * SWIZZLE_BYTES);
	kb_flag(kb, "cluster", g->cluster == 2);
	kb_set(kb, "empty_count", "$u", 8u * g->cluster);   /* consumer warps of the cluster */
	kb_set(kb, "cm_log2", "$u", log2u(g->bm * g->cluster));
	kb_set(kb, "b_half_bytes", "$u", g->b_stage / 2);
	kb_set(kb, "b_half_rows", "$u", g->bn / 2);
	kb_set(kb, "producer_regs", "$u", PRODUCER_REGS);
	kb_set(kb, "consumer_regs", "$u", CONSUMER_REGS);
	/* K-major, 128-byte swizzle: 8-row groups 1024 bytes apart (SBO),
	 * LBO unused (16) */
	mmagen_wgmma_sdesc sd = { .lbo = 16, .sbo = 8 * SWIZZLE_BYTES, .swizzle = SWIZZLE_BYTES };
	uint64_t desc = 0;
	mmagen_status s = mmagen_wgmma_sdesc_encode(&sd, &desc);
	kb_set(kb, "desc_a_bits", "$X", desc);
	kb_set(kb, "desc_b_bits", "$X", desc);
	return s;
}

mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out)
{
	struct kb kb;
	struct instr in;
	struct ep e = { .esize = mmagen_type_bits(g->req.out) / 8, .out = g->req.out,
			.int_acc = g->acc == MMAGEN_S32 };
	char op[256];

	kb_init(&kb, "gemm_sm90");
	instr_of(g->form, &in);
	kb_bind(&kb, &in);
	kb_set(&kb, "kernel", "$s", GEMM_KERNEL_NAME);
	kb_set(&kb, "arch", "$s", mmagen_target_name(g->req.target));
	kb_set(&kb, "a_type", "$t", g->req.a);
	kb_set(&kb, "b_type", "$t", g->req.b);
	kb_set(&kb, "d_type", "$t", g->req.out);
	kb_set(&kb, "mma_shape", "$s", mmagen_form_opcode(g->form, op, sizeof op));
	kb_set(&kb, "mma_per_kblock", "$u", g->bk / g->mma_k);
	mmagen_status s = set_sizes(&kb, g);
	if (s) {
		kb_free(&kb);
		return s;
	}
	kb_at(&kb, "header");
	/* setmaxnreg and cvta.param need PTX 8.0 */
	unsigned v = mmagen_form_min_ptx(g->form, g->req.target);
	emit_header(kb_buf(&kb), g->req.target, v < 80 ? 80 : v);
	kreg da = kb_slot_reg(&kb, "da", K_B64), db = kb_slot_reg(&kb, "db", K_B64);
	kreg accumulate = kb_slot_reg(&kb, "accumulate", K_PRED);
	kreg always = kb_reg(&kb, K_PRED), never = kb_reg(&kb, K_PRED);
	kreg acc = tile_find_op(&in, "d")->reg;
	e.row = kb_slot_reg(&kb, "row", K_B32);
	e.col = kb_slot_reg(&kb, "col", K_B32);
	kb_at(&kb, "epilogue_setup");
	emit_epilogue_setup(&kb, &e);
	ke(&kb, "\tsetp.eq.u32 $r, 0, 0;\n\tsetp.ne.u32 $r, 0, 0;\n", always, never);
	kb_flag(&kb, "promote", g->promote);
	kb_at(&kb, "tile_start");
	if (g->promote) {
		kreg sums = kb_regs(&kb, K_F32, acc.n);
		emit_promotion(&kb, sums, acc);
		acc = sums;
	}
	kb_at(&kb, "mma");
	emit_kblock(&kb, g, &in, da, db, g->promote ? never : accumulate, always);
	kb_at(&kb, "epilogue");
	emit_epilogue(&kb, g, &e, acc);
	return kb_render(&kb, out);
}
