/* candidates.c - see candidates.h.
 *
 * How the candidate space is built (per target; a stage sees every form
 * ptxas accepted so far in its family, and the sweep never assembles the
 * same opcode twice):
 *
 * mma (dense, .sp, .sp::ordered_metadata), all layouts row.col until M4:
 *   M1 probe   sparse x shape (13) x setting x A = B (18 types) x D = C
 *              (f16 f32 f64 s32).  A setting is the kind with its scale
 *              qualifiers: none; f8f6f4; mxf8f6f4/mxf4/mxf4nvf4 x
 *              .block_scale x scale_vec (none 1X 2X 4X block16 block32)
 *              x stype (ue8m0 ue4m3).  b1 needs a .popc op, so with b1
 *              the probe also tries .xor.popc and .and.popc.
 *   M2 types   every (sparse, shape, setting) with an accepted probe:
 *              A x B (18 x 18) x D = C (4).
 *   M3 accum   every accepted A, B of M2: all 16 (D, C) pairs.
 *   M4 quals   every accepted form so far: each qualifier alone, i.e.
 *              the other three layouts, .satfinite, each .popc op (and
 *              none), each f64 rounding .rn .rz .rm .rp.
 *   M5 combos  every accepted base: the product of the values that M4
 *              accepted for it in each qualifier dimension.
 *   The staging assumes only that a legal form's setting is legal with
 *   some A = B, D = C probe, and that a legal D != C pair has a legal
 *   D = C sibling; every qualifier is tried on every type-legal form.
 * wgmma (dense, .sp):
 *   W1 types   sparse x K (8 .. 512) x A x B x D (f16 f32 s32) with N in
 *              {8, 64} and A in shared memory (b1: each .popc op too).
 *   W2 shapes  every accepted type combination: N in 4, 8..256/8, 12,
 *              264 x A source (desc, registers) x .satfinite x .popc op.
 * tcgen05: the full opcode product (1568 candidates), one stage.
 * ldmatrix/stmatrix: the full product (192 candidates), one stage.
 */
#include "candidates.h"

#include <stdlib.h>
#include <string.h>

void cand_push(struct cand_set *s, const mmagen_form *f)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v)
			abort();
	}
	s->v[s->n++] = *f;
}

void cand_free(struct cand_set *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* Every element type, in mmagen_type order. */
#define FOR_TYPES(t) for (int t = 1; t < MMAGEN_TYPE_COUNT; t++)

static const uint8_t acc_types[] = { MMAGEN_F16, MMAGEN_F32, MMAGEN_F64, MMAGEN_S32 };

/* ---- mma ---- */

static const char *const mma_shapes[] = {
	"m8n8k4", "m8n8k8", "m8n8k16", "m8n8k32", "m8n8k128",
	"m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64",
	"m16n8k128", "m16n8k256", "m16n8k512",
};

static void set_shape(mmagen_form *f, const char *s)
{
	form_parse_shape(f, s, strlen(s));
}

static mmagen_form mma_base(int sparse)
{
	mmagen_form f;
	memset(&f, 0, sizeof f);
	f.family = MMAGEN_FAM_MMA;
	f.sparse = (uint8_t)sparse;
	f.alayout = MMAGEN_ROW;
	f.blayout = MMAGEN_COL;
	return f;
}

/* Push f with A = B = t, D = C in acc_types; b1 also with each .popc. */
static void push_probe_types(mmagen_form f, struct cand_set *out)
{
	FOR_TYPES(t) {
		f.a = f.b = (uint8_t)t;
		for (size_t i = 0; i < ARRAY_SIZE(acc_types); i++) {
			f.c = f.d = acc_types[i];
			for (int op = 0; op <= MMAGEN_AND_POPC; op++) {
				f.bitop = (uint8_t)op;
				if (op && t != MMAGEN_B1)
					continue;
				cand_push(out, &f);
			}
		}
	}
}

static void mma_probe(const struct cand_set *acc, struct cand_set *out)
{
	static const uint8_t vecs[] = { 0, 1, 2, 4, 16, 32 };
	static const uint8_t stypes[] = { MMAGEN_UE8M0, MMAGEN_UE4M3 };
	(void)acc;
	for (int sp = 0; sp <= MMAGEN_SPARSE_ORDERED; sp++)
		for (size_t s = 0; s < ARRAY_SIZE(mma_shapes); s++) {
			mmagen_form f = mma_base(sp);
			set_shape(&f, mma_shapes[s]);
			push_probe_types(f, out);
			f.kind = MMAGEN_KIND_F8F6F4;
			push_probe_types(f, out);
			f.block_scale = 1;
			for (int k = MMAGEN_KIND_MXF8F6F4; k <= MMAGEN_KIND_MXF4NVF4; k++)
				for (size_t v = 0; v < ARRAY_SIZE(vecs); v++)
					for (size_t st = 0; st < ARRAY_SIZE(stypes); st++) {
						f.kind = (uint8_t)k;
						f.scale_vec = vecs[v];
						f.stype = stypes[st];
						push_probe_types(f, out);
					}
		}
}

/* Same (sparse, shape, setting) as an earlier form in out? */
static int seen_setting(const mmagen_form *f, const mmagen_form *prev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mmagen_form g = prev[i];
		g.a = f->a;
		g.b = f->b;
		g.c = f->c;
		g.d = f->d;
		g.bitop = f->bitop;
		if (form_equal(&g, f))
			return 1;
	}
	return 0;
}

