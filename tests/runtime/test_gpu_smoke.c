/* test_gpu_smoke.c - the runtime end to end on a GPU: JIT, launch, check
 * against the CPU, JIT errors with their log, the disk cache cold then
 * warm.  Exit 77 (skip) when there is no driver or no device.
 */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_DETAIL() mmart_last_error()
#include "../unit/check.h"

/* c[i] = a[i] + b[i] for i < n, u32. */
static const char add_ptx[] =
	".version 7.0\n"
	".target sm_80\n"
	".address_size 64\n"
	"\n"
	".visible .entry add_u32(\n"
	"\t.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<8>;\n"
	"\t.reg .b64 %rd<10>;\n"
	"\tld.param.u64 %rd1, [pa];\n"
	"\tld.param.u64 %rd2, [pb];\n"
	"\tld.param.u64 %rd3, [pc];\n"
	"\tld.param.u32 %r1, [pn];\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
	"\tsetp.ge.u32 %p1, %r5, %r1;\n"
	"\t@%p1 bra DONE;\n"
	"\tcvta.to.global.u64 %rd4, %rd1;\n"
	"\tcvta.to.global.u64 %rd5, %rd2;\n"
	"\tcvta.to.global.u64 %rd6, %rd3;\n"
	"\tmul.wide.u32 %rd7, %r5, 4;\n"
	"\tadd.s64 %rd8, %rd4, %rd7;\n"
	"\tld.global.u32 %r6, [%rd8];\n"
	"\tadd.s64 %rd8, %rd5, %rd7;\n"
	"\tld.global.u32 %r7, [%rd8];\n"
	"\tadd.u32 %r6, %r6, %r7;\n"
	"\tadd.s64 %rd9, %rd6, %rd7;\n"
	"\tst.global.u32 [%rd9], %r6;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

/* A syntax error on line 9. */
static const char bad_ptx[] =
	".version 7.0\n"
	".target sm_80\n"
	".address_size 64\n"
	"\n"
	".visible .entry broken()\n"
	"{\n"
	"\t.reg .b32 %r<2>;\n"
	"\tmov.u32 %r1, 1;\n"
	"\tfrobnicate.u32 %r1, %r1;\n"
	"\tret;\n"
	"}\n";

#define N ((1u << 20) + 3)      /* not a multiple of the block */
#define SLACK 64                /* poisoned words past the end */
#define POISON 0xa5a5a5a5u

static uint64_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".cubin") != NULL;
	closedir(d);
	return n;
}

