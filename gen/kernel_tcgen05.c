/* kernel_tcgen05.c - one-tile kernels for tcgen05.mma (sm_100a family).
 *
 * 128 threads per CTA (a 2-CTA cluster for cta_group::2).  The kernel:
 *   1. warp 0 allocates Tensor Memory; thread 0 initialises an mbarrier;
 *   2. every thread copies A and B from global memory (row-major, packed
 *      at the manifest's elem_bits) into shared memory, K-major, in the
 *      canonical layout of the chosen swizzle; block-scaled forms also
 *      place SA/SB there in the 32x128b chunks tcgen05.cp moves;
 *   3. C goes into TMEM with tcgen05.st (skipped when scale_d = 0, which
 *      clears enable-input-d); so do A (A from TMEM) and the sparsity
 *      metadata E;
 *   4. one thread (CTA rank 0) builds the descriptors, runs tcgen05.cp for
 *      the scale factors, issues the one tcgen05.mma and commits it to the
 *      mbarrier (multicast to both CTAs for cta_group::2);
 *   5. every thread waits on the mbarrier, reads its TMEM lane with
 *      tcgen05.ld.32x32b and stores the D elements that lane holds.
 *
 * Which TMEM lane and column hold D(i, j) is the ISA's data-path layout
 * (Layouts A-G, 9.7.16.10.5); the ISA draws them, so the mapping here
 * follows the descriptions of those figures in public code (TVM TIRx).
 * Everything here assembles with ptxas; nothing ran on an sm_100 GPU (there
 * is none here), so the layouts, the TMEM formats of A, of the metadata and
 * of the scale factors are unverified.  Unverified choices:
 *   - FP4/FP6 under kind::f8f6f4/mxf8f6f4: shared memory holds 16 elements
 *     per 16 bytes, packed from bit 0, the rest zero (b4x16_p64,
 *     b6x16_p32); in TMEM (A) one element per byte, e2m1 in bits 2..5 and
 *     FP6 in bits 0..5, as mma.sync's registers hold them.
 *   - E (sparse): row r of A's metadata, M x W 32-bit words (W = 1 for
 *     kind::f16/tf32, 2 otherwise), goes into the TMEM lane of row r, W
 *     columns; its bit format (ISA Figure 260) is the caller's, sparsity
 *     selector 0.
 *   - SA (M x V) and SB (V x N), V scale factors per row/column (ISA
 *     Table 56): SF of row m sits in lane m % 32 of every 32-lane
 *     partition, column m / 32, byte v (scale-factor id 0): the 32x128b
 *     .warpx4 chunk of CUTLASS's Sm1xx scale-factor atom.  Each CTA of a
 *     pair holds the SA rows of its own A half and all of SB. */
#include "kernel_legacy.h"
#include "tcgen05.h"

#include <assert.h>
#include <string.h>

enum { DP_A, DP_B, DP_C, DP_D, DP_E, DP_F, DP_G };

struct plan {
	const mmagen_form *f;
	unsigned m, n, k, cg, ka;      /* ka: A's K as stored (k/2 sparse) */
	unsigned rows_a, rows_b;       /* per CTA */
	unsigned pw_a, pw_b;           /* bits per element in global memory */
	unsigned epc;                  /* elements per 16-byte smem chunk */
	unsigned kc_a, kc_b;           /* chunks along K per row */
	int sub_byte;                  /* FP4/FP6 in the padded f8f6f4 format */
	unsigned swz;                  /* bytes: 0, 32, 64, 128 */
	unsigned a_off, b_off, sf_off, smem;
	int dp;
	unsigned dcols, a_col, meta_col, mcols, sfa_col, sfb_col, sfb_chunks,
		nsf, tcols;
	uint32_t idesc;
	int scale_d;
};

static unsigned align_up(unsigned v, unsigned a)
{
	return (v + a - 1) / a * a;
}

static int pick_datapath(const struct plan *p)
{
	if (p->cg == 2)
		return p->m == 256 ? DP_A : p->f->sparse ? DP_C : DP_B;
	if (p->f->ws)
		return p->m == 32 ? DP_G : p->m == 64 ? DP_E : DP_D;
	return p->m == 64 ? DP_F : DP_D;
}

/* TMEM columns D takes: the folded layouts spread N over lane groups. */
static unsigned d_columns(const struct plan *p)
{
	if (p->dp == DP_B || p->dp == DP_E)
		return p->n / 2;
	return p->dp == DP_G ? p->n / 4 : p->n;
}

static unsigned region_bytes(const struct plan *p, unsigned rows, unsigned kc)
{
	unsigned groups = rows / 8;
	return groups * (p->swz ? 8 * p->swz : 128 * kc);
}

