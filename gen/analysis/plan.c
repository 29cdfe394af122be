/* plan.c - `mmagen plan`: from a quantization config and a target to the
 * MMA that computes it.  The configs, their paths and the emulation facts
 * are data (quant.def); the instruction forms come from the table
 * (sigs.def) for the target, ordered by the rules in `order_text`. */
#include "abi.h"
#include "ptx.h"
#include "table.h"

#include <assert.h>
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct qpath {
	const char *id;
	int native;
	mmagen_type a, b, stype, gemm_out;
	const char *accs, *kinds;
	unsigned block;
	const char *label, *needs, *convert, *scale, *packing, *reason;
};

struct qconfig {
	const char *names, *title, *weights, *acts, *paths, *never;
};

struct qemul {
	unsigned family;
	const char *types, *targets, *reason;
};

#define QPATH(id, nat, a_, b_, ac, kn, st, blk, go, lab, nd, cv, sc, pk, rs) \
	{ #id, nat, MMAGEN_##a_, MMAGEN_##b_, MMAGEN_##st, MMAGEN_##go, ac, kn, blk, \
	  lab, nd, cv, sc, pk, rs },
#define QCONFIG(id, names, title, w, a, paths, never)
#define EMULATED(fam, types, targets, reason)
#define QGEMM(path, quant)
static const struct qpath qpaths[] = {
#include "quant.def"
};
#undef QPATH
#undef QCONFIG
#define QPATH(...)
#define QCONFIG(id, names, title, w, a, paths, never) { names, title, w, a, paths, never },
static const struct qconfig qconfigs[] = {
#include "quant.def"
};
#undef QCONFIG
#undef EMULATED
#define QCONFIG(...)
#define EMULATED(fam, types, targets, reason) { MMAGEN_FAM_##fam, types, targets, reason },
static const struct qemul qemuls[] = {
#include "quant.def"
};
#undef QPATH
#undef QCONFIG
#undef EMULATED
#undef QGEMM
#define QPATH(...)
#define QCONFIG(...)
#define EMULATED(...)
#define QGEMM(path, quant) { #path, quant },
static const struct { const char *path, *quant; } qgemms[] = {
#include "quant.def"
};
#undef QPATH
#undef QCONFIG
#undef EMULATED
#undef QGEMM

/* The --quant of a path's GEMM kernel, or NULL. */
static const char *gemm_quant(const char *path)
{
	for (size_t i = 0; i < sizeof qgemms / sizeof qgemms[0]; i++)
		if (!strcmp(qgemms[i].path, path))
			return qgemms[i].quant;
	return NULL;
}

static const char order_text[] =
	"paths: native before converted, emulated after both, absent ones last; "
	"forms: tcgen05, then wgmma, then mma.sync (the newer families move more "
	"data per instruction), the preferred accumulator, the preferred kind, "
	"larger K, larger N; emulated forms last";

/* The most paths a config has; the longest name. */
#define MAX_PATHS 4
#define MAX_NAME 64
/* The size mmagen_plan_request had first (frozen; see abi.h). */
#define PLAN_REQUEST_SIZE_MIN (offsetof(mmagen_plan_request, quant) + sizeof(const char *))

/* ---- words and names ---- */

/* Whether the space-separated list has `word`. */
static int has_word(const char *list, const char *word, size_t n)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");
		if (len == n && !strncmp(p, word, n))
			return 1;
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

/* Letters (lower case) and digits only; 0 if it does not fit. */
static int norm(const char *s, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n && s[i]; i++)
		if (isalnum((unsigned char)s[i])) {
			if (k + 1 >= MAX_NAME)
				return 0;
			out[k++] = (char)tolower((unsigned char)s[i]);
		}
	out[k] = '\0';
	return k > 0;
}

