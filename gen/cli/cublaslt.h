/* cublaslt.h - cuBLASLt, opened with dlopen when `run gemm --bench` wants
 * a figure to compare with; optional: without it mmagen times itself
 * alone.  The few declarations needed are our own (cublaslt.fn); the
 * constants are cublasLt.h's, library_types.h's and cublas_api.h's values,
 * checked against those headers by tests/unit/test_cublaslt_abi.c. */
#ifndef MMAGEN_CUBLASLT_H
#define MMAGEN_CUBLASLT_H

#include "mmagen.h"

#include <stddef.h>
#include <stdint.h>

/* X(name, value) */
#define LT_CONST_LIST(X)                                                   \
	X(CUBLAS_STATUS_SUCCESS, 0)                                        \
	X(CUBLAS_OP_N, 0)                                                  \
	X(CUBLAS_OP_T, 1)                                                  \
	X(CUBLAS_COMPUTE_32F, 68)                                          \
	X(CUBLAS_COMPUTE_32F_FAST_TF32, 77)                                \
	X(CUBLAS_COMPUTE_32I, 72)                                          \
	X(CUDA_R_32F, 0)                                                   \
	X(CUDA_R_16F, 2)                                                   \
	X(CUDA_R_16BF, 14)                                                 \
	X(CUDA_R_8F_E4M3, 28)                                              \
	X(CUDA_R_8F_E5M2, 29)                                              \
	X(CUDA_R_8I, 3)                                                    \
	X(CUDA_R_8U, 8)                                                    \
	X(CUDA_R_32I, 10)                                                  \
	X(CUBLASLT_MATMUL_DESC_TRANSA, 3)                                  \
	X(CUBLASLT_MATMUL_DESC_TRANSB, 4)                                  \
	X(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 1)

enum {
#define LT_X_(name, value) LT_##name = value,
	LT_CONST_LIST(LT_X_)
#undef LT_X_
};

/* cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t */
struct lt_algo {
	uint64_t data[8];
};
struct lt_heuristic {
	struct lt_algo algo;
	size_t workspace_size;
	int state;               /* cublasStatus_t */
	float waves_count;
	int reserved[4];
};

#ifndef LT_STATUS
#define LT_STATUS int
#define LT_HANDLE void *
#define LT_MATMUL_DESC void *
#define LT_LAYOUT void *
#define LT_PREF void *
#define LT_COMPUTE int
#define LT_DTYPE int
#define LT_LAYOUT_DTYPE int
#define LT_DESC_ATTR int
#define LT_PREF_ATTR int
#define LT_HEURISTIC struct lt_heuristic
#define LT_ALGO struct lt_algo
#define LT_STREAM void *
#endif

/* The library, once opened: one pointer per row of cublaslt.fn. */
struct cublaslt {
	void *lib;
	char path[256];          /* what was opened */
#define LT_FN(ret, name, params) ret (*name) params;
#include "cublaslt.fn"
#undef LT_FN
};

/* Opens $MMAGEN_CUBLASLT if set, else libcublasLt.so.13 or .so.12 from
 * the loader's path, /usr/local/cuda/lib64 or
 * /usr/local/cuda/targets/x86_64-linux/lib.  0, or -1 with one line in
 * `why` (what was tried and the loader's last answer). */
int cublaslt_open(struct cublaslt *lt, char *why, size_t n);
void cublaslt_close(struct cublaslt *lt);

/* cudaDataType of an A/B/C/D element type as mmagen stores it (tf32 as
 * f32: cuBLASLt reads it as tf32 with CUBLAS_COMPUTE_32F_FAST_TF32);
 * -1 for types the GEMM does not take. */
int cublaslt_dtype(mmagen_type t);

#endif
