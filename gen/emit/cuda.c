/* cuda.c - CUDA wrapper headers: one or more instructions, each an inline
 * asm function (fragments are arrays of each thread's registers in operand
 * order, scalars are passed by value, immediates are template parameters),
 * guarded by the architecture macros nvcc defines, and a self-test kernel.
 *
 * Inline asm numbers its operands %0, %1, ... in constraint order:
 * outputs (and in-outs) first, then inputs, then the immediates ("n"
 * constraints).  struct asm_numbers records where each operand starts.
 *
 * Architecture guards.  nvcc compiles device code once per target of the
 * build (-arch=sm_90a: sm_90a; -gencode for sm_80 and sm_90a: both) and
 * defines, per `nvcc --dryrun` (CUDA 13.0):
 *   sm_XY    __CUDA_ARCH__ = XY0
 *   sm_XYf   the same and __CUDA_ARCH_FAMILY_SPECIFIC__ = XY0
 *   sm_XYa   the same and __CUDA_ARCH_SPECIFIC__ = XY0 and
 *            __CUDA_ARCH_FEAT_SMXY_ALL
 * A wrapper is real where the target compiled for has its form (the table
 * decides: mmagen_form_on_target) and in the host pass; elsewhere it traps
 * (a printf, then __trap()) and, per MMAGEN_OFF_TARGET, a call is also a
 * compile-time warning (1) or error (2: the wrapper is deleted).  Not by
 * default: nvcc -arch=sm_90a compiles compute_90 PTX besides sm_90a code,
 * and that pass would warn in every correct sm_90a build.
 */
#include "emit.h"
#include "family.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The self-test kernel gives every operand a slot of this many 32-bit
 * words in its `in` and `out` arrays: wgmma's largest fragment (128
 * registers, m64n256 f32) fits, with room to spare. */
enum { SELFTEST_SLOT_WORDS = 132 };

static const char *const c_types[] = {
	[R_B32] = "uint32_t", [R_F32] = "float", [R_F64] = "double",
	[R_B64] = "uint64_t", [R_B16] = "uint16_t", [R_PRED] = "uint32_t",
};
static const char constraint[] = {
	[R_B32] = 'r', [R_F32] = 'f', [R_F64] = 'd', [R_B64] = 'l',
	[R_B16] = 'h', [R_PRED] = 'r',
};

/* What each operand of the family emitters is, for the header's comments:
 * family (0: any), operand name (emit_*.c), meaning; the first match
 * counts.  A name missing here is a bug. */
static const struct { int family; const char *name, *what; } op_docs[] = {
	{ MMAGEN_FAM_LDMATRIX, "d", "the matrices' rows this lane receives" },
	{ MMAGEN_FAM_STMATRIX, "d", "the matrices' rows this lane stores" },
	{ 0, "d", "D, the result" },
	{ 0, "a", "A fragment" },
	{ 0, "b", "B fragment" },
	{ 0, "c", "C, added to A*B" },
	{ 0, "e", "sparse metadata (2:4 indices of A's kept elements)" },
	{ 0, "sa", "A's scale factors" },
	{ 0, "sb", "B's scale factors" },
	{ 0, "da", "shared-memory matrix descriptor of A" },
	{ 0, "db", "shared-memory matrix descriptor of B" },
	{ 0, "sd", "scale-d: 0 gives D = A*B, non-zero D = A*B + D" },
	{ 0, "dt", "tensor-memory address of D" },
	{ 0, "at", "tensor-memory address of A" },
	{ 0, "mt", "tensor-memory address of the sparse metadata" },
	{ 0, "id", "instruction descriptor (types, M, N, transposes)" },
	{ 0, "sat", "tensor-memory address of A's scale factors" },
	{ 0, "sbt", "tensor-memory address of B's scale factors" },
	{ 0, "en", "enable-input-d: 0 gives D = A*B, non-zero D = A*B + D" },
	{ 0, "p", "this lane's row address in the shared state space" },
	/* immediates: template parameters */
	{ 0, "f", "sparsity selector: which threads of a group hold the metadata" },
	{ 0, "sel", "sparsity selector: which threads of a group hold the metadata" },
	{ 0, "ida", "A's scale-factor selectors {byte-id, thread-id}" },
	{ 0, "idb", "B's scale-factor selectors {byte-id, thread-id}" },
	{ 0, "nega", "imm-scale-a: 1, or -1 to negate A" },
	{ 0, "negb", "imm-scale-b: 1, or -1 to negate B" },
	{ 0, "transa", "imm-trans-a: 1 reads A transposed (MN-major)" },
	{ 0, "transb", "imm-trans-b: 1 reads B transposed (MN-major)" },
};

