/* fileio.c - atomic file output: write a temporary beside the target, then
 * rename; on any failure the temporary is removed and the target untouched. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mmagen_status mmagen_write_file(const char *path, const char *data, size_t len)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	FILE *f;
	int fd;

	if (!tmp)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		mmagen_status s = mmagen_set_error(MMAGEN_IO,
			"cannot create %s: %s", path, strerror(errno));
		free(tmp);
		return s;
	}
	f = fdopen(fd, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fflush(f) || fsync(fd) ||
	    fclose(f)) {
		int e = errno;
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(tmp);
		free(tmp);
		return mmagen_set_error(MMAGEN_IO, "cannot write %s: %s", path,
					strerror(e));
	}
	/* mkstemp makes 0600; give the file the usual permissions. */
	mode_t um = umask(0);
	umask(um);
	chmod(tmp, 0666 & ~um);
	if (rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		return mmagen_set_error(MMAGEN_IO, "cannot write %s: %s", path,
					strerror(e));
	}
	free(tmp);
	return MMAGEN_OK;
}
