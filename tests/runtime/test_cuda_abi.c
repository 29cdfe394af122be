/* test_cuda_abi.c - runtime/cuda.fn and runtime/cuda_enum.h against the
 * real cuda.h: libmmart declares the Driver API itself (so it builds
 * without CUDA), and a typo there would be a crash at run time.  Every
 * check is a static assertion: a mismatch fails the build of this test.
 *
 * Each cuda.fn row is checked two ways: `symbol` (the dlsym fallback) must
 * be exported by cuda.h with exactly the listed prototype, and so must
 * `name` as cuda.h maps it (cuMemAlloc -> cuMemAlloc_v2), which is what
 * cuGetProcAddress(name) answers for a CUDA 12+ ABI.
 */
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cuda_enum.h"

#define SAME_TYPE(expr, type) _Generic((expr), type: 1, default: 0)

#define CU_FN(ret, name, sym, req, params)                                 \
	_Static_assert(SAME_TYPE(&sym, ret (*) params),                    \
		       "cuda.fn: prototype or symbol of " #sym);           \
	_Static_assert(SAME_TYPE(&name, ret (*) params),                   \
		       "cuda.fn: prototype of " #name);
#include "cuda.fn"
#undef CU_FN

#define X(n, v) _Static_assert(n == v, "cuda_enum.h: value of " #n);
MMART_CU_RESULT_LIST(X)
MMART_CU_JIT_OPTION_LIST(X)
MMART_CU_JIT_INPUT_LIST(X)
MMART_CU_DEVICE_ATTRIBUTE_LIST(X)
MMART_CU_MISC_LIST(X)
MMART_CU_FUNC_ATTRIBUTE_LIST(X)
MMART_CU_LAUNCH_ATTRIBUTE_LIST(X)
MMART_CU_TENSOR_MAP_DATA_TYPE_LIST(X)
MMART_CU_TENSOR_MAP_INTERLEAVE_LIST(X)
MMART_CU_TENSOR_MAP_SWIZZLE_LIST(X)
MMART_CU_TENSOR_MAP_L2_PROMOTION_LIST(X)
MMART_CU_TENSOR_MAP_OOB_FILL_LIST(X)
#undef X

/* The structs cuda_abi.h declares (cuLaunchKernelEx's configuration, the
 * tensor map): cuda.h's offsets and sizes are the listed ones, and
 * cuda_abi.h checks its own against the same list. */
#define OFF(t, m, o) _Static_assert(offsetof(t, m) == o, "layout of " #t "." #m);
#define SIZE(t, n) _Static_assert(sizeof(t) == n, "size of " #t);
MMART_CU_LAYOUT_LIST(OFF, SIZE)
#undef OFF
#undef SIZE
/* cuda.h 12 aligns CUtensorMap to 64 bytes, 13 to 128; the driver asks 64
 * of the address, which is what cuda_abi.h and mmart_tensor_map give. */
_Static_assert(_Alignof(CUtensorMap) % 64 == 0, "CUtensorMap alignment");

/* The resolver that driver.c finds with dlsym, and the plain types. */
_Static_assert(SAME_TYPE(&cuGetProcAddress_v2,
			 CUresult (*)(const char *, void **, int, cuuint64_t,
				      CUdriverProcAddressQueryResult *)),
	       "cuGetProcAddress_v2 prototype");
_Static_assert(sizeof(CUdeviceptr) == sizeof(unsigned long long),
	       "CUdeviceptr");
_Static_assert(sizeof(CUdevice) == sizeof(int), "CUdevice");
_Static_assert(sizeof(CUresult) == sizeof(int), "CUresult");
_Static_assert(sizeof(CUjit_option) == sizeof(int), "CUjit_option");
_Static_assert(sizeof(CUdriverProcAddressQueryResult) == sizeof(int),
	       "CUdriverProcAddressQueryResult");
_Static_assert(CUDA_VERSION >= 12000, "cuda.h older than the ABI we ask");

/* The dlsym fallback must name the variant cuda.h maps `name` to, or a
 * same-prototype older one (cuMemAlloc is the 32-bit v1 of cuMemAlloc_v2:
 * the prototypes match, the ABI does not).  Rows where cuda.h now maps to
 * a variant newer than our ABI (12.0) are listed with the one we use. */
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct { const char *sym, *header; } newer[] = {
	/* _v2 (CUDA 12.8) differs in behaviour only; 12.0 drivers lack it */
	{ "cuEventElapsedTime", "cuEventElapsedTime_v2" },
};

static const struct { const char *name, *sym, *header; } rows[] = {
#define CU_FN(ret, name, sym, req, params) { #name, #sym, STR(name) },
#include "cuda.fn"
#undef CU_FN
};

int main(void)
{
	int bad = 0;

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int ok = strcmp(rows[i].sym, rows[i].header) == 0;

		for (size_t j = 0; j < sizeof newer / sizeof newer[0]; j++)
			ok |= !strcmp(rows[i].sym, newer[j].sym)
			      && !strcmp(rows[i].header, newer[j].header);
		if (!ok) {
			fprintf(stderr, "cuda.fn: %s resolves by dlsym to %s, "
				"but cuda.h maps it to %s\n", rows[i].name,
				rows[i].sym, rows[i].header);
			bad++;
		}
	}
	if (bad)
		return 1;
	printf("cuda.fn (%zu entry points) and cuda_enum.h match cuda.h %d\n",
	       sizeof rows / sizeof rows[0], CUDA_VERSION);
	return 0;
}