static size_t distance(const char *s, const char *t)
{
	size_t n = strlen(t), row[MAX_NAME + 1];
	for (size_t j = 0; j <= n; j++)
		row[j] = j;
	for (size_t i = 1; s[i - 1]; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= n; j++) {
			size_t up = row[j];
			size_t best = diag + (s[i - 1] != t[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[n];
}

/* The config's canonical name: its first word. */
static size_t canon_len(const struct qconfig *c)
{
	return strcspn(c->names, " ");
}

const char *mmagen_plan_config_name(size_t i)
{
	static char names[ARRAY_SIZE(qconfigs)][MAX_NAME];
	if (i >= ARRAY_SIZE(qconfigs))
		return NULL;
	if (!names[i][0])
		memcpy(names[i], qconfigs[i].names, canon_len(&qconfigs[i]));
	return names[i];
}

/* How far `key` (normalised) is from config c's nearest name. */
static size_t config_distance(const struct qconfig *c, const char *key,
			      const char **bname, size_t *blen)
{
	size_t best = (size_t)-1;
	for (const char *p = c->names; *p;) {
		size_t len = strcspn(p, " ");
		char name[MAX_NAME];
		if (norm(p, len, name)) {
			size_t d = distance(key, name);
			/* a prefix or a part of a name is near */
			if (strstr(name, key) || strstr(key, name))
				d = 0;
			if (d < best)
				best = d, *bname = p, *blen = len;
		}
		p += len;
		p += strspn(p, " ");
	}
	return best;
}

static mmagen_status unknown_config(const char *s, const char *key)
{
	size_t d[ARRAY_SIZE(qconfigs)], used[4], nused = 0, blen[ARRAY_SIZE(qconfigs)];
	const char *bname[ARRAY_SIZE(qconfigs)];
	char near[256] = "", all[600] = "";

	for (size_t i = 0; i < ARRAY_SIZE(qconfigs); i++) {
		bname[i] = qconfigs[i].names;
		blen[i] = canon_len(&qconfigs[i]);
		d[i] = key[0] ? config_distance(&qconfigs[i], key, &bname[i], &blen[i]) : 0;
		snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "",
			 mmagen_plan_config_name(i));
	}
	/* the four nearest, in table order among equals */
	while (nused < 4) {
		size_t best = (size_t)-1, bi = 0;
		for (size_t i = 0; i < ARRAY_SIZE(qconfigs); i++) {
			int taken = 0;
			for (size_t u = 0; u < nused; u++)
				taken |= used[u] == i;
			if (!taken && d[i] < best)
				best = d[i], bi = i;
		}
		if (best > 4 && nused)
			break;
		used[nused++] = bi;
		/* the name that came nearest, and its config's if another */
		snprintf(near + strlen(near), sizeof near - strlen(near), "%s%.*s",
			 nused > 1 ? ", " : "", (int)blen[bi], bname[bi]);
		if (bname[bi] != qconfigs[bi].names)
			snprintf(near + strlen(near), sizeof near - strlen(near), " (%s)",
				 mmagen_plan_config_name(bi));
	}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"unknown quantization config '%.64s'; nearest: %s (every config: %s)", s, near, all);
}

static const struct qconfig *find_config(const char *s)
{
	char key[MAX_NAME], name[MAX_NAME];

	if (!norm(s, strlen(s), key))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(qconfigs); i++)
		for (const char *p = qconfigs[i].names; *p;) {
			size_t len = strcspn(p, " ");
			if (norm(p, len, name) && !strcmp(name, key))
				return &qconfigs[i];
			p += len;
			p += strspn(p, " ");
		}
	return NULL;
}

static const struct qpath *find_path(const char *id, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(qpaths); i++)
		if (strlen(qpaths[i].id) == n && !strncmp(qpaths[i].id, id, n))
			return &qpaths[i];
	return NULL;
}

/* ---- which forms a path uses ---- */

static const char *family_word(unsigned fam)
{
	return fam == MMAGEN_FAM_TCGEN05 ? "tcgen05" : fam == MMAGEN_FAM_WGMMA ? "wgmma"
									    : "mma.sync";
}

