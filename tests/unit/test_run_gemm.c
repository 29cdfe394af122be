/* test_run_gemm.c - the CPU side of `run gemm` (gen/cli/run_gemm_host.c,
 * run_gemm_save.c): the problem's rules, the random inputs, the exact
 * reference, its tolerance, the sample of checked elements, the
 * comparison, the grid, the operands on disk and --quant fp8-block's
 * scales.  Expectations are worked out by hand here (powers of
 * two, small integers) or by an independent model of the kernel's f32
 * arithmetic, never by calling the code under test twice. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "run_gemm.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct rg_problem problem(mmagen_type ab, mmagen_type out, uint32_t m, uint32_t n,
				 uint32_t k)
{
	return (struct rg_problem){ .a = ab, .b = ab, .out = out, .m = m, .n = n, .k = k,
				    .alpha = 1, .beta = 0, .seed = 42 };
}

static struct rg_problem mixed(mmagen_type a, mmagen_type b, mmagen_type out, uint32_t m,
			       uint32_t n, uint32_t k)
{
	struct rg_problem p = problem(a, out, m, n, k);
	p.b = b;
	return p;
}

/* rg_tolerance of a problem of A type a, D type out */
static double tol_of(mmagen_type a, mmagen_type out, uint32_t k, float alpha, float beta,
		     double sum_abs, double cval, double ref)
{
	struct rg_problem p = problem(a, out, 1, 2, k);
	p.alpha = alpha;
	p.beta = beta;
	return rg_tolerance(&p, sum_abs, cval, ref);
}

static void test_rules(void)
{
	struct rg_problem p = problem(MMAGEN_BF16, MMAGEN_BF16, 333, 258, 72);
	CHECK_EXPR(rg_check_problem(&p) == 0);
	/* sizes: M = K = 2^30 bf16 is 2^61 bytes of A, refused (rg_bytes
	 * wrapped to 0 once); s4 at 2^30 x 2^30 is 2^59 bytes, exactly */
	struct rg_problem big = problem(MMAGEN_BF16, MMAGEN_BF16, 1u << 30, 8, 1u << 30);
	CHECK(rg_check_problem(&big) == -1 && strstr(rg_error(), "A would take 2305843009213693952 bytes") &&
	      strstr(rg_error(), "2^47"), "2^30 x 2^30: %s", rg_error());
	CHECK_EXPR(rg_bytes(&big, 'A') == (size_t)1 << 61);
	big = problem(MMAGEN_S4, MMAGEN_S4, 1u << 30, 8, 1u << 30);
	CHECK_EXPR(rg_bytes(&big, 'A') == (size_t)1 << 59);
	big = problem(MMAGEN_S4, MMAGEN_S4, 3, 8, 5);
	CHECK_EXPR(rg_bytes(&big, 'A') == 8);                  /* 15 nibbles */
	big = problem(MMAGEN_BF16, MMAGEN_BF16, 1u << 20, 1u << 26, 64);
	CHECK(rg_check_problem(&big) == -1 && strstr(rg_error(), "D would take"), "D: %s",
	      rg_error());
	/* shapes as cuBLAS takes them: rows not 16-byte multiples and odd N
	 * run (libmmart's launcher stages what the kernel cannot read) */
	p.k = 20;
	CHECK(rg_check_problem(&p) == 0, "K = 20: %s", rg_error());
	p.k = 1;
	CHECK(rg_check_problem(&p) == 0, "K = 1: %s", rg_error());
	p.k = 8;
	CHECK_EXPR(rg_check_problem(&p) == 0);
	p.n = 7;
	CHECK(rg_check_problem(&p) == 0, "N = 7: %s", rg_error());
	p.n = 1;
	CHECK(rg_check_problem(&p) == 0, "N = 1: %s", rg_error());
	p.n = 8;
	p.m = 1;
	CHECK_EXPR(rg_check_problem(&p) == 0);        /* M = 1, N = 8, K = 8 */
	p.m = 0;
	CHECK(rg_check_problem(&p) == -1 && strstr(rg_error(), "M = 0"), "M = 0: %s", rg_error());
	p.m = 0x80000000u;
	CHECK(rg_check_problem(&p) == -1, "M = 2^31 accepted");
	p = problem(MMAGEN_F16, MMAGEN_F32, 1, 2, 8);
	CHECK_EXPR(rg_check_problem(&p) == 0);
	CHECK_EXPR(rg_bytes(&p, 'A') == 16 && rg_bytes(&p, 'B') == 32 && rg_bytes(&p, 'C') == 8 &&
		   rg_bytes(&p, 'D') == 8);

	/* tf32: 4-byte elements, K a multiple of 4 */
	p = problem(MMAGEN_TF32, MMAGEN_BF16, 1, 8, 4);
	CHECK_EXPR(rg_check_problem(&p) == 0);
	CHECK_EXPR(rg_bytes(&p, 'A') == 16 && rg_bytes(&p, 'B') == 128 && rg_bytes(&p, 'D') == 16);
	p.k = 6;
	CHECK(rg_check_problem(&p) == 0, "tf32 K = 6: %s", rg_error());
	/* 8-bit types: 1-byte elements, K a multiple of 16, mixes */
	p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16, 1, 8, 16);
	CHECK_EXPR(rg_check_problem(&p) == 0);
	CHECK_EXPR(rg_bytes(&p, 'A') == 16 && rg_bytes(&p, 'B') == 128 && rg_bytes(&p, 'C') == 16);
	p.k = 8;
	CHECK(rg_check_problem(&p) == 0, "e4m3 K = 8: %s", rg_error());
	p = mixed(MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 333, 258, 1000);
	CHECK(rg_check_problem(&p) == 0, "s8 K = 1000: %s", rg_error());
	p.k = 1008;
	CHECK_EXPR(rg_check_problem(&p) == 0);
	CHECK_EXPR(rg_bytes(&p, 'A') == 333 * 1008 && rg_bytes(&p, 'B') == 258 * 1008 &&
		   rg_bytes(&p, 'D') == 333 * 258 * 4);
	p.n = 9;
	CHECK(rg_check_problem(&p) == 0, "s32 N = 9: %s", rg_error());
	/* the accumulation classes */
	CHECK_EXPR(rg_class_of(MMAGEN_BF16) == RG_F32ACC && rg_class_of(MMAGEN_F16) == RG_F32ACC &&
		   rg_class_of(MMAGEN_TF32) == RG_F32ACC && rg_class_of(MMAGEN_E4M3) == RG_FP8 &&
		   rg_class_of(MMAGEN_E5M2) == RG_FP8 && rg_class_of(MMAGEN_S8) == RG_INT &&
		   rg_class_of(MMAGEN_U8) == RG_INT);
}

static void test_half_ulp(void)
{
	/* bf16 has 7 explicit mantissa bits: ulp at [1, 2) is 2^-7 */
	CHECK_EXPR(rg_half_ulp(MMAGEN_BF16, 1.0) == 0x1p-8);
	CHECK_EXPR(rg_half_ulp(MMAGEN_BF16, 1.99) == 0x1p-8);
	CHECK_EXPR(rg_half_ulp(MMAGEN_BF16, -0.75) == 0x1p-9);
	CHECK_EXPR(rg_half_ulp(MMAGEN_BF16, 0.0) == 0x1p-134);   /* subnormal step 2^-133 */
	/* f16: 10 bits, normals from 2^-14, largest binade [2^15, 2^16) */
	CHECK_EXPR(rg_half_ulp(MMAGEN_F16, 65504.0) == 16.0);
	CHECK_EXPR(rg_half_ulp(MMAGEN_F16, 1.0) == 0x1p-11);
	CHECK_EXPR(rg_half_ulp(MMAGEN_F16, 0.0) == 0x1p-25);
	CHECK_EXPR(rg_half_ulp(MMAGEN_F16, 0x1p-20) == 0x1p-25);
	CHECK_EXPR(rg_half_ulp(MMAGEN_F16, 0x1p-14) == 0x1p-25);
	/* f32: 23 bits */
	CHECK_EXPR(rg_half_ulp(MMAGEN_F32, 3.0) == 0x1p-23);
	CHECK_EXPR(rg_half_ulp(MMAGEN_F32, 0x1p-130) == 0x1p-150);
	CHECK_EXPR(isnan(rg_half_ulp(MMAGEN_S32, 1.0)));
	/* e4m3: 3 mantissa bits, normals from 2^-6, largest 448; e5m2: 2
	 * bits, normals from 2^-14, largest 57344 */
	CHECK_EXPR(rg_half_ulp(MMAGEN_E4M3, 448.0) == 16.0);
	CHECK_EXPR(rg_half_ulp(MMAGEN_E4M3, 1.0) == 0x1p-4);
	CHECK_EXPR(rg_half_ulp(MMAGEN_E4M3, 0.0) == 0x1p-10);      /* subnormal step 2^-9 */
	CHECK_EXPR(rg_half_ulp(MMAGEN_E5M2, 57344.0) == 4096.0);
	CHECK_EXPR(rg_half_ulp(MMAGEN_E5M2, -1.5) == 0x1p-3);
	CHECK_EXPR(rg_half_ulp(MMAGEN_E5M2, 0x1p-15) == 0x1p-17);
}

