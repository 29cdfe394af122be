/* test_request_set.c - mmagen_request_set: every facet's spellings as the
 * command line takes them, aliases, the messages of bad facets and values
 * (the request left as it was), and the round trip that facets promise:
 * every form's facet values select a form of the same opcode.  Through
 * the public API only; expected opcodes are written out here (as `mmagen
 * list --opcodes` printed them). */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* A request on `target` with "facet=value" settings; 0 when every
 * setting took. */
static int request_of(mmagen_request *r, const char *target, const char *const *set)
{
	char facet[64];

	mmagen_request_init(r);
	if (mmagen_target_parse(target, &r->target)) {
		fail("target %s: %s", target, mmagen_last_error());
		return -1;
	}
	for (; *set; set++) {
		const char *eq = strchr(*set, '=');
		if (!eq || (size_t)(eq - *set) >= sizeof facet)
			return -1;
		snprintf(facet, sizeof facet, "%.*s", (int)(eq - *set), *set);
		if (mmagen_request_set(r, facet, eq + 1)) {
			fail("%s: set %s: %s", target, *set, mmagen_last_error());
			return -1;
		}
	}
	return 0;
}

/* Each facet set to a legal value; every facet appears in some case. */
static void test_select(void)
{
	static const struct {
		const char *target, *set[12], *opcode;
	} cases[] = {
		{ "sm_90a", { "family=wgmma", "shape=m64n128k16", "a=bf16", "b=bf16", "d=f32", NULL },
		  "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" },
		{ "sm_80", { "family=mma", "shape=m16n8k16", "a=bf16", "layout=row.col", "c=f32",
			     "d=f32", NULL },
		  "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" },
		{ "sm_80", { "family=mma.sp", "shape=m16n8k32", "a=f16", "c=f32", NULL },
		  "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32" },
		{ "sm_80", { "sparse=ordered", "shape=m16n8k32", "a=f16", "c=f32", "d=f32", NULL },
		  "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32" },
		{ "sm_80", { "sparse=none", "shape=m16n8k32", "a=s8", "b=u8", "satfinite=yes", NULL },
		  "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32" },
		{ "sm_80", { "a=b1", "popc=and", "shape=m16n8k256", NULL },
		  "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc" },
		{ "sm_120a", { "family=mma", "kind=mxf4nvf4", "block-scale=yes", "scale-vec=4X",
			       "stype=ue4m3", NULL },
		  "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3" },
		{ "sm_100a", { "family=tcgen05", "kind=f16", "cta-group=2", "ws=no", "ashift=yes",
			       "asrc=tmem", "a=bf16", NULL },
		  "tcgen05.mma.cta_group::2.kind::f16.ashift" },
		{ "sm_100a", { "family=tcgen05.sp", "shape=k64", "kind=i8", "cta-group=1", "ws=yes",
			       NULL },
		  "tcgen05.mma.ws.sp.cta_group::1.kind::i8" },
		{ "sm_80", { "a=f64", "shape=m8n8k4", "rnd=rn", NULL },
		  "mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64" },
		{ "sm_90", { "family=ldmatrix", "num=x4", "trans=yes", "ldtype=b16", NULL },
		  "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" },
		{ "sm_100a", { "family=ldmatrix", "shape=m16n16", "num=2", "ldtype=b6p32", NULL },
		  "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32" },
		{ "sm_100a", { "family=stmatrix", "shape=m16n8", "num=x1", NULL },
		  "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8" },
	};
	unsigned used = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mmagen_request r;
		const mmagen_form *f;
		char op[256];

		for (const char *const *s = cases[i].set; *s; s++)
			for (unsigned k = 0; mmagen_facet_name(k); k++)
				if (!strncmp(*s, mmagen_facet_name(k), strlen(mmagen_facet_name(k))) &&
				    (*s)[strlen(mmagen_facet_name(k))] == '=')
					used |= 1u << k;
		if (request_of(&r, cases[i].target, cases[i].set))
			continue;
		if (mmagen_select(&r, &f)) {
			fail("case %zu (%s): select: %s", i, cases[i].opcode, mmagen_last_error());
			continue;
		}
		CHECK(!strcmp(mmagen_form_opcode(f, op, sizeof op), cases[i].opcode),
		      "case %zu: selected %s, want %s", i, op, cases[i].opcode);
	}
	for (unsigned k = 0; mmagen_facet_name(k); k++)
		CHECK(used >> k & 1, "no case sets facet %s", mmagen_facet_name(k));
}

