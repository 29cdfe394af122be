/* emit.h - the instruction model shared by the family emitters (emit_*.c)
 * and the writers of modules and wrappers.
 *
 * A family emitter turns a form into an opcode string and an operand list;
 * everything that prints (PTX module, CUDA inline asm, plain text) works
 * from that list, so a new family is one emit_*.c, rows in sigs.def and
 * one entry in the family list (family.c).  Files:
 *   family.c   the family list; dispatch: opcode, shape, operands of a form
 *   operand.c  the operand model (instr_add, register types, operand text)
 *   module.c   PTX modules: header, .reg lines, the instruction, test entry
 *   forms.c    one module with an entry per form (ptxas checks)
 *   cuda.c     the CUDA inline-asm wrapper
 *   instr.c    mmagen_emit_instr, the public entry
 *   qual.c     qualifier spellings (emit_qual)
 */
#ifndef MMAGEN_EMIT_H
#define MMAGEN_EMIT_H

#include "ptx.h"
#include "qual.h"
#include "table.h"

enum reg_type { R_B32, R_F32, R_F64, R_B64, R_B16, R_PRED };
enum op_kind {
	OP_VEC,      /* {r0, r1, ...}: `count` registers */
	OP_REG,      /* one register */
	OP_IMM,      /* an immediate: imm[0] */
	OP_IMMVEC,   /* {imm0, imm1} */
	OP_ADDR      /* [register]: a shared-memory or tensor-memory address */
};
enum op_dir { DIR_IN, DIR_OUT, DIR_INOUT };

struct operand {
	const char *name;    /* register prefix and wrapper parameter: "d", "a" */
	uint8_t kind;        /* enum op_kind */
	uint8_t count;       /* registers in an OP_VEC */
	uint8_t rtype;       /* enum reg_type */
	uint8_t dir;         /* enum op_dir */
	int32_t imm[2];
	kreg reg;            /* registers a kernel builder bound (kb_bind);
				* unbound (n == 0): named %r<name><i> */
};

#define MAX_OPS 14
#define INSTR_MAX_AROUND 4
struct instr {
	struct operand op[MAX_OPS];
	int nops;
	/* lines the module runs before the instruction, and after it */
	const char *pre[INSTR_MAX_AROUND], *post[INSTR_MAX_AROUND];
};

struct family_emitter {
	/* Append the complete opcode of f to b. */
	void (*opcode)(const mmagen_form *f, struct buf *b);
	/* Fill the operand list of f. */
	void (*operands)(const mmagen_form *f, struct instr *in);
	/* Append the shape as printed in tables ("m16n8k16"). */
	void (*shape)(const mmagen_form *f, struct buf *b);
};

extern const struct family_emitter mmagen_emit_mma, mmagen_emit_wgmma,
	mmagen_emit_tcgen05, mmagen_emit_ldmatrix, mmagen_emit_stmatrix;
/* The emitter of a family (family.c); NULL if `family` is not one. */
const struct family_emitter *family_emitter(int family);

/* Helpers for family emitters.  More than MAX_OPS operands is a bug
 * (assert). */
void instr_add(struct instr *in, const char *name, int kind, int count,
	       int rtype, int dir);
void instr_add_imm(struct instr *in, const char *name, int32_t v);
void instr_add_immvec(struct instr *in, const char *name, int32_t a, int32_t b);
/* Register type for an accumulator / fragment of element type t. */
int reg_type_of(mmagen_type t);

/* Format the operand list as PTX ("{%rd0, %rd1}, {%ra0}, ..."). */
void emit_operands(struct buf *b, const struct instr *in);

/* The operand list of f. */
void instr_of(const mmagen_form *f, struct instr *in);
/* The instruction line of f with in's operands, between the lines the
 * family needs around it (in->pre, in->post: wgmma's fence/commit/wait). */
void emit_instruction(struct buf *b, const mmagen_form *f, const struct instr *in);
/* ".reg" lines for every register operand of in. */
void emit_regs(struct buf *b, const struct instr *in);
/* ".version", ".target", ".address_size" */
void emit_header(struct buf *b, int t, unsigned v);
/* PTX spelling of enum reg_type ("b32"), and its bytes in memory */
extern const char *const reg_ptx[];
extern const unsigned reg_bytes[];

/* An entry `name`(in, out) that loads every input of f's instruction from
 * in[], runs it, and stores every output to out[] (module.c). */
void emit_test_entry(struct buf *b, const mmagen_form *f, const char *name);
/* The standalone module of f on target t: comment, header, one entry. */
void emit_module(struct buf *b, const mmagen_form *f, int t);
/* The CUDA wrapper header of forms fs[0..n) (distinct opcodes, each on
 * target t) (cuda.c). */
void emit_cuda(struct buf *b, const mmagen_form *const *fs, size_t n, int t);
/* The preprocessor condition under which nvcc's device pass compiles for a
 * target that has f ("__CUDA_ARCH__ >= 800", ...) (cuda.c). */
void cuda_guard(struct buf *b, const mmagen_form *f);

/* One module for target t at .version `version` with one entry per form
 * ("mmagen_f0", ...); first_line[i], if given, receives the line where
 * entry i starts, so that ptxas errors can be traced to forms. */
mmagen_status emit_forms_module(const mmagen_form *const *fs, size_t n, int t,
				unsigned version, char **out, size_t *len,
				size_t *first_line);

#endif
