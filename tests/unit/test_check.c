/* test_check.c - the check API (gen/kernels/check.c) on the CPU, through the public
 * header only.
 *
 * For several forms (mma f16, bf16, tf32, s8 with wrap-around, f64, sparse
 * mma.sp and sparse wgmma, dense wgmma, block-scaled mma.sync) it builds the
 * inputs, computes D on its own from the logical operands (long double
 * sums, int64 sums wrapped by hand, its own bit packer), and checks that
 * verify passes on that D, fails on the same D with one element changed,
 * and fails on every element of the poison.  For s32 wrap-around the
 * largest error must be the wrapped distance, not 2^32.  Also: parameters
 * by name, sparse A compressed as the logical A says, determinism per
 * seed, argument errors.  MMAGEN_SEED=<n> repeats a run.
 */
#include "mmagen.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t seed;

static const mmagen_form *form(const char *target, const char *opcode)
{
	mmagen_request r;
	const mmagen_form *f = NULL;

	mmagen_request_init(&r);
	if (mmagen_target_parse(target, &r.target)) {
		fail("target %s: %s", target, mmagen_last_error());
		return NULL;
	}
	r.opcode = opcode;
	if (mmagen_select(&r, &f)) {
		fail("select %s: %s", opcode, mmagen_last_error());
		return NULL;
	}
	return f;
}

/* Element i of a row-major stream at w bits, little-endian: written here
 * bit by bit, independently of the library's packer. */
static void put_bits(uint8_t *mem, size_t i, unsigned w, uint64_t v)
{
	for (unsigned j = 0; j < w; j++) {
		size_t bit = i * w + j;
		mem[bit / 8] = (uint8_t)((mem[bit / 8] & ~(1u << (bit % 8))) |
					 ((v >> j & 1) << (bit % 8)));
	}
}

static uint64_t get_bits(const uint8_t *mem, size_t i, unsigned w)
{
	uint64_t v = 0;
	for (unsigned j = 0; j < w; j++) {
		size_t bit = i * w + j;
		v |= (uint64_t)(mem[bit / 8] >> (bit % 8) & 1) << j;
	}
	return v;
}

struct ops {
	const uint64_t *a, *b, *c, *d, *sa, *sb;
	unsigned m, n, k, groups;
};

static int get_ops(const mmagen_check *c, const mmagen_form *f, struct ops *o)
{
	unsigned r, cc, r2, c2;

	memset(o, 0, sizeof *o);
	if (mmagen_check_operand(c, "A", &o->a, &o->m, &o->k) ||
	    mmagen_check_operand(c, "B", &o->b, &r, &o->n) ||
	    mmagen_check_operand(c, "C", &o->c, &r2, &c2) ||
	    mmagen_check_operand(c, "D", &o->d, &r, &cc)) {
		fail("operands: %s", mmagen_last_error());
		return -1;
	}
	CHECK(r == o->m && cc == o->n && r2 == o->m && c2 == o->n,
	      "operand sizes: D %ux%u, C %ux%u for M %u N %u", r, cc, r2, c2, o->m, o->n);
	if (f->block_scale &&
	    (mmagen_check_operand(c, "SA", &o->sa, &r, &o->groups) ||
	     mmagen_check_operand(c, "SB", &o->sb, &r2, &c2))) {
		fail("scale operands: %s", mmagen_last_error());
		return -1;
	}
	return 0;
}

/* D computed here: int64 sums wrapped (or saturated) by hand for integer
 * D, long double sums rounded by the type's encoder for floating D. */
static const mmagen_tile_opts *cur_opts;   /* the tile options of the form being checked */

