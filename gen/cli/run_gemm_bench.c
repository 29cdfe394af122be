/* run_gemm_bench.c - `mmagen run gemm --bench`: the kernel timed beside
 * cuBLASLt (loaded at run time, cublaslt.c) on operand sets that rotate
 * past the L2, in bursts behind a blocker memset, with the host's time per
 * launch and the SM clocks while each side ran (NVML, nvml.c); and the
 * timing that --tune and the sm_120a side share (rgg_time_launches). */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm_gpu.h"
#include "cublaslt.h"
#include "mmart.h"
#include "nvml.h"
#include "run.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define L2_BYTES (50ull << 20)         /* the H200's L2: --bench rotates past it */
#define MAX_SETS 256u
#define LT_WORKSPACE (32ull << 20)     /* cuBLAS's advice for Hopper */
/* --bench without --reps: bursts of about this long (the clocks line
 * flags bursts under 0.2 s: the H200 ran and read above its sustained
 * clock in such), RUN_REPS to AUTO_REPS_MAX launches */
#define AUTO_BURST_MS 300.0
#define AUTO_REPS_MAX 2000u

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int launch_lt(struct gpu *g, const struct dev_set *s)
{
	const struct rg_problem *p = g->p;
	float alpha = p->alpha, beta = p->beta;
	/* int8 -> s32: cuBLASLt's scale type is s32; the same integers the
	 * kernel truncates alpha and beta to */
	int32_t alpha_i = rg_int_scale(p->alpha), beta_i = rg_int_scale(p->beta);
	const void *pa = g->lt_int_scale ? (const void *)&alpha_i : (const void *)&alpha;
	const void *pb = g->lt_int_scale ? (const void *)&beta_i : (const void *)&beta;
	/* row-major D (M x N) = A B is column-major D^T (N x M) = B^T A^T:
	 * cuBLASLt's "A" is our B (column-major K x N, transposed), its "B"
	 * our A (column-major K x M), its C and D ours, N x M with ld N */
	int st = g->lt.cublasLtMatmul(g->lt_handle, g->lt_desc, pa,
		(void *)(uintptr_t)s->b, g->lt_la, (void *)(uintptr_t)s->a, g->lt_lb, pb,
		(void *)(uintptr_t)(beta != 0 ? s->c : s->d), g->lt_lc, (void *)(uintptr_t)s->d,
		g->lt_lc, &g->lt_algo.algo, (void *)(uintptr_t)g->lt_ws, LT_WORKSPACE,
		mmart_stream_handle(g->stream));
	if (st != LT_CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "mmagen: run gemm: cublasLtMatmul: %s\n", g->lt.cublasLtGetStatusName(st));
		return 1;
	}
	return 0;
}

/* NVML sampling for a burst: 1 when it runs; 0 when it could not start,
 * and the bench's clocks are then not sampled (said why). */
static int sample_start(struct gpu *g)
{
	if (!nvml_start(g->nvml, g->nvml_why, sizeof g->nvml_why))
		return 1;
	nvml_close(g->nvml);
	g->nvml = NULL;
	return 0;
}

/* WARMUP launches, then `reps` launches back to back, launch i on operand
 * set i % sets (no launch finds the previous one's operands in L2), an
 * event between each two, their times into ms[].  A memset of `blocker`
 * bytes goes first, so the GPU is busy while the host queues the timed
 * launches: each interval is then one kernel on a full queue, not the
 * host's launch latency.  If the host still fell behind (a launch queued
 * later than the memset and the launches before it, at the shortest time
 * measured, could have taken), *gaps is set.
 * With clk and g->nvml, the clocks while they ran into *clk. */
