/* cli_inspect.c - `mmagen inspect`: read an artifact through the library
 * (mmagen_inspect_buffer), get its SASS by running the CUDA tools
 * (ptxas for PTX, nvdisasm or `cuobjdump -sass` for cubins) in a private
 * temporary directory that is removed afterwards, and print the report.
 *
 * Tools: $PTXAS, $NVDISASM, $CUOBJDUMP when set (set but empty: "not
 * there", which the tests use), else the PATH, else /usr/local/cuda/bin.
 * Exit status: 0 the report is complete; 3 the PTX part is reported but
 * some SASS could not be examined (one line says why); 1 the input cannot
 * be read; 2 usage. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { INSPECT_PARTIAL = 3 };

/* ---- tools ---- */

static const char *find_tool(const char *env, const char *name, char *buf, size_t n)
{
	const char *e = getenv(env), *path = getenv("PATH");

	if (e)
		return *e ? e : NULL;
	while (path && *path) {
		size_t l = strcspn(path, ":");
		if (l && (size_t)snprintf(buf, n, "%.*s/%s", (int)l, path, name) < n &&
		    !access(buf, X_OK))
			return buf;
		path += l + (path[l] == ':');
	}
	snprintf(buf, n, "/usr/local/cuda/bin/%s", name);
	return access(buf, X_OK) ? NULL : buf;
}

/* Run argv with stdout into `out` and stderr into `err`: its exit status,
 * or -1 when it could not run or was killed. */
static int run_tool(char *const argv[], const char *out, const char *err)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (!pid) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fi = open("/dev/null", O_RDONLY);
		if (fo < 0 || fe < 0 || fi < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 ||
		    dup2(fi, 0) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The most inspect reads: a whole libcublasLt.so is about 500 MB; an
 * endless input (/dev/zero, `yes |`) stops here with EFBIG. */
#define INSPECT_MAX (1024u * 1024u * 1024u)

/* A whole file into *data; 0 or -1 (errno set). */
static int slurp(FILE *f, char **data, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);

	if (!buf)
		return -1;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap && cap >= INSPECT_MAX) {   /* no doubling past it */
			free(buf);
			errno = EFBIG;
			return -1;
		}
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
		}
	}
	if (ferror(f)) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static int slurp_path(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	int rc;
	if (!f)
		return -1;
	rc = slurp(f, data, len);
	fclose(f);
	return rc;
}

static int write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, n, f) == n;
	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* ---- one inspection ---- */

struct ctx {
	mmagen_inspect *r;
	char dir[256];
	char in[300], cubin[300], sass[300], err[300];
	const char *ptxas, *nvdisasm, *cuobjdump;
	char bp[512], bn[512], bc[512];
	int partial;
	unsigned done_sm[64];    /* SMs whose SASS was added */
	unsigned ndone;
};

static void note(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	mmagen_inspect_add_note(c->r, line);
}

/* The first line of the tool's stderr, for a message. */
static const char *first_err_line(struct ctx *c, char *buf, size_t n)
{
	FILE *f = fopen(c->err, "r");
	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? buf : "no message";
}

/* Disassemble the cubin at c->cubin and add its SASS. */
static void disassemble(struct ctx *c, unsigned sm, const char *what)
{
	char *argv[5], *text;
	const char *tool = c->nvdisasm ? c->nvdisasm : c->cuobjdump;
	char eb[300];
	size_t len;
	int rc;

	if (!tool) {
		c->partial = 1;
		note(c, "SASS of %s not examined: no nvdisasm or cuobjdump (set $NVDISASM, "
		     "or pip install nvidia-cuda-nvdisasm)", what);
		return;
	}
	argv[0] = (char *)tool;
	argv[1] = (char *)(c->nvdisasm ? "-c" : "-sass");
	argv[2] = c->cubin;
	argv[3] = NULL;
	rc = run_tool(argv, c->sass, c->err);
	if (rc || slurp_path(c->sass, &text, &len)) {
		c->partial = 1;
		note(c, "SASS of %s not examined: %s failed: %s", what, tool,
		     rc ? first_err_line(c, eb, sizeof eb) : strerror(errno));
		return;
	}
	if (mmagen_inspect_add_sass(c->r, NULL, text, len))
		note(c, "SASS of %s: %s", what, mmagen_last_error());
	else if (c->ndone < 64)
		c->done_sm[c->ndone++] = sm;
	free(text);
}

