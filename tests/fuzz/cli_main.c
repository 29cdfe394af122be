/* cli_main.c - the CLI's main() (gen/cli/main.c) as mmagen_cli_main(), and
 * a way to run it in-process with its output caught (see fuzz.h). */
#define _GNU_SOURCE
#include "fuzz.h"

#include <string.h>

#define main mmagen_cli_main
#include "main.c"
#undef main

/* The parser alone, as main() starts: no handler runs. */
static int parse_only(int argc, char **argv)
{
	struct opts o;
	int cmd, next, rc;

	cli_names_init();
	rc = cli_find_cmd(&cli_spec, argc, argv, MMAGEN_VERSION, &cmd, &next);
	if (cmd >= 0) {
		opts_init(&o);
		rc = cli_parse(&cli_spec, cmd, argc, argv, next, &o);
		if (rc == CLI_SHOW_HELP)
			rc = 0;
	}
	return rc;
}

int fuzz_cli_run(int parse, int argc, char **argv, char **out, size_t *outlen,
		 char **err, size_t *errlen)
{
	/* glibc lets stdout and stderr be assigned: the CLI writes through
	 * them, the sanitizers write to the descriptor */
	FILE *o = stdout, *e = stderr;
	int rc;

	*out = *err = NULL;
	stdout = open_memstream(out, outlen);
	stderr = open_memstream(err, errlen);
	FUZZ_CHECK(stdout && stderr, "open_memstream failed");
	rc = parse ? parse_only(argc, argv) : mmagen_cli_main(argc, argv);
	fclose(stdout);
	fclose(stderr);
	stdout = o;
	stderr = e;
	return rc;
}

void fuzz_cli_check(int argc, char **argv, int rc, const char *err,
		    size_t errlen)
{
	const char *nl;

	FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2 || rc == 77,
		   "exit status %d (argv[1] '%s')", rc, argc > 1 ? argv[1] : "");
	if (rc == 0 || argc < 2)    /* bare `mmagen`: the help on stderr */
		return;
	nl = memchr(err, '\n', errlen);
	FUZZ_CHECK(errlen > 8 && !strncmp(err, "mmagen: ", 8),
		   "failed (%d) without 'mmagen: ' first on stderr: '%.*s'", rc,
		   (int)(errlen < 300 ? errlen : 300), err);
	FUZZ_CHECK(nl && nl == err + errlen - 1,
		   "failed (%d) with more than one line on stderr: '%.*s'", rc,
		   (int)(errlen < 600 ? errlen : 600), err);
}