static int burst(struct gpu *g, launch_fn *launch, unsigned reps, uint64_t blocker,
		 uint64_t blocker_bytes, float *ms, int *gaps, struct nvml_stats *clk)
{
	mmart_event **ev = calloc(reps + 3, sizeof *ev);
	double *queued = calloc(reps, sizeof *queued);   /* host ms at each launch */
	float block_ms = 0;
	int rc = 1;

	if (!ev || !queued) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		goto out;
	}
	for (unsigned i = 0; i < reps + 3; i++)
		if (mmart_event_create(g->ctx, &ev[i]))
			goto rt;
	/* the warm-up's last launch on the set before the first timed one's */
	for (unsigned i = 0; i < WARMUP; i++)
		if (launch(g, &g->sets[(i + g->nsets * WARMUP - WARMUP) % g->nsets]))
			goto out;
	if (mmart_stream_sync(g->ctx, g->stream))
		goto rt;
	if (mmart_event_record(g->ctx, ev[reps + 1], g->stream) ||
	    (blocker && mmart_memset8_async(g->ctx, blocker, 0, blocker_bytes, g->stream)) ||
	    mmart_event_record(g->ctx, ev[reps + 2], g->stream))
		goto rt;
	double t0 = now_ms();
	for (unsigned r = 0; r < reps; r++) {
		if (mmart_event_record(g->ctx, ev[r], g->stream))
			goto rt;
		if (launch(g, &g->sets[r % g->nsets]))
			goto out;
		queued[r] = now_ms() - t0;
	}
	if (mmart_event_record(g->ctx, ev[reps], g->stream))
		goto rt;
	/* sampled from here to the sync: started once the launches are
	 * queued, the sampler's thread and reads cannot slow the queueing
	 * (and open gaps between launches) */
	int sampling = clk && g->nvml && sample_start(g);
	int unsynced = mmart_stream_sync(g->ctx, g->stream) != MMART_OK;
	if (sampling)
		nvml_stop(g->nvml, clk);
	if (unsynced || mmart_event_elapsed_ms(g->ctx, ev[reps + 1], ev[reps + 2], &block_ms))
		goto rt;
	for (unsigned r = 0; r < reps; r++)
		if (mmart_event_elapsed_ms(g->ctx, ev[r], ev[r + 1], &ms[r]))
			goto rt;
	/* a gap: launch r was queued after the GPU could have reached it,
	 * the memset plus r launches at the shortest time measured */
	float least = ms[0];
	for (unsigned r = 1; r < reps; r++)
		least = ms[r] < least ? ms[r] : least;
	for (unsigned r = 0; r < reps; r++)
		*gaps |= queued[r] > block_ms + (double)r * least;
	rc = 0;
	goto out;
rt:
	rc = rgg_rt_fail("timing");
out:
	for (unsigned i = 0; ev && i < reps + 3; i++)
		mmart_event_destroy(g->ctx, ev[i]);
	free(ev);
	free(queued);
	return rc;
}

/* Host time per launch, the GPU busy: HOST_LAUNCHES launches queued
 * behind the blocker's memset (so the GPU never waits for the host and
 * the host never waits for the GPU), timed by the host's clock; the
 * median of HOST_ROUNDS rounds, in microseconds.  What a program pays
 * per call with its tensor maps cached (mmagen) or its descriptors made
 * (cuBLASLt's cublasLtMatmul). */
#define HOST_LAUNCHES 64
#define HOST_ROUNDS 9
static int host_us(struct gpu *g, launch_fn *launch, uint64_t blocker, uint64_t blocker_bytes,
		   double *us)
{
	float t[HOST_ROUNDS];
	for (unsigned r = 0; r < HOST_ROUNDS; r++) {
		if (mmart_stream_sync(g->ctx, g->stream) ||
		    (blocker && mmart_memset8_async(g->ctx, blocker, 0, blocker_bytes, g->stream)))
			return rgg_rt_fail("host timing");
		double t0 = now_ms();
		for (unsigned i = 0; i < HOST_LAUNCHES; i++)   /* one set: maps cached */
			if (launch(g, &g->sets[0]))
				return 1;
		t[r] = (float)((now_ms() - t0) * 1000.0 / HOST_LAUNCHES);
	}
	if (mmart_stream_sync(g->ctx, g->stream))
		return rgg_rt_fail("host timing");
	*us = median_ms(t, HOST_ROUNDS);
	return 0;
}

