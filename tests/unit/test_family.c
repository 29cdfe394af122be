/* test_family.c - the family list (gen/table/family.c), the qualifier table
 * (gen/table/qual.c), the shared register rules (gen/emit/layout.c) and the errors
 * that must not vanish.  Expectations are written out here, not read
 * back from the tables under test.
 * Exit status 0 on pass, 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "emit.h"
#include "family.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* ---- families ---- */

static void test_family_names(void)
{
	static const char *const want[] = {
		[MMAGEN_FAM_MMA] = "mma", [MMAGEN_FAM_WGMMA] = "wgmma",
		[MMAGEN_FAM_TCGEN05] = "tcgen05", [MMAGEN_FAM_LDMATRIX] = "ldmatrix",
		[MMAGEN_FAM_STMATRIX] = "stmatrix",
	};
	for (int f = 1; f < MMAGEN_FAM_END; f++) {
		const struct family *fam = family_of(f);
		CHECK(fam && fam->emit && fam->doc_title && fam->cli[0].name,
		      "family %d: incomplete entry", f);
		CHECK(!strcmp(mmagen_family_name(f), want[f]), "family %d is '%s', want '%s'",
		      f, mmagen_family_name(f), want[f]);
		CHECK(family_emitter(f) == (fam ? fam->emit : NULL), "family %d: emitter", f);
		unsigned fm = 0, sp = 0;
		CHECK(mmagen_family_parse(want[f], &fm, &sp) == MMAGEN_OK && fm == (unsigned)f,
		      "parse '%s'", want[f]);
	}
	CHECK(!strcmp(mmagen_family_name(0), "unknown") &&
	      !strcmp(mmagen_family_name(MMAGEN_FAM_END), "unknown"), "out-of-range names");
	CHECK(family_of(0) == NULL && family_of(MMAGEN_FAM_END) == NULL &&
	      family_emitter(-1) == NULL, "out-of-range entries");
}

static void test_family_parse(void)
{
	static const struct { const char *s; unsigned fam, sparse; } cases[] = {
		{ "mma", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sync", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sp", MMAGEN_FAM_MMA, MMAGEN_SPARSE_SP },
		{ "mma.sp::ordered_metadata", MMAGEN_FAM_MMA, MMAGEN_SPARSE_ORDERED },
		{ "wgmma", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_NONE },
		{ "wgmma.sp", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_SP },
		{ "tcgen05", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.mma", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.sp", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_SP },
		{ "tcgen05.mma.sp", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_SP },
		{ "ldmatrix", MMAGEN_FAM_LDMATRIX, MMAGEN_ANY },
		{ "stmatrix", MMAGEN_FAM_STMATRIX, MMAGEN_ANY },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned fam = 99, sp = 99;
		mmagen_status s = mmagen_family_parse(cases[i].s, &fam, &sp);
		CHECK(s == MMAGEN_OK && fam == cases[i].fam && sp == cases[i].sparse,
		      "parse '%s': status %d family %u sparse %u", cases[i].s, s, fam, sp);
	}
	unsigned fam, sp;
	CHECK(mmagen_family_parse("hgmma", &fam, &sp) == MMAGEN_UNKNOWN_NAME &&
	      strstr(mmagen_last_error(), "unknown family 'hgmma'") &&
	      strstr(mmagen_last_error(), "legal: mma.sync, mma, mma.sp"),
	      "bad family: '%s'", mmagen_last_error());
	CHECK(mmagen_family_parse(NULL, &fam, &sp) == MMAGEN_INVALID_ARGUMENT, "NULL name");
}

static void test_family_labels(void)
{
	static const char *const want[][3] = {
		[MMAGEN_FAM_MMA] = { "mma.sync", "mma.sp", "mma.sp::ordered_metadata" },
		[MMAGEN_FAM_WGMMA] = { "wgmma", "wgmma.sp", NULL },
		[MMAGEN_FAM_TCGEN05] = { "tcgen05.mma", "tcgen05.mma.sp", NULL },
		[MMAGEN_FAM_LDMATRIX] = { "ldmatrix", NULL, NULL },
		[MMAGEN_FAM_STMATRIX] = { "stmatrix", NULL, NULL },
	};
	unsigned seen = 0;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		const char *w = want[f->family][f->sparse];
		const char *got = mmagen_form_family_label(f);
		if (!w || strcmp(got, w)) {
			fail("form %zu: label '%s', want '%s'", i, got, w ? w : "(none)");
			return;
		}
		seen |= 1u << (f->family * 3 + f->sparse);
	}
	/* every (family, sparsity) pair above occurs in the table */
	unsigned all = 0;
	for (int fam = 1; fam < MMAGEN_FAM_END; fam++)
		for (int sp = 0; sp < 3; sp++)
			if (want[fam][sp])
				all |= 1u << (fam * 3 + sp);
	CHECK(seen == all, "labels: pairs seen %#x, want %#x", seen, all);
	mmagen_form bad = { .family = 77 };
	CHECK(!strcmp(mmagen_form_family_label(&bad), "unknown"), "label of a bad family");
}