static unsigned pow2_cols(unsigned c)
{
	unsigned n = 32;
	while (n < c)
		n *= 2;
	return n;
}

static mmagen_status make_plan(const mmagen_form *f, const mmagen_tile_opts *o,
			       struct plan *p)
{
	mmagen_status s;
	memset(p, 0, sizeof *p);
	p->f = f;
	p->cg = f->cta_group;
	p->m = o->m ? o->m : f->ws ? 128 : p->cg == 2 ? 256 : 128;
	p->n = o->n ? o->n : p->cg == 2 ? 128 : 64;
	p->k = f->k;
	p->scale_d = o->scale_d;
	if ((s = mmagen_tc_check_shape(f, p->m, p->n)))
		return s;
	if (o->major_a || o->major_b)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"tcgen05 tile kernels lay A and B out K-major; MN-major is an idesc bit "
			"(mmagen_tc_idesc_encode) but no kernel is generated for it (use --major-a k --major-b k)");
	mmagen_tc_idesc id = { .m = p->m, .n = p->n, .neg_a = o->neg_a, .neg_b = o->neg_b };
	if ((s = mmagen_tc_idesc_encode(f, &id, &p->idesc)))
		return s;
	p->ka = f->sparse ? p->k / 2 : p->k;
	p->rows_a = p->m / p->cg;
	p->rows_b = p->n / p->cg;
	p->pw_a = mmagen_type_bits((mmagen_type)f->a);
	p->pw_b = mmagen_type_bits((mmagen_type)f->b);
	int f8 = f->kind == MMAGEN_KIND_F8F6F4 || f->kind == MMAGEN_KIND_MXF8F6F4;
	p->sub_byte = f8 && (p->pw_a < 8 || p->pw_b < 8);
	p->epc = f8 ? 16 : 128 / p->pw_a;
	p->kc_a = p->ka / p->epc;
	p->kc_b = p->k / p->epc;
	p->swz = o->swizzle;
	if (p->swz && p->swz < p->kc_b * 16)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"swizzle %uB holds %u bytes of K per row, but B of this sparse form needs %u "
			"(use swizzle 64, 128 or none)", p->swz, p->swz, p->kc_b * 16);
	p->a_off = 1024;
	p->b_off = p->a_off + align_up(region_bytes(p, p->rows_a, p->kc_a), 1024);
	p->sf_off = p->b_off + align_up(region_bytes(p, p->rows_b, p->kc_b), 1024);
	p->nsf = tc_scale_count(f);
	p->sfb_chunks = p->nsf ? (p->n + 127) / 128 : 0;
	p->smem = p->sf_off + (p->nsf ? 512 * (1 + p->sfb_chunks) : 0);
	p->dp = pick_datapath(p);
	p->dcols = d_columns(p);
	unsigned col = align_up(p->dcols, 8);
	if (f->asrc == MMAGEN_ASRC_TMEM) {
		p->a_col = col;
		col += 8;          /* 32 bytes of K per row */
	}
	if (f->sparse) {
		p->mcols = f->kind == MMAGEN_KIND_F16 || f->kind == MMAGEN_KIND_TF32 ? 1 : 2;
		p->meta_col = col;
		col += 8;
	}
	if (p->nsf) {
		p->sfa_col = col;
		p->sfb_col = col + 4;
		col += 4 + 4 * p->sfb_chunks;
	}
	p->tcols = pow2_cols(col);
	return MMAGEN_OK;
}

static void add_param(mmagen_tile_param *tp, unsigned *np, const char *name,
		      unsigned rows, unsigned cols, unsigned bits, unsigned type, int out)
{
	mmagen_tile_param *q = &tp[(*np)++];
	q->name = name;
	q->rows = rows;
	q->cols = cols;
	q->elem_bits = bits;
	q->type = (uint8_t)type;
	q->output = (uint8_t)out;
	size_t bytes = ((size_t)rows * cols * bits + 7) / 8;
	q->bytes = (bytes + 7) / 8 * 8;
}

/* All parameters of the kernel, in kernel order; returns the count. */
static unsigned plan_params(const struct plan *p, mmagen_tile_param *tp)
{
	const mmagen_form *f = p->f;
	unsigned np = 0;
	add_param(tp, &np, "A", p->m, p->ka, p->pw_a, f->a, 0);
	add_param(tp, &np, "B", p->k, p->n, p->pw_b, f->b, 0);
	add_param(tp, &np, "C", p->m, p->n, mmagen_type_bits((mmagen_type)f->c), f->c, 0);
	add_param(tp, &np, "D", p->m, p->n, mmagen_type_bits((mmagen_type)f->d), f->d, 1);
	if (f->sparse)
		add_param(tp, &np, "E", p->m, p->mcols, 32, 0, 0);
	if (p->nsf) {
		add_param(tp, &np, "SA", p->m, p->nsf, 8, f->stype, 0);
		add_param(tp, &np, "SB", p->nsf, p->n, 8, f->stype, 0);
	}
	return np;
}

