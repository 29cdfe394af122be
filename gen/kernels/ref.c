/* ref.c - the exact CPU reference for D = A*B + C, and the tolerances a
 * device result is judged by.
 *
 * Floating forms sum every product exactly in a fixed-point accumulator
 * wide enough for any product of two f64 values (a Kulisch accumulator),
 * so the result does not depend on summation order, on the host's long
 * double, or on K; it is rounded once at the end.  The hardware's own
 * order and internal precision are not IEEE-specified, so the difference
 * is judged by mmagen_ref_accept() against the one tolerance table below.
 *
 * Integer forms sum in int64 and wrap (or, with .satfinite, saturate)
 * into s32: those must match exactly.
 *
 * Sparse forms need nothing special: the caller passes the dense logical
 * A, with zeros where the 2:4 (1:2 for tf32) pattern pruned it.
 */
#include "internal.h"
#include "ref.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the exact accumulator ----
 * Digits of 32 bits held in int64, so that adds need no carry at once;
 * digit i weighs 2^(ACC_LSB + 32 i).  The lowest bit of a product of two
 * f64 subnormals is 2^-2148, but acc_add_product adds partial products of
 * 53-bit significands whose weights start at 2 * (-1074 - 52) = -2252
 * (their low bits are zero there), so the digits start below that; the
 * largest product is below 2^2048 and K adds at most 32 bits more.  The
 * top digit only holds the sign. */
#define ACC_LSB (-2272)
#define ACC_DIGITS 139
#define ACC_TOP (ACC_DIGITS - 1)
#define DIGIT_MASK UINT64_C(0xFFFFFFFF)
/* Each add puts less than 2^33 into a digit: carry well before 2^63. */
#define ACC_FLUSH (1u << 28)

struct acc {
	int64_t dig[ACC_DIGITS];
	unsigned adds;		/* adds since the last carry pass */
	unsigned long terms;	/* terms seen, zeros included */
	unsigned long neg_zeros; /* terms that were -0 */
	int nan, pinf, ninf;
	int negative;		/* set by acc_finish */
};

enum rnd_mode { RND_NEAREST, RND_ZERO, RND_DOWN, RND_UP, RND_ODD };

static void acc_init(struct acc *s)
{
	memset(s, 0, sizeof *s);
}

/* Propagate carries so digits below the top lie in [0, 2^32); the top
 * digit is then 0, or -1 for a negative value. */
static void acc_carry(struct acc *s)
{
	int64_t carry = 0;
	int i;

	for (i = 0; i < ACC_TOP; i++) {
		int64_t d = s->dig[i] + carry;
		int64_t low = (int64_t)((uint64_t)d & DIGIT_MASK);

		s->dig[i] = low;
		carry = (d - low) / ((int64_t)1 << 32);	/* exact */
	}
	s->dig[ACC_TOP] += carry;
	s->adds = 0;
}

/* Add or subtract mag * 2^exp (exp >= ACC_LSB). */
static void acc_add(struct acc *s, uint64_t mag, int exp, int neg)
{
	assert(exp >= ACC_LSB && exp - ACC_LSB + 96 <= 32 * ACC_TOP);
	unsigned pos = (unsigned)(exp - ACC_LSB);
	unsigned i = pos / 32, sh = pos % 32;
	uint64_t v0 = (mag & DIGIT_MASK) << sh;
	uint64_t v1 = (mag >> 32) << sh;
	int64_t d0 = (int64_t)(v0 & DIGIT_MASK);
	int64_t d1 = (int64_t)((v0 >> 32) + (v1 & DIGIT_MASK));
	int64_t d2 = (int64_t)(v1 >> 32);

	if (neg) {
		d0 = -d0;
		d1 = -d1;
		d2 = -d2;
	}
	s->dig[i] += d0;
	s->dig[i + 1] += d1;
	s->dig[i + 2] += d2;
	if (++s->adds == ACC_FLUSH)
		acc_carry(s);
}

/* A finite nonzero x as m * 2^e with m < 2^53; frexp also normalises
 * subnormals, and ldexp(f, 53) is then an exact integer. */
