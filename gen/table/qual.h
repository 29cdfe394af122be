/* qual.h - the qualifier table (qual.c): for each value of each
 * qualifier field of a form, its sigs.def token, PTX spelling and CLI
 * name.  table.c parses rows with it, the emitters spell opcodes with it,
 * the public mmagen_qual_* functions give the CLI its names. */
#ifndef MMAGEN_QUAL_H
#define MMAGEN_QUAL_H

#include "internal.h"

struct buf;

struct qual {
	uint8_t field;       /* mmagen_qual_field */
	uint8_t value;       /* the form field's value (MMAGEN_ROW, 2, ...) */
	const char *token;   /* sigs.def spelling; NULL: none (the default) */
	const char *ptx;     /* opcode spelling with its dot; "" none, NULL
			      * not spelled in the opcode (A's source) */
	const char *cli;     /* its name on the command line, or NULL */
	const char *aliases; /* other CLI names, '|'-separated, or NULL */
};

/* The row of (field, value), or NULL. */
const struct qual *qual_find(int field, unsigned value);
/* The row whose token is tok[0..n) among fields [lo, hi], or NULL. */
const struct qual *qual_by_token(const char *tok, size_t n, int lo, int hi);
/* Set the form field that q names to q's value (for MMAGEN_Q_LAYOUT:
 * alayout). */
void qual_apply(mmagen_form *f, const struct qual *q);
/* The value of field `field` in f (MMAGEN_Q_LAYOUT: alayout). */
unsigned qual_get(const mmagen_form *f, int field);
/* The CLI name of every value of field q in table order, aliases left
 * out ("none, sp, ordered"), ", "-separated, into buf; returns buf.  What
 * a message about a bad value lists (mmagen_qual_legal lists aliases too). */
const char *qual_cli_names(int q, char *buf, size_t n);
/* Append the PTX spelling of (field, value) to b: nothing for a value
 * without one (0 = none); a value missing from the table is a bug. */
void emit_qual(struct buf *b, int field, unsigned value);

#endif
