/* run.c - run one-tile kernels on the GPU and check them. */
#define _XOPEN_SOURCE 700   /* nftw, and POSIX 2008 */
#include "run.h"
#include "mmart.h"
#include "nvml.h"

#include <errno.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

void cache_note(int hit)
{
	static int said;

	/* why the disk cache was passed by (empty: MMAGEN_CACHE=0), once */
	if (hit == MMART_CACHE_BYPASS && mmart_last_error()[0] && !said++)
		fprintf(stderr, "mmagen: warning: %s\n", mmart_last_error());
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
	int hit;
	if (mmart_load_ptx(ctx, ptx, &mod, &hit) || mmart_get_function(mod, ti->kernel, &fn)) {
		rt_fail("load");
		goto done;
	}
	cache_note(hit);
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

/* ---- bench load ----
 * The driver reads CUDA_CACHE_DISABLE and CUDA_CACHE_PATH once, when it
 * loads; setting them later changes nothing.  So every figure that needs
 * the driver's JIT cache off or empty is measured in a fresh process: this
 * program runs itself again (/proc/self/exe, the same arguments) with the
 * environment set before its driver loads and MMAGEN_BENCH_CHILD naming
 * what to measure.  The child writes one time in ms per line to its
 * standard output, a pipe to the parent; its standard error is ours. */
#define BENCH_CHILD "MMAGEN_BENCH_CHILD"
enum { REPS = 9 };

extern char **environ;

/* Load ptx into a fresh context (the in-process module cache is per
 * context, so each load reaches the disk cache or the JIT); ms in *ms. */
static int timed_load(const struct run_opts *o, const char *ptx, double *ms, int *hit)
{
	mmart_ctx *ctx;
	mmart_module *mod;
	int rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	double t0 = now_ms();
	if (mmart_load_ptx(ctx, ptx, &mod, hit))
		rc = rt_fail("load");
	*ms = now_ms() - t0;
	mmart_close(ctx);
	return rc;
}

/* The child's side: "jit" times REPS loads (the parent turned every cache
 * off); "first" times a first load (an empty driver cache) and a second in
 * a new context (the driver's cache filled by the first). */
static int bench_child(const char *mode, const struct run_opts *o, const char *ptx)
{
	int n = !strcmp(mode, "jit") ? REPS : !strcmp(mode, "first") ? 2 : 0;
	double ms;
	int rc;

	if (!n) {
		fprintf(stderr, "mmagen: %s=%s: not a bench load step\n", BENCH_CHILD, mode);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if ((rc = timed_load(o, ptx, &ms, NULL)))
			return rc;
		printf("%.6f\n", ms);
	}
	return 0;
}

/* This process's arguments, from /proc/self/cmdline: a NULL-terminated
 * vector into *buf (both freed by the caller). */
static char **self_args(char **buf)
{
	FILE *fp = fopen("/proc/self/cmdline", "rb");
	size_t len = 0, cap = 4096, n = 0;
	char **argv = NULL;

	*buf = malloc(cap);
	if (!fp || !*buf)
		goto fail;
	for (size_t got; (got = fread(*buf + len, 1, cap - len - 1, fp)) > 0;) {
		len += got;
		if (len + 1 == cap) {
			char *p = realloc(*buf, cap *= 2);
			if (!p)
				goto fail;
			*buf = p;
		}
	}
	(*buf)[len] = '\0';
	for (size_t i = 0; i < len; i++)
		n += (*buf)[i] == '\0';
	if (!(argv = calloc(n + 1, sizeof *argv)))
		goto fail;
	n = 0;
	for (size_t i = 0; i < len; i += strlen(*buf + i) + 1)
		argv[n++] = *buf + i;
	fclose(fp);
	return argv;
fail:
	if (fp)
		fclose(fp);
	free(*buf);
	*buf = NULL;
	return NULL;
}

/* Our environment without the variables the children get set (`set`:
 * "NAME=value" strings, NULL-terminated), then those. */
static char **child_env(const char *const *set)
{
	static const char *const drop[] = { "CUDA_CACHE_DISABLE", "CUDA_CACHE_PATH",
		"MMAGEN_CACHE", "MMAGEN_CACHE_DIR", BENCH_CHILD };
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	while (set[k])
		k++;
	char **env = calloc(n + k + 1, sizeof *env);
	if (!env)
		return NULL;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		int keep = 1;
		for (size_t d = 0; d < sizeof drop / sizeof *drop; d++) {
			size_t l = strlen(drop[d]);
			if (!strncmp(environ[i], drop[d], l) && environ[i][l] == '=')
				keep = 0;
		}
		if (keep)
			env[j++] = environ[i];
	}
	for (size_t i = 0; i < k; i++)
		env[j++] = (char *)set[i];
	return env;
}

