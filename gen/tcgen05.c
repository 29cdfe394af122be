/* tcgen05.c - the tcgen05.mma descriptors and shape rules, and the Tensor
 * Memory plumbing the tile kernel uses.
 *
 * Sources: PTX ISA 9.1, "Instruction descriptor" (Tables 42-44), "Matrix
 * Shape" (Table 39), "Shared memory descriptor"; the smem descriptor
 * agrees with CUTLASS cute/arch/mma_sm100_desc.hpp (UMMA::SmemDescriptor).
 * ptxas never reads a descriptor and there is no sm_100 GPU here, so the
 * words are checked only against those tables (tests/unit/test_tcgen05.c).
 */
#include "tcgen05.h"

#include <stdio.h>
#include <stdlib.h>

#define KBIT(k) (1u << MMAGEN_KIND_##k)
#define K_STD (KBIT(F16) | KBIT(TF32) | KBIT(F8F6F4))
#define K_MX (KBIT(MXF8F6F4) | KBIT(MXF4) | KBIT(MXF4NVF4))

static const char *const kind_names[] = {
	"",
#define X(id, s) s,
	MMAGEN_KIND_LIST(X)
#undef X
};

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
	snprintf(s, len, "tcgen05 kind::%s%s%s with cta_group::%u", kind_names[f->kind],
		 f->ws ? " .ws" : "", f->sparse ? " .sp" : "", f->cta_group);
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

static mmagen_status check_params(const mmagen_form *f, const mmagen_tc_idesc *p,
				  const char *name)
{
	int bs = block_scaled(f->kind);
	if ((p->neg_a || p->neg_b) && f->kind == MMAGEN_KIND_I8)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s cannot negate A or B (the negate bits must be 0)", name);
	if (p->saturate && f->kind != MMAGEN_KIND_I8)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has no saturate bit (kind::i8 only)", name);
	if (p->sparse_sel > 3 || (p->sparse_sel && (!f->sparse || bs)))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s takes sparsity selector 0 (got %u; 0..3 only for sparse, non-block-scaled kinds)",
			name, p->sparse_sel);
	if (p->max_shift && (!f->ws || (p->max_shift != 8 && p->max_shift != 16 &&
					 p->max_shift != 32)))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s takes max shift 0%s (got %u)", name,
			f->ws ? ", 8, 16 or 32" : " (.ws only)", p->max_shift);
	if (p->major_a > 1 || p->major_b > 1)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"major-ness is 0 (K-major) or 1 (MN-major)");
	/* ISA Table 54: MN-major only for 8-, 16- and 32-bit types; the
	 * mxf4 kinds have no transpose at all. */
	unsigned ab = mmagen_type_bits((mmagen_type)f->a), bb = mmagen_type_bits((mmagen_type)f->b);
	if ((p->major_a && ab < 8) || (p->major_b && bb < 8))
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

static unsigned shift_code(unsigned s)
{
	return s == 8 ? 1 : s == 16 ? 2 : s == 32 ? 3 : 0;
}

mmagen_status mmagen_tc_idesc_encode(const mmagen_form *f, const mmagen_tc_idesc *p,
				     uint32_t *out)
{
	char name[96];
	mmagen_status s;
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
	uint32_t w = f->sparse ? 1u << 2 : 0;
	w |= (uint32_t)at << 7 | (uint32_t)bt << 10;
	w |= (uint32_t)!!p->neg_a << 13 | (uint32_t)!!p->neg_b << 14;
	w |= (uint32_t)p->major_a << 15 | (uint32_t)p->major_b << 16;
	w |= (uint32_t)(p->n >> 3) << 17;
	/* M >> 4 at 24-28; the block-scaled tables write M >> 7 at 27-28,
	 * the same bits for M 128 and 256. */
	w |= (uint32_t)(p->m >> 4) << 24;
	if (block_scaled(f->kind)) {
		w |= (uint32_t)p->sfb_id << 4;
		w |= (uint32_t)(f->stype == MMAGEN_UE8M0) << 23;
		w |= (uint32_t)p->sfa_id << 29;
		w |= (uint32_t)!!p->k96 << 31;
		*out = w;
		return MMAGEN_OK;
	}
	int dt = dtype_code(f->d);
	if (dt < 0)
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s does not write D %s", name,
					mmagen_type_name((mmagen_type)f->d));
	w |= p->sparse_sel & 3;
	w |= (uint32_t)!!p->saturate << 3;
	w |= (uint32_t)dt << 4;
	w |= shift_code(p->max_shift) << 30;
	*out = w;
	return MMAGEN_OK;
}

/* ---- sm_100 shared-memory descriptor ---- */
static int fits14(uint32_t v)
{
	return v % 16 == 0 && (v >> 4) < (1u << 14);
}

