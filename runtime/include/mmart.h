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

/* The ABI.  libmmart.so is built with -fvisibility=hidden and exports
 * exactly the functions declared here, each marked MMART_API on the line
 * before it (tests/unit/test_abi.sh checks).  Handles (mmart_ctx,
 * mmart_module, mmart_stream, mmart_event) are opaque.  The structs the
 * caller fills are frozen: mmart_tensor_desc holds exactly the arguments
 * of cuTensorMapEncodeTiled (rank <= 5 is the driver's limit),
 * mmart_tensor_map is CUtensorMap's 128 bytes, and mmart_launch_config
 * holds the launch attributes libmmart supports; a new attribute would
 * come as a new struct and function, not a new field. */
#if defined(__GNUC__) || defined(__clang__)
#define MMART_API __attribute__((visibility("default")))
#else
#define MMART_API
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
	X(NOT_FOUND, "no such kernel in module")                           \
	X(DRIVER_TOO_OLD, "CUDA driver too old for this call")

typedef enum mmart_status {
#define MMART_X_(id, str) MMART_##id,
	MMART_STATUS_LIST(MMART_X_)
#undef MMART_X_
	MMART_STATUS_COUNT
} mmart_status;

/* "MMART_NO_DRIVER" style name of a status. */
MMART_API
const char *mmart_status_str(mmart_status s);
/* One-line description of a status ("no CUDA driver: ..."). */
MMART_API
const char *mmart_status_desc(mmart_status s);
/* Thread-local detail of the last failure in this thread ("" when none);
 * not cleared by later successes. */
MMART_API
const char *mmart_last_error(void);
/* Frees host buffers the library returns (cubins). */
MMART_API
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
MMART_API
mmart_status mmart_open(int device, mmart_ctx **out);
/* Unloads the context's modules and releases the primary context; device
 * memory from mmart_alloc() must be freed before.  NULL is ignored. */
MMART_API
void mmart_close(mmart_ctx *ctx);
/* The device's number of multiprocessors (persistent kernels size their
 * grid by it). */
MMART_API
mmart_status mmart_device_sms(mmart_ctx *ctx, int *sms);
/* Compute capability and name (name may be NULL; n includes the NUL). */
MMART_API
mmart_status mmart_device_info(mmart_ctx *ctx, int *cc_major, int *cc_minor,
			       char *name, size_t n);
/* The device's PCI address as NVML writes it, "00000000:1B:00.0" (domain,
 * bus, device, function 0, in hex): tools that number GPUs otherwise
 * (NVML, nvidia-smi) find the same device by it.  n includes the NUL and
 * must be at least MMART_PCI_BUS_ID_SIZE. */
#define MMART_PCI_BUS_ID_SIZE 17
MMART_API
mmart_status mmart_device_pci_bus_id(mmart_ctx *ctx, char *buf, size_t n);
/* Driver API version, e.g. 13000 for CUDA 13.0. */
MMART_API
mmart_status mmart_driver_version(int *version);

/* ---- modules ---- */
typedef struct mmart_module mmart_module;
/* Compiles (or fetches from the caches) the NUL-terminated PTX text and
 * loads it into ctx.  The same PTX loaded twice into one context gives the
 * same module.  Modules belong to their context and are unloaded by
 * mmart_close().  *cache_hit (may be NULL) gets an MMART_CACHE_* value.
 * A PTX error gives MMART_JIT with the JIT log in mmart_last_error().
 *
 * PTX is compiled as one whole program (the driver's JIT linker would
 * compile it as relocatable code, which ignores setmaxnreg and serializes
 * wgmma around calls): with ptxas when one is found ($MMART_PTXAS, else
 * PATH, else /usr/local/cuda/bin; its cubin is cached on disk), else by
 * the driver's cuModuleLoadDataEx (not cached by mmart: MMART_CACHE_BYPASS;
 * the driver's own cache may answer).  When ptxas fails (one older than
 * the PTX or the GPU) or the driver refuses its cubin (a ptxas newer than
 * the driver), the driver compiles the PTX: its error if it fails too.
 * MMART_JIT=ptxas|driver|link forces one way; link is the relocatable
 * path through cuLinkAddData, kept for comparison. */
