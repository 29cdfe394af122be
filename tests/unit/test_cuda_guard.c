/* test_cuda_guard.c - the CUDA wrappers' architecture guards (cuda.c,
 * cuda_guard) agree with the table: for every target, a C preprocessor
 * given the macros nvcc defines for that target's device pass selects
 * exactly the forms the table puts on it.  The macros per target are the
 * facts `nvcc --dryrun -arch=sm_XY[a|f]` shows (CUDA 13.0), written here,
 * not taken from cuda.c:
 *   every target  __CUDA_ARCH__=XY0
 *   'f'           + __CUDA_ARCH_FAMILY_SPECIFIC__=XY0
 *   'a'           + __CUDA_ARCH_FAMILY_SPECIFIC__=XY0, __CUDA_ARCH_SPECIFIC__=XY0,
 *                   __CUDA_ARCH_FEAT_SMXY_ALL
 * Usage: test_cuda_guard SCRATCHDIR CPP-COMMAND (e.g. "cc -E"). */
#define _POSIX_C_SOURCE 200809L
#include "emit.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[512], cmd[2048], line[64];
	size_t n = mmagen_form_count();

	if (argc < 3)
		return fprintf(stderr, "usage: test_cuda_guard DIR CPP\n"), 2;
	snprintf(path, sizeof path, "%s/cuda_guards.h", argv[1]);
	FILE *fp = fopen(path, "w");
	if (!fp)
		return fprintf(stderr, "cannot write %s\n", path), 1;
	for (size_t i = 0; i < n; i++) {
		struct buf b;
		char *g;
		buf_init(&b);
		cuda_guard(&b, mmagen_form_at(i));
		if (buf_finish(&b, &g, NULL))
			return fprintf(stderr, "%s\n", mmagen_last_error()), 1;
		fprintf(fp, "#if %s\nform %zu\n#endif\n", g, i);
		mmagen_free(g);
	}
	fclose(fp);
	for (int t = 0; t < mmagen_target_count(); t++) {
		const char *name = mmagen_target_name(t);
		unsigned sm = (unsigned)strtoul(name + 3, NULL, 10);
		char suffix = name[strlen(name) - 1];
		char *on = calloc(n, 1);
		int len = snprintf(cmd, sizeof cmd, "%s -P -D__CUDA_ARCH__=%u0", argv[2], sm);
		if (suffix == 'a' || suffix == 'f')
			len += snprintf(cmd + len, sizeof cmd - (size_t)len,
					" -D__CUDA_ARCH_FAMILY_SPECIFIC__=%u0", sm);
		if (suffix == 'a')
			len += snprintf(cmd + len, sizeof cmd - (size_t)len,
					" -D__CUDA_ARCH_SPECIFIC__=%u0 -D__CUDA_ARCH_FEAT_SM%u_ALL", sm, sm);
		snprintf(cmd + len, sizeof cmd - (size_t)len, " '%s'", path);
		FILE *p = popen(cmd, "r");
		if (!p || !on)
			return fprintf(stderr, "cannot run %s\n", cmd), 1;
		size_t i;
		while (fgets(line, sizeof line, p))
			if (sscanf(line, "form %zu", &i) == 1 && i < n)
				on[i] = 1;
		if (pclose(p))
			fail("%s failed", cmd);
		size_t bad = 0;
		for (i = 0; i < n; i++) {
			const mmagen_form *f = mmagen_form_at(i);
			char op[256];
			if (on[i] == mmagen_form_on_target(f, t))
				continue;
			if (bad++ < 3)
				fail("%s: the guard of %s says %d, the table %d", name,
				     mmagen_form_opcode(f, op, sizeof op), on[i],
				     mmagen_form_on_target(f, t));
		}
		check(bad == 0, "%s: %zu forms disagree", name, bad);
		free(on);
	}
	return check_summary();
}
