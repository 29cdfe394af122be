/* gemm_epi.c - the GEMM epilogue's per-element arithmetic (gemm_epi.h),
 * one copy for the sm_90a wgmma path, the warp-level mma.sync path and
 * sm_120a's block-scaled mma.sync path:
 * alpha, beta * C, FP8 D's d_scale, the conversion to D's type and the
 * stores; and element addresses.  A fix or a new step lands on every
 * path. */
#include "gemm_plan.h"

unsigned gemm_log2u(unsigned v)
{
	unsigned l = 0;
	while ((1u << l) < v)
		l++;
	return l;
}

int gemm_is_fp8(mmagen_type t)
{
	return (mmagen_type_class(t) & TYPE_FP8) != 0;
}

/* cvt's name of a pair of D's elements */
static const char *pair_name(mmagen_type t)
{
	switch (t) {
	case MMAGEN_E4M3: return "e4m3x2";
	case MMAGEN_E5M2: return "e5m2x2";
	case MMAGEN_BF16: return "bf16x2";
	default: return "f16x2";
	}
}

kreg gemm_elem_addr(struct kb *kb, kreg g, kreg row, kreg col, kreg ld, unsigned esize)
{
	kreg a = kb_reg(kb, K_B64), c = kb_reg(kb, K_B64);
	ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n"
	       "\tshl.b64 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   a, row, ld, c, col, a, a, c, a, a, gemm_log2u(esize), a, a, g);
	return a;
}

void gemm_epi_params(struct kb *kb, struct gemm_epi *e)
{
	e->alpha = kb_reg(kb, K_F32);
	e->beta = kb_reg(kb, K_F32);
	e->has_c = kb_reg(kb, K_PRED);
	ke(kb, "\tld.param.f32 $r, [palpha];\n\tld.param.f32 $r, [pbeta];\n"
	       "\tsetp.neu.f32 $r, $r, 0f00000000;\n",
	   e->alpha, e->beta, e->has_c, e->beta);
}

void gemm_epi_params_out(struct kb *kb, struct gemm_epi *e)
{
	if (gemm_is_fp8(e->out)) {
		e->d_scale = kb_reg(kb, K_F32);
		ke(kb, "\tld.param.f32 $r, [pd_scale];\n", e->d_scale);
	}
	if (e->out == MMAGEN_S32) {
		e->alpha_i = kb_reg(kb, K_B32);
		e->beta_i = kb_reg(kb, K_B32);
		ke(kb, "\tcvt.rzi.s32.f32 $r, $r;\n\tcvt.rzi.s32.f32 $r, $r;\n",
		   e->alpha_i, e->alpha, e->beta_i, e->beta);
	}
}

void gemm_epi_scale(struct kb *kb, const struct gemm_epi *e, kreg v, kreg acc)
{
	if (e->out == MMAGEN_S32)
		ke(kb, "\tmul.lo.s32 $r, $r, $r;\n", v, e->alpha_i, acc);
	else if (e->acc == MMAGEN_S32)
		ke(kb, "\tcvt.rn.f32.s32 $r, $r;\n\tmul.f32 $r, $r, $r;\n", v, acc, v, e->alpha, v);
	else
		ke(kb, "\tmul.f32 $r, $r, $r;\n", v, e->alpha, acc);
}

void gemm_epi_scale_f16x2(struct kb *kb, const struct gemm_epi *e, kreg v, kreg pair)
{
	kreg lo = kb_reg(kb, K_B16), hi = kb_reg(kb, K_B16);
	ke(kb, "\tmov.b32 {$r, $r}, $r;\n", lo, hi, pair);
	ke(kb, "\tcvt.f32.f16 $r, $r;\n\tmul.f32 $r, $r, $r;\n", kr_at(v, 0), lo, kr_at(v, 0),
	   e->alpha, kr_at(v, 0));
	ke(kb, "\tcvt.f32.f16 $r, $r;\n\tmul.f32 $r, $r, $r;\n", kr_at(v, 1), hi, kr_at(v, 1),
	   e->alpha, kr_at(v, 1));
}

void gemm_c_apply(struct kb *kb, const struct gemm_epi *e, kreg x, kreg v)
{
	if (e->out == MMAGEN_S32)
		ke(kb, "\tmad.lo.s32 $r, $r, $r, $r;\n", v, e->beta_i, x, v);
	else
		ke(kb, "\tfma.rn.f32 $r, $r, $r, $r;\n", v, e->beta, x, v);
}

