/* test_tcgen05_replay.c - every tcgen05 tile kernel run on the CPU.
 *
 * There is no sm_100 GPU here, so this test runs the emitted PTX itself:
 * a small interpreter executes the kernel's 128 threads (two CTAs for
 * cta_group::2) on inputs from mmagen_check_new.  The ordinary
 * instructions (copy loops, lane map, table loads, descriptor arithmetic)
 * run as written; the tcgen05 instructions are modelled from the ISA and
 * CUTLASS, written out here independently of the generator:
 *   - tcgen05.cp: the smem descriptor (bits decoded here) walks 8-row core
 *     matrices, SBO apart; 32x128b.warpx4 copies the 32 rows into every
 *     32-lane group, 64x128b.warpx2::01_23 rows 0-31 into lanes 0-63 and
 *     rows 32-63 into lanes 64-127, ::02_13 into lanes {0-31, 64-95} and
 *     {32-63, 96-127} (CUTLASS SM100_UTCCP_*); cta_group::2 in each CTA;
 *   - tcgen05.mma reads A and B through its descriptors (K-major canonical
 *     layouts: core matrices of 8 rows x 16 bytes, LBO/SBO; swizzled: rows
 *     of S bytes, address bits 4.. XORed with bits 7..), A from TMEM in
 *     D's row lanes, the metadata from TMEM as CUTLASS's tmem_e_frg and
 *     JAX's format_tcgen05_sparse_metadata place it (kind::f16/tf32: row m,
 *     K half h in lane m%8 + 8h + 16(m/16), bits 16((m/8)%2); other kinds
 *     row m in its D lane, K along the columns), the scale factors from
 *     TMEM (row/column j in lane j%32 of the reading lane's group, column
 *     j/32, byte id + v; Layout B's SFB per N half, lanes 64-127 for
 *     columns N/2..), C from D's place when enable-input-d is set;
 *   - D's place: the data-path Layouts A-G (lane, column of D(i, j)).
 * The MMA compares every operand it read -- A (decompressed through the
 * metadata), B, SA, SB, C -- with the reference's (mmagen_check_operand)
 * and writes the reference's D at D's place; the kernel's own
 * tcgen05.ld/st.global then move it out and mmagen_check_verify judges.
 * A wrong placement anywhere -- copy loop, table, descriptor, cp shape,
 * lane map, TMEM column -- fails on the CPU.  Mutated kernels (one
 * placement changed in the PTX text) must fail: the test can fail.
 *
 * What this does not check: the models above are read from the ISA text
 * and CUTLASS, not measured; the f16-in-TMEM and FP4/FP6-in-TMEM formats
 * of A are the kernel's own (unverified) choices, modelled the same way.
 */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "check.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the program ---- */

enum okind { O_NONE, O_REG, O_IMM, O_MEM, O_VEC, O_SYM };

struct operand {
	int kind;
	int reg;               /* O_REG, O_MEM base register (-1: symbol) */
	int64_t imm;           /* O_IMM; O_MEM offset */
	char sym[32];          /* O_SYM, O_MEM symbol */
	int vec[32], nvec;     /* O_VEC */
};

struct ins {
	char op[128];
	int code;              /* classify() */
	unsigned bits;         /* op_bits() */
	int pred, pneg;        /* predicate register or -1 */
	struct operand o[10];
	int n;
	int line;
};

struct regclass {
	char name[8];
	int base, count;
};

struct table {
	char name[32];
	uint32_t *v;
	unsigned n;
};

struct prog {
	struct ins *ins;
	int nins;
	char (*label)[32];
	int *label_at, nlabel;
	struct regclass rc[8];
	int nrc, nregs;
	char params[8][32];
	int nparams;
	struct table tab[4];
	int ntab;
};

static int find_reg(const struct prog *p, const char *s, size_t len)
{
	int best = -1;
	size_t bl = 0;
	for (int i = 0; i < p->nrc; i++) {
		size_t l = strlen(p->rc[i].name);
		if (l < len && !strncmp(s, p->rc[i].name, l) && isdigit((unsigned char)s[l]) && l > bl)
			best = i, bl = l;
	}
	if (best < 0)
		return -1;
	int n = atoi(s + bl);
	return n < p->rc[best].count ? p->rc[best].base + n : -1;
}

/* Special registers get indices past the declared ones. */
enum { SR_TID, SR_RANK, SR_COUNT };

static int parse_operand(const struct prog *p, char *s, struct operand *o)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = 0;
	memset(o, 0, sizeof *o);
	if (!strcmp(s, "%tid.x") || !strcmp(s, "%cluster_ctarank")) {
		o->kind = O_REG;
		o->reg = p->nregs + (s[1] == 't' ? SR_TID : SR_RANK);
		return 1;
	}
	if (s[0] == '%') {
		o->kind = O_REG;
		o->reg = find_reg(p, s, len);
		return o->reg >= 0;
	}
	if (s[0] == '[') {
		char *e = strchr(s, ']'), *plus;
		if (!e)
			return 0;
		*e = 0;
		o->kind = O_MEM;
		if ((plus = strchr(s + 1, '+'))) {
			*plus = 0;
			o->imm = strtoll(plus + 1, NULL, 0);
		}
		if (s[1] == '%') {
			o->reg = find_reg(p, s + 1, strlen(s + 1));
			return o->reg >= 0;
		}
		o->reg = -1;
		snprintf(o->sym, sizeof o->sym, "%s", s + 1);
		return 1;
	}
	if (s[0] == '{') {
		o->kind = O_VEC;
		char *q = s + 1;
		char *e = strchr(q, '}');
		if (!e)
			return 0;
		*e = 0;
		while (*q && o->nvec < 32) {
			q += strspn(q, " \t,");
			size_t l = strcspn(q, " \t,");
			if (!l)
				break;
			int r = find_reg(p, q, l);
			if (r < 0)
				return 0;
			o->vec[o->nvec++] = r;
			q += l;
		}
		return 1;
	}
	if (isdigit((unsigned char)s[0]) || s[0] == '-') {
		o->kind = O_IMM;
		o->imm = strtoll(s, NULL, 0);
		if (s[0] == '0' && s[1] == 'x')
			o->imm = (int64_t)strtoull(s, NULL, 16);
		return 1;
	}
	o->kind = O_SYM;
	snprintf(o->sym, sizeof o->sym, "%s", s);
	return 1;
}

static void free_prog(struct prog *p)
{
	free(p->ins);
	free(p->label);
	free(p->label_at);
	for (int i = 0; i < p->ntab; i++)
		free(p->tab[i].v);
	memset(p, 0, sizeof *p);
}

/* Split an operand list at top-level commas (not inside {} or []). */
static int split_operands(char *s, char **out, int max)
{
	int n = 0, depth = 0;
	char *start = s;
	for (char *c = s;; c++) {
		if (*c == '{' || *c == '[')
			depth++;
		else if (*c == '}' || *c == ']')
			depth--;
		if ((*c == ',' && !depth) || !*c) {
			int end = !*c;
			*c = 0;
			if (n < max && start[strspn(start, " \t")])
				out[n++] = start;
			if (end)
				break;
			start = c + 1;
		}
	}
	return n;
}

static int classify(const char *op);
static unsigned op_bits(const char *op);

