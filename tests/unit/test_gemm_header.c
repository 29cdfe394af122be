/* test_gemm_header.c - `mmagen gemm --format c` compiled for real: the three
 * headers tests/meson.build generates (an sm_90a wgmma kernel with a
 * 2-CTA cluster, an sm_80 mma.sync kernel with split-K, an sm_90a split-K
 * kernel with its split grid and buffer sizes) are included
 * here, and every constant is checked against mmagen_gemm_info_of for the
 * same request, the grid function against the rule written out below,
 * the parameters against the JSON manifest's, and the embedded PTX
 * against mmagen_gemm_emit's byte for byte. */
#include "mmagen.h"
#include "check.h"

#include "gemm_hdr_sm90.h"
#include "gemm_hdr_sm80.h"
#include "gemm_hdr_sm90_split.h"

#include <stdlib.h>
#include <string.h>

#define H90(x) MMAGEN_GEMM_SM90A_BF16_BF16_F32_BF16_TN_128X64_S4_C2_G16_##x
#define h90(x) mmagen_gemm_sm90a_bf16_bf16_f32_bf16_tn_128x64_s4_c2_g16_##x
#define H80(x) MMAGEN_GEMM_SM80_BF16_BF16_F32_F32_NT_64X64_S3_MMASYNC_SPLIT2_##x
#define HS(x) MMAGEN_GEMM_SM90A_BF16_BF16_F32_F32_TN_128X128_S4_C2_G8_SPLIT3_##x
#define hs(x) mmagen_gemm_sm90a_bf16_bf16_f32_f32_tn_128x128_s4_c2_g8_split3_##x
#define h80(x) mmagen_gemm_sm80_bf16_bf16_f32_f32_nt_64x64_s3_mmasync_split2_##x

/* The requests of tests/meson.build's gemm_hdr_* targets. */
static mmagen_gemm_request req90(void)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = r.b = r.out = MMAGEN_BF16;
	r.tile_n = 64;
	r.cluster = 2;
	r.stages = 4;
	r.group = 16;
	return r;
}

static mmagen_gemm_request req80(void)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_80", &r.target);
	r.a = r.b = MMAGEN_BF16;
	r.out = MMAGEN_F32;
	r.layout = MMAGEN_GEMM_NT;
	r.tile_m = r.tile_n = 64;
	r.stages = 3;
	r.split_k = 2;
	return r;
}

static unsigned long long cdiv(unsigned long long a, unsigned long long b)
{
	return (a + b - 1) / b;
}

/* "name": the names of the manifest's "params", in order, from the JSON
 * text (each {"name": "X", ...} of the params array). */
static unsigned json_params(const char *json, char names[][32], unsigned max)
{
	const char *p = strstr(json, "\"params\": [");
	const char *end = p ? strstr(p, "\n  ],") : NULL;
	unsigned n = 0;
	for (p = p ? strstr(p, "{\"name\": \"") : NULL; p && p < end && n < max;
	     p = strstr(p + 1, "{\"name\": \"")) {
		const char *s = p + strlen("{\"name\": \""), *q = strchr(s, '"');
		snprintf(names[n++], 32, "%.*s", (int)(q - s), s);
	}
	return n;
}

/* A header's parameter, copied out of its own struct type. */
struct gp {
	const char *name, *kind;
	unsigned bytes;
};
#define COPY_PARAMS(dst, src, n) \
	for (unsigned i_ = 0; i_ < (n) && i_ < 32; i_++) \
		(dst)[i_] = (struct gp){ (src)[i_].name, (src)[i_].kind, (src)[i_].bytes }

static void check_common(const char *what, const mmagen_gemm_request *r, const char *ptx,
			 const struct gp *params, unsigned nparams,
			 const char *const *rules, size_t nrules)
{
	char *want = NULL, *json = NULL, names[32][32];
	CHECK(mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &want, NULL) == MMAGEN_OK, "%s: emit", what);
	CHECK(mmagen_gemm_emit(r, MMAGEN_FMT_JSON, &json, NULL) == MMAGEN_OK, "%s: json", what);
	if (!want || !json)
		goto out;
	CHECK(!strcmp(ptx, want), "%s: the header's PTX is the kernel's, byte for byte", what);
	unsigned n = json_params(json, names, 32);
	CHECK(n == nparams && n >= 13, "%s: %u parameters in the header, %u in the manifest", what,
	      nparams, n);
	for (unsigned i = 0; i < n && i < nparams; i++) {
		CHECK(!strcmp(names[i], params[i].name), "%s: parameter %u is %s (manifest: %s)", what,
		      i, params[i].name, names[i]);
		/* the manifest's kind of the parameter */
		char key[96];
		snprintf(key, sizeof key, "{\"name\": \"%s\", \"kind\": \"%s\"", params[i].name,
			 params[i].kind);
		CHECK(strstr(json, key) != NULL, "%s: parameter %s of kind %s", what, params[i].name,
		      params[i].kind);
		unsigned bytes = !strcmp(params[i].kind, "tensor_map") ? 128
				 : !strcmp(params[i].kind, "u64") ? 8 : 4;
		CHECK(params[i].bytes == bytes, "%s: %s is %u bytes", what, params[i].name,
		      params[i].bytes);
	}
	for (size_t i = 0; i < nrules; i++)
		CHECK(strstr(json, rules[i]) != NULL,
		      "%s: rule \"%s\" is the manifest's", what, rules[i]);