/* ---- qualifiers ---- */

/* (field, value, CLI name, PTX spelling) written out from the PTX ISA and
 * docs/cli.md. */
static const struct {
	int field;
	unsigned value;
	const char *cli, *ptx;
} known[] = {
	{ MMAGEN_Q_SPARSE, MMAGEN_SPARSE_SP, "sp", ".sp" },
	{ MMAGEN_Q_SPARSE, MMAGEN_SPARSE_ORDERED, "ordered", ".sp::ordered_metadata" },
	{ MMAGEN_Q_LAYOUT, MMAGEN_COL, "col", ".col" },
	{ MMAGEN_Q_SATFINITE, 1, "yes", ".satfinite" },
	{ MMAGEN_Q_BITOP, MMAGEN_AND_POPC, "and", ".and.popc" },
	{ MMAGEN_Q_BITOP, MMAGEN_XOR_POPC, "xor", ".xor.popc" },
	{ MMAGEN_Q_KIND, MMAGEN_KIND_MXF4NVF4, "mxf4nvf4", ".kind::mxf4nvf4" },
	{ MMAGEN_Q_KIND, MMAGEN_KIND_I8, "i8", ".kind::i8" },
	{ MMAGEN_Q_BLOCK_SCALE, 1, "yes", ".block_scale" },
	{ MMAGEN_Q_SCALE_VEC, 2, "2X", ".scale_vec::2X" },
	{ MMAGEN_Q_SCALE_VEC, 32, "block32", ".block32" },
	{ MMAGEN_Q_STYPE, MMAGEN_UE4M3, "ue4m3", ".ue4m3" },
	{ MMAGEN_Q_CTA_GROUP, 2, "2", ".cta_group::2" },
	{ MMAGEN_Q_WS, 1, "yes", ".ws" },
	{ MMAGEN_Q_ASRC, MMAGEN_ASRC_TMEM, "tmem", NULL },
	{ MMAGEN_Q_RND, MMAGEN_RZ, "rz", ".rz" },
	{ MMAGEN_Q_NUM, 4, "x4", ".x4" },
	{ MMAGEN_Q_TRANS, 1, "yes", ".trans" },
	{ MMAGEN_Q_LDTYPE, MMAGEN_LD_B6P32, "b6p32", ".b8x16.b6x16_p32" },
};

static void test_qual_known(void)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		const struct qual *q = qual_find(known[i].field, known[i].value);
		const char *name = mmagen_qual_name(known[i].field, known[i].value);
		CHECK(name && !strcmp(name, known[i].cli), "field %d value %u: CLI name '%s', want '%s'",
		      known[i].field, known[i].value, name ? name : "(null)", known[i].cli);
		CHECK(q && (known[i].ptx ? q->ptx && !strcmp(q->ptx, known[i].ptx) : !q->ptx),
		      "field %d value %u: PTX '%s', want '%s'", known[i].field, known[i].value,
		      q && q->ptx ? q->ptx : "(null)", known[i].ptx ? known[i].ptx : "(null)");
		unsigned v = 999;
		CHECK(mmagen_qual_parse(known[i].field, known[i].cli, &v) == MMAGEN_OK &&
		      v == known[i].value, "parse '%s' for field %d: %u", known[i].cli,
		      known[i].field, v);
	}
}

