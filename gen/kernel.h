/* kernel.h - the tile-kernel generators behind mmagen_emit_tile(), one per
 * family (kernel_tile.c dispatches; each fills the manifest and writes a
 * complete module into b). */
#ifndef MMAGEN_KERNEL_H
#define MMAGEN_KERNEL_H

#include "emit.h"

enum { TILE_NONE, TILE_MMA, TILE_WGMMA, TILE_TCGEN05, TILE_SM120 };

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
