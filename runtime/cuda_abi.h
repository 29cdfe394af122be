/* cuda_abi.h - the few CUDA Driver API types libmmart needs, declared here
 * so that neither cuda.h nor libcuda is needed to build it, and the table
 * `cu` of entry points resolved from libcuda.so.1 (driver.c).
 *
 * The names match cuda.h's, so cuda.fn reads the same in both worlds;
 * test_cuda_abi compiles cuda.fn and cuda_enum.h against the real cuda.h.
 * Never include this together with cuda.h.
 */
#ifndef MMART_CUDA_ABI_H
#define MMART_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_enum.h"

/* The CUDA version whose ABI cuda.fn describes (asked of cuGetProcAddress):
 * 12.0, so drivers from 12.0 on resolve every name the same way. */
#define MMART_CU_ABI 12000

typedef enum cudaError_enum {
#define X(n, v) n = v,
	MMART_CU_RESULT_LIST(X)
#undef X
	MMART_CU_RESULT_MAX_ = 0x7fffffff /* other codes pass through */
} CUresult;

typedef enum CUjit_option_enum {
#define X(n, v) n = v,
	MMART_CU_JIT_OPTION_LIST(X)
#undef X
} CUjit_option;

typedef enum CUjitInputType_enum {
#define X(n, v) n = v,
	MMART_CU_JIT_INPUT_LIST(X)
#undef X
} CUjitInputType;

typedef enum CUdevice_attribute_enum {
#define X(n, v) n = v,
	MMART_CU_DEVICE_ATTRIBUTE_LIST(X)
#undef X
} CUdevice_attribute;

enum {
#define X(n, v) n = v,
	MMART_CU_MISC_LIST(X)
#undef X
};

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef int CUdriverProcAddressQueryResult; /* an enum in cuda.h */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUlinkState_st *CUlinkState;
/* Opaque until cluster launches need its fields. */
typedef struct CUlaunchConfig_st CUlaunchConfig;

/* The resolver itself, found with dlsym. */
typedef CUresult (*mmart_cu_get_proc_fn)(const char *symbol, void **pfn,
		int cudaVersion, cuuint64_t flags,
		CUdriverProcAddressQueryResult *symbolStatus);

struct mmart_cu_table {
#define CU_FN(ret, name, sym, req, params) ret (*name) params;
#include "cuda.fn"
#undef CU_FN
};

/* Filled by mmart_driver_load(); read-only afterwards.  Hidden: a global
 * named `cu` must not leak out of the shared library. */
#if defined(__GNUC__)
__attribute__((visibility("hidden")))
#endif
extern struct mmart_cu_table cu;

#endif