static uint64_t own_d(const mmagen_form *f, const struct ops *o, unsigned i, unsigned j)
{
	int cs = !cur_opts || cur_opts->scale_d;
	int sgn = cur_opts && (cur_opts->neg_a != cur_opts->neg_b) ? -1 : 1;
	mmagen_type ta = (mmagen_type)f->a, tb = (mmagen_type)f->b, tc = (mmagen_type)f->c;
	mmagen_type st = f->stype ? (mmagen_type)f->stype : MMAGEN_UE8M0;

	if (!mmagen_type_is_float((mmagen_type)f->d)) {
		int64_t s = (int64_t)mmagen_type_decode(tc, o->c[(size_t)i * o->n + j]);
		for (unsigned kk = 0; kk < o->k; kk++)
			s += (int64_t)mmagen_type_decode(ta, o->a[(size_t)i * o->k + kk]) *
			     (int64_t)mmagen_type_decode(tb, o->b[(size_t)kk * o->n + j]);
		if (f->satfinite)
			s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
		return (uint64_t)s & 0xFFFFFFFFu;
	}
	long double s = cs ? mmagen_type_decode(tc, o->c[(size_t)i * o->n + j]) : 0;
	for (unsigned kk = 0; kk < o->k; kk++) {
		long double p = (long double)mmagen_type_decode(ta, o->a[(size_t)i * o->k + kk]) *
				mmagen_type_decode(tb, o->b[(size_t)kk * o->n + j]);
		if (o->sa) {
			unsigned g = kk / (o->k / o->groups);
			p *= (long double)mmagen_type_decode(st, o->sa[(size_t)i * o->groups + g]) *
			     mmagen_type_decode(st, o->sb[(size_t)g * o->n + j]);
		}
		s += sgn * p;
	}
	return mmagen_type_encode((mmagen_type)f->d, (double)s);
}

/* Sparse: every row of the packed A holds the nonzero elements of the
 * logical (pruned) A's row, in order, and each group of 4 (2 for tf32)
 * keeps at most half. */
static void check_sparse(const mmagen_check *c, const mmagen_form *f, const struct ops *o)
{
	const mmagen_tile_info *ti = mmagen_check_tile(c);
	const void *data;
	size_t bytes;
	unsigned pa, pe;
	unsigned group = f->a == MMAGEN_TF32 ? 2 : 4;

	if (mmagen_check_find_param(ti, "A", &pa) || mmagen_check_find_param(ti, "E", &pe) ||
	    mmagen_check_data(c, pa, &data, &bytes)) {
		fail("sparse params: %s", mmagen_last_error());
		return;
	}
	CHECK(ti->params[pa].cols == o->k / 2, "sparse A has %u columns, want K/2 = %u",
	      ti->params[pa].cols, o->k / 2);
	unsigned w = ti->params[pa].elem_bits, tb = mmagen_type_bits((mmagen_type)f->a);
	uint64_t mask = tb >= 64 ? ~0ull : (1ull << tb) - 1;
	unsigned kc = o->k / 2;
	int rows_ok = 1, groups_ok = 1;
	for (unsigned i = 0; i < o->m; i++) {
		for (unsigned kk = 0; kk < o->k; kk += group) {
			unsigned nz = 0;
			for (unsigned g = 0; g < group; g++)
				nz += o->a[(size_t)i * o->k + kk + g] != 0;
			groups_ok &= nz <= group / 2;
		}
		/* the nonzero patterns of both, in order, must be the same */
		unsigned at = 0;
		for (unsigned kk = 0; kk < o->k; kk++) {
			uint64_t v = o->a[(size_t)i * o->k + kk];
			if (!v)
				continue;
			while (at < kc && !(get_bits(data, (size_t)i * kc + at, w) & mask))
				at++;
			rows_ok &= at < kc && (get_bits(data, (size_t)i * kc + at, w) & mask) == v;
			at++;
		}
		for (; at < kc; at++)
			rows_ok &= !(get_bits(data, (size_t)i * kc + at, w) & mask);
	}
	/* E: the index mmagen_meta_pos places for compressed element (r, cc)
	 * picks, in cc's group of the logical A, the element stored there */
	const void *edata;
	size_t ebytes;
	int meta_ok = !mmagen_check_data(c, pe, &edata, &ebytes);
	for (unsigned i = 0; meta_ok && i < o->m; i++)
		for (unsigned cc = 0; cc < kc; cc++) {
			unsigned lane, bit, bits;
			if (mmagen_meta_pos(f, 0, i, cc, &lane, &bit, &bits) ||
			    (size_t)lane * 4 + 4 > ebytes) {
				meta_ok = 0;
				break;
			}
			unsigned field = (unsigned)(get_bits(edata, lane, 32) >> bit) & ((1u << bits) - 1);
			unsigned pos = bits == 4 ? (field == 0xE ? 1u : field == 0x4 ? 0u : 9u) : field;
			unsigned kk = group == 2 ? cc * 2 + pos : cc / 2 * 4 + pos;
			meta_ok &= pos < group && kk < o->k &&
				   o->a[(size_t)i * o->k + kk] ==
				   (get_bits(data, (size_t)i * kc + cc, w) & mask);
		}
	CHECK(meta_ok, "sparse E does not point at the compressed elements in the logical A");
	CHECK(groups_ok, "sparse A keeps more than half of a group");
	CHECK(rows_ok, "sparse A's packed rows are not the logical A's nonzeros in order");
	CHECK(ti->params[pe].elem_bits == 32, "E has %u-bit elements", ti->params[pe].elem_bits);
}

