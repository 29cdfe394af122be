/* test_gemm_plan.c - libmmart's GEMM launcher on the CPU (runtime/gemm_abi.c):
 * the ABI text that libmmagen writes (mmagen_gemm_emit, MMAGEN_FMT_ABI)
 * parsed back, and launches planned from it, no driver.
 *
 *   - parse: for kernels of every path (wgmma, mma.sync, sm_120a), split
 *     (none, tail S and auto, slots, z), FP8 D, layout (tn nn nt tt) and
 *     block scales (sm_120a's, and wgmma's fp8-block),
 *     the fields against the request and mmagen_gemm_info_of, and the
 *     parameters against the PTX .entry's, in order;
 *   - rejection: each malformed text is MMART_INVALID_ARGUMENT with one
 *     line that names the line, and leaves *out as it was;
 *   - plan: grid, staging (bases, pitches, K padding, C and D), the
 *     nearest legal ld, sizes refused, tensor-map dims, d_tma, fp8-block's
 *     scale strides (defaults, as given, the 32-bit index); the split-K
 *     buffers against libmmagen's mmagen_gemm_split_buffers(_grid) (the
 *     two libraries must agree) and, for some shapes, against numbers
 *     worked out by hand below;
 *   - mmart_gemm_args_init's defaults.
 * The expectations are written here, not taken from gemm_abi.c. */
#include "gemm.h"

#include "mmagen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_DETAIL() mmart_last_error()
#include "../unit/check.h"

/* The ABI's parameter names, by role (this test's own table). */
static const char *const names[GR_COUNT] = {
	[GR_TENSOR_A] = "tensor_a", [GR_TENSOR_B] = "tensor_b", [GR_TENSOR_D] = "tensor_d",
	[GR_A] = "a", [GR_B] = "b", [GR_SA] = "sa", [GR_SB] = "sb", [GR_D] = "d", [GR_C] = "c",
	[GR_M] = "m", [GR_N] = "n", [GR_K] = "k", [GR_LDA] = "lda", [GR_LDB] = "ldb",
	[GR_LDSA] = "ldsa", [GR_LDSB] = "ldsb", [GR_LDD] = "ldd", [GR_LDC] = "ldc",
	[GR_ALPHA] = "alpha", [GR_BETA] = "beta", [GR_D_TMA] = "d_tma",
	[GR_D_SCALE] = "d_scale", [GR_WORKSPACE] = "workspace", [GR_COUNTERS] = "counters",
	[GR_SPLITS] = "splits", [GR_SA_SM] = "sa_sm", [GR_SA_SK] = "sa_sk", [GR_SB_SN] = "sb_sn",
	[GR_SB_SK] = "sb_sk",
};
/* the PTX type of each kind */
static const char *const ptx_kind[] = { [GK_TMAP] = "tmap", [GK_U64] = ".u64",
					[GK_U32] = ".u32", [GK_F32] = ".f32" };

/* ---- a generated kernel ---- */
struct kern {
	char what[160];
	mmagen_gemm_request req;
	mmagen_gemm_info info;
	char *abi, *ptx;
	struct gemm_abi p;
	int ok;                   /* generated and parsed */
};

struct spec {
	const char *target;
	mmagen_type a, b, out;
	unsigned layout, path, split, quant, tile_m, tile_n, cluster;
};

static void kern_free(struct kern *k)
{
	mmagen_free(k->abi);
	mmagen_free(k->ptx);
	k->abi = k->ptx = NULL;
}

/* Generates s and parses its ABI; 0 when libmmagen refuses the request
 * (not counted: the callers check that their kernels exist). */
static int gen(const struct spec *s, struct kern *k)
{
	memset(k, 0, sizeof *k);
	mmagen_gemm_request_init(&k->req);
	if (mmagen_target_parse(s->target, &k->req.target) != MMAGEN_OK) {
		fail("target %s", s->target);
		return 0;
	}
	k->req.a = s->a;
	k->req.b = s->b;
	k->req.out = s->out;
	k->req.layout = s->layout;
	k->req.path = s->path;
	k->req.split_k = s->split;
	k->req.quant = s->quant;
	k->req.tile_m = s->tile_m;
	k->req.tile_n = s->tile_n;
	k->req.cluster = s->cluster;
	snprintf(k->what, sizeof k->what, "%s %s x %s -> %s layout %u path %u split %u quant %u",
		 s->target, mmagen_type_name(s->a), mmagen_type_name(s->b),
		 mmagen_type_name(s->out), s->layout, s->path, s->split, s->quant);
	k->info.size = sizeof k->info;
	if (mmagen_gemm_info_of(&k->req, &k->info) != MMAGEN_OK)
		return 0;
	if (mmagen_gemm_emit(&k->req, MMAGEN_FMT_ABI, &k->abi, NULL) != MMAGEN_OK ||
	    mmagen_gemm_emit(&k->req, MMAGEN_FMT_PTX, &k->ptx, NULL) != MMAGEN_OK) {
		fail("%s: info_of takes it, emit refuses: %s", k->what, mmagen_last_error());
		return 0;
	}
	mmart_status st = mmart_gemm_abi_parse(k->abi, &k->p);
	CHECK(st == MMART_OK, "%s: parse: %s: %s", k->what, mmart_status_str(st),
	      mmart_last_error());
	k->ok = st == MMART_OK;
	return k->ok;
}

/* The kernel of s, which must exist. */
static int need(const struct spec *s, struct kern *k)
{
	if (gen(s, k))
		return 1;
	fail("%s: no kernel (%s)", k->what, mmagen_last_error());
	kern_free(k);
	return 0;
}

/* The .entry's parameters, as "name:kind" (kind tmap, .u64, .u32,
 * .f32): "\t.param .align 64 .b8 tensor_a[128]" is tensor_a:tmap,
 * "\t.param .u32 pm" is m:.u32. */
static unsigned entry_params(const char *ptx, char out[][40], unsigned max)
{
	const char *p = strstr(ptx, ".entry ");
	const char *end = p ? strchr(p, ')') : NULL;
	unsigned n = 0;

	if (!p || !end)
		return 0;
	while ((p = strstr(p, ".param ")) && p < end && n < max) {
		const char *e = p;
		while (*e != ',' && *e != ')' && *e != '\n')
			e++;
		const char *w = e;
		while (w > p && w[-1] != ' ' && w[-1] != '\t')
			w--;
		if (!strncmp(p, ".param .align 64 .b8 ", 21)) {
			if (e - w < 6 || strncmp(e - 5, "[128]", 5))
				return 0;
			snprintf(out[n++], 40, "%.*s:tmap", (int)(e - 5 - w), w);
		} else {
			char kind[8] = "";
			if (sscanf(p + 7, "%7s", kind) != 1 || *w != 'p')
				return 0;
			snprintf(out[n++], 40, "%.*s:%s", (int)(e - w - 1), w + 1, kind);
		}
		p = e;
	}
	return n;
}

static int has_param(const struct gemm_abi *a, enum gemm_role r)
{
	for (unsigned i = 0; i < a->nparams; i++)
		if (a->role[i] == r)
			return 1;
	return 0;
}

static int is_fp8(mmagen_type t)
{
	return t == MMAGEN_E4M3 || t == MMAGEN_E5M2;
}

