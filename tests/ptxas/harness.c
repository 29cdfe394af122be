/* harness.c - see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const unsigned ptx_versions[] = {
	60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78,
	80, 81, 82, 83, 84, 85, 86, 87, 88, 90,
};
const size_t ptx_nversions = sizeof ptx_versions / sizeof ptx_versions[0];

unsigned ptx_prev(unsigned v)
{
	for (size_t i = 1; i < ptx_nversions; i++)
		if (ptx_versions[i] == v)
			return ptx_versions[i - 1];
	return 0;
}

/* Run ptxas on one module; fill err_line_of_entry. Returns ptxas' exit
 * status, or -1 if it could not run. */
static int run_once(const struct harness *h, int t, unsigned v,
		    const mmagen_form *const *fs, size_t n, char *ok, char **msg,
		    int *named_any)
{
	char path[512], cmd[1200], line[4096];
	size_t *first = malloc((n + 1) * sizeof *first);
	char *text;
	size_t len;
	int rc;

	*named_any = 0;
	if (!first || emit_forms_module(fs, n, t, v, &text, &len, first)) {
		free(first);
		return -1;
	}
	first[n] = (size_t)-1;
	snprintf(path, sizeof path, "%s/h%ld_%s_%u.ptx", h->dir, (long)getpid(),
		 mmagen_target_name(t), v);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len) {
		if (f)
			fclose(f);
		free(text);
		free(first);
		return -1;
	}
	fclose(f);
	free(text);
	for (size_t i = 0; i < n; i++)
		ok[i] = 1;
	snprintf(cmd, sizeof cmd, "'%s' -arch=%s '%s' -o /dev/null 2>&1", h->ptxas,
		 mmagen_target_name(t), path);
	FILE *p = popen(cmd, "r");
	if (!p) {
		free(first);
		return -1;
	}
	while (fgets(line, sizeof line, p)) {
		char *at = strstr(line, ", line ");
		if (!at || !strstr(line, "error"))
			continue;
		size_t ln = strtoul(at + 7, NULL, 10);
		/* entry i spans [first[i], first[i+1]) */
		size_t lo = 0, hi = n;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (first[mid] <= ln)
				lo = mid;
			else
				hi = mid;
		}
		if (ln < first[0])
			continue;
		if (ok[lo] && msg) {
			line[strcspn(line, "\n")] = '\0';
			free(msg[lo]);
			msg[lo] = strdup(line);
		}
		ok[lo] = 0;
		*named_any = 1;
	}
	rc = pclose(p);
	free(first);
	if (!h->verbose)
		unlink(path);
	return rc;
}

int harness_assemble(const struct harness *h, int t, unsigned v,
		     const mmagen_form *const *fs, size_t n, char *ok, char **msg)
{
	int named;
	int rc;

	if (!n)
		return 0;
	rc = run_once(h, t, v, fs, n, ok, msg, &named);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	if (named) {
		/* Re-assemble what survived: codegen errors only show once
		 * parse errors are gone. */
		size_t k = 0;
		const mmagen_form **rest = malloc(n * sizeof *rest);
		size_t *idx = malloc(n * sizeof *idx);
		char *ok2 = malloc(n);
		char **msg2 = msg ? calloc(n, sizeof *msg2) : NULL;
		for (size_t i = 0; i < n; i++)
			if (ok[i]) {
				idx[k] = i;
				rest[k++] = fs[i];
			}
		rc = harness_assemble(h, t, v, rest, k, ok2, msg2);
		for (size_t j = 0; j < k; j++) {
			ok[idx[j]] = ok2[j];
			if (msg2 && msg2[j]) {
				free(msg[idx[j]]);
				msg[idx[j]] = msg2[j];
			}
		}
		free(rest);
		free(idx);
		free(ok2);
		free(msg2);
		return rc < 0 ? -1 : 0;
	}
	if (n == 1) {
		ok[0] = 0;
		if (msg && !msg[0])
			msg[0] = strdup("ptxas failed without naming a line");
		return 0;
	}
	size_t half = n / 2;
	if (harness_assemble(h, t, v, fs, half, ok, msg) < 0 ||
	    harness_assemble(h, t, v, fs + half, n - half, ok + half,
			     msg ? msg + half : NULL) < 0)
		return -1;
	return 0;
}