/* What each spelling sets: the field values, aliases equal to names. */
static void test_fields(void)
{
	mmagen_request r, s;

	/* family also sets sparse where its spelling says, else leaves it */
	mmagen_request_init(&r);
	CHECK(!mmagen_request_set(&r, "family", "mma.sp") && r.family == MMAGEN_FAM_MMA &&
	      r.sparse == MMAGEN_SPARSE_SP, "mma.sp");
	CHECK(!mmagen_request_set(&r, "family", "mma") && r.family == MMAGEN_FAM_MMA &&
	      r.sparse == MMAGEN_SPARSE_NONE, "mma after mma.sp: dense");
	CHECK(!mmagen_request_set(&r, "family", "mma.sync") && r.sparse == MMAGEN_SPARSE_NONE,
	      "mma.sync");
	CHECK(!mmagen_request_set(&r, "family", "tcgen05.mma.sp") &&
	      r.family == MMAGEN_FAM_TCGEN05 && r.sparse == MMAGEN_SPARSE_SP, "tcgen05.mma.sp");
	CHECK(!mmagen_request_set(&r, "family", "ldmatrix") && r.family == MMAGEN_FAM_LDMATRIX &&
	      r.sparse == MMAGEN_SPARSE_SP, "ldmatrix leaves sparse");

	/* shapes: K alone for tcgen05, M and N alone for ldmatrix */
	mmagen_request_init(&r);
	CHECK(!mmagen_request_set(&r, "shape", "m16n8k16") && r.m == 16 && r.n == 8 && r.k == 16,
	      "m16n8k16");
	CHECK(!mmagen_request_set(&r, "shape", "k32") && r.m == 16 && r.n == 8 && r.k == 32,
	      "k32 keeps m and n");
	CHECK(!mmagen_request_set(&r, "shape", "m8n8") && r.m == 8 && r.n == 8 && r.k == 32,
	      "m8n8 keeps k");
	CHECK(!mmagen_request_set(&r, "shape", "m0064n0256k016") && r.m == 64 && r.n == 256 &&
	      r.k == 16, "leading zeros");
	CHECK(!mmagen_request_set(&r, "shape", "m65534n8k16") && r.m == 65534,
	      "m65534: the largest that is not MMAGEN_ANY");

	/* layouts, types (case and a leading dot as mmagen_type_parse takes) */
	mmagen_request_init(&r);
	CHECK(!mmagen_request_set(&r, "layout", "col.row") && r.alayout == MMAGEN_COL &&
	      r.blayout == MMAGEN_ROW, "col.row");
	CHECK(!mmagen_request_set(&r, "a", "BF16") && r.a == MMAGEN_BF16, "BF16");
	CHECK(!mmagen_request_set(&r, "b", ".e4m3") && r.b == MMAGEN_E4M3, ".e4m3");
	CHECK(!mmagen_request_set(&r, "c", "float") && r.c == MMAGEN_F32, "float");
	CHECK(!mmagen_request_set(&r, "d", "int32") && r.d == MMAGEN_S32, "int32");

	/* qualifier aliases, and '_' for '-' in facet names */
	static const struct { const char *facet, *a, *b; } same[] = {
		{ "kind", "f16", "kind::f16" }, { "kind", "none", "kind::none" },
		{ "scale-vec", "2X", "2" }, { "scale_vec", "4X", "4" },
		{ "block-scale", "yes", "true" }, { "block_scale", "no", "0" },
		{ "cta-group", "2", "2" }, { "cta_group", "1", "1" },
		{ "sparse", "none", "dense" }, { "sparse", "ordered", "sp::ordered_metadata" },
		{ "num", "x2", "2" }, { "satfinite", "yes", "1" }, { "ws", "no", "false" },
		{ "ashift", "yes", "true" }, { "trans", "no", "0" },
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		mmagen_request_init(&r);
		mmagen_request_init(&s);
		CHECK(!mmagen_request_set(&r, same[i].facet, same[i].a) &&
		      !mmagen_request_set(&s, same[i].facet, same[i].b) &&
		      !memcmp(&r, &s, sizeof r), "%s: '%s' and '%s' differ (%s)", same[i].facet,
		      same[i].a, same[i].b, mmagen_last_error());
		mmagen_request_init(&s);
		CHECK(memcmp(&r, &s, sizeof r) != 0, "%s %s set nothing", same[i].facet, same[i].a);
	}
	mmagen_request_init(&r);
	CHECK(!mmagen_request_set(&r, "kind", "kind::mxf8f6f4") &&
	      r.kind == MMAGEN_KIND_MXF8F6F4, "kind::mxf8f6f4");
	CHECK(!mmagen_request_set(&r, "scale_vec", "2") && r.scale_vec == 2, "scale_vec 2");
	CHECK(!mmagen_request_set(&r, "cta_group", "2") && r.cta_group == 2, "cta_group 2");
	CHECK(!mmagen_request_set(&r, "block_scale", "yes") && r.block_scale == 1, "block_scale");
	CHECK(!mmagen_request_set(&r, "stype", "ue8m0") && r.stype == MMAGEN_UE8M0, "ue8m0");
	CHECK(!mmagen_request_set(&r, "popc", "xor") && r.bitop == MMAGEN_XOR_POPC, "xor");
	CHECK(!mmagen_request_set(&r, "asrc", "reg") && r.asrc == MMAGEN_ASRC_REG, "reg");
	CHECK(!mmagen_request_set(&r, "rnd", "rm") && r.rnd == MMAGEN_RM, "rm");
	CHECK(!mmagen_request_set(&r, "ldtype", "b4p64") && r.ldtype == MMAGEN_LD_B4P64, "b4p64");
	CHECK(r.target == -1 && r.opcode == NULL && r.size == sizeof r,
	      "target, opcode and size untouched");
}

