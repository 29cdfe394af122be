/* check_gemm.c - every GEMM variant the generator offers assembles with
 * ptxas for its target: each input pair and output type, tile N 64..256,
 * both cluster sizes; the sm_90a layouts, f16 accumulation, FP8 D and
 * FP8 block scaling.  A variant the generator refuses must be refused
 * with a message; none may fail in between.
 * Usage: check_gemm PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { mmagen_type a, b, out; } combos[] = {
	{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16 }, { MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F32 },
	{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16 }, { MMAGEN_F16, MMAGEN_F16, MMAGEN_F32 },
	{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32 }, { MMAGEN_TF32, MMAGEN_TF32, MMAGEN_BF16 },
	{ MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16 }, { MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16 },
	{ MMAGEN_E5M2, MMAGEN_E4M3, MMAGEN_F32 }, { MMAGEN_E5M2, MMAGEN_E5M2, MMAGEN_BF16 },
	{ MMAGEN_S8, MMAGEN_S8, MMAGEN_S32 }, { MMAGEN_U8, MMAGEN_S8, MMAGEN_F32 },
	{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32 }, { MMAGEN_U8, MMAGEN_U8, MMAGEN_S32 },
};

static int assemble_for(const char *ptxas, const char *dir, const mmagen_gemm_request *r,
			const char *what, const char *arch, int no_spill);

static int assemble(const char *ptxas, const char *dir, const mmagen_gemm_request *r,
		    const char *what)
{
	return assemble_for(ptxas, dir, r, what, "sm_90a", 0);
}

/* A wgmma-path request (sm_90a) for A, B and D; the rest the defaults. */
static void sm90_request(mmagen_gemm_request *r, mmagen_type a, mmagen_type b, mmagen_type out)
{
	mmagen_gemm_request_init(r);
	mmagen_target_parse("sm_90a", &r->target);
	r->a = a;
	r->b = b;
	r->out = out;
}

/* The mma.sync path: every type mix, layout and accumulator it offers, on
 * sm_80, sm_86, sm_89 and (--path mma.sync) sm_90; tiles and split-K on
 * one type. */
static const struct { mmagen_type a, b, acc, out; unsigned layouts; } sm80_combos[] = {
	{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, 15 }, { MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32, 15 },
	{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16, 15 }, { MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, 15 },
	{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F32, 1 }, { MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_F32, 1 },
	{ MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_BF16, 1 }, { MMAGEN_S8, MMAGEN_U8, 0, MMAGEN_S32, 1 },
	{ MMAGEN_U8, MMAGEN_U8, 0, MMAGEN_F32, 1 }, { MMAGEN_S4, MMAGEN_U4, 0, MMAGEN_S32, 1 },
	{ MMAGEN_U4, MMAGEN_U4, 0, MMAGEN_F32, 1 }, { MMAGEN_E4M3, MMAGEN_E5M2, 0, MMAGEN_BF16, 1 },
	{ MMAGEN_E5M2, MMAGEN_E5M2, MMAGEN_F16, MMAGEN_F16, 1 }, { MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, 1 },
};

/* The mma.sync request for row c of sm80_combos, layout l, on arch. */
static void sm80_request(mmagen_gemm_request *r, const char *arch, size_t c, unsigned l)
{
	mmagen_gemm_request_init(r);
	mmagen_target_parse(arch, &r->target);
	r->path = MMAGEN_GEMM_PATH_MMA_SYNC;
	r->a = sm80_combos[c].a;
	r->b = sm80_combos[c].b;
	r->acc = sm80_combos[c].acc;
	r->out = sm80_combos[c].out;
	r->layout = l;
}