static uint64_t split(double x, int *e)
{
	int ex;
	double f = frexp(fabs(x), &ex);

	*e = ex - 53;
	return (uint64_t)ldexp(f, 53);
}

/* Add x*y exactly: the 106-bit product of the significands is added as
 * three partial products that each fit 64 bits. */
static void acc_add_product(struct acc *s, double x, double y)
{
	int neg = !!signbit(x) ^ !!signbit(y);
	uint64_t mx, my, xh, xl, yh, yl;
	int ex, ey;

	s->terms++;
	if (isnan(x) || isnan(y)) {
		s->nan = 1;
		return;
	}
	if (isinf(x) || isinf(y)) {
		if (x == 0.0 || y == 0.0)
			s->nan = 1;
		else if (neg)
			s->ninf = 1;
		else
			s->pinf = 1;
		return;
	}
	if (x == 0.0 || y == 0.0) {
		s->neg_zeros += (unsigned long)neg;
		return;
	}
	mx = split(x, &ex);
	my = split(y, &ey);
	xh = mx >> 32;
	xl = mx & DIGIT_MASK;
	yh = my >> 32;
	yl = my & DIGIT_MASK;
	acc_add(s, xl * yl, ex + ey, neg);
	acc_add(s, xh * yl + xl * yh, ex + ey + 32, neg);	/* < 2^54 */
	acc_add(s, xh * yh, ex + ey + 64, neg);
}

/* Carry, and turn a negative value into its magnitude and a sign. */
static void acc_finish(struct acc *s)
{
	int i;

	acc_carry(s);
	s->negative = s->dig[ACC_TOP] < 0;
	if (!s->negative)
		return;
	for (i = 0; i < ACC_DIGITS; i++)
		s->dig[i] = -s->dig[i];
	acc_carry(s);
}

/* Bit of weight 2^p of a finished accumulator. */
static unsigned acc_bit(const struct acc *s, int p)
{
	unsigned pos = (unsigned)(p - ACC_LSB);

	return (unsigned)(s->dig[pos / 32] >> (pos % 32)) & 1u;
}

/* Whether any bit of weight below 2^p is set. */
static int acc_any_below(const struct acc *s, int p)
{
	unsigned pos = (unsigned)(p - ACC_LSB);
	unsigned i = pos / 32, j;

	if ((uint64_t)s->dig[i] & ((UINT64_C(1) << (pos % 32)) - 1))
		return 1;
	for (j = 0; j < i; j++)
		if (s->dig[j])
			return 1;
	return 0;
}

/* Exponent of the highest set bit; the accumulator must be nonzero. */
static int acc_msb(const struct acc *s)
{
	int i = ACC_TOP - 1, b = 31;

	while (s->dig[i] == 0)
		i--;
	while (!((s->dig[i] >> b) & 1))
		b--;
	return ACC_LSB + 32 * i + b;
}

static int acc_is_zero(const struct acc *s)
{
	int i;

	for (i = 0; i < ACC_DIGITS; i++)
		if (s->dig[i])
			return 0;
	return 1;
}

/* Overflow past the largest double: the directed modes that round
 * towards zero stop at DBL_MAX. */
static double overflow(int neg, enum rnd_mode mode)
{
	int to_max = mode == RND_ZERO || (mode == RND_DOWN && !neg) ||
		     (mode == RND_UP && neg);
	double v = to_max ? 0x1.fffffffffffffp1023 : INFINITY;

	return neg ? -v : v;
}

/* The finished accumulator rounded to a double in the given mode.
 * RND_ODD (truncate, then set the last bit if anything was lost) keeps
 * enough to round again correctly to any format of p <= 51 bits. */
