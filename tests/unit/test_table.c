/* test_table.c - invariants of the signature table, the seeds' rows, the
 * rules against the table, and selection with its error messages.
 * Usage: test_table SEED_ROWS_FILE */
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void test_no_duplicates(void)
{
	size_t n = mmagen_form_count();
	char op1[256], op2[256];
	int dups = 0;

	/* forms sorted by opcode would be faster; n^2 over ~5k is fine */
	for (size_t i = 0; i < n; i++) {
		const mmagen_form *f = mmagen_form_at(i);
		for (size_t j = i + 1; j < n; j++) {
			const mmagen_form *g = mmagen_form_at(j);
			if (form_equal(f, g)) {
				if (dups++ < 10)
					printf("FAIL: duplicate form %s (rows %u and %u)\n",
					       mmagen_form_opcode(f, op1, sizeof op1), f->row, g->row);
			}
		}
	}
	CHECK(dups == 0, "%d duplicate forms", dups);
	CHECK(n > 1000, "table unexpectedly small: %zu forms", n);
	(void)op2;
}

static void test_every_form_sane(void)
{
	char op[256];
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		int t = mmagen_form_min_target(f);
		mmagen_form_opcode(f, op, sizeof op);
		if (t < 0 || !op[0] || (f->family != MMAGEN_FAM_LDMATRIX &&
		    f->family != MMAGEN_FAM_STMATRIX && (!f->a || !f->b || !f->d))) {
			CHECK(0, "form %zu (%s) has no target, opcode or types", i, op);
			return;
		}
		/* the opcode starts with the family's name */
		if (strncmp(op, mmagen_family_name(f->family), strlen(mmagen_family_name(f->family)))) {
			CHECK(0, "opcode %s does not start with its family", op);
			return;
		}
	}
	CHECK(1, "every form has a target, an opcode and types");
}

static void request_of(const mmagen_form *f, int t, mmagen_request *r)
{
	mmagen_request_init(r);
	r->target = t;
	r->family = f->family; r->sparse = f->sparse;
	r->m = f->m; r->n = f->n; r->k = f->k;
	r->a = f->a; r->b = f->b; r->c = f->c; r->d = f->d;
	r->alayout = f->alayout; r->blayout = f->blayout;
	r->satfinite = f->satfinite; r->bitop = f->bitop; r->kind = f->kind;
	r->block_scale = f->block_scale; r->scale_vec = f->scale_vec;
	r->stype = f->stype; r->cta_group = f->cta_group; r->ws = f->ws;
	r->asrc = f->asrc; r->rnd = f->rnd; r->num = f->num;
	r->trans = f->trans; r->ldtype = f->ldtype; r->ashift = f->ashift;
}

/* A rule must never reject a form the table has, on any of its targets;
 * and every form must be selectable by its own fields and its opcode on
 * its lowest and its highest target (selection scans the table, so every
 * target would cost minutes). */
static void test_rules_agree_with_table(void)
{
	char op[256];
	int bad = 0, unsel = 0;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		for (int t = 0; t < mmagen_target_count(); t++) {
			if (!mmagen_form_on_target(f, t))
				continue;
			mmagen_request r;
			const char *name;
			const mmagen_form *got;
			request_of(f, t, &r);
			if (mmagen_rule_broken(&r, &name) && bad++ < 10)
				printf("FAIL: rule %s rejects table form %s on %s\n", name,
				       mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t));
			int last = t + 1;
			while (last < mmagen_target_count() && !mmagen_form_on_target(f, last))
				last++;
			if (t != mmagen_form_min_target(f) && last < mmagen_target_count())
				continue;
			if ((mmagen_select(&r, &got) || !form_equal(got, f)) &&
			    f->family != MMAGEN_FAM_TCGEN05 && unsel++ < 10)
				printf("FAIL: form %s not selectable by its fields on %s: %s\n",
				       mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t),
				       mmagen_last_error());
			mmagen_request_init(&r);
			r.target = t;
			r.opcode = mmagen_form_opcode(f, op, sizeof op);
			if (mmagen_select(&r, &got) && unsel++ < 10)
				printf("FAIL: opcode %s not selectable on %s: %s\n", op,
				       mmagen_target_name(t), mmagen_last_error());
		}
	}
	CHECK(bad == 0, "%d table forms broke a rule", bad);
	CHECK(unsel == 0, "%d forms could not be selected", unsel);
}

