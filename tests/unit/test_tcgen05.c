/* test_tcgen05.c - the tcgen05 descriptors against the PTX ISA 9.1 bit
 * tables (expected words written by hand, field by field), the shape rules,
 * and every tcgen05 form's tile kernel through ptxas.
 * Usage: test_tcgen05 [PTXAS SCRATCHDIR].  Without ptxas only the
 * descriptor tests run; with a ptxas path that does not exist: exit 77.
 * No sm_100 GPU checked any of this. */
#define _POSIX_C_SOURCE 200809L
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(c, ...)                                                       \
	do {                                                                \
		if (!(c)) {                                                 \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);         \
			printf(__VA_ARGS__);                                \
			printf("\n");                                       \
			failures++;                                         \
		}                                                           \
	} while (0)

/* The first form with these fields (0xFF: any). */
static const mmagen_form *find(unsigned kind, unsigned sparse, unsigned cg, unsigned ws,
			       unsigned a, unsigned b, unsigned d, unsigned sv, unsigned st)
{
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_TCGEN05 && f->kind == kind && f->sparse == sparse &&
		    f->cta_group == cg && f->ws == ws && f->a == a && f->b == b && f->d == d &&
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
	{ K(F8F6F4), 1, 1, 0, T(E2M3), T(E2M3), T(F32), 0xFF, 0xFF, { .m = 128, .n = 16, .sparse_sel = 3 },
	  0x08040d97, "sel 3, sparse<<2, F32<<4, E2M3 3<<7 and 3<<10, 2<<17, 8<<24" },
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
	  "sparsity selector" },
	{ K(F16), 0, 1, 0, T(F16), T(F16), T(F32), 0xFF, 0xFF, { .m = 128, .n = 64, .max_shift = 8 },
	  ".ws only" },
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
		CHECK(s && strstr(mmagen_last_error(), c->msg),
		      "reject case %zu: status %d, message \"%s\", want \"%s\"", i, s,
		      mmagen_last_error(), c->msg);
	}
}

