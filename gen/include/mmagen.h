/* mmagen.h - the public API of libmmagen, the PTX generator for NVIDIA
 * tensor-core MMA instructions.
 *
 * Every function returns an mmagen_status (0 = MMAGEN_OK) or a plain value;
 * after a failure mmagen_last_error() holds a one-line message naming the
 * rule that failed and the nearest legal alternative.  The library never
 * prints and never exits.  Strings it returns are static unless said
 * otherwise; buffers it allocates are freed with mmagen_free().
 */
#ifndef MMAGEN_H
#define MMAGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI.  libmmagen.so is built with -fvisibility=hidden and exports
 * exactly the functions declared here, each marked MMAGEN_API on the line
 * before it (GLib style); tests/unit/test_abi.sh fails on any other
 * exported symbol and on a declaration without the mark.
 * Structs, by who fills them:
 *   - the caller, and they may grow: mmagen_request, mmagen_tile_opts,
 *     mmagen_gemm_request, mmagen_plan_request.  `size` first, set by
 *     their _init() macro (which passes the caller's sizeof to the
 *     _init_size() function, so it never writes past an older caller's
 *     struct); new fields are appended and the library gives a smaller
 *     caller's missing fields their defaults.  A size the library does not know is
 *     MMAGEN_INVALID_ARGUMENT.
 *   - the library, into the caller's memory, and they may grow:
 *     mmagen_gemm_info, mmagen_check_result.  The caller sets `size`;
 *     the library writes only that much.
 *   - the library, read through pointers it owns: mmagen_form (take forms
 *     from mmagen_form_at / mmagen_select, do not build them),
 *     mmagen_check (opaque), mmagen_plan (from mmagen_plan_new).
 *   - frozen, a change would be a new struct and function, not a new
 *     field: the descriptor words (mmagen_wgmma_sdesc, mmagen_tc_sdesc,
 *     mmagen_tc_idesc: their fields are the ISA's), mmagen_frag,
 *     mmagen_smem_layout, mmagen_ref_args, mmagen_quant_spec, and
 *     mmagen_tile_info / mmagen_tile_param (at most MMAGEN_TILE_MAX_PARAMS
 *     parameters; the library asserts it). */
#if defined(__GNUC__) || defined(__clang__)
#define MMAGEN_API __attribute__((visibility("default")))
#else
#define MMAGEN_API
#endif

/* ---- status codes: one list, the enum and the names come from it ---- */
#define MMAGEN_STATUS_LIST(X)                                              \
	X(OK, "ok")                                                        \
	X(INVALID_ARGUMENT, "invalid argument")                            \
	X(UNKNOWN_NAME, "unknown name")                                    \
	X(ILLEGAL_FORM, "no such instruction form")                        \
	X(AMBIGUOUS, "request matches more than one form")                 \
	X(TARGET, "form not available on this target")                     \
	X(NO_MEMORY, "out of memory")                                      \
	X(IO, "input/output error")                                        \
	X(UNSUPPORTED, "not supported by this generator")                 \
	X(INTERNAL, "internal error (a bug in mmagen)")

typedef enum mmagen_status {
#define MMAGEN_X_(id, str) MMAGEN_##id,
	MMAGEN_STATUS_LIST(MMAGEN_X_)
#undef MMAGEN_X_
	MMAGEN_STATUS_COUNT
} mmagen_status;

/* "MMAGEN_ILLEGAL_FORM" style name of a status. */
MMAGEN_API
const char *mmagen_status_str(mmagen_status s);
/* Thread-local detail of the last failure ("" when none). */
MMAGEN_API
const char *mmagen_last_error(void);
MMAGEN_API
void mmagen_free(void *p);

/* ---- element types ---- */
/* X(id, ptx name, bits) in the order of the seeds' tables. */
#define MMAGEN_TYPE_LIST(X)                                                \
	X(F64, "f64", 64)                                                  \
	X(F32, "f32", 32)                                                  \
	X(TF32, "tf32", 32)                                                \
	X(F16, "f16", 16)                                                  \
	X(BF16, "bf16", 16)                                                \
	X(E4M3, "e4m3", 8)                                                 \
	X(E5M2, "e5m2", 8)                                                 \
	X(E3M2, "e3m2", 6)                                                 \
	X(E2M3, "e2m3", 6)                                                 \
	X(E2M1, "e2m1", 4)                                                 \
	X(UE8M0, "ue8m0", 8)                                               \
	X(UE4M3, "ue4m3", 8)                                               \
	X(S32, "s32", 32)                                                  \
	X(S8, "s8", 8)                                                     \
	X(U8, "u8", 8)                                                     \
	X(S4, "s4", 4)                                                     \
	X(U4, "u4", 4)                                                     \
	X(B1, "b1", 1)

typedef enum mmagen_type {
	MMAGEN_TYPE_NONE = 0,
#define MMAGEN_X_(id, name, bits) MMAGEN_##id,
	MMAGEN_TYPE_LIST(MMAGEN_X_)
#undef MMAGEN_X_
	MMAGEN_TYPE_COUNT
} mmagen_type;

/* PTX spelling without the dot ("bf16"); "none" for MMAGEN_TYPE_NONE. */
MMAGEN_API
const char *mmagen_type_name(mmagen_type t);
/* Width of one element in bits (tf32: 32, its container). */
MMAGEN_API
unsigned mmagen_type_bits(mmagen_type t);
/* Parse a PTX name or a common alias (fp16, half, bfloat16,
 * float8_e4m3fn, int8, uint4, ...), case-insensitive, leading '.' allowed. */
MMAGEN_API
mmagen_status mmagen_type_parse(const char *s, mmagen_type *out);
/* Exact value of a bit pattern (the low mmagen_type_bits() bits of
 * `bits` are used; tf32 ignores the 13 low mantissa bits). */
MMAGEN_API
double mmagen_type_decode(mmagen_type t, uint64_t bits);
/* Round-to-nearest-even encode following the format's own rules:
 * IEEE types and e5m2 overflow to Inf; e4m3, ue4m3 and the FP6/FP4 types
 * saturate at their largest finite value; ue8m0 is the nearest power of two
 * in 2^-127..2^127; integers round then saturate; b1 is (v != 0). */
MMAGEN_API
uint64_t mmagen_type_encode(mmagen_type t, double v);
/* Largest finite value (integers: largest value). */
MMAGEN_API
double mmagen_type_max(mmagen_type t);
/* 1 for floating formats (tf32, ue8m0 and ue4m3 included). */
MMAGEN_API
int mmagen_type_is_float(mmagen_type t);


/* ---- targets ---- */
/* The targets ptxas 13.0 knows from sm_75 up, in order; see targets.def. */
MMAGEN_API
int mmagen_target_count(void);
MMAGEN_API
const char *mmagen_target_name(int t);
/* Accepts "sm_90a", "90a", "compute_90a"; on failure names the nearest. */
MMAGEN_API
mmagen_status mmagen_target_parse(const char *s, int *out);
/* Lowest .version (as 10*major+minor, e.g. 87) ptxas accepts for it. */
MMAGEN_API
unsigned mmagen_target_min_ptx(int t);

/* ---- instruction forms ---- */
typedef enum mmagen_family {
	MMAGEN_FAM_MMA = 1,     /* mma.sync, mma.sp (sparse field) */
	MMAGEN_FAM_WGMMA,       /* wgmma.mma_async{.sp} */
	MMAGEN_FAM_TCGEN05,     /* tcgen05.mma{.sp}{.ws} */
	MMAGEN_FAM_LDMATRIX,
	MMAGEN_FAM_STMATRIX,
	MMAGEN_FAM_END
} mmagen_family;

enum { MMAGEN_SPARSE_NONE, MMAGEN_SPARSE_SP, MMAGEN_SPARSE_ORDERED };
enum { MMAGEN_LAYOUT_NONE, MMAGEN_ROW, MMAGEN_COL };
enum { MMAGEN_BITOP_NONE, MMAGEN_XOR_POPC, MMAGEN_AND_POPC };
enum { MMAGEN_ASRC_NONE, MMAGEN_ASRC_REG, MMAGEN_ASRC_SMEM, MMAGEN_ASRC_TMEM };
enum { MMAGEN_RND_NONE, MMAGEN_RN, MMAGEN_RZ, MMAGEN_RM, MMAGEN_RP };
/* X(id, ptx spelling of .kind::) */
#define MMAGEN_KIND_LIST(X)                                                \
	X(F16, "f16") X(TF32, "tf32") X(F8F6F4, "f8f6f4") X(I8, "i8")     \
	X(MXF8F6F4, "mxf8f6f4") X(MXF4, "mxf4") X(MXF4NVF4, "mxf4nvf4")
typedef enum mmagen_kind {
	MMAGEN_KIND_NONE = 0,
#define MMAGEN_X_(id, s) MMAGEN_KIND_##id,
	MMAGEN_KIND_LIST(MMAGEN_X_)
#undef MMAGEN_X_
	MMAGEN_KIND_END
} mmagen_kind;
/* ldmatrix/stmatrix element formats. */
enum { MMAGEN_LD_NONE, MMAGEN_LD_B16, MMAGEN_LD_B8, MMAGEN_LD_B6P32,
       MMAGEN_LD_B4P64 };

/* One concrete, legal instruction form.  Fields that do not apply are 0.
 * For wgmma and tcgen05, C is D's incoming value (c == d).  For tcgen05,
 * M and N live in the instruction descriptor: m and n are 0 here. */
typedef struct mmagen_form {
	uint8_t family;      /* mmagen_family */
	uint8_t sparse;      /* MMAGEN_SPARSE_* */
	uint16_t m, n, k;
	uint8_t a, b, c, d;  /* mmagen_type */
	uint8_t alayout, blayout;
	uint8_t satfinite;   /* 0/1 */
	uint8_t bitop;       /* MMAGEN_BITOP_* */
	uint8_t kind;        /* mmagen_kind */
	uint8_t block_scale; /* 0/1 */
	uint8_t scale_vec;   /* 1, 2, 4: .scale_vec::NX; 16, 32: .block16/32;
			      * 0: none (the kind's default) */
	uint8_t stype;       /* scale type: MMAGEN_UE8M0 / MMAGEN_UE4M3 / 0 */
	uint8_t cta_group;   /* tcgen05: 1 or 2 */
	uint8_t ws;          /* tcgen05 .ws */
	uint8_t ashift;      /* tcgen05 .ashift (A in TMEM shifted down a row) */
	uint8_t asrc;        /* MMAGEN_ASRC_* where A can come from several places */
	uint8_t rnd;         /* MMAGEN_RND_* (f64 mma) */
	uint8_t num;         /* ldmatrix/stmatrix .x1/.x2/.x4 */
	uint8_t trans;       /* ldmatrix/stmatrix .trans */
	uint8_t ldtype;      /* MMAGEN_LD_* */
	uint16_t row;        /* index of the table row it came from */
} mmagen_form;

/* Family name as used by --family: "mma", "wgmma", "tcgen05", ...;
 * "unknown" for a value that is not a family. */
MMAGEN_API
const char *mmagen_family_name(int family);
/* Parse a family spelling of the command line ("mma", "mma.sync",
 * "mma.sp", "wgmma.sp", "tcgen05.mma", ...): *family is the family,
 * *sparse the sparsity the spelling implies (MMAGEN_SPARSE_*) or
 * MMAGEN_ANY when it implies none (ldmatrix).  On failure
 * MMAGEN_UNKNOWN_NAME and a message listing the legal spellings. */
MMAGEN_API
mmagen_status mmagen_family_parse(const char *s, unsigned *family,
				  unsigned *sparse);
/* Legal spellings for mmagen_family_parse, ", "-separated, into buf. */
MMAGEN_API
const char *mmagen_family_legal(char *buf, size_t n);
/* How listings name f's family with its sparsity: "mma.sync", "mma.sp",
 * "mma.sp::ordered_metadata", "wgmma.sp", "tcgen05.mma", "ldmatrix". */
MMAGEN_API
const char *mmagen_form_family_label(const mmagen_form *f);

/* ---- qualifiers: one table (gen/table/qual.c) ----
 * Each qualifier field of mmagen_form (MMAGEN_Q_LAYOUT: alayout and
 * blayout) with the names the command line uses for its values. */
typedef enum mmagen_qual_field {
	MMAGEN_Q_SPARSE, MMAGEN_Q_LAYOUT, MMAGEN_Q_SATFINITE, MMAGEN_Q_BITOP,
	MMAGEN_Q_KIND, MMAGEN_Q_BLOCK_SCALE, MMAGEN_Q_SCALE_VEC,
	MMAGEN_Q_STYPE, MMAGEN_Q_CTA_GROUP, MMAGEN_Q_WS, MMAGEN_Q_ASHIFT, MMAGEN_Q_ASRC,
	MMAGEN_Q_RND, MMAGEN_Q_NUM, MMAGEN_Q_TRANS, MMAGEN_Q_LDTYPE,
	MMAGEN_Q_END
} mmagen_qual_field;

/* The field's option name without "--": "sparse", "popc" (bitop),
 * "scale-vec", "cta-group", ...; NULL for a bad field. */
MMAGEN_API
const char *mmagen_qual_field_name(mmagen_qual_field q);
/* The CLI name of value v of field q: "sp", "row", "xor", "f16" (kind),
 * "2X" (scale_vec), "yes"/"no", "none"; NULL if v has none. */
MMAGEN_API
const char *mmagen_qual_name(mmagen_qual_field q, unsigned v);
/* Every name field q takes, aliases included ("none, dense, sp, ..."),
 * ", "-separated, into buf; returns buf. */
MMAGEN_API
const char *mmagen_qual_legal(mmagen_qual_field q, char *buf, size_t n);
/* Parse a CLI name or alias ("2X" or "2", "yes" or "1" or "true") of
 * field q into *v.  Unknown: MMAGEN_UNKNOWN_NAME, the message lists the
 * legal names. */
MMAGEN_API
mmagen_status mmagen_qual_parse(mmagen_qual_field q, const char *s, unsigned *v);
/* All forms of the table, in table order.  The table is expanded on first
 * use; if memory runs out it stays empty (count 0) and mmagen_select()
 * returns MMAGEN_NO_MEMORY. */
MMAGEN_API
size_t mmagen_form_count(void);
MMAGEN_API
const mmagen_form *mmagen_form_at(size_t i);
/* 1 when the form assembles on target t. */
MMAGEN_API
int mmagen_form_on_target(const mmagen_form *f, int t);
/* The lowest target (in mmagen_target order) that has the form. */
MMAGEN_API
int mmagen_form_min_target(const mmagen_form *f);
/* The lowest .version the form needs on target t (max of the row's and the
 * target's own minimum). */
MMAGEN_API
unsigned mmagen_form_min_ptx(const mmagen_form *f, int t);
/* Complete opcode ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
 * shape ("m16n8k16"), written into buf; returns buf. */
MMAGEN_API
const char *mmagen_form_opcode(const mmagen_form *f, char *buf, size_t n);
MMAGEN_API
const char *mmagen_form_shape(const mmagen_form *f, char *buf, size_t n);

/* ---- selection ---- */
#define MMAGEN_ANY 0xFFFFu
/* A request: every field MMAGEN_ANY (see mmagen_request_init) unless set.
 * Field meanings are those of mmagen_form.  It may grow: start it with
 * mmagen_request_init(), which sets `size`; new fields come at the end. */
typedef struct mmagen_request {
	size_t size;         /* sizeof(mmagen_request): set by _init */
	int target;          /* required: index from mmagen_target_parse */
	unsigned family, sparse, m, n, k, a, b, c, d, alayout, blayout,
		satfinite, bitop, kind, block_scale, scale_vec, stype,
		cta_group, ws, asrc, rnd, num, trans, ldtype, ashift;
	const char *opcode;  /* if set: a complete opcode; fields must agree */
} mmagen_request;

/* Every field to its default, size to `size` (the caller's sizeof). */
MMAGEN_API
void mmagen_request_init_size(mmagen_request *r, size_t size);
#define mmagen_request_init(r) mmagen_request_init_size((r), sizeof *(r))
/* 1 when f has every field r sets (r->target is not looked at); 0 also for
 * a request whose size is wrong (mmagen_last_error says why). */
MMAGEN_API
int mmagen_form_matches(const mmagen_request *r, const mmagen_form *f);
/* Exactly one form must match on r->target; forms that print the same
 * opcode (the A source, tcgen05's descriptor types and scale type) pick
 * the first in table order (mmagen_select_defaults says which fields that
 * fixed).  On failure the message names the rule and the nearest legal
 * forms; when several opcodes match (MMAGEN_AMBIGUOUS), the fields that
 * tell them apart with their values, and how many forms match. */
MMAGEN_API
mmagen_status mmagen_select(const mmagen_request *r, const mmagen_form **out);
/* After mmagen_select(r) chose f: the facets (below) that r leaves open
 * and in which other forms matching r on its target differ from f, as a
 * bit mask (bit i: facet i); 0 when r names f alone.  Callers report
 * these as the defaults taken ("stype ue4m3, asrc smem"). */
MMAGEN_API
uint32_t mmagen_select_defaults(const mmagen_request *r, const mmagen_form *f);

/* Facets: a form's selector fields as the command line names them.
 * Facet i (0, 1, ... while the name is not NULL) is one option without
 * "--": "family", "shape", "a", "b", "c", "d", "sparse", "layout",
 * "satfinite", "popc", "kind", "block-scale", "scale-vec", "stype",
 * "cta-group", "ws", "ashift", "asrc", "rnd", "num", "trans", "ldtype".
 * Its value for f is the spelling that option takes ("tcgen05.mma.sp",
 * "m16n8k16", "row.col", "2X", "ue4m3", "no"), or "-" where f has none;
 * passing every value that is not "-" selects f alone. */
MMAGEN_API
const char *mmagen_facet_name(unsigned i);
MMAGEN_API
const char *mmagen_form_facet(const mmagen_form *f, unsigned i, char *buf, size_t n);
/* Set the request field(s) that facet `facet` names (mmagen_facet_name's
 * names: "family", "shape", "a", "b", "c", "d", "sparse", "layout",
 * "satfinite", "popc", "kind", "block-scale", "scale-vec", "stype",
 * "cta-group", "ws", "ashift", "asrc", "rnd", "num", "trans", "ldtype";
 * '_' may stand for '-') from `value`, spelled as the command line's
 * option of that name takes it (aliases included), with its effects:
 * "family" also sets sparse where the spelling implies it ("mma.sp",
 * "wgmma": dense; "ldmatrix" leaves it); "shape" is mNnNkK, mNnN
 * (ldmatrix, stmatrix: k left as it was) or kN (tcgen05: m and n left);
 * "layout" sets both layouts ("row.col"); "kind" takes "kind::f16" too;
 * types take mmagen_type_parse's names.  A later call overrides an
 * earlier one's fields.  The target and the opcode are fields set
 * directly.  On failure MMAGEN_UNKNOWN_NAME (a facet that is not one: the
 * message lists them) or MMAGEN_INVALID_ARGUMENT (a bad value: one line
 * naming the legal values or the form to write, e.g. "bad --shape
 * 'm16x8'; write it like m16n8k16 (ldmatrix: m8n8, tcgen05: k16)"; also
 * a NULL argument or a request not from mmagen_request_init), and r is
 * left unchanged. */
MMAGEN_API
mmagen_status mmagen_request_set(mmagen_request *r, const char *facet, const char *value);


/* ---- fragment layouts (mma.sync and mma.sp; gen/emit/layout.c) ----
 * Where each element of A, B and C/D lives in a warp's registers.  A is
 * MxK (for mma.sp: the compressed Mx(K/2) values), B is KxN, C and D are
 * MxN.  Element e of register r of lane l occupies bits
 * [e*elem_bits, (e+1)*elem_bits) of that register. */
/* C and D share a layout except for m8n8k4 f16 with f16 C and f32 D. */
enum { MMAGEN_OPND_A, MMAGEN_OPND_B, MMAGEN_OPND_C, MMAGEN_OPND_D };

typedef struct mmagen_frag {
	unsigned rows, cols;     /* the operand's tile as stored in registers */
	unsigned regs;           /* registers per lane */
	unsigned reg_bits;       /* 32, or 64 for f64 */
	unsigned elems;          /* elements per register */
	unsigned elem_bits;      /* bits per element in the register (8 for
				  * FP6/FP4 under kind::f8f6f4/mxf8f6f4) */
	unsigned threads;        /* 32; 8 for m8n8k4 f16 (one quad-pair) */
} mmagen_frag;

MMAGEN_API
mmagen_status mmagen_frag_info(const mmagen_form *f, int operand, mmagen_frag *out);
/* (lane, reg, elem) -> (row, col) in the operand's tile. */
MMAGEN_API
mmagen_status mmagen_frag_map(const mmagen_form *f, int operand, unsigned lane,
			      unsigned reg, unsigned elem, unsigned *row, unsigned *col);

/* Sparse metadata (mma.sp): where the index of compressed element
 * (row, ccol) of A -- its position inside its group of the logical K --
 * lives: lane, and first bit in that lane's metadata register, for
 * sparsity selector `sel`.  *bits is the index width: 2, or 4 for tf32,
 * whose 4-bit field holds 0b0100 (position 0) or 0b1110 (position 1).
 * For 4:8 types (s4/u4, packed e2m1) both elements of a pair give the same
 * field, which holds the pair's position 0..3.  tcgen05 .sp forms: the
 * "lane" is the word of the tile kernel's E parameter (row * W + i, W = 1
 * for kind::f16/tf32, else 2): each row's fields follow one another in K
 * order from bit 0; sel must be 0; the kernel puts the words in Tensor
 * Memory. */
MMAGEN_API
mmagen_status mmagen_meta_pos(const mmagen_form *f, unsigned sel, unsigned row,
			      unsigned ccol, unsigned *lane, unsigned *bit,
			      unsigned *bits);

/* ---- 2:4 structured sparsity (gen/emit/sparse.c) ----
 * A is MxK row-major element patterns (one per uint64_t).  Groups run
 * along K: 2 of 4 for 16- and 8-bit types, 1 of 2 for tf32, and for s4/u4
 * and packed e2m1 2 pairs of 4 pairs (4:8, pairs kept together).  prune
 * keeps the largest (NaN counts as largest) and zeroes the rest; check says
 * whether A already has the pattern; compress writes the Mx(K/2) values
 * and, for every kept element, its position in its group (idx, Mx(K/2);
 * for 4:8, the pair's position, the same for both elements). */
MMAGEN_API
mmagen_status mmagen_sparse_prune(const mmagen_form *f, unsigned m, unsigned k,
				  uint64_t *a);
MMAGEN_API
int mmagen_sparse_check(const mmagen_form *f, unsigned m, unsigned k,
			const uint64_t *a);
MMAGEN_API
mmagen_status mmagen_sparse_compress(const mmagen_form *f, unsigned m,
				     unsigned k, const uint64_t *a,
				     uint64_t *values, uint8_t *idx);

/* ---- the exact CPU reference (gen/kernels/ref.c) ----
 * D = A*B + C for form f on an MxNxK problem (the form's own shape or a
 * multiple of it).  Inputs are element bit patterns, row-major, one per
 * uint64_t; A is the dense logical MxK (sparse forms: zeros where pruned).
 * Block-scaled forms also take scale factors: sa is Mx(K/V), sb is
 * (K/V)xN, V the block size (32 for ue8m0, 16 for ue4m3 with scale_vec 4X).
 * The result: d (patterns of the D type) and dref (the exact value before
 * the final rounding into D, for error reports). */
typedef struct mmagen_ref_args {
	const mmagen_form *form;
	unsigned m, n, k;
	const uint64_t *a, *b, *c;
	const uint64_t *sa, *sb;   /* block-scaled forms only */
	uint64_t *d;
	double *dref;              /* may be NULL */
} mmagen_ref_args;

MMAGEN_API
mmagen_status mmagen_ref_mma(const mmagen_ref_args *args);
/* Whether a device result `got` (D pattern) is acceptable for the exact
 * value `exact`, given sum_k |a*b| + |c| (`mag`) for that element: exact
 * match for integer D; for floating D the tolerance follows from the D and
 * A/B types and K (one place for every tolerance). */
MMAGEN_API
int mmagen_ref_accept(const mmagen_form *f, unsigned k, double exact,
		      double mag, uint64_t got);

/* ---- block-scaled formats (gen/table/formats.c) ----
 * MX (OCP Microscaling v1.0) and NVFP4 tensors: a 1-D stream of values cut
 * into consecutive blocks of `block` elements (for a matrix: rows along K
 * whose length is a multiple of the block); each block shares one scale.
 *   mxfp8  e4m3 (default) or e5m2  ue8m0 scale  block 32
 *   mxfp6  e3m2 (default) or e2m3  ue8m0        32
 *   mxfp4  e2m1                    ue8m0        32
 *   nvfp4  e2m1                    ue4m3        16  times a global f32 scale
 * value = element * scale (* global_scale for nvfp4).  Quantize: MX scale
 * 2^(floor(log2(amax)) - emax_elem) (emax: e4m3 8, e5m2 15, e3m2 4, e2m3 2,
 * e2m1 2), clamped to 2^-127..2^127; NVFP4 scale amax / 6 / global_scale
 * rounded (RNE, saturating) to ue4m3.  Elements are x / scale rounded to
 * nearest even and clamped to the element's largest finite value (e5m2
 * too: the MX spec saturates rather than overflow to Inf).
 * Special blocks: all zeros (or NVFP4 scale rounding to 0) get scale code
 * 0 and zero elements (signs kept); a block holding NaN or +-Inf gets the
 * scale's NaN code (ue8m0 0xFF, ue4m3 0x7F) and +0 elements, so the block
 * dequantizes to NaN -- no scale can carry an Inf.
 * Packed output: FP8 one byte per element; FP6 one byte per element in
 * bits 0..5 (the byte container of kind::mxf8f6f4, high bits 0); FP4 two
 * per byte, element 2i in the low nibble; a partial last block is allowed
 * (its scale comes from the elements present).  Scales: one byte per
 * block, in block order.
 * NVFP4's global scale: real NVFP4 tensors carry a per-tensor f32 factor
 * (conventionally amax(tensor) / (448 * 6), so that block scales use the
 * whole ue4m3 range); quantize divides by it, dequantize multiplies by it.
 * 1.0 means none; MX formats require 1.0.
 * MMAGEN_QF_FP8_BLOCK ("fp8-block") is not a format of the quantizer: it
 * names DeepSeek-V3's block scaling for the sm_90a wgmma GEMM
 * (mmagen_gemm_request.quant), e4m3/e5m2 A and B with one f32 scale per
 * row of A and 128 elements of K, and one per 128 x 128 block of B (N x
 * K); the GEMM takes the scales as f32 arrays with strides (kernel
 * parameters sa, sb, sa_sm, sa_sk, sb_sn, sb_sk: see mmagen_gemm_info).
 * It comes after MMAGEN_QF_END, which keeps its value and still ends
 * the formats mmagen_quant_spec_init knows; mmagen_qformat_parse and
 * _name know all of them. */
typedef enum mmagen_qformat {
	MMAGEN_QF_NONE = 0,
	MMAGEN_QF_MXFP8,
	MMAGEN_QF_MXFP6,
	MMAGEN_QF_MXFP4,
	MMAGEN_QF_NVFP4,
	MMAGEN_QF_END,
	MMAGEN_QF_FP8_BLOCK,
	MMAGEN_QF_GEMM_END
} mmagen_qformat;

typedef struct mmagen_quant_spec {
	unsigned format;         /* mmagen_qformat */
	uint8_t elem;            /* element type */
	uint8_t stype;           /* MMAGEN_UE8M0 or MMAGEN_UE4M3 */
	unsigned block;          /* elements per scale */
	unsigned elem_bits;      /* bits per element in the packed stream: 8, 4 */
	int emax;                /* exponent of the element's largest power of 2 */
	double global_scale;     /* NVFP4 per-tensor factor; 1.0 = none */
} mmagen_quant_spec;

/* "mxfp8", "mxfp6", "mxfp4", "nvfp4", "fp8-block" (case-insensitive). */
MMAGEN_API
mmagen_status mmagen_qformat_parse(const char *s, unsigned *out);
MMAGEN_API
const char *mmagen_qformat_name(unsigned format);
/* The spec of a format; elem MMAGEN_TYPE_NONE picks the default, another
 * element type must belong to the format.  global_scale starts at 1.0.
 * MMAGEN_QF_FP8_BLOCK has no spec (MMAGEN_UNSUPPORTED: its scales are
 * f32 of the caller's choosing, not a quantizer's). */
MMAGEN_API
mmagen_status mmagen_quant_spec_init(mmagen_quant_spec *s, unsigned format,
				     mmagen_type elem);
/* Buffer sizes for `count` values. */
MMAGEN_API
void mmagen_quant_sizes(const mmagen_quant_spec *s, size_t count,
			size_t *elem_bytes, size_t *scale_bytes);
/* NVFP4's conventional global scale for a tensor: amax / (448 * 6) as an
 * f32; 1.0 when the tensor has no finite nonzero value. */
MMAGEN_API
double mmagen_nvfp4_global_scale(const float *x, size_t count);
/* Scale pattern the quantizer picks for one block of n values. */
MMAGEN_API
uint8_t mmagen_quant_block_scale(const mmagen_quant_spec *s, const float *x,
				 size_t n);
MMAGEN_API
mmagen_status mmagen_quantize(const mmagen_quant_spec *s, const float *in,
			      size_t count, uint8_t *elems, uint8_t *scales);
MMAGEN_API
mmagen_status mmagen_dequantize(const mmagen_quant_spec *s, const uint8_t *elems,
				const uint8_t *scales, size_t count, float *out);

/* Where block-scaled mma.sync (sm_120a) reads its scale factors, from the
 * PTX ISA "Block Scaling for mma.sync": per instruction, scale_A is M x S
 * and scale_B is S x N, S = mmagen_scale_vec(f) (1, 2 or 4 blocks along
 * K).  With selectors {byte_id, thread_id}, SF_A[m][s] is byte byte_id + s
 * of scale-a-data in lane 4*(m%8) + 2*thread_id + m/8 (the thread pair
 * lane%4 in {2*thread_id, 2*thread_id+1} of each quad: rows m%8 = quad,
 * the pair's second lane rows 8..15); SF_B[s][n] is byte byte_id + s in
 * lane 4*n + thread_id.  For A, (row, col) = (m, s); for B (s, n).
 * Selectors the ISA does not allow for the form are rejected. */
MMAGEN_API
unsigned mmagen_scale_vec(const mmagen_form *f);
MMAGEN_API
mmagen_status mmagen_scale_pos(const mmagen_form *f, int operand,
			       unsigned byte_id, unsigned thread_id, unsigned row,
			       unsigned col, unsigned *lane, unsigned *byte);

/* ---- tcgen05 (gen/emit/tcgen05.c) ----
 * The instruction descriptor of tcgen05.mma, from the PTX ISA 9.1 tables
 * ("Instruction descriptor" Tables 42-44), under the descriptor convention
 * below (see "shared-memory descriptors").  ptxas never looks inside it,
 * and no sm_100 GPU checked these words: the unit tests compare them with
 * the ISA tables, field by field. */
typedef struct mmagen_tc_idesc {
	unsigned m, n;           /* the instruction's M and N (cta_group::2:
				  * the pair's, e.g. 256) */
	unsigned major_a, major_b; /* 0 K-major, 1 MN-major (transpose bit) */
	int neg_a, neg_b;
	unsigned sparse_sel;     /* sparsity selector: 0 for kind::i8 and
				  * kind::f8f6f4 (ISA "Sparsity selector");
				  * 0..3 for .sp kind::f16/tf32; 0 dense */
	int saturate;            /* kind::i8 only */
	unsigned sfa_id, sfb_id; /* block-scaled: scale-factor sub-column */
	unsigned max_shift;      /* .ws B reuse: 0, 8, 16 or 32 */
	int k96;                 /* mxf4/mxf4nvf4 dense K = 96 (cta_group::2,
				  * M = 256) */
} mmagen_tc_idesc;

/* 0 when M x N is legal for tcgen05 form f (its kind, cta_group, .ws,
 * .sp, .ashift); otherwise the message names the rule and the nearest
 * legal value. */
MMAGEN_API
mmagen_status mmagen_tc_check_shape(const mmagen_form *f, unsigned m, unsigned n);
/* The 32-bit instruction descriptor of f with parameters p. */
MMAGEN_API
mmagen_status mmagen_tc_idesc_encode(const mmagen_form *f, const mmagen_tc_idesc *p,
				     uint32_t *out);
/* The parameters an instruction descriptor of f holds; a word whose types,
 * sparsity or scale type are not f's, or with reserved bits set, is
 * MMAGEN_INVALID_ARGUMENT. */
MMAGEN_API
mmagen_status mmagen_tc_idesc_decode(const mmagen_form *f, uint32_t w,
				     mmagen_tc_idesc *out);

/* ---- emission ---- */
typedef enum mmagen_format {
	MMAGEN_FMT_PTX,      /* a standalone module with one entry */
	MMAGEN_FMT_CUDA,     /* a CUDA C header with an inline-asm wrapper */
	MMAGEN_FMT_TEXT,     /* the instruction line alone */
	MMAGEN_FMT_JSON,     /* a tile kernel's manifest */
	MMAGEN_FMT_ABI       /* a GEMM kernel's ABI text, for libmmart's
			      * launcher (docs/gemm-abi.md) */
} mmagen_format;

/* Text for one instruction form on target t; *out is freed with
 * mmagen_free().  Deterministic: the same request gives the same bytes. */
MMAGEN_API
mmagen_status mmagen_emit_instr(const mmagen_form *f, int t, mmagen_format fmt,
				char **out, size_t *len);
/* One CUDA header with a wrapper for each of fs[0..n), all on target t
 * (forms that print the same instruction share one wrapper); each wrapper
 * is guarded by nvcc's architecture macros, so the header builds for any
 * -arch / -gencode set.  *out is freed with mmagen_free(). */
MMAGEN_API
mmagen_status mmagen_emit_cuda(const mmagen_form *const *fs, size_t n, int t,
			       char **out, size_t *len);

/* docs/signatures.md: the table as Markdown, one line per row. */
MMAGEN_API
mmagen_status mmagen_doc_signatures(char **out, size_t *len);

/* ---- wgmma shared-memory layouts (gen/emit/smem.c) ----
 * Canonical K-major layouts of an operand tile of `rows` rows (M for A, N
 * for B) and `kbytes` bytes of K per row, for each swizzle mode (0 = none,
 * 32, 64, 128 bytes); the descriptors that read them follow. */
typedef struct mmagen_smem_layout {
	unsigned swizzle;        /* bytes: 0, 32, 64, 128 (mmagen_swizzle) */
	unsigned mn_major;       /* 0: K-major (rows x kbytes); 1: MN-major,
				  * where `rows` counts K rows and `kbytes`
				  * the bytes of MN in each */
	unsigned rows, kbytes;
	unsigned lbo, sbo;       /* leading / stride byte offsets */
	unsigned bytes;          /* shared memory the tile occupies */
	unsigned align;          /* alignment its base needs */
} mmagen_smem_layout;

MMAGEN_API
mmagen_status mmagen_smem_layout_kmajor(unsigned rows, unsigned kbytes,
					unsigned swizzle, mmagen_smem_layout *out);
/* MN-major (the transposed operands of f16/bf16 wgmma, imm-trans = 1): K
 * rows of `mnbytes` contiguous MN bytes.  No swizzle: 16-byte x 8-row core
 * matrices, SBO apart along MN, LBO apart along K.  Swizzle W: atoms of
 * W MN-bytes x 8 K-rows, LBO apart along MN, SBO apart along K. */
MMAGEN_API
mmagen_status mmagen_smem_layout_mnmajor(unsigned krows, unsigned mnbytes,
					 unsigned swizzle, mmagen_smem_layout *out);
/* Byte offset of byte `kbyte` of row `row` (MN-major: byte `kbyte` of
 * MN in K row `row`). */
MMAGEN_API
unsigned mmagen_smem_offset(const mmagen_smem_layout *l, unsigned row,
			    unsigned kbyte);
/* The inverse: which (row, kbyte) a byte offset holds; kbyte >= l->kbytes
 * marks padding. */
MMAGEN_API
void mmagen_smem_locate(const mmagen_smem_layout *l, unsigned offset,
			unsigned *row, unsigned *kbyte);
/* ---- shared-memory descriptors (sm_90: gen/emit/smem.c; sm_100: gen/emit/tcgen05.c)
 * One convention for every descriptor word (these two and the tcgen05
 * instruction descriptor above): a struct of named values; an _encode()
 * that checks every field and returns MMAGEN_INVALID_ARGUMENT with one line
 * naming the field, its range and the nearest legal value for a value that
 * does not fit or is not a legal code (nothing is masked); a _decode() that
 * gives the named values back (for tests and tools) and refuses a word
 * with an unknown code or a stray bit.  Each descriptor's bit ranges are
 * written once, in a field table beside its encoder.
 * Addresses and offsets are in bytes (16-byte multiples below 256 KiB;
 * the word holds them >> 4).  Swizzle is named by its span in bytes in
 * both descriptors, the same number as mmagen_smem_layout.swizzle; each
 * field table maps it to its ISA's code. */
typedef enum mmagen_swizzle {
	MMAGEN_SWIZZLE_NONE = 0,
	MMAGEN_SWIZZLE_32B = 32,
	MMAGEN_SWIZZLE_64B = 64,
	MMAGEN_SWIZZLE_128B = 128,
	MMAGEN_SWIZZLE_128B_BASE32B = 160   /* 128 + 32: 128-byte swizzle
					     * with 32-byte atoms (sm_100) */
} mmagen_swizzle;

/* sm_90 wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format"). */
typedef struct mmagen_wgmma_sdesc {
	uint32_t start;          /* shared-memory byte address */
	uint32_t lbo, sbo;       /* leading / stride byte offsets */
	unsigned base_offset;    /* 0..7 */
	unsigned swizzle;        /* mmagen_swizzle, not 128B_BASE32B */
} mmagen_wgmma_sdesc;

MMAGEN_API
mmagen_status mmagen_wgmma_sdesc_encode(const mmagen_wgmma_sdesc *d, uint64_t *out);
MMAGEN_API
mmagen_status mmagen_wgmma_sdesc_decode(uint64_t w, mmagen_wgmma_sdesc *out);

/* sm_100 shared-memory descriptor (PTX ISA "Shared memory descriptor"). */
typedef struct mmagen_tc_sdesc {
	uint32_t start;          /* shared-memory byte address */
	uint32_t lbo;            /* leading-dimension byte offset (or, with
				  * lbo_mode 1, absolute address) */
	uint32_t sbo;            /* stride-dimension byte offset */
	unsigned base_offset;    /* 0..7 */
	unsigned lbo_mode;       /* 0 relative, 1 absolute */
	unsigned swizzle;        /* mmagen_swizzle */
} mmagen_tc_sdesc;

MMAGEN_API
mmagen_status mmagen_tc_sdesc_encode(const mmagen_tc_sdesc *d, uint64_t *out);
MMAGEN_API
mmagen_status mmagen_tc_sdesc_decode(uint64_t w, mmagen_tc_sdesc *out);
/* mmagen_tc_sdesc_encode for target t (mmagen_target_parse), which also
 * checks the descriptor's target rules: lbo_mode 1 (absolute) only on
 * sm_103a (PTX ISA 9.7.16.4.1.1).  mmagen_tc_sdesc_encode knows no
 * target and checks only that each field fits. */
MMAGEN_API
mmagen_status mmagen_tc_sdesc_encode_on(const mmagen_tc_sdesc *d, int t, uint64_t *out);

/* ---- tile kernels (gen/kernel_tile.c) ----
 * One warp (mma) runs one instruction on a tile read from global memory:
 * A (MxK; mma.sp: the compressed Mx(K/2)), B (KxN) and C (MxN), all
 * row-major, elements packed at `elem_bits` (element i of the row-major
 * stream at bits [i*w, (i+1)*w), little-endian); D (MxN) is written the
 * same way.  Sparse forms also take E: the 32 metadata registers, one u32
 * per lane, as mma.sp reads them (build it with mmagen_meta_pos). */
typedef struct mmagen_tile_param {
	const char *name;        /* "A", "B", "C", "D", "E" */
	unsigned rows, cols;     /* elements */
	unsigned elem_bits;
	uint8_t type;            /* mmagen_type (E: 0) */
	uint8_t output;          /* 1 for D */
	size_t bytes;            /* buffer size, a multiple of 8 */
} mmagen_tile_param;

/* The most parameters a tile kernel has (nparams <= this). */
#define MMAGEN_TILE_MAX_PARAMS 8

typedef struct mmagen_tile_info {
	const char *kernel;      /* entry name */
	unsigned block[3], grid[3];
	unsigned smem;           /* dynamic shared memory bytes */
	unsigned static_smem;    /* shared memory the kernel declares (the
				  * ldmatrix path for 16-bit A and B) */
	unsigned m, n, k;
	unsigned nparams;        /* <= MMAGEN_TILE_MAX_PARAMS */
	mmagen_tile_param params[MMAGEN_TILE_MAX_PARAMS];
} mmagen_tile_info;

/* Choices a tile kernel leaves open; NULL means the defaults.  It may
 * grow: start it with mmagen_tile_opts_init(), which sets `size`. */
typedef struct mmagen_tile_opts {
	size_t size;             /* sizeof(mmagen_tile_opts): set by _init */
	unsigned m, n;           /* tcgen05: M and N (0: the kind's default) */
	unsigned swizzle;        /* wgmma/tcgen05 shared-memory layout: 0
				  * (none), 32, 64 or 128 bytes; default 128 */
	unsigned major_a, major_b; /* 0 K-major (default), 1 MN-major */
	int neg_a, neg_b;        /* wgmma imm-scale-a/b = -1 */
	int scale_d;             /* 1 (default): D = A*B + C; 0: D = A*B */
} mmagen_tile_opts;

/* The defaults into the caller's `size` bytes (its sizeof). */
MMAGEN_API
void mmagen_tile_opts_init_size(mmagen_tile_opts *o, size_t size);
#define mmagen_tile_opts_init(o) mmagen_tile_opts_init_size((o), sizeof *(o))
MMAGEN_API
mmagen_status mmagen_tile_info_of(const mmagen_form *f, const mmagen_tile_opts *o,
				  mmagen_tile_info *out);
/* ldmatrix.m8n8 per-lane addressing (the first seed article): with .xNUM,
 * lane `lane` points at row *row, 8-column block *col8 of the tile: for a
 * row-major A (trans_b = 0) matrix j = lane/8 is the block at rows
 * (j%2)*8, columns (j/2)*8; for a row-major KxN B loaded with .trans
 * (trans_b = 1) matrix j holds K rows 8j..8j+7. */
MMAGEN_API
void mmagen_ldmatrix_lane_addr(unsigned num, int trans_b, unsigned lane,
			       unsigned *row, unsigned *col8);
/* fmt: MMAGEN_FMT_PTX (the kernel) or MMAGEN_FMT_JSON (its manifest). */
MMAGEN_API
mmagen_status mmagen_emit_tile(const mmagen_form *f, int t,
			       const mmagen_tile_opts *o, mmagen_format fmt,
			       char **out, size_t *len);

/* ---- issue-peak kernels (gen/kernels/kernel_peak.c) ----
 * The kernel `mmagen bench instr` times: entry mmagen_peak(.u32 iters,
 * .u64 out), for a CTA of MMAGEN_PEAK_WARPS warps.  Every warp runs
 * `iters` passes of MMAGEN_PEAK_COPIES instructions of the form on
 * independent accumulators (D = A*B + D), on registers alone: no memory
 * traffic, so a launch's time is the tensor cores' issue rate.  Pass out
 * = 0: the stores after the loop, which keep ptxas from removing it, then
 * never run.  Only mma.sync and mma.sp forms with plain register operands
 * (not the block-scaled ones) have such a kernel: the others need shared
 * memory, Tensor Memory or scale factors.  The two constants are frozen
 * like the structs (a caller counts the work with its own copies): a loop
 * of another geometry would come as a new function.  mmagen_emit_peak
 * returns MMAGEN_UNSUPPORTED also for a form ptxas emulates on t (FP8 and
 * INT4 mma.sync on sm_90: its loop would time the emulation) and
 * MMAGEN_TARGET for a form t lacks; *out is freed with mmagen_free, len
 * may be NULL. */
#define MMAGEN_PEAK_WARPS 8
#define MMAGEN_PEAK_COPIES 16
/* The operations one warp's instruction does, into *ops: 2*m*n*k of the
 * shape it names (for mma.sp the dense-equivalent: its K is the logical
 * one), times the thread groups that each do one (m8n8k4 f16: four
 * quad-pairs).  MMAGEN_UNSUPPORTED, with the reason, for a form without a
 * peak kernel. */
MMAGEN_API
mmagen_status mmagen_peak_ops(const mmagen_form *f, double *ops);
/* The peak kernel of f on target t, as PTX. */
MMAGEN_API
mmagen_status mmagen_emit_peak(const mmagen_form *f, int t, char **out, size_t *len);

/* ---- GEMM kernels (gen/gemm/gemm.c) ----
 * D = alpha * A * B + beta * C, a whole kernel for any M, N, K.  Layouts
 * name how A and B are stored, BLAS-style: "tn" is A row-major M x K and B
 * column-major K x N (both K-major), the one layout every type has.  D and
 * C are row-major M x N with leading dimensions ldd, ldc (elements). */
enum { MMAGEN_GEMM_TN = 0, MMAGEN_GEMM_NN, MMAGEN_GEMM_NT, MMAGEN_GEMM_TT };

typedef struct mmagen_gemm_request {
	size_t size;          /* sizeof(mmagen_gemm_request): set by _init */
	int target;
	mmagen_type a, b;     /* element types of A and B */
	mmagen_type acc;      /* accumulator; MMAGEN_TYPE_NONE: f32 */
	mmagen_type out;      /* D (and C) */
	unsigned layout;      /* MMAGEN_GEMM_* */
	unsigned tile_m, tile_n, stages, group;  /* 0: the generator's choice */
	unsigned cluster;     /* CTAs per cluster: 1, or 2 (B multicast); 0: the
			       * generator's default (sm_90a: 2, 1 for an
			       * N-major B; mma.sync: 1) */
	unsigned path;        /* MMAGEN_GEMM_PATH_*: 0 picks by target */
	unsigned split_k;     /* mma.sync path: K split over this many CTAs,
			       * each slice's sums in a workspace slot, added
			       * in slice order by the tile's last; 0: 1.
			       * wgmma path: 2..256 or MMAGEN_GEMM_SPLIT_AUTO
			       * give the split-K kernel (see
			       * mmagen_gemm_split_for); 0 or 1: none */
	unsigned quant;       /* sm_120a: MMAGEN_QF_* block-scaled A and B
			       * (scales per K block, as `mmagen quantize`
			       * writes them); sm_90a (wgmma, FP8 A and B):
			       * MMAGEN_QF_FP8_BLOCK, f32 scales per row of A
			       * x 128 of K and per 128 x 128 block of B; 0:
			       * none */
	unsigned kind;        /* sm_120a: the mma.sync kind (mmagen_kind); 0:
			       * the one the types and quant name (e2m1 x
			       * e2m1 mxfp4 may take MMAGEN_KIND_MXF4NVF4 or
			       * _MXF8F6F4 instead of _MXF4) */
	unsigned promote_k;   /* sm_90a FP8: K elements between promotions of
			       * wgmma's partial sums into the f32 accumulator,
			       * the K block (128) times a power of two up to
			       * 1024; 0: 128 */
	unsigned tile_k;      /* K of the block tile (elements); 0: the
			       * generator's choice.  mma.sync: the K of 64-
			       * or 128-byte stage rows (bf16: 32 or 64); the
			       * other paths take only their own */
	unsigned reserved0;   /* the padding before schedule, named so that
			       * the struct grew (sizeof tells versions apart);
			       * never read */
	unsigned schedule;    /* sm_90a: MMAGEN_GEMM_SCHED_*; 0: cooperative */
} mmagen_gemm_request;

/* How the sm_90a kernel's two consumer warpgroups share the work.
 * Cooperative: both work on each tile (rows 0-63 and 64-127), and write
 * D together while the tensor cores wait.  Ping-pong: each warpgroup
 * takes every other tile of its CTA whole (two m64 wgmma a K step), so
 * that one writes D while the other's wgmma run; tile M 128, no split-K,
 * no FP8 inputs, tile N up to 192 with 32-bit accumulators (default 128)
 * and up to 256 with f16 (default 256). */
enum { MMAGEN_GEMM_SCHED_AUTO = 0, MMAGEN_GEMM_SCHED_COOP, MMAGEN_GEMM_SCHED_PINGPONG };

/* split_k: the wgmma split-K kernel, S chosen by the host at run time. */
#define MMAGEN_GEMM_SPLIT_AUTO 0xffffffffu

/* Which kernel: wgmma + TMA (sm_90a), or the warp-level mma.sync +
 * ldmatrix + cp.async kernel (sm_80 to sm_89; on sm_90/sm_90a on request). */
enum { MMAGEN_GEMM_PATH_AUTO = 0, MMAGEN_GEMM_PATH_WGMMA, MMAGEN_GEMM_PATH_MMA_SYNC };

/* What a program needs to launch the kernel.  Parameters, in order:
 * tensor_a, tensor_b, tensor_d (CUtensorMap, 128 bytes each, by value),
 * d, c (u64 device addresses), m, n, k, ldd, ldc (u32), alpha, beta
 * (f32), d_tma (u32, see box_d).
 * Grid: cluster * min(multiprocessors / cluster, ceil(ceil(M/tile_m) /
 * cluster) * ceil(N/tile_n)) x 1 x 1 (persistent: each CTA, or each
 * cluster, walks tiles with a stride of the grid).  D of type e4m3 or
 * e5m2 adds a parameter d_scale (f32) after d_tma (before split-K's):
 * D = satfinite(d_scale * (alpha * A * B + beta * C)), C of D's type.
 * quant MMAGEN_QF_FP8_BLOCK adds, after d_tma and d_scale (before
 * split-K's), sa, sb (u64 device addresses of f32 scales) and sa_sm,
 * sa_sk, sb_sn, sb_sk (u32 strides in elements): with kb = k / 128, D =
 * alpha * sum over kb of sa[m][kb] * sb[n / 128][kb] * (A * B over kb's
 * elements of K) + beta * C, the scale of (row m, kb) at sa + 4 (m sa_sm
 * + kb sa_sk), of (n / 128, kb) at sb + 4 (nb sb_sn + kb sb_sk), whose
 * last index ((M - 1) sa_sm + (KB - 1) sa_sk, KB = ceil(K / 128); B's
 * likewise, NB = ceil(N / 128)) stays below 2^32; stype f32 and
 * scale_block 128 say so. */
typedef struct mmagen_gemm_info {
	size_t size;          /* sizeof(mmagen_gemm_info): set by the caller */
	const char *kernel;   /* entry name */
	unsigned block[3], cluster[3];
	unsigned smem;        /* dynamic shared memory bytes */
	unsigned tile_m, tile_n, tile_k, stages;
	/* Tensor maps: A over dims {K, M}, B over dims {K, N} (innermost
	 * first), boxes {tile_k, tile_m} and {tile_k, tile_n}, this swizzle
	 * (bytes), out-of-bounds elements read as zero.  An MN-major operand
	 * (sm_90a, layouts nn/nt: A; nt/tt: B) is a map over {M, K} or
	 * {N, K} instead, box {64, tile_k} (one 128-byte row by the K
	 * block). */
	unsigned box_a[2], box_b[2], swizzle;
	unsigned elem_bytes_a, elem_bytes_b, elem_bytes_d;
	/* D through shared memory and TMA stores: when box_d[0] != 0 the
	 * kernel takes a tensor map of D over dims {N, M} (row stride ldd *
	 * elem_bytes_d), box box_d, the same swizzle, and uses it when its
	 * parameter d_tma is non-zero.  The map needs D's base 16-byte
	 * aligned and ldd * elem_bytes_d a multiple of 16; otherwise pass
	 * d_tma = 0 and the kernel stores through d and ldd. */
	unsigned box_d[2];
	/* MMAGEN_GEMM_PATH_MMA_SYNC: no tensor maps and not persistent.
	 * Parameters: a, b, d, c (u64), m, n, k, lda, ldb, ldd, ldc (u32),
	 * alpha, beta (f32); grid ceil(M/tile_m) * ceil(N/tile_n) x 1 x
	 * split_k.  split_k > 1 (split_workspace 1, any D): two more
	 * parameters after beta, workspace and counters (u64), sizes from
	 * mmagen_gemm_split_buffers; the counters zero before the first
	 * launch (every launch leaves them zero), the workspace of any
	 * contents (each slice writes its own slot whole; the last slice of
	 * a tile adds the slots in slice order, so D is the same bits every
	 * launch); D is written whole.  The grid's z must be split_k (the
	 * kernel traps on another); launches sharing a workspace and
	 * counters must not overlap.  No split with f16 accumulators (the
	 * slots hold f32).  (Until 2026-12, an f32 or s32 D took the slices
	 * by atomics and had to be zero at launch, and f16 accumulators
	 * with an f32 D could split that way.)
	 * elem_bits_a/b: 4 for s4/u4 (elem_bytes_a/b 0 then). */
	unsigned path, split_k;
	unsigned elem_bits_a, elem_bits_b;
	/* The wgmma path's split_k: 1, no split.  Otherwise the split-K
	 * kernel: three more parameters after d_tma, workspace and counters
	 * (u64 device addresses) and splits (u32, S >= 1), and grid rule
	 * units = tiles * min(S, ceil(K/tile_k)) in place of tiles; split_k
	 * is the S asked for (pass it), or 0 for MMAGEN_GEMM_SPLIT_AUTO
	 * (pass mmagen_gemm_split_for's).  With more tiles than the grid
	 * holds, the kernel runs the whole waves' tiles unsplit and splits
	 * only the tail (mmagen_gemm_split_buffers_grid).  Buffer sizes:
	 * mmagen_gemm_split_buffers_grid (or mmagen_gemm_split_buffers, for
	 * any grid); the counters are zero before the first launch and every
	 * launch leaves them zero. */
	/* sm_120a (block-scaled mma.sync): parameters a, b, sa, sb, d, c
	 * (u64), m, n, k, lda, ldb, ldsa, ldsb, ldd, ldc (u32), alpha, beta
	 * (f32); grid ceil(M/tile_m) * ceil(N/tile_n) x 1 x 1.  SA is M rows
	 * and SB N rows of ldsa / ldsb bytes, one scale of type stype per
	 * scale_block elements of K (stype MMAGEN_TYPE_NONE, scale_block 0:
	 * kind::f8f6f4, sa and sb unused).  elem_bits_a/b: 8 for the byte
	 * containers of kind::f8f6f4/mxf8f6f4 (e2m1 in bits 2..5), 4 for
	 * packed e2m1 (mxf4, mxf4nvf4).  The wgmma path's fp8-block
	 * kernel: stype MMAGEN_F32, scale_block 128 (above). */
	mmagen_type stype;
	unsigned scale_block;
	/* The mma.sync path's split-K through a workspace (above). */
	unsigned split_workspace;
	/* FP8 inputs on the wgmma path: the K elements after which the
	 * partial sums join an f32 accumulator (128, one K block, or the
	 * request's promote_k; mmagen_gemm_split_for's cost model counts the
	 * wait before each promotion); 0 for other kernels. */
	unsigned fp8_promote;
	unsigned reserved0;   /* padding named so that the struct grew; 0 */
	/* The wgmma path's MMAGEN_GEMM_SCHED_COOP or _PINGPONG (the grid,
	 * block and parameters are the same); 0 for other kernels. */
	unsigned schedule;
} mmagen_gemm_info;

/* The defaults into the caller's `size` bytes (its sizeof). */
MMAGEN_API
void mmagen_gemm_request_init_size(mmagen_gemm_request *r, size_t size);
#define mmagen_gemm_request_init(r) mmagen_gemm_request_init_size((r), sizeof *(r))
MMAGEN_API
mmagen_status mmagen_gemm_info_of(const mmagen_gemm_request *r, mmagen_gemm_info *out);
/* fmt: MMAGEN_FMT_PTX (the kernel), MMAGEN_FMT_JSON (its manifest), or
 * MMAGEN_FMT_CUDA: a C header (C and C++, no CUDA needed) that embeds the
 * PTX as a string with the launch constants, the grid rule as a static
 * inline function, the parameters in order and the rules, all named
 * mmagen_gemm_<target>_<types>_<layout>_<tile>_... (`mmagen gemm --format c`). */
MMAGEN_API
mmagen_status mmagen_gemm_emit(const mmagen_gemm_request *r, mmagen_format fmt,
			       char **out, size_t *len);
/* Split-K on the wgmma path: the S to launch the kernel of `info` with
 * on an M x N x K problem and a GPU of `sms` multiprocessors.  1 when sms
 * is 0 or the kernel is not the wgmma split-K kernel; else the S of
 * lowest estimated time (waves of (tile, K slice) units, slice length,
 * and the last CTA's reading of S partial tiles), each slice at least
 * `stages` K blocks, at most 16 slices (2 for streaming shapes: a tile M
 * below 128, or M <= 128 with N >= 2048), and only one wave of units
 * when S > 1 and the tiles are fewer than the grid.  When they fill it,
 * only the tail past the whole waves is split, and only FP8 kernels get
 * an S > 1 here (the tail model in gen/gemm/gemm_split.c). */
MMAGEN_API
unsigned mmagen_gemm_split_for(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
			       uint32_t k, unsigned sms);
/* The choice for an M x N x K problem on a GPU of `sms` multiprocessors;
 * only fields the request leaves 0 are filled, only with choices the
 * generator takes.
 * - wgmma path: tile_m (16/32/64 for M <= 64, 64 or 128 up to M 128, with
 *   a K-major A), tile_n, cluster and split_k, of least estimated time
 *   (tile N 64, 128 or the widest; cluster 2 only for three waves of tiles
 *   or more; split-K for one wave of (tile, K slice) units where the
 *   tiles alone leave SMs idle; the model is mmagen_gemm_split_for's).
 * - mma.sync path (sm_80-89, sm_120a, MMAGEN_GEMM_PATH_MMA_SYNC): tile_m,
 *   tile_n and split_k of least estimated time (split-K only within one
 *   wave of resident CTAs); stages stay the generator's default.
 * A chosen split_k > 1 changes how the kernel is launched: read
 * mmagen_gemm_info_of's result (the split-K kernel's extra parameters and
 * buffers, mmagen_gemm_split_buffers; on the mma.sync path
 * split_workspace's buffers).  What `mmagen gemm
 * --problem MxNxK` and `mmagen run gemm` (without --tile, --cluster,
 * --split-k or a --tune'd choice) use. */
MMAGEN_API
mmagen_status mmagen_gemm_choose(mmagen_gemm_request *req, uint32_t m, uint32_t n, uint32_t k,
				 unsigned sms);
/* The bytes of the split-K kernel's workspace and counters for M x N and
 * S slices: tiles = ceil(ceil(M/tile_m)/cluster) * cluster * ceil(N/tile_n);
 * workspace = tiles * S * 128 * tile_n * 4 (two 64-row warpgroup slots), counters = tiles * 2 * 4
 * (one u32 per consumer warpgroup of a tile).  The mma.sync path with
 * split_workspace: workspace = tiles * split_k * tile_m * tile_n * 4 (a
 * slot per tile and K slice; tiles = ceil(M/tile_m) * ceil(N/tile_n)),
 * counters = tiles * 4.  0 and 0 for a kernel without either. */
MMAGEN_API
mmagen_status mmagen_gemm_split_buffers(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
					unsigned splits, uint64_t *workspace_bytes,
					uint64_t *counter_bytes);
/* The same for a launch of `grid` CTAs (the split grid's x, a multiple
 * of the cluster): the kernel runs whole tiles first, as many as fill
 * whole waves of the grid (whole = floor(T / G) * G of the T cluster
 * tiles, G = grid / cluster), and splits only the rest, the tail, so
 * only the tail's tiles take slots and counters: the sizes above with
 * (T - whole) * cluster tiles in place of every tile (0 and 0 when the
 * tiles fill whole waves).  Never more than mmagen_gemm_split_buffers's. */
MMAGEN_API
mmagen_status mmagen_gemm_split_buffers_grid(const mmagen_gemm_info *info, uint32_t m,
					     uint32_t n, unsigned splits, unsigned grid,
					     uint64_t *workspace_bytes, uint64_t *counter_bytes);

/* Write `len` bytes to path as GNU tools write output files.  A regular
 * file (or a symbolic link, followed to the file it names) is replaced
 * atomically: a temporary beside it, then rename; a new file gets mode
 * 0666 & ~umask, a replaced one keeps its mode.  "-" is standard output
 * (descriptor 1: flush your own buffered output first); character devices,
 * FIFOs and /dev/fd/N are written directly.  A directory, or a path in a
 * directory that does not exist, is refused before anything is created.
 * On error (MMAGEN_IO, one line naming the path) no file is changed and no
 * temporary is left. */
MMAGEN_API
mmagen_status mmagen_write_file(const char *path, const char *data, size_t len);
/* Write n files together: paths[i] gets lens[i] bytes of data[i], as
 * mmagen_write_file writes one.  Every file is written to its temporary
 * first, then the devices and pipes, and the temporaries are renamed into
 * place only when everything was written: a failure leaves every file as
 * it was (only a failing rename, after all data is written, can leave the
 * earlier files replaced).  Two paths that end in one file (also through
 * links: "x" and "./x") are MMAGEN_INVALID_ARGUMENT. */
MMAGEN_API
mmagen_status mmagen_write_files(size_t n, const char *const *paths,
				 const char *const *data, const size_t *lens);

/* ---- checking tile kernels (gen/kernels/check.c) ----
 * Everything about checking a tile kernel except the GPU: inputs for the
 * kernel's parameters (packed as its manifest says), the exact reference D,
 * and the comparison of the D the kernel wrote with it.  Parameters are
 * found by name ("A", "B", "C", "D", "E", "SA", "SB"), never by position.
 * With a runtime (libmmart) a program checks a kernel in a few calls:
 *
 *   mmagen_emit_tile(f, t, opts, MMAGEN_FMT_PTX, &ptx, NULL);
 *   mmagen_check_new(f, opts, MMAGEN_CHECK_RANDOM, seed, &chk);
 *   ti = mmagen_check_tile(chk);
 *   for every parameter p < ti->nparams: allocate ti->params[p].bytes on
 *       the device and copy mmagen_check_data(chk, p, ...) there (for the
 *       output D that is the poison: a kernel that writes nothing fails);
 *   launch ti->kernel (grid, block, smem from ti; kernel arguments are the
 *       device pointers in parameter order);
 *   mmagen_check_find_param(ti, "D", &d); copy parameter d back;
 *   mmagen_check_verify(chk, dbuf, ti->params[d].bytes, &res);
 *
 * Inputs are drawn from splitmix64(seed): the same form, options, input set
 * and seed give the same bytes. */

/* X(id, name): the input sets.
 *   random     random bit patterns over the type's range (floats: finite,
 *              and small enough that no partial sum overflows D)
 *   max        every A and B element at the type's largest value (random
 *              signs where D cannot overflow)
 *   subnormal  A, B and C random subnormals (float types)
 *   special    A[0][*] NaN, A[1][0] Inf, A[2][*] -0, C[0][0] -0
 *   overflow   integer A, B at their extremes and C near the largest value,
 *              so that s32 wraps (or saturates with .satfinite) */
#define MMAGEN_CHECK_INPUTS_LIST(X)                                        \
	X(RANDOM, "random") X(MAX, "max") X(SUBNORMAL, "subnormal")      \
	X(SPECIAL, "special") X(OVERFLOW, "overflow")

typedef enum mmagen_check_inputs {
#define MMAGEN_X_(id, name) MMAGEN_CHECK_##id,
	MMAGEN_CHECK_INPUTS_LIST(MMAGEN_X_)
#undef MMAGEN_X_
	MMAGEN_CHECK_INPUTS_COUNT
} mmagen_check_inputs;

/* The byte every output parameter is filled with before the launch. */
#define MMAGEN_CHECK_POISON 0xFFu

/* "random", "max", ...; NULL for a value outside the list. */
MMAGEN_API
const char *mmagen_check_inputs_name(unsigned inputs);
MMAGEN_API
mmagen_status mmagen_check_inputs_parse(const char *s, unsigned *out);

/* A prepared check: the tile's manifest, its inputs and the expected D. */
typedef struct mmagen_check mmagen_check;

/* Prepare the check of form f's tile kernel with tile options o (NULL:
 * defaults; they must be those the kernel was emitted with), input set
 * `inputs` (MMAGEN_CHECK_*) and seed.  Free with mmagen_check_free(). */
MMAGEN_API
mmagen_status mmagen_check_new(const mmagen_form *f, const mmagen_tile_opts *o,
			       unsigned inputs, uint64_t seed, mmagen_check **out);
MMAGEN_API
void mmagen_check_free(mmagen_check *c);
/* The kernel's manifest (as mmagen_tile_info_of gives it); owned by c. */
MMAGEN_API
const mmagen_tile_info *mmagen_check_tile(const mmagen_check *c);
/* Index of the parameter called `name` in ti ("D" -> 3 for mma tiles);
 * MMAGEN_UNKNOWN_NAME (naming the parameters there are) when none is. */
MMAGEN_API
mmagen_status mmagen_check_find_param(const mmagen_tile_info *ti, const char *name,
				      unsigned *index);
/* The bytes to copy into parameter `param` before the launch: packed
 * inputs, or MMAGEN_CHECK_POISON bytes for an output.  Owned by c. */
MMAGEN_API
mmagen_status mmagen_check_data(const mmagen_check *c, unsigned param,
				const void **data, size_t *bytes);
/* The logical operands as element patterns, row-major, one per uint64_t:
 * "A" (the dense MxK that the reference multiplies; sparse forms: zeros
 * where pruned), "B", "C", "SA", "SB" as generated, and "D": the expected
 * D patterns.  Sizes in *rows, *cols.  Owned by c. */
MMAGEN_API
mmagen_status mmagen_check_operand(const mmagen_check *c, const char *name,
				   const uint64_t **elems, unsigned *rows,
				   unsigned *cols);

/* What verify found.  Set `size` to sizeof(mmagen_check_result) before
 * the call: later versions may append fields and fill only what the
 * caller's size holds. */
typedef struct mmagen_check_result {
	size_t size;
	int pass;                /* 1 when every element is acceptable */
	size_t bad;              /* elements that are not */
	size_t total;            /* elements compared (D's rows x cols) */
	double max_err;          /* largest error as the comparison measures
				  * it: |got - exact| for floating D (0 where
				  * both are the same NaN/Inf); for integer D
				  * the distance to the expected pattern
				  * modulo 2^bits (wrap-around), as D is
				  * compared modulo 2^bits */
	double max_rel;          /* largest error / (sum|a*b| + |c|) */
	unsigned row, col;       /* the first bad element, row-major order */
	uint64_t got, expected;  /* its D patterns: the kernel's, the
				  * reference's */
	double got_value;        /* the kernel's value */
	double exact;            /* the exact A*B+C before rounding into D
				  * (integer .satfinite: before saturation) */
} mmagen_check_result;

/* Compare the D the kernel wrote (`d`, `bytes` of the D parameter as it
 * came back from the device) with the reference, element by element,
 * under mmagen_ref_accept's tolerance.  MMAGEN_OK means the comparison
 * ran; r->pass says whether D is right. */
MMAGEN_API
mmagen_status mmagen_check_verify(const mmagen_check *c, const void *d,
				  size_t bytes, mmagen_check_result *r);

/* ---- quantization plans (gen/analysis/plan.c, rules in gen/analysis/quant.def) ----
 * From a quantization config ("w4a16", "w8a8-fp8", "nvfp4", ...) and a
 * target to the MMA that computes it: the types the MMA really receives,
 * the accumulator, native or converted in the main loop (and how), the
 * scale format and block, the packing, and every legal form of the table
 * on the target, best first.  A = the weights, B = the activations. */
typedef struct mmagen_plan_request {
	size_t size;             /* sizeof(mmagen_plan_request): set by _init */
	int target;              /* required: index from mmagen_target_parse */
	const char *quant;       /* the config; case, '-', '_' and spaces do
				  * not matter */
} mmagen_plan_request;

/* One instruction form a path may use on the target. */
typedef struct mmagen_plan_form {
	const mmagen_form *form;
	const char *emulated;    /* NULL; or why ptxas accepts the form but the
				  * target's SASS has no native instruction */
} mmagen_plan_form;

/* One way to compute the config: native, or after a conversion. */
typedef struct mmagen_plan_path {
	const char *id;          /* "FP8", "I4_BF16", ... (gen/analysis/quant.def) */
	const char *label;       /* the path in a few words */
	int native;              /* 1: the MMA receives the config's own
				  * types and scales; 0: converted first */
	int available;           /* 1: the target has a form (nforms > 0) */
	int emulated;            /* 1: every form it has is emulated */
	mmagen_type a, b;        /* what the MMA receives */
	mmagen_type acc;         /* the preferred accumulator */
	mmagen_type acc_alt;     /* another legal one, or MMAGEN_TYPE_NONE */
	mmagen_type stype;       /* scale type the MMA reads, or NONE */
	unsigned block;          /* K elements per scale in the MMA, or 0 */
	const char *conversion;  /* what the main loop does first, or "none..." */
	const char *scale;       /* the scale format and who applies it */
	const char *packing;     /* the layout the kernel expects */
	const char *reason;      /* why this path, why it ranks here */
	const char *needs;       /* the rule a target without it breaks */
	const char *lowest;      /* the lowest target per family whose MMA
				  * takes the path's types unemulated:
				  * "sm_100a (tcgen05), sm_120a (mma.sync)";
				  * "" if none */
	size_t nforms;
	const mmagen_plan_form *forms;  /* best first */
	const char *emit;        /* `mmagen emit instr` of forms[0], or NULL */
	const char *gemm;        /* the `mmagen gemm` line on these types, or NULL */
} mmagen_plan_path;

/* A plan: read it, print it (mmagen_plan_format), free it. */
typedef struct mmagen_plan {
	const char *config;      /* canonical name: "w8a8-fp8" */
	const char *title;       /* "W8A8 FP8" */
	const char *weights, *activations;  /* the stored formats, in words */
	int target;
	int native;              /* 1: a path is native on the target */
	const char *verdict;     /* one line: native or not, the rule, the
				  * nearest paths */
	const char *order;       /* how paths and forms are ordered, and why */
	size_t npaths;           /* available paths first (native, converted,
				  * emulated), then the absent ones */
	const mmagen_plan_path *paths;
} mmagen_plan;

MMAGEN_API
void mmagen_plan_request_init_size(mmagen_plan_request *r, size_t size);
#define mmagen_plan_request_init(r) mmagen_plan_request_init_size((r), sizeof *(r))
/* The plan of r->quant on r->target; free with mmagen_plan_free().  An
 * unknown config is MMAGEN_UNKNOWN_NAME, the message naming the nearest
 * configs.  A config that cannot run natively on the target is still a
 * plan (native 0, the verdict says why and what is nearest); one with no
 * path at all there has every path's `available` 0. */
MMAGEN_API
mmagen_status mmagen_plan_new(const mmagen_plan_request *r, mmagen_plan **out);
MMAGEN_API
void mmagen_plan_free(mmagen_plan *p);
/* MMAGEN_FMT_TEXT (what `mmagen plan` prints) or MMAGEN_FMT_JSON. */
MMAGEN_API
mmagen_status mmagen_plan_format(const mmagen_plan *p, mmagen_format fmt,
				 char **out, size_t *len);
/* The canonical config names in order (i from 0); NULL past the end. */
MMAGEN_API
const char *mmagen_plan_config_name(size_t i);
/* docs/plan.md: every config on sm_80, sm_89, sm_90a, sm_100a, sm_120a. */
MMAGEN_API
mmagen_status mmagen_doc_plan(char **out, size_t *len);
/* ---- inspecting compiled artifacts (gen/analysis/inspect.c, gen/analysis/elf.c) ----
 * What tensor-core instructions a PTX module, a cubin or a fatbinary (a
 * .fatbin file, or a host object/executable with a .nv_fatbin section)
 * holds, and, from a disassembly of its SASS, what the GPU really runs.
 *
 *   mmagen_inspect_buffer(bytes, len, &r);   PTX scanned, cubins found
 *   for each image of kind MMAGEN_IMG_CUBIN (or PTX compiled with ptxas):
 *       disassemble it (nvdisasm or cuobjdump -sass, run by the caller)
 *       and mmagen_inspect_add_sass(r, target, text, len);
 *   mmagen_inspect_render(r, MMAGEN_FMT_TEXT or MMAGEN_FMT_JSON, ...);
 *
 * The reader checks every offset against len: any bytes give a status,
 * never a crash.  Strings and structs it returns are owned by r.
 * Verdicts, per kernel and SASS target, for each MMA instruction of the
 * kernel's PTX (the kernel's verdict is the worst of them):
 *   native     a tensor-core SASS instruction of the same family takes the
 *              PTX types as they are (HMMA.16816.F32.BF16 for bf16 mma.sync)
 *   converted  tensor-core SASS instructions run it on other types, the
 *              inputs widened by conversion instructions (e4m3 mma.sync on
 *              sm_90: F2FP.F16.E4M3.UNPACK_B, then HMMA.16816.F32)
 *   emulated   ptxas computes it in one of its emulation routines
 *              ($__internal_..._cuda_sm_9x_mma_sub_byte_...) or without any
 *              tensor-core instruction
 * Images: */
enum { MMAGEN_IMG_PTX = 1, MMAGEN_IMG_CUBIN, MMAGEN_IMG_UNREAD };
enum { MMAGEN_VERDICT_UNKNOWN, MMAGEN_VERDICT_NATIVE, MMAGEN_VERDICT_CONVERTED,
       MMAGEN_VERDICT_EMULATED };

typedef struct mmagen_inspect mmagen_inspect;

/* One PTX text or cubin found in the input (the input itself, an ELF
 * section, or a fatbinary entry).  MMAGEN_IMG_UNREAD: an entry that could
 * not be read (compressed, cut short); `note` says why. */
typedef struct mmagen_inspect_image {
	int kind;                /* MMAGEN_IMG_* */
	unsigned sm;             /* 90 for sm_90 and sm_90a; 0 unknown */
	const char *target;      /* PTX: its .target ("sm_90a"); else "" */
	const char *where;       /* "file", "fatbin entry 2 in .nv_fatbin", ... */
	const char *note;        /* "" or why it was not read */
	const unsigned char *data;
	size_t len;
} mmagen_inspect_image;

/* One instruction, with how many times it appears in its kernel.  PTX:
 * the opcode as written and its fields (from the table's form when the
 * opcode is one of its forms, else from the opcode's own tokens); SASS:
 * the mnemonic ("HMMA.16816.F32.BF16") and what it reads. */
typedef struct mmagen_inspect_op {
	const char *kernel;      /* the .entry/.func, or the SASS function */
	const char *target;      /* SASS: "sm_90"; PTX: "" */
	const char *text;        /* the opcode or mnemonic */
	const char *family;      /* "mma.sync", "mma.sp", "wgmma", "wgmma.sp",
				  * "tcgen05.mma", "ldmatrix", ...; SASS: "HMMA",
				  * "QGMMA", "UTCQMMA", ... */
	const char *shape;       /* "m16n8k16" (SASS: "16816", "64x128x32");
				  * "" when the opcode has none (tcgen05) */
	const char *kind;        /* "f8f6f4" or "" */
	uint8_t a, b, c, d;      /* mmagen_type; NONE where not written
				  * (tcgen05: types are in the descriptor) */
	uint8_t sparse;          /* 1 for .sp forms */
	uint8_t block_scale;     /* 1 for block-scaled forms */
	uint8_t sass;            /* 1: a SASS instruction */
	const mmagen_form *form; /* PTX: the table's form, or NULL */
	const char *helper;      /* SASS: the ptxas routine it is in, or NULL */
	unsigned count;
} mmagen_inspect_op;

typedef struct mmagen_inspect_verdict {
	const char *kernel;
	const char *target;      /* the SASS target */
	unsigned verdict;        /* MMAGEN_VERDICT_* */
	const char *reason;      /* one line */
} mmagen_inspect_verdict;

/* Read PTX text, an ELF file (cubin or host object/executable) or a
 * fatbinary.  Input that is none of them: MMAGEN_INVALID_ARGUMENT.  The
 * bytes are copied; free r with mmagen_inspect_free(). */
MMAGEN_API
mmagen_status mmagen_inspect_buffer(const void *data, size_t len, mmagen_inspect **out);
MMAGEN_API
void mmagen_inspect_free(mmagen_inspect *r);
/* Add the disassembly of one cubin (nvdisasm's or `cuobjdump -sass`'s
 * text) for target `target` ("sm_90"; NULL: the target the text names),
 * and work out the verdicts of the kernels it holds. */
MMAGEN_API
mmagen_status mmagen_inspect_add_sass(mmagen_inspect *r, const char *target,
				      const char *text, size_t len);
/* Add PTX text found elsewhere (`cuobjdump -ptx` of compressed entries)
 * as an image described by `where`, and scan it.  Add PTX before the SASS
 * it is to be compared with. */
MMAGEN_API
mmagen_status mmagen_inspect_add_ptx(mmagen_inspect *r, const char *where,
				     const char *text, size_t len);
/* A line for the report ("SASS not examined: ..."). */
MMAGEN_API
mmagen_status mmagen_inspect_add_note(mmagen_inspect *r, const char *line);
MMAGEN_API
size_t mmagen_inspect_image_count(const mmagen_inspect *r);
MMAGEN_API
const mmagen_inspect_image *mmagen_inspect_image_at(const mmagen_inspect *r, size_t i);
MMAGEN_API
size_t mmagen_inspect_op_count(const mmagen_inspect *r);
MMAGEN_API
const mmagen_inspect_op *mmagen_inspect_op_at(const mmagen_inspect *r, size_t i);
MMAGEN_API
size_t mmagen_inspect_verdict_count(const mmagen_inspect *r);
MMAGEN_API
const mmagen_inspect_verdict *mmagen_inspect_verdict_at(const mmagen_inspect *r, size_t i);
/* "native", "converted", "emulated", "unknown". */
MMAGEN_API
const char *mmagen_inspect_verdict_name(unsigned v);
/* The report: fmt MMAGEN_FMT_TEXT (lines for people) or MMAGEN_FMT_JSON. */
MMAGEN_API
mmagen_status mmagen_inspect_render(const mmagen_inspect *r, mmagen_format fmt,
				    char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* MMAGEN_H */
