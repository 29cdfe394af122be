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

const char *err_quote(const char *s, char *buf)
{
	char *p = buf;
	size_t n = 0;

	*p++ = '\'';
	for (; *s && n < ERR_QUOTE_MAX; s++, n++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	if (*s)
		p += sprintf(p, "...");
	*p++ = '\'';
	*p = '\0';
	return buf;
}

void mmagen_free(void *p)
{
	free(p);
}
