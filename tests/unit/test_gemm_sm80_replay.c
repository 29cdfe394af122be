/* test_gemm_sm80_replay.c - the mma.sync GEMM (gen/gemm/kernel_gemm_sm80.c)
 * run on the CPU: a small interpreter executes the emitted PTX text of
 * whole CTAs, instruction by instruction, and D is compared with a
 * reference computed here from A, B and C.
 *
 * The interpreter knows only PTX: the integer and predicate arithmetic
 * that makes the addresses and predicates, cp.async with its zero fill
 * (src-size or ignore-src) and its groups (a copy lands at the wait that
 * retires its group, as late as the rules allow, and reading its bytes
 * before then is reported as a race), ldmatrix (.trans too) and mma.sync with the
 * fragment layouts of the PTX ISA (restated below, not taken from the
 * library), and the epilogue's loads, conversions, stores and atomics.
 * Every global access must lie inside A, B, C or D.  The threads of a CTA
 * run in lockstep, so every branch must be uniform (the kernel's are
 * bra.uni).  Lockstep alone would hide a missing barrier (every warp has
 * read a stage before anyone overwrites it): the replay also tracks
 * happens-before per warp (bar.sync; mbarrier arrive and the wait loop
 * that sees the phase), and a cp.async into a byte that another warp read
 * must come after that read.  (It models mbarriers and cp.async's
 * mbarrier arrive for a pipeline without CTA barriers: branch mbar-sync.)
 * The epilogue stages D through shared memory (st.shared / ld.shared
 * .v2): 8-byte accesses in phases of 16 lanes must not share banks, a
 * store into bytes another warp read (the stages' last ldmatrix) needs a
 * barrier between, and within a warp a lane may read or overwrite
 * another lane's bytes only across a bar.warp.sync (the interpreter's
 * lockstep would hide a missing one).
 * Split-K's handoff likewise: every warp's workspace stores must happen
 * before thread 0's atom.inc (the release that publishes them), and a
 * workspace load must come after the stores of every warp of its CTA; a
 * trap fails the replay.
 *
 * Inputs are small integers, so every sum is exact in f32 (and in f16
 * where the kernel accumulates in f16) and D must match bit for bit.
 * Nothing here is derived from the generator but the PTX itself. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "check.h"
#include "run_gemm.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the program ---- */

enum okind { O_REG, O_IMM, O_VEC, O_ADDR, O_NAME, O_SPECIAL };
enum special { SP_TID_X, SP_CTAID_X, SP_CTAID_Z, SP_NCTAID_Z };

#define MAXVEC 4
#define MAXOPS 6
#define NAMELEN 32

struct opnd {
	enum okind k;
	int reg;                     /* O_REG, O_ADDR's base (-1: a name) */
	int neg;                     /* O_REG written !%p (a negated predicate) */
	uint64_t imm;                /* O_IMM, O_ADDR's offset, O_SPECIAL */
	int n, v[MAXVEC];            /* O_VEC */
	char name[NAMELEN];          /* O_NAME, O_ADDR through a name */
};

/* The opcodes the kernel uses, by their full PTX spelling.  An opcode
 * not listed fails the test: a change in the kernel must be taught here,
 * never skipped. */
#define OPS(X) \
	X(ADD_U32, "add.u32") X(ADD_U64, "add.u64") X(SUB_U32, "sub.u32") \
	X(MUL_LO_U32, "mul.lo.u32") X(MUL_LO_S32, "mul.lo.s32") X(MUL_WIDE_U32, "mul.wide.u32") \
	X(MAD_LO_U32, "mad.lo.u32") X(MAD_LO_S32, "mad.lo.s32") X(DIV_U32, "div.u32") \
	X(REM_U32, "rem.u32") X(MIN_U32, "min.u32") X(MAX_U32, "max.u32") \
	X(SHL_B32, "shl.b32") X(SHL_B64, "shl.b64") X(SHR_U32, "shr.u32") X(SHR_B64, "shr.b64") \
	X(AND_B32, "and.b32") X(XOR_B32, "xor.b32") X(AND_PRED, "and.pred") X(NOT_PRED, "not.pred") \
	X(MOV_U32, "mov.u32") X(MOV_B32, "mov.b32") X(MOV_F32, "mov.f32") X(MOV_B16, "mov.b16") \
	X(SETP_LT_U32, "setp.lt.u32") X(SETP_GE_U32, "setp.ge.u32") X(SETP_EQ_U32, "setp.eq.u32") X(SETP_NE_U32, "setp.ne.u32") \
	X(SETP_LT_AND_U32, "setp.lt.and.u32") X(SETP_GT_AND_U32, "setp.gt.and.u32") X(SETP_NEU_F32, "setp.neu.f32") \
	X(SELP_U32, "selp.u32") X(SELP_B64, "selp.b64") X(CVT_U64_U32, "cvt.u64.u32") \
	X(CVTA_GLOBAL, "cvta.to.global.u64") \
	X(LD_PARAM_U32, "ld.param.u32") X(LD_PARAM_U64, "ld.param.u64") X(LD_PARAM_F32, "ld.param.f32") \
	X(LD_GLOBAL_B32, "ld.global.b32") X(LD_GLOBAL_F32, "ld.global.f32") \
	X(LD_GLOBAL_B16, "ld.global.b16") X(LD_GLOBAL_U16, "ld.global.u16") \
	X(ST_GLOBAL_B32, "st.global.b32") X(ST_GLOBAL_V2_B32, "st.global.v2.b32") \
	X(ST_GLOBAL_B16, "st.global.b16") \
	X(ST_CG_V2_F32, "st.global.cg.v2.f32") X(ST_CG_V2_S32, "st.global.cg.v2.s32") \
	X(LD_CG_V2_F32, "ld.global.cg.v2.f32") X(LD_CG_V2_S32, "ld.global.cg.v2.s32") \
	X(ATOM_INC, "atom.acq_rel.gpu.global.inc.u32") X(BAR_RED_OR, "bar.red.or.pred") \
	X(ADD_F32, "add.f32") X(ADD_S32, "add.s32") \
	X(CVT_F32_F16, "cvt.f32.f16") X(CVT_RN_F16_F32, "cvt.rn.f16.f32") \
	X(CVT_RN_BF16_F32, "cvt.rn.bf16.f32") X(CVT_RN_F16X2_F32, "cvt.rn.f16x2.f32") \
	X(CVT_RN_BF16X2_F32, "cvt.rn.bf16x2.f32") X(CVT_RN_F32_S32, "cvt.rn.f32.s32") \
	X(CVT_RZI_S32_F32, "cvt.rzi.s32.f32") X(MUL_F32, "mul.f32") X(FMA_RN_F32, "fma.rn.f32") \
	X(CP_ASYNC, "cp.async.cg.shared.global") X(CP_COMMIT, "cp.async.commit_group") \
	X(CP_WAIT, "cp.async.wait_group") X(BAR_SYNC, "bar.sync") X(BRA_UNI, "bra.uni") \
	X(BRA, "bra") X(CP_WAIT_ALL, "cp.async.wait_all") \
	X(MBAR_INIT, "mbarrier.init.shared.b64") X(MBAR_ARRIVE, "mbarrier.arrive.shared.b64") \
	X(CP_MBAR_ARRIVE, "cp.async.mbarrier.arrive.noinc.shared.b64") \
	X(MBAR_TEST, "mbarrier.test_wait.parity.shared.b64") \
	X(ST_SHARED_V2, "st.shared.v2.b32") X(LD_SHARED_V2, "ld.shared.v2.b32") \
	X(BAR_WARP_SYNC, "bar.warp.sync") \
	X(RET, "ret") X(TRAP, "trap") X(LDMATRIX, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") \
	X(LDMATRIX_T, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")

enum op {
#define X_(id, s) OP_##id,
	OPS(X_)
#undef X_
	OP_MMA
};

static const char *const op_names[] = {
#define X_(id, s) s,
	OPS(X_)
#undef X_
};

struct mma_shape { unsigned k; mmagen_type d, a, b, c; };

struct ins {
	enum op op;
	int guard, guard_neg;        /* guard: -1 none */
	int nops;
	struct opnd o[MAXOPS];
	int target;                  /* bra: the instruction index */
	struct mma_shape mma;
	unsigned line;
};

struct prog {
	struct ins *ins;
	unsigned n, cap;
	char (*regs)[NAMELEN];
	unsigned nregs, regcap;
	struct { char name[NAMELEN]; unsigned at; } labels[64];
	unsigned nlabels;
	unsigned threads;
	char err[256];
};

static int reg_id(struct prog *p, const char *name)
{
	for (unsigned i = 0; i < p->nregs; i++)
		if (!strcmp(p->regs[i], name))
			return (int)i;
	if (p->nregs == p->regcap) {
		p->regcap = p->regcap ? 2 * p->regcap : 256;
		p->regs = realloc(p->regs, p->regcap * sizeof *p->regs);
	}
	snprintf(p->regs[p->nregs], NAMELEN, "%s", name);
	return (int)p->nregs++;
}

static void trim(char *s)
{
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	size_t lead = strspn(s, " \t");
	memmove(s, s + lead, strlen(s + lead) + 1);
}

