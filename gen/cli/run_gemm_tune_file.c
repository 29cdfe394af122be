/* run_gemm_tune_file.c - tuned choices on the host side: the key of a
 * problem (GPU, types, layout, shape class), the records file RG_TUNE_FILE
 * in the cache directory (read, checked, replaced whole), and the
 * candidates `run gemm --tune` tries.  CPU only; the unit tests reach it
 * (tests/unit/test_gemm_tune.c). */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned rg_log2_bucket(uint32_t x)
{
	unsigned l = 0;
	while (x > 1) {
		x >>= 1;
		l++;
	}
	return l;
}

void rg_tune_key_of(struct rg_tune_key *key, const char *gpu, const mmagen_gemm_request *r,
		    uint32_t m, uint32_t n, uint32_t k)
{
	memset(key, 0, sizeof *key);
	snprintf(key->gpu, sizeof key->gpu, "%s", gpu && *gpu ? gpu : "unknown GPU");
	for (char *p = key->gpu; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	key->a = r->a;
	key->b = r->b;
	key->acc = r->acc ? r->acc : rg_class_of(r->a) == RG_INT ? MMAGEN_S32 : MMAGEN_F32;
	key->out = r->out;
	key->layout = r->layout;
	key->lm = rg_log2_bucket(m);
	key->ln = rg_log2_bucket(n);
	key->lk = rg_log2_bucket(k);
}

static const char *const tune_layouts[] = { "tn", "nn", "nt", "tt" };

/* ours and only ours to write: the rule of the module cache */
static int trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int rg_tune_path(char *buf, size_t n)
{
	const char *v = getenv("MMAGEN_CACHE");
	char dir[4096];
	struct stat st;

	if (v && !strcmp(v, "0"))
		return rg_fail("tuned choices are off (MMAGEN_CACHE=0)");
	if (mmart_cache_default_dir(dir, sizeof dir))
		return rg_fail("no cache directory for tuned choices: %s", mmart_last_error());
	/* mkdir -p, as the module cache makes it */
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		int r = mkdir(dir, 0755);
		*p = c;
		if (r < 0 && errno != EEXIST)
			return rg_fail("cache directory %s: %s", dir, strerror(errno));
		if (!c)
			break;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return rg_fail("cache directory %s is not a directory", dir);
	if (!trusted(&st))
		return rg_fail("cache directory %s not used for tuned choices: it must be yours and not "
			       "writable by group or others (chmod go-w)", dir);
	if (snprintf(buf, n, "%s/%s", dir, RG_TUNE_FILE) >= (int)n)
		return rg_fail("cache directory name too long");
	return 0;
}

#define TUNE_MAX_BYTES (1u << 20)

/* A choice's field: "tile_n stages cluster group", a fifth number, tile
 * M, when it is not the default, and a sixth, the schedule (2:
 * ping-pong; tile M then written even when 128); nothing else.  0 or -1. */
static int parse_choice(const char *f, struct rg_tune_choice *c)
{
	char end;
	c->tile_m = 0;
	c->schedule = 0;
	if (sscanf(f, "%u %u %u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group,
		   &c->tile_m, &c->schedule, &end) == 6)
		return c->tile_m == 128 && c->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? 0 : -1;
	c->tile_m = 0;
	c->schedule = 0;
	if (sscanf(f, "%u %u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group,
		   &c->tile_m, &end) == 5)
		return c->tile_m == 16 || c->tile_m == 32 || c->tile_m == 64 || c->tile_m == 128 ? 0 : -1;
	c->tile_m = 0;
	return sscanf(f, "%u %u %u %u %c", &c->tile_n, &c->stages, &c->cluster, &c->group, &end) == 4
		       ? 0 : -1;
}

/* One record line (without its newline) into key and c: 0 or -1. */
static int parse_record(char *line, struct rg_tune_key *key, struct rg_tune_choice *c)
{
	char *f[5], *save = NULL;
	int nf = 0;
	for (char *t = strtok_r(line, "\t", &save); t && nf < 6; t = strtok_r(NULL, "\t", &save))
		f[nf < 5 ? nf : 4] = t, nf++;
	if (nf != 5)
		return -1;
	char ta[16], tb[16], tacc[16], tout[16], tl[8], end;
	memset(key, 0, sizeof *key);
	if (strlen(f[0]) >= sizeof key->gpu || !f[0][0])
		return -1;
	strcpy(key->gpu, f[0]);
	if (sscanf(f[1], "%15s %15s %15s %15s %7s %c", ta, tb, tacc, tout, tl, &end) != 5 ||
	    mmagen_type_parse(ta, &key->a) || mmagen_type_parse(tb, &key->b) ||
	    mmagen_type_parse(tacc, &key->acc) || mmagen_type_parse(tout, &key->out))
		return -1;
	key->layout = 4;
	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(tl, tune_layouts[i]))
			key->layout = i;
	if (key->layout == 4 ||
	    sscanf(f[2], "%u %u %u %c", &key->lm, &key->ln, &key->lk, &end) != 3 ||
	    key->lm > 31 || key->ln > 31 || key->lk > 31 ||
	    parse_choice(f[3], c) || !c->tile_n || c->tile_n > 256 || c->stages < 2 || c->stages > 32 ||
	    (c->cluster != 1 && c->cluster != 2) || !c->group || c->group > 65535 ||
	    sscanf(f[4], "%lf %c", &c->tflops, &end) != 1 || !(c->tflops >= 0 && c->tflops < 1e6))
		return -1;
	return 0;
}

