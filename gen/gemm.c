/* gemm.c - the public entry points of whole GEMM kernels: the request,
 * its checks, the manifest; the generators are kernel_gemm_*.c. */
#include "gemm.h"
#include "abi.h"

#include <string.h>

static const char *const layout_names[] = { "tn", "nn", "nt", "tt" };

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

/* The input classes wgmma takes from shared memory. */
static int input_class(mmagen_type a, mmagen_type b)
{
	static const mmagen_type fp8[] = { MMAGEN_E4M3, MMAGEN_E5M2 };
	static const mmagen_type i8[] = { MMAGEN_S8, MMAGEN_U8 };
	if ((a == MMAGEN_BF16 || a == MMAGEN_F16 || a == MMAGEN_TF32) && b == a)
		return 1;
	if (is_one_of(a, fp8, 2) && is_one_of(b, fp8, 2))
		return 2;
	if (is_one_of(a, i8, 2) && is_one_of(b, i8, 2))
		return 3;
	return 0;
}

/* sm_80, sm_86, sm_89: mma.sync; sm_90, sm_90a: mma.sync on request. */
static int is_sm8x(const char *t)
{
	return !strcmp(t, "sm_80") || !strcmp(t, "sm_86") || !strcmp(t, "sm_89");
}

/* sm_120a, sm_121a, ...: the block-scaled mma.sync GEMM (kernel_gemm_sm120.c) */
static int is_sm120(const mmagen_gemm_request *r)
{
	return !strncmp(mmagen_target_name(r->target), "sm_12", 5);
}

static int is_mma_sync(const mmagen_gemm_request *r)
{
	const char *t = mmagen_target_name(r->target);
	return r->path == MMAGEN_GEMM_PATH_MMA_SYNC ||
	       (r->path == MMAGEN_GEMM_PATH_AUTO && is_sm8x(t));
}

/* The mma.sync path's types: A and B as for wgmma, plus s4/u4 mixes;
 * f16 accumulation for f16 and FP8 inputs. */
static mmagen_status check_sm80(const mmagen_gemm_request *r, struct gemm_plan *g)
{
	static const mmagen_type float_out[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32 };
	static const mmagen_type int_out[] = { MMAGEN_S32, MMAGEN_F32 };
	static const mmagen_type i4[] = { MMAGEN_S4, MMAGEN_U4 };
	const char *t = mmagen_target_name(r->target);
	int cls = input_class(r->a, r->b);

	if (!is_sm8x(t) && strcmp(t, "sm_90") && strcmp(t, "sm_90a"))
		return mmagen_set_error(MMAGEN_TARGET,
			"the mma.sync GEMM runs on sm_80, sm_86, sm_89, sm_90 and sm_90a, not %s; use --arch sm_80",
			t);
	if (!cls && is_one_of(r->a, i4, 2) && is_one_of(r->b, i4, 2))
		cls = 4;
	if (!cls)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm (mma.sync) takes A and B as bf16/bf16, f16/f16, tf32/tf32, any mix of e4m3/e5m2, "
			"any mix of s8/u8, or any mix of s4/u4 (got %s and %s)",
			mmagen_type_name(r->a), mmagen_type_name(r->b));
	if (cls == 2 && (!strcmp(t, "sm_80") || !strcmp(t, "sm_86")))
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

