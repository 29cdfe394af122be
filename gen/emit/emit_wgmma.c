/* emit_wgmma.c - wgmma.mma_async{.sp}: opcode text and operands.
 *
 * wgmma.mma_async{.sp}.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
 *   {.bitop.popc}  d, a-desc|{a}, b-desc, {sp-meta, sp-sel,} scale-d
 *   {, imm-scale-a, imm-scale-b}{, imm-trans-a}{, imm-trans-b}
 * Floating types take the negation immediates; only f16/bf16 take the
 * transpose immediates (imm-trans-a only when A is in shared memory). */
#include "emit.h"

static void wgmma_opcode(const mmagen_form *f, struct buf *b)
{
	buf_puts(b, "wgmma.mma_async");
	emit_qual(b, MMAGEN_Q_SPARSE, f->sparse);
	emitf(b, ".sync.aligned.m$un$uk$u", f->m, f->n, f->k);
	emit_qual(b, MMAGEN_Q_SATFINITE, f->satfinite);
	emitf(b, ".$t.$t.$t", f->d, f->a, f->b);
	emit_qual(b, MMAGEN_Q_BITOP, f->bitop);
}

static void wgmma_operands(const mmagen_form *f, struct instr *in)
{
	/* 128 threads share the 64xN accumulator and the 64xK A tile. */
	unsigned ecd = 64u * f->n / 128u;
	unsigned ka = f->sparse ? f->k / 2u : f->k;
	int isfloat = mmagen_type_is_float((mmagen_type)f->a);
	int trans = f->a == MMAGEN_F16 || f->a == MMAGEN_BF16;

	instr_add(in, "d", OP_VEC, (int)frag_regs(ecd, mmagen_type_bits(f->d), f->d),
		  reg_type_of(f->d), DIR_INOUT);
	if (f->asrc == MMAGEN_ASRC_REG)
		instr_add(in, "a", OP_VEC,
			  (int)frag_regs(64u * ka / 128u, mmagen_type_bits(f->a), f->a),
			  R_B32, DIR_IN);
	else
		instr_add(in, "da", OP_REG, 1, R_B64, DIR_IN);
	instr_add(in, "db", OP_REG, 1, R_B64, DIR_IN);
	if (f->sparse) {
		instr_add(in, "e", OP_REG, 1, R_B32, DIR_IN);
		instr_add_imm(in, "sel", 0);
	}
	instr_add(in, "sd", OP_REG, 1, R_PRED, DIR_IN);
	if (isfloat) {
		instr_add_imm(in, "nega", 1);
		instr_add_imm(in, "negb", 1);
	}
	if (trans) {
		if (f->asrc != MMAGEN_ASRC_REG)
			instr_add_imm(in, "transa", 0);
		instr_add_imm(in, "transb", 0);
	}
	in->pre[0] = "wgmma.fence.sync.aligned;";
	in->post[0] = "wgmma.commit_group.sync.aligned;";
	in->post[1] = "wgmma.wait_group.sync.aligned 0;";
}

static void wgmma_shape(const mmagen_form *f, struct buf *b)
{
	emitf(b, "m$un$uk$u", f->m, f->n, f->k);
}

const struct family_emitter mmagen_emit_wgmma = {
	wgmma_opcode, wgmma_operands, wgmma_shape,
};
