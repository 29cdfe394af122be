/* operand.c - the operand model: the list a family emitter fills for a
 * form (struct instr), register types, and the list as PTX operands. */
#include "emit.h"

#include <assert.h>
#include <string.h>

void instr_add(struct instr *in, const char *name, int kind, int count,
	       int rtype, int dir)
{
	/* every family has a fixed, small operand list: more is a bug */
	assert(in->nops < MAX_OPS && "instr_add: more operands than MAX_OPS");
	if (in->nops >= MAX_OPS)        /* NDEBUG: still never past op[] */
		return;
	struct operand *o = &in->op[in->nops++];
	memset(o, 0, sizeof *o);
	o->name = name;
	o->kind = (uint8_t)kind;
	/* count is 8 bits: a shape too large for any real form must not
	 * wrap to an empty "{}" (a syntax error that stops ptxas) */
	o->count = (uint8_t)(count > 255 ? 255 : count);
	o->rtype = (uint8_t)rtype;
	o->dir = (uint8_t)dir;
}

void instr_add_imm(struct instr *in, const char *name, int32_t v)
{
	instr_add(in, name, OP_IMM, 0, R_B32, DIR_IN);
	in->op[in->nops - 1].imm[0] = v;
}

void instr_add_immvec(struct instr *in, const char *name, int32_t a, int32_t b)
{
	instr_add(in, name, OP_IMMVEC, 2, R_B16, DIR_IN);
	in->op[in->nops - 1].imm[0] = a;
	in->op[in->nops - 1].imm[1] = b;
}

int reg_type_of(mmagen_type t)
{
	if (t == MMAGEN_F64)
		return R_F64;
	if (t == MMAGEN_F32)
		return R_F32;
	return R_B32;
}

const char *const reg_ptx[] = {
	[R_B32] = "b32", [R_F32] = "f32", [R_F64] = "f64",
	[R_B64] = "b64", [R_B16] = "b16", [R_PRED] = "pred",
};
/* predicates travel through memory as 32-bit words */
const unsigned reg_bytes[] = {
	[R_B32] = 4, [R_F32] = 4, [R_F64] = 8, [R_B64] = 8, [R_B16] = 2,
	[R_PRED] = 4,
};

void emit_operands(struct buf *b, const struct instr *in)
{
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (i)
			buf_puts(b, ", ");
		if (o->reg.n && o->kind != OP_IMM && o->kind != OP_IMMVEC) {
			/* bound by a kernel builder (kb_bind) */
			emitf(b, o->kind == OP_VEC ? "$v" : o->kind == OP_ADDR ? "[$r]" : "$r",
			      o->reg);
			continue;
		}
		switch (o->kind) {
		case OP_VEC:
			buf_puts(b, "{");
			for (int r = 0; r < o->count; r++)
				emitf(b, "$s%r$s$d", r ? ", " : "", o->name, r);
			buf_puts(b, "}");
			break;
		case OP_REG:
			emitf(b, "%r$s", o->name);
			break;
		case OP_ADDR:
			emitf(b, "[%r$s]", o->name);
			break;
		case OP_IMM:
			emitf(b, "$d", o->imm[0]);
			break;
		case OP_IMMVEC:
			emitf(b, "{$d, $d}", o->imm[0], o->imm[1]);
			break;
		}
	}
}