static int sm_done(const struct ctx *c, unsigned sm)
{
	for (unsigned i = 0; i < c->ndone; i++)
		if (c->done_sm[i] == sm)
			return 1;
	return 0;
}

static void ptx_to_sass(struct ctx *c, const mmagen_inspect_image *im, const char *arch)
{
	char *argv[8], what[200], eb[300];
	int rc, t;

	if (!arch || !*arch || mmagen_target_parse(arch, &t)) {
		c->partial = 1;
		note(c, "SASS of the PTX in %s not examined: no target (give --arch)", im->where);
		return;
	}
	if (!c->ptxas) {
		c->partial = 1;
		note(c, "SASS of the PTX in %s not examined: no ptxas (set $PTXAS)", im->where);
		return;
	}
	/* cuobjdump -ptx puts a header before the module */
	const unsigned char *p = im->data;
	size_t len = im->len;
	for (size_t i = 0; i + 8 <= im->len; i++)
		if (!memcmp(im->data + i, ".version", 8)) {
			p = im->data + i;
			len = im->len - i;
			break;
		}
	if (write_bytes(c->in, p, len)) {
		c->partial = 1;
		note(c, "SASS of the PTX in %s not examined: cannot write %s", im->where, c->in);
		return;
	}
	argv[0] = (char *)c->ptxas;
	argv[1] = (char *)"-arch";
	argv[2] = (char *)mmagen_target_name(t);
	argv[3] = (char *)"-o";
	argv[4] = c->cubin;
	argv[5] = c->in;
	argv[6] = NULL;
	if ((rc = run_tool(argv, c->sass, c->err))) {
		c->partial = 1;
		note(c, "SASS of the PTX in %s not examined: ptxas -arch %s failed: %s", im->where,
		     argv[2], first_err_line(c, eb, sizeof eb));
		return;
	}
	snprintf(what, sizeof what, "the PTX in %s (ptxas -arch %s)", im->where, argv[2]);
	disassemble(c, (unsigned)strtoul(argv[2] + 3, NULL, 10), what);
}

static int arch_sm(const char *arch)
{
	int t;
	if (!arch || mmagen_target_parse(arch, &t))
		return 0;
	return (int)strtoul(mmagen_target_name(t) + 3, NULL, 10);
}

/* `cuobjdump -ptx FILE` or `-sass FILE` into the report: 1 on success */
static int from_cuobjdump(struct ctx *c, const char *what, const char *file)
{
	char *argv[4], *text, eb[300];
	size_t len;
	int rc;

	if (!c->cuobjdump || !file) {
		note(c, "compressed entries: %s not read (cuobjdump %s would read them)",
		     what[1] == 'p' ? "PTX" : "SASS", what);
		return 0;
	}
	argv[0] = (char *)c->cuobjdump;
	argv[1] = (char *)what;
	argv[2] = (char *)file;
	argv[3] = NULL;
	if ((rc = run_tool(argv, c->sass, c->err)) || slurp_path(c->sass, &text, &len)) {
		note(c, "compressed entries: cuobjdump %s failed: %s", what,
		     rc ? first_err_line(c, eb, sizeof eb) : strerror(errno));
		return 0;
	}
	if (what[1] == 'p')
		rc = mmagen_inspect_add_ptx(c->r, "cuobjdump -ptx", text, len);
	else
		rc = mmagen_inspect_add_sass(c->r, NULL, text, len);
	free(text);
	if (!rc)
		note(c, "compressed entries: read through cuobjdump %s", what);
	return !rc;
}