static void mma_types(const struct cand_set *acc, struct cand_set *out)
{
	struct cand_set keys = { 0 };
	for (size_t i = 0; i < acc->n; i++)
		if (!seen_setting(&acc->v[i], keys.v, keys.n))
			cand_push(&keys, &acc->v[i]);
	for (size_t i = 0; i < keys.n; i++) {
		mmagen_form f = keys.v[i];
		FOR_TYPES(a) FOR_TYPES(b) {
			f.a = (uint8_t)a;
			f.b = (uint8_t)b;
			for (size_t d = 0; d < ARRAY_SIZE(acc_types); d++) {
				f.c = f.d = acc_types[d];
				for (int op = 0; op <= MMAGEN_AND_POPC; op++) {
					f.bitop = (uint8_t)op;
					if (op && a != MMAGEN_B1 && b != MMAGEN_B1)
						continue;
					cand_push(out, &f);
				}
			}
		}
	}
	cand_free(&keys);
}

static void mma_accum(const struct cand_set *acc, struct cand_set *out)
{
	for (size_t i = 0; i < acc->n; i++) {
		mmagen_form f = acc->v[i];
		for (size_t d = 0; d < ARRAY_SIZE(acc_types); d++)
			for (size_t c = 0; c < ARRAY_SIZE(acc_types); c++) {
				f.d = acc_types[d];
				f.c = acc_types[c];
				cand_push(out, &f);
			}
	}
}

/* The qualifier dimensions of M4/M5: read and write one field each. */
enum { Q_LAYOUT, Q_SAT, Q_BITOP, Q_RND, Q_COUNT };
static const int q_values[Q_COUNT] = { 4, 2, 3, 5 };

static int q_get(const mmagen_form *f, int q)
{
	switch (q) {
	case Q_LAYOUT: return (f->alayout == MMAGEN_COL) * 2 + (f->blayout == MMAGEN_COL);
	case Q_SAT: return f->satfinite;
	case Q_BITOP: return f->bitop;
	default: return f->rnd;
	}
}

static void q_set(mmagen_form *f, int q, int v)
{
	switch (q) {
	case Q_LAYOUT:
		f->alayout = v & 2 ? MMAGEN_COL : MMAGEN_ROW;
		f->blayout = v & 1 ? MMAGEN_COL : MMAGEN_ROW;
		break;
	case Q_SAT: f->satfinite = (uint8_t)v; break;
	case Q_BITOP: f->bitop = (uint8_t)v; break;
	default: f->rnd = (uint8_t)v; break;
	}
}