static double acc_round(const struct acc *s, enum rnd_mode mode)
{
	int neg = s->negative;
	int msb, lsb, p, lost, half, up = 0;
	uint64_t n = 0;

	if (s->nan || (s->pinf && s->ninf))
		return NAN;
	if (s->pinf || s->ninf)
		return s->pinf ? INFINITY : -INFINITY;
	if (acc_is_zero(s))
		return s->terms && s->neg_zeros == s->terms ? -0.0 : 0.0;
	msb = acc_msb(s);
	if (msb > 1023)
		return overflow(neg, mode);
	lsb = msb - 52 < -1074 ? -1074 : msb - 52;
	for (p = msb; p >= lsb; p--)
		n = n << 1 | acc_bit(s, p);
	half = (int)acc_bit(s, lsb - 1);
	lost = half || acc_any_below(s, lsb - 1);
	switch (mode) {
	case RND_NEAREST:
		up = half && (acc_any_below(s, lsb - 1) || (n & 1));
		break;
	case RND_ZERO:
		break;
	case RND_DOWN:
		up = neg && lost;
		break;
	case RND_UP:
		up = !neg && lost;
		break;
	case RND_ODD:
		n |= (uint64_t)lost;
		break;
	}
	n += (uint64_t)up;
	if (msb == 1023 && n >> 53)
		return overflow(neg, mode);
	return neg ? -ldexp((double)n, lsb) : ldexp((double)n, lsb);
}

/* ---- arguments ---- */

/* K elements per scale factor.  Dense: 32 for ue8m0 blocks, 16 for
 * ue4m3 and for .scale_vec::4X / .block16 (MXFP4 32, NVFP4 16).  A scale
 * vector holds the same number of scales per row for the sparse form of
 * the same kind, over twice the logical K, so a sparse form's block is
 * twice as long in the dense logical A this function receives. */
static unsigned block_size(const mmagen_form *f)
{
	unsigned v = 32;

	if (f->scale_vec == 4 || f->scale_vec == 16 || f->stype == MMAGEN_UE4M3)
		v = 16;
	return f->sparse ? 2 * v : v;
}

unsigned ref_scale_block(const mmagen_form *f)
{
	return block_size(f);
}

static mmagen_type scale_type(const mmagen_form *f)
{
	return f->stype ? (mmagen_type)f->stype : MMAGEN_UE8M0;
}

/* C's type: wgmma and tcgen05 forms have c == d, older tables may not
 * set it. */
static mmagen_type c_type(const mmagen_form *f)
{
	return f->c ? (mmagen_type)f->c : (mmagen_type)f->d;
}

static int is_mma_family(unsigned fam)
{
	return fam == MMAGEN_FAM_MMA || fam == MMAGEN_FAM_WGMMA ||
	       fam == MMAGEN_FAM_TCGEN05;
}

static mmagen_status bad(const char *what)
{
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_ref_mma: %s",
				what);
}

static mmagen_status check_args(const mmagen_ref_args *r)
{
	const mmagen_form *f;

	if (!r || !r->form)
		return bad("NULL arguments or form");
	f = r->form;
	if (!is_mma_family(f->family) || !f->a || !f->b || !f->d)
		return bad("the form is not an mma, wgmma or tcgen05 form");
	if (!r->a || !r->b || !r->c || !r->d)
		return bad("NULL A, B, C or D");
	if (!r->m || !r->n || !r->k)
		return bad("m, n and k must be nonzero");
	if ((size_t)r->m > SIZE_MAX / r->k || (size_t)r->n > SIZE_MAX / r->k ||
	    (size_t)r->m > SIZE_MAX / r->n)
		return bad("m, n, k too large");
	if (!f->block_scale)
		return MMAGEN_OK;
	if (!r->sa || !r->sb)
		return bad("a block-scaled form needs scale factors sa and sb");
	if (r->k % block_size(f))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_ref_mma: k = %u is not a "
					"multiple of the scale block %u",
					r->k, block_size(f));
	return MMAGEN_OK;
}

/* ---- the work: operands decoded once ---- */

struct job {
	const mmagen_ref_args *r;
	const mmagen_form *f;
	double *a;	/* m x k */
	double *bt;	/* n x k: B transposed, so a dot product is linear */
	double *sa;	/* m x k/V */
	double *sbt;	/* n x k/V */
	unsigned v;	/* block size, 0 without scales */
};

static double *decode_all(mmagen_type t, const uint64_t *src, unsigned rows,
			  unsigned cols, int transpose)
{
	double *out = malloc((size_t)rows * cols * sizeof *out);
	size_t i, j;

	if (!out)
		return NULL;
	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++) {
			double v = mmagen_type_decode(t, src[i * cols + j]);

			if (transpose)
				out[j * rows + i] = v;
			else
				out[i * cols + j] = v;
		}
	return out;
}