/* Run this program again with `set` added to its environment; up to `n`
 * times from its output into ms[].  0, 1 or the child's 77. */
static int run_child(const char *const *set, double *ms, int n)
{
	char exe[4096], *argbuf = NULL, **argv = NULL, **env = NULL, out[4096];
	posix_spawn_file_actions_t fa;
	int fd[2] = { -1, -1 }, status, rc = 1, fa_init = 0;
	size_t len = 0;
	pid_t pid;

	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (l <= 0 || !(argv = self_args(&argbuf)) || !(env = child_env(set)) || pipe(fd)) {
		fprintf(stderr, "mmagen: bench load: cannot re-run itself through /proc/self/exe\n");
		goto out;
	}
	exe[l] = '\0';
	if (posix_spawn_file_actions_init(&fa))
		goto out;
	fa_init = 1;
	if (posix_spawn_file_actions_adddup2(&fa, fd[1], 1) ||
	    posix_spawn_file_actions_addclose(&fa, fd[0]) ||
	    posix_spawn_file_actions_addclose(&fa, fd[1]) ||
	    posix_spawn(&pid, exe, &fa, NULL, argv, env)) {
		fprintf(stderr, "mmagen: bench load: cannot start %s\n", exe);
		goto out;
	}
	close(fd[1]);
	fd[1] = -1;
	for (ssize_t got; (got = read(fd[0], out + len, sizeof out - 1 - len)) != 0;) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		len += (size_t)got;
		if (len == sizeof out - 1)
			break;
	}
	out[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		rc = WIFEXITED(status) && WEXITSTATUS(status) == 77 ? 77 : 1;
		if (rc == 1)
			fprintf(stderr, "mmagen: bench load: the measuring process failed\n");
		goto out;
	}
	char *p = out, *end;
	for (int i = 0; i < n; i++, p = end) {
		ms[i] = strtod(p, &end);
		if (end == p) {
			fprintf(stderr, "mmagen: bench load: the measuring process gave %d of %d times\n",
				i, n);
			goto out;
		}
	}
	rc = 0;
out:
	if (fa_init)
		posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(argv);
	free(argbuf);
	free(env);
	return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb; (void)type; (void)ftw;
	remove(path);
	return 0;
}

/* Remove the directory tree at path (ours: made by mkdtemp). */
static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void print_row(const char *step, const char *caches, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	printf("| %s | %s | %.3f | %.3f | %.3f |\n", step, caches, v[n / 2], v[0], v[n - 1]);
}

/* Generation; a cold load (JIT, every cache off); a first load with an
 * empty driver JIT cache, and the second load that cache then answers; a
 * warm load (mmagen's disk cache): medians of REPS runs each.  Every
 * load runs in a fresh context; the cold and first loads in fresh
 * processes (see above). */
struct tile_gen {
	const mmagen_form *f;
	int t;
	const mmagen_tile_opts *opts;
};

static int gen_tile(void *user, char **ptx)
{
	const struct tile_gen *tg = user;
	if (mmagen_emit_tile(tg->f, tg->t, tg->opts, MMAGEN_FMT_PTX, ptx, NULL))
		return fail_lib("emit");
	return 0;
}

int bench_load(const mmagen_form *f, int t, const struct run_opts *o)
{
	struct tile_gen tg = { f, t, o->tile };
	char op[256], what[300];
	snprintf(what, sizeof what, "%s on %s", mmagen_form_opcode(f, op, sizeof op),
		 mmagen_target_name(t));
	return bench_load_gen(what, gen_tile, &tg, o);
}

