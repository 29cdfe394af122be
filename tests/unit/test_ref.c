/* test_ref.c - the exact CPU reference (gen/kernels/ref.c) and its tolerances.
 *
 * Three kinds of check, none of which reuses the library's summation:
 *  1. hand-computed cases with known answers for every class of form;
 *  2. random inputs for every arithmetic variant in the table, against a
 *     naive __float128 sum (each addition checked exact with TwoSum, so a
 *     disagreement cannot be the naive side's rounding) rounded by the
 *     compiler's own conversions, and an int64 loop for integer forms;
 *  3. mmagen_ref_accept: exact roundings pass, results off by many ulps
 *     fail, integers match exactly, NaN/Inf/overflow rules.
 * The random seed is printed; MMAGEN_SEED=<n> repeats a run.  Exit status
 * 0 on pass, 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L	/* getpid */

#include "mmagen.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* __extension__ keeps -pedantic quiet about the GNU types under -std=c11. */
__extension__ typedef __float128 wide;
#ifdef __FLT16_MAX__
__extension__ typedef _Float16 half_t;
#endif

#include "check.h"

/* ---- random numbers: splitmix64 ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int rnd_int(int lo, int hi)
{
	return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ---- helpers ---- */

static int same_value(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

static uint64_t f64_pattern(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	return u;
}

static mmagen_form form(int fam, int a, int b, int c, int d, int k)
{
	mmagen_form f;

	memset(&f, 0, sizeof f);
	f.family = (uint8_t)fam;
	f.m = 16;
	f.n = 8;
	f.k = (uint16_t)k;
	f.a = (uint8_t)a;
	f.b = (uint8_t)b;
	f.c = (uint8_t)c;
	f.d = (uint8_t)d;
	return f;
}

static mmagen_status ref(const mmagen_form *f, unsigned m, unsigned n,
			 unsigned k, const uint64_t *a, const uint64_t *b,
			 const uint64_t *c, const uint64_t *sa,
			 const uint64_t *sb, uint64_t *d, double *dref)
{
	mmagen_ref_args r = { f, m, n, k, a, b, c, sa, sb, d, dref };

	return mmagen_ref_mma(&r);
}

/* One 1x1xK dot product; checks D's pattern and the exact value. */
static void dot(const char *what, const mmagen_form *f, unsigned k,
		const uint64_t *a, const uint64_t *b, uint64_t c,
		const uint64_t *sa, const uint64_t *sb, uint64_t want_d,
		double want_ref)
{
	uint64_t d = 0xDEADBEEF;
	double dref = -12345;
	mmagen_status st = ref(f, 1, 1, k, a, b, &c, sa, sb, &d, &dref);

	CHECK(st == MMAGEN_OK, "%s: status %s (%s)", what,
	      mmagen_status_str(st), mmagen_last_error());
	CHECK(d == want_d, "%s: d = 0x%llx, want 0x%llx", what,
	      (unsigned long long)d, (unsigned long long)want_d);
	CHECK(same_value(dref, want_ref), "%s: dref = %a, want %a", what,
	      dref, want_ref);
}

/* ---- 1. hand-computed cases ---- */

static void hand_f16(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32,
			     MMAGEN_F32, 4);
	/* 1.5*2 + -2*0.5 + 0.25*-4 + 65504*1 + 1 = 65506 */
	uint64_t a[] = { 0x3E00, 0xC000, 0x3400, 0x7BFF };
	uint64_t b[] = { 0x4000, 0x3800, 0xC400, 0x3C00 };
	/* 1 + 2^-24 (f16 min subnormal * 1): an f32 tie, to even: 1.0;
	 * one more 2^-34 puts it above the tie: 1 + 2^-23.  A float sum
	 * would round the first 2^-24 away. */
	uint64_t a2[] = { 0x0001, 0x0001, 0x0000 };
	uint64_t b2[] = { 0x3C00, 0x1400, 0x3C00 }; /* 1, 2^-10, 1 */
	uint64_t a3[] = { 0x0001 };
	uint64_t b3[] = { 0x3C00 };
	mmagen_form h = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16,
			     MMAGEN_F16, 4);
	/* f16 D: 2048 + 1 + 0.5 = 2049.5, f16 ulp is 2 there: rounds to 2050
	 * (0x6801); f16 additions in order would tie 2049 to 2048 and stay. */
	uint64_t a4[] = { 0x6800, 0x3C00, 0x3800 };
	uint64_t b4[] = { 0x3C00, 0x3C00, 0x3C00 };
	uint64_t a5[] = { 0x1C00, 0x0001 };	/* 2^-8, 2^-24 */
	uint64_t b5[] = { 0x1C00, 0x0001 };

	dot("f16->f32", &f, 4, a, b, 0x3F800000, NULL, NULL, 0x477FE200,
	    65506.0);
	dot("f16->f32 above tie", &f, 3, a2, b2, 0x3F800000, NULL, NULL,
	    0x3F800001, 1.0 + 0x1p-24 + 0x1p-34);
	dot("f16->f32 tie to even", &f, 1, a3, b3, 0x3F800000, NULL, NULL,
	    0x3F800000, 1.0 + 0x1p-24);
	/* 256 + 2^-16 (the f32 tie) + 2^-48: 57 bits, so rounding to double
	 * first would land on the tie and go to 256; once: 256 + 2^-15. */
	dot("f16->f32 no double rounding", &f, 2, a5, b5, 0x43800000, NULL,
	    NULL, 0x43800001, 256 + 0x1p-16);
	dot("f16->f16", &h, 3, a4, b4, 0x0000, NULL, NULL, 0x6801, 2049.5);
}