kreg gemm_c_value(struct kb *kb, const struct gemm_epi *e, kreg p, kreg addr, unsigned off)
{
	mmagen_type t = e->out;
	if (t == MMAGEN_S32) {
		kreg x = kb_reg(kb, K_B32);
		ke(kb, "\tmov.b32 $r, 0;\n\t@$r ld.global.b32 $r, [$r+$u];\n", x, p, x, addr, off);
		return x;
	}
	kreg x = kb_reg(kb, K_F32);
	ke(kb, "\tmov.f32 $r, 0f00000000;\n", x);
	if (t == MMAGEN_F32) {
		ke(kb, "\t@$r ld.global.f32 $r, [$r+$u];\n", p, x, addr, off);
	} else if (gemm_is_fp8(t)) {
		/* FP8 -> f16 (exact) -> f32 */
		kreg h = kb_reg(kb, K_B16), w = kb_reg(kb, K_B32), lo = kb_reg(kb, K_B16),
		     hi = kb_reg(kb, K_B16);
		ke(kb, "\tmov.b16 $r, 0;\n\t@$r ld.global.b8 $r, [$r+$u];\n"
		       "\tcvt.rn.f16x2.$s $r, $r;\n\tmov.b32 {$r, $r}, $r;\n\tcvt.f32.f16 $r, $r;\n",
		   h, p, h, addr, off, pair_name(t), w, h, lo, hi, w, x, lo);
	} else if (t == MMAGEN_BF16 && !e->cvt_bf16) {
		/* bf16 is the top half of an f32 (cvt.f32.bf16 needs sm_90) */
		kreg w = kb_reg(kb, K_B32);
		ke(kb, "\tmov.b32 $r, 0;\n\t@$r ld.global.u16 $r, [$r+$u];\n"
		       "\tshl.b32 $r, $r, 16;\n\tmov.b32 $r, $r;\n", w, p, w, addr, off, w, w, x, w);
	} else {
		kreg h = kb_reg(kb, K_B16);
		ke(kb, "\tmov.b16 $r, 0;\n\t@$r ld.global.b16 $r, [$r+$u];\n\tcvt.f32.$t $r, $r;\n",
		   h, p, h, addr, off, t, x, h);
	}
	return x;
}

void gemm_epi_d_scale(struct kb *kb, const struct gemm_epi *e, kreg v)
{
	if (gemm_is_fp8(e->out))
		ke(kb, "\tmul.f32 $r, $r, $r;\n\tmul.f32 $r, $r, $r;\n", kr_at(v, 0), kr_at(v, 0),
		   e->d_scale, kr_at(v, 1), kr_at(v, 1), e->d_scale);
}

void gemm_epi_pair(struct kb *kb, const struct gemm_epi *e, kreg v, kreg a0, kreg a1,
		   const struct gemm_epi_c *c)
{
	/* 1. alpha * acc */
	if (e->acc == MMAGEN_F16) {
		gemm_epi_scale_f16x2(kb, e, v, a0);
	} else {
		gemm_epi_scale(kb, e, kr_at(v, 0), a0);
		gemm_epi_scale(kb, e, kr_at(v, 1), a1);
	}
	/* 2. + beta * C */
	if (c)
		for (unsigned i = 0; i < 2; i++) {
			kreg x = c->x[i].n ? c->x[i] : gemm_c_value(kb, e, c->p[i], c->addr, c->off[i]);
			gemm_c_apply(kb, e, x, kr_at(v, i));
		}
	/* 3. FP8 D: * d_scale */
	gemm_epi_d_scale(kb, e, v);
}

void gemm_epi_cvt_pair(struct kb *kb, const struct gemm_epi *e, kreg dst, kreg lo, kreg hi)
{
	ke(kb, gemm_is_fp8(e->out) ? "\tcvt.rn.satfinite.$s.f32 $r, $r, $r;\n"
				   : "\tcvt.rn.$s.f32 $r, $r, $r;\n",
	   pair_name(e->out), dst, hi, lo);
}

void gemm_epi_store(struct kb *kb, const struct gemm_epi *e, kreg p1, kreg ps, kreg addr,
		    unsigned off, kreg v)
{
	mmagen_type out = e->out;
	kreg v0 = kr_at(v, 0), v1 = kr_at(v, 1);
	if (out == MMAGEN_F32 || out == MMAGEN_S32) {
		ke(kb, "\t@$r st.global.v2.b32 [$r+$u], {$r, $r};\n\t@$r st.global.b32 [$r+$u], $r;\n",
		   p1, addr, off, v0, v1, ps, addr, off, v0);
		return;
	}
	if (gemm_is_fp8(out)) {
		/* the single value as a pair of itself; its low byte is v0 */
		kreg h = kb_reg(kb, K_B16);
		gemm_epi_cvt_pair(kb, e, h, v0, v1);
		ke(kb, "\t@$r st.global.b16 [$r+$u], $r;\n", p1, addr, off, h);
		h = kb_reg(kb, K_B16);
		gemm_epi_cvt_pair(kb, e, h, v0, v0);
		ke(kb, "\t@$r st.global.b8 [$r+$u], $r;\n", ps, addr, off, h);
		return;
	}
	kreg w = kb_reg(kb, K_B32);
	gemm_epi_cvt_pair(kb, e, w, v0, v1);
	ke(kb, "\t@$r st.global.b32 [$r+$u], $r;\n", p1, addr, off, w);
	kreg h = kb_reg(kb, K_B16);
	ke(kb, "\tcvt.rn.$t.f32 $r, $r;\n\t@$r st.global.b16 [$r+$u], $r;\n", out, h, v0, ps, addr,
	   off, h);
}
