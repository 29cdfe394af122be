/* kernel_wgmma.c - one-tile kernels for wgmma.mma_async (sm_90a).
 *
 * One warpgroup (128 threads).  A (64xK) and B (KxN) arrive row-major in
 * global memory; every thread copies bytes of them into shared memory in
 * the canonical K-major layout of the chosen swizzle (smem.c): for each
 * destination byte it computes which row and K byte it holds (the layout's
 * inverse) and fetches that byte -- or, for b1's B, gathers its 8 bits.
 * Then fence.proxy.async makes the copies visible to the tensor cores,
 * the descriptors are built from the shared addresses, C is loaded into the
 * accumulator registers (warp w owns rows 16w..16w+15, laid out like an
 * mma m16n8 accumulator per 8 columns), wgmma runs between wgmma.fence and
 * commit/wait, and D is stored row-major.  A can instead come from
 * registers: each warp then holds the A fragment of the matching mma
 * m16n8kK form for its 16 rows. */
#include "kernel_legacy.h"

#include <stdio.h>
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

static mmagen_status plan(const mmagen_form *f, const mmagen_tile_opts *o, struct wg *w)
{
	mmagen_status s;

	memset(w, 0, sizeof *w);
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
	if (s)
		return s;
	if (f->asrc == MMAGEN_ASRC_REG) {
		w->amma = mma_twin(f, w->acols);
		if (!w->amma)
			return mmagen_set_error(MMAGEN_UNSUPPORTED,
				"no mma m16n8k%u form with A %s to take the register layout from",
				f->k, mmagen_type_name((mmagen_type)f->a));
		if ((s = mmagen_frag_info(w->amma, MMAGEN_OPND_A, &w->afr)))
			return s;
	}
	return MMAGEN_OK;
}

static mmagen_status tile_info_wgmma(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti)
{
	struct wg w;
	mmagen_status s = plan(f, o, &w);

	if (s || !ti)
		return s;
	memset(ti, 0, sizeof *ti);
	ti->kernel = "mmagen_tile";
	ti->block[0] = 128;
	ti->block[1] = ti->block[2] = 1;
	ti->grid[0] = ti->grid[1] = ti->grid[2] = 1;
	ti->m = f->m;
	ti->n = f->n;
	ti->k = f->k;
	ti->static_smem = w.la.bytes + w.lb.bytes;
	tile_add_param(ti, "A", 64, w.acols, w.abits, f->a, 0);
	tile_add_param(ti, "B", f->k, f->n, w.bbits, f->b, 0);
	tile_add_param(ti, "C", 64, f->n, w.cbits, f->c, 0);
	tile_add_param(ti, "D", 64, f->n, w.dbits, f->d, 1);
	if (f->sparse)   /* one metadata register per thread */
		tile_add_param(ti, "E", 1, 128, 32, 0, 0);
	return MMAGEN_OK;
}

/* %r0 = (row, kbyte) of byte offset %o in layout l: row in %t1, kbyte in
 * %t2 (PTX for mmagen_smem_locate). */
static void emit_locate_mn(struct buf *b, const mmagen_smem_layout *l)
{
	/* %t1 = K row, %t2 = MN byte (mmagen_smem_locate, MN-major) */
	if (!l->swizzle) {
		emitf(b, "\tdiv.u32 %t0, %o, $u;\n\trem.u32 %t3, %o, $u;\n"
			 "\tand.b32 %t1, %t3, 127;\n\tshr.u32 %t1, %t1, 4;\n"
			 "\tmad.lo.u32 %t1, %t0, 8, %t1;\n"
			 "\tshr.u32 %t2, %t3, 7;\n\tshl.b32 %t2, %t2, 4;\n"
			 "\tand.b32 %t3, %t3, 15;\n\tadd.u32 %t2, %t2, %t3;\n",
		      l->lbo, l->lbo);
		return;
	}
	emitf(b, "\tdiv.u32 %t0, %o, $u;\n\trem.u32 %t3, %o, $u;\n"
		 "\tdiv.u32 %v, %t3, $u;\n\trem.u32 %t3, %t3, $u;\n"
		 "\tshr.u32 %t1, %t3, 7;\n\tand.b32 %t1, %t1, $u;\n\tshl.b32 %t1, %t1, 4;\n"
		 "\txor.b32 %t3, %t3, %t1;\n"
		 "\tdiv.u32 %t1, %t3, $u;\n\tmad.lo.u32 %t1, %t0, 8, %t1;\n"
		 "\trem.u32 %t2, %t3, $u;\n\tmad.lo.u32 %t2, %v, $u, %t2;\n",
	      l->sbo, l->sbo, l->lbo, l->lbo, l->swizzle / 16 - 1, l->swizzle,
	      l->swizzle, l->swizzle);
}

