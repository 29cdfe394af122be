/* plan_print.c - a plan (plan.c) as text, as JSON, and docs/plan.md. */
#include "ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tn(mmagen_type t)
{
	return mmagen_type_name(t);
}

static const char *fam_word(unsigned fam)
{
	return fam == MMAGEN_FAM_TCGEN05 ? "tcgen05" : fam == MMAGEN_FAM_WGMMA ? "wgmma"
									    : "mma.sync";
}

/* "e4m3 x e4m3 -> f32 (or f16)" */
static void put_types(struct buf *b, const mmagen_plan_path *p)
{
	emitf(b, "$s x $s -> $s", tn(p->a), tn(p->b), tn(p->acc));
	if (p->acc_alt)
		emitf(b, " (or $s)", tn(p->acc_alt));
}

/* wgmma's opcode with N written "N": "wgmma...m64nNk32.f32.e4m3.e4m3";
 * 0 when f is not wgmma. */
static int wgmma_pattern(const mmagen_plan_form *pf, char *out, size_t n)
{
	char op[160];
	const char *m;

	if (pf->form->family != MMAGEN_FAM_WGMMA)
		return 0;
	mmagen_form_opcode(pf->form, op, sizeof op);
	if (!(m = strstr(op, ".m64n")))
		return 0;
	m += 5;
	snprintf(out, n, "%.*sN%s", (int)(m - op), op, m + strspn(m, "0123456789"));
	return 1;
}

static int cmp_u(const void *x, const void *y)
{
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
	return a < b ? -1 : a > b;
}

/* Ascending Ns as runs: "8..32/8 48..256/16". */
static void put_ns(struct buf *b, unsigned *ns, size_t n)
{
	qsort(ns, n, sizeof *ns, cmp_u);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (j < n)
			while (j + 1 < n && ns[j + 1] - ns[j] == ns[i + 1] - ns[i])
				j++;
		if (j < n && j - i >= 2) {
			emitf(b, "$s$u..$u/$u", i ? " " : "", ns[i], ns[j], ns[i + 1] - ns[i]);
			i = j + 1;
		} else {
			emitf(b, "$s$u", i ? " " : "", ns[i]);
			i++;
		}
	}
}

/* The forms, best first; wgmma's N variants of one opcode on one line. */
static void put_forms(struct buf *b, const mmagen_plan_path *p)
{
	unsigned *ns = malloc((p->nforms ? p->nforms : 1) * sizeof *ns);

	if (!ns) {
		b->err = MMAGEN_NO_MEMORY;
		return;
	}
	for (size_t i = 0; i < p->nforms;) {
		const mmagen_plan_form *pf = &p->forms[i];
		const mmagen_form *f = pf->form;
		char pat[160], pat2[160], op[160];
		size_t j = i + 1, k = 0;

		if (wgmma_pattern(pf, pat, sizeof pat)) {
			ns[k++] = f->n;
			while (j < p->nforms && wgmma_pattern(&p->forms[j], pat2, sizeof pat2) &&
			       !strcmp(pat, pat2) && p->forms[j].emulated == pf->emulated)
				ns[k++] = p->forms[j++].form->n;
			emitf(b, "    $s   N = ", pat);
			put_ns(b, ns, k);
		} else {
			emitf(b, "    $s", mmagen_form_opcode(f, op, sizeof op));
			if (f->family == MMAGEN_FAM_TCGEN05)
				emitf(b, "   $t x $t -> $t in the instruction descriptor",
				      (mmagen_type)f->a, (mmagen_type)f->b, (mmagen_type)f->d);
		}
		if (pf->emulated)
			buf_puts(b, "   [emulated]");
		buf_puts(b, "\n");
		i = j;
	}
	free(ns);
}

static void put_text(struct buf *b, const mmagen_plan *p)
{
	const char *t = mmagen_target_name(p->target);
	unsigned n = 0;

	emitf(b, "$s\n", p->verdict);
	emitf(b, "config:      $s ($s); weights $s; activations $s\n", p->config, p->title,
	      p->weights, p->activations);
	emitf(b, "order:       $s\n", p->order);
	for (size_t i = 0; i < p->npaths; i++) {
		const mmagen_plan_path *pp = &p->paths[i];
		const char *kind = pp->emulated ? "emulated" : pp->native ? "native" : "converted";
		if (!pp->available) {
			emitf(b, "\nnot on $s: $s [$s]: $s", t, pp->label,
			      pp->native ? "native" : "converted", pp->needs);
			if (pp->lowest[0])
				emitf(b, "; native on $s", pp->lowest);
			buf_puts(b, "\n");
			continue;
		}
		emitf(b, "\npath $u: $s [$s]\n", ++n, pp->label, kind);
		buf_puts(b, "  MMA types:  ");
		put_types(b, pp);
		emitf(b, "\n  conversion: $s\n", pp->conversion);
		emitf(b, "  scale:      $s\n", pp->scale);
		emitf(b, "  packing:    $s\n  why:        $s\n", pp->packing, pp->reason);
		if (pp->lowest[0])
			emitf(b, "  from:       $s\n", pp->lowest);
		emitf(b, "  forms on $s, best first ($u):\n", t, (unsigned)pp->nforms);
		put_forms(b, pp);
		for (size_t j = 0; j < pp->nforms; j++) {   /* each reason once */
			const char *e = pp->forms[j].emulated;
			int seen = !e;
			for (size_t k = 0; k < j && !seen; k++)
				seen = pp->forms[k].emulated == e;
			if (!seen)
				emitf(b, "  [emulated]  $s\n", e);
		}
		emitf(b, "  emit:       $s\n", pp->emit);
		if (pp->gemm)
			emitf(b, "  gemm:       $s$s\n", pp->gemm,
			      pp->native ? "" : "   (the MMA's types; the conversion is not generated)");
	}
}

