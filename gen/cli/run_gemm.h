/* run_gemm.h - `mmagen run gemm`: run the generated GEMM on the GPU, check
 * it against an exact CPU reference, time it beside cuBLASLt, save and load
 * its operands.  Part of the CLI (like run.h), built on the public APIs of
 * libmmagen and libmmart only.
 *
 *   the GPU side (run_gemm_gpu.h, what its files share):
 *   run_gemm.c           the command: options, device operands, load and
 *                        launch through libmmart's GEMM launcher, split-K,
 *                        the check, --time-load
 *   run_gemm_bench.c     --bench: cuBLASLt beside it, bursts, clocks
 *   run_gemm_tune.c      --tune, tuned and chosen kernel choices
 *   run_gemm_sm120_gpu.c sm_120a kernels on an SM120 GPU
 *   cublaslt.c           cuBLASLt through dlopen, for --bench
 *
 *   the host side (this header; everything a CPU can do and the unit
 *   tests reach):
 *   run_gemm_host.c      the problem's rules, inputs, the reference and
 *                        its tolerance, the sample, the comparison
 *   run_gemm_save.c      save and load (gemm.json and its JSON reader)
 *   run_gemm_tune_file.c tuned choices: keys, the records file, the
 *                        candidates --tune tries
 *   run_gemm_sm120.c     the sm_120a GEMM's operands (containers, scale
 *                        rows), reference, check and --save (end of this
 *                        header)
 *
 * The problem (layout tn, the one the generator writes today): A is M x K
 * row-major; B is K x N column-major, i.e. N rows of K elements; C and D
 * are M x N row-major.  Every operand is dense: lda = ldb = K, ldc = ldd =
 * N (elements).
 *
 * The types (the generator's, sm_90a): A and B bf16/bf16 or f16/f16 (D
 * bf16, f16, f32), tf32/tf32 (stored as f32; the tensor cores read the
 * top 19 bits), any mix of e4m3/e5m2 (D bf16, f16, f32), any mix of s8/u8
 * (D s32 in wrapping arithmetic, alpha and beta truncated to integers, or
 * f32); float inputs also write e4m3/e5m2 D (scaled by d_scale,
 * saturated to the largest finite value).  C has D's type.  The mma.sync
 * path (sm_80 to sm_89, --path mma.sync on sm_90) adds any mix of s4/u4
 * (D s32 or f32, as s8/u8; layout tn only), packed two elements a byte:
 * element 2j in the low nibble of byte j (run_gemm_host.c says where
 * that comes from); K a multiple of 32.  --quant fp8-block (sm_90a, FP8 A
 * and B) adds f32 scales per row of A and 128 of K and per 128 x 128
 * block of B (struct rg_problem's block_scale). */
#ifndef MMAGEN_RUN_GEMM_H
#define MMAGEN_RUN_GEMM_H

#include "mmagen.h"
#include "mmart.h"

#include <stddef.h>
#include <stdint.h>

struct run_opts;

/* What the command line gives `run gemm` besides the generator's request. */
struct run_gemm_opts {
	uint32_t m, n, k;        /* 0: not given */
	float alpha, beta;       /* the kernel takes f32: parsed, then rounded */
	float d_scale;           /* FP8 D's scale (default 1) */
	int check, bench;
	unsigned reps;           /* --bench, --tune: timed launches (median);
				  * 0: not given (30; --bench: see reps_auto) */
	int reps_auto;           /* set by run_gemm: --bench without --reps
				  * sizes its bursts by a first burst of 10 */
	const char *save, *load; /* directories, or NULL */
	int tune;                /* --tune: try rg_tune_candidates, remember the best */
	int time_load;           /* --time-load: generation, cold JIT, warm load */
	unsigned scale_layout;   /* --scale-layout: 0 not given, RG_SCALES_ROW, _COL */
};

enum { RG_SCALES_ROW = 1, RG_SCALES_COL };

void run_gemm_opts_init(struct run_gemm_opts *o);

