/* tensormap.c - TMA descriptors: the rules of cuTensorMapEncodeTiled,
 * checked before the driver so that a bad operand is one clear line, then
 * the encoding itself.
 *
 * The rules, from the documentation of cuTensorMapEncodeTiled (cuda.h of
 * CUDA 13.0), in the order they are checked:
 *   rank 1..5, >= 3 when interleaved; enum values in range
 *   INTERLEAVE_32B needs SWIZZLE_32B; OOB NaN fill needs a float type
 *   address 16-byte aligned (32 when INTERLEAVE_32B)
 *   dims 1..2^32
 *   strides (rank-1 of them) multiples of 16 (32 when INTERLEAVE_32B),
 *     below 2^40
 *   and one rule of ours, not interleaved: the documented layout,
 *     strides[0] >= dims[0] * element size, strides[i] >= strides[i-1] *
 *     dims[i] (padding may be added, rows may not overlap), or 0 (the same
 *     data again, a broadcast).  The driver accepts overlapping strides
 *     (H200, driver 580.159.04), but they are almost always a count of
 *     elements passed as bytes, which TMA would then read wrongly and
 *     silently.
 * Every other rule above the driver enforces too (same H200 probe), so a
 * description that passes here fails there only for reasons we cannot
 * see (context, device).
 *   box 1..256; not interleaved: box[0] * element size a multiple of 16
 *     bytes, and at most the swizzle span (32/64/128) when swizzled
 *   element strides 1..8
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* mmart.h's enums are cuda.h's values (cuda_enum.h, checked against cuda.h
 * by test_cuda_abi): the descriptor passes through unchanged. */
