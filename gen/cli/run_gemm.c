/* run_gemm.c - `mmagen run gemm`: generate the GEMM, JIT-load it through
 * libmmart, launch it on random (or loaded) operands, and check D against
 * the exact CPU reference (run_gemm_host.c) or time it beside cuBLASLt.
 *
 * Order: everything the command line or the files can get wrong is found
 * before the driver is touched (request, problem rules, --load's
 * description); then the GPU. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"
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

#define GUARD 1024u                    /* poisoned bytes on each side of D */
#define L2_BYTES (50ull << 20)         /* the H200's L2: --bench rotates past it */
#define MAX_SETS 256u
#define WARMUP 5
#define LT_WORKSPACE (32ull << 20)     /* cuBLAS's advice for Hopper */
#define POISON 0xFFu                   /* NaN in every float type, -1 in s32 */
#define RUN_REPS 30u                   /* timed launches without --reps */
/* --bench without --reps: bursts of about this long (the clocks line
 * flags bursts under 0.2 s: the H200 ran and read above its sustained
 * clock in such), RUN_REPS to AUTO_REPS_MAX launches */
#define AUTO_BURST_MS 300.0
#define AUTO_REPS_MAX 2000u

void run_gemm_opts_init(struct run_gemm_opts *o)
{
	memset(o, 0, sizeof *o);
	o->alpha = 1;
	o->d_scale = 1;
	o->reps = 0;          /* not given: RUN_REPS for --tune, auto_reps for --bench */
}

static int rt_fail(const char *what)
{
	fprintf(stderr, "mmagen: run gemm: %s: %s\n", what, mmart_last_error());
	return 1;
}

static int rg_said(void)
{
	fprintf(stderr, "mmagen: run gemm: %s\n", rg_error());
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The SM count for the persistent grid.  libmmart does not report it
 * yet, so it is asked of the driver libmmart loaded, about the context
 * libmmart made current.  0 when that fails: the launcher then launches one
 * cluster per work unit, which the kernel handles just as well. */
static unsigned device_sms(mmart_ctx *ctx)
{
	int sms = 0;
	return mmart_device_sms(ctx, &sms) || sms <= 0 ? 0 : (unsigned)sms;
}

/* ---- one set of device operands and its launch ---- */
struct dev_set {
	uint64_t a, b, c, dbuf;       /* dbuf: GUARD + D + GUARD (check) or D */
	uint64_t d;                   /* D itself */
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

static struct dev_set *alloc_sets(unsigned n)
{
	return calloc(n, sizeof(struct dev_set));
}

/* The problem and one operand set as the launcher takes them: dense
 * operands (leading dimensions left 0), the layout's majors from the
 * kernel's ABI. */
static mmart_gemm_args args_of(const struct gpu *g, const struct dev_set *s)
{
	const struct rg_problem *p = g->p;
	mmart_gemm_args a;
	mmart_gemm_args_init(&a);
	a.m = p->m;
	a.n = p->n;
	a.k = p->k;
	a.a = s->a;
	a.b = s->b;
	a.c = s->c;
	a.d = s->d;
	a.alpha = p->alpha;
	a.beta = p->beta;
	a.d_scale = p->d_scale;
	a.splits = g->splits;
	return a;
}

static int launch_mmagen(struct gpu *g, const struct dev_set *s)
{
	mmart_gemm_args a = args_of(g, s);
	return mmart_gemm_kernel_launch(g->kern, &a, mmart_stream_handle(g->stream)) ?
	       rt_fail("launch") : 0;
}

/* rows x cols elements of eb bytes, transposed into a new buffer (the
 * MN-major copy of a K-major host operand); NULL when out of memory. */
static void *transposed(const void *src, uint32_t rows, uint32_t cols, unsigned eb)
{
	uint8_t *t = malloc((size_t)rows * cols * eb);
	const uint8_t *in = src;
	if (!t)
		return NULL;
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			memcpy(t + (c * rows + r) * eb, in + (r * cols + c) * eb, eb);
	return t;
}

/* Operand A or B to the device in the layout of the kernel. */
static int upload_operand(struct gpu *g, uint64_t dst, const void *host, char which)
{
	const struct rg_problem *p = g->p;
	int mn = which == 'A' ? p->a_mn : p->b_mn;
	mmagen_type t = which == 'A' ? p->a : p->b;
	void *tmp = NULL;
	int rc;
	assert(!mn || rg_elem_bits(t) >= 8);   /* 4-bit: K-major only (rg_check_problem) */
	if (mn && !(tmp = transposed(host, which == 'A' ? p->m : p->n, p->k, rg_elem_bytes(t)))) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	rc = mmart_copy_to_device(g->ctx, dst, tmp ? tmp : host, rg_bytes(p, which)) ? rt_fail("device memory") : 0;
	free(tmp);
	return rc;
}

/* C's device copy: the values when beta != 0; with beta = 0 the poison,
 * so a kernel that reads C anyway turns D into NaN. */
static int upload_set(struct gpu *g, struct dev_set *s, const struct rg_data *d, size_t guard)
{
	const struct rg_problem *p = g->p;
	size_t cb = rg_bytes(p, 'C');

	if (mmart_alloc(g->ctx, rg_bytes(p, 'A'), &s->a) ||
	    mmart_alloc(g->ctx, rg_bytes(p, 'B'), &s->b) ||
	    mmart_alloc(g->ctx, cb, &s->c) ||
	    mmart_alloc(g->ctx, cb + 2 * guard, &s->dbuf) ||
	    (p->beta != 0 ? mmart_copy_to_device(g->ctx, s->c, d->c, cb)
			  : mmart_memset8(g->ctx, s->c, POISON, cb)) ||
	    mmart_memset8(g->ctx, s->dbuf, POISON, cb + 2 * guard))
		return rt_fail("device memory");
	s->d = s->dbuf + guard;
	/* the epilogue stores pairs: D and C aligned to two elements */
	if (s->d % (2 * rg_elem_bytes(p->out)) || s->c % (2 * rg_elem_bytes(p->out))) {
		fprintf(stderr, "mmagen: run gemm: D or C at 0x%llx / 0x%llx is not aligned to 2 elements\n",
			(unsigned long long)s->d, (unsigned long long)s->c);
		return 1;
	}
	return upload_operand(g, s->a, d->a, 'A') || upload_operand(g, s->b, d->b, 'B');
}

static void free_sets(struct gpu *g)
{
	for (unsigned i = 0; g->sets && i < g->nsets; i++) {
		mmart_free(g->ctx, g->sets[i].a);
		mmart_free(g->ctx, g->sets[i].b);
		mmart_free(g->ctx, g->sets[i].c);
		mmart_free(g->ctx, g->sets[i].dbuf);
	}
	free(g->sets);
	g->sets = NULL;
	g->nsets = 0;
}

/* ---- split-K (the wgmma path) ---- */

/* The split-K kernel's S.  Without --split-k (split_k 0) the runner asks
 * mmagen_gemm_split_for whether this problem wants one and, if so,
 * generates the kernel for that S; with --split-k auto the kernel takes
 * the S it gives (passed to the launcher as args.splits); with --split-k
 * S, S.  The workspace and counters are the kernel's (libmmart's
 * launcher); the check's second launch shows counters a launch did not
 * leave zero. */
static int setup_split(struct gpu *g, mmagen_gemm_request *r)
{
	const struct rg_problem *p = g->p;
	unsigned sms = device_sms(g->ctx);

	if (g->info.path != MMAGEN_GEMM_PATH_WGMMA)
		return 0;
	if (r->split_k == 0) {
		mmagen_gemm_request a = *r;
		mmagen_gemm_info ai = { .size = sizeof ai };
		a.split_k = MMAGEN_GEMM_SPLIT_AUTO;
		if (mmagen_gemm_info_of(&a, &ai))
			return fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error()), 1;
		unsigned s = mmagen_gemm_split_for(&ai, p->m, p->n, p->k, sms);
		if (s <= 1)
			return 0;
		r->split_k = s;
		if (mmagen_gemm_info_of(r, &g->info))
			return fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error()), 1;
	}
	if (g->info.split_k == 1)
		return 0;
	g->split = 1;
	g->splits = g->info.split_k ? g->info.split_k
				    : mmagen_gemm_split_for(&g->info, p->m, p->n, p->k, sms);
	return 0;
}

