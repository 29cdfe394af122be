/* main.c - the mmagen command line: find the command, parse its options
 * (both from the tables in cli_opts.c), call the library, print. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text to -o FILE (by the library: atomically where it is a file) or to
 * standard output (also -o -) */
static int write_out(const struct opts *o, const char *text, size_t len)
{
	if (o->out && strcmp(o->out, "-"))
		return mmagen_write_file(o->out, text, len) ? cli_lib_fail(1, NULL) : 0;
	fwrite(text, 1, len, stdout);      /* a short write: see main */
	return 0;
}

/* The one form the selector names; --arch is required here (run and bench
 * default it to the GPU's target before they call this). */
static int select_form(struct opts *o, const char *cmd, const mmagen_form **f)
{
	if (!o->arch)
		return cli_fail(CLI_USAGE, "%s needs --arch (e.g. --arch sm_90a)", cmd);
	if (mmagen_select(&o->req, f))
		return cli_lib_fail(1, NULL);
	return 0;
}

/* Where the request left a facet open and other forms match that differ
 * in it, the choice is a default that changes the kernel: say so, one
 * line on stderr ("took --stype ue4m3 (also ue8m0), ..."), and, when json
 * is given, as the members of a JSON object ("stype": "ue4m3", ...). */
static void note_defaults(const struct opts *o, const mmagen_form *f, char *json, size_t n)
{
	uint32_t mask = mmagen_select_defaults(&o->req, f);
	char line[1024] = "", v[64], also[256];
	size_t l;

	if (json && n)
		json[0] = '\0';
	if (!mask)
		return;
	for (unsigned i = 0; mmagen_facet_name(i); i++) {
		if (!(mask >> i & 1))
			continue;
		mmagen_form_facet(f, i, v, sizeof v);
		/* the other values that matching forms have */
		also[0] = '\0';
		for (size_t k = 0; k < mmagen_form_count(); k++) {
			const mmagen_form *g = mmagen_form_at(k);
			char w[64];
			if (!mmagen_form_on_target(g, o->req.target) ||
			    !mmagen_form_matches(&o->req, g))
				continue;
			mmagen_form_facet(g, i, w, sizeof w);
			size_t al = strlen(also), wl = strlen(w);
			int seen = !strcmp(w, v);
			for (const char *p = also; *p && !seen; p += strcspn(p, ","), p += *p ? 2 : 0)
				seen = !strncmp(p, w, wl) && (p[wl] == ',' || !p[wl]);
			if (!seen && al + wl + 3 < sizeof also)
				snprintf(also + al, sizeof also - al, "%s%s", al ? ", " : "", w);
		}
		l = strlen(line);
		snprintf(line + l, sizeof line - l, "%s--%s %s (also %s)", l ? ", " : "",
			 mmagen_facet_name(i), v, also);
		if (json) {
			char key[32];
			snprintf(key, sizeof key, "%s", mmagen_facet_name(i));
			for (char *p = key; *p; p++)
				*p = *p == '-' ? '_' : *p;
			l = strlen(json);
			snprintf(json + l, n - l, "%s\"%s\": \"%s\"", l ? ", " : "", key, v);
		}
	}
	fprintf(stderr, CLI_PROG ": note: more than one form matches; took %s; "
		"give these fields to choose\n", line);
}

/* The manifest with "defaults": {...} as its last member. */
static int write_manifest(const struct opts *o, const char *text, size_t len,
			  const char *defaults)
{
	size_t cut = len;
	char *buf;
	int rc;

	while (cut && text[cut - 1] != '}')
		cut--;
	if (!defaults[0] || !cut)
		return write_out(o, text, len);
	/* the object's closing brace, after its last member */
	size_t last = cut - 1;
	while (last && (text[last - 1] == '\n' || text[last - 1] == ' '))
		last--;
	size_t extra = strlen(defaults) + 32;
	if (!(buf = malloc(len + extra)))
		return cli_fail(1, "out of memory");
	int k = snprintf(buf, len + extra, "%.*s,\n  \"defaults\": {%s}%.*s", (int)last, text,
			 defaults, (int)(len - last), text + last);
	rc = write_out(o, buf, (size_t)k);
	free(buf);
	return rc;
}