static void hand_bf16_tf32(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_BF16, MMAGEN_BF16,
			     MMAGEN_F32, MMAGEN_F32, 2);
	/* 3*1.5 + -0.5*8 + 0.25 = 0.75 */
	uint64_t a[] = { 0x4040, 0xBF00 };
	uint64_t b[] = { 0x3FC0, 0x4100 };
	mmagen_form t = form(MMAGEN_FAM_MMA, MMAGEN_TF32, MMAGEN_TF32,
			     MMAGEN_F32, MMAGEN_F32, 2);
	/* 1.5*2 + 0.25*2 + 0 = 3.5, with and without garbage in the 13
	 * ignored low bits. */
	uint64_t ta[] = { 0x3FC00000, 0x3E800000 };
	uint64_t tb[] = { 0x40000000, 0x40000000 };
	uint64_t ga[] = { 0x3FC01FFF, 0x3E801234 };
	uint64_t gb[] = { 0x40001001, 0x40000FFF };

	dot("bf16->f32", &f, 2, a, b, 0x3E800000, NULL, NULL, 0x3F400000,
	    0.75);
	dot("tf32", &t, 2, ta, tb, 0, NULL, NULL, 0x40600000, 3.5);
	dot("tf32 low bits ignored", &t, 2, ga, gb, 0, NULL, NULL, 0x40600000,
	    3.5);
}

static void hand_narrow(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_E4M3, MMAGEN_E2M1,
			     MMAGEN_F32, MMAGEN_F32, 3);
	mmagen_form h = form(MMAGEN_FAM_MMA, MMAGEN_E4M3, MMAGEN_E2M1,
			     MMAGEN_F16, MMAGEN_F16, 3);
	/* e4m3 448, 2^-9, 1.0 times e2m1 6, -0.5, -1.0; C = 2:
	 * 2688 - 2^-10 - 1 + 2 = 2689 - 2^-10.  The e2m1 patterns are the
	 * raw 4-bit codes; bits above them must not matter. */
	uint64_t a[] = { 0x7E, 0x01, 0x38 };
	uint64_t b[] = { 0x7, 0x9, 0xA };
	uint64_t b_hi[] = { 0xF7, 0x19, 0x3A };
	double exact = 2689.0 - 0x1p-10;

	dot("e4m3 x e2m1 -> f32", &f, 3, a, b, 0x40000000, NULL, NULL,
	    0x45280FFC, exact);
	dot("e2m1 container bits ignored", &f, 3, a, b_hi, 0x40000000, NULL,
	    NULL, 0x45280FFC, exact);
	/* f16 D: ulp 2 at 2689, so 2688 (0x6940). */
	dot("e4m3 x e2m1 -> f16", &h, 3, a, b, 0x4000, NULL, NULL, 0x6940,
	    exact);
}

static void hand_int(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_S8, MMAGEN_U8, MMAGEN_S32,
			     MMAGEN_S32, 2);
	mmagen_form fs = f;
	/* 127*255*2 = 64770 on top of INT32_MAX - 100 passes 2^31. */
	uint64_t a[] = { 0x7F, 0x7F };
	uint64_t b[] = { 0xFF, 0xFF };
	uint64_t c = (uint64_t)(uint32_t)(INT32_MAX - 100);
	double big = (double)INT32_MAX - 100 + 64770;
	/* -128*255*2 = -65280 below INT32_MIN + 5. */
	uint64_t an[] = { 0x80, 0x80 };
	uint64_t cn = (uint64_t)(uint32_t)(INT32_MIN + 5);
	double small = (double)INT32_MIN + 5 - 65280;
	mmagen_form f4 = form(MMAGEN_FAM_MMA, MMAGEN_S4, MMAGEN_U4, MMAGEN_S32,
			      MMAGEN_S32, 3);
	/* s4 -8, 7, -1 times u4 15, 3, 2, + 10 = -120 + 21 - 2 + 10 = -91 */
	uint64_t a4[] = { 0x8, 0x7, 0xF };
	uint64_t b4[] = { 0xF, 0x3, 0x2 };

	fs.satfinite = 1;
	dot("s8 x u8 wraps", &f, 2, a, b, c, NULL, NULL,
	    (uint64_t)(uint32_t)(int32_t)(big - 4294967296.0), big);
	dot("s8 x u8 satfinite", &fs, 2, a, b, c, NULL, NULL,
	    (uint64_t)(uint32_t)INT32_MAX, big);
	dot("s8 x u8 wraps below", &f, 2, an, b, cn, NULL, NULL,
	    (uint64_t)(uint32_t)(int32_t)(small + 4294967296.0), small);
	dot("s8 x u8 satfinite below", &fs, 2, an, b, cn, NULL, NULL,
	    (uint64_t)(uint32_t)INT32_MIN, small);
	dot("s4 x u4", &f4, 3, a4, b4, 10, NULL, NULL,
	    (uint64_t)(uint32_t)-91, -91.0);
}

static void hand_b1(void)
{
	mmagen_form x = form(MMAGEN_FAM_MMA, MMAGEN_B1, MMAGEN_B1, MMAGEN_S32,
			     MMAGEN_S32, 8);
	mmagen_form n = x;
	uint64_t a[] = { 1, 0, 1, 1, 0, 0, 1, 0 };
	uint64_t b[] = { 1, 1, 0, 1, 0, 1, 1, 1 };

	x.bitop = MMAGEN_XOR_POPC;
	n.bitop = MMAGEN_AND_POPC;
	/* xor: 4 differing positions; and: 3 common ones. */
	dot("b1 xor", &x, 8, a, b, 100, NULL, NULL, 104, 104.0);
	dot("b1 and", &n, 8, a, b, 100, NULL, NULL, 103, 103.0);
	dot("b1 xor wraps", &x, 8, a, b, (uint64_t)(uint32_t)INT32_MAX, NULL,
	    NULL, (uint64_t)(uint32_t)(INT32_MIN + 3), (double)INT32_MAX + 4);
}