/* A base is a form as the type stages make it: row.col, no .satfinite,
 * no rounding (the .popc op is a type-stage field for b1). */
static int is_base(const mmagen_form *f)
{
	return q_get(f, Q_LAYOUT) == 1 && !f->satfinite && !f->rnd;
}

static void mma_quals(const struct cand_set *acc, struct cand_set *out)
{
	for (size_t i = 0; i < acc->n; i++) {
		if (!is_base(&acc->v[i]))
			continue;
		for (int q = 0; q < Q_COUNT; q++)
			for (int v = 0; v < q_values[q]; v++) {
				mmagen_form f = acc->v[i];
				if (q_get(&f, q) == v)
					continue;
				q_set(&f, q, v);
				cand_push(out, &f);
			}
	}
}

/* Does g differ from base only in dimension q? */
static int differs_only_in(const mmagen_form *base, const mmagen_form *g, int q)
{
	mmagen_form h = *g;
	q_set(&h, q, q_get(base, q));
	return form_equal(&h, base);
}

static void push_product(mmagen_form f, const unsigned *ok, int q,
			 struct cand_set *out)
{
	if (q == Q_COUNT) {
		cand_push(out, &f);
		return;
	}
	for (int v = 0; v < q_values[q]; v++)
		if (ok[q] & (1u << v)) {
			q_set(&f, q, v);
			push_product(f, ok, q + 1, out);
		}
}

static void mma_combos(const struct cand_set *acc, struct cand_set *out)
{
	for (size_t i = 0; i < acc->n; i++) {
		const mmagen_form *base = &acc->v[i];
		unsigned ok[Q_COUNT];
		int extra = 0;
		if (!is_base(base))
			continue;
		for (int q = 0; q < Q_COUNT; q++)
			ok[q] = 1u << q_get(base, q);
		for (size_t j = 0; j < acc->n; j++)
			for (int q = 0; q < Q_COUNT; q++)
				if (j != i && differs_only_in(base, &acc->v[j], q)) {
					ok[q] |= 1u << q_get(&acc->v[j], q);
					extra++;
				}
		if (extra >= 2)
			push_product(*base, ok, 0, out);
	}
}

static const cand_stage mma_stages[] = {
	mma_probe, mma_types, mma_accum, mma_quals, mma_combos, NULL,
};

/* ---- wgmma ---- */

static const uint16_t wg_ks[] = { 8, 16, 32, 64, 128, 256, 512 };
static const uint8_t wg_acc[] = { MMAGEN_F16, MMAGEN_F32, MMAGEN_S32 };

static void wgmma_types(const struct cand_set *acc, struct cand_set *out)
{
	static const uint16_t probe_n[] = { 8, 64 };
	mmagen_form f;
	(void)acc;
	memset(&f, 0, sizeof f);
	f.family = MMAGEN_FAM_WGMMA;
	f.m = 64;
	f.asrc = MMAGEN_ASRC_SMEM;
	for (int sp = 0; sp <= MMAGEN_SPARSE_SP; sp++)
		for (size_t k = 0; k < ARRAY_SIZE(wg_ks); k++)
			FOR_TYPES(a) FOR_TYPES(b)
			for (size_t d = 0; d < ARRAY_SIZE(wg_acc); d++)
			for (size_t n = 0; n < ARRAY_SIZE(probe_n); n++)
			for (int op = 0; op <= MMAGEN_AND_POPC; op++) {
				if (op && a != MMAGEN_B1 && b != MMAGEN_B1)
					continue;
				f.sparse = (uint8_t)sp;
				f.k = wg_ks[k];
				f.a = (uint8_t)a;
				f.b = (uint8_t)b;
				f.c = f.d = wg_acc[d];
				f.n = probe_n[n];
				f.bitop = (uint8_t)op;
				cand_push(out, &f);
			}
}

