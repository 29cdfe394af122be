/* kernel_tcgen05.c - one-tile kernels for tcgen05.mma (sm_100a family),
 * from templates/tcgen05_tile.ptx.in.
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
 *   - E (sparse): A's metadata, M x W 32-bit words per row (W = 1 for
 *     kind::f16/tf32, 2 otherwise; bit format ISA Figure 260, the
 *     caller's), goes into W TMEM columns by the table mmagen_te that
 *     tc_meta_table (sparse.c) lays out: kind::f16/tf32 interleave rows
 *     and K halves over the lanes, the other kinds put row r in its
 *     lane; sparsity selector 0.
 *   - SA (M x V) and SB (V x N), V scale factors per row/column (ISA
 *     Table 56): SF of row m sits in lane m % 32 of every 32-lane
 *     partition, column m / 32, byte v (scale-factor id 0): the 32x128b
 *     .warpx4 chunk of CUTLASS's Sm1xx scale-factor atom.  Each CTA of a
 *     pair holds the SA rows of its own A half and all of SB. */
#include "kernel.h"
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
	unsigned sfb_cstep;            /* SB columns per 512-byte chunk */
	int sfb_pair;                  /* Layout B: one 64x128b copy of 2 chunks */
	uint32_t idesc;
	uint64_t desc_a, desc_b, desc_sf;  /* start address 0 */
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

/* The one place that calls the descriptor encoders: the instruction
 * descriptor, and every shared-memory descriptor the kernel builds with its
 * start address left 0 (the kernel adds the aligned base at run time). */
static mmagen_status encode_descriptors(const mmagen_form *f, const mmagen_tile_opts *o,
					struct plan *p)
{
	mmagen_tc_idesc id = { .m = p->m, .n = p->n, .neg_a = o->neg_a, .neg_b = o->neg_b };
	/* K-major swizzled: LBO unused ("assumed 1"); no swizzle: core
	 * matrices K-adjacent 128 bytes apart (LBO), 8-row groups kc*128
	 * apart (SBO).  Scale factors: 32 rows x 16 bytes, contiguous. */
	mmagen_tc_sdesc a = { .lbo = 16, .sbo = 8 * p->swz, .swizzle = p->swz }, b = a;
	mmagen_tc_sdesc sf = { .lbo = 128, .sbo = 128, .swizzle = MMAGEN_SWIZZLE_NONE };
	mmagen_status s;
	if (!p->swz) {
		a = (mmagen_tc_sdesc){ .lbo = 128, .sbo = 128 * p->kc_a };
		b = (mmagen_tc_sdesc){ .lbo = 128, .sbo = 128 * p->kc_b };
	}
	if ((s = mmagen_tc_idesc_encode(f, &id, &p->idesc)) ||
	    (f->asrc != MMAGEN_ASRC_TMEM && (s = mmagen_tc_sdesc_encode(&a, &p->desc_a))) ||
	    (s = mmagen_tc_sdesc_encode(&b, &p->desc_b)) ||
	    (p->nsf && (s = mmagen_tc_sdesc_encode(&sf, &p->desc_sf))))
		return s;
	return MMAGEN_OK;
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
	if (f->ashift)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"no tile kernel for tcgen05 .ashift: the tile's reference is a plain A*B and does not "
			"shift A's rows in Tensor Memory; 'emit instr' writes the instruction");
	if (o->major_a || o->major_b)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"tcgen05 tile kernels lay A and B out K-major; MN-major is an idesc bit "
			"(mmagen_tc_idesc_encode) but no kernel is generated for it (use --major-a k --major-b k)");
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
	p->dp = pick_datapath(p);
	/* Layout B (2x2): lanes 64-127 hold D's columns N/2.., so they need
	 * SB's columns N/2.. (CUTLASS ScaleFactorDuplicated2by2): chunk 1
	 * holds columns 0..N/2-1, chunk 2 columns N/2..N-1, and one
	 * 64x128b.warpx2::01_23 copy puts them in lanes 0-63 and 64-127. */
	p->sfb_pair = p->nsf && p->dp == DP_B;
	p->sfb_cstep = p->sfb_pair ? p->n / 2 : 128;
	p->sfb_chunks = p->nsf ? (p->n + p->sfb_cstep - 1) / p->sfb_cstep : 0;
	p->smem = p->sf_off + (p->nsf ? 512 * (1 + p->sfb_chunks) : 0);
	p->dcols = d_columns(p);
	unsigned col = align_up(p->dcols, 8);
	if (f->asrc == MMAGEN_ASRC_TMEM) {
		p->a_col = col;
		col += 8;          /* 32 bytes of K per row */
	}
	if (f->sparse) {
		uint32_t tab[TC_LANES * 4];
		if ((s = tc_meta_table(f, p->rows_a, tab)))
			return s;
		p->mcols = tc_meta_pieces(f) / 2;
		p->meta_col = col;
		col += 8;
	}
	if (p->nsf) {
		p->sfa_col = col;
		p->sfb_col = col + 4;
		col += 4 + (p->sfb_pair ? 4 : 4 * p->sfb_chunks);
	}
	p->tcols = pow2_cols(col);
	return encode_descriptors(f, o, p);
}

