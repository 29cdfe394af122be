/* layout.c - where mma.sync / mma.sp fragments and sparse metadata live in
 * a warp's registers.
 *
 * Every fragment map is a CuTe-style layout: the lane and the value index
 * v = reg * elems + elem are split into digits, least significant first,
 * and each digit moves the (row, col) position by a fixed step.  All forms
 * but m8n8k4 f16 share three layouts whose digit sizes and steps are
 * symbolic in the form's shape and element width; m8n8k4 f16 (four
 * independent 8-thread quad-pairs) has six literal ones.  Sources: PTX ISA
 * 9.0 sections 9.7.14.5.x "Matrix Fragments for mma.mXnYkZ" and 9.7.14.6
 * (sparse storage, sparse fragments); the SM120 sparse A and metadata
 * layouts agree with CuTe's mma_traits_sm120_sparse.hpp.
 */
#include "internal.h"

/* Operand D, which differs from C only for m8n8k4 with f32 D and f16 C.
 * mmagen.h has no name for it yet. */
enum { OPND_D = MMAGEN_OPND_C + 1 };

/* Digit sources. */
enum { SRC_LANE, SRC_VAL };

/* Symbolic sizes and steps: values from SYM_BASE up name a form-derived
 * quantity (struct dims), smaller values are literal. */
enum {
	SYM_BASE = 0xF0,
	SYM_P = SYM_BASE,  /* elements per register */
	SYM_4P,            /* columns (A) or K rows (B) one register spans */
	SYM_MH,            /* row halves: M / 8 */
	SYM_KBLK,          /* register blocks along K: Kstored / 4p */
	SYM_END
};

struct digit {
	uint8_t src;
	uint8_t size;
	uint8_t drow, dcol;
};

#define LANE(n, r, c) { SRC_LANE, (n), (r), (c) }
#define VAL(n, r, c) { SRC_VAL, (n), (r), (c) }
/* A quad-pair's number: selects an independent tile, moves nothing. */
#define QPAIR LANE(4, 0, 0)
#define MAX_DIGITS 8

struct layout {
	struct digit d[MAX_DIGITS];
	unsigned n;
};

enum {
	L_A, L_B, L_C,                   /* every form but m8n8k4 f16 */
	L_QP_A_ROW, L_QP_A_COL, L_QP_B_ROW, L_QP_B_COL, L_QP_C16, L_QP_C32,
	L_COUNT
};

/* A: lane%4 steps p columns, lane/4 (groupID) steps one row; inside a
 * register p consecutive columns; registers alternate row halves (+8)
 * first, then blocks of 4p columns.  B is the mirror image with K as
 * rows.  C/D: two adjacent columns per thread, then the +8 row half.
 * m8n8k4 f16 follows the ISA's quad-pair formulas: lanes 0-3 of a
 * quad-pair are its "low group", lanes 16-19 its "high group" (+4). */
static const struct layout layouts[L_COUNT] = {
	[L_A] = { { LANE(4, 0, SYM_P), LANE(8, 1, 0), VAL(SYM_P, 0, 1),
		    VAL(SYM_MH, 8, 0), VAL(SYM_KBLK, 0, SYM_4P) }, 5 },
	[L_B] = { { LANE(4, SYM_P, 0), LANE(8, 0, 1), VAL(SYM_P, 1, 0),
		    VAL(SYM_KBLK, SYM_4P, 0) }, 4 },
	[L_C] = { { LANE(4, 0, 2), LANE(8, 1, 0), VAL(2, 0, 1),
		    VAL(SYM_MH, 8, 0) }, 4 },
	[L_QP_A_ROW] = { { LANE(4, 1, 0), QPAIR, LANE(2, 4, 0),
			   VAL(4, 0, 1) }, 4 },
	[L_QP_A_COL] = { { LANE(4, 0, 1), QPAIR, LANE(2, 4, 0),
			   VAL(4, 1, 0) }, 4 },
	[L_QP_B_ROW] = { { LANE(4, 1, 0), QPAIR, LANE(2, 0, 4),
			   VAL(4, 0, 1) }, 4 },
	[L_QP_B_COL] = { { LANE(4, 0, 1), QPAIR, LANE(2, 0, 4),
			   VAL(4, 1, 0) }, 4 },
	[L_QP_C16] = { { LANE(4, 1, 0), QPAIR, LANE(2, 4, 0),
			 VAL(8, 0, 1) }, 4 },
	/* row = (lane&1) + (i&2) (+4 high), col = (i&4) + (lane&2) + (i&1) */
	[L_QP_C32] = { { LANE(2, 1, 0), LANE(2, 0, 2), QPAIR, LANE(2, 4, 0),
			 VAL(2, 0, 1), VAL(2, 2, 0), VAL(2, 0, 4) }, 7 },
};

