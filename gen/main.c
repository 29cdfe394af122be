/* main.c - the mmagen command line: parse, call the library, print. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define USAGE \
"usage: mmagen list [--arch A] [--family F] [--type T] [--json | --opcodes | --targets]\n" \
"       mmagen emit instr SELECTOR [--format ptx|cuda|text] [-o FILE]\n" \
"       mmagen emit tile SELECTOR [--format ptx|json] [-o FILE]\n" \
"       mmagen run tile (SELECTOR | --all [fields] [--sample-n]) [--arch A] [--seed N] [--device D]\n" \
"                [--inputs random|max|subnormal|special|overflow]\n" \
"       mmagen bench load SELECTOR [--device D]\n" \
"tile options: --swizzle none|32|64|128 --major-a k|mn --major-b k|mn\n" \
"          --neg-a --neg-b --scale-d yes|no --m M --n N (tcgen05)\n" \
"       mmagen quantize --format mxfp8|mxfp6|mxfp4|nvfp4 [--elem T] --in F32 --out ELEMS --scales S\n" \
"                [--count N] [--global-scale X|auto]\n" \
"       mmagen dequantize --format F [--elem T] --in ELEMS --scales S --out F32 [--count N]\n" \
"       mmagen doc signatures [-o FILE]\n" \
"       mmagen --help | --version\n" \
"SELECTOR: --opcode STRING, or fields: --arch --family --shape --a --b --c --d\n" \
"          --sparse none|sp|ordered --layout row.col --satfinite yes|no\n" \
"          --popc xor|and --kind K --scale-vec 1X|2X|4X --stype ue8m0|ue4m3\n" \
"          --cta-group 1|2 --ws yes|no --asrc reg|smem|tmem --num x1|x2|x4\n" \
"          --trans yes|no --ldtype b16|b8|b6p32|b4p64\n" \
"See docs/cli.md.\n"

static const char *prog = "mmagen";

static int die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 2;
}

static int lib_fail(void)
{
	fprintf(stderr, "%s: %s\n", prog, mmagen_last_error());
	return 1;
}

/* ---- option values ---- */

struct opts {
	mmagen_request req;
	const char *arch, *family, *type, *out, *format;
	int json, opcodes, targets;
	int have_family_sparse;
	int all, sample_n;
	struct run_opts run;
	mmagen_tile_opts tile;
};

/* name=value tables for enumerated options */
struct named { const char *name; unsigned v; };

static const struct named sparse_vals[] = {
	{ "none", MMAGEN_SPARSE_NONE }, { "dense", MMAGEN_SPARSE_NONE },
	{ "sp", MMAGEN_SPARSE_SP },
	{ "ordered", MMAGEN_SPARSE_ORDERED },
	{ "sp::ordered_metadata", MMAGEN_SPARSE_ORDERED }, { NULL, 0 } };
static const struct named yesno[] = {
	{ "yes", 1 }, { "no", 0 }, { "1", 1 }, { "0", 0 }, { "true", 1 },
	{ "false", 0 }, { NULL, 0 } };
static const struct named popc_vals[] = {
	{ "none", MMAGEN_BITOP_NONE }, { "xor", MMAGEN_XOR_POPC },
	{ "and", MMAGEN_AND_POPC }, { NULL, 0 } };
static const struct named kind_vals[] = {
	{ "none", MMAGEN_KIND_NONE },
#define X(id, s) { s, MMAGEN_KIND_##id },
	MMAGEN_KIND_LIST(X)
#undef X
	{ NULL, 0 } };
static const struct named sv_vals[] = {
	{ "none", 0 }, { "1X", 1 }, { "2X", 2 }, { "4X", 4 }, { "1", 1 },
	{ "2", 2 }, { "4", 4 }, { NULL, 0 } };
static const struct named cta_vals[] = { { "1", 1 }, { "2", 2 }, { NULL, 0 } };
static const struct named asrc_vals[] = {
	{ "reg", MMAGEN_ASRC_REG }, { "smem", MMAGEN_ASRC_SMEM },
	{ "tmem", MMAGEN_ASRC_TMEM }, { NULL, 0 } };
