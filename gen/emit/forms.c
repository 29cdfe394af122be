/* forms.c - one module with an entry per form, for checking many forms
 * with one ptxas run (tests/ptxas, tests/sweep). */
#include "emit.h"

#include <stdio.h>

mmagen_status emit_forms_module(const mmagen_form *const *fs, size_t n, int t,
				unsigned version, char **out, size_t *len,
				size_t *first_line)
{
	struct buf b;
	char name[32];
	size_t lines = 1, counted = 0;

	buf_init(&b);
	emit_header(&b, t, version);
	for (size_t i = 0; i < n; i++) {
		/* count only the text added since the last entry: modules of
		 * thousands of entries stay linear */
		if (first_line) {
			for (; counted < b.len; counted++)
				lines += b.data[counted] == '\n';
			first_line[i] = lines;
		}
		snprintf(name, sizeof name, "mmagen_f%zu", i);
		emit_test_entry(&b, fs[i], name);
	}
	return buf_finish(&b, out, len);
}
