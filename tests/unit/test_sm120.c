/* test_sm120.c - the block-scaled mma.sync tile kernels' data movement,
 * emulated on the CPU (there is no sm_120 GPU here; ptxas checks the PTX).
 *
 * For every block-scaled mma.sync form: random A, B, C and scales are
 * packed in the tile kernel's memory format; the kernel's loads are
 * replayed from the .const tables of its own PTX (dense forms; sparse
 * forms cannot have a manifest yet and replay tables built the same way,
 * from mmagen_frag_map and mmagen_scale_pos).  Then:
 *  (a) every A/B element and every scale factor lands exactly once, at
 *      the place the PTX ISA formulas written out below say (fragment
 *      layouts of m16n8k32/k64/k128; "Block Scaling for mma.sync"),
 *      for every legal {byte-id, thread-id};
 *  (b) D computed from the lanes' registers alone -- decoded with those
 *      ISA formulas, a naive loop per K block -- matches mmagen_ref_mma
 *      on the memory inputs.
 * Exit 0 on pass.
 */
#include "mmagen.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE 0xFFFFFFFFu

#include "check.h"

static uint64_t rng = 0x243F6A8885A308D3u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random finite pattern of t. */
static uint64_t rand_finite(mmagen_type t)
{
	uint64_t p;

	do
		p = next() & ((UINT64_C(1) << mmagen_type_bits(t)) - 1);
	while (!isfinite(mmagen_type_decode(t, p)));
	return p;
}

/* A scale with value in about 2^-4..2^4. */
static uint64_t rand_scale(mmagen_type st)
{
	if (st == MMAGEN_UE8M0)
		return 123 + next() % 9;
	return 0x18 + next() % 0x40;	/* ue4m3 2^-4 .. 2^4 */
}

/* ---- the kernel's memory format and loads ---- */

/* Pattern p as it sits in a w-bit container (e2m1 in bits 2..5 of a byte). */
static uint64_t to_container(mmagen_type t, unsigned w, uint64_t p)
{
	return w == 8 && t == MMAGEN_E2M1 ? p << 2 : p;
}

static void pack(uint8_t *mem, const uint64_t *el, size_t n, unsigned w, mmagen_type t)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = to_container(t, w, el[i]);
		for (unsigned j = 0; j < w; j++)
			if (v >> j & 1)
				mem[(i * w + j) / 8] |= (uint8_t)(1u << ((i * w + j) % 8));
	}
}

/* The PTX loader: byte (idx*w)/8, shifted by (idx*w)%8, masked to w. */
static uint32_t load_elem(const uint8_t *mem, uint32_t idx, unsigned w)
{
	uint32_t bit = idx * w, v = mem[bit / 8];

	if (w < 8)
		v = (v >> (bit & 7)) & ((1u << w) - 1);
	return v;
}

/* The numbers of `.const ... name[N] = { ... }` in a PTX text. */
static int parse_table(const char *ptx, const char *name, uint32_t *out, unsigned n)
{
	char key[64];
	snprintf(key, sizeof key, " %s[", name);
	const char *p = strstr(ptx, key);
	if (!p || !(p = strchr(p, '{')))
		return 0;
	p++;
	for (unsigned i = 0; i < n; i++) {
		char *end;
		out[i] = (uint32_t)strtoul(p, &end, 0);
		if (end == p)
			return 0;
		p = end;
		while (*p == ',' || *p == ' ' || *p == '\n' || *p == '\t')
			p++;
	}
	return *p == '}';
}

/* The tables a kernel for f loads through: from its PTX when it has one,
 * else built the way kernel_sm120.c builds them. */
struct tables {
	uint32_t ta[32 * 4 * 8], tb[32 * 4 * 8], tsa[128], tsb[128];
	int from_ptx;
};

static void build_frag_table(const mmagen_form *f, int o, const mmagen_frag *fr,
			     uint32_t *tab)
{
	unsigned i = 0;
	for (unsigned l = 0; l < 32; l++)
		for (unsigned r = 0; r < fr->regs; r++)
			for (unsigned e = 0; e < fr->elems; e++, i++) {
				unsigned row, col;
				mmagen_frag_map(f, o, l, r, e, &row, &col);
				tab[i] = row * fr->cols + col;
			}
}

