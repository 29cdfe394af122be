/* check_tiles.c - every one-tile kernel assembles with ptxas for the
 * lowest target of its form and for sm_90a (the GPU the GPU suite uses).
 * Usage: check_tiles PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "table.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int assemble(const char *ptxas, const char *dir, const mmagen_form *f, int t)
{
	char path[600], cmd[1600], op[256];
	char *text;
	size_t len;

	if (mmagen_emit_tile(f, t, NULL, MMAGEN_FMT_PTX, &text, &len)) {
		printf("FAIL: %s on %s: %s\n", mmagen_form_opcode(f, op, sizeof op),
		       mmagen_target_name(t), mmagen_last_error());
		return 1;
	}
	snprintf(path, sizeof path, "%s/tile_%ld.ptx", dir, (long)getpid());
	FILE *fp = fopen(path, "w");
	if (!fp || fwrite(text, 1, len, fp) != len) {
		mmagen_free(text);
		return printf("FAIL: cannot write %s\n", path), 1;
	}
	fclose(fp);
	mmagen_free(text);
	snprintf(cmd, sizeof cmd, "'%s' -arch=%s '%s' -o /dev/null >'%s.log' 2>&1", ptxas,
		 mmagen_target_name(t), path, path);
	if (system(cmd)) {
		printf("FAIL: tile kernel for %s does not assemble on %s (see %s.log)\n",
		       mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t), path);
		return 1;
	}
	unlink(path);
	strncat(path, ".log", sizeof path - strlen(path) - 1);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	int skipped = 0, sm90a;
	char prev[256] = "", op[256];

	if (argc != 3)
		return fprintf(stderr, "usage: check_tiles PTXAS DIR\n"), 2;
	if (access(argv[1], X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	mmagen_target_parse("sm_90a", &sm90a);
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		mmagen_tile_info ti;
		if (!strcmp(mmagen_form_opcode(f, op, sizeof op), prev))
			continue;
		snprintf(prev, sizeof prev, "%s", op);
		if (mmagen_tile_info_of(f, NULL, &ti)) {
			skipped++;   /* families without tile kernels yet */
			continue;
		}
		int t = mmagen_form_min_target(f);
		int bad = assemble(argv[1], argv[2], f, t);
		if (!bad && t != sm90a && mmagen_form_on_target(f, sm90a))
			bad = assemble(argv[1], argv[2], f, sm90a);
		bad ? failed++ : passed++;
	}
	printf("%d forms without tile kernels yet\n", skipped);
	return check_summary();
}
