/* run_gemm.c - `mmagen run gemm`: generate the GEMM, JIT-load it through
 * libmmart, launch it on random (or loaded) operands, and check D against
 * the exact CPU reference (run_gemm_host.c) or time it beside cuBLASLt
 * (run_gemm_bench.c).  Here: the command and its option checks, the
 * device operand sets, the kernel's load and launch through libmmart's
 * GEMM launcher, the split-K choice, the check's launches and report, and
 * --time-load.  --tune and tuned choices are in run_gemm_tune.c, sm_120a
 * kernels in run_gemm_sm120_gpu.c (run_gemm_gpu.h is what they share).
 *
 * Order: everything the command line or the files can get wrong is found
 * before the driver is touched (request, problem rules, --load's
 * description); then the GPU. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm_gpu.h"
#include "mmart.h"
#include "run.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_gemm_opts_init(struct run_gemm_opts *o)
{
	memset(o, 0, sizeof *o);
	o->alpha = 1;
	o->d_scale = 1;
	o->reps = 0;          /* not given: RUN_REPS for --tune, auto_reps for --bench */
}

int rgg_rt_fail(const char *what)
{
	fprintf(stderr, "mmagen: run gemm: %s: %s\n", what, mmart_last_error());
	return 1;
}

int rgg_said(void)
{
	fprintf(stderr, "mmagen: run gemm: %s\n", rg_error());
	return 1;
}

/* The SM count for the persistent grid.  libmmart does not report it
 * yet, so it is asked of the driver libmmart loaded, about the context
 * libmmart made current.  0 when that fails: the launcher then launches one
 * cluster per work unit, which the kernel handles just as well. */
unsigned rgg_device_sms(mmart_ctx *ctx)
{
	int sms = 0;
	return mmart_device_sms(ctx, &sms) || sms <= 0 ? 0 : (unsigned)sms;
}

/* ---- one set of device operands and its launch ---- */
struct dev_set *rgg_alloc_sets(unsigned n)
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
	/* fp8-block: row-major scales by the launcher's default (strides
	 * 0), column-major ones by their strides */
	a.sa = s->sa;
	a.sb = s->sb;
	if (p->block_scale && p->scale_col) {
		a.sa_sm = p->sa_sm;
		a.sa_sk = p->sa_sk;
		a.sb_sn = p->sb_sn;
		a.sb_sk = p->sb_sk;
	}
	return a;
}

int rgg_launch_mmagen(struct gpu *g, const struct dev_set *s)
{
	mmart_gemm_args a = args_of(g, s);
	return mmart_gemm_kernel_launch(g->kern, &a, mmart_stream_handle(g->stream)) ?
	       rgg_rt_fail("launch") : 0;
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
	rc = mmart_copy_to_device(g->ctx, dst, tmp ? tmp : host, rg_bytes(p, which)) ?
	     rgg_rt_fail("device memory") : 0;
	free(tmp);
	return rc;
}

/* C's device copy: the values when beta != 0; with beta = 0 the poison,
 * so a kernel that reads C anyway turns D into NaN. */
int rgg_upload_set(struct gpu *g, struct dev_set *s, const struct rg_data *d, size_t guard)
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
		return rgg_rt_fail("device memory");
	s->d = s->dbuf + guard;
	if (p->block_scale) {
		size_t sab = rg_scale_count(p, 'A') * sizeof(float);
		size_t sbb = rg_scale_count(p, 'B') * sizeof(float);
		if (mmart_alloc(g->ctx, sab, &s->sa) || mmart_alloc(g->ctx, sbb, &s->sb) ||
		    mmart_copy_to_device(g->ctx, s->sa, d->sa, sab) ||
		    mmart_copy_to_device(g->ctx, s->sb, d->sb, sbb))
			return rgg_rt_fail("device memory");
	}
	/* the epilogue stores pairs: D and C aligned to two elements */
	if (s->d % (2 * rg_elem_bytes(p->out)) || s->c % (2 * rg_elem_bytes(p->out))) {
		fprintf(stderr, "mmagen: run gemm: D or C at 0x%llx / 0x%llx is not aligned to 2 elements\n",
			(unsigned long long)s->d, (unsigned long long)s->c);
		return 1;
	}
	return upload_operand(g, s->a, d->a, 'A') || upload_operand(g, s->b, d->b, 'B');
}

