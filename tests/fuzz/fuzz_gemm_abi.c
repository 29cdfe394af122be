/* fuzz_gemm_abi.c - libmmart's GEMM launcher without a driver
 * (runtime/gemm_abi.c): the ABI text parser, mmart_gemm_abi_parse, and
 * the launch planner, mmart_gemm_plan.
 *
 * The input up to its first NUL byte (all of it without one) is the ABI
 * text; the bytes after the NUL choose the launches planned when it
 * parses: three fixed ones (dense and aligned, K = 77 with odd leading
 * dimensions and bases, 1 x 1 x 1 with beta 1), then up to four drawn
 * from the bytes (M, N, K small or any 32 bits, leading dimensions dense,
 * a little over the row or any 64 bits, bases aligned, a few bytes off or
 * 0, beta, splits, the SM count).  The seeds (corpus/gemm_abi) are real
 * ABI texts of `mmagen gemm --format abi`.
 *
 * Checked, from the format and the header's contract rather than from
 * gemm_abi.c's formulas: a refusal is MMART_INVALID_ARGUMENT with one
 * non-empty line and leaves the output as it was; a parsed ABI is
 * internally sound (known roles and kinds, 1 to 32 parameters, tiles and
 * block set, power-of-two rules); a planned launch has M, N, K as given
 * (K padded up by less than k_multiple), a grid of 1 to 2^31-1 in each
 * dimension, views that are the caller's or staged copies lying inside
 * the staging buffer (256-byte aligned, 16-byte pitches, nothing
 * wrapped), and split-K buffers exactly tiles x S slots (checked in 128
 * bits, so a product that wrapped is caught); d_tma only with a D map on
 * 16-byte rows.  ASan and UBSan catch the rest; nothing is allocated. */
#include "fuzz.h"

#include "gemm.h"

#include <string.h>

typedef unsigned __int128 u128;

#define BIG 0x7fffffffu

static void refused(mmart_status s, const char *what)
{
	const char *e = mmart_last_error();
	FUZZ_CHECK(s == MMART_INVALID_ARGUMENT, "%s: %s: %s", what, mmart_status_str(s), e);
	FUZZ_CHECK(e[0] && !strchr(e, '\n') && strcmp(e, "fuzz-sentinel"),
		   "%s: refused without one line of its own: \"%s\"", what, e);
}

static int pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

static void abi_sound(const struct gemm_abi *a)
{
	FUZZ_CHECK(a->nparams >= 1 && a->nparams <= GEMM_ABI_MAX_PARAMS, "%u params", a->nparams);
	for (unsigned i = 0; i < a->nparams; i++)
		FUZZ_CHECK((unsigned)a->role[i] < GR_COUNT && (unsigned)a->kind[i] <= GK_F32,
			   "param %u: role %d kind %d", i, (int)a->role[i], (int)a->kind[i]);
	FUZZ_CHECK(a->kernel[0] && memchr(a->kernel, 0, sizeof a->kernel), "kernel name");
	FUZZ_CHECK(memchr(a->target, 0, sizeof a->target) && memchr(a->stype, 0, sizeof a->stype) &&
		   memchr(a->a.type, 0, sizeof a->a.type), "unterminated names");
	FUZZ_CHECK(a->block[0] && a->tile_m && a->tile_n && a->tile_k && a->cluster[0],
		   "block %u tile %ux%ux%u cluster %u", a->block[0], a->tile_m, a->tile_n,
		   a->tile_k, a->cluster[0]);
	FUZZ_CHECK(a->a.bits && a->b.bits && a->out.bits, "bits");
	FUZZ_CHECK((unsigned)a->path <= GP_SM120 && (unsigned)a->split <= GS_Z, "path %d split %d",
		   (int)a->path, (int)a->split);
	FUZZ_CHECK(pow2(a->ab_align) && pow2(a->ab_pitch) && pow2(a->k_multiple) &&
		   pow2(a->mn_multiple) && pow2(a->cd_align) && pow2(a->cd_ld), "rules");
	FUZZ_CHECK(a->path != GP_WGMMA || (a->box_a[0] && a->box_b[0] && a->swizzle == 128),
		   "wgmma without its maps");
	FUZZ_CHECK((a->split != GS_TAIL && a->split != GS_SLOTS) || a->ws_slot, "split without slots");
}

