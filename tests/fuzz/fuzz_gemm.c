/* fuzz_gemm.c - the whole-GEMM generators (gen/gemm/gemm.c, kernel_gemm_sm90.c,
 * _sm90_split.c, _sm80.c, _sm120.c, gemm_split.c) through the public API:
 * mmagen_gemm_choose, mmagen_gemm_info_of, mmagen_gemm_emit (PTX, JSON,
 * C header), mmagen_gemm_split_for and mmagen_gemm_split_buffers.
 *
 * The input is read as bytes, each field taking the next ones (zero when
 * the input is short): target (sm_80, sm_86, sm_89, sm_90, sm_90a,
 * sm_120a, sm_100a), A, B, out and acc types (from a list that includes
 * types no GEMM takes), layout, tile M and N, stages, group, cluster,
 * path, split-K (0, 1, S, auto), quant, kind, M, N, K, sms for the
 * chooser (big and small), and the schedule.  Checked, independently of the generators: a
 * refusal is never INTERNAL and says why; what is taken emits PTX that
 * names its target and the kernel of its manifest, and is the same bytes
 * twice; the JSON manifest balances its brackets; the C header embeds
 * the kernel's name; the info's tile, stages and cluster are the
 * request's where the request gave them; the chooser fills only open
 * fields and its choice is taken by the generator; a split-K kernel's
 * buffers are exactly tiles * S * 128 * tile_n * 4 (two 64-row warpgroup
 * slots per tile, whatever its M) and tiles * 8 bytes (tiles in whole
 * clusters), none for other kernels.  Before each
 * call a known error is left in mmagen_last_error(), so that a refusal
 * must say something of its own. */
#include "fuzz.h"

#include "mmagen.h"

#include <string.h>

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint32_t take32(struct in *in)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 8 | take(in);
	return v;
}

static void json_balanced(const char *s)
{
	long depth = 0;
	int str = 0;
	for (; *s; s++) {
		if (str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				str = 0;
			continue;
		}
		if (*s == '"')
			str = 1;
		else if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			FUZZ_CHECK(--depth >= 0, "manifest closes more than it opens");
	}
	FUZZ_CHECK(!str && !depth, "manifest unbalanced (depth %ld)", depth);
}

/* The last error is per thread and never cleared: before each call a
 * known one is left there, so that a refusal must say something of its
 * own. */
static void sentinel(void)
{
	mmagen_type t;
	(void)mmagen_type_parse("fuzz-gemm-sentinel", &t);
}

