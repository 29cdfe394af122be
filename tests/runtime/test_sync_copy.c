/* test_sync_copy.c - mmart_copy_to_device and mmart_memset8 return only
 * once the bytes are in device memory.
 *
 * Run against fake_cuda (MMAGEN_LIBCUDA, set by the test's environment),
 * whose cuMemcpyHtoD and cuMemsetD8 leave their work pending, as the real
 * driver may (pageable copies are staged, memsets are asynchronous) until
 * the context or the legacy stream is synchronised.  Before libmmart waited,
 * a kernel launched next on a non-blocking stream could read the old bytes:
 * `run gemm --path mma.sync` on the H200 saw the last rows of B as zeros
 * in the first K blocks. */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/check.h"

int main(void)
{
	const char *path = getenv("MMAGEN_LIBCUDA");
	void *lib = path ? dlopen(path, RTLD_NOW) : NULL;
	int (*pending)(void) = NULL;
	mmart_ctx *ctx = NULL;
	uint64_t d = 0;
	unsigned char host[256] = { 1, 2, 3 };

	if (lib)
		*(void **)&pending = dlsym(lib, "fake_cuda_pending");
	if (!pending) {
		printf("FAIL: MMAGEN_LIBCUDA does not name the fake driver (%s)\n",
		       path ? path : "unset");
		return 1;
	}
	CHECK(mmart_open(0, &ctx) == MMART_OK, "mmart_open on the fake driver: %s",
	      mmart_last_error());
	if (!ctx)
		goto out;
	CHECK(mmart_alloc(ctx, sizeof host, &d) == MMART_OK, "mmart_alloc");
	CHECK(mmart_copy_to_device(ctx, d, host, sizeof host) == MMART_OK, "copy");
	CHECK(pending() == 0, "mmart_copy_to_device returned with the copy still in flight");
	CHECK(mmart_memset8(ctx, d, 0xAB, sizeof host) == MMART_OK, "memset");
	CHECK(pending() == 0, "mmart_memset8 returned with the memset still in flight");
	mmart_free(ctx, d);
	mmart_close(ctx);
out:
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed != 0;
}
