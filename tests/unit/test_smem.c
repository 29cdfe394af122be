/* test_smem.c - wgmma shared-memory layouts and the sm_90 descriptor,
 * against hand-computed words from the PTX ISA's bit layout. */
#include "mmagen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) { passed++; } else { failed++; printf("FAIL: " __VA_ARGS__); putchar('\n'); } \
} while (0)

static void test_desc(void)
{
	/* start 0x1230 >> 4 = 0x123 (bits 0-13), LBO 128 >> 4 = 8 (16-29),
	 * SBO 256 >> 4 = 16 (32-45), swizzle in 62-63 */
	CHECK(mmagen_wgmma_desc(0x1230, 128, 256, 0, 0) == 0x0000001000080123ull, "desc none");
	CHECK(mmagen_wgmma_desc(0x1230, 128, 256, 0, 128) == 0x4000001000080123ull, "desc 128B");
	CHECK(mmagen_wgmma_desc(0x1230, 128, 256, 0, 64) == 0x8000001000080123ull, "desc 64B");
	CHECK(mmagen_wgmma_desc(0x1230, 128, 256, 0, 32) == 0xC000001000080123ull, "desc 32B");
	CHECK(mmagen_wgmma_desc(0, 0, 0, 5, 0) == 5ull << 49, "base offset in bits 49-51");
	CHECK(mmagen_wgmma_desc(0x40010, 0, 0, 0, 0) == 1, "start address keeps 18 bits");
	CHECK(mmagen_wgmma_desc(0, 16, 1024, 0, 128) == ((1ull << 16) | (64ull << 32) | (1ull << 62)),
	      "128B atom: LBO 16, SBO 1024");
}

static void test_known_offsets(void)
{
	mmagen_smem_layout l;
	mmagen_smem_layout_kmajor(64, 32, 128, &l);
	CHECK(l.sbo == 1024 && l.bytes == 8 * 1024, "128B layout: sbo %u bytes %u", l.sbo, l.bytes);
	CHECK(mmagen_smem_offset(&l, 1, 0) == 144, "128B: row 1 byte 0 -> %u", mmagen_smem_offset(&l, 1, 0));
	CHECK(mmagen_smem_offset(&l, 3, 16) == 416, "128B: row 3 byte 16 -> %u", mmagen_smem_offset(&l, 3, 16));
	CHECK(mmagen_smem_offset(&l, 8, 0) == 1024, "128B: row 8 starts the next atom");
	mmagen_smem_layout_kmajor(64, 32, 32, &l);
	CHECK(mmagen_smem_offset(&l, 4, 0) == 144, "32B: row 4 byte 0 -> %u", mmagen_smem_offset(&l, 4, 0));
	CHECK(mmagen_smem_offset(&l, 5, 16) == 160, "32B: row 5 byte 16 -> %u", mmagen_smem_offset(&l, 5, 16));
	CHECK(mmagen_smem_offset(&l, 1, 0) == 32, "32B: row 1 unswizzled");
	mmagen_smem_layout_kmajor(64, 32, 0, &l);
	CHECK(l.lbo == 128 && l.sbo == 256, "none: LBO %u SBO %u", l.lbo, l.sbo);
	CHECK(mmagen_smem_offset(&l, 9, 17) == 401, "none: row 9 byte 17 -> %u", mmagen_smem_offset(&l, 9, 17));
	CHECK(mmagen_smem_layout_kmajor(60, 32, 128, &l) != MMAGEN_OK, "rows not a multiple of 8 accepted");
	CHECK(mmagen_smem_layout_kmajor(64, 32, 48, &l) != MMAGEN_OK, "swizzle 48 accepted");
}

/* Every layout is a bijection of (row, kbyte) onto its non-padding bytes,
 * and locate() inverts offset(). */
static void test_bijection(void)
{
	const unsigned sw[] = { 0, 32, 64, 128 };
	const unsigned kb[] = { 32, 64 };
	for (int s = 0; s < 4; s++)
		for (int q = 0; q < 2; q++)
			for (unsigned rows = 8; rows <= 256; rows *= 2) {
				mmagen_smem_layout l;
				if (mmagen_smem_layout_kmajor(rows, kb[q], sw[s], &l)) {
					CHECK(0, "layout %u x %u swizzle %u refused: %s", rows,
					      kb[q], sw[s], mmagen_last_error());
					continue;
				}
				unsigned char *seen = calloc(l.bytes, 1);
				int bad = 0;
				for (unsigned r = 0; r < rows; r++)
					for (unsigned k = 0; k < kb[q]; k++) {
						unsigned o = mmagen_smem_offset(&l, r, k), rr, kk;
						if (o >= l.bytes || seen[o]++) {
							bad++;
							continue;
						}
						mmagen_smem_locate(&l, o, &rr, &kk);
						bad += rr != r || kk != k;
					}
				/* padding bytes locate outside the K extent */
				for (unsigned o = 0; o < l.bytes; o++)
					if (!seen[o]) {
						unsigned rr, kk;
						mmagen_smem_locate(&l, o, &rr, &kk);
						bad += kk < kb[q] && rr < rows;
					}
				CHECK(!bad, "layout %u x %u swizzle %u: %d bad bytes", rows, kb[q], sw[s], bad);
				free(seen);
			}
}

/* MN-major layouts: bijection and inverse too, and one hand value. */
static void test_mn(void)
{
	const unsigned sw[] = { 0, 32, 64, 128 };
	mmagen_smem_layout l;
	for (int s = 0; s < 4; s++)
		for (unsigned krows = 8; krows <= 32; krows *= 2)
			for (unsigned mnb = 128; mnb <= 512; mnb *= 2) {
				if (mmagen_smem_layout_mnmajor(krows, mnb, sw[s], &l)) {
					CHECK(0, "MN layout refused: %s", mmagen_last_error());
					continue;
				}
				unsigned char *seen = calloc(l.bytes, 1);
				int bad = 0;
				for (unsigned k = 0; k < krows; k++)
					for (unsigned m = 0; m < mnb; m++) {
						unsigned o = mmagen_smem_offset(&l, k, m), kk, mm;
						if (o >= l.bytes || seen[o]++) {
							bad++;
							continue;
						}
						mmagen_smem_locate(&l, o, &kk, &mm);
						bad += kk != k || mm != m;
					}
				CHECK(!bad, "MN layout %u x %u swizzle %u: %d bad bytes", krows, mnb,
				      sw[s], bad);
				free(seen);
			}
	/* no swizzle: core matrix of 8 K rows x 16 bytes; K row 9, MN byte
	 * 17 of a 128-byte MN extent: LBO = 8*128, SBO = 128 */
	mmagen_smem_layout_mnmajor(16, 128, 0, &l);
	CHECK(mmagen_smem_offset(&l, 9, 17) == 1024 + 128 + 16 + 1, "MN none: %u",
	      mmagen_smem_offset(&l, 9, 17));
	CHECK(mmagen_smem_layout_mnmajor(16, 16, 32, &l) != MMAGEN_OK,
	      "16 MN bytes accepted for a 32-byte swizzle");
}

int main(void)
{
	test_mn();
	test_desc();
	test_known_offsets();
	test_bijection();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
