/* test_plan.c - `mmagen plan` through the public API (mmagen_plan_*).
 *
 * Every row of the second seed article's table "量化配置如何映射到 MMA" is
 * a case here, with what the article and the PTX ISA say, written by hand:
 * the config as a user spells it, the target, native or not, the family of
 * the best instruction, the types the MMA receives, the accumulator, the
 * scale type and block, and the best opcode where one is obvious.  Then
 * properties of every plan (every config on every target): each form is
 * in the table for the target with the path's types, emulated forms are
 * exactly FP8/INT4 mma.sync on sm_90/sm_90a (measured on the H200), the
 * order rules hold, the spellings resolve, unknown configs are refused
 * with the nearest names.
 */
#include "mmagen.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum { CONV = 0, NATIVE = 1, EMUL = 2, NONE = 3 };

struct row {
	const char *quant, *target;
	int native;                /* the plan's verdict */
	int cls;                   /* the best path: NATIVE, CONV, EMUL, NONE */
	const char *family;        /* of its best form */
	mmagen_type a, b, acc, stype;
	unsigned block;
	const char *best;          /* the best opcode, or NULL */
};

#define T(x) MMAGEN_##x
#define NO MMAGEN_TYPE_NONE
static const struct row rows[] = {
	/* W4A16 INT4 weight-only: FP16 x FP16 -> FP16/FP32 or BF16 x BF16 ->
	 * FP32 after dequantizing the weight tile; not an INT4 MMA */
	{ "w4a16", "sm_80", 0, CONV, "mma.sync", T(F16), T(F16), T(F32), NO, 0,
	  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" },
	{ "W4A16-int4", "sm_90a", 0, CONV, "wgmma", T(F16), T(F16), T(F32), NO, 0,
	  "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" },
	{ "w4a16_bf16", "sm_90a", 0, CONV, "wgmma", T(BF16), T(BF16), T(F32), NO, 0,
	  "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" },
	{ "w4a16", "sm_100a", 0, CONV, "tcgen05", T(F16), T(F16), T(F32), NO, 0,
	  "tcgen05.mma.cta_group::1.kind::f16" },
	{ "w4a16", "sm_120a", 0, CONV, "mma.sync", T(F16), T(F16), T(F32), NO, 0, NULL },
	/* W8A8 INT8: INT8 x INT8 -> INT32 on every architecture of the article */
	{ "w8a8-int8", "sm_80", 1, NATIVE, "mma.sync", T(S8), T(S8), T(S32), NO, 0,
	  "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" },
	{ "int8", "sm_89", 1, NATIVE, "mma.sync", T(S8), T(S8), T(S32), NO, 0, NULL },
	{ "W8A8", "sm_90a", 1, NATIVE, "wgmma", T(S8), T(S8), T(S32), NO, 0,
	  "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8" },
	{ "w8a8-int8", "sm_100a", 1, NATIVE, "tcgen05", T(S8), T(S8), T(S32), NO, 0,
	  "tcgen05.mma.cta_group::1.kind::i8" },
	{ "w8a8-int8", "sm_120a", 1, NATIVE, "mma.sync", T(S8), T(S8), T(S32), NO, 0, NULL },
	/* W8A8 FP8: bare FP8 from SM89; MXFP8 block scaling needs Blackwell */
	{ "w8a8-fp8", "sm_80", 0, CONV, "mma.sync", T(F16), T(F16), T(F32), NO, 0, NULL },
	{ "fp8", "sm_89", 1, NATIVE, "mma.sync", T(E4M3), T(E4M3), T(F32), NO, 0,
	  "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" },
	{ "W8A8_FP8", "sm_90a", 1, NATIVE, "wgmma", T(E4M3), T(E4M3), T(F32), NO, 0,
	  "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3" },
	/* sm_90 (no 'a'): no wgmma, and FP8 mma.sync is emulated */
	{ "w8a8-fp8", "sm_90", 0, CONV, "mma.sync", T(F16), T(F16), T(F32), NO, 0, NULL },
	{ "w8a8-fp8", "sm_100a", 1, NATIVE, "tcgen05", T(E4M3), T(E4M3), T(F32), NO, 0,
	  "tcgen05.mma.cta_group::1.kind::f8f6f4" },
	{ "w8a8-fp8", "sm_120a", 1, NATIVE, "mma.sync", T(E4M3), T(E4M3), T(F32), NO, 0, NULL },
	{ "fp8-e5m2", "sm_90a", 1, NATIVE, "wgmma", T(E5M2), T(E5M2), T(F32), NO, 0, NULL },
	{ "MXFP8", "sm_100a", 1, NATIVE, "tcgen05", T(E4M3), T(E4M3), T(F32), T(UE8M0), 32, NULL },
	{ "mxfp8", "sm_120a", 1, NATIVE, "mma.sync", T(E4M3), T(E4M3), T(F32), T(UE8M0), 32,
	  "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0" },
	{ "mxfp8", "sm_90a", 0, CONV, "wgmma", T(E4M3), T(E4M3), T(F32), NO, 0, NULL },
	/* W4A8 on Hopper: INT4 weights to INT8 (INT8 x INT8 -> INT32) or to
	 * FP8 (FP8 x FP8 -> FP16/FP32) in the main loop */
	{ "w4a8", "sm_90a", 0, CONV, "wgmma", T(S8), T(S8), T(S32), NO, 0, NULL },
	{ "w4a8-fp8", "sm_90a", 0, CONV, "wgmma", T(E4M3), T(E4M3), T(F32), NO, 0, NULL },
	{ "w4a8", "sm_80", 0, CONV, "mma.sync", T(S8), T(S8), T(S32), NO, 0, NULL },
	/* W4A8 with Blackwell FP4: bare FP4 x bare FP8 (kind::f8f6f4), MXFP4 x
	 * MXFP8 (kind::mxf8f6f4) */
	{ "w4a8-fp4", "sm_100a", 1, NATIVE, "tcgen05", T(E2M1), T(E4M3), T(F32), NO, 0,
	  "tcgen05.mma.cta_group::1.kind::f8f6f4" },
	{ "W4A8-FP4", "sm_120a", 1, NATIVE, "mma.sync", T(E2M1), T(E4M3), T(F32), NO, 0,
	  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32" },
	{ "w4a8-mxfp4", "sm_100a", 1, NATIVE, "tcgen05", T(E2M1), T(E4M3), T(F32), T(UE8M0), 32,
	  NULL },
	{ "mxfp4-mxfp8", "sm_120a", 1, NATIVE, "mma.sync", T(E2M1), T(E4M3), T(F32), T(UE8M0), 32,
	  NULL },
	{ "w4a8-fp4", "sm_90a", 0, CONV, "wgmma", T(E4M3), T(E4M3), T(F32), NO, 0, NULL },
	/* W4A4 NVFP4: E2M1 both sides, UE4M3 scale per 16, -> FP32 */
	{ "nvfp4", "sm_100a", 1, NATIVE, "tcgen05", T(E2M1), T(E2M1), T(F32), T(UE4M3), 16,
	  "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X" },
	{ "W4A4-NVFP4", "sm_120a", 1, NATIVE, "mma.sync", T(E2M1), T(E2M1), T(F32), T(UE4M3), 16,
	  "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3" },
	{ "nvfp4", "sm_90a", 0, CONV, "wgmma", T(BF16), T(BF16), T(F32), NO, 0, NULL },
	{ "nvfp4", "sm_89", 0, CONV, "mma.sync", T(BF16), T(BF16), T(F32), NO, 0, NULL },
	/* NVFP4 x MXFP8: never one native block-scaled MMA */
	{ "w4a8-nvfp4", "sm_100a", 0, CONV, "tcgen05", T(BF16), T(BF16), T(F32), NO, 0, NULL },
	{ "nvfp4-mxfp8", "sm_120a", 0, CONV, "mma.sync", T(BF16), T(BF16), T(F32), NO, 0, NULL },
	/* the precision table's other rows */
	{ "mxfp4", "sm_100a", 1, NATIVE, "tcgen05", T(E2M1), T(E2M1), T(F32), T(UE8M0), 32,
	  "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X" },
	{ "mxfp6", "sm_120a", 1, NATIVE, "mma.sync", T(E3M2), T(E3M2), T(F32), T(UE8M0), 32, NULL },
	{ "mxfp6", "sm_89", 0, CONV, "mma.sync", T(E4M3), T(E4M3), T(F32), NO, 0, NULL },
	{ "fp16", "sm_80", 1, NATIVE, "mma.sync", T(F16), T(F16), T(F32), NO, 0,
	  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" },
	{ "bf16", "sm_90a", 1, NATIVE, "wgmma", T(BF16), T(BF16), T(F32), NO, 0, NULL },
	{ "tf32", "sm_100a", 1, NATIVE, "tcgen05", T(TF32), T(TF32), T(F32), NO, 0,
	  "tcgen05.mma.cta_group::1.kind::tf32" },
	/* FP64: mma.sync only (no wgmma/tcgen05 f64); sm_90 adds m16n8k16 */
	{ "fp64", "sm_80", 1, NATIVE, "mma.sync", T(F64), T(F64), T(F64), NO, 0,
	  "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64" },
	{ "fp64", "sm_90a", 1, NATIVE, "mma.sync", T(F64), T(F64), T(F64), NO, 0,
	  "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64" },
	{ "fp64", "sm_100a", 1, NATIVE, "mma.sync", T(F64), T(F64), T(F64), NO, 0, NULL },
	{ "fp64", "sm_75", 0, NONE, NULL, NO, NO, NO, NO, 0, NULL },
	/* INT4: native mma.sync on sm_80; emulated on sm_90a, so widened to s8 */
	{ "w4a4-int4", "sm_80", 1, NATIVE, "mma.sync", T(S4), T(S4), T(S32), NO, 0,
	  "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32" },
	{ "int4", "sm_90a", 0, CONV, "wgmma", T(S8), T(S8), T(S32), NO, 0, NULL },
};

static const char *fam_word(unsigned fam)
{
	return fam == MMAGEN_FAM_TCGEN05 ? "tcgen05" : fam == MMAGEN_FAM_WGMMA ? "wgmma"
									    : "mma.sync";
}

static int fam_rank(unsigned fam)
{
	return fam == MMAGEN_FAM_TCGEN05 ? 0 : fam == MMAGEN_FAM_WGMMA ? 1 : 2;
}

static mmagen_status plan(const char *quant, const char *target, mmagen_plan **p)
{
	mmagen_plan_request r;
	mmagen_plan_request_init(&r);
	*p = NULL;
	if (mmagen_target_parse(target, &r.target))
		return MMAGEN_INVALID_ARGUMENT;
	r.quant = quant;
	return mmagen_plan_new(&r, p);
}

static int path_class(const mmagen_plan_path *pp)
{
	return !pp->available ? NONE : pp->emulated ? EMUL : pp->native ? NATIVE : CONV;
}

static void check_row(const struct row *w)
{
	mmagen_plan *p;
	char op[200];

	if (plan(w->quant, w->target, &p)) {
		fail("%s on %s: %s", w->quant, w->target, mmagen_last_error());
		return;
	}
	const mmagen_plan_path *pp = &p->paths[0];
	CHECK(p->native == w->native, "%s on %s: native %d, want %d (%s)", w->quant, w->target,
	      p->native, w->native, p->verdict);
	CHECK(path_class(pp) == w->cls, "%s on %s: best path class %d, want %d (%s)", w->quant,
	      w->target, path_class(pp), w->cls, pp->label);
	if (w->cls == NONE)
		goto out;
	CHECK(!strcmp(fam_word(pp->forms[0].form->family), w->family),
	      "%s on %s: family %s, want %s", w->quant, w->target,
	      fam_word(pp->forms[0].form->family), w->family);
	CHECK(pp->a == w->a && pp->b == w->b && pp->acc == w->acc,
	      "%s on %s: %s x %s -> %s, want %s x %s -> %s", w->quant, w->target,
	      mmagen_type_name(pp->a), mmagen_type_name(pp->b), mmagen_type_name(pp->acc),
	      mmagen_type_name(w->a), mmagen_type_name(w->b), mmagen_type_name(w->acc));
	CHECK(pp->stype == w->stype && pp->block == w->block, "%s on %s: scale %s/%u, want %s/%u",
	      w->quant, w->target, mmagen_type_name(pp->stype), pp->block,
	      mmagen_type_name(w->stype), w->block);
	if (w->best)
		CHECK(!strcmp(mmagen_form_opcode(pp->forms[0].form, op, sizeof op), w->best),
		      "%s on %s: best %s, want %s", w->quant, w->target, op, w->best);
	/* the verdict says native or not in its first words */
	CHECK(strstr(p->verdict, w->native ? ": native: " : ": not native") != NULL,
	      "%s on %s: verdict '%s'", w->quant, w->target, p->verdict);
out:
	mmagen_plan_free(p);
}

/* The facts the verdicts must carry: the rule and where it is native. */
static void verdicts(void)
{
	static const struct { const char *q, *t, *a, *b; } v[] = {
		{ "nvfp4", "sm_90a", "sm_100a (tcgen05)", "sm_120a (mma.sync)" },
		{ "w8a8-fp8", "sm_80", "sm_89", "sm_89 (mma.sync)" },
		{ "w8a8-fp8", "sm_90", "emulated", "sm_90a (wgmma)" },
		{ "w4a8-nvfp4", "sm_100a", "mxf8f6f4", "ue8m0" },
		{ "w4a16", "sm_90a", "dequantized", "INT4" },
		{ "fp64", "sm_75", "sm_80", "no path" },
		{ "w4a4-int4", "sm_90a", "emulated", "sm_75 (mma.sync)" },   /* m8n8k32 */
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		mmagen_plan *p;
		if (plan(v[i].q, v[i].t, &p)) {
			fail("%s on %s: %s", v[i].q, v[i].t, mmagen_last_error());
			continue;
		}
		CHECK(strstr(p->verdict, v[i].a) && strstr(p->verdict, v[i].b) &&
		      !strchr(p->verdict, '\n'),
		      "%s on %s: verdict '%s' lacks '%s' / '%s'", v[i].q, v[i].t, p->verdict,
		      v[i].a, v[i].b);
		mmagen_plan_free(p);
	}
}

/* Emulated on the target's SASS: FP8 and INT4 mma.sync on sm_90/sm_90a
 * (H200), nothing else known. */
static int expect_emulated(const mmagen_form *f, const char *t)
{
	int fp8 = f->a == MMAGEN_E4M3 || f->a == MMAGEN_E5M2 || f->b == MMAGEN_E4M3 ||
		  f->b == MMAGEN_E5M2;
	int int4 = f->a == MMAGEN_S4 || f->a == MMAGEN_U4;
	return f->family == MMAGEN_FAM_MMA && (fp8 || int4) &&
	       (!strcmp(t, "sm_90") || !strcmp(t, "sm_90a"));
}

static void properties(const mmagen_plan *p, const char *t, int ti)
{
	int last_cls = -1;
	for (size_t i = 0; i < p->npaths; i++) {
		const mmagen_plan_path *pp = &p->paths[i];
		int rank = -1, emul_seen = 0;
		/* native, converted, emulated, absent */
		int order = path_class(pp) == NATIVE ? 0 : path_class(pp) == CONV ? 1 : path_class(pp);
		CHECK(order >= last_cls, "%s on %s: path %zu out of order", p->config, t, i);
		last_cls = order;
		CHECK(pp->available == (pp->nforms > 0), "%s on %s: available", p->config, t);
		CHECK(!pp->available || (pp->emit && !strncmp(pp->emit, "mmagen emit instr --arch ", 25)),
		      "%s on %s: emit line", p->config, t);
		/* mmagen gemm: wgmma on sm_90a, mma.sync on sm_80, sm_86, sm_89
		 * and the SM120 family (kind::f8f6f4) */
		CHECK(!pp->gemm || !strcmp(t, "sm_90a") || !strcmp(t, "sm_80") ||
		      !strcmp(t, "sm_86") || !strcmp(t, "sm_89") || !strncmp(t, "sm_12", 5),
		      "%s on %s: gemm line %s",
		      p->config, t, pp->gemm);
		for (size_t j = 0; j < pp->nforms; j++) {
			const mmagen_form *f = pp->forms[j].form;
			CHECK(mmagen_form_on_target(f, ti), "%s on %s: form %zu not on the target",
			      p->config, t, j);
			CHECK(f->a == pp->a && f->b == pp->b &&
			      (f->d == pp->acc || (pp->acc_alt && f->d == pp->acc_alt)) &&
			      !f->sparse && (f->block_scale != 0) == (pp->stype != 0),
			      "%s on %s: form %zu types", p->config, t, j);
			CHECK((pp->forms[j].emulated != NULL) == expect_emulated(f, t),
			      "%s on %s: form %zu emulated %d", p->config, t, j,
			      pp->forms[j].emulated != NULL);
			if (pp->forms[j].emulated) {
				emul_seen = 1;
				continue;
			}
			CHECK(!emul_seen, "%s on %s: native form after an emulated one", p->config, t);
			CHECK(fam_rank(f->family) >= rank, "%s on %s: %s after a later family",
			      p->config, t, fam_word(f->family));
			rank = fam_rank(f->family);
		}
	}
	CHECK(p->native == (p->npaths && path_class(&p->paths[0]) == NATIVE),
	      "%s on %s: native flag", p->config, t);
}

static void every_plan(void)
{
	size_t n = 0;
	for (; mmagen_plan_config_name(n); n++)
		for (int t = 0; t < mmagen_target_count(); t++) {
			mmagen_plan *p;
			mmagen_plan_request r;
			mmagen_plan_request_init(&r);
			r.target = t;
			r.quant = mmagen_plan_config_name(n);
			if (mmagen_plan_new(&r, &p)) {
				fail("%s on %s: %s", r.quant, mmagen_target_name(t), mmagen_last_error());
				continue;
			}
			CHECK(!strcmp(p->config, r.quant), "config name %s", p->config);
			properties(p, mmagen_target_name(t), t);
			mmagen_plan_free(p);
		}
	CHECK(n >= 20, "only %zu configs", n);
}

static void spellings(void)
{
	static const struct { const char *in, *config; } s[] = {
		{ "W4A16", "w4a16" }, { "w4a16-int4", "w4a16" }, { "W8A8_INT8", "w8a8-int8" },
		{ "int8", "w8a8-int8" }, { "w8a8 fp8", "w8a8-fp8" }, { "FP8-E4M3", "fp8-e4m3" },
		{ "e5m2", "fp8-e5m2" }, { "w4a8", "w4a8" }, { "W4A8-FP4", "w4a8-fp4" },
		{ "w4a4-nvfp4", "nvfp4" }, { "NVFP4", "nvfp4" }, { "MxFp8", "mxfp8" },
		{ "mxfp6", "mxfp6" }, { "mxfp4", "mxfp4" }, { "FP16", "fp16" }, { "bfloat16", "bf16" },
		{ "TF32", "tf32" }, { "fp64", "fp64" }, { "w4a16-bf16", "w4a16-bf16" },
	};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		mmagen_plan *p;
		if (plan(s[i].in, "sm_90a", &p)) {
			fail("'%s': %s", s[i].in, mmagen_last_error());
			continue;
		}
		CHECK(!strcmp(p->config, s[i].config), "'%s' -> %s, want %s", s[i].in, p->config,
		      s[i].config);
		mmagen_plan_free(p);
	}
}

static void refusals(void)
{
	mmagen_plan *p = (mmagen_plan *)1;
	mmagen_plan_request r;

	CHECK(plan("w4a4", "sm_90a", &p) == MMAGEN_UNKNOWN_NAME && !p &&
	      strstr(mmagen_last_error(), "w4a4-nvfp4") && strstr(mmagen_last_error(), "w4a4-int4") &&
	      !strchr(mmagen_last_error(), '\n'),
	      "w4a4: %s", mmagen_last_error());
	CHECK(plan("w8a8fp16", "sm_90a", &p) == MMAGEN_UNKNOWN_NAME, "w8a8fp16 accepted");
	CHECK(plan("", "sm_90a", &p) == MMAGEN_UNKNOWN_NAME, "empty config accepted");
	CHECK(plan("\x01\xff", "sm_90a", &p) == MMAGEN_UNKNOWN_NAME, "junk config accepted");
	mmagen_plan_request_init(&r);
	r.quant = "fp16";
	CHECK(mmagen_plan_new(&r, &p) == MMAGEN_INVALID_ARGUMENT, "no target accepted");
	mmagen_target_parse("sm_80", &r.target);
	r.quant = NULL;
	CHECK(mmagen_plan_new(&r, &p) == MMAGEN_INVALID_ARGUMENT, "no config accepted");
	r.quant = "fp16";
	r.size = 0;
	CHECK(mmagen_plan_new(&r, &p) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "mmagen_plan_request_init"), "size 0: %s",
	      mmagen_last_error());
	CHECK(mmagen_plan_new(NULL, &p) == MMAGEN_INVALID_ARGUMENT, "NULL request");
	mmagen_plan_free(NULL);
}

static void formats(void)
{
	mmagen_plan *p;
	char *text;
	size_t len;

	if (plan("w8a8-fp8", "sm_90a", &p)) {
		fail("w8a8-fp8: %s", mmagen_last_error());
		return;
	}
	CHECK(!mmagen_plan_format(p, MMAGEN_FMT_TEXT, &text, &len) &&
	      !strncmp(text, p->verdict, strlen(p->verdict)) && text[strlen(p->verdict)] == '\n' &&
	      strlen(text) == len,
	      "text starts with the verdict");
	/* FP8 mma.sync on sm_90a is listed, marked emulated */
	CHECK(strstr(text, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32   [emulated]") &&
	      strstr(text, "mmagen gemm --arch sm_90a --a e4m3 --b e4m3 --out bf16") &&
	      strstr(text, "N = 8..256/8"), "text: %s", text);
	mmagen_free(text);
	CHECK(!mmagen_plan_format(p, MMAGEN_FMT_JSON, &text, &len) && text[0] == '{' &&
	      strstr(text, "\"native\": true") && strstr(text, "\"target\": \"sm_90a\""),
	      "json");
	mmagen_free(text);
	CHECK(mmagen_plan_format(p, MMAGEN_FMT_PTX, &text, &len) == MMAGEN_INVALID_ARGUMENT,
	      "ptx format accepted");
	mmagen_plan_free(p);
	CHECK(!mmagen_doc_plan(&text, &len) && strstr(text, "| w8a8-fp8 (article) |") &&
	      strstr(text, "| nvfp4 (article) |"), "doc");
	mmagen_free(text);
}

int main(void)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_row(&rows[i]);
	verdicts();
	spellings();
	refusals();
	formats();
	every_plan();
	return check_summary();
}
