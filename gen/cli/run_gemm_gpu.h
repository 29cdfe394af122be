/* run_gemm_gpu.h - what the GPU side of `mmagen run gemm` shares across
 * its files; internal to the CLI (the host side, which the unit tests
 * reach, is run_gemm.h).
 *
 *   run_gemm.c           the command: option checks, the device operand
 *                        sets, the kernel's load and launch through
 *                        libmmart's GEMM launcher, split-K, the check,
 *                        --time-load
 *   run_gemm_bench.c     --bench: cuBLASLt beside it, bursts, timing,
 *                        host time, clocks
 *   run_gemm_tune.c      --tune, and tuned or chosen kernel choices
 *   run_gemm_sm120_gpu.c sm_120a kernels on an SM120 GPU
 *
 * Functions that fail say why on stderr (one line) and return non-zero. */
#ifndef MMAGEN_RUN_GEMM_GPU_H
#define MMAGEN_RUN_GEMM_GPU_H

#include "cublaslt.h"
#include "mmart.h"
#include "nvml.h"
#include "run_gemm.h"

#include <stddef.h>
#include <stdint.h>

#define GUARD 1024u                    /* poisoned bytes on each side of D */
#define WARMUP 5
#define POISON 0xFFu                   /* NaN in every float type, -1 in s32 */
#define RUN_REPS 30u                   /* timed launches without --reps */

/* ---- one set of device operands and its launch ---- */
struct dev_set {
	uint64_t a, b, c, dbuf;       /* dbuf: GUARD + D + GUARD (check) or D */
	uint64_t d;                   /* D itself */
	uint64_t sa, sb;              /* fp8-block: the scales (else 0) */
};

struct gpu {
	mmart_ctx *ctx;
	mmart_stream *stream;
	/* the kernel, launched through libmmart's GEMM launcher (its ABI:
	 * parameters, grid, tensor maps, split-K buffers) */
	mmart_gemm_kernel *kern;
	mmagen_gemm_info info;
	const struct rg_problem *p;
	mmart_launch_config cfg;
	struct dev_set *sets;
	unsigned nsets;
	/* cuBLASLt, when there */
	struct cublaslt lt;
	void *lt_handle, *lt_desc, *lt_la, *lt_lb, *lt_lc;
	struct lt_heuristic lt_algo;
	uint64_t lt_ws;
	int lt_int_scale;             /* alpha and beta are s32 (int8 -> s32) */
	/* the wgmma split-K kernel (info.split_k != 1): S (the kernel owns
	 * its workspace and counters) */
	int split;
	uint32_t splits;
	/* --bench's clocks (NVML): the sampler, or NULL and why */
	struct nvml_sampler *nvml;
	char nvml_why[256];
};

/* One launch on operand set s (mmagen's kernel, cuBLASLt's, sm_120a's). */
typedef int launch_fn(struct gpu *g, const struct dev_set *s);

struct timing {
	float median, min, max;
	int gaps;                    /* the host fell behind the GPU */
};

/* ---- run_gemm.c ---- */
/* libmmart's error after "what: " (1); rg_error() said (1). */
int rgg_rt_fail(const char *what);
int rgg_said(void);
/* The SM count for the persistent grid, 0 when unknown. */
unsigned rgg_device_sms(mmart_ctx *ctx);
/* n zeroed sets, or NULL when out of memory. */
struct dev_set *rgg_alloc_sets(unsigned n);
/* g's kernel on set s (launch_fn). */
int rgg_launch_mmagen(struct gpu *g, const struct dev_set *s);
/* Set s allocated and filled from d, D between `guard` poisoned bytes. */
int rgg_upload_set(struct gpu *g, struct dev_set *s, const struct rg_data *d, size_t guard);
void rgg_free_sets(struct gpu *g);
/* The check's two launches, D back into d->d; the guard bytes that
 * changed and whether D went through its tensor map. */
int rgg_run_once(struct gpu *g, struct rg_data *d, size_t *guard_bad, int *d_tma);
/* mmart_open: 0, 77 (no driver or GPU) or 1. */
int rgg_open_gpu(const struct run_opts *ro, mmart_ctx **ctx);
/* r's kernel into g->kern (hit: where it came from); with the cache note
 * and g's stream (prepare); g->cfg from the launcher (set_config). */
int rgg_load_kernel(struct gpu *g, const mmagen_gemm_request *r, int *hit);
int rgg_prepare_kernel(struct gpu *g, const mmagen_gemm_request *r);
void rgg_set_config(struct gpu *g);

/* ---- run_gemm_bench.c ---- */
/* One burst of `reps` launches after WARMUP, summarized into *t; the SM
 * clocks while they ran into *clk when clk and g->nvml. */
int rgg_time_launches(struct gpu *g, launch_fn *launch, unsigned reps,
		      uint64_t blocker, uint64_t blocker_bytes, struct timing *t,
		      struct nvml_stats *clk);
/* Operand sets enough to rotate past the L2, and the blocker memset's
 * buffer (*blocker 0 when there is no room). */
int rgg_timing_sets(struct gpu *g, const struct rg_data *d, unsigned reps, uint64_t *blocker,
		    uint64_t *blocker_bytes);
/* The clocks line (lt NULL: mmagen alone). */
void rgg_print_clocks(const struct gpu *g, const struct nvml_stats *m,
		      const struct nvml_stats *lt);
/* --bench; what: the problem in words. */
int rgg_bench(struct gpu *g, const struct rg_data *d, const struct run_gemm_opts *o,
	      const char *what);
/* cuBLASLt's handles and workspace freed, the library closed. */
void rgg_lt_teardown(struct gpu *g);

/* ---- run_gemm_tune.c ---- */
/* A remembered choice for r's key (request without choices of its own,
 * wgmma path), and else the chooser's for the shape: r and g->info
 * replaced, said on stderr. */
int rgg_apply_tuned(struct gpu *g, mmagen_gemm_request *r);
int rgg_apply_chosen(struct gpu *g, mmagen_gemm_request *r);
/* What --tune cannot do, said before the driver is touched: 0 or 2. */
int rgg_tune_usage(const mmagen_gemm_request *r, const mmagen_gemm_info *info);
/* --tune: the fastest correct candidate into *r and g->info, remembered. */
int rgg_tune(struct gpu *g, mmagen_gemm_request *r, struct rg_data *d,
	     const struct run_gemm_opts *o);

/* ---- run_gemm_sm120_gpu.c ---- */
/* The command for an sm_120a request: 77 on a GPU that is not SM120. */
int rgg_sm120_gpu(const mmagen_gemm_request *r, const struct run_gemm_opts *o,
		  const struct run_opts *ro);

#endif
