/* gemm.c - the public entry points of whole GEMM kernels: the request,
 * its checks, the manifest; the generators are kernel_gemm_*.c. */
#include "gemm_plan.h"
#include "abi.h"
#include "gemm_abi.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const layout_names[] = { "tn", "nn", "nt", "tt" };

/* --quant fp8-block's scales (the params' lines say where each lies) */
static const char rule_block_scale[] =
	"sa, sb: non-zero, 4-byte aligned; (M - 1) * sa_sm + (KB - 1) * sa_sk and (NB - 1) * sb_sn + (KB - 1) * sb_sk below 2^32 (KB = ceil(K / 128), NB = ceil(N / 128))";

void mmagen_gemm_request_init_size(mmagen_gemm_request *out, size_t size)
{
	mmagen_gemm_request r;

	if (!out || size < sizeof out->size)
		return;
	memset(&r, 0, sizeof r);
	r.size = size;
	r.target = -1;
	r.layout = MMAGEN_GEMM_TN;
	if (size > sizeof r) {      /* a newer mmagen.h: check() refuses it */
		memset(out, 0, size);
		size = sizeof r;
	}
	memcpy(out, &r, size);
}

static int is_one_of(mmagen_type t, const mmagen_type *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == t)
			return 1;
	return 0;
}

/* Integers of `bits` bits (s8/u8, s4/u4): the type table's class. */
static int is_int(mmagen_type t, unsigned bits)
{
	return (mmagen_type_class(t) & TYPE_INT) && mmagen_type_bits(t) == bits;
}

static int is_fp8(mmagen_type t)
{
	return (mmagen_type_class(t) & TYPE_FP8) != 0;
}

/* The input classes wgmma takes from shared memory. */
static int input_class(mmagen_type a, mmagen_type b)
{
	if ((a == MMAGEN_BF16 || a == MMAGEN_F16 || a == MMAGEN_TF32) && b == a)
		return 1;
	if (is_fp8(a) && is_fp8(b))
		return 2;
	if (is_int(a, 8) && is_int(b, 8))
		return 3;
	return 0;
}

/* The GEMM paths of the request's target (targets.def's gemm column). */
static unsigned paths(const mmagen_gemm_request *r)
{
	return mmagen_target_gemm(r->target);
}

/* sm_120a, sm_121a, ...: the block-scaled mma.sync GEMM (kernel_gemm_sm120.c) */
static int is_sm120(const mmagen_gemm_request *r)
{
	return (paths(r) & GEMM_BS) != 0;
}

/* mma.sync: asked for, or the target's default (sm_80, sm_86, sm_89) */
static int is_mma_sync(const mmagen_gemm_request *r)
{
	return r->path == MMAGEN_GEMM_PATH_MMA_SYNC ||
	       (r->path == MMAGEN_GEMM_PATH_AUTO && (paths(r) & GEMM_SYNC_DEF));
}

/* The mma.sync path's types: A and B as for wgmma, plus s4/u4 mixes;
 * f16 accumulation for f16 and FP8 inputs. */
static mmagen_status check_sm80(const mmagen_gemm_request *r, struct gemm_plan *g)
{
	static const mmagen_type float_out[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32 };
	static const mmagen_type int_out[] = { MMAGEN_S32, MMAGEN_F32 };
	const char *t = mmagen_target_name(r->target);
	int cls = input_class(r->a, r->b);

	if (!(paths(r) & GEMM_SYNC))
		return mmagen_set_error(MMAGEN_TARGET,
			"the mma.sync GEMM runs on sm_80, sm_86, sm_89, sm_90 and sm_90a, not %s; use --arch sm_80",
			t);
	if (!cls && is_int(r->a, 4) && is_int(r->b, 4))
		cls = 4;
	if (!cls)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm (mma.sync) takes A and B as bf16/bf16, f16/f16, tf32/tf32, any mix of e4m3/e5m2, "
			"any mix of s8/u8, or any mix of s4/u4 (got %s and %s)",
			mmagen_type_name(r->a), mmagen_type_name(r->b));
	if (cls == 2 && !(mmagen_target_features(r->target) & F_SM89))
		return mmagen_set_error(MMAGEN_TARGET,
			"mma.sync with e4m3/e5m2 needs sm_89 or later (got %s); use --arch sm_89", t);
	int integer = cls >= 3;
	mmagen_type acc = integer ? MMAGEN_S32 : MMAGEN_F32;
	int f16_ok = r->a == MMAGEN_F16 || cls == 2;
	if (r->acc && r->acc != acc && !(r->acc == MMAGEN_F16 && f16_ok))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm (mma.sync) with %s inputs accumulates in %s%s (got --acc %s)",
			mmagen_type_name(r->a), mmagen_type_name(acc),
			f16_ok ? " or f16" : "", mmagen_type_name(r->acc));
	if (integer ? !is_one_of(r->out, int_out, 2) : !is_one_of(r->out, float_out, 3))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm writes D as %s from %s accumulation (got %s)",
			integer ? "s32 or f32" : "bf16, f16 or f32", mmagen_type_name(acc),
			mmagen_type_name(r->out));
	if (r->layout > MMAGEN_GEMM_TT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "gemm layout is tn, nn, nt or tt");
	if (r->layout != MMAGEN_GEMM_TN && mmagen_type_bits(r->a) != 16)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s mma.sync reads A and B K-major only (ldmatrix .trans moves 16-bit elements): use layout tn (A row-major, B column-major)",
			mmagen_type_name(r->a));
	return gemm_plan_sm80(r, g);
}

