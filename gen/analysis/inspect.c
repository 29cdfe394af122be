/* inspect.c - what tensor-core instructions an artifact holds (PTX scan),
 * what the GPU runs for them (SASS classifier), and a verdict per kernel.
 *
 * The PTX scanner reads text of any size and content: it strips comments,
 * follows braces to know which .entry/.func an instruction belongs to
 * (braces after an opcode are register vectors, not scopes), and
 * classifies each MMA opcode through the form table (the same opcodes
 * `list --opcodes` prints); an opcode the table lacks is described from
 * its own tokens.  The SASS classifier reads nvdisasm's or cuobjdump's
 * text: the mnemonic table below says which SASS instructions are tensor
 * core ones and how their type suffixes read.  The containers (ELF,
 * fatbinary) are read by gen/analysis/elf.c. */
#define _POSIX_C_SOURCE 200809L
#include "inspect.h"
#include "ptx.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the SASS tensor-core mnemonics ----
 * base      the mnemonic up to its first '.'
 * group     the PTX family that maps to it natively: mma (mma.sync and
 *           mma.sp), wgmma, tcgen05
 * acc       1: the first type suffix is the accumulator, the next ones A
 *           and B (HMMA.16816.F32.BF16); 0: the suffixes are A and B
 *           (IMMA.16832.S8.S8)
 * deftype   A's type when no suffix names it (HMMA.16816.F32: f16)
 * kinds     tcgen05: the kinds it runs (types live in the descriptor) */
enum { G_NONE, G_MMA, G_WGMMA, G_TC };

static const struct sass_tc {
	const char *base;
	int group, acc;
	mmagen_type deftype;
	const char *kinds;
} sass_tc[] = {
	{ "HMMA", G_MMA, 1, MMAGEN_F16, NULL },
	{ "QMMA", G_MMA, 1, MMAGEN_TYPE_NONE, NULL },
	{ "OMMA", G_MMA, 1, MMAGEN_TYPE_NONE, NULL },
	{ "IMMA", G_MMA, 0, MMAGEN_TYPE_NONE, NULL },
	{ "DMMA", G_MMA, 0, MMAGEN_F64, NULL },
	{ "BMMA", G_MMA, 0, MMAGEN_B1, NULL },
	{ "HGMMA", G_WGMMA, 1, MMAGEN_F16, NULL },
	{ "QGMMA", G_WGMMA, 1, MMAGEN_TYPE_NONE, NULL },
	{ "IGMMA", G_WGMMA, 0, MMAGEN_TYPE_NONE, NULL },
	{ "BGMMA", G_WGMMA, 0, MMAGEN_B1, NULL },
	{ "UTCHMMA", G_TC, 0, MMAGEN_TYPE_NONE, " f16 tf32 " },
	{ "UTCQMMA", G_TC, 0, MMAGEN_TYPE_NONE, " f8f6f4 mxf8f6f4 " },
	{ "UTCIMMA", G_TC, 0, MMAGEN_TYPE_NONE, " i8 " },
	{ "UTCOMMA", G_TC, 0, MMAGEN_TYPE_NONE, " mxf4 mxf4nvf4 " },
};

/* SASS conversions that widen MMA inputs (F2FP.F16.E4M3.UNPACK_B, I2F, ...) */
static int sass_is_convert(const char *m)
{
	return (!strncmp(m, "F2FP.", 5) && strstr(m, "UNPACK")) ||
	       !strncmp(m, "I2F", 3) || !strncmp(m, "F2F.", 4) ||
	       !strncmp(m, "I2I", 3);
}

#define MAX_OPS_PER_KERNEL 1024  /* distinct ones; hostile input stays linear */

struct mmagen_inspect {
	uint8_t *copy;
	size_t len;
	mmagen_inspect_image *img;
	size_t nimg, cimg;
	mmagen_inspect_op *op;
	size_t nop, cop;
	mmagen_inspect_verdict *vd;
	size_t nvd, cvd;
	const char **note;
	size_t nnote, cnote;
	char **str;              /* every string the report owns */
	size_t nstr, cstr;
	int oom;
	int truncated;           /* a kernel had more than MAX_OPS_PER_KERNEL */
	size_t kernel_first_op;  /* the PTX scan's current kernel's first op */
};

/* Grow array *p of *cap elements of `size` to hold n + 1. */
static int grow(mmagen_inspect *r, void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *q = realloc(*p, c * size);
	if (!q) {
		r->oom = 1;
		return -1;
	}
	*p = q;
	*cap = c;
	return 0;
}
#define GROW(r, arr, n, cap) grow((r), (void **)&(r)->arr, &(r)->cap, (r)->n, sizeof *(r)->arr)

/* A copy of s[0..n) that the report owns; "" when memory runs out. */
static const char *keep(mmagen_inspect *r, const char *s, size_t n)
{
	char *c;
	if (GROW(r, str, nstr, cstr) || !(c = malloc(n + 1))) {
		r->oom = 1;
		return "";
	}
	memcpy(c, s, n);
	c[n] = '\0';
	r->str[r->nstr++] = c;
	return c;
}

static const char *keeps(mmagen_inspect *r, const char *s)
{
	return keep(r, s, strlen(s));
}

/* ---- the opcode index: every form's opcode, sorted ---- */
struct opidx { char *op; size_t form; };
static struct opidx *opidx;
static size_t nopidx;
static pthread_once_t opidx_once = PTHREAD_ONCE_INIT;

