/* fuzz_quant.c - the block-scaled formats: mmagen_quantize and
 * mmagen_dequantize, and the CLI's quantize and dequantize reading files.
 *
 * Input: byte 0 picks the format (bits 0-1: mxfp8, mxfp6, mxfp4, nvfp4),
 * the second element type (bit 2), the mode (bits 3-4: library quantize,
 * library dequantize, CLI quantize, CLI dequantize), --count (bits 5-7);
 * byte 1 a global scale or where the CLI's two input files split; the
 * rest is the data (f32 little-endian, or packed elements then scales).
 *
 * Checked, independently of formats.c's arithmetic: quantize then
 * dequantize keeps each finite value's sign and lands within |x| of it
 * (round to nearest never moves further; saturation and underflow move
 * toward 0), keeps at least half the magnitude of each block's largest
 * value where the scale can represent it, and turns a block holding NaN
 * or Inf into NaN; dequantize gives NaN for the NaN scale code and +0
 * for element code 0.  The CLI exits 0, 1 or 2 with one line on failure,
 * writes files of the sizes the format implies, the same bytes as the
 * library, and leaves nothing behind when it fails. */
#define _GNU_SOURCE
#include "fuzz.h"

#include "mmagen.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];
static void clean(void);

static void remove_dir(void)
{
	clean();
	rmdir(dir);
}

/* The files the CLI reads and writes live in a directory of our own. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof dir, "%s/mmagen-fuzz-quant-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(dir), "cannot make a directory %s", dir);
	atexit(remove_dir);
	return 0;
}

static unsigned scale_nan(unsigned fmt)
{
	return fmt == MMAGEN_QF_NVFP4 ? 0x7F : 0xFF;
}

static void check_roundtrip(const mmagen_quant_spec *s, const float *x, size_t count,
			    const uint8_t *scales, const float *y)
{
	for (size_t b0 = 0; b0 < count; b0 += s->block) {
		size_t n = count - b0 < s->block ? count - b0 : s->block, big = b0;
		int special = 0;
		for (size_t i = b0; i < b0 + n; i++) {
			special |= !isfinite(x[i]);
			if (fabsf(x[i]) > fabsf(x[big]))
				big = i;
		}
		if (special) {
			FUZZ_CHECK(scales[b0 / s->block] == scale_nan(s->format),
				   "block %zu holds NaN/Inf, scale code %#x", b0 / s->block,
				   scales[b0 / s->block]);
			for (size_t i = b0; i < b0 + n; i++)
				FUZZ_CHECK(isnan(y[i]), "value %zu of a NaN/Inf block is %g", i,
					   (double)y[i]);
			continue;
		}
		for (size_t i = b0; i < b0 + n; i++) {
			double xi = x[i], yi = y[i];
			FUZZ_CHECK(isfinite(yi) && xi * yi >= 0 &&
				   fabs(yi - xi) <= fabs(xi) * (1 + 0x1p-20),
				   "%s: %.9g came back as %.9g", mmagen_qformat_name(s->format),
				   xi, yi);
		}
		/* the block's largest value, where its scale is in range: MX
		 * 2^(e-emax) >= 2^-127; NVFP4 amax/6/g a normal ue4m3 <= 448 */
		double amax = fabs(x[big]), sc = amax / 6.0 / s->global_scale;
		int in_range = s->format == MMAGEN_QF_NVFP4 ? sc >= 0x1p-6 && sc <= 448.0
							    : amax >= 0x1p-100;
		if (in_range)
			FUZZ_CHECK(fabs((double)y[big]) >= amax / 2,
				   "%s: the block's largest value %.9g came back as %.9g",
				   mmagen_qformat_name(s->format), amax, (double)y[big]);
	}
}