static void hand_f64(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_F64, MMAGEN_F64, MMAGEN_F64,
			     MMAGEN_F64, 4);
	/* (1+2^-52)^2 - 1 + 2^-60*2^-50 = 2^-51 + 2^-104 + 2^-110: above the
	 * tie at 2^-104, so 2^-51 + 2^-103.  An FMA chain rounds the tie to
	 * even first and gets 2^-51. */
	uint64_t a[] = { f64_pattern(1 + 0x1p-52), f64_pattern(0x1p-60) };
	uint64_t b[] = { f64_pattern(1 + 0x1p-52), f64_pattern(0x1p-50) };
	uint64_t c = f64_pattern(-1.0);
	double up = 0x1p-51 + 0x1p-103;
	/* 1e300 + 1 - 1e300: cancellation, exactly 1. */
	uint64_t ca[] = { f64_pattern(1e300), f64_pattern(1.0),
			  f64_pattern(-1e300) };
	uint64_t cb[] = { f64_pattern(1.0), f64_pattern(1.0),
			  f64_pattern(1.0) };
	mmagen_form rz = f, rm = f, rp = f;

	rz.rnd = MMAGEN_RZ;
	rm.rnd = MMAGEN_RM;
	rp.rnd = MMAGEN_RP;
	dot("f64 exact rounding", &f, 2, a, b, c, NULL, NULL, f64_pattern(up),
	    up);
	dot("f64 .rz", &rz, 2, a, b, c, NULL, NULL, f64_pattern(0x1p-51), up);
	dot("f64 .rm", &rm, 2, a, b, c, NULL, NULL, f64_pattern(0x1p-51), up);
	dot("f64 .rp", &rp, 2, a, b, c, NULL, NULL, f64_pattern(up), up);
	dot("f64 cancellation", &f, 3, ca, cb, 0, NULL, NULL,
	    f64_pattern(1.0), 1.0);
}

static void hand_block_scaled(void)
{
	mmagen_form nv = form(MMAGEN_FAM_MMA, MMAGEN_E2M1, MMAGEN_E2M1,
			      MMAGEN_F32, MMAGEN_F32, 64);
	mmagen_form mx = form(MMAGEN_FAM_MMA, MMAGEN_E4M3, MMAGEN_E3M2,
			      MMAGEN_F32, MMAGEN_F32, 32);
	uint64_t a[64], b[64];
	/* nvf4: blocks of 16; e2m1 1.0 (0x2) times 2.0 (0x4), 16 per block:
	 * 32 * (0.5 * 2) + 32 * (448 * 1) + 1 = 14369. */
	uint64_t sa[] = { 0x30, 0x7E };	/* ue4m3 0.5, 448 */
	uint64_t sb[] = { 0x40, 0x38 };	/* ue4m3 2, 1 */
	/* mxf8f6f4: blocks of 32; e4m3 1.0 (0x38) times e3m2 1.0 (0x0C):
	 * 32 * 2^127 * 2^-127 + 32 * 1 * 2^-127 - 32 = 2^-122.  Dropping
	 * either scale, or one scale per 64, gives something else. */
	uint64_t ma[64], mb[64];
	uint64_t msa[] = { 0xFE, 0x7F };	/* ue8m0 2^127, 1 */
	uint64_t msb[] = { 0x00, 0x00 };	/* ue8m0 2^-127, 2^-127 */
	uint64_t nan_sa[] = { 0xFF, 0x7F };
	size_t i;

	nv.block_scale = 1;
	nv.kind = MMAGEN_KIND_MXF4NVF4;
	nv.scale_vec = 4;
	nv.stype = MMAGEN_UE4M3;
	mx.block_scale = 1;
	mx.kind = MMAGEN_KIND_MXF8F6F4;
	mx.scale_vec = 1;
	mx.stype = MMAGEN_UE8M0;
	for (i = 0; i < 64; i++) {
		a[i] = 0x2;
		b[i] = 0x4;
		ma[i] = 0x38;
		mb[i] = 0x0C;
	}
	dot("mxf4nvf4 ue4m3 blocks of 16", &nv, 32, a, b, 0x3F800000, sa, sb,
	    0x46608400, 14369.0);
	dot("mxf8f6f4 ue8m0 2^+-127", &mx, 64, ma, mb, 0xC2000000, msa, msb,
	    0x02800000, 0x1p-122);
	dot("ue8m0 NaN scale", &mx, 64, ma, mb, 0, nan_sa, msb, 0x7FC00000,
	    NAN);
}

static void hand_errors(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32,
			     MMAGEN_F32, 1);
	mmagen_form bs = form(MMAGEN_FAM_MMA, MMAGEN_E2M1, MMAGEN_E2M1,
			      MMAGEN_F32, MMAGEN_F32, 64);
	mmagen_form ld;
	uint64_t x[64] = { 0x3C00 }, d[1], s[4] = { 0x7F, 0x7F, 0x7F, 0x7F };
	struct {
		const char *what;
		const mmagen_form *f;
		unsigned m, n, k;
		const uint64_t *a, *sa;
	} cases[] = {
		{ "NULL form", NULL, 1, 1, 1, x, NULL },
		{ "NULL A", &f, 1, 1, 1, NULL, NULL },
		{ "zero m", &f, 0, 1, 1, x, NULL },
		{ "zero k", &f, 1, 1, 0, x, NULL },
		{ "no scales", &bs, 1, 1, 64, x, NULL },
		{ "k not a multiple of the block", &bs, 1, 1, 48, x, s },
		{ "ldmatrix form", &ld, 1, 1, 1, x, NULL },
	};
	size_t i;

	memset(&ld, 0, sizeof ld);
	ld.family = MMAGEN_FAM_LDMATRIX;
	bs.block_scale = 1;
	bs.stype = MMAGEN_UE8M0;
	bs.scale_vec = 2;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mmagen_status st = ref(cases[i].f, cases[i].m, cases[i].n,
				       cases[i].k, cases[i].a, x, x,
				       cases[i].sa, s, d, NULL);

		CHECK(st == MMAGEN_INVALID_ARGUMENT &&
			      strchr(mmagen_last_error(), '\n') == NULL &&
			      mmagen_last_error()[0],
		      "error case '%s': status %s, message '%s'",
		      cases[i].what, mmagen_status_str(st),
		      mmagen_last_error());
	}
	CHECK(mmagen_ref_mma(NULL) == MMAGEN_INVALID_ARGUMENT,
	      "NULL args accepted");
}

