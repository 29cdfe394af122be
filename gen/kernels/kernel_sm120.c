/* kernel_sm120.c - one-tile kernels for block-scaled mma.sync (sm_120a):
 * kinds mxf8f6f4, mxf4 and mxf4nvf4, dense and .sp::ordered_metadata
 * (templates/sm120_tile.ptx.in).
 *
 * The same design as kernel_mma.c: a warp loads every fragment element
 * through a .const table [lane][reg][elem] -> row-major index, built from
 * the fragment layouts (layout.c), runs one instruction and stores D.  The
 * block scales come the same way: table [lane][byte] -> index into SA
 * (M x S) or SB (S x N), or FRAG_NONE for the bytes and lanes the
 * instruction does not read (they stay 0), built from mmagen_scale_pos
 * (formats.c) for the selectors the instruction carries.
 *
 * Memory format (row-major, packed little-endian as in kernel_mma.c):
 * A and B in their register containers -- 8 bits for kind::mxf8f6f4 (FP6 in
 * bits 0..5, e2m1 in bits 2..5), 4 bits for mxf4/mxf4nvf4; C and D f32;
 * sparse A is the compressed M x K/2 with E one metadata u32 per lane; SA
 * and SB one scale byte each (ue8m0 or ue4m3).  S = mmagen_scale_vec(f).
 */
#include "kernel.h"

#include <assert.h>
#include <string.h>

static const char *const names[] = { "A", "B", "C", "D" };
static const char *const tables[] = { "mmagen_ta", "mmagen_tb", "mmagen_tc", "mmagen_td" };
static const char *const operands[] = { "a", "b", "c", "d" };

static mmagen_status sm120_info(const mmagen_form *f, const mmagen_tile_opts *o,
				mmagen_tile_info *ti)
{
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
	if ((s = frag_info_all(f, fr)))
		return s;
	tile_info_init(ti, f, 32);
	/* memory width: A and B in their register containers, C and D f32 */
	const uint8_t types[] = { f->a, f->b, f->c, f->d };
	for (int p = 0; p < 4; p++) {
		unsigned bits = p < 2 ? fr[p].elem_bits : mmagen_type_bits(types[p]);
		tile_add_param(ti, names[p], fr[p].rows, fr[p].cols, bits, types[p], p == 3);
	}
	if (f->sparse)   /* one metadata register per lane */
		tile_add_param(ti, "E", 1, 32, 32, 0, 0);
	tile_add_param(ti, "SA", f->m, sv, 8, f->stype, 0);
	tile_add_param(ti, "SB", sv, f->n, 8, f->stype, 0);
	return MMAGEN_OK;
}

/* ---- scale tables ---- */

/* Scale table of A or B: tab[lane * 4 + byte] = row-major index into SA /
 * SB, or FRAG_NONE.  Fails if two scales would share a byte. */
static mmagen_status scale_table(const mmagen_form *f, int operand,
				 unsigned byte_id, unsigned thread_id, uint32_t tab[128])
{
	unsigned sv = mmagen_scale_vec(f);
	unsigned rows = operand == MMAGEN_OPND_A ? f->m : sv;
	unsigned cols = operand == MMAGEN_OPND_A ? sv : f->n;

	for (unsigned i = 0; i < 128; i++)
		tab[i] = FRAG_NONE;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned c = 0; c < cols; c++) {
			unsigned lane, byte;
			mmagen_status s = mmagen_scale_pos(f, operand, byte_id, thread_id,
							   r, c, &lane, &byte);
			if (s)
				return s;
			if (tab[lane * 4 + byte] != FRAG_NONE)
				return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"scale layout: two scales in lane %u byte %u", lane, byte);
			tab[lane * 4 + byte] = r * cols + c;
		}
	return MMAGEN_OK;
}

/* The scale table of A or B into the current slot, for the byte/thread
 * selectors ({byte-id, thread-id}) the instruction carries. */
static mmagen_status emit_scale_table(struct kb *kb, const mmagen_form *f, struct instr *in,
				      int operand, const char *sym)
{
	int is_a = operand == MMAGEN_OPND_A;
	const struct operand *id = tile_find_op(in, is_a ? "ida" : "idb");
	unsigned byte_id = id ? (unsigned)id->imm[0] : 0;
	unsigned thread_id = id ? (unsigned)id->imm[1] : 0;
	uint32_t tab[128];
	mmagen_status s;

	if ((s = scale_table(f, operand, byte_id, thread_id, tab)))
		return s;
	ke(kb, "// scale-$s-data: byte $u.., thread-id $u; $x = not read\n",
	   is_a ? "a" : "b", byte_id, thread_id, FRAG_NONE);
	frag_table_words(kb, sym, tab, 128);
	return MMAGEN_OK;
}

/* Every .const table into slot "tables": A, B, C, D, then the scales. */
static mmagen_status emit_tables(struct kb *kb, const mmagen_form *f, struct instr *in,
				 const mmagen_frag fr[4])
{
	mmagen_status s = MMAGEN_OK;

	kb_at(kb, "tables");
	for (int p = 0; p < 4 && !s; p++)
		s = frag_table_form(kb, tables[p], f, p, &fr[p]);
	if (!s)
		s = emit_scale_table(kb, f, in, MMAGEN_OPND_A, "mmagen_tsa");
	if (!s)
		s = emit_scale_table(kb, f, in, MMAGEN_OPND_B, "mmagen_tsb");
	return s;
}