static int parse_prog(const char *ptx, struct prog *p)
{
	char *text = strdup(ptx), *save = NULL, *line;
	int lineno = 0, in_body = 0, cap = 0;
	memset(p, 0, sizeof *p);
	p->label = calloc(256, sizeof *p->label);
	p->label_at = calloc(256, sizeof *p->label_at);
	if (!text || !p->label || !p->label_at)
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		char *s = line + strspn(line, " \t");
		if (!strncmp(s, ".const", 6)) {
			/* .const .align 4 .u32 NAME[N] = { ... }; over several lines */
			struct table *t = &p->tab[p->ntab];
			char *nm = strstr(s, ".u32 ");
			if (!nm || p->ntab >= 4)
				return 0;
			nm += 5;
			size_t l = strcspn(nm, "[");
			snprintf(t->name, sizeof t->name, "%.*s", (int)l, nm);
			t->n = (unsigned)strtoul(nm + l + 1, NULL, 10);
			t->v = calloc(t->n ? t->n : 1, sizeof *t->v);
			unsigned k = 0;
			while (k < t->n && (line = strtok_r(NULL, "\n", &save))) {
				char *q = line;
				while (*q && k < t->n) {
					if (isxdigit((unsigned char)*q)) {
						char *e;
						t->v[k++] = (uint32_t)strtoul(q, &e, 0);
						q = e;
					} else {
						q++;
					}
				}
			}
			p->ntab++;
			continue;
		}
		if (!strncmp(s, ".param .u64 ", 12)) {
			size_t l = strcspn(s + 12, ",) ");
			snprintf(p->params[p->nparams++], 32, "%.*s", (int)l, s + 12);
			continue;
		}
		if (!strncmp(s, ".reg ", 5)) {
			/* .reg .b32 %r<94>; */
			char *pc = strchr(s, '%'), *lt = strchr(s, '<');
			if (!pc || !lt || p->nrc >= 8)
				return 0;
			struct regclass *r = &p->rc[p->nrc++];
			snprintf(r->name, sizeof r->name, "%.*s", (int)(lt - pc), pc);
			r->count = atoi(lt + 1);
			r->base = p->nregs;
			p->nregs += r->count;
			continue;
		}
		if (!strcmp(s, "{")) {
			in_body = 1;
			continue;
		}
		if (!in_body || !*s || !strncmp(s, "//", 2) || !strcmp(s, "}"))
			continue;
		size_t l = strlen(s);
		if (s[l - 1] == ':') {
			snprintf(p->label[p->nlabel], 32, "%.*s", (int)(l - 1), s);
			p->label_at[p->nlabel++] = p->nins;
			continue;
		}
		if (p->nins == cap) {
			cap = cap ? 2 * cap : 512;
			p->ins = realloc(p->ins, (size_t)cap * sizeof *p->ins);
		}
		struct ins *in = &p->ins[p->nins++];
		memset(in, 0, sizeof *in);
		in->pred = -1;
		in->line = lineno;
		if (s[l - 1] == ';')
			s[--l] = 0;
		if (*s == '@') {
			s++;
			if (*s == '!')
				in->pneg = 1, s++;
			size_t pl = strcspn(s, " \t");
			in->pred = find_reg(p, s, pl);
			if (in->pred < 0)
				return 0;
			s += pl;
			s += strspn(s, " \t");
		}
		size_t ol = strcspn(s, " \t");
		snprintf(in->op, sizeof in->op, "%.*s", (int)ol, s);
		in->code = classify(in->op);
		in->bits = op_bits(in->op);
		char *ops[10];
		in->n = split_operands(s + ol, ops, 10);
		for (int i = 0; i < in->n; i++)
			if (!parse_operand(p, ops[i], &in->o[i])) {
				fprintf(stderr, "replay: line %d: cannot read operand '%s'\n", lineno, ops[i]);
				return 0;
			}
	}
	free(text);
	return p->nins > 0;
}

/* ---- the machine ---- */

#define SMEM_BASE 0x30u          /* not 1024-aligned: the kernel aligns */
#define TCOLS 512

struct cta {
	uint8_t *smem;
	uint32_t tmem[128][TCOLS];
	uint8_t tmem_set[128][TCOLS];  /* 1 where something was written */
	int committed;
};

enum { T_RUN, T_BAR, T_CBAR, T_WAIT, T_DONE };

struct thread {
	uint64_t *r;
	int pc, state, cta, tid;
};

struct replay;
typedef void (*mma_fn)(struct replay *, const struct ins *);

struct replay {
	const struct prog *p;
	const mmagen_form *f;
	const mmagen_tile_info *ti;
	const mmagen_check *chk;
	int scale_d;
	unsigned ncta, smem_size;
	struct cta cta[2];
	struct thread th[256];
	uint8_t *gmem[8];
	size_t gbytes[8];
	unsigned errors, mma_bad;
	char first_error[300];
	unsigned tcol0, tcol_end;       /* the TMEM columns allocated */
	unsigned mmas;
};

static void vm_fail(struct replay *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vm_fail(struct replay *m, const char *fmt, ...)
{
	if (!m->errors++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m->first_error, sizeof m->first_error, fmt, ap);
		va_end(ap);
	}
}

#define GBASE(i) ((uint64_t)((i) + 1) << 40)
#define CBASE(i) ((uint64_t)((i) + 0x80) << 40)

static uint8_t *gaddr(struct replay *m, uint64_t a, unsigned n)
{
	unsigned i = (unsigned)(a >> 40);
	uint64_t off = a & (((uint64_t)1 << 40) - 1);
	if (i >= 1 && i <= (unsigned)m->p->nparams && off + n <= m->gbytes[i - 1])
		return m->gmem[i - 1] + off;
	if (i >= 0x80 && i < 0x80u + (unsigned)m->p->ntab && off + n <= 4u * m->p->tab[i - 0x80].n)
		return (uint8_t *)m->p->tab[i - 0x80].v + off;
	vm_fail(m, "global/const access 0x%llx (%u bytes) outside every buffer", (unsigned long long)a, n);
	return NULL;
}

static uint8_t *saddr(struct replay *m, int cta, uint64_t a, unsigned n)
{
	if (a >= SMEM_BASE && a + n <= SMEM_BASE + m->smem_size)
		return m->cta[cta].smem + (a - SMEM_BASE);
	vm_fail(m, "shared access 0x%llx (%u bytes) outside the %u bytes", (unsigned long long)a, n,
	     m->smem_size);
	return NULL;
}

static uint64_t get(struct replay *m, struct thread *t, const struct operand *o)
{
	switch (o->kind) {
	case O_REG:
		return t->r[o->reg];
	case O_IMM:
		return (uint64_t)o->imm;
	case O_SYM:
		if (!strcmp(o->sym, "mmagen_smem"))
			return SMEM_BASE;
		for (int i = 0; i < m->p->ntab; i++)
			if (!strcmp(o->sym, m->p->tab[i].name))
				return CBASE(i);
		vm_fail(m, "unknown symbol %s", o->sym);
		return 0;
	}
	vm_fail(m, "operand kind %d read as a value", o->kind);
	return 0;
}

