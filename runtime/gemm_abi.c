/* gemm_abi.c - the GEMM launcher's pure half: the ABI text parsed, and a
 * launch planned from it and the caller's arguments (grid, staging,
 * workspace, tensor-map shapes).  No driver calls: the unit tests and the
 * fuzzer run it on the CPU. */
#include "gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...) mmart_set_error(MMART_INVALID_ARGUMENT, __VA_ARGS__)

static const char *const role_names[GR_COUNT] = {
#define X(id, name, kind) name,
	MMART_GEMM_ROLES(X)
#undef X
};

static const enum gemm_kind role_kinds[GR_COUNT] = {
#define X(id, name, kind) kind,
	MMART_GEMM_ROLES(X)
#undef X
};

static int parse_operand(const char *rest, struct gemm_operand *o, int has_major)
{
	char major[8] = "";
	int n = has_major ? sscanf(rest, "%15s %u %7s", o->type, &o->bits, major)
			  : sscanf(rest, "%15s %u", o->type, &o->bits);
	if (n != (has_major ? 3 : 2) || (o->bits != 4 && o->bits != 6 && o->bits != 8 &&
					 o->bits != 16 && o->bits != 32))
		return -1;
	if (has_major && strcmp(major, "k") && strcmp(major, "mn"))
		return -1;
	o->mn = has_major && !strcmp(major, "mn");
	return 0;
}

static int parse_param(const char *rest, struct gemm_abi *a)
{
	static const char *const kinds[] = { "tmap", "u64", "u32", "f32" };
	char name[32], kind[8];
	int r = -1, k = -1;

	if (sscanf(rest, "%31s %7s", name, kind) != 2 || a->nparams == GEMM_ABI_MAX_PARAMS)
		return -1;
	for (int i = 0; i < GR_COUNT; i++)
		if (!strcmp(name, role_names[i]))
			r = i;
	for (int i = 0; i < 4; i++)
		if (!strcmp(kind, kinds[i]))
			k = i;
	if (r < 0 || k < 0 || role_kinds[r] != (enum gemm_kind)k)
		return -1;        /* (a kind the launcher would not pack right) */
	a->role[a->nparams] = (enum gemm_role)r;
	a->kind[a->nparams++] = (enum gemm_kind)k;
	return 0;
}

static int parse_rule(const char *rest, struct gemm_abi *a)
{
	static const struct { const char *name; size_t off; } rules[] = {
		{ "ab_align", offsetof(struct gemm_abi, ab_align) },
		{ "ab_pitch", offsetof(struct gemm_abi, ab_pitch) },
		{ "k_multiple", offsetof(struct gemm_abi, k_multiple) },
		{ "mn_multiple", offsetof(struct gemm_abi, mn_multiple) },
		{ "cd_align", offsetof(struct gemm_abi, cd_align) },
		{ "cd_ld", offsetof(struct gemm_abi, cd_ld) },
	};
	char name[32];
	unsigned v;

	if (sscanf(rest, "%31s %u", name, &v) != 2 || v < 1 || v > 4096 || (v & (v - 1)))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (!strcmp(name, rules[i].name)) {
			*(unsigned *)(void *)((char *)a + rules[i].off) = v;
			return 0;
		}
	return -1;
}

