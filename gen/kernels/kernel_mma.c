/* kernel_mma.c - one-tile kernels for mma.sync and mma.sp
 * (templates/mma_tile.ptx.in): a warp loads A, B, C from global memory into
 * the fragment registers of the form, runs it once, stores D.
 *
 * Loads go through per-operand index tables (frag.h) taken from the
 * fragment layout (layout.c), so the kernel is the same code for every
 * layout, m8n8k4's quad-pairs included; speed does not matter here,
 * correctness and coverage do.  16-bit A and B of m16n8 forms go through
 * shared memory and ldmatrix, with the first seed article's per-lane
 * addressing (mmagen_ldmatrix_lane_addr).  Block-scaled forms (SM120) have
 * their own generator, kernel_sm120.c. */
#include "kernel.h"

#include <string.h>

static const char *const names[] = { "A", "B", "C", "D" };
static const char *const tables[] = { "mmagen_ta", "mmagen_tb", "mmagen_tc", "mmagen_td" };
static const char *const operands[] = { "a", "b", "c", "d" };

static int use_ldmatrix(const mmagen_form *f, const mmagen_frag *fa)
{
	return fa->threads == 32 && f->m == 16 && f->n == 8 &&
	       mmagen_type_bits((mmagen_type)f->a) == 16 &&
	       mmagen_type_bits((mmagen_type)f->b) == 16;
}

static mmagen_status mma_info(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti)
{
	mmagen_frag fr[4];
	mmagen_status s;

	if (f->block_scale)
		return tile_gen_sm120.info(f, o, ti);
	if ((s = frag_info_all(f, fr)))
		return s;
	tile_info_init(ti, f, 32);
	/* memory width: A and B in their register containers, C and D in
	 * their own types */
	const unsigned bits[4] = { fr[0].elem_bits, fr[1].elem_bits,
				   mmagen_type_bits((mmagen_type)f->c),
				   mmagen_type_bits((mmagen_type)f->d) };
	const uint8_t types[] = { f->a, f->b, f->c, f->d };
	for (int p = 0; p < 4; p++)
		tile_add_param(ti, names[p], fr[p].rows, fr[p].cols, bits[p], types[p], p == 3);
	if (use_ldmatrix(f, &fr[0]))
		ti->static_smem = (unsigned)(tile_param(ti, "A")->bytes + tile_param(ti, "B")->bytes);
	if (f->sparse)   /* one metadata register per lane */
		tile_add_param(ti, "E", 1, 32, 32, 0, 0);
	return MMAGEN_OK;
}

/* Copy a rows x cols 16-bit tile from global g to shared `sym` (every lane
 * moves 4-byte words), then ldmatrix it into `dst` (.x<dst.n>). */
static void emit_ldmatrix(struct kb *kb, kreg dst, unsigned rows, unsigned cols, kreg g,
			  kreg lane, const char *sym, int trans)
{
	unsigned words = rows * cols * 2 / 4, num = dst.n;
	kreg w = kb_reg(kb, K_B32), v = kb_reg(kb, K_B32), sa = kb_reg(kb, K_B32);
	kreg x = kb_reg(kb, K_B64), p = kb_reg(kb, K_PRED);
	kreg j = kb_reg(kb, K_B32), r = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);

	ke(kb, "\t// $s through shared memory and ldmatrix\n", trans ? "B" : "A");
	for (unsigned base = 0; base < words; base += 32)
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $u;\n"
		       "\tmul.wide.u32 $r, $r, 4;\n\tadd.u64 $r, $r, $r;\n"
		       "\t@$r ld.global.b32 $r, [$r];\n\tmov.u32 $r, $s;\n"
		       "\tmad.lo.u32 $r, $r, 4, $r;\n\t@$r st.shared.b32 [$r], $r;\n",
		   w, lane, base, p, w, words, x, w, x, g, x, p, v, x, sa, sym, sa, w, sa, p, sa, v);
	ke(kb, "\tbar.warp.sync -1;\n");
	/* the per-lane address of mmagen_ldmatrix_lane_addr, in PTX: matrix
	 * j = (lane/8) % num, row r = lane % 8 */
	ke(kb, "\tshr.u32 $r, $r, 3;\n\trem.u32 $r, $r, $u;\n\tand.b32 $r, $r, 7;\n",
	   j, lane, j, j, num, r, lane);
	if (trans)      /* B: matrix j = K rows 8j..8j+7 */
		ke(kb, "\tmad.lo.u32 $r, $r, 8, $r;\n\tmul.lo.u32 $r, $r, $u;\n",
		   r, j, r, r, r, cols * 2);
	else            /* A: row half (j%2) fastest, then column block j/2 */
		ke(kb, "\tand.b32 $r, $r, 1;\n\tmad.lo.u32 $r, $r, 8, $r;\n"
		       "\tmul.lo.u32 $r, $r, $u;\n\tshr.u32 $r, $r, 1;\n"
		       "\tmad.lo.u32 $r, $r, 16, $r;\n",
		   t, j, r, t, r, r, r, cols * 2, t, j, r, t, r);
	ke(kb, "\tmov.u32 $r, $s;\n\tadd.u32 $r, $r, $r;\n"
	       "\tldmatrix.sync.aligned.m8n8.x$u$s.shared.b16 $v, [$r];\n",
	   t, sym, r, r, t, num, trans ? ".trans" : "", dst, r);
}