static void emit_locate(struct buf *b, const mmagen_smem_layout *l)
{
	if (l->mn_major) {
		emit_locate_mn(b, l);
		return;
	}
	if (!l->swizzle) {
		emitf(b, "\tdiv.u32 %t0, %o, $u;\n\trem.u32 %t3, %o, $u;\n"
			 "\tand.b32 %t1, %t3, 127;\n\tshr.u32 %t1, %t1, 4;\n"
			 "\tmad.lo.u32 %t1, %t0, 8, %t1;\n"
			 "\tshr.u32 %t2, %t3, 7;\n\tshl.b32 %t2, %t2, 4;\n"
			 "\tand.b32 %t3, %t3, 15;\n\tadd.u32 %t2, %t2, %t3;\n",
		      l->sbo, l->sbo);
		return;
	}
	/* K wider than a swizzle row: atom index along K in %v first */
	if (l->kbytes > l->swizzle)
		emitf(b, "\tdiv.u32 %v, %o, $u;\n\trem.u32 %t3, %o, $u;\n"
			 "\tdiv.u32 %t0, %t3, $u;\n\trem.u32 %t3, %t3, $u;\n",
		      l->lbo, l->lbo, l->sbo, l->sbo);
	else
		emitf(b, "\tmov.u32 %v, 0;\n\tdiv.u32 %t0, %o, $u;\n\trem.u32 %t3, %o, $u;\n",
		      l->sbo, l->sbo);
	emitf(b, "\tshr.u32 %t1, %t3, 7;\n\tand.b32 %t1, %t1, $u;\n\tshl.b32 %t1, %t1, 4;\n"
		 "\txor.b32 %t3, %t3, %t1;\n"
		 "\tdiv.u32 %t1, %t3, $u;\n\tmad.lo.u32 %t1, %t0, 8, %t1;\n"
		 "\trem.u32 %t2, %t3, $u;\n\tmad.lo.u32 %t2, %v, $u, %t2;\n",
	      l->swizzle / 16 - 1, l->swizzle, l->swizzle, l->swizzle);
}

/* Copy one operand into shared memory `sym`.  For A (row-major MxK) the K
 * bytes of a row are the row's own bytes; for B (row-major KxN) byte kb of
 * row n gathers element k = kb*8/bits of column n (8 of them for b1). */
