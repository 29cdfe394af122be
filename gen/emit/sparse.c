/* sparse.c - structured sparsity of A: prune, check, compress.
 *
 * The granule follows PTX ISA 9.0 section 9.7.14.6.1 (Sparse matrix
 * storage): 2:4 for 16- and 8-bit types (FP6/FP4 in 8-bit containers
 * included), 1:2 for tf32, and for packed 4-bit types (s4/u4, e2m1 under
 * kind::mxf4/mxf4nvf4) 4:8 "pair-wise": the unit kept or dropped is a
 * pair of adjacent elements, two pairs out of four, so idx counts pairs.
 */
#include "internal.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* Elements per group along K, elements kept per group, and elements per
 * unit (1, or 2 for pair-wise); 0 on success. */
int mmagen_sparse_granule(const mmagen_form *f, unsigned *group,
			  unsigned *keep, unsigned *unit)
{
	unsigned bits = mmagen_type_bits((mmagen_type)f->a);

	if (f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4)
		bits = 8;
	*unit = 1;
	if (f->a == MMAGEN_TF32) {
		*group = 2;
		*keep = 1;
	} else if (bits == 16 || bits == 8) {
		*group = 4;
		*keep = 2;
	} else if (bits == 4) {
		*group = 8;
		*keep = 4;
		*unit = 2;
	} else {
		return -1;
	}
	return 0;
}

struct granule {
	unsigned group, keep, unit;
	unsigned units, kunits;   /* units per group, kept units per group */
};

static mmagen_status setup(const mmagen_form *f, unsigned m, unsigned k,
			   const void *a, struct granule *g)
{
	if (!f || !f->sparse || !a || !m || !k)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparsity: need a sparse form, a matrix and m, k > 0");
	if (mmagen_sparse_granule(f, &g->group, &g->keep, &g->unit))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"sparsity: no structured sparsity for %s",
			mmagen_type_name((mmagen_type)f->a));
	if (k % g->group)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparsity: k = %u is not a multiple of the group (%u)",
			k, g->group);
	g->units = g->group / g->unit;
	g->kunits = g->keep / g->unit;
	return MMAGEN_OK;
}

/* Magnitude of a unit: the sum of its elements' |values|.  NaN counts as
 * the largest, so that pruning never hides one. */
static double unit_mag(const mmagen_form *f, const uint64_t *e, unsigned n)
{
	double s = 0;

	for (unsigned i = 0; i < n; i++) {
		double v = fabs(mmagen_type_decode((mmagen_type)f->a, e[i]));
		s += isnan(v) ? INFINITY : v;
	}
	return s;
}

static int unit_nonzero(const mmagen_form *f, const uint64_t *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (mmagen_type_decode((mmagen_type)f->a, e[i]) != 0.0)
			return 1;
	return 0;
}

/* Bit mask of the units of one group that pruning keeps: the kunits
 * largest, the lower position winning ties. */
static unsigned keep_mask(const mmagen_form *f, const struct granule *g,
			  const uint64_t *grp)
{
	double mag[8];
	unsigned mask = 0;

	for (unsigned u = 0; u < g->units; u++)
		mag[u] = unit_mag(f, grp + u * g->unit, g->unit);
	for (unsigned n = 0; n < g->kunits; n++) {
		unsigned best = g->units;
		for (unsigned u = 0; u < g->units; u++)
			if (!(mask & 1u << u) &&
			    (best == g->units || mag[u] > mag[best]))
				best = u;
		mask |= 1u << best;
	}
	return mask;
}

mmagen_status mmagen_sparse_prune(const mmagen_form *f, unsigned m, unsigned k,
				  uint64_t *a)
{
	struct granule g;
	mmagen_status s = setup(f, m, k, a, &g);

	if (s != MMAGEN_OK)
		return s;
	for (size_t at = 0; at < (size_t)m * k; at += g.group) {
		unsigned mask = keep_mask(f, &g, a + at);
		for (unsigned u = 0; u < g.units; u++)
			if (!(mask & 1u << u))
				memset(a + at + u * g.unit, 0,
				       g.unit * sizeof *a);
	}
	return MMAGEN_OK;
}

