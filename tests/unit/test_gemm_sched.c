/* test_gemm_sched.c - the sm_90a GEMM's tile scheduler and tensor-map
 * parameters, on the CPU, from the emitted PTX itself.
 *
 * The scheduler: the kernel's tile-count lines (from the .entry's start
 * to the line that sets %tiles), its tile origin (written inline between
 * "// tile origin:" and "// tile origin end") and the lines after it that place a
 * cluster's CTA are parsed out of mmagen_gemm_emit's PTX and run by a
 * tiny interpreter of the u32 instructions they use (mul, mad, div, rem,
 * min, max, add, sub, shl, shr, and, or, xor, mov, setp, selp, ld.param;
 * for split-K's addresses also mul.wide, mul.lo.u64, add.u64).  Then every
 * CTA of the grid libmmart's launcher gives (mmart_gemm_plan) walks tile blockIdx (or
 * clusterid), + gridDim, ... as the kernel does, and the output tiles it
 * visits must cover each tile of M x N exactly once.  A register written
 * by anything the interpreter does not know is poisoned: reading it fails
 * the test, so a new instruction in those lines is noticed, not guessed.
 * The test mutates one kernel on purpose (tile N 192 placed by a shift by
 * 8) and expects that caught.
 *
 * The consumers' row limit: the lines after the consumers' tile origin
 * (mlim = min(M, m0 + tile M), and the idle warpgroup's setp) are run for
 * each warpgroup of each visited tile; the rows each warpgroup that is not
 * idle stores, [m0 + 64 (wg - 1), min(m0 + 64 wg, mlim)), must cover every
 * row of M exactly once in each tile column (tile M 16, 32, 64: the rows
 * of the warpgroup's 64 past the tile are another tile's), and nothing
 * after $c_epilogue may bound rows by M itself.  Mutants: mlim from a
 * 128-row tile, an epilogue bounded by M.
 *
 * The split-K kernel's work units (test_split, below): the unit -> tile
 * and K slice maps of producer and consumers, and the reduction's slot
 * and counter addresses, run for every unit of every CTA.
 *
 * The registers the template shares with C (%tile, %m0, ...) are builder
 * registers in the PTX; emit_named writes them by the names the kernel's
 * `// slots:` comment gives them (ptx_slots.h), and the test reads them so.
 *
 * The tensor maps: what libmmart's GEMM launcher plans from the kernel's
 * ABI text (mmart_gemm_plan) against the JSON manifest's dims, boxes,
 * swizzle and element sizes, and the driver's rules
 * (mmart_tensor_desc_check). */
#include "mmagen.h"
#include "mmart.h"
#include "run_gemm.h"
#include "gemm.h"          /* libmmart's launcher (runtime/gemm.h) */
#include "check.h"
#include "ptx_slots.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- a parsed instruction ---- */
#define MAXOPS 5
struct ins {
	char op[32];
	char pred[16];            /* "@%p" or "@!%p", or "" */
	char arg[MAXOPS][48];     /* operands as written; vectors "{%a, %b}" */
	int nargs;
	int label;                /* a label line ("$x:") */
};

/* One line of PTX into *in: 0 an instruction or label, -1 nothing (blank,
 * comment, declaration, brace). */
static int parse_line(const char *line, struct ins *in)
{
	memset(in, 0, sizeof *in);
	while (isspace((unsigned char)*line))
		line++;
	if (!*line || !strncmp(line, "//", 2) || *line == '.' || *line == '{' || *line == '}')
		return -1;
	size_t len = strcspn(line, "\n");
	if (len && line[len - 1] == ':') {
		in->label = 1;
		return 0;
	}
	if (*line == '@') {
		size_t p = strcspn(line, " \t");
		snprintf(in->pred, sizeof in->pred, "%.*s", (int)p, line);
		line += p;
		while (*line == ' ' || *line == '\t')
			line++;
	}
	size_t o = strcspn(line, " \t;");
	snprintf(in->op, sizeof in->op, "%.*s", (int)o, line);
	line += o;
	/* operands: split at commas outside braces and parentheses, up to ';' */
	int depth = 0, n = 0;
	char cur[48];
	size_t cl = 0;
	for (; *line && *line != ';' && *line != '\n'; line++) {
		char c = *line;
		if (c == '{' || c == '(' || c == '[')
			depth++;
		if (c == '}' || c == ')' || c == ']')
			depth--;
		if (c == ',' && depth == 0) {
			cur[cl] = '\0';
			if (n < MAXOPS)
				snprintf(in->arg[n++], sizeof in->arg[0], "%s", cur);
			cl = 0;
			continue;
		}
		if ((c == ' ' || c == '\t') && cl == 0)
			continue;
		if (cl + 1 < sizeof cur)
			cur[cl++] = c;
	}
	while (cl && (cur[cl - 1] == ' ' || cur[cl - 1] == '\t'))
		cl--;
	cur[cl] = '\0';
	if (cl && n < MAXOPS)
		snprintf(in->arg[n++], sizeof in->arg[0], "%s", cur);
	in->nargs = n;
	return 0;
}

/* ---- the machine: named registers, some poisoned ---- */
#define MAXREGS 128
struct reg {
	char name[48];
	uint64_t v;
	int poisoned;
	char culprit[48];         /* poisoned: the register no known instruction wrote */
};
struct machine {
	struct reg r[MAXREGS];
	int n;
	/* inputs: ld.param of these names, and special registers */
	uint32_t m, n_, k;
	uint32_t splits;          /* psplits (the split-K kernel's S) */
	uint32_t ctaid, nctaid, clusterid, nclusterid, rank;
	int error;                /* reported once per run */
	char why[160];
	char taint[48];           /* step(): the first poisoned input read, or "" */
};

static struct reg *reg_of(struct machine *mc, const char *name)
{
	for (int i = 0; i < mc->n; i++)
		if (!strcmp(mc->r[i].name, name))
			return &mc->r[i];
	if (mc->n == MAXREGS)
		return NULL;
	struct reg *r = &mc->r[mc->n++];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->v = 0;
	r->poisoned = 1;      /* never written */
	snprintf(r->culprit, sizeof r->culprit, "%s", name);
	return r;
}

static void m_fail(struct machine *mc, const char *fmt, const char *a)
{
	if (!mc->error)
		snprintf(mc->why, sizeof mc->why, fmt, a);
	mc->error = 1;
}

/* poisoned: by what (a register name), or NULL for a known value */
static void set(struct machine *mc, const char *name, uint64_t v, const char *poisoned)
{
	struct reg *r = reg_of(mc, name);
	if (!r) {
		m_fail(mc, "too many registers at %s", name);
		return;
	}
	r->v = v;
	r->poisoned = poisoned != NULL;
	snprintf(r->culprit, sizeof r->culprit, "%s", poisoned ? poisoned : "");
}

static int is_special(const char *s, uint32_t *v, const struct machine *mc)
{
	static const char *const names[] = { "%ctaid.x", "%nctaid.x", "%clusterid.x",
					     "%nclusterid.x", "%cluster_ctarank" };
	const uint32_t vals[] = { mc->ctaid, mc->nctaid, mc->clusterid, mc->nclusterid, mc->rank };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(s, names[i])) {
			*v = vals[i];
			return 1;
		}
	return 0;
}

/* The value of an operand: an immediate, a special register, or a named
 * register; a poisoned one taints what step() computes from it. */
static uint64_t val(struct machine *mc, const char *s)
{
	uint32_t sv;
	if (isdigit((unsigned char)*s) || *s == '-')
		return (uint64_t)strtoull(s, NULL, 0);
	if (is_special(s, &sv, mc))
		return sv;
	struct reg *r = reg_of(mc, s);
	if (!r)
		return 0;
	if (r->poisoned && !mc->taint[0])
		snprintf(mc->taint, sizeof mc->taint, "%s", r->culprit);
	return r->v;
}

/* A result the test needs: it must not depend on a poisoned register. */
static uint64_t need(struct machine *mc, const char *s)
{
	mc->taint[0] = '\0';
	uint64_t v = val(mc, s);
	if (mc->taint[0]) {
		char w[120];
		snprintf(w, sizeof w, "%s depends on %s, which no instruction the test knows wrote", s,
			 mc->taint);
		m_fail(mc, "%s", w);
	}
	return v;
}

#define TAINT(mc) ((mc)->taint[0] ? (mc)->taint : NULL)
#define WS_BASE 0x100000000ull    /* where the split test puts the workspace */
#define CTR_BASE 0x900000000ull   /* ... and the counters */