static mmagen_status tcgen05_info(const mmagen_form *f, const mmagen_tile_opts *o,
				  mmagen_tile_info *ti)
{
	struct plan p;
	mmagen_status s;
	if ((s = make_plan(f, o, &p)))
		return s;
	tile_info_init(ti, f, 128);
	ti->grid[0] = p.cg;
	ti->smem = p.smem + 1024;      /* slack to align the base to 1024 */
	ti->m = p.m;
	ti->n = p.n;
	/* at most 7 parameters: within mmagen_tile_info's */
	tile_add_param(ti, "A", p.m, p.ka, p.pw_a, f->a, 0);
	tile_add_param(ti, "B", p.k, p.n, p.pw_b, f->b, 0);
	tile_add_param(ti, "C", p.m, p.n, mmagen_type_bits((mmagen_type)f->c), f->c, 0);
	tile_add_param(ti, "D", p.m, p.n, mmagen_type_bits((mmagen_type)f->d), f->d, 1);
	if (f->sparse)
		tile_add_param(ti, "E", p.m, p.mcols, 32, 0, 0);
	if (p.nsf) {
		tile_add_param(ti, "SA", p.m, p.nsf, 8, f->stype, 0);
		tile_add_param(ti, "SB", p.nsf, p.n, 8, f->stype, 0);
	}
	return MMAGEN_OK;
}

/* ---- the kernel's pieces (slots of templates/tcgen05_tile.ptx.in) ---- */

/* Registers the pieces share. */
struct regs {
	const mmagen_tile_info *ti;
	const kreg *g;           /* global address of manifest parameter i */
	kreg tx, rank, sb;       /* thread, CTA rank in the pair, aligned smem base */
	kreg taddr, tl;          /* TMEM base; base of this warp's lane partition */
	kreg row, grow, jb, pv;  /* the lane map (emit_lane_map) */
};

/* The global address of parameter `name`. */
static kreg gptr(const struct regs *R, const char *name)
{
	return tile_param_reg(R->ti, R->g, name);
}

/* tcgen05.st.32x32b of the run v (v.n columns) at TMEM address ta. */
static void emit_tmem_st(struct kb *kb, kreg ta, kreg v)
{
	ke(kb, "\ttcgen05.st.sync.aligned.32x32b.x$u.b32 [$r], $v;\n", (unsigned)v.n, ta, v);
}