MMART_API
mmart_status mmart_load_ptx(mmart_ctx *ctx, const char *ptx,
			    mmart_module **out, int *cache_hit);
/* *fn gets the CUfunction of the .entry named `name` (MMART_NOT_FOUND). */
MMART_API
mmart_status mmart_get_function(mmart_module *mod, const char *name,
				void **fn);

/* ---- memory (device pointers are CUdeviceptr values) ---- */
MMART_API
mmart_status mmart_alloc(mmart_ctx *ctx, size_t bytes, uint64_t *dptr);
/* 0 is ignored. */
MMART_API
mmart_status mmart_free(mmart_ctx *ctx, uint64_t dptr);
/* Synchronous: mmart_copy_to_device and mmart_memset8 return once the
 * bytes are in device memory (they wait for the context), so a launch on
 * any stream, non-blocking ones too, sees them. */
MMART_API
mmart_status mmart_copy_to_device(mmart_ctx *ctx, uint64_t dst,
				  const void *src, size_t bytes);
MMART_API
mmart_status mmart_copy_to_host(mmart_ctx *ctx, void *dst, uint64_t src,
				size_t bytes);
MMART_API
mmart_status mmart_memset8(mmart_ctx *ctx, uint64_t dst, uint8_t value,
			   size_t bytes);

/* ---- launches (on the default stream) ---- */
/* params: one pointer per kernel parameter, pointing at its value, as for
 * cuLaunchKernel.  Launch failures may only show at mmart_sync(). */
MMART_API
mmart_status mmart_launch(mmart_ctx *ctx, void *fn, const unsigned grid[3],
			  const unsigned block[3], unsigned smem_bytes,
			  void **params);
/* Waits for all work in ctx; reports asynchronous kernel errors. */
MMART_API
mmart_status mmart_sync(mmart_ctx *ctx);
/* Launches `reps` (>= 1) times back to back between two events, waits,
 * and gives the mean time of one launch in milliseconds. */
MMART_API
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
 * saves time.  *cubin is freed with mmart_host_free(); hit may be NULL.
 * The directory is used only if it belongs to the caller (effective uid)
 * and neither group nor others may write it: entries are loaded as code.
 * After MMART_CACHE_BYPASS, mmart_last_error() holds one line saying why
 * (empty when MMAGEN_CACHE=0 turned the cache off). */
MMART_API
mmart_status mmart_cache_get_or_build(const char *dir, const char *ptx,
				      const char *keyextra,
				      mmart_compile_fn compile, void *user,
				      void **cubin, size_t *size, int *hit);
/* The directory the cache uses by default (see Environment), into buf. */
MMART_API
mmart_status mmart_cache_default_dir(char *buf, size_t n);

/* ---- streams and events ---- */
/* A stream of a context; NULL wherever a stream is taken means the
 * context's default (legacy) stream.  Streams and events are used with the
 * context that created them (MMART_INVALID_ARGUMENT otherwise). */
typedef struct mmart_stream mmart_stream;
/* A non-blocking stream (CU_STREAM_NON_BLOCKING: no implicit
 * synchronisation with the default stream). */
MMART_API
mmart_status mmart_stream_create(mmart_ctx *ctx, mmart_stream **out);
/* Frees the stream once its queued work is done; NULL is ignored. */
MMART_API
mmart_status mmart_stream_destroy(mmart_ctx *ctx, mmart_stream *stream);
/* Waits for the stream's work; reports asynchronous kernel errors. */
MMART_API
mmart_status mmart_stream_sync(mmart_ctx *ctx, mmart_stream *stream);
/* The CUstream, for other libraries (cuBLASLt); NULL for NULL. */
MMART_API
void *mmart_stream_handle(mmart_stream *stream);

/* A timing event (CU_EVENT_DEFAULT). */
typedef struct mmart_event mmart_event;
MMART_API
mmart_status mmart_event_create(mmart_ctx *ctx, mmart_event **out);
/* NULL is ignored. */
MMART_API
mmart_status mmart_event_destroy(mmart_ctx *ctx, mmart_event *event);
MMART_API
mmart_status mmart_event_record(mmart_ctx *ctx, mmart_event *event,
				mmart_stream *stream);
/* Waits for `end`, then gives the time from `start` to `end` in
 * milliseconds (both recorded). */
