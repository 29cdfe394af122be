/* test_tcgen05.c - the tcgen05 descriptors against the PTX ISA 9.1 bit
 * tables (expected words written by hand, field by field), every field's
 * range, and encode/decode round trips.  The tile kernels go through ptxas
 * in tests/ptxas/check_tcgen05_tiles.c.  No sm_100 GPU checked any of
 * this. */
#include "kernel.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first form with these fields (0xFF: any). */
static const mmagen_form *find(unsigned kind, unsigned sparse, unsigned cg, unsigned ws,
			       unsigned a, unsigned b, unsigned d, unsigned sv, unsigned st)
{
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_TCGEN05 && f->kind == kind && f->sparse == sparse &&
		    f->cta_group == cg && f->ws == ws && !f->ashift && f->a == a && f->b == b && f->d == d &&
		    (sv == 0xFF || f->scale_vec == sv) && (st == 0xFF || f->stype == st))
			return f;
	}
	return NULL;
}

struct idesc_case {
	unsigned kind, sparse, cg, ws, a, b, d, sv, st;
	mmagen_tc_idesc p;
	uint32_t want;
	const char *why;   /* the fields, as summed by hand */
};

#define K(x) MMAGEN_KIND_##x
#define T(x) MMAGEN_##x
static const struct idesc_case idesc_cases[] = {
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64 },
	  0x08100010, "dtype F32=1<<4, N>>3=8<<17, M>>4=8<<24" },
	{ K(F16), 1, 1, 0, T(BF16), T(BF16), T(F32), 0xFF, 0xFF,
	  { .m = 64, .n = 256, .sparse_sel = 2, .neg_a = 1, .major_b = 1 },
	  0x04412496, "sel 2, sparse<<2, F32<<4, BF16 1<<7 and 1<<10, negA<<13, transB<<16, 32<<17, 4<<24" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F16), 0xFF, 0xFF, { .m = 128, .n = 256, .neg_a = 1 },
	  0x08402000, "dtype F16=0, negA<<13, 32<<17, 8<<24" },
	{ K(TF32), 0, 2, 0, T(TF32), T(TF32), T(F32), 0xFF, 0xFF, { .m = 256, .n = 256 },
	  0x10400910, "F32<<4, TF32 2<<7 and 2<<10, 32<<17, 16<<24" },
	{ K(F8F6F4), 0, 1, 0, T(E2M1), T(E3M2), T(F16), 0xFF, 0xFF, { .m = 64, .n = 8 },
	  0x04021280, "F16=0, E2M1 5<<7, E3M2 4<<10, 1<<17, 4<<24" },
	{ K(F8F6F4), 0, 1, 0, T(E4M3), T(E5M2), T(F32), 0xFF, 0xFF, { .m = 128, .n = 128, .major_a = 1 },
	  0x08208410, "F32<<4, E4M3 0, E5M2 1<<10, transA<<15, 16<<17, 8<<24" },
	{ K(F8F6F4), 1, 1, 0, T(E2M3), T(E2M3), T(F32), 0xFF, 0xFF, { .m = 128, .n = 16 },
	  0x08040d94, "sel 0 (the ISA's rule for .sp f8f6f4), sparse<<2, F32<<4, E2M3 3<<7 and 3<<10, 2<<17, 8<<24" },
	{ K(TF32), 1, 2, 0, T(TF32), T(TF32), T(F32), 0xFF, 0xFF, { .m = 256, .n = 16, .sparse_sel = 3 },
	  0x10040917, "sel 3, sparse<<2, F32<<4, TF32 2<<7 and 2<<10, 2<<17, 16<<24" },
	{ K(I8), 0, 1, 1, T(S8), T(U8), T(S32), 0xFF, 0xFF,
	  { .m = 32, .n = 128, .saturate = 1, .max_shift = 16 },
	  0x822000A8, "sat<<3, S32 2<<4, S8 1<<7, U8 0, 16<<17, 2<<24, shift 16 = 2<<30" },
	{ K(I8), 1, 2, 0, T(U8), T(S8), T(S32), 0xFF, 0xFF, { .m = 128, .n = 32 },
	  0x08080424, "sparse<<2, S32 2<<4, U8 0, S8 1<<10, 4<<17, 8<<24" },
	{ K(MXF8F6F4), 0, 2, 0, T(E4M3), T(E2M1), T(F32), 1, T(UE8M0),
	  { .m = 256, .n = 128, .sfa_id = 3, .sfb_id = 1 },
	  0x70A01410, "SFB id 1<<4, E2M1 5<<10, 16<<17, UE8M0<<23, M>>7=2<<27, SFA id 3<<29" },
	{ K(MXF4), 1, 2, 0, T(E2M1), T(E2M1), T(F32), 2, T(UE8M0),
	  { .m = 256, .n = 64, .sfa_id = 2, .sfb_id = 2 },
	  0x509004A4, "sparse<<2, SFB 2<<4, E2M1 1<<7 and 1<<10, 8<<17, UE8M0<<23, 2<<27, SFA 2<<29" },
	{ K(MXF4NVF4), 0, 1, 0, T(E2M1), T(E2M1), T(F32), 4, T(UE4M3), { .m = 128, .n = 8, .neg_b = 1 },
	  0x08024480, "E2M1 1<<7 and 1<<10, negB<<14, 1<<17, UE4M3=0, 1<<27" },
	{ K(MXF4NVF4), 0, 2, 0, T(E2M1), T(E2M1), T(F32), 2, T(UE8M0), { .m = 256, .n = 256, .k96 = 1 },
	  0x90C00480, "E2M1 1<<7 and 1<<10, 32<<17, UE8M0<<23, 2<<27, K96<<31" },
};

