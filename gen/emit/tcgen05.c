/* tcgen05.c - the tcgen05.mma descriptors and shape rules.
 *
 * Sources: PTX ISA 9.1, "Instruction descriptor" (Tables 42-44), "Matrix
 * Shape" (Table 39), "Shared memory descriptor"; the smem descriptor
 * agrees with CUTLASS cute/arch/mma_sm100_desc.hpp (UMMA::SmemDescriptor).
 * ptxas never reads a descriptor and there is no sm_100 GPU here, so the
 * words are checked only against those tables (tests/unit/test_tcgen05.c).
 */
#include "tcgen05.h"
#include "desc.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KBIT(k) (1u << MMAGEN_KIND_##k)
#define K_STD (KBIT(F16) | KBIT(TF32) | KBIT(F8F6F4))
#define K_MX (KBIT(MXF8F6F4) | KBIT(MXF4) | KBIT(MXF4NVF4))

static int block_scaled(unsigned kind)
{
	return (K_MX >> kind) & 1;
}

/* ---- legal M and N (ISA Table 39) ---- */
enum { SP_DENSE = 1, SP_SPARSE = 2, SP_EITHER = 3 };

struct nrange {
	uint16_t lo, hi, step;
};

struct shape_rule {
	unsigned kinds;
	uint8_t cg, ws, sp;
	uint16_t m[3];          /* 0-terminated */
	struct nrange n[2];     /* step 0: unused */
};

static const struct shape_rule shape_rules[] = {
	{ K_STD, 1, 0, SP_EITHER, { 64, 128 }, { { 8, 256, 8 } } },
	{ K_STD, 2, 0, SP_EITHER, { 128, 256 }, { { 16, 256, 16 } } },
	{ KBIT(I8), 1, 0, SP_EITHER, { 64, 128 }, { { 8, 32, 8 }, { 48, 256, 16 } } },
	{ KBIT(I8), 2, 0, SP_EITHER, { 128, 256 }, { { 32, 256, 32 } } },
	{ K_STD | KBIT(I8), 1, 1, SP_DENSE, { 32, 64, 128 },
	  { { 64, 128, 64 }, { 256, 256, 1 } } },
	{ K_STD | KBIT(I8), 1, 1, SP_SPARSE, { 32, 64, 128 }, { { 64, 128, 64 } } },
	{ K_MX, 1, 0, SP_EITHER, { 128 }, { { 8, 256, 8 } } },
	{ K_MX, 2, 0, SP_DENSE, { 128, 256 }, { { 16, 256, 16 } } },
	{ K_MX, 2, 0, SP_SPARSE, { 256 }, { { 16, 256, 16 } } },
};

static const struct shape_rule *find_rule(const mmagen_form *f)
{
	unsigned sp = f->sparse ? SP_SPARSE : SP_DENSE;
	for (size_t i = 0; i < ARRAY_SIZE(shape_rules); i++) {
		const struct shape_rule *r = &shape_rules[i];
		if ((r->kinds >> f->kind & 1) && r->cg == f->cta_group &&
		    r->ws == f->ws && (r->sp & sp))
			return r;
	}
	return NULL;
}

static int n_legal(const struct shape_rule *r, unsigned n)
{
	for (int i = 0; i < 2 && r->n[i].step; i++)
		if (n >= r->n[i].lo && n <= r->n[i].hi && (n - r->n[i].lo) % r->n[i].step == 0)
			return 1;
	return 0;
}

/* "64 or 128", "32, 64 or 128" */
static void list_values(char *s, size_t len, const unsigned *v, int nv)
{
	size_t o = 0;
	s[0] = 0;
	for (int i = 0; i < nv && o < len; i++)
		o += (size_t)snprintf(s + o, len - o, "%s%u",
				      i == 0 ? "" : i + 1 == nv ? " or " : ", ", v[i]);
}

static void describe_n(char *s, size_t len, const struct shape_rule *r)
{
	unsigned v[8];
	int nv = 0, big = 0;
	for (int i = 0; i < 2 && r->n[i].step; i++)
		for (unsigned n = r->n[i].lo; n <= r->n[i].hi; n += r->n[i].step)
			if (nv < 8)
				v[nv++] = n;
			else
				big = 1;
	if (!big && nv <= 4) {
		list_values(s, len, v, nv);
		return;
	}
	size_t o = 0;
	for (int i = 0; i < 2 && r->n[i].step && o < len; i++)
		o += (size_t)snprintf(s + o, len - o, "%s%u to %u in steps of %u",
				      i ? ", or " : "", r->n[i].lo, r->n[i].hi, r->n[i].step);
}

