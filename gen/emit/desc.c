/* desc.c - pack and unpack descriptor words from their field tables
 * (desc.h). */
#include "desc.h"

#include <assert.h>
#include <stdio.h>

static uint64_t field_mask(const struct desc_field *f)
{
	uint64_t ones = f->width >= 64 ? ~0ull : (1ull << f->width) - 1;
	return ones << f->lo;
}

/* "0, 32, 64 or 128" */
static void list_codes(char *s, size_t len, const struct desc_field *f)
{
	size_t o = 0;
	s[0] = 0;
	for (unsigned i = 0; i < f->ncodes && o < len; i++)
		o += (size_t)snprintf(s + o, len - o, "%s%u",
				      i == 0 ? "" : i + 1 == f->ncodes ? " or " : ", ",
				      f->codes[i].value);
}

static mmagen_status bad_code(const struct desc_spec *s, const struct desc_field *f,
			      uint64_t v)
{
	char legal[160];
	uint32_t best = f->codes[0].value;
	uint64_t bd = ~0ull;
	for (unsigned i = 0; i < f->ncodes; i++) {
		uint64_t c = f->codes[i].value, d = c > v ? c - v : v - c;
		if (d < bd)
			bd = d, best = f->codes[i].value;
	}
	list_codes(legal, sizeof legal, f);
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"%s: %s %llu is not legal; it takes %s (nearest %u)", s->name, f->name,
		(unsigned long long)v, legal, best);
}

static mmagen_status bad_value(const struct desc_spec *s, const struct desc_field *f,
			       uint64_t v)
{
	uint64_t unit = 1ull << f->shift, max = ((1ull << f->width) - 1) << f->shift;
	uint64_t near = (v + unit / 2) / unit * unit;
	if (near > max)
		near = max;
	if (f->shift)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s: %s %llu does not fit; it takes multiples of %llu from 0 to %llu (nearest %llu)",
			s->name, f->name, (unsigned long long)v, (unsigned long long)unit,
			(unsigned long long)max, (unsigned long long)near);
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"%s: %s %llu does not fit; it takes 0 to %llu (nearest %llu)", s->name,
		f->name, (unsigned long long)v, (unsigned long long)max,
		(unsigned long long)near);
}

mmagen_status desc_pack(const struct desc_spec *s, const uint64_t *vals, uint64_t *out)
{
	uint64_t w = s->fixed, used = 0;
	for (size_t i = 0; i < s->nfields; i++) {
		const struct desc_field *f = &s->fields[i];
		uint64_t v = vals[i], code;
		assert(f->width && f->lo + f->width <= 64 && f->width + f->shift < 64);
		assert(!(field_mask(f) & (used | s->fixed)));   /* a table bug */
		used |= field_mask(f);
		if (f->codes) {
			unsigned j = 0;
			while (j < f->ncodes && f->codes[j].value != v)
				j++;
			if (j == f->ncodes)
				return bad_code(s, f, v);
			code = f->codes[j].code;
			assert(code < (1ull << f->width));
		} else {
			if (v & ((1ull << f->shift) - 1) || v >> f->shift >= 1ull << f->width)
				return bad_value(s, f, v);
			code = v >> f->shift;
		}
		w |= code << f->lo;
	}
	*out = w;
	return MMAGEN_OK;
}

mmagen_status desc_unpack(const struct desc_spec *s, uint64_t w, uint64_t *vals)
{
	uint64_t used = 0;
	for (size_t i = 0; i < s->nfields; i++)
		used |= field_mask(&s->fields[i]);
	if ((w & ~used) != s->fixed)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s: 0x%016llx has bits 0x%016llx outside its fields (they must read 0x%016llx)",
			s->name, (unsigned long long)w, (unsigned long long)(w & ~used),
			(unsigned long long)s->fixed);
	for (size_t i = 0; i < s->nfields; i++) {
		const struct desc_field *f = &s->fields[i];
		uint64_t code = (w & field_mask(f)) >> f->lo;
		if (!f->codes) {
			vals[i] = code << f->shift;
			continue;
		}
		unsigned j = 0;
		while (j < f->ncodes && f->codes[j].code != code)
			j++;
		if (j == f->ncodes)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"%s: %s code %llu (bits %u-%u) means nothing", s->name, f->name,
				(unsigned long long)code, f->lo, f->lo + f->width - 1);
		vals[i] = f->codes[j].value;
	}
	return MMAGEN_OK;
}