static void test_smem_desc(void)
{
	static const struct {
		mmagen_tc_sdesc d;
		uint64_t want;
		const char *why;
	} cases[] = {
		{ { 0x400, 16, 1024, 0, 0, MMAGEN_TC_SW_128B }, 0x4000404000010040ull,
		  "start 0x40, LBO 1<<16, SBO 0x40<<32, 1<<46, swizzle 2<<61" },
		{ { 0x3fff0, 0x80, 0x100, 5, 1, MMAGEN_TC_SW_32B }, 0xC01A401000083FFFull,
		  "start 0x3fff, LBO 8<<16, SBO 0x10<<32, 1<<46, base 5<<49, LBO mode<<52, 6<<61" },
		{ { 0, 0, 0, 0, 0, MMAGEN_TC_SW_NONE }, 0x0000400000000000ull, "only 1<<46" },
		{ { 0, 0, 0, 0, 0, MMAGEN_TC_SW_64B }, 0x8000400000000000ull, "4<<61" },
		{ { 0, 0, 0, 0, 0, MMAGEN_TC_SW_128B_BASE32B }, 0x2000400000000000ull, "1<<61" },
		{ { 0x10, 0x20, 0x30, 7, 0, MMAGEN_TC_SW_NONE }, 0x000E400300020001ull,
		  "1, 2<<16, 3<<32, 1<<46, 7<<49" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t w = 0;
		mmagen_status s = mmagen_tc_smem_desc(&cases[i].d, &w);
		CHECK(!s && w == cases[i].want, "smem desc %zu: got 0x%016llx, want 0x%016llx = %s",
		      i, (unsigned long long)w, (unsigned long long)cases[i].want, cases[i].why);
	}
	static const mmagen_tc_sdesc bad[] = {
		{ 8, 0, 0, 0, 0, 0 }, { 0x40000, 0, 0, 0, 0, 0 }, { 0, 0, 0, 8, 0, 0 },
		{ 0, 0, 0, 0, 2, 0 }, { 0, 0, 0, 0, 0, 3 }, { 0, 0, 0, 0, 0, 5 }, { 0, 0, 0, 0, 0, 7 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t w;
		CHECK(mmagen_tc_smem_desc(&bad[i], &w) == MMAGEN_INVALID_ARGUMENT,
		      "smem desc bad case %zu accepted", i);
	}
}

/* ---- every form's tile kernel through ptxas ---- */

/* Option sets: defaults, then each data-path layout and swizzle. */
struct optset {
	unsigned m, n, swizzle;
	int scale_d;
};

static const struct optset optsets[] = {
	{ 0, 0, 128, 1 },
	{ 64, 32, 0, 0 },      /* Layout F (cg1), no swizzle, enable-input-d off */
	{ 128, 64, 64, 1 },    /* Layout B/C (cg2) */
	{ 32, 64, 32, 1 },     /* .ws Layout G */
	{ 64, 256, 64, 1 },    /* .ws Layout E */
};

static int write_kernel(const char *dir, unsigned id, const mmagen_form *f, int t,
			const mmagen_tile_opts *o, FILE *list)
{
	char *text, path[600];
	size_t len;
	mmagen_status s = mmagen_emit_tile(f, t, o, MMAGEN_FMT_PTX, &text, &len);
	if (s)
		return s;
	snprintf(path, sizeof path, "%s/tc%u-%s.ptx", dir, id, mmagen_target_name(t));
	FILE *fp = fopen(path, "w");
	int bad = !fp || fwrite(text, 1, len, fp) != len;
	if (fp)
		fclose(fp);
	mmagen_free(text);
	if (!bad)
		fprintf(list, "%s\n", path);
	return bad;
}

/* 1 the first time (opcode, A source) comes by. */
static int first_seen(const char *op, unsigned asrc)
{
	static char seen[256][300];
	static unsigned nseen;
	char key[300];
	snprintf(key, sizeof key, "%s/%u", op, asrc);
	for (unsigned i = 0; i < nseen; i++)
		if (!strcmp(seen[i], key))
			return 0;
	if (nseen < 256)
		snprintf(seen[nseen++], sizeof seen[0], "%s", key);
	return 1;
}

static int test_kernels(const char *ptxas, const char *scratch)
{
	char dir[512], cmd[2048], listpath[600], outpath[600];
	mmagen_tile_opts o;
	unsigned id = 0, emitted = 0, declined = 0;
	int sm103a;

	snprintf(dir, sizeof dir, "%s/tcgen05_%ld", scratch, (long)getpid());
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	if (system(cmd))
		return printf("FAIL: cannot make %s\n", dir), 1;
	snprintf(listpath, sizeof listpath, "%s/list", dir);
	FILE *list = fopen(listpath, "w");
	if (!list)
		return printf("FAIL: cannot write %s\n", listpath), 1;
	mmagen_target_parse("sm_103a", &sm103a);
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_TCGEN05)
			continue;
		int ts[2] = { mmagen_form_min_target(f), -1 };
		if (ts[0] != sm103a && mmagen_form_on_target(f, sm103a))
			ts[1] = sm103a;
		/* the other option sets once per opcode and A source: the
		 * types change only the idesc and the copy loops */
		char op[256];
		mmagen_form_opcode(f, op, sizeof op);
		int first = first_seen(op, f->asrc);
		size_t nsets = first ? sizeof optsets / sizeof optsets[0] : 1;
		for (size_t k = 0; k < nsets; k++) {
			mmagen_tile_opts_init(&o);
			o.m = optsets[k].m;
			o.n = optsets[k].n;
			o.swizzle = optsets[k].swizzle;
			o.scale_d = optsets[k].scale_d;
			for (int j = 0; j < 2 && ts[j] >= 0; j++) {
				mmagen_status s = write_kernel(dir, id++, f, ts[j], &o, list);
				if (s && k == 0) {
					CHECK(0, "%s: no tile kernel with default options: %s",
					      op, mmagen_last_error());
				}
				s ? declined++ : emitted++;
			}
		}
	}
	fclose(list);
	snprintf(outpath, sizeof outpath, "%s/failed", dir);
	/* the target is the file name's last field */
	snprintf(cmd, sizeof cmd,
		 "xargs -P %ld -n 16 sh -c 'for f; do a=${f##*-}; a=${a%%.ptx}; "
		 "\"%s\" -arch=$a \"$f\" -o /dev/null >\"$f.log\" 2>&1 && rm -f \"$f\" \"$f.log\" "
		 "|| echo \"$f\"; done' sh <'%s' >'%s'",
		 sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 4,
		 ptxas, listpath, outpath);
	if (system(cmd))
		return printf("FAIL: could not run ptxas\n"), 1;
	FILE *fp = fopen(outpath, "r");
	char line[700];
	unsigned bad = 0;
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = 0;
		if (bad++ < 10)
			printf("FAIL: %s does not assemble (see %s.log)\n", line, line);
	}
	if (fp)
		fclose(fp);
	failures += bad;
	printf("tcgen05 tile kernels: %u emitted, %u assembled, %u rejected by ptxas, "
	       "%u option sets declined (illegal M/N/swizzle for the form)\n",
	       emitted, emitted - bad, bad, declined);
	if (!bad) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd))
			printf("note: could not remove %s\n", dir);
	}
	return 0;
}

int main(int argc, char **argv)
{
	test_idesc();
	test_rejects();
	test_smem_desc();
	if (argc == 3) {
		if (access(argv[1], X_OK))
			return printf("ptxas not found: skipped\n"), 77;
		test_kernels(argv[1], argv[2]);
	}
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("ok\n");
	return failures ? 1 : 0;
}
