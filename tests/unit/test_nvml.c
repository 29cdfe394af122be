/* test_nvml.c - gen/cli/nvml.c: the median and the combination of two
 * bursts, then the sampler on fake_nvml (MMAGEN_LIBNVML, set by the
 * test's environment; argv[1] is a library without NVML's entry points):
 * the GPU found by PCI address, a sample at start, more while it runs,
 * NVML shut down on close, and each failure said in one line. */
#define _POSIX_C_SOURCE 200809L
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define PCI "00000012:AB:1F.0"

static void pure(void)
{
	unsigned odd[] = { 1500, 1980, 1200, 1500, 1700 }, even[] = { 7, 1, 4, 2 }, one[] = { 9 };
	CHECK(nvml_median(odd, 5) == 1500, "median of 5: %g", nvml_median(odd, 5));
	CHECK(nvml_median(even, 4) == 3, "median of 4: %g", nvml_median(even, 4));
	CHECK(nvml_median(one, 1) == 9, "median of 1");
	/* no overflow in the mean of the middle two */
	unsigned big[] = { 4000000000u, 4000000001u };
	CHECK(nvml_median(big, 2) == 4000000000.5, "median of large values: %.1f",
	      nvml_median(big, 2));

	struct nvml_stats a = { 10, 1500, 0.5 }, b = { 30, 1600, 0.25 }, none = { 0, 0, 0 };
	struct nvml_stats c = nvml_combine(&a, &b);
	CHECK(c.samples == 40 && c.mhz == 1550 && c.seconds == 0.25, "combine: %u %g %g",
	      c.samples, c.mhz, c.seconds);
	c = nvml_combine(&none, &b);
	CHECK(c.samples == 30 && c.mhz == 1600, "combine with an empty burst");
	c = nvml_combine(&a, &none);
	CHECK(c.samples == 10 && c.mhz == 1500, "combine with an empty burst, second");
}

static void failures(const char *not_nvml)
{
	char why[512];
	const char *fake = getenv("MMAGEN_LIBNVML");

	CHECK(!nvml_open("00000000:01:00.0", why, sizeof why) &&
	      strstr(why, "nvmlDeviceGetHandleByPciBusId_v2(\"00000000:01:00.0\"): Not Found"),
	      "another GPU: %s", why);
	setenv("FAKE_NVML_CLOCK", "0", 1);
	CHECK(!nvml_open(PCI, why, sizeof why) &&
	      !strcmp(why, "nvmlDeviceGetClockInfo(NVML_CLOCK_SM): Not Supported"),
	      "no clock: %s", why);
	unsetenv("FAKE_NVML_CLOCK");
	setenv("MMAGEN_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	CHECK(!nvml_open(PCI, why, sizeof why) &&
	      !strncmp(why, "MMAGEN_LIBNVML=/nonexistent/libnvidia-ml.so.1: ", 47) &&
	      !strchr(why, '\n'), "a bad MMAGEN_LIBNVML: %s", why);
	setenv("MMAGEN_LIBNVML", not_nvml, 1);
	CHECK(!nvml_open(PCI, why, sizeof why) && strstr(why, "lacks nvmlInit_v2"),
	      "a library that is not NVML: %s", why);
	setenv("MMAGEN_LIBNVML", fake, 1);
}

static void sampling(void)
{
	char why[512] = "";
	struct nvml_stats st = { 99, 0, 0 };
	struct timespec ms30 = { 0, 30000000 };
	struct nvml_sampler *s = nvml_open(PCI, why, sizeof why);
	void *lib = dlopen(getenv("MMAGEN_LIBNVML"), RTLD_NOW);
	int (*inits)(void) = NULL;

	if (lib)
		*(void **)&inits = dlsym(lib, "fake_nvml_inits");
	CHECK(s != NULL, "open: %s", why);
	if (!s || !inits) {
		CHECK(inits != NULL, "MMAGEN_LIBNVML does not name fake_nvml");
		return;
	}
	CHECK(inits() == 1, "nvmlInit_v2 once: %d", inits());
	/* stopped at once: the sample taken at start */
	CHECK(nvml_start(s, why, sizeof why) == 0, "start: %s", why);
	nvml_stop(s, &st);
	CHECK(st.samples >= 1 && st.samples <= 3 && st.mhz >= 1400 && st.mhz <= 1600,
	      "a burst stopped at once: %u samples, %g MHz", st.samples, st.mhz);
	/* 30 ms: about 15 more at 2 ms (a loaded machine gives fewer, or a
	 * few more when the stop comes late) */
	CHECK(nvml_start(s, why, sizeof why) == 0, "start again: %s", why);
	nanosleep(&ms30, NULL);
	nvml_stop(s, &st);
	CHECK(st.samples >= 3 && st.samples <= 40, "30 ms: %u samples", st.samples);
	CHECK(st.seconds >= 0.03 && st.seconds < 1, "30 ms: %g s", st.seconds);
	CHECK(st.mhz >= 1400 && st.mhz <= 1600, "30 ms: %g MHz", st.mhz);
	/* closed while it runs: stopped and joined, NVML shut down */
	CHECK(nvml_start(s, why, sizeof why) == 0, "start a third time: %s", why);
	nvml_close(s);
	CHECK(inits() == 0, "nvmlShutdown on close: %d inits left", inits());
	nvml_close(NULL);
	dlclose(lib);
}

int main(int argc, char **argv)
{
	if (argc != 2 || !getenv("MMAGEN_LIBNVML")) {
		printf("usage: MMAGEN_LIBNVML=fake_nvml.so test_nvml NOT_NVML.so\n");
		return 1;
	}
	pure();
	failures(argv[1]);
	sampling();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed != 0;
}