static void check_sm80(const char *ptxas, const char *dir)
{
	static const char *const archs[] = { "sm_80", "sm_86", "sm_89", "sm_90" };
	static const unsigned tiles[][4] = { { 0, 0, 1, 0 }, { 128, 128, 1, 0 }, { 64, 64, 1, 0 },
					     { 256, 128, 1, 0 }, { 0, 0, 4, 0 },
					     /* split-K through a workspace */
					     { 0, 0, 4, 1 }, { 64, 64, 2, 1 } };
	char what[200];
	for (size_t t = 0; t < 4; t++)
		for (size_t c = 0; c < sizeof sm80_combos / sizeof sm80_combos[0]; c++)
			for (unsigned l = 0; l < 4; l++) {
				mmagen_gemm_request r;
				if (!(sm80_combos[c].layouts >> l & 1))
					continue;
				sm80_request(&r, archs[t], c, l);
				snprintf(what, sizeof what, "mma.sync gemm %s: %s x %s -> %s, layout %u",
					 archs[t], mmagen_type_name(r.a), mmagen_type_name(r.b),
					 mmagen_type_name(r.out), l);
				int fp8 = r.a == MMAGEN_E4M3 || r.a == MMAGEN_E5M2;
				if (fp8 && t < 2) {   /* e4m3/e5m2 mma.sync: sm_89 on */
					mmagen_gemm_info info = { .size = sizeof info };
					CHECK(mmagen_gemm_info_of(&r, &info) == MMAGEN_TARGET &&
					      strstr(mmagen_last_error(), "sm_89"),
					      "%s: refused with the rule", what);
					continue;
				}
				CHECK(!assemble_for(ptxas, dir, &r, what, archs[t], l == MMAGEN_GEMM_TN), "%s", what);
			}
	/* both stage rows (tile K of 64- and 128-byte rows) for every type
	 * and layout on every target, on the default tile and the one-warp
	 * tile (its copy passes are shorter than the swizzle's period) */
	for (size_t t = 0; t < 4; t++)
		for (size_t c = 0; c < sizeof sm80_combos / sizeof sm80_combos[0]; c++)
			for (unsigned l = 0; l < 4; l++)
				for (unsigned rb = 64; rb <= 128; rb *= 2)
					for (unsigned tm = 0; tm <= 64; tm += 64) {
						mmagen_gemm_request r;
						int fp8 = sm80_combos[c].a == MMAGEN_E4M3 ||
							  sm80_combos[c].a == MMAGEN_E5M2;
						if (!(sm80_combos[c].layouts >> l & 1) || (fp8 && t < 2))
							continue;
						sm80_request(&r, archs[t], c, l);
						r.tile_m = r.tile_n = tm;
						r.tile_k = rb * 8 / mmagen_type_bits(r.a);
						mmagen_gemm_info info = { .size = sizeof info };
						snprintf(what, sizeof what, "mma.sync gemm %s: %s x %s -> %s, layout %u, tile %ux%ux%u",
							 archs[t], mmagen_type_name(r.a), mmagen_type_name(r.b),
							 mmagen_type_name(r.out), l, tm, tm, r.tile_k);
						/* 128-byte rows of the 8-warp tile: 2 stages on
						 * 99 KB, which the plan takes (asked for) */
						if (mmagen_gemm_info_of(&r, &info)) {
							CHECK(0, "%s: refused: %s", what, mmagen_last_error());
							continue;
						}
						CHECK(info.tile_k == r.tile_k, "%s: tile K %u", what, info.tile_k);
						CHECK(!assemble_for(ptxas, dir, &r, what, archs[t],
								    l == MMAGEN_GEMM_TN), "%s", what);
					}
	for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
		mmagen_gemm_request r;
		mmagen_gemm_request_init(&r);
		mmagen_target_parse("sm_80", &r.target);
		r.a = r.b = MMAGEN_BF16;
		r.out = tiles[t][3] ? MMAGEN_BF16 : MMAGEN_F32;
		r.tile_m = tiles[t][0];
		r.tile_n = tiles[t][1];
		r.split_k = tiles[t][2];
		snprintf(what, sizeof what, "mma.sync gemm sm_80 bf16 -> %s, tile %ux%u, split-k %u",
			 mmagen_type_name(r.out), tiles[t][0], tiles[t][1], tiles[t][2]);
		CHECK(!assemble_for(ptxas, dir, &r, what, "sm_80", 1), "%s", what);
	}
}

/* r assembles for arch with neither warning below; with no_spill, also
 * without local-memory spills (the mma.sync path's K-major kernels: their
 * copies share one pointer per operand so that 8 warps of 64 x 64 fit the
 * register file), except where ptxas emulates the instruction (FP8 and
 * 4-bit mma.sync on sm_90: correctness only, and the emulation's own
 * registers spill) */