static const struct named num_vals[] = {
	{ "x1", 1 }, { "x2", 2 }, { "x4", 4 }, { "1", 1 }, { "2", 2 },
	{ "4", 4 }, { NULL, 0 } };
static const struct named ld_vals[] = {
	{ "b16", MMAGEN_LD_B16 }, { "b8", MMAGEN_LD_B8 },
	{ "b6p32", MMAGEN_LD_B6P32 }, { "b4p64", MMAGEN_LD_B4P64 },
	{ NULL, 0 } };
static const struct named rnd_vals[] = {
	{ "rn", MMAGEN_RN }, { "rz", MMAGEN_RZ }, { "rm", MMAGEN_RM },
	{ "rp", MMAGEN_RP }, { NULL, 0 } };

static int pick(const char *opt, const char *v, const struct named *t,
		unsigned *out)
{
	char legal[256] = "";
	for (int i = 0; t[i].name; i++) {
		if (!strcmp(t[i].name, v)) {
			*out = t[i].v;
			return 0;
		}
		size_t l = strlen(legal);
		snprintf(legal + l, sizeof legal - l, "%s%s", i ? ", " : "", t[i].name);
	}
	fprintf(stderr, "%s: bad value '%s' for %s; legal: %s\n", prog, v, opt, legal);
	return 2;
}

static int parse_type(const char *opt, const char *v, unsigned *out)
{
	mmagen_type t;
	if (mmagen_type_parse(v, &t)) {
		fprintf(stderr, "%s: %s: %s\n", prog, opt, mmagen_last_error());
		return 2;
	}
	*out = t;
	return 0;
}

static int parse_shape(const char *v, mmagen_request *r)
{
	unsigned m = 0, n = 0, k = 0;
	char tail;
	if (sscanf(v, "m%un%uk%u%c", &m, &n, &k, &tail) == 3) {
		r->m = m; r->n = n; r->k = k;
		return 0;
	}
	if (sscanf(v, "m%un%u%c", &m, &n, &tail) == 2) {   /* ldmatrix */
		r->m = m; r->n = n;
		return 0;
	}
	if (sscanf(v, "k%u%c", &k, &tail) == 1) {           /* tcgen05 */
		r->k = k;
		return 0;
	}
	fprintf(stderr, "%s: bad --shape '%s'; write it like m16n8k16 (ldmatrix: m8n8, tcgen05: k16)\n",
		prog, v);
	return 2;
}