static const char *op_doc(const mmagen_form *f, const char *name)
{
	for (size_t i = 0; i < sizeof op_docs / sizeof op_docs[0]; i++)
		if ((!op_docs[i].family || op_docs[i].family == f->family) &&
		    !strcmp(op_docs[i].name, name))
			return op_docs[i].what;
	assert(!"cuda.c: an operand without a description in op_docs");
	return "";
}

/* Operand classes in inline-asm order. */
enum asm_class { CLS_OUT, CLS_IN, CLS_IMM, CLS_COUNT };

struct asm_numbers {
	int first[MAX_OPS];  /* number of operand i's first register */
	int nimm;            /* immediate operands (template parameters) */
	int preds;           /* 1 if some predicate travels as an integer */
};

static int is_imm(const struct operand *o)
{
	return o->kind == OP_IMM || o->kind == OP_IMMVEC;
}

/* A scalar register operand: passed by value. */
static int is_scalar(const struct operand *o)
{
	return o->kind == OP_REG || o->kind == OP_ADDR;
}

static enum asm_class class_of(const struct operand *o)
{
	return is_imm(o) ? CLS_IMM : o->dir != DIR_IN ? CLS_OUT : CLS_IN;
}

/* Registers (or immediates) an operand contributes to the asm. */
static int asm_count(const struct operand *o)
{
	return o->kind == OP_VEC || o->kind == OP_IMMVEC ? o->count : 1;
}

/* The instruction reads or writes memory the compiler must not cache
 * across it: an address operand (ldmatrix/stmatrix, Tensor Memory) or a
 * shared-memory matrix descriptor (the only 64-bit register operands).
 * mma.sync works on registers alone and needs no "memory" clobber. */
static int touches_memory(const struct instr *in)
{
	for (int i = 0; i < in->nops; i++)
		if (in->op[i].kind == OP_ADDR ||
		    (in->op[i].kind == OP_REG && in->op[i].rtype == R_B64))
			return 1;
	return 0;
}

static void number_operands(const struct instr *in, struct asm_numbers *nb)
{
	int next = 0;

	nb->nimm = nb->preds = 0;
	for (int cls = 0; cls < CLS_COUNT; cls++)
		for (int i = 0; i < in->nops; i++) {
			const struct operand *o = &in->op[i];
			if (class_of(o) != (enum asm_class)cls)
				continue;
			nb->first[i] = next;
			next += asm_count(o);
			nb->nimm += cls == CLS_IMM;
		}
	for (int i = 0; i < in->nops; i++)
		nb->preds |= in->op[i].rtype == R_PRED && !is_imm(&in->op[i]);
}

/* The opcode with '.' and ':' as single '_' ("mma_sync_aligned_..."). */
static void c_suffix(struct buf *b, const mmagen_form *f)
{
	char op[256];
	mmagen_form_opcode(f, op, sizeof op);
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
	/* A from registers or Tensor Memory takes other operands than A from
	 * shared memory under the same opcode (CUTLASS's RS / TS) */
	if (f->asrc == MMAGEN_ASRC_REG && f->family != MMAGEN_FAM_MMA)
		buf_puts(b, "_rs");
	if (f->asrc == MMAGEN_ASRC_TMEM)
		buf_puts(b, "_ts");
}

