/* cli.c - the table-driven command line engine (see cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "mmagen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ---- */

int cli_fail(int rc, const char *fmt, ...)
{
	va_list ap;

	fputs(CLI_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return rc;
}

static int printable(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

int cli_lib_fail(int rc, const char *prefix)
{
	fputs(CLI_PROG ": ", stderr);
	if (prefix)
		fprintf(stderr, "%s: ", prefix);
	for (const unsigned char *p = (const unsigned char *)mmagen_last_error(); *p; p++)
		if (printable(*p))
			fputc(*p, stderr);
		else
			fprintf(stderr, "\\x%02x", *p);
	fputc('\n', stderr);
	return rc;
}

const char *cli_quote(const char *s)
{
	static char bufs[4][4 * CLI_QUOTE_MAX + 8];
	static unsigned next;
	char *b = bufs[next++ % 4], *p = b;
	size_t n = 0;

	*p++ = '\'';
	for (; *s && n < CLI_QUOTE_MAX; s++, n++) {
		unsigned char c = (unsigned char)*s;
		if (printable(c) && c != '\'' && c != '\\')
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	if (*s)
		p += sprintf(p, "...");
	*p++ = '\'';
	*p = '\0';
	return b;
}

int cli_stdout_done(void)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	return cli_fail(1, "cannot write standard output: %s",
			errno ? strerror(errno) : "write error");
}

/* Optimal string alignment distance: Levenshtein plus the transposition
 * of two neighbours ("emti" is one edit from "emit"). */
size_t cli_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[3][CLI_SUGGEST_MAX + 1], *pp = d[0], *prev = d[1], *row = d[2];

	if (la > CLI_SUGGEST_MAX || lb > CLI_SUGGEST_MAX)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t = pp;
		pp = prev, prev = row, row = t;
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			row[j] = best;
		}
	}
	return row[lb];
}

/* close enough to suggest: a typo, not a different word */
static int near(size_t d, const char *word)
{
	return d <= 2 && d * 3 <= strlen(word);
}

int cli_pick(const char *opt, const char *v, const struct cli_value *vals,
	     unsigned *out)
{
	char legal[256] = "";

	for (int i = 0; vals[i].name; i++) {
		if (!strcmp(vals[i].name, v)) {
			*out = vals[i].v;
			return 0;
		}
		size_t l = strlen(legal);
		if (!vals[i].alias)
			snprintf(legal + l, sizeof legal - l, "%s%s", l ? ", " : "",
				 vals[i].name);
	}
	return cli_fail(CLI_USAGE, "bad value %s for %s; legal: %s", cli_quote(v),
			opt, legal);
}

/* ---- commands ---- */

/* Words of command c that argv[i..] matches: 0, 1 (the first of two) or
 * the number of words of its name. */
