/* test_cublaslt_abi.c - gen/cli/cublaslt.h and gen/cli/cublaslt.fn against the
 * real cublasLt.h (and cuda.h for the one driver attribute run_gemm.c
 * asks for): mmagen declares the few cuBLASLt entry points it calls itself,
 * so that it builds without CUDA, and a wrong constant or prototype would
 * be a wrong benchmark or a crash at run time.  Every check is a static
 * assertion: a mismatch fails the build of this test. */
#include <cublasLt.h>
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>

#include "cublaslt.h"

#define SAME_TYPE(expr, type) _Generic((expr), type: 1, default: 0)

/* the constants: our names and values are the headers' */
#define X(name, value) _Static_assert(name == value && LT_##name == value, \
				      "cublaslt.h: value of " #name);
LT_CONST_LIST(X)
#undef X
_Static_assert(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == 16,
	       "run_gemm.c: CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");

/* our stand-ins have the representation of the header's types */
_Static_assert(sizeof(cublasLtHandle_t) == sizeof(void *), "handle");
_Static_assert(sizeof(cublasLtMatmulDesc_t) == sizeof(void *), "matmul desc");
_Static_assert(sizeof(cublasLtMatrixLayout_t) == sizeof(void *), "layout");
_Static_assert(sizeof(cublasLtMatmulPreference_t) == sizeof(void *), "preference");
_Static_assert(sizeof(cudaStream_t) == sizeof(void *), "stream");
_Static_assert(sizeof(cublasStatus_t) == sizeof(int), "cublasStatus_t");
_Static_assert(sizeof(cublasComputeType_t) == sizeof(int), "cublasComputeType_t");
_Static_assert(sizeof(cudaDataType_t) == sizeof(int), "cudaDataType_t");
_Static_assert(sizeof(cublasOperation_t) == sizeof(int), "cublasOperation_t (TRANSA's value)");
_Static_assert(sizeof(cublasLtMatmulDescAttributes_t) == sizeof(int), "desc attributes");
_Static_assert(sizeof(cublasLtMatmulPreferenceAttributes_t) == sizeof(int), "pref attributes");
_Static_assert(sizeof(struct lt_algo) == sizeof(cublasLtMatmulAlgo_t), "algo");
_Static_assert(sizeof(struct lt_heuristic) == sizeof(cublasLtMatmulHeuristicResult_t),
	       "heuristic result size");
#define OFF(ours, theirs) _Static_assert(offsetof(struct lt_heuristic, ours) ==       \
	offsetof(cublasLtMatmulHeuristicResult_t, theirs), "heuristic result ." #theirs);
OFF(algo, algo)
OFF(workspace_size, workspaceSize)
OFF(state, state)
OFF(waves_count, wavesCount)
OFF(reserved, reserved)
#undef OFF

/* every row of cublaslt.fn, expanded with the header's own types, is the
 * header's prototype */
#undef LT_STATUS
#undef LT_HANDLE
#undef LT_MATMUL_DESC
#undef LT_LAYOUT
#undef LT_PREF
#undef LT_COMPUTE
#undef LT_DTYPE
#undef LT_LAYOUT_DTYPE
#undef LT_DESC_ATTR
#undef LT_PREF_ATTR
#undef LT_HEURISTIC
#undef LT_ALGO
#undef LT_STREAM
#define LT_STATUS cublasStatus_t
#define LT_HANDLE cublasLtHandle_t
#define LT_MATMUL_DESC cublasLtMatmulDesc_t
#define LT_LAYOUT cublasLtMatrixLayout_t
#define LT_PREF cublasLtMatmulPreference_t
#define LT_COMPUTE cublasComputeType_t
#define LT_DTYPE cudaDataType_t
#define LT_LAYOUT_DTYPE cudaDataType
#define LT_DESC_ATTR cublasLtMatmulDescAttributes_t
#define LT_PREF_ATTR cublasLtMatmulPreferenceAttributes_t
#define LT_HEURISTIC cublasLtMatmulHeuristicResult_t
#define LT_ALGO cublasLtMatmulAlgo_t
#define LT_STREAM cudaStream_t
#define LT_FN(ret, name, params)                                           \
	_Static_assert(SAME_TYPE(&name, ret (*) params),                   \
		       "cublaslt.fn: prototype of " #name);
#include "cublaslt.fn"
#undef LT_FN

int main(void)
{
	puts("cublaslt.h and cublaslt.fn agree with cublasLt.h");
	return 0;
}