static void lib_quantize(mmagen_quant_spec *s, const uint8_t *p, size_t len, unsigned g)
{
	size_t count = len / 4, ne, ns;
	float *x = malloc(count * sizeof *x + 1), *y = malloc(count * sizeof *y + 1);
	uint8_t *e, *sc;

	if (s->format == MMAGEN_QF_NVFP4 && g)   /* a global scale 2^-64 .. 2^63 */
		s->global_scale = ldexp(1.0 + (g & 7) / 8.0, (int)(g >> 3) * 4 - 64);
	mmagen_quant_sizes(s, count, &ne, &ns);
	e = malloc(ne + 1);
	sc = malloc(ns + 1);
	FUZZ_CHECK(x && y && e && sc, "out of memory");
	memcpy(x, p, count * 4);
	FUZZ_CHECK(!mmagen_quantize(s, x, count, e, sc), "quantize: %s", mmagen_last_error());
	FUZZ_CHECK(!mmagen_dequantize(s, e, sc, count, y), "dequantize: %s",
		   mmagen_last_error());
	check_roundtrip(s, x, count, sc, y);
	free(x);
	free(y);
	free(e);
	free(sc);
}

static void lib_dequantize(const mmagen_quant_spec *s, const uint8_t *p, size_t len)
{
	/* as many values as the bytes hold with their scales */
	size_t count = len * 8 / s->elem_bits, ne, ns;
	for (;; count--) {
		mmagen_quant_sizes(s, count, &ne, &ns);
		if (!count || ne + ns <= len)
			break;
	}
	float *y = malloc(count * sizeof *y + 1);
	FUZZ_CHECK(y, "out of memory");
	FUZZ_CHECK(!mmagen_dequantize(s, p, p + ne, count, y), "dequantize: %s",
		   mmagen_last_error());
	for (size_t i = 0; i < count; i++) {
		unsigned code = s->elem_bits == 4 ? (p[i / 2] >> (i % 2 * 4)) & 15 : p[i];
		unsigned scode = p[ne + i / s->block];
		/* ue4m3 ignores bit 7 of its byte (mmagen.h) */
		if (s->format == MMAGEN_QF_NVFP4)
			scode &= 0x7F;
		if (scode == scale_nan(s->format))
			FUZZ_CHECK(isnan(y[i]), "value %zu under the NaN scale is %g", i,
				   (double)y[i]);
		else if (code == 0)
			FUZZ_CHECK(y[i] == 0 && !signbit(y[i]), "code 0 is %g", (double)y[i]);
	}
	free(y);
}

/* ---- the CLI on files ---- */

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(p, 1, n, f) == n && !fclose(f), "cannot write %s", path);
}

/* The bytes of dir/name (NULL if absent). */
static uint8_t *get(const char *name, size_t *n)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	FUZZ_CHECK(!fstat(fileno(f), &st), "stat %s", path);
	uint8_t *b = malloc((size_t)st.st_size + 1);
	FUZZ_CHECK(b && fread(b, 1, (size_t)st.st_size, f) == (size_t)st.st_size,
		   "cannot read %s", path);
	fclose(f);
	*n = (size_t)st.st_size;
	return b;
}

static void clean(void)
{
	static const char *const names[] = { "in", "sc", "out", "out.quant-part" };
	char path[4200];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
}