/* The wgmma and sm_120a paths have one K block per type (their stage
 * rows are the 128 bytes of the TMA/ldmatrix swizzle): a tile K other
 * than theirs is refused after their plan (s) has set bk. */
static mmagen_status own_tile_k(const mmagen_gemm_request *r, const struct gemm_plan *g,
				mmagen_status s)
{
	if (s || !r->tile_k || r->tile_k == g->bk)
		return s;
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"the %s GEMM's tile K for %s is %u, not %u; use --tile %ux%ux%u or leave K out",
		is_sm120(r) ? "sm_120a" : "wgmma", mmagen_type_name(r->a), g->bk, r->tile_k,
		g->bm, g->bn, g->bk);
}

static mmagen_status check(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	static const mmagen_type float_out_sm90[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32,
						      MMAGEN_E4M3, MMAGEN_E5M2 };
	static const mmagen_type int_out[] = { MMAGEN_S32, MMAGEN_F32 };
	mmagen_gemm_request full;
	const mmagen_gemm_request *r = &full;
	mmagen_status s;

	mmagen_gemm_request_init(&full);
	if ((s = abi_sized_in("mmagen_gemm_request", "mmagen_gemm_request_init", &full,
			      sizeof full, req, GEMM_REQUEST_SIZE_MIN)))
		return s;
	if (r->target < 0 || r->target >= mmagen_target_count())
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "gemm: a target is required (--arch sm_90a)");
	if (r->path > MMAGEN_GEMM_PATH_MMA_SYNC)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "gemm path is wgmma or mma.sync");
	if (r->promote_k && (is_sm120(r) || is_mma_sync(r)))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--promote is the sm_90a wgmma path's (mma.sync adds each instruction's FP8 products into its f32 accumulator); leave it out");
	if (r->schedule > MMAGEN_GEMM_SCHED_PINGPONG)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"gemm schedule %u is not one; use cooperative or pingpong", r->schedule);
	if (r->schedule && (is_sm120(r) || is_mma_sync(r)))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--schedule is the sm_90a wgmma kernel's (how its two consumer warpgroups share tiles); leave it out");
	if (is_sm120(r))
		return own_tile_k(r, g, gemm_plan_sm120(r, g));
	/* fp8-block is the wgmma path's (kernel_gemm_sm90.c); the formats
	 * of block-scaled mma.sync and its kinds are sm_120a's */
	int block = r->quant == MMAGEN_QF_FP8_BLOCK;
	if (r->kind || (r->quant && !block))
		return mmagen_set_error(MMAGEN_TARGET,
			"gemm %s%s%s %s sm_120a's (block-scaled mma.sync), not %s's; use --arch sm_120a%s",
			r->quant && !block ? "--quant " : "",
			r->quant && !block ? mmagen_qformat_name(r->quant) : "",
			r->kind ? r->quant && !block ? " and --kind" : "--kind" : "",
			r->kind && r->quant && !block ? "are" : "is", mmagen_target_name(r->target),
			paths(r) & GEMM_WGMMA ? " (sm_90a's wgmma GEMM takes --quant fp8-block)" : "");
	if (block && (is_mma_sync(r) || !(paths(r) & GEMM_WGMMA)))
		return mmagen_set_error(is_mma_sync(r) && (paths(r) & GEMM_WGMMA) ? MMAGEN_UNSUPPORTED
										: MMAGEN_TARGET,
			"gemm --quant fp8-block (f32 scales per 1 x 128 and 128 x 128 blocks, applied where wgmma's partial sums are promoted) is the sm_90a wgmma path's, not %s's; use --arch sm_90a%s",
			is_mma_sync(r) ? "mma.sync" : mmagen_target_name(r->target),
			is_mma_sync(r) && (paths(r) & GEMM_WGMMA) ? " without --path mma.sync" : "");
	if (is_mma_sync(r) && r->split_k == MMAGEN_GEMM_SPLIT_AUTO)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"split-K auto (S chosen at run time) is the wgmma path's; mma.sync takes a number, e.g. --split-k 4");
	if (is_mma_sync(r))
		return check_sm80(r, g);
	if (!(paths(r) & GEMM_WGMMA))
		return mmagen_set_error(MMAGEN_TARGET,
			"gemm runs on sm_90a (wgmma + TMA) or through mma.sync on sm_80, sm_86, sm_89 (and sm_90/sm_90a with --path mma.sync), not %s; use --arch sm_90a",
			mmagen_target_name(r->target));
	int cls = input_class(r->a, r->b);
	int four = is_int(r->a, 4) && is_int(r->b, 4);
	if (!cls)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm takes A and B as bf16/bf16, f16/f16, tf32/tf32, any mix of e4m3/e5m2, "
			"or any mix of s8/u8 (got %s and %s)%s",
			mmagen_type_name(r->a), mmagen_type_name(r->b),
			four ? "; s4/u4 run on the mma.sync path: add --path mma.sync, or use --arch sm_80/sm_86/sm_89" : "");
	mmagen_type acc = cls == 3 ? MMAGEN_S32 : MMAGEN_F32;
	/* f16 x f16 may accumulate in f16 (wgmma's .f16 D, half the registers) */
	int f16_ok = r->a == MMAGEN_F16;
	if (r->acc && r->acc != acc && !(r->acc == MMAGEN_F16 && f16_ok))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm with %s inputs accumulates in %s%s (got --acc %s)", mmagen_type_name(r->a),
			mmagen_type_name(acc), f16_ok ? " or f16" : "", mmagen_type_name(r->acc));
	/* float accumulation also writes FP8 D (scaled by d_scale, saturated) */
	if (cls == 3 ? !is_one_of(r->out, int_out, 2) : !is_one_of(r->out, float_out_sm90, 5))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm writes D as %s from %s accumulation (got %s)",
			cls == 3 ? "s32 or f32" : "bf16, f16, f32, e4m3 or e5m2",
			mmagen_type_name(r->acc ? r->acc : acc), mmagen_type_name(r->out));
	if (r->layout > MMAGEN_GEMM_TT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "gemm layout is tn, nn, nt or tt");
	if (r->layout != MMAGEN_GEMM_TN && mmagen_type_bits(r->a) != 16)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s wgmma reads A and B K-major only: use layout tn (A row-major, B column-major)",
			mmagen_type_name(r->a));
	if (block && cls != 2)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--quant fp8-block scales FP8 A and B (any mix of e4m3/e5m2), not %s and %s; use --a e4m3 --b e4m3, or leave --quant out",
			mmagen_type_name(r->a), mmagen_type_name(r->b));
	if ((s = own_tile_k(r, g, gemm_plan_sm90(r, g))))
		return s;
	return gemm_split_plan(r, g);
}