static uint64_t mem_addr(struct replay *m, struct thread *t, const struct operand *o)
{
	if (o->kind != O_MEM) {
		vm_fail(m, "not an address operand");
		return 0;
	}
	if (o->reg >= 0)
		return t->r[o->reg] + (uint64_t)o->imm;
	for (int i = 0; i < m->p->nparams; i++)
		if (!strcmp(o->sym, m->p->params[i]))
			return (uint64_t)i;          /* ld.param: the index */
	struct operand s = { .kind = O_SYM };
	snprintf(s.sym, sizeof s.sym, "%s", o->sym);
	return get(m, t, &s) + (uint64_t)o->imm;
}

static uint64_t mask(unsigned bits, uint64_t v)
{
	return bits >= 64 ? v : v & (((uint64_t)1 << bits) - 1);
}

/* The width named by the last type suffix of op (.u32, .b64, ...). */
static unsigned op_bits(const char *op)
{
	const char *d = strrchr(op, '.');
	if (!d || !strchr("usbf", d[1]))
		return 32;
	return (unsigned)atoi(d + 2);
}

static int has(const char *op, const char *part)
{
	return strstr(op, part) != NULL;
}

/* TMEM address -> lane, column; checks the warp may touch the lane group. */
static int tmem_at(struct replay *m, const struct thread *t, uint32_t a, unsigned *lane,
		   unsigned *col)
{
	unsigned l = a >> 16, c = a & 0xFFFF, warp = (unsigned)t->tid / 32;
	if (l % 32 || l / 32 != warp % 4) {
		vm_fail(m, "warp %u addresses TMEM lane %u: a warp reaches only lanes %u-%u", warp, l,
		     32 * (warp % 4), 32 * (warp % 4) + 31);
		return 0;
	}
	*lane = l + (unsigned)t->tid % 32;
	*col = c;
	return 1;
}

static void tmem_put(struct replay *m, int cta, unsigned lane, unsigned col, uint32_t v)
{
	if (lane >= 128 || col < m->tcol0 || col >= m->tcol_end) {
		vm_fail(m, "TMEM write at lane %u column %u, outside the allocation", lane, col);
		return;
	}
	m->cta[cta].tmem[lane][col] = v;
	m->cta[cta].tmem_set[lane][col] = 1;
}

static uint32_t tmem_get(struct replay *m, int cta, unsigned lane, unsigned col)
{
	if (lane >= 128 || col < m->tcol0 || col >= m->tcol_end) {
		vm_fail(m, "TMEM read at lane %u column %u, outside the allocation", lane, col);
		return 0;
	}
	return m->cta[cta].tmem[lane][col];
}

/* ---- the smem descriptor (PTX ISA "Shared memory descriptor", decoded
 * here from the bit table, not through the library) ---- */
struct sdesc {
	uint32_t start, lbo, sbo;
	unsigned swz;        /* bytes: 0, 32, 64, 128 */
};

static int sdesc_decode(struct replay *m, uint64_t w, struct sdesc *d)
{
	static const unsigned swz[8] = { 0, 0, 128, 0, 64, 0, 32, 0 };
	unsigned code = (unsigned)(w >> 61);
	if (((w >> 46) & 7) != 1 || ((w >> 49) & 7) || ((w >> 52) & 1) || (code && !swz[code])) {
		vm_fail(m, "smem descriptor 0x%016llx: fixed bits, base offset, LBO mode or swizzle code wrong",
		     (unsigned long long)w);
		return 0;
	}
	d->start = (uint32_t)(w & 0x3FFF) << 4;
	d->lbo = (uint32_t)((w >> 16) & 0x3FFF) << 4;
	d->sbo = (uint32_t)((w >> 32) & 0x3FFF) << 4;
	d->swz = swz[code];
	return 1;
}

/* Shared address of byte kb of row r (K-major canonical layout). */
static uint32_t sdesc_addr(const struct sdesc *d, unsigned r, unsigned kb)
{
	if (!d->swz)
		return d->start + r / 8 * d->sbo + kb / 16 * d->lbo + r % 8 * 16 + kb % 16;
	uint32_t a = d->start + r / 8 * d->sbo + r % 8 * d->swz + kb;
	unsigned b = d->swz == 128 ? 3 : d->swz == 64 ? 2 : 1;
	return a ^ (((a >> 7) & ((1u << b) - 1)) << 4);
}

/* ---- tcgen05.cp ---- */
static void exec_cp(struct replay *m, struct thread *t, const struct ins *in)
{
	uint32_t ta = (uint32_t)mem_addr(m, t, &in->o[0]);
	struct sdesc d;
	if (!sdesc_decode(m, get(m, t, &in->o[1]), &d))
		return;
	unsigned rows, cg = has(in->op, "cta_group::2") ? 2 : 1;
	int mode;                                 /* 0 warpx4, 1 01_23, 2 02_13 */
	if (has(in->op, ".32x128b.warpx4"))
		rows = 32, mode = 0;
	else if (has(in->op, ".64x128b.warpx2::01_23"))
		rows = 64, mode = 1;
	else if (has(in->op, ".64x128b.warpx2::02_13"))
		rows = 64, mode = 2;
	else
		return vm_fail(m, "tcgen05.cp shape in %s not modelled", in->op);
	if ((ta >> 16) != 0)
		return vm_fail(m, "tcgen05.cp to lane %u: the copies start at lane 0", ta >> 16);
	for (unsigned c = 0; c < cg; c++) {
		int cta = cg == 2 ? (int)c : t->cta;
		for (unsigned r = 0; r < rows; r++) {
			unsigned lanes[4], nl = 0;
			if (mode == 0)
				for (unsigned i = 0; i < 4; i++)
					lanes[nl++] = 32 * i + r;
			else if (mode == 1)
				lanes[nl++] = 64 * (r / 32) + r % 32, lanes[nl++] = 64 * (r / 32) + 32 + r % 32;
			else
				lanes[nl++] = 32 * (r / 32) + r % 32, lanes[nl++] = 32 * (r / 32) + 64 + r % 32;
			for (unsigned w = 0; w < 4; w++) {
				uint8_t *s = saddr(m, cta, sdesc_addr(&d, r, 4 * w), 4);
				if (!s)
					return;
				uint32_t v = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
					     (uint32_t)s[3] << 24;
				for (unsigned i = 0; i < nl; i++)
					tmem_put(m, cta, lanes[i], (ta & 0xFFFF) + w, v);
			}
		}
	}
}

/* ---- tcgen05.mma ---- */

enum { L_A, L_B, L_C, L_D, L_E, L_F, L_G };

struct mma_geo {
	unsigned m, n, k, ka, cg, rows;   /* rows: of A per CTA */
	int layout, sparse, bs, wide;
	unsigned nsf, abits, bbits;
	int sub_byte;                     /* FP4/FP6 in 8-bit containers */
};

/* The data-path layout of (cta_group, M, .ws, sparse): ISA Layouts A-G. */
static int pick_layout(const mmagen_form *f, unsigned m)
{
	if (f->cta_group == 2)
		return m == 256 ? L_A : f->sparse ? L_C : L_B;
	if (f->ws)
		return m == 32 ? L_G : m == 64 ? L_E : L_D;
	return m == 64 ? L_F : L_D;
}

