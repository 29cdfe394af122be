/* cache_file.c - one cache entry on disk: a header, then the cubin.
 *
 * Layout, little-endian, 64 bytes of header:
 *   0  magic "MMARTCUB"
 *   8  u32 format version (ENTRY_VERSION)
 *  12  u32 header size (64)
 *  16  u64 payload size
 *  24  u64 FNV-1a 64 of the payload
 *  32  32 bytes: the key (SHA-256) the entry answers
 *  64  payload
 * A reader trusts an entry only if every field matches and the file is
 * exactly header + payload long, so a torn write, a truncated or damaged
 * file, or one copied under another name reads as absent and is rebuilt.
 * Writers never touch a visible entry: they write a private temporary
 * file and rename() it over, which is atomic, so concurrent writers of
 * one key both succeed and readers see an old or a new entry, whole.
 * What is in the directory is not trusted further than that: an entry is
 * opened without following a symlink and without blocking (a FIFO), must
 * be a regular file, and is never larger than ENTRY_MAX, so that a planted
 * file costs neither a hang nor gigabytes read before the checksum.
 * Temporaries that a killed writer left are removed once they are an hour
 * old (mmart_entry_sweep); a live writer holds its temporary for
 * milliseconds.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_VERSION 1
#define HEADER_SIZE 64
/* No cubin of one module comes near this; a bigger file is not ours. */
#define ENTRY_MAX ((uint64_t)256 << 20)
#define STALE_SECONDS 3600
static const char magic[8] = { 'M', 'M', 'A', 'R', 'T', 'C', 'U', 'B' };

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
	       | (uint32_t)p[3] << 24;
}

/* Reads exactly n bytes unless the file ends first; -1 on error. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const void *buf, size_t n)
{
	while (n) {
		ssize_t r = write(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		buf = (const char *)buf + r;
		n -= (size_t)r;
	}
	return 0;
}

int mmart_entry_read(const char *path, const uint8_t key[32], void **payload,
		     size_t *size)
{
	uint8_t h[HEADER_SIZE];
	struct stat st;
	uint64_t n;
	void *buf = NULL;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > HEADER_SIZE + ENTRY_MAX ||
	    read_full(fd, h, sizeof h) != sizeof h)
		goto out;
	n = get64(h + 16);
	if (memcmp(h, magic, 8) || get32(h + 8) != ENTRY_VERSION
	    || get32(h + 12) != HEADER_SIZE || memcmp(h + 32, key, 32)
	    || (uint64_t)st.st_size != HEADER_SIZE + n || n == 0
	    || n > ENTRY_MAX)
		goto out;
	buf = malloc((size_t)n);
	if (!buf || read_full(fd, buf, (size_t)n) != (ssize_t)n
	    || mmart_fnv1a64(buf, (size_t)n) != get64(h + 24))
		goto out;
	*payload = buf;
	*size = (size_t)n;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int mmart_entry_write(const char *path, const uint8_t key[32],
		      const void *payload, size_t size)
{
	uint8_t h[HEADER_SIZE] = { 0 };
	size_t len = strlen(path);
	char *tmp;
	int fd, err;

	if (size > ENTRY_MAX) {
		errno = EFBIG;
		return -1;
	}
	/* Same directory, so rename() stays on one file system; mkstemp makes
	 * the name unique among concurrent writers. */
	tmp = malloc(len + sizeof ".tmp.XXXXXX");
	if (!tmp)
		return -1;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	memcpy(h, magic, 8);
	put32(h + 8, ENTRY_VERSION);
	put32(h + 12, HEADER_SIZE);
	put64(h + 16, size);
	put64(h + 24, mmart_fnv1a64(payload, size));
	memcpy(h + 32, key, 32);
	/* No fsync: after a crash a torn entry fails its checksum and is
	 * rebuilt, which costs less than syncing every store. */
	if (write_full(fd, h, sizeof h) < 0
	    || write_full(fd, payload, size) < 0) {
		err = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		err = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = err;
	return -1;
}

/* "<64 hex digits>.cubin.tmp.XXXXXX": a temporary of mmart_entry_write. */
static int is_temporary(const char *name)
{
	return strlen(name) == 64 + sizeof ".cubin.tmp.XXXXXX" - 1 &&
	       strspn(name, "0123456789abcdef") == 64 &&
	       !strncmp(name + 64, ".cubin.tmp.", sizeof ".cubin.tmp." - 1);
}

void mmart_entry_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (!is_temporary(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    st.st_mtime < now - STALE_SECONDS)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}