static mmagen_status tile_info_tcgen05(const mmagen_form *f, const mmagen_tile_opts *o,
				mmagen_tile_info *ti)
{
	struct plan p;
	mmagen_tile_param tp[8];
	mmagen_status s;
	if ((s = make_plan(f, o, &p)))
		return s;
	unsigned np = plan_params(&p, tp);
	if (np > ARRAY_SIZE(ti->params))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"this tcgen05 tile kernel takes %u parameters (A B C D E SA SB), but "
			"mmagen_tile_info holds %u", np, (unsigned)ARRAY_SIZE(ti->params));
	memset(ti, 0, sizeof *ti);
	ti->kernel = "mmagen_tile";
	ti->block[0] = 128;
	ti->block[1] = ti->block[2] = 1;
	ti->grid[0] = p.cg;
	ti->grid[1] = ti->grid[2] = 1;
	ti->smem = p.smem + 1024;      /* slack to align the base to 1024 */
	ti->m = p.m;
	ti->n = p.n;
	ti->k = p.k;
	ti->nparams = np;
	memcpy(ti->params, tp, np * sizeof tp[0]);
	return MMAGEN_OK;
}

/* ---- PTX pieces ---- */

/* %e = element at bit offset %bit of global %g<x>, `pw` bits wide. */
static void emit_elem(struct buf *b, unsigned pw, const char *g)
{
	emitf(b, "\tshr.u32 %t0, %bit, 3;\n\tcvt.u64.u32 %p64, %t0;\n"
		 "\tadd.u64 %p64, %$s, %p64;\n", g);
	if (pw == 32) {
		buf_puts(b, "\tld.global.b32 %e, [%p64];\n");
		return;
	}
	emitf(b, "\tld.global.u$u %h0, [%p64];\n\tcvt.u32.u16 %e, %h0;\n", pw >= 16 ? 16 : 8);
	if (pw >= 8)
		return;
	buf_puts(b, "\tand.b32 %t1, %bit, 7;\n");
	if (pw == 6)   /* 6 bits at an odd 2-bit offset cross into the next byte */
		buf_puts(b, "\tsetp.gt.u32 %pp, %t1, 2;\n\tmov.u32 %t2, 0;\n"
			     "\t@%pp ld.global.u8 %h1, [%p64+1];\n\t@%pp cvt.u32.u16 %t2, %h1;\n"
			     "\tshl.b32 %t2, %t2, 8;\n\tor.b32 %e, %e, %t2;\n");
	emitf(b, "\tshr.b32 %e, %e, %t1;\n\tand.b32 %e, %e, $u;\n", (1u << pw) - 1);
}

/* %w<bit/32> |= %e placed at constant bit `bit` (it may straddle two). */
static void emit_place(struct buf *b, unsigned bit, unsigned pw, const char *w)
{
	unsigned r = bit / 32, s = bit % 32;
	if (s)
		emitf(b, "\tshl.b32 %t3, %e, $u;\n\tor.b32 %$s$u, %$s$u, %t3;\n", s, w, r, w, r);
	else
		emitf(b, "\tor.b32 %$s$u, %$s$u, %e;\n", w, r, w, r);
	if (s + pw > 32)
		emitf(b, "\tshr.b32 %t3, %e, $u;\n\tor.b32 %$s$u, %$s$u, %t3;\n", 32 - s,
		      w, r + 1, w, r + 1);
}

/* %off = shared address of chunk (%r, %c) of a region at %sb + base. */
static void emit_chunk_addr(struct buf *b, const struct plan *p, unsigned kc, unsigned base)
{
	if (p->swz) {
		/* Swizzle<B,4,3>: address bits 7.. select the XOR of the 16-byte
		 * chunk index, so the region must sit at a 1024-byte boundary. */
		emitf(b, "\tshr.u32 %t0, %r, 3;\n\tmul.lo.u32 %off, %t0, $u;\n"
			 "\tand.b32 %t0, %r, 7;\n\tmad.lo.u32 %off, %t0, $u, %off;\n"
			 "\tmad.lo.u32 %off, %c, 16, %off;\n\tshr.u32 %t0, %off, 7;\n"
			 "\tand.b32 %t0, %t0, $u;\n\tshl.b32 %t0, %t0, 4;\n"
			 "\txor.b32 %off, %off, %t0;\n", 8 * p->swz, p->swz, p->swz / 16 - 1);
	} else {
		/* core matrices of 8 rows x 16 bytes: K-adjacent ones 128 bytes
		 * apart (LBO), 8-row groups kc*128 apart (SBO) */
		emitf(b, "\tshr.u32 %t0, %r, 3;\n\tmul.lo.u32 %off, %t0, $u;\n"
			 "\tmad.lo.u32 %off, %c, 128, %off;\n\tand.b32 %t0, %r, 7;\n"
			 "\tmad.lo.u32 %off, %t0, 16, %off;\n", 128 * kc);
	}
	emitf(b, "\tadd.u32 %off, %off, %sb;\n\tadd.u32 %off, %off, $u;\n", base);
}

