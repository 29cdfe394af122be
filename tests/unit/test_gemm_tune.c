/* test_gemm_tune.c - `run gemm --tune`'s records on the CPU
 * (gen/cli/run_gemm_tune_file.c): shape classes, keys, the file in the cache
 * directory (its text written out here), lookups, replacement, and every
 * kind of file that must be ignored with one line: another version, a
 * line that is not a record, a NUL byte, a file or directory others may
 * write, a symbolic link, MMAGEN_CACHE=0. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256], path[4200];

static void put(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(text, 1, len, f) == len, "write %s", path);
	if (f)
		fclose(f);
	chmod(path, 0644);
}

static char *slurp(void)
{
	static char buf[8192];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static mmagen_gemm_request req(mmagen_type a, mmagen_type out)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = r.b = a;
	r.out = out;
	return r;
}

static void test_buckets(void)
{
	static const struct { uint32_t x; unsigned l; } c[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 16, 4 }, { 17, 4 }, { 128, 7 }, { 4095, 11 },
		{ 4096, 12 }, { 8191, 12 }, { 8192, 13 }, { 14336, 13 }, { 0x80000000u, 31 },
		{ 0xffffffffu, 31 },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++)
		CHECK(rg_log2_bucket(c[i].x) == c[i].l, "bucket of %u: %u, want %u", c[i].x,
		      rg_log2_bucket(c[i].x), c[i].l);
	mmagen_gemm_request r = req(MMAGEN_S8, MMAGEN_S32);
	struct rg_tune_key k;
	rg_tune_key_of(&k, "NVIDIA\tH200\n", &r, 16, 14336, 4096);
	CHECK(!strcmp(k.gpu, "NVIDIA H200 ") && k.acc == MMAGEN_S32 && k.lm == 4 && k.ln == 13 &&
	      k.lk == 12 && k.layout == MMAGEN_GEMM_TN, "key: '%s' acc %d %u %u %u", k.gpu, k.acc,
	      k.lm, k.ln, k.lk);
	r = req(MMAGEN_BF16, MMAGEN_BF16);
	rg_tune_key_of(&k, "", &r, 1, 1, 1);
	CHECK(k.acc == MMAGEN_F32 && !strcmp(k.gpu, "unknown GPU"), "key defaults");
}

static void test_candidates(void)
{
	struct rg_tune_choice c[32];
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16);
	unsigned n = rg_tune_candidates(&r, 4096, c, 32), wide = 0, fewer = 0, cl2 = 0, g16 = 0, pp = 0;
	for (unsigned i = 0; i < n; i++) {
		wide += c[i].tile_n == 256;
		fewer += c[i].stages == RG_STAGES_FEWER;
		cl2 += c[i].cluster == 2;
		g16 += c[i].group == 16;
		pp += c[i].schedule == MMAGEN_GEMM_SCHED_PINGPONG;
		/* ping-pong: 128-row tiles, N 128 and 192, both clusters, each
		 * taken by the generator */
		if (c[i].schedule) {
			mmagen_gemm_request rr = r;
			mmagen_gemm_info info = { .size = sizeof info };
			rr.tile_m = c[i].tile_m;
			rr.tile_n = c[i].tile_n;
			rr.cluster = c[i].cluster;
			rr.schedule = c[i].schedule;
			CHECK(c[i].tile_m == 128 && c[i].schedule == MMAGEN_GEMM_SCHED_PINGPONG &&
			      mmagen_gemm_info_of(&rr, &info) == MMAGEN_OK, "ping-pong candidate %u: %s", i,
			      mmagen_last_error());
		} else {
			CHECK(c[i].tile_m == 0, "M 4096: tile M %u", c[i].tile_m);
		}
		for (unsigned j = 0; j < i; j++)
			CHECK(memcmp(&c[i], &c[j], sizeof c[i]), "candidates %u and %u are the same", i, j);
	}
	CHECK(n == 20 && wide == 8 && fewer == 8 && cl2 == 10 && g16 == 8 && pp == 4,
	      "bf16: %u candidates", n);
	r = req(MMAGEN_E4M3, MMAGEN_BF16);
	n = rg_tune_candidates(&r, 129, c, 32);
	unsigned n192 = 0;
	for (unsigned i = 0; i < n; i++)
		n192 += c[i].tile_n == 192;
	CHECK(n == 16 && n192 == 8, "e4m3: N 192 is its wide tile (%u), no ping-pong", n192);
	CHECK(rg_tune_candidates(&r, 8192, c, 5) == 5, "at most max");
	/* small M with a K-major A: its small tile and 128 rows, N 64/128 */
	r = req(MMAGEN_BF16, MMAGEN_BF16);
	n = rg_tune_candidates(&r, 20, c, 32);
	unsigned t32 = 0, t0 = 0, mixed = 0;
	for (unsigned i = 0; i < n; i++) {
		t32 += c[i].tile_m == 32;
		t0 += c[i].tile_m == 128;
		mixed |= c[i].cluster != 1 || (c[i].tile_n != 64 && c[i].tile_n != 128);
		mmagen_gemm_request rr = r;
		mmagen_gemm_info info = { .size = sizeof info };
		rr.tile_m = c[i].tile_m;
		rr.tile_n = c[i].tile_n;
		CHECK(mmagen_gemm_info_of(&rr, &info) == MMAGEN_OK, "M 20 candidate %u: %s", i,
		      mmagen_last_error());
	}
	CHECK(n == 8 && t32 == 4 && t0 == 4 && !mixed, "M 20: %u candidates (%u of 32 rows)", n, t32);
	/* M 65..128 with a K-major A: tile M 64 and 128 */
	n = rg_tune_candidates(&r, 100, c, 32);
	unsigned t64 = 0;
	for (unsigned i = 0; i < n; i++)
		t64 += c[i].tile_m == 64;
	CHECK(n == 8 && t64 == 4, "M 100: %u candidates (%u of 64 rows)", n, t64);
	r.layout = MMAGEN_GEMM_NN;
	n = rg_tune_candidates(&r, 20, c, 32);
	CHECK(n == 20 && c[0].tile_m == 0, "M 20, M-major A: the usual %u", n);
	n = rg_tune_candidates(&r, 100, c, 32);
	CHECK(n == 20 && c[0].tile_m == 0, "M 100, M-major A: the usual %u", n);
}

