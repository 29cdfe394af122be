/* check.c - checking a tile kernel, everything but the GPU: inputs for its
 * parameters, the exact reference D (ref.c), and the comparison of the D
 * the kernel wrote with it (mmagen_ref_accept).
 *
 * Parameters are looked up by their manifest names.  Operands are kept as
 * element patterns, row-major, one per uint64_t (the reference's format),
 * and packed into the kernel's memory format: element i of a row-major
 * stream at bits [i*w, (i+1)*w), little-endian, w the manifest's
 * elem_bits. */
#include "internal.h"
#include "abi.h"
#include "ref.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operands by name; the slot order is internal. */
enum { OP_A, OP_B, OP_C, OP_D, OP_E, OP_SA, OP_SB, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "A", "B", "C", "D", "E", "SA", "SB" };

static const char *const input_names[] = {
#define X(id, name) name,
	MMAGEN_CHECK_INPUTS_LIST(X)
#undef X
};

struct mmagen_check {
	mmagen_form form;
	mmagen_tile_opts opts;
	mmagen_tile_info ti;
	unsigned m, n, k;
	int param[OP_COUNT];          /* manifest index, -1 when absent */
	uint64_t *op[OP_COUNT];       /* logical operands (E: unused; D:
				       * the expected patterns) */
	unsigned rows[OP_COUNT], cols[OP_COUNT];
	double *exact;                /* m x n: before rounding into D */
	double *mag;                  /* m x n: sum |a*b| + |c| */
	uint8_t **data;               /* per parameter: what to copy in */
};

const char *mmagen_check_inputs_name(unsigned inputs)
{
	return inputs < ARRAY_SIZE(input_names) ? input_names[inputs] : NULL;
}

mmagen_status mmagen_check_inputs_parse(const char *s, unsigned *out)
{
	if (!s || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_check_inputs_parse: NULL argument");
	for (unsigned i = 0; i < ARRAY_SIZE(input_names); i++)
		if (!strcmp(s, input_names[i])) {
			*out = i;
			return MMAGEN_OK;
		}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"unknown input set '%s'; use random, max, subnormal, special or overflow", s);
}

mmagen_status mmagen_check_find_param(const mmagen_tile_info *ti, const char *name,
				      unsigned *index)
{
	char have[64] = "";

	if (!ti || !name || !index)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_check_find_param: NULL argument");
	if (ti->nparams > ARRAY_SIZE(ti->params))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile manifest with %u parameters; it holds at most %u",
			ti->nparams, (unsigned)ARRAY_SIZE(ti->params));
	for (unsigned p = 0; p < ti->nparams; p++) {
		if (ti->params[p].name && !strcmp(ti->params[p].name, name)) {
			*index = p;
			return MMAGEN_OK;
		}
		size_t l = strlen(have);
		snprintf(have + l, sizeof have - l, "%s%s", p ? ", " : "",
			 ti->params[p].name ? ti->params[p].name : "?");
	}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"the tile kernel %s has no parameter '%s'; it has %s",
		ti->kernel ? ti->kernel : "?", name, have);
}

/* ---- random inputs ---- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: fast, and any seed is good */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A random finite pattern of type t with |value| <= limit (floats), drawn
 * over every bit pattern of the type so that subnormals, both signs and
 * every exponent up to the limit occur; never NaN or Inf. */
static uint64_t rand_pattern(mmagen_type t, double limit, uint64_t *s)
{
	unsigned bits = mmagen_type_bits(t);
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t p = rng_next(s) & mask;
		if (t == MMAGEN_TF32)
			p &= ~0x1FFFull;
		if (!mmagen_type_is_float(t))
			return p;
		double v = mmagen_type_decode(t, p);
		if (isfinite(v) && fabs(v) <= limit)
			return p;
	}
	return mmagen_type_encode(t, 1.0);
}

