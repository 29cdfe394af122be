/* fuzz_gemm_json.c - `run gemm --load`'s reader (gen/cli/run_gemm_save.c):
 * its small JSON parser and the checks that DIR/gemm.json describes the
 * problem being run.
 *
 * The input is written as gemm.json into a scratch directory that also
 * holds A.bin, B.bin and C.bin of a fixed bf16 problem (8 x 8 x 8 by
 * default; the seeds, corpus/gemm_json, are descriptions `run gemm --save`
 * writes, and variants).  rg_load must either refuse with one line
 * (rg_error) or load operands that are the bytes of the directory's
 * files; ASan and UBSan catch the rest. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include "run_gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];
static uint8_t ops[3][8 * 8 * 2];

static void put(const char *name, const void *data, size_t n)
{
	char path[320];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

/* the scratch directory goes with the process */
static void cleanup(void)
{
	static const char *const names[] = { "A.bin", "B.bin", "C.bin", "gemm.json" };
	char path[320];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mmagen-fuzz-json-XXXXXX", t && *t ? t : "/tmp");
	FUZZ_CHECK(mkdtemp(dir), "mkdtemp %s", dir);
	atexit(cleanup);
	/* finite bf16 values (the loader refuses NaN and Inf) */
	for (int i = 0; i < 3; i++)
		for (size_t j = 0; j < sizeof ops[i] / 2; j++) {
			uint16_t v = (uint16_t)(0x3e00 | ((j * 7 + (size_t)i * 13) & 0xff));
			memcpy(&ops[i][2 * j], &v, 2);
		}
	put("A.bin", ops[0], sizeof ops[0]);
	put("B.bin", ops[1], sizeof ops[1]);
	put("C.bin", ops[2], sizeof ops[2]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_data d;

	if (!dir[0])
		LLVMFuzzerInitialize(NULL, NULL);
	put("gemm.json", data, size);
	memset(&d, 0, sizeof d);
	d.p = (struct rg_problem){ .a = MMAGEN_BF16, .b = MMAGEN_BF16, .out = MMAGEN_BF16,
				   .m = 8, .n = 8, .k = 8, .alpha = 1, .beta = 0.5f, .seed = 1,
				   .d_scale = 1 };
	int rc = rg_load(dir, &d, "tn");
	if (getenv("MMAGEN_FUZZ_VERBOSE"))     /* which way a seed goes */
		fprintf(stderr, "%s\n", rc ? rg_error() : "loaded");
	if (rc == 0) {
		FUZZ_CHECK(d.a && d.b && d.c, "loaded without operands");
		/* each operand the bytes of a file of the directory (the
		 * description names which: C may well be read from B.bin) */
		const void *got[3] = { d.a, d.b, d.c };
		for (int i = 0; i < 3; i++)
			FUZZ_CHECK(!memcmp(got[i], ops[0], sizeof ops[0]) ||
				   !memcmp(got[i], ops[1], sizeof ops[1]) ||
				   !memcmp(got[i], ops[2], sizeof ops[2]),
				   "operand %d: loaded other bytes than any file's", i);
	} else {
		const char *e = rg_error();
		FUZZ_CHECK(e && e[0] && !strchr(e, '\n'), "refused without one line: \"%s\"", e ? e : "");
	}
	rg_data_free(&d);
	return 0;
}
