/* test_gemm.c - the GEMM generator's plan on the CPU: tiles, stages and
 * shared memory per type, the tensor-map boxes the manifest asks for,
 * every refusal with its rule, and the grouped tile order (a C copy of
 * the tile origin emitted by gen/gemm/kernel_gemm_sm90.c) visiting every tile
 * exactly once. */
#include "mmagen.h"
#include "check.h"
#include "ptx_slots.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mmagen_gemm_request req(mmagen_type a, mmagen_type b, mmagen_type out)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = a;
	r.b = b;
	r.out = out;
	return r;
}

static void test_plans(void)
{
	static const struct {
		mmagen_type a, b, out;
		unsigned bytes, tile_n, staging, cluster;
	} cases[] = {
		/* D's staging for TMA stores: two warpgroups x a buffer of 64
		 * rows x 128 bytes per 128-byte chunk of the tile's columns
		 * where that fits beside the stages (bf16 D 256 columns: 4
		 * chunks; bf16 D of FP8's 192: 3), else as many buffers as fit
		 * (32-bit D of 256 columns: 8 chunks, 128 KB, do not fit; 5
		 * beside 3 stages of 16-bit inputs, 2 beside 4 of 8-bit or
		 * tf32); FP8 takes a fifth stage and one buffer per
		 * warpgroup, and cluster 1 */
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 2, 256, 2 * 4 * 8192, 2 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, 2, 256, 2 * 5 * 8192, 2 },
		{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 4, 256, 2 * 2 * 8192, 2 },
		{ MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 1, 192, 2 * 1 * 8192, 1 },
		{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 1, 256, 2 * 2 * 8192, 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mmagen_gemm_request r = req(cases[i].a, cases[i].b, cases[i].out);
		mmagen_gemm_info g = { .size = sizeof g };
		CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK, "plan %zu: %s", i, mmagen_last_error());
		/* one K block is one 128-byte swizzle row */
		CHECK(g.tile_k * cases[i].bytes == 128 && g.swizzle == 128, "plan %zu: tile_k %u", i, g.tile_k);
		CHECK(g.tile_m == 128 && g.tile_n == cases[i].tile_n, "plan %zu: tile %ux%u", i,
		      g.tile_m, g.tile_n);
		CHECK(g.box_a[0] == g.tile_k && g.box_a[1] == 128 && g.box_b[0] == g.tile_k &&
		      g.box_b[1] == g.tile_n / cases[i].cluster,
		      "plan %zu: boxes (two CTAs of a cluster load half of B each)", i);
		/* boxes of D: one 128-byte row by a warpgroup's 64 rows */
		unsigned out_bytes = mmagen_type_bits(cases[i].out) / 8, staging = cases[i].staging;
		CHECK(g.box_d[0] * out_bytes == 128 && g.box_d[1] == 64, "plan %zu: box_d %ux%u", i,
		      g.box_d[0], g.box_d[1]);
		/* stages fill shared memory: one more would not fit in 227 KB
		 * (16-bit 128 x 256 tiles: 3, measured faster than the 4 that fit) */
		unsigned stage = (g.tile_m + g.tile_n) * 128;
		CHECK(g.smem == g.stages * (stage + 16) + staging && g.smem <= 227 * 1024,
		      "plan %zu: smem %u", i, g.smem);
		/* the stages are counted beside two staging buffers: more
		 * buffers only take room the stages leave */
		int three = mmagen_type_bits(cases[i].a) == 16 && g.tile_m == 128 && g.tile_n == 256;
		unsigned bufs = cases[i].staging < 2 * 2 * 8192 ? cases[i].staging : 2 * 2 * 8192;
		CHECK(g.stages == 6 || (three && g.stages == 3) ||
		      (g.stages + 1) * (stage + 16) + bufs > 227 * 1024 - 64,
		      "plan %zu: %u stages leave room", i, g.stages);
		CHECK(g.block[0] == 384 && g.cluster[0] == cases[i].cluster,
		      "plan %zu: block/cluster (default %u)", i, cases[i].cluster);
		CHECK(g.elem_bytes_a == cases[i].bytes, "plan %zu: elem bytes", i);
		r.cluster = 1;
		CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK && g.cluster[0] == 1 &&
		      g.box_b[1] == g.tile_n, "plan %zu: one CTA loads all of B", i);
	}
}

