/* test_sized.c - the structs of mmagen.h that carry their size, through the
 * shared library's public API only (see "The ABI" in mmagen.h).
 *
 * The _init() macros write the caller's sizeof and not a byte more (guard
 * bytes after the struct are checked), give every field its default, and
 * a struct built against another header (smaller: never initialised;
 * larger: a newer mmagen.h) is MMAGEN_INVALID_ARGUMENT with a message
 * naming the _init(), never read past.  Output structs (mmagen_gemm_info,
 * mmagen_check_result) are written only up to their size.  Every tile
 * kernel has at most MMAGEN_TILE_MAX_PARAMS parameters.
 */
#include "mmagen.h"
#include "check.h"

#include <stddef.h>
#include <string.h>

#define GUARD 0xA5
#define EXTRA 32

/* Room for a struct and EXTRA guard bytes, aligned for any of them. */
typedef union room {
	mmagen_request req;
	mmagen_tile_opts opts;
	mmagen_gemm_request gemm;
	mmagen_gemm_info info;
	mmagen_check_result res;
	unsigned char b[512];
} room;

static int guard_ok(const room *u, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (u->b[i] != GUARD)
			return 0;
	return 1;
}

static int zero(const room *u, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (u->b[i])
			return 0;
	return 1;
}

static int error_says(const char *what)
{
	return strstr(mmagen_last_error(), what) != NULL;
}

static void request_sizes(void)
{
	room u;
	const mmagen_form *f = NULL;
	const size_t n = sizeof(mmagen_request);
	static const char op[] = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
	char buf[256];

	memset(&u, GUARD, sizeof u);
	mmagen_request_init(&u.req);
	CHECK(u.req.size == n, "request_init: size %zu, want %zu", u.req.size, n);
	CHECK(guard_ok(&u, n, n + EXTRA), "request_init wrote past the struct");
	CHECK(u.req.target == -1 && u.req.family == MMAGEN_ANY && u.req.ashift == MMAGEN_ANY &&
	      u.req.k == MMAGEN_ANY && u.req.opcode == NULL, "request_init: defaults");
	CHECK(!mmagen_target_parse("sm_80", &u.req.target), "sm_80: %s", mmagen_last_error());
	u.req.opcode = op;
	CHECK(!mmagen_select(&u.req, &f) && f &&
	      !strcmp(mmagen_form_opcode(f, buf, sizeof buf), op),
	      "select %s: %s", op, mmagen_last_error());
	CHECK(f && mmagen_form_matches(&u.req, f), "form_matches of the selected form");

	/* never initialised */
	u.req.size = 0;
	CHECK(mmagen_select(&u.req, &f) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("mmagen_request_init"), "size 0: %s", mmagen_last_error());
	CHECK(f && !mmagen_form_matches(&u.req, f), "form_matches with size 0");

	/* a caller that knows fewer bytes than the oldest layout: init
	 * writes only those, select refuses */
	memset(&u, GUARD, sizeof u);
	mmagen_request_init_size(&u.req, sizeof(size_t) + sizeof(int));
	CHECK(u.req.size == sizeof(size_t) + sizeof(int) && u.req.target == -1,
	      "request_init_size(12): size %zu target %d", u.req.size, u.req.target);
	CHECK(guard_ok(&u, sizeof(size_t) + sizeof(int), n + EXTRA),
	      "request_init_size(12) wrote past 12 bytes");
	CHECK(mmagen_select(&u.req, &f) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("mmagen_request_init"), "short request: %s", mmagen_last_error());

	/* built against a newer mmagen.h: its extra bytes zeroed, refused */
	memset(&u, GUARD, sizeof u);
	mmagen_request_init_size(&u.req, n + 16);
	CHECK(u.req.size == n + 16 && zero(&u, n, n + 16) && guard_ok(&u, n + 16, n + EXTRA),
	      "request_init_size(n + 16): size %zu", u.req.size);
	u.req.target = 0;
	CHECK(mmagen_select(&u.req, &f) == MMAGEN_INVALID_ARGUMENT && error_says("newer"),
	      "long request: %s", mmagen_last_error());

	mmagen_request_init_size(NULL, n);   /* ignored */
	passed++;
}

