/* gemm_jit.c - a bf16 and an e4m3 GEMM generated, loaded and launched at run time
 * (mmagen_jit.h), 256 elements of D checked against CPU dot products.  Exit 77: no GPU. */
#include "mmagen_jit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double at(mmagen_type t, const uint8_t *h, size_t i) {
	uint64_t v = 0; size_t eb = mmagen_type_bits(t) / 8;
	return memcpy(&v, h + i * eb, eb), mmagen_type_decode(t, v); }

static int gemm(mmart_ctx *ctx, mmagen_type t, uint32_t m, uint32_t n, uint32_t k) {
	size_t eb = mmagen_type_bits(t) / 8, na = (size_t)m * k, nab = na + (size_t)n * k, bad = 0;
	uint8_t *h = malloc(nab * eb), *d = malloc((size_t)m * n * 2);   /* A, B K-major; D bf16 */
	for (size_t i = 0; i < nab; i++) {
		uint64_t v = mmagen_type_encode(t, 2.0 * rand() / RAND_MAX - 1); memcpy(h + i * eb, &v, eb); }
	mmagen_gemm_request r; mmagen_gemm_request_init(&r); r.a = r.b = t; r.out = MMAGEN_BF16;
	mmart_gemm_args a; mmart_gemm_args_init(&a); a.m = m; a.n = n; a.k = k;
	mmart_gemm *g = NULL; uint64_t dev = 0;
	if (mmart_alloc(ctx, nab * eb + (size_t)m * n * 2, &dev) || mmart_copy_to_device(ctx, dev, h, nab * eb) ||
	    mmart_memset8(ctx, dev + nab * eb, 0xFF, (size_t)m * n * 2) ||      /* D poisoned: NaN */
	    mmart_gemm_create(ctx, mmagen_jit_generate, &r, &g) ||
	    (a.a = dev, a.b = dev + na * eb, a.d = dev + nab * eb, mmart_gemm_launch(g, &a, NULL)) ||
	    mmart_copy_to_host(ctx, d, a.d, (size_t)m * n * 2))
		return fprintf(stderr, "gemm_jit: %s\n", mmart_last_error()), 1;
	for (int s = 0; s < 256; s++) {
		size_t i = (size_t)rand() % m, j = (size_t)rand() % n; double ref = 0, mag = 0;
		for (size_t kk = 0; kk < k; kk++) {
			double p = at(t, h, i * k + kk) * at(t, h, na + j * k + kk); ref += p; mag += fabs(p); }
		bad += !(fabs(at(MMAGEN_BF16, d, i * n + j) - ref) <= 3e-3 * mag + fabs(ref) / 128);
	}
	printf("%s %ux%ux%u: %zu of 256 elements wrong\n", mmagen_type_name(t), m, n, k, bad);
	mmart_gemm_destroy(g); mmart_free(ctx, dev); free(h); free(d);
	return bad != 0; }
int main(void) {
	mmart_ctx *ctx; mmart_status st = mmart_open(-1, &ctx); srand((unsigned)time(NULL));
	if (st) return fprintf(stderr, "gemm_jit: %s\n", mmart_last_error()), st == MMART_NO_DRIVER || st == MMART_NO_DEVICE ? 77 : 1;
	int rc = gemm(ctx, MMAGEN_BF16, 1000, 777, 500) | gemm(ctx, MMAGEN_E4M3, 512, 2048, 1024);
	return mmart_close(ctx), rc; }