/* A tile whose columns are not whole 128-byte rows of D has no staging:
 * box_d is [0, 0] and D goes out directly. */
static void test_unstaged(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16);
	mmagen_gemm_info g = { .size = sizeof g };
	r.tile_n = 48;
	CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK, "tile n 48: %s", mmagen_last_error());
	CHECK(g.box_d[0] == 0 && g.box_d[1] == 0, "tile n 48: box_d %ux%u", g.box_d[0], g.box_d[1]);
	CHECK(g.smem == g.stages * ((128 + 48) * 128 + 16), "tile n 48: smem %u", g.smem);
	r.tile_n = 64;
	CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK && g.box_d[0] == 64, "tile n 64: staged");
	/* one chunk of bf16 D: two buffers (the first used), 6 stages */
	CHECK(g.stages == 6 && g.smem == 6 * ((128 + 64) * 128 + 16) + 2 * 2 * 8192,
	      "tile n 64: %u stages, smem %u", g.stages, g.smem);
	/* four chunks whose buffers do not fit beside 4 stages: two */
	r.tile_n = 256;
	r.stages = 4;
	CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK &&
	      g.smem == 4 * ((128 + 256) * 128 + 16) + 2 * 2 * 8192,
	      "tile 128x256, 4 stages: smem %u", g.smem);
}

/* Stages asked for that leave no room for two staging buffers get one
 * per warpgroup (never none: direct stores are slower); more than fit
 * beside one are refused with the count that fits. */
