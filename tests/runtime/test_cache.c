/* test_cache.c - the disk cache layer, with a fake compiler: no driver.
 *
 * Decided behaviour under test: a cache directory that cannot be created
 * or written is no error; the cubin is built, returned with MMART_OK and
 * reported as MMART_CACHE_BYPASS.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_DETAIL() mmart_last_error()
#include "../unit/check.h"

/* ---- the fake compiler: a deterministic, PTX-dependent "cubin" ---- */
struct fake {
	int calls;
	int delay_us;
	int fail;       /* return MMART_JIT with a log */
};

static size_t expected(const char *ptx, unsigned char **out)
{
	uint64_t x = mmart_fnv1a64(ptx, strlen(ptx)) | 1;
	size_t n = 1000 + strlen(ptx) * 3;
	unsigned char *p = malloc(n);

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
	*out = p;
	return n;
}

static mmart_status fake_compile(void *user, const char *ptx, void **cubin,
				 size_t *size, char *log, size_t logsize)
{
	struct fake *f = user;
	unsigned char *p;

	f->calls++;
	if (f->delay_us)
		usleep((useconds_t)f->delay_us);
	if (f->fail) {
		snprintf(log, logsize, "ptxas fake input, line 3; error   : "
			 "Unknown symbol 'bogus'");
		return MMART_JIT;
	}
	*size = expected(ptx, &p);
	*cubin = p;
	return MMART_OK;
}

/* get_or_build and check the bytes against the fake's output. */
static int get(const char *dir, const char *ptx, const char *extra,
	       struct fake *f, int *hit)
{
	void *cubin = NULL;
	size_t size = 0;
	unsigned char *want;
	size_t n = expected(ptx, &want);
	mmart_status s;
	int ok;

	*hit = -1;
	s = mmart_cache_get_or_build(dir, ptx, extra, fake_compile, f, &cubin,
				     &size, hit);
	ok = s == MMART_OK && size == n && memcmp(cubin, want, n) == 0;
	if (s != MMART_OK)
		fprintf(stderr, "get: %s: %s\n", mmart_status_str(s),
			mmart_last_error());
	mmart_host_free(cubin);
	free(want);
	return ok;
}

static void entry_path(char *buf, size_t n, const char *dir, const char *ptx,
		       const char *extra)
{
	uint8_t key[32];
	char name[72];

	mmart_cache_key(ptx, extra, key, name);
	snprintf(buf, n, "%s/%s", dir, name);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Counts entries ending in `suffix`, and temporaries ("*.tmp.*"). */
static int count(const char *dir, const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strstr(e->d_name, what))
			n++;
	closedir(d);
	return n;
}

