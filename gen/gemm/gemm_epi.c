/* gemm_epi.c - epilogue pieces the GEMM generators share (the sm_90a
 * wgmma path and the warp-level mma.sync path): element addresses and
 * beta * C.  One copy, so a fix to how C is read lands on every path. */
#include "gemm_plan.h"

unsigned gemm_log2u(unsigned v)
{
	unsigned l = 0;
	while ((1u << l) < v)
		l++;
	return l;
}

kreg gemm_elem_addr(struct kb *kb, kreg g, kreg row, kreg col, kreg ld, unsigned esize)
{
	kreg a = kb_reg(kb, K_B64), c = kb_reg(kb, K_B64);
	ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n"
	       "\tshl.b64 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   a, row, ld, c, col, a, a, c, a, a, gemm_log2u(esize), a, a, g);
	return a;
}

void gemm_add_c(struct kb *kb, const struct gemm_c *c, kreg p, kreg addr, unsigned off, kreg v)
{
	gemm_c_apply(kb, c, gemm_c_value(kb, c, p, addr, off), v);
}

void gemm_c_apply(struct kb *kb, const struct gemm_c *c, kreg x, kreg v)
{
	if (c->out == MMAGEN_S32)
		ke(kb, "\tmad.lo.s32 $r, $r, $r, $r;\n", v, c->beta_i, x, v);
	else
		ke(kb, "\tfma.rn.f32 $r, $r, $r, $r;\n", v, c->beta, x, v);
}

kreg gemm_c_value(struct kb *kb, const struct gemm_c *c, kreg p, kreg addr, unsigned off)
{
	mmagen_type t = c->out;
	if (t == MMAGEN_S32) {
		kreg x = kb_reg(kb, K_B32);
		ke(kb, "\tmov.b32 $r, 0;\n\t@$r ld.global.b32 $r, [$r+$u];\n", x, p, x, addr, off);
		return x;
	}
	kreg x = kb_reg(kb, K_F32);
	ke(kb, "\tmov.f32 $r, 0f00000000;\n", x);
	if (t == MMAGEN_F32) {
		ke(kb, "\t@$r ld.global.f32 $r, [$r+$u];\n", p, x, addr, off);
	} else if (mmagen_type_class(t) & TYPE_FP8) {
		/* FP8 -> f16 (exact) -> f32 */
		kreg h = kb_reg(kb, K_B16), w = kb_reg(kb, K_B32), lo = kb_reg(kb, K_B16),
		     hi = kb_reg(kb, K_B16);
		ke(kb, "\tmov.b16 $r, 0;\n\t@$r ld.global.b8 $r, [$r+$u];\n"
		       "\tcvt.rn.f16x2.$s $r, $r;\n\tmov.b32 {$r, $r}, $r;\n\tcvt.f32.f16 $r, $r;\n",
		   h, p, h, addr, off, t == MMAGEN_E4M3 ? "e4m3x2" : "e5m2x2", w, h, lo, hi, w, x,
		   lo);
	} else if (t == MMAGEN_BF16 && !c->cvt_bf16) {
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
