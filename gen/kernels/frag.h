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
/* The fragment descriptions of A, B, C and D of an mma form. */
mmagen_status frag_info_all(const mmagen_form *f, mmagen_frag fr[4]);
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

/* A table entry that names no element: frag_load_holes reads nothing
 * there and leaves the element 0. */
#define FRAG_NONE 0xFFFFFFFFu

/* Append `.const .align 4 .u32 sym[n]` holding v, in hex, eight a line:
 * for tables worked out whole in C rather than per entry (SM120's scale
 * tables, which are inverse maps with FRAG_NONE holes). */
void frag_table_words(struct kb *kb, const char *sym, const uint32_t *v, unsigned n);

/* frag_load through a table with FRAG_NONE holes: a hole loads nothing
 * and its element stays 0 (the scale bytes a block-scaled instruction
 * does not read).  Elements of < 32 bits are packed as by frag_load;
 * io->off must be none. */
void frag_load_holes(struct kb *kb, const struct frag_io *io, kreg dst);

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

/* dst (b32) = the `bits`-wide element (1..8, 16 or 32 bits) at bit offset
 * `bit` (b32) of the packed little-endian tile at global address g (b64),
 * zero-extended.  A width that does not divide 8 (FP6) may straddle two
 * bytes. */
void frag_load_packed(struct kb *kb, kreg dst, kreg g, kreg bit, unsigned bits);
/* OR the `bits`-wide value v (b32) into the run of words `words` at constant
 * bit offset `bit` (bit 0 = bit 0 of the first word); it may straddle two
 * words. */
void frag_place(struct kb *kb, kreg words, unsigned bit, unsigned bits, kreg v);

#endif