static int parse_kind(const char *s)
{
	static const char *const k[] = {
		"",
#define X(id, str) str,
		MMAGEN_KIND_LIST(X)
#undef X
	};
	for (size_t i = 1; i < ARRAY_SIZE(k); i++)
		if (!strcmp(s, k[i]))
			return (int)i;
	return -1;
}

static void test_seed_rows(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	int rows = 0;

	CHECK(fp != NULL, "cannot open %s", path);
	if (!fp)
		return;
	while (fgets(line, sizeof line, fp)) {
		char tg[16], fam[16], sp[16], shape[32], a[8], b[8], c[8], d[8];
		char kind[16] = "", stype[8] = "";
		if (line[0] == '#' || line[0] == '\n')
			continue;
		int nf = sscanf(line, "%15s %15s %15s %31s %7s %7s %7s %7s %15s %7s", tg, fam,
				sp, shape, a, b, c, d, kind, stype);
		CHECK(nf >= 8, "bad seed row: %s", line);
		if (nf < 8)
			continue;
		mmagen_request r;
		mmagen_request_init(&r);
		mmagen_type ta, tb, tc, td, ts;
		int t, ok = !mmagen_target_parse(tg, &t) && !mmagen_type_parse(a, &ta) &&
			    !mmagen_type_parse(b, &tb) && !mmagen_type_parse(c, &tc) &&
			    !mmagen_type_parse(d, &td);
		r.family = !strcmp(fam, "mma") ? MMAGEN_FAM_MMA :
			   !strcmp(fam, "wgmma") ? MMAGEN_FAM_WGMMA : MMAGEN_FAM_TCGEN05;
		r.sparse = !strcmp(sp, "dense") ? MMAGEN_SPARSE_NONE :
			   !strcmp(sp, "sp") ? MMAGEN_SPARSE_SP : MMAGEN_SPARSE_ORDERED;
		mmagen_form sh;
		memset(&sh, 0, sizeof sh);
		ok = ok && !form_parse_shape(&sh, shape, strlen(shape));
		r.m = sh.m ? sh.m : MMAGEN_ANY;
		r.n = sh.n ? sh.n : MMAGEN_ANY;
		r.k = sh.k;
		r.target = t;
		r.a = ta; r.b = tb; r.c = tc; r.d = td;
		r.kind = kind[0] ? (unsigned)parse_kind(kind) : MMAGEN_KIND_NONE;
		if (stype[0] && !mmagen_type_parse(stype, &ts))
			r.stype = ts;
		if (r.family != MMAGEN_FAM_MMA && !kind[0])
			r.kind = MMAGEN_ANY;
		int found = 0;
		for (size_t i = 0; ok && !found && i < mmagen_form_count(); i++) {
			const mmagen_form *f = mmagen_form_at(i);
			mmagen_request fr;
			if (!mmagen_form_on_target(f, t))
				continue;
			request_of(f, t, &fr);
			found = fr.family == r.family && fr.sparse == r.sparse &&
				(r.m == MMAGEN_ANY || fr.m == r.m) &&
				(r.n == MMAGEN_ANY || fr.n == r.n) && fr.k == r.k &&
				fr.a == r.a && fr.b == r.b && fr.c == r.c && fr.d == r.d &&
				(r.kind == MMAGEN_ANY || fr.kind == r.kind) &&
				(r.stype == MMAGEN_ANY || fr.stype == r.stype);
		}
		line[strcspn(line, "\n")] = '\0';
		CHECK(found, "seed row not in the table: %s", line);
		rows++;
	}
	fclose(fp);
	CHECK(rows >= 80, "only %d seed rows read", rows);
}

/* Selection: a rejected request names the rule and legal alternatives. */
struct sel_case {
	const char *target, *family, *shape, *a, *b, *c, *d;
	mmagen_status want;
	const char *substr;
};

