/* cli_names.c - the command line's spellings of families and qualifiers.
 *
 * These belong to the library's family/qualifier table (issue 7, item 2);
 * until it exists they live here, and only here, so that this file can be
 * swapped for it.  Value tables: { spelling, value, alias } (cli.h). */
#include "cli_opts.h"

#include <string.h>

const struct cli_value cli_sparse_vals[] = {
	{ "none", MMAGEN_SPARSE_NONE, 0 }, { "dense", MMAGEN_SPARSE_NONE, 1 },
	{ "sp", MMAGEN_SPARSE_SP, 0 }, { "ordered", MMAGEN_SPARSE_ORDERED, 0 },
	{ "sp::ordered_metadata", MMAGEN_SPARSE_ORDERED, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_yesno_vals[] = {
	{ "yes", 1, 0 }, { "no", 0, 0 }, { "1", 1, 1 }, { "0", 0, 1 },
	{ "true", 1, 1 }, { "false", 0, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_popc_vals[] = {
	{ "xor", MMAGEN_XOR_POPC, 0 }, { "and", MMAGEN_AND_POPC, 0 },
	{ "none", MMAGEN_BITOP_NONE, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_kind_vals[] = {
#define X(id, s) { s, MMAGEN_KIND_##id, 0 },
	MMAGEN_KIND_LIST(X)
#undef X
	{ "none", MMAGEN_KIND_NONE, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_scale_vec_vals[] = {
	{ "1X", 1, 0 }, { "2X", 2, 0 }, { "4X", 4, 0 }, { "1", 1, 1 },
	{ "2", 2, 1 }, { "4", 4, 1 }, { "none", 0, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_cta_vals[] = {
	{ "1", 1, 0 }, { "2", 2, 0 }, { NULL, 0, 0 } };
const struct cli_value cli_asrc_vals[] = {
	{ "reg", MMAGEN_ASRC_REG, 0 }, { "smem", MMAGEN_ASRC_SMEM, 0 },
	{ "tmem", MMAGEN_ASRC_TMEM, 0 }, { NULL, 0, 0 } };
const struct cli_value cli_num_vals[] = {
	{ "x1", 1, 0 }, { "x2", 2, 0 }, { "x4", 4, 0 }, { "1", 1, 1 },
	{ "2", 2, 1 }, { "4", 4, 1 }, { NULL, 0, 0 } };
const struct cli_value cli_ldtype_vals[] = {
	{ "b16", MMAGEN_LD_B16, 0 }, { "b8", MMAGEN_LD_B8, 0 },
	{ "b6p32", MMAGEN_LD_B6P32, 0 }, { "b4p64", MMAGEN_LD_B4P64, 0 },
	{ NULL, 0, 0 } };
const struct cli_value cli_rnd_vals[] = {
	{ "rn", MMAGEN_RN, 0 }, { "rz", MMAGEN_RZ, 0 }, { "rm", MMAGEN_RM, 0 },
	{ "rp", MMAGEN_RP, 0 }, { NULL, 0, 0 } };

/* --family: the name sets the family and, where it says, the sparsity.
 * Every label that `list` prints is accepted. */
int cli_family_parse(const char *v, mmagen_request *r)
{
	static const struct { const char *name; unsigned fam, sparse; } fams[] = {
		{ "mma", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sync", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sp", MMAGEN_FAM_MMA, MMAGEN_SPARSE_SP },
		{ "mma.sp::ordered_metadata", MMAGEN_FAM_MMA, MMAGEN_SPARSE_ORDERED },
		{ "wgmma", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_NONE },
		{ "wgmma.sp", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_SP },
		{ "tcgen05", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.mma", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.sp", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_SP },
		{ "tcgen05.mma.sp", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_SP },
		{ "ldmatrix", MMAGEN_FAM_LDMATRIX, MMAGEN_ANY },
		{ "stmatrix", MMAGEN_FAM_STMATRIX, MMAGEN_ANY },
	};
	for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
		if (!strcmp(v, fams[i].name)) {
			r->family = fams[i].fam;
			if (fams[i].sparse != MMAGEN_ANY)
				r->sparse = fams[i].sparse;
			return 0;
		}
	return cli_fail(CLI_USAGE, "unknown family %s; legal: mma, mma.sync, mma.sp, "
			"mma.sp::ordered_metadata, wgmma, wgmma.sp, tcgen05, tcgen05.sp, "
			"ldmatrix, stmatrix", cli_quote(v));
}

/* The family column of `list`. */
const char *cli_family_label(const mmagen_form *f)
{
	static const char *const sp[][3] = {
		[MMAGEN_FAM_MMA] = { "mma.sync", "mma.sp", "mma.sp::ordered_metadata" },
		[MMAGEN_FAM_WGMMA] = { "wgmma", "wgmma.sp", "wgmma.sp" },
		[MMAGEN_FAM_TCGEN05] = { "tcgen05.mma", "tcgen05.mma.sp", "tcgen05.mma.sp" },
		[MMAGEN_FAM_LDMATRIX] = { "ldmatrix", "ldmatrix", "ldmatrix" },
		[MMAGEN_FAM_STMATRIX] = { "stmatrix", "stmatrix", "stmatrix" },
	};
	return sp[f->family][f->sparse];
}

const char *cli_asrc_name(unsigned asrc)
{
	static const char *const n[] = { "-", "reg", "smem", "tmem" };
	return n[asrc];
}