static u128 cdiv(u128 a, u128 b)
{
	return (a + b - 1) / b;
}

/* A view: the caller's (addr, ld) as given, or a staged copy inside the
 * staging buffer of `top` bytes; `rows` the rows the kernel reads (K
 * padded), `row_bytes` the bytes of each the caller has. */
static void view_sound(const char *name, const struct gemm_view *v, uint64_t addr, uint64_t ld,
		       uint64_t top, unsigned eb, uint64_t rows, uint64_t row_bytes)
{
	if (!v->staged) {
		FUZZ_CHECK(v->addr == addr && v->ld == ld && !v->zero,
			   "%s: not staged but moved: %llx ld %llu, given %llx ld %llu", name,
			   (unsigned long long)v->addr, (unsigned long long)v->ld,
			   (unsigned long long)addr, (unsigned long long)ld);
		return;
	}
	FUZZ_CHECK(v->src == addr && v->src_pitch == ld * eb, "%s: staged from elsewhere", name);
	FUZZ_CHECK(v->addr % 256 == 0 && v->pitch % 16 == 0 && v->pitch >= v->width &&
		   v->width == row_bytes && v->height <= rows,
		   "%s: staged at %llu pitch %llu width %llu (row %llu) height %llu of %llu", name,
		   (unsigned long long)v->addr, (unsigned long long)v->pitch,
		   (unsigned long long)v->width, (unsigned long long)row_bytes,
		   (unsigned long long)v->height, (unsigned long long)rows);
	FUZZ_CHECK((u128)v->pitch * rows == v->bytes, "%s: %llu bytes for %llu rows of %llu", name,
		   (unsigned long long)v->bytes, (unsigned long long)rows,
		   (unsigned long long)v->pitch);
	FUZZ_CHECK((u128)v->addr + v->bytes <= top, "%s: [%llu, +%llu) past the %llu staging bytes",
		   name, (unsigned long long)v->addr, (unsigned long long)v->bytes,
		   (unsigned long long)top);
	FUZZ_CHECK(eb && v->ld == v->pitch / eb && v->pitch % eb == 0, "%s: ld %llu pitch %llu",
		   name, (unsigned long long)v->ld, (unsigned long long)v->pitch);
}