static int parse_family(const char *v, mmagen_request *r)
{
	static const struct { const char *name; unsigned fam, sparse; } fams[] = {
		{ "mma", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sync", MMAGEN_FAM_MMA, MMAGEN_SPARSE_NONE },
		{ "mma.sp", MMAGEN_FAM_MMA, MMAGEN_SPARSE_SP },
		{ "mma.sp::ordered_metadata", MMAGEN_FAM_MMA, MMAGEN_SPARSE_ORDERED },
		{ "wgmma", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_NONE },
		{ "wgmma.sp", MMAGEN_FAM_WGMMA, MMAGEN_SPARSE_SP },
		{ "tcgen05", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.mma", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_NONE },
		{ "tcgen05.sp", MMAGEN_FAM_TCGEN05, MMAGEN_SPARSE_SP },
		{ "ldmatrix", MMAGEN_FAM_LDMATRIX, MMAGEN_ANY },
		{ "stmatrix", MMAGEN_FAM_STMATRIX, MMAGEN_ANY },
	};
	for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
		if (!strcmp(v, fams[i].name)) {
			r->family = fams[i].fam;
			if (fams[i].sparse != MMAGEN_ANY)
				r->sparse = fams[i].sparse;
			return 0;
		}
	fprintf(stderr, "%s: unknown family '%s'; legal: mma, mma.sync, mma.sp, wgmma, wgmma.sp, tcgen05, tcgen05.sp, ldmatrix, stmatrix\n",
		prog, v);
	return 2;
}

static int parse_layout(const char *v, mmagen_request *r)
{
	static const struct named l[] = { { "row", MMAGEN_ROW }, { "col", MMAGEN_COL },
					  { NULL, 0 } };
	char a[8], b[8], tail;
	if (sscanf(v, "%3[a-z].%3[a-z]%c", a, b, &tail) != 2 ||
	    pick("--layout", a, l, &r->alayout) || pick("--layout", b, l, &r->blayout)) {
		fprintf(stderr, "%s: bad --layout '%s'; legal: row.col, row.row, col.row, col.col\n",
			prog, v);
		return 2;
	}
	return 0;
}

/* Parse argv[i..]; returns 0, or an exit status. */
static int parse_opts(int argc, char **argv, int i, struct opts *o)
{
	mmagen_request_init(&o->req);
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0, takes = 1;
#define VAL() do { if (!v || (v[0] == '-' && v[1] == '-')) \
	return die("option %s needs a value%s", a, ""); } while (0)
		if (!strcmp(a, "--json")) { o->json = 1; takes = 0; }
		else if (!strcmp(a, "--all")) { o->all = 1; takes = 0; }
		else if (!strcmp(a, "--sample-n")) { o->sample_n = 1; takes = 0; }
		else if (!strcmp(a, "--neg-a")) { o->tile.neg_a = 1; takes = 0; }
		else if (!strcmp(a, "--neg-b")) { o->tile.neg_b = 1; takes = 0; }
		else if (!strcmp(a, "--swizzle")) {
			static const struct named sw[] = { { "none", 0 }, { "0", 0 },
				{ "32", 32 }, { "64", 64 }, { "128", 128 }, { NULL, 0 } };
			VAL();
			if ((rc = pick(a, v, sw, &o->tile.swizzle)))
				return rc;
		}
		else if (!strcmp(a, "--major-a") || !strcmp(a, "--major-b")) {
			static const struct named mj[] = { { "k", 0 }, { "mn", 1 }, { NULL, 0 } };
			VAL();
			if ((rc = pick(a, v, mj, a[8] == 'a' ? &o->tile.major_a : &o->tile.major_b)))
				return rc;
		}
		else if (!strcmp(a, "--scale-d")) {
			unsigned sd;
			VAL();
			if ((rc = pick(a, v, yesno, &sd)))
				return rc;
			o->tile.scale_d = (int)sd;
		}
		else if (!strcmp(a, "--m") || !strcmp(a, "--n")) {
			char *end;
			VAL();
			unsigned long x = strtoul(v, &end, 10);
			if (*end || !*v || x == 0 || x > 256)
				return die("bad %s '%s'; give a number such as 128", a, v);
			*(a[2] == 'm' ? &o->tile.m : &o->tile.n) = (unsigned)x;
		}
		else if (!strcmp(a, "--inputs")) {
			static const struct named inputs[] = {
				{ "random", 0 }, { "max", 1 }, { "subnormal", 2 },
				{ "special", 3 }, { "overflow", 4 }, { NULL, 0 } };
			static const char *const edge[] = { NULL, "max", "subnormal",
							    "special", "overflow" };
			unsigned e;
			VAL();
			if ((rc = pick(a, v, inputs, &e)))
				return rc;
			o->run.edge = edge[e];
		}
		else if (!strcmp(a, "--seed")) {
			VAL();
			char *end;
			o->run.seed = strtoull(v, &end, 0);
			if (*end || !*v)
				return die("bad --seed '%s'; give a non-negative integer%s", v, "");
		}
		else if (!strcmp(a, "--device")) {
			VAL();
			char *end;
			long d = strtol(v, &end, 10);
			if (*end || !*v || d < 0 || d > 1024)
				return die("bad --device '%s'; give a device index such as 0%s", v, "");
			o->run.device = (int)d;
		}
		else if (!strcmp(a, "--opcodes")) { o->opcodes = 1; takes = 0; }
		else if (!strcmp(a, "--targets")) { o->targets = 1; takes = 0; }
		else if (!strcmp(a, "--arch")) { VAL(); o->arch = v; }
		else if (!strcmp(a, "--family")) { VAL(); rc = parse_family(v, &o->req); o->family = v; }
		else if (!strcmp(a, "--type")) { VAL(); unsigned t; rc = parse_type(a, v, &t); o->type = v; }
		else if (!strcmp(a, "--shape")) { VAL(); rc = parse_shape(v, &o->req); }
		else if (!strcmp(a, "--a")) { VAL(); rc = parse_type(a, v, &o->req.a); }
		else if (!strcmp(a, "--b")) { VAL(); rc = parse_type(a, v, &o->req.b); }
		else if (!strcmp(a, "--c")) { VAL(); rc = parse_type(a, v, &o->req.c); }
		else if (!strcmp(a, "--d")) { VAL(); rc = parse_type(a, v, &o->req.d); }
		else if (!strcmp(a, "--sparse")) { VAL(); rc = pick(a, v, sparse_vals, &o->req.sparse); }
		else if (!strcmp(a, "--layout")) { VAL(); rc = parse_layout(v, &o->req); }
		else if (!strcmp(a, "--satfinite")) { VAL(); rc = pick(a, v, yesno, &o->req.satfinite); }
		else if (!strcmp(a, "--popc")) { VAL(); rc = pick(a, v, popc_vals, &o->req.bitop); }
		else if (!strcmp(a, "--kind")) {
			VAL();
			if (!strncmp(v, "kind::", 6))
				v += 6;
			rc = pick(a, v, kind_vals, &o->req.kind);
		}
		else if (!strcmp(a, "--scale-vec")) { VAL(); rc = pick(a, v, sv_vals, &o->req.scale_vec); }
		else if (!strcmp(a, "--stype")) { VAL(); rc = parse_type(a, v, &o->req.stype); }
		else if (!strcmp(a, "--cta-group")) { VAL(); rc = pick(a, v, cta_vals, &o->req.cta_group); }
		else if (!strcmp(a, "--ws")) { VAL(); rc = pick(a, v, yesno, &o->req.ws); }
		else if (!strcmp(a, "--asrc")) { VAL(); rc = pick(a, v, asrc_vals, &o->req.asrc); }
		else if (!strcmp(a, "--num")) { VAL(); rc = pick(a, v, num_vals, &o->req.num); }
		else if (!strcmp(a, "--trans")) { VAL(); rc = pick(a, v, yesno, &o->req.trans); }
		else if (!strcmp(a, "--ldtype")) { VAL(); rc = pick(a, v, ld_vals, &o->req.ldtype); }
		else if (!strcmp(a, "--rnd")) { VAL(); rc = pick(a, v, rnd_vals, &o->req.rnd); }
		else if (!strcmp(a, "--opcode")) { VAL(); o->req.opcode = v; }
		else if (!strcmp(a, "--format")) { VAL(); o->format = v; }
		else if (!strcmp(a, "-o") || !strcmp(a, "--output")) { VAL(); o->out = v; }
		else
			return die("unknown option '%s'%s; see `mmagen --help`", a, "");
#undef VAL
		if (rc)
			return rc;
		i += takes;
	}
	if (o->arch && mmagen_target_parse(o->arch, &o->req.target)) {
		fprintf(stderr, "%s: %s\n", prog, mmagen_last_error());
		return 2;
	}
	return 0;
}