/* A failure returns `want`, leaves r's bytes as they were and says one
 * line; `text`, when given, is the message or (ending in '*') its start. */
static void bad(const char *facet, const char *value, mmagen_status want, const char *text)
{
	mmagen_request r, before;
	const char *e;

	mmagen_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.m = 64, r.n = 8, r.k = 16, r.sparse = MMAGEN_SPARSE_SP, r.kind = MMAGEN_KIND_F16;
	r.alayout = MMAGEN_COL;
	memcpy(&before, &r, sizeof r);
	mmagen_status s = mmagen_request_set(&r, facet, value);
	e = mmagen_last_error();
	CHECK(s == want, "%s '%.40s': %s, want %s (%s)", facet, value, mmagen_status_str(s),
	      mmagen_status_str(want), e);
	CHECK(!memcmp(&r, &before, sizeof r), "%s '%.40s': the request changed", facet, value);
	CHECK(*e && !strpbrk(e, "\n\r") && strlen(e) < 1024, "%s '%.40s': not one line: %s",
	      facet, value, e);
	for (const unsigned char *p = (const unsigned char *)e; *p; p++)
		if (*p < 0x20 || *p >= 0x7f) {
			fail("%s: byte 0x%02x in the message", facet, *p);
			break;
		}
	if (text && text[strlen(text) - 1] == '*')
		CHECK(!strncmp(e, text, strlen(text) - 1), "%s '%.40s': '%s', want '%s'", facet,
		      value, e, text);
	else if (text)
		CHECK(!strcmp(e, text), "%s '%.40s': '%s', want '%s'", facet, value, e, text);
}

