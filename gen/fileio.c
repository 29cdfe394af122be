/* fileio.c - writing output files the way GNU tools do (mmagen.h,
 * mmagen_write_files).
 *
 * Every path is classified first, with no side effect (resolve()):
 *   "-"                       standard output, descriptor 1, written directly
 *   /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N
 *                             descriptor N itself, written directly, so that
 *                             its offset and O_APPEND hold (also where a
 *                             symlink chain leads there: /dev/stdout)
 *   a character device, FIFO  opened and written directly: nothing there can
 *                             be replaced (/dev/null, a pipe's reader)
 *   a regular file, or a new name in an existing directory
 *                             "staged": written to a temporary beside it and
 *                             renamed over it once every output of the call
 *                             has been written
 *   a symbolic link           followed, link by link (at most 40), to the
 *                             name it ends at, which is then one of the
 *                             above; the links themselves stay
 *   anything else             refused with one line naming the path, before
 *                             anything is created: a directory, a path in a
 *                             directory that does not exist, a socket, a
 *                             block device
 *
 * Permissions: the temporary is created with open(O_CREAT | O_EXCL, 0666),
 * so the kernel applies the umask (and a directory's default ACL) exactly as
 * it does for the shell's `>`: a new file gets 0666 & ~umask.  The library
 * never calls umask(): the only way to read the mask with it is to set it,
 * and between the two calls every other thread of the process creates its
 * files with the temporary mask (0: world-writable).  A replaced file keeps
 * its permission bits and, where allowed, its owner and group: the
 * temporary is created with those bits (so the umask can only narrow them
 * and the data is never more exposed than the old file was), then set to
 * them exactly with fchmod.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINKS 40       /* the kernel's own limit on a chain */
#define NAME_LIMIT 255     /* NAME_MAX of Linux file systems */

enum out_kind {
	OUT_FD,            /* a descriptor the process already has */
	OUT_OPEN,          /* a device or FIFO: opened, written, closed */
	OUT_STAGED,        /* a regular file: temporary + rename */
};

struct out {
	const char *path;  /* as the caller gave it: every message names it */
	enum out_kind kind;
	int fd;            /* OUT_FD */
	char *target;      /* OUT_OPEN, OUT_STAGED: the name written at last */
	char *tmp;         /* OUT_STAGED: the temporary, once it exists */
	int exists;        /* OUT_STAGED: target is a file now */
	struct stat st;    /* OUT_STAGED: the target's when it exists, else
			    * its directory's */
};

static mmagen_status fail(const struct out *o, int err)
{
	return mmagen_set_error(MMAGEN_IO, "cannot write '%s': %s", o->path, strerror(err));
}

/* The directory part of a name ("." for none) in a new string. */
static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	if (!slash)
		return strdup(".");
	if (slash == name)
		return strdup("/");
	return strndup(name, (size_t)(slash - name));
}

static const char *base_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

/* A name of a descriptor of this process: *fd gets it. */
static int fd_name(const char *name, int *fd)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/",
					    "/proc/thread-self/fd/" };

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		size_t n = strlen(dirs[i]);
		const char *p = name + n;
		long v = 0;

		if (strncmp(name, dirs[i], n) || !*p || strspn(p, "0123456789") != strlen(p) ||
		    strlen(p) > 9)
			continue;
		for (; *p; p++)
			v = v * 10 + (*p - '0');
		*fd = (int)v;
		return 1;
	}
	return 0;
}

/* The target of symlink `link`, as a name relative to where we stand. */
static char *follow(const char *link)
{
	size_t cap = 256;
	char *buf = NULL;

	for (;;) {
		char *nb = realloc(buf, cap);
		ssize_t n;

		if (!nb)
			break;
		buf = nb;
		if ((n = readlink(link, buf, cap)) < 0)
			break;
		if ((size_t)n < cap) {
			buf[n] = '\0';
			if (buf[0] == '/' || !strchr(link, '/'))
				return buf;
			/* relative to the link's own directory */
			char *dir = dir_of(link), *full = NULL;
			size_t len = dir ? strlen(dir) + 1 + (size_t)n + 1 : 0;

			if (dir && (full = malloc(len)))
				snprintf(full, len, "%s/%s", dir, buf);
			free(dir);
			free(buf);
			return full;
		}
		cap *= 2;
	}
	free(buf);
	return NULL;
}