static void job_free(struct job *j)
{
	free(j->a);
	free(j->bt);
	free(j->sa);
	free(j->sbt);
}

static mmagen_status job_init(struct job *j, const mmagen_ref_args *r)
{
	const mmagen_form *f = r->form;
	unsigned groups;

	memset(j, 0, sizeof *j);
	j->r = r;
	j->f = f;
	j->a = decode_all((mmagen_type)f->a, r->a, r->m, r->k, 0);
	j->bt = decode_all((mmagen_type)f->b, r->b, r->k, r->n, 1);
	if (f->block_scale) {
		j->v = block_size(f);
		groups = r->k / j->v;
		j->sa = decode_all(scale_type(f), r->sa, r->m, groups, 0);
		j->sbt = decode_all(scale_type(f), r->sb, groups, r->n, 1);
	}
	if (!j->a || !j->bt || (f->block_scale && (!j->sa || !j->sbt))) {
		job_free(j);
		return mmagen_set_error(MMAGEN_NO_MEMORY,
					"mmagen_ref_mma: out of memory");
	}
	return MMAGEN_OK;
}

/* ---- integer forms ---- */

static int64_t clamp_s32(int64_t v)
{
	if (v > INT32_MAX)
		return INT32_MAX;
	if (v < INT32_MIN)
		return INT32_MIN;
	return v;
}

static int64_t int_term(const mmagen_form *f, double x, double y)
{
	if (f->a != MMAGEN_B1)
		return (int64_t)x * (int64_t)y;	/* small integers */
	if (f->bitop == MMAGEN_AND_POPC)
		return x != 0.0 && y != 0.0;
	return (x != 0.0) != (y != 0.0);	/* xor */
}

/* One element.  Without .satfinite the sum wraps, which is the same for
 * one instruction or a chain of them.  With it, a chain of instructions
 * over k (a multiple of the form's K) saturates after each, so we do
 * too; *pre is the value before the last saturation or wrap. */
static uint64_t int_element(const struct job *j, unsigned i, unsigned col,
			    int64_t *pre)
{
	const mmagen_form *f = j->f;
	unsigned k = j->r->k, step = f->k && f->k < k ? f->k : k, kk;
	const double *a = j->a + (size_t)i * k, *b = j->bt + (size_t)col * k;
	int64_t run = (int64_t)mmagen_type_decode(c_type(f),
				j->r->c[(size_t)i * j->r->n + col]);

	*pre = run;
	for (kk = 0; kk < k; kk++) {
		run += int_term(f, a[kk], b[kk]);
		if (f->satfinite && ((kk + 1) % step == 0 || kk + 1 == k)) {
			*pre = run;
			run = clamp_s32(run);
		}
	}
	if (!f->satfinite)
		*pre = run;
	/* Two's complement wrap to the D width. */
	return (uint64_t)run & ((UINT64_C(1) << mmagen_type_bits(f->d)) - 1);
}

/* ---- floating forms ---- */

static enum rnd_mode form_rounding(const mmagen_form *f)
{
	switch (f->rnd) {
	case MMAGEN_RZ:
		return RND_ZERO;
	case MMAGEN_RM:
		return RND_DOWN;
	case MMAGEN_RP:
		return RND_UP;
	default:
		return RND_NEAREST;
	}
}

/* Block-scaled: a*b and sa*sb are each exact in a double (element and
 * scale significands have at most 4 bits, exponents stay within
 * 2^-300..2^300), and their product goes in exactly. */