/* Largest input magnitude that keeps every partial sum finite in D: a
 * float accumulator of range R with K products needs |a|,|b| <= sqrt(R/4K). */
static double input_limit(mmagen_type d, unsigned k)
{
	if (!mmagen_type_is_float(d))
		return INFINITY;
	return sqrt(mmagen_type_max(d) / (4.0 * k));
}

/* Smallest normal magnitude of the float types that have subnormals. */
static double min_normal(mmagen_type t)
{
	switch (t) {
	case MMAGEN_F64: return 0x1p-1022;
	case MMAGEN_F32: case MMAGEN_TF32: case MMAGEN_BF16: return 0x1p-126;
	case MMAGEN_F16: case MMAGEN_E5M2: return 0x1p-14;
	case MMAGEN_E4M3: return 0x1p-6;
	case MMAGEN_E3M2: return 0x1p-2;
	case MMAGEN_E2M3: case MMAGEN_E2M1: return 1.0;
	default: return 0;
	}
}

/* Fill A, B and C with random patterns, then apply the edge-case set. */
static void make_inputs(struct mmagen_check *c, unsigned inputs, uint64_t *s)
{
	const mmagen_form *f = &c->form;
	unsigned m = c->m, n = c->n, k = c->k;
	mmagen_type ta = (mmagen_type)f->a, tb = (mmagen_type)f->b, tc = (mmagen_type)f->c;
	uint64_t *a = c->op[OP_A], *b = c->op[OP_B], *cc = c->op[OP_C];
	size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
	double lim = input_limit((mmagen_type)f->d, k);
	double clim = isinf(lim) ? lim : lim * lim;

	for (size_t i = 0; i < na; i++)
		a[i] = rand_pattern(ta, lim, s);
	for (size_t i = 0; i < nb; i++)
		b[i] = rand_pattern(tb, lim, s);
	for (size_t i = 0; i < nc; i++)
		cc[i] = rand_pattern(tc, clim, s);

	switch (inputs) {
	case MMAGEN_CHECK_MAX: {
		/* Mixed signs only where no partial sum can overflow D: else
		 * the hardware's summation order decides between +Inf, -Inf
		 * and NaN, and no reference can say which; with one sign the
		 * answer is +Inf in every order. */
		double dmax = mmagen_type_max((mmagen_type)f->d);
		int mixed = !mmagen_type_is_float((mmagen_type)f->d) ||
			    mmagen_type_max(ta) * mmagen_type_max(tb) * k * 2 <= dmax;
		for (size_t i = 0; i < na; i++)
			a[i] = mmagen_type_encode(ta, (mixed && rng_next(s) & 1 ? -1 : 1) *
						      mmagen_type_max(ta));
		for (size_t i = 0; i < nb; i++)
			b[i] = mmagen_type_encode(tb, (mixed && rng_next(s) & 1 ? -1 : 1) *
						      mmagen_type_max(tb));
		if (!mixed)
			for (size_t i = 0; i < nc; i++)
				cc[i] = mmagen_type_encode(tc, fabs(mmagen_type_decode(tc, cc[i])));
		break;
	}
	case MMAGEN_CHECK_SUBNORMAL: {
		uint64_t *arr[3] = { a, b, cc };
		mmagen_type ty[3] = { ta, tb, tc };
		size_t cnt[3] = { na, nb, nc };
		for (int o = 0; o < 3; o++) {
			double mn = min_normal(ty[o]);
			if (mn == 0)
				continue;
			for (size_t i = 0; i < cnt[o]; i++) {
				uint64_t p;
				double v;
				do {
					p = rand_pattern(ty[o], mn, s);
					v = fabs(mmagen_type_decode(ty[o], p));
				} while (!(v > 0 && v < mn));
				arr[o][i] = p;
			}
		}
		break;
	}
	case MMAGEN_CHECK_SPECIAL:
		if (mmagen_type_is_float(ta)) {
			a[0] = mmagen_type_encode(ta, NAN);
			if (m > 1)
				a[k] = mmagen_type_encode(ta, INFINITY);
			if (m > 2)
				for (unsigned j = 0; j < k; j++)
					a[2 * k + j] = mmagen_type_encode(ta, -0.0);
		}
		cc[0] = mmagen_type_encode(tc, -0.0);
		break;
	case MMAGEN_CHECK_OVERFLOW:
		for (size_t i = 0; i < na; i++)
			a[i] = mmagen_type_encode(ta, mmagen_type_max(ta));
		for (size_t i = 0; i < nb; i++)
			b[i] = mmagen_type_encode(tb, mmagen_type_max(tb));
		for (size_t i = 0; i < nc; i++)
			cc[i] = mmagen_type_encode(tc, mmagen_type_max(tc) -
						       (double)(rng_next(s) % 1000));
		break;
	default:
		break;
	}
}

