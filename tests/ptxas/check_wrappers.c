/* check_wrappers.c - the CUDA wrappers compile: for the first form of every
 * table row, emit the wrapper for the row's lowest target and build its
 * self-test kernel with nvcc (which runs ptxas on the inline asm).
 * Usage: check_wrappers NVCC SCRATCHDIR [FIRST_ROW STEP]. Exit 77 without nvcc. */
#include "table.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t first = argc > 4 ? strtoul(argv[3], NULL, 10) : 0;
	size_t step = argc > 4 ? strtoul(argv[4], NULL, 10) : 1;
	long lastrow = -1;

	if (argc < 3)
		return fprintf(stderr, "usage: check_wrappers NVCC DIR [FIRST STEP]\n"), 2;
	if (access(argv[1], X_OK))
		return printf("nvcc not found: skipped\n"), 77;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		char path[512], cmd[2048], op[256];
		char *text;
		size_t len;
		if ((long)f->row == lastrow)
			continue;
		lastrow = f->row;
		if (f->row % step != first)
			continue;
		int t = mmagen_form_min_target(f);
		if (mmagen_emit_instr(f, t, MMAGEN_FMT_CUDA, &text, &len)) {
			fail("%s", mmagen_last_error());
			continue;
		}
		char hpath[600];
		snprintf(hpath, sizeof hpath, "%s/wrap_row%u.cuh", argv[2], f->row);
		snprintf(path, sizeof path, "%s/wrap_row%u.cu", argv[2], f->row);
		FILE *fp = fopen(hpath, "w");
		fwrite(text, 1, len, fp);
		fclose(fp);
		mmagen_free(text);
		fp = fopen(path, "w");
		fprintf(fp, "#include \"wrap_row%u.cuh\"\n", f->row);
		fclose(fp);
		/* fails on a non-zero exit and on any warning or error text */
		snprintf(cmd, sizeof cmd,
			 "'%s' -arch=%s -DMMAGEN_WRAPPER_SELFTEST -cubin -o /dev/null '%s' >'%s.log' 2>&1 && "
			 "! grep -Ei 'warning|error' '%s.log' >/dev/null",
			 argv[1], mmagen_target_name(t), path, path, path);
		if (system(cmd) != 0) {
			fail("wrapper for %s (row %u, %s) does not compile: see %s",
			     mmagen_form_opcode(f, op, sizeof op), f->row,
			     mmagen_target_name(t), path);
		} else {
			passed++;
			unlink(path);
			unlink(hpath);
			snprintf(hpath, sizeof hpath, "%s.log", path);
			unlink(hpath);
		}
	}
	return check_summary();
}
