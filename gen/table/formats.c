/* formats.c - MX (OCP Microscaling) and NVFP4 block-scaled tensors:
 * quantize, dequantize, and where block-scaled mma.sync reads its scales.
 *
 * The element and scale codecs are types.c's exact ones; this file only
 * chooses the scale of each block and packs the codes.  The rules are
 * spelled out above mmagen_quant_spec in mmagen.h.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* One format: its element types (the first is the default), scale type
 * and block size.  emax of an element type comes from its largest value. */
struct qformat_desc {
	const char *name;
	uint8_t elems[2];
	uint8_t stype;
	uint8_t block;
};

static const struct qformat_desc qformats[MMAGEN_QF_END] = {
	[MMAGEN_QF_MXFP8] = { "mxfp8", { MMAGEN_E4M3, MMAGEN_E5M2 }, MMAGEN_UE8M0, 32 },
	[MMAGEN_QF_MXFP6] = { "mxfp6", { MMAGEN_E3M2, MMAGEN_E2M3 }, MMAGEN_UE8M0, 32 },
	[MMAGEN_QF_MXFP4] = { "mxfp4", { MMAGEN_E2M1, 0 }, MMAGEN_UE8M0, 32 },
	[MMAGEN_QF_NVFP4] = { "nvfp4", { MMAGEN_E2M1, 0 }, MMAGEN_UE4M3, 16 },
};

/* The scale codes that mean NaN. */
static uint8_t scale_nan(const mmagen_quant_spec *s)
{
	return s->stype == MMAGEN_UE8M0 ? 0xFF : 0x7F;
}

/* DeepSeek-V3's block scaling for the sm_90a GEMM: no quantizer format
 * (f32 scales, mmagen.h) */
#define FP8_BLOCK_NAME "fp8-block"

const char *mmagen_qformat_name(unsigned format)
{
	if (format == MMAGEN_QF_FP8_BLOCK)
		return FP8_BLOCK_NAME;
	if (format == MMAGEN_QF_NONE || format >= MMAGEN_QF_END)
		return "none";
	return qformats[format].name;
}

static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

mmagen_status mmagen_qformat_parse(const char *s, unsigned *out)
{
	if (!s || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_qformat_parse: NULL argument");
	for (unsigned f = MMAGEN_QF_MXFP8; f < MMAGEN_QF_END; f++)
		if (same_name(s, qformats[f].name)) {
			*out = f;
			return MMAGEN_OK;
		}
	if (same_name(s, FP8_BLOCK_NAME)) {
		*out = MMAGEN_QF_FP8_BLOCK;
		return MMAGEN_OK;
	}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"unknown block-scaled format '%s'; legal: mxfp8, mxfp6, mxfp4, nvfp4, fp8-block", s);
}

mmagen_status mmagen_quant_spec_init(mmagen_quant_spec *s, unsigned format,
				     mmagen_type elem)
{
	const struct qformat_desc *d;

	if (s && format == MMAGEN_QF_FP8_BLOCK)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"fp8-block is the sm_90a GEMM's block scaling (f32 scales per 1 x 128 and 128 x 128 blocks, given with the operands), not a format mmagen quantizes; use mxfp8, mxfp6, mxfp4 or nvfp4");
	if (!s || format == MMAGEN_QF_NONE || format >= MMAGEN_QF_END)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_quant_spec_init: no such format %u", format);
	d = &qformats[format];
	if (elem == MMAGEN_TYPE_NONE)
		elem = (mmagen_type)d->elems[0];
	if (elem != d->elems[0] && elem != d->elems[1]) {
		if (d->elems[1])
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"%s elements are %s or %s, not %s", d->name,
				mmagen_type_name((mmagen_type)d->elems[0]),
				mmagen_type_name((mmagen_type)d->elems[1]),
				mmagen_type_name(elem));
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s elements are %s, not %s", d->name,
			mmagen_type_name((mmagen_type)d->elems[0]), mmagen_type_name(elem));
	}
	memset(s, 0, sizeof *s);
	s->format = format;
	s->elem = (uint8_t)elem;
	s->stype = d->stype;
	s->block = d->block;
	s->elem_bits = mmagen_type_bits(elem) == 4 ? 4 : 8;
	/* floor(log2(max)): e4m3 448 -> 8, e5m2 57344 -> 15, e3m2 28 -> 4,
	 * e2m3 7.5 -> 2, e2m1 6 -> 2 (the MX spec's emax_elem) */
	(void)frexp(mmagen_type_max(elem), &s->emax);
	s->emax -= 1;
	s->global_scale = 1.0;
	return MMAGEN_OK;
}

