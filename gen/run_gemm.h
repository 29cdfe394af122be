/* run_gemm.h - `mmagen run gemm`: run the generated GEMM on the GPU, check
 * it against an exact CPU reference, time it beside cuBLASLt, save and load
 * its operands.  Part of the CLI (like run.h), built on the public APIs of
 * libmmagen and libmmart only.
 *
 *   run_gemm.c       the GPU side: load, launch, check, --bench
 *   run_gemm_host.c  everything a CPU can do and the unit tests reach: the
 *                    problem's rules, inputs, the reference and its
 *                    tolerance, the sample, save and load
 *   cublaslt.c       cuBLASLt through dlopen, for --bench
 *
 * The problem (layout tn, the one the generator writes today): A is M x K
 * row-major; B is K x N column-major, i.e. N rows of K elements; C and D
 * are M x N row-major.  Every operand is dense: lda = ldb = K, ldc = ldd =
 * N (elements). */
#ifndef MMAGEN_RUN_GEMM_H
#define MMAGEN_RUN_GEMM_H

#include "mmagen.h"

#include <stddef.h>
#include <stdint.h>

struct run_opts;

/* What the command line gives `run gemm` besides the generator's request. */
struct run_gemm_opts {
	uint32_t m, n, k;        /* 0: not given */
	float alpha, beta;       /* the kernel takes f32: parsed, then rounded */
	int check, bench;
	unsigned reps;           /* --bench: timed launches (median) */
	const char *save, *load; /* directories, or NULL */
};

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
	mmagen_type ab;          /* A's and B's type (bf16 or f16) */
	mmagen_type out;         /* C's and D's type (bf16, f16, f32) */
	uint32_t m, n, k;
	float alpha, beta;
	uint64_t seed;           /* inputs (rg_fill) and the sample */
};

struct rg_data {
	struct rg_problem p;
	void *a, *b, *c;         /* inputs: M x K, N x K, M x N */
	void *d;                 /* the kernel's D, M x N */
};

/* Bytes of one element of t (2 or 4 here) and of each operand. */
unsigned rg_elem_bytes(mmagen_type t);
size_t rg_bytes(const struct rg_problem *p, char operand);   /* 'A', 'B', 'C', 'D' */

/* The rules the kernel's tensor maps and epilogue put on the problem
 * (manifest "rules"), checked before anything is launched: one line
 * naming the operand and the rule. */
int rg_check_problem(const struct rg_problem *p);

/* Operands A, B, C (allocated, random) or D (allocated, zero): 0 or -1. */
int rg_alloc(struct rg_data *d);
void rg_data_free(struct rg_data *d);
/* Uniform in [-1, 1) (steps of 2^-24), rounded to t, never zero: `count` elements of
 * operand `which` ('A', 'B', 'C'), a stream of its own from seed. */
void rg_fill(mmagen_type t, uint64_t seed, char which, void *buf, size_t count);
/* x (|x| <= 1) rounded to nearest even in bf16, f16 or f32: the pattern. */
uint64_t rg_round(mmagen_type t, float x);
/* A, B and C of d->p, from d->p.seed. */
void rg_fill_inputs(struct rg_data *d);

/* Element i of a buffer of type t, exactly. */
double rg_value(mmagen_type t, const void *buf, size_t i);

/* The exact dot product of row i of A and column j of B (products of
 * 16-bit floats are exact in double; a compensated sum), and sum |a*b|. */
double rg_dot(const struct rg_data *d, uint32_t i, uint32_t j, double *sum_abs);
/* alpha * dot + beta * C[i][j] in double, and what the tolerance needs. */
double rg_reference(const struct rg_data *d, uint32_t i, uint32_t j,
		    double *sum_abs, double *cval);

/* Half a unit in the last place of type t at magnitude |x| (subnormals:
 * half the smallest step). */
double rg_half_ulp(mmagen_type t, double x);
/* How far D[i][j] may be from the exact alpha*A*B + beta*C: the f32
 * accumulation over K, the f32 alpha product and beta FMA, and the final
 * rounding into `out` (see run_gemm_host.c). */
double rg_tolerance(mmagen_type out, uint32_t k, double alpha, double beta,
		    double sum_abs, double cval, double ref);

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

/* Compare d->d with the reference at the elements of rg_sample(). */
int rg_verify(const struct rg_data *d, struct rg_verdict *v);

/* Operands to DIR/A.bin, B.bin, C.bin, D.bin (raw little-endian) and the
 * description DIR/gemm.json, each through mmagen_write_file; DIR is made
 * if missing.  The description is written last. */
int rg_save(const char *dir, const struct rg_data *d, const char *layout);
/* A, B and C from such a directory into d (allocated here), after
 * checking that DIR/gemm.json describes d->p exactly (types, shapes,
 * strides, layout, alpha, beta). */
int rg_load(const char *dir, struct rg_data *d, const char *layout);

/* The grid of the persistent kernel: one CTA per SM at most, a multiple
 * of the cluster, never more clusters than cluster-sized work units
 * (ceil(ceil(M/tile_m)/cluster) * ceil(N/tile_n)).  sms 0: unknown, one
 * cluster per work unit. */
unsigned rg_grid(unsigned sms, uint32_t m, uint32_t n, unsigned tile_m,
		 unsigned tile_n, unsigned cluster);

/* splitmix64: the one generator of inputs and samples. */
uint64_t rg_next(uint64_t *state);

#endif