/* "{%a, %b}" into its two names. */
static int vec2(const char *s, char a[48], char b[48])
{
	return sscanf(s, "{%47[^, ] , %47[^} ]}", a, b) == 2;
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Run one instruction; branches and calls are the caller's business. */
static void step(struct machine *mc, const struct ins *in)
{
	const char *op = in->op;
	mc->taint[0] = '\0';
	if (in->label || !op[0])
		return;
	if (in->pred[0]) {          /* a predicated write: its result unknown */
		if (in->nargs && in->arg[0][0] == '%')
			set(mc, in->arg[0], 0, in->arg[0]);
		return;
	}
	if (starts(op, "bra") || starts(op, "call") || starts(op, "ret")) {
		m_fail(mc, "control flow (%s) where the test expects straight-line code", op);
		return;
	}
	if (!strcmp(op, "ld.param.u32")) {
		const char *p = in->arg[1];
		uint64_t v = 0;
		int known = 1;
		if (!strcmp(p, "[pm]"))
			v = mc->m;
		else if (!strcmp(p, "[pn]"))
			v = mc->n_;
		else if (!strcmp(p, "[pk]"))
			v = mc->k;
		else if (!strcmp(p, "[psplits]"))
			v = mc->splits;
		else
			known = 0;
		set(mc, in->arg[0], v, known ? NULL : in->arg[0]);
		return;
	}
	/* the split-K kernel's workspace and counters: at fixed addresses */
	if (!strcmp(op, "ld.param.u64")) {
		const char *p = in->arg[1];
		int ws = !strcmp(p, "[pworkspace]"), ctr = !strcmp(p, "[pcounters]");
		set(mc, in->arg[0], ws ? WS_BASE : CTR_BASE, ws || ctr ? NULL : in->arg[0]);
		return;
	}
	if (!strcmp(op, "cvta.to.global.u64")) {
		uint64_t v = val(mc, in->arg[1]);
		set(mc, in->arg[0], v, TAINT(mc));
		return;
	}
	if (!strcmp(op, "mul.wide.u32") || !strcmp(op, "mul.lo.u64") || !strcmp(op, "add.u64")) {
		uint64_t a = val(mc, in->arg[1]), b = val(mc, in->arg[2]);
		if (op[3] == '.' && op[4] == 'w')
			a &= 0xffffffffu, b &= 0xffffffffu;
		set(mc, in->arg[0], op[0] == 'a' ? a + b : a * b, TAINT(mc));
		return;
	}
	if (!strcmp(op, "selp.u32")) {
		uint64_t a = val(mc, in->arg[1]), b = val(mc, in->arg[2]), c = val(mc, in->arg[3]);
		set(mc, in->arg[0], (c ? a : b) & 0xffffffffu, TAINT(mc));
		return;
	}
	if (!strcmp(op, "mov.b64") && in->arg[1][0] == '{') {      /* pack */
		char lo[48], hi[48];
		if (!vec2(in->arg[1], lo, hi))
			return m_fail(mc, "vector %s", in->arg[1]);
		uint64_t l = val(mc, lo) & 0xffffffffu, h = val(mc, hi) & 0xffffffffu;
		set(mc, in->arg[0], l | h << 32, TAINT(mc));
		return;
	}
	if (!strcmp(op, "mov.b64") && in->arg[0][0] == '{') {      /* unpack */
		char lo[48], hi[48];
		if (!vec2(in->arg[0], lo, hi))
			return m_fail(mc, "vector %s", in->arg[0]);
		uint64_t v = val(mc, in->arg[1]);
		set(mc, lo, v & 0xffffffffu, TAINT(mc));
		set(mc, hi, v >> 32, TAINT(mc));
		return;
	}
	/* setp.CMP.u32 and setp.CMP.BOOL.u32 (and, or with a third operand): 0 or 1 */
	char cmp[3] = "", bop[4] = "";
	size_t ol = strlen(op);
	if (starts(op, "setp.") && ol > 4 && !strcmp(op + ol - 4, ".u32") &&
	    sscanf(op, "setp.%2[a-z]", cmp) == 1) {
		if (strstr(op, ".and."))
			strcpy(bop, "and");
		else if (strstr(op, ".or."))
			strcpy(bop, "or");
		else if (ol != strlen("setp.xx.u32"))
			strcpy(bop, "?");
		static const char *const cmps[] = { "eq", "ne", "lt", "le", "gt", "ge" };
		uint32_t a = (uint32_t)val(mc, in->arg[1]), b = (uint32_t)val(mc, in->arg[2]);
		int c = -1;
		for (int i = 0; i < 6; i++)
			if (!strcmp(cmp, cmps[i]))
				c = i;
		int r = c == 0 ? a == b : c == 1 ? a != b : c == 2 ? a < b : c == 3 ? a <= b :
			c == 4 ? a > b : a >= b;
		if (bop[0]) {
			int q = val(mc, in->arg[3]) != 0;
			r = !strcmp(bop, "and") ? r && q : !strcmp(bop, "or") ? r || q : -1;
		}
		if (c < 0 || r < 0)
			set(mc, in->arg[0], 0, in->arg[0]);
		else
			set(mc, in->arg[0], (uint64_t)r, TAINT(mc));
		return;
	}
	/* 32-bit integer arithmetic */
	static const char *const u32ops[] = { "mul.lo.u32", "mul.lo.s32", "mad.lo.u32", "mad.lo.s32",
		"div.u32", "rem.u32", "min.u32", "max.u32", "add.u32", "add.s32", "sub.u32", "sub.s32",
		"shl.b32", "shr.u32", "shr.b32", "and.b32", "or.b32", "xor.b32", "mov.u32", "mov.b32" };
	int known = 0;
	for (size_t i = 0; i < sizeof u32ops / sizeof *u32ops; i++)
		known |= !strcmp(op, u32ops[i]);
	if (!known) {               /* anything else: its destination is unknown */
		if (in->nargs && in->arg[0][0] == '%')
			set(mc, in->arg[0], 0, in->arg[0]);
		return;
	}
	if (!strcmp(op, "mov.u32") || !strcmp(op, "mov.b32")) {
		uint32_t sv;
		/* a special register the test does not model (%tid.x): unknown */
		if (in->arg[1][0] == '%' && strchr(in->arg[1], '.') && !is_special(in->arg[1], &sv, mc)) {
			set(mc, in->arg[0], 0, in->arg[1]);
		} else {
			uint64_t v = val(mc, in->arg[1]) & 0xffffffffu;
			set(mc, in->arg[0], v, TAINT(mc));
		}
		return;
	}
	uint32_t a = (uint32_t)val(mc, in->arg[1]), b = (uint32_t)val(mc, in->arg[2]), r = 0;
	if (starts(op, "mul"))
		r = a * b;
	else if (starts(op, "mad"))
		r = a * b + (uint32_t)val(mc, in->arg[3]);
	else if (starts(op, "div") || starts(op, "rem")) {
		if (!b && !mc->taint[0])
			return m_fail(mc, "%s by zero", op);
		r = b ? (starts(op, "div") ? a / b : a % b) : 0;
	} else if (starts(op, "min"))
		r = a < b ? a : b;
	else if (starts(op, "max"))
		r = a > b ? a : b;
	else if (starts(op, "add"))
		r = a + b;
	else if (starts(op, "sub"))
		r = a - b;
	else if (starts(op, "shl"))
		r = b >= 32 ? 0 : a << b;   /* PTX clamps shift amounts */
	else if (starts(op, "shr"))
		r = b >= 32 ? 0 : a >> b;
	else if (starts(op, "and"))
		r = a & b;
	else if (starts(op, "or"))
		r = a | b;
	else
		r = a ^ b;
	set(mc, in->arg[0], r, TAINT(mc));
}

/* ---- the kernel, parsed ---- */
struct kernel {
	struct ins *pro;          /* the entry's start to the %tiles line */
	int npro;
	struct ins *fn;           /* mmagen_tile_origin's body */
	int nfn;
	char fn_ret[48], fn_par[3][48];
	struct ins *post;         /* after the first call: the CTA's placement */
	int npost;
	char call_args[3][48], call_ret[48];
	char start_sreg[48], stride_sreg[48];   /* the walk: first tile, step */
	/* the consumers: their tile origin and the lines after it up to
	 * `mov.u32 %kb, 0` (the CTA's placement, mlim and %idle) */
	struct ins *cfn, *cpost;
	int ncfn, ncpost;
	char mlim[48];            /* the register min(M, m0 + tile M) is in */
	int epi_reads_m;          /* a line after $c_epilogue reads %m */
	char why[160];
};

static void kernel_free(struct kernel *k)
{
	free(k->pro);
	free(k->fn);
	free(k->post);
	free(k->cfn);
	free(k->cpost);
	memset(k, 0, sizeof *k);
}

/* Instructions of the lines [from, to) into *out. */
static int parse_span(const char *from, const char *to, struct ins **out, int *n)
{
	int cap = 64;
	*out = malloc((size_t)cap * sizeof **out);
	*n = 0;
	for (const char *p = from; p && p < to; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		struct ins in;
		if (parse_line(p, &in))
			continue;
		if (*n == cap)
			*out = realloc(*out, (size_t)(cap *= 2) * sizeof **out);
		(*out)[(*n)++] = in;
	}
	return 0;
}

static int kfail(struct kernel *k, const char *what)
{
	snprintf(k->why, sizeof k->why, "%s", what);
	return -1;
}

/* The sreg that the register `reg` was last set from with mov.u32 before
 * line `at` of ins. */
static const char *sreg_before(const struct ins *ins, int at, const char *reg)
{
	for (int i = at - 1; i >= 0; i--)
		if (!strcmp(ins[i].op, "mov.u32") && !strcmp(ins[i].arg[0], reg))
			return ins[i].arg[1];
	return NULL;
}

/* The kernel's PTX with the registers its template shares with C (its
 * `// slots:` comment) written by their names: %tile, %m0, %n0, ... */
static mmagen_status emit_named(const mmagen_gemm_request *r, char **ptx)
{
	mmagen_status s = mmagen_gemm_emit(r, MMAGEN_FMT_PTX, ptx, NULL);
	if (!s)
		*ptx = ptx_unslot(*ptx);
	return s;
}

static int parse_kernel(const char *ptx, struct kernel *k)
{
	memset(k, 0, sizeof *k);
	/* the entry up to the last line that sets %tiles */
	const char *e = strstr(ptx, ".entry ");
	const char *open = e ? strstr(e, "\n{") : NULL;
	const char *tend = NULL;
	/* (the split-K kernel sets it twice: tiles, then work units) */
	for (const char *p = open; p; p = strchr(p + 1, '\n')) {
		struct ins in;
		if (parse_line(p + 1, &in))
			continue;
		if (in.label)
			break;
		if (in.nargs && !strcmp(in.arg[0], "%tiles"))
			tend = strchr(p + 1, '\n');
	}
	if (!tend)
		return kfail(k, "no line sets %tiles");
	parse_span(open + 2, tend + 1, &k->pro, &k->npro);

	/* the first tile origin after the tile count (written inline: from
	 * "// tile origin:" to "// tile origin end", reading %tile,
	 * %tiles_m, %tiles_n and setting %m0, %n0), and the straight lines
	 * after it */
	const char *ob = strstr(tend, "// tile origin:");
	const char *oe = ob ? strstr(ob, "// tile origin end") : NULL;
	if (!ob || !oe)
		return kfail(k, "no tile origin (// tile origin: ... // tile origin end) after the tile count");
	parse_span(strchr(ob, '\n') + 1, oe, &k->fn, &k->nfn);
	snprintf(k->call_args[0], sizeof k->call_args[0], "%%tile");
	snprintf(k->call_args[1], sizeof k->call_args[1], "%%tiles_m");
	snprintf(k->call_args[2], sizeof k->call_args[2], "%%tiles_n");
	const char *after = strchr(oe, '\n') + 1;
	struct ins *rest;
	int nrest;
	const char *lab = strstr(after, "\n$");
	parse_span(after, lab ? lab + 1 : after + strlen(after), &rest, &nrest);
	k->post = rest;
	k->npost = nrest;

	/* the consumers' tile origin (the second one) and what follows it */
	const char *cb = strstr(oe, "// tile origin:");
	const char *ce = cb ? strstr(cb, "// tile origin end") : NULL;
	if (!cb || !ce)
		return kfail(k, "no second tile origin (the consumers')");
	parse_span(strchr(cb, '\n') + 1, ce, &k->cfn, &k->ncfn);
	const char *cafter = strchr(ce, '\n') + 1;
	const char *clab = strstr(cafter, "\n$");
	parse_span(cafter, clab ? clab + 1 : cafter + strlen(cafter), &k->cpost, &k->ncpost);
	for (int i = 0; i < k->ncpost; i++) {
		const struct ins *in = &k->cpost[i];
		if (!strcmp(in->op, "mov.u32") && !strcmp(in->arg[0], "%kb")) {
			k->ncpost = i;     /* the K loop's start: the placement ends */
			break;
		}
		if (!strcmp(in->op, "min.u32") && !strcmp(in->arg[2], "%m") &&
		    !strcmp(in->arg[0], in->arg[1]))
			snprintf(k->mlim, sizeof k->mlim, "%s", in->arg[0]);
	}
	if (!k->mlim[0])
		return kfail(k, "no row limit (min.u32 X, X, %m) after the consumers' tile origin");
	/* the epilogue and split-K bound rows by mlim, never by %m */
	const char *epi = strstr(cafter, "\n$c_epilogue:");
	if (!epi)
		return kfail(k, "no $c_epilogue");
	struct ins *tail;
	int ntail;
	parse_span(epi + 1, ptx + strlen(ptx), &tail, &ntail);
	for (int i = 0; i < ntail; i++)
		for (int a = 1; a < tail[i].nargs; a++)
			k->epi_reads_m |= !strcmp(tail[i].arg[a], "%m");
	free(tail);

	/* the walk: every `add.u32 %tile, %tile, %x` steps by the sreg %x
	 * was set from, every `mov.u32 %tile, sreg` starts there; all the
	 * same */
	struct ins *all;
	int nall;
	parse_span(open, ptx + strlen(ptx), &all, &nall);
	for (int i = 0; i < nall; i++) {
		const char *src = NULL;
		char *dst = NULL;
		if (!strcmp(all[i].op, "mov.u32") && !strcmp(all[i].arg[0], "%tile"))
			src = all[i].arg[1], dst = k->start_sreg;
		if (!strcmp(all[i].op, "add.u32") && !strcmp(all[i].arg[0], "%tile") &&
		    !strcmp(all[i].arg[1], "%tile")) {
			src = sreg_before(all, i, all[i].arg[2]);
			dst = k->stride_sreg;
			if (!src)
				src = "(not a special register)";
		}
		if (!dst)
			continue;
		if (dst[0] && strcmp(dst, src))
			snprintf(dst, 48, "(two: %.20s)", src);
		else
			snprintf(dst, 48, "%s", src);
	}
	free(all);
	if (!k->start_sreg[0] || !k->stride_sreg[0])
		return kfail(k, "no tile walk (mov.u32 %tile, ...; add.u32 %tile, %tile, ...)");
	return 0;
}

/* ---- one problem through the parsed kernel ---- */
struct origin {
	uint32_t m0, n0;
};

/* The tile counts for M, N, K: 0, or -1 with the reason in mc.why. */
static int run_prologue(const struct kernel *k, struct machine *mc, uint32_t *tiles,
			uint32_t *tiles_m, uint32_t *tiles_n)
{
	for (int i = 0; i < k->npro && !mc->error; i++)
		step(mc, &k->pro[i]);
	*tiles = (uint32_t)need(mc, "%tiles");
	*tiles_m = (uint32_t)need(mc, k->call_args[1]);
	*tiles_n = (uint32_t)need(mc, k->call_args[2]);
	return mc->error ? -1 : 0;
}

/* mmagen_tile_origin(tile, tiles_m, tiles_n), then the placement lines
 * (rank in mc) -> m0, n0 as the kernel's registers hold them. */
static int origin_of(const struct kernel *k, struct machine *mc, uint32_t tile,
		     uint32_t tiles_m, uint32_t tiles_n, struct origin *o)
{
	set(mc, "%tile", tile, NULL);
	set(mc, "%tiles_m", tiles_m, NULL);
	set(mc, "%tiles_n", tiles_n, NULL);
	for (int i = 0; i < k->nfn && !mc->error; i++)
		step(mc, &k->fn[i]);
	if (mc->error) {
		char why[sizeof mc->why];
		snprintf(why, sizeof why, "tile origin: %.130s", mc->why);
		snprintf(mc->why, sizeof mc->why, "%s", why);
		return -1;
	}
	for (int i = 0; i < k->npost && !mc->error; i++)
		step(mc, &k->post[i]);
	o->m0 = (uint32_t)need(mc, "%m0");
	o->n0 = (uint32_t)need(mc, "%n0");
	return mc->error ? -1 : 0;
}

/* The persistent grid libmmart's launcher gives such a kernel (its
 * mmart_gemm_plan, on an ABI of this tile and cluster). */
static unsigned launcher_grid(unsigned sms, uint32_t m, uint32_t n, unsigned bm, unsigned bn,
			      unsigned cluster)
{
	struct gemm_abi abi;
	struct gemm_launch l;
	mmart_gemm_args args;

	memset(&abi, 0, sizeof abi);
	abi.path = GP_WGMMA;
	strcpy(abi.a.type, "bf16");
	strcpy(abi.b.type, "bf16");
	strcpy(abi.out.type, "bf16");
	abi.a.bits = abi.b.bits = abi.out.bits = 16;
	abi.tile_m = bm;
	abi.tile_n = bn;
	abi.tile_k = 64;
	abi.cluster[0] = cluster;
	abi.cluster[1] = abi.cluster[2] = 1;
	abi.persistent = 1;
	abi.ab_align = abi.ab_pitch = 16;
	abi.k_multiple = abi.mn_multiple = abi.cd_ld = 1;
	abi.cd_align = 4;
	mmart_gemm_args_init(&args);
	args.m = m;
	args.n = n;
	args.k = 64;
	args.a = args.b = args.d = 1u << 20;
	return mmart_gemm_plan(&abi, (int)sms, &args, &l) ? 0 : l.grid[0];
}

/* Every CTA of the grid walks its tiles; each output tile must be
 * visited exactly once, and a visit outside M x N may only be a
 * cluster's second CTA below the last tile row.  0 or -1 with why. */
static int cover(const struct kernel *k, uint32_t m, uint32_t n, unsigned bm, unsigned bn,
		 unsigned cluster, unsigned sms, char *why, size_t wn)
{
	uint32_t rows = (m + bm - 1) / bm, cols = (n + bn - 1) / bn;
	unsigned grid = launcher_grid(sms, m, n, bm, bn, cluster);
	unsigned char *seen = calloc((size_t)rows * cols, 1);
	unsigned char *stored = calloc((size_t)m * cols, 1);   /* row x tile column */
	struct machine mc = { .m = m, .n_ = n, .k = 64 };
	uint32_t tiles = 0, tiles_m = 0, tiles_n = 0;
	int rc = -1;

	if (k->epi_reads_m) {
		snprintf(why, wn, "a line after $c_epilogue reads %%m: rows must be bounded by the tile's %s",
			 k->mlim);
		goto out;
	}
	const char *start = cluster > 1 ? "%clusterid.x" : "%ctaid.x";
	const char *stride = cluster > 1 ? "%nclusterid.x" : "%nctaid.x";
	if (strcmp(k->start_sreg, start) || strcmp(k->stride_sreg, stride)) {
		snprintf(why, wn, "the walk starts at %.20s and steps by %.20s; want %s and %s",
			 k->start_sreg, k->stride_sreg, start, stride);
		goto out;
	}
	mc.nctaid = grid;
	mc.nclusterid = grid / cluster;
	for (unsigned cta = 0; cta < grid; cta++) {
		mc.ctaid = cta;
		mc.clusterid = cta / cluster;
		mc.rank = cta % cluster;
		/* each CTA computes its own counts (they may read its rank) */
		mc.n = 0;
		if (run_prologue(k, &mc, &tiles, &tiles_m, &tiles_n)) {
			snprintf(why, wn, "tile count: %s", mc.why);
			goto out;
		}
		uint32_t first = cluster > 1 ? mc.clusterid : cta;
		uint32_t step_by = cluster > 1 ? mc.nclusterid : grid;
		for (uint64_t t = first; t < tiles; t += step_by) {
			struct origin o;
			if (origin_of(k, &mc, (uint32_t)t, tiles_m, tiles_n, &o)) {
				snprintf(why, wn, "%s", mc.why);
				goto out;
			}
			if (o.m0 % bm || o.n0 % bn) {
				snprintf(why, wn, "CTA %u tile %llu: origin (%u, %u) is not on the %ux%u grid",
					 cta, (unsigned long long)t, o.m0, o.n0, bm, bn);
				goto out;
			}
			if (o.n0 >= n || (o.m0 >= m && !(mc.rank > 0 && o.m0 / bm == rows))) {
				snprintf(why, wn, "CTA %u tile %llu: origin (%u, %u) outside %u x %u",
					 cta, (unsigned long long)t, o.m0, o.n0, m, n);
				goto out;
			}
			/* the consumers: each warpgroup's mlim and %idle, and the
			 * rows it stores */
			for (uint32_t wg = 1; wg <= 2; wg++) {
				set(&mc, "%wg", wg, NULL);
				set(&mc, "%tile", t, NULL);
				set(&mc, "%tiles_m", tiles_m, NULL);
				set(&mc, "%tiles_n", tiles_n, NULL);
				for (int i = 0; i < k->ncfn && !mc.error; i++)
					step(&mc, &k->cfn[i]);
				for (int i = 0; i < k->ncpost && !mc.error; i++)
					step(&mc, &k->cpost[i]);
				uint32_t cm0 = (uint32_t)need(&mc, "%m0"), cn0 = (uint32_t)need(&mc, "%n0");
				uint32_t mlim = (uint32_t)need(&mc, k->mlim);
				uint32_t idle = (uint32_t)need(&mc, "%idle");
				if (mc.error) {
					snprintf(why, wn, "consumers: %s", mc.why);
					goto out;
				}
				uint32_t want = o.m0 + bm < m ? o.m0 + bm : m;
				uint32_t first = o.m0 + 64 * (wg - 1);
				if (cm0 != o.m0 || cn0 != o.n0 || mlim != want || idle != (first >= want)) {
					snprintf(why, wn, "CTA %u tile %llu warpgroup %u: consumers at (%u, %u), mlim %u, idle %u; want (%u, %u), %u, %u",
						 cta, (unsigned long long)t, wg, cm0, cn0, mlim, idle, o.m0, o.n0,
						 want, first >= want);
					goto out;
				}
				for (uint32_t row = first; !idle && row < first + 64 && row < mlim; row++)
					if (stored[(size_t)row * cols + o.n0 / bn]++) {
						snprintf(why, wn, "row %u of tile column %u stored twice (CTA %u, tile %llu, warpgroup %u)",
							 row, o.n0 / bn, cta, (unsigned long long)t, wg);
						goto out;
					}
			}
			if (o.m0 >= m)
				continue;
			if (seen[(size_t)(o.m0 / bm) * cols + o.n0 / bn]++) {
				snprintf(why, wn, "tile (%u, %u) visited twice (CTA %u, tile %llu)",
					 o.m0, o.n0, cta, (unsigned long long)t);
				goto out;
			}
		}
	}
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		if (!seen[i]) {
			snprintf(why, wn, "tile (%zu, %zu) never visited (grid %u, %u tiles)",
				 i / cols * bm, i % cols * bn, grid, tiles);
			goto out;
		}
	for (size_t i = 0; i < (size_t)m * cols; i++)
		if (stored[i] != 1) {
			snprintf(why, wn, "row %zu of tile column %zu stored %u times", i / cols, i % cols,
				 stored[i]);
			goto out;
		}
	rc = 0;
out:
	free(stored);
	free(seen);
	return rc;
}

static mmagen_gemm_request req(mmagen_type a, mmagen_type out, unsigned tile_n, unsigned group,
			       unsigned cluster)
{
	mmagen_gemm_request r;
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &r.target);
	r.a = r.b = a;
	r.out = out;
	r.tile_n = tile_n;
	r.group = group;
	r.cluster = cluster;
	return r;
}