static void fill_info(const struct gemm_plan *g, mmagen_gemm_info *i)
{
	size_t size = i->size;
	memset(i, 0, sizeof *i);
	i->size = size;
	i->kernel = GEMM_KERNEL_NAME;
	i->block[0] = 384;
	i->block[1] = i->block[2] = 1;
	i->cluster[0] = g->cluster;
	i->cluster[1] = i->cluster[2] = 1;
	i->smem = g->smem;
	i->tile_m = g->bm;
	i->tile_n = g->bn;
	i->tile_k = g->bk;
	i->stages = g->stages;
	i->box_a[0] = i->box_b[0] = g->bk;
	i->box_a[1] = g->bm;
	i->box_b[1] = g->bn / g->cluster;   /* a cluster's CTAs load half of B each */
	/* MN-major A or B (sm_90a, 16-bit): maps over {M, K} / {N, K}, boxes
	 * of one 128-byte swizzle row of M or N by the K block */
	if (g->path != MMAGEN_GEMM_PATH_MMA_SYNC && g->a_mn) {
		i->box_a[0] = 128 / (mmagen_type_bits(g->req.a) / 8);
		i->box_a[1] = g->bk;
	}
	if (g->path != MMAGEN_GEMM_PATH_MMA_SYNC && g->b_mn) {
		i->box_b[0] = 128 / (mmagen_type_bits(g->req.b) / 8);
		i->box_b[1] = g->bk;
	}
	i->swizzle = 128;
	i->elem_bytes_a = mmagen_type_bits(g->req.a) / 8;
	i->elem_bytes_b = mmagen_type_bits(g->req.b) / 8;
	i->elem_bytes_d = mmagen_type_bits(g->req.out) / 8;
	if (g->d_stage) {
		i->box_d[0] = i->swizzle / i->elem_bytes_d;   /* one swizzle row */
		i->box_d[1] = g->bm < 64 ? g->bm : 64;        /* one warpgroup's rows */
	}
	i->path = g->path ? g->path : MMAGEN_GEMM_PATH_WGMMA;
	i->split_k = g->split ? g->split : 1;
	if (g->split_kernel)
		i->split_k = g->split;          /* 0: S chosen at run time */
	i->elem_bits_a = mmagen_type_bits(g->req.a);
	i->elem_bits_b = mmagen_type_bits(g->req.b);
	i->stype = g->stype;
	i->scale_block = g->scale_block;
	if (g->block_scale) {       /* f32 per 1 x 128 of A, 128 x 128 of B */
		i->stype = MMAGEN_F32;
		i->scale_block = GEMM_SCALE_BLOCK;
	}
	i->split_workspace = (unsigned)g->split_ws;
	i->fp8_promote = g->path != MMAGEN_GEMM_PATH_MMA_SYNC && g->promote ?
			  g->promote_every * g->bk : 0;
	if (i->path == MMAGEN_GEMM_PATH_WGMMA && !is_sm120(&g->req))
		i->schedule = g->pingpong ? MMAGEN_GEMM_SCHED_PINGPONG : MMAGEN_GEMM_SCHED_COOP;
	if (is_sm120(&g->req)) {
		/* packed e2m1 (mxf4, mxf4nvf4) or byte containers */
		i->elem_bits_a = i->elem_bits_b = g->bits;
		i->elem_bytes_a = i->elem_bytes_b = g->bits / 8;
	}
	if (g->path == MMAGEN_GEMM_PATH_MMA_SYNC) {
		i->block[0] = g->threads;
		i->box_a[0] = i->box_a[1] = i->box_b[0] = i->box_b[1] = 0;
		i->swizzle = 0;
	}
}

mmagen_status mmagen_gemm_info_of(const mmagen_gemm_request *r, mmagen_gemm_info *out)
{
	struct gemm_plan g;
	mmagen_gemm_info full = { .size = sizeof full };
	mmagen_status s;
	if ((s = abi_sized_out("mmagen_gemm_info", out, sizeof full, GEMM_INFO_SIZE_MIN)))
		return s;
	if ((s = check(r, &g)))
		return s;
	fill_info(&g, &full);
	full.size = out->size;
	memcpy(out, &full, out->size);    /* what the caller's version holds */
	return MMAGEN_OK;
}

