/* kernel_tile.c - one-tile kernels: a warp loads A, B, C from global memory
 * into the fragment registers of an mma form, runs it, stores D.
 *
 * Loads go through per-operand tables in .const memory: entry
 * [lane][reg][elem] is the element's row-major index in its tile, taken
 * from the fragment layout (layout.c).  So the kernel is the same code for
 * every layout, m8n8k4's quad-pairs included; speed does not matter here,
 * correctness and coverage do. */
#include "emit.h"
#include "kernel.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = { "A", "B", "C", "D", "E" };

/* Element width of a tile in memory: the register container for A and B,
 * the type's own for C and D. */
static unsigned mem_bits(const mmagen_form *f, int operand, const mmagen_frag *fr)
{
	if (operand == MMAGEN_OPND_A || operand == MMAGEN_OPND_B)
		return fr->elem_bits;
	return mmagen_type_bits((mmagen_type)(operand == MMAGEN_OPND_C ? f->c : f->d));
}

size_t tile_round8(size_t bits)
{
	size_t bytes = (bits + 7) / 8;
	return (bytes + 7) / 8 * 8;
}

/* ---- the shared-memory path: ldmatrix for 16-bit A and B ----
 * The seed's recipe: lane l gives the address of row l%8 of 8x8 matrix
 * l/8; .x4 of a row-major 16x16 A yields a0..a3 in mma order when matrix j
 * is the block at rows (j%2)*8, columns (j/2)*8; B (KxN row-major) comes
 * with .trans, matrix j being K rows j*8..j*8+7. */
static int use_ldmatrix(const mmagen_form *f, const mmagen_frag *fa)
{
	return f->family == MMAGEN_FAM_MMA && fa->threads == 32 && f->m == 16 &&
	       f->n == 8 && mmagen_type_bits((mmagen_type)f->a) == 16 &&
	       mmagen_type_bits((mmagen_type)f->b) == 16;
}

/* Which generator makes the tile kernel of f (kernel.h). */
static int tile_kind(const mmagen_form *f)
{
	switch (f->family) {
	case MMAGEN_FAM_MMA:
		return f->block_scale ? TILE_SM120 : TILE_MMA;
	case MMAGEN_FAM_WGMMA:
		return TILE_WGMMA;
	case MMAGEN_FAM_TCGEN05:
		return TILE_TCGEN05;
	default:
		return TILE_NONE;
	}
}

void mmagen_tile_opts_init(mmagen_tile_opts *o)
{
	memset(o, 0, sizeof *o);
	o->swizzle = 128;
	o->scale_d = 1;
}

/* The options with defaults filled in, checked. */
static mmagen_status tile_opts(const mmagen_tile_opts *in, mmagen_tile_opts *o)
{
	if (!in)
		mmagen_tile_opts_init(o);
	else
		*o = *in;
	if (o->swizzle != 0 && o->swizzle != 32 && o->swizzle != 64 && o->swizzle != 128)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"swizzle %u bytes does not exist; use 0 (none), 32, 64 or 128",
			o->swizzle);
	if (o->major_a > 1 || o->major_b > 1)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"major-ness is 0 (K-major) or 1 (MN-major)");
	return MMAGEN_OK;
}