static int assemble_for(const char *ptxas, const char *dir, const mmagen_gemm_request *r,
			const char *what, const char *arch, int no_spill)
{
	char path[600], cmd[1600];
	char *text;
	size_t len;

	if (mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &text, &len)) {
		printf("FAIL: %s: %s\n", what, mmagen_last_error());
		return 1;
	}
	snprintf(path, sizeof path, "%s/gemm_%ld.ptx", dir, (long)getpid());
	FILE *fp = fopen(path, "w");
	int bad = !fp || fwrite(text, 1, len, fp) != len;
	if (fp)
		fclose(fp);
	mmagen_free(text);
	if (bad)
		return printf("FAIL: cannot write %s\n", path), 1;
	snprintf(cmd, sizeof cmd, "'%s' -v -arch=%s '%s' -o /dev/null >'%s.log' 2>&1",
		 ptxas, arch, path, path);
	if (system(cmd)) {
		printf("FAIL: %s does not assemble (see %s.log)\n", what, path);
		return 1;
	}
	unlink(path);
	strncat(path, ".log", sizeof path - strlen(path) - 1);
	/* ptxas says C7508 when it ignores setmaxnreg (no register count at
	 * entry): the consumers would then run without their registers */
	/* and a C75xx line about wgmma when it serializes them (C7518 and its
	 * kin: waits for each one before the next, a fraction of the tensor
	 * cores' speed) or injects a wait of its own (C7517, an info line:
	 * where it cannot tell whether wgmma are in flight, it waits for
	 * them, and whatever they were to overlap no longer does) */
	char line[512], serial_line[512] = "";
	int ignored = 0, serial = 0;
	unsigned long spill = 0;
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof line, fp)) {
			const char *sp = strstr(line, " bytes spill stores");
			ignored |= strstr(line, "C7508") != NULL;
			if (!serial && strstr(line, "(C75") &&
			    (strstr(line, "wgmma") || strstr(line, "warpgroup") ||
			     strstr(line, "GMMA"))) {
				serial = 1;
				snprintf(serial_line, sizeof serial_line, "%s", line);
				serial_line[strcspn(serial_line, "\n")] = 0;
			}
			if (sp) {     /* "..., N bytes spill stores, ..." */
				while (sp > line && sp[-1] >= '0' && sp[-1] <= '9')
					sp--;
				spill += strtoul(sp, NULL, 10);
			}
		}
		fclose(fp);
	}
	unlink(path);
	if (ignored) {
		printf("FAIL: %s: ptxas ignored setmaxnreg (C7508)\n", what);
		return 1;
	}
	if (serial) {
		printf("FAIL: %s: ptxas warned about the wgmma: %s\n", what, serial_line);
		return 1;
	}
	/* (mma.sync on sm_90 or sm_90a; sm_90a's wgmma runs FP8 natively) */
	int emulated = !strncmp(arch, "sm_90", 5) &&
		       (r->path == MMAGEN_GEMM_PATH_MMA_SYNC || strcmp(arch, "sm_90a")) &&
		       (mmagen_type_bits(r->a) == 4 || r->a == MMAGEN_E4M3 || r->a == MMAGEN_E5M2);
	if (no_spill && !emulated && spill) {
		printf("FAIL: %s: %lu bytes of spill stores\n", what, spill);
		return 1;
	}
	return 0;
}

/* r assembles for sm_90a, or, with a refusal, the generator refuses it
 * with a message holding that text. */
static void assemble_or_refused(const char *ptxas, const char *dir, const mmagen_gemm_request *r,
				const char *what, const char *refusal)
{
	if (refusal) {
		mmagen_gemm_info info = { .size = sizeof info };
		CHECK(mmagen_gemm_info_of(r, &info) != MMAGEN_OK &&
		      strstr(mmagen_last_error(), refusal),
		      "%s: refused with '%s' (got '%s')", what, refusal, mmagen_last_error());
		return;
	}
	CHECK(!assemble(ptxas, dir, r, what), "%s", what);
}

