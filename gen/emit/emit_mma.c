/* emit_mma.c - mma.sync and mma.sp: opcode text and operand shapes. */
#include "emit.h"

#include <assert.h>

/* Qualifier order follows the PTX ISA syntax:
 * mma{.sp|.sp::ordered_metadata}.sync.aligned.shape.alayout.blayout
 *   {.kind::K}{.block_scale}{.scale_vec::NX}{.rnd}{.satfinite}
 *   .dtype.atype.btype.ctype{.stype}{.bitop.popc} */
static void mma_opcode(const mmagen_form *f, struct buf *b)
{
	buf_puts(b, "mma");
	emit_qual(b, MMAGEN_Q_SPARSE, f->sparse);
	emitf(b, ".sync.aligned.m$un$uk$u", f->m, f->n, f->k);
	emit_qual(b, MMAGEN_Q_LAYOUT, f->alayout);
	emit_qual(b, MMAGEN_Q_LAYOUT, f->blayout);
	emit_qual(b, MMAGEN_Q_KIND, f->kind);
	emit_qual(b, MMAGEN_Q_BLOCK_SCALE, f->block_scale);
	emit_qual(b, MMAGEN_Q_SCALE_VEC, f->scale_vec);
	emit_qual(b, MMAGEN_Q_RND, f->rnd);
	emit_qual(b, MMAGEN_Q_SATFINITE, f->satfinite);
	emitf(b, ".$t.$t.$t.$t", f->d, f->a, f->b, f->c);
	emit_qual(b, MMAGEN_Q_STYPE, f->stype);
	emit_qual(b, MMAGEN_Q_BITOP, f->bitop);
}

/* Registers of one fragment: the layout's count (layout.c), so that the
 * operand list and the fragment maps cannot disagree. */
static int frag_count(const mmagen_form *f, int operand)
{
	mmagen_frag fr;
	mmagen_status s = mmagen_frag_info(f, operand, &fr);

	assert(s == MMAGEN_OK && "mma form without fragment geometry");
	(void)s;
	return (int)fr.regs;
}

static void mma_operands(const mmagen_form *f, struct instr *in)
{
	instr_add(in, "d", OP_VEC, frag_count(f, MMAGEN_OPND_D),
		  reg_type_of(f->d), DIR_OUT);
	instr_add(in, "a", OP_VEC, frag_count(f, MMAGEN_OPND_A),
		  reg_type_of(f->a), DIR_IN);
	instr_add(in, "b", OP_VEC, frag_count(f, MMAGEN_OPND_B),
		  reg_type_of(f->b), DIR_IN);
	instr_add(in, "c", OP_VEC, frag_count(f, MMAGEN_OPND_C),
		  reg_type_of(f->c), DIR_IN);
	if (f->sparse) {
		instr_add(in, "e", OP_REG, 1, R_B32, DIR_IN);
		instr_add_imm(in, "f", 0);
	}
	if (f->block_scale) {
		instr_add(in, "sa", OP_REG, 1, R_B32, DIR_IN);
		instr_add_immvec(in, "ida", 0, 0);
		instr_add(in, "sb", OP_REG, 1, R_B32, DIR_IN);
		instr_add_immvec(in, "idb", 0, 0);
	}
}

static void mma_shape(const mmagen_form *f, struct buf *b)
{
	emitf(b, "m$un$uk$u", f->m, f->n, f->k);
}

const struct family_emitter mmagen_emit_mma = {
	mma_opcode, mma_operands, mma_shape,
};