/* Shared address of chunk (r, c) of a region at sb + base. */
static kreg emit_chunk_addr(struct kb *kb, const struct plan *p, const struct regs *R,
			    kreg r, kreg c, unsigned kc, unsigned base)
{
	kreg off = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	if (p->swz) {
		/* Swizzle<B,4,3>: address bits 7.. select the XOR of the 16-byte
		 * chunk index, so the region must sit at a 1024-byte boundary. */
		ke(kb, "\tshr.u32 $r, $r, 3;\n\tmul.lo.u32 $r, $r, $u;\n"
		       "\tand.b32 $r, $r, 7;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
		       "\tmad.lo.u32 $r, $r, 16, $r;\n\tshr.u32 $r, $r, 7;\n"
		       "\tand.b32 $r, $r, $u;\n\tshl.b32 $r, $r, 4;\n\txor.b32 $r, $r, $r;\n",
		   t, r, off, t, 8 * p->swz, t, r, off, t, p->swz, off, off, c, off, t, off,
		   t, t, p->swz / 16 - 1, t, t, off, off, t);
	} else {
		/* core matrices of 8 rows x 16 bytes: K-adjacent ones 128 bytes
		 * apart (LBO), 8-row groups kc*128 apart (SBO) */
		ke(kb, "\tshr.u32 $r, $r, 3;\n\tmul.lo.u32 $r, $r, $u;\n"
		       "\tmad.lo.u32 $r, $r, 128, $r;\n\tand.b32 $r, $r, 7;\n"
		       "\tmad.lo.u32 $r, $r, 16, $r;\n",
		   t, r, off, t, 128 * kc, off, c, off, t, r, off, t, off);
	}
	ke(kb, "\tadd.u32 $r, $r, $r;\n\tadd.u32 $r, $r, $u;\n", off, off, R->sb, off, off, base);
	return off;
}

/* The 16-byte chunk `w` of row g (b32) at bit offset base of the tile at ga:
 * A's K-major rows straight, else element by element (epc elements, ks
 * bits apart, pw bits each). */
static void emit_chunk_load(struct kb *kb, const struct plan *p, kreg w, kreg ga,
			    kreg grow, kreg c, int straight, unsigned rs, unsigned ks,
			    unsigned pw)
{
	if (straight) {   /* K-major in both: 16 bytes of the row straight */
		kreg t = kb_reg(kb, K_B32), x = kb_reg(kb, K_B64);
		ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, 16, $r;\n"
		       "\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n",
		   t, grow, rs / 8, t, c, t, x, t, x, ga, x);
		for (unsigned i = 0; i < 4; i++)
			ke(kb, "\tld.global.b32 $r, [$r+$u];\n", kr_at(w, i), x, 4 * i);
		return;
	}
	kreg base = kb_reg(kb, K_B32), bit = kb_reg(kb, K_B32);
	ke(kb, "\tmul.lo.u32 $r, $r, $u;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
	   base, grow, rs, base, c, p->epc * ks, base);
	for (unsigned i = 0; i < 4; i++)
		ke(kb, "\tmov.u32 $r, 0;\n", kr_at(w, i));
	for (unsigned i = 0; i < p->epc; i++) {
		kreg e = kb_reg(kb, K_B32);
		ke(kb, "\tadd.u32 $r, $r, $u;\n", bit, base, i * ks);
		frag_load_packed(kb, e, ga, bit, pw);
		frag_place(kb, w, i * pw, pw, e);
	}
}

/* Fill one operand's shared-memory region.  Chunk (r, c) holds elements
 * c*epc .. c*epc+epc-1 along K of row r (an M row of A, an N column of B),
 * at bit offset g*rs + k*ks in global memory, g = r + rank*rows. */