/* The sm_90a variants beyond tn: layouts nn/nt/tt (MN-major A and/or B)
 * with tiles that take 1 to 4 boxes of B per stage and both cluster
 * sizes; f16 accumulation; e4m3/e5m2 D from every input class, staged
 * (tile N a multiple of 128) and direct (tile N 64).  Refusals must
 * carry their rule. */
static void check_sm90_more(const char *ptxas, const char *dir)
{
	struct v { mmagen_type a, b, acc, out; unsigned layout, tile_n, cluster; const char *refusal; };
	static const struct v vs[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_NN, 0, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_NN, 128, 2, NULL },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_NN, 0, 2, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_NT, 0, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_NT, 0, 2, "takes --cluster 1" },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32, MMAGEN_GEMM_NT, 192, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_TT, 128, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_TT, 128, 2, "takes --cluster 1" },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F32, MMAGEN_GEMM_NN, 64, 1, NULL },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F32, MMAGEN_GEMM_NT, 64, 1, NULL },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16, MMAGEN_GEMM_TT, 0, 2, "takes --cluster 1" },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16, MMAGEN_GEMM_TT, 64, 2, "takes --cluster 1" },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16, MMAGEN_GEMM_NT, 96, 1, "multiple of 64" },
		{ MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_F32, MMAGEN_GEMM_NT, 0, 1, "K-major only" },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_BF16, MMAGEN_GEMM_TT, 0, 1, "K-major only" },
		/* f16 accumulation */
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_TN, 0, 1, NULL },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, MMAGEN_GEMM_TN, 64, 1, NULL },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_NT, 0, 2, "takes --cluster 1" },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_E4M3, MMAGEN_GEMM_NN, 0, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F16, MMAGEN_BF16, MMAGEN_GEMM_TN, 0, 1, "accumulates in f32 (got --acc f16)" },
		/* FP8 D */
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 0, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_E5M2, MMAGEN_GEMM_TN, 64, 1, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_E4M3, MMAGEN_GEMM_TT, 0, 2, "takes --cluster 1" },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_E5M2, MMAGEN_GEMM_TN, 0, 2, NULL },
		{ MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 0, 1, NULL },
		{ MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_E5M2, MMAGEN_GEMM_TN, 64, 1, NULL },
		{ MMAGEN_E4M3, MMAGEN_E5M2, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 0, 1, NULL },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 64, 1, NULL },
		{ MMAGEN_E5M2, MMAGEN_E5M2, 0, MMAGEN_E5M2, MMAGEN_GEMM_TN, 0, 2, NULL },
		{ MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 0, 1, "s32 or f32" },
	};
	static const char *const lay[] = { "tn", "nn", "nt", "tt" };
	char what[200];
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		mmagen_gemm_request r;
		sm90_request(&r, vs[i].a, vs[i].b, vs[i].out);
		r.acc = vs[i].acc;
		r.layout = vs[i].layout;
		r.tile_n = vs[i].tile_n;
		r.cluster = vs[i].cluster;
		snprintf(what, sizeof what, "gemm %s x %s (acc %s) -> %s, layout %s, tile N %u, cluster %u",
			 mmagen_type_name(r.a), mmagen_type_name(r.b),
			 r.acc ? mmagen_type_name(r.acc) : "default", mmagen_type_name(r.out),
			 lay[r.layout], r.tile_n, r.cluster);
		assemble_or_refused(ptxas, dir, &r, what, vs[i].refusal);
	}
}

/* Split-K and small-M tiles (the wgmma path), each row of `vs` on every
 * `every`-th type mix: every mix with S 3; auto with a cluster of 2 and
 * other tiles; tiles of 16, 32 and 64 rows (the first consumer warpgroup
 * alone, A's box that many rows) with and without the split kernel and
 * a 2-CTA cluster (about a minute on 2 cores); then a small tile with
 * layout tt, and an M-major A refused. */
