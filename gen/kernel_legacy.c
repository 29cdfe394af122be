/* kernel_legacy.c - the register-naming helpers of the tile generators not
 * yet moved onto the kernel builder (kb.h); goes when they have moved. */
#include "kernel_legacy.h"

#include <string.h>

size_t tile_round8(size_t bits)
{
	size_t bytes = (bits + 7) / 8;
	return (bytes + 7) / 8 * 8;
}

mmagen_status tile_emit_table(struct buf *b, const mmagen_form *f, int o,
				const mmagen_frag *fr, const char *name)
{
	unsigned n = fr->threads * fr->regs * fr->elems;
	emitf(b, ".const .align 4 .u32 $s[$u] = {", name, n);
	for (unsigned l = 0; l < fr->threads; l++)
		for (unsigned r = 0; r < fr->regs; r++)
			for (unsigned e = 0; e < fr->elems; e++) {
				/* m8n8k4: table slot l is quad-pair 0's lane
				 * (0-3, then 16-19) */
				unsigned lane = fr->threads == 8 && l >= 4 ? l + 12 : l;
				unsigned row, col;
				mmagen_status s = mmagen_frag_map(f, o, lane, r, e, &row, &col);
				if (s)
					return s;
				unsigned i = (l * fr->regs + r) * fr->elems + e;
				emitf(b, "$s$s$u", i ? "," : "", i % 16 ? " " : "\n\t",
				      row * fr->cols + col);
			}
	buf_puts(b, "\n};\n");
	return MMAGEN_OK;
}

void tile_emit_load(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		      unsigned w, const char *tab, const char *g)
{
	unsigned stride = fr->regs * fr->elems * 4;
	emitf(b, "\t// $s\n\tmul.lo.u32 %t0, %ql, $u;\n\tcvt.u64.u32 %x0, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x0;\n", op->name, stride, tab);
	for (unsigned r = 0; r < fr->regs; r++) {
		if (fr->elems > 1)
			emitf(b, "\tmov.b32 %r$s$u, 0;\n", op->name, r);
		for (unsigned e = 0; e < fr->elems; e++) {
			unsigned slot = (r * fr->elems + e) * 4;
			emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tmul.lo.u32 %t1, %t0, $u;\n"
				 "\tshr.u32 %t2, %t1, 3;\n\tcvt.u64.u32 %x0, %t2;\n"
				 "\tadd.u64 %x0, %$s, %x0;\n", slot, w, g);
			if (fr->elems == 1) {
				emitf(b, "\tld.global.$s %r$s$u, [%x0];\n", reg_ptx[op->rtype],
				      op->name, r);
				continue;
			}
			if (w == 16)
				buf_puts(b, "\tld.global.u16 %h0, [%x0];\n\tcvt.u32.u16 %t3, %h0;\n");
			else
				buf_puts(b, "\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %t3, %h0;\n");
			if (w < 8)
				emitf(b, "\tand.b32 %t2, %t1, 7;\n\tshr.u32 %t3, %t3, %t2;\n"
					 "\tand.b32 %t3, %t3, $u;\n", (1u << w) - 1);
			if (e)
				emitf(b, "\tshl.b32 %t3, %t3, $u;\n", e * w);
			emitf(b, "\tor.b32 %r$s$u, %r$s$u, %t3;\n", op->name, r, op->name, r);
		}
	}
}

void tile_emit_store(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		       unsigned w, const char *tab)
{
	unsigned stride = fr->regs * fr->elems * 4;
	emitf(b, "\t// D\n\tmul.lo.u32 %t0, %ql, $u;\n\tcvt.u64.u32 %x0, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x0;\n", stride, tab);
	for (unsigned r = 0; r < fr->regs; r++)
		for (unsigned e = 0; e < fr->elems; e++) {
			unsigned slot = (r * fr->elems + e) * 4;
			emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tmul.wide.u32 %x0, %t0, $u;\n"
				 "\tadd.u64 %x0, %gd, %x0;\n", slot, w / 8);
			if (fr->elems == 1) {
				emitf(b, "\t@%pst st.global.$s [%x0], %r$s$u;\n",
				      reg_ptx[op->rtype], op->name, r);
				continue;
			}
			/* packed f16x2: element e is half e of the register */
			emitf(b, "\tmov.b32 {%h0, %h1}, %r$s$u;\n\t@%pst st.global.b16 [%x0], %h$u;\n",
			      op->name, r, e);
		}
}


const struct operand *legacy_find_op(const struct instr *in, const char *name)
{
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, name))
			return &in->op[i];
	return NULL;
}

