/* kernel_sm120.c - one-tile kernels for block-scaled mma.sync (sm_120a):
 * kinds mxf8f6f4, mxf4 and mxf4nvf4, dense and .sp::ordered_metadata.
 *
 * The same design as kernel_tile.c: a warp loads every fragment element
 * through a .const table [lane][reg][elem] -> row-major index, built from
 * the fragment layouts (layout.c), runs one instruction and stores D.  The
 * block scales come the same way: table [lane][byte] -> index into SA
 * (M x S) or SB (S x N), or NONE for the bytes and lanes the instruction
 * does not read (they stay 0), built from mmagen_scale_pos (formats.c) for
 * the selectors the instruction carries.
 *
 * Memory format (row-major, packed little-endian as in kernel_tile.c):
 * A and B in their register containers -- 8 bits for kind::mxf8f6f4 (FP6 in
 * bits 0..5, e2m1 in bits 2..5), 4 bits for mxf4/mxf4nvf4; C and D f32;
 * sparse A is the compressed M x K/2 with E one metadata u32 per lane; SA
 * and SB one scale byte each (ue8m0 or ue4m3).  S = mmagen_scale_vec(f).
 */
#include "kernel_legacy.h"

#include <string.h>

#define NONE 0xFFFFFFFFu

enum { P_A, P_B, P_C, P_D };

static mmagen_status tile_info_sm120(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti)
{
	static const char *const names[] = { "A", "B", "C", "D" };
	unsigned sv = mmagen_scale_vec(f);
	mmagen_frag fr[4];
	mmagen_status s;

	(void)o;
	if (!sv)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"sm120 tile kernels are for block-scaled mma.sync forms");
	/* A, B, C, D, E, SA, SB: the sparse forms need seven parameters */
	if (f->sparse && ARRAY_SIZE(ti->params) < 7)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"sparse block-scaled tiles need 7 kernel parameters; mmagen_tile_info holds %u",
			(unsigned)ARRAY_SIZE(ti->params));
	for (int p = 0; p < 4; p++)
		if ((s = mmagen_frag_info(f, p, &fr[p])))
			return s;
	memset(ti, 0, sizeof *ti);
	ti->kernel = "mmagen_tile";
	ti->block[0] = 32;
	ti->block[1] = ti->block[2] = 1;
	ti->grid[0] = ti->grid[1] = ti->grid[2] = 1;
	ti->m = f->m;
	ti->n = f->n;
	ti->k = f->k;
	const uint8_t types[] = { f->a, f->b, f->c, f->d };
	for (int p = 0; p < 4; p++) {
		unsigned bits = p < P_C ? fr[p].elem_bits : mmagen_type_bits(types[p]);
		tile_add_param(ti, names[p], fr[p].rows, fr[p].cols,
			  bits, types[p], p == P_D);
	}
	if (f->sparse)
		tile_add_param(ti, "E", 1, 32, 32, 0, 0);
	tile_add_param(ti, "SA", f->m, sv, 8, f->stype, 0);
	tile_add_param(ti, "SB", sv, f->n, 8, f->stype, 0);
	return MMAGEN_OK;
}

/* ---- tables ---- */

/* The byte/thread selectors the instruction carries for A or B. */
static void selectors(const struct instr *in, int operand, unsigned *byte_id,
		      unsigned *thread_id)
{
	const char *want = operand == MMAGEN_OPND_A ? "ida" : "idb";

	*byte_id = *thread_id = 0;
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, want)) {
			*byte_id = (unsigned)in->op[i].imm[0];
			*thread_id = (unsigned)in->op[i].imm[1];
		}
}

/* Scale table of A or B: tab[lane * 4 + byte] = row-major index into SA /
 * SB, or NONE.  Fails if two scales would share a byte. */
