/* error.c - status names and the thread-local last-error message. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[MMART_LOG_SIZE];

static const char *const status_names[] = {
#define X(id, str) "MMART_" #id,
	MMART_STATUS_LIST(X)
#undef X
};

static const char *const status_descs[] = {
#define X(id, str) str,
	MMART_STATUS_LIST(X)
#undef X
};

const char *mmart_status_str(mmart_status s)
{
	if ((unsigned)s >= ARRAY_SIZE(status_names))
		return "MMART_UNKNOWN_STATUS";
	return status_names[s];
}

const char *mmart_status_desc(mmart_status s)
{
	if ((unsigned)s >= ARRAY_SIZE(status_descs))
		return "unknown status";
	return status_descs[s];
}

const char *mmart_last_error(void)
{
	return last_error;
}

mmart_status mmart_set_error(mmart_status s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return s;
}

/* Which of our statuses a driver code is: the caller's choice hangs on
 * these (skip on NO_DEVICE, show the log on JIT). */
static mmart_status status_of(CUresult res)
{
	switch (res) {
	case CUDA_SUCCESS:
		return MMART_OK;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return MMART_NO_MEMORY;
	case CUDA_ERROR_STUB_LIBRARY: /* the toolkit's stub found first */
		return MMART_NO_DRIVER;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return MMART_NO_DEVICE;
	case CUDA_ERROR_INVALID_IMAGE:
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
	case CUDA_ERROR_INVALID_PTX:
	case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
	case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
	case CUDA_ERROR_JIT_COMPILATION_DISABLED:
		return MMART_JIT;
	case CUDA_ERROR_NOT_FOUND:
		return MMART_NOT_FOUND;
	default:
		return MMART_CUDA;
	}
}

mmart_status mmart_cu_error(const char *call, CUresult res, const char *log)
{
	const char *name = NULL, *desc = NULL;
	char num[32];

	/* The driver's own strings; the table may be half-filled when the
	 * driver failed to load, and unknown codes give no string. */
	if (!cu.cuGetErrorName || cu.cuGetErrorName(res, &name) != CUDA_SUCCESS
	    || !name) {
		snprintf(num, sizeof num, "CUDA_ERROR_%d", (int)res);
		name = num;
	}
	if (!cu.cuGetErrorString
	    || cu.cuGetErrorString(res, &desc) != CUDA_SUCCESS || !desc)
		desc = "unknown error";
	if (log && log[0])
		return mmart_set_error(status_of(res), "%s: %s: %s\n%s", call,
				       name, desc, log);
	return mmart_set_error(status_of(res), "%s: %s: %s", call, name, desc);
}

void mmart_host_free(void *p)
{
	free(p);
}
