/* run_gemm_sm120.c - the CPU side of `run gemm` for the sm_120a GEMM
 * (block-scaled mma.sync, kernel_gemm_sm120.c): the problem's rules, the
 * operands in the kernel's containers and scale layout (run_gemm.h), the
 * exact reference, its tolerance, the check and --save.  No GPU here:
 * tests/unit/test_gemm_sm120.c replays the kernel's loads on buffers made
 * by this file and compares with rg120_reference. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAD 0xFFu            /* scale padding: NaN in ue8m0 and ue4m3 */
#define ELEM_MAX 8.0         /* |A|, |B| <= 8 */

/* ---- the decode table ----
 * From the OCP Microscaling Formats (MX) v1.0 spec, 5.3 (FP8, FP6, FP4
 * elements; E8M0 scales), and the PTX ISA (ue4m3: e4m3 without its sign
 * bit, the scales of kind::mxf4nvf4):
 *   type   sign exp mant bias  special codes
 *   e4m3   1    4   3    7     S.1111.111 NaN; no Inf (max 448)
 *   e5m2   1    5   2    15    exponent 11111: Inf (mantissa 0), else NaN
 *   e3m2   1    3   2    3     none (max 28)
 *   e2m3   1    2   3    1     none (max 7.5)
 *   e2m1   1    2   1    1     none (max 6)
 *   ue8m0  0    8   0    127   0xFF NaN; 2^(code - 127), no zero
 *   ue4m3  0    4   3    7     0x7F NaN; a set bit 7 is not a code
 * Exponent field 0: subnormal, mant / 2^mbits * 2^(1 - bias). */
struct mini {
	mmagen_type t;
	unsigned sign, exp, mant, bias;
	char special;            /* 'n': all ones NaN, 'i': IEEE, 'z': ue8m0, 0 none */
};

static const struct mini minis[] = {
	{ MMAGEN_E4M3, 1, 4, 3, 7, 'n' },
	{ MMAGEN_E5M2, 1, 5, 2, 15, 'i' },
	{ MMAGEN_E3M2, 1, 3, 2, 3, 0 },
	{ MMAGEN_E2M3, 1, 2, 3, 1, 0 },
	{ MMAGEN_E2M1, 1, 2, 1, 1, 0 },
	{ MMAGEN_UE8M0, 0, 8, 0, 127, 'z' },
	{ MMAGEN_UE4M3, 0, 4, 3, 7, 'n' },
};

static double mini_value(const struct mini *f, unsigned code)
{
	unsigned width = f->sign + f->exp + f->mant;
	unsigned mag = code & ((1u << (f->exp + f->mant)) - 1);
	unsigned e = mag >> f->mant, m = mag & ((1u << f->mant) - 1);
	double s = f->sign && code >> (width - 1) & 1 ? -1.0 : 1.0;

	if (code >> width)
		return NAN;
	if (f->special == 'z')
		return code == 0xFF ? NAN : ldexp(1.0, (int)code - 127);
	if (f->special == 'n' && mag == (1u << (f->exp + f->mant)) - 1)
		return NAN;
	if (f->special == 'i' && e == (1u << f->exp) - 1)
		return m ? NAN : s * INFINITY;
	if (e == 0)
		return s * ldexp((double)m, 1 - (int)f->bias - (int)f->mant);
	return s * ldexp((double)((1u << f->mant) | m), (int)e - (int)f->bias - (int)f->mant);
}

double rg120_decode(mmagen_type t, unsigned code)
{
	static double table[sizeof minis / sizeof minis[0]][256];
	static int done;
	if (!done) {             /* idempotent: a race writes the same values */
		for (size_t i = 0; i < sizeof minis / sizeof minis[0]; i++)
			for (unsigned c = 0; c < 256; c++)
				table[i][c] = mini_value(&minis[i], c);
		done = 1;
	}
	for (size_t i = 0; i < sizeof minis / sizeof minis[0]; i++)
		if (minis[i].t == t)
			return code < 256 ? table[i][code] : NAN;
	return NAN;
}

/* ---- the problem ---- */
static uint32_t round_up(uint32_t x, uint32_t to)
{
	return (x + to - 1) / to * to;
}

/* The rules: lda = K elements must be 16 bytes of them (the cp.async
 * chunks), K a whole number of scale blocks (each scale covers `block`
 * elements, as quantize writes them), N even (the epilogue's pairs). */