/* Lane and column of D(i, j), i a row of this CTA. */
static void d_place(const struct mma_geo *g, unsigned i, unsigned j, unsigned *lane, unsigned *col)
{
	switch (g->layout) {
	case L_B:
	case L_E:
		*lane = i + 64 * (j / (g->n / 2));
		*col = j % (g->n / 2);
		return;
	case L_G:
		*lane = i + 32 * (j / (g->n / 4));
		*col = j % (g->n / 4);
		return;
	case L_C:
	case L_F:
		*lane = 32 * (i / 16) + i % 16;
		*col = j;
		return;
	default:
		*lane = i;
		*col = j;
	}
}

/* The distinct lanes that hold D's row i (each needs the row's A, metadata
 * and scale factors). */
static unsigned row_lanes(const struct mma_geo *g, unsigned i, unsigned *lanes)
{
	unsigned n = 0;
	for (unsigned q = 0; q < 4; q++) {
		unsigned lane, col, k;
		d_place(g, i, q * g->n / 4, &lane, &col);
		for (k = 0; k < n && lanes[k] != lane; k++)
			;
		if (k == n)
			lanes[n++] = lane;
	}
	return n;
}

/* The bits of element k of a stored row of `bits`-wide elements (bit
 * offset in the row's bytes as the descriptor walks them). */
static uint64_t smem_elem(struct replay *m, int cta, const struct sdesc *d, unsigned r,
			  unsigned k, unsigned bits, int sub_byte)
{
	/* FP4/FP6 under f8f6f4: 16 elements per 16 bytes, packed from bit 0 */
	unsigned bit = sub_byte ? k / 16 * 128 + k % 16 * bits : k * bits;
	uint64_t v = 0;
	for (unsigned b = 0; b < bits; b++) {
		unsigned at = bit + b;
		uint8_t *s = saddr(m, cta, sdesc_addr(d, r, at / 8), 1);
		if (!s)
			return 0;
		v |= (uint64_t)(*s >> (at % 8) & 1) << b;
	}
	return v;
}

/* One 2- or 4-bit metadata field (bit `at` of the row's bit string) of
 * row i of this CTA, from TMEM: 16-bit pieces where CUTLASS/JAX put them;
 * every copy must agree (*bad counts those that do not). */
static unsigned meta_field(struct replay *m, int cta, const struct mma_geo *g, unsigned mcol,
			   unsigned i, unsigned at, unsigned width, unsigned *bad)
{
	unsigned piece = at / 16, lanes[4], nl = 0, slot;
	if (g->wide) {
		unsigned l = i % 8 + 8 * piece + 16 * (i / 16);
		unsigned copies = g->layout == L_E || g->layout == L_G ? 128 / g->rows : 1;
		for (unsigned c = 0; c < copies; c++)
			lanes[nl++] = l + c * g->rows;
		slot = i / 8 % 2;
	} else {
		nl = row_lanes(g, i, lanes);
		slot = piece;
	}
	unsigned v = 0;
	for (unsigned c = 0; c < nl; c++) {
		uint32_t w = tmem_get(m, cta, lanes[c], mcol + slot / 2);
		unsigned x = (w >> (16 * (slot % 2) + at % 16)) & ((1u << width) - 1);
		if (c == 0)
			v = x;
		*bad += x != v;
	}
	return v;
}