static void test_stage_fallback(void)
{
	static const struct {
		mmagen_type a, out;
		unsigned tile_n, stages;
		unsigned smem;             /* 0: refused */
		const char *words;
	} cases[] = {
		/* FP8 128x192: 5 x 40 KB stages and 2 x 8 KB of staging */
		{ MMAGEN_E4M3, MMAGEN_BF16, 192, 5, 5 * (40960 + 16) + 2 * 8192, NULL },
		{ MMAGEN_E4M3, MMAGEN_BF16, 192, 6, 0, "use 2 to 5 stages" },
		{ MMAGEN_BF16, MMAGEN_BF16, 192, 5, 5 * (40960 + 16) + 2 * 8192, NULL },
		/* 128x128 bf16: 6 stages fit beside two buffers, 7 not beside one */
		{ MMAGEN_BF16, MMAGEN_BF16, 128, 6, 6 * (32768 + 16) + 4 * 8192, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 128, 7, 0, "use 2 to 6 stages" },
		/* 4 stages of 128x256 fit beside two buffers: two */
		{ MMAGEN_BF16, MMAGEN_BF16, 256, 4, 4 * (49152 + 16) + 4 * 8192, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mmagen_gemm_request r = req(cases[i].a, cases[i].a == MMAGEN_E4M3 ? MMAGEN_E5M2 : cases[i].a,
					    cases[i].out);
		mmagen_gemm_info g = { .size = sizeof g };
		r.tile_n = cases[i].tile_n;
		r.stages = cases[i].stages;
		mmagen_status st = mmagen_gemm_info_of(&r, &g);
		if (!cases[i].smem) {
			CHECK(st == MMAGEN_INVALID_ARGUMENT && strstr(mmagen_last_error(), cases[i].words),
			      "fallback %zu: %s", i, mmagen_last_error());
			continue;
		}
		CHECK(st == MMAGEN_OK && g.stages == cases[i].stages && g.smem == cases[i].smem &&
		      g.box_d[0] * 2 == 128 && g.box_d[1] == 64,
		      "fallback %zu: status %d, %u stages, smem %u, box_d %ux%u", i, (int)st, g.stages,
		      g.smem, g.box_d[0], g.box_d[1]);
	}
}

/* Each refusal: the status and a word of its rule. */
static void test_refusals(void)
{
	mmagen_gemm_info g = { .size = sizeof g };
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16);
	r.size = 0;
	CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_INVALID_ARGUMENT, "unsized request");
	struct {
		mmagen_gemm_request r;
		mmagen_status s;
		const char *word;
	} bad[56];
	int n = 0;
	bad[n].r = req(MMAGEN_BF16, MMAGEN_F16, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "bf16/bf16";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_S8, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "e4m3/e5m2";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "s32 or f32";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_S32); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "bf16, f16, f32, e4m3 or e5m2";
	bad[n].r = req(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32); bad[n].r.layout = MMAGEN_GEMM_NN; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "K-major";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.acc = MMAGEN_F16; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "accumulates in f32 (got --acc f16)";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.tile_m = 48; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "M = 128";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.tile_m = 16; bad[n].r.layout = MMAGEN_GEMM_NN; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "K-major A";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.tile_n = 250; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "multiple of 16";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.cluster = 3; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 or 2";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 5; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "stages";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.tile_n = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at most 192";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); mmagen_target_parse("sm_100a", &bad[n].r.target); bad[n].s = MMAGEN_TARGET; bad[n++].word = "sm_90a";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_F32); mmagen_target_parse("sm_86", &bad[n].r.target); bad[n].s = MMAGEN_TARGET; bad[n++].word = "sm_89";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].r.layout = MMAGEN_GEMM_NN; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "ldmatrix .trans";
	bad[n].r = req(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16); bad[n].r.acc = MMAGEN_F16; bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].r.split_k = 2; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "--acc f32";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32); bad[n].r.split_k = 257; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 to 256 K slices";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 1u << 28; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "2 to 32 stages";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.group = 70000; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 to 65535";
	/* layouts, f16 accumulation, FP8 D (wgmma path) */
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.acc = MMAGEN_F16; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "accumulates in f32 (got --acc f16)";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_E4M3); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "s32 or f32";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.layout = MMAGEN_GEMM_NT; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "K-major only";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.layout = MMAGEN_GEMM_NT; bad[n].r.tile_n = 96; bad[n].r.cluster = 1; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "multiple of 64, not 96; use 64";
	bad[n].r = req(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16); bad[n].r.layout = MMAGEN_GEMM_TT; bad[n].r.cluster = 2; bad[n].r.tile_n = 64; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "takes --cluster 1";
	bad[n].r = req(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16); bad[n].r.acc = MMAGEN_F16; bad[n].r.split_k = 3; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "with --acc f16 use --split-k 1";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.layout = 4; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "tn, nn, nt or tt";
	/* one stage: the rule is the pipeline's, and the stages suggested
	 * are ones the generator takes (at most 32; a 16x16 tile's fit 56) */
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 1; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at least 2 stages (one filled while another is read), not 1; use 2 to 4 stages";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 1; bad[n].r.tile_m = bad[n].r.tile_n = 16; bad[n].r.cluster = 1; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "not 1; use 2 to 32 stages";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 1; bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at least 2 stages";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 40; bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "stages 40 is out of range; use 2 to 32";
	/* ping-pong: whole 128-row tiles, no FP8, no split, N <= 192 */
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "use --schedule cooperative for e4m3";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].r.tile_m = 64; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "not 64; use --tile 128x128";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].r.tile_m = 64; bad[n].r.tile_n = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "not 64; use --tile 128x192";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].r.tile_n = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at most 192 with f32 accumulation, not 256; use --tile 128x192";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].r.split_k = 2; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "use --split-k 1, or --schedule cooperative";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.schedule = 3; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "use cooperative or pingpong";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "sm_90a wgmma kernel's";
	/* --quant: fp8-block on the sm_90a wgmma path, FP8 A and B,
	 * promoting every K block; the MX formats on sm_120a only */
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "scales FP8 A and B (any mix of e4m3/e5m2), not bf16 and bf16";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].r.promote_k = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "--promote is 128, not 256; leave --promote out";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].r.tile_n = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at most 192";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].r.schedule = MMAGEN_GEMM_SCHED_PINGPONG; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "--schedule cooperative";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "without --path mma.sync";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; mmagen_target_parse("sm_89", &bad[n].r.target); bad[n].s = MMAGEN_TARGET; bad[n++].word = "wgmma path's, not mma.sync's; use --arch sm_90a";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; mmagen_target_parse("sm_120a", &bad[n].r.target); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "sm_90a wgmma GEMM's; on sm_120a use --quant mxfp8";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_MXFP8; bad[n].s = MMAGEN_TARGET; bad[n++].word = "--quant mxfp8 is sm_120a's";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_FP8_BLOCK; bad[n].r.kind = 1; bad[n].s = MMAGEN_TARGET; bad[n++].word = "--kind is sm_120a's";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.quant = MMAGEN_QF_GEMM_END; bad[n].s = MMAGEN_TARGET; bad[n++].word = "sm_120a";
	assert(n <= (int)(sizeof bad / sizeof bad[0]));
	for (int i = 0; i < n; i++) {
		mmagen_status s = mmagen_gemm_info_of(&bad[i].r, &g);
		CHECK(s == bad[i].s && strstr(mmagen_last_error(), bad[i].word),
		      "refusal %d: got %s '%s', want %s with '%s'", i, mmagen_status_str(s),
		      mmagen_last_error(), mmagen_status_str(bad[i].s), bad[i].word);
		char *t = NULL;
		CHECK(mmagen_gemm_emit(&bad[i].r, MMAGEN_FMT_PTX, &t, NULL) == bad[i].s && !t,
		      "refusal %d: emit refuses too, with no output", i);
	}
}