static int opidx_cmp(const void *a, const void *b)
{
	const struct opidx *x = a, *y = b;
	int c = strcmp(x->op, y->op);
	return c ? c : (x->form > y->form) - (x->form < y->form);
}

static void opidx_build(void)
{
	size_t n = mmagen_form_count();
	char buf[256];

	opidx = calloc(n ? n : 1, sizeof *opidx);
	if (!opidx)
		return;
	for (size_t i = 0; i < n; i++) {
		mmagen_form_opcode(mmagen_form_at(i), buf, sizeof buf);
		if (!(opidx[nopidx].op = strdup(buf)))
			break;
		opidx[nopidx++].form = i;
	}
	qsort(opidx, nopidx, sizeof *opidx, opidx_cmp);
}

/* The first form (in table order) whose opcode is s, or NULL. */
static const mmagen_form *form_of_opcode(const char *s)
{
	size_t lo = 0, hi;

	pthread_once(&opidx_once, opidx_build);
	hi = nopidx;
	while (lo < hi) {               /* the first entry >= s */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(opidx[mid].op, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nopidx && !strcmp(opidx[lo].op, s) ? mmagen_form_at(opidx[lo].form) : NULL;
}

/* ---- recording ---- */

static mmagen_inspect_op *add_op(mmagen_inspect *r, size_t from, const char *kernel,
				 const char *target, const char *text, int sass,
				 const char *helper, int *fresh)
{
	size_t distinct = 0;

	*fresh = 0;
	for (size_t i = from; i < r->nop; i++) {
		mmagen_inspect_op *o = &r->op[i];
		if (strcmp(o->kernel, kernel) || o->sass != sass)
			continue;
		distinct++;
		if (!strcmp(o->text, text) && !strcmp(o->target, target) &&
		    (o->helper == helper || (o->helper && helper && !strcmp(o->helper, helper)))) {
			o->count++;
			return o;
		}
	}
	if (distinct >= MAX_OPS_PER_KERNEL) {
		r->truncated = 1;
		return NULL;
	}
	if (GROW(r, op, nop, cop))
		return NULL;
	mmagen_inspect_op *o = &r->op[r->nop++];
	memset(o, 0, sizeof *o);
	o->kernel = kernel;
	o->target = target;
	o->text = keeps(r, text);
	o->family = o->shape = o->kind = "";
	o->sass = (uint8_t)sass;
	o->helper = helper;
	o->count = 1;
	*fresh = 1;
	return o;
}

/* ---- PTX: one opcode's fields ---- */

static int is_shape(const char *t)
{
	return (t[0] == 'm' && strchr(t, 'n') && strchr(t, 'k')) ||
	       (t[0] == 'k' && t[1] >= '0' && t[1] <= '9');
}

/* Fields from the opcode's own tokens (an opcode the table lacks). */
static void ptx_fields_from_tokens(mmagen_inspect *r, mmagen_inspect_op *o)
{
	char buf[256], *save = NULL, *t;
	mmagen_type ty[5];
	unsigned nt = 0;
	int sp = 0, wg = !strncmp(o->text, "wgmma", 5), tc = !strncmp(o->text, "tcgen05", 7);

	snprintf(buf, sizeof buf, "%s", o->text);
	for (t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
		mmagen_type x;
		if (!strcmp(t, "sp") || !strncmp(t, "sp::", 4))
			sp = 1;
		else if (!strncmp(t, "kind::", 6))
			o->kind = keeps(r, t + 6);
		else if (!strcmp(t, "block_scale"))
			o->block_scale = 1;
		else if (is_shape(t) && !*o->shape)
			o->shape = keeps(r, t);
		else if (nt < 5 && !tc && !mmagen_type_parse(t, &x) && mmagen_type_bits(x) &&
			 strcmp(t, "row") && strcmp(t, "col"))
			ty[nt++] = x;
	}
	o->sparse = (uint8_t)sp;
	if (!strncmp(o->text, "mma", 3))
		o->family = sp ? "mma.sp" : "mma.sync";
	else if (wg)
		o->family = sp ? "wgmma.sp" : "wgmma";
	else if (tc)
		o->family = sp ? "tcgen05.mma.sp" : "tcgen05.mma";
	else
		o->family = !strncmp(o->text, "ldmatrix", 8) ? "ldmatrix" : "stmatrix";
	/* mma: D, A, B, C (and the scale type); wgmma: D, A, B */
	if (nt >= 3 && (o->family[0] == 'm' || wg)) {
		o->d = (uint8_t)ty[0], o->a = (uint8_t)ty[1], o->b = (uint8_t)ty[2];
		o->c = (uint8_t)(nt >= 4 && !wg ? ty[3] : ty[0]);
	}
}

static void ptx_fields(mmagen_inspect *r, mmagen_inspect_op *o)
{
	char buf[256], shape[64];
	const mmagen_form *f = form_of_opcode(o->text);
	const char *p;

	/* hints that do not change the arithmetic are not in the table */
	if (!f && (p = strstr(o->text, ".collector::"))) {
		snprintf(buf, sizeof buf, "%.*s", (int)(p - o->text), o->text);
		f = form_of_opcode(buf);
	}
	if (!f) {
		ptx_fields_from_tokens(r, o);
		return;
	}
	o->form = f;
	o->family = mmagen_form_family_label(f);
	mmagen_form_shape(f, shape, sizeof shape);
	o->shape = keeps(r, shape);
	if (f->kind)
		o->kind = mmagen_qual_name(MMAGEN_Q_KIND, f->kind);
	if (!o->kind)
		o->kind = "";
	o->sparse = f->sparse != 0;
	o->block_scale = f->block_scale;
	if (f->family != MMAGEN_FAM_TCGEN05) {  /* tcgen05: in the descriptor */
		o->a = f->a, o->b = f->b, o->c = f->c, o->d = f->d;
	}
}

static int is_mma_opcode(const char *s)
{
	return !strncmp(s, "mma.", 4) || !strncmp(s, "wgmma.mma_async", 15) ||
	       !strncmp(s, "tcgen05.mma", 11) || !strncmp(s, "ldmatrix", 8) ||
	       !strncmp(s, "stmatrix", 8);
}

/* ---- PTX scanner ---- */

struct ptx_scan {
	mmagen_inspect *r;
	mmagen_inspect_image *img;
	int depth;               /* scope braces */
	int vdepth;              /* vector braces inside a statement */
	const char *fn;          /* the function whose body we are in */
	/* depth 0: the words of directives */
	int state;               /* see top_word */
	int parens;
	char name[256];
	/* inside a body: the start of the statement */
	char st[256];
	size_t sl;
	int st_full;
};

enum { S_IDLE, S_TARGET, S_ENTRY, S_FUNC, S_FUNC_RET, S_NAMED };

static void top_word(struct ptx_scan *s, const char *w, size_t n)
{
	switch (s->state) {
	case S_TARGET:
		if (!*s->img->target || !strcmp(s->img->target, "?"))
			s->img->target = keep(s->r, w, n);
		s->state = S_IDLE;
		return;
	case S_ENTRY:
	case S_FUNC:
		snprintf(s->name, sizeof s->name, "%.*s", (int)n, w);
		s->state = S_NAMED;
		return;
	case S_FUNC_RET:
		return;
	}
	if (n == 7 && !memcmp(w, ".target", 7))
		s->state = S_TARGET;
	else if (n == 6 && !memcmp(w, ".entry", 6))
		s->state = S_ENTRY;
	else if (n == 5 && !memcmp(w, ".func", 5))
		s->state = S_FUNC;
}

static void top_punct(struct ptx_scan *s, char c)
{
	if (c == '(' && (s->state == S_FUNC || s->state == S_FUNC_RET)) {
		s->state = S_FUNC_RET;
		s->parens++;
	} else if (c == ')' && s->state == S_FUNC_RET && !--s->parens) {
		s->state = S_FUNC;
	} else if (c == ';') {
		s->state = S_IDLE;       /* a declaration: no body */
		s->parens = 0;
	}
}

static void stmt_end(struct ptx_scan *s)
{
	char *p = s->st, *op;
	size_t n;

	s->st[s->sl] = '\0';
	s->sl = 0;
	s->st_full = 0;
	/* labels ("$L__BB0_2:") and a guard predicate ("@!%p1") */
	for (;;) {
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n && p[n - 1] == ':' && (n < 2 || p[n - 2] != ':'))
			p += n;
		else if (*p == '@')
			p += n;
		else
			break;
	}
	op = p;
	op[strcspn(op, " ")] = '\0';
	if (s->fn && is_mma_opcode(op)) {
		int fresh;
		mmagen_inspect_op *o = add_op(s->r, s->r->kernel_first_op, s->fn, "", op, 0, NULL,
					      &fresh);
		if (o && fresh)
			ptx_fields(s->r, o);
	}
}

static void st_put(struct ptx_scan *s, char c)
{
	if (c == ' ' && (!s->sl || s->st[s->sl - 1] == ' '))
		return;
	if (s->sl + 1 < sizeof s->st)
		s->st[s->sl++] = c;
}

static int word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '%' || c == ':';
}

