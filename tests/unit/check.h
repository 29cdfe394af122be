/* check.h - the counters and CHECK of every C test (tests/unit, tests/ptxas,
 * tests/runtime): every check counts,
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

/* CHECK_EXPR(cond): the message is the place and the expression, plus
 * CHECK_DETAIL() (a string) if the test defines it before including this
 * file (the runtime tests: mmart_last_error()). */
#ifndef CHECK_DETAIL
#define CHECK_DETAIL() ""
#endif
#define CHECK_EXPR(cond)                                                   \
	CHECK(cond, "%s:%d: CHECK(%s) failed (%s)", __FILE__, __LINE__, #cond, \
	      CHECK_DETAIL())

/* The last line of main: "N passed, M failed"; the exit status. */
static inline int check_summary(void)
{
	if (failed > MAX_PRINTED)
		printf("(%lu more failures not printed)\n", failed - MAX_PRINTED);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