/* The command: 0 pass / done, 1 failure (one line said why), 2 usage,
 * 77 no driver or GPU.  has_arch: r->target came from --arch (else the
 * GPU's own target is used). */
int run_gemm(const mmagen_gemm_request *r, int has_arch,
	     const struct run_gemm_opts *g, const struct run_opts *ro);

/* ---- run_gemm_host.c ----
 * Functions that can fail return 0, or -1 after rg_fail() stored a
 * one-line message (rg_error()). */
const char *rg_error(void);
int rg_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One problem and its host operands (element patterns, little-endian,
 * packed as on the device). */
struct rg_problem {
	mmagen_type a, b;        /* A's and B's types */
	mmagen_type out;         /* C's and D's type */
	uint32_t m, n, k;
	float alpha, beta;
	uint64_t seed;           /* inputs (rg_fill) and the sample */
	/* the device layout (the host copies are always K-major, "tn"):
	 * a_mn, b_mn: A stored M-major, B N-major (layouts nn, nt, tt; the
	 * mma.sync path, which also needs M or N a multiple of 8 then) */
	int a_mn, b_mn;
	int acc_f16;             /* the kernel accumulates in f16 (--acc f16) */
	float d_scale;           /* e4m3/e5m2 D: D = satfinite(d_scale * (alpha
				  * A * B + beta * C)); 1 (and unused) else */
	unsigned promote_k;      /* FP8 on sm_90a: K elements per promotion of
				  * the partial sums (--promote); 0: 128 */
	/* --quant fp8-block (sm_90a): D = alpha * sum over K blocks kb of
	 * sa[m][kb] * sb[n / 128][kb] * (A * B over kb's 128 elements of K)
	 * + beta * C, with f32 scales in rg_data's sa (M x KB) and sb (NB x
	 * KB), KB = ceil(K / 128), NB = ceil(N / 128), element (row, kb) at
	 * row * sa_sm + kb * sa_sk (sb: sb_sn, sb_sk); rg_scale_layout sets
	 * the strides.  0 (and no scales) otherwise. */
	int block_scale;
	int scale_col;           /* the strides are column-major (--scale-layout col) */
	uint32_t sa_sm, sa_sk, sb_sn, sb_sk;
};

struct rg_data {
	struct rg_problem p;
	void *a, *b, *c;         /* inputs: M x K, N x K, M x N */
	void *d;                 /* the kernel's D, M x N */
	float *sa, *sb;          /* p.block_scale: the scales, dense in their layout */
};

/* --quant fp8-block's scale layout into p (block_scale set, M, N, K
 * given): row-major sa [M][KB] and sb [NB][KB] (sa_sm = sb_sn = KB, sa_sk
 * = sb_sk = 1: also the launcher's default), or with col column-major
 * [KB][M] and [KB][NB] (DeepGEMM's and torch's layout of A's scales). */
#define RG_SCALE_BLOCK 128u
void rg_scale_layout(struct rg_problem *p, int col);
/* The scales of A ('A': M x KB) or B ('B': NB x KB), 0 without. */
size_t rg_scale_count(const struct rg_problem *p, char which);
/* f32 scales, never zero, from seed: half powers of two 2^e, half 2^e
 * times a random 24-bit significand in [1, 2), e uniform in -E..E, E 10
 * for bf16 and f32 D (products 2^-20..2^20, far inside their range), 4
 * for f16 D and 2 for FP8 D (their D stays mostly finite and unsaturated
 * at the sizes run gemm checks). */
void rg_fill_scales(const struct rg_problem *p, uint64_t seed, char which, float *s);

/* How the kernel accumulates, from A's type: in f32 on the tensor cores
 * (bf16, f16, tf32), in f32 with FP8's reduced-precision partial sums
 * added into f32 once per K block (e4m3, e5m2), or exactly in s32 (s8,
 * u8, s4, u4). */
enum rg_class { RG_F32ACC, RG_FP8, RG_INT };
enum rg_class rg_class_of(mmagen_type a);