static void scan_ptx(mmagen_inspect *r, mmagen_inspect_image *img)
{
	const char *t = (const char *)img->data;
	size_t n = img->len, i = 0;
	struct ptx_scan s;

	memset(&s, 0, sizeof s);
	s.r = r;
	s.img = img;
	while (i < n) {
		unsigned char c = (unsigned char)t[i];
		if (c == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				i++;
			c = ' ';
		} else if (c == '/' && i + 1 < n && t[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(t[i] == '*' && t[i + 1] == '/'); i++)
				;
			i += 2;
			c = ' ';
		} else if (c == '"') {               /* strings: skipped whole */
			for (i++; i < n && t[i] != '"' && t[i] != '\n'; i++)
				;
			i++;
			c = ' ';
		} else {
			i++;
		}
		if (c == '\n' || c == '\t' || c == '\r' || c == 0)
			c = ' ';
		if (s.depth == 0) {
			if (word_char(c)) {
				size_t b = i - 1, e = i;
				while (e < n && word_char((unsigned char)t[e]))
					e++;
				top_word(&s, t + b, e - b);
				i = e;
			} else if (c == '{') {
				s.depth = 1;
				s.sl = 0;
				s.fn = s.state == S_NAMED ? keeps(r, s.name) : NULL;
				s.state = S_IDLE;
				r->kernel_first_op = r->nop;
			} else {
				top_punct(&s, (char)c);
			}
			continue;
		}
		if (c == '{' && !s.sl) {
			s.depth++;
		} else if (c == '{') {
			s.vdepth++;
			st_put(&s, '{');
		} else if (c == '}' && s.vdepth) {
			s.vdepth--;
			st_put(&s, '}');
		} else if (c == '}') {
			s.sl = 0;
			if (!--s.depth)
				s.fn = NULL;
		} else if (c == ';') {
			s.vdepth = 0;
			stmt_end(&s);
		} else {
			st_put(&s, (char)c);
		}
	}
}