mmagen_status mmagen_tile_info_of(const mmagen_form *f, const mmagen_tile_opts *opts,
				  mmagen_tile_info *out)
{
	mmagen_tile_opts o;
	mmagen_frag fr[4];
	mmagen_status s;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_tile_info_of: NULL argument");
	if ((s = tile_opts(opts, &o)))
		return s;
	switch (tile_kind(f)) {
	case TILE_WGMMA:
		return tile_info_wgmma(f, &o, out);
	case TILE_TCGEN05:
		return tile_info_tcgen05(f, &o, out);
	case TILE_SM120:
		return tile_info_sm120(f, &o, out);
	case TILE_NONE:
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s has no tile kernel: tiles are for MMA forms (mma, wgmma, tcgen05); %s is used inside them",
			mmagen_family_name(f->family), mmagen_family_name(f->family));
	default:
		break;
	}
	for (int o = 0; o < 4; o++)
		if ((s = mmagen_frag_info(f, o, &fr[o])))
			return s;
	memset(out, 0, sizeof *out);
	out->kernel = "mmagen_tile";
	out->block[0] = 32; out->block[1] = out->block[2] = 1;
	out->grid[0] = out->grid[1] = out->grid[2] = 1;
	out->m = f->m; out->n = f->n; out->k = f->k;
	const uint8_t types[] = { f->a, f->b, f->c, f->d };
	for (int p = 0; p < 4; p++)
		tile_add_param(out, names[p], fr[p].rows, fr[p].cols,
			       p == 3 ? mmagen_type_bits((mmagen_type)f->d) : mem_bits(f, p, &fr[p]),
			       types[p], p == 3);
	if (use_ldmatrix(f, &fr[0]))
		out->static_smem = (unsigned)(out->params[0].bytes + out->params[1].bytes);
	if (f->sparse)   /* one metadata register per lane */
		tile_add_param(out, "E", 1, 32, 32, 0, 0);
	return MMAGEN_OK;
}

void tile_add_param(mmagen_tile_info *ti, const char *name, unsigned rows,
		    unsigned cols, unsigned bits, unsigned type, int output)
{
	mmagen_tile_param *p = &ti->params[ti->nparams++];
	p->name = name;
	p->rows = rows;
	p->cols = cols;
	p->elem_bits = bits;
	p->type = (uint8_t)type;
	p->output = (uint8_t)output;
	p->bytes = tile_round8((size_t)rows * cols * bits);
}

mmagen_status tile_emit_table(struct buf *b, const mmagen_form *f, int o,
				const mmagen_frag *fr, const char *name)
{
	unsigned n = fr->threads * fr->regs * fr->elems;
	emitf(b, ".const .align 4 .u32 $s[$u] = {", name, n);
	for (unsigned l = 0; l < fr->threads; l++)
		for (unsigned r = 0; r < fr->regs; r++)
			for (unsigned e = 0; e < fr->elems; e++) {
				/* m8n8k4: table slot l is quad-pair 0's lane
				 * (0-3, then 16-19) */
				unsigned lane = fr->threads == 8 && l >= 4 ? l + 12 : l;
				unsigned row, col;
				mmagen_status s = mmagen_frag_map(f, o, lane, r, e, &row, &col);
				if (s)
					return s;
				unsigned i = (l * fr->regs + r) * fr->elems + e;
				emitf(b, "$s$s$u", i ? "," : "", i % 16 ? " " : "\n\t",
				      row * fr->cols + col);
			}
	buf_puts(b, "\n};\n");
	return MMAGEN_OK;
}

void tile_emit_load(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		      unsigned w, const char *tab, const char *g)
{
	unsigned stride = fr->regs * fr->elems * 4;
	emitf(b, "\t// $s\n\tmul.lo.u32 %t0, %ql, $u;\n\tcvt.u64.u32 %x0, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x0;\n", op->name, stride, tab);
	for (unsigned r = 0; r < fr->regs; r++) {
		if (fr->elems > 1)
			emitf(b, "\tmov.b32 %r$s$u, 0;\n", op->name, r);
		for (unsigned e = 0; e < fr->elems; e++) {
			unsigned slot = (r * fr->elems + e) * 4;
			emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tmul.lo.u32 %t1, %t0, $u;\n"
				 "\tshr.u32 %t2, %t1, 3;\n\tcvt.u64.u32 %x0, %t2;\n"
				 "\tadd.u64 %x0, %$s, %x0;\n", slot, w, g);
			if (fr->elems == 1) {
				emitf(b, "\tld.global.$s %r$s$u, [%x0];\n", reg_ptx[op->rtype],
				      op->name, r);
				continue;
			}
			if (w == 16)
				buf_puts(b, "\tld.global.u16 %h0, [%x0];\n\tcvt.u32.u16 %t3, %h0;\n");
			else
				buf_puts(b, "\tld.global.u8 %h0, [%x0];\n\tcvt.u32.u16 %t3, %h0;\n");
			if (w < 8)
				emitf(b, "\tand.b32 %t2, %t1, 7;\n\tshr.u32 %t3, %t3, %t2;\n"
					 "\tand.b32 %t3, %t3, $u;\n", (1u << w) - 1);
			if (e)
				emitf(b, "\tshl.b32 %t3, %t3, $u;\n", e * w);
			emitf(b, "\tor.b32 %r$s$u, %r$s$u, %t3;\n", op->name, r, op->name, r);
		}
	}
}