static void emit_fill(struct buf *b, const char *tag, const mmagen_smem_layout *l,
		      const char *sym, const char *g, int is_b, unsigned bits,
		      unsigned k, unsigned n)
{
	emitf(b, "\t// $s: copy into shared memory, $s-major, swizzle $u\n"
		 "\tmov.u32 %o, %th;\nL_$s:\n\tsetp.ge.u32 %pl, %o, $u;\n\t@%pl bra.uni L_$s_done;\n",
	      tag, l->mn_major ? "MN" : "K", l->swizzle, tag, l->bytes, tag);
	emit_locate(b, l);
	emitf(b, "\tmov.u32 %v, 0;\n\tsetp.ge.u32 %pl, %t2, $u;\n\t@%pl bra.uni L_$s_st;\n",
	      l->kbytes, tag);
	if (l->mn_major) {
		/* K row t1, MN byte t2 of a 16-bit operand: A's element
		 * (t2/2, t1) or B's (t1, t2/2), byte t2%2 */
		if (!is_b)
			emitf(b, "\tshr.u32 %t3, %t2, 1;\n\tmad.lo.u32 %t3, %t3, $u, %t1;\n"
				 "\tshl.b32 %t3, %t3, 1;\n\tand.b32 %t0, %t2, 1;\n\tadd.u32 %t3, %t3, %t0;\n",
			      k);
		else
			emitf(b, "\tmad.lo.u32 %t3, %t1, $u, %t2;\n", n * 2);
		emitf(b, "\tcvt.u64.u32 %x0, %t3;\n\tadd.u64 %x0, %$s, %x0;\n"
			 "\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %v, %h0;\n", g);
	} else if (!is_b) {
		/* A: byte t2 of row t1 of the row-major tile */
		emitf(b, "\tmad.lo.u32 %t3, %t1, $u, %t2;\n\tcvt.u64.u32 %x0, %t3;\n"
			 "\tadd.u64 %x0, %$s, %x0;\n\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %v, %h0;\n",
		      k * bits / 8, g);
	} else if (bits >= 8) {
		unsigned eb = bits / 8;
		/* element k = t2/eb of column n = t1, its byte t2%eb */
		emitf(b, "\tdiv.u32 %t3, %t2, $u;\n\tmad.lo.u32 %t3, %t3, $u, %t1;\n"
			 "\tmul.lo.u32 %t3, %t3, $u;\n\trem.u32 %t0, %t2, $u;\n\tadd.u32 %t3, %t3, %t0;\n"
			 "\tcvt.u64.u32 %x0, %t3;\n\tadd.u64 %x0, %$s, %x0;\n"
			 "\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %v, %h0;\n",
		      eb, n, eb, eb, g);
	} else {
		/* b1: bit j of the byte is k = 8*t2 + j of column t1 */
		for (unsigned j = 0; j < 8; j++)
			emitf(b, "\tmad.lo.u32 %t3, %t2, 8, $u;\n\tmad.lo.u32 %t3, %t3, $u, %t1;\n"
				 "\tshr.u32 %t0, %t3, 3;\n\tcvt.u64.u32 %x0, %t0;\n\tadd.u64 %x0, %$s, %x0;\n"
				 "\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %t0, %h0;\n"
				 "\tand.b32 %t3, %t3, 7;\n\tshr.u32 %t0, %t0, %t3;\n\tand.b32 %t0, %t0, 1;\n"
				 "\tshl.b32 %t0, %t0, $u;\n\tor.b32 %v, %v, %t0;\n",
			      j, n, g, j);
	}
	emitf(b, "L_$s_st:\n\tmov.u32 %t0, $s;\n\tadd.u32 %t0, %t0, %o;\n\tcvt.u16.u32 %h0, %v;\n"
		 "\tst.shared.u8 [%t0], %h0;\n\tadd.u32 %o, %o, 128;\n\tbra.uni L_$s;\nL_$s_done:\n",
	      tag, sym, tag, tag);
}

/* .const table: for each lane, each accumulator element e, its index in
 * the warp's 16xN slice (row*N + col). */
static void emit_dtable(struct buf *b, unsigned n)
{
	unsigned per = n / 2, i = 0;
	emitf(b, ".const .align 4 .u32 mmagen_td[$u] = {", 32 * per);
	for (unsigned lane = 0; lane < 32; lane++)
		for (unsigned e = 0; e < per; e++, i++) {
			unsigned j = e / 4, q = e % 4;
			unsigned row = lane / 4 + 8 * (q / 2);
			unsigned col = 8 * j + (lane % 4) * 2 + q % 2;
			emitf(b, "$s$s$u", i ? "," : "", i % 16 ? " " : "\n\t", row * n + col);
		}
	buf_puts(b, "\n};\n");
}

static mmagen_status emit_atable(struct buf *b, const struct wg *w)
{
	unsigned i = 0;
	emitf(b, ".const .align 4 .u32 mmagen_ta[$u] = {", 32 * w->afr.regs * w->afr.elems);
	for (unsigned lane = 0; lane < 32; lane++)
		for (unsigned r = 0; r < w->afr.regs; r++)
			for (unsigned e = 0; e < w->afr.elems; e++, i++) {
				unsigned row, col;
				mmagen_status s = mmagen_frag_map(w->amma, MMAGEN_OPND_A, lane,
								  r, e, &row, &col);
				if (s)
					return s;
				emitf(b, "$s$s$u", i ? "," : "", i % 16 ? " " : "\n\t",
				      row * w->afr.cols + col);
			}
	buf_puts(b, "\n};\n");
	return MMAGEN_OK;
}

/* Element index (in %t0 from table slot) -> global address %x0 of an
 * element of `bits` in the tile at %g, offset by %rowoff elements. */
static void emit_elem_addr(struct buf *b, const char *tab, unsigned slot,
			   unsigned bits, const char *g)
{
	emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tadd.u32 %t0, %t0, %rowoff;\n"
		 "\tmul.lo.u32 %t1, %t0, $u;\n\tshr.u32 %t2, %t1, 3;\n"
		 "\tcvt.u64.u32 %x0, %t2;\n\tadd.u64 %x0, %$s, %x0;\n", slot, bits, g);
	(void)tab;
}

static void table_base(struct buf *b, const char *tab, unsigned per_lane)
{
	emitf(b, "\tmul.lo.u32 %t0, %lane, $u;\n\tcvt.u64.u32 %x1, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x1;\n", per_lane * 4, tab);
}

