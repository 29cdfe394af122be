/* gemm_epi.h - the GEMM epilogue's per-element arithmetic, one copy for
 * the sm_90a wgmma path, the mma.sync path and sm_120a's block-scaled
 * mma.sync path (gemm_epi.c):
 *
 *	D = conv(d_scale * (alpha * acc + beta * C))
 *
 * in this order, on a pair of elements (the accumulator layouts of wgmma
 * and mma.sync give each thread pairs of adjacent columns):
 *   1. alpha * acc: f32 (an s32 accumulator converted first, an f16 pair
 *      unpacked), or wrapping s32 arithmetic for s32 D (alpha truncated);
 *   2. + beta * C: C of D's type, read under a predicate (0 where false),
 *      in f32 (s32 for s32 D);
 *   3. FP8 D: * d_scale;
 *   4. conversion to D's type (satfinite for FP8) and the stores: the
 *      pair whole, or its first element alone where N cuts it.
 * A new per-element step (bias, activation, per-row or per-column scale)
 * goes into gemm_epi_pair and a field of struct gemm_epi; where the
 * registers come from (accumulators, shared-memory staging) and where D
 * goes (global stores, stmatrix, TMA) stay in the path files. */
#ifndef MMAGEN_GEMM_EPI_H
#define MMAGEN_GEMM_EPI_H

#include "kernel.h"

struct gemm_epi {
	mmagen_type out;     /* D's (and C's) type */
	mmagen_type acc;     /* what step 1 scales: F32, S32, or F16 (a pair
			      * packed in one register, low half first) */
	int cvt_bf16;        /* the target has cvt.f32.bf16 (sm_90 on); else
			      * bf16 C is widened by a shift */
	/* the kernel parameters, in registers (gemm_epi_params) */
	kreg alpha, beta;    /* f32 */
	kreg has_c;          /* beta != 0 */
	kreg alpha_i, beta_i;   /* s32 D: alpha and beta truncated to s32 */
	kreg d_scale;           /* FP8 D */
};

/* Where step 2 finds C's two elements: loaded before (x[i], from
 * gemm_c_value), or, x[i].n == 0, loaded here under p[i] from
 * addr + off[i]. */
struct gemm_epi_c {
	kreg x[2];
	kreg p[2];
	kreg addr;
	unsigned off[2];
};

unsigned gemm_log2u(unsigned v);          /* ceil(log2 v) */
int gemm_is_fp8(mmagen_type t);
/* Address of (row, col) in a row-major matrix at g with leading
 * dimension ld (elements of esize bytes), into a fresh register. */
kreg gemm_elem_addr(struct kb *kb, kreg g, kreg row, kreg col, kreg ld, unsigned esize);

/* alpha, beta and has_c from the parameters palpha and pbeta */
void gemm_epi_params(struct kb *kb, struct gemm_epi *e);
/* what D's type needs beside them: FP8 D's d_scale (parameter
 * pd_scale), s32 D's alpha_i and beta_i */
void gemm_epi_params_out(struct kb *kb, struct gemm_epi *e);

/* Steps 1 to 3 on a pair: v (a run of 2, F32 or, for s32 D, B32) from
 * the accumulators a0, a1 (e->acc F16: the pair packed in a0), and C
 * (NULL: without C). */
void gemm_epi_pair(struct kb *kb, const struct gemm_epi *e, kreg v, kreg a0, kreg a1,
		   const struct gemm_epi_c *c);
/* The steps one by one: v = alpha * acc (one value); v[0], v[1] =
 * alpha * an f16 pair; C's element at addr + off under p (0 where p is
 * false), as f32 (s32 for s32 D); v += beta * x; FP8 D: v[0], v[1] *=
 * d_scale. */
void gemm_epi_scale(struct kb *kb, const struct gemm_epi *e, kreg v, kreg acc);
void gemm_epi_scale_f16x2(struct kb *kb, const struct gemm_epi *e, kreg v, kreg pair);
kreg gemm_c_value(struct kb *kb, const struct gemm_epi *e, kreg p, kreg addr, unsigned off);
void gemm_c_apply(struct kb *kb, const struct gemm_epi *e, kreg x, kreg v);
void gemm_epi_d_scale(struct kb *kb, const struct gemm_epi *e, kreg v);

/* Step 4.  gemm_epi_cvt_pair: (lo, hi) into dst, packed in D's type
 * (16-bit D: bf16x2/f16x2 into a b32; FP8: satfinite into a b16).
 * gemm_epi_store: v[0], v[1] at addr + off, the pair under p1, v[0]
 * alone under ps. */
void gemm_epi_cvt_pair(struct kb *kb, const struct gemm_epi *e, kreg dst, kreg lo, kreg hi);
void gemm_epi_store(struct kb *kb, const struct gemm_epi *e, kreg p1, kreg ps, kreg addr,
		    unsigned off, kreg v);

#endif
