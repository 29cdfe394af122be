/* cli_opts.c - the option table of mmagen, the value parsers it names, and
 * the command table (cli_cmds.def): everything the parser, the help and
 * docs/cli.md know about the command line comes from here. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void opts_init(struct opts *o)
{
	memset(o, 0, sizeof *o);
	mmagen_request_init(&o->req);
	mmagen_tile_opts_init(&o->tile);
	o->format = MMAGEN_FMT_PTX;
	o->type = MMAGEN_ANY;
	o->run.device = -1;
	o->run.tile = &o->tile;
	o->run.seed = (uint64_t)time(NULL);
	run_gemm_opts_init(&o->rg);
}

/* ---- value parsers (cli_fn): 0, or an exit status after one line ---- */

#define OPTS(dst) ((struct opts *)(dst))
#define AT(dst, opt, type) ((type *)((char *)(dst) + (opt)->off))

static int set_arch(const struct cli_opt *opt, const char *v, void *dst)
{
	(void)opt;
	if (mmagen_target_parse(v, &OPTS(dst)->req.target))
		return cli_lib_fail(CLI_USAGE, NULL);
	OPTS(dst)->arch = v;
	return 0;
}

static int set_type(const struct cli_opt *opt, const char *v, void *dst)
{
	mmagen_type t;
	if (mmagen_type_parse(v, &t))
		return cli_lib_fail(CLI_USAGE, opt->name);
	*AT(dst, opt, unsigned) = t;
	return 0;
}

/* A selector field (the option's name is its facet): the library reads
 * it, as it does for every binding, so that the spellings, aliases and
 * messages cannot drift apart. */
static int set_facet(const struct cli_opt *opt, const char *v, void *dst)
{
	if (mmagen_request_set(&OPTS(dst)->req, opt->name + 2, v))
		return cli_lib_fail(CLI_USAGE, NULL);
	return 0;
}

/* A decimal number of at most `max`, digits only (no sign, no space). */
static int number(const char *v, unsigned long max, unsigned long *out)
{
	unsigned long x = 0;
	if (!isdigit((unsigned char)*v))
		return -1;
	for (; isdigit((unsigned char)*v); v++)
		if ((x = x * 10 + (unsigned long)(*v - '0')) > max)
			return -1;
	*out = x;
	return *v ? -1 : 0;
}

static int set_scale_d(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned yes;
	int rc = cli_pick(opt->name, v, opt->vals, &yes);
	OPTS(dst)->tile.scale_d = (int)yes;
	return rc;
}

/* tcgen05's --m and --n */
static int set_mn(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (number(v, 256, &x) || !x)
		return cli_fail(CLI_USAGE, "bad %s %s; give a number such as 128",
				opt->name, cli_quote(v));
	*AT(dst, opt, unsigned) = (unsigned)x;
	return 0;
}

static int set_seed(const struct cli_opt *opt, const char *v, void *dst)
{
	char *end;
	(void)opt;
	/* decimal, or hexadecimal after 0x; never octal ("010" is ten) */
	int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	errno = 0;
	OPTS(dst)->run.seed = strtoull(v + 2 * hex, &end, hex ? 16 : 10);
	if (!isxdigit((unsigned char)v[2 * hex]) || (!hex && !isdigit((unsigned char)*v)) ||
	    *end || errno)
		return cli_fail(CLI_USAGE, "bad --seed %s; give a non-negative integer "
				"below 2^64", cli_quote(v));
	return 0;
}

static int set_device(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long d;
	(void)opt;
	if (number(v, 1024, &d))
		return cli_fail(CLI_USAGE, "bad --device %s; give a device index such as 0",
				cli_quote(v));
	OPTS(dst)->run.device = (int)d;
	return 0;
}

static int set_inputs(const struct cli_opt *opt, const char *v, void *dst)
{
	static const char *const edge[] = { NULL, "max", "subnormal", "special",
					    "overflow" };
	unsigned e;
	int rc = cli_pick(opt->name, v, opt->vals, &e);
	if (!rc)
		OPTS(dst)->run.edge = edge[e];
	return rc;
}

/* --tile MxN or MxNxK: the block tile, two or three plain numbers from 1
 * to 1024 (the generator judges them; MxN leaves K to it) */
