/* cli_names.c - the command line's spellings of families and qualifiers,
 * all taken from the library's family list and qualifier table (family.c,
 * qual.c): the value tables below are filled from it at start, so that
 * help, docs/cli.md and the completion script name exactly what the
 * library accepts (the library parses the selector options itself:
 * mmagen_request_set).  Value tables: { spelling, value, alias } (cli.h). */
#include "cli_opts.h"

#include <string.h>

#define QUAL_VALS 40       /* spellings per qualifier, aliases included */

struct cli_value cli_sparse_vals[QUAL_VALS], cli_yesno_vals[QUAL_VALS],
	cli_popc_vals[QUAL_VALS], cli_kind_vals[QUAL_VALS],
	cli_scale_vec_vals[QUAL_VALS], cli_cta_vals[QUAL_VALS],
	cli_asrc_vals[QUAL_VALS], cli_num_vals[QUAL_VALS],
	cli_ldtype_vals[QUAL_VALS], cli_rnd_vals[QUAL_VALS],
	cli_stype_vals[QUAL_VALS];

/* Every spelling of field q, from mmagen_qual_legal; a spelling is an
 * alias when the library names its value otherwise. */
static void fill(struct cli_value *t, mmagen_qual_field q)
{
	static char buf[32][512];
	static unsigned used;
	char *list = buf[used++ % 32];
	int n = 0;

	mmagen_qual_legal(q, list, sizeof buf[0]);
	for (char *s = strtok(list, ", "); s && n < QUAL_VALS - 1; s = strtok(NULL, ", ")) {
		unsigned v;
		if (mmagen_qual_parse(q, s, &v))
			continue;
		const char *name = mmagen_qual_name(q, v);
		t[n].name = s;
		t[n].v = v;
		t[n].alias = !name || strcmp(name, s) != 0;
		n++;
	}
	t[n].name = NULL;
}

void cli_names_init(void)
{
	fill(cli_sparse_vals, MMAGEN_Q_SPARSE);
	fill(cli_yesno_vals, MMAGEN_Q_SATFINITE);
	fill(cli_popc_vals, MMAGEN_Q_BITOP);
	fill(cli_kind_vals, MMAGEN_Q_KIND);
	fill(cli_scale_vec_vals, MMAGEN_Q_SCALE_VEC);
	fill(cli_cta_vals, MMAGEN_Q_CTA_GROUP);
	fill(cli_asrc_vals, MMAGEN_Q_ASRC);
	fill(cli_num_vals, MMAGEN_Q_NUM);
	fill(cli_ldtype_vals, MMAGEN_Q_LDTYPE);
	fill(cli_rnd_vals, MMAGEN_Q_RND);
	fill(cli_stype_vals, MMAGEN_Q_STYPE);
}

/* The family column of `list`. */
const char *cli_family_label(const mmagen_form *f)
{
	return mmagen_form_family_label(f);
}

const char *cli_asrc_name(unsigned asrc)
{
	const char *n = mmagen_qual_name(MMAGEN_Q_ASRC, asrc);
	return n ? n : "-";
}