static void examine(struct ctx *c, const char *arch, const char *file)
{
	size_t n = mmagen_inspect_image_count(c->r);
	int want = arch_sm(arch), unread = 0, unread_cubin = 0;

	/* compressed entries: cuobjdump decompresses them itself; their PTX
	 * first, as verdicts compare SASS with the PTX already scanned */
	for (size_t i = 0; i < n; i++) {
		const mmagen_inspect_image *im = mmagen_inspect_image_at(c->r, i);
		unread |= im->kind == MMAGEN_IMG_UNREAD;
		unread_cubin |= im->kind == MMAGEN_IMG_UNREAD && !strncmp(im->note, "cubin", 5);
	}
	if (unread && !from_cuobjdump(c, "-ptx", file))
		c->partial = 1;
	/* cubins: their SASS is what runs; PTX only for SMs none has */
	for (size_t i = 0; i < n; i++) {
		const mmagen_inspect_image *im = mmagen_inspect_image_at(c->r, i);
		char what[200];
		if (im->kind != MMAGEN_IMG_CUBIN || (want && (int)im->sm != want))
			continue;
		if (write_bytes(c->cubin, im->data, im->len)) {
			c->partial = 1;
			note(c, "SASS of %s not examined: cannot write %s", im->where, c->cubin);
			continue;
		}
		snprintf(what, sizeof what, "the cubin in %s", im->where);
		disassemble(c, im->sm, what);
	}
	if (unread_cubin && !from_cuobjdump(c, "-sass", file))
		c->partial = 1;
	else if (unread_cubin)          /* their SMs need no ptxas */
		for (size_t i = 0; i < n; i++) {
			const mmagen_inspect_image *im = mmagen_inspect_image_at(c->r, i);
			if (im->kind == MMAGEN_IMG_UNREAD && c->ndone < 64)
				c->done_sm[c->ndone++] = im->sm;
		}
	n = mmagen_inspect_image_count(c->r);
	for (size_t i = 0; i < n; i++) {
		const mmagen_inspect_image *im = mmagen_inspect_image_at(c->r, i);
		const char *a = arch ? arch : im->target;
		if (im->kind != MMAGEN_IMG_PTX || sm_done(c, (unsigned)arch_sm(a)))
			continue;
		ptx_to_sass(c, im, a);
	}
}

static void cleanup(struct ctx *c)
{
	if (!c->dir[0])
		return;
	unlink(c->in);
	unlink(c->cubin);
	unlink(c->sass);
	unlink(c->err);
	rmdir(c->dir);
}

/* c's tools, and a temporary directory with its four paths: 0, or -1
 * when the directory could not be made (c->dir then ""; errno says why). */
static int ctx_open(struct ctx *c)
{
	const char *tmp = getenv("TMPDIR");

	c->ptxas = find_tool("PTXAS", "ptxas", c->bp, sizeof c->bp);
	c->nvdisasm = find_tool("NVDISASM", "nvdisasm", c->bn, sizeof c->bn);
	c->cuobjdump = find_tool("CUOBJDUMP", "cuobjdump", c->bc, sizeof c->bc);
	snprintf(c->dir, sizeof c->dir, "%s/mmagen-inspect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->dir)) {
		c->dir[0] = '\0';
		return -1;
	}
	snprintf(c->in, sizeof c->in, "%s/in.ptx", c->dir);
	snprintf(c->cubin, sizeof c->cubin, "%s/out.cubin", c->dir);
	snprintf(c->sass, sizeof c->sass, "%s/sass.txt", c->dir);
	snprintf(c->err, sizeof c->err, "%s/err.txt", c->dir);
	return 0;
}