/* ---- parse: the fields and parameters of one kernel ---- */
static void round_trip(const struct spec *s)
{
	struct kern k;
	const struct gemm_abi *a = &k.p;

	if (!need(s, &k))
		return;
	const mmagen_gemm_info *g = &k.info;
	int sm120 = !strcmp(s->target, "sm_120a");
	int sync = !sm120 && (s->path == MMAGEN_GEMM_PATH_MMA_SYNC || !strcmp(s->target, "sm_80") ||
			      !strcmp(s->target, "sm_89"));
	enum gemm_path want_path = sm120 ? GP_SM120 : sync ? GP_MMA_SYNC : GP_WGMMA;
	/* layouts, BLAS-style: A column-major (n) is M-major, B row-major (t)
	 * is N-major */
	int a_mn = s->layout == MMAGEN_GEMM_NN || s->layout == MMAGEN_GEMM_NT;
	int b_mn = s->layout == MMAGEN_GEMM_NT || s->layout == MMAGEN_GEMM_TT;
	unsigned out_bytes = mmagen_type_bits(s->out) / 8;

	CHECK(!strcmp(a->kernel, g->kernel), "%s: kernel %s, info %s", k.what, a->kernel, g->kernel);
	CHECK(!strcmp(a->target, s->target), "%s: target %s", k.what, a->target);
	CHECK(a->path == want_path, "%s: path %d, want %d", k.what, a->path, want_path);
	CHECK(!strcmp(a->a.type, mmagen_type_name(s->a)) && !strcmp(a->b.type, mmagen_type_name(s->b)) &&
	      !strcmp(a->out.type, mmagen_type_name(s->out)),
	      "%s: types %s %s %s", k.what, a->a.type, a->b.type, a->out.type);
	CHECK(a->a.bits == g->elem_bits_a && a->b.bits == g->elem_bits_b &&
	      a->out.bits == out_bytes * 8,
	      "%s: bits %u %u %u, info %u %u", k.what, a->a.bits, a->b.bits, a->out.bits,
	      g->elem_bits_a, g->elem_bits_b);
	CHECK(a->a.mn == a_mn && a->b.mn == b_mn, "%s: a.mn %d b.mn %d, want %d %d", k.what,
	      a->a.mn, a->b.mn, a_mn, b_mn);
	CHECK(!memcmp(a->block, g->block, sizeof a->block) &&
	      !memcmp(a->cluster, g->cluster, sizeof a->cluster) && a->smem == g->smem,
	      "%s: block %u cluster %u smem %u", k.what, a->block[0], a->cluster[0], a->smem);
	CHECK(a->tile_m == g->tile_m && a->tile_n == g->tile_n && a->tile_k == g->tile_k,
	      "%s: tile %ux%ux%u, info %ux%ux%u", k.what, a->tile_m, a->tile_n, a->tile_k,
	      g->tile_m, g->tile_n, g->tile_k);
	CHECK(a->persistent == (want_path == GP_WGMMA), "%s: persistent %d", k.what, a->persistent);
	/* split-K: the wgmma split kernel's tail (S, 0 for auto) with two
	 * 64-row warpgroup slots of tile_n f32 per tile and two u32 counters;
	 * mma.sync's slots (one tile of f32 per slot, a u32 per tile) */
	if (want_path == GP_WGMMA && s->split > 1) {
		unsigned S = s->split == MMAGEN_GEMM_SPLIT_AUTO ? 0 : s->split;
		CHECK(a->split == GS_TAIL && a->splits == S && a->ws_slot == 128ull * g->tile_n * 4 &&
		      a->ctr_per_tile == 8, "%s: split %d %u ws %llu %llu", k.what, a->split,
		      a->splits, (unsigned long long)a->ws_slot, (unsigned long long)a->ctr_per_tile);
	} else if (want_path == GP_MMA_SYNC && s->split > 1) {
		CHECK(g->split_workspace && a->split == GS_SLOTS && a->splits == s->split &&
		      a->ws_slot == (uint64_t)g->tile_m * g->tile_n * 4 && a->ctr_per_tile == 4,
		      "%s: split %d %u ws %llu %llu", k.what, a->split, a->splits,
		      (unsigned long long)a->ws_slot, (unsigned long long)a->ctr_per_tile);
	} else {
		CHECK(a->split == GS_NONE, "%s: split %d", k.what, a->split);
	}
	CHECK(has_param(a, GR_WORKSPACE) == (a->split == GS_TAIL || a->split == GS_SLOTS) &&
	      has_param(a, GR_SPLITS) == (a->split == GS_TAIL),
	      "%s: workspace/splits params vs split %d", k.what, a->split);
	CHECK(has_param(a, GR_D_SCALE) == (want_path == GP_WGMMA && is_fp8(s->out)),
	      "%s: d_scale param", k.what);
	if (want_path == GP_WGMMA) {
		CHECK(a->swizzle == 128 && !memcmp(a->box_a, g->box_a, sizeof a->box_a) &&
		      !memcmp(a->box_b, g->box_b, sizeof a->box_b) &&
		      !memcmp(a->box_d, g->box_d, sizeof a->box_d),
		      "%s: swizzle %u boxes %u,%u %u,%u %u,%u", k.what, a->swizzle, a->box_a[0],
		      a->box_a[1], a->box_b[0], a->box_b[1], a->box_d[0], a->box_d[1]);
		CHECK(has_param(a, GR_TENSOR_A) && !has_param(a, GR_A), "%s: wgmma params", k.what);
	} else {
		CHECK(!a->box_a[0] && !a->box_b[0] && !a->box_d[0], "%s: tensor maps", k.what);
		CHECK(has_param(a, GR_A) && has_param(a, GR_LDA) && !has_param(a, GR_TENSOR_A),
		      "%s: pointer params", k.what);
	}
	int block = s->quant == MMAGEN_QF_FP8_BLOCK;
	CHECK(has_param(a, GR_SA) == (sm120 || block) && has_param(a, GR_SB_SK) == block,
	      "%s: sa, sb_sk params", k.what);
	/* fp8-block: f32 scales of A per row and 128 of K, of B per 128 x 128 */
	CHECK(block ? !strcmp(a->stype, "f32") && a->sblock_a[0] == 1 && a->sblock_a[1] == 128 &&
		      a->sblock_b[0] == 128 && a->sblock_b[1] == 128 && !a->scale_block
		    : !a->sblock_a[0] && !a->sblock_b[0],
	      "%s: scale blocks %ux%u %ux%u", k.what, a->sblock_a[0], a->sblock_a[1],
	      a->sblock_b[0], a->sblock_b[1]);
	/* the rules: 16-byte A/B rows and bases; K in 16-byte pieces of the
	 * narrower input for the kernels that copy with cp.async (wgmma's TMA
	 * reads any K), sm_120a at least a scale block; C and D in pairs */
	unsigned narrow = g->elem_bits_a < g->elem_bits_b ? g->elem_bits_a : g->elem_bits_b;
	unsigned kmul = want_path == GP_WGMMA ? 1 : 128 / narrow;
	if (sm120 && g->scale_block > kmul)
		kmul = g->scale_block;
	CHECK(a->ab_align == 16 && a->ab_pitch == 16 && a->k_multiple == kmul &&
	      a->mn_multiple == (want_path == GP_MMA_SYNC ? 8u : 1u) &&
	      a->cd_align == 2 * out_bytes && a->cd_ld == 2,
	      "%s: rules %u %u k %u (want %u) mn %u cd %u %u", k.what, a->ab_align, a->ab_pitch,
	      a->k_multiple, kmul, a->mn_multiple, a->cd_align, a->cd_ld);
	if (sm120 && s->quant)
		CHECK(!strcmp(a->stype, mmagen_type_name(g->stype)) && a->scale_block == g->scale_block &&
		      a->scale_block, "%s: scales %s %u", k.what, a->stype, a->scale_block);
	/* the parameters: the .entry's, in order, of the same kinds */
	char ent[GEMM_ABI_MAX_PARAMS + 1][40], mine[40];
	unsigned n = entry_params(k.ptx, ent, GEMM_ABI_MAX_PARAMS + 1);
	CHECK(n == a->nparams && n >= 13, "%s: %u .entry params, %u in the ABI", k.what, n,
	      a->nparams);
	for (unsigned i = 0; i < n && i < a->nparams; i++) {
		snprintf(mine, sizeof mine, "%s:%s", names[a->role[i]], ptx_kind[a->kind[i]]);
		CHECK(!strcmp(mine, ent[i]), "%s: param %u: ABI %s, .entry %s", k.what, i, mine, ent[i]);
	}
	kern_free(&k);
}