/* ---- images ---- */

static mmagen_inspect_image *add_image(mmagen_inspect *r, int kind, unsigned sm,
				       const char *where, const uint8_t *data, size_t len)
{
	if (GROW(r, img, nimg, cimg))
		return NULL;
	mmagen_inspect_image *im = &r->img[r->nimg++];
	memset(im, 0, sizeof *im);
	im->kind = kind;
	im->sm = sm;
	im->target = im->note = "";
	im->where = keeps(r, where);
	im->data = data;
	im->len = len;
	return im;
}

struct fb_ctx {
	mmagen_inspect *r;
	const char *section;
	unsigned n;
};

static void fatbin_entry(void *ctx, const struct fatbin_entry *e)
{
	struct fb_ctx *c = ctx;
	char where[160], note[160];
	int kind = e->kind == 1 ? MMAGEN_IMG_PTX : e->kind == 2 ? MMAGEN_IMG_CUBIN : 0;
	mmagen_inspect_image *im;

	snprintf(where, sizeof where, "fatbin entry %u%s%s", ++c->n,
		 c->section ? " in " : "", c->section ? c->section : "");
	if (e->compressed || !kind) {
		im = add_image(c->r, MMAGEN_IMG_UNREAD, e->sm, where, e->data, e->len);
		if (!im)
			return;
		if (e->compressed)
			snprintf(note, sizeof note, "%s for sm_%u compressed with %s: not read "
				 "(nvcc -Xfatbin -compress=false keeps it plain; cuobjdump reads it)",
				 kind == MMAGEN_IMG_PTX ? "PTX" : "cubin", e->sm, e->compressed);
		else
			snprintf(note, sizeof note, "unknown entry kind %u: not read", e->kind);
		im->note = keeps(c->r, note);
		return;
	}
	im = add_image(c->r, kind, e->sm, where, e->data, e->len);
	if (im && kind == MMAGEN_IMG_CUBIN) {
		struct elf_view ev;
		char why[160];
		if (elf_open(e->data, e->len, &ev, why, sizeof why) || ev.machine != ELF_EM_CUDA) {
			im->kind = MMAGEN_IMG_UNREAD;
			im->note = keeps(c->r, "the entry is not a CUDA ELF file");
		}
	}
}

static void read_fatbin(mmagen_inspect *r, const uint8_t *p, size_t n, const char *section)
{
	struct fb_ctx c = { r, section, 0 };
	char why[200], line[300];

	if (fatbin_walk(p, n, fatbin_entry, &c, why, sizeof why) < 0) {
		snprintf(line, sizeof line, "%s%s%s", section ? section : "", section ? ": " : "", why);
		mmagen_inspect_add_note(r, line);
	}
}

static mmagen_status read_elf(mmagen_inspect *r)
{
	struct elf_view e;
	char why[200];
	int found = 0;

	if (elf_open(r->copy, r->len, &e, why, sizeof why))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s", why);
	if (e.machine == ELF_EM_CUDA) {
		add_image(r, MMAGEN_IMG_CUBIN, elf_cuda_sm(&e), "file", r->copy, r->len);
		return 0;
	}
	for (unsigned i = 0; i < e.shnum; i++) {
		const char *name;
		const uint8_t *d;
		size_t n;
		elf_section(&e, i, &name, &d, &n);
		if (strcmp(name, ".nv_fatbin") && strcmp(name, "__nv_relfatbin"))
			continue;
		found = 1;
		if (d)
			read_fatbin(r, d, n, name);
		else
			mmagen_inspect_add_note(r, "a .nv_fatbin section lies outside the file");
	}
	if (!found)
		mmagen_inspect_add_note(r, "no .nv_fatbin section: this ELF file holds no GPU code");
	return 0;
}

static int looks_like_ptx(const uint8_t *p, size_t n)
{
	static const char *const keys[] = { ".version", ".target", ".entry", ".func" };
	size_t m = n < 65536 ? n : 65536;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		size_t kl = strlen(keys[k]);
		for (size_t i = 0; i + kl <= m; i++)
			if (p[i] == '.' && !memcmp(p + i, keys[k], kl))
				return 1;
	}
	return 0;
}

mmagen_status mmagen_inspect_buffer(const void *data, size_t len, mmagen_inspect **out)
{
	mmagen_inspect *r;
	mmagen_status s = MMAGEN_OK;

	if (!out || (!data && len))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_inspect_buffer: NULL argument");
	*out = NULL;
	if (!(r = calloc(1, sizeof *r)) || !(r->copy = malloc(len ? len : 1))) {
		free(r);
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	}
	if (len)
		memcpy(r->copy, data, len);
	r->len = len;
	if (len >= 4 && !memcmp(r->copy, "\177ELF", 4)) {
		s = read_elf(r);
	} else if (len >= 4 && (r->copy[0] | r->copy[1] << 8 | r->copy[2] << 16 |
				(uint32_t)r->copy[3] << 24) == FATBIN_MAGIC) {
		read_fatbin(r, r->copy, len, NULL);
		/* a fatbinary magic with nothing readable behind it is not a
		 * fatbinary to report on: say why, as for any other file */
		if (!r->nimg)
			s = mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "a fatbinary magic, but %s",
					     r->nnote ? r->note[r->nnote - 1] : "no entry in it");
	} else if (looks_like_ptx(r->copy, len)) {
		mmagen_inspect_image *im = add_image(r, MMAGEN_IMG_PTX, 0, "file", r->copy, len);
		(void)im;
	} else {
		s = mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "not PTX, an ELF file or a fatbinary "
				     "(no .version/.entry, no ELF or fatbinary magic)");
	}
	/* scan every PTX text found */
	for (size_t i = 0; !s && i < r->nimg; i++)
		if (r->img[i].kind == MMAGEN_IMG_PTX) {
			scan_ptx(r, &r->img[i]);
			if (r->img[i].target[0] == 's' && !r->img[i].sm)
				r->img[i].sm = (unsigned)strtoul(r->img[i].target + 3, NULL, 10);
		}
	if (!s && r->truncated)
		mmagen_inspect_add_note(r, "a kernel has more than 1024 distinct MMA opcodes; the rest are not listed");
	if (!s && r->oom)
		s = mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	if (s) {
		mmagen_inspect_free(r);
		return s;
	}
	*out = r;
	return MMAGEN_OK;
}