/* The median, least and most of n times (sorts them). */
static void summarize(float *ms, unsigned n, int gaps, struct timing *t)
{
	t->median = median_ms(ms, n);
	t->min = ms[0];
	t->max = ms[n - 1];
	t->gaps = gaps;
}

/* One side's figure from its two bursts: the mean of their medians, the
 * least and most of both. */
static struct timing two_bursts(const struct timing *x, const struct timing *y)
{
	return (struct timing){ .median = (x->median + y->median) / 2,
				.min = x->min < y->min ? x->min : y->min,
				.max = x->max > y->max ? x->max : y->max,
				.gaps = x->gaps | y->gaps };
}

/* One burst of `reps` launches, summarized (the clocks in *clk, as
 * burst). */
int rgg_time_launches(struct gpu *g, launch_fn *launch, unsigned reps,
		      uint64_t blocker, uint64_t blocker_bytes, struct timing *t,
		      struct nvml_stats *clk)
{
	float *ms = calloc(reps, sizeof *ms);
	int gaps = 0, rc = 1;
	if (!ms)
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
	else if (!(rc = burst(g, launch, reps, blocker, blocker_bytes, ms, &gaps, clk)))
		summarize(ms, reps, gaps, t);
	free(ms);
	return rc;
}

/* The same problem in cuBLASLt's terms: compute and scale types and the
 * cudaDataType of its A (our B), its B (our A) and C/D.  Where cuBLASLt
 * has no such GEMM the heuristic says so (lt_setup). */
struct lt_problem {
	int compute, scale, a, b, cd, int_scale;
};

static struct lt_problem lt_problem_of(const struct rg_problem *p)
{
	struct lt_problem q = {
		.compute = LT_CUBLAS_COMPUTE_32F, .scale = LT_CUDA_R_32F,
		.a = cublaslt_dtype(p->b), .b = cublaslt_dtype(p->a), .cd = cublaslt_dtype(p->out),
	};
	switch (rg_class_of(p->a)) {
	case RG_F32ACC:      /* tf32: f32 operands, read as tf32 */
		if (p->a == MMAGEN_TF32)
			q.compute = LT_CUBLAS_COMPUTE_32F_FAST_TF32;
		break;
	case RG_FP8:         /* no scale pointers: every scale is 1 */
		break;
	case RG_INT:
		q.compute = LT_CUBLAS_COMPUTE_32I;
		if (p->out == MMAGEN_S32) {
			q.scale = LT_CUDA_R_32I;
			q.int_scale = 1;
		}
		break;
	}
	return q;
}

/* cuBLASLt set up for the problem: 0, or 1 with `why` (no library, a
 * problem it refuses, no algorithm) when the bench goes on without it,
 * -1 on a failure of ours. */
