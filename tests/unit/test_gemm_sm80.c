/* test_gemm_sm80.c - the shared-memory layout of the mma.sync GEMM
 * (gen/kernel_gemm_sm80.c) is free of bank conflicts, and its ldmatrix
 * lanes read the rows the mma fragments need.
 *
 * For every operand layout (K-major, MN-major) and warp, the banks each
 * lane touches are computed for every ldmatrix.x4 phase (the eight lanes
 * that give one 8x8 matrix's rows: 8 x 16 bytes, one shared-memory
 * wavefront when they cover all 32 banks) and every cp.async phase (eight
 * consecutive lanes' 16-byte stores): twice, from the generator's
 * swizzle function (gemm80_swizzle) and from the arithmetic the kernel
 * emits (lane offset with the XOR folded in once, plus an immediate row
 * offset), which must agree.  The same accesses without the swizzle must
 * conflict, so the test can fail. */
#include "gemm.h"
#include "check.h"

#include <string.h>

#define ROW GEMM80_ROW_BYTES

static unsigned plain(unsigned row, unsigned chunk)
{
	return row * ROW + chunk * 16;
}

/* Eight 16-byte accesses: 1 when their 32 banks are distinct. */
static int conflict_free(const unsigned addr[8])
{
	unsigned seen = 0;
	for (int i = 0; i < 8; i++)
		for (unsigned b = 0; b < 4; b++) {
			unsigned bank = (addr[i] / 4 + b) % 32;
			if (seen & (1u << bank))
				return 0;
			seen |= 1u << bank;
		}
	return 1;
}

/* The kernel's arithmetic (emit_frag_setup, emit_frags): the lane offset
 * loff[h] = (wrow + rl) * 64 + ((cl ^ ((rl >> 1) & 3) ^ 2h) << 4), and
 * ldmatrix [loff[h] + row * 64] with h = chunk / 2. */
static unsigned emitted(unsigned wrow, unsigned rl, unsigned cl, unsigned row, unsigned chunk)
{
	unsigned x = cl ^ ((rl >> 1) & 3) ^ chunk;
	return (wrow + rl) * ROW + (x << 4) + row * ROW;
}

static void ldmatrix_phases(int op, int mn, unsigned bk, unsigned warps, int swizzle,
			    unsigned *bad, unsigned *total)
{
	int pattern = mn == op ? 1 : 2;
	for (unsigned w = 0; w < warps; w++)
		for (unsigned step = 0; step < 2; step++)
			for (unsigned i = 0; i < 4; i++) {
				unsigned row0, chunk0, wrow = w * (mn ? 2 * bk : 64);
				gemm80_frag_origin(mn, bk, i, step, &row0, &chunk0);
				for (unsigned ph = 0; ph < 4; ph++) {
					unsigned addr[8];
					for (unsigned l = 0; l < 8; l++) {
						unsigned rl, cl, lane = 8 * ph + l;
						gemm80_ldmatrix_lane(pattern, lane, &rl, &cl);
						unsigned r = wrow + row0 + rl, c = chunk0 + cl;
						addr[l] = swizzle ? gemm80_swizzle(r, c) : plain(r, c);
						if (swizzle && addr[l] != emitted(wrow, rl, cl, row0, chunk0))
							fail("op %d mn %d warp %u step %u ldmatrix %u lane %u: "
							     "emitted address %u, swizzle function %u", op, mn, w,
							     step, i, lane, emitted(wrow, rl, cl, row0, chunk0),
							     addr[l]);
					}
					*bad += !conflict_free(addr);
					++*total;
				}
			}
}

/* cp.async: thread t copies chunk t % 4 of stage rows t / 4 + c * threads/4;
 * the kernel adds c * threads/4 rows as an immediate to one swizzled offset. */
