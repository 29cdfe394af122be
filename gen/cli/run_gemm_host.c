/* run_gemm_host.c - the CPU side of `run gemm`: the problem's rules, random
 * inputs, the exact reference and its tolerance, the sample of checked
 * elements and the comparison.  The operands on disk (save/load) are in
 * run_gemm_save.c, the tuned-choice records in run_gemm_tune_file.c.  No
 * GPU here: the unit tests (tests/unit/test_run_gemm.c) reach all of it. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors: one line, kept for the caller ---- */
static char err_line[1024];

const char *rg_error(void)
{
	return err_line;
}

int rg_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_line, sizeof err_line, fmt, ap);
	va_end(ap);
	/* one line whatever it quotes (a --load description's strings, a
	 * path): control characters shown as '?' */
	for (char *c = err_line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* ---- sizes and rules ---- */
enum rg_class rg_class_of(mmagen_type a)
{
	switch (a) {
	case MMAGEN_E4M3:
	case MMAGEN_E5M2:
		return RG_FP8;
	case MMAGEN_S8:
	case MMAGEN_U8:
	case MMAGEN_S4:
	case MMAGEN_U4:
		return RG_INT;
	default:
		return RG_F32ACC;
	}
}

unsigned rg_elem_bits(mmagen_type t)
{
	return mmagen_type_bits(t);
}

unsigned rg_elem_bytes(mmagen_type t)
{
	return mmagen_type_bits(t) / 8;
}

/* count elements of `bits` each, packed: 4-bit ones two to a byte
 * (count * bits would wrap at M = K = 2^30: divide first) */
static size_t packed_bytes(size_t count, unsigned bits)
{
	return bits == 4 ? count / 2 + count % 2 : count * (bits / 8);
}

size_t rg_bytes(const struct rg_problem *p, char operand)
{
	switch (operand) {
	case 'A': return packed_bytes((size_t)p->m * p->k, rg_elem_bits(p->a));
	case 'B': return packed_bytes((size_t)p->n * p->k, rg_elem_bits(p->b));
	default:  return packed_bytes((size_t)p->m * p->n, rg_elem_bits(p->out));
	}
}

/* The kernel counts M, N, K in 32-bit registers and rounds them up to
 * whole tiles, so they stay below 2^31.  4-bit operands are read as
 * stored (K-major, rows of whole 16-byte chunks); libmmart's launcher
 * stages every other operand the kernel cannot read in place. */
int rg_check_problem(const struct rg_problem *p)
{
	static const char names[2] = { 'A', 'B' };
	const mmagen_type types[2] = { p->a, p->b };
	const uint32_t dims[3] = { p->m, p->n, p->k };

	for (int i = 0; i < 3; i++)
		if (dims[i] < 1 || dims[i] > INT32_MAX)
			return rg_fail("%c = %u: M, N and K are 1 to 2^31-1 (the kernel counts them in 32 bits)",
				       "MNK"[i], dims[i]);
	/* every operand's bytes below 2^47 (128 TiB, past any GPU's memory):
	 * the sizes stay far from wrapping and the allocation fails cleanly */
	for (int i = 0; i < 3; i++) {
		const uint64_t limit = 1ull << 47;
		uint64_t rows = i == 1 ? p->n : p->m, cols = i == 2 ? p->n : p->k;
		unsigned bits = rg_elem_bits(i == 0 ? p->a : i == 1 ? p->b : p->out);
		uint64_t bytes = bits == 4 ? (rows * cols + 1) / 2 : rows * cols * (bits / 8);
		if (bytes >= limit)
			return rg_fail("%c would take %llu bytes (%llu x %llu elements); at most 2^47: use a smaller problem",
				       "ABD"[i], (unsigned long long)bytes, (unsigned long long)rows,
				       (unsigned long long)cols);
	}
	for (int i = 0; i < 2; i++) {
		unsigned bits = rg_elem_bits(types[i]);
		if (bits == 4 && (i ? p->b_mn : p->a_mn))
			return rg_fail("%c: %s is read K-major only (ldmatrix .trans moves 16-bit elements): use layout tn",
				       names[i], mmagen_type_name(types[i]));
		if (bits == 4 && p->k % 32) {
			/* the mma.sync kernel copies 16-byte chunks of 32
			 * elements; a row is K / 2 bytes */
			uint32_t lo = p->k / 32 * 32, hi = lo + 32;
			if (lo)
				return rg_fail("%c: %s packs two elements a byte, so a row is K / 2 bytes, which must be a multiple of 16 (the kernel copies 16-byte chunks); K must be a multiple of 32: use K = %u or %u",
					       names[i], mmagen_type_name(types[i]), lo, hi);
			return rg_fail("%c: %s packs two elements a byte, so a row is K / 2 bytes, which must be a multiple of 16 (the kernel copies 16-byte chunks); K must be a multiple of 32: use K = %u",
				       names[i], mmagen_type_name(types[i]), hi);
		}
	}
	/* fp8-block: the kernel indexes scales in 32 bits (the launcher's
	 * rule: the last index below 2^32) */
	if (p->block_scale) {
		uint64_t kb = ((uint64_t)p->k + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK;
		uint64_t nb = ((uint64_t)p->n + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK;
		if ((uint64_t)p->m * kb > 0xffffffffu || nb * kb > 0xffffffffu)
			return rg_fail("--quant fp8-block: A's %llu scales (M x ceil(K / 128)) pass 2^32, the kernel's 32-bit index; use a smaller M or K",
				       (unsigned long long)((uint64_t)p->m * kb));
	}
	/* Anything else the kernel cannot read as stored (a row pitch not a
	 * multiple of 16 bytes, K not a multiple of the mma.sync path's
	 * 16-byte chunks, odd ldd/ldc) libmmart's launcher stages through
	 * aligned buffers: no rule of its own here. */
	return 0;
}

/* ---- random inputs ---- */
uint64_t rg_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void put_le(void *buf, size_t i, unsigned bytes, uint64_t v)
{
	uint8_t *p = (uint8_t *)buf + i * bytes;
	for (unsigned b = 0; b < bytes; b++)
		p[b] = (uint8_t)(v >> (8 * b));
}

static uint64_t get_le(const void *buf, size_t i, unsigned bytes)
{
	const uint8_t *p = (const uint8_t *)buf + i * bytes;
	uint64_t v = 0;
	for (unsigned b = 0; b < bytes; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

/* Element i of a buffer of `bits`-bit elements.  4-bit ones (s4, u4) are
 * packed two to a byte, element 2j in the low nibble of byte j and 2j + 1
 * in the high one.  That is where mma.sync reads them: the PTX ISA's
 * fragments for mma.m16n8k64 .s4/.u4 ("Matrix fragments for
 * mma.m16n8k64") give each .b32 register eight consecutive K elements
 * a0..a7 of one row, a_i in bits 4i..4i+3, and ldmatrix/ld move the
 * row's bytes into the register little-endian, so element 2j of a row
 * is the low nibble of its byte j (tests/unit/test_gemm_sm80_replay.c's
 * put() and exec_mma() restate this independently).  That replay also
 * runs the kernel's PTX on buffers made by rg_fill_inputs; the nibble
 * order itself cannot show in D there (A and B share it: a swap only
 * permutes K), so test_run_gemm checks it against a table by hand. */
static void put_elem(void *buf, size_t i, unsigned bits, uint64_t v)
{
	if (bits == 4) {
		uint8_t *p = (uint8_t *)buf + i / 2;
		unsigned sh = 4 * (unsigned)(i % 2);
		*p = (uint8_t)((*p & ~(0xFu << sh)) | (unsigned)(v & 0xF) << sh);
		return;
	}
	put_le(buf, i, bits / 8, v);
}

static uint64_t get_elem(const void *buf, size_t i, unsigned bits)
{
	if (bits == 4)
		return ((const uint8_t *)buf)[i / 2] >> 4 * (i % 2) & 0xF;
	return get_le(buf, i, bits / 8);
}

void rg_put_bits(mmagen_type t, void *buf, size_t i, uint64_t bits)
{
	put_elem(buf, i, rg_elem_bits(t), bits);
}

/* The value of every pattern of an 8- or 16-bit type, made on first use
 * from the library's decoder; NULL when out of memory. */
static const double *table_small(mmagen_type t)
{
	static double *tab[MMAGEN_TYPE_COUNT];
	unsigned bits = mmagen_type_bits(t);
	assert(bits == 8 || bits == 16);
	if (!tab[t]) {
		double *v = malloc(((size_t)1 << bits) * sizeof *v);
		if (!v)
			return NULL;
		for (uint32_t i = 0; i < 1u << bits; i++)
			v[i] = mmagen_type_decode(t, i);
		tab[t] = v;
	}
	return tab[t];
}

static int is_small(mmagen_type t)
{
	return rg_elem_bits(t) == 8 || rg_elem_bits(t) == 16;
}

/* The 32-bit types by hand (mmagen_type_decode is about 100 ns); the
 * unit test compares these with it.  tf32 ignores its low 13 bits, as
 * the tensor cores do. */
double rg_value(mmagen_type t, const void *buf, size_t i)
{
	unsigned width = rg_elem_bits(t);
	uint64_t bits = get_elem(buf, i, width);
	const double *tab = is_small(t) ? table_small(t) : NULL;
	float f;

	if (width == 4)      /* s4: two's complement, 8..15 are -8..-1 */
		return t == MMAGEN_S4 ? (double)(int)(bits ^ 8) - 8 : (double)bits;
	if (tab)
		return tab[bits];
	if (t == MMAGEN_F32 || t == MMAGEN_TF32) {
		uint32_t u = (uint32_t)bits & (t == MMAGEN_TF32 ? ~0x1FFFu : ~0u);
		memcpy(&f, &u, sizeof f);
		return f;
	}
	if (t == MMAGEN_S32)
		return (double)bits - (bits >> 31 ? 0x1p32 : 0.0);
	return mmagen_type_decode(t, bits);
}

/* Round-to-nearest-even of a float into bf16, f16, f32 or tf32, by hand: the
 * library's mmagen_type_encode is general and about 100 ns an element, too
 * slow for the 10^8 elements of a large problem.  x is finite with |x| <=
 * 1 (no overflow to handle); the unit test compares this with
 * mmagen_type_encode. */
uint64_t rg_round(mmagen_type t, float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	if (t == MMAGEN_F32)
		return u;
	if (t == MMAGEN_TF32)        /* clear 13 bits, ties to even */
		return (u + 0xFFFu + ((u >> 13) & 1)) & ~0x1FFFu;
	if (t == MMAGEN_BF16)        /* drop 16 bits, ties to even */
		return (u + 0x7FFFu + ((u >> 16) & 1)) >> 16;
	assert(t == MMAGEN_F16 && fabsf(x) <= 1);
	uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7FFFFFFFu;
	if (mag >= 0x38800000u) {    /* 2^-14 and up: an f16 normal */
		mag -= 112u << 23;   /* exponent bias 127 -> 15 */
		return sign | ((mag + 0xFFFu + ((mag >> 13) & 1)) >> 13);
	}
	/* below: a multiple of 2^-24 (0x400 is the smallest normal) */
	return sign | (uint32_t)lrintf(fabsf(x) * 0x1p24f);
}

/* FP8 inputs: the pattern of x = (r - 2^12) * 2^-11 for every 13-bit r,
 * rounded by the library's encoder; x covers [-2, 2). */
#define FP8_STEPS 13
static const uint8_t *fp8_table(mmagen_type t)
{
	static uint8_t tab[2][1u << FP8_STEPS];
	static int made[2];
	int w = t == MMAGEN_E5M2;
	assert(t == MMAGEN_E4M3 || t == MMAGEN_E5M2);
	if (!made[w]) {
		for (uint32_t r = 0; r < 1u << FP8_STEPS; r++)
			tab[w][r] = (uint8_t)mmagen_type_encode(t, ((double)r - (1 << 12)) * 0x1p-11);
		made[w] = 1;
	}
	return tab[w];
}

void rg_fill(mmagen_type t, uint64_t seed, char which, void *buf, size_t count)
{
	uint64_t s = seed ^ ((uint64_t)(unsigned char)which * 0xD1B54A32D192ED03ull);
	unsigned width = rg_elem_bits(t);
	int fast = t == MMAGEN_BF16 || t == MMAGEN_F16 || t == MMAGEN_F32 || t == MMAGEN_TF32;
	int integer = rg_class_of(t) == RG_INT || t == MMAGEN_S32;
	const uint8_t *fp8 = t == MMAGEN_E4M3 || t == MMAGEN_E5M2 ? fp8_table(t) : NULL;
	/* a zero: every bit clear (integers) or all but the sign (floats) */
	uint64_t nonzero = integer ? (1ull << width) - 1 : (1ull << (width - 1)) - 1;

	if (width == 4)      /* an odd count leaves the last high nibble zero */
		memset(buf, 0, packed_bytes(count, 4));
	for (size_t i = 0; i < count; i++) {
		uint64_t bits;
		do {   /* zeros are drawn again */
			uint64_t r = rg_next(&s);
			if (integer) {          /* every pattern: the whole range */
				bits = r >> (64 - width);
			} else if (fp8) {
				bits = fp8[r >> (64 - FP8_STEPS)];
			} else {
				/* x = r * 2^-24, r uniform in [-2^24, 2^24):
				 * exact in float, so rounding it to t is one
				 * rounding */
				float x = (float)((int32_t)(r >> 39) - (1 << 24)) * 0x1p-24f;
				bits = fast ? rg_round(t, x) : mmagen_type_encode(t, x);
			}
		} while (!(bits & nonzero));
		put_elem(buf, i, width, bits);
	}
}

void rg_fill_inputs(struct rg_data *d)
{
	const struct rg_problem *p = &d->p;
	size_t cn = (size_t)p->m * p->n;
	rg_fill(p->a, p->seed, 'A', d->a, (size_t)p->m * p->k);
	rg_fill(p->b, p->seed, 'B', d->b, (size_t)p->n * p->k);
	rg_fill(p->out, p->seed, 'C', d->c, cn);
	if (p->block_scale) {
		rg_fill_scales(p, p->seed, 'A', d->sa);
		rg_fill_scales(p, p->seed, 'B', d->sb);
	}
	/* |C| up to one product's size, exactly: 2^16 for 8-bit inputs, 2^8
	 * for 4-bit ones */
	float scale = rg_elem_bits(p->a) == 4 ? 0x1p8f : 0x1p16f;
	if (rg_class_of(p->a) == RG_INT && p->out == MMAGEN_F32)
		for (size_t i = 0; i < cn; i++) {
			float x = (float)rg_value(MMAGEN_F32, d->c, i) * scale;
			uint32_t u;
			memcpy(&u, &x, sizeof u);
			put_le(d->c, i, 4, u);
		}
}

/* ---- fp8-block's scales ---- */
void rg_scale_layout(struct rg_problem *p, int col)
{
	uint32_t kb = (uint32_t)(((uint64_t)p->k + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK);
	uint32_t nb = (uint32_t)(((uint64_t)p->n + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK);
	p->scale_col = col;
	p->sa_sm = col ? 1 : kb;
	p->sa_sk = col ? p->m : 1;
	p->sb_sn = col ? 1 : kb;
	p->sb_sk = col ? nb : 1;
}

size_t rg_scale_count(const struct rg_problem *p, char which)
{
	size_t kb = ((size_t)p->k + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK;
	if (!p->block_scale)
		return 0;
	return (which == 'A' ? (size_t)p->m : ((size_t)p->n + RG_SCALE_BLOCK - 1) / RG_SCALE_BLOCK) *
	       kb;
}

void rg_fill_scales(const struct rg_problem *p, uint64_t seed, char which, float *out)
{
	uint64_t s = seed ^ ((uint64_t)(unsigned char)which * 0x9E6C63D0676A9A99ull) ^ 0x5C41u;
	int e_max = p->out == MMAGEN_F16 ? 4 : rg_fp8_out(p) ? 2 : 10;
	for (size_t i = 0, n = rg_scale_count(p, which); i < n; i++) {
		uint64_t r = rg_next(&s);
		int e = (int)(r % (uint64_t)(2 * e_max + 1)) - e_max;
		/* half of them 2^e, half 2^e times a significand of 24 bits */
		float f = r >> 63 ? 1.0f : 1.0f + (float)(uint32_t)(r >> 40 & 0x7FFFFF) * 0x1p-23f;
		out[i] = ldexpf(f, e);
	}
}

int rg_alloc(struct rg_data *d)
{
	d->a = malloc(rg_bytes(&d->p, 'A'));
	d->b = malloc(rg_bytes(&d->p, 'B'));
	d->c = malloc(rg_bytes(&d->p, 'C'));
	d->d = calloc(rg_bytes(&d->p, 'D'), 1);
	d->sa = d->sb = NULL;
	if (d->p.block_scale) {
		d->sa = malloc(rg_scale_count(&d->p, 'A') * sizeof *d->sa);
		d->sb = malloc(rg_scale_count(&d->p, 'B') * sizeof *d->sb);
	}
	if (!d->a || !d->b || !d->c || !d->d || (d->p.block_scale && (!d->sa || !d->sb)) ||
	    (is_small(d->p.a) && !table_small(d->p.a)) ||
	    (is_small(d->p.b) && !table_small(d->p.b)) ||
	    (is_small(d->p.out) && !table_small(d->p.out))) {
		rg_data_free(d);
		return rg_fail("out of memory for the host copies of A, B, C and D (%zu bytes)",
			       rg_bytes(&d->p, 'A') + rg_bytes(&d->p, 'B') + 2 * rg_bytes(&d->p, 'C'));
	}
	return 0;
}

void rg_data_free(struct rg_data *d)
{
	free(d->a);
	free(d->b);
	free(d->c);
	free(d->d);
	free(d->sa);
	free(d->sb);
	d->a = d->b = d->c = d->d = NULL;
	d->sa = d->sb = NULL;
}

/* ---- the reference ---- */

/* One row of A or B: its bytes, and the table of its 8- or 16-bit type;
 * 4-bit rows by element index (e0: the row's first) into the buffer p. */
struct row {
	const uint8_t *p;
	mmagen_type t;
	unsigned bits;
	size_t e0;
	const double *tab;
};

static struct row row_of(mmagen_type t, const void *buf, size_t row, uint32_t k)
{
	struct row r = { .t = t, .bits = rg_elem_bits(t), .p = buf };
	if (r.bits == 4)
		r.e0 = row * k;
	else
		r.p += row * k * (r.bits / 8);
	r.tab = is_small(t) ? table_small(t) : NULL;   /* made by rg_alloc */
	return r;
}

static inline double row_at(const struct row *r, uint32_t x)
{
	switch (r->bits) {
	case 4: return rg_value(r->t, r->p, r->e0 + x);
	case 8: return r->tab[r->p[x]];
	case 16: return r->tab[r->p[2 * x] | r->p[2 * x + 1] << 8];
	default: return rg_value(r->t, r->p, x);
	}
}

/* Neumaier's compensated sum: *s + *comp holds the sum. */
static inline void sum_add(double *s, double *comp, double x)
{
	double t = *s + x;
	*comp += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
	*s = t;
}

double rg_dot(const struct rg_data *d, uint32_t i, uint32_t j, double *sum_abs)
{
	const struct rg_problem *p = &d->p;
	struct row a = row_of(p->a, d->a, i, p->k), b = row_of(p->b, d->b, j, p->k);
	double s = 0, comp = 0, sa = 0;

	/* Each product is exact in double: tf32 x tf32 has at most 22
	 * significant bits, 16-bit and 8-bit floats fewer, s8/u8 (and
	 * s4/u4) products are integers below 2^16.  Neumaier's compensated sum keeps the
	 * error of the sum near 2^-52 |sum|, far below any tolerance below;
	 * integer sums (below 2^47) are exact outright. */
	if (!p->block_scale) {
		for (uint32_t x = 0; x < p->k; x++) {
			double prod = row_at(&a, x) * row_at(&b, x);
			sum_add(&s, &comp, prod);
			sa += fabs(prod);
		}
		*sum_abs = sa;
		return s + comp;
	}
	/* fp8-block: a K block's products summed with compensation, times
	 * the two f32 scales' product (48 significant bits: exact), rounded
	 * once; the blocks summed with compensation */
	for (uint32_t k0 = 0, kb = 0; k0 < p->k; k0 += RG_SCALE_BLOCK, kb++) {
		uint32_t end = p->k - k0 < RG_SCALE_BLOCK ? p->k : k0 + RG_SCALE_BLOCK;
		double bs = 0, bc = 0, ba = 0;
		for (uint32_t x = k0; x < end; x++) {
			double prod = row_at(&a, x) * row_at(&b, x);
			sum_add(&bs, &bc, prod);
			ba += fabs(prod);
		}
		double scale = (double)d->sa[(size_t)i * p->sa_sm + (size_t)kb * p->sa_sk] *
			       (double)d->sb[(size_t)(j / RG_SCALE_BLOCK) * p->sb_sn + (size_t)kb * p->sb_sk];
		sum_add(&s, &comp, scale * (bs + bc));
		sa += scale * ba;
	}
	*sum_abs = sa;
	return s + comp;
}

int32_t rg_int_scale(float x)
{
	if (isnan(x))
		return 0;
	if (x >= 0x1p31f)
		return INT32_MAX;
	if (x <= -0x1p31f)
		return INT32_MIN;
	return (int32_t)x;       /* C converts toward zero */
}

int32_t rg_wrap32(int64_t x)
{
	uint32_t lo = (uint32_t)(uint64_t)x;
	return lo < 0x80000000u ? (int32_t)lo : (int32_t)(lo - 0x80000000u) + INT32_MIN;
}

int rg_fp8_out(const struct rg_problem *p)
{
	return p->out == MMAGEN_E4M3 || p->out == MMAGEN_E5M2;
}

double rg_reference(const struct rg_data *d, uint32_t i, uint32_t j,
		    double *sum_abs, double *cval)
{
	const struct rg_problem *p = &d->p;
	double dot = rg_dot(d, i, j, sum_abs);
	/* beta = 0: the kernel does not read C, nor does the reference */
	*cval = p->beta != 0 ? rg_value(p->out, d->c, (size_t)i * p->n + j) : 0.0;
	if (rg_class_of(p->a) != RG_INT && rg_fp8_out(p)) {
		/* FP8 D: scaled, then saturated to the largest finite value
		 * (cvt's .satfinite) */
		double v = (double)p->d_scale * ((double)p->alpha * dot + (double)p->beta * *cval);
		double max = mmagen_type_max(p->out);
		return v > max ? max : v < -max ? -max : v;
	}
	if (rg_class_of(p->a) != RG_INT)
		return (double)p->alpha * dot + (double)p->beta * *cval;
	/* the s32 accumulator holds the dot product modulo 2^32 */
	double acc = rg_wrap32((int64_t)dot);
	if (p->out != MMAGEN_S32)
		return (double)p->alpha * acc + (double)p->beta * *cval;
	/* alpha * dot + beta * C modulo 2^64 (unsigned arithmetic, exact
	 * there), so modulo 2^32 too: what wrapping s32 arithmetic gives */
	uint64_t v = (uint64_t)(int64_t)rg_int_scale(p->alpha) * (uint64_t)(int64_t)dot +
		     (uint64_t)(int64_t)rg_int_scale(p->beta) * (uint64_t)(int64_t)*cval;
	return rg_wrap32((int64_t)v);
}

/* Explicit mantissa bits and the lowest normal exponent of D's types. */
static int float_format(mmagen_type t, int *mant, int *emin)
{
	switch (t) {
	case MMAGEN_BF16: *mant = 7;  *emin = -126; return 0;
	case MMAGEN_F16:  *mant = 10; *emin = -14;  return 0;
	case MMAGEN_F32:  *mant = 23; *emin = -126; return 0;
	case MMAGEN_E4M3: *mant = 3;  *emin = -6;   return 0;
	case MMAGEN_E5M2: *mant = 2;  *emin = -14;  return 0;
	default: return -1;
	}
}

double rg_half_ulp(mmagen_type t, double x)
{
	int mant, emin, e;
	if (float_format(t, &mant, &emin))
		return NAN;
	frexp(fabs(x), &e);          /* |x| = f * 2^e, f in [0.5, 1) */
	e = x == 0 || e - 1 < emin ? emin : e - 1;
	return ldexp(1.0, e - mant - 1);
}

/* The kernel computes acc, the sum of K products, in f32, v = fl32(alpha
 * * acc), with beta != 0 w = fma32(beta, C, v), and rounds w to D's
 * type.  Bounds, with u = 2^-24 and P = sum |a*b|:
 *   |acc - dot|  <= K * 2u * P   (bf16, f16, tf32: one f32 ulp per
 *                                 addition; the tensor cores' adders may
 *                                 truncate, not round; with f16
 *                                 accumulation u = 2^-11 here)
 *                <= L * RG_FP8_ACC * P + K * 2u * P   (e4m3, e5m2: wgmma's
 *                                 partial sums keep fewer bits, measured
 *                                 up to 6.6e-4 P at K = 32 on the H200;
 *                                 the kernel adds them into f32 every K
 *                                 block of 128, or every L of them with
 *                                 --promote 128 L: each chained block
 *                                 can add its own error)
 *                                 With --quant fp8-block P is sum
 *                                 |sa * sb * a * b| (each block's bound
 *                                 scales with it), plus u * P for the
 *                                 scales' product rounded to f32.
 *                <= u * P        (s8, u8: the s32 sum is exact, |acc| <=
 *                                 P; one rounding to f32)
 *   |v - alpha*acc| <= u * |alpha| * (P + that)
 *   |w - (beta*C + v)| <= u * (|beta*C| + |v|)
 *   |D - w| <= half an ulp of D's type at |w| <= |ref| + the above.
 * FP8 D (e4m3, e5m2): w is multiplied by d_scale in f32 first, s =
 * fl32(d_scale * w), |s - d_scale*(ref before the scale)| <= |d_scale| *
 * the above + u * |s|; cvt.rn.satfinite rounds s to nearest and clamps
 * to the largest finite value, as the reference does, and clamping
 * brings nothing further apart: half an ulp of the FP8 type at |ref| +
 * that.
 * s32 D is wrapping integer arithmetic: exact, tolerance 0. */
double rg_tolerance(const struct rg_problem *p, double sum_abs, double cval, double ref)
{
	const double u = 0x1p-24;
	double alpha = p->alpha, beta = p->beta, acc_err;

	if (p->out == MMAGEN_S32)
		return 0;
	switch (rg_class_of(p->a)) {
	case RG_INT:
		acc_err = u * sum_abs;
		break;
	case RG_FP8:
		/* fp8-block: sum_abs is sum |sa sb a b|, and the scales'
		 * product, rounded to f32 once per K block, adds u of it */
		acc_err = (p->promote_k > 128 ? p->promote_k / 128 : 1) * RG_FP8_ACC * sum_abs +
			  (double)p->k * 2 * u * sum_abs + (p->block_scale ? u * sum_abs : 0);
		break;
	default:
		/* f16 accumulation: the same bound with f16's u = 2^-11 */
		acc_err = (double)p->k * 2 * (p->acc_f16 ? 0x1p-11 : u) * sum_abs;
		break;
	}
	double acc_max = sum_abs + acc_err;
	double e = fabs(alpha) * (acc_err + u * acc_max);
	if (beta != 0)
		e += u * (fabs(beta * cval) + fabs(alpha) * acc_max * (1 + u));
	if (rg_fp8_out(p)) {
		double ds = fabs((double)p->d_scale);
		e = ds * e * (1 + u) + u * (fabs(ref) + ds * e);
	}
	return e + rg_half_ulp(p->out, fabs(ref) + e);
}

/* ---- the sample ---- */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int rg_sample(const struct rg_problem *p, uint64_t seed, size_t **idx, size_t *count)
{
	uint64_t total = (uint64_t)p->m * p->n;
	size_t cap = RG_SAMPLE + 4, n = 0;
	size_t *v;

	*idx = NULL;
	if (total <= RG_FULL_WORK / p->k || total <= cap) {
		*count = (size_t)total;
		return 0;
	}
	if (!(v = malloc(cap * sizeof *v)))
		return rg_fail("out of memory for the sample");
	/* the corners, where partial tiles end */
	v[n++] = 0;
	v[n++] = p->n - 1;
	v[n++] = (size_t)(p->m - 1) * p->n;
	v[n++] = (size_t)total - 1;
	uint64_t s = seed ^ 0x5A4D504C45ull;   /* a stream apart from the inputs' */
	while (n < cap) {
		while (n < cap)
			v[n++] = (size_t)(rg_next(&s) % total);
		qsort(v, n, sizeof *v, cmp_size);
		size_t u = 0;
		for (size_t i = 0; i < n; i++)
			if (!u || v[i] != v[u - 1])
				v[u++] = v[i];
		n = u;
	}
	*idx = v;
	*count = n;
	return 0;
}

/* ---- the comparison ---- */
void rg_verdict_add(struct rg_verdict *r, uint32_t i, uint32_t j, double got, double ref,
		    double tol, double inf_at)
{
	double err = fabs(got - ref);
	if (isinf(got) && signbit(got) == signbit(ref) && fabs(ref) + tol >= inf_at)
		err = 0;       /* D overflowed where the exact value does too */
	double ratio = tol > 0 ? err / tol : err == 0 ? 0 : INFINITY;
	r->checked++;
	if (!(err <= tol)) {   /* NaN (the poison) fails too */
		if (!r->bad++) {
			r->bi = i, r->bj = j;
			r->bad_got = got, r->bad_ref = ref, r->bad_tol = tol;
		}
		return;
	}
	if (ratio > r->worst_ratio || r->checked == 1) {
		r->worst_ratio = ratio;
		r->worst_err = err;
		r->wi = i, r->wj = j;
	}
}

int rg_verify(const struct rg_data *d, struct rg_verdict *r)
{
	const struct rg_problem *p = &d->p;
	int exact = p->out == MMAGEN_S32;
	double max = mmagen_type_max(p->out);
	/* floats round to Inf from here */
	double inf_at = exact ? INFINITY : max + rg_half_ulp(p->out, max);
	size_t *idx, count;

	memset(r, 0, sizeof *r);
	if (rg_sample(p, p->seed, &idx, &count))
		return -1;
	for (size_t s = 0; s < count; s++) {
		size_t at = idx ? idx[s] : s;
		uint32_t i = (uint32_t)(at / p->n), j = (uint32_t)(at % p->n);
		double sa, c;
		double ref = rg_reference(d, i, j, &sa, &c);
		double tol = rg_tolerance(p, sa, c, ref);
		rg_verdict_add(r, i, j, rg_value(p->out, d->d, at), ref, tol, inf_at);
	}
	free(idx);
	return 0;
}
