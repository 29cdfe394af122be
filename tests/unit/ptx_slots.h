/* ptx_slots.h - the registers of an sm_90a GEMM kernel by their names.
 *
 * templates/gemm_sm90.ptx.in shares some registers with its C side
 * (gen/gemm/kernel_gemm_sm90.c): slots such as {{m0}}, filled with
 * builder registers (%r7).  The kernel names them in its comment lines
 *
 *	// slots: thread=%r0 wg=%r1 ...
 *
 * ptx_slot() finds one; ptx_unslot() renames every one of them back to
 * %name (%m0, %tile, ...), for the tests that read the kernel by those
 * names (ptx_ops.py's unslot does the same for the Python replays). */
#ifndef MMAGEN_TEST_PTX_SLOTS_H
#define MMAGEN_TEST_PTX_SLOTS_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PTX_SLOTS_MAX 64

struct ptx_slots {
	char name[PTX_SLOTS_MAX][32], reg[PTX_SLOTS_MAX][32];
	int n;
};

static inline int ptx_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Every `name=%reg` of the kernel's `// slots:` lines. */
static inline void ptx_slots_of(const char *ptx, struct ptx_slots *s)
{
	s->n = 0;
	for (const char *l = strstr(ptx, "// slots:"); l; l = strstr(l + 1, "// slots:")) {
		const char *p = l + strlen("// slots:"), *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		while (p < end && s->n < PTX_SLOTS_MAX) {
			while (p < end && *p == ' ')
				p++;
			const char *eq = memchr(p, '=', (size_t)(end - p));
			if (!eq)
				break;
			const char *r = eq + 1, *re = r;
			while (re < end && re[0] != ' ')
				re++;
			if (eq - p >= 32 || re - r >= 32 || *r != '%')
				break;
			memcpy(s->name[s->n], p, (size_t)(eq - p));
			s->name[s->n][eq - p] = '\0';
			memcpy(s->reg[s->n], r, (size_t)(re - r));
			s->reg[s->n][re - r] = '\0';
			s->n++;
			p = re;
		}
	}
}

/* The register of slot `name` ("%r7"), or NULL. */
static inline const char *ptx_slot(const char *ptx, const char *name)
{
	static struct ptx_slots s;
	ptx_slots_of(ptx, &s);
	for (int i = 0; i < s.n; i++)
		if (!strcmp(s.name[i], name))
			return s.reg[i];
	return NULL;
}

/* A copy of ptx (malloc) with each slot's register written %name.
 * Takes ptx over: frees it. */
static inline char *ptx_unslot(char *ptx)
{
	static struct ptx_slots s;
	if (!ptx)
		return NULL;
	ptx_slots_of(ptx, &s);
	/* a name is at most 31 characters, a register at least 2 */
	char *out = malloc(strlen(ptx) * 16 + 1), *o = out;
	if (!out) {
		free(ptx);
		return NULL;
	}
	for (const char *p = ptx; *p;) {
		if (*p != '%') {
			*o++ = *p++;
			continue;
		}
		size_t n = 1;
		while (ptx_ident(p[n]))
			n++;
		int hit = -1;
		for (int i = 0; hit < 0 && i < s.n; i++)
			if (strlen(s.reg[i]) == n && !memcmp(s.reg[i], p, n))
				hit = i;
		if (hit >= 0) {
			*o++ = '%';
			strcpy(o, s.name[hit]);
			o += strlen(s.name[hit]);
		} else {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	free(ptx);
	return out;
}

#endif