void tile_emit_store(struct buf *b, const struct operand *op, const mmagen_frag *fr,
		       unsigned w, const char *tab)
{
	unsigned stride = fr->regs * fr->elems * 4;
	emitf(b, "\t// D\n\tmul.lo.u32 %t0, %ql, $u;\n\tcvt.u64.u32 %x0, %t0;\n"
		 "\tmov.u64 %tb, $s;\n\tadd.u64 %tb, %tb, %x0;\n", stride, tab);
	for (unsigned r = 0; r < fr->regs; r++)
		for (unsigned e = 0; e < fr->elems; e++) {
			unsigned slot = (r * fr->elems + e) * 4;
			emitf(b, "\tld.const.u32 %t0, [%tb+$u];\n\tmul.wide.u32 %x0, %t0, $u;\n"
				 "\tadd.u64 %x0, %gd, %x0;\n", slot, w / 8);
			if (fr->elems == 1) {
				emitf(b, "\t@%pst st.global.$s [%x0], %r$s$u;\n",
				      reg_ptx[op->rtype], op->name, r);
				continue;
			}
			/* packed f16x2: element e is half e of the register */
			emitf(b, "\tmov.b32 {%h0, %h1}, %r$s$u;\n\t@%pst st.global.b16 [%x0], %h$u;\n",
			      op->name, r, e);
		}
}

void mmagen_ldmatrix_lane_addr(unsigned num, int trans_b, unsigned lane,
			       unsigned *row, unsigned *col8)
{
	unsigned j = (lane / 8) % num, r = lane % 8;
	if (trans_b) {            /* B: matrix j = K rows 8j..8j+7 */
		*row = 8 * j + r;
		*col8 = 0;
	} else {                  /* A: row half fastest, then column block */
		*row = (j % 2) * 8 + r;
		*col8 = j / 2;
	}
}

/* Copy a tile of `bytes` from global %g<x> to shared `sym` (every lane moves
 * 4-byte words), then ldmatrix it into the operand's registers. */
static void emit_ldmatrix(struct buf *b, const struct operand *op, unsigned rows,
			  unsigned cols, const char *g, const char *sym, int trans)
{
	unsigned bytes = rows * cols * 2, num = op->count;
	emitf(b, "\t// $s through shared memory and ldmatrix\n", op->name);
	for (unsigned w = 0; w < bytes / 4; w += 32) {
		emitf(b, "\tadd.u32 %t0, %lane, $u;\n\tsetp.lt.u32 %pcp, %t0, $u;\n"
			 "\tmul.wide.u32 %x0, %t0, 4;\n\tadd.u64 %x1, %$s, %x0;\n"
			 "\t@%pcp ld.global.b32 %t1, [%x1];\n\tmov.u32 %t2, $s;\n"
			 "\tmad.lo.u32 %t2, %t0, 4, %t2;\n\t@%pcp st.shared.b32 [%t2], %t1;\n",
		      w, bytes / 4, g, sym);
	}
	buf_puts(b, "\tbar.warp.sync -1;\n");
	/* per-lane address: mmagen_ldmatrix_lane_addr, in PTX */
	emitf(b, "\tshr.u32 %t0, %lane, 3;\n\trem.u32 %t0, %t0, $u;\n\tand.b32 %t1, %lane, 7;\n", num);
	if (trans)
		emitf(b, "\tmad.lo.u32 %t1, %t0, 8, %t1;\n\tmul.lo.u32 %t1, %t1, $u;\n", cols * 2);
	else
		emitf(b, "\tand.b32 %t2, %t0, 1;\n\tmad.lo.u32 %t1, %t2, 8, %t1;\n"
			 "\tmul.lo.u32 %t1, %t1, $u;\n\tshr.u32 %t2, %t0, 1;\n"
			 "\tmad.lo.u32 %t1, %t2, 16, %t1;\n", cols * 2);
	emitf(b, "\tmov.u32 %t2, $s;\n\tadd.u32 %t1, %t1, %t2;\n", sym);
	emitf(b, "\tldmatrix.sync.aligned.m8n8.x$u$s.shared.b16 {", num, trans ? ".trans" : "");
	for (unsigned r = 0; r < num; r++)
		emitf(b, "$s%r$s$u", r ? ", " : "", op->name, r);
	buf_puts(b, "}, [%t1];\n");
}