static mmagen_status scale_table(const mmagen_form *f, int operand,
				 unsigned byte_id, unsigned thread_id, uint32_t tab[128])
{
	unsigned sv = mmagen_scale_vec(f);
	unsigned rows = operand == MMAGEN_OPND_A ? f->m : sv;
	unsigned cols = operand == MMAGEN_OPND_A ? sv : f->n;

	for (unsigned i = 0; i < 128; i++)
		tab[i] = NONE;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned c = 0; c < cols; c++) {
			unsigned lane, byte;
			mmagen_status s = mmagen_scale_pos(f, operand, byte_id, thread_id,
							   r, c, &lane, &byte);
			if (s)
				return s;
			if (tab[lane * 4 + byte] != NONE)
				return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"scale layout: two scales in lane %u byte %u", lane, byte);
			tab[lane * 4 + byte] = r * cols + c;
		}
	return MMAGEN_OK;
}

static mmagen_status emit_scale_table(struct buf *b, const mmagen_form *f,
				      const struct instr *in, int operand,
				      const char *name)
{
	uint32_t tab[128];
	unsigned byte_id, thread_id;
	mmagen_status s;

	selectors(in, operand, &byte_id, &thread_id);
	if ((s = scale_table(f, operand, byte_id, thread_id, tab)))
		return s;
	emitf(b, "// scale-$s-data: byte $u.., thread-id $u; $x = not read\n",
	      operand == MMAGEN_OPND_A ? "a" : "b", byte_id, thread_id, NONE);
	emitf(b, ".const .align 4 .u32 $s[128] = {", name);
	for (unsigned i = 0; i < 128; i++)
		emitf(b, "$s$s$x", i ? "," : "", i % 8 ? " " : "\n\t", tab[i]);
	buf_puts(b, "\n};\n");
	return MMAGEN_OK;
}

/* ---- loads and stores ---- */

/* %tb = table + lane * stride */
static void table_row(struct buf *b, const char *tab, unsigned stride)
{
	emitf(b, "\tmul.lo.u32 %t0, %lane, $u;\n\tcvt.u64.u32 %x0, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x0;\n", stride, tab);
}

/* A scale register: byte j of lane l is scales[tab[l][j]], or 0 for NONE. */
static void emit_scale_load(struct buf *b, const char *reg, const char *tab,
			    const char *g)
{
	emitf(b, "\t// $s\n", reg);
	table_row(b, tab, 16);
	emitf(b, "\tmov.b32 %r$s, 0;\n", reg);
	for (unsigned j = 0; j < 4; j++) {
		emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tsetp.ne.u32 %pld, %t0, $x;\n"
			 "\tcvt.u64.u32 %x0, %t0;\n\tadd.u64 %x0, %$s, %x0;\n"
			 "\tmov.u16 %h0, 0;\n\t@%pld ld.global.u8 %h0, [%x0];\n"
			 "\tcvt.u32.u16 %t3, %h0;\n", j * 4, NONE, g);
		if (j)
			emitf(b, "\tshl.b32 %t3, %t3, $u;\n", j * 8);
		emitf(b, "\tor.b32 %r$s, %r$s, %t3;\n", reg, reg);
	}
}

/* ---- the kernel ---- */

/* "SA" -> "sa": the parameter (p<name>) and its address register (%g<name>). */
static const char *lower(const char *name, char out[4])
{
	int i = 0;

	for (; name[i] && i < 3; i++)
		out[i] = (char)(name[i] - 'A' + 'a');
	out[i] = 0;
	return out;
}

/* Entry parameters in manifest order, loaded and made global. */
static void emit_entry(struct buf *b, const mmagen_tile_info *ti)
{
	char n[4];

	buf_puts(b, "\n.visible .entry mmagen_tile(");
	for (unsigned p = 0; p < ti->nparams; p++)
		emitf(b, "$s\n\t.param .u64 p$s", p ? "," : "", lower(ti->params[p].name, n));
	buf_puts(b, ")\n{\n\t.reg .b64 %ga, %gb, %gc, %gd, %ge, %gsa, %gsb, %tb, %x0;\n"
		     "\t.reg .b32 %lane, %ql, %t<4>;\n\t.reg .b16 %h<2>;\n\t.reg .pred %pld, %pst;\n");
}

