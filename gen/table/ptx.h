/* ptx.h - a growable text buffer and the emitf() writer.
 *
 * emitf's escape language ('$' is free in the PTX we write; '%' is taken by
 * register names):
 *   $s  const char *        $d  int            $u  unsigned
 *   $x  unsigned, as 0x..   $t  mmagen_type, its PTX name ("bf16")
 *   $U  uint64_t            $X  uint64_t, as 0x and 16 hex digits
 *   $r  kreg, one register or label of a kernel builder (kb.h): "%r7"
 *   $v  kreg, a run of registers as a PTX vector: "{%r4, %r5, %r6}"
 *   $$  a literal '$'
 * Any other character after '$' is a bug: the buffer records the first
 * error and keeps it, so emitters stay straight-line and check once at the
 * end (buf_finish).
 */
#ifndef MMAGEN_PTX_H
#define MMAGEN_PTX_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* A register, a run of registers or a label, as a kernel builder (kb.h)
 * hands them out: `n` registers of class `cls` numbered from `id`.  Only
 * the builder makes them; emitf prints them with $r and $v. */
enum kclass { K_PRED, K_B16, K_B32, K_B64, K_F32, K_F64, K_LABEL, K_NCLASS };
typedef struct kreg {
	uint8_t cls;     /* enum kclass */
	uint16_t n;      /* registers in the run; 0: none */
	uint32_t id;     /* number of the first */
} kreg;

/* A register class's PTX type ("b32") and register prefix ("%r"; labels
 * "L"): the one table, used by emitf's $r/$v and the builder's .reg lines. */
const char *kclass_type(int cls);
const char *kclass_spelling(int cls);

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
