/* module.c - PTX to loaded module, through two caches.
 *
 * In process: a module belongs to a context, so each mmart_ctx keeps the
 * modules it loaded, by PTX hash.  On disk: the cubin that ptxas makes of
 * the PTX as a whole program, keyed by PTX, device, driver and ptxas
 * (cache.c, jit.c); without ptxas the driver compiles the PTX itself.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Error and info log buffers for one JIT call; the driver reads the sizes
 * from the option values themselves, hence the casts. */
struct jit_logs {
	char err[MMART_LOG_SIZE / 2];
	char info[MMART_LOG_SIZE / 4];
	CUjit_option opt[4];
	void *val[4];
};

static void jit_logs_init(struct jit_logs *l)
{
	l->err[0] = l->info[0] = '\0';
	l->opt[0] = CU_JIT_ERROR_LOG_BUFFER;
	l->val[0] = l->err;
	l->opt[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
	l->val[1] = (void *)(uintptr_t)sizeof l->err;
	l->opt[2] = CU_JIT_INFO_LOG_BUFFER;
	l->val[2] = l->info;
	l->opt[3] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
	l->val[3] = (void *)(uintptr_t)sizeof l->info;
}

/* The error log, or the info log when ptxas said nothing in the other. */
static const char *jit_log(struct jit_logs *l)
{
	l->err[sizeof l->err - 1] = l->info[sizeof l->info - 1] = '\0';
	return l->err[0] ? l->err : l->info;
}

/* mmart_compile_fn of the CUDA layer: PTX -> cubin with the JIT linker of
 * the current context's device. */
static mmart_status link_ptx(void *user, const char *ptx, void **cubin,
			     size_t *size, char *log, size_t logsize)
{
	struct jit_logs l;
	CUlinkState st = NULL;
	void *out = NULL;
	size_t n = 0;
	mmart_status s = MMART_OK;
	CUresult res;
	const char *call;

	(void)user;
	jit_logs_init(&l);
	call = "cuLinkCreate";
	res = cu.cuLinkCreate(4, l.opt, l.val, &st);
	if (!res) {
		call = "cuLinkAddData";
		res = cu.cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx,
				       strlen(ptx) + 1, "mmagen.ptx", 0, NULL,
				       NULL);
	}
	if (!res) {
		call = "cuLinkComplete";
		res = cu.cuLinkComplete(st, &out, &n);
	}
	if (res) {
		s = mmart_cu_error(call, res, jit_log(&l));
		/* CUDA_ERROR_INVALID_PTX and friends are JIT errors, but
		 * a failing linker is one too whatever its code says. */
		if (s == MMART_CUDA && strcmp(call, "cuLinkCreate"))
			s = MMART_JIT;
		snprintf(log, logsize, "%s", mmart_last_error());
		goto out;
	}
	/* The linker owns `out` until cuLinkDestroy. */
	*cubin = malloc(n);
	if (!*cubin) {
		s = MMART_NO_MEMORY;
		snprintf(log, logsize, "out of memory for a %zu-byte cubin", n);
		goto out;
	}
	memcpy(*cubin, out, n);
	*size = n;
out:
	if (st)
		cu.cuLinkDestroy(st);
	return s;
}

static mmart_status load_image(const void *image, CUmodule *mod)
{
	struct jit_logs l;
	CUresult res;

	jit_logs_init(&l);
	res = cu.cuModuleLoadDataEx(mod, image, 4, l.opt, l.val);
	return res ? mmart_cu_error("cuModuleLoadDataEx", res, jit_log(&l))
		   : MMART_OK;
}

/* Load through the disk cache; a cached cubin the driver refuses is
 * rebuilt once, bypassing the cache. */
/* The driver's whole-program JIT on the PTX itself: no cubin comes back,
 * so mmart's disk cache is bypassed (the driver's cache may answer). */
static mmart_status load_driver(const char *ptx, CUmodule *mod, int *hit)
{
	struct jit_logs l;
	CUresult res;

	jit_logs_init(&l);
	*hit = MMART_CACHE_BYPASS;
	res = cu.cuModuleLoadDataEx(mod, ptx, 4, l.opt, l.val);
	return res ? mmart_cu_error("cuModuleLoadDataEx", res, jit_log(&l)) : MMART_OK;
}

/* Compile (or take from the disk cache) with fn, then load; a cached
 * cubin the driver refuses is rebuilt once, bypassing the cache. */
