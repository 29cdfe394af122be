/* run.c - run one-tile kernels on the GPU and check them. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "mmart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- random inputs ---- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: fast, and any seed is good */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A random finite pattern of type t with |value| <= limit (floats), drawn
 * over every bit pattern of the type so that subnormals, both signs and
 * every exponent up to the limit occur; never NaN or Inf. */
static uint64_t rand_pattern(mmagen_type t, double limit, uint64_t *s)
{
	unsigned bits = mmagen_type_bits(t);
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t p = rng_next(s) & mask;
		if (t == MMAGEN_TF32)
			p &= ~0x1FFFull;
		if (!mmagen_type_is_float(t))
			return p;
		double v = mmagen_type_decode(t, p);
		if (isfinite(v) && fabs(v) <= limit)
			return p;
	}
	return mmagen_type_encode(t, 1.0);
}

/* Largest input magnitude that keeps every partial sum finite in D: a
 * float accumulator of range R with K products needs |a|,|b| <= sqrt(R/4K). */
static double input_limit(const mmagen_form *f, unsigned k)
{
	if (!mmagen_type_is_float((mmagen_type)f->d))
		return INFINITY;
	return sqrt(mmagen_type_max((mmagen_type)f->d) / (4.0 * k));
}

/* Smallest normal magnitude of the float types that have subnormals. */
static double min_normal(mmagen_type t)
{
	switch (t) {
	case MMAGEN_F64: return 0x1p-1022;
	case MMAGEN_F32: case MMAGEN_TF32: case MMAGEN_BF16: return 0x1p-126;
	case MMAGEN_F16: case MMAGEN_E5M2: return 0x1p-14;
	case MMAGEN_E4M3: return 0x1p-6;
	case MMAGEN_E3M2: return 0x1p-2;
	case MMAGEN_E2M3: case MMAGEN_E2M1: return 1.0;
	default: return 0;
	}
}

/* Edge-case inputs (--inputs): override the random ones.
 *   max        every A and B element is the largest finite value (random
 *              signs where D cannot overflow)
 *   subnormal  A, B and C are random subnormals (float types)
 *   special    A[0][*] holds a NaN, A[1][0] an Inf, -0 elsewhere in row 2
 *   overflow   integer A, B at their extremes and C near INT32_MAX, so that
 *              s32 wraps (or saturates with .satfinite) */
static void apply_edge(const mmagen_form *f, const char *edge, uint64_t *a,
		       uint64_t *b, uint64_t *c, uint64_t *s)
{
	unsigned m = f->m, n = f->n, k = f->k;
	mmagen_type ta = (mmagen_type)f->a, tb = (mmagen_type)f->b, tc = (mmagen_type)f->c;
	if (!strcmp(edge, "max")) {
		/* Mixed signs only where no partial sum can overflow D: else
		 * the hardware's summation order decides between +Inf, -Inf
		 * and NaN, and no reference can say which; with one sign the
		 * answer is +Inf in every order. */
		double dmax = mmagen_type_max((mmagen_type)f->d);
		int mixed = !mmagen_type_is_float((mmagen_type)f->d) ||
			    mmagen_type_max(ta) * mmagen_type_max(tb) * k * 2 <= dmax;
		for (size_t i = 0; i < (size_t)m * k; i++)
			a[i] = mmagen_type_encode(ta, (mixed && rng_next(s) & 1 ? -1 : 1) *
						      mmagen_type_max(ta));
		for (size_t i = 0; i < (size_t)k * n; i++)
			b[i] = mmagen_type_encode(tb, (mixed && rng_next(s) & 1 ? -1 : 1) *
						      mmagen_type_max(tb));
		if (!mixed)
			for (size_t i = 0; i < (size_t)m * n; i++)
				c[i] = mmagen_type_encode(tc, fabs(mmagen_type_decode(tc, c[i])));
	} else if (!strcmp(edge, "subnormal")) {
		uint64_t *arr[3] = { a, b, c };
		mmagen_type ty[3] = { ta, tb, tc };
		size_t cnt[3] = { (size_t)m * k, (size_t)k * n, (size_t)m * n };
		for (int o = 0; o < 3; o++) {
			double mn = min_normal(ty[o]);
			if (mn == 0)
				continue;
			for (size_t i = 0; i < cnt[o]; i++) {
				uint64_t p;
				double v;
				do {
					p = rand_pattern(ty[o], mn, s);
					v = fabs(mmagen_type_decode(ty[o], p));
				} while (!(v > 0 && v < mn));
				arr[o][i] = p;
			}
		}
	} else if (!strcmp(edge, "special")) {
		if (mmagen_type_is_float(ta)) {
			a[0] = mmagen_type_encode(ta, NAN);
			if (m > 1)
				a[k] = mmagen_type_encode(ta, INFINITY);
			if (m > 2)
				for (unsigned j = 0; j < k; j++)
					a[2 * k + j] = mmagen_type_encode(ta, -0.0);
		}
		c[0] = mmagen_type_encode(tc, -0.0);
	} else if (!strcmp(edge, "overflow")) {
		for (size_t i = 0; i < (size_t)m * k; i++)
			a[i] = mmagen_type_encode(ta, mmagen_type_max(ta));
		for (size_t i = 0; i < (size_t)k * n; i++)
			b[i] = mmagen_type_encode(tb, mmagen_type_max(tb));
		for (size_t i = 0; i < (size_t)m * n; i++)
			c[i] = mmagen_type_encode(tc, mmagen_type_max(tc) - (double)(rng_next(s) % 1000));
	}
}