const struct operand *tile_find_op(const struct instr *in, const char *name)
{
	for (int i = 0; i < in->nops; i++)
		if (!strcmp(in->op[i].name, name))
			return &in->op[i];
	return NULL;
}

/* How a parameter's buffer is laid out, for the manifest. */
static const char *param_layout(const mmagen_form *f, const mmagen_tile_param *p)
{
	if (p->name[0] != 'E')
		return "row-major, packed";
	switch (f->family) {
	case MMAGEN_FAM_WGMMA: return "metadata register per thread (128)";
	case MMAGEN_FAM_TCGEN05: return "metadata words per row of A (Tensor Memory)";
	default: return "metadata register per lane (32)";
	}
}

static void emit_json(struct buf *b, const mmagen_form *f, int t,
		      const mmagen_tile_info *ti)
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
		      param_layout(f, p),
		      i + 1 < ti->nparams ? "," : "");
	}
	buf_puts(b, "  ]\n}\n");
}

static mmagen_status tile_emit_mma(const mmagen_form *f, int t,
				   const mmagen_tile_info *ti, struct buf *b);

mmagen_status mmagen_emit_tile(const mmagen_form *f, int t,
			       const mmagen_tile_opts *opts, mmagen_format fmt,
			       char **out, size_t *len)
{
	mmagen_tile_opts o;
	mmagen_tile_info ti;
	struct buf b;
	mmagen_status s;
	char op[256];

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_emit_tile: NULL argument");
	if (!mmagen_form_on_target(f, t))
		return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
			mmagen_form_opcode(f, op, sizeof op),
			mmagen_target_name(mmagen_form_min_target(f)), mmagen_target_name(t));
	if ((s = tile_opts(opts, &o)) || (s = mmagen_tile_info_of(f, &o, &ti)))
		return s;
	buf_init(&b);
	if (fmt == MMAGEN_FMT_JSON) {
		emit_json(&b, f, t, &ti);
		return buf_finish(&b, out, len);
	}
	if (fmt != MMAGEN_FMT_PTX)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile kernels are written as ptx (the kernel) or json (its manifest)");
	switch (tile_kind(f)) {
	case TILE_WGMMA:
		s = tile_emit_wgmma(f, t, &o, &b);
		break;
	case TILE_TCGEN05:
		s = tile_emit_tcgen05(f, t, &o, &b);
		break;
	case TILE_SM120:
		s = tile_emit_sm120(f, t, &o, &b);
		break;
	default:
		s = tile_emit_mma(f, t, &ti, &b);
		break;
	}
	if (s) {
		buf_free(&b);
		return s;
	}
	return buf_finish(&b, out, len);
}