/* tcgen05, wgmma, mma.sync: the order of the rules */
static int family_rank(unsigned fam)
{
	return fam == MMAGEN_FAM_TCGEN05 ? 0 : fam == MMAGEN_FAM_WGMMA ? 1 : 2;
}

/* K elements per scale factor of a block-scaled form. */
static unsigned scale_block(const mmagen_form *f)
{
	unsigned sv = f->scale_vec;
	if (sv == 16 || sv == 32)
		return sv;                  /* .block16 / .block32 */
	if (!sv)                            /* the kind's default vector */
		sv = f->kind == MMAGEN_KIND_MXF8F6F4 ? 1 : f->stype == MMAGEN_UE4M3 ? 4 : 2;
	return f->k / sv;
}

/* Position of `name` in the space-separated list, or -1. */
static int word_index(const char *list, const char *name)
{
	int i = 0;
	for (const char *p = list; *p; i++) {
		size_t len = strcspn(p, " ");
		if (len == strlen(name) && !strncmp(p, name, len))
			return i;
		p += len;
		p += strspn(p, " ");
	}
	return -1;
}

struct cand {
	const mmagen_form *f;
	const char *emul;
	int acc_i, kind_i;
	size_t idx;
	char op[160];
};

/* Whether path p may use form f (any target); its preference ranks. */
static int path_takes(const struct qpath *p, const mmagen_form *f, int *acc_i, int *kind_i)
{
	if (f->family != MMAGEN_FAM_MMA && f->family != MMAGEN_FAM_WGMMA &&
	    f->family != MMAGEN_FAM_TCGEN05)
		return 0;
	/* plain dense forms: no 2:4 sparsity, saturation, popc, rounding
	 * mode, weight-stationary or shifted A; mma.sync row.col */
	if (f->sparse || f->satfinite || f->bitop || f->rnd || f->ws || f->ashift)
		return 0;
	if (f->family == MMAGEN_FAM_MMA && (f->alayout != MMAGEN_ROW || f->blayout != MMAGEN_COL))
		return 0;
	if (f->a != p->a || f->b != p->b || f->c != f->d)
		return 0;
	if ((*acc_i = word_index(p->accs, mmagen_type_name((mmagen_type)f->d))) < 0)
		return 0;
	if (!strcmp(p->kinds, "-")) {
		*kind_i = f->kind != MMAGEN_KIND_NONE;
		return !f->block_scale;
	}
	if (!f->block_scale || f->stype != p->stype || scale_block(f) != p->block)
		return 0;
	const char *kind = mmagen_qual_name(MMAGEN_Q_KIND, f->kind);
	return kind && (*kind_i = word_index(p->kinds, kind)) >= 0;
}

/* Why form f is emulated on target t, or NULL (internal.h). */
const char *mmagen_form_emulated(const mmagen_form *f, int t)
{
	const char *tn = mmagen_target_name(t);
	for (size_t i = 0; i < ARRAY_SIZE(qemuls); i++) {
		const struct qemul *e = &qemuls[i];
		const char *a = mmagen_type_name((mmagen_type)f->a);
		const char *b = mmagen_type_name((mmagen_type)f->b);
		if (f->family == e->family && has_word(e->targets, tn, strlen(tn)) &&
		    (has_word(e->types, a, strlen(a)) || has_word(e->types, b, strlen(b))))
			return e->reason;
	}
	return NULL;
}

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	int d;
	if ((d = (a->emul != NULL) - (b->emul != NULL)) ||
	    (d = family_rank(a->f->family) - family_rank(b->f->family)) ||
	    (d = a->acc_i - b->acc_i) || (d = a->kind_i - b->kind_i) ||
	    (d = (int)b->f->k - (int)a->f->k) || (d = (int)b->f->n - (int)a->f->n) ||
	    (d = (int)a->f->cta_group - (int)b->f->cta_group))
		return d;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The forms of path p on target t, best first, one per opcode and types
 * (the A source does not show in either); *out is malloc'd. */
