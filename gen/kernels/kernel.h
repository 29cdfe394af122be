/* kernel.h - the tile-kernel generators behind mmagen_emit_tile() and what
 * they share.
 *
 * tile.c (the public entry points) picks a generator; each generator
 * (kernel_<family>.c) describes its kernel in the manifest (info) and
 * writes it from its template through the builder (emit); manifest.c holds
 * what they share: the parameter list, the entry's pointer loads, the JSON
 * manifest.  Calls go one way: tile.c -> kernel_*.c -> manifest.c, frag.c,
 * kb.c. */
#ifndef MMAGEN_KERNEL_H
#define MMAGEN_KERNEL_H

#include "frag.h"

struct tile_gen {
	/* Fill the manifest of f's tile kernel (options already checked). */
	mmagen_status (*info)(const mmagen_form *f, const mmagen_tile_opts *o,
			      mmagen_tile_info *ti);
	/* Write the kernel into out, for target t. */
	mmagen_status (*emit)(const mmagen_form *f, int t, const mmagen_tile_opts *o,
			      const mmagen_tile_info *ti, struct buf *out);
	/* How parameter E (sparse metadata) is laid out, for the manifest. */
	const char *meta_layout;
};

extern const struct tile_gen tile_gen_mma, tile_gen_sm120, tile_gen_wgmma,
	tile_gen_tcgen05;

/* ---- manifest.c ---- */
/* A manifest with one kernel "mmagen_tile", grid 1x1x1, block `threads`. */
void tile_info_init(mmagen_tile_info *ti, const mmagen_form *f, unsigned threads);
/* Append a parameter (bytes rounded up to 8); at most
 * ARRAY_SIZE(ti->params), which the generators respect by design. */
void tile_add_param(mmagen_tile_info *ti, const char *name, unsigned rows,
		    unsigned cols, unsigned bits, unsigned type, int output);
/* The manifest's parameter named `name`, or NULL. */
const mmagen_tile_param *tile_param(const mmagen_tile_info *ti, const char *name);
/* The entry's parameter list (".param .u64 pa, ...", one per manifest
 * parameter, in its order) into slot "params", and the loads of their
 * global addresses into the current slot: g[i] is parameter i's. */
void tile_entry_params(struct kb *kb, const mmagen_tile_info *ti, kreg *g);
/* The register tile_entry_params loaded parameter `name` into (g is its
 * array); the parameter must exist. */
kreg tile_param_reg(const mmagen_tile_info *ti, const kreg *g, const char *name);
/* The JSON manifest. */
void tile_emit_json(struct buf *b, const mmagen_form *f, int t, const mmagen_tile_info *ti,
		    const char *meta_layout);
/* The operand `name` of in, or NULL. */
struct operand *tile_find_op(struct instr *in, const char *name);

#endif