MMART_API
mmart_status mmart_event_elapsed_ms(mmart_ctx *ctx, mmart_event *start,
				    mmart_event *end, float *ms);

/* Asynchronous copies and memset on a stream: host buffers must stay valid
 * (and unchanged) until the stream has done them; pageable host memory
 * makes the driver stage the copy. */
MMART_API
mmart_status mmart_copy_to_device_async(mmart_ctx *ctx, uint64_t dst,
					const void *src, size_t bytes,
					mmart_stream *stream);
MMART_API
mmart_status mmart_copy_to_host_async(mmart_ctx *ctx, void *dst, uint64_t src,
				      size_t bytes, mmart_stream *stream);
MMART_API
mmart_status mmart_memset8_async(mmart_ctx *ctx, uint64_t dst, uint8_t value,
				 size_t bytes, mmart_stream *stream);

/* ---- launches with a configuration (clusters, streams) ---- */
typedef struct mmart_launch_config {
	unsigned grid[3];       /* blocks per grid, each >= 1 */
	unsigned block[3];      /* threads per block, each >= 1 */
	/* Blocks per cluster (sm_90+).  {1,1,1} or {0,0,0}: no cluster
	 * attribute; otherwise each grid[i] must be a multiple of
	 * cluster[i]. */
	unsigned cluster[3];
	unsigned smem_bytes;    /* dynamic shared memory per block; above
				 * 48 KB needs mmart_func_set_max_dynamic_smem */
	mmart_stream *stream;   /* NULL: the default stream */
} mmart_launch_config;

/* Checks a configuration without launching (what mmart_launch_ex checks
 * before it touches the driver). */
MMART_API
mmart_status mmart_launch_config_check(const mmart_launch_config *cfg);
/* Launches fn (cuLaunchKernelEx) with params as for mmart_launch().  The
 * configuration is checked first, before ctx and fn.  Needs a CUDA 11.8
 * driver (MMART_DRIVER_TOO_OLD). */
MMART_API
mmart_status mmart_launch_ex(mmart_ctx *ctx, void *fn,
			     const mmart_launch_config *cfg, void **params);
/* Lets fn use up to `bytes` of dynamic shared memory per block
 * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); `bytes` plus fn's
 * static shared memory must fit the device's opt-in maximum per block
 * (227 KB on sm_90), or MMART_INVALID_ARGUMENT says how much fits. */
MMART_API
mmart_status mmart_func_set_max_dynamic_smem(mmart_ctx *ctx, void *fn,
					     unsigned bytes);

/* ---- tensor maps (TMA descriptors, sm_90+) ---- */
/* Element types; the values are CUtensorMapDataType's. */
typedef enum mmart_tensor_dtype {
	MMART_TENSOR_U8 = 0,
	MMART_TENSOR_U16 = 1,
	MMART_TENSOR_U32 = 2,
	MMART_TENSOR_S32 = 3,
	MMART_TENSOR_U64 = 4,
	MMART_TENSOR_S64 = 5,
	MMART_TENSOR_F16 = 6,
	MMART_TENSOR_F32 = 7,
	MMART_TENSOR_F64 = 8,
	MMART_TENSOR_BF16 = 9,
	MMART_TENSOR_F32_FTZ = 10,
	MMART_TENSOR_TF32 = 11,
	MMART_TENSOR_TF32_FTZ = 12
} mmart_tensor_dtype;

/* Layout of the tensor in global memory (CUtensorMapInterleave). */
typedef enum mmart_tensor_interleave {
	MMART_INTERLEAVE_NONE = 0,
	MMART_INTERLEAVE_16B = 1,
	MMART_INTERLEAVE_32B = 2
} mmart_tensor_interleave;

/* Shared-memory swizzle of the box (CUtensorMapSwizzle). */
typedef enum mmart_tensor_swizzle {
	MMART_SWIZZLE_NONE = 0,
	MMART_SWIZZLE_32B = 1,
	MMART_SWIZZLE_64B = 2,
	MMART_SWIZZLE_128B = 3
} mmart_tensor_swizzle;

/* L2 fetch granularity (CUtensorMapL2promotion). */
typedef enum mmart_tensor_l2 {
	MMART_L2_NONE = 0,
	MMART_L2_64B = 1,
	MMART_L2_128B = 2,
	MMART_L2_256B = 3
} mmart_tensor_l2;