static int parse_line(const char *key, const char *rest, struct gemm_abi *a)
{
	char w[32];
	unsigned x, y;

	if (!strcmp(key, "kernel"))
		return sscanf(rest, "%63s", a->kernel) == 1 ? 0 : -1;
	if (!strcmp(key, "target"))
		return sscanf(rest, "%31s", a->target) == 1 ? 0 : -1;
	if (!strcmp(key, "path")) {
		if (sscanf(rest, "%31s", w) != 1)
			return -1;
		a->path = !strcmp(w, "wgmma") ? GP_WGMMA : !strcmp(w, "mma.sync") ? GP_MMA_SYNC
			: !strcmp(w, "sm120") ? GP_SM120 : (enum gemm_path)-1;
		return (int)a->path < 0 ? -1 : 0;
	}
	if (!strcmp(key, "a"))
		return parse_operand(rest, &a->a, 1);
	if (!strcmp(key, "b"))
		return parse_operand(rest, &a->b, 1);
	if (!strcmp(key, "out"))       /* C and D: whole bytes */
		return parse_operand(rest, &a->out, 0) || a->out.bits < 8 ? -1 : 0;
	if (!strcmp(key, "scales")) {
		/* sm_120a: type and K per scale; wgmma block scaling: type,
		 * A's and B's blocks (rows or columns x K) */
		int end = 0;
		if (sscanf(rest, "%15s %u", a->stype, &a->scale_block) == 2)
			return 0;
		if (sscanf(rest, "%15s a %ux%u b %ux%u %n", a->stype, &a->sblock_a[0], &a->sblock_a[1],
			   &a->sblock_b[0], &a->sblock_b[1], &end) != 5 || rest[end] ||
		    a->sblock_a[0] != 1 || !a->sblock_a[1] || !a->sblock_b[0] ||
		    a->sblock_b[1] != a->sblock_a[1] || strcmp(a->stype, "f32"))
			return -1;         /* (one K block for both, f32 scales) */
		return 0;
	}
	if (!strcmp(key, "block"))
		return sscanf(rest, "%u %u %u", &a->block[0], &a->block[1], &a->block[2]) == 3 ? 0 : -1;
	if (!strcmp(key, "cluster"))
		return sscanf(rest, "%u %u %u", &a->cluster[0], &a->cluster[1], &a->cluster[2]) == 3 ? 0 : -1;
	if (!strcmp(key, "smem"))
		return sscanf(rest, "%u", &a->smem) == 1 ? 0 : -1;
	if (!strcmp(key, "tile"))
		return sscanf(rest, "%u %u %u", &a->tile_m, &a->tile_n, &a->tile_k) == 3 ? 0 : -1;
	if (!strcmp(key, "grid")) {
		if (sscanf(rest, "%31s", w) != 1 || (strcmp(w, "persistent") && strcmp(w, "tiles")))
			return -1;
		a->persistent = !strcmp(w, "persistent");
		return 0;
	}
	if (!strcmp(key, "split")) {
		int n = sscanf(rest, "%31s %u", w, &x);
		if (n == 1 && !strcmp(w, "none")) {
			a->split = GS_NONE;
			return 0;
		}
		if (n != 2 || x > 65535)
			return -1;
		a->splits = x;
		a->split = !strcmp(w, "tail") ? GS_TAIL : !strcmp(w, "slots") ? GS_SLOTS
			 : !strcmp(w, "z") ? GS_Z : (enum gemm_split)-1;
		return (int)a->split < 0 || (a->split != GS_TAIL && x < 1) ? -1 : 0;
	}
	if (!strcmp(key, "workspace")) {
		unsigned long long s, c;
		if (sscanf(rest, "%llu %llu", &s, &c) != 2)
			return -1;
		a->ws_slot = s;
		a->ctr_per_tile = c;
		return 0;
	}
	if (!strcmp(key, "swizzle"))
		return sscanf(rest, "%u", &a->swizzle) == 1 ? 0 : -1;
	if (!strcmp(key, "tmap")) {
		if (sscanf(rest, "%31s %u %u", w, &x, &y) != 3 || !x || !y || x > 256 || y > 256)
			return -1;
		unsigned *box = !strcmp(w, "a") ? a->box_a : !strcmp(w, "b") ? a->box_b
			      : !strcmp(w, "d") ? a->box_d : NULL;
		if (!box)
			return -1;
		box[0] = x;
		box[1] = y;
		return 0;
	}
	if (!strcmp(key, "rule"))
		return parse_rule(rest, a);
	if (!strcmp(key, "param"))
		return parse_param(rest, a);
	return -1;
}

#define ABI_MAGIC "mmagen gemm abi 1"