static const uint32_t dims[] = { 1, 64, 127, 129, 257, 1000, 2049 };   /* 64: a whole number of 16-, 32- and 64-row tiles */
static const unsigned sms_set[] = { 132, 7, 1, 0 };

/* All shapes through one kernel: 0 or -1 (the first failure in why). */
static int sweep(const char *ptx, unsigned bm, unsigned bn, unsigned cluster, char *why, size_t wn)
{
	struct kernel k;
	if (parse_kernel(ptx, &k)) {
		snprintf(why, wn, "parse: %s", k.why);
		kernel_free(&k);
		return -1;
	}
	int rc = 0;
	for (size_t a = 0; a < sizeof dims / sizeof *dims && !rc; a++)
		for (size_t b = 0; b < sizeof dims / sizeof *dims && !rc; b++)
			for (size_t s = 0; s < sizeof sms_set / sizeof *sms_set && !rc; s++) {
				/* every grid for a few shapes, the largest only at full size */
				if (s == 3 && dims[a] * (uint64_t)dims[b] > 1000 * 1000)
					continue;
				char w[200];
				if (cover(&k, dims[a], dims[b], bm, bn, cluster, sms_set[s], w, sizeof w)) {
					snprintf(why, wn, "M %u N %u sms %u: %s", dims[a], dims[b],
						 sms_set[s], w);
					rc = -1;
				}
			}
	kernel_free(&k);
	return rc;
}