static void emit_json_split_keys(struct buf *b, const mmagen_gemm_info *i)
{
	if (i->split_k)
		emitf(b, "  \"split_k\": $u,\n", i->split_k);
	else
		emitf(b, "  \"split_k\": \"auto\",\n");
	emitf(b, "  \"split_grid\": \"cluster * min(multiprocessors / cluster,"
		 " ceil(ceil(M/$u) / cluster) * ceil(N/$u) * min(S, ceil(K/$u))) x 1 x 1 (in place of grid)\",\n",
	      i->tile_m, i->tile_n, i->tile_k);
	emitf(b, "  \"split_buffers\": \"workspace tiles * S * $u bytes, counters tiles * 8 bytes;"
		 " tiles = (T - floor(T/G) * G) * $u, the tail past the whole waves, with"
		 " T = ceil(ceil(M/$u)/$u) * ceil(N/$u) and G = grid / $u\",\n",
	      GEMM_SPLIT_WG_BYTES(i->tile_n) * 2, i->cluster[0], i->tile_m, i->cluster[0], i->tile_n,
	      i->cluster[0]);
}

static void emit_json(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i)
{
	char op[256];
	emitf(b, "{\n  \"kernel\": \"$s\",\n  \"target\": \"$s\",\n  \"instruction\": \"$s\",\n"
		 "  \"a\": \"$t\", \"b\": \"$t\", \"acc\": \"$t\", \"out\": \"$t\", \"layout\": \"$s\",\n",
	      i->kernel, mmagen_target_name(g->req.target),
	      mmagen_form_opcode(g->form, op, sizeof op), g->req.a, g->req.b, g->acc,
	      g->req.out, layout_names[g->req.layout]);
	emitf(b, "  \"block\": [$u, $u, $u],\n  \"cluster\": [$u, $u, $u],\n"
		 "  \"grid\": \"cluster * min(multiprocessors / cluster, ceil(ceil(M/$u) / cluster) * ceil(N/$u)) x 1 x 1\",\n"
		 "  \"dynamic_shared_bytes\": $u,\n  \"tile\": [$u, $u, $u],\n  \"stages\": $u,\n",
	      i->block[0], i->block[1], i->block[2], i->cluster[0], i->cluster[1], i->cluster[2],
	      i->tile_m, i->tile_n, i->smem, i->tile_m, i->tile_n, i->tile_k, i->stages);
	if (i->fp8_promote)
		emitf(b, "  \"promote_k\": $u,\n", i->fp8_promote);
	if (g->block_scale)
		emitf(b, "  \"quant\": \"fp8-block\",\n  \"scales\": {\"type\": \"f32\", \"a\": [1, $u],"
			 " \"b\": [$u, $u], \"what\": \"D = alpha * sum over K blocks kb of"
			 " sa[m][kb] * sb[n / $u][kb] * (A * B over kb's $u elements of K) + beta * C\"},\n",
		      GEMM_SCALE_BLOCK, GEMM_SCALE_BLOCK, GEMM_SCALE_BLOCK, GEMM_SCALE_BLOCK,
		      GEMM_SCALE_BLOCK);
	if (i->schedule)
		emitf(b, "  \"schedule\": \"$s\",\n",
		      i->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? "pingpong" : "cooperative");
	gemm_json_params(b, g, i);
	if (g->split_kernel)
		emit_json_split_keys(b, i);
	emitf(b, "  \"rules\": [\"K >= 1\", \"A, B: base 16-byte aligned, $s a multiple of 16\","
		 " \"D, C: base aligned to 2 elements, ldd and ldc even\","
		 " \"d_tma = 1 only when box_d is not [0, 0], D's base is 16-byte aligned and ldd * elem_bytes a multiple of 16\"$s$s$s]\n}\n",
	      g->a_mn || g->b_mn ? "each one's row stride (dims[0] * elem_bytes)"
				 : "row stride (K * elem_bytes)",
	      g->block_scale ? ", \"" : "", g->block_scale ? rule_block_scale : "",
	      g->block_scale ? "\"" : "");
}

/* The mma.sync path's manifest: plain pointers and strides, no tensor
 * maps; one CTA per tile, gridDim.z the K slices. */
static void emit_json_sm80(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i)
{
	char op[256];
	unsigned ea = 128 / i->elem_bits_a;      /* elements in 16 bytes */
	emitf(b, "{\n  \"kernel\": \"$s\",\n  \"target\": \"$s\",\n  \"path\": \"mma.sync\",\n"
		 "  \"instruction\": \"$s\",\n"
		 "  \"a\": \"$t\", \"b\": \"$t\", \"acc\": \"$t\", \"out\": \"$t\", \"layout\": \"$s\",\n",
	      i->kernel, mmagen_target_name(g->req.target),
	      mmagen_form_opcode(g->form, op, sizeof op), g->req.a, g->req.b, g->acc,
	      g->req.out, layout_names[g->req.layout]);
	emitf(b, "  \"block\": [$u, $u, $u],\n  \"cluster\": [1, 1, 1],\n"
		 "  \"grid\": \"ceil(M/$u) * ceil(N/$u) x 1 x $u\",\n"
		 "  \"dynamic_shared_bytes\": $u,\n  \"tile\": [$u, $u, $u],\n  \"stages\": $u,\n"
		 "  \"split_k\": $u,\n",
	      i->block[0], i->block[1], i->block[2], i->tile_m, i->tile_n, i->split_k, i->smem,
	      i->tile_m, i->tile_n, i->tile_k, i->stages, i->split_k);
	gemm_json_params(b, g, i);
	emitf(b, "  \"rules\": [\"K >= 1\", \"A, B: base 16-byte aligned; the contiguous dimension"
		 " ($s of A, $s of B) and lda, ldb multiples of $u elements (16 bytes)\","
		 " \"D, C: base aligned to 2 elements, ldd and ldc even\"$s]\n}\n",
	      g->a_mn ? "M" : "K", g->b_mn ? "N" : "K", ea,
	      g->split_ws ? ", \"grid z exactly split_k (the kernel traps on another)\","
			    " \"workspace 8-byte and counters 4-byte aligned\","
			    " \"launches that share a workspace and counters do not overlap\"" : "");
}

