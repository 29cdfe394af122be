/* bench_instr.c - `mmagen bench instr`: the issue peak of one mma.sync /
 * mma.sp form on the GPU at hand.
 *
 * Our GEMM figures are read against "mma.sync's issue peak"; this command
 * lets a user measure that peak on their own GPU, with no compiler: the
 * register-only loop of mmagen_emit_peak, one CTA of MMAGEN_PEAK_WARPS
 * warps on every SM, each launch about 10 ms, timed with events, and the
 * SM clock it ran at from NVML.  The clock belongs with the figure: on
 * the H200 this loop holds 1980 MHz while a GEMM of the same instruction
 * draws more power and runs near 1700, so a GEMM is fairly compared with
 * the peak at its own clock. */
#include "run.h"
#include "mmart.h"
#include "nvml.h"

#include <stdio.h>
#include <stdlib.h>

#define TARGET_MS 10.0          /* one launch after calibration */
#define MAX_ITERS (1u << 30)
#define FIRST_ITERS 1024u
#define WARMUP 3
#define DEFAULT_REPS 30

/* Shared memory per SM, KiB, by compute capability (the CUDA programming
 * guide's table).  A CTA asking for over half of it leaves room for no
 * second one, which makes the grid of one CTA per SM exactly that. */
static const struct {
	int cc;
	unsigned kib;
} smem_per_sm[] = {
	{ 75, 64 }, { 80, 164 }, { 86, 100 }, { 87, 164 }, { 89, 100 },
	{ 90, 228 }, { 100, 228 }, { 103, 228 }, { 120, 100 }, { 121, 100 },
};

struct peak {
	mmart_ctx *ctx;
	mmart_stream *stream;
	void *fn;
	mmart_launch_config cfg;
	uint32_t iters;          /* passes of the loop per launch */
	uint64_t out;            /* 0: the kernel's stores never run */
	void *params[2];
	char gpu[128];
	char ctas[320];          /* "one per SM", or why the CTAs were not forced */
	struct nvml_sampler *nvml;
	char nvml_why[256];
};

static int rt_fail(const char *what)
{
	fprintf(stderr, "mmagen: bench instr: %s: %s\n", what, mmart_last_error());
	return 1;
}

/* Dynamic shared memory of a bit over half the SM's, so that no SM runs
 * two CTAs; without it the grid still runs, and the header says so. */
static void force_one_cta(struct peak *p, int major, int minor)
{
	unsigned kib = 0;

	for (size_t i = 0; i < sizeof smem_per_sm / sizeof *smem_per_sm; i++)
		if (smem_per_sm[i].cc == major * 10 + minor)
			kib = smem_per_sm[i].kib;
	if (!kib) {
		snprintf(p->ctas, sizeof p->ctas, "CTAs per SM not forced (mmagen does not know "
			 "the shared memory per SM of sm_%d%d)", major, minor);
		return;
	}
	/* each CTA also holds 1 KiB the system reserves: half + 1 KiB
	 * leaves less than a second CTA's share */
	unsigned bytes = kib * 1024 / 2 + 1024;
	if (mmart_func_set_max_dynamic_smem(p->ctx, p->fn, bytes)) {
		snprintf(p->ctas, sizeof p->ctas, "CTAs per SM not forced (%s)", mmart_last_error());
		return;
	}
	p->cfg.smem_bytes = bytes;
	snprintf(p->ctas, sizeof p->ctas, "one per SM");
}


/* The GPU, the kernel loaded, the launch configuration: 0, 1 (said why)
 * or 77 (no driver or GPU). */