static void test_idesc(void)
{
	for (size_t i = 0; i < sizeof idesc_cases / sizeof idesc_cases[0]; i++) {
		const struct idesc_case *c = &idesc_cases[i];
		const mmagen_form *f = find(c->kind, c->sparse, c->cg, c->ws, c->a, c->b, c->d,
					    c->sv, c->st);
		CHECK(f, "idesc case %zu: no such form", i);
		if (!f)
			continue;
		uint32_t w = 0;
		mmagen_status s = mmagen_tc_idesc_encode(f, &c->p, &w);
		CHECK(!s && w == c->want, "idesc case %zu: got 0x%08x (%s), want 0x%08x = %s", i, w,
		      s ? mmagen_last_error() : "ok", c->want, c->why);
	}
}

struct reject_case {
	unsigned kind, sparse, cg, ws, a, b, d, sv, st;
	mmagen_tc_idesc p;
	const char *msg;   /* a substring of the error */
};

static const struct reject_case reject_cases[] = {
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 96, .n = 64 },
	  "tcgen05 kind::f16 with cta_group::1 takes M 64 or 128 (got 96)" },
	{ K(F16), 0, 2, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 256, .n = 72 },
	  "takes N 16 to 256 in steps of 16 (got 72, nearest 64)" },
	{ K(I8), 0, 1, 0, T(S8), T(S8), T(S32), 0xFF, 0xFF, { .m = 128, .n = 40 },
	  "takes N 8 to 32 in steps of 8, or 48 to 256 in steps of 16 (got 40, nearest 32)" },
	{ K(I8), 0, 2, 0, T(S8), T(S8), T(S32), 0xFF, 0xFF, { .m = 128, .n = 48 },
	  "takes N 32 to 256 in steps of 32 (got 48, nearest 32)" },
	{ K(TF32), 1, 1, 1, T(TF32), T(TF32), T(F32), 0xFF, 0xFF, { .m = 64, .n = 256 },
	  "kind::tf32 .ws .sp with cta_group::1 takes N 64 or 128 (got 256, nearest 128)" },
	{ K(TF32), 0, 1, 1, T(TF32), T(TF32), T(F32), 0xFF, 0xFF, { .m = 256, .n = 64 },
	  "takes M 32, 64 or 128 (got 256)" },
	{ K(MXF8F6F4), 1, 2, 0, T(E4M3), T(E4M3), T(F32), 1, T(UE8M0), { .m = 128, .n = 64 },
	  "takes M 256 (got 128)" },
	{ K(MXF4), 0, 1, 0, T(E2M1), T(E2M1), T(F32), 2, T(UE8M0), { .m = 64, .n = 64 },
	  "takes M 128 (got 64)" },
	{ K(I8), 0, 1, 0, T(S8), T(S8), T(S32), 0xFF, 0xFF, { .m = 128, .n = 64, .neg_a = 1 },
	  "cannot negate" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .saturate = 1 },
	  "no saturate bit" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .sparse_sel = 1 },
	  "takes sparsity selector 0 (got 1): dense forms have no metadata" },
	{ K(F8F6F4), 1, 1, 0, T(E2M3), T(E2M3), T(F32), 0xFF, 0xFF, { .m = 128, .n = 16, .sparse_sel = 3 },
	  "takes sparsity selector 0 (got 3): the ISA requires 0 for .sp kind::i8 and kind::f8f6f4" },
	{ K(I8), 1, 1, 0, T(S8), T(S8), T(S32), 0xFF, 0xFF, { .m = 128, .n = 64, .sparse_sel = 1 },
	  "the ISA requires 0 for .sp kind::i8" },
	{ K(MXF8F6F4), 1, 2, 0, T(E4M3), T(E4M3), T(F32), 1, T(UE8M0), { .m = 256, .n = 64, .sparse_sel = 2 },
	  "the ISA assumes 0 for block-scaled kinds" },
	{ K(F16), 1, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .sparse_sel = 4 },
	  "takes sparsity selector 0..3 (got 4, nearest 3)" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .max_shift = 8 },
	  "8, 16 or 32 only with .ws" },
	{ K(F16), 0, 1, 1, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .max_shift = 12 },
	  "tcgen05 instruction descriptor: max shift 12 is not legal; it takes 0, 8, 16 or 32 (nearest 8)" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .major_b = 2 },
	  "tcgen05 instruction descriptor: transpose B 2 does not fit; it takes 0 to 1 (nearest 1)" },
	{ K(MXF8F6F4), 0, 1, 0, T(E4M3), T(E4M3), T(F32), 1, T(UE8M0), { .m = 128, .n = 64, .sfa_id = 4 },
	  "scale-factor ids 0..3 (got 4, 0)" },
	{ K(F8F6F4), 0, 1, 0, T(E2M1), T(E4M3), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .major_a = 1 },
	  "MN-major" },
	{ K(MXF4), 0, 1, 0, T(E2M1), T(E2M1), T(F32), 2, T(UE8M0), { .m = 128, .n = 64, .sfa_id = 1 },
	  "ids 0 or 2" },
	{ K(MXF4NVF4), 0, 1, 0, T(E2M1), T(E2M1), T(F32), 4, T(UE4M3), { .m = 128, .n = 64, .sfb_id = 2 },
	  "ids 0 (got" },
	{ K(MXF4), 0, 1, 0, T(E2M1), T(E2M1), T(F32), 2, T(UE8M0), { .m = 128, .n = 64, .k96 = 1 },
	  "K = 96 needs dense cta_group::2 with M 256" },
};