static unsigned nearest_n(const struct shape_rule *r, unsigned n)
{
	unsigned best = 0, bd = ~0u;
	for (int i = 0; i < 2 && r->n[i].step; i++)
		for (unsigned v = r->n[i].lo; v <= r->n[i].hi; v += r->n[i].step) {
			unsigned d = v > n ? v - n : n - v;
			if (d < bd)
				bd = d, best = v;
		}
	return best;
}

/* "kind::f16 .ws .sp with cta_group::1" */
static void rule_name(char *s, size_t len, const mmagen_form *f)
{
	snprintf(s, len, "tcgen05 kind::%s%s%s%s with cta_group::%u", mmagen_qual_name(MMAGEN_Q_KIND, f->kind),
		 f->ws ? " .ws" : "", f->sparse ? " .sp" : "", f->ashift ? " .ashift" : "",
		 f->cta_group);
}

mmagen_status mmagen_tc_check_shape(const mmagen_form *f, unsigned m, unsigned n)
{
	char name[96], what[128];
	if (!f || f->family != MMAGEN_FAM_TCGEN05)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tcgen05 shape check: not a tcgen05 form");
	rule_name(name, sizeof name, f);
	const struct shape_rule *r = find_rule(f);
	if (!r)
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s has no legal shape", name);
	unsigned mv[3], nm = 0;
	int mok = 0;
	for (int i = 0; i < 3 && r->m[i]; i++) {
		mv[nm++] = r->m[i];
		mok |= r->m[i] == m;
	}
	if (!mok) {
		list_values(what, sizeof what, mv, (int)nm);
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s takes M %s (got %u)",
					name, what, m);
	}
	/* ISA tcgen05.mma: .ashift "can only be used with M = 128 or M = 256" */
	if (f->ashift && m != 128 && m != 256)
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s takes M 128 or 256 (got %u)",
					name, m);
	if (!n_legal(r, n)) {
		describe_n(what, sizeof what, r);
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s takes N %s (got %u, nearest %u)",
					name, what, n, nearest_n(r, n));
	}
	return MMAGEN_OK;
}

/* ---- instruction descriptor (ISA Tables 42-44) ---- */
struct type_code {
	uint8_t kind, type, code;
};

/* atype/btype field values per kind. */
static const struct type_code type_codes[] = {
	{ MMAGEN_KIND_F16, MMAGEN_F16, 0 }, { MMAGEN_KIND_F16, MMAGEN_BF16, 1 },
	{ MMAGEN_KIND_TF32, MMAGEN_TF32, 2 },
	{ MMAGEN_KIND_F8F6F4, MMAGEN_E4M3, 0 }, { MMAGEN_KIND_F8F6F4, MMAGEN_E5M2, 1 },
	{ MMAGEN_KIND_F8F6F4, MMAGEN_E2M3, 3 }, { MMAGEN_KIND_F8F6F4, MMAGEN_E3M2, 4 },
	{ MMAGEN_KIND_F8F6F4, MMAGEN_E2M1, 5 },
	{ MMAGEN_KIND_MXF8F6F4, MMAGEN_E4M3, 0 }, { MMAGEN_KIND_MXF8F6F4, MMAGEN_E5M2, 1 },
	{ MMAGEN_KIND_MXF8F6F4, MMAGEN_E2M3, 3 }, { MMAGEN_KIND_MXF8F6F4, MMAGEN_E3M2, 4 },
	{ MMAGEN_KIND_MXF8F6F4, MMAGEN_E2M1, 5 },
	{ MMAGEN_KIND_I8, MMAGEN_U8, 0 }, { MMAGEN_KIND_I8, MMAGEN_S8, 1 },
	{ MMAGEN_KIND_MXF4, MMAGEN_E2M1, 1 }, { MMAGEN_KIND_MXF4NVF4, MMAGEN_E2M1, 1 },
};

static int type_code(unsigned kind, unsigned type)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_codes); i++)
		if (type_codes[i].kind == kind && type_codes[i].type == type)
			return type_codes[i].code;
	return -1;
}

/* dtype field (bits 4-5) of the kinds that have one. */
static int dtype_code(unsigned t)
{
	return t == MMAGEN_F16 ? 0 : t == MMAGEN_F32 ? 1 : t == MMAGEN_S32 ? 2 : -1;
}