/* ---- packing into the kernel's memory format ---- */

/* Bits of element pattern p as they sit in a register container of
 * `w` bits: kind::f8f6f4 puts e2m1 in the middle 4 bits of a byte and
 * FP6 in the low 6. */
static uint64_t to_container(mmagen_type t, unsigned w, uint64_t p)
{
	if (w == 8 && t == MMAGEN_E2M1)
		return p << 2;
	return p;
}

static void pack(uint8_t *mem, const uint64_t *el, size_t n, unsigned w,
		 mmagen_type t)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = to_container(t, w, el[i]);
		size_t bit = i * w;
		for (unsigned j = 0; j < w; j++, bit++)
			if (v >> j & 1)
				mem[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
}

static uint64_t unpack(const uint8_t *mem, size_t i, unsigned w)
{
	uint64_t v = 0;
	size_t bit = i * w;
	for (unsigned j = 0; j < w; j++, bit++)
		v |= (uint64_t)(mem[bit / 8] >> (bit % 8) & 1) << j;
	return v;
}

/* ---- one tile ---- */

struct tile_data {
	mmagen_tile_info ti;
	uint64_t *a, *b, *c, *d, *ac;   /* patterns; ac: compressed A */
	uint64_t *aref, *bref, *cref;   /* what the reference saw, if not a/b/c */
	uint8_t *idx;
	double *dref;
	uint8_t *mem[8];
	uint32_t meta[128];   /* one per lane (mma) or thread (wgmma) */
};

static void tile_free(struct tile_data *td)
{
	free(td->a); free(td->b); free(td->c); free(td->d); free(td->ac);
	free(td->aref); free(td->bref); free(td->cref);
	free(td->idx); free(td->dref);
	for (int i = 0; i < 8; i++)
		free(td->mem[i]);
}

static int fail_lib(const char *what)
{
	fprintf(stderr, "mmagen: %s: %s\n", what, mmagen_last_error());
	return 1;
}