/* Classify o->path (see the top of the file); nothing is created. */
static mmagen_status resolve(struct out *o)
{
	size_t n = strlen(o->path);
	char *cur;

	if (!strcmp(o->path, "-")) {
		o->kind = OUT_FD;
		o->fd = 1;
		return MMAGEN_OK;
	}
	if (!n)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "empty output file name");
	if (o->path[n - 1] == '/')
		return mmagen_set_error(MMAGEN_IO, "cannot write '%s': it names a directory",
					o->path);
	if (!(cur = strdup(o->path)))
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	for (int links = 0;; links++) {
		struct stat st;
		int r;

		if (fd_name(cur, &o->fd)) {
			free(cur);
			o->kind = OUT_FD;
			return MMAGEN_OK;
		}
		r = lstat(cur, &st);
		if (r == 0 && S_ISLNK(st.st_mode)) {
			char *next;

			if (links == MAX_LINKS) {
				free(cur);
				return fail(o, ELOOP);
			}
			errno = 0;
			next = follow(cur);
			if (!next) {
				int e = errno ? errno : ENOMEM;
				free(cur);
				return fail(o, e);
			}
			free(cur);
			cur = next;
			continue;
		}
		o->target = cur;
		if (r < 0 && errno == ENOENT)
			break;      /* see below: a new file */
		if (r < 0)
			return fail(o, errno);
		if (S_ISREG(st.st_mode)) {
			o->kind = OUT_STAGED;
			o->exists = 1;
			o->st = st;
			return MMAGEN_OK;
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			o->kind = OUT_OPEN;
			return MMAGEN_OK;
		}
		if (S_ISDIR(st.st_mode))
			return mmagen_set_error(MMAGEN_IO, "cannot write '%s': it is a directory",
						o->path);
		return mmagen_set_error(MMAGEN_IO, "cannot write '%s': it is a %s, not a file",
					o->path, S_ISBLK(st.st_mode) ? "block device" : "socket");
	}
	/* A new file: its directory must exist. */
	char *dir = dir_of(o->target);
	int e = 0;

	if (!dir)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	if (stat(dir, &o->st))
		e = errno;
	else if (!S_ISDIR(o->st.st_mode))
		e = ENOTDIR;
	if (e == ENOENT || e == ENOTDIR)
		mmagen_set_error(MMAGEN_IO, "cannot write '%s': %s '%s'", o->path,
				 e == ENOENT ? "no directory" : "not a directory:", dir);
	else if (e)
		fail(o, e);
	free(dir);
	if (e)
		return MMAGEN_IO;
	o->kind = OUT_STAGED;
	o->exists = 0;
	return MMAGEN_OK;
}