static mmagen_status check(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	static const mmagen_type float_out[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32 };
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
	if (is_sm120(r))
		return gemm_plan_sm120(r, g);
	if (r->quant || r->kind)
		return mmagen_set_error(MMAGEN_TARGET,
			"gemm --quant and --kind are sm_120a's (block-scaled mma.sync), not %s's; use --arch sm_120a",
			mmagen_target_name(r->target));
	if (is_mma_sync(r))
		return check_sm80(r, g);
	if (strcmp(mmagen_target_name(r->target), "sm_90a"))
		return mmagen_set_error(MMAGEN_TARGET,
			"gemm runs on sm_90a (wgmma + TMA) or through mma.sync on sm_80, sm_86, sm_89 (and sm_90/sm_90a with --path mma.sync), not %s; use --arch sm_90a",
			mmagen_target_name(r->target));
	if (r->split_k > 1)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"split-K is the mma.sync path's (--path mma.sync); the wgmma GEMM takes --split-k 1");
	int cls = input_class(r->a, r->b);
	if (!cls)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm takes A and B as bf16/bf16, f16/f16, tf32/tf32, any mix of e4m3/e5m2, "
			"or any mix of s8/u8 (got %s and %s)",
			mmagen_type_name(r->a), mmagen_type_name(r->b));
	mmagen_type acc = cls == 3 ? MMAGEN_S32 : MMAGEN_F32;
	if (r->acc && r->acc != acc)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm with %s inputs accumulates in %s (got --acc %s)%s", mmagen_type_name(r->a),
			mmagen_type_name(acc), mmagen_type_name(r->acc),
			r->acc == MMAGEN_F16 ? "; f16 accumulation is not generated yet" : "");
	if (cls == 3 ? !is_one_of(r->out, int_out, 2) : !is_one_of(r->out, float_out, 3))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm writes D as %s from %s accumulation (got %s)",
			cls == 3 ? "s32 or f32" : "bf16, f16 or f32", mmagen_type_name(acc),
			mmagen_type_name(r->out));
	if (r->layout > MMAGEN_GEMM_TT)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "gemm layout is tn, nn, nt or tt");
	if (r->layout != MMAGEN_GEMM_TN && mmagen_type_bits(r->a) != 16)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s wgmma reads A and B K-major only: use layout tn (A row-major, B column-major)",
			mmagen_type_name(r->a));
	if (r->layout != MMAGEN_GEMM_TN)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"gemm layout %s (MN-major operands) is not generated yet; use tn (A row-major, B column-major)",
			layout_names[r->layout]);
	return gemm_plan_sm90(r, g);
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
	i->swizzle = 128;
	i->elem_bytes_a = mmagen_type_bits(g->req.a) / 8;
	i->elem_bytes_b = mmagen_type_bits(g->req.b) / 8;
	i->elem_bytes_d = mmagen_type_bits(g->req.out) / 8;
	if (g->d_stage) {
		i->box_d[0] = i->swizzle / i->elem_bytes_d;   /* one swizzle row */
		i->box_d[1] = 64;                             /* one warpgroup */
	}
	i->path = g->path ? g->path : MMAGEN_GEMM_PATH_WGMMA;
	i->split_k = g->split ? g->split : 1;
	i->elem_bits_a = mmagen_type_bits(g->req.a);
	i->elem_bits_b = mmagen_type_bits(g->req.b);
	i->stype = g->stype;
	i->scale_block = g->scale_block;
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
	emitf(b, "  \"params\": [\n"
		 "    {\"name\": \"tensor_a\", \"kind\": \"tensor_map\", \"dims\": [\"K\", \"M\"], \"box\": [$u, $u], \"swizzle\": $u, \"elem_bytes\": $u},\n"
		 "    {\"name\": \"tensor_b\", \"kind\": \"tensor_map\", \"dims\": [\"K\", \"N\"], \"box\": [$u, $u], \"swizzle\": $u, \"elem_bytes\": $u},\n"
		 "    {\"name\": \"tensor_d\", \"kind\": \"tensor_map\", \"dims\": [\"N\", \"M\"], \"box\": [$u, $u], \"swizzle\": $u, \"elem_bytes\": $u,"
		 " \"what\": \"D, used when d_tma != 0 (box [0, 0]: this kernel never uses it)\"},\n"
		 "    {\"name\": \"d\", \"kind\": \"u64\", \"what\": \"D, row-major M x N, leading dimension ldd\"},\n"
		 "    {\"name\": \"c\", \"kind\": \"u64\", \"what\": \"C, row-major M x N, leading dimension ldc; read only when beta != 0\"},\n"
		 "    {\"name\": \"m\", \"kind\": \"u32\"}, {\"name\": \"n\", \"kind\": \"u32\"}, {\"name\": \"k\", \"kind\": \"u32\"},\n"
		 "    {\"name\": \"ldd\", \"kind\": \"u32\"}, {\"name\": \"ldc\", \"kind\": \"u32\"},\n"
		 "    {\"name\": \"alpha\", \"kind\": \"f32\"}, {\"name\": \"beta\", \"kind\": \"f32\"},\n"
		 "    {\"name\": \"d_tma\", \"kind\": \"u32\", \"what\": \"1: store D through tensor_d; 0: through d and ldd\"}\n  ],\n",
	      i->box_a[0], i->box_a[1], i->swizzle, i->elem_bytes_a,
	      i->box_b[0], i->box_b[1], i->swizzle, i->elem_bytes_b,
	      i->box_d[0], i->box_d[1], i->swizzle, i->elem_bytes_d);
	emitf(b, "  \"rules\": [\"K >= 1\", \"A, B: base 16-byte aligned, row stride (K * elem_bytes) a multiple of 16\","
		 " \"D, C: base aligned to 2 elements, ldd and ldc even\","
		 " \"d_tma = 1 only when box_d is not [0, 0], D's base is 16-byte aligned and ldd * elem_bytes a multiple of 16\"]\n}\n");
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
	emitf(b, "  \"params\": [\n"
		 "    {\"name\": \"a\", \"kind\": \"u64\", \"what\": \"A, $s, leading dimension lda\"},\n"
		 "    {\"name\": \"b\", \"kind\": \"u64\", \"what\": \"B, $s, leading dimension ldb\"},\n"
		 "    {\"name\": \"d\", \"kind\": \"u64\", \"what\": \"D, row-major M x N, leading dimension ldd$s\"},\n"
		 "    {\"name\": \"c\", \"kind\": \"u64\", \"what\": \"C, row-major M x N, leading dimension ldc; read only when beta != 0\"},\n"
		 "    {\"name\": \"m\", \"kind\": \"u32\"}, {\"name\": \"n\", \"kind\": \"u32\"}, {\"name\": \"k\", \"kind\": \"u32\"},\n"
		 "    {\"name\": \"lda\", \"kind\": \"u32\"}, {\"name\": \"ldb\", \"kind\": \"u32\"},\n"
		 "    {\"name\": \"ldd\", \"kind\": \"u32\"}, {\"name\": \"ldc\", \"kind\": \"u32\"},\n"
		 "    {\"name\": \"alpha\", \"kind\": \"f32\"}, {\"name\": \"beta\", \"kind\": \"f32\"}\n  ],\n",
	      g->a_mn ? "column-major M x K (M-major)" : "row-major M x K (K-major)",
	      g->b_mn ? "row-major K x N (N-major)" : "column-major K x N (K-major)",
	      g->split > 1 ? "; zero at launch (the K slices add into it)" : "");
	emitf(b, "  \"rules\": [\"K >= 1\", \"A, B: base 16-byte aligned; the contiguous dimension"
		 " ($s of A, $s of B) and lda, ldb multiples of $u elements (16 bytes)\","
		 " \"D, C: base aligned to 2 elements, ldd and ldc even\"]\n}\n",
	      g->a_mn ? "M" : "K", g->b_mn ? "N" : "K", ea);
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
	if (fmt != MMAGEN_FMT_PTX && fmt != MMAGEN_FMT_JSON)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"a GEMM is written as ptx (the kernel) or json (its manifest)");
	fill_info(&g, &info);
	buf_init(&b);
	if (fmt == MMAGEN_FMT_JSON && is_sm120(&g.req))
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
	return buf_finish(&b, out, len);
}