static void c_name(struct buf *b, const mmagen_form *f)
{
	buf_puts(b, "mmagen_");
	c_suffix(b, f);
}

/* MMAGEN_HAS_<suffix>: 1 where the wrapper is real. */
static void has_macro(struct buf *b, const mmagen_form *f)
{
	buf_puts(b, "MMAGEN_HAS_");
	c_suffix(b, f);
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

/* ---- architecture guards ---- */

static int on_sm(const mmagen_form *f, unsigned sm, char suffix)
{
	for (int t = 0; t < T_COUNT; t++)
		if (mmagen_targets[t].sm == sm && mmagen_targets[t].suffix == suffix)
			return mmagen_form_on_target(f, t);
	return 0;
}

void cuda_guard(struct buf *b, const mmagen_form *f)
{
	int lo = -1, all = 1, first = 1;
	unsigned last = 0;

	/* a form every target from some plain sm_XY up has: ">= XY0" (and
	 * so on targets newer than the table, as the ISA's "sm_XY or
	 * higher" says) */
	for (int t = 0; t < T_COUNT && lo < 0; t++)
		if (!mmagen_targets[t].suffix && mmagen_form_on_target(f, t))
			lo = t;
	for (int t = 0; lo >= 0 && t < T_COUNT; t++)
		if (mmagen_targets[t].sm >= mmagen_targets[lo].sm && !mmagen_form_on_target(f, t))
			all = 0;
	if (lo >= 0 && all) {
		emitf(b, "__CUDA_ARCH__ >= $u0", mmagen_targets[lo].sm);
		return;
	}
	/* else one term per architecture number: the plain target's macro
	 * covers its 'f' and 'a' variants, the family's its 'a' variant */
	for (int t = 0; t < T_COUNT; t++) {
		unsigned sm = mmagen_targets[t].sm;
		if (sm == last)
			continue;
		last = sm;
		const char *sep = first ? "" : " || ";
		if (on_sm(f, sm, 0))
			emitf(b, "$s__CUDA_ARCH__ == $u0", sep, sm);
		else if (on_sm(f, sm, 'f'))
			emitf(b, "$s__CUDA_ARCH_FAMILY_SPECIFIC__ == $u0", sep, sm);
		else if (on_sm(f, sm, 'a'))
			emitf(b, "$sdefined(__CUDA_ARCH_FEAT_SM$u_ALL)", sep, sm);
		else
			continue;
		first = 0;
	}
	assert(!first && "cuda_guard: a form on no target");
}

/* "sm_80 and later" / "sm_90a" / "sm_100a, sm_100f, ..." */
static void target_list(struct buf *b, const mmagen_form *f)
{
	int first = 1, lo = -1, all = 1;

	for (int t = 0; t < T_COUNT && lo < 0; t++)
		if (!mmagen_targets[t].suffix && mmagen_form_on_target(f, t))
			lo = t;
	for (int t = 0; lo >= 0 && t < T_COUNT; t++)
		if (mmagen_targets[t].sm >= mmagen_targets[lo].sm && !mmagen_form_on_target(f, t))
			all = 0;
	if (lo >= 0 && all) {
		emitf(b, "$s and later", mmagen_targets[lo].name);
		return;
	}
	for (int t = 0; t < T_COUNT; t++)
		if (mmagen_form_on_target(f, t)) {
			emitf(b, "$s$s", first ? "" : ", ", mmagen_targets[t].name);
			first = 0;
		}
}

/* ---- comments: parameters and fragment layouts ---- */

/* The element type an operand's registers hold, or 0 (not a fragment of
 * typed elements). */
static mmagen_type elem_type(const mmagen_form *f, const struct operand *o)
{
	if (o->kind != OP_VEC || (f->family != MMAGEN_FAM_MMA && f->family != MMAGEN_FAM_WGMMA))
		return (mmagen_type)0;
	switch (o->name[0]) {
	case 'a': return (mmagen_type)f->a;
	case 'b': return (mmagen_type)f->b;
	case 'c': return (mmagen_type)f->c;
	case 'd': return (mmagen_type)f->d;
	}
	return (mmagen_type)0;
}

static void param_doc(struct buf *b, const mmagen_form *f, const struct operand *o)
{
	mmagen_type et = elem_type(f, o);

	emitf(b, "//   $s: $s", o->name, c_types[o->rtype]);
	if (o->kind == OP_VEC)
		emitf(b, "[$d]", o->count);
	emitf(b, "$s $s", o->dir == DIR_OUT ? ", out:" : o->dir == DIR_INOUT ? ", in/out:" : ",",
	      op_doc(f, o->name));
	if (et)
		emitf(b, " ($s)", mmagen_type_name(et));
	buf_puts(b, "\n");
}

/* "2t + 8 + e" from kg*g + kt*t + c0 + ke*e; "0" when every term is 0. */
static void affine(struct buf *b, int c0, int kg, int kt, int ke)
{
	const int k[4] = { kg, kt, c0, ke };
	const char *var[4] = { "g", "t", "", "e" };
	int any = 0;

	for (int i = 0; i < 4; i++) {
		if (!k[i])
			continue;
		if (k[i] == 1 && *var[i])
			emitf(b, "$s$s", any ? " + " : "", var[i]);
		else
			emitf(b, "$s$d$s", any ? " + " : "", k[i], var[i]);
		any = 1;
	}
	if (!any)
		buf_puts(b, "0");
}

/* One operand's mma.sync fragment layout as a formula per register, when
 * the layout is affine in g = lane / 4 and t = lane % 4 (every form but
 * m8n8k4 f16, whose quad-pairs the ISA's figures show better). */
static void frag_comment(struct buf *b, const mmagen_form *f, int operand,
			 const char *opname, const char *matrix)
{
	mmagen_frag fr;
	unsigned r, c;
	/* per register: row and column at lane 0, then their steps per g,
	 * per t and per e */
	int k[64][8];

	if (mmagen_frag_info(f, operand, &fr) || fr.threads != 32 || fr.regs > 64)
		return;
	for (unsigned reg = 0; reg < fr.regs; reg++) {
		unsigned pt[4][2] = { { 0 } };    /* lane 0, lane 4, lane 1, e = 1 */
		mmagen_frag_map(f, operand, 0, reg, 0, &pt[0][0], &pt[0][1]);
		mmagen_frag_map(f, operand, 4, reg, 0, &pt[1][0], &pt[1][1]);
		mmagen_frag_map(f, operand, 1, reg, 0, &pt[2][0], &pt[2][1]);
		if (fr.elems > 1)
			mmagen_frag_map(f, operand, 0, reg, 1, &pt[3][0], &pt[3][1]);
		else
			pt[3][0] = pt[0][0], pt[3][1] = pt[0][1];
		for (int rc = 0; rc < 2; rc++) {
			k[reg][rc] = (int)pt[0][rc];
			for (int s = 1; s < 4; s++) {
				k[reg][2 * s + rc] = (int)pt[s][rc] - (int)pt[0][rc];
				if (k[reg][2 * s + rc] < 0)
					return;
			}
		}
		/* print only what the formula reproduces exactly */
		for (unsigned l = 0; l < 32; l++)
			for (unsigned e = 0; e < fr.elems; e++) {
				int g = (int)l / 4, t = (int)l % 4;
				mmagen_frag_map(f, operand, l, reg, e, &r, &c);
				for (int rc = 0; rc < 2; rc++)
					if ((int)(rc ? c : r) != k[reg][rc] + k[reg][2 + rc] * g +
					    k[reg][4 + rc] * t + k[reg][6 + rc] * (int)e)
						return;
			}
	}
	emitf(b, "//   $s ($ux$u, $u per register): ", opname, fr.rows, fr.cols, fr.elems);
	for (unsigned reg = 0; reg < fr.regs; reg++) {
		const int *q = k[reg];
		if (reg && reg % 2 == 0)
			buf_puts(b, "\n//     ");
		else if (reg)
			buf_puts(b, "  ");
		emitf(b, "[$u] $s[", reg, matrix);
		affine(b, q[0], q[2], q[4], q[6]);
		buf_puts(b, "][");
		affine(b, q[1], q[3], q[5], q[7]);
		buf_puts(b, "]");
	}
	if (fr.elems > 1)
		emitf(b, "; e = 0..$u", fr.elems - 1);
	buf_puts(b, "\n");
}

static void layout_comment(struct buf *b, const mmagen_form *f)
{
	if (f->family != MMAGEN_FAM_MMA || (f->m == 8 && f->k == 4 && f->a == MMAGEN_F16))
		return;
	buf_puts(b, "// Fragment layout: register [r] of each thread holds these elements, with\n"
		    "// g = lane / 4, t = lane % 4 (lane = threadIdx.x % 32), and element e\n"
		    "// in bits [e*w, (e+1)*w) of the register for elements w bits wide:\n");
	frag_comment(b, f, MMAGEN_OPND_A, "a", f->sparse ? "Acompressed" : "A");
	frag_comment(b, f, MMAGEN_OPND_B, "b", "B");
	frag_comment(b, f, MMAGEN_OPND_C, "c", "C");
	frag_comment(b, f, MMAGEN_OPND_D, "d", "D");
}

/* ---- the wrapper ---- */

/* "template <int F = 0, int IDA0 = 0, ...>" with the form's values as
 * defaults. */
static void emit_template(struct buf *b, const struct instr *in)
{
	int first = 1;

	buf_puts(b, "template <");
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

/* "(float *d, const uint32_t *a, uint64_t da, ...)": fragments by
 * pointer, scalars by value; without names for the off-target bodies. */
static void emit_signature(struct buf *b, const mmagen_form *f, const struct instr *in,
			   int names)
{
	int first = 1;

	c_name(b, f);
	buf_puts(b, "(");
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (is_imm(o))
			continue;
		emitf(b, "$s$s$s$s$s", first ? "" : ", ",
		      o->dir == DIR_IN && !is_scalar(o) ? "const " : "", c_types[o->rtype],
		      is_scalar(o) ? (names ? " " : "") : " *", names ? o->name : "");
		first = 0;
	}
	buf_puts(b, ")");
}

/* The asm string: predicates arrive as integers and become .pred p. */
static void emit_asm_text(struct buf *b, const char *op, const struct instr *in,
			  const struct asm_numbers *nb)
{
	if (nb->preds) {
		buf_puts(b, "\t\t\"{\\n\\t.reg .pred p;\\n\\t\"\n");
		for (int i = 0; i < in->nops; i++)
			if (in->op[i].rtype == R_PRED && !is_imm(&in->op[i]))
				emitf(b, "\t\t\"setp.ne.b32 p, %$d, 0;\\n\\t\"\n",
				      nb->first[i]);
	}
	emitf(b, "\t\t\"$s \"\n\t\t\"", op);
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		int n0 = nb->first[i];
		if (i)
			buf_puts(b, ", ");
		switch (o->kind) {
		case OP_VEC:
			buf_puts(b, "{");
			for (int r = 0; r < o->count; r++)
				emitf(b, "$s%$d", r ? ", " : "", n0 + r);
			buf_puts(b, "}");
			break;
		case OP_REG:
			if (o->rtype == R_PRED)
				buf_puts(b, "p");
			else
				emitf(b, "%$d", n0);
			break;
		case OP_ADDR:
			emitf(b, "[%$d]", n0);
			break;
		case OP_IMM:
			emitf(b, "%$d", n0);
			break;
		case OP_IMMVEC:
			emitf(b, "{%$d, %$d}", n0, n0 + 1);
			break;
		}
	}
	buf_puts(b, nb->preds ? ";\\n\\t}\\n\"\n" : ";\\n\"\n");
}

