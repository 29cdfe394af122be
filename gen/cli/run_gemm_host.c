/* run_gemm_host.c - the CPU side of `run gemm`: the problem's rules, random
 * inputs, the exact reference and its tolerance, the sample of checked
 * elements, and the operands on disk (save/load).  No GPU here: the unit
 * tests (tests/unit/test_run_gemm.c) reach all of it. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- errors: one line, kept for the caller ---- */
static char err_line[1024];

const char *rg_error(void)
{
	return err_line;
}

int rg_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_line, sizeof err_line, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- sizes and rules ---- */
enum rg_class rg_class_of(mmagen_type a)
{
	switch (a) {
	case MMAGEN_E4M3:
	case MMAGEN_E5M2:
		return RG_FP8;
	case MMAGEN_S8:
	case MMAGEN_U8:
	case MMAGEN_S4:
	case MMAGEN_U4:
		return RG_INT;
	default:
		return RG_F32ACC;
	}
}

unsigned rg_elem_bits(mmagen_type t)
{
	return mmagen_type_bits(t);
}

unsigned rg_elem_bytes(mmagen_type t)
{
	return mmagen_type_bits(t) / 8;
}

/* count elements of `bits` each, packed: 4-bit ones two to a byte
 * (count * bits would wrap at M = K = 2^30: divide first) */
static size_t packed_bytes(size_t count, unsigned bits)
{
	return bits == 4 ? count / 2 + count % 2 : count * (bits / 8);
}

size_t rg_bytes(const struct rg_problem *p, char operand)
{
	switch (operand) {
	case 'A': return packed_bytes((size_t)p->m * p->k, rg_elem_bits(p->a));
	case 'B': return packed_bytes((size_t)p->n * p->k, rg_elem_bits(p->b));
	default:  return packed_bytes((size_t)p->m * p->n, rg_elem_bits(p->out));
	}
}

/* The kernel counts M, N, K in 32-bit registers and rounds them up to
 * whole tiles, so they stay below 2^31.  4-bit operands are read as
 * stored (K-major, rows of whole 16-byte chunks); libmmart's launcher
 * stages every other operand the kernel cannot read in place. */
int rg_check_problem(const struct rg_problem *p)
{
	static const char names[2] = { 'A', 'B' };
	const mmagen_type types[2] = { p->a, p->b };
	const uint32_t dims[3] = { p->m, p->n, p->k };

	for (int i = 0; i < 3; i++)
		if (dims[i] < 1 || dims[i] > INT32_MAX)
			return rg_fail("%c = %u: M, N and K are 1 to 2^31-1 (the kernel counts them in 32 bits)",
				       "MNK"[i], dims[i]);
	/* every operand's bytes below 2^47 (128 TiB, past any GPU's memory):
	 * the sizes stay far from wrapping and the allocation fails cleanly */
	for (int i = 0; i < 3; i++) {
		const uint64_t limit = 1ull << 47;
		uint64_t rows = i == 1 ? p->n : p->m, cols = i == 2 ? p->n : p->k;
		unsigned bits = rg_elem_bits(i == 0 ? p->a : i == 1 ? p->b : p->out);
		uint64_t bytes = bits == 4 ? (rows * cols + 1) / 2 : rows * cols * (bits / 8);
		if (bytes >= limit)
			return rg_fail("%c would take %llu bytes (%llu x %llu elements); at most 2^47: use a smaller problem",
				       "ABD"[i], (unsigned long long)bytes, (unsigned long long)rows,
				       (unsigned long long)cols);
	}
	for (int i = 0; i < 2; i++) {
		unsigned bits = rg_elem_bits(types[i]);
		if (bits == 4 && (i ? p->b_mn : p->a_mn))
			return rg_fail("%c: %s is read K-major only (ldmatrix .trans moves 16-bit elements): use layout tn",
				       names[i], mmagen_type_name(types[i]));
		if (bits == 4 && p->k % 32) {
			/* the mma.sync kernel copies 16-byte chunks of 32
			 * elements; a row is K / 2 bytes */
			uint32_t lo = p->k / 32 * 32, hi = lo + 32;
			if (lo)
				return rg_fail("%c: %s packs two elements a byte, so a row is K / 2 bytes, which must be a multiple of 16 (the kernel copies 16-byte chunks); K must be a multiple of 32: use K = %u or %u",
					       names[i], mmagen_type_name(types[i]), lo, hi);
			return rg_fail("%c: %s packs two elements a byte, so a row is K / 2 bytes, which must be a multiple of 16 (the kernel copies 16-byte chunks); K must be a multiple of 32: use K = %u",
				       names[i], mmagen_type_name(types[i]), hi);
		}
	}
	/* Anything else the kernel cannot read as stored (a row pitch not a
	 * multiple of 16 bytes, K not a multiple of the mma.sync path's
	 * 16-byte chunks, odd ldd/ldc) libmmart's launcher stages through
	 * aligned buffers: no rule of its own here. */
	return 0;
}

/* ---- random inputs ---- */
uint64_t rg_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void put_le(void *buf, size_t i, unsigned bytes, uint64_t v)
{
	uint8_t *p = (uint8_t *)buf + i * bytes;
	for (unsigned b = 0; b < bytes; b++)
		p[b] = (uint8_t)(v >> (8 * b));
}

