/* test_gemm_params.c - every GEMM variant's parameters, three ways:
 *   - the names and kinds the JSON manifest lists, in order;
 *   - the .entry parameters of the emitted PTX, in order;
 *   - the order `mmagen run gemm` passes them in (gen/cli/run_gemm.c,
 *     launch_mmagen and launch_mma_sync), written out again below.
 * Variants: targets sm_80..sm_120a, both paths, the types, accumulators,
 * FP8 D (d_scale), layouts, split-K none/S/auto, the sm_120a block
 * scales and sm_90a's fp8-block: every request mmagen_gemm_info_of
 * accepts among them. */
#include "mmagen.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 32

struct plist {
	unsigned n;
	char name[MAXP][32], kind[MAXP][16];
};

static int add(struct plist *l, const char *name, size_t nlen, const char *kind)
{
	if (l->n >= MAXP || nlen >= sizeof l->name[0])
		return 1;
	memcpy(l->name[l->n], name, nlen);
	l->name[l->n][nlen] = '\0';
	snprintf(l->kind[l->n], sizeof l->kind[0], "%s", kind);
	l->n++;
	return 0;
}

/* The manifest's "params": [ {"name": "x", "kind": "k", ...}, ... ]. */
static int json_params(const char *js, struct plist *l)
{
	const char *p = strstr(js, "\"params\": [");
	const char *end = p ? strstr(p, "\n  ]") : NULL;    /* "dims": [...] inside */
	l->n = 0;
	if (!p || !end)
		return 1;
	while ((p = strstr(p, "{\"name\": \"")) && p < end) {
		const char *nm = p + 10, *nq = strchr(nm, '"');
		const char *k = nq ? strstr(nq, "\"kind\": \"") : NULL;
		const char *kq = k ? strchr(k + 9, '"') : NULL;
		char kind[16];
		if (!kq || kq > end || (size_t)(kq - (k + 9)) >= sizeof kind)
			return 1;
		memcpy(kind, k + 9, (size_t)(kq - (k + 9)));
		kind[kq - (k + 9)] = '\0';
		if (add(l, nm, (size_t)(nq - nm), kind))
			return 1;
		p = kq;
	}
	return l->n == 0;
}

/* The .entry's parameters: ".param .u64 pd" is u64 d (the p prefix
 * dropped), ".param .align 64 .b8 tensor_a[128]" is tensor_map tensor_a. */
static int ptx_params(const char *ptx, struct plist *l)
{
	const char *p = strstr(ptx, ".entry");
	const char *end = p ? strchr(p, ')') : NULL;
	l->n = 0;
	if (!p || !end)
		return 1;
	while ((p = strstr(p, ".param ")) && p < end) {
		const char *q = p + 7, *e = q;
		while (*e != ',' && *e != ')' && *e != '\n')
			e++;
		/* the last word before , or ) */
		const char *w = e;
		while (w > q && w[-1] != ' ')
			w--;
		if (!strncmp(q, ".align 64 .b8 ", 14)) {
			const char *br = memchr(w, '[', (size_t)(e - w));
			if (!br || strncmp(br, "[128]", 5) || add(l, w, (size_t)(br - w), "tensor_map"))
				return 1;
		} else {
			char kind[8];
			size_t kl = (size_t)(w - 1 - (q + 1));
			if (*q != '.' || kl >= sizeof kind || *w != 'p')
				return 1;
			memcpy(kind, q + 1, kl);
			kind[kl] = '\0';
			if (add(l, w + 1, (size_t)(e - w - 1), kind))
				return 1;
		}
		p = e;
	}
	return l->n == 0;
}

/* What run gemm's launch passes, in order, with the kinds of the C
 * variables it points at. */
