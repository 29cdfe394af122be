/* kernel_legacy.h - helpers of the generators not yet on the builder:
 * they assume the caller declared %ql %tb %x0 %t0-%t3 %h0/%h1 %pst. */
#ifndef MMAGEN_KERNEL_LEGACY_H
#define MMAGEN_KERNEL_LEGACY_H

#include "kernel.h"

size_t tile_round8(size_t bits);
mmagen_status tile_emit_table(struct buf *b, const mmagen_form *f, int operand,
			      const mmagen_frag *fr, const char *name);
void tile_emit_load(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		    unsigned w, const char *tab, const char *g);
void tile_emit_store(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		     unsigned w, const char *tab);
const struct operand *legacy_find_op(const struct instr *in, const char *name);

#endif