static void test_qual_parse(void)
{
	static const struct { int field; const char *s; unsigned v; } aliases[] = {
		{ MMAGEN_Q_SPARSE, "dense", MMAGEN_SPARSE_NONE },
		{ MMAGEN_Q_SPARSE, "none", MMAGEN_SPARSE_NONE },
		{ MMAGEN_Q_SPARSE, "sp::ordered_metadata", MMAGEN_SPARSE_ORDERED },
		{ MMAGEN_Q_SCALE_VEC, "4", 4 }, { MMAGEN_Q_SCALE_VEC, "none", 0 },
		{ MMAGEN_Q_NUM, "2", 2 }, { MMAGEN_Q_WS, "true", 1 },
		{ MMAGEN_Q_TRANS, "0", 0 }, { MMAGEN_Q_SATFINITE, "no", 0 },
		{ MMAGEN_Q_KIND, "none", MMAGEN_KIND_NONE }, { MMAGEN_Q_KIND, "f16", MMAGEN_KIND_F16 },
		{ MMAGEN_Q_BITOP, "xor", MMAGEN_XOR_POPC }, { MMAGEN_Q_ASRC, "smem", MMAGEN_ASRC_SMEM },
	};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		unsigned v = 999;
		CHECK(mmagen_qual_parse(aliases[i].field, aliases[i].s, &v) == MMAGEN_OK &&
		      v == aliases[i].v, "alias '%s' of field %d: got %u", aliases[i].s,
		      aliases[i].field, v);
	}
	unsigned v;
	CHECK(mmagen_qual_parse(MMAGEN_Q_BITOP, "or", &v) == MMAGEN_UNKNOWN_NAME &&
	      !strcmp(mmagen_last_error(), "bad value 'or' for --popc; legal: none, xor, and"),
	      "bad popc: '%s'", mmagen_last_error());
	CHECK(mmagen_qual_parse(MMAGEN_Q_END, "x", &v) == MMAGEN_INVALID_ARGUMENT, "bad field");
	CHECK(mmagen_qual_name(MMAGEN_Q_CTA_GROUP, 3) == NULL, "no name for cta_group 3");
	char buf[128];
	CHECK(!strcmp(mmagen_qual_legal(MMAGEN_Q_NUM, buf, sizeof buf), "x1, 1, x2, 2, x4, 4"),
	      "legal num: '%s'", buf);
	CHECK(!strcmp(mmagen_qual_field_name(MMAGEN_Q_SCALE_VEC), "scale-vec") &&
	      !strcmp(mmagen_qual_field_name(MMAGEN_Q_BITOP), "popc") &&
	      mmagen_qual_field_name(MMAGEN_Q_END) == NULL, "field names");
	/* every CLI name of every field parses back to its own value */
	for (int q = 0; q < MMAGEN_Q_END; q++)
		for (unsigned val = 0; val < 256; val++) {
			const char *name = mmagen_qual_name(q, val);
			unsigned back = 999;
			if (name)
				CHECK(mmagen_qual_parse(q, name, &back) == MMAGEN_OK && back == val,
				      "field %d: '%s' parses to %u, not %u", q, name, back, val);
		}
}

/* Every qualifier value of every table form has its row, and the opcode
 * shows the spellings of the values it has (tcgen05 keeps the scale type
 * in its instruction descriptor, not in the opcode). */
static void test_qual_forms(void)
{
	char op[256];
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		mmagen_form_opcode(f, op, sizeof op);
		for (int q = 0; q < MMAGEN_Q_END; q++) {
			unsigned v = qual_get(f, q);
			const struct qual *r = qual_find(q, v);
			if (!r && v) {
				fail("form %zu (%s): field %d value %u has no row", i, op, q, v);
				return;
			}
			int in_idesc = f->family == MMAGEN_FAM_TCGEN05 && q == MMAGEN_Q_STYPE;
			if (r && r->ptx && r->ptx[0] && !in_idesc && !strstr(op, r->ptx)) {
				fail("form %zu: '%s' lacks '%s'", i, op, r->ptx);
				return;
			}
		}
		passed++;
	}
}

/* Complete opcodes as the PTX ISA writes them (ptxas 13.0 takes each):
 * each must be the opcode of some form of the table. */
static void test_opcodes(void)
{
	static const char *const want[] = {
		"mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc",
		"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.u4.s32",
		"mma.sync.aligned.m16n8k16.row.col.rz.f64.f64.f64.f64",
		"mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4."
		"block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
		"wgmma.mma_async.sp.sync.aligned.m64n160k64.satfinite.s32.u8.u8",
		"tcgen05.mma.ws.sp.cta_group::1.kind::i8",
		"tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32",
		"ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32",
		"stmatrix.sync.aligned.m16n8.x1.trans.shared.b8",
	};
	char op[256];
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		int found = 0;
		for (size_t i = 0; i < mmagen_form_count() && !found; i++)
			found = !strcmp(mmagen_form_opcode(mmagen_form_at(i), op, sizeof op),
					want[w]);
		CHECK(found, "no form prints '%s'", want[w]);
	}
}