static void emit_fill(struct kb *kb, const struct plan *p, const struct regs *R, int is_b)
{
	unsigned rows = is_b ? p->rows_b : p->rows_a, kc = is_b ? p->kc_b : p->kc_a;
	unsigned pw = is_b ? p->pw_b : p->pw_a;
	unsigned rs = is_b ? pw : p->ka * pw, ks = is_b ? p->n * pw : pw;
	kreg r = kb_reg(kb, K_B32), c = kb_reg(kb, K_B32), g = kb_reg(kb, K_B32);
	kreg w = kb_regs(kb, K_B32, 4);
	struct frag_loop lp;

	ke(kb, "\t// $s: global row-major -> shared K-major\n", is_b ? "B" : "A");
	frag_loop_begin(kb, &lp, R->tx, rows * kc, 128, 0);
	ke(kb, "\tdiv.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n", r, lp.i, kc, c, lp.i, kc);
	kreg off = emit_chunk_addr(kb, p, R, r, c, kc, is_b ? p->b_off : p->a_off);
	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n", g, R->rank, rows, r);
	emit_chunk_load(kb, p, w, gptr(R, is_b ? "B" : "A"), g, c, !is_b && !p->sub_byte,
			rs, ks, pw);
	ke(kb, "\tst.shared.v4.b32 [$r], $v;\n", off, w);
	frag_loop_end(kb, &lp);
}

/* Scale factors into 512-byte chunks: byte (m%32)*16 + (m/32)*4 + v holds
 * SF v of row m (chunk 0: SA, this CTA's rows) or of column
 * cstep*(q-1) + m, m < cstep (chunk q >= 1: SB). */
static void emit_sf_fill(struct kb *kb, const struct plan *p, const struct regs *R)
{
	kreg q = kb_reg(kb, K_B32), b = kb_reg(kb, K_B32), m = kb_reg(kb, K_B32);
	kreg v = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32), h = kb_reg(kb, K_B16);
	kreg pp = kb_reg(kb, K_PRED), pv = kb_reg(kb, K_PRED), x = kb_reg(kb, K_B64);
	struct frag_loop lp;

	ke(kb, "\t// SA, SB: shared chunks for tcgen05.cp 32x128b\n");
	frag_loop_begin(kb, &lp, R->tx, 512 * (1 + p->sfb_chunks), 128, 0);
	/* chunk q, byte b: row or column m = (b/16) + 32*((b/4)%4), SF v = b%4 */
	ke(kb, "\tshr.u32 $r, $r, 9;\n\tand.b32 $r, $r, 511;\n"
	       "\tshr.u32 $r, $r, 4;\n\tshr.u32 $r, $r, 2;\n\tand.b32 $r, $r, 3;\n"
	       "\tmad.lo.u32 $r, $r, 32, $r;\n\tand.b32 $r, $r, 3;\n"
	       "\tmov.u16 $r, 0;\n\tsetp.lt.u32 $r, $r, $u;\n",
	   q, lp.i, b, lp.i, m, b, v, b, v, v, m, v, m, v, b, h, pp, v, p->nsf);
	/* SA: row m of this CTA */
	ke(kb, "\tsetp.eq.and.u32 $r, $r, 0, $r;\n\tsetp.lt.and.u32 $r, $r, $u, $r;\n"
	       "\tmad.lo.u32 $r, $r, $u, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n"
	       "\tcvt.u64.u32 $r, $r;\n\tadd.u64 $r, $r, $r;\n\t@$r ld.global.u8 $r, [$r];\n",
	   pv, q, pp, pv, m, p->rows_a, pv, t, R->rank, p->rows_a, m, t, t, p->nsf, v,
	   x, t, x, gptr(R, "SA"), x, pv, h, x);
	/* SB: column cstep*(q-1) + m (m < cstep where a chunk holds less) */
	ke(kb, "\tsetp.ne.and.u32 $r, $r, 0, $r;\n", pv, q, pp);
	if (p->sfb_cstep < 128)
		ke(kb, "\tsetp.lt.and.u32 $r, $r, $u, $r;\n", pv, m, p->sfb_cstep, pv);
	ke(kb, "\tsub.u32 $r, $r, 1;\n"
	       "\tmad.lo.u32 $r, $r, $u, $r;\n\tsetp.lt.and.u32 $r, $r, $u, $r;\n"
	       "\tmad.lo.u32 $r, $r, $u, $r;\n\tcvt.u64.u32 $r, $r;\n"
	       "\tadd.u64 $r, $r, $r;\n\t@$r ld.global.u8 $r, [$r];\n",
	   t, q, t, t, p->sfb_cstep, m, pv, t, p->n, pv, t, v, p->n, t, x, t, x, gptr(R, "SB"), x,
	   pv, h, x);
	ke(kb, "\tadd.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n\tst.shared.u8 [$r], $r;\n",
	   t, R->sb, p->sf_off, t, t, lp.i, t, h);
	frag_loop_end(kb, &lp);
}

