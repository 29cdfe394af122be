/* kernel_wgmma.c - one-tile kernels for wgmma.mma_async (sm_90a)
 * (templates/wgmma_tile.ptx.in).
 *
 * One warpgroup (128 threads).  A (64xK) and B (KxN) arrive row-major in
 * global memory; every thread copies bytes of them into shared memory in
 * the layout of the chosen swizzle and major-ness (smem.c): for each
 * destination byte it computes which row and byte it holds (the layout's
 * inverse, mmagen_smem_locate) and fetches that byte -- or, for b1's B,
 * gathers its 8 bits.  Then fence.proxy.async makes the copies visible to
 * the tensor cores, the descriptors are built from the shared addresses,
 * C is loaded into the accumulator registers (warp w owns rows
 * 16w..16w+15, laid out like an mma m16n8 accumulator per 8 columns),
 * wgmma runs between wgmma.fence and commit/wait, and D is stored
 * row-major.  A can instead come from registers: each warp then holds the
 * A fragment of the matching mma m16n8kK form for its 16 rows.  The
 * accumulator and A-register loads go through index tables (frag.h). */
#include "kernel.h"

#include <assert.h>
#include <string.h>

struct wg {
	mmagen_smem_layout la, lb;
	unsigned abits, bbits, cbits, dbits;
	unsigned acols;            /* A tile columns: K, or K/2 compressed */
	const mmagen_form *amma;   /* A-in-registers: the mma form whose
				    * fragment layout each warp uses */
	mmagen_frag afr;
};

/* The dense mma m16n8kK form whose A fragment each warp holds when A is
 * in registers (sparse: the compressed K/2 columns, laid out as dense). */
static const mmagen_form *mma_twin(const mmagen_form *f, unsigned k)
{
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *g = mmagen_form_at(i);
		if (g->family == MMAGEN_FAM_MMA && !g->sparse && g->m == 16 &&
		    g->n == 8 && g->k == k && g->a == f->a && !g->kind)
			return g;
	}
	return NULL;
}

static mmagen_status check_opts(const mmagen_form *f, const mmagen_tile_opts *o)
{
	if ((o->major_a || o->major_b) && f->a != MMAGEN_F16 && f->a != MMAGEN_BF16)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"MN-major operands (imm-trans) exist only for f16/bf16 wgmma; %s takes K-major A and B",
			mmagen_type_name((mmagen_type)f->a));
	if (o->major_a && f->asrc == MMAGEN_ASRC_REG)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"imm-trans-a applies to A in shared memory; A in registers has no major-ness");
	if ((o->neg_a || o->neg_b) && !mmagen_type_is_float((mmagen_type)f->a))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"only floating wgmma forms negate A or B (imm-scale-a/b); %s has no such operand",
			mmagen_type_name((mmagen_type)f->a));
	return MMAGEN_OK;
}

static mmagen_status plan(const mmagen_form *f, const mmagen_tile_opts *o, struct wg *w)
{
	mmagen_status s;

	memset(w, 0, sizeof *w);
	if ((s = check_opts(f, o)))
		return s;
	w->abits = mmagen_type_bits((mmagen_type)f->a);
	w->bbits = mmagen_type_bits((mmagen_type)f->b);
	w->cbits = mmagen_type_bits((mmagen_type)f->c);
	w->dbits = mmagen_type_bits((mmagen_type)f->d);
	w->acols = f->sparse ? f->k / 2u : f->k;
	s = o->major_a ? mmagen_smem_layout_mnmajor(w->acols, 64 * w->abits / 8, o->swizzle, &w->la) :
			 mmagen_smem_layout_kmajor(64, w->acols * w->abits / 8, o->swizzle, &w->la);
	if (s)
		return s;
	s = o->major_b ? mmagen_smem_layout_mnmajor(f->k, f->n * w->bbits / 8, o->swizzle, &w->lb) :
			 mmagen_smem_layout_kmajor(f->n, f->k * w->bbits / 8, o->swizzle, &w->lb);
	if (s || f->asrc != MMAGEN_ASRC_REG)
		return s;
	w->amma = mma_twin(f, w->acols);
	if (!w->amma)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"no mma m16n8k%u form with A %s to take the register layout from",
			f->k, mmagen_type_name((mmagen_type)f->a));
	return mmagen_frag_info(w->amma, MMAGEN_OPND_A, &w->afr);
}