mmart_status mmart_gemm_abi_parse(const char *text, struct gemm_abi *out)
{
	struct gemm_abi a;
	const char *p = text;
	int line = 0, ended = 0;

	memset(&a, 0, sizeof a);
	a.ab_align = a.ab_pitch = a.k_multiple = a.mn_multiple = a.cd_align = a.cd_ld = 1;
	a.path = GP_WGMMA;
	if (!text)
		return BAD("GEMM ABI: the text is NULL");
	if (strncmp(text, ABI_MAGIC "\n", sizeof ABI_MAGIC))
		return BAD("GEMM ABI: the text does not start with \"%s\" (write it with "
			   "`mmagen gemm --format abi` or take the _abi string of `--format c`)",
			   ABI_MAGIC);
	while (*p && !ended) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[256], key[32];
		int used = 0;

		line++;
		if (len >= sizeof buf)
			return BAD("GEMM ABI line %d: longer than %zu characters", line,
				   sizeof buf - 1);
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (line == 1)
			continue;
		if (sscanf(buf, "%31s%n", key, &used) != 1)
			return BAD("GEMM ABI line %d: empty", line);
		if (!strcmp(key, "end")) {
			ended = 1;
			break;
		}
		if (parse_line(key, buf + used, &a))
			return BAD("GEMM ABI line %d: \"%s\" is not a line this libmmart knows "
				   "(an ABI from a newer mmagen? regenerate it with this version's)",
				   line, buf);
	}
	if (!ended)
		return BAD("GEMM ABI: no \"end\" line (the text is cut short)");
	if (!a.kernel[0] || !a.a.bits || !a.b.bits || !a.out.bits || !a.block[0] ||
	    !a.tile_m || !a.tile_n || !a.tile_k || !a.nparams)
		return BAD("GEMM ABI: a kernel, a/b/out, block, tile and params lines are required");
	if (!a.cluster[0])
		a.cluster[0] = a.cluster[1] = a.cluster[2] = 1;
	if (a.path == GP_WGMMA && (!a.box_a[0] || !a.box_b[0] || a.swizzle != 128))
		return BAD("GEMM ABI: a wgmma kernel needs tmap a, tmap b and swizzle 128");
	if (a.split != GS_NONE && (a.split == GS_TAIL) != a.persistent)
		return BAD("GEMM ABI: split tail goes with grid persistent, split slots and z with "
			   "grid tiles");
	if ((a.split == GS_TAIL || a.split == GS_SLOTS) && !a.ws_slot)
		return BAD("GEMM ABI: a split-K kernel needs its workspace line");
	if (a.sblock_a[0] && a.path != GP_WGMMA)
		return BAD("GEMM ABI: scales by blocks (a RxK b RxK) are the wgmma kernel's");
	*out = a;
	return MMART_OK;
}

/* ---- planning a launch ---- */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t round_up(uint64_t a, uint64_t b)
{
	return ceil_div(a, b) * b;
}

/* Buffers stay below 2^62 bytes: no device has that much, and sums and
 * products of larger sizes would wrap. */
#define BYTES_MAX (1ull << 62)

/* *out = a * b * c: 0, or -1 past BYTES_MAX */
static int bytes_of(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	if ((b && a > BYTES_MAX / b) || (c && a * b > BYTES_MAX / c))
		return -1;
	*out = a * b * c;
	return 0;
}

/* Staging buffers start 256-byte aligned (the allocation is), back to
 * back: 0, or -1 past BYTES_MAX. */
static int take(uint64_t *top, uint64_t bytes, uint64_t *at)
{
	*at = round_up(*top, 256);
	if (bytes > BYTES_MAX || *at + bytes > BYTES_MAX)
		return -1;
	*top = *at + bytes;
	return 0;
}

/* A or B: stored `outer` lines of `inner` elements with leading dimension
 * ld; the kernel reads `inner_k` x `outer_k` (K padded). */
