/* test_select.c - facets (a form's selector fields as the command line
 * spells them), the defaults a selection takes, and the cost and wording
 * of failed selections, through the public API only. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define NF 22

/* the option names, written here by hand (docs/cli.md's selector) */
static const char *const want_names[NF] = {
	"family", "shape", "a", "b", "c", "d", "sparse", "layout", "satfinite",
	"popc", "kind", "block-scale", "scale-vec", "stype", "cta-group", "ws",
	"ashift", "asrc", "rnd", "num", "trans", "ldtype",
};

static void test_names(void)
{
	for (unsigned i = 0; i < NF; i++)
		CHECK(mmagen_facet_name(i) && !strcmp(mmagen_facet_name(i), want_names[i]),
		      "facet %u is '%s', want '%s'", i,
		      mmagen_facet_name(i) ? mmagen_facet_name(i) : "(null)", want_names[i]);
	CHECK(mmagen_facet_name(NF) == NULL, "a facet past the last");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every form has a distinct tuple of facet values: a listing of them
 * tells every form apart. */
static void test_unique(void)
{
	size_t n = mmagen_form_count(), dups = 0;
	char **rows = calloc(n, sizeof *rows);

	CHECK(rows && n > 1000, "table of %zu forms", n);
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++) {
		char line[1024] = "", v[64];
		for (unsigned k = 0; k < NF; k++) {
			mmagen_form_facet(mmagen_form_at(i), k, v, sizeof v);
			CHECK(v[0] != '\0', "form %zu: facet %s is empty", i, want_names[k]);
			strcat(line, v);
			strcat(line, "|");
		}
		rows[i] = strdup(line);
	}
	qsort(rows, n, sizeof *rows, cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(rows[i], rows[i - 1]) && dups++ < 5)
			printf("FAIL: two forms are %s\n", rows[i]);
	CHECK(dups == 0, "%zu forms share their facets", dups);
	for (size_t i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}

/* Facet values of known forms, and short buffers. */
static void test_values(void)
{
	mmagen_request r;
	const mmagen_form *f;
	char v[64];

	mmagen_request_init(&r);
	mmagen_target_parse("sm_100a", &r.target);
	r.opcode = "tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.block16";
	r.stype = MMAGEN_UE8M0;
	r.asrc = MMAGEN_ASRC_TMEM;
	CHECK(!mmagen_select(&r, &f), "select: %s", mmagen_last_error());
	if (mmagen_select(&r, &f))
		return;
	static const char *const want[NF] = {
		"tcgen05.mma.sp", "k128", "e2m1", "e2m1", "f32", "f32", "sp", "-", "no",
		"none", "mxf4nvf4", "yes", "block16", "ue8m0", "2", "no", "no", "tmem",
		"none", "-", "no", "-",
	};
	for (unsigned k = 0; k < NF; k++)
		CHECK(!strcmp(mmagen_form_facet(f, k, v, sizeof v), want[k]),
		      "facet %s is '%s', want '%s'", want_names[k], v, want[k]);
	CHECK(mmagen_select_defaults(&r, f) == 0, "a complete request took defaults");
	/* without stype and asrc: exactly those two were defaulted */
	r.stype = r.asrc = MMAGEN_ANY;
	CHECK(!mmagen_select(&r, &f), "select: %s", mmagen_last_error());
	uint32_t m = mmagen_select_defaults(&r, f);
	CHECK(m == (1u << 13 | 1u << 17), "defaults mask %#x, want stype and asrc", (unsigned)m);
	/* a short buffer is cut, never overrun */
	char small[6];
	memset(small, 'X', sizeof small);
	mmagen_form_facet(f, 0, small, 4);
	CHECK(!strcmp(small, "tcg") && small[4] == 'X', "short buffer: '%s'", small);
	CHECK(!strcmp(mmagen_form_facet(NULL, 0, v, sizeof v), ""), "NULL form");
	CHECK(!strcmp(mmagen_form_facet(f, NF, v, sizeof v), ""), "facet past the last");
}

/* An opcode alone takes defaults exactly when another form on the target
 * prints the same opcode (counted here by comparing opcodes). */
static void test_defaults_by_opcode(void)
{
	size_t n = mmagen_form_count();
	char op[256], op2[256];
	int with = 0, without = 0;

	for (size_t i = 0; i < n; i += 23) {
		const mmagen_form *f = mmagen_form_at(i), *g;
		mmagen_request r;
		int t = mmagen_form_min_target(f), same = 0;

		mmagen_form_opcode(f, op, sizeof op);
		for (size_t j = 0; j < n; j++)
			same += mmagen_form_on_target(mmagen_form_at(j), t) &&
				!strcmp(mmagen_form_opcode(mmagen_form_at(j), op2, sizeof op2), op);
		mmagen_request_init(&r);
		r.target = t;
		r.opcode = op;
		if (mmagen_select(&r, &g)) {
			CHECK(0, "%s on %s: %s", op, mmagen_target_name(t), mmagen_last_error());
			continue;
		}
		uint32_t m = mmagen_select_defaults(&r, g);
		CHECK((m != 0) == (same > 1), "%s: %d forms print it, defaults mask %#x", op, same,
		      (unsigned)m);
		with += m != 0;
		without += m == 0;
	}
	CHECK(with > 10 && without > 10, "only %d/%d opcodes with/without defaults", with, without);
}

/* Failed selections: the suggestion's family, the cost of hostile input. */
static void test_failures(void)
{
	mmagen_request r;
	const mmagen_form *f;
	const char *near;

	mmagen_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.opcode = "tcgen05.mma.cta_group::1.kind::tf32";
	CHECK(mmagen_select(&r, &f) == MMAGEN_TARGET, "tcgen05 on sm_90a: %s", mmagen_last_error());
	near = strstr(mmagen_last_error(), "nearest legal on sm_90a: ");
	CHECK(near && !strncmp(near + 25, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", 50),
	      "tcgen05 tf32 on sm_90a suggests: %s", mmagen_last_error());

	/* wgmma on sm_80: mma.sync, not ldmatrix */
	mmagen_request_init(&r);
	mmagen_target_parse("sm_80", &r.target);
	r.family = MMAGEN_FAM_WGMMA;
	r.a = r.b = MMAGEN_BF16;
	CHECK(mmagen_select(&r, &f) == MMAGEN_ILLEGAL_FORM, "wgmma on sm_80");
	near = strstr(mmagen_last_error(), "nearest legal on sm_80: ");
	CHECK(near && !strncmp(near + 24, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 50),
	      "wgmma bf16 on sm_80 suggests: %s", mmagen_last_error());

	/* a megabyte of opcode: refused quickly, message bounded */
	size_t len = 1 << 20;
	char *big = malloc(len + 1);
	if (!big)
		return;
	memset(big, 'm', len);
	big[len] = '\0';
	mmagen_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.opcode = big;
	clock_t c0 = clock();
	CHECK(mmagen_select(&r, &f) == MMAGEN_ILLEGAL_FORM, "huge opcode");
	double s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	CHECK(s < 1.0, "a 1 MiB opcode took %.2f s to refuse", s);
	CHECK(strlen(mmagen_last_error()) < 600, "message of %zu bytes", strlen(mmagen_last_error()));
	free(big);
}

int main(void)
{
	test_names();
	test_unique();
	test_values();
	test_defaults_by_opcode();
	test_failures();
	return check_summary();
}
