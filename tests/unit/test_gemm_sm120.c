/* test_gemm_sm120.c - the sm_120a GEMM's data movement, replayed on the
 * CPU (there is no SM120 GPU here; the ptxas suite assembles the kernels).
 *
 * For each request (kind::f8f6f4 and every block-scaled kind, several
 * shapes with partial tiles in M, N and K, several tiles): random A, B and
 * scales are laid out as the manifest says (padding past K and past the
 * scale rows poisoned), and the kernel's loads are replayed:
 *   - cp.async: per thread, the row, byte and stage place of its copies
 *     from the kernel's own .const tables (mmagen_tcp_src/_dst), src-size
 *     as the template computes it; every stage byte written exactly once,
 *     no read outside the buffers;
 *   - ldmatrix.x4 with the PTX ISA's semantics (lane 8j+r addresses row r
 *     of matrix j; lane l receives word l%4 of row l/4) from the per-lane
 *     offsets of mmagen_tld; the scale registers from mmagen_tls;
 *   - the instruction: fragments decoded with the PTX ISA's m16n8k32 /
 *     m16n8k64 layouts and scale placement ({byte-id, thread-id} = {0, 0}),
 *     written out below independently of the generator.
 * D from the replay must equal the exact product of the inputs.  The
 * immediates of the PTX's cp.async, ldmatrix and scale loads are checked
 * against the stage layout as a set, every ldmatrix and cp.async phase
 * is shown free of bank conflicts from the tables, and the main loop's
 * registers are
 * followed through the PTX text (check_flow): each mma.sync takes the
 * fragments and scales of one step and tile, in step order.  Then
 * deliberately wrong placements (two lanes' scale rows swapped, two
 * lanes' ldmatrix rows swapped, two threads' copy places swapped, a B
 * fragment loaded from A's rows) must each be caught.
 * Not replayed: the PTX's own integer arithmetic around these (tile
 * order, global addresses, src-size and predicates, stage rotation) and
 * the epilogue: the replay follows the template's description of them.
 *
 * `run gemm`'s side (gen/cli/run_gemm_sm120.c): the same replay runs on the
 * buffers the runner would upload (rg120_fill: its containers, packing
 * and scale rows), against the values the runner's reference reads back
 * through its own layout and decode table; rg120_reference must equal the
 * replayed D.  Buffers the runner lays out wrongly (two scale rows
 * swapped, the nibbles of a byte swapped, an e2m1 code in the wrong bits)
 * must be caught.  The runner's decode table is checked against the
 * library's codec and the spec's values, and its rules, check and --save.
 */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "run_gemm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define ROW 128u         /* stage row bytes */
#define POISON 0xFF

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- the kernel's tables ---- */
struct tabs {
	uint32_t cp_src[256], cp_dst[256], ld[256], ls[64];
	int has_ls;
};