static int same_key(const struct rg_tune_key *x, const struct rg_tune_key *y)
{
	return !strcmp(x->gpu, y->gpu) && x->a == y->a && x->b == y->b && x->acc == y->acc &&
	       x->out == y->out && x->layout == y->layout && x->lm == y->lm && x->ln == y->ln &&
	       x->lk == y->lk;
}

static void format_record(char *buf, size_t n, const struct rg_tune_key *k,
			  const struct rg_tune_choice *c)
{
	char tm[24] = "";
	if (c->schedule == MMAGEN_GEMM_SCHED_PINGPONG)
		snprintf(tm, sizeof tm, " 128 %u", c->schedule);
	else if (c->tile_m)
		snprintf(tm, sizeof tm, " %u", c->tile_m);
	snprintf(buf, n, "%s\t%s %s %s %s %s\t%u %u %u\t%u %u %u %u%s\t%.1f\n", k->gpu,
		 mmagen_type_name(k->a), mmagen_type_name(k->b), mmagen_type_name(k->acc),
		 mmagen_type_name(k->out), tune_layouts[k->layout & 3], k->lm, k->ln, k->lk,
		 c->tile_n, c->stages, c->cluster, c->group, tm, c->tflops);
}

static void note_set(char *note, size_t n, const char *fmt, const char *path, const char *why)
{
	if (note && n)
		snprintf(note, n, fmt, path, why);
}

/* The file's text: 0 (*text malloc()ed, NUL-terminated; NULL when there is
 * no file), or -1 with *note (a file not to be trusted or read). */
static int tune_read(const char *path, char **text, char *note, size_t note_n)
{
	struct stat st;
	*text = NULL;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		note_set(note, note_n, "tuned choices in %s ignored: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !trusted(&st) || st.st_size > TUNE_MAX_BYTES) {
		note_set(note, note_n, "tuned choices in %s ignored: %s", path,
			 !S_ISREG(st.st_mode) ? "not a regular file"
			 : st.st_size > TUNE_MAX_BYTES ? "larger than 1 MiB"
			 : "not yours, or writable by group or others");
		return -1;
	}
	FILE *f = fopen(path, "rb");
	char *t = malloc((size_t)st.st_size + 1);
	size_t got = f && t ? fread(t, 1, (size_t)st.st_size, f) : 0;
	if (f)
		fclose(f);
	if (!f || !t || got != (size_t)st.st_size) {
		free(t);
		note_set(note, note_n, "tuned choices in %s ignored: %s", path, "cannot read it");
		return -1;
	}
	t[got] = '\0';
	if (strlen(t) != got) {      /* a NUL byte: not text, so not ours */
		free(t);
		t = strdup("");
	}
	*text = t;
	return 0;
}

/* Walk the records of text: each line checked; with want, the one with
 * that key into *found.  0, or -1 (and *note) for a corrupt file. */
