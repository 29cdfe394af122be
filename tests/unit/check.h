/* check.h - the counters and CHECK of the unit tests: every check counts,
 * a failure prints one line (the first MAX_PRINTED of them), and main ends
 * with "N passed, M failed". */
#ifndef MMAGEN_TEST_CHECK_H
#define MMAGEN_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static unsigned long passed, failed;

/* A broken encoder would otherwise print one line per pattern. */
#define MAX_PRINTED 200

#if defined(__GNUC__)
static inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#endif

static inline void vfail(const char *fmt, va_list ap)
{
	failed++;
	if (failed > MAX_PRINTED)
		return;
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
}

static inline void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
}

static inline void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
}

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond)                                                  \
			passed++;                                          \
		else                                                       \
			fail(__VA_ARGS__);                                 \
	} while (0)

#endif
