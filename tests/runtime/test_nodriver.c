/* test_nodriver.c - without a driver the library must answer, not crash.
 *
 * 1. In a child process (the driver loads once per process), with
 *    MMAGEN_LIBCUDA pointing nowhere: mmart_open gives MMART_NO_DRIVER and
 *    the message, every time; this runs on GPU machines too.
 * 2. In this process, with the real libcuda.so.1 or none: NO_DRIVER the
 *    same way, or (GPU machine) open/close work.
 */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_DETAIL() mmart_last_error()
#include "../unit/check.h"

static void expect_no_driver(const char *libname)
{
	mmart_ctx *ctx = (mmart_ctx *)&ctx;
	int v = -1;

	for (int i = 0; i < 2; i++) {
		CHECK_EXPR(mmart_open(-1, &ctx) == MMART_NO_DRIVER);
		CHECK_EXPR(ctx == NULL);
		CHECK_EXPR(strstr(mmart_last_error(), "no CUDA driver: ") != NULL);
		CHECK_EXPR(strstr(mmart_last_error(), libname) != NULL);
		CHECK_EXPR(strstr(mmart_last_error(), " not found") != NULL);
	}
	CHECK_EXPR(mmart_driver_version(&v) == MMART_NO_DRIVER && v == -1);
	CHECK_EXPR(strcmp(mmart_status_str(MMART_NO_DRIVER), "MMART_NO_DRIVER") == 0);
	CHECK_EXPR(strcmp(mmart_status_desc(MMART_NO_DRIVER),
		     "no CUDA driver: libcuda.so.1 not found") == 0);
}

/* Calls that never reach the driver still check their arguments. */
static void null_arguments(void)
{
	mmart_module *m;
	uint64_t p;
	void *fn;

	CHECK_EXPR(mmart_open(0, NULL) == MMART_INVALID_ARGUMENT);
	CHECK_EXPR(mmart_load_ptx(NULL, "", &m, NULL) == MMART_INVALID_ARGUMENT);
	CHECK_EXPR(mmart_get_function(NULL, "k", &fn) == MMART_INVALID_ARGUMENT);
	CHECK_EXPR(mmart_alloc(NULL, 16, &p) == MMART_INVALID_ARGUMENT);
	CHECK_EXPR(mmart_sync(NULL) == MMART_INVALID_ARGUMENT);
	CHECK_EXPR(strcmp(mmart_status_str((mmart_status)999),
		     "MMART_UNKNOWN_STATUS") == 0);
	mmart_close(NULL);
}

static int child(void)
{
	setenv("MMAGEN_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	expect_no_driver("/nonexistent/libcuda.so.1");
	return failed ? 1 : 0;
}

int main(void)
{
	mmart_ctx *ctx = NULL;
	mmart_status s;
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK_EXPR(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_EXPR(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	unsetenv("MMAGEN_LIBCUDA");
	null_arguments();
	/* A bad MMAGEN_DEVICE is refused before the driver is touched. */
	setenv("MMAGEN_DEVICE", "zero", 1);
	CHECK_EXPR(mmart_open(-1, &ctx) == MMART_INVALID_ARGUMENT);
	unsetenv("MMAGEN_DEVICE");

	s = mmart_open(-1, &ctx);
	if (s == MMART_NO_DRIVER) {
		printf("no driver here: %s\n", mmart_last_error());
		expect_no_driver("libcuda.so.1");
	} else if (s == MMART_NO_DEVICE) {
		printf("driver but no device: %s\n", mmart_last_error());
	} else {
		int major = 0, minor = 0;
		char name[64] = "";

		CHECK_EXPR(s == MMART_OK && ctx != NULL);
		CHECK_EXPR(mmart_device_info(ctx, &major, &minor, name, sizeof name)
		      == MMART_OK);
		CHECK_EXPR(major >= 3 && name[0]);
		printf("driver present: %s sm_%d%d\n", name, major, minor);
		{
			mmart_ctx *none = (mmart_ctx *)&none;

			CHECK_EXPR(mmart_open(1 << 20, &none) == MMART_NO_DEVICE);
			CHECK_EXPR(none == NULL);
		}
		mmart_close(ctx);
	}
	if (failed) {
		fprintf(stderr, "%lu check(s) failed\n", failed);
		return 1;
	}
	return 0;
}