/* Scale factors per row of A (ISA Table 56): 1X, 2X or 4X. */
static unsigned scale_count(const mmagen_form *f)
{
	if (f->kind == MMAGEN_KIND_MXF8F6F4)
		return 1;
	if (f->kind == MMAGEN_KIND_MXF4NVF4 && (f->scale_vec == 4 || f->scale_vec == 16))
		return 4;
	return 2;
}

unsigned tc_scale_count(const mmagen_form *f)
{
	return block_scaled(f->kind) ? scale_count(f) : 0;
}

/* The sparsity selector (idesc bits of SEL below) picks where in Tensor
 * Memory the metadata is read (PTX ISA 9.1, 9.7.16.10.8.4 "Sparsity
 * selector"):
 *   .sp kind::f16, kind::tf32: 0..3, each value selecting sub-columns of
 *     the metadata (sections .4.1-.4.4, Figures 262-265 for M = 64 and
 *     M = 128/256; the text puts no other bound on the value);
 *   .sp kind::i8, kind::f8f6f4: "must be 0" (sections .4.5, .4.6);
 *   block-scaled kinds: "assumed to be 0" (same sections): 0 here;
 *   dense forms have no metadata: 0. */
static mmagen_status check_sparse_sel(const mmagen_form *f, unsigned sel, const char *name)
{
	int any = f->sparse && (f->kind == MMAGEN_KIND_F16 || f->kind == MMAGEN_KIND_TF32);
	if (sel == 0 || (any && sel <= 3))
		return MMAGEN_OK;
	if (any)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s takes sparsity selector 0..3 (got %u, nearest 3)", name, sel);
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"%s takes sparsity selector 0 (got %u): %s", name, sel,
		!f->sparse ? "dense forms have no metadata" :
		block_scaled(f->kind) ? "the ISA assumes 0 for block-scaled kinds" :
		"the ISA requires 0 for .sp kind::i8 and kind::f8f6f4");
}

/* Rules between fields and the form; the field tables below check that
 * each value fits. */
static mmagen_status check_params(const mmagen_form *f, const mmagen_tc_idesc *p,
				  const char *name)
{
	int bs = block_scaled(f->kind);
	mmagen_status s;
	if ((p->neg_a || p->neg_b) && f->kind == MMAGEN_KIND_I8)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s cannot negate A or B (the negate bits must be 0)", name);
	if (p->saturate && f->kind != MMAGEN_KIND_I8)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has no saturate bit (kind::i8 only)", name);
	if ((s = check_sparse_sel(f, p->sparse_sel, name)))
		return s;
	if (p->max_shift && !f->ws)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s takes max shift 0 (got %u; 8, 16 or 32 only with .ws)", name,
			p->max_shift);
	/* ISA Table 54: MN-major only for 8-, 16- and 32-bit types; the
	 * mxf4 kinds have no transpose at all. */
	unsigned ab = mmagen_type_bits((mmagen_type)f->a), bb = mmagen_type_bits((mmagen_type)f->b);
	if ((p->major_a == 1 && ab < 8) || (p->major_b == 1 && bb < 8))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s: MN-major A or B needs 8-, 16- or 32-bit elements (use K-major)", name);
	if (!bs && (p->sfa_id || p->sfb_id))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has no scale factors (scale-factor ids must be 0)", name);
	if (bs) {
		unsigned v = scale_count(f);
		if (p->sfa_id > 3 || p->sfb_id > 3 || p->sfa_id % v || p->sfb_id % v)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"%s with %u scale factors per row takes scale-factor ids %s (got %u, %u)",
				name, v, v == 1 ? "0..3" : v == 2 ? "0 or 2" : "0",
				p->sfa_id, p->sfb_id);
	}
	if (p->k96 && (f->kind != MMAGEN_KIND_MXF4 && f->kind != MMAGEN_KIND_MXF4NVF4))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has no K = 96 (kind::mxf4 and kind::mxf4nvf4 only)", name);
	if (p->k96 && (f->sparse || f->cta_group != 2 || p->m != 256))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s: K = 96 needs dense cta_group::2 with M 256 (got M %u)", name, p->m);
	return MMAGEN_OK;
}

/* The instruction descriptor's fields: ISA Table 43 (kind::f16, tf32,
 * f8f6f4, i8) and Table 44 (the block-scaled kinds).  Columns: desc.h.
 * A, B and D are type codes (type_codes[] and dtype_code() above); M and
 * N are stored shifted; bits outside the fields are reserved (0). */
