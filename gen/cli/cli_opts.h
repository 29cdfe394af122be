/* cli_opts.h - what the command line parses into, the command ids, and the
 * command handlers (main.c, cli_list.c, cli_quant.c). */
#ifndef MMAGEN_CLI_OPTS_H
#define MMAGEN_CLI_OPTS_H

#include "cli.h"
#include "mmagen.h"
#include "run.h"
#include "run_gemm.h"

enum {
#define CMD(id, name, args, summary, text) CMD_##id,
#include "cli_cmds.def"
#undef CMD
	NCMDS
};

/* quantize / dequantize: the strings as given */
struct quant_args {
	const char *format, *elem, *in, *out, *scales, *count, *global;
};

/* Every option's destination (the option table says which option goes
 * where). */
struct opts {
	mmagen_request req;          /* the selector */
	const char *arch;            /* --arch as given (req.target parsed) */
	const char *out;             /* -o */
	unsigned format;             /* emit: mmagen_format */
	unsigned type;               /* list --type, or MMAGEN_ANY */
	int json, opcodes, targets;  /* list */
	int all, sample_n;           /* run tile */
	struct run_opts run;
	mmagen_tile_opts tile;
	struct quant_args q;
	struct {                     /* gemm */
		unsigned acc, out, layout, tile_m, tile_n, tile_k, stages, cluster, group, promote_k,
			 schedule;
		unsigned path, split_k;
		unsigned quant;      /* --quant: mmagen_qformat */
		uint32_t problem[3]; /* --problem MxNxK: choose for it; 0: not given */
		unsigned sms;        /* --sms: multiprocessors for --problem (default 132) */
	} gemm;
	struct run_gemm_opts rg;     /* run gemm */
	const char *quant;           /* plan --quant */
	struct {                     /* inspect */
		const char *file;
	} insp;
};

extern const struct cli_spec cli_spec;

/* Defaults for every command. */
void opts_init(struct opts *o);

/* ---- cli_names.c: family and qualifier spellings, for help ---- */
extern struct cli_value cli_sparse_vals[], cli_yesno_vals[],
	cli_popc_vals[], cli_kind_vals[], cli_scale_vec_vals[],
	cli_cta_vals[], cli_asrc_vals[], cli_num_vals[], cli_ldtype_vals[],
	cli_rnd_vals[], cli_stype_vals[];
const char *cli_family_label(const mmagen_form *f);
const char *cli_asrc_name(unsigned asrc);
/* Fill the value tables from the library's qualifier table. */
void cli_names_init(void);

/* ---- command handlers: an exit status ---- */
int cmd_list(struct opts *o);
int cmd_quantize(struct opts *o);
int cmd_dequantize(struct opts *o);
int cmd_gemm(struct opts *o);
int cmd_run_gemm(struct opts *o);
int cmd_plan(struct opts *o);
int cmd_doc_plan(struct opts *o);
int cmd_inspect(struct opts *o);         /* cli_inspect.c */
/* What `inspect --opcode` says of form f on target t (cli_inspect.c). */
int inspect_form_verdict(const mmagen_form *f, int t, unsigned *verdict, char *why, size_t n);

#endif