void mmagen_inspect_free(mmagen_inspect *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nstr; i++)
		free(r->str[i]);
	free(r->str);
	free(r->img);
	free(r->op);
	free(r->vd);
	free(r->note);
	free(r->copy);
	free(r);
}

mmagen_status mmagen_inspect_add_ptx(mmagen_inspect *r, const char *where,
				     const char *text, size_t len)
{
	mmagen_inspect_image *im;
	const char *copy;

	if (!r || !where || (!text && len))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_inspect_add_ptx: NULL argument");
	copy = keep(r, text ? text : "", len);
	if (!r->oom && (im = add_image(r, MMAGEN_IMG_PTX, 0, where, (const uint8_t *)copy, len))) {
		scan_ptx(r, im);
		if (im->target[0] == 's')
			im->sm = (unsigned)strtoul(im->target + 3, NULL, 10);
	}
	return r->oom ? mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory") : MMAGEN_OK;
}

mmagen_status mmagen_inspect_add_note(mmagen_inspect *r, const char *line)
{
	if (!r || !line)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_inspect_add_note: NULL argument");
	if (GROW(r, note, nnote, cnote))
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	r->note[r->nnote++] = keeps(r, line);
	return r->oom ? mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory") : MMAGEN_OK;
}

size_t mmagen_inspect_image_count(const mmagen_inspect *r) { return r ? r->nimg : 0; }
size_t mmagen_inspect_op_count(const mmagen_inspect *r) { return r ? r->nop : 0; }
size_t mmagen_inspect_verdict_count(const mmagen_inspect *r) { return r ? r->nvd : 0; }

const mmagen_inspect_image *mmagen_inspect_image_at(const mmagen_inspect *r, size_t i)
{
	return r && i < r->nimg ? &r->img[i] : NULL;
}

const mmagen_inspect_op *mmagen_inspect_op_at(const mmagen_inspect *r, size_t i)
{
	return r && i < r->nop ? &r->op[i] : NULL;
}

const mmagen_inspect_verdict *mmagen_inspect_verdict_at(const mmagen_inspect *r, size_t i)
{
	return r && i < r->nvd ? &r->vd[i] : NULL;
}

const char *mmagen_inspect_verdict_name(unsigned v)
{
	static const char *const names[] = { "unknown", "native", "converted", "emulated" };
	return v < ARRAY_SIZE(names) ? names[v] : "unknown";
}

/* ---- SASS ---- */

static const struct sass_tc *sass_tc_of(const char *m)
{
	size_t n = strcspn(m, ".");
	for (size_t i = 0; i < ARRAY_SIZE(sass_tc); i++)
		if (strlen(sass_tc[i].base) == n && !strncmp(m, sass_tc[i].base, n))
			return &sass_tc[i];
	return NULL;
}

