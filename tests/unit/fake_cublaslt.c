/* fake_cublaslt.c - a stand-in cuBLASLt (MMAGEN_CUBLASLT) for `run gemm
 * --bench` on fake_cuda: every call succeeds, the heuristic offers one
 * algorithm, and cublasLtMatmul leaves D as it is, as fake_cuda's
 * launches do, so both sides' D agree (the poison, -1 in s32).  Enough
 * to run the bench's four bursts without a GPU. */
#include "cublaslt.h"

#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#define EXPORT __attribute__((visibility("default")))

static int dummy;

/* the declarations of cublaslt.fn, exported */
#define LT_FN(ret, name, params) EXPORT ret name params;
#include "cublaslt.fn"
#undef LT_FN

int cublasLtCreate(void **h) { *h = &dummy; return 0; }
int cublasLtDestroy(void *h) { return 0; }
int cublasLtMatmulDescCreate(void **d, int c, int s) { *d = &dummy; return 0; }
int cublasLtMatmulDescDestroy(void *d) { return 0; }
int cublasLtMatmulDescSetAttribute(void *d, int a, const void *v, size_t n) { return 0; }
int cublasLtMatrixLayoutCreate(void **l, int t, uint64_t r, uint64_t c, int64_t ld)
{
	*l = &dummy;
	return 0;
}
int cublasLtMatrixLayoutDestroy(void *l) { return 0; }
int cublasLtMatmulPreferenceCreate(void **p) { *p = &dummy; return 0; }
int cublasLtMatmulPreferenceDestroy(void *p) { return 0; }
int cublasLtMatmulPreferenceSetAttribute(void *p, int a, const void *v, size_t n) { return 0; }
int cublasLtMatmulAlgoGetHeuristic(void *h, void *d, void *a, void *b, void *c, void *dd,
				   void *p, int want, struct lt_heuristic *r, int *n)
{
	memset(r, 0, sizeof *r);
	*n = 1;
	return 0;
}
int cublasLtMatmul(void *h, void *d, const void *alpha, const void *a, void *la, const void *b,
		   void *lb, const void *beta, const void *c, void *lc, void *dd, void *ld,
		   const struct lt_algo *algo, void *ws, size_t wsn, void *stream)
{
	return 0;
}
const char *cublasLtGetStatusName(int s) { return "CUBLAS_STATUS_FAKE"; }
size_t cublasLtGetVersion(void) { return 130000; }
