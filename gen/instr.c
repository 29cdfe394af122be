/* instr.c - one instruction as a PTX module, a CUDA wrapper or a line. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

static const char *const family_names[] = {
	[MMAGEN_FAM_MMA] = "mma",
	[MMAGEN_FAM_WGMMA] = "wgmma",
	[MMAGEN_FAM_TCGEN05] = "tcgen05",
	[MMAGEN_FAM_LDMATRIX] = "ldmatrix",
	[MMAGEN_FAM_STMATRIX] = "stmatrix",
};

const char *mmagen_family_name(int family)
{
	if (family <= 0 || family >= MMAGEN_FAM_END)
		return "unknown";
	return family_names[family];
}

const struct family_emitter *family_emitter(int family)
{
	switch (family) {
	case MMAGEN_FAM_MMA: return &mmagen_emit_mma;
	case MMAGEN_FAM_WGMMA: return &mmagen_emit_wgmma;
	case MMAGEN_FAM_TCGEN05: return &mmagen_emit_tcgen05;
	case MMAGEN_FAM_LDMATRIX: return &mmagen_emit_ldmatrix;
	case MMAGEN_FAM_STMATRIX: return &mmagen_emit_stmatrix;
	}
	return NULL;
}

void instr_add(struct instr *in, const char *name, int kind, int count,
	       int rtype, int dir)
{
	if (in->nops >= MAX_OPS)
		return;
	struct operand *o = &in->op[in->nops++];
	memset(o, 0, sizeof *o);
	o->name = name;
	o->kind = (uint8_t)kind;
	/* count is 8 bits: a shape too large for any real form must not
	 * wrap to an empty "{}" (a syntax error that stops ptxas) */
	o->count = (uint8_t)(count > 255 ? 255 : count);
	o->rtype = (uint8_t)rtype;
	o->dir = (uint8_t)dir;
}

void instr_add_imm(struct instr *in, const char *name, int32_t v)
{
	instr_add(in, name, OP_IMM, 0, R_B32, DIR_IN);
	in->op[in->nops - 1].imm[0] = v;
}

void instr_add_immvec(struct instr *in, const char *name, int32_t a, int32_t b)
{
	instr_add(in, name, OP_IMMVEC, 2, R_B16, DIR_IN);
	in->op[in->nops - 1].imm[0] = a;
	in->op[in->nops - 1].imm[1] = b;
}

int regs_for(unsigned elems, unsigned container_bits, mmagen_type t)
{
	/* A fragment never takes less than one register; "{}" would be a
	 * syntax error that stops ptxas, not a verdict on the form. */
	if (!elems)
		return 1;
	if (t == MMAGEN_F64)
		return (int)elems;
	unsigned bits = elems * container_bits;
	return (int)((bits + 31) / 32);
}

int reg_type_of(mmagen_type t)
{
	if (t == MMAGEN_F64)
		return R_F64;
	if (t == MMAGEN_F32)
		return R_F32;
	return R_B32;
}

const char *const reg_ptx[] = {
	[R_B32] = "b32", [R_F32] = "f32", [R_F64] = "f64",
	[R_B64] = "b64", [R_B16] = "b16", [R_PRED] = "pred",
};
static const unsigned reg_bytes[] = {
	[R_B32] = 4, [R_F32] = 4, [R_F64] = 8, [R_B64] = 8, [R_B16] = 2,
	[R_PRED] = 4,
};

void emit_operands(struct buf *b, const struct instr *in)
{
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (i)
			buf_puts(b, ", ");
		if (o->reg.n && o->kind != OP_IMM && o->kind != OP_IMMVEC) {
			emitf(b, o->kind == OP_VEC ? "$v" : o->kind == OP_ADDR ? "[$r]" : "$r",
			      o->reg);
			continue;
		}
		switch (o->kind) {
		case OP_VEC:
			buf_puts(b, "{");
			for (int r = 0; r < o->count; r++)
				emitf(b, "$s%r$s$d", r ? ", " : "", o->name, r);
			buf_puts(b, "}");
			break;
		case OP_REG:
			emitf(b, "%r$s", o->name);
			break;
		case OP_ADDR:
			emitf(b, "[%r$s]", o->name);
			break;
		case OP_IMM:
			emitf(b, "$d", o->imm[0]);
			break;
		case OP_IMMVEC:
			emitf(b, "{$d, $d}", o->imm[0], o->imm[1]);
			break;
		}
	}
}