#undef LANE
#undef VAL
#undef QPAIR

/* Everything about one operand of one form that the layouts need. */
struct operand_geom {
	mmagen_frag frag;
	unsigned layout;                    /* L_* */
	unsigned sym[SYM_END - SYM_BASE];   /* values of the SYM_* */
};

static int is_quad_pair(const mmagen_form *f)
{
	return f->m == 8 && f->k == 4 && f->a == MMAGEN_F16;
}

/* Bits one element takes in a register: kind::f8f6f4 and mxf8f6f4 put
 * FP6/FP4 in 8-bit containers (e2m1 sits in bits 2..5 of its byte, per
 * CuTe's fp4_shift); mxf4/mxf4nvf4 pack e2m1 tightly.  The one copy of
 * this rule (internal.h). */
unsigned form_container_bits(const mmagen_form *f, mmagen_type t)
{
	if (f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4)
		return 8;
	return mmagen_type_bits(t);
}

/* Registers per thread for `elems` elements of `elem_bits` each: 32-bit
 * registers, except f64 (one 64-bit register per element).  Never 0: a
 * fragment of a shape too small for any real form still takes one
 * register ("{}" would be a syntax error that stops ptxas, not a verdict
 * on the form).  The one copy of this rule (internal.h). */
unsigned frag_regs(unsigned elems, unsigned elem_bits, mmagen_type t)
{
	if (!elems)
		return 1;
	if (t == MMAGEN_F64)
		return elems;
	return (elems * elem_bits + 31) / 32;
}

static unsigned pick_layout(const mmagen_form *f, int operand)
{
	if (!is_quad_pair(f))
		return operand == MMAGEN_OPND_A ? L_A :
		       operand == MMAGEN_OPND_B ? L_B : L_C;
	if (operand == MMAGEN_OPND_A)
		return f->alayout == MMAGEN_ROW ? L_QP_A_ROW : L_QP_A_COL;
	if (operand == MMAGEN_OPND_B)
		return f->blayout == MMAGEN_ROW ? L_QP_B_ROW : L_QP_B_COL;
	mmagen_type t = operand == OPND_D ? f->d : f->c;
	return t == MMAGEN_F32 ? L_QP_C32 : L_QP_C16;
}

static mmagen_status operand_geom(const mmagen_form *f, int operand,
				  struct operand_geom *g)
{
	mmagen_frag *fr = &g->frag;
	mmagen_type t;
	unsigned kstored;

