/* tile.c - the public entry points of tile kernels: options, manifest,
 * kernel; each family's generator (kernel.h) does the work. */
#include "kernel.h"
#include "family.h"
#include "abi.h"

#include <string.h>

/* The generator of f's tile kernel (the family list), or NULL. */
static const struct tile_gen *tile_gen_of(const mmagen_form *f)
{
	const struct family *fam = family_of(f->family);
	return fam ? fam->tile : NULL;
}

void mmagen_tile_opts_init_size(mmagen_tile_opts *out, size_t size)
{
	mmagen_tile_opts o;

	if (!out || size < sizeof out->size)
		return;
	memset(&o, 0, sizeof o);
	o.size = size;
	o.swizzle = 128;
	o.scale_d = 1;
	if (size > sizeof o) {      /* a newer mmagen.h: tile_opts() refuses it */
		memset(out, 0, size);
		size = sizeof o;
	}
	memcpy(out, &o, size);
}

/* The options with defaults filled in, checked. */
static mmagen_status tile_opts(const mmagen_tile_opts *in, mmagen_tile_opts *o)
{
	mmagen_status s;

	mmagen_tile_opts_init(o);
	if (in && (s = abi_sized_in("mmagen_tile_opts", "mmagen_tile_opts_init", o,
				    sizeof *o, in, TILE_OPTS_SIZE_MIN)))
		return s;
	if (o->swizzle != 0 && o->swizzle != 32 && o->swizzle != 64 && o->swizzle != 128)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"swizzle %u bytes does not exist; use 0 (none), 32, 64 or 128",
			o->swizzle);
	if (o->major_a > 1 || o->major_b > 1)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"major-ness is 0 (K-major) or 1 (MN-major)");
	return MMAGEN_OK;
}

static mmagen_status no_tile(const mmagen_form *f)
{
	return mmagen_set_error(MMAGEN_UNSUPPORTED,
		"%s has no tile kernel: tiles are for MMA forms (mma, wgmma, tcgen05); %s is used inside them",
		mmagen_family_name(f->family), mmagen_family_name(f->family));
}

mmagen_status mmagen_tile_info_of(const mmagen_form *f, const mmagen_tile_opts *opts,
				  mmagen_tile_info *out)
{
	mmagen_tile_opts o;
	mmagen_status s;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_tile_info_of: NULL argument");
	const struct tile_gen *g = tile_gen_of(f);
	if (!g)
		return no_tile(f);
	if ((s = tile_opts(opts, &o)))
		return s;
	return g->info(f, &o, out);
}

mmagen_status mmagen_emit_tile(const mmagen_form *f, int t,
			       const mmagen_tile_opts *opts, mmagen_format fmt,
			       char **out, size_t *len)
{
	mmagen_tile_opts o;
	mmagen_tile_info ti;
	struct buf b;
	mmagen_status s;
	char op[256];

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_emit_tile: NULL argument");
	if (!mmagen_form_on_target(f, t))
		return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
			mmagen_form_opcode(f, op, sizeof op),
			mmagen_target_name(mmagen_form_min_target(f)), mmagen_target_name(t));
	const struct tile_gen *g = tile_gen_of(f);
	if (!g)
		return no_tile(f);
	if ((s = tile_opts(opts, &o)) || (s = g->info(f, &o, &ti)))
		return s;
	if (fmt != MMAGEN_FMT_PTX && fmt != MMAGEN_FMT_JSON)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile kernels are written as ptx (the kernel) or json (its manifest)");
	buf_init(&b);
	if (fmt == MMAGEN_FMT_JSON)
		tile_emit_json(&b, f, t, &ti, g->meta_layout);
	else if ((s = g->emit(f, t, &o, &ti, &b))) {
		buf_free(&b);
		return s;
	}
	return buf_finish(&b, out, len);
}

void mmagen_ldmatrix_lane_addr(unsigned num, int trans_b, unsigned lane,
			       unsigned *row, unsigned *col8)
{
	unsigned j = (lane / 8) % num, r = lane % 8;
	if (trans_b) {            /* B: matrix j = K rows 8j..8j+7 */
		*row = 8 * j + r;
		*col8 = 0;
	} else {                  /* A: row half fastest, then column block */
		*row = (j % 2) * 8 + r;
		*col8 = j / 2;
	}
}