static int parse_opnd(struct prog *p, char *s, struct opnd *o)
{
	trim(s);
	memset(o, 0, sizeof *o);
	o->reg = -1;
	if (*s == '{') {
		o->k = O_VEC;
		char *save = NULL;
		s[strlen(s) - 1] = 0;
		for (char *t = strtok_r(s + 1, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			trim(t);
			if (o->n == MAXVEC)
				return -1;
			o->v[o->n++] = reg_id(p, t);
		}
		return 0;
	}
	if (*s == '[') {
		o->k = O_ADDR;
		s[strlen(s) - 1] = 0;
		char *plus = strchr(s + 1, '+');
		if (plus) {
			*plus = 0;
			o->imm = strtoull(plus + 1, NULL, 0);
		}
		char *b = s + 1;
		trim(b);
		if (*b == '%')
			o->reg = reg_id(p, b);
		else
			snprintf(o->name, NAMELEN, "%s", b);
		return 0;
	}
	if (!strcmp(s, "%tid.x") || !strcmp(s, "%ctaid.x") || !strcmp(s, "%ctaid.z") ||
	    !strcmp(s, "%nctaid.z")) {
		o->k = O_SPECIAL;
		o->imm = !strcmp(s, "%tid.x") ? SP_TID_X : !strcmp(s, "%ctaid.x") ? SP_CTAID_X :
			 !strcmp(s, "%ctaid.z") ? SP_CTAID_Z : SP_NCTAID_Z;
		return 0;
	}
	if (*s == '%' || (s[0] == '!' && s[1] == '%')) {
		o->k = O_REG;
		o->neg = *s == '!';
		o->reg = reg_id(p, s + o->neg);
		return 0;
	}
	if (s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {   /* f32 bits in hex */
		o->k = O_IMM;
		o->imm = strtoull(s + 2, NULL, 16);
		return 0;
	}
	if ((*s >= '0' && *s <= '9') || *s == '-') {
		o->k = O_IMM;
		o->imm = (uint64_t)strtoll(s, NULL, 0);
		return 0;
	}
	o->k = O_NAME;
	snprintf(o->name, NAMELEN, "%s", s);
	return 0;
}

/* mma.sync.aligned.m16n8kK.row.col.D.A.B.C */
static int parse_mma(const char *opc, struct mma_shape *m)
{
	char t[4][8];
	unsigned k;
	if (sscanf(opc, "mma.sync.aligned.m16n8k%u.row.col.%7[^.].%7[^.].%7[^.].%7s", &k, t[0],
		   t[1], t[2], t[3]) != 5)
		return -1;
	m->k = k;
	mmagen_type *dst[4] = { &m->d, &m->a, &m->b, &m->c };
	for (int i = 0; i < 4; i++)
		if (mmagen_type_parse(t[i], dst[i]))
			return -1;
	return 0;
}

static int parse_line(struct prog *p, char *s, unsigned line)
{
	struct ins in;
	memset(&in, 0, sizeof in);
	in.guard = -1;
	in.line = line;
	if (*s == '@') {
		char *sp = strpbrk(s, " \t");
		*sp = 0;
		in.guard_neg = s[1] == '!';
		in.guard = reg_id(p, s + 1 + in.guard_neg);
		s = sp + 1;
		trim(s);
	}
	char *sp = strpbrk(s, " \t"), *args = sp ? sp + 1 : s + strlen(s);
	if (sp)
		*sp = 0;
	unsigned i;
	for (i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
		if (!strcmp(s, op_names[i]))
			break;
	if (i < sizeof op_names / sizeof op_names[0]) {
		in.op = (enum op)i;
	} else if (!parse_mma(s, &in.mma)) {
		in.op = OP_MMA;
	} else {
		snprintf(p->err, sizeof p->err, "line %u: the replay does not know %s", line, s);
		return -1;
	}
	/* split at commas outside braces and brackets */
	int depth = 0;
	char *start = args;
	for (char *c = args;; c++) {
		if (*c == '{' || *c == '[')
			depth++;
		if (*c == '}' || *c == ']')
			depth--;
		if ((*c == ',' && !depth) || !*c) {
			int end = !*c;
			*c = 0;
			if (*start) {
				if (in.nops == MAXOPS || parse_opnd(p, start, &in.o[in.nops])) {
					snprintf(p->err, sizeof p->err, "line %u: bad operands", line);
					return -1;
				}
				in.nops++;
			}
			if (end)
				break;
			start = c + 1;
		}
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->ins = realloc(p->ins, p->cap * sizeof *p->ins);
	}
	p->ins[p->n++] = in;
	return 0;
}

static int parse(struct prog *p, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int in_body = 0, rc = 0;
	unsigned line = 0;
	memset(p, 0, sizeof *p);
	for (char *l = strtok_r(copy, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		line++;
		char *c = strstr(l, "//");
		if (c)
			*c = 0;
		trim(l);
		if (!strncmp(l, ".maxntid", 8))
			p->threads = (unsigned)strtoul(l + 8, NULL, 10);
		if (!in_body) {
			in_body = !strcmp(l, "{");
			continue;
		}
		if (!strcmp(l, "}"))
			break;
		if (!*l || *l == '.')
			continue;
		size_t len = strlen(l);
		if (l[len - 1] == ':') {
			l[len - 1] = 0;
			snprintf(p->labels[p->nlabels].name, NAMELEN, "%s", l);
			p->labels[p->nlabels++].at = p->n;
			continue;
		}
		if (l[len - 1] != ';') {
			snprintf(p->err, sizeof p->err, "line %u: no ';' in %s", line, l);
			rc = -1;
			break;
		}
		l[len - 1] = 0;
		rc = parse_line(p, l, line);
	}
	free(copy);
	for (unsigned i = 0; !rc && i < p->n; i++) {
		struct ins *in = &p->ins[i];
		if (in->op != OP_BRA_UNI && in->op != OP_BRA)
			continue;
		in->target = -1;
		for (unsigned j = 0; j < p->nlabels; j++)
			if (!strcmp(p->labels[j].name, in->o[0].name))
				in->target = (int)p->labels[j].at;
		if (in->target < 0) {
			snprintf(p->err, sizeof p->err, "no label %s", in->o[0].name);
			rc = -1;
		}
	}
	if (!rc && !p->threads) {
		snprintf(p->err, sizeof p->err, "no .maxntid");
		rc = -1;
	}
	return rc;
}

static void prog_free(struct prog *p)
{
	free(p->ins);
	free(p->regs);
}

/* ---- the machine ---- */

struct region { const char *name; uint8_t *p; size_t size; };

struct copy { unsigned t, group, dst, size, seq; uint64_t src; };

/* An mbarrier (PTX ISA: phases of `count` arrivals; test_wait.parity q is
 * true once the phase of parity q has completed, so on a fresh barrier
 * parity 1 passes).  cp.async.mbarrier.arrive.noinc arrives when the
 * thread's earlier copies have landed: the replay lands them as late as
 * it can, when a thread tests again a barrier it found incomplete, so
 * that a read before the wait (or after one test) finds them in flight.
 * The threads run in lockstep: the replay checks the data each wait
 * promises, that no wait waits forever, and (the clocks below) that
 * the barriers order every read of a stage before its overwrite. */
#define MAXBARS 64
#define MAXW 16                  /* warps a CTA has at most (512 threads) */
/* Happens-before, per warp (the lanes run together): vc[w][v] is the last
 * release of warp v that warp w has acquired (arrive -> test_wait that
 * sees the phase, or bar.sync).  A shared byte remembers each warp's
 * clock when it last read it (ldmatrix); a cp.async into it must come
 * after every other warp's last read of it, through the barriers: that
 * is what the empty barriers are for, and lockstep alone would hide a
 * missing one. */
typedef uint32_t vclock[MAXW];
struct mbar {
	unsigned addr, count, pending, phase;   /* phase: completed phases */
	vclock cur, done[2];                     /* releases into the phase; of the last two */
	unsigned init_warp, init_clock;
	unsigned spun;                           /* tests in a row that found it incomplete */
	unsigned ndefer, defer_t[1024], defer_seq[1024];
	uint32_t defer_clock[1024];             /* the arriving warp's own clock */
};

struct cta {
	const struct prog *p;
	unsigned threads, ctaid_x, ctaid_z, nctaid_z;
	uint64_t *r;                 /* threads x nregs */
	uint8_t *smem;
	unsigned *inflight;          /* per shared byte: cp.async copies not landed */
	unsigned smem_size;
	struct region g[6];          /* A, B, C, D, split-K's workspace and counters */
	struct { const char *name; uint64_t v; } params[15];
	struct copy *copies;
	unsigned ncopies, copycap;
	unsigned *committed;         /* per thread: groups committed */
	unsigned *issued;            /* per thread: copies issued */
	struct mbar bars[MAXBARS];
	unsigned nbars;
	vclock vc[MAXW];
	int test_loops;              /* the test_wait being run is a wait loop's */
	uint32_t ws_store[MAXW];     /* per warp: its clock at its last workspace store + 1, 0: none */
	uint32_t *lastread;          /* per shared byte x warp: clock of the last read, 0: none */
	/* per shared byte: the warp (+1, 0: none) of the last st.shared into
	 * it, and that warp's clock then */
	uint8_t *lw_warp;
	uint32_t *lw_clock;
	/* within a warp: the lane of the last store into a byte and of the
	 * last load from it, and the warp's bar.warp.sync count then; a lane
	 * may see another lane's bytes only across a bar.warp.sync */
	uint8_t *lw_lane, *lr_lane, *lr_warp;
	uint32_t *lw_epoch, *lr_epoch;
	uint32_t wsync[MAXW];
	char err[256];
};

#define R(c, t, id) ((c)->r[(size_t)(t) * (c)->p->nregs + (size_t)(id)])

static int cta_fail(struct cta *c, const struct ins *in, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cta_fail(struct cta *c, const struct ins *in, const char *fmt, ...)
{
	if (!c->err[0]) {
		va_list ap;
		int n = snprintf(c->err, sizeof c->err, "line %u (%s): ", in->line,
				 in->op == OP_MMA ? "mma" : op_names[in->op]);
		va_start(ap, fmt);
		vsnprintf(c->err + n, sizeof c->err - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint64_t val(struct cta *c, unsigned t, const struct opnd *o)
{
	switch (o->k) {
	case O_REG: return R(c, t, o->reg);
	case O_IMM: return o->imm;
	case O_SPECIAL:
		return o->imm == SP_TID_X ? t : o->imm == SP_CTAID_X ? c->ctaid_x :
		       o->imm == SP_CTAID_Z ? c->ctaid_z : c->nctaid_z;
	case O_NAME: return 0;       /* mmagen_smem: shared window offset 0 */
	default: return 0;
	}
}

static float f32_of(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static uint64_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* A global access of `size` bytes: its host address, or NULL (failed). */
static uint8_t *gaddr(struct cta *c, const struct ins *in, uint64_t a, unsigned size)
{
	for (int i = 0; i < 6; i++) {
		uint64_t b = (uint64_t)(uintptr_t)c->g[i].p;
		if (c->g[i].p && a >= b && a + size <= b + c->g[i].size) {
			if (a % size)
				return cta_fail(c, in, "misaligned %u-byte access in %s", size,
						c->g[i].name), NULL;
			return (uint8_t *)(uintptr_t)a;
		}
	}
	cta_fail(c, in, "global address 0x%llx (%u bytes) is outside A, B, C, D and the workspace",
		 (unsigned long long)a, size);
	return NULL;
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << 8 * i;
	return v;
}

static void store_le(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t param(struct cta *c, const struct ins *in, const char *name)
{
	for (int i = 0; i < 15; i++)
		if (c->params[i].name && !strcmp(c->params[i].name, name))
			return c->params[i].v;
	cta_fail(c, in, "no parameter %s", name);
	return 0;
}

/* A copy lands at its thread's wait: from then on its bytes count as
 * written by that thread, at its warp's clock, so another warp's read of
 * them needs a barrier after that wait (the K loop's, the epilogue's). */
static void land(struct cta *c, const struct copy *k)
{
	unsigned w = k->t / 32;
	for (unsigned b = 0; b < 16; b++) {
		unsigned x = k->dst + b;
		c->smem[x] = b < k->size ? ((uint8_t *)(uintptr_t)k->src)[b] : 0;
		c->inflight[x]--;
		c->lw_warp[x] = (uint8_t)(w + 1);
		c->lw_clock[x] = c->vc[w][w] + 1;
		c->lw_lane[x] = (uint8_t)(k->t % 32);
		c->lw_epoch[x] = c->wsync[w];
	}
}

/* Element e (0-based) of width w bits packed in a 32-bit register. */
static uint64_t field(uint64_t reg, unsigned w, unsigned e)
{
	return (reg >> (w * e)) & ((1ull << w) - 1);
}

static double decode(mmagen_type t, uint64_t bits)
{
	return mmagen_type_decode(t, bits);
}

/* The fragment layouts of mma.sync m16n8kK (PTX ISA, "Matrix fragments
 * for mma.m16n8k*"), for elements of w bits, e = 32 / w to a register,
 * h = K / 2: A (row-major, 16 x K): register (row >= 8) + 2 (k >= h) of
 * lane 4 (row % 8) + (k % h) / e, element k % e; B (col-major, K x 8):
 * register (k >= h) of lane 4 n + (k % h) / e, element k % e; C and D
 * (f32, s32): register 2 (row >= 8) + (col % 2) of lane 4 (row % 8) +
 * col / 2; f16 C and D: register (row >= 8), half col % 2. */
static int exec_mma(struct cta *c, const struct ins *in, unsigned warp)
{
	const struct mma_shape *m = &in->mma;
	unsigned w = mmagen_type_bits(m->a), e = 32 / w, h = m->k / 2, k;
	double a[16][64], b[8][64], acc[16][8];
	const struct opnd *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
	int f16acc = m->c == MMAGEN_F16;
	if (m->k > 64 || oa->k != O_VEC || oa->n != 4 || ob->n != 2 || od->n != oc->n ||
	    od->n != (f16acc ? 2 : 4))
		return cta_fail(c, in, "operands do not fit m16n8k%u", m->k);
	unsigned t0 = warp * 32;
	for (unsigned row = 0; row < 16; row++)
		for (k = 0; k < m->k; k++) {
			unsigned lane = 4 * (row % 8) + (k % h) / e;
			uint64_t r = R(c, t0 + lane, oa->v[(row >= 8) + 2 * (k >= h)]);
			a[row][k] = decode(m->a, field(r, w, k % e));
		}
	for (unsigned n = 0; n < 8; n++)
		for (k = 0; k < m->k; k++) {
			unsigned lane = 4 * n + (k % h) / e;
			uint64_t r = R(c, t0 + lane, ob->v[k >= h]);
			b[n][k] = decode(m->b, field(r, w, k % e));
		}
	for (unsigned row = 0; row < 16; row++)
		for (unsigned col = 0; col < 8; col++) {
			unsigned lane = 4 * (row % 8) + col / 2;
			double s;
			if (f16acc)
				s = decode(MMAGEN_F16, field(R(c, t0 + lane, oc->v[row >= 8]), 16, col % 2));
			else if (m->c == MMAGEN_S32)
				s = (double)(int32_t)R(c, t0 + lane, oc->v[2 * (row >= 8) + col % 2]);
			else
				s = f32_of(R(c, t0 + lane, oc->v[2 * (row >= 8) + col % 2]));
			for (k = 0; k < m->k; k++)
				s += a[row][k] * b[col][k];
			acc[row][col] = s;
		}
	for (unsigned row = 0; row < 16; row++)
		for (unsigned col = 0; col < 8; col++) {
			unsigned lane = 4 * (row % 8) + col / 2;
			double s = acc[row][col];
			if (f16acc) {
				uint64_t *r = &R(c, t0 + lane, od->v[row >= 8]);
				unsigned sh = 16 * (col % 2);
				*r = (*r & ~(0xFFFFull << sh)) |
				     (mmagen_type_encode(MMAGEN_F16, s) << sh);
			} else if (m->d == MMAGEN_S32) {
				R(c, t0 + lane, od->v[2 * (row >= 8) + col % 2]) =
					(uint32_t)(int32_t)(int64_t)s;
			} else {
				R(c, t0 + lane, od->v[2 * (row >= 8) + col % 2]) = bits_of((float)s);
			}
		}
	return 0;
}

/* Eight 16-byte shared-memory accesses (an ldmatrix matrix's rows, or
 * eight consecutive threads' cp.async stores) are one wavefront when
 * they touch 32 distinct 4-byte banks; the kernel's swizzle is there to
 * make every one so, and a conflict is reported as a failure: a swizzle
 * that reads the right bytes slowly is still wrong. */
static int conflict(const unsigned addr[8])
{
	uint32_t seen = 0;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned b = 0; b < 4; b++) {
			uint32_t bit = 1u << ((addr[i] / 4 + b) % 32);
			if (seen & bit)
				return 1;
			seen |= bit;
		}
	return 0;
}

/* ldmatrix.x4: lanes 8i..8i+7 give the row addresses of matrix i (eight
 * rows of 16 bytes); lane l receives, in register i, row l/4's bytes
 * 4 (l%4)..+3, or with .trans the 16-bit elements (2 (l%4), l/4) and
 * (2 (l%4) + 1, l/4). */
static int exec_ldmatrix(struct cta *c, const struct ins *in, unsigned warp)
{
	const struct opnd *d = &in->o[0], *a = &in->o[1];
	unsigned addr[32];
	if (d->k != O_VEC || d->n != 4 || a->k != O_ADDR)
		return cta_fail(c, in, "operands");
	for (unsigned l = 0; l < 32; l++) {
		addr[l] = (uint32_t)(R(c, warp * 32 + l, a->reg) + a->imm);
		if (addr[l] % 16 || addr[l] + 16 > c->smem_size)
			return cta_fail(c, in, "warp %u lane %u: row address %u (shared size %u)", warp,
					l, addr[l], c->smem_size);
		for (unsigned b = 0; b < 16; b++) {
			unsigned x = addr[l] + b, lw = c->lw_warp[x];
			if (c->inflight[x])
				return cta_fail(c, in, "warp %u lane %u reads shared byte %u while a cp.async into it has not landed (a race)",
						warp, l, x);
			if (lw && lw - 1 != warp && c->vc[warp][lw - 1] < c->lw_clock[x])
				return cta_fail(c, in, "warp %u lane %u reads shared byte %u that warp %u's cp.async landed with no barrier after that warp's wait (a race)",
						warp, l, x, lw - 1);
			c->lastread[(size_t)(addr[l] + b) * MAXW + warp] = c->vc[warp][warp] + 1;
		}
	}
	for (unsigned i = 0; i < 4; i++)
		if (conflict(addr + 8 * i))
			return cta_fail(c, in, "warp %u matrix %u: rows at %u, %u, ... %u share banks (a bank conflict)",
					warp, i, addr[8 * i], addr[8 * i + 1], addr[8 * i + 7]);
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 4; i++) {
			uint64_t v;
			if (in->op == OP_LDMATRIX) {
				v = load_le(c->smem + addr[8 * i + l / 4] + 4 * (l % 4), 4);
			} else {
				unsigned col = l / 4, r0 = 2 * (l % 4);
				v = load_le(c->smem + addr[8 * i + r0] + 2 * col, 2) |
				    load_le(c->smem + addr[8 * i + r0 + 1] + 2 * col, 2) << 16;
			}
			R(c, warp * 32 + l, d->v[i]) = v;
		}
	return 0;
}

/* st.shared.v2.b32 / ld.shared.v2.b32 of a whole warp (the staged
 * epilogue).  8-byte accesses go in two phases of 16 lanes, and a phase
 * is one wavefront when its 32 words fall in 32 distinct banks; as for
 * ldmatrix, a conflict fails.  Ordering: a store may not overwrite a
 * byte that another warp read or wrote, or that a cp.async has not yet
 * landed in, without a barrier between; a load may not read what another
 * warp stored unordered, nor a byte a cp.async is still filling. */
static int exec_shared(struct cta *c, const struct ins *in, unsigned warp)
{
	int st = in->op == OP_ST_SHARED_V2;
	const struct opnd *a = &in->o[st ? 0 : 1], *v = &in->o[st ? 1 : 0];
	unsigned addr[32];
	if (a->k != O_ADDR || a->reg < 0 || v->k != O_VEC || v->n != 2)
		return cta_fail(c, in, "operands");
	for (unsigned l = 0; l < 32; l++) {
		addr[l] = (uint32_t)(R(c, warp * 32 + l, a->reg) + a->imm);
		if (addr[l] % 8 || addr[l] + 8 > c->smem_size)
			return cta_fail(c, in, "warp %u lane %u: shared address %u (size %u)", warp, l,
					addr[l], c->smem_size);
	}
	for (unsigned h = 0; h < 2; h++) {
		uint32_t seen = 0;
		for (unsigned l = 16 * h; l < 16 * h + 16; l++)
			for (unsigned w = 0; w < 2; w++) {
				uint32_t bit = 1u << ((addr[l] / 4 + w) % 32);
				if (seen & bit)
					return cta_fail(c, in, "warp %u lanes %u..%u: 8-byte accesses at %u, %u, ... %u share banks (a bank conflict)",
							warp, 16 * h, 16 * h + 15, addr[16 * h], addr[16 * h + 1],
							addr[16 * h + 15]);
				seen |= bit;
			}
	}
	for (unsigned l = 0; l < 32; l++)
		for (unsigned b = 0; b < 8; b++) {
			unsigned x = addr[l] + b, lw = c->lw_warp[x];
			if (c->inflight[x])
				return cta_fail(c, in, "warp %u lane %u %s shared byte %u while a cp.async into it has not landed (a race)",
						warp, l, st ? "writes" : "reads", x);
			if (lw && lw - 1 != warp && c->vc[warp][lw - 1] < c->lw_clock[x])
				return cta_fail(c, in, "warp %u lane %u %s shared byte %u that warp %u wrote with nothing ordering the two (a race)",
						warp, l, st ? "writes" : "reads", x, lw - 1);
			if (lw && lw - 1 == warp && c->lw_lane[x] != l &&
			    c->lw_epoch[x] == c->wsync[warp])
				return cta_fail(c, in, "warp %u lane %u %s shared byte %u that lane %u wrote, with no bar.warp.sync between (a race)",
						warp, l, st ? "writes" : "reads", x, c->lw_lane[x]);
			if (st && c->lr_warp[x] == warp + 1 && c->lr_lane[x] != l &&
			    c->lr_epoch[x] == c->wsync[warp])
				return cta_fail(c, in, "warp %u lane %u overwrites shared byte %u that lane %u read, with no bar.warp.sync between (a WAR race)",
						warp, l, x, c->lr_lane[x]);
			if (st)
				for (unsigned w = 0; w < MAXW; w++) {
					uint32_t r = c->lastread[(size_t)x * MAXW + w];
					if (r && w != warp && c->vc[warp][w] < r)
						return cta_fail(c, in, "warp %u lane %u overwrites shared byte %u that warp %u read with nothing ordering that read first (a WAR race)",
								warp, l, x, w);
				}
		}
	for (unsigned l = 0; l < 32; l++) {
		unsigned t = warp * 32 + l;
		for (unsigned w = 0; w < 2; w++) {
			if (st)
				store_le(c->smem + addr[l] + 4 * w, 4, R(c, t, v->v[w]));
			else
				R(c, t, v->v[w]) = load_le(c->smem + addr[l] + 4 * w, 4);
		}
		for (unsigned b = 0; b < 8; b++) {
			unsigned x = addr[l] + b;
			if (st) {
				c->lw_warp[x] = (uint8_t)(warp + 1);
				c->lw_clock[x] = c->vc[warp][warp] + 1;
				c->lw_lane[x] = (uint8_t)l;
				c->lw_epoch[x] = c->wsync[warp];
			} else {
				c->lastread[(size_t)x * MAXW + warp] = c->vc[warp][warp] + 1;
				c->lr_warp[x] = (uint8_t)(warp + 1);
				c->lr_lane[x] = (uint8_t)l;
				c->lr_epoch[x] = c->wsync[warp];
			}
		}
	}
	return 0;
}

/* One thread's share of a per-thread instruction. */
static int exec1(struct cta *c, const struct ins *in, unsigned t)
{
	const struct opnd *o = in->o;
#define D R(c, t, o[0].reg)
#define S(i) val(c, t, &o[i])
#define U32(i) ((uint32_t)S(i))
	switch (in->op) {
	case OP_ADD_U32: D = (uint32_t)(U32(1) + U32(2)); break;
	case OP_ADD_U64: D = S(1) + S(2); break;
	case OP_SUB_U32: D = (uint32_t)(U32(1) - U32(2)); break;
	case OP_MUL_LO_U32: case OP_MUL_LO_S32: D = (uint32_t)(U32(1) * U32(2)); break;
	case OP_MUL_WIDE_U32: D = (uint64_t)U32(1) * U32(2); break;
	case OP_MAD_LO_U32: case OP_MAD_LO_S32: D = (uint32_t)(U32(1) * U32(2) + U32(3)); break;
	case OP_DIV_U32: case OP_REM_U32:
		if (!U32(2))
			return cta_fail(c, in, "division by zero");
		D = in->op == OP_DIV_U32 ? U32(1) / U32(2) : U32(1) % U32(2);
		break;
	case OP_MIN_U32: D = U32(1) < U32(2) ? U32(1) : U32(2); break;
	case OP_MAX_U32: D = U32(1) > U32(2) ? U32(1) : U32(2); break;
	case OP_SHL_B32: D = U32(2) > 31 ? 0 : (uint32_t)(U32(1) << U32(2)); break;
	case OP_SHL_B64: D = S(2) > 63 ? 0 : S(1) << S(2); break;
	case OP_SHR_U32: D = U32(2) > 31 ? 0 : U32(1) >> U32(2); break;
	case OP_SHR_B64: D = S(2) > 63 ? 0 : S(1) >> S(2); break;
	case OP_AND_B32: D = U32(1) & U32(2); break;
	case OP_XOR_B32: D = U32(1) ^ U32(2); break;
	case OP_AND_PRED: D = S(1) && S(2); break;
	case OP_NOT_PRED: D = !S(1); break;
	case OP_MOV_U32: case OP_MOV_F32: D = U32(1); break;
	case OP_MOV_B16: D = S(1) & 0xFFFF; break;
	case OP_MOV_B32:
		if (o[0].k == O_VEC) {       /* {lo, hi} = 32 bits */
			R(c, t, o[0].v[0]) = U32(1) & 0xFFFF;
			R(c, t, o[0].v[1]) = U32(1) >> 16;
		} else {
			D = U32(1);
		}
		break;
	case OP_SETP_LT_U32: D = U32(1) < U32(2); break;
	case OP_SETP_GE_U32: D = U32(1) >= U32(2); break;
	case OP_SETP_EQ_U32: D = U32(1) == U32(2); break;
	case OP_SETP_NE_U32: D = U32(1) != U32(2); break;
	case OP_SETP_LT_AND_U32: D = U32(1) < U32(2) && S(3); break;
	case OP_SETP_GT_AND_U32: D = U32(1) > U32(2) && S(3); break;
	case OP_SETP_NEU_F32: D = !(f32_of(S(1)) == f32_of(S(2))); break;
	case OP_SELP_U32: D = S(3) ? U32(1) : U32(2); break;
	case OP_SELP_B64: D = S(3) ? S(1) : S(2); break;
	case OP_CVT_U64_U32: D = U32(1); break;
	case OP_CVTA_GLOBAL: D = S(1); break;
	case OP_LD_PARAM_U32: case OP_LD_PARAM_F32: D = (uint32_t)param(c, in, o[1].name); break;
	case OP_LD_PARAM_U64: D = param(c, in, o[1].name); break;
	case OP_LD_GLOBAL_B32: case OP_LD_GLOBAL_F32: case OP_LD_GLOBAL_B16: case OP_LD_GLOBAL_U16: {
		unsigned n = in->op == OP_LD_GLOBAL_B32 || in->op == OP_LD_GLOBAL_F32 ? 4 : 2;
		uint8_t *p = gaddr(c, in, R(c, t, o[1].reg) + o[1].imm, n);
		if (!p)
			return -1;
		D = load_le(p, n);
		break;
	}
	case OP_ST_GLOBAL_B32: case OP_ST_GLOBAL_B16: case OP_ST_GLOBAL_V2_B32: {
		unsigned n = in->op == OP_ST_GLOBAL_B16 ? 2 : 4, v = in->op == OP_ST_GLOBAL_V2_B32;
		uint8_t *p = gaddr(c, in, R(c, t, o[0].reg) + o[0].imm, v ? 8 : n);
		if (!p)
			return -1;
		if (v) {
			store_le(p, 4, R(c, t, o[1].v[0]));
			store_le(p + 4, 4, R(c, t, o[1].v[1]));
		} else {
			store_le(p, n, S(1));
		}
		break;
	}
	case OP_ST_CG_V2_F32: case OP_ST_CG_V2_S32: {
		uint8_t *p = gaddr(c, in, R(c, t, o[0].reg) + o[0].imm, 8);
		if (!p)
			return -1;
		store_le(p, 4, R(c, t, o[1].v[0]));
		store_le(p + 4, 4, R(c, t, o[1].v[1]));
		break;
	}
	case OP_LD_CG_V2_F32: case OP_LD_CG_V2_S32: {
		uint8_t *p = gaddr(c, in, R(c, t, o[1].reg) + o[1].imm, 8);
		if (!p)
			return -1;
		R(c, t, o[0].v[0]) = load_le(p, 4);
		R(c, t, o[0].v[1]) = load_le(p + 4, 4);
		break;
	}
	case OP_ATOM_INC: {          /* old; old >= b ? 0 : old + 1 */
		uint8_t *p = gaddr(c, in, R(c, t, o[1].reg) + o[1].imm, 4);
		if (!p)
			return -1;
		uint32_t x = (uint32_t)load_le(p, 4);
		store_le(p, 4, x >= U32(2) ? 0 : x + 1);
		D = x;
		break;
	}
	case OP_ADD_F32: D = bits_of(f32_of(S(1)) + f32_of(S(2))); break;
	case OP_ADD_S32: D = (uint32_t)(U32(1) + U32(2)); break;
	case OP_CVT_F32_F16: D = bits_of((float)decode(MMAGEN_F16, S(1))); break;
	case OP_CVT_RN_F16_F32: D = mmagen_type_encode(MMAGEN_F16, f32_of(S(1))); break;
	case OP_CVT_RN_BF16_F32: D = mmagen_type_encode(MMAGEN_BF16, f32_of(S(1))); break;
	case OP_CVT_RN_F16X2_F32: case OP_CVT_RN_BF16X2_F32: {
		mmagen_type ty = in->op == OP_CVT_RN_F16X2_F32 ? MMAGEN_F16 : MMAGEN_BF16;
		D = mmagen_type_encode(ty, f32_of(S(1))) << 16 | mmagen_type_encode(ty, f32_of(S(2)));
		break;
	}
	case OP_CVT_RN_F32_S32: D = bits_of((float)(int32_t)U32(1)); break;
	case OP_CVT_RZI_S32_F32: {
		float f = f32_of(S(1));
		D = (uint32_t)(isnan(f) ? 0 : f >= 0x1p31f ? INT32_MAX :
			       f <= -0x1p31f ? INT32_MIN : (int32_t)f);
		break;
	}
	case OP_MUL_F32: D = bits_of(f32_of(S(1)) * f32_of(S(2))); break;
	case OP_FMA_RN_F32: D = bits_of(fmaf(f32_of(S(1)), f32_of(S(2)), f32_of(S(3)))); break;
	case OP_CP_ASYNC: {
		/* the fourth operand: src-size, or the ignore-src predicate
		 * (true: zeros, the source not read) */
		int pred = o[3].k == O_REG && !strncmp(c->p->regs[o[3].reg], "%p", 2);
		uint32_t dst = (uint32_t)(R(c, t, o[0].reg) + o[0].imm);
		uint32_t size = pred ? (!!R(c, t, o[3].reg) != o[3].neg ? 0 : 16) : U32(3);
		uint64_t src = R(c, t, o[1].reg) + o[1].imm;
		if (U32(2) != 16 || size > 16)
			return cta_fail(c, in, "cp-size %u, src-size %u", U32(2), size);
		if (dst % 16 || dst + 16 > c->smem_size)
			return cta_fail(c, in, "thread %u: shared address %u (size %u)", t, dst,
					c->smem_size);
		for (unsigned b = 0; b < 16; b++)
			for (unsigned v = 0; v < MAXW; v++) {
				uint32_t r = c->lastread[(size_t)(dst + b) * MAXW + v];
				/* read at v's clock r-1: seen once v released past it */
				if (r && v != t / 32 && c->vc[t / 32][v] < r)
					return cta_fail(c, in, "thread %u overwrites shared byte %u that warp %u read with nothing ordering that read first (a WAR race: a missing empty wait?)",
							t, dst + b, v);
			}
		if (size && !gaddr(c, in, src, 16))
			return -1;
		if (c->ncopies == c->copycap) {
			c->copycap = c->copycap ? 2 * c->copycap : 4096;
			c->copies = realloc(c->copies, c->copycap * sizeof *c->copies);
		}
		c->copies[c->ncopies++] = (struct copy){ t, c->committed[t], dst, size, c->issued[t]++, src };
		for (unsigned b = 0; b < 16; b++)
			c->inflight[dst + b]++;
		break;
	}
	case OP_CP_COMMIT: c->committed[t]++; break;
	default:
		return cta_fail(c, in, "not a per-thread instruction");
	}
#undef D
#undef S
#undef U32
	return 0;
}

static int guard_ok(struct cta *c, const struct ins *in, unsigned t)
{
	return in->guard < 0 || (!!R(c, t, in->guard) != in->guard_neg);
}

/* cp.async.wait_group N: every thread's groups but its newest N land. */
static void exec_wait(struct cta *c, unsigned n)
{
	unsigned kept = 0;
	for (unsigned i = 0; i < c->ncopies; i++) {
		struct copy *k = &c->copies[i];
		if (k->group + n < c->committed[k->t])
			land(c, k);
		else
			c->copies[kept++] = *k;
	}
	c->ncopies = kept;
}

static struct mbar *mbar_at(struct cta *c, const struct ins *in, unsigned addr, int create)
{
	for (unsigned i = 0; i < c->nbars; i++)
		if (c->bars[i].addr == addr)
			return &c->bars[i];
	if (!create || c->nbars == MAXBARS) {
		cta_fail(c, in, "shared address %u is no initialised mbarrier", addr);
		return NULL;
	}
	struct mbar *b = &c->bars[c->nbars++];
	memset(b, 0, sizeof *b);
	b->addr = addr;
	return b;
}

static void join(vclock a, const vclock b)
{
	for (unsigned i = 0; i < MAXW; i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

/* An arrival that releases what `w` had done up to its own clock `at`
 * (and what it had acquired: vc[w] when it arrived; the replay joins
 * the warp's clock as it is, a superset that only ever grows). */
static void mbar_arrive(struct cta *c, struct mbar *b, unsigned w, uint32_t at)
{
	vclock r;
	memcpy(r, c->vc[w], sizeof r);
	r[w] = at;
	join(b->cur, r);
	if (--b->pending == 0) {
		memcpy(b->done[b->phase & 1], b->cur, sizeof b->cur);
		memset(b->cur, 0, sizeof b->cur);
		b->phase++;
		b->pending = b->count;
	}
}

/* The deferred arrivals of b: each thread's copies issued before its
 * arrive land, then it arrives. */
static void mbar_land(struct cta *c, struct mbar *b)
{
	for (unsigned d = 0; d < b->ndefer; d++) {
		unsigned kept = 0;
		for (unsigned i = 0; i < c->ncopies; i++) {
			struct copy *k = &c->copies[i];
			if (k->t == b->defer_t[d] && k->seq < b->defer_seq[d])
				land(c, k);
			else
				c->copies[kept++] = *k;
		}
		c->ncopies = kept;
		mbar_arrive(c, b, b->defer_t[d] / 32, b->defer_clock[d]);
	}
	b->ndefer = 0;
}

/* The mbarrier instructions for thread t. */
static int exec_mbar(struct cta *c, const struct ins *in, unsigned t)
{
	const struct opnd *o = in->o;
	unsigned ai = in->op == OP_MBAR_ARRIVE || in->op == OP_MBAR_TEST ? 1 : 0;
	unsigned addr = (uint32_t)(R(c, t, o[ai].reg) + o[ai].imm);
	if (addr % 8 || addr + 8 > c->smem_size)
		return cta_fail(c, in, "thread %u: mbarrier at shared address %u", t, addr);
	struct mbar *b = mbar_at(c, in, addr, in->op == OP_MBAR_INIT);
	unsigned w = t / 32;
	if (!b)
		return -1;
	if (in->op != OP_MBAR_INIT && c->vc[w][b->init_warp] < b->init_clock)
		return cta_fail(c, in, "warp %u uses the mbarrier at %u before its initialisation is visible to it (no bar.sync between)",
				w, addr);
	switch (in->op) {
	case OP_MBAR_INIT:
		memset(b, 0, sizeof *b);
		b->addr = addr;
		b->count = b->pending = (unsigned)val(c, t, &o[1]);
		b->init_warp = w;
		b->init_clock = ++c->vc[w][w];     /* a release: bar.sync publishes it */
		return b->count ? 0 : cta_fail(c, in, "mbarrier count 0");
	case OP_MBAR_ARRIVE:             /* a release: the warp's clock moves on */
		mbar_arrive(c, b, w, ++c->vc[w][w]);
		return 0;
	case OP_CP_MBAR_ARRIVE:
		if (b->ndefer == 1024)
			return cta_fail(c, in, "too many deferred arrivals");
		b->defer_t[b->ndefer] = t;
		b->defer_clock[b->ndefer] = ++c->vc[w][w];
		b->defer_seq[b->ndefer++] = c->issued[t];
		return 0;
	default: {            /* test_wait.parity */
		unsigned q = (unsigned)val(c, t, &o[2]) & 1;
		/* the copies land while the threads spin (run_cta): a test
		 * that is not repeated after failing finds them in flight */
		if (t == 0 && (b->phase & 1) == q && b->ndefer && b->spun)
			mbar_land(c, b);
		/* phase q completed: the barrier is past it (its current
		 * phase has the other parity); seeing it acquires its releases */
		R(c, t, o[0].reg) = (b->phase & 1) != q;
		/* only a wait loop orders: a test whose result is not waited
		 * for may have come back false on the GPU */
		if ((b->phase & 1) != q && b->phase && c->test_loops)
			join(c->vc[w], b->done[q]);
		return 0;
	}
	}
}

/* Split-K's handoff: warp w's view must hold every warp's last
 * workspace store (its clock then, which a later bar.sync moves past). */
static int ws_ordered(struct cta *c, const struct ins *in, unsigned w, const char *what)
{
	for (unsigned v = 0; v < c->threads / 32; v++)
		if (v != w && c->ws_store[v] && c->vc[w][v] < c->ws_store[v])
			return cta_fail(c, in, "%s of warp %u is not ordered after warp %u's workspace stores (no bar.sync between)",
					what, w, v);
	return 0;
}

static int run_cta(struct cta *c)
{
	const struct prog *p = c->p;
	unsigned pc = 0, steps = 0;
	while (pc < p->n) {
		const struct ins *in = &p->ins[pc++];
		if (++steps > 50000000u)
			return cta_fail(c, in, "no end after %u instructions", steps);
		int ws_op = in->op == OP_ST_CG_V2_F32 || in->op == OP_ST_CG_V2_S32 ||
			    in->op == OP_LD_CG_V2_F32 || in->op == OP_LD_CG_V2_S32 || in->op == OP_ATOM_INC;
		unsigned active = 0;     /* warps with a thread the guard lets through */
		if (ws_op)
			for (unsigned t = 0; t < c->threads; t++)
				if (guard_ok(c, in, t))
					active |= 1u << (t / 32);
		if (ws_op && in->op != OP_ST_CG_V2_F32 && in->op != OP_ST_CG_V2_S32)
			for (unsigned w = 0; w < c->threads / 32; w++)
				if (active >> w & 1 &&
				    ws_ordered(c, in, w, in->op == OP_ATOM_INC ? "the counter's atom.inc" : "a workspace load"))
					return -1;
		switch (in->op) {
		case OP_TRAP:
			for (unsigned t = 0; t < c->threads; t++)
				if (guard_ok(c, in, t))
					return cta_fail(c, in, "thread %u traps", t);
			break;
		case OP_BRA_UNI: case OP_BRA: {
			int take = guard_ok(c, in, 0);
			for (unsigned t = 1; t < c->threads; t++)
				if (guard_ok(c, in, t) != take)
					return cta_fail(c, in, "a %s that diverges (thread %u)",
							in->op == OP_BRA ? "bra" : "bra.uni", t);
			if (take)
				pc = (unsigned)in->target;
			break;
		}
		case OP_CP_WAIT_ALL:
			exec_wait(c, 0);
			for (unsigned i = 0; i < c->ncopies; i++)
				land(c, &c->copies[i]);
			c->ncopies = 0;
			break;
		case OP_MBAR_INIT: case OP_MBAR_ARRIVE: case OP_CP_MBAR_ARRIVE: case OP_MBAR_TEST:
			/* a wait loop: the next instruction branches back to
			 * this test while its predicate is false */
			c->test_loops = in->op == OP_MBAR_TEST && pc < p->n &&
					(p->ins[pc].op == OP_BRA || p->ins[pc].op == OP_BRA_UNI) &&
					p->ins[pc].guard == in->o[0].reg && p->ins[pc].guard_neg &&
					p->ins[pc].target == (int)pc - 1;
			for (unsigned t = 0; t < c->threads; t++)
				if (guard_ok(c, in, t) && exec_mbar(c, in, t))
					return -1;
			if (in->op == OP_MBAR_TEST) {   /* lockstep: one test of the CTA */
				struct mbar *b = mbar_at(c, in, (uint32_t)(R(c, 0, in->o[1].reg) + in->o[1].imm), 0);
				if (!b)
					return -1;
				b->spun = R(c, 0, in->o[0].reg) ? 0 : b->spun + 1;
				/* spinning: the first failure lands the copies, the
				 * second... nothing else can arrive in lockstep */
				if (b->spun > 2)
					return cta_fail(c, in, "waits on an mbarrier phase that never completes");
			}
			break;
		case OP_RET:
			if (c->ncopies)
				return cta_fail(c, in, "%u cp.async copies never waited for", c->ncopies);
			return 0;
		case OP_BAR_RED_OR: {    /* bar.sync that ORs a predicate over the CTA */
			int any = 0;
			for (unsigned t = 0; t < c->threads; t++)
				any |= val(c, t, &in->o[2]) != 0;
			for (unsigned t = 0; t < c->threads; t++)
				R(c, t, in->o[0].reg) = (uint64_t)any;
		}
			/* fall through */
		case OP_BAR_SYNC: {      /* lockstep: every thread is here */
			vclock all = { 0 };
			for (unsigned w = 0; w < c->threads / 32; w++) {
				c->vc[w][w]++;
				join(all, c->vc[w]);
			}
			for (unsigned w = 0; w < c->threads / 32; w++) {
				memcpy(c->vc[w], all, sizeof all);
				c->wsync[w]++;
			}
			break;
		}
		case OP_CP_WAIT:
			exec_wait(c, (unsigned)in->o[0].imm);
			break;
		case OP_LDMATRIX: case OP_LDMATRIX_T: case OP_MMA:
		case OP_ST_SHARED_V2: case OP_LD_SHARED_V2:
			if (in->guard >= 0)
				return cta_fail(c, in, "a guarded warp-wide instruction");
			for (unsigned w = 0; w < c->threads / 32; w++)
				if ((in->op == OP_MMA ? exec_mma :
				     in->op == OP_LDMATRIX || in->op == OP_LDMATRIX_T ? exec_ldmatrix :
				     exec_shared)(c, in, w))
					return -1;
			break;
		case OP_BAR_WARP_SYNC:   /* lockstep: a warp's lanes are together */
			if (in->o[0].k != O_IMM || (uint32_t)in->o[0].imm != 0xFFFFFFFFu)
				return cta_fail(c, in, "a member mask other than every lane");
			for (unsigned w = 0; w < c->threads / 32; w++)
				c->wsync[w]++;
			break;
		case OP_CP_ASYNC:        /* eight threads' stores a wavefront */
			for (unsigned t0 = 0; t0 < c->threads; t0 += 8) {
				unsigned a[8];
				for (unsigned t = 0; t < 8; t++)
					a[t] = (uint32_t)(R(c, t0 + t, in->o[0].reg) + in->o[0].imm);
				if (in->guard < 0 && in->o[0].reg >= 0 && conflict(a))
					return cta_fail(c, in, "threads %u..%u store at %u, %u, ... %u: they share banks (a bank conflict)",
							t0, t0 + 7, a[0], a[1], a[7]);
			}
			/* fall through */
		default:
			for (unsigned t = 0; t < c->threads; t++)
				if (guard_ok(c, in, t) && exec1(c, in, t))
					return -1;
		}
		if (c->err[0])
			return -1;
		if (in->op == OP_ST_CG_V2_F32 || in->op == OP_ST_CG_V2_S32)
			for (unsigned w = 0; w < c->threads / 32; w++)
				if (active >> w & 1)
					c->ws_store[w] = c->vc[w][w] + 1;
	}
	return cta_fail(c, &p->ins[p->n - 1], "fell off the end");
}

/* ---- the problems ---- */

struct problem {
	const char *what;
	mmagen_type a, b, acc, out;
	unsigned layout, split, m, n, k;
	float alpha, beta;
	int last_column_only;   /* only the CTAs of the last tile column, top and bottom */
	unsigned tile_m, tile_n;  /* 0: the generator's (128 x 256) */
	unsigned stages;          /* 0: the generator's */
};

static int is_int(mmagen_type t)
{
	return t == MMAGEN_S8 || t == MMAGEN_U8 || t == MMAGEN_S4 || t == MMAGEN_U4 ||
	       t == MMAGEN_S32;
}

static int is_unsigned(mmagen_type t)
{
	return t == MMAGEN_U8 || t == MMAGEN_U4;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Element e of a packed buffer of w-bit elements. */
static void put(uint8_t *buf, unsigned w, size_t e, uint64_t bits)
{
	if (w == 4) {
		unsigned sh = 4 * (e % 2);
		buf[e / 2] = (uint8_t)((buf[e / 2] & ~(0xF << sh)) | (bits & 0xF) << sh);
	} else {
		store_le(buf + e * (w / 8), w / 8, bits);
	}
}

/* The grouped order of the template: tiles go down `group` tile rows,
 * then one tile column right. */
static void tile_of(unsigned id, unsigned tiles_m, unsigned tiles_n, unsigned group,
		    unsigned *tm, unsigned *tn)
{
	unsigned per = tiles_n * group, first = id / per * group, rows = tiles_m - first;
	if (rows > group)
		rows = group;
	*tm = first + id % per % rows;
	*tn = id % per / rows;
}

/* rd: NULL, or operands made by `run gemm`'s host code (rg_alloc,
 * rg_fill_inputs) for the problem: uploaded as they are, and D compared
 * with run gemm's own reference (rg_reference), so the layout the runner
 * uploads is the one the kernel reads.  rb: the stage rows asked for (64
 * or 128 bytes, through the tile K); the manifest must say so. */
static void run_problem(const struct problem *pr, const struct rg_data *rd, unsigned rb)
{
	mmagen_gemm_request r;
	mmagen_gemm_info info = { .size = sizeof info };
	struct prog p;
	char *ptx = NULL;
	int target;

	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &target);
	r.target = target;
	r.path = MMAGEN_GEMM_PATH_MMA_SYNC;
	r.a = pr->a;
	r.b = pr->b;
	r.acc = pr->acc;
	r.out = pr->out;
	r.layout = pr->layout;
	r.split_k = pr->split;
	r.group = 8;
	r.tile_k = rb * 8 / mmagen_type_bits(pr->a);
	r.tile_m = pr->tile_m;
	r.tile_n = pr->tile_n;
	r.stages = pr->stages;
	if (mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL) || mmagen_gemm_info_of(&r, &info)) {
		fail("%s, %u-byte rows: the generator refuses: %s", pr->what, rb, mmagen_last_error());
		return;
	}
	CHECK(info.tile_k == r.tile_k, "%s: tile K %u, asked for %u", pr->what, info.tile_k, r.tile_k);
	if (parse(&p, ptx)) {
		fail("%s: %s", pr->what, p.err);
		mmagen_free(ptx);
		prog_free(&p);
		return;
	}
	mmagen_free(ptx);

	char what[160];
	struct problem named = *pr;
	snprintf(what, sizeof what, "%s, %u-byte rows", pr->what, rb);
	named.what = what;
	pr = &named;
	unsigned wa = mmagen_type_bits(pr->a), wb = mmagen_type_bits(pr->b);
	unsigned wo = mmagen_type_bits(pr->out);
	int a_mn = pr->layout == MMAGEN_GEMM_NN || pr->layout == MMAGEN_GEMM_NT;
	int b_mn = pr->layout == MMAGEN_GEMM_NT || pr->layout == MMAGEN_GEMM_TT;
	/* ldd = ldc = N rounded up to even (the rule: pairs of elements), so
	 * an odd N leaves a pad column that must stay untouched */
	size_t ldo = pr->n + (pr->n & 1);
	size_t mk = (size_t)pr->m * pr->k, nk = (size_t)pr->n * pr->k, mn = (size_t)pr->m * ldo;
	uint8_t *A = calloc(mk * wa / 8 + 1, 1), *B = calloc(nk * wb / 8 + 1, 1);
	uint8_t *C = calloc(mn, wo / 8), *Dm = malloc(mn * wo / 8);
	double *av = malloc(mk * sizeof *av), *bv = malloc(nk * sizeof *bv);
	uint64_t seed = 0x9E3779B97F4A7C15ull ^ (pr->m * 131u + pr->n * 7u + pr->k);

	/* small integers: exact products and sums in every accumulator */
	for (size_t i = 0; !rd && i < mk + nk; i++) {
		int lhs = i < mk;
		mmagen_type t = lhs ? pr->a : pr->b;
		int v = (int)(rng(&seed) % 7) - (is_unsigned(t) ? 0 : 3);
		size_t e = lhs ? i : i - mk;
		/* logical (row, x): row of A (M) or of B (N), x along K */
		size_t rows = lhs ? pr->m : pr->n, row = e / pr->k, x = e % pr->k;
		size_t at = (lhs ? a_mn : b_mn) ? x * rows + row : row * pr->k + x;
		put(lhs ? A : B, lhs ? wa : wb, at, mmagen_type_encode(t, v));
		(lhs ? av : bv)[e] = v;
	}
	for (size_t i = 0; !rd && i < mn; i++)
		put(C, wo, i, mmagen_type_encode(pr->out, (double)((int)(rng(&seed) % 17) - 8)));
	if (rd) {
		memcpy(A, rd->a, rg_bytes(&rd->p, 'A'));
		memcpy(B, rd->b, rg_bytes(&rd->p, 'B'));
		memcpy(C, rd->c, rg_bytes(&rd->p, 'C'));
	}
	/* poison D; split-K's workspace too (every slice writes its slot
	 * whole before the last one reads it), its counters zero */
	memset(Dm, 0xFF, mn * wo / 8);
	uint64_t ws_bytes = 0, ctr_bytes = 0;
	if (mmagen_gemm_split_buffers(&info, pr->m, pr->n, pr->split ? pr->split : 1, &ws_bytes,
				      &ctr_bytes))
		fail("%s: split buffers: %s", pr->what, mmagen_last_error());
	CHECK((pr->split > 1) == (ws_bytes > 0 && ctr_bytes > 0),
	      "%s: split-K %u with a workspace of %llu bytes", pr->what, pr->split,
	      (unsigned long long)ws_bytes);
	uint8_t *WS = malloc(ws_bytes + 1), *CTR = calloc(ctr_bytes + 1, 1);
	memset(WS, 0xA5, ws_bytes);

	unsigned tiles_m = (pr->m + info.tile_m - 1) / info.tile_m;
	unsigned tiles_n = (pr->n + info.tile_n - 1) / info.tile_n, split = pr->split ? pr->split : 1;
	struct cta c;
	memset(&c, 0, sizeof c);
	c.p = &p;
	c.threads = p.threads;
	c.smem_size = info.smem;
	c.r = calloc((size_t)p.threads * p.nregs, sizeof *c.r);
	c.smem = malloc(info.smem);
	c.inflight = calloc(info.smem, sizeof *c.inflight);
	c.committed = calloc(p.threads, sizeof *c.committed);
	c.issued = calloc(p.threads, sizeof *c.issued);
	c.lastread = calloc((size_t)info.smem * MAXW, sizeof *c.lastread);
	c.lw_warp = calloc(info.smem, 1);
	c.lw_clock = calloc(info.smem, sizeof *c.lw_clock);
	c.lw_lane = calloc(info.smem, 1);
	c.lr_lane = calloc(info.smem, 1);
	c.lr_warp = calloc(info.smem, 1);
	c.lw_epoch = calloc(info.smem, sizeof *c.lw_epoch);
	c.lr_epoch = calloc(info.smem, sizeof *c.lr_epoch);
	c.g[0] = (struct region){ "A", A, mk * wa / 8 };
	c.g[1] = (struct region){ "B", B, nk * wb / 8 };
	c.g[2] = (struct region){ "C", C, mn * wo / 8 };
	c.g[3] = (struct region){ "D", Dm, mn * wo / 8 };
	c.g[4] = (struct region){ "workspace", ws_bytes ? WS : NULL, ws_bytes };
	c.g[5] = (struct region){ "counters", ctr_bytes ? CTR : NULL, ctr_bytes };
	uint32_t fa, fb;
	memcpy(&fa, &pr->alpha, 4);
	memcpy(&fb, &pr->beta, 4);
	const char *names[15] = { "pa", "pb", "pd", "pc", "pm", "pn", "pk", "plda", "pldb",
				  "pldd", "pldc", "palpha", "pbeta", "pworkspace", "pcounters" };
	uint64_t vals[15] = { (uintptr_t)A, (uintptr_t)B, (uintptr_t)Dm, (uintptr_t)C, pr->m, pr->n,
			      pr->k, a_mn ? pr->m : pr->k, b_mn ? pr->n : pr->k, ldo, ldo, fa, fb,
			      (uintptr_t)WS, (uintptr_t)CTR };
	for (int i = 0; i < 15; i++) {
		c.params[i].name = names[i];
		c.params[i].v = vals[i];
	}
	unsigned char *covered = calloc(mn, 1);
	int ok = 1;
	if (p.threads > 32 * MAXW) {
		fail("%s: %u threads, the replay's clocks hold %u warps", pr->what, p.threads, MAXW);
		ok = 0;
	}
	for (unsigned id = 0; ok && id < tiles_m * tiles_n; id++) {
		unsigned tm, tn;
		tile_of(id, tiles_m, tiles_n, r.group, &tm, &tn);
		if (pr->last_column_only && (tn != tiles_n - 1 || (tm != 0 && tm != tiles_m - 1)))
			continue;
		/* the slices in turn, backwards on odd tiles: the last to
		 * arrive is slice S-1 on even tiles and slice 0 on odd ones */
		for (unsigned zi = 0; ok && zi < split; zi++) {
			unsigned z = id % 2 ? split - 1 - zi : zi;
			memset(c.smem, 0xA5, info.smem);      /* stale bytes, never zero */
			memset(c.r, 0xA5, (size_t)p.threads * p.nregs * sizeof *c.r);
			memset(c.committed, 0, p.threads * sizeof *c.committed);
			memset(c.issued, 0, p.threads * sizeof *c.issued);
			c.nbars = 0;
			memset(c.vc, 0, sizeof c.vc);
			memset(c.ws_store, 0, sizeof c.ws_store);
			memset(c.lastread, 0, (size_t)info.smem * MAXW * sizeof *c.lastread);
			memset(c.lw_warp, 0, info.smem);
			memset(c.lr_warp, 0, info.smem);
			memset(c.wsync, 0, sizeof c.wsync);
			c.ncopies = 0;
			c.ctaid_x = id;
			c.ctaid_z = z;
			c.nctaid_z = split;
			if (run_cta(&c)) {
				fail("%s: CTA %u (tile %u, %u) slice %u: %s", pr->what, id, tm, tn, z, c.err);
				ok = 0;
			}
		}
		for (unsigned i = tm * info.tile_m; i < (tm + 1) * info.tile_m && i < pr->m; i++)
			for (unsigned j = tn * info.tile_n; j < (tn + 1) * info.tile_n && j < pr->n; j++)
				covered[(size_t)i * ldo + j] = 1;
	}

	/* D against the reference where a CTA ran, untouched elsewhere */
	unsigned long wrong = 0, stray = 0, checked = 0;
	int ialpha = is_int(pr->out);
	for (size_t i = 0; ok && i < pr->m; i++)
		for (size_t j = 0; j < ldo; j++) {
			size_t e = i * ldo + j;
			uint64_t got = wo == 32 ? load_le(Dm + 4 * e, 4) : load_le(Dm + 2 * e, 2);
			if (!covered[e]) {
				uint64_t untouched = wo == 32 ? 0xFFFFFFFFu : 0xFFFFu;
				stray += got != untouched;
				continue;
			}
			double dot = 0, want, sa, cv;
			for (size_t x = 0; !rd && x < pr->k; x++)
				dot += av[i * pr->k + x] * bv[j * pr->k + x];
			cv = mmagen_type_decode(pr->out, load_le(C + wo / 8 * e, wo / 8));
			if (rd)
				want = rg_reference(rd, (uint32_t)i, (uint32_t)j, &sa, &cv);
			else
				want = ialpha ? pr->alpha * dot + pr->beta * cv
					      : (double)pr->alpha * dot + (double)pr->beta * cv;
			uint64_t wbits = mmagen_type_encode(pr->out, want);
			checked++;
			if (got != wbits) {
				if (!wrong)
					fail("%s: D[%zu][%zu] = %g, reference %g", pr->what, i, j,
					     mmagen_type_decode(pr->out, got), want);
				wrong++;
			}
		}
	if (ok) {
		CHECK(checked && !wrong, "%s: %lu of %lu elements of D wrong", pr->what, wrong, checked);
		CHECK(!stray, "%s: %lu elements outside the CTAs' tiles written", pr->what, stray);
	}
	for (uint64_t i = 0; ok && i < ctr_bytes; i++)
		if (CTR[i]) {
			fail("%s: split-K counter byte %llu is %u after the launch, not 0", pr->what,
			     (unsigned long long)i, CTR[i]);
			break;
		}
	free(WS);
	free(CTR);
	free(covered);
	free(c.r);
	free(c.smem);
	free(c.inflight);
	free(c.committed);
	free(c.issued);
	free(c.lastread);
	free(c.lw_warp);
	free(c.lw_clock);
	free(c.lw_lane);
	free(c.lr_lane);
	free(c.lr_warp);
	free(c.lw_epoch);
	free(c.lr_epoch);
	free(c.copies);
	free(A);
	free(B);
	free(C);
	free(Dm);
	free(av);
	free(bv);
	prog_free(&p);
}

int main(void)
{
	static const struct problem probs[] = {
		/* the H200 failures: 8-bit, N = 3 * 256 + 232, K = 1024 */
		{ "s8 x s8 -> s32 1000x1000x1024", MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 1000, 1000, 1024, 3, -2, 1, 0, 0, 0 },
		{ "e4m3 x e5m2 -> f32 1000x1000x1024", MMAGEN_E4M3, MMAGEN_E5M2, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 1, 1000, 1000, 1024, 1.5f, 0.5f, 1, 0, 0, 0 },
		{ "e5m2 x e5m2 -> f16 1000x1000x1024", MMAGEN_E5M2, MMAGEN_E5M2, 0, MMAGEN_F16,
		  MMAGEN_GEMM_TN, 1, 1000, 1000, 1024, 1.5f, 0.5f, 1, 0, 0, 0 },
		/* and what passed there */
		{ "bf16 -> bf16 1000x1000x1024", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16,
		  MMAGEN_GEMM_TN, 1, 1000, 1000, 1024, 1.5f, 0.5f, 1, 0, 0, 0 },
		{ "s8 x u8 -> f32 333x258x128", MMAGEN_S8, MMAGEN_U8, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 1, 333, 258, 128, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "e4m3 x e5m2 -> f32 129x66x112", MMAGEN_E4M3, MMAGEN_E5M2, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 1, 129, 66, 112, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "s4 x u4 -> s32 100x70x256", MMAGEN_S4, MMAGEN_U4, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 100, 70, 256, 3, -2, 0, 0, 0, 0 },
		{ "tf32 -> f32 129x66x100", MMAGEN_TF32, MMAGEN_TF32, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 1, 129, 66, 100, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "f16 (f16 acc) -> f16 nn 136x264x96", MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16,
		  MMAGEN_GEMM_NN, 1, 136, 264, 96, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "bf16 -> f32 nt 72x136x200", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_NT, 1, 72, 136, 200, 1.5f, 0.5f, 0, 0, 0, 0 },
		/* MN-major B over whole 64-column panels and a ragged K */
		{ "bf16 -> bf16 tt 130x200x136", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16,
		  MMAGEN_GEMM_TT, 1, 130, 200, 136, 1.5f, 0.5f, 0, 0, 0, 0 },
		/* the other tiles: one warp (a copy pass of 128-byte rows is
		 * 4 rows, half the swizzle's period), 4 warps of either shape */
		{ "bf16 -> f32 nt tile 64x64 104x88x200", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_NT, 1, 104, 88, 200, 1.5f, 0.5f, 0, 64, 64, 0 },
		{ "s8 -> s32 tile 64x64 70x80x304", MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 70, 80, 304, 3, -2, 0, 64, 64, 0 },
		{ "f16 -> f16 nn tile 256x128 264x136x72", MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16,
		  MMAGEN_GEMM_NN, 1, 264, 136, 72, 1.5f, 0.5f, 0, 256, 128, 0 },
		/* MN-major copies of 4 warps: a pass of 64-byte rows is one
		 * K block of a panel, of 128-byte rows a quarter of one */
		{ "bf16 -> f32 nt tile 128x128 200x136x168", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_NT, 1, 200, 136, 168, 1.5f, 0.5f, 0, 128, 128, 0 },
		{ "f16 -> f16 nt tile 64x256 72x264x120", MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16,
		  MMAGEN_GEMM_NT, 1, 72, 264, 120, 1.5f, 0.5f, 0, 64, 256, 0 },
		{ "s4 x u4 -> s32 tile 64x256 65x300x384", MMAGEN_S4, MMAGEN_U4, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 65, 300, 384, 3, -2, 0, 64, 256, 0 },
		{ "f16 -> f32 tt split-K 3 200x24x520", MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TT, 3, 200, 24, 520, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "s8 -> s32 split-K 2 1x8x4096", MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 2, 1, 8, 4096, 3, -2, 0, 0, 0, 0 },
		/* the stage ring's phases at 2, 3 and 5 stages, and split-K
		 * slices of 2, 1 and 0 K blocks (K 160 in 4 slices) */
		{ "bf16 -> f32 split-K 4 2 stages 72x80x160", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 4, 72, 80, 160, 1, 1, 0, 64, 64, 2 },
		{ "bf16 -> f32 nt split-K 3 3 stages 64x64x1000", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32,
		  MMAGEN_GEMM_NT, 3, 64, 64, 1000, 1, 0, 0, 64, 64, 3 },
		{ "f16 -> f16 5 stages 70x130x1000", MMAGEN_F16, MMAGEN_F16, 0, MMAGEN_F16,
		  MMAGEN_GEMM_TN, 1, 70, 130, 1000, 1, -1, 0, 64, 64, 5 },
		/* odd N (ldd = ldc = N + 1): the last column's single stores
		 * and C loads, the pad column untouched */
		{ "bf16 -> bf16 odd N 130x201x136", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_BF16,
		  MMAGEN_GEMM_TN, 1, 130, 201, 136, 1.5f, 0.5f, 0, 0, 0, 0 },
		{ "f16 (f16 acc) -> f16 odd N 70x67x96", MMAGEN_F16, MMAGEN_F16, MMAGEN_F16, MMAGEN_F16,
		  MMAGEN_GEMM_TN, 1, 70, 67, 96, 1.5f, 0.5f, 0, 64, 64, 0 },
		{ "s8 -> s32 odd N tile 128x128 70x129x64", MMAGEN_S8, MMAGEN_S8, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 70, 129, 64, 3, -2, 0, 128, 128, 0 },
		{ "s8 x u8 -> f32 odd N split-K 3 70x65x640", MMAGEN_S8, MMAGEN_U8, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 3, 70, 65, 640, 1.5f, 0.5f, 0, 64, 64, 0 },
		{ "bf16 -> f16 odd N beta 0 70x63x64", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F16,
		  MMAGEN_GEMM_TN, 1, 70, 63, 64, 1.5f, 0, 0, 64, 64, 0 },
		{ "e4m3 -> f32 odd N 1x1x64", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32,
		  MMAGEN_GEMM_TN, 1, 1, 1, 64, 1.5f, 0.5f, 0, 64, 64, 0 },
	};
	/* every problem with 64- and 128-byte stage rows */
	for (unsigned rb = 64; rb <= 128; rb *= 2)
		for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++)
			run_problem(&probs[i], NULL, rb);
	/* 4-bit operands as `run gemm` lays them out (packed two a byte,
	 * the whole s4/u4 range, s32 C over its whole range: wrapping).
	 * This pins sizes, row strides and signs; the order of the two
	 * nibbles in a byte cannot show in D (A and B share it, so a swap
	 * permutes K for both): test_run_gemm checks it by hand. */
	static const struct problem runner[] = {
		{ "run gemm's s4 x u4 -> s32 100x70x256", MMAGEN_S4, MMAGEN_U4, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 1, 100, 70, 256, 3, -2, 0, 0, 0, 0 },
		{ "run gemm's u4 x s4 -> s32 split-K 2 33x24x512", MMAGEN_U4, MMAGEN_S4, 0, MMAGEN_S32,
		  MMAGEN_GEMM_TN, 2, 33, 24, 512, 1, 0, 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof runner / sizeof runner[0]; i++) {
		const struct problem *pr = &runner[i];
		struct rg_data d = { .p = { .a = pr->a, .b = pr->b, .out = pr->out, .m = pr->m,
					    .n = pr->n, .k = pr->k, .alpha = pr->alpha,
					    .beta = pr->beta, .seed = 5 + i, .d_scale = 1 } };
		if (rg_check_problem(&d.p) || rg_alloc(&d)) {
			fail("%s: %s", pr->what, rg_error());
			continue;
		}
		rg_fill_inputs(&d);
		run_problem(pr, &d, 64);
		run_problem(pr, &d, 128);
		rg_data_free(&d);
	}
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed != 0;
}