static uint64_t get_le(const void *buf, size_t i, unsigned bytes)
{
	const uint8_t *p = (const uint8_t *)buf + i * bytes;
	uint64_t v = 0;
	for (unsigned b = 0; b < bytes; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

/* Element i of a buffer of `bits`-bit elements.  4-bit ones (s4, u4) are
 * packed two to a byte, element 2j in the low nibble of byte j and 2j + 1
 * in the high one.  That is where mma.sync reads them: the PTX ISA's
 * fragments for mma.m16n8k64 .s4/.u4 ("Matrix fragments for
 * mma.m16n8k64") give each .b32 register eight consecutive K elements
 * a0..a7 of one row, a_i in bits 4i..4i+3, and ldmatrix/ld move the
 * row's bytes into the register little-endian, so element 2j of a row
 * is the low nibble of its byte j (tests/unit/test_gemm_sm80_replay.c's
 * put() and exec_mma() restate this independently).  That replay also
 * runs the kernel's PTX on buffers made by rg_fill_inputs; the nibble
 * order itself cannot show in D there (A and B share it: a swap only
 * permutes K), so test_run_gemm checks it against a table by hand. */
static void put_elem(void *buf, size_t i, unsigned bits, uint64_t v)
{
	if (bits == 4) {
		uint8_t *p = (uint8_t *)buf + i / 2;
		unsigned sh = 4 * (unsigned)(i % 2);
		*p = (uint8_t)((*p & ~(0xFu << sh)) | (unsigned)(v & 0xF) << sh);
		return;
	}
	put_le(buf, i, bits / 8, v);
}

static uint64_t get_elem(const void *buf, size_t i, unsigned bits)
{
	if (bits == 4)
		return ((const uint8_t *)buf)[i / 2] >> 4 * (i % 2) & 0xF;
	return get_le(buf, i, bits / 8);
}

void rg_put_bits(mmagen_type t, void *buf, size_t i, uint64_t bits)
{
	put_elem(buf, i, rg_elem_bits(t), bits);
}

/* The value of every pattern of an 8- or 16-bit type, made on first use
 * from the library's decoder; NULL when out of memory. */
static const double *table_small(mmagen_type t)
{
	static double *tab[MMAGEN_TYPE_COUNT];
	unsigned bits = mmagen_type_bits(t);
	assert(bits == 8 || bits == 16);
	if (!tab[t]) {
		double *v = malloc(((size_t)1 << bits) * sizeof *v);
		if (!v)
			return NULL;
		for (uint32_t i = 0; i < 1u << bits; i++)
			v[i] = mmagen_type_decode(t, i);
		tab[t] = v;
	}
	return tab[t];
}

static int is_small(mmagen_type t)
{
	return rg_elem_bits(t) == 8 || rg_elem_bits(t) == 16;
}

/* The 32-bit types by hand (mmagen_type_decode is about 100 ns); the
 * unit test compares these with it.  tf32 ignores its low 13 bits, as
 * the tensor cores do. */
double rg_value(mmagen_type t, const void *buf, size_t i)
{
	unsigned width = rg_elem_bits(t);
	uint64_t bits = get_elem(buf, i, width);
	const double *tab = is_small(t) ? table_small(t) : NULL;
	float f;

	if (width == 4)      /* s4: two's complement, 8..15 are -8..-1 */
		return t == MMAGEN_S4 ? (double)(int)(bits ^ 8) - 8 : (double)bits;
	if (tab)
		return tab[bits];
	if (t == MMAGEN_F32 || t == MMAGEN_TF32) {
		uint32_t u = (uint32_t)bits & (t == MMAGEN_TF32 ? ~0x1FFFu : ~0u);
		memcpy(&f, &u, sizeof f);
		return f;
	}
	if (t == MMAGEN_S32)
		return (double)bits - (bits >> 31 ? 0x1p32 : 0.0);
	return mmagen_type_decode(t, bits);
}

/* Round-to-nearest-even of a float into bf16, f16, f32 or tf32, by hand: the
 * library's mmagen_type_encode is general and about 100 ns an element, too
 * slow for the 10^8 elements of a large problem.  x is finite with |x| <=
 * 1 (no overflow to handle); the unit test compares this with
 * mmagen_type_encode. */
uint64_t rg_round(mmagen_type t, float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	if (t == MMAGEN_F32)
		return u;
	if (t == MMAGEN_TF32)        /* clear 13 bits, ties to even */
		return (u + 0xFFFu + ((u >> 13) & 1)) & ~0x1FFFu;
	if (t == MMAGEN_BF16)        /* drop 16 bits, ties to even */
		return (u + 0x7FFFu + ((u >> 16) & 1)) >> 16;
	assert(t == MMAGEN_F16 && fabsf(x) <= 1);
	uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7FFFFFFFu;
	if (mag >= 0x38800000u) {    /* 2^-14 and up: an f16 normal */
		mag -= 112u << 23;   /* exponent bias 127 -> 15 */
		return sign | ((mag + 0xFFFu + ((mag >> 13) & 1)) >> 13);
	}
	/* below: a multiple of 2^-24 (0x400 is the smallest normal) */
	return sign | (uint32_t)lrintf(fabsf(x) * 0x1p24f);
}

/* FP8 inputs: the pattern of x = (r - 2^12) * 2^-11 for every 13-bit r,
 * rounded by the library's encoder; x covers [-2, 2). */
#define FP8_STEPS 13
static const uint8_t *fp8_table(mmagen_type t)
{
	static uint8_t tab[2][1u << FP8_STEPS];
	static int made[2];
	int w = t == MMAGEN_E5M2;
	assert(t == MMAGEN_E4M3 || t == MMAGEN_E5M2);
	if (!made[w]) {
		for (uint32_t r = 0; r < 1u << FP8_STEPS; r++)
			tab[w][r] = (uint8_t)mmagen_type_encode(t, ((double)r - (1 << 12)) * 0x1p-11);
		made[w] = 1;
	}
	return tab[w];
}

void rg_fill(mmagen_type t, uint64_t seed, char which, void *buf, size_t count)
{
	uint64_t s = seed ^ ((uint64_t)(unsigned char)which * 0xD1B54A32D192ED03ull);
	unsigned width = rg_elem_bits(t);
	int fast = t == MMAGEN_BF16 || t == MMAGEN_F16 || t == MMAGEN_F32 || t == MMAGEN_TF32;
	int integer = rg_class_of(t) == RG_INT || t == MMAGEN_S32;
	const uint8_t *fp8 = t == MMAGEN_E4M3 || t == MMAGEN_E5M2 ? fp8_table(t) : NULL;
	/* a zero: every bit clear (integers) or all but the sign (floats) */
	uint64_t nonzero = integer ? (1ull << width) - 1 : (1ull << (width - 1)) - 1;

	if (width == 4)      /* an odd count leaves the last high nibble zero */
		memset(buf, 0, packed_bytes(count, 4));
	for (size_t i = 0; i < count; i++) {
		uint64_t bits;
		do {   /* zeros are drawn again */
			uint64_t r = rg_next(&s);
			if (integer) {          /* every pattern: the whole range */
				bits = r >> (64 - width);
			} else if (fp8) {
				bits = fp8[r >> (64 - FP8_STEPS)];
			} else {
				/* x = r * 2^-24, r uniform in [-2^24, 2^24):
				 * exact in float, so rounding it to t is one
				 * rounding */
				float x = (float)((int32_t)(r >> 39) - (1 << 24)) * 0x1p-24f;
				bits = fast ? rg_round(t, x) : mmagen_type_encode(t, x);
			}
		} while (!(bits & nonzero));
		put_elem(buf, i, width, bits);
	}
}

void rg_fill_inputs(struct rg_data *d)
{
	const struct rg_problem *p = &d->p;
	size_t cn = (size_t)p->m * p->n;
	rg_fill(p->a, p->seed, 'A', d->a, (size_t)p->m * p->k);
	rg_fill(p->b, p->seed, 'B', d->b, (size_t)p->n * p->k);
	rg_fill(p->out, p->seed, 'C', d->c, cn);
	/* |C| up to one product's size, exactly: 2^16 for 8-bit inputs, 2^8
	 * for 4-bit ones */
	float scale = rg_elem_bits(p->a) == 4 ? 0x1p8f : 0x1p16f;
	if (rg_class_of(p->a) == RG_INT && p->out == MMAGEN_F32)
		for (size_t i = 0; i < cn; i++) {
			float x = (float)rg_value(MMAGEN_F32, d->c, i) * scale;
			uint32_t u;
			memcpy(&u, &x, sizeof u);
			put_le(d->c, i, 4, u);
		}
}

int rg_alloc(struct rg_data *d)
{
	d->a = malloc(rg_bytes(&d->p, 'A'));
	d->b = malloc(rg_bytes(&d->p, 'B'));
	d->c = malloc(rg_bytes(&d->p, 'C'));
	d->d = calloc(rg_bytes(&d->p, 'D'), 1);
	if (!d->a || !d->b || !d->c || !d->d || (is_small(d->p.a) && !table_small(d->p.a)) ||
	    (is_small(d->p.b) && !table_small(d->p.b)) ||
	    (is_small(d->p.out) && !table_small(d->p.out))) {
		rg_data_free(d);
		return rg_fail("out of memory for the host copies of A, B, C and D (%zu bytes)",
			       rg_bytes(&d->p, 'A') + rg_bytes(&d->p, 'B') + 2 * rg_bytes(&d->p, 'C'));
	}
	return 0;
}

void rg_data_free(struct rg_data *d)
{
	free(d->a);
	free(d->b);
	free(d->c);
	free(d->d);
	d->a = d->b = d->c = d->d = NULL;
}

/* ---- the reference ---- */

/* One row of A or B: its bytes, and the table of its 8- or 16-bit type;
 * 4-bit rows by element index (e0: the row's first) into the buffer p. */
struct row {
	const uint8_t *p;
	mmagen_type t;
	unsigned bits;
	size_t e0;
	const double *tab;
};

static struct row row_of(mmagen_type t, const void *buf, size_t row, uint32_t k)
{
	struct row r = { .t = t, .bits = rg_elem_bits(t), .p = buf };
	if (r.bits == 4)
		r.e0 = row * k;
	else
		r.p += row * k * (r.bits / 8);
	r.tab = is_small(t) ? table_small(t) : NULL;   /* made by rg_alloc */
	return r;
}

static inline double row_at(const struct row *r, uint32_t x)
{
	switch (r->bits) {
	case 4: return rg_value(r->t, r->p, r->e0 + x);
	case 8: return r->tab[r->p[x]];
	case 16: return r->tab[r->p[2 * x] | r->p[2 * x + 1] << 8];
	default: return rg_value(r->t, r->p, x);
	}
}

double rg_dot(const struct rg_data *d, uint32_t i, uint32_t j, double *sum_abs)
{
	const struct rg_problem *p = &d->p;
	struct row a = row_of(p->a, d->a, i, p->k), b = row_of(p->b, d->b, j, p->k);
	double s = 0, comp = 0, sa = 0;

	/* Each product is exact in double: tf32 x tf32 has at most 22
	 * significant bits, 16-bit and 8-bit floats fewer, s8/u8 (and
	 * s4/u4) products are integers below 2^16.  Neumaier's compensated sum keeps the
	 * error of the sum near 2^-52 |sum|, far below any tolerance below;
	 * integer sums (below 2^47) are exact outright. */
	for (uint32_t x = 0; x < p->k; x++) {
		double prod = row_at(&a, x) * row_at(&b, x);
		double t = s + prod;
		comp += fabs(s) >= fabs(prod) ? (s - t) + prod : (prod - t) + s;
		s = t;
		sa += fabs(prod);
	}
	*sum_abs = sa;
	return s + comp;
}

int32_t rg_int_scale(float x)
{
	if (isnan(x))
		return 0;
	if (x >= 0x1p31f)
		return INT32_MAX;
	if (x <= -0x1p31f)
		return INT32_MIN;
	return (int32_t)x;       /* C converts toward zero */
}

int32_t rg_wrap32(int64_t x)
{
	uint32_t lo = (uint32_t)(uint64_t)x;
	return lo < 0x80000000u ? (int32_t)lo : (int32_t)(lo - 0x80000000u) + INT32_MIN;
}

static int is_fp8_out(const struct rg_problem *p)
{
	return p->out == MMAGEN_E4M3 || p->out == MMAGEN_E5M2;
}

double rg_reference(const struct rg_data *d, uint32_t i, uint32_t j,
		    double *sum_abs, double *cval)
{
	const struct rg_problem *p = &d->p;
	double dot = rg_dot(d, i, j, sum_abs);
	/* beta = 0: the kernel does not read C, nor does the reference */
	*cval = p->beta != 0 ? rg_value(p->out, d->c, (size_t)i * p->n + j) : 0.0;
	if (rg_class_of(p->a) != RG_INT && is_fp8_out(p)) {
		/* FP8 D: scaled, then saturated to the largest finite value
		 * (cvt's .satfinite) */
		double v = (double)p->d_scale * ((double)p->alpha * dot + (double)p->beta * *cval);
		double max = mmagen_type_max(p->out);
		return v > max ? max : v < -max ? -max : v;
	}
	if (rg_class_of(p->a) != RG_INT)
		return (double)p->alpha * dot + (double)p->beta * *cval;
	/* the s32 accumulator holds the dot product modulo 2^32 */
	double acc = rg_wrap32((int64_t)dot);
	if (p->out != MMAGEN_S32)
		return (double)p->alpha * acc + (double)p->beta * *cval;
	/* alpha * dot + beta * C modulo 2^64 (unsigned arithmetic, exact
	 * there), so modulo 2^32 too: what wrapping s32 arithmetic gives */
	uint64_t v = (uint64_t)(int64_t)rg_int_scale(p->alpha) * (uint64_t)(int64_t)dot +
		     (uint64_t)(int64_t)rg_int_scale(p->beta) * (uint64_t)(int64_t)*cval;
	return rg_wrap32((int64_t)v);
}

/* Explicit mantissa bits and the lowest normal exponent of D's types. */
static int float_format(mmagen_type t, int *mant, int *emin)
{
	switch (t) {
	case MMAGEN_BF16: *mant = 7;  *emin = -126; return 0;
	case MMAGEN_F16:  *mant = 10; *emin = -14;  return 0;
	case MMAGEN_F32:  *mant = 23; *emin = -126; return 0;
	case MMAGEN_E4M3: *mant = 3;  *emin = -6;   return 0;
	case MMAGEN_E5M2: *mant = 2;  *emin = -14;  return 0;
	default: return -1;
	}
}

double rg_half_ulp(mmagen_type t, double x)
{
	int mant, emin, e;
	if (float_format(t, &mant, &emin))
		return NAN;
	frexp(fabs(x), &e);          /* |x| = f * 2^e, f in [0.5, 1) */
	e = x == 0 || e - 1 < emin ? emin : e - 1;
	return ldexp(1.0, e - mant - 1);
}

/* The kernel computes acc, the sum of K products, in f32, v = fl32(alpha
 * * acc), with beta != 0 w = fma32(beta, C, v), and rounds w to D's
 * type.  Bounds, with u = 2^-24 and P = sum |a*b|:
 *   |acc - dot|  <= K * 2u * P   (bf16, f16, tf32: one f32 ulp per
 *                                 addition; the tensor cores' adders may
 *                                 truncate, not round; with f16
 *                                 accumulation u = 2^-11 here)
 *                <= L * RG_FP8_ACC * P + K * 2u * P   (e4m3, e5m2: wgmma's
 *                                 partial sums keep fewer bits, measured
 *                                 up to 6.6e-4 P at K = 32 on the H200;
 *                                 the kernel adds them into f32 every K
 *                                 block of 128, or every L of them with
 *                                 --promote 128 L: each chained block
 *                                 can add its own error)
 *                <= u * P        (s8, u8: the s32 sum is exact, |acc| <=
 *                                 P; one rounding to f32)
 *   |v - alpha*acc| <= u * |alpha| * (P + that)
 *   |w - (beta*C + v)| <= u * (|beta*C| + |v|)
 *   |D - w| <= half an ulp of D's type at |w| <= |ref| + the above.
 * FP8 D (e4m3, e5m2): w is multiplied by d_scale in f32 first, s =
 * fl32(d_scale * w), |s - d_scale*(ref before the scale)| <= |d_scale| *
 * the above + u * |s|; cvt.rn.satfinite rounds s to nearest and clamps
 * to the largest finite value, as the reference does, and clamping
 * brings nothing further apart: half an ulp of the FP8 type at |ref| +
 * that.
 * s32 D is wrapping integer arithmetic: exact, tolerance 0. */
double rg_tolerance(const struct rg_problem *p, double sum_abs, double cval, double ref)
{
	const double u = 0x1p-24;
	double alpha = p->alpha, beta = p->beta, acc_err;

	if (p->out == MMAGEN_S32)
		return 0;
	switch (rg_class_of(p->a)) {
	case RG_INT:
		acc_err = u * sum_abs;
		break;
	case RG_FP8:
		acc_err = (p->promote_k > 128 ? p->promote_k / 128 : 1) * RG_FP8_ACC * sum_abs +
			  (double)p->k * 2 * u * sum_abs;
		break;
	default:
		/* f16 accumulation: the same bound with f16's u = 2^-11 */
		acc_err = (double)p->k * 2 * (p->acc_f16 ? 0x1p-11 : u) * sum_abs;
		break;
	}
	double acc_max = sum_abs + acc_err;
	double e = fabs(alpha) * (acc_err + u * acc_max);
	if (beta != 0)
		e += u * (fabs(beta * cval) + fabs(alpha) * acc_max * (1 + u));
	if (is_fp8_out(p)) {
		double ds = fabs((double)p->d_scale);
		e = ds * e * (1 + u) + u * (fabs(ref) + ds * e);
	}
	return e + rg_half_ulp(p->out, fabs(ref) + e);
}

/* ---- the sample ---- */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int rg_sample(const struct rg_problem *p, uint64_t seed, size_t **idx, size_t *count)
{
	uint64_t total = (uint64_t)p->m * p->n;
	size_t cap = RG_SAMPLE + 4, n = 0;
	size_t *v;

	*idx = NULL;
	if (total <= RG_FULL_WORK / p->k || total <= cap) {
		*count = (size_t)total;
		return 0;
	}
	if (!(v = malloc(cap * sizeof *v)))
		return rg_fail("out of memory for the sample");
	/* the corners, where partial tiles end */
	v[n++] = 0;
	v[n++] = p->n - 1;
	v[n++] = (size_t)(p->m - 1) * p->n;
	v[n++] = (size_t)total - 1;
	uint64_t s = seed ^ 0x5A4D504C45ull;   /* a stream apart from the inputs' */
	while (n < cap) {
		while (n < cap)
			v[n++] = (size_t)(rg_next(&s) % total);
		qsort(v, n, sizeof *v, cmp_size);
		size_t u = 0;
		for (size_t i = 0; i < n; i++)
			if (!u || v[i] != v[u - 1])
				v[u++] = v[i];
		n = u;
	}
	*idx = v;
	*count = n;
	return 0;
}

/* ---- the comparison ---- */
void rg_verdict_add(struct rg_verdict *r, uint32_t i, uint32_t j, double got, double ref,
		    double tol, double inf_at)
{
	double err = fabs(got - ref);
	if (isinf(got) && signbit(got) == signbit(ref) && fabs(ref) + tol >= inf_at)
		err = 0;       /* D overflowed where the exact value does too */
	double ratio = tol > 0 ? err / tol : err == 0 ? 0 : INFINITY;
	r->checked++;
	if (!(err <= tol)) {   /* NaN (the poison) fails too */
		if (!r->bad++) {
			r->bi = i, r->bj = j;
			r->bad_got = got, r->bad_ref = ref, r->bad_tol = tol;
		}
		return;
	}
	if (ratio > r->worst_ratio || r->checked == 1) {
		r->worst_ratio = ratio;
		r->worst_err = err;
		r->wi = i, r->wj = j;
	}
}

int rg_verify(const struct rg_data *d, struct rg_verdict *r)
{
	const struct rg_problem *p = &d->p;
	int exact = p->out == MMAGEN_S32;
	double max = mmagen_type_max(p->out);
	/* floats round to Inf from here */
	double inf_at = exact ? INFINITY : max + rg_half_ulp(p->out, max);
	size_t *idx, count;

	memset(r, 0, sizeof *r);
	if (rg_sample(p, p->seed, &idx, &count))
		return -1;
	for (size_t s = 0; s < count; s++) {
		size_t at = idx ? idx[s] : s;
		uint32_t i = (uint32_t)(at / p->n), j = (uint32_t)(at % p->n);
		double sa, c;
		double ref = rg_reference(d, i, j, &sa, &c);
		double tol = rg_tolerance(p, sa, c, ref);
		rg_verdict_add(r, i, j, rg_value(p->out, d->d, at), ref, tol, inf_at);
	}
	free(idx);
	return 0;
}

/* ---- operands on disk ---- */
#define DESC_NAME "gemm.json"
#define DESC_FORMAT "mmagen gemm operands"

struct operand_desc {
	char name;               /* 'A', 'B', 'C', 'D' */
	mmagen_type type;
	uint32_t rows, cols;     /* stored row-major, rows x cols, dense */
	const char *what;
	const char *packing;     /* 4-bit types: how two share a byte; else NULL */
};

/* what the description says of 4-bit operands (see put_elem) */
#define PACKING_4BIT "two elements a byte: element 2j in bits 0-3 of byte j, element 2j+1 in bits 4-7"

static void describe(const struct rg_problem *p, struct operand_desc o[4])
{
	o[0] = (struct operand_desc){ 'A', p->a, p->m, p->k, "A, M x K, row-major", NULL };
	o[1] = (struct operand_desc){ 'B', p->b, p->n, p->k,
		"B, K x N, column-major: N rows of K elements", NULL };
	o[2] = (struct operand_desc){ 'C', p->out, p->m, p->n,
		"C, M x N, row-major (not read when beta is 0)", NULL };
	o[3] = (struct operand_desc){ 'D', p->out, p->m, p->n,
		"D = alpha * A * B + beta * C as the kernel wrote it, M x N, row-major", NULL };
	for (int i = 0; i < 4; i++)
		o[i].packing = rg_elem_bits(o[i].type) == 4 ? PACKING_4BIT : NULL;
}

static int path_of(char *buf, size_t n, const char *dir, const char *file)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, file) >= n)
		return rg_fail("%s: the path is too long", dir);
	return 0;
}

