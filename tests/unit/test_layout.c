/* test_layout.c - fragment layouts, sparse metadata positions and the
 * 2:4 helpers.
 *
 * The layouts are checked three ways: every map must be a bijection onto
 * its tile (per quad-pair for m8n8k4 f16); register counts must agree with
 * the operand lists gen/emit/emit_mma.c emits, for every mma form of the table;
 * and a set of forms is compared with the PTX ISA's own row/col formulas,
 * written out here independently of gen/emit/layout.c's digit tables.
 * Exit status 0 on pass, 1 on any failure.
 */
#include "emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* D, for m8n8k4 with f32 D and f16 C; see gen/emit/layout.c. */
enum { OPND_D = MMAGEN_OPND_C + 1 };

#include "check.h"

static const char *opname(int operand)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	return names[operand];
}

static const char *form_str(const mmagen_form *f)
{
	static char buf[160];
	return mmagen_form_opcode(f, buf, sizeof buf);
}

/* The ISA's quad-pair q: lanes 4q..4q+3 (low) and 16+4q.. (high). */
static unsigned qp_lane(unsigned q, unsigned i)
{
	return 4 * q + (i % 4) + 16 * (i / 4);
}

/* ---- bijection onto the tile ---- */

static void check_bijection(const mmagen_form *f, int operand)
{
	mmagen_frag fr;
	if (mmagen_frag_info(f, operand, &fr) != MMAGEN_OK) {
		fail("%s %s: frag_info: %s", form_str(f), opname(operand),
		     mmagen_last_error());
		return;
	}
	unsigned tiles = 32 / fr.threads;
	CHECK(fr.threads * fr.regs * fr.elems == fr.rows * fr.cols,
	      "%s %s: %u threads x %u regs x %u elems != %ux%u", form_str(f),
	      opname(operand), fr.threads, fr.regs, fr.elems, fr.rows, fr.cols);
	CHECK(fr.elems * fr.elem_bits == fr.reg_bits,
	      "%s %s: %u elems of %u bits in a %u-bit register", form_str(f),
	      opname(operand), fr.elems, fr.elem_bits, fr.reg_bits);

	unsigned char *hit = calloc((size_t)fr.rows * fr.cols, 1);
	if (!hit)
		abort();
	for (unsigned q = 0; q < tiles; q++) {
		memset(hit, 0, (size_t)fr.rows * fr.cols);
		unsigned bad = 0;
		for (unsigned i = 0; i < fr.threads; i++) {
			unsigned lane = tiles == 1 ? i : qp_lane(q, i);
			for (unsigned r = 0; r < fr.regs; r++)
				for (unsigned e = 0; e < fr.elems; e++) {
					unsigned row, col;
					if (mmagen_frag_map(f, operand, lane, r, e,
							    &row, &col) != MMAGEN_OK ||
					    row >= fr.rows || col >= fr.cols ||
					    hit[row * fr.cols + col]++)
						bad++;
				}
		}
		CHECK(!bad, "%s %s: quad-pair/warp %u: %u elements outside "
		      "the tile or hit twice", form_str(f), opname(operand), q,
		      bad);
	}
	free(hit);
}

/* ---- register counts against gen/emit/emit_mma.c ---- */

static const struct operand *find_op(const struct instr *in, const char *name)
{
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, name))
			return &in->op[i];
	return NULL;
}

static void check_regs(const mmagen_form *f)
{
	struct instr in;
	memset(&in, 0, sizeof in);
	family_emitter(f->family)->operands(f, &in);
	for (int operand = MMAGEN_OPND_A; operand <= OPND_D; operand++) {
		mmagen_frag fr;
		const struct operand *op = find_op(&in, opname(operand));
		if (!op || mmagen_frag_info(f, operand, &fr) != MMAGEN_OK) {
			fail("%s %s: no operand or no frag_info", form_str(f),
			     opname(operand));
			continue;
		}
		CHECK(op->count == fr.regs, "%s %s: emit_mma has %u registers, "
		      "frag_info %u", form_str(f), opname(operand),
		      (unsigned)op->count, fr.regs);
		CHECK((op->rtype == R_F64) == (fr.reg_bits == 64),
		      "%s %s: register width disagrees", form_str(f),
		      opname(operand));
	}
}