static int parse_table(const char *ptx, const char *name, uint32_t *out, unsigned n)
{
	char key[64];
	snprintf(key, sizeof key, " %s[%u] = {", name, n);
	const char *p = strstr(ptx, key);
	if (!p)
		return 0;
	p += strlen(key);
	for (unsigned i = 0; i < n; i++) {
		char *end;
		while (*p == ',' || *p == ' ' || *p == '\n' || *p == '\t')
			p++;
		out[i] = (uint32_t)strtoul(p, &end, 0);
		if (end == p)
			return 0;
		p = end;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return *p == '}';
}

/* Every immediate of `[%r..+IMM]` on lines that start with `op` (after
 * an optional predicate), as a sorted set. */
static unsigned immediates(const char *ptx, const char *op, unsigned *out, unsigned max)
{
	unsigned n = 0;
	for (const char *p = ptx; (p = strstr(p, op)); p++) {
		const char *plus = strchr(p, '+'), *nl = strchr(p, '\n');
		if (!plus || (nl && plus > nl) || p[-1] == '/')
			continue;
		unsigned v = (unsigned)strtoul(plus + 1, NULL, 10), seen = 0;
		for (unsigned i = 0; i < n; i++)
			seen |= out[i] == v;
		if (!seen && n < max)
			out[n++] = v;
	}
	for (unsigned i = 0; i < n; i++)      /* sort */
		for (unsigned j = i + 1; j < n; j++)
			if (out[j] < out[i]) {
				unsigned t = out[i];
				out[i] = out[j];
				out[j] = t;
			}
	return n;
}

static int same_set(unsigned *want, unsigned nw, const unsigned *got, unsigned ng)
{
	unsigned tmp[1024];
	if (nw != ng)
		return 0;
	memcpy(tmp, want, nw * sizeof *tmp);
	for (unsigned i = 0; i < nw; i++)
		for (unsigned j = i + 1; j < nw; j++)
			if (tmp[j] < tmp[i]) {
				unsigned t = tmp[i];
				tmp[i] = tmp[j];
				tmp[j] = t;
			}
	return !memcmp(tmp, got, nw * sizeof *tmp);
}

/* ---- one problem ---- */
struct prob {
	mmagen_type a, b, st;
	unsigned quant, m, n, k;
	unsigned bm, bn, threads, stages, smem;
	unsigned bits, sv, spb, block, mma_k;      /* sv 0: no scales */
	unsigned lda, ldb, ldsa, ldsb;             /* bytes */
	uint8_t *ma, *mb, *msa, *msb;              /* memory */
	size_t na, nb, nsa, nsb;
	double *va, *vb, *vsa, *vsb;               /* true values */
	unsigned oob;                              /* reads outside a buffer */
};

static uint64_t rand_code(mmagen_type t)
{
	uint64_t p;
	do
		p = next() & ((1u << mmagen_type_bits(t)) - 1);
	while (!isfinite(mmagen_type_decode(t, p)));
	return p;
}

/* Element i's code into memory row `row` (bits: 8 = byte container, e2m1
 * in bits 2..5; 4 = packed, element 2i in the low nibble). */
static void put(uint8_t *mem, unsigned ld, unsigned row, unsigned col, unsigned bits,
		mmagen_type t, uint64_t code)
{
	uint8_t *p = mem + (size_t)row * ld;
	if (bits == 8) {
		p[col] = (uint8_t)(t == MMAGEN_E2M1 ? code << 2 : code);
		return;
	}
	uint8_t *q = p + col / 2;
	if (col % 2)
		*q = (uint8_t)((*q & 0x0F) | code << 4);
	else
		*q = (uint8_t)((*q & 0xF0) | code);
}

static int fill(struct prob *p, uint8_t **mem, size_t *nmem, double **val, unsigned rows,
		unsigned ld, mmagen_type t)
{
	*nmem = (size_t)rows * ld;
	*mem = malloc(*nmem ? *nmem : 1);
	*val = malloc((size_t)rows * p->k * sizeof **val);
	if (!*mem || !*val)
		return 0;
	memset(*mem, POISON, *nmem);
	for (unsigned r = 0; r < rows; r++) {
		uint8_t *row = *mem + (size_t)r * ld;
		/* the bytes of K: zero first (the nibbles share bytes) */
		memset(row, 0, p->bits == 8 ? p->k : (p->k + 1) / 2);
		for (unsigned c = 0; c < p->k; c++) {
			uint64_t code = rand_code(t);
			put(*mem, ld, r, c, p->bits, t, code);
			(*val)[(size_t)r * p->k + c] = mmagen_type_decode(t, code);
		}
	}
	return 1;
}

static int fill_scales(struct prob *p, uint8_t **mem, size_t *nmem, double **val,
		       unsigned rows, unsigned ld)
{
	unsigned nsc = (p->k + p->block - 1) / p->block;
	*nmem = (size_t)rows * ld;
	*mem = malloc(*nmem ? *nmem : 1);
	*val = malloc((size_t)rows * nsc * sizeof **val);
	if (!*mem || !*val)
		return 0;
	memset(*mem, POISON, *nmem);    /* 0xFF: NaN in ue8m0 and ue4m3 */
	for (unsigned r = 0; r < rows; r++)
		for (unsigned s = 0; s < nsc; s++) {
			uint8_t code = (uint8_t)(p->st == MMAGEN_UE8M0 ? 123 + next() % 9
								    : 0x18 + next() % 0x40);
			(*mem)[(size_t)r * ld + s] = code;
			(*val)[(size_t)r * nsc + s] = mmagen_type_decode(p->st, code);
		}
	return 1;
}

/* cp.async: `size` bytes at dst, src_size of them from mem[src..]. */
static void cp_async(struct prob *p, uint8_t *stage, uint8_t *written, unsigned dst,
		     const uint8_t *mem, size_t nmem, size_t src, unsigned size, unsigned src_size)
{
	for (unsigned i = 0; i < size; i++) {
		uint8_t v = 0;
		if (i < src_size) {
			if (src + i >= nmem) {
				p->oob++;
				continue;
			}
			v = mem[src + i];
		}
		stage[dst + i] = v;
		written[dst + i]++;
	}
}

static unsigned clampu(long v, unsigned hi)
{
	return v < 0 ? 0 : v > (long)hi ? hi : (unsigned)v;
}

/* One K block of tile (m0, n0) into `stage`, as the copies do it. */
static void load_stage(struct prob *p, const struct tabs *t, unsigned m0, unsigned n0,
		       unsigned kb, uint8_t *stage, uint8_t *written, unsigned stage_bytes)
{
	unsigned t8 = p->threads / 8, kbytes = p->bits == 8 ? p->k : (p->k + 1) / 2;
	unsigned nsc = p->sv ? (p->k + p->block - 1) / p->block : 0;
	memset(stage, 0xA5, stage_bytes);
	memset(written, 0, stage_bytes);
	for (int op = 0; op < 2; op++) {
		unsigned rows = op ? p->bn : p->bm, o0 = op ? n0 : m0, lim = op ? p->n : p->m;
		unsigned ld = op ? p->ldb : p->lda, region = op ? p->bm * ROW : 0;
		const uint8_t *mem = op ? p->mb : p->ma;
		size_t nmem = op ? p->nb : p->na;
		for (unsigned th = 0; th < p->threads; th++)
			for (unsigned i = 0; i < rows / t8; i++) {
				unsigned row = (t->cp_src[th] >> 16) + i * t8, byte = t->cp_src[th] & 255;
				unsigned left = clampu((long)kbytes - (long)(kb * ROW + byte), 16);
				unsigned sz = o0 + row < lim ? left : 0;
				cp_async(p, stage, written, region + t->cp_dst[th] + i * t8 * ROW, mem, nmem,
					 (size_t)(o0 + row) * ld + kb * ROW + byte, 16, sz);
			}
		if (!p->sv)
			continue;
		unsigned sregion = (p->bm + p->bn) * ROW + (op ? p->bm * p->spb : 0);
		unsigned lds = op ? p->ldsb : p->ldsa;
		const uint8_t *smem = op ? p->msb : p->msa;
		size_t ns = op ? p->nsb : p->nsa;
		for (unsigned th = 0; th < p->threads; th++)
			for (unsigned i = 0; th + i * p->threads < rows; i++) {
				unsigned row = th + i * p->threads;
				unsigned left = clampu((long)nsc - (long)(kb * p->spb), p->spb);
				unsigned sz = o0 + row < lim ? left : 0;
				cp_async(p, stage, written, sregion + row * p->spb, smem, ns,
					 (size_t)(o0 + row) * lds + kb * p->spb, p->spb, sz);
			}
	}
}

/* ldmatrix.x4 (b16): addr[l] is lane l's row address; reg[l][j]. */
static void ldmatrix_x4(const uint8_t *stage, const unsigned addr[32], uint32_t reg[32][4])
{
	for (unsigned l = 0; l < 32; l++)
		for (unsigned j = 0; j < 4; j++) {
			const uint8_t *row = stage + addr[8 * j + l / 4] + 4 * (l % 4);
			reg[l][j] = (uint32_t)row[0] | (uint32_t)row[1] << 8 |
				    (uint32_t)row[2] << 16 | (uint32_t)row[3] << 24;
		}
}

/* Element e of a fragment register, decoded; container bits outside the
 * element must be clear (else NaN: the test fails). */
static double decode(mmagen_type t, unsigned code)
{
	static double lut[MMAGEN_TYPE_COUNT][256];
	static unsigned char done[MMAGEN_TYPE_COUNT];
	if (!done[t]) {
		for (unsigned c = 0; c < 256; c++)
			lut[t][c] = c >> mmagen_type_bits(t) ? NAN : mmagen_type_decode(t, c);
		done[t] = 1;
	}
	return lut[t][code];
}

static double elem(const struct prob *p, mmagen_type t, uint32_t reg, unsigned e)
{
	if (p->bits == 4)
		return decode(t, reg >> (4 * e) & 0xF);
	unsigned v = reg >> (8 * e) & 0xFF;
	if (t == MMAGEN_E2M1)    /* bits 2..5 of the byte, the rest clear */
		return v & 0xC3 ? NAN : decode(t, v >> 2);
	return decode(t, v);      /* NaN when bits above the element are set */
}

/* The PTX ISA's fragments of m16n8k32 (8-bit) and m16n8k64 (4-bit), E =
 * 32 / w elements per register, g = lane / 4, q = lane % 4:
 *   A reg r elem e: row g + 8 (r % 2), k q E + e + 4E (r / 2)
 *   B reg r elem e: k q E + e + 4E r, col g
 * Scales (thread-id 0, byte-id 0): SF_A[m][s] byte s of lane
 * 4 (m % 8) + m / 8; SF_B[s][n] byte s of lane 4 n. */
static void mma(const struct prob *p, uint32_t ra[32][4], uint32_t rb[32][2],
		const uint32_t sa[32], const uint32_t sb[32], double acc[16][8])
{
	unsigned E = 32 / p->bits;
	double a[16][64], b[64][8];
	for (unsigned l = 0; l < 32; l++) {
		unsigned g = l / 4, q = l % 4;
		for (unsigned r = 0; r < 4; r++)
			for (unsigned e = 0; e < E; e++)
				a[g + 8 * (r % 2)][q * E + e + 4 * E * (r / 2)] = elem(p, p->a, ra[l][r], e);
		for (unsigned r = 0; r < 2; r++)
			for (unsigned e = 0; e < E; e++)
				b[q * E + e + 4 * E * r][g] = elem(p, p->b, rb[l][r], e);
	}
	unsigned sv = p->sv ? p->sv : 1, per = p->mma_k / sv;
	for (unsigned m = 0; m < 16; m++)
		for (unsigned n = 0; n < 8; n++)
			for (unsigned s = 0; s < sv; s++) {
				double part = 0, f = 1;
				for (unsigned k = s * per; k < (s + 1) * per; k++)
					part += a[m][k] * b[k][n];
				if (p->sv)
					f = decode(p->st, sa[4 * (m % 8) + m / 8] >> (8 * s) & 0xFF) *
					    decode(p->st, sb[4 * n] >> (8 * s) & 0xFF);
				acc[m][n] += part * f;
			}
}

/* D by replaying every tile; the number of wrong elements. */
static unsigned replay(struct prob *p, const struct tabs *t, double *dr)
{
	unsigned stage_bytes = (p->bm + p->bn) * (ROW + p->spb);
	unsigned kbytes = p->bits == 8 ? p->k : (p->k + 1) / 2, kblocks = (kbytes + ROW - 1) / ROW;
	unsigned warps_m = p->bm / 64, bad = 0;
	uint8_t *stage = malloc(stage_bytes), *written = malloc(stage_bytes);
	double (*acc)[8] = malloc(sizeof(double[16][8]));

	for (size_t i = 0; i < (size_t)p->m * p->n; i++)
		dr[i] = 0;
	for (unsigned m0 = 0; m0 < p->m; m0 += p->bm)
		for (unsigned n0 = 0; n0 < p->n; n0 += p->bn)
			for (unsigned kb = 0; kb < kblocks; kb++) {
				load_stage(p, t, m0, n0, kb, stage, written, stage_bytes);
				for (unsigned i = 0; i < stage_bytes; i++)
					bad += written[i] != 1;
				for (unsigned w = 0; w < p->threads / 32; w++)
					for (unsigned s = 0; s < 4; s++) {
						unsigned wm = w % warps_m, wn = w / warps_m, addr[32];
						uint32_t fa[4][32][4], fb[4][32][4], sa[4][32], sb[8][32];
						for (unsigned i = 0; i < 4; i++) {
							for (unsigned l = 0; l < 32; l++)
								addr[l] = t->ld[l * 8 + s] + wm * 64 * ROW + i * 2048;
							ldmatrix_x4(stage, addr, fa[i]);
							for (unsigned l = 0; l < 32; l++)
								addr[l] = p->bm * ROW + t->ld[l * 8 + 4 + s] +
									  wn * 64 * ROW + i * 2048;
							ldmatrix_x4(stage, addr, fb[i]);
						}
						unsigned sra = (p->bm + p->bn) * ROW, srb = sra + p->bm * p->spb;
						for (unsigned l = 0; l < 32 && p->sv; l++) {
							for (unsigned i = 0; i < 4; i++) {
								unsigned o = sra + t->ls[2 * l] + wm * 64 * p->spb +
									     i * 16 * p->spb + s * p->sv;
								sa[i][l] = 0;
								for (unsigned x = 0; x < p->sv; x++)
									sa[i][l] |= (uint32_t)stage[o + x] << (8 * x);
							}
							for (unsigned j = 0; j < 8; j++) {
								unsigned o = srb + t->ls[2 * l + 1] + wn * 64 * p->spb +
									     j * 8 * p->spb + s * p->sv;
								sb[j][l] = 0;
								for (unsigned x = 0; x < p->sv; x++)
									sb[j][l] |= (uint32_t)stage[o + x] << (8 * x);
							}
						}
						for (unsigned i = 0; i < 4; i++)
							for (unsigned j = 0; j < 8; j++) {
								uint32_t rb[32][2];
								for (unsigned l = 0; l < 32; l++) {
									rb[l][0] = fb[j / 2][l][2 * (j % 2)];
									rb[l][1] = fb[j / 2][l][2 * (j % 2) + 1];
								}
								memset(acc, 0, sizeof(double[16][8]));
								mma(p, fa[i], rb, sa[i], sb[j], acc);
								for (unsigned m = 0; m < 16; m++)
									for (unsigned n = 0; n < 8; n++) {
										unsigned r = m0 + wm * 64 + 16 * i + m;
										unsigned c = n0 + wn * 64 + 8 * j + n;
										if (r < p->m && c < p->n)
											dr[(size_t)r * p->n + c] += acc[m][n];
										else if (acc[m][n] != 0)
											bad++;   /* outside: zero filled */
									}
							}
					}
			}
	/* the exact product of the inputs */
	unsigned nsc = p->sv ? (p->k + p->block - 1) / p->block : 0;
	for (unsigned i = 0; i < p->m; i++)
		for (unsigned j = 0; j < p->n; j++) {
			double sum = 0, mag = 0;
			for (unsigned k = 0; k < p->k; k++) {
				double x = p->va[(size_t)i * p->k + k] * p->vb[(size_t)j * p->k + k];
				if (p->sv)
					x *= p->vsa[(size_t)i * nsc + k / p->block] *
					     p->vsb[(size_t)j * nsc + k / p->block];
				sum += x;
				mag += fabs(x);
			}
			double got = dr[(size_t)i * p->n + j];
			if (!(fabs(got - sum) <= 1e-12 * mag))
				bad++;
		}
	free(stage);
	free(written);
	free(acc);
	return bad + p->oob;
}

static void free_prob(struct prob *p)
{
	free(p->ma); free(p->mb); free(p->msa); free(p->msb);
	free(p->va); free(p->vb); free(p->vsa); free(p->vsb);
}

/* The PTX's immediates against the stage layout. */
static void check_immediates(const char *what, const struct prob *p, const char *ptx)
{
	unsigned want[1024], got[1024], nw = 0, ng, t8 = p->threads / 8;
	unsigned sra = (p->bm + p->bn) * ROW, srb = sra + p->bm * p->spb;

	for (unsigned i = 0; i < 4; i++) {
		want[nw++] = i * 2048;
		want[nw++] = p->bm * ROW + i * 2048;
	}
	ng = immediates(ptx, "ldmatrix.sync", got, 1024);
	check(same_set(want, nw, got, ng), "%s: ldmatrix offsets", what);
	nw = 0;
	for (unsigned i = 0; i < p->bm / t8; i++)
		want[nw++] = i * t8 * ROW;
	for (unsigned i = 0; i < p->bn / t8; i++)
		want[nw++] = p->bm * ROW + i * t8 * ROW;
	for (unsigned i = 0; p->sv && i * p->threads < p->bm; i++)
		want[nw++] = sra + i * p->threads * p->spb;
	for (unsigned i = 0; p->sv && i * p->threads < p->bn; i++)
		want[nw++] = srb + i * p->threads * p->spb;
	ng = immediates(ptx, "cp.async.c", got, 1024);
	check(same_set(want, nw, got, ng), "%s: cp.async offsets (%u of %u)", what, ng, nw);
	nw = 0;
	for (unsigned s = 0; p->sv && s < 4; s++) {
		for (unsigned i = 0; i < 4; i++)
			want[nw++] = sra + i * 16 * p->spb + s * p->sv;
		for (unsigned j = 0; j < 8; j++)
			want[nw++] = srb + j * 8 * p->spb + s * p->sv;
	}
	ng = immediates(ptx, "ld.shared.u", got, 1024);
	check(same_set(want, nw, got, ng), "%s: scale load offsets (%u of %u)", what, ng, nw);
}

/* ---- the main loop's data flow ----
 * The replay above takes the order of the steps from the template's
 * description; this follows the registers through the PTX itself: every
 * mma.sync of the main loop (two turns, the first fed by the prologue's
 * loads) must take A, B and both scales of one step, A's m16 tile i with
 * A's scales of tile i, B's n8 tile j with B's scales of tile j, the steps
 * in order, each (i, j) once per step, always on the same accumulators.
 * A fragment's step and operand are traced from ldmatrix's address
 * register back to its ld.const from mmagen_tld ([table + 4 (4 op + s)]). */
enum { T_NONE, T_CONST, T_LDM, T_SCL };
struct tag {
	uint8_t kind, k;        /* k: the register's place in an ldmatrix.x4 */
	unsigned cimm, imm;     /* the ld.const immediate; the load's immediate */
};

static int reg_no(const char **pp, const char *cls)
{
	const char *p = *pp;
	while (*p == ' ' || *p == '{' || *p == ',' || *p == '[')
		p++;
	size_t n = strlen(cls);
	if (strncmp(p, cls, n) || p[n] < '0' || p[n] > '9')
		return -1;
	char *end;
	long v = strtol(p + n, &end, 10);
	*pp = end;
	return v < 4096 ? (int)v : -1;
}

/* The registers of the next `{...}` (or a single register) into out. */
static unsigned regs_of(const char **pp, const char *cls, int *out, unsigned max)
{
	unsigned n = 0;
	const char *p = *pp;
	while (*p == ' ' || *p == ',')
		p++;
	int vec = *p == '{';
	do {
		int r = reg_no(&p, cls);
		if (r < 0)
			break;
		if (n < max)
			out[n++] = r;
	} while (vec && *p == ',');
	if (vec && (p = strchr(p, '}')))
		p++;
	*pp = p;
	return n;
}

struct flow {
	const struct prob *p;
	struct tag t[4096];
	int dreg[4][8];         /* the first D register of (i, j) */
	unsigned step, count, bad;
	int checking;
};

static void flow_mma(struct flow *f, const char *args)
{
	const struct prob *p = f->p;
	int d[4], a[4], b[2], c[4], sa = -1, sb = -1;
	const char *q = args;
	unsigned sra = (p->bm + p->bn) * ROW, srb = sra + p->bm * p->spb;

	if (regs_of(&q, "%f", d, 4) != 4 || regs_of(&q, "%r", a, 4) != 4 ||
	    regs_of(&q, "%r", b, 2) != 2 || regs_of(&q, "%f", c, 4) != 4) {
		f->bad++;
		return;
	}
	if (p->sv) {
		sa = reg_no(&q, "%r");
		q = strchr(q, '}');
		sb = q ? (q++, reg_no(&q, "%r")) : -1;
		if (sa < 0 || sb < 0) {
			f->bad++;
			return;
		}
	}
	if (!f->checking)
		return;
	const struct tag *ta = &f->t[a[0]], *tb = &f->t[b[0]];
	unsigned s = f->step, ok = ta->kind == T_LDM && tb->kind == T_LDM;
	for (unsigned x = 0; x < 4 && ok; x++)
		ok = f->t[a[x]].kind == T_LDM && f->t[a[x]].k == x && f->t[a[x]].cimm == ta->cimm &&
		     f->t[a[x]].imm == ta->imm;
	ok = ok && f->t[b[1]].kind == T_LDM && f->t[b[1]].k == tb->k + 1 && tb->k % 2 == 0 &&
	     f->t[b[1]].imm == tb->imm && f->t[b[1]].cimm == tb->cimm;
	/* tld holds A's steps at 0..3, B's at 4..7 */
	ok = ok && ta->cimm / 4 == s && tb->cimm / 4 == 4 + s && tb->imm >= p->bm * ROW;
	unsigned i = ta->imm / 2048, j = ok ? (tb->imm - p->bm * ROW) / 2048 * 2 + tb->k / 2 : 0;
	ok = ok && ta->imm % 2048 == 0 && i < 4 && j < 8;
	if (ok && p->sv) {
		const struct tag *x = &f->t[sa], *y = &f->t[sb];
		ok = x->kind == T_SCL && y->kind == T_SCL && x->imm >= sra && y->imm >= srb &&
		     x->imm < srb && (x->imm - sra) == 16 * p->spb * i + p->sv * s &&
		     (y->imm - srb) == 8 * p->spb * j + p->sv * s;
	}
	if (ok && f->dreg[i][j] < 0)
		f->dreg[i][j] = d[0];
	ok = ok && f->dreg[i][j] == d[0] && c[0] == d[0];
	for (unsigned x = 1; x < 4; x++)
		ok = ok && d[x] == d[0] + (int)x;
	f->bad += !ok;
	if (++f->count == 32) {
		f->count = 0;
		f->step = (f->step + 1) % 4;
	}
}

static void flow_line(struct flow *f, const char *line)
{
	const char *p = line;
	int dst[4], src[2];
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '@')                    /* predicated: never a tagged register */
		return;
	if (!strncmp(p, "mma.sync", 8)) {
		flow_mma(f, strchr(p, ' '));
		return;
	}
	const char *args = strchr(p, ' ');
	if (!args || *p == '/' || *p == '.')
		return;
	const char *q = args;
	unsigned n = regs_of(&q, "%r", dst, 4);
	if (!n)
		return;
	const char *plus = strchr(q, '+');
	unsigned imm = plus ? (unsigned)strtoul(plus + 1, NULL, 10) : 0;
	if (!strncmp(p, "ld.const.u32", 12)) {
		f->t[dst[0]] = (struct tag){ T_CONST, 0, imm, 0 };
	} else if (!strncmp(p, "add.u32", 7) && (src[0] = reg_no(&q, "%r")) >= 0 &&
		   (src[1] = reg_no(&q, "%r")) >= 0) {
		struct tag t = f->t[src[0]].kind == T_CONST ? f->t[src[0]] : f->t[src[1]];
		f->t[dst[0]] = t.kind == T_CONST ? t : (struct tag){ 0 };
	} else if (!strncmp(p, "ldmatrix", 8)) {
		int base = reg_no(&q, "%r");
		struct tag bt = base >= 0 ? f->t[base] : (struct tag){ 0 };
		for (unsigned x = 0; x < n; x++)
			f->t[dst[x]] = bt.kind == T_CONST ? (struct tag){ T_LDM, (uint8_t)x, bt.cimm, imm }
							  : (struct tag){ 0 };
	} else if (!strncmp(p, "ld.shared.u", 11)) {
		f->t[dst[0]] = (struct tag){ T_SCL, 0, 0, imm };
	} else {
		for (unsigned x = 0; x < n; x++)
			f->t[dst[x]] = (struct tag){ 0 };
	}
}

