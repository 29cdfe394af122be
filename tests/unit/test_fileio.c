/* test_fileio.c - mmagen_write_file(s) when the system fails under it.
 *
 * Linked with -Wl,--wrap for close, fclose, fsync and write, so that each
 * can be made to fail inside the library (an EIO on close is what NFS
 * gives).  After every failure: MMAGEN_IO naming the path, the old file
 * whole, no temporary left, and no descriptor or FILE closed twice (issue
 * 11, finding 3: a failed fclose was followed by a second one, a double
 * free).  Also the API's own refusals. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "mmagen.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the wrapped calls ---- */
enum { FAIL_NONE, FAIL_CLOSE, FAIL_FSYNC, FAIL_WRITE };
static int failing;            /* which call fails while armed */
static int armed;
static int twice;              /* a descriptor or FILE closed again */
static int closed[4096];       /* closes per descriptor while armed */
static FILE *last_fclosed;

int __real_close(int fd);
int __real_fclose(FILE *f);
int __real_fsync(int fd);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __wrap_close(int fd);
int __wrap_fclose(FILE *f);
int __wrap_fsync(int fd);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

int __wrap_close(int fd)
{
	int r;

	if (!armed)
		return __real_close(fd);
	if (fd >= 0 && fd < 4096 && closed[fd]++)
		twice = 1;
	r = __real_close(fd);
	if (failing == FAIL_CLOSE) {
		errno = EIO;
		return -1;
	}
	return r;
}

int __wrap_fclose(FILE *f)
{
	if (!armed)
		return __real_fclose(f);
	if (f == last_fclosed) {
		twice = 1;          /* freed already: never touch it again */
		errno = EBADF;
		return -1;
	}
	last_fclosed = f;
	if (fileno(f) >= 0 && fileno(f) < 4096)
		closed[fileno(f)]++;
	int r = __real_fclose(f);
	if (failing == FAIL_CLOSE) {
		errno = EIO;
		return -1;
	}
	return r;
}

int __wrap_fsync(int fd)
{
	if (armed && failing == FAIL_FSYNC) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (armed && failing == FAIL_WRITE && fd > 2) {
		errno = ENOSPC;
		return -1;
	}
	return __real_write(fd, buf, n);
}

/* ---- helpers ---- */
static char dir[] = "/tmp/mmagen-fileio-XXXXXX";

/* The names in dir, sorted, space-separated. */
static void listing(char *buf, size_t n)
{
	DIR *d = opendir(dir);
	char names[16][256];
	int k = 0;
	struct dirent *e;

	buf[0] = '\0';
	while (d && (e = readdir(d)) && k < 16)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(names[k++], sizeof names[0], "%s", e->d_name);
	if (d)
		closedir(d);
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char t[256];
				memcpy(t, names[i], sizeof t);
				memcpy(names[i], names[j], sizeof t);
				memcpy(names[j], t, sizeof t);
			}
	for (int i = 0; i < k; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? " " : "", names[i]);
}

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	__real_fclose(f);
}

static int holds(const char *name, const char *text)
{
	char p[256], buf[256] = "";
	FILE *f;
	size_t n;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (!(f = fopen(p, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	__real_fclose(f);
	return !strcmp(buf, text);
}

static void failing_call(int which, const char *what)
{
	char path[256], ls[1024];
	mmagen_status s;

	put("out.ptx", "old\n");
	snprintf(path, sizeof path, "%s/out.ptx", dir);
	memset(closed, 0, sizeof closed);
	twice = 0;
	last_fclosed = NULL;
	failing = which;
	armed = 1;
	s = mmagen_write_file(path, "new text\n", 9);
	armed = 0;
	failing = FAIL_NONE;
	listing(ls, sizeof ls);
	check(s == MMAGEN_IO, "%s fails: status %d, not MMAGEN_IO", what, (int)s);
	check(strstr(mmagen_last_error(), path) != NULL,
	      "%s: the message names the path: %s", what, mmagen_last_error());
	check(!twice, "%s: a descriptor or FILE was closed twice", what);
	check(!strcmp(ls, "out.ptx"), "%s: the directory holds '%s', not 'out.ptx'", what, ls);
	check(holds("out.ptx", "old\n"), "%s: the old file was changed", what);
}

int main(void)
{
	char a[256], b[256], ls[1024];
	mmagen_status s;

	if (!mkdtemp(dir)) {
		printf("FAIL: mkdtemp\n");
		return 1;
	}
	failing_call(FAIL_CLOSE, "close (EIO)");
	failing_call(FAIL_FSYNC, "fsync (EIO)");
	failing_call(FAIL_WRITE, "write (ENOSPC)");

	/* and without a failure, the same path works and leaves one file */
	snprintf(a, sizeof a, "%s/out.ptx", dir);
	memset(closed, 0, sizeof closed);
	armed = 1;
	s = mmagen_write_file(a, "new text\n", 9);
	armed = 0;
	listing(ls, sizeof ls);
	check(s == MMAGEN_OK && holds("out.ptx", "new text\n") && !strcmp(ls, "out.ptx") && !twice,
	      "a plain write: status %d, directory '%s': %s", (int)s, ls, mmagen_last_error());

	/* two outputs, one file: refused, nothing written */
	snprintf(a, sizeof a, "%s/pair", dir);
	snprintf(b, sizeof b, "%s/./pair", dir);
	{
		const char *paths[2] = { a, b }, *data[2] = { "x", "y" };
		size_t lens[2] = { 1, 1 };

		s = mmagen_write_files(2, paths, data, lens);
		listing(ls, sizeof ls);
		check(s == MMAGEN_INVALID_ARGUMENT && !strcmp(ls, "out.ptx"),
		      "pair and ./pair: status %d, directory '%s'", (int)s, ls);
		/* the second fails (no directory): the first is not written */
		snprintf(b, sizeof b, "%s/none/pair", dir);
		s = mmagen_write_files(2, paths, data, lens);
		listing(ls, sizeof ls);
		check(s == MMAGEN_IO && !strcmp(ls, "out.ptx") &&
		      strstr(mmagen_last_error(), "no directory") != NULL,
		      "pair and none/pair: status %d, directory '%s': %s", (int)s, ls,
		      mmagen_last_error());
		check(mmagen_write_files(0, NULL, NULL, NULL) == MMAGEN_OK, "no files: MMAGEN_OK");
		check(mmagen_write_files(1, NULL, data, lens) == MMAGEN_INVALID_ARGUMENT,
		      "NULL paths: MMAGEN_INVALID_ARGUMENT");
		check(mmagen_write_file("", "x", 1) == MMAGEN_INVALID_ARGUMENT,
		      "an empty path: MMAGEN_INVALID_ARGUMENT");
	}

	snprintf(a, sizeof a, "%s/out.ptx", dir);
	unlink(a);
	rmdir(dir);
	return check_summary();
}