static void test_schedule(void)
{
	static const struct { mmagen_type a, out; unsigned tile_n; } kinds[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 16 }, { MMAGEN_BF16, MMAGEN_BF16, 48 },
		{ MMAGEN_BF16, MMAGEN_BF16, 64 }, { MMAGEN_F16, MMAGEN_F32, 128 },
		{ MMAGEN_BF16, MMAGEN_BF16, 192 }, { MMAGEN_BF16, MMAGEN_F32, 208 },
		{ MMAGEN_BF16, MMAGEN_BF16, 256 }, { MMAGEN_E4M3, MMAGEN_BF16, 192 },
		{ MMAGEN_E4M3, MMAGEN_BF16, 80 }, { MMAGEN_S8, MMAGEN_S32, 256 },
		{ MMAGEN_TF32, MMAGEN_F32, 96 },
	};
	static const unsigned groups[] = { 1, 3, 8, 16 };
	unsigned kernels = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
			for (unsigned cl = 1; cl <= 2; cl++) {
				mmagen_gemm_request r = req(kinds[i].a, kinds[i].out, kinds[i].tile_n,
							    groups[g], cl);
				mmagen_gemm_info info = { .size = sizeof info };
				char *ptx = NULL, why[400] = "";
				if (mmagen_gemm_info_of(&r, &info) ||
				    emit_named(&r, &ptx)) {
					fail("%s tile N %u group %u cluster %u: %s",
					     mmagen_type_name(kinds[i].a), kinds[i].tile_n, groups[g], cl,
					     mmagen_last_error());
					continue;
				}
				kernels++;
				CHECK(!sweep(ptx, info.tile_m, info.tile_n, cl, why, sizeof why),
				      "%s tile %ux%u group %u cluster %u: %s", mmagen_type_name(kinds[i].a),
				      info.tile_m, info.tile_n, groups[g], cl, why);
				mmagen_free(ptx);
			}
	CHECK(kernels == 2 * 4 * sizeof kinds / sizeof *kinds, "%u kernels generated", kernels);

	/* small-M tiles: 16, 32, 64 rows (the first warpgroup alone; the
	 * split kernel has the same placement lines, but walks units) */
	static const struct { mmagen_type a, out; unsigned tile_m, tile_n, split; } small[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 16, 64, 1 }, { MMAGEN_BF16, MMAGEN_F32, 32, 128, 1 },
		{ MMAGEN_BF16, MMAGEN_BF16, 64, 256, 1 }, { MMAGEN_E4M3, MMAGEN_BF16, 16, 80, 1 },
		{ MMAGEN_S8, MMAGEN_S32, 32, 16, 1 }, { MMAGEN_TF32, MMAGEN_F32, 64, 48, 1 },
	};
	for (size_t i = 0; i < sizeof small / sizeof *small; i++)
		for (unsigned g = 1 + (i & 1) * 7; g <= 8; g += 8)
			for (unsigned cl = 1; cl <= 2; cl++) {
				mmagen_gemm_request r = req(small[i].a, small[i].out, small[i].tile_n, g, cl);
				r.tile_m = small[i].tile_m;
				r.split_k = small[i].split;
				mmagen_gemm_info info = { .size = sizeof info };
				char *ptx = NULL, why[400] = "";
				if (mmagen_gemm_info_of(&r, &info) ||
				    emit_named(&r, &ptx)) {
					fail("%s tile %ux%u cluster %u: %s", mmagen_type_name(small[i].a),
					     small[i].tile_m, small[i].tile_n, cl, mmagen_last_error());
					continue;
				}
				CHECK(info.tile_m == small[i].tile_m, "tile M %u, asked %u", info.tile_m,
				      small[i].tile_m);
				CHECK(!sweep(ptx, info.tile_m, info.tile_n, cl, why, sizeof why),
				      "%s tile %ux%u group %u cluster %u split %u: %s",
				      mmagen_type_name(small[i].a), info.tile_m, info.tile_n, g, cl,
				      small[i].split, why);
				mmagen_free(ptx);
			}
}

/* What a small tile's kernel and its manifest must agree on: D's store
 * box is one warpgroup's rows inside the tile (min(64, tile M): more
 * would overwrite the next tile's rows, which another CTA stores), and
 * the 64 rows of A each wgmma reads from the last stage end before the
 * barriers (A stages, B stages, D's staging, then the barriers). */
static void test_small_tiles(void)
{
	static const mmagen_type outs[] = { MMAGEN_BF16, MMAGEN_F32, MMAGEN_E4M3 };
	unsigned taken = 0;
	for (unsigned tm = 16; tm <= 128; tm *= 2)
		for (size_t o = 0; o < sizeof outs / sizeof *outs; o++)
			for (unsigned tn = 16; tn <= 256; tn += 16)
				for (unsigned st = 0; st <= 32; st++) {
					mmagen_gemm_request r = req(MMAGEN_BF16, outs[o], tn, 0, 1);
					r.tile_m = tm;
					r.stages = st;
					mmagen_gemm_info info = { .size = sizeof info };
					if (mmagen_gemm_info_of(&r, &info))
						continue;
					taken++;
					unsigned rows = tm < 64 ? tm : 64;
					CHECK(!info.box_d[0] || info.box_d[1] == rows,
					      "tile %ux%u out %s: D's box has %u rows, want %u", tm, tn,
					      mmagen_type_name(outs[o]), info.box_d[1], rows);
					unsigned bars = info.smem - 16 * info.stages;
					unsigned a_end = (info.stages - 1) * tm * 128 + 64 * 128;
					CHECK(a_end <= bars,
					      "tile %ux%u %u stages: the last stage's 64 rows of A end at byte %u, past the barriers at %u (shared memory %u)",
					      tm, tn, info.stages, a_end, bars, info.smem);
				}
	CHECK(taken > 1000, "%u small-tile kernels taken", taken);
}

/* Replace the first `from` in s by `to` (a new string). */
static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at)
		return NULL;
	size_t n = strlen(s) - strlen(from) + strlen(to);
	char *out = malloc(n + 1);
	memcpy(out, s, (size_t)(at - s));
	strcpy(out + (at - s), to);
	strcat(out, at + strlen(from));
	return out;
}

/* The test can fail: the bug it is there for (tile N 192 placed with a
 * shift by 8, as if it were 256), and a tile count that rounds down. */