static mmagen_status path_forms(const struct qpath *p, int t, struct cand **out, size_t *n)
{
	size_t cap = 16, k = 0;
	struct cand *c = malloc(cap * sizeof *c);

	if (!c)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "plan: out of memory");
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		int acc_i, kind_i, dup = 0;
		char op[160];

		if (!mmagen_form_on_target(f, t) || !path_takes(p, f, &acc_i, &kind_i))
			continue;
		mmagen_form_opcode(f, op, sizeof op);
		for (size_t j = 0; j < k && !dup; j++)
			dup = !strcmp(c[j].op, op) && c[j].f->a == f->a && c[j].f->b == f->b &&
			      c[j].f->d == f->d;
		if (dup)
			continue;
		if (k == cap) {
			struct cand *nc = realloc(c, (cap *= 2) * sizeof *c);
			if (!nc) {
				free(c);
				return mmagen_set_error(MMAGEN_NO_MEMORY, "plan: out of memory");
			}
			c = nc;
		}
		c[k] = (struct cand){ f, mmagen_form_emulated(f, t), acc_i, kind_i, i, "" };
		memcpy(c[k].op, op, sizeof op);
		k++;
	}
	qsort(c, k, sizeof *c, cand_cmp);
	*out = c;
	*n = k;
	return MMAGEN_OK;
}

/* Lowest target per family where path p has a form that is not
 * emulated: "sm_89 (mma.sync), sm_90a (wgmma)". */
static void lowest(const struct qpath *p, char *out, size_t n)
{
	int first[3] = { -1, -1, -1 };   /* by family_rank */

	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		int acc_i, kind_i;
		if (!path_takes(p, f, &acc_i, &kind_i))
			continue;
		int r = family_rank(f->family);
		for (int t = 0; t < T_COUNT && (first[r] < 0 || t < first[r]); t++)
			if (mmagen_form_on_target(f, t) && !mmagen_form_emulated(f, t)) {
				first[r] = t;
				break;
			}
	}
	out[0] = '\0';
	for (int t = 0; t < T_COUNT; t++)
		for (int r = 2; r >= 0; r--)
			if (first[r] == t)
				snprintf(out + strlen(out), n - strlen(out), "%s%s (%s)",
					 out[0] ? ", " : "", mmagen_target_name(t),
					 family_word(r == 0 ? MMAGEN_FAM_TCGEN05 : r == 1 ?
						     MMAGEN_FAM_WGMMA : MMAGEN_FAM_MMA));
}

/* ---- the plan ---- */

struct plan_store {
	mmagen_plan pub;                 /* first: the caller's pointer */
	mmagen_plan_path paths[MAX_PATHS];
	mmagen_plan_form *forms[MAX_PATHS];
	char lowest[MAX_PATHS][160];
	char emit[MAX_PATHS][320];
	char gemm[MAX_PATHS][160];
	char verdict[1024];
	char config[MAX_NAME];
};

void mmagen_plan_request_init_size(mmagen_plan_request *out, size_t size)
{
	mmagen_plan_request r;

	if (!out || size < sizeof out->size)
		return;
	memset(&r, 0, sizeof r);
	r.size = size;
	r.target = -1;
	if (size > sizeof r) {          /* a newer mmagen.h: plan_new refuses it */
		memset(out, 0, size);
		size = sizeof r;
	}
	memcpy(out, &r, size);
}

void mmagen_plan_free(mmagen_plan *p)
{
	struct plan_store *s = (struct plan_store *)p;
	if (!s)
		return;
	for (int i = 0; i < MAX_PATHS; i++)
		free(s->forms[i]);
	free(s);
}