out:
	mmagen_free(want);
	mmagen_free(json);
}

static void test_sm90(void)
{
	mmagen_gemm_request r = req90();
	mmagen_gemm_info i = { .size = sizeof i };
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK, "sm90: %s", mmagen_last_error());
	CHECK(!strcmp(H90(KERNEL), i.kernel) && !strcmp(H90(TARGET), "sm_90a") &&
	      !strcmp(H90(PATH), "wgmma") && !strcmp(H90(LAYOUT), "tn") &&
	      !strcmp(H90(A_TYPE), "bf16") && !strcmp(H90(ACC_TYPE), "f32") &&
	      !strcmp(H90(OUT_TYPE), "bf16"), "sm90: names");
	CHECK(H90(BLOCK_X) == i.block[0] && H90(BLOCK_Y) == i.block[1] && H90(BLOCK_Z) == i.block[2],
	      "sm90: block");
	CHECK(H90(CLUSTER_X) == i.cluster[0] && H90(CLUSTER_X) == 2 && H90(CLUSTER_Y) == i.cluster[1] &&
	      H90(CLUSTER_Z) == i.cluster[2], "sm90: cluster");
	CHECK(H90(SMEM) == i.smem && H90(TILE_M) == i.tile_m && H90(TILE_N) == i.tile_n &&
	      H90(TILE_N) == 64 && H90(TILE_K) == i.tile_k && H90(STAGES) == i.stages &&
	      H90(STAGES) == 4 && H90(SPLIT_K) == 1, "sm90: smem, tile, stages");
	CHECK(H90(SWIZZLE) == i.swizzle && H90(A_ELEM_BYTES) == i.elem_bytes_a &&
	      H90(B_ELEM_BYTES) == i.elem_bytes_b && H90(D_ELEM_BYTES) == i.elem_bytes_d &&
	      H90(A_ELEM_BITS) == 16 && H90(B_ELEM_BITS) == 16, "sm90: element sizes, swizzle");
	CHECK(H90(A_BOX0) == i.box_a[0] && H90(A_BOX1) == i.box_a[1] && H90(B_BOX0) == i.box_b[0] &&
	      H90(B_BOX1) == i.box_b[1] && H90(D_BOX0) == i.box_d[0] && H90(D_BOX1) == i.box_d[1],
	      "sm90: tensor-map boxes");
	/* the grid rule, written out: clusters of 2 CTAs over pairs of tile
	 * rows, at most one CTA per SM */
	static const unsigned sms[] = { 0, 1, 2, 3, 132, 133 };
	static const unsigned dims[] = { 1, 63, 64, 65, 127, 128, 129, 256, 1000, 4096, 14336 };
	for (size_t s = 0; s < sizeof sms / sizeof *sms; s++)
		for (size_t a = 0; a < sizeof dims / sizeof *dims; a++)
			for (size_t b = 0; b < sizeof dims / sizeof *dims; b++) {
				unsigned m = dims[a], n = dims[b], g[3] = { 7, 7, 7 };
				unsigned long long units = cdiv(cdiv(m, 128), 2) * cdiv(n, 64);
				unsigned long long most = sms[s] ? (sms[s] / 2 ? sms[s] / 2 : 1) : units;
				h90(grid)(m, n, sms[s], g);
				CHECK(g[0] == 2 * (units < most ? units : most) && g[1] == 1 && g[2] == 1,
				      "sm90 grid M %u N %u sms %u: %u", m, n, sms[s], g[0]);
			}
	CHECK(H90(NUM_PARAMS) == sizeof h90(params) / sizeof h90(params)[0], "sm90: NUM_PARAMS");
	CHECK(!strcmp(h90(params)[0].name, "tensor_a") && !strcmp(h90(params)[0].kind, "tensor_map"),
	      "sm90: tensor_a first");
	struct gp gp[32];
	COPY_PARAMS(gp, h90(params), H90(NUM_PARAMS));
	check_common("sm90", &r, h90(ptx), gp, H90(NUM_PARAMS), h90(rules),
		     sizeof h90(rules) / sizeof *h90(rules));
}