/* ": outputs : inputs, immediates [: "memory"]" */
static void emit_constraints(struct buf *b, const struct instr *in)
{
	int first = 1;

	for (int cls = 0; cls < CLS_COUNT; cls++) {
		/* the immediates share the inputs' list */
		if (cls != CLS_IMM) {
			buf_puts(b, cls == CLS_OUT ? "\t\t: " : "\n\t\t: ");
			first = 1;
		}
		for (int i = 0; i < in->nops; i++) {
			const struct operand *o = &in->op[i];
			if (class_of(o) != (enum asm_class)cls)
				continue;
			for (int r = 0; r < asm_count(o); r++) {
				buf_puts(b, first ? "" : ", ");
				first = 0;
				if (cls == CLS_IMM) {
					buf_puts(b, "\"n\"(");
					imm_param(b, o, r);
					buf_puts(b, ")");
					continue;
				}
				const char *mod = o->dir == DIR_OUT ? "=" :
						  o->dir == DIR_INOUT ? "+" : "";
				if (is_scalar(o))
					emitf(b, "\"$s$s\"($s)", mod,
					      (char[]){ constraint[o->rtype], 0 }, o->name);
				else
					emitf(b, "\"$s$s\"($s[$d])", mod,
					      (char[]){ constraint[o->rtype], 0 }, o->name, r);
			}
		}
	}
	buf_puts(b, touches_memory(in) ? "\n\t\t: \"memory\");\n}\n" : ");\n}\n");
}