/* This thread's TMEM lane L = tx: the row it holds (row, global grow), the
 * first D column it holds (jb), and whether it holds one (pv). */
static void emit_lane_map(struct kb *kb, const struct plan *p, struct regs *R)
{
	kreg t = kb_reg(kb, K_B32), u = kb_reg(kb, K_B32);
	R->row = kb_reg(kb, K_B32);
	R->grow = kb_reg(kb, K_B32);
	R->jb = kb_reg(kb, K_B32);
	R->pv = kb_reg(kb, K_PRED);
	ke(kb, "\t// the row and first column of D in this thread's TMEM lane\n"
	       "\tsetp.eq.u32 $r, 0, 0;\n\tmov.u32 $r, 0;\n", R->pv, R->jb);
	switch (p->dp) {
	case DP_B:
	case DP_E:   /* lanes 64-127 hold columns N/2.. of rows 0-63 */
	case DP_G:   /* each 32-lane partition holds N/4 columns of rows 0-31 */
		ke(kb, "\tand.b32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n\tmul.lo.u32 $r, $r, $u;\n",
		   R->row, R->tx, p->dp == DP_G ? 31u : 63u, t, R->tx, p->dp == DP_G ? 5u : 6u,
		   R->jb, t, p->dcols);
		break;
	case DP_C:
	case DP_F:   /* half data path: lanes 0-15 of each partition */
		ke(kb, "\tand.b32 $r, $r, 31;\n\tsetp.lt.u32 $r, $r, 16;\n"
		       "\tshr.u32 $r, $r, 5;\n\tand.b32 $r, $r, 15;\n\tmad.lo.u32 $r, $r, 16, $r;\n",
		   t, R->tx, R->pv, t, u, R->tx, t, R->tx, R->row, u, t);
		break;
	default:
		ke(kb, "\tmov.u32 $r, $r;\n", R->row, R->tx);
		break;
	}
	ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n", R->grow, R->rank, p->rows_a, R->row);
}

/* One element of C into v (st) or of D out of v, at byte o of x. */
static void emit_cd_elem(struct kb *kb, const struct regs *R, int st, unsigned bits, kreg x,
			 unsigned o, kreg v)
{
	kreg h = kb_reg(kb, K_B16);
	/* 16-bit C/D: one element in the low half of a TMEM word */
	if (st && bits == 16)
		ke(kb, "\tld.global.u16 $r, [$r+$u];\n\tcvt.u32.u16 $r, $r;\n", h, x, o, v, h);
	else if (st)
		ke(kb, "\tld.global.b32 $r, [$r+$u];\n", v, x, o);
	else if (bits == 16)
		ke(kb, "\tcvt.u16.u32 $r, $r;\n\t@$r st.global.b16 [$r+$u], $r;\n", h, v, R->pv,
		   x, o, h);
	else
		ke(kb, "\t@$r st.global.b32 [$r+$u], $r;\n", R->pv, x, o, v);
}