static int cmd_match(const struct cli_cmd *c, int argc, char **argv, int i)
{
	const char *sp = strchr(c->name, ' ');
	size_t n1 = sp ? (size_t)(sp - c->name) : strlen(c->name);

	if (i >= argc || strlen(argv[i]) != n1 || strncmp(argv[i], c->name, n1))
		return 0;
	if (!sp)
		return 1;
	return i + 1 < argc && !strcmp(argv[i + 1], sp + 1) ? 2 : 1;
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* Usage lines of every command whose first word is argv[i]. */
static void group_usage(const struct cli_spec *s, char **argv, int i, FILE *f)
{
	int first = 1;
	for (int c = 0; c < s->ncmds; c++)
		if (cmd_match(&s->cmds[c], i + 1, argv, i)) {
			fprintf(f, "%s " CLI_PROG " %s %s\n", first ? "usage:" : "      ",
				s->cmds[c].name, s->cmds[c].args);
			first = 0;
		}
}

/* argv[i..] names no command: one line, with the legal second words when
 * the first word is known, else the nearest command. */
static int unknown_cmd(const struct cli_spec *s, int argc, char **argv, int i)
{
	char legal[256] = "";
	const char *best = NULL;
	size_t bestd = (size_t)-1;

	for (int c = 0; c < s->ncmds; c++) {
		const char *name = s->cmds[c].name;
		size_t l = strlen(legal);
		if (cmd_match(&s->cmds[c], argc, argv, i)) {
			snprintf(legal + l, sizeof legal - l, "%s%s", l ? ", " : "",
				 strchr(name, ' ') + 1);
			continue;
		}
		char word[CLI_SUGGEST_MAX + 1];
		size_t n = strcspn(name, " ");
		snprintf(word, sizeof word, "%.*s", (int)n, name);
		size_t d = cli_distance(argv[i], word);
		if (d < bestd) {
			bestd = d;
			best = s->cmds[c].name;
		}
	}
	if (legal[0])
		return cli_fail(CLI_USAGE, "%s needs one of: %s (got %s); see '" CLI_PROG
				" help'", argv[i], legal,
				i + 1 < argc ? cli_quote(argv[i + 1]) : "nothing");
	if (best && near(bestd, argv[i]))
		return cli_fail(CLI_USAGE, "unknown command %s; did you mean '%.*s'? see '"
				CLI_PROG " help'", cli_quote(argv[i]),
				(int)strcspn(best, " "), best);
	return cli_fail(CLI_USAGE, "unknown command %s; see '" CLI_PROG " help'",
			cli_quote(argv[i]));
}

/* The command at argv[i..]: its index and word count, or -1 after a
 * message (group help when the second word is -h/--help: *rc = 0). */
static int find(const struct cli_spec *s, int argc, char **argv, int i,
		int *words, int *rc)
{
	int partial = 0;
	for (int c = 0; c < s->ncmds; c++) {
		int w = cmd_match(&s->cmds[c], argc, argv, i);
		int need = strchr(s->cmds[c].name, ' ') ? 2 : 1;
		if (w == need) {
			*words = w;
			return c;
		}
		partial |= w;
	}
	if (partial && i + 1 < argc && is_help(argv[i + 1])) {
		group_usage(s, argv, i, stdout);
		*rc = 0;
		return -1;
	}
	*rc = unknown_cmd(s, argc, argv, i);
	return -1;
}

/* `help [COMMAND]` */
static int help_cmd(const struct cli_spec *s, int argc, char **argv)
{
	int words, rc, c;

	if (argc == 2 || (argc == 3 && is_help(argv[2]))) {
		cli_help(s, -1, stdout);
		return 0;
	}
	for (c = 0; argc == 3 && c < s->ncmds; c++)
		if (strchr(s->cmds[c].name, ' ') && cmd_match(&s->cmds[c], argc, argv, 2)) {
			group_usage(s, argv, 2, stdout);    /* `help emit` */
			return 0;
		}
	if ((c = find(s, argc, argv, 2, &words, &rc)) < 0)
		return rc;
	if (2 + words < argc)
		return cli_fail(CLI_USAGE, "help takes one command, not %s",
				cli_quote(argv[2 + words]));
	cli_help(s, c, stdout);
	return 0;
}

int cli_find_cmd(const struct cli_spec *s, int argc, char **argv,
		 const char *version, int *cmd, int *next)
{
	int words, rc = CLI_USAGE;

	*cmd = -1;
	if (argc < 2) {
		cli_help(s, -1, stderr);
		return CLI_USAGE;
	}
	if (is_help(argv[1]) || !strcmp(argv[1], "help"))
		return help_cmd(s, argc, argv);
	if (!strcmp(argv[1], "--version"))
		return printf(CLI_PROG " %s\n", version), 0;
	if (argv[1][0] == '-')
		return cli_fail(CLI_USAGE, "unknown option %s; give a command first; see '"
				CLI_PROG " --help'", cli_quote(argv[1]));
	*cmd = find(s, argc, argv, 1, &words, &rc);
	*next = 1 + words;
	return *cmd < 0 ? rc : 0;
}

/* ---- options ---- */

static int opt_is(const struct cli_opt *o, const char *a, size_t n)
{
	return (strlen(o->name) == n && !strncmp(o->name, a, n)) ||
	       (o->alias && strlen(o->alias) == n && !strncmp(o->alias, a, n));
}

static int takes(const struct cli_opt *o, int cmd)
{
	return (o->cmds >> cmd) & 1;
}

/* The nearest option that cmd takes, or NULL. */
static const char *suggest(const struct cli_spec *s, int cmd, const char *a,
			   size_t n)
{
	char word[CLI_SUGGEST_MAX + 1];
	const char *best = NULL;
	size_t bestd = (size_t)-1;

	if (n > CLI_SUGGEST_MAX)
		return NULL;
	memcpy(word, a, n);
	word[n] = '\0';
	for (int i = 0; i < s->nopts; i++) {
		size_t d = cli_distance(word, s->opts[i].name);
		if (takes(&s->opts[i], cmd) && d < bestd) {
			bestd = d;
			best = s->opts[i].name;
		}
	}
	return best && near(bestd, word) ? best : NULL;
}

/* The row for option a[0..n) of cmd, or NULL after one line. */
static const struct cli_opt *lookup(const struct cli_spec *s, int cmd,
				    const char *a, size_t n)
{
	const struct cli_opt *known = NULL;
	const char *spelled = NULL;
	const char *cname = s->cmds[cmd].name, *hint;
	char name[CLI_QUOTE_MAX + 2];   /* one byte more: cli_quote marks the cut */

	for (int i = 0; i < s->nopts; i++)
		if (opt_is(&s->opts[i], a, n)) {
			if (takes(&s->opts[i], cmd))
				return &s->opts[i];
			known = &s->opts[i];
		}
	if (known) {
		/* the spelling typed: the name or its alias */
		spelled = strlen(known->name) == n ? known->name : known->alias;
		cli_fail(CLI_USAGE, "'%s' takes no %s; see '" CLI_PROG " %s --help'",
			 cname, spelled, cname);
		return NULL;
	}
	snprintf(name, sizeof name, "%.*s", (int)(n <= CLI_QUOTE_MAX ? n : CLI_QUOTE_MAX + 1), a);
	if ((hint = suggest(s, cmd, a, n)))
		cli_fail(CLI_USAGE, "unknown option %s for '%s'; did you mean %s? see '"
			 CLI_PROG " %s --help'", cli_quote(name), cname, hint, cname);
	else
		cli_fail(CLI_USAGE, "unknown option %s for '%s'; see '" CLI_PROG " %s --help'",
			 cli_quote(name), cname, cname);
	return NULL;
}

static int apply(const struct cli_opt *o, const char *v, void *dst)
{
	char *p = (char *)dst + o->off;

	switch (o->kind) {
	case CLI_FLAG:
		*(int *)p = 1;
		return 0;
	case CLI_STR:
		*(const char **)p = v;
		return 0;
	case CLI_NAMED:
		return cli_pick(o->name, v, o->vals, (unsigned *)p);
	case CLI_FN:
		return o->fn(o, v, dst);
	case CLI_HELP:
		break;
	}
	return 0;
}

/* Resolves argv[*i] (and its value) to a row; advances *i past a value. */
static int resolve(const struct cli_spec *s, int cmd, int argc, char **argv,
		   int *i, const struct cli_opt **row, const char **val)
{
	const char *a = argv[*i], *eq = NULL;
	size_t n = strlen(a);

	if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
		return cli_fail(CLI_USAGE, "unexpected argument %s for '%s'; see '"
				CLI_PROG " %s --help'", cli_quote(a),
				s->cmds[cmd].name, s->cmds[cmd].name);
	if (a[1] == '-' && (eq = strchr(a, '=')))
		n = (size_t)(eq - a);
	if (!(*row = lookup(s, cmd, a, n)))
		return CLI_USAGE;
	if ((*row)->kind == CLI_FLAG || (*row)->kind == CLI_HELP) {
		if (eq)
			return cli_fail(CLI_USAGE, "option %s takes no value", (*row)->name);
		*val = NULL;
		return 0;
	}
	if (eq) {
		*val = eq + 1;
		return 0;
	}
	if (*i + 1 >= argc || !strncmp(argv[*i + 1], "--", 2))
		return cli_fail(CLI_USAGE, "option %s needs a value", (*row)->name);
	*val = argv[++*i];
	return 0;
}

int cli_parse(const struct cli_spec *s, int cmd, int argc, char **argv,
	      int first, void *dst)
{
	const struct cli_opt **rows;
	const char **vals;
	int n = 0, rc = 0;

	if (first >= argc)
		return 0;
	rows = malloc((size_t)(argc - first) * sizeof *rows);
	vals = malloc((size_t)(argc - first) * sizeof *vals);
	if (!rows || !vals) {
		rc = cli_fail(1, "out of memory");
		goto out;
	}
	/* all of argv first, so that --help anywhere wins over bad values */
	for (int i = first; i < argc; i++, n++) {
		if (s->positional && (argv[i][0] != '-' || !argv[i][1]) &&
		    (rc = s->positional(cmd, argv[i], dst)) >= 0) {
			if (rc)
				goto out;
			n--;
			continue;
		}
		if ((rc = resolve(s, cmd, argc, argv, &i, &rows[n], &vals[n])))
			goto out;
		if (rows[n]->kind == CLI_HELP) {
			rc = CLI_SHOW_HELP;
			goto out;
		}
	}
	for (int k = 0; k < n && !rc; k++)
		rc = apply(rows[k], vals[k], dst);
out:
	free(rows);
	free(vals);
	return rc;
}