/* The comment above a wrapper: opcode, targets, parameters, template
 * arguments, memory, layout. */
static void emit_doc(struct buf *b, const mmagen_form *f, const struct instr *in,
		     const char *op)
{
	emitf(b, "// $s\n// Targets: ", op);
	target_list(b, f);
	buf_puts(b, ".\n// Parameters (per thread):\n");
	for (int i = 0; i < in->nops; i++)
		if (!is_imm(&in->op[i]))
			param_doc(b, f, &in->op[i]);
	for (int i = 0, first = 1; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (!is_imm(o))
			continue;
		if (first)
			buf_puts(b, "// Template arguments (the form's values are the defaults):\n");
		first = 0;
		buf_puts(b, "//   ");
		imm_param(b, o, 0);
		if (o->kind == OP_IMMVEC) {
			buf_puts(b, ", ");
			imm_param(b, o, 1);
		}
		emitf(b, "  $s\n", op_doc(f, o->name));
	}
	if (f->family == MMAGEN_FAM_WGMMA)
		buf_puts(b, "// Asynchronous: wgmma.fence before, wgmma.commit_group and\n"
			    "// wgmma.wait_group after are the caller's.\n");
	if (f->family == MMAGEN_FAM_TCGEN05)
		buf_puts(b, "// Asynchronous: one thread issues it; tcgen05.commit and the\n"
			    "// mbarrier wait are the caller's.\n");
	layout_comment(b, f);
}