static void flow_text(struct flow *f, const char *from, const char *to)
{
	char line[512];
	while (from < to) {
		const char *nl = memchr(from, '\n', (size_t)(to - from));
		size_t len = nl ? (size_t)(nl - from) : (size_t)(to - from);
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, from, len);
		line[len] = 0;
		flow_line(f, line);
		from += len + 1;
	}
}

static unsigned check_flow(const struct prob *p, const char *ptx)
{
	struct flow *f = calloc(1, sizeof *f);
	const char *entry = strstr(ptx, ".entry"), *loop = strstr(ptx, "$mainloop:");
	const char *done = strstr(ptx, "$mainloop_done:");
	unsigned bad;

	if (!f || !entry || !loop || !done || done < loop)
		return free(f), 1;
	f->p = p;
	memset(f->dreg, 0xFF, sizeof f->dreg);
	flow_text(f, entry, loop);
	f->checking = 1;
	for (int turn = 0; turn < 2; turn++)
		flow_text(f, loop, done);
	bad = f->bad + (f->step != 0 || f->count != 0);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 8; j++)
			for (unsigned x = 0; x < 32; x++)
				bad += f->dreg[i][j] < 0 || (x != i * 8 + j &&
					f->dreg[i][j] == f->dreg[x / 8][x % 8]);
	free(f);
	return bad;
}

