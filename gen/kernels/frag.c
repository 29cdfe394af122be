/* frag.c - fragment tables, loads and stores (see frag.h). */
#include "frag.h"

#include <assert.h>

mmagen_status frag_table(struct kb *kb, const char *sym, unsigned lanes, unsigned regs,
			 unsigned elems, frag_index_fn index, const void *ctx)
{
	unsigned n = lanes * regs * elems, i = 0;
	ke(kb, ".const .align 4 .u32 $s[$u] = {", sym, n);
	for (unsigned l = 0; l < lanes; l++)
		for (unsigned r = 0; r < regs; r++)
			for (unsigned e = 0; e < elems; e++, i++) {
				unsigned v;
				mmagen_status s = index(ctx, l, r, e, &v);
				if (s)
					return s;
				ke(kb, "$s$s$u", i ? "," : "", i % 16 ? " " : "\n\t", v);
			}
	ke(kb, "\n};\n");
	return MMAGEN_OK;
}

struct form_ctx {
	const mmagen_form *f;
	int operand;
	const mmagen_frag *fr;
};

static mmagen_status form_index(const void *ctx, unsigned l, unsigned r, unsigned e,
				unsigned *index)
{
	const struct form_ctx *c = ctx;
	unsigned row, col;
	/* m8n8k4: table row l is quad-pair 0's lane (0-3, then 16-19) */
	unsigned lane = c->fr->threads == 8 && l >= 4 ? l + 12 : l;
	mmagen_status s = mmagen_frag_map(c->f, c->operand, lane, r, e, &row, &col);
	if (s)
		return s;
	*index = row * c->fr->cols + col;
	return MMAGEN_OK;
}

mmagen_status frag_info_all(const mmagen_form *f, mmagen_frag fr[4])
{
	mmagen_status s = MMAGEN_OK;
	for (int o = 0; o < 4 && !s; o++)
		s = mmagen_frag_info(f, o, &fr[o]);
	return s;
}

mmagen_status frag_table_form(struct kb *kb, const char *sym, const mmagen_form *f,
			      int operand, const mmagen_frag *fr)
{
	struct form_ctx c = { f, operand, fr };
	return frag_table(kb, sym, fr->threads, fr->regs, fr->elems, form_index, &c);
}

/* Address of this lane's table row in a fresh b64 register. */
static kreg table_row(struct kb *kb, const struct frag_io *io)
{
	kreg t = kb_reg(kb, K_B32), x = kb_reg(kb, K_B64), tb = kb_reg(kb, K_B64);
	ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tcvt.u64.u32 $r, $r;\n"
	       "\tmov.u64 $r, $s;\n\tadd.u64 $r, $r, $r;\n",
	   t, io->lane, io->regs * io->elems * 4, x, t, tb, io->tab, tb, tb, x);
	return tb;
}

/* idx = table entry `slot` (+ io->off); returns its bit offset in `bit`
 * and the byte address in `addr`. */
static void elem_addr(struct kb *kb, const struct frag_io *io, kreg tb, unsigned slot,
		      kreg idx, kreg bit, kreg addr)
{
	kreg byte = kb_reg(kb, K_B32);
	ke(kb, "\tld.const.u32 $r, [$r+$u];\n", idx, tb, slot * 4);
	if (io->off.n)
		ke(kb, "\tadd.u32 $r, $r, $r;\n", idx, idx, io->off);
	ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tshr.u32 $r, $r, 3;\n"
	       "\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n",
	   bit, idx, io->bits, byte, bit, addr, byte, addr, io->g, addr);
}

/* Put element e (w bits, loaded into v from the byte at bit offset `bit`)
 * into its place in d: the packing step of frag_load, with sh scratch. */
static void pack_elem(struct kb *kb, unsigned w, unsigned e, kreg bit, kreg v, kreg sh,
		      kreg d)
{
	if (w < 8)   /* sub-byte: shift the element down, mask it */
		ke(kb, "\tand.b32 $r, $r, 7;\n\tshr.u32 $r, $r, $r;\n\tand.b32 $r, $r, $u;\n",
		   sh, bit, v, v, sh, v, v, (1u << w) - 1);
	if (e)
		ke(kb, "\tshl.b32 $r, $r, $u;\n", v, v, e * w);
	ke(kb, "\tor.b32 $r, $r, $r;\n", d, d, v);
}