static mmart_status load_cached(const char *ptx, const char *extra, mmart_compile_fn fn,
				void *user, CUmodule *mod, int *hit)
{
	char log[MMART_LOG_SIZE];
	void *cubin = NULL;
	size_t size = 0;
	mmart_status s;

	s = mmart_cache_get_or_build(NULL, ptx, extra, fn, user, &cubin, &size, hit);
	if (s != MMART_OK)
		return s;
	s = load_image(cubin, mod);
	/* a cubin the driver refuses leaves the cache: the next load
	 * compiles afresh (and falls back to the driver once more if it
	 * must) instead of reading it and compiling twice */
	if (s != MMART_OK && *hit != MMART_CACHE_BYPASS)
		mmart_cache_forget(NULL, ptx, extra);
	if (s != MMART_OK && *hit == MMART_CACHE_HIT) {
		mmart_host_free(cubin);
		cubin = NULL;
		s = fn(user, ptx, &cubin, &size, log, sizeof log);
		*hit = MMART_CACHE_BYPASS;
		if (s != MMART_OK)
			return mmart_set_error(s, "%s", log);
		mmart_set_error(MMART_OK, "the driver refused a cached cubin; compiled again");
		s = load_image(cubin, mod);
	}
	mmart_host_free(cubin);
	return s;
}

/* PTX as a whole program (jit.c says why): ptxas when there is one, else
 * the driver; MMART_JIT forces a way. */
static mmart_status load_new(mmart_ctx *ctx, const char *ptx, CUmodule *mod,
			     int *hit)
{
	char extra[4400], path[4096], id[4200];
	int mode = mmart_jit_mode();
	mmart_status s;

	if (mode == MMART_JIT_LINK) {
		/* What besides the PTX shapes the cubin.  "jit=default": we
		 * pass no optimisation options; name any we add here. */
		snprintf(extra, sizeof extra, "sm_%d%d driver=%d abi=%d jit=default",
			 ctx->cc_major, ctx->cc_minor, mmart_driver_api_version(),
			 MMART_CU_ABI);
		return load_cached(ptx, extra, link_ptx, ctx, mod, hit);
	}
	if (mode != MMART_JIT_DRIVER && mmart_find_ptxas(path, sizeof path)) {
		struct mmart_ptxas px = { path, ctx->cc_major, ctx->cc_minor };
		mmart_ptxas_id(path, id, sizeof id);
		snprintf(extra, sizeof extra, "sm_%d%d driver=%d abi=%d jit=whole %s",
			 ctx->cc_major, ctx->cc_minor, mmart_driver_api_version(),
			 MMART_CU_ABI, id);
		s = load_cached(ptx, extra, mmart_ptxas_compile, &px, mod, hit);
		if (s == MMART_OK || mode == MMART_JIT_PTXAS)
			return s;
		/* ptxas failed (one older than the PTX or the GPU, say) or
		 * the driver refused its cubin (a ptxas newer than the
		 * driver: CUDA_ERROR_INVALID_IMAGE or _NO_BINARY_FOR_GPU,
		 * MMART_JIT too): the driver's own JIT then, and its error
		 * when it fails as well */
	} else if (mode == MMART_JIT_PTXAS) {
		return mmart_set_error(MMART_JIT,
				       "MMART_JIT=ptxas but no ptxas found ($MMART_PTXAS, PATH, "
				       "/usr/local/cuda/bin); unset MMART_JIT to let the driver compile");
	}
	return load_driver(ptx, mod, hit);
}

mmart_status mmart_load_ptx(mmart_ctx *ctx, const char *ptx,
			    mmart_module **out, int *cache_hit)
{
	struct mmart_module *m;
	char name[72];
	uint8_t key[32];
	mmart_status s;
	int hit = MMART_CACHE_BYPASS;

	if (!ctx || !ptx || !out)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_load_ptx: NULL argument");
	*out = NULL;
	mmart_cache_key(ptx, "", key, name);
	pthread_mutex_lock(&ctx->lock);
	for (m = ctx->modules; m; m = m->next)
		if (!memcmp(m->key, key, sizeof key))
			break;
	if (m) {
		hit = MMART_CACHE_LOADED;
		s = MMART_OK;
		goto out;
	}
	if ((s = mmart_ctx_bind(ctx)) != MMART_OK)
		goto out;
	m = calloc(1, sizeof *m);
	if (!m) {
		s = mmart_set_error(MMART_NO_MEMORY, "out of memory");
		goto out;
	}
	s = load_new(ctx, ptx, &m->mod, &hit);
	if (s != MMART_OK) {
		free(m);
		m = NULL;
		goto out;
	}
	m->ctx = ctx;
	memcpy(m->key, key, sizeof key);
	m->next = ctx->modules;
	ctx->modules = m;
out:
	pthread_mutex_unlock(&ctx->lock);
	*out = m;
	if (cache_hit)
		*cache_hit = hit;
	return s;
}

mmart_status mmart_get_function(mmart_module *mod, const char *name,
				void **fn)
{
	CUfunction f = NULL;
	mmart_status s;
	CUresult res;
	char call[160];

	if (!mod || !name || !fn)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_get_function: NULL argument");
	if ((s = mmart_ctx_bind(mod->ctx)) != MMART_OK)
		return s;
	res = cu.cuModuleGetFunction(&f, mod->mod, name);
	if (res) {
		snprintf(call, sizeof call, "cuModuleGetFunction(\"%.100s\")",
			 name);
		return mmart_cu_error(call, res, NULL);
	}
	*fn = f;
	return MMART_OK;
}