static void exec_mma(struct replay *m, struct thread *t, const struct ins *in)
{
	const mmagen_form *f = m->f;
	struct mma_geo g = { 0 };
	int at = 0;
	uint32_t dt = (uint32_t)mem_addr(m, t, &in->o[at++]);
	const struct operand *oa = &in->o[at++], *ob = &in->o[at++];
	uint32_t mt = 0, sat = 0, sbt = 0;
	if (f->sparse)
		mt = (uint32_t)mem_addr(m, t, &in->o[at++]);
	uint32_t id = (uint32_t)get(m, t, &in->o[at++]);
	g.bs = f->block_scale != 0;
	if (g.bs) {
		sat = (uint32_t)mem_addr(m, t, &in->o[at++]);
		sbt = (uint32_t)mem_addr(m, t, &in->o[at++]);
	}
	int enable = get(m, t, &in->o[at++]) != 0;
	m->mmas++;
	/* the instruction descriptor's M, N and ids (ISA Tables 43/44) */
	g.n = (id >> 17 & 0x3F) << 3;
	g.m = g.bs ? (id >> 27 & 3) << 7 : (id >> 24 & 0x1F) << 4;
	unsigned sfb_id = g.bs ? id >> 4 & 3 : 0, sfa_id = g.bs ? id >> 29 & 3 : 0;
	if (g.m != m->ti->m || g.n != m->ti->n || !(id >> 2 & 1) != !f->sparse || (id >> 15 & 3) ||
	    (!g.bs && (id & 3)))
		return vm_fail(m, "idesc 0x%08x: M %u N %u, sparse %u, transpose %u, selector %u; the tile is "
			    "%ux%u", id, g.m, g.n, id >> 2 & 1, id >> 15 & 3, id & 3, m->ti->m, m->ti->n);
	if (enable != (m->scale_d != 0))
		return vm_fail(m, "enable-input-d %d, the tile wants %d", enable, m->scale_d);
	g.cg = f->cta_group;
	g.k = f->k;
	g.sparse = f->sparse != 0;
	g.ka = g.sparse ? g.k / 2 : g.k;
	g.rows = g.m / g.cg;
	g.layout = pick_layout(f, g.m);
	g.wide = f->kind == MMAGEN_KIND_F16 || f->kind == MMAGEN_KIND_TF32;
	g.abits = mmagen_type_bits((mmagen_type)f->a);
	g.bbits = mmagen_type_bits((mmagen_type)f->b);
	int f8 = f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4;
	g.sub_byte = f8;

	const uint64_t *ra, *rb, *rc, *rd, *rsa = NULL, *rsb = NULL;
	unsigned r1, c1, sv = 0;
	if (mmagen_check_operand(m->chk, "A", &ra, &r1, &c1) ||
	    mmagen_check_operand(m->chk, "B", &rb, &r1, &c1) ||
	    mmagen_check_operand(m->chk, "C", &rc, &r1, &c1) ||
	    mmagen_check_operand(m->chk, "D", &rd, &r1, &c1) ||
	    (g.bs && (mmagen_check_operand(m->chk, "SA", &rsa, &r1, &sv) ||
		      mmagen_check_operand(m->chk, "SB", &rsb, &r1, &c1))))
		return vm_fail(m, "check operands: %s", mmagen_last_error());

	struct sdesc db, da;
	if (!sdesc_decode(m, get(m, t, ob), &db))
		return;
	int a_tmem = oa->kind == O_MEM;
	if (!a_tmem && !sdesc_decode(m, get(m, t, oa), &da))
		return;
	unsigned bad_a = 0, bad_b = 0, bad_s = 0, bad_c = 0;
	/* B: column j of the instruction lives in CTA j / (N/cg) */
	for (unsigned j = 0; j < g.n; j++) {
		unsigned per = g.n / g.cg;
		int cta = g.cg == 2 ? (int)(j / per) : t->cta;
		for (unsigned k = 0; k < g.k; k++)
			bad_b += smem_elem(m, cta, &db, j % per, k, g.bbits, g.sub_byte) !=
				 rb[(size_t)k * g.n + j];
	}
	for (unsigned c = 0; c < g.cg; c++) {
		int cta = g.cg == 2 ? (int)c : t->cta;
		for (unsigned i = 0; i < g.rows; i++) {
			unsigned gi = c * g.rows + i, lanes[4], nl = row_lanes(&g, i, lanes);
			/* A as stored, then the logical row through the metadata */
			uint64_t st[256] = { 0 }, logical[256] = { 0 };
			for (unsigned k = 0; k < g.ka; k++) {
				if (!a_tmem) {
					st[k] = smem_elem(m, cta, &da, i, k, g.abits, g.sub_byte);
					continue;
				}
				/* A in TMEM: row i in each of D's row lanes, K packed
				 * along the columns (FP4/FP6: a byte each, e2m1 in
				 * bits 2..5) */
				unsigned eb = f8 ? 8 : g.abits, bit = k * eb;
				for (unsigned l = 0; l < nl; l++) {
					uint32_t w = tmem_get(m, cta, lanes[l],
							      (uint32_t)(mem_addr(m, t, oa) & 0xFFFF) + bit / 32);
					uint64_t v = (w >> (bit % 32)) & (uint32_t)((1ull << eb) - 1);
					if (f8 && f->a == MMAGEN_E2M1)
						v >>= 2;
					v &= (1ull << g.abits) - 1;
					if (l == 0)
						st[k] = v;
					bad_a += v != st[k];
				}
			}
			if (!g.sparse) {
				memcpy(logical, st, sizeof st);
			} else {
				/* 2:4 (2-bit index per kept element), tf32 1:2 (4-bit
				 * code 0x4/0xE), packed e2m1 4:8 pairs (2-bit pair
				 * index per kept pair) */
				int tf = f->a == MMAGEN_TF32, pairs = !f8 && g.abits == 4;
				unsigned unit = pairs ? 2 : 1, width = tf ? 4 : 2;
				unsigned group = tf ? 2 : 4, keep = tf ? 1 : 2;     /* in units */
				for (unsigned u = 0; u < g.ka / unit; u++) {
					unsigned v = meta_field(m, cta, &g, (mt & 0xFFFF), i, u * width, width, &bad_a);
					unsigned pos = v;
					if (tf) {
						pos = v == 0x4 ? 0 : v == 0xE ? 1 : 9;
						if (pos == 9) {
							bad_a++;
							continue;
						}
					}
					unsigned lcol = (u / keep * group + pos) * unit;
					for (unsigned e = 0; e < unit && lcol + e < g.k; e++)
						logical[lcol + e] = st[u * unit + e];
				}
			}
			for (unsigned k = 0; k < g.k; k++)
				bad_a += logical[k] != ra[(size_t)gi * g.k + k];
			/* scale factors as the lanes of row i read them */
			for (unsigned l = 0; g.bs && l < nl; l++) {
				unsigned grp = lanes[l] / 32 * 32;
				for (unsigned v = 0; v < sv; v++) {
					uint32_t w = tmem_get(m, cta, grp + i % 32, (sat & 0xFFFF) + i / 32);
					bad_s += (w >> 8 * (sfa_id + v) & 0xFF) != rsa[(size_t)gi * sv + v];
				}
			}
			/* C at D's place, and D written there */
			for (unsigned j = 0; j < g.n; j++) {
				unsigned lane, col;
				d_place(&g, i, j, &lane, &col);
				col += dt & 0xFFFF;
				if (enable && tmem_get(m, cta, lane, col) != (uint32_t)rc[(size_t)gi * g.n + j])
					bad_c++;
				if (g.bs) {
					unsigned grp = lane / 32 * 32, jj = j;
					if (g.layout == L_B)   /* SFB per N half */
						jj = j % (g.n / 2);
					for (unsigned v = 0; v < sv; v++) {
						uint32_t w = tmem_get(m, cta, grp + jj % 32, (sbt & 0xFFFF) + jj / 32);
						bad_s += (w >> 8 * (sfb_id + v) & 0xFF) !=
							 rsb[(size_t)v * g.n + j];
					}
				}
				tmem_put(m, cta, lane, col, (uint32_t)rd[(size_t)gi * g.n + j]);
			}
		}
	}
	if (bad_a || bad_b || bad_s || bad_c) {
		m->mma_bad += bad_a + bad_b + bad_s + bad_c;
		vm_fail(m, "the MMA read %u wrong A, %u wrong B, %u wrong scale-factor and %u wrong C elements",
		     bad_a, bad_b, bad_s, bad_c);
	}
}

/* ---- one instruction ---- */

static int label_index(const struct prog *p, const char *name)
{
	for (int i = 0; i < p->nlabel; i++)
		if (!strcmp(p->label[i], name))
			return p->label_at[i];
	return -1;
}

static int cmp(const char *op, uint64_t a, uint64_t b)
{
	if (has(op, ".eq"))
		return a == b;
	if (has(op, ".ne"))
		return a != b;
	if (has(op, ".lt"))
		return a < b;
	if (has(op, ".le"))
		return a <= b;
	if (has(op, ".gt"))
		return a > b;
	if (has(op, ".ge"))
		return a >= b;
	return -1;
}

enum { OC_MOV, OC_ADD, OC_SUB, OC_MULLO, OC_MULWIDE, OC_MAD, OC_DIVREM, OC_SHL, OC_SHR, OC_AND, OC_OR, OC_XOR, OC_CVT, OC_SETP, OC_BRA, OC_LDPARAM, OC_LDGLOBAL, OC_STGLOBAL, OC_LDSHARED, OC_STSHARED, OC_BAR, OC_CARRIVE, OC_CWAIT, OC_NOP, OC_TRYWAIT, OC_ALLOC, OC_TMEMLDST, OC_CP, OC_MMA, OC_COMMIT, OC_RET };

/* Opcode classes: the step's branches, looked up once per instruction
 * (prefix, or exact with 1), in the step's order. */
static const struct {
	const char *text;
	int exact, code;
} op_classes[] = {
	{ "mov.", 0, OC_MOV },
	{ "add.", 0, OC_ADD },
	{ "sub.", 0, OC_SUB },
	{ "mul.lo.", 0, OC_MULLO },
	{ "mul.wide.u32", 0, OC_MULWIDE },
	{ "mad.lo.", 0, OC_MAD },
	{ "div.u", 0, OC_DIVREM },
	{ "rem.u", 0, OC_DIVREM },
	{ "shl.", 0, OC_SHL },
	{ "shr.", 0, OC_SHR },
	{ "and.", 0, OC_AND },
	{ "or.", 0, OC_OR },
	{ "xor.", 0, OC_XOR },
	{ "cvt.", 0, OC_CVT },
	{ "cvta.to.global", 0, OC_CVT },
	{ "setp.", 0, OC_SETP },
	{ "bra", 1, OC_BRA },
	{ "bra.uni", 1, OC_BRA },
	{ "ld.param.u64", 1, OC_LDPARAM },
	{ "ld.global.", 0, OC_LDGLOBAL },
	{ "ld.const.", 0, OC_LDGLOBAL },
	{ "st.global.", 0, OC_STGLOBAL },
	{ "ld.shared.", 0, OC_LDSHARED },
	{ "st.shared.", 0, OC_STSHARED },
	{ "bar.sync", 1, OC_BAR },
	{ "barrier.cluster.arrive", 0, OC_CARRIVE },
	{ "barrier.cluster.wait", 0, OC_CWAIT },
	{ "mbarrier.init", 0, OC_NOP },
	{ "fence.", 0, OC_NOP },
	{ "tcgen05.fence", 0, OC_NOP },
	{ "tcgen05.wait", 0, OC_NOP },
	{ "tcgen05.relinquish", 0, OC_NOP },
	{ "tcgen05.dealloc", 0, OC_NOP },
	{ "mbarrier.try_wait.parity", 0, OC_TRYWAIT },
	{ "tcgen05.alloc", 0, OC_ALLOC },
	{ "tcgen05.st.sync.aligned.32x32b.x", 0, OC_TMEMLDST },
	{ "tcgen05.ld.sync.aligned.32x32b.x", 0, OC_TMEMLDST },
	{ "tcgen05.cp.", 0, OC_CP },
	{ "tcgen05.mma", 0, OC_MMA },
	{ "tcgen05.commit", 0, OC_COMMIT },
	{ "ret", 1, OC_RET },
};