/* ---- JSON ---- */

static void json_str(struct buf *b, const char *s)
{
	if (!s) {
		buf_puts(b, "null");
		return;
	}
	buf_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			emitf(b, "\\$s", c == '"' ? "\"" : "\\");
		else if (c < 0x20) {
			char esc[8];
			snprintf(esc, sizeof esc, "\\u%04x", c);
			buf_puts(b, esc);
		} else {
			char one[2] = { (char)c, 0 };
			buf_puts(b, one);
		}
	}
	buf_puts(b, "\"");
}

static void json_key(struct buf *b, const char *key, const char *v, int comma)
{
	emitf(b, "$s\"$s\": ", comma ? ", " : "", key);
	json_str(b, v);
}

static const char *tn_or_null(mmagen_type t)
{
	return t ? tn(t) : NULL;
}

static void put_json(struct buf *b, const mmagen_plan *p)
{
	buf_puts(b, "{");
	json_key(b, "config", p->config, 0);
	json_key(b, "title", p->title, 1);
	json_key(b, "weights", p->weights, 1);
	json_key(b, "activations", p->activations, 1);
	json_key(b, "target", mmagen_target_name(p->target), 1);
	emitf(b, ", \"native\": $s", p->native ? "true" : "false");
	json_key(b, "verdict", p->verdict, 1);
	json_key(b, "order", p->order, 1);
	buf_puts(b, ",\n \"paths\": [");
	for (size_t i = 0; i < p->npaths; i++) {
		const mmagen_plan_path *pp = &p->paths[i];
		emitf(b, "$s\n  {", i ? "," : "");
		json_key(b, "id", pp->id, 0);
		json_key(b, "label", pp->label, 1);
		emitf(b, ", \"native\": $s, \"available\": $s, \"emulated\": $s",
		      pp->native ? "true" : "false", pp->available ? "true" : "false",
		      pp->emulated ? "true" : "false");
		json_key(b, "a", tn(pp->a), 1);
		json_key(b, "b", tn(pp->b), 1);
		json_key(b, "acc", tn(pp->acc), 1);
		json_key(b, "acc_alt", tn_or_null(pp->acc_alt), 1);
		json_key(b, "scale_type", tn_or_null(pp->stype), 1);
		emitf(b, ", \"scale_block\": $u", pp->block);
		json_key(b, "conversion", pp->conversion, 1);
		json_key(b, "scale", pp->scale, 1);
		json_key(b, "packing", pp->packing, 1);
		json_key(b, "reason", pp->reason, 1);
		json_key(b, "needs", pp->needs, 1);
		json_key(b, "lowest", pp->lowest, 1);
		json_key(b, "emit", pp->emit, 1);
		json_key(b, "gemm", pp->gemm, 1);
		buf_puts(b, ",\n   \"forms\": [");
		for (size_t j = 0; j < pp->nforms; j++) {
			const mmagen_form *f = pp->forms[j].form;
			char op[160], shape[32];
			emitf(b, "$s\n    {", j ? "," : "");
			json_key(b, "opcode", mmagen_form_opcode(f, op, sizeof op), 0);
			json_key(b, "family", fam_word(f->family), 1);
			json_key(b, "shape", mmagen_form_shape(f, shape, sizeof shape), 1);
			json_key(b, "a", tn((mmagen_type)f->a), 1);
			json_key(b, "b", tn((mmagen_type)f->b), 1);
			json_key(b, "c", tn((mmagen_type)f->c), 1);
			json_key(b, "d", tn((mmagen_type)f->d), 1);
			json_key(b, "emulated", pp->forms[j].emulated, 1);
			buf_puts(b, "}");
		}
		buf_puts(b, pp->nforms ? "\n   ]}" : "]}");
	}
	buf_puts(b, "\n ]}\n");
}