static int set_tile(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long d[3] = { 0, 0, 0 };
	unsigned n = 0;
	char s[8];

	for (const char *p = v; n < 3; n++) {
		const char *x = strchr(p, 'x');
		size_t len = x ? (size_t)(x - p) : strlen(p);
		if (len >= sizeof s)
			break;
		memcpy(s, p, len);
		s[len] = '\0';
		if (number(s, 1024, &d[n]) || !d[n])
			break;
		if (!x) {
			if (n == 0)
				break;
			OPTS(dst)->gemm.tile_m = (unsigned)d[0];
			OPTS(dst)->gemm.tile_n = (unsigned)d[1];
			OPTS(dst)->gemm.tile_k = (unsigned)d[2];
			return 0;
		}
		p = x + 1;
	}
	return cli_fail(CLI_USAGE, "bad %s %s; give MxN or MxNxK such as 128x256 or 128x256x64",
			opt->name, cli_quote(v));
}

/* a small positive number: --stages, --cluster, --group */
static int set_count(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (number(v, 1u << 20, &x) || !x)     /* the generator checks the range */
		return cli_fail(CLI_USAGE, "bad %s %s; give %s", opt->name, cli_quote(v),
				opt->legal ? opt->legal : "a number such as 4");
	*AT(dst, opt, unsigned) = (unsigned)x;
	return 0;
}

/* --split-k: 1 .. 256 K slices, or auto (the wgmma path's split-K
 * kernel with S chosen at run time) */
static int set_split(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (!strcmp(v, "auto")) {
		*AT(dst, opt, unsigned) = MMAGEN_GEMM_SPLIT_AUTO;
		return 0;
	}
	if (number(v, 256, &x) || !x)
		return cli_fail(CLI_USAGE, "bad %s %s; give 1 to 256 K slices, or auto", opt->name,
				cli_quote(v));
	*AT(dst, opt, unsigned) = (unsigned)x;
	return 0;
}

/* gemm's --sms: 1 .. 1024 multiprocessors */
static int set_sms(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (number(v, 1024, &x) || !x)
		return cli_fail(CLI_USAGE, "bad %s %s; give 1 to 1024 multiprocessors, such as 132",
				opt->name, cli_quote(v));
	*AT(dst, opt, unsigned) = (unsigned)x;
	return 0;
}

/* gemm's --problem MxNxK: the problem mmagen_gemm_choose picks for */
static int set_problem(const struct cli_opt *opt, const char *v, void *dst)
{
	uint32_t *d = AT(dst, opt, uint32_t);
	const char *s = v;
	for (int i = 0; i < 3; i++) {
		char part[16];
		size_t n = strcspn(s, "x");
		unsigned long x;
		if (n == 0 || n >= sizeof part || (i < 2 && s[n] != 'x') || (i == 2 && s[n]))
			goto bad;
		memcpy(part, s, n);
		part[n] = '\0';
		if (number(part, 0x7fffffffUL, &x) || !x)
			goto bad;
		d[i] = (uint32_t)x;
		s += n + (i < 2);
	}
	return 0;
bad:
	return cli_fail(CLI_USAGE, "bad %s %s; give MxNxK, each 1 to 2^31-1, such as 16x4096x4096",
			opt->name, cli_quote(v));
}

/* gemm's --quant: a block-scaled format (mmagen_qformat); fp8-block also
 * by the names quantization configs give it */
static int set_qformat(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned q;
	if (!strcasecmp(v, "w8a8-fp8-block") || !strcasecmp(v, "deepseek-fp8"))
		v = "fp8-block";
	if (mmagen_qformat_parse(v, &q))
		return cli_fail(CLI_USAGE, "bad %s %s; legal: mxfp8, mxfp6, mxfp4, nvfp4 (sm_120a), fp8-block (sm_90a; also w8a8-fp8-block, deepseek-fp8)",
				opt->name, cli_quote(v));
	*AT(dst, opt, unsigned) = q;
	return 0;
}

/* run gemm's --m, --n, --k: 1 .. 2^31-1 */
static int set_dim(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (number(v, 0x7fffffffUL, &x) || !x)
		return cli_fail(CLI_USAGE, "bad %s %s; give a size from 1 to 2^31-1 such as 4096",
				opt->name, cli_quote(v));
	*AT(dst, opt, uint32_t) = (uint32_t)x;
	return 0;
}