/* The bytes to inspect: the FILE, standard input, or --opcode's module. */
static int input(struct opts *o, char **data, size_t *len)
{
	const mmagen_form *f;

	if (o->req.opcode) {
		if (o->insp.file)
			return cli_fail(CLI_USAGE, "inspect takes a FILE or --opcode, not both");
		if (!o->arch)
			return cli_fail(CLI_USAGE, "inspect --opcode needs --arch (e.g. --arch sm_90a)");
		if (mmagen_select(&o->req, &f) ||
		    mmagen_emit_instr(f, o->req.target, MMAGEN_FMT_PTX, data, len))
			return cli_lib_fail(1, NULL);
		return 0;
	}
	if (!o->insp.file)
		return cli_fail(CLI_USAGE, "inspect needs a FILE (PTX, cubin, fatbinary or an "
				"ELF with .nv_fatbin; - for standard input) or --opcode OPCODE --arch A");
	if (!strcmp(o->insp.file, "-") ? slurp(stdin, data, len) : slurp_path(o->insp.file, data, len))
		return errno == EFBIG
			? cli_fail(1, "%s is over %u MiB, more than inspect reads; give one cubin, fatbinary or PTX file (cuobjdump -xelf all / -xptx all extracts them)",
				   strcmp(o->insp.file, "-") ? cli_quote(o->insp.file) : "standard input",
				   INSPECT_MAX >> 20)
			: cli_fail(1, "cannot read %s: %s", cli_quote(o->insp.file), strerror(errno));
	return 0;
}

int cmd_inspect(struct opts *o)
{
	struct ctx c;
	const char *tmp = getenv("TMPDIR");
	char *data = NULL, *text;
	size_t len = 0, tlen;
	int rc;

	memset(&c, 0, sizeof c);
	if ((rc = input(o, &data, &len)))
		return rc;
	rc = mmagen_inspect_buffer(data, len, &c.r);
	if (rc) {
		free(data);
		return cli_lib_fail(1, o->insp.file ? cli_quote(o->insp.file) : NULL);
	}
	if (ctx_open(&c)) {
		note(&c, "SASS not examined: cannot create a temporary directory in %s: %s",
		     tmp && *tmp ? tmp : "/tmp", strerror(errno));
		c.partial = 1;
	} else {
		examine(&c, o->arch, o->req.opcode || !strcmp(o->insp.file, "-") ? NULL : o->insp.file);
		cleanup(&c);
	}
	free(data);
	if (mmagen_inspect_render(c.r, o->json ? MMAGEN_FMT_JSON : MMAGEN_FMT_TEXT, &text, &tlen)) {
		mmagen_inspect_free(c.r);
		return cli_lib_fail(1, NULL);
	}
	fwrite(text, 1, tlen, stdout);
	mmagen_free(text);
	mmagen_inspect_free(c.r);
	return c.partial ? INSPECT_PARTIAL : 0;
}

/* The verdict of form f on target t: its `emit instr` module through
 * ptxas and nvdisasm (or cuobjdump), as `inspect --opcode` works it out.
 * *verdict MMAGEN_VERDICT_*, and `why` its reason (for UNKNOWN: why there
 * is none, e.g. no ptxas).  0, or 1 when the module could not be made. */
int inspect_form_verdict(const mmagen_form *f, int t, unsigned *verdict, char *why, size_t n)
{
	struct ctx c;
	char *data = NULL;
	size_t len = 0;

	memset(&c, 0, sizeof c);
	*verdict = MMAGEN_VERDICT_UNKNOWN;
	if (mmagen_emit_instr(f, t, MMAGEN_FMT_PTX, &data, &len) ||
	    mmagen_inspect_buffer(data, len, &c.r)) {
		snprintf(why, n, "%s", mmagen_last_error());
		mmagen_free(data);
		return 1;
	}
	mmagen_free(data);
	int dir = ctx_open(&c);
	snprintf(why, n, "%s", !c.ptxas ? "no ptxas ($PTXAS, PATH, /usr/local/cuda/bin)" :
		 !c.nvdisasm && !c.cuobjdump ? "no nvdisasm or cuobjdump ($NVDISASM, $CUOBJDUMP)" :
		 dir ? "no temporary directory for its SASS" : "its SASS gave no verdict");
	if (c.ptxas && (c.nvdisasm || c.cuobjdump) && !dir) {
		examine(&c, mmagen_target_name(t), NULL);
		if (mmagen_inspect_verdict_count(c.r)) {
			const mmagen_inspect_verdict *v = mmagen_inspect_verdict_at(c.r, 0);
			*verdict = v->verdict;
			snprintf(why, n, "%s", v->reason);
		}
	}
	cleanup(&c);             /* the directory, also when a tool is missing */
	mmagen_inspect_free(c.r);
	return 0;
}