/* Bank conflicts (32 banks of 4 bytes): each 8-lane phase of an
 * ldmatrix (one matrix: 8 rows of 16 bytes) and each 8-thread phase of
 * the 16-byte cp.async stores must touch all 32 banks once.  The stage
 * bases and the warps' and copies' offsets are multiples of 128 bytes,
 * so the tables alone decide. */
static unsigned bank_conflicts(const struct prob *p, const struct tabs *t)
{
	unsigned bad = 0;
	for (unsigned x = 0; x < 8; x++) {            /* operand and step */
		for (unsigned j = 0; j < 4; j++) {
			uint32_t seen = 0;
			for (unsigned r = 0; r < 8; r++)
				for (unsigned w = 0; w < 4; w++)
					seen |= 1u << ((t->ld[(8 * j + r) * 8 + x] / 4 + w) % 32);
			bad += seen != 0xFFFFFFFFu;
		}
	}
	for (unsigned th = 0; th < p->threads; th += 8) {
		uint32_t seen = 0;
		for (unsigned r = 0; r < 8; r++)
			for (unsigned w = 0; w < 4; w++)
				seen |= 1u << ((t->cp_dst[th + r] / 4 + w) % 32);
		bad += seen != 0xFFFFFFFFu;
	}
	return bad;
}