/* emit instr --all: one CUDA header for every form the fields match. */
static int emit_instr_all(struct opts *o)
{
	const mmagen_form **fs;
	size_t n = 0;
	char *text;
	size_t len;
	int rc;

	if (!o->arch)
		return cli_fail(CLI_USAGE, "emit needs --arch (e.g. --arch sm_90a)");
	if (o->format != MMAGEN_FMT_CUDA)
		return cli_fail(CLI_USAGE, "--all writes one CUDA header; add --format cuda");
	if (!(fs = malloc(mmagen_form_count() * sizeof *fs)))
		return cli_fail(1, "out of memory");
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (mmagen_form_on_target(f, o->req.target) && mmagen_form_matches(&o->req, f))
			fs[n++] = f;
	}
	if (!n) {
		free(fs);
		return cli_fail(1, "no form on %s has these fields; see '" CLI_PROG " list --arch %s'",
				o->arch, o->arch);
	}
	rc = mmagen_emit_cuda(fs, n, o->req.target, &text, &len);
	free(fs);
	if (rc)
		return cli_lib_fail(1, NULL);
	rc = write_out(o, text, len);
	mmagen_free(text);
	return rc;
}

static int cmd_emit_instr(struct opts *o)
{
	const mmagen_form *f;
	char *text;
	size_t len;
	int rc;

	if (o->all)
		return emit_instr_all(o);
	if ((rc = select_form(o, "emit", &f)))
		return rc;
	if (mmagen_emit_instr(f, o->req.target, (mmagen_format)o->format, &text, &len))
		return cli_lib_fail(1, NULL);
	rc = write_out(o, text, len);
	mmagen_free(text);
	return rc;
}

static int cmd_emit_tile(struct opts *o)
{
	const mmagen_form *f;
	char *text;
	size_t len;
	int rc;

	char defaults[512];

	if ((rc = select_form(o, "emit", &f)))
		return rc;
	if (mmagen_emit_tile(f, o->req.target, &o->tile, (mmagen_format)o->format,
			     &text, &len))
		return cli_lib_fail(1, NULL);
	note_defaults(o, f, defaults, sizeof defaults);
	if (o->format == MMAGEN_FMT_JSON)
		rc = write_manifest(o, text, len, defaults);
	else
		rc = write_out(o, text, len);
	mmagen_free(text);
	return rc;
}

/* The generator's request from the options `gemm` and `run gemm` share;
 * run gemm may leave --arch out (the GPU's target). */
static int gemm_request(const struct opts *o, const char *cmd, int need_arch,
			mmagen_gemm_request *r)
{
	if (need_arch && !o->arch)
		return cli_fail(CLI_USAGE, "%s needs --arch; use --arch sm_90a", cmd);
	if (o->req.a == MMAGEN_ANY || o->req.b == MMAGEN_ANY || !o->gemm.out)
		return cli_fail(CLI_USAGE, "%s needs --a, --b and --out; e.g. --a bf16 --b bf16 --out bf16", cmd);
	mmagen_gemm_request_init(r);
	r->target = o->arch ? o->req.target : -1;
	r->a = (mmagen_type)o->req.a;
	r->b = (mmagen_type)o->req.b;
	r->acc = (mmagen_type)o->gemm.acc;
	r->out = (mmagen_type)o->gemm.out;
	r->layout = o->gemm.layout;
	r->tile_m = o->gemm.tile_m;
	r->tile_n = o->gemm.tile_n;
	r->tile_k = o->gemm.tile_k;
	r->stages = o->gemm.stages;
	r->cluster = o->gemm.cluster;
	r->group = o->gemm.group;
	r->promote_k = o->gemm.promote_k;
	r->path = o->gemm.path;
	r->schedule = o->gemm.schedule;
	r->split_k = o->gemm.split_k;
	r->quant = o->gemm.quant;
	r->kind = o->req.kind == MMAGEN_ANY ? 0 : o->req.kind;
	return 0;
}

int cmd_gemm(struct opts *o)
{
	mmagen_gemm_request r;
	char *text;
	size_t len;
	int rc;

	if ((rc = gemm_request(o, "gemm", 1, &r)))
		return rc;
	if (o->gemm.sms && !o->gemm.problem[0])
		return cli_fail(CLI_USAGE, "--sms says which GPU --problem chooses for; give --problem MxNxK too");
	if (o->gemm.problem[0] &&
	    mmagen_gemm_choose(&r, o->gemm.problem[0], o->gemm.problem[1], o->gemm.problem[2],
			       o->gemm.sms ? o->gemm.sms : 132))
		return cli_lib_fail(1, NULL);
	if (mmagen_gemm_emit(&r, (mmagen_format)o->format, &text, &len))
		return cli_lib_fail(1, NULL);
	rc = write_out(o, text, len);
	mmagen_free(text);
	return rc;
}

