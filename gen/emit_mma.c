/* emit_mma.c - mma.sync and mma.sp: opcode text and operand shapes. */
#include "emit.h"

static const char *const kind_names[] = {
	"",
#define X(id, s) s,
	MMAGEN_KIND_LIST(X)
#undef X
};

static const char *layout(int l)
{
	return l == MMAGEN_ROW ? "row" : "col";
}

static const char *const rnd_names[] = { "", "rn", "rz", "rm", "rp" };

/* Qualifier order follows the PTX ISA syntax:
 * mma{.sp|.sp::ordered_metadata}.sync.aligned.shape.alayout.blayout
 *   {.kind::K}{.block_scale}{.scale_vec::NX}{.rnd}{.satfinite}
 *   .dtype.atype.btype.ctype{.stype}{.bitop.popc} */
static void mma_opcode(const mmagen_form *f, struct buf *b)
{
	buf_puts(b, "mma");
	if (f->sparse == MMAGEN_SPARSE_SP)
		buf_puts(b, ".sp");
	else if (f->sparse == MMAGEN_SPARSE_ORDERED)
		buf_puts(b, ".sp::ordered_metadata");
	emitf(b, ".sync.aligned.m$un$uk$u.$s.$s", f->m, f->n, f->k,
	      layout(f->alayout), layout(f->blayout));
	if (f->kind)
		emitf(b, ".kind::$s", kind_names[f->kind]);
	if (f->block_scale)
		buf_puts(b, ".block_scale");
	if (f->scale_vec >= 16)
		emitf(b, ".block$u", f->scale_vec);
	else if (f->scale_vec)
		emitf(b, ".scale_vec::$uX", f->scale_vec);
	if (f->rnd)
		emitf(b, ".$s", rnd_names[f->rnd]);
	if (f->satfinite)
		buf_puts(b, ".satfinite");
	emitf(b, ".$t.$t.$t.$t", f->d, f->a, f->b, f->c);
	if (f->stype)
		emitf(b, ".$t", f->stype);
	if (f->bitop)
		emitf(b, ".$s.popc", f->bitop == MMAGEN_XOR_POPC ? "xor" : "and");
}

/* Bits one element occupies in a register: kind::f8f6f4 and mxf8f6f4 pad
 * FP6/FP4 into 8-bit containers; mxf4/mxf4nvf4 pack e2m1 tightly. */
static unsigned container(const mmagen_form *f, mmagen_type t)
{
	if (f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4)
		return 8;
	return mmagen_type_bits(t);
}

static void mma_operands(const mmagen_form *f, struct instr *in)
{
	/* m8n8k4 with f16 runs as four independent 8-thread quad-pairs. */
	unsigned lanes = (f->m == 8 && f->k == 4 && f->a == MMAGEN_F16) ? 8 : 32;
	unsigned ka = f->sparse ? f->k / 2u : f->k;
	unsigned ea = (unsigned)f->m * ka / lanes;
	unsigned eb = (unsigned)f->k * f->n / lanes;
	unsigned ecd = (unsigned)f->m * f->n / lanes;

	instr_add(in, "d", OP_VEC, regs_for(ecd, mmagen_type_bits(f->d), f->d),
		  reg_type_of(f->d), DIR_OUT);
	instr_add(in, "a", OP_VEC, regs_for(ea, container(f, f->a), f->a),
		  reg_type_of(f->a), DIR_IN);
	instr_add(in, "b", OP_VEC, regs_for(eb, container(f, f->b), f->b),
		  reg_type_of(f->b), DIR_IN);
	instr_add(in, "c", OP_VEC, regs_for(ecd, mmagen_type_bits(f->c), f->c),
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