static int lt_setup(struct gpu *g, char *why, size_t n)
{
	const struct rg_problem *p = g->p;
	struct cublaslt *lt = &g->lt;
	struct lt_problem q = lt_problem_of(p);
	/* its A is our B: K-major B is column-major K x N (op T), N-major B
	 * column-major N x K (op N); its B is our A: K-major A is K x M (op
	 * N), M-major A is M x K (op T) */
	int op_t = p->b_mn ? LT_CUBLAS_OP_N : LT_CUBLAS_OP_T;
	int op_n = p->a_mn ? LT_CUBLAS_OP_T : LT_CUBLAS_OP_N, nr = 0;
	uint64_t la[2] = { p->b_mn ? p->n : p->k, p->b_mn ? p->k : p->n };   /* rows, cols */
	uint64_t lb[2] = { p->a_mn ? p->m : p->k, p->a_mn ? p->k : p->m };
	uint64_t ws = LT_WORKSPACE;
	void *pref = NULL;
	int rc = 1, st;
	char what[128];

	/* cuBLASLt's FP8 D takes C as bf16/f16 and scales through device
	 * pointers; this runner's C has D's type */
	if (p->out == MMAGEN_E4M3 || p->out == MMAGEN_E5M2) {
		snprintf(why, n, "cuBLASLt's %s D reads C in bf16 or f16, not %s as here, so it is not compared",
			 mmagen_type_name(p->out), mmagen_type_name(p->out));
		return 1;
	}
	if (p->block_scale) {
		snprintf(why, n, "cuBLASLt is not given fp8-block's scales here (its block-scaled FP8 is not wired up in run gemm), so it is not compared");
		return 1;
	}
	if (rg_elem_bits(p->a) == 4 || rg_elem_bits(p->b) == 4) {
		snprintf(why, n, "cuBLASLt has no int4 GEMM (%s x %s)", mmagen_type_name(p->a),
			 mmagen_type_name(p->b));
		return 1;
	}
	if (cublaslt_open(lt, why, n))
		return 1;
	snprintf(what, sizeof what, "%s x %s -> %s", mmagen_type_name(p->a),
		 mmagen_type_name(p->b), mmagen_type_name(p->out));
	assert(q.a >= 0 && q.b >= 0 && q.cd >= 0);   /* every type the generator takes */
	g->lt_int_scale = q.int_scale;
	/* a status here is cuBLASLt refusing the problem (a type it does not
	 * take): said in one line, and mmagen is timed alone */
#define LT(call) do { if ((st = (call)) != LT_CUBLAS_STATUS_SUCCESS) {           \
		snprintf(why, n, "%s refuses %s: %s: %s", lt->path, what,            \
			 #call, lt->cublasLtGetStatusName(st));                      \
		goto out; } } while (0)
	LT(lt->cublasLtCreate(&g->lt_handle));
	LT(lt->cublasLtMatmulDescCreate(&g->lt_desc, q.compute, q.scale));
	LT(lt->cublasLtMatmulDescSetAttribute(g->lt_desc, LT_CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t));
	LT(lt->cublasLtMatmulDescSetAttribute(g->lt_desc, LT_CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n));
	LT(lt->cublasLtMatrixLayoutCreate(&g->lt_la, q.a, la[0], la[1], la[0]));
	LT(lt->cublasLtMatrixLayoutCreate(&g->lt_lb, q.b, lb[0], lb[1], lb[0]));
	LT(lt->cublasLtMatrixLayoutCreate(&g->lt_lc, q.cd, p->n, p->m, p->n));
	LT(lt->cublasLtMatmulPreferenceCreate(&pref));
	LT(lt->cublasLtMatmulPreferenceSetAttribute(pref, LT_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						    &ws, sizeof ws));
#undef LT
	st = lt->cublasLtMatmulAlgoGetHeuristic(g->lt_handle, g->lt_desc, g->lt_la, g->lt_lb,
						g->lt_lc, g->lt_lc, pref, 1, &g->lt_algo, &nr);
	if (st != LT_CUBLAS_STATUS_SUCCESS || nr < 1) {
		snprintf(why, n, "%s has no algorithm for %s (%s)", lt->path, what,
			 st ? lt->cublasLtGetStatusName(st) : "none returned");
		goto out;
	}
	if (mmart_alloc(g->ctx, LT_WORKSPACE, &g->lt_ws)) {
		rgg_rt_fail("cuBLASLt workspace");
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	if (pref)
		lt->cublasLtMatmulPreferenceDestroy(pref);
	return rc;
}

