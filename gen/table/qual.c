/* qual.c - every qualifier of an instruction form, once.
 *
 * Row legend, { field, value, token, ptx, cli, aliases }:
 *   field  the mmagen_form field it sets (mmagen_qual_field)
 *   value  the value it sets there
 *   token  its spelling in sigs.def (the sparse, layouts and quals
 *          columns); NULL for the default that the table never names
 *   ptx    its spelling in an opcode, dot included; "" for none; NULL for
 *          a fact the opcode does not show (where A comes from)
 *   cli    its name on the command line; NULL if it has none
 *   aliases  other names the command line takes, '|'-separated, or NULL
 * Kinds come from MMAGEN_KIND_LIST (mmagen.h), their only spelling.
 * Adding a qualifier: a field in mmagen_form and mmagen_qual_field, a
 * line in `fields` and its rows here.
 */
#include "qual.h"
#include "ptx.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define YESNO(F, tok, ptx)                                                  \
	{ MMAGEN_Q_##F, 0, NULL, "", "no", "0|false" },                        \
	{ MMAGEN_Q_##F, 1, tok, ptx, "yes", "1|true" },

static const struct qual quals[] = {
	{ MMAGEN_Q_SPARSE, MMAGEN_SPARSE_NONE, "dense", "", "none", "dense" },
	{ MMAGEN_Q_SPARSE, MMAGEN_SPARSE_SP, "sp", ".sp", "sp", NULL },
	{ MMAGEN_Q_SPARSE, MMAGEN_SPARSE_ORDERED, "ordered",
	  ".sp::ordered_metadata", "ordered", "sp::ordered_metadata" },

	{ MMAGEN_Q_LAYOUT, MMAGEN_ROW, "row", ".row", "row", NULL },
	{ MMAGEN_Q_LAYOUT, MMAGEN_COL, "col", ".col", "col", NULL },

	YESNO(SATFINITE, "satfinite", ".satfinite")

	{ MMAGEN_Q_BITOP, MMAGEN_BITOP_NONE, NULL, "", "none", NULL },
	{ MMAGEN_Q_BITOP, MMAGEN_XOR_POPC, "xor", ".xor.popc", "xor", NULL },
	{ MMAGEN_Q_BITOP, MMAGEN_AND_POPC, "and", ".and.popc", "and", NULL },

	{ MMAGEN_Q_KIND, MMAGEN_KIND_NONE, NULL, "", "none", NULL },
#define X(id, s) { MMAGEN_Q_KIND, MMAGEN_KIND_##id, "kind::" s, ".kind::" s, s, NULL },
	MMAGEN_KIND_LIST(X)
#undef X

	YESNO(BLOCK_SCALE, "block_scale", ".block_scale")

	{ MMAGEN_Q_SCALE_VEC, 0, NULL, "", "none", NULL },
	{ MMAGEN_Q_SCALE_VEC, 1, "sv1", ".scale_vec::1X", "1X", "1" },
	{ MMAGEN_Q_SCALE_VEC, 2, "sv2", ".scale_vec::2X", "2X", "2" },
	{ MMAGEN_Q_SCALE_VEC, 4, "sv4", ".scale_vec::4X", "4X", "4" },
	{ MMAGEN_Q_SCALE_VEC, 16, "blk16", ".block16", "block16", NULL },
	{ MMAGEN_Q_SCALE_VEC, 32, "blk32", ".block32", "block32", NULL },

	{ MMAGEN_Q_STYPE, MMAGEN_TYPE_NONE, NULL, "", "none", NULL },
	{ MMAGEN_Q_STYPE, MMAGEN_UE8M0, "ue8m0", ".ue8m0", "ue8m0", NULL },
	{ MMAGEN_Q_STYPE, MMAGEN_UE4M3, "ue4m3", ".ue4m3", "ue4m3", NULL },

	{ MMAGEN_Q_CTA_GROUP, 1, "cta1", ".cta_group::1", "1", NULL },
	{ MMAGEN_Q_CTA_GROUP, 2, "cta2", ".cta_group::2", "2", NULL },

	YESNO(WS, "ws", ".ws")
	YESNO(ASHIFT, "ashift", ".ashift")

	{ MMAGEN_Q_ASRC, MMAGEN_ASRC_REG, "areg", NULL, "reg", NULL },
	{ MMAGEN_Q_ASRC, MMAGEN_ASRC_SMEM, "asmem", NULL, "smem", NULL },
	{ MMAGEN_Q_ASRC, MMAGEN_ASRC_TMEM, "atmem", NULL, "tmem", NULL },

	{ MMAGEN_Q_RND, MMAGEN_RND_NONE, NULL, "", "none", NULL },
	{ MMAGEN_Q_RND, MMAGEN_RN, "rn", ".rn", "rn", NULL },
	{ MMAGEN_Q_RND, MMAGEN_RZ, "rz", ".rz", "rz", NULL },
	{ MMAGEN_Q_RND, MMAGEN_RM, "rm", ".rm", "rm", NULL },
	{ MMAGEN_Q_RND, MMAGEN_RP, "rp", ".rp", "rp", NULL },

	{ MMAGEN_Q_NUM, 1, "x1", ".x1", "x1", "1" },
	{ MMAGEN_Q_NUM, 2, "x2", ".x2", "x2", "2" },
	{ MMAGEN_Q_NUM, 4, "x4", ".x4", "x4", "4" },

	YESNO(TRANS, "trans", ".trans")

	{ MMAGEN_Q_LDTYPE, MMAGEN_LD_B16, "b16", ".b16", "b16", NULL },
	{ MMAGEN_Q_LDTYPE, MMAGEN_LD_B8, "b8", ".b8", "b8", NULL },
	{ MMAGEN_Q_LDTYPE, MMAGEN_LD_B6P32, "b6p32", ".b8x16.b6x16_p32", "b6p32", NULL },
	{ MMAGEN_Q_LDTYPE, MMAGEN_LD_B4P64, "b4p64", ".b8x16.b4x16_p64", "b4p64", NULL },
};
#undef YESNO

/* Each field: its CLI option name and where it lives in mmagen_form
 * (every qualifier field is one byte). */
static const struct {
	const char *name;
	size_t offset;
} fields[MMAGEN_Q_END] = {
#define F(Q, name, member) [MMAGEN_Q_##Q] = { name, offsetof(mmagen_form, member) },
	F(SPARSE, "sparse", sparse)
	F(LAYOUT, "layout", alayout)
	F(SATFINITE, "satfinite", satfinite)
	F(BITOP, "popc", bitop)
	F(KIND, "kind", kind)
	F(BLOCK_SCALE, "block-scale", block_scale)
	F(SCALE_VEC, "scale-vec", scale_vec)
	F(STYPE, "stype", stype)
	F(CTA_GROUP, "cta-group", cta_group)
	F(WS, "ws", ws)
	F(ASHIFT, "ashift", ashift)
	F(ASRC, "asrc", asrc)
	F(RND, "rnd", rnd)
	F(NUM, "num", num)
	F(TRANS, "trans", trans)
	F(LDTYPE, "ldtype", ldtype)
#undef F
};

const struct qual *qual_find(int field, unsigned value)
{
	for (size_t i = 0; i < ARRAY_SIZE(quals); i++)
		if (quals[i].field == field && quals[i].value == value)
			return &quals[i];
	return NULL;
}

const struct qual *qual_by_token(const char *tok, size_t n, int lo, int hi)
{
	for (size_t i = 0; i < ARRAY_SIZE(quals); i++) {
		const struct qual *q = &quals[i];
		if (q->field >= lo && q->field <= hi && q->token &&
		    strlen(q->token) == n && !memcmp(q->token, tok, n))
			return q;
	}
	return NULL;
}

void qual_apply(mmagen_form *f, const struct qual *q)
{
	assert(q->field < MMAGEN_Q_END);
	((uint8_t *)f)[fields[q->field].offset] = q->value;
}

unsigned qual_get(const mmagen_form *f, int field)
{
	assert(field >= 0 && field < MMAGEN_Q_END);
	return ((const uint8_t *)f)[fields[field].offset];
}

void emit_qual(struct buf *b, int field, unsigned value)
{
	const struct qual *q = qual_find(field, value);

	/* a field's 0 is "none" unless the table spells it */
	assert((q || !value) && "emit_qual: value missing from the qualifier table");
	if (q && q->ptx)
		buf_puts(b, q->ptx);
}

/* ---- public: names for the command line ---- */

static int valid_field(int q)
{
	return q >= 0 && q < MMAGEN_Q_END;
}

const char *mmagen_qual_field_name(mmagen_qual_field q)
{
	return valid_field((int)q) ? fields[q].name : NULL;
}

const char *mmagen_qual_name(mmagen_qual_field q, unsigned v)
{
	const struct qual *r = valid_field((int)q) ? qual_find((int)q, v) : NULL;

	return r ? r->cli : NULL;
}

/* Calls fn on the CLI name and each alias of r until it returns nonzero. */
static int each_name(const struct qual *r, int (*fn)(const char *, size_t, void *),
		     void *ctx)
{
	if (!r->cli)
		return 0;
	if (fn(r->cli, strlen(r->cli), ctx))
		return 1;
	for (const char *a = r->aliases; a && *a;) {
		size_t w = strcspn(a, "|");
		if (fn(a, w, ctx))
			return 1;
		a += w + (a[w] == '|');
	}
	return 0;
}

struct legal_ctx {
	char *buf;
	size_t n, len;
};

static int append_name(const char *s, size_t w, void *p)
{
	struct legal_ctx *c = p;
	int k = snprintf(c->buf + c->len, c->n - c->len, "%s%.*s",
			 c->len ? ", " : "", (int)w, s);
	if (k < 0 || (size_t)k >= c->n - c->len)
		return 1;       /* full: stop */
	c->len += (size_t)k;
	return 0;
}

const char *mmagen_qual_legal(mmagen_qual_field q, char *buf, size_t n)
{
	struct legal_ctx c = { buf, n, 0 };

	if (!n)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; valid_field((int)q) && i < ARRAY_SIZE(quals); i++)
		if (quals[i].field == q && each_name(&quals[i], append_name, &c))
			break;
	return buf;
}

const char *qual_cli_names(int q, char *buf, size_t n)
{
	struct legal_ctx c = { buf, n, 0 };

	if (!n)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; valid_field(q) && i < ARRAY_SIZE(quals); i++)
		if (quals[i].field == q && quals[i].cli &&
		    append_name(quals[i].cli, strlen(quals[i].cli), &c))
			break;
	return buf;
}

static int same_name(const char *s, size_t w, void *p)
{
	const char *want = p;
	return strlen(want) == w && !memcmp(s, want, w);
}

mmagen_status mmagen_qual_parse(mmagen_qual_field q, const char *s, unsigned *out)
{
	char legal[256];

	if (!valid_field((int)q) || !s || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_qual_parse: a field (0..%d), a name and an output are required",
			MMAGEN_Q_END - 1);
	for (size_t i = 0; i < ARRAY_SIZE(quals); i++)
		if (quals[i].field == q && each_name(&quals[i], same_name, (void *)s)) {
			*out = quals[i].value;
			return MMAGEN_OK;
		}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME, "bad value '%s' for --%s; legal: %s",
				s, fields[q].name, mmagen_qual_legal(q, legal, sizeof legal));
}