/* Fill path slot i from quant.def row q on target t. */
static mmagen_status fill_path(struct plan_store *s, int i, const struct qpath *q, int t)
{
	mmagen_plan_path *pp = &s->paths[i];
	struct cand *c = NULL;
	size_t n = 0;
	mmagen_status st;
	char acc[2][8] = { "", "" };

	if ((st = path_forms(q, t, &c, &n)))
		return st;
	s->forms[i] = malloc((n ? n : 1) * sizeof *s->forms[i]);
	if (!s->forms[i]) {
		free(c);
		return mmagen_set_error(MMAGEN_NO_MEMORY, "plan: out of memory");
	}
	pp->emulated = n > 0;
	for (size_t j = 0; j < n; j++) {
		s->forms[i][j] = (mmagen_plan_form){ c[j].f, c[j].emul };
		pp->emulated &= c[j].emul != NULL;
	}
	sscanf(q->accs, "%7s %7s", acc[0], acc[1]);
	pp->id = q->id;
	pp->label = q->label;
	pp->native = q->native;
	pp->available = n > 0;
	pp->a = q->a;
	pp->b = q->b;
	mmagen_type_parse(acc[0], &pp->acc);
	pp->acc_alt = MMAGEN_TYPE_NONE;
	if (acc[1][0])
		mmagen_type_parse(acc[1], &pp->acc_alt);
	pp->stype = q->stype;
	pp->block = q->block;
	pp->conversion = q->convert;
	pp->scale = q->scale;
	pp->packing = q->packing;
	pp->reason = q->reason;
	pp->needs = q->needs;
	lowest(q, s->lowest[i], sizeof s->lowest[i]);
	pp->lowest = s->lowest[i];
	pp->nforms = n;
	pp->forms = s->forms[i];
	if (n) {
		const mmagen_form *f = c[0].f;
		int len = snprintf(s->emit[i], sizeof s->emit[i],
				   "mmagen emit instr --arch %s --opcode %s", mmagen_target_name(t),
				   c[0].op);
		/* tcgen05's types live in the instruction descriptor */
		if (f->family == MMAGEN_FAM_TCGEN05)
			snprintf(s->emit[i] + len, sizeof s->emit[i] - (size_t)len,
				 " --a %s --b %s --d %s", mmagen_type_name((mmagen_type)f->a),
				 mmagen_type_name((mmagen_type)f->b),
				 mmagen_type_name((mmagen_type)f->d));
		pp->emit = s->emit[i];
	}
	if (n && q->gemm_out != MMAGEN_TYPE_NONE) {
		/* named only where the generator takes it */
		mmagen_gemm_request g;
		mmagen_gemm_info info;
		const char *quant = gemm_quant(q->id);
		unsigned qf = 0;
		mmagen_gemm_request_init(&g);
		g.target = t;
		g.a = q->a;
		g.b = q->b;
		g.out = q->gemm_out;
		if (quant && mmagen_qformat_parse(quant, &qf) == MMAGEN_OK)
			g.quant = qf;
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (!mmagen_gemm_info_of(&g, &info)) {
			snprintf(s->gemm[i], sizeof s->gemm[i],
				 "mmagen gemm --arch %s --a %s --b %s --out %s%s%s",
				 mmagen_target_name(t), mmagen_type_name(q->a),
				 mmagen_type_name(q->b), mmagen_type_name(q->gemm_out),
				 quant ? " --quant " : "", quant ? quant : "");
			pp->gemm = s->gemm[i];
		}
	}
	free(c);
	return MMAGEN_OK;
}

/* 0 native here, 1 converted, 2 emulated, 3 absent: the order of paths */
static int path_class(const mmagen_plan_path *p)
{
	if (!p->available)
		return 3;
	if (p->emulated)
		return 2;
	return p->native ? 0 : 1;
}

