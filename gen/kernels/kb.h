/* kb.h - the kernel builder: a PTX template (templates/NAME.ptx.in) plus
 * the registers, labels and code that only C can work out.
 *
 * A kernel is written as a template with named slots; the C side fills
 * them.  Registers belong to the builder: kb_reg() hands out a fresh one
 * (or a run of them), emitf's $r/$v print it, and the builder writes every
 * `.reg` line into the template's {{regs}} slot.  No generator spells a
 * register name.
 *
 *	struct kb kb;
 *	kb_init(&kb, "mma_tile");
 *	kreg ga = kb_slot_reg(&kb, "ga", K_B64);   -- {{ga}} in the template
 *	kb_at(&kb, "load");                        -- code below goes to {{load}}
 *	kreg t = kb_reg(&kb, K_B32);
 *	ke(&kb, "\tmov.u32 $r, $u;\n", t, 5u);
 *	kb_flag(&kb, "sparse", f->sparse);         -- {{#if sparse}}
 *	s = kb_render(&kb, out);                   -- strict: see templates/README.md
 *
 * Errors (an unknown emitf escape, code before kb_at, too many slots, out
 * of memory) are recorded and reported once by kb_render, so generators
 * stay straight-line.  kb_set replaces a slot's text.
 */
#ifndef MMAGEN_KB_H
#define MMAGEN_KB_H

#include "emit.h"

#define KB_MAX_SLOTS 128     /* gemm_sm90.ptx.in names 92 */

struct kb_slot {
	const char *name;
	struct buf text;
	int flag;            /* for {{#if name}} */
	uint8_t is_flag;
	uint8_t used;        /* referenced by the template */
};

struct kb {
	const char *tpl;                 /* template name */
	struct kb_slot slot[KB_MAX_SLOTS];
	int nslot;
	struct kb_slot *cur;             /* where ke() writes */
	struct buf sink;                 /* ke() before kb_at: discarded */
	uint32_t nreg[K_NCLASS];         /* registers handed out per class */
	mmagen_status err;
};

void kb_init(struct kb *kb, const char *template_name);
void kb_free(struct kb *kb);

/* Registers: one, or a run of n (printed as a vector with $v). */
kreg kb_reg(struct kb *kb, enum kclass c);
kreg kb_regs(struct kb *kb, enum kclass c, unsigned n);
kreg kb_label(struct kb *kb);
/* Register i of a run. */
kreg kr_at(kreg run, unsigned i);
/* A fresh register whose name fills slot `name`: for templates that
 * spell the registers they share with C ({{ga}}). */
kreg kb_slot_reg(struct kb *kb, const char *name, enum kclass c);

/* Slots: ke() appends formatted text (emitf's escapes) to the slot chosen
 * by kb_at(); kb_set() sets a slot's whole text; kb_flag() sets a flag. */
void kb_at(struct kb *kb, const char *slot);
void ke(struct kb *kb, const char *fmt, ...);
void kb_set(struct kb *kb, const char *slot, const char *fmt, ...);
void kb_flag(struct kb *kb, const char *name, int on);
/* The buffer of the current slot, for writers that take a struct buf
 * (emit_instruction).  Valid until the next kb_* call. */
struct buf *kb_buf(struct kb *kb);

/* Allocate registers for every register operand of `in` (in->op[i].reg),
 * so that emit_instruction() prints them. */
void kb_bind(struct kb *kb, struct instr *in);

/* Render the template with the slots into `out` and free the builder.
 * Fails on an unfilled or unknown slot, a slot the template never names,
 * a malformed {{...}}, or any error recorded while building. */
mmagen_status kb_render(struct kb *kb, struct buf *out);

/* The embedded template `name` (templates.c, generated at build time),
 * or NULL. */
const char *mmagen_template_text(const char *name);

#endif