const char *mmagen_form_opcode(const mmagen_form *f, char *out, size_t n)
{
	struct buf b;
	char *s;

	buf_init(&b);
	family_emitter(f->family)->opcode(f, &b);
	if (buf_finish(&b, &s, NULL) || !n) {
		if (n)
			out[0] = '\0';
		return out;
	}
	snprintf(out, n, "%s", s);
	mmagen_free(s);
	return out;
}

const char *mmagen_form_shape(const mmagen_form *f, char *out, size_t n)
{
	struct buf b;
	char *s;

	buf_init(&b);
	family_emitter(f->family)->shape(f, &b);
	if (buf_finish(&b, &s, NULL) || !n) {
		if (n)
			out[0] = '\0';
		return out;
	}
	snprintf(out, n, "%s", s);
	mmagen_free(s);
	return out;
}

void instr_of(const mmagen_form *f, struct instr *in)
{
	memset(in, 0, sizeof *in);
	family_emitter(f->family)->operands(f, in);
}

/* ---- the standalone module ---- */

void emit_instruction(struct buf *b, const mmagen_form *f, const struct instr *in)
{
	for (int i = 0; i < 4 && in->pre[i]; i++)
		emitf(b, "\t$s\n", in->pre[i]);
	buf_puts(b, "\t");
	family_emitter(f->family)->opcode(f, b);
	buf_puts(b, " ");
	emit_operands(b, in);
	buf_puts(b, ";\n");
	for (int i = 0; i < 4 && in->post[i]; i++)
		emitf(b, "\t$s\n", in->post[i]);
}

void emit_regs(struct buf *b, const struct instr *in)
{
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (o->kind == OP_VEC)
			emitf(b, "\t.reg .$s %r$s<$d>;\n", reg_ptx[o->rtype],
			      o->name, o->count);
		else if (o->kind == OP_REG || o->kind == OP_ADDR)
			emitf(b, "\t.reg .$s %r$s;\n", reg_ptx[o->rtype], o->name);
	}
}

/* Inputs come from `in`, outputs go to `out`, one slot after another, so
 * that nothing is constant and nothing is dead. */
static void emit_moves(struct buf *b, const struct instr *in, int store)
{
	unsigned off = 0;
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		int isin = o->dir != DIR_OUT, isout = o->dir != DIR_IN;
		int n = o->kind == OP_VEC ? o->count : 1;
		if (o->kind != OP_VEC && o->kind != OP_REG && o->kind != OP_ADDR)
			continue;
		if (store ? !isout : !isin)
			continue;
		for (int r = 0; r < n; r++) {
			char reg[48];
			if (o->kind == OP_VEC)
				snprintf(reg, sizeof reg, "%%r%s%d", o->name, r);
			else
				snprintf(reg, sizeof reg, "%%r%s", o->name);
			if (o->rtype == R_PRED) {
				if (!store)
					emitf(b, "\tld.global.u32 %t, [%pin+$u];\n"
						 "\tsetp.ne.u32 $s, %t, 0;\n", off, reg);
				off += 4;
				continue;
			}
			if (store)
				emitf(b, "\tst.global.$s [%pout+$u], $s;\n",
				      reg_ptx[o->rtype], off, reg);
			else
				emitf(b, "\tld.global.$s $s, [%pin+$u];\n",
				      reg_ptx[o->rtype], reg, off);
			off += reg_bytes[o->rtype];
		}
	}
}