int rg120_problem_of(struct rg120_problem *p, const mmagen_gemm_request *r,
		     const mmagen_gemm_info *info, uint32_t m, uint32_t n, uint32_t k,
		     float alpha, float beta, uint64_t seed)
{
	const uint32_t dims[3] = { m, n, k };
	memset(p, 0, sizeof *p);
	p->a = r->a;
	p->b = r->b;
	p->out = r->out;
	p->stype = info->stype;
	p->bits = info->elem_bits_a;
	p->block = info->scale_block;
	p->m = m, p->n = n, p->k = k;
	p->alpha = alpha, p->beta = beta, p->seed = seed;
	if ((p->bits != 8 && p->bits != 4) || info->elem_bits_b != p->bits ||
	    (p->block && (p->stype != MMAGEN_UE8M0 && p->stype != MMAGEN_UE4M3)) ||
	    (p->block && info->tile_k % p->block))
		return rg_fail("the manifest has %u/%u-bit containers, scale type %s per %u: not a layout this runner knows",
			       info->elem_bits_a, info->elem_bits_b, mmagen_type_name(p->stype),
			       p->block);
	p->spb = p->block ? info->tile_k / p->block : 0;
	for (int i = 0; i < 3; i++)
		if (dims[i] < 1 || dims[i] > INT32_MAX)
			return rg_fail("%c = %u: M, N and K are 1 to 2^31-1 (the kernel counts them in 32 bits)",
				       "MNK"[i], dims[i]);
	uint32_t per16 = 128 / p->bits, kmul = p->block > per16 ? p->block : per16;
	if (k % kmul) {
		uint32_t lo = k / kmul * kmul, hi = lo + kmul;
		char why[96];
		if (p->block)
			snprintf(why, sizeof why, "whole scale blocks of %u and rows of whole 16-byte chunks",
				 p->block);
		else
			snprintf(why, sizeof why, "rows of whole 16-byte chunks, %u elements", per16);
		if (lo)
			return rg_fail("K = %u: the sm_120a GEMM needs K a multiple of %u (%s); use K = %u or %u",
				       k, kmul, why, lo, hi);
		return rg_fail("K = %u: the sm_120a GEMM needs K a multiple of %u (%s); use K = %u",
			       k, kmul, why, hi);
	}
	if (n % 2)
		return n > 1 ? rg_fail("D: ldd = N = %u is odd; the epilogue stores pairs of elements, so ldd (and ldc) must be even: use N = %u or %u",
				       n, n - 1, n + 1)
			     : rg_fail("D: ldd = N = 1 is odd; the epilogue stores pairs of elements, so ldd (and ldc) must be even: use N = 2");
	p->lda = p->ldb = k;
	if (p->block)
		p->ldsa = p->ldsb = round_up(k / p->block, p->spb);
	/* every operand below 2^47 bytes (past any GPU's memory): sizes stay
	 * far from wrapping and the allocation fails cleanly */
	const enum rg120_operand ops[3] = { RG120_A, RG120_B, RG120_D };
	for (int i = 0; i < 3; i++)
		if (rg120_bytes(p, ops[i]) >= (1ull << 47))
			return rg_fail("%c would take %llu bytes; at most 2^47: use a smaller problem",
				       "ABD"[i], (unsigned long long)rg120_bytes(p, ops[i]));
	return 0;
}

size_t rg120_bytes(const struct rg120_problem *p, enum rg120_operand which)
{
	unsigned ob = mmagen_type_bits(p->out) / 8;
	switch (which) {
	/* rows times row bytes: m * lda * bits would wrap past 2^64 */
	case RG120_A: return (size_t)p->m * ((size_t)p->lda * p->bits / 8);
	case RG120_B: return (size_t)p->n * ((size_t)p->ldb * p->bits / 8);
	case RG120_SA: return (size_t)p->m * p->ldsa;
	case RG120_SB: return (size_t)p->n * p->ldsb;
	default: return (size_t)p->m * p->n * ob;
	}
}

/* ---- the layout ---- */
void rg120_put(const struct rg120_problem *p, enum rg120_operand which, uint8_t *buf,
	       uint32_t row, uint32_t kk, unsigned code)
{
	mmagen_type t = which == RG120_A ? p->a : p->b;
	size_t ld = which == RG120_A ? p->lda : p->ldb;
	assert(which == RG120_A || which == RG120_B);
	if (p->bits == 8) {
		buf[row * ld + kk] = (uint8_t)(t == MMAGEN_E2M1 ? code << 2 : code);
		return;
	}
	uint8_t *q = buf + (row * ld + kk) / 2;
	*q = kk % 2 ? (uint8_t)((*q & 0x0F) | code << 4) : (uint8_t)((*q & 0xF0) | code);
}