static int tune_scan(const char *path, char *text, const struct rg_tune_key *want,
		     struct rg_tune_choice *found, int *hit, char *note, size_t note_n)
{
	size_t ml = strlen(RG_TUNE_MAGIC);
	char *line = text, *nl;
	unsigned no = 1;
	*hit = 0;
	if (strncmp(text, RG_TUNE_MAGIC, ml) || (text[ml] != '\n')) {
		note_set(note, note_n, "tuned choices in %s ignored: %s", path,
			 "its first line is not \"" RG_TUNE_MAGIC "\" (another version, or not ours)");
		return -1;
	}
	for (line = text + ml + 1; *line; line = nl + 1) {
		struct rg_tune_key k;
		struct rg_tune_choice c;
		char copy[512], why[64];
		no++;
		if (!(nl = strchr(line, '\n'))) {
			snprintf(why, sizeof why, "line %u has no end", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		size_t len = (size_t)(nl - line);
		if (len >= sizeof copy) {
			snprintf(why, sizeof why, "line %u is too long", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		memcpy(copy, line, len);
		copy[len] = '\0';
		if (parse_record(copy, &k, &c)) {
			snprintf(why, sizeof why, "line %u is not a record", no);
			note_set(note, note_n, "tuned choices in %s ignored: %s", path, why);
			return -1;
		}
		if (want && same_key(&k, want)) {
			*found = c;
			*hit = 1;
		}
	}
	return 0;
}

int rg_tune_lookup(const char *path, const struct rg_tune_key *key, struct rg_tune_choice *c,
		   char *note, size_t note_n)
{
	char *text;
	int hit = 0;
	if (note && note_n)
		note[0] = '\0';
	if (tune_read(path, &text, note, note_n) || !text)
		return 0;
	if (tune_scan(path, text, key, c, &hit, note, note_n))
		hit = 0;
	free(text);
	return hit;
}

int rg_tune_record(const char *path, const struct rg_tune_key *key, const struct rg_tune_choice *c,
		   char *note, size_t note_n)
{
	char *text = NULL, rec[512];
	struct rg_tune_choice old;
	int hit = 0, rc;
	if (note && note_n)
		note[0] = '\0';
	if (key->layout > 3 || strchr(key->gpu, '\t') || strchr(key->gpu, '\n') || !key->gpu[0])
		return rg_fail("tuned choice: a key with a tab, a newline or no GPU name");
	/* an untrusted file is not replaced either: the directory was checked,
	 * but a file of another owner in it is left alone */
	if (tune_read(path, &text, note, note_n))
		return rg_fail("%s; not replaced", note && note_n && note[0] ? note : "tuned choices");
	if (text && tune_scan(path, text, NULL, &old, &hit, note, note_n)) {
		free(text);
		text = NULL;     /* corrupt: dropped, the new file has only this record */
	}
	size_t cap = (text ? strlen(text) : 0) + sizeof RG_TUNE_MAGIC + sizeof rec + 2;
	char *out = malloc(cap), *w = out;
	if (!out) {
		free(text);
		return rg_fail("out of memory");
	}
	w += sprintf(w, "%s\n", RG_TUNE_MAGIC);
	format_record(rec, sizeof rec, key, c);
	if (text) {
		char *line = text + strlen(RG_TUNE_MAGIC) + 1, *nl;
		for (; *line; line = nl + 1) {
			struct rg_tune_key k;
			struct rg_tune_choice oc;
			char copy[512];
			nl = strchr(line, '\n');
			size_t len = (size_t)(nl - line);
			memcpy(copy, line, len);
			copy[len] = '\0';
			if (!parse_record(copy, &k, &oc) && same_key(&k, key))
				continue;      /* replaced below */
			memcpy(w, line, len + 1);
			w += len + 1;
		}
	}
	w += sprintf(w, "%s", rec);
	free(text);
	rc = mmagen_write_file(path, out, (size_t)(w - out)) ? rg_fail("%s", mmagen_last_error()) : 0;
	free(out);
	return rc;
}

unsigned rg_tune_candidates(const mmagen_gemm_request *r, uint32_t m, struct rg_tune_choice *c,
			    unsigned max)
{
	/* small M: the chooser's tile M for M <= 64 (it depends on M and A's
	 * layout alone: N, K and the multiprocessors here are placeholders),
	 * 64 for M up to 128 with a K-major A (the chooser weighs 64 against
	 * 128 there); either way also 128 */
	mmagen_gemm_request t = *r;
	t.tile_m = 0;
	t.tile_n = 128;
	t.cluster = 1;
	t.split_k = 1;
	unsigned small = m && m <= 64 && !mmagen_gemm_choose(&t, m, 1, 1, 1) ? t.tile_m : 0;
	if (m > 64 && m <= 128 && r->layout != MMAGEN_GEMM_NN && r->layout != MMAGEN_GEMM_NT)
		small = 64;
	unsigned wide = rg_class_of(r->a) == RG_FP8 ? 192 : 256, n = 0;
	/* the cartesian product of these lists, small M or not */
	const unsigned tm[] = { small, 128 }, tn_small[] = { 64, 128 }, tn[] = { 128, wide };
	const unsigned cl[] = { 1, 2 }, st[] = { 0, RG_STAGES_FEWER }, gr[] = { 8, 16 };
	const unsigned *tns = small ? tn_small : tn;
	unsigned ntm = small ? 2 : 1, ncl = small ? 1 : 2, ngr = small ? 1 : 2;
	for (unsigned a = 0; a < ntm; a++)
		for (unsigned i = 0; i < 2; i++)
			for (unsigned j = 0; j < ncl; j++)
				for (unsigned s = 0; s < 2; s++)
					for (unsigned g = 0; g < ngr; g++)
						if (n < max)
							c[n++] = (struct rg_tune_choice){ .tile_m = tm[a],
								.tile_n = tns[i], .stages = st[s],
								.cluster = cl[j], .group = gr[g] };
	/* ping-pong (whole 128-row tiles per warpgroup; no FP8) */
	const unsigned pp_tn[] = { 128, 192 };
	if (!small && rg_class_of(r->a) != RG_FP8)
		for (unsigned i = 0; i < 2; i++)
			for (unsigned j = 0; j < 2; j++)
				if (n < max)
					c[n++] = (struct rg_tune_choice){ .tile_m = 128, .tile_n = pp_tn[i],
						.cluster = cl[j], .group = 8,
						.schedule = MMAGEN_GEMM_SCHED_PINGPONG };
	return n;
}