static void plan_one(const struct gemm_abi *abi, int sms, const mmart_gemm_args *a)
{
	struct gemm_launch l, before;

	memset(&l, 0xa5, sizeof l);
	before = l;
	mmart_set_error(MMART_OK, "fuzz-sentinel");
	mmart_status s = mmart_gemm_plan(abi, sms, a, &l);
	if (s) {
		refused(s, "plan");
		FUZZ_CHECK(!memcmp(&l, &before, sizeof l), "a refused plan wrote its output");
		return;
	}
	FUZZ_CHECK(a->m >= 1 && a->m <= BIG && a->n >= 1 && a->n <= BIG && a->k >= 1 && a->k <= BIG,
		   "planned %ux%ux%u", a->m, a->n, a->k);
	FUZZ_CHECK(l.m == a->m && l.n == a->n && l.k >= a->k && l.k <= BIG &&
		   l.k - a->k < abi->k_multiple && l.k % ((abi->a.mn && abi->b.mn) ? 1 : abi->k_multiple) == 0,
		   "k %u for %u (multiple %u)", l.k, a->k, abi->k_multiple);
	for (int i = 0; i < 3; i++)
		FUZZ_CHECK(l.grid[i] >= 1 && l.grid[i] <= BIG, "grid[%d] = %u", i, l.grid[i]);
	FUZZ_CHECK(l.splits >= 1, "splits %u", l.splits);

	/* the views */
	unsigned eba = abi->a.bits / 8, ebb = abi->b.bits / 8, ebd = abi->out.bits / 8;
	uint64_t lda = a->lda ? a->lda : abi->a.mn ? a->m : a->k;
	uint64_t ldb = a->ldb ? a->ldb : abi->b.mn ? a->n : a->k;
	uint64_t ldd = a->ldd ? a->ldd : a->n, ldc = a->ldc ? a->ldc : a->n;
	if (abi->a.bits >= 8)
		view_sound("A", &l.a, a->a, lda, l.stage_bytes, eba, abi->a.mn ? l.k : a->m,
			   (uint64_t)(abi->a.mn ? a->m : a->k) * eba);
	else
		FUZZ_CHECK(!l.a.staged && l.a.addr == a->a, "packed A staged");
	if (abi->b.bits >= 8)
		view_sound("B", &l.b, a->b, ldb, l.stage_bytes, ebb, abi->b.mn ? l.k : a->n,
			   (uint64_t)(abi->b.mn ? a->n : a->k) * ebb);
	else
		FUZZ_CHECK(!l.b.staged && l.b.addr == a->b, "packed B staged");
	view_sound("D", &l.d, a->d, ldd, l.stage_bytes, ebd, a->m, (uint64_t)a->n * ebd);
	FUZZ_CHECK(l.d_back == l.d.staged, "d_back %d, D staged %d", l.d_back, l.d.staged);
	if (a->beta != 0)
		view_sound("C", &l.c, a->c, ldc, l.stage_bytes, ebd, a->m, (uint64_t)a->n * ebd);
	else
		FUZZ_CHECK(!memcmp(&l.c, &l.d, sizeof l.c), "beta 0: C is not D");
	if (l.a.staged && l.b.staged)
		FUZZ_CHECK(l.a.addr + l.a.bytes <= l.b.addr || l.b.addr + l.b.bytes <= l.a.addr,
			   "A and B staged over each other");
	if (l.d.staged && a->beta != 0 && l.c.staged)
		FUZZ_CHECK(l.c.addr + l.c.bytes <= l.d.addr || l.d.addr + l.d.bytes <= l.c.addr,
			   "C and D staged over each other");
	FUZZ_CHECK(abi->path != GP_SM120 || (!l.a.staged && !l.b.staged), "sm120 staged A or B");

	/* split-K buffers: whole slots of whole tiles, nothing wrapped */
	u128 rows = cdiv(a->m, abi->tile_m), cols = cdiv(a->n, abi->tile_n);
	u128 cl = abi->cluster[0];
	if (abi->persistent && abi->split == GS_TAIL) {
		u128 T = cdiv(rows, cl) * cols, G = l.grid[0] / cl;
		FUZZ_CHECK(l.grid[0] % cl == 0 && G >= 1, "grid %u, cluster %u", l.grid[0],
			   abi->cluster[0]);
		u128 tiles = (T % G) * cl;
		FUZZ_CHECK(tiles * l.splits * abi->ws_slot == l.ws_bytes &&
			   tiles * abi->ctr_per_tile == l.ctr_bytes,
			   "tail: %llu ws bytes, %llu counter bytes for %llu tiles x %u slots of %llu",
			   (unsigned long long)l.ws_bytes, (unsigned long long)l.ctr_bytes,
			   (unsigned long long)tiles, l.splits, (unsigned long long)abi->ws_slot);
	} else if (!abi->persistent && abi->split == GS_SLOTS) {
		FUZZ_CHECK(l.grid[0] == rows * cols && l.grid[2] == abi->splits, "slots grid");
		FUZZ_CHECK(rows * cols * abi->splits * abi->ws_slot == l.ws_bytes &&
			   rows * cols * abi->ctr_per_tile == l.ctr_bytes,
			   "slots: %llu ws bytes, %llu counter bytes",
			   (unsigned long long)l.ws_bytes, (unsigned long long)l.ctr_bytes);
	} else {
		FUZZ_CHECK(!l.ws_bytes && !l.ctr_bytes, "buffers without split-K slots");
	}
	if (l.d_tma)
		FUZZ_CHECK(abi->box_d[0] && l.d.addr % 16 == 0 && l.pitch_d % 16 == 0 &&
			   (uint64_t)a->n * ebd % 16 == 0, "d_tma on unaligned D");

	/* the same again gives the same */
	struct gemm_launch l2;
	memset(&l2, 0, sizeof l2);
	FUZZ_CHECK(mmart_gemm_plan(abi, sms, a, &l2) == MMART_OK && !memcmp(&l, &l2, sizeof l),
		   "plan not deterministic");
}