static void test_all_mma_forms(void)
{
	size_t n = 0;

	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family != MMAGEN_FAM_MMA)
			continue;
		n++;
		for (int operand = MMAGEN_OPND_A; operand <= OPND_D; operand++)
			check_bijection(f, operand);
		check_regs(f);
	}
	CHECK(n > 100, "only %zu mma forms in the table", n);
	printf("%zu mma forms checked\n", n);
}

/* ---- the ISA's formulas, written out ---- */

/* A form of the table by opcode. */
static const mmagen_form *form(const char *opcode)
{
	char buf[160];
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (!strcmp(mmagen_form_opcode(f, buf, sizeof buf), opcode))
			return f;
	}
	fail("no form %s", opcode);
	return NULL;
}

static void expect(const mmagen_form *f, int operand, unsigned lane,
		   unsigned reg, unsigned elem, unsigned row, unsigned col)
{
	unsigned r = ~0u, c = ~0u;
	if (!f)
		return;
	mmagen_frag_map(f, operand, lane, reg, elem, &r, &c);
	CHECK(r == row && c == col, "%s %s lane %u reg %u elem %u: (%u,%u), "
	      "ISA says (%u,%u)", form_str(f), opname(operand), lane, reg, elem,
	      r, c, row, col);
}

/* The worked example: m16n8k16 f16. */
static void test_m16n8k16_f16_example(void)
{
	const mmagen_form *f =
		form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
	if (!f)
		return;
	for (unsigned lane = 0; lane < 4; lane++)
		for (unsigned e = 0; e < 2; e++) {
			unsigned r, c;
			mmagen_frag_map(f, MMAGEN_OPND_A, lane, 0, e, &r, &c);
			CHECK(r == 0, "lanes 0-3 hold row 0 (lane %u: %u)",
			      lane, r);
		}
	/* a0..a3: top-left, bottom-left, top-right, bottom-right 8x8 */
	static const unsigned block[4][2] = { { 0, 0 }, { 8, 0 }, { 0, 8 },
					      { 8, 8 } };
	for (unsigned reg = 0; reg < 4; reg++)
		for (unsigned lane = 0; lane < 32; lane++)
			for (unsigned e = 0; e < 2; e++) {
				unsigned r, c;
				mmagen_frag_map(f, MMAGEN_OPND_A, lane, reg, e,
						&r, &c);
				CHECK(r / 8 * 8 == block[reg][0] &&
				      c / 8 * 8 == block[reg][1],
				      "A reg %u lane %u: (%u,%u) outside its "
				      "block", reg, lane, r, c);
			}
	expect(f, MMAGEN_OPND_A, 0, 0, 0, 0, 0);
	expect(f, MMAGEN_OPND_A, 0, 0, 1, 0, 1);
	expect(f, MMAGEN_OPND_B, 0, 0, 0, 0, 0);
	expect(f, MMAGEN_OPND_B, 0, 0, 1, 1, 0);
	expect(f, MMAGEN_OPND_B, 0, 1, 0, 8, 0);
	expect(f, MMAGEN_OPND_B, 0, 1, 1, 9, 0);
	expect(f, MMAGEN_OPND_C, 0, 0, 0, 0, 0);
	expect(f, MMAGEN_OPND_C, 0, 1, 0, 0, 1);
	expect(f, MMAGEN_OPND_C, 0, 2, 0, 8, 0);
	expect(f, MMAGEN_OPND_C, 0, 3, 0, 8, 1);
	/* the same C as f16x2: c0,c1 in reg 0, c2,c3 in reg 1 */
	f = form("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16");
	expect(f, MMAGEN_OPND_C, 0, 0, 1, 0, 1);
	expect(f, MMAGEN_OPND_C, 0, 1, 0, 8, 0);
}

/* Element i of lane l as the ISA writes it, for the generic forms:
 * A's a_i, B's b_i, C's c_i, counted over the whole fragment. */