static void tile_opts_sizes(void)
{
	room u;
	const size_t n = sizeof(mmagen_tile_opts);
	mmagen_request r;
	const mmagen_form *f = NULL;
	mmagen_tile_info ti;
	mmagen_check *c = NULL;
	char *ptx = NULL;

	memset(&u, GUARD, sizeof u);
	mmagen_tile_opts_init(&u.opts);
	CHECK(u.opts.size == n && guard_ok(&u, n, n + EXTRA), "tile_opts_init: size %zu",
	      u.opts.size);
	CHECK(u.opts.swizzle == 128 && u.opts.scale_d == 1 && u.opts.m == 0 &&
	      u.opts.major_a == 0 && u.opts.neg_b == 0, "tile_opts_init: defaults");

	mmagen_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.opcode = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16";
	if (mmagen_select(&r, &f) || !f) {
		fail("select %s: %s", r.opcode, mmagen_last_error());
		return;
	}
	CHECK(!mmagen_tile_info_of(f, &u.opts, &ti) && ti.nparams == 4,
	      "tile_info_of with initialised opts: %s", mmagen_last_error());

	u.opts.size = 0;
	CHECK(mmagen_tile_info_of(f, &u.opts, &ti) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("mmagen_tile_opts_init"), "tile_info_of, size 0: %s",
	      mmagen_last_error());
	CHECK(mmagen_emit_tile(f, r.target, &u.opts, MMAGEN_FMT_PTX, &ptx, NULL) ==
	      MMAGEN_INVALID_ARGUMENT && !ptx, "emit_tile, size 0: %s", mmagen_last_error());
	CHECK(mmagen_check_new(f, &u.opts, MMAGEN_CHECK_RANDOM, 1, &c) ==
	      MMAGEN_INVALID_ARGUMENT && !c, "check_new, size 0: %s", mmagen_last_error());
	u.opts.size = n + 8;
	CHECK(mmagen_tile_info_of(f, &u.opts, &ti) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("newer"), "tile_info_of, size n + 8: %s", mmagen_last_error());
	/* NULL still means the defaults */
	CHECK(!mmagen_tile_info_of(f, NULL, &ti), "tile_info_of(NULL opts): %s",
	      mmagen_last_error());
	mmagen_free(ptx);
	mmagen_check_free(c);
}

static void gemm_sizes(void)
{
	room u, v;
	const size_t n = sizeof(mmagen_gemm_request), ni = sizeof(mmagen_gemm_info);

	memset(&u, GUARD, sizeof u);
	mmagen_gemm_request_init(&u.gemm);
	CHECK(u.gemm.size == n && guard_ok(&u, n, n + EXTRA) && u.gemm.target == -1 &&
	      u.gemm.layout == MMAGEN_GEMM_TN && u.gemm.tile_m == 0,
	      "gemm_request_init: size %zu", u.gemm.size);
	mmagen_target_parse("sm_90a", &u.gemm.target);
	u.gemm.a = u.gemm.b = u.gemm.out = MMAGEN_BF16;

	memset(&v, GUARD, sizeof v);
	v.info.size = ni;
	CHECK(!mmagen_gemm_info_of(&u.gemm, &v.info) && v.info.size == ni &&
	      v.info.block[0] > 0 && v.info.kernel && v.info.elem_bytes_d == 2,
	      "gemm_info_of: %s", mmagen_last_error());
	CHECK(guard_ok(&v, ni, ni + EXTRA), "gemm_info_of wrote past the struct");

	/* fields added since a release start at or past that release's
	 * sizeof, so that `size` tells the versions apart (session 12's
	 * structs: 80 and 136 bytes on LP64; schedule went into their tail
	 * padding at first, where an old library would have taken a new
	 * caller's request without it) */
	CHECK(offsetof(mmagen_gemm_request, schedule) >= offsetof(mmagen_gemm_request, tile_k) + 8 &&
	      offsetof(mmagen_gemm_info, schedule) >= offsetof(mmagen_gemm_info, fp8_promote) + 8 &&
	      n > offsetof(mmagen_gemm_request, schedule) && ni > offsetof(mmagen_gemm_info, schedule),
	      "schedule at %zu / %zu: not past the older sizeof",
	      offsetof(mmagen_gemm_request, schedule), offsetof(mmagen_gemm_info, schedule));
	/* a caller of the older size: accepted, cooperative; an older info:
	 * filled up to its size */
	u.gemm.schedule = MMAGEN_GEMM_SCHED_PINGPONG;
	u.gemm.size = offsetof(mmagen_gemm_request, reserved0);
	memset(&v, GUARD, sizeof v);
	v.info.size = offsetof(mmagen_gemm_info, reserved0);
	CHECK(!mmagen_gemm_info_of(&u.gemm, &v.info) && guard_ok(&v, v.info.size, ni + EXTRA),
	      "older sizes: %s", mmagen_last_error());
	v.info.size = ni;
	CHECK(!mmagen_gemm_info_of(&u.gemm, &v.info) && v.info.schedule == MMAGEN_GEMM_SCHED_COOP,
	      "an older request has no schedule (got %u)", v.info.schedule);
	u.gemm.size = n;
	u.gemm.schedule = 0;

	v.info.size = 0;
	CHECK(mmagen_gemm_info_of(&u.gemm, &v.info) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("sizeof(mmagen_gemm_info)"), "gemm_info size 0: %s",
	      mmagen_last_error());
	v.info.size = ni;
	u.gemm.size = 0;
	CHECK(mmagen_gemm_info_of(&u.gemm, &v.info) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("mmagen_gemm_request_init"), "gemm_request size 0: %s",
	      mmagen_last_error());
	char *ptx = NULL;
	CHECK(mmagen_gemm_emit(&u.gemm, MMAGEN_FMT_PTX, &ptx, NULL) == MMAGEN_INVALID_ARGUMENT &&
	      !ptx, "gemm_emit, request size 0: %s", mmagen_last_error());
	mmagen_free(ptx);
}