	if (!f || f->family != MMAGEN_FAM_MMA)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"fragment layouts: not an mma.sync/mma.sp form");
	switch (operand) {
	case MMAGEN_OPND_A:
		t = (mmagen_type)f->a;
		/* mma.sp: the compressed Mx(K/2) is laid out as a dense A
		 * with K/2 (ISA 9.7.14.6.2, firstcol/lastcol formulas). */
		kstored = f->sparse ? f->k / 2u : f->k;
		fr->rows = f->m;
		fr->cols = kstored;
		break;
	case MMAGEN_OPND_B:
		t = (mmagen_type)f->b;
		kstored = f->k;
		fr->rows = f->k;
		fr->cols = f->n;
		break;
	case MMAGEN_OPND_C:
	case OPND_D:
		t = (mmagen_type)(operand == OPND_D ? f->d : f->c);
		kstored = 0;    /* also: accumulators have no containers */
		fr->rows = f->m;
		fr->cols = f->n;
		break;
	default:
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"fragment layouts: operand %d is not A, B or C", operand);
	}
	fr->threads = is_quad_pair(f) ? 8 : 32;
	fr->reg_bits = t == MMAGEN_F64 ? 64 : 32;
	fr->elem_bits = kstored ? form_container_bits(f, t) : mmagen_type_bits(t);
	fr->elems = fr->reg_bits / fr->elem_bits;
	fr->regs = frag_regs(fr->rows * fr->cols / fr->threads, fr->elem_bits, t);
	g->layout = pick_layout(f, operand);
	g->sym[SYM_P - SYM_BASE] = fr->elems;
	g->sym[SYM_4P - SYM_BASE] = 4 * fr->elems;
	g->sym[SYM_MH - SYM_BASE] = f->m / 8u;
	g->sym[SYM_KBLK - SYM_BASE] = kstored / (4 * fr->elems);
	return MMAGEN_OK;
}

static unsigned resolve(const struct operand_geom *g, uint8_t v)
{
	return v >= SYM_BASE ? g->sym[v - SYM_BASE] : v;
}

mmagen_status mmagen_frag_info(const mmagen_form *f, int operand,
			       mmagen_frag *out)
{
	struct operand_geom g;
	mmagen_status s = operand_geom(f, operand, &g);

	if (s == MMAGEN_OK && out)
		*out = g.frag;
	return s;
}

mmagen_status mmagen_frag_map(const mmagen_form *f, int operand, unsigned lane,
			      unsigned reg, unsigned elem, unsigned *row,
			      unsigned *col)
{
	struct operand_geom g;
	mmagen_status s = operand_geom(f, operand, &g);

	if (s != MMAGEN_OK)
		return s;
	if (lane >= 32 || reg >= g.frag.regs || elem >= g.frag.elems)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"fragment map: lane %u reg %u elem %u out of range "
			"(32 lanes, %u regs, %u elems)", lane, reg, elem,
			g.frag.regs, g.frag.elems);

	unsigned left[2] = { lane, reg * g.frag.elems + elem };
	unsigned r = 0, c = 0;
	const struct layout *l = &layouts[g.layout];
	for (unsigned i = 0; i < l->n; i++) {
		const struct digit *d = &l->d[i];
		unsigned size = resolve(&g, d->size);
		unsigned x = left[d->src] % size;
		left[d->src] /= size;
		r += x * resolve(&g, d->drow);
		c += x * resolve(&g, d->dcol);
	}
	if (row)
		*row = r;
	if (col)
		*col = c;
	return MMAGEN_OK;
}

/* ---- sparse metadata ---- */

/* Metadata per row of A is 4 bits per chunk (two 2-bit indices, or one
 * 4-bit tf32 code), first index in the low bits.  A lane's register holds
 * eight chunks, arranged one of two ways (probed on sm_90 for f16, tf32,
 * s8, u4 and e4m3; the ISA gives them only as figures):
 *   HALVES (16- and 32-bit A: f16, bf16, tf32): bits 0-15 are chunks
 *       4p..4p+3 of row g, bits 16-31 the same chunks of row g+8;
 *   ROWS (8- and 4-bit A): bits 0-31 are chunks 8p..8p+7 of one row.
 * The lanes of groupID g that the selector names (ISA 9.7.14.6.1: one of
 * four when a row has 16 bits, a pair at 32, all four at 64) take the
 * parts p in order: HALVES p = chunk / 4; ROWS p = (row >= 8) +
 * 2 * (chunk / 8), as CuTe's SM120 sparse ELayout also has it. */