/* Fill of out-of-bounds elements (CUtensorMapFloatOOBfill): zeros, or for
 * float types a NaN that makes the FMA count it as zero. */
typedef enum mmart_tensor_oob {
	MMART_OOB_ZERO = 0,
	MMART_OOB_NAN = 1
} mmart_tensor_oob;

/* A tiled tensor in global memory and the box a TMA copy moves.
 * Dimension 0 is the innermost (contiguous): a row-major R x C matrix has
 * dims {C, R} and strides {row pitch in bytes}. */
typedef struct mmart_tensor_desc {
	mmart_tensor_dtype dtype;
	unsigned rank;            /* 1..5; >= 3 when interleaved */
	uint64_t addr;            /* device address, 16-byte aligned (32 for
				   * MMART_INTERLEAVE_32B) */
	uint64_t dims[5];         /* elements, 1..2^32 each */
	/* strides[i]: bytes from one index of dimension i+1 to the next
	 * (rank-1 of them; dimension 0 is packed): multiples of 16 (32 for
	 * MMART_INTERLEAVE_32B), below 2^40, and (not interleaved) either
	 * 0 or enough for the dimensions inside: strides[0] >= dims[0] *
	 * element size, strides[i] >= strides[i-1] * dims[i]. */
	uint64_t strides[4];
	/* Elements the box spans per dimension, 1..256; box[0] times the
	 * element size must be a multiple of 16 bytes (not interleaved) and
	 * at most the swizzle span (32, 64 or 128 bytes) when swizzled. */
	uint32_t box[5];
	/* Traversal step per dimension, 1..8; 0 is taken as 1. */
	uint32_t elem_strides[5];
	mmart_tensor_interleave interleave;
	mmart_tensor_swizzle swizzle;
	mmart_tensor_l2 l2_promotion;
	mmart_tensor_oob oob_fill;
} mmart_tensor_desc;

/* The encoded descriptor: the same 128 bytes, 64-byte aligned, as
 * CUtensorMap; pass its address as the kernel parameter (declared in PTX
 * as .param .align 64 .b8 name[128]). */
typedef struct mmart_tensor_map {
#ifdef __cplusplus
	alignas(64) uint64_t opaque[16];
#else
	_Alignas(64) uint64_t opaque[16];
#endif
} mmart_tensor_map;

/* Size in bytes of one element of dtype; 0 when dtype is not one. */
MMART_API
unsigned mmart_tensor_dtype_size(mmart_tensor_dtype dtype);
/* Checks desc against the rules of cuTensorMapEncodeTiled without the
 * driver; a failure is MMART_INVALID_ARGUMENT with one line that names the
 * operand (`name`, e.g. "A"; NULL: "tensor"), the rule and the nearest
 * legal value. */
MMART_API
mmart_status mmart_tensor_desc_check(const char *name,
				     const mmart_tensor_desc *desc);
/* Checks desc as above, then (ctx needed from here on) encodes it into
 * *out, which must be 64-byte aligned.  Needs a CUDA 12.0 driver
 * (MMART_DRIVER_TOO_OLD) and an sm_90+ device. */
MMART_API
mmart_status mmart_tensor_map_encode(mmart_ctx *ctx, const char *name,
				     const mmart_tensor_desc *desc,
				     mmart_tensor_map *out);