/* The files a save writes (sm_120a's SA.bin and SB.bin too). */
static int save_file(const char *name)
{
	static const char *const ours[] = { DESC_NAME, "A.bin", "B.bin", "C.bin", "D.bin",
					    "SA.bin", "SB.bin" };
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		if (!strcmp(name, ours[i]))
			return 1;
	return 0;
}

int rg_save_dir_check(const char *dir)
{
	struct stat st;
	char path[4096];

	if (!dir || !*dir)
		return rg_fail("--save needs a directory name (e.g. --save run1)");
	if (stat(dir, &st)) {
		if (errno != ENOENT)
			return rg_fail("--save %s: %s", dir, strerror(errno));
		/* a new directory: its parent must be there ("out/": out's) */
		size_t end = strlen(dir);
		while (end > 1 && dir[end - 1] == '/')
			end--;
		const char *slash = NULL;
		for (size_t i = 0; i < end; i++)
			if (dir[i] == '/')
				slash = dir + i;
		if (slash) {
			size_t n = slash == dir ? 1 : (size_t)(slash - dir);
			if (n >= sizeof path)
				return rg_fail("--save %s: the path is too long", dir);
			memcpy(path, dir, n);
			path[n] = '\0';
			if (stat(path, &st) || !S_ISDIR(st.st_mode))
				return rg_fail("--save %s: %s is not a directory; make it first, or give a path whose parent exists",
					       dir, path);
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return rg_fail("--save %s: not a directory; give a new or empty directory (a save writes gemm.json and A.bin .. D.bin)",
			       dir);
	/* an existing directory: empty, or an earlier save (its gemm.json in
	 * one of the runner's formats) holding nothing but a save's files, so
	 * that no file of the user's is replaced */
	DIR *dp = opendir(dir);
	if (!dp)
		return rg_fail("--save %s: %s", dir, strerror(errno));
	struct dirent *e;
	int foreign = 0, any = 0;
	char first[256] = "";
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		any = 1;
		if (!save_file(e->d_name) && !foreign++)
			snprintf(first, sizeof first, "%s", e->d_name);
	}
	closedir(dp);
	if (foreign)
		return rg_fail("--save %s: the directory holds files a save does not write (%s); give a new or empty directory",
			       dir, first);
	if (!any)
		return 0;
	if (path_of(path, sizeof path, dir, DESC_NAME))
		return -1;
	/* (a FIFO or device named gemm.json would block the open) */
	FILE *f = !stat(path, &st) && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	char head[256] = "";
	size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
	if (f)
		fclose(f);
	head[n] = '\0';
	if (!strstr(head, "\"format\": \"" DESC_FORMAT))
		return rg_fail("--save %s: the directory holds no gemm.json of an earlier save (a save cut short leaves none) beside files a save writes; give a new or empty directory, or remove those files",
			       dir);
	return 0;
}

int rg_save_begin(const char *dir, int scales)
{
	struct stat st;
	char path[4096];

	if (rg_save_dir_check(dir))
		return -1;
	if (mkdir(dir, 0777) && errno != EEXIST)
		return rg_fail("--save %s: cannot make the directory: %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return rg_fail("--save %s: not a directory", dir);
	/* the old description goes first and the new one is written last (a
	 * save cut short leaves no gemm.json over mismatched operands); an
	 * earlier block-scaled save's scales go when this save has none */
	const char *stale[3] = { DESC_NAME, scales ? NULL : "SA.bin", scales ? NULL : "SB.bin" };
	for (int i = 0; i < 3; i++) {
		if (!stale[i])
			continue;
		if (path_of(path, sizeof path, dir, stale[i]))
			return -1;
		if (unlink(path) && errno != ENOENT)
			return rg_fail("--save: cannot replace %s: %s", path, strerror(errno));
	}
	return 0;
}

int rg_save(const char *dir, const struct rg_data *d, const char *layout)
{
	const struct rg_problem *p = &d->p;
	const void *data[4] = { d->a, d->b, d->c, d->d };
	struct operand_desc o[4];
	char path[4096], file[8], json[4096];
	int len;

	if (rg_save_begin(dir, 0))
		return -1;
	describe(p, o);
	for (int i = 0; i < 4; i++) {
		snprintf(file, sizeof file, "%c.bin", o[i].name);
		if (path_of(path, sizeof path, dir, file))
			return -1;
		if (mmagen_write_file(path, data[i], rg_bytes(p, o[i].name)))
			return rg_fail("--save: %s", mmagen_last_error());
	}
	/* FP8 D: its scale too */
	char scale[48] = "";
	if (is_fp8_out(p))
		snprintf(scale, sizeof scale, "  \"d_scale\": %.9g,\n", (double)p->d_scale);
	len = snprintf(json, sizeof json,
		"{\n  \"format\": \"" DESC_FORMAT "\",\n  \"version\": 1,\n"
		"  \"byte_order\": \"little-endian\",\n  \"layout\": \"%s\",\n"
		"  \"m\": %u, \"n\": %u, \"k\": %u,\n  \"alpha\": %.9g, \"beta\": %.9g,\n%s"
		"  \"seed\": %llu,\n  \"operands\": {\n",
		layout, p->m, p->n, p->k, (double)p->alpha, (double)p->beta, scale,
		(unsigned long long)p->seed);
	for (int i = 0; i < 4; i++)
		len += snprintf(json + len, sizeof json - (size_t)len,
			"    \"%c\": {\"file\": \"%c.bin\", \"type\": \"%s\", \"shape\": [%u, %u], "
			"\"strides\": [%u, 1], \"order\": \"row-major\", %s%s%s\"what\": \"%s\"}%s\n",
			o[i].name, o[i].name, mmagen_type_name(o[i].type), o[i].rows, o[i].cols,
			o[i].cols, o[i].packing ? "\"packing\": \"" : "",
			o[i].packing ? o[i].packing : "", o[i].packing ? "\", " : "", o[i].what,
			i < 3 ? "," : "");
	len += snprintf(json + len, sizeof json - (size_t)len, "  }\n}\n");
	if ((size_t)len >= sizeof json)
		return rg_fail("--save: the description does not fit %zu bytes", sizeof json);
	if (path_of(path, sizeof path, dir, DESC_NAME))
		return -1;
	if (mmagen_write_file(path, json, (size_t)len))
		return rg_fail("--save: %s", mmagen_last_error());
	return 0;
}

/* ---- a small JSON reader, enough for the description ----
 * Objects, arrays, strings (the usual escapes; \u only below 0x80),
 * numbers, true, false, null; nesting up to 16 deep. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	double num;
	char *str;
	size_t n;                /* items (arrays, objects) */
	struct jv *items;
	char **keys;             /* objects */
};

struct jp {
	const char *s;
	const char *err;
};

static void jv_free(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

static void skip_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int jerr(struct jp *p, const char *what)
{
	if (!p->err)
		p->err = what;
	return -1;
}

static int parse_string(struct jp *p, char **out)
{
	size_t cap = 16, n = 0;
	char *b = malloc(cap);

	if (!b)
		return jerr(p, "out of memory");
	p->s++;      /* the opening quote */
	for (;;) {
		char c = *p->s++;
		if (!c || (unsigned char)c < 0x20) {
			free(b);
			return jerr(p, "unterminated string");
		}
		if (c == '"')
			break;
		if (c == '\\') {
			const char *esc = "\"\"\\\\//b\bf\fn\nr\rt\t";
			char e = *p->s++;
			const char *m = strchr(esc, e);
			if (e == 'u') {
				/* exactly four hex digits (sscanf's %4x took fewer,
				 * and the string's end with them) */
				unsigned x = 0;
				for (int d = 0; d < 4; d++) {
					char h = p->s[d];
					if (!isxdigit((unsigned char)h)) {
						free(b);
						return jerr(p, "\\u takes four hex digits");
					}
					x = x * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0'
									   : (tolower((unsigned char)h) - 'a' + 10));
				}
				if (x == 0 || x >= 0x80) {
					free(b);
					return jerr(p, "\\u escape outside ASCII (1 to 7f)");
				}
				p->s += 4;
				c = (char)x;
			} else if (e && m && (m - esc) % 2 == 0) {
				c = m[1];
			} else {
				free(b);
				return jerr(p, "bad escape in a string");
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				return jerr(p, "out of memory");
			}
			b = nb;
		}
		b[n++] = c;
	}
	b[n] = '\0';
	*out = b;
	return 0;
}

static int parse_value(struct jp *p, struct jv *v, int depth);

static int append(struct jp *p, struct jv *v, size_t *cap)
{
	if (v->n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 8;
	struct jv *items = realloc(v->items, *cap * sizeof *items);
	if (!items)
		return jerr(p, "out of memory");
	v->items = items;
	if (v->t == J_OBJ) {
		char **keys = realloc(v->keys, *cap * sizeof *keys);
		if (!keys)
			return jerr(p, "out of memory");
		v->keys = keys;
	}
	return 0;
}

static int parse_container(struct jp *p, struct jv *v, int depth)
{
	char close = *p->s == '{' ? '}' : ']';
	size_t cap = 0;

	v->t = close == '}' ? J_OBJ : J_ARR;
	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(p);
		if (v->t == J_OBJ) {
			if (*p->s != '"' || parse_string(p, &key))
				return jerr(p, "expected a key");
			skip_ws(p);
			if (*p->s++ != ':') {
				free(key);
				return jerr(p, "expected ':'");
			}
		}
		if (append(p, v, &cap)) {
			free(key);
			return -1;
		}
		if (v->t == J_OBJ)
			v->keys[v->n] = key;
		memset(&v->items[v->n], 0, sizeof v->items[v->n]);
		v->n++;
		if (parse_value(p, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s++ == close)
			return 0;
		return jerr(p, v->t == J_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int parse_value(struct jp *p, struct jv *v, int depth)
{
	static const struct { const char *word; enum jtype t; double num; } words[] = {
		{ "true", J_BOOL, 1 }, { "false", J_BOOL, 0 }, { "null", J_NULL, 0 } };

	if (depth > 16)
		return jerr(p, "nested too deep");
	skip_ws(p);
	if (*p->s == '{' || *p->s == '[')
		return parse_container(p, v, depth);
	if (*p->s == '"') {
		v->t = J_STR;
		return parse_string(p, &v->str);
	}
	if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
		size_t len = strspn(p->s, "-+.eE0123456789");
		char num[64], *end;
		if (len >= sizeof num)
			return jerr(p, "number too long");
		memcpy(num, p->s, len);
		num[len] = '\0';
		v->t = J_NUM;
		v->num = strtod(num, &end);
		if (*end || !isfinite(v->num))
			return jerr(p, "bad number");
		p->s += len;
		return 0;
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strncmp(p->s, words[i].word, strlen(words[i].word))) {
			v->t = words[i].t;
			v->num = words[i].num;
			p->s += strlen(words[i].word);
			return 0;
		}
	return jerr(p, "expected a value");
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

/* ---- load ---- */
static int read_file(const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	/* a FIFO or a device would block the open or never end */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return rg_fail("--load: %s is not a regular file; give a directory that --save wrote",
			       path);
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0;

	if (!f)
		return rg_fail("--load: cannot open %s: %s", path, strerror(errno));
	if (!(b = malloc(max + 1))) {
		fclose(f);
		return rg_fail("--load: out of memory for %s", path);
	}
	n = fread(b, 1, max + 1, f);
	if (ferror(f)) {
		fclose(f);
		free(b);
		return rg_fail("--load: cannot read %s", path);
	}
	fclose(f);
	*out = b;
	*len = n;
	return 0;
}

/* Exact unsigned integer member `key` of o. */
static int want_uint(const char *desc, const struct jv *o, const char *key,
		     const char *where, uint64_t want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_NUM)
		return rg_fail("%s: %s%s is missing or not a number", desc, where, key);
	if (v->num != (double)want)
		return rg_fail("%s: %s%s is %.17g, the request has %llu; give a matching request or another directory",
			       desc, where, key, v->num, (unsigned long long)want);
	return 0;
}

static int want_str(const char *desc, const struct jv *o, const char *key,
		    const char *where, const char *want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_STR || strcmp(v->str, want))
		return rg_fail("%s: %s%s is %s%s%s, not \"%s\" as the request has it",
			       desc, where, key, v && v->t == J_STR ? "\"" : "",
			       v && v->t == J_STR ? v->str : "missing or not a string",
			       v && v->t == J_STR ? "\"" : "", want);
	return 0;
}

static int want_pair(const char *desc, const struct jv *o, const char *key,
		     const char *where, uint32_t x, uint32_t y)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_ARR || v->n != 2 || v->items[0].t != J_NUM ||
	    v->items[1].t != J_NUM || v->items[0].num != x || v->items[1].num != y)
		return rg_fail("%s: %s%s is not [%u, %u] as the request has it (dense, row-major)",
			       desc, where, key, x, y);
	return 0;
}

static int want_f32(const char *desc, const struct jv *o, const char *key, float want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_NUM)
		return rg_fail("%s: %s is missing or not a number", desc, key);
	char opt[32];             /* "d_scale" is --d-scale */
	snprintf(opt, sizeof opt, "%s", key);
	for (char *c = opt; *c; c++)
		*c = *c == '_' ? '-' : *c;
	if ((float)v->num != want)
		return rg_fail("%s: %s is %.9g, the request has %.9g; give --%s %.9g",
			       desc, key, v->num, (double)want, opt, v->num);
	return 0;
}