static void test_rejects(void)
{
	for (size_t i = 0; i < sizeof reject_cases / sizeof reject_cases[0]; i++) {
		const struct reject_case *c = &reject_cases[i];
		const mmagen_form *f = find(c->kind, c->sparse, c->cg, c->ws, c->a, c->b, c->d,
					    c->sv, c->st);
		CHECK(f, "reject case %zu: no such form", i);
		if (!f)
			continue;
		uint32_t w;
		mmagen_status s = mmagen_tc_idesc_encode(f, &c->p, &w);
		CHECK(s && strstr(mmagen_last_error(), c->msg) && !strchr(mmagen_last_error(), '\n'),
		      "reject case %zu: status %d, message \"%s\", want \"%s\"", i, s,
		      mmagen_last_error(), c->msg);
	}
}

/* .ashift forms: A in TMEM, M 128 or 256 only. */
static void test_ashift(void)
{
	int seen = 0;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_TCGEN05 || !f->ashift)
			continue;
		seen++;
		CHECK(f->asrc == MMAGEN_ASRC_TMEM && !f->ws && !f->block_scale,
		      "form %zu: .ashift without A in TMEM, or with .ws/.block_scale", i);
		unsigned m0 = f->cta_group == 2 ? 128 : 64, m1 = f->cta_group == 2 ? 256 : 128;
		unsigned n = f->kind == MMAGEN_KIND_I8 ? 32 : 64;
		CHECK(mmagen_tc_check_shape(f, m1, n) == MMAGEN_OK, "form %zu: .ashift M %u refused: %s",
		      i, m1, mmagen_last_error());
		if (m0 != 128) {
			CHECK(mmagen_tc_check_shape(f, m0, n) == MMAGEN_ILLEGAL_FORM &&
			      strstr(mmagen_last_error(), ".ashift with cta_group::1 takes M 128 or 256 (got 64)"),
			      "form %zu: .ashift with M 64: %s", i, mmagen_last_error());
		} else {
			CHECK(mmagen_tc_check_shape(f, m0, n) == MMAGEN_OK,
			      "form %zu: .ashift M 128 refused: %s", i, mmagen_last_error());
		}
	}
	/* 16 opcodes on sm_100a (4 kinds x dense/sp x 2 CTA groups), each
	 * with every type set of its row */
	CHECK(seen >= 16, "only %d .ashift forms in the table", seen);
}