/* Fill one operand's shared-memory region.  Chunk (r, c) holds elements
 * c*epc .. c*epc+epc-1 along K of row r (an M row of A, an N column of B),
 * at bit offset g*rs + k*ks in global memory, g = r + rank*rows. */
static void emit_fill(struct buf *b, const struct plan *p, int is_b)
{
	unsigned rows = is_b ? p->rows_b : p->rows_a, kc = is_b ? p->kc_b : p->kc_a;
	unsigned pw = is_b ? p->pw_b : p->pw_a;
	unsigned rs = is_b ? pw : p->ka * pw, ks = is_b ? p->n * pw : pw;
	const char *g = is_b ? "gb" : "ga", *L = is_b ? "B" : "A";
	emitf(b, "\t// $s: global row-major -> shared K-major\n\tmov.u32 %i, %tx;\nL_fill$s:\n"
		 "\tsetp.ge.u32 %pc, %i, $u;\n\t@%pc bra L_fill$s_end;\n"
		 "\tdiv.u32 %r, %i, $u;\n\trem.u32 %c, %i, $u;\n",
	      L, L, rows * kc, L, kc, kc);
	emit_chunk_addr(b, p, kc, is_b ? p->b_off : p->a_off);
	emitf(b, "\tmad.lo.u32 %t4, %rank, $u, %r;\n", rows);
	if (!is_b && !p->sub_byte) {
		/* K-major in both: 16 bytes of the row straight */
		emitf(b, "\tmul.lo.u32 %t0, %t4, $u;\n\tmad.lo.u32 %t0, %c, 16, %t0;\n"
			 "\tcvt.u64.u32 %p64, %t0;\n\tadd.u64 %p64, %ga, %p64;\n", rs / 8);
		for (unsigned w = 0; w < 4; w++)
			emitf(b, "\tld.global.b32 %w$u, [%p64+$u];\n", w, 4 * w);
	} else {
		emitf(b, "\tmul.lo.u32 %t5, %t4, $u;\n\tmad.lo.u32 %t5, %c, $u, %t5;\n",
		      rs, p->epc * ks);
		for (unsigned w = 0; w < 4; w++)
			emitf(b, "\tmov.u32 %w$u, 0;\n", w);
		for (unsigned i = 0; i < p->epc; i++) {
			emitf(b, "\tadd.u32 %bit, %t5, $u;\n", i * ks);
			emit_elem(b, pw, g);
			emit_place(b, i * pw, pw, "w");
		}
	}
	emitf(b, "\tst.shared.v4.b32 [%off], {%w0, %w1, %w2, %w3};\n"
		 "\tadd.u32 %i, %i, 128;\n\tbra L_fill$s;\nL_fill$s_end:\n", L, L);
}

/* Scale factors into 512-byte chunks: byte (m%32)*16 + (m/32)*4 + v holds
 * SF v of row m (chunk 0: SA, this CTA's rows) or of column
 * 128*(q-1) + m (chunk q >= 1: SB). */
