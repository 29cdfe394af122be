/* cli_quant.c - `mmagen quantize` and `mmagen dequantize`: raw
 * little-endian f32 <-> packed MX/NVFP4 elements and scales, in files.
 * The byte formats are those of mmagen_quantize (mmagen.h).  Output goes
 * through mmagen_write_files; quantize's two files appear together or
 * not at all.  quantize --global-scale auto (nvfp4) prints the scale it chose,
 * which dequantize then needs. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The file holds exactly `want` bytes. */
static int expect_size(const char *path, size_t len, size_t want, const char *what)
{
	char msg[160];
	if (len == want)
		return 0;
	snprintf(msg, sizeof msg, "holds %zu bytes; %s need %zu", len, what, want);
	return cli_fail(CLI_USAGE, "%s %s", cli_quote(path), msg);
}

/* Input of unknown size (a pipe or a device, no --count) is read up to
 * this; a regular file's size is known before reading. */
#define STREAM_MAX ((size_t)1 << 28)
#define UNBOUNDED (SIZE_MAX / 2)

/* The whole file in *data (freed by the caller), at most `max` bytes:
 * what the format implies for `what`, or for what == NULL no bound but
 * STREAM_MAX on a stream, so that /dev/zero ends in one line, not in all
 * the memory there is. */
static int read_all(const char *path, size_t max, const char *what,
		    unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = NULL;

	if (!f)
		return cli_fail(CLI_USAGE, "cannot read %s: %s", cli_quote(path), strerror(errno));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		if (!what)
			max = STREAM_MAX;
	} else if (what && (uintmax_t)st.st_size > max) {
		/* a file says its size: the exact figure, not "more than" */
		fclose(f);
		return expect_size(path, (size_t)st.st_size, max, what);
	}
	if (cap > max + 1)
		cap = max + 1;
	for (size_t got = 1; got; n += got) {
		if (n == cap) {
			unsigned char *nb = NULL;
			if (n > max) {
				free(buf);
				fclose(f);
				if (what)
					return cli_fail(CLI_USAGE, "%s holds more than %zu bytes; %s need %zu",
							cli_quote(path), max, what, max);
				return cli_fail(CLI_USAGE, "%s holds more than %zu bytes; give --count "
						"to read more from a stream", cli_quote(path), max);
			}
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return cli_fail(CLI_USAGE, "%s: out of memory", cli_quote(path));
			}
			buf = nb;
		} else if (!buf && !(buf = malloc(cap))) {
			fclose(f);
			return cli_fail(CLI_USAGE, "%s: out of memory", cli_quote(path));
		}
		got = fread(buf + n, 1, cap - n, f);
	}
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(buf);
		return cli_fail(CLI_USAGE, "cannot read %s: %s", cli_quote(path), strerror(err));
	}
	*data = buf;
	*len = n;
	return 0;
}

static int quant_spec_of(const struct quant_args *q, mmagen_quant_spec *s)
{
	unsigned fmt;
	mmagen_type elem = MMAGEN_TYPE_NONE;

	/* unknown names are usage errors (2); a known pair that does not go
	 * together is an illegal request (1) */
	if (mmagen_qformat_parse(q->format, &fmt))
		return cli_lib_fail(CLI_USAGE, "--format");
	if (q->elem && mmagen_type_parse(q->elem, &elem))
		return cli_lib_fail(CLI_USAGE, "--elem");
	if (mmagen_quant_spec_init(s, fmt, elem))
		return cli_lib_fail(1, NULL);
	if (q->global && strcmp(q->global, "auto")) {
		char *end;
		double g = strtod(q->global, &end);
		if (*end || end == q->global || !(g > 0.0 && g <= 3.4028234663852886e38))
			return cli_fail(CLI_USAGE, "bad --global-scale %s; give a positive "
					"finite number", cli_quote(q->global));
		s->global_scale = g;
	}
	if (q->global && fmt != MMAGEN_QF_NVFP4)
		return cli_fail(CLI_USAGE, "%s has no global scale; --global-scale is for nvfp4",
				mmagen_qformat_name(fmt));
	return 0;
}

static int parse_count(const char *v, size_t *count)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno || n == 0 || n > ((size_t)1 << 40))
		return cli_fail(CLI_USAGE, "bad --count %s; give a positive number of values",
				cli_quote(v));
	*count = (size_t)n;
	return 0;
}

/* How many f32 values the input of `len` bytes holds (--count, already
 * in *count, or all). */
static int f32_count(const struct quant_args *q, size_t len, size_t *count)
{
	if (q->count)
		return expect_size(q->in, len, *count * 4, "the f32 values");
	if (len % 4 || !len)
		return cli_fail(CLI_USAGE, "%s holds %s bytes: not a non-empty f32 array",
				cli_quote(q->in), len ? "a partial f32 in its" : "no");
	*count = len / 4;
	return 0;
}

/* Both files or neither (mmagen_write_files); two paths naming one file
 * are a usage error. */
static int write_pair(const struct quant_args *q, const unsigned char *eb,
		      size_t ne, const unsigned char *sb, size_t ns)
{
	const char *paths[2] = { q->out, q->scales };
	const char *data[2] = { (const char *)eb, (const char *)sb };
	size_t lens[2] = { ne, ns };
	mmagen_status s = mmagen_write_files(2, paths, data, lens);

	return s ? cli_lib_fail(s == MMAGEN_INVALID_ARGUMENT ? CLI_USAGE : 1, NULL) : 0;
}