void rgg_lt_teardown(struct gpu *g)
{
	struct cublaslt *lt = &g->lt;
	if (!lt->lib)
		return;
	if (g->lt_la)
		lt->cublasLtMatrixLayoutDestroy(g->lt_la);
	if (g->lt_lb)
		lt->cublasLtMatrixLayoutDestroy(g->lt_lb);
	if (g->lt_lc)
		lt->cublasLtMatrixLayoutDestroy(g->lt_lc);
	if (g->lt_desc)
		lt->cublasLtMatmulDescDestroy(g->lt_desc);
	if (g->lt_handle)
		lt->cublasLtDestroy(g->lt_handle);
	mmart_free(g->ctx, g->lt_ws);
	cublaslt_close(lt);
}

/* mmagen's D and cuBLASLt's D of set 0: the largest difference over the
 * largest |D|, in *rel. */
static int compare_with_lt(struct gpu *g, double *rel)
{
	const struct rg_problem *p = g->p;
	size_t db = rg_bytes(p, 'D'), count = (size_t)p->m * p->n;
	void *x = malloc(db), *y = malloc(db);
	double diff = 0, big = 0;
	int rc = 1;

	if (!x || !y) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		goto out;
	}
	if (rgg_launch_mmagen(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, x, g->sets[0].d, db) ||
	    launch_lt(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, y, g->sets[0].d, db)) {
		rgg_rt_fail("compare with cuBLASLt");
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		double a = rg_value(p->out, x, i), b = rg_value(p->out, y, i);
		double e = fabs(a - b);
		if (!(e <= diff))
			diff = e;       /* NaN sticks */
		if (fabs(b) > big)
			big = fabs(b);
	}
	*rel = big > 0 ? diff / big : diff;
	rc = 0;
out:
	free(x);
	free(y);
	return rc;
}

/* TFLOP/s, or TOP/s for integer inputs */
static void print_timing(const char *who, const struct rg_problem *p, const struct timing *t)
{
	double flop = 2.0 * p->m * p->n * p->k;
	printf("%-9s %8.1f %s  (median %.4f ms, min %.4f, max %.4f)%s\n", who,
	       flop / (t->median * 1e-3) / 1e12, rg_class_of(p->a) == RG_INT ? "TOP/s" : "TFLOP/s",
	       t->median, t->min, t->max,
	       t->gaps ? "  [the host queued slower than the GPU ran: gaps may count]" : "");
}

/* The memset that keeps the GPU busy while the host queues `reps`
 * launches (64 MiB a launch, 512 MiB to 4 GiB); *blocker 0 when there is
 * no room (timed without it: gaps then show).  Frees the one before. */
static void blocker_alloc(struct gpu *g, unsigned reps, uint64_t *blocker, uint64_t *blocker_bytes)
{
	mmart_free(g->ctx, *blocker);
	*blocker = 0;
	*blocker_bytes = (uint64_t)reps * (64ull << 20);
	if (*blocker_bytes < (512ull << 20))
		*blocker_bytes = 512ull << 20;
	if (*blocker_bytes > (4ull << 30))
		*blocker_bytes = 4ull << 30;
	if (mmart_alloc(g->ctx, *blocker_bytes, blocker))
		*blocker = 0;
}

/* Enough operand sets that, between two uses of one, the others' A and B
 * pass through the whole L2 (every set holds the same random values: L2
 * caches addresses, not values), and the blocker that keeps the queue
 * full (rgg_time_launches).  0, or 1 (said why; rgg_free_sets cleans up). */
int rgg_timing_sets(struct gpu *g, const struct rg_data *d, unsigned reps, uint64_t *blocker,
		    uint64_t *blocker_bytes)
{
	uint64_t ab = rg_bytes(g->p, 'A') + rg_bytes(g->p, 'B');
	unsigned sets = (unsigned)(1 + (L2_BYTES + ab - 1) / ab);
	if (sets < 2)
		sets = 2;
	if (sets > MAX_SETS)
		sets = MAX_SETS;
	if (!(g->sets = rgg_alloc_sets(sets))) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	for (g->nsets = 0; g->nsets < sets; g->nsets++)
		if (rgg_upload_set(g, &g->sets[g->nsets], d, 0)) {
			g->nsets++;
			return 1;
		}
	*blocker = 0;
	blocker_alloc(g, reps, blocker, blocker_bytes);
	return 0;
}

