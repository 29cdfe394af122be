/* harness.h - assemble many forms with ptxas in one call and say, per
 * form, whether ptxas accepted it. Shared by the ptxas suite and the sweep. */
#ifndef MMAGEN_HARNESS_H
#define MMAGEN_HARNESS_H

#include "emit.h"

struct harness {
	const char *ptxas;   /* path of ptxas */
	const char *dir;     /* scratch directory */
	int verbose;
};

/* Assemble forms fs[0..n) as one module for target t at .version v;
 * ok[i] = 1 when entry i assembled, 0 when ptxas rejected it. When ptxas
 * fails without naming lines, the batch is split in halves until it does.
 * Returns -1 if ptxas could not be run. If msg is given, msg[i] receives
 * (malloc'd) the first error line for rejected entries. */
int harness_assemble(const struct harness *h, int t, unsigned v,
		     const mmagen_form *const *fs, size_t n, char *ok, char **msg);

/* The PTX ISA versions ptxas 13.0 knows, ascending (10*major+minor). */
extern const unsigned ptx_versions[];
extern const size_t ptx_nversions;
/* The version before v, or 0. */
unsigned ptx_prev(unsigned v);

#endif