/* ---- run gemm's layout (gen/cli/run_gemm_sm120.c) under the replay ----
 * K and N rounded up to what the runner takes (K a multiple of the scale
 * block and of 16 bytes of elements; N even), the runner's buffers handed
 * to the replay, and its reference compared with the replayed D. */
static void runner_values(const struct rg120_data *d, struct prob *q)
{
	const struct rg120_problem *rp = &d->p;
	unsigned nsc = q->sv ? q->k / q->block : 0;
	for (unsigned op = 0; op < 2; op++) {
		unsigned rows = op ? q->n : q->m;
		double *v = op ? q->vb : q->va, *vs = op ? q->vsb : q->vsa;
		for (unsigned r = 0; r < rows; r++) {
			for (unsigned c = 0; c < q->k; c++)
				v[(size_t)r * q->k + c] = rg120_decode(op ? q->b : q->a,
					rg120_get(rp, op ? RG120_B : RG120_A, op ? d->b : d->a, r, c));
			for (unsigned s = 0; s < nsc; s++)
				vs[(size_t)r * nsc + s] = rg120_decode(q->st,
					(op ? d->sb : d->sa)[rg120_scale_at(rp, op ? RG120_SB : RG120_SA, r, s)]);
		}
	}
}

static void runner_layout(const struct prob *tmpl, const struct tabs *t,
			  const mmagen_gemm_request *r, const mmagen_gemm_info *info,
			  const char *what, int mutate)
{
	struct rg120_data d = { 0 };
	struct prob q = *tmpl;
	unsigned kmul = 128 / q.bits;
	if (q.sv && q.block > kmul)
		kmul = q.block;
	unsigned k = (q.k + kmul - 1) / kmul * kmul, n = q.n + q.n % 2;
	double *dr = NULL;

	if (k != q.k || n != q.n)   /* the rule, refused with its nearest K or N */
		check(rg120_problem_of(&d.p, r, info, q.m, q.n, q.k, 1, 0, 7) != 0 &&
		      strstr(rg_error(), "use ") != NULL, "%s: runner accepts K %u N %u: %s", what, q.k,
		      q.n, rg_error());
	if (rg120_problem_of(&d.p, r, info, q.m, n, k, 1, 0, 12345)) {
		check(0, "%s: runner refuses K %u N %u: %s", what, k, n, rg_error());
		return;
	}
	check(d.p.lda * q.bits % 128 == 0 && (!q.sv || d.p.ldsa % q.spb == 0) &&
	      (!q.sv || d.p.ldsa >= k / q.block), "%s: runner's lda %u, ldsa %u against the manifest's rules",
	      what, d.p.lda, d.p.ldsa);
	q.n = n, q.k = k;
	q.lda = d.p.lda * q.bits / 8, q.ldb = d.p.ldb * q.bits / 8;
	q.ldsa = d.p.ldsa, q.ldsb = d.p.ldsb;
	unsigned nsc = q.sv ? k / q.block : 1;
	q.va = malloc((size_t)q.m * k * sizeof *q.va);
	q.vb = malloc((size_t)n * k * sizeof *q.vb);
	q.vsa = malloc((size_t)q.m * nsc * sizeof *q.vsa);
	q.vsb = malloc((size_t)n * nsc * sizeof *q.vsb);
	dr = malloc((size_t)q.m * n * sizeof *dr);
	if (!q.va || !q.vb || !q.vsa || !q.vsb || !dr || rg120_alloc(&d)) {
		check(0, "%s: out of memory", what);
		goto out;
	}
	rg120_fill(&d);
	q.ma = d.a, q.mb = d.b, q.msa = q.sv ? d.sa : NULL, q.msb = q.sv ? d.sb : NULL;
	q.na = rg120_bytes(&d.p, RG120_A), q.nb = rg120_bytes(&d.p, RG120_B);
	q.nsa = q.sv ? rg120_bytes(&d.p, RG120_SA) : 0, q.nsb = q.sv ? rg120_bytes(&d.p, RG120_SB) : 0;
	q.oob = 0;
	runner_values(&d, &q);
	unsigned bad = replay(&q, t, dr);
	check(!bad, "%s: the kernel replayed on run gemm's buffers: D wrong in %u places (%u reads outside)",
	      what, bad, q.oob);
	/* the runner's reference is the replayed D (alpha 1, beta 0) */
	unsigned rbad = 0;
	for (unsigned i = 0; i < q.m; i++)
		for (unsigned j = 0; j < n; j++) {
			double mag, c, ref = rg120_reference(&d, i, j, &mag, &c);
			rbad += !(fabs(ref - dr[(size_t)i * n + j]) <= 1e-12 * mag) || !(mag > 0);
		}
	check(!rbad, "%s: rg120_reference differs from the replayed D in %u places", what, rbad);
	/* its check: D as f32 passes, one element off by 2% of sum|terms| does not */
	float *df = d.d;
	for (size_t i = 0; i < (size_t)q.m * n; i++)
		df[i] = (float)dr[i];
	struct rg_verdict v;
	int vr = rg120_verify(&d, &v);   /* before check() reads v */
	check(!vr && v.bad == 0 && v.checked == (size_t)q.m * n,
	      "%s: rg120_verify on the replayed D: %zu of %zu bad", what, v.bad, v.checked);
	double mag, c;
	rg120_reference(&d, q.m - 1, n - 1, &mag, &c);
	df[(size_t)q.m * n - 1] += (float)(0.02 * mag);
	vr = rg120_verify(&d, &v);
	check(!vr && v.bad == 1 && v.bi == q.m - 1 && v.bj == n - 1,
	      "%s: rg120_verify missed a wrong corner (%zu bad)", what, v.bad);
	if (!mutate)
		goto out;
	/* buffers laid out wrongly, the reference's values kept: caught */
	if (q.sv && q.m > 1) {      /* SA rows 0 and 1 swapped */
		uint8_t tmp[256];
		memcpy(tmp, d.sa, q.ldsa);
		memcpy(d.sa, d.sa + q.ldsa, q.ldsa);
		memcpy(d.sa + q.ldsa, tmp, q.ldsa);
		q.oob = 0;
		check(replay(&q, t, dr) != 0, "%s: run gemm's SA rows 0 and 1 swapped: not caught", what);
		memcpy(d.sa + q.ldsa, d.sa, q.ldsa);
		memcpy(d.sa, tmp, q.ldsa);
	}
	unsigned c0 = rg120_get(&d.p, RG120_A, d.a, 0, 0), c1 = rg120_get(&d.p, RG120_A, d.a, 0, 1);
	if (q.bits == 4 && c0 != c1) {   /* the two nibbles of A's first byte swapped */
		d.a[0] = (uint8_t)(d.a[0] >> 4 | d.a[0] << 4);
		q.oob = 0;
		check(replay(&q, t, dr) != 0, "%s: run gemm's nibbles swapped: not caught", what);
		d.a[0] = (uint8_t)(d.a[0] >> 4 | d.a[0] << 4);
	}
	if (q.bits == 8 && q.a == MMAGEN_E2M1) {   /* e2m1 in bits 0..3, not 2..5 */
		uint8_t keep = d.a[0];
		d.a[0] = (uint8_t)(keep >> 2);
		q.oob = 0;
		check(replay(&q, t, dr) != 0, "%s: run gemm's e2m1 in bits 0..3: not caught", what);
		d.a[0] = keep;
	}
	q.oob = 0;
	check(replay(&q, t, dr) == 0, "%s: run gemm's buffers restored: replay fails", what);
out:
	free(dr);
	free(q.va); free(q.vb); free(q.vsa); free(q.vsb);
	rg120_data_free(&d);
}