/* Two staged outputs that would end in one file. */
static int same_file(const struct out *a, const struct out *b)
{
	if (a->exists != b->exists || a->st.st_dev != b->st.st_dev ||
	    a->st.st_ino != b->st.st_ino)
		return 0;
	return a->exists || !strcmp(base_of(a->target), base_of(b->target));
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* A new name for the temporary: 6 letters that differ between
 * processes, threads and calls; O_EXCL settles what is left to chance. */
static void fill_random(char *x, unsigned attempt)
{
	static const char abc[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static atomic_ulong calls;
	struct timespec ts;
	unsigned long long r;

	clock_gettime(CLOCK_REALTIME, &ts);
	r = (unsigned long long)ts.tv_nsec ^ (unsigned long long)ts.tv_sec << 30 ^
	    (unsigned long long)getpid() << 40 ^
	    (atomic_fetch_add(&calls, 1) + attempt) * 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 6; i++, r /= 62)
		x[i] = abc[r % 62];
}

/* Create the temporary beside the target, write the data and close it:
 * on any failure it is gone again. */
static mmagen_status stage(struct out *o, const char *data, size_t len)
{
	const char *base = base_of(o->target);
	char *dir = dir_of(o->target);
	size_t cap = (dir ? strlen(dir) : 0) + strlen(base) + 32;
	mode_t mode = o->exists ? o->st.st_mode & 0777 : 0666;
	int fd = -1, e;

	if (!dir || !(o->tmp = malloc(cap))) {
		free(dir);
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	}
	/* target.tmpXXXXXX, or a short name where that would be too long */
	if (strlen(base) + 10 > NAME_LIMIT)
		snprintf(o->tmp, cap, "%s/mmagen.tmpXXXXXX", dir);
	else
		snprintf(o->tmp, cap, "%s/%s.tmpXXXXXX", dir, base);
	free(dir);
	for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
		fill_random(o->tmp + strlen(o->tmp) - 6, attempt);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return fail(o, e);
	}
	if (o->exists) {
		/* the owner only where we may (root, or our own group) */
		if (fchown(fd, o->st.st_uid, o->st.st_gid) < 0)
			errno = 0;
		if (fchmod(fd, mode) < 0)
			goto bad;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0)
		goto bad;
	/* close once, whatever it says: a second close could close another
	 * thread's new descriptor */
	e = close(fd);
	fd = -1;
	if (e < 0)
		goto bad;
	return MMAGEN_OK;
bad:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return fail(o, e);
}

/* A descriptor, device or FIFO: written in place. */
static mmagen_status put(struct out *o, const char *data, size_t len)
{
	int fd = o->fd, e;

	if (o->kind == OUT_OPEN &&
	    (fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
		return fail(o, errno);
	e = write_all(fd, data, len) < 0 ? errno : 0;
	if (o->kind == OUT_OPEN && close(fd) < 0 && !e)
		e = errno;
	return e ? fail(o, e) : MMAGEN_OK;
}

mmagen_status mmagen_write_files(size_t n, const char *const *paths,
				 const char *const *data, const size_t *lens)
{
	struct out *o;
	mmagen_status s = MMAGEN_OK;

	if (n && (!paths || !data || !lens))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_write_files: NULL argument");
	for (size_t i = 0; i < n; i++)
		if (!paths[i] || (!data[i] && lens[i]))
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
						"mmagen_write_files: NULL path or data");
	if (!n)
		return MMAGEN_OK;
	if (!(o = calloc(n, sizeof *o)))
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < n && !s; i++) {
		o[i].path = paths[i];
		s = resolve(&o[i]);
	}
	for (size_t i = 0; i < n && !s; i++)
		for (size_t j = 0; j < i && !s; j++)
			if (o[i].kind == OUT_STAGED && o[j].kind == OUT_STAGED &&
			    same_file(&o[i], &o[j]))
				s = mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"'%s' and '%s' are one file; give two files", paths[j], paths[i]);
	/* files first, so that a full disk sends nothing down a pipe */
	for (size_t i = 0; i < n && !s; i++)
		if (o[i].kind == OUT_STAGED)
			s = stage(&o[i], data[i], lens[i]);
	for (size_t i = 0; i < n && !s; i++)
		if (o[i].kind != OUT_STAGED)
			s = put(&o[i], data[i], lens[i]);
	for (size_t i = 0; i < n && !s; i++)
		if (o[i].tmp && rename(o[i].tmp, o[i].target) < 0)
			s = fail(&o[i], errno);
		else if (o[i].tmp) {
			free(o[i].tmp);
			o[i].tmp = NULL;
		}
	for (size_t i = 0; i < n; i++) {
		if (o[i].tmp)
			unlink(o[i].tmp);
		free(o[i].tmp);
		free(o[i].target);
	}
	free(o);
	return s;
}

mmagen_status mmagen_write_file(const char *path, const char *data, size_t len)
{
	return mmagen_write_files(1, &path, &data, &len);
}
