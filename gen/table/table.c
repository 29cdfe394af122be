/* table.c - expands the rows of sigs.def into concrete forms, once. */
#include "table.h"
#include "qual.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const struct row mmagen_rows[] = {
#define ROW(fam, sp, sh, a_, b_, dc_, lay, q, feat, ptx) \
	{ MMAGEN_FAM_##fam, sp, sh, a_, b_, dc_, lay, q, feat, ptx },
#include "sigs.def"
#undef ROW
};
const size_t mmagen_row_count = ARRAY_SIZE(mmagen_rows);

static mmagen_form *forms;
static size_t nforms, capforms;
static int out_of_memory;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- tiny tokenizer over the row strings ---- */

/* Next word of *s (separated by blanks or `sep`); returns its length (0 at
 * the end) and advances *s past it. */
static size_t next_word(const char **s, char sep, const char **word)
{
	const char *p = *s;
	while (*p == sep || *p == ' ')
		p++;
	*word = p;
	while (*p && *p != sep && *p != ' ')
		p++;
	*s = p;
	return (size_t)(p - *word);
}

static mmagen_type type_of(const char *w, size_t n)
{
	for (int t = 1; t < MMAGEN_TYPE_COUNT; t++) {
		const char *nm = mmagen_type_name((mmagen_type)t);
		if (strlen(nm) == n && !memcmp(nm, w, n))
			return (mmagen_type)t;
	}
	return MMAGEN_TYPE_NONE;
}

static unsigned num(const char **p)
{
	unsigned v = 0;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (unsigned)(*(*p)++ - '0');
	return v;
}

int form_parse_shape(mmagen_form *f, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	f->m = f->n = f->k = 0;
	if (p < end && *p == 'm') {
		p++;
		f->m = (uint16_t)num(&p);
	}
	if (p < end && *p == 'n') {
		p++;
		f->n = (uint16_t)num(&p);
	}
	if (p < end && *p == 'k') {
		p++;
		f->k = (uint16_t)num(&p);
	}
	return p == end && (f->k || f->m) ? 0 : -1;
}

static int tok_is(const char *t, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(t, lit, n);
}

/* The quals column: every qualifier field but the two that have their
 * own columns (sparse, layouts). */
int form_apply_token(mmagen_form *f, const char *t, size_t n)
{
	if (tok_is(t, n, "-"))
		return 0;
	const struct qual *q = qual_by_token(t, n, MMAGEN_Q_SATFINITE,
					     MMAGEN_Q_END - 1);
	if (!q)
		return -1;
	qual_apply(f, q);
	return 0;
}

int form_equal(const mmagen_form *x, const mmagen_form *y)
{
	mmagen_form a = *x, b = *y;
	a.row = b.row = 0;
	return !memcmp(&a, &b, sizeof a);
}

/* Out of memory leaves the table empty (never half-built); table_ready()
 * reports it. */
static void push(const mmagen_form *f)
{
	if (out_of_memory)
		return;
	if (nforms == capforms) {
		size_t cap = capforms ? 2 * capforms : 1024;
		mmagen_form *p = realloc(forms, cap * sizeof *forms);
		if (!p) {
			free(forms);
			forms = NULL;
			nforms = capforms = 0;
			out_of_memory = 1;
			return;
		}
		forms = p;
		capforms = cap;
	}
	forms[nforms++] = *f;
}

/* ---- expansion: one level per column, innermost the qualifier groups ---- */

static void expand_quals(mmagen_form f, const char *q)
{
	const char *group;
	size_t glen;

	while (*q == ' ' || *q == ';')
		q++;
	if (!*q) {
		push(&f);
		return;
	}
	/* this group runs up to the next ';' */
	glen = strcspn(q, ";");
	group = q;
	const char *rest = q + glen;
	const char *p = group;
	while (p < group + glen) {
		while (p < group + glen && *p == ' ')
			p++;
		if (p >= group + glen)
			break;
		size_t alen = strcspn(p, " ;");
		mmagen_form g = f;
		const char *t = p;
		while (t < p + alen) {
			size_t tl = strcspn(t, ", ;");
			if (tl > (size_t)(p + alen - t))
				tl = (size_t)(p + alen - t);
			int bad = form_apply_token(&g, t, tl);
			assert(!bad && "unknown qualifier token in sigs.def");
			(void)bad;
			t += tl;
			if (*t == ',')
				t++;
		}
		expand_quals(g, rest);
		p += alen;
	}
}