/* The grouped order of the GEMM (emit_tile_origin in gen/gemm/kernel_gemm_sm90.c). */
static void tile_origin(unsigned tile, unsigned tiles_m, unsigned tiles_n, unsigned group,
			unsigned *tm, unsigned *tn)
{
	unsigned per_group = tiles_n * group, first = tile / per_group * group;
	unsigned rows = tiles_m - first < group ? tiles_m - first : group, in = tile % per_group;
	*tm = first + in % rows;
	*tn = in / rows;
}

static void test_schedule(void)
{
	static const unsigned shapes[][2] = { { 1, 1 }, { 1, 37 }, { 64, 32 }, { 9, 7 },
					      { 17, 5 }, { 8, 8 }, { 130, 3 } };
	static const unsigned groups[] = { 1, 4, 8, 16 };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
			unsigned tm_n = shapes[s][0], tn_n = shapes[s][1];
			unsigned char *seen = calloc((size_t)tm_n * tn_n, 1);
			int ok = seen != NULL;
			for (unsigned t = 0; ok && t < tm_n * tn_n; t++) {
				unsigned tm, tn;
				tile_origin(t, tm_n, tn_n, groups[g], &tm, &tn);
				ok = tm < tm_n && tn < tn_n && !seen[tm * tn_n + tn]++;
			}
			CHECK(ok, "grouped order %ux%u tiles, group %u: every tile once", tm_n, tn_n,
			      groups[g]);
			free(seen);
		}
}

/* The number of times `needle` occurs in `hay`. */
static unsigned count(const char *hay, const char *needle)
{
	unsigned c = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		c++;
	return c;
}

/* --schedule pingpong: tile 128 x 128 by default (f16 accumulation 128 x
 * 256: the same registers), a buffer of D's staging per chunk of the
 * whole tile where it fits, the manifest and the kernel saying so (two
 * wgmma a K step, rows 64 apart in A; the empty barriers count one
 * warpgroup's warps); split-K auto means none. */
