/* gemm_plan.h - whole GEMM kernels behind mmagen_gemm_emit(): a plan (tile,
 * stages, the instruction from the table) and one generator per path.
 * gemm.c (the public entry points) and the chooser (gemm_split.c) call
 * the paths (kernel_gemm_*.c); every file here shares this header and
 * nothing of gemm.c's. */
#ifndef MMAGEN_GEMM_PLAN_H
#define MMAGEN_GEMM_PLAN_H

#include "kernel.h"
#include "gemm_epi.h"

#define GEMM_KERNEL_NAME "mmagen_gemm"

/* FP8 block scaling (MMAGEN_QF_FP8_BLOCK): one f32 scale per row of A and
 * GEMM_SCALE_BLOCK elements of K, one per GEMM_SCALE_BLOCK x
 * GEMM_SCALE_BLOCK block of B (N x K); the K block of the sm_90a FP8
 * kernel is that long, so each promotion has one set of scales */
#define GEMM_SCALE_BLOCK 128u

/* sm_90a FP8: a tile of 16-64 rows, at most 128 wide, that promotes its
 * partial sums every K block (promote_every 1) takes K blocks in pairs
 * into two sets of partial sums (kernel_gemm_sm90.c); the chooser's
 * model (gemm_split.c) counts one promotion wait per pair */
static inline int gemm_fp8_pairs(unsigned promote_every, unsigned tile_m, unsigned tile_n)
{
	return promote_every == 1 && tile_m < 128 && tile_n <= 128;
}

struct gemm_plan {
	mmagen_gemm_request req;
	mmagen_type acc;            /* accumulator type */
	unsigned bm, bn, bk;        /* block tile */
	unsigned mma_k;             /* K of one instruction */
	unsigned stages, group, cluster;
	int promote;                /* FP8: per-K-block partial sums added in f32 */
	unsigned promote_every;     /* ... every this many K blocks (a power of 2) */
	int promote_pipe;           /* ... with two sets of partial sums, K blocks
				     * in pairs (kernel_gemm_sm90.c) */
	int block_scale;            /* ... each multiplied by its f32 scales of A's
				     * row and B's 128-column block (quant
				     * MMAGEN_QF_FP8_BLOCK; kernel_gemm_sm90.c) */
	int pingpong;               /* sm_90a: each consumer warpgroup takes every
				     * other tile whole (MMAGEN_GEMM_SCHED_PINGPONG) */
	unsigned a_stage, b_stage;  /* bytes of one stage of A and of B */
	unsigned d_stage;           /* bytes of D's staging for tensor stores */
	unsigned d_bufs;            /* its 64-row chunk buffers per warpgroup */
	unsigned smem;              /* dynamic shared memory */
	const mmagen_form *form;    /* the MMA instruction */
	/* the mma.sync path (kernel_gemm_sm80.c) */
	unsigned path;              /* MMAGEN_GEMM_PATH_WGMMA or _MMA_SYNC */
	unsigned split;             /* K slices (gridDim.z) */
	int split_ws;               /* mma.sync split-K through a workspace (every
				     * split: a slot per tile and K slice) */
	unsigned threads, bits;     /* threads per CTA; bits of A's elements */
	int a_mn, b_mn;             /* A M-major, B N-major (ldmatrix .trans) */
	unsigned row_bytes;         /* a stage row: 64 or 128 bytes (gemm80_*) */
	/* the wgmma path's split-K (gemm_split.c): the kernel walks (tile, K
	 * slice) units and takes S as a parameter; `split` is the S asked
	 * for, 0 for MMAGEN_GEMM_SPLIT_AUTO */
	int split_kernel;
	/* sm_120a (kernel_gemm_sm120.c): scale blocks per mma step (0:
	 * kind::f8f6f4), scale type, K elements per scale, scale bytes per
	 * row and stage */
	unsigned sv, scale_block, spb;
	mmagen_type stype;
};

/* gemm_epi.h: the epilogue's per-element arithmetic every path shares */

/* kernel_gemm_sm90.c */
mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out);

/* gemm_plan.c: split-K on the wgmma path.  The first `whole` units
 * (gemm_split_whole: the tiles of whole waves of the grid) are whole
 * tiles; after them a work unit is (tail tile, K slice); S = min(splits,
 * kblocks) slices per tail tile, consecutive units.
 * gemm_split_range: unit -> its tile, first K block and K block count,
 * as templates/gemm_sm90.ptx.in computes them.
 * gemm_split_plan: the request's split_k into the plan (after
 * gemm_plan_sm90).  One warpgroup's slot of the workspace holds
 * 64 x bn accumulators of 4 bytes. */
#define GEMM_SPLIT_WG_BYTES(bn) (64u * (bn) * 4u)
#define GEMM_SPLIT_MAX 256u
unsigned gemm_split_slices(unsigned splits, unsigned kblocks);
unsigned gemm_split_whole(unsigned tiles, unsigned grid);
void gemm_split_range(unsigned unit, unsigned whole, unsigned slices, unsigned kblocks,
		      unsigned *tile, unsigned *kbeg, unsigned *kcount);
mmagen_status gemm_split_plan(const mmagen_gemm_request *req, struct gemm_plan *g);
/* gemm_plan.c: the grouped tile order of the one-CTA-per-tile paths
 * (mma.sync, sm_120a) into slot `slot`: tile index `tile` -> its tile
 * row tm and tile column tn, tiles going down `group` tile rows, then one
 * tile column to the right (the last group has min(group, tiles_m -
 * first row) rows).  The sm_90a persistent loop computes the same
 * (emit_tile_origin in kernel_gemm_sm90.c) on the registers the
 * template shares with C (struct sm90_regs), which the CPU replays find
 * by the kernel's `// slots:` comment. */