static mmagen_status wgmma_info(const mmagen_form *f, const mmagen_tile_opts *o,
				mmagen_tile_info *ti)
{
	struct wg w;
	mmagen_status s = plan(f, o, &w);

	if (s)
		return s;
	tile_info_init(ti, f, 128);
	ti->static_smem = w.la.bytes + w.lb.bytes;
	tile_add_param(ti, "A", 64, w.acols, w.abits, f->a, 0);
	tile_add_param(ti, "B", f->k, f->n, w.bbits, f->b, 0);
	tile_add_param(ti, "C", 64, f->n, w.cbits, f->c, 0);
	tile_add_param(ti, "D", 64, f->n, w.dbits, f->d, 1);
	if (f->sparse)   /* one metadata register per thread */
		tile_add_param(ti, "E", 1, 128, 32, 0, 0);
	return MMAGEN_OK;
}

/* ---- copying A and B into shared memory ---- */

/* The swizzled part of mmagen_smem_locate: offset x inside 8-row group
 * grp, whose atom along the row is `atom`, -> (row, byte). */
static void locate_swizzled(struct kb *kb, const mmagen_smem_layout *l, kreg grp, kreg x,
			    kreg atom, kreg row, kreg byte)
{
	kreg t = kb_reg(kb, K_B32);
	/* the 16-byte chunk is XORed with the row in the group: undo it */
	ke(kb, "\tshr.u32 $r, $r, 7;\n\tand.b32 $r, $r, $u;\n\tshl.b32 $r, $r, 4;\n"
	       "\txor.b32 $r, $r, $r;\n",
	   t, x, t, t, l->swizzle / 16 - 1, t, t, x, x, t);
	ke(kb, "\tdiv.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, 8, $r;\n"
	       "\trem.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
	   row, x, l->swizzle, row, grp, row, byte, x, l->swizzle, byte, atom, l->swizzle,
	   byte);
}

/* PTX for mmagen_smem_locate: byte offset `off` of layout l holds byte
 * `byte` of row `row` (K-major: an M/N row and its K byte; MN-major: a K
 * row and its M/N byte). */
static void emit_locate(struct kb *kb, const mmagen_smem_layout *l, kreg off, kreg row,
			kreg byte)
{
	kreg grp = kb_reg(kb, K_B32), x = kb_reg(kb, K_B32), atom;
	/* 8-row groups are SBO apart (K-major) or LBO apart (MN-major) */
	unsigned group = l->mn_major ? l->lbo : l->sbo;

	if (!l->swizzle) {   /* 8x16-byte core matrices, 128 bytes each */
		ke(kb, "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n"
		       "\tand.b32 $r, $r, 127;\n\tshr.u32 $r, $r, 4;\n"
		       "\tmad.lo.u32 $r, $r, 8, $r;\n"
		       "\tshr.u32 $r, $r, 7;\n\tshl.b32 $r, $r, 4;\n"
		       "\tand.b32 $r, $r, 15;\n\tadd.u32 $r, $r, $r;\n",
		   grp, off, group, x, off, group, row, x, row, row, row, grp, row, byte, x,
		   byte, byte, x, x, byte, byte, x);
		return;
	}
	atom = kb_reg(kb, K_B32);
	if (l->mn_major)     /* groups of SBO, atoms of LBO inside */
		ke(kb, "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n"
		       "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n",
		   grp, off, l->sbo, x, off, l->sbo, atom, x, l->lbo, x, x, l->lbo);
	else if (l->kbytes > l->swizzle)   /* K wider than a swizzle row */
		ke(kb, "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n"
		       "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n",
		   atom, off, l->lbo, x, off, l->lbo, grp, x, l->sbo, x, x, l->sbo);
	else
		ke(kb, "\tmov.u32 $r, 0;\n\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n",
		   atom, grp, off, l->sbo, x, off, l->sbo);
	locate_swizzled(kb, l, grp, x, atom, row, byte);
}

/* v = the byte at global g + idx. */
static void load_byte(struct kb *kb, kreg g, kreg idx, kreg v)
{
	kreg a = kb_reg(kb, K_B64), h = kb_reg(kb, K_B16);
	ke(kb, "\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n"
	       "\tld.global.u8 $r, [$r];\n\tcvt.u32.u16 $r, $r;\n",
	   a, idx, a, g, a, h, a, v, h);
}

/* One operand's copy into shared memory. */
struct fill {
	const mmagen_smem_layout *l;
	const char *sym;       /* the shared array */
	int is_b;              /* B (row-major k x n), else A (row-major 64 x k) */
	unsigned bits, k, n;   /* element width, tile shape */
	kreg g;                /* the tile's global address */
};