static void isa_formulas(void)
{
	const mmagen_form *f;

	/* m16n8k8 tf32 A: row g (a0,a2) / g+8; col t (a0,a1) / t+4 */
	f = form("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 4; i++)
			expect(f, MMAGEN_OPND_A, l, i, 0,
			       l / 4 + 8 * (i % 2), l % 4 + 4 * (i / 2));
	/* m16n8k32 s8 A: row g for a0-3, a8-11; col t*4 + (i&3) (+16) */
	f = form("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 16; i++)
			expect(f, MMAGEN_OPND_A, l, i / 4, i % 4,
			       l / 4 + ((i >= 4 && i < 8) || i >= 12 ? 8 : 0),
			       l % 4 * 4 + (i & 3) + (i >= 8 ? 16 : 0));
	/* m16n8k32 s8 B: row t*4 + (i&3) (+16 for i >= 4), col g */
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 8; i++)
			expect(f, MMAGEN_OPND_B, l, i / 4, i % 4,
			       l % 4 * 4 + (i & 3) + (i >= 4 ? 16 : 0), l / 4);
	/* m16n8k16 f64: A row g + 8(i%2), col t + 4(i/2); B row t + 4i */
	f = form("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64");
	for (unsigned l = 0; l < 32; l++) {
		for (unsigned i = 0; i < 8; i++)
			expect(f, MMAGEN_OPND_A, l, i, 0, l / 4 + 8 * (i % 2),
			       l % 4 + 4 * (i / 2));
		for (unsigned i = 0; i < 4; i++)
			expect(f, MMAGEN_OPND_B, l, i, 0, l % 4 + 4 * i, l / 4);
	}
	/* m8n8k4 f64: A (g, t); C row g, col 2t + i */
	f = form("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64");
	for (unsigned l = 0; l < 32; l++) {
		expect(f, MMAGEN_OPND_A, l, 0, 0, l / 4, l % 4);
		for (unsigned i = 0; i < 2; i++)
			expect(f, MMAGEN_OPND_C, l, i, 0, l / 4, l % 4 * 2 + i);
	}
	/* m8n8k128 b1: A row g, col 32t + i */
	f = form("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 32; i += 7)
			expect(f, MMAGEN_OPND_A, l, 0, i, l / 4, l % 4 * 32 + i);
	/* m16n8k64 mxf4 (packed e2m1): A like s4, col 8t + (i&7) (+32) */
	f = form("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale"
		 ".f32.e2m1.e2m1.f32.ue8m0");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 32; i++)
			expect(f, MMAGEN_OPND_A, l, i / 8, i % 8,
			       l / 4 + ((i >= 8 && i < 16) || i >= 24 ? 8 : 0),
			       l % 4 * 8 + (i & 7) + (i >= 16 ? 32 : 0));
	/* sparse m16n8k64 s8: compressed col = (firstcol / 2) + e */
	f = form("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 16; i++)
			expect(f, MMAGEN_OPND_A, l, i / 4, i % 4,
			       l / 4 + ((i >= 4 && i < 8) || i >= 12 ? 8 : 0),
			       (l % 4 * 8 + (i >= 8 ? 32 : 0)) / 2 + i % 4);
	/* sparse m16n8k16 tf32: row g (a0,a2), firstcol 2t (+8 for a2,a3) */
	f = form("mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32");
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < 4; i++)
			expect(f, MMAGEN_OPND_A, l, i, 0, l / 4 + 8 * (i % 2),
			       (l % 4 * 2 + (i >= 2 ? 8 : 0)) / 2);
}

/* m8n8k4 f16: the quad-pair formulas of ISA 9.7.14.5.1. */
static void isa_quad_pair(void)
{
	static const char *const ops[] = {
		"mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32",
		"mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f16",
	};
	for (unsigned o = 0; o < 2; o++) {
		const mmagen_form *f = form(ops[o]);
		int row_major = o == 0;
		for (unsigned l = 0; l < 32; l++) {
			unsigned hi = l >= 16 ? 4 : 0;
			for (unsigned i = 0; i < 4; i++) {
				if (row_major) {
					expect(f, MMAGEN_OPND_A, l, i / 2, i % 2,
					       l % 4 + hi, i);
					expect(f, MMAGEN_OPND_B, l, i / 2, i % 2,
					       l % 4, i + hi);
				} else {
					expect(f, MMAGEN_OPND_A, l, i / 2, i % 2,
					       i + hi, l % 4);
					expect(f, MMAGEN_OPND_B, l, i / 2, i % 2,
					       i, l % 4 + hi);
				}
			}
			for (unsigned i = 0; i < 8; i++) {
				if (row_major)
					expect(f, MMAGEN_OPND_C, l, i, 0,
					       (l & 1) + (i & 2) + hi,
					       (i & 4) + (l & 2) + (i & 1));
				else
					expect(f, MMAGEN_OPND_C, l, i / 2, i % 2,
					       l % 4 + hi, i);
			}
		}
	}
	/* f32 D with f16 C: the two differ */
	const mmagen_form *f =
		form("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16");
	mmagen_frag c, d;
	if (f && mmagen_frag_info(f, MMAGEN_OPND_C, &c) == MMAGEN_OK &&
	    mmagen_frag_info(f, OPND_D, &d) == MMAGEN_OK)
		CHECK(c.regs == 4 && d.regs == 8, "m8n8k4 f32.f16: C %u regs, "
		      "D %u", c.regs, d.regs);
}

static void test_rejects(void)
{
	const mmagen_form *f =
		form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
	unsigned r, c;
	if (!f)
		return;
	CHECK(mmagen_frag_map(f, MMAGEN_OPND_A, 32, 0, 0, &r, &c) != MMAGEN_OK,
	      "lane 32 accepted");
	CHECK(mmagen_frag_map(f, MMAGEN_OPND_A, 0, 4, 0, &r, &c) != MMAGEN_OK,
	      "register 4 of 4 accepted");
	CHECK(mmagen_frag_map(f, MMAGEN_OPND_A, 0, 0, 2, &r, &c) != MMAGEN_OK,
	      "element 2 of 2 accepted");
	CHECK(mmagen_frag_info(f, 7, NULL) != MMAGEN_OK, "operand 7 accepted");
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *g = mmagen_form_at(i);
		if (g->family == MMAGEN_FAM_WGMMA) {
			mmagen_frag fr;
			CHECK(mmagen_frag_info(g, MMAGEN_OPND_A, &fr) !=
			      MMAGEN_OK, "wgmma form accepted");
			break;
		}
	}
}