void frag_load(struct kb *kb, const struct frag_io *io, kreg dst)
{
	unsigned w = io->bits;
	kreg tb = table_row(kb, io);
	kreg idx = kb_reg(kb, K_B32), bit = kb_reg(kb, K_B32), v = kb_reg(kb, K_B32);
	kreg sh = kb_reg(kb, K_B32), h = kb_reg(kb, K_B16), addr = kb_reg(kb, K_B64);

	assert(dst.n == io->regs);
	assert(w >= 8 || 8 % w == 0);   /* straddling widths: frag_load_packed */
	for (unsigned r = 0; r < io->regs; r++) {
		kreg d = kr_at(dst, r);
		if (io->elems > 1)
			ke(kb, "\tmov.b32 $r, 0;\n", d);
		for (unsigned e = 0; e < io->elems; e++) {
			elem_addr(kb, io, tb, r * io->elems + e, idx, bit, addr);
			if (io->elems == 1) {
				ke(kb, "\tld.global.$s $r, [$r];\n", kclass_type(d.cls), d, addr);
				continue;
			}
			ke(kb, "\tld.global.$s $r, [$r];\n\tcvt.u32.u16 $r, $r;\n",
			   w == 16 ? "u16" : "u8", h, addr, v, h);
			pack_elem(kb, w, e, bit, v, sh, d);
		}
	}
}

/* "st.global.TYPE [addr], v;" under pred when it is given. */
static void store_one(struct kb *kb, kreg pred, const char *type, kreg addr, kreg v)
{
	if (pred.n)
		ke(kb, "\t@$r st.global.$s [$r], $r;\n", pred, type, addr, v);
	else
		ke(kb, "\tst.global.$s [$r], $r;\n", type, addr, v);
}

void frag_store(struct kb *kb, const struct frag_io *io, kreg src, kreg pred)
{
	kreg tb = table_row(kb, io);
	kreg idx = kb_reg(kb, K_B32), bit = kb_reg(kb, K_B32), addr = kb_reg(kb, K_B64);
	kreg h = kb_regs(kb, K_B16, 2);

	assert(src.n == io->regs && (io->elems == 1 || io->bits == 16));
	for (unsigned r = 0; r < io->regs; r++) {
		kreg s = kr_at(src, r);
		for (unsigned e = 0; e < io->elems; e++) {
			elem_addr(kb, io, tb, r * io->elems + e, idx, bit, addr);
			if (io->elems == 1) {
				store_one(kb, pred, kclass_type(s.cls), addr, s);
				continue;
			}
			/* packed 16-bit pair: element e is half e of the register */
			ke(kb, "\tmov.b32 $v, $r;\n", h, s);
			store_one(kb, pred, "b16", addr, kr_at(h, e));
		}
	}
}

kreg frag_param_ptr(struct kb *kb, const char *param)
{
	kreg g = kb_reg(kb, K_B64);
	ke(kb, "\tld.param.u64 $r, [$s];\n\tcvta.to.global.u64 $r, $r;\n", g, param, g, g);
	return g;
}

void frag_loop_begin(struct kb *kb, struct frag_loop *l, kreg first, unsigned end,
		     unsigned step, int uniform)
{
	l->i = kb_reg(kb, K_B32);
	l->head = kb_label(kb);
	l->done = kb_label(kb);
	l->out = kb_reg(kb, K_PRED);
	l->step = step;
	l->uniform = uniform;
	ke(kb, "\tmov.u32 $r, $r;\n$r:\n\tsetp.ge.u32 $r, $r, $u;\n\t@$r bra$s $r;\n",
	   l->i, first, l->head, l->out, l->i, end, l->out, uniform ? ".uni" : "", l->done);
}

void frag_loop_end(struct kb *kb, const struct frag_loop *l)
{
	ke(kb, "\tadd.u32 $r, $r, $u;\n\tbra$s $r;\n$r:\n", l->i, l->i, l->step,
	   l->uniform ? ".uni" : "", l->head, l->done);
}