/* Bits of one element of t (4, 8, 16 or 32), its bytes (1, 2 or 4; 0
 * for the 4-bit types, as the manifest's elem_bytes_a/b), and the bytes
 * of each operand (4-bit ones packed two elements a byte, rounded up). */
unsigned rg_elem_bits(mmagen_type t);
unsigned rg_elem_bytes(mmagen_type t);
size_t rg_bytes(const struct rg_problem *p, char operand);   /* 'A', 'B', 'C', 'D' */

/* The rules the kernel's tensor maps and epilogue put on the problem
 * (manifest "rules"), checked before anything is launched: one line
 * naming the operand and the rule.  4-bit A or B: K-major only, K a
 * multiple of 32 (rows of whole 16-byte chunks). */
int rg_check_problem(const struct rg_problem *p);

/* Operands A, B, C (allocated, random) or D (allocated, zero): 0 or -1. */
int rg_alloc(struct rg_data *d);
void rg_data_free(struct rg_data *d);
/* `count` elements of operand `which` ('A', 'B', 'C'), a stream of its own
 * from seed, never zero, each exactly a value of t:
 *   bf16, f16, f32, tf32  uniform in [-1, 1) (steps of 2^-24), rounded to
 *                         t (tf32: an f32 whose low 13 bits are zero)
 *   e4m3, e5m2            uniform in [-2, 2) (steps of 2^-11), rounded by
 *                         mmagen_type_encode: |x| <= 2 keeps f16 D finite
 *   s8, u8, s32, s4, u4   uniform over the type's whole range (s4 -8..7,
 *                         u4 0..15), packed as on the device; an odd
 *                         4-bit count leaves the last high nibble 0 */
void rg_fill(mmagen_type t, uint64_t seed, char which, void *buf, size_t count);
/* x (|x| <= 1) rounded to nearest even in bf16, f16, f32 or tf32: the
 * pattern. */
uint64_t rg_round(mmagen_type t, float x);
/* A, B and C of d->p, from d->p.seed.  With s8/u8 inputs and f32 D, C is
 * scaled by 2^16 (exactly) to the size of A*B, so that beta * C shows;
 * with s4/u4 inputs by 2^8. */
void rg_fill_inputs(struct rg_data *d);

/* Element i of a buffer of type t, exactly (s4/u4: the nibble of
 * element i, s4 sign-extended). */
double rg_value(mmagen_type t, const void *buf, size_t i);
/* Element i's pattern `bits` into a buffer of type t, packed as on the
 * device (s4/u4: its nibble only, the other one kept). */
void rg_put_bits(mmagen_type t, void *buf, size_t i, uint64_t bits);

/* The exact dot product of row i of A and column j of B (every product
 * of two inputs is exact in double; a compensated sum, exact for the
 * integer types), and sum |a*b|.  Block-scaled (p.block_scale): each K
 * block's exact dot product times the product of its two scales (exact
 * in double: two f32 significands), the blocks summed with compensation
 * (an error near 2^-52 of the sum of their magnitudes), and sum |sa *
 * sb * a * b|. */
double rg_dot(const struct rg_data *d, uint32_t i, uint32_t j, double *sum_abs);
/* alpha * dot + beta * C[i][j] in double, and what the tolerance needs.
 * s8/u8/s4/u4 inputs: the dot product as the s32 accumulator holds it (modulo
 * 2^32); s32 D: alpha and beta truncated to s32 (rg_int_scale) and the
 * result wrapped to s32, exactly. */
double rg_reference(const struct rg_data *d, uint32_t i, uint32_t j,
		    double *sum_abs, double *cval);
/* D is e4m3 or e5m2 (scaled by d_scale). */
int rg_fp8_out(const struct rg_problem *p);
/* cvt.rzi.s32.f32: x truncated toward zero, saturated to s32. */
int32_t rg_int_scale(float x);
/* x modulo 2^32 as an s32 (x an integer below 2^63 in magnitude). */
int32_t rg_wrap32(int64_t x);

