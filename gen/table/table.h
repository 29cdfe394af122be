/* table.h - the rows of sigs.def and the targets of targets.def, as data. */
#ifndef MMAGEN_TABLE_H
#define MMAGEN_TABLE_H

#include "internal.h"

#define TARGET(id, name, sm, suffix, ptx, feat, gemm, smem)
#include "targets.def"
#undef TARGET

enum {
#define TARGET(id, name, sm, suffix, ptx, feat, gemm, smem) T_##id,
#include "targets.def"
#undef TARGET
	T_COUNT
};

struct target {
	const char *name;
	unsigned sm;
	char suffix;
	unsigned min_ptx;
	uint32_t features;
	unsigned gemm;          /* GEMM_* of targets.def */
	unsigned smem_kib;      /* shared memory a block may have; 0: not recorded */
};

struct row {
	uint8_t family;
	const char *sparse, *shapes, *a, *b, *dc, *layouts, *quals;
	uint32_t feature;
	unsigned min_ptx;
};

extern const struct target mmagen_targets[T_COUNT];
extern const struct row mmagen_rows[];
extern const size_t mmagen_row_count;

/* targets.def's columns for target t (0 for a t out of range): the
 * features (F_*), the GEMM paths (GEMM_*), and the dynamic shared memory
 * a block may have, in bytes (the opt-in maximum; 0 where not recorded). */
uint32_t mmagen_target_features(int t);
unsigned mmagen_target_gemm(int t);
unsigned mmagen_target_smem(int t);

/* MMAGEN_OK once the rows are expanded into forms; MMAGEN_NO_MEMORY (and
 * an empty table: mmagen_form_count() is 0) if memory ran out. */
mmagen_status table_ready(void);
/* Apply one qualifier token of the sigs.def grammar to a form; -1 if the
 * token is unknown. Shared with the sweep's candidate generator. */
int form_apply_token(mmagen_form *f, const char *tok, size_t len);
/* Parse "m16n8k16" (no ranges) into f->m, n, k; -1 on error. */
int form_parse_shape(mmagen_form *f, const char *s, size_t len);
/* Same form (all fields but row)? */
int form_equal(const mmagen_form *x, const mmagen_form *y);

#endif