/* The mma.sync / mma.sp tile kernel. */
static mmagen_status tile_emit_mma(const mmagen_form *f, int t,
				   const mmagen_tile_info *tip, struct buf *b)
{
	const mmagen_tile_info ti = *tip;
	mmagen_frag fr[4];
	struct instr in;
	mmagen_status s;
	char op[256];
	for (int o = 0; o < 4; o++)
		if ((s = mmagen_frag_info(f, o, &fr[o])))
			return s;
	instr_of(f, &in);
	emitf(b, "//\n// Generated by mmagen: one-tile kernel for\n//   $s\n"
		  "// A $ux$u, B $ux$u, C/D $ux$u row-major; one warp.\n//\n",
	      mmagen_form_opcode(f, op, sizeof op), ti.params[0].rows, ti.params[0].cols,
	      ti.params[1].rows, ti.params[1].cols, ti.params[2].rows, ti.params[2].cols);
	emit_header(b, t, mmagen_form_min_ptx(f, t));
	buf_puts(b, "\n");
	if ((s = tile_emit_table(b, f, MMAGEN_OPND_A, &fr[0], "mmagen_ta")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_B, &fr[1], "mmagen_tb")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_C, &fr[2], "mmagen_tc")) ||
	    (s = tile_emit_table(b, f, MMAGEN_OPND_D, &fr[3], "mmagen_td"))) {
		return s;
	}
	int ldm = use_ldmatrix(f, &fr[0]);
	if (ldm)
		emitf(b, ".shared .align 16 .b8 mmagen_sa[$u];\n.shared .align 16 .b8 mmagen_sb[$u];\n",
		      (unsigned)ti.params[0].bytes, (unsigned)ti.params[1].bytes);
	buf_puts(b, "\n.visible .entry mmagen_tile(\n\t.param .u64 pa,\n\t.param .u64 pb,\n"
		     "\t.param .u64 pc,\n\t.param .u64 pd,\n\t.param .u64 pe)\n{\n"
		     "\t.reg .b64 %ga, %gb, %gc, %gd, %ge, %tb, %x<2>;\n"
		     "\t.reg .b32 %lane, %ql, %t<4>;\n\t.reg .b16 %h<2>;\n\t.reg .pred %pst, %pcp;\n");
	emit_regs(b, &in);
	buf_puts(b, "\n\tld.param.u64 %ga, [pa];\n\tld.param.u64 %gb, [pb];\n"
		     "\tld.param.u64 %gc, [pc];\n\tld.param.u64 %gd, [pd];\n\tld.param.u64 %ge, [pe];\n"
		     "\tcvta.to.global.u64 %ga, %ga;\n\tcvta.to.global.u64 %gb, %gb;\n"
		     "\tcvta.to.global.u64 %gc, %gc;\n\tcvta.to.global.u64 %gd, %gd;\n"
		     "\tmov.u32 %lane, %tid.x;\n");
	if (fr[0].threads == 8) {
		/* m8n8k4: every quad-pair computes the same tile from quad-pair
		 * 0's data (lanes 0-3 and 16-19); only quad-pair 0 stores. */
		buf_puts(b, "\tand.b32 %t0, %lane, 3;\n\tshr.u32 %t1, %lane, 4;\n"
			     "\tshl.b32 %t1, %t1, 2;\n\tor.b32 %ql, %t0, %t1;\n"
			     "\tand.b32 %t2, %lane, 12;\n\tsetp.eq.u32 %pst, %t2, 0;\n");
	} else {
		buf_puts(b, "\tmov.u32 %ql, %lane;\n\tsetp.eq.u32 %pst, 0, 0;\n");
	}
	if (ldm) {
		emit_ldmatrix(b, tile_find_op(&in, "a"), ti.params[0].rows, ti.params[0].cols,
			      "ga", "mmagen_sa", 0);
		emit_ldmatrix(b, tile_find_op(&in, "b"), ti.params[1].rows, ti.params[1].cols,
			      "gb", "mmagen_sb", 1);
	} else {
		tile_emit_load(b, tile_find_op(&in, "a"), &fr[0], ti.params[0].elem_bits, "mmagen_ta", "ga");
		tile_emit_load(b, tile_find_op(&in, "b"), &fr[1], ti.params[1].elem_bits, "mmagen_tb", "gb");
	}
	tile_emit_load(b, tile_find_op(&in, "c"), &fr[2], ti.params[2].elem_bits, "mmagen_tc", "gc");
	if (f->sparse)
		buf_puts(b, "\t// E: this lane's metadata register\n\tcvta.to.global.u64 %ge, %ge;\n"
			     "\tmul.wide.u32 %x0, %lane, 4;\n\tadd.u64 %x0, %ge, %x0;\n"
			     "\tld.global.b32 %re, [%x0];\n");
	emit_instruction(b, f, &in);
	tile_emit_store(b, tile_find_op(&in, "d"), &fr[3], ti.params[3].elem_bits, "mmagen_td");
	buf_puts(b, "\tret;\n}\n");
	return MMAGEN_OK;
}