static void check_split_tile_m(const char *ptxas, const char *dir)
{
	static const struct { unsigned tile_m, tile_n, split, cluster, every; } vs[] = {
		{ 0, 0, 3, 1, 1 }, { 0, 64, MMAGEN_GEMM_SPLIT_AUTO, 2, 4 }, { 0, 192, 256, 1, 4 },
		{ 0, 128, 2, 2, 4 }, { 16, 128, 1, 1, 1 }, { 32, 64, 2, 1, 3 }, { 64, 0, 1, 2, 3 },
	};
	char what[200];
	for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
		for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
			mmagen_gemm_request r;
			if (c % vs[v].every)
				continue;
			sm90_request(&r, combos[c].a, combos[c].b, combos[c].out);
			r.tile_m = vs[v].tile_m;
			r.tile_n = vs[v].tile_n;
			r.split_k = vs[v].split;
			r.cluster = vs[v].cluster;
			snprintf(what, sizeof what, "gemm %s x %s -> %s, tile %ux%u, split-K %u, cluster %u",
				 mmagen_type_name(r.a), mmagen_type_name(r.b), mmagen_type_name(r.out),
				 r.tile_m, r.tile_n, r.split_k, r.cluster);
			CHECK(!assemble(ptxas, dir, &r, what), "%s", what);
		}
	mmagen_gemm_request r;
	sm90_request(&r, MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16);
	r.tile_m = 16;
	r.layout = MMAGEN_GEMM_TT;
	CHECK(!assemble(ptxas, dir, &r, "gemm bf16 tt, tile M 16"), "gemm bf16 tt, tile M 16");
	r.layout = MMAGEN_GEMM_NN;
	mmagen_gemm_info info = { .size = sizeof info };
	CHECK(mmagen_gemm_info_of(&r, &info) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "K-major A"), "nn with tile M 16: refused with the rule");
}

/* FP8 promotion every 2, 4 or 8 K blocks: with 2-CTA clusters or not,
 * a small tile, split-K; K that is not such a multiple is refused, and so
 * is --promote for a type that has nothing to promote. */
static void check_promote(const char *ptxas, const char *dir)
{
	static const struct { mmagen_type a, b; unsigned k, tile_m, tile_n, cluster, split; const char *refusal; } vs[] = {
		{ MMAGEN_E4M3, MMAGEN_E4M3, 256, 0, 0, 2, 0, NULL },
		{ MMAGEN_E4M3, MMAGEN_E5M2, 512, 0, 128, 1, 0, NULL },
		{ MMAGEN_E5M2, MMAGEN_E5M2, 1024, 64, 192, 1, 0, NULL },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 256, 0, 0, 1, 3, NULL },
		{ MMAGEN_E5M2, MMAGEN_E4M3, 512, 0, 64, 2, MMAGEN_GEMM_SPLIT_AUTO, NULL },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 384, 0, 0, 2, 0, "use 256" },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 2048, 0, 0, 2, 0, "use 1024" },
		{ MMAGEN_BF16, MMAGEN_BF16, 256, 0, 0, 2, 0, "FP8 A and B" },
	};
	char what[200];
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		mmagen_gemm_request r;
		sm90_request(&r, vs[i].a, vs[i].b, MMAGEN_BF16);
		r.promote_k = vs[i].k;
		r.tile_m = vs[i].tile_m;
		r.tile_n = vs[i].tile_n;
		r.cluster = vs[i].cluster;
		r.split_k = vs[i].split;
		snprintf(what, sizeof what, "gemm %s x %s, promote every %u, tile %ux%u, cluster %u, split %u",
			 mmagen_type_name(r.a), mmagen_type_name(r.b), r.promote_k, r.tile_m,
			 r.tile_n, r.cluster, r.split_k);
		assemble_or_refused(ptxas, dir, &r, what, vs[i].refusal);
	}
}

/* What mmagen_gemm_choose picks for small and large problems (the
 * stages and split it sets: 12-stage 64-row tiles on sm_90a, mma.sync
 * tiles split through a workspace) assembles too. */