static void emit_sf_fill(struct buf *b, const struct plan *p)
{
	emitf(b, "\t// SA, SB: shared chunks for tcgen05.cp 32x128b\n\tmov.u32 %i, %tx;\n"
		 "L_sf:\n\tsetp.ge.u32 %pc, %i, $u;\n\t@%pc bra L_sf_end;\n"
		 "\tshr.u32 %t0, %i, 9;\n\tand.b32 %t1, %i, 511;\n"
		 "\tshr.u32 %t2, %t1, 4;\n\tshr.u32 %t3, %t1, 2;\n\tand.b32 %t3, %t3, 3;\n"
		 "\tmad.lo.u32 %t2, %t3, 32, %t2;\n\tand.b32 %t3, %t1, 3;\n"
		 "\tmov.u16 %h0, 0;\n\tsetp.lt.u32 %pp, %t3, $u;\n",
	      512 * (1 + p->sfb_chunks), p->nsf);
	/* SA: row t2 of this CTA */
	emitf(b, "\tsetp.eq.and.u32 %pv2, %t0, 0, %pp;\n\tsetp.lt.and.u32 %pv2, %t2, $u, %pv2;\n"
		 "\tmad.lo.u32 %t4, %rank, $u, %t2;\n\tmad.lo.u32 %t4, %t4, $u, %t3;\n"
		 "\tcvt.u64.u32 %p64, %t4;\n\tadd.u64 %p64, %gsa, %p64;\n"
		 "\t@%pv2 ld.global.u8 %h0, [%p64];\n", p->rows_a, p->rows_a, p->nsf);
	/* SB: column 128*(t0-1) + t2 */
	emitf(b, "\tsetp.ne.and.u32 %pv2, %t0, 0, %pp;\n\tsub.u32 %t4, %t0, 1;\n"
		 "\tmad.lo.u32 %t4, %t4, 128, %t2;\n\tsetp.lt.and.u32 %pv2, %t4, $u, %pv2;\n"
		 "\tmad.lo.u32 %t4, %t3, $u, %t4;\n\tcvt.u64.u32 %p64, %t4;\n"
		 "\tadd.u64 %p64, %gsb, %p64;\n\t@%pv2 ld.global.u8 %h0, [%p64];\n",
	      p->n, p->n);
	emitf(b, "\tadd.u32 %t4, %sb, $u;\n\tadd.u32 %t4, %t4, %i;\n\tst.shared.u8 [%t4], %h0;\n"
		 "\tadd.u32 %i, %i, 128;\n\tbra L_sf;\nL_sf_end:\n", p->sf_off);
}

/* This thread's TMEM lane L = %tx: the row it holds (%row, global %grow),
 * the first D column it holds (%jb), and whether it holds one (%pv). */
static void emit_lane_map(struct buf *b, const struct plan *p)
{
	buf_puts(b, "\t// the row and first column of D in this thread's TMEM lane\n"
		    "\tsetp.eq.u32 %pv, 0, 0;\n\tmov.u32 %jb, 0;\n");
	switch (p->dp) {
	case DP_B:
	case DP_E:   /* lanes 64-127 hold columns N/2.. of rows 0-63 */
		emitf(b, "\tand.b32 %row, %tx, 63;\n\tshr.u32 %t0, %tx, 6;\n"
			 "\tmul.lo.u32 %jb, %t0, $u;\n", p->dcols);
		break;
	case DP_G:   /* each 32-lane partition holds N/4 columns of rows 0-31 */
		emitf(b, "\tand.b32 %row, %tx, 31;\n\tshr.u32 %t0, %tx, 5;\n"
			 "\tmul.lo.u32 %jb, %t0, $u;\n", p->dcols);
		break;
	case DP_C:
	case DP_F:   /* half data path: lanes 0-15 of each partition */
		buf_puts(b, "\tand.b32 %t0, %tx, 31;\n\tsetp.lt.u32 %pv, %t0, 16;\n"
			    "\tshr.u32 %t1, %tx, 5;\n\tand.b32 %t0, %tx, 15;\n"
			    "\tmad.lo.u32 %row, %t1, 16, %t0;\n");
		break;
	default:
		buf_puts(b, "\tmov.u32 %row, %tx;\n");
		break;
	}
	emitf(b, "\tmad.lo.u32 %grow, %rank, $u, %row;\n", p->rows_a);
}

/* D's TMEM columns, 8 at a time: C in (st = 1) or D out (st = 0). */
static void emit_cd(struct buf *b, const struct plan *p, int st)
{
	unsigned bits = mmagen_type_bits((mmagen_type)(st ? p->f->c : p->f->d));
	const char *L = st ? "C" : "D", *g = st ? "gc" : "gd";
	emitf(b, "\t// $s $s TMEM\n\tmov.u32 %c, 0;\nL_$s:\n"
		 "\tmad.lo.u32 %t0, %grow, $u, %jb;\n\tadd.u32 %t0, %t0, %c;\n"
		 "\tmul.wide.u32 %p64, %t0, $u;\n\tadd.u64 %p64, %$s, %p64;\n"
		 "\tadd.u32 %ta, %tl, %c;\n",
	      L, st ? "into" : "out of", L, p->n, bits / 8, g);
	if (!st)
		buf_puts(b, "\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%ta];\n"
			    "\ttcgen05.wait::ld.sync.aligned;\n");
	for (unsigned r = 0; r < 8; r++) {
		unsigned o = r * bits / 8;
		/* 16-bit C/D: one element in the low half of a TMEM word */
		if (st && bits == 16)
			emitf(b, "\tld.global.u16 %h0, [%p64+$u];\n\tcvt.u32.u16 %v$u, %h0;\n", o, r);
		else if (st)
			emitf(b, "\tld.global.b32 %v$u, [%p64+$u];\n", r, o);
		else if (bits == 16)
			emitf(b, "\tcvt.u16.u32 %h0, %v$u;\n\t@%pv st.global.b16 [%p64+$u], %h0;\n", r, o);
		else
			emitf(b, "\t@%pv st.global.b32 [%p64+$u], %v$u;\n", o, r);
	}
	if (st)
		tc_emit_st(b, 8, "%v", "%ta");
	emitf(b, "\tadd.u32 %c, %c, 8;\n\tsetp.lt.u32 %pc, %c, $u;\n\t@%pc bra L_$s;\n",
	      p->dcols, L);
}