static void wgmma_shapes(const struct cand_set *acc, struct cand_set *out)
{
	static const uint16_t odd_n[] = { 4, 12, 264 };
	for (size_t i = 0; i < acc->n; i++) {
		mmagen_form f = acc->v[i];
		for (unsigned n = 0; n < 32 + ARRAY_SIZE(odd_n); n++)
		for (int asrc = MMAGEN_ASRC_REG; asrc <= MMAGEN_ASRC_SMEM; asrc++)
		for (int sat = 0; sat <= 1; sat++)
		for (int op = 0; op <= MMAGEN_AND_POPC; op++) {
			f.n = (uint16_t)(n < 32 ? 8 * (n + 1) : odd_n[n - 32]);
			f.asrc = (uint8_t)asrc;
			f.satfinite = (uint8_t)sat;
			f.bitop = (uint8_t)op;
			cand_push(out, &f);
		}
	}
}

static const cand_stage wgmma_stages[] = { wgmma_types, wgmma_shapes, NULL };

/* ---- tcgen05: the opcode and the A source; types live in idesc ---- */

static void tcgen05_all(const struct cand_set *acc, struct cand_set *out)
{
	/* block_scale spellings: none, bare, 1X 2X 4X, block16, block32 */
	static const uint8_t bs[][2] = {
		{ 0, 0 }, { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 4 }, { 1, 16 }, { 1, 32 },
	};
	mmagen_form f;
	(void)acc;
	memset(&f, 0, sizeof f);
	f.family = MMAGEN_FAM_TCGEN05;
	for (int ws = 0; ws <= 1; ws++)
	for (int ash = 0; ash <= 1; ash++)
	for (int sp = 0; sp <= MMAGEN_SPARSE_SP; sp++)
	for (int cta = 1; cta <= 2; cta++)
	for (int k = MMAGEN_KIND_F16; k < MMAGEN_KIND_END; k++)
	for (size_t v = 0; v < ARRAY_SIZE(bs); v++)
	for (int asrc = MMAGEN_ASRC_SMEM; asrc <= MMAGEN_ASRC_TMEM; asrc++) {
		f.ws = (uint8_t)ws;
		f.ashift = (uint8_t)ash;
		f.sparse = (uint8_t)sp;
		f.cta_group = (uint8_t)cta;
		f.kind = (uint8_t)k;
		f.block_scale = bs[v][0];
		f.scale_vec = bs[v][1];
		f.asrc = (uint8_t)asrc;
		cand_push(out, &f);
	}
}

static const cand_stage tcgen05_stages[] = { tcgen05_all, NULL };

/* ---- ldmatrix / stmatrix ---- */

static void ldst_all(const struct cand_set *acc, struct cand_set *out)
{
	static const uint8_t shapes[][2] = { { 8, 8 }, { 16, 16 }, { 8, 16 }, { 16, 8 } };
	mmagen_form f;
	(void)acc;
	memset(&f, 0, sizeof f);
	for (int fam = MMAGEN_FAM_LDMATRIX; fam <= MMAGEN_FAM_STMATRIX; fam++)
	for (size_t s = 0; s < ARRAY_SIZE(shapes); s++)
	for (int num = 1; num <= 4; num *= 2)
	for (int tr = 0; tr <= 1; tr++)
	for (int ty = MMAGEN_LD_B16; ty <= MMAGEN_LD_B4P64; ty++) {
		f.family = (uint8_t)fam;
		f.m = shapes[s][0];
		f.n = shapes[s][1];
		f.num = (uint8_t)num;
		f.trans = (uint8_t)tr;
		f.ldtype = (uint8_t)ty;
		cand_push(out, &f);
	}
}

static const cand_stage ldst_stages[] = { ldst_all, NULL };

const struct cand_family cand_families[] = {
	{ "mma", mma_stages },
	{ "wgmma", wgmma_stages },
	{ "tcgen05", tcgen05_stages },
	{ "ldmatrix/stmatrix", ldst_stages },
	{ NULL, NULL },
};