/* Fill a SASS op's fields from its mnemonic. */
static void sass_fields(mmagen_inspect *r, mmagen_inspect_op *o, const struct sass_tc *tc)
{
	char buf[128], *save = NULL, *t;
	mmagen_type ty[4];
	unsigned nt = 0;

	o->family = tc ? tc->base : "convert";
	if (!tc)
		return;
	snprintf(buf, sizeof buf, "%s", o->text);
	strtok_r(buf, ".", &save);
	for (t = strtok_r(NULL, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
		mmagen_type x;
		if (!strcmp(t, "SP"))
			o->sparse = 1;
		else if (!strcmp(t, "SF"))
			o->block_scale = 1;
		else if (t[0] >= '0' && t[0] <= '9' && !*o->shape && strlen(t) > 2)
			o->shape = keeps(r, t);
		else if (nt < 4 && !mmagen_type_parse(t, &x) && x != MMAGEN_UE8M0 &&
			 x != MMAGEN_UE4M3)
			ty[nt++] = x;
	}
	if (tc->acc && nt) {
		o->d = (uint8_t)ty[0];
		o->a = (uint8_t)(nt > 1 ? ty[1] : tc->deftype);
		o->b = (uint8_t)(nt > 2 ? ty[2] : o->a);
	} else {
		o->a = (uint8_t)(nt ? ty[0] : tc->deftype);
		o->b = (uint8_t)(nt > 1 ? ty[1] : o->a);
	}
}

static int group_of_ptx(const mmagen_inspect_op *p)
{
	if (!strncmp(p->family, "mma", 3))
		return G_MMA;
	if (!strncmp(p->family, "wgmma", 5))
		return G_WGMMA;
	if (!strncmp(p->family, "tcgen05", 7))
		return G_TC;
	return G_NONE;
}

static int native_for(const mmagen_inspect_op *p, const mmagen_inspect_op *s)
{
	const struct sass_tc *tc = sass_tc_of(s->text);
	char k[32];

	if (!tc || s->helper || tc->group != group_of_ptx(p) || s->sparse != p->sparse)
		return 0;
	if (tc->group == G_TC) {
		snprintf(k, sizeof k, " %s ", p->kind);
		return !*p->kind || strstr(tc->kinds, k) != NULL;
	}
	if (!p->a)
		return 1;
	if (s->a != p->a || (p->b && s->b && s->b != p->b))
		return 0;
	if (p->a == MMAGEN_B1)     /* the popc operation must be the same */
		return !!strstr(s->text, strstr(p->text, "xor") ? "XOR" : "AND");
	return 1;
}

/* The verdict for PTX op p among the SASS ops [from, to) of its kernel. */
static unsigned verdict_of(mmagen_inspect *r, const mmagen_inspect_op *p, size_t from,
			   size_t to, char *why, size_t n)
{
	const mmagen_inspect_op *tensor = NULL, *helper = NULL, *cvt = NULL;

	for (size_t i = from; i < to; i++) {
		const mmagen_inspect_op *s = &r->op[i];
		if (!s->sass || strcmp(s->kernel, p->kernel))
			continue;
		if (native_for(p, s)) {
			snprintf(why, n, "%s: %s", p->text, s->text);
			return MMAGEN_VERDICT_NATIVE;
		}
		if (sass_tc_of(s->text)) {
			if (s->helper && !helper)
				helper = s;
			else if (!s->helper && !tensor)
				tensor = s;
		} else if (!cvt) {
			cvt = s;
		}
	}
	if (helper) {
		snprintf(why, n, "%s: ptxas emulates it in %s with %s", p->text, helper->helper,
			 helper->text);
		return MMAGEN_VERDICT_EMULATED;
	}
	if (tensor) {
		snprintf(why, n, "%s: runs as %s (%s)%s%s", p->text, tensor->text,
			 mmagen_type_name(tensor->a), cvt ? " after " : "", cvt ? cvt->text : "");
		return MMAGEN_VERDICT_CONVERTED;
	}
	snprintf(why, n, "%s: no tensor-core instruction in the SASS", p->text);
	return MMAGEN_VERDICT_EMULATED;
}

static void add_verdict(mmagen_inspect *r, const char *kernel, const char *target,
			unsigned v, const char *why)
{
	if (GROW(r, vd, nvd, cvd))
		return;
	mmagen_inspect_verdict *d = &r->vd[r->nvd++];
	d->kernel = kernel;
	d->target = target;
	d->verdict = v;
	d->reason = keeps(r, why);
}

/* Verdicts of the kernels that SASS ops [from, to) belong to. */
static void verdicts(mmagen_inspect *r, const char *target, size_t from, size_t to,
		     const char **kernels, size_t nk)
{
	for (size_t k = 0; k < nk; k++) {
		unsigned worst = MMAGEN_VERDICT_UNKNOWN;
		char why[512] = "", one[300];
		int nptx = 0, tensors = 0;

		for (size_t i = 0; i < from; i++) {
			const mmagen_inspect_op *p = &r->op[i];
			unsigned v;
			if (p->sass || strcmp(p->kernel, kernels[k]) || group_of_ptx(p) == G_NONE)
				continue;
			nptx++;
			v = verdict_of(r, p, from, to, one, sizeof one);
			if (v > worst) {
				worst = v;
				snprintf(why, sizeof why, "%s", one);
			}
		}
		for (size_t i = from; i < to; i++)
			tensors += !strcmp(r->op[i].kernel, kernels[k]) && sass_tc_of(r->op[i].text);
		if (!nptx && !tensors)
			continue;
		if (!nptx)
			snprintf(why, sizeof why, "no PTX for this kernel to compare with");
		add_verdict(r, kernels[k], target, worst, why);
	}
}

/* One line of a disassembly into buf (at most n - 1 bytes), trimmed. */
static char *trim(char *s)
{
	size_t l;
	while (*s == ' ' || *s == '\t')
		s++;
	l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
		s[--l] = '\0';
	return s;
}

mmagen_status mmagen_inspect_add_sass(mmagen_inspect *r, const char *target,
				      const char *text, size_t len)
{
	const char *kernel = NULL, *helper = NULL, *tgt;
	const char **kernels = NULL;
	size_t nk = 0, ck = 0, from, pos = 0, kfirst;
	char line[512];

	if (!r || (!text && len))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_inspect_add_sass: NULL argument");
	tgt = keeps(r, target ? target : "");
	from = kfirst = r->nop;
	while (pos < len) {
		size_t e = pos, l;
		char *s, *m;
		while (e < len && text[e] != '\n')
			e++;
		l = e - pos < sizeof line - 1 ? e - pos : sizeof line - 1;
		memcpy(line, text + pos, l);
		line[l] = '\0';
		for (size_t i = 0; i < l; i++)
			if (!line[i])
				line[i] = ' ';
		pos = e + 1;
		s = trim(line);
		if (!target && (!strncmp(s, ".target", 7) || !strncmp(s, "code for ", 9))) {
			m = trim(s + (s[0] == '.' ? 7 : 9));
			if (!*tgt && !strncmp(m, "sm_", 3))
				tgt = keeps(r, m);
			continue;
		}
		if (!strncmp(s, ".section", 8) && (m = strstr(s, ".text."))) {
			m += 6;
			kernel = keep(r, m, strcspn(m, ", \t\""));
		} else if (!strncmp(s, "Function : ", 11)) {
			kernel = keeps(r, trim(s + 11));
		} else if (*s && s[strlen(s) - 1] == ':' && *s != '.' && *s != '/' &&
			   !strchr(s, ' ')) {
			s[strlen(s) - 1] = '\0';
			if (kernel && !strcmp(s, kernel))
				helper = NULL;
			else if (!strncmp(s, "$__internal", 11) || strstr(s, "__cuda_"))
				helper = keeps(r, s);
			continue;
		} else {
			goto instr;
		}
		helper = NULL;
		kfirst = r->nop;
		if (!grow(r, (void **)&kernels, &ck, nk, sizeof *kernels)) {
			int seen = 0;
			for (size_t i = 0; i < nk; i++)
				seen |= !strcmp(kernels[i], kernel);
			if (!seen)
				kernels[nk++] = kernel;
		}
		continue;
instr:
		if (!kernel || strncmp(s, "/*", 2) || !(m = strstr(s, "*/")))
			continue;
		m = trim(m + 2);
		if (*m == '{')
			m = trim(m + 1);
		if (*m == '@')
			m = trim(m + strcspn(m, " "));
		m[strcspn(m, " ;")] = '\0';
		const struct sass_tc *tc = sass_tc_of(m);
		if (tc || sass_is_convert(m)) {
			int fresh;
			mmagen_inspect_op *o = add_op(r, kfirst, kernel, tgt, m, 1, helper, &fresh);
			if (o && fresh)
				sass_fields(r, o, tc);
		}
	}
	/* ops of this disassembly that name no target get the one found */
	for (size_t i = from; i < r->nop; i++)
		if (!*r->op[i].target)
			r->op[i].target = tgt;
	verdicts(r, tgt, from, r->nop, kernels, nk);
	free(kernels);
	if (r->oom)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	return MMAGEN_OK;
}

/* ---- the report ---- */

static const char *img_kind(int k)
{
	return k == MMAGEN_IMG_PTX ? "ptx" : k == MMAGEN_IMG_CUBIN ? "cubin" : "unread";
}

/* s as a JSON string: quotes, backslashes and control bytes escaped,
 * bytes >= 0x80 as \u00XX (names come from hostile input) */
static void json_str(struct buf *b, const char *s)
{
	char esc[8];
	buf_puts(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			buf_puts(b, esc);
		} else {
			char one[2] = { (char)c, 0 };
			buf_puts(b, one);
		}
	}
	buf_puts(b, "\"");
}