/* The bytes of A (dense), B, C, SA and SB hold the logical operands at
 * the manifest's widths. */
static void check_packed(const mmagen_check *c, const mmagen_form *f, const char *opcode)
{
	static const char *const names[] = { "A", "B", "C", "SA", "SB" };
	const mmagen_tile_info *ti = mmagen_check_tile(c);

	for (size_t q = f->sparse ? 1 : 0; q < 5; q++) {
		const uint64_t *el;
		const void *data;
		unsigned rows, cols, p;
		size_t bytes;
		if (q >= 3 && !f->block_scale)
			break;
		if (mmagen_check_operand(c, names[q], &el, &rows, &cols) ||
		    mmagen_check_find_param(ti, names[q], &p) ||
		    mmagen_check_data(c, p, &data, &bytes)) {
			fail("%s: %s: %s", opcode, names[q], mmagen_last_error());
			continue;
		}
		unsigned w = ti->params[p].elem_bits;
		int same = ti->params[p].rows == rows && ti->params[p].cols == cols &&
			   bytes * 8 >= (size_t)rows * cols * w;
		for (size_t i = 0; same && i < (size_t)rows * cols; i++)
			same = get_bits(data, i, w) == el[i];
		CHECK(same, "%s: %s's bytes are not its %ux%u elements at %u bits", opcode,
		      names[q], rows, cols, w);
	}
}

/* Perturb pattern p of D type t so that no tolerance accepts it: by far
 * more than the tolerance's scale, mag = sum |a*b| + |c|. */
static uint64_t perturb(mmagen_type t, uint64_t p, double mag)
{
	if (!mmagen_type_is_float(t))
		return p ^ 4;
	double v = mmagen_type_decode(t, p);
	if (!isfinite(v))
		return mmagen_type_encode(t, 1.0);
	return mmagen_type_encode(t, v + 0.5 * fabs(v) + mag / 64 + 1.0);
}

static double own_mag(const mmagen_form *f, const struct ops *o, unsigned i, unsigned j)
{
	double m = fabs(mmagen_type_decode((mmagen_type)f->c, o->c[(size_t)i * o->n + j]));
	for (unsigned kk = 0; kk < o->k; kk++)
		m += fabs(mmagen_type_decode((mmagen_type)f->a, o->a[(size_t)i * o->k + kk]) *
			  mmagen_type_decode((mmagen_type)f->b, o->b[(size_t)kk * o->n + j]));
	return o->sa ? m * 256 : m;   /* scales are at most 8 each */
}