static int quantize_files(const struct quant_args *q, mmagen_quant_spec *s)
{
	unsigned char *raw, *eb = NULL, *sb = NULL;
	float *x = NULL;
	size_t len, count = 0, ne, ns;
	int rc;

	if (q->count && (rc = parse_count(q->count, &count)))
		return rc;
	if ((rc = read_all(q->in, count ? count * 4 : UNBOUNDED, count ? "the f32 values" : NULL,
			   &raw, &len)))
		return rc;
	if ((rc = f32_count(q, len, &count)))
		goto out;
	mmagen_quant_sizes(s, count, &ne, &ns);
	x = malloc(count * sizeof *x);
	eb = calloc(ne, 1);
	sb = calloc(ns, 1);
	if (!x || !eb || !sb) {
		rc = cli_fail(CLI_USAGE, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t w = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
			     (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		memcpy(&x[i], &w, 4);
	}
	if (q->global && !strcmp(q->global, "auto"))
		s->global_scale = mmagen_nvfp4_global_scale(x, count);
	if (mmagen_quantize(s, x, count, eb, sb))
		rc = cli_lib_fail(1, NULL);
	else if (!(rc = write_pair(q, eb, ne, sb, ns)) && q->global &&
		 !strcmp(q->global, "auto"))
		printf("global_scale %.9g\n", s->global_scale);
out:
	free(raw);
	free(x);
	free(eb);
	free(sb);
	return rc;
}

static int dequantize_files(const struct quant_args *q, const mmagen_quant_spec *s)
{
	unsigned char *eb, *sb = NULL, *raw = NULL;
	float *y = NULL;
	size_t elen, slen, count, ne, ns;
	int rc;

	/* --count, or else the elements, bound what the other inputs may hold */
	if (q->count) {
		if ((rc = parse_count(q->count, &count)))
			return rc;
		mmagen_quant_sizes(s, count, &ne, &ns);
	}
	if ((rc = read_all(q->in, q->count ? ne : UNBOUNDED, q->count ? "the elements" : NULL,
			   &eb, &elen)))
		return rc;
	if (!q->count) {
		count = elen * 8 / s->elem_bits;
		mmagen_quant_sizes(s, count, &ne, &ns);
	}
	if (!count) {
		rc = cli_fail(CLI_USAGE, "%s is empty", cli_quote(q->in));
		goto out;
	}
	if ((rc = read_all(q->scales, ns, "the scales", &sb, &slen)))
		goto out;
	if ((rc = expect_size(q->in, elen, ne, "the elements")) ||
	    (rc = expect_size(q->scales, slen, ns, "the scales")))
		goto out;
	y = malloc(count * sizeof *y);
	raw = malloc(count * 4);
	if (!y || !raw) {
		rc = cli_fail(CLI_USAGE, "out of memory");
		goto out;
	}
	if (mmagen_dequantize(s, eb, sb, count, y)) {
		rc = cli_lib_fail(1, NULL);
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t w;
		memcpy(&w, &y[i], 4);
		for (int b = 0; b < 4; b++)
			raw[4 * i + b] = (unsigned char)(w >> 8 * b);
	}
	rc = mmagen_write_file(q->out, (const char *)raw, count * 4) ? cli_lib_fail(1, NULL) : 0;
out:
	free(eb);
	free(sb);
	free(raw);
	free(y);
	return rc;
}

/* Whether two paths name one existing file (through links too). */
static int one_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Both: the four files given, and no output on an input (it would be
 * replaced before a second run could read it again); dequantize reads
 * --scales, quantize writes it. */
static int quant_prepare(const char *cmd, int de, const struct quant_args *q,
			 mmagen_quant_spec *s)
{
	if (!q->format || !q->in || !q->out || !q->scales)
		return cli_fail(CLI_USAGE, "%s needs --format, --in, --out and --scales", cmd);
	const char *in[2] = { q->in, de ? q->scales : NULL };
	const char *out[2] = { q->out, de ? NULL : q->scales };
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (in[i] && out[j] && (!strcmp(in[i], out[j]) || one_file(in[i], out[j])))
				return cli_fail(CLI_USAGE, "%s: %s %s is its input %s too, which it would replace; give %s another file",
						cmd, j ? "--scales" : "--out", cli_quote(out[j]),
						i ? "--scales" : "--in", j ? "--scales" : "--out");
	return quant_spec_of(q, s);
}

int cmd_quantize(struct opts *o)
{
	mmagen_quant_spec s;
	int rc = quant_prepare("quantize", 0, &o->q, &s);

	if (rc)
		return rc;
	if (!strcmp(o->q.out, o->q.scales))
		return cli_fail(CLI_USAGE, "quantize writes two files; --out and --scales "
				"are both %s", cli_quote(o->q.out));
	return quantize_files(&o->q, &s);
}

int cmd_dequantize(struct opts *o)
{
	mmagen_quant_spec s;
	int rc = quant_prepare("dequantize", 1, &o->q, &s);

	if (rc)
		return rc;
	if (o->q.global && !strcmp(o->q.global, "auto"))
		return cli_fail(CLI_USAGE, "dequantize needs the global scale's value, not 'auto'");
	return dequantize_files(&o->q, &s);
}