/* Half a unit in the last place of type t at magnitude |x| (subnormals:
 * half the smallest step). */
double rg_half_ulp(mmagen_type t, double x);
/* How far D[i][j] may be from the reference: the accumulation over K
 * (per rg_class_of(p->a)), the f32 alpha product and beta FMA, and the
 * final rounding into p->out (see run_gemm_host.c).  0 for s32 D: exact. */
/* of sum |a*b|: FP8 wgmma's partial sums; 6.6e-4 was measured on the H200
 * for one k32 instruction, and the kernel chains four (a K block of 128)
 * before adding them into f32, so four times that. */
#define RG_FP8_ACC 2.7e-3
double rg_tolerance(const struct rg_problem *p, double sum_abs, double cval, double ref);

/* Elements compared: every one when M*N*K <= RG_FULL_WORK or M*N <=
 * RG_SAMPLE; else RG_SAMPLE distinct row-major indices drawn from seed
 * plus the four corners, sorted.  *idx is malloc()ed (NULL and count 0
 * for "every element"); -1 when out of memory. */
#define RG_FULL_WORK (1ull << 27)
#define RG_SAMPLE 4096u
int rg_sample(const struct rg_problem *p, uint64_t seed, size_t **idx, size_t *count);

struct rg_verdict {
	size_t checked, bad;
	double worst_ratio;      /* largest |got - ref| / tolerance */
	double worst_err;        /* its |got - ref| */
	uint32_t wi, wj;         /* where */
	uint32_t bi, bj;         /* the first bad element */
	double bad_got, bad_ref, bad_tol;
};

/* One element into the verdict: D[i][j] = got against ref within tol
 * (an Inf of ref's sign passes where |ref| + tol reaches inf_at, the
 * value floats round to Inf from; NaN fails). */
void rg_verdict_add(struct rg_verdict *r, uint32_t i, uint32_t j, double got, double ref,
		    double tol, double inf_at);
/* Compare d->d with the reference at the elements of rg_sample(). */
int rg_verify(const struct rg_data *d, struct rg_verdict *v);

/* ---- run_gemm_save.c ----
 * Operands to DIR/A.bin, B.bin, C.bin, D.bin (raw little-endian) and the
 * description DIR/gemm.json, each through mmagen_write_file; DIR is made
 * if missing.  The description is written last; a 4-bit operand's entry
 * has "packing" (two elements a byte, low nibble first), which rg_load
 * wants back. */
/* Whether a save may go into dir, said before any run: a new directory
 * (whose parent exists), an empty one, or an earlier save holding only a
 * save's files; 0 or -1 with rg_error(). */
int rg_save_dir_check(const char *dir);
/* That check, then the directory made if missing and the files of an
 * earlier save that this one does not replace removed (its gemm.json
 * first; SA.bin and SB.bin unless this save has scales): what rg_save
 * and rg120_save do first.  0 or -1 with rg_error(). */
int rg_save_begin(const char *dir, int scales);
int rg_save(const char *dir, const struct rg_data *d, const char *layout);
/* A, B and C from such a directory into d (allocated here), after
 * checking that DIR/gemm.json describes d->p exactly (types, shapes,
 * strides, layout, alpha, beta). */
int rg_load(const char *dir, struct rg_data *d, const char *layout);

/* ---- tuned choices (run_gemm_tune_file.c) ----
 * `run gemm --tune` times a few tile/stage/cluster/group choices and
 * remembers the fastest per key in RG_TUNE_FILE in the cache directory
 * (mmart_cache_default_dir: the directory and the file must be yours and
 * not writable by group or others, as for cached modules; MMAGEN_CACHE=0
 * turns tuned choices off too).  The file is small text, one record a
 * line after a version line, fields separated by tabs:
 *   mmagen gemm tune v1
 *   GPU name <TAB> a b acc out layout <TAB> log2 M N K <TAB> tile_n stages cluster group <TAB> TFLOP/s
 * and is replaced whole (mmagen_write_file) when a record changes. */