static void launch_order(const mmagen_gemm_info *g, mmagen_type out, int sm120, struct plist *l)
{
	static const char *const wg[] = { "tensor_a:tensor_map", "tensor_b:tensor_map",
		"tensor_d:tensor_map", "d:u64", "c:u64", "m:u32", "n:u32", "k:u32", "ldd:u32",
		"ldc:u32", "alpha:f32", "beta:f32", "d_tma:u32" };
	static const char *const ms[] = { "a:u64", "b:u64", "d:u64", "c:u64", "m:u32", "n:u32",
		"k:u32", "lda:u32", "ldb:u32", "ldd:u32", "ldc:u32", "alpha:f32", "beta:f32" };
	/* sm_120a: run gemm does not launch it yet; mmagen.h's order */
	static const char *const s12[] = { "a:u64", "b:u64", "sa:u64", "sb:u64", "d:u64", "c:u64",
		"m:u32", "n:u32", "k:u32", "lda:u32", "ldb:u32", "ldsa:u32", "ldsb:u32", "ldd:u32",
		"ldc:u32", "alpha:f32", "beta:f32" };
	const char *const *t = sm120 ? s12 : g->path == MMAGEN_GEMM_PATH_MMA_SYNC ? ms : wg;
	size_t n = sm120 ? 17 : 13;
	l->n = 0;
	for (size_t i = 0; i < n; i++) {
		const char *c = strchr(t[i], ':');
		add(l, t[i], (size_t)(c - t[i]), c + 1);
	}
	if (!sm120 && g->path == MMAGEN_GEMM_PATH_MMA_SYNC && g->split_workspace) {
		add(l, "workspace", 9, "u64");     /* split-K through a workspace */
		add(l, "counters", 8, "u64");
	}
	if (sm120 || g->path == MMAGEN_GEMM_PATH_MMA_SYNC)
		return;
	if (out == MMAGEN_E4M3 || out == MMAGEN_E5M2)
		add(l, "d_scale", 7, "f32");
	if (g->scale_block) {      /* --quant fp8-block: f32 scales and their strides */
		static const char *const bs[] = { "sa:u64", "sb:u64", "sa_sm:u32", "sa_sk:u32",
						  "sb_sn:u32", "sb_sk:u32" };
		for (size_t i = 0; i < 6; i++) {
			const char *c = strchr(bs[i], ':');
			add(l, bs[i], (size_t)(c - bs[i]), c + 1);
		}
	}
	if (g->split_k != 1) {     /* the split-K kernel (0: auto) */
		add(l, "workspace", 9, "u64");
		add(l, "counters", 8, "u64");
		add(l, "splits", 6, "u32");
	}
}

static int same(const struct plist *x, const struct plist *y, char *why, size_t n)
{
	if (x->n != y->n) {
		snprintf(why, n, "%u vs %u parameters", x->n, y->n);
		return 0;
	}
	for (unsigned i = 0; i < x->n; i++)
		if (strcmp(x->name[i], y->name[i]) || strcmp(x->kind[i], y->kind[i])) {
			snprintf(why, n, "parameter %u: %s %s vs %s %s", i, x->kind[i], x->name[i],
				 y->kind[i], y->name[i]);
			return 0;
		}
	return 1;
}

static unsigned seen_fp8_split, seen_mma, seen_wgmma, seen_sm120, seen_auto, seen_block, total;