static void test_parse(void)
{
	static const struct spec specs[] = {
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, MMAGEN_GEMM_NN, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, MMAGEN_GEMM_NT, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_TT, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 4, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 0, MMAGEN_GEMM_SPLIT_AUTO, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 3, 0, 128, 128, 2 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_E4M3, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_E5M2, 0, 0, 5, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_S8, MMAGEN_S8, MMAGEN_S32, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_GEMM_PATH_MMA_SYNC, 0, 0, 0, 0, 0 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_GEMM_PATH_MMA_SYNC, 4, 0, 0, 0, 0 },
		{ "sm_80", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, MMAGEN_GEMM_NT, 0, 2, 0, 64, 64, 0 },
		{ "sm_80", MMAGEN_S8, MMAGEN_S8, MMAGEN_S32, 0, 0, 3, 0, 0, 0, 0 },
		{ "sm_80", MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_NN, 0, 0, 0, 0, 0, 0 },
		{ "sm_80", MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_TT, 0, 0, 0, 0, 0, 0 },
		{ "sm_89", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_80", MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E2M1, MMAGEN_BF16, 0, 0, 0, MMAGEN_QF_MXFP8, 0, 0, 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 },
		{ "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_F32, 0, 0, 0, MMAGEN_QF_NVFP4, 0, 0, 0 },
		{ "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_BF16, 0, 0, 0, MMAGEN_QF_MXFP4, 0, 0, 0 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 0, 0, 0, MMAGEN_QF_FP8_BLOCK, 0, 0, 0 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_E4M3, 0, 0, 3, MMAGEN_QF_FP8_BLOCK, 64, 64, 0 },
		{ "sm_90a", MMAGEN_E5M2, MMAGEN_E4M3, MMAGEN_F32, 0, 0, MMAGEN_GEMM_SPLIT_AUTO,
		  MMAGEN_QF_FP8_BLOCK, 0, 128, 2 },
	};
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
		round_trip(&specs[i]);
}

/* ---- rejection ---- */

/* text with line `at` (1-based) replaced by `with` (NULL: removed; a
 * string ending in '\n' inserted before it instead when insert) */
static char *edit(const char *text, int at, const char *with, int insert)
{
	size_t n = strlen(text) + (with ? strlen(with) : 0) + 2;
	char *out = malloc(n), *o = out;
	const char *p = text;
	int line = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (line == at && with) {
			o += sprintf(o, "%s%s", with, insert ? "" : "\n");
		}
		if (line != at || insert) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
		line++;
	}
	*o = '\0';
	return out;
}

static int line_of(const char *text, const char *prefix)
{
	int line = 1;
	size_t n = strlen(prefix);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL, line++)
		if (!strncmp(p, prefix, n))
			return line;
	return -1;
}

/* t must be refused, with one line containing `want` (and "line L:" when
 * L > 0), *out untouched. */
static void expect_refused(int where, const char *t, int L, const char *want)
{
	struct gemm_abi out;
	char tag[32] = "";

	memset(&out, 0x5a, sizeof out);
	mmart_status s = mmart_gemm_abi_parse(t, &out);
	const char *msg = mmart_last_error();
	if (L > 0)
		snprintf(tag, sizeof tag, "line %d:", L);
	unsigned char x[sizeof out];
	memset(x, 0x5a, sizeof x);
	CHECK(s == MMART_INVALID_ARGUMENT && !strchr(msg, '\n') && strstr(msg, tag) &&
	      (!want || strstr(msg, want)) && !memcmp(&out, x, sizeof out),
	      "line %d: refusal %s: \"%s\" (want \"%s\" and \"%s\")", where, mmart_status_str(s),
	      msg, tag, want ? want : "");
}
#define REFUSED(t, L, want) expect_refused(__LINE__, t, L, want)