int bench_load_gen(const char *what, bench_gen_fn *gen_ptx, void *user, const struct run_opts *o)
{
	double gen[REPS], cold[REPS], first[REPS], second[REPS], warm[REPS], two[2];
	char *ptx = NULL;
	char dir[1024];
	char mdir[sizeof dir + 32], cdir[sizeof dir + 32];
	const char *tmpdir = getenv("TMPDIR");
	char set_mdir[sizeof mdir + 32], set_cdir[sizeof cdir + 32];
	const char *child = getenv(BENCH_CHILD);
	int rc = 1, made = 0, hit;

	for (int i = 0; i < REPS; i++) {
		double t0 = now_ms();
		mmagen_free(ptx);
		ptx = NULL;
		if (gen_ptx(user, &ptx))
			goto out;
		gen[i] = now_ms() - t0;
		if (child)
			break;
	}
	if (child) {
		rc = bench_child(child, o, ptx);
		goto out;
	}
	/* in $TMPDIR, as mktemp(1) does; removed on every path below */
	if (snprintf(dir, sizeof dir, "%s/mmagen-bench-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp")
	    >= (int)sizeof dir || !mkdtemp(dir)) {
		fprintf(stderr, "mmagen: cannot make a temporary directory %s\n", dir);
		goto out;
	}
	made = 1;
	snprintf(mdir, sizeof mdir, "%s/mmagen", dir);
	snprintf(set_mdir, sizeof set_mdir, "MMAGEN_CACHE_DIR=%s", mdir);

	/* cold: no cache anywhere, the environment set before the driver loads */
	const char *set_cold[] = { BENCH_CHILD "=jit", "CUDA_CACHE_DISABLE=1",
				   "MMAGEN_CACHE=0", set_mdir, NULL };
	if ((rc = run_child(set_cold, cold, REPS)))
		goto out;
	/* first load with an empty driver cache, then the load it answers */
	for (int i = 0; i < REPS; i++) {
		snprintf(cdir, sizeof cdir, "%s/cuda%d", dir, i);
		snprintf(set_cdir, sizeof set_cdir, "CUDA_CACHE_PATH=%s", cdir);
		const char *set_first[] = { BENCH_CHILD "=first", set_cdir,
					    "MMAGEN_CACHE=0", set_mdir, NULL };
		if (mkdir(cdir, 0700)) {
			fprintf(stderr, "mmagen: cannot make %s\n", cdir);
			rc = 1;
			goto out;
		}
		if ((rc = run_child(set_first, two, 2)))
			goto out;
		first[i] = two[0];
		second[i] = two[1];
	}
	/* warm: mmagen's disk cache, filled once (here the driver's state does
	 * not matter: a hit loads a cubin, there is nothing to JIT) */
	setenv("MMAGEN_CACHE_DIR", mdir, 1);
	setenv("MMAGEN_CACHE", "1", 1);
	if ((rc = timed_load(o, ptx, &warm[0], &hit)))
		goto out;
	for (int i = 0; i < REPS; i++) {
		if ((rc = timed_load(o, ptx, &warm[i], &hit)))
			goto out;
		if (hit != MMART_CACHE_HIT)
			fprintf(stderr, "mmagen: warning: warm load was not a cache hit (%d)\n", hit);
	}
	printf("bench load: %s, %zu bytes of PTX, medians of %d\n", what, strlen(ptx), REPS);
	printf("| step | caches | median ms | min ms | max ms |\n|---|---|---|---|---|\n");
	print_row("generate", "-", gen, REPS);
	print_row("cold load (JIT)",
		  "all off: CUDA_CACHE_DISABLE=1 and MMAGEN_CACHE=0 before the driver loaded", cold, REPS);
	print_row("first load, empty driver JIT cache",
		  "driver cache on, CUDA_CACHE_PATH a new empty directory; MMAGEN_CACHE=0", first, REPS);
	print_row("second load, driver JIT cache filled",
		  "driver cache on (filled by the first load); MMAGEN_CACHE=0", second, REPS);
	print_row("warm load (mmagen disk cache)",
		  "mmagen disk cache on, filled once (a cubin: nothing to JIT)", warm, REPS);
	rc = 0;
out:
	if (made)
		rm_tree(dir);
	mmagen_free(ptx);
	return rc;
}

struct nvml_sampler *nvml_open_ctx(mmart_ctx *ctx, char *why, size_t n)
{
	char pci[MMART_PCI_BUS_ID_SIZE];
	if (mmart_device_pci_bus_id(ctx, pci, sizeof pci)) {
		snprintf(why, n, "%s", mmart_last_error());
		return NULL;
	}
	return nvml_open(pci, why, n);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

float median_ms(float *ms, unsigned n)
{
	qsort(ms, n, sizeof *ms, cmp_float);
	return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

const char *clocks_flag(double seconds, const char *what, char *buf, size_t n)
{
	if (seconds >= 0.2)
		return "";
	snprintf(buf, n, "; %s under 0.2 s may run or read above the sustained clock: "
		 "more --reps give longer ones", what);
	return buf;
}