/* --alpha, --beta: a finite number; the kernel takes it as f32 */
static int set_scalar(const struct cli_opt *opt, const char *v, void *dst)
{
	char *end;
	errno = 0;
	/* decimal only, as the integer options: no blanks, no hex */
	int plain = *v && !isspace((unsigned char)*v) && !strpbrk(v, "xX");
	double x = plain ? strtod(v, &end) : 0;
	if (!plain || end == v || *end || !isfinite(x) || fabs(x) > FLT_MAX ||
	    (errno && errno != ERANGE))
		return cli_fail(CLI_USAGE, "bad %s %s; give a finite f32 number such as 1.5",
				opt->name, cli_quote(v));
	/* below f32's smallest subnormal (1.4e-45) it would be 0 */
	if (x != 0 ? (float)x == 0 : errno == ERANGE)
		return cli_fail(CLI_USAGE, "%s %s is below the smallest f32 (1.4e-45); give 0 or a larger value",
				opt->name, cli_quote(v));
	*AT(dst, opt, float) = (float)x;
	return 0;
}

static int set_reps(const struct cli_opt *opt, const char *v, void *dst)
{
	unsigned long x;
	if (number(v, 100000, &x) || !x)
		return cli_fail(CLI_USAGE, "bad %s %s; give 1 to 100000 timed launches such as 30",
				opt->name, cli_quote(v));
	*AT(dst, opt, unsigned) = (unsigned)x;
	return 0;
}

/* ---- value tables of options that only the command line has ---- */

static const struct cli_value swizzle_vals[] = {
	{ "none", 0, 0 }, { "32", 32, 0 }, { "64", 64, 0 }, { "128", 128, 0 },
	{ "0", 0, 1 }, { NULL, 0, 0 } };
static const struct cli_value major_vals[] = {
	{ "k", 0, 0 }, { "mn", 1, 0 }, { NULL, 0, 0 } };
static const struct cli_value inputs_vals[] = {
	{ "random", 0, 0 }, { "max", 1, 0 }, { "subnormal", 2, 0 },
	{ "special", 3, 0 }, { "overflow", 4, 0 }, { NULL, 0, 0 } };
static const struct cli_value instr_fmt_vals[] = {
	{ "ptx", MMAGEN_FMT_PTX, 0 }, { "cuda", MMAGEN_FMT_CUDA, 0 },
	{ "text", MMAGEN_FMT_TEXT, 0 }, { NULL, 0, 0 } };
static const struct cli_value gemm_layout_vals[] = {
	{ "tn", MMAGEN_GEMM_TN, 0 }, { "nn", MMAGEN_GEMM_NN, 0 },
	{ "nt", MMAGEN_GEMM_NT, 0 }, { "tt", MMAGEN_GEMM_TT, 0 }, { NULL, 0, 0 } };
static const struct cli_value gemm_path_vals[] = {
	{ "wgmma", MMAGEN_GEMM_PATH_WGMMA, 0 }, { "mma.sync", MMAGEN_GEMM_PATH_MMA_SYNC, 0 },
	{ NULL, 0, 0 } };
static const struct cli_value scale_layout_vals[] = {
	{ "row", RG_SCALES_ROW, 0 }, { "col", RG_SCALES_COL, 0 }, { NULL, 0, 0 } };
static const struct cli_value gemm_sched_vals[] = {
	{ "cooperative", MMAGEN_GEMM_SCHED_COOP, 0 }, { "pingpong", MMAGEN_GEMM_SCHED_PINGPONG, 0 },
	{ NULL, 0, 0 } };
static const struct cli_value tile_fmt_vals[] = {
	{ "ptx", MMAGEN_FMT_PTX, 0 }, { "json", MMAGEN_FMT_JSON, 0 },
	{ NULL, 0, 0 } };
static const struct cli_value gemm_fmt_vals[] = {
	{ "ptx", MMAGEN_FMT_PTX, 0 }, { "json", MMAGEN_FMT_JSON, 0 },
	{ "c", MMAGEN_FMT_CUDA, 0 }, { "abi", MMAGEN_FMT_ABI, 0 }, { NULL, 0, 0 } };

/* ---- the option table ----
 * Row macros: FLAG (no argument), STR (the argument as given), NAMED (one
 * of a value table), FN (a parser above; vals, if any, name its values),
 * FACET (a selector field: FN with the library's parser).
 * Columns: name, [metavar,] commands, destination, [values,] help.  Rows
 * of one group are together; help and docs print them in this order. */

#define C(id) (1u << CMD_##id)
#define ALL ((1u << NCMDS) - 1)
#define EMIT (C(EMIT_INSTR) | C(EMIT_TILE))
#define TILE (C(EMIT_TILE) | C(RUN_TILE) | C(BENCH_LOAD))
#define SEL (C(LIST) | EMIT | TILE | C(BENCH_INSTR))
#define QUANT (C(QUANTIZE) | C(DEQUANTIZE))
#define DOC (C(DOC_SIGNATURES) | C(DOC_CLI) | C(DOC_COMPLETION))
#define GEMM (C(GEMM) | C(RUN_GEMM))   /* the generator's request */
#define RG C(RUN_GEMM)