enum { ID_SEL, ID_SPARSE, ID_SAT, ID_DTYPE, ID_ATYPE, ID_BTYPE, ID_NEGA, ID_NEGB,
       ID_MAJA, ID_MAJB, ID_N, ID_M, ID_SHIFT, ID_NFIELDS };
enum { IB_SPARSE, IB_SFB, IB_ATYPE, IB_BTYPE, IB_NEGA, IB_NEGB, IB_MAJA, IB_MAJB,
       IB_N, IB_STYPE, IB_M, IB_SFA, IB_K96, IB_NFIELDS };

static const struct desc_code max_shift_codes[] = {
	{ 0, 0 }, { 8, 1 }, { 16, 2 }, { 32, 3 },
};

static const struct desc_field idesc_fields[ID_NFIELDS] = {
	/*               name                lo  width shift */
	[ID_SEL]    = { "sparsity selector", 0, 2, 0, NULL, 0 },
	[ID_SPARSE] = { "sparsity", 2, 1, 0, NULL, 0 },
	[ID_SAT]    = { "saturate", 3, 1, 0, NULL, 0 },
	[ID_DTYPE]  = { "D type", 4, 2, 0, NULL, 0 },
	[ID_ATYPE]  = { "A type", 7, 3, 0, NULL, 0 },
	[ID_BTYPE]  = { "B type", 10, 3, 0, NULL, 0 },
	[ID_NEGA]   = { "negate A", 13, 1, 0, NULL, 0 },
	[ID_NEGB]   = { "negate B", 14, 1, 0, NULL, 0 },
	[ID_MAJA]   = { "transpose A", 15, 1, 0, NULL, 0 },
	[ID_MAJB]   = { "transpose B", 16, 1, 0, NULL, 0 },
	[ID_N]      = { "N", 17, 6, 3, NULL, 0 },
	[ID_M]      = { "M", 24, 5, 4, NULL, 0 },
	[ID_SHIFT]  = { "max shift", 30, 2, 0, DESC_CODES(max_shift_codes) },
};

static const struct desc_field idesc_bs_fields[IB_NFIELDS] = {
	[IB_SPARSE] = { "sparsity", 2, 1, 0, NULL, 0 },
	[IB_SFB]    = { "SFB id", 4, 2, 0, NULL, 0 },
	[IB_ATYPE]  = { "A type", 7, 3, 0, NULL, 0 },
	[IB_BTYPE]  = { "B type", 10, 3, 0, NULL, 0 },
	[IB_NEGA]   = { "negate A", 13, 1, 0, NULL, 0 },
	[IB_NEGB]   = { "negate B", 14, 1, 0, NULL, 0 },
	[IB_MAJA]   = { "transpose A", 15, 1, 0, NULL, 0 },
	[IB_MAJB]   = { "transpose B", 16, 1, 0, NULL, 0 },
	[IB_N]      = { "N", 17, 6, 3, NULL, 0 },
	[IB_STYPE]  = { "scale type (1 ue8m0)", 23, 1, 0, NULL, 0 },
	[IB_M]      = { "M", 27, 2, 7, NULL, 0 },
	[IB_SFA]    = { "SFA id", 29, 2, 0, NULL, 0 },
	[IB_K96]    = { "K = 96", 31, 1, 0, NULL, 0 },
};

static const struct desc_spec idesc_spec = {
	"tcgen05 instruction descriptor", idesc_fields, ID_NFIELDS, 0,
};
static const struct desc_spec idesc_bs_spec = {
	"tcgen05 block-scaled instruction descriptor", idesc_bs_fields, IB_NFIELDS, 0,
};