static uint32_t dim(struct fuzz_in *in)
{
	unsigned b = fuzz_byte(in);
	switch (b & 3) {
	case 0: return (b >> 2) + 1;                        /* 1..64 */
	case 1: return (fuzz_byte(in) << 8 | fuzz_byte(in)) + (b >> 2);
	case 2: return BIG - (b >> 2);                      /* near 2^31 */
	default: {
		uint32_t v = 0;
		for (int i = 0; i < 4; i++)
			v = v << 8 | fuzz_byte(in);
		return v;
	}
	}
}

static uint64_t ld_of(struct fuzz_in *in, uint64_t row)
{
	unsigned b = fuzz_byte(in);
	switch (b & 3) {
	case 0: return 0;                                   /* dense */
	case 1: return row + (b >> 2);                      /* a little over */
	case 2: return row > (b >> 2) ? row - (b >> 2) : 1; /* maybe under */
	default: {
		uint64_t v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | fuzz_byte(in);
		return v;
	}
	}
}

static uint64_t addr_of(struct fuzz_in *in, uint64_t base)
{
	unsigned b = fuzz_byte(in);
	if (b == 0xff)
		return 0;
	if (b == 0xfe) {
		uint64_t v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | fuzz_byte(in);
		return v;
	}
	return base + b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tn = nul ? (size_t)(nul - data) : size;
	char *text = malloc(tn + 1);
	struct gemm_abi abi, before;

	if (!text)
		return 0;
	memcpy(text, data, tn);
	text[tn] = '\0';
	memset(&abi, 0x5a, sizeof abi);
	before = abi;
	mmart_set_error(MMART_OK, "fuzz-sentinel");
	mmart_status s = mmart_gemm_abi_parse(text, &abi);
	free(text);
	if (s) {
		refused(s, "parse");
		FUZZ_CHECK(!memcmp(&abi, &before, sizeof abi), "a refused parse wrote its output");
		return 0;
	}
	abi_sound(&abi);

	struct fuzz_in in = { nul ? nul + 1 : data + size, nul ? size - tn - 1 : 0 };
	mmart_gemm_args a;
	const uint64_t A = 0x7f1000000000, B = 0x7f2000000000, C = 0x7f3000000000,
		       D = 0x7f4000000000, S = 0x7f5000000000;

	/* fixed: dense and aligned; K 77, odd lds, bases off; 1 x 1 x 1 */
	mmart_gemm_args_init(&a);
	a.m = 1000, a.n = 1000, a.k = 512;
	a.a = A, a.b = B, a.c = C, a.d = D, a.sa = S, a.sb = S + 0x1000000, a.ldsa = a.ldsb = 64;
	plan_one(&abi, 132, &a);
	a.m = 300, a.n = 301, a.k = 77;
	a.lda = 79, a.ldb = 77, a.ldd = 303, a.ldc = 305, a.a = A + 2, a.d = D + 6, a.beta = 1;
	plan_one(&abi, 78, &a);
	a.m = a.n = a.k = 1;
	a.lda = a.ldb = a.ldc = a.ldd = 0, a.a = A, a.d = D, a.splits = 7;
	plan_one(&abi, 1, &a);

	/* drawn from the input */
	for (int i = 0; i < 4 && in.n; i++) {
		mmart_gemm_args_init(&a);
		a.m = dim(&in);
		a.n = dim(&in);
		a.k = dim(&in);
		a.lda = ld_of(&in, abi.a.mn ? a.m : a.k);
		a.ldb = ld_of(&in, abi.b.mn ? a.n : a.k);
		a.ldd = ld_of(&in, a.n);
		a.ldc = ld_of(&in, a.n);
		a.a = addr_of(&in, A);
		a.b = addr_of(&in, B);
		a.c = addr_of(&in, C);
		a.d = addr_of(&in, D);
		a.sa = addr_of(&in, S);
		a.sb = addr_of(&in, S + 0x1000000);
		a.ldsa = a.ldsb = fuzz_byte(&in);
		unsigned b = fuzz_byte(&in);
		a.beta = b & 1 ? 0.0f : (float)(b >> 1) / 4;
		a.alpha = (float)fuzz_byte(&in) / 8;
		a.splits = fuzz_byte(&in) | (b & 0x80 ? fuzz_byte(&in) << 8 : 0);
		unsigned sm = fuzz_byte(&in);
		int sms = sm == 0xff ? -1 : sm == 0xfe ? 0x7fffffff : (int)sm;
		plan_one(&abi, sms, &a);
	}
	return 0;
}
