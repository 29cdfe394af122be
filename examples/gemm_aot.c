/* gemm_aot.c - launch a GEMM shipped as a header (`mmagen gemm --format c`,
 * made at build time by the CMake and Make projects next to this file) with
 * libmmart alone: no generator at run time.  The header's kernel is
 * D (f32, M x N) = A (bf16, M x K) * B (bf16, K x N, stored N rows of K) on
 * sm_90a.  64 elements of D are checked against CPU dot products.
 *
 *   gemm_aot [M N K]      (default 1000 1000 1000)
 *
 * Exit 0 when D is right, 1 when not, 77 without a GPU that runs sm_90a. */
#include "mmart.h"
#include "gemm_bf16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x rounded to nearest even in bf16 (|x| <= 1: no overflow) */
static uint16_t bf16_of(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static double bf16_value(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static int fail(const char *what)
{
	fprintf(stderr, "gemm_aot: %s: %s\n", what, mmart_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	uint32_t m = argc > 3 ? (uint32_t)atoi(argv[1]) : 1000;
	uint32_t n = argc > 3 ? (uint32_t)atoi(argv[2]) : 1000;
	uint32_t k = argc > 3 ? (uint32_t)atoi(argv[3]) : 1000;
	size_t na = (size_t)m * k, nb = (size_t)n * k, nd = (size_t)m * n, bad = 0;
	uint16_t *h = malloc((na + nb) * 2);
	float *d = malloc(nd * 4);
	mmart_ctx *ctx = NULL;
	mmart_gemm_kernel *kern = NULL;
	uint64_t dev = 0;
	int major = 0, minor = 0, rc = 1;

	if (!h || !d || !m || !n || !k)
		return fprintf(stderr, "gemm_aot: M, N, K >= 1 (and memory)\n"), 1;
	mmart_status st = mmart_open(-1, &ctx);
	if (st == MMART_NO_DRIVER || st == MMART_NO_DEVICE)
		return fprintf(stderr, "gemm_aot: skipped: %s\n", mmart_last_error()), 77;
	if (st || mmart_device_info(ctx, &major, &minor, NULL, 0))
		return fail("device");
	if (major != 9 || minor != 0) {
		fprintf(stderr, "gemm_aot: skipped: the kernel is sm_90a's, the GPU sm_%d%d\n", major, minor);
		mmart_close(ctx);
		return 77;
	}
	srand(12345);
	for (size_t i = 0; i < na + nb; i++)
		h[i] = bf16_of(2.0f * (float)rand() / (float)RAND_MAX - 1.0f);
	mmart_gemm_args a;
	mmart_gemm_args_init(&a);
	a.m = m;
	a.n = n;
	a.k = k;
	if (mmart_gemm_kernel_load(ctx, MMAGEN_GEMM_PTX, MMAGEN_GEMM_ABI, &kern)) {
		fail("load");
		goto out;
	}
	if (mmart_alloc(ctx, (na + nb) * 2 + nd * 4, &dev) ||
	    mmart_copy_to_device(ctx, dev, h, (na + nb) * 2) ||
	    mmart_memset8(ctx, dev + (na + nb) * 2, 0xFF, nd * 4)) {   /* D: NaN */
		fail("memory");
		goto out;
	}
	a.a = dev;
	a.b = dev + na * 2;
	a.d = dev + (na + nb) * 2;
	if (mmart_gemm_kernel_launch(kern, &a, NULL) || mmart_copy_to_host(ctx, d, a.d, nd * 4)) {
		fail("launch");
		goto out;
	}
	for (int s = 0; s < 64; s++) {
		size_t i = (size_t)rand() % m, j = (size_t)rand() % n;
		double ref = 0, mag = 0;
		for (size_t kk = 0; kk < k; kk++) {
			double p = bf16_value(h[i * k + kk]) * bf16_value(h[na + j * k + kk]);
			ref += p;
			mag += fabs(p);
		}
		/* f32 accumulation over K: far inside 1e-5 of sum |a*b| */
		bad += !(fabs(d[i * n + j] - ref) <= 1e-5 * mag + 1e-6);
	}
	printf("gemm_aot: bf16 -> f32 %ux%ux%u: %zu of 64 elements wrong\n", m, n, k, bad);
	rc = bad != 0;
out:
	mmart_gemm_kernel_free(kern);
	mmart_free(ctx, dev);
	mmart_close(ctx);
	free(h);
	free(d);
	return rc;
}