/* One form: the whole story. */
static void check_form(const char *target, const char *opcode, unsigned inputs,
		       const mmagen_tile_opts *to)
{
	const mmagen_form *f = form(target, opcode);
	mmagen_check *c = NULL;
	mmagen_check_result r = { .size = sizeof r };
	struct ops o;
	unsigned pd;
	const void *poison;
	size_t bytes;

	if (!f)
		return;
	cur_opts = to;
	if (mmagen_check_new(f, to, inputs, seed, &c)) {
		fail("%s: check_new: %s", opcode, mmagen_last_error());
		return;
	}
	const mmagen_tile_info *ti = mmagen_check_tile(c);
	if (get_ops(c, f, &o) || mmagen_check_find_param(ti, "D", &pd) ||
	    mmagen_check_data(c, pd, &poison, &bytes)) {
		fail("%s: %s", opcode, mmagen_last_error());
		goto out;
	}
	const mmagen_tile_param *tp = &ti->params[pd];
	CHECK(tp->output && tp->rows == o.m && tp->cols == o.n && bytes == tp->bytes,
	      "%s: D parameter %ux%u output %u", opcode, tp->rows, tp->cols, tp->output);
	CHECK(bytes >= ((size_t)o.m * o.n * tp->elem_bits + 7) / 8, "%s: D is %zu bytes", opcode, bytes);
	int all_poison = 1;
	for (size_t i = 0; i < bytes; i++)
		all_poison &= ((const uint8_t *)poison)[i] == MMAGEN_CHECK_POISON;
	CHECK(all_poison, "%s: D's data is not all poison", opcode);
	if (f->sparse)
		check_sparse(c, f, &o);
	check_packed(c, f, opcode);

	/* D computed here passes; so does the API's own expected D */
	uint8_t *d = calloc(bytes, 1), *e = calloc(bytes, 1);
	for (unsigned i = 0; i < o.m; i++)
		for (unsigned j = 0; j < o.n; j++) {
			put_bits(d, (size_t)i * o.n + j, tp->elem_bits, own_d(f, &o, i, j));
			put_bits(e, (size_t)i * o.n + j, tp->elem_bits, o.d[(size_t)i * o.n + j]);
		}
	if (mmagen_check_verify(c, d, bytes, &r))
		fail("%s: verify: %s", opcode, mmagen_last_error());
	CHECK(r.pass && r.bad == 0 && r.total == (size_t)o.m * o.n,
	      "%s (inputs %s): verify of the independent D: pass %d, %zu of %zu bad, first D[%u][%u] = %.17g, exact %.17g",
	      opcode, mmagen_check_inputs_name(inputs), r.pass, r.bad, r.total, r.row, r.col,
	      r.got_value, r.exact);
	if (!mmagen_type_is_float((mmagen_type)f->d))
		CHECK(!memcmp(d, e, bytes), "%s: integer D differs from the API's expected D", opcode);
	mmagen_check_verify(c, e, bytes, &r);
	CHECK(r.pass, "%s: verify of the API's own expected D fails", opcode);

	/* one element changed: exactly that one is reported */
	unsigned pi = o.m - 2, pj = o.n / 2 + 1;
	size_t at = (size_t)pi * o.n + pj;
	uint64_t want = o.d[at], bad = perturb((mmagen_type)f->d, want, own_mag(f, &o, pi, pj));
	put_bits(e, at, tp->elem_bits, bad);
	mmagen_check_verify(c, e, bytes, &r);
	CHECK(!r.pass && r.bad == 1 && r.row == pi && r.col == pj && r.got == bad &&
	      r.expected == want,
	      "%s: one wrong element: pass %d, bad %zu at D[%u][%u] got 0x%llx expected 0x%llx (want D[%u][%u] 0x%llx / 0x%llx)",
	      opcode, r.pass, r.bad, r.row, r.col, (unsigned long long)r.got,
	      (unsigned long long)r.expected, pi, pj, (unsigned long long)bad,
	      (unsigned long long)want);
	CHECK(r.max_err > 0, "%s: a wrong element and a largest error of 0", opcode);

	/* the poison fails everywhere (except where the expected value is NaN) */
	mmagen_check_verify(c, poison, bytes, &r);
	CHECK(!r.pass && (inputs == MMAGEN_CHECK_SPECIAL ? r.bad > 0 : r.bad == r.total),
	      "%s: poison: pass %d, %zu of %zu bad", opcode, r.pass, r.bad, r.total);
	free(d);
	free(e);
out:
	mmagen_check_free(c);
}

/* s32 without .satfinite: sums past INT32_MAX wrap, the comparison is
 * modulo 2^32 and so is the error it reports. */