static void test_reject(void)
{
	struct spec s = { "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 };
	struct kern k;
	struct gemm_abi out;
	char *t;

	if (!need(&s, &k))
		return;
	const char *good = k.abi;
	int smem = line_of(good, "smem "), tile = line_of(good, "tile "), end = line_of(good, "end");
	int pm = line_of(good, "param m "), rule_k = line_of(good, "rule k_multiple");
	int p1 = line_of(good, "param ");
	CHECK(smem > 2 && tile > 2 && end > tile && pm > tile && rule_k > 2,
	      "lines of the ABI: smem %d tile %d end %d", smem, tile, end);
	/* the text itself parses, and so does it with text after end */
	t = edit(good, end + 1, "trailing words after the end\n", 1);
	CHECK(mmart_gemm_abi_parse(t, &out) == MMART_OK, "text after end: %s", mmart_last_error());
	free(t);

	mmart_set_error(MMART_OK, "stale");
	REFUSED(NULL, 0, "NULL");
	/* the magic line missing, or of another version */
	REFUSED(good + strlen("mmagen gemm abi 1\n"), 0, "mmagen gemm abi 1");
	t = edit(good, 1, "mmagen gemm abi 2", 0);
	REFUSED(t, 0, "mmagen gemm abi 1");
	free(t);
	REFUSED("", 0, "mmagen gemm abi 1");
	REFUSED("mmagen gemm abi 1\n", 0, "\"end\"");
	REFUSED("mmagen gemm abi 1", 0, "mmagen gemm abi 1");
	/* no end line: cut short */
	t = edit(good, end, NULL, 0);
	REFUSED(t, 0, "\"end\"");
	free(t);
	t = edit(good, end, "en", 0);
	REFUSED(t, end, "\"en\"");
	free(t);
	/* an unknown key, an empty line */
	t = edit(good, 4, "colour blue\n", 1);
	REFUSED(t, 4, "colour blue");
	free(t);
	t = edit(good, tile, "", 0);
	REFUSED(t, tile, "empty");
	free(t);
	/* bad numbers */
	t = edit(good, smem, "smem x12", 0);
	REFUSED(t, smem, "smem x12");
	free(t);
	t = edit(good, tile, "tile 128 256", 0);
	REFUSED(t, tile, "tile 128 256");
	free(t);
	t = edit(good, rule_k, "rule k_multiple 3", 0);
	REFUSED(t, rule_k, "k_multiple 3");
	free(t);
	t = edit(good, rule_k, "rule k_multiple 0", 0);
	REFUSED(t, rule_k, NULL);
	free(t);
	t = edit(good, tile, "a bf16 12 k\n", 1);
	REFUSED(t, tile, "bf16 12");
	free(t);
	t = edit(good, tile, "a bf16 16 rows\n", 1);
	REFUSED(t, tile, NULL);
	free(t);
	t = edit(good, tile, "split slots 0\n", 1);
	REFUSED(t, tile, NULL);
	free(t);
	t = edit(good, tile, "tmap a 0 128\n", 1);
	REFUSED(t, tile, NULL);
	free(t);
	/* a parameter this launcher does not know, or of no known kind */
	t = edit(good, pm, "param bias u64\n", 1);
	REFUSED(t, pm, "bias");
	free(t);
	t = edit(good, pm, "param m u16", 0);
	REFUSED(t, pm, "u16");
	free(t);
	/* a known name of another kind than the launcher packs it as */
	t = edit(good, pm, "param m u64", 0);
	REFUSED(t, pm, "param m u64");
	free(t);
	t = edit(good, pm, "param m tmap", 0);
	REFUSED(t, pm, "param m tmap");
	free(t);
	/* an over-long line (255 characters are the most) */
	char longer[300];
	memset(longer, 'x', sizeof longer);
	memcpy(longer, "kernel ", 7);
	longer[256] = '\0';
	t = edit(good, 2, longer, 0);
	REFUSED(t, 2, "longer than 255");
	free(t);
	longer[255] = '\0';       /* 255: taken, but the name is too long */
	t = edit(good, 2, longer, 0);
	CHECK(mmart_gemm_abi_parse(t, &out) == MMART_OK && strlen(out.kernel) == 63,
	      "255-character kernel line: %s", mmart_last_error());
	free(t);
	/* more parameters than the launcher holds */
	char many[33 * 12 + 1] = "";
	for (int i = 0; i < 33; i++)
		strcat(many, "param m u32\n");
	t = edit(good, pm, many, 1);
	REFUSED(t, pm + 32 - (pm - p1), "param m");
	free(t);
	/* C and D of sub-byte elements (no plan could stage them) */
	t = edit(good, line_of(good, "out "), "out e2m1 4", 0);
	REFUSED(t, line_of(good, "out "), "out e2m1 4");
	free(t);
	/* a split that does not go with the grid: tail with tiles, slots
	 * and z with a persistent grid */
	t = edit(good, line_of(good, "split "), "split tail 2\nworkspace 131072 8", 0);
	char *t2 = edit(t, line_of(t, "grid "), "grid tiles", 0);
	REFUSED(t2, 0, "grid persistent");
	free(t);
	free(t2);
	t = edit(good, line_of(good, "split "), "split z 2", 0);
	REFUSED(t, 0, "grid tiles");
	free(t);
	/* block scaling's line: f32, A 1 x K and B N x K with the same K,
	 * nothing after; the sm_120a form stays "scales TYPE K" */
	static const char *const bad_scales[] = {
		"scales f32 a 1x128 b 128x64", "scales f32 a 2x128 b 128x128",
		"scales bf16 a 1x128 b 128x128", "scales f32 a 1x128 b 128x128 c 1x1",
		"scales f32 a 1x128", "scales f32 a 1x0 b 0x0", "scales f32 b 128x128 a 1x128",
	};
	for (size_t i = 0; i < sizeof bad_scales / sizeof *bad_scales; i++) {
		char line[80];
		snprintf(line, sizeof line, "%s\n", bad_scales[i]);
		t = edit(good, tile, line, 1);
		REFUSED(t, tile, bad_scales[i]);
		free(t);
	}
	/* block scales on a kernel that is not wgmma's */
	t = edit(good, tile, "scales f32 a 1x128 b 128x128\n", 1);
	char *t4 = edit(t, line_of(t, "path "), "path mma.sync", 0);
	REFUSED(t4, 0, "wgmma");
	free(t);
	free(t4);
	t = edit(good, tile, "scales f32 a 1x128 b 128x128\n", 1);
	CHECK(mmart_gemm_abi_parse(t, &out) == MMART_OK && out.sblock_b[0] == 128,
	      "a wgmma ABI with block scales: %s", mmart_last_error());
	free(t);
	/* a wgmma kernel without its tensor maps */
	t = edit(good, line_of(good, "tmap a"), NULL, 0);
	REFUSED(t, 0, "tmap a");
	free(t);
	kern_free(&k);
}

/* ---- plan ---- */

static uint64_t cdiv(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static mmart_gemm_args args_of(uint32_t m, uint32_t n, uint32_t k)
{
	mmart_gemm_args a;

	mmart_gemm_args_init(&a);
	a.m = m;
	a.n = n;
	a.k = k;
	a.a = 0x7f1000000000;
	a.b = 0x7f2000000000;
	a.c = 0x7f3000000000;
	a.d = 0x7f4000000000;
	return a;
}

/* plan must succeed */
static int plan_ok(int where, const struct gemm_abi *abi, int sms, const mmart_gemm_args *a,
		   struct gemm_launch *l)
{
	mmart_status s = mmart_gemm_plan(abi, sms, a, l);
	CHECK(s == MMART_OK, "line %d: plan %ux%ux%u: %s: %s", where, a->m, a->n, a->k,
	      mmart_status_str(s), mmart_last_error());
	return s == MMART_OK;
}
#define PLAN(abi, sms, a, l) plan_ok(__LINE__, abi, sms, a, l)

static void plan_bad(int where, const struct gemm_abi *abi, const mmart_gemm_args *a,
		     const char *want1, const char *want2)
{
	struct gemm_launch l;
	mmart_status s = mmart_gemm_plan(abi, 132, a, &l);
	const char *msg = mmart_last_error();
	CHECK(s == MMART_INVALID_ARGUMENT && !strchr(msg, '\n') && strstr(msg, want1) &&
	      (!want2 || strstr(msg, want2)),
	      "line %d: plan %ux%ux%u: %s: \"%s\" (want \"%s\", \"%s\")", where, a->m, a->n, a->k,
	      mmart_status_str(s), msg, want1, want2 ? want2 : "");
}
#define PLAN_BAD(abi, a, w1, w2) plan_bad(__LINE__, abi, a, w1, w2)

static int unstaged(const struct gemm_view *v, uint64_t addr, uint64_t ld)
{
	return !v->staged && !v->zero && v->addr == addr && v->ld == ld;
}

/* a staged view: copied from (src, src_pitch), `width` bytes by `height`
 * rows, into a buffer at offset `at` of pitch `pitch` and `rows` rows,
 * zeroed first or not (-1: either) */
static int staged_as(const struct gemm_view *v, uint64_t src, uint64_t src_pitch,
		     uint64_t width, uint64_t height, uint64_t pitch, uint64_t rows, uint64_t at,
		     unsigned eb, int zero)
{
	return v->staged && (zero < 0 || v->zero == zero) && v->src == src && v->src_pitch == src_pitch &&
	       v->width == width && v->height == height && v->pitch == pitch &&
	       v->bytes == pitch * rows && v->addr == at && v->ld == pitch / eb;
}

static uint64_t up256(uint64_t x)
{
	return (x + 255) / 256 * 256;
}

static void test_plan_wgmma(void)
{
	/* bf16 128x256 tiles, cluster 2 (the defaults) */
	struct spec s = { "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 0, 0, 0, 0, 0 };
	struct kern k;
	struct gemm_launch l;
	mmart_gemm_args a;

	if (!need(&s, &k))
		return;
	const struct gemm_abi *abi = &k.p;
	CHECK(abi->tile_m == 128 && abi->tile_n == 256 && abi->cluster[0] == 2 && abi->box_d[0],
	      "the default bf16 kernel changed: %ux%u cluster %u", abi->tile_m, abi->tile_n,
	      abi->cluster[0]);

	/* dense and aligned: nothing staged; 8 tile rows in 4 clusters x 4
	 * tile columns = 16 units, 32 CTAs */
	a = args_of(1000, 1000, 512);
	if (PLAN(abi, 132, &a, &l)) {
		CHECK(unstaged(&l.a, a.a, 512) && unstaged(&l.b, a.b, 512) &&
		      unstaged(&l.d, a.d, 1000) && !l.d_back && !l.stage_bytes,
		      "dense aligned: staged %d %d %d, %llu bytes", l.a.staged, l.b.staged,
		      l.d.staged, (unsigned long long)l.stage_bytes);
		CHECK(l.m == 1000 && l.n == 1000 && l.k == 512, "dense: mnk %u %u %u", l.m, l.n, l.k);
		CHECK(l.grid[0] == 32 && l.grid[1] == 1 && l.grid[2] == 1 && l.splits == 1 &&
		      !l.ws_bytes && !l.ctr_bytes, "dense: grid %u %u %u", l.grid[0], l.grid[1],
		      l.grid[2]);
		CHECK(l.dims_a[0] == 512 && l.dims_a[1] == 1000 && l.pitch_a == 1024 &&
		      l.dims_b[0] == 512 && l.dims_b[1] == 1000 && l.pitch_b == 1024 &&
		      l.dims_d[0] == 1000 && l.dims_d[1] == 1000 && l.pitch_d == 2000,
		      "dense: tensor maps {%llu %llu} %llu", (unsigned long long)l.dims_a[0],
		      (unsigned long long)l.dims_a[1], (unsigned long long)l.pitch_a);
		CHECK(l.d_tma == 1, "dense: d_tma %d", l.d_tma);
	}
	/* the grid against the rule, over shapes and SM counts */
	static const uint32_t shapes[][2] = { { 1, 1 }, { 128, 256 }, { 129, 257 }, { 1000, 1000 },
					      { 8192, 8192 }, { 100000, 64 }, { 64, 100000 } };
	static const int smss[] = { 0, 1, 2, 3, 66, 132, 133 };
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (size_t j = 0; j < sizeof smss / sizeof *smss; j++) {
			a = args_of(shapes[i][0], shapes[i][1], 256);
			if (!PLAN(abi, smss[j], &a, &l))
				continue;
			uint64_t units = cdiv(cdiv(a.m, 128), 2) * cdiv(a.n, 256);
			uint64_t most = smss[j] ? (uint64_t)smss[j] / 2 : units;
			if (most < 1)
				most = 1;
			uint64_t want = (units < most ? units : most) * 2;
			CHECK(l.grid[0] == want, "grid of %ux%u on %d SMs: %u, want %llu", a.m, a.n,
			      smss[j], l.grid[0], (unsigned long long)want);
		}
	a = args_of(8192, 8192, 8192);
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.grid[0] == 132, "8192^3 on 132 SMs: grid %u", l.grid[0]);

	/* K = 1: A and B rows of 2 bytes, staged into 16-byte rows (wgmma's
	 * TMA reads any K: not padded, not zeroed); D dense and aligned */
	a = args_of(300, 200, 1);
	if (PLAN(abi, 132, &a, &l)) {
		CHECK(l.k == 1 && staged_as(&l.a, a.a, 2, 2, 300, 16, 300, 0, 2, 0) &&
		      staged_as(&l.b, a.b, 2, 2, 200, 16, 200, up256(16 * 300), 2, 0) &&
		      unstaged(&l.d, a.d, 200) && !l.d_back,
		      "K = 1: k %u; A staged %d zero %d pitch %llu at %llu; B staged %d at %llu", l.k,
		      l.a.staged, l.a.zero, (unsigned long long)l.a.pitch,
		      (unsigned long long)l.a.addr, l.b.staged, (unsigned long long)l.b.addr);
		CHECK(l.stage_bytes == up256(16 * 300) + 16 * 200, "K = 1: %llu staging bytes",
		      (unsigned long long)l.stage_bytes);
		CHECK(l.dims_a[0] == 1 && l.dims_a[1] == 300 && l.pitch_a == 16 && l.pitch_b == 16,
		      "K = 1: A's map {%llu, %llu} pitch %llu", (unsigned long long)l.dims_a[0],
		      (unsigned long long)l.dims_a[1], (unsigned long long)l.pitch_a);
	}
	/* lda of 520 elements is 1040 bytes, a multiple of 16: read as is;
	 * ldb of 514 is not: B staged into rows of 1024 bytes */
	a = args_of(64, 64, 512);
	a.lda = 520;
	a.ldb = 514;
	if (PLAN(abi, 132, &a, &l))
		CHECK(unstaged(&l.a, a.a, 520) && l.pitch_a == 1040 &&
		      staged_as(&l.b, a.b, 1028, 1024, 64, 1024, 64, 0, 2, 0) && l.pitch_b == 1024,
		      "ldb 514: B staged %d pitch %llu", l.b.staged, (unsigned long long)l.b.pitch);
	/* bases: A 2 bytes off 16 staged, B 8 off staged; D 4 bytes off is
	 * aligned to pairs (not staged) but not to 16 (no tensor map), 2 off
	 * is staged */
	a = args_of(64, 64, 64);
	a.a += 2;
	a.b += 8;
	a.d += 4;
	if (PLAN(abi, 132, &a, &l))
		CHECK(staged_as(&l.a, a.a, 128, 128, 64, 128, 64, 0, 2, 0) &&
		      staged_as(&l.b, a.b, 128, 128, 64, 128, 64, up256(128 * 64), 2, 0) &&
		      unstaged(&l.d, a.d, 64) && !l.d_tma && !l.d_back,
		      "misaligned bases: A %d B %d D %d d_tma %d", l.a.staged, l.b.staged,
		      l.d.staged, l.d_tma);
	a.d += 2;                 /* 6 bytes off */
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.d.staged && l.d_back && l.d.src == a.d && l.d.pitch == 128 &&
		      l.d.addr % 256 == 0 && l.d.addr >= up256(128 * 64) + 128 * 64 && l.d_tma,
		      "D 6 bytes off: staged %d back %d at %llu d_tma %d", l.d.staged, l.d_back,
		      (unsigned long long)l.d.addr, l.d_tma);
	/* odd ldd: D staged (and copied back), rows of N rounded up to 16
	 * bytes; with beta 0 C is not read: not staged, not copied */
	a = args_of(100, 100, 64);
	a.ldd = 101;
	a.ldc = 103;
	a.c = 0x7f3000000001;     /* never looked at */
	if (PLAN(abi, 132, &a, &l)) {
		CHECK(staged_as(&l.d, a.d, 202, 200, 100, 208, 100, 0, 2, 0) && l.d_back &&
		      l.stage_bytes == 208 * 100, "odd ldd: D staged %d pitch %llu back %d, %llu bytes",
		      l.d.staged, (unsigned long long)l.d.pitch, l.d_back,
		      (unsigned long long)l.stage_bytes);
		CHECK(l.c.addr == l.d.addr && l.c.src != a.c, "beta 0: C is D (not copied)");
		CHECK(l.pitch_d == 208 && l.d_tma == 0, "odd ldd: pitch_d %llu d_tma %d (N * 2 = 200)",
		      (unsigned long long)l.pitch_d, l.d_tma);
	}
	a = args_of(100, 96, 64);
	a.ldd = 101;
	a.c = 0;
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.d.staged && l.d.pitch == 192 && l.d_tma == 1,
		      "odd ldd, N 96: pitch %llu d_tma %d", (unsigned long long)l.d.pitch, l.d_tma);
	/* beta != 0: C read; odd ldc staged (its own buffer), aligned not */
	a = args_of(100, 100, 64);
	a.beta = 0.5f;
	a.ldc = 105;
	if (PLAN(abi, 132, &a, &l))
		CHECK(staged_as(&l.c, a.c, 210, 200, 100, 208, 100, 0, 2, 0) && !l.d.staged &&
		      !l.d_back && l.stage_bytes == 208 * 100, "odd ldc: C staged %d pitch %llu",
		      l.c.staged, (unsigned long long)l.c.pitch);
	a.ldc = 0;
	if (PLAN(abi, 132, &a, &l))
		CHECK(unstaged(&l.c, a.c, 100) && !l.stage_bytes, "aligned C staged %d", l.c.staged);
	a.c = 0;
	PLAN_BAD(abi, &a, "C", "beta");
	/* D and C both odd: two buffers */
	a = args_of(10, 10, 64);
	a.beta = 1;
	a.ldd = 11;
	a.ldc = 13;
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.d.staged && l.c.staged && l.d.addr == 0 && l.c.addr == 512 &&
		      l.stage_bytes == 512 + 32 * 10, "C and D staged: %llu %llu, %llu bytes",
		      (unsigned long long)l.d.addr, (unsigned long long)l.c.addr,
		      (unsigned long long)l.stage_bytes);
	/* d_tma: rows 16-byte aligned and N * 2 a multiple of 16 */
	a = args_of(33, 1001, 64);
	a.ldd = 1008;
	if (PLAN(abi, 132, &a, &l))
		CHECK(!l.d.staged && l.d_tma == 0, "N 1001, ldd 1008: d_tma %d", l.d_tma);
	a.n = 1000;
	if (PLAN(abi, 132, &a, &l))
		CHECK(!l.d.staged && l.d_tma == 1, "N 1000, ldd 1008: d_tma %d", l.d_tma);
	a.ldd = 1004;             /* rows 2008 bytes apart */
	if (PLAN(abi, 132, &a, &l))
		CHECK(!l.d.staged && l.d_tma == 0 && l.pitch_d == 2008, "ldd 1004: d_tma %d", l.d_tma);

	/* leading dimensions below the row: refused with the legal one */
	a = args_of(64, 64, 512);
	a.lda = 500;
	PLAN_BAD(abi, &a, "lda = 500", "use lda = 512");
	a = args_of(64, 48, 512);
	a.ldb = 511;
	PLAN_BAD(abi, &a, "ldb = 511", "use ldb = 512");
	a = args_of(64, 48, 512);
	a.ldd = 47;
	PLAN_BAD(abi, &a, "ldd = 47", "use ldd = 48");
	a.ldd = 0;
	a.beta = 2;
	a.ldc = 40;
	PLAN_BAD(abi, &a, "ldc = 40", "use ldc = 48");
	a = args_of(64, 48, 512);
	a.lda = 1ull << 32;
	PLAN_BAD(abi, &a, "lda", "2^32");
	/* sizes */
	a = args_of(0, 64, 64);
	PLAN_BAD(abi, &a, "M = 0", NULL);
	a = args_of(64, 0, 64);
	PLAN_BAD(abi, &a, "N = 0", NULL);
	a = args_of(64, 64, 0x80000000u);
	PLAN_BAD(abi, &a, "K = 2147483648", NULL);
	a = args_of(64, 64, 0xffffffffu);
	PLAN_BAD(abi, &a, "K", NULL);
	a = args_of(0x80000000u, 64, 64);
	PLAN_BAD(abi, &a, "M", NULL);
	a = args_of(64, 64, 0x7fffffffu);
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.k == 0x7fffffffu && l.a.staged && l.a.pitch == 0x100000000ull,
		      "K = 2^31-1: k %u, A pitch %llu", l.k, (unsigned long long)l.a.pitch);
	/* staging that would pass 2^62 bytes (sums that would wrap 2^64) */
	a = args_of(0x7fffffffu, 0x7fffffffu, 0x7fffffffu);
	a.ldd = 0x80000001u;
	PLAN_BAD(abi, &a, "2^62", NULL);
	a = args_of(64, 64, 64);
	a.a = 0;
	PLAN_BAD(abi, &a, "A", "0");
	a = args_of(64, 64, 64);
	a.d = 0;
	PLAN_BAD(abi, &a, "D", "0");
	kern_free(&k);

	/* layout nn: A M-major (lda >= M, dims {M, K}), B K-major */
	s.layout = MMAGEN_GEMM_NN;
	s.out = MMAGEN_F32;
	if (need(&s, &k)) {
		a = args_of(200, 64, 1);
		if (PLAN(&k.p, 132, &a, &l)) {
			CHECK(unstaged(&l.a, a.a, 200) && l.dims_a[0] == 200 && l.dims_a[1] == 1 &&
			      l.pitch_a == 400 && l.b.staged && l.k == 1 && l.dims_d[0] == 64,
			      "nn K = 1: A staged %d dims {%llu, %llu} pitch %llu; B staged %d",
			      l.a.staged, (unsigned long long)l.dims_a[0],
			      (unsigned long long)l.dims_a[1], (unsigned long long)l.pitch_a, l.b.staged);
		}
		a = args_of(200, 64, 64);
		a.lda = 100;
		PLAN_BAD(&k.p, &a, "lda = 100", "use lda = 200");
		/* 402 bytes: staged, rows of 200 elements (zeroed or not: TMA
		 * reads no further than M) */
		a.lda = 201;
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(staged_as(&l.a, a.a, 402, 400, 64, 400, 64, 0, 2, -1) && l.pitch_a == 400,
			      "nn lda 201: staged %d pitch %llu", l.a.staged,
			      (unsigned long long)l.a.pitch);
		/* f32 D: pairs are 8 bytes */
		a = args_of(64, 64, 64);
		a.d += 4;
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.d.staged && l.d.pitch == 256, "f32 D 4 bytes off: staged %d", l.d.staged);
		kern_free(&k);
	}
	/* FP8 D: pairs of bytes */
	struct spec f = { "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_E4M3, 0, 0, 0, 0, 0, 0, 0 };
	if (need(&f, &k)) {
		a = args_of(64, 64, 128);
		a.d += 2;
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(!l.d.staged && !l.d_tma, "e4m3 D 2 bytes off: staged %d", l.d.staged);
		a.d += 1;
		a.lda = 136;          /* 136 bytes: staged */
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.d.staged && l.d.pitch == 64 && l.a.staged && l.a.pitch == 128 &&
			      l.a.ld == 128, "e4m3 odd D, lda 136: D %d A %d pitch %llu", l.d.staged,
			      l.a.staged, (unsigned long long)l.a.pitch);
		kern_free(&k);
	}
}