static void test_path(void)
{
	char sub[300], p[4200];
	setenv("MMAGEN_CACHE_DIR", dir, 1);
	unsetenv("MMAGEN_CACHE");
	CHECK(!rg_tune_path(p, sizeof p), "path: %s", rg_error());
	snprintf(path, sizeof path, "%s/gemm-tune.txt", dir);
	CHECK(!strcmp(p, path), "path %s", p);
	setenv("MMAGEN_CACHE", "0", 1);
	CHECK(rg_tune_path(p, sizeof p) && strstr(rg_error(), "MMAGEN_CACHE=0"), "cache off: %s",
	      rg_error());
	unsetenv("MMAGEN_CACHE");
	/* a directory others may write is not used */
	snprintf(sub, sizeof sub, "%s/open", dir);
	setenv("MMAGEN_CACHE_DIR", sub, 1);
	CHECK(!rg_tune_path(p, sizeof p), "a new directory is made: %s", rg_error());
	chmod(sub, 0777);
	CHECK(rg_tune_path(p, sizeof p) && strstr(rg_error(), "go-w"), "group-writable: %s",
	      rg_error());
	rmdir(sub);
	snprintf(sub, sizeof sub, "%s/made/deeper", dir);
	setenv("MMAGEN_CACHE_DIR", sub, 1);
	CHECK(!rg_tune_path(p, sizeof p), "mkdir -p: %s", rg_error());
	rmdir(sub);
	snprintf(sub, sizeof sub, "%s/made", dir);
	rmdir(sub);
	setenv("MMAGEN_CACHE_DIR", dir, 1);
}