static void cli(int dequant, const mmagen_quant_spec *s, int alt, unsigned countsel,
		unsigned b1, const uint8_t *p, size_t len)
{
	static const char *const globals[] = { NULL, "auto", "1", "0.5", "3e-39",
		"-1", "nan", "1e39", "0x1p-10", "", " 1" };
	char in[4200], out[4200], scp[4200], cnt[32], *argv[20], *o, *err;
	size_t olen, elen, split = len ? b1 * len / 256 : 0, count = 0, ne, ns;
	const char *fmt = mmagen_qformat_name(s->format), *g = globals[b1 % 11];
	int argc = 0, rc;

	clean();
	snprintf(in, sizeof in, "%s/in", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(scp, sizeof scp, "%s/sc", dir);
	if (dequant) {
		put("in", p, split);
		put("sc", p + split, len - split);
		count = split * 8 / s->elem_bits;
	} else {
		put("in", p, len);
		count = len / 4;
	}
	argv[argc++] = (char *)"mmagen";
	argv[argc++] = (char *)(dequant ? "dequantize" : "quantize");
	argv[argc++] = (char *)"--format";
	argv[argc++] = (char *)fmt;
	if (alt) {
		argv[argc++] = (char *)"--elem";
		argv[argc++] = (char *)mmagen_type_name((mmagen_type)s->elem);
	}
	argv[argc++] = (char *)"--in";
	argv[argc++] = in;
	argv[argc++] = (char *)"--out";
	argv[argc++] = out;
	argv[argc++] = (char *)"--scales";
	argv[argc++] = scp;
	if (countsel) {
		/* 1: the right count, 2: one more, 3: one less, then junk */
		static const char *const junk[] = { "0", "-1", "99999999999999999999", "1x" };
		if (countsel <= 3) {
			count = countsel == 1 ? count : countsel == 2 ? count + 1 :
				count ? count - 1 : 0;
			snprintf(cnt, sizeof cnt, "%zu", count);
		} else {
			snprintf(cnt, sizeof cnt, "%s", junk[countsel - 4]);
		}
		argv[argc++] = (char *)"--count";
		argv[argc++] = cnt;
	}
	if (g) {
		argv[argc++] = (char *)"--global-scale";
		argv[argc++] = (char *)g;
	}
	argv[argc] = NULL;

	rc = fuzz_cli_run(0, argc, argv, &o, &olen, &err, &elen);
	fuzz_cli_check(argc, argv, rc, err, elen);
	FUZZ_CHECK(rc != 77, "77 from %s", argv[1]);

	size_t on = 0, sn = 0, pn = 0;
	uint8_t *ob = get("out", &on), *sb = dequant ? NULL : get("sc", &sn);
	uint8_t *part = get("out.quant-part", &pn);
	FUZZ_CHECK(!part, "%s left out.quant-part behind (exit %d)", argv[1], rc);
	if (rc) {
		FUZZ_CHECK(!ob && (dequant || !sb), "%s failed (%d: %s) and left output behind",
			   argv[1], rc, err);
	} else if (dequant) {
		FUZZ_CHECK(ob && on == 4 * count && count, "dequantize wrote %zu bytes for %zu "
			   "values", on, count);
	} else {
		/* the library on the same values must give the same bytes */
		mmagen_quant_spec t = *s;
		float *x = malloc(count * 4 + 1);
		mmagen_quant_sizes(s, count, &ne, &ns);
		uint8_t *e = malloc(ne + 1), *sc = malloc(ns + 1);
		FUZZ_CHECK(x && e && sc, "out of memory");
		memcpy(x, p, count * 4);
		if (g && !strcmp(g, "auto"))
			t.global_scale = mmagen_nvfp4_global_scale(x, count);
		else if (g)
			t.global_scale = strtod(g, NULL);
		FUZZ_CHECK(ob && sb && on == ne && sn == ns, "quantize wrote %zu and %zu bytes, "
			   "not %zu and %zu", on, sn, ne, ns);
		FUZZ_CHECK(!mmagen_quantize(&t, x, count, e, sc), "%s", mmagen_last_error());
		FUZZ_CHECK(!memcmp(e, ob, ne) && !memcmp(sc, sb, ns),
			   "quantize's files differ from mmagen_quantize");
		free(x);
		free(e);
		free(sc);
	}
	free(ob);
	free(sb);
	free(o);
	free(err);
	clean();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned b0 = fuzz_byte(&in), b1 = fuzz_byte(&in);
	unsigned fmt = MMAGEN_QF_MXFP8 + (b0 & 3), alt = (b0 >> 2) & 1;
	unsigned mode = (b0 >> 3) & 3, countsel = b0 >> 5;
	mmagen_quant_spec s;
	mmagen_type elem = MMAGEN_TYPE_NONE;

	if (alt) {
		/* the format's second element type, where it has one */
		if (fmt == MMAGEN_QF_MXFP8)
			elem = MMAGEN_E5M2;
		else if (fmt == MMAGEN_QF_MXFP6)
			elem = MMAGEN_E2M3;
		else
			alt = 0;
	}
	FUZZ_CHECK(!mmagen_quant_spec_init(&s, fmt, elem), "spec_init: %s",
		   mmagen_last_error());
	if (in.n > (1 << 16))     /* the sizes and checks are per byte: keep runs quick */
		return 0;
	switch (mode) {
	case 0:
		lib_quantize(&s, in.p, in.n, b1);
		break;
	case 1:
		lib_dequantize(&s, in.p, in.n);
		break;
	default:
		cli(mode == 3, &s, (int)alt, countsel, b1, in.p, in.n);
		break;
	}
	return 0;
}