static void test_bad(void)
{
	const char *facets = "unknown facet 'shapes'; facets: family, shape, a, b, c, d, "
		"sparse, layout, satfinite, popc, kind, block-scale, scale-vec, stype, cta-group, "
		"ws, ashift, asrc, rnd, num, trans, ldtype";

	bad("shapes", "m16n8k16", MMAGEN_UNKNOWN_NAME, facets);
	bad("target", "sm_90a", MMAGEN_UNKNOWN_NAME, "unknown facet 'target'; *");
	bad("opcode", "x", MMAGEN_UNKNOWN_NAME, NULL);
	bad("", "x", MMAGEN_UNKNOWN_NAME, "unknown facet ''; *");
	bad("Family", "mma", MMAGEN_UNKNOWN_NAME, NULL);
	bad("--family", "mma", MMAGEN_UNKNOWN_NAME, NULL);
	bad("scale__vec", "2X", MMAGEN_UNKNOWN_NAME, NULL);
	bad("cta-group-", "2", MMAGEN_UNKNOWN_NAME, NULL);
	bad("a\nb", "f16", MMAGEN_UNKNOWN_NAME, "unknown facet 'a\\x0ab'; *");

	bad("family", "mmx", MMAGEN_INVALID_ARGUMENT, "unknown family 'mmx'; legal: mma.sync, "
	    "mma, mma.sp, mma.sp::ordered_metadata, wgmma, wgmma.sp, tcgen05.mma, tcgen05, "
	    "tcgen05.mma.sp, tcgen05.sp, ldmatrix, stmatrix");
	bad("family", "MMA", MMAGEN_INVALID_ARGUMENT, "unknown family 'MMA'; *");
	bad("shape", "m16x8", MMAGEN_INVALID_ARGUMENT,
	    "bad --shape 'm16x8'; write it like m16n8k16 (ldmatrix: m8n8, tcgen05: k16)");
	static const char *const shapes[] = {
		"", "m16", "m16n8k", "m16n8k16x", "m0n8k16", "k0", "n8", "m65535n8k16",
		"m12345678n8k16", "m+16n8k16", " m16n8k16", "m16n8k16 ", "m16k16", "k16m16",
		"M16N8K16", "m-1n8k16",
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		bad("shape", shapes[i], MMAGEN_INVALID_ARGUMENT, "bad --shape *");
	bad("layout", "r.c", MMAGEN_INVALID_ARGUMENT,
	    "bad --layout 'r.c'; legal: row.col, row.row, col.row, col.col");
	bad("layout", "row", MMAGEN_INVALID_ARGUMENT, "bad --layout 'row'; *");
	bad("a", "fp9", MMAGEN_INVALID_ARGUMENT, "--a: unknown element type 'fp9'; did you mean *");
	bad("d", "fp8", MMAGEN_INVALID_ARGUMENT,
	    "--d: unknown element type 'fp8': it names several; use e4m3 or e5m2");
	bad("b", "f1\n6", MMAGEN_INVALID_ARGUMENT, "--b: unknown element type 'f1\\x0a6'*");
	bad("satfinite", "maybe", MMAGEN_INVALID_ARGUMENT,
	    "bad value 'maybe' for --satfinite; legal: no, yes");
	bad("satfinite", "it's", MMAGEN_INVALID_ARGUMENT,
	    "bad value 'it\\x27s' for --satfinite; legal: no, yes");
	bad("sparse", "sparse", MMAGEN_INVALID_ARGUMENT,
	    "bad value 'sparse' for --sparse; legal: none, sp, ordered");
	bad("kind", "kind::foo", MMAGEN_INVALID_ARGUMENT, "bad value 'foo' for --kind; legal: "
	    "none, f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4");
	bad("kind", "kind::", MMAGEN_INVALID_ARGUMENT, "bad value '' for --kind; *");
	bad("kind", ".kind::f16", MMAGEN_INVALID_ARGUMENT, NULL);
	bad("scale_vec", "3X", MMAGEN_INVALID_ARGUMENT,
	    "bad value '3X' for --scale-vec; legal: none, 1X, 2X, 4X, block16, block32");
	bad("cta-group", "3", MMAGEN_INVALID_ARGUMENT,
	    "bad value '3' for --cta-group; legal: 1, 2");
	bad("num", "x3", MMAGEN_INVALID_ARGUMENT, "bad value 'x3' for --num; legal: x1, x2, x4");
	static const char *const quals[] = {
		"popc", "block-scale", "stype", "ws", "ashift", "asrc", "rnd", "trans", "ldtype",
	};
	for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
		char want[64];
		snprintf(want, sizeof want, "bad value 'bogus' for --%s; legal: *", quals[i]);
		bad(quals[i], "bogus", MMAGEN_INVALID_ARGUMENT, want);
	}

	/* a megabyte of value: quoted in part, the message bounded */
	size_t len = 1 << 20;
	char *big = malloc(len + 1);
	if (big) {
		memset(big, '\'', len);
		big[len] = '\0';
		for (unsigned k = 0; mmagen_facet_name(k); k++)
			bad(mmagen_facet_name(k), big, MMAGEN_INVALID_ARGUMENT, NULL);
		bad(big, "x", MMAGEN_UNKNOWN_NAME, NULL);
		free(big);
	}

	/* arguments, and a request that mmagen_request_init did not make */
	mmagen_request r;
	mmagen_request_init(&r);
	CHECK(mmagen_request_set(NULL, "a", "f16") == MMAGEN_INVALID_ARGUMENT, "NULL request");
	CHECK(mmagen_request_set(&r, NULL, "f16") == MMAGEN_INVALID_ARGUMENT, "NULL facet");
	CHECK(mmagen_request_set(&r, "a", NULL) == MMAGEN_INVALID_ARGUMENT, "NULL value");
	r.size = sizeof r + 8;
	CHECK(mmagen_request_set(&r, "a", "f16") == MMAGEN_INVALID_ARGUMENT &&
	      r.a == MMAGEN_ANY && strstr(mmagen_last_error(), "newer mmagen.h"),
	      "a request from a newer mmagen.h: %s", mmagen_last_error());
	r.size = 0;
	CHECK(mmagen_request_set(&r, "a", "f16") == MMAGEN_INVALID_ARGUMENT &&
	      r.a == MMAGEN_ANY, "a request of size 0");
}

