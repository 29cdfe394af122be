/* gemm_abi.c - the GEMM kernels' interfaces as data: one parameter table
 * per path, and what is written from it (the .entry's parameter list, the
 * manifest's params, the ABI text libmmart's launcher reads).  The format
 * of the ABI text is in docs/gemm-abi.md. */
#include "gemm_abi.h"
#include "kb.h"

#include <string.h>

/* The wgmma path (templates/gemm_sm90.ptx.in): A and B through tensor
 * maps (their leading dimensions are the maps' strides), D through a map
 * or a pointer. */
static const struct gemm_param params_sm90[] = {
	{ "tensor_a", GP_TMAP, GP_WHEN_ALWAYS, "A's tensor map (the tmap a line of the ABI)" },
	{ "tensor_b", GP_TMAP, GP_WHEN_ALWAYS, "B's tensor map" },
	{ "tensor_d", GP_TMAP, GP_WHEN_ALWAYS, "D's tensor map, read only when d_tma != 0" },
	{ "d", GP_U64, GP_WHEN_ALWAYS, "D, row-major M x N, leading dimension ldd" },
	{ "c", GP_U64, GP_WHEN_ALWAYS, "C, row-major M x N, leading dimension ldc; read only when beta != 0" },
	{ "m", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "n", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "k", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldd", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldc", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "alpha", GP_F32, GP_WHEN_ALWAYS, NULL },
	{ "beta", GP_F32, GP_WHEN_ALWAYS, NULL },
	{ "d_tma", GP_U32, GP_WHEN_ALWAYS, "1: store D through tensor_d; 0: through d and ldd" },
	{ "d_scale", GP_F32, GP_WHEN_FP8_OUT,
	  "D = satfinite(d_scale * (alpha * A * B + beta * C)) in D's FP8 type" },
	/* --quant fp8-block: f32 scales, strides in elements; the kernel
	 * reads (row m, K block kb) at sa + 4 (m sa_sm + kb sa_sk) and (N
	 * block nb, kb) at sb + 4 (nb sb_sn + kb sb_sk), kb = k / 128, nb = n
	 * / 128, rows and blocks past M and N clamped to the last */
	{ "sa", GP_U64, GP_WHEN_BLOCK_SCALE,
	  "A's f32 scales, one per row m and K block kb = k / 128, at sa + 4 * (m * sa_sm + kb * sa_sk)" },
	{ "sb", GP_U64, GP_WHEN_BLOCK_SCALE,
	  "B's f32 scales, one per 128 x 128 block (nb = n / 128, kb = k / 128), at sb + 4 * (nb * sb_sn + kb * sb_sk)" },
	{ "sa_sm", GP_U32, GP_WHEN_BLOCK_SCALE, "elements between the scales of rows m and m + 1 (row-major [M][KB]: KB = ceil(K / 128))" },
	{ "sa_sk", GP_U32, GP_WHEN_BLOCK_SCALE, "elements between the scales of K blocks kb and kb + 1 (row-major: 1)" },
	{ "sb_sn", GP_U32, GP_WHEN_BLOCK_SCALE, "elements between the scales of N blocks nb and nb + 1 (row-major [NB][KB]: KB)" },
	{ "sb_sk", GP_U32, GP_WHEN_BLOCK_SCALE, "elements between the scales of K blocks kb and kb + 1 (row-major: 1)" },
	{ "workspace", GP_U64, GP_WHEN_SPLIT_KERNEL,
	  "split-K partial tiles of the tail (mmagen_gemm_split_buffers_grid), any contents" },
	{ "counters", GP_U64, GP_WHEN_SPLIT_KERNEL,
	  "a u32 per consumer warpgroup of a tail tile, zero before the first launch; every launch leaves them zero" },
	{ "splits", GP_U32, GP_WHEN_SPLIT_KERNEL, "S, K slices per tail tile (>= 1)" },
};

