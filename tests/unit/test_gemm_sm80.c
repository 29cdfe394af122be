/* test_gemm_sm80.c - the shared-memory layout of the mma.sync GEMM
 * (gen/gemm/kernel_gemm_sm80.c) is free of bank conflicts, and its ldmatrix
 * lanes read the rows the mma fragments need.
 *
 * For both stage rows (64 and 128 bytes), every operand layout (K-major,
 * MN-major) and warp, the banks each
 * lane touches are computed for every ldmatrix.x4 phase (the eight lanes
 * that give one 8x8 matrix's rows: 8 x 16 bytes, one shared-memory
 * wavefront when they cover all 32 banks) and every cp.async phase (eight
 * consecutive lanes' 16-byte stores): twice, from the generator's
 * swizzle function (gemm80_swizzle) and from the arithmetic the kernel
 * emits (lane offset with the XOR folded in once, plus an immediate row
 * offset), which must agree.  The same accesses without the swizzle must
 * conflict, so the test can fail. */
#include "gemm_plan.h"
#include "check.h"

#include <string.h>

static unsigned plain(unsigned rb, unsigned row, unsigned chunk)
{
	return row * rb + chunk * 16;
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

/* The swizzle key as the kernel computes it (emit_swizzle_key). */
static unsigned key(unsigned rb, unsigned rl)
{
	return rb == 64 ? (rl >> 1) & 3 : rl & 7;
}

/* The kernel's arithmetic (emit_frag_setup, emit_read_stage, emit_frags),
 * at the stage starting `base` bytes into the window: the lane offset of
 * chunk 2h, loff[h] = (wrow + rl) * rb + ((cl ^ key(rl) ^ 2h) << 4), kept
 * for h < 2 with 64-byte rows and h = 0 with 128-byte rows, where chunk
 * 2h's address is (base + loff[0]) ^ 32h; ldmatrix reads [that + row * rb]. */
static unsigned emitted(unsigned rb, unsigned base, unsigned wrow, unsigned rl, unsigned cl,
			unsigned row, unsigned chunk)
{
	unsigned lane = (wrow + rl) * rb + ((cl ^ key(rb, rl)) << 4);
	unsigned lad = rb == 64 ? base + (lane ^ (chunk << 4)) : (base + lane) ^ (chunk << 4);
	return lad + row * rb - base;
}

static void ldmatrix_phases(unsigned rb, int op, int mn, unsigned bk, unsigned warps,
			    unsigned stage_bytes, int swizzle, unsigned *bad, unsigned *total)
{
	int pattern = mn == op ? 1 : 2;
	for (unsigned w = 0; w < warps; w++)
		for (unsigned step = 0; step < rb / 32; step++)
			for (unsigned i = 0; i < 4; i++) {
				unsigned row0, chunk0, wrow = w * gemm80_warp_rows(mn, rb, bk);
				gemm80_frag_origin(mn, rb, bk, i, step, &row0, &chunk0);
				for (unsigned ph = 0; ph < 4; ph++) {
					unsigned addr[8];
					for (unsigned l = 0; l < 8; l++) {
						unsigned rl, cl, lane = 8 * ph + l, stage = 3 * stage_bytes;
						gemm80_ldmatrix_lane(pattern, lane, &rl, &cl);
						unsigned r = wrow + row0 + rl, c = chunk0 + cl;
						unsigned e = emitted(rb, stage, wrow, rl, cl, row0, chunk0);
						addr[l] = swizzle ? gemm80_swizzle(rb, r, c) : plain(rb, r, c);
						if (swizzle && addr[l] != e)
							fail("rows %u op %d mn %d warp %u step %u ldmatrix %u lane %u: "
							     "emitted address %u, swizzle function %u", rb, op, mn,
							     w, step, i, lane, e, addr[l]);
					}
					*bad += !conflict_free(addr);
					++*total;
				}
			}
}

/* cp.async: a row is cpr = rb/16 chunks, thread t copies chunk t % cpr of
 * stage rows t / cpr + c * tr (tr = threads/cpr); the kernel adds
 * c * tr rows as an immediate to the offset of copy c % ns, where ns = 1,
 * or 8 / tr when a pass is fewer rows than the key's period of 8. */
static void cp_async_phases(unsigned rb, unsigned threads, unsigned rows, int swizzle,
			    unsigned *bad, unsigned *total)
{
	unsigned cpr = rb / 16, tr = threads / cpr, ns = tr >= 8 ? 1 : 8 / tr;
	for (unsigned c = 0; c < rows / tr; c++)
		for (unsigned t0 = 0; t0 < threads; t0 += 8) {
			unsigned addr[8];
			for (unsigned l = 0; l < 8; l++) {
				unsigned t = t0 + l, r = c * tr + t / cpr, j = c % ns;
				unsigned e = gemm80_swizzle(rb, t / cpr + j * tr, t % cpr) +
					     (c - j) * tr * rb;
				addr[l] = swizzle ? gemm80_swizzle(rb, r, t % cpr) : plain(rb, r, t % cpr);
				if (swizzle && addr[l] != e)
					fail("rows %u cp.async thread %u copy %u: the immediate row offset changes the swizzle",
					     rb, t, c);
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
	for (unsigned rb = GEMM80_ROW_NARROW; rb <= GEMM80_ROW_WIDE; rb *= 2)
		for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
			unsigned bm = tiles[t].bm, bn = tiles[t].bn, threads = bm * bn / 128;
			unsigned bk = rb / 2, stage_bytes = (bm + bn) * rb;   /* 16-bit */
			for (int op = 0; op < 2; op++)
				for (int mn = 0; mn < 2; mn++) {
					unsigned warps = (op ? bn : bm) / 64, bad = 0, total = 0;
					unsigned ubad = 0, utotal = 0;
					ldmatrix_phases(rb, op, mn, bk, warps, stage_bytes, 1, &bad, &total);
					ldmatrix_phases(rb, op, mn, bk, warps, stage_bytes, 0, &ubad, &utotal);
					CHECK(total == warps * 4 * 4 * rb / 32 && !bad,
					      "%u-byte rows, tile %ux%u operand %c %s: %u of %u ldmatrix phases conflict",
					      rb, bm, bn, "AB"[op], mn ? "MN-major" : "K-major", bad, total);
					CHECK(ubad == utotal, "%u-byte rows, tile %ux%u operand %c %s: without the swizzle only %u of %u ldmatrix phases conflict; the test cannot tell",
					      rb, bm, bn, "AB"[op], mn ? "MN-major" : "K-major", ubad, utotal);
				}
			for (int op = 0; op < 2; op++) {
				unsigned rows = op ? bn : bm, bad = 0, total = 0, ubad = 0, utotal = 0;
				cp_async_phases(rb, threads, rows, 1, &bad, &total);
				cp_async_phases(rb, threads, rows, 0, &ubad, &utotal);
				CHECK(total == rows * rb / 16 / 8 && !bad,
				      "%u-byte rows, tile %ux%u operand %c: %u of %u cp.async phases conflict",
				      rb, bm, bn, "AB"[op], bad, total);
				/* unswizzled, 8 lanes cover 128 bytes of one or two
				 * rows: also free -- cp.async needs no swizzle,
				 * ldmatrix does; say so rather than pretend */
				CHECK(utotal && !ubad, "%u-byte rows, tile %ux%u operand %c: plain rows conflict in cp.async (%u of %u)",
				      rb, bm, bn, "AB"[op], ubad, utotal);
			}
		}
	return check_summary();
}
