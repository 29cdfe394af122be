/* cublaslt.c - open cuBLASLt with dlopen (optional: `run gemm --bench`
 * compares with it when it is there). */
#define _POSIX_C_SOURCE 200809L
#include "cublaslt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cublaslt_dtype(mmagen_type t)
{
	switch (t) {
	case MMAGEN_BF16: return LT_CUDA_R_16BF;
	case MMAGEN_F16:  return LT_CUDA_R_16F;
	case MMAGEN_F32:  return LT_CUDA_R_32F;
	case MMAGEN_TF32: return LT_CUDA_R_32F;
	case MMAGEN_E4M3: return LT_CUDA_R_8F_E4M3;
	case MMAGEN_E5M2: return LT_CUDA_R_8F_E5M2;
	case MMAGEN_S8:   return LT_CUDA_R_8I;
	case MMAGEN_U8:   return LT_CUDA_R_8U;
	case MMAGEN_S32:  return LT_CUDA_R_32I;
	default:          return -1;
	}
}

/* Every entry point of cublaslt.fn from lt->lib; 0 or -1 naming the
 * first one missing. */
static int resolve(struct cublaslt *lt, char *why, size_t n)
{
#define LT_FN(ret, name, params)                                           \
	*(void **)&lt->name = dlsym(lt->lib, #name);                       \
	if (!lt->name) {                                                   \
		snprintf(why, n, "%s lacks %s", lt->path, #name);          \
		return -1;                                                 \
	}
#include "cublaslt.fn"
#undef LT_FN
	return 0;
}

int cublaslt_open(struct cublaslt *lt, char *why, size_t n)
{
	static const char *const names[] = {
		"libcublasLt.so.13", "libcublasLt.so.12",
		"/usr/local/cuda/lib64/libcublasLt.so.13",
		"/usr/local/cuda/lib64/libcublasLt.so.12",
		"/usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13",
		"/usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.12",
	};
	const char *env = getenv("MMAGEN_CUBLASLT");
	const char *last = "";

	memset(lt, 0, sizeof *lt);
	for (size_t i = 0; i < sizeof names / sizeof names[0] + 1; i++) {
		const char *name = i ? names[i - 1] : env;
		if (!name || !*name)
			continue;
		if ((lt->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
			snprintf(lt->path, sizeof lt->path, "%s", name);
			break;
		}
		const char *e = dlerror();
		last = e ? e : "";
		if (env && i == 0)   /* the user's choice, or nothing */
			break;
	}
	if (!lt->lib) {
		if (env && *env)
			snprintf(why, n, "MMAGEN_CUBLASLT=%s: %s", env, last);
		else
			snprintf(why, n, "libcublasLt.so.13 or .12 is not in the loader's path, "
				 "/usr/local/cuda/lib64 or /usr/local/cuda/targets/x86_64-linux/lib");
		return -1;
	}
	if (resolve(lt, why, n)) {
		cublaslt_close(lt);
		return -1;
	}
	return 0;
}

void cublaslt_close(struct cublaslt *lt)
{
	if (lt->lib)
		dlclose(lt->lib);
	memset(lt, 0, sizeof *lt);
}