#define RG_TUNE_FILE "gemm-tune.txt"
#define RG_TUNE_MAGIC "mmagen gemm tune v1"

struct rg_tune_key {
	char gpu[96];            /* the device's name (tabs and newlines as spaces) */
	mmagen_type a, b, acc, out;
	unsigned layout;         /* MMAGEN_GEMM_* */
	unsigned lm, ln, lk;     /* shape class: rg_log2_bucket of M, N, K */
};

struct rg_tune_choice {
	unsigned tile_n, stages, cluster, group;
	double tflops;           /* measured when tuned (TOP/s for integers) */
	unsigned tile_m;         /* 0 (the default 128), or a small-M tile */
	unsigned schedule;       /* 0 (cooperative), or MMAGEN_GEMM_SCHED_PINGPONG */
};

/* floor(log2 x) for x >= 1 (0 for 0): 4096..8191 are one class. */
unsigned rg_log2_bucket(uint32_t x);
void rg_tune_key_of(struct rg_tune_key *key, const char *gpu, const mmagen_gemm_request *r,
		    uint32_t m, uint32_t n, uint32_t k);
/* The path of the file in the cache directory (made if missing, checked
 * to be yours and not group/other-writable): 0, or -1 with rg_error()
 * (also when MMAGEN_CACHE=0). */
int rg_tune_path(char *buf, size_t n);
/* The record of key in the file at path: 1 found (*c), 0 none.  A file
 * that is not ours to trust, has another version line or a line that does
 * not parse is ignored whole: 0, and *note (when not NULL) gets one line
 * saying why; a missing file is no note. */
int rg_tune_lookup(const char *path, const struct rg_tune_key *key, struct rg_tune_choice *c,
		   char *note, size_t note_n);
/* Store (replace) key's record: the file is read (a corrupt one is
 * dropped, *note says so), the record replaced or appended, and the whole
 * written atomically.  0 or -1 with rg_error(). */
int rg_tune_record(const char *path, const struct rg_tune_key *key, const struct rg_tune_choice *c,
		   char *note, size_t note_n);
/* The choices --tune tries for request r (its types) and M: tile N 128
 * and 256 (FP8: 128 and 192), cluster 1 and 2, stages the default and one
 * fewer (0 and RG_STAGES_FEWER), group 8 and 16; for M <= 128 with a
 * K-major A instead the small-M tile (16, 32 or 64 rows; 64 past M 64) and 128 rows
 * (tile_m 128: said, so that the record keeps it),
 * tile N 64 and 128, stages the default and one fewer, cluster 1, group
 * 8.  Without small M and FP8, also ping-pong tiles 128x128 and 128x192,
 * cluster 1 and 2, default stages, group 8.  Up to max into c; the count. */
#define RG_STAGES_FEWER 0xffffffffu
unsigned rg_tune_candidates(const mmagen_gemm_request *r, uint32_t m, struct rg_tune_choice *c,
			    unsigned max);

/* splitmix64: the one generator of inputs and samples (run_gemm_host.c). */
uint64_t rg_next(uint64_t *state);

/* ---- run_gemm_sm120.c: the sm_120a GEMM's operands ----
 * The block-scaled mma.sync kernel (kernel_gemm_sm120.c) reads A (M rows)
 * and B (N rows) K-major in the manifest's containers (info.elem_bits_a):
 *   8  one byte per element: e4m3/e5m2 the byte, e3m2/e2m3 bits 0..5,
 *      e2m1 bits 2..5, every other bit zero (kind::f8f6f4, mxf8f6f4)
 *   4  e2m1 packed two per byte, element 2i in the low nibble (mxf4,
 *      mxf4nvf4)
 * and, when block-scaled, SA (M rows) and SB (N rows) of ldsa / ldsb
 * bytes: byte s of a row is the scale (info.stype: ue8m0, or ue4m3 for
 * nvfp4) of elements s*block .. s*block+block-1 of K (`mmagen quantize`'s
 * order).  The rows are dense: lda = ldb = K elements; ldsa = ldsb =
 * ceil(K/block) rounded up to spb = tile_k / block (the scale bytes the
 * kernel copies per row and K block), the padding 0xFF (NaN in both
 * scale types: a kernel that used it would show).  C and D as in
 * struct rg_problem (row-major M x N, ldc = ldd = N). */
