/* run_gemm_save.c - `run gemm --save` and `--load`: the operands on disk
 * (A.bin .. D.bin, raw little-endian) and their description gemm.json,
 * written, and read back through a small JSON reader of its own and
 * checked against the request.  CPU only; the unit tests reach it. */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DESC_NAME "gemm.json"
#define DESC_FORMAT "mmagen gemm operands"

struct operand_desc {
	char name;               /* 'A', 'B', 'C', 'D' */
	mmagen_type type;
	uint32_t rows, cols;     /* stored row-major, rows x cols, dense */
	const char *what;
	const char *packing;     /* 4-bit types: how two share a byte; else NULL */
};

/* what the description says of 4-bit operands (see run_gemm_host.c's put_elem) */
#define PACKING_4BIT "two elements a byte: element 2j in bits 0-3 of byte j, element 2j+1 in bits 4-7"

static void describe(const struct rg_problem *p, struct operand_desc o[4])
{
	o[0] = (struct operand_desc){ 'A', p->a, p->m, p->k, "A, M x K, row-major", NULL };
	o[1] = (struct operand_desc){ 'B', p->b, p->n, p->k,
		"B, K x N, column-major: N rows of K elements", NULL };
	o[2] = (struct operand_desc){ 'C', p->out, p->m, p->n,
		"C, M x N, row-major (not read when beta is 0)", NULL };
	o[3] = (struct operand_desc){ 'D', p->out, p->m, p->n,
		"D = alpha * A * B + beta * C as the kernel wrote it, M x N, row-major", NULL };
	for (int i = 0; i < 4; i++)
		o[i].packing = rg_elem_bits(o[i].type) == 4 ? PACKING_4BIT : NULL;
}

static int path_of(char *buf, size_t n, const char *dir, const char *file)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, file) >= n)
		return rg_fail("%s: the path is too long", dir);
	return 0;
}

/* The files a save writes (sm_120a's SA.bin and SB.bin too). */
static int save_file(const char *name)
{
	static const char *const ours[] = { DESC_NAME, "A.bin", "B.bin", "C.bin", "D.bin",
					    "SA.bin", "SB.bin" };
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		if (!strcmp(name, ours[i]))
			return 1;
	return 0;
}

