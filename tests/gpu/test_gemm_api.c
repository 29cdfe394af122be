/* test_gemm_api.c - the GEMM library as a user's program sees it: requests
 * through mmagen_jit.h's generator and libmmart's launcher, on shapes as
 * cuBLAS takes them (M = 1, K = 1, odd N, leading dimensions and bases not
 * aligned to 16 bytes, C and D apart with beta != 0), every element of D
 * against a float64 reference, D's padding columns checked untouched.
 *
 *   test_gemm_api [SEED]        exit 0 pass, 1 fail, 77 no sm_90 GPU
 *
 * Inputs are fresh each run (the seed is printed); D and its padding are
 * poisoned (0xFF bytes: NaN for float types) before each launch. */
#include "mmagen_jit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tcase {
	mmagen_type a, b, out;
	unsigned layout;
	uint32_t m, n, k;
	uint32_t pad_a, pad_b, pad_c, pad_d;   /* ld = row + pad */
	uint32_t off;                          /* bases moved by this many elements */
	float alpha, beta;
	unsigned path;                         /* MMAGEN_GEMM_PATH_* */
	int scratch;                           /* 1: the caller's scratch, 0xFF
						* bytes (stale counters included) */
};

static uint64_t rng;
static uint64_t next(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static unsigned eb(mmagen_type t)
{
	return mmagen_type_bits(t) / 8;
}

static uint64_t get(const uint8_t *p, size_t i, unsigned e)
{
	uint64_t v = 0;
	memcpy(&v, p + i * e, e);
	return v;
}

/* a value of t: floats uniform in [-1, 1) (FP8 [-2, 2)), integers over
 * the type's range, never NaN */
static uint64_t draw(mmagen_type t)
{
	double u = (double)(next() >> 11) / 9007199254740992.0 * 2 - 1;
	if (t == MMAGEN_S8)
		return (uint64_t)(uint8_t)(int8_t)((int)(next() % 256) - 128);
	if (t == MMAGEN_U8)
		return next() % 256;
	if (t == MMAGEN_E4M3 || t == MMAGEN_E5M2)
		u *= 2;
	if (t == MMAGEN_TF32)
		return mmagen_type_encode(MMAGEN_F32, u) & ~0x1fffull;
	return mmagen_type_encode(t, u);
}

static double value(mmagen_type t, uint64_t bits)
{
	if (t == MMAGEN_TF32)
		t = MMAGEN_F32;
	if (t == MMAGEN_S8)
		return (double)(int8_t)bits;
	if (t == MMAGEN_U8)
		return (double)(uint8_t)bits;
	if (t == MMAGEN_S32)
		return (double)(int32_t)bits;
	return mmagen_type_decode(t, bits);
}

static int run_case(mmart_ctx *ctx, const struct tcase *c, int *skipped)
{
	int amn = c->layout == MMAGEN_GEMM_NN || c->layout == MMAGEN_GEMM_NT;
	int bmn = c->layout == MMAGEN_GEMM_NT || c->layout == MMAGEN_GEMM_TT;
	unsigned ea = eb(c->a), ebb = eb(c->b), ed = eb(c->out);
	uint64_t lda = (amn ? c->m : c->k) + c->pad_a, ldb = (bmn ? c->n : c->k) + c->pad_b;
	uint64_t ldc = c->n + c->pad_c, ldd = c->n + c->pad_d;
	size_t na = (size_t)lda * (amn ? c->k : c->m), nb = (size_t)ldb * (bmn ? c->k : c->n);
	size_t nc = (size_t)ldc * c->m, nd = (size_t)ldd * c->m;
	uint8_t *ha = malloc(na * ea), *hb = malloc(nb * ebb), *hc = malloc(nc * ed),
		*hd = malloc(nd * ed);
	uint64_t da = 0, db = 0, dc = 0, dd = 0, ds = 0, need = 0;
	mmagen_gemm_request r;
	mmart_gemm *g = NULL;
	mmart_gemm_args args;
	size_t bad = 0, untouched = 0;
	double worst = 0;
	int rc = 1;
	char what[160];

	snprintf(what, sizeof what, "%s x %s -> %s %s %ux%ux%u ld+%u/%u/%u/%u off %u beta %g%s%s",
		 mmagen_type_name(c->a), mmagen_type_name(c->b), mmagen_type_name(c->out),
		 (const char *[]){ "tn", "nn", "nt", "tt" }[c->layout], c->m, c->n, c->k, c->pad_a,
		 c->pad_b, c->pad_c, c->pad_d, c->off, c->beta,
		 c->path == MMAGEN_GEMM_PATH_MMA_SYNC ? " mma.sync" : "",
		 c->scratch ? " scratch" : "");
	if (!ha || !hb || !hc || !hd)
		goto out;
	for (size_t i = 0; i < na; i++) {
		uint64_t v = draw(c->a);
		memcpy(ha + i * ea, &v, ea);
	}
	for (size_t i = 0; i < nb; i++) {
		uint64_t v = draw(c->b);
		memcpy(hb + i * ebb, &v, ebb);
	}
	for (size_t i = 0; i < nc; i++) {
		uint64_t v = c->out == MMAGEN_S32 ? next() % 2001 - 1000 : draw(c->out);
		memcpy(hc + i * ed, &v, ed);
	}
	mmagen_gemm_request_init(&r);
	r.a = c->a;
	r.b = c->b;
	r.out = c->out;
	r.layout = c->layout;
	r.path = c->path;
	mmart_gemm_args_init(&args);
	args.m = c->m;
	args.n = c->n;
	args.k = c->k;
	args.lda = lda;
	args.ldb = ldb;
	args.ldc = ldc;
	args.ldd = ldd;
	args.alpha = c->alpha;
	args.beta = c->beta;
	if (mmart_alloc(ctx, (na + c->off) * ea, &da) || mmart_alloc(ctx, (nb + c->off) * ebb, &db) ||
	    mmart_alloc(ctx, (nc + c->off) * ed, &dc) || mmart_alloc(ctx, (nd + c->off) * ed, &dd) ||
	    mmart_copy_to_device(ctx, da + c->off * ea, ha, na * ea) ||
	    mmart_copy_to_device(ctx, db + c->off * ebb, hb, nb * ebb) ||
	    mmart_copy_to_device(ctx, dc + c->off * ed, hc, nc * ed) ||
	    mmart_memset8(ctx, dd, 0xFF, (nd + c->off) * ed)) {
		printf("FAIL %s: device memory: %s\n", what, mmart_last_error());
		goto out;
	}
	args.a = da + c->off * ea;
	args.b = db + c->off * ebb;
	args.c = dc + c->off * ed;
	args.d = dd + c->off * ed;
	if (c->scratch) {
		/* the caller's scratch, garbage: the launch must zero its
		 * counters itself, and any workspace contents are allowed */
		mmart_gemm_kernel *kk = NULL;
		if (mmart_gemm_create(ctx, mmagen_jit_generate, &r, &g) ||
		    mmart_gemm_kernel_for(g, c->m, c->n, c->k, &kk) ||
		    mmart_gemm_kernel_scratch(kk, &args, &need)) {
			printf("FAIL %s: %s\n", what, mmart_last_error());
			goto out;
		}
		if (!need) {
			printf("FAIL %s: the case needs no scratch: it tests nothing\n", what);
			goto out;
		}
		if (mmart_alloc(ctx, need, &ds) || mmart_memset8(ctx, ds, 0xFF, need)) {
			printf("FAIL %s: device memory: %s\n", what, mmart_last_error());
			goto out;
		}
		args.scratch = ds;
		args.scratch_bytes = need - 1;
		if (!mmart_gemm_launch(g, &args, NULL)) {
			printf("FAIL %s: scratch one byte short was taken\n", what);
			goto out;
		}
		args.scratch_bytes = need;
	}
	if ((!g && mmart_gemm_create(ctx, mmagen_jit_generate, &r, &g)) ||
	    mmart_gemm_launch(g, &args, NULL) || mmart_sync(ctx) ||
	    mmart_copy_to_host(ctx, hd, args.d, nd * ed)) {
		printf("FAIL %s: %s\n", what, mmart_last_error());
		goto out;
	}
	int integer = c->out == MMAGEN_S32;
	/* D's rounding: half an ulp is up to 2^-8 of |x| in bf16, 2^-11 in f16 */
	double out_eps = c->out == MMAGEN_BF16 ? 1.0 / 128 : c->out == MMAGEN_F16 ? 1.0 / 1024 : 1e-6;
	double acc_eps = c->a == MMAGEN_E4M3 || c->a == MMAGEN_E5M2 ? 3e-3 : 1e-5;
	for (uint32_t i = 0; i < c->m; i++)
		for (uint32_t j = 0; j < (uint32_t)ldd; j++) {
			uint64_t got = get(hd, (size_t)i * ldd + j, ed);
			if (j >= c->n) {        /* padding: still the poison */
				untouched += got != (ed == 8 ? ~0ull : (1ull << (8 * ed)) - 1);
				continue;
			}
			double ref = 0, mag = 0;
			int64_t iref = 0;
			for (uint32_t kk = 0; kk < c->k; kk++) {
				double x = value(c->a, get(ha, amn ? (size_t)kk * lda + i : (size_t)i * lda + kk, ea));
				double y = value(c->b, get(hb, bmn ? (size_t)kk * ldb + j : (size_t)j * ldb + kk, ebb));
				ref += x * y;
				mag += fabs(x * y);
				iref += (int64_t)x * (int64_t)y;
			}
			double cv = value(c->out, get(hc, (size_t)i * ldc + j, ed));
			double gv = value(c->out, got);
			if (integer) {
				int64_t want = (int64_t)c->alpha * iref + (int64_t)c->beta * (int64_t)cv;
				bad += (int32_t)(uint32_t)want != (int32_t)gv;
				continue;
			}
			ref = c->alpha * ref + c->beta * cv;
			double tol = acc_eps * (fabs(c->alpha) * mag + fabs(c->beta * cv)) +
				     out_eps * fabs(ref) + 1e-6;
			double err = fabs(gv - ref);
			if (!(err <= tol))
				bad++;
			if (err / tol > worst)
				worst = err / tol;
		}
	mmart_gemm_kernel *k = NULL;
	unsigned grid[3] = { 0 };
	mmart_gemm_kernel_for(g, c->m, c->n, c->k, &k);
	mmart_gemm_kernel_grid(k, &args, grid, NULL);
	printf("%s %s: %zu wrong, %zu padding elements written, worst err/tol %.3f, grid %u x %u x %u"
	       ", scratch %llu bytes\n", bad || untouched ? "FAIL" : "PASS", what, bad, untouched,
	       worst, grid[0], grid[1], grid[2], (unsigned long long)need);
	rc = bad || untouched;
out:
	(void)skipped;
	mmart_gemm_destroy(g);
	mmart_free(ctx, da);
	mmart_free(ctx, db);
	mmart_free(ctx, dc);
	mmart_free(ctx, dd);
	mmart_free(ctx, ds);
	free(ha);
	free(hb);
	free(hc);
	free(hd);
	return rc;
}

/* One handle, many launches: A fixed, a new B at another address each
 * time (its tensor map encoded anew while A's is taken from the cache),
 * on a stream of the caller's, C = 0 with beta = 0; and FP8 D with
 * d_scale.  Every launch's D checked whole. */
#define REUSE 70
static int run_reuse(mmart_ctx *ctx)
{
	const uint32_t m = 96, n = 80, k = 64;
	uint16_t ha[96 * 64], hb[80 * 64];
	uint8_t hd[96 * 80 * 4];
	uint64_t da = 0, db[REUSE] = { 0 }, dd = 0;
	mmagen_gemm_request r, r8;
	mmart_gemm *g = NULL, *g8 = NULL;
	mmart_stream *st = NULL;
	mmart_gemm_args args;
	size_t bad = 0, launches = 0;
	int rc = 1;

	for (size_t i = 0; i < m * k; i++)
		ha[i] = (uint16_t)draw(MMAGEN_BF16);
	mmagen_gemm_request_init(&r);
	r.a = r.b = r.out = MMAGEN_BF16;
	r8 = r;
	r8.out = MMAGEN_E4M3;
	if (mmart_alloc(ctx, sizeof ha, &da) || mmart_copy_to_device(ctx, da, ha, sizeof ha) ||
	    mmart_alloc(ctx, sizeof hd, &dd) || mmart_stream_create(ctx, &st) ||
	    mmart_gemm_create(ctx, mmagen_jit_generate, &r, &g) ||
	    mmart_gemm_create(ctx, mmagen_jit_generate, &r8, &g8)) {
		printf("FAIL reuse: %s\n", mmart_last_error());
		goto out;
	}
	for (int it = 0; it < REUSE + 1; it++) {
		int fp8 = it == REUSE;              /* the last: e4m3 D, d_scale 0.5 */
		mmagen_type out = fp8 ? MMAGEN_E4M3 : MMAGEN_BF16;
		unsigned ed = eb(out);
		int i = fp8 ? 0 : it;
		for (size_t j = 0; j < n * k; j++)
			hb[j] = (uint16_t)draw(MMAGEN_BF16);
		if ((!db[i] && mmart_alloc(ctx, sizeof hb, &db[i])) ||
		    mmart_copy_to_device(ctx, db[i], hb, sizeof hb) ||
		    mmart_memset8(ctx, dd, 0xFF, sizeof hd)) {
			printf("FAIL reuse: %s\n", mmart_last_error());
			goto out;
		}
		mmart_gemm_args_init(&args);
		args.m = m;
		args.n = n;
		args.k = k;
		args.a = da;
		args.b = db[i];
		args.d = dd;                        /* c left 0: beta is 0 */
		args.d_scale = fp8 ? 0.5f : 1.0f;
		if (mmart_gemm_launch(fp8 ? g8 : g, &args, mmart_stream_handle(st)) ||
		    mmart_stream_sync(ctx, st) || mmart_copy_to_host(ctx, hd, dd, (size_t)m * n * ed)) {
			printf("FAIL reuse launch %d: %s\n", it, mmart_last_error());
			goto out;
		}
		launches++;
		for (uint32_t x = 0; x < m; x++)
			for (uint32_t y = 0; y < n; y++) {
				double ref = 0, mag = 0;
				for (uint32_t kk = 0; kk < k; kk++) {
					double p = value(MMAGEN_BF16, ha[x * k + kk]) *
						   value(MMAGEN_BF16, hb[y * k + kk]);
					ref += p;
					mag += fabs(p);
				}
				ref *= args.d_scale;
				/* e4m3 D saturates at +-448 (satfinite) */
				if (fp8)
					ref = ref > 448 ? 448 : ref < -448 ? -448 : ref;
				double got = value(out, get(hd, (size_t)x * n + y, ed));
				/* e4m3: half an ulp is up to 2^-4 of |x|, and 2^-10
				 * below its smallest normal (subnormal steps 2^-9) */
				double tol = 1e-5 * mag + fabs(ref) * (fp8 ? 1.0 / 16 : 1.0 / 128) +
					     (fp8 ? 1.0 / 1024 : 1e-6);
				bad += !(fabs(got - ref) <= tol);
			}
	}
	printf("%s reuse: %zu launches of one kernel (A's map cached, %d new B), then e4m3 D with d_scale 0.5, on a stream of its own: %zu elements wrong\n",
	       bad ? "FAIL" : "PASS", launches, REUSE, bad);
	rc = bad != 0;
out:
	mmart_gemm_destroy(g);
	mmart_gemm_destroy(g8);
	mmart_stream_destroy(ctx, st);
	mmart_free(ctx, da);
	mmart_free(ctx, dd);
	for (int i = 0; i < REUSE; i++)
		mmart_free(ctx, db[i]);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct tcase cases[] = {
		/* aligned, dense: the fast path untouched */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 512, 384, 256, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 300, 200, 512, 0, 0, 0, 0, 0, 0.5f, 1, 0, 0 },
		/* M = 1, K = 1, odd N, N = 1 */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 1, 257, 64, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 100, 64, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, 0, 77, 1, 40, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		/* leading dimensions not multiples of 8, odd ldd, beta != 0 */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 129, 255, 100, 3, 5, 1, 2, 0, 1, 1, 0, 0 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, 0, 200, 131, 333, 1, 0, 0, 3, 0, 2, -1, 0, 0 },
		/* bases off 16-byte alignment by one element */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 256, 256, 256, 0, 0, 0, 0, 1, 1, 0.5f, 0, 0 },
		/* MN-major A and B */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, MMAGEN_GEMM_NN, 130, 70, 99, 1, 1, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_NT, 65, 129, 64, 0, 0, 0, 1, 0, 1, 0, 0, 0 },
		/* FP8, tf32, integers */
		{ MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 0, 512, 2048, 1024, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F32, 0, 33, 99, 77, 0, 0, 0, 1, 0, 1, 1, 0, 0 },
		{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 0, 100, 50, 13, 0, 1, 0, 0, 0, 1, 0, 0, 0 },
		/* D's rows 16-byte aligned, N not a multiple of 16 bytes (TMA store or not) */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 200, 97, 64, 0, 0, 0, 3, 0, 1, 0, 0, 0 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 200, 100, 64, 0, 0, 0, 4, 0, 1, 0, 0, 0 },
		{ MMAGEN_S8, MMAGEN_S8, MMAGEN_S32, 0, 70, 33, 129, 0, 0, 0, 1, 0, 1, 1, 0, 0 },
		/* the mma.sync path: K padded to its 16-byte chunks */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 100, 101, 77, 0, 0, 0, 0, 0, 1, 0,
		  MMAGEN_GEMM_PATH_MMA_SYNC, 0 },
		{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 0, 64, 40, 50, 1, 0, 0, 0, 0, 1, 0,
		  MMAGEN_GEMM_PATH_MMA_SYNC, 0 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, MMAGEN_GEMM_NN, 13, 9, 21, 0, 0, 0, 0, 0, 1, 0,
		  MMAGEN_GEMM_PATH_MMA_SYNC, 0 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, MMAGEN_GEMM_NT, 30, 17, 40, 3, 0, 1, 1, 0, 1, 1,
		  MMAGEN_GEMM_PATH_MMA_SYNC, 0 },
		/* large enough for split-K or several waves */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 64, 1024, 8192, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		/* the caller's scratch: split-K counters and workspace, staging */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 64, 1024, 8192, 0, 0, 0, 0, 0, 1, 0, 0, 1 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 32, 1024, 8192, 0, 0, 3, 0, 0, 1, 1, 0, 1 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 256, 256, 256, 0, 0, 0, 0, 1, 1, 0.5f, 0, 1 },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 100, 101, 77, 3, 0, 0, 0, 0, 1, 0,
		  MMAGEN_GEMM_PATH_MMA_SYNC, 1 },
	};
	mmart_ctx *ctx;
	int major = 0, minor = 0, fails = 0, skipped = 0;

	rng = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
	printf("seed %llu\n", (unsigned long long)rng);
	mmart_status st = mmart_open(-1, &ctx);
	if (st == MMART_NO_DRIVER || st == MMART_NO_DEVICE)
		return printf("skipped: %s\n", mmart_last_error()), 77;
	if (st || mmart_device_info(ctx, &major, &minor, NULL, 0))
		return printf("FAIL: %s\n", mmart_last_error()), 1;
	if (major != 9) {
		mmart_close(ctx);
		return printf("skipped: the cases are sm_90a's (this GPU is sm_%d%d)\n", major, minor), 77;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		fails += run_case(ctx, &cases[i], &skipped);
	fails += run_reuse(ctx);
	mmart_close(ctx);
	printf("%d of %zu cases failed\n", fails, sizeof cases / sizeof cases[0] + 1);
	return fails ? 1 : 0;
}