int cmd_run_gemm(struct opts *o)
{
	mmagen_gemm_request r;
	int rc;

	if ((rc = gemm_request(o, "run gemm", 0, &r)))
		return rc;
	return run_gemm(&r, o->arch != NULL, &o->rg, &o->run);
}

/* Without --arch the target comes from the GPU; a request that no form of
 * any target matches is refused before looking for one. */
static int check_request(const struct opts *o)
{
	for (size_t i = 0; i < mmagen_form_count(); i++)
		if (mmagen_form_matches(&o->req, mmagen_form_at(i)))
			return 0;
	if (o->req.opcode)
		return cli_fail(1, "%s is not a legal opcode on any target; see '" CLI_PROG
				" list --opcodes'", cli_quote(o->req.opcode));
	return cli_fail(1, "no form of any target has these fields; see '" CLI_PROG " list'");
}

static int run_cmd(struct opts *o, int bench)
{
	const mmagen_form *f;
	int rc;

	if (!o->arch) {
		if ((rc = check_request(o)))
			return rc;
		/* the GPU's own target */
		if ((rc = device_target(&o->run, &o->req.target)))
			return rc;
		o->arch = mmagen_target_name(o->req.target);
	}
	if (!bench && o->all)
		return run_tile_all(o->req.target, &o->req, o->sample_n, &o->run);
	if ((rc = select_form(o, bench ? "bench" : "run", &f)))
		return rc;
	note_defaults(o, f, NULL, 0);
	return bench ? bench_load(f, o->req.target, &o->run) : run_tile(f, o->req.target, &o->run);
}

static int cmd_run_tile(struct opts *o)
{
	if (o->sample_n && !o->all)
		return cli_fail(CLI_USAGE, "--sample-n samples --all; give --all too");
	return run_cmd(o, 0);
}

static int cmd_bench_load(struct opts *o)
{
	return run_cmd(o, 1);
}

/* bench instr refuses a form without a peak kernel before it looks for a
 * GPU: with no --arch, when no form the request matches has one. */
static int peak_request(const struct opts *o)
{
	const mmagen_form *first = NULL;
	double ops;

	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (!mmagen_form_matches(&o->req, f))
			continue;
		if (!mmagen_peak_ops(f, &ops))
			return 0;
		if (!first)
			first = f;
	}
	if (first)
		mmagen_peak_ops(first, &ops);      /* its reason */
	return first ? cli_fail(CLI_USAGE, "bench instr: %s", mmagen_last_error()) : 0;
}

/* A peak loop times the instruction only where the GPU runs it natively:
 * ptxas emulates some forms (sm_90's FP8 and INT4 mma.sync, b1 .xor,
 * m8n8k4 f16 from sm_80 on: FFMA and shuffles), and with operands that
 * never change the emulation computes one product for all accumulator
 * sets (sm_90 e4m3 read 1142 "TFLOP/s").  So the form's SASS on the
 * GPU's own target (what runs, whatever --arch says) must be native, as
 * `inspect --opcode` judges it; without ptxas and nvdisasm that is said,
 * not checked. */
static int peak_native(struct opts *o, const mmagen_form *f, int arch_given)
{
	char why[512], op[256];
	unsigned v;
	int gt = o->req.target, rc;

	if (arch_given && (rc = device_target(&o->run, &gt)))
		return rc;
	mmagen_form_opcode(f, op, sizeof op);
	if (!mmagen_form_on_target(f, gt))
		return cli_fail(CLI_USAGE, "bench instr: %s needs %s; this GPU is %s",
				op, mmagen_target_name(mmagen_form_min_target(f)), mmagen_target_name(gt));
	char *ptx = NULL;             /* the forms plan's table knows to be emulated */
	mmagen_status st = mmagen_emit_peak(f, gt, &ptx, NULL);
	mmagen_free(ptx);
	if (st)
		return cli_fail(st == MMAGEN_UNSUPPORTED ? CLI_USAGE : 1, "bench instr: %s",
				mmagen_last_error());
	if (inspect_form_verdict(f, gt, &v, why, sizeof why))
		return cli_fail(1, "bench instr: %s", why);
	if (v == MMAGEN_VERDICT_UNKNOWN) {
		fprintf(stderr, "mmagen: note: bench instr: not checked that %s runs natively on %s (%s); an emulated form's loop times its emulation\n",
			op, mmagen_target_name(gt), why);
		return 0;
	}
	if (v != MMAGEN_VERDICT_NATIVE)
		return cli_fail(CLI_USAGE, "bench instr: %s is %s on %s (%s): a register loop would time that, not a tensor instruction; time a native form (`mmagen inspect --opcode OPCODE --arch %s` says which are)",
				op, mmagen_inspect_verdict_name(v), mmagen_target_name(gt), why,
				mmagen_target_name(gt));
	return 0;
}