static void test_plan_sync(void)
{
	struct spec s = { "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0,
			  MMAGEN_GEMM_PATH_MMA_SYNC, 0, 0, 0, 0, 0 };
	struct kern k;
	struct gemm_launch l;
	mmart_gemm_args a;

	if (!need(&s, &k))
		return;
	const struct gemm_abi *abi = &k.p;
	CHECK(abi->k_multiple == 8 && abi->tile_m == 128 && abi->tile_n == 256,
	      "the mma.sync bf16 kernel changed: k_multiple %u tile %ux%u", abi->k_multiple,
	      abi->tile_m, abi->tile_n);
	/* K = 77: padded to 80, A and B staged into 160-byte rows, zeroed */
	a = args_of(300, 500, 77);
	if (PLAN(abi, 132, &a, &l)) {
		CHECK(l.k == 80, "K 77: k %u, want 80", l.k);
		CHECK(staged_as(&l.a, a.a, 154, 154, 300, 160, 300, 0, 2, 1) &&
		      staged_as(&l.b, a.b, 154, 154, 500, 160, 500, up256(160 * 300), 2, 1),
		      "K 77: A staged %d zero %d pitch %llu ld %llu; B staged %d zero %d at %llu",
		      l.a.staged, l.a.zero, (unsigned long long)l.a.pitch,
		      (unsigned long long)l.a.ld, l.b.staged, l.b.zero, (unsigned long long)l.b.addr);
		/* tiles: ceil(300/128) x ceil(500/256), no split */
		CHECK(l.grid[0] == 3 * 2 && l.grid[1] == 1 && l.grid[2] == 1 && !l.ws_bytes,
		      "K 77: grid %u %u %u", l.grid[0], l.grid[1], l.grid[2]);
		CHECK(!l.d_tma, "mma.sync: d_tma %d", l.d_tma);
	}
	/* K = 77 with lda 80 (aligned rows): still padded, so still staged */
	a.lda = 80;
	a.ldb = 88;
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.a.staged && l.a.zero && l.a.src_pitch == 160 && l.b.staged && l.b.zero &&
		      l.b.src_pitch == 176 && l.b.width == 154, "K 77, lda 80: A %d B %d", l.a.staged,
		      l.b.staged);
	/* K = 80, lda 88: read as they are */
	a = args_of(300, 500, 80);
	a.lda = 88;
	if (PLAN(abi, 132, &a, &l))
		CHECK(l.k == 80 && unstaged(&l.a, a.a, 88) && unstaged(&l.b, a.b, 80) &&
		      !l.stage_bytes, "K 80: A %d B %d", l.a.staged, l.b.staged);
	/* K near 2^31: padding passes 2^31-1 */
	a = args_of(64, 64, 0x7ffffffdu);
	PLAN_BAD(abi, &a, "padded", NULL);
	kern_free(&k);

	/* split through slots: 4 slices, grid z 4, buffers as libmmagen's */
	s.split = 4;
	if (need(&s, &k)) {
		static const uint32_t shapes[][2] = { { 1, 1 }, { 128, 256 }, { 300, 500 },
						      { 4096, 4096 }, { 100000, 300 } };
		for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
			a = args_of(shapes[i][0], shapes[i][1], 4096);
			if (!PLAN(&k.p, 132, &a, &l))
				continue;
			uint64_t ws = 0, ctr = 0, tiles = cdiv(a.m, 128) * cdiv(a.n, 256);
			CHECK(mmagen_gemm_split_buffers(&k.info, a.m, a.n, 4, &ws, &ctr) == MMAGEN_OK,
			      "split_buffers: %s", mmagen_last_error());
			CHECK(l.grid[0] == tiles && l.grid[2] == 4 && l.splits == 4 &&
			      l.ws_bytes == ws && l.ctr_bytes == ctr && ws == tiles * 4 * 128 * 256 * 4 &&
			      ctr == tiles * 4,
			      "slots %ux%u: grid %u x %u, ws %llu ctr %llu, libmmagen %llu %llu", a.m,
			      a.n, l.grid[0], l.grid[2], (unsigned long long)l.ws_bytes,
			      (unsigned long long)l.ctr_bytes, (unsigned long long)ws,
			      (unsigned long long)ctr);
		}
		kern_free(&k);
	}
	/* sm_80 s8 -> s32, 3 slices: K in 16s, s32 D in 8-byte pairs */
	struct spec i8 = { "sm_80", MMAGEN_S8, MMAGEN_S8, MMAGEN_S32, 0, 0, 3, 0, 0, 0, 0 };
	if (need(&i8, &k)) {
		a = args_of(1000, 999, 100);
		a.ldd = 1001;
		if (PLAN(&k.p, 108, &a, &l)) {
			uint64_t ws = 0, ctr = 0;
			mmagen_gemm_split_buffers(&k.info, a.m, a.n, 3, &ws, &ctr);
			CHECK(l.k == 112 && l.a.staged && l.a.zero && l.a.pitch == 112 &&
			      l.b.staged && l.b.pitch == 112, "s8 K 100: k %u A pitch %llu", l.k,
			      (unsigned long long)l.a.pitch);
			CHECK(l.d.staged && l.d.pitch == 4000 && l.d.width == 3996 && l.d.src_pitch == 4004,
			      "s32 odd ldd: D staged %d pitch %llu", l.d.staged,
			      (unsigned long long)l.d.pitch);
			CHECK(l.grid[2] == 3 && l.ws_bytes == ws && l.ctr_bytes == ctr && ws,
			      "s8 slots: ws %llu ctr %llu, libmmagen %llu %llu",
			      (unsigned long long)l.ws_bytes, (unsigned long long)l.ctr_bytes,
			      (unsigned long long)ws, (unsigned long long)ctr);
		}
		kern_free(&k);
	}
	/* layout nt on sm_80: both MN-major; K is not padded */
	struct spec nt = { "sm_80", MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, MMAGEN_GEMM_NT, 0, 0, 0, 0, 0, 0 };
	if (need(&nt, &k)) {
		a = args_of(64, 64, 77);
		if (PLAN(&k.p, 108, &a, &l))
			CHECK(l.k == 77 && unstaged(&l.a, a.a, 64) && unstaged(&l.b, a.b, 64),
			      "nt K 77: k %u A %d B %d", l.k, l.a.staged, l.b.staged);
		a.lda = 63;
		PLAN_BAD(&k.p, &a, "lda = 63", "use lda = 64");
		kern_free(&k);
	}
	/* layout nn: A M-major, B K-major: K padded, so A's K rows too */
	struct spec nn = { "sm_80", MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, MMAGEN_GEMM_NN, 0, 0, 0, 0, 0, 0 };
	if (need(&nn, &k)) {
		a = args_of(64, 64, 77);
		if (PLAN(&k.p, 108, &a, &l))
			CHECK(l.k == 80 && staged_as(&l.a, a.a, 128, 128, 77, 128, 80, 0, 2, 1) &&
			      l.b.staged && l.b.zero && l.b.pitch == 160,
			      "nn K 77: k %u A staged %d zero %d height %llu bytes %llu", l.k, l.a.staged,
			      l.a.zero, (unsigned long long)l.a.height, (unsigned long long)l.a.bytes);
		kern_free(&k);
	}
}

