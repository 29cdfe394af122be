/* gemm.h - libmmart's GEMM launcher, internal: the ABI text parsed
 * (gemm_abi.c, no driver) and one launch planned from it, which gemm.c
 * carries out.  The text's format is in docs/gemm-abi.md. */
#ifndef MMART_GEMM_H
#define MMART_GEMM_H

#include "internal.h"

enum gemm_kind { GK_TMAP, GK_U64, GK_U32, GK_F32 };

/* The parameters the launcher knows, by the ABI's names, and the kind
 * each must have. */
#define MMART_GEMM_ROLES(X)                                                \
	X(TENSOR_A, "tensor_a", GK_TMAP) X(TENSOR_B, "tensor_b", GK_TMAP)  \
	X(TENSOR_D, "tensor_d", GK_TMAP) X(A, "a", GK_U64)                 \
	X(B, "b", GK_U64) X(SA, "sa", GK_U64) X(SB, "sb", GK_U64)          \
	X(D, "d", GK_U64) X(C, "c", GK_U64) X(M, "m", GK_U32)              \
	X(N, "n", GK_U32) X(K, "k", GK_U32) X(LDA, "lda", GK_U32)          \
	X(LDB, "ldb", GK_U32) X(LDSA, "ldsa", GK_U32)                      \
	X(LDSB, "ldsb", GK_U32) X(LDD, "ldd", GK_U32) X(LDC, "ldc", GK_U32) \
	X(ALPHA, "alpha", GK_F32) X(BETA, "beta", GK_F32)                  \
	X(D_TMA, "d_tma", GK_U32) X(D_SCALE, "d_scale", GK_F32)            \
	X(WORKSPACE, "workspace", GK_U64) X(COUNTERS, "counters", GK_U64)  \
	X(SPLITS, "splits", GK_U32) X(SA_SM, "sa_sm", GK_U32)              \
	X(SA_SK, "sa_sk", GK_U32) X(SB_SN, "sb_sn", GK_U32)                \
	X(SB_SK, "sb_sk", GK_U32)

enum gemm_role {
#define X(id, name, kind) GR_##id,
	MMART_GEMM_ROLES(X)
#undef X
	GR_COUNT
};

enum gemm_path { GP_WGMMA, GP_MMA_SYNC, GP_SM120 };
enum gemm_split { GS_NONE, GS_TAIL, GS_SLOTS, GS_Z };

#define GEMM_ABI_MAX_PARAMS 32

struct gemm_operand {
	char type[16];
	unsigned bits;
	int mn;                   /* stored M- or N-major (A, B) */
};

struct gemm_abi {
	char kernel[64], target[32];
	enum gemm_path path;
	struct gemm_operand a, b, out;
	char stype[16];
	unsigned scale_block;     /* sm_120a: K elements per scale byte */
	/* wgmma block scaling (`scales f32 a 1x128 b 128x128`): {M, K} per
	 * scale of A and {N, K} per scale of B; {0, 0} without */
	unsigned sblock_a[2], sblock_b[2];
	unsigned block[3], cluster[3], smem;
	unsigned tile_m, tile_n, tile_k;
	int persistent;
	enum gemm_split split;
	unsigned splits;          /* S; 0: chosen at launch (tail auto) */
	uint64_t ws_slot, ctr_per_tile;
	unsigned swizzle;
	unsigned box_a[2], box_b[2], box_d[2];   /* box_d {0, 0}: no D map */
	unsigned ab_align, ab_pitch, k_multiple, mn_multiple, cd_align, cd_ld;
	unsigned nparams;
	enum gemm_role role[GEMM_ABI_MAX_PARAMS];
	enum gemm_kind kind[GEMM_ABI_MAX_PARAMS];
};

/* Parse `text`: MMART_OK, or MMART_INVALID_ARGUMENT naming the line. */
MMART_HIDDEN mmart_status mmart_gemm_abi_parse(const char *text,
					       struct gemm_abi *out);

/* One operand as the kernel will read it: where, its leading dimension
 * (elements), and whether it is a staged copy of the caller's. */
struct gemm_view {
	uint64_t addr;
	uint64_t ld;
	/* staging: copy `height` rows of `width` bytes from (src, src_pitch)
	 * into (addr, pitch) of a buffer of `bytes` bytes, zeroed first
	 * when `zero` (padding the kernel reads) */
	int staged, zero;
	uint64_t src, src_pitch, pitch, width, height, bytes;
};

/* A launch, planned (mmart_gemm_plan): what gemm.c allocates, copies,
 * encodes and launches. */
struct gemm_launch {
	uint32_t m, n, k;         /* k: padded to the kernel's K multiple */
	struct gemm_view a, b, c, d;
	int d_back;               /* D staged: copy it back after the kernel */
	unsigned grid[3];
	uint32_t splits;
	uint64_t ws_bytes, ctr_bytes;
	uint64_t stage_bytes;     /* the staging buffers, laid out back to back */
	int d_tma;
	uint32_t ldsa, ldsb;      /* sm_120a's scale row pitches (bytes) */
	/* wgmma block scaling: the scales' strides (elements) */
	uint32_t sa_sm, sa_sk, sb_sn, sb_sk;
	/* tensor maps (wgmma): dims innermost first, row pitch in bytes */
	uint64_t dims_a[2], dims_b[2], dims_d[2];
	uint64_t pitch_a, pitch_b, pitch_d;
};

/* Check args against the ABI and plan the launch on a GPU of `sms`
 * multiprocessors.  Staged views get addresses relative to the staging
 * buffer (offsets from 0), which gemm.c rebases.  MMART_INVALID_ARGUMENT
 * with one line naming the rule and the nearest legal value. */
MMART_HIDDEN mmart_status mmart_gemm_plan(const struct gemm_abi *abi,
					  int sms, const mmart_gemm_args *args,
					  struct gemm_launch *out);

#endif