/* Inverse of mmagen_scale_pos; 0 if a byte would be claimed twice. */
static int build_scale_table(const mmagen_form *f, int o, unsigned bid, unsigned tid,
			     uint32_t *tab)
{
	unsigned sv = mmagen_scale_vec(f);
	unsigned rows = o == MMAGEN_OPND_A ? f->m : sv, cols = o == MMAGEN_OPND_A ? sv : f->n;

	for (unsigned i = 0; i < 128; i++)
		tab[i] = NONE;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned c = 0; c < cols; c++) {
			unsigned lane, byte;
			if (mmagen_scale_pos(f, o, bid, tid, r, c, &lane, &byte) ||
			    lane >= 32 || byte >= 4 || tab[lane * 4 + byte] != NONE)
				return 0;
			tab[lane * 4 + byte] = r * cols + c;
		}
	return 1;
}

static int get_tables(const mmagen_form *f, int t, const mmagen_frag *fa,
		      const mmagen_frag *fb, struct tables *tb)
{
	char *ptx;
	size_t len;

	memset(tb, 0, sizeof *tb);
	if (!f->sparse) {
		int ok = !mmagen_emit_tile(f, t, NULL, MMAGEN_FMT_PTX, &ptx, &len);
		check(ok, "emit tile: %s", mmagen_last_error());
		if (!ok)
			return 0;
		ok = parse_table(ptx, "mmagen_ta", tb->ta, 32 * fa->regs * fa->elems) &&
		     parse_table(ptx, "mmagen_tb", tb->tb, 32 * fb->regs * fb->elems) &&
		     parse_table(ptx, "mmagen_tsa", tb->tsa, 128) &&
		     parse_table(ptx, "mmagen_tsb", tb->tsb, 128);
		mmagen_free(ptx);
		check(ok, "parse the tile kernel's tables");
		tb->from_ptx = 1;
		return ok;
	}
	build_frag_table(f, MMAGEN_OPND_A, fa, tb->ta);
	build_frag_table(f, MMAGEN_OPND_B, fb, tb->tb);
	return build_scale_table(f, MMAGEN_OPND_A, 0, 0, tb->tsa) &&
	       build_scale_table(f, MMAGEN_OPND_B, 0, 0, tb->tsb);
}

/* ---- the PTX ISA, written out independently ----
 * Fragments of m16n8k32 (8-bit) and m16n8k64 (4-bit) A and of B, with E
 * = 32 / w elements per register, g = lane / 4, q = lane % 4:
 *   A reg r elem e: row g + 8 (r % 2), col q E + e + 4E (r / 2)
 *   B reg r elem e: row (k) q E + e + 4E r, col g
 * Sparse A (compressed M x K/2) has the dense half-K layout; sparse B is
 * the same formula with 4 registers.  Scales (Block Scaling for mma.sync,
 * Figures 43-45): thread-id-a picks the pair lane % 4 in {2 tid, 2 tid + 1};
 * of that pair, the first lane holds row g, the second row g + 8;
 * thread-id-b picks lane % 4 == tid, holding column g; scale s of the
 * vector sits in byte byte-id + s. */
static void isa_frag(int o, unsigned w, unsigned lane, unsigned r, unsigned e,
		     unsigned *row, unsigned *col)
{
	unsigned E = 32 / w, g = lane / 4, q = lane % 4;

	if (o == MMAGEN_OPND_A) {
		*row = g + 8 * (r % 2);
		*col = q * E + e + 4 * E * (r / 2);
	} else {
		*row = q * E + e + 4 * E * r;
		*col = g;
	}
}