static void check_chosen(const char *ptxas, const char *dir)
{
	static const struct { const char *arch; unsigned path; mmagen_type a, out; unsigned m, n, k; } cs[] = {
		{ "sm_90a", 0, MMAGEN_BF16, MMAGEN_BF16, 128, 4096, 14336 },
		{ "sm_90a", 0, MMAGEN_E4M3, MMAGEN_BF16, 128, 4096, 14336 },
		{ "sm_90a", 0, MMAGEN_BF16, MMAGEN_BF16, 16, 4096, 14336 },
		{ "sm_90a", 0, MMAGEN_BF16, MMAGEN_BF16, 8192, 8192, 8192 },
		{ "sm_90a", 0, MMAGEN_S8, MMAGEN_S32, 8192, 8192, 8192 },   /* ping-pong 128x192 */
		{ "sm_90a", MMAGEN_GEMM_PATH_MMA_SYNC, MMAGEN_BF16, MMAGEN_BF16, 16, 4096, 14336 },
		{ "sm_80", 0, MMAGEN_F16, MMAGEN_F16, 16, 4096, 4096 },
		{ "sm_86", 0, MMAGEN_S8, MMAGEN_F32, 100, 2048, 8192 },
		{ "sm_89", 0, MMAGEN_E4M3, MMAGEN_BF16, 16, 4096, 14336 },
		{ "sm_89", 0, MMAGEN_TF32, MMAGEN_F32, 1, 8, 4096 },
	};
	char what[200];
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		mmagen_gemm_request r;
		mmagen_gemm_request_init(&r);
		mmagen_target_parse(cs[i].arch, &r.target);
		r.path = cs[i].path;
		r.a = r.b = cs[i].a;
		r.out = cs[i].out;
		CHECK(mmagen_gemm_choose(&r, cs[i].m, cs[i].n, cs[i].k, 132) == MMAGEN_OK,
		      "choose: %s", mmagen_last_error());
		snprintf(what, sizeof what, "chosen %s %s -> %s for %ux%ux%u: tile %ux%u, %u stages, split %u",
			 cs[i].arch, mmagen_type_name(r.a), mmagen_type_name(r.out), cs[i].m, cs[i].n,
			 cs[i].k, r.tile_m, r.tile_n, r.stages, r.split_k);
		CHECK(!assemble_for(ptxas, dir, &r, what, cs[i].arch, 0), "%s", what);
	}
}

/* --schedule pingpong: each non-FP8 type mix with tile N 64 and the
 * default (128; f16 accumulation 256), both cluster sizes, without spills
 * (a warpgroup holds the whole tile's accumulators); the 16-bit layouts;
 * FP8 D; the refusals (FP8 inputs, small M, split-K, tile N over 192). */
static void check_pingpong(const char *ptxas, const char *dir)
{
	struct v { mmagen_type a, b, acc, out; unsigned layout, tile_m, tile_n, cluster, split; const char *refusal; };
	static const struct v vs[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_NN, 0, 0, 1, 0, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32, MMAGEN_GEMM_NT, 0, 128, 1, 0, NULL },
		{ MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16, MMAGEN_GEMM_TT, 0, 64, 1, 0, NULL },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_GEMM_TN, 0, 0, 2, 0, NULL },
		{ MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, MMAGEN_GEMM_NN, 0, 256, 1, 0, NULL },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_E4M3, MMAGEN_GEMM_TN, 0, 0, 2, 0, NULL },
		{ MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32, MMAGEN_GEMM_TN, 0, 0, 1, MMAGEN_GEMM_SPLIT_AUTO, NULL },
		{ MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_BF16, MMAGEN_GEMM_TN, 0, 0, 1, 0, "no room for FP8" },
		{ MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32, MMAGEN_GEMM_TN, 64, 0, 1, 0, "whole tile of 128 rows" },
		{ MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32, MMAGEN_GEMM_TN, 0, 0, 1, 4, "runs whole tiles" },
		{ MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16, MMAGEN_GEMM_TN, 0, 256, 1, 0, "at most 192" },
	};
	static const char *const lay[] = { "tn", "nn", "nt", "tt" };
	char what[200];
	for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
		for (unsigned t = 0; t < 2; t++)
			for (unsigned cl = 1; cl <= 2; cl++) {
				mmagen_gemm_request r;
				if (combos[c].a == MMAGEN_E4M3 || combos[c].a == MMAGEN_E5M2)
					continue;
				sm90_request(&r, combos[c].a, combos[c].b, combos[c].out);
				r.tile_n = t ? 64 : 0;
				r.cluster = cl;
				r.schedule = MMAGEN_GEMM_SCHED_PINGPONG;
				snprintf(what, sizeof what, "gemm %s x %s -> %s pingpong, tile N %u, cluster %u",
					 mmagen_type_name(r.a), mmagen_type_name(r.b),
					 mmagen_type_name(r.out), r.tile_n, cl);
				CHECK(!assemble_for(ptxas, dir, &r, what, "sm_90a", 1), "%s", what);
			}
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		mmagen_gemm_request r;
		sm90_request(&r, vs[i].a, vs[i].b, vs[i].out);
		r.acc = vs[i].acc;
		r.layout = vs[i].layout;
		r.tile_m = vs[i].tile_m;
		r.tile_n = vs[i].tile_n;
		r.cluster = vs[i].cluster;
		r.split_k = vs[i].split;
		r.schedule = MMAGEN_GEMM_SCHED_PINGPONG;
		snprintf(what, sizeof what, "gemm %s x %s (acc %s) -> %s pingpong, layout %s, tile %ux%u, cluster %u, split %u",
			 mmagen_type_name(r.a), mmagen_type_name(r.b),
			 r.acc ? mmagen_type_name(r.acc) : "default", mmagen_type_name(r.out),
			 lay[r.layout], r.tile_m, r.tile_n, r.cluster, r.split_k);
		if (vs[i].refusal)
			assemble_or_refused(ptxas, dir, &r, what, vs[i].refusal);
		else
			CHECK(!assemble_for(ptxas, dir, &r, what, "sm_90a", 1), "%s", what);
	}
}