/* A (A from TMEM): row %grow, 32 bytes in 8 columns. */
static void emit_a_tmem(struct buf *b, const struct plan *p)
{
	buf_puts(b, "\t// A into TMEM: this lane's row\n");
	if (!p->sub_byte) {
		emitf(b, "\tmul.wide.u32 %p64, %grow, $u;\n\tadd.u64 %p64, %ga, %p64;\n",
		      p->ka * p->pw_a / 8);
		for (unsigned w = 0; w < 8; w++)
			emitf(b, "\tld.global.b32 %v$u, [%p64+$u];\n", w, 4 * w);
	} else {
		/* FP4/FP6: one element per byte (e2m1 in bits 2..5) */
		emitf(b, "\tmul.lo.u32 %t5, %grow, $u;\n", p->ka * p->pw_a);
		for (unsigned w = 0; w < 8; w++)
			emitf(b, "\tmov.u32 %v$u, 0;\n", w);
		for (unsigned k = 0; k < p->ka; k++) {
			emitf(b, "\tadd.u32 %bit, %t5, $u;\n", k * p->pw_a);
			emit_elem(b, p->pw_a, "ga");
			if (p->f->a == MMAGEN_E2M1)
				buf_puts(b, "\tshl.b32 %e, %e, 2;\n");
			emit_place(b, 8 * k, 8, "v");
		}
	}
	emitf(b, "\tadd.u32 %ta, %tl, $u;\n", p->a_col);
	tc_emit_st(b, 8, "%v", "%ta");
}

static void emit_meta_tmem(struct buf *b, const struct plan *p)
{
	emitf(b, "\t// E into TMEM: this lane's row of metadata\n"
		 "\tmul.wide.u32 %p64, %grow, $u;\n\tadd.u64 %p64, %ge, %p64;\n", 4 * p->mcols);
	for (unsigned w = 0; w < p->mcols; w++)
		emitf(b, "\tld.global.b32 %v$u, [%p64+$u];\n", w, 4 * w);
	emitf(b, "\tadd.u32 %ta, %tl, $u;\n", p->meta_col);
	tc_emit_st(b, p->mcols, "%v", "%ta");
}

/* %<reg> = shared-memory descriptor of the region at %sb + off. */
static void emit_desc(struct buf *b, const char *reg, unsigned off, uint32_t lbo,
		      uint32_t sbo, unsigned sw)
{
	mmagen_tc_sdesc d = { .lbo = lbo, .sbo = sbo, .swizzle = sw };
	uint64_t w = 0;
	mmagen_status s = mmagen_tc_sdesc_encode(&d, &w);   /* start 0: the constant part */
	assert(s == MMAGEN_OK);   /* the plan's own offsets */
	(void)s;
	emitf(b, "\tadd.u32 %t0, %sb, $u;\n\tshr.u32 %t0, %t0, 4;\n\tand.b32 %t0, %t0, 16383;\n"
		 "\tor.b32 %t0, %t0, $x;\n\tmov.u32 %t1, $x;\n\tmov.b64 $s, {%t0, %t1};\n",
	      off, (unsigned)w, (unsigned)(w >> 32), reg);
}

static void emit_operand_desc(struct buf *b, const struct plan *p, const char *reg,
			      unsigned off, unsigned kc)
{
	if (p->swz)   /* K-major swizzled: LBO unused ("assumed 1") */
		emit_desc(b, reg, off, 16, 8 * p->swz, p->swz);
	else
		emit_desc(b, reg, off, 128, 128 * kc, MMAGEN_SWIZZLE_NONE);
}

