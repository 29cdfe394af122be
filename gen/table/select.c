/* select.c - pick one form for a request, or explain why none fits. */
#include "table.h"
#include "abi.h"
#include "family.h"
#include "qual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defaults into the caller's `size` bytes (a caller built against an
 * older mmagen.h has fewer fields; one built against a newer one gets its
 * unknown fields zeroed and mmagen_select refuses it). */
void mmagen_request_init_size(mmagen_request *req, size_t size)
{
	mmagen_request full, *r = &full;

	if (!req || size < sizeof req->size)
		return;
	memset(r, 0, sizeof *r);
	r->size = size;
	r->target = -1;
	r->family = r->sparse = r->m = r->n = r->k = MMAGEN_ANY;
	r->a = r->b = r->c = r->d = r->alayout = r->blayout = MMAGEN_ANY;
	r->satfinite = r->bitop = r->kind = r->block_scale = MMAGEN_ANY;
	r->scale_vec = r->stype = r->cta_group = r->ws = r->asrc = MMAGEN_ANY;
	r->rnd = r->num = r->trans = r->ldtype = r->ashift = MMAGEN_ANY;
	if (size > sizeof full) {
		memset(req, 0, size);
		size = sizeof full;
	}
	memcpy(req, &full, size);
}

/* The caller's request with its missing fields at their defaults. */
static mmagen_status request_in(const mmagen_request *req, mmagen_request *full)
{
	mmagen_request_init(full);
	return abi_sized_in("mmagen_request", "mmagen_request_init", full, sizeof *full,
			    req, REQUEST_SIZE_MIN);
}

/* X(field): every request field that a form has too. */
#define REQ_FIELDS(X)                                                       \
	X(family) X(sparse) X(m) X(n) X(k) X(a) X(b) X(c) X(d) X(alayout)   \
	X(blayout) X(satfinite) X(bitop) X(kind) X(block_scale)             \
	X(scale_vec) X(stype) X(cta_group) X(ws) X(asrc) X(rnd) X(num)      \
	X(trans) X(ldtype) X(ashift)

enum {
#define X(f) FIELD_##f,
	REQ_FIELDS(X)
#undef X
	NFIELDS
};

static unsigned req_field(const mmagen_request *r, int i)
{
	switch (i) {
#define X(f) case FIELD_##f: return r->f;
	REQ_FIELDS(X)
#undef X
	}
	return MMAGEN_ANY;
}

static unsigned form_field(const mmagen_form *f, int i)
{
	switch (i) {
#define X(fl) case FIELD_##fl: return f->fl;
	REQ_FIELDS(X)
#undef X
	}
	return 0;
}

/* Number of set fields of r that f does not match; `skip` is ignored. */
static int mismatches(const mmagen_request *r, const mmagen_form *f, int skip)
{
	int n = 0;
	for (int i = 0; i < NFIELDS; i++) {
		unsigned v = req_field(r, i);
		if (i != skip && v != MMAGEN_ANY && v != form_field(f, i))
			n++;
	}
	return n;
}

/* ---- rules ---- */

/* Types that mix as A and B: FP8/FP6/FP4, 8-bit integers, 4-bit
 * integers (the type table's classes); any other type only with itself. */
static int type_class(unsigned t)
{
	unsigned c = mmagen_type_class((mmagen_type)t);
	if (c & (TYPE_FP8 | TYPE_FP6 | TYPE_FP4))
		return 1;
	if ((c & TYPE_INT) && mmagen_type_bits((mmagen_type)t) == 8)
		return 2;
	if ((c & TYPE_INT) && mmagen_type_bits((mmagen_type)t) == 4)
		return 3;
	return 10 + (int)t;
}

#define FAM(F) (r->family == MMAGEN_FAM_##F)
#define IS(fl, v) (r->fl == (unsigned)(v))
#define SET(fl) (r->fl != MMAGEN_ANY)
#define NOT(fl, T) (SET(fl) && r->fl != (unsigned)MMAGEN_##T)
#define ANYT(T) (r->a == MMAGEN_##T || r->b == MMAGEN_##T)
#define SPARSE (SET(sparse) && r->sparse != MMAGEN_SPARSE_NONE)
#define TGT(id) (r->target == T_##id)
#define TGT_SM12X (r->target >= 0 && mmagen_targets[r->target].sm >= 120)
#define TGT_TC05 (r->target >= 0 && (mmagen_targets[r->target].features & F_TC05))
#define TGT_BELOW(s) (r->target >= 0 && mmagen_targets[r->target].sm < (s))