mmagen_status mmagen_tc_idesc_encode(const mmagen_form *f, const mmagen_tc_idesc *p,
				     uint32_t *out)
{
	char name[96];
	mmagen_status s;
	uint64_t w;
	if (!p || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_tc_idesc_encode: NULL argument");
	if ((s = mmagen_tc_check_shape(f, p->m, p->n)))
		return s;
	rule_name(name, sizeof name, f);
	if ((s = check_params(f, p, name)))
		return s;
	int at = type_code(f->kind, f->a), bt = type_code(f->kind, f->b);
	if (at < 0 || bt < 0)
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s does not take A %s, B %s",
			name, mmagen_type_name((mmagen_type)f->a), mmagen_type_name((mmagen_type)f->b));
	if (block_scaled(f->kind)) {
		const uint64_t v[IB_NFIELDS] = {
			[IB_SPARSE] = !!f->sparse, [IB_SFB] = p->sfb_id,
			[IB_ATYPE] = (unsigned)at, [IB_BTYPE] = (unsigned)bt,
			[IB_NEGA] = !!p->neg_a, [IB_NEGB] = !!p->neg_b,
			[IB_MAJA] = p->major_a, [IB_MAJB] = p->major_b, [IB_N] = p->n,
			[IB_STYPE] = f->stype == MMAGEN_UE8M0, [IB_M] = p->m,
			[IB_SFA] = p->sfa_id, [IB_K96] = !!p->k96,
		};
		s = desc_pack(&idesc_bs_spec, v, &w);
	} else {
		int dt = dtype_code(f->d);
		if (dt < 0)
			return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s does not write D %s", name,
						mmagen_type_name((mmagen_type)f->d));
		const uint64_t v[ID_NFIELDS] = {
			[ID_SEL] = p->sparse_sel, [ID_SPARSE] = !!f->sparse,
			[ID_SAT] = !!p->saturate, [ID_DTYPE] = (unsigned)dt,
			[ID_ATYPE] = (unsigned)at, [ID_BTYPE] = (unsigned)bt,
			[ID_NEGA] = !!p->neg_a, [ID_NEGB] = !!p->neg_b,
			[ID_MAJA] = p->major_a, [ID_MAJB] = p->major_b, [ID_N] = p->n,
			[ID_M] = p->m, [ID_SHIFT] = p->max_shift,
		};
		s = desc_pack(&idesc_spec, v, &w);
	}
	if (s)
		return s;
	*out = (uint32_t)w;
	return MMAGEN_OK;
}

static mmagen_status not_form(const char *name, const char *field, uint32_t w)
{
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"instruction descriptor 0x%08x is not one of %s: its %s differs", w, name, field);
}

