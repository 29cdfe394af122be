/* kernel.h - the tile-kernel generators behind mmagen_emit_tile(), one per
 * family (kernel_tile.c dispatches; each fills the manifest and writes a
 * complete module into b). */
#ifndef MMAGEN_KERNEL_H
#define MMAGEN_KERNEL_H

#include "emit.h"

enum { TILE_NONE, TILE_MMA, TILE_WGMMA, TILE_TCGEN05, TILE_SM120 };

/* Shared by the warp-level tile generators (kernel_tile.c): the register
 * names they assume are %ql (the lane a table row is read for), %tb, %x0,
 * %t0-%t3, %h0/%h1 and the predicate %pst (which lanes store D). */
size_t tile_round8(size_t bits);
/* Append a parameter to the manifest (bytes rounded up to 8). */
void tile_add_param(mmagen_tile_info *ti, const char *name, unsigned rows,
		    unsigned cols, unsigned bits, unsigned type, int output);
/* .const table `name`: [lane][reg][elem] -> row-major element index. */
mmagen_status tile_emit_table(struct buf *b, const mmagen_form *f, int operand,
			      const mmagen_frag *fr, const char *name);
/* Load an operand's registers %r<name><i> from global %<g> (elements of
 * `w` bits) through table `tab`; store D's the same way. */
void tile_emit_load(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		    unsigned w, const char *tab, const char *g);
void tile_emit_store(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		     unsigned w, const char *tab);
const struct operand *tile_find_op(const struct instr *in, const char *name);

/* kernel_wgmma.c */
mmagen_status tile_info_wgmma(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti);
mmagen_status tile_emit_wgmma(const mmagen_form *f, int t,
			      const mmagen_tile_opts *o, struct buf *b);
/* kernel_tcgen05.c */
mmagen_status tile_info_tcgen05(const mmagen_form *f, const mmagen_tile_opts *o,
				mmagen_tile_info *ti);
mmagen_status tile_emit_tcgen05(const mmagen_form *f, int t,
				const mmagen_tile_opts *o, struct buf *b);
/* kernel_sm120.c: block-scaled mma.sync */
mmagen_status tile_info_sm120(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti);
mmagen_status tile_emit_sm120(const mmagen_form *f, int t,
			      const mmagen_tile_opts *o, struct buf *b);

#endif