static void check_result_sizes(void)
{
	mmagen_request r;
	const mmagen_form *f = NULL;
	mmagen_check *c = NULL;
	const mmagen_tile_info *ti;
	const void *d;
	size_t bytes;
	unsigned p;
	room u;
	const size_t n = sizeof(mmagen_check_result);

	mmagen_request_init(&r);
	mmagen_target_parse("sm_80", &r.target);
	r.opcode = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
	if (mmagen_select(&r, &f) || mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, 7, &c)) {
		fail("check_new: %s", mmagen_last_error());
		return;
	}
	ti = mmagen_check_tile(c);
	CHECK(!mmagen_check_find_param(ti, "D", &p) && !mmagen_check_data(c, p, &d, &bytes),
	      "D: %s", mmagen_last_error());

	memset(&u, GUARD, sizeof u);
	u.res.size = n;
	/* D is still the poison: the comparison runs and fails */
	CHECK(!mmagen_check_verify(c, d, bytes, &u.res) && !u.res.pass && u.res.bad > 0 &&
	      u.res.size == n, "verify the poison: %s", mmagen_last_error());
	CHECK(guard_ok(&u, n, n + EXTRA), "verify wrote past the result");
	u.res.size = 0;
	CHECK(mmagen_check_verify(c, d, bytes, &u.res) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("sizeof(mmagen_check_result)"), "result size 0: %s",
	      mmagen_last_error());
	u.res.size = n + 8;
	CHECK(mmagen_check_verify(c, d, bytes, &u.res) == MMAGEN_INVALID_ARGUMENT &&
	      error_says("newer"), "result size n + 8: %s", mmagen_last_error());
	mmagen_check_free(c);
}

/* Every tile kernel's manifest fits MMAGEN_TILE_MAX_PARAMS, and the bound
 * is reached closely enough to be the real one (the largest tile has
 * more than 5 parameters). */
static void tile_param_bound(void)
{
	unsigned most = 0;
	size_t tiles = 0;

	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		mmagen_tile_info ti;
		if (f->family != MMAGEN_FAM_MMA && f->family != MMAGEN_FAM_WGMMA &&
		    f->family != MMAGEN_FAM_TCGEN05)
			continue;
		memset(&ti, 0, sizeof ti);
		if (mmagen_tile_info_of(f, NULL, &ti))
			continue;      /* forms without a tile say so; not this test */
		tiles++;
		CHECK(ti.nparams >= 4 && ti.nparams <= MMAGEN_TILE_MAX_PARAMS,
		      "form %zu: %u parameters", i, ti.nparams);
		if (ti.nparams > most)
			most = ti.nparams;
	}
	CHECK(tiles > 1000, "only %zu tile kernels", tiles);
	CHECK(most > 5 && most <= MMAGEN_TILE_MAX_PARAMS, "largest tile: %u parameters", most);
	printf("%zu tiles, at most %u of %d parameters\n", tiles, most, MMAGEN_TILE_MAX_PARAMS);
}

int main(void)
{
	request_sizes();
	tile_opts_sizes();
	gemm_sizes();
	check_result_sizes();
	tile_param_bound();
	return check_summary();
}
