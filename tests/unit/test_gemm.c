/* test_gemm.c - the GEMM generator's plan on the CPU: tiles, stages and
 * shared memory per type, the tensor-map boxes the manifest asks for,
 * every refusal with its rule, and the grouped tile order (a C copy of
 * mmagen_tile_origin in templates/gemm_sm90.ptx.in) visiting every tile
 * exactly once. */
#include "mmagen.h"
#include "check.h"

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
		unsigned bytes, tile_n;
	} cases[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 2, 256 },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, 2, 256 },
		{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 4, 256 },
		{ MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_BF16, 1, 128 },
		{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 1, 256 },
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
		      g.box_b[1] == g.tile_n, "plan %zu: boxes", i);
		/* D's staging for TMA stores: two warpgroups x two buffers of
		 * 64 rows x 128 bytes, boxes of one 128-byte row of D */
		unsigned out_bytes = mmagen_type_bits(cases[i].out) / 8, staging = 4 * 64 * 128;
		CHECK(g.box_d[0] * out_bytes == 128 && g.box_d[1] == 64, "plan %zu: box_d %ux%u", i,
		      g.box_d[0], g.box_d[1]);
		/* stages fill shared memory: one more would not fit in 227 KB */
		unsigned stage = (g.tile_m + g.tile_n) * 128;
		CHECK(g.smem == g.stages * (stage + 16) + staging && g.smem <= 227 * 1024,
		      "plan %zu: smem %u", i, g.smem);
		CHECK(g.stages == 6 || (g.stages + 1) * (stage + 16) + staging > 227 * 1024 - 64,
		      "plan %zu: %u stages leave room", i, g.stages);
		CHECK(g.block[0] == 384 && g.cluster[0] == 1, "plan %zu: block/cluster", i);
		CHECK(g.elem_bytes_a == cases[i].bytes, "plan %zu: elem bytes", i);
		r.cluster = 2;
		CHECK(mmagen_gemm_info_of(&r, &g) == MMAGEN_OK && g.cluster[0] == 2 &&
		      g.box_b[1] == g.tile_n / 2, "plan %zu: a cluster's CTAs load half of B each", i);
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
	} bad[24];
	int n = 0;
	bad[n].r = req(MMAGEN_BF16, MMAGEN_F16, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "bf16/bf16";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_S8, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "e4m3/e5m2";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_BF16); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "s32 or f32";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_S32); bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "bf16, f16 or f32";
	bad[n].r = req(MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32); bad[n].r.layout = MMAGEN_GEMM_NN; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "K-major";
	bad[n].r = req(MMAGEN_F16, MMAGEN_F16, MMAGEN_F16); bad[n].r.acc = MMAGEN_F16; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "f16 accumulation";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.tile_m = 64; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "M = 128";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.tile_n = 250; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "multiple of 16";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.cluster = 3; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 or 2";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 5; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "stages";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16); bad[n].r.tile_n = 256; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "at most 192";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); mmagen_target_parse("sm_100a", &bad[n].r.target); bad[n].s = MMAGEN_TARGET; bad[n++].word = "sm_90a";
	bad[n].r = req(MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_F32); mmagen_target_parse("sm_86", &bad[n].r.target); bad[n].s = MMAGEN_TARGET; bad[n++].word = "sm_89";
	bad[n].r = req(MMAGEN_S8, MMAGEN_S8, MMAGEN_S32); bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].r.layout = MMAGEN_GEMM_NN; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "ldmatrix .trans";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.path = MMAGEN_GEMM_PATH_MMA_SYNC; bad[n].r.split_k = 2; bad[n].s = MMAGEN_UNSUPPORTED; bad[n++].word = "red.global.add";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32); bad[n].r.split_k = 257; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 to 256 K slices";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.stages = 1u << 28; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "2 to 32 stages";
	bad[n].r = req(MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16); bad[n].r.group = 70000; bad[n].s = MMAGEN_INVALID_ARGUMENT; bad[n++].word = "1 to 65535";
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

/* The grouped order of templates/gemm_sm90.ptx.in (mmagen_tile_origin). */
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

int main(void)
{
	test_plans();
	test_unstaged();
	test_refusals();
	test_schedule();
	return check_summary();
}