static void test_records(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16);
	struct rg_tune_key k1, k2, k3;
	struct rg_tune_choice c1 = { 256, 4, 2, 8, 812.25, 0, 0 }, c2 = { 128, 5, 1, 16, 97.5, 16, 0 }, got;
	char note[512];

	rg_tune_key_of(&k1, "NVIDIA H200", &r, 8192, 8192, 8192);
	rg_tune_key_of(&k2, "NVIDIA H200", &r, 16, 4096, 14336);
	rg_tune_key_of(&k3, "NVIDIA H100", &r, 8192, 8192, 8192);
	unlink(path);
	CHECK(rg_tune_lookup(path, &k1, &got, note, sizeof note) == 0 && !note[0],
	      "no file: nothing, no note (%s)", note);
	CHECK(!rg_tune_record(path, &k1, &c1, note, sizeof note), "record: %s", rg_error());
	CHECK(!rg_tune_record(path, &k2, &c2, note, sizeof note), "record 2: %s", rg_error());
	CHECK(!strcmp(slurp(), "mmagen gemm tune v1\n"
			       "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t812.2\n"
			       "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t4 12 13\t128 5 1 16 16\t97.5\n"),
	      "the file's text:\n%s", slurp());
	struct stat st;
	CHECK(!stat(path, &st) && !(st.st_mode & 022), "mode %o", (unsigned)st.st_mode & 0777);
	CHECK(rg_tune_lookup(path, &k1, &got, note, sizeof note) == 1 && got.tile_n == 256 &&
	      got.stages == 4 && got.cluster == 2 && got.group == 8 && got.tflops > 812 &&
	      !note[0], "lookup 1");
	CHECK(rg_tune_lookup(path, &k2, &got, note, sizeof note) == 1 && got.tile_n == 128 &&
	      got.group == 16 && got.tile_m == 16, "lookup 2");
	CHECK(rg_tune_lookup(path, &k1, &got, note, sizeof note) == 1 && got.tile_m == 0,
	      "a record without tile M: the default");
	CHECK(rg_tune_lookup(path, &k3, &got, note, sizeof note) == 0 && !note[0],
	      "another GPU has no record");
	/* one of 8192..16383 is the same class; 4096 is not */
	struct rg_tune_key k4;
	rg_tune_key_of(&k4, "NVIDIA H200", &r, 16383, 12000, 9000);
	CHECK(rg_tune_lookup(path, &k4, &got, note, sizeof note) == 1, "same class");
	rg_tune_key_of(&k4, "NVIDIA H200", &r, 4096, 8192, 8192);
	CHECK(rg_tune_lookup(path, &k4, &got, note, sizeof note) == 0, "M 4096: another class");
	/* replacing keeps the other record and the order */
	c1.tile_n = 192;
	c1.stages = 3;
	CHECK(!rg_tune_record(path, &k1, &c1, note, sizeof note), "replace: %s", rg_error());
	CHECK(!strcmp(slurp(), "mmagen gemm tune v1\n"
			       "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t4 12 13\t128 5 1 16 16\t97.5\n"
			       "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t192 3 2 8\t812.2\n"),
	      "replaced:\n%s", slurp());
	CHECK(rg_tune_lookup(path, &k1, &got, note, sizeof note) == 1 && got.tile_n == 192 &&
	      got.stages == 3 && !got.schedule, "the replacement is found");
	/* a ping-pong choice: tile M 128 written, then the schedule */
	struct rg_tune_choice c3 = { 192, 6, 1, 8, 1500.0, 128, MMAGEN_GEMM_SCHED_PINGPONG };
	CHECK(!rg_tune_record(path, &k3, &c3, note, sizeof note), "record 3: %s", rg_error());
	CHECK(strstr(slurp(), "NVIDIA H100\tbf16 bf16 f32 bf16 tn\t13 13 13\t192 6 1 8 128 2\t1500.0\n") != NULL,
	      "ping-pong record:\n%s", slurp());
	CHECK(rg_tune_lookup(path, &k3, &got, note, sizeof note) == 1 && got.tile_n == 192 &&
	      got.tile_m == 128 && got.schedule == MMAGEN_GEMM_SCHED_PINGPONG, "ping-pong found");
	CHECK(rg_tune_lookup(path, &k2, &got, note, sizeof note) == 1 && !got.schedule,
	      "the others stay cooperative");
}