/* Block scales: random powers of two 2^-4..2^4 (ue8m0), or random ue4m3
 * values in 1/8..8, so that scaling shows in D but cannot overflow it. */
static void make_scales(struct mmagen_check *c, uint64_t *s)
{
	mmagen_type st = c->form.stype ? (mmagen_type)c->form.stype : MMAGEN_UE8M0;

	for (int o = OP_SA; o <= OP_SB; o++)
		for (size_t i = 0; i < (size_t)c->rows[o] * c->cols[o]; i++) {
			uint64_t p;
			double v;
			do {
				p = rand_pattern(st, 8.0, s);
				v = mmagen_type_decode(st, p);
			} while (!(v >= 0.125 && v <= 8.0));
			c->op[o][i] = p;
		}
}

/* ---- packing into the kernel's memory format ---- */

/* Bits of element pattern p as they sit in a register container of
 * `w` bits: kind::f8f6f4 puts e2m1 in the middle 4 bits of a byte and
 * FP6 in the low 6. */
static uint64_t to_container(mmagen_type t, unsigned w, uint64_t p)
{
	if (w == 8 && t == MMAGEN_E2M1)
		return p << 2;
	return p;
}

static void pack(uint8_t *mem, const uint64_t *el, size_t n, unsigned w,
		 mmagen_type t)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = to_container(t, w, el[i]);
		size_t bit = i * w;
		for (unsigned j = 0; j < w; j++, bit++)
			if (v >> j & 1)
				mem[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
}

static uint64_t unpack(const uint8_t *mem, size_t i, unsigned w)
{
	uint64_t v = 0;
	size_t bit = i * w;
	for (unsigned j = 0; j < w; j++, bit++)
		v |= (uint64_t)(mem[bit / 8] >> (bit % 8) & 1) << j;
	return v;
}

/* ---- the prepared check ---- */

void mmagen_check_free(mmagen_check *c)
{
	if (!c)
		return;
	for (int o = 0; o < OP_COUNT; o++)
		free(c->op[o]);
	free(c->exact);
	free(c->mag);
	for (unsigned p = 0; c->data && p < c->ti.nparams; p++)
		free(c->data[p]);
	free(c->data);
	free(c);
}

static mmagen_status no_memory(void)
{
	return mmagen_set_error(MMAGEN_NO_MEMORY, "mmagen_check: out of memory");
}

/* Find the parameters by name and the logical sizes; a manifest this file
 * does not understand is refused rather than guessed at. */
