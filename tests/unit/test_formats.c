/* test_formats.c - MX and NVFP4 quantize/dequantize (gen/table/formats.c).
 *
 * Known blocks computed by hand (the arithmetic is in the comments), the
 * special blocks (zeros, NaN, Inf, amax past the element range, tiny),
 * round trips from random codes, and a brute-force property: every
 * element is the nearest code to x / scale, the scale being derived here
 * from amax by repeated halving, not by frexp.  Exit 0 on pass.
 */
#include "mmagen.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static mmagen_quant_spec spec(unsigned fmt, mmagen_type elem)
{
	mmagen_quant_spec s;

	if (mmagen_quant_spec_init(&s, fmt, elem)) {
		printf("FAIL: spec %u/%d: %s\n", fmt, elem, mmagen_last_error());
		exit(1);
	}
	return s;
}

/* Quantize n values (one block or a few), compare codes. */
static void expect_codes(const char *what, const mmagen_quant_spec *s,
			 const float *x, size_t n, const uint8_t *want_e,
			 size_t ne, const uint8_t *want_s, size_t ns)
{
	uint8_t e[256], sc[16];
	size_t eb, sb;

	memset(e, 0xAA, sizeof e);
	mmagen_quant_sizes(s, n, &eb, &sb);
	check(eb == ne && sb == ns, "%s: sizes %zu/%zu, want %zu/%zu", what, eb, sb, ne, ns);
	check(!mmagen_quantize(s, x, n, e, sc), "%s: quantize: %s", what, mmagen_last_error());
	for (size_t i = 0; i < ne; i++)
		check(e[i] == want_e[i], "%s: element byte %zu = 0x%02x, want 0x%02x",
		      what, i, e[i], want_e[i]);
	for (size_t i = 0; i < ns; i++)
		check(sc[i] == want_s[i], "%s: scale %zu = 0x%02x, want 0x%02x",
		      what, i, sc[i], want_s[i]);
}

static void expect_values(const char *what, const mmagen_quant_spec *s,
			  const float *x, size_t n, const float *want)
{
	uint8_t e[256], sc[16];
	float y[256];

	mmagen_quantize(s, x, n, e, sc);
	check(!mmagen_dequantize(s, e, sc, n, y), "%s: dequantize: %s", what, mmagen_last_error());
	for (size_t i = 0; i < n; i++)
		check(memcmp(&y[i], &want[i], sizeof y[i]) == 0 ||
		      (isnan(y[i]) && isnan(want[i])),
		      "%s: value %zu = %a, want %a", what, i, y[i], want[i]);
}

static void known_mxfp8(void)
{
	mmagen_quant_spec s = spec(MMAGEN_QF_MXFP8, MMAGEN_TYPE_NONE);
	float x[32] = { 3.0f, -0.5f, 100.0f }, y[32] = { 3.0f, -0.5f, 96.0f };
	uint8_t e[32] = { 0x54, 0xC0, 0x7C };
	uint8_t sc[1] = { 0x7D };

	check(s.elem == MMAGEN_E4M3 && s.block == 32 && s.stype == MMAGEN_UE8M0 &&
	      s.emax == 8 && s.elem_bits == 8, "mxfp8 default spec");
	/* amax 100: floor(log2 100) = 6, 6 - 8 = -2: scale 0.25 (code 125).
	 * 3/0.25 = 12 = 1.5*2^3: 0 1010 100; -0.5/0.25 = -2: 1 1000 000;
	 * 100/0.25 = 400, halfway between 384 (m=4) and 416 (m=5): even
	 * mantissa, 384 = 0 1111 100, which dequantizes to 96. */
	expect_codes("mxfp8 e4m3 hand block", &s, x, 32, e, 32, sc, 1);
	expect_values("mxfp8 e4m3 hand block", &s, x, 32, y);

	/* amax 511: floor(log2) = 8, scale 2^0 (code 127); 511 > 448
	 * saturates to 448 = 0x7E; 480 would round into the NaN code. */
	float t[32] = { 511.0f, 480.0f, -449.0f, 1.0f };
	uint8_t te[32] = { 0x7E, 0x7E, 0xFE, 0x38 }, ts[1] = { 0x7F };
	expect_codes("mxfp8 e4m3 amax at the top", &s, t, 32, te, 32, ts, 1);

	/* e5m2: amax 61440 = 2^15 * 1.875: scale 2^0; RNE alone would give
	 * Inf (61440 is the midpoint of 57344 and 65536), MX saturates to
	 * 57344 = 0 11110 11. */
	mmagen_quant_spec s5 = spec(MMAGEN_QF_MXFP8, MMAGEN_E5M2);
	float u[32] = { 61440.0f, 0.75f };
	uint8_t ue[32] = { 0x7B, 0x00 }, us[1] = { 0x7F };
	/* 0.75 = 1.5 * 2^-1 = 0 01110 10 = 0x3A */
	ue[1] = 0x3A;
	expect_codes("mxfp8 e5m2 top", &s5, u, 32, ue, 32, us, 1);
	check(s5.emax == 15, "e5m2 emax %d", s5.emax);
}

