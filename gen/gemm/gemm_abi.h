/* gemm_abi.h - a GEMM kernel's interface as data.  One parameter table per
 * path (gemm_abi.c) fills the template's .entry, the JSON manifest's
 * params, the C header's _params and the ABI text that libmmart's launcher
 * reads (mmart_gemm_kernel_load; the format is in docs/gemm-abi.md).  No
 * other file writes the parameter order. */
#ifndef MMAGEN_GEMM_ABI_H
#define MMAGEN_GEMM_ABI_H

#include "gemm_plan.h"

enum gemm_pkind { GP_TMAP, GP_U64, GP_U32, GP_F32 };

struct gemm_param {
	const char *name;        /* the launcher's name; PTX: p<name>, or
				  * <name> for tensor maps */
	enum gemm_pkind kind;
	unsigned when;           /* GP_WHEN_*: present only then */
	const char *what;        /* one line for the manifest, or NULL */
};

enum { GP_WHEN_ALWAYS = 0, GP_WHEN_FP8_OUT, GP_WHEN_SPLIT_KERNEL, GP_WHEN_SPLIT_WS,
       GP_WHEN_BLOCK_SCALE };

#define GEMM_PARAMS_MAX 24

/* The kernel's parameters in order, into out[0..GEMM_PARAMS_MAX); the
 * count. */
unsigned gemm_params(const struct gemm_plan *g, const struct gemm_param **out);
/* The PTX of the kernel's parameter list into kb's slot "params" (the
 * lines between "(" and ")"). */
void gemm_entry_params(struct kb *kb, const struct gemm_plan *g);
/* The manifest's "params": [...] entries. */
void gemm_json_params(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i);
/* The ABI text (docs/gemm-abi.md). */
void gemm_abi_text(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i);

#endif