/* The mma.sync path (templates/gemm_sm80.ptx.in): plain pointers. */
static const struct gemm_param params_sm80[] = {
	{ "a", GP_U64, GP_WHEN_ALWAYS, "A, leading dimension lda" },
	{ "b", GP_U64, GP_WHEN_ALWAYS, "B, leading dimension ldb" },
	{ "d", GP_U64, GP_WHEN_ALWAYS, "D, row-major M x N, leading dimension ldd" },
	{ "c", GP_U64, GP_WHEN_ALWAYS, "C, row-major M x N, leading dimension ldc; read only when beta != 0" },
	{ "m", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "n", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "k", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "lda", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldb", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldd", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldc", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "alpha", GP_F32, GP_WHEN_ALWAYS, NULL },
	{ "beta", GP_F32, GP_WHEN_ALWAYS, NULL },
	{ "workspace", GP_U64, GP_WHEN_SPLIT_WS,
	  "a slot per tile and K slice (mmagen_gemm_split_buffers), any contents" },
	{ "counters", GP_U64, GP_WHEN_SPLIT_WS,
	  "a u32 per tile, zero before the first launch; every launch leaves them zero" },
};

/* sm_120a's block-scaled mma.sync (templates/gemm_sm120.ptx.in). */
static const struct gemm_param params_sm120[] = {
	{ "a", GP_U64, GP_WHEN_ALWAYS, "A, M rows of K (K-major) in the kernel's containers, leading dimension lda" },
	{ "b", GP_U64, GP_WHEN_ALWAYS, "B, N rows of K (K-major), leading dimension ldb" },
	{ "sa", GP_U64, GP_WHEN_ALWAYS, "A's scales, M rows of ldsa bytes (0 without scales)" },
	{ "sb", GP_U64, GP_WHEN_ALWAYS, "B's scales, N rows of ldsb bytes (0 without scales)" },
	{ "d", GP_U64, GP_WHEN_ALWAYS, "D, row-major M x N, leading dimension ldd" },
	{ "c", GP_U64, GP_WHEN_ALWAYS, "C, row-major M x N, leading dimension ldc; read only when beta != 0" },
	{ "m", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "n", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "k", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "lda", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldb", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldsa", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldsb", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldd", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "ldc", GP_U32, GP_WHEN_ALWAYS, NULL },
	{ "alpha", GP_F32, GP_WHEN_ALWAYS, NULL },
	{ "beta", GP_F32, GP_WHEN_ALWAYS, NULL },
};

static const char *const kind_names[] = { "tmap", "u64", "u32", "f32" };
static const char *const json_kinds[] = { "tensor_map", "u64", "u32", "f32" };

/* sm_120a's kernel: the one GEMM of the sm_12x targets (gemm.c) */
static int is_sm120_plan(const struct gemm_plan *g)
{
	return (mmagen_target_gemm(g->req.target) & GEMM_BS) != 0;
}

static int fp8(mmagen_type t)
{
	return (mmagen_type_class(t) & TYPE_FP8) != 0;
}

static int present(const struct gemm_plan *g, unsigned when)
{
	switch (when) {
	case GP_WHEN_FP8_OUT: return fp8(g->req.out);
	case GP_WHEN_SPLIT_KERNEL: return g->split_kernel;
	case GP_WHEN_SPLIT_WS: return g->split_ws;
	case GP_WHEN_BLOCK_SCALE: return g->block_scale;
	default: return 1;
	}
}

unsigned gemm_params(const struct gemm_plan *g, const struct gemm_param **out)
{
	const struct gemm_param *t = params_sm90;
	size_t n = sizeof params_sm90 / sizeof params_sm90[0];
	unsigned count = 0;

	if (is_sm120_plan(g)) {
		t = params_sm120;
		n = sizeof params_sm120 / sizeof params_sm120[0];
	} else if (g->path == MMAGEN_GEMM_PATH_MMA_SYNC) {
		t = params_sm80;
		n = sizeof params_sm80 / sizeof params_sm80[0];
	}
	for (size_t i = 0; i < n && count < GEMM_PARAMS_MAX; i++)
		if (present(g, t[i].when))
			out[count++] = &t[i];
	return count;
}

void gemm_entry_params(struct kb *kb, const struct gemm_plan *g)
{
	static const char *const ptx_types[] = { NULL, ".u64", ".u32", ".f32" };
	const struct gemm_param *p[GEMM_PARAMS_MAX];
	unsigned n = gemm_params(g, p);

	kb_at(kb, "params");
	for (unsigned i = 0; i < n; i++) {
		const char *sep = i + 1 < n ? ",\n" : "";
		if (p[i]->kind == GP_TMAP)
			ke(kb, "\t.param .align 64 .b8 $s[128]$s", p[i]->name, sep);
		else
			ke(kb, "\t.param $s p$s$s", ptx_types[p[i]->kind], p[i]->name, sep);
	}
}

/* A tensor map's dims, innermost first: K-major {K, rows} or MN-major
 * {rows, K}. */
static const char *tmap_dims(char which, int mn)
{
	if (which == 'a')
		return mn ? "\"M\", \"K\"" : "\"K\", \"M\"";
	if (which == 'b')
		return mn ? "\"N\", \"K\"" : "\"K\", \"N\"";
	return "\"N\", \"M\"";
}

void gemm_json_params(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i)
{
	const struct gemm_param *p[GEMM_PARAMS_MAX];
	unsigned n = gemm_params(g, p);

	emitf(b, "  \"params\": [\n");
	for (unsigned k = 0; k < n; k++) {
		emitf(b, "    {\"name\": \"$s\", \"kind\": \"$s\"", p[k]->name, json_kinds[p[k]->kind]);
		if (p[k]->kind == GP_TMAP) {
			char w = p[k]->name[7];     /* tensor_a, tensor_b, tensor_d */
			const unsigned *box = w == 'a' ? i->box_a : w == 'b' ? i->box_b : i->box_d;
			unsigned eb = w == 'a' ? i->elem_bytes_a : w == 'b' ? i->elem_bytes_b
								 : i->elem_bytes_d;
			emitf(b, ", \"dims\": [$s], \"box\": [$u, $u], \"swizzle\": $u, \"elem_bytes\": $u",
			      tmap_dims(w, w == 'a' ? g->a_mn : g->b_mn), box[0], box[1], i->swizzle, eb);
		}
		if (p[k]->what)
			emitf(b, ", \"what\": \"$s\"", p[k]->what);
		emitf(b, "}$s\n", k + 1 < n ? "," : "");
	}
	emitf(b, "  ],\n");
}

/* ---- the ABI text ---- */

/* 16-byte pieces: how many elements of `bits` make one */
static unsigned per16(unsigned bits)
{
	return bits ? 128 / bits : 1;
}

void gemm_abi_text(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i)
{
	const struct gemm_param *p[GEMM_PARAMS_MAX];
	unsigned n = gemm_params(g, p);
	int sm120 = is_sm120_plan(g), sync = i->path == MMAGEN_GEMM_PATH_MMA_SYNC && !sm120;
	unsigned ebd = mmagen_type_bits(g->req.out) / 8;

	emitf(b, "mmagen gemm abi 1\nkernel $s\ntarget $s\npath $s\n", i->kernel,
	      mmagen_target_name(g->req.target), sm120 ? "sm120" : sync ? "mma.sync" : "wgmma");
	emitf(b, "a $t $u $s\nb $t $u $s\nout $t $u\n", g->req.a, i->elem_bits_a,
	      g->a_mn ? "mn" : "k", g->req.b, i->elem_bits_b, g->b_mn ? "mn" : "k", g->req.out,
	      mmagen_type_bits(g->req.out));
	if (sm120 && g->spb)
		emitf(b, "scales $t $u\n", g->stype, g->scale_block);
	else if (g->block_scale)    /* A: 1 row x 128 of K; B: 128 of N x 128 of K */
		emitf(b, "scales f32 a 1x$u b $ux$u\n", GEMM_SCALE_BLOCK, GEMM_SCALE_BLOCK,
		      GEMM_SCALE_BLOCK);
	emitf(b, "block $u $u $u\ncluster $u $u $u\nsmem $u\ntile $u $u $u\n", i->block[0],
	      i->block[1], i->block[2], i->cluster[0], i->cluster[1], i->cluster[2], i->smem,
	      i->tile_m, i->tile_n, i->tile_k);
	emitf(b, "grid $s\n", sync || sm120 ? "tiles" : "persistent");
	if (!sync && !sm120 && g->split_kernel)
		emitf(b, "split tail $u\nworkspace $u 8\n", g->split, GEMM_SPLIT_WG_BYTES(i->tile_n) * 2);
	else if (sync && g->split_ws)
		emitf(b, "split slots $u\nworkspace $u 4\n", i->split_k, i->tile_m * i->tile_n * 4);
	else if (sync && i->split_k > 1)
		emitf(b, "split z $u\n", i->split_k);
	else
		emitf(b, "split none\n");
	if (!sync && !sm120) {
		emitf(b, "swizzle $u\ntmap a $u $u\ntmap b $u $u\n", i->swizzle, i->box_a[0],
		      i->box_a[1], i->box_b[0], i->box_b[1]);
		if (i->box_d[0])
			emitf(b, "tmap d $u $u\n", i->box_d[0], i->box_d[1]);
	}
	/* The rules a launch must meet (the launcher stages operands that do
	 * not): A and B's bases and row pitches in bytes; the contiguous
	 * dimension of a K-major operand (K) and of an MN-major one (M or N)
	 * as multiples of elements; C and D's bases (bytes) and ldc/ldd
	 * (elements).  TMA reads any K (zero past it); cp.async moves 16-byte
	 * chunks whole. */
	emitf(b, "rule ab_align 16\nrule ab_pitch 16\n");
	unsigned kmul = sync || sm120 ? per16(i->elem_bits_a > i->elem_bits_b ? i->elem_bits_b
									: i->elem_bits_a) : 1;
	if (sm120 && g->scale_block > kmul)      /* both powers of two */
		kmul = g->scale_block;
	emitf(b, "rule k_multiple $u\n", kmul);
	emitf(b, "rule mn_multiple $u\n", sync ? per16(16) : 1);
	emitf(b, "rule cd_align $u\nrule cd_ld 2\n", 2 * ebd);
	for (unsigned k = 0; k < n; k++)
		emitf(b, "param $s $s\n", p[k]->name, kind_names[p[k]->kind]);
	emitf(b, "end\n");
}
