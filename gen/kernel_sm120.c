/* kernel_sm120.c - tile kernels for sm120 forms (not generated yet). */
#include "kernel.h"

mmagen_status tile_info_sm120(const mmagen_form *f, const mmagen_tile_opts *o,
			     mmagen_tile_info *ti)
{
	(void)o;
	(void)ti;
	return mmagen_set_error(MMAGEN_UNSUPPORTED,
		"%s tile kernels are not generated yet", mmagen_family_name(f->family));
}

mmagen_status tile_emit_sm120(const mmagen_form *f, int t,
			     const mmagen_tile_opts *o, struct buf *b)
{
	(void)t;
	(void)b;
	return tile_info_sm120(f, o, NULL);
}
