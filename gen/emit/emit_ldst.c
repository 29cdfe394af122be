/* emit_ldst.c - ldmatrix and stmatrix: opcode text and operands.
 * ldmatrix.sync.aligned.shape.num{.trans}.shared.type  d, [p];
 * stmatrix.sync.aligned.shape.num{.trans}.shared.type  [p], d; */
#include "emit.h"

static void ldst_opcode(const char *op, const mmagen_form *f, struct buf *b)
{
	emitf(b, "$s.sync.aligned.m$un$u", op, f->m, f->n);
	emit_qual(b, MMAGEN_Q_NUM, f->num);
	emit_qual(b, MMAGEN_Q_TRANS, f->trans);
	buf_puts(b, ".shared");
	emit_qual(b, MMAGEN_Q_LDTYPE, f->ldtype);
}

static void ld_opcode(const mmagen_form *f, struct buf *b)
{
	ldst_opcode("ldmatrix", f, b);
}

static void st_opcode(const mmagen_form *f, struct buf *b)
{
	ldst_opcode("stmatrix", f, b);
}

/* A 16x16 matrix of 8-bit elements fills two registers per lane; the 8x8
 * and 8x16 shapes fill one. */
static int ldst_regs(const mmagen_form *f)
{
	return f->num * (f->m == 16 && f->n == 16 ? 2 : 1);
}

static void ld_operands(const mmagen_form *f, struct instr *in)
{
	instr_add(in, "d", OP_VEC, ldst_regs(f), R_B32, DIR_OUT);
	instr_add(in, "p", OP_ADDR, 1, R_B64, DIR_IN);
}

static void st_operands(const mmagen_form *f, struct instr *in)
{
	instr_add(in, "p", OP_ADDR, 1, R_B64, DIR_IN);
	instr_add(in, "d", OP_VEC, ldst_regs(f), R_B32, DIR_IN);
}

static void ldst_shape(const mmagen_form *f, struct buf *b)
{
	emitf(b, "m$un$u", f->m, f->n);
}

const struct family_emitter mmagen_emit_ldmatrix = {
	ld_opcode, ld_operands, ldst_shape,
};
const struct family_emitter mmagen_emit_stmatrix = {
	st_opcode, st_operands, ldst_shape,
};