static void float_element(const struct job *j, struct acc *s, unsigned i,
			  unsigned col, double *dref, uint64_t *d)
{
	const mmagen_form *f = j->f;
	unsigned k = j->r->k, kk;
	const double *a = j->a + (size_t)i * k, *b = j->bt + (size_t)col * k;
	double c = mmagen_type_decode(c_type(f),
				      j->r->c[(size_t)i * j->r->n + col]);

	acc_init(s);
	acc_add_product(s, c, 1.0);
	for (kk = 0; kk < k; kk++) {
		if (j->v) {
			unsigned g = kk / j->v, groups = k / j->v;
			double sc = j->sa[(size_t)i * groups + g] *
				    j->sbt[(size_t)col * groups + g];

			acc_add_product(s, a[kk] * b[kk], sc);
		} else {
			acc_add_product(s, a[kk], b[kk]);
		}
	}
	acc_finish(s);
	*dref = acc_round(s, RND_NEAREST);
	/* f64 rounds once in the form's mode; narrower D types round the
	 * round-to-odd double again, which is the same as rounding once. */
	if (f->d == MMAGEN_F64)
		*d = mmagen_type_encode(MMAGEN_F64,
					acc_round(s, form_rounding(f)));
	else
		*d = mmagen_type_encode((mmagen_type)f->d,
					acc_round(s, RND_ODD));
}

mmagen_status mmagen_ref_mma(const mmagen_ref_args *r)
{
	mmagen_status st = check_args(r);
	struct job j;
	struct acc *s = NULL;
	unsigned i, col;
	int is_float;

	if (st != MMAGEN_OK)
		return st;
	st = job_init(&j, r);
	if (st != MMAGEN_OK)
		return st;
	is_float = mmagen_type_is_float((mmagen_type)r->form->d);
	if (is_float && !(s = malloc(sizeof *s))) {
		job_free(&j);
		return mmagen_set_error(MMAGEN_NO_MEMORY,
					"mmagen_ref_mma: out of memory");
	}
	for (i = 0; i < r->m; i++)
		for (col = 0; col < r->n; col++) {
			size_t at = (size_t)i * r->n + col;
			double exact;
			int64_t pre;

			if (is_float) {
				float_element(&j, s, i, col, &exact, &r->d[at]);
			} else {
				r->d[at] = int_element(&j, i, col, &pre);
				exact = (double)pre;
			}
			if (r->dref)
				r->dref[at] = exact;
		}
	free(s);
	job_free(&j);
	return MMAGEN_OK;
}

/* ---- acceptance: every tolerance lives here ----
 *
 * Per instruction step (k / form K of them, as a chain of instructions
 * rounds into D between steps), the allowed error relative to
 * mag = sum |a*b| + |c| is
 *     eps_D * (round + tree * (log2(Kf) + 1) + chain * Kf) + rel
 * with Kf the form's K, plus tiny_D per step, since tensor cores may
 * flush subnormal results.  Rows:
 *  - f64: DMMA is taken as a chain of Kf FMAs, each rounded (up to 1 ulp
 *    in the directed modes), plus the final rounding.
 *  - f32 from f16/bf16/tf32: products are exact, but the sum is aligned
 *    to the largest exponent and truncated rather than rounded, at every
 *    level of the adder tree: 2 ulps a level.
 *  - f16 D: the same model in f16 ulps.
 *  - f32 from FP8/FP6/FP4 (block-scaled too): Hopper's wgmma keeps fewer
 *    than 24 bits in its FP32 accumulation (the seed's "FP32 internal
 *    accumulation lower than full FP32"; about 14 bits are reported), so
 *    2^-13 of mag per step on top.  The form does not say which chip runs
 *    it, so every FP8/6/4 form gets it.
 */
enum ab_class { AB_HALF, AB_NARROW, AB_F64 };

struct tol_row {
	uint8_t ab;	/* enum ab_class */
	uint8_t d;	/* D type */
	uint8_t fam;	/* family, 0 = any (the first matching row wins) */
	int eps_log2;	/* ulp of 1.0 in D */
	int tiny_log2;	/* smallest normal of D */
	double round, tree, chain, rel;
};

static const struct tol_row tol_table[] = {
	{ AB_F64, MMAGEN_F64, 0, -52, -1022, 1, 0, 1, 0 },
	{ AB_HALF, MMAGEN_F32, 0, -23, -126, 1, 2, 0, 0 },
	{ AB_HALF, MMAGEN_F16, 0, -10, -14, 1, 2, 0, 0 },
	/* Hopper's FP8 wgmma adds products into f32 with only about 13-14
	 * bits kept: measured on the H200 over every e4m3/e5m2 wgmma form,
	 * errors reach 6.6e-4 (2^-10.6) of sum|a*b| + |c| at K=32.  Allow
	 * 2^-9, three times that. */
	{ AB_NARROW, MMAGEN_F32, MMAGEN_FAM_WGMMA, -23, -126, 1, 2, 0, 0x1p-9 },
	{ AB_NARROW, MMAGEN_F32, 0, -23, -126, 1, 2, 0, 0x1p-13 },
	{ AB_NARROW, MMAGEN_F16, 0, -10, -14, 1, 2, 0, 0 },
};

