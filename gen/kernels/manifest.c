/* manifest.c - what every tile generator shares: the manifest's parameter
 * list, the entry's pointer parameters, the JSON manifest. */
#include "kernel.h"

#include <assert.h>
#include <ctype.h>
#include <string.h>

void tile_info_init(mmagen_tile_info *ti, const mmagen_form *f, unsigned threads)
{
	memset(ti, 0, sizeof *ti);
	ti->kernel = "mmagen_tile";
	ti->block[0] = threads;
	ti->block[1] = ti->block[2] = 1;
	ti->grid[0] = ti->grid[1] = ti->grid[2] = 1;
	ti->m = f->m;
	ti->n = f->n;
	ti->k = f->k;
}

static size_t round8(size_t bits)
{
	size_t bytes = (bits + 7) / 8;
	return (bytes + 7) / 8 * 8;
}

void tile_add_param(mmagen_tile_info *ti, const char *name, unsigned rows,
		    unsigned cols, unsigned bits, unsigned type, int output)
{
	assert(ti->nparams < MMAGEN_TILE_MAX_PARAMS);   /* the public bound */
	mmagen_tile_param *p = &ti->params[ti->nparams++];
	p->name = name;
	p->rows = rows;
	p->cols = cols;
	p->elem_bits = bits;
	p->type = (uint8_t)type;
	p->output = (uint8_t)output;
	p->bytes = round8((size_t)rows * cols * bits);
}

const mmagen_tile_param *tile_param(const mmagen_tile_info *ti, const char *name)
{
	for (unsigned i = 0; i < ti->nparams; i++)
		if (!strcmp(ti->params[i].name, name))
			return &ti->params[i];
	return NULL;
}

kreg tile_param_reg(const mmagen_tile_info *ti, const kreg *g, const char *name)
{
	const mmagen_tile_param *p = tile_param(ti, name);
	assert(p);     /* generators ask only for parameters they declared */
	return g[p - ti->params];
}

/* "SA" -> "psa" */
static void param_symbol(const char *name, char *out, size_t n)
{
	size_t i = 0;
	out[i++] = 'p';
	for (; *name && i + 1 < n; name++)
		out[i++] = (char)tolower((unsigned char)*name);
	out[i] = '\0';
}

void tile_entry_params(struct kb *kb, const mmagen_tile_info *ti, kreg *g)
{
	struct kb_slot *cur = kb->cur;
	char sym[16];

	kb_at(kb, "params");
	for (unsigned i = 0; i < ti->nparams; i++) {
		param_symbol(ti->params[i].name, sym, sizeof sym);
		ke(kb, "\t.param .u64 $s$s\n", sym, i + 1 < ti->nparams ? "," : ")");
	}
	kb->cur = cur;
	for (unsigned i = 0; i < ti->nparams; i++) {
		param_symbol(ti->params[i].name, sym, sizeof sym);
		g[i] = frag_param_ptr(kb, sym);
	}
}

struct operand *tile_find_op(struct instr *in, const char *name)
{
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, name))
			return &in->op[i];
	return NULL;
}

void tile_emit_json(struct buf *b, const mmagen_form *f, int t, const mmagen_tile_info *ti,
		    const char *meta_layout)
{
	char op[256];
	emitf(b, "{\n  \"kernel\": \"$s\",\n  \"opcode\": \"$s\",\n  \"target\": \"$s\",\n",
	      ti->kernel, mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t));
	emitf(b, "  \"m\": $u, \"n\": $u, \"k\": $u,\n  \"grid\": [$u, $u, $u],\n"
		 "  \"block\": [$u, $u, $u],\n  \"shared_bytes\": $u,\n"
		 "  \"static_shared_bytes\": $u,\n  \"fragment_loads\": \"$s\",\n  \"params\": [\n",
	      ti->m, ti->n, ti->k, ti->grid[0], ti->grid[1], ti->grid[2], ti->block[0],
	      ti->block[1], ti->block[2], ti->smem, ti->static_smem,
	      ti->static_smem ? "ldmatrix" : "direct");
	for (unsigned i = 0; i < ti->nparams; i++) {
		const mmagen_tile_param *p = &ti->params[i];
		emitf(b, "    {\"name\": \"$s\", \"type\": \"$s\", \"rows\": $u, \"cols\": $u, "
			 "\"elem_bits\": $u, \"bytes\": $u, \"output\": $s, \"layout\": \"$s\"}$s\n",
		      p->name, p->type ? mmagen_type_name((mmagen_type)p->type) : "u32",
		      p->rows, p->cols, p->elem_bits, (unsigned)p->bytes,
		      p->output ? "true" : "false",
		      p->name[0] == 'E' ? meta_layout : "row-major, packed",
		      i + 1 < ti->nparams ? "," : "");
	}
	buf_puts(b, "  ]\n}\n");
}
