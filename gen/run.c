/* run.c - run one-tile kernels on the GPU and check them. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail_lib(const char *what)
{
	fprintf(stderr, "mmagen: %s: %s\n", what, mmagen_last_error());
	return 1;
}

static int rt_fail(const char *what)
{
	fprintf(stderr, "mmagen: %s: %s\n", what, mmart_last_error());
	return 1;
}

/* Run the check's kernel on the device: every parameter gets the check's
 * bytes (inputs, or the poison for D); D comes back into dmem. */
static int tile_launch(mmart_ctx *ctx, const char *ptx, const mmagen_check *chk,
		       unsigned dparam, uint8_t *dmem)
{
	const mmagen_tile_info *ti = mmagen_check_tile(chk);
	uint64_t *dp = calloc(ti->nparams, sizeof *dp);
	void **params = calloc(ti->nparams, sizeof *params);
	mmart_module *mod;
	void *fn;
	int rc = 1;

	if (!dp || !params) {
		fprintf(stderr, "mmagen: out of memory\n");
		goto done;
	}
	if (mmart_load_ptx(ctx, ptx, &mod, NULL) || mmart_get_function(mod, ti->kernel, &fn)) {
		rt_fail("load");
		goto done;
	}
	for (unsigned p = 0; p < ti->nparams; p++) {
		const void *data;
		size_t bytes;
		if (mmagen_check_data(chk, p, &data, &bytes)) {
			fail_lib("check");
			goto out;
		}
		if (mmart_alloc(ctx, bytes, &dp[p]) ||
		    mmart_copy_to_device(ctx, dp[p], data, bytes))
			goto fail;
		params[p] = &dp[p];
	}
	if (mmart_launch(ctx, fn, ti->grid, ti->block, ti->smem, params) ||
	    mmart_sync(ctx) ||
	    mmart_copy_to_host(ctx, dmem, dp[dparam], ti->params[dparam].bytes))
		goto fail;
	rc = 0;
	goto out;
fail:
	rt_fail("launch");
out:
	for (unsigned p = 0; p < ti->nparams; p++)
		if (dp[p])
			mmart_free(ctx, dp[p]);
done:
	free(dp);
	free(params);
	return rc;
}

static int open_ctx(const struct run_opts *o, mmart_ctx **ctx)
{
	mmart_status s = mmart_open(o->device, ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		fprintf(stderr, "mmagen: %s\n", mmart_last_error());
		return 77;
	}
	return s ? rt_fail("open") : 0;
}

static int parse_inputs(const struct run_opts *o, unsigned *inputs)
{
	*inputs = MMAGEN_CHECK_RANDOM;
	if (o->edge && mmagen_check_inputs_parse(o->edge, inputs))
		return fail_lib("inputs");
	return 0;
}

/* One tile on an open context: 0 pass, 1 fail; `line` gets the result. */
static int tile_once(mmart_ctx *ctx, const mmagen_form *f, int t,
		     const struct run_opts *o, char *line, size_t n)
{
	mmagen_check *chk = NULL;
	mmagen_check_result res = { .size = sizeof res };
	char *ptx = NULL, op[256];
	uint8_t *dmem = NULL;
	unsigned inputs, dparam;
	int rc = 1;

	mmagen_form_opcode(f, op, sizeof op);
	if (parse_inputs(o, &inputs))
		goto out;
	if (mmagen_check_new(f, o->tile, inputs, o->seed, &chk)) {
		fail_lib("check");
		goto out;
	}
	if (mmagen_emit_tile(f, t, o->tile, MMAGEN_FMT_PTX, &ptx, NULL)) {
		fail_lib("emit");
		goto out;
	}
	const mmagen_tile_info *ti = mmagen_check_tile(chk);
	if (mmagen_check_find_param(ti, "D", &dparam)) {
		fail_lib("tile");
		goto out;
	}
	if (!(dmem = calloc(ti->params[dparam].bytes, 1))) {
		fprintf(stderr, "mmagen: out of memory\n");
		goto out;
	}
	if ((rc = tile_launch(ctx, ptx, chk, dparam, dmem)))
		goto out;
	rc = 1;
	if (mmagen_check_verify(chk, dmem, ti->params[dparam].bytes, &res)) {
		fail_lib("verify");
		goto out;
	}
	if (!res.pass)
		snprintf(line, n, "FAIL %s: %zu of %zu elements wrong; first: D[%u][%u] = %.17g (0x%llx), reference %.17g",
			 op, res.bad, res.total, res.row, res.col, res.got_value,
			 (unsigned long long)res.got, res.exact);
	else
		snprintf(line, n, "PASS %s: largest error %.3g (%.2g of sum|a*b|+|c|)", op,
			 res.max_err, res.max_rel);
	rc = res.pass ? 0 : 1;
out:
	mmagen_check_free(chk);
	mmagen_free(ptx);
	free(dmem);
	return rc;
}

int run_tile(const mmagen_form *f, int t, const struct run_opts *o)
{
	mmart_ctx *ctx;
	char line[512] = "";
	int rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	rc = tile_once(ctx, f, t, o, line, sizeof line);
	if (line[0])
		printf("%s (seed %llu)\n", line, (unsigned long long)o->seed);
	mmart_close(ctx);
	return rc;
}

static int sampled_out(const mmagen_form *f)
{
	if (f->family != MMAGEN_FAM_WGMMA)
		return 0;
	unsigned lo = 8, hi = 256;
	return f->n != lo && f->n != 128 && f->n != hi;
}

