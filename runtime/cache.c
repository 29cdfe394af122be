/* cache.c - the disk cache of compiled modules: key, directory, lookup.
 *
 * Knows nothing of CUDA: the caller passes a compile callback (the CUDA
 * layer links PTX to a cubin; tests pass a fake) and names in keyextra
 * whatever else changes the cubin (device, driver, JIT options).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the meaning of a key changes (what goes into it, or how the
 * CUDA layer builds cubins), so old entries are simply never found. */
static const char key_domain[] = "mmart-cache-key-v1";

void mmart_cache_key(const char *ptx, const char *keyextra, uint8_t key[32],
		     char name[72])
{
	static const char hex[] = "0123456789abcdef";
	mmart_sha256 s;

	/* The NULs keep the parts apart: ("ab", "c") != ("a", "bc"). */
	mmart_sha256_init(&s);
	mmart_sha256_update(&s, key_domain, sizeof key_domain);
	mmart_sha256_update(&s, ptx, strlen(ptx) + 1);
	mmart_sha256_update(&s, keyextra, strlen(keyextra) + 1);
	mmart_sha256_final(&s, key);
	for (int i = 0; i < 32; i++) {
		name[2 * i] = hex[key[i] >> 4];
		name[2 * i + 1] = hex[key[i] & 15];
	}
	memcpy(name + 64, ".cubin", sizeof ".cubin");
}

int mmart_cache_enabled(void)
{
	const char *v = getenv("MMAGEN_CACHE");

	return !(v && strcmp(v, "0") == 0);
}

mmart_status mmart_cache_default_dir(char *buf, size_t n)
{
	const char *v;
	int len;

	if (!buf || !n)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_cache_default_dir: no buffer");
	if ((v = getenv("MMAGEN_CACHE_DIR")) && v[0])
		len = snprintf(buf, n, "%s", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && v[0])
		len = snprintf(buf, n, "%s/mmagen", v);
	else if ((v = getenv("HOME")) && v[0])
		len = snprintf(buf, n, "%s/.cache/mmagen", v);
	else
		return mmart_set_error(MMART_IO, "no cache directory: none of "
				       "MMAGEN_CACHE_DIR, XDG_CACHE_HOME, HOME "
				       "is set");
	if (len < 0 || (size_t)len >= n)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "cache directory name too long");
	return MMART_OK;
}

/* mkdir -p; another process creating the same directories is fine. */
static int make_dirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		int r = mkdir(path, 0755);
		*p = c;
		if (r < 0 && errno != EEXIST)
			return -1;
		if (c == '\0')
			return 0;
	}
}

static mmart_status build(const char *ptx, mmart_compile_fn compile,
			  void *user, void **cubin, size_t *size)
{
	char *log = calloc(1, MMART_LOG_SIZE);
	mmart_status s;

	if (!log)
		return mmart_set_error(MMART_NO_MEMORY, "out of memory");
	*cubin = NULL;
	*size = 0;
	s = compile(user, ptx, cubin, size, log, MMART_LOG_SIZE);
	if (s == MMART_OK && (!*cubin || !*size)) {
		free(*cubin);
		*cubin = NULL;
		s = mmart_set_error(MMART_JIT, "compiler returned no cubin");
	} else if (s != MMART_OK) {
		log[MMART_LOG_SIZE - 1] = '\0';
		mmart_set_error(s, "%s", log[0] ? log : mmart_status_desc(s));
	}
	free(log);
	return s;
}

/* Whether the directory may be trusted with entries: it is ours and only
 * we can write it, else another user could plant an entry (a cubin we
 * would load) or swap one.  Not: one line in mmart_last_error(). */