static void one(const mmagen_gemm_request *r, const char *what)
{
	mmagen_gemm_info g = { .size = sizeof g };
	char *js = NULL, *ptx = NULL, why[160] = "";
	struct plist lj, lp, ll;
	int sm120 = !strncmp(mmagen_target_name(r->target), "sm_12", 5);

	if (mmagen_gemm_info_of(r, &g) != MMAGEN_OK)
		return;
	total++;
	if (mmagen_gemm_emit(r, MMAGEN_FMT_JSON, &js, NULL) ||
	    mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &ptx, NULL)) {
		fail("%s: accepted by info_of, refused by emit: %s", what, mmagen_last_error());
		goto out;
	}
	CHECK(!json_params(js, &lj), "%s: the manifest's params do not parse", what);
	CHECK(!ptx_params(ptx, &lp), "%s: the .entry's params do not parse", what);
	launch_order(&g, r->out, sm120, &ll);
	CHECK(same(&lj, &lp, why, sizeof why), "%s: manifest vs .entry: %s", what, why);
	CHECK(same(&ll, &lp, why, sizeof why), "%s: run gemm's launch vs .entry: %s", what, why);
	CHECK(!strcmp(g.kernel, "mmagen_gemm") && strstr(ptx, ".entry mmagen_gemm("),
	      "%s: entry name %s", what, g.kernel);
	if (sm120)
		seen_sm120++;
	else if (g.path == MMAGEN_GEMM_PATH_MMA_SYNC)
		seen_mma++;
	else {
		seen_wgmma++;
		seen_fp8_split += g.split_k != 1 && (r->out == MMAGEN_E4M3 || r->out == MMAGEN_E5M2);
		seen_auto += g.split_k == 0;
		seen_block += r->quant == MMAGEN_QF_FP8_BLOCK;
		CHECK((r->quant == MMAGEN_QF_FP8_BLOCK) ==
		      (g.stype == MMAGEN_F32 && g.scale_block == 128),
		      "%s: info's scales %s per %u", what, mmagen_type_name(g.stype), g.scale_block);
	}
out:
	mmagen_free(js);
	mmagen_free(ptx);
}

int main(void)
{
	static const char *const targets[] = { "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
					       "sm_120a" };
	static const mmagen_type ins[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_TF32, MMAGEN_E4M3,
					   MMAGEN_E5M2, MMAGEN_S8, MMAGEN_U8, MMAGEN_E2M1 };
	static const mmagen_type outs[] = { MMAGEN_F32, MMAGEN_BF16, MMAGEN_F16, MMAGEN_E4M3,
					    MMAGEN_S32 };
	static const mmagen_type accs[] = { MMAGEN_TYPE_NONE, MMAGEN_F16, MMAGEN_S32 };
	static const unsigned splits[] = { 0, 3, MMAGEN_GEMM_SPLIT_AUTO };
	static const unsigned paths[] = { MMAGEN_GEMM_PATH_AUTO, MMAGEN_GEMM_PATH_MMA_SYNC };
	char what[160];

	for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
		for (size_t a = 0; a < sizeof ins / sizeof *ins; a++)
			for (size_t o = 0; o < sizeof outs / sizeof *outs; o++)
				for (size_t c = 0; c < sizeof accs / sizeof *accs; c++)
					for (unsigned lay = 0; lay < 4; lay++)
						for (size_t s = 0; s < 3; s++)
							for (size_t p = 0; p < 2; p++)
								for (unsigned q = 0; q < (t == 5 ? (unsigned)MMAGEN_QF_END : t == 4 ? 2u : 1u); q++) {
			mmagen_gemm_request r;
			mmagen_gemm_request_init(&r);
			mmagen_target_parse(targets[t], &r.target);
			r.a = r.b = ins[a];
			r.out = outs[o];
			r.acc = accs[c];
			r.layout = lay;
			r.split_k = splits[s];
			r.path = paths[p];
			/* sm_90a: none, or fp8-block (the wgmma path's) */
			r.quant = t == 4 && q ? (unsigned)MMAGEN_QF_FP8_BLOCK : q;
			snprintf(what, sizeof what, "%s %s -> %s acc %s layout %u split %u path %u quant %u",
				 targets[t], mmagen_type_name(ins[a]), mmagen_type_name(outs[o]),
				 accs[c] ? mmagen_type_name(accs[c]) : "-", lay, splits[s], paths[p], r.quant);
			one(&r, what);
		}
	/* the sweep reached every kind of parameter list */
	CHECK(seen_wgmma >= 20 && seen_mma >= 20 && seen_sm120 >= 4 && seen_fp8_split >= 2 &&
	      seen_auto >= 2 && seen_block >= 8,
	      "coverage: %u wgmma (%u FP8 D split, %u auto, %u fp8-block), %u mma.sync, %u sm_120a",
	      seen_wgmma, seen_fp8_split, seen_auto, seen_block, seen_mma, seen_sm120);
	printf("%u variants; ", total);
	return check_summary();
}