static void test_plan_split_tail(void)
{
	/* bf16 -> f32, 128x256 tiles, cluster 2, S = 3 */
	struct spec s = { "sm_90a", MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32, 0, 0, 3, 0, 128, 256, 2 };
	struct kern k;
	struct gemm_launch l;
	mmart_gemm_args a;

	if (need(&s, &k)) {
		/* worked out here: 4096^2 is 16 cluster rows x 16 columns = 256
		 * units (each x min(3, 64 K blocks)); 66 clusters; whole waves
		 * 3 * 66 = 198, the tail 58 units = 116 tiles, 3 slots of
		 * 128 x 256 f32 each, 2 counters */
		a = args_of(4096, 4096, 4096);
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.grid[0] == 132 && l.splits == 3 && l.ws_bytes == 116ull * 3 * 131072 &&
			      l.ctr_bytes == 116 * 8, "tail 4096^3: grid %u ws %llu ctr %llu",
			      l.grid[0], (unsigned long long)l.ws_bytes, (unsigned long long)l.ctr_bytes);
		/* 2816 x 3072: 11 x 12 = 132 units, two whole waves: no tail */
		a = args_of(2816, 3072, 4096);
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.grid[0] == 132 && !l.ws_bytes && !l.ctr_bytes,
			      "no tail: grid %u ws %llu", l.grid[0], (unsigned long long)l.ws_bytes);
		/* 512^2: 2 x 2 = 4 tiles x 3 slices = 12 units in one wave of
		 * 24 CTAs, every tile split */
		a = args_of(512, 512, 4096);
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.grid[0] == 24 && l.ws_bytes == 8ull * 3 * 131072 && l.ctr_bytes == 64,
			      "one wave: grid %u ws %llu", l.grid[0], (unsigned long long)l.ws_bytes);
		/* K of one block: units not multiplied */
		a = args_of(512, 512, 64);
		if (PLAN(&k.p, 132, &a, &l))
			CHECK(l.grid[0] == 8 && l.splits == 3, "K 64: grid %u splits %u", l.grid[0],
			      l.splits);
		/* against libmmagen, over shapes and SM counts */
		static const uint32_t shapes[][3] = { { 1, 1, 1 }, { 128, 256, 64 }, { 1000, 1000, 1000 },
			{ 4096, 4096, 4096 }, { 8192, 1024, 256 }, { 300, 7000, 5000 }, { 70000, 256, 128 } };
		static const int smss[] = { 0, 1, 7, 78, 132 };
		for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
			for (size_t j = 0; j < sizeof smss / sizeof *smss; j++) {
				a = args_of(shapes[i][0], shapes[i][1], shapes[i][2]);
				if (!PLAN(&k.p, smss[j], &a, &l))
					continue;
				uint64_t ws = 1, ctr = 1;
				CHECK(mmagen_gemm_split_buffers_grid(&k.info, a.m, a.n, l.splits,
								     l.grid[0], &ws, &ctr) == MMAGEN_OK,
				      "split_buffers_grid: %s", mmagen_last_error());
				CHECK(l.ws_bytes == ws && l.ctr_bytes == ctr,
				      "tail %ux%ux%u on %d SMs (grid %u): ws %llu ctr %llu, libmmagen %llu %llu",
				      a.m, a.n, a.k, smss[j], l.grid[0], (unsigned long long)l.ws_bytes,
				      (unsigned long long)l.ctr_bytes, (unsigned long long)ws,
				      (unsigned long long)ctr);
				CHECK(l.grid[0] % 2 == 0 && l.grid[1] == 1 && l.grid[2] == 1,
				      "tail grid %u %u %u", l.grid[0], l.grid[1], l.grid[2]);
			}
		kern_free(&k);
	}
	/* auto: S from args (0: 1), at most 256 */
	s.split = MMAGEN_GEMM_SPLIT_AUTO;
	s.out = MMAGEN_BF16;
	if (need(&s, &k)) {
		CHECK(k.p.splits == 0, "auto: splits %u in the ABI", k.p.splits);
		static const uint32_t S[] = { 0, 1, 2, 5, 16, 256 };
		for (size_t i = 0; i < sizeof S / sizeof *S; i++) {
			a = args_of(1000, 3000, 8192);
			a.splits = S[i];
			if (!PLAN(&k.p, 132, &a, &l))
				continue;
			uint64_t ws = 1, ctr = 1, T = cdiv(cdiv(1000, 128), 2) * cdiv(3000, 256);
			uint64_t Se = S[i] ? S[i] : 1, units = T * Se, g = units < 66 ? units : 66;
			mmagen_gemm_split_buffers_grid(&k.info, a.m, a.n, l.splits, l.grid[0], &ws, &ctr);
			CHECK(l.splits == Se && l.grid[0] == g * 2 && l.ws_bytes == ws && l.ctr_bytes == ctr,
			      "auto S %u: splits %u grid %u (want %llu) ws %llu ctr %llu, libmmagen %llu %llu",
			      S[i], l.splits, l.grid[0], (unsigned long long)(g * 2),
			      (unsigned long long)l.ws_bytes, (unsigned long long)l.ctr_bytes,
			      (unsigned long long)ws, (unsigned long long)ctr);
		}
		a = args_of(1000, 3000, 8192);
		a.splits = 257;
		PLAN_BAD(&k.p, &a, "splits = 257", "256");
		/* buffers that would wrap 2^64: refused */
		struct gemm_abi big = k.p;
		big.ws_slot = 1ull << 60;
		a.splits = 16;
		PLAN_BAD(&big, &a, "2^62", NULL);
		big = k.p;
		big.ctr_per_tile = ~0ull;
		PLAN_BAD(&big, &a, "2^62", NULL);
		kern_free(&k);
	}
}