#define AT_(field) offsetof(struct opts, field)
#define FLAG(nm, cm, grp, field, h) \
	{ .name = nm, .cmds = cm, .group = grp, .kind = CLI_FLAG, .off = AT_(field), .help = h }
#define STR(nm, al, mv, cm, grp, field, h) { .name = nm, .alias = al, .arg = mv, \
	.cmds = cm, .group = grp, .kind = CLI_STR, .off = AT_(field), .help = h }
#define NAMED(nm, cm, grp, field, v, h) { .name = nm, .cmds = cm, .group = grp, \
	.kind = CLI_NAMED, .off = AT_(field), .vals = v, .help = h }
#define FN(nm, mv, cm, grp, f, field, v, h) { .name = nm, .arg = mv, .cmds = cm, \
	.group = grp, .kind = CLI_FN, .fn = f, .off = AT_(field), .vals = v, .help = h }

/* a selector field, read by mmagen_request_set under the option's name
 * (vals, if any, name its values for help and completion) */
#define FACET(nm, mv, cm, v, h) FN(nm, mv, cm, "Selector", set_facet, req, v, h)

/* a positive count, and the values to suggest when it is malformed */
#define COUNT(nm, mv, cm, grp, field, legal_, h) { .name = nm, .arg = mv, .cmds = cm, \
	.group = grp, .kind = CLI_FN, .fn = set_count, .off = AT_(field), .legal = legal_, \
	.help = h }

#define TYPES "f64 f32 tf32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 s32 s8 u8 s4 u4 b1, " \
	"or an alias (fp16, half, bfloat16, float8_e4m3fn, int8, uint4, ...)"