/* ---- --format c: a C header that ships the kernel ----
 * The PTX as one string, the launch constants as macros, the grid rule as
 * a static inline function, the parameters in order (read back from the
 * PTX's .entry line, so they are the kernel's own) and the rules.  Every
 * name starts with an identifier made of the request, so headers of
 * several kernels can go into one program. */

/* "sm_90a" -> "sm90a": the request as an identifier. */
static void header_id(const struct gemm_plan *g, const mmagen_gemm_info *i, char *id, size_t n)
{
	char tgt[32];
	size_t j = 0;
	for (const char *t = mmagen_target_name(g->req.target); *t && j + 1 < sizeof tgt; t++)
		if (*t != '_')
			tgt[j++] = *t;
	tgt[j] = '\0';
	int len = snprintf(id, n, "mmagen_gemm_%s_%s_%s_%s_%s_%s_%ux%u_s%u", tgt,
			   mmagen_type_name(g->req.a), mmagen_type_name(g->req.b),
			   mmagen_type_name(g->acc), mmagen_type_name(g->req.out),
			   layout_names[g->req.layout], i->tile_m, i->tile_n, i->stages);
	assert(len > 0 && (size_t)len < n);
	if (i->path == MMAGEN_GEMM_PATH_MMA_SYNC)
		snprintf(id + len, n - (size_t)len, "_mmasync_split%u", i->split_k);
	else if (g->split_kernel && i->split_k)
		snprintf(id + len, n - (size_t)len, "_c%u_g%u_split%u", i->cluster[0], g->group,
			 i->split_k);
	else if (g->split_kernel)
		snprintf(id + len, n - (size_t)len, "_c%u_g%u_splitauto", i->cluster[0], g->group);
	else
		snprintf(id + len, n - (size_t)len, "_c%u_g%u", i->cluster[0], g->group);
	len = (int)strlen(id);
	if (g->pingpong)
		snprintf(id + len, n - (size_t)len, "_pp");
	len = (int)strlen(id);
	if (g->promote && g->promote_every > 1)    /* --promote beyond one K block */
		snprintf(id + len, n - (size_t)len, "_p%u", g->promote_every * g->bk);
	len = (int)strlen(id);
	if (g->block_scale)
		snprintf(id + len, n - (size_t)len, "_fp8block");
}

static void upper(char *dst, const char *src, size_t n)
{
	size_t j = 0;
	for (; src[j] && j + 1 < n; j++)
		dst[j] = (char)(src[j] >= 'a' && src[j] <= 'z' ? src[j] - 'a' + 'A' : src[j]);
	dst[j] = '\0';
}

/* The PTX as C string literals, one per line, escaped. */
static void c_string(struct buf *b, const char *ptx)
{
	char esc[8];
	buf_puts(b, "\t\"");
	for (const char *p = ptx; *p; p++) {
		if (*p == '\n') {
			buf_puts(b, p[1] ? "\\n\"\n\t\"" : "\\n\"");
			continue;
		}
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof esc, "\\%c", *p);
		else if (*p == '\t')
			snprintf(esc, sizeof esc, "\\t");
		else if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
			snprintf(esc, sizeof esc, "\\%03o", (unsigned char)*p);
		else
			snprintf(esc, sizeof esc, "%c", *p);
		buf_puts(b, esc);
	}
	if (!*ptx || ptx[strlen(ptx) - 1] != '\n')
		buf_puts(b, "\"");
}

static const char *const rules_sm90[] = {
	"K >= 1",
	"A, B: base 16-byte aligned, row stride (K * elem_bytes) a multiple of 16",
	"D, C: base aligned to 2 elements, ldd and ldc even",
	"d_tma = 1 only when box_d is not [0, 0], D's base is 16-byte aligned and ldd * elem_bytes a multiple of 16",
};

