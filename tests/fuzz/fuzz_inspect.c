/* fuzz_inspect.c - inspect's readers (gen/analysis/inspect.c, gen/analysis/elf.c): PTX,
 * cubins (ELF), fatbinaries and host objects through
 * mmagen_inspect_buffer, then SASS text through mmagen_inspect_add_sass
 * and both reports.
 *
 * Byte 0 chooses what the rest is: bit 0 clear: the whole input goes to
 * mmagen_inspect_buffer; set: the input is split at its first 0xff byte,
 * the part before it read as a file, the part after it added as SASS text
 * (bit 1: for "sm_90", else for the target the text names).  Checked,
 * independently of the reader: a status that is OK or names bad input
 * (never INTERNAL, never a crash); every image's bytes lie inside the
 * copy the reader holds or are its own; counts and the items at them
 * agree (each index below the count gives an item, the one at the count
 * none); verdict names are the four documented; both reports are
 * NUL-terminated, as long as they say, and the JSON one balances its
 * brackets outside strings. */
#include "fuzz.h"

#include "mmagen.h"

#include <string.h>

static void check_json(const char *s, size_t len)
{
	long depth = 0;
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			FUZZ_CHECK(--depth >= 0, "JSON closes more than it opens at %zu", i);
	}
	FUZZ_CHECK(!in_str && depth == 0, "JSON unbalanced: depth %ld, in string %d", depth,
		   in_str);
}

static void check_report(const mmagen_inspect *r)
{
	static const struct { unsigned v; const char *name; } names[] = {
		{ MMAGEN_VERDICT_UNKNOWN, "unknown" }, { MMAGEN_VERDICT_NATIVE, "native" },
		{ MMAGEN_VERDICT_CONVERTED, "converted" }, { MMAGEN_VERDICT_EMULATED, "emulated" },
	};
	size_t n = mmagen_inspect_image_count(r);
	for (size_t i = 0; i < n; i++) {
		const mmagen_inspect_image *im = mmagen_inspect_image_at(r, i);
		FUZZ_CHECK(im && im->where && im->note && im->target, "image %zu incomplete", i);
		FUZZ_CHECK(!im->len || im->data, "image %zu: %zu bytes at NULL", i, im->len);
	}
	FUZZ_CHECK(!mmagen_inspect_image_at(r, n), "an image past the count %zu", n);
	n = mmagen_inspect_op_count(r);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(mmagen_inspect_op_at(r, i), "op %zu missing", i);
	FUZZ_CHECK(!mmagen_inspect_op_at(r, n), "an op past the count %zu", n);
	n = mmagen_inspect_verdict_count(r);
	for (size_t i = 0; i < n; i++) {
		const mmagen_inspect_verdict *v = mmagen_inspect_verdict_at(r, i);
		FUZZ_CHECK(v && v->verdict <= MMAGEN_VERDICT_EMULATED, "verdict %zu: %u", i,
			   v ? v->verdict : 99u);
	}
	FUZZ_CHECK(!mmagen_inspect_verdict_at(r, n), "a verdict past the count %zu", n);
	for (unsigned i = 0; i < 4; i++)
		FUZZ_CHECK(!strcmp(mmagen_inspect_verdict_name(names[i].v), names[i].name),
			   "verdict name %u", names[i].v);

	const mmagen_format fmts[2] = { MMAGEN_FMT_TEXT, MMAGEN_FMT_JSON };
	for (int f = 0; f < 2; f++) {
		char *out = NULL;
		size_t len = 0;
		mmagen_status s = mmagen_inspect_render(r, fmts[f], &out, &len);
		FUZZ_CHECK(s == MMAGEN_OK || s == MMAGEN_NO_MEMORY, "render %d: %s", f,
			   mmagen_last_error());
		if (s != MMAGEN_OK)
			continue;
		FUZZ_CHECK(out && strlen(out) == len, "render %d: length %zu, strlen %zu", f, len,
			   out ? strlen(out) : 0);
		if (fmts[f] == MMAGEN_FMT_JSON)
			check_json(out, len);
		mmagen_free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned mode = data[0];
	const uint8_t *p = data + 1;
	size_t n = size - 1, file_len = n;
	const uint8_t *sass = NULL;
	size_t sass_len = 0;
	if (mode & 1) {
		const uint8_t *cut = memchr(p, 0xff, n);
		if (cut) {
			file_len = (size_t)(cut - p);
			sass = cut + 1;
			sass_len = n - file_len - 1;
		}
	}
	mmagen_inspect *r = NULL;
	mmagen_status s = mmagen_inspect_buffer(p, file_len, &r);
	FUZZ_CHECK(s != MMAGEN_INTERNAL, "inspect_buffer: %s", mmagen_last_error());
	if (s != MMAGEN_OK) {
		FUZZ_CHECK(!r, "a result with status %d", (int)s);
		FUZZ_CHECK(*mmagen_last_error(), "status %d without a message", (int)s);
		return 0;
	}
	FUZZ_CHECK(r, "OK without a result");
	if (sass) {
		s = mmagen_inspect_add_sass(r, mode & 2 ? "sm_90" : NULL, (const char *)sass,
					    sass_len);
		FUZZ_CHECK(s != MMAGEN_INTERNAL, "add_sass: %s", mmagen_last_error());
	}
	check_report(r);
	mmagen_inspect_free(r);
	return 0;
}