static void test_smem_desc(void)
{
	static const struct {
		mmagen_tc_sdesc d;
		uint64_t want;
		const char *why;
	} cases[] = {
		{ { 0x400, 16, 1024, 0, 0, MMAGEN_SWIZZLE_128B }, 0x4000404000010040ull,
		  "start 0x40, LBO 1<<16, SBO 0x40<<32, 1<<46, swizzle 2<<61" },
		{ { 0x3fff0, 0x80, 0x100, 5, 1, MMAGEN_SWIZZLE_32B }, 0xC01A401000083FFFull,
		  "start 0x3fff, LBO 8<<16, SBO 0x10<<32, 1<<46, base 5<<49, LBO mode<<52, 6<<61" },
		{ { 0, 0, 0, 0, 0, MMAGEN_SWIZZLE_NONE }, 0x0000400000000000ull, "only 1<<46" },
		{ { 0, 0, 0, 0, 0, MMAGEN_SWIZZLE_64B }, 0x8000400000000000ull, "4<<61" },
		{ { 0, 0, 0, 0, 0, MMAGEN_SWIZZLE_128B_BASE32B }, 0x2000400000000000ull, "1<<61" },
		{ { 0x10, 0x20, 0x30, 7, 0, MMAGEN_SWIZZLE_NONE }, 0x000E400300020001ull,
		  "1, 2<<16, 3<<32, 1<<46, 7<<49" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t w = 0;
		mmagen_tc_sdesc back;
		mmagen_status s = mmagen_tc_sdesc_encode(&cases[i].d, &w);
		CHECK(!s && w == cases[i].want, "smem desc %zu: got 0x%016llx, want 0x%016llx = %s",
		      i, (unsigned long long)w, (unsigned long long)cases[i].want, cases[i].why);
		s = mmagen_tc_sdesc_decode(cases[i].want, &back);
		CHECK(!s && !memcmp(&back, &cases[i].d, sizeof back), "smem desc %zu: decode: %s",
		      i, s ? mmagen_last_error() : "fields differ");
	}
	/* every field out of range, with the message naming field, range and
	 * the nearest legal value */
	static const struct {
		mmagen_tc_sdesc d;
		const char *msg;
	} bad[] = {
		{ { 8, 0, 0, 0, 0, 0 }, "start address 8 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 16)" },
		{ { 0x40000, 0, 0, 0, 0, 0 }, "start address 262144 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 262128)" },
		{ { 0, 0x40000, 0, 0, 0, 0 }, "LBO 262144 does not fit" },
		{ { 0, 0, 0x24, 0, 0, 0 }, "SBO 36 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 32)" },
		{ { 0, 0, 0, 8, 0, 0 }, "base offset 8 does not fit; it takes 0 to 7 (nearest 7)" },
		{ { 0, 0, 0, 0, 2, 0 }, "LBO mode 2 does not fit; it takes 0 to 1 (nearest 1)" },
		{ { 0, 0, 0, 0, 0, 3 }, "swizzle 3 is not legal; it takes 0, 32, 64, 128 or 160 (nearest 0)" },
		{ { 0, 0, 0, 0, 0, 48 }, "swizzle 48 is not legal" },
		{ { 0, 0, 0, 0, 0, 6 }, "sm_100 smem descriptor: swizzle 6" },   /* a code, not bytes */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t w = 0x1234;
		mmagen_status s = mmagen_tc_sdesc_encode(&bad[i].d, &w);
		CHECK(s == MMAGEN_INVALID_ARGUMENT && strstr(mmagen_last_error(), bad[i].msg) &&
		      w == 0x1234, "smem desc bad case %zu: status %d \"%s\", want \"%s\"", i, s,
		      mmagen_last_error(), bad[i].msg);
	}
	/* words that are no descriptor */
	static const uint64_t junk[] = {
		0,                              /* 0b001 at 46-48 missing */
		0x4000400000000000ull | 1ull << 14, /* a reserved bit */
		0x0000400000000000ull | 3ull << 61, /* swizzle code 3 */
		0x0000400000000000ull | 1ull << 53,
	};
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		mmagen_tc_sdesc d;
		CHECK(mmagen_tc_sdesc_decode(junk[i], &d) == MMAGEN_INVALID_ARGUMENT,
		      "smem desc junk word %zu decoded", i);
	}
}

