/* replay.c - main() for a harness built without libFuzzer (-Dfuzz=false):
 * runs LLVMFuzzerTestOneInput once on each file named, or on each file of
 * each directory named, as libFuzzer does on a corpus.  Fails when it
 * found no input at all: an empty corpus tests nothing. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

/* harnesses that need no set-up leave it out */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static size_t runs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *b;

	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		exit(1);
	}
	b = malloc((size_t)st.st_size + 1);   /* its own block: ASan sees overreads */
	if (!b || fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(b, (size_t)st.st_size);
	free(b);
	runs++;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: no such file %s\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			run_file(argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		char path[4096];
		for (struct dirent *e; d && (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			run_file(path);
		}
		if (d)
			closedir(d);
	}
	printf("replay: %zu inputs\n", runs);
	return runs ? 0 : 1;
}