static void test_tolerance(void)
{
	const double u = 0x1p-24;
	/* K = 1, alpha 1, beta 0, sum|ab| = 1, ref 1:
	 * accumulation 2u, alpha product u * (1 + 2u), then bf16's half ulp
	 * at 1 + those (still in [1, 2)) */
	double e = 2 * u + u * (1 + 2 * u);
	double t = tol_of(MMAGEN_BF16, MMAGEN_BF16, 1, 1.0f, 0.0f, 1.0, 0.0, 1.0);
	CHECK(t == e + 0x1p-8, "tolerance bf16 K=1: %.17g, expected %.17g", t, e + 0x1p-8);
	/* K = 1024, alpha -2, beta 0.5, sum|ab| = 300, C = 3, ref 40, f32 out */
	double acc = 1024 * 2 * u * 300, accmax = 300 + acc;
	e = 2 * (acc + u * accmax) + u * (0.5 * 3 + 2 * accmax * (1 + u));
	t = tol_of(MMAGEN_F16, MMAGEN_F32, 1024, -2.0f, 0.5f, 300, 3, 40);
	CHECK(fabs(t - (e + rg_half_ulp(MMAGEN_F32, 40 + e))) <= 1e-15 * t,
	      "tolerance f32 K=1024: %.17g, expected %.17g", t, e + 0x1p-19);
	/* by hand: 2 * 1024 * 2^-23 * 300 = 0.0732..., the rest is smaller */
	CHECK(t > 0.0732 && t < 0.0734, "tolerance f32 K=1024 out of range: %g", t);
	/* grows with K and with sum |a*b| */
	CHECK_EXPR(tol_of(MMAGEN_F16, MMAGEN_F16, 4096, 1, 0, 100, 0, 1) >
		   tol_of(MMAGEN_F16, MMAGEN_F16, 64, 1, 0, 100, 0, 1));
	/* f16 accumulation (--acc f16): K * 2 * 2^-11 * P, by hand for K = 64,
	 * P = 10: 0.625, plus f32 output's small terms */
	{
		struct rg_problem q = problem(MMAGEN_F16, MMAGEN_F32, 1, 2, 64);
		q.alpha = 1;
		q.acc_f16 = 1;
		double t16 = rg_tolerance(&q, 10, 0, 1);
		CHECK(t16 > 0.625 && t16 < 0.626, "tolerance f16 accumulation K=64: %g", t16);
	}
	/* tf32 accumulates in f32 like the 16-bit types: the same bound */
	CHECK_EXPR(tol_of(MMAGEN_TF32, MMAGEN_F32, 1024, -2.0f, 0.5f, 300, 3, 40) ==
		   tol_of(MMAGEN_F16, MMAGEN_F32, 1024, -2.0f, 0.5f, 300, 3, 40));
	/* the worst-case bound at K = 8192, |a*b| about 1/4 on average:
	 * 8192 * 2^-23 * 2048 = 2 and a little more.  Elements mixed up (a
	 * wrong row, column or swizzle) are off by about sqrt(K)/3 = 30 */
	t = tol_of(MMAGEN_BF16, MMAGEN_BF16, 8192, 1, 0, 8192 * 0.25, 0, 50);
	CHECK(t > 2.0 && t < 2.2, "tolerance at K = 8192: %g", t);

	/* FP8, K = 256, sum|ab| = 10, ref 1, f32 out: 2.7e-3 * 10 for wgmma's
	 * partial sums, 256 * 2u * 10 for the f32 additions, the alpha
	 * product, half an f32 ulp */
	double acc8 = 2.7e-3 * 10 + 256 * 2 * u * 10;
	e = acc8 + u * (10 + acc8);
	t = tol_of(MMAGEN_E4M3, MMAGEN_F32, 256, 1, 0, 10, 0, 1);
	CHECK(t == e + rg_half_ulp(MMAGEN_F32, 1 + e), "fp8 tolerance: %.17g, expected %.17g", t,
	      e + rg_half_ulp(MMAGEN_F32, 1 + e));
	/* by hand: 0.027 + 5120 * 2^-24 (3.05e-4) and a little; above four
	 * times the 6.6e-4 * sum|ab| measured for one k32 wgmma */
	CHECK(t > 0.027305 && t < 0.027306 && t > 4 * 6.6e-4 * 10, "fp8 tolerance %.9g", t);
	CHECK_EXPR(tol_of(MMAGEN_E5M2, MMAGEN_F32, 256, 1, 0, 10, 0, 1) == t);
	/* bf16 D adds half a bf16 ulp at 1: 2^-8 */
	CHECK_EXPR(tol_of(MMAGEN_E4M3, MMAGEN_BF16, 256, 1, 0, 10, 0, 1) == e + 0x1p-8);
	/* s8/u8 -> s32: wrapping integers, exact */
	CHECK_EXPR(tol_of(MMAGEN_S8, MMAGEN_S32, 4096, 3, -2, 1e9, 5, 7) == 0);
	CHECK_EXPR(tol_of(MMAGEN_U8, MMAGEN_S32, 16, 1, 0, 1, 0, 1) == 0);
	/* s8/u8 -> f32: the exact s32 sum rounded once to f32 (u * sum|ab|),
	 * the alpha product, the beta FMA: sum|ab| = 2^20, alpha 1, beta 1,
	 * C 2^10, ref 2^19 */
	double ai = 0x1p-4, acc_max = 0x1p20 + ai;     /* u * 2^20 = 2^-4 */
	e = ai + u * acc_max + u * (0x1p10 + acc_max * (1 + u));
	t = tol_of(MMAGEN_S8, MMAGEN_F32, 4096, 1, 1, 0x1p20, 0x1p10, 0x1p19);
	CHECK(t == e + rg_half_ulp(MMAGEN_F32, 0x1p19 + e), "s8 -> f32 tolerance %.17g", t);
	/* by hand: 2^-4 (the rounding to f32) + 2^-4 (alpha) + 2^-4 (beta)
	 * + 2^-5 (half an f32 ulp at 2^19) = 7/32, and 2^-14 */
	CHECK(t > 0.21875 && t < 0.2189, "s8 -> f32 tolerance by hand: %g", t);
	/* and it does not grow with K: the sum is exact */
	CHECK_EXPR(tol_of(MMAGEN_U8, MMAGEN_F32, 16, 1, 1, 0x1p20, 0x1p10, 0x1p19) == t);
}

static void test_fill(void)
{
	enum { N = 20000 };
	uint16_t a[N], a2[N], b[N];
	uint32_t c[N];
	size_t big = 0, neg = 0;

	rg_fill(MMAGEN_BF16, 7, 'A', a, N);
	rg_fill(MMAGEN_BF16, 7, 'A', a2, N);
	rg_fill(MMAGEN_BF16, 7, 'B', b, N);
	rg_fill(MMAGEN_F32, 7, 'C', c, N);
	CHECK_EXPR(!memcmp(a, a2, sizeof a));          /* same seed, same bytes */
	CHECK_EXPR(memcmp(a, b, sizeof a) != 0);       /* operands differ */
	for (size_t i = 0; i < N; i++) {
		double x = rg_value(MMAGEN_BF16, a, i), y = rg_value(MMAGEN_F32, c, i);
		CHECK(x != 0 && x >= -1 && x <= 1 && y != 0 && y >= -1 && y <= 1,
		      "element %zu: %g, %g", i, x, y);
		/* little-endian bf16: the high byte holds sign and exponent */
		uint8_t *p = (uint8_t *)&a[i];
		uint32_t bits = (uint32_t)p[1] << 24 | (uint32_t)p[0] << 16;
		float f;
		memcpy(&f, &bits, sizeof f);
		CHECK(f == x, "element %zu: bytes say %g, rg_value %g", i, f, x);
		big += fabs(x) > 0.5;
		neg += x < 0;
	}
	/* uniform over [-1, 1]: half beyond 0.5, half negative (4 sigma) */
	CHECK(big > N / 2 - 300 && big < N / 2 + 300, "%zu of %d beyond 0.5", big, N);
	CHECK(neg > N / 2 - 300 && neg < N / 2 + 300, "%zu of %d negative", neg, N);
}

/* The inputs of the other types: tf32 with its low 13 bits zero, FP8 in
 * [-2, 2] and each an exact value of its type, s8/u8/s32 over the whole
 * range; never zero. */