void rgg_free_sets(struct gpu *g)
{
	for (unsigned i = 0; g->sets && i < g->nsets; i++) {
		mmart_free(g->ctx, g->sets[i].a);
		mmart_free(g->ctx, g->sets[i].b);
		mmart_free(g->ctx, g->sets[i].c);
		mmart_free(g->ctx, g->sets[i].dbuf);
		mmart_free(g->ctx, g->sets[i].sa);
		mmart_free(g->ctx, g->sets[i].sb);
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
	unsigned sms = rgg_device_sms(g->ctx);

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
int rgg_run_once(struct gpu *g, struct rg_data *d, size_t *guard_bad, int *d_tma)
{
	const struct rg_problem *p = g->p;
	size_t db = rg_bytes(p, 'D');
	uint8_t *back = malloc(db + 2 * GUARD);
	int rc;

	if (!back) {
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	if (!(g->sets = rgg_alloc_sets(1))) {
		free(back);
		fprintf(stderr, "mmagen: run gemm: out of memory\n");
		return 1;
	}
	g->nsets = 1;
	if ((rc = rgg_upload_set(g, &g->sets[0], d, GUARD)) ||
	    (rc = rgg_launch_mmagen(g, &g->sets[0])))
		goto out;
	/* D through its tensor map: the launcher's rule (rows 16-byte
	 * aligned, N * size a multiple of 16) on the dense D */
	*d_tma = g->info.box_d[0] && (uint64_t)p->n * rg_elem_bytes(p->out) % 16 == 0 &&
		 g->sets[0].d % 16 == 0;
	if (mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_memset8(g->ctx, g->sets[0].dbuf, POISON, db + 2 * GUARD) ||
	    rgg_launch_mmagen(g, &g->sets[0]) || mmart_stream_sync(g->ctx, g->stream) ||
	    mmart_copy_to_host(g->ctx, back, g->sets[0].dbuf, db + 2 * GUARD)) {
		rc = rgg_rt_fail("run");
		goto out;
	}
	*guard_bad = 0;
	for (size_t i = 0; i < GUARD; i++)
		*guard_bad += (back[i] != POISON) + (back[GUARD + db + i] != POISON);
	memcpy(d->d, back + GUARD, db);
out:
	rgg_free_sets(g);
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
	snprintf(buf, n, "%s x %s -> %s%s%s%s%s, M %u N %u K %u, alpha %.9g beta %.9g%s",
		 mmagen_type_name(r->a), mmagen_type_name(r->b), mmagen_type_name(r->out),
		 r->layout != MMAGEN_GEMM_TN && r->layout < 4 ? " layout " : "",
		 r->layout != MMAGEN_GEMM_TN && r->layout < 4 ? layouts[r->layout] : "",
		 p->acc_f16 ? " acc f16" : "",
		 !p->block_scale ? "" : p->scale_col ? " fp8-block (scales column-major)"
						     : " fp8-block (scales row-major)",
		 p->m, p->n, p->k, (double)p->alpha, (double)p->beta, scale);
}

static int report_check(const char *what, const struct rg_data *d, size_t guard_bad, int d_tma)
{
	struct rg_verdict v;
	const struct rg_problem *p = &d->p;

	if (rg_verify(d, &v))
		return rgg_said();
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

/* ---- the GPU and the kernel ---- */
int rgg_open_gpu(const struct run_opts *ro, mmart_ctx **ctx)
{
	mmart_status s = mmart_open(ro->device, ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		fprintf(stderr, "mmagen: %s\n", mmart_last_error());
		return 77;
	}
	return s ? rgg_rt_fail("open") : 0;
}

/* The kernel of r loaded into g (g->kern, through libmmart's GEMM
 * launcher: the PTX and its ABI text); hit: where it came from. */
int rgg_load_kernel(struct gpu *g, const mmagen_gemm_request *r, int *hit)
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
		rgg_rt_fail("load");
	else
		rc = 0;
	mmagen_free(ptx);
	mmagen_free(abi);
	return rc;
}

int rgg_prepare_kernel(struct gpu *g, const mmagen_gemm_request *r)
{
	int hit;
	if (rgg_load_kernel(g, r, &hit))
		return 1;
	cache_note(hit);
	if (!g->stream && mmart_stream_create(g->ctx, &g->stream))
		return rgg_rt_fail("load");
	return 0;
}

/* The launch of the problem as the launcher makes it (for the messages
 * and the cuBLASLt side's stream). */
void rgg_set_config(struct gpu *g)
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
	a.sa = a.sb = g->p->block_scale ? 256 : 0;
	mmart_gemm_kernel_grid(g->kern, &a, g->cfg.grid, NULL);
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

/* ---- the command ---- */
/* A request that only sm_120a has: block-scaled, or FP6/FP4 operands. */
static int sm120_request(const mmagen_gemm_request *r)
{
	const mmagen_type fp[3] = { MMAGEN_E3M2, MMAGEN_E2M3, MMAGEN_E2M1 };
	int small = 0;
	for (int i = 0; i < 3; i++)
		small |= r->a == fp[i] || r->b == fp[i];
	/* (s4/u4 are the mma.sync path's, fp8-block sm_90a's) */
	return (r->quant && r->quant != MMAGEN_QF_FP8_BLOCK) || small;
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
	if (o->scale_layout && r.quant != MMAGEN_QF_FP8_BLOCK) {
		fprintf(stderr, "mmagen: run gemm: --scale-layout lays out --quant fp8-block's scales; leave it out, or add --quant fp8-block\n");
		return 2;
	}
	if (r.quant == MMAGEN_QF_FP8_BLOCK && (o->save || o->load || o->tune)) {
		fprintf(stderr, "mmagen: run gemm: --save, --load and --tune do not carry --quant fp8-block's scales yet; leave %s out\n",
			o->save ? "--save" : o->load ? "--load" : "--tune");
		return 2;
	}
	if (o->d_scale != 1 && r.out != MMAGEN_E4M3 && r.out != MMAGEN_E5M2) {
		fprintf(stderr, "mmagen: run gemm: --d-scale scales an FP8 D (--out e4m3 or e5m2); D here is %s: leave --d-scale out, or scale with --alpha\n",
			mmagen_type_name(r.out));
		return 2;
	}
	/* a bad --save is said before the run, not after it (D would be lost) */
	if (o->save && !o->time_load && rg_save_dir_check(o->save))
		return rgg_said();
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
		return rgg_sm120_gpu(&r, o, ro);
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
	if (o->tune && rgg_tune_usage(&r, &g.info))
		return 2;
	d.p = (struct rg_problem){ .a = r.a, .b = r.b, .out = r.out, .m = o->m, .n = o->n, .k = o->k,
				   .alpha = o->alpha, .beta = o->beta, .seed = ro->seed,
				   .a_mn = r.layout == MMAGEN_GEMM_NN || r.layout == MMAGEN_GEMM_NT,
				   .b_mn = r.layout == MMAGEN_GEMM_NT || r.layout == MMAGEN_GEMM_TT,
				   .acc_f16 = r.acc == MMAGEN_F16, .promote_k = r.promote_k,
				   .d_scale = r.out == MMAGEN_E4M3 || r.out == MMAGEN_E5M2 ? o->d_scale : 1,
				   .block_scale = r.quant == MMAGEN_QF_FP8_BLOCK };
	if (d.p.block_scale)
		rg_scale_layout(&d.p, o->scale_layout == RG_SCALES_COL);
	if (rg_check_problem(&d.p))
		return rgg_said();
	if (o->load && rg_load(o->load, &d, "tn"))
		return rgg_said();
	if (!has_arch) {
		if ((rc = device_target(ro, &r.target)))
			goto out;
		if (!strncmp(mmagen_target_name(r.target), "sm_12", 5)) {
			rc = rgg_sm120_gpu(&r, o, ro);
			goto out;
		}
		if (mmagen_gemm_info_of(&r, &g.info)) {
			fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error());
			rc = 1;
			goto out;
		}
	}
	if ((rc = rgg_open_gpu(ro, &g.ctx)))
		goto out;
	rc = 1;
	if (!o->load) {
		if (rg_alloc(&d)) {
			rgg_said();
			goto out;
		}
		rg_fill_inputs(&d);
	}
	g.p = &d.p;
	if (o->tune ? (rc = rgg_tune(&g, &r, &d, o)) != 0 : (rc = rgg_apply_tuned(&g, &r)) != 0)
		goto out;
	if (!o->tune && (rc = rgg_apply_chosen(&g, &r)) != 0)
		goto out;
	rc = 1;
	if (setup_split(&g, &r) || rgg_prepare_kernel(&g, &r))
		goto out;
	rgg_set_config(&g);
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
	if (rgg_run_once(&g, &d, &guard_bad, &d_tma))
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
			rgg_said();
			rc = 1;
		} else {
			printf("saved A, B, C, D and gemm.json in %s\n", o->save);
		}
	}
	if (o->bench && !rc)
		rc = rgg_bench(&g, &d, o, what);
	if (!o->check && !o->bench && !rc)
		printf("ran gemm %s on a grid of %u x %u threads (cluster %u); "
		       "--check compares D with the reference, --bench times it\n",
		       what, g.cfg.grid[0], g.cfg.block[0], g.cfg.cluster[0]);
out:
	rgg_lt_teardown(&g);
	mmart_gemm_kernel_free(g.kern);
	if (g.stream)
		mmart_stream_destroy(g.ctx, g.stream);
	mmart_close(g.ctx);
	rg_data_free(&d);
	fflush(stdout);
	return rc;
}