static int cmd_bench_instr(struct opts *o)
{
	const mmagen_form *f;
	double ops;
	int rc, arch_given = o->arch != NULL;

	if (!o->arch) {
		if ((rc = check_request(o)) || (rc = peak_request(o)) ||
		    (rc = device_target(&o->run, &o->req.target)))
			return rc;
		o->arch = mmagen_target_name(o->req.target);
	}
	if ((rc = select_form(o, "bench", &f)))
		return rc;
	if (mmagen_peak_ops(f, &ops))
		return cli_fail(CLI_USAGE, "bench instr: %s", mmagen_last_error());
	note_defaults(o, f, NULL, 0);
	if ((rc = peak_native(o, f, arch_given)))
		return rc;
	return bench_instr(f, o->req.target, &o->run);
}

static int cmd_doc_signatures(struct opts *o)
{
	char *text;
	size_t len;
	int rc;

	if (mmagen_doc_signatures(&text, &len))
		return cli_lib_fail(1, NULL);
	rc = write_out(o, text, len);
	mmagen_free(text);
	return rc;
}

/* A document that the CLI writes from its own tables. */
static int write_generated(struct opts *o, void (*gen)(const struct cli_spec *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return cli_fail(1, "out of memory");
	gen(&cli_spec, f);
	if (fclose(f)) {
		free(text);
		return cli_fail(1, "out of memory");
	}
	rc = write_out(o, text, len);
	free(text);
	return rc;
}

static int cmd_doc_cli(struct opts *o)
{
	return write_generated(o, cli_doc);
}

static int cmd_doc_completion(struct opts *o)
{
	return write_generated(o, cli_completion);
}

static int (*const handlers[NCMDS])(struct opts *) = {
	[CMD_LIST] = cmd_list,
	[CMD_EMIT_INSTR] = cmd_emit_instr,
	[CMD_EMIT_TILE] = cmd_emit_tile,
	[CMD_GEMM] = cmd_gemm,
	[CMD_RUN_GEMM] = cmd_run_gemm,
	[CMD_RUN_TILE] = cmd_run_tile,
	[CMD_BENCH_LOAD] = cmd_bench_load,
	[CMD_BENCH_INSTR] = cmd_bench_instr,
	[CMD_QUANTIZE] = cmd_quantize,
	[CMD_DEQUANTIZE] = cmd_dequantize,
	[CMD_DOC_SIGNATURES] = cmd_doc_signatures,
	[CMD_DOC_CLI] = cmd_doc_cli,
	[CMD_DOC_COMPLETION] = cmd_doc_completion,
	[CMD_PLAN] = cmd_plan,
	[CMD_DOC_PLAN] = cmd_doc_plan,
	[CMD_INSPECT] = cmd_inspect,
};

int main(int argc, char **argv)
{
	struct opts o;
	int cmd, next, rc;

	cli_names_init();
	rc = cli_find_cmd(&cli_spec, argc, argv, MMAGEN_VERSION, &cmd, &next);
	if (cmd >= 0) {
		opts_init(&o);
		rc = cli_parse(&cli_spec, cmd, argc, argv, next, &o);
		if (rc == CLI_SHOW_HELP) {
			cli_help(&cli_spec, cmd, stdout);
			rc = 0;
		} else if (!rc) {
			rc = handlers[cmd](&o);
		}
	}
	/* output that did not reach stdout is a failure, said once */
	if (cli_stdout_done() && !rc)
		rc = 1;
	return rc;
}