static void check_wrap(void)
{
	const char *op = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
	const mmagen_form *f = form("sm_90a", op);
	mmagen_check *c;
	mmagen_check_result r = { .size = sizeof r };
	struct ops o;
	unsigned pd;
	const void *p;
	size_t bytes;

	if (!f || mmagen_check_new(f, NULL, MMAGEN_CHECK_OVERFLOW, seed, &c)) {
		fail("wrap: %s", mmagen_last_error());
		return;
	}
	get_ops(c, f, &o);
	mmagen_check_find_param(mmagen_check_tile(c), "D", &pd);
	mmagen_check_data(c, pd, &p, &bytes);
	uint8_t *d = calloc(bytes, 1);
	int wrapped = 0;
	for (unsigned i = 0; i < o.m; i++)
		for (unsigned j = 0; j < o.n; j++) {
			uint64_t v = own_d(f, &o, i, j);
			int64_t s = (int64_t)mmagen_type_decode(MMAGEN_S32, o.c[(size_t)i * o.n + j]);
			for (unsigned kk = 0; kk < o.k; kk++)
				s += (int64_t)mmagen_type_decode(MMAGEN_S8, o.a[(size_t)i * o.k + kk]) *
				     (int64_t)mmagen_type_decode(MMAGEN_S8, o.b[(size_t)kk * o.n + j]);
			wrapped += s > INT32_MAX || s < INT32_MIN;
			put_bits(d, (size_t)i * o.n + j, 32, v);
		}
	CHECK(wrapped > 0, "wrap: the overflow inputs did not overflow s32");
	mmagen_check_verify(c, d, bytes, &r);
	CHECK(r.pass && r.max_err == 0, "wrap: wrapped D: pass %d, largest error %g (want 0)",
	      r.pass, r.max_err);
	/* 3 off, across the wrap: the error is 3, not about 2^32 */
	uint64_t v = get_bits(d, 5, 32);
	put_bits(d, 5, 32, (v + 3) & 0xFFFFFFFFu);
	mmagen_check_verify(c, d, bytes, &r);
	CHECK(!r.pass && r.bad == 1 && r.max_err == 3.0,
	      "wrap: one element 3 off: pass %d, bad %zu, largest error %g (want 3)",
	      r.pass, r.bad, r.max_err);
	CHECK(fabs(r.exact - r.got_value) > 0x1p31,
	      "wrap: the element checked did not wrap (exact %.17g, got %.17g)", r.exact, r.got_value);
	put_bits(d, 5, 32, (v - 7) & 0xFFFFFFFFu);
	mmagen_check_verify(c, d, bytes, &r);
	CHECK(r.max_err == 7.0, "wrap: 7 below: largest error %g (want 7)", r.max_err);
	free(d);
	mmagen_check_free(c);
}

