/* doc.c - docs/signatures.md, generated from the table so that it cannot
 * go stale silently (a test compares the two). */
#include "family.h"
#include "ptx.h"
#include "qual.h"
#include "table.h"

#include <string.h>

static void targets_of(struct buf *b, uint32_t feature)
{
	int first = 1;
	for (int t = 0; t < T_COUNT; t++)
		if (mmagen_targets[t].features & feature) {
			emitf(b, "$s$s", first ? "" : " ", mmagen_targets[t].name);
			first = 0;
		}
}

/* The sparse column as the docs show it: its PTX spelling (".sp"), or
 * the token itself where there is none ("dense"). */
static const char *sparse_label(const char *s)
{
	const struct qual *q = qual_by_token(s, strlen(s), MMAGEN_Q_SPARSE,
					     MMAGEN_Q_SPARSE);
	return q && q->ptx && q->ptx[0] ? q->ptx : s;
}

mmagen_status mmagen_doc_signatures(char **out, size_t *len)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, "# Instruction signatures\n\n"
		"Generated from `gen/table/sigs.def` by `mmagen doc signatures`; do not edit\n"
		"(the `docs` test fails when this file is stale). Each row below is one\n"
		"row of the table; `mmagen list` shows every concrete form, and\n"
		"`mmagen list --arch A --opcodes` every complete opcode on a target.\n\n"
		"Columns: **sparse** (dense, `.sp`, `.sp::ordered_metadata`); **shapes**\n"
		"(`n8..256/8` = N from 8 to 256 in steps of 8; tcgen05 gives only K, M and\n"
		"N live in the instruction descriptor); **A**, **B** (`=` = same as A);\n"
		"**D:C** (for wgmma and tcgen05, C is D's incoming value); **qualifiers**\n"
		"(`;` separates groups, one alternative of each; `-` = none; `sv2` =\n"
		"`.scale_vec::2X`, `blk16` = `.block16`, `cta1` = `.cta_group::1`,\n"
		"`asmem`/`areg`/`atmem` = where A comes from); **forms**; **targets**;\n"
		"**PTX** = lowest `.version` (a module uses the larger of this and the\n"
		"target's own minimum). Verified with ptxas 13.0 (`meson test --suite\n"
		"ptxas`, `--suite sweep`).\n\n## Targets\n\n"
		"| target | lowest .version |\n|---|---|\n");
	for (int t = 0; t < T_COUNT; t++)
		emitf(&b, "| $s | $u.$u |\n", mmagen_targets[t].name,
		      mmagen_targets[t].min_ptx / 10, mmagen_targets[t].min_ptx % 10);
	for (int fam = MMAGEN_FAM_MMA; fam < MMAGEN_FAM_END; fam++) {
		emitf(&b, "\n## $s\n\n| sparse | shapes | A | B | D:C | layouts | qualifiers | forms | targets | PTX |\n"
			  "|---|---|---|---|---|---|---|---|---|---|\n", family_of(fam)->doc_title);
		for (size_t r = 0; r < mmagen_row_count; r++) {
			const struct row *row = &mmagen_rows[r];
			size_t nforms = 0;
			if (row->family != fam)
				continue;
			for (size_t i = 0; i < mmagen_form_count(); i++)
				nforms += mmagen_form_at(i)->row == r;
			emitf(&b, "| $s | $s | $s | $s | $s | $s | $s | $u | ",
			      sparse_label(row->sparse), row->shapes, row->a, row->b,
			      row->dc, row->layouts, row->quals, (unsigned)nforms);
			targets_of(&b, row->feature);
			emitf(&b, " | $u.$u |\n", row->min_ptx / 10, row->min_ptx % 10);
		}
	}
	return buf_finish(&b, out, len);
}