static int classify(const char *op)
{
	for (size_t i = 0; i < sizeof op_classes / sizeof op_classes[0]; i++)
		if (op_classes[i].exact ? !strcmp(op, op_classes[i].text) :
		    !strncmp(op, op_classes[i].text, strlen(op_classes[i].text)))
			return op_classes[i].code;
	return -1;
}

/* Run thread t until it blocks or ends. */
static void step(struct replay *m, struct thread *t)
{
	const struct prog *p = m->p;
	for (unsigned guard = 0; t->state == T_RUN && !m->errors; guard++) {
		if (t->pc >= p->nins || guard > 5000000) {
			vm_fail(m, "thread %d ran off the program", t->tid);
			return;
		}
		const struct ins *in = &p->ins[t->pc];
		const char *op = in->op;
		uint64_t *R = t->r;
		t->pc++;
		if (in->pred >= 0 && (R[in->pred] != 0) == in->pneg)
			continue;
		unsigned bits = in->bits;
		const struct operand *o = in->o;
		int d = o[0].reg;
#define V(i) get(m, t, &o[i])
		switch (in->code) {
		case OC_MOV:
			if (o[1].kind == O_VEC)
				R[d] = (R[o[1].vec[0]] & 0xFFFFFFFFu) | R[o[1].vec[1]] << 32;
			else
				R[d] = mask(bits, V(1));
			break;
		case OC_ADD:
			R[d] = mask(bits, V(1) + V(2));
			break;
		case OC_SUB:
			R[d] = mask(bits, V(1) - V(2));
			break;
		case OC_MULLO:
			R[d] = mask(bits, V(1) * V(2));
			break;
		case OC_MULWIDE:
			R[d] = mask(32, V(1)) * mask(32, V(2));
			break;
		case OC_MAD:
			R[d] = mask(bits, V(1) * V(2) + V(3));
			break;
		case OC_DIVREM: {
			uint64_t b = V(2);
			if (!b)
				return vm_fail(m, "line %d: division by 0", in->line);
			R[d] = mask(bits, op[0] == 'd' ? V(1) / b : V(1) % b);
			break;
		}
		case OC_SHL: {
			uint64_t sh = V(2);
			R[d] = sh >= bits ? 0 : mask(bits, V(1) << sh);
			break;
		}
		case OC_SHR: {
			uint64_t sh = V(2);
			R[d] = sh >= bits ? 0 : mask(bits, V(1)) >> sh;
			break;
		}
		case OC_AND:
			R[d] = mask(bits, V(1) & V(2));
			break;
		case OC_OR:
			R[d] = mask(bits, V(1) | V(2));
			break;
		case OC_XOR:
			R[d] = mask(bits, V(1) ^ V(2));
			break;
		case OC_CVT: {
			/* cvt.DST.SRC: unsigned integer conversions only */
			unsigned db = (unsigned)atoi(op + 5);
			R[d] = mask(db ? db : 64, V(1));
			break;
		}
		case OC_SETP: {
			int c = cmp(op, mask(bits, V(1)), mask(bits, V(2)));
			if (c < 0)
				return vm_fail(m, "line %d: %s not modelled", in->line, op);
			if (has(op, ".and."))
				c = c && R[o[3].reg];
			R[d] = (uint64_t)c;
			break;
		}
		case OC_BRA: {
			int to = label_index(p, o[0].sym);
			if (to < 0)
				return vm_fail(m, "line %d: no label %s", in->line, o[0].sym);
			t->pc = to;
			break;
		}
		case OC_LDPARAM:
			R[d] = GBASE(mem_addr(m, t, &o[1]));
			break;
		case OC_LDGLOBAL:
		case OC_LDSHARED: {
			uint64_t a = mem_addr(m, t, &o[1]), v = 0;
			uint8_t *src = in->code == OC_LDSHARED ? saddr(m, t->cta, a, bits / 8) :
				       gaddr(m, a, bits / 8);
			for (unsigned k = 0; src && k < bits / 8; k++)
				v |= (uint64_t)src[k] << 8 * k;
			R[d] = v;
			break;
		}
		case OC_STGLOBAL:
		case OC_STSHARED: {
			int vec = has(op, ".v4.");
			unsigned n = (vec ? 4 : 1) * bits / 8;
			uint64_t a = mem_addr(m, t, &o[0]);
			uint8_t *dst = in->code == OC_STSHARED ? saddr(m, t->cta, a, n) : gaddr(m, a, n);
			for (int e = 0; dst && e < (vec ? 4 : 1); e++) {
				uint64_t v = vec ? R[o[1].vec[e]] : V(1);
				for (unsigned k = 0; k < bits / 8; k++)
					dst[e * bits / 8 + k] = (uint8_t)(v >> 8 * k);
			}
			break;
		}
		case OC_BAR:
			t->state = T_BAR;
			break;
		case OC_CARRIVE:      /* the wait right after it is the barrier */
		case OC_NOP:          /* ordering only: the replay runs in order */
			break;
		case OC_CWAIT:
			t->state = T_CBAR;
			break;
		case OC_TRYWAIT:
			R[d] = (uint64_t)m->cta[t->cta].committed;
			if (!m->cta[t->cta].committed)
				t->state = T_WAIT;
			break;
		case OC_ALLOC: {
			/* the last columns, not 0: a kernel that forgets the base fails */
			unsigned ncols = (unsigned)V(1);
			if (ncols < 32 || ncols > TCOLS || (ncols & (ncols - 1)))
				return vm_fail(m, "line %d: tcgen05.alloc of %u columns", in->line, ncols);
			m->tcol0 = TCOLS - ncols;
			m->tcol_end = TCOLS;
			uint8_t *dst = saddr(m, t->cta, mem_addr(m, t, &o[0]), 4);
			if (dst && t->tid % 32 == 0)
				for (unsigned k = 0; k < 4; k++)
					dst[k] = (uint8_t)(m->tcol0 >> 8 * k);
			break;
		}
		case OC_TMEMLDST: {
			int st = op[8] == 's';
			const struct operand *ov = &o[st ? 1 : 0], *oaddr = &o[st ? 0 : 1];
			unsigned lane, col;
			if (!tmem_at(m, t, (uint32_t)mem_addr(m, t, oaddr), &lane, &col))
				return;
			for (int e = 0; e < ov->nvec; e++)
				if (st)
					tmem_put(m, t->cta, lane, col + (unsigned)e, (uint32_t)R[ov->vec[e]]);
				else
					R[ov->vec[e]] = tmem_get(m, t->cta, lane, col + (unsigned)e);
			break;
		}
		case OC_CP:
			exec_cp(m, t, in);
			break;
		case OC_MMA:
			exec_mma(m, t, in);
			break;
		case OC_COMMIT:
			for (unsigned c = 0; c < m->ncta; c++)
				if (has(op, "multicast") || (int)c == t->cta)
					m->cta[c].committed = 1;
			break;
		case OC_RET:
			t->state = T_DONE;
			break;
		default:
			return vm_fail(m, "line %d: %s not modelled", in->line, op);
		}
#undef V
	}
}

