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

typedef enum CUfunction_attribute_enum {
#define X(n, v) n = v,
	MMART_CU_FUNC_ATTRIBUTE_LIST(X)
#undef X
} CUfunction_attribute;

typedef enum CUlaunchAttributeID_enum {
#define X(n, v) n = v,
	MMART_CU_LAUNCH_ATTRIBUTE_LIST(X)
#undef X
} CUlaunchAttributeID;

typedef enum CUtensorMapDataType_enum {
#define X(n, v) n = v,
	MMART_CU_TENSOR_MAP_DATA_TYPE_LIST(X)
#undef X
} CUtensorMapDataType;

typedef enum CUtensorMapInterleave_enum {
#define X(n, v) n = v,
	MMART_CU_TENSOR_MAP_INTERLEAVE_LIST(X)
#undef X
} CUtensorMapInterleave;

typedef enum CUtensorMapSwizzle_enum {
#define X(n, v) n = v,
	MMART_CU_TENSOR_MAP_SWIZZLE_LIST(X)
#undef X
} CUtensorMapSwizzle;

typedef enum CUtensorMapL2promotion_enum {
#define X(n, v) n = v,
	MMART_CU_TENSOR_MAP_L2_PROMOTION_LIST(X)
#undef X
} CUtensorMapL2promotion;

typedef enum CUtensorMapFloatOOBfill_enum {
#define X(n, v) n = v,
	MMART_CU_TENSOR_MAP_OOB_FILL_LIST(X)
#undef X
} CUtensorMapFloatOOBfill;

enum {
#define X(n, v) n = v,
	MMART_CU_MISC_LIST(X)
#undef X
};

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef uint32_t cuuint32_t;
typedef int CUdriverProcAddressQueryResult; /* an enum in cuda.h */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUlinkState_st *CUlinkState;

/* cuLaunchKernelEx's configuration; only the cluster attribute is used,
 * the union keeps cuda.h's size (64 bytes) and alignment (a pointer). */
typedef union CUlaunchAttributeValue_union {
	char pad[64];
	void *align_;
	struct {
		unsigned int x, y, z;
	} clusterDim;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
	CUlaunchAttributeID id;
	char pad[8 - sizeof(CUlaunchAttributeID)];
	CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

/* cuMemcpy2DAsync's description of a pitched copy (device to device
 * here: the GEMM launcher's staging, gemm.c). */
typedef struct CUarray_st *CUarray;
typedef struct CUDA_MEMCPY2D_st {
	size_t srcXInBytes, srcY;
	unsigned int srcMemoryType;     /* CUmemorytype */
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	unsigned int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* 128 opaque bytes, 64-byte aligned: the kernel parameter itself.  (cuda.h
 * 13 aligns it to 128; cuTensorMapEncodeTiled documents 64.) */
typedef struct CUtensorMap_st {
	_Alignas(64) cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];
} CUtensorMap;

#define MMART_CU_OFF_(t, m, o) _Static_assert(offsetof(t, m) == o, \
		"cuda_abi.h: offset of " #t "." #m);
#define MMART_CU_SIZE_(t, n) _Static_assert(sizeof(t) == n, \
		"cuda_abi.h: size of " #t);
MMART_CU_LAYOUT_LIST(MMART_CU_OFF_, MMART_CU_SIZE_)
#undef MMART_CU_OFF_
#undef MMART_CU_SIZE_

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
