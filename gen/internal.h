/* internal.h - shared by the library's own files; not installed. */
#ifndef MMAGEN_INTERNAL_H
#define MMAGEN_INTERNAL_H

#include "mmagen.h"

#include <stdarg.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define MMAGEN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MMAGEN_PRINTF(f, a)
#endif

/* Record a failure for mmagen_last_error() and return s, so that callers
 * can write `return mmagen_set_error(MMAGEN_UNKNOWN_NAME, "...", ...);`. */
mmagen_status mmagen_set_error(mmagen_status s, const char *fmt, ...)
	MMAGEN_PRINTF(2, 3);

/* Caller's text in a message: s in single quotes, bytes outside printable
 * ASCII, ' and \ as \xNN, cut after ERR_QUOTE_MAX bytes ("..." follows),
 * into buf (ERR_QUOTE_SIZE bytes); returns buf.  The message stays one
 * line whatever the caller passed, and reads as the command line's own
 * quoting (cli_quote) does, so that messages it passes on are unchanged. */
#define ERR_QUOTE_MAX 200
#define ERR_QUOTE_SIZE (4 * ERR_QUOTE_MAX + 8)
const char *err_quote(const char *s, char *buf);

/* Classes of element types, the type table's (types.c) class column;
 * mmagen_type_class(t) is their union for t (0 for none or a t out of
 * range). */
#define TYPE_FLOAT (1u << 0)  /* a floating format: f64 .. e2m1, ue8m0, ue4m3 */
#define TYPE_INT   (1u << 1)  /* an integer: s32, s8, u8, s4, u4 (not b1) */
#define TYPE_FP8   (1u << 2)  /* e4m3, e5m2: the 8-bit floats MMA multiplies */
#define TYPE_FP6   (1u << 3)  /* e3m2, e2m3 */
#define TYPE_FP4   (1u << 4)  /* e2m1 */
#define TYPE_SCALE (1u << 5)  /* ue8m0, ue4m3: block scale factors only */
#define TYPE_SUB   (1u << 6)  /* narrower than a byte: FP6, FP4, s4, u4, b1 */
unsigned mmagen_type_class(mmagen_type t);

/* The first legality rule (rules.def) that request r breaks: its message
 * (may contain one %s for the target) and name, or NULL. */
const char *mmagen_rule_broken(const mmagen_request *r, const char **name);

/* Bits one element of type t takes in a register of form f: 8 for FP6/FP4
 * under kind::f8f6f4 and kind::mxf8f6f4 (padded containers), otherwise
 * the type's width (layout.c). */
unsigned form_container_bits(const mmagen_form *f, mmagen_type t);
/* Registers per thread holding `elems` elements of `elem_bits` bits of
 * type t: 32-bit registers, f64 one per element; at least 1 (layout.c). */
unsigned frag_regs(unsigned elems, unsigned elem_bits, mmagen_type t);

/* Sparsity granule of an mma.sp form: elements per group along K, how many
 * are kept, and the unit kept together (1, or 2 for 4:8 pairs). */
int mmagen_sparse_granule(const mmagen_form *f, unsigned *group, unsigned *keep,
			  unsigned *unit);

/* tcgen05 .sp metadata in Tensor Memory (sparse.c): a row's metadata in
 * 16-bit pieces (2 for kind::f16/tf32, else 4), and the table of which
 * piece each 16-bit slot of each lane's metadata columns holds:
 * tab[lane * pieces + slot] = row * pieces + piece (rows of this CTA), or
 * TC_META_NONE; TC_LANES * pieces entries.  MMAGEN_UNSUPPORTED where no
 * layout is known. */
#define TC_LANES 128u
#define TC_META_NONE 0xFFFFFFFFu
unsigned tc_meta_pieces(const mmagen_form *f);
mmagen_status tc_meta_table(const mmagen_form *f, unsigned rows, uint32_t *tab);

/* Why ptxas emulates form f on target t (no native tensor instruction in
 * its SASS: quant.def's EMULATED rows, measured on the H200), or NULL
 * (plan.c). */
const char *mmagen_form_emulated(const mmagen_form *f, int t);

#endif