/* D's TMEM columns, 8 at a time: C in (st = 1) or D out (st = 0). */
static void emit_cd(struct kb *kb, const struct plan *p, const struct regs *R, int st)
{
	unsigned bits = mmagen_type_bits((mmagen_type)(st ? p->f->c : p->f->d));
	kreg c = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32), ta = kb_reg(kb, K_B32);
	kreg x = kb_reg(kb, K_B64), pc = kb_reg(kb, K_PRED), top = kb_label(kb);
	kreg v = kb_regs(kb, K_B32, 8);

	ke(kb, "\t// $s $s TMEM\n\tmov.u32 $r, 0;\n$r:\n"
	       "\tmad.lo.u32 $r, $r, $u, $r;\n\tadd.u32 $r, $r, $r;\n"
	       "\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n\tadd.u32 $r, $r, $r;\n",
	   st ? "C" : "D", st ? "into" : "out of", c, top, t, R->grow, p->n, R->jb, t, t, c,
	   x, t, bits / 8, x, gptr(R, st ? "C" : "D"), x, ta, R->tl, c);
	if (!st)
		ke(kb, "\ttcgen05.ld.sync.aligned.32x32b.x8.b32 $v, [$r];\n"
		       "\ttcgen05.wait::ld.sync.aligned;\n", v, ta);
	for (unsigned r = 0; r < 8; r++)
		emit_cd_elem(kb, R, st, bits, x, r * bits / 8, kr_at(v, r));
	if (st)
		emit_tmem_st(kb, ta, v);
	ke(kb, "\tadd.u32 $r, $r, 8;\n\tsetp.lt.u32 $r, $r, $u;\n\t@$r bra $r;\n",
	   c, c, pc, c, p->dcols, pc, top);
}

/* A (A from TMEM): row grow, 32 bytes in 8 columns. */
static void emit_a_tmem(struct kb *kb, const struct plan *p, const struct regs *R)
{
	kreg v = kb_regs(kb, K_B32, 8), ta = kb_reg(kb, K_B32), ga = gptr(R, "A");

	ke(kb, "\t// A into TMEM: this lane's row\n");
	if (!p->sub_byte) {
		kreg x = kb_reg(kb, K_B64);
		ke(kb, "\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
		   x, R->grow, p->ka * p->pw_a / 8, x, ga, x);
		for (unsigned w = 0; w < 8; w++)
			ke(kb, "\tld.global.b32 $r, [$r+$u];\n", kr_at(v, w), x, 4 * w);
	} else {
		/* FP4/FP6: one element per byte (e2m1 in bits 2..5) */
		kreg base = kb_reg(kb, K_B32), bit = kb_reg(kb, K_B32);
		ke(kb, "\tmul.lo.u32 $r, $r, $u;\n", base, R->grow, p->ka * p->pw_a);
		for (unsigned w = 0; w < 8; w++)
			ke(kb, "\tmov.u32 $r, 0;\n", kr_at(v, w));
		for (unsigned k = 0; k < p->ka; k++) {
			kreg e = kb_reg(kb, K_B32);
			ke(kb, "\tadd.u32 $r, $r, $u;\n", bit, base, k * p->pw_a);
			frag_load_packed(kb, e, ga, bit, p->pw_a);
			if (p->f->a == MMAGEN_E2M1)
				ke(kb, "\tshl.b32 $r, $r, 2;\n", e, e);
			frag_place(kb, v, 8 * k, 8, e);
		}
	}
	ke(kb, "\tadd.u32 $r, $r, $u;\n", ta, R->tl, p->a_col);
	emit_tmem_st(kb, ta, v);
}

/* The metadata table (tc_meta_table): entry [lane][slot] names the 16-bit
 * piece of E (this CTA's rows) that lands in that slot of the lane's
 * metadata columns. */
static void emit_meta_table(struct kb *kb, const struct plan *p)
{
	uint32_t tab[TC_LANES * 4];
	mmagen_status s = tc_meta_table(p->f, p->rows_a, tab);
	assert(!s);   /* make_plan checked it */
	(void)s;
	frag_table_words(kb, "mmagen_te", tab, TC_LANES * 2 * p->mcols);
}

