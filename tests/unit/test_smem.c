/* test_smem.c - wgmma shared-memory layouts and the sm_90 descriptor,
 * against hand-computed words from the PTX ISA's bit layout. */
#include "mmagen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint64_t wdesc(uint32_t start, uint32_t lbo, uint32_t sbo, unsigned base,
		      unsigned swizzle)
{
	mmagen_wgmma_sdesc d = { start, lbo, sbo, base, swizzle }, back;
	uint64_t w = 0;
	mmagen_status s = mmagen_wgmma_sdesc_encode(&d, &w);
	CHECK(!s, "desc 0x%x/%u/%u/%u/%u refused: %s", start, lbo, sbo, base, swizzle,
	      mmagen_last_error());
	s = mmagen_wgmma_sdesc_decode(w, &back);
	CHECK(!s && !memcmp(&d, &back, sizeof d), "desc 0x%016llx does not decode back: %s",
	      (unsigned long long)w, s ? mmagen_last_error() : "fields differ");
	return w;
}

static void test_desc(void)
{
	/* start 0x1230 >> 4 = 0x123 (bits 0-13), LBO 128 >> 4 = 8 (16-29),
	 * SBO 256 >> 4 = 16 (32-45), swizzle in 62-63 (1 128B, 2 64B, 3 32B) */
	CHECK(wdesc(0x1230, 128, 256, 0, 0) == 0x0000001000080123ull, "desc none");
	CHECK(wdesc(0x1230, 128, 256, 0, 128) == 0x4000001000080123ull, "desc 128B");
	CHECK(wdesc(0x1230, 128, 256, 0, 64) == 0x8000001000080123ull, "desc 64B");
	CHECK(wdesc(0x1230, 128, 256, 0, 32) == 0xC000001000080123ull, "desc 32B");
	CHECK(wdesc(0, 0, 0, 5, 0) == 5ull << 49, "base offset in bits 49-51");
	CHECK(wdesc(0x3fff0, 0x3fff0, 0x3fff0, 7, 0) == 0x000E3FFF3FFF3FFFull, "every field full");
	CHECK(wdesc(0, 16, 1024, 0, 128) == ((1ull << 16) | (64ull << 32) | (1ull << 62)),
	      "128B atom: LBO 16, SBO 1024");
	/* every field out of range: refused, never masked */
	static const struct {
		mmagen_wgmma_sdesc d;
		const char *msg;
	} bad[] = {
		{ { 0x40010, 0, 0, 0, 0 }, "sm_90 wgmma smem descriptor: start address 262160 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 262128)" },
		{ { 0x1238, 0, 0, 0, 0 }, "start address 4664 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 4672)" },
		{ { 0, 0x40000, 0, 0, 0 }, "LBO 262144 does not fit" },
		{ { 0, 8, 0, 0, 0 }, "LBO 8 does not fit; it takes multiples of 16 from 0 to 262128 (nearest 16)" },
		{ { 0, 0, 0x80000, 0, 0 }, "SBO 524288 does not fit" },
		{ { 0, 0, 0, 8, 0 }, "base offset 8 does not fit; it takes 0 to 7 (nearest 7)" },
		{ { 0, 0, 0, 0, 48 }, "swizzle 48 is not legal; it takes 0, 32, 64 or 128 (nearest 32)" },
		{ { 0, 0, 0, 0, MMAGEN_SWIZZLE_128B_BASE32B }, "swizzle 160 is not legal" },
		{ { 0, 0, 0, 0, 1 }, "swizzle 1 is not legal" },   /* a code, not bytes */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t w = 0x77;
		mmagen_status s = mmagen_wgmma_sdesc_encode(&bad[i].d, &w);
		CHECK(s == MMAGEN_INVALID_ARGUMENT && strstr(mmagen_last_error(), bad[i].msg) &&
		      !strchr(mmagen_last_error(), '\n') && w == 0x77,
		      "bad desc %zu: status %d \"%s\", want \"%s\"", i, s, mmagen_last_error(),
		      bad[i].msg);
	}
	/* bits outside the fields are no descriptor */
	static const int stray[] = { 14, 15, 30, 31, 46, 47, 48, 52, 61 };
	for (size_t i = 0; i < sizeof stray / sizeof stray[0]; i++) {
		mmagen_wgmma_sdesc d;
		CHECK(mmagen_wgmma_sdesc_decode(1ull << stray[i], &d) == MMAGEN_INVALID_ARGUMENT,
		      "a word with bit %d set decoded", stray[i]);
	}
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
	return check_summary();
}
