/* launch.c - kernel launches on the default stream, synchronisation and
 * event timing. */
#include "internal.h"

static mmart_status check(const char *fn, mmart_ctx *ctx, void *f,
			  const unsigned grid[3], const unsigned block[3])
{
	if (!ctx || !f || !grid || !block)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "%s: NULL argument", fn);
	for (int i = 0; i < 3; i++)
		if (!grid[i] || !block[i])
			return mmart_set_error(MMART_INVALID_ARGUMENT,
					       "%s: zero grid or block size",
					       fn);
	return mmart_ctx_bind(ctx);
}

static CUresult launch(void *f, const unsigned grid[3],
		       const unsigned block[3], unsigned smem, void **params)
{
	return cu.cuLaunchKernel((CUfunction)f, grid[0], grid[1], grid[2],
				 block[0], block[1], block[2], smem, NULL,
				 params, NULL);
}

mmart_status mmart_launch(mmart_ctx *ctx, void *fn, const unsigned grid[3],
			  const unsigned block[3], unsigned smem_bytes,
			  void **params)
{
	mmart_status s = check("mmart_launch", ctx, fn, grid, block);
	CUresult res;

	if (s != MMART_OK)
		return s;
	res = launch(fn, grid, block, smem_bytes, params);
	return res ? mmart_cu_error("cuLaunchKernel", res, NULL) : MMART_OK;
}

mmart_status mmart_sync(mmart_ctx *ctx)
{
	mmart_status s;
	CUresult res;

	if (!ctx)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_sync: ctx is NULL");
	if ((s = mmart_ctx_bind(ctx)) != MMART_OK)
		return s;
	res = cu.cuCtxSynchronize();
	return res ? mmart_cu_error("cuCtxSynchronize", res, NULL) : MMART_OK;
}

mmart_status mmart_time_launch(mmart_ctx *ctx, void *fn,
			       const unsigned grid[3], const unsigned block[3],
			       unsigned smem_bytes, void **params, int reps,
			       float *ms)
{
	CUevent ev[2] = { NULL, NULL };
	const char *call = "cuEventCreate";
	mmart_status s = check("mmart_time_launch", ctx, fn, grid, block);
	CUresult res;
	float total = 0;

	if (s != MMART_OK)
		return s;
	if (reps < 1 || !ms)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_time_launch: reps < 1 or no ms");
	res = cu.cuEventCreate(&ev[0], CU_EVENT_DEFAULT);
	if (!res)
		res = cu.cuEventCreate(&ev[1], CU_EVENT_DEFAULT);
	if (!res) {
		call = "cuEventRecord";
		res = cu.cuEventRecord(ev[0], NULL);
	}
	for (int i = 0; !res && i < reps; i++) {
		call = "cuLaunchKernel";
		res = launch(fn, grid, block, smem_bytes, params);
	}
	if (!res) {
		call = "cuEventRecord";
		res = cu.cuEventRecord(ev[1], NULL);
	}
	if (!res) {
		/* Kernel faults surface here. */
		call = "cuEventSynchronize";
		res = cu.cuEventSynchronize(ev[1]);
	}
	if (!res) {
		call = "cuEventElapsedTime";
		res = cu.cuEventElapsedTime(&total, ev[0], ev[1]);
	}
	if (res)
		s = mmart_cu_error(call, res, NULL);
	else
		*ms = total / (float)reps;
	for (int i = 0; i < 2; i++)
		if (ev[i])
			cu.cuEventDestroy(ev[i]);
	return s;
}