static mmart_status plan_ab(const struct gemm_abi *abi, char name, const struct gemm_operand *o,
			    uint64_t addr, uint64_t ld, uint64_t inner, uint64_t outer,
			    uint64_t inner_k, uint64_t outer_k, uint64_t *top, struct gemm_view *v)
{
	const char *dim = o->mn ? (name == 'A' ? "M" : "N") : "K";
	uint64_t eb = o->bits / 8;

	memset(v, 0, sizeof *v);
	if (!addr)
		return BAD("%c: the device address is 0", name);
	if (ld < inner)
		return BAD("ld%c = %llu is less than %s = %llu (%c is stored %s-major); use ld%c = %llu",
			   name + 32, (unsigned long long)ld, dim, (unsigned long long)inner, name,
			   dim, name + 32, (unsigned long long)inner);
	if (ld > 0xffffffffu)
		return BAD("ld%c = %llu: leading dimensions are below 2^32", name + 32,
			   (unsigned long long)ld);
	v->addr = addr;
	v->ld = ld;
	if (o->bits < 8) {
		/* packed sub-byte elements: no staging, the rules as they are */
		uint64_t pitch = ld * o->bits / 8;
		if (ld * o->bits % 8 || pitch % abi->ab_pitch || addr % abi->ab_align ||
		    inner_k != inner || outer_k != outer)
			return BAD("%c: %s elements are read as they are stored: base %u-byte aligned, "
				   "ld%c a multiple of %llu and K a multiple of %u (got ld%c = %llu, K = %llu)",
				   name, o->type, abi->ab_align, name + 32,
				   (unsigned long long)(abi->ab_pitch * 8 / o->bits), abi->k_multiple,
				   name + 32, (unsigned long long)ld,
				   (unsigned long long)(o->mn ? outer : inner));
		return MMART_OK;
	}
	if (addr % abi->ab_align == 0 && ld * eb % abi->ab_pitch == 0 && inner_k == inner &&
	    outer_k == outer)
		return MMART_OK;
	/* staged: an aligned copy, zero where K was padded */
	v->staged = 1;
	/* zeros where the kernel reads past the caller's data: K padded,
	 * or an MN-major row's last 16-byte chunk */
	v->zero = inner_k != inner || outer_k != outer || o->mn;
	v->src = addr;
	v->src_pitch = ld * eb;
	v->width = inner * eb;
	v->height = outer;
	v->pitch = round_up(inner_k * eb, abi->ab_pitch > 16 ? abi->ab_pitch : 16);
	v->bytes = v->pitch * outer_k;
	if (take(top, v->bytes, &v->addr))
		return BAD("%c: its staged copy (%llu bytes) passes 2^62 bytes of staging; pass a "
			   "base and ld%c the kernel reads as they are", name,
			   (unsigned long long)v->bytes, name + 32);
	v->ld = v->pitch / eb;
	return MMART_OK;
}

/* C or D: M rows of N elements, ld >= N; aligned to pairs or staged. */
static mmart_status plan_cd(const struct gemm_abi *abi, char name, uint64_t addr, uint64_t ld,
			    uint32_t m, uint32_t n, uint64_t *top, struct gemm_view *v)
{
	uint64_t eb = abi->out.bits / 8;

	memset(v, 0, sizeof *v);
	if (!addr)
		return BAD("%c: the device address is 0%s", name,
			   name == 'C' ? " (C is read when beta != 0)" : "");
	if (ld < n)
		return BAD("ld%c = %llu is less than N = %u; use ld%c = %u", name + 32,
			   (unsigned long long)ld, n, name + 32, n);
	if (ld > 0xffffffffu)
		return BAD("ld%c = %llu: leading dimensions are below 2^32", name + 32,
			   (unsigned long long)ld);
	v->addr = addr;
	v->ld = ld;
	if (addr % abi->cd_align == 0 && ld % abi->cd_ld == 0)
		return MMART_OK;
	v->staged = 1;
	v->src = addr;
	v->src_pitch = ld * eb;
	v->width = (uint64_t)n * eb;
	v->height = m;
	v->pitch = round_up((uint64_t)n * eb, 16);
	v->bytes = v->pitch * m;
	if (take(top, v->bytes, &v->addr))
		return BAD("%c: its staged copy (%llu bytes) passes 2^62 bytes of staging; pass a "
			   "base and ld%c the kernel reads as they are", name,
			   (unsigned long long)v->bytes, name + 32);
	v->ld = v->pitch / eb;
	return MMART_OK;
}