/* ---- list ---- */

static int form_matches_type(const mmagen_form *f, const char *type)
{
	mmagen_type t;
	if (!type)
		return 1;
	mmagen_type_parse(type, &t);
	return f->a == t || f->b == t || f->c == t || f->d == t || f->stype == t;
}

static int filtered_out(const struct opts *o, const mmagen_form *f)
{
	const mmagen_request *r = &o->req;
	if (o->arch && !mmagen_form_on_target(f, r->target))
		return 1;
	if (r->family != MMAGEN_ANY && f->family != r->family)
		return 1;
	if (r->sparse != MMAGEN_ANY && f->sparse != r->sparse)
		return 1;
	return !form_matches_type(f, o->type);
}

static const char *family_label(const mmagen_form *f)
{
	return mmagen_form_family_label(f);
}

static const char *tname(int t)
{
	return t ? mmagen_type_name((mmagen_type)t) : "-";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_opcodes(const struct opts *o)
{
	size_t n = mmagen_form_count(), k = 0;
	char **ops = malloc(n * sizeof *ops);
	if (!ops)
		return die("out of memory%s%s", "", "");
	for (size_t i = 0; i < n; i++) {
		const mmagen_form *f = mmagen_form_at(i);
		char op[256];
		if (filtered_out(o, f))
			continue;
		ops[k++] = strdup(mmagen_form_opcode(f, op, sizeof op));
	}
	qsort(ops, k, sizeof *ops, cmp_str);
	for (size_t i = 0; i < k; i++) {
		if (!i || strcmp(ops[i], ops[i - 1]))
			puts(ops[i]);
	}
	for (size_t i = 0; i < k; i++)
		free(ops[i]);
	free(ops);
	return 0;
}

static const char *asrc_name(int a)
{
	static const char *const n[] = { "-", "reg", "smem", "tmem" };
	return n[a];
}

static int list(const struct opts *o)
{
	char op[256], shape[64];
	int first = 1;

	if (o->targets) {
		for (int t = 0; t < mmagen_target_count(); t++)
			printf("%-8s  ptx>=%u.%u\n", mmagen_target_name(t),
			       mmagen_target_min_ptx(t) / 10, mmagen_target_min_ptx(t) % 10);
		return 0;
	}
	if (o->opcodes)
		return list_opcodes(o);
	if (o->json)
		puts("[");
	else
		printf("%-24s %-10s %-5s %-5s %-5s %-5s %-8s %-7s %-4s %s\n", "family",
		       "shape", "a", "b", "c", "d", "min_arch", "min_ptx", "asrc",
		       "opcode");
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (filtered_out(o, f))
			continue;
		int t = o->arch ? o->req.target : mmagen_form_min_target(f);
		int mt = mmagen_form_min_target(f);
		unsigned v = mmagen_form_min_ptx(f, t);
		mmagen_form_opcode(f, op, sizeof op);
		mmagen_form_shape(f, shape, sizeof shape);
		if (o->json) {
			printf("%s  {\"opcode\": \"%s\", \"family\": \"%s\", \"shape\": \"%s\", "
			       "\"a\": \"%s\", \"b\": \"%s\", \"c\": \"%s\", \"d\": \"%s\", "
			       "\"a_source\": \"%s\", \"min_arch\": \"%s\", \"min_ptx\": \"%u.%u\"}",
			       first ? "" : ",\n", op, family_label(f), shape, tname(f->a),
			       tname(f->b), tname(f->c), tname(f->d), asrc_name(f->asrc),
			       mmagen_target_name(mt), v / 10, v % 10);
		} else {
			printf("%-24s %-10s %-5s %-5s %-5s %-5s %-8s %u.%-5u %-4s %s\n",
			       family_label(f), shape, tname(f->a), tname(f->b),
			       tname(f->c), tname(f->d), mmagen_target_name(mt),
			       v / 10, v % 10, asrc_name(f->asrc), op);
		}
		first = 0;
	}
	if (o->json)
		puts(first ? "]" : "\n]");
	return 0;
}