/* A spec the caller may have filled in by hand must still be one of ours. */
static mmagen_status check_spec(const mmagen_quant_spec *s)
{
	mmagen_quant_spec ref;

	if (!s)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "NULL format spec");
	/* init picks a default for NONE; a spec must name its element type */
	if (s->elem == MMAGEN_TYPE_NONE)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s spec without an element type: use mmagen_quant_spec_init",
			mmagen_qformat_name(s->format));
	if (mmagen_quant_spec_init(&ref, s->format, (mmagen_type)s->elem))
		return MMAGEN_INVALID_ARGUMENT;
	if (s->stype != ref.stype || s->block != ref.block ||
	    s->elem_bits != ref.elem_bits || s->emax != ref.emax)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s spec altered: use mmagen_quant_spec_init", ref.format ?
			mmagen_qformat_name(ref.format) : "format");
	if (s->format != MMAGEN_QF_NVFP4 && s->global_scale != 1.0)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has no global scale; only nvfp4 takes one",
			mmagen_qformat_name(s->format));
	if (!(s->global_scale > 0.0) || isinf(s->global_scale))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"global scale %g: it must be finite and positive", s->global_scale);
	return MMAGEN_OK;
}

void mmagen_quant_sizes(const mmagen_quant_spec *s, size_t count,
			size_t *elem_bytes, size_t *scale_bytes)
{
	if (!s || !s->block) {       /* not a spec: nothing fits it */
		if (elem_bytes)
			*elem_bytes = 0;
		if (scale_bytes)
			*scale_bytes = 0;
		return;
	}
	if (elem_bytes)
		*elem_bytes = s->elem_bits == 4 ? count / 2 + count % 2 : count;
	if (scale_bytes)
		*scale_bytes = count / s->block + (count % s->block != 0);
}

double mmagen_nvfp4_global_scale(const float *x, size_t count)
{
	double amax = 0.0;

	for (size_t i = 0; i < count; i++)
		if (isfinite(x[i]) && fabs(x[i]) > amax)
			amax = fabs(x[i]);
	if (amax == 0.0)
		return 1.0;
	/* an f32, as the tensor would carry it; never 0 */
	float g = (float)(amax / (448.0 * 6.0));
	return g > 0.0f ? g : 0x1p-149;
}

/* 1 if a block holds NaN or Inf; else its largest magnitude in *amax. */
static int block_amax(const float *x, size_t n, double *amax)
{
	*amax = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return 1;
		if (fabs(x[i]) > *amax)
			*amax = fabs(x[i]);
	}
	return 0;
}

uint8_t mmagen_quant_block_scale(const mmagen_quant_spec *s, const float *x,
				 size_t n)
{
	double amax;
	int e;

	if (block_amax(x, n, &amax))
		return scale_nan(s);
	if (amax == 0.0)
		return 0;
	if (s->stype == MMAGEN_UE4M3)
		return (uint8_t)mmagen_type_encode(MMAGEN_UE4M3,
					amax / 6.0 / s->global_scale);
	(void)frexp(amax, &e);		/* amax in [2^(e-1), 2^e) */
	e = e - 1 - s->emax;
	if (e < -127)
		e = -127;
	if (e > 127)
		e = 127;
	return (uint8_t)(e + 127);
}

/* The value one scale code stands for, global scale included. */
static double scale_value(const mmagen_quant_spec *s, uint8_t code)
{
	return mmagen_type_decode((mmagen_type)s->stype, code) * s->global_scale;
}

static void put_code(const mmagen_quant_spec *s, uint8_t *elems, size_t i,
		     uint64_t code)
{
	if (s->elem_bits == 8) {
		elems[i] = (uint8_t)code;
		return;
	}
	unsigned sh = (unsigned)(i % 2) * 4;
	elems[i / 2] = (uint8_t)((elems[i / 2] & ~(0xFu << sh)) | (code & 0xF) << sh);
}

static uint64_t get_code(const mmagen_quant_spec *s, const uint8_t *elems, size_t i)
{
	if (s->elem_bits == 8)
		return elems[i];
	return (uint64_t)(elems[i / 2] >> (i % 2) * 4) & 0xF;
}

/* x / scale, rounded to nearest even and clamped to the largest finite
 * element (the MX spec saturates, even for e5m2 which has an Inf). */
