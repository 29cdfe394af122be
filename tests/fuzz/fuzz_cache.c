/* fuzz_cache.c - the disk cache's entry reader (runtime/cache.c and
 * cache_file.c) through mmart_cache_get_or_build, on entries written here.
 *
 * At start one real entry is made (a fake compiler, a directory of our
 * own, mode 0700) and its layout checked against the format that
 * cache_file.c documents: 64 bytes of header ("MMARTCUB", u32 version 1,
 * u32 header size 64, u64 payload size, u64 FNV-1a 64 of the payload,
 * the 32-byte key), then the payload.  Each input then replaces that
 * entry.  Byte 0 says which header fields to set right after copying the
 * input in (bit 0 magic, 1 version, 2 header size, 3 payload size, 4
 * checksum, 5 key), so that the fuzzer reaches past each check; the rest
 * is the file.  Checked: the call succeeds; the cache answers HIT exactly
 * when the file is a valid entry (by this file's own reading of the
 * format), with its payload; otherwise it returns the compiler's cubin
 * and leaves a valid entry holding it. */
#define _GNU_SOURCE
#include "fuzz.h"

#include "mmart.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER 64
static const char ptx[] = "// fuzz_cache: any text; the fake compiler does not read it\n";
static const uint8_t cubin[] = "fake cubin from fuzz_cache";
static char dir[4096], entry[4400];
static uint8_t key[32];

static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* 1 when b[0..n) is a valid entry for our key. */
static int valid(const uint8_t *b, size_t n)
{
	return n > HEADER && !memcmp(b, "MMARTCUB", 8) && get_le(b + 8, 4) == 1 &&
	       get_le(b + 12, 4) == HEADER && get_le(b + 16, 8) == n - HEADER &&
	       get_le(b + 24, 8) == fnv1a64(b + HEADER, n - HEADER) &&
	       !memcmp(b + 32, key, 32);
}

static mmart_status fake_compile(void *user, const char *p, void **out,
				 size_t *size, char *log, size_t logsize)
{
	(void)p;
	(void)log;
	(void)logsize;
	++*(int *)user;
	*out = malloc(sizeof cubin);
	if (!*out)
		return MMART_NO_MEMORY;
	memcpy(*out, cubin, sizeof cubin);
	*size = sizeof cubin;
	return MMART_OK;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *b;

	FUZZ_CHECK(f && !fstat(fileno(f), &st), "cannot open %s", path);
	b = malloc((size_t)st.st_size + 1);
	FUZZ_CHECK(b && fread(b, 1, (size_t)st.st_size, f) == (size_t)st.st_size,
		   "cannot read %s", path);
	fclose(f);
	*n = (size_t)st.st_size;
	return b;
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	char path[4400];
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	void *out = NULL;
	size_t size, n;
	int calls = 0, hit;
	uint8_t *b;

	(void)argc;
	(void)argv;
	setenv("MMAGEN_CACHE", "1", 1);
	snprintf(dir, sizeof dir, "%s/mmagen-fuzz-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(dir), "cannot make a directory %s", dir);
	atexit(remove_dir);
	FUZZ_CHECK(!mmart_cache_get_or_build(dir, ptx, "fuzz", fake_compile, &calls, &out,
					     &size, &hit) && hit == MMART_CACHE_MISS,
		   "the first lookup: %s", mmart_last_error());
	mmart_host_free(out);
	/* the one entry the cache made */
	DIR *d = opendir(dir);
	FUZZ_CHECK(d, "opendir %s", dir);
	for (struct dirent *e; (e = readdir(d));)
		if (strstr(e->d_name, ".cubin") && !strstr(e->d_name, ".tmp"))
			snprintf(entry, sizeof entry, "%s/%s", dir, e->d_name);
	closedir(d);
	FUZZ_CHECK(entry[0], "no entry in %s", dir);
	b = slurp(entry, &n);
	memcpy(key, b + 32, 32);
	FUZZ_CHECK(valid(b, n) && n == HEADER + sizeof cubin &&
		   !memcmp(b + HEADER, cubin, sizeof cubin),
		   "the entry is not laid out as cache_file.c says");
	free(b);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned fix = fuzz_byte(&in);
	size_t n = in.n < HEADER ? HEADER : in.n, got_n;
	uint8_t *b = calloc(n, 1);
	void *got = NULL;
	int calls = 0, hit = -1, was_valid;
	FILE *f;

	FUZZ_CHECK(b, "out of memory");
	memcpy(b, in.p, in.n);
	if (in.n < HEADER && !(fix & 0x80))
		n = in.n;               /* bit 7 clear: a short file stays short */
	if (n >= HEADER) {
		if (fix & 1)
			memcpy(b, "MMARTCUB", 8);
		if (fix & 2)
			put_le(b + 8, 1, 4);
		if (fix & 4)
			put_le(b + 12, HEADER, 4);
		if (fix & 8)
			put_le(b + 16, n - HEADER, 8);
		if (fix & 16)
			put_le(b + 24, fnv1a64(b + HEADER, n - HEADER), 8);
		if (fix & 32)
			memcpy(b + 32, key, 32);
	}
	was_valid = valid(b, n);
	f = fopen(entry, "wb");
	FUZZ_CHECK(f && fwrite(b, 1, n, f) == n && !fclose(f), "cannot write %s", entry);

	FUZZ_CHECK(!mmart_cache_get_or_build(dir, ptx, "fuzz", fake_compile, &calls, &got,
					     &got_n, &hit),
		   "get_or_build: %s", mmart_last_error());
	if (was_valid) {
		FUZZ_CHECK(hit == MMART_CACHE_HIT && !calls && got_n == n - HEADER &&
			   !memcmp(got, b + HEADER, got_n),
			   "a valid entry of %zu bytes was not used (hit %d)", n, hit);
	} else {
		FUZZ_CHECK(hit != MMART_CACHE_HIT && calls == 1 && got_n == sizeof cubin &&
			   !memcmp(got, cubin, sizeof cubin),
			   "an invalid entry of %zu bytes was used (hit %d)", n, hit);
		if (hit == MMART_CACHE_MISS) {
			size_t m;
			uint8_t *e = slurp(entry, &m);
			FUZZ_CHECK(valid(e, m) && m == HEADER + sizeof cubin &&
				   !memcmp(e + HEADER, cubin, sizeof cubin),
				   "the rebuilt entry is not valid");
			free(e);
		}
	}
	mmart_host_free(got);
	free(b);
	return 0;
}
