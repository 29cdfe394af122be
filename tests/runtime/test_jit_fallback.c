/* test_jit_fallback.c - mmart_load_ptx falls back to the driver's own JIT
 * when the ptxas way fails: ptxas exits non-zero (one older than the PTX
 * or the GPU), or the driver refuses the cubin ptxas wrote (one newer
 * than the driver: CUDA_ERROR_NO_BINARY_FOR_GPU).  MMART_JIT=ptxas keeps
 * the ptxas error.
 *
 * Run against fake_cuda (MMAGEN_LIBCUDA, set by the test's environment),
 * whose cuModuleLoadDataEx refuses ELF images and loads PTX text; the
 * ptxas here are shell scripts named by MMART_PTXAS.  Argument: a scratch
 * directory. */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/check.h"

static void (*loads)(int *ptx, int *cubin);
static char dir[512];

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fail("cannot write %s", path);
		return;
	}
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0700);
}

/* One load of a fresh PTX with this ptxas: status, hit, and the fake
 * driver's module loads it took. */
static void one(mmart_ctx *ctx, const char *ptxas, const char *mode, int n,
		mmart_status want, int want_ptx, int want_cubin, const char *what)
{
	char ptx[128];
	mmart_module *mod = NULL;
	int hit = -1, p0, c0, p1, c1;
	mmart_status s;

	/* a PTX of its own each time: no context or disk cache answers */
	snprintf(ptx, sizeof ptx, ".version 8.0\n.target sm_90a\n.address_size 64\n// %d\n", n);
	setenv("MMART_PTXAS", ptxas, 1);
	if (mode)
		setenv("MMART_JIT", mode, 1);
	else
		unsetenv("MMART_JIT");
	loads(&p0, &c0);
	s = mmart_load_ptx(ctx, ptx, &mod, &hit);
	loads(&p1, &c1);
	CHECK(s == want, "%s: status %d, want %d (%s)", what, (int)s, (int)want,
	      mmart_last_error());
	CHECK(p1 - p0 == want_ptx && c1 - c0 == want_cubin,
	      "%s: the driver got %d PTX and %d cubin loads, want %d and %d", what, p1 - p0,
	      c1 - c0, want_ptx, want_cubin);
	if (want == MMART_OK)
		CHECK(mod && hit == MMART_CACHE_BYPASS, "%s: module %p, hit %d (the driver's JIT: bypass)",
		      what, (void *)mod, hit);
}

int main(int argc, char **argv)
{
	const char *path = getenv("MMAGEN_LIBCUDA");
	void *lib = path ? dlopen(path, RTLD_NOW) : NULL;
	char good[600], bad[600], cache[600];
	mmart_ctx *ctx = NULL;

	if (lib)
		*(void **)&loads = dlsym(lib, "fake_cuda_loads");
	if (!loads || argc < 2) {
		printf("FAIL: MMAGEN_LIBCUDA does not name the fake driver (%s), or no scratch directory\n",
		       path ? path : "unset");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s/jit-fallback-%ld", argv[1], (long)getpid());
	snprintf(good, sizeof good, "%s/ptxas-elf", dir);
	snprintf(bad, sizeof bad, "%s/ptxas-fails", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	mkdir(argv[1], 0700);
	if (mkdir(dir, 0700)) {
		printf("FAIL: cannot make %s\n", dir);
		return 1;
	}
	/* a ptxas whose cubin the driver refuses: ELF magic, then junk */
	script(good, "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
		     "printf '\\177ELFjunk' > \"$out\"");
	script(bad, "echo \"ptxas fatal: Unsupported .version 8.0\" >&2; exit 1");
	setenv("MMAGEN_CACHE_DIR", cache, 1);

	CHECK(mmart_open(0, &ctx) == MMART_OK, "mmart_open on the fake driver: %s",
	      mmart_last_error());
	if (ctx) {
		/* the cubin refused: once fresh (a miss), then PTX to the driver */
		one(ctx, good, NULL, 1, MMART_OK, 1, 1, "cubin refused");
		one(ctx, bad, NULL, 2, MMART_OK, 1, 0, "ptxas fails");
		one(ctx, good, "ptxas", 3, MMART_JIT, 0, 1, "MMART_JIT=ptxas, cubin refused");
		one(ctx, bad, "ptxas", 4, MMART_JIT, 0, 0, "MMART_JIT=ptxas, ptxas fails");
		one(ctx, good, "driver", 5, MMART_OK, 1, 0, "MMART_JIT=driver");
		mmart_close(ctx);
	}
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd))
		fail("cannot remove %s", dir);
	return check_summary();
}