static void emit_wrapper(struct buf *b, const mmagen_form *f, const struct instr *in)
{
	struct asm_numbers nb;
	char op[256];

	mmagen_form_opcode(f, op, sizeof op);
	number_operands(in, &nb);
	buf_puts(b, "\n#ifndef ");
	has_macro(b, f);
	buf_puts(b, "\n#if !defined(__CUDA_ARCH__) || ");
	cuda_guard(b, f);
	buf_puts(b, "\n#define ");
	has_macro(b, f);
	buf_puts(b, " 1\n#else\n#define ");
	has_macro(b, f);
	buf_puts(b, " 0\n#endif\n\n");
	emit_doc(b, f, in, op);
	/* on target */
	buf_puts(b, "#if ");
	has_macro(b, f);
	buf_puts(b, "\n");
	if (nb.nimm)
		emit_template(b, in);
	buf_puts(b, "static __device__ __forceinline__ void\n");
	emit_signature(b, f, in, 1);
	buf_puts(b, "\n{\n\tasm volatile(\n");
	emit_asm_text(b, op, in, &nb);
	emit_constraints(b, in);
	/* off target: an error, or a trap with a warning */
	buf_puts(b, "#elif MMAGEN_OFF_TARGET == 2\n");
	if (nb.nimm)
		emit_template(b, in);
	buf_puts(b, "static __device__ void ");
	emit_signature(b, f, in, 0);
	buf_puts(b, " = delete;\n#else\n");
	if (nb.nimm)
		emit_template(b, in);
	emitf(b, "MMAGEN_OFF_TARGET_WARN(\"$s needs ", op);
	target_list(b, f);
	buf_puts(b, "; the target compiled for lacks it and the call traps\")\n"
		    "static __device__ __forceinline__ void\n");
	emit_signature(b, f, in, 0);
	emitf(b, "\n{\n\tprintf(\"mmagen: $s needs ", op);
	target_list(b, f);
	buf_puts(b, ", and this code was compiled for __CUDA_ARCH__ %d: trap\\n\", __CUDA_ARCH__);\n"
		    "\t__trap();\n}\n#endif\n#endif\n");
}