static enum ab_class ab_class(const mmagen_form *f)
{
	switch (f->a) {
	case MMAGEN_F64:
		return AB_F64;
	case MMAGEN_F16:
	case MMAGEN_BF16:
	case MMAGEN_TF32:
		return AB_HALF;
	default:
		return AB_NARROW;
	}
}

static const struct tol_row *tol_row(const mmagen_form *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tol_table); i++)
		if (tol_table[i].ab == ab_class(f) && tol_table[i].d == f->d &&
		    (!tol_table[i].fam || tol_table[i].fam == f->family))
			return &tol_table[i];
	return NULL;
}

static double tolerance(const struct tol_row *t, const mmagen_form *f,
			unsigned k, double mag)
{
	unsigned kf = f->k && f->k < k ? f->k : k;
	double steps = ceil((double)k / kf);
	double levels = ceil(log2((double)kf)) + 1;
	double ulps = t->round + t->tree * levels + t->chain * kf;

	return steps * (mag * (ldexp(ulps, t->eps_log2) + t->rel) +
			ldexp(1.0, t->tiny_log2));
}

static int accept_int(const mmagen_form *f, double exact, uint64_t got)
{
	uint64_t mask = (UINT64_C(1) << mmagen_type_bits(f->d)) - 1;
	int64_t e;

	if (!(fabs(exact) < 0x1p62) || exact != floor(exact))
		return 0;
	e = (int64_t)exact;
	if (f->satfinite)
		e = clamp_s32(e);
	return (got & mask) == ((uint64_t)e & mask);
}

int mmagen_ref_accept(const mmagen_form *f, unsigned k, double exact,
		      double mag, uint64_t got)
{
	const struct tol_row *t;
	double v, max, rounded;

	if (!f || !f->d || !k)
		return 0;
	if (!mmagen_type_is_float((mmagen_type)f->d))
		return accept_int(f, exact, got);
	t = tol_row(f);
	if (!t)
		return 0;
	v = mmagen_type_decode((mmagen_type)f->d, got);
	max = mmagen_type_max((mmagen_type)f->d);
	/* When sum |a*b| + |c| passes D's range, a partial sum may overflow
	 * in the hardware's order even though the exact sum is finite (as the
	 * H200 shows for f64 m8n8k4 with +-max inputs: -Inf where the products
	 * cancel); then Inf, the largest value or a NaN (Inf - Inf) of either
	 * sign are all correct results. */
	int mag_over = !(mag <= max);
	if (isnan(exact) || isnan(v))
		return (isnan(exact) && isnan(v)) || (isnan(v) && mag_over && !isinf(exact));
	/* Inf from Inf inputs, or a finite sum past the f64 range, which
	 * the directed roundings stop at the largest finite value. */
	if (isinf(exact))
		return v == exact || (f->rnd > MMAGEN_RN &&
				      v == copysign(max, exact));
	/* A mag that overflowed double says nothing: judge by |exact|. */
	if (!isfinite(mag))
		mag = fabs(exact);
	if (fabs(v) <= max && fabs(v - exact) <= tolerance(t, f, k, mag))
		return 1;
	/* Overflow: the exact value rounds past D's range, so Inf or the
	 * largest finite value of its sign; or only an intermediate sum
	 * could (mag does), and then either sign may come out. */
	rounded = mmagen_type_decode((mmagen_type)f->d,
			mmagen_type_encode((mmagen_type)f->d, exact));
	if (isinf(rounded) || fabs(exact) > max)
		return fabs(v) >= max && signbit(v) == signbit(exact);
	if (mag_over)
		return fabs(v) >= max;
	return 0;
}