static mmagen_status find_params(struct mmagen_check *c)
{
	const mmagen_form *f = &c->form;
	const mmagen_tile_info *ti = &c->ti;
	mmagen_status s;

	for (int o = 0; o < OP_COUNT; o++)
		c->param[o] = -1;
	assert(ti->nparams <= ARRAY_SIZE(ti->params));   /* the generators' bound */
	for (unsigned p = 0; p < ti->nparams; p++) {
		int o = 0;
		while (o < OP_COUNT && strcmp(ti->params[p].name, op_names[o]))
			o++;
		if (o == OP_COUNT)
			return mmagen_set_error(MMAGEN_UNSUPPORTED,
				"mmagen_check: tile parameter '%s' is not one it knows (A, B, C, D, E, SA, SB)",
				ti->params[p].name);
		c->param[o] = (int)p;
	}
	for (int o = OP_A; o <= OP_D; o++) {
		unsigned p;
		if ((s = mmagen_check_find_param(ti, op_names[o], &p)))
			return s;
	}
	if (!!f->sparse != (c->param[OP_E] >= 0) ||
	    !!f->block_scale != (c->param[OP_SA] >= 0 && c->param[OP_SB] >= 0))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"mmagen_check: the manifest's E/SA/SB parameters do not match the form (sparse %u, block-scaled %u)",
			f->sparse, f->block_scale);
	if (!ti->params[c->param[OP_D]].output)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"mmagen_check: the manifest does not mark D as the output");

	const mmagen_tile_param *pa = &ti->params[c->param[OP_A]];
	const mmagen_tile_param *pb = &ti->params[c->param[OP_B]];
	const mmagen_tile_param *pc = &ti->params[c->param[OP_C]];
	const mmagen_tile_param *pd = &ti->params[c->param[OP_D]];
	c->m = pd->rows;
	c->n = pd->cols;
	c->k = ti->k;
	if (!c->m || !c->n || !c->k || pa->rows != c->m ||
	    pa->cols != (f->sparse ? c->k / 2 : c->k) || pb->rows != c->k ||
	    pb->cols != c->n || pc->rows != c->m || pc->cols != c->n)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"mmagen_check: manifest sizes A %ux%u, B %ux%u, C %ux%u, D %ux%u do not make an MxNxK = %ux%ux%u product",
			pa->rows, pa->cols, pb->rows, pb->cols, pc->rows, pc->cols,
			pd->rows, pd->cols, c->m, c->n, c->k);
	c->rows[OP_A] = c->m; c->cols[OP_A] = c->k;
	c->rows[OP_B] = c->k; c->cols[OP_B] = c->n;
	c->rows[OP_C] = c->rows[OP_D] = c->m;
	c->cols[OP_C] = c->cols[OP_D] = c->n;
	if (f->block_scale) {
		const mmagen_tile_param *ps = &ti->params[c->param[OP_SA]];
		const mmagen_tile_param *pt = &ti->params[c->param[OP_SB]];
		unsigned groups = c->k / ref_scale_block(f);
		if (c->k % ref_scale_block(f) || ps->rows != c->m || ps->cols != groups ||
		    pt->rows != groups || pt->cols != c->n)
			return mmagen_set_error(MMAGEN_UNSUPPORTED,
				"mmagen_check: manifest scales SA %ux%u, SB %ux%u; the reference takes %ux%u and %ux%u",
				ps->rows, ps->cols, pt->rows, pt->cols, c->m, groups, groups, c->n);
		c->rows[OP_SA] = c->m; c->cols[OP_SA] = groups;
		c->rows[OP_SB] = groups; c->cols[OP_SB] = c->n;
	}
	return MMAGEN_OK;
}

static mmagen_status alloc_buffers(struct mmagen_check *c)
{
	for (int o = 0; o < OP_COUNT; o++) {
		size_t cnt = (size_t)c->rows[o] * c->cols[o];
		if (cnt && !(c->op[o] = calloc(cnt, sizeof(uint64_t))))
			return no_memory();
	}
	c->exact = calloc((size_t)c->m * c->n, sizeof(double));
	c->mag = calloc((size_t)c->m * c->n, sizeof(double));
	if (!c->exact || !c->mag)
		return no_memory();
	if (!(c->data = calloc(c->ti.nparams, sizeof *c->data)))
		return no_memory();
	for (unsigned p = 0; p < c->ti.nparams; p++)
		if (!(c->data[p] = calloc(c->ti.params[p].bytes ? c->ti.params[p].bytes : 1, 1)))
			return no_memory();
	return MMAGEN_OK;
}