mmagen_status mmagen_plan_format(const mmagen_plan *p, mmagen_format fmt, char **out,
				 size_t *len)
{
	struct buf b;

	if (!p || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_plan_format: NULL argument");
	if (fmt != MMAGEN_FMT_TEXT && fmt != MMAGEN_FMT_JSON)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"a plan prints as text or JSON (MMAGEN_FMT_TEXT, MMAGEN_FMT_JSON)");
	buf_init(&b);
	if (fmt == MMAGEN_FMT_TEXT)
		put_text(&b, p);
	else
		put_json(&b, p);
	return buf_finish(&b, out, len);
}

/* ---- docs/plan.md ---- */

static const char *const doc_targets[] = { "sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120a" };
#define NDOC (sizeof doc_targets / sizeof doc_targets[0])
/* The first configs are the rows of the article's table. */
#define ARTICLE_ROWS 6

/* One cell of the summary: the best path's class, family and types. */
static void put_cell(struct buf *b, const mmagen_plan *p)
{
	const mmagen_plan_path *pp = p->npaths ? &p->paths[0] : NULL;
	if (!pp || !pp->available) {
		buf_puts(b, " none |");
		return;
	}
	emitf(b, " $s: $s ", pp->emulated ? "emulated" : pp->native ? "**native**" : "converted",
	      fam_word(pp->forms[0].form->family));
	put_types(b, pp);
	if (pp->stype)
		emitf(b, ", $t/$u", pp->stype, pp->block);
	buf_puts(b, " |");
}

/* A plan in a few lines: the verdict, then each path and its best form. */
static void put_brief(struct buf *b, const mmagen_plan *p)
{
	emitf(b, "* **$s**: $s\n", mmagen_target_name(p->target), p->verdict);
	for (size_t i = 0; i < p->npaths; i++) {
		const mmagen_plan_path *pp = &p->paths[i];
		char op[160];
		if (!pp->available)
			continue;
		emitf(b, "  * $s, $s: ", pp->emulated ? "emulated" : pp->native ? "native" : "converted",
		      pp->label);
		put_types(b, pp);
		emitf(b, "; $u forms, best `$s`\n", (unsigned)pp->nforms,
		      mmagen_form_opcode(pp->forms[0].form, op, sizeof op));
	}
}

mmagen_status mmagen_doc_plan(char **out, size_t *len)
{
	mmagen_plan *plans[64][NDOC];
	size_t nc = 0;
	struct buf b;
	mmagen_status st = MMAGEN_OK;

	memset(plans, 0, sizeof plans);
	for (; mmagen_plan_config_name(nc) && nc < 64; nc++)
		for (size_t t = 0; t < NDOC && !st; t++) {
			mmagen_plan_request r;
			mmagen_plan_request_init(&r);
			r.quant = mmagen_plan_config_name(nc);
			if (!(st = mmagen_target_parse(doc_targets[t], &r.target)))
				st = mmagen_plan_new(&r, &plans[nc][t]);
		}
	buf_init(&b);
	buf_puts(&b, "# Quantization configs and the MMA that computes them\n\n"
		"Generated by `mmagen doc plan` from `gen/analysis/quant.def` and the form table;\n"
		"do not edit (the `docs-plan` test fails when this file is stale). Each\n"
		"config below is the verdict and paths of `mmagen plan --quant CONFIG\n"
		"--arch A` (which also prints every form, the scale format, the packing\n"
		"and the command lines) for the five targets of the article's tables.\n"
		"A holds the weights, B the activations.\n"
		"\"Native\" means the MMA receives the config's own low-precision types and\n"
		"scales; \"converted\" means the main loop converts them first (even when the\n"
		"conversion is exact and fused); \"emulated\" means ptxas accepts the form\n"
		"but the target's SASS has no native instruction for it.\n\n"
		"## Summary: the best path per target\n\n"
		"The first six rows are the article's table (\"量化配置如何映射到 MMA\").\n\n"
		"| config |");
	for (size_t t = 0; t < NDOC; t++)
		emitf(&b, " $s |", doc_targets[t]);
	buf_puts(&b, "\n|---|");
	for (size_t t = 0; t < NDOC; t++)
		buf_puts(&b, "---|");
	buf_puts(&b, "\n");
	for (size_t c = 0; c < nc && !st; c++) {
		emitf(&b, "| $s$s |", plans[c][0]->config, c < ARTICLE_ROWS ? " (article)" : "");
		for (size_t t = 0; t < NDOC; t++)
			put_cell(&b, plans[c][t]);
		buf_puts(&b, "\n");
	}
	for (size_t c = 0; c < nc && !st; c++) {
		const mmagen_plan *p0 = plans[c][0];
		emitf(&b, "\n## $s: $s\n\nWeights: $s. Activations: $s.\n\n", p0->config,
		      p0->title, p0->weights, p0->activations);
		for (size_t t = 0; t < NDOC; t++)
			put_brief(&b, plans[c][t]);
	}
	for (size_t c = 0; c < nc; c++)
		for (size_t t = 0; t < NDOC; t++)
			mmagen_plan_free(plans[c][t]);
	if (st) {
		buf_free(&b);
		return st;
	}
	return buf_finish(&b, out, len);
}
