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
	/* the wgmma path's split-K (gemm_split.c): the kernel walks (tile, K
	 * slice) units and takes S as a parameter; `split` is the S asked
	 * for, 0 for MMAGEN_GEMM_SPLIT_AUTO */
	int split_kernel;
};

/* kernel_gemm_sm90.c */
mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out);

/* gemm_split.c: split-K on the wgmma path.  A work unit is (tile, K
 * slice); S = min(splits, kblocks) slices per tile, consecutive units.
 * gemm_split_range: unit -> its tile, first K block and K block count,
 * as mmagen_split_range in templates/gemm_sm90.ptx.in computes them.
 * gemm_split_plan: the request's split_k into the plan (after
 * gemm_plan_sm90).  One warpgroup's slot of the workspace holds
 * 64 x bn accumulators of 4 bytes. */
#define GEMM_SPLIT_WG_BYTES(bn) (64u * (bn) * 4u)
#define GEMM_SPLIT_MAX 256u
unsigned gemm_split_slices(unsigned splits, unsigned kblocks);
void gemm_split_range(unsigned unit, unsigned slices, unsigned kblocks, unsigned *tile,
		      unsigned *kbeg, unsigned *kcount);
mmagen_status gemm_split_plan(const mmagen_gemm_request *req, struct gemm_plan *g);
/* kernel_gemm_sm90_split.c: the reduction, into the kernel builder of
 * gemm_emit_sm90 (acc: the final accumulators; row: the thread's first
 * row; m: M) */
void gemm_sm90_split_emit(struct kb *kb, const struct gemm_plan *g, kreg acc, kreg row, kreg m);

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
