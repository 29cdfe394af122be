/* sweep.c - the sweep suite: the table agrees with ptxas in both
 * directions on one target.  Every candidate form (candidates.c, built
 * without the table) and every table form is assembled at .version 9.0;
 * a difference is a form ptxas accepts that the table lacks, or a table
 * form ptxas rejects.  Forms are compared by identity: the opcode and
 * where A comes from (tcgen05 types are idesc fields, so several table
 * forms share one identity).
 * Usage: sweep PTXAS TARGET SCRATCHDIR [-v]   (-v: print ptxas' message
 * for every rejected candidate).  Exit 77 if there is no ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "candidates.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SWEEP_VERSION 90      /* the highest .version ptxas 13.0 knows */
#define BATCH 4000            /* forms per ptxas run */
#define MAX_LINES 200         /* difference lines printed */

/* ---- identities: a string-keyed open hash table ---- */

enum { ID_PENDING, ID_QUEUED, ID_ACCEPTED, ID_REJECTED };

struct ident {
	char *key;
	uint8_t state;        /* ID_* */
	uint8_t in_table;
	char *msg;            /* ptxas' message, kept for table forms */
};

static struct ident *ids;
static size_t nids, capids;

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static struct ident *slot(struct ident *tab, size_t cap, const char *key)
{
	size_t i = hash(key) & (cap - 1);
	while (tab[i].key && strcmp(tab[i].key, key))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void grow(void)
{
	size_t cap = capids ? 2 * capids : 1u << 16;
	struct ident *tab = calloc(cap, sizeof *tab);
	if (!tab)
		abort();
	for (size_t i = 0; i < capids; i++)
		if (ids[i].key)
			*slot(tab, cap, ids[i].key) = ids[i];
	free(ids);
	ids = tab;
	capids = cap;
}

/* The entry of key, created (pending) if *created is given. */
static struct ident *lookup(const char *key, int *created)
{
	if (created && 2 * (nids + 1) > capids)
		grow();
	if (!capids)
		return NULL;
	struct ident *e = slot(ids, capids, key);
	if (!e->key && created) {
		e->key = strdup(key);
		nids++;
		*created = 1;
	} else if (created) {
		*created = 0;
	}
	return e->key ? e : NULL;
}

static void identity(const mmagen_form *f, char *buf, size_t n)
{
	static const char *const src[] = { "", " (A: registers)",
		" (A: smem descriptor)", " (A: tensor memory)" };
	char op[256];
	snprintf(buf, n, "%s%s", mmagen_form_opcode(f, op, sizeof op),
		 src[f->asrc]);
}

/* ---- assembling ---- */

static struct harness h;
static int target;
static size_t ncandidates;

/* tcgen05 forms of both CTA groups may not share a function; keep each
 * batch to one group so that no batch needs bisecting. */
static int by_cta(const void *x, const void *y)
{
	const mmagen_form *a = *(const mmagen_form *const *)x;
	const mmagen_form *b = *(const mmagen_form *const *)y;
	if (a->cta_group != b->cta_group)
		return a->cta_group - b->cta_group;
	return a < b ? -1 : a > b;
}

/* Assemble the forms of `in` not tried before; accepted ones go to acc. */
static int try_forms(const struct cand_set *in, struct cand_set *acc)
{
	const mmagen_form **fs = malloc((in->n + 1) * sizeof *fs);
	struct ident **es = malloc((in->n + 1) * sizeof *es);
	char *ok = malloc(in->n + 1);
	char **msg = calloc(in->n + 1, sizeof *msg);
	char key[320];
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < in->n; i++) {
		int created;
		identity(&in->v[i], key, sizeof key);
		struct ident *e = lookup(key, &created);
		if (e->state == ID_PENDING) {
			e->state = ID_QUEUED;
			fs[k++] = &in->v[i];
		}
	}
	qsort(fs, k, sizeof *fs, by_cta);
	for (size_t i = 0; i < k; i++) {
		identity(fs[i], key, sizeof key);
		es[i] = lookup(key, NULL);
	}
	ncandidates += k;
	for (size_t lo = 0; lo < k && !rc; lo += BATCH) {
		size_t n = k - lo < BATCH ? k - lo : BATCH;
		if (harness_assemble(&h, target, SWEEP_VERSION, fs + lo, n,
				     ok + lo, msg + lo) < 0)
			rc = -1;
	}
	for (size_t i = 0; i < k && !rc; i++) {
		es[i]->state = ok[i] ? ID_ACCEPTED : ID_REJECTED;
		if (ok[i] && acc)
			cand_push(acc, fs[i]);
		if (!ok[i] && h.verbose)
			printf("rejected: %s: %s\n", es[i]->key, msg[i] ? msg[i] : "?");
		if (!ok[i] && es[i]->in_table) {
			es[i]->msg = msg[i];
			msg[i] = NULL;
		}
	}
	for (size_t i = 0; i < k; i++)
		free(msg[i]);
	free(msg);
	free(ok);
	free(es);
	free(fs);
	return rc;
}