/* Sparse A: prune to the 2:4 pattern, compress into the A parameter and
 * put every kept element's index into the metadata words of E. */
static mmagen_status make_sparse(struct mmagen_check *c)
{
	const mmagen_form *f = &c->form;
	const mmagen_tile_param *pe = &c->ti.params[c->param[OP_E]];
	size_t nwords = (size_t)pe->rows * pe->cols;
	unsigned kc = c->k / 2;
	uint64_t *vals = calloc((size_t)c->m * kc, sizeof *vals);
	uint64_t *meta = calloc(nwords ? nwords : 1, sizeof *meta);
	uint8_t *idx = calloc((size_t)c->m * kc, 1);
	mmagen_status s = MMAGEN_OK;

	if (!vals || !meta || !idx) {
		s = no_memory();
		goto out;
	}
	if ((s = mmagen_sparse_prune(f, c->m, c->k, c->op[OP_A])) ||
	    (s = mmagen_sparse_compress(f, c->m, c->k, c->op[OP_A], vals, idx)))
		goto out;
	for (unsigned r = 0; r < c->m; r++)
		for (unsigned cc = 0; cc < kc; cc++) {
			unsigned lane, bit, bits;
			if ((s = mmagen_meta_pos(f, 0, r, cc, &lane, &bit, &bits)))
				goto out;
			if (lane >= nwords || bit + bits > 32) {
				s = mmagen_set_error(MMAGEN_UNSUPPORTED,
					"mmagen_check: metadata of A[%u][%u] at word %u bit %u, outside E (%zu words)",
					r, cc, lane, bit, nwords);
				goto out;
			}
			uint64_t v = idx[(size_t)r * kc + cc];
			if (bits == 4)   /* tf32: a 4-bit code per kept element */
				v = v ? 0xE : 0x4;
			meta[lane] |= v << bit;
		}
	pack(c->data[c->param[OP_A]], vals, (size_t)c->m * kc,
	     c->ti.params[c->param[OP_A]].elem_bits, (mmagen_type)f->a);
	pack(c->data[c->param[OP_E]], meta, nwords, pe->elem_bits, MMAGEN_TYPE_NONE);
out:
	free(vals);
	free(meta);
	free(idx);
	return s;
}

/* The reference for what the instruction computes with the tile options:
 * negated A or B (wgmma imm-scale), no C (scale-d = 0); and each
 * element's magnitude sum |a*b| + |c| (scales included), the scale the
 * tolerance is judged on. */