/* ---- sparse metadata ---- */

static unsigned granule_unit(const mmagen_form *f)
{
	unsigned bits = mmagen_type_bits((mmagen_type)f->a);
	if (f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4)
		bits = 8;
	return bits == 4 ? 2 : 1;
}

/* Legal selectors per ISA 9.7.14.6.1: one thread of four when a row's
 * metadata is 16 bits, a pair at 32 bits, all four (sel 0) at 64 bits. */
static unsigned legal_sels(const mmagen_form *f)
{
	unsigned chunk = f->a == MMAGEN_TF32 ? 2 : granule_unit(f) == 2 ? 8 : 4;
	unsigned row_bits = 4 * f->k / chunk;
	return row_bits == 16 ? 4 : row_bits == 32 ? 2 : 1;
}

static void check_meta(const mmagen_form *f)
{
	unsigned nsel = legal_sels(f), unit = granule_unit(f);
	unsigned lane, bit, bits;

	for (unsigned sel = 0; sel < nsel; sel++) {
		uint32_t used[32] = { 0 };
		unsigned bad = 0, overlap = 0, total = 0;
		for (unsigned row = 0; row < f->m; row++)
			for (unsigned cc = 0; cc < f->k / 2u; cc += unit) {
				if (mmagen_meta_pos(f, sel, row, cc, &lane, &bit,
						    &bits) != MMAGEN_OK ||
				    lane >= 32 || bit + bits > 32 ||
				    lane / 4 != row % 8) {
					bad++;
					continue;
				}
				unsigned q = lane % 4;
				if ((nsel == 4 && q != sel) ||
				    (nsel == 2 && q / 2 != sel))
					bad++;
				uint32_t mask = (uint32_t)((1ull << bits) - 1)
						<< bit;
				if (used[lane] & mask)
					overlap++;
				used[lane] |= mask;
				total += bits;
				/* both elements of a pair share one index */
				unsigned l2, b2, w2;
				if (unit == 2 &&
				    (mmagen_meta_pos(f, sel, row, cc + 1, &l2,
						     &b2, &w2) != MMAGEN_OK ||
				     l2 != lane || b2 != bit))
					bad++;
			}
		unsigned contributors = 32 / nsel;
		CHECK(!bad && !overlap && total == contributors * 32,
		      "%s sel %u: %u misplaced, %u overlapping, %u of %u bits",
		      form_str(f), sel, bad, overlap, total, contributors * 32);
	}
	CHECK(mmagen_meta_pos(f, nsel, 0, 0, &lane, &bit, &bits) != MMAGEN_OK,
	      "%s: selector %u accepted", form_str(f), nsel);
	CHECK(mmagen_meta_pos(f, 0, f->m, 0, &lane, &bit, &bits) != MMAGEN_OK,
	      "%s: row %u accepted", form_str(f), (unsigned)f->m);
}