static void emit_banner(struct buf *b, const mmagen_form *const *fs, size_t n, int t)
{
	char op[256];

	emitf(b, "// Generated by mmagen for $s: CUDA wrappers (inline asm) for\n",
	      mmagen_target_name(t));
	for (size_t i = 0; i < n; i++) {
		unsigned v = mmagen_form_min_ptx(fs[i], t);
		emitf(b, "//   $s (PTX ISA $u.$u)\n", mmagen_form_opcode(fs[i], op, sizeof op),
		      v / 10, v % 10);
	}
	buf_puts(b,
		"//\n"
		"// Fragments are arrays of each thread's registers in operand order,\n"
		"// scalars are passed by value, immediate operands are template\n"
		"// parameters; predicates are passed as integers (non-zero: true).\n"
		"//\n"
		"// Each wrapper is guarded by the architecture macros nvcc defines for\n"
		"// the target it compiles for (-arch, each -gencode): MMAGEN_HAS_<name>\n"
		"// is 1 where the instruction exists (and in the host pass), 0 where it\n"
		"// does not. There a call prints a line and traps at run time, and\n"
		"// MMAGEN_OFF_TARGET makes it a compile-time warning (1) or error (2).\n"
		"// The default (0) has neither: nvcc -arch=sm_90a also compiles\n"
		"// portable compute_90 PTX, where sm_90a's instructions are off target.\n"
		"#pragma once\n#include <stdint.h>\n#include <stdio.h>\n\n"
		"#ifndef MMAGEN_OFF_TARGET\n#define MMAGEN_OFF_TARGET 0\n#endif\n"
		"#ifndef MMAGEN_OFF_TARGET_WARN\n#if MMAGEN_OFF_TARGET == 1\n"
		"#define MMAGEN_OFF_TARGET_WARN(msg) __attribute__((deprecated(msg)))\n"
		"#else\n#define MMAGEN_OFF_TARGET_WARN(msg)\n#endif\n#endif\n");
}

/* A kernel that calls every wrapper that exists on the target compiled
 * for, for compile checks with nvcc (-DMMAGEN_WRAPPER_SELFTEST): operand
 * i reads and writes words i * SELFTEST_SLOT_WORDS... of `in` and `out`. */