static void test_plan_sm120(void)
{
	struct spec s = { "sm_120a", MMAGEN_E4M3, MMAGEN_E2M1, MMAGEN_BF16, 0, 0, 0,
			  MMAGEN_QF_MXFP8, 0, 0, 0 };
	struct kern k;
	struct gemm_launch l;
	mmart_gemm_args a;

	if (!need(&s, &k))
		return;
	a = args_of(256, 256, 256);
	PLAN_BAD(&k.p, &a, "sa", "sb");
	a.sa = 0x7f5000000000;
	a.sb = 0x7f6000000000;
	a.ldsa = a.ldsb = 8;
	if (PLAN(&k.p, 188, &a, &l))
		CHECK(!l.a.staged && !l.b.staged && l.grid[0] == 4 && l.grid[2] == 1,
		      "sm_120a: A %d B %d grid %u", l.a.staged, l.b.staged, l.grid[0]);
	/* scale rows: 0 is the dense pitch, ceil(K / 32) = 8 bytes rounded up
	 * to the kernel's bytes per K block; shorter rows, or rows not a
	 * multiple of that, refused with the dense value */
	unsigned spb = k.p.tile_k / k.p.scale_block;
	unsigned dense = (8 + spb - 1) / spb * spb;
	a.ldsa = a.ldsb = 0;
	if (PLAN(&k.p, 188, &a, &l))
		CHECK(l.ldsa == dense && l.ldsb == dense, "sm_120a dense scale rows: %u %u, want %u",
		      l.ldsa, l.ldsb, dense);
	a.ldsa = 7;
	PLAN_BAD(&k.p, &a, "ldsa = 7", "use ldsa");
	a.ldsa = dense;
	a.ldsb = dense + (spb > 1 ? 1 : 0) + 8 * (spb == 1);
	if (spb > 1)
		PLAN_BAD(&k.p, &a, "ldsb", "multiple");
	a.ldsb = 1ull << 32;
	PLAN_BAD(&k.p, &a, "ldsb", "2^32");
	a.ldsb = dense;
	a.sb += 8;
	PLAN_BAD(&k.p, &a, "sb", "16-byte");
	a.sb -= 8;
	/* read as stored: K not a multiple of 32, or A 8 bytes off, refused */
	a.k = 240;
	PLAN_BAD(&k.p, &a, "sm_120a", "32");
	a.k = 256;
	a.a += 8;
	PLAN_BAD(&k.p, &a, "sm_120a", NULL);
	kern_free(&k);
}