struct rule {
	const char *name, *message;
	int (*when)(const mmagen_request *r);
};

#define RULE(nm, expr, msg) \
	static int rule_##nm(const mmagen_request *r) { return (expr); }
#include "rules.def"
#undef RULE

static const struct rule rules[] = {
#define RULE(nm, expr, msg) { #nm, msg, rule_##nm },
#include "rules.def"
#undef RULE
};

/* Used by the unit test: the first rule that r breaks, or NULL. */
const char *mmagen_rule_broken(const mmagen_request *r, const char **name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].when(r)) {
			if (name)
				*name = rules[i].name;
			return rules[i].message;
		}
	return NULL;
}

/* ---- facets: the selector fields as the command line names them ----
 * One option each (--shape covers m, n and k; --layout both layouts);
 * a facet's value is the spelling its option takes, so that a listing
 * round-trips into a request.  Legend: { name (NULL: the qualifier
 * table's), kind, first request field, fields covered, qualifier }. */
enum facet_kind { FK_FAMILY, FK_SHAPE, FK_TYPE, FK_LAYOUT, FK_QUAL };

static const struct facet {
	const char *name;
	enum facet_kind kind;
	int field, nfields;
	mmagen_qual_field q;
} facets[] = {
	{ "family", FK_FAMILY, FIELD_family, 1, MMAGEN_Q_END },
	{ "shape", FK_SHAPE, FIELD_m, 3, MMAGEN_Q_END },
	{ "a", FK_TYPE, FIELD_a, 1, MMAGEN_Q_END },
	{ "b", FK_TYPE, FIELD_b, 1, MMAGEN_Q_END },
	{ "c", FK_TYPE, FIELD_c, 1, MMAGEN_Q_END },
	{ "d", FK_TYPE, FIELD_d, 1, MMAGEN_Q_END },
	{ NULL, FK_QUAL, FIELD_sparse, 1, MMAGEN_Q_SPARSE },
	{ NULL, FK_LAYOUT, FIELD_alayout, 2, MMAGEN_Q_LAYOUT },
	{ NULL, FK_QUAL, FIELD_satfinite, 1, MMAGEN_Q_SATFINITE },
	{ NULL, FK_QUAL, FIELD_bitop, 1, MMAGEN_Q_BITOP },
	{ NULL, FK_QUAL, FIELD_kind, 1, MMAGEN_Q_KIND },
	{ NULL, FK_QUAL, FIELD_block_scale, 1, MMAGEN_Q_BLOCK_SCALE },
	{ NULL, FK_QUAL, FIELD_scale_vec, 1, MMAGEN_Q_SCALE_VEC },
	{ NULL, FK_QUAL, FIELD_stype, 1, MMAGEN_Q_STYPE },
	{ NULL, FK_QUAL, FIELD_cta_group, 1, MMAGEN_Q_CTA_GROUP },
	{ NULL, FK_QUAL, FIELD_ws, 1, MMAGEN_Q_WS },
	{ NULL, FK_QUAL, FIELD_ashift, 1, MMAGEN_Q_ASHIFT },
	{ NULL, FK_QUAL, FIELD_asrc, 1, MMAGEN_Q_ASRC },
	{ NULL, FK_QUAL, FIELD_rnd, 1, MMAGEN_Q_RND },
	{ NULL, FK_QUAL, FIELD_num, 1, MMAGEN_Q_NUM },
	{ NULL, FK_QUAL, FIELD_trans, 1, MMAGEN_Q_TRANS },
	{ NULL, FK_QUAL, FIELD_ldtype, 1, MMAGEN_Q_LDTYPE },
};
#define NFACETS ARRAY_SIZE(facets)
_Static_assert(FIELD_n == FIELD_m + 1 && FIELD_k == FIELD_m + 2 &&
	       FIELD_blayout == FIELD_alayout + 1, "a facet covers consecutive fields");