/* b1's B: bit j of K-major byte `byte` of column `col` is element
 * k = 8*byte + j of that column in the row-major KxN tile. */
static void gather_bits(struct kb *kb, const struct fill *fl, kreg col, kreg byte, kreg v)
{
	kreg k = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	kreg a = kb_reg(kb, K_B64), h = kb_reg(kb, K_B16);

	for (unsigned j = 0; j < 8; j++)
		ke(kb, "\tmad.lo.u32 $r, $r, 8, $u;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
		       "\tshr.u32 $r, $r, 3;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n"
		       "\tld.global.u8 $r, [$r];\n\tcvt.u32.u16 $r, $r;\n"
		       "\tand.b32 $r, $r, 7;\n\tshr.u32 $r, $r, $r;\n\tand.b32 $r, $r, 1;\n"
		       "\tshl.b32 $r, $r, $u;\n\tor.b32 $r, $r, $r;\n",
		   k, byte, j, k, k, fl->n, col, t, k, a, t, a, fl->g, a, h, a, t, h, k, k, t,
		   t, k, t, t, t, t, j, v, v, t);
}

/* v = byte `byte` of row `row` of the operand's layout, from global
 * memory. */
static void gather(struct kb *kb, const struct fill *fl, kreg row, kreg byte, kreg v)
{
	unsigned eb = fl->bits / 8, k = fl->k, n = fl->n;

	if (fl->is_b && !fl->l->mn_major && fl->bits < 8) {
		gather_bits(kb, fl, row, byte, v);
		return;
	}
	kreg i = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	if (fl->l->mn_major && !fl->is_b)   /* 16-bit A: element (byte/2, row), byte%2 */
		ke(kb, "\tshr.u32 $r, $r, 1;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
		       "\tshl.b32 $r, $r, 1;\n\tand.b32 $r, $r, 1;\n\tadd.u32 $r, $r, $r;\n",
		   i, byte, i, i, k, row, i, i, t, byte, i, i, t);
	else if (fl->l->mn_major)           /* 16-bit B: K row `row` is a row of the tile */
		ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n", i, row, n * 2, byte);
	else if (!fl->is_b)                 /* A: byte `byte` of row `row` */
		ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n", i, row, k * fl->bits / 8, byte);
	else                                /* B: element byte/eb of column row, byte%eb */
		ke(kb, "\tdiv.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
		       "\tmul.lo.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n",
		   i, byte, eb, i, i, n, row, i, i, eb, t, byte, eb, i, i, t);
	load_byte(kb, fl->g, i, v);
}

/* Copy A (is_b = 0) or B into its shared layout: thread tid fills bytes
 * tid, tid+128, ...; bytes past the operand's row (padding of the swizzle
 * atom) are zero. */
static void emit_fill(struct kb *kb, const struct wg *w, const mmagen_form *f, int is_b,
		      kreg g, kreg tid)
{
	const struct fill fl = {
		is_b ? &w->lb : &w->la, is_b ? "mmagen_sb" : "mmagen_sa", is_b,
		is_b ? w->bbits : w->abits, is_b ? f->k : w->acols, f->n, g,
	};
	kreg row = kb_reg(kb, K_B32), byte = kb_reg(kb, K_B32), v = kb_reg(kb, K_B32);
	kreg skip = kb_label(kb), pad = kb_reg(kb, K_PRED);
	kreg sa = kb_reg(kb, K_B32), h = kb_reg(kb, K_B16);
	struct frag_loop loop;

	ke(kb, "\t// $s: copy into shared memory, $s-major, swizzle $u\n", is_b ? "fb" : "fa",
	   fl.l->mn_major ? "MN" : "K", fl.l->swizzle);
	/* every layout is whole 128-byte core matrices: all threads make
	 * the same number of trips */
	frag_loop_begin(kb, &loop, tid, fl.l->bytes, 128, 1);
	emit_locate(kb, fl.l, loop.i, row, byte);
	/* lanes of a warp can disagree here (padding bytes: 16-byte rows
	 * under a swizzle, as sparse A has): a plain bra */
	ke(kb, "\tmov.u32 $r, 0;\n\tsetp.ge.u32 $r, $r, $u;\n\t@$r bra $r;\n",
	   v, pad, byte, fl.l->kbytes, pad, skip);
	gather(kb, &fl, row, byte, v);
	ke(kb, "$r:\n\tmov.u32 $r, $s;\n\tadd.u32 $r, $r, $r;\n\tcvt.u16.u32 $r, $r;\n"
	       "\tst.shared.u8 [$r], $r;\n",
	   skip, sa, fl.sym, sa, sa, loop.i, h, v, sa, h);
	frag_loop_end(kb, &loop);
}