void emit_header(struct buf *b, int t, unsigned v)
{
	emitf(b, ".version $u.$u\n.target $s\n.address_size 64\n", v / 10, v % 10,
	      mmagen_target_name(t));
}

/* One .entry that loads the operands, runs the instruction of f, stores
 * the results. */
static void emit_entry(struct buf *b, const mmagen_form *f, const char *name)
{
	struct instr in;

	instr_of(f, &in);
	emitf(b, "\n.visible .entry $s(\n\t.param .u64 in,\n\t.param .u64 out)\n{\n", name);
	buf_puts(b, "\t.reg .b64 %pin, %pout;\n\t.reg .b32 %t;\n");
	emit_regs(b, &in);
	buf_puts(b, "\n\tld.param.u64 %pin, [in];\n\tld.param.u64 %pout, [out];\n"
		    "\tcvta.to.global.u64 %pin, %pin;\n\tcvta.to.global.u64 %pout, %pout;\n");
	emit_moves(b, &in, 0);
	emit_instruction(b, f, &in);
	emit_moves(b, &in, 1);
	buf_puts(b, "\tret;\n}\n");
}

static void emit_module(struct buf *b, const mmagen_form *f, int t)
{
	emitf(b, "//\n// Generated by mmagen: one ");
	family_emitter(f->family)->opcode(f, b);
	buf_puts(b, "\n//\n");
	emit_header(b, t, mmagen_form_min_ptx(f, t));
	emit_entry(b, f, "mmagen_instr");
}

mmagen_status emit_forms_module(const mmagen_form *const *fs, size_t n, int t,
				unsigned version, char **out, size_t *len,
				size_t *first_line)
{
	struct buf b;
	char name[32];

	size_t lines = 1, counted = 0;

	buf_init(&b);
	emit_header(&b, t, version);
	for (size_t i = 0; i < n; i++) {
		/* count only the text added since the last entry: modules of
		 * thousands of entries stay linear */
		if (first_line) {
			for (; counted < b.len; counted++)
				lines += b.data[counted] == '\n';
			first_line[i] = lines;
		}
		snprintf(name, sizeof name, "mmagen_f%zu", i);
		emit_entry(&b, fs[i], name);
	}
	return buf_finish(&b, out, len);
}

/* ---- the CUDA wrapper ---- */

static const char *const c_types[] = {
	[R_B32] = "uint32_t", [R_F32] = "float", [R_F64] = "double",
	[R_B64] = "uint64_t", [R_B16] = "uint16_t", [R_PRED] = "uint32_t",
};
static const char constraint[] = {
	[R_B32] = 'r', [R_F32] = 'f', [R_F64] = 'd', [R_B64] = 'l',
	[R_B16] = 'h', [R_PRED] = 'r',
};

static void c_name(struct buf *b, const mmagen_form *f)
{
	char op[256];
	mmagen_form_opcode(f, op, sizeof op);
	buf_puts(b, "mmagen_");
	for (char *p = op; *p; p++) {
		if (*p == '.' || *p == ':')
			*p = '_';
	}
	/* collapse "::" -> "__" into "_" for readability */
	char *w = op;
	for (char *r = op; *r; r++) {
		if (*r == '_' && w > op && w[-1] == '_')
			continue;
		*w++ = *r;
	}
	*w = '\0';
	buf_puts(b, op);
}

static int is_imm(const struct operand *o)
{
	return o->kind == OP_IMM || o->kind == OP_IMMVEC;
}

/* Immediates become template parameters (inline asm needs constants):
 * "f" -> F, "ida" -> IDA0, IDA1. */
static void imm_param(struct buf *b, const struct operand *o, int idx)
{
	for (const char *p = o->name; *p; p++) {
		char up[2] = { (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p), 0 };
		buf_puts(b, up);
	}
	if (o->kind == OP_IMMVEC)
		emitf(b, "$d", idx);
}