static void emit_c_header(struct buf *b, const struct gemm_plan *g, const mmagen_gemm_info *i,
			  const char *ptx, const char *abi)
{
	static const char *const kinds[] = { "tensor_map", "u64", "u32", "f32" };
	static const unsigned bytes[] = { 128, 8, 4, 4 };
	const struct gemm_param *par[GEMM_PARAMS_MAX];
	unsigned npar = gemm_params(g, par);
	char id[160], up[160], op[256];
	int sync = i->path == MMAGEN_GEMM_PATH_MMA_SYNC;
	header_id(g, i, id, sizeof id);
	upper(up, id, sizeof up);
	emitf(b, "/* Generated by mmagen (`mmagen gemm --format c`): a GEMM kernel for $s.\n"
		 " *   D ($t) = alpha * A ($t) * B ($t) + beta * C, accumulated in $t, layout $s\n"
		 " *   instruction: $s\n"
		 " * Names: arrays and functions\n *   $s_*\n * and macros\n *   $s_*\n"
		 " * To launch: load _ptx (cuModuleLoadData), get the function _KERNEL, allow _SMEM bytes of\n"
		 " * dynamic shared memory (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),\n"
		 " * launch a grid of _grid() CTAs of _BLOCK_X threads in clusters of\n"
		 " * _CLUSTER_X (cuLaunchKernelEx) with the parameters of _params in order. */\n",
	      mmagen_target_name(g->req.target), g->req.out, g->req.a, g->req.b, g->acc,
	      layout_names[g->req.layout], mmagen_form_opcode(g->form, op, sizeof op), id, up);
	emitf(b, "#ifndef $s_H\n#define $s_H\n\n", up, up);
	emitf(b, "#define $s_KERNEL \"$s\"\n#define $s_TARGET \"$s\"\n#define $s_PATH \"$s\"\n"
		 "#define $s_A_TYPE \"$t\"\n#define $s_B_TYPE \"$t\"\n#define $s_ACC_TYPE \"$t\"\n"
		 "#define $s_OUT_TYPE \"$t\"\n#define $s_LAYOUT \"$s\"\n",
	      up, i->kernel, up, mmagen_target_name(g->req.target), up, sync ? "mma.sync" : "wgmma",
	      up, g->req.a, up, g->req.b, up, g->acc, up, g->req.out, up, layout_names[g->req.layout]);
	emitf(b, "#define $s_BLOCK_X $u\n#define $s_BLOCK_Y $u\n#define $s_BLOCK_Z $u\n"
		 "#define $s_CLUSTER_X $u\n#define $s_CLUSTER_Y $u\n#define $s_CLUSTER_Z $u\n"
		 "#define $s_SMEM $u\n#define $s_TILE_M $u\n#define $s_TILE_N $u\n#define $s_TILE_K $u\n"
		 "#define $s_STAGES $u\n#define $s_SPLIT_K $u\n",
	      up, i->block[0], up, i->block[1], up, i->block[2], up, i->cluster[0], up, i->cluster[1],
	      up, i->cluster[2], up, i->smem, up, i->tile_m, up, i->tile_n, up, i->tile_k,
	      up, i->stages, up, i->split_k);
	emitf(b, "#define $s_A_ELEM_BITS $u\n#define $s_B_ELEM_BITS $u\n#define $s_D_ELEM_BYTES $u\n",
	      up, i->elem_bits_a, up, i->elem_bits_b, up, i->elem_bytes_d);
	if (!sync) {
		emitf(b, "\n/* Tensor maps (cuTensorMapEncodeTiled), innermost dimension first,\n"
			 " * out-of-bounds elements zero, swizzle _SWIZZLE bytes:\n"
			 " *   tensor_a: dims {K, M}, row stride K * _A_ELEM_BYTES bytes, box {_A_BOX0, _A_BOX1}\n"
			 " *   tensor_b: dims {K, N}, row stride K * _B_ELEM_BYTES bytes, box {_B_BOX0, _B_BOX1}\n"
			 " *   tensor_d: dims {N, M}, row stride ldd * _D_ELEM_BYTES bytes, box {_D_BOX0, _D_BOX1},\n"
			 " *     used when d_tma != 0 (a box of 0 x 0: never; pass d_tma = 0). */\n");
		emitf(b, "#define $s_SWIZZLE $u\n#define $s_A_ELEM_BYTES $u\n#define $s_A_BOX0 $u\n"
			 "#define $s_A_BOX1 $u\n#define $s_B_ELEM_BYTES $u\n#define $s_B_BOX0 $u\n"
			 "#define $s_B_BOX1 $u\n#define $s_D_BOX0 $u\n#define $s_D_BOX1 $u\n",
		      up, i->swizzle, up, i->elem_bytes_a, up, i->box_a[0], up, i->box_a[1],
		      up, i->elem_bytes_b, up, i->box_b[0], up, i->box_b[1], up, i->box_d[0],
		      up, i->box_d[1]);
		emitf(b, "\n/* The persistent grid: at most one CTA per multiprocessor (sms; 0: unknown,\n"
			 " * one cluster per work unit), a multiple of the cluster, never more\n"
			 " * clusters than work units of cluster x 1 tiles. */\n"
			 "static inline void $s_grid(unsigned m, unsigned n, unsigned sms, unsigned grid[3])\n{\n"
			 "\tunsigned long long rows = ((unsigned long long)m + $u - 1) / $u;\n"
			 "\tunsigned long long units = (rows + $u - 1) / $u * (((unsigned long long)n + $u - 1) / $u);\n"
			 "\tunsigned long long most = sms ? sms / $u : units;\n"
			 "\tif (most < 1)\n\t\tmost = 1;\n"
			 "\tgrid[0] = (unsigned)((units < most ? units : most) * $u);\n"
			 "\tgrid[1] = 1;\n\tgrid[2] = 1;\n}\n",
		      id, i->tile_m, i->tile_m, i->cluster[0], i->cluster[0], i->tile_n, i->tile_n,
		      i->cluster[0], i->cluster[0]);
		if (g->split_kernel)
			emitf(b, "\n/* Split-K (_SPLIT_K slices; 0: choose S at run time, e.g. with\n"
				 " * mmagen_gemm_split_for): launch _split_grid() CTAs in place of _grid(),\n"
				 " * pass S as `splits`, and a workspace and counters of the sizes\n"
				 " * _split_buffers_grid() (or, for any grid, _split_buffers()) gives;\n"
				 " * the counters are zero before the first launch\n"
				 " * and every launch leaves them zero. */\n"
				 "static inline void $s_split_grid(unsigned m, unsigned n, unsigned k, unsigned sms,\n"
				 "\t\t\t\t\tunsigned splits, unsigned grid[3])\n{\n"
				 "\tunsigned long long rows = ((unsigned long long)m + $u - 1) / $u;\n"
				 "\tunsigned long long kb = ((unsigned long long)k + $u - 1) / $u;\n"
				 "\tunsigned long long s = splits < 1 ? 1 : splits < kb ? splits : kb;\n"
				 "\tunsigned long long units = (rows + $u - 1) / $u * (((unsigned long long)n + $u - 1) / $u) * s;\n"
				 "\tunsigned long long most = sms ? sms / $u : units;\n"
				 "\tif (most < 1)\n\t\tmost = 1;\n"
				 "\tgrid[0] = (unsigned)((units < most ? units : most) * $u);\n"
				 "\tgrid[1] = 1;\n\tgrid[2] = 1;\n}\n"
				 "static inline void $s_split_buffers(unsigned m, unsigned n, unsigned splits,\n"
				 "\t\t\t\t\t    unsigned long long *workspace_bytes,\n"
				 "\t\t\t\t\t    unsigned long long *counter_bytes)\n{\n"
				 "\tunsigned long long rows = ((unsigned long long)m + $u - 1) / $u;\n"
				 "\tunsigned long long tiles = (rows + $u - 1) / $u * $u * (((unsigned long long)n + $u - 1) / $u);\n"
				 "\t*workspace_bytes = tiles * splits * $uull;\n"
				 "\t*counter_bytes = tiles * 8;\n}\n"
				 "/* The kernel runs whole waves of tiles unsplit and splits only the rest:\n"
				 " * on a grid of grid0 CTAs (_split_grid()'s grid[0]) only those take slots. */\n"
				 "static inline void $s_split_buffers_grid(unsigned m, unsigned n, unsigned splits,\n"
				 "\t\t\t\t\t\t unsigned grid0,\n"
				 "\t\t\t\t\t\t unsigned long long *workspace_bytes,\n"
				 "\t\t\t\t\t\t unsigned long long *counter_bytes)\n{\n"
				 "\tunsigned long long rows = ((unsigned long long)m + $u - 1) / $u;\n"
				 "\tunsigned long long t = (rows + $u - 1) / $u * (((unsigned long long)n + $u - 1) / $u);\n"
				 "\tunsigned long long g = grid0 / $u ? grid0 / $u : 1;\n"
				 "\tunsigned long long tiles = (t - t / g * g) * $u;\n"
				 "\t*workspace_bytes = tiles * splits * $uull;\n"
				 "\t*counter_bytes = tiles * 8;\n}\n",
			      id, i->tile_m, i->tile_m, i->tile_k, i->tile_k, i->cluster[0], i->cluster[0],
			      i->tile_n, i->tile_n, i->cluster[0], i->cluster[0], id, i->tile_m, i->tile_m,
			      i->cluster[0], i->cluster[0], i->cluster[0], i->tile_n, i->tile_n,
			      128 * i->tile_n * 4, id, i->tile_m, i->tile_m, i->cluster[0], i->cluster[0],
			      i->tile_n, i->tile_n, i->cluster[0], i->cluster[0], i->cluster[0],
			      128 * i->tile_n * 4);
	} else {
		emitf(b, "\n/* One CTA per tile, gridDim.z the K slices (sms is not used). */\n"
			 "static inline void $s_grid(unsigned m, unsigned n, unsigned sms, unsigned grid[3])\n{\n"
			 "\t(void)sms;\n"
			 "\tgrid[0] = (unsigned)((((unsigned long long)m + $u - 1) / $u) * (((unsigned long long)n + $u - 1) / $u));\n"
			 "\tgrid[1] = 1;\n\tgrid[2] = $u;\n}\n",
		      id, i->tile_m, i->tile_m, i->tile_n, i->tile_n, i->split_k);
		if (i->split_workspace)
			emitf(b, "\n/* Split-K: a workspace slot per tile and K slice (any contents) and a\n"
				 " * u32 counter per tile (zero before the first launch; every launch\n"
				 " * leaves them zero): the last two parameters.  The grid's z must be\n"
				 " * the kernel's split_k (it traps on another), and launches sharing\n"
				 " * them must not overlap.  Returns 0, or -1 (sizes 0) when the tiles\n"
				 " * times split_k reach 2^32 (the kernel numbers slots in 32 bits;\n"
				 " * mmagen_gemm_split_buffers refuses them too): a larger tile or\n"
				 " * fewer slices. */\n"
				 "static inline int $s_split_buffers(unsigned m, unsigned n,\n"
				 "\t\t\t\t   unsigned long long *workspace_bytes,\n"
				 "\t\t\t\t   unsigned long long *counter_bytes)\n{\n"
				 "\tunsigned long long tiles = (((unsigned long long)m + $u - 1) / $u) * (((unsigned long long)n + $u - 1) / $u);\n"
				 "\t*workspace_bytes = *counter_bytes = 0;\n"
				 "\tif (tiles * $u > 0xFFFFFFFFull)\n\t\treturn -1;\n"
				 "\t*workspace_bytes = tiles * $uull;\n"
				 "\t*counter_bytes = tiles * 4;\n\treturn 0;\n}\n",
			      id, i->tile_m, i->tile_m, i->tile_n, i->tile_n, i->split_k,
			      i->split_k * i->tile_m * i->tile_n * 4);
	}
	emitf(b, "\n/* The parameters, in order: tensor_map is a CUtensorMap by value (128 bytes,\n"
		 " * 64-byte aligned), u64 a device address, u32 and f32 by value. */\n"
		 "#define $s_NUM_PARAMS $u\n"
		 "static const struct $s_param { const char *name, *kind; unsigned bytes; } $s_params[$u] = {\n",
	      up, npar, id, id, npar);
	for (unsigned k = 0; k < npar; k++)
		emitf(b, "\t{ \"$s\", \"$s\", $u },\n", par[k]->name, kinds[par[k]->kind],
		      bytes[par[k]->kind]);
	emitf(b, "};\n\n/* What the caller must hold to (checked by `mmagen run gemm`, not by the kernel). */\n"
		 "static const char *const $s_rules[] = {\n", id);
	if (sync) {
		char r1[200];
		unsigned ea = 128 / i->elem_bits_a;
		snprintf(r1, sizeof r1, "A, B: base 16-byte aligned; the contiguous dimension (%s of A, %s of B) "
			 "and lda, ldb multiples of %u elements (16 bytes)", g->a_mn ? "M" : "K",
			 g->b_mn ? "N" : "K", ea);
		emitf(b, "\t\"$s\",\n\t\"$s\",\n\t\"$s\",\n", rules_sm90[0], r1, rules_sm90[2]);
	} else {
		for (size_t k = 0; k < sizeof rules_sm90 / sizeof rules_sm90[0]; k++)
			emitf(b, "\t\"$s\",\n", rules_sm90[k]);
		if (g->block_scale)
			emitf(b, "\t\"$s\",\n", rule_block_scale);
	}
	emitf(b, "};\n\n/* The kernel's ABI text, what libmmart's launcher takes with _ptx:\n"
		 " *   mmart_gemm_kernel_load(ctx, $s_ptx, $s_abi, &kernel);\n"
		 " *   mmart_gemm_kernel_launch(kernel, &args, stream);\n"
		 " * (mmart.h; the format: mmagen's docs/gemm-abi.md). */\n"
		 "static const char $s_abi[] =\n", id, id, id);
	c_string(b, abi);
	emitf(b, ";\n\n/* The kernel (PTX, NUL-terminated). */\n"
		 "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic push\n"
		 "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n"
		 "static const char $s_ptx[] =\n", id);
	c_string(b, ptx);
	emitf(b, ";\n#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n\n"
		 "/* Short names for a program that ships one GEMM (the first header\n"
		 " * included defines them; with several, use the names above). */\n"
		 "#ifndef MMAGEN_GEMM_PTX\n#define MMAGEN_GEMM_PTX $s_ptx\n#define MMAGEN_GEMM_ABI $s_abi\n#endif\n\n"
		 "#endif /* $s_H */\n", id, id, up);
}