mmagen_status mmagen_tc_smem_desc(const mmagen_tc_sdesc *d, uint64_t *out)
{
	if (!d || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_tc_smem_desc: NULL argument");
	if (!fits14(d->start) || !fits14(d->lbo) || !fits14(d->sbo))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tcgen05 smem descriptor: start, LBO and SBO are 16-byte multiples below 256 KiB (got 0x%x, 0x%x, 0x%x)",
			d->start, d->lbo, d->sbo);
	if (d->base_offset > 7 || d->lbo_mode > 1 || d->lbo_mode < 0)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tcgen05 smem descriptor: base offset is 0..7, LBO mode 0 or 1");
	unsigned sw = d->swizzle;
	if (sw > 6 || sw == 3 || sw == 5)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tcgen05 smem descriptor: swizzle %u does not exist; use 0 (none), 1 (128B, 32B atoms), 2 (128B), 4 (64B) or 6 (32B)",
			sw);
	uint64_t w = (uint64_t)(d->start >> 4);
	w |= (uint64_t)(d->lbo >> 4) << 16;
	w |= (uint64_t)(d->sbo >> 4) << 32;
	w |= (uint64_t)1 << 46;                  /* fixed 0b001 at 46-48 */
	w |= (uint64_t)d->base_offset << 49;
	w |= (uint64_t)d->lbo_mode << 52;
	w |= (uint64_t)sw << 61;
	*out = w;
	return MMAGEN_OK;
}

/* ---- plumbing ---- */
void tc_emit_alloc(struct buf *b, unsigned cg, const char *slot, unsigned ncols)
{
	emitf(b, "\ttcgen05.alloc.cta_group::$u.sync.aligned.shared::cta.b32 [$s], $u;\n",
	      cg, slot, ncols);
}

void tc_emit_relinquish(struct buf *b, unsigned cg)
{
	emitf(b, "\ttcgen05.relinquish_alloc_permit.cta_group::$u.sync.aligned;\n", cg);
}

void tc_emit_dealloc(struct buf *b, unsigned cg, const char *taddr, unsigned ncols)
{
	emitf(b, "\ttcgen05.dealloc.cta_group::$u.sync.aligned.b32 $s, $u;\n", cg, taddr, ncols);
}

void tc_emit_fence_before(struct buf *b)
{
	buf_puts(b, "\ttcgen05.fence::before_thread_sync;\n");
}

void tc_emit_fence_after(struct buf *b)
{
	buf_puts(b, "\ttcgen05.fence::after_thread_sync;\n");
}

static void reg_list(struct buf *b, unsigned num, const char *prefix)
{
	buf_puts(b, "{");
	for (unsigned r = 0; r < num; r++)
		emitf(b, "$s$s$u", r ? ", " : "", prefix, r);
	buf_puts(b, "}");
}

void tc_emit_ld(struct buf *b, unsigned num, const char *prefix, const char *taddr)
{
	emitf(b, "\ttcgen05.ld.sync.aligned.32x32b.x$u.b32 ", num);
	reg_list(b, num, prefix);
	emitf(b, ", [$s];\n", taddr);
}

void tc_emit_st(struct buf *b, unsigned num, const char *prefix, const char *taddr)
{
	emitf(b, "\ttcgen05.st.sync.aligned.32x32b.x$u.b32 [$s], ", num, taddr);
	reg_list(b, num, prefix);
	buf_puts(b, ";\n");
}

void tc_emit_wait_ld(struct buf *b)
{
	buf_puts(b, "\ttcgen05.wait::ld.sync.aligned;\n");
}

void tc_emit_wait_st(struct buf *b)
{
	buf_puts(b, "\ttcgen05.wait::st.sync.aligned;\n");
}

void tc_emit_cp_32x128b(struct buf *b, unsigned cg, const char *taddr, const char *desc)
{
	emitf(b, "\ttcgen05.cp.cta_group::$u.32x128b.warpx4 [$s], $s;\n", cg, taddr, desc);
}

void tc_emit_commit(struct buf *b, unsigned cg, const char *mbar, const char *mask16)
{
	if (mask16)
		emitf(b, "\ttcgen05.commit.cta_group::$u.mbarrier::arrive::one.shared::cluster"
			 ".multicast::cluster.b64 [$s], $s;\n", cg, mbar, mask16);
	else
		emitf(b, "\ttcgen05.commit.cta_group::$u.mbarrier::arrive::one.shared::cluster"
			 ".b64 [$s];\n", cg, mbar);
}

void tc_emit_mbar_init(struct buf *b, const char *mbar, unsigned count)
{
	emitf(b, "\tmbarrier.init.shared::cta.b64 [$s], $u;\n", mbar, count);
}

void tc_emit_mbar_wait(struct buf *b, const char *mbar, unsigned parity,
		       const char *pred, const char *label)
{
	emitf(b, "$s:\n\tmbarrier.try_wait.parity.shared::cta.b64 $s, [$s], $u;\n"
		 "\t@!$s bra $s;\n", label, pred, mbar, parity, pred, label);
}
