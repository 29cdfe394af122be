/* launch_ex.c - launches with a configuration (cluster dimensions, a
 * stream) through cuLaunchKernelEx, and the dynamic shared-memory limit of
 * a kernel.
 */
#include "internal.h"

#include <limits.h>
#include <stdio.h>

#define BAD(...) mmart_set_error(MMART_INVALID_ARGUMENT, __VA_ARGS__)

/* Without the attribute a block may use this much dynamic shared memory. */
#define SMEM_DEFAULT_LIMIT (48u * 1024)

static const char axis[3] = { 'x', 'y', 'z' };

static int is_cluster(const unsigned c[3])
{
	return !((c[0] == 0 && c[1] == 0 && c[2] == 0)
		 || (c[0] == 1 && c[1] == 1 && c[2] == 1));
}

mmart_status mmart_launch_config_check(const mmart_launch_config *cfg)
{
	if (!cfg)
		return BAD("mmart_launch_ex: the launch configuration is NULL");
	for (int i = 0; i < 3; i++) {
		if (!cfg->grid[i])
			return BAD("mmart_launch_ex: grid.%c is 0 (at least 1)",
				   axis[i]);
		if (!cfg->block[i])
			return BAD("mmart_launch_ex: block.%c is 0 (at least "
				   "1)", axis[i]);
	}
	if (!is_cluster(cfg->cluster))
		return MMART_OK;
	for (int i = 0; i < 3; i++) {
		unsigned c = cfg->cluster[i], g = cfg->grid[i], lo, hi;

		if (!c)
			return BAD("mmart_launch_ex: cluster.%c is 0 (1 for no "
				   "clustering along %c)", axis[i], axis[i]);
		if (g % c == 0)
			continue;
		lo = g - g % c;
		hi = lo + c;
		if (!lo)
			return BAD("mmart_launch_ex: grid.%c = %u is not a "
				   "multiple of cluster.%c = %u (nearest: %u)",
				   axis[i], g, axis[i], c, hi);
		return BAD("mmart_launch_ex: grid.%c = %u is not a multiple "
			   "of cluster.%c = %u (nearest: %u or %u)", axis[i],
			   g, axis[i], c, lo, hi);
	}
	return MMART_OK;
}

/* After a failed launch: when the kernel's dynamic shared-memory limit is
 * below what the launch asked (the usual cause: the attribute was never
 * raised), say so after the driver's message. */
static mmart_status smem_hint(mmart_status s, CUfunction f, unsigned smem)
{
	char msg[MMART_LOG_SIZE];
	int limit = 0;

	if (smem <= SMEM_DEFAULT_LIMIT
	    || cu.cuFuncGetAttribute(&limit,
			CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f)
	    || limit < 0 || (unsigned)limit >= smem)
		return s;
	snprintf(msg, sizeof msg, "%s", mmart_last_error());
	return mmart_set_error(s, "%s (the kernel may use %d bytes of dynamic "
			       "shared memory, the launch asks %u: call "
			       "mmart_func_set_max_dynamic_smem first)", msg,
			       limit, smem);
}

mmart_status mmart_launch_ex(mmart_ctx *ctx, void *fn,
			     const mmart_launch_config *cfg, void **params)
{
	CUlaunchAttribute attr = { 0 };
	CUlaunchConfig lc = { 0 };
	mmart_status s;
	CUresult res;

	if ((s = mmart_launch_config_check(cfg)) != MMART_OK)
		return s;
	if (!ctx || !fn)
		return BAD("mmart_launch_ex: %s is NULL", ctx ? "fn" : "ctx");
	if ((s = mmart_ctx_bind(ctx)) != MMART_OK
	    || (s = MMART_NEED(cuLaunchKernelEx)) != MMART_OK
	    || (s = mmart_stream_of("mmart_launch_ex", ctx, cfg->stream,
				    &lc.hStream)) != MMART_OK)
		return s;
	lc.gridDimX = cfg->grid[0];
	lc.gridDimY = cfg->grid[1];
	lc.gridDimZ = cfg->grid[2];
	lc.blockDimX = cfg->block[0];
	lc.blockDimY = cfg->block[1];
	lc.blockDimZ = cfg->block[2];
	lc.sharedMemBytes = cfg->smem_bytes;
	if (is_cluster(cfg->cluster)) {
		if (ctx->cc_major < 9)
			return BAD("mmart_launch_ex: clusters need an sm_90 or "
				   "newer device (this is sm_%d%d); use "
				   "cluster {1,1,1}", ctx->cc_major,
				   ctx->cc_minor);
		attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr.value.clusterDim.x = cfg->cluster[0];
		attr.value.clusterDim.y = cfg->cluster[1];
		attr.value.clusterDim.z = cfg->cluster[2];
		lc.attrs = &attr;
		lc.numAttrs = 1;
	}
	res = cu.cuLaunchKernelEx(&lc, (CUfunction)fn, params, NULL);
	if (!res)
		return MMART_OK;
	s = mmart_cu_error("cuLaunchKernelEx", res, NULL);
	return smem_hint(s, (CUfunction)fn, cfg->smem_bytes);
}

mmart_status mmart_func_set_max_dynamic_smem(mmart_ctx *ctx, void *fn,
					     unsigned bytes)
{
	int optin = 0, stat = 0;
	mmart_status s;
	CUresult res;

	if (!ctx || !fn)
		return BAD("mmart_func_set_max_dynamic_smem: %s is NULL",
			   ctx ? "fn" : "ctx");
	if (bytes > INT_MAX)
		return BAD("mmart_func_set_max_dynamic_smem: %u bytes is more "
			   "than any device has", bytes);
	if ((s = mmart_ctx_bind(ctx)) != MMART_OK)
		return s;
	res = cu.cuDeviceGetAttribute(&optin,
			CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
			ctx->dev);
	if (res)
		return mmart_cu_error("cuDeviceGetAttribute", res, NULL);
	res = cu.cuFuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
				    (CUfunction)fn);
	if (res)
		return mmart_cu_error("cuFuncGetAttribute", res, NULL);
	if ((long long)bytes + stat > optin)
		return BAD("mmart_func_set_max_dynamic_smem: %u bytes of "
			   "dynamic shared memory do not fit: %s allows %d "
			   "bytes per block (opt-in maximum) and the kernel "
			   "has %d static, so at most %d", bytes, ctx->name,
			   optin, stat, optin - stat > 0 ? optin - stat : 0);
	res = cu.cuFuncSetAttribute((CUfunction)fn,
			CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			(int)bytes);
	if (res)
		return mmart_cu_error("cuFuncSetAttribute", res, NULL);
	return MMART_OK;
}