/* ---- emit ---- */

/* Select the form of a request; --arch defaults to sm_90a for run/bench
 * (the lent GPU), never for emit. */
static int select_form(struct opts *o, const mmagen_form **f)
{
	if (o->json || o->opcodes || o->targets || o->type)
		return die("this command takes selector fields, not list options%s%s", "", "");
	if (!o->arch)
		return die("this command needs --arch (e.g. --arch sm_90a)%s%s", "", "");
	if (mmagen_select(&o->req, f))
		return lib_fail();
	return 0;
}

static int write_out(const struct opts *o, char *text, size_t len)
{
	int rc;
	if (o->out)
		rc = mmagen_write_file(o->out, text, len) ? lib_fail() : 0;
	else
		rc = fwrite(text, 1, len, stdout) == len && !fflush(stdout) ? 0 : 1;
	mmagen_free(text);
	return rc;
}

static int emit_tile(struct opts *o)
{
	static const struct named fmts[] = {
		{ "ptx", MMAGEN_FMT_PTX }, { "json", MMAGEN_FMT_JSON }, { NULL, 0 } };
	unsigned fmt = MMAGEN_FMT_PTX;
	const mmagen_form *f;
	char *text;
	size_t len;
	int rc;

	if (o->format && pick("--format", o->format, fmts, &fmt))
		return 2;
	if ((rc = select_form(o, &f)))
		return rc;
	if (mmagen_emit_tile(f, o->req.target, &o->tile, (mmagen_format)fmt, &text, &len))
		return lib_fail();
	return write_out(o, text, len);
}