/* ---- fragments through index tables ---- */

/* The accumulator: N columns, `elems` elements per register. */
struct acc_shape {
	unsigned n, elems;
};

/* The accumulator table: lane, element e -> index in the warp's 16xN
 * slice (row*N + col), the m16n8 accumulator layout per 8 columns. */
static mmagen_status acc_index(const void *ctx, unsigned lane, unsigned reg, unsigned elem,
			       unsigned *index)
{
	const struct acc_shape *a = ctx;
	unsigned e = reg * a->elems + elem, j = e / 4, q = e % 4;
	unsigned row = lane / 4 + 8 * (q / 2), col = 8 * j + (lane % 4) * 2 + q % 2;
	*index = row * a->n + col;
	return MMAGEN_OK;
}

/* C into (store = 0), or D out of, the accumulator registers `acc`:
 * warp w's rows start at element 16*w*N. */
static void emit_acc(struct kb *kb, const mmagen_form *f, kreg acc, unsigned bits, kreg g,
		     kreg warp, kreg lane, int store)
{
	kreg rowoff = kb_reg(kb, K_B32);
	struct frag_io io = { "mmagen_td", acc.n, f->n / 2 / acc.n, bits, g, lane, rowoff };

	ke(kb, "\t// $s the accumulator\n\tmul.lo.u32 $r, $r, $u;\n",
	   store ? "D out of" : "C into", rowoff, warp, 16u * f->n);
	if (store)
		frag_store(kb, &io, acc, (kreg){ 0, 0, 0 });
	else
		frag_load(kb, &io, acc);
}

/* A in registers: each warp the mma m16n8 fragment of its 16 rows. */
static void emit_areg(struct kb *kb, const struct wg *w, kreg a, kreg g, kreg warp,
		      kreg lane)
{
	kreg rowoff = kb_reg(kb, K_B32);
	struct frag_io io = { "mmagen_ta", w->afr.regs, w->afr.elems, w->afr.elem_bits, g,
			      lane, rowoff };

	ke(kb, "\t// A in registers: the mma m16n8 fragment of this warp's rows\n"
	       "\tmul.lo.u32 $r, $r, $u;\n", rowoff, warp, 16 * w->acols);
	frag_load(kb, &io, a);
}

static mmagen_status tables(struct kb *kb, const struct wg *w, const mmagen_form *f,
			    unsigned acc_regs)
{
	struct acc_shape shape = { f->n, f->n / 2 / acc_regs };
	mmagen_status s = MMAGEN_OK;

	kb_at(kb, "tables");
	if (w->amma)
		s = frag_table_form(kb, "mmagen_ta", w->amma, MMAGEN_OPND_A, &w->afr);
	if (!s)
		s = frag_table(kb, "mmagen_td", 32, acc_regs, shape.elems, acc_index, &shape);
	return s;
}

/* ---- the instruction ---- */

/* The constant fields of the descriptor of layout l (LBO, SBO, swizzle);
 * the kernel ORs in the start address. */
static mmagen_status desc_fields(const mmagen_smem_layout *l, uint64_t *fields)
{
	mmagen_wgmma_sdesc d = { .lbo = l->lbo, .sbo = l->sbo, .swizzle = l->swizzle };
	*fields = 0;
	return mmagen_wgmma_sdesc_encode(&d, fields);
}

static mmagen_status descriptors(struct kb *kb, const struct wg *w, struct instr *in)
{
	uint64_t fa, fb;
	mmagen_status s;

	kb_slot_reg(kb, "t", K_B32);
	if (!w->amma) {
		if ((s = desc_fields(&w->la, &fa)))
			return s;
		kb_set(kb, "da", "$r", tile_find_op(in, "da")->reg);
		kb_set(kb, "da_fields", "$X", fa);
	}
	if ((s = desc_fields(&w->lb, &fb)))
		return s;
	kb_set(kb, "db", "$r", tile_find_op(in, "db")->reg);
	kb_set(kb, "db_fields", "$X", fb);
	return MMAGEN_OK;
}

/* The immediates the options choose: negation of A/B, transposes. */
static void set_immediates(struct instr *in, const mmagen_tile_opts *o)
{
	static const char *const name[] = { "nega", "negb", "transa", "transb" };
	const int32_t v[] = { o->neg_a ? -1 : 1, o->neg_b ? -1 : 1, (int32_t)o->major_a,
			      (int32_t)o->major_b };
	for (int i = 0; i < 4; i++) {
		struct operand *op = tile_find_op(in, name[i]);
		if (op)
			op->imm[0] = v[i];
	}
}