/* ---- the kernel ---- */

/* The global address of parameter `name`: g as tile_entry_params filled it. */
/* The comment lines at the top (the shapes of the manifest's inputs) and
 * the module header. */
static void emit_banner(struct kb *kb, const mmagen_form *f, int t,
			const mmagen_tile_info *ti)
{
	static const char *const params[] = { "A", "B", "C", "SA", "SB" };
	static const char *const slots[] = { "a_shape", "b_shape", "c_shape", "sa_shape",
					     "sb_shape" };
	char op[256];

	kb_set(kb, "opcode", "$s", mmagen_form_opcode(f, op, sizeof op));
	for (int i = 0; i < 5; i++) {
		const mmagen_tile_param *p = tile_param(ti, params[i]);
		kb_set(kb, slots[i], "$ux$u", p->rows, p->cols);
	}
	kb_at(kb, "header");
	emit_header(kb_buf(kb), t, mmagen_form_min_ptx(f, t));
}

/* The scale registers: one byte per selected scale, packed from byte 0. */
static void emit_scale_loads(struct kb *kb, struct instr *in, const mmagen_tile_info *ti,
			     const kreg *g, kreg lane)
{
	static const char *const params[] = { "SA", "SB" };
	static const char *const syms[] = { "mmagen_tsa", "mmagen_tsb" };
	static const char *const ops[] = { "sa", "sb" };

	kb_at(kb, "scales");
	for (int i = 0; i < 2; i++) {
		struct frag_io io = { syms[i], 1, 4, 8, tile_param_reg(ti, g, params[i]), lane,
				      { 0, 0, 0 } };
		ke(kb, "\t// $s\n", ops[i]);
		frag_load_holes(kb, &io, tile_find_op(in, ops[i])->reg);
	}
}

/* A, B and C into their fragment registers (slot "load"), and the
 * template's sparse branch: E, one metadata register per lane. */
static void emit_loads(struct kb *kb, const mmagen_form *f, struct instr *in,
		       const mmagen_tile_info *ti, const mmagen_frag fr[4], const kreg *g,
		       kreg lane)
{
	kb_flag(kb, "sparse", f->sparse);
	if (f->sparse) {
		kb_slot_reg(kb, "x", K_B64);
		kb_set(kb, "ge", "$r", tile_param_reg(ti, g, "E"));
		kb_set(kb, "e", "$r", tile_find_op(in, "e")->reg);
	}
	kb_at(kb, "load");
	for (int p = 0; p < 3; p++) {
		struct frag_io io = { tables[p], fr[p].regs, fr[p].elems,
				      tile_param(ti, names[p])->elem_bits,
				      tile_param_reg(ti, g, names[p]), lane, { 0, 0, 0 } };
		ke(kb, "\t// $s\n", operands[p]);
		frag_load(kb, &io, tile_find_op(in, operands[p])->reg);
	}
}

/* D back to memory (slot "store"): every lane holds its own part of D, so
 * no lane is masked. */
static void emit_store(struct kb *kb, struct instr *in, const mmagen_tile_info *ti,
		       const mmagen_frag *fd, const kreg *g, kreg lane)
{
	struct frag_io io = { tables[3], fd->regs, fd->elems, tile_param(ti, "D")->elem_bits,
			      tile_param_reg(ti, g, "D"), lane, { 0, 0, 0 } };
	const kreg all = { 0, 0, 0 };

	kb_at(kb, "store");
	ke(kb, "\t// D\n");
	frag_store(kb, &io, tile_find_op(in, "d")->reg, all);
}

static mmagen_status sm120_emit(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				const mmagen_tile_info *ti, struct buf *out)
{
	mmagen_frag fr[4];
	struct instr in;
	struct kb kb;
	kreg g[ARRAY_SIZE(ti->params)];
	mmagen_status s;

	(void)o;
	if ((s = frag_info_all(f, fr)))
		return s;
	kb_init(&kb, "sm120_tile");
	instr_of(f, &in);
	kb_bind(&kb, &in);
	emit_banner(&kb, f, t, ti);
	if ((s = emit_tables(&kb, f, &in, fr))) {
		kb_free(&kb);
		return s;
	}
	kb_at(&kb, "pointers");
	tile_entry_params(&kb, ti, g);
	kreg lane = kb_slot_reg(&kb, "lane", K_B32);
	emit_loads(&kb, f, &in, ti, fr, g, lane);
	emit_scale_loads(&kb, &in, ti, g, lane);
	kb_at(&kb, "mma");
	emit_instruction(kb_buf(&kb), f, &in);
	emit_store(&kb, &in, ti, &fr[3], g, lane);
	return kb_render(&kb, out);
}

const struct tile_gen tile_gen_sm120 = {
	.info = sm120_info,
	.emit = sm120_emit,
	.meta_layout = "metadata register per lane (32)",
};