static int load_operand(const char *dir, const char *desc, const struct jv *ops,
			const struct operand_desc *o, void *buf, size_t bytes)
{
	char where[8], path[4096], *data = NULL;
	const struct jv *d, *file;
	size_t len;

	snprintf(where, sizeof where, "%c.", o->name);
	if (!(d = jget(ops, (char[2]){ o->name, 0 })) || d->t != J_OBJ)
		return rg_fail("%s: operands.%c is missing", desc, o->name);
	if (want_str(desc, d, "type", where, mmagen_type_name(o->type)) ||
	    want_pair(desc, d, "shape", where, o->rows, o->cols) ||
	    want_pair(desc, d, "strides", where, o->cols, 1) ||
	    want_str(desc, d, "order", where, "row-major") ||
	    (o->packing && want_str(desc, d, "packing", where, o->packing)))
		return -1;
	file = jget(d, "file");
	if (!file || file->t != J_STR || !file->str[0] || file->str[0] == '.' ||
	    strchr(file->str, '/'))
		return rg_fail("%s: %sfile must be a file name in the directory (no '/', not starting with '.')",
			       desc, where);
	if (path_of(path, sizeof path, dir, file->str) || read_file(path, bytes, &data, &len))
		return -1;
	if (len != bytes) {
		free(data);
		return rg_fail("--load: %s has %s%zu bytes; %c (%u x %u %s) needs %zu",
			       path, len > bytes ? "more than " : "", len > bytes ? bytes : len,
			       o->name, o->rows, o->cols, mmagen_type_name(o->type), bytes);
	}
	memcpy(buf, data, bytes);
	free(data);
	return 0;
}