static void test_pingpong(void)
{
	static const struct { mmagen_type a, acc, out; unsigned tile_n, cluster; } cases[] = {
		{ MMAGEN_S8, 0, MMAGEN_S32, 128, 1 }, { MMAGEN_BF16, 0, MMAGEN_BF16, 128, 2 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, 256, 1 }, { MMAGEN_TF32, 0, MMAGEN_F32, 128, 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mmagen_gemm_request r = req(cases[i].a, cases[i].a, cases[i].out);
		mmagen_gemm_info g = { .size = sizeof g };
		r.acc = cases[i].acc;
		r.cluster = cases[i].cluster;
		r.schedule = MMAGEN_GEMM_SCHED_PINGPONG;
		r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
		CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK, "pingpong %zu: %s", i, mmagen_last_error());
		CHECK(g.tile_m == 128 && g.tile_n == cases[i].tile_n && g.split_k == 1 &&
		      g.schedule == MMAGEN_GEMM_SCHED_PINGPONG && g.block[0] == 384,
		      "pingpong %zu: tile %ux%u split %u schedule %u", i, g.tile_m, g.tile_n, g.split_k,
		      g.schedule);
		unsigned stage = (g.tile_m + g.tile_n) * 128, dbytes = mmagen_type_bits(cases[i].out) / 8;
		unsigned chunks = 2 * g.tile_n * dbytes / 128, staging = g.smem - g.stages * (stage + 16);
		CHECK(staging % (2 * 8192) == 0 && staging >= 2 * 2 * 8192 && staging <= 2 * chunks * 8192 &&
		      g.smem <= 227 * 1024, "pingpong %zu: staging %u bytes, %u chunks", i, staging, chunks);
		char *ptx = NULL, *json = NULL;
		CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK &&
		      mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &json, NULL) == MMAGEN_OK, "pingpong %zu: emit", i);
		if (!ptx || !json) {
			mmagen_free(ptx);
			mmagen_free(json);
			continue;
		}
		CHECK(strstr(json, "\"schedule\": \"pingpong\""), "pingpong %zu: manifest", i);
		unsigned steps = g.tile_k * mmagen_type_bits(cases[i].a) / 256;   /* 32 bytes of K each */
		CHECK(count(ptx, "\twgmma.mma_async") == 2 * steps && count(ptx, ", 512;") >= steps,
		      "pingpong %zu: %u wgmma, want two per K step, the second 512 units (64 rows) on", i,
		      count(ptx, "\twgmma.mma_async"));
		char init[64];
		const char *bar = ptx_slot(ptx, "bar");    /* the template's {{bar}} */
		snprintf(init, sizeof init, "mbarrier.init.shared::cta.b64 [%s], %u;", bar ? bar : "?",
			 4 * cases[i].cluster);
		CHECK(strstr(ptx, init) && strstr(ptx, "%pp_stage"), "pingpong %zu: empty count %u", i,
		      4 * cases[i].cluster);
		mmagen_free(ptx);
		mmagen_free(json);
		r.schedule = MMAGEN_GEMM_SCHED_COOP;
		r.split_k = 0;
		CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK && g.schedule == MMAGEN_GEMM_SCHED_COOP,
		      "cooperative %zu", i);
	}
}

/* Layouts nn/nt/tt (16-bit types): an MN-major operand is a tensor map
 * over {M or N, K} with boxes of 64 elements (one 128-byte row) by the
 * K block, TMA loads of one box each, the canonical MN-major descriptor
 * (PTX ISA: SBO 1024 between 8-row groups of K, LBO 8192 between boxes
 * along M/N, 128-byte swizzle) and the transpose immediate 1. */