/* The runner's decode table: the library's codec on every code, and the
 * spec's values at a few. */
static void check_decode(void)
{
	static const mmagen_type ts[] = { MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_E3M2, MMAGEN_E2M3,
					  MMAGEN_E2M1, MMAGEN_UE8M0, MMAGEN_UE4M3 };
	static const double e2m1[16] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6,
					 -0.0, -0.5, -1, -1.5, -2, -3, -4, -6 };
	static const struct { mmagen_type t; unsigned code; double v; } spot[] = {
		{ MMAGEN_E4M3, 0x7E, 448 }, { MMAGEN_E4M3, 0x01, 0x1p-9 }, { MMAGEN_E4M3, 0xB8, -1 },
		{ MMAGEN_E5M2, 0x7B, 57344 }, { MMAGEN_E5M2, 0x01, 0x1p-16 }, { MMAGEN_E5M2, 0x7C, INFINITY },
		{ MMAGEN_E3M2, 0x1F, 28 }, { MMAGEN_E3M2, 0x01, 0.0625 }, { MMAGEN_E3M2, 0x2C, -1 },
		{ MMAGEN_E2M3, 0x1F, 7.5 }, { MMAGEN_E2M3, 0x01, 0.125 }, { MMAGEN_E2M3, 0x08, 1 },
		{ MMAGEN_UE8M0, 127, 1 }, { MMAGEN_UE8M0, 0, 0x1p-127 }, { MMAGEN_UE8M0, 254, 0x1p127 },
		{ MMAGEN_UE4M3, 0x38, 1 }, { MMAGEN_UE4M3, 0x7E, 448 }, { MMAGEN_UE4M3, 0x20, 0.125 },
	};
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
		unsigned width = ts[i] == MMAGEN_UE4M3 ? 7 : mmagen_type_bits(ts[i]);
		for (unsigned c = 0; c < 1u << width; c++) {
			double x = rg120_decode(ts[i], c), y = mmagen_type_decode(ts[i], c);
			bad += !(x == y || (isnan(x) && isnan(y)));
		}
	}
	check(!bad, "rg120_decode differs from mmagen_type_decode at %u codes", bad);
	for (unsigned c = 0; c < 16; c++)
		check(rg120_decode(MMAGEN_E2M1, c) == e2m1[c], "e2m1 %#x = %g", c,
		      rg120_decode(MMAGEN_E2M1, c));
	for (size_t i = 0; i < sizeof spot / sizeof spot[0]; i++)
		check(rg120_decode(spot[i].t, spot[i].code) == spot[i].v, "%s %#x = %g, want %g",
		      mmagen_type_name(spot[i].t), spot[i].code, rg120_decode(spot[i].t, spot[i].code),
		      spot[i].v);
	check(isnan(rg120_decode(MMAGEN_E4M3, 0x7F)) && isnan(rg120_decode(MMAGEN_UE8M0, 0xFF)) &&
	      isnan(rg120_decode(MMAGEN_UE4M3, 0x7F)) && isnan(rg120_decode(MMAGEN_UE4M3, 0x80)) &&
	      isnan(rg120_decode(MMAGEN_E5M2, 0x7D)), "NaN codes");
}