static void emit_meta_tmem(struct kb *kb, const struct plan *p, const struct regs *R)
{
	kreg v = kb_regs(kb, K_B32, p->mcols), ta = kb_reg(kb, K_B32), x = kb_reg(kb, K_B64);
	struct frag_io io = { .tab = "mmagen_te", .regs = p->mcols, .elems = 2, .bits = 16,
			      .g = x, .lane = R->tx };
	ke(kb, "\t// E into TMEM: this lane's metadata pieces (table mmagen_te)\n"
	       "\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n",
	   x, R->rank, p->rows_a * 4 * p->mcols, x, gptr(R, "E"), x);
	frag_load_holes(kb, &io, v);
	ke(kb, "\tadd.u32 $r, $r, $u;\n", ta, R->tl, p->meta_col);
	emit_tmem_st(kb, ta, v);
}

/* dst (b64) = descriptor word w (start address 0) with the start address
 * sb + off put in (bits 0-13, in 16-byte units). */
static void emit_desc(struct kb *kb, kreg dst, const struct regs *R, unsigned off, uint64_t w)
{
	kreg lo = kb_reg(kb, K_B32), hi = kb_reg(kb, K_B32);
	ke(kb, "\tadd.u32 $r, $r, $u;\n\tshr.u32 $r, $r, 4;\n\tand.b32 $r, $r, 16383;\n"
	       "\tor.b32 $r, $r, $x;\n\tmov.u32 $r, $x;\n\tmov.b64 $r, {$r, $r};\n",
	   lo, R->sb, off, lo, lo, lo, lo, lo, lo, (unsigned)w, hi, (unsigned)(w >> 32),
	   dst, lo, hi);
}

/* The elected thread: descriptors, scale factors into TMEM, the mma. */
static void emit_issue(struct kb *kb, const struct plan *p, const struct regs *R,
		       struct instr *in)
{
	const mmagen_form *f = p->f;
	if (f->asrc == MMAGEN_ASRC_TMEM)
		ke(kb, "\tadd.u32 $r, $r, $u;\n", tile_find_op(in, "at")->reg, R->taddr, p->a_col);
	else
		emit_desc(kb, tile_find_op(in, "da")->reg, R, p->a_off, p->desc_a);
	emit_desc(kb, tile_find_op(in, "db")->reg, R, p->b_off, p->desc_b);
	ke(kb, "\tmov.u32 $r, $r;\n\tmov.b32 $r, $x;\n\tsetp.ne.u32 $r, $u, 0;\n",
	   tile_find_op(in, "dt")->reg, R->taddr, tile_find_op(in, "id")->reg, p->idesc,
	   tile_find_op(in, "en")->reg, p->scale_d ? 1u : 0u);
	if (f->sparse)
		ke(kb, "\tadd.u32 $r, $r, $u;\n", tile_find_op(in, "mt")->reg, R->taddr,
		   p->meta_col);
	if (p->nsf) {
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $u;\n",
		   tile_find_op(in, "sat")->reg, R->taddr, p->sfa_col,
		   tile_find_op(in, "sbt")->reg, R->taddr, p->sfb_col);
		/* 32x128b.warpx4: 32 rows of 16 bytes into every lane group;
		 * 64x128b.warpx2::01_23: rows 0-31 into lanes 0-63, rows 32-63
		 * into lanes 64-127 (CUTLASS SM100_UTCCP_2x64dp128bitlw0123) */
		for (unsigned q = 0; q <= p->sfb_chunks; q++) {
			kreg d = kb_reg(kb, K_B64), ta = kb_reg(kb, K_B32);
			int pair = q && p->sfb_pair;
			if (pair && q > 1)
				break;
			emit_desc(kb, d, R, p->sf_off + 512 * q, p->desc_sf);
			ke(kb, "\tadd.u32 $r, $r, $u;\n\ttcgen05.cp.cta_group::$u.$s [$r], $r;\n",
			   ta, R->taddr, q ? p->sfb_col + 4 * (q - 1) : p->sfa_col, p->cg,
			   pair ? "64x128b.warpx2::01_23" : "32x128b.warpx4", ta, d);
		}
	}
	emit_instruction(kb_buf(kb), f, in);
}

