/* family.c - the list of instruction families, and what reads it: names,
 * --family spellings, emitter dispatch, the opcode and shape of a form. */
#include "family.h"
#include "emit.h"
#include "kernel.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const struct family families[MMAGEN_FAM_END] = {
	[MMAGEN_FAM_MMA] = { "mma", "mma.sync and mma.sp", &mmagen_emit_mma, &tile_gen_mma, 1,
		{ { "mma.sync", MMAGEN_SPARSE_NONE }, { "mma", MMAGEN_SPARSE_NONE },
		  { "mma.sp", MMAGEN_SPARSE_SP },
		  { "mma.sp::ordered_metadata", MMAGEN_SPARSE_ORDERED } } },
	[MMAGEN_FAM_WGMMA] = { "wgmma", "wgmma.mma_async (sm_90a)", &mmagen_emit_wgmma, &tile_gen_wgmma, 2,
		{ { "wgmma", MMAGEN_SPARSE_NONE }, { "wgmma.sp", MMAGEN_SPARSE_SP } } },
	[MMAGEN_FAM_TCGEN05] = { "tcgen05", "tcgen05.mma (sm_100 family)", &mmagen_emit_tcgen05, &tile_gen_tcgen05, 3,
		{ { "tcgen05.mma", MMAGEN_SPARSE_NONE }, { "tcgen05", MMAGEN_SPARSE_NONE },
		  { "tcgen05.mma.sp", MMAGEN_SPARSE_SP }, { "tcgen05.sp", MMAGEN_SPARSE_SP } } },
	[MMAGEN_FAM_LDMATRIX] = { "ldmatrix", "ldmatrix", &mmagen_emit_ldmatrix, NULL, 10,
		{ { "ldmatrix", MMAGEN_ANY } } },
	[MMAGEN_FAM_STMATRIX] = { "stmatrix", "stmatrix", &mmagen_emit_stmatrix, NULL, 11,
		{ { "stmatrix", MMAGEN_ANY } } },
};

const struct family *family_of(int family)
{
	if (family <= 0 || family >= MMAGEN_FAM_END)
		return NULL;
	/* every enum value has its entry: a gap is a bug in this list */
	assert(families[family].name && families[family].emit);
	return &families[family];
}

unsigned family_distance(unsigned a, unsigned b)
{
	const struct family *fa = family_of((int)a), *fb = family_of((int)b);

	if (!fa || !fb)
		return 100;
	return fa->kin > fb->kin ? fa->kin - fb->kin : fb->kin - fa->kin;
}

const struct family_emitter *family_emitter(int family)
{
	const struct family *fam = family_of(family);
	return fam ? fam->emit : NULL;
}

const char *mmagen_family_name(int family)
{
	const struct family *fam = family_of(family);
	return fam ? fam->name : "unknown";
}

const char *mmagen_family_legal(char *buf, size_t n)
{
	size_t len = 0;

	if (!n)
		return buf;
	buf[0] = '\0';
	for (int f = 1; f < MMAGEN_FAM_END; f++)
		for (int i = 0; i < FAMILY_MAX_SPELLINGS && families[f].cli[i].name; i++) {
			int k = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
					 families[f].cli[i].name);
			if (k < 0 || (size_t)k >= n - len)
				return buf;
			len += (size_t)k;
		}
	return buf;
}

mmagen_status mmagen_family_parse(const char *s, unsigned *family, unsigned *sparse)
{
	char legal[512];

	if (!s || !family || !sparse)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_family_parse: a name and two outputs are required");
	for (int f = 1; f < MMAGEN_FAM_END; f++)
		for (int i = 0; i < FAMILY_MAX_SPELLINGS && families[f].cli[i].name; i++)
			if (!strcmp(s, families[f].cli[i].name)) {
				*family = (unsigned)f;
				*sparse = families[f].cli[i].sparse;
				return MMAGEN_OK;
			}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME, "unknown family '%s'; legal: %s", s,
				mmagen_family_legal(legal, sizeof legal));
}

const char *mmagen_form_family_label(const mmagen_form *f)
{
	const struct family *fam = f ? family_of(f->family) : NULL;

	if (!fam)
		return "unknown";
	for (int i = 0; i < FAMILY_MAX_SPELLINGS && fam->cli[i].name; i++)
		if (fam->cli[i].sparse == MMAGEN_ANY || fam->cli[i].sparse == f->sparse)
			return fam->cli[i].name;
	return fam->name;
}

/* ---- what a form prints: through its family's emitter ---- */

/* Run one emitter text function into out[0..n); "" if f is not a form
 * of a known family or memory ran out. */
static const char *form_text(const mmagen_form *f, int shape, char *out, size_t n)
{
	const struct family_emitter *e = f ? family_emitter(f->family) : NULL;
	struct buf b;
	char *s;

	if (!n)
		return out;
	out[0] = '\0';
	if (!e)
		return out;
	buf_init(&b);
	(shape ? e->shape : e->opcode)(f, &b);
	if (buf_finish(&b, &s, NULL))
		return out;
	snprintf(out, n, "%s", s);
	mmagen_free(s);
	return out;
}

const char *mmagen_form_opcode(const mmagen_form *f, char *out, size_t n)
{
	return form_text(f, 0, out, n);
}

const char *mmagen_form_shape(const mmagen_form *f, char *out, size_t n)
{
	return form_text(f, 1, out, n);
}

void instr_of(const mmagen_form *f, struct instr *in)
{
	const struct family_emitter *e = family_emitter(f->family);

	assert(e && "instr_of: not a form of a known family");
	memset(in, 0, sizeof *in);
	e->operands(f, in);
}