/* --quant fp8-block (FP8 block scaling): every type mix and D type, the
 * tiles whose columns lie in one, two or three 128-column blocks of B
 * (128x176: 112 .. 287), tiles under 128 rows that take K blocks in
 * pairs (a second set of scales), split-K (S and auto), 2-CTA clusters
 * and mmagen_gemm_choose's picks: each assembles without a spill
 * (ptxas -v) and without a wgmma warning.  Refusals carry their rule. */
static void check_block_scale(const char *ptxas, const char *dir)
{
	static const mmagen_type mixes[][2] = { { MMAGEN_E4M3, MMAGEN_E4M3 }, { MMAGEN_E4M3, MMAGEN_E5M2 },
						{ MMAGEN_E5M2, MMAGEN_E4M3 }, { MMAGEN_E5M2, MMAGEN_E5M2 } };
	static const mmagen_type outs[] = { MMAGEN_BF16, MMAGEN_F16, MMAGEN_F32, MMAGEN_E4M3, MMAGEN_E5M2 };
	static const struct { unsigned tile_m, tile_n, split, cluster, promote, schedule; const char *refusal; } vs[] = {
		{ 0, 0, 0, 0, 0, 0, NULL }, { 0, 128, 0, 0, 0, 0, NULL }, { 0, 64, 0, 2, 0, 0, NULL },
		{ 0, 176, 0, 0, 0, 0, NULL }, { 0, 160, 3, 0, 0, 0, NULL }, { 0, 80, 0, 0, 0, 0, NULL },
		{ 0, 0, 3, 0, 0, 0, NULL }, { 0, 192, MMAGEN_GEMM_SPLIT_AUTO, 2, 0, 0, NULL },
		{ 64, 192, 0, 0, 0, 0, NULL }, { 64, 128, 0, 0, 0, 0, NULL }, { 64, 64, 2, 0, 0, 0, NULL },
		{ 32, 96, 0, 0, 0, 0, NULL }, { 16, 48, MMAGEN_GEMM_SPLIT_AUTO, 0, 0, 0, NULL },
		{ 16, 128, 0, 2, 0, 0, NULL }, { 0, 0, 0, 0, 128, 0, NULL },
		{ 0, 0, 0, 0, 256, 0, "leave --promote out" },
		{ 0, 256, 0, 0, 0, 0, "at most 192" },
		{ 0, 0, 0, 0, 0, MMAGEN_GEMM_SCHED_PINGPONG, "--schedule cooperative" },
	};
	static const struct { unsigned m, n, k; } problems[] = {
		{ 16, 4096, 7168 }, { 128, 7168, 2048 }, { 4096, 4096, 4096 }, { 4096, 7168, 18432 },
	};
	char what[240];
	for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
		for (size_t x = 0; x < 4; x++)
			for (size_t o = 0; o < 5; o++) {
				mmagen_gemm_request r;
				/* each tile with every mix and every D (refusals with one) */
				if (vs[v].refusal ? x || o : (x + o + v) % 3 && v)
					continue;
				sm90_request(&r, mixes[x][0], mixes[x][1], outs[o]);
				r.quant = MMAGEN_QF_FP8_BLOCK;
				r.tile_m = vs[v].tile_m;
				r.tile_n = vs[v].tile_n;
				r.split_k = vs[v].split;
				r.cluster = vs[v].cluster;
				r.promote_k = vs[v].promote;
				r.schedule = vs[v].schedule;
				snprintf(what, sizeof what, "gemm %s x %s -> %s fp8-block, tile %ux%u, split %u, cluster %u, promote %u, schedule %u",
					 mmagen_type_name(r.a), mmagen_type_name(r.b), mmagen_type_name(r.out),
					 r.tile_m, r.tile_n, r.split_k, r.cluster, r.promote_k, r.schedule);
				if (vs[v].refusal)
					assemble_or_refused(ptxas, dir, &r, what, vs[v].refusal);
				else
					CHECK(!assemble_for(ptxas, dir, &r, what, "sm_90a", 1), "%s", what);
			}
	for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++) {
		mmagen_gemm_request r;
		sm90_request(&r, MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_BF16);
		r.quant = MMAGEN_QF_FP8_BLOCK;
		CHECK(mmagen_gemm_choose(&r, problems[i].m, problems[i].n, problems[i].k, 132) == MMAGEN_OK,
		      "choose fp8-block: %s", mmagen_last_error());
		snprintf(what, sizeof what, "chosen fp8-block for %ux%ux%u: tile %ux%u, %u stages, split %u",
			 problems[i].m, problems[i].n, problems[i].k, r.tile_m, r.tile_n, r.stages, r.split_k);
		CHECK(!assemble_for(ptxas, dir, &r, what, "sm_90a", 1), "%s", what);
	}
}