/* ---- 2. random inputs against a naive __float128 / int64 sum ---- */

static int type_emin(mmagen_type t)
{
	unsigned s;

	for (s = 0; s < mmagen_type_bits(t); s++) {
		double v = mmagen_type_decode(t, UINT64_C(1) << s);

		if (v > 0)
			return ilogb(v);
	}
	return 0;
}

/* Exponent window half-widths for the formats too wide for a __float128
 * sum to hold exactly over their whole range; the centre moves over the
 * whole range from trial to trial. */
static int window(mmagen_type t)
{
	switch (t) {
	case MMAGEN_BF16:
	case MMAGEN_TF32:
		return 10;
	case MMAGEN_F64:
		return 8;
	case MMAGEN_UE8M0:
		return 3;
	default:
		return 1000;	/* the whole range */
	}
}

struct win {
	int lo, hi;
};

static struct win pick_window(mmagen_type t)
{
	int emin = type_emin(t), emax = ilogb(mmagen_type_max(t));
	int w = window(t), e = rnd_int(emin, emax);
	struct win r = { emin, emax };

	if (w < 1000) {
		r.lo = e - w < emin ? emin : e - w;
		r.hi = e + w > emax ? emax : e + w;
	}
	return r;
}

/* A random finite pattern with exponent in the window (or, rarely, 0). */
static uint64_t rand_finite(mmagen_type t, struct win w)
{
	unsigned bits = mmagen_type_bits(t);
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	int tries;

	for (tries = 0; tries < 100000; tries++) {
		uint64_t p = rnd() & mask;
		double v = mmagen_type_decode(t, p);

		if (!isfinite(v))
			continue;
		if (v == 0.0) {
			if (rnd() % 32 == 0)
				return p;
			continue;
		}
		if (ilogb(v) >= w.lo && ilogb(v) <= w.hi)
			return p;
	}
	return mmagen_type_encode(t, ldexp(1.0, w.lo));
}

/* Inf and NaN patterns, for the trials with special values. */
static uint64_t rand_special(mmagen_type t, uint64_t fallback)
{
	static const struct {
		mmagen_type t;
		uint64_t p[3];
	} sp[] = {
		{ MMAGEN_F16, { 0x7C00, 0xFC00, 0x7E00 } },
		{ MMAGEN_BF16, { 0x7F80, 0xFF80, 0x7FC0 } },
		{ MMAGEN_TF32, { 0x7F800000, 0xFF800000, 0x7FC00000 } },
		{ MMAGEN_F32, { 0x7F800000, 0xFF800000, 0x7FC00000 } },
		{ MMAGEN_F64, { UINT64_C(0x7FF0000000000000),
				UINT64_C(0xFFF0000000000000),
				UINT64_C(0x7FF8000000000000) } },
		{ MMAGEN_E4M3, { 0x7F, 0xFF, 0x7F } },
		{ MMAGEN_E5M2, { 0x7C, 0xFC, 0x7E } },
	};
	size_t i;

	for (i = 0; i < sizeof sp / sizeof sp[0]; i++)
		if (sp[i].t == t)
			return sp[i].p[rnd() % 3];
	return fallback;
}

struct problem {
	const mmagen_form *f;
	unsigned m, n, k, v, groups;
	uint64_t *a, *b, *c, *sa, *sb, *d;
	double *dref;
	int specials;
};

static mmagen_type ctype(const mmagen_form *f)
{
	return f->c ? (mmagen_type)f->c : (mmagen_type)f->d;
}

static unsigned block_of(const mmagen_form *f)
{
	unsigned v = 32;

	if (f->scale_vec == 4 || f->scale_vec == 16 || f->stype == MMAGEN_UE4M3)
		v = 16;
	return f->sparse ? 2 * v : v;
}

/* C inside the window the products span, so the whole sum fits a
 * __float128; 0 where that window is outside C's range. */
static void fill_c(struct problem *p, struct win wa, struct win wb,
		   struct win ws)
{
	mmagen_type t = ctype(p->f);
	struct win w = { wa.lo + wb.lo + ws.lo, wa.hi + wb.hi + ws.hi + 1 };
	int emin = type_emin(t), emax = ilogb(mmagen_type_max(t));
	size_t i, count = (size_t)p->m * p->n;

	if (w.lo < emin)
		w.lo = emin;
	if (w.hi > emax)
		w.hi = emax;
	for (i = 0; i < count; i++) {
		p->c[i] = w.lo <= w.hi ? rand_finite(t, w) : 0;
		if (p->specials && rnd() % 40 == 0)
			p->c[i] = rand_special(t, p->c[i]);
	}
}

static struct win fill_win(mmagen_type t, uint64_t *x, size_t count,
			   int specials)
{
	struct win w = pick_window(t);
	size_t i;

	for (i = 0; i < count; i++) {
		x[i] = rand_finite(t, w);
		if (specials && rnd() % 40 == 0)
			x[i] = rand_special(t, x[i]);
	}
	return w;
}