static void test_corrupt(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16);
	struct rg_tune_key k;
	struct rg_tune_choice c = { 256, 4, 2, 8, 800, 0, 0 }, got;
	char note[512];
	static const char good[] = "mmagen gemm tune v1\n"
				   "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\n";
	static const struct { const char *what, *text; } bad[] = {
		{ "another version", "mmagen gemm tune v2\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\n" },
		{ "no version line", "NVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\n" },
		{ "a field missing", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\n" },
		{ "an unknown type", "mmagen gemm tune v1\nNVIDIA H200\tbf17 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\n" },
		{ "cluster 3", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 3 8\t800.0\n" },
		{ "tile M 48", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 48\t800.0\n" },
		{ "six numbers", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 16 1\t800.0\n" },
		{ "schedule 3", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 128 3\t800.0\n" },
		{ "ping-pong at tile M 64", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 64 2\t800.0\n" },
		{ "seven numbers", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 128 2 1\t800.0\n" },
		{ "junk after four", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8 x\t800.0\n" },
		{ "stages 1", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 1 2 8\t800.0\n" },
		{ "a class of 40", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t40 13 13\t256 4 2 8\t800.0\n" },
		{ "trailing junk", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0x\n" },
		{ "an extra field", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\tmore\n" },
		{ "no final newline", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0" },
		{ "a bad layout", "mmagen gemm tune v1\nNVIDIA H200\tbf16 bf16 f32 bf16 xx\t13 13 13\t256 4 2 8\t800.0\n" },
		{ "a blank line", "mmagen gemm tune v1\n\nNVIDIA H200\tbf16 bf16 f32 bf16 tn\t13 13 13\t256 4 2 8\t800.0\n" },
	};
	rg_tune_key_of(&k, "NVIDIA H200", &r, 8192, 8192, 8192);
	put(good, strlen(good));
	CHECK(rg_tune_lookup(path, &k, &got, note, sizeof note) == 1, "the good file is read");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		put(bad[i].text, strlen(bad[i].text));
		int hit = rg_tune_lookup(path, &k, &got, note, sizeof note);
		CHECK(hit == 0 && strstr(note, "ignored") && !strchr(note, '\n'),
		      "%s: hit %d, note '%s'", bad[i].what, hit, note);
		/* recording over it drops it, says so, and leaves a good file */
		CHECK(!rg_tune_record(path, &k, &c, note, sizeof note) && strstr(note, "ignored"),
		      "%s: record over it: %s / %s", bad[i].what, rg_error(), note);
		CHECK(!strcmp(slurp(), good), "%s: rewritten as\n%s", bad[i].what, slurp());
	}
	/* a NUL byte */
	char withnul[sizeof good];
	memcpy(withnul, good, sizeof good);
	withnul[30] = '\0';
	put(withnul, sizeof good - 1);
	CHECK(rg_tune_lookup(path, &k, &got, note, sizeof note) == 0 && strstr(note, "ignored"),
	      "a NUL byte: '%s'", note);
	/* writable by others: not read, not replaced */
	put(good, strlen(good));
	chmod(path, 0666);
	CHECK(rg_tune_lookup(path, &k, &got, note, sizeof note) == 0 && strstr(note, "writable"),
	      "mode 666: '%s'", note);
	CHECK(rg_tune_record(path, &k, &c, note, sizeof note) == -1 && strstr(rg_error(), "not replaced"),
	      "mode 666 is not replaced: %s", rg_error());
	chmod(path, 0644);
	/* a symbolic link is not followed */
	char target[4300];
	snprintf(target, sizeof target, "%s/elsewhere.txt", dir);
	rename(path, target);
	CHECK(!symlink(target, path), "symlink");
	CHECK(rg_tune_lookup(path, &k, &got, note, sizeof note) == 0 && strstr(note, "regular"),
	      "a symlink: '%s'", note);
	unlink(path);
	unlink(target);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mmagen-tune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("cannot make a temporary directory\n");
		return 1;
	}
	chmod(dir, 0700);
	test_buckets();
	test_candidates();
	test_path();
	test_records();
	test_corrupt();
	unlink(path);
	rmdir(dir);
	return check_summary();
}