static void expect_meta(const char *opcode, unsigned sel, unsigned row,
			unsigned cc, unsigned lane, unsigned bit, unsigned bits)
{
	const mmagen_form *f = form(opcode);
	unsigned l = ~0u, b = ~0u, w = ~0u;
	if (!f)
		return;
	mmagen_meta_pos(f, sel, row, cc, &l, &b, &w);
	CHECK(l == lane && b == bit && w == bits, "%s sel %u (%u,%u): lane %u "
	      "bit %u width %u, expected %u %u %u", opcode, sel, row, cc, l, b,
	      w, lane, bit, bits);
}

static void test_meta(void)
{
	size_t n = 0;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_MMA && f->sparse) {
			check_meta(f);
			n++;
		}
	}
	CHECK(n > 20, "only %zu mma.sp forms", n);
	/* Positions seen on sm_90 (a probe flipping one 4-bit field of one
	 * lane's metadata and watching which chunk of A moved). */
	expect_meta("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
		    1, 9, 3, 5, 22, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
		    0, 0, 8, 1, 0, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32",
		    1, 2, 15, 11, 14, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
		    0, 8, 3, 0, 28, 4);
	expect_meta("mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
		    1, 8, 5, 3, 20, 4);
	expect_meta("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
		    0, 8, 4, 1, 8, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32",
		    0, 8, 17, 3, 2, 2);
	/* u4 pairs: elements 4..7 (pairs 2, 3) are chunk 1 */
	expect_meta("mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32",
		    1, 8, 6, 3, 6, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32",
		    0, 8, 40, 3, 8, 2);
	expect_meta("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32",
		    0, 0, 20, 2, 8, 2);
}

/* ---- 2:4 helpers ---- */

static uint64_t rng = 12345;

static unsigned next_rand(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33);
}

/* Decompress values/idx back into an MxK matrix. */
static void decompress(const mmagen_form *f, unsigned m, unsigned k,
		       const uint64_t *values, const uint8_t *idx, uint64_t *out)
{
	unsigned unit = granule_unit(f);
	unsigned group = f->a == MMAGEN_TF32 ? 2 : unit == 2 ? 8 : 4;
	unsigned half = group / 2;

	memset(out, 0, (size_t)m * k * sizeof *out);
	for (size_t i = 0; i < (size_t)m * k / 2; i++) {
		size_t row = i / (k / 2), cc = i % (k / 2);
		size_t g = cc / half;
		size_t pos = idx[i] * unit + cc % unit;
		out[row * k + g * group + pos] = values[i];
	}
}

static void check_helpers(const mmagen_form *f)
{
	enum { M = 16, K = 64 };
	uint64_t a[M * K], back[M * K], values[M * K / 2];
	uint8_t idx[M * K / 2];
	mmagen_type t = (mmagen_type)f->a;
	unsigned unit = granule_unit(f);
	unsigned group = t == MMAGEN_TF32 ? 2 : unit == 2 ? 8 : 4;

	for (unsigned i = 0; i < M * K; i++) {
		/* small values, some zeros, exact in every type */
		int v = (int)(next_rand() % 7) - 3;
		if (mmagen_type_max(t) < 7 || t == MMAGEN_U4 || t == MMAGEN_U8)
			v = v < 0 ? -v : v;
		a[i] = mmagen_type_encode(t, v);
	}
	CHECK(mmagen_sparse_prune(f, M, K, a) == MMAGEN_OK, "%s: prune: %s",
	      form_str(f), mmagen_last_error());
	CHECK(mmagen_sparse_check(f, M, K, a), "%s: pruned A fails check",
	      form_str(f));
	CHECK(mmagen_sparse_compress(f, M, K, a, values, idx) == MMAGEN_OK,
	      "%s: compress: %s", form_str(f), mmagen_last_error());
	decompress(f, M, K, values, idx, back);
	unsigned diff = 0;
	for (unsigned i = 0; i < M * K; i++)
		if (mmagen_type_decode(t, a[i]) != mmagen_type_decode(t, back[i]))
			diff++;
	CHECK(!diff, "%s: decompress(compress(A)) differs in %u elements",
	      form_str(f), diff);
	/* indices strictly ascending per group (pairs share one) */
	unsigned kept = group / 2, bad = 0;
	for (unsigned i = 0; i < M * K / 2; i += kept)
		for (unsigned j = unit; j < kept; j++)
			if (idx[i + j] <= idx[i + j - unit] ||
			    (j % unit && idx[i + j] != idx[i + j - 1]))
				bad++;
	CHECK(!bad, "%s: %u index sequences not ascending", form_str(f), bad);
}