_Static_assert(NFACETS <= 32, "mmagen_select_defaults returns a 32-bit mask");

const char *mmagen_facet_name(unsigned i)
{
	if (i >= NFACETS)
		return NULL;
	return facets[i].name ? facets[i].name : mmagen_qual_field_name(facets[i].q);
}

const char *mmagen_form_facet(const mmagen_form *f, unsigned i, char *buf, size_t n)
{
	const char *s = NULL;

	if (!buf || !n)
		return buf;
	buf[0] = '\0';
	if (!f || i >= NFACETS)
		return buf;
	switch (facets[i].kind) {
	case FK_FAMILY:
		s = mmagen_form_family_label(f);
		break;
	case FK_SHAPE:
		return mmagen_form_shape(f, buf, n);
	case FK_TYPE:
		s = form_field(f, facets[i].field) ?
			mmagen_type_name((mmagen_type)form_field(f, facets[i].field)) : NULL;
		break;
	case FK_LAYOUT:
		if ((s = mmagen_qual_name(MMAGEN_Q_LAYOUT, f->alayout)) &&
		    mmagen_qual_name(MMAGEN_Q_LAYOUT, f->blayout)) {
			snprintf(buf, n, "%s.%s", s,
				 mmagen_qual_name(MMAGEN_Q_LAYOUT, f->blayout));
			return buf;
		}
		s = NULL;
		break;
	case FK_QUAL:
		s = mmagen_qual_name(facets[i].q, form_field(f, facets[i].field));
		break;
	}
	snprintf(buf, n, "%s", s ? s : "-");
	return buf;
}

/* ---- a request from facet spellings (mmagen_request_set) ----
 * The command line's selector options are parsed here too, so that a
 * binding and the CLI take the same spellings and say the same about bad
 * ones.  A parser reads `v` into `r` (the library's full copy) or fails
 * with one line that names the option as the command line spells it. */

/* mmagen_type_parse's message as the type option's: after "--a: ", its
 * bytes outside printable ASCII as \xNN (it quotes the text as given), so
 * that it stays one line and reads as the command line has printed it. */
static mmagen_status bad_type(const char *option)
{
	char msg[1024];
	size_t l = (size_t)snprintf(msg, sizeof msg, "--%s: ", option);

	for (const unsigned char *p = (const unsigned char *)mmagen_last_error();
	     *p && l + 5 < sizeof msg; p++)
		if (*p >= 0x20 && *p < 0x7f)
			msg[l++] = (char)*p;
		else
			l += (size_t)snprintf(msg + l, sizeof msg - l, "\\x%02x", *p);
	msg[l] = '\0';
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s", msg);
}

/* One dimension "<letter><digits>" at *p, 1 .. MMAGEN_ANY - 1 (ANY is
 * "unset"); at most 7 digits, leading zeros allowed, no sign or blank. */
static int shape_dim(const char **p, char letter, unsigned *out)
{
	const char *d = *p + 1;
	unsigned long x = 0;
	size_t n = 0;

	if (**p != letter)
		return -1;
	for (; d[n] >= '0' && d[n] <= '9'; n++)
		if (n < 7)
			x = x * 10 + (unsigned long)(d[n] - '0');
	if (!n || n >= 8 || !x || x > MMAGEN_ANY - 1)
		return -1;
	*out = (unsigned)x;
	*p = d + n;
	return 0;
}

/* mNnNkK; mNnN (ldmatrix, stmatrix: K untouched); kK (tcgen05, whose M
 * and N are in the instruction descriptor: M and N untouched) */
static mmagen_status parse_shape(mmagen_request *r, const char *v)
{
	char q[ERR_QUOTE_SIZE];
	const char *p = v;
	unsigned m, n, k;

	if (!shape_dim(&p, 'm', &m) && !shape_dim(&p, 'n', &n)) {
		if (!*p) {
			r->m = m, r->n = n;
			return MMAGEN_OK;
		}
		if (!shape_dim(&p, 'k', &k) && !*p) {
			r->m = m, r->n = n, r->k = k;
			return MMAGEN_OK;
		}
	} else if (p = v, !shape_dim(&p, 'k', &k) && !*p) {
		r->k = k;
		return MMAGEN_OK;
	}
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "bad --shape %s; write it like m16n8k16 "
				"(ldmatrix: m8n8, tcgen05: k16)", err_quote(v, q));
}

