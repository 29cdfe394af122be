/* desc.h - bit-packed descriptor words from a table of named fields.
 *
 * A descriptor (the sm_90 wgmma shared-memory descriptor in smem.c, the
 * sm_100 shared-memory descriptor and the tcgen05 instruction descriptor
 * in tcgen05.c) is a desc_spec: its fields, each stated once as
 *
 *   name   what messages call it ("LBO")
 *   lo     lowest bit of the field in the word
 *   width  bits
 *   shift  the field holds value >> shift (byte addresses: 4); the low
 *          `shift` bits of the value must be 0
 *   codes  enumerated fields only: the legal (value, code) pairs; the field
 *          holds the code of the value.  NULL: any value that fits.
 *
 * plus the constant bits every word carries.  desc_pack() refuses a value
 * that does not fit or is not a legal code, with one line naming the
 * descriptor, the field, its range and the nearest legal value; nothing is
 * masked.  desc_unpack() is the inverse, and refuses a word with an
 * unknown code or a bit set outside every field (other than the constant
 * bits, which must be as stated). */
#ifndef MMAGEN_DESC_H
#define MMAGEN_DESC_H

#include "internal.h"

#include <stdint.h>

struct desc_code {
	uint32_t value, code;
};

struct desc_field {
	const char *name;
	uint8_t lo, width, shift;
	const struct desc_code *codes;
	uint8_t ncodes;
};

struct desc_spec {
	const char *name;                 /* "sm_90 wgmma smem descriptor" */
	const struct desc_field *fields;
	size_t nfields;
	uint64_t fixed;                   /* constant bits */
};

/* An enumerated field's codes: DESC_CODES(swizzle_codes). */
#define DESC_CODES(a) (a), (uint8_t)ARRAY_SIZE(a)

/* vals[i] is field i's value. */
mmagen_status desc_pack(const struct desc_spec *s, const uint64_t *vals, uint64_t *out);
mmagen_status desc_unpack(const struct desc_spec *s, uint64_t w, uint64_t *vals);

#endif