static int run_cmd(struct opts *o, int bench)
{
	const mmagen_form *f;
	int rc;

	if (o->out || o->format)
		return die("run and bench print results; they take no -o or --format%s%s", "", "");
	if (!o->arch) {
		/* the GPU's own target */
		if ((rc = device_target(&o->run, &o->req.target)))
			return rc;
		o->arch = mmagen_target_name(o->req.target);
	}
	if (!bench && o->all)
		return run_tile_all(o->req.target, &o->req, o->sample_n, &o->run);
	if ((rc = select_form(o, &f)))
		return rc;
	return bench ? bench_load(f, o->req.target, &o->run) : run_tile(f, o->req.target, &o->run);
}

static int emit_instr(struct opts *o)
{
	static const struct named fmts[] = {
		{ "ptx", MMAGEN_FMT_PTX }, { "cuda", MMAGEN_FMT_CUDA },
		{ "text", MMAGEN_FMT_TEXT }, { NULL, 0 } };
	unsigned fmt = MMAGEN_FMT_PTX;
	const mmagen_form *f;
	char *text;
	size_t len;

	if (o->format && pick("--format", o->format, fmts, &fmt))
		return 2;
	if (o->json || o->opcodes || o->targets || o->type)
		return die("emit instr takes selector fields, not list options%s%s", "", "");
	if (!o->arch)
		return die("emit needs --arch (e.g. --arch sm_90a)%s%s", "", "");
	if (mmagen_select(&o->req, &f))
		return lib_fail();
	if (mmagen_emit_instr(f, o->req.target, (mmagen_format)fmt, &text, &len))
		return lib_fail();
	if (o->out) {
		int rc = mmagen_write_file(o->out, text, len) ? lib_fail() : 0;
		mmagen_free(text);
		return rc;
	}
	fwrite(text, 1, len, stdout);
	mmagen_free(text);
	return fflush(stdout) ? 1 : 0;
}

/* ---- quantize / dequantize: raw little-endian f32 <-> packed MX/NVFP4 ----
 * mmagen quantize --format F [--elem T] --in F32 --out ELEMS --scales S
 *                 [--count N] [--global-scale X|auto]
 * mmagen dequantize --format F [--elem T] --in ELEMS --scales S --out F32
 *                 [--count N] [--global-scale X]
 * The byte formats are those of mmagen_quantize (mmagen.h).  Output goes
 * through mmagen_write_file; quantize's two files appear together or not
 * at all.  quantize --global-scale auto (nvfp4) prints the scale it chose,
 * which dequantize then needs. */

struct quant_args {
	const char *format, *elem, *in, *out, *scales, *count, *global;
};

static int quant_args(int argc, char **argv, struct quant_args *q)
{
	static const struct { const char *name; size_t off; } opts[] = {
		{ "--format", offsetof(struct quant_args, format) },
		{ "--elem", offsetof(struct quant_args, elem) },
		{ "--in", offsetof(struct quant_args, in) },
		{ "--out", offsetof(struct quant_args, out) },
		{ "--scales", offsetof(struct quant_args, scales) },
		{ "--count", offsetof(struct quant_args, count) },
		{ "--global-scale", offsetof(struct quant_args, global) },
	};
	memset(q, 0, sizeof *q);
	for (int i = 2; i < argc; i += 2) {
		size_t k = 0;
		while (k < sizeof opts / sizeof opts[0] && strcmp(argv[i], opts[k].name))
			k++;
		if (k == sizeof opts / sizeof opts[0])
			return die("unknown option '%s' for %s; see `mmagen --help`", argv[i], argv[1]);
		if (i + 1 >= argc)
			return die("option %s needs a value%s", argv[i], "");
		*(const char **)((char *)q + opts[k].off) = argv[i + 1];
	}
	if (!q->format || !q->in || !q->out || !q->scales)
		return die("%s needs --format, --in, --out and --scales%s", argv[1], "");
	return 0;
}

/* The whole file in *data (freed by the caller). */
static int read_all(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);

	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		return die("cannot read %s%s", path, "");
	}
	for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			unsigned char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return die("%s: out of memory%s", path, "");
			}
			buf = nb;
		}
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return die("cannot read %s%s", path, "");
	}
	*data = buf;
	*len = n;
	return 0;
}