static void text_str(struct buf *b, const char *s)
{
	char esc[8];
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c >= 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", c);
			buf_puts(b, esc);
		} else {
			char one[2] = { (char)c, 0 };
			buf_puts(b, one);
		}
	}
}

/* The kernels in order of first appearance. */
static size_t kernel_list(const mmagen_inspect *r, const char ***out)
{
	size_t n = 0;
	const char **k = malloc((r->nop + r->nvd + 1) * sizeof *k);

	*out = k;
	if (!k)
		return 0;
	for (size_t i = 0; i < r->nop + r->nvd; i++) {
		const char *name = i < r->nop ? r->op[i].kernel : r->vd[i - r->nop].kernel;
		size_t j;
		for (j = 0; j < n && strcmp(k[j], name); j++)
			;
		if (j == n)
			k[n++] = name;
	}
	return n;
}

static const char *tname(unsigned t)
{
	return t ? mmagen_type_name((mmagen_type)t) : "";
}

static void render_text(const mmagen_inspect *r, struct buf *b, const char **k, size_t nk)
{
	for (size_t i = 0; i < r->nimg; i++) {
		const mmagen_inspect_image *im = &r->img[i];
		text_str(b, im->where);
		if (im->kind == MMAGEN_IMG_PTX)
			emitf(b, ": PTX$s$s", *im->target ? ", .target " : "", "");
		if (im->kind == MMAGEN_IMG_PTX)
			text_str(b, im->target);
		else if (im->kind == MMAGEN_IMG_CUBIN)
			emitf(b, ": cubin for sm_$u", im->sm);
		else {
			buf_puts(b, ": ");
			text_str(b, im->note);
		}
		buf_puts(b, "\n");
	}
	for (size_t j = 0; j < nk; j++) {
		buf_puts(b, "kernel ");
		text_str(b, k[j]);
		buf_puts(b, "\n");
		for (size_t i = 0; i < r->nop; i++) {
			const mmagen_inspect_op *o = &r->op[i];
			if (o->sass || strcmp(o->kernel, k[j]))
				continue;
			emitf(b, "  PTX  $u x $s", o->count, o->family);
			if (*o->shape)
				emitf(b, " $s", o->shape);
			if (*o->kind)
				emitf(b, " kind::$s", o->kind);
			if (o->a)
				emitf(b, " $s x $s -> $s", tname(o->a), tname(o->b), tname(o->d));
			if (o->block_scale)
				buf_puts(b, " block-scaled");
			buf_puts(b, o->form ? "   " : "   (not in mmagen's table) ");
			text_str(b, o->text);
			buf_puts(b, "\n");
		}
		for (size_t i = 0; i < r->nop; i++) {
			const mmagen_inspect_op *o = &r->op[i];
			if (!o->sass || strcmp(o->kernel, k[j]))
				continue;
			buf_puts(b, "  SASS ");
			text_str(b, o->target);
			emitf(b, ": $u x $s$s", o->count, o->text,
			      o->family[0] == 'c' ? " (conversion)" : "");
			if (o->helper) {
				buf_puts(b, " in ");
				text_str(b, o->helper);
			}
			buf_puts(b, "\n");
		}
		for (size_t i = 0; i < r->nvd; i++) {
			const mmagen_inspect_verdict *v = &r->vd[i];
			if (strcmp(v->kernel, k[j]))
				continue;
			buf_puts(b, "  verdict ");
			text_str(b, v->target);
			emitf(b, ": $s: ", mmagen_inspect_verdict_name(v->verdict));
			text_str(b, v->reason);
			buf_puts(b, "\n");
		}
	}
	for (size_t i = 0; i < r->nnote; i++) {
		text_str(b, r->note[i]);
		buf_puts(b, "\n");
	}
}