/* Which scale (row, col) byte `byte` of lane holds, or 0 if none. */
static int isa_scale(int o, unsigned sv, unsigned bid, unsigned tid, unsigned lane,
		     unsigned byte, unsigned *row, unsigned *col)
{
	if (byte < bid || byte >= bid + sv)
		return 0;
	if (o == MMAGEN_OPND_A) {
		if ((lane % 4) / 2 != tid)
			return 0;
		*row = lane / 4 + 8 * (lane % 2);
		*col = byte - bid;
	} else {
		if (lane % 4 != tid)
			return 0;
		*row = byte - bid;
		*col = lane / 4;
	}
	return 1;
}

/* ---- one form ---- */

struct inputs {
	unsigned m, n, k, ka, sv;         /* ka: A's stored columns */
	uint64_t *a, *av, *b, *c, *sa, *sb;   /* a: logical, av: stored */
	uint8_t *ma, *mb, *msa, *msb;
	uint8_t *idx;                     /* sparse: kept positions */
};

static void free_inputs(struct inputs *x)
{
	free(x->a); free(x->av); free(x->b); free(x->c); free(x->sa); free(x->sb);
	free(x->ma); free(x->mb); free(x->msa); free(x->msb); free(x->idx);
}

static int make_inputs(const mmagen_form *f, const mmagen_frag *fa, const mmagen_frag *fb,
		       struct inputs *x)
{
	mmagen_type st = (mmagen_type)f->stype;

	memset(x, 0, sizeof *x);
	x->m = f->m; x->n = f->n; x->k = f->k;
	x->ka = fa->cols;
	x->sv = mmagen_scale_vec(f);
	x->a = calloc((size_t)x->m * x->k, 8);
	x->av = calloc((size_t)x->m * x->ka, 8);
	x->b = calloc((size_t)x->k * x->n, 8);
	x->c = calloc((size_t)x->m * x->n, 8);
	x->sa = calloc((size_t)x->m * x->sv, 8);
	x->sb = calloc((size_t)x->sv * x->n, 8);
	x->ma = calloc((size_t)x->m * x->ka, 1);
	x->mb = calloc((size_t)x->k * x->n, 1);
	x->msa = calloc((size_t)x->m * x->sv, 1);
	x->msb = calloc((size_t)x->sv * x->n, 1);
	if (!x->a || !x->av || !x->b || !x->c || !x->sa || !x->sb || !x->ma || !x->mb ||
	    !x->msa || !x->msb)
		return 0;
	for (size_t i = 0; i < (size_t)x->m * x->k; i++)
		x->a[i] = rand_finite((mmagen_type)f->a);
	for (size_t i = 0; i < (size_t)x->k * x->n; i++)
		x->b[i] = rand_finite((mmagen_type)f->b);
	for (size_t i = 0; i < (size_t)x->m * x->n; i++)
		x->c[i] = mmagen_type_encode(MMAGEN_F32, (double)((int)(next() % 201) - 100) / 8);
	for (size_t i = 0; i < (size_t)x->m * x->sv; i++)
		x->msa[i] = (uint8_t)(x->sa[i] = rand_scale(st));
	for (size_t i = 0; i < (size_t)x->sv * x->n; i++)
		x->msb[i] = (uint8_t)(x->sb[i] = rand_scale(st));
	if (f->sparse) {
		x->idx = calloc((size_t)x->m * x->ka, 1);
		if (!x->idx || mmagen_sparse_prune(f, x->m, x->k, x->a) ||
		    mmagen_sparse_compress(f, x->m, x->k, x->a, x->av, x->idx))
			return 0;
	} else {
		memcpy(x->av, x->a, (size_t)x->m * x->k * 8);
	}
	pack(x->ma, x->av, (size_t)x->m * x->ka, fa->elem_bits, (mmagen_type)f->a);
	pack(x->mb, x->b, (size_t)x->k * x->n, fb->elem_bits, (mmagen_type)f->b);
	return 1;
}

/* The kernel's registers: frag[lane][reg] and the scale register. */
static void load_frag(const uint8_t *mem, const uint32_t *tab, const mmagen_frag *fr,
		      uint32_t reg[32][4])
{
	for (unsigned l = 0; l < 32; l++)
		for (unsigned r = 0; r < fr->regs; r++) {
			reg[l][r] = 0;
			for (unsigned e = 0; e < fr->elems; e++) {
				uint32_t i = tab[(l * fr->regs + r) * fr->elems + e];
				reg[l][r] |= load_elem(mem, i, fr->elem_bits) << (e * fr->elem_bits);
			}
		}
}