/* A's and B's layout at once, as opcodes spell them: "row.col" */
static mmagen_status parse_layout(mmagen_request *r, const char *v)
{
	static const char *const l[] = { "row.row", "row.col", "col.row", "col.col" };
	char q[ERR_QUOTE_SIZE];

	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(v, l[i])) {
			r->alayout = i / 2 ? MMAGEN_COL : MMAGEN_ROW;
			r->blayout = i % 2 ? MMAGEN_COL : MMAGEN_ROW;
			return MMAGEN_OK;
		}
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "bad --layout %s; legal: row.col, "
				"row.row, col.row, col.col", err_quote(v, q));
}

/* The family, and the sparsity where the spelling implies one
 * ("mma.sp", "wgmma"; ldmatrix implies none and leaves it). */
static mmagen_status parse_family(mmagen_request *r, const char *v)
{
	char q[ERR_QUOTE_SIZE], legal[512];
	unsigned fam, sparse;

	if (mmagen_family_parse(v, &fam, &sparse))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "unknown family %s; legal: %s",
					err_quote(v, q), mmagen_family_legal(legal, sizeof legal));
	r->family = fam;
	if (sparse != MMAGEN_ANY)
		r->sparse = sparse;
	return MMAGEN_OK;
}

/* The request field that FIELD_i names. */
static unsigned *req_field_at(mmagen_request *r, int i)
{
	switch (i) {
#define X(f) case FIELD_##f: return &r->f;
	REQ_FIELDS(X)
#undef X
	}
	return NULL;
}

/* One qualifier: its names and aliases (mmagen_qual_parse); the message
 * lists the names alone, as help does.  kind also takes the opcode's
 * "kind::f16". */
static mmagen_status parse_qual(mmagen_request *r, const struct facet *fc, const char *v)
{
	char q[ERR_QUOTE_SIZE], legal[256];
	unsigned x;

	if (fc->q == MMAGEN_Q_KIND && !strncmp(v, "kind::", 6))
		v += 6;
	if (mmagen_qual_parse(fc->q, v, &x))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "bad value %s for --%s; legal: %s",
					err_quote(v, q), mmagen_qual_field_name(fc->q),
					qual_cli_names((int)fc->q, legal, sizeof legal));
	*req_field_at(r, fc->field) = x;
	return MMAGEN_OK;
}

/* name is facet i's name, '_' standing for any '-' */
static int facet_is(unsigned i, const char *name)
{
	const char *f = mmagen_facet_name(i);

	for (; *f; f++, name++)
		if (*name != *f && !(*f == '-' && *name == '_'))
			return 0;
	return !*name;
}

mmagen_status mmagen_request_set(mmagen_request *req, const char *facet, const char *value)
{
	char q[ERR_QUOTE_SIZE], names[256] = "";
	mmagen_request full;
	mmagen_status s;
	unsigned i;

	if (!req || !facet || !value)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_request_set: a request, a facet and a value are required");
	if ((s = request_in(req, &full)))
		return s;
	for (i = 0; i < NFACETS && !facet_is(i, facet); i++)
		;
	if (i == NFACETS) {
		for (unsigned k = 0; k < NFACETS; k++) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof names - l, "%s%s", k ? ", " : "",
				 mmagen_facet_name(k));
		}
		return mmagen_set_error(MMAGEN_UNKNOWN_NAME, "unknown facet %s; facets: %s",
					err_quote(facet, q), names);
	}
	switch (facets[i].kind) {
	case FK_FAMILY:
		s = parse_family(&full, value);
		break;
	case FK_SHAPE:
		s = parse_shape(&full, value);
		break;
	case FK_TYPE: {
		mmagen_type t;
		if ((s = mmagen_type_parse(value, &t)))
			s = bad_type(facets[i].name);
		else
			*req_field_at(&full, facets[i].field) = t;
		break;
	}
	case FK_LAYOUT:
		s = parse_layout(&full, value);
		break;
	case FK_QUAL:
		s = parse_qual(&full, &facets[i], value);
		break;
	}
	if (s)
		return s;
	/* Back into the caller's bytes alone (request_in took its size,
	 * REQUEST_SIZE_MIN, which holds every facet's fields, or more). */
	memcpy((char *)req + sizeof req->size, (char *)&full + sizeof full.size,
	       req->size - sizeof req->size);
	return MMAGEN_OK;
}