/* The C++ parameter list "float *d, const uint32_t *a, ..." */
static void cuda_params(struct buf *b, const struct instr *in)
{
	int first = 1;
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (is_imm(o))
			continue;
		emitf(b, "$s$s$s *$s", first ? "" : ", ",
		      o->dir == DIR_IN ? "const " : "", c_types[o->rtype], o->name);
		first = 0;
	}
}

/* Operand numbers as inline asm sees them: outputs (and in-outs) first,
 * then inputs, then the immediates ("n" constraints). */
static void emit_cuda(struct buf *b, const mmagen_form *f, int t,
		      const struct instr *in)
{
	int num[MAX_OPS][132];
	int next = 0, nimm = 0;
	char op[256];

	mmagen_form_opcode(f, op, sizeof op);
	emitf(b, "// Generated by mmagen: CUDA wrapper for\n//   $s\n// target $s, PTX ISA $u.$u\n",
	      op, mmagen_target_name(t), mmagen_form_min_ptx(f, t) / 10,
	      mmagen_form_min_ptx(f, t) % 10);
	buf_puts(b, "// Arrays hold each thread's fragment registers in operand order;\n"
		    "// immediate operands are template parameters.\n"
		    "#pragma once\n#include <stdint.h>\n\n");
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < in->nops; i++) {
			const struct operand *o = &in->op[i];
			int n = o->kind == OP_VEC || o->kind == OP_IMMVEC ? o->count : 1;
			int cls = is_imm(o) ? 2 : o->dir != DIR_IN ? 0 : 1;
			if (cls != pass)
				continue;
			for (int r = 0; r < n; r++)
				num[i][r] = next++;
			nimm += pass == 2;
		}
	if (nimm) {
		buf_puts(b, "template <");
		int first = 1;
		for (int i = 0; i < in->nops; i++) {
			const struct operand *o = &in->op[i];
			if (!is_imm(o))
				continue;
			for (int r = 0; r < (o->kind == OP_IMMVEC ? 2 : 1); r++) {
				buf_puts(b, first ? "int " : ", int ");
				imm_param(b, o, r);
				emitf(b, " = $d", o->imm[r]);
				first = 0;
			}
		}
		buf_puts(b, ">\n");
	}
	buf_puts(b, "static __device__ __forceinline__ void\n");
	c_name(b, f);
	buf_puts(b, "(");
	cuda_params(b, in);
	buf_puts(b, ")\n{\n\tasm volatile(\n");
	/* predicates travel as integers and become .pred inside the asm */
	int preds = 0;
	for (int i = 0; i < in->nops; i++)
		preds |= in->op[i].rtype == R_PRED && !is_imm(&in->op[i]);
	if (preds) {
		buf_puts(b, "\t\t\"{\\n\\t.reg .pred p;\\n\\t\"\n");
		for (int i = 0; i < in->nops; i++)
			if (in->op[i].rtype == R_PRED && !is_imm(&in->op[i]))
				emitf(b, "\t\t\"setp.ne.b32 p, %$d, 0;\\n\\t\"\n", num[i][0]);
	}
	emitf(b, "\t\t\"$s \"\n\t\t\"", op);
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (i)
			buf_puts(b, ", ");
		if (o->reg.n && o->kind != OP_IMM && o->kind != OP_IMMVEC) {
			emitf(b, o->kind == OP_VEC ? "$v" : o->kind == OP_ADDR ? "[$r]" : "$r",
			      o->reg);
			continue;
		}
		switch (o->kind) {
		case OP_VEC:
			buf_puts(b, "{");
			for (int r = 0; r < o->count; r++)
				emitf(b, "$s%$d", r ? ", " : "", num[i][r]);
			buf_puts(b, "}");
			break;
		case OP_REG:
			if (o->rtype == R_PRED)
				buf_puts(b, "p");
			else
				emitf(b, "%$d", num[i][0]);
			break;
		case OP_ADDR:
			emitf(b, "[%$d]", num[i][0]);
			break;
		case OP_IMM:
			emitf(b, "%$d", num[i][0]);
			break;
		case OP_IMMVEC:
			emitf(b, "{%$d, %$d}", num[i][0], num[i][1]);
			break;
		}
	}
	buf_puts(b, preds ? ";\\n\\t}\\n\"\n" : ";\\n\"\n");
	int first = 1;
	for (int pass = 0; pass < 3; pass++) {
		if (pass < 2) {
			buf_puts(b, pass ? "\n\t\t: " : "\t\t: ");
			first = 1;
		}
		for (int i = 0; i < in->nops; i++) {
			const struct operand *o = &in->op[i];
			int cls = is_imm(o) ? 2 : o->dir != DIR_IN ? 0 : 1;
			if (cls != pass)
				continue;
			int n = o->kind == OP_VEC || o->kind == OP_IMMVEC ? o->count : 1;
			for (int r = 0; r < n; r++) {
				buf_puts(b, first ? "" : ", ");
				first = 0;
				if (cls == 2) {
					buf_puts(b, "\"n\"(");
					imm_param(b, o, r);
					buf_puts(b, ")");
					continue;
				}
				const char *mod = o->dir == DIR_OUT ? "=" :
						  o->dir == DIR_INOUT ? "+" : "";
				emitf(b, "\"$s$s\"($s[$d])", mod,
				      (char[]){ constraint[o->rtype], 0 }, o->name, r);
			}
		}
	}
	buf_puts(b, "\n\t\t: \"memory\");\n}\n");

	/* A kernel that calls the wrapper, for compile checks with nvcc
	 * (-DMMAGEN_WRAPPER_SELFTEST): every operand from memory. */
	buf_puts(b, "\n#ifdef MMAGEN_WRAPPER_SELFTEST\nextern \"C\" __global__ void mmagen_selftest(const uint32_t *in, uint32_t *out)\n{\n");
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (is_imm(o))
			continue;
		int n = o->kind == OP_VEC ? o->count : 1;
		emitf(b, "\t$s $s[$d];\n\tfor (int i = 0; i < $d; i++)\n\t\t$s[i] = ($s)in[$d + i];\n",
		      c_types[o->rtype], o->name, n, n, o->name, c_types[o->rtype], i * 132);
	}
	buf_puts(b, "\t");
	c_name(b, f);
	buf_puts(b, "(");
	first = 1;
	for (int i = 0; i < in->nops; i++) {
		if (is_imm(&in->op[i]))
			continue;
		emitf(b, "$s$s", first ? "" : ", ", in->op[i].name);
		first = 0;
	}
	buf_puts(b, ");\n");
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (is_imm(o) || o->dir == DIR_IN)
			continue;
		emitf(b, "\tfor (int i = 0; i < $d; i++)\n\t\tout[$d + i] = (uint32_t)$s[i];\n",
		      o->kind == OP_VEC ? o->count : 1, i * 132, o->name);
	}
	buf_puts(b, "}\n#endif\n");
	(void)t;
}

mmagen_status mmagen_emit_instr(const mmagen_form *f, int t, mmagen_format fmt,
				char **out, size_t *len)
{
	struct buf b;
	struct instr in;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_emit_instr: form and output are required");
	if (!mmagen_form_on_target(f, t)) {
		char op[256];
		return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
			mmagen_form_opcode(f, op, sizeof op),
			mmagen_target_name(mmagen_form_min_target(f)),
			mmagen_target_name(t));
	}
	instr_of(f, &in);
	buf_init(&b);
	switch (fmt) {
	case MMAGEN_FMT_PTX:
		emit_module(&b, f, t);
		break;
	case MMAGEN_FMT_CUDA:
		emit_cuda(&b, f, t, &in);
		break;
	case MMAGEN_FMT_TEXT:
		family_emitter(f->family)->opcode(f, &b);
		buf_puts(&b, " ");
		emit_operands(&b, &in);
		buf_puts(&b, ";\n");
		break;
	default:
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"unknown output format %d; use ptx, cuda or text", (int)fmt);
	}
	return buf_finish(&b, out, len);
}