static void test_mutants(void)
{
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, 192, 8, 1);
	char *ptx = NULL, why[400];
	CHECK(emit_named(&r, &ptx) == MMAGEN_OK, "emit 192");
	if (!ptx)
		return;
	/* the tile origin's own registers are the builder's: read them off
	 * its lines (tn from n0 = tn * 192, in from in = tile % per_group) */
	char tn[32] = "", in[32] = "", per_group[32] = "", from[128], to[128], dep[64];
	const char *ob = strstr(ptx, "// tile origin:");
	const char *nl = ob ? strstr(ob, "\tmul.lo.u32 %n0, ") : NULL;
	const char *il = ob ? strstr(ob, "\trem.u32 ") : NULL;
	if (nl)
		sscanf(nl, "\tmul.lo.u32 %%n0, %31[^,], 192;", tn);
	if (il)
		sscanf(il, "\trem.u32 %31[^,], %%tile, %31[^;];", in, per_group);
	snprintf(from, sizeof from, "mul.lo.u32 %%n0, %s, 192;", tn);
	snprintf(to, sizeof to, "shl.b32 %%n0, %s, 8;", tn);
	char *shift = *tn ? replace(ptx, from, to) : NULL;
	char *down = replace(ptx, "add.u32 %tiles_n, %n, 191;", "add.u32 %tiles_n, %n, 190;");
	snprintf(from, sizeof from, "rem.u32 %s, %%tile, %s;", in, per_group);
	snprintf(to, sizeof to, "rem.u64 %s, %%tile, %s;", in, per_group);
	char *unknown = *in && *per_group ? replace(ptx, from, to) : NULL;
	snprintf(dep, sizeof dep, "depends on %s", in);
	CHECK(shift && down && unknown, "the mutated lines are in the kernel (update this test)");
	CHECK(!sweep(ptx, 128, 192, 1, why, sizeof why), "the real kernel: %s", why);
	CHECK(shift && sweep(shift, 128, 192, 1, why, sizeof why), "n0 = tn << 8 went unnoticed");
	CHECK(down && sweep(down, 128, 192, 1, why, sizeof why), "tiles_n rounded down went unnoticed");
	CHECK(unknown && sweep(unknown, 128, 192, 1, why, sizeof why) && strstr(why, dep),
	      "an instruction the interpreter does not know went unnoticed: %s", why);
	free(shift);
	free(down);
	free(unknown);
	mmagen_free(ptx);

	/* a 16-row tile: mlim from 128 rows (rows of the next tiles stored
	 * twice), and rows bounded by M rather than mlim */
	r = req(MMAGEN_BF16, MMAGEN_BF16, 64, 8, 1);
	r.tile_m = 16;
	ptx = NULL;
	CHECK(emit_named(&r, &ptx) == MMAGEN_OK, "emit 16x64");
	if (!ptx)
		return;
	struct kernel k;
	CHECK(!parse_kernel(ptx, &k), "16x64: %s", k.why);
	snprintf(from, sizeof from, "add.u32 %s, %%m0, 16;", k.mlim);
	snprintf(to, sizeof to, "add.u32 %s, %%m0, 128;", k.mlim);
	char *wide = replace(ptx, from, to);
	snprintf(from, sizeof from, ", %s;\n", k.mlim);
	const char *epi = strstr(ptx, "$c_epilogue:");
	char *by_m = NULL;
	if (epi && strstr(epi, from)) {     /* the first bound after the epilogue's start */
		size_t at = (size_t)(strstr(epi, from) - ptx);
		by_m = malloc(strlen(ptx) + 8);
		memcpy(by_m, ptx, at);
		strcpy(by_m + at, ", %m;\n");
		strcat(by_m, ptx + at + strlen(from));
	}
	kernel_free(&k);
	CHECK(wide && by_m, "the mutated lines are in the 16-row kernel (update this test)");
	CHECK(!sweep(ptx, 16, 64, 1, why, sizeof why), "the real 16-row kernel: %s", why);
	CHECK(wide && sweep(wide, 16, 64, 1, why, sizeof why), "mlim = min(M, m0 + 128) went unnoticed");
	CHECK(by_m && sweep(by_m, 16, 64, 1, why, sizeof why) && strstr(why, "reads %m"),
	      "an epilogue bounded by M went unnoticed: %s", why);
	free(wide);
	free(by_m);
	mmagen_free(ptx);
}

/* ---- the split-K kernel's work units ----
 * The split-K kernel (gen/gemm/kernel_gemm_sm90_split.c) walks work units:
 * the first `whole` are whole tiles, each later tile (the tail) is S
 * units of one K slice each.  This runs the emitted PTX's own lines for
 * it, for every CTA of several grids: the producer's walk (its first
 * unit, the unit -> tile and K blocks map between $p_tile and $p_whole,
 * the tile origin, the step to its next unit) and, from their split
 * setup, each consumer warpgroup's (map, tile origin, the reduction up
 * to the counter's atom, the step from $c_unit_done), each in its own
 * machine as on the GPU.  Both sides must walk the same units to the
 * same tiles and K blocks; each unit is walked once per CTA of a
 * cluster; each output tile's K blocks are covered once, by one unit
 * when whole and min(S, K blocks) in the tail, with `whole` and the unit
 * count from the documented rule (whole = floor(T / G) * G).  A tail
 * unit's reduction (thread 0 of each warpgroup; once per problem all 128
 * threads of both, every 16 bytes of the two slots stored once) takes a
 * slot inside the workspace and a counter inside the counters, both
 * sized by the documented formula (which mmagen_gemm_split_buffers_grid
 * must give), slots apart, one counter per tail tile, CTA and warpgroup
 * shared by its slices, counting to min(S, K blocks) - 1; a whole tile's
 * goes straight to the epilogue.  Seven mutants must fail it. */

/* The lines after the line holding `after` (searched from `from`) up
 * to the line that begins with `upto`; NULL (and *n 0) when missing. */
static struct ins *span_of(const char *from, const char *after, const char *upto, int *n)
{
	const char *a = from ? strstr(from, after) : NULL;
	const char *b = a ? strstr(a, upto) : NULL;
	struct ins *out = NULL;
	*n = 0;
	if (!a || !b)
		return NULL;
	parse_span(strchr(a, '\n') + 1, b, &out, n);
	return out;
}

/* Run a span whose only branches go to `end` (a label; NULL: none may
 * branch) under a predicate: 1 when one was taken, 0 when the span ran
 * to its end, -1 (why in mc) otherwise. */
static int run_span(struct machine *mc, const struct ins *ins, int n, const char *end)
{
	for (int i = 0; i < n && !mc->error; i++) {
		if (starts(ins[i].op, "bra")) {
			if (!end || !ins[i].pred[0] || strcmp(ins[i].arg[0], end)) {
				m_fail(mc, "a branch to %s where the test expects straight code or one to the span's end",
				       ins[i].arg[0]);
				return -1;
			}
			const char *p = ins[i].pred + (ins[i].pred[1] == '!' ? 2 : 1);
			uint64_t v = need(mc, p);
			if ((ins[i].pred[1] == '!') == !v)
				return 1;
			continue;
		}
		step(mc, &ins[i]);
	}
	return mc->error ? -1 : 0;
}

/* The register named in the address of the first `op` line ("[%rd3+0]"
 * or "[%rd3]"). */
static int addr_reg(const struct ins *ins, int n, const char *op, int argi, char out[48])
{
	for (int i = 0; i < n; i++)
		if (starts(ins[i].op, op) && ins[i].nargs > argi && ins[i].arg[argi][0] == '[') {
			snprintf(out, 48, "%.*s", (int)strcspn(ins[i].arg[argi] + 1, "+]"),
				 ins[i].arg[argi] + 1);
			return 0;
		}
	return -1;
}

struct split_kernel {
	struct kernel k;
	/* the producer: its first unit, its map, its step to the next unit;
	 * the consumers: their setup (with the first unit), map, reduction
	 * (up to the counter's atom) and step */
	struct ins *pstart, *pmap, *pnext, *setup, *cmap, *reduce, *cnext;
	int npstart, npmap, npnext, nsetup, ncmap, nreduce, ncnext;
	char kbeg[48], own[48], ca[48], bound[48], epi[48];
	unsigned offs[64], noffs;      /* the slot stores' offsets from own */
};

static void split_free(struct split_kernel *sk)
{
	kernel_free(&sk->k);
	free(sk->pstart);
	free(sk->pmap);
	free(sk->pnext);
	free(sk->setup);
	free(sk->cmap);
	free(sk->reduce);
	free(sk->cnext);
}

/* The start of the line of ptx that holds `at`. */
static const char *line_start(const char *ptx, const char *at)
{
	while (at > ptx && at[-1] != '\n')
		at--;
	return at;
}

static int split_parse(const char *ptx, struct split_kernel *sk, char *why, size_t wn)
{
	memset(sk, 0, sizeof *sk);
	if (parse_kernel(ptx, &sk->k)) {
		snprintf(why, wn, "parse: %s", sk->k.why);
		return -1;
	}
	const char *pt = strstr(ptx, "\n$p_tile:"), *ct = strstr(ptx, "\n$c_tile:");
	const char *ws = strstr(ptx, "[pworkspace]"), *done = strstr(ptx, "\n$c_unit_done:");
	if (pt)                /* the line before: mov.u32 %tile, first */
		parse_span(line_start(ptx, pt - 1), pt + 1, &sk->pstart, &sk->npstart);
	sk->pmap = span_of(pt, "$exit;", "$p_whole:", &sk->npmap);
	sk->pnext = span_of(pt, "bra $p_kblock;", "\tbra $p_tile;", &sk->npnext);
	if (ws && ct)          /* from the workspace's load to $c_tile */
		parse_span(line_start(ptx, ws), ct + 1, &sk->setup, &sk->nsetup);
	sk->cmap = span_of(ct, "$exit;", "$c_whole:", &sk->ncmap);
	sk->reduce = span_of(ptx, "// the K slices' sums meet", "\tbar.red", &sk->nreduce);
	sk->cnext = span_of(done, "$c_unit_done:", "\tbra.uni $c_tile;", &sk->ncnext);
	for (int i = 0; i < sk->ncmap; i++)
		if (!strcmp(sk->cmap[i].op, "min.u32") && !strcmp(sk->cmap[i].arg[1], "%sl_s"))
			snprintf(sk->kbeg, sizeof sk->kbeg, "%s", sk->cmap[i].arg[0]);
	for (int i = 0; i < sk->nreduce; i++) {
		const struct ins *in = &sk->reduce[i];
		if (starts(in->op, "bra") && !sk->epi[0])
			snprintf(sk->epi, sizeof sk->epi, "%s", in->arg[0]);
		if (starts(in->op, "atom.") && in->nargs == 3)
			snprintf(sk->bound, sizeof sk->bound, "%s", in->arg[2]);
		const char *plus = starts(in->op, "st.global") ? strchr(in->arg[0], '+') : NULL;
		if (starts(in->op, "st.global") && sk->noffs < 64)
			sk->offs[sk->noffs++] = plus ? (unsigned)strtoul(plus + 1, NULL, 0) : 0;
	}
	/* the reduction's early exit goes to the epilogue: a label after the
	 * counter's atom and before $c_unit_done (not to $c_unit_done) */
	char lab[64];
	snprintf(lab, sizeof lab, "\n%s:", sk->epi);
	const char *atom = strstr(ptx, "atom.acq_rel"), *epi = atom ? strstr(atom, lab) : NULL;
	if (!sk->npstart || !sk->npmap || !sk->npnext || !sk->nsetup || !sk->ncmap || !sk->nreduce ||
	    !sk->ncnext || !sk->kbeg[0] || !sk->bound[0] || !sk->noffs ||
	    addr_reg(sk->reduce, sk->nreduce, "st.global", 0, sk->own) ||
	    addr_reg(sk->reduce, sk->nreduce, "atom.", 1, sk->ca)) {
		snprintf(why, wn, "not a split-K kernel as the test knows it (maps %d/%d, setup %d, reduction %d lines)",
			 sk->npmap, sk->ncmap, sk->nsetup, sk->nreduce);
		return -1;
	}
	if (!epi || !done || epi >= done) {
		snprintf(why, wn, "the reduction's first branch goes to %s, not to the epilogue", sk->epi);
		return -1;
	}
	return 0;
}