static void known_mxfp6(void)
{
	/* e2m3, amax 1: floor 0, 0 - 2 = -2, scale 0.25.  1 -> 4 = 2^2:
	 * exp field 2+1 = 3, 0 11 000 = 0x18; 0.3 -> 1.2, nearest of 1.125
	 * and 1.25 is 1.25 = 0 01 010 = 0x0A, back to 0.3125. */
	mmagen_quant_spec s = spec(MMAGEN_QF_MXFP6, MMAGEN_E2M3);
	float x[32] = { 1.0f, 0.3f, -1.0f }, y[32] = { 1.0f, 0.3125f, -1.0f };
	uint8_t e[32] = { 0x18, 0x0A, 0x38 }, sc[1] = { 0x7D };
	expect_codes("mxfp6 e2m3 hand block", &s, x, 32, e, 32, sc, 1);
	expect_values("mxfp6 e2m3 hand block", &s, x, 32, y);

	/* e3m2 (the default), amax 1: 0 - 4 = -4, scale 1/16 (code 123);
	 * 1 -> 16 = 2^4: exp field 4+3 = 7, 0 111 00 = 0x1C; 0.1 -> 1.6,
	 * between 1.5 and 1.75, nearer 1.5 = 0 011 10 = 0x0E. */
	mmagen_quant_spec s3 = spec(MMAGEN_QF_MXFP6, MMAGEN_TYPE_NONE);
	float z[32] = { 1.0f, 0.1f };
	uint8_t ze[32] = { 0x1C, 0x0E }, zs[1] = { 0x7B };
	check(s3.elem == MMAGEN_E3M2 && s3.emax == 4, "mxfp6 default e3m2");
	expect_codes("mxfp6 e3m2 hand block", &s3, z, 32, ze, 32, zs, 1);
}

static void known_mxfp4(void)
{
	/* amax 1: scale 0.25.  1 -> 4 = 0110; 0.2 -> 0.8, nearer 1 = 0010;
	 * -0.75 -> -3 = 1101; 0.5 -> 2 = 0100.  Element 2i in the low
	 * nibble: 0x26, 0x4D. */
	mmagen_quant_spec s = spec(MMAGEN_QF_MXFP4, MMAGEN_TYPE_NONE);
	float x[32] = { 1.0f, 0.2f, -0.75f, 0.5f }, y[32] = { 1.0f, 0.25f, -0.75f, 0.5f };
	uint8_t e[16] = { 0x26, 0x4D }, sc[1] = { 0x7D };
	check(s.elem_bits == 4 && s.block == 32, "mxfp4 spec");
	expect_codes("mxfp4 hand block", &s, x, 32, e, 16, sc, 1);
	expect_values("mxfp4 hand block", &s, x, 32, y);
}