void gemm_emit_tile_order(struct kb *kb, const char *slot, unsigned group, kreg tile,
			  kreg tiles_m, kreg tiles_n, kreg tm, kreg tn);
/* The registers templates/gemm_sm90.ptx.in shares with the C side: each
 * the template's slot of the same name ({{m0}}), from kb_slot_reg
 * (gemm_emit_sm90).  The template names them all in its `// slots:`
 * comment, which the CPU replays read. */
struct sm90_regs {
	kreg thread, wg, warp, lane;     /* %tid.x; its warpgroup, warp, lane */
	kreg tile, tiles_m, tiles_n;     /* the tile (split-K: the unit); tile rows, columns */
	kreg m0, n0, rank;               /* the tile's first row and column; cluster rank */
	kreg off, bar, empty, x, t;      /* the producer's stage offset, barrier, K
					  * coordinate; empty[]; scratch */
	kreg tma, tmb, mask;             /* tensor maps of A and B; multicast mask */
};
/* kernel_gemm_sm90_split.c: the reduction, into the kernel builder of
 * gemm_emit_sm90 (sr: the template's shared registers; acc: the final
 * accumulators; spare: 32-bit registers free to overwrite there (FP8's
 * partial sums), .n 0 for none; row: the thread's first row; m: M) */
void gemm_sm90_split_emit(struct kb *kb, const struct gemm_plan *g, const struct sm90_regs *sr,
			  kreg acc, kreg spare, kreg row, kreg m);

/* kernel_gemm_sm80.c: the warp-level path (mma.sync + ldmatrix +
 * cp.async), sm_80 to sm_89 and, on request, sm_90/sm_90a.  check_sm80
 * holds the path's type and layout rules. */
mmagen_status gemm_plan_sm80(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm80(const struct gemm_plan *g, struct buf *out);

/* The shared-memory layout of the sm80 path, for the tests: a stage of an
 * operand is rows of rb = GEMM80_ROW_NARROW or GEMM80_ROW_WIDE bytes (the
 * plan's row_bytes), 16-byte chunk c of row r at byte
 * gemm80_swizzle(rb, r, c).  Lane `lane` of an ldmatrix.x4 reads row
 * r0 + *row of logical chunk c0 + *chunk, where the pattern is 1 for a
 * K-major A or an MN-major B and 2 for the other two (see the .c). */
#define GEMM80_ROW_NARROW 64u
#define GEMM80_ROW_WIDE 128u
unsigned gemm80_swizzle(unsigned rb, unsigned row, unsigned chunk);
void gemm80_ldmatrix_lane(int pattern, unsigned lane, unsigned *row, unsigned *chunk);
/* The first stage row and logical chunk of ldmatrix.x4 number i (0..3) of
 * mma step `step` (0 .. rb/32 - 1) within a warp's rows: mn, the operand
 * is MN-major (16-bit: a row holds rb/2 elements of M or N, a panel). */
void gemm80_frag_origin(int mn, unsigned rb, unsigned bk, unsigned i, unsigned step,
			unsigned *row, unsigned *chunk);
/* The stage rows of one warp's 64 rows (K-major) or columns (MN-major). */
unsigned gemm80_warp_rows(int mn, unsigned rb, unsigned bk);
/* The shared memory a block of the mma.sync GEMM may have on target
 * (mmagen_target_*): 227 KB on sm_90, 163 KB on sm_80, else 99 KB. */
unsigned gemm80_smem_limit(int target);

/* kernel_gemm_sm120.c: the warp-level GEMM of sm_120a, kind::f8f6f4 and
 * the block-scaled kinds (quant != 0). */
mmagen_status gemm_plan_sm120(const mmagen_gemm_request *req, struct gemm_plan *g);
mmagen_status gemm_emit_sm120(const struct gemm_plan *g, struct buf *out);
void gemm_json_sm120(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i);

/* The shared-memory layout of the sm_120a path, for the tests.  A stage
 * is A's tile_m rows, then B's tile_n rows, of GEMM120_ROW_BYTES bytes of
 * K (16-byte chunk c of row r at gemm120_swizzle(r, c)), then A's and B's
 * scale rows of spb bytes.  The kernel's .const tables (gemm120_tables):
 *   cp_src[t]  (row << 16) | byte: thread t's copy 0 of A or B; copy i is
 *              threads/8 * i rows further
 *   cp_dst[t]  its offset in A's (or B's) stage rows; copy i adds
 *              threads/8 * i * GEMM120_ROW_BYTES
 *   ld[l*8+s]  lane l's ldmatrix row address in A's rows (s = step 0..3)
 *              and, at l*8+4+s, in B's rows; the warp's rows and
 *              2048 * i (ldmatrix i of the step) are added
 *   ls[l*2+o]  lane l's offset in A's (o = 0) or B's scale rows; the
 *              warp's rows and 16 spb i (A's m16 tile i) or 8 spb j (B's
 *              n8 tile j) and step * S are added */
#define GEMM120_ROW_BYTES 128u
#define GEMM120_MAX_THREADS 256u
struct gemm120_tab {
	uint32_t cp_src[GEMM120_MAX_THREADS], cp_dst[GEMM120_MAX_THREADS];
	uint32_t ld[32 * 8], ls[32 * 2];
};
unsigned gemm120_swizzle(unsigned row, unsigned chunk);
void gemm120_tables(unsigned threads, unsigned spb, struct gemm120_tab *t);

#endif
