/* select.c - pick one form for a request, or explain why none fits. */
#include "table.h"
#include "abi.h"

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
static const char *const field_names[] = {
#define X(f) #f,
	REQ_FIELDS(X)
#undef X
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

static int type_class(unsigned t)
{
	switch (t) {
	case MMAGEN_E4M3: case MMAGEN_E5M2: case MMAGEN_E3M2:
	case MMAGEN_E2M3: case MMAGEN_E2M1:
		return 1;
	case MMAGEN_S8: case MMAGEN_U8:
		return 2;
	case MMAGEN_S4: case MMAGEN_U4:
		return 3;
	default:
		return 10 + (int)t;
	}
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

/* ---- near matches ---- */

static size_t edit_distance(const char *s, const char *t)
{
	size_t n = strlen(t), prev[256], cur[256];
	if (n >= 255)
		n = 255;
	for (size_t j = 0; j <= n; j++)
		prev[j] = j;
	for (size_t i = 1; *s; s++, i++) {
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

/* Append up to `max` distinct opcodes of the forms (on target t, or any
 * when t < 0) closest to r, by field mismatches or opcode distance. */
static void nearest(const mmagen_request *r, int t, int max, char *out, size_t n)
{
	enum { K = 8 };
	size_t best[K];
	long score[K];
	int have = 0;
	char op[256];

	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (t >= 0 && !mmagen_form_on_target(f, t))
			continue;
		long s = r->opcode ?
			(long)edit_distance(r->opcode, mmagen_form_opcode(f, op, sizeof op)) :
			(long)mismatches(r, f, -1);
		/* keep the K best, distinct by opcode, earliest on ties */
		int dup = 0;
		for (int j = 0; j < have; j++) {
			char o2[256];
			if (!strcmp(mmagen_form_opcode(mmagen_form_at(best[j]), o2, sizeof o2),
				    mmagen_form_opcode(f, op, sizeof op)))
				dup = 1;
		}
		if (dup)
			continue;
		int pos = have;
		while (pos > 0 && score[pos - 1] > s)
			pos--;
		if (pos >= K || pos >= max)
			continue;
		if (have < max)
			have++;
		for (int j = have - 1; j > pos; j--) {
			best[j] = best[j - 1];
			score[j] = score[j - 1];
		}
		best[pos] = i;
		score[pos] = s;
	}
	out[0] = '\0';
	for (int j = 0; j < have; j++) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s%s", j ? ", " : "",
			 mmagen_form_opcode(mmagen_form_at(best[j]), op, sizeof op));
	}
}

static mmagen_status fail(mmagen_status s, const mmagen_request *r,
			  const char *why)
{
	char near[1024];
	nearest(r, r->target, 3, near, sizeof near);
	if (!near[0])
		return mmagen_set_error(s, "%s", why);
	return mmagen_set_error(s, "%s; nearest legal on %s: %s", why,
				mmagen_target_name(r->target), near);
}

static int matches(const mmagen_request *r, const mmagen_form *f)
{
	char op[256];
	if (mismatches(r, f, -1))
		return 0;
	if (r->opcode && strcmp(r->opcode, mmagen_form_opcode(f, op, sizeof op)))
		return 0;
	return 1;
}

int mmagen_form_matches(const mmagen_request *req, const mmagen_form *f)
{
	mmagen_request r;
	return f && !request_in(req, &r) && matches(&r, f);
}

/* Explain why nothing matches: a rule if one holds, else the one field
 * whose value no form on the target has. */
static mmagen_status explain(const mmagen_request *r)
{
	char why[512], vals[512];
	const char *msg = mmagen_rule_broken(r, NULL);
	char op[256];

	if (msg) {
		snprintf(why, sizeof why, msg, mmagen_target_name(r->target));
		return fail(MMAGEN_ILLEGAL_FORM, r, why);
	}
	/* Exists elsewhere? Then it is the target. */
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (matches(r, f)) {
			snprintf(why, sizeof why, "%s needs target %s or a later one that has it (got %s)",
				 mmagen_form_opcode(f, op, sizeof op),
				 mmagen_target_name(mmagen_form_min_target(f)),
				 mmagen_target_name(r->target));
			return fail(MMAGEN_TARGET, r, why);
		}
	}
	if (r->opcode) {
		snprintf(why, sizeof why, "'%s' is not a legal opcode", r->opcode);
		return fail(MMAGEN_ILLEGAL_FORM, r, why);
	}
	/* The field that alone blocks a match: list the values it could take. */
	for (int fi = 0; fi < NFIELDS; fi++) {
		if (req_field(r, fi) == MMAGEN_ANY)
			continue;
		vals[0] = '\0';
		unsigned seen[64];
		int nseen = 0;
		for (size_t i = 0; i < mmagen_form_count(); i++) {
			const mmagen_form *f = mmagen_form_at(i);
			if (!mmagen_form_on_target(f, r->target) || mismatches(r, f, fi))
				continue;
			unsigned v = form_field(f, fi);
			int dup = 0;
			for (int j = 0; j < nseen; j++)
				dup |= seen[j] == v;
			if (dup || nseen == 64)
				continue;
			seen[nseen++] = v;
		}
		if (!nseen)
			continue;
		for (int j = 0; j < nseen; j++) {
			size_t l = strlen(vals);
			char tmp[32];
			const char *s = tmp;
			if (fi == FIELD_a || fi == FIELD_b || fi == FIELD_c ||
			    fi == FIELD_d || fi == FIELD_stype)
				s = mmagen_type_name((mmagen_type)seen[j]);
			else
				snprintf(tmp, sizeof tmp, "%u", seen[j]);
			snprintf(vals + l, sizeof vals - l, "%s%s", j ? ", " : "", s);
		}
		snprintf(why, sizeof why, "no such form: with the other fields as given, %s must be one of: %s",
			 field_names[fi], vals);
		return fail(MMAGEN_ILLEGAL_FORM, r, why);
	}
	return fail(MMAGEN_ILLEGAL_FORM, r, "no form matches this combination of fields");
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

mmagen_status mmagen_select(const mmagen_request *req, const mmagen_form **out)
{
	const mmagen_form *best = NULL, *first = NULL;
	char op1[256], op2[256];
	int n = 0, best_extras = 1 << 20, ties = 0;
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
		n++;
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
	if (ties) {
		char list[1024] = "";
		int shown = 0;
		for (size_t i = 0; i < mmagen_form_count() && shown < 3; i++) {
			const mmagen_form *f = mmagen_form_at(i);
			if (!mmagen_form_on_target(f, r->target) || !matches(r, f) ||
			    extras(f) != best_extras)
				continue;
			mmagen_form_opcode(f, op1, sizeof op1);
			if (strstr(list, op1))
				continue;
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s", shown++ ? ", " : "", op1);
		}
		return mmagen_set_error(MMAGEN_AMBIGUOUS,
			"request matches %d forms on %s (e.g. %s); give more fields (--c/--d, --layout, ...) or --opcode",
			n, mmagen_target_name(r->target), list);
	}
	*out = best;
	return MMAGEN_OK;
}