/* Build inputs, the reference and the packed buffers. */
static int tile_prepare(const mmagen_form *f, struct tile_data *td,
			const struct run_opts *o)
{
	uint64_t seed = o->seed;
	const char *edge = o->edge;
	unsigned m = f->m, n = f->n, k = f->k;
	uint64_t s = seed;
	double lim = input_limit(f, k);

	if (mmagen_tile_info_of(f, o->tile, &td->ti))
		return fail_lib("tile");
	td->a = calloc((size_t)m * k, 8);
	td->b = calloc((size_t)k * n, 8);
	td->c = calloc((size_t)m * n, 8);
	td->d = calloc((size_t)m * n, 8);
	td->dref = calloc((size_t)m * n, sizeof(double));
	td->ac = calloc((size_t)m * k, 8);
	td->idx = calloc((size_t)m * k, 1);
	for (unsigned p = 0; p < td->ti.nparams; p++)
		td->mem[p] = calloc(td->ti.params[p].bytes, 1);
	for (size_t i = 0; i < (size_t)m * k; i++)
		td->a[i] = rand_pattern((mmagen_type)f->a, lim, &s);
	for (size_t i = 0; i < (size_t)k * n; i++)
		td->b[i] = rand_pattern((mmagen_type)f->b, lim, &s);
	double clim = isinf(lim) ? lim : lim * lim;
	for (size_t i = 0; i < (size_t)m * n; i++)
		td->c[i] = rand_pattern((mmagen_type)f->c, clim, &s);
	if (edge)
		apply_edge(f, edge, td->a, td->b, td->c, &s);
	if (f->sparse) {
		if (mmagen_sparse_prune(f, m, k, td->a) ||
		    mmagen_sparse_compress(f, m, k, td->a, td->ac, td->idx))
			return fail_lib("2:4 sparsity");
		memset(td->meta, 0, sizeof td->meta);
		for (unsigned r = 0; r < m; r++)
			for (unsigned cc = 0; cc < k / 2; cc++) {
				unsigned lane, bit, bits;
				if (mmagen_meta_pos(f, 0, r, cc, &lane, &bit, &bits))
					return fail_lib("sparse metadata");
				uint32_t v = td->idx[(size_t)r * (k / 2) + cc];
				if (bits == 4)   /* tf32: a 4-bit code per kept element */
					v = v ? 0xE : 0x4;
				td->meta[lane] |= v << bit;
			}
		memcpy(td->mem[4], td->meta, td->ti.params[4].bytes);
	}
	/* What the instruction computes with the tile options: negated A or
	 * B (wgmma imm-scale), no C (scale-d = 0). */
	uint64_t *ar = td->a, *br = td->b, *cr = td->c, *tmp[3] = { NULL, NULL, NULL };
	const mmagen_tile_opts *to = o->tile;
	if (to && (to->neg_a || to->neg_b || !to->scale_d)) {
		size_t cnt[3] = { (size_t)m * k, (size_t)k * n, (size_t)m * n };
		const uint64_t *src[3] = { td->a, td->b, td->c };
		mmagen_type ty[3] = { (mmagen_type)f->a, (mmagen_type)f->b, (mmagen_type)f->c };
		int want[3] = { to->neg_a, to->neg_b, !to->scale_d };
		for (int q = 0; q < 3; q++) {
			if (!want[q])
				continue;
			tmp[q] = malloc(cnt[q] * 8);
			for (size_t i = 0; i < cnt[q]; i++)
				tmp[q][i] = q == 2 ? mmagen_type_encode(ty[q], 0.0) :
					mmagen_type_encode(ty[q], -mmagen_type_decode(ty[q], src[q][i]));
		}
		ar = tmp[0] ? tmp[0] : ar;
		br = tmp[1] ? tmp[1] : br;
		cr = tmp[2] ? tmp[2] : cr;
	}
	mmagen_ref_args ra = { .form = f, .m = m, .n = n, .k = k, .a = ar,
			       .b = br, .c = cr, .d = td->d, .dref = td->dref };
	mmagen_status rs = mmagen_ref_mma(&ra);
	td->cref = cr == td->c ? NULL : tmp[2];
	td->aref = ar == td->a ? NULL : tmp[0];
	td->bref = br == td->b ? NULL : tmp[1];
	if (rs)
		return fail_lib("reference");
	const uint64_t *src[3] = { f->sparse ? td->ac : td->a, td->b, td->c };
	const uint8_t types[3] = { f->a, f->b, f->c };
	for (int p = 0; p < 3; p++) {
		const mmagen_tile_param *tp = &td->ti.params[p];
		pack(td->mem[p], src[p], (size_t)tp->rows * tp->cols, tp->elem_bits,
		     (mmagen_type)types[p]);
	}
	return 0;
}