static void test_layouts(void)
{
	static const char *const names[] = { "tn", "nn", "nt", "tt" };
	/* descriptor constants: swizzle code 1 at bit 62, SBO/16 at 32,
	 * LBO/16 at 16 */
	const unsigned long long kmaj = 1ull << 62 | 64ull << 32 | 1ull << 16;
	const unsigned long long mnmaj = 1ull << 62 | 64ull << 32 | 512ull << 16;
	for (unsigned l = 0; l < 4; l++)
		for (int t = 0; t < 2; t++) {
			mmagen_type ty = t ? MMAGEN_F16 : MMAGEN_BF16;
			mmagen_gemm_request r = req(ty, ty, MMAGEN_BF16);
			mmagen_gemm_info g = { .size = sizeof g };
			int amn = l == 1 || l == 2, bmn = l == 2 || l == 3;
			r.layout = l;
			r.cluster = 1;      /* one CTA loads all of B */
			CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK, "layout %s: %s", names[l],
			      mmagen_last_error());
			CHECK(amn ? g.box_a[0] == 64 && g.box_a[1] == 64 : g.box_a[0] == 64 && g.box_a[1] == 128,
			      "layout %s: box_a %ux%u", names[l], g.box_a[0], g.box_a[1]);
			CHECK(bmn ? g.box_b[0] == 64 && g.box_b[1] == 64 : g.box_b[0] == 64 && g.box_b[1] == 256,
			      "layout %s: box_b %ux%u", names[l], g.box_b[0], g.box_b[1]);
			char *ptx = NULL, *json = NULL;
			CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK &&
			      mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &json, NULL) == MMAGEN_OK,
			      "layout %s: emit: %s", names[l], mmagen_last_error());
			if (!ptx || !json) {
				free(ptx);
				free(json);
				continue;
			}
			/* loads per stage: A 2 boxes M-major or 1, B 4 boxes
			 * N-major (tile N 256) or 1 */
			unsigned loads = count(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global");
			CHECK(loads == (amn ? 2u : 1u) + (bmn ? 4u : 1u), "layout %s: %u TMA loads",
			      names[l], loads);
			char want[128];
			snprintf(want, sizeof want, "or.b64 %%desc_a, %%desc_a, 0x%016llX;", amn ? mnmaj : kmaj);
			CHECK(strstr(ptx, want) != NULL, "layout %s: A descriptor %s", names[l], want);
			snprintf(want, sizeof want, "or.b64 %%desc_b, %%desc_b, 0x%016llX;", bmn ? mnmaj : kmaj);
			CHECK(strstr(ptx, want) != NULL, "layout %s: B descriptor %s", names[l], want);
			/* every wgmma ends "scale-d, 1, 1, trans-a, trans-b;" */
			snprintf(want, sizeof want, ", 1, 1, %d, %d;\n", amn, bmn);
			CHECK(count(ptx, want) == 4 && count(ptx, "\twgmma.mma_async") == 4,
			      "layout %s: 4 wgmma with transpose immediates %d, %d", names[l], amn, bmn);
			snprintf(want, sizeof want, "\"dims\": [%s]", amn ? "\"M\", \"K\"" : "\"K\", \"M\"");
			CHECK(strstr(json, want) != NULL, "layout %s: manifest A %s", names[l], want);
			snprintf(want, sizeof want, "\"dims\": [%s]", bmn ? "\"N\", \"K\"" : "\"K\", \"N\"");
			CHECK(strstr(json, want) != NULL, "layout %s: manifest B %s", names[l], want);
			free(ptx);
			free(json);
		}
}

/* The MN-major stage as TMA writes it and as the kernel's descriptor
 * reads it must agree.  TMA (128-byte swizzle, 1024-byte aligned box of
 * 64 M/N elements x 64 K rows): box j of the operand at j * 8192, K row k
 * at k * 128 in it, 16-byte chunk c of the row at chunk c ^ (k % 8).  The
 * reader: the descriptor constant the kernel ORs in (decoded), put into
 * the canonical MN-major layout that the verified wgmma tiles use
 * (mmagen_smem_offset); and a K step of 16 rows is the descriptor start
 * address step in the kernel (+128 units of 16 bytes). */
static void test_mn_stage(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32);
	char *ptx = NULL;
	r.layout = MMAGEN_GEMM_NT;
	r.tile_n = 192;
	r.cluster = 1;              /* tile N 192: 3 boxes, not split in two */
	CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK, "nt: %s",
	      mmagen_last_error());
	const char *at = ptx ? strstr(ptx, "or.b64 %desc_b, %desc_b, 0x") : NULL;
	unsigned long long bits = at ? strtoull(at + strlen("or.b64 %desc_b, %desc_b, "), NULL, 16) : 0;
	mmagen_wgmma_sdesc d;
	CHECK(at && mmagen_wgmma_sdesc_decode(bits, &d) == MMAGEN_OK && d.swizzle == 128,
	      "nt: B's descriptor 0x%llx", bits);
	mmagen_smem_layout l = { .swizzle = 128, .mn_major = 1, .rows = 64, .kbytes = 192 * 2,
				 .lbo = d.lbo, .sbo = d.sbo };
	unsigned bad = 0;
	for (unsigned k = 0; k < 64; k++)
		for (unsigned nb = 0; nb < 192 * 2; nb++) {
			unsigned c = nb % 128 / 16;
			unsigned tma = nb / 128 * 8192 + k * 128 + (c ^ k % 8) * 16 + nb % 16;
			bad += mmagen_smem_offset(&l, k, nb) != tma;
		}
	CHECK(bad == 0, "nt: %u bytes of B where the descriptor does not read them", bad);
	CHECK(ptx && strstr(ptx, "add.s64 %rd") && mmagen_smem_offset(&l, 16, 0) == 128 * 16 &&
	      strstr(ptx, ", 128;\n") && strstr(ptx, ", 256;\n") && strstr(ptx, ", 384;\n"),
	      "nt: K steps of 16 rows = 2048 bytes");
	free(ptx);
}