/* --save: the files, their sizes and the description's scale layout. */
static void check_save(void)
{
	mmagen_gemm_request r;
	mmagen_gemm_info info = { .size = sizeof info };
	struct rg120_data d = { 0 };
	char dir[] = "/tmp/mmagen-sm120-save-XXXXXX", path[128], json[4096];
	static const char *const files[] = { "A.bin", "B.bin", "SA.bin", "SB.bin", "C.bin", "D.bin" };
	struct stat st;

	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_120a", &r.target);
	r.a = r.b = MMAGEN_E2M1;
	r.out = MMAGEN_BF16;
	r.quant = MMAGEN_QF_NVFP4;
	if (!mkdtemp(dir) || mmagen_gemm_info_of(&r, &info) ||
	    rg120_problem_of(&d.p, &r, &info, 6, 4, 64, 1.5f, 0.5f, 3) || rg120_alloc(&d)) {
		check(0, "save: setup: %s", rg_error());
		return;
	}
	rg120_fill(&d);
	check(!rg120_save(dir, &d, "mma.sync.test"), "save: %s", rg_error());
	/* 64 e2m1 = 32 bytes per row; 4 scales per row padded to spb = 16 */
	const size_t want[] = { 6 * 32, 4 * 32, 6 * 16, 4 * 16, 6 * 4 * 2, 6 * 4 * 2 };
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		check(!stat(path, &st) && (size_t)st.st_size == want[i], "save: %s: %lld bytes, want %zu",
		      files[i], (long long)st.st_size, want[i]);
		unlink(path);
	}
	check(d.sa[4] == 0xFF && d.sa[15] == 0xFF && d.sa[3] != 0xFF, "save: SA row padding 0xff");
	snprintf(path, sizeof path, "%s/gemm.json", dir);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(json, 1, sizeof json - 1, f) : 0;
	json[n] = 0;
	if (f)
		fclose(f);
	check(strstr(json, "\"SA\": {\"file\": \"SA.bin\", \"type\": \"ue4m3\", \"rows\": 6, \"row_bytes\": 16, \"scale_block\": 16, \"scales_per_row\": 4") &&
	      strstr(json, "packed two per byte, element 2i in the low nibble") &&
	      strstr(json, "\"alpha\": 1.5, \"beta\": 0.5"), "save: gemm.json: %s", json);
	unlink(path);
	rmdir(dir);
	rg120_data_free(&d);
}

static void one(mmagen_type a, mmagen_type b, unsigned quant, unsigned rkind, unsigned tm,
		unsigned tn, unsigned m, unsigned n, unsigned k, const char *kind)
{
	mmagen_gemm_request r;
	mmagen_gemm_info info = { .size = sizeof info };
	struct prob p = { .a = a, .b = b, .quant = quant, .m = m, .n = n, .k = k };
	struct tabs t;
	char what[200], *ptx = NULL;

	snprintf(what, sizeof what, "%s x %s quant %s tile %ux%u, %u x %u x %u", mmagen_type_name(a),
		 mmagen_type_name(b), mmagen_qformat_name(quant), tm, tn, m, n, k);
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_120a", &r.target);
	r.a = a;
	r.b = b;
	r.out = MMAGEN_F32;
	r.quant = quant;
	r.kind = rkind;
	r.tile_m = tm;
	r.tile_n = tn;
	if (mmagen_gemm_info_of(&r, &info) || mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL)) {
		check(0, "%s: %s", what, mmagen_last_error());
		return;
	}
	check(strstr(ptx, kind) != NULL, "%s: instruction is %s", what, kind);
	p.bm = info.tile_m;
	p.bn = info.tile_n;
	p.threads = info.block[0];
	p.bits = info.elem_bits_a;
	p.st = info.stype;
	p.block = info.scale_block;
	p.mma_k = 32 * 8 / p.bits;
	p.sv = p.block ? p.mma_k / p.block : 0;
	p.spb = 4 * p.sv;
	check(p.threads == p.bm * p.bn / 4096 * 32, "%s: %u threads", what, p.threads);
	check(info.tile_k == ROW * 8 / p.bits, "%s: tile K %u", what, info.tile_k);
	check(info.smem == info.stages * (p.bm + p.bn) * (ROW + p.spb), "%s: shared memory %u",
	      what, info.smem);
	memset(&t, 0, sizeof t);
	int ok = parse_table(ptx, "mmagen_tcp_src", t.cp_src, p.threads) &&
		 parse_table(ptx, "mmagen_tcp_dst", t.cp_dst, p.threads) &&
		 parse_table(ptx, "mmagen_tld", t.ld, 256) &&
		 (!p.sv || parse_table(ptx, "mmagen_tls", t.ls, 64));
	check(ok, "%s: the kernel's tables", what);
	check_immediates(what, &p, ptx);
	if (ok)
		check(!bank_conflicts(&p, &t), "%s: ldmatrix or cp.async phases with bank conflicts", what);
	unsigned fbad = check_flow(&p, ptx);
	check(!fbad, "%s: main loop data flow: %u wrong mma operands", what, fbad);
	if (m == 3 && !p.sv) {   /* a deliberately wrong order must be caught */
		char *swap = strstr(ptx, "$mainloop:"), *a1, *a2;
		if (swap && (a1 = strstr(swap, "ldmatrix")) && (a2 = strstr(a1 + 1, "ldmatrix")) &&
		    (a2 = strstr(a2 + 1, "ldmatrix")) && (a2 = strstr(a2 + 1, "ldmatrix")) &&
		    (a2 = strstr(a2 + 1, "ldmatrix"))) {
			/* the first B ldmatrix of step 1 takes A's address register */
			char *ra = strchr(a1, '['), *rb = strchr(a2, '[');
			char keep[16];
			size_t la = strcspn(ra, "+"), lb = strcspn(rb, "+");
			if (la == lb && la < sizeof keep) {
				memcpy(keep, rb, lb);
				memcpy(rb, ra, la);
				check(check_flow(&p, ptx) != 0, "%s: B fragment from A's rows: not caught", what);
				memcpy(rb, keep, lb);
			}
		}
	}
	mmagen_free(ptx);
	if (!ok)
		return;
	/* lda: K's bytes rounded to 16, plus 16 poisoned; ldsa: a multiple of spb */
	unsigned kbytes = p.bits == 8 ? k : (k + 1) / 2, nsc = p.sv ? (k + p.block - 1) / p.block : 0;
	p.lda = (kbytes + 15) / 16 * 16 + 16;
	p.ldb = (kbytes + 15) / 16 * 16;
	p.ldsa = p.sv ? (nsc + p.spb - 1) / p.spb * p.spb + p.spb : 0;
	p.ldsb = p.sv ? (nsc + p.spb - 1) / p.spb * p.spb : 0;
	double *dr = malloc((size_t)m * n * sizeof *dr);
	if (!dr || !fill(&p, &p.ma, &p.na, &p.va, m, p.lda, a) ||
	    !fill(&p, &p.mb, &p.nb, &p.vb, n, p.ldb, b) ||
	    (p.sv && (!fill_scales(&p, &p.msa, &p.nsa, &p.vsa, m, p.ldsa) ||
		      !fill_scales(&p, &p.msb, &p.nsb, &p.vsb, n, p.ldsb)))) {
		check(0, "%s: out of memory", what);
		goto out;
	}
	unsigned bad = replay(&p, &t, dr);
	check(!bad, "%s: replayed D wrong in %u places (%u reads outside the buffers)", what, bad,
	      p.oob);
	runner_layout(&p, &t, &r, &info, what, (size_t)m * n * k <= 4000000);
	/* deliberately wrong placements must be caught (on the small shapes) */
	if ((size_t)m * n * k > 4000000)
		goto out;
	struct tabs w = t;
	uint32_t x;
	if (p.sv) {
		x = w.ls[0], w.ls[0] = w.ls[2], w.ls[2] = x;   /* lanes 0, 1: rows g, g + 8 */
		p.oob = 0;
		check(replay(&p, &w, dr) != 0, "%s: A's scale rows of lanes 0 and 1 swapped: not caught",
		      what);
		w = t;
	}
	x = w.ld[0], w.ld[0] = w.ld[8 * 8], w.ld[8 * 8] = x;     /* lanes 0, 8: rows 0, 8 */
	p.oob = 0;
	check(replay(&p, &w, dr) != 0, "%s: ldmatrix rows of lanes 0 and 8 swapped: not caught", what);
	w = t;
	x = w.cp_dst[0], w.cp_dst[0] = w.cp_dst[1], w.cp_dst[1] = x;   /* two chunks of row 0 */
	p.oob = 0;
	check(replay(&p, &w, dr) != 0, "%s: copy places of threads 0 and 1 swapped: not caught", what);