/* Bit mask of the nonzero units of one group. */
static unsigned nonzero_mask(const mmagen_form *f, const struct granule *g,
			     const uint64_t *grp)
{
	unsigned mask = 0;

	for (unsigned u = 0; u < g->units; u++)
		if (unit_nonzero(f, grp + u * g->unit, g->unit))
			mask |= 1u << u;
	return mask;
}

static unsigned popcount(unsigned x)
{
	unsigned n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

int mmagen_sparse_check(const mmagen_form *f, unsigned m, unsigned k,
			const uint64_t *a)
{
	struct granule g;

	if (setup(f, m, k, a, &g) != MMAGEN_OK)
		return 0;
	for (size_t at = 0; at < (size_t)m * k; at += g.group)
		if (popcount(nonzero_mask(f, &g, a + at)) > g.kunits)
			return 0;
	return 1;
}

mmagen_status mmagen_sparse_compress(const mmagen_form *f, unsigned m,
				     unsigned k, const uint64_t *a,
				     uint64_t *values, uint8_t *idx)
{
	struct granule g;
	mmagen_status s = setup(f, m, k, a, &g);

	if (s != MMAGEN_OK)
		return s;
	if (!values || !idx)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparsity: compress needs values and idx");
	if (!mmagen_sparse_check(f, m, k, a))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"sparsity: A has a group with more than %u of %u "
			"nonzero; prune it first", g.keep, g.group);

	size_t out = 0;
	for (size_t at = 0; at < (size_t)m * k; at += g.group) {
		unsigned mask = nonzero_mask(f, &g, a + at);
		/* Too few nonzeros: take the lowest unused positions, so that
		 * the indices stay distinct and ascending as
		 * .sp::ordered_metadata requires. */
		for (unsigned u = 0; popcount(mask) < g.kunits; u++)
			mask |= 1u << u;
		for (unsigned u = 0; u < g.units; u++) {
			if (!(mask & 1u << u))
				continue;
			for (unsigned e = 0; e < g.unit; e++, out++) {
				values[out] = a[at + u * g.unit + e];
				idx[out] = (uint8_t)u;
			}
		}
	}
	return MMAGEN_OK;
}

/* ---- tcgen05 .sp: the metadata in Tensor Memory ----
 *
 * A row's metadata is one bit string in K order (2-bit indices for 2:4,
 * 4-bit codes for tf32's 1:2 and for the pair-wise 4:8), cut into 16-bit
 * pieces: 2 per row for kind::f16/tf32 (32 bits), 4 for the 8-bit and
 * packed 4-bit kinds (64 bits).  A layout is a list of digits, least
 * significant first, that split the row (within the CTA) and the piece
 * number and move the (lane, 16-bit slot) position by fixed steps; then
 * the whole image is copied to the listed lane offsets.
 *
 * Sources.  kind::f16/tf32, M = 128 per CTA (cta_group::1 M = 128, .ws
 * M = 128, cta_group::2 M = 256): lane = m%8 + 8 (piece) + 16 (m/16), slot
 * (m/8)%2 -- CUTLASS cute/atom/mma_traits_sm100_frag.hpp (tmem_e_frg,
 * 16- and 32-bit atoms) and JAX's format_tcgen05_sparse_metadata
 * (reshape (8,2,8) x (4,2,8), citing the ISA's "Sparsity selector:
 * kind::f16, M = 128/256" figure) agree; the ISA draws it only as a
 * figure.  .ws M = 64 and 32: the same atom on 64 or 32 lanes, copied to
 * every lane group (tmem_e_frg_ws).  The 8-bit and 4-bit kinds: row m in
 * lane m, pieces along the columns (tmem_e_frg, 8-bit atom; JAX, 8-bit).
 * kind::f16/tf32 with 64 rows per CTA and no .ws (cta_group::1 M = 64,
 * cta_group::2 M = 128) has no second source: no layout here. */
enum { TM_ROW, TM_PIECE };
enum { TM_NP = 0xFF };            /* size: the pieces per row */

