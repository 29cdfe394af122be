/* fake_cuda.c - a stand-in libcuda for tests without a GPU (loaded through
 * MMAGEN_LIBCUDA).  It models one behaviour of the real driver that a
 * program can trip over: cuMemcpyHtoD from pageable memory and cuMemsetD8
 * may return before the device memory holds the bytes (the DMA or the
 * memset runs on after the call, on the legacy default stream).  Such work
 * is counted as pending until cuCtxSynchronize, or cuStreamSynchronize of
 * the legacy stream (NULL); fake_cuda_pending() says how much is left.
 * cuModuleLoadDataEx refuses cubins (below).  Every other entry point of
 * cuda.fn succeeds and does nothing, beyond the few that must answer for
 * mmart_open (one device, compute capability 9.0, an H100's shared
 * memory), its PCI address (domain 0x12, bus 0xAB, device 0x1F: every
 * field of a different width), and `run gemm --bench` (a function handle,
 * device memory that is host memory, copied back as it is: launches leave
 * D alone).  Events time every interval at $FAKE_CUDA_EVENT_MS
 * milliseconds (unset: 0, as before any work). */
#include "cuda_abi.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif

#define EXPORT __attribute__((visibility("default")))

static int pending;
static int ctx_dummy;
static CUcontext current;

EXPORT int fake_cuda_pending(void);
int fake_cuda_pending(void)
{
	return pending;
}

/* the entry points that do something */
static CUresult f_cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; }
static CUresult f_cuGetErrorString(CUresult e, const char **s) { *s = "fake"; return CUDA_SUCCESS; }
static CUresult f_cuDriverGetVersion(int *v) { *v = 12080; return CUDA_SUCCESS; }
static CUresult f_cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult f_cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
static CUresult f_cuDeviceGetName(char *name, int len, CUdevice d)
{
	strncpy(name, "fake", (size_t)len);
	return CUDA_SUCCESS;
}
static CUresult f_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	*v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 :
	     a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? 0 :
	     a == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID ? 0x12 :
	     a == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID ? 0xAB :
	     a == CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID ? 0x1F :
	     a == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ? 232448 : 132;
	return CUDA_SUCCESS;
}
static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	*c = (CUcontext)(void *)&ctx_dummy;
	return CUDA_SUCCESS;
}
static CUresult f_cuCtxSetCurrent(CUcontext c) { current = c; return CUDA_SUCCESS; }
static CUresult f_cuCtxGetCurrent(CUcontext *c) { *c = current; return CUDA_SUCCESS; }
static CUresult f_cuCtxSynchronize(void) { pending = 0; return CUDA_SUCCESS; }
static CUresult f_cuStreamSynchronize(CUstream s)
{
	if (!s)
		pending = 0;
	return CUDA_SUCCESS;
}
static CUresult f_cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
	void *m = malloc(bytes);
	*p = (CUdeviceptr)(uintptr_t)m;
	return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_cuMemFree(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
static CUresult f_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n)
{
	memcpy((void *)(uintptr_t)d, s, n);
	pending++;
	return CUDA_SUCCESS;
}
static CUresult f_cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n)
{
	memcpy(d, (const void *)(uintptr_t)s, n);
	return CUDA_SUCCESS;
}
static CUresult f_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n)
{
	memset((void *)(uintptr_t)d, v, n);
	pending++;
	return CUDA_SUCCESS;
}

/* Modules: PTX text loads; an ELF image (a cubin) is refused as the
 * driver refuses one from a newer ptxas, so a test can see what libmmart
 * does next.  fake_cuda_loads() counts both kinds of attempt. */
static int loads_ptx, loads_cubin;
EXPORT void fake_cuda_loads(int *ptx, int *cubin);
void fake_cuda_loads(int *ptx, int *cubin)
{
	*ptx = loads_ptx;
	*cubin = loads_cubin;
}
static CUresult f_cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n,
				     CUjit_option *o, void **v)
{
	if (!memcmp(image, "\177ELF", 4)) {
		loads_cubin++;
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	}
	loads_ptx++;
	*m = (CUmodule)(void *)&ctx_dummy;
	return CUDA_SUCCESS;
}

static CUresult f_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	const char *v = getenv("FAKE_CUDA_EVENT_MS");
	*ms = v ? strtof(v, NULL) : 0;
	return CUDA_SUCCESS;
}

static CUresult f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	*f = (CUfunction)(void *)&ctx_dummy;
	return CUDA_SUCCESS;
}

/* the rest: succeed, do nothing */
#define CU_FN(ret, name, sym, req, params) static ret s_##name params { return CUDA_SUCCESS; }
#include "cuda.fn"
#undef CU_FN

static const struct { const char *name; void *fn; } table[] = {
#define F_(name) { #name, (void *)f_##name },
	F_(cuGetErrorName) F_(cuGetErrorString) F_(cuDriverGetVersion) F_(cuDeviceGetCount)
	F_(cuDeviceGet) F_(cuDeviceGetName) F_(cuDeviceGetAttribute) F_(cuDevicePrimaryCtxRetain)
	F_(cuCtxSetCurrent) F_(cuCtxGetCurrent) F_(cuCtxSynchronize) F_(cuStreamSynchronize)
	F_(cuMemAlloc) F_(cuMemFree) F_(cuMemcpyHtoD) F_(cuMemcpyDtoH) F_(cuMemsetD8)
	F_(cuModuleLoadDataEx) F_(cuModuleGetFunction) F_(cuEventElapsedTime)
#undef F_
#define CU_FN(ret, name, sym, req, params) { #name, (void *)s_##name },
#include "cuda.fn"
#undef CU_FN
};

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    cuuint64_t flags, CUdriverProcAddressQueryResult *status);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].name, symbol)) {
			*pfn = table[i].fn;
			*status = CU_GET_PROC_ADDRESS_SUCCESS;
			return CUDA_SUCCESS;
		}
	*pfn = NULL;
	*status = (CUdriverProcAddressQueryResult)1;   /* symbol not found */
	return CUDA_ERROR_NOT_FOUND;
}
