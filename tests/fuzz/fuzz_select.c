/* fuzz_select.c - the library's request parsers and form selection.
 *
 * The input is text, one `key=value` per line (seeds stay readable):
 *   arch      mmagen_target_parse          family  mmagen_family_parse
 *   opcode    the request's opcode         a b c d stype  mmagen_type_parse
 *   m n k     a number                     alayout blayout  "row"/"col"
 *   any qualifier field by its CLI name (sparse, popc, kind, scale-vec,
 *             cta-group, ws, asrc, ...): mmagen_qual_parse
 *   emit      ptx, cuda or text: emit the selected form that way
 *   tile      ptx or json: emit the selected form's tile kernel
 * Unknown keys are ignored.  Checked: a parser that fails says why; the
 * selection agrees with a brute-force scan of the table (mmagen_form_at,
 * mmagen_form_matches): no match must fail, a single distinct opcode must
 * be selected, and what is selected is on the target, matches the request
 * and has the requested opcode; emitted text is non-empty, has no NUL,
 * names the target, and is the same bytes twice. */
#include "fuzz.h"

#include "mmagen.h"

#include <stddef.h>
#include <string.h>

/* Finding 6 (issue 11) is fixed: opcodes over 160 bytes match nothing
 * and the suggestion reads at most 160 of them.  A failed lookup still
 * costs about 10 ms (edit distances against every form, more under
 * ASan), so for the fuzzer's speed an opcode that no form has is tried
 * only up to OPCODE_MISS_MAX characters (test_list.sh times the long
 * ones); OPCODE_MAX is longer than every legal opcode. */
#define OPCODE_MAX 160
#define OPCODE_MISS_MAX 32

static void parsed(mmagen_status s, const char *what, const char *v)
{
	FUZZ_CHECK(s == MMAGEN_OK || mmagen_last_error()[0],
		   "%s '%s' failed (%s) without a message", what, v, mmagen_status_str(s));
}

static unsigned *qual_slot(mmagen_request *r, mmagen_qual_field q)
{
	switch (q) {
	case MMAGEN_Q_SPARSE: return &r->sparse;
	case MMAGEN_Q_LAYOUT: return &r->alayout;
	case MMAGEN_Q_SATFINITE: return &r->satfinite;
	case MMAGEN_Q_BITOP: return &r->bitop;
	case MMAGEN_Q_KIND: return &r->kind;
	case MMAGEN_Q_BLOCK_SCALE: return &r->block_scale;
	case MMAGEN_Q_SCALE_VEC: return &r->scale_vec;
	case MMAGEN_Q_STYPE: return &r->stype;
	case MMAGEN_Q_CTA_GROUP: return &r->cta_group;
	case MMAGEN_Q_WS: return &r->ws;
	case MMAGEN_Q_ASHIFT: return &r->ashift;
	case MMAGEN_Q_ASRC: return &r->asrc;
	case MMAGEN_Q_RND: return &r->rnd;
	case MMAGEN_Q_NUM: return &r->num;
	case MMAGEN_Q_TRANS: return &r->trans;
	case MMAGEN_Q_LDTYPE: return &r->ldtype;
	case MMAGEN_Q_END: break;
	}
	return NULL;
}

/* One key=value line into the request (or the emit choices). */
static void apply(mmagen_request *r, const char *key, const char *v,
		  int *emit, int *tile)
{
	static const struct { const char *key; size_t off; } types[] = {
		{ "a", offsetof(mmagen_request, a) }, { "b", offsetof(mmagen_request, b) },
		{ "c", offsetof(mmagen_request, c) }, { "d", offsetof(mmagen_request, d) },
		{ "stype", offsetof(mmagen_request, stype) },
	};
	static const struct { const char *key; size_t off; } dims[] = {
		{ "m", offsetof(mmagen_request, m) }, { "n", offsetof(mmagen_request, n) },
		{ "k", offsetof(mmagen_request, k) },
	};
	unsigned u, fam, sparse;
	mmagen_type t;

	if (!strcmp(key, "arch")) {
		parsed(mmagen_target_parse(v, &r->target), key, v);
	} else if (!strcmp(key, "opcode")) {
		r->opcode = v;
	} else if (!strcmp(key, "family")) {
		mmagen_status s = mmagen_family_parse(v, &fam, &sparse);
		parsed(s, key, v);
		if (!s) {
			r->family = fam;
			if (sparse != MMAGEN_ANY)
				r->sparse = sparse;
		}
	} else if (!strcmp(key, "alayout") || !strcmp(key, "blayout")) {
		mmagen_status s = mmagen_qual_parse(MMAGEN_Q_LAYOUT, v, &u);
		parsed(s, key, v);
		if (!s)
			*(key[0] == 'a' ? &r->alayout : &r->blayout) = u;
	} else if (!strcmp(key, "emit")) {
		*emit = !strcmp(v, "cuda") ? MMAGEN_FMT_CUDA : !strcmp(v, "text") ?
			MMAGEN_FMT_TEXT : MMAGEN_FMT_PTX;
	} else if (!strcmp(key, "tile")) {
		*tile = !strcmp(v, "json") ? MMAGEN_FMT_JSON : MMAGEN_FMT_PTX;
	} else {
		for (size_t i = 0; i < sizeof types / sizeof *types; i++)
			if (!strcmp(key, types[i].key)) {
				mmagen_status s = mmagen_type_parse(v, &t);
				parsed(s, key, v);
				if (!s)
					*(unsigned *)((char *)r + types[i].off) = t;
				return;
			}
		for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
			if (!strcmp(key, dims[i].key)) {
				*(unsigned *)((char *)r + dims[i].off) =
					(unsigned)strtoul(v, NULL, 10);
				return;
			}
		for (int q = 0; q < MMAGEN_Q_END; q++)
			if (!strcmp(key, mmagen_qual_field_name((mmagen_qual_field)q))) {
				mmagen_status s = mmagen_qual_parse((mmagen_qual_field)q, v, &u);
				parsed(s, key, v);
				if (!s)
					*qual_slot(r, (mmagen_qual_field)q) = u;
				return;
			}
	}
}