struct tm_digit {
	uint8_t src, size, dlane, dslot;
};

struct tm_layout {
	uint8_t wide;                 /* 1: kind::f16/tf32 */
	uint8_t rows, ws;             /* rows per CTA; ws 2: either */
	struct tm_digit d[4];
	uint8_t ncopies, copies[4];   /* lane offsets of the copies */
};

#define ROWD(n, l, s) { TM_ROW, (n), (l), (s) }
#define PIECED(n, l, s) { TM_PIECE, (n), (l), (s) }
static const struct tm_layout tm_layouts[] = {
	{ 1, 128, 2, { ROWD(8, 1, 0), ROWD(2, 0, 1), ROWD(8, 16, 0), PIECED(2, 8, 0) }, 1, { 0 } },
	{ 1, 64, 1, { ROWD(8, 1, 0), ROWD(2, 0, 1), ROWD(4, 16, 0), PIECED(2, 8, 0) }, 2, { 0, 64 } },
	{ 1, 32, 1, { ROWD(8, 1, 0), ROWD(2, 0, 1), ROWD(2, 16, 0), PIECED(2, 8, 0) },
	  4, { 0, 32, 64, 96 } },
	{ 0, 128, 2, { ROWD(128, 1, 0), PIECED(TM_NP, 0, 1) }, 1, { 0 } },
	{ 0, 64, 1, { ROWD(64, 1, 0), PIECED(TM_NP, 0, 1) }, 2, { 0, 64 } },
	{ 0, 32, 1, { ROWD(32, 1, 0), PIECED(TM_NP, 0, 1) }, 4, { 0, 32, 64, 96 } },
	/* half data path (Layouts C and F): lanes 0-15 of each lane group */
	{ 0, 64, 0, { ROWD(16, 1, 0), ROWD(4, 32, 0), PIECED(TM_NP, 0, 1) }, 1, { 0 } },
};
#undef ROWD
#undef PIECED

unsigned tc_meta_pieces(const mmagen_form *f)
{
	return f->kind == MMAGEN_KIND_F16 || f->kind == MMAGEN_KIND_TF32 ? 2 : 4;
}

mmagen_status tc_meta_table(const mmagen_form *f, unsigned rows, uint32_t *tab)
{
	int wide = f->kind == MMAGEN_KIND_F16 || f->kind == MMAGEN_KIND_TF32;
	unsigned np = tc_meta_pieces(f);
	const struct tm_layout *l = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(tm_layouts) && !l; i++)
		if (tm_layouts[i].wide == wide && tm_layouts[i].rows == rows &&
		    (tm_layouts[i].ws == 2 || tm_layouts[i].ws == !!f->ws))
			l = &tm_layouts[i];
	if (!l)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"no tile kernel for sparse kind::%s with %u rows per CTA%s: where its metadata "
			"sits in Tensor Memory is drawn only in the ISA's figures, and no second "
			"source has it (use M = %s)", mmagen_qual_name(MMAGEN_Q_KIND, f->kind), rows,
			f->ws ? " (.ws)" : "", f->cta_group == 2 ? "256" : "128");
	for (unsigned i = 0; i < TC_LANES * np; i++)
		tab[i] = TC_META_NONE;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned pc = 0; pc < np; pc++) {
			unsigned left[2] = { r, pc }, lane = 0, slot = 0;
			for (unsigned i = 0; i < ARRAY_SIZE(l->d) && l->d[i].size; i++) {
				const struct tm_digit *d = &l->d[i];
				unsigned size = d->size == TM_NP ? np : d->size;
				unsigned x = left[d->src] % size;
				left[d->src] /= size;
				lane += x * d->dlane;
				slot += x * d->dslot;
			}
			assert(!left[0] && !left[1] && slot < np);
			for (unsigned c = 0; c < l->ncopies; c++) {
				unsigned at = (lane + l->copies[c]) * np + slot;
				assert(lane + l->copies[c] < TC_LANES && tab[at] == TC_META_NONE);
				tab[at] = r * np + pc;
			}
		}
	return MMAGEN_OK;
}