/* r sets none of the fields of facet i */
static int facet_open(const mmagen_request *r, unsigned i)
{
	for (int k = 0; k < facets[i].nfields; k++)
		if (req_field(r, facets[i].field + k) != MMAGEN_ANY)
			return 0;
	return 1;
}

static int facet_differs(const mmagen_form *f, const mmagen_form *g, unsigned i)
{
	char x[64], y[64];
	if (facets[i].kind == FK_SHAPE)
		return f->m != g->m || f->n != g->n || f->k != g->k;
	return strcmp(mmagen_form_facet(f, i, x, sizeof x),
		      mmagen_form_facet(g, i, y, sizeof y)) != 0;
}

/* The opcode a request names is never longer than this; a longer one
 * matches nothing, and only its first OPCODE_MAX bytes are compared for
 * suggestions (the edit distance is quadratic). */
#define OPCODE_MAX 160

static int matches(const mmagen_request *r, const mmagen_form *f)
{
	char op[256];
	if (mismatches(r, f, -1))
		return 0;
	if (r->opcode && (strlen(r->opcode) > OPCODE_MAX ||
			  strcmp(r->opcode, mmagen_form_opcode(f, op, sizeof op))))
		return 0;
	return 1;
}

int mmagen_form_matches(const mmagen_request *req, const mmagen_form *f)
{
	mmagen_request r;
	return f && !request_in(req, &r) && matches(&r, f);
}

/* ---- near matches ---- */

static size_t edit_distance(const char *s, const char *t)
{
	size_t n = strlen(t), prev[256], cur[256];
	if (n >= 255)
		n = 255;
	for (size_t j = 0; j <= n; j++)
		prev[j] = j;
	for (size_t i = 1; *s && i <= OPCODE_MAX; s++, i++) {
		cur[0] = i;
		for (size_t j = 1; j <= n; j++) {
			size_t sub = prev[j - 1] + (*s != t[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (n + 1) * sizeof *prev);
	}
	return prev[n];
}

/* A request with every field of f set: what to measure others against
 * when the user named f by its opcode. */
static void request_of(const mmagen_form *f, const mmagen_request *r, mmagen_request *out)
{
	*out = *r;
	out->opcode = NULL;
#define X(fl) out->fl = f->fl;
	REQ_FIELDS(X)
#undef X
}

/* How far form g is from what r asks: the distance of the families
 * counts most (tcgen05 is nearest wgmma, then mma.sync); within a family
 * each set field g lacks counts one; across families only sparsity and
 * the types count, as their other fields mean different things. */
static long distance(const mmagen_request *r, const mmagen_form *g)
{
	long fd = r->family != MMAGEN_ANY ? (long)family_distance(r->family, g->family) : 0;
	long n = 0;

	for (int i = 0; i < NFIELDS; i++) {
		unsigned v = req_field(r, i);
		if (i == FIELD_family || v == MMAGEN_ANY || v == form_field(g, i))
			continue;
		if (fd && i != FIELD_sparse && i != FIELD_a && i != FIELD_b &&
		    i != FIELD_c && i != FIELD_d)
			continue;
		n++;
	}
	return fd * 100 + n;
}

/* Up to `max` (at most K) distinct opcodes of the forms on target t (any
 * when t < 0) that have filter's fields (if given) nearest to r, into
 * out: by distance() from `like` when given (the form r names, on another
 * target), else by edit distance from r's opcode, else by distance()
 * from r. */
static void nearest(const mmagen_request *r, const mmagen_form *like,
		    const mmagen_request *filter, int t, int max, char *out, size_t n)
{
	enum { K = 8 };
	char best[K][256];
	long score[K];
	int have = 0;
	char op[256];
	mmagen_request ref;
	size_t oplen = r->opcode ? strlen(r->opcode) : 0;

	if (like)
		request_of(like, r, &ref);
	if (oplen > OPCODE_MAX)
		oplen = OPCODE_MAX;
	if (max > K)
		max = K;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		long s;
		if ((t >= 0 && !mmagen_form_on_target(f, t)) ||
		    (filter && mismatches(filter, f, -1)))
			continue;
		if (like) {
			s = distance(&ref, f);
		} else if (r->opcode) {
			mmagen_form_opcode(f, op, sizeof op);
			/* the lengths alone bound the distance: skip the
			 * quadratic part when it cannot win */
			size_t l = strlen(op), lb = l > oplen ? l - oplen : oplen - l;
			if (have == max && (long)lb >= score[have - 1])
				continue;
			s = (long)edit_distance(r->opcode, op);
		} else {
			s = distance(r, f);
		}
		if (have == max && s >= score[have - 1])
			continue;
		mmagen_form_opcode(f, op, sizeof op);
		/* keep the best, distinct by opcode, earliest on ties */
		int dup = 0;
		for (int j = 0; j < have && !dup; j++)
			dup = !strcmp(best[j], op);
		if (dup)
			continue;
		int pos = have;
		while (pos > 0 && score[pos - 1] > s)
			pos--;
		if (have < max)
			have++;
		for (int j = have - 1; j > pos; j--) {
			memcpy(best[j], best[j - 1], sizeof best[j]);
			score[j] = score[j - 1];
		}
		memcpy(best[pos], op, sizeof op);
		score[pos] = s;
	}
	out[0] = '\0';
	for (int j = 0; j < have; j++) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s%s", j ? ", " : "", best[j]);
	}
}

