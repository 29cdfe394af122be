/* smem.c - canonical shared-memory layouts for wgmma and the sm_90
 * matrix descriptor (under the descriptor convention of desc.h).
 *
 * No swizzle ("interleave"): 8x16-byte core matrices, each 128 contiguous
 * bytes; the next core matrix along K is LBO bytes away, the next 8-row
 * group SBO bytes.  Swizzle W (32/64/128 bytes): rows of W bytes, 8-row
 * atoms of 8*W bytes (SBO), and inside an atom the 16-byte chunk index is
 * XORed with address bits 7.. (CuTe's Swizzle<log2(W/16), 4, 3>). */
#include "desc.h"

static unsigned swz(unsigned x, unsigned w)
{
	unsigned mask = w / 16 - 1;
	return x ^ (((x >> 7) & mask) << 4);
}

mmagen_status mmagen_smem_layout_kmajor(unsigned rows, unsigned kbytes,
					unsigned swizzle, mmagen_smem_layout *out)
{
	if (!out || !rows || !kbytes || rows % 8 || kbytes % 16)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"a K-major tile needs rows in multiples of 8 and K in multiples of 16 bytes (got %u x %u)",
			rows, kbytes);
	out->swizzle = swizzle;
	out->mn_major = 0;
	out->rows = rows;
	out->kbytes = kbytes;
	if (swizzle == 0) {
		out->lbo = 128;
		out->sbo = kbytes / 16 * 128;
		out->bytes = rows / 8 * out->sbo;
		out->align = 128;
		return MMAGEN_OK;
	}
	if (swizzle != 32 && swizzle != 64 && swizzle != 128)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"swizzle %u bytes does not exist; use 0 (none), 32, 64 or 128", swizzle);
	if (kbytes % swizzle && kbytes > swizzle)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"K of %u bytes is not a whole number of %u-byte swizzle rows", kbytes,
			swizzle);
	/* K wider than one swizzle row (sparse B): further atoms along K
	 * follow all the 8-row groups, LBO apart. */
	out->sbo = 8 * swizzle;
	out->lbo = kbytes > swizzle ? rows / 8 * out->sbo : 16;
	out->bytes = rows / 8 * out->sbo * (kbytes > swizzle ? kbytes / swizzle : 1);
	out->align = 1024;
	return MMAGEN_OK;
}

mmagen_status mmagen_smem_layout_mnmajor(unsigned krows, unsigned mnbytes,
					 unsigned swizzle, mmagen_smem_layout *out)
{
	if (!out || !krows || !mnbytes || krows % 8 || mnbytes % 16)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"an MN-major tile needs K in multiples of 8 rows and MN in multiples of 16 bytes (got %u x %u)",
			krows, mnbytes);
	if (swizzle && swizzle != 32 && swizzle != 64 && swizzle != 128)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"swizzle %u bytes does not exist; use 0 (none), 32, 64 or 128", swizzle);
	unsigned w = swizzle ? swizzle : 16;
	if (mnbytes % w)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"MN of %u bytes is not a whole number of %u-byte swizzle rows; use a narrower swizzle",
			mnbytes, w);
	out->swizzle = swizzle;
	out->mn_major = 1;
	out->rows = krows;
	out->kbytes = mnbytes;
	/* atoms (core matrices without swizzle) side by side along MN, then
	 * the next 8 K rows */
	if (swizzle) {
		out->lbo = 8 * w;
		out->sbo = mnbytes / w * 8 * w;
	} else {
		out->sbo = 128;
		out->lbo = mnbytes / 16 * 128;
	}
	out->bytes = krows / 8 * mnbytes * 8;
	out->align = swizzle ? 1024 : 128;
	return MMAGEN_OK;
}

static unsigned mn_offset(const mmagen_smem_layout *l, unsigned k, unsigned mnb)
{
	if (!l->swizzle)
		return mnb / 16 * l->sbo + k / 8 * l->lbo + k % 8 * 16 + mnb % 16;
	unsigned w = l->swizzle;
	return mnb / w * l->lbo + k / 8 * l->sbo + swz(k % 8 * w + mnb % w, w);
}