static void emit_selftest_call(struct buf *b, const mmagen_form *f, const struct instr *in)
{
	int first = 1;

	buf_puts(b, "#if ");
	has_macro(b, f);
	buf_puts(b, "\n\t{\n");
	for (int i = 0; i < in->nops; i++) {
		const struct operand *o = &in->op[i];
		if (is_imm(o))
			continue;
		if (is_scalar(o)) {
			emitf(b, "\t\t$s $s = ($s)in[$d];\n", c_types[o->rtype], o->name,
			      c_types[o->rtype], i * SELFTEST_SLOT_WORDS);
			continue;
		}
		int n = o->count;
		assert(n <= SELFTEST_SLOT_WORDS && "operand larger than its self-test slot");
		emitf(b, "\t\t$s $s[$d];\n\t\tfor (int i = 0; i < $d; i++)\n\t\t\t$s[i] = ($s)in[$d + i];\n",
		      c_types[o->rtype], o->name, n, n, o->name, c_types[o->rtype],
		      i * SELFTEST_SLOT_WORDS);
	}
	buf_puts(b, "\t\t");
	c_name(b, f);
	buf_puts(b, "(");
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
		emitf(b, "\t\tfor (int i = 0; i < $d; i++)\n\t\t\tout[$d + i] = (uint32_t)$s[i];\n",
		      o->count, i * SELFTEST_SLOT_WORDS, o->name);
	}
	buf_puts(b, "\t}\n#endif\n");
}

void emit_cuda(struct buf *b, const mmagen_form *const *fs, size_t n, int t)
{
	struct instr in;

	emit_banner(b, fs, n, t);
	for (size_t i = 0; i < n; i++) {
		instr_of(fs[i], &in);
		emit_wrapper(b, fs[i], &in);
	}
	buf_puts(b, "\n#ifdef MMAGEN_WRAPPER_SELFTEST\n"
		    "extern \"C\" __global__ void mmagen_selftest(const uint32_t *in, uint32_t *out)\n{\n");
	for (size_t i = 0; i < n; i++) {
		instr_of(fs[i], &in);
		emit_selftest_call(b, fs[i], &in);
	}
	buf_puts(b, "}\n#endif\n");
}

mmagen_status mmagen_emit_cuda(const mmagen_form *const *fs, size_t n, int t,
			       char **out, size_t *len)
{
	const mmagen_form **keep;
	size_t nkeep = 0;
	struct buf b;
	char op[256];

	if (!fs || !n || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_emit_cuda: forms (at least one) and an output are required");
	for (size_t i = 0; i < n; i++) {
		const mmagen_form *f = fs[i];
		if (!f || !family_of(f->family) || f->row >= mmagen_row_count)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"mmagen_emit_cuda: form %zu is not a form of the table; "
				"take forms from mmagen_select or mmagen_form_at", i);
		if (!mmagen_form_on_target(f, t))
			return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
				mmagen_form_opcode(f, op, sizeof op),
				mmagen_target_name(mmagen_form_min_target(f)),
				mmagen_target_name(t));
	}
	keep = malloc(n * sizeof *keep);
	if (!keep)
		return mmagen_set_error(MMAGEN_NO_MEMORY, "out of memory");
	/* forms that print the same instruction with the same operands
	 * (tcgen05's descriptor types) have one wrapper */
	for (size_t i = 0; i < n; i++) {
		size_t j;
		struct buf bi, bj;
		buf_init(&bi);
		c_suffix(&bi, fs[i]);
		for (j = 0; j < nkeep; j++) {
			buf_init(&bj);
			c_suffix(&bj, keep[j]);
			int same = bi.len == bj.len && bi.data && bj.data && !memcmp(bi.data, bj.data, bi.len);
			buf_free(&bj);
			if (same)
				break;
		}
		buf_free(&bi);
		if (j == nkeep)
			keep[nkeep++] = fs[i];
	}
	buf_init(&b);
	emit_cuda(&b, keep, nkeep, t);
	free(keep);
	return buf_finish(&b, out, len);
}
