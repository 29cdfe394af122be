/* memory.c - device memory: allocate, free, copy, set. */
#include "internal.h"

#define CHECK_CTX(fn)                                                      \
	do {                                                               \
		if (!ctx)                                                  \
			return mmart_set_error(MMART_INVALID_ARGUMENT,     \
					       fn ": ctx is NULL");        \
		mmart_status s_ = mmart_ctx_bind(ctx);                     \
		if (s_ != MMART_OK)                                        \
			return s_;                                         \
	} while (0)

static mmart_status done(const char *call, CUresult res)
{
	return res ? mmart_cu_error(call, res, NULL) : MMART_OK;
}

/* The synchronous copy to the device and memset return before the bytes
 * are in device memory: cuMemcpyHtoD from pageable memory returns once
 * the driver has staged the buffer (the DMA may still run), and cuMemsetD8
 * is asynchronous to the host.  Both run on the legacy default stream,
 * which work on a non-blocking stream (mmart_stream_create) does not wait
 * for: a kernel launched there next could read the old bytes (on the
 * H200, the mma.sync GEMM read the last rows of B as zeros in its first K
 * blocks).  So wait for the context: when these return, every later launch
 * on any stream sees the bytes. */
static mmart_status done_sync(const char *call, CUresult res)
{
	if (!res)
		res = cu.cuCtxSynchronize();
	return done(call, res);
}

mmart_status mmart_alloc(mmart_ctx *ctx, size_t bytes, uint64_t *dptr)
{
	CUdeviceptr p = 0;
	CUresult res;

	if (!dptr || !bytes)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_alloc: %s", dptr ? "0 bytes"
				       : "dptr is NULL");
	CHECK_CTX("mmart_alloc");
	res = cu.cuMemAlloc(&p, bytes);
	if (res)
		return mmart_cu_error("cuMemAlloc", res, NULL);
	*dptr = p;
	return MMART_OK;
}

mmart_status mmart_free(mmart_ctx *ctx, uint64_t dptr)
{
	if (!dptr)
		return MMART_OK;
	CHECK_CTX("mmart_free");
	return done("cuMemFree", cu.cuMemFree(dptr));
}

mmart_status mmart_copy_to_device(mmart_ctx *ctx, uint64_t dst,
				  const void *src, size_t bytes)
{
	if (!bytes)
		return MMART_OK;
	if (!src || !dst)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_copy_to_device: NULL pointer");
	CHECK_CTX("mmart_copy_to_device");
	return done_sync("cuMemcpyHtoD", cu.cuMemcpyHtoD(dst, src, bytes));
}

mmart_status mmart_copy_to_host(mmart_ctx *ctx, void *dst, uint64_t src,
				size_t bytes)
{
	if (!bytes)
		return MMART_OK;
	if (!src || !dst)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_copy_to_host: NULL pointer");
	CHECK_CTX("mmart_copy_to_host");
	return done("cuMemcpyDtoH", cu.cuMemcpyDtoH(dst, src, bytes));
}

mmart_status mmart_memset8(mmart_ctx *ctx, uint64_t dst, uint8_t value,
			   size_t bytes)
{
	if (!bytes)
		return MMART_OK;
	if (!dst)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_memset8: NULL pointer");
	CHECK_CTX("mmart_memset8");
	return done_sync("cuMemsetD8", cu.cuMemsetD8(dst, value, bytes));
}