static void refused(mmagen_status s, const char *what)
{
	const char *e = mmagen_last_error();
	FUZZ_CHECK(s != MMAGEN_INTERNAL, "%s: internal error: %s", what, e);
	FUZZ_CHECK(e[0] && !strstr(e, "fuzz-gemm-sentinel"), "%s refused (%s) without a message",
		   what, mmagen_status_str(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const targets[] = { "sm_90a", "sm_80", "sm_86", "sm_89", "sm_90",
						"sm_120a", "sm_100a" };
	static const char *const types[] = { "bf16", "f16", "tf32", "e4m3", "e5m2", "s8", "u8",
					      "s4", "u4", "f32", "s32", "e2m1", "e3m2", "e2m3",
					      "f64", "b1" };
	static const unsigned splits[] = { 0, 1, 2, 3, 7, 16, 256, 257, MMAGEN_GEMM_SPLIT_AUTO };
	struct in in = { data, size };
	mmagen_gemm_request r;
	mmagen_type t[4];

	mmagen_gemm_request_init(&r);
	mmagen_target_parse(targets[take(&in) % 7], &r.target);
	for (int i = 0; i < 4; i++)
		mmagen_type_parse(types[take(&in) % 16], &t[i]);
	r.a = t[0];
	r.b = take(&in) & 1 ? t[0] : t[1];
	r.out = t[2];
	r.acc = take(&in) & 1 ? t[3] : MMAGEN_TYPE_NONE;
	r.layout = take(&in) % 5;                 /* 4: not a layout */
	unsigned tm = take(&in), tn = take(&in);
	r.tile_m = tm & 1 ? 0 : tm & 2 ? 128 : tm & 4 ? 64 : tm * 2;
	r.tile_n = tn & 1 ? 0 : (tn >> 1) * 8;   /* 0..1016, steps of 8 */
	r.stages = take(&in) % 9;
	r.group = take(&in) % 20;
	r.cluster = take(&in) % 4;
	r.path = take(&in) % 4;
	r.split_k = splits[take(&in) % 9];
	r.quant = take(&in) % 6;
	r.kind = take(&in) % 10;
	uint32_t m = take32(&in), n = take32(&in), k = take32(&in);
	unsigned sms = take(&in) + (take(&in) & 1 ? 0 : 132);
	r.schedule = take(&in) % 4;                /* 3: not a schedule */

	mmagen_gemm_request asked = r;
	sentinel();
	mmagen_status s = mmagen_gemm_choose(&r, m, n, k, sms);
	if (s != MMAGEN_OK) {
		refused(s, "choose");
		FUZZ_CHECK(!memcmp(&r, &asked, sizeof r), "a refused choose changed the request");
		r = asked;
	} else {
		FUZZ_CHECK(!asked.tile_m || r.tile_m == asked.tile_m, "choose changed tile M");
		FUZZ_CHECK(!asked.tile_n || r.tile_n == asked.tile_n, "choose changed tile N");
		FUZZ_CHECK(!asked.cluster || r.cluster == asked.cluster, "choose changed the cluster");
		FUZZ_CHECK(!asked.split_k || r.split_k == asked.split_k, "choose changed split-K");
		FUZZ_CHECK(!asked.schedule || r.schedule == asked.schedule, "choose changed the schedule");
	}

	mmagen_gemm_info info = { .size = sizeof info };
	sentinel();
	s = mmagen_gemm_info_of(&r, &info);
	if (s != MMAGEN_OK) {
		refused(s, "info_of");
		FUZZ_CHECK(!(r.tile_m != asked.tile_m || r.tile_n != asked.tile_n || r.cluster != asked.cluster ||
			     r.split_k != asked.split_k || r.schedule != asked.schedule) ||
				   mmagen_gemm_info_of(&asked, &info) != MMAGEN_OK,
			   "the chooser's choice is refused where the request was taken: %s",
			   mmagen_last_error());
		return 0;
	}
	FUZZ_CHECK(!r.tile_m || info.tile_m == r.tile_m, "tile M %u, asked %u", info.tile_m,
		   r.tile_m);
	FUZZ_CHECK(!r.tile_n || info.tile_n == r.tile_n, "tile N %u, asked %u", info.tile_n,
		   r.tile_n);
	FUZZ_CHECK(!r.stages || info.stages == r.stages, "stages %u, asked %u", info.stages,
		   r.stages);
	FUZZ_CHECK(!r.cluster || info.cluster[0] == r.cluster, "cluster %u, asked %u",
		   info.cluster[0], r.cluster);

	char *ptx = NULL, *again = NULL, *json = NULL, *hdr = NULL;
	size_t len = 0, len2 = 0;
	s = mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, &len);
	FUZZ_CHECK(s == MMAGEN_OK, "info_of took it, emit refused: %s", mmagen_last_error());
	FUZZ_CHECK(len && strlen(ptx) == len, "PTX of %zu bytes, strlen %zu", len, strlen(ptx));
	FUZZ_CHECK(strstr(ptx, mmagen_target_name(r.target)), "PTX does not name %s",
		   mmagen_target_name(r.target));
	FUZZ_CHECK(info.kernel && strstr(ptx, info.kernel), "PTX lacks the kernel %s",
		   info.kernel ? info.kernel : "(none)");
	FUZZ_CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &again, &len2) == MMAGEN_OK &&
			   len2 == len && !memcmp(ptx, again, len),
		   "PTX differs between two calls");
	FUZZ_CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &json, NULL) == MMAGEN_OK, "JSON: %s",
		   mmagen_last_error());
	json_balanced(json);
	FUZZ_CHECK(strstr(json, info.kernel), "manifest lacks the kernel's name");
	FUZZ_CHECK(mmagen_gemm_emit(&r, MMAGEN_FMT_CUDA, &hdr, NULL) == MMAGEN_OK, "header: %s",
		   mmagen_last_error());
	FUZZ_CHECK(strstr(hdr, info.kernel), "header lacks the kernel's name");

	unsigned sk = mmagen_gemm_split_for(&info, m, n, k, sms);
	FUZZ_CHECK(sk >= 1 && sk <= 256, "split_for %u", sk);
	uint64_t ws = 0, ctr = 0;
	sentinel();
	s = mmagen_gemm_split_buffers(&info, m, n, sk, &ws, &ctr);
	int split_kernel = info.path == MMAGEN_GEMM_PATH_WGMMA && info.split_k != 1;
	int sync_ws = info.path == MMAGEN_GEMM_PATH_MMA_SYNC && info.split_workspace;
	if (s != MMAGEN_OK) {
		refused(s, "split_buffers");
	} else if (sync_ws) {
		/* a slot of tile_m x tile_n x 4 bytes per tile and K slice (the
		 * kernel's S, not split_for's), a u32 per tile */
		uint64_t tiles = ((uint64_t)m + info.tile_m - 1) / info.tile_m *
				 (((uint64_t)n + info.tile_n - 1) / info.tile_n);
		FUZZ_CHECK(info.split_k > 1 &&
				   ws == tiles * info.split_k * info.tile_m * info.tile_n * 4 &&
				   ctr == tiles * 4,
			   "mma.sync workspace %llu, counters %llu for %llu tiles",
			   (unsigned long long)ws, (unsigned long long)ctr, (unsigned long long)tiles);
	} else if (!split_kernel)
		FUZZ_CHECK(!ws && !ctr, "buffers for a kernel without split-K");
	else if (m && n) {
		FUZZ_CHECK(ws && ctr && info.tile_m && info.tile_n, "a split-K kernel without buffers");
		/* tiles = ceil(ceil(M/tile_m)/cluster)*cluster * ceil(N/tile_n) */
		uint64_t cl = info.cluster[0] ? info.cluster[0] : 1;
		uint64_t rows = ((uint64_t)m + info.tile_m - 1) / info.tile_m;
		uint64_t cols = ((uint64_t)n + info.tile_n - 1) / info.tile_n;
		uint64_t per = (uint64_t)sk * 128u * info.tile_n * 4;   /* two 64-row slots */
		FUZZ_CHECK(ws % per == 0 && ws / per == (rows + cl - 1) / cl * cl * cols &&
				   ctr == ws / per * 8,
			   "workspace %llu, counters %llu for %llu x %llu tiles, S %u",
			   (unsigned long long)ws, (unsigned long long)ctr,
			   (unsigned long long)rows, (unsigned long long)cols, sk);
	}
	mmagen_free(ptx);
	mmagen_free(again);
	mmagen_free(json);
	mmagen_free(hdr);
	return 0;
}