static int dir_trusted(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		mmart_set_error(MMART_OK, "cache directory %s not used: %s", dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		mmart_set_error(MMART_OK, "cache directory %s not used: not a directory", dir);
	else if (st.st_uid != geteuid())
		mmart_set_error(MMART_OK, "cache directory %s not used: it belongs to uid %u, "
				"not to you (uid %u)", dir, (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		mmart_set_error(MMART_OK, "cache directory %s not used: group or others may "
				"write it (mode %03o); chmod go-w it", dir, (unsigned)st.st_mode & 0777);
	else
		return 1;
	return 0;
}

mmart_status mmart_cache_get_or_build(const char *dir, const char *ptx,
				      const char *keyextra,
				      mmart_compile_fn compile, void *user,
				      void **cubin, size_t *size, int *hit)
{
	char path[PATH_MAX], name[72];
	uint8_t key[32];
	mmart_status s;
	int dummy;
	size_t len;

	if (!hit)
		hit = &dummy;
	if (!ptx || !compile || !cubin || !size)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_cache_get_or_build: NULL "
				       "argument");
	if (!keyextra)
		keyextra = "";
	*hit = MMART_CACHE_BYPASS;
	if (!mmart_cache_enabled()) {
		mmart_set_error(MMART_OK, "%s", "");
		return build(ptx, compile, user, cubin, size);
	}
	if (!dir) {
		if (mmart_cache_default_dir(path, sizeof path) != MMART_OK)
			return build(ptx, compile, user, cubin, size);
		dir = path;
	}
	/* Measured before copying: the entry's name must fit after it. */
	len = strlen(dir);
	if (len + 1 + sizeof name > sizeof path) {
		mmart_set_error(MMART_OK, "cache directory not used: its name is longer "
				"than %zu bytes", sizeof path - 1 - sizeof name);
		return build(ptx, compile, user, cubin, size);
	}
	memmove(path, dir, len + 1);
	mmart_cache_key(ptx, keyextra, key, name);
	/* Trailing slashes would only make "dir//name". */
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (len == 0) {
		mmart_set_error(MMART_OK, "cache directory not used: empty name");
		return build(ptx, compile, user, cubin, size);
	}
	if (make_dirs(path) < 0) {
		mmart_set_error(MMART_OK, "cache directory %s not used: %s", path, strerror(errno));
		return build(ptx, compile, user, cubin, size);
	}
	/* each bypass leaves its reason in mmart_last_error() */
	if (!dir_trusted(path))
		return build(ptx, compile, user, cubin, size);
	path[len] = '/';
	memcpy(path + len + 1, name, sizeof name);
	if (mmart_entry_read(path, key, cubin, size) == 0) {
		*hit = MMART_CACHE_HIT;
		return MMART_OK;
	}
	s = build(ptx, compile, user, cubin, size);
	if (s != MMART_OK)
		return s;
	/* A store that fails (read-only or full disk) is no failure: the
	 * caller has its cubin, the next run just compiles again.  Stores
	 * are when temporaries of killed writers are swept. */
	path[len] = '\0';
	mmart_entry_sweep(path);
	path[len] = '/';
	if (mmart_entry_write(path, key, *cubin, *size) == 0) {
		*hit = MMART_CACHE_MISS;
	} else {
		path[len] = '\0';
		mmart_set_error(MMART_OK, "cubin not stored in cache directory %s: %s", path,
				strerror(errno));
	}
	return MMART_OK;
}

/* The entry for (ptx, keyextra) in dir (NULL: the default directory)
 * removed: the driver refused the cubin in it, and a later load should
 * compile afresh rather than read it again.  Best effort. */
void mmart_cache_forget(const char *dir, const char *ptx, const char *keyextra)
{
	char path[PATH_MAX], name[72];
	uint8_t key[32];

	if (!ptx || !mmart_cache_enabled())
		return;
	if (!dir) {
		if (mmart_cache_default_dir(path, sizeof path) != MMART_OK)
			return;
		dir = path;
	}
	size_t len = strlen(dir);
	if (len + 1 + sizeof name > sizeof path)
		return;
	memmove(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	mmart_cache_key(ptx, keyextra ? keyextra : "", key, name);
	path[len] = '/';
	memcpy(path + len + 1, name, sizeof name);
	unlink(path);
}