static int setup(struct peak *p, const struct run_opts *o, const char *ptx)
{
	mmart_module *mod;
	int major, minor, sms, hit;
	mmart_status s = mmart_open(o->device, &p->ctx);

	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		fprintf(stderr, "mmagen: %s\n", mmart_last_error());
		return 77;
	}
	if (s || mmart_device_info(p->ctx, &major, &minor, p->gpu, sizeof p->gpu) ||
	    mmart_device_sms(p->ctx, &sms))
		return rt_fail("device");
	if (mmart_load_ptx(p->ctx, ptx, &mod, &hit) || mmart_get_function(mod, "mmagen_peak", &p->fn))
		return rt_fail("load");
	cache_note(hit);
	if (mmart_stream_create(p->ctx, &p->stream))
		return rt_fail("stream");
	p->cfg = (mmart_launch_config){ .grid = { (unsigned)sms, 1, 1 },
		.block = { 32 * MMAGEN_PEAK_WARPS, 1, 1 }, .cluster = { 1, 1, 1 },
		.stream = p->stream };
	p->params[0] = &p->iters;
	p->params[1] = &p->out;
	force_one_cta(p, major, minor);
	p->nvml = nvml_open_ctx(p->ctx, p->nvml_why, sizeof p->nvml_why);
	return 0;
}

static int launch(struct peak *p)
{
	return mmart_launch_ex(p->ctx, p->fn, &p->cfg, p->params) ? rt_fail("launch") : 0;
}

/* `n` launches, an event before each and one after the last, into ev[];
 * ev[0..n] must exist. */
static int queue(struct peak *p, mmart_event **ev, unsigned n)
{
	for (unsigned r = 0; r < n; r++) {
		if (mmart_event_record(p->ctx, ev[r], p->stream))
			return rt_fail("events");
		if (launch(p))
			return 1;
	}
	return mmart_event_record(p->ctx, ev[n], p->stream) ? rt_fail("events") : 0;
}

/* Times launches of the kernel: the first `warmup` untimed, then `reps`
 * into ms[]; with p->nvml, the SM clock while those ran into *clk. */
static int run(struct peak *p, unsigned warmup, unsigned reps, float *ms, struct nvml_stats *clk)
{
	mmart_event **ev = calloc(reps + 1, sizeof *ev);
	int rc = 1, sampling = 0;

	if (!ev) {
		fprintf(stderr, "mmagen: bench instr: out of memory\n");
		return 1;
	}
	for (unsigned i = 0; i <= reps; i++)
		if (mmart_event_create(p->ctx, &ev[i])) {
			rt_fail("events");
			goto out;
		}
	for (unsigned i = 0; i < warmup; i++)
		if (launch(p))
			goto out;
	if (mmart_stream_sync(p->ctx, p->stream)) {
		rt_fail("warm-up");
		goto out;
	}
	/* sampled from before the launches are queued: each runs about 10
	 * ms, so the host stays ahead of the GPU whatever the sampler costs
	 * it, and with many --reps the host waits in a full launch queue,
	 * which starting after queueing would leave unsampled */
	if (clk && p->nvml) {
		sampling = !nvml_start(p->nvml, p->nvml_why, sizeof p->nvml_why);
		if (!sampling) {
			nvml_close(p->nvml);
			p->nvml = NULL;
		}
	}
	int bad = queue(p, ev, reps);
	if (!bad && mmart_stream_sync(p->ctx, p->stream))
		bad = rt_fail("launch");     /* a fault in the kernel shows here */
	if (sampling)
		nvml_stop(p->nvml, clk);
	if (bad)
		goto out;
	for (unsigned r = 0; r < reps; r++)
		if (mmart_event_elapsed_ms(p->ctx, ev[r], ev[r + 1], &ms[r])) {
			rt_fail("events");
			goto out;
		}
	rc = 0;
out:
	for (unsigned i = 0; i <= reps; i++)
		mmart_event_destroy(p->ctx, ev[i]);
	free(ev);
	return rc;
}

/* p->iters for a launch of about TARGET_MS: FIRST_ITERS, then 16 times
 * more until a launch takes 1 ms (the launch's own cost no longer
 * counts), scaled from there; at least 1, at most MAX_ITERS. */
static int calibrate(struct peak *p)
{
	float ms = 0;

	p->iters = FIRST_ITERS;
	/* every count that is scaled from was measured (a warm-up first) */
	for (int i = 0; i < 6; i++) {
		if (run(p, i == 0, 1, &ms, NULL))
			return 1;
		if (ms >= 1 || p->iters > MAX_ITERS / 16 || i == 5)
			break;
		p->iters *= 16;
	}
	double it = ms > 0 ? p->iters * TARGET_MS / ms : MAX_ITERS;
	p->iters = it < 1 ? 1 : it > MAX_ITERS ? MAX_ITERS : (uint32_t)it;
	return 0;
}