static void cp_async_phases(unsigned threads, unsigned rows, int swizzle, unsigned *bad,
			    unsigned *total)
{
	unsigned t4 = threads / 4;
	for (unsigned c = 0; c < rows / t4; c++)
		for (unsigned t0 = 0; t0 < threads; t0 += 8) {
			unsigned addr[8];
			for (unsigned l = 0; l < 8; l++) {
				unsigned t = t0 + l, r = c * t4 + t / 4;
				addr[l] = swizzle ? gemm80_swizzle(r, t % 4) : plain(r, t % 4);
				if (swizzle && addr[l] != gemm80_swizzle(t / 4, t % 4) + c * t4 * ROW)
					fail("cp.async thread %u copy %u: the immediate row offset changes the swizzle",
					     t, c);
			}
			*bad += !conflict_free(addr);
			++*total;
		}
}

/* The lane patterns give matrix g = lane / 8 the rows and chunk that
 * m16n8's fragments want (PTX ISA, ldmatrix and mma fragment layouts):
 * pattern 1: a0..a3 = (rows 0-7, chunk 0), (8-15, 0), (0-7, 1), (8-15, 1);
 * pattern 2: (0-7, 0), (0-7, 1), (8-15, 0), (8-15, 1). */
static void lane_patterns(void)
{
	static const unsigned want[3][4][2] = {
		{ { 0 } },
		{ { 0, 0 }, { 8, 0 }, { 0, 1 }, { 8, 1 } },
		{ { 0, 0 }, { 0, 1 }, { 8, 0 }, { 8, 1 } } };
	for (int p = 1; p <= 2; p++)
		for (unsigned lane = 0; lane < 32; lane++) {
			unsigned r, c, g = lane / 8;
			gemm80_ldmatrix_lane(p, lane, &r, &c);
			CHECK(r == want[p][g][0] + lane % 8 && c == want[p][g][1],
			      "pattern %d lane %u: row %u chunk %u", p, lane, r, c);
		}
}

int main(void)
{
	static const struct { unsigned bm, bn; } tiles[] = { { 128, 256 }, { 128, 128 }, { 64, 64 },
							     { 256, 128 }, { 64, 256 } };
	lane_patterns();
	for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
		unsigned bm = tiles[t].bm, bn = tiles[t].bn, threads = bm * bn / 128;
		for (int op = 0; op < 2; op++)
			for (int mn = 0; mn < 2; mn++) {
				unsigned warps = (op ? bn : bm) / 64, bad = 0, total = 0;
				unsigned ubad = 0, utotal = 0;
				ldmatrix_phases(op, mn, 32, warps, 1, &bad, &total);
				ldmatrix_phases(op, mn, 32, warps, 0, &ubad, &utotal);
				CHECK(total && !bad, "tile %ux%u operand %c %s: %u of %u ldmatrix phases conflict",
				      bm, bn, "AB"[op], mn ? "MN-major" : "K-major", bad, total);
				CHECK(ubad == utotal, "tile %ux%u operand %c %s: without the swizzle only %u of %u ldmatrix phases conflict; the test cannot tell",
				      bm, bn, "AB"[op], mn ? "MN-major" : "K-major", ubad, utotal);
			}
		for (int op = 0; op < 2; op++) {
			unsigned rows = op ? bn : bm, bad = 0, total = 0, ubad = 0, utotal = 0;
			cp_async_phases(threads, rows, 1, &bad, &total);
			cp_async_phases(threads, rows, 0, &ubad, &utotal);
			CHECK(total && !bad, "tile %ux%u operand %c: %u of %u cp.async phases conflict",
			      bm, bn, "AB"[op], bad, total);
			/* unswizzled 64-byte rows: 8 lanes cover rows r, r+1
			 * (128 bytes): also free -- cp.async needs no swizzle,
			 * ldmatrix does; say so rather than pretend */
			CHECK(utotal && !ubad, "tile %ux%u operand %c: plain rows conflict in cp.async (%u of %u)",
			      bm, bn, "AB"[op], ubad, utotal);
		}
	}
	return check_summary();
}