int run_tile_all(int t, const mmagen_request *filter, int sample_n,
		 const struct run_opts *o)
{
	mmart_ctx *ctx;
	int passed = 0, failed = 0, skipped = 0;
	char prev[300] = "", key[300], op[256], line[512];
	int rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		mmagen_tile_info ti;
		if (!mmagen_form_on_target(f, t) || (filter && !mmagen_form_matches(filter, f)))
			continue;
		if (sample_n && sampled_out(f))
			continue;
		/* one run per instruction and A source (tcgen05's idesc types
		 * share an opcode: the first stands for them) */
		snprintf(key, sizeof key, "%s|%d", mmagen_form_opcode(f, op, sizeof op), f->asrc);
		if (!strcmp(key, prev))
			continue;
		snprintf(prev, sizeof prev, "%s", key);
		const char *src = f->asrc == MMAGEN_ASRC_REG ? " [A in registers]" :
				  f->asrc == MMAGEN_ASRC_SMEM ? " [A in shared memory]" : "";
		if (mmagen_tile_info_of(f, o->tile, &ti)) {
			printf("SKIP %s%s: %s\n", op, src, mmagen_last_error());
			skipped++;
			continue;
		}
		line[0] = '\0';
		if (tile_once(ctx, f, t, o, line, sizeof line)) {
			failed++;
			if (!line[0])
				snprintf(line, sizeof line, "FAIL %s: could not run", op);
		} else {
			passed++;
		}
		printf("%s%s\n", line, src);
		fflush(stdout);
	}
	mmart_close(ctx);
	printf("\n| target | swizzle | passed | failed | skipped |\n|---|---|---|---|---|\n"
	       "| %s | %u | %d | %d | %d |\n", mmagen_target_name(t),
	       o->tile ? o->tile->swizzle : 128, passed, failed, skipped);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The arch-specific target of the GPU that --device picks ("sm_90a" on an
 * H200), for run/bench without --arch; 77 without a driver or GPU. */
int device_target(const struct run_opts *o, int *t)
{
	mmart_ctx *ctx;
	char name[32];
	int major, minor, rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	if (mmart_device_info(ctx, &major, &minor, NULL, 0)) {
		mmart_close(ctx);
		return rt_fail("device");
	}
	mmart_close(ctx);
	snprintf(name, sizeof name, "sm_%d%da", major, minor);
	if (!mmagen_target_parse(name, t))
		return 0;
	snprintf(name, sizeof name, "sm_%d%d", major, minor);
	if (!mmagen_target_parse(name, t))
		return 0;
	fprintf(stderr, "mmagen: the GPU is sm_%d%d, which mmagen does not know; give --arch\n",
		major, minor);
	return 1;
}

/* Generation, cold load (no caches) and warm load (our disk cache), as
 * medians of `reps` runs each. */
int bench_load(const mmagen_form *f, int t, const struct run_opts *o)
{
	enum { REPS = 9 };
	double gen[REPS], cold[REPS], warm[REPS];
	char *ptx = NULL;
	char dir[] = "/tmp/mmagen-bench-XXXXXX";
	mmart_ctx *ctx;
	int rc;

	for (int i = 0; i < REPS; i++) {
		double t0 = now_ms();
		mmagen_free(ptx);
		if (mmagen_emit_tile(f, t, o->tile, MMAGEN_FMT_PTX, &ptx, NULL))
			return fail_lib("emit");
		gen[i] = now_ms() - t0;
	}
	if (!mkdtemp(dir))
		return fprintf(stderr, "mmagen: cannot make a temporary cache directory\n"), 1;
	setenv("MMAGEN_CACHE_DIR", dir, 1);
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	for (int i = 0; i < REPS; i++) {
		/* a fresh context each time: the in-process module cache is
		 * per context, so every load below reaches the disk or the JIT */
		mmart_module *mod;
		int hit;
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		setenv("MMAGEN_CACHE", "0", 1);
		double t0 = now_ms();
		if (mmart_load_ptx(ctx, ptx, &mod, &hit))
			return rt_fail("cold load");
		cold[i] = now_ms() - t0;
		mmart_close(ctx);
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		setenv("MMAGEN_CACHE", "1", 1);
		if (i == 0 && mmart_load_ptx(ctx, ptx, &mod, &hit))   /* fill */
			return rt_fail("load");
		mmart_close(ctx);
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		t0 = now_ms();
		if (mmart_load_ptx(ctx, ptx, &mod, &hit))
			return rt_fail("warm load");
		warm[i] = now_ms() - t0;
		if (hit != MMART_CACHE_HIT)
			fprintf(stderr, "mmagen: warning: warm load was not a cache hit (%d)\n", hit);
		mmart_close(ctx);
	}
	qsort(gen, REPS, sizeof *gen, cmp_double);
	qsort(cold, REPS, sizeof *cold, cmp_double);
	qsort(warm, REPS, sizeof *warm, cmp_double);
	char op[256];
	printf("bench load: %s on %s, %zu bytes of PTX, medians of %d\n",
	       mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t), strlen(ptx), REPS);
	printf("| step | median ms | min ms | max ms |\n|---|---|---|---|\n");
	printf("| generate | %.3f | %.3f | %.3f |\n", gen[REPS / 2], gen[0], gen[REPS - 1]);
	printf("| cold load (JIT, no caches) | %.3f | %.3f | %.3f |\n", cold[REPS / 2], cold[0], cold[REPS - 1]);
	printf("| warm load (mmagen disk cache) | %.3f | %.3f | %.3f |\n", warm[REPS / 2], warm[0], warm[REPS - 1]);
	mmagen_free(ptx);
	return 0;
}