enum rg120_operand { RG120_A, RG120_B, RG120_SA, RG120_SB, RG120_C, RG120_D };

struct rg120_problem {
	mmagen_type a, b, out;
	mmagen_type stype;       /* MMAGEN_TYPE_NONE: kind::f8f6f4, no scales */
	unsigned bits;           /* container bits per element: 8 or 4 */
	unsigned block, spb;     /* K elements per scale; scale bytes per K block */
	uint32_t m, n, k;
	uint32_t lda, ldb;       /* elements (= K) */
	uint32_t ldsa, ldsb;     /* bytes (0 without scales) */
	float alpha, beta;
	uint64_t seed;
};

struct rg120_data {
	struct rg120_problem p;
	uint8_t *a, *b, *sa, *sb;
	void *c, *d;
};

/* The problem of request r (info: its manifest) at M x N x K, checked:
 * 0, or -1 with rg_error() naming the rule and the nearest legal value
 * (K a multiple of the scale block and of 16 bytes of elements; N even,
 * as ldd; M, N, K below 2^31). */
int rg120_problem_of(struct rg120_problem *p, const mmagen_gemm_request *r,
		     const mmagen_gemm_info *info, uint32_t m, uint32_t n, uint32_t k,
		     float alpha, float beta, uint64_t seed);
size_t rg120_bytes(const struct rg120_problem *p, enum rg120_operand which);

/* Element (row, kk) of A or B (which RG120_A / RG120_B): its code put
 * into, or read from, the container layout above. */
void rg120_put(const struct rg120_problem *p, enum rg120_operand which, uint8_t *buf,
	       uint32_t row, uint32_t kk, unsigned code);
unsigned rg120_get(const struct rg120_problem *p, enum rg120_operand which, const uint8_t *buf,
		   uint32_t row, uint32_t kk);
/* The byte offset of scale s of row `row` in SA or SB (RG120_SA / _SB). */
size_t rg120_scale_at(const struct rg120_problem *p, enum rg120_operand which, uint32_t row,
		      uint32_t s);

/* Operands allocated (A, B, SA, SB, C random from p.seed; D zero): 0 or -1. */
int rg120_alloc(struct rg120_data *d);
void rg120_fill(struct rg120_data *d);
void rg120_data_free(struct rg120_data *d);

/* The value of `code` in e4m3, e5m2, e3m2, e2m3, e2m1, ue8m0 or ue4m3,
 * from a table written from the OCP MX spec and the PTX ISA (not the
 * library's codec); NaN for the NaN codes and for other types. */
double rg120_decode(mmagen_type t, unsigned code);

/* alpha * sum_k (sa*a)(sb*b) + beta * C[i][j] in double, sum |terms|
 * and C's value (0 when beta is 0), as rg_reference. */
double rg120_reference(const struct rg120_data *d, uint32_t i, uint32_t j, double *sum_abs,
		       double *cval);
/* rg_tolerance's bound for this accumulation (see run_gemm_sm120.c). */
double rg120_tolerance(const struct rg120_problem *p, double sum_abs, double cval, double ref);
/* d->d against the reference at rg_sample's elements, as rg_verify. */
int rg120_verify(const struct rg120_data *d, struct rg_verdict *v);
/* A.bin, B.bin, SA.bin, SB.bin (block-scaled), C.bin, D.bin and
 * gemm.json (types, packing, scale layout) into DIR. */
int rg120_save(const char *dir, const struct rg120_data *d, const char *instruction);

#endif