static const struct cli_opt options[] = {
	FN("--arch", "A", SEL | GEMM, "Selector", set_arch, arch, NULL,
	   "the target: sm_80, sm_90a, sm_100a, ... (`list --targets`); emit needs it, "
	   "run and bench default to the GPU's own, list shows only the forms that "
	   "assemble on A"),
	STR("--opcode", NULL, "STRING", SEL, "Selector", req.opcode,
	    "a complete opcode as `list --opcodes` prints it; fields given with it must agree"),
	FACET("--family", "F", SEL, NULL,
	      "mma (alias mma.sync: dense), mma.sp, mma.sp::ordered_metadata, wgmma, "
	      "wgmma.sp, tcgen05 (alias tcgen05.mma), tcgen05.sp (alias tcgen05.mma.sp), "
	      "ldmatrix, stmatrix"),
	FACET("--shape", "SHAPE", SEL, NULL,
	      "MxNxK written m16n8k16; ldmatrix/stmatrix m8n8; tcgen05 k16 (its M and N "
	      "are --m and --n)"),
	FACET("--a", "T", SEL | GEMM, NULL, "A's element type: " TYPES),
	FACET("--b", "T", SEL | GEMM, NULL, "B's element type (as --a)"),
	FACET("--c", "T", SEL, NULL, "C's element type (as --a)"),
	FACET("--d", "T", SEL, NULL, "D's element type (as --a)"),
	FACET("--sparse", NULL, SEL, cli_sparse_vals,
	      "dense, 2:4 sparse (.sp), or .sp::ordered_metadata"),
	FACET("--layout", "row.col|row.row|col.row|col.col", SEL, NULL,
	      "A's and B's layout (mma.sync)"),
	FACET("--satfinite", NULL, SEL, cli_yesno_vals,
	      "the .satfinite qualifier"),
	FACET("--popc", NULL, SEL, cli_popc_vals,
	      "the b1 operation: xor.popc or and.popc"),
	FACET("--kind", NULL, SEL | GEMM, cli_kind_vals,
	      "the kind, with or without `kind::` (tcgen05, SM120 mma.sync; gemm on sm_120a: "
	      "mxf4nvf4 or mxf8f6f4 instead of mxf4 for e2m1 x e2m1 mxfp4)"),
	FACET("--block-scale", NULL, SEL, cli_yesno_vals,
	      "the .block_scale qualifier (block-scaled kinds)"),
	FACET("--scale-vec", NULL, SEL, cli_scale_vec_vals,
	      "block_scale's scale_vec (scale factors per row of A)"),
	FACET("--stype", NULL, SEL, cli_stype_vals,
	      "the scale factors' type (none: not block-scaled)"),
	FACET("--cta-group", NULL, SEL, cli_cta_vals,
	      "tcgen05's cta_group (2: a pair of CTAs)"),
	FACET("--ws", NULL, SEL, cli_yesno_vals,
	      "tcgen05.mma.ws (weight-stationary)"),
	FACET("--ashift", NULL, SEL, cli_yesno_vals,
	      "tcgen05.mma .ashift (A in Tensor Memory, shifted down a row)"),
	FACET("--asrc", NULL, SEL, cli_asrc_vals,
	      "where A comes from (wgmma: registers or shared memory; tcgen05: "
	      "shared or Tensor Memory)"),
	FACET("--rnd", NULL, SEL, cli_rnd_vals,
	      "the rounding of f64 mma.sync"),
	FACET("--num", NULL, SEL, cli_num_vals,
	      "ldmatrix/stmatrix: how many 8x8 matrices"),
	FACET("--trans", NULL, SEL, cli_yesno_vals,
	      "ldmatrix/stmatrix: .trans"),
	FACET("--ldtype", NULL, SEL, cli_ldtype_vals,
	      "ldmatrix/stmatrix: the element shape"),

	FN("--type", "T", C(LIST), "List", set_type, type, NULL,
	   "only forms with T as A, B, C, D or scale type"),
	FLAG("--json", C(LIST), "List", json, "print a JSON array of objects"),
	FLAG("--opcodes", C(LIST), "List", opcodes,
	     "print every distinct complete opcode, sorted, one per line"),
	FLAG("--targets", C(LIST), "List", targets,
	     "print the targets and the lowest .version each accepts"),

	NAMED("--swizzle", TILE, "Tile", tile.swizzle, swizzle_vals,
	      "the wgmma/tcgen05 shared-memory layout (default 128)"),
	NAMED("--major-a", TILE, "Tile", tile.major_a, major_vals,
	      "A K-major (default) or MN-major: transposed via imm-trans, f16/bf16 wgmma only"),
	NAMED("--major-b", TILE, "Tile", tile.major_b, major_vals, "B's major (as --major-a)"),
	FLAG("--neg-a", TILE, "Tile", tile.neg_a, "negate A (wgmma imm-scale-a = -1)"),
	FLAG("--neg-b", TILE, "Tile", tile.neg_b, "negate B (wgmma imm-scale-b = -1)"),
	FN("--scale-d", NULL, TILE, "Tile", set_scale_d, tile.scale_d, cli_yesno_vals,
	   "no: D = A*B, without C"),
	FN("--m", "M", TILE, "Tile", set_mn, tile.m, NULL,
	   "tcgen05's M, in the instruction descriptor (default 128; cta_group::2: 256)"),
	FN("--n", "N", TILE, "Tile", set_mn, tile.n, NULL,
	   "tcgen05's N, in the instruction descriptor (default 64; cta_group::2: 128)"),

	FLAG("--all", C(RUN_TILE) | C(EMIT_INSTR), "Run", all,
	     "every form of the target that the selector fields match (run tile: and a pass table; "
	     "emit instr: one CUDA header)"),
	FLAG("--sample-n", C(RUN_TILE), "Run", sample_n,
	     "with --all: for wgmma only the smallest N, 128 and the largest"),
	FN("--seed", "N", C(RUN_TILE) | RG, "Run", set_seed, run.seed, NULL,
	   "the random inputs' seed (default: the clock; printed)"),
	FN("--inputs", NULL, C(RUN_TILE), "Run", set_inputs, run.edge, inputs_vals,
	   "random (default) or an edge-case input set"),
	FN("--device", "D", C(RUN_TILE) | C(BENCH_LOAD) | C(BENCH_INSTR) | RG, "Run", set_device,
	   run.device, NULL, "the CUDA device index (default: $MMAGEN_DEVICE or 0)"),
	FN("--reps", "R", C(BENCH_INSTR), "Run", set_reps, run.reps, NULL,
	   "timed launches of about 10 ms, the median reported (default 30)"),

	NAMED("--format", C(EMIT_INSTR), "Output", format, instr_fmt_vals,
	      "a PTX module (default), a CUDA header, or the instruction line"),
	FN("--acc", "T", GEMM, "GEMM", set_type, gemm.acc, NULL,
	   "the accumulator type (default f32)"),
	FN("--out", "T", GEMM, "GEMM", set_type, gemm.out, NULL, "D's (and C's) element type"),
	NAMED("--layout", GEMM, "GEMM", gemm.layout, gemm_layout_vals,
	      "how A and B are stored, BLAS-style: tn is A row-major (M x K) and B "
	      "column-major (K x N)"),
	FN("--tile", "MxN[xK]", GEMM, "GEMM", set_tile, gemm, NULL,
	   "the block tile (sm_90a: M 128, or 16/32/64 for small M with a K-major A; N a multiple of 16 up to 256; default 128x256, FP8 A and B 128x192, --schedule pingpong 128x128 and at most N 192); "
	   "K: mma.sync the K of 64- or 128-byte stage rows (bf16 32 or 64; default 128-byte for tn where 4 stages fit), the other paths only their own"),
	COUNT("--stages", "S", GEMM, "GEMM", gemm.stages, "2 to 32 stages (shared memory allows fewer)",
	   "shared-memory pipeline stages (default: as many as fit, up to 6; sm_90a tiles of 16-64 "
	   "rows up to 12, 16-bit 128x256 tiles 3, FP8 one more beside one D staging buffer; "
	   "mma.sync 4, with 8 warps up to 6; sm_90a stages asked for that leave room for one D "
	   "staging buffer per warpgroup only get one)"),
	COUNT("--cluster", "1|2", GEMM, "GEMM", gemm.cluster, "1 or 2 (CTAs sharing B)",
	   "CTAs per cluster; 2 shares B through TMA multicast (default 2; 1 for FP8, the mma.sync path and layouts nt, tt)"),
	COUNT("--group", "G", GEMM, "GEMM", gemm.group, "1 to 65535 tile rows",
	   "tile rows walked together for L2 reuse (default 8)"),
	COUNT("--promote", "K", GEMM, "GEMM", gemm.promote_k, "128, 256, 512 or 1024 elements of K",
	   "sm_90a FP8: K elements between promotions of wgmma's partial sums (kept at the "
	   "tensor cores' reduced precision) into the f32 accumulator; longer is faster and "
	   "less precise (default 128, as DeepGEMM and CUTLASS)"),
	NAMED("--path", GEMM, "GEMM", gemm.path, gemm_path_vals,
	      "the kernel: wgmma + TMA (sm_90a's default) or mma.sync + ldmatrix + cp.async "
	      "(sm_80, sm_86, sm_89's; on sm_90/sm_90a on request)"),
	NAMED("--schedule", GEMM, "GEMM", gemm.schedule, gemm_sched_vals,
	      "sm_90a: how the two consumer warpgroups share tiles.  cooperative (default): both "
	      "on each tile, 64 rows each; pingpong: each takes every other tile whole (tile M "
	      "128, two wgmma a K step), so that one writes D while the other's wgmma run (no "
	      "split-K or FP8; tile N up to 192, default 128; f16 accumulation 256)"),
	FN("--split-k", "S", GEMM, "GEMM", set_split, gemm.split_k, NULL,
	   "split K into S slices (1 to 256), or auto.  wgmma: (tile, slice) work units, the last slice of "
	   "a tile adds the partial tiles in order (workspace, counters); with more tiles than "
	   "the grid holds, only the tail past the whole waves is split; auto: S chosen at run time.  "
	   "mma.sync: S CTAs, each slice's sums in a workspace slot that the tile's last slice "
	   "adds in slice order.  Default 1; run gemm picks S itself where the tiles leave "
	   "SMs idle or a short last wave is worth splitting"),
	FN("--problem", "MxNxK", C(GEMM), "GEMM", set_problem, gemm.problem, NULL,
	   "choose the tile, cluster and split-K that the options leave open for this problem (as run gemm does; "
	   "mmagen_gemm_choose); the kernel still runs any shape"),
	FN("--sms", "N", C(GEMM), "GEMM", set_sms, gemm.sms, NULL,
	   "the multiprocessors --problem chooses for (default 132: H100/H200 SXM)"),
	FN("--quant", "mxfp8|mxfp6|mxfp4|nvfp4|fp8-block", GEMM, "GEMM", set_qformat, gemm.quant, NULL,
	   "block-scaled A and B.  sm_120a: in this `mmagen quantize` format, its scales per K "
	   "block (--a/--b give the element types; default: kind::f8f6f4, no scales).  sm_90a: "
	   "fp8-block (also w8a8-fp8-block, deepseek-fp8), DeepSeek-V3's scaling of e4m3/e5m2 A "
	   "and B: an f32 scale per row of A and 128 of K and per 128 x 128 block of B, applied "
	   "where each K block's partial sums are promoted (parameters sa, sb and their strides)"),

	FN("--m", "M", RG, "Run GEMM", set_dim, rg.m, NULL, "rows of A, C and D (required)"),
	FN("--n", "N", RG, "Run GEMM", set_dim, rg.n, NULL,
	   "columns of B, C and D (required; even)"),
	FN("--k", "K", RG, "Run GEMM", set_dim, rg.k, NULL,
	   "columns of A, rows of B (required; a multiple of 8 for 16-bit A and B)"),
	FN("--alpha", "X", RG, "Run GEMM", set_scalar, rg.alpha, NULL,
	   "D = alpha * A * B + beta * C (default 1; rounded to f32)"),
	FN("--beta", "Y", RG, "Run GEMM", set_scalar, rg.beta, NULL,
	   "the factor of C (default 0: C is not read)"),
	FN("--d-scale", "X", RG, "Run GEMM", set_scalar, rg.d_scale, NULL,
	   "e4m3/e5m2 D: D = satfinite(X * (alpha * A * B + beta * C)) (default 1; rounded to f32)"),
	NAMED("--scale-layout", RG, "Run GEMM", rg.scale_layout, scale_layout_vals,
	      "--quant fp8-block: the scales' layout, row-major ([M][KB] and [NB][KB], KB = "
	      "ceil(K/128), NB = ceil(N/128): the launcher's default strides; default) or col "
	      "([KB][M] and [KB][NB], DeepGEMM's layout of A's scales, passed as strides)"),
	FLAG("--check", RG, "Run GEMM", rg.check,
	     "compare D with the exact CPU reference (every element, or a sample when large)"),
	FLAG("--bench", RG, "Run GEMM", rg.bench,
	     "time the kernel with CUDA events, and cuBLASLt on the same problem when it is there"),
	FN("--reps", "R", RG, "Run GEMM", set_reps, rg.reps, NULL,
	   "--bench and --tune: timed launches, the median reported (default: --tune 30; --bench as many as make a burst of mmagen's about 0.3 s, 30 to 2000; sm_120a 30)"),
	STR("--save", NULL, "DIR", RG, "Run GEMM", rg.save,
	    "write A, B, C, D (raw little-endian) and gemm.json describing them into DIR"),
	STR("--load", NULL, "DIR", RG, "Run GEMM", rg.load,
	    "take A, B and C from a directory that --save wrote (its gemm.json must match the request)"),
	FLAG("--tune", RG, "Run GEMM", rg.tune,
	     "try tile N, stages, cluster, group and (not FP8) ping-pong choices (each checked, then timed), use the "
	     "fastest and remember it per GPU, types and shape class for later runs"),
	FLAG("--time-load", RG, "Run GEMM", rg.time_load,
	     "time generation, a cold JIT load (every cache off from process start) and a warm "
	     "load from the mmagen cache, instead of running (no --m/--n/--k needed)"),

	NAMED("--format", C(EMIT_TILE), "Output", format, tile_fmt_vals,
	      "the kernel (default) or its JSON manifest"),
	NAMED("--format", C(GEMM), "Output", format, gemm_fmt_vals,
	      "the kernel (default), its JSON manifest, its ABI text for libmmart's launcher (docs/gemm-abi.md), or a C header embedding the kernel and its ABI"),
	STR("--output", "-o", "FILE", EMIT | DOC | C(GEMM), "Output", out,
	    "write FILE instead of standard output (see Output files)"),

	STR("--format", NULL, "mxfp8|mxfp6|mxfp4|nvfp4", QUANT, "Quantize", q.format,
	    "the block-scaled format"),
	STR("--elem", NULL, "T", QUANT, "Quantize", q.elem,
	    "the element type where the format allows two (mxfp8: e4m3 or e5m2; "
	    "mxfp6: e3m2 or e2m3)"),
	STR("--in", NULL, "FILE", QUANT, "Quantize", q.in,
	    "the input: raw little-endian f32 (quantize) or packed elements (dequantize)"),
	STR("--out", NULL, "FILE", QUANT, "Quantize", q.out,
	    "the output: packed elements (quantize) or raw f32 (dequantize)"),
	STR("--scales", NULL, "FILE", QUANT, "Quantize", q.scales,
	    "the scale factors, one byte per block"),
	STR("--count", NULL, "N", QUANT, "Quantize", q.count,
	    "the number of values (default: from the input's size)"),
	STR("--global-scale", NULL, "X", QUANT, "Quantize", q.global,
	    "nvfp4's per-tensor f32 scale; quantize also takes `auto` "
	    "(amax/(448*6), printed)"),

	STR("--quant", NULL, "CONFIG", C(PLAN), "Plan", quant,
	    "the quantization config: w4a16, w8a8-int8, w8a8-fp8, w4a8, w4a8-fp4, nvfp4, "
	    "w4a8-nvfp4, mxfp8, mxfp6, mxfp4, w4a4-int4, fp16, bf16, tf32, fp64 and "
	    "variants (docs/plan.md has them all)"),
	FN("--arch", "A", C(PLAN), "Plan", set_arch, arch, NULL,
	   "the target: sm_80, sm_89, sm_90a, sm_100a, sm_120a, ... (`list --targets`)"),
	FLAG("--json", C(PLAN), "Plan", json, "print the plan as one JSON object"),
	STR("--output", "-o", "FILE", C(PLAN) | C(DOC_PLAN), "Plan", out,
	    "write FILE (through a temporary, renamed) instead of standard output"),
	FN("--arch", "A", C(INSPECT), "Inspect", set_arch, arch, NULL,
	   "the target whose SASS to examine: ptxas assembles the PTX for it, and only "
	   "cubins for its SM are disassembled (default: the PTX's .target, every cubin)"),
	STR("--opcode", NULL, "OPCODE", C(INSPECT), "Inspect", req.opcode,
	    "inspect the module `emit instr --opcode OPCODE` writes, instead of a FILE"),
	FLAG("--json", C(INSPECT), "Inspect", json, "print the report as one JSON object"),

	{ .name = "--help", .alias = "-h", .cmds = ALL, .group = "Other",
	  .kind = CLI_HELP, .help = "print this help and exit" },
};

