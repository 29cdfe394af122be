/* first_launch.c - what a fresh process pays before its first GEMM runs:
 * the driver and the primary context (mmart_open), generating and loading
 * the kernel (mmart_gemm_kernel_for through mmagen_jit_generate: the disk
 * cache answers when an earlier process compiled it), the first launch
 * (the driver loads the function lazily) and a second launch, each to
 * the end of the GPU's work.  Run it twice: the second process is the
 * "already cached" case.  Set CUDA_CACHE_DISABLE before it starts to keep
 * the driver's own cache out.
 *
 *   first_launch [M N K]     (default 4096 4096 4096, bf16 -> bf16)
 *
 * Prints one line of milliseconds; exit 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen_jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	uint32_t m = argc > 3 ? (uint32_t)atoi(argv[1]) : 4096;
	uint32_t n = argc > 3 ? (uint32_t)atoi(argv[2]) : 4096;
	uint32_t k = argc > 3 ? (uint32_t)atoi(argv[3]) : 4096;
	double t0 = now_ms();
	mmart_ctx *ctx;
	mmart_status st = mmart_open(-1, &ctx);
	if (st)
		return fprintf(stderr, "first_launch: %s\n", mmart_last_error()),
		       st == MMART_NO_DRIVER || st == MMART_NO_DEVICE ? 77 : 1;
	double t1 = now_ms();
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	r.a = r.b = r.out = MMAGEN_BF16;
	mmart_gemm *g;
	mmart_gemm_kernel *kern;
	mmart_gemm_args a;
	mmart_gemm_args_init(&a);
	a.m = m;
	a.n = n;
	a.k = k;
	uint64_t dev;
	size_t bytes = ((size_t)m * k + (size_t)n * k + (size_t)m * n) * 2;
	if (mmart_alloc(ctx, bytes, &dev) || mmart_memset8(ctx, dev, 0x3c, bytes) ||
	    mmart_gemm_create(ctx, mmagen_jit_generate, &r, &g))
		return fprintf(stderr, "first_launch: %s\n", mmart_last_error()), 1;
	a.a = dev;
	a.b = dev + (size_t)m * k * 2;
	a.d = a.b + (size_t)n * k * 2;
	double t2 = now_ms();
	if (mmart_gemm_kernel_for(g, m, n, k, &kern))
		return fprintf(stderr, "first_launch: %s\n", mmart_last_error()), 1;
	double t3 = now_ms();
	if (mmart_gemm_launch(g, &a, NULL) || mmart_sync(ctx))
		return fprintf(stderr, "first_launch: %s\n", mmart_last_error()), 1;
	double t4 = now_ms();
	if (mmart_gemm_launch(g, &a, NULL) || mmart_sync(ctx))
		return fprintf(stderr, "first_launch: %s\n", mmart_last_error()), 1;
	double t5 = now_ms();
	printf("bf16 %ux%ux%u: open %.2f ms, generate+load %.2f ms, first launch %.3f ms, second launch %.3f ms, total to first result %.2f ms\n",
	       m, n, k, t1 - t0, t3 - t2, t4 - t3, t5 - t4, (t1 - t0) + (t4 - t2));
	mmart_gemm_destroy(g);
	mmart_free(ctx, dev);
	mmart_close(ctx);
	return 0;
}