static void fill_floats(struct problem *p)
{
	const mmagen_form *f = p->f;
	struct win wa, wb, ws = { 0, 0 };
	size_t i;

	wa = fill_win((mmagen_type)f->a, p->a, (size_t)p->m * p->k,
		      p->specials);
	wb = fill_win((mmagen_type)f->b, p->b, (size_t)p->k * p->n,
		      p->specials);
	/* f64: B keeps 13 significant bits, so a product has at most 66
	 * and the sum stays exact in 113. */
	if (f->b == MMAGEN_F64)
		for (i = 0; i < (size_t)p->k * p->n; i++)
			if (isfinite(mmagen_type_decode(MMAGEN_F64, p->b[i])))
				p->b[i] &= ~((UINT64_C(1) << 40) - 1);
	if (f->block_scale) {
		mmagen_type st = f->stype ? (mmagen_type)f->stype
					  : MMAGEN_UE8M0;
		struct win w1, w2;

		w1 = fill_win(st, p->sa, (size_t)p->m * p->groups, 0);
		w2 = fill_win(st, p->sb, (size_t)p->groups * p->n, 0);

		ws.lo = w1.lo + w2.lo;
		ws.hi = w1.hi + w2.hi + 1;
	}
	fill_c(p, wa, wb, ws);
}

/* Sparse forms get the dense logical A with the 2:4 (1:2 tf32) pattern
 * applied, as the reference's callers pass it. */
static void prune(struct problem *p)
{
	unsigned group = p->f->a == MMAGEN_TF32 ? 2 : 4;
	size_t i, g, j;

	if (!p->f->sparse)
		return;
	for (i = 0; i < p->m; i++)
		for (g = 0; g + group <= p->k; g += group) {
			/* keep one (of 2) or two (of 4) positions */
			unsigned k1 = (unsigned)(rnd() % group);
			unsigned k2 = k1;

			if (group == 4)
				k2 = (k1 + 1 + (unsigned)(rnd() % 3)) % 4;

			for (j = 0; j < group; j++)
				if (j != k1 && j != k2)
					p->a[i * p->k + g + j] = 0;
		}
}

/* s = s + x, clearing *exact if the __float128 addition rounded. */
static wide two_sum(wide s, wide x, int *exact)
{
	wide r = s + x, bb = r - s, err = (s - (r - bb)) + (x - bb);

	if (err != 0 && r == r && r - r == 0)	/* finite and inexact */
		*exact = 0;
	return r;
}

/* The naive value of element (i, j): C first, then each block's partial
 * sum times its two scales (the per-block formula, unlike the library,
 * which scales every product). */
static wide naive_float(const struct problem *p, unsigned i, unsigned j,
			int *exact, wide *mag)
{
	const mmagen_form *f = p->f;
	mmagen_type st = f->stype ? (mmagen_type)f->stype : MMAGEN_UE8M0;
	unsigned blk = p->v ? p->v : p->k, g, kk;
	wide c = mmagen_type_decode(ctype(f), p->c[(size_t)i * p->n + j]);
	wide s = c;

	*exact = 1;
	*mag = c < 0 ? -c : c;
	for (g = 0; g < p->k / blk; g++) {
		wide part = 0, pmag = 0, scale = 1;

		for (kk = g * blk; kk < (g + 1) * blk; kk++) {
			wide x = mmagen_type_decode((mmagen_type)f->a,
					p->a[(size_t)i * p->k + kk]);
			wide y = mmagen_type_decode((mmagen_type)f->b,
					p->b[(size_t)kk * p->n + j]);

			part = two_sum(part, x * y, exact);
			pmag += x * y < 0 ? -(x * y) : x * y;
		}
		if (p->v)
			scale = (wide)mmagen_type_decode(st,
					p->sa[(size_t)i * p->groups + g]) *
				mmagen_type_decode(st,
					p->sb[(size_t)g * p->n + j]);
		/* part has at most ~80 significant bits and the scale 8: the
		 * product is exact. */
		s = two_sum(s, part * scale, exact);
		*mag += pmag * scale;
	}
	return s;
}

static uint64_t round_to(const mmagen_form *f, wide x)
{
	volatile wide vx = x;
	volatile double dd;
	int mode = FE_TONEAREST;
	float fl;
	uint32_t u;

	switch (f->d) {
	case MMAGEN_F64:
		if (f->rnd == MMAGEN_RZ)
			mode = FE_TOWARDZERO;
		else if (f->rnd == MMAGEN_RM)
			mode = FE_DOWNWARD;
		else if (f->rnd == MMAGEN_RP)
			mode = FE_UPWARD;
		fesetround(mode);
		dd = (double)vx;
		fesetround(FE_TONEAREST);
		return f64_pattern(dd);
	case MMAGEN_F32:
		fl = (float)vx;
		memcpy(&u, &fl, sizeof u);
		return u;
#ifdef __FLT16_MAX__
	case MMAGEN_F16: {
		half_t h = (half_t)vx;
		uint16_t hu;

		memcpy(&hu, &h, sizeof hu);
		return hu;
	}
#endif
	default:
		break;
	}
	return mmagen_type_encode((mmagen_type)f->d, (double)vx);
}

/* 2^16 times D's smallest normal (1 - emax for IEEE formats). */
static double normal_floor(const mmagen_form *f)
{
	return ldexp(1.0, 17 - ilogb(mmagen_type_max((mmagen_type)f->d)));
}