/* fp8-block (sm_90a): sa and sb required and 4-byte aligned; strides 0
 * and 0 are row-major ([M][KB], [NB][KB]), others taken as given (DeepGEMM's
 * column-major A, padded pitches, a shared row of 0 stride); the last
 * index below 2^32 and each stride below 2^32, refused with the rule. */
static void test_plan_block_scale(void)
{
	struct spec s = { "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0,
			  MMAGEN_QF_FP8_BLOCK, 0, 0, 0 };
	struct kern k;
	struct gemm_launch l;
	mmart_gemm_args a;

	if (!need(&s, &k))
		return;
	/* M 1000, N 333 (NB 3), K 1024 (KB 8) */
	a = args_of(1000, 333, 1024);
	PLAN_BAD(&k.p, &a, "sa = 0", "block-scaled");
	a.sa = 0x7f5000000000;
	PLAN_BAD(&k.p, &a, "sb = 0", "B's scales");
	a.sb = 0x7f6000000002;
	PLAN_BAD(&k.p, &a, "sb = 0x7f6000000002", "4-byte aligned");
	a.sb = 0x7f6000000004;
	if (PLAN(&k.p, 132, &a, &l))
		CHECK(l.sa_sm == 8 && l.sa_sk == 1 && l.sb_sn == 8 && l.sb_sk == 1 && !l.a.staged &&
		      !l.b.staged, "row-major scale strides: %u %u %u %u", l.sa_sm, l.sa_sk, l.sb_sn,
		      l.sb_sk);
	/* column-major A [KB][M], B [KB][NB] with a padded pitch */
	a.sa_sm = 1, a.sa_sk = 1024, a.sb_sn = 1, a.sb_sk = 4;
	if (PLAN(&k.p, 132, &a, &l))
		CHECK(l.sa_sm == 1 && l.sa_sk == 1024 && l.sb_sn == 1 && l.sb_sk == 4,
		      "column-major scale strides: %u %u %u %u", l.sa_sm, l.sa_sk, l.sb_sn, l.sb_sk);
	/* one pair 0 0 (row-major), the other as given; a zero stride taken */
	a.sa_sm = 0, a.sa_sk = 0, a.sb_sn = 0, a.sb_sk = 1;
	if (PLAN(&k.p, 132, &a, &l))
		CHECK(l.sa_sm == 8 && l.sa_sk == 1 && l.sb_sn == 0 && l.sb_sk == 1,
		      "mixed scale strides: %u %u %u %u", l.sa_sm, l.sa_sk, l.sb_sn, l.sb_sk);
	/* the last index: (M - 1) sa_sm + (KB - 1) sa_sk = 999 x + 7 y */
	a.sb_sn = 0, a.sb_sk = 0;
	a.sa_sm = 4299262, a.sa_sk = 1;                  /* 4294962738 + 7: below 2^32 */
	PLAN(&k.p, 132, &a, &l);
	a.sa_sm = 4299263;                               /* 4294963737 + 7 = 4294963744 */
	PLAN(&k.p, 132, &a, &l);
	a.sa_sm = 4299263, a.sa_sk = 800;                /* + 5600 = 4294969337: past */
	PLAN_BAD(&k.p, &a, "sa_sm = 4299263, sa_sk = 800", "passes 2^32 - 1");
	a.sa_sm = 0x100000000ull, a.sa_sk = 1;
	PLAN_BAD(&k.p, &a, "sa_sm = 4294967296", "below 2^32");
	a.sa_sm = a.sa_sk = 0;
	a.sb_sn = 1, a.sb_sk = 0x80000000u;              /* (KB - 1) x 2^31 */
	PLAN_BAD(&k.p, &a, "sb_sn = 1, sb_sk = 2147483648", "(NB - 1) * sb_sn + (KB - 1) * sb_sk");
	/* K = 1: one K block; strides 0 and 0 */
	a = args_of(7, 9, 1);
	a.sa = 0x7f5000000000, a.sb = 0x7f6000000000;
	if (PLAN(&k.p, 132, &a, &l))
		CHECK(l.sa_sm == 1 && l.sa_sk == 1 && l.sb_sn == 1 && l.sb_sk == 1,
		      "K = 1 scale strides: %u %u %u %u", l.sa_sm, l.sa_sk, l.sb_sn, l.sb_sk);
	kern_free(&k);
}

static void test_args_init(void)
{
	mmart_gemm_args a;
	unsigned char big[sizeof a + 32];

	memset(&a, 0xff, sizeof a);
	mmart_gemm_args_init(&a);
	CHECK(a.size == sizeof a && a.alpha == 1.0f && a.beta == 0.0f && a.d_scale == 1.0f &&
	      !a.m && !a.n && !a.k && !a.a && !a.b && !a.c && !a.d && !a.lda && !a.ldb && !a.ldc &&
	      !a.ldd && !a.splits && !a.sa && !a.sb && !a.ldsa && !a.ldsb && !a.sa_sm &&
	      !a.sa_sk && !a.sb_sn && !a.sb_sk,
	      "args_init: size %zu alpha %g beta %g d_scale %g", a.size, a.alpha, a.beta, a.d_scale);
	/* a newer caller's larger struct: its size, the tail zeroed */
	memset(big, 0xff, sizeof big);
	mmart_gemm_args_init_size((mmart_gemm_args *)(void *)big, sizeof big);
	memcpy(&a, big, sizeof a);
	int zero = 1;
	for (size_t i = sizeof a; i < sizeof big; i++)
		zero &= big[i] == 0;
	CHECK(a.size == sizeof big && a.alpha == 1.0f && a.d_scale == 1.0f && zero,
	      "args_init of %zu bytes: size %zu", sizeof big, a.size);
	mmart_gemm_args_init_size(NULL, sizeof a);   /* ignored */
}

int main(void)
{
	test_parse();
	test_reject();
	test_plan_wgmma();
	test_plan_sync();
	test_plan_split_tail();
	test_plan_sm120();
	test_plan_block_scale();
	test_args_init();
	return check_summary();
}