unsigned rg120_get(const struct rg120_problem *p, enum rg120_operand which, const uint8_t *buf,
		   uint32_t row, uint32_t kk)
{
	mmagen_type t = which == RG120_A ? p->a : p->b;
	size_t ld = which == RG120_A ? p->lda : p->ldb;
	assert(which == RG120_A || which == RG120_B);
	if (p->bits == 8) {
		unsigned v = buf[row * ld + kk];
		/* a bit outside the element: no code (256 decodes to NaN) */
		if (t == MMAGEN_E2M1)
			return v & 0xC3 ? 256 : v >> 2;
		return v >> mmagen_type_bits(t) ? 256 : v;
	}
	unsigned v = buf[(row * ld + kk) / 2];
	return kk % 2 ? v >> 4 : v & 0x0F;
}

size_t rg120_scale_at(const struct rg120_problem *p, enum rg120_operand which, uint32_t row,
		      uint32_t s)
{
	assert(which == RG120_SA || which == RG120_SB);
	return (size_t)row * (which == RG120_SA ? p->ldsa : p->ldsb) + s;
}

/* ---- random operands ----
 * Elements: a code drawn uniformly among those whose value is finite,
 * non-zero and at most ELEM_MAX in magnitude (every e2m1 and e2m3 value;
 * the others' subnormals and small normals).  Scales: ue8m0 2^-3 .. 2^3,
 * ue4m3 0.125 .. 7.5.  |each term| <= 8 * 8 * 8 * 8 = 4096, so a sum
 * over K < 2^31 stays below 2^43: finite in f32. */
static unsigned pick_codes(mmagen_type t, unsigned *codes)
{
	unsigned n = 0, width = mmagen_type_bits(t);
	for (unsigned c = 0; c < 1u << width; c++) {
		double v = rg120_decode(t, c);
		if (isfinite(v) && v != 0 && fabs(v) <= ELEM_MAX)
			codes[n++] = c;
	}
	return n;
}

static void fill_operand(const struct rg120_problem *p, enum rg120_operand which, uint8_t *buf)
{
	mmagen_type t = which == RG120_A ? p->a : p->b;
	uint32_t rows = which == RG120_A ? p->m : p->n;
	uint64_t s = p->seed ^ (which == RG120_A ? 0x41ull : 0x42ull) << 56;
	unsigned codes[256], n = pick_codes(t, codes);
	assert(n > 0);
	memset(buf, 0, rg120_bytes(p, which));
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t kk = 0; kk < p->k; kk++)
			rg120_put(p, which, buf, r, kk, codes[rg_next(&s) % n]);
}

static void fill_scales(const struct rg120_problem *p, enum rg120_operand which, uint8_t *buf)
{
	uint32_t rows = which == RG120_SA ? p->m : p->n, nsc = p->k / p->block;
	uint64_t s = p->seed ^ (which == RG120_SA ? 0x53ull : 0x54ull) << 56;
	memset(buf, PAD, rg120_bytes(p, which));
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t x = 0; x < nsc; x++) {
			uint64_t v = rg_next(&s);
			/* ue8m0 124..130: 2^-3..2^3; ue4m3 0x20..0x4F: 0.125..7.5 */
			buf[rg120_scale_at(p, which, r, x)] =
				(uint8_t)(p->stype == MMAGEN_UE8M0 ? 124 + v % 7 : 0x20 + v % 0x30);
		}
}

int rg120_alloc(struct rg120_data *d)
{
	const struct rg120_problem *p = &d->p;
	size_t cb = rg120_bytes(p, RG120_C);
	d->a = malloc(rg120_bytes(p, RG120_A));
	d->b = malloc(rg120_bytes(p, RG120_B));
	d->sa = malloc(p->block ? rg120_bytes(p, RG120_SA) : 1);
	d->sb = malloc(p->block ? rg120_bytes(p, RG120_SB) : 1);
	d->c = malloc(cb);
	d->d = calloc(1, cb);
	if (!d->a || !d->b || !d->sa || !d->sb || !d->c || !d->d) {
		rg120_data_free(d);
		return rg_fail("out of memory for the operands (%zu + %zu bytes of A and B, %zu of C and D each)",
			       rg120_bytes(p, RG120_A), rg120_bytes(p, RG120_B), cb);
	}
	return 0;
}