static void known_nvfp4(void)
{
	mmagen_quant_spec s = spec(MMAGEN_QF_NVFP4, MMAGEN_TYPE_NONE);
	/* block 0: amax 6, scale 6/6 = 1 = ue4m3 0 0111 000 = 0x38;
	 * 6 -> 0111, 1 -> 0010, -3 -> 1101.
	 * block 1: amax 10: 10/6 = 1.667, between 1.625 and 1.75, nearer
	 * 1.625 = 0 0111 101 = 0x3D; 10/1.625 = 6.15 clamps to 6 (0111),
	 * dequantized 9.75; 2/1.625 = 1.23 -> 1 (0010) -> 1.625. */
	float x[32] = { 6.0f, 1.0f, -3.0f };
	x[16] = 10.0f;
	x[17] = 2.0f;
	uint8_t e[16] = { 0x27, 0x0D }, sc[2] = { 0x38, 0x3D };
	e[8] = 0x27;
	float y[32] = { 6.0f, 1.0f, -3.0f };
	y[16] = 9.75f;
	y[17] = 1.625f;
	check(s.block == 16 && s.stype == MMAGEN_UE4M3 && s.global_scale == 1.0, "nvfp4 spec");
	expect_codes("nvfp4 hand blocks", &s, x, 32, e, 16, sc, 2);
	expect_values("nvfp4 hand blocks", &s, x, 32, y);

	/* global scale 0.5: block scale 6/6/0.5 = 2 = 0 1000 000 = 0x40;
	 * elements 6/(2*0.5) = 6; dequantized 6*2*0.5 = 6. */
	s.global_scale = 0.5;
	float g[16] = { 6.0f, -1.5f }, gy[16] = { 6.0f, -1.5f };
	uint8_t ge[8] = { 0xB7 }, gs[1] = { 0x40 };
	expect_codes("nvfp4 global 0.5", &s, g, 16, ge, 8, gs, 1);
	expect_values("nvfp4 global 0.5", &s, g, 16, gy);

	/* the conventional global scale: amax / (448 * 6) */
	float t[4] = { 1.0f, -2688.0f, NAN, 3.0f };
	check(mmagen_nvfp4_global_scale(t, 4) == 1.0, "global scale of amax 2688 = %g",
	      mmagen_nvfp4_global_scale(t, 4));
	float z[2] = { 0.0f, -0.0f };
	check(mmagen_nvfp4_global_scale(z, 2) == 1.0, "global scale of zeros");
	/* with it, a block at the tensor's amax gets the top scale 448 */
	float big[16] = { 2688.0f * 3 };
	s.global_scale = mmagen_nvfp4_global_scale(big, 16);
	check(mmagen_quant_block_scale(&s, big, 16) == 0x7E, "nvfp4 amax block scale 0x%02x",
	      mmagen_quant_block_scale(&s, big, 16));
}

static double elem_value(const mmagen_quant_spec *s, const uint8_t *e, size_t i);

static void edge_blocks(void)
{
	static const unsigned fmts[] = { MMAGEN_QF_MXFP8, MMAGEN_QF_MXFP6,
					 MMAGEN_QF_MXFP4, MMAGEN_QF_NVFP4 };
	for (size_t f = 0; f < 4; f++) {
		mmagen_quant_spec s = spec(fmts[f], MMAGEN_TYPE_NONE);
		const char *name = mmagen_qformat_name(fmts[f]);
		unsigned v = s.block;
		float x[96], y[96];
		uint8_t e[96], sc[3];

		/* block 0 zeros (with -0), block 1 a NaN, block 2 an Inf */
		for (unsigned i = 0; i < 3 * v; i++)
			x[i] = (float)((i % 7) + 1) * 0.125f;
		for (unsigned i = 0; i < v; i++)
			x[i] = i % 2 ? -0.0f : 0.0f;
		x[v + 3] = NAN;
		x[2 * v + 5] = -INFINITY;
		check(!mmagen_quantize(&s, x, 3 * v, e, sc), "%s edge quantize", name);
		mmagen_dequantize(&s, e, sc, 3 * v, y);
		uint8_t nan_code = s.stype == MMAGEN_UE8M0 ? 0xFF : 0x7F;
		check(sc[0] == 0, "%s zero block scale 0x%02x", name, sc[0]);
		check(sc[1] == nan_code && sc[2] == nan_code, "%s NaN/Inf block scales 0x%02x 0x%02x",
		      name, sc[1], sc[2]);
		for (unsigned i = 0; i < v; i++)
			check(y[i] == 0.0f, "%s zero block value %u = %g", name, i, y[i]);
		for (unsigned i = v; i < 3 * v; i++)
			check(isnan(y[i]), "%s NaN/Inf block value %u = %g", name, i, y[i]);
		/* zeros keep their sign; NaN blocks get +0 codes */
		for (unsigned i = 0; i < 3 * v; i++)
			check(elem_value(&s, e, i) == 0.0 &&
			      (i < v || !signbit(elem_value(&s, e, i))),
			      "%s special-block element %u = %g", name, i, elem_value(&s, e, i));
		size_t eb;

		/* a partial last block: its own scale from what is there */
		float p[40];
		uint8_t pe[40], ps[3];
		for (unsigned i = 0; i < 40; i++)
			p[i] = i < v ? 1.0f : 64.0f;
		size_t n = v + 3, sb;
		mmagen_quant_sizes(&s, n, &eb, &sb);
		check(sb == 2, "%s partial block: %zu scales", name, sb);
		memset(pe, 0xFF, sizeof pe);
		mmagen_quantize(&s, p, n, pe, ps);
		check(ps[1] == mmagen_quant_block_scale(&s, p + v, 3) && ps[1] != ps[0],
		      "%s partial block scale", name);
		if (s.elem_bits == 4)
			check((pe[eb - 1] & 0xF0) == 0, "%s unused last nibble 0x%02x", name, pe[eb - 1]);
	}

	/* MX scale limits: a tiny amax clamps to 2^-127 */
	mmagen_quant_spec s = spec(MMAGEN_QF_MXFP8, MMAGEN_TYPE_NONE);
	float tiny[32] = { 0x1p-140f };
	check(mmagen_quant_block_scale(&s, tiny, 32) == 0, "tiny amax scale");
	float huge[32] = { 0x1.fffffep127f };
	/* floor(log2) = 127, 127 - 8 = 119: code 246 */
	check(mmagen_quant_block_scale(&s, huge, 32) == 246, "f32 max amax scale %u",
	      mmagen_quant_block_scale(&s, huge, 32));
}