static void test_sm80(void)
{
	mmagen_gemm_request r = req80();
	mmagen_gemm_info i = { .size = sizeof i };
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK, "sm80: %s", mmagen_last_error());
	CHECK(!strcmp(H80(PATH), "mma.sync") && !strcmp(H80(LAYOUT), "nt") &&
	      !strcmp(H80(TARGET), "sm_80"), "sm80: names");
	CHECK(H80(BLOCK_X) == i.block[0] && H80(CLUSTER_X) == 1 && H80(SMEM) == i.smem &&
	      H80(TILE_M) == 64 && H80(TILE_N) == 64 && H80(TILE_K) == i.tile_k &&
	      H80(STAGES) == 3 && H80(SPLIT_K) == 2 && H80(D_ELEM_BYTES) == 4,
	      "sm80: block, smem, tile, split");
	static const unsigned dims[] = { 1, 63, 64, 65, 4096, 14336 };
	for (size_t a = 0; a < sizeof dims / sizeof *dims; a++)
		for (size_t b = 0; b < sizeof dims / sizeof *dims; b++) {
			unsigned g[3] = { 0, 0, 0 };
			h80(grid)(dims[a], dims[b], 132, g);
			CHECK(g[0] == cdiv(dims[a], 64) * cdiv(dims[b], 64) && g[1] == 1 && g[2] == 2,
			      "sm80 grid M %u N %u: %u x %u x %u", dims[a], dims[b], g[0], g[1], g[2]);
			/* split-K's buffers: the library's sizes */
			unsigned long long ws = 0, ctr = 0;
			uint64_t lws = 1, lctr = 1;
			CHECK(h80(split_buffers)(dims[a], dims[b], &ws, &ctr) == 0, "sm80 split buffers: -1");
			CHECK(mmagen_gemm_split_buffers(&i, dims[a], dims[b], 2, &lws, &lctr) == MMAGEN_OK &&
			      ws == lws && ctr == lctr && ws == (unsigned long long)g[0] * 2 * 64 * 64 * 4,
			      "sm80 split buffers M %u N %u: %llu/%llu, library %llu/%llu", dims[a],
			      dims[b], ws, ctr, (unsigned long long)lws, (unsigned long long)lctr);
		}
	/* the slots are numbered in 32 bits: 2^32 - 2^17 of them (64 x 64
	 * tiles, 2 slices) fit, 2^32 do not, in the header as in the library */
	static const unsigned big[][3] = { { 1u << 22, (1u << 21) - 64, 0 },
					   { 1u << 22, 1u << 21, 1 }, { 4000000000u, 4000000000u, 1 } };
	for (size_t q = 0; q < 3; q++) {
		unsigned long long ws = 7, ctr = 7;
		uint64_t lws = 7, lctr = 7;
		int hr = h80(split_buffers)(big[q][0], big[q][1], &ws, &ctr);
		mmagen_status ls = mmagen_gemm_split_buffers(&i, big[q][0], big[q][1], 2, &lws, &lctr);
		unsigned long long tiles = cdiv(big[q][0], 64) * cdiv(big[q][1], 64);
		CHECK(big[q][2] ? hr == -1 && ws == 0 && ctr == 0 && ls == MMAGEN_INVALID_ARGUMENT
				: hr == 0 && ws == tiles * 2 * 64 * 64 * 4 && ctr == tiles * 4 &&
				  ls == MMAGEN_OK && lws == ws && lctr == ctr,
		      "sm80 split buffers M %u N %u: header %d %llu/%llu, library %d", big[q][0],
		      big[q][1], hr, ws, ctr, (int)ls);
	}
	CHECK(!strcmp(h80(params)[0].name, "a") && !strcmp(h80(params)[0].kind, "u64"),
	      "sm80: a first");
	struct gp gp[32];
	COPY_PARAMS(gp, h80(params), H80(NUM_PARAMS));
	check_common("sm80", &r, h80(ptx), gp, H80(NUM_PARAMS), h80(rules), sizeof h80(rules) / sizeof *h80(rules));
}

/* The split-K header (sm_90a, tile 128 x 128, cluster 2, S 3): the split
 * grid and the buffer sizes against the rules written out here and
 * against mmagen_gemm_split_buffers; its parameters end with workspace,
 * counters, splits. */
