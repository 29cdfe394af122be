/* mmagen_jit.h - generate GEMM kernels at run time and launch them: the
 * glue between libmmagen (the generator, no CUDA) and libmmart (the
 * runtime, no generator).  Header-only; a program that includes it links
 * both libraries.
 *
 *   mmagen_gemm_request req;
 *   mmagen_gemm_request_init(&req);     // target -1: the GPU's own
 *   req.a = req.b = MMAGEN_BF16;
 *   req.out = MMAGEN_BF16;
 *   mmart_gemm *g;
 *   mmart_gemm_create(ctx, mmagen_jit_generate, &req, &g);
 *   mmart_gemm_args args;
 *   mmart_gemm_args_init(&args);
 *   args.m = M; args.n = N; args.k = K; args.a = A; args.b = B; args.d = D;
 *   mmart_gemm_launch(g, &args, stream);   // first call of a shape: choose,
 *                                          // generate, load; later: launch
 *
 * For each new M x N x K, mmagen_jit_generate chooses the tiles, cluster
 * and split-K the request leaves open (mmagen_gemm_choose) for the GPU's
 * multiprocessors, writes the PTX and its ABI, and loads them
 * (mmart_gemm_kernel_load: the disk cache answers for a kernel compiled
 * before).  The request must outlive the handle. */
#ifndef MMAGEN_JIT_H
#define MMAGEN_JIT_H

#include "mmagen.h"
#include "mmart.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mmagen target of the GPU of ctx: sm_XY, with "a" from sm_90 on
 * (wgmma, tcgen05 and block scaling are the arch-specific targets'). */
static inline mmart_status mmagen_jit_target(mmart_ctx *ctx, int *target)
{
	char name[16];
	int major = 0, minor = 0;
	mmart_status s = mmart_device_info(ctx, &major, &minor, NULL, 0);
	if (s != MMART_OK)
		return s;
	snprintf(name, sizeof name, "sm_%d%d%s", major, minor, major >= 9 ? "a" : "");
	return mmagen_target_parse(name, target) == MMAGEN_OK ? MMART_OK : MMART_INVALID_ARGUMENT;
}

/* An mmart_gemm_generate_fn: user is a const mmagen_gemm_request *. */
static inline mmart_status mmagen_jit_generate(void *user, mmart_ctx *ctx,
					       const mmart_gemm_shape *shape,
					       mmart_gemm_kernel **out, char *err, size_t errn)
{
	mmagen_gemm_request r = *(const mmagen_gemm_request *)user;
	char *ptx = NULL, *abi = NULL;
	mmart_status s = MMART_INVALID_ARGUMENT;

	if (r.target < 0 && mmagen_jit_target(ctx, &r.target) != MMART_OK) {
		snprintf(err, errn, "mmagen: this GPU's target is not one mmagen knows: set the request's target");
		return MMART_INVALID_ARGUMENT;
	}
	if (mmagen_gemm_choose(&r, shape->m, shape->n, shape->k,
			       shape->sms > 0 ? (unsigned)shape->sms : 0) == MMAGEN_OK &&
	    mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK &&
	    mmagen_gemm_emit(&r, MMAGEN_FMT_ABI, &abi, NULL) == MMAGEN_OK)
		s = mmart_gemm_kernel_load(ctx, ptx, abi, out);
	else
		snprintf(err, errn, "mmagen: %s", mmagen_last_error());
	mmagen_free(ptx);
	mmagen_free(abi);
	return s;
}

#ifdef __cplusplus
}
#endif

#endif