static void load_scales(const uint8_t *mem, const uint32_t *tab, uint32_t reg[32])
{
	for (unsigned l = 0; l < 32; l++) {
		reg[l] = 0;
		for (unsigned j = 0; j < 4; j++)
			if (tab[l * 4 + j] != NONE)
				reg[l] |= (uint32_t)mem[tab[l * 4 + j]] << (8 * j);
	}
}

/* The element pattern in a register slot, container bits removed. */
static uint64_t slot(uint32_t reg, unsigned e, unsigned w, mmagen_type t)
{
	uint64_t v = (reg >> (e * w)) & (w == 32 ? 0xFFFFFFFFu : (1u << w) - 1);
	return w == 8 && t == MMAGEN_E2M1 ? v >> 2 : v;
}

/* (a) for a fragment: each stored element exactly once, where the ISA
 * puts it, with the right pattern. */
static void check_frag(const char *op, int o, const mmagen_form *f, const mmagen_frag *fr,
		       uint32_t reg[32][4], const uint64_t *stored)
{
	mmagen_type t = (mmagen_type)(o == MMAGEN_OPND_A ? f->a : f->b);
	unsigned n = fr->rows * fr->cols, bad = 0;
	unsigned char *seen = calloc(n, 1);

	for (unsigned l = 0; l < 32; l++)
		for (unsigned r = 0; r < fr->regs; r++)
			for (unsigned e = 0; e < fr->elems; e++) {
				unsigned row, col;
				isa_frag(o, fr->elem_bits, l, r, e, &row, &col);
				if (row >= fr->rows || col >= fr->cols) {
					bad++;
					continue;
				}
				seen[row * fr->cols + col]++;
				bad += slot(reg[l][r], e, fr->elem_bits, t) !=
				       stored[row * fr->cols + col];
			}
	for (unsigned i = 0; i < n; i++)
		bad += seen[i] != 1;
	/* container bits outside the element are zero */
	if (fr->elem_bits == 8 && mmagen_type_bits(t) < 8)
		for (unsigned l = 0; l < 32; l++)
			for (unsigned r = 0; r < fr->regs; r++)
				for (unsigned e = 0; e < 4; e++) {
					unsigned v = reg[l][r] >> (8 * e) & 0xFF;
					unsigned keep = t == MMAGEN_E2M1 ? 0x3C : 0x3F;
					bad += (v & ~keep) != 0;
				}
	check(!bad, "%s: %s fragment: %u misplaced/duplicated elements", op,
	      o == MMAGEN_OPND_A ? "A" : "B", bad);
	free(seen);
}

/* (a) for scales: each factor exactly once, at its ISA lane and byte; every
 * other byte of the register 0. */
static void check_scales(const char *op, int o, unsigned sv, unsigned bid, unsigned tid,
			 unsigned rows, unsigned cols, const uint32_t reg[32],
			 const uint8_t *mem, const uint32_t *tab)
{
	unsigned bad = 0, *seen = calloc(rows * cols, sizeof *seen);

	for (unsigned l = 0; l < 32; l++)
		for (unsigned j = 0; j < 4; j++) {
			unsigned row, col, v = reg[l] >> (8 * j) & 0xFF;
			if (!isa_scale(o, sv, bid, tid, l, j, &row, &col)) {
				bad += tab[l * 4 + j] != NONE;
				continue;
			}
			seen[row * cols + col]++;
			bad += v != mem[row * cols + col];
		}
	for (unsigned i = 0; i < rows * cols; i++)
		bad += seen[i] != 1;
	check(!bad, "%s: scale_%s byte-id %u thread-id %u: %u misplaced scales", op,
	      o == MMAGEN_OPND_A ? "A" : "B", bid, tid, bad);
	free(seen);
}