static mmagen_status reference(struct mmagen_check *c)
{
	const mmagen_form *f = &c->form;
	const mmagen_tile_opts *to = &c->opts;
	mmagen_type ty[3] = { (mmagen_type)f->a, (mmagen_type)f->b, (mmagen_type)f->c };
	int want[3] = { to->neg_a, to->neg_b, !to->scale_d };
	const uint64_t *in[3];
	uint64_t *tmp[3] = { NULL, NULL, NULL };
	mmagen_status s = MMAGEN_OK;

	for (int q = 0; q < 3; q++) {
		size_t cnt = (size_t)c->rows[q] * c->cols[q];
		in[q] = c->op[q];
		if (!want[q])
			continue;
		if (!(tmp[q] = malloc(cnt * sizeof(uint64_t)))) {
			s = no_memory();
			goto out;
		}
		for (size_t i = 0; i < cnt; i++)
			tmp[q][i] = q == OP_C ? mmagen_type_encode(ty[q], 0.0) :
				mmagen_type_encode(ty[q], -mmagen_type_decode(ty[q], c->op[q][i]));
		in[q] = tmp[q];
	}
	mmagen_ref_args ra = { .form = f, .m = c->m, .n = c->n, .k = c->k,
			       .a = in[0], .b = in[1], .c = in[2],
			       .sa = c->op[OP_SA], .sb = c->op[OP_SB],
			       .d = c->op[OP_D], .dref = c->exact };
	if ((s = mmagen_ref_mma(&ra)))
		goto out;
	unsigned v = f->block_scale ? ref_scale_block(f) : 0;
	for (unsigned i = 0; i < c->m; i++)
		for (unsigned j = 0; j < c->n; j++) {
			double m = fabs(mmagen_type_decode(ty[2], in[2][(size_t)i * c->n + j]));
			for (unsigned kk = 0; kk < c->k; kk++) {
				double p = mmagen_type_decode(ty[0], c->op[OP_A][(size_t)i * c->k + kk]) *
					   mmagen_type_decode(ty[1], c->op[OP_B][(size_t)kk * c->n + j]);
				if (v) {
					mmagen_type st = f->stype ? (mmagen_type)f->stype : MMAGEN_UE8M0;
					unsigned g = kk / v, groups = c->k / v;
					p *= mmagen_type_decode(st, c->op[OP_SA][(size_t)i * groups + g]) *
					     mmagen_type_decode(st, c->op[OP_SB][(size_t)g * c->n + j]);
				}
				m += fabs(p);
			}
			c->mag[(size_t)i * c->n + j] = m;
		}
out:
	for (int q = 0; q < 3; q++)
		free(tmp[q]);
	return s;
}

static void pack_inputs(struct mmagen_check *c)
{
	static const int ops[] = { OP_A, OP_B, OP_C, OP_SA, OP_SB };
	const uint8_t types[] = { c->form.a, c->form.b, c->form.c, c->form.stype, c->form.stype };

	for (size_t q = 0; q < ARRAY_SIZE(ops); q++) {
		int o = ops[q], p = c->param[o];
		if (p < 0 || (o == OP_A && c->form.sparse))   /* make_sparse packed it */
			continue;
		pack(c->data[p], c->op[o], (size_t)c->rows[o] * c->cols[o],
		     c->ti.params[p].elem_bits, (mmagen_type)types[q]);
	}
	for (unsigned p = 0; p < c->ti.nparams; p++)
		if (c->ti.params[p].output)
			memset(c->data[p], MMAGEN_CHECK_POISON, c->ti.params[p].bytes);
}

mmagen_status mmagen_check_new(const mmagen_form *f, const mmagen_tile_opts *o,
			       unsigned inputs, uint64_t seed, mmagen_check **out)
{
	struct mmagen_check *c;
	mmagen_status s;
	uint64_t rng = seed;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_check_new: NULL argument");
	*out = NULL;
	if (inputs >= MMAGEN_CHECK_INPUTS_COUNT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"input set %u does not exist; use MMAGEN_CHECK_RANDOM .. MMAGEN_CHECK_OVERFLOW", inputs);
	if (!(c = calloc(1, sizeof *c)))
		return no_memory();
	c->form = *f;
	mmagen_tile_opts_init(&c->opts);
	if ((o && (s = abi_sized_in("mmagen_tile_opts", "mmagen_tile_opts_init", &c->opts,
				    sizeof c->opts, o, TILE_OPTS_SIZE_MIN))) ||
	    (s = mmagen_tile_info_of(f, &c->opts, &c->ti)) ||
	    (s = find_params(c)) || (s = alloc_buffers(c)))
		goto fail;
	make_inputs(c, inputs, &rng);
	if (f->block_scale)
		make_scales(c, &rng);
	if (f->sparse && (s = make_sparse(c)))
		goto fail;
	if ((s = reference(c)))
		goto fail;
	pack_inputs(c);
	*out = c;
	return MMAGEN_OK;
fail:
	mmagen_check_free(c);
	return s;
}

const mmagen_tile_info *mmagen_check_tile(const mmagen_check *c)
{
	return c ? &c->ti : NULL;
}

