/* kb.c - the kernel builder: registers, slots, and the template renderer
 * (the template language is in templates/README.md). */
#include "kb.h"

#include <assert.h>
#include <string.h>

/* A failure that only a bug in mmagen can cause (templates and generators
 * are ours). */
#define KB_BUG MMAGEN_INTERNAL

static void kb_fail(struct kb *kb, mmagen_status s)
{
	if (!kb->err)
		kb->err = s;
}

void kb_init(struct kb *kb, const char *template_name)
{
	memset(kb, 0, sizeof *kb);
	kb->tpl = template_name;
}

void kb_free(struct kb *kb)
{
	for (int i = 0; i < kb->nslot; i++)
		buf_free(&kb->slot[i].text);
	buf_free(&kb->sink);
	kb->nslot = 0;
	kb->cur = NULL;
}

kreg kb_regs(struct kb *kb, enum kclass c, unsigned n)
{
	kreg r = { (uint8_t)c, (uint16_t)n, kb->nreg[c] };
	assert(c < K_NCLASS && n > 0 && n < 65536);
	kb->nreg[c] += n;
	return r;
}

kreg kb_reg(struct kb *kb, enum kclass c)
{
	return kb_regs(kb, c, 1);
}

kreg kb_label(struct kb *kb)
{
	return kb_regs(kb, K_LABEL, 1);
}

kreg kr_at(kreg run, unsigned i)
{
	assert(i < run.n);
	kreg r = { run.cls, 1, run.id + i };
	return r;
}

static struct kb_slot *slot_find(struct kb *kb, const char *name)
{
	for (int i = 0; i < kb->nslot; i++)
		if (!strcmp(kb->slot[i].name, name))
			return &kb->slot[i];
	return NULL;
}

static struct kb_slot *slot_get(struct kb *kb, const char *name)
{
	struct kb_slot *s = slot_find(kb, name);
	if (s)
		return s;
	if (kb->nslot == KB_MAX_SLOTS) {
		kb_fail(kb, mmagen_set_error(KB_BUG,
			"internal: template '%s' has more than %d slots", kb->tpl, KB_MAX_SLOTS));
		return NULL;
	}
	s = &kb->slot[kb->nslot++];
	memset(s, 0, sizeof *s);
	s->name = name;
	buf_init(&s->text);
	return s;
}

void kb_at(struct kb *kb, const char *slot)
{
	kb->cur = slot_get(kb, slot);
}

struct buf *kb_buf(struct kb *kb)
{
	if (!kb->cur) {
		kb_fail(kb, mmagen_set_error(KB_BUG, "internal: code for template '%s' before kb_at",
					     kb->tpl));
		buf_free(&kb->sink);       /* text after a recorded error goes nowhere */
		return &kb->sink;
	}
	return &kb->cur->text;
}

void ke(struct kb *kb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vemitf(kb_buf(kb), fmt, ap);
	va_end(ap);
}

void kb_set(struct kb *kb, const char *slot, const char *fmt, ...)
{
	struct kb_slot *s = slot_get(kb, slot);
	va_list ap;
	if (!s)
		return;
	buf_free(&s->text);
	va_start(ap, fmt);
	vemitf(&s->text, fmt, ap);
	va_end(ap);
}

void kb_flag(struct kb *kb, const char *name, int on)
{
	struct kb_slot *s = slot_get(kb, name);
	if (!s)
		return;
	s->is_flag = 1;
	s->flag = on != 0;
}

kreg kb_slot_reg(struct kb *kb, const char *name, enum kclass c)
{
	kreg r = kb_reg(kb, c);
	kb_set(kb, name, "$r", r);
	return r;
}

static enum kclass class_of(int rtype)
{
	static const uint8_t map[] = {
		[R_B32] = K_B32, [R_F32] = K_F32, [R_F64] = K_F64,
		[R_B64] = K_B64, [R_B16] = K_B16, [R_PRED] = K_PRED,
	};
	assert(rtype >= 0 && (size_t)rtype < ARRAY_SIZE(map));
	return (enum kclass)map[rtype];
}

void kb_bind(struct kb *kb, struct instr *in)
{
	for (int i = 0; i < in->nops; i++) {
		struct operand *o = &in->op[i];
		if (o->kind == OP_VEC)
			o->reg = kb_regs(kb, class_of(o->rtype), o->count);
		else if (o->kind == OP_REG || o->kind == OP_ADDR)
			o->reg = kb_reg(kb, class_of(o->rtype));
	}
}

/* ---- rendering ---- */

struct render {
	struct kb *kb;
	struct buf *out;
	const char *src;
	int depth;            /* open {{#if}} blocks */
	int off_depth;        /* depth at which output went off; 0: on */
	int had_else[16];
};

static mmagen_status tpl_error(struct render *r, const char *at, const char *what,
			       const char *name, size_t len)
{
	unsigned line = 1;
	for (const char *p = r->src; p < at; p++)
		line += *p == '\n';
	return mmagen_set_error(KB_BUG, "internal: template %s.ptx.in line %u: %s '%.*s'",
				r->kb->tpl, line, what, (int)len, name);
}

static int valid_name(const char *p, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return 0;
	return 1;
}

static struct kb_slot *slot_named(struct kb *kb, const char *p, size_t n)
{
	for (int i = 0; i < kb->nslot; i++)
		if (strlen(kb->slot[i].name) == n && !memcmp(kb->slot[i].name, p, n))
			return &kb->slot[i];
	return NULL;
}