mmagen_status mmagen_tc_idesc_decode(const mmagen_form *f, uint32_t w, mmagen_tc_idesc *out)
{
	char name[96];
	mmagen_status s;
	if (!f || f->family != MMAGEN_FAM_TCGEN05 || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_tc_idesc_decode: needs a tcgen05 form and an output");
	rule_name(name, sizeof name, f);
	int at = type_code(f->kind, f->a), bt = type_code(f->kind, f->b);
	memset(out, 0, sizeof *out);
	if (block_scaled(f->kind)) {
		uint64_t v[IB_NFIELDS];
		if ((s = desc_unpack(&idesc_bs_spec, w, v)))
			return s;
		if (v[IB_SPARSE] != !!f->sparse)
			return not_form(name, "sparsity bit", w);
		if ((int)v[IB_ATYPE] != at || (int)v[IB_BTYPE] != bt)
			return not_form(name, "A or B type", w);
		if (v[IB_STYPE] != (f->stype == MMAGEN_UE8M0))
			return not_form(name, "scale type", w);
		out->sfb_id = (unsigned)v[IB_SFB];
		out->neg_a = (int)v[IB_NEGA];
		out->neg_b = (int)v[IB_NEGB];
		out->major_a = (unsigned)v[IB_MAJA];
		out->major_b = (unsigned)v[IB_MAJB];
		out->n = (unsigned)v[IB_N];
		out->m = (unsigned)v[IB_M];
		out->sfa_id = (unsigned)v[IB_SFA];
		out->k96 = (int)v[IB_K96];
		return MMAGEN_OK;
	}
	uint64_t v[ID_NFIELDS];
	if ((s = desc_unpack(&idesc_spec, w, v)))
		return s;
	if (v[ID_SPARSE] != !!f->sparse)
		return not_form(name, "sparsity bit", w);
	if ((int)v[ID_ATYPE] != at || (int)v[ID_BTYPE] != bt)
		return not_form(name, "A or B type", w);
	if ((int)v[ID_DTYPE] != dtype_code(f->d))
		return not_form(name, "D type", w);
	out->sparse_sel = (unsigned)v[ID_SEL];
	out->saturate = (int)v[ID_SAT];
	out->neg_a = (int)v[ID_NEGA];
	out->neg_b = (int)v[ID_NEGB];
	out->major_a = (unsigned)v[ID_MAJA];
	out->major_b = (unsigned)v[ID_MAJB];
	out->n = (unsigned)v[ID_N];
	out->m = (unsigned)v[ID_M];
	out->max_shift = (unsigned)v[ID_SHIFT];
	return MMAGEN_OK;
}

/* ---- sm_100 shared-memory descriptor (PTX ISA "Shared memory
 * descriptor"; agrees with CUTLASS's UMMA::SmemDescriptor).  Columns:
 * desc.h.  Bits 46-48 hold the constant 0b001. ---- */
static const struct desc_code tc_swizzle_codes[] = {
	{ MMAGEN_SWIZZLE_NONE, 0 }, { MMAGEN_SWIZZLE_32B, 6 }, { MMAGEN_SWIZZLE_64B, 4 },
	{ MMAGEN_SWIZZLE_128B, 2 }, { MMAGEN_SWIZZLE_128B_BASE32B, 1 },
};

enum { SD_START, SD_LBO, SD_SBO, SD_BASE, SD_LBO_MODE, SD_SWIZZLE, SD_N };

static const struct desc_field tc_sdesc_fields[SD_N] = {
	/*                  name            lo  width shift */
	[SD_START]    = { "start address", 0, 14, 4, NULL, 0 },
	[SD_LBO]      = { "LBO", 16, 14, 4, NULL, 0 },
	[SD_SBO]      = { "SBO", 32, 14, 4, NULL, 0 },
	[SD_BASE]     = { "base offset", 49, 3, 0, NULL, 0 },
	[SD_LBO_MODE] = { "LBO mode", 52, 1, 0, NULL, 0 },
	[SD_SWIZZLE]  = { "swizzle", 61, 3, 0, DESC_CODES(tc_swizzle_codes) },
};

static const struct desc_spec tc_sdesc_spec = {
	"sm_100 smem descriptor", tc_sdesc_fields, SD_N, 1ull << 46,
};

mmagen_status mmagen_tc_sdesc_encode(const mmagen_tc_sdesc *d, uint64_t *out)
{
	if (!d || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_tc_sdesc_encode: NULL argument");
	const uint64_t v[SD_N] = {
		[SD_START] = d->start, [SD_LBO] = d->lbo, [SD_SBO] = d->sbo,
		[SD_BASE] = d->base_offset, [SD_LBO_MODE] = d->lbo_mode,
		[SD_SWIZZLE] = d->swizzle,
	};
	return desc_pack(&tc_sdesc_spec, v, out);
}

/* Descriptor field values that only some targets take (targets.def
 * features): field, value, feature, what it is. */
static const struct {
	unsigned field;
	uint64_t value;
	uint32_t feature;
	const char *what;
} sdesc_gates[] = {
	{ SD_LBO_MODE, 1, F_TC05LBO, "LBO mode 1 (absolute leading-dimension address)" },
};

mmagen_status mmagen_tc_sdesc_encode_on(const mmagen_tc_sdesc *d, int t, uint64_t *out)
{
	if (!d || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_tc_sdesc_encode_on: NULL argument");
	if (t < 0 || t >= T_COUNT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_tc_sdesc_encode_on: target %d is not one of mmagen_target_parse's", t);
	const uint64_t v[SD_N] = { [SD_LBO_MODE] = d->lbo_mode };
	for (size_t i = 0; i < ARRAY_SIZE(sdesc_gates); i++) {
		if (v[sdesc_gates[i].field] != sdesc_gates[i].value ||
		    (mmagen_targets[t].features & sdesc_gates[i].feature))
			continue;
		char on[128] = "";
		size_t o = 0;
		for (int u = 0; u < T_COUNT; u++)
			if (mmagen_targets[u].features & sdesc_gates[i].feature && o < sizeof on)
				o += (size_t)snprintf(on + o, sizeof on - o, "%s%s", o ? ", " : "",
						      mmagen_targets[u].name);
		return mmagen_set_error(MMAGEN_TARGET,
			"sm_100 smem descriptor: %s needs target %s (got %s; use LBO mode 0)",
			sdesc_gates[i].what, on, mmagen_targets[t].name);
	}
	return mmagen_tc_sdesc_encode(d, out);
}

mmagen_status mmagen_tc_sdesc_decode(uint64_t w, mmagen_tc_sdesc *out)
{
	uint64_t v[SD_N];
	mmagen_status s;
	if (!out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_tc_sdesc_decode: NULL argument");
	if ((s = desc_unpack(&tc_sdesc_spec, w, v)))
		return s;
	out->start = (uint32_t)v[SD_START];
	out->lbo = (uint32_t)v[SD_LBO];
	out->sbo = (uint32_t)v[SD_SBO];
	out->base_offset = (unsigned)v[SD_BASE];
	out->lbo_mode = (unsigned)v[SD_LBO_MODE];
	out->swizzle = (unsigned)v[SD_SWIZZLE];
	return MMAGEN_OK;
}