/* (b) D from the registers alone. */
static void check_product(const char *op, const mmagen_form *f, const struct inputs *x,
			  const mmagen_frag *fa, const mmagen_frag *fb,
			  uint32_t ra[32][4], uint32_t rb[32][4], const uint32_t rsa[32],
			  const uint32_t rsb[32])
{
	unsigned m = x->m, n = x->n, k = x->k, kb = k / x->sv;
	double *av = calloc((size_t)m * x->ka, sizeof *av), *bv = calloc((size_t)k * n, sizeof *bv);
	double *sa = calloc((size_t)m * x->sv, sizeof *sa), *sb = calloc((size_t)x->sv * n, sizeof *sb);
	uint64_t *d = calloc((size_t)m * n, 8);
	double *dref = calloc((size_t)m * n, sizeof *dref);
	mmagen_type st = (mmagen_type)f->stype;

	for (unsigned l = 0; l < 32; l++) {
		unsigned row, col;
		for (unsigned r = 0; r < fa->regs; r++)
			for (unsigned e = 0; e < fa->elems; e++) {
				isa_frag(MMAGEN_OPND_A, fa->elem_bits, l, r, e, &row, &col);
				av[row * x->ka + col] = mmagen_type_decode((mmagen_type)f->a,
					slot(ra[l][r], e, fa->elem_bits, (mmagen_type)f->a));
			}
		for (unsigned r = 0; r < fb->regs; r++)
			for (unsigned e = 0; e < fb->elems; e++) {
				isa_frag(MMAGEN_OPND_B, fb->elem_bits, l, r, e, &row, &col);
				bv[row * n + col] = mmagen_type_decode((mmagen_type)f->b,
					slot(rb[l][r], e, fb->elem_bits, (mmagen_type)f->b));
			}
		for (unsigned j = 0; j < 4; j++) {
			if (isa_scale(MMAGEN_OPND_A, x->sv, 0, 0, l, j, &row, &col))
				sa[row * x->sv + col] = mmagen_type_decode(st, rsa[l] >> (8 * j) & 0xFF);
			if (isa_scale(MMAGEN_OPND_B, x->sv, 0, 0, l, j, &row, &col))
				sb[row * n + col] = mmagen_type_decode(st, rsb[l] >> (8 * j) & 0xFF);
		}
	}
	/* the logical A from the registers' values: dense as stored; sparse
	 * (2:4, or 4:8 in pairs for packed e2m1) by the kept positions */
	double *alog = calloc((size_t)m * k, sizeof *alog);
	unsigned unit = fa->elem_bits == 4 ? 2 : 1, keep = 2 * unit, group = 2 * keep;
	for (unsigned i = 0; i < m; i++)
		for (unsigned cc = 0; cc < x->ka; cc++) {
			unsigned col = cc;
			if (f->sparse)
				col = cc / keep * group + x->idx[i * x->ka + cc] * unit + cc % unit;
			alog[i * k + col] = av[i * x->ka + cc];
		}
	mmagen_ref_args ra_ = { f, m, n, k, x->a, x->b, x->c, x->sa, x->sb, d, dref };
	check(!mmagen_ref_mma(&ra_), "%s: ref: %s", op, mmagen_last_error());
	unsigned bad = 0;
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = 0; j < n; j++) {
			double sum = mmagen_type_decode(MMAGEN_F32, x->c[i * n + j]), mag = fabs(sum);
			for (unsigned s = 0; s < x->sv; s++) {
				double part = 0;
				for (unsigned kk = s * kb; kk < (s + 1) * kb; kk++)
					part += alog[i * k + kk] * bv[kk * n + j];
				double sc = sa[i * x->sv + s] * sb[s * n + j];
				sum += part * sc;
				mag += fabs(part * sc);
			}
			if (fabs(sum - dref[i * n + j]) > 1e-12 * mag)
				bad++;
		}
	/* and the logical A is the one the reference was given */
	for (size_t i = 0; i < (size_t)m * k; i++)
		bad += alog[i] != mmagen_type_decode((mmagen_type)f->a, x->a[i]);
	check(!bad, "%s: D from the registers differs from mmagen_ref_mma in %u places", op, bad);
	free(av); free(bv); free(sa); free(sb); free(d); free(dref); free(alog);
}

