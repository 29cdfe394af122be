/* fake_nvml.c - a stand-in libnvidia-ml.so.1 for tests without a GPU
 * (loaded through MMAGEN_LIBNVML).  One GPU, at fake_cuda's PCI address
 * "00000012:AB:1F.0"; any other address is NVML_ERROR_NOT_FOUND.  Its SM
 * clock steps through 1400, 1500, 1600 MHz read by read;
 * FAKE_NVML_CLOCK=0 makes the clock unsupported, as in some VMs. */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { SUCCESS = 0, ERROR_UNINITIALIZED = 1, ERROR_INVALID_ARGUMENT = 2,
       ERROR_NOT_SUPPORTED = 3, ERROR_NOT_FOUND = 6 };

static int inits, dev;
static unsigned reads;

EXPORT int nvmlInit_v2(void);
EXPORT int nvmlShutdown(void);
EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **d);
EXPORT int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz);
EXPORT const char *nvmlErrorString(int r);
EXPORT int fake_nvml_inits(void);

int nvmlInit_v2(void) { inits++; return SUCCESS; }
int nvmlShutdown(void) { return inits-- > 0 ? SUCCESS : ERROR_UNINITIALIZED; }
int fake_nvml_inits(void) { return inits; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **d)
{
	if (!inits)
		return ERROR_UNINITIALIZED;
	if (strcmp(pci, "00000012:AB:1F.0"))
		return ERROR_NOT_FOUND;
	*d = &dev;
	return SUCCESS;
}

int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz)
{
	const char *c = getenv("FAKE_NVML_CLOCK");
	if (d != &dev || type != 1)          /* NVML_CLOCK_SM */
		return ERROR_INVALID_ARGUMENT;
	if (c && !strcmp(c, "0"))
		return ERROR_NOT_SUPPORTED;
	*mhz = 1400 + 100 * (__atomic_fetch_add(&reads, 1, __ATOMIC_RELAXED) % 3);
	return SUCCESS;
}

const char *nvmlErrorString(int r)
{
	return r == ERROR_NOT_FOUND ? "Not Found" : r == ERROR_NOT_SUPPORTED ? "Not Supported" :
	       "Unknown Error";
}
