/* sparse.c - structured sparsity of A: prune, check, compress.
 *
 * The granule follows PTX ISA 9.0 section 9.7.14.6.1 (Sparse matrix
 * storage): 2:4 for 16- and 8-bit types (FP6/FP4 in 8-bit containers
 * included), 1:2 for tf32, and for packed 4-bit types (s4/u4, e2m1 under
 * kind::mxf4/mxf4nvf4) 4:8 "pair-wise": the unit kept or dropped is a
 * pair of adjacent elements, two pairs out of four, so idx counts pairs.
 */
#include "internal.h"

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