static void check_text(mmagen_status s, char *text, size_t len, int t,
		       const char *what)
{
	FUZZ_CHECK(text && len > 0 && strlen(text) == len, "%s: %zu bytes, NUL inside",
		   what, len);
	FUZZ_CHECK(s == MMAGEN_OK, "%s", what);
	FUZZ_CHECK(strstr(text, mmagen_target_name(t)), "%s does not name %s", what,
		   mmagen_target_name(t));
}

/* Emit f as fmt twice: the same bytes both times. */
static void emit(const mmagen_form *f, int t, int fmt, int tile)
{
	char *x = NULL, *y = NULL, op[256];
	size_t lx = 0, ly = 0;
	mmagen_status s;

	if (tile) {
		mmagen_tile_opts o;
		mmagen_tile_opts_init(&o);
		if ((s = mmagen_emit_tile(f, t, &o, (mmagen_format)fmt, &x, &lx))) {
			/* not every form has a tile kernel: then it says why */
			FUZZ_CHECK(mmagen_last_error()[0] && !x, "emit_tile failed silently");
			return;
		}
		check_text(s, x, lx, t, "emit_tile");
		s = mmagen_emit_tile(f, t, &o, (mmagen_format)fmt, &y, &ly);
	} else {
		s = mmagen_emit_instr(f, t, (mmagen_format)fmt, &x, &lx);
		if (fmt != MMAGEN_FMT_TEXT)
			check_text(s, x, lx, t, "emit_instr");
		FUZZ_CHECK(s == MMAGEN_OK && strstr(x, mmagen_form_opcode(f, op, sizeof op)),
			   "emit_instr output lacks the opcode %s", op);
		s = mmagen_emit_instr(f, t, (mmagen_format)fmt, &y, &ly);
	}
	FUZZ_CHECK(s == MMAGEN_OK && lx == ly && !memcmp(x, y, lx),
		   "emitting twice gave different bytes");
	mmagen_free(x);
	mmagen_free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), op[256], op2[256];
	const mmagen_form *f = NULL, *first = NULL;
	mmagen_request r;
	int emit_fmt = -1, tile_fmt = -1, distinct = 0;
	mmagen_status s;

	FUZZ_CHECK(buf, "out of memory");
	memcpy(buf, data, size);
	buf[size] = '\0';
	mmagen_request_init(&r);
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		apply(&r, line, eq + 1, &emit_fmt, &tile_fmt);
	}
	if (r.opcode && strlen(r.opcode) > OPCODE_MAX)
		goto out;

	/* the brute-force answer: how many distinct opcodes match (the
	 * opcode compared here, the fields by mmagen_form_matches) */
	mmagen_request fields = r;
	fields.opcode = NULL;
	for (size_t i = 0; r.target >= 0 && i < mmagen_form_count(); i++) {
		const mmagen_form *g = mmagen_form_at(i);
		if (!mmagen_form_on_target(g, r.target) || !mmagen_form_matches(&fields, g) ||
		    (r.opcode && strcmp(r.opcode, mmagen_form_opcode(g, op, sizeof op))))
			continue;
		if (!first) {
			first = g;
			distinct = 1;
		} else if (distinct == 1 && strcmp(mmagen_form_opcode(first, op, sizeof op),
						   mmagen_form_opcode(g, op2, sizeof op2))) {
			distinct = 2;
		}
	}

	if (!first && r.opcode && strlen(r.opcode) > OPCODE_MISS_MAX)
		goto out;           /* speed: see OPCODE_MISS_MAX */
	s = mmagen_select(&r, &f);
	if (s) {
		FUZZ_CHECK(mmagen_last_error()[0], "select failed (%s) without a message",
			   mmagen_status_str(s));
		FUZZ_CHECK(distinct != 1, "select failed (%s: %s) but exactly one opcode "
			   "matches: %s", mmagen_status_str(s), mmagen_last_error(),
			   mmagen_form_opcode(first, op, sizeof op));
		goto out;
	}
	FUZZ_CHECK(f && distinct > 0, "select succeeded where no form matches");
	FUZZ_CHECK(mmagen_form_on_target(f, r.target), "selected %s, not on %s",
		   mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(r.target));
	FUZZ_CHECK(mmagen_form_matches(&r, f), "selected %s, which does not match",
		   mmagen_form_opcode(f, op, sizeof op));
	if (r.opcode)
		FUZZ_CHECK(!strcmp(mmagen_form_opcode(f, op, sizeof op), r.opcode),
			   "asked for %s, selected %s", r.opcode, op);
	if (distinct == 1)
		FUZZ_CHECK(!strcmp(mmagen_form_opcode(f, op, sizeof op),
				   mmagen_form_opcode(first, op2, sizeof op2)),
			   "selected %s, the only match is %s", op, op2);
	if (emit_fmt >= 0)
		emit(f, r.target, emit_fmt, 0);
	if (tile_fmt >= 0)
		emit(f, r.target, tile_fmt, 1);
out:
	free(buf);
	return 0;
}