/* Run every thread; release barriers when all threads reach them. */
static void run_all(struct replay *m)
{
	unsigned nth = 128 * m->ncta;
	for (unsigned round = 0; round < 100000 && !m->errors; round++) {
		int progress = 0;
		for (unsigned i = 0; i < nth; i++)
			if (m->th[i].state == T_RUN) {
				step(m, &m->th[i]);
				progress = 1;
			}
		unsigned done = 0, bar = 0, cbar = 0, wait = 0;
		for (unsigned i = 0; i < nth; i++) {
			done += m->th[i].state == T_DONE;
			bar += m->th[i].state == T_BAR;
			cbar += m->th[i].state == T_CBAR;
			wait += m->th[i].state == T_WAIT;
		}
		if (done == nth)
			return;
		for (unsigned c = 0; c < m->ncta; c++) {
			unsigned in_bar = 0;
			for (unsigned i = 0; i < 128; i++)
				in_bar += m->th[128 * c + i].state == T_BAR;
			if (in_bar == 128)
				for (unsigned i = 0; i < 128; i++)
					m->th[128 * c + i].state = T_RUN;
		}
		if (cbar == nth)
			for (unsigned i = 0; i < nth; i++)
				m->th[i].state = T_RUN;
		for (unsigned i = 0; i < nth; i++)
			if (m->th[i].state == T_WAIT && m->cta[m->th[i].cta].committed)
				m->th[i].state = T_RUN, progress = 1;
		if (!progress && !bar && !cbar && wait) {
			vm_fail(m, "deadlock: %u threads wait on an mbarrier nothing commits", wait);
			return;
		}
		(void)done;
	}
	if (!m->errors)
		vm_fail(m, "the kernel did not finish");
}

/* ---- one tile ---- */

/* Replay the PTX `ptx` of f's tile with options o; 0 when D is right and
 * the MMA read every operand right.  *why: the first problem. */
static int replay(const char *ptx, const mmagen_form *f, const mmagen_tile_opts *o, uint64_t seed,
		  char *why, size_t whylen)
{
	struct prog p;
	struct replay *m = calloc(1, sizeof *m);
	mmagen_check *chk = NULL;
	int ok = 0;
	if (!m)
		return 0;
	snprintf(why, whylen, "setup");
	if (!parse_prog(ptx, &p)) {
		snprintf(why, whylen, "cannot parse the PTX");
		free_prog(&p);
		free(m);
		return 0;
	}
	if (mmagen_check_new(f, o, MMAGEN_CHECK_RANDOM, seed, &chk)) {
		snprintf(why, whylen, "check: %s", mmagen_last_error());
		goto out;
	}
	m->p = &p;
	m->f = f;
	m->chk = chk;
	m->ti = mmagen_check_tile(chk);
	m->scale_d = o ? o->scale_d : 1;
	m->ncta = m->ti->grid[0];
	m->smem_size = m->ti->smem;
	if (m->ncta < 1 || m->ncta > 2 || (int)m->ti->nparams != p.nparams) {
		snprintf(why, whylen, "manifest: %u CTAs, %u parameters (PTX: %d)", m->ncta,
			 m->ti->nparams, p.nparams);
		goto out;
	}
	for (unsigned i = 0; i < m->ti->nparams; i++) {
		const void *data;
		size_t bytes;
		mmagen_check_data(chk, i, &data, &bytes);
		m->gmem[i] = malloc(bytes ? bytes : 1);
		memcpy(m->gmem[i], data, bytes);
		m->gbytes[i] = bytes;
	}
	for (unsigned c = 0; c < m->ncta; c++) {
		m->cta[c].smem = malloc(m->smem_size);
		memset(m->cta[c].smem, 0xA5, m->smem_size);          /* poison */
		memset(m->cta[c].tmem, 0x5A, sizeof m->cta[c].tmem);
	}
	for (unsigned i = 0; i < 128 * m->ncta; i++) {
		struct thread *t = &m->th[i];
		t->r = calloc((size_t)p.nregs + SR_COUNT, sizeof *t->r);
		t->cta = (int)(i / 128);
		t->tid = (int)(i % 128);
		t->r[p.nregs + SR_TID] = (uint64_t)t->tid;
		t->r[p.nregs + SR_RANK] = (uint64_t)t->cta;
	}
	run_all(m);
	if (!m->errors && m->mmas != 1)
		vm_fail(m, "%u tcgen05.mma ran (want 1)", m->mmas);
	if (!m->errors) {
		unsigned d;
		mmagen_check_result res = { .size = sizeof res };
		mmagen_check_find_param(m->ti, "D", &d);
		if (mmagen_check_verify(chk, m->gmem[d], m->gbytes[d], &res))
			vm_fail(m, "verify: %s", mmagen_last_error());
		else if (!res.pass)
			vm_fail(m, "D: %zu of %zu elements wrong, first (%u, %u)", res.bad, res.total,
			     res.row, res.col);
	}
	ok = !m->errors;
	snprintf(why, whylen, "%s", m->errors ? m->first_error : "ok");
	for (unsigned i = 0; i < 128 * m->ncta; i++)
		free(m->th[i].r);
	for (unsigned c = 0; c < m->ncta; c++)
		free(m->cta[c].smem);
	for (unsigned i = 0; i < 8; i++)
		free(m->gmem[i]);
out:
	mmagen_check_free(chk);
	free_prog(&p);
	free(m);
	return ok;
}

/* ---- the forms ---- */

struct optset {
	unsigned m, n, swizzle;
	int scale_d;
};

/* As tests/ptxas/check_tcgen05_tiles.c: defaults, then each layout and
 * swizzle once per opcode and A source. */
static const struct optset optsets[] = {
	{ 0, 0, 128, 1 },
	{ 64, 32, 0, 0 },      /* Layout F (cg1), no swizzle, enable-input-d off */
	{ 128, 64, 64, 1 },    /* Layout B/C (cg2) */
	{ 32, 64, 32, 1 },     /* .ws Layout G */
	{ 64, 256, 64, 1 },    /* .ws Layout E */
	{ 128, 256, 0, 1 },    /* N = 256: SFB in two chunks (cg1, cg2 M = 256 defaults 128) */
};

static int first_seen(const char *op, unsigned asrc)
{
	static char seen[1000][300];
	static unsigned nseen;
	char key[300];
	snprintf(key, sizeof key, "%s/%u", op, asrc);
	for (unsigned i = 0; i < nseen; i++)
		if (!strcmp(seen[i], key))
			return 0;
	if (nseen < 1000)
		snprintf(seen[nseen++], sizeof seen[0], "%s", key);
	return 1;
}

