/* mmart.h - the public API of libmmart, the runtime that JIT-loads PTX
 * through the CUDA Driver API and launches it.
 *
 * The library needs neither cuda.h nor libcuda at build time: it opens
 * libcuda.so.1 with dlopen() on first use, so programs that link it run on
 * machines without a driver, and everything that needs a GPU then fails with
 * MMART_NO_DRIVER.  Every function returns an mmart_status (0 = MMART_OK);
 * after a failure mmart_last_error() holds the detail, for CUDA failures
 * "call: CUDA_ERROR_NAME: description" followed by the JIT log when there is
 * one.  The library never prints and never exits.
 *
 * Environment:
 *   MMAGEN_DEVICE     device index used by mmart_open(-1, ...) (default 0)
 *   MMAGEN_CACHE=0    turns the disk cache of compiled modules off
 *   MMAGEN_CACHE_DIR  cache directory; else $XDG_CACHE_HOME/mmagen, else
 *                     $HOME/.cache/mmagen
 *   MMAGEN_LIBCUDA    driver library to open instead of libcuda.so.1
 *
 * Threads: all functions may be called from any thread; a context is made
 * current in the calling thread by each call that uses it.
 */
#ifndef MMART_H
#define MMART_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes: one list, the enum and the names come from it ---- */
#define MMART_STATUS_LIST(X)                                               \
	X(OK, "ok")                                                        \
	X(NO_DRIVER, "no CUDA driver: libcuda.so.1 not found")             \
	X(NO_DEVICE, "no such CUDA device")                                \
	X(CUDA, "CUDA driver call failed")                                 \
	X(JIT, "PTX JIT compilation failed")                               \
	X(IO, "input/output error")                                        \
	X(INVALID_ARGUMENT, "invalid argument")                            \
	X(NO_MEMORY, "out of memory")                                      \
	X(NOT_FOUND, "no such kernel in module")

typedef enum mmart_status {
#define MMART_X_(id, str) MMART_##id,
	MMART_STATUS_LIST(MMART_X_)
#undef MMART_X_
	MMART_STATUS_COUNT
} mmart_status;

/* "MMART_NO_DRIVER" style name of a status. */
const char *mmart_status_str(mmart_status s);
/* One-line description of a status ("no CUDA driver: ..."). */
const char *mmart_status_desc(mmart_status s);
/* Thread-local detail of the last failure in this thread ("" when none);
 * not cleared by later successes. */
const char *mmart_last_error(void);
/* Frees host buffers the library returns (cubins). */
void mmart_host_free(void *p);

/* Where a module came from (mmart_load_ptx, mmart_cache_get_or_build). */
enum {
	MMART_CACHE_MISS = 0,   /* compiled now and stored in the disk cache */
	MMART_CACHE_HIT = 1,    /* read from the disk cache */
	MMART_CACHE_BYPASS = 2, /* compiled now, not stored: cache off
				 * (MMAGEN_CACHE=0) or its directory unusable */
	MMART_CACHE_LOADED = 3  /* already loaded in this context */
};

/* ---- contexts ---- */
/* A device and its primary context (retained while open). */
typedef struct mmart_ctx mmart_ctx;
/* Device `device`, or for -1 the index in $MMAGEN_DEVICE, else 0. */
mmart_status mmart_open(int device, mmart_ctx **out);
/* Unloads the context's modules and releases the primary context; device
 * memory from mmart_alloc() must be freed before.  NULL is ignored. */
void mmart_close(mmart_ctx *ctx);
/* Compute capability and name (name may be NULL; n includes the NUL). */
mmart_status mmart_device_info(mmart_ctx *ctx, int *cc_major, int *cc_minor,
			       char *name, size_t n);
/* Driver API version, e.g. 13000 for CUDA 13.0. */
mmart_status mmart_driver_version(int *version);

/* ---- modules ---- */
typedef struct mmart_module mmart_module;
/* Compiles (or fetches from the caches) the NUL-terminated PTX text and
 * loads it into ctx.  The same PTX loaded twice into one context gives the
 * same module.  Modules belong to their context and are unloaded by
 * mmart_close().  *cache_hit (may be NULL) gets an MMART_CACHE_* value.
 * A PTX error gives MMART_JIT with the ptxas log in mmart_last_error(). */
mmart_status mmart_load_ptx(mmart_ctx *ctx, const char *ptx,
			    mmart_module **out, int *cache_hit);
/* *fn gets the CUfunction of the .entry named `name` (MMART_NOT_FOUND). */
mmart_status mmart_get_function(mmart_module *mod, const char *name,
				void **fn);

/* ---- memory (device pointers are CUdeviceptr values) ---- */
mmart_status mmart_alloc(mmart_ctx *ctx, size_t bytes, uint64_t *dptr);
/* 0 is ignored. */
mmart_status mmart_free(mmart_ctx *ctx, uint64_t dptr);
mmart_status mmart_copy_to_device(mmart_ctx *ctx, uint64_t dst,
				  const void *src, size_t bytes);
mmart_status mmart_copy_to_host(mmart_ctx *ctx, void *dst, uint64_t src,
				size_t bytes);
mmart_status mmart_memset8(mmart_ctx *ctx, uint64_t dst, uint8_t value,
			   size_t bytes);

/* ---- launches (on the default stream) ---- */
/* params: one pointer per kernel parameter, pointing at its value, as for
 * cuLaunchKernel.  Launch failures may only show at mmart_sync(). */
mmart_status mmart_launch(mmart_ctx *ctx, void *fn, const unsigned grid[3],
			  const unsigned block[3], unsigned smem_bytes,
			  void **params);
/* Waits for all work in ctx; reports asynchronous kernel errors. */
mmart_status mmart_sync(mmart_ctx *ctx);
/* Launches `reps` (>= 1) times back to back between two events, waits,
 * and gives the mean time of one launch in milliseconds. */
mmart_status mmart_time_launch(mmart_ctx *ctx, void *fn,
			       const unsigned grid[3], const unsigned block[3],
			       unsigned smem_bytes, void **params, int reps,
			       float *ms);

/* ---- the disk cache, usable without a driver ---- */
/* Turns ptx into a cubin in a malloc()ed buffer.  On failure it returns a
 * status other than MMART_OK and may write a NUL-terminated message (the
 * JIT log) into log[0..logsize). */
typedef mmart_status (*mmart_compile_fn)(void *user, const char *ptx,
					 void **cubin, size_t *size,
					 char *log, size_t logsize);
/* The cubin for (ptx, keyextra): read from directory `dir` (NULL: the
 * default from the environment) when a valid entry is there, else built
 * with `compile` and stored.  keyextra names everything besides the PTX
 * that changes the result (target, driver, JIT options).  A missing,
 * truncated or corrupt entry is rebuilt and replaced.  If the entry cannot
 * be stored (directory not creatable or not writable) the built cubin is
 * still returned with MMART_OK and *hit = MMART_CACHE_BYPASS: the cache only
 * saves time.  *cubin is freed with mmart_host_free(); hit may be NULL. */
mmart_status mmart_cache_get_or_build(const char *dir, const char *ptx,
				      const char *keyextra,
				      mmart_compile_fn compile, void *user,
				      void **cubin, size_t *size, int *hit);
/* The directory the cache uses by default (see Environment), into buf. */
mmart_status mmart_cache_default_dir(char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