static void bad_args(void)
{
	mmagen_quant_spec s;
	unsigned f;

	check(mmagen_quant_spec_init(&s, MMAGEN_QF_MXFP4, MMAGEN_E4M3) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "mxfp4 elements are e2m1") != NULL,
	      "mxfp4 with e4m3: %s", mmagen_last_error());
	check(mmagen_quant_spec_init(&s, MMAGEN_QF_MXFP8, MMAGEN_E3M2) != MMAGEN_OK &&
	      strstr(mmagen_last_error(), "e4m3 or e5m2") != NULL, "mxfp8 e3m2: %s",
	      mmagen_last_error());
	check(mmagen_qformat_parse("NVFP4", &f) == MMAGEN_OK && f == MMAGEN_QF_NVFP4, "parse NVFP4");
	check(mmagen_qformat_parse("mxfp5", &f) == MMAGEN_UNKNOWN_NAME, "parse mxfp5");
	/* fp8-block: a GEMM's block scaling, after QF_END (whose value and
	 * the formats' stay as they were), with no quantizer spec */
	check(MMAGEN_QF_NVFP4 == 4 && MMAGEN_QF_END == 5 && MMAGEN_QF_FP8_BLOCK > MMAGEN_QF_END,
	      "qformat values");
	check(mmagen_qformat_parse("FP8-Block", &f) == MMAGEN_OK && f == MMAGEN_QF_FP8_BLOCK &&
	      !strcmp(mmagen_qformat_name(f), "fp8-block"), "parse fp8-block");
	check(mmagen_quant_spec_init(&s, MMAGEN_QF_FP8_BLOCK, MMAGEN_TYPE_NONE) == MMAGEN_UNSUPPORTED &&
	      strstr(mmagen_last_error(), "not a format mmagen quantizes") != NULL,
	      "fp8-block has no spec: %s", mmagen_last_error());
	check(!strcmp(mmagen_qformat_name(MMAGEN_QF_GEMM_END), "none"), "name past the end");
	s = spec(MMAGEN_QF_MXFP8, MMAGEN_TYPE_NONE);
	s.global_scale = 2.0;
	float x[32] = { 0 };
	uint8_t e[32], sc[1];
	check(mmagen_quantize(&s, x, 32, e, sc) == MMAGEN_INVALID_ARGUMENT,
	      "mx with a global scale");
	s = spec(MMAGEN_QF_NVFP4, MMAGEN_TYPE_NONE);
	s.global_scale = 0.0;
	check(mmagen_quantize(&s, x, 16, e, sc) == MMAGEN_INVALID_ARGUMENT, "global scale 0");
	s.global_scale = 1.0;
	s.block = 32;
	check(mmagen_quantize(&s, x, 16, e, sc) == MMAGEN_INVALID_ARGUMENT, "altered block");
}

/* ---- properties ---- */

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* floor(log2(a)) for a > 0, by halving and doubling. */
static int floor_log2(double a)
{
	int e = 0;

	while (a >= 2.0) {
		a /= 2.0;
		e++;
	}
	while (a < 1.0) {
		a *= 2.0;
		e--;
	}
	return e;
}

static double elem_value(const mmagen_quant_spec *s, const uint8_t *e, size_t i)
{
	uint64_t c = s->elem_bits == 4 ? (uint64_t)(e[i / 2] >> (i % 2) * 4) & 0xF : e[i];

	return mmagen_type_decode((mmagen_type)s->elem, c);
}

/* Random finite blocks: the scale follows the spec's formula and each
 * element is a nearest finite code to x / scale (clamped). */