/* f16 accumulation: wgmma's f16 D (N/4 registers of two f16 per thread
 * instead of N/2 f32); FP8 D: the d_scale parameter and satfinite
 * conversions, and none of either elsewhere. */
static void test_acc_and_fp8(void)
{
	mmagen_gemm_request r = req(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16);
	char *ptx = NULL;
	r.acc = MMAGEN_F16;
	CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK, "acc f16: %s",
	      mmagen_last_error());
	CHECK(ptx && strstr(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {%r0, ") &&
	      strstr(ptx, "%r63}, ") && !strstr(ptx, "%r64}, "),
	      "acc f16: m64n256k16.f16 with 64 registers");
	CHECK(ptx && !strstr(ptx, "pd_scale") && !strstr(ptx, "satfinite"), "acc f16: no d_scale");
	free(ptx);
	static const mmagen_type outs[] = { MMAGEN_E4M3, MMAGEN_E5M2 };
	static const mmagen_type ins[][2] = { { MMAGEN_BF16, MMAGEN_BF16 }, { MMAGEN_E4M3, MMAGEN_E5M2 },
					      { MMAGEN_TF32, MMAGEN_TF32 } };
	for (int o = 0; o < 2; o++)
		for (int i = 0; i < 3; i++) {
			mmagen_gemm_info g = { .size = sizeof g };
			r = req(ins[i][0], ins[i][1], outs[o]);
			ptx = NULL;
			CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_OK &&
			      mmagen_gemm_info_of(&r, &g) == MMAGEN_OK, "FP8 D %d/%d: %s", o, i,
			      mmagen_last_error());
			const char *cvt = o ? "cvt.rn.satfinite.e5m2x2.f32" : "cvt.rn.satfinite.e4m3x2.f32";
			CHECK(ptx && strstr(ptx, "\t.param .u32 pd_tma,\n\t.param .f32 pd_scale)") &&
			      strstr(ptx, ", [pd_scale];") && strstr(ptx, cvt),
			      "FP8 D %d/%d: d_scale last, %s", o, i, cvt);
			/* staged: one 128-byte row of D is 128 columns; FP8
			 * inputs' default tile N 192 is not whole rows: direct */
			int staged = ins[i][0] != MMAGEN_E4M3;
			CHECK(g.elem_bytes_d == 1 && g.box_d[0] == (staged ? 128u : 0u) &&
			      g.box_d[1] == (staged ? 64u : 0u),
			      "FP8 D %d/%d: box_d %ux%u", o, i, g.box_d[0], g.box_d[1]);
			free(ptx);
		}
}

/* How often `what` occurs in the consumers' K loop ($c_kblock to
 * $c_epilogue). */
static unsigned count_in_loop(const char *ptx, const char *what)
{
	const char *p = strstr(ptx, "\n$c_kblock:"), *end = p ? strstr(p, "\n$c_epilogue:") : NULL;
	unsigned n = 0;
	while (p && end && (p = strstr(p, what)) && p < end) {
		n++;
		p++;
	}
	return n;
}

/* --quant fp8-block: the info's scales, the parameters after d_tma (and
 * d_scale) in the .entry, the ABI text's scales line and params, the
 * manifest, the header's name; each promotion an fma per accumulator
 * with no plain add left, the scales loaded by ld.global.nc. */