struct slot {
	uint64_t own, ca;
	uint32_t key;             /* (tail tile, CTA, warpgroup): one counter */
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->own < y->own ? -1 : x->own > y->own;
}

/* What a unit is, as one side of the kernel sees it. */
struct unit_seen {
	uint32_t unit, tile, kbeg, kblocks, m0, n0;
	/* the consumers' reduction: straight on, or its slot, counter and
	 * the counter's bound */
	int direct;
	uint64_t own, ca, bound;
};

static int same_unit(const struct unit_seen *a, const struct unit_seen *b)
{
	return a->unit == b->unit && a->tile == b->tile && a->kbeg == b->kbeg &&
	       a->kblocks == b->kblocks && a->m0 == b->m0 && a->n0 == b->n0;
}

/* One consumer thread from its setup: with only = -1 it walks its own
 * units into w->seen (up to w->max; the count in w->nseen), running the
 * map, the tile origin and the reduction of each; with only a unit, that
 * unit alone (its reduction also in w->direct, own, ca, bound).  0, or
 * -1 (why in mc). */
struct walk_ctx {
	const struct split_kernel *sk;
	uint32_t units, tiles_m, tiles_n;
	struct unit_seen *seen;
	uint32_t nseen, max;
	int direct;               /* the last unit's reduction went straight on */
	uint64_t own, ca, bound;  /* its slot, counter and counter bound */
};

static int consumer_run(struct walk_ctx *w, struct machine *mc, uint32_t wg, uint32_t tid,
			int64_t only)
{
	const struct split_kernel *sk = w->sk;
	set(mc, "%wg", wg, NULL);
	set(mc, "%thread", 128 * wg + tid, NULL);
	set(mc, "%lane", tid % 32, NULL);
	set(mc, "%warp", 4 * wg + tid / 32, NULL);
	if (run_span(mc, sk->setup, sk->nsetup, NULL))
		return -1;
	if (only >= 0)
		set(mc, "%tile", (uint64_t)only, NULL);
	w->nseen = 0;
	for (uint32_t guard = 0; guard <= w->units; guard++) {
		uint32_t u = (uint32_t)need(mc, "%tile");
		if (mc->error || u >= w->units)
			return mc->error ? -1 : 0;
		if (run_span(mc, sk->cmap, sk->ncmap, "$c_whole") < 0)
			return -1;
		struct unit_seen s = { .unit = u, .tile = (uint32_t)need(mc, "%tile"),
				       .kbeg = (uint32_t)need(mc, sk->kbeg),
				       .kblocks = (uint32_t)need(mc, "%kblocks") };
		set(mc, "%tiles_m", w->tiles_m, NULL);
		set(mc, "%tiles_n", w->tiles_n, NULL);
		for (int i = 0; i < sk->k.ncfn && !mc->error; i++)
			step(mc, &sk->k.cfn[i]);
		for (int i = 0; i < sk->k.ncpost && !mc->error; i++)
			step(mc, &sk->k.cpost[i]);
		s.m0 = (uint32_t)need(mc, "%m0");
		s.n0 = (uint32_t)need(mc, "%n0");
		w->direct = run_span(mc, sk->reduce, sk->nreduce, sk->epi);
		if (w->direct < 0 || mc->error)
			return -1;
		if (!w->direct) {
			w->own = need(mc, sk->own);
			w->ca = need(mc, sk->ca);
			w->bound = need(mc, sk->bound);
		}
		s.direct = w->direct;
		s.own = w->own;
		s.ca = w->ca;
		s.bound = w->bound;
		if (w->nseen < w->max)
			w->seen[w->nseen++] = s;
		if (only >= 0 || mc->error)
			return mc->error ? -1 : 0;
		if (run_span(mc, sk->cnext, sk->ncnext, NULL))
			return -1;
	}
	m_fail(mc, "%s", "the consumers' walk does not end");
	return -1;
}

/* One problem, S and grid through the kernel: 0, or -1 with why. */
static int split_cover(const struct split_kernel *sk, uint32_t m, uint32_t n, uint32_t k,
		       const mmagen_gemm_info *info, unsigned splits, unsigned grid, char *why,
		       size_t wn)
{
	unsigned bm = info->tile_m, bn = info->tile_n, cl = info->cluster[0];
	uint32_t rows = (m + bm - 1) / bm, cols = (n + bn - 1) / bn;
	uint32_t kball = (k + info->tile_k - 1) / info->tile_k;
	uint32_t s_eff = splits < 1 ? 1 : splits > kball ? kball : splits;
	uint64_t wg_bytes = 64ull * bn * 4, ws_bytes = 0, ctr_bytes = 0;
	/* the documented walk: whole = floor(T / G) * G of the T cluster
	 * tiles (G clusters) run whole, each later one in min(S, K blocks)
	 * units; the workspace holds S slices of two warpgroup slots per
	 * tail tile and CTA, the counters one u32 per tail tile, CTA and
	 * warpgroup */
	uint32_t ctiles = (rows + cl - 1) / cl * cols, whole = ctiles / (grid / cl) * (grid / cl);
	uint32_t units_want = whole + (ctiles - whole) * s_eff;
	uint64_t ws_want = (uint64_t)(ctiles - whole) * cl * splits * 2 * wg_bytes;
	uint64_t ctr_want = (uint64_t)(ctiles - whole) * cl * 2 * 4;
	uint32_t *kmask = calloc((size_t)rows * cols, sizeof *kmask);
	unsigned char *units = calloc((size_t)rows * cols, 1), *tail = calloc((size_t)rows * cols, 1);
	unsigned char *walked = calloc((size_t)units_want * cl + 1, 1);
	struct unit_seen *pseen = calloc((size_t)units_want + 1, sizeof *pseen);
	struct unit_seen *cseen = calloc((size_t)units_want + 1, sizeof *cseen);
	size_t nslots = 0, cap = 64;
	struct slot *slots = malloc(cap * sizeof *slots);
	struct machine mc = { .m = m, .n_ = n, .k = k, .splits = splits };
	int rc = -1, swept = 0;

	if (mmagen_gemm_split_buffers_grid(info, m, n, splits, grid, &ws_bytes, &ctr_bytes)) {
		snprintf(why, wn, "split_buffers_grid: %s", mmagen_last_error());
		goto out;
	}
	if (ws_bytes != ws_want || ctr_bytes != ctr_want) {
		snprintf(why, wn, "split_buffers_grid: %llu and %llu bytes; want %llu and %llu",
			 (unsigned long long)ws_bytes, (unsigned long long)ctr_bytes,
			 (unsigned long long)ws_want, (unsigned long long)ctr_want);
		goto out;
	}
	mc.nctaid = grid;
	mc.nclusterid = grid / cl;
	for (unsigned cta = 0; cta < grid; cta++) {
		uint32_t tiles = 0, tm = 0, tn = 0, np = 0;
		mc.ctaid = cta;
		mc.clusterid = cta / cl;
		mc.rank = cta % cl;
		mc.n = 0;
		mc.error = 0;
		if (run_prologue(&sk->k, &mc, &tiles, &tm, &tn)) {
			snprintf(why, wn, "unit count: %s", mc.why);
			goto out;
		}
		if (tiles != units_want) {
			snprintf(why, wn, "%u work units; want %u (%u whole tiles, then %u tail tiles in %u slices)",
				 tiles, units_want, whole, ctiles - whole, s_eff);
			goto out;
		}
		/* the producer's walk */
		struct machine pm = mc;
		run_span(&pm, sk->pstart, sk->npstart, NULL);
		for (uint32_t guard = 0; !pm.error; guard++) {
			uint32_t u = (uint32_t)need(&pm, "%tile");
			if (pm.error || u >= tiles)
				break;
			if (guard > tiles) {
				m_fail(&pm, "%s", "the producer's walk does not end");
				break;
			}
			if (run_span(&pm, sk->pmap, sk->npmap, "$p_whole") < 0)
				break;
			struct unit_seen s = { .unit = u, .tile = (uint32_t)need(&pm, "%tile"),
					       .kbeg = (uint32_t)need(&pm, sk->kbeg),
					       .kblocks = (uint32_t)need(&pm, "%kblocks") };
			struct origin o;
			if (pm.error || origin_of(&sk->k, &pm, s.tile, tm, tn, &o))
				break;
			s.m0 = o.m0;
			s.n0 = o.n0;
			pseen[np++] = s;
			if (walked[(size_t)u * cl + mc.rank]++) {
				snprintf(why, wn, "unit %u walked twice by rank %u", u, mc.rank);
				goto out;
			}
			run_span(&pm, sk->pnext, sk->npnext, NULL);
		}
		if (pm.error) {
			snprintf(why, wn, "CTA %u, producer: %s", cta, pm.why);
			goto out;
		}
		/* each consumer warpgroup's walk (thread 0): the same units */
		for (uint32_t wg = 1; wg <= 2; wg++) {
			struct machine cm = mc;
			struct walk_ctx w = { .sk = sk, .units = tiles, .tiles_m = tm, .tiles_n = tn,
					      .seen = cseen, .max = units_want + 1 };
			if (consumer_run(&w, &cm, wg, 0, -1)) {
				snprintf(why, wn, "CTA %u warpgroup %u: %s", cta, wg, cm.why);
				goto out;
			}
			uint32_t same = 0;
			while (same < np && same < w.nseen && same_unit(&cseen[same], &pseen[same]))
				same++;
			if (w.nseen != np || same != np) {
				uint32_t i = same;
				snprintf(why, wn, "CTA %u warpgroup %u: the consumers walk %u units, the producer %u; at the %u-th: unit %u tile %u K %u+%u at (%u, %u) against unit %u tile %u K %u+%u at (%u, %u)",
					 cta, wg, w.nseen, np, i, i < w.nseen ? cseen[i].unit : 0,
					 i < w.nseen ? cseen[i].tile : 0, i < w.nseen ? cseen[i].kbeg : 0,
					 i < w.nseen ? cseen[i].kblocks : 0, i < w.nseen ? cseen[i].m0 : 0,
					 i < w.nseen ? cseen[i].n0 : 0, i < np ? pseen[i].unit : 0,
					 i < np ? pseen[i].tile : 0, i < np ? pseen[i].kbeg : 0,
					 i < np ? pseen[i].kblocks : 0, i < np ? pseen[i].m0 : 0,
					 i < np ? pseen[i].n0 : 0);
				goto out;
			}
			/* each unit's reduction, this warpgroup's thread 0 */
			for (uint32_t i = 0; i < np; i++) {
				const struct unit_seen *s = &pseen[i];
				int is_tail = s->tile >= whole && s_eff > 1;
				w.direct = cseen[i].direct;
				w.own = cseen[i].own;
				w.ca = cseen[i].ca;
				w.bound = cseen[i].bound;
				if (w.direct == is_tail) {
					snprintf(why, wn, "CTA %u unit %u (K %u+%u of %u): %s", cta, s->unit,
						 s->kbeg, s->kblocks, kball,
						 w.direct ? "a slice of a split tile skipped its slot" :
							    "a whole tile took a slot");
					goto out;
				}
				if (w.direct)
					continue;
				if (w.bound != s_eff - 1 || w.own < WS_BASE ||
				    w.own + wg_bytes > WS_BASE + ws_want || (w.own - WS_BASE) % wg_bytes ||
				    w.ca < CTR_BASE || w.ca + 4 > CTR_BASE + ctr_want || (w.ca - CTR_BASE) % 4) {
					snprintf(why, wn, "CTA %u unit %u warpgroup %u: slot +%llu (workspace %llu bytes), counter +%llu (%llu bytes) counting to %llu (want %u)",
						 cta, s->unit, wg, (unsigned long long)(w.own - WS_BASE),
						 (unsigned long long)ws_want, (unsigned long long)(w.ca - CTR_BASE),
						 (unsigned long long)ctr_want, (unsigned long long)w.bound,
						 s_eff - 1);
					goto out;
				}
				if (nslots == cap)
					slots = realloc(slots, (cap *= 2) * sizeof *slots);
				slots[nslots++] = (struct slot){ w.own, w.ca,
					(uint32_t)(((s->tile - whole) * cl + mc.rank) * 2 + wg - 1) };
				/* once per problem: all 128 threads of the warpgroup
				 * store the slot's every 16 bytes once */
				if (!swept && wg == 2) {
					unsigned char *cover16 = calloc(2 * wg_bytes / 16, 1);
					uint64_t base = w.own - wg_bytes;   /* warpgroup 1's slot */
					int bad = 0;
					for (uint32_t g = 1; g <= 2 && !bad; g++)
						for (uint32_t t = 0; t < 128 && !bad; t++) {
							struct machine tmc = mc;
							if (consumer_run(&w, &tmc, g, t, s->unit) || w.direct) {
								snprintf(why, wn, "CTA %u unit %u warpgroup %u thread %u: %s",
									 cta, s->unit, g, t, w.direct ? "no slot" : tmc.why);
								bad = 1;
								break;
							}
							for (unsigned q = 0; q < sk->noffs && !bad; q++) {
								uint64_t at = w.own + sk->offs[q];
								if (at < base || at + 16 > base + 2 * wg_bytes || (at - base) % 16 ||
								    cover16[(at - base) / 16]++) {
									snprintf(why, wn, "CTA %u unit %u warpgroup %u thread %u: a store at slot +%lld",
										 cta, s->unit, g, t, (long long)(at - base));
									bad = 1;
								}
							}
						}
					for (uint64_t q = 0; q < 2 * wg_bytes / 16 && !bad; q++)
						if (cover16[q] != 1) {
							snprintf(why, wn, "CTA %u unit %u: 16 bytes at slot +%llu stored %u times",
								 cta, s->unit, (unsigned long long)(q * 16), cover16[q]);
							bad = 1;
						}
					free(cover16);
					if (bad)
						goto out;
					swept = 1;
				}
			}
		}
		/* K coverage, from the walk both sides agree on */
		for (uint32_t i = 0; i < np; i++) {
			const struct unit_seen *s = &pseen[i];
			if (s->kblocks < 1 || s->kbeg + s->kblocks > kball) {
				snprintf(why, wn, "CTA %u unit %u: K blocks %u+%u of %u", cta, s->unit, s->kbeg,
					 s->kblocks, kball);
				goto out;
			}
			if (s->m0 % bm || s->n0 % bn || s->n0 >= n ||
			    (s->m0 >= m && !(mc.rank > 0 && s->m0 / bm == rows))) {
				snprintf(why, wn, "CTA %u unit %u: origin (%u, %u)", cta, s->unit, s->m0, s->n0);
				goto out;
			}
			if (s->m0 >= m)
				continue;
			size_t key = (size_t)(s->m0 / bm) * cols + s->n0 / bn;
			uint32_t bits = (s->kblocks >= 32 ? ~0u : ((1u << s->kblocks) - 1)) << s->kbeg;
			if (kmask[key] & bits) {
				snprintf(why, wn, "tile (%u, %u): K blocks %u+%u taken twice (CTA %u unit %u)",
					 s->m0, s->n0, s->kbeg, s->kblocks, cta, s->unit);
				goto out;
			}
			kmask[key] |= bits;
			units[key]++;
			tail[key] = s->tile >= whole;
		}
	}
	/* every unit walked once by each rank; every tile inside M x N: all
	 * its K blocks, in one unit when whole and min(S, K blocks) in the tail */
	for (size_t i = 0; i < (size_t)units_want * cl; i++)
		if (walked[i] != 1) {
			snprintf(why, wn, "unit %zu walked %u times by rank %zu", i / cl, walked[i], i % cl);
			goto out;
		}
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		if (kmask[i] != (kball >= 32 ? ~0u : (1u << kball) - 1) ||
		    units[i] != (tail[i] ? s_eff : 1)) {
			snprintf(why, wn, "tile (%zu, %zu)%s: K mask %#x of %u blocks in %u units",
				 i / cols * bm, i % cols * bn, tail[i] ? " (tail)" : "", kmask[i], kball,
				 units[i]);
			goto out;
		}
	/* slots apart; a counter per (tile, CTA, warpgroup), shared by its slices */
	qsort(slots, nslots, sizeof *slots, slot_cmp);
	for (size_t i = 0; i < nslots; i++) {
		if (i && slots[i].own == slots[i - 1].own) {
			snprintf(why, wn, "two units write workspace +%llu",
				 (unsigned long long)(slots[i].own - WS_BASE));
			goto out;
		}
		for (size_t j = 0; j < nslots; j++)
			if ((slots[i].ca == slots[j].ca) != (slots[i].key == slots[j].key)) {
				snprintf(why, wn, "counter +%llu: tiles/warpgroups %u and %u",
					 (unsigned long long)(slots[i].ca - CTR_BASE), slots[i].key,
					 slots[j].key);
				goto out;
			}
	}
	rc = 0;
out:
	free(kmask);
	free(units);
	free(tail);
	free(walked);
	free(pseen);
	free(cseen);
	free(slots);
	return rc;
}