mmagen_status mmagen_gemm_emit(const mmagen_gemm_request *r, mmagen_format fmt,
			       char **out, size_t *len)
{
	struct gemm_plan g;
	mmagen_gemm_info info = { .size = sizeof info };
	struct buf b;
	mmagen_status s;

	if (!out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_gemm_emit: NULL argument");
	if ((s = check(r, &g)))
		return s;
	if (fmt != MMAGEN_FMT_PTX && fmt != MMAGEN_FMT_JSON && fmt != MMAGEN_FMT_CUDA &&
	    fmt != MMAGEN_FMT_ABI)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"a GEMM is written as ptx (the kernel), json (its manifest), abi (its launch ABI) or c (a header with the kernel and its ABI)");
	fill_info(&g, &info);
	buf_init(&b);
	if (fmt == MMAGEN_FMT_ABI)
		gemm_abi_text(&b, &g, &info);
	else if (fmt == MMAGEN_FMT_JSON && is_sm120(&g.req))
		gemm_json_sm120(&b, &g, &info);
	else if (fmt == MMAGEN_FMT_JSON && g.path == MMAGEN_GEMM_PATH_MMA_SYNC)
		emit_json_sm80(&b, &g, &info);
	else if (fmt == MMAGEN_FMT_JSON)
		emit_json(&b, &g, &info);
	else if ((s = is_sm120(&g.req) ? gemm_emit_sm120(&g, &b)
			: g.path == MMAGEN_GEMM_PATH_MMA_SYNC ? gemm_emit_sm80(&g, &b)
							      : gemm_emit_sm90(&g, &b))) {
		buf_free(&b);
		return s;
	}
	if (fmt == MMAGEN_FMT_CUDA) {
		char *ptx, *abi;
		if ((s = buf_finish(&b, &ptx, NULL)))
			return s;
		buf_init(&b);
		gemm_abi_text(&b, &g, &info);
		if ((s = buf_finish(&b, &abi, NULL))) {
			mmagen_free(ptx);
			return s;
		}
		buf_init(&b);
		emit_c_header(&b, &g, &info, ptx, abi);
		mmagen_free(ptx);
		mmagen_free(abi);
	}
	return buf_finish(&b, out, len);
}