/* Loads add_ptx into ctx, runs it on fresh random data, checks. */
static void run_add(mmart_ctx *ctx, int want_hit, int time_it)
{
	uint32_t *a = malloc(N * 4), *b = malloc(N * 4);
	uint32_t *c = malloc((N + SLACK) * 4);
	uint64_t da = 0, db = 0, dc = 0;
	mmart_module *mod = NULL, *again = NULL;
	unsigned grid[3] = { (N + 255) / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	uint32_t n = N;
	void *fn = NULL, *params[4] = { &da, &db, &dc, &n };
	int hit = -1, bad = 0;
	float ms = -1;

	for (uint32_t i = 0; i < N; i++) {
		a[i] = next();
		b[i] = next();
	}
	CHECK_EXPR(mmart_load_ptx(ctx, add_ptx, &mod, &hit) == MMART_OK);
	if (hit != want_hit)
		fprintf(stderr, "cache: got %d, want %d\n", hit, want_hit);
	CHECK_EXPR(hit == want_hit);
	CHECK_EXPR(mmart_load_ptx(ctx, add_ptx, &again, &hit) == MMART_OK);
	CHECK_EXPR(again == mod && hit == MMART_CACHE_LOADED);
	if (!mod)
		goto out;
	CHECK_EXPR(mmart_get_function(mod, "add_u32", &fn) == MMART_OK);
	CHECK_EXPR(mmart_get_function(mod, "no_such_kernel", &(void *){ NULL })
	      == MMART_NOT_FOUND);
	CHECK_EXPR(mmart_alloc(ctx, N * 4, &da) == MMART_OK);
	CHECK_EXPR(mmart_alloc(ctx, N * 4, &db) == MMART_OK);
	CHECK_EXPR(mmart_alloc(ctx, (N + SLACK) * 4, &dc) == MMART_OK);
	CHECK_EXPR(mmart_copy_to_device(ctx, da, a, N * 4) == MMART_OK);
	CHECK_EXPR(mmart_copy_to_device(ctx, db, b, N * 4) == MMART_OK);
	CHECK_EXPR(mmart_memset8(ctx, dc, 0xa5, (N + SLACK) * 4) == MMART_OK);
	memset(c, 0, (N + SLACK) * 4);
	CHECK_EXPR(mmart_launch(ctx, fn, grid, block, 0, params) == MMART_OK);
	CHECK_EXPR(mmart_sync(ctx) == MMART_OK);
	CHECK_EXPR(mmart_copy_to_host(ctx, c, dc, (N + SLACK) * 4) == MMART_OK);
	for (uint32_t i = 0; i < N; i++)
		if (c[i] != a[i] + b[i] && bad++ < 5)
			fprintf(stderr, "c[%u] = %08x, want %08x\n", i, c[i],
				a[i] + b[i]);
	for (uint32_t i = N; i < N + SLACK; i++)
		if (c[i] != POISON && bad++ < 5)
			fprintf(stderr, "c[%u] = %08x past the end\n", i, c[i]);
	CHECK_EXPR(bad == 0);
	if (time_it) {
		CHECK_EXPR(mmart_time_launch(ctx, fn, grid, block, 0, params, 10, &ms)
		      == MMART_OK);
		CHECK_EXPR(ms > 0 && ms < 1000);
		printf("add_u32 over %u words: %.4f ms\n", N, ms);
	}
out:
	mmart_free(ctx, da);
	mmart_free(ctx, db);
	mmart_free(ctx, dc);
	free(a);
	free(b);
	free(c);
}

static void bad_load(mmart_ctx *ctx)
{
	mmart_module *mod = (mmart_module *)&mod;
	mmart_status s = mmart_load_ptx(ctx, bad_ptx, &mod, NULL);
	const char *msg = mmart_last_error();

	printf("bad PTX: %s: %s\n", mmart_status_str(s), msg);
	CHECK_EXPR(s == MMART_JIT);
	CHECK_EXPR(mod == NULL);
	CHECK_EXPR(strstr(msg, "CUDA_ERROR_INVALID_PTX") != NULL);
	CHECK_EXPR(strstr(msg, "\nptxas") != NULL);
	CHECK_EXPR(strstr(msg, "line 9") != NULL);
}

int main(void)
{
	char dir[] = "/tmp/mmart-test-gpu-XXXXXX";
	mmart_ctx *ctx = NULL;
	mmart_status s;
	char name[128];
	int major, minor;

	rng = ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid()) | 1;
	printf("seed %llu\n", (unsigned long long)rng);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("MMAGEN_CACHE_DIR", dir, 1);
	unsetenv("MMAGEN_CACHE");

	s = mmart_open(-1, &ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		printf("SKIP: %s\n", mmart_last_error());
		rmdir(dir);
		return 77;
	}
	CHECK_EXPR(s == MMART_OK);
	if (s != MMART_OK)
		return 1;
	CHECK_EXPR(mmart_device_info(ctx, &major, &minor, name, sizeof name)
	      == MMART_OK);
	printf("device: %s sm_%d%d\n", name, major, minor);
	if (major < 8) {
		printf("SKIP: the test PTX targets sm_80\n");
		mmart_close(ctx);
		return 77;
	}

	/* Cold: compiled and stored; then bad PTX stores nothing. */
	run_add(ctx, MMART_CACHE_MISS, 1);
	bad_load(ctx);
	CHECK_EXPR(count_entries(dir) == 1);
	mmart_close(ctx);

	/* Warm: a new context reads the stored cubin. */
	CHECK_EXPR(mmart_open(-1, &ctx) == MMART_OK);
	run_add(ctx, MMART_CACHE_HIT, 0);
	mmart_close(ctx);

	/* Off: compiled again, not read, not stored. */
	setenv("MMAGEN_CACHE", "0", 1);
	CHECK_EXPR(mmart_open(-1, &ctx) == MMART_OK);
	run_add(ctx, MMART_CACHE_BYPASS, 0);
	bad_load(ctx);
	mmart_close(ctx);
	CHECK_EXPR(count_entries(dir) == 1);

	{
		char path[4096];
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof path, "%s/%s", dir,
					 e->d_name);
				remove(path);
			}
		if (d)
			closedir(d);
		rmdir(dir);
	}
	if (failed) {
		fprintf(stderr, "%lu check(s) failed\n", failed);
		return 1;
	}
	printf("gpu smoke: all checks passed\n");
	return 0;
}