/* What one instruction's operations are counted as. */
static const char *ops_rule(const mmagen_form *f, double ops)
{
	if (f->sparse)
		return "2*m*n*k per instruction, dense-equivalent: K is mma.sp's logical K";
	if (ops != 2.0 * f->m * f->n * f->k)
		return "4 x 2*m*n*k per instruction: each quad-pair does its own m8n8k4";
	return "2*m*n*k per instruction";
}

static void print_clocks(const struct peak *p, const struct nvml_stats *clk)
{
	if (!p->nvml) {
		printf("clocks    not sampled: %s\n", p->nvml_why);
		return;
	}
	char flag[160];
	printf("clocks    %.0f MHz  (NVML: median SM clock while the timed launches ran; %u sample%s%s)\n",
	       clk->mhz, clk->samples, clk->samples == 1 ? "" : "s",
	       clocks_flag(clk->seconds, "launches", flag, sizeof flag));
}

static int report(const mmagen_form *f, int t, const struct peak *p, float *ms, unsigned reps,
		  const struct nvml_stats *clk)
{
	char op[256];
	double ops;

	mmagen_peak_ops(f, &ops);      /* the form was checked before */
	double median = median_ms(ms, reps);
	if (!(median > 0)) {
		fprintf(stderr, "mmagen: bench instr: the events timed the launches at %g ms; "
			"no rate can be given\n", median);
		return 1;
	}
	/* a launch far from the calibrated length did not run the loop it
	 * was calibrated on (events of 1e-5 ms would give 1e13 TFLOP/s) */
	if (median < TARGET_MS / 10) {
		fprintf(stderr, "mmagen: bench instr: a launch of %u iterations took %.3g ms where about %g were calibrated; the events or the loop are not what they seem, no rate is given\n",
			p->iters, median, TARGET_MS);
		return 1;
	}
	double total = ops * MMAGEN_PEAK_COPIES * MMAGEN_PEAK_WARPS * p->cfg.grid[0] * p->iters;
	printf("bench instr %s on %s (%s): %u CTAs of %u warps, %s, %u independent accumulators "
	       "a warp, %u iterations a launch, median of %u launch%s\n",
	       mmagen_form_opcode(f, op, sizeof op), p->gpu, mmagen_target_name(t), p->cfg.grid[0],
	       MMAGEN_PEAK_WARPS, p->ctas, MMAGEN_PEAK_COPIES, p->iters, reps, reps == 1 ? "" : "es");
	printf("%-9s %8.1f %s  (median %.3f ms, min %.3f, max %.3f; %s)\n", "peak",
	       total / (median * 1e-3) / 1e12,
	       mmagen_type_is_float((mmagen_type)f->a) ? "TFLOP/s" : "TOP/s", median, ms[0],
	       ms[reps - 1], ops_rule(f, ops));
	print_clocks(p, clk);
	return 0;
}

int bench_instr(const mmagen_form *f, int t, const struct run_opts *o)
{
	struct peak p = { 0 };
	struct nvml_stats clk = { 0 };
	unsigned reps = o->reps ? o->reps : DEFAULT_REPS;
	float *ms = calloc(reps, sizeof *ms);
	char *ptx = NULL;
	int rc = 1;

	if (!ms) {
		fprintf(stderr, "mmagen: bench instr: out of memory\n");
		return 1;
	}
	mmagen_status st = mmagen_emit_peak(f, t, &ptx, NULL);
	if (st) {
		fprintf(stderr, "mmagen: bench instr: %s\n", mmagen_last_error());
		rc = st == MMAGEN_UNSUPPORTED ? 2 : 1;   /* a form ptxas emulates on t: usage */
		goto out;
	}
	if ((rc = setup(&p, o, ptx)))
		goto out;
	rc = 1;
	if (!calibrate(&p) && !run(&p, WARMUP, reps, ms, &clk))
		rc = report(f, t, &p, ms, reps, &clk);
out:
	nvml_close(p.nvml);
	if (p.stream)
		mmart_stream_destroy(p.ctx, p.stream);
	mmart_close(p.ctx);
	mmagen_free(ptx);
	free(ms);
	fflush(stdout);
	return rc;
}