/* The sigs.def tokens: each sets its field, "-" nothing, others fail. */
static void test_tokens(void)
{
	static const struct { const char *tok; int field; unsigned v; } toks[] = {
		{ "satfinite", MMAGEN_Q_SATFINITE, 1 }, { "and", MMAGEN_Q_BITOP, MMAGEN_AND_POPC },
		{ "kind::mxf8f6f4", MMAGEN_Q_KIND, MMAGEN_KIND_MXF8F6F4 },
		{ "blk16", MMAGEN_Q_SCALE_VEC, 16 }, { "sv4", MMAGEN_Q_SCALE_VEC, 4 },
		{ "ue8m0", MMAGEN_Q_STYPE, MMAGEN_UE8M0 }, { "cta2", MMAGEN_Q_CTA_GROUP, 2 },
		{ "ws", MMAGEN_Q_WS, 1 }, { "atmem", MMAGEN_Q_ASRC, MMAGEN_ASRC_TMEM },
		{ "rp", MMAGEN_Q_RND, MMAGEN_RP }, { "x2", MMAGEN_Q_NUM, 2 },
		{ "trans", MMAGEN_Q_TRANS, 1 }, { "b4p64", MMAGEN_Q_LDTYPE, MMAGEN_LD_B4P64 },
		{ "block_scale", MMAGEN_Q_BLOCK_SCALE, 1 },
	};
	for (size_t i = 0; i < sizeof toks / sizeof toks[0]; i++) {
		mmagen_form f;
		memset(&f, 0, sizeof f);
		int rc = form_apply_token(&f, toks[i].tok, strlen(toks[i].tok));
		CHECK(rc == 0 && qual_get(&f, toks[i].field) == toks[i].v,
		      "token '%s': rc %d value %u", toks[i].tok, rc, qual_get(&f, toks[i].field));
	}
	mmagen_form f, zero;
	memset(&f, 0, sizeof f);
	memset(&zero, 0, sizeof zero);
	CHECK(form_apply_token(&f, "-", 1) == 0 && !memcmp(&f, &zero, sizeof f), "'-'");
	CHECK(form_apply_token(&f, "satfinit", 8) == -1, "unknown token");
	/* sparse and layout have their own columns */
	CHECK(form_apply_token(&f, "sp", 2) == -1 && form_apply_token(&f, "row", 3) == -1,
	      "column tokens in the quals column");
}

/* ---- shared rules, statuses, vanishing errors ---- */

static void test_rules(void)
{
	CHECK(frag_regs(0, 16, MMAGEN_F16) == 1, "empty fragment takes one register");
	CHECK(frag_regs(4, 16, MMAGEN_F16) == 2, "4 f16: 2 registers");
	CHECK(frag_regs(3, 8, MMAGEN_E4M3) == 1, "3 bytes: 1 register");
	CHECK(frag_regs(2, 64, MMAGEN_F64) == 2, "2 f64: 2 registers");
	CHECK(frag_regs(32, 1, MMAGEN_B1) == 1, "32 b1: 1 register");
	mmagen_form f = { .family = MMAGEN_FAM_MMA, .kind = MMAGEN_KIND_F8F6F4 };
	CHECK(form_container_bits(&f, MMAGEN_E2M1) == 8, "f8f6f4 e2m1 in bytes");
	f.kind = MMAGEN_KIND_MXF8F6F4;
	CHECK(form_container_bits(&f, MMAGEN_E3M2) == 8, "mxf8f6f4 e3m2 in bytes");
	f.kind = MMAGEN_KIND_MXF4;
	CHECK(form_container_bits(&f, MMAGEN_E2M1) == 4, "mxf4 e2m1 packed");
	f.kind = 0;
	CHECK(form_container_bits(&f, MMAGEN_BF16) == 16, "bf16");
}

static void test_errors(void)
{
	CHECK(!strcmp(mmagen_status_str(MMAGEN_INTERNAL), "MMAGEN_INTERNAL"), "INTERNAL name");
	CHECK(MMAGEN_INTERNAL != MMAGEN_UNSUPPORTED, "INTERNAL is its own status");

	char *out = NULL;
	mmagen_form bad = { .family = 42 };
	CHECK(mmagen_emit_instr(&bad, 0, MMAGEN_FMT_PTX, &out, NULL) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "not a form of the table"), "bad form: '%s'",
	      mmagen_last_error());
	char op[64] = "x";
	CHECK(!strcmp(mmagen_form_opcode(&bad, op, sizeof op), ""), "opcode of a bad form");

#ifndef NDEBUG
	/* one operand past MAX_OPS is a bug: the child must die on the assert */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct instr in;
		memset(&in, 0, sizeof in);
		freopen("/dev/null", "w", stderr);
		for (int i = 0; i <= MAX_OPS; i++)
			instr_add(&in, "x", OP_REG, 1, R_B32, DIR_IN);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
	      "instr_add past MAX_OPS must assert (status %#x)", st);
#endif
}

int main(void)
{
	test_family_names();
	test_family_parse();
	test_family_labels();
	test_qual_known();
	test_qual_parse();
	test_qual_forms();
	test_opcodes();
	test_tokens();
	test_rules();
	test_errors();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