static void test_fill_types(void)
{
	enum { N = 20000 };
	static uint32_t w[N];
	static uint8_t b[N];
	size_t low = 0, big = 0, neg = 0, bad = 0;

	rg_fill(MMAGEN_TF32, 3, 'A', w, N);
	for (size_t i = 0; i < N; i++) {
		float f;
		memcpy(&f, &w[i], sizeof f);
		low += (w[i] & 0x1FFFu) != 0;
		bad += !(f != 0 && f >= -1 && f <= 1 && rg_value(MMAGEN_TF32, w, i) == f);
		big += fabsf(f) > 0.5f;
	}
	CHECK(low == 0 && bad == 0, "tf32: %zu with low bits, %zu out of range", low, bad);
	CHECK(big > N / 2 - 300 && big < N / 2 + 300, "tf32: %zu of %d beyond 0.5", big, N);

	/* beyond 1 after rounding: x past halfway from 1 to the next value,
	 * 1 + 2^-4 (e4m3) or 1 + 2^-3 (e5m2): 15/32 or 7/16 of the draws */
	static const mmagen_type fp8[2] = { MMAGEN_E4M3, MMAGEN_E5M2 };
	static const size_t beyond1[2] = { N * 15 / 32, N * 7 / 16 };
	for (int t = 0; t < 2; t++) {
		rg_fill(fp8[t], 3, 'B', b, N);
		big = neg = bad = 0;
		for (size_t i = 0; i < N; i++) {
			double x = mmagen_type_decode(fp8[t], b[i]);
			/* finite, nonzero, |x| <= 2, and exactly a value of the
			 * type (the encoder gives its pattern back) */
			bad += !(x != 0 && fabs(x) <= 2 && mmagen_type_encode(fp8[t], x) == b[i]);
			big += fabs(x) > 1;
			neg += x < 0;
		}
		/* uniform over [-2, 2): half negative */
		CHECK(bad == 0, "%s: %zu inputs out of range", mmagen_type_name(fp8[t]), bad);
		CHECK(big > beyond1[t] - 300 && big < beyond1[t] + 300 && neg > N / 2 - 300 &&
		      neg < N / 2 + 300,
		      "%s: %zu beyond 1, %zu negative of %d", mmagen_type_name(fp8[t]), big, neg, N);
	}

	/* s8 and u8: every value but 0 drawn (about 78 times each) */
	static const mmagen_type i8[2] = { MMAGEN_S8, MMAGEN_U8 };
	for (int t = 0; t < 2; t++) {
		size_t seen[256] = { 0 }, missing = 0;
		rg_fill(i8[t], 3, 'A', b, N);
		for (size_t i = 0; i < N; i++)
			seen[b[i]]++;
		for (int v = 1; v < 256; v++)
			missing += !seen[v];
		CHECK(seen[0] == 0 && missing == 0, "%s: zero drawn %zu times, %zu values never",
		      mmagen_type_name(i8[t]), seen[0], missing);
	}
	CHECK_EXPR(rg_value(MMAGEN_S8, (uint8_t[]){ 0x80 }, 0) == -128);

	/* s32 C: the whole range, both signs, never zero */
	rg_fill(MMAGEN_S32, 3, 'C', w, N);
	big = neg = bad = 0;
	for (size_t i = 0; i < N; i++) {
		double x = rg_value(MMAGEN_S32, w, i);
		bad += x == 0;
		big += fabs(x) >= 0x1p30;
		neg += x < 0;
	}
	CHECK(bad == 0 && big > N / 2 - 300 && big < N / 2 + 300 && neg > N / 2 - 300 &&
	      neg < N / 2 + 300, "s32: %zu zeros, %zu beyond 2^30, %zu negative", bad, big, neg);

	/* s8 x u8 -> f32: C scaled to 2^16, still exact f32 values, never 0 */
	struct rg_data d = { .p = mixed(MMAGEN_S8, MMAGEN_U8, MMAGEN_F32, 40, 50, 16) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	big = bad = 0;
	for (size_t i = 0; i < 40 * 50; i++) {
		double c = rg_value(MMAGEN_F32, d.c, i);
		bad += !(c != 0 && fabs(c) <= 0x1p16);
		big += fabs(c) > 0x1p15;
	}
	CHECK(bad == 0 && big > 800 && big < 1200, "s8 -> f32 C: %zu out of range, %zu beyond 2^15",
	      bad, big);
	rg_data_free(&d);
}

/* The fast rounding of the inputs against the library's encoder: every
 * float r * 2^-24 the inputs can be, strided, and the edges. */
static void test_round(void)
{
	static const mmagen_type types[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32, MMAGEN_TF32 };
	size_t bad = 0, n = 0;
	for (int t = 0; t < 4; t++)
		for (int32_t r = -(1 << 24); r <= (1 << 24); r += r > -4096 && r < 4096 ? 1 : 97) {
			float x = (float)r * 0x1p-24f;
			uint64_t got = rg_round(types[t], x), want = mmagen_type_encode(types[t], x);
			n++;
			if (got != want && bad++ < 10)
				fail("rg_round(%s, %.9g) = 0x%llx, mmagen_type_encode 0x%llx",
				     mmagen_type_name(types[t]), x, (unsigned long long)got,
				     (unsigned long long)want);
		}
	CHECK(bad == 0 && n > 1000000, "rg_round: %zu of %zu differ", bad, n);
	/* ties to even, by hand: 1 + 2^-8 is halfway between bf16 1 and
	 * 1 + 2^-7 (odd): 1; 1 + 3 * 2^-8: up to 1 + 2^-6 */
	CHECK_EXPR(rg_round(MMAGEN_BF16, 1.0f + 0x1p-8f) == 0x3F80);
	CHECK_EXPR(rg_round(MMAGEN_BF16, 1.0f + 3 * 0x1p-8f) == 0x3F82);
	CHECK_EXPR(rg_round(MMAGEN_F16, -1.0f) == 0xBC00);
	CHECK_EXPR(rg_round(MMAGEN_F16, 0x1p-24f) == 0x0001);
	CHECK_EXPR(rg_round(MMAGEN_F16, 3 * 0x1p-25f) == 0x0002);   /* 1.5 steps: even */
	CHECK_EXPR(rg_round(MMAGEN_F16, 0x1p-14f - 0x1p-26f) == 0x0400);
	/* tf32: 10 mantissa bits in f32's layout, the low 13 bits zero.
	 * 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (odd, bit 13): 1;
	 * 1 + 3 * 2^-11: up to 1 + 2^-9; 1 + 2^-11 + 2^-23: past halfway,
	 * up to 1 + 2^-10 */
	CHECK_EXPR(rg_round(MMAGEN_TF32, 1.0f + 0x1p-11f) == 0x3F800000u);
	CHECK_EXPR(rg_round(MMAGEN_TF32, 1.0f + 3 * 0x1p-11f) == 0x3F804000u);
	CHECK_EXPR(rg_round(MMAGEN_TF32, 1.0f + 0x1p-11f + 0x1p-23f) == 0x3F802000u);
	CHECK_EXPR(rg_round(MMAGEN_TF32, -0.5f) == 0xBF000000u);
}

/* rg_value's fast paths against the library's decoder: every pattern of
 * the 8- and 16-bit types, random patterns of the 32-bit ones (tf32 with
 * its ignored low bits set). */
static void test_value(void)
{
	static const mmagen_type types[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_E4M3, MMAGEN_E5M2,
					     MMAGEN_S8, MMAGEN_U8, MMAGEN_F32, MMAGEN_TF32,
					     MMAGEN_S32 };
	uint64_t s = 5;
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		unsigned eb = rg_elem_bytes(types[t]);
		size_t bad = 0, count = eb < 4 ? (size_t)1 << (8 * eb) : 100000;
		for (size_t i = 0; i < count; i++) {
			uint32_t bits = eb < 4 ? (uint32_t)i : (uint32_t)rg_next(&s);
			uint8_t buf[4] = { (uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
					   (uint8_t)(bits >> 24) };
			double got = rg_value(types[t], buf, 0), want = mmagen_type_decode(types[t], bits);
			if (!(got == want || (isnan(got) && isnan(want))) && bad++ < 5)
				fail("rg_value(%s, 0x%x) = %.17g, mmagen_type_decode %.17g",
				     mmagen_type_name(types[t]), bits, got, want);
		}
		CHECK(bad == 0, "rg_value(%s): %zu of %zu differ", mmagen_type_name(types[t]), bad, count);
	}
	/* by hand */
	uint8_t b4[4] = { 0xFF, 0xFF, 0xFF, 0xFF };
	CHECK_EXPR(rg_value(MMAGEN_S32, b4, 0) == -1);
	uint8_t m4[4] = { 0, 0, 0, 0x80 };
	CHECK_EXPR(rg_value(MMAGEN_S32, m4, 0) == -0x1p31);
	uint8_t t4[4] = { 0xFF, 0x1F, 0x80, 0x3F };       /* 1 and 13 ignored bits */
	CHECK_EXPR(rg_value(MMAGEN_TF32, t4, 0) == 1.0 && rg_value(MMAGEN_F32, t4, 0) > 1.0);
	uint8_t e1[1] = { 0x40 };                         /* 2 in e4m3 and e5m2 */
	CHECK_EXPR(rg_value(MMAGEN_E4M3, e1, 0) == 2 && rg_value(MMAGEN_E5M2, e1, 0) == 2);
}

static void put16(void *buf, size_t i, mmagen_type t, double v)
{
	uint64_t bits = mmagen_type_encode(t, v);
	((uint8_t *)buf)[2 * i] = (uint8_t)bits;
	((uint8_t *)buf)[2 * i + 1] = (uint8_t)(bits >> 8);
}

static void test_reference(void)
{
	struct rg_data d = { .p = problem(MMAGEN_BF16, MMAGEN_F32, 2, 2, 8) };
	double sa, c;

	CHECK_EXPR(rg_alloc(&d) == 0);
	/* row 0 of A: 1..8; row 1: 2^15, 2^-15, -2^15, 0...; B's rows (the
	 * columns of B): 1, -1, 1, ... and 2^15, 2^-15, 2^15, 0... */
	for (int x = 0; x < 8; x++) {
		put16(d.a, x, MMAGEN_BF16, x + 1);
		put16(d.b, x, MMAGEN_BF16, x % 2 ? -1 : 1);
		put16(d.a, 8 + x, MMAGEN_BF16, x == 0 ? 0x1p15 : x == 1 ? 0x1p-15 : x == 2 ? -0x1p15 : 0);
		put16(d.b, 8 + x, MMAGEN_BF16, x == 0 ? 0x1p15 : x == 1 ? 0x1p-15 : x == 2 ? 0x1p15 : 0);
	}
	CHECK_EXPR(rg_dot(&d, 0, 0, &sa) == -4 && sa == 36);   /* 1-2+3-...-8 */
	CHECK_EXPR(rg_dot(&d, 0, 1, &sa) == 0x1p15 + 2 * 0x1p-15 + 3 * 0x1p15);
	/* 2^30 + 2^-30 - 2^30: a plain double sum says 0 */
	double dot = rg_dot(&d, 1, 1, &sa);
	CHECK(dot == 0x1p-30 && sa == 0x1p31 + 0x1p-30, "cancellation: %.17g", dot);
	CHECK_EXPR(rg_dot(&d, 1, 0, &sa) == 0x1p15 - 0x1p-15 - 0x1p15);
	/* alpha, beta and C */
	uint32_t cbits[4] = { 0x40400000u, 0x7fc00000u, 0, 0 };   /* 3.0, NaN */
	memcpy(d.c, cbits, sizeof cbits);
	d.p.alpha = 0.5f;
	d.p.beta = 2.0f;
	CHECK_EXPR(rg_reference(&d, 0, 0, &sa, &c) == 0.5 * -4 + 2 * 3 && c == 3);
	d.p.beta = 0;      /* C is not read: its NaN does not matter */
	CHECK_EXPR(rg_reference(&d, 0, 1, &sa, &c) == 0.5 * (0x1p15 + 2 * 0x1p-15 + 3 * 0x1p15) &&
		   c == 0);
	rg_data_free(&d);
}

static void put8(void *buf, size_t i, mmagen_type t, double v)
{
	uint64_t bits = mmagen_type_encode(t, v);
	assert(mmagen_type_decode(t, bits) == v);
	((uint8_t *)buf)[i] = (uint8_t)bits;
}

static void put32(void *buf, size_t i, uint32_t bits)
{
	memcpy((uint8_t *)buf + 4 * i, &bits, 4);
}

/* The other types' references, by hand. */
static void test_reference_types(void)
{
	double sa, c;

	/* e4m3 x e5m2, K = 16: 2 * 1.5 - 0.5 * 2 + 2^-9 * 2^-16 (the
	 * smallest subnormals; their product 2^-25 survives in double) */
	struct rg_data d = { .p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 1, 2, 16) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	memset(d.a, 0, 16);
	memset(d.b, 0, 32);
	put8(d.a, 0, MMAGEN_E4M3, 2);
	put8(d.a, 1, MMAGEN_E4M3, -0.5);
	put8(d.a, 15, MMAGEN_E4M3, 0x1p-9);
	put8(d.b, 0, MMAGEN_E5M2, 1.5);
	put8(d.b, 1, MMAGEN_E5M2, 2);
	put8(d.b, 15, MMAGEN_E5M2, 0x1p-16);
	CHECK_EXPR(rg_dot(&d, 0, 0, &sa) == 2 + 0x1p-25 && sa == 4 + 0x1p-25);
	d.p.alpha = -3;
	CHECK_EXPR(rg_reference(&d, 0, 0, &sa, &c) == -3 * (2 + 0x1p-25) && c == 0);
	rg_data_free(&d);

	/* tf32: the low 13 bits of A's f32 are ignored, as the tensor cores
	 * do; (1 + 2^-10) * (1 - 2^-11) exactly */
	d = (struct rg_data){ .p = problem(MMAGEN_TF32, MMAGEN_F32, 1, 2, 4) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	memset(d.a, 0, 16);
	memset(d.b, 0, 32);
	put32(d.a, 0, 0x3F802000u | 0x1FFFu);     /* 1 + 2^-10, low bits set */
	put32(d.b, 0, 0x3F7FF000u);               /* 1 - 2^-11 */
	CHECK_EXPR(rg_dot(&d, 0, 0, &sa) == (1 + 0x1p-10) * (1 - 0x1p-11));
	rg_data_free(&d);

	/* s8 x u8 -> s32: -128 * 255 + 127 * 255 - 1 * 1 = -256; alpha 3.7
	 * is 3, beta -2.9 is -2; C = 2^31 - 1: 3 * -256 - 2 * (2^31 - 1) =
	 * -766 - 2^32, which wraps to -766 */
	d = (struct rg_data){ .p = mixed(MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 1, 2, 16) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	memset(d.a, 0, 16);
	memset(d.b, 0, 32);
	put8(d.a, 0, MMAGEN_S8, -128);
	put8(d.a, 1, MMAGEN_S8, 127);
	put8(d.a, 2, MMAGEN_S8, -1);
	put8(d.b, 0, MMAGEN_U8, 255);
	put8(d.b, 1, MMAGEN_U8, 255);
	put8(d.b, 2, MMAGEN_U8, 1);
	put32(d.c, 0, 0x7FFFFFFFu);
	CHECK_EXPR(rg_dot(&d, 0, 0, &sa) == -256 && sa == 128 * 255 + 127 * 255 + 1);
	d.p.alpha = 3.7f;
	d.p.beta = -2.9f;
	double r = rg_reference(&d, 0, 0, &sa, &c);
	CHECK(r == -766 && c == 0x7FFFFFFF, "s32 wrap: %.17g", r);
	/* the same into f32: no integer alpha, no wrap */
	d.p.out = MMAGEN_F32;
	put32(d.c, 0, 0x40400000u);               /* 3.0 */
	r = rg_reference(&d, 0, 0, &sa, &c);
	CHECK(r == (double)3.7f * -256 + (double)-2.9f * 3, "s8 -> f32: %.17g", r);
	rg_data_free(&d);

	/* u8 x u8, K = 33040: 255 * 255 * 33040 = 2148426000 passes 2^31; the
	 * s32 accumulator holds 2148426000 - 2^32 = -2146541296 */
	d = (struct rg_data){ .p = problem(MMAGEN_U8, MMAGEN_F32, 1, 2, 33040) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	memset(d.a, 0xFF, 33040);
	memset(d.b, 0xFF, 2 * 33040);
	CHECK_EXPR(rg_dot(&d, 0, 1, &sa) == 2148426000.0);
	CHECK_EXPR(rg_reference(&d, 0, 1, &sa, &c) == -2146541296.0);
	d.p.out = MMAGEN_S32;
	d.p.alpha = -1;
	CHECK_EXPR(rg_reference(&d, 0, 1, &sa, &c) == 2146541296.0);
	rg_data_free(&d);

	/* cvt.rzi.s32.f32 and the wrap */
	CHECK_EXPR(rg_int_scale(1.9f) == 1 && rg_int_scale(-1.9f) == -1 && rg_int_scale(0.5f) == 0);
	CHECK_EXPR(rg_int_scale(3e9f) == INT32_MAX && rg_int_scale(-3e9f) == INT32_MIN &&
		   rg_int_scale(-0x1p31f) == INT32_MIN && rg_int_scale(NAN) == 0);
	CHECK_EXPR(rg_wrap32(0x80000000ll) == INT32_MIN && rg_wrap32(-1) == -1 &&
		   rg_wrap32(0x100000005ll) == 5 && rg_wrap32(-0x100000003ll) == -3 &&
		   rg_wrap32(INT64_MIN) == 0 && rg_wrap32(0x7FFFFFFF) == INT32_MAX);
}

/* D as the kernel computes it, modelled independently: f32 sums in
 * order (FP8: per K block of 128 from zero, added into f32 sums; s8/u8:
 * a wrapping 32-bit sum), f32 alpha product and FMA with beta * C, or
 * for s32 D wrapping 32-bit arithmetic with alpha and beta truncated,
 * then the rounding into out. */
static void model_kernel(struct rg_data *d)
{
	const struct rg_problem *p = &d->p;
	int fp8 = p->a == MMAGEN_E4M3 || p->a == MMAGEN_E5M2;
	int integer = p->a == MMAGEN_S8 || p->a == MMAGEN_U8 || p->a == MMAGEN_S4 ||
		      p->a == MMAGEN_U4;
	for (uint32_t i = 0; i < p->m; i++)
		for (uint32_t j = 0; j < p->n; j++) {
			float acc = 0, part = 0;
			uint32_t iacc = 0;
			size_t at = (size_t)i * p->n + j;
			for (uint32_t x = 0; x < p->k; x++) {
				double a = rg_value(p->a, d->a, (size_t)i * p->k + x);
				double b = rg_value(p->b, d->b, (size_t)j * p->k + x);
				if (integer)
					iacc += (uint32_t)(int32_t)(a * b);
				else if (fp8)
					part += (float)a * (float)b;
				else
					acc += (float)a * (float)b;
				if (fp8 && (x % 128 == 127 || x == p->k - 1)) {
					/* fp8-block: fma(part, sa * sb (f32), acc) */
					if (p->block_scale) {
						uint32_t kb = x / 128;
						float sc = d->sa[(size_t)i * p->sa_sm + (size_t)kb * p->sa_sk] *
							   d->sb[(size_t)(j / 128) * p->sb_sn +
								 (size_t)kb * p->sb_sk];
						acc = fmaf(part, sc, acc);
					} else {
						acc += part;
					}
					part = 0;
				}
			}
			uint64_t bits;
			if (p->out == MMAGEN_S32) {
				uint32_t v = (uint32_t)(int32_t)p->alpha * iacc;
				if (p->beta != 0)
					v += (uint32_t)(int32_t)p->beta *
					     (uint32_t)(int32_t)rg_value(MMAGEN_S32, d->c, at);
				bits = v;
			} else {
				if (integer)
					acc = (float)(int32_t)iacc;
				float v = p->alpha * acc;
				if (p->beta != 0)
					v = fmaf(p->beta, (float)rg_value(p->out, d->c, at), v);
				if (p->out == MMAGEN_E4M3 || p->out == MMAGEN_E5M2) {
					/* cvt.rn.satfinite: scale, clamp, round */
					float max = (float)mmagen_type_max(p->out);
					v *= p->d_scale;
					v = v > max ? max : v < -max ? -max : v;
				}
				bits = mmagen_type_encode(p->out, v);
			}
			unsigned eb = rg_elem_bytes(p->out);
			for (unsigned b = 0; b < eb; b++)
				((uint8_t *)d->d)[at * eb + b] = (uint8_t)(bits >> (8 * b));
		}
}

static void set_elem(struct rg_data *d, size_t at, double v)
{
	uint64_t bits = mmagen_type_encode(d->p.out, v);
	unsigned eb = rg_elem_bytes(d->p.out);
	for (unsigned b = 0; b < eb; b++)
		((uint8_t *)d->d)[at * eb + b] = (uint8_t)(bits >> (8 * b));
}

/* FP8 D's d_scale in test_verify */
static float verify_d_scale = 1;

static void test_verify(mmagen_type a, mmagen_type b, mmagen_type out, float alpha, float beta)
{
	struct rg_data d = { .p = mixed(a, b, out, 37, 22, 208) };
	struct rg_verdict v;
	d.p.d_scale = verify_d_scale;
	int exact = out == MMAGEN_S32;
	const char *name = mmagen_type_name(a), *bname = mmagen_type_name(b),
		   *oname = mmagen_type_name(out);

	d.p.alpha = alpha;
	d.p.beta = beta;
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	model_kernel(&d);
	CHECK_EXPR(rg_verify(&d, &v) == 0);
	CHECK(v.bad == 0 && v.checked == 37 * 22 && v.worst_ratio <= 1 && (!exact || v.worst_err == 0),
	      "%s x %s -> %s alpha %g beta %g: %zu bad of %zu (first D[%u][%u] = %g, ref %g, tol %g)",
	      name, bname, oname, alpha, beta, v.bad, v.checked, v.bi, v.bj, v.bad_got, v.bad_ref,
	      v.bad_tol);
	/* one element off by twice its tolerance (s32: by one), another by
	 * half of it */
	double sa, c, ref = rg_reference(&d, 5, 7, &sa, &c);
	double tol = rg_tolerance(&d.p, sa, c, ref);
	CHECK(exact ? tol == 0 : tol > 0, "%s x %s -> %s: tolerance %g", name, bname, oname, tol);
	set_elem(&d, 5 * 22 + 7, exact ? rg_wrap32((int64_t)ref + 1)
				       : ref + 2 * tol + rg_half_ulp(out, ref + 2 * tol));
	CHECK_EXPR(rg_verify(&d, &v) == 0);
	CHECK(v.bad == 1 && v.bi == 5 && v.bj == 7, "%s x %s -> %s off by 2 tol: %zu bad, first [%u][%u]",
	      name, bname, oname, v.bad, v.bi, v.bj);
	if (out == MMAGEN_F32) {   /* only f32 can hold ref + tol/2 exactly enough */
		set_elem(&d, 5 * 22 + 7, ref + tol / 2);
		CHECK_EXPR(rg_verify(&d, &v) == 0 && v.bad == 0);
	}
	/* the poison (NaN; -1 in s32) and a dropped product are caught */
	model_kernel(&d);
	memset((uint8_t *)d.d + (36 * 22 + 21) * rg_elem_bytes(out), 0xFF, rg_elem_bytes(out));
	CHECK(rg_verify(&d, &v) == 0 && v.bad == 1 && v.bi == 36 && v.bj == 21,
	      "%s x %s -> %s poison: %zu bad", name, bname, oname, v.bad);
	model_kernel(&d);
	double last = rg_value(a, d.a, 3 * 208 + 207) * rg_value(b, d.b, 4 * 208 + 207);
	double scaled = exact ? (double)(int32_t)alpha * last : alpha * last;
	ref = rg_reference(&d, 3, 4, &sa, &c);
	set_elem(&d, 3 * 22 + 4, exact ? rg_wrap32((int64_t)(ref - scaled)) : ref - scaled);
	CHECK_EXPR(rg_verify(&d, &v) == 0);
	CHECK(fabs(scaled) < 2 * rg_tolerance(&d.p, sa, c, ref) || (v.bad == 1 && v.bi == 3 && v.bj == 4),
	      "%s x %s -> %s: a dropped product (%g) not caught: %zu bad", name, bname, oname, scaled,
	      v.bad);
	rg_data_free(&d);
}

/* --quant fp8-block: the scales' layouts and values, a reference worked
 * out by hand (three K blocks, two B blocks, either layout), and the
 * model kernel's D passing in both layouts, failing with a scale of the
 * wrong K block, row or B block. */
static void test_block_scale(void)
{
	struct rg_problem p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 5, 300, 129);
	p.block_scale = 1;
	rg_scale_layout(&p, 0);
	CHECK(p.sa_sm == 2 && p.sa_sk == 1 && p.sb_sn == 2 && p.sb_sk == 1 &&
	      rg_scale_count(&p, 'A') == 10 && rg_scale_count(&p, 'B') == 6,
	      "row-major scales: %u %u %u %u", p.sa_sm, p.sa_sk, p.sb_sn, p.sb_sk);
	rg_scale_layout(&p, 1);
	CHECK(p.sa_sm == 1 && p.sa_sk == 5 && p.sb_sn == 1 && p.sb_sk == 3 && p.scale_col,
	      "column-major scales: %u %u %u %u", p.sa_sm, p.sa_sk, p.sb_sn, p.sb_sk);
	/* the kernel's 32-bit index: M x KB below 2^32 (A's bytes 2^40) */
	struct rg_problem big = mixed(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 1u << 20, 8, 1u << 20);
	big.block_scale = 1;
	CHECK(rg_check_problem(&big) && strstr(rg_error(), "pass 2^32"), "M x KB past 2^32: %s",
	      rg_error());
	big.block_scale = 0;
	CHECK_EXPR(rg_check_problem(&big) == 0);

	/* the scales: positive, finite, powers of two and others, within
	 * 2^-E .. 2^(E+1) (E 10 for bf16 D, 4 for f16, 2 for FP8 D) */
	static const mmagen_type outs[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_E4M3 };
	static const int emax[] = { 10, 4, 2 };
	float sc[1200];
	for (int o = 0; o < 3; o++) {
		struct rg_problem q = mixed(MMAGEN_E4M3, MMAGEN_E4M3, outs[o], 300, 8, 512);
		q.block_scale = 1;
		rg_scale_layout(&q, 0);
		rg_fill_scales(&q, 7, 'A', sc);
		int pow2 = 0, other = 0, low = 0, high = 0, bad = 0;
		for (size_t i = 0; i < rg_scale_count(&q, 'A'); i++) {
			int e;
			double f = frexp(sc[i], &e);
			bad += !(sc[i] > 0) || !isfinite(sc[i]) || sc[i] < ldexp(1, -emax[o]) ||
			       sc[i] >= ldexp(1, emax[o] + 1);
			pow2 += f == 0.5;
			other += f != 0.5;
			low += sc[i] < ldexp(1, 1 - emax[o]);
			high += sc[i] >= ldexp(1, emax[o]);
		}
		CHECK(!bad && pow2 > 300 && other > 300 && low && high,
		      "scales for %s D: %d out of range, %d powers of two, %d others, %d low, %d high",
		      mmagen_type_name(outs[o]), bad, pow2, other, low, high);
	}

	/* by hand: K = 257 (blocks of 128, 128, 1), N = 130 (B blocks 0 and
	 * 1): A row 0 has 2, 1, 0.5 at K 0, 128, 256; B's column 0 has 1.5,
	 * 2, 1 there and column 129 -1, 0.5, 4 */
	for (int col = 0; col < 2; col++) {
		struct rg_data d = { .p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F32, 1, 130, 257) };
		double sa_v[3] = { 0.5, 3, 0x1p-7 }, sb_v[2][3] = { { 2, 0x1p10, 1.25 }, { 5, 1, 0.75 } };
		double s1, c;
		d.p.block_scale = 1;
		rg_scale_layout(&d.p, col);
		CHECK_EXPR(rg_alloc(&d) == 0);
		memset(d.a, 0, 257);
		memset(d.b, 0, 130 * 257);
		put8(d.a, 0, MMAGEN_E4M3, 2);
		put8(d.a, 128, MMAGEN_E4M3, 1);
		put8(d.a, 256, MMAGEN_E4M3, 0.5);
		put8(d.b, 0, MMAGEN_E5M2, 1.5);
		put8(d.b, 128, MMAGEN_E5M2, 2);
		put8(d.b, 256, MMAGEN_E5M2, 1);
		put8(d.b, 129 * 257 + 0, MMAGEN_E5M2, -1);
		put8(d.b, 129 * 257 + 128, MMAGEN_E5M2, 0.5);
		put8(d.b, 129 * 257 + 256, MMAGEN_E5M2, 4);
		for (int kb = 0; kb < 3; kb++) {
			d.sa[col ? kb : kb] = (float)sa_v[kb];      /* M = 1: [1][3] or [3][1] */
			for (int nb = 0; nb < 2; nb++)
				d.sb[col ? kb * 2 + nb : nb * 3 + kb] = (float)sb_v[nb][kb];
		}
		double want0 = 0.5 * 2 * 3 + 3 * 0x1p10 * 2 + 0x1p-7 * 1.25 * 0.5;
		double want1 = 0.5 * 5 * -2 + 3 * 1 * 0.5 + 0x1p-7 * 0.75 * 2;
		CHECK(rg_dot(&d, 0, 0, &s1) == want0 && s1 == want0, "block-scaled dot, column 0 (%s): %.17g",
		      col ? "col" : "row", rg_dot(&d, 0, 0, &s1));
		CHECK(rg_dot(&d, 0, 129, &s1) == want1 && s1 == 0.5 * 5 * 2 + 3 * 0.5 + 0x1p-7 * 0.75 * 2,
		      "block-scaled dot, column 129 (%s): %.17g, sum %.17g", col ? "col" : "row",
		      rg_dot(&d, 0, 129, &s1), s1);
		d.p.alpha = 2;
		CHECK_EXPR(rg_reference(&d, 0, 129, &s1, &c) == 2 * want1);
		/* the scales' product rounded to f32 once a block: u of it */
		struct rg_problem q = d.p;
		q.block_scale = 0;
		CHECK_EXPR(rg_tolerance(&d.p, 100, 0, 1) > rg_tolerance(&q, 100, 0, 1));
		rg_data_free(&d);
	}

	/* the model kernel, both layouts; then wrong scales must show */
	for (int col = 0; col < 2; col++)
		for (int wrong = 0; wrong < 4; wrong++) {
			struct rg_data d = { .p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 9, 300, 300) };
			struct rg_verdict v;
			d.p.block_scale = 1;
			rg_scale_layout(&d.p, col);
			CHECK_EXPR(rg_alloc(&d) == 0);
			rg_fill_inputs(&d);
			struct rg_problem right = d.p;
			/* 1: every K block's scales of block 0; 2: every row
			 * A's row 0; 3: every column B's block 0 */
			if (wrong == 1)
				d.p.sa_sk = d.p.sb_sk = 0;
			if (wrong == 2)
				d.p.sa_sm = 0;
			if (wrong == 3)
				d.p.sb_sn = 0;
			model_kernel(&d);
			d.p = right;
			CHECK_EXPR(rg_verify(&d, &v) == 0);
			CHECK(wrong ? v.bad > 9 * 300 / 3 : v.bad == 0 && v.checked == 9 * 300,
			      "fp8-block %s, wrong %d: %zu of %zu bad (first D[%u][%u] = %g, ref %g, tol %g)",
			      col ? "col" : "row", wrong, v.bad, v.checked, v.bi, v.bj, v.bad_got,
			      v.bad_ref, v.bad_tol);
			rg_data_free(&d);
		}
}

static int has(const size_t *v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void test_sample(void)
{
	struct rg_problem p = problem(MMAGEN_BF16, MMAGEN_BF16, 512, 512, 512);
	size_t *idx, n, *idx2, n2;

	/* 2^27 multiply-adds: every element */
	CHECK_EXPR(rg_sample(&p, 1, &idx, &n) == 0 && !idx && n == 512 * 512);
	p.k = 520;
	CHECK_EXPR(rg_sample(&p, 1, &idx, &n) == 0 && idx && n == RG_SAMPLE + 4);
	int sorted = 1;
	for (size_t i = 1; i < n; i++)
		sorted &= idx[i - 1] < idx[i];
	CHECK(sorted, "sample not sorted and distinct");
	CHECK_EXPR(idx[n - 1] < 512 * 512);
	CHECK_EXPR(has(idx, n, 0) && has(idx, n, 511) && has(idx, n, 511 * 512) &&
		   has(idx, n, 512 * 512 - 1));
	CHECK_EXPR(rg_sample(&p, 1, &idx2, &n2) == 0 && n2 == n && !memcmp(idx, idx2, n * sizeof *idx));
	free(idx2);
	CHECK_EXPR(rg_sample(&p, 2, &idx2, &n2) == 0 && memcmp(idx, idx2, n * sizeof *idx));
	free(idx2);
	/* spread over the matrix: some in each quarter of the rows */
	size_t q[4] = { 0 };
	for (size_t i = 0; i < n; i++)
		q[idx[i] / 512 / 128]++;
	CHECK(q[0] > 800 && q[1] > 800 && q[2] > 800 && q[3] > 800, "quarters %zu %zu %zu %zu",
	      q[0], q[1], q[2], q[3]);
	free(idx);
	/* few elements but a long K: every element */
	p = problem(MMAGEN_BF16, MMAGEN_BF16, 1, 8, 1u << 30);
	CHECK_EXPR(rg_sample(&p, 1, &idx, &n) == 0 && !idx && n == 8);
	/* just more elements than the sample: a sample, distinct */
	p = problem(MMAGEN_BF16, MMAGEN_BF16, 4101, 1, 1u << 20);
	CHECK_EXPR(rg_sample(&p, 3, &idx, &n) == 0 && idx && n == RG_SAMPLE + 4);
	free(idx);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[8192];
	size_t n;
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* FP8 D: the description holds d_scale, and --load wants the same. */
static void test_save_load_fp8(void)
{
	char dir[] = "/tmp/test_run_gemm_XXXXXX", path[256], *json;
	struct rg_data d = { .p = problem(MMAGEN_BF16, MMAGEN_E4M3, 3, 4, 16) }, l;

	CHECK_EXPR(mkdtemp(dir) != NULL);
	d.p.d_scale = 2.5f;
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	CHECK(rg_save(dir, &d, "tn") == 0, "save fp8: %s", rg_error());
	snprintf(path, sizeof path, "%s/gemm.json", dir);
	json = slurp(path);
	CHECK(json && strstr(json, "\"beta\": 0,\n  \"d_scale\": 2.5,\n"), "fp8 description: %s",
	      json ? json : "(none)");
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(dir, &l, "tn") == 0, "load fp8: %s", rg_error());
	rg_data_free(&l);
	l = (struct rg_data){ .p = d.p };
	l.p.d_scale = 1;
	CHECK(rg_load(dir, &l, "tn") == -1 &&
	      strstr(rg_error(), "d_scale is 2.5, the request has 1; give --d-scale 2.5") && !l.a,
	      "fp8 d_scale mismatch: %s", rg_error());
	/* a save cut short (B.bin cannot be written: a directory there) leaves
	 * no description over a mix of old and new operands */
	snprintf(path, sizeof path, "%s/B.bin", dir);
	unlink(path);
	CHECK_EXPR(mkdir(path, 0700) == 0);
	CHECK(rg_save(dir, &d, "tn") == -1, "save over a directory B.bin accepted");
	snprintf(path, sizeof path, "%s/gemm.json", dir);
	CHECK(access(path, F_OK) != 0, "gemm.json left beside a half-written save");
	snprintf(path, sizeof path, "%s/B.bin", dir);
	rmdir(path);
	const char *names[] = { "A.bin", "B.bin", "C.bin", "D.bin", "gemm.json" };
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	rg_data_free(&d);
}

static void test_save_load(void)
{
	char dir[] = "/tmp/test_run_gemm_XXXXXX", path[256], *json;
	struct rg_data d = { .p = problem(MMAGEN_F16, MMAGEN_F32, 3, 4, 16) }, l;

	CHECK_EXPR(mkdtemp(dir) != NULL);
	d.p.alpha = 1.5f;
	d.p.beta = -0.1f;
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	rg_fill(MMAGEN_F32, 9, 'D', d.d, 12);
	snprintf(path, sizeof path, "%s/sub", dir);
	CHECK(rg_save(path, &d, "tn") == 0, "save: %s", rg_error());
	snprintf(path, sizeof path, "%s/sub/gemm.json", dir);
	json = slurp(path);
	CHECK(json && strstr(json, "\"m\": 3, \"n\": 4, \"k\": 16") &&
	      strstr(json, "\"alpha\": 1.5, \"beta\": -0.100000001") &&
	      strstr(json, "\"B\": {\"file\": \"B.bin\", \"type\": \"f16\", \"shape\": [4, 16], \"strides\": [16, 1]") &&
	      strstr(json, "\"D\": {\"file\": \"D.bin\", \"type\": \"f32\", \"shape\": [3, 4]"),
	      "description: %s", json ? json : "(none)");
	const char *names[4] = { "A", "B", "C", "D" };
	void *bufs[4] = { d.a, d.b, d.c, d.d };
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/sub/%s.bin", dir, names[i]);
		FILE *f = fopen(path, "rb");
		char got[256];
		size_t want = rg_bytes(&d.p, names[i][0]), n = f ? fread(got, 1, sizeof got, f) : 0;
		if (f)
			fclose(f);
		CHECK(n == want && !memcmp(got, bufs[i], want), "%s.bin: %zu bytes", names[i], n);
	}
	/* round trip */
	snprintf(path, sizeof path, "%s/sub", dir);
	l = (struct rg_data){ .p = d.p };
	l.p.seed = 99;
	CHECK(rg_load(path, &l, "tn") == 0, "load: %s", rg_error());
	CHECK_EXPR(l.a && !memcmp(l.a, d.a, rg_bytes(&d.p, 'A')) &&
		   !memcmp(l.b, d.b, rg_bytes(&d.p, 'B')) && !memcmp(l.c, d.c, rg_bytes(&d.p, 'C')));
	rg_data_free(&l);
	/* a description that does not match the request: one line each */
	struct { const char *field; uint32_t m, n, k; float alpha; mmagen_type ab, out;
		 const char *layout, *msg; } bad[] = {
		{ "m", 4, 4, 16, 1.5f, MMAGEN_F16, MMAGEN_F32, "tn", "m is 3, the request has 4" },
		{ "k", 3, 4, 24, 1.5f, MMAGEN_F16, MMAGEN_F32, "tn", "k is 16, the request has 24" },
		{ "alpha", 3, 4, 16, 1, MMAGEN_F16, MMAGEN_F32, "tn", "alpha is 1.5, the request has 1; give --alpha 1.5" },
		{ "type", 3, 4, 16, 1.5f, MMAGEN_BF16, MMAGEN_F32, "tn", "A.type is \"f16\", not \"bf16\"" },
		{ "out", 3, 4, 16, 1.5f, MMAGEN_F16, MMAGEN_BF16, "tn", "C.type is \"f32\", not \"bf16\"" },
		{ "layout", 3, 4, 16, 1.5f, MMAGEN_F16, MMAGEN_F32, "nt", "layout is \"tn\", not \"nt\"" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		l = (struct rg_data){ .p = d.p };
		l.p.m = bad[i].m, l.p.n = bad[i].n, l.p.k = bad[i].k, l.p.alpha = bad[i].alpha;
		l.p.a = l.p.b = bad[i].ab, l.p.out = bad[i].out;
		int rc = rg_load(path, &l, bad[i].layout);
		CHECK(rc == -1 && strstr(rg_error(), bad[i].msg) && !strchr(rg_error(), '\n') && !l.a,
		      "mismatched %s: rc %d, %s", bad[i].field, rc, rg_error());
	}
	/* a short file, a broken description, a path in "file", no directory */
	snprintf(path, sizeof path, "%s/sub/C.bin", dir);
	CHECK_EXPR(truncate(path, 40) == 0);
	snprintf(path, sizeof path, "%s/sub", dir);
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "C.bin has 40 bytes; C (3 x 4 f32) needs 48"),
	      "short C: %s", rg_error());
	snprintf(path, sizeof path, "%s/sub/gemm.json", dir);
	char text[4096];
	snprintf(text, sizeof text, "%s", slurp(path));
	char *cut = strstr(text, "\"operands\"");
	*cut = '\0';
	write_text(path, text);
	snprintf(path, sizeof path, "%s/sub", dir);
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "is not JSON"), "cut: %s", rg_error());
	snprintf(path, sizeof path, "%s/sub/gemm.json", dir);
	/* a hand-written description (no spaces, other key order, escapes) */
	snprintf(text, sizeof text,
		 "{\"operands\":{\"A\":{\"type\":\"f16\",\"shape\":[3,16],\"strides\":[16,1],\"order\":\"row-major\",\"file\":\"A.bin\"},"
		 "\"B\":{\"file\":\"B\\u002ebin\",\"type\":\"f16\",\"shape\":[4,16],\"strides\":[16,1],\"order\":\"row-major\"},"
		 "\"C\":{\"file\":\"../C.bin\",\"type\":\"f32\",\"shape\":[3,4],\"strides\":[4,1],\"order\":\"row-major\"}},"
		 "\"format\":\"mmagen gemm operands\",\"version\":1,\"byte_order\":\"little-endian\",\"layout\":\"tn\","
		 "\"m\":3,\"n\":4,\"k\":16,\"alpha\":1.5,\"beta\":-0.100000001}");
	write_text(path, text);
	snprintf(path, sizeof path, "%s/sub", dir);
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "C.file must be a file name"),
	      "../C.bin: %s", rg_error());
	/* \u with fewer than four hex digits, at the end of the text too
	 * (the reader once took them, then stepped 4 bytes past the end) */
	static const char *const short_u[] = { "{\"format\":\"\\u7\"}", "{\"format\":\"\\u7",
					       "{\"format\":\"\\u00g1\"}" };
	for (size_t i = 0; i < sizeof short_u / sizeof short_u[0]; i++) {
		snprintf(path, sizeof path, "%s/sub/gemm.json", dir);
		write_text(path, short_u[i]);
		snprintf(path, sizeof path, "%s/sub", dir);
		CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "four hex digits") &&
		      !strchr(rg_error(), '\n'), "short \\u %zu: %s", i, rg_error());
	}
	snprintf(path, sizeof path, "%s/nothing", dir);
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "cannot open"), "no dir: %s", rg_error());
	/* a FIFO for gemm.json: refused at once (opening it would block) */
	snprintf(path, sizeof path, "%s/fifo", dir);
	CHECK_EXPR(mkdir(path, 0777) == 0);
	snprintf(path, sizeof path, "%s/fifo/gemm.json", dir);
	CHECK_EXPR(mkfifo(path, 0600) == 0);
	snprintf(path, sizeof path, "%s/fifo", dir);
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "not a regular file"), "FIFO: %s",
	      rg_error());
	/* saving into a file is refused */
	snprintf(path, sizeof path, "%s/sub/A.bin", dir);
	CHECK(rg_save(path, &d, "tn") == -1, "save into a file accepted");
	/* nothing of the user's is replaced: a directory with a file a save
	 * does not write, or A.bin .. D.bin without a save's gemm.json, is
	 * refused and left as it was; an earlier save is replaced; a new
	 * directory needs its parent; all said before any run */
	snprintf(path, sizeof path, "%s/mine", dir);
	CHECK_EXPR(mkdir(path, 0777) == 0);
	snprintf(path, sizeof path, "%s/mine/notes.txt", dir);
	write_text(path, "keep");
	snprintf(path, sizeof path, "%s/mine", dir);
	CHECK(rg_save_dir_check(path) == -1 && strstr(rg_error(), "notes.txt") &&
	      rg_save(path, &d, "tn") == -1, "a directory with a user's file: %s", rg_error());
	snprintf(path, sizeof path, "%s/mine/A.bin", dir);
	CHECK(access(path, F_OK) != 0, "a refused save wrote A.bin");
	snprintf(path, sizeof path, "%s/mine/notes.txt", dir);
	CHECK(slurp(path) && !strcmp(slurp(path), "keep"), "the user's file changed");
	CHECK_EXPR(unlink(path) == 0);
	snprintf(path, sizeof path, "%s/mine/A.bin", dir);
	write_text(path, "mine too");
	snprintf(path, sizeof path, "%s/mine", dir);
	CHECK(rg_save(path, &d, "tn") == -1 && strstr(rg_error(), "no gemm.json of an earlier save"),
	      "A.bin without a save's gemm.json: %s", rg_error());
	snprintf(path, sizeof path, "%s/mine/A.bin", dir);
	CHECK(slurp(path) && !strcmp(slurp(path), "mine too"), "the user's A.bin changed");
	snprintf(path, sizeof path, "%s/resave", dir);
	CHECK(rg_save(path, &d, "tn") == 0 && rg_save(path, &d, "tn") == 0,
	      "saving over an earlier save: %s", rg_error());
	snprintf(path, sizeof path, "%s/no/such", dir);
	CHECK(rg_save_dir_check(path) == -1 && strstr(rg_error(), "make it first"), "no parent: %s",
	      rg_error());
	snprintf(path, sizeof path, "%s/new//", dir);
	CHECK(rg_save_dir_check(path) == 0, "a new directory with a trailing slash: %s", rg_error());
	/* over an earlier save with scales (sm_120a's): they go */
	snprintf(path, sizeof path, "%s/resave/SA.bin", dir);
	write_text(path, "scales");
	snprintf(path, sizeof path, "%s/resave", dir);
	CHECK(rg_save(path, &d, "tn") == 0, "saving over a save with scales: %s", rg_error());
	snprintf(path, sizeof path, "%s/resave/SA.bin", dir);
	CHECK(access(path, F_OK) != 0, "an earlier save's SA.bin stayed");
	CHECK(rg_save_dir_check("") == -1 && strstr(rg_error(), "needs a directory name"),
	      "empty --save: %s", rg_error());
	rg_data_free(&d);

	/* a mix: A and B have types of their own in the description */
	d = (struct rg_data){ .p = mixed(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16, 2, 4, 16) };
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	snprintf(path, sizeof path, "%s/mix", dir);
	CHECK(rg_save(path, &d, "tn") == 0, "save mix: %s", rg_error());
	snprintf(path, sizeof path, "%s/mix/gemm.json", dir);
	json = slurp(path);
	CHECK(json && strstr(json, "\"A\": {\"file\": \"A.bin\", \"type\": \"e4m3\", \"shape\": [2, 16]") &&
	      strstr(json, "\"B\": {\"file\": \"B.bin\", \"type\": \"e5m2\", \"shape\": [4, 16]") &&
	      strstr(json, "\"C\": {\"file\": \"C.bin\", \"type\": \"f16\""),
	      "mix description: %s", json ? json : "(none)");
	snprintf(path, sizeof path, "%s/mix", dir);
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(path, &l, "tn") == 0, "load mix: %s", rg_error());
	CHECK_EXPR(l.a && !memcmp(l.a, d.a, 32) && !memcmp(l.b, d.b, 64) && !memcmp(l.c, d.c, 16));
	rg_data_free(&l);
	l = (struct rg_data){ .p = d.p };
	l.p.b = MMAGEN_E4M3;
	CHECK(rg_load(path, &l, "tn") == -1 && strstr(rg_error(), "B.type is \"e5m2\", not \"e4m3\""),
	      "mix, B mismatched: %s", rg_error());
	rg_data_free(&d);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EXPR(system(cmd) == 0);
}