static mmagen_status fail(mmagen_status s, const mmagen_request *r,
			  const mmagen_form *like, const char *why)
{
	char near[1024];
	nearest(r, like, NULL, r->target, 3, near, sizeof near);
	if (!near[0])
		return mmagen_set_error(s, "%s", why);
	return mmagen_set_error(s, "%s; nearest legal on %s: %s", why,
				mmagen_target_name(r->target), near);
}

/* The opcode as the user gave it, cut short for messages. */
static const char *opcode_shown(const char *op, char *buf, size_t n)
{
	if (strlen(op) <= 100)
		return op;
	snprintf(buf, n, "%.100s...", op);
	return buf;
}

/* Append s to buf[0..n), cut at the end. */
static void append(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf), k = strlen(s);

	if (l + 1 >= n)
		return;
	if (k > n - l - 1)
		k = n - l - 1;
	memcpy(buf + l, s, k);
	buf[l + k] = '\0';
}

/* Append v to the ", "-separated list unless it is there; "..." once
 * when full. */
static void list_add(char *list, size_t n, const char *v)
{
	size_t vl = strlen(v), l = strlen(list);

	for (const char *p = list; *p; p += strcspn(p, ","), p += *p ? 2 : 0)
		if (!strncmp(p, v, vl) && (p[vl] == ',' || !p[vl]))
			return;
	if (l + vl + 8 < n)
		snprintf(list + l, n - l, "%s%s", l ? ", " : "", v);
	else if (!strstr(list, "..."))
		snprintf(list + l, n - l, ", ...");
}

/* r names an opcode that exists (f), but set fields disagree with it:
 * name them with the opcode's values, and suggest what the fields alone
 * allow, nearest the opcode's spelling. */
static mmagen_status conflict(const mmagen_request *r, const mmagen_form *f)
{
	char why[640], v[64], shown[128], near[640];
	mmagen_request fields = *r;
	size_t l;
	int first = 1;

	fields.opcode = NULL;
	snprintf(why, sizeof why, "--opcode %s conflicts with",
		 opcode_shown(r->opcode, shown, sizeof shown));
	for (unsigned i = 0; i < NFACETS; i++) {
		int differs = 0;
		for (int k = 0; k < facets[i].nfields; k++) {
			unsigned x = req_field(r, facets[i].field + k);
			differs |= x != MMAGEN_ANY && x != form_field(f, facets[i].field + k);
		}
		if (!differs)
			continue;
		l = strlen(why);
		snprintf(why + l, sizeof why - l, "%s --%s (the opcode has %s)", first ? "" : ",",
			 mmagen_facet_name(i), mmagen_form_facet(f, i, v, sizeof v));
		first = 0;
	}
	nearest(r, NULL, &fields, r->target, 3, near, sizeof near);
	if (!near[0])
		return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s; drop one or the other", why);
	return mmagen_set_error(MMAGEN_ILLEGAL_FORM, "%s; drop one or the other "
				"(the fields alone, nearest the opcode on %s: %s)", why,
				mmagen_target_name(r->target), near);
}

