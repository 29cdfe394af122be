/* nvml.c - NVML opened with dlopen, and a thread that samples the SM clock
 * while a burst of launches runs (nvml.h). */
#define _POSIX_C_SOURCE 200809L
#include "nvml.h"

#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVML_CLOCK_SM 1          /* nvmlClockType_t */
#define PERIOD_NS 2000000L       /* 2 ms between samples */
#define CAP 8192u                /* samples kept per burst (16 s at 2 ms); later ones are dropped */

/* X(return, name, parameters): the entry points used, as nvml.h declares
 * them; nvmlReturn_t is an int enum (0 success), nvmlDevice_t an opaque
 * pointer, nvmlClockType_t an int enum. */
#define NVML_FNS(X)                                                        \
	X(int, nvmlInit_v2, (void))                                        \
	X(int, nvmlShutdown, (void))                                       \
	X(int, nvmlDeviceGetHandleByPciBusId_v2, (const char *, void **))  \
	X(int, nvmlDeviceGetClockInfo, (void *, int, unsigned *))          \
	X(const char *, nvmlErrorString, (int))

struct nvml_sampler {
	void *lib;
	int inited;              /* nvmlInit_v2 succeeded: shut down on close */
	void *dev;
#define NVML_X_(ret, name, params) ret (*name) params;
	NVML_FNS(NVML_X_)
#undef NVML_X_
	pthread_t thread;
	int running;
	atomic_int stop;
	struct timespec t0;      /* nvml_start's time */
	unsigned n;              /* written by the thread, read after the join */
	unsigned mhz[CAP];
};

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

double nvml_median(unsigned *v, size_t n)
{
	assert(n > 0);
	qsort(v, n, sizeof *v, cmp_unsigned);
	return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
}

struct nvml_stats nvml_combine(const struct nvml_stats *x, const struct nvml_stats *y)
{
	if (!x->samples || !y->samples)
		return x->samples ? *x : *y;
	return (struct nvml_stats){ .samples = x->samples + y->samples,
				    .mhz = (x->mhz + y->mhz) / 2,
				    .seconds = x->seconds < y->seconds ? x->seconds : y->seconds };
}

/* NVML's words for status r (its number, should it have none). */
static const char *errstr(struct nvml_sampler *s, int r)
{
	static _Thread_local char num[32];
	const char *e = s->nvmlErrorString(r);
	if (e && *e)
		return e;
	snprintf(num, sizeof num, "NVML error %d", r);
	return num;
}

/* The SM clock now: 0, or NVML's status.  (No power: NVML gives the
 * last second's average on Ampere and newer, which trails a burst.) */
static int read_now(struct nvml_sampler *s, unsigned *mhz)
{
	return s->nvmlDeviceGetClockInfo(s->dev, NVML_CLOCK_SM, mhz);
}

/* One sample into the buffer; a failed read or a full buffer keeps none
 * (the burst's figures are then of the samples that were read). */
static void take(struct nvml_sampler *s)
{
	unsigned mhz;
	if (s->n < CAP && !read_now(s, &mhz))
		s->mhz[s->n++] = mhz;
}

static void *sample_loop(void *arg)
{
	struct nvml_sampler *s = arg;
	const struct timespec period = { 0, PERIOD_NS };
	/* the flag is looked at after the sleep too: a sample taken after
	 * the burst would read the idle GPU */
	while (!atomic_load(&s->stop)) {
		nanosleep(&period, NULL);
		if (atomic_load(&s->stop))
			break;
		take(s);
	}
	return NULL;
}

/* Every entry point of NVML_FNS: 0, or -1 naming the first one missing. */
static int resolve(struct nvml_sampler *s, const char *path, char *why, size_t n)
{
#define NVML_X_(ret, name, params)                                         \
	*(void **)&s->name = dlsym(s->lib, #name);                         \
	if (!s->name) {                                                    \
		snprintf(why, n, "%s lacks %s", path, #name);              \
		return -1;                                                 \
	}
	NVML_FNS(NVML_X_)
#undef NVML_X_
	return 0;
}

/* The library: the user's choice alone when MMAGEN_LIBNVML is set. */
static int load(struct nvml_sampler *s, char *why, size_t n)
{
	const char *env = getenv("MMAGEN_LIBNVML");
	const char *path = env && *env ? env : "libnvidia-ml.so.1";
	if (!(s->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		if (env && *env)
			snprintf(why, n, "MMAGEN_LIBNVML=%s: %s", env, e ? e : "not loaded");
		else
			snprintf(why, n, "%s (NVML comes with the NVIDIA driver; MMAGEN_LIBNVML names another)",
				 e ? e : "libnvidia-ml.so.1 not loaded");
		return -1;
	}
	return resolve(s, path, why, n);
}

struct nvml_sampler *nvml_open(const char *pci, char *why, size_t n)
{
	struct nvml_sampler *s = calloc(1, sizeof *s);
	unsigned mhz;
	int r;

	if (!s) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	atomic_init(&s->stop, 0);
	if (load(s, why, n))
		goto fail;
	if ((r = s->nvmlInit_v2())) {
		snprintf(why, n, "nvmlInit_v2: %s", errstr(s, r));
		goto fail;
	}
	s->inited = 1;
	if ((r = s->nvmlDeviceGetHandleByPciBusId_v2(pci, &s->dev))) {
		snprintf(why, n, "nvmlDeviceGetHandleByPciBusId_v2(\"%s\"): %s", pci,
			 errstr(s, r));
		goto fail;
	}
	/* a GPU or a VM that does not report its clock says so here, once,
	 * rather than as a burst without samples */
	if ((r = read_now(s, &mhz))) {
		snprintf(why, n, "nvmlDeviceGetClockInfo(NVML_CLOCK_SM): %s", errstr(s, r));
		goto fail;
	}
	return s;
fail:
	nvml_close(s);
	return NULL;
}

int nvml_start(struct nvml_sampler *s, char *why, size_t n)
{
	int r;

	assert(!s->running);
	s->n = 0;
	if ((r = read_now(s, &s->mhz[0]))) {
		snprintf(why, n, "nvmlDeviceGetClockInfo(NVML_CLOCK_SM): %s", errstr(s, r));
		return -1;
	}
	s->n = 1;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	atomic_store(&s->stop, 0);
	if ((r = pthread_create(&s->thread, NULL, sample_loop, s))) {
		snprintf(why, n, "pthread_create: %s", strerror(r));
		return -1;
	}
	s->running = 1;
	return 0;
}

void nvml_stop(struct nvml_sampler *s, struct nvml_stats *out)
{
	if (s->running) {
		atomic_store(&s->stop, 1);
		pthread_join(s->thread, NULL);
		s->running = 0;
	}
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (double)(t1.tv_sec - s->t0.tv_sec) + (t1.tv_nsec - s->t0.tv_nsec) * 1e-9;
	out->samples = s->n;
	out->mhz = s->n ? nvml_median(s->mhz, s->n) : 0;
}

void nvml_close(struct nvml_sampler *s)
{
	struct nvml_stats ignored;
	if (!s)
		return;
	nvml_stop(s, &ignored);
	if (s->inited)
		s->nvmlShutdown();
	if (s->lib)
		dlclose(s->lib);
	free(s);
}