#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " is " #b);
SAME(MMART_TENSOR_U8, CU_TENSOR_MAP_DATA_TYPE_UINT8)
SAME(MMART_TENSOR_U16, CU_TENSOR_MAP_DATA_TYPE_UINT16)
SAME(MMART_TENSOR_U32, CU_TENSOR_MAP_DATA_TYPE_UINT32)
SAME(MMART_TENSOR_S32, CU_TENSOR_MAP_DATA_TYPE_INT32)
SAME(MMART_TENSOR_U64, CU_TENSOR_MAP_DATA_TYPE_UINT64)
SAME(MMART_TENSOR_S64, CU_TENSOR_MAP_DATA_TYPE_INT64)
SAME(MMART_TENSOR_F16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16)
SAME(MMART_TENSOR_F32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
SAME(MMART_TENSOR_F64, CU_TENSOR_MAP_DATA_TYPE_FLOAT64)
SAME(MMART_TENSOR_BF16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
SAME(MMART_TENSOR_F32_FTZ, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ)
SAME(MMART_TENSOR_TF32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32)
SAME(MMART_TENSOR_TF32_FTZ, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ)
SAME(MMART_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE)
SAME(MMART_INTERLEAVE_16B, CU_TENSOR_MAP_INTERLEAVE_16B)
SAME(MMART_INTERLEAVE_32B, CU_TENSOR_MAP_INTERLEAVE_32B)
SAME(MMART_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE)
SAME(MMART_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_32B)
SAME(MMART_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_64B)
SAME(MMART_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B)
SAME(MMART_L2_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE)
SAME(MMART_L2_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_64B)
SAME(MMART_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B)
SAME(MMART_L2_256B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
SAME(MMART_OOB_ZERO, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
SAME(MMART_OOB_NAN, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
#undef SAME
_Static_assert(sizeof(mmart_tensor_map) == sizeof(CUtensorMap)
	       && _Alignof(mmart_tensor_map) == _Alignof(CUtensorMap),
	       "mmart_tensor_map");

/* Element types by value: size in bytes, name, float (NaN fill allowed). */
static const struct {
	unsigned size;
	const char *name;
	int is_float;
} dtypes[] = {
	[MMART_TENSOR_U8] = { 1, "u8", 0 },
	[MMART_TENSOR_U16] = { 2, "u16", 0 },
	[MMART_TENSOR_U32] = { 4, "u32", 0 },
	[MMART_TENSOR_S32] = { 4, "s32", 0 },
	[MMART_TENSOR_U64] = { 8, "u64", 0 },
	[MMART_TENSOR_S64] = { 8, "s64", 0 },
	[MMART_TENSOR_F16] = { 2, "f16", 1 },
	[MMART_TENSOR_F32] = { 4, "f32", 1 },
	[MMART_TENSOR_F64] = { 8, "f64", 1 },
	[MMART_TENSOR_BF16] = { 2, "bf16", 1 },
	[MMART_TENSOR_F32_FTZ] = { 4, "f32 (ftz)", 1 },
	[MMART_TENSOR_TF32] = { 4, "tf32", 1 },
	[MMART_TENSOR_TF32_FTZ] = { 4, "tf32 (ftz)", 1 },
};

static const char *const swizzle_names[] = {
	"MMART_SWIZZLE_NONE", "MMART_SWIZZLE_32B", "MMART_SWIZZLE_64B",
	"MMART_SWIZZLE_128B"
};

#define MAX_RANK 5
#define MAX_BOX 256u
#define MAX_ELEM_STRIDE 8u
#define STRIDE_LIMIT (UINT64_C(1) << 40)
#define DIM_LIMIT (UINT64_C(1) << 32)

unsigned mmart_tensor_dtype_size(mmart_tensor_dtype dtype)
{
	return (unsigned)dtype < ARRAY_SIZE(dtypes) ? dtypes[dtype].size : 0;
}

/* One line: "A: <rule>". */
#define BAD(...) mmart_set_error(MMART_INVALID_ARGUMENT, __VA_ARGS__)

static mmart_status check_enums(const char *n, const mmart_tensor_desc *d)
{
	if ((unsigned)d->dtype >= ARRAY_SIZE(dtypes))
		return BAD("%s: element type %d is not a tensor-map type "
			   "(MMART_TENSOR_U8..MMART_TENSOR_TF32_FTZ, 0..%zu)",
			   n, (int)d->dtype, ARRAY_SIZE(dtypes) - 1);
	if (d->rank < 1 || d->rank > MAX_RANK)
		return BAD("%s: rank %u: a tensor map has 1 to %d dimensions "
			   "(nearest: %d)", n, d->rank, MAX_RANK,
			   d->rank < 1 ? 1 : MAX_RANK);
	if ((unsigned)d->interleave > MMART_INTERLEAVE_32B)
		return BAD("%s: interleave %d is not one of "
			   "MMART_INTERLEAVE_NONE/16B/32B", n,
			   (int)d->interleave);
	if (d->interleave != MMART_INTERLEAVE_NONE && d->rank < 3)
		return BAD("%s: an interleaved layout needs rank >= 3 (got "
			   "%u); use MMART_INTERLEAVE_NONE", n, d->rank);
	if ((unsigned)d->swizzle >= ARRAY_SIZE(swizzle_names))
		return BAD("%s: swizzle %d is not one of MMART_SWIZZLE_NONE/"
			   "32B/64B/128B", n, (int)d->swizzle);
	if (d->interleave == MMART_INTERLEAVE_32B
	    && d->swizzle != MMART_SWIZZLE_32B)
		return BAD("%s: MMART_INTERLEAVE_32B needs MMART_SWIZZLE_32B "
			   "(got %s)", n, swizzle_names[d->swizzle]);
	if ((unsigned)d->l2_promotion > MMART_L2_256B)
		return BAD("%s: L2 promotion %d is not one of MMART_L2_NONE/"
			   "64B/128B/256B", n, (int)d->l2_promotion);
	if ((unsigned)d->oob_fill > MMART_OOB_NAN)
		return BAD("%s: out-of-bounds fill %d is not MMART_OOB_ZERO "
			   "or MMART_OOB_NAN", n, (int)d->oob_fill);
	if (d->oob_fill == MMART_OOB_NAN && !dtypes[d->dtype].is_float)
		return BAD("%s: MMART_OOB_NAN needs a floating-point type (got "
			   "%s); use MMART_OOB_ZERO", n,
			   dtypes[d->dtype].name);
	return MMART_OK;
}

/* Global memory: address, dims, strides. */
static mmart_status check_global(const char *n, const mmart_tensor_desc *d)
{
	uint64_t align = d->interleave == MMART_INTERLEAVE_32B ? 32 : 16;
	uint64_t esize = dtypes[d->dtype].size, span;

	if (!d->addr)
		return BAD("%s: global address is 0", n);
	if (d->addr % align)
		return BAD("%s: global address 0x%" PRIx64 " is not %" PRIu64
			   "-byte aligned (nearest: 0x%" PRIx64 " or 0x%"
			   PRIx64 ")", n, d->addr, align,
			   d->addr - d->addr % align,
			   d->addr - d->addr % align + align);
	for (unsigned i = 0; i < d->rank; i++)
		if (d->dims[i] < 1 || d->dims[i] > DIM_LIMIT)
			return BAD("%s: dims[%u] = %" PRIu64 ": a dimension "
				   "has 1 to 2^32 elements (nearest: %" PRIu64
				   ")", n, i, d->dims[i],
				   d->dims[i] < 1 ? 1 : DIM_LIMIT);
	span = d->dims[0] * esize;
	for (unsigned i = 0; i + 1 < d->rank; i++) {
		uint64_t s = d->strides[i];

		if (s % align)
			return BAD("%s: strides[%u] = %" PRIu64 " bytes "
				   "(dimension %u) is not a multiple of %"
				   PRIu64 " (nearest: %" PRIu64 " or %" PRIu64
				   ")", n, i, s, i + 1, align, s - s % align,
				   s - s % align + align);
		if (s >= STRIDE_LIMIT)
			return BAD("%s: strides[%u] = %" PRIu64 " bytes: "
				   "strides are below 2^40 (nearest: %" PRIu64
				   ")", n, i, s, STRIDE_LIMIT - align);
		/* The documented layout: each stride covers the previous
		 * dimension whole (plus padding).  Interleaved layouts
		 * count dims[0] differently; the driver judges those. */
		if (d->interleave == MMART_INTERLEAVE_NONE && s && s < span)
			return BAD("%s: strides[%u] = %" PRIu64 " bytes "
				   "(dimension %u) is smaller than the %"
				   PRIu64 " bytes of the dimensions inside it "
				   "(nearest: %" PRIu64 ", or 0 to repeat; "
				   "strides are in bytes)", n, i, s, i + 1, span,
				   (span + align - 1) / align * align);
		if (s && d->dims[i + 1] > UINT64_MAX / s)
			return BAD("%s: strides[%u] * dims[%u] overflows", n,
				   i, i + 1);
		span = s * d->dims[i + 1];
	}
	return MMART_OK;
}

/* The box and its traversal. */
static mmart_status check_box(const char *n, const mmart_tensor_desc *d)
{
	unsigned esize = dtypes[d->dtype].size;
	const char *tn = dtypes[d->dtype].name;

	for (unsigned i = 0; i < d->rank; i++)
		if (d->box[i] < 1 || d->box[i] > MAX_BOX)
			return BAD("%s: box[%u] = %u: a box spans 1 to %u "
				   "elements per dimension (nearest: %u)", n,
				   i, d->box[i], MAX_BOX,
				   d->box[i] < 1 ? 1 : MAX_BOX);
	if (d->interleave == MMART_INTERLEAVE_NONE) {
		unsigned bytes = d->box[0] * esize, per16 = 16 / esize;
		unsigned lo = bytes / 16 * per16, hi = lo + per16;

		char near[48];

		if (lo)
			snprintf(near, sizeof near, "%u or %u", lo, hi);
		else
			snprintf(near, sizeof near, "%u", hi);
		if (bytes % 16)
			return BAD("%s: box[0] = %u %s elements = %u bytes: "
				   "the inner box must be a multiple of 16 "
				   "bytes (nearest: %s elements)", n,
				   d->box[0], tn, bytes, near);
		if (d->swizzle != MMART_SWIZZLE_NONE) {
			unsigned spanb = 16u << d->swizzle;

			if (bytes > spanb)
				return BAD("%s: box[0] = %u %s elements = %u "
					   "bytes exceeds the %u-byte span of "
					   "%s (nearest: %u elements, or a "
					   "wider swizzle)", n, d->box[0], tn,
					   bytes, spanb,
					   swizzle_names[d->swizzle],
					   spanb / esize);
		}
	}
	for (unsigned i = 0; i < d->rank; i++)
		if (d->elem_strides[i] > MAX_ELEM_STRIDE)
			return BAD("%s: elem_strides[%u] = %u: a traversal "
				   "stride is 1 to %u (nearest: %u)", n, i,
				   d->elem_strides[i], MAX_ELEM_STRIDE,
				   MAX_ELEM_STRIDE);
	return MMART_OK;
}

mmart_status mmart_tensor_desc_check(const char *name,
				     const mmart_tensor_desc *desc)
{
	mmart_status s;

	if (!name)
		name = "tensor";
	if (!desc)
		return BAD("%s: tensor description is NULL", name);
	if ((s = check_enums(name, desc)) != MMART_OK
	    || (s = check_global(name, desc)) != MMART_OK)
		return s;
	return check_box(name, desc);
}

mmart_status mmart_tensor_map_encode(mmart_ctx *ctx, const char *name,
				     const mmart_tensor_desc *desc,
				     mmart_tensor_map *out)
{
	cuuint32_t estr[MAX_RANK], box[MAX_RANK];
	char call[96];
	mmart_status s;
	CUresult res;

	if ((s = mmart_tensor_desc_check(name, desc)) != MMART_OK)
		return s;
	if (!name)
		name = "tensor";
	if (!out || (uintptr_t)out % 64)
		return BAD("%s: the tensor map %s", name,
			   out ? "is not 64-byte aligned (use mmart_tensor_map)"
			       : "pointer is NULL");
	if (!ctx)
		return BAD("mmart_tensor_map_encode: ctx is NULL");
	if ((s = mmart_ctx_bind(ctx)) != MMART_OK
	    || (s = MMART_NEED(cuTensorMapEncodeTiled)) != MMART_OK)
		return s;
	if (ctx->cc_major < 9)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "%s: tensor maps need an sm_90 or newer "
				       "device (this is sm_%d%d)", name,
				       ctx->cc_major, ctx->cc_minor);
	for (unsigned i = 0; i < desc->rank; i++) {
		estr[i] = desc->elem_strides[i] ? desc->elem_strides[i] : 1;
		box[i] = desc->box[i];
	}
	res = cu.cuTensorMapEncodeTiled((CUtensorMap *)(void *)out,
			(CUtensorMapDataType)desc->dtype, desc->rank,
			(void *)(uintptr_t)desc->addr, desc->dims,
			desc->strides, box, estr,
			(CUtensorMapInterleave)desc->interleave,
			(CUtensorMapSwizzle)desc->swizzle,
			(CUtensorMapL2promotion)desc->l2_promotion,
			(CUtensorMapFloatOOBfill)desc->oob_fill);
	if (!res)
		return MMART_OK;
	snprintf(call, sizeof call, "cuTensorMapEncodeTiled (%s)", name);
	return mmart_cu_error(call, res, NULL);
}