/* Names, determinism, argument errors. */
static void check_api(void)
{
	const mmagen_form *f = form("sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
	const mmagen_form *fs = form("sm_90a", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
	mmagen_check *c1, *c2, *c3;
	unsigned idx, in;
	const void *p1, *p2, *p3;
	size_t n1, n2, n3;

	if (!f || !fs)
		return;
	CHECK(!mmagen_check_inputs_parse("overflow", &in) && in == MMAGEN_CHECK_OVERFLOW,
	      "inputs 'overflow' -> %u", in);
	CHECK(mmagen_check_inputs_parse("huge", &in) == MMAGEN_UNKNOWN_NAME &&
	      strstr(mmagen_last_error(), "subnormal"), "inputs 'huge': %s", mmagen_last_error());
	CHECK(!strcmp(mmagen_check_inputs_name(MMAGEN_CHECK_SPECIAL), "special") &&
	      !mmagen_check_inputs_name(MMAGEN_CHECK_INPUTS_COUNT), "input names");
	CHECK(mmagen_check_new(f, NULL, MMAGEN_CHECK_INPUTS_COUNT, 1, &c1) == MMAGEN_INVALID_ARGUMENT,
	      "an input set past the list is refused");

	if (mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, 7, &c1) ||
	    mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, 7, &c2) ||
	    mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, 8, &c3)) {
		fail("check_new: %s", mmagen_last_error());
		return;
	}
	const mmagen_tile_info *ti = mmagen_check_tile(c1);
	CHECK(!mmagen_check_find_param(ti, "A", &idx) && !strcmp(ti->params[idx].name, "A"),
	      "find A");
	CHECK(!mmagen_check_find_param(ti, "D", &idx) && ti->params[idx].output, "find D");
	CHECK(mmagen_check_find_param(ti, "E", &idx) == MMAGEN_UNKNOWN_NAME &&
	      strstr(mmagen_last_error(), "A, B, C, D"), "no E in a dense tile: %s",
	      mmagen_last_error());
	mmagen_check_find_param(ti, "A", &idx);
	mmagen_check_data(c1, idx, &p1, &n1);
	mmagen_check_data(c2, idx, &p2, &n2);
	mmagen_check_data(c3, idx, &p3, &n3);
	CHECK(n1 == n2 && !memcmp(p1, p2, n1), "the same seed gives the same A");
	CHECK(n1 == n3 && memcmp(p1, p3, n1), "another seed gives another A");
	CHECK(mmagen_check_data(c1, ti->nparams, &p1, &n1) == MMAGEN_INVALID_ARGUMENT,
	      "parameter past the manifest");
	CHECK(mmagen_check_operand(c1, "SA", &(const uint64_t *){ NULL }, &idx, &in) ==
	      MMAGEN_UNKNOWN_NAME, "no SA without block scaling");

	mmagen_check_result r = { .size = sizeof r - 1 };
	mmagen_check_find_param(ti, "D", &idx);
	mmagen_check_data(c1, idx, &p1, &n1);
	CHECK(mmagen_check_verify(c1, p1, n1, &r) == MMAGEN_INVALID_ARGUMENT,
	      "verify with a short result size");
	r.size = sizeof r;
	CHECK(mmagen_check_verify(c1, p1, n1 - 1, &r) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "whole D"), "verify with a short D: %s",
	      mmagen_last_error());
	mmagen_check_free(c1);
	mmagen_check_free(c2);
	mmagen_check_free(c3);

	if (mmagen_check_new(fs, NULL, MMAGEN_CHECK_RANDOM, 7, &c1)) {
		fail("sparse check_new: %s", mmagen_last_error());
		return;
	}
	ti = mmagen_check_tile(c1);
	CHECK(!mmagen_check_find_param(ti, "E", &idx) && ti->params[idx].cols == 32,
	      "sparse mma has E, one word per lane");
	mmagen_check_free(c1);
	mmagen_check_free(NULL);
}

int main(void)
{
	const char *env = getenv("MMAGEN_SEED");
	seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	printf("seed %llu\n", (unsigned long long)seed);

	static const struct { const char *target, *op; } forms[] = {
		{ "sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" },
		{ "sm_90a", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16" },
		{ "sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" },
		{ "sm_90a", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" },
		{ "sm_90a", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" },
		{ "sm_90a", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32" },
		{ "sm_90a", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64" },
		{ "sm_90a", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32" },
		{ "sm_90a", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" },
		{ "sm_90a", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32" },
		{ "sm_90a", "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" },
		{ "sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" },
		{ "sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16" },
		{ "sm_90a", "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8" },
		{ "sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0" },
	};
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
		check_form(forms[i].target, forms[i].op, MMAGEN_CHECK_RANDOM, NULL);
	for (unsigned in = MMAGEN_CHECK_MAX; in < MMAGEN_CHECK_INPUTS_COUNT; in++) {
		check_form("sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", in, NULL);
		check_form("sm_90a", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", in, NULL);
	}
	/* wgmma's imm-scale-a = -1 and scale-d = 0: D = -A*B */
	mmagen_tile_opts to;
	mmagen_tile_opts_init(&to);
	to.neg_a = 1;
	to.scale_d = 0;
	check_form("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
		   MMAGEN_CHECK_RANDOM, &to);
	to.neg_a = 0;
	to.neg_b = 1;
	to.scale_d = 1;
	check_form("sm_90a", "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32",
		   MMAGEN_CHECK_RANDOM, &to);
	check_wrap();
	check_api();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
