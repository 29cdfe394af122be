/* run.h - `mmagen run` and `mmagen bench`: generate, JIT-load through
 * libmmart, launch, check against the CPU reference.  Part of the CLI, not
 * of libmmagen (the generator library has no CUDA dependency at all): the
 * inputs, the reference and the comparison are libmmagen's mmagen_check_*;
 * this side holds the runtime calls and the printing. */
#ifndef MMAGEN_RUN_H
#define MMAGEN_RUN_H

#include "mmagen.h"

struct run_opts {
	uint64_t seed;
	int device;          /* -1: MMAGEN_DEVICE or 0 */
	int verbose;
	const char *edge;    /* NULL, or an edge-case input set (run.c) */
	const mmagen_tile_opts *tile;   /* NULL: defaults */
	unsigned reps;       /* bench instr: timed launches; 0: 30 */
};

/* Exit codes: 0 pass, 1 mismatch or error, 77 no driver/GPU. */
int run_tile(const mmagen_form *f, int t, const struct run_opts *o);
/* Every form on t that matches `filter` (NULL: all); sample_n: for wgmma
 * only the smallest N, 128 and the largest. */
int run_tile_all(int t, const mmagen_request *filter, int sample_n,
		 const struct run_opts *o);
int device_target(const struct run_opts *o, int *t);
int bench_load(const mmagen_form *f, int t, const struct run_opts *o);
/* The same for any kernel: gen_ptx(user, &ptx) writes it (0, or 1 after
 * saying why; *ptx freed with mmagen_free); `what` names it in the table.
 * The cold loads re-run this program (/proc/self/exe, the same arguments)
 * with MMAGEN_BENCH_CHILD set: the caller must reach this call again in
 * that child, before touching the driver. */
typedef int bench_gen_fn(void *user, char **ptx);
int bench_load_gen(const char *what, bench_gen_fn *gen_ptx, void *user, const struct run_opts *o);
/* bench instr (bench_instr.c): the issue peak of f, an mma.sync / mma.sp
 * form with a peak kernel (mmagen_peak_ops), on the GPU; 0, 1 (said why),
 * 2 (a form ptxas emulates on t: said why) or 77 (no driver or GPU). */
int bench_instr(const mmagen_form *f, int t, const struct run_opts *o);
/* After a module load: the one line why the disk cache was not used. */
void cache_note(int hit);

/* NVML (nvml.h) for the GPU of ctx, found by its PCI address
 * (mmart_device_pci_bus_id: CUDA and NVML may number GPUs differently):
 * a sampler, or NULL with one line in `why`. */
struct mmart_ctx;
struct nvml_sampler;
struct nvml_sampler *nvml_open_ctx(struct mmart_ctx *ctx, char *why, size_t n);
/* The median of n > 0 times in ms (sorts them: ms[0] and ms[n-1] are
 * then the least and most). */
float median_ms(float *ms, unsigned n);
/* The clocks line's flag for a side whose shortest burst took `seconds`
 * ("" from 0.2 s up): on the H200, cuBLASLt's 30 ms bursts of bf16
 * 8192^3 right after ours read 1980 MHz where its 0.16 s bursts read 1522
 * (nvidia-smi, the two side by side for 2 s: 1515); whether a short burst
 * runs faster or its reading lags was not told apart.  `what` names the
 * bursts ("bursts", "a burst", "launches"). */
const char *clocks_flag(double seconds, const char *what, char *buf, size_t n);

#endif