static void check_float_element(const struct problem *p, unsigned i,
				unsigned j, const char *name)
{
	const mmagen_form *f = p->f;
	size_t at = (size_t)i * p->n + j;
	int exact;
	wide mag, x = naive_float(p, i, j, &exact, &mag);
	double want = (double)x, dmag = (double)mag;
	double got = mmagen_type_decode((mmagen_type)f->d, p->d[at]);
	double wantd = mmagen_type_decode((mmagen_type)f->d, round_to(f, x));

	if (!exact) {
		fail("%s: test bug: the naive sum of (%u,%u) was not exact",
		     name, i, j);
		return;
	}
	CHECK(same_value(p->dref[at], want), "%s (%u,%u): dref %a, naive %a",
	      name, i, j, p->dref[at], want);
	CHECK(same_value(got, wantd), "%s (%u,%u): d %a, naive %a (exact %a)",
	      name, i, j, got, wantd, want);
	CHECK(mmagen_ref_accept(f, p->k, p->dref[at], dmag, p->d[at]),
	      "%s (%u,%u): accept rejects its own d %a (exact %a, mag %a)",
	      name, i, j, got, p->dref[at], dmag);
	/* Off by mag/8: far outside every tolerance, where mag is well
	 * above D's subnormals (those may flush). */
	if (isfinite(want) && isfinite(dmag) && dmag > normal_floor(f) &&
	    fabs(want) + dmag < mmagen_type_max((mmagen_type)f->d) / 4) {
		double bad = want + dmag / 8;
		uint64_t pb = mmagen_type_encode((mmagen_type)f->d, bad);

		if (fabs(mmagen_type_decode((mmagen_type)f->d, pb) - want) >
		    dmag / 16)
			CHECK(!mmagen_ref_accept(f, p->k, want, dmag, pb),
			      "%s (%u,%u): accepts %a for exact %a, mag %a",
			      name, i, j, bad, want, dmag);
	}
}

static void fill_ints(struct problem *p)
{
	mmagen_type a = (mmagen_type)p->f->a, b = (mmagen_type)p->f->b;
	unsigned ba = mmagen_type_bits(a), bb = mmagen_type_bits(b);
	size_t i;

	for (i = 0; i < (size_t)p->m * p->k; i++)
		p->a[i] = rnd() & ((UINT64_C(1) << ba) - 1);
	for (i = 0; i < (size_t)p->k * p->n; i++)
		p->b[i] = rnd() & ((UINT64_C(1) << bb) - 1);
	/* C anywhere in s32, and often near either end, where the sum
	 * wraps or saturates. */
	for (i = 0; i < (size_t)p->m * p->n; i++) {
		uint32_t c = (uint32_t)rnd();
		int32_t near = (int32_t)(rnd() % 4096);

		if (rnd() % 2)
			c = (uint32_t)(rnd() % 2 ? INT32_MAX - near
						 : INT32_MIN + near);
		p->c[i] = c;
	}
}

static int64_t int_value(mmagen_type t, uint64_t p)
{
	unsigned bits = mmagen_type_bits(t);
	uint64_t u = p & ((UINT64_C(1) << bits) - 1);

	if (t == MMAGEN_B1 || t == MMAGEN_U8 || t == MMAGEN_U4)
		return (int64_t)u;
	return u >> (bits - 1) ? (int64_t)u - ((int64_t)1 << bits) : (int64_t)u;
}

static void check_int_element(const struct problem *p, unsigned i,
			      unsigned j, const char *name)
{
	const mmagen_form *f = p->f;
	unsigned step = f->k < p->k ? f->k : p->k, s, kk;
	size_t at = (size_t)i * p->n + j;
	int64_t sum = int_value(MMAGEN_S32, p->c[at]), pre = sum;
	uint32_t want;

	for (s = 0; s < p->k; s += step) {
		for (kk = s; kk < s + step && kk < p->k; kk++) {
			uint64_t x = p->a[(size_t)i * p->k + kk];
			uint64_t y = p->b[(size_t)kk * p->n + j];

			if (f->a != MMAGEN_B1)
				sum += int_value((mmagen_type)f->a, x) *
				       int_value((mmagen_type)f->b, y);
			else if (f->bitop == MMAGEN_AND_POPC)
				sum += (int64_t)(x & y & 1);
			else
				sum += (int64_t)((x ^ y) & 1);
		}
		pre = sum;
		if (f->satfinite)
			sum = sum > INT32_MAX ? INT32_MAX
			      : sum < INT32_MIN ? INT32_MIN : sum;
	}
	want = (uint32_t)(uint64_t)sum;
	CHECK(p->d[at] == want, "%s (%u,%u): d 0x%llx, want 0x%x", name, i, j,
	      (unsigned long long)p->d[at], want);
	CHECK(p->dref[at] == (double)pre, "%s (%u,%u): dref %.17g, want %lld",
	      name, i, j, p->dref[at], (long long)pre);
	CHECK(mmagen_ref_accept(f, p->k, p->dref[at], 0, p->d[at]) &&
		      !mmagen_ref_accept(f, p->k, p->dref[at], 0,
					 (uint32_t)(want + 1)),
	      "%s (%u,%u): accept not exact for 0x%x", name, i, j, want);
}

static void run_problem(const mmagen_form *f, unsigned m, unsigned n,
			unsigned k, int specials)
{
	struct problem p;
	char name[160], op[120];
	mmagen_status st;
	unsigned i, j;

	memset(&p, 0, sizeof p);
	p.f = f;
	p.m = m;
	p.n = n;
	p.k = k;
	p.specials = specials;
	p.v = f->block_scale ? block_of(f) : 0;
	p.groups = p.v ? k / p.v : 1;
	p.a = calloc((size_t)m * k, sizeof *p.a);
	p.b = calloc((size_t)k * n, sizeof *p.b);
	p.c = calloc((size_t)m * n, sizeof *p.c);
	p.d = calloc((size_t)m * n, sizeof *p.d);
	p.dref = calloc((size_t)m * n, sizeof *p.dref);
	p.sa = calloc((size_t)m * p.groups, sizeof *p.sa);
	p.sb = calloc((size_t)p.groups * n, sizeof *p.sb);
	if (!p.a || !p.b || !p.c || !p.d || !p.dref || !p.sa || !p.sb) {
		fail("out of memory");
		goto out;
	}
	mmagen_form_opcode(f, op, sizeof op);
	snprintf(name, sizeof name, "%s%s m%un%uk%u", op,
		 specials ? " (Inf/NaN)" : "", m, n, k);
	if (mmagen_type_is_float((mmagen_type)f->d))
		fill_floats(&p);
	else
		fill_ints(&p);
	prune(&p);
	st = ref(f, m, n, k, p.a, p.b, p.c, p.sa, p.sb, p.d, p.dref);
	if (st != MMAGEN_OK) {
		fail("%s: status %s (%s)", name, mmagen_status_str(st),
		     mmagen_last_error());
		goto out;
	}
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			if (mmagen_type_is_float((mmagen_type)f->d))
				check_float_element(&p, i, j, name);
			else
				check_int_element(&p, i, j, name);
		}