/* FP8 D saturates: with a large d_scale most of D is +-max; the reference
 * clamps too, and an element one step below the largest value where the
 * reference is the largest is caught. */
static void test_verify_saturated(mmagen_type out)
{
	struct rg_data d = { .p = problem(MMAGEN_BF16, out, 9, 8, 64) };
	struct rg_verdict v;
	double max = mmagen_type_max(out), sa, c;
	d.p.d_scale = out == MMAGEN_E4M3 ? 1000 : 200000;   /* most |D| > max */
	d.p.beta = 0.5f;
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	model_kernel(&d);
	CHECK(rg_verify(&d, &v) == 0 && v.bad == 0 && v.checked == 72, "%s saturated: %zu bad",
	      mmagen_type_name(out), v.bad);
	size_t at = 72, sat = 0;
	for (size_t i = 0; i < 72; i++) {
		double ref = rg_reference(&d, (uint32_t)(i / 8), (uint32_t)(i % 8), &sa, &c);
		CHECK_EXPR(fabs(ref) <= max);
		if (fabs(ref) == max && rg_value(out, d.d, i) == ref)
			sat++, at = i;
	}
	CHECK(sat > 36 && at < 72, "%s: %zu of 72 saturated", mmagen_type_name(out), sat);
	if (at < 72) {
		double ref = rg_value(out, d.d, at);
		set_elem(&d, at, ref > 0 ? max * (out == MMAGEN_E4M3 ? 416.0 / 448 : 49152.0 / 57344)
					 : -max * (out == MMAGEN_E4M3 ? 416.0 / 448 : 49152.0 / 57344));
		CHECK(rg_verify(&d, &v) == 0 && v.bad == 1 && v.bi * 8 + v.bj == at,
		      "%s: one step below the largest value caught", mmagen_type_name(out));
	}
	rg_data_free(&d);
}