static void make_verdict(struct plan_store *s, const struct qconfig *c)
{
	mmagen_plan *p = &s->pub;
	const char *t = mmagen_target_name(p->target);
	const mmagen_plan_path *best = p->npaths && p->paths[0].available ? &p->paths[0] : NULL;
	const mmagen_plan_path *nat = NULL;
	size_t len;

	if (best && path_class(best) == 0) {
		p->native = 1;
		snprintf(s->verdict, sizeof s->verdict, "%s on %s: native: %s (%s: %s x %s -> %s)",
			 p->config, t, best->label, family_word(best->forms[0].form->family),
			 mmagen_type_name(best->a), mmagen_type_name(best->b),
			 mmagen_type_name(best->acc));
		return;
	}
	for (size_t i = 0; i < p->npaths && !nat; i++)
		if (p->paths[i].native)
			nat = &p->paths[i];
	if (c->never)
		snprintf(s->verdict, sizeof s->verdict, "%s on %s: not native on any target: %s",
			 p->config, t, c->never);
	else {
		assert(nat);     /* a config that is not `never` has a native path */
		snprintf(s->verdict, sizeof s->verdict, "%s on %s: not native: %s; native on %s",
			 p->config, t, nat->available ? nat->forms[0].emulated : nat->needs,
			 nat->lowest[0] ? nat->lowest : "no target");
	}
	len = strlen(s->verdict);
	if (best)
		snprintf(s->verdict + len, sizeof s->verdict - len, "; best path on %s: %s (%s)", t,
			 best->label, family_word(best->forms[0].form->family));
	else
		snprintf(s->verdict + len, sizeof s->verdict - len, "; no path on %s at all", t);
}

mmagen_status mmagen_plan_new(const mmagen_plan_request *req, mmagen_plan **out)
{
	mmagen_plan_request r;
	const struct qconfig *c;
	struct plan_store *s;
	const struct qpath *qs[MAX_PATHS];
	int nq = 0;
	mmagen_status st;

	if (!out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_plan_new: out is NULL");
	*out = NULL;
	mmagen_plan_request_init(&r);
	if ((st = abi_sized_in("mmagen_plan_request", "mmagen_plan_request_init", &r, sizeof r,
			       req, PLAN_REQUEST_SIZE_MIN)))
		return st;
	if (r.target < 0 || r.target >= T_COUNT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"plan: a target is required (e.g. sm_90a)");
	if (!r.quant)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"plan: a quantization config is required (e.g. w8a8-fp8)");
	if ((st = table_ready()))
		return st;
	if (!(c = find_config(r.quant))) {
		char key[MAX_NAME];
		if (!norm(r.quant, strlen(r.quant), key))
			key[0] = '\0';
		return unknown_config(r.quant, key);
	}
	for (const char *p = c->paths; *p;) {
		size_t len = strcspn(p, " ");
		assert(nq < MAX_PATHS);
		qs[nq] = find_path(p, len);
		assert(qs[nq]);      /* quant.def names only its own paths */
		nq++;
		p += len;
		p += strspn(p, " ");
	}
	if (!(s = calloc(1, sizeof *s)))
		return mmagen_set_error(MMAGEN_NO_MEMORY, "plan: out of memory");
	memcpy(s->config, c->names, canon_len(c));
	for (int i = 0; i < nq; i++)
		if ((st = fill_path(s, i, qs[i], r.target))) {
			mmagen_plan_free(&s->pub);
			return st;
		}
	/* stable: by class, then the order of quant.def */
	for (int i = 1; i < nq; i++)
		for (int j = i; j > 0 && path_class(&s->paths[j]) < path_class(&s->paths[j - 1]);
		     j--) {
			mmagen_plan_path tp = s->paths[j];
			s->paths[j] = s->paths[j - 1];
			s->paths[j - 1] = tp;
		}
	s->pub.config = s->config;
	s->pub.title = c->title;
	s->pub.weights = c->weights;
	s->pub.activations = c->acts;
	s->pub.target = r.target;
	s->pub.order = order_text;
	s->pub.npaths = (size_t)nq;
	s->pub.paths = s->paths;
	make_verdict(s, c);
	s->pub.verdict = s->verdict;
	*out = &s->pub;
	return MMAGEN_OK;
}