/* Every tcgen05 form: random parameters that encode decode to the same
 * parameters; a word with its types or sparsity changed is refused. */
static void test_idesc_round_trip(void)
{
	static const unsigned ms[] = { 32, 64, 128, 256 }, ns[] = { 8, 16, 32, 48, 64, 128, 256 };
	static const unsigned shifts[] = { 0, 8, 16, 32 };
	unsigned long encoded = 0;
	srand(12345);
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_TCGEN05)
			continue;
		for (int r = 0; r < 200; r++) {
			/* each optional field set one time in four (nonzero
			 * values in several fields rarely suit one form) */
			mmagen_tc_idesc p = {
				.m = ms[rand() % 4], .n = ns[rand() % 7],
				.major_a = rand() % 4 == 0, .major_b = rand() % 4 == 0,
				.neg_a = rand() % 4 == 0 ? 1 + rand() % 3 : 0,
				.neg_b = rand() % 4 == 0,
				.sparse_sel = rand() % 4 ? 0 : (unsigned)(rand() % 4),
				.saturate = rand() % 4 == 0,
				.sfa_id = rand() % 4 ? 0 : (unsigned)(rand() % 4),
				.sfb_id = rand() % 4 ? 0 : (unsigned)(rand() % 4),
				.max_shift = shifts[rand() % 4 ? 0 : rand() % 4],
				.k96 = rand() % 4 == 0,
			}, back;
			uint32_t w;
			if (mmagen_tc_idesc_encode(f, &p, &w))
				continue;
			encoded++;
			/* what the encoder keeps: flags as 0/1 */
			p.neg_a = !!p.neg_a, p.neg_b = !!p.neg_b;
			p.saturate = !!p.saturate, p.k96 = !!p.k96;
			mmagen_status s = mmagen_tc_idesc_decode(f, w, &back);
			CHECK(!s && !memcmp(&back, &p, sizeof p), "form %zu: 0x%08x decodes %s", i,
			      w, s ? mmagen_last_error() : "to other parameters");
			CHECK(mmagen_tc_idesc_decode(f, w ^ 1u << 2, &back) == MMAGEN_INVALID_ARGUMENT,
			      "form %zu: 0x%08x with the sparsity bit flipped decoded", i, w);
			CHECK(mmagen_tc_idesc_decode(f, w ^ 1u << 9, &back) == MMAGEN_INVALID_ARGUMENT,
			      "form %zu: 0x%08x with the A type changed decoded", i, w);
		}
	}
	CHECK(encoded > 10000, "only %lu random parameter sets encoded", encoded);
}

/* LBO mode 1 (absolute): sm_103a only (PTX ISA 9.7.16.4.1.1); mode 0 on
 * every tcgen05 target; the word is the plain encoder's. */
static void test_lbo_gate(void)
{
	static const struct {
		const char *target;
		int ok;
	} cases[] = {
		{ "sm_100a", 0 }, { "sm_100f", 0 }, { "sm_103a", 1 }, { "sm_103f", 0 },
		{ "sm_110a", 0 },
	};
	mmagen_tc_sdesc d = { 0x400, 0x800, 1024, 0, 1, MMAGEN_SWIZZLE_128B }, d0 = d;
	uint64_t plain = 0, plain0 = 0;
	d0.lbo_mode = 0;
	CHECK(!mmagen_tc_sdesc_encode(&d, &plain) && !mmagen_tc_sdesc_encode(&d0, &plain0) &&
	      plain == (plain0 | 1ull << 52), "lbo gate: plain encodes");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int t;
		uint64_t w = 0x1234;
		char want[128];
		CHECK(!mmagen_target_parse(cases[i].target, &t), "parse %s", cases[i].target);
		mmagen_status s = mmagen_tc_sdesc_encode_on(&d, t, &w);
		snprintf(want, sizeof want, "LBO mode 1 (absolute leading-dimension address) needs "
			 "target sm_103a (got %s; use LBO mode 0)", cases[i].target);
		if (cases[i].ok)
			CHECK(!s && w == plain, "lbo gate %s: %s", cases[i].target, mmagen_last_error());
		else
			CHECK(s == MMAGEN_TARGET && strstr(mmagen_last_error(), want) && w == 0x1234,
			      "lbo gate %s: status %d \"%s\"", cases[i].target, s, mmagen_last_error());
		w = 0;
		CHECK(!mmagen_tc_sdesc_encode_on(&d0, t, &w) && w == plain0, "lbo mode 0 on %s",
		      cases[i].target);
	}
	CHECK(mmagen_tc_sdesc_encode_on(&d, -1, &plain) == MMAGEN_INVALID_ARGUMENT, "bad target");
}