/* sum_k |a*b| + |c| for element (i, j): the scale errors are judged on. */
static double magnitude(const mmagen_form *f, const struct tile_data *td,
			unsigned i, unsigned j)
{
	const uint64_t *c = td->cref ? td->cref : td->c;
	double s = fabs(mmagen_type_decode((mmagen_type)f->c, c[(size_t)i * f->n + j]));
	for (unsigned kk = 0; kk < f->k; kk++)
		s += fabs(mmagen_type_decode((mmagen_type)f->a, td->a[(size_t)i * f->k + kk]) *
			  mmagen_type_decode((mmagen_type)f->b, td->b[(size_t)kk * f->n + j]));
	return s;
}

static int rt_fail(const char *what)
{
	fprintf(stderr, "mmagen: %s: %s\n", what, mmart_last_error());
	return 1;
}

/* Run on the device; returns 0/1/77 and fills `got` (D patterns). */
static int tile_launch(mmart_ctx *ctx, const char *ptx, struct tile_data *td,
		       uint8_t *dmem)
{
	uint64_t dp[8] = { 0 };
	mmart_module *mod;
	void *fn;
	int rc = 1;

	if (mmart_load_ptx(ctx, ptx, &mod, NULL))
		return rt_fail("load");
	if (mmart_get_function(mod, td->ti.kernel, &fn))
		return rt_fail("load");
	for (unsigned p = 0; p < td->ti.nparams; p++) {
		const mmagen_tile_param *tp = &td->ti.params[p];
		if (mmart_alloc(ctx, tp->bytes, &dp[p]))
			goto out;
		if (tp->output) {
			/* poison: a kernel that writes nothing cannot pass */
			if (mmart_memset8(ctx, dp[p], 0xFF, tp->bytes))
				goto out;
		} else if (mmart_copy_to_device(ctx, dp[p], td->mem[p], tp->bytes)) {
			goto out;
		}
	}
	void *params[8] = { &dp[0], &dp[1], &dp[2], &dp[3], &dp[4], &dp[5], &dp[6], &dp[7] };
	if (mmart_launch(ctx, fn, td->ti.grid, td->ti.block, td->ti.smem, params) ||
	    mmart_sync(ctx) ||
	    mmart_copy_to_host(ctx, dmem, dp[3], td->ti.params[3].bytes))
		goto out;
	rc = 0;
out:
	if (rc)
		rt_fail("launch");
	for (unsigned p = 0; p < td->ti.nparams; p++)
		if (dp[p])
			mmart_free(ctx, dp[p]);
	return rc;
}

static int check(const mmagen_form *f, const struct tile_data *td,
		 const uint8_t *dmem, double *maxerr, double *maxrel, char *why, size_t n)
{
	int bad = 0;
	unsigned w = td->ti.params[3].elem_bits;
	*maxerr = *maxrel = 0;
	why[0] = '\0';
	for (unsigned i = 0; i < f->m; i++)
		for (unsigned j = 0; j < f->n; j++) {
			size_t e = (size_t)i * f->n + j;
			uint64_t got = unpack(dmem, e, w);
			double exact = td->dref[e];
			double g = mmagen_type_decode((mmagen_type)f->d, got);
			double err = fabs(g - exact);
			double mag = magnitude(f, td, i, j);
			if (err > *maxerr || isnan(err))
				*maxerr = err;
			if (mag > 0 && (err / mag > *maxrel || isnan(err)))
				*maxrel = err / mag;
			if (!mmagen_ref_accept(f, f->k, exact, mag, got)) {
				if (!bad)
					snprintf(why, n, "D[%u][%u] = %.17g (0x%llx), reference %.17g",
						 i, j, g, (unsigned long long)got, exact);
				bad++;
			}
		}
	return bad;
}