/* Explain why nothing matches: a rule if one holds, else the one field
 * whose value no form on the target has. */
static mmagen_status explain(const mmagen_request *r)
{
	char why[512], vals[512], shown[128];
	const char *msg = mmagen_rule_broken(r, NULL);
	char op[256];

	if (msg) {
		snprintf(why, sizeof why, msg, mmagen_target_name(r->target));
		return fail(MMAGEN_ILLEGAL_FORM, r, NULL, why);
	}
	/* Exists elsewhere? Then it is the target. */
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (matches(r, f)) {
			snprintf(why, sizeof why, "%s needs target %s or a later one that has it (got %s)",
				 mmagen_form_opcode(f, op, sizeof op),
				 mmagen_target_name(mmagen_form_min_target(f)),
				 mmagen_target_name(r->target));
			return fail(MMAGEN_TARGET, r, f, why);
		}
	}
	if (r->opcode) {
		/* a real opcode that the other fields contradict */
		mmagen_request bare;
		mmagen_request_init(&bare);
		bare.target = r->target;
		bare.opcode = r->opcode;
		for (size_t i = 0; i < mmagen_form_count(); i++) {
			const mmagen_form *f = mmagen_form_at(i);
			if (matches(&bare, f))
				return conflict(r, f);
		}
		snprintf(why, sizeof why, "'%s' is not a legal opcode",
			 opcode_shown(r->opcode, shown, sizeof shown));
		return fail(MMAGEN_ILLEGAL_FORM, r, NULL, why);
	}
	/* The facet that alone blocks a match: list the values it could take. */
	for (unsigned i = 0; i < NFACETS; i++) {
		mmagen_request rest = *r;
		char v[64];
		if (facet_open(r, i))
			continue;
		for (int k = 0; k < facets[i].nfields; k++)
			switch (facets[i].field + k) {
#define X(fl) case FIELD_##fl: rest.fl = MMAGEN_ANY; break;
			REQ_FIELDS(X)
#undef X
			}
		vals[0] = '\0';
		for (size_t k = 0; k < mmagen_form_count(); k++) {
			const mmagen_form *f = mmagen_form_at(k);
			if (mmagen_form_on_target(f, r->target) && !mismatches(&rest, f, -1))
				list_add(vals, sizeof vals, mmagen_form_facet(f, i, v, sizeof v));
		}
		if (!vals[0])
			continue;
		snprintf(why, sizeof why, "no such form: with the other fields as given, "
			 "--%s must be one of: %s", mmagen_facet_name(i), vals);
		return fail(MMAGEN_ILLEGAL_FORM, r, NULL, why);
	}
	return fail(MMAGEN_ILLEGAL_FORM, r, NULL, "no form matches this combination of fields");
}

/* How many optional qualifiers a form adds (.satfinite, a popc op on a
 * non-b1 type, kind::, f64 rounding): when fields leave several forms, the
 * one plainest form is what the user meant ("s4 m16n8k64" is the plain
 * integer MMA, not the ptxas-only .xor.popc variant). */
static int extras(const mmagen_form *f)
{
	return f->satfinite + (f->bitop && f->a != MMAGEN_B1) + (f->kind != 0 &&
		f->family == MMAGEN_FAM_MMA) + (f->rnd != 0) + f->ashift;
}

/* The candidates of an ambiguous request: forms on r's target that match
 * r with `ex` extras. */
static int candidate(const mmagen_request *r, const mmagen_form *f, int ex)
{
	return mmagen_form_on_target(f, r->target) && matches(r, f) && extras(f) == ex;
}

/* Several forms fit r equally: say which fields tell them apart (with
 * their values), how many there are, and the first few opcodes. */
