/* error.c - status names and the thread-local last-error message. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[1024];

static const char *const status_names[] = {
#define X(id, str) "MMAGEN_" #id,
	MMAGEN_STATUS_LIST(X)
#undef X
};

const char *mmagen_status_str(mmagen_status s)
{
	if ((unsigned)s >= ARRAY_SIZE(status_names))
		return "MMAGEN_UNKNOWN_STATUS";
	return status_names[s];
}

const char *mmagen_last_error(void)
{
	return last_error;
}

mmagen_status mmagen_set_error(mmagen_status s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return s;
}

void mmagen_free(void *p)
{
	free(p);
}
