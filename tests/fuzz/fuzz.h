/* fuzz.h - what the harnesses in tests/fuzz share.
 *
 * Each harness is one LLVMFuzzerTestOneInput.  Built with -Dfuzz=true it
 * links libFuzzer; otherwise replay.c gives it a main() that runs it on
 * every file of its seed corpus (tests/fuzz/corpus/NAME), which is how the
 * `fuzz` suite replays the corpora.  A harness checks what it can check
 * independently and calls FUZZ_CHECK: a broken expectation aborts, so
 * libFuzzer saves the input as a crash. */
#ifndef MMAGEN_FUZZ_H
#define MMAGEN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                               \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: check failed: %s: ",        \
				__FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/* The input, consumed from the front. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

/* The next byte, 0 once the input is used up. */
static inline unsigned fuzz_byte(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* ---- cli_main.c: the CLI's main() as a function ---- */
int mmagen_cli_main(int argc, char **argv);

/* Runs the CLI in-process (parse != 0: only its parser, as main() starts)
 * with stdout and stderr caught in memory (returned malloc()ed,
 * NUL-terminated; free them).  Sanitizer reports still go to file
 * descriptor 2. */
int fuzz_cli_run(int parse, int argc, char **argv, char **out, size_t *outlen,
		 char **err, size_t *errlen);

/* Checks what every CLI invocation must do: exit 0, 1 or 2 (77 for run
 * and bench), and on failure exactly one line on stderr that starts
 * with "mmagen: ". */
void fuzz_cli_check(int argc, char **argv, int rc, const char *err,
		    size_t errlen);

#endif