static const char *const dp_names[] = { "A", "B", "C", "D", "E", "F", "G" };

/* The header comment's and the entry's facts. */
static void set_head(struct kb *kb, const struct plan *p, int t)
{
	char op[256];
	kb_set(kb, "opcode", "$s", mmagen_form_opcode(p->f, op, sizeof op));
	kb_set(kb, "m", "$u", p->m);
	kb_set(kb, "n", "$u", p->n);
	kb_set(kb, "k", "$u", p->k);
	kb_set(kb, "idesc", "$x", p->idesc);
	kb_set(kb, "layout", "$s", dp_names[p->dp]);
	kb_set(kb, "tcols", "$u", p->tcols);
	kb_set(kb, "cg", "$u", p->cg);
	kb_set(kb, "swizzle", "$s", p->swz == 128 ? "128B" : p->swz == 64 ? "64B" :
				    p->swz == 32 ? "32B" : "none");
	kb_flag(kb, "pair", p->cg == 2);
	kb_at(kb, "header");
	emit_header(kb_buf(kb), t, mmagen_form_min_ptx(p->f, t));
}

/* The registers the template names. */
static void template_regs(struct kb *kb, const struct plan *p, struct regs *R)
{
	R->tx = kb_slot_reg(kb, "tx", K_B32);
	R->rank = kb_slot_reg(kb, "rank", K_B32);
	R->sb = kb_slot_reg(kb, "sb", K_B32);
	R->taddr = kb_slot_reg(kb, "taddr", K_B32);
	R->tl = kb_slot_reg(kb, "tl", K_B32);
	const char *const pred[] = { "pt0", "pl", "pw0", "pwt" };
	for (size_t i = 0; i < ARRAY_SIZE(pred); i++)
		kb_slot_reg(kb, pred[i], K_PRED);
	kb_slot_reg(kb, "mbar", K_B32);
	kb_slot_reg(kb, "slot", K_B32);
	kb_slot_reg(kb, "part", K_B32);
	if (p->cg == 2)
		kb_slot_reg(kb, "mask", K_B16);
}

static mmagen_status tcgen05_emit(const mmagen_form *f, int t, const mmagen_tile_opts *o,
				  const mmagen_tile_info *ti, struct buf *out)
{
	struct plan p;
	struct instr in;
	struct kb kb;
	kreg g[ARRAY_SIZE(ti->params)];
	struct regs R = { .ti = ti, .g = g };
	mmagen_status s;

	if ((s = make_plan(f, o, &p)))
		return s;
	kb_init(&kb, "tcgen05_tile");
	instr_of(f, &in);
	kb_bind(&kb, &in);
	set_head(&kb, &p, t);
	kb_at(&kb, "tables");
	if (f->sparse)
		emit_meta_table(&kb, &p);
	kb_at(&kb, "pointers");
	tile_entry_params(&kb, ti, g);
	template_regs(&kb, &p, &R);
	kb_at(&kb, "fill");
	emit_fill(&kb, &p, &R, 0);
	emit_fill(&kb, &p, &R, 1);
	if (p.nsf)
		emit_sf_fill(&kb, &p, &R);
	kb_at(&kb, "lane_map");
	emit_lane_map(&kb, &p, &R);
	kb_at(&kb, "tmem_in");
	if (p.scale_d)
		emit_cd(&kb, &p, &R, 1);
	if (f->asrc == MMAGEN_ASRC_TMEM)
		emit_a_tmem(&kb, &p, &R);
	if (f->sparse)
		emit_meta_tmem(&kb, &p, &R);
	kb_at(&kb, "issue");
	emit_issue(&kb, &p, &R, &in);
	kb_at(&kb, "d_out");
	emit_cd(&kb, &p, &R, 0);
	return kb_render(&kb, out);
}

const struct tile_gen tile_gen_tcgen05 = {
	.info = tcgen05_info,
	.emit = tcgen05_emit,
	.meta_layout = "metadata words per row of A (Tensor Memory)",
};