static const struct cli_cmd commands[] = {
#define CMD(id, nm, a, s, t) [CMD_##id] = { .name = nm, .args = a, .summary = s, .text = t },
#include "cli_cmds.def"
#undef CMD
};

static const char intro[] =
	"SELECTOR is `--arch A` plus either `--opcode STRING` or fields (`--family`,\n"
	"`--shape`, `--a`, ...; see [Options](#options)). `mmagen COMMAND --help` or\n"
	"`mmagen help COMMAND` prints a command's usage and the options it takes;\n"
	"a command refuses any other option. Options are written `--opt value` or\n"
	"`--opt=value`.\n"
	"\n"
	"Exit status: 0 on success; 1 when the request is not legal, output fails\n"
	"or a GPU result does not match the reference; 2 for bad usage (unknown\n"
	"command or option, an option the command does not take, a missing or\n"
	"malformed value, unknown target, type or family); 77 when `run`/`bench`\n"
	"find no CUDA driver or GPU (the test suites count 77 as skipped); 3 when\n"
	"`inspect` reported the PTX but could not examine some SASS. Every\n"
	"failure prints exactly one line on stderr that names the rule and the\n"
	"nearest legal alternatives (text from the command line is quoted, with\n"
	"unprintable bytes as `\\xNN`), and leaves no output file (`-o` writes a\n"
	"temporary file and renames it; an existing file is kept when the command\n"
	"fails). A write error on standard output is an error too.\n"
	"\n"
	"Output files (`-o`, `--out`, `--scales`) are written as GNU tools write\n"
	"them: `-` is standard output; a regular file, or the file at the end of a\n"
	"symlink, is replaced through a temporary beside it (a new file gets mode\n"
	"0666 & ~umask, a replaced one keeps its mode); FIFOs, character devices\n"
	"and `/dev/fd/N` are written directly; a directory, or a path in a\n"
	"directory that does not exist, is refused before anything is created.\n";

/* inspect's FILE, the one positional argument of the command line */
static int positional(int cmd, const char *arg, void *dst)
{
	if (cmd != CMD_INSPECT)
		return -1;
	if (OPTS(dst)->insp.file)
		return cli_fail(CLI_USAGE, "inspect takes one FILE (got %s and %s)",
				cli_quote(OPTS(dst)->insp.file), cli_quote(arg));
	OPTS(dst)->insp.file = arg;
	return 0;
}

const struct cli_spec cli_spec = {
	.cmds = commands,
	.ncmds = NCMDS,
	.opts = options,
	.nopts = (int)(sizeof options / sizeof options[0]),
	.intro = intro,
	.top = "SELECTOR: --arch A plus --opcode STRING or fields (--family, --shape, --a, ...).\n"
	       "'mmagen COMMAND --help' or 'mmagen help COMMAND' lists a command's options;\n"
	       "docs/cli.md is the reference.",
	.outro = "'mmagen help' lists every command; docs/cli.md is the reference.",
	.positional = positional,
};
