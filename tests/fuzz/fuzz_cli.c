/* fuzz_cli.c - the command line, in-process: the input is the arguments
 * after the program name, one per line (or NUL-separated when the input
 * holds a NUL, so that an argument may hold a newline).
 *
 * Every command runs through mmagen_cli_main except those that touch
 * files or a driver: run, bench, quantize and dequantize are only parsed
 * (fuzz_quant.c runs quantize and dequantize on files it owns), and an
 * input naming an output file (-o, --output; --save, --load) is skipped
 * whole.  Checked: the exit status, one line on stderr on failure
 * (fuzz_cli_check), output on success where the command always has
 * some; and, under the sanitizers, no leak per run. */
#include "fuzz.h"

#include <string.h>

#define MAX_ARGS 64

/* the option name of an argument, up to '=' */
static int names(const char *a, const char *opt)
{
	size_t n = strcspn(a, "=");
	return strlen(opt) == n && !strncmp(a, opt, n);
}

static int touches_files(int argc, char **argv)
{
	static const char *const file_opts[] = { "-o", "--output", "--save", "--load" };
	for (int i = 1; i < argc; i++)
		for (size_t j = 0; j < sizeof file_opts / sizeof *file_opts; j++)
			if (names(argv[i], file_opts[j]))
				return 1;
	return 0;
}

static int parse_only(int argc, char **argv)
{
	static const char *const cmds[] = { "run", "bench", "quantize", "dequantize" };
	for (size_t j = 0; argc > 1 && j < sizeof cmds / sizeof *cmds; j++)
		if (!strcmp(argv[1], cmds[j]))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1], *out, *err;
	char sep = memchr(data, '\0', size) ? '\0' : '\n';
	size_t outlen, errlen;
	int argc = 0, rc;

	FUZZ_CHECK(buf, "out of memory");
	memcpy(buf, data, size);
	buf[size] = sep;
	argv[argc++] = (char *)"mmagen";
	/* a final separator ends the last argument, it does not start one */
	for (char *p = buf, *end = buf + size; p < end && argc < MAX_ARGS;) {
		char *q = memchr(p, sep, (size_t)(end - p) + 1);
		*q = '\0';
		argv[argc++] = p;
		p = q + 1;
	}
	argv[argc] = NULL;
	if (touches_files(argc, argv))
		goto out;
	rc = fuzz_cli_run(parse_only(argc, argv), argc, argv, &out, &outlen, &err, &errlen);
	fuzz_cli_check(argc, argv, rc, err, errlen);
	/* these always print something when they succeed */
	if (!rc && argc > 1 && (!strcmp(argv[1], "emit") || !strcmp(argv[1], "gemm") ||
				!strcmp(argv[1], "doc")))
		FUZZ_CHECK(outlen > 0, "'%s' exited 0 and printed nothing", argv[1]);
	free(out);
	free(err);
out:
	free(buf);
	return 0;
}
