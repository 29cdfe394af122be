/* ctx.c - opening a device: its primary context, retained while open. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1 means $MMAGEN_DEVICE, else 0; a malformed value is an error rather
 * than a silent device 0. */
static mmart_status pick_device(int device, int *ordinal)
{
	const char *v;
	char *end;
	long n;

	if (device >= 0) {
		*ordinal = device;
		return MMART_OK;
	}
	if (device != -1)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "device %d: use an index or -1", device);
	v = getenv("MMAGEN_DEVICE");
	if (!v || !v[0]) {
		*ordinal = 0;
		return MMART_OK;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 0 || n > 1 << 20)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "MMAGEN_DEVICE=%s: not a device index",
				       v);
	*ordinal = (int)n;
	return MMART_OK;
}

mmart_status mmart_ctx_bind(mmart_ctx *ctx)
{
	CUresult res = cu.cuCtxSetCurrent(ctx->cu);

	return res ? mmart_cu_error("cuCtxSetCurrent", res, NULL) : MMART_OK;
}

static mmart_status query(mmart_ctx *c)
{
	CUresult res;

	res = cu.cuDeviceGetAttribute(&c->cc_major,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev);
	if (!res)
		res = cu.cuDeviceGetAttribute(&c->cc_minor,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev);
	if (!res)
		res = cu.cuDeviceGetAttribute(&c->sms,
			CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);
	if (res)
		return mmart_cu_error("cuDeviceGetAttribute", res, NULL);
	res = cu.cuDeviceGetName(c->name, (int)sizeof c->name, c->dev);
	if (res)
		return mmart_cu_error("cuDeviceGetName", res, NULL);
	c->name[sizeof c->name - 1] = '\0';
	return MMART_OK;
}

mmart_status mmart_open(int device, mmart_ctx **out)
{
	mmart_ctx *c;
	mmart_status s;
	CUresult res;
	int ordinal = 0, count = 0;

	if (!out)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_open: out is NULL");
	*out = NULL;
	if ((s = pick_device(device, &ordinal)) != MMART_OK)
		return s;
	if ((s = mmart_driver_load()) != MMART_OK)
		return s;
	res = cu.cuDeviceGetCount(&count);
	if (res)
		return mmart_cu_error("cuDeviceGetCount", res, NULL);
	if (ordinal >= count)
		return mmart_set_error(MMART_NO_DEVICE,
				       "CUDA device %d not found (%d device%s)",
				       ordinal, count, count == 1 ? "" : "s");
	c = calloc(1, sizeof *c);
	if (!c)
		return mmart_set_error(MMART_NO_MEMORY, "out of memory");
	c->ordinal = ordinal;
	res = cu.cuDeviceGet(&c->dev, ordinal);
	if (res) {
		s = mmart_cu_error("cuDeviceGet", res, NULL);
		goto out;
	}
	if ((s = query(c)) != MMART_OK)
		goto out;
	res = cu.cuDevicePrimaryCtxRetain(&c->cu, c->dev);
	if (res) {
		s = mmart_cu_error("cuDevicePrimaryCtxRetain", res, NULL);
		goto out;
	}
	if ((s = mmart_ctx_bind(c)) != MMART_OK) {
		cu.cuDevicePrimaryCtxRelease(c->dev);
		goto out;
	}
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return MMART_OK;
out:
	free(c);
	return s;
}

void mmart_close(mmart_ctx *ctx)
{
	struct mmart_module *m, *next;
	CUcontext cur = NULL;

	if (!ctx)
		return;
	/* Modules need their context current to be unloaded. */
	if (cu.cuCtxSetCurrent(ctx->cu) == CUDA_SUCCESS)
		for (m = ctx->modules; m; m = next) {
			next = m->next;
			cu.cuModuleUnload(m->mod);
			free(m);
		}
	/* Leave no thread bound to a context that may go away with our
	 * reference; other users of it bind it again before each call. */
	if (cu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx->cu)
		cu.cuCtxSetCurrent(NULL);
	cu.cuDevicePrimaryCtxRelease(ctx->dev);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

mmart_status mmart_device_sms(mmart_ctx *ctx, int *sms)
{
	if (!ctx || !sms)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_device_sms: ctx and sms must not be NULL");
	*sms = ctx->sms;
	return MMART_OK;
}

mmart_status mmart_device_info(mmart_ctx *ctx, int *cc_major, int *cc_minor,
			       char *name, size_t n)
{
	if (!ctx)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_device_info: ctx is NULL");
	if (cc_major)
		*cc_major = ctx->cc_major;
	if (cc_minor)
		*cc_minor = ctx->cc_minor;
	if (name && n)
		snprintf(name, n, "%s", ctx->name);
	return MMART_OK;
}

/* Asked of the driver when wanted, not at mmart_open: a driver that could
 * not answer would otherwise fail every open for a figure few callers
 * need.  The arguments are checked before ctx, so each check can be seen
 * without a GPU. */
mmart_status mmart_device_pci_bus_id(mmart_ctx *ctx, char *buf, size_t n)
{
	int domain = 0, bus = 0, device = 0;
	CUresult res;

	if (!buf)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_device_pci_bus_id: buf is NULL");
	if (n < MMART_PCI_BUS_ID_SIZE)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_device_pci_bus_id: n = %zu bytes "
				       "has no room for \"00000000:00:00.0\" "
				       "and its NUL (nearest: %d)",
				       n, MMART_PCI_BUS_ID_SIZE);
	if (!ctx)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_device_pci_bus_id: ctx is NULL");
	res = cu.cuDeviceGetAttribute(&domain,
			CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, ctx->dev);
	if (!res)
		res = cu.cuDeviceGetAttribute(&bus,
			CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, ctx->dev);
	if (!res)
		res = cu.cuDeviceGetAttribute(&device,
			CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, ctx->dev);
	if (res)
		return mmart_cu_error("cuDeviceGetAttribute", res, NULL);
	/* NVML's NVML_DEVICE_PCI_BUS_ID_FMT: 8 + 2 + 2 hex digits; a bus
	 * above 0xFF or a device above 0x1F is no PCI address */
	if (bus < 0 || bus > 0xFF || device < 0 || device > 0x1F)
		return mmart_set_error(MMART_CUDA,
				       "mmart_device_pci_bus_id: the driver "
				       "gave bus %d, device %d: not a PCI "
				       "address", bus, device);
	snprintf(buf, n, "%08X:%02X:%02X.0", (unsigned)domain, (unsigned)bus,
		 (unsigned)device);
	return MMART_OK;
}