static int open_ctx(const struct run_opts *o, mmart_ctx **ctx)
{
	mmart_status s = mmart_open(o->device, ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		fprintf(stderr, "mmagen: %s\n", mmart_last_error());
		return 77;
	}
	return s ? rt_fail("open") : 0;
}

/* One tile on an open context: 0 pass, 1 fail; `line` gets the result. */
static int tile_once(mmart_ctx *ctx, const mmagen_form *f, int t,
		     const struct run_opts *o, char *line, size_t n)
{
	struct tile_data td;
	char *ptx = NULL, op[256], why[256];
	uint8_t *dmem = NULL;
	double maxerr, maxrel;
	int rc = 1;

	memset(&td, 0, sizeof td);
	mmagen_form_opcode(f, op, sizeof op);
	if (tile_prepare(f, &td, o))
		goto out;
	if (mmagen_emit_tile(f, t, o->tile, MMAGEN_FMT_PTX, &ptx, NULL)) {
		fail_lib("emit");
		goto out;
	}
	dmem = calloc(td.ti.params[3].bytes, 1);
	if ((rc = tile_launch(ctx, ptx, &td, dmem)))
		goto out;
	int bad = check(f, &td, dmem, &maxerr, &maxrel, why, sizeof why);
	if (bad)
		snprintf(line, n, "FAIL %s: %d of %u elements wrong; first: %s", op, bad,
			 (unsigned)f->m * f->n, why);
	else
		snprintf(line, n, "PASS %s: largest error %.3g (%.2g of sum|a*b|+|c|)", op,
			 maxerr, maxrel);
	rc = bad ? 1 : 0;
out:
	mmagen_free(ptx);
	free(dmem);
	tile_free(&td);
	return rc;
}

int run_tile(const mmagen_form *f, int t, const struct run_opts *o)
{
	mmart_ctx *ctx;
	char line[512] = "";
	int rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	rc = tile_once(ctx, f, t, o, line, sizeof line);
	if (line[0])
		printf("%s (seed %llu)\n", line, (unsigned long long)o->seed);
	mmart_close(ctx);
	return rc;
}

static int sampled_out(const mmagen_form *f)
{
	if (f->family != MMAGEN_FAM_WGMMA)
		return 0;
	unsigned lo = 8, hi = 256;
	return f->n != lo && f->n != 128 && f->n != hi;
}

int run_tile_all(int t, const mmagen_request *filter, int sample_n,
		 const struct run_opts *o)
{
	mmart_ctx *ctx;
	int passed = 0, failed = 0, skipped = 0;
	char prev[300] = "", key[300], op[256], line[512];
	int rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		mmagen_tile_info ti;
		if (!mmagen_form_on_target(f, t) || (filter && !mmagen_form_matches(filter, f)))
			continue;
		if (sample_n && sampled_out(f))
			continue;
		/* one run per instruction and A source (tcgen05's idesc types
		 * share an opcode: the first stands for them) */
		snprintf(key, sizeof key, "%s|%d", mmagen_form_opcode(f, op, sizeof op), f->asrc);
		if (!strcmp(key, prev))
			continue;
		snprintf(prev, sizeof prev, "%s", key);
		const char *src = f->asrc == MMAGEN_ASRC_REG ? " [A in registers]" :
				  f->asrc == MMAGEN_ASRC_SMEM ? " [A in shared memory]" : "";
		if (mmagen_tile_info_of(f, o->tile, &ti)) {
			printf("SKIP %s%s: %s\n", op, src, mmagen_last_error());
			skipped++;
			continue;
		}
		line[0] = '\0';
		if (tile_once(ctx, f, t, o, line, sizeof line)) {
			failed++;
			if (!line[0])
				snprintf(line, sizeof line, "FAIL %s: could not run", op);
		} else {
			passed++;
		}
		printf("%s%s\n", line, src);
		fflush(stdout);
	}
	mmart_close(ctx);
	printf("\n| target | swizzle | passed | failed | skipped |\n|---|---|---|---|---|\n"
	       "| %s | %u | %d | %d | %d |\n", mmagen_target_name(t),
	       o->tile ? o->tile->swizzle : 128, passed, failed, skipped);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The arch-specific target of the GPU that --device picks ("sm_90a" on an
 * H200), for run/bench without --arch; 77 without a driver or GPU. */