int rg_load(const char *dir, struct rg_data *d, const char *layout)
{
	const struct rg_problem *p = &d->p;
	struct operand_desc o[4];
	char path[4096], *text = NULL;
	struct jv root = { 0 };
	struct jp jp = { 0 };
	size_t len;
	int rc = -1;

	if (!dir || !*dir)
		return rg_fail("--load needs a directory that --save wrote (e.g. --load run1)");

	if (path_of(path, sizeof path, dir, DESC_NAME) || read_file(path, 1 << 16, &text, &len))
		return -1;
	if (len > 1 << 16) {
		rg_fail("--load: %s is larger than 64 KiB; it is not a description that --save wrote", path);
		goto out;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		rg_fail("--load: %s holds a NUL byte; not JSON", path);
		goto out;
	}
	jp.s = text;
	if (parse_value(&jp, &root, 0) || (skip_ws(&jp), *jp.s)) {
		rg_fail("--load: %s is not JSON: %s at byte %zu", path,
			jp.err ? jp.err : "text after the value", (size_t)(jp.s - text));
		goto out;
	}
	if (root.t != J_OBJ) {
		rg_fail("--load: %s is not a JSON object", path);
		goto out;
	}
	if (want_str(path, &root, "format", "", DESC_FORMAT) ||
	    want_uint(path, &root, "version", "", 1) ||
	    want_str(path, &root, "byte_order", "", "little-endian") ||
	    want_str(path, &root, "layout", "", layout) ||
	    want_uint(path, &root, "m", "", p->m) || want_uint(path, &root, "n", "", p->n) ||
	    want_uint(path, &root, "k", "", p->k) ||
	    want_f32(path, &root, "alpha", p->alpha) || want_f32(path, &root, "beta", p->beta) ||
	    (is_fp8_out(p) && want_f32(path, &root, "d_scale", p->d_scale)))
		goto out;
	if (rg_alloc(d))
		goto out;
	describe(p, o);
	const struct jv *ops = jget(&root, "operands");
	void *bufs[3] = { d->a, d->b, d->c };
	for (int i = 0; i < 3; i++)
		if (load_operand(dir, path, ops, &o[i], bufs[i], rg_bytes(p, o[i].name)))
			goto out;
	/* the inputs are the file's: a zero in them is the user's business,
	 * but NaN or Inf would make every comparison meaningless */
	for (int i = 0; i < 3; i++) {
		mmagen_type t = i == 0 ? p->a : i == 1 ? p->b : p->out;
		size_t count = (size_t)o[i].rows * o[i].cols;
		for (size_t e = 0; e < count; e++)
			if (!isfinite(rg_value(t, bufs[i], e))) {
				rg_fail("--load: %s/%s element %zu is not finite; the check needs finite inputs",
					dir, jget(jget(ops, (char[2]){ o[i].name, 0 }), "file")->str, e);
				goto out;
			}
	}
	rc = 0;
out:
	if (rc)
		rg_data_free(d);
	jv_free(&root);
	free(text);
	return rc;
}

