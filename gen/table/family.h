/* family.h - the one list of instruction families (family.c).
 *
 * Each family (mmagen_family in mmagen.h) is one entry: its name, the
 * spellings --family takes, its emitter (emit_*.c), its docs heading and
 * its tile generator.  Everything that differs by family goes through
 * this list, never a switch on the family.  A new family is one emitter,
 * rows in sigs.def and one entry here (plus its public enum value).
 */
#ifndef MMAGEN_FAMILY_H
#define MMAGEN_FAMILY_H

#include "internal.h"

struct family_emitter;  /* emit.h */
struct tile_gen;        /* the tile kernel generator (kernel_*.c) */

/* One spelling of the family on the command line and the sparsity it
 * implies (MMAGEN_SPARSE_*, or MMAGEN_ANY). */
struct family_spelling {
	const char *name;
	unsigned sparse;
};

#define FAMILY_MAX_SPELLINGS 4

struct family {
	const char *name;                   /* "mma": mmagen_family_name */
	const char *doc_title;              /* docs/signatures.md heading */
	const struct family_emitter *emit;  /* opcode, operands, shape */
	const struct tile_gen *tile;        /* NULL: no tile kernel */
	/* how alike families are, for "nearest legal" suggestions: two
	 * families are |kin - kin'| apart (the MMA families by generation,
	 * the data movers far from them) */
	unsigned kin;
	/* --family spellings; listings name a form by the first spelling
	 * whose sparsity matches (or is MMAGEN_ANY) */
	struct family_spelling cli[FAMILY_MAX_SPELLINGS];
};

/* The entry of a family, or NULL if `family` is not one. */
const struct family *family_of(int family);
/* How far apart families a and b are for suggestions (0: the same; a
 * value that is not a family is far from all). */
unsigned family_distance(unsigned a, unsigned b);

#endif