/* Load A's registers (A in registers): each warp its 16 rows. */
static void emit_areg(struct buf *b, const struct wg *w, unsigned k)
{
	unsigned el = w->afr.elems, bits = w->afr.elem_bits;
	buf_puts(b, "\t// A in registers: the mma m16n8 fragment of this warp's rows\n");
	emitf(b, "\tmul.lo.u32 %rowoff, %warp, $u;\n", 16 * k);
	table_base(b, "mmagen_ta", w->afr.regs * el);
	for (unsigned r = 0; r < w->afr.regs; r++) {
		if (el > 1)
			emitf(b, "\tmov.b32 %ra$u, 0;\n", r);
		for (unsigned e = 0; e < el; e++) {
			emit_elem_addr(b, "mmagen_ta", (r * el + e) * 4, bits, "ga");
			if (el == 1) {
				emitf(b, "\tld.global.b32 %ra$u, [%x0];\n", r);
				continue;
			}
			buf_puts(b, bits == 16 ? "\tld.global.u16 %h0, [%x0];\n" :
					       "\tld.global.u8 %h0, [%x0];\n");
			buf_puts(b, "\tcvt.u32.u16 %t3, %h0;\n");
			if (bits < 8)
				emitf(b, "\tand.b32 %t2, %t1, 7;\n\tshr.u32 %t3, %t3, %t2;\n"
					 "\tand.b32 %t3, %t3, $u;\n", (1u << bits) - 1);
			if (e)
				emitf(b, "\tshl.b32 %t3, %t3, $u;\n", e * bits);
			emitf(b, "\tor.b32 %ra$u, %ra$u, %t3;\n", r, r);
		}
	}
}

/* C into, or D out of, the accumulator registers %rd<i>. */
static void emit_acc(struct buf *b, const struct operand *d, unsigned n,
		     unsigned bits, int store)
{
	unsigned per = n / 2;
	emitf(b, "\t// $s the accumulator\n\tmul.lo.u32 %rowoff, %warp, $u;\n",
	      store ? "D out of" : "C into", 16 * n);
	table_base(b, "mmagen_td", per);
	for (unsigned e = 0; e < per; e++) {
		emit_elem_addr(b, "mmagen_td", e * 4, bits, store ? "gd" : "gc");
		if (bits == 32) {
			emitf(b, store ? "\tst.global.$s [%x0], %rd$u;\n" :
					 "\tld.global.$s %rd$u, [%x0];\n",
			      reg_ptx[d->rtype], e);
			continue;
		}
		/* f16: element e is half e%2 of register e/2 */
		if (store) {
			emitf(b, "\tmov.b32 {%h0, %h1}, %rd$u;\n\tst.global.b16 [%x0], %h$u;\n",
			      e / 2, e % 2);
		} else {
			emitf(b, "\tld.global.b16 %h$u, [%x0];\n", e % 2);
			if (e % 2)
				emitf(b, "\tmov.b32 %rd$u, {%h0, %h1};\n", e / 2);
		}
	}
}

static struct operand *op_named(struct instr *in, const char *name)
{
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, name))
			return &in->op[i];
	return NULL;
}