/* wgmma block scaling (MMAGEN_QF_FP8_BLOCK): f32 scales in the caller's
 * device memory (never read here), (row m, K block kb) of A at sa + 4
 * (m sa_sm + kb sa_sk), (N block nb, kb) of B at sb + 4 (nb sb_sn + kb
 * sb_sk).  A pair of strides both 0 is the dense row-major layout
 * ([M][KB] and [NB][KB]: KB, 1); the kernel computes indices in 32 bits,
 * so the largest must stay below 2^32. */
static mmart_status plan_block_scales(const struct gemm_abi *abi, const mmart_gemm_args *args,
				      struct gemm_launch *l)
{
	uint64_t kb = ceil_div(args->k, abi->sblock_a[1]), nb = ceil_div(args->n, abi->sblock_b[0]);
	const uint64_t rows[2] = { ceil_div(args->m, abi->sblock_a[0]), nb };
	const uint64_t base[2] = { args->sa, args->sb };
	uint64_t st[2][2] = { { args->sa_sm, args->sa_sk }, { args->sb_sn, args->sb_sk } };
	static const char *const names[2][2] = { { "sa_sm", "sa_sk" }, { "sb_sn", "sb_sk" } };
	for (int i = 0; i < 2; i++) {
		const char *sn = i ? "sb" : "sa", *rn = i ? "NB" : "M";
		if (!base[i])
			return BAD("%s = 0: this kernel is block-scaled (f32 scales of %s); pass the device address of %s's scales",
				   sn, i ? "128 x 128 blocks of B" : "A's rows per 128 of K", i ? "B" : "A");
		if (base[i] % 4)
			return BAD("%s = 0x%llx: the scales are f32, 4-byte aligned; pass an aligned address",
				   sn, (unsigned long long)base[i]);
		if (!st[i][0] && !st[i][1])     /* dense, row-major */
			st[i][0] = kb, st[i][1] = 1;
		for (int j = 0; j < 2; j++)
			if (st[i][j] > 0xffffffffu)
				return BAD("%s = %llu: scale strides are u32 elements, below 2^32",
					   names[i][j], (unsigned long long)st[i][j]);
		/* below 2^31 x 2^32 + 2^31 x 2^32: no wrap in 64 bits */
		uint64_t top = (rows[i] - 1) * st[i][0] + (kb - 1) * st[i][1];
		if (top > 0xffffffffu)
			return BAD("%s = %llu, %s = %llu: the last scale's index (%s - 1) * %s + (KB - 1) * %s = %llu passes 2^32 - 1 (KB = %llu; the kernel indexes scales in 32 bits); pass strides whose last index is below 2^32",
				   names[i][0], (unsigned long long)st[i][0], names[i][1],
				   (unsigned long long)st[i][1], rn, names[i][0], names[i][1],
				   (unsigned long long)top, (unsigned long long)kb);
	}
	l->sa_sm = (uint32_t)st[0][0];
	l->sa_sk = (uint32_t)st[0][1];
	l->sb_sn = (uint32_t)st[1][0];
	l->sb_sk = (uint32_t)st[1][1];
	return MMART_OK;
}

mmart_status mmart_gemm_plan(const struct gemm_abi *abi, int sms, const mmart_gemm_args *args,
			     struct gemm_launch *out)
{
	struct gemm_launch l;
	mmart_status s;
	uint64_t top = 0;
	const uint32_t dims[3] = { args->m, args->n, args->k };

