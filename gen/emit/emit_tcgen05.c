/* emit_tcgen05.c - tcgen05.mma: opcode text and operands.
 *
 * tcgen05.mma{.sp}{.ws}.cta_group::N.kind::K{.ashift}{.block_scale}{.scale_vec::NX}
 *   [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],} idesc,
 *   {[scale-A-tmem], [scale-B-tmem],} enable-input-d
 * M and N live in the instruction descriptor (idesc), not in the opcode;
 * the element types too, so the table's types are idesc facts. */
#include "emit.h"

static void tc_opcode(const mmagen_form *f, struct buf *b)
{
	buf_puts(b, "tcgen05.mma");
	emit_qual(b, MMAGEN_Q_WS, f->ws);
	emit_qual(b, MMAGEN_Q_SPARSE, f->sparse);
	emit_qual(b, MMAGEN_Q_CTA_GROUP, f->cta_group);
	emit_qual(b, MMAGEN_Q_KIND, f->kind);
	emit_qual(b, MMAGEN_Q_ASHIFT, f->ashift);
	emit_qual(b, MMAGEN_Q_BLOCK_SCALE, f->block_scale);
	emit_qual(b, MMAGEN_Q_SCALE_VEC, f->scale_vec);
}

static void tc_operands(const mmagen_form *f, struct instr *in)
{
	instr_add(in, "dt", OP_ADDR, 1, R_B32, DIR_IN);
	if (f->asrc == MMAGEN_ASRC_TMEM)
		instr_add(in, "at", OP_ADDR, 1, R_B32, DIR_IN);
	else
		instr_add(in, "da", OP_REG, 1, R_B64, DIR_IN);
	instr_add(in, "db", OP_REG, 1, R_B64, DIR_IN);
	if (f->sparse)
		instr_add(in, "mt", OP_ADDR, 1, R_B32, DIR_IN);
	instr_add(in, "id", OP_REG, 1, R_B32, DIR_IN);
	if (f->block_scale) {
		instr_add(in, "sat", OP_ADDR, 1, R_B32, DIR_IN);
		instr_add(in, "sbt", OP_ADDR, 1, R_B32, DIR_IN);
	}
	instr_add(in, "en", OP_REG, 1, R_PRED, DIR_IN);
}

static void tc_shape(const mmagen_form *f, struct buf *b)
{
	emitf(b, "k$u", f->k);
}

const struct family_emitter mmagen_emit_tcgen05 = {
	tc_opcode, tc_operands, tc_shape,
};