/* ---- the check: two launches with guards around D ----
 * The first fills D (and, for split-K kernels, leaves the counters as it
 * finds them, or not); D is poisoned again and the second launch is the
 * one checked: counters a launch left non-zero show as a wrong D. */
static int run_once(struct gpu *g, struct rg_data *d, size_t *guard_bad, int *d_tma)
{
	const struct rg_problem *p = g->p;
	size_t db = rg_bytes(p, 'D');
	uint8_t *back = malloc(db + 2 * GUARD);
	int rc;

	if (!back) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	if (!(g->sets = alloc_sets(1))) {
		free(back);
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	g->nsets = 1;
	if ((rc = upload_set(g, &g->sets[0], d, GUARD)) || (rc = launch_mmagen(g, &g->sets[0])))
		goto out;
	/* D through its tensor map: the launcher's rule (rows 16-byte
	 * aligned, N * size a multiple of 16) on the dense D */
	*d_tma = g->info.box_d[0] && (uint64_t)p->n * rg_elem_bytes(p->out) % 16 == 0 &&
		 g->sets[0].d % 16 == 0;
	if (mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_memset8(g->ctx, g->sets[0].dbuf, POISON, db + 2 * GUARD) ||
	    launch_mmagen(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, back, g->sets[0].dbuf, db + 2 * GUARD)) {
		rc = rt_fail("run");
		goto out;
	}
	*guard_bad = 0;
	for (size_t i = 0; i < GUARD; i++)
		*guard_bad += (back[i] != POISON) + (back[GUARD + db + i] != POISON);
	memcpy(d->d, back + GUARD, db);
out:
	free_sets(g);
	free(back);
	return rc;
}

static void describe_problem(const mmagen_gemm_request *r, const struct rg_problem *p,
			     char *buf, size_t n)
{
	static const char *const layouts[] = { "tn", "nn", "nt", "tt" };
	char scale[48] = "";
	if (r->out == MMAGEN_E4M3 || r->out == MMAGEN_E5M2)
		snprintf(scale, sizeof scale, " d_scale %.9g", (double)p->d_scale);
	snprintf(buf, n, "%s x %s -> %s%s%s%s, M %u N %u K %u, alpha %.9g beta %.9g%s",
		 mmagen_type_name(r->a), mmagen_type_name(r->b), mmagen_type_name(r->out),
		 r->layout != MMAGEN_GEMM_TN && r->layout < 4 ? " layout " : "",
		 r->layout != MMAGEN_GEMM_TN && r->layout < 4 ? layouts[r->layout] : "",
		 p->acc_f16 ? " acc f16" : "", p->m, p->n, p->k, (double)p->alpha, (double)p->beta,
		 scale);
}

static int report_check(const char *what, const struct rg_data *d, size_t guard_bad, int d_tma)
{
	struct rg_verdict v;
	const struct rg_problem *p = &d->p;

	if (rg_verify(d, &v))
		return rg_said();
	int every = (uint64_t)v.checked == (uint64_t)p->m * p->n;
	if (v.bad || guard_bad) {
		printf("FAIL run gemm %s: ", what);
		if (v.bad)
			printf("%zu of %zu checked elements wrong; first: D[%u][%u] = %.9g, reference %.9g, tolerance %.3g%s",
			       v.bad, v.checked, v.bi, v.bj, v.bad_got, v.bad_ref, v.bad_tol,
			       guard_bad ? "; " : "");
		if (guard_bad)
			printf("the kernel wrote %zu of the %u bytes just before and after D", guard_bad,
			       2 * GUARD);
		printf(" (seed %llu)\n", (unsigned long long)p->seed);
		return 1;
	}
	printf("PASS run gemm %s: %zu elements checked (%s), worst error %.3g (%.2f of its tolerance) at D[%u][%u]; "
	       "the %u guard bytes around D untouched; D stored %s (seed %llu)\n",
	       what, v.checked, every ? "every one" : "a sample and the corners", v.worst_err,
	       v.worst_ratio, v.wi, v.wj, 2 * GUARD,
	       d_tma ? "through its tensor map (TMA)" : "directly", (unsigned long long)p->seed);
	return 0;
}

/* ---- --bench ---- */
typedef int launch_fn(struct gpu *g, const struct dev_set *s);

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

struct timing {
	float median, min, max;
	int gaps;                    /* the host fell behind the GPU */
};

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
	rc = rt_fail("timing");
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
			return rt_fail("host timing");
		double t0 = now_ms();
		for (unsigned i = 0; i < HOST_LAUNCHES; i++)
			if (launch(g, &g->sets[i % g->nsets]))
				return 1;
		t[r] = (float)((now_ms() - t0) * 1000.0 / HOST_LAUNCHES);
	}
	if (mmart_stream_sync(g->ctx, g->stream))
		return rt_fail("host timing");
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
static int time_launches(struct gpu *g, launch_fn *launch, unsigned reps,
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
		rt_fail("cuBLASLt workspace");
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	if (pref)
		lt->cublasLtMatmulPreferenceDestroy(pref);
	return rc;
}

