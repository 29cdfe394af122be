/* gemm.h - whole GEMM kernels behind mmagen_gemm_emit(): a plan (tile,
 * stages, the instruction from the table) and one generator per path. */
#ifndef MMAGEN_GEMM_H
#define MMAGEN_GEMM_H

#include "kernel.h"

#define GEMM_KERNEL_NAME "mmagen_gemm"

struct gemm_plan {
	mmagen_gemm_request req;
	mmagen_type acc;            /* accumulator type */
	unsigned bm, bn, bk;        /* block tile */
	unsigned mma_k;             /* K of one instruction */
	unsigned stages, group, cluster;
	int promote;                /* FP8: per-K-block partial sums added in f32 */
	unsigned a_stage, b_stage;  /* bytes of one stage of A and of B */
	unsigned d_stage;           /* bytes of D's staging for tensor stores */
	unsigned smem;              /* dynamic shared memory */
	const mmagen_form *form;    /* the MMA instruction */
	/* the mma.sync path (kernel_gemm_sm80.c) */
	unsigned path;              /* MMAGEN_GEMM_PATH_WGMMA or _MMA_SYNC */
	unsigned split;             /* K slices (gridDim.z) */
	unsigned threads, bits;     /* threads per CTA; bits of A's elements */
	int a_mn, b_mn;             /* A M-major, B N-major (ldmatrix .trans) */
};

/* kernel_gemm_sm90.c */
mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out);

/* kernel_gemm_sm80.c: the warp-level path (mma.sync + ldmatrix +
 * cp.async), sm_80 to sm_89 and, on request, sm_90/sm_90a.  check_sm80
 * holds the path's type and layout rules. */
mmagen_status gemm_plan_sm80(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm80(const struct gemm_plan *g, struct buf *out);

/* The shared-memory layout of the sm80 path, for the tests: a stage of an
 * operand is rows of GEMM80_ROW_BYTES bytes, 16-byte chunk c of row r at
 * byte gemm80_swizzle(r, c).  Lane `lane` of an ldmatrix.x4 reads row
 * r0 + *row of logical chunk c0 + *chunk, where the pattern is 1 for a
 * K-major A or an MN-major B and 2 for the other two (see the .c). */
#define GEMM80_ROW_BYTES 64u
unsigned gemm80_swizzle(unsigned row, unsigned chunk);
void gemm80_ldmatrix_lane(int pattern, unsigned lane, unsigned *row, unsigned *chunk);
/* The first stage row and logical chunk of ldmatrix.x4 number i (0..3) of
 * mma step `step` within a warp's rows: mn, the operand is MN-major. */
void gemm80_frag_origin(int mn, unsigned bk, unsigned i, unsigned step, unsigned *row,
			unsigned *chunk);

#endif