void rg120_fill(struct rg120_data *d)
{
	const struct rg120_problem *p = &d->p;
	fill_operand(p, RG120_A, d->a);
	fill_operand(p, RG120_B, d->b);
	if (p->block) {
		fill_scales(p, RG120_SA, d->sa);
		fill_scales(p, RG120_SB, d->sb);
	}
	rg_fill(p->out, p->seed, 'C', d->c, (size_t)p->m * p->n);
}

void rg120_data_free(struct rg120_data *d)
{
	free(d->a);
	free(d->b);
	free(d->sa);
	free(d->sb);
	free(d->c);
	free(d->d);
	d->a = d->b = d->sa = d->sb = NULL;
	d->c = d->d = NULL;
}

/* ---- the reference ----
 * Each term (sa a)(sb b) is exact in double (at most 4 + 4 + 4 + 4
 * significant bits); the sum is compensated (TwoSum), so the reference
 * is the exact value to within one rounding of double. */
double rg120_reference(const struct rg120_data *d, uint32_t i, uint32_t j, double *sum_abs,
		       double *cval)
{
	const struct rg120_problem *p = &d->p;
	double sum = 0, comp = 0, mag = 0, scale = 1;

	for (uint32_t kk = 0; kk < p->k; kk++) {
		if (p->block && kk % p->block == 0)
			scale = rg120_decode(p->stype, d->sa[rg120_scale_at(p, RG120_SA, i, kk / p->block)]) *
				rg120_decode(p->stype, d->sb[rg120_scale_at(p, RG120_SB, j, kk / p->block)]);
		double x = rg120_decode(p->a, rg120_get(p, RG120_A, d->a, i, kk)) *
			   rg120_decode(p->b, rg120_get(p, RG120_B, d->b, j, kk)) * scale;
		double t = sum + x, bb = t - sum;
		comp += (sum - (t - bb)) + (x - bb);
		sum = t;
		mag += fabs(x);
	}
	*sum_abs = mag;
	*cval = p->beta != 0 ? rg_value(p->out, d->c, (size_t)i * p->n + j) : 0.0;
	return (double)p->alpha * (sum + comp) + (double)p->beta * *cval;
}

/* The kernel's accumulation: mma.sync adds each instruction's scaled
 * products (32 or 64 of K) into the f32 accumulator.  How precisely one
 * instruction sums them inside is not documented and has not been
 * measured on SM120 (no GPU is lent); rg_tolerance's FP8 bound is used,
 * RG_FP8_ACC * sum|terms| for the instruction's partial sums (measured
 * for Hopper's FP8 wgmma) plus one f32 rounding per addition, then the
 * alpha/beta epilogue in f32 and the rounding into D's type. */
double rg120_tolerance(const struct rg120_problem *p, double sum_abs, double cval, double ref)
{
	struct rg_problem q = { .a = MMAGEN_E4M3, .b = MMAGEN_E4M3, .out = p->out, .m = p->m,
				.n = p->n, .k = p->k, .alpha = p->alpha, .beta = p->beta,
				.d_scale = 1 };
	return rg_tolerance(&q, sum_abs, cval, ref);
}

int rg120_verify(const struct rg120_data *d, struct rg_verdict *r)
{
	const struct rg120_problem *p = &d->p;
	struct rg_problem q = { .a = p->a, .b = p->b, .out = p->out, .m = p->m, .n = p->n,
				.k = p->k, .seed = p->seed };
	double max = mmagen_type_max(p->out), inf_at = max + rg_half_ulp(p->out, max);
	size_t *idx, count;

	memset(r, 0, sizeof *r);
	if (rg_sample(&q, p->seed, &idx, &count))
		return -1;
	for (size_t s = 0; s < count; s++) {
		size_t at = idx ? idx[s] : s;
		uint32_t i = (uint32_t)(at / p->n), j = (uint32_t)(at % p->n);
		double sa, c, ref = rg120_reference(d, i, j, &sa, &c);
		double tol = rg120_tolerance(p, sa, c, ref);
		rg_verdict_add(r, i, j, rg_value(p->out, d->d, at), ref, tol, inf_at);
	}
	free(idx);
	return 0;
}