static uint64_t encode_elem(const mmagen_quant_spec *s, double x, double scale)
{
	mmagen_type t = (mmagen_type)s->elem;
	double v = x / scale, max = mmagen_type_max(t);

	/* NaN scale: +0; zero scale (amax/6 under ue4m3's range): signed 0 */
	if (isnan(scale))
		return 0;
	if (scale == 0.0)
		return mmagen_type_encode(t, copysign(0.0, x));
	if (v > max)
		v = max;
	else if (v < -max)
		v = -max;
	return mmagen_type_encode(t, v);
}

mmagen_status mmagen_quantize(const mmagen_quant_spec *s, const float *in,
			      size_t count, uint8_t *elems, uint8_t *scales)
{
	mmagen_status st = check_spec(s);

	if (st)
		return st;
	if (count && (!in || !elems || !scales))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_quantize: NULL buffer");
	for (size_t b0 = 0; b0 < count; b0 += s->block) {
		size_t n = count - b0 < s->block ? count - b0 : s->block;
		uint8_t code = mmagen_quant_block_scale(s, in + b0, n);
		double scale = scale_value(s, code);
		scales[b0 / s->block] = code;
		for (size_t i = b0; i < b0 + n; i++)
			put_code(s, elems, i, encode_elem(s, in[i], scale));
	}
	if (s->elem_bits == 4 && count % 2)
		elems[count / 2] &= 0x0F;	/* the unused last nibble */
	return MMAGEN_OK;
}

mmagen_status mmagen_dequantize(const mmagen_quant_spec *s, const uint8_t *elems,
				const uint8_t *scales, size_t count, float *out)
{
	mmagen_status st = check_spec(s);

	if (st)
		return st;
	if (count && (!out || !elems || !scales))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_dequantize: NULL buffer");
	for (size_t i = 0; i < count; i++) {
		double e = mmagen_type_decode((mmagen_type)s->elem, get_code(s, elems, i));

		out[i] = (float)(e * scale_value(s, scales[i / s->block]));
	}
	return MMAGEN_OK;
}

/* ---- scale factors in block-scaled mma.sync registers ---- */

unsigned mmagen_scale_vec(const mmagen_form *f)
{
	if (!f || f->family != MMAGEN_FAM_MMA || !f->block_scale)
		return 0;
	if (f->scale_vec)
		return f->scale_vec;
	/* the kind's default vector (the .block_scale-only spelling) */
	if (f->kind == MMAGEN_KIND_MXF8F6F4)
		return 1;
	return f->stype == MMAGEN_UE4M3 ? 4 : 2;
}

/* Legal selector immediates (ISA Table "Valid values for various
 * selector components"; ptxas agrees, /tmp/facts section 5). */
static int byte_id_ok(unsigned sv, unsigned byte_id)
{
	switch (sv) {
	case 1:
		return byte_id <= 3;
	case 2:
		return byte_id == 0 || byte_id == 2;
	default:
		return byte_id == 0;
	}
}

mmagen_status mmagen_scale_pos(const mmagen_form *f, int operand,
			       unsigned byte_id, unsigned thread_id, unsigned row,
			       unsigned col, unsigned *lane, unsigned *byte)
{
	unsigned sv = mmagen_scale_vec(f);

	if (!sv || !lane || !byte)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_scale_pos: needs a block-scaled mma.sync form");
	if (!byte_id_ok(sv, byte_id))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"byte-id %u is not legal with scale_vec::%uX; legal: %s", byte_id, sv,
			sv == 1 ? "0-3" : sv == 2 ? "0, 2" : "0");
	if (operand == MMAGEN_OPND_A) {
		if (thread_id > 1 || row >= f->m || col >= sv)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"scale_A: thread-id %u (legal 0-1), element (%u, %u) of %ux%u",
				thread_id, row, col, (unsigned)f->m, sv);
		*lane = 4 * (row % 8) + 2 * thread_id + row / 8;
		*byte = byte_id + col;
		return MMAGEN_OK;
	}
	if (operand == MMAGEN_OPND_B) {
		if (thread_id > 3 || row >= sv || col >= f->n)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"scale_B: thread-id %u (legal 0-3), element (%u, %u) of %ux%u",
				thread_id, row, col, sv, (unsigned)f->n);
		*lane = 4 * col + thread_id;
		*byte = byte_id + row;
		return MMAGEN_OK;
	}
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"mmagen_scale_pos: scale factors exist for A and B only");
}