/* Mark the table's identities on the target before anything runs, so
 * that their ptxas messages are kept. */
static void mark_table(struct cand_set *table)
{
	char key[320];
	int created;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (!mmagen_form_on_target(f, target))
			continue;
		identity(f, key, sizeof key);
		lookup(key, &created)->in_table = 1;
		if (created)
			cand_push(table, f);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sweep_family(const struct cand_family *fam)
{
	struct cand_set acc = { 0 };
	for (const cand_stage *st = fam->stages; *st; st++) {
		struct cand_set out = { 0 };
		double t0 = now();
		size_t before = ncandidates, had = acc.n;
		(*st)(&acc, &out);
		int rc = try_forms(&out, &acc);
		printf("  %s stage %d: %zu new candidates, %zu accepted (%.1f s)\n",
		       fam->name, (int)(st - fam->stages) + 1, ncandidates - before,
		       acc.n - had, now() - t0);
		cand_free(&out);
		if (rc)
			return rc;
	}
	cand_free(&acc);
	return 0;
}

/* ---- the report ---- */

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static size_t report(size_t *accepted, size_t *table, size_t *agree)
{
	char **lines = malloc((nids + 1) * sizeof *lines);
	size_t nd = 0;

	*accepted = *table = *agree = 0;
	for (size_t i = 0; i < capids; i++) {
		struct ident *e = &ids[i];
		char line[1024];
		if (!e->key)
			continue;
		*accepted += e->state == ID_ACCEPTED;
		*table += e->in_table;
		if ((e->state == ID_ACCEPTED) == e->in_table) {
			*agree += e->in_table;
			continue;
		}
		if (e->in_table)
			snprintf(line, sizeof line, "in the table, rejected by ptxas: %s: %s",
				 e->key, e->msg ? e->msg : "?");
		else
			snprintf(line, sizeof line, "accepted by ptxas, not in the table: %s",
				 e->key);
		lines[nd++] = strdup(line);
	}
	qsort(lines, nd, sizeof *lines, cmp_str);
	for (size_t i = 0; i < nd; i++) {
		if (i < MAX_LINES)
			printf("DIFF %s %s\n", mmagen_target_name(target), lines[i]);
		free(lines[i]);
	}
	if (nd > MAX_LINES)
		printf("... and %zu more differences\n", nd - MAX_LINES);
	free(lines);
	return nd;
}

int main(int argc, char **argv)
{
	struct cand_set table = { 0 };
	double t0;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "-v"))) {
		fprintf(stderr, "usage: sweep PTXAS TARGET SCRATCHDIR [-v]\n");
		return 2;
	}
	h.ptxas = argv[1];
	h.dir = argv[3];
	h.verbose = argc == 5;
	if (access(h.ptxas, X_OK)) {
		printf("ptxas not found at %s: skipped\n", h.ptxas);
		return 77;
	}
	if (mmagen_target_parse(argv[2], &target)) {
		fprintf(stderr, "%s\n", mmagen_last_error());
		return 2;
	}
	t0 = now();
	mark_table(&table);
	for (const struct cand_family *fam = cand_families; fam->name; fam++)
		if (sweep_family(fam))
			return printf("cannot run ptxas\n"), 1;
	/* table forms outside the candidate space are judged too */
	if (try_forms(&table, NULL))
		return printf("cannot run ptxas\n"), 1;
	cand_free(&table);

	size_t accepted, ntable, agree;
	size_t nd = report(&accepted, &ntable, &agree);
	printf("%s: %zu candidates, %zu accepted, %zu table forms, %zu differences (%.0f s)\n",
	       mmagen_target_name(target), ncandidates, accepted, ntable, nd,
	       now() - t0);
	printf("%zu passed, %zu failed\n", agree, nd);
	return nd ? 1 : 0;
}