static char *emit(const mmagen_form *f, int t, const mmagen_tile_opts *o)
{
	char *ptx = NULL;
	size_t len;
	if (mmagen_emit_tile(f, t, o, MMAGEN_FMT_PTX, &ptx, &len))
		return NULL;
	return ptx;
}

/* Replace the first `from` after `after` (NULL: anywhere) by `to`. */
static char *mutate(const char *ptx, const char *after, const char *from, const char *to)
{
	const char *a = after ? strstr(ptx, after) : ptx;
	const char *at = a ? strstr(a, from) : NULL;
	if (!at)
		return NULL;
	size_t n = strlen(ptx) + strlen(to) + 1;
	char *out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)(at - ptx), ptx, to, at + strlen(from));
	return out;
}

static const mmagen_form *find_op(const char *opcode, unsigned a, unsigned asrc)
{
	char op[256];
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_TCGEN05 && f->a == a && f->asrc == asrc &&
		    !strcmp(mmagen_form_opcode(f, op, sizeof op), opcode))
			return f;
	}
	return NULL;
}

/* Each mutation changes one placement; the replay must see it. */
static void test_mutations(int t)
{
	static const struct {
		const char *opcode;
		unsigned a, m, n, swizzle;
		const char *after, *from, *to, *what;
	} cases[] = {
		{ "tcgen05.mma.sp.cta_group::1.kind::f16", MMAGEN_F16, 128, 64, 128,
		  "mmagen_te[256] = {\n\t", "0x0, 0x10,", "0x10, 0x0,",
		  "two metadata pieces swapped in the table" },
		{ "tcgen05.mma.sp.cta_group::1.kind::f16", MMAGEN_F16, 128, 64, 128,
		  "mmagen_te[256] = {\n\t", "0x0, 0x10, 0x2, 0x12, 0x4, 0x14, 0x6, 0x16,\n"
		  "\t0x8, 0x18, 0xa, 0x1a, 0xc, 0x1c, 0xe, 0x1e,\n"
		  "\t0x1, 0x11,", "0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7,\n"
		  "\t0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf,\n\t0x10, 0x11,",
		  "kind::f16 metadata row per lane (the old layout) in lanes 0-8" },
		{ "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X", MMAGEN_E4M3,
		  128, 128, 128, NULL, "64x128b.warpx2::01_23", "64x128b.warpx2::02_13",
		  "Layout B's SFB copied with ::02_13" },
		{ "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", MMAGEN_E4M3,
		  128, 64, 128, NULL, "32x128b.warpx4", "64x128b.warpx2::01_23",
		  "SA copied as 64 rows into two lane groups" },
		{ "tcgen05.mma.cta_group::1.kind::f16", MMAGEN_F16, 128, 64, 128,
		  "B: global", "xor.b32", "or.b32", "B's swizzle XOR turned into OR" },
		{ "tcgen05.mma.cta_group::1.kind::tf32", MMAGEN_TF32, 128, 64, 0,
		  "A: global", "mad.lo.u32", "mul.lo.u32", "A's no-swizzle chunk address loses its row part" },
		{ "tcgen05.mma.cta_group::1.kind::f16", MMAGEN_F16, 64, 64, 128,
		  "this thread's TMEM lane", "setp.lt.u32", "setp.le.u32", "Layout F lane map: lane 16 kept" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const mmagen_form *f = find_op(cases[i].opcode, cases[i].a, MMAGEN_ASRC_SMEM);
		mmagen_tile_opts o;
		char why[300], why2[300];
		mmagen_tile_opts_init(&o);
		o.m = cases[i].m;
		o.n = cases[i].n;
		o.swizzle = cases[i].swizzle;
		char *ptx = f ? emit(f, t, &o) : NULL;
		char *bad = ptx ? mutate(ptx, cases[i].after, cases[i].from, cases[i].to) : NULL;
		CHECK(bad != NULL, "mutation %zu (%s): no kernel or nothing to change", i, cases[i].what);
		if (bad) {
			int good = replay(ptx, f, &o, 7, why, sizeof why);
			int caught = !replay(bad, f, &o, 7, why2, sizeof why2);
			CHECK(good && caught, "mutation %zu (%s): original %s; mutated: %s", i,
			      cases[i].what, why, caught ? why2 : "passed");
			if (good && caught)
				printf("  mutation caught: %s -- %s\n", cases[i].what, why2);
		}
		free(bad);
		mmagen_free(ptx);
	}
}

int main(int argc, char **argv)
{
	int t;
	unsigned tiles = 0, declined = 0, seed = 1;
	mmagen_target_parse("sm_103a", &t);
	const char *only = argc > 1 ? argv[1] : NULL;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		char op[256];
		if (f->family != MMAGEN_FAM_TCGEN05 || f->ashift)
			continue;
		int ft = mmagen_form_on_target(f, t) ? t : mmagen_form_min_target(f);
		mmagen_form_opcode(f, op, sizeof op);
		if (only && !strstr(op, only))
			continue;
		/* every option set once per opcode and A source; then the
		 * defaults once per element width and C/D type (the types
		 * change only the copy loops and the idesc) */
		char key[300];
		snprintf(key, sizeof key, "%s/%u/%u/%u/%u", op, mmagen_type_bits((mmagen_type)f->a),
			 mmagen_type_bits((mmagen_type)f->b), f->c, f->d);
		size_t nsets = first_seen(op, f->asrc) ? sizeof optsets / sizeof optsets[0] :
			       first_seen(key, f->asrc) ? 1 : 0;
		for (size_t k = 0; k < nsets; k++) {
			mmagen_tile_opts o;
			char why[300];
			mmagen_tile_opts_init(&o);
			o.m = optsets[k].m;
			o.n = optsets[k].n;
			o.swizzle = optsets[k].swizzle;
			o.scale_d = optsets[k].scale_d;
			if (nsets == 1) {
				/* a type mix: the smallest legal N (the exact
				 * reference is most of the time) */
				mmagen_tile_info ti;
				if (!mmagen_tile_info_of(f, &o, &ti))
					for (o.n = 8; o.n < ti.n && mmagen_tc_check_shape(f, ti.m, o.n); o.n += 8)
						;
			}
			char *ptx = emit(f, ft, &o);
			if (!ptx) {
				CHECK(k > 0, "%s: no tile kernel with default options: %s", op,
				      mmagen_last_error());
				declined++;
				continue;
			}
			int ok = replay(ptx, f, &o, seed++, why, sizeof why);
			CHECK(ok, "%s A %s B %s (M %u N %u swizzle %u scale-d %d): %s", op,
			      mmagen_type_name((mmagen_type)f->a), mmagen_type_name((mmagen_type)f->b),
			      o.m, o.n, o.swizzle, o.scale_d, why);
			tiles++;
			mmagen_free(ptx);
		}
	}
	if (!only)
		test_mutations(t);
	CHECK(only || tiles >= 100, "only %u tiles replayed", tiles);
	printf("tcgen05 replay: %u tiles run on the CPU, %u option sets declined; %lu passed, %lu failed\n",
	       tiles, declined, passed, failed);
	return failed ? 1 : 0;
}