/* The elected thread: descriptors, scale factors, the mma, the commit. */
static void emit_issue(struct buf *b, const struct plan *p, const struct instr *in)
{
	const mmagen_form *f = p->f;
	buf_puts(b, "\t@!%pl bra L_issued;\n");
	if (f->asrc == MMAGEN_ASRC_TMEM)
		emitf(b, "\tadd.u32 %rat, %taddr, $u;\n", p->a_col);
	else
		emit_operand_desc(b, p, "%rda", p->a_off, p->kc_a);
	emit_operand_desc(b, p, "%rdb", p->b_off, p->kc_b);
	buf_puts(b, "\tmov.u32 %rdt, %taddr;\n");
	emitf(b, "\tmov.b32 %rid, $x;\n\tsetp.ne.u32 %ren, $u, 0;\n", p->idesc, p->scale_d ? 1 : 0);
	if (f->sparse)
		emitf(b, "\tadd.u32 %rmt, %taddr, $u;\n", p->meta_col);
	if (p->nsf) {
		/* 32 rows x 16 bytes, contiguous: no swizzle, SBO 128 */
		emitf(b, "\tadd.u32 %rsat, %taddr, $u;\n\tadd.u32 %rsbt, %taddr, $u;\n",
		      p->sfa_col, p->sfb_col);
		for (unsigned q = 0; q <= p->sfb_chunks; q++) {
			emit_desc(b, "%sfd", p->sf_off + 512 * q, 128, 128, MMAGEN_SWIZZLE_NONE);
			emitf(b, "\tadd.u32 %ta, %taddr, $u;\n", q ? p->sfb_col + 4 * (q - 1) : p->sfa_col);
			tc_emit_cp_32x128b(b, p->cg, "%ta", "%sfd");
		}
	}
	emit_instruction(b, f, in);
	if (p->cg == 2) {
		buf_puts(b, "\tmov.b16 %mask, 3;\n");
		tc_emit_commit(b, 2, "%mbar", "%mask");
	} else {
		tc_emit_commit(b, 1, "%mbar", NULL);
	}
	buf_puts(b, "L_issued:\n");
}

/* Every thread of the CTA (of both CTAs for cta_group::2) meets here. */
static void emit_sync(struct buf *b, const struct plan *p)
{
	tc_emit_fence_before(b);
	if (p->cg == 2)
		buf_puts(b, "\tbarrier.cluster.arrive.release.aligned;\n"
			    "\tbarrier.cluster.wait.acquire.aligned;\n");
	else
		buf_puts(b, "\tbar.sync 0;\n");
	tc_emit_fence_after(b);
}

static const char *const dp_names[] = { "A", "B", "C", "D", "E", "F", "G" };

/* Kernel parameter and register of each manifest entry. */
static const struct {
	const char *name, *param, *reg;
} pmap[] = {
	{ "A", "pa", "ga" }, { "B", "pb", "gb" }, { "C", "pc", "gc" }, { "D", "pd", "gd" },
	{ "E", "pe", "ge" }, { "SA", "psa", "gsa" }, { "SB", "psb", "gsb" },
};

static size_t pmap_of(const char *name)
{
	size_t i = 0;
	while (i + 1 < ARRAY_SIZE(pmap) && strcmp(pmap[i].name, name))
		i++;
	return i;
}

static void emit_head(struct buf *b, const struct plan *p, int t, const mmagen_tile_param *tp,
		      unsigned np)
{
	char op[256];
	emitf(b, "//\n// Generated by mmagen: one-tile kernel for\n//   $s\n"
		 "// M=$u N=$u K=$u, idesc $x, TMEM data-path layout $s, $u TMEM columns;\n"
		 "// 128 threads$s.  A and B K-major in shared memory, swizzle $s.\n"
		 "// Assembled with ptxas only: never run on an sm_100 GPU.\n//\n",
	      mmagen_form_opcode(p->f, op, sizeof op), p->m, p->n, p->k, p->idesc,
	      dp_names[p->dp], p->tcols, p->cg == 2 ? " per CTA, a cluster of 2 CTAs" : "",
	      p->swz == 128 ? "128B" : p->swz == 64 ? "64B" : p->swz == 32 ? "32B" : "none");
	emit_header(b, t, mmagen_form_min_ptx(p->f, t));
	buf_puts(b, "\n.extern .shared .align 1024 .b8 mmagen_smem[];\n\n"
		    ".visible .entry mmagen_tile(");
	for (unsigned i = 0; i < np; i++)
		emitf(b, "$s\n\t.param .u64 $s", i ? "," : "", pmap[pmap_of(tp[i].name)].param);
	buf_puts(b, ")\n\t.reqntid 128, 1, 1\n");
	if (p->cg == 2)
		buf_puts(b, "\t.explicitcluster\n\t.reqnctapercluster 2, 1, 1\n");
	buf_puts(b, "{\n\t.reg .b64 %ga, %gb, %gc, %gd, %ge, %gsa, %gsb, %p64, %sfd;\n"
		    "\t.reg .b32 %tx, %rank, %sb, %mbar, %slot, %taddr, %tl, %ta, %i, %r, %c;\n"
		    "\t.reg .b32 %off, %bit, %e, %row, %grow, %jb, %t<6>, %w<4>, %v<8>;\n"
		    "\t.reg .b16 %h<2>, %mask;\n"
		    "\t.reg .pred %pv, %pv2, %pl, %pt0, %pw0, %pp, %pc, %pwt;\n");
}