static void emit_params(struct buf *b, const mmagen_tile_info *ti)
{
	char n[4];

	for (unsigned p = 0; p < ti->nparams; p++) {
		lower(ti->params[p].name, n);
		emitf(b, "\tld.param.u64 %g$s, [p$s];\n\tcvta.to.global.u64 %g$s, %g$s;\n",
		      n, n, n, n);
	}
	buf_puts(b, "\tmov.u32 %lane, %tid.x;\n\tmov.u32 %ql, %lane;\n\tsetp.eq.u32 %pst, 0, 0;\n");
}

static mmagen_status tile_emit_sm120(const mmagen_form *f, int t,
			      const mmagen_tile_opts *o, struct buf *b)
{
	mmagen_tile_info ti;
	mmagen_frag fr[4];
	struct instr in;
	mmagen_status s;
	char op[256];

	if ((s = tile_info_sm120(f, o, &ti)))
		return s;
	for (int p = 0; p < 4; p++)
		if ((s = mmagen_frag_info(f, p, &fr[p])))
			return s;
	instr_of(f, &in);
	emitf(b, "//\n// Generated by mmagen: one-tile kernel for\n//   $s\n"
		 "// A $ux$u, B $ux$u, C/D $ux$u row-major; SA $ux$u, SB $ux$u; one warp.\n//\n",
	      mmagen_form_opcode(f, op, sizeof op), ti.params[P_A].rows, ti.params[P_A].cols,
	      ti.params[P_B].rows, ti.params[P_B].cols, ti.params[P_C].rows,
	      ti.params[P_C].cols, (unsigned)f->m, mmagen_scale_vec(f),
	      mmagen_scale_vec(f), (unsigned)f->n);
	emit_header(b, t, mmagen_form_min_ptx(f, t));
	buf_puts(b, "\n");
	if ((s = tile_emit_table(b, f, MMAGEN_OPND_A, &fr[P_A], "mmagen_ta")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_B, &fr[P_B], "mmagen_tb")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_C, &fr[P_C], "mmagen_tc")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_D, &fr[P_D], "mmagen_td")) ||
	    (s = emit_scale_table(b, f, &in, MMAGEN_OPND_A, "mmagen_tsa")) ||
	    (s = emit_scale_table(b, f, &in, MMAGEN_OPND_B, "mmagen_tsb")))
		return s;
	emit_entry(b, &ti);
	emit_regs(b, &in);
	emit_params(b, &ti);
	tile_emit_load(b, legacy_find_op(&in, "a"), &fr[P_A], ti.params[P_A].elem_bits, "mmagen_ta", "ga");
	tile_emit_load(b, legacy_find_op(&in, "b"), &fr[P_B], ti.params[P_B].elem_bits, "mmagen_tb", "gb");
	tile_emit_load(b, legacy_find_op(&in, "c"), &fr[P_C], ti.params[P_C].elem_bits, "mmagen_tc", "gc");
	if (f->sparse)
		buf_puts(b, "\t// E: this lane's metadata register\n"
			     "\tmul.wide.u32 %x0, %lane, 4;\n\tadd.u64 %x0, %ge, %x0;\n"
			     "\tld.global.b32 %re, [%x0];\n");
	emit_scale_load(b, "sa", "mmagen_tsa", "gsa");
	emit_scale_load(b, "sb", "mmagen_tsb", "gsb");
	emit_instruction(b, f, &in);
	tile_emit_store(b, legacy_find_op(&in, "d"), &fr[P_D], ti.params[P_D].elem_bits, "mmagen_td");
	buf_puts(b, "\tret;\n}\n");
	return MMAGEN_OK;
}

static mmagen_status emit_adapter(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				  const mmagen_tile_info *ti, struct buf *out)
{
	(void)ti;
	return tile_emit_sm120(f, t, o, out);
}

const struct tile_gen tile_gen_sm120 = {
	.info = tile_info_sm120,
	.emit = emit_adapter,
	.meta_layout = "metadata register per lane (32)",
};
