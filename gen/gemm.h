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
};

/* kernel_gemm_sm90.c */
mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out);

#endif