int main(int argc, char **argv)
{
	static const unsigned tile_n[] = { 0, 64, 128, 256 };
	char what[200];

	if (argc != 3)
		return fprintf(stderr, "usage: check_gemm PTXAS DIR\n"), 2;
	if (access(argv[1], X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	check_sm80(argv[1], argv[2]);
	check_sm90_more(argv[1], argv[2]);
	check_split_tile_m(argv[1], argv[2]);
	check_chosen(argv[1], argv[2]);
	check_promote(argv[1], argv[2]);
	check_pingpong(argv[1], argv[2]);
	check_block_scale(argv[1], argv[2]);
	for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
		for (size_t t = 0; t < sizeof tile_n / sizeof tile_n[0]; t++)
			for (unsigned cl = 1; cl <= 2; cl++) {
				mmagen_gemm_request r;
				sm90_request(&r, combos[c].a, combos[c].b, combos[c].out);
				r.tile_n = tile_n[t];
				r.cluster = cl;
				snprintf(what, sizeof what, "gemm %s x %s -> %s, tile N %u, cluster %u",
					 mmagen_type_name(r.a), mmagen_type_name(r.b),
					 mmagen_type_name(r.out), tile_n[t], cl);
				/* FP8 keeps two accumulators: N 256 is refused */
				if (tile_n[t] == 256 && (r.a == MMAGEN_E4M3 || r.a == MMAGEN_E5M2)) {
					mmagen_gemm_info info = { .size = sizeof info };
					CHECK(mmagen_gemm_info_of(&r, &info) == MMAGEN_INVALID_ARGUMENT &&
					      strstr(mmagen_last_error(), "at most 192"),
					      "%s: refused with the rule", what);
					continue;
				}
				CHECK(!assemble(argv[1], argv[2], &r, what), "%s", what);
			}
	return check_summary();
}