out:
	free(p.a);
	free(p.b);
	free(p.c);
	free(p.d);
	free(p.dref);
	free(p.sa);
	free(p.sb);
}

/* Forms that differ only in what the arithmetic does not see (shape's M
 * and N, layout, A's source, CTA group, .ws) count once. */
static int same_arith(const mmagen_form *x, const mmagen_form *y)
{
	return x->family == y->family && x->sparse == y->sparse &&
	       x->k == y->k && x->a == y->a && x->b == y->b && x->c == y->c &&
	       x->d == y->d && x->satfinite == y->satfinite &&
	       x->bitop == y->bitop && x->block_scale == y->block_scale &&
	       x->scale_vec == y->scale_vec && x->stype == y->stype &&
	       x->rnd == y->rnd;
}

static void random_forms(void)
{
	size_t count = mmagen_form_count(), i, j, unique = 0;
	const mmagen_form **seen = calloc(count, sizeof *seen);
	int trial;

	if (!seen) {
		fail("out of memory");
		return;
	}
	for (i = 0; i < count; i++) {
		const mmagen_form *f = mmagen_form_at(i);

		if (f->family != MMAGEN_FAM_MMA &&
		    f->family != MMAGEN_FAM_WGMMA &&
		    f->family != MMAGEN_FAM_TCGEN05)
			continue;
		for (j = 0; j < unique; j++)
			if (same_arith(seen[j], f))
				break;
		if (j < unique)
			continue;
		seen[unique++] = f;
		/* Odd M and N catch transposed indexing; K two instruction
		 * steps, as a chain over K would run. */
		for (trial = 0; trial < 4; trial++)
			run_problem(f, 5, 3, 2u * f->k, trial == 3);
	}
	printf("random: %zu arithmetic variants of %zu forms\n", unique, count);
	free(seen);
}

/* Full-size shapes: wgmma m64n256k16 and a tcgen05 M x N from its args. */
static void random_big(void)
{
	size_t i;
	int done_wg = 0, done_tc = 0;

	for (i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);

		if (f->a != MMAGEN_F16 || f->d != MMAGEN_F32 || f->sparse)
			continue;
		if (!done_wg && f->family == MMAGEN_FAM_WGMMA && f->n == 256) {
			run_problem(f, 64, 256, f->k, 0);
			done_wg = 1;
		}
		if (!done_tc && f->family == MMAGEN_FAM_TCGEN05) {
			run_problem(f, 128, 64, 4u * f->k, 0);
			done_tc = 1;
		}
	}
	CHECK(done_wg && done_tc,
	      "no wgmma n256 / tcgen05 f16 form in the table");
}

/* ---- 3. mmagen_ref_accept ---- */

static uint32_t f32_pattern(float v)
{
	uint32_t u;

	memcpy(&u, &v, sizeof u);
	return u;
}

static void accept_float(void)
{
	mmagen_form h = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32,
			     MMAGEN_F32, 16);
	mmagen_form e = form(MMAGEN_FAM_WGMMA, MMAGEN_E4M3, MMAGEN_E5M2,
			     MMAGEN_F32, MMAGEN_F32, 32);
	mmagen_form hh = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16,
			      MMAGEN_F16, MMAGEN_F16, 16);
	mmagen_form d = form(MMAGEN_FAM_MMA, MMAGEN_F64, MMAGEN_F64, MMAGEN_F64,
			     MMAGEN_F64, 4);
	uint32_t one = f32_pattern(1.0f);
	double third = 1.0 / 3;

	/* f16 -> f32: the exact rounding and a couple of ulps pass; 64 ulps
	 * at mag 1 fail, and pass once mag is large. */
	CHECK(mmagen_ref_accept(&h, 16, third, 1.0, f32_pattern((float)third)),
	      "f32: exact rounding rejected");
	CHECK(mmagen_ref_accept(&h, 16, 1.0, 1.0, one + 2),
	      "f32: 2 ulps rejected");
	CHECK(!mmagen_ref_accept(&h, 16, 1.0, 1.0, one + 64),
	      "f32: 64 ulps accepted at mag 1");
	CHECK(!mmagen_ref_accept(&h, 16, 1.0, 1.0, one - 64),
	      "f32: -64 ulps accepted at mag 1");
	CHECK(mmagen_ref_accept(&h, 16, 1.0, 1024.0, one + 64),
	      "f32: 64 ulps rejected at mag 1024 (cancellation)");
	CHECK(!mmagen_ref_accept(&h, 16, 1.0, 1.0, f32_pattern(1.001f)),
	      "f32: 1e-3 accepted");
	/* FP8 wgmma: 2^-10 of mag passes (Hopper's reduced internal
	 * precision, measured up to 2^-10.6), 2^-7 does not. */
	CHECK(mmagen_ref_accept(&e, 32, 1.0, 1.0, f32_pattern(1 + 0x1p-10f)),
	      "fp8: 2^-10 rejected");
	CHECK(!mmagen_ref_accept(&e, 32, 1.0, 1.0, f32_pattern(1 + 0x1p-7f)),
	      "fp8: 2^-7 accepted");
	/* f16 D: 1 ulp passes, 64 ulps fail. */
	CHECK(mmagen_ref_accept(&hh, 16, 1.0, 1.0, 0x3C01),
	      "f16: 1 ulp rejected");
	CHECK(mmagen_ref_accept(&hh, 16, 1.0, 1.0, 0x3C00),
	      "f16: exact rejected");
	CHECK(!mmagen_ref_accept(&hh, 16, 1.0, 1.0, 0x3C40),
	      "f16: 64 ulps accepted");
	/* f64: a couple of ulps, not a hundred. */
	CHECK(mmagen_ref_accept(&d, 4, 1.0, 1.0, f64_pattern(1 + 0x1p-51)),
	      "f64: 2 ulps rejected");
	CHECK(!mmagen_ref_accept(&d, 4, 1.0, 1.0, f64_pattern(1 + 0x1p-45)),
	      "f64: 128 ulps accepted");
	/* A chain of 16 f16 steps may be off by more than one step. */
	CHECK(mmagen_ref_accept(&hh, 256, 1.0, 1.0, 0x3C10) &&
		      !mmagen_ref_accept(&hh, 16, 1.0, 1.0, 0x3C10),
	      "f16: tolerance does not grow with the number of steps");
	/* No form, no verdict. */
	CHECK(!mmagen_ref_accept(NULL, 16, 1.0, 1.0, one), "NULL form");
}