static void nearest_property(const mmagen_quant_spec *s, const char *name)
{
	mmagen_type t = (mmagen_type)s->elem;
	unsigned codes = 1u << mmagen_type_bits(t);

	for (int round = 0; round < 200; round++) {
		float x[32];
		uint8_t e[32], sc[1];
		int ex = (int)(next() % 40) - 20;
		double amax = 0;

		for (unsigned i = 0; i < s->block; i++) {
			double m = (double)(next() % 2000001) / 1000000.0 - 1.0;
			x[i] = (float)ldexp(m, ex);
			if (fabs(x[i]) > amax)
				amax = fabs(x[i]);
		}
		mmagen_quantize(s, x, s->block, e, sc);
		double scale;
		if (amax == 0.0)
			continue;
		if (s->stype == MMAGEN_UE8M0) {
			int want = floor_log2(amax) - s->emax + 127;
			check(sc[0] == want, "%s scale code %u, want %d (amax %a)", name, sc[0],
			      want, amax);
			scale = ldexp(1.0, sc[0] - 127);
		} else {
			scale = mmagen_type_decode(MMAGEN_UE4M3, sc[0]);
			if (scale == 0.0) {	/* amax/6 below ue4m3's range */
				check(elem_value(s, e, 0) == 0.0 && amax / 6.0 < 0x1p-10,
				      "%s zero scale for amax %a", name, amax);
				continue;
			}
			double want = amax / 6.0;
			/* the nearest ue4m3 to amax/6: no code is closer */
			for (unsigned c = 0; c < 0x7F; c++)
				check(fabs(mmagen_type_decode(MMAGEN_UE4M3, c) - want) >=
				      fabs(scale - want), "%s ue4m3 scale 0x%02x not nearest", name, sc[0]);
		}
		for (unsigned i = 0; i < s->block; i++) {
			double got = elem_value(s, e, i), v = x[i] / scale;
			double best = INFINITY;
			for (unsigned c = 0; c < codes; c++) {
				double d = mmagen_type_decode(t, c);
				if (isfinite(d) && fabs(d - v) < best)
					best = fabs(d - v);
			}
			check(fabs(got - v) == best, "%s element %u: %g for %g (best distance %g)",
			      name, i, got, v, best);
		}
	}
}

/* Random codes whose blocks reach the element's top binade dequantize
 * and quantize back to the same codes. */
static void round_trip(const mmagen_quant_spec *s, const char *name)
{
	mmagen_type t = (mmagen_type)s->elem;
	unsigned codes = 1u << mmagen_type_bits(t);
	double top = ldexp(1.0, s->emax);

	for (int round = 0; round < 100; round++) {
		uint8_t e[32] = { 0 }, sc[1], e2[32], sc2[1];
		float y[32];
		size_t eb;

		mmagen_quant_sizes(s, s->block, &eb, NULL);
		sc[0] = s->stype == MMAGEN_UE8M0 ? (uint8_t)(127 - 60 + next() % 120) :
			(uint8_t)(1 + next() % 0x7E);
		for (unsigned i = 0; i < s->block; i++) {
			uint64_t c;
			double d;
			do {
				c = next() % codes;
				d = mmagen_type_decode(t, c);
			} while (!isfinite(d) || (i == 0 && fabs(d) < top) ||
				 (s->stype == MMAGEN_UE4M3 && i == 0 && fabs(d) != 6.0));
			if (s->elem_bits == 4)
				e[i / 2] |= (uint8_t)(c << (i % 2) * 4);
			else
				e[i] = (uint8_t)c;
		}
		mmagen_dequantize(s, e, sc, s->block, y);
		mmagen_quantize(s, y, s->block, e2, sc2);
		check(sc2[0] == sc[0], "%s round trip scale 0x%02x -> 0x%02x", name, sc[0], sc2[0]);
		for (size_t i = 0; i < eb; i++)
			check(e2[i] == e[i], "%s round trip byte %zu 0x%02x -> 0x%02x", name, i,
			      e[i], e2[i]);
	}
}

static void properties(void)
{
	static const struct { unsigned f; mmagen_type t; const char *name; } all[] = {
		{ MMAGEN_QF_MXFP8, MMAGEN_E4M3, "mxfp8/e4m3" },
		{ MMAGEN_QF_MXFP8, MMAGEN_E5M2, "mxfp8/e5m2" },
		{ MMAGEN_QF_MXFP6, MMAGEN_E3M2, "mxfp6/e3m2" },
		{ MMAGEN_QF_MXFP6, MMAGEN_E2M3, "mxfp6/e2m3" },
		{ MMAGEN_QF_MXFP4, MMAGEN_E2M1, "mxfp4" },
		{ MMAGEN_QF_NVFP4, MMAGEN_E2M1, "nvfp4" },
	};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		mmagen_quant_spec s = spec(all[i].f, all[i].t);
		nearest_property(&s, all[i].name);
		round_trip(&s, all[i].name);
	}
}

int main(void)
{
	known_mxfp8();
	known_mxfp6();
	known_mxfp4();
	known_nvfp4();
	edge_blocks();
	bad_args();
	properties();
	printf("formats: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