static void test_sm90_split(void)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = r.b = MMAGEN_BF16;
	r.out = MMAGEN_F32;
	r.tile_n = 128;
	r.cluster = 2;
	r.stages = 4;
	r.split_k = 3;
	mmagen_gemm_info i = { .size = sizeof i };
	CHECK(mmagen_gemm_info_of(&r, &i) == MMAGEN_OK, "split: %s", mmagen_last_error());
	CHECK(HS(SPLIT_K) == 3 && HS(SPLIT_K) == i.split_k && HS(TILE_N) == 128 && HS(CLUSTER_X) == 2,
	      "split: constants");
	static const unsigned sms[] = { 0, 1, 2, 132 };
	static const unsigned dims[] = { 1, 127, 128, 129, 1000, 4096 };
	static const unsigned ks[] = { 1, 64, 65, 192, 4096 };
	static const unsigned ss[] = { 0, 1, 3, 5, 300 };
	for (size_t a = 0; a < 6; a++)
		for (size_t b = 0; b < 6; b++)
			for (size_t c = 0; c < 5; c++)
				for (size_t e = 0; e < 5; e++) {
					unsigned m = dims[a], n = dims[b], k = ks[c], S = ss[e];
					unsigned long long kb = cdiv(k, 64), sl = S < 1 ? 1 : S < kb ? S : kb;
					unsigned long long units = cdiv(cdiv(m, 128), 2) * cdiv(n, 128) * sl;
					for (size_t q = 0; q < 4; q++) {
						unsigned g[3] = { 7, 7, 7 };
						unsigned long long most = sms[q] ? (sms[q] / 2 ? sms[q] / 2 : 1) : units;
						hs(split_grid)(m, n, k, sms[q], S, g);
						CHECK(g[0] == 2 * (units < most ? units : most) && g[1] == 1 &&
						      g[2] == 1, "split grid M %u N %u K %u S %u sms %u: %u", m, n,
						      k, S, sms[q], g[0]);
					}
					if (!S || S > 256)
						continue;
					unsigned long long ws = 0, ctr = 0;
					uint64_t lw = 0, lc = 0;
					hs(split_buffers)(m, n, S, &ws, &ctr);
					unsigned long long tiles = cdiv(cdiv(m, 128), 2) * 2 * cdiv(n, 128);
					CHECK(mmagen_gemm_split_buffers(&i, m, n, S, &lw, &lc) == MMAGEN_OK &&
					      ws == lw && ctr == lc && ws == tiles * S * 128 * 128 * 4 &&
					      ctr == tiles * 8, "split buffers M %u N %u S %u: %llu %llu", m, n,
					      S, ws, ctr);
					/* on a grid: the tail past whole waves of clusters only */
					for (size_t q = 1; q < 4; q++) {
						unsigned g[3];
						hs(split_grid)(m, n, k, sms[q], S, g);
						unsigned long long t = tiles / 2, gc = g[0] / 2;
						unsigned long long tail = (t - t / gc * gc) * 2;
						hs(split_buffers_grid)(m, n, S, g[0], &ws, &ctr);
						CHECK(mmagen_gemm_split_buffers_grid(&i, m, n, S, g[0], &lw, &lc) == MMAGEN_OK &&
						      ws == lw && ctr == lc && ws == tail * S * 128 * 128 * 4 &&
						      ctr == tail * 8 &&
						      /* one wave of units: every tile split (S > 1) */
						      (units > gc || sl == 1 || tail == tiles),
						      "split buffers M %u N %u S %u grid %u: %llu %llu", m, n, S,
						      g[0], ws, ctr);
					}
				}
	/* a grid that is not a whole number of clusters is refused */
	uint64_t lw = 0, lc = 0;
	CHECK(mmagen_gemm_split_buffers_grid(&i, 1000, 1000, 3, 3, &lw, &lc) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "multiple of the cluster"), "split buffers: odd grid");
	CHECK(mmagen_gemm_split_buffers_grid(&i, 1000, 1000, 3, 0, &lw, &lc) == MMAGEN_INVALID_ARGUMENT,
	      "split buffers: grid 0");
	CHECK(!strcmp(hs(params)[HS(NUM_PARAMS) - 3].name, "workspace") &&
	      !strcmp(hs(params)[HS(NUM_PARAMS) - 1].name, "splits"), "split: last parameters");
	struct gp gp[32];
	COPY_PARAMS(gp, hs(params), HS(NUM_PARAMS));
	check_common("sm90 split", &r, hs(ptx), gp, HS(NUM_PARAMS), hs(rules),
		     sizeof hs(rules) / sizeof *hs(rules));
}

int main(void)
{
	test_sm90();
	test_sm80();
	test_sm90_split();
	return check_summary();
}