/* tc_meta_table against the layouts written out from CUTLASS's tmem_e_frg
 * / tmem_e_frg_ws and JAX's format_tcgen05_sparse_metadata: kind::f16/tf32,
 * rows R per CTA (128, or .ws 64/32): row m's 16-bit piece h sits in lane
 * m%8 + 8h + 16(m/16) (+ every multiple of R below 128), slot (m/8)%2;
 * other kinds: lane m (+ copies), slot h. */
static void test_meta_layout(void)
{
	static const struct {
		unsigned kind, ws, a, b, d, rows;
		int ok;
	} cases[] = {
		{ K(F16), 0, T(F16), T(F16), T(F32), 128, 1 },
		{ K(TF32), 0, T(TF32), T(TF32), T(F32), 128, 1 },
		{ K(F16), 1, T(BF16), T(BF16), T(F32), 128, 1 },
		{ K(F16), 1, T(F16), T(F16), T(F32), 64, 1 },
		{ K(TF32), 1, T(TF32), T(TF32), T(F32), 32, 1 },
		{ K(F16), 0, T(F16), T(F16), T(F32), 64, 0 },
		{ K(I8), 0, T(S8), T(S8), T(S32), 128, 1 },
		{ K(I8), 1, T(S8), T(S8), T(S32), 64, 1 },
		{ K(F8F6F4), 0, T(E4M3), T(E4M3), T(F32), 64, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const mmagen_form *f = find(cases[i].kind, 1, 1, cases[i].ws, cases[i].a,
					    cases[i].b, cases[i].d, 0xFF, 0xFF);
		uint32_t tab[128 * 4], want[128 * 4];
		if (!f) {
			CHECK(0, "meta layout case %zu: no form", i);
			continue;
		}
		int wide = cases[i].kind == K(F16) || cases[i].kind == K(TF32);
		unsigned np = wide ? 2 : 4, rows = cases[i].rows, bad = 0;
		CHECK(tc_meta_pieces(f) == np, "meta case %zu: pieces", i);
		mmagen_status s = tc_meta_table(f, rows, tab);
		if (!cases[i].ok) {
			CHECK(s == MMAGEN_UNSUPPORTED && strstr(mmagen_last_error(), "rows per CTA"),
			      "meta case %zu: refused: %s", i, mmagen_last_error());
			continue;
		}
		CHECK(!s, "meta case %zu: %s", i, mmagen_last_error());
		for (unsigned j = 0; j < 128 * np; j++)
			want[j] = 0xFFFFFFFFu;
		int half = !cases[i].ws && rows == 64;   /* Layouts C/F: lanes 0-15 */
		for (unsigned m = 0; m < rows; m++)
			for (unsigned h = 0; h < np; h++) {
				unsigned lane = wide ? m % 8 + 8 * h + 16 * (m / 16) :
						half ? 32 * (m / 16) + m % 16 : m;
				unsigned slot = wide ? m / 8 % 2 : h;
				for (unsigned c = 0; c < (half ? 1 : 128 / rows); c++)
					want[(lane + c * rows) * np + slot] = m * np + h;
			}
		for (unsigned j = 0; j < 128 * np; j++)
			bad += tab[j] != want[j];
		CHECK(!bad, "meta case %zu: %u slots differ", i, bad);
	}
}

int main(void)
{
	test_idesc();
	test_rejects();
	test_ashift();
	test_smem_desc();
	test_idesc_round_trip();
	test_lbo_gate();
	test_meta_layout();
	return check_summary();
}