/* The comment at the top of the kernel. */
static void describe(struct kb *kb, const mmagen_form *f, const mmagen_tile_opts *o,
		     const mmagen_tile_info *ti)
{
	char op[256];
	static const char *const major[] = { "K", "MN" };

	kb_set(kb, "opcode", "$s", mmagen_form_opcode(f, op, sizeof op));
	const mmagen_tile_param *pa = tile_param(ti, "A"), *pb = tile_param(ti, "B"),
				*pc = tile_param(ti, "C");
	kb_set(kb, "a_shape", "$ux$u", pa->rows, pa->cols);
	kb_set(kb, "b_shape", "$ux$u", pb->rows, pb->cols);
	kb_set(kb, "c_shape", "$ux$u", pc->rows, pc->cols);
	kb_set(kb, "a_src", "$s",
	       f->asrc == MMAGEN_ASRC_REG ? "in registers" : "from shared memory");
	kb_set(kb, "swizzle", "$u", o->swizzle);
	kb_set(kb, "major_a", "$s", major[o->major_a]);
	kb_set(kb, "major_b", "$s", major[o->major_b]);
}

/* The global address of the manifest's parameter `name` (g[i] holds
 * parameter i's, from tile_entry_params). */
static mmagen_status wgmma_emit(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				const mmagen_tile_info *ti, struct buf *out)
{
	struct wg w;
	struct instr in;
	struct kb kb;
	kreg g[MMAGEN_TILE_MAX_PARAMS];
	mmagen_status s = plan(f, o, &w);

	if (s)
		return s;
	kb_init(&kb, "wgmma_tile");
	instr_of(f, &in);
	set_immediates(&in, o);
	kb_bind(&kb, &in);
	kreg acc = tile_find_op(&in, "d")->reg;
	describe(&kb, f, o, ti);
	kb_at(&kb, "header");
	emit_header(kb_buf(&kb), t, mmagen_form_min_ptx(f, t));
	if ((s = tables(&kb, &w, f, acc.n)) || (s = descriptors(&kb, &w, &in))) {
		kb_free(&kb);
		return s;
	}
	kb_set(&kb, "sa_bytes", "$u", w.la.bytes);
	kb_set(&kb, "sb_bytes", "$u", w.lb.bytes);
	kb_at(&kb, "pointers");
	tile_entry_params(&kb, ti, g);
	kreg tid = kb_slot_reg(&kb, "tid", K_B32), warp = kb_slot_reg(&kb, "warp", K_B32);
	kreg lane = kb_slot_reg(&kb, "lane", K_B32);
	kb_at(&kb, "fill_a");
	emit_fill(&kb, &w, f, 0, tile_param_reg(ti, g, "A"), tid);
	kb_at(&kb, "fill_b");
	emit_fill(&kb, &w, f, 1, tile_param_reg(ti, g, "B"), tid);
	kb_flag(&kb, "a_regs", w.amma != NULL);
	if (w.amma) {
		kb_at(&kb, "load_a");
		emit_areg(&kb, &w, tile_find_op(&in, "a")->reg, tile_param_reg(ti, g, "A"), warp,
			  lane);
	}
	kb_flag(&kb, "sparse", f->sparse);
	if (f->sparse) {
		kb_slot_reg(&kb, "x", K_B64);
		kb_set(&kb, "ge", "$r", tile_param_reg(ti, g, "E"));
		kb_set(&kb, "e", "$r", tile_find_op(&in, "e")->reg);
	}
	kb_at(&kb, "load_c");
	emit_acc(&kb, f, acc, w.cbits, tile_param_reg(ti, g, "C"), warp, lane, 0);
	kb_set(&kb, "sd", "$r", tile_find_op(&in, "sd")->reg);
	kb_set(&kb, "scale_d", "$u", o->scale_d ? 1u : 0u);
	kb_at(&kb, "wgmma");
	emit_instruction(kb_buf(&kb), f, &in);
	kb_at(&kb, "store_d");
	emit_acc(&kb, f, acc, w.dbits, tile_param_reg(ti, g, "D"), warp, lane, 1);
	return kb_render(&kb, out);
}

const struct tile_gen tile_gen_wgmma = {
	.info = wgmma_info,
	.emit = wgmma_emit,
	.meta_layout = "metadata register per thread (128)",
};
