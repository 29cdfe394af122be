/* test_types.c - element types: names, exact decode, RNE encode.
 *
 * The references here are written independently of gen/table/types.c: decode
 * uses (1 + M/2^m) * pow(2, E - bias) rather than an integer significand
 * and ldexp, the FP4/FP6 formats are checked against literal value
 * tables, f16 against the compiler's _Float16, bf16 against integer
 * rounding of float bits, f32 against the (float) cast, and encode
 * against a "nearest, ties to even" property over each pattern's
 * neighbours.  Exit status 0 on pass, 1 on any failure.
 */
#include "mmagen.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __FLT16_MAX__
/* __extension__ keeps -pedantic quiet about the GNU type under -std=c11. */
__extension__ typedef _Float16 half_t;
#endif

#include "check.h"

/* Equal as values, telling -0 from +0 and any NaN equal to any NaN. */
static int same_value(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

static void check_decode(mmagen_type t, uint64_t p, double want)
{
	double got = mmagen_type_decode(t, p);

	CHECK(same_value(got, want), "%s decode 0x%llx = %a, want %a",
	      mmagen_type_name(t), (unsigned long long)p, got, want);
}

static void check_encode(mmagen_type t, double v, uint64_t want)
{
	uint64_t got = mmagen_type_encode(t, v);

	CHECK(got == want, "%s encode %a (%.17g) = 0x%llx, want 0x%llx",
	      mmagen_type_name(t), v, v, (unsigned long long)got,
	      (unsigned long long)want);
}

/* ---- random numbers: splitmix64, seed printed and overridable ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Random sign, exponent uniform in [lo, hi], random 52-bit mantissa; the
 * low end reaches below each format's subnormals. */
static double rng_double(int lo, int hi)
{
	uint64_t r = rng_next();
	int e = lo + (int)(r % (uint64_t)(hi - lo + 1));
	double m = 1.0 + (double)(rng_next() >> 12) / 4503599627370496.0;
	double v = ldexp(m, e);

	return (r >> 63) ? -v : v;
}

/* ---- the small float formats, described independently ---- */

enum nan_kind { N_IEEE, N_ALL_ONES, N_NONE };

struct fmt {
	mmagen_type t;
	unsigned e, m;
	int bias;
	int has_sign;
	enum nan_kind nan;
	unsigned shift;	/* ignored low bits (tf32) */
};

static const struct fmt fmts[] = {
	{ MMAGEN_F16, 5, 10, 15, 1, N_IEEE, 0 },
	{ MMAGEN_BF16, 8, 7, 127, 1, N_IEEE, 0 },
	{ MMAGEN_TF32, 8, 10, 127, 1, N_IEEE, 13 },
	{ MMAGEN_E4M3, 4, 3, 7, 1, N_ALL_ONES, 0 },
	{ MMAGEN_E5M2, 5, 2, 15, 1, N_IEEE, 0 },
	{ MMAGEN_E3M2, 3, 2, 3, 1, N_NONE, 0 },
	{ MMAGEN_E2M3, 2, 3, 1, 1, N_NONE, 0 },
	{ MMAGEN_E2M1, 2, 1, 1, 1, N_NONE, 0 },
	{ MMAGEN_UE4M3, 4, 3, 7, 0, N_ALL_ONES, 0 },
};

static uint32_t fmt_mag_count(const struct fmt *f)
{
	return UINT32_C(1) << (f->e + f->m);
}

/* Largest finite magnitude code. */
static uint32_t fmt_max_mag(const struct fmt *f)
{
	uint32_t top = fmt_mag_count(f) - 1;

	if (f->nan == N_IEEE)
		return top - (UINT32_C(1) << f->m);
	return f->nan == N_ALL_ONES ? top - 1 : top;
}

static uint64_t fmt_bits(const struct fmt *f, uint32_t mag, int neg)
{
	uint64_t code = mag;

	if (neg)
		code |= UINT64_C(1) << (f->e + f->m);
	return code << f->shift;
}

/* Reference value of a magnitude code, as fraction times power. */
static double ref_mag(const struct fmt *f, uint32_t mag)
{
	uint32_t ef = mag >> f->m, mf = mag & ((UINT32_C(1) << f->m) - 1);
	uint32_t eall = (UINT32_C(1) << f->e) - 1;
	double frac = mf / pow(2.0, f->m);

	if (f->nan == N_IEEE && ef == eall)
		return mf ? NAN : INFINITY;
	if (f->nan == N_ALL_ONES && mag == fmt_mag_count(f) - 1)
		return NAN;
	if (ef == 0)
		return frac * pow(2.0, 1 - f->bias);
	return (1.0 + frac) * pow(2.0, (int)ef - f->bias);
}

/* Every code, both signs: decode matches the reference, finite codes and
 * infinities round-trip. */
static void test_fmt_exhaustive(const struct fmt *f)
{
	uint32_t n = fmt_mag_count(f), mag;
	int neg;

	for (neg = 0; neg <= f->has_sign; neg++) {
		for (mag = 0; mag < n; mag++) {
			uint64_t p = fmt_bits(f, mag, neg);
			double want = ref_mag(f, mag);

			check_decode(f->t, p, neg ? -want : want);
			if (!isnan(want))
				check_encode(f->t, neg ? -want : want, p);
		}
	}
}

/* Between each pair of adjacent finite codes: the midpoint goes to the
 * even code, and one double either side goes to its own side. */
static void test_fmt_midpoints(const struct fmt *f)
{
	uint32_t max = fmt_max_mag(f), mag;
	int neg;

	for (neg = 0; neg <= f->has_sign; neg++) {
		double s = neg ? -1.0 : 1.0;

		for (mag = 0; mag < max; mag++) {
			double a = ref_mag(f, mag), b = ref_mag(f, mag + 1);
			double mid = (a + b) / 2;
			uint32_t even = (mag & 1) ? mag + 1 : mag;

			check_encode(f->t, s * mid, fmt_bits(f, even, neg));
			check_encode(f->t, s * nextafter(mid, a),
				     fmt_bits(f, mag, neg));
			check_encode(f->t, s * nextafter(mid, b),
				     fmt_bits(f, mag + 1, neg));
		}
	}
}

/* Past the largest finite: IEEE-style formats reach Inf at max + half an
 * ulp (a tie, and max's mantissa is odd); the others saturate. */
static void test_fmt_overflow(const struct fmt *f)
{
	uint32_t max = fmt_max_mag(f);
	double vmax = ref_mag(f, max);
	double half_ulp = (vmax - ref_mag(f, max - 1)) / 2;
	double edge = vmax + half_ulp;
	uint64_t over = f->nan == N_IEEE ? fmt_bits(f, max + 1, 0)
					 : fmt_bits(f, max, 0);
	int neg;

	CHECK(same_value(mmagen_type_max(f->t), vmax), "%s max = %a, want %a",
	      mmagen_type_name(f->t), mmagen_type_max(f->t), vmax);
	for (neg = 0; neg <= f->has_sign; neg++) {
		double s = neg ? -1.0 : 1.0;
		uint64_t sb = neg ? fmt_bits(f, 0, 1) : 0;

		check_encode(f->t, s * nextafter(edge, 0),
			     fmt_bits(f, max, neg));
		check_encode(f->t, s * edge, over | sb);
		check_encode(f->t, s * 2 * vmax, over | sb);
		check_encode(f->t, s * 1e300, over | sb);
		check_encode(f->t, s * INFINITY, over | sb);
	}
}

/* For an in-range v, encode(v) is no farther from v than either
 * neighbouring code, and on a tie it is the even one.  The subtractions
 * are exact (Sterbenz, or one operand zero). */
static void check_nearest(const struct fmt *f, double v)
{
	uint64_t p = mmagen_type_encode(f->t, v);
	uint32_t mag = (uint32_t)(p >> f->shift) & (fmt_mag_count(f) - 1);
	int neg = f->has_sign && ((p >> f->shift) >> (f->e + f->m)) & 1;
	double x = fabs(v), d = fabs(x - ref_mag(f, mag));
	double dlo = mag > 0 ? fabs(x - ref_mag(f, mag - 1)) : INFINITY;
	double dhi = mag < fmt_max_mag(f) ? fabs(ref_mag(f, mag + 1) - x)
					  : INFINITY;
	int ok = mag <= fmt_max_mag(f) && d <= dlo && d <= dhi &&
		 ((d != dlo && d != dhi) || !(mag & 1)) &&
		 (!f->has_sign || neg == !!signbit(v));

	CHECK(ok, "%s encode %a = 0x%llx is not the nearest-even code",
	      mmagen_type_name(f->t), v, (unsigned long long)p);
}

static void test_fmt_random(const struct fmt *f, int count)
{
	double vmax = ref_mag(f, fmt_max_mag(f));
	int lo = -f->bias - (int)f->m - 4, hi = (int)ilogb(vmax);
	int i;

	for (i = 0; i < count; i++) {
		double v = rng_double(lo, hi);

		if (!f->has_sign)
			v = fabs(v);
		if (fabs(v) <= vmax)
			check_nearest(f, v);
	}
}

static void test_fmt_nan_and_zero(const struct fmt *f)
{
	uint64_t p = mmagen_type_encode(f->t, NAN);

	/* FP6/FP4 have no NaN code; the documented choice is +max. */
	if (f->nan == N_NONE)
		check_encode(f->t, NAN, fmt_bits(f, fmt_max_mag(f), 0));
	else
		CHECK(isnan(mmagen_type_decode(f->t, p)),
		      "%s encode NaN = 0x%llx, not a NaN",
		      mmagen_type_name(f->t), (unsigned long long)p);
	check_encode(f->t, 0.0, 0);
	check_encode(f->t, -0.0, f->has_sign ? fmt_bits(f, 0, 1) : 0);
}

static void test_fmts(void)
{
	size_t i;

	for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		test_fmt_exhaustive(&fmts[i]);
		test_fmt_midpoints(&fmts[i]);
		test_fmt_overflow(&fmts[i]);
		test_fmt_nan_and_zero(&fmts[i]);
		test_fmt_random(&fmts[i], 100000);
	}
}