	memset(&l, 0, sizeof l);
	for (int i = 0; i < 3; i++)
		if (dims[i] < 1 || dims[i] > 0x7fffffffu)
			return BAD("%c = %u: M, N and K are 1 to 2^31-1", "MNK"[i], dims[i]);
	if (abi->path == GP_SM120 && abi->scale_block && (!args->sa || !args->sb))
		return BAD("this kernel is block-scaled: pass the scales sa and sb (and ldsa, ldsb)");
	if (abi->path == GP_SM120 && abi->scale_block) {
		/* a scale byte per scale_block elements of K; the kernel copies
		 * spb bytes a row per K block: rows of at least ceil(K/block)
		 * bytes, a multiple of spb (0: that, dense) */
		uint64_t need = ceil_div(args->k, abi->scale_block);
		uint64_t spb = abi->tile_k / abi->scale_block ? abi->tile_k / abi->scale_block : 1;
		uint64_t dense = round_up(need, spb);
		const uint64_t ld[2] = { args->ldsa ? args->ldsa : dense, args->ldsb ? args->ldsb : dense };
		const uint64_t base[2] = { args->sa, args->sb };
		for (int i = 0; i < 2; i++) {
			const char *nm = i ? "ldsb" : "ldsa";
			if (ld[i] < need || ld[i] % spb || ld[i] > 0xffffffffu)
				return BAD("%s = %llu: scale rows are at least ceil(K / %u) = %llu bytes, a multiple of %llu, below 2^32; use %s = %llu",
					   nm, (unsigned long long)ld[i], abi->scale_block,
					   (unsigned long long)need, (unsigned long long)spb, nm,
					   (unsigned long long)dense);
			if (base[i] % 16)
				return BAD("%s: the scales' base is not 16-byte aligned (the kernel copies 16-byte chunks)",
					   i ? "sb" : "sa");
		}
		l.ldsa = (uint32_t)ld[0];
		l.ldsb = (uint32_t)ld[1];
	}
	if (abi->sblock_a[0] && (s = plan_block_scales(abi, args, &l)))
		return s;
	l.m = args->m;
	l.n = args->n;
	/* K padded to the kernel's multiple where a K-major operand needs it */
	uint64_t k = args->k;
	if (!abi->a.mn || !abi->b.mn)
		k = round_up(k, abi->k_multiple);
	if (k > 0x7fffffffu)
		return BAD("K = %u padded to %llu passes 2^31-1", args->k, (unsigned long long)k);
	l.k = (uint32_t)k;
	uint64_t lda = args->lda ? args->lda : abi->a.mn ? args->m : args->k;
	uint64_t ldb = args->ldb ? args->ldb : abi->b.mn ? args->n : args->k;
	if (abi->a.mn)
		s = plan_ab(abi, 'A', &abi->a, args->a, lda, args->m, args->k, args->m, l.k, &top, &l.a);
	else
		s = plan_ab(abi, 'A', &abi->a, args->a, lda, args->k, args->m, l.k, args->m, &top, &l.a);
	if (s)
		return s;
	if (abi->b.mn)
		s = plan_ab(abi, 'B', &abi->b, args->b, ldb, args->n, args->k, args->n, l.k, &top, &l.b);
	else
		s = plan_ab(abi, 'B', &abi->b, args->b, ldb, args->k, args->n, l.k, args->n, &top, &l.b);
	if (s)
		return s;
	if (abi->path == GP_SM120 && (l.a.staged || l.b.staged))
		return BAD("the sm_120a kernel reads A and B as stored: bases 16-byte aligned, "
			   "lda and ldb multiples of 16 bytes, K a multiple of %u", abi->k_multiple);
	uint64_t ldd = args->ldd ? args->ldd : args->n;
	uint64_t ldc = args->ldc ? args->ldc : args->n;
	if ((s = plan_cd(abi, 'D', args->d, ldd, args->m, args->n, &top, &l.d)))
		return s;
	if (args->beta != 0) {
		if ((s = plan_cd(abi, 'C', args->c, ldc, args->m, args->n, &top, &l.c)))
			return s;
	} else {
		l.c = l.d;              /* not read (and not copied: beta is 0) */
	}
	l.d_back = l.d.staged;
	l.stage_bytes = top;
	/* the grid */
	uint64_t cl = abi->cluster[0] ? abi->cluster[0] : 1;
	uint64_t rows = ceil_div(args->m, abi->tile_m), cols = ceil_div(args->n, abi->tile_n);
	l.grid[1] = l.grid[2] = 1;
	l.splits = 1;
	if (abi->persistent) {
		uint64_t units = ceil_div(rows, cl) * cols;
		uint64_t most = sms > 0 ? (uint64_t)sms / cl : units;
		if (abi->split == GS_TAIL) {
			uint64_t S = abi->splits ? abi->splits : args->splits ? args->splits : 1;
			uint64_t kb = ceil_div(l.k, abi->tile_k);
			if (S > 256)
				return BAD("splits = %llu: at most 256 K slices; use 256 or fewer",
					   (unsigned long long)S);
			l.splits = (uint32_t)S;
			units *= S < kb ? S : kb;
		}
		if (most < 1)
			most = 1;
		uint64_t g = (units < most ? units : most) * cl;
		if (g > 0x7fffffffu)
			return BAD("the grid of %llu CTAs is too large; use a larger tile",
				   (unsigned long long)g);
		l.grid[0] = (unsigned)g;
		if (abi->split == GS_TAIL) {
			uint64_t T = ceil_div(rows, cl) * cols, G = l.grid[0] / cl;
			uint64_t tiles = (T - T / G * G) * cl;
			if (bytes_of(tiles, l.splits, abi->ws_slot, &l.ws_bytes) ||
			    bytes_of(tiles, 1, abi->ctr_per_tile, &l.ctr_bytes))
				return BAD("the split-K buffers of %llu tiles x %u K slices pass 2^62 "
					   "bytes; use fewer slices", (unsigned long long)tiles, l.splits);
		}
	} else {
		uint64_t tiles = rows * cols;
		if (tiles > 0x7fffffffu)
			return BAD("%llu tiles do not fit a grid; use a larger tile",
				   (unsigned long long)tiles);
		l.grid[0] = (unsigned)tiles;
		if (abi->split != GS_NONE) {
			l.splits = abi->splits;
			l.grid[2] = abi->splits;
		}
		if (abi->split == GS_SLOTS) {
			if (tiles * abi->splits >= (1ull << 32))
				return BAD("%llu tiles x %u K slices reach 2^32 workspace slots; use a larger tile or fewer slices",
					   (unsigned long long)tiles, abi->splits);
			if (bytes_of(tiles, abi->splits, abi->ws_slot, &l.ws_bytes) ||
			    bytes_of(tiles, 1, abi->ctr_per_tile, &l.ctr_bytes))
				return BAD("the split-K buffers of %llu tiles x %u K slices pass 2^62 "
					   "bytes; use a larger tile or fewer slices",
					   (unsigned long long)tiles, abi->splits);
		}
	}
	/* tensor maps: dims innermost first */
	uint64_t eba = abi->a.bits / 8, ebb = abi->b.bits / 8, ebd = abi->out.bits / 8;
	l.dims_a[0] = abi->a.mn ? args->m : l.k;
	l.dims_a[1] = abi->a.mn ? l.k : args->m;
	l.dims_b[0] = abi->b.mn ? args->n : l.k;
	l.dims_b[1] = abi->b.mn ? l.k : args->n;
	l.pitch_a = l.a.ld * eba;
	l.pitch_b = l.b.ld * ebb;
	l.dims_d[0] = args->n;
	l.dims_d[1] = args->m;
	l.pitch_d = l.d.ld * ebd;
	/* staged addresses are offsets from a 256-byte aligned buffer */
	/* D through its tensor map only where rows are whole 16-byte units:
	 * with N * size not a multiple of 16 (ldd > N) the kernel's TMA
	 * epilogue was seen writing column N (e4m3 x e5m2 -> f32, 33 x 99,
	 * ldd 100, on the H200); such rows go out through d and ldd */
	l.d_tma = abi->box_d[0] && l.d.addr % 16 == 0 && l.pitch_d % 16 == 0 &&
		  (uint64_t)args->n * ebd % 16 == 0;
	*out = l;
	return MMART_OK;
}