int device_target(const struct run_opts *o, int *t)
{
	mmart_ctx *ctx;
	char name[32];
	int major, minor, rc = open_ctx(o, &ctx);

	if (rc)
		return rc;
	if (mmart_device_info(ctx, &major, &minor, NULL, 0)) {
		mmart_close(ctx);
		return rt_fail("device");
	}
	mmart_close(ctx);
	snprintf(name, sizeof name, "sm_%d%da", major, minor);
	if (!mmagen_target_parse(name, t))
		return 0;
	snprintf(name, sizeof name, "sm_%d%d", major, minor);
	if (!mmagen_target_parse(name, t))
		return 0;
	fprintf(stderr, "mmagen: the GPU is sm_%d%d, which mmagen does not know; give --arch\n",
		major, minor);
	return 1;
}

/* Generation, cold load (no caches) and warm load (our disk cache), as
 * medians of `reps` runs each. */
int bench_load(const mmagen_form *f, int t, const struct run_opts *o)
{
	enum { REPS = 9 };
	double gen[REPS], cold[REPS], warm[REPS];
	char *ptx = NULL;
	char dir[] = "/tmp/mmagen-bench-XXXXXX";
	mmart_ctx *ctx;
	int rc;

	for (int i = 0; i < REPS; i++) {
		double t0 = now_ms();
		mmagen_free(ptx);
		if (mmagen_emit_tile(f, t, o->tile, MMAGEN_FMT_PTX, &ptx, NULL))
			return fail_lib("emit");
		gen[i] = now_ms() - t0;
	}
	if (!mkdtemp(dir))
		return fprintf(stderr, "mmagen: cannot make a temporary cache directory\n"), 1;
	setenv("MMAGEN_CACHE_DIR", dir, 1);
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	for (int i = 0; i < REPS; i++) {
		/* a fresh context each time: the in-process module cache is
		 * per context, so every load below reaches the disk or the JIT */
		mmart_module *mod;
		int hit;
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		setenv("MMAGEN_CACHE", "0", 1);
		double t0 = now_ms();
		if (mmart_load_ptx(ctx, ptx, &mod, &hit))
			return rt_fail("cold load");
		cold[i] = now_ms() - t0;
		mmart_close(ctx);
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		setenv("MMAGEN_CACHE", "1", 1);
		if (i == 0 && mmart_load_ptx(ctx, ptx, &mod, &hit))   /* fill */
			return rt_fail("load");
		mmart_close(ctx);
		if ((rc = open_ctx(o, &ctx)))
			return rc;
		t0 = now_ms();
		if (mmart_load_ptx(ctx, ptx, &mod, &hit))
			return rt_fail("warm load");
		warm[i] = now_ms() - t0;
		if (hit != MMART_CACHE_HIT)
			fprintf(stderr, "mmagen: warning: warm load was not a cache hit (%d)\n", hit);
		mmart_close(ctx);
	}
	qsort(gen, REPS, sizeof *gen, cmp_double);
	qsort(cold, REPS, sizeof *cold, cmp_double);
	qsort(warm, REPS, sizeof *warm, cmp_double);
	char op[256];
	printf("bench load: %s on %s, %zu bytes of PTX, medians of %d\n",
	       mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t), strlen(ptx), REPS);
	printf("| step | median ms | min ms | max ms |\n|---|---|---|---|\n");
	printf("| generate | %.3f | %.3f | %.3f |\n", gen[REPS / 2], gen[0], gen[REPS - 1]);
	printf("| cold load (JIT, no caches) | %.3f | %.3f | %.3f |\n", cold[REPS / 2], cold[0], cold[REPS - 1]);
	printf("| warm load (mmagen disk cache) | %.3f | %.3f | %.3f |\n", warm[REPS / 2], warm[0], warm[REPS - 1]);
	mmagen_free(ptx);
	return 0;
}