static void emit_params(struct buf *b, const mmagen_tile_param *tp, unsigned np)
{
	for (unsigned i = 0; i < np; i++) {
		size_t j = pmap_of(tp[i].name);
		emitf(b, "\tld.param.u64 %$s, [$s];\n\tcvta.to.global.u64 %$s, %$s;\n",
		      pmap[j].reg, pmap[j].param, pmap[j].reg, pmap[j].reg);
	}
}

static mmagen_status tile_emit_tcgen05(const mmagen_form *f, int t,
				const mmagen_tile_opts *o, struct buf *b)
{
	struct plan p;
	mmagen_tile_param tp[8];
	struct instr in;
	mmagen_status s;
	if ((s = make_plan(f, o, &p)))
		return s;
	unsigned np = plan_params(&p, tp);
	instr_of(f, &in);
	emit_head(b, &p, t, tp, np);
	emit_regs(b, &in);
	buf_puts(b, "\n");
	emit_params(b, tp, np);
	buf_puts(b, "\tmov.u32 %tx, %tid.x;\n");
	buf_puts(b, p.cg == 2 ? "\tmov.u32 %rank, %cluster_ctarank;\n" : "\tmov.u32 %rank, 0;\n");
	buf_puts(b, "\tsetp.eq.u32 %pt0, %tx, 0;\n\tsetp.eq.and.u32 %pl, %rank, 0, %pt0;\n"
		    "\tsetp.lt.u32 %pw0, %tx, 32;\n"
		    "\tmov.u32 %sb, mmagen_smem;\n\tadd.u32 %sb, %sb, 1023;\n\tand.b32 %sb, %sb, -1024;\n"
		    "\tmov.u32 %mbar, %sb;\n\tadd.u32 %slot, %sb, 8;\n");
	buf_puts(b, "\t// Tensor Memory: warp 0 of each CTA\n\t@!%pw0 bra L_alloced;\n");
	tc_emit_alloc(b, p.cg, "%slot", p.tcols);
	tc_emit_relinquish(b, p.cg);
	buf_puts(b, "L_alloced:\n\t@!%pt0 bra L_inited;\n");
	tc_emit_mbar_init(b, "%mbar", 1);
	buf_puts(b, "\tfence.mbarrier_init.release.cluster;\nL_inited:\n");
	emit_fill(b, &p, 0);
	emit_fill(b, &p, 1);
	if (p.nsf)
		emit_sf_fill(b, &p);
	/* generic-proxy stores, read by the tensor core's async proxy */
	buf_puts(b, "\tfence.proxy.async.shared::cta;\n");
	tc_emit_fence_before(b);
	buf_puts(b, "\tbar.sync 0;\n");
	tc_emit_fence_after(b);
	buf_puts(b, "\tld.shared.b32 %taddr, [%slot];\n"
		    "\tand.b32 %t0, %tx, 96;\n\tshl.b32 %t0, %t0, 16;\n\tadd.u32 %tl, %taddr, %t0;\n");
	emit_lane_map(b, &p);
	if (p.scale_d)
		emit_cd(b, &p, 1);
	if (f->asrc == MMAGEN_ASRC_TMEM)
		emit_a_tmem(b, &p);
	if (f->sparse)
		emit_meta_tmem(b, &p);
	tc_emit_wait_st(b);
	emit_sync(b, &p);
	emit_issue(b, &p, &in);
	tc_emit_mbar_wait(b, "%mbar", 0, "%pwt", "L_wait");
	tc_emit_fence_after(b);
	emit_cd(b, &p, 0);
	emit_sync(b, &p);
	buf_puts(b, "\t@!%pw0 bra L_done;\n");
	tc_emit_dealloc(b, p.cg, "%taddr", p.tcols);
	buf_puts(b, "L_done:\n\tret;\n}\n");
	return MMAGEN_OK;
}

static mmagen_status emit_adapter(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				  const mmagen_tile_info *ti, struct buf *out)
{
	(void)ti;
	return tile_emit_tcgen05(f, t, o, out);
}

const struct tile_gen tile_gen_tcgen05 = {
	.info = tile_info_tcgen05,
	.emit = emit_adapter,
	.meta_layout = "metadata words per row of A (Tensor Memory)",
};