static mmagen_status mma_emit(const mmagen_form *f, int t, const mmagen_tile_opts *o,
			      const mmagen_tile_info *ti, struct buf *out)
{
	mmagen_frag fr[4];
	struct instr in;
	struct kb kb;
	kreg g[MMAGEN_TILE_MAX_PARAMS];
	char op[256];
	mmagen_status s;

	if (f->block_scale)
		return tile_gen_sm120.emit(f, t, o, ti, out);
	if ((s = frag_info_all(f, fr)))
		return s;
	int ldm = use_ldmatrix(f, &fr[0]), quad = fr[0].threads == 8;
	kb_init(&kb, "mma_tile");
	instr_of(f, &in);
	kb_bind(&kb, &in);
	kb_set(&kb, "opcode", "$s", mmagen_form_opcode(f, op, sizeof op));
	const mmagen_tile_param *pa = tile_param(ti, "A"), *pb = tile_param(ti, "B"),
				*pc = tile_param(ti, "C");
	kb_set(&kb, "a_shape", "$ux$u", pa->rows, pa->cols);
	kb_set(&kb, "b_shape", "$ux$u", pb->rows, pb->cols);
	kb_set(&kb, "c_shape", "$ux$u", pc->rows, pc->cols);
	kb_at(&kb, "header");
	emit_header(kb_buf(&kb), t, mmagen_form_min_ptx(f, t));
	kb_at(&kb, "tables");
	for (int p = 0; p < 4 && !s; p++)
		s = frag_table_form(&kb, tables[p], f, p, &fr[p]);
	if (s) {
		kb_free(&kb);
		return s;
	}
	kb_flag(&kb, "ldmatrix", ldm);
	kb_set(&kb, "sa_bytes", "$u", (unsigned)pa->bytes);
	kb_set(&kb, "sb_bytes", "$u", (unsigned)pb->bytes);
	kb_at(&kb, "pointers");
	tile_entry_params(&kb, ti, g);
	kreg lane = kb_slot_reg(&kb, "lane", K_B32), row = kb_slot_reg(&kb, "row", K_B32);
	kreg store_d = kb_slot_reg(&kb, "store_d", K_PRED);
	kb_flag(&kb, "quad_pair", quad);
	if (quad) {
		kb_slot_reg(&kb, "t", K_B32);
		kb_slot_reg(&kb, "u", K_B32);
	}
	kb_flag(&kb, "sparse", f->sparse);
	if (f->sparse) {
		kb_slot_reg(&kb, "x", K_B64);
		kb_set(&kb, "ge", "$r", tile_param_reg(ti, g, "E"));
		kb_set(&kb, "e", "$r", tile_find_op(&in, "e")->reg);
	}
	kb_at(&kb, "load");
	for (int p = 0; p < 3; p++) {
		const mmagen_tile_param *tp = tile_param(ti, names[p]);
		struct frag_io io = { tables[p], fr[p].regs, fr[p].elems, tp->elem_bits,
				      tile_param_reg(ti, g, names[p]), row, { 0, 0, 0 } };
		kreg dst = tile_find_op(&in, operands[p])->reg;
		if (ldm && p < 2)
			emit_ldmatrix(&kb, dst, tp->rows, tp->cols, io.g,
				      lane, p ? "mmagen_sb" : "mmagen_sa", p == 1);
		else
			frag_load(&kb, &io, dst);
	}
	kb_at(&kb, "mma");
	emit_instruction(kb_buf(&kb), f, &in);
	kb_at(&kb, "store");
	const mmagen_tile_param *td = tile_param(ti, "D");
	struct frag_io io = { tables[3], fr[3].regs, fr[3].elems, td->elem_bits,
			      tile_param_reg(ti, g, "D"), row, { 0, 0, 0 } };
	frag_store(&kb, &io, tile_find_op(&in, "d")->reg, store_d);
	return kb_render(&kb, out);
}

const struct tile_gen tile_gen_mma = {
	.info = mma_info,
	.emit = mma_emit,
	.meta_layout = "metadata register per lane (32)",
};
