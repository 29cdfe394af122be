/* cli_list.c - `mmagen list`: the forms of the table that match the
 * selector fields, as a table, JSON, or distinct opcodes; or the targets. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int filtered_out(const struct opts *o, const mmagen_form *f)
{
	unsigned t = o->type;
	if (o->arch && !mmagen_form_on_target(f, o->req.target))
		return 1;
	if (!mmagen_form_matches(&o->req, f))
		return 1;
	return t != MMAGEN_ANY && f->a != t && f->b != t && f->c != t && f->d != t &&
	       f->stype != t;
}

static const char *tname(int t)
{
	return t ? mmagen_type_name((mmagen_type)t) : "-";
}

/* Natural order: runs of digits compare as numbers, so m64n16 comes
 * before m64n104 and cta_group::1 before cta_group::2. */
static int cmp_natural(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c)
				return c;
			a = ea, b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int cmp_str(const void *a, const void *b)
{
	return cmp_natural(*(char *const *)a, *(char *const *)b);
}

static int list_opcodes(const struct opts *o)
{
	size_t n = mmagen_form_count(), k = 0;
	char **ops = malloc(n * sizeof *ops);
	int rc = 0;

	if (!ops)
		return cli_fail(1, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const mmagen_form *f = mmagen_form_at(i);
		char op[256];
		if (filtered_out(o, f))
			continue;
		if (!(ops[k++] = strdup(mmagen_form_opcode(f, op, sizeof op))))
			rc = 1;
	}
	if (rc) {
		cli_fail(1, "out of memory");
		goto out;
	}
	qsort(ops, k, sizeof *ops, cmp_str);
	if (o->json)
		fputs("[", stdout);
	for (size_t i = 0, first = 1; i < k; i++) {
		if (i && !strcmp(ops[i], ops[i - 1]))
			continue;
		if (o->json)
			printf("%s\n  \"%s\"", first ? "" : ",", ops[i]);
		else
			puts(ops[i]);
		first = 0;
	}
	if (o->json)
		puts(k ? "\n]" : "]");
out:
	for (size_t i = 0; i < k; i++)
		free(ops[i]);
	free(ops);
	return rc;
}

static void list_targets(const struct opts *o)
{
	if (o->json)
		fputs("[", stdout);
	for (int t = 0; t < mmagen_target_count(); t++) {
		unsigned v = mmagen_target_min_ptx(t);
		if (o->json)
			printf("%s\n  {\"name\": \"%s\", \"min_ptx\": \"%u.%u\"}",
			       t ? "," : "", mmagen_target_name(t), v / 10, v % 10);
		else
			printf("%-8s  ptx>=%u.%u\n", mmagen_target_name(t), v / 10, v % 10);
	}
	if (o->json)
		puts("\n]");
}

static void list_row(const struct opts *o, const mmagen_form *f, int first)
{
	char op[256], shape[64];
	int t = o->arch ? o->req.target : mmagen_form_min_target(f);
	int mt = mmagen_form_min_target(f);
	unsigned v = mmagen_form_min_ptx(f, t);

	mmagen_form_opcode(f, op, sizeof op);
	mmagen_form_shape(f, shape, sizeof shape);
	if (o->json) {
		/* every facet under its option's name ('-' as '_'): the
		 * values given back as options select this form alone */
		printf("%s  {\"opcode\": \"%s\"", first ? "" : ",\n", op);
		for (unsigned i = 0; mmagen_facet_name(i); i++) {
			char key[32], val[64];
			snprintf(key, sizeof key, "%s", mmagen_facet_name(i));
			for (char *p = key; *p; p++)
				*p = *p == '-' ? '_' : *p;
			printf(", \"%s\": \"%s\"", key, mmagen_form_facet(f, i, val, sizeof val));
		}
		printf(", \"a_source\": \"%s\", \"min_arch\": \"%s\", \"min_ptx\": \"%u.%u\"}",
		       cli_asrc_name(f->asrc), mmagen_target_name(mt), v / 10, v % 10);
	} else {
		printf("%-24s %-10s %-5s %-5s %-5s %-5s %-5s %-8s %u.%-5u %-4s %s\n",
		       cli_family_label(f), shape, tname(f->a), tname(f->b),
		       tname(f->c), tname(f->d), tname(f->stype), mmagen_target_name(mt),
		       v / 10, v % 10, cli_asrc_name(f->asrc), op);
	}
}

/* Any selector field or --type given? */
static int filters(const struct opts *o)
{
	mmagen_request none;
	mmagen_request_init(&none);
	none.target = o->req.target;
	return o->arch || o->type != MMAGEN_ANY || memcmp(&none, &o->req, sizeof none);
}

int cmd_list(struct opts *o)
{
	int first = 1;

	if (o->opcodes && o->targets)
		return cli_fail(CLI_USAGE, "list prints one of --opcodes, --targets; "
				"give only one (--json goes with either)");
	if (o->targets) {
		if (filters(o))
			return cli_fail(CLI_USAGE, "list --targets prints every target; "
					"it takes no selector fields or --type");
		list_targets(o);
		return 0;
	}
	if (o->opcodes)
		return list_opcodes(o);
	if (o->json)
		puts("[");
	else
		printf("%-24s %-10s %-5s %-5s %-5s %-5s %-5s %-8s %-7s %-4s %s\n", "family",
		       "shape", "a", "b", "c", "d", "stype", "min_arch", "min_ptx", "asrc",
		       "opcode");
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (filtered_out(o, f))
			continue;
		list_row(o, f, first);
		first = 0;
	}
	if (o->json)
		puts(first ? "]" : "\n]");
	return 0;
}