void frag_load_packed(struct kb *kb, kreg dst, kreg g, kreg bit, unsigned bits)
{
	kreg byte = kb_reg(kb, K_B32), x = kb_reg(kb, K_B64);

	assert(bits == 32 || bits == 16 || (bits >= 1 && bits <= 8));
	ke(kb, "\tshr.u32 $r, $r, 3;\n\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n",
	   byte, bit, x, byte, x, g, x);
	if (bits == 32) {
		ke(kb, "\tld.global.b32 $r, [$r];\n", dst, x);
		return;
	}
	kreg h = kb_reg(kb, K_B16);
	ke(kb, "\tld.global.u$u $r, [$r];\n\tcvt.u32.u16 $r, $r;\n", bits == 16 ? 16u : 8u,
	   h, x, dst, h);
	if (bits >= 8)
		return;
	kreg sh = kb_reg(kb, K_B32);
	ke(kb, "\tand.b32 $r, $r, 7;\n", sh, bit);
	if (8 % bits) {   /* past bit 8 - bits the element runs into the next byte */
		kreg p = kb_reg(kb, K_PRED), h1 = kb_reg(kb, K_B16), hi = kb_reg(kb, K_B32);
		ke(kb, "\tsetp.gt.u32 $r, $r, $u;\n\tmov.u32 $r, 0;\n"
		       "\t@$r ld.global.u8 $r, [$r+1];\n\t@$r cvt.u32.u16 $r, $r;\n"
		       "\tshl.b32 $r, $r, 8;\n\tor.b32 $r, $r, $r;\n",
		   p, sh, 8 - bits, hi, p, h1, x, p, hi, h1, hi, hi, dst, dst, hi);
	}
	ke(kb, "\tshr.b32 $r, $r, $r;\n\tand.b32 $r, $r, $u;\n", dst, dst, sh, dst, dst,
	   (1u << bits) - 1);
}

void frag_place(struct kb *kb, kreg words, unsigned bit, unsigned bits, kreg v)
{
	unsigned r = bit / 32, s = bit % 32;
	kreg w = kr_at(words, r);

	if (s) {
		kreg t = kb_reg(kb, K_B32);
		ke(kb, "\tshl.b32 $r, $r, $u;\n\tor.b32 $r, $r, $r;\n", t, v, s, w, w, t);
	} else {
		ke(kb, "\tor.b32 $r, $r, $r;\n", w, w, v);
	}
	if (s + bits > 32) {
		kreg t = kb_reg(kb, K_B32), w1 = kr_at(words, r + 1);
		ke(kb, "\tshr.b32 $r, $r, $u;\n\tor.b32 $r, $r, $r;\n", t, v, 32 - s, w1, w1, t);
	}
}

void frag_table_words(struct kb *kb, const char *sym, const uint32_t *v, unsigned n)
{
	ke(kb, ".const .align 4 .u32 $s[$u] = {", sym, n);
	for (unsigned i = 0; i < n; i++)
		ke(kb, "$s$s$x", i ? "," : "", i % 8 ? " " : "\n\t", v[i]);
	ke(kb, "\n};\n");
}

/* Bits of a register of class c, for "mov.b<bits> r, 0". */
static unsigned class_bits(enum kclass c)
{
	static const uint8_t bits[K_NCLASS] = {
		[K_B16] = 16, [K_B32] = 32, [K_F32] = 32, [K_B64] = 64, [K_F64] = 64,
	};
	assert(bits[c]);
	return bits[c];
}


void frag_load_holes(struct kb *kb, const struct frag_io *io, kreg dst)
{
	unsigned w = io->bits;
	kreg tb = table_row(kb, io), p = kb_reg(kb, K_PRED);
	kreg idx = kb_reg(kb, K_B32), bit = kb_reg(kb, K_B32), v = kb_reg(kb, K_B32);
	kreg sh = kb_reg(kb, K_B32), h = kb_reg(kb, K_B16), addr = kb_reg(kb, K_B64);

	/* io->off would hide the holes: elem_addr adds it before the test */
	assert(dst.n == io->regs && (io->elems == 1 || w <= 16) && !io->off.n);
	for (unsigned r = 0; r < io->regs; r++) {
		kreg d = kr_at(dst, r);
		ke(kb, "\tmov.b$u $r, 0;\n", class_bits((enum kclass)d.cls), d);
		for (unsigned e = 0; e < io->elems; e++) {
			/* the address of a hole is garbage, but never read */
			elem_addr(kb, io, tb, r * io->elems + e, idx, bit, addr);
			ke(kb, "\tsetp.ne.u32 $r, $r, $x;\n", p, idx, FRAG_NONE);
			if (io->elems == 1) {
				ke(kb, "\t@$r ld.global.$s $r, [$r];\n", p, kclass_type(d.cls),
				   d, addr);
				continue;
			}
			ke(kb, "\tmov.u16 $r, 0;\n\t@$r ld.global.$s $r, [$r];\n"
			       "\tcvt.u32.u16 $r, $r;\n",
			   h, p, w == 16 ? "u16" : "u8", h, addr, v, h);
			pack_elem(kb, w, e, bit, v, sh, d);
		}
	}
}
