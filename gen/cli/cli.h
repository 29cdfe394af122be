/* cli.h - a command line driven by two tables: subcommands and options.
 *
 * The engine (cli.c) knows nothing about mmagen: it matches the command
 * words, parses `--opt value`, `--opt=value` and flags against the option
 * table, refuses options the command does not take, suggests the nearest
 * spelling for a mistyped one, and writes help and the markdown reference
 * from the same tables.  The tables themselves are in cli_opts.c. */
#ifndef MMAGEN_CLI_H
#define MMAGEN_CLI_H

#include <stddef.h>
#include <stdio.h>

#define CLI_PROG "mmagen"
/* user text echoed in a message is cut to this many bytes */
#define CLI_QUOTE_MAX 200
/* spelling suggestions only for names up to this long (the edit distance
 * is quadratic; hostile input stays cheap) */
#define CLI_SUGGEST_MAX 64

/* A named value of an enumerated option.  alias: accepted, but not
 * listed in help or in "legal:" lists. */
struct cli_value {
	const char *name;
	unsigned v;
	int alias;
};

enum cli_kind {
	CLI_FLAG,    /* no argument; sets the int at `off` to 1 */
	CLI_STR,     /* stores the argument (const char *) at `off` */
	CLI_NAMED,   /* one of `vals`; stores its v (unsigned) at `off` */
	CLI_FN,      /* fn(opt, argument, dst) parses and stores */
	CLI_HELP,    /* -h, --help: print the command's help */
};

struct cli_opt;
typedef int cli_fn(const struct cli_opt *opt, const char *v, void *dst);

/* One row of the option table.  An option name may have several rows
 * with disjoint `cmds` (e.g. --format means different things to emit and
 * quantize); the row whose `cmds` has the command is used. */
struct cli_opt {
	const char *name;            /* "--arch" */
	const char *alias;           /* "-o", or NULL */
	const char *arg;             /* metavar; NULL: the names of `vals`
				      * joined by '|' (flags take none) */
	unsigned cmds;               /* bit i: command i takes it */
	const char *group;           /* help heading ("Selector", ...) */
	enum cli_kind kind;
	size_t off;                  /* where in dst (FLAG, STR, NAMED, FN) */
	const struct cli_value *vals; /* CLI_NAMED (or a CLI_FN's values):
				       * ends with a NULL name */
	cli_fn *fn;                  /* CLI_FN */
	const char *help;            /* one sentence, no final period */
	const char *legal;           /* CLI_FN counts: the values to suggest
				      * when one is malformed ("1 or 2") */
};

/* One row of the command table.  name is one or two words. */
struct cli_cmd {
	const char *name;            /* "emit tile" */
	const char *args;            /* usage after the name */
	const char *summary;         /* one line */
	const char *text;            /* markdown for the reference, or "" */
};

struct cli_spec {
	const struct cli_cmd *cmds;
	int ncmds;
	const struct cli_opt *opts;
	int nopts;
	const char *intro;           /* markdown before the commands */
	const char *top;             /* the end of `mmagen --help` */
	const char *outro;           /* the last line of a command's help */
	/* A word that is not an option ("-" included): 0 when command cmd
	 * takes it (stored in dst), -1 when the command takes none (the
	 * parser then says so), or an exit status after one line. */
	int (*positional)(int cmd, const char *arg, void *dst);
};

/* Exit statuses of the engine. */
enum { CLI_OK = 0, CLI_USAGE = 2, CLI_SHOW_HELP = -1 };

/* Finds the command named by argv[1] (and argv[2]); sets *cmd and *next
 * (the first argument after the command words).  Handles `--help`,
 * `--version`, `help [COMMAND]` and the bare program itself: then *cmd is
 * -1 and the return value is the exit status. */
int cli_find_cmd(const struct cli_spec *s, int argc, char **argv,
		 const char *version, int *cmd, int *next);
/* Parses argv[first..] for command `cmd` into dst: 0, CLI_USAGE (after
 * printing one line) or CLI_SHOW_HELP. */
int cli_parse(const struct cli_spec *s, int cmd, int argc, char **argv,
	      int first, void *dst);
/* Help of command `cmd` (-1: the program) on f. */
void cli_help(const struct cli_spec *s, int cmd, FILE *f);
/* The markdown reference: every command and every option. */
void cli_doc(const struct cli_spec *s, FILE *f);
/* A bash completion script (cli_complete.c). */
void cli_completion(const struct cli_spec *s, FILE *f);

/* One value of vals (error: one line, CLI_USAGE). */
int cli_pick(const char *opt, const char *v, const struct cli_value *vals,
	     unsigned *out);
/* Prints "mmagen: " and the message on stderr; returns rc. */
int cli_fail(int rc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The library's last error on stderr (after "prefix: " unless NULL),
 * non-printables as \xNN; returns rc. */
int cli_lib_fail(int rc, const char *prefix);
/* s in single quotes, non-printables, ' and \ as \xNN, cut at
 * CLI_QUOTE_MAX bytes; the last four results stay valid. */
const char *cli_quote(const char *s);
/* Levenshtein distance, or (size_t)-1 when either is longer than
 * CLI_SUGGEST_MAX. */
size_t cli_distance(const char *a, const char *b);
/* 0 when everything written to stdout reached it; else one line on
 * stderr and 1. */
int cli_stdout_done(void);

#endif
