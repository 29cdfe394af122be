/* tcgen05.h - tcgen05 plumbing shared by the tile kernel (kernel_tcgen05.c):
 * the Tensor Memory, mbarrier and fence instructions around one
 * tcgen05.mma.  Register operands are PTX register names ("%taddr"); every
 * emitter writes one tab-indented line (or a short fixed sequence).
 * All syntax was checked with ptxas 13.0 (FACTS.md section 3); what the
 * instructions do on a GPU was not (no sm_100 GPU here). */
#ifndef MMAGEN_TCGEN05_H
#define MMAGEN_TCGEN05_H

#include "ptx.h"

/* Scale factors per row of A (and per column of B) of a block-scaled form
 * (ISA Table 56: 1, 2 or 4); 0 for the other kinds. */
unsigned tc_scale_count(const mmagen_form *f);

/* tcgen05.alloc into the shared-memory slot at 32-bit address `slot`;
 * ncols is a power of two in 32..512.  One warp (of each CTA of the pair
 * for cta_group::2) runs it. */
void tc_emit_alloc(struct buf *b, unsigned cg, const char *slot, unsigned ncols);
void tc_emit_relinquish(struct buf *b, unsigned cg);
void tc_emit_dealloc(struct buf *b, unsigned cg, const char *taddr, unsigned ncols);
void tc_emit_fence_before(struct buf *b);
void tc_emit_fence_after(struct buf *b);
/* tcgen05.ld / st .32x32b.x<num>: registers <prefix>0..num-1. */
void tc_emit_ld(struct buf *b, unsigned num, const char *prefix, const char *taddr);
void tc_emit_st(struct buf *b, unsigned num, const char *prefix, const char *taddr);
void tc_emit_wait_ld(struct buf *b);
void tc_emit_wait_st(struct buf *b);
/* tcgen05.cp.cta_group::N.32x128b.warpx4: 32 rows of 16 bytes from the
 * shared-memory descriptor into all four 32-lane partitions. */
void tc_emit_cp_32x128b(struct buf *b, unsigned cg, const char *taddr, const char *desc);
/* tcgen05.commit to the mbarrier at 32-bit shared address `mbar`; with
 * cta_group::2 it arrives on that barrier in every CTA of `mask16` (a .b16
 * register: ptxas rejects a .b32 one or an immediate). */
void tc_emit_commit(struct buf *b, unsigned cg, const char *mbar, const char *mask16);
void tc_emit_mbar_init(struct buf *b, const char *mbar, unsigned count);
/* Spin on mbarrier.try_wait.parity; `label` must be unique in the entry,
 * `pred` a free predicate register. */
void tc_emit_mbar_wait(struct buf *b, const char *mbar, unsigned parity,
		       const char *pred, const char *label);

#endif