/* Shapes, S and grids through one split kernel: 0, or -1 with why. */
static int split_sweep(const char *ptx, const mmagen_gemm_info *info, unsigned *runs, char *why,
		       size_t wn)
{
	static const uint32_t ms[] = { 1, 200, 520 }, ns[] = { 8, 300, 700 };
	static const uint32_t kbs[] = { 1, 2, 7 };
	static const unsigned ss[] = { 1, 3, 9 }, grids[] = { 1, 3, 16, 132 };
	struct split_kernel sk;
	if (split_parse(ptx, &sk, why, wn)) {
		split_free(&sk);
		return -1;
	}
	int rc = 0;
	for (size_t a = 0; a < 3 && !rc; a++)
		for (size_t b = 0; b < 3 && !rc; b++)
			for (size_t c = 0; c < 3 && !rc; c++)
				for (size_t s = 0; s < 3 && !rc; s++)
					for (size_t g = 0; g < 4 && !rc; g++) {
						uint32_t k = kbs[c] * info->tile_k;
						unsigned grid = grids[g] * info->cluster[0];
						char w[300];
						if (split_cover(&sk, ms[a], ns[b], k, info, ss[s], grid, w,
								sizeof w)) {
							snprintf(why, wn, "M %u N %u K %u S %u grid %u: %s",
								 ms[a], ns[b], k, ss[s], grid, w);
							rc = -1;
						}
						++*runs;
					}
	split_free(&sk);
	return rc;
}