/* ---- 4-bit operands (s4, u4) ----
 * The packing by hand: element 2j in the low nibble of byte j, 2j+1 in
 * the high one (PTX ISA, mma.m16n8k64 fragments: a_i in bits 4i..4i+3
 * of a register filled from consecutive bytes).  Eight elements, their
 * patterns, their s4 and u4 values, and the four bytes they make. */
static const struct { uint8_t nib; int s4, u4; } nibbles[8] = {
	{ 0x1, 1, 1 }, { 0x2, 2, 2 }, { 0xF, -1, 15 }, { 0x8, -8, 8 },
	{ 0x0, 0, 0 }, { 0x7, 7, 7 }, { 0x9, -7, 9 }, { 0xE, -2, 14 },
};
static const uint8_t nibble_bytes[4] = { 0x21, 0x8F, 0x70, 0xE9 };

/* the test's own reader: element i of a packed buffer */
static int nib_at(const uint8_t *buf, size_t i, int is_signed)
{
	int v = (buf[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
	return is_signed && v >= 8 ? v - 16 : v;
}

static void test_4bit_pack(void)
{
	uint8_t buf[4], bytes[4];
	/* pack in a scrambled order: each write keeps the other nibble */
	static const unsigned order[8] = { 5, 0, 7, 2, 1, 6, 3, 4 };
	memset(buf, 0xA5, sizeof buf);
	for (int i = 0; i < 8; i++)
		rg_put_bits(MMAGEN_S4, buf, order[i], nibbles[order[i]].nib);
	CHECK(!memcmp(buf, nibble_bytes, 4), "s4 packed: %02x %02x %02x %02x, want 21 8f 70 e9",
	      buf[0], buf[1], buf[2], buf[3]);
	memcpy(bytes, nibble_bytes, 4);
	for (int i = 0; i < 8; i++) {
		CHECK(rg_value(MMAGEN_S4, bytes, (size_t)i) == nibbles[i].s4, "s4 element %d: %g, want %d",
		      i, rg_value(MMAGEN_S4, bytes, (size_t)i), nibbles[i].s4);
		CHECK(rg_value(MMAGEN_U4, bytes, (size_t)i) == nibbles[i].u4, "u4 element %d: %g, want %d",
		      i, rg_value(MMAGEN_U4, bytes, (size_t)i), nibbles[i].u4);
	}
	/* the ends of the ranges */
	uint8_t ends[1] = { 0x78 };          /* element 0: 8, element 1: 7 */
	CHECK_EXPR(rg_value(MMAGEN_S4, ends, 0) == -8 && rg_value(MMAGEN_S4, ends, 1) == 7);
	ends[0] = 0xF0;
	CHECK_EXPR(rg_value(MMAGEN_U4, ends, 1) == 15 && rg_value(MMAGEN_U4, ends, 0) == 0 &&
		   rg_value(MMAGEN_S4, ends, 1) == -1);
	CHECK_EXPR(rg_elem_bits(MMAGEN_S4) == 4 && rg_elem_bits(MMAGEN_U4) == 4 &&
		   rg_elem_bytes(MMAGEN_S4) == 0 && rg_elem_bits(MMAGEN_S8) == 8);
	CHECK_EXPR(rg_class_of(MMAGEN_S4) == RG_INT && rg_class_of(MMAGEN_U4) == RG_INT);

	/* rg_fill: every value of the range, never zero, packed; an odd
	 * count leaves the last high nibble zero */
	for (int sgn = 0; sgn < 2; sgn++) {
		mmagen_type t = sgn ? MMAGEN_S4 : MMAGEN_U4;
		uint8_t f[2001 / 2 + 1];
		unsigned seen[16] = { 0 }, bad = 0, zero = 0;
		memset(f, 0xFF, sizeof f);
		rg_fill(t, 7, 'A', f, 2001);
		for (size_t i = 0; i < 2001; i++) {
			int v = nib_at(f, i, sgn);
			seen[v & 0xF]++;
			zero += v == 0;
			bad += rg_value(t, f, i) != v || v < (sgn ? -8 : 0) || v > (sgn ? 7 : 15);
		}
		unsigned values = 0;
		for (int v = 1; v < 16; v++)
			values += seen[v] > 50;      /* 2001 / 15 = 133 on average */
		CHECK(!zero && !bad && values == 15 && (f[1000] >> 4) == 0,
		      "%s fill: %u zeros, %u bad, %u of 15 values, last byte %02x", mmagen_type_name(t),
		      zero, bad, values, f[1000]);
	}
	/* the same seed and operand, the same elements */
	uint8_t x[64], y[64];
	rg_fill(MMAGEN_S4, 3, 'B', x, 128);
	rg_fill(MMAGEN_S4, 3, 'B', y, 128);
	CHECK_EXPR(!memcmp(x, y, 64));
}

static void test_4bit_rules(void)
{
	struct rg_problem p = mixed(MMAGEN_S4, MMAGEN_U4, MMAGEN_S32, 333, 258, 32);
	CHECK(rg_check_problem(&p) == 0, "s4 x u4 K = 32: %s", rg_error());
	CHECK_EXPR(rg_bytes(&p, 'A') == 333 * 16 && rg_bytes(&p, 'B') == 258 * 16 &&
		   rg_bytes(&p, 'C') == 333 * 258 * 4 && rg_bytes(&p, 'D') == 333 * 258 * 4);
	p.k = 16;
	CHECK(rg_check_problem(&p) == -1 && !strncmp(rg_error(), "A: s4 ", 6) &&
	      strstr(rg_error(), "K must be a multiple of 32: use K = 32") &&
	      !strstr(rg_error(), " or ") && !strchr(rg_error(), '\n'), "s4 K = 16: %s", rg_error());
	p.k = 1000;
	CHECK(rg_check_problem(&p) == -1 && strstr(rg_error(), "use K = 992 or 1024"),
	      "s4 K = 1000: %s", rg_error());
	p.k = 1024;
	CHECK_EXPR(rg_check_problem(&p) == 0);
	/* B alone 4-bit: B is named */
	p = mixed(MMAGEN_S8, MMAGEN_U4, MMAGEN_S32, 8, 8, 48);
	CHECK(rg_check_problem(&p) == -1 && !strncmp(rg_error(), "B: u4 ", 6) &&
	      strstr(rg_error(), "use K = 32 or 64"), "u4 B K = 48: %s", rg_error());
	/* MN-major 4-bit operands: refused, tn named */
	p = mixed(MMAGEN_S4, MMAGEN_S4, MMAGEN_S32, 64, 64, 64);
	p.b_mn = 1;
	CHECK(rg_check_problem(&p) == -1 && strstr(rg_error(), "B: s4 is read K-major only") &&
	      strstr(rg_error(), "layout tn"), "s4 N-major B: %s", rg_error());
	/* an odd element count rounds up to whole bytes */
	p = mixed(MMAGEN_S4, MMAGEN_U4, MMAGEN_S32, 1, 2, 3);
	CHECK_EXPR(rg_bytes(&p, 'A') == 2 && rg_bytes(&p, 'B') == 3);
}

/* The reference against a naive loop over values unpacked by the test's
 * own reader: s32 D (alpha, beta truncated, wrapping) and f32 D. */
static void test_4bit_reference(void)
{
	static const mmagen_type types[3][3] = {
		{ MMAGEN_S4, MMAGEN_S4, MMAGEN_S32 }, { MMAGEN_U4, MMAGEN_S4, MMAGEN_S32 },
		{ MMAGEN_S4, MMAGEN_U4, MMAGEN_F32 } };
	for (int c = 0; c < 3; c++) {
		struct rg_data d = { .p = mixed(types[c][0], types[c][1], types[c][2], 5, 6, 64) };
		int sa_ = types[c][0] == MMAGEN_S4, sb_ = types[c][1] == MMAGEN_S4;
		unsigned bad = 0;
		d.p.alpha = 3.75f;       /* s32 D: 3 */
		d.p.beta = -2.5f;        /* s32 D: -2 */
		d.p.seed = 11 + (uint64_t)c;
		CHECK_EXPR(rg_alloc(&d) == 0);
		rg_fill_inputs(&d);
		for (uint32_t i = 0; i < 5; i++)
			for (uint32_t j = 0; j < 6; j++) {
				int64_t dot = 0;
				for (uint32_t x = 0; x < 64; x++)
					dot += (int64_t)nib_at(d.a, (size_t)i * 64 + x, sa_) *
					       nib_at(d.b, (size_t)j * 64 + x, sb_);
				double want, sa, cv, got = rg_reference(&d, i, j, &sa, &cv);
				if (types[c][2] == MMAGEN_S32) {
					int32_t cval;
					memcpy(&cval, (uint8_t *)d.c + 4 * ((size_t)i * 6 + j), 4);
					want = (double)(3 * dot - 2 * (int64_t)cval);
					/* wrapped to s32 (the sums here stay far inside) */
					if (want >= 0x1p31 || want < -0x1p31)
						want = rg_wrap32((int64_t)want);
				} else {
					float cval;
					memcpy(&cval, (uint8_t *)d.c + 4 * ((size_t)i * 6 + j), 4);
					want = 3.75 * (double)dot - 2.5 * (double)cval;
				}
				bad += got != want;
				if (got != want && bad == 1)
					fail("%s x %s -> %s: reference D[%u][%u] = %.17g, naive %.17g",
					     mmagen_type_name(types[c][0]), mmagen_type_name(types[c][1]),
					     mmagen_type_name(types[c][2]), i, j, got, want);
			}
		CHECK_EXPR(bad == 0);
		struct rg_problem q = d.p;
		CHECK_EXPR(rg_tolerance(&q, 1000, 1, 0) == 0 || types[c][2] != MMAGEN_S32);
		rg_data_free(&d);
	}
}

/* Save and load 4-bit operands: the description says the packing, the
 * files hold the packed bytes, load wants both back. */
static void test_4bit_save_load(void)
{
	char dir[] = "/tmp/test_run_gemm4_XXXXXX", path[256], *json, cmd[300];
	struct rg_data d = { .p = mixed(MMAGEN_S4, MMAGEN_U4, MMAGEN_S32, 3, 4, 32) }, l;

	CHECK_EXPR(mkdtemp(dir) != NULL);
	d.p.alpha = 2;
	d.p.beta = 1;
	CHECK_EXPR(rg_alloc(&d) == 0);
	rg_fill_inputs(&d);
	CHECK(rg_save(dir, &d, "tn") == 0, "save s4: %s", rg_error());
	snprintf(path, sizeof path, "%s/gemm.json", dir);
	json = slurp(path);
	CHECK(json && strstr(json, "\"A\": {\"file\": \"A.bin\", \"type\": \"s4\", \"shape\": [3, 32], \"strides\": [32, 1], \"order\": \"row-major\", \"packing\": \"two elements a byte: element 2j in bits 0-3 of byte j") &&
	      strstr(json, "\"B\": {\"file\": \"B.bin\", \"type\": \"u4\", \"shape\": [4, 32]") &&
	      !strstr(strstr(json, "\"C\": "), "packing"),
	      "s4 description: %s", json ? json : "(none)");
	snprintf(path, sizeof path, "%s/A.bin", dir);
	FILE *f = fopen(path, "rb");
	uint8_t got[64];
	size_t n = f ? fread(got, 1, sizeof got, f) : 0;
	if (f)
		fclose(f);
	CHECK(n == 48 && !memcmp(got, d.a, 48), "A.bin: %zu bytes, want 48 (3 x 32 nibbles)", n);
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(dir, &l, "tn") == 0, "load s4: %s", rg_error());
	CHECK_EXPR(l.a && !memcmp(l.a, d.a, 48) && !memcmp(l.b, d.b, 64) && !memcmp(l.c, d.c, 48));
	rg_data_free(&l);
	/* the request's types differ: s8 needs 96 bytes of A, and says so */
	l = (struct rg_data){ .p = d.p };
	l.p.a = MMAGEN_S8;
	CHECK(rg_load(dir, &l, "tn") == -1 && strstr(rg_error(), "A.type is \"s4\", not \"s8\""),
	      "s4 as s8: %s", rg_error());
	/* a short A */
	CHECK_EXPR(truncate(path, 40) == 0);
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(dir, &l, "tn") == -1 && strstr(rg_error(), "A.bin has 40 bytes; A (3 x 32 s4) needs 48"),
	      "short s4 A: %s", rg_error());
	/* a description without the packing */
	snprintf(path, sizeof path, "%s/gemm.json", dir);
	char text[4096], *at;
	snprintf(text, sizeof text, "%s", slurp(path));
	CHECK_EXPR((at = strstr(text, "\"packing\": \"two")) != NULL);
	if (at)
		memcpy(at + 1, "pucking", 7);
	write_text(path, text);
	l = (struct rg_data){ .p = d.p };
	CHECK(rg_load(dir, &l, "tn") == -1 && strstr(rg_error(), "A.packing is missing"),
	      "s4 without packing: %s", rg_error());
	rg_data_free(&d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EXPR(system(cmd) == 0);
}

int main(void)
{
	test_rules();
	test_half_ulp();
	test_tolerance();
	test_round();
	test_value();
	test_fill();
	test_fill_types();
	test_reference();
	test_reference_types();
	test_block_scale();
	test_verify(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 1, 0);
	test_verify(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_E4M3, 1, 0.5f);
	test_verify(MMAGEN_F16, MMAGEN_F16, MMAGEN_E5M2, -2, 0);
	test_verify(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_E4M3, 1, 1);
	verify_d_scale = 8;
	test_verify(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_E4M3, 1, 0);
	test_verify(MMAGEN_E5M2, MMAGEN_E5M2, MMAGEN_E5M2, 0.5f, 0.5f);
	verify_d_scale = 1;
	test_verify_saturated(MMAGEN_E4M3);
	test_verify_saturated(MMAGEN_E5M2);
	test_save_load_fp8();
	test_verify(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 1.5f, 0.5f);
	test_verify(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, -2, 1);
	test_verify(MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, 1, 0);
	test_verify(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 1, 0);
	test_verify(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_BF16, 0.5f, -1);
	test_verify(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F16, 1, 1);
	test_verify(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 1, 0);
	test_verify(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16, -1.5f, 0.5f);
	test_verify(MMAGEN_E5M2, MMAGEN_E4M3, MMAGEN_F32, 1, 1);
	test_verify(MMAGEN_E5M2, MMAGEN_E5M2, MMAGEN_F32, 2, 0);
	test_verify(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32, 1, 0);
	test_verify(MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 3.5f, -2);
	test_verify(MMAGEN_U8, MMAGEN_U8, MMAGEN_S32, -7, 1);
	test_verify(MMAGEN_U8, MMAGEN_S8, MMAGEN_F32, 1, 0.5f);
	test_verify(MMAGEN_S8, MMAGEN_S8, MMAGEN_F32, -0.25f, 0);
	test_verify(MMAGEN_S4, MMAGEN_S4, MMAGEN_S32, 1, 0);
	test_verify(MMAGEN_U4, MMAGEN_S4, MMAGEN_S32, 3.5f, -2);
	test_verify(MMAGEN_S4, MMAGEN_U4, MMAGEN_F32, 1, 0.5f);
	test_verify(MMAGEN_U4, MMAGEN_U4, MMAGEN_S32, -7, 1);
	test_4bit_pack();
	test_4bit_rules();
	test_4bit_reference();
	test_4bit_save_load();
	test_sample();
	test_save_load();
	return check_summary();
}