/* --bench without --reps: launches enough for a burst of about
 * AUTO_BURST_MS, from the median of a short burst of mmagen's own
 * (RUN_REPS to AUTO_REPS_MAX); 0 on a failed launch. */
static unsigned auto_reps(struct gpu *g, uint64_t blocker, uint64_t blocker_bytes)
{
	float ms[10];
	int gaps = 0;
	if (burst(g, rgg_launch_mmagen, 10, blocker, blocker_bytes, ms, &gaps, NULL))
		return 0;
	double t = median_ms(ms, 10);
	if (!(t > 0))         /* a timer that read nothing: the fixed count */
		return RUN_REPS;
	double n = ceil(AUTO_BURST_MS / t);
	return n > AUTO_REPS_MAX ? AUTO_REPS_MAX : n < RUN_REPS ? RUN_REPS : (unsigned)n;
}

/* The clocks line: what each side ran at (lt NULL: mmagen alone), or
 * why that is not known.  Its first word is "clocks": scripts that read
 * the figures take lines by their first word (tests/bench/gemm.sh). */
void rgg_print_clocks(const struct gpu *g, const struct nvml_stats *m,
		      const struct nvml_stats *lt)
{
	if (!g->nvml) {
		printf("clocks    not sampled: %s\n", g->nvml_why);
		return;
	}
	/* no watts: NVML's power is its last second's average on Ampere and
	 * newer, and a 0.25 s burst read 376 W on the H200 where nvidia-smi
	 * over 2.4 s of the same kernel read 605 */
	printf("clocks    mmagen %.0f MHz", m->mhz);
	if (lt)
		printf(", cuBLASLt %.0f MHz", lt->mhz);
	printf("  (NVML: median SM clock while %s timed launches ran; ",
	       lt ? "each side's" : "its");
	if (lt)
		printf("%u and %u samples", m->samples, lt->samples);
	else
		printf("%u sample%s", m->samples, m->samples == 1 ? "" : "s");
	char flag[160];
	double shortest = lt && lt->seconds < m->seconds ? lt->seconds : m->seconds;
	printf("%s)\n", clocks_flag(shortest, lt ? "bursts" : "a burst", flag, sizeof flag));
}

