/* run_gemm_sm120_gpu.c - `mmagen run gemm` for sm_120a kernels
 * (block-scaled mma.sync) on an SM120 GPU: --check, --bench and --save.
 * run_gemm_sm120.c lays out the operands (the containers and scale rows
 * of the manifest) and holds the reference; here they go to an SM120 GPU.
 * struct gpu's operand sets carry A, B, C and D; the scales of set i are
 * sa[i], sb[i] of struct g120.  The kernel's parameters (manifest
 * "params"): a, b, sa, sb, d, c, m, n, k, lda, ldb, ldsa, ldsb, ldd, ldc,
 * alpha, beta; one CTA per tile. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm_gpu.h"
#include "mmart.h"
#include "nvml.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETS120 64u
#define L2_120 (128ull << 20)   /* GB202's whole L2: --bench rotates past it */

struct g120 {
	struct gpu g;            /* first: launch120 gets &g back */
	const struct rg120_problem *p;
	uint64_t sa[SETS120], sb[SETS120];
};

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
	       rgg_rt_fail("launch") : 0;
}

/* Set i to the device: D between `guard` poisoned bytes on each side, C
 * the poison when beta is 0 (as rgg_upload_set). */
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
		return rgg_rt_fail("device memory");
	s->d = s->dbuf + guard;
	if (p->block &&
	    (mmart_alloc(g->ctx, rg120_bytes(p, RG120_SA), &x->sa[i]) ||
	     mmart_alloc(g->ctx, rg120_bytes(p, RG120_SB), &x->sb[i]) ||
	     mmart_copy_to_device(g->ctx, x->sa[i], d->sa, rg120_bytes(p, RG120_SA)) ||
	     mmart_copy_to_device(g->ctx, x->sb[i], d->sb, rg120_bytes(p, RG120_SB))))
		return rgg_rt_fail("device memory");
	return 0;
}

static void free120(struct g120 *x)
{
	for (unsigned i = 0; i < x->g.nsets; i++) {
		mmart_free(x->g.ctx, x->sa[i]);
		mmart_free(x->g.ctx, x->sb[i]);
		x->sa[i] = x->sb[i] = 0;
	}
	rgg_free_sets(&x->g);
}

/* n sets, uploaded: 0 or 1 (said why; free120 cleans up). */
static int sets120(struct g120 *x, const struct rg120_data *d, unsigned n, size_t guard)
{
	if (!(x->g.sets = rgg_alloc_sets(n))) {
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
		rgg_rt_fail("run");
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
		return rgg_said();
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
 * between two uses of one, a blocker memset first (rgg_time_launches).
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
	if (rgg_time_launches(&x->g, launch120, reps, blocker, blocker_bytes, &t, &clk))
		goto out;
	printf("%-9s %8.1f TFLOP/s  (median %.4f ms, min %.4f, max %.4f)%s\n", "mmagen",
	       flop / (t.median * 1e-3) / 1e12, t.median, t.min, t.max,
	       t.gaps ? "  [the host queued slower than the GPU ran: gaps may count]" : "");
	rgg_print_clocks(&x->g, &clk, NULL);
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
int rgg_sm120_gpu(const mmagen_gemm_request *r, const struct run_gemm_opts *o,
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
		return rgg_said();
	x.p = &d.p;
	if ((rc = rgg_open_gpu(ro, &g->ctx)))
		return rc;
	rc = 1;
	if (mmart_device_info(g->ctx, &major, &minor, NULL, 0)) {
		rgg_rt_fail("device");
		goto out;
	}
	if (major != 12) {
		fprintf(stderr, "mmagen: run gemm: %s kernels need an SM120 GPU (compute capability 12.x), this one is sm_%d%d: skipped; `mmagen gemm --arch %s` writes the kernel, the unit and ptxas suites check it\n",
			t, major, minor, t);
		rc = 77;
		goto out;
	}
	if (rg120_alloc(&d)) {
		rgg_said();
		goto out;
	}
	rg120_fill(&d);
	if (rgg_prepare_kernel(g, r))
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
			rc = rgg_said();
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