/* ---- --save ---- */
static int save_one(const char *dir, const char *name, const void *data, size_t n)
{
	char path[4200];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return rg_fail("--save %s: the path is too long", dir);
	if (mmagen_write_file(path, data, n))
		return rg_fail("--save: %s", mmagen_last_error());
	return 0;
}

static const char *container(const struct rg120_problem *p, mmagen_type t)
{
	if (p->bits == 4)
		return "packed two per byte, element 2i in the low nibble";
	if (t == MMAGEN_E2M1)
		return "one byte per element, the code in bits 2..5, other bits zero";
	if (mmagen_type_bits(t) == 6)
		return "one byte per element, the code in bits 0..5, bits 6..7 zero";
	return "one byte per element";
}

int rg120_save(const char *dir, const struct rg120_data *d, const char *instruction)
{
	const struct rg120_problem *p = &d->p;
	char json[4096];
	int len;

	if (rg_save_begin(dir, p->block != 0))
		return -1;
	if (save_one(dir, "A.bin", d->a, rg120_bytes(p, RG120_A)) ||
	    save_one(dir, "B.bin", d->b, rg120_bytes(p, RG120_B)) ||
	    (p->block && (save_one(dir, "SA.bin", d->sa, rg120_bytes(p, RG120_SA)) ||
			  save_one(dir, "SB.bin", d->sb, rg120_bytes(p, RG120_SB)))) ||
	    save_one(dir, "C.bin", d->c, rg120_bytes(p, RG120_C)) ||
	    save_one(dir, "D.bin", d->d, rg120_bytes(p, RG120_D)))
		return -1;
	len = snprintf(json, sizeof json,
		"{\n  \"format\": \"mmagen gemm operands sm120\",\n  \"version\": 1,\n"
		"  \"instruction\": \"%s\",\n  \"layout\": \"tn\",\n"
		"  \"m\": %u, \"n\": %u, \"k\": %u,\n  \"alpha\": %.9g, \"beta\": %.9g,\n"
		"  \"seed\": %llu,\n  \"operands\": {\n",
		instruction, p->m, p->n, p->k, (double)p->alpha, (double)p->beta,
		(unsigned long long)p->seed);
	for (int op = 0; op < 2; op++)
		len += snprintf(json + len, sizeof json - (size_t)len,
			"    \"%c\": {\"file\": \"%c.bin\", \"type\": \"%s\", \"rows\": %u, \"k\": %u, "
			"\"row_bytes\": %zu, \"container\": \"%s\", \"what\": \"%s\"},\n",
			"AB"[op], "AB"[op], mmagen_type_name(op ? p->b : p->a), op ? p->n : p->m, p->k,
			(size_t)p->k * p->bits / 8, container(p, op ? p->b : p->a),
			op ? "B, N rows of K (K-major): column j of the product" : "A, M rows of K (K-major)");
	if (p->block)
		for (int op = 0; op < 2; op++)
			len += snprintf(json + len, sizeof json - (size_t)len,
				"    \"S%c\": {\"file\": \"S%c.bin\", \"type\": \"%s\", \"rows\": %u, "
				"\"row_bytes\": %u, \"scale_block\": %u, \"scales_per_row\": %u, "
				"\"what\": \"byte s of row r scales elements s*%u .. s*%u+%u of row r of %c; bytes past scales_per_row are padding (0xff)\"},\n",
				"AB"[op], "AB"[op], mmagen_type_name(p->stype), op ? p->n : p->m,
				op ? p->ldsb : p->ldsa, p->block, p->k / p->block, p->block, p->block,
				p->block - 1, "AB"[op]);
	for (int op = 0; op < 2; op++)
		len += snprintf(json + len, sizeof json - (size_t)len,
			"    \"%c\": {\"file\": \"%c.bin\", \"type\": \"%s\", \"shape\": [%u, %u], "
			"\"order\": \"row-major\", \"what\": \"%s\"}%s\n",
			"CD"[op], "CD"[op], mmagen_type_name(p->out), p->m, p->n,
			op ? "D = alpha * sum_k (sa a)(sb b) + beta * C as the kernel wrote it"
			   : "C (not read when beta is 0)", op ? "" : ",");
	len += snprintf(json + len, sizeof json - (size_t)len, "  }\n}\n");
	if ((size_t)len >= sizeof json)
		return rg_fail("--save: the description does not fit %zu bytes", sizeof json);
	return save_one(dir, "gemm.json", json, (size_t)len);
}