int rgg_bench(struct gpu *g, const struct rg_data *d, const struct run_gemm_opts *o,
	      const char *what)
{
	const struct rg_problem *p = g->p;
	uint64_t ab = rg_bytes(p, 'A') + rg_bytes(p, 'B');
	uint64_t blocker_bytes = 0, blocker = 0;
	struct timing tm, tl;
	struct nvml_stats c[4] = { { 0 } };
	char why[512] = "";
	unsigned reps = o->reps;
	float *ms = calloc(reps, sizeof *ms);   /* one burst's times */
	int rc = 1, have_lt;

	if (!ms) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	if (rgg_timing_sets(g, d, reps, &blocker, &blocker_bytes))
		goto out;
	unsigned sets = g->nsets;
	have_lt = lt_setup(g, why, sizeof why);
	if (have_lt < 0)
		goto out;
	char how[96] = "";
	if (o->reps_auto) {
		if (!(reps = auto_reps(g, blocker, blocker_bytes)))
			goto out;
		float *more = realloc(ms, reps * sizeof *ms);
		if (!more) {
			fprintf(stderr, "mmagen: run gemm: out of memory\n");
			goto out;
		}
		ms = more;
		blocker_alloc(g, reps, &blocker, &blocker_bytes);
		snprintf(how, sizeof how, " (mmagen's about %.1f s, sized by a first burst of 10; --reps sets it)",
			 AUTO_BURST_MS / 1000);
	}
	g->nvml = nvml_open_ctx(g->ctx, g->nvml_why, sizeof g->nvml_why);
	if (have_lt > 0) {
		printf("bench gemm %s: %u buffer sets (%.0f MiB of A and B; L2 %llu MiB), %d warm-up launches, median of %u%s\n",
		       what, sets, (double)(ab * sets) / (1 << 20), L2_BYTES >> 20, WARMUP, reps, how);
		if (rgg_time_launches(g, rgg_launch_mmagen, reps, blocker, blocker_bytes, &tm, &c[0]))
			goto out;
		print_timing("mmagen", p, &tm);
		rgg_print_clocks(g, &c[0], NULL);
		printf("cuBLASLt: not measured: %s; mmagen alone\n", why);
		rc = 0;
		goto out;
	}
	/* each in bursts of its own launches (a kernel that follows the other
	 * library's ran differently: bf16 1024^3 on the H200, launch by launch
	 * in turn, mmagen 0.5 us slower and cuBLASLt 0.4 us faster than after
	 * themselves), two bursts each in the order mmagen, cuBLASLt,
	 * cuBLASLt, mmagen, each side's figure the mean of its two bursts'
	 * medians: a clock that drifts with power and temperature during the
	 * run then favours neither */
	printf("bench gemm %s: %u buffer sets (%.0f MiB of A and B; L2 %llu MiB), %d warm-up launches, bursts of %u%s in the order mmagen, cuBLASLt, cuBLASLt, mmagen, the mean of each one's two medians\n",
	       what, sets, (double)(ab * sets) / (1 << 20), L2_BYTES >> 20, WARMUP, reps, how);
	struct timing b[4];
	int gaps[4] = { 0, 0, 0, 0 };
	launch_fn *order[4] = { rgg_launch_mmagen, launch_lt, launch_lt, rgg_launch_mmagen };
	for (int i = 0; i < 4; i++) {
		if (burst(g, order[i], reps, blocker, blocker_bytes, ms, &gaps[i], &c[i]))
			goto out;
		summarize(ms, reps, gaps[i], &b[i]);
	}
	tm = two_bursts(&b[0], &b[3]);
	tl = two_bursts(&b[1], &b[2]);
	/* the clocks alike: the mean of each side's two bursts' medians */
	struct nvml_stats cm = nvml_combine(&c[0], &c[3]), cl = nvml_combine(&c[1], &c[2]);
	double rel;
	if (compare_with_lt(g, &rel))
		goto out;
	print_timing("mmagen", p, &tm);
	print_timing("cuBLASLt", p, &tl);
	printf("ratio     %8.3f  (mmagen / cuBLASLt; %s)\n", tl.median / tm.median, g->lt.path);
	rgg_print_clocks(g, &cm, &cl);
	/* the same problem?  Both round to D's type: a few of its ulps of
	 * max |D| apart at most; a transposed or mis-described operand gives
	 * differences of the order of D itself */
	if (!(rel <= 1.0 / 16)) {
		printf("FAIL bench gemm %s: mmagen's D and cuBLASLt's differ by %.3g of max |D|; the two did not compute the same thing\n",
		       what, rel);
		goto out;
	}
	printf("D agrees with cuBLASLt's to %.2g of max |D|\n", rel);
	double hm, hl;
	if (host_us(g, rgg_launch_mmagen, blocker, blocker_bytes, &hm) ||
	    host_us(g, launch_lt, blocker, blocker_bytes, &hl))
		goto out;
	printf("host      %8.2f us per launch (mmagen_gemm_kernel_launch), cuBLASLt %.2f us (cublasLtMatmul); "
	       "median of %d rounds of %d launches queued behind a busy GPU\n", hm, hl, HOST_ROUNDS,
	       HOST_LAUNCHES);
	rc = 0;
out:
	nvml_close(g->nvml);
	g->nvml = NULL;
	mmart_free(g->ctx, blocker);
	rgg_free_sets(g);
	free(ms);
	return rc;
}