/* ---- tuned choices ---- */
unsigned rg_log2_bucket(uint32_t x)
{
	unsigned l = 0;
	while (x > 1) {
		x >>= 1;
		l++;
	}
	return l;
}

void rg_tune_key_of(struct rg_tune_key *key, const char *gpu, const mmagen_gemm_request *r,
		    uint32_t m, uint32_t n, uint32_t k)
{
	memset(key, 0, sizeof *key);
	snprintf(key->gpu, sizeof key->gpu, "%s", gpu && *gpu ? gpu : "unknown GPU");
	for (char *p = key->gpu; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	key->a = r->a;
	key->b = r->b;
	key->acc = r->acc ? r->acc : rg_class_of(r->a) == RG_INT ? MMAGEN_S32 : MMAGEN_F32;
	key->out = r->out;
	key->layout = r->layout;
	key->lm = rg_log2_bucket(m);
	key->ln = rg_log2_bucket(n);
	key->lk = rg_log2_bucket(k);
}

static const char *const tune_layouts[] = { "tn", "nn", "nt", "tt" };

/* ours and only ours to write: the rule of the module cache */
static int trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int rg_tune_path(char *buf, size_t n)
{
	const char *v = getenv("MMAGEN_CACHE");
	char dir[4096];
	struct stat st;

	if (v && !strcmp(v, "0"))
		return rg_fail("tuned choices are off (MMAGEN_CACHE=0)");
	if (mmart_cache_default_dir(dir, sizeof dir))
		return rg_fail("no cache directory for tuned choices: %s", mmart_last_error());
	/* mkdir -p, as the module cache makes it */
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		int r = mkdir(dir, 0755);
		*p = c;
		if (r < 0 && errno != EEXIST)
			return rg_fail("cache directory %s: %s", dir, strerror(errno));
		if (!c)
			break;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return rg_fail("cache directory %s is not a directory", dir);
	if (!trusted(&st))
		return rg_fail("cache directory %s not used for tuned choices: it must be yours and not "
			       "writable by group or others (chmod go-w)", dir);
	if (snprintf(buf, n, "%s/%s", dir, RG_TUNE_FILE) >= (int)n)
		return rg_fail("cache directory name too long");
	return 0;
}

#define TUNE_MAX_BYTES (1u << 20)

/* A choice's field: "tile_n stages cluster group", a fifth number, tile
 * M, when it is not the default, and a sixth, the schedule (2:
 * ping-pong; tile M then written even when 128); nothing else.  0 or -1. */
static int parse_choice(const char *f, struct rg_tune_choice *c)
{
	char end;
	c->tile_m = 0;
	c->schedule = 0;
	if (sscanf(f, "%u %u %u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group,
		   &c->tile_m, &c->schedule, &end) == 6)
		return c->tile_m == 128 && c->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? 0 : -1;
	c->tile_m = 0;
	c->schedule = 0;
	if (sscanf(f, "%u %u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group,
		   &c->tile_m, &end) == 5)
		return c->tile_m == 16 || c->tile_m == 32 || c->tile_m == 64 || c->tile_m == 128 ? 0 : -1;
	c->tile_m = 0;
	return sscanf(f, "%u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group, &end) == 4
		       ? 0 : -1;
}

/* One record line (without its newline) into key and c: 0 or -1. */
static int parse_record(char *line, struct rg_tune_key *key, struct rg_tune_choice *c)
{
	char *f[5], *save = NULL;
	int nf = 0;
	for (char *t = strtok_r(line, "\t", &save); t && nf < 6; t = strtok_r(NULL, "\t", &save))
		f[nf < 5 ? nf : 4] = t, nf++;
	if (nf != 5)
		return -1;
	char ta[16], tb[16], tacc[16], tout[16], tl[8], end;
	memset(key, 0, sizeof *key);
	if (strlen(f[0]) >= sizeof key->gpu || !f[0][0])
		return -1;
	strcpy(key->gpu, f[0]);
	if (sscanf(f[1], "%15s %15s %15s %15s %7s %c", ta, tb, tacc, tout, tl, &end) != 5 ||
	    mmagen_type_parse(ta, &key->a) || mmagen_type_parse(tb, &key->b) ||
	    mmagen_type_parse(tacc, &key->acc) || mmagen_type_parse(tout, &key->out))
		return -1;
	key->layout = 4;
	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(tl, tune_layouts[i]))
			key->layout = i;
	if (key->layout == 4 ||
	    sscanf(f[2], "%u %u %u %c", &key->lm, &key->ln, &key->lk, &end) != 3 ||
	    key->lm > 31 || key->ln > 31 || key->lk > 31 ||
	    parse_choice(f[3], c) || !c->tile_n || c->tile_n > 256 || c->stages < 2 || c->stages > 32 ||
	    (c->cluster != 1 && c->cluster != 2) || !c->group || c->group > 65535 ||
	    sscanf(f[4], "%lf %c", &c->tflops, &end) != 1 || !(c->tflops >= 0 && c->tflops < 1e6))
		return -1;
	return 0;
}

static int same_key(const struct rg_tune_key *x, const struct rg_tune_key *y)
{
	return !strcmp(x->gpu, y->gpu) && x->a == y->a && x->b == y->b && x->acc == y->acc &&
	       x->out == y->out && x->layout == y->layout && x->lm == y->lm && x->ln == y->ln &&
	       x->lk == y->lk;
}

static void format_record(char *buf, size_t n, const struct rg_tune_key *k,
			  const struct rg_tune_choice *c)
{
	char tm[24] = "";
	if (c->schedule == MMAGEN_GEMM_SCHED_PINGPONG)
		snprintf(tm, sizeof tm, " 128 %u", c->schedule);
	else if (c->tile_m)
		snprintf(tm, sizeof tm, " %u", c->tile_m);
	snprintf(buf, n, "%s\t%s %s %s %s %s\t%u %u %u\t%u %u %u %u%s\t%.1f\n", k->gpu,
		 mmagen_type_name(k->a), mmagen_type_name(k->b), mmagen_type_name(k->acc),
		 mmagen_type_name(k->out), tune_layouts[k->layout & 3], k->lm, k->ln, k->lk,
		 c->tile_n, c->stages, c->cluster, c->group, tm, c->tflops);
}

static void note_set(char *note, size_t n, const char *fmt, const char *path, const char *why)
{
	if (note && n)
		snprintf(note, n, fmt, path, why);
}

/* The file's text: 0 (*text malloc()ed, NUL-terminated; NULL when there is
 * no file), or -1 with *note (a file not to be trusted or read). */
static int tune_read(const char *path, char **text, char *note, size_t note_n)
{
	struct stat st;
	*text = NULL;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		note_set(note, note_n, "tuned choices in %s ignored: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !trusted(&st) || st.st_size > TUNE_MAX_BYTES) {
		note_set(note, note_n, "tuned choices in %s ignored: %s", path,
			 !S_ISREG(st.st_mode) ? "not a regular file"
			 : st.st_size > TUNE_MAX_BYTES ? "larger than 1 MiB"
			 : "not yours, or writable by group or others");
		return -1;
	}
	FILE *f = fopen(path, "rb");
	char *t = malloc((size_t)st.st_size + 1);
	size_t got = f && t ? fread(t, 1, (size_t)st.st_size, f) : 0;
	if (f)
		fclose(f);
	if (!f || !t || got != (size_t)st.st_size) {
		free(t);
		note_set(note, note_n, "tuned choices in %s ignored: %s", path, "cannot read it");
		return -1;
	}
	t[got] = '\0';
	if (strlen(t) != got) {      /* a NUL byte: not text, so not ours */
		free(t);
		t = strdup("");
	}
	*text = t;
	return 0;
}

/* Walk the records of text: each line checked; with want, the one with
 * that key into *found.  0, or -1 (and *note) for a corrupt file. */
static int tune_scan(const char *path, char *text, const struct rg_tune_key *want,
		     struct rg_tune_choice *found, int *hit, char *note, size_t note_n)
{
	size_t ml = strlen(RG_TUNE_MAGIC);
	char *line = text, *nl;
	unsigned no = 1;
	*hit = 0;
	if (strncmp(text, RG_TUNE_MAGIC, ml) || (text[ml] != '\n')) {
		note_set(note, note_n, "tuned choices in %s ignored: %s", path,
			 "its first line is not \"" RG_TUNE_MAGIC "\" (another version, or not ours)");
		return -1;
	}
	for (line = text + ml + 1; *line; line = nl + 1) {
		struct rg_tune_key k;
		struct rg_tune_choice c;
		char copy[512], why[64];
		no++;
		if (!(nl = strchr(line, '\n'))) {
			snprintf(why, sizeof why, "line %u has no end", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		size_t len = (size_t)(nl - line);
		if (len >= sizeof copy) {
			snprintf(why, sizeof why, "line %u is too long", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		memcpy(copy, line, len);
		copy[len] = '\0';
		if (parse_record(copy, &k, &c)) {
			snprintf(why, sizeof why, "line %u is not a record", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		if (want && same_key(&k, want)) {
			*found = c;
			*hit = 1;
		}
	}
	return 0;
}

int rg_tune_lookup(const char *path, const struct rg_tune_key *key, struct rg_tune_choice *c,
		   char *note, size_t note_n)
{
	char *text;
	int hit = 0;
	if (note && note_n)
		note[0] = '\0';
	if (tune_read(path, &text, note, note_n) || !text)
		return 0;
	if (tune_scan(path, text, key, c, &hit, note, note_n))
		hit = 0;
	free(text);
	return hit;
}

int rg_tune_record(const char *path, const struct rg_tune_key *key, const struct rg_tune_choice *c,
		   char *note, size_t note_n)
{
	char *text = NULL, rec[512];
	struct rg_tune_choice old;
	int hit = 0, rc;
	if (note && note_n)
		note[0] = '\0';
	if (key->layout > 3 || strchr(key->gpu, '\t') || strchr(key->gpu, '\n') || !key->gpu[0])
		return rg_fail("tuned choice: a key with a tab, a newline or no GPU name");
	/* an untrusted file is not replaced either: the directory was checked,
	 * but a file of another owner in it is left alone */
	if (tune_read(path, &text, note, note_n))
		return rg_fail("%s; not replaced", note && note_n && note[0] ? note : "tuned choices");
	if (text && tune_scan(path, text, NULL, &old, &hit, note, note_n)) {
		free(text);
		text = NULL;     /* corrupt: dropped, the new file has only this record */
	}
	size_t cap = (text ? strlen(text) : 0) + sizeof RG_TUNE_MAGIC + sizeof rec + 2;
	char *out = malloc(cap), *w = out;
	if (!out) {
		free(text);
		return rg_fail("out of memory");
	}
	w += sprintf(w, "%s\n", RG_TUNE_MAGIC);
	format_record(rec, sizeof rec, key, c);
	if (text) {
		char *line = text + strlen(RG_TUNE_MAGIC) + 1, *nl;
		for (; *line; line = nl + 1) {
			struct rg_tune_key k;
			struct rg_tune_choice oc;
			char copy[512];
			nl = strchr(line, '\n');
			size_t len = (size_t)(nl - line);
			memcpy(copy, line, len);
			copy[len] = '\0';
			if (!parse_record(copy, &k, &oc) && same_key(&k, key))
				continue;      /* replaced below */
			memcpy(w, line, len + 1);
			w += len + 1;
		}
	}
	w += sprintf(w, "%s", rec);
	free(text);
	rc = mmagen_write_file(path, out, (size_t)(w - out)) ? rg_fail("%s", mmagen_last_error()) : 0;
	free(out);
	return rc;
}

unsigned rg_tune_candidates(const mmagen_gemm_request *r, uint32_t m, struct rg_tune_choice *c,
			    unsigned max)
{
	/* small M: the chooser's tile M for M <= 64 (it depends on M and A's
	 * layout alone: N, K and the multiprocessors here are placeholders),
	 * 64 for M up to 128 with a K-major A (the chooser weighs 64 against
	 * 128 there); either way also 128 */
	mmagen_gemm_request t = *r;
	t.tile_m = 0;
	t.tile_n = 128;
	t.cluster = 1;
	t.split_k = 1;
	unsigned small = m && m <= 64 && !mmagen_gemm_choose(&t, m, 1, 1, 1) ? t.tile_m : 0;
	if (m > 64 && m <= 128 && r->layout != MMAGEN_GEMM_NN && r->layout != MMAGEN_GEMM_NT)
		small = 64;
	unsigned wide = rg_class_of(r->a) == RG_FP8 ? 192 : 256, n = 0;
	/* the cartesian product of these lists, small M or not */
	const unsigned tm[] = { small, 128 }, tn_small[] = { 64, 128 }, tn[] = { 128, wide };
	const unsigned cl[] = { 1, 2 }, st[] = { 0, RG_STAGES_FEWER }, gr[] = { 8, 16 };
	const unsigned *tns = small ? tn_small : tn;
	unsigned ntm = small ? 2 : 1, ncl = small ? 1 : 2, ngr = small ? 1 : 2;
	for (unsigned a = 0; a < ntm; a++)
		for (unsigned i = 0; i < 2; i++)
			for (unsigned j = 0; j < ncl; j++)
				for (unsigned s = 0; s < 2; s++)
					for (unsigned g = 0; g < ngr; g++)
						if (n < max)
							c[n++] = (struct rg_tune_choice){ .tile_m = tm[a],
								.tile_n = tns[i], .stages = st[s],
								.cluster = cl[j], .group = gr[g] };
	/* ping-pong (whole 128-row tiles per warpgroup; no FP8) */
	const unsigned pp_tn[] = { 128, 192 };
	if (!small && rg_class_of(r->a) != RG_FP8)
		for (unsigned i = 0; i < 2; i++)
			for (unsigned j = 0; j < 2; j++)
				if (n < max)
					c[n++] = (struct rg_tune_choice){ .tile_m = 128, .tile_n = pp_tn[i],
						.cluster = cl[j], .group = 8,
						.schedule = MMAGEN_GEMM_SCHED_PINGPONG };
	return n;
}
