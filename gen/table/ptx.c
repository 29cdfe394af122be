/* ptx.c - the text buffer and emitf(); the escape grammar is in ptx.h. */
#include "ptx.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	memset(b, 0, sizeof *b);
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

static void buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->data, cap);
		if (!p) {
			b->err = MMAGEN_NO_MEMORY;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* The spelling of each register class: "%r" + number; labels "L" + number. */
/* The PTX type of each register class (".reg .b32"). */
static const char *const kclass_type_name[K_NCLASS] = {
	[K_PRED] = "pred", [K_B16] = "b16", [K_B32] = "b32", [K_B64] = "b64",
	[K_F32] = "f32", [K_F64] = "f64",
};

static const char *const kclass_prefix[K_NCLASS] = {
	[K_PRED] = "%p", [K_B16] = "%h", [K_B32] = "%r", [K_B64] = "%rd",
	[K_F32] = "%f", [K_F64] = "%fd", [K_LABEL] = "L",
};

const char *kclass_type(int cls)
{
	assert(cls >= 0 && cls < K_LABEL);
	return kclass_type_name[cls];
}

const char *kclass_spelling(int cls)
{
	assert(cls >= 0 && cls < K_NCLASS);
	return kclass_prefix[cls];
}

/* Decimal digits of v without snprintf: a GEMM kernel prints tens of
 * thousands of numbers, and snprintf was a third of generation time. */
static void put_u64(struct buf *b, uint64_t v)
{
	char num[24];
	size_t i = sizeof num;
	do {
		num[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_put(b, num + i, sizeof num - i);
}

static void put_reg(struct buf *b, uint8_t cls, uint32_t id)
{
	assert(cls < K_NCLASS);
	buf_puts(b, kclass_prefix[cls]);
	put_u64(b, id);
}

static void put_vec(struct buf *b, kreg r)
{
	buf_puts(b, "{");
	for (unsigned i = 0; i < r.n; i++) {
		if (i)
			buf_puts(b, ", ");
		put_reg(b, r.cls, r.id + i);
	}
	buf_puts(b, "}");
}

void vemitf(struct buf *b, const char *fmt, va_list ap)
{
	kreg r;

	char num[32];
	const char *p;

	for (p = fmt; *p; p++) {
		const char *q = strchr(p, '$');
		if (!q) {
			buf_puts(b, p);
			return;
		}
		buf_put(b, p, (size_t)(q - p));
		p = q + 1;
		switch (*p) {
		case 's':
			buf_puts(b, va_arg(ap, const char *));
			break;
		case 'd': {
			int v = va_arg(ap, int);
			if (v < 0)
				buf_put(b, "-", 1);
			put_u64(b, v < 0 ? (uint64_t)0 - (uint64_t)(int64_t)v : (uint64_t)v);
			break;
		}
		case 'u':
			put_u64(b, va_arg(ap, unsigned));
			break;
		case 'x':
			snprintf(num, sizeof num, "0x%x", va_arg(ap, unsigned));
			buf_puts(b, num);
			break;
		case 't':
			buf_puts(b, mmagen_type_name((mmagen_type)va_arg(ap, int)));
			break;
		case 'U':
			put_u64(b, va_arg(ap, uint64_t));
			break;
		case 'X':
			snprintf(num, sizeof num, "0x%016" PRIx64, va_arg(ap, uint64_t));
			buf_puts(b, num);
			break;
		case 'r':
			r = va_arg(ap, kreg);
			/* a run printed as one register is a bug in the caller */
			assert(r.n == 1);
			put_reg(b, r.cls, r.id);
			break;
		case 'v':
			put_vec(b, va_arg(ap, kreg));
			break;
		case '$':
			buf_put(b, "$", 1);
			break;
		default:
			/* An unknown escape is a bug in an emitter, not input. */
			if (!b->err)
				b->err = mmagen_set_error(MMAGEN_INTERNAL,
					"internal: unknown emitf escape '$%c'", *p ? *p : '0');
			return;
		}
	}
}

void emitf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemitf(b, fmt, ap);
	va_end(ap);
}

mmagen_status buf_finish(struct buf *b, char **out, size_t *len)
{
	mmagen_status s = b->err;

	if (!s && !b->data)
		buf_put(b, "", 0);
	s = b->err;
	if (s) {
		buf_free(b);
		return s;
	}
	*out = b->data;
	if (len)
		*len = b->len;
	buf_init(b);
	return MMAGEN_OK;
}