static void accept_special(void)
{
	mmagen_form h = form(MMAGEN_FAM_MMA, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32,
			     MMAGEN_F32, 16);
	uint32_t pinf = 0x7F800000, ninf = 0xFF800000;
	uint32_t fmax = f32_pattern(FLT_MAX);

	CHECK(mmagen_ref_accept(&h, 16, NAN, NAN, 0x7FC00000) &&
		      mmagen_ref_accept(&h, 16, NAN, 1.0, 0xFFC00001),
	      "NaN: a NaN rejected");
	CHECK(!mmagen_ref_accept(&h, 16, NAN, 1.0, 0) &&
		      !mmagen_ref_accept(&h, 16, NAN, 1.0, pinf),
	      "NaN: a number accepted");
	CHECK(!mmagen_ref_accept(&h, 16, 1.0, 1.0, 0x7FC00000),
	      "NaN accepted for 1.0");
	CHECK(mmagen_ref_accept(&h, 16, INFINITY, INFINITY, pinf) &&
		      mmagen_ref_accept(&h, 16, -INFINITY, INFINITY, ninf),
	      "Inf: matching Inf rejected");
	CHECK(!mmagen_ref_accept(&h, 16, INFINITY, INFINITY, ninf) &&
		      !mmagen_ref_accept(&h, 16, INFINITY, INFINITY, fmax),
	      "Inf: wrong sign or max accepted");
	/* The exact value overflows f32: Inf or max of its sign. */
	CHECK(mmagen_ref_accept(&h, 16, 1e39, 1e39, pinf) &&
		      mmagen_ref_accept(&h, 16, 1e39, 1e39, fmax) &&
		      mmagen_ref_accept(&h, 16, -1e39, 1e39, ninf),
	      "overflow: Inf/max rejected");
	CHECK(!mmagen_ref_accept(&h, 16, 1e39, 1e39, ninf) &&
		      !mmagen_ref_accept(&h, 16, 1e39, 1e39,
					 f32_pattern(1e30f)),
	      "overflow: wrong sign or a small number accepted");
	/* Only mag overflows: an intermediate may have, any Inf passes. */
	CHECK(mmagen_ref_accept(&h, 16, 1.0, 1e39, ninf) &&
		      mmagen_ref_accept(&h, 16, 1.0, 1e39, f32_pattern(1.0f)),
	      "mag overflow: Inf or the value rejected");
	CHECK(!mmagen_ref_accept(&h, 16, 1.0, 1.0, pinf),
	      "Inf accepted without overflow");
}

static void accept_int(void)
{
	mmagen_form f = form(MMAGEN_FAM_MMA, MMAGEN_S8, MMAGEN_S8, MMAGEN_S32,
			     MMAGEN_S32, 32);
	mmagen_form s = f;

	s.satfinite = 1;
	CHECK(mmagen_ref_accept(&f, 32, 12345, 0, 12345) &&
		      !mmagen_ref_accept(&f, 32, 12345, 0, 12346) &&
		      !mmagen_ref_accept(&f, 32, 12345, 0, 12344),
	      "s32: off by one accepted or exact rejected");
	CHECK(mmagen_ref_accept(&f, 32, -7, 0, 0xFFFFFFF9u),
	      "s32: negative rejected");
	/* 2^31 wraps to INT32_MIN, or saturates to INT32_MAX. */
	CHECK(mmagen_ref_accept(&f, 32, 2147483648.0, 0, 0x80000000u) &&
		      !mmagen_ref_accept(&f, 32, 2147483648.0, 0, 0x7FFFFFFFu),
	      "s32: wrap-around");
	CHECK(mmagen_ref_accept(&s, 32, 2147483648.0, 0, 0x7FFFFFFFu) &&
		      !mmagen_ref_accept(&s, 32, 2147483648.0, 0, 0x80000000u),
	      "s32: satfinite");
	CHECK(!mmagen_ref_accept(&f, 32, 0.5, 0, 0),
	      "s32: a fraction accepted");
}

int main(void)
{
	const char *env = getenv("MMAGEN_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0)
			    : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);

	printf("seed = %llu (set MMAGEN_SEED to repeat)\n",
	       (unsigned long long)seed);
	rng_state = seed;
	hand_f16();
	hand_bf16_tf32();
	hand_narrow();
	hand_int();
	hand_b1();
	hand_f64();
	hand_block_scaled();
	hand_errors();
	random_forms();
	random_big();
	accept_float();
	accept_special();
	accept_int();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
