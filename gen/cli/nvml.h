/* nvml.h - the SM clock while `run gemm --bench` times a
 * burst, read from NVML (libnvidia-ml.so.1, which comes with the NVIDIA
 * driver) opened with dlopen: optional, like cuBLASLt; without it the
 * bench says why it did not sample and goes on.  Large GEMMs on the H200
 * do not hold the top clock (1980 MHz; bf16 8192^3 runs at about 1500),
 * so a ratio of two libraries there is read beside the clocks each ran
 * at. */
#ifndef MMAGEN_NVML_H
#define MMAGEN_NVML_H

#include <stddef.h>

/* What one burst, or one side's bursts, ran at. */
struct nvml_stats {
	unsigned samples;
	double mhz;              /* median SM clock */
	double seconds;          /* from start to stop; one side's: its shortest burst */
};

struct nvml_sampler;

/* NVML ($MMAGEN_LIBNVML if set, else libnvidia-ml.so.1) opened, the GPU
 * at PCI address `pci` (mmart_device_pci_bus_id) found and its clock
 * read once: a sampler, or NULL with one line in `why`. */
struct nvml_sampler *nvml_open(const char *pci, char *why, size_t n);
/* Samples the clock from now until nvml_stop: one sample at
 * once (so there is always one), then about every 2 ms in a thread of its
 * own.  0, or -1 with one line in `why` (no sample, no thread). */
int nvml_start(struct nvml_sampler *s, char *why, size_t n);
/* Stops and joins the thread; *out gets the burst's samples and medians. */
void nvml_stop(struct nvml_sampler *s, struct nvml_stats *out);
/* Stops a running sampler, shuts NVML down; NULL is ignored. */
void nvml_close(struct nvml_sampler *s);

/* The median of n > 0 values (sorts them). */
double nvml_median(unsigned *v, size_t n);
/* One side's figures from its two bursts: the mean of their medians (as
 * the times: run_gemm_bench.c's two_bursts), the samples of both, the shorter
 * burst's seconds; a burst without samples counts for nothing. */
struct nvml_stats nvml_combine(const struct nvml_stats *x, const struct nvml_stats *y);

#endif
