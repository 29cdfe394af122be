/* check_forms.c - the ptxas suite: for one target, every form the table
 * puts there assembles at the .version the table says; one version lower
 * is rejected where the table claims a higher minimum than the target's;
 * and every form whose lowest target is this one's successor is rejected
 * here.  Usage: check_forms PTXAS TARGET SCRATCHDIR.  Exit 77 if no ptxas. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static void report(const char *what, int t, unsigned v, const mmagen_form *f,
		   const char *msg)
{
	char op[256];
	fail("%s: %s on %s (.version %u.%u)%s%s", what,
	     mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t), v / 10,
	     v % 10, msg ? ": " : "", msg ? msg : "");
}

int main(int argc, char **argv)
{
	struct harness h = { 0 };
	int t;

	if (argc != 4) {
		fprintf(stderr, "usage: check_forms PTXAS TARGET SCRATCHDIR\n");
		return 2;
	}
	h.ptxas = argv[1];
	h.dir = argv[3];
	if (access(h.ptxas, X_OK)) {
		printf("ptxas not found at %s: skipped\n", h.ptxas);
		return 77;
	}
	if (mmagen_target_parse(argv[2], &t)) {
		fprintf(stderr, "%s\n", mmagen_last_error());
		return 2;
	}
	size_t n = mmagen_form_count();
	const mmagen_form **fs = malloc(n * sizeof *fs);
	char *ok = malloc(n);
	char **msg = calloc(n, sizeof *msg);
	size_t assembled = 0, too_low = 0, below = 0;
	int rc = 1;

	if (!fs || !ok || !msg) {
		printf("out of memory\n");
		goto out;
	}

	/* 1. assembles at its own minimum version, and (2.) not one lower */
	for (size_t vi = 0; vi < ptx_nversions; vi++) {
		unsigned v = ptx_versions[vi];
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			const mmagen_form *f = mmagen_form_at(i);
			if (mmagen_form_on_target(f, t) && mmagen_form_min_ptx(f, t) == v)
				fs[k++] = f;
		}
		if (!k)
			continue;
		memset(msg, 0, k * sizeof *msg);
		if (harness_assemble(&h, t, v, fs, k, ok, msg) < 0) {
			printf("cannot run ptxas\n");
			goto out;
		}
		for (size_t i = 0; i < k; i++) {
			if (!ok[i])
				report("table form rejected", t, v, fs[i], msg[i]);
			assembled += ok[i];
			free(msg[i]);
			msg[i] = NULL;
		}
		unsigned lower = ptx_prev(v);
		if (v <= mmagen_target_min_ptx(t) || !lower)
			continue;
		if (harness_assemble(&h, t, lower, fs, k, ok, NULL) < 0)
			goto out;
		for (size_t i = 0; i < k; i++) {
			if (ok[i])
				report("accepted below the table's minimum .version", t, lower,
				       fs[i], NULL);
			else
				too_low++;
		}
	}
	/* 3. forms whose lowest target comes right after t are rejected on t */
	for (size_t vi = 0; vi < ptx_nversions; vi++) {
		unsigned v = ptx_versions[vi];
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			const mmagen_form *f = mmagen_form_at(i);
			int m = mmagen_form_min_target(f);
			if (m != t + 1 || mmagen_form_on_target(f, t))
				continue;
			unsigned fv = mmagen_form_min_ptx(f, m);
			if (fv < mmagen_target_min_ptx(t))
				fv = mmagen_target_min_ptx(t);
			if (fv == v)
				fs[k++] = f;
		}
		if (!k)
			continue;
		if (harness_assemble(&h, t, v, fs, k, ok, NULL) < 0)
			goto out;
		for (size_t i = 0; i < k; i++) {
			if (ok[i])
				report("accepted below the table's minimum target", t, v, fs[i], NULL);
			else
				below++;
		}
	}
	printf("%s: %zu forms assembled, %zu rejected one .version lower, %zu rejected here (their minimum target is next)\n",
	       mmagen_target_name(t), assembled, too_low, below);
	passed += assembled + too_low + below;
	rc = check_summary();
out:
	/* msg[i] is freed as it is reported; a failed batch may leave some */
	for (size_t i = 0; msg && i < n; i++)
		free(msg[i]);
	free(msg);
	free(ok);
	free((void *)fs);
	return rc;
}