static void render_json(const mmagen_inspect *r, struct buf *b, const char **k, size_t nk)
{
	buf_puts(b, "{\n  \"images\": [");
	for (size_t i = 0; i < r->nimg; i++) {
		const mmagen_inspect_image *im = &r->img[i];
		emitf(b, "$s\n    {\"kind\": \"$s\", \"sm\": $u, \"target\": ", i ? "," : "",
		      img_kind(im->kind), im->sm);
		json_str(b, im->target);
		buf_puts(b, ", \"where\": ");
		json_str(b, im->where);
		buf_puts(b, ", \"note\": ");
		json_str(b, im->note);
		buf_puts(b, "}");
	}
	buf_puts(b, "\n  ],\n  \"kernels\": [");
	for (size_t j = 0; j < nk; j++) {
		int first = 1;
		buf_puts(b, j ? ",\n    {\"name\": " : "\n    {\"name\": ");
		json_str(b, k[j]);
		buf_puts(b, ",\n     \"ptx\": [");
		for (size_t i = 0; i < r->nop; i++) {
			const mmagen_inspect_op *o = &r->op[i];
			if (o->sass || strcmp(o->kernel, k[j]))
				continue;
			buf_puts(b, first ? "\n       {\"opcode\": " : ",\n       {\"opcode\": ");
			first = 0;
			json_str(b, o->text);
			emitf(b, ", \"family\": \"$s\", \"shape\": \"$s\", \"kind\": \"$s\", "
			      "\"a\": \"$s\", \"b\": \"$s\", \"c\": \"$s\", \"d\": \"$s\", "
			      "\"sparse\": $s, \"block_scale\": $s, \"in_table\": $s, \"count\": $u}",
			      o->family, o->shape, o->kind, tname(o->a), tname(o->b), tname(o->c),
			      tname(o->d), o->sparse ? "true" : "false",
			      o->block_scale ? "true" : "false", o->form ? "true" : "false", o->count);
		}
		buf_puts(b, "],\n     \"sass\": [");
		first = 1;
		for (size_t i = 0; i < r->nop; i++) {
			const mmagen_inspect_op *o = &r->op[i];
			if (!o->sass || strcmp(o->kernel, k[j]))
				continue;
			buf_puts(b, first ? "\n       {\"target\": " : ",\n       {\"target\": ");
			first = 0;
			json_str(b, o->target);
			buf_puts(b, ", \"mnemonic\": ");
			json_str(b, o->text);
			emitf(b, ", \"class\": \"$s\", \"shape\": ", o->family);
			json_str(b, o->shape);
			emitf(b, ", \"a\": \"$s\", \"b\": \"$s\", \"sparse\": $s, \"helper\": ",
			      tname(o->a), tname(o->b), o->sparse ? "true" : "false");
			if (o->helper)
				json_str(b, o->helper);
			else
				buf_puts(b, "null");
			emitf(b, ", \"count\": $u}", o->count);
		}
		buf_puts(b, "],\n     \"verdicts\": [");
		first = 1;
		for (size_t i = 0; i < r->nvd; i++) {
			const mmagen_inspect_verdict *v = &r->vd[i];
			if (strcmp(v->kernel, k[j]))
				continue;
			buf_puts(b, first ? "\n       {\"target\": " : ",\n       {\"target\": ");
			first = 0;
			json_str(b, v->target);
			emitf(b, ", \"verdict\": \"$s\", \"reason\": ",
			      mmagen_inspect_verdict_name(v->verdict));
			json_str(b, v->reason);
			buf_puts(b, "}");
		}
		buf_puts(b, "]}");
	}
	buf_puts(b, "\n  ],\n  \"notes\": [");
	for (size_t i = 0; i < r->nnote; i++) {
		buf_puts(b, i ? ",\n    " : "\n    ");
		json_str(b, r->note[i]);
	}
	buf_puts(b, "\n  ]\n}\n");
}

mmagen_status mmagen_inspect_render(const mmagen_inspect *r, mmagen_format fmt,
				    char **out, size_t *len)
{
	struct buf b;
	const char **k;
	size_t nk;

	if (!r || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_inspect_render: NULL argument");
	if (fmt != MMAGEN_FMT_TEXT && fmt != MMAGEN_FMT_JSON)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"an inspect report is text or JSON (MMAGEN_FMT_TEXT, MMAGEN_FMT_JSON)");
	nk = kernel_list(r, &k);
	if (!k)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	buf_init(&b);
	if (fmt == MMAGEN_FMT_JSON)
		render_json(r, &b, k, nk);
	else
		render_text(r, &b, k, nk);
	free(k);
	return buf_finish(&b, out, len);
}