static void test_sha256(void)
{
	static const struct { const char *msg, *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb924"
		      "27ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223"
			 "b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039"
		  "a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[65];
	uint8_t d[32];
	mmart_sha256 s;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		mmart_sha256_init(&s);
		/* Fed in odd pieces, to cross block boundaries. */
		for (const char *p = v[i].msg; *p; p++)
			mmart_sha256_update(&s, p, 1);
		mmart_sha256_final(&s, d);
		for (int j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", d[j]);
		CHECK_EXPR(strcmp(hex, v[i].hex) == 0);
	}
	/* One million 'a's: many whole blocks in one update. */
	{
		char *m = malloc(1000000);

		memset(m, 'a', 1000000);
		mmart_sha256_init(&s);
		mmart_sha256_update(&s, m, 3);
		mmart_sha256_update(&s, m, 1000000 - 3);
		mmart_sha256_final(&s, d);
		for (int j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", d[j]);
		CHECK_EXPR(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
				  "f1809a48a497200e046d39ccc7112cd0") == 0);
		free(m);
	}
	CHECK_EXPR(mmart_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
}

static const char *ptx1 = ".version 7.0\n.target sm_80\n// one\n";
static const char *ptx2 = ".version 7.0\n.target sm_80\n// two\n";

static void test_hit_after_miss(const char *dir)
{
	struct fake f = { 0 };
	int hit;

	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(f.calls == 1);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	CHECK_EXPR(f.calls == 1);
	/* Other PTX, other keyextra, parts split differently: other keys. */
	CHECK_EXPR(get(dir, ptx2, "sm_90", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(get(dir, ptx1, "sm_80", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(get(dir, ptx1, "", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(f.calls == 4);
	CHECK_EXPR(count(dir, ".cubin") == 4);
	CHECK_EXPR(get(dir, ptx2, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	CHECK_EXPR(f.calls == 4);
}

/* A cubin the driver refused is forgotten: its entry goes, the next get
 * compiles again (module.c calls this when cuModuleLoadData refuses) */
static void test_forget(const char *dir)
{
	struct fake f = { 0 };
	char path[4096];
	int hit;

	entry_path(path, sizeof path, dir, ptx2, "forget");
	CHECK_EXPR(get(dir, ptx2, "forget", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(access(path, F_OK) == 0);
	mmart_cache_forget(dir, ptx2, "other");          /* another key: stays */
	CHECK_EXPR(access(path, F_OK) == 0);
	mmart_cache_forget(dir, ptx2, "forget");
	CHECK(access(path, F_OK) != 0, "entry %s still there after forget", path);
	CHECK_EXPR(get(dir, ptx2, "forget", &f, &hit) && hit == MMART_CACHE_MISS && f.calls == 2);
	CHECK_EXPR(get(dir, ptx2, "forget", &f, &hit) && hit == MMART_CACHE_HIT && f.calls == 2);
	mmart_cache_forget(dir, NULL, "forget");         /* no PTX: nothing */
	CHECK_EXPR(access(path, F_OK) == 0);
}

/* Damages the entry of ptx1 with `damage`, then expects one rebuild that
 * repairs the file, then a hit. */
static void expect_repair(const char *dir, const char *what,
			  void (*damage)(const char *path))
{
	struct fake f = { 0 };
	char path[4096];
	long full;
	int hit;

	entry_path(path, sizeof path, dir, ptx1, "sm_90");
	full = file_size(path);
	CHECK_EXPR(full > 64);
	damage(path);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_MISS);
	if (f.calls != 1 || file_size(path) != full)
		fprintf(stderr, "repair after %s failed\n", what);
	CHECK_EXPR(f.calls == 1);
	CHECK_EXPR(file_size(path) == full);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	CHECK_EXPR(f.calls == 1);
}

static void cut(const char *path, long n)
{
	CHECK_EXPR(truncate(path, n) == 0);
}
static void cut_payload(const char *p) { cut(p, file_size(p) - 1); }
static void cut_header(const char *p) { cut(p, 30); }
static void cut_empty(const char *p) { cut(p, 0); }

static void flip(const char *path, long at)
{
	FILE *fp = fopen(path, "r+b");
	int c;

	CHECK_EXPR(fp != NULL);
	if (!fp)
		return;
	fseek(fp, at, SEEK_SET);
	c = fgetc(fp);
	fseek(fp, at, SEEK_SET);
	fputc(c ^ 0x40, fp);
	fclose(fp);
}
static void flip_payload(const char *p) { flip(p, file_size(p) / 2 + 32); }
static void flip_magic(const char *p) { flip(p, 1); }
static void flip_key(const char *p) { flip(p, 40); }
static void flip_size(const char *p) { flip(p, 16); }
static void grow(const char *path)
{
	FILE *fp = fopen(path, "ab");

	CHECK_EXPR(fp != NULL);
	if (fp) {
		fputc('x', fp);
		fclose(fp);
	}
}

static void test_corrupt(const char *dir)
{
	expect_repair(dir, "truncated payload", cut_payload);
	expect_repair(dir, "truncated header", cut_header);
	expect_repair(dir, "empty file", cut_empty);
	expect_repair(dir, "corrupt payload", flip_payload);
	expect_repair(dir, "corrupt magic", flip_magic);
	expect_repair(dir, "corrupt key", flip_key);
	expect_repair(dir, "corrupt size", flip_size);
	expect_repair(dir, "trailing garbage", grow);
}

static void test_disabled(const char *dir)
{
	struct fake f = { 0 };
	int before = count(dir, ".cubin"), hit;

	setenv("MMAGEN_CACHE", "0", 1);
	CHECK_EXPR(get(dir, "// off", "", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(get(dir, "// off", "", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(mmart_last_error()[0] == '\0');  /* off on purpose: no reason to tell */
	/* Even an existing entry is not read. */
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(f.calls == 3);
	CHECK_EXPR(count(dir, ".cubin") == before);
	unsetenv("MMAGEN_CACHE");
	/* Any other value means on. */
	setenv("MMAGEN_CACHE", "1", 1);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	unsetenv("MMAGEN_CACHE");
}

static void test_unwritable(const char *top)
{
	struct fake f = { 0 };
	char file[2048], dir[4096];
	FILE *fp;
	int hit;

	/* A regular file on the path: mkdir fails even for root. */
	snprintf(file, sizeof file, "%s/plainfile", top);
	fp = fopen(file, "w");
	CHECK_EXPR(fp != NULL);
	if (fp)
		fclose(fp);
	snprintf(dir, sizeof dir, "%s/sub/cache", file);
	CHECK_EXPR(get(dir, ptx1, "", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(get(dir, ptx1, "", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(f.calls == 2);

	/* A directory without write permission (root ignores it). */
	if (geteuid() != 0) {
		snprintf(dir, sizeof dir, "%s/readonly", top);
		CHECK_EXPR(mkdir(dir, 0500) == 0);
		CHECK_EXPR(get(dir, ptx1, "", &f, &hit) && hit == MMART_CACHE_BYPASS);
		CHECK_EXPR(f.calls == 3);
		CHECK_EXPR(count(dir, ".") == 2); /* "." and ".." only */
		chmod(dir, 0700);
	}
}

static void test_compile_error(const char *dir)
{
	struct fake f = { .fail = 1 };
	void *cubin = (void *)1;
	size_t size = 1;
	int before = count(dir, ".cubin"), hit;
	mmart_status s;

	s = mmart_cache_get_or_build(dir, "// bad", "", fake_compile, &f,
				     &cubin, &size, &hit);
	CHECK_EXPR(s == MMART_JIT);
	CHECK_EXPR(strstr(mmart_last_error(), "line 3; error") != NULL);
	CHECK_EXPR(cubin == NULL && f.calls == 1);
	CHECK_EXPR(count(dir, ".cubin") == before);
	s = mmart_cache_get_or_build(dir, "// bad", "", NULL, &f, &cubin,
				     &size, &hit);
	CHECK_EXPR(s == MMART_INVALID_ARGUMENT);
}

static void test_default_dir(const char *dir)
{
	char buf[4096];
	struct fake f = { 0 };
	int hit;

	setenv("MMAGEN_CACHE_DIR", "/a/b", 1);
	CHECK_EXPR(mmart_cache_default_dir(buf, sizeof buf) == MMART_OK
	      && strcmp(buf, "/a/b") == 0);
	unsetenv("MMAGEN_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/x", 1);
	CHECK_EXPR(mmart_cache_default_dir(buf, sizeof buf) == MMART_OK
	      && strcmp(buf, "/x/mmagen") == 0);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	CHECK_EXPR(mmart_cache_default_dir(buf, sizeof buf) == MMART_OK
	      && strcmp(buf, "/h/.cache/mmagen") == 0);
	CHECK_EXPR(mmart_cache_default_dir(buf, 4) == MMART_INVALID_ARGUMENT);
	/* dir == NULL follows the environment. */
	setenv("MMAGEN_CACHE_DIR", dir, 1);
	CHECK_EXPR(get(NULL, ptx2, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	CHECK_EXPR(f.calls == 0);
	unsetenv("MMAGEN_CACHE_DIR");
}

/* ---- concurrent writers ---- */
#define NKEYS 50
#define NPROCS 4

static void key_ptx(char *buf, size_t n, int i)
{
	snprintf(buf, n, ".version 7.0\n.target sm_80\n// kernel %d\n", i);
}

static int writer(const char *dir, int go_fd)
{
	struct fake f = { .delay_us = 2000 };
	char ptx[128], c;
	int ok = 1, hit;

	if (read(go_fd, &c, 1) != 1)
		return 1;
	for (int i = 0; i < NKEYS; i++) {
		key_ptx(ptx, sizeof ptx, i);
		if (!get(dir, ptx, "race", &f, &hit)
		    || (hit != MMART_CACHE_MISS && hit != MMART_CACHE_HIT))
			ok = 0;
	}
	return ok ? 0 : 1;
}

static void test_concurrent(const char *top)
{
	char dir[4096], ptx[128];
	pid_t pid[NPROCS];
	struct fake f = { 0 };
	int go[2], status, hit, hits = 0;

	snprintf(dir, sizeof dir, "%s/race/nested", top);
	CHECK_EXPR(pipe(go) == 0);
	for (int p = 0; p < NPROCS; p++) {
		pid[p] = fork();
		CHECK_EXPR(pid[p] >= 0);
		if (pid[p] == 0) {
			close(go[1]);
			_exit(writer(dir, go[0]));
		}
	}
	/* Release them together: all create the directory and race on the
	 * same keys in the same order. */
	close(go[0]);
	for (int p = 0; p < NPROCS; p++)
		CHECK_EXPR(write(go[1], "g", 1) == 1);
	close(go[1]);
	for (int p = 0; p < NPROCS; p++) {
		CHECK_EXPR(waitpid(pid[p], &status, 0) == pid[p]);
		CHECK_EXPR(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (int i = 0; i < NKEYS; i++) {
		key_ptx(ptx, sizeof ptx, i);
		CHECK_EXPR(get(dir, ptx, "race", &f, &hit));
		hits += hit == MMART_CACHE_HIT;
	}
	CHECK_EXPR(hits == NKEYS && f.calls == 0);
	CHECK_EXPR(count(dir, ".cubin") == NKEYS);
	CHECK_EXPR(count(dir, ".tmp.") == 0);
}

/* Readers must never see a partial entry while writers replace entries:
 * once a name exists it is a whole entry (write to temporary + rename).
 * Two processes rewrite 50 entries over and over; a third checks that
 * every entry that exists reads back valid. */
static int rewriter(const char *dir, int rounds)
{
	char path[4200], ptx[128];
	unsigned char *payload;
	uint8_t key[32];
	char name[72];

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < NKEYS; i++) {
			key_ptx(ptx, sizeof ptx, i + 1000);
			mmart_cache_key(ptx, "rewrite", key, name);
			snprintf(path, sizeof path, "%s/%s", dir, name);
			size_t n = expected(ptx, &payload);
			int rc = mmart_entry_write(path, key, payload, n);

			free(payload);
			if (rc)
				return 1;
		}
	return 0;
}

static int checker(const char *dir, int stop_fd)
{
	char path[4200], ptx[128], name[72], c;
	uint8_t key[32];
	struct stat st;
	void *p;
	size_t n;
	int bad = 0, seen = 0;

	/* Until the parent closes the pipe: read() then returns 0. */
	while (read(stop_fd, &c, 1) != 0)
		for (int i = 0; i < NKEYS; i++) {
			key_ptx(ptx, sizeof ptx, i + 1000);
			mmart_cache_key(ptx, "rewrite", key, name);
			snprintf(path, sizeof path, "%s/%s", dir, name);
			if (stat(path, &st) != 0)
				continue;
			seen++;
			if (mmart_entry_read(path, key, &p, &n) != 0)
				bad++;
			else
				free(p);
		}
	if (bad)
		fprintf(stderr, "checker: %d of %d reads saw a partial "
			"entry\n", bad, seen);
	return bad || !seen;
}

static void test_atomic_rewrite(const char *top)
{
	char dir[4096];
	pid_t w[2], chk;
	int stop[2], status;

	snprintf(dir, sizeof dir, "%s/rewrite", top);
	CHECK_EXPR(mkdir(dir, 0755) == 0);
	CHECK_EXPR(pipe(stop) == 0);
	/* The checker's read() must not block: the write end stays open
	 * (and empty) in the parent, so use a non-blocking pipe. */
	CHECK_EXPR(fcntl(stop[0], F_SETFL, O_NONBLOCK) == 0);
	chk = fork();
	if (chk == 0) {
		close(stop[1]);
		_exit(checker(dir, stop[0]));
	}
	close(stop[0]);
	for (int p = 0; p < 2; p++) {
		w[p] = fork();
		if (w[p] == 0)
			_exit(rewriter(dir, 20));
	}
	for (int p = 0; p < 2; p++) {
		CHECK_EXPR(waitpid(w[p], &status, 0) == w[p]);
		CHECK_EXPR(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(stop[1]);
	CHECK_EXPR(waitpid(chk, &status, 0) == chk);
	CHECK_EXPR(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EXPR(count(dir, ".cubin") == NKEYS);
	CHECK_EXPR(count(dir, ".tmp.") == 0);
}


/* ---- what the directory holds is not trusted (issue 11) ---- */

/* An entry file for (ptx, extra) in dir whose payload is n zero bytes,
 * with the right checksum: FNV-1a 64 of zeros is basis * prime^n, so no
 * buffer is needed; the file is sparse. */
static void plant_zeros(const char *dir, const char *ptx, const char *extra, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, p = 0x100000001b3ull;
	unsigned char hd[64] = { 'M', 'M', 'A', 'R', 'T', 'C', 'U', 'B', 1, 0, 0, 0, 64 };
	char path[4200], name[72];
	uint8_t key[32];
	int fd;

	for (uint64_t e = n; e; e >>= 1, p *= p)
		if (e & 1)
			h *= p;
	mmart_cache_key(ptx, extra, key, name);
	for (int i = 0; i < 8; i++) {
		hd[16 + i] = (unsigned char)(n >> 8 * i);
		hd[24 + i] = (unsigned char)(h >> 8 * i);
	}
	memcpy(hd + 32, key, 32);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EXPR(fd >= 0 && write(fd, hd, 64) == 64 && ftruncate(fd, (off_t)(64 + n)) == 0);
	if (fd >= 0)
		close(fd);
}

/* A dir longer than PATH_MAX: the cubin, bypassed, no crash (the old
 * code read and wrote path[len - 1] with snprintf's untruncated len). */
static void test_long_dir(const char *top)
{
	static const size_t lens[] = { PATH_MAX - 80, PATH_MAX - 1, PATH_MAX, PATH_MAX + 70,
				       100000, 1 << 20 };
	struct fake f = { 0 };
	int hit;

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		char *d = malloc(lens[i] + 1);

		/* under a regular file (test_unwritable's): never creatable;
		 * then slashes, which the old code trimmed */
		memset(d, '/', lens[i]);
		memcpy(d, top, strlen(top));
		memcpy(d + strlen(top), "/plainfile/x", 12);
		d[lens[i]] = '\0';
		CHECK_EXPR(get(d, ptx1, "long", &f, &hit) && hit == MMART_CACHE_BYPASS);
		free(d);
	}
	CHECK_EXPR(f.calls == (int)ARRAY_SIZE(lens));
}

/* A directory others may write, or another user's: not used, even for
 * an entry planted there that would be valid. */
static void test_untrusted_dir(const char *top, const char *good)
{
	char dir[4096], from[4200], to[4200], name[72];
	struct fake f = { 0 };
	uint8_t key[32];
	int hit;

	snprintf(dir, sizeof dir, "%s/shared", top);
	CHECK_EXPR(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0);
	/* a valid entry of ptx1, copied in */
	mmart_cache_key(ptx1, "sm_90", key, name);
	snprintf(from, sizeof from, "%s/%s", good, name);
	snprintf(to, sizeof to, "%s/%s", dir, name);
	CHECK_EXPR(link(from, to) == 0);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(f.calls == 1);
	CHECK_EXPR(strstr(mmart_last_error(), "group or others may write it (mode 777)") != NULL);
	CHECK_EXPR(chmod(dir, 0720) == 0);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_BYPASS);
	CHECK_EXPR(chmod(dir, 0755) == 0);
	CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_HIT);
	CHECK_EXPR(f.calls == 2);
	if (geteuid() == 0) {
		/* root and a directory another user made in advance */
		CHECK_EXPR(chown(dir, 4242, 4242) == 0);
		CHECK_EXPR(get(dir, ptx1, "sm_90", &f, &hit) && hit == MMART_CACHE_BYPASS);
		CHECK_EXPR(strstr(mmart_last_error(), "belongs to uid 4242") != NULL);
		CHECK_EXPR(f.calls == 3);
	}
}

/* An entry that is a symlink, a FIFO or too big: rebuilt and replaced by
 * a regular file, never followed, never waited on, never read whole. */
static void test_odd_entries(const char *top, const char *dir)
{
	char other[4096], path[4200], target[4300];
	struct fake f = { 0 };
	struct stat st;
	int hit;

	/* a symlink to a valid entry of the same key elsewhere */
	snprintf(other, sizeof other, "%s/other", top);
	CHECK_EXPR(get(other, "// linked", "", &f, &hit) && hit == MMART_CACHE_MISS);
	entry_path(target, sizeof target, other, "// linked", "");
	entry_path(path, sizeof path, dir, "// linked", "");
	CHECK_EXPR(symlink(target, path) == 0);
	CHECK_EXPR(get(dir, "// linked", "", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EXPR(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EXPR(f.calls == 2);

	/* a FIFO: the old reader blocked in open() forever */
	entry_path(path, sizeof path, dir, "// fifo", "");
	CHECK_EXPR(mkfifo(path, 0644) == 0);
	alarm(20);
	CHECK_EXPR(get(dir, "// fifo", "", &f, &hit) && hit == MMART_CACHE_MISS);
	alarm(0);
	CHECK_EXPR(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EXPR(f.calls == 3);

	/* a valid entry (checksum right) over the size cap: not trusted */
	plant_zeros(dir, "// huge", "", ((uint64_t)256 << 20) + 1);
	CHECK_EXPR(get(dir, "// huge", "", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(f.calls == 4);
	/* and one just under the cap still is (the reader's own check) */
	plant_zeros(dir, "// small", "", 4096);
	{
		void *cubin = NULL;
		size_t size = 0;

		CHECK_EXPR(mmart_cache_get_or_build(dir, "// small", "", fake_compile, &f,
						    &cubin, &size, &hit) == MMART_OK);
		CHECK_EXPR(hit == MMART_CACHE_HIT && size == 4096 && f.calls == 4);
		mmart_host_free(cubin);
	}
}

/* Temporaries of killed writers go once they are old; others stay. */
static void test_stale_temporaries(const char *dir)
{
	static const char hex64[] =
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char stale[4300], fresh[4300], other[4300];
	struct timespec old[2] = { { time(NULL) - 7200, 0 }, { time(NULL) - 7200, 0 } };
	struct fake f = { 0 };
	int hit, fd;

	snprintf(stale, sizeof stale, "%s/%s.cubin.tmp.AbC123", dir, hex64);
	snprintf(fresh, sizeof fresh, "%s/%s.cubin.tmp.XyZ789", dir, hex64);
	snprintf(other, sizeof other, "%s/notes.cubin.tmp.AbC123", dir);
	const char *files[] = { stale, fresh, other };
	for (int i = 0; i < 3; i++) {
		fd = open(files[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK_EXPR(fd >= 0 && write(fd, "x", 1) == 1);
		if (fd >= 0) {
			if (i != 1)
				CHECK_EXPR(futimens(fd, old) == 0);
			close(fd);
		}
	}
	CHECK_EXPR(get(dir, "// sweep", "", &f, &hit) && hit == MMART_CACHE_MISS);
	CHECK_EXPR(access(stale, F_OK) != 0);
	CHECK_EXPR(access(fresh, F_OK) == 0);
	CHECK_EXPR(access(other, F_OK) == 0);
	unlink(fresh);
	unlink(other);
}

static int rm(const char *path, const struct stat *st, int flag,
	      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	char top[] = "/tmp/mmart-test-cache-XXXXXX", dir[4096];

	unsetenv("MMAGEN_CACHE");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s/cache/", top); /* trailing '/' on purpose */

	test_sha256();
	test_hit_after_miss(dir);
	test_forget(dir);
	test_corrupt(dir);
	test_disabled(dir);
	test_unwritable(top);
	test_compile_error(dir);
	test_default_dir(dir);
	test_concurrent(top);
	test_atomic_rewrite(top);
	test_long_dir(top);
	test_untrusted_dir(top, dir);
	test_odd_entries(top, dir);
	test_stale_temporaries(dir);
	CHECK_EXPR(count(dir, ".tmp.") == 0);

	nftw(top, rm, 16, FTW_DEPTH | FTW_PHYS);
	if (failed) {
		fprintf(stderr, "%lu check(s) failed\n", failed);
		return 1;
	}
	printf("cache: all checks passed\n");
	return 0;
}