static void one_form(const mmagen_form *f, int t)
{
	char op[256];
	mmagen_frag fa, fb;
	struct tables tb;
	struct inputs x;
	uint32_t ra[32][4], rb[32][4], rsa[32], rsb[32];

	mmagen_form_opcode(f, op, sizeof op);
	if (mmagen_frag_info(f, MMAGEN_OPND_A, &fa) || mmagen_frag_info(f, MMAGEN_OPND_B, &fb)) {
		check(0, "%s: frag info: %s", op, mmagen_last_error());
		return;
	}
	check(fa.regs == 4 && fb.regs == (f->sparse ? 4u : 2u) && fa.elems * fa.elem_bits == 32,
	      "%s: register counts A %u B %u", op, fa.regs, fb.regs);
	/* the scale vector covers the instruction's K in ref.c's blocks */
	unsigned sv = mmagen_scale_vec(f);
	check(sv == 1 || sv == 2 || sv == 4, "%s: scale vector %u", op, sv);
	if (!get_tables(f, t, &fa, &fb, &tb) || !make_inputs(f, &fa, &fb, &x)) {
		check(0, "%s: setup failed", op);
		free_inputs(&x);
		return;
	}
	load_frag(x.ma, tb.ta, &fa, ra);
	load_frag(x.mb, tb.tb, &fb, rb);
	load_scales(x.msa, tb.tsa, rsa);
	load_scales(x.msb, tb.tsb, rsb);
	check_frag(op, MMAGEN_OPND_A, f, &fa, ra, x.av);
	check_frag(op, MMAGEN_OPND_B, f, &fb, rb, x.b);
	check_scales(op, MMAGEN_OPND_A, sv, 0, 0, x.m, sv, rsa, x.msa, tb.tsa);
	check_scales(op, MMAGEN_OPND_B, sv, 0, 0, sv, x.n, rsb, x.msb, tb.tsb);
	check_product(op, f, &x, &fa, &fb, ra, rb, rsa, rsb);

	/* every legal selector: the layout function agrees with the ISA */
	for (unsigned bid = 0; bid < 4; bid++)
		for (unsigned tid = 0; tid < 4; tid++) {
			int legal_b = sv == 1 || (sv == 2 && bid % 2 == 0) || bid == 0;
			uint32_t tab[128], reg[32];
			for (int o = MMAGEN_OPND_A; o <= MMAGEN_OPND_B; o++) {
				int legal = legal_b && tid <= (o == MMAGEN_OPND_A ? 1u : 3u);
				unsigned rows = o == MMAGEN_OPND_A ? x.m : sv;
				unsigned cols = o == MMAGEN_OPND_A ? sv : x.n;
				const uint8_t *mem = o == MMAGEN_OPND_A ? x.msa : x.msb;
				int built = build_scale_table(f, o, bid, tid, tab);
				check(built == legal, "%s: selectors {%u, %u} for %s: %s", op, bid, tid,
				      o == MMAGEN_OPND_A ? "A" : "B", built ? "accepted" : "rejected");
				if (!built || !legal)
					continue;
				load_scales(mem, tab, reg);
				check_scales(op, o, sv, bid, tid, rows, cols, reg, mem, tab);
			}
		}
	free_inputs(&x);
}

int main(void)
{
	int t;
	char prev[256] = "", op[256];
	unsigned forms = 0, sparse = 0;

	mmagen_target_parse("sm_120a", &t);
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_MMA || !f->block_scale || !mmagen_form_on_target(f, t))
			continue;
		if (!strcmp(mmagen_form_opcode(f, op, sizeof op), prev))
			continue;
		snprintf(prev, sizeof prev, "%s", op);
		for (int rep = 0; rep < 3; rep++)
			one_form(f, t);
		forms++;
		sparse += f->sparse != 0;
	}
	check(forms >= 100, "only %u block-scaled forms", forms);
	printf("sm120: %u forms (%u sparse), %lu passed, %lu failed\n", forms, sparse,
	       passed, failed);
	return failed ? 1 : 0;
}