/* ---- GEMM kernels: launch from the ABI the generator wrote ----
 * A GEMM kernel of mmagen comes as PTX and an ABI text (`mmagen gemm
 * --format abi`, mmagen_gemm_emit(..., MMAGEN_FMT_ABI, ...), or both
 * embedded in the header of `mmagen gemm --format c`).  The launcher reads
 * the ABI (parameters in order, grid rule, tensor maps, workspace, the
 * rules a launch must meet) so that a program never restates it.
 *
 * The problem is cuBLAS's, row-major: D (M x N) = alpha * A (M x K) *
 * B (K x N) + beta * C (M x N), D and C row-major with leading dimensions
 * ldd, ldc; A K-major (row-major M x K, lda >= K) or, for kernels of
 * layout nn/nt, M-major (lda >= M); B K-major (N rows of K, ldb >= K) or,
 * for nt/tt, N-major (ldb >= N).  Any M, N, K >= 1 (below 2^31) and any
 * leading dimension >= the row: an operand the kernel cannot read as it
 * is (a base or row pitch not 16-byte aligned for A or B, K not a
 * multiple the kernel needs, C or D not aligned to pairs) is copied to an
 * aligned buffer of the kernel's (cuMemcpy2DAsync, on the same stream)
 * and D copied back; the cost shows in benchmarks, not in results.
 *
 * Tensor maps are encoded once per (operand, address, shape, leading
 * dimension) and kept (the 64 encoded last); the split-K workspace and counters
 * and the staging buffers belong to the kernel and grow as needed, so
 * launches of one kernel must not overlap (use one kernel per stream, or
 * order the streams, or pass each stream's own scratch in the args).
 * Kernels use the device's primary context, so a program that also runs
 * PyTorch or the CUDA runtime shares it; the launch and the kernel
 * lookup leave the thread's current context as they found it. */
typedef struct mmart_gemm_kernel mmart_gemm_kernel;

typedef struct mmart_gemm_args {
	size_t size;              /* sizeof(mmart_gemm_args): set by _init */
	uint32_t m, n, k;
	uint64_t a, b, c, d;      /* device addresses; c read only when
				   * beta != 0 (then 0 is refused) */
	uint64_t lda, ldb, ldc, ldd;   /* elements; 0: the dense value */
	float alpha, beta;        /* 1 and 0 after _init */
	float d_scale;            /* FP8 D: D = satfinite(d_scale * ...); 1
				   * after _init */
	uint32_t splits;          /* split-K kernels whose S is chosen at run
				   * time (`--split-k auto`): S; 0: 1 */
	uint64_t sa, sb;          /* block scales (0 without): sm_120a's
				   * scale rows, or the sm_90a fp8-block
				   * kernel's f32 scales (below) */
	uint64_t ldsa, ldsb;      /* sm_120a: their row pitches in bytes; 0:
				   * dense (ceil(K / block) rounded up to
				   * the kernel's bytes per K block) */
	/* Device memory of the caller's for this launch's split-K counters,
	 * workspace and staging copies (0: the kernel's own buffers).  A
	 * caller that launches kernels on several streams at once, or
	 * captures launches into CUDA graphs, passes one scratch per
	 * stream from its own allocator (PyTorch's caching allocator, a
	 * graph's pool), shared by every kernel launched on that stream:
	 * mmart_gemm_kernel_scratch gives the bytes a launch needs (often
	 * 0), the base must be 256-byte aligned, and its contents do not
	 * matter (the launch zeroes its split-K counters on the stream
	 * first, a memset of a few bytes per tile). */
	uint64_t scratch, scratch_bytes;
	/* sm_90a fp8-block kernels (`mmagen gemm --quant fp8-block`; the
	 * ABI's `scales f32 a 1x128 b 128x128`): the strides, in f32
	 * elements, of the scales at sa and sb, which are the caller's
	 * device memory and never read by the launcher.  With KB = ceil(K /
	 * 128) and NB = ceil(N / 128), the scale of A's row m and K block
	 * kb is at sa + 4 * (m * sa_sm + kb * sa_sk), that of B's block
	 * (n / 128, kb) at sb + 4 * (nb * sb_sn + kb * sb_sk).  A pair both
	 * 0 (the default) is row-major: sa [M][KB] (sa_sm = KB, sa_sk = 1),
	 * sb [NB][KB] (sb_sn = KB, sb_sk = 1); column-major A scales (as
	 * DeepGEMM and torch's blockwise _scaled_mm keep them, [KB][M]) are
	 * sa_sm = 1, sa_sk = M (or any pitch of M or more).  A launch
	 * refuses sa or sb of 0 or not 4-byte aligned, a stride past 2^32 - 1,
	 * and strides whose last index ((M - 1) * sa_sm + (KB - 1) * sa_sk,
	 * (NB - 1) * sb_sn + (KB - 1) * sb_sk) passes 2^32 - 1. */
	uint64_t sa_sm, sa_sk, sb_sn, sb_sk;
} mmart_gemm_args;