static void test_split(void)
{
	static const struct { mmagen_type a, out; unsigned tile_m, tile_n, cluster; } kinds[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, 128, 128, 1 }, { MMAGEN_BF16, MMAGEN_F32, 128, 256, 2 },
		{ MMAGEN_E4M3, MMAGEN_BF16, 128, 192, 1 }, { MMAGEN_E4M3, MMAGEN_F32, 128, 64, 2 },
		{ MMAGEN_BF16, MMAGEN_BF16, 64, 128, 1 }, { MMAGEN_E4M3, MMAGEN_BF16, 16, 64, 2 },
		{ MMAGEN_TF32, MMAGEN_F32, 128, 96, 1 }, { MMAGEN_S8, MMAGEN_S32, 32, 128, 1 },
	};
	unsigned runs = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		mmagen_gemm_request r = req(kinds[i].a, kinds[i].out, kinds[i].tile_n, 8, kinds[i].cluster);
		r.tile_m = kinds[i].tile_m;
		r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
		mmagen_gemm_info info = { .size = sizeof info };
		char *ptx = NULL, why[500] = "";
		if (mmagen_gemm_info_of(&r, &info) || emit_named(&r, &ptx)) {
			fail("split %s %ux%u: %s", mmagen_type_name(kinds[i].a), kinds[i].tile_m,
			     kinds[i].tile_n, mmagen_last_error());
			continue;
		}
		CHECK(!split_sweep(ptx, &info, &runs, why, sizeof why), "split %s tile %ux%u cluster %u: %s",
		      mmagen_type_name(kinds[i].a), info.tile_m, info.tile_n, info.cluster[0], why);
		mmagen_free(ptx);
	}
	CHECK(runs > 1000, "%u split runs", runs);

	/* the test can fail: a slice's K blocks from the quotient in place
	 * of the remainder (in the consumers' map only), and each slice's
	 * slot one warpgroup slot apart rather than two */
	mmagen_gemm_request r = req(MMAGEN_BF16, MMAGEN_BF16, 128, 8, 1);
	r.split_k = MMAGEN_GEMM_SPLIT_AUTO;
	mmagen_gemm_info info = { .size = sizeof info };
	char *ptx = NULL, why[500];
	unsigned n = 0;
	if (mmagen_gemm_info_of(&r, &info) || emit_named(&r, &ptx)) {
		fail("split mutants: %s", mmagen_last_error());
		return;
	}
	const char *cmap = strstr(ptx, "\n$c_tile:");
	char *quot = NULL, *half = NULL;
	const char *at = cmap ? strstr(cmap, "rem.u32 %sl_s, %sl_q,") : NULL;
	if (at) {
		quot = malloc(strlen(ptx) + 1);
		strcpy(quot, ptx);
		memcpy(quot + (at - ptx), "div", 3);
	}
	char two[32], one[32];
	snprintf(two, sizeof two, ", %llu;", 2ull * 64 * info.tile_n * 4);
	snprintf(one, sizeof one, ", %llu;", 1ull * 64 * info.tile_n * 4);
	const char *meet = strstr(ptx, "// the K slices' sums meet");
	const char *mul = meet ? strstr(meet, "mul.wide.u32") : NULL;
	mul = mul ? strstr(mul + 1, "mul.wide.u32") : NULL;    /* own = slice * 2 slots */
	const char *imm = mul ? strstr(mul, two) : NULL;
	if (imm && imm < strchr(mul, '\n')) {
		half = malloc(strlen(ptx) + 1);
		memcpy(half, ptx, (size_t)(imm - ptx));
		strcpy(half + (imm - ptx), one);
		strcat(half, imm + strlen(two));
	}
	CHECK(quot && half, "the mutated lines are in the split kernel (update this test)");
	CHECK(!split_sweep(ptx, &info, &n, why, sizeof why), "the real split kernel: %s", why);
	CHECK(quot && split_sweep(quot, &info, &n, why, sizeof why),
	      "a slice's K blocks from the quotient went unnoticed");
	CHECK(half && split_sweep(half, &info, &n, why, sizeof why) && strstr(why, "workspace"),
	      "slices one warpgroup slot apart went unnoticed: %s", half ? why : "");
	free(quot);
	free(half);

	/* more: the consumers' map without its first K block's zero; the
	 * producer stepping two grids at a time; the reduction's early exit
	 * to the next unit rather than the epilogue; the counter counting to
	 * S rather than S - 1; a thread's 16 bytes 32 apart */
	char kb0[64], epi_to[64];
	struct split_kernel sk;
	int parsed = !split_parse(ptx, &sk, why, sizeof why);
	CHECK(parsed, "parse the split kernel: %s", why);
	snprintf(kb0, sizeof kb0, "\tmov.u32 %s, 0;\n", parsed ? sk.kbeg : "?");
	snprintf(epi_to, sizeof epi_to, "bra.uni %s;", parsed ? sk.epi : "?");
	if (parsed)
		split_free(&sk);
	static const char step2[] = "add.u32 %tile, %tile, %t;\n\tadd.u32 %tile, %tile, %t;\n\tbra $p_tile;";
	const struct { const char *after, *from, *to, *what; } more[] = {
		{ "\n$c_tile:", kb0, "\n", "the consumers' map without kbeg = 0" },
		{ "bra $p_kblock;", "add.u32 %tile, %tile, %t;\n\tbra $p_tile;", step2,
		  "the producer stepping by two grids" },
		{ "// the K slices' sums meet", epi_to, "bra.uni $c_unit_done;",
		  "the reduction's early exit to the next unit" },
		{ "bar.sync %wg, 128;", ", 1;\n", ", 0;\n", "the counter counting to S" },
		{ "[pworkspace]", ", 16;\n", ", 32;\n", "a thread's 16 bytes 32 apart" },
	};
	for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
		const char *a = strstr(ptx, more[i].after);
		const char *at = a ? strstr(a, more[i].from) : NULL;
		if (!at) {
			fail("mutant '%s': its line is not in the kernel (update this test)", more[i].what);
			continue;
		}
		char *mut = malloc(strlen(ptx) + strlen(more[i].to) + 1);
		memcpy(mut, ptx, (size_t)(at - ptx));
		strcpy(mut + (at - ptx), more[i].to);
		strcat(mut, at + strlen(more[i].from));
		CHECK(split_sweep(mut, &info, &n, why, sizeof why), "%s went unnoticed", more[i].what);
		free(mut);
	}
	mmagen_free(ptx);
}

/* ---- tensor maps ---- */
/* The manifest's entry for tensor map `name`: its box, swizzle, elem
 * bytes and dims names ("K", "M"), from the JSON text. */
struct jmap {
	unsigned box[2], swizzle, elem_bytes;
	char dim[2][4];
};

static int json_map(const char *json, const char *name, struct jmap *m)
{
	char key[64];
	snprintf(key, sizeof key, "{\"name\": \"%s\", \"kind\": \"tensor_map\"", name);
	const char *p = strstr(json, key);
	return p && sscanf(p + strlen(key), ", \"dims\": [\"%3[A-Z]\", \"%3[A-Z]\"], \"box\": [%u, %u],"
			   " \"swizzle\": %u, \"elem_bytes\": %u", m->dim[0], m->dim[1], &m->box[0],
			   &m->box[1], &m->swizzle, &m->elem_bytes) == 6 ? 0 : -1;
}

static uint64_t dim_of(const char *d, uint32_t m, uint32_t n, uint32_t k)
{
	return !strcmp(d, "M") ? m : !strcmp(d, "N") ? n : !strcmp(d, "K") ? k : 0;
}

static void test_maps(void)
{
	static const struct { mmagen_type a, b, out; unsigned tile_n, cluster; } kinds[] = {
		{ MMAGEN_BF16, MMAGEN_BF16, MMAGEN_BF16, 0, 1 }, { MMAGEN_F16, MMAGEN_F16, MMAGEN_F32, 128, 2 },
		{ MMAGEN_TF32, MMAGEN_TF32, MMAGEN_F32, 0, 1 }, { MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_F16, 0, 2 },
		{ MMAGEN_S8, MMAGEN_U8, MMAGEN_S32, 192, 1 }, { MMAGEN_BF16, MMAGEN_BF16, MMAGEN_F16, 80, 1 },
	};
	static const uint32_t shapes[][3] = { { 1, 8, 64 }, { 4096, 4096, 4096 }, { 129, 130, 4128 },
					      { 16, 14336, 4096 }, { 1000, 24, 96 } };
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		mmagen_gemm_request r = req(kinds[i].a, kinds[i].out, kinds[i].tile_n, 0, kinds[i].cluster);
		r.b = kinds[i].b;
		char *json = NULL, *text = NULL;
		struct jmap ja, jb, jd;
		struct gemm_abi abi;
		const char *tn = mmagen_type_name(kinds[i].a);
		if (mmagen_gemm_emit(&r, MMAGEN_FMT_JSON, &json, NULL) ||
		    mmagen_gemm_emit(&r, MMAGEN_FMT_ABI, &text, NULL)) {
			fail("maps %s: %s", tn, mmagen_last_error());
			continue;
		}
		CHECK(!json_map(json, "tensor_a", &ja) && !json_map(json, "tensor_b", &jb) &&
		      !json_map(json, "tensor_d", &jd), "maps %s: the manifest's three maps", tn);
		if (mmart_gemm_abi_parse(text, &abi)) {
			fail("maps %s: the ABI does not parse: %s", tn, mmart_last_error());
			goto next;
		}
		const unsigned *box[3] = { abi.box_a, abi.box_b, abi.box_d };
		const struct jmap *jm[3] = { &ja, &jb, &jd };
		unsigned eb[3] = { rg_elem_bytes(kinds[i].a), rg_elem_bytes(kinds[i].b),
				   rg_elem_bytes(kinds[i].out) };
		for (int o = 0; o < 3; o++)
			CHECK(box[o][0] == jm[o]->box[0] && box[o][1] == jm[o]->box[1] &&
			      abi.swizzle == jm[o]->swizzle && jm[o]->elem_bytes == eb[o],
			      "maps %s operand %d: the ABI's box {%u, %u} and the manifest's {%u, %u}", tn, o,
			      box[o][0], box[o][1], jm[o]->box[0], jm[o]->box[1]);
		for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
			uint32_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
			/* D 16-byte aligned or not */
			for (uint64_t dbase = 0x10000; dbase <= 0x10004; dbase += 4) {
				mmart_gemm_args args;
				struct gemm_launch l;
				mmart_gemm_args_init(&args);
				args.m = m;
				args.n = n;
				args.k = k;
				args.a = 0x7f0000000000ull;
				args.b = 0x7f1000000000ull;
				args.d = dbase;
				if (mmart_gemm_plan(&abi, 132, &args, &l)) {
					fail("maps %s %ux%ux%u: %s", tn, m, n, k, mmart_last_error());
					continue;
				}
				/* D not aligned to pairs is staged (into an aligned
				 * buffer, 16-byte pitch) */
				int d_staged = dbase % (2 * eb[2]) != 0;
				int want_d = jd.box[0] && (d_staged || dbase % 16 == 0) &&
					     (uint64_t)n * eb[2] % 16 == 0;
				CHECK(l.d_tma == want_d, "maps %s %ux%ux%u D at %#llx: d_tma %d", tn, m, n, k,
				      (unsigned long long)dbase, l.d_tma);
				/* dense operands whose rows are 16-byte multiples are read
				 * in place; the others are staged to 16-byte pitches */
				const uint64_t *dims[3] = { l.dims_a, l.dims_b, l.dims_d };
				const uint64_t pitch[3] = { l.pitch_a, l.pitch_b, l.pitch_d };
				const struct gemm_view *v[3] = { &l.a, &l.b, &l.d };
				for (int o = 0; o < (l.d_tma ? 3 : 2); o++) {
					uint64_t d0 = dim_of(jm[o]->dim[0], m, n, k), d1 = dim_of(jm[o]->dim[1], m, n, k);
					uint64_t want_pitch = v[o]->staged ? (d0 * eb[o] + 15) / 16 * 16 : d0 * eb[o];
					CHECK(dims[o][0] == d0 && dims[o][1] == d1 && pitch[o] == want_pitch &&
					      v[o]->staged == (o < 2 ? d0 * eb[o] % 16 != 0 : d_staged),
					      "maps %s %ux%ux%u operand %d: dims {%llu, %llu} pitch %llu staged %d",
					      tn, m, n, k, o, (unsigned long long)dims[o][0],
					      (unsigned long long)dims[o][1], (unsigned long long)pitch[o],
					      v[o]->staged);
					mmart_tensor_desc d = {
						.dtype = MMART_TENSOR_U8, .rank = 2, .addr = 0x7f2000000000ull,
						.dims = { dims[o][0] * eb[o], dims[o][1] },
						.strides = { pitch[o] }, .box = { box[o][0] * eb[o], box[o][1] },
						.elem_strides = { 1, 1 }, .swizzle = MMART_SWIZZLE_128B,
					};
					CHECK(mmart_tensor_desc_check("X", &d) == MMART_OK,
					      "maps %s %ux%ux%u operand %d: %s", tn, m, n, k, o, mmart_last_error());
				}
			}
		}
next:
		mmagen_free(json);
		mmagen_free(text);
	}
}

int main(void)
{
	test_schedule();
	test_mutants();
	test_split();
	test_small_tiles();
	test_maps();
	return check_summary();
}