enum { META_HALVES, META_ROWS };

struct meta_field {
	unsigned part, bit;
};

static void meta_field(int style, unsigned chunk, unsigned half,
		       struct meta_field *m)
{
	if (style == META_HALVES) {
		m->part = chunk / 4;
		m->bit = 16 * half + 4 * (chunk % 4);
	} else {
		m->part = half + 2 * (chunk / 8);
		m->bit = 4 * (chunk % 8);
	}
}

mmagen_status mmagen_meta_pos(const mmagen_form *f, unsigned sel, unsigned row,
			      unsigned ccol, unsigned *lane, unsigned *bit,
			      unsigned *bits)
{
	unsigned group, keep, unit;

	/* wgmma.sp: each warp of the warpgroup holds the metadata of its 16
	 * rows as mma.sp m16n8kK does (the "lane" is then the thread 0..127);
	 * checked on the H200 by the sparse wgmma tiles. */
	if (f && f->family == MMAGEN_FAM_WGMMA && f->sparse) {
		for (size_t i = 0; i < mmagen_form_count(); i++) {
			const mmagen_form *g = mmagen_form_at(i);
			if (g->family != MMAGEN_FAM_MMA || !g->sparse || g->kind ||
			    g->m != 16 || g->n != 8 || g->k != f->k || g->a != f->a)
				continue;
			if (row >= 64)
				break;
			mmagen_status s = mmagen_meta_pos(g, sel, row % 16, ccol, lane,
							  bit, bits);
			if (!s && lane)
				*lane += 32 * (row / 16);
			return s;
		}
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparse metadata: no mma.sp m16n8k%u form with A %s to take the layout from",
			f->k, mmagen_type_name((mmagen_type)f->a));
	}
	/* tcgen05.mma.sp: the tile's E words, row by row, fields in K order
	 * (where they go in Tensor Memory: tc_meta_table). */
	if (f && f->family == MMAGEN_FAM_TCGEN05 && f->sparse &&
	    !mmagen_sparse_granule(f, &group, &keep, &unit)) {
		unsigned width = keep == 1 ? 4 : 2, words = tc_meta_pieces(f) / 2;
		if (ccol >= f->k / 2u || sel)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"sparse metadata: column %u of %u, selector %u (tile kernels use 0)",
				ccol, f->k / 2u, sel);
		unsigned at = ccol / unit * width;
		if (lane)
			*lane = row * words + at / 32;
		if (bit)
			*bit = at % 32;
		if (bits)
			*bits = width;
		return MMAGEN_OK;
	}
	if (!f || f->family != MMAGEN_FAM_MMA || !f->sparse ||
	    mmagen_sparse_granule(f, &group, &keep, &unit) != 0)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparse metadata: not an mma.sp form");
	if (row >= f->m || ccol >= f->k / 2u)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparse metadata: element (%u, %u) outside %ux%u",
			row, ccol, (unsigned)f->m, f->k / 2u);

	unsigned row_bits = 4 * (f->k / group);
	unsigned nsel = row_bits == 16 ? 4 : row_bits == 32 ? 2 : 1;
	if (sel >= nsel)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparse metadata: sparsity selector %u, this form takes "
			"0..%u", sel, nsel - 1);

	/* One index per kept unit: tf32 keeps one, with a 4-bit code. */
	unsigned width = keep == 1 ? 4 : 2;
	int style = form_container_bits(f, (mmagen_type)f->a) >= 16 ?
		    META_HALVES : META_ROWS;
	struct meta_field m;
	meta_field(style, ccol / keep, row / 8, &m);
	unsigned l = 4 * (row % 8) + sel * (4 / nsel) + m.part;
	unsigned b = m.bit + width * ((ccol % keep) / unit);
	if (lane)
		*lane = l;
	if (bit)
		*bit = b;
	if (bits)
		*bits = width;
	return MMAGEN_OK;
}
