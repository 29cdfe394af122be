/* check_gemm.c - every GEMM variant the generator offers assembles with
 * ptxas for its target: each input pair and output type, tile N 64..256,
 * both cluster sizes.  A variant the generator refuses must be refused
 * with a message; none may fail in between.
 * Usage: check_gemm PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { mmagen_type a, b, out; } combos[] = {
	{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16 }, { MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32 },
	{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16 }, { MMAGEN_F16, MMAGEN_F16, MMAGEN_F32 },
	{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32 }, { MMAGEN_TF32, MMAGEN_TF32, MMAGEN_BF16 },
	{ MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16 }, { MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16 },
	{ MMAGEN_E5M2, MMAGEN_E4M3, MMAGEN_F32 }, { MMAGEN_E5M2, MMAGEN_E5M2, MMAGEN_BF16 },
	{ MMAGEN_S8, MMAGEN_S8, MMAGEN_S32 }, { MMAGEN_U8, MMAGEN_S8, MMAGEN_F32 },
	{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32 }, { MMAGEN_U8, MMAGEN_U8, MMAGEN_S32 },
};

static int assemble(const char *ptxas, const char *dir, const mmagen_gemm_request *r,
		    const char *what)
{
	char path[600], cmd[1600];
	char *text;
	size_t len;

	if (mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &text, &len)) {
		printf("FAIL: %s: %s\n", what, mmagen_last_error());
		return 1;
	}
	snprintf(path, sizeof path, "%s/gemm_%ld.ptx", dir, (long)getpid());
	FILE *fp = fopen(path, "w");
	int bad = !fp || fwrite(text, 1, len, fp) != len;
	if (fp)
		fclose(fp);
	mmagen_free(text);
	if (bad)
		return printf("FAIL: cannot write %s\n", path), 1;
	snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90a '%s' -o /dev/null >'%s.log' 2>&1",
		 ptxas, path, path);
	if (system(cmd)) {
		printf("FAIL: %s does not assemble (see %s.log)\n", what, path);
		return 1;
	}
	unlink(path);
	strncat(path, ".log", sizeof path - strlen(path) - 1);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned tile_n[] = { 0, 64, 128, 256 };
	char what[200];

	if (argc != 3)
		return fprintf(stderr, "usage: check_gemm PTXAS DIR\n"), 2;
	if (access(argv[1], X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
		for (size_t t = 0; t < sizeof tile_n / sizeof tile_n[0]; t++)
			for (unsigned cl = 1; cl <= 2; cl++) {
				mmagen_gemm_request r;
				mmagen_gemm_request_init(&r);
				mmagen_target_parse("sm_90a", &r.target);
				r.a = combos[c].a;
				r.b = combos[c].b;
				r.out = combos[c].out;
				r.tile_n = tile_n[t];
				r.cluster = cl;
				snprintf(what, sizeof what, "gemm %s x %s -> %s, tile N %u, cluster %u",
					 mmagen_type_name(r.a), mmagen_type_name(r.b),
					 mmagen_type_name(r.out), tile_n[t], cl);
				/* FP8 keeps two accumulators: N 256 is refused */
				if (tile_n[t] == 256 && (r.a == MMAGEN_E4M3 || r.a == MMAGEN_E5M2)) {
					mmagen_gemm_info info = { .size = sizeof info };
					CHECK(mmagen_gemm_info_of(&r, &info) == MMAGEN_INVALID_ARGUMENT &&
					      strstr(mmagen_last_error(), "at most 192"),
					      "%s: refused with the rule", what);
					continue;
				}
				CHECK(!assemble(argv[1], argv[2], &r, what), "%s", what);
			}
	return check_summary();
}