int rg_save_dir_check(const char *dir)
{
	struct stat st;
	char path[4096];

	if (!dir || !*dir)
		return rg_fail("--save needs a directory name (e.g. --save run1)");
	if (stat(dir, &st)) {
		if (errno != ENOENT)
			return rg_fail("--save %s: %s", dir, strerror(errno));
		/* a new directory: its parent must be there ("out/": out's) */
		size_t end = strlen(dir);
		while (end > 1 && dir[end - 1] == '/')
			end--;
		const char *slash = NULL;
		for (size_t i = 0; i < end; i++)
			if (dir[i] == '/')
				slash = dir + i;
		if (slash) {
			size_t n = slash == dir ? 1 : (size_t)(slash - dir);
			if (n >= sizeof path)
				return rg_fail("--save %s: the path is too long", dir);
			memcpy(path, dir, n);
			path[n] = '\0';
			if (stat(path, &st) || !S_ISDIR(st.st_mode))
				return rg_fail("--save %s: %s is not a directory; make it first, or give a path whose parent exists",
					       dir, path);
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return rg_fail("--save %s: not a directory; give a new or empty directory (a save writes gemm.json and A.bin .. D.bin)",
			       dir);
	/* an existing directory: empty, or an earlier save (its gemm.json in
	 * one of the runner's formats) holding nothing but a save's files, so
	 * that no file of the user's is replaced */
	DIR *dp = opendir(dir);
	if (!dp)
		return rg_fail("--save %s: %s", dir, strerror(errno));
	struct dirent *e;
	int foreign = 0, any = 0;
	char first[256] = "";
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		any = 1;
		if (!save_file(e->d_name) && !foreign++)
			snprintf(first, sizeof first, "%s", e->d_name);
	}
	closedir(dp);
	if (foreign)
		return rg_fail("--save %s: the directory holds files a save does not write (%s); give a new or empty directory",
			       dir, first);
	if (!any)
		return 0;
	if (path_of(path, sizeof path, dir, DESC_NAME))
		return -1;
	/* (a FIFO or device named gemm.json would block the open) */
	FILE *f = !stat(path, &st) && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	char head[256] = "";
	size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
	if (f)
		fclose(f);
	head[n] = '\0';
	if (!strstr(head, "\"format\": \"" DESC_FORMAT))
		return rg_fail("--save %s: the directory holds no gemm.json of an earlier save (a save cut short leaves none) beside files a save writes; give a new or empty directory, or remove those files",
			       dir);
	return 0;
}

int rg_save_begin(const char *dir, int scales)
{
	struct stat st;
	char path[4096];

	if (rg_save_dir_check(dir))
		return -1;
	if (mkdir(dir, 0777) && errno != EEXIST)
		return rg_fail("--save %s: cannot make the directory: %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return rg_fail("--save %s: not a directory", dir);
	/* the old description goes first and the new one is written last (a
	 * save cut short leaves no gemm.json over mismatched operands); an
	 * earlier block-scaled save's scales go when this save has none */
	const char *stale[3] = { DESC_NAME, scales ? NULL : "SA.bin", scales ? NULL : "SB.bin" };
	for (int i = 0; i < 3; i++) {
		if (!stale[i])
			continue;
		if (path_of(path, sizeof path, dir, stale[i]))
			return -1;
		if (unlink(path) && errno != ENOENT)
			return rg_fail("--save: cannot replace %s: %s", path, strerror(errno));
	}
	return 0;
}

int rg_save(const char *dir, const struct rg_data *d, const char *layout)
{
	const struct rg_problem *p = &d->p;
	const void *data[4] = { d->a, d->b, d->c, d->d };
	struct operand_desc o[4];
	char path[4096], file[8], json[4096];
	int len;

	if (rg_save_begin(dir, 0))
		return -1;
	describe(p, o);
	for (int i = 0; i < 4; i++) {
		snprintf(file, sizeof file, "%c.bin", o[i].name);
		if (path_of(path, sizeof path, dir, file))
			return -1;
		if (mmagen_write_file(path, data[i], rg_bytes(p, o[i].name)))
			return rg_fail("--save: %s", mmagen_last_error());
	}
	/* FP8 D: its scale too */
	char scale[48] = "";
	if (rg_fp8_out(p))
		snprintf(scale, sizeof scale, "  \"d_scale\": %.9g,\n", (double)p->d_scale);
	len = snprintf(json, sizeof json,
		"{\n  \"format\": \"" DESC_FORMAT "\",\n  \"version\": 1,\n"
		"  \"byte_order\": \"little-endian\",\n  \"layout\": \"%s\",\n"
		"  \"m\": %u, \"n\": %u, \"k\": %u,\n  \"alpha\": %.9g, \"beta\": %.9g,\n%s"
		"  \"seed\": %llu,\n  \"operands\": {\n",
		layout, p->m, p->n, p->k, (double)p->alpha, (double)p->beta, scale,
		(unsigned long long)p->seed);
	for (int i = 0; i < 4; i++)
		len += snprintf(json + len, sizeof json - (size_t)len,
			"    \"%c\": {\"file\": \"%c.bin\", \"type\": \"%s\", \"shape\": [%u, %u], "
			"\"strides\": [%u, 1], \"order\": \"row-major\", %s%s%s\"what\": \"%s\"}%s\n",
			o[i].name, o[i].name, mmagen_type_name(o[i].type), o[i].rows, o[i].cols,
			o[i].cols, o[i].packing ? "\"packing\": \"" : "",
			o[i].packing ? o[i].packing : "", o[i].packing ? "\", " : "", o[i].what,
			i < 3 ? "," : "");
	len += snprintf(json + len, sizeof json - (size_t)len, "  }\n}\n");
	if ((size_t)len >= sizeof json)
		return rg_fail("--save: the description does not fit %zu bytes", sizeof json);
	if (path_of(path, sizeof path, dir, DESC_NAME))
		return -1;
	if (mmagen_write_file(path, json, (size_t)len))
		return rg_fail("--save: %s", mmagen_last_error());
	return 0;
}

/* ---- a small JSON reader, enough for the description ----
 * Objects, arrays, strings (the usual escapes; \u only below 0x80),
 * numbers, true, false, null; nesting up to 16 deep. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	double num;
	char *str;
	size_t n;                /* items (arrays, objects) */
	struct jv *items;
	char **keys;             /* objects */
};

struct jp {
	const char *s;
	const char *err;
};

static void jv_free(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

static void skip_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int jerr(struct jp *p, const char *what)
{
	if (!p->err)
		p->err = what;
	return -1;
}

static int parse_string(struct jp *p, char **out)
{
	size_t cap = 16, n = 0;
	char *b = malloc(cap);

	if (!b)
		return jerr(p, "out of memory");
	p->s++;      /* the opening quote */
	for (;;) {
		char c = *p->s++;
		if (!c || (unsigned char)c < 0x20) {
			free(b);
			return jerr(p, "unterminated string");
		}
		if (c == '"')
			break;
		if (c == '\\') {
			const char *esc = "\"\"\\\\//b\bf\fn\nr\rt\t";
			char e = *p->s++;
			const char *m = strchr(esc, e);
			if (e == 'u') {
				/* exactly four hex digits (sscanf's %4x took fewer,
				 * and the string's end with them) */
				unsigned x = 0;
				for (int d = 0; d < 4; d++) {
					char h = p->s[d];
					if (!isxdigit((unsigned char)h)) {
						free(b);
						return jerr(p, "\\u takes four hex digits");
					}
					x = x * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0'
									   : (tolower((unsigned char)h) - 'a' + 10));
				}
				if (x == 0 || x >= 0x80) {
					free(b);
					return jerr(p, "\\u escape outside ASCII (1 to 7f)");
				}
				p->s += 4;
				c = (char)x;
			} else if (e && m && (m - esc) % 2 == 0) {
				c = m[1];
			} else {
				free(b);
				return jerr(p, "bad escape in a string");
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				return jerr(p, "out of memory");
			}
			b = nb;
		}
		b[n++] = c;
	}
	b[n] = '\0';
	*out = b;
	return 0;
}

static int parse_value(struct jp *p, struct jv *v, int depth);

static int append(struct jp *p, struct jv *v, size_t *cap)
{
	if (v->n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 8;
	struct jv *items = realloc(v->items, *cap * sizeof *items);
	if (!items)
		return jerr(p, "out of memory");
	v->items = items;
	if (v->t == J_OBJ) {
		char **keys = realloc(v->keys, *cap * sizeof *keys);
		if (!keys)
			return jerr(p, "out of memory");
		v->keys = keys;
	}
	return 0;
}

static int parse_container(struct jp *p, struct jv *v, int depth)
{
	char close = *p->s == '{' ? '}' : ']';
	size_t cap = 0;

	v->t = close == '}' ? J_OBJ : J_ARR;
	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(p);
		if (v->t == J_OBJ) {
			if (*p->s != '"' || parse_string(p, &key))
				return jerr(p, "expected a key");
			skip_ws(p);
			if (*p->s++ != ':') {
				free(key);
				return jerr(p, "expected ':'");
			}
		}
		if (append(p, v, &cap)) {
			free(key);
			return -1;
		}
		if (v->t == J_OBJ)
			v->keys[v->n] = key;
		memset(&v->items[v->n], 0, sizeof v->items[v->n]);
		v->n++;
		if (parse_value(p, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s++ == close)
			return 0;
		return jerr(p, v->t == J_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int parse_value(struct jp *p, struct jv *v, int depth)
{
	static const struct { const char *word; enum jtype t; double num; } words[] = {
		{ "true", J_BOOL, 1 }, { "false", J_BOOL, 0 }, { "null", J_NULL, 0 } };

	if (depth > 16)
		return jerr(p, "nested too deep");
	skip_ws(p);
	if (*p->s == '{' || *p->s == '[')
		return parse_container(p, v, depth);
	if (*p->s == '"') {
		v->t = J_STR;
		return parse_string(p, &v->str);
	}
	if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
		size_t len = strspn(p->s, "-+.eE0123456789");
		char num[64], *end;
		if (len >= sizeof num)
			return jerr(p, "number too long");
		memcpy(num, p->s, len);
		num[len] = '\0';
		v->t = J_NUM;
		v->num = strtod(num, &end);
		if (*end || !isfinite(v->num))
			return jerr(p, "bad number");
		p->s += len;
		return 0;
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strncmp(p->s, words[i].word, strlen(words[i].word))) {
			v->t = words[i].t;
			v->num = words[i].num;
			p->s += strlen(words[i].word);
			return 0;
		}
	return jerr(p, "expected a value");
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

/* ---- load ---- */
static int read_file(const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	/* a FIFO or a device would block the open or never end */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return rg_fail("--load: %s is not a regular file; give a directory that --save wrote",
			       path);
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0;

	if (!f)
		return rg_fail("--load: cannot open %s: %s", path, strerror(errno));
	if (!(b = malloc(max + 1))) {
		fclose(f);
		return rg_fail("--load: out of memory for %s", path);
	}
	n = fread(b, 1, max + 1, f);
	if (ferror(f)) {
		fclose(f);
		free(b);
		return rg_fail("--load: cannot read %s", path);
	}
	fclose(f);
	*out = b;
	*len = n;
	return 0;
}

/* Exact unsigned integer member `key` of o. */
static int want_uint(const char *desc, const struct jv *o, const char *key,
		     const char *where, uint64_t want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_NUM)
		return rg_fail("%s: %s%s is missing or not a number", desc, where, key);
	if (v->num != (double)want)
		return rg_fail("%s: %s%s is %.17g, the request has %llu; give a matching request or another directory",
			       desc, where, key, v->num, (unsigned long long)want);
	return 0;
}

static int want_str(const char *desc, const struct jv *o, const char *key,
		    const char *where, const char *want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_STR || strcmp(v->str, want))
		return rg_fail("%s: %s%s is %s%s%s, not \"%s\" as the request has it",
			       desc, where, key, v && v->t == J_STR ? "\"" : "",
			       v && v->t == J_STR ? v->str : "missing or not a string",
			       v && v->t == J_STR ? "\"" : "", want);
	return 0;
}

static int want_pair(const char *desc, const struct jv *o, const char *key,
		     const char *where, uint32_t x, uint32_t y)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_ARR || v->n != 2 || v->items[0].t != J_NUM ||
	    v->items[1].t != J_NUM || v->items[0].num != x || v->items[1].num != y)
		return rg_fail("%s: %s%s is not [%u, %u] as the request has it (dense, row-major)",
			       desc, where, key, x, y);
	return 0;
}

static int want_f32(const char *desc, const struct jv *o, const char *key, float want)
{
	const struct jv *v = jget(o, key);
	if (!v || v->t != J_NUM)
		return rg_fail("%s: %s is missing or not a number", desc, key);
	char opt[32];             /* "d_scale" is --d-scale */
	snprintf(opt, sizeof opt, "%s", key);
	for (char *c = opt; *c; c++)
		*c = *c == '_' ? '-' : *c;
	if ((float)v->num != want)
		return rg_fail("%s: %s is %.9g, the request has %.9g; give --%s %.9g",
			       desc, key, v->num, (double)want, opt, v->num);
	return 0;
}

static int load_operand(const char *dir, const char *desc, const struct jv *ops,
			const struct operand_desc *o, void *buf, size_t bytes)
{
	char where[8], path[4096], *data = NULL;
	const struct jv *d, *file;
	size_t len;

	snprintf(where, sizeof where, "%c.", o->name);
	if (!(d = jget(ops, (char[2]){ o->name, 0 })) || d->t != J_OBJ)
		return rg_fail("%s: operands.%c is missing", desc, o->name);
	if (want_str(desc, d, "type", where, mmagen_type_name(o->type)) ||
	    want_pair(desc, d, "shape", where, o->rows, o->cols) ||
	    want_pair(desc, d, "strides", where, o->cols, 1) ||
	    want_str(desc, d, "order", where, "row-major") ||
	    (o->packing && want_str(desc, d, "packing", where, o->packing)))
		return -1;
	file = jget(d, "file");
	if (!file || file->t != J_STR || !file->str[0] || file->str[0] == '.' ||
	    strchr(file->str, '/'))
		return rg_fail("%s: %sfile must be a file name in the directory (no '/', not starting with '.')",
			       desc, where);
	if (path_of(path, sizeof path, dir, file->str) || read_file(path, bytes, &data, &len))
		return -1;
	if (len != bytes) {
		free(data);
		return rg_fail("--load: %s has %s%zu bytes; %c (%u x %u %s) needs %zu",
			       path, len > bytes ? "more than " : "", len > bytes ? bytes : len,
			       o->name, o->rows, o->cols, mmagen_type_name(o->type), bytes);
	}
	memcpy(buf, data, bytes);
	free(data);
	return 0;
}

int rg_load(const char *dir, struct rg_data *d, const char *layout)
{
	const struct rg_problem *p = &d->p;
	struct operand_desc o[4];
	char path[4096], *text = NULL;
	struct jv root = { 0 };
	struct jp jp = { 0 };
	size_t len;
	int rc = -1;

	if (!dir || !*dir)
		return rg_fail("--load needs a directory that --save wrote (e.g. --load run1)");

	if (path_of(path, sizeof path, dir, DESC_NAME) || read_file(path, 1 << 16, &text, &len))
		return -1;
	if (len > 1 << 16) {
		rg_fail("--load: %s is larger than 64 KiB; it is not a description that --save wrote", path);
		goto out;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		rg_fail("--load: %s holds a NUL byte; not JSON", path);
		goto out;
	}
	jp.s = text;
	if (parse_value(&jp, &root, 0) || (skip_ws(&jp), *jp.s)) {
		rg_fail("--load: %s is not JSON: %s at byte %zu", path,
			jp.err ? jp.err : "text after the value", (size_t)(jp.s - text));
		goto out;
	}
	if (root.t != J_OBJ) {
		rg_fail("--load: %s is not a JSON object", path);
		goto out;
	}
	if (want_str(path, &root, "format", "", DESC_FORMAT) ||
	    want_uint(path, &root, "version", "", 1) ||
	    want_str(path, &root, "byte_order", "", "little-endian") ||
	    want_str(path, &root, "layout", "", layout) ||
	    want_uint(path, &root, "m", "", p->m) || want_uint(path, &root, "n", "", p->n) ||
	    want_uint(path, &root, "k", "", p->k) ||
	    want_f32(path, &root, "alpha", p->alpha) || want_f32(path, &root, "beta", p->beta) ||
	    (rg_fp8_out(p) && want_f32(path, &root, "d_scale", p->d_scale)))
		goto out;
	if (rg_alloc(d))
		goto out;
	describe(p, o);
	const struct jv *ops = jget(&root, "operands");
	void *bufs[3] = { d->a, d->b, d->c };
	for (int i = 0; i < 3; i++)
		if (load_operand(dir, path, ops, &o[i], bufs[i], rg_bytes(p, o[i].name)))
			goto out;
	/* the inputs are the file's: a zero in them is the user's business,
	 * but NaN or Inf would make every comparison meaningless */
	for (int i = 0; i < 3; i++) {
		mmagen_type t = i == 0 ? p->a : i == 1 ? p->b : p->out;
		size_t count = (size_t)o[i].rows * o[i].cols;
		for (size_t e = 0; e < count; e++)
			if (!isfinite(rg_value(t, bufs[i], e))) {
				rg_fail("--load: %s/%s element %zu is not finite; the check needs finite inputs",
					dir, jget(jget(ops, (char[2]){ o[i].name, 0 }), "file")->str, e);
				goto out;
			}
	}
	rc = 0;
out:
	if (rc)
		rg_data_free(d);
	jv_free(&root);
	free(text);
	return rc;
}