/* The facets' promise: on every target, every form's facet values (those
 * that are not "-") select a form with the form's own opcode. */
static void test_round_trip(void)
{
	size_t n = mmagen_form_count(), tried = 0, same_form = 0;
	clock_t c0 = clock();

	CHECK(n > 1000, "table of %zu forms", n);
	for (int t = 0; t < mmagen_target_count(); t++)
		for (size_t i = 0; i < n; i++) {
			const mmagen_form *f = mmagen_form_at(i), *g;
			mmagen_request r;
			char v[64], op[256], op2[256];
			int ok = 1;

			if (!mmagen_form_on_target(f, t))
				continue;
			tried++;
			mmagen_request_init(&r);
			r.target = t;
			for (unsigned k = 0; ok && mmagen_facet_name(k); k++) {
				mmagen_form_facet(f, k, v, sizeof v);
				if (strcmp(v, "-") && mmagen_request_set(&r, mmagen_facet_name(k), v)) {
					fail("%s on %s: facet %s '%s': %s",
					     mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t),
					     mmagen_facet_name(k), v, mmagen_last_error());
					ok = 0;
				}
			}
			if (!ok)
				continue;
			if (mmagen_select(&r, &g)) {
				fail("%s on %s: %s", mmagen_form_opcode(f, op, sizeof op),
				     mmagen_target_name(t), mmagen_last_error());
				continue;
			}
			CHECK(!strcmp(mmagen_form_opcode(f, op, sizeof op),
				      mmagen_form_opcode(g, op2, sizeof op2)),
			      "%s on %s: its facets select %s", op, mmagen_target_name(t), op2);
			same_form += g == f;
		}
	CHECK(tried > 10000, "only %zu (form, target) pairs", tried);
	printf("round trip: %zu (form, target) pairs, %zu selected the form itself, %.1f s\n",
	       tried, same_form, (double)(clock() - c0) / CLOCKS_PER_SEC);
}

int main(void)
{
	test_select();
	test_fields();
	test_bad();
	test_round_trip();
	return check_summary();
}