static void test_block_scale(void)
{
	static const struct { unsigned tile_m, tile_n, split; mmagen_type out; unsigned fmas; } vs[] = {
		{ 0, 0, 0, MMAGEN_BF16, 96 }, { 64, 128, 0, MMAGEN_F32, 3 * 64 },
		{ 0, 64, 3, MMAGEN_E4M3, 32 }, { 16, 48, MMAGEN_GEMM_SPLIT_AUTO, MMAGEN_F16, 3 * 24 },
	};
	for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
		mmagen_gemm_request r = req(MMAGEN_E4M3, MMAGEN_E5M2, vs[v].out);
		mmagen_gemm_info g = { .size = sizeof g };
		char *ptx = NULL, *abi = NULL, *js = NULL, *hdr = NULL;
		r.quant = MMAGEN_QF_FP8_BLOCK;
		r.tile_m = vs[v].tile_m;
		r.tile_n = vs[v].tile_n;
		r.split_k = vs[v].split;
		int ok = mmagen_gemm_info_of(&r, &g) == MMAGEN_OK &&
			 !mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) &&
			 !mmagen_gemm_emit(&r, MMAGEN_FMT_ABI, &abi, NULL) &&
			 !mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &js, NULL) &&
			 !mmagen_gemm_emit(&r, MMAGEN_FMT_CUDA, &hdr, NULL);
		CHECK(ok, "fp8-block %zu: %s", v, mmagen_last_error());
		if (!ok)
			goto next;
		CHECK(g.stype == MMAGEN_F32 && g.scale_block == 128 && g.fp8_promote == 128,
		      "fp8-block %zu: info scales %s per %u, promote %u", v,
		      mmagen_type_name(g.stype), g.scale_block, g.fp8_promote);
		const char *after = vs[v].out == MMAGEN_E4M3 ? "\t.param .f32 pd_scale,\n"
							    : "\t.param .u32 pd_tma,\n";
		char want[400];
		snprintf(want, sizeof want, "%s\t.param .u64 psa,\n\t.param .u64 psb,\n"
			 "\t.param .u32 psa_sm,\n\t.param .u32 psa_sk,\n\t.param .u32 psb_sn,\n"
			 "\t.param .u32 psb_sk%s", after, vs[v].split ? ",\n\t.param .u64 pworkspace" : ")");
		CHECK(strstr(ptx, want) != NULL, "fp8-block %zu: the .entry's scale parameters", v);
		CHECK(strstr(abi, "\nscales f32 a 1x128 b 128x128\n") &&
		      strstr(abi, "param d_tma u32\n") &&
		      strstr(abi, "param sa u64\nparam sb u64\nparam sa_sm u32\nparam sa_sk u32\n"
				  "param sb_sn u32\nparam sb_sk u32\n"),
		      "fp8-block %zu: the ABI's scales and params", v);
		CHECK(strstr(js, "\"quant\": \"fp8-block\"") && strstr(js, "\"a\": [1, 128], \"b\": [128, 128]") &&
		      strstr(js, "{\"name\": \"sb_sk\", \"kind\": \"u32\""),
		      "fp8-block %zu: the manifest", v);
		CHECK(strstr(hdr, "_FP8BLOCK_H") && strstr(hdr, "(NB - 1) * sb_sn"),
		      "fp8-block %zu: the header's name and rules", v);
		/* the K loop's promotions, an fma per accumulator (K blocks in
		 * pairs: three, the pair's two and the single block's) */
		CHECK(count_in_loop(ptx, "\tfma.rn.f32 ") == vs[v].fmas &&
		      !count_in_loop(ptx, "\tadd.f32 ") && count_in_loop(ptx, "ld.global.nc.f32 "),
		      "fp8-block %zu: %u fma (want %u), %u add.f32, %u scale loads in the K loop", v,
		      count_in_loop(ptx, "\tfma.rn.f32 "), vs[v].fmas, count_in_loop(ptx, "\tadd.f32 "),
		      count_in_loop(ptx, "ld.global.nc.f32 "));
	next:
		free(ptx);
		free(abi);
		free(js);
		free(hdr);
	}
	/* the unscaled FP8 kernel has none of it */
	mmagen_gemm_request r = req(MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16);
	char *ptx = NULL, *abi = NULL;
	CHECK(!mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) &&
	      !mmagen_gemm_emit(&r, MMAGEN_FMT_ABI, &abi, NULL) && !strstr(ptx, "psa") &&
	      !count_in_loop(ptx, "fma.rn.f32 ") && count_in_loop(ptx, "\tadd.f32 ") == 96 &&
	      !strstr(abi, "scales"), "FP8 without --quant: no scales");
	free(ptx);
	free(abi);
}

int main(void)
{
	test_plans();
	test_block_scale();
	test_layouts();
	test_mn_stage();
	test_acc_and_fp8();
	test_unstaged();
	test_stage_fallback();
	test_refusals();
	test_schedule();
	test_pingpong();
	return check_summary();
}
