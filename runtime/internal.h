/* internal.h - shared by libmmart's own files; not installed. */
#ifndef MMART_INTERNAL_H
#define MMART_INTERNAL_H

#include "mmart.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "cuda_abi.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define MMART_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define MMART_HIDDEN __attribute__((visibility("hidden")))
#else
#define MMART_PRINTF(f, a)
#define MMART_HIDDEN
#endif

/* Room for a message plus a JIT log. */
#define MMART_LOG_SIZE 8192

/* ---- error.c ---- */
/* Record a failure for mmart_last_error() and return s. */
MMART_HIDDEN mmart_status mmart_set_error(mmart_status s, const char *fmt, ...)
	MMART_PRINTF(2, 3);
/* Record "call: CUDA_ERROR_NAME: description" (+ "\n" log when log is not
 * empty) and return the status res maps to. */
MMART_HIDDEN mmart_status mmart_cu_error(const char *call, CUresult res,
					 const char *log);

/* ---- driver.c ---- */
/* Opens and initialises the driver once; later calls repeat the outcome
 * (status and message). */
MMART_HIDDEN mmart_status mmart_driver_load(void);
MMART_HIDDEN int mmart_driver_api_version(void);
/* MMART_DRIVER_TOO_OLD for the optional entry point `name` of cuda.fn that
 * this driver lacks, naming the CUDA version that brought it. */
MMART_HIDDEN mmart_status mmart_driver_missing(const char *name);
/* MMART_OK when the driver has the optional entry point cu.fn. */
#define MMART_NEED(fn) (cu.fn ? MMART_OK : mmart_driver_missing(#fn))

/* ---- stream.c ---- */
struct mmart_stream {
	mmart_ctx *ctx;
	CUstream cu;
};

struct mmart_event {
	mmart_ctx *ctx;
	CUevent cu;
};

/* The CUstream of s (NULL: the default stream) after checking that s
 * belongs to ctx; fn names the caller in the message. */
MMART_HIDDEN mmart_status mmart_stream_of(const char *fn, mmart_ctx *ctx,
					  mmart_stream *s, CUstream *out);

/* ---- hash.c ---- */
typedef struct mmart_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
} mmart_sha256;
MMART_HIDDEN void mmart_sha256_init(mmart_sha256 *s);
MMART_HIDDEN void mmart_sha256_update(mmart_sha256 *s, const void *p, size_t n);
MMART_HIDDEN void mmart_sha256_final(mmart_sha256 *s, uint8_t out[32]);
MMART_HIDDEN uint64_t mmart_fnv1a64(const void *p, size_t n);

/* ---- cache_file.c: one entry on disk ---- */
/* Reads the entry at path: 0 and a malloc()ed payload if it is complete,
 * matches key and its checksum; -1 if absent or invalid. */
MMART_HIDDEN int mmart_entry_read(const char *path, const uint8_t key[32],
				  void **payload, size_t *size);
/* Writes the entry through a temporary file in the same directory and
 * rename(); 0 on success, -1 (errno set, nothing left behind) on failure. */
MMART_HIDDEN int mmart_entry_write(const char *path, const uint8_t key[32],
				   const void *payload, size_t size);
/* Removes temporaries of killed writers (an hour old, ours) from dir. */
MMART_HIDDEN void mmart_entry_sweep(const char *dir);

/* ---- cache.c ---- */
/* The key of (ptx, keyextra) and the entry's file name (64 hex digits
 * + ".cubin", NUL-terminated). */
MMART_HIDDEN void mmart_cache_key(const char *ptx, const char *keyextra,
				  uint8_t key[32], char name[72]);
/* 1 unless MMAGEN_CACHE=0. */
MMART_HIDDEN int mmart_cache_enabled(void);
/* Remove the cache entry of (ptx, keyextra) in dir (NULL: default). */
MMART_HIDDEN void mmart_cache_forget(const char *dir, const char *ptx, const char *keyextra);

/* ---- ctx.c ---- */
struct mmart_module {
	mmart_ctx *ctx;
	CUmodule mod;
	uint8_t key[32];        /* hash of the PTX, for the in-process cache */
	struct mmart_module *next;
};

struct mmart_ctx {
	int ordinal;
	CUdevice dev;
	CUcontext cu;
	int cc_major, cc_minor;
	int sms;                /* multiprocessors */
	char name[256];
	pthread_mutex_t lock;   /* guards modules */
	struct mmart_module *modules;
};

/* jit.c: whole-program compilation of PTX */
enum { MMART_JIT_AUTO, MMART_JIT_PTXAS, MMART_JIT_DRIVER, MMART_JIT_LINK };
struct mmart_ptxas {
	const char *path;
	int major, minor;       /* the device */
};
MMART_HIDDEN int mmart_jit_mode(void);
MMART_HIDDEN int mmart_find_ptxas(char *out, size_t n);
MMART_HIDDEN void mmart_ptx_arch(const char *ptx, int major, int minor, char *out, size_t n);
MMART_HIDDEN void mmart_ptxas_id(const char *ptxas, char *out, size_t n);
MMART_HIDDEN mmart_status mmart_ptxas_compile(void *user, const char *ptx, void **cubin,
					      size_t *size, char *log, size_t logsize);

/* Make ctx current in this thread (contexts are per thread). */
MMART_HIDDEN mmart_status mmart_ctx_bind(mmart_ctx *ctx);

#endif