/* The file holds exactly `want` bytes. */
static int expect_size(const char *path, size_t len, size_t want, const char *what)
{
	char msg[160];
	if (len == want)
		return 0;
	snprintf(msg, sizeof msg, "holds %zu bytes; %s need %zu", len, what, want);
	return die("%s %s", path, msg);
}

static int quant_spec_of(const struct quant_args *q, mmagen_quant_spec *s)
{
	unsigned fmt;
	mmagen_type elem = MMAGEN_TYPE_NONE;

	if (mmagen_qformat_parse(q->format, &fmt) ||
	    (q->elem && mmagen_type_parse(q->elem, &elem)) ||
	    mmagen_quant_spec_init(s, fmt, elem))
		return lib_fail();
	if (q->global && strcmp(q->global, "auto")) {
		char *end;
		double g = strtod(q->global, &end);
		if (*end || end == q->global || !(g > 0.0 && g <= 3.4028234663852886e38))
			return die("bad --global-scale '%s'; give a positive finite number%s",
				   q->global, "");
		s->global_scale = g;
	}
	if (q->global && fmt != MMAGEN_QF_NVFP4)
		return die("%s has no global scale; --global-scale is for nvfp4%s",
			   mmagen_qformat_name(fmt), "");
	return 0;
}

static int parse_count(const char *v, size_t *count)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (*end || !*v || *v == '-' || n == 0 || n > ((size_t)1 << 40))
		return die("bad --count '%s'; give a positive number of values%s", v, "");
	*count = (size_t)n;
	return 0;
}