out:
	free(dr);
	free_prob(&p);
}

int main(void)
{
	check_decode();
	check_save();
	static const struct {
		mmagen_type a, b;
		unsigned quant, kind;
		const char *name;
	} cfg[] = {
		{ MMAGEN_E4M3, MMAGEN_E5M2, 0, 0, "kind::f8f6f4" },
		{ MMAGEN_E2M1, MMAGEN_E3M2, 0, 0, "kind::f8f6f4" },
		{ MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_QF_MXFP8, 0, "kind::mxf8f6f4.block_scale.scale_vec::1X" },
		{ MMAGEN_E3M2, MMAGEN_E2M3, MMAGEN_QF_MXFP6, 0, "kind::mxf8f6f4.block_scale.scale_vec::1X" },
		{ MMAGEN_E2M1, MMAGEN_E5M2, MMAGEN_QF_MXFP4, 0, "kind::mxf8f6f4.block_scale.scale_vec::1X" },
		{ MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_QF_MXFP4, 0, "kind::mxf4.block_scale.scale_vec::2X" },
		{ MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_QF_MXFP4, MMAGEN_KIND_MXF4NVF4,
		  "kind::mxf4nvf4.block_scale.scale_vec::2X" },
		{ MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_QF_MXFP4, MMAGEN_KIND_MXF8F6F4,
		  "kind::mxf8f6f4.block_scale.scale_vec::1X" },
		{ MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_QF_NVFP4, 0, "kind::mxf4nvf4.block_scale.scale_vec::4X" },
	};
	/* M, N, K: whole tiles, partial tiles everywhere, K inside one block */
	static const unsigned shapes[][3] = { { 128, 128, 512 }, { 100, 70, 300 },
					      { 140, 130, 610 }, { 3, 5, 2 } };
	static const unsigned tiles[][2] = { { 64, 128 }, { 128, 64 }, { 256, 128 }, { 128, 256 } };

	for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
			one(cfg[c].a, cfg[c].b, cfg[c].quant, cfg[c].kind, 0, 0, shapes[s][0],
			    shapes[s][1], shapes[s][2], cfg[c].name);
	/* other tiles: other thread counts, copy counts and warp grids */
	for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
		one(MMAGEN_E4M3, MMAGEN_E2M3, MMAGEN_QF_MXFP8, 0, tiles[t][0], tiles[t][1], 270, 90,
		    200, "kind::mxf8f6f4");
		if (tiles[t][0] * tiles[t][1] < 128 * 128)
			one(MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_QF_NVFP4, 0, tiles[t][0], tiles[t][1], 150,
			    260, 400, "kind::mxf4nvf4");
	}
	/* 16 scale bytes per row and stage: 384 rows do not fit twice */
	mmagen_gemm_request r;
	mmagen_gemm_info info = { .size = sizeof info };
	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_120a", &r.target);
	r.a = r.b = MMAGEN_E2M1;
	r.out = MMAGEN_BF16;
	r.quant = MMAGEN_QF_NVFP4;
	r.tile_m = 256;
	check(mmagen_gemm_info_of(&r, &info) == MMAGEN_INVALID_ARGUMENT &&
	      strstr(mmagen_last_error(), "use --tile 128x128"), "nvfp4 256x128: refused with the rule");
	/* the rules, each refused with its alternative */
	static const struct {
		const char *arch;
		mmagen_type a, b, acc, out;
		unsigned quant, layout, split;
		mmagen_status s;
		const char *word;
		unsigned kind;
	} bad[] = {
		{ "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, 0, MMAGEN_F32, MMAGEN_QF_NVFP4, 0, 1, MMAGEN_UNSUPPORTED, "leave --kind out", MMAGEN_KIND_MXF4 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, 0, 0, 1, MMAGEN_UNSUPPORTED, "is kind::f8f6f4", MMAGEN_KIND_MXF8F6F4 },
		{ "sm_90a", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32, 0, 0, 1, MMAGEN_TARGET, "--arch sm_120a", MMAGEN_KIND_F16 },
		{ "sm_120a", MMAGEN_BF16, MMAGEN_BF16, 0, MMAGEN_F32, 0, 0, 1, MMAGEN_UNSUPPORTED, "--arch sm_89", 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, MMAGEN_QF_NVFP4, 0, 1, MMAGEN_UNSUPPORTED, "--a e2m1 --b e2m1", 0 },
		{ "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, 0, MMAGEN_F32, MMAGEN_QF_MXFP8, 0, 1, MMAGEN_UNSUPPORTED, "--quant mxfp4", 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, MMAGEN_F16, MMAGEN_F32, 0, 0, 1, MMAGEN_UNSUPPORTED, "f32", 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_S32, 0, 0, 1, MMAGEN_UNSUPPORTED, "f32, f16 or bf16", 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, 0, MMAGEN_GEMM_NT, 1, MMAGEN_UNSUPPORTED, "layout tn", 0 },
		{ "sm_120a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, 0, 0, 2, MMAGEN_UNSUPPORTED, "--split-k 1", 0 },
		{ "sm_120", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, 0, 0, 1, MMAGEN_TARGET, "--arch sm_120a", 0 },
		{ "sm_90a", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, MMAGEN_QF_MXFP8, 0, 1, MMAGEN_TARGET, "--arch sm_120a", 0 },
		{ "sm_89", MMAGEN_E4M3, MMAGEN_E4M3, 0, MMAGEN_F32, MMAGEN_QF_MXFP8, 0, 1, MMAGEN_TARGET, "--arch sm_120a", 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		mmagen_gemm_request q;
		mmagen_gemm_info qi = { .size = sizeof qi };
		mmagen_gemm_request_init(&q);
		mmagen_target_parse(bad[i].arch, &q.target);
		q.a = bad[i].a;
		q.b = bad[i].b;
		q.acc = bad[i].acc;
		q.out = bad[i].out;
		q.quant = bad[i].quant;
		q.layout = bad[i].layout;
		q.split_k = bad[i].split;
		q.kind = bad[i].kind;
		mmagen_status st = mmagen_gemm_info_of(&q, &qi);
		check(st == bad[i].s && strstr(mmagen_last_error(), bad[i].word),
		      "rule %zu: got %d '%s', want '%s'", i, (int)st, mmagen_last_error(), bad[i].word);
	}
	printf("gemm sm120 replay: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
