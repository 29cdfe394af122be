/* candidates.h - the sweep's candidate forms, built without sigs.def.
 *
 * Like LLVM's wmma.py, the candidate space is a product of every value a
 * field can plausibly take; ptxas, not the table, decides which exist.
 * The full product is too large for mma and wgmma (millions of lines per
 * target), so those families are searched in stages; each stage starts
 * from what ptxas accepted in the stage before (see candidates.c for the
 * stages and the assumption each one makes).
 */
#ifndef SWEEP_CANDIDATES_H
#define SWEEP_CANDIDATES_H

#include "table.h"

struct cand_set {
	mmagen_form *v;
	size_t n, cap;
};

void cand_push(struct cand_set *s, const mmagen_form *f);
void cand_free(struct cand_set *s);

/* A stage: fill `out` from the forms ptxas accepted in the stage before
 * (`acc`, empty for the first stage of a family). */
typedef void (*cand_stage)(const struct cand_set *acc, struct cand_set *out);

struct cand_family {
	const char *name;
	const cand_stage *stages;   /* NULL-terminated */
};

/* Every family the sweep covers, NULL-name-terminated. */
extern const struct cand_family cand_families[];

#endif