unsigned mmagen_smem_offset(const mmagen_smem_layout *l, unsigned row, unsigned kbyte)
{
	if (l->mn_major)
		return mn_offset(l, row, kbyte);
	unsigned g = row / 8, r = row % 8;
	if (!l->swizzle)
		return g * l->sbo + kbyte / 16 * l->lbo + r * 16 + kbyte % 16;
	return kbyte / l->swizzle * l->lbo + g * l->sbo +
	       swz(r * l->swizzle + kbyte % l->swizzle, l->swizzle);
}

static void mn_locate(const mmagen_smem_layout *l, unsigned o, unsigned *k,
		      unsigned *mnb)
{
	if (!l->swizzle) {
		unsigned kg = o / l->lbo, x = o % l->lbo;
		*k = kg * 8 + x % 128 / 16;
		*mnb = x / 128 * 16 + x % 16;
		return;
	}
	unsigned w = l->swizzle, kg = o / l->sbo, x = o % l->sbo;
	unsigned ma = x / l->lbo;
	x = swz(x % l->lbo, w);
	*k = kg * 8 + x / w;
	*mnb = ma * w + x % w;
}

void mmagen_smem_locate(const mmagen_smem_layout *l, unsigned offset,
			unsigned *row, unsigned *kbyte)
{
	if (l->mn_major) {
		mn_locate(l, offset, row, kbyte);
		return;
	}
	unsigned g = offset / l->sbo, x = offset % l->sbo;
	if (!l->swizzle) {
		*row = g * 8 + x % 128 / 16;
		*kbyte = x / 128 * 16 + x % 16;
		return;
	}
	unsigned katom = 0;
	if (l->kbytes > l->swizzle) {
		katom = offset / l->lbo;
		offset %= l->lbo;
		g = offset / l->sbo;
		x = offset % l->sbo;
	}
	x = swz(x, l->swizzle);   /* an XOR: its own inverse */
	*row = g * 8 + x / l->swizzle;
	*kbyte = katom * l->swizzle + x % l->swizzle;
}

/* ---- the sm_90 wgmma matrix descriptor (PTX ISA "Matrix Descriptor
 * Format"; desc.h gives the columns) ---- */
static const struct desc_code wgmma_swizzle_codes[] = {
	{ MMAGEN_SWIZZLE_NONE, 0 }, { MMAGEN_SWIZZLE_32B, 3 },
	{ MMAGEN_SWIZZLE_64B, 2 }, { MMAGEN_SWIZZLE_128B, 1 },
};

enum { WD_START, WD_LBO, WD_SBO, WD_BASE, WD_SWIZZLE, WD_N };

static const struct desc_field wgmma_fields[WD_N] = {
	/*                  name            lo  width shift */
	[WD_START]   = { "start address", 0, 14, 4, NULL, 0 },
	[WD_LBO]     = { "LBO", 16, 14, 4, NULL, 0 },
	[WD_SBO]     = { "SBO", 32, 14, 4, NULL, 0 },
	[WD_BASE]    = { "base offset", 49, 3, 0, NULL, 0 },
	[WD_SWIZZLE] = { "swizzle", 62, 2, 0, DESC_CODES(wgmma_swizzle_codes) },
};

static const struct desc_spec wgmma_spec = {
	"sm_90 wgmma smem descriptor", wgmma_fields, WD_N, 0,
};

mmagen_status mmagen_wgmma_sdesc_encode(const mmagen_wgmma_sdesc *d, uint64_t *out)
{
	if (!d || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_wgmma_sdesc_encode: NULL argument");
	const uint64_t v[WD_N] = {
		[WD_START] = d->start, [WD_LBO] = d->lbo, [WD_SBO] = d->sbo,
		[WD_BASE] = d->base_offset, [WD_SWIZZLE] = d->swizzle,
	};
	return desc_pack(&wgmma_spec, v, out);
}

mmagen_status mmagen_wgmma_sdesc_decode(uint64_t w, mmagen_wgmma_sdesc *out)
{
	uint64_t v[WD_N];
	mmagen_status s;
	if (!out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_wgmma_sdesc_decode: NULL argument");
	if ((s = desc_unpack(&wgmma_spec, w, v)))
		return s;
	out->start = (uint32_t)v[WD_START];
	out->lbo = (uint32_t)v[WD_LBO];
	out->sbo = (uint32_t)v[WD_SBO];
	out->base_offset = (unsigned)v[WD_BASE];
	out->swizzle = (unsigned)v[WD_SWIZZLE];
	return MMAGEN_OK;
}