static int quantize_files(const struct quant_args *q, mmagen_quant_spec *s)
{
	unsigned char *raw, *eb = NULL, *sb = NULL;
	float *x = NULL;
	size_t len, count, ne, ns;
	int rc;

	if ((rc = read_all(q->in, &raw, &len)))
		return rc;
	if (q->count) {
		if (!(rc = parse_count(q->count, &count)))
			rc = expect_size(q->in, len, count * 4, "the f32 values");
	} else if (len % 4 || !len) {
		rc = die("%s holds %s bytes: not a non-empty f32 array", q->in,
			 len ? "a partial f32 in its" : "no");
	} else {
		count = len / 4;
	}
	if (rc) {
		free(raw);
		return rc;
	}
	mmagen_quant_sizes(s, count, &ne, &ns);
	x = malloc(count * sizeof *x);
	eb = calloc(ne, 1);
	sb = calloc(ns, 1);
	if (!x || !eb || !sb) {
		rc = die("out of memory%s%s", "", "");
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t w = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
			     (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		memcpy(&x[i], &w, 4);
	}
	if (q->global && !strcmp(q->global, "auto"))
		s->global_scale = mmagen_nvfp4_global_scale(x, count);
	if (mmagen_quantize(s, x, count, eb, sb)) {
		rc = lib_fail();
		goto out;
	}
	/* elements to a side file first, so that a failed scales write
	 * leaves neither output behind */
	char side[4096];
	snprintf(side, sizeof side, "%s.quant-part", q->out);
	if (mmagen_write_file(side, (const char *)eb, ne)) {
		rc = lib_fail();
	} else if (mmagen_write_file(q->scales, (const char *)sb, ns)) {
		remove(side);
		rc = lib_fail();
	} else if (rename(side, q->out)) {
		remove(side);
		remove(q->scales);
		rc = die("cannot write %s%s", q->out, "");
	} else {
		rc = 0;
		if (q->global && !strcmp(q->global, "auto"))
			printf("global_scale %.9g\n", s->global_scale);
	}
out:
	free(raw);
	free(x);
	free(eb);
	free(sb);
	return rc;
}

static int dequantize_files(const struct quant_args *q, const mmagen_quant_spec *s)
{
	unsigned char *eb, *sb = NULL, *raw = NULL;
	float *y = NULL;
	size_t elen, slen, count, ne, ns;
	int rc;

	if ((rc = read_all(q->in, &eb, &elen)))
		return rc;
	if ((rc = read_all(q->scales, &sb, &slen)))
		goto out;
	if (q->count) {
		if ((rc = parse_count(q->count, &count)))
			goto out;
	} else {
		count = elen * 8 / s->elem_bits;
	}
	mmagen_quant_sizes(s, count, &ne, &ns);
	if (!count) {
		rc = die("%s is empty%s", q->in, "");
		goto out;
	}
	if ((rc = expect_size(q->in, elen, ne, "the elements")) ||
	    (rc = expect_size(q->scales, slen, ns, "the scales")))
		goto out;
	y = malloc(count * sizeof *y);
	raw = malloc(count * 4);
	if (!y || !raw) {
		rc = die("out of memory%s%s", "", "");
		goto out;
	}
	if (mmagen_dequantize(s, eb, sb, count, y)) {
		rc = lib_fail();
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t w;
		memcpy(&w, &y[i], 4);
		for (int b = 0; b < 4; b++)
			raw[4 * i + b] = (unsigned char)(w >> 8 * b);
	}
	rc = mmagen_write_file(q->out, (const char *)raw, count * 4) ? lib_fail() : 0;
out:
	free(eb);
	free(sb);
	free(raw);
	free(y);
	return rc;
}

static int quant_cmd(int argc, char **argv)
{
	struct quant_args q;
	mmagen_quant_spec s;
	int rc;

	if ((rc = quant_args(argc, argv, &q)) || (rc = quant_spec_of(&q, &s)))
		return rc;
	if (argv[1][0] == 'q')
		return quantize_files(&q, &s);
	if (q.global && !strcmp(q.global, "auto"))
		return die("dequantize needs the global scale's value, not 'auto'%s%s", "", "");
	return dequantize_files(&q, &s);
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc;

	memset(&o, 0, sizeof o);
	if (argc < 2)
		return fputs(USAGE, stderr), 2;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return fputs(USAGE, stdout), 0;
	if (!strcmp(argv[1], "--version"))
		return puts("mmagen " MMAGEN_VERSION), 0;
	if (!strcmp(argv[1], "list")) {
		if ((rc = parse_opts(argc, argv, 2, &o)))
			return rc;
		return list(&o);
	}
	o.run.device = -1;
	mmagen_tile_opts_init(&o.tile);
	o.run.tile = &o.tile;
	o.run.seed = (uint64_t)time(NULL);
	if (!strcmp(argv[1], "emit")) {
		int tile = argc >= 3 && !strcmp(argv[2], "tile");
		if (argc < 3 || (strcmp(argv[2], "instr") && !tile))
			return die("emit: unknown kind '%s'; legal: instr, tile%s",
				   argc < 3 ? "" : argv[2], "");
		if ((rc = parse_opts(argc, argv, 3, &o)))
			return rc;
		return tile ? emit_tile(&o) : emit_instr(&o);
	}
	if (!strcmp(argv[1], "run") || !strcmp(argv[1], "bench")) {
		int bench = argv[1][0] == 'b';
		const char *want = bench ? "load" : "tile";
		if (argc < 3 || strcmp(argv[2], want))
			return die(bench ? "bench: unknown benchmark '%s'; legal: %s" :
					   "run: unknown kind '%s'; legal: %s",
				   argc < 3 ? "" : argv[2], want);
		if ((rc = parse_opts(argc, argv, 3, &o)))
			return rc;
		return run_cmd(&o, bench);
	}
	if (!strcmp(argv[1], "doc")) {
		char *text;
		size_t len;
		if (argc < 3 || strcmp(argv[2], "signatures"))
			return die("doc: unknown document '%s'; legal: signatures%s",
				   argc < 3 ? "" : argv[2], "");
		if ((rc = parse_opts(argc, argv, 3, &o)))
			return rc;
		if (mmagen_doc_signatures(&text, &len))
			return lib_fail();
		rc = o.out ? (mmagen_write_file(o.out, text, len) ? lib_fail() : 0) :
			     (fwrite(text, 1, len, stdout) == len ? 0 : 1);
		mmagen_free(text);
		return rc;
	}
	if (!strcmp(argv[1], "quantize") || !strcmp(argv[1], "dequantize"))
		return quant_cmd(argc, argv);
	return die("unknown command '%s'; legal: list, emit, run, bench, quantize, dequantize, doc%s",
		   argv[1], "");
}