static void expand_layouts(mmagen_form f, const char *lay, const char *quals)
{
	const char *w;
	size_t n;

	if (!strcmp(lay, "-")) {
		expand_quals(f, quals);
		return;
	}
	while ((n = next_word(&lay, ' ', &w))) {
		/* "row.col": A's layout, then B's */
		const char *dot = memchr(w, '.', n);
		assert(dot && "layouts in sigs.def are written A.B");
		const struct qual *qa = qual_by_token(w, (size_t)(dot - w),
						      MMAGEN_Q_LAYOUT, MMAGEN_Q_LAYOUT);
		const struct qual *qb = qual_by_token(dot + 1, n - (size_t)(dot + 1 - w),
						      MMAGEN_Q_LAYOUT, MMAGEN_Q_LAYOUT);
		assert(qa && qb && "unknown layout in sigs.def");
		f.alayout = qa->value;
		f.blayout = qb->value;
		expand_quals(f, quals);
	}
}

static mmagen_type word_type(const char *w, size_t n)
{
	return n == 1 && w[0] == '-' ? MMAGEN_TYPE_NONE : type_of(w, n);
}

static void expand_dc(mmagen_form f, const struct row *r)
{
	const char *p = r->dc, *w;
	size_t n;

	while ((n = next_word(&p, ' ', &w))) {
		const char *colon = memchr(w, ':', n);
		if (!colon) {
			f.d = f.c = (uint8_t)word_type(w, n);
		} else {
			f.d = (uint8_t)word_type(w, (size_t)(colon - w));
			f.c = (uint8_t)word_type(colon + 1,
				n - (size_t)(colon + 1 - w));
		}
		expand_layouts(f, r->layouts, r->quals);
	}
}

static void expand_types(mmagen_form f, const struct row *r)
{
	const char *pa = r->a, *wa, *wb;
	size_t na, nb;

	while ((na = next_word(&pa, ' ', &wa))) {
		f.a = (uint8_t)word_type(wa, na);
		if (!strcmp(r->b, "=")) {
			f.b = f.a;
			expand_dc(f, r);
			continue;
		}
		const char *pb = r->b;
		while ((nb = next_word(&pb, ' ', &wb))) {
			f.b = (uint8_t)word_type(wb, nb);
			expand_dc(f, r);
		}
	}
}

static void expand_shapes(mmagen_form f, const struct row *r)
{
	const char *p = r->shapes, *w;
	size_t n;

	while ((n = next_word(&p, ' ', &w))) {
		/* "m64n8..256/8k16": split out the N range */
		const char *dots = memchr(w, '.', n);
		if (!dots) {
			int bad = form_parse_shape(&f, w, n);
			assert(!bad);
			(void)bad;
			expand_types(f, r);
			continue;
		}
		const char *q = dots + 2;
		unsigned hi = num(&q), step = 1;
		if (*q == '/') {
			q++;
			step = num(&q);
		}
		char buf[64];
		size_t head = (size_t)(dots - w);
		memcpy(buf, w, head);
		strcpy(buf + head, "");
		size_t tail = n - (size_t)(q - w);
		memcpy(buf + head, q, tail);
		buf[head + tail] = '\0';
		mmagen_form g = f;
		int bad = form_parse_shape(&g, buf, strlen(buf));
		assert(!bad);
		(void)bad;
		for (unsigned nn = g.n; nn <= hi; nn += step) {
			g.n = (uint16_t)nn;
			expand_types(g, r);
		}
	}
}

static void build(void)
{
	for (size_t i = 0; i < mmagen_row_count; i++) {
		const struct row *r = &mmagen_rows[i];
		const char *p = r->sparse, *w;
		size_t n;
		while ((n = next_word(&p, ' ', &w))) {
			mmagen_form f;
			memset(&f, 0, sizeof f);
			f.family = r->family;
			f.row = (uint16_t)i;
			const struct qual *q = qual_by_token(w, n, MMAGEN_Q_SPARSE,
							     MMAGEN_Q_SPARSE);
			assert(q && "bad sparse column in sigs.def");
			f.sparse = q->value;
			expand_shapes(f, r);
		}
	}
}

static void init(void)
{
	pthread_once(&once, build);
}

mmagen_status table_ready(void)
{
	init();
	if (out_of_memory)
		return mmagen_set_error(MMAGEN_NO_MEMORY,
			"out of memory expanding the instruction table (gen/table/sigs.def)");
	return MMAGEN_OK;
}

size_t mmagen_form_count(void)
{
	init();
	return nforms;
}

const mmagen_form *mmagen_form_at(size_t i)
{
	init();
	return i < nforms ? &forms[i] : NULL;
}

int mmagen_form_on_target(const mmagen_form *f, int t)
{
	if (t < 0 || t >= T_COUNT)
		return 0;
	return (mmagen_targets[t].features & mmagen_rows[f->row].feature) != 0;
}

int mmagen_form_min_target(const mmagen_form *f)
{
	for (int t = 0; t < T_COUNT; t++)
		if (mmagen_form_on_target(f, t))
			return t;
	return -1;
}

unsigned mmagen_form_min_ptx(const mmagen_form *f, int t)
{
	unsigned r = mmagen_rows[f->row].min_ptx;
	unsigned tp = mmagen_target_min_ptx(t);
	return r > tp ? r : tp;
}
