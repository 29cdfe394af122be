/* ptx.h - a growable text buffer and the emitf() writer.
 *
 * emitf's escape language ('$' is free in the PTX we write; '%' is taken by
 * register names):
 *   $s  const char *        $d  int            $u  unsigned
 *   $x  unsigned, as 0x..   $t  mmagen_type, its PTX name ("bf16")
 *   $$  a literal '$'
 * Any other character after '$' is a bug: the buffer records the first
 * error and keeps it, so emitters stay straight-line and check once at the
 * end (buf_finish).
 */
#ifndef MMAGEN_PTX_H
#define MMAGEN_PTX_H

#include "internal.h"

#include <stddef.h>

struct buf {
	char *data;
	size_t len, cap;
	mmagen_status err;   /* first failure, MMAGEN_OK if none */
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_puts(struct buf *b, const char *s);
void emitf(struct buf *b, const char *fmt, ...);
void vemitf(struct buf *b, const char *fmt, va_list ap);
/* Hand the text to the caller (NUL-terminated) or fail with the first
 * recorded error; the buffer is empty afterwards either way. */
mmagen_status buf_finish(struct buf *b, char **out, size_t *len);

#endif
