/* cli_plan.c - `mmagen plan` and `mmagen doc plan`: the library's plan
 * (gen/analysis/plan.c) as text or JSON. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <stdio.h>

/* text to -o FILE (atomically) or standard output */
static int put(const struct opts *o, const char *text, size_t len)
{
	if (o->out)
		return mmagen_write_file(o->out, text, len) ? cli_lib_fail(1, NULL) : 0;
	fwrite(text, 1, len, stdout);
	return 0;
}

int cmd_plan(struct opts *o)
{
	mmagen_plan_request r;
	mmagen_plan *p;
	char *text;
	size_t len;
	int rc;

	if (!o->quant)
		return cli_fail(CLI_USAGE, "plan needs --quant CONFIG (e.g. --quant w8a8-fp8)");
	if (!o->arch)
		return cli_fail(CLI_USAGE, "plan needs --arch (e.g. --arch sm_90a)");
	mmagen_plan_request_init(&r);
	r.target = o->req.target;
	r.quant = o->quant;
	mmagen_status st = mmagen_plan_new(&r, &p);
	if (st)      /* an unknown config is a usage error, like a bad type */
		return cli_lib_fail(st == MMAGEN_UNKNOWN_NAME ? CLI_USAGE : 1, NULL);
	/* no path at all on this target: the verdict is the one line */
	if (!p->npaths || !p->paths[0].available) {
		rc = cli_fail(1, "%s", p->verdict);
		mmagen_plan_free(p);
		return rc;
	}
	if (mmagen_plan_format(p, o->json ? MMAGEN_FMT_JSON : MMAGEN_FMT_TEXT, &text, &len)) {
		mmagen_plan_free(p);
		return cli_lib_fail(1, NULL);
	}
	rc = put(o, text, len);
	mmagen_free(text);
	mmagen_plan_free(p);
	return rc;
}

int cmd_doc_plan(struct opts *o)
{
	char *text;
	size_t len;
	int rc;

	if (mmagen_doc_plan(&text, &len))
		return cli_lib_fail(1, NULL);
	rc = put(o, text, len);
	mmagen_free(text);
	return rc;
}