/* One {{tag}} (body p, length n) at `at`. */
static mmagen_status do_tag(struct render *r, const char *at, const char *p, size_t n)
{
	int on = r->off_depth == 0;
	if (n && p[0] == '!')
		return MMAGEN_OK;                          /* comment */
	if (n > 4 && !memcmp(p, "#if ", 4)) {
		int neg = p[4] == '!';
		const char *nm = p + 4 + neg;
		size_t nl = n - 4 - (size_t)neg;
		struct kb_slot *s = slot_named(r->kb, nm, nl);
		if (!valid_name(nm, nl))
			return tpl_error(r, at, "bad flag name", nm, nl);
		if (!s || !s->is_flag)
			return tpl_error(r, at, "flag not set", nm, nl);
		s->used = 1;
		if (r->depth == (int)ARRAY_SIZE(r->had_else))
			return tpl_error(r, at, "{{#if}} nested too deep at", nm, nl);
		r->had_else[r->depth++] = 0;
		if (on && s->flag == neg)
			r->off_depth = r->depth;
		return MMAGEN_OK;
	}
	if (n == 5 && !memcmp(p, "#else", 5)) {
		if (!r->depth || r->had_else[r->depth - 1])
			return tpl_error(r, at, "stray", p, n);
		r->had_else[r->depth - 1] = 1;
		if (r->off_depth == r->depth)
			r->off_depth = 0;
		else if (r->off_depth == 0)
			r->off_depth = r->depth;
		return MMAGEN_OK;
	}
	if (n == 3 && !memcmp(p, "/if", 3)) {
		if (!r->depth)
			return tpl_error(r, at, "stray", p, n);
		if (r->off_depth == r->depth)
			r->off_depth = 0;
		r->depth--;
		return MMAGEN_OK;
	}
	if (!valid_name(p, n))
		return tpl_error(r, at, "unknown directive", p, n);
	struct kb_slot *s = slot_named(r->kb, p, n);
	if (!on && !s)
		return MMAGEN_OK;     /* a branch not taken may name unset slots */
	if (!s || s->is_flag)
		return tpl_error(r, at, "slot not filled", p, n);
	s->used = 1;
	if (on && s->text.len)
		buf_puts(r->out, s->text.data);
	return MMAGEN_OK;
}

static mmagen_status render(struct render *r)
{
	const char *p = r->src;
	mmagen_status s;

	while (*p) {
		const char *open = strstr(p, "{{");
		if (!open) {
			if (!r->off_depth)
				buf_puts(r->out, p);
			break;
		}
		/* `{{{x}}`: a `{` of text (a PTX vector), then the tag */
		while (open[2] == '{')
			open++;
		const char *close = strstr(open + 2, "}}");
		if (!close)
			return tpl_error(r, open, "unclosed", "{{", 2);
		/* A tag alone on its line takes the whole line with it. */
		const char *bol = open;
		while (bol > r->src && (bol[-1] == ' ' || bol[-1] == '\t'))
			bol--;
		int alone = (bol == r->src || bol[-1] == '\n') &&
			    (close[2] == '\n' || close[2] == '\0');
		const char *text_end = alone ? bol : open;
		if (!r->off_depth && text_end > p) {
			struct buf *o = r->out;
			size_t len = (size_t)(text_end - p);
			char tmp[256];
			while (len) {    /* buf_puts wants NUL-terminated pieces */
				size_t k = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
				memcpy(tmp, p, k);
				tmp[k] = '\0';
				buf_puts(o, tmp);
				p += k;
				len -= k;
			}
		}
		if ((s = do_tag(r, open, open + 2, (size_t)(close - open - 2))))
			return s;
		p = close + 2;
		if (alone && *p == '\n')
			p++;
	}
	if (r->depth)
		return tpl_error(r, p, "unclosed", "{{#if}}", 7);
	return MMAGEN_OK;
}

/* The {{regs}} slot: one parameterised .reg line per class used. */
static void fill_regs(struct kb *kb)
{
	struct kb_slot *s = slot_get(kb, "regs");
	if (!s)
		return;
	buf_free(&s->text);
	for (int c = 0; c < K_LABEL; c++)
		if (kb->nreg[c])
			emitf(&s->text, "\t.reg .$s $s<$u>;\n", kclass_type(c), kclass_spelling(c),
			      (unsigned)kb->nreg[c]);
}

mmagen_status kb_render(struct kb *kb, struct buf *out)
{
	struct render r = { .kb = kb, .out = out };
	mmagen_status s = kb->err;

	r.src = mmagen_template_text(kb->tpl);
	if (!s && !r.src)
		s = mmagen_set_error(KB_BUG, "internal: no template named '%s'", kb->tpl);
	for (int i = 0; !s && i < kb->nslot; i++)
		s = kb->slot[i].text.err;
	if (!s) {
		fill_regs(kb);
		struct kb_slot *regs = slot_find(kb, "regs");
		s = kb->err ? kb->err : regs && regs->text.err ? regs->text.err : render(&r);
	}
	for (int i = 0; !s && i < kb->nslot; i++)
		if (!kb->slot[i].used)
			s = mmagen_set_error(KB_BUG,
				"internal: template %s.ptx.in has no {{%s}} for a slot that was set",
				kb->tpl, kb->slot[i].name);
	if (!s)
		s = out->err;
	kb_free(kb);
	return s;
}