static void lt_teardown(struct gpu *g)
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
	if (launch_mmagen(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, x, g->sets[0].d, db) ||
	    launch_lt(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, y, g->sets[0].d, db)) {
		rt_fail("compare with cuBLASLt");
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
 * full (time_launches).  0, or 1 (said why; free_sets cleans up). */
static int timing_sets(struct gpu *g, const struct rg_data *d, unsigned reps, uint64_t *blocker,
		       uint64_t *blocker_bytes)
{
	uint64_t ab = rg_bytes(g->p, 'A') + rg_bytes(g->p, 'B');
	unsigned sets = (unsigned)(1 + (L2_BYTES + ab - 1) / ab);
	if (sets < 2)
		sets = 2;
	if (sets > MAX_SETS)
		sets = MAX_SETS;
	if (!(g->sets = alloc_sets(sets))) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	for (g->nsets = 0; g->nsets < sets; g->nsets++)
		if (upload_set(g, &g->sets[g->nsets], d, 0)) {
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
	if (burst(g, launch_mmagen, 10, blocker, blocker_bytes, ms, &gaps, NULL))
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
static void print_clocks(const struct gpu *g, const struct nvml_stats *m,
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

static int bench(struct gpu *g, const struct rg_data *d, const struct run_gemm_opts *o,
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
	if (timing_sets(g, d, reps, &blocker, &blocker_bytes))
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
		if (time_launches(g, launch_mmagen, reps, blocker, blocker_bytes, &tm, &c[0]))
			goto out;
		print_timing("mmagen", p, &tm);
		print_clocks(g, &c[0], NULL);
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
	launch_fn *order[4] = { launch_mmagen, launch_lt, launch_lt, launch_mmagen };
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
	print_clocks(g, &cm, &cl);
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
	if (host_us(g, launch_mmagen, blocker, blocker_bytes, &hm) ||
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
	free_sets(g);
	free(ms);
	return rc;
}

/* ---- the command ---- */
static int open_gpu(const struct run_opts *ro, mmart_ctx **ctx)
{
	mmart_status s = mmart_open(ro->device, ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		fprintf(stderr, "mmagen: %s\n", mmart_last_error());
		return 77;
	}
	return s ? rt_fail("open") : 0;
}

/* The kernel of r loaded into g (g->kern, through libmmart's GEMM
 * launcher: the PTX and its ABI text); hit: where it came from. */
static int load_kernel(struct gpu *g, const mmagen_gemm_request *r, int *hit)
{
	char *ptx = NULL, *abi = NULL;
	mmart_module *mod;
	int rc = 1;

	if (mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &ptx, NULL) ||
	    mmagen_gemm_emit(r, MMAGEN_FMT_ABI, &abi, NULL)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		mmagen_free(ptx);
		return 1;
	}
	mmart_gemm_kernel_free(g->kern);
	g->kern = NULL;
	*hit = MMART_CACHE_MISS;
	/* loaded first on its own for where it came from; the launcher's
	 * load finds it loaded */
	if (mmart_load_ptx(g->ctx, ptx, &mod, hit) ||
	    mmart_gemm_kernel_load(g->ctx, ptx, abi, &g->kern))
		rt_fail("load");
	else
		rc = 0;
	mmagen_free(ptx);
	mmagen_free(abi);
	return rc;
}

static int prepare_kernel(struct gpu *g, const mmagen_gemm_request *r)
{
	int hit;
	if (load_kernel(g, r, &hit))
		return 1;
	cache_note(hit);
	if (!g->stream && mmart_stream_create(g->ctx, &g->stream))
		return rt_fail("load");
	return 0;
}

/* The launch of the problem as the launcher makes it (for the messages
 * and the cuBLASLt side's stream). */
static void set_config(struct gpu *g)
{
	struct dev_set none = { 0 };
	mmart_gemm_args a = args_of(g, &none);
	g->cfg = (mmart_launch_config){
		.grid = { 1, 1, 1 },
		.block = { g->info.block[0], g->info.block[1], g->info.block[2] },
		.cluster = { g->info.cluster[0], g->info.cluster[1], g->info.cluster[2] },
		.smem_bytes = g->info.smem,
		.stream = g->stream,
	};
	a.a = a.b = a.c = a.d = 256;    /* aligned placeholders: the grid only */
	mmart_gemm_kernel_grid(g->kern, &a, g->cfg.grid, NULL);
}

/* ---- --tune and tuned choices ---- */
static void choice_text(const mmagen_gemm_info *i, unsigned group, char *buf, size_t n)
{
	snprintf(buf, n, "--tile %ux%u --stages %u --cluster %u --group %u%s", i->tile_m, i->tile_n,
		 i->stages, i->cluster[0], group,
		 i->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? " --schedule pingpong" : "");
}

static void key_text(const struct rg_tune_key *k, char *buf, size_t n)
{
	snprintf(buf, n, "%s, %s x %s -> %s, shape class 2^%u x 2^%u x 2^%u", k->gpu,
		 mmagen_type_name(k->a), mmagen_type_name(k->b), mmagen_type_name(k->out), k->lm,
		 k->ln, k->lk);
}

static int gpu_key(struct gpu *g, const mmagen_gemm_request *r, struct rg_tune_key *key)
{
	char name[96] = "";
	int major, minor;
	if (mmart_device_info(g->ctx, &major, &minor, name, sizeof name))
		return rt_fail("device");
	rg_tune_key_of(key, name, r, g->p->m, g->p->n, g->p->k);
	return 0;
}

/* r with choice c, checked: 0 (and *info), or 1 when the generator
 * refuses it (FP8's N 192 with too many stages, ...). */
static int with_choice(struct gpu *g, const mmagen_gemm_request *r, const struct rg_tune_choice *c,
		       mmagen_gemm_request *out, mmagen_gemm_info *info)
{
	*out = *r;
	out->tile_m = c->tile_m;
	/* a choice without tile M (a record from before tile M was kept, or
	 * a large-M candidate): the chooser's for this M, since a tuned
	 * choice stops the chooser (else a tuned small M ran 128-row tiles) */
	unsigned sms = device_sms(g->ctx);
	if (!out->tile_m && sms) {
		mmagen_gemm_request t = *out;
		t.tile_n = c->tile_n;
		t.cluster = c->cluster;
		t.split_k = 1;
		if (!mmagen_gemm_choose(&t, g->p->m, g->p->n, g->p->k, sms))
			out->tile_m = t.tile_m;
	}
	out->tile_n = c->tile_n;
	out->cluster = c->cluster;
	out->group = c->group;
	out->schedule = c->schedule;
	out->split_k = c->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? 1 : out->split_k;
	out->stages = 0;
	if (c->stages == RG_STAGES_FEWER) {
		if (mmagen_gemm_info_of(out, info) || info->stages <= 2)
			return 1;
		out->stages = info->stages - 1;
	} else {
		out->stages = c->stages;
	}
	return mmagen_gemm_info_of(out, info) ? 1 : 0;
}

/* The request had no tile, stages, cluster or group of its own and runs
 * on the wgmma path: a remembered choice for its key replaces the
 * generator's defaults (said on stderr). */
static int apply_tuned(struct gpu *g, mmagen_gemm_request *r)
{
	struct rg_tune_key key;
	struct rg_tune_choice c;
	mmagen_gemm_request rr;
	mmagen_gemm_info info = { .size = sizeof info };
	char path[4200], note[512], kt[256], ct[128];

	if (r->tile_n || r->tile_m || r->stages || r->cluster || r->group || r->schedule ||
	    g->info.path != MMAGEN_GEMM_PATH_WGMMA || rg_tune_path(path, sizeof path))
		return 0;
	if (gpu_key(g, r, &key))
		return 1;
	int found = rg_tune_lookup(path, &key, &c, note, sizeof note);
	if (note[0])
		fprintf(stderr, "mmagen: run gemm: %s\n", note);
	if (!found)
		return 0;
	key_text(&key, kt, sizeof kt);
	if (with_choice(g, r, &c, &rr, &info)) {
		fprintf(stderr, "mmagen: run gemm: the tuned choice for %s is not one this generator "
			"takes (%s); the defaults are used\n", kt, mmagen_last_error());
		return 0;
	}
	*r = rr;
	g->info = info;
	choice_text(&info, rr.group, ct, sizeof ct);
	fprintf(stderr, "mmagen: run gemm: tuned choice for %s: %s (%.1f when tuned; give any of "
		"--tile, --stages, --cluster, --group, --schedule to choose yourself)\n", kt, ct, c.tflops);
	return 0;
}

/* Neither the request nor a tuned choice fixed the tile N, cluster or
 * split-K: the shape's choice (mmagen_gemm_choose), said on stderr. */
static int apply_chosen(struct gpu *g, mmagen_gemm_request *r)
{
	const struct rg_problem *p = g->p;
	unsigned sms = device_sms(g->ctx);
	if ((g->info.path != MMAGEN_GEMM_PATH_WGMMA && g->info.path != MMAGEN_GEMM_PATH_MMA_SYNC) ||
	    r->tile_n || r->cluster || r->split_k || !sms)
		return 0;
	mmagen_gemm_request c = *r;
	mmagen_gemm_info info = { .size = sizeof info };
	if (mmagen_gemm_choose(&c, p->m, p->n, p->k, sms) || mmagen_gemm_info_of(&c, &info))
		return fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error()), 1;
	unsigned own_stages = r->stages, own_schedule = r->schedule;
	*r = c;
	g->info = info;
	char stages[32] = "";
	if (c.stages && !own_stages)
		snprintf(stages, sizeof stages, " --stages %u", c.stages);
	fprintf(stderr, "mmagen: run gemm: chosen for %u x %u x %u on %u SMs: --tile %ux%u --cluster %u"
		" --split-k %u%s%s (give --tile, --cluster or --split-k to choose yourself)\n",
		p->m, p->n, p->k, sms, info.tile_m, info.tile_n, info.cluster[0],
		c.split_k ? c.split_k : 1, stages,
		info.schedule == MMAGEN_GEMM_SCHED_PINGPONG && !own_schedule ?
		" --schedule pingpong" : "");
	return 0;
}

/* What --tune cannot do, said before the driver is touched: 0 or 2. */
static int tune_usage(const mmagen_gemm_request *r, const mmagen_gemm_info *info)
{
	if (info->path != MMAGEN_GEMM_PATH_WGMMA) {
		fprintf(stderr, "mmagen: run gemm: --tune chooses among wgmma kernels (sm_90a); the mma.sync path has no choices to try yet; leave --tune out\n");
		return 2;
	}
	if (r->tile_n || r->tile_m || r->stages || r->cluster || r->group || r->schedule) {
		fprintf(stderr, "mmagen: run gemm: --tune chooses --tile, --stages, --cluster, --group and --schedule itself; leave them out\n");
		return 2;
	}
	/* the candidates are launched before setup_split gives the split
	 * kernel its workspace, counters and splits parameters */
	if (r->split_k > 1) {
		fprintf(stderr, "mmagen: run gemm: --tune times kernels without split-K; leave --split-k out (run gemm then picks S for the chosen kernel)\n");
		return 2;
	}
	return 0;
}

/* --tune: every candidate that the generator takes is loaded, run once
 * and checked against the reference (a wrong kernel is never chosen),
 * then timed; the fastest becomes *r and is remembered. */
static int tune(struct gpu *g, mmagen_gemm_request *r, struct rg_data *d,
		const struct run_gemm_opts *o)
{
	struct rg_tune_choice cand[32], best = { 0 };
	mmagen_gemm_request best_r = *r;
	mmagen_gemm_info best_i = g->info;
	struct rg_tune_key key;
	char path[4200], note[512] = "", kt[256], ct[128], no_path[512] = "";
	double flop = 2.0 * d->p.m * d->p.n * d->p.k;
	int have_path, rc = 1;

	if (tune_usage(r, &g->info))
		return 2;
	if (gpu_key(g, r, &key))
		return 1;
	key_text(&key, kt, sizeof kt);
	have_path = !rg_tune_path(path, sizeof path);
	if (!have_path)
		snprintf(no_path, sizeof no_path, "%s", rg_error());
	if (!g->stream && mmart_stream_create(g->ctx, &g->stream))
		return rt_fail("stream");
	unsigned n = rg_tune_candidates(r, d->p.m, cand, 32), tried = 0;
	printf("tune gemm %s: %u choices, each checked then timed (median of %u)\n", kt, n, o->reps);
	for (unsigned i = 0; i < n; i++) {
		mmagen_gemm_request rr;
		mmagen_gemm_info info = { .size = sizeof info };
		size_t guard_bad = 0;
		int d_tma = 0, hit;
		struct rg_verdict v;
		struct timing t;
		uint64_t blocker = 0, blocker_bytes = 0;

		if (with_choice(g, r, &cand[i], &rr, &info))
			continue;            /* not a kernel the generator writes */
		g->info = info;
		choice_text(&info, rr.group, ct, sizeof ct);
		if (load_kernel(g, &rr, &hit))
			goto out;
		set_config(g);
		if (run_once(g, d, &guard_bad, &d_tma))
			goto out;
		if (rg_verify(d, &v)) {
			rg_said();
			goto out;
		}
		if (v.bad || guard_bad) {
			printf("  %-52s wrong results (%zu of %zu elements, %zu guard bytes): skipped\n", ct,
			       v.bad, v.checked, guard_bad);
			continue;
		}
		int bad = timing_sets(g, d, o->reps, &blocker, &blocker_bytes) ||
			  time_launches(g, launch_mmagen, o->reps, blocker, blocker_bytes, &t, NULL);
		mmart_free(g->ctx, blocker);
		free_sets(g);
		if (bad)
			goto out;
		cand[i].stages = info.stages;
		cand[i].tflops = flop / (t.median * 1e-3) / 1e12;
		printf("  %-52s %8.1f %s\n", ct, cand[i].tflops,
		       rg_class_of(d->p.a) == RG_INT ? "TOP/s" : "TFLOP/s");
		tried++;
		if (cand[i].tflops > best.tflops) {
			best = cand[i];
			best_r = rr;
			best_i = info;
		}
	}
	if (!tried) {
		printf("FAIL tune gemm %s: no choice ran correctly\n", kt);
		goto out;
	}
	*r = best_r;
	g->info = best_i;
	choice_text(&best_i, best_r.group, ct, sizeof ct);
	printf("best: %s, %.1f\n", ct, best.tflops);
	if (!have_path)
		printf("not remembered: %s\n", no_path);
	else if (rg_tune_record(path, &key, &best, note, sizeof note))
		printf("not remembered: %s\n", rg_error());
	else
		printf("remembered in %s%s%s\n", path, note[0] ? "; " : "", note);
	rc = 0;
out:
	return rc;
}

/* ---- --time-load: time to a runnable GEMM ---- */
static int gen_gemm(void *user, char **ptx)
{
	if (mmagen_gemm_emit(user, MMAGEN_FMT_PTX, ptx, NULL)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		return 1;
	}
	return 0;
}

/* Generation, a cold JIT (a fresh process with CUDA_CACHE_DISABLE=1 and
 * MMAGEN_CACHE=0 from its start), the driver's JIT cache, and a warm load
 * from mmagen's disk cache: bench_load_gen, as `bench load` times tiles. */
static int time_load(mmagen_gemm_request *r, int has_arch, const struct run_opts *ro)
{
	mmagen_gemm_info info = { .size = sizeof info };
	char what[256];
	int rc;
	if (!has_arch && (rc = device_target(ro, &r->target)))
		return rc;
	if (mmagen_gemm_info_of(r, &info)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		return 1;
	}
	snprintf(what, sizeof what, "gemm %s x %s -> %s on %s, tile %ux%ux%u, %u stages, cluster %u",
		 mmagen_type_name(r->a), mmagen_type_name(r->b), mmagen_type_name(r->out),
		 mmagen_target_name(r->target), info.tile_m, info.tile_n, info.tile_k, info.stages,
		 info.cluster[0]);
	return bench_load_gen(what, gen_gemm, r, ro);
}

/* ---- sm_120a: block-scaled mma.sync ----
 * run_gemm_sm120.c lays out the operands (the containers and scale rows
 * of the manifest) and holds the reference; here they go to an SM120 GPU.
 * struct gpu's operand sets carry A, B, C and D; the scales of set i are
 * sa[i], sb[i] of struct g120.  The kernel's parameters (manifest
 * "params"): a, b, sa, sb, d, c, m, n, k, lda, ldb, ldsa, ldsb, ldd, ldc,
 * alpha, beta; one CTA per tile. */
#define SETS120 64u
#define L2_120 (128ull << 20)   /* GB202's whole L2: --bench rotates past it */

struct g120 {
	struct gpu g;            /* first: launch120 gets &g back */
	const struct rg120_problem *p;
	uint64_t sa[SETS120], sb[SETS120];
};

/* A request that only sm_120a has: block-scaled, or FP6/FP4 operands. */
static int sm120_request(const mmagen_gemm_request *r)
{
	const mmagen_type fp[3] = { MMAGEN_E3M2, MMAGEN_E2M3, MMAGEN_E2M1 };
	int small = 0;
	for (int i = 0; i < 3; i++)
		small |= r->a == fp[i] || r->b == fp[i];
	return r->quant || small;      /* (s4/u4 are the mma.sync path's) */
}

/* Through libmmart's launcher, as every other path (the kernel's ABI:
 * a, b, sa, sb, d, c, m, n, k, lda, ldb, ldsa, ldsb, ldd, ldc, alpha,
 * beta; one CTA per tile). */
static int launch120(struct gpu *g, const struct dev_set *s)
{
	struct g120 *x = (struct g120 *)(void *)g;
	const struct rg120_problem *p = x->p;
	size_t i = (size_t)(s - g->sets);
	mmart_gemm_args a;
	mmart_gemm_args_init(&a);
	a.m = p->m;
	a.n = p->n;
	a.k = p->k;
	a.a = s->a;
	a.b = s->b;
	a.c = s->c;
	a.d = s->d;
	a.lda = p->lda;
	a.ldb = p->ldb;
	a.sa = x->sa[i];
	a.sb = x->sb[i];
	a.ldsa = p->ldsa;
	a.ldsb = p->ldsb;
	a.alpha = p->alpha;
	a.beta = p->beta;
	return mmart_gemm_kernel_launch(g->kern, &a, mmart_stream_handle(g->stream)) ?
	       rt_fail("launch") : 0;
}

/* Set i to the device: D between `guard` poisoned bytes on each side, C
 * the poison when beta is 0 (as upload_set). */
static int upload120(struct g120 *x, const struct rg120_data *d, unsigned i, size_t guard)
{
	struct gpu *g = &x->g;
	struct dev_set *s = &g->sets[i];
	const struct rg120_problem *p = x->p;
	size_t cb = rg120_bytes(p, RG120_C);

	if (mmart_alloc(g->ctx, rg120_bytes(p, RG120_A), &s->a) ||
	    mmart_alloc(g->ctx, rg120_bytes(p, RG120_B), &s->b) ||
	    mmart_alloc(g->ctx, cb, &s->c) || mmart_alloc(g->ctx, cb + 2 * guard, &s->dbuf) ||
	    mmart_copy_to_device(g->ctx, s->a, d->a, rg120_bytes(p, RG120_A)) ||
	    mmart_copy_to_device(g->ctx, s->b, d->b, rg120_bytes(p, RG120_B)) ||
	    (p->beta != 0 ? mmart_copy_to_device(g->ctx, s->c, d->c, cb)
			  : mmart_memset8(g->ctx, s->c, POISON, cb)) ||
	    mmart_memset8(g->ctx, s->dbuf, POISON, cb + 2 * guard))
		return rt_fail("device memory");
	s->d = s->dbuf + guard;
	if (p->block &&
	    (mmart_alloc(g->ctx, rg120_bytes(p, RG120_SA), &x->sa[i]) ||
	     mmart_alloc(g->ctx, rg120_bytes(p, RG120_SB), &x->sb[i]) ||
	     mmart_copy_to_device(g->ctx, x->sa[i], d->sa, rg120_bytes(p, RG120_SA)) ||
	     mmart_copy_to_device(g->ctx, x->sb[i], d->sb, rg120_bytes(p, RG120_SB))))
		return rt_fail("device memory");
	return 0;
}

static void free120(struct g120 *x)
{
	for (unsigned i = 0; i < x->g.nsets; i++) {
		mmart_free(x->g.ctx, x->sa[i]);
		mmart_free(x->g.ctx, x->sb[i]);
		x->sa[i] = x->sb[i] = 0;
	}
	free_sets(&x->g);
}

/* n sets, uploaded: 0 or 1 (said why; free120 cleans up). */
static int sets120(struct g120 *x, const struct rg120_data *d, unsigned n, size_t guard)
{
	if (!(x->g.sets = alloc_sets(n))) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	for (x->g.nsets = 0; x->g.nsets < n; x->g.nsets++)
		if (upload120(x, d, x->g.nsets, guard)) {
			x->g.nsets++;
			return 1;
		}
	return 0;
}

/* One launch, D back into d->d; the guard bytes that changed. */
static int run_once120(struct g120 *x, struct rg120_data *d, size_t *guard_bad)
{
	struct gpu *g = &x->g;
	size_t db = rg120_bytes(x->p, RG120_D);
	uint8_t *back = malloc(db + 2 * GUARD);
	int rc = 1;

	if (!back) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	if (sets120(x, d, 1, GUARD) || launch120(g, &g->sets[0]))
		goto out;
	if (mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, back, g->sets[0].dbuf, db + 2 * GUARD)) {
		rt_fail("run");
		goto out;
	}
	*guard_bad = 0;
	for (size_t i = 0; i < GUARD; i++)
		*guard_bad += (back[i] != POISON) + (back[GUARD + db + i] != POISON);
	memcpy(d->d, back + GUARD, db);
	rc = 0;
out:
	free120(x);
	free(back);
	return rc;
}

static int report120(const char *what, const struct rg120_data *d, size_t guard_bad)
{
	struct rg_verdict v;
	if (rg120_verify(d, &v))
		return rg_said();
	if (v.bad || guard_bad) {
		printf("FAIL run gemm %s: %zu of %zu checked elements wrong", what, v.bad, v.checked);
		if (v.bad)
			printf("; first: D[%u][%u] = %.9g, reference %.9g, tolerance %.3g", v.bi, v.bj,
			       v.bad_got, v.bad_ref, v.bad_tol);
		printf("; %zu of the %u guard bytes around D written (seed %llu)\n", guard_bad,
		       2 * GUARD, (unsigned long long)d->p.seed);
		return 1;
	}
	printf("PASS run gemm %s: %zu elements checked (%s), worst error %.3g (%.2f of its tolerance) at D[%u][%u]; "
	       "the %u guard bytes around D untouched (seed %llu)\n",
	       what, v.checked, (uint64_t)v.checked == (uint64_t)d->p.m * d->p.n ? "every one" :
	       "a sample and the corners", v.worst_err, v.worst_ratio, v.wi, v.wj, 2 * GUARD,
	       (unsigned long long)d->p.seed);
	return 0;
}

/* --bench: enough sets that the others' operands pass through the L2
 * between two uses of one, a blocker memset first (time_launches).
 * cuBLASLt's block-scaled matmul is not compared (said in one line). */
static int bench120(struct g120 *x, const struct rg120_data *d, unsigned reps, const char *what)
{
	const struct rg120_problem *p = x->p;
	uint64_t ab = rg120_bytes(p, RG120_A) + rg120_bytes(p, RG120_B) +
		      (p->block ? rg120_bytes(p, RG120_SA) + rg120_bytes(p, RG120_SB) : 0);
	uint64_t blocker = 0, blocker_bytes = (uint64_t)reps * (64ull << 20);
	unsigned n = (unsigned)(1 + (L2_120 + ab - 1) / ab);
	double flop = 2.0 * p->m * p->n * p->k;
	struct timing t;
	struct nvml_stats clk = { 0 };
	int rc = 1;

	n = n < 2 ? 2 : n > SETS120 ? SETS120 : n;
	blocker_bytes = blocker_bytes < (512ull << 20) ? 512ull << 20 :
			blocker_bytes > (4ull << 30) ? 4ull << 30 : blocker_bytes;
	if (sets120(x, d, n, 0))
		goto out;
	if (mmart_alloc(x->g.ctx, blocker_bytes, &blocker))
		blocker = 0;             /* no room: time without it (gaps then show) */
	printf("bench gemm %s: %u buffer sets, %d warm-up launches, median of %u\n", what, n,
	       WARMUP, reps);
	x->g.nvml = nvml_open_ctx(x->g.ctx, x->g.nvml_why, sizeof x->g.nvml_why);
	if (time_launches(&x->g, launch120, reps, blocker, blocker_bytes, &t, &clk))
		goto out;
	printf("%-9s %8.1f TFLOP/s  (median %.4f ms, min %.4f, max %.4f)%s\n", "mmagen",
	       flop / (t.median * 1e-3) / 1e12, t.median, t.min, t.max,
	       t.gaps ? "  [the host queued slower than the GPU ran: gaps may count]" : "");
	print_clocks(&x->g, &clk, NULL);
	printf("cuBLASLt: not measured: this runner has no cuBLASLt block-scaled comparison for sm_120a; mmagen alone\n");
	rc = 0;
out:
	nvml_close(x->g.nvml);
	x->g.nvml = NULL;
	mmart_free(x->g.ctx, blocker);
	free120(x);
	return rc;
}

/* The manifest's "instruction" (for --save's description): 0, or 1. */
static int instruction_of(const mmagen_gemm_request *r, char *buf, size_t n)
{
	static const char key[] = "\"instruction\": \"";
	char *json = NULL;
	const char *at, *end;
	if (mmagen_gemm_emit(r, MMAGEN_FMT_JSON, &json, NULL)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		return 1;
	}
	at = strstr(json, key);
	end = at ? strchr(at + sizeof key - 1, '"') : NULL;
	if (!end) {               /* gemm_json_sm120 writes it: a bug if not */
		mmagen_free(json);
		fprintf(stderr, "mmagen: run gemm: internal: the sm_120a manifest names no instruction\n");
		return 1;
	}
	snprintf(buf, n, "%.*s", (int)(end - at - (sizeof key - 1)), at + sizeof key - 1);
	mmagen_free(json);
	return 0;
}

/* sm_120a kernels need an SM120 GPU: on any other, one line and 77
 * (skipped), as without a GPU.  What the command line can get wrong is
 * said first, before the driver is touched. */
static int sm120_gpu(const mmagen_gemm_request *r, const struct run_gemm_opts *o,
		     const struct run_opts *ro)
{
	struct g120 x;
	struct gpu *g = &x.g;
	struct rg120_data d = { 0 };
	const char *t = mmagen_target_name(r->target);
	char what[320], ins[256];
	size_t guard_bad = 0;
	int major = 0, minor = 0, rc;

	memset(&x, 0, sizeof x);
	g->info.size = sizeof g->info;
	if (o->tune || o->load || o->time_load) {
		fprintf(stderr, "mmagen: run gemm: --tune, --load and --time-load are not offered for %s kernels yet; leave them out (--check, --bench and --save are)\n",
			t);
		return 2;
	}
	if (mmagen_gemm_info_of(r, &g->info)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		return 1;
	}
	if (rg120_problem_of(&d.p, r, &g->info, o->m, o->n, o->k, o->alpha, o->beta, ro->seed))
		return rg_said();
	x.p = &d.p;
	if ((rc = open_gpu(ro, &g->ctx)))
		return rc;
	rc = 1;
	if (mmart_device_info(g->ctx, &major, &minor, NULL, 0)) {
		rt_fail("device");
		goto out;
	}
	if (major != 12) {
		fprintf(stderr, "mmagen: run gemm: %s kernels need an SM120 GPU (compute capability 12.x), this one is sm_%d%d: skipped; `mmagen gemm --arch %s` writes the kernel, the unit and ptxas suites check it\n",
			t, major, minor, t);
		rc = 77;
		goto out;
	}
	if (rg120_alloc(&d)) {
		rg_said();
		goto out;
	}
	rg120_fill(&d);
	if (prepare_kernel(g, r))
		goto out;
	g->cfg = (mmart_launch_config){
		.grid = { (unsigned)(((uint64_t)d.p.m + g->info.tile_m - 1) / g->info.tile_m *
				   (((uint64_t)d.p.n + g->info.tile_n - 1) / g->info.tile_n)), 1, 1 },
		.block = { g->info.block[0], g->info.block[1], g->info.block[2] },
		.cluster = { 1, 1, 1 },
		.smem_bytes = g->info.smem,
		.stream = g->stream,
	};
	snprintf(what, sizeof what, "%s x %s -> %s%s%s on %s, M %u N %u K %u, alpha %.9g beta %.9g",
		 mmagen_type_name(r->a), mmagen_type_name(r->b), mmagen_type_name(r->out),
		 r->quant ? " --quant " : "", r->quant ? mmagen_qformat_name(r->quant) : "", t,
		 d.p.m, d.p.n, d.p.k, (double)d.p.alpha, (double)d.p.beta);
	if (run_once120(&x, &d, &guard_bad))
		goto out;
	rc = 0;
	if (o->check) {
		rc = report120(what, &d, guard_bad);
	} else if (guard_bad) {
		printf("FAIL run gemm %s: the kernel wrote %zu of the %u bytes just before and after D\n",
		       what, guard_bad, 2 * GUARD);
		rc = 1;
	}
	if (o->save) {
		if (instruction_of(r, ins, sizeof ins) || rg120_save(o->save, &d, ins)) {
			rc = rg_said();
		} else {
			printf("saved A, B, %sC, D and gemm.json in %s\n", d.p.block ? "SA, SB, " : "",
			       o->save);
		}
	}
	if (o->bench && !rc)
		rc = bench120(&x, &d, o->reps, what);
	if (!o->check && !o->bench && !rc)
		printf("ran gemm %s on a grid of %u x %u threads; --check compares D with the reference, --bench times it\n",
		       what, g->cfg.grid[0], g->cfg.block[0]);
out:
	mmart_gemm_kernel_free(g->kern);
	if (g->stream)
		mmart_stream_destroy(g->ctx, g->stream);
	mmart_close(g->ctx);
	rg120_data_free(&d);
	fflush(stdout);
	return rc;
}

int run_gemm(const mmagen_gemm_request *req, int has_arch,
	     const struct run_gemm_opts *o, const struct run_opts *ro)
{
	mmagen_gemm_request r = *req;
	struct gpu g = { .info = { .size = sizeof g.info } };
	struct rg_data d = { 0 };
	char what[256];
	int rc;
	struct run_gemm_opts given = *o;

	if (given.reps && !given.bench && !given.tune) {
		fprintf(stderr, "mmagen: run gemm: --reps counts the timed launches of --bench and --tune; give one of them, or leave --reps out\n");
		return 2;
	}
	if (!given.reps) {
		given.reps = RUN_REPS;
		given.reps_auto = given.bench;
	}
	o = &given;
	if (!o->time_load && (!o->m || !o->n || !o->k)) {
		fprintf(stderr, "mmagen: run gemm needs --m, --n and --k; e.g. --m 4096 --n 4096 --k 4096\n");
		return 2;
	}
	if (o->d_scale != 1 && r.out != MMAGEN_E4M3 && r.out != MMAGEN_E5M2) {
		fprintf(stderr, "mmagen: run gemm: --d-scale scales an FP8 D (--out e4m3 or e5m2); D here is %s: leave --d-scale out, or scale with --alpha\n",
			mmagen_type_name(r.out));
		return 2;
	}
	/* a bad --save is said before the run, not after it (D would be lost) */
	if (o->save && !o->time_load && rg_save_dir_check(o->save))
		return rg_said();
	/* without --arch: the request is checked for sm_90a, the target the
	 * generator has (sm_120a for block-scaled and FP6/FP4 requests, the
	 * only target with them; sm_80 for s4/u4, the mma.sync path's), then
	 * for the GPU's own once there is one */
	int four = rg_elem_bits(r.a) == 4 || rg_elem_bits(r.b) == 4;
	if (!has_arch && mmagen_target_parse(sm120_request(&r) ? "sm_120a" : four ? "sm_80" : "sm_90a",
					     &r.target))
		return fprintf(stderr, "mmagen: %s\n", mmagen_last_error()), 1;
	if (mmagen_gemm_info_of(&r, &g.info)) {
		fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
		return 1;
	}
	if (!strncmp(mmagen_target_name(r.target), "sm_12", 5))
		return sm120_gpu(&r, o, ro);
	/* the operands this runner lays out are the manifest's (4-bit A and
	 * B: elem_bytes 0, elem_bits 4, packed two a byte) */
	if (g.info.elem_bytes_a != rg_elem_bytes(r.a) || g.info.elem_bytes_b != rg_elem_bytes(r.b) ||
	    g.info.elem_bits_a != rg_elem_bits(r.a) || g.info.elem_bits_b != rg_elem_bits(r.b) ||
	    g.info.elem_bytes_d != rg_elem_bytes(r.out)) {
		fprintf(stderr, "mmagen: run gemm: the manifest has %u/%u-bit A/B and %u-byte D elements; this runner stores %s/%s/%s as %u/%u-bit and %u-byte\n",
			g.info.elem_bits_a, g.info.elem_bits_b, g.info.elem_bytes_d,
			mmagen_type_name(r.a), mmagen_type_name(r.b), mmagen_type_name(r.out),
			rg_elem_bits(r.a), rg_elem_bits(r.b), rg_elem_bytes(r.out));
		return 1;
	}
	if (o->time_load && (o->tune || o->check || o->bench || o->save || o->load)) {
		fprintf(stderr, "mmagen: run gemm: --time-load only times loading; leave out --tune, --check, --bench, --save and --load\n");
		return 2;
	}
	if (o->time_load)
		return time_load(&r, has_arch, ro);
	if (o->tune && tune_usage(&r, &g.info))
		return 2;
	d.p = (struct rg_problem){ .a = r.a, .b = r.b, .out = r.out, .m = o->m, .n = o->n, .k = o->k,
				   .alpha = o->alpha, .beta = o->beta, .seed = ro->seed,
				   .a_mn = r.layout == MMAGEN_GEMM_NN || r.layout == MMAGEN_GEMM_NT,
				   .b_mn = r.layout == MMAGEN_GEMM_NT || r.layout == MMAGEN_GEMM_TT,
				   .acc_f16 = r.acc == MMAGEN_F16, .promote_k = r.promote_k,
				   .d_scale = r.out == MMAGEN_E4M3 || r.out == MMAGEN_E5M2 ? o->d_scale : 1 };
	if (rg_check_problem(&d.p))
		return rg_said();
	if (o->load && rg_load(o->load, &d, "tn"))
		return rg_said();
	if (!has_arch) {
		if ((rc = device_target(ro, &r.target)))
			goto out;
		if (!strncmp(mmagen_target_name(r.target), "sm_12", 5)) {
			rc = sm120_gpu(&r, o, ro);
			goto out;
		}
		if (mmagen_gemm_info_of(&r, &g.info)) {
			fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
			rc = 1;
			goto out;
		}
	}
	if ((rc = open_gpu(ro, &g.ctx)))
		goto out;
	rc = 1;
	if (!o->load) {
		if (rg_alloc(&d)) {
			rg_said();
			goto out;
		}
		rg_fill_inputs(&d);
	}
	g.p = &d.p;
	if (o->tune ? (rc = tune(&g, &r, &d, o)) != 0 : (rc = apply_tuned(&g, &r)) != 0)
		goto out;
	if (!o->tune && (rc = apply_chosen(&g, &r)) != 0)
		goto out;
	rc = 1;
	if (setup_split(&g, &r) || prepare_kernel(&g, &r))
		goto out;
	set_config(&g);
	describe_problem(&r, &d.p, what, sizeof what);
	if (g.split) {
		snprintf(what + strlen(what), sizeof what - strlen(what), ", split-K %u%s", g.splits,
			 r.split_k == MMAGEN_GEMM_SPLIT_AUTO ? " (auto)" : "");
		/* past whole waves only the tail is split (the kernel's `whole`) */
		uint64_t cl = g.info.cluster[0] ? g.info.cluster[0] : 1;
		uint64_t t = ((uint64_t)d.p.m + g.info.tile_m - 1) / g.info.tile_m;
		t = (t + cl - 1) / cl * (((uint64_t)d.p.n + g.info.tile_n - 1) / g.info.tile_n);
		uint64_t gc = g.cfg.grid[0] / cl ? g.cfg.grid[0] / cl : 1;
		uint64_t kb = ((uint64_t)d.p.k + g.info.tile_k - 1) / g.info.tile_k;
		uint64_t tail = (t - t / gc * gc) * cl, waves = t / gc;
		if (g.splits > 1 && kb > 1 && t >= gc && tail)
			snprintf(what + strlen(what), sizeof what - strlen(what),
				 " of the %llu tail tiles past %llu whole wave%s",
				 (unsigned long long)tail, (unsigned long long)waves,
				 waves == 1 ? "" : "s");
		else if (g.splits > 1 && kb > 1 && t >= gc)
			snprintf(what + strlen(what), sizeof what - strlen(what),
				 " (no tail: %llu whole wave%s)", (unsigned long long)waves,
				 waves == 1 ? "" : "s");
	}
	else if (g.info.path == MMAGEN_GEMM_PATH_MMA_SYNC && g.info.split_k > 1)
		snprintf(what + strlen(what), sizeof what - strlen(what),
			 ", split-K %u (slots added in order)", g.info.split_k);

	size_t guard_bad = 0;
	int d_tma = 0;
	if (run_once(&g, &d, &guard_bad, &d_tma))
		goto out;
	rc = 0;
	if (o->check) {
		rc = report_check(what, &d, guard_bad, d_tma);
	} else if (guard_bad) {
		printf("FAIL run gemm %s: the kernel wrote %zu of the %u bytes just before and after D\n",
		       what, guard_bad, 2 * GUARD);
		rc = 1;
	}
	if (o->save) {
		if (rg_save(o->save, &d, "tn")) {
			rg_said();
			rc = 1;
		} else {
			printf("saved A, B, C, D and gemm.json in %s\n", o->save);
		}
	}
	if (o->bench && !rc)
		rc = bench(&g, &d, o, what);
	if (!o->check && !o->bench && !rc)
		printf("ran gemm %s on a grid of %u x %u threads (cluster %u); "
		       "--check compares D with the reference, --bench times it\n",
		       what, g.cfg.grid[0], g.cfg.block[0], g.cfg.cluster[0]);
out:
	lt_teardown(&g);
	mmart_gemm_kernel_free(g.kern);
	if (g.stream)
		mmart_stream_destroy(g.ctx, g.stream);
	mmart_close(g.ctx);
	rg_data_free(&d);
	fflush(stdout);
	return rc;
}