MMART_API
void mmart_gemm_args_init_size(mmart_gemm_args *a, size_t size);
#define mmart_gemm_args_init(a) mmart_gemm_args_init_size((a), sizeof *(a))

/* Compiles (or fetches from the caches) ptx, loads it into ctx and reads
 * its ABI text; MMART_INVALID_ARGUMENT names a line of abi this library
 * does not know. */
MMART_API
mmart_status mmart_gemm_kernel_load(mmart_ctx *ctx, const char *ptx,
				    const char *abi, mmart_gemm_kernel **out);
/* Checks args against the kernel's rules (one line naming the rule and
 * the nearest legal value) and launches it on `stream`, a CUstream (NULL:
 * the legacy default stream; mmart_stream_handle() gives an mmart
 * stream's).  Asynchronous like any launch; staging copies go on the same
 * stream. */
MMART_API
mmart_status mmart_gemm_kernel_launch(mmart_gemm_kernel *k,
				      const mmart_gemm_args *args,
				      void *stream);
/* The bytes of scratch (mmart_gemm_args.scratch) a launch with args
 * needs, without launching: 0 when it needs none (no split-K, nothing
 * staged).  Checks args as the launch would. */
MMART_API
mmart_status mmart_gemm_kernel_scratch(mmart_gemm_kernel *k, const mmart_gemm_args *args,
				       uint64_t *bytes);
/* Waits for the kernel's launches to finish (its buffers) and frees it;
 * NULL is ignored.  Its module stays loaded with the context. */
MMART_API
void mmart_gemm_kernel_free(mmart_gemm_kernel *k);
/* The grid and block of the launch args would make (no launch), for
 * tools that report or profile it; grid and block may be NULL. */
MMART_API
mmart_status mmart_gemm_kernel_grid(mmart_gemm_kernel *k,
				    const mmart_gemm_args *args,
				    unsigned grid[3], unsigned block[3]);

/* ---- GEMM by request: generate per shape, load once, launch ----
 * A handle keeps one kernel per (M, N, K), made on first use by a
 * generator the caller passes (mmagen_jit.h's mmagen_jit_generate turns
 * an mmagen_gemm_request into one: choose tiles and split-K for the
 * shape, emit the PTX and its ABI, load); later launches of that shape
 * cost one lookup and the launch.  Threads may share a handle: a kernel
 * is made once even when they race for it (the generator runs under the
 * handle's lock).  But a kernel's buffers (split-K workspace, staging)
 * serve one launch at a time: launches that may run at once on the GPU
 * (other streams) need a handle each.  CUDA graph capture works after a
 * warm-up launch of the same shape and operands (nothing is allocated or
 * synchronised then); a capture that grows a buffer fails. */
typedef struct mmart_gemm mmart_gemm;

typedef struct mmart_gemm_shape {
	uint32_t m, n, k;
	int sms;                  /* the device's multiprocessors */
} mmart_gemm_shape;

/* Makes the kernel for `shape` in ctx into *out (mmart_gemm_kernel_load);
 * on failure returns a status and may write one line into err[0..errn). */
typedef mmart_status (*mmart_gemm_generate_fn)(void *user, mmart_ctx *ctx,
					       const mmart_gemm_shape *shape,
					       mmart_gemm_kernel **out,
					       char *err, size_t errn);

/* `user` is passed to generate and must outlive the handle. */
MMART_API
mmart_status mmart_gemm_create(mmart_ctx *ctx, mmart_gemm_generate_fn generate,
			       void *user, mmart_gemm **out);
/* The kernel for args' M, N, K (made on first use), then
 * mmart_gemm_kernel_launch. */
MMART_API
mmart_status mmart_gemm_launch(mmart_gemm *g, const mmart_gemm_args *args,
			       void *stream);
/* The handle's kernel for M x N x K (made on first use): to time it, or
 * to launch it with mmart_gemm_kernel_launch. */
MMART_API
mmart_status mmart_gemm_kernel_for(mmart_gemm *g, uint32_t m, uint32_t n,
				   uint32_t k, mmart_gemm_kernel **kernel);
/* Frees the handle and its kernels; NULL is ignored. */
MMART_API
void mmart_gemm_destroy(mmart_gemm *g);

#ifdef __cplusplus
}
#endif

#endif