static mmagen_status ambiguous(const mmagen_request *r, const mmagen_form *first, int ex)
{
	char msg[1024], vals[NFACETS][160], v[64], op[256], ops[400] = "";
	int nforms = 0, shown = 0, differ = 0;
	size_t l;

	for (unsigned i = 0; i < NFACETS; i++)
		vals[i][0] = '\0';
	for (size_t k = 0; k < mmagen_form_count(); k++) {
		const mmagen_form *f = mmagen_form_at(k);
		if (!candidate(r, f, ex))
			continue;
		nforms++;
		for (unsigned i = 0; i < NFACETS; i++) {
			if (!facet_open(r, i) || !facet_differs(first, f, i))
				continue;
			/* first time this facet differs: start with first's value */
			if (!vals[i][0])
				list_add(vals[i], sizeof vals[i],
					 mmagen_form_facet(first, i, v, sizeof v));
			list_add(vals[i], sizeof vals[i], mmagen_form_facet(f, i, v, sizeof v));
		}
		mmagen_form_opcode(f, op, sizeof op);
		if (shown == 3 || strstr(ops, op))  /* same-opcode forms: once */
			continue;
		l = strlen(ops);
		if (shown < 3 && l + strlen(op) + 3 < sizeof ops) {
			snprintf(ops + l, sizeof ops - l, "%s%s", shown ? ", " : "", op);
			shown++;
		}
	}
	snprintf(msg, sizeof msg, "request matches %d forms on %s", nforms,
		 mmagen_target_name(r->target));
	for (unsigned i = 0; i < NFACETS; i++) {
		if (!vals[i][0])
			continue;
		append(msg, sizeof msg, differ++ ? ", --" : " that differ in --");
		append(msg, sizeof msg, mmagen_facet_name(i));
		append(msg, sizeof msg, " (");
		append(msg, sizeof msg, vals[i]);
		append(msg, sizeof msg, ")");
	}
	l = strlen(msg);
	snprintf(msg + l, sizeof msg - l, "; give %s or --opcode (e.g. %s%s)",
		 differ > 1 ? "those fields" : differ ? "that field" : "more fields", ops,
		 nforms > shown ? ", ..." : "");
	return mmagen_set_error(MMAGEN_AMBIGUOUS, "%s", msg);
}

mmagen_status mmagen_select(const mmagen_request *req, const mmagen_form **out)
{
	const mmagen_form *best = NULL, *first = NULL;
	char op1[256], op2[256];
	int best_extras = 1 << 20, ties = 0;
	mmagen_request full;
	const mmagen_request *r = &full;
	mmagen_status s;

	if (!req || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_select: request and output are required");
	if ((s = request_in(req, &full)))
		return s;
	if (r->target < 0 || r->target >= T_COUNT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"a target is required (e.g. --arch sm_90a)");
	if ((s = table_ready()))
		return s;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (!mmagen_form_on_target(f, r->target) || !matches(r, f))
			continue;
		if (!first)
			first = f;
		/* Forms that print the same opcode (A source, tcgen05's idesc
		 * types) are the same request: keep the first of them. */
		if (best && !strcmp(mmagen_form_opcode(best, op1, sizeof op1),
				    mmagen_form_opcode(f, op2, sizeof op2)))
			continue;
		int e = extras(f);
		if (e < best_extras) {
			best = f;
			best_extras = e;
			ties = 0;
		} else if (e == best_extras) {
			ties++;
		}
	}
	if (!first)
		return explain(r);
	if (ties)
		return ambiguous(r, best, best_extras);
	*out = best;
	return MMAGEN_OK;
}

uint32_t mmagen_select_defaults(const mmagen_request *req, const mmagen_form *f)
{
	mmagen_request r;
	uint32_t mask = 0;

	if (!f || request_in(req, &r) || r.target < 0 || r.target >= T_COUNT)
		return 0;
	for (size_t k = 0; k < mmagen_form_count(); k++) {
		const mmagen_form *g = mmagen_form_at(k);
		if (g == f || !mmagen_form_on_target(g, r.target) || !matches(&r, g))
			continue;
		for (unsigned i = 0; i < NFACETS; i++)
			if (!(mask >> i & 1) && facet_open(&r, i) && facet_differs(f, g, i))
				mask |= 1u << i;
	}
	return mask;
}
