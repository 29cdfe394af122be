/* check_tcgen05_tiles.c - every tcgen05 form's tile kernel through ptxas:
 * the default options, and once per opcode and A source each data-path
 * layout and swizzle (the ptxas suite; the descriptor words are checked in
 * tests/unit/test_tcgen05.c).
 * Usage: check_tcgen05_tiles PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "kernel.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Option sets: defaults, then each data-path layout and swizzle. */
struct optset {
	unsigned m, n, swizzle;
	int scale_d;
};

static const struct optset optsets[] = {
	{ 0, 0, 128, 1 },
	{ 64, 32, 0, 0 },      /* Layout F (cg1), no swizzle, enable-input-d off */
	{ 128, 64, 64, 1 },    /* Layout B/C (cg2) */
	{ 32, 64, 32, 1 },     /* .ws Layout G */
	{ 64, 256, 64, 1 },    /* .ws Layout E */
};

static int write_kernel(const char *dir, unsigned id, const mmagen_form *f, int t,
			const mmagen_tile_opts *o, FILE *list)
{
	char *text, path[600];
	size_t len;
	mmagen_status s = mmagen_emit_tile(f, t, o, MMAGEN_FMT_PTX, &text, &len);
	if (s)
		return s;
	snprintf(path, sizeof path, "%s/tc%u-%s.ptx", dir, id, mmagen_target_name(t));
	FILE *fp = fopen(path, "w");
	int bad = !fp || fwrite(text, 1, len, fp) != len;
	if (fp)
		fclose(fp);
	mmagen_free(text);
	if (!bad)
		fprintf(list, "%s\n", path);
	return bad;
}

/* 1 the first time (opcode, A source) comes by. */
static int first_seen(const char *op, unsigned asrc)
{
	static char seen[256][300];
	static unsigned nseen;
	char key[300];
	snprintf(key, sizeof key, "%s/%u", op, asrc);
	for (unsigned i = 0; i < nseen; i++)
		if (!strcmp(seen[i], key))
			return 0;
	if (nseen < 256)
		snprintf(seen[nseen++], sizeof seen[0], "%s", key);
	return 1;
}

static int test_kernels(const char *ptxas, const char *scratch)
{
	char dir[512], cmd[2048], listpath[600], outpath[600];
	mmagen_tile_opts o;
	unsigned id = 0, emitted = 0, declined = 0;
	int sm103a;

	snprintf(dir, sizeof dir, "%s/tcgen05_%ld", scratch, (long)getpid());
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	if (system(cmd))
		return printf("FAIL: cannot make %s\n", dir), 1;
	snprintf(listpath, sizeof listpath, "%s/list", dir);
	FILE *list = fopen(listpath, "w");
	if (!list)
		return printf("FAIL: cannot write %s\n", listpath), 1;
	mmagen_target_parse("sm_103a", &sm103a);
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_TCGEN05)
			continue;
		if (f->ashift) {     /* refused: the reference has no row shift */
			mmagen_tile_info ti;
			CHECK(mmagen_tile_info_of(f, NULL, &ti) == MMAGEN_UNSUPPORTED &&
			      strstr(mmagen_last_error(), ".ashift"), "ashift tile refused with the rule");
			continue;
		}
		int ts[2] = { mmagen_form_min_target(f), -1 };
		if (ts[0] != sm103a && mmagen_form_on_target(f, sm103a))
			ts[1] = sm103a;
		/* the other option sets once per opcode and A source: the
		 * types change only the idesc and the copy loops */
		char op[256];
		mmagen_form_opcode(f, op, sizeof op);
		int first = first_seen(op, f->asrc);
		size_t nsets = first ? sizeof optsets / sizeof optsets[0] : 1;
		for (size_t k = 0; k < nsets; k++) {
			mmagen_tile_opts_init(&o);
			o.m = optsets[k].m;
			o.n = optsets[k].n;
			o.swizzle = optsets[k].swizzle;
			o.scale_d = optsets[k].scale_d;
			for (int j = 0; j < 2 && ts[j] >= 0; j++) {
				mmagen_status s = write_kernel(dir, id++, f, ts[j], &o, list);
				if (s && k == 0) {
					CHECK(0, "%s: no tile kernel with default options: %s",
					      op, mmagen_last_error());
				}
				s ? declined++ : emitted++;
			}
		}
	}
	fclose(list);
	snprintf(outpath, sizeof outpath, "%s/failed", dir);
	/* the target is the file name's last field */
	snprintf(cmd, sizeof cmd,
		 "xargs -P %ld -n 16 sh -c 'for f; do a=${f##*-}; a=${a%%.ptx}; "
		 "\"%s\" -arch=$a \"$f\" -o /dev/null >\"$f.log\" 2>&1 && rm -f \"$f\" \"$f.log\" "
		 "|| echo \"$f\"; done' sh <'%s' >'%s'",
		 sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 4,
		 ptxas, listpath, outpath);
	if (system(cmd))
		return printf("FAIL: could not run ptxas\n"), 1;
	FILE *fp = fopen(outpath, "r");
	char line[700];
	unsigned bad = 0;
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = 0;
		if (bad++ < 10)
			printf("FAIL: %s does not assemble (see %s.log)\n", line, line);
	}
	if (fp)
		fclose(fp);
	CHECK(bad == 0, "%u tcgen05 tile kernels rejected by ptxas", bad);
	printf("tcgen05 tile kernels: %u emitted, %u assembled, %u rejected by ptxas, "
	       "%u option sets declined (illegal M/N/swizzle for the form)\n",
	       emitted, emitted - bad, bad, declined);
	if (!bad) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd))
			printf("note: could not remove %s\n", dir);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return fprintf(stderr, "usage: check_tcgen05_tiles PTXAS DIR\n"), 2;
	if (access(argv[1], X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	CHECK(test_kernels(argv[1], argv[2]) == 0, "the tile check could not run");
	return check_summary();
}