static mmagen_status tile_emit_wgmma(const mmagen_form *f, int t,
			      const mmagen_tile_opts *o, struct buf *b)
{
	struct wg w;
	struct instr in;
	struct operand *op;
	char opc[256];
	mmagen_status s = plan(f, o, &w);

	if (s)
		return s;
	instr_of(f, &in);
	/* negation immediates and scale-d from the options */
	if ((op = op_named(&in, "nega")))
		op->imm[0] = o->neg_a ? -1 : 1;
	if ((op = op_named(&in, "negb")))
		op->imm[0] = o->neg_b ? -1 : 1;
	if ((op = op_named(&in, "transa")))
		op->imm[0] = (int32_t)o->major_a;
	if ((op = op_named(&in, "transb")))
		op->imm[0] = (int32_t)o->major_b;
	emitf(b, "//\n// Generated by mmagen: one-tile kernel for\n//   $s\n"
		 "// A 64x$u, B $ux$u, C/D 64x$u row-major; one warpgroup; A $s,\n"
		 "// shared memory swizzle $u, A $s-major, B $s-major.\n//\n",
	      mmagen_form_opcode(f, opc, sizeof opc), w.acols, f->k, f->n, f->n,
	      f->asrc == MMAGEN_ASRC_REG ? "in registers" : "from shared memory", o->swizzle,
	      o->major_a ? "MN" : "K", o->major_b ? "MN" : "K");
	emit_header(b, t, mmagen_form_min_ptx(f, t));
	buf_puts(b, "\n");
	if (w.amma && (s = emit_atable(b, &w)))
		return s;
	emit_dtable(b, f->n);
	emitf(b, ".shared .align 1024 .b8 mmagen_sa[$u];\n.shared .align 1024 .b8 mmagen_sb[$u];\n",
	      w.la.bytes, w.lb.bytes);
	buf_puts(b, "\n.visible .entry mmagen_tile(\n\t.param .u64 pa,\n\t.param .u64 pb,\n"
		    "\t.param .u64 pc,\n\t.param .u64 pd,\n\t.param .u64 pe)\n.maxntid 128, 1, 1\n{\n"
		    "\t.reg .b64 %ga, %gb, %gc, %gd, %tb, %x<2>;\n"
		    "\t.reg .b32 %th, %warp, %lane, %rowoff, %o, %v, %t<4>;\n"
		    "\t.reg .b16 %h<2>;\n\t.reg .pred %pl;\n");
	emit_regs(b, &in);
	buf_puts(b, "\n\tld.param.u64 %ga, [pa];\n\tld.param.u64 %gb, [pb];\n"
		    "\tld.param.u64 %gc, [pc];\n\tld.param.u64 %gd, [pd];\n"
		    "\tcvta.to.global.u64 %ga, %ga;\n\tcvta.to.global.u64 %gb, %gb;\n"
		    "\tcvta.to.global.u64 %gc, %gc;\n\tcvta.to.global.u64 %gd, %gd;\n"
		    "\tmov.u32 %th, %tid.x;\n\tshr.u32 %warp, %th, 5;\n\tand.b32 %lane, %th, 31;\n");
	emit_fill(b, "fa", &w.la, "mmagen_sa", "ga", 0, w.abits, w.acols, f->n);
	emit_fill(b, "fb", &w.lb, "mmagen_sb", "gb", 1, w.bbits, f->k, f->n);
	/* generic-proxy stores -> visible to wgmma's async proxy */
	buf_puts(b, "\tbar.sync 0;\n\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n");
	if (w.amma)
		emit_areg(b, &w, w.acols);
	if (f->sparse)
		buf_puts(b, "\t// E: this thread's metadata register\n\tld.param.u64 %x1, [pe];\n"
			    "\tcvta.to.global.u64 %x1, %x1;\n\tmul.wide.u32 %x0, %th, 4;\n"
			    "\tadd.u64 %x0, %x1, %x0;\n\tld.global.b32 %re, [%x0];\n");
	emit_acc(b, op_named(&in, "d"), f->n, w.cbits, 0);
	/* descriptors */
	const struct { const char *reg, *sym; const mmagen_smem_layout *l; } ds[] = {
		{ "rda", "mmagen_sa", &w.la }, { "rdb", "mmagen_sb", &w.lb },
	};
	for (int i = 0; i < 2; i++) {
		if (i == 0 && w.amma)
			continue;
		mmagen_wgmma_sdesc sd = { .lbo = ds[i].l->lbo, .sbo = ds[i].l->sbo,
					  .swizzle = ds[i].l->swizzle };
		uint64_t bits = 0;
		if ((s = mmagen_wgmma_sdesc_encode(&sd, &bits)))
			return s;
		emitf(b, "\tmov.u32 %t0, $s;\n\tand.b32 %t0, %t0, 262143;\n\tshr.u32 %t0, %t0, 4;\n"
			 "\tcvt.u64.u32 %$s, %t0;\n", ds[i].sym, ds[i].reg);
		char hex[40];
		snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)bits);
		emitf(b, "\tor.b64 %$s, %$s, $s;\n", ds[i].reg, ds[i].reg, hex);
	}
	emitf(b, "\tsetp.ne.u32 %rsd, $u, 0;\n", o->scale_d ? 1u : 0u);
	emit_instruction(b, f, &in);
	emit_acc(b, op_named(&in, "d"), f->n, w.dbits, 1);
	buf_puts(b, "\tret;\n}\n");
	return MMAGEN_OK;
}

static mmagen_status emit_adapter(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				  const mmagen_tile_info *ti, struct buf *out)
{
	(void)ti;
	return tile_emit_wgmma(f, t, o, out);
}

const struct tile_gen tile_gen_wgmma = {
	.info = tile_info_wgmma,
	.emit = emit_adapter,
	.meta_layout = "metadata register per thread (128)",
};
