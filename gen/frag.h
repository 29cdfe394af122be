/* frag.h - fragment loads and stores for the kernel builder: registers of
 * an operand filled from (or written to) a row-major tile in global memory
 * through a per-lane index table in .const memory.
 *
 * A table `sym` holds, for each lane, register and element, the element's
 * index in the row-major tile: entry [lane][reg][elem].  The same code then
 * serves every fragment layout (m8n8k4's quad-pairs, wgmma's accumulator,
 * SM120's packed FP4), and the layout lives in one place: layout.c.
 */
#ifndef MMAGEN_FRAG_H
#define MMAGEN_FRAG_H

#include "kb.h"

/* index(ctx, lane, reg, elem) -> element index in the tile */
typedef mmagen_status (*frag_index_fn)(const void *ctx, unsigned lane, unsigned reg,
				       unsigned elem, unsigned *index);

/* Append `.const .u32 sym[lanes*regs*elems]` to the current slot. */
mmagen_status frag_table(struct kb *kb, const char *sym, unsigned lanes, unsigned regs,
			 unsigned elems, frag_index_fn index, const void *ctx);
/* The table of operand `operand` of an mma form, from its fragment map
 * (m8n8k4: table row l is quad-pair 0's lane, 0-3 then 16-19). */
mmagen_status frag_table_form(struct kb *kb, const char *sym, const mmagen_form *f,
			      int operand, const mmagen_frag *fr);

/* Where a fragment lives in memory. */
struct frag_io {
	const char *tab;       /* the index table's symbol */
	unsigned regs, elems;  /* registers per lane, elements per register */
	unsigned bits;         /* element width in memory (packed, little-endian) */
	kreg g;                /* the tile's global address (b64) */
	kreg lane;             /* the table row to use (b32) */
	kreg off;              /* added to every index (b32); none if n == 0 */
};

/* Fill the run `dst` (io->regs registers; elements of < 32 bits are
 * packed from bit 0 up). */
void frag_load(struct kb *kb, const struct frag_io *io, kreg dst);
/* Store the run `src`; under predicate `pred` unless pred.n == 0.  Packed
 * elements are 16-bit halves (f16x2, bf16x2). */
void frag_store(struct kb *kb, const struct frag_io *io, kreg src, kreg pred);

/* Load global pointer parameter `param` into a fresh b64 register,
 * converted to a global address. */
kreg frag_param_ptr(struct kb *kb, const char *param);

/* A loop in which every thread strides a b32 counter over [first, end):
 *
 *	struct frag_loop l;
 *	frag_loop_begin(kb, &l, tid, bytes, 128, 1);
 *	... the body, with l.i ...
 *	frag_loop_end(kb, &l);
 *
 * `uniform`: every thread of a warp leaves the loop after the same trip
 * (e.g. first = %tid.x, step = the block size and end a multiple of it),
 * so the branches are bra.uni. */
struct frag_loop {
	kreg i;              /* the counter */
	kreg head, done;     /* labels */
	kreg out;            /* predicate: i >= end */
	unsigned step;
	int uniform;
};
void frag_loop_begin(struct kb *kb, struct frag_loop *l, kreg first, unsigned end,
		     unsigned step, int uniform);
void frag_loop_end(struct kb *kb, const struct frag_loop *l);

#endif