static const mmagen_form *sparse_form(mmagen_type a, int kind)
{
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_MMA && f->sparse && f->a == a &&
		    f->kind == kind)
			return f;
	}
	fail("no sparse %s form, kind %d", mmagen_type_name(a), kind);
	return NULL;
}

static uint64_t enc(const mmagen_form *f, double v)
{
	return mmagen_type_encode((mmagen_type)f->a, v);
}

static void test_helpers(void)
{
	static const struct { mmagen_type a; int kind; } cases[] = {
		{ MMAGEN_F16, 0 }, { MMAGEN_BF16, 0 }, { MMAGEN_TF32, 0 },
		{ MMAGEN_S8, 0 }, { MMAGEN_U8, 0 }, { MMAGEN_S4, 0 },
		{ MMAGEN_U4, 0 }, { MMAGEN_E4M3, 0 },
		{ MMAGEN_E2M1, MMAGEN_KIND_F8F6F4 },
		{ MMAGEN_E3M2, MMAGEN_KIND_MXF8F6F4 },
		{ MMAGEN_E2M1, MMAGEN_KIND_MXF4 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const mmagen_form *f = sparse_form(cases[i].a, cases[i].kind);
		if (f)
			check_helpers(f);
	}

	/* f16: the two largest magnitudes stay; 3 nonzeros fail check */
	const mmagen_form *f = sparse_form(MMAGEN_F16, 0);
	if (!f)
		return;
	uint64_t g[4] = { enc(f, 1), enc(f, -5), enc(f, 3), enc(f, 2) };
	CHECK(!mmagen_sparse_check(f, 1, 4, g), "check accepts 4 nonzeros");
	g[0] = 0;
	CHECK(!mmagen_sparse_check(f, 1, 4, g), "check accepts 3 nonzeros");
	g[0] = enc(f, 1);
	mmagen_sparse_prune(f, 1, 4, g);
	CHECK(!g[0] && g[1] == enc(f, -5) && g[2] == enc(f, 3) && !g[3],
	      "prune keeps the wrong two");
	uint64_t v[2];
	uint8_t ix[2];
	CHECK(mmagen_sparse_compress(f, 1, 4, (uint64_t[4]){ enc(f, 1), 0,
		enc(f, 2), enc(f, 3) }, v, ix) != MMAGEN_OK,
	      "compress takes 3 nonzeros");
	/* padding: lowest unused positions, ascending */
	mmagen_sparse_compress(f, 1, 4, (uint64_t[4]){ 0, 0, 0, enc(f, 7) },
			       v, ix);
	CHECK(ix[0] == 0 && ix[1] == 3 && v[1] == enc(f, 7),
	      "one nonzero at 3: idx %u %u", ix[0], ix[1]);
	mmagen_sparse_compress(f, 1, 4, (uint64_t[4]){ 0 }, v, ix);
	CHECK(ix[0] == 0 && ix[1] == 1, "empty group: idx %u %u", ix[0], ix[1]);

	/* tf32 is 1:2 */
	f = sparse_form(MMAGEN_TF32, 0);
	if (f)
		CHECK(!mmagen_sparse_check(f, 1, 2, (uint64_t[2]){ enc(f, 1),
			enc(f, 2) }), "tf32: 2 of 2 nonzero accepted");
	/* s4 is pair-wise 4:8: two nonzero pairs pass, three fail */
	f = sparse_form(MMAGEN_S4, 0);
	if (f) {
		uint64_t p[8] = { 0, enc(f, 1), 0, 0, enc(f, 2), 0, 0, 0 };
		CHECK(mmagen_sparse_check(f, 1, 8, p), "s4: 2 pairs rejected");
		p[6] = enc(f, 3);
		CHECK(!mmagen_sparse_check(f, 1, 8, p), "s4: 3 pairs accepted");
	}
}

int main(void)
{
	test_all_mma_forms();
	test_m16n8k16_f16_example();
	isa_formulas();
	isa_quad_pair();
	test_rejects();
	test_meta();
	test_helpers();
	if (failed > MAX_PRINTED)
		printf("(%lu more failures not printed)\n",
		       failed - MAX_PRINTED);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