static void test_selection(void)
{
	static const struct sel_case cases[] = {
		{ "sm_90a", "wgmma", NULL, "s4", "s4", NULL, NULL, MMAGEN_ILLEGAL_FORM,
		  "wgmma has no s4/u4 (INT4) form; INT4 runs only through mma.sync" },
		{ "sm_90", "mma", "m16n8k16", "bf16", "bf16", "f16", "f16", MMAGEN_ILLEGAL_FORM,
		  "bf16 and tf32 inputs accumulate only in f32" },
		{ "sm_90", "wgmma", "m64n64k16", "f16", "f16", "f32", "f32", MMAGEN_ILLEGAL_FORM,
		  "wgmma needs target sm_90a, not sm_90" },
		{ "sm_120a", "tcgen05", NULL, "f16", "f16", "f32", "f32", MMAGEN_ILLEGAL_FORM,
		  "tcgen05 does not exist on sm_120a; use mma.sync kind::f8f6f4" },
		{ "sm_80", "mma", "m16n8k32", "e4m3", "e4m3", "f32", "f32", MMAGEN_ILLEGAL_FORM,
		  "needs sm_89 or newer" },
		{ "sm_90a", "mma", "m16n8k32", "e2m1", "e2m1", "f32", "f32", MMAGEN_ILLEGAL_FORM,
		  "exists only on the sm_120 family" },
		{ "sm_90", "mma", "m16n8k16", "f16", "f16", "f32", "f32", MMAGEN_OK, NULL },
		{ "sm_90", "mma", "m16n8k16", "f16", "f16", NULL, NULL, MMAGEN_AMBIGUOUS,
		  "that differ in --c (f16, f32), --d (f16, f32); give those fields" },
		{ "sm_90", "mma", "m16n8k12", "f16", "f16", "f32", "f32", MMAGEN_ILLEGAL_FORM,
		  "nearest legal on sm_90: mma.sync.aligned.m16n8k" },
		{ "sm_75", "mma", "m16n8k16", "bf16", "bf16", "f32", "f32", MMAGEN_TARGET,
		  "needs target sm_80" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct sel_case *c = &cases[i];
		mmagen_request r;
		const mmagen_form *f;
		mmagen_type ty;
		mmagen_request_init(&r);
		mmagen_target_parse(c->target, &r.target);
		r.family = !strcmp(c->family, "mma") ? MMAGEN_FAM_MMA :
			   !strcmp(c->family, "wgmma") ? MMAGEN_FAM_WGMMA : MMAGEN_FAM_TCGEN05;
		r.sparse = MMAGEN_SPARSE_NONE;
		if (c->shape) {
			mmagen_form sh;
			form_parse_shape(&sh, c->shape, strlen(c->shape));
			r.m = sh.m; r.n = sh.n; r.k = sh.k;
		}
		if (c->a && !mmagen_type_parse(c->a, &ty)) r.a = ty;
		if (c->b && !mmagen_type_parse(c->b, &ty)) r.b = ty;
		if (c->c && !mmagen_type_parse(c->c, &ty)) r.c = ty;
		if (c->d && !mmagen_type_parse(c->d, &ty)) r.d = ty;
		mmagen_status s = mmagen_select(&r, &f);
		CHECK(s == c->want, "case %zu: status %s, want %s (%s)", i, mmagen_status_str(s),
		      mmagen_status_str(c->want), mmagen_last_error());
		if (c->substr)
			CHECK(strstr(mmagen_last_error(), c->substr) != NULL,
			      "case %zu: message '%s' lacks '%s'", i, mmagen_last_error(), c->substr);
		if (s)
			CHECK(!strchr(mmagen_last_error(), '\n'), "case %zu: message is not one line", i);
	}
}

/* targets.def's GEMM and shared-memory columns agree with its features
 * and with the values the GEMM planners were written against. */
static void test_target_columns(void)
{
	for (int t = 0; t < T_COUNT; t++) {
		unsigned g = mmagen_target_gemm(t);
		uint32_t f = mmagen_target_features(t);
		const char *nm = mmagen_target_name(t);
		CHECK(!(g & GEMM_SYNC_DEF) || (g & GEMM_SYNC), "%s: GEMM_SYNC_DEF without GEMM_SYNC", nm);
		CHECK(!(g & GEMM_SYNC) || (f & F_SM80), "%s: mma.sync GEMM without F_SM80", nm);
		CHECK(!(g & GEMM_WGMMA) || (f & F_WGMMA), "%s: wgmma GEMM without F_WGMMA", nm);
		CHECK(!(g & GEMM_WGMMA) || !(g & GEMM_SYNC_DEF), "%s: two default GEMM paths", nm);
		CHECK(!(g & GEMM_BS) || (g == GEMM_BS && mmagen_targets[t].sm >= 120),
		      "%s: the SM120 GEMM takes every request of an sm_12x target", nm);
		CHECK(!g || mmagen_target_smem(t) >= 99u * 1024u,
		      "%s: a GEMM target without its shared memory", nm);
		CHECK(mmagen_target_smem(t) % 1024u == 0, "%s: shared memory not whole KiB", nm);
	}
	static const struct { const char *name; unsigned gemm, kib; } want[] = {
		{ "sm_80", GEMM_SYNC | GEMM_SYNC_DEF, 163 }, { "sm_86", GEMM_SYNC | GEMM_SYNC_DEF, 99 },
		{ "sm_89", GEMM_SYNC | GEMM_SYNC_DEF, 99 }, { "sm_90", GEMM_SYNC, 227 },
		{ "sm_90a", GEMM_SYNC | GEMM_WGMMA, 227 }, { "sm_100a", 0, 227 },
		{ "sm_120a", GEMM_BS, 99 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int t = -1;
		CHECK(mmagen_target_parse(want[i].name, &t) == MMAGEN_OK, "parse %s", want[i].name);
		CHECK(mmagen_target_gemm(t) == want[i].gemm, "%s: gemm %#x, not %#x", want[i].name,
		      mmagen_target_gemm(t), want[i].gemm);
		CHECK(mmagen_target_smem(t) == want[i].kib * 1024u, "%s: smem %u, not %u KiB",
		      want[i].name, mmagen_target_smem(t), want[i].kib);
	}
	CHECK(!mmagen_target_gemm(-1) && !mmagen_target_smem(T_COUNT) && !mmagen_target_features(T_COUNT),
	      "out-of-range targets have no columns");
}

/* The type table's classes against the types' names and widths. */
static void test_type_classes(void)
{
	static const struct { mmagen_type t; unsigned cls; } want[] = {
		{ MMAGEN_E4M3, TYPE_FLOAT | TYPE_FP8 }, { MMAGEN_E5M2, TYPE_FLOAT | TYPE_FP8 },
		{ MMAGEN_E3M2, TYPE_FLOAT | TYPE_FP6 | TYPE_SUB }, { MMAGEN_E2M3, TYPE_FLOAT | TYPE_FP6 | TYPE_SUB },
		{ MMAGEN_E2M1, TYPE_FLOAT | TYPE_FP4 | TYPE_SUB }, { MMAGEN_S8, TYPE_INT },
		{ MMAGEN_U8, TYPE_INT }, { MMAGEN_S4, TYPE_INT | TYPE_SUB }, { MMAGEN_U4, TYPE_INT | TYPE_SUB },
		{ MMAGEN_S32, TYPE_INT }, { MMAGEN_B1, TYPE_SUB }, { MMAGEN_BF16, TYPE_FLOAT },
		{ MMAGEN_UE8M0, TYPE_FLOAT | TYPE_SCALE }, { MMAGEN_UE4M3, TYPE_FLOAT | TYPE_SCALE },
		{ MMAGEN_TYPE_NONE, 0 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		CHECK(mmagen_type_class(want[i].t) == want[i].cls, "%s: class %#x, not %#x",
		      mmagen_type_name(want[i].t), mmagen_type_class(want[i].t), want[i].cls);
	for (int t = 1; t < MMAGEN_TYPE_COUNT; t++) {
		unsigned c = mmagen_type_class((mmagen_type)t), bits = mmagen_type_bits((mmagen_type)t);
		CHECK(!(c & TYPE_SUB) == (bits >= 8), "%s: sub-byte class and %u bits disagree",
		      mmagen_type_name((mmagen_type)t), bits);
		CHECK(!(c & TYPE_FLOAT) != !(c & TYPE_INT) || c == TYPE_SUB,
		      "%s: float or integer, one of them", mmagen_type_name((mmagen_type)t));
	}
	CHECK(mmagen_type_class((mmagen_type)MMAGEN_TYPE_COUNT) == 0, "out of range: no class");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_table SEED_ROWS\n");
		return 2;
	}
	test_no_duplicates();
	test_every_form_sane();
	test_rules_agree_with_table();
	test_seed_rows(argv[1]);
	test_selection();
	test_target_columns();
	test_type_classes();
	return check_summary();
}