/* ---- literal tables and known values ---- */

static void check_table(mmagen_type t, const double *vals, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		check_decode(t, i, vals[i]);
		check_decode(t, i | n, -vals[i]);
	}
}

static void test_fp4_fp6_tables(void)
{
	static const double e2m1[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
	static const double e2m3[32] = {
		0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875,
		1, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875,
		2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75,
		4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5,
	};
	static const double e3m2[32] = {
		0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375,
		0.5, 0.625, 0.75, 0.875, 1, 1.25, 1.5, 1.75,
		2, 2.5, 3, 3.5, 4, 5, 6, 7,
		8, 10, 12, 14, 16, 20, 24, 28,
	};

	check_table(MMAGEN_E2M1, e2m1, 8);
	check_table(MMAGEN_E2M3, e2m3, 32);
	check_table(MMAGEN_E3M2, e3m2, 32);
}

static void test_known_values(void)
{
	uint64_t p;

	check_decode(MMAGEN_E4M3, 0x7E, 448);
	check_decode(MMAGEN_E4M3, 0x01, 0x1p-9);
	check_decode(MMAGEN_E4M3, 0x38, 1.0);
	check_decode(MMAGEN_E5M2, 0x7B, 57344);
	check_decode(MMAGEN_E5M2, 0x7C, INFINITY);
	check_decode(MMAGEN_E5M2, 0xFC, -INFINITY);
	check_decode(MMAGEN_E5M2, 0x01, 0x1p-16);
	check_decode(MMAGEN_UE8M0, 0x7F, 1.0);
	check_decode(MMAGEN_UE8M0, 0x80, 2.0);
	check_decode(MMAGEN_UE8M0, 0x00, 0x1p-127);
	check_decode(MMAGEN_UE4M3, 0x38, 1.0);
	check_decode(MMAGEN_UE4M3, 0xB8, 1.0);	/* bit 7 ignored */
	check_decode(MMAGEN_UE4M3, 0x7E, 448);
	for (p = 0x80; p < 0x100; p++)	/* ue4m3 ignores bit 7 */
		check_decode(MMAGEN_UE4M3, p,
			     mmagen_type_decode(MMAGEN_UE4M3, p & 0x7F));
	check_decode(MMAGEN_E3M2, 0x1F, 28);
	check_decode(MMAGEN_E2M3, 0x1F, 7.5);
	check_decode(MMAGEN_E2M1, 0x7, 6);
	check_decode(MMAGEN_E2M1, 0xF, -6);
	check_decode(MMAGEN_S4, 0x8, -8);
	check_decode(MMAGEN_U4, 0xF, 15);
	check_decode(MMAGEN_S8, 0x80, -128);
	check_decode(MMAGEN_F16, 0x7BFF, 65504);
	check_decode(MMAGEN_F16, 0x0001, 0x1p-24);
	check_decode(MMAGEN_F16, 0x3555, 0x1.554p-2);
	check_decode(MMAGEN_BF16, 0x3F80, 1.0);
	check_decode(MMAGEN_BF16, 0x7F7F, 0x1.fep127);
	check_decode(MMAGEN_F32, 0x3F800000, 1.0);
	check_decode(MMAGEN_F64, UINT64_C(0x3FF0000000000000), 1.0);
}

static void test_known_encodes(void)
{
	check_encode(MMAGEN_E4M3, 449, 0x7E);
	check_encode(MMAGEN_E4M3, 1e9, 0x7E);
	check_encode(MMAGEN_E4M3, -1e9, 0xFE);
	check_encode(MMAGEN_E4M3, 464, 0x7E);	/* would be 480 */
	check_encode(MMAGEN_E4M3, NAN, 0x7F);
	check_encode(MMAGEN_E4M3, 0x1p-10, 0x00);	/* tie to even 0 */
	check_encode(MMAGEN_E4M3, 0x1.8p-9, 0x02);	/* tie to even 2 */
	check_encode(MMAGEN_E2M1, 7, 0x7);
	check_encode(MMAGEN_E2M1, 5, 0x6);	/* tie 4|6 -> 4 (even) */
	check_encode(MMAGEN_E2M1, 2.5, 0x4);	/* tie 2|3 -> 2 */
	check_encode(MMAGEN_E2M1, 0.25, 0x0);	/* tie 0|0.5 -> 0 */
	check_encode(MMAGEN_E2M1, 0.75, 0x2);	/* tie 0.5|1 -> 1 */
	check_encode(MMAGEN_E2M1, NAN, 0x7);
	check_encode(MMAGEN_E3M2, 30, 0x1F);
	check_encode(MMAGEN_E3M2, NAN, 0x1F);
	check_encode(MMAGEN_E2M3, 8, 0x1F);
	check_encode(MMAGEN_E2M3, -8, 0x3F);
	check_encode(MMAGEN_E5M2, 61440, 0x7C);
	check_encode(MMAGEN_E5M2, 57344, 0x7B);
	check_encode(MMAGEN_E5M2, 60000, 0x7B);
	check_encode(MMAGEN_E5M2, -61440, 0xFC);
	check_encode(MMAGEN_E5M2, NAN, 0x7E);
	check_encode(MMAGEN_UE4M3, 1.0, 0x38);
	check_encode(MMAGEN_UE4M3, -1.0, 0x00);
	check_encode(MMAGEN_UE4M3, -INFINITY, 0x00);
	check_encode(MMAGEN_UE4M3, 1e9, 0x7E);
	check_encode(MMAGEN_UE4M3, NAN, 0x7F);
	check_encode(MMAGEN_F16, 65504, 0x7BFF);
	check_encode(MMAGEN_F16, 65519.99, 0x7BFF);
	check_encode(MMAGEN_F16, 65520, 0x7C00);
	check_encode(MMAGEN_F16, 0x1p-24, 0x0001);
	check_encode(MMAGEN_F16, 0x1p-25, 0x0000);
	check_encode(MMAGEN_F16, -0x1p-25, 0x8000);
	check_encode(MMAGEN_F16, 0x1.000001p-25, 0x0001);
	check_encode(MMAGEN_F16, 0x1.8p-24, 0x0002);
	check_encode(MMAGEN_F16, 1.0 / 3, 0x3555);
	check_encode(MMAGEN_F16, 0.1, 0x2E66);
	check_encode(MMAGEN_F16, 0x1p-14, 0x0400);
	check_encode(MMAGEN_F16, 0x1.ffcp-15, 0x0400); /* subnormal carry */
	check_encode(MMAGEN_F16, NAN, 0x7E00);
	/* Directly rounded, not via float: a float detour would tie. */
	check_encode(MMAGEN_F16, 1 + 0x1p-11 + 0x1p-40, 0x3C01);
	check_encode(MMAGEN_BF16, 1 + 0x1p-8 + 0x1p-40, 0x3F81);
	check_encode(MMAGEN_BF16, NAN, 0x7FC0);
	check_encode(MMAGEN_F32, NAN, 0x7FC00000);
	check_encode(MMAGEN_F64, NAN, UINT64_C(0x7FF8000000000000));
	check_encode(MMAGEN_F64, -0.0, UINT64_C(0x8000000000000000));
}

/* ---- f16 against the compiler's _Float16 ---- */

#ifdef __FLT16_MAX__
static uint16_t half_bits(double v)
{
	half_t h = (half_t)v;
	uint16_t u;

	memcpy(&u, &h, sizeof u);
	return u;
}

/* The reference is only usable when double -> _Float16 rounds once. */
static int half_ref_ok(void)
{
	return half_bits(1 + 0x1p-11 + 0x1p-40) == 0x3C01 &&
	       half_bits(0x1.000001p-25) == 0x0001 &&
	       half_bits(65520) == 0x7C00;
}

static void test_f16_vs_float16(int count)
{
	uint32_t p;
	int i;

	for (p = 0; p < 0x10000; p++) {
		uint16_t u = (uint16_t)p;
		half_t h;

		memcpy(&h, &u, sizeof h);
		check_decode(MMAGEN_F16, p, (double)h);
	}
	if (!half_ref_ok()) {
		printf("note: double -> _Float16 is not correctly rounded "
		       "here; random f16 encode comparison skipped\n");
		return;
	}
	for (i = 0; i < count; i++) {
		double v = rng_double(-27, 17);

		check_encode(MMAGEN_F16, v, half_bits(v));
	}
}
#else
static void test_f16_vs_float16(int count)
{
	(void)count;
	printf("note: no _Float16; f16 checked by known values only\n");
}
#endif

/* ---- bf16 against integer RNE on float bits ---- */

static uint16_t bf16_ref(uint32_t f)
{
	return (uint16_t)((f + 0x7FFF + ((f >> 16) & 1)) >> 16);
}

static void check_bf16_float(uint32_t fb)
{
	float f;

	memcpy(&f, &fb, sizeof f);
	if (isnan(f))
		return;
	check_encode(MMAGEN_BF16, f, bf16_ref(fb));
}

static void test_bf16(int count)
{
	uint32_t p;
	int i;

	for (p = 0; p < 0x10000; p++) {
		uint32_t fb = p << 16;
		float f;

		memcpy(&f, &fb, sizeof f);
		check_decode(MMAGEN_BF16, p, f);
		/* the tie and its neighbours below this code */
		check_bf16_float(fb | 0x8000);
		check_bf16_float(fb | 0x7FFF);
		check_bf16_float(fb | 0x8001);
		check_bf16_float(fb | 0x0001);
	}
	for (i = 0; i < count; i++)
		check_bf16_float((uint32_t)rng_next());
}

/* ---- tf32 and f32, f64 ---- */

static void test_tf32(void)
{
	check_encode(MMAGEN_TF32, 1.0, 0x3F800000);
	check_encode(MMAGEN_TF32, 1 + 0x1p-10, 0x3F802000);
	/* ties: 1 | 1+2^-10 -> 1, and 1+2^-10 | 1+2^-9 -> 1+2^-9 */
	check_encode(MMAGEN_TF32, 1 + 0x1p-11, 0x3F800000);
	check_encode(MMAGEN_TF32, 1 + 3 * 0x1p-11, 0x3F804000);
	check_encode(MMAGEN_TF32, 1 + 0x1p-11 + 0x1p-30, 0x3F802000);
	check_encode(MMAGEN_TF32, -2.0, 0xC0000000);
	check_encode(MMAGEN_TF32, FLT_MAX, 0x7F800000);
	check_encode(MMAGEN_TF32, 0x1.ffcp127, 0x7F7FE000);
	check_encode(MMAGEN_TF32, 0x1p-149, 0x00000000); /* < 2^-137 */
	check_encode(MMAGEN_TF32, 0x1p-136, 0x00002000);
	check_encode(MMAGEN_TF32, NAN, 0x7FC00000);
	check_decode(MMAGEN_TF32, 0x3F801FFF, 1.0);
	check_decode(MMAGEN_TF32, 0x3F803FFF, 1 + 0x1p-10);
	check_decode(MMAGEN_TF32, 0x7F801FFF, INFINITY);
	CHECK(mmagen_type_max(MMAGEN_TF32) == 0x1.ffcp127, "tf32 max = %a",
	      mmagen_type_max(MMAGEN_TF32));
}

static void test_f32(int count)
{
	int i;

	for (i = 0; i < count; i++) {
		double v = rng_double(-155, 130);
		float f = (float)v;
		uint32_t fb;

		memcpy(&fb, &f, sizeof fb);
		check_encode(MMAGEN_F32, v, fb);
		check_decode(MMAGEN_F32, fb, f);
	}
}

static void test_f64(int count)
{
	int i;

	for (i = 0; i < count; i++) {
		uint64_t b = rng_next();
		double v;

		memcpy(&v, &b, sizeof v);
		if (isnan(v))
			continue;
		check_decode(MMAGEN_F64, b, v);
		check_encode(MMAGEN_F64, v, b);
	}
}

/* ---- ue8m0 ---- */

static void test_ue8m0(void)
{
	double v = 1.0;
	int k;

	/* 2^k by repeated halving and doubling from 1.0 (code 0x7F). */
	for (k = 0; k >= -127; k--, v /= 2) {
		check_decode(MMAGEN_UE8M0, (uint64_t)(k + 127), v);
		check_encode(MMAGEN_UE8M0, v, (uint64_t)(k + 127));
	}
	for (v = 1.0, k = 0; k <= 127; k++, v *= 2) {
		check_decode(MMAGEN_UE8M0, (uint64_t)(k + 127), v);
		check_encode(MMAGEN_UE8M0, v, (uint64_t)(k + 127));
	}
	for (k = -127; k < 127; k++) {
		uint64_t lo = (uint64_t)(k + 127);
		uint64_t even = (lo & 1) ? lo + 1 : lo;

		check_encode(MMAGEN_UE8M0, ldexp(1.5, k), even);
		check_encode(MMAGEN_UE8M0, ldexp(1.49, k), lo);
		check_encode(MMAGEN_UE8M0, ldexp(1.51, k), lo + 1);
	}
	check_decode(MMAGEN_UE8M0, 0xFF, NAN);
	check_encode(MMAGEN_UE8M0, NAN, 0xFF);
	check_encode(MMAGEN_UE8M0, 0.0, 0x00);
	check_encode(MMAGEN_UE8M0, -4.0, 0x00);
	check_encode(MMAGEN_UE8M0, 0x1p-200, 0x00);
	check_encode(MMAGEN_UE8M0, 0x1p200, 0xFE);
	check_encode(MMAGEN_UE8M0, INFINITY, 0xFE);
	CHECK(mmagen_type_max(MMAGEN_UE8M0) == 0x1p127, "ue8m0 max");
}

/* ---- integers ---- */

/* Two's complement by xor-and-subtract, not by sign extension. */
static double ref_int(unsigned bits, int is_signed, uint64_t p)
{
	int64_t top = INT64_C(1) << (bits - 1);

	if (!is_signed)
		return (double)p;
	return (double)((int64_t)(p ^ (uint64_t)top) - top);
}

static void test_int_exhaustive(mmagen_type t, unsigned bits, int is_signed)
{
	uint64_t n = UINT64_C(1) << bits, p;
	double lo = is_signed ? -(double)(n / 2) : 0;
	double hi = is_signed ? (double)(n / 2 - 1) : (double)(n - 1);
	double v;

	for (p = 0; p < n; p++) {
		check_decode(t, p, ref_int(bits, is_signed, p));
		check_encode(t, ref_int(bits, is_signed, p), p);
	}
	for (v = lo; v < hi; v++) {	/* v + 0.5: tie to the even one */
		double even = fmod(v, 2) == 0 ? v : v + 1;

		check_encode(t, v + 0.5, mmagen_type_encode(t, even));
		check_encode(t, v + 0.51, mmagen_type_encode(t, v + 1));
		check_encode(t, v + 0.49, mmagen_type_encode(t, v));
	}
	check_encode(t, hi + 1, mmagen_type_encode(t, hi));
	check_encode(t, 1e300, mmagen_type_encode(t, hi));
	check_encode(t, INFINITY, mmagen_type_encode(t, hi));
	check_encode(t, lo - 1, mmagen_type_encode(t, lo));
	check_encode(t, -INFINITY, mmagen_type_encode(t, lo));
	CHECK(mmagen_type_max(t) == hi, "%s max = %g", mmagen_type_name(t),
	      mmagen_type_max(t));
}

static void test_ints(void)
{
	test_int_exhaustive(MMAGEN_S8, 8, 1);
	test_int_exhaustive(MMAGEN_U8, 8, 0);
	test_int_exhaustive(MMAGEN_S4, 4, 1);
	test_int_exhaustive(MMAGEN_U4, 4, 0);
	check_encode(MMAGEN_S8, 2.5, 2);
	check_encode(MMAGEN_S8, 3.5, 4);
	check_encode(MMAGEN_S8, -2.5, 0xFE);
	check_encode(MMAGEN_S8, -0.5, 0);
	check_encode(MMAGEN_S8, 200, 0x7F);
	check_encode(MMAGEN_S8, -200, 0x80);
	check_encode(MMAGEN_S8, 127.5, 0x7F);
	check_encode(MMAGEN_U8, -1, 0);
	check_encode(MMAGEN_U8, 255.4, 0xFF);
	check_encode(MMAGEN_S4, 9, 7);
	check_encode(MMAGEN_S4, -9, 0x8);
	check_encode(MMAGEN_S32, 1e12, 0x7FFFFFFF);
	check_encode(MMAGEN_S32, -1e12, 0x80000000);
	check_encode(MMAGEN_S32, 2147483646.5, 0x7FFFFFFE);
	check_encode(MMAGEN_S32, -2147483647.5, 0x80000000);
	check_encode(MMAGEN_S32, -1, 0xFFFFFFFF);
	check_encode(MMAGEN_S32, 4.5, 4);
	check_encode(MMAGEN_S32, NAN, 0);
	check_decode(MMAGEN_S32, 0x80000000, -2147483648.0);
	check_decode(MMAGEN_S32, 0xFFFFFFFF, -1);
	check_decode(MMAGEN_S32, 0x7FFFFFFF, 2147483647.0);
	CHECK(mmagen_type_max(MMAGEN_S32) == 2147483647.0, "s32 max");
	check_decode(MMAGEN_B1, 0, 0);
	check_decode(MMAGEN_B1, 1, 1);
	check_decode(MMAGEN_B1, 2, 0);
	check_encode(MMAGEN_B1, 0.0, 0);
	check_encode(MMAGEN_B1, -0.0, 0);
	check_encode(MMAGEN_B1, 0.25, 1);
	check_encode(MMAGEN_B1, -5, 1);
	CHECK(mmagen_type_max(MMAGEN_B1) == 1.0, "b1 max");
}

/* ---- names ---- */

static void check_parse(const char *s, mmagen_type want)
{
	mmagen_type got = MMAGEN_TYPE_NONE;
	mmagen_status st = mmagen_type_parse(s, &got);

	CHECK(st == MMAGEN_OK && got == want, "parse '%s' = %s/%s, want %s",
	      s, mmagen_status_str(st), mmagen_type_name(got),
	      mmagen_type_name(want));
}

static void check_parse_fails(const char *s)
{
	mmagen_type got = MMAGEN_TYPE_NONE;
	mmagen_status st = mmagen_type_parse(s, &got);

	CHECK(st == MMAGEN_UNKNOWN_NAME &&
		      strstr(mmagen_last_error(), "did you mean") &&
		      strstr(mmagen_last_error(), "known: f64, f32, tf32"),
	      "parse '%s' = %s, '%s'", s, mmagen_status_str(st),
	      mmagen_last_error());
}

static void test_names(void)
{
	char buf[32];
	size_t i;

#define X(id, str, nbits)                                                  \
	CHECK(strcmp(mmagen_type_name(MMAGEN_##id), str) == 0 &&           \
		      mmagen_type_bits(MMAGEN_##id) == (nbits),            \
	      "name/bits of " #id);                                        \
	check_parse(str, MMAGEN_##id);                                     \
	snprintf(buf, sizeof buf, ".%s", str);                             \
	for (i = 1; buf[i]; i++)                                           \
		buf[i] = (char)(buf[i] >= 'a' && buf[i] <= 'z'             \
					? buf[i] - 'a' + 'A'               \
					: buf[i]);                         \
	check_parse(buf, MMAGEN_##id);
	MMAGEN_TYPE_LIST(X)
#undef X
	CHECK(strcmp(mmagen_type_name(MMAGEN_TYPE_NONE), "none") == 0,
	      "name of NONE");
	check_parse("fp16", MMAGEN_F16);
	check_parse("Half", MMAGEN_F16);
	check_parse("double", MMAGEN_F64);
	check_parse("float", MMAGEN_F32);
	check_parse(".tfloat32", MMAGEN_TF32);
	check_parse("BFloat16", MMAGEN_BF16);
	check_parse("float8_e4m3fn", MMAGEN_E4M3);
	check_parse("FP8E5M2", MMAGEN_E5M2);
	check_parse("float6_e3m2fn", MMAGEN_E3M2);
	check_parse("fp6e2m3", MMAGEN_E2M3);
	check_parse("float4_e2m1fn", MMAGEN_E2M1);
	check_parse("fp4", MMAGEN_E2M1);
	check_parse("float8_e8m0fnu", MMAGEN_UE8M0);
	check_parse("e8m0", MMAGEN_UE8M0);
	check_parse("int32", MMAGEN_S32);
	check_parse("int8", MMAGEN_S8);
	check_parse("uint8", MMAGEN_U8);
	check_parse("int4", MMAGEN_S4);
	check_parse("uint4", MMAGEN_U4);
	check_parse("bit", MMAGEN_B1);
	check_parse_fails("fp9");
	check_parse_fails("nvfp4");
	check_parse_fails("mxfp4");
	check_parse_fails("");
	check_parse_fails(".");
	check_parse_fails("f16x");
	check_parse_fails("an_element_type_name_much_longer_than_any_known");
	CHECK(mmagen_type_parse(NULL, NULL) == MMAGEN_INVALID_ARGUMENT,
	      "parse NULL");
}

static int is_int_type(mmagen_type t)
{
	return t == MMAGEN_S32 || t == MMAGEN_S8 || t == MMAGEN_U8 ||
	       t == MMAGEN_S4 || t == MMAGEN_U4 || t == MMAGEN_B1;
}

static void test_is_float(void)
{
	int t;

	for (t = MMAGEN_F64; t < MMAGEN_TYPE_COUNT; t++)
		CHECK(mmagen_type_is_float((mmagen_type)t) ==
			      !is_int_type((mmagen_type)t),
		      "is_float %s", mmagen_type_name((mmagen_type)t));
	CHECK(!mmagen_type_is_float(MMAGEN_TYPE_NONE), "is_float none");
	CHECK(mmagen_type_max(MMAGEN_F64) == DBL_MAX &&
		      mmagen_type_max(MMAGEN_F32) == FLT_MAX &&
		      mmagen_type_max(MMAGEN_F16) == 65504 &&
		      mmagen_type_max(MMAGEN_BF16) == 0x1.fep127 &&
		      mmagen_type_max(MMAGEN_E4M3) == 448 &&
		      mmagen_type_max(MMAGEN_E5M2) == 57344 &&
		      mmagen_type_max(MMAGEN_E3M2) == 28 &&
		      mmagen_type_max(MMAGEN_E2M3) == 7.5 &&
		      mmagen_type_max(MMAGEN_E2M1) == 6 &&
		      mmagen_type_max(MMAGEN_UE4M3) == 448,
	      "literal max values");
}

int main(void)
{
	const char *env = getenv("MMAGEN_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : UINT64_C(20240611);

	printf("seed %llu (set MMAGEN_SEED to change)\n",
	       (unsigned long long)seed);
	rng_state = seed;
	test_names();
	test_is_float();
	test_known_values();
	test_known_encodes();
	test_fp4_fp6_tables();
	test_fmts();
	test_f16_vs_float16(1000000);
	test_bf16(1000000);
	test_tf32();
	test_f32(1000000);
	test_f64(100000);
	test_ue8m0();
	test_ints();
	if (failed > MAX_PRINTED)
		printf("(%lu more failures not printed)\n",
		       failed - MAX_PRINTED);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