mmagen_status mmagen_check_data(const mmagen_check *c, unsigned param,
				const void **data, size_t *bytes)
{
	if (!c || !data || !bytes)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_check_data: NULL argument");
	if (param >= c->ti.nparams)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"parameter %u does not exist; the tile kernel has %u (0..%u)",
			param, c->ti.nparams, c->ti.nparams - 1);
	*data = c->data[param];
	*bytes = c->ti.params[param].bytes;
	return MMAGEN_OK;
}

mmagen_status mmagen_check_operand(const mmagen_check *c, const char *name,
				   const uint64_t **elems, unsigned *rows,
				   unsigned *cols)
{
	if (!c || !name || !elems || !rows || !cols)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_check_operand: NULL argument");
	for (int o = 0; o < OP_COUNT; o++)
		if (o != OP_E && !strcmp(name, op_names[o])) {
			if (!c->op[o])
				break;
			*elems = c->op[o];
			*rows = c->rows[o];
			*cols = c->cols[o];
			return MMAGEN_OK;
		}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"this check has no operand '%s'; it has A, B, C, D%s",
		name, c->form.block_scale ? ", SA, SB" : "");
}

/* ---- the comparison ---- */

/* The error that mmagen_ref_accept judges: for integer D the distance
 * between the patterns modulo 2^bits (the comparison is modulo 2^bits, so
 * a wrapped sum that matches is no error); for floating D |got - exact|,
 * 0 where both are the same NaN or infinity. */
static double element_error(const mmagen_form *f, uint64_t got, uint64_t want,
			    double exact)
{
	mmagen_type t = (mmagen_type)f->d;

	if (!mmagen_type_is_float(t)) {
		unsigned bits = mmagen_type_bits(t);
		uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
		uint64_t up = (got - want) & mask, down = (want - got) & mask;
		return (double)(up < down ? up : down);
	}
	double g = mmagen_type_decode(t, got);
	if ((isnan(g) && isnan(exact)) || g == exact)
		return 0;
	return fabs(g - exact);
}

mmagen_status mmagen_check_verify(const mmagen_check *c, const void *d,
				  size_t bytes, mmagen_check_result *r)
{
	mmagen_check_result res;
	mmagen_status s;

	if (!c || !d || !r)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_check_verify: NULL argument");
	if ((s = abi_sized_out("mmagen_check_result", r, sizeof res, CHECK_RESULT_SIZE_MIN)))
		return s;
	const mmagen_tile_param *pd = &c->ti.params[c->param[OP_D]];
	if (bytes < pd->bytes)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_check_verify: D is %zu bytes, got %zu; pass the whole D parameter",
			pd->bytes, bytes);
	memset(&res, 0, sizeof res);
	res.size = sizeof res;
	res.total = (size_t)c->m * c->n;
	for (unsigned i = 0; i < c->m; i++)
		for (unsigned j = 0; j < c->n; j++) {
			size_t e = (size_t)i * c->n + j;
			uint64_t got = unpack(d, e, pd->elem_bits);
			uint64_t want = c->op[OP_D][e];
			double err = element_error(&c->form, got, want, c->exact[e]);
			double mag = c->mag[e];
			if (err > res.max_err || isnan(err))
				res.max_err = err;
			if (mag > 0 && (err / mag > res.max_rel || isnan(err)))
				res.max_rel = err / mag;
			if (mmagen_ref_accept(&c->form, c->k, c->exact[e], mag, got))
				continue;
			if (!res.bad++) {
				res.row = i;
				res.col = j;
				res.got = got;
				res.expected = want;
				res.got_value = mmagen_type_decode((mmagen_type)c->form.d, got);
				res.exact = c->exact[e];
			}
		}
	res.pass = res.bad == 0;
	res.size = r->size;
	memcpy(r, &res, r->size);     /* what the caller's version holds */
	return MMAGEN_OK;
}
