/* kernel_gemm_sm90.c - the sm_90a GEMM: wgmma + TMA + mbarriers, a
 * producer warpgroup and two consumer warpgroups, persistent over tiles
 * (templates/gemm_sm90.ptx.in says how the kernel runs).
 *
 * The C side decides the tile and the instruction from the table, and
 * writes what the template cannot: the wgmma sequence of one K block and
 * the epilogue, which names each of the accumulator registers.  The
 * registers both sides use (the thread's warpgroup, warp and lane, the
 * tile and its origin m0, n0, the producer's barrier and stage offset,
 * the tensor maps, ...) are the template's slots ({{m0}}), filled with
 * builder registers (struct sm90_regs, from kb_slot_reg); the template
 * declares only the registers C never touches, and its `// slots:`
 * comment names the shared ones for the CPU replays. */
#include "gemm_plan.h"
#include "gemm_abi.h"

#include <assert.h>
#include <string.h>

#define GEMM_THREADS 384        /* producer + two consumer warpgroups */
#define GEMM_BM 128             /* two consumer warpgroups of 64 rows */
#define SWIZZLE_BYTES 128       /* one K block = one 128-byte swizzle row */
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232       /* 40*128 + 232*256 <= 64K registers */
/* D goes out through shared memory and TMA stores when the host can
 * make a tensor map of it, in chunks of 64 rows x 128 bytes (swizzled as
 * the map says).  Per consumer warpgroup a buffer for each chunk of the
 * tile's columns where shared memory has room after the stages (one
 * barrier pair per tile), else two, one filled while the other's store
 * reads it, else one (FP8's fifth stage, or stages asked for that leave
 * room for no more), each chunk's store done reading it before the next
 * chunk goes in.  (A tile of one chunk keeps two buffers and uses the
 * first.) */
#define D_CHUNK_BYTES (64u * SWIZZLE_BYTES)
/* MN-major operands (16-bit only): TMA boxes of 64 M or N elements (one
 * 128-byte swizzle row) by the K block's 64 rows; boxes MN_BOX_BYTES apart
 * in a stage, each 8-row group of K 1024 bytes after the last */
#define MN_BOX 64u
#define MN_BOX_BYTES (64u * SWIZZLE_BYTES)


/* The wgmma form for one K step: m64 n<bn> k<16/8/32>, A and B from
 * shared memory, accumulating in acc. */
static mmagen_status gemm_form(const struct gemm_plan *g, const mmagen_form **out)
{
	mmagen_request r;
	mmagen_request_init(&r);
	r.target = g->req.target;
	r.family = MMAGEN_FAM_WGMMA;
	r.sparse = MMAGEN_SPARSE_NONE;
	r.m = 64;
	r.n = g->bn;
	r.k = g->mma_k;
	r.a = g->req.a;
	r.b = g->req.b;
	r.c = r.d = g->acc;
	r.asrc = MMAGEN_ASRC_SMEM;
	/* the one dense wgmma of these fields, found by comparing them: a
	 * fraction of the generation time mmagen_select's general matching
	 * takes; anything but exactly one goes to mmagen_select for its
	 * message */
	const mmagen_form *hit = NULL;
	unsigned hits = 0;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (f->family == MMAGEN_FAM_WGMMA && f->sparse == MMAGEN_SPARSE_NONE &&
		    f->m == r.m && f->n == r.n && f->k == r.k && f->a == r.a && f->b == r.b &&
		    f->c == r.c && f->d == r.d && f->asrc == MMAGEN_ASRC_SMEM && !f->satfinite &&
		    mmagen_form_on_target(f, r.target)) {
			hit = f;
			hits++;
		}
	}
	if (hits == 1) {
		*out = hit;
		return MMAGEN_OK;
	}
	return mmagen_select(&r, out);
}

mmagen_status gemm_plan_sm90(const mmagen_gemm_request *req, struct gemm_plan *g)
{
	unsigned abits = mmagen_type_bits(req->a);
	mmagen_status s;
	const unsigned smem_limit = mmagen_target_smem(req->target); /* the opt-in maximum */

	memset(g, 0, sizeof *g);
	g->req = *req;
	g->acc = req->acc ? req->acc : mmagen_type_is_float(req->a) ? MMAGEN_F32 : MMAGEN_S32;
	/* tile M: 128 rows, two consumer warpgroups; 64, 32 or 16 for small
	 * M: the first warpgroup alone, A's TMA box that many rows (a 128-row
	 * box of which M = 16 fills 16 cost 16 x 14336 x 4096 a third of its
	 * time on the H200: 49 us against 33) */
	g->bm = req->tile_m ? req->tile_m : GEMM_BM;
	g->promote = gemm_is_fp8(req->a);
	g->block_scale = req->quant == MMAGEN_QF_FP8_BLOCK;   /* (gemm.c: FP8 A and B) */
	/* FP8 keeps two accumulators (partial and promoted): N 192 fits the
	 * consumers' 232 registers (H200: e4m3 8192^3 0.97 of cuBLASLt, N 128
	 * 0.88) */
	/* ping-pong: each consumer warpgroup holds a whole 128-row tile, two
	 * sets of accumulators (32-bit: N of them per thread, at most 192) */
	g->pingpong = req->schedule == MMAGEN_GEMM_SCHED_PINGPONG;
	unsigned acc_bits = mmagen_type_bits(g->acc);
	g->bn = req->tile_n ? req->tile_n : g->pingpong ? 128 * 32 / acc_bits :
		g->promote ? 192 : 256;
	if (g->pingpong && g->promote)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"--schedule pingpong holds a whole tile's accumulators per warpgroup, which leaves no room for FP8's promoted sums; use --schedule cooperative for %s",
			mmagen_type_name(req->a));
	/* ping-pong's widest tile N: 192 32-bit accumulators a thread */
	unsigned pp_most = 192 * 32 / acc_bits > 256 ? 256 : 192 * 32 / acc_bits;
	if (g->pingpong && g->bm != GEMM_BM)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"--schedule pingpong gives each consumer warpgroup a whole tile of 128 rows, not %u; use --tile 128x%u, or --schedule cooperative",
			g->bm, g->bn < pp_most ? g->bn : pp_most);
	if (g->pingpong && g->bn > pp_most)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"--schedule pingpong keeps 2 x 64 x N accumulators per warpgroup: tile N is at most %u with %s accumulation, not %u; use --tile 128x%u",
			pp_most, mmagen_type_name(g->acc), g->bn, pp_most);
	g->bk = SWIZZLE_BYTES * 8 / abits;
	g->mma_k = 256 / abits;               /* 32 bytes of K per wgmma */

	/* layouts nn, nt: A M-major; nt, tt: B N-major (check() lets only
	 * 16-bit types through) */
	g->a_mn = req->layout == MMAGEN_GEMM_NN || req->layout == MMAGEN_GEMM_NT;
	g->b_mn = req->layout == MMAGEN_GEMM_NT || req->layout == MMAGEN_GEMM_TT;

	g->group = req->group ? req->group : 8;
	if (g->group > 65535 || req->stages > 32)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s %u is out of range; use %s", g->group > 65535 ? "group" : "stages",
			g->group > 65535 ? g->group : req->stages,
			g->group > 65535 ? "1 to 65535 tile rows" : "2 to 32 stages (shared memory allows fewer)");
	/* two CTAs sharing B by multicast: less L2 traffic, and on the
	 * power-capped H200 less energy (bf16 8192^3: 0.91 vs 0.90).  FP8
	 * runs alone: with 5 stages, cluster 1 was as fast or faster at
	 * every shape timed (H200, against cuBLASLt in the same run: 4096^3
	 * 0.899 vs 0.873, 4096 x 4096 x 14336 0.918 vs 0.906, 2048^3 0.778
	 * vs 0.745) */
	g->cluster = req->cluster ? req->cluster : g->b_mn || g->promote ? 1 : 2;
	if (g->cluster != 1 && g->cluster != 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"cluster is 1 or 2 CTAs (two CTAs share B through TMA multicast), not %u",
			g->cluster);
	/* An N-major B multicast to a 2-CTA cluster gave wrong D on the H200
	 * (rows of the second CTA; cluster 1 and K-major B are right): not
	 * offered until that is found. */
	if (g->b_mn && g->cluster == 2)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"an N-major B (layouts nt, tt) takes --cluster 1 for now (its 2-CTA multicast is not verified); use --cluster 1");
	if (g->bm != 128 && g->bm != 64 && g->bm != 32 && g->bm != 16) {
		/* the nearest legal M (a tie: the larger); an M-major A has 128 only */
		unsigned near = 16;
		for (unsigned c = 32; c <= 128; c *= 2)
			if ((g->bm > c ? g->bm - c : c - g->bm) <= (g->bm > near ? g->bm - near : near - g->bm))
				near = c;
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the sm_90a GEMM tile has M = 128 (two consumer warpgroups of 64 rows), or 64, 32 or 16 for small M with a K-major A, not %u; use %u",
			g->bm, g->a_mn ? 128 : near);
	}
	if (g->bm != GEMM_BM && g->a_mn)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"an M-major A (layout %s) is loaded in boxes of %u rows: tile M is 128, not %u; use --tile 128x%u, or a K-major A (layout tn or tt)",
			req->layout == MMAGEN_GEMM_NN ? "nn" : "nt", MN_BOX, g->bm, g->bn);
	if (g->bn % 16 || g->bn < 16 || g->bn > 256)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile N is a multiple of 16 from 16 to 256 (wgmma's N), not %u; use %u", g->bn,
			g->bn < 16 ? 16 : g->bn > 256 ? 256 : (g->bn + 8) / 16 * 16);
	/* FP8: the partial sums join f32 every promote_k elements of K (a
	 * power-of-two number of K blocks) */
	g->promote_every = 1;
	if (req->promote_k) {
		unsigned kb = req->promote_k / g->bk;
		if (!g->promote)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"--promote applies to FP8 A and B (wgmma's e4m3/e5m2 partial sums keep fewer bits), not %s; leave it out",
				mmagen_type_name(req->a));
		if (req->promote_k % g->bk || kb & (kb - 1) || kb > 8 || !kb) {
			unsigned near = 1;            /* the power of two at or below */
			while (near < 8 && 2 * near <= kb)
				near *= 2;
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"--promote is the K block (%u elements) times 1, 2, 4 or 8, not %u; use %u",
				g->bk, req->promote_k, near * g->bk);
		}
		g->promote_every = kb;
	}
	assert(!g->block_scale || g->bk == GEMM_SCALE_BLOCK);
	if (g->block_scale && g->promote_every != 1)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"--quant fp8-block applies its scales where each K block of %u is promoted: --promote is %u, not %u; leave --promote out",
			g->bk, g->bk, req->promote_k);
	/* FP8 tiles of 16-64 rows, up to 128 wide, promoting every K block:
	 * a second set of partial sums (3 x 64 of the consumers' 232
	 * registers), K blocks in pairs, one set promoted while the other's
	 * wgmma run.  Such tiles wait on their wgmma every K block with
	 * little else to do (H200, against cuBLASLt in the same runs:
	 * 16 x 4096 x 4096 0.875 -> 0.980, 128 x 4096 x 4096 in 64x64 tiles
	 * 0.943 -> 1.044, 16 x 4096 x 14336 0.963 -> 1.003); 128-row tiles
	 * were slower with it (128x128 at 8192^3: 1.363M cycles against
	 * 1.324M), and 128x192 has no room */
	g->promote_pipe = g->promote && gemm_fp8_pairs(g->promote_every, g->bm, g->bn);
	if (g->promote && g->bn > 192)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"FP8 tiles keep two accumulators (wgmma's partial sums and the f32 sums): tile N is at most 192, not %u",
			g->bn);
	/* an N-major B goes in by TMA boxes of one swizzle row (64 columns),
	 * half of them from each CTA of a cluster */
	if (g->b_mn && g->bn % (MN_BOX * g->cluster))
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"an N-major B (layout %s) is loaded in boxes of %u columns%s: tile N is a multiple of %u, not %u; use %u",
			req->layout == MMAGEN_GEMM_NT ? "nt" : "tt", MN_BOX,
			g->cluster == 2 ? " (half of them per CTA of the cluster)" : "",
			MN_BOX * g->cluster, g->bn,
			g->bn < MN_BOX * g->cluster ? MN_BOX * g->cluster
						     : g->bn / (MN_BOX * g->cluster) * MN_BOX * g->cluster);
	if ((s = gemm_form(g, &g->form)))
		return s;
	g->a_stage = g->bm * SWIZZLE_BYTES;
	g->b_stage = g->bn * SWIZZLE_BYTES;
	/* as many stages as shared memory holds, up to 6 */
	/* staged D needs whole 128-byte chunks of columns in the tile */
	unsigned chunks = g->bn * (mmagen_type_bits(req->out) / 8) / SWIZZLE_BYTES *
			  (g->pingpong ? 2 : 1);     /* per warpgroup and tile */
	g->d_bufs = g->bn * (mmagen_type_bits(req->out) / 8) % SWIZZLE_BYTES ? 0 : 2;
	g->d_stage = 2 * g->d_bufs * D_CHUNK_BYTES;
	unsigned room = smem_limit - g->d_stage - 64;
	g->stages = req->stages ? req->stages : room / (g->a_stage + g->b_stage + 16);
	/* (small tiles: up to 12, a memory-bound stream gains from more in
	 * flight: bf16 16 x 4096 x 14336 on the H200 43 us with 8 against
	 * 50 with 6; 128 x 4096 x 14336 in 64x64 tiles 38.7 us with 12
	 * against 41.6 with 8; FP8 the same with 8, 12 or 16) */
	if (!req->stages && g->stages > (g->bm < GEMM_BM ? 12u : 6u))
		g->stages = g->bm < GEMM_BM ? 12 : 6;
	/* 16-bit 128 x 256 tiles: 3 stages, not the 4 that fit (bf16
	 * 8192^3 on the H200, two sessions: +1% and +1.4% against cuBLASLt
	 * in the same run; FP8 and INT8 lost 1.5-3% with 3) */
	if (!req->stages && mmagen_type_bits(req->a) == 16 && mmagen_type_bits(req->b) == 16 &&
	    g->bm == GEMM_BM && g->bn == 256 && g->stages > 3)
		g->stages = 3;
	/* FP8 (128-row tiles): one more stage rather than a second staging
	 * buffer per warpgroup (128x192: 5 stages and one buffer against 4
	 * and two, H200, same runs: 4096^3 0.874 -> 0.899 of cuBLASLt with
	 * cluster 1, 4096 x 14336 x 4096 0.951 -> 0.962, 8192^3 0.95 ->
	 * 0.96-0.98 when the clock holds) */
	if (!req->stages && g->promote && g->bm == GEMM_BM && g->d_bufs == 2) {
		unsigned one = (smem_limit - 2 * D_CHUNK_BYTES - 64) / (g->a_stage + g->b_stage + 16);
		if (one > g->stages && one <= 6) {
			g->stages = one;
			g->d_bufs = 1;
			g->d_stage = 2 * D_CHUNK_BYTES;
		}
	}
	g->smem = g->stages * (g->a_stage + g->b_stage) + g->d_stage + 2 * 8 * g->stages;
	/* stages asked for that leave no room for two staging buffers: one
	 * per warpgroup (each chunk's store has read it before the next
	 * chunk goes in); never none (direct stores are slower: the error
	 * below names the stages that fit) */
	unsigned keep = g->d_bufs ? 2 * D_CHUNK_BYTES : 0;   /* staging that stays */
	if (req->stages && g->d_bufs && g->smem > smem_limit) {
		g->smem -= g->d_stage - keep;
		g->d_bufs = 1;
		g->d_stage = keep;
	}
	/* a buffer per chunk when that leaves the stages as they are: the
	 * epilogue then waits on no store of its own tile */
	if (g->d_bufs && chunks > g->d_bufs &&
	    g->smem + 2 * (chunks - g->d_bufs) * D_CHUNK_BYTES <= smem_limit) {
		g->smem += 2 * (chunks - g->d_bufs) * D_CHUNK_BYTES;
		g->d_bufs = chunks;
		g->d_stage = 2 * g->d_bufs * D_CHUNK_BYTES;
	} else if (g->d_bufs >= 2 && chunks > g->d_bufs) {
		/* else as many buffers as fit, a chunk's store then waits on
		 * the store bufs chunks back (INT8 -> s32 128x192, 4 stages:
		 * 4 buffers where 2 were) */
		unsigned bufs = (smem_limit - (g->smem - g->d_stage)) / (2 * D_CHUNK_BYTES);
		if (bufs > g->d_bufs) {   /* (fewer than chunks: else the branch above) */
			g->d_bufs = bufs;
			g->smem += 2 * D_CHUNK_BYTES * g->d_bufs - g->d_stage;
			g->d_stage = 2 * g->d_bufs * D_CHUNK_BYTES;
		}
	}
	unsigned most = (smem_limit - keep - 64) / (g->a_stage + g->b_stage + 16);
	if (most > 32)
		most = 32;
	if (g->stages < 2)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"the pipeline has at least 2 stages (one filled while another is read), not %u; use 2 to %u stages",
			g->stages, most);
	if (g->smem > smem_limit)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%u stages of %u bytes do not fit the %u bytes of shared memory a block can have; use 2 to %u stages",
			g->stages, g->a_stage + g->b_stage, smem_limit, most);
	/* a small tile's wgmma still read 64 rows of A from the stage's start:
	 * past the tile's rows into the next stages, B and D's staging, which
	 * is harmless (those rows are never stored) as long as the last
	 * stage's 64 rows end before the barriers (tile 16x16 with 2 stages
	 * read 2 KB past them, beyond the block's shared memory) */
	unsigned a_read = 64 * SWIZZLE_BYTES, bars = g->stages * (g->a_stage + g->b_stage) + g->d_stage;
	if ((g->stages - 1) * g->a_stage + a_read > bars) {
		unsigned most = a_read - g->a_stage - g->d_stage;
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"tile %ux%u with %u stages: each wgmma reads 64 rows of A from a stage, and the last stage's run past the end of shared memory; use %u stages or more (or a wider tile N)",
			g->bm, g->bn, g->stages, (most + g->b_stage - 1) / g->b_stage);
	}
	return MMAGEN_OK;
}

/* The descriptor's start address step (16-byte units) from one wgmma of
 * a K block to the next: K-major, 32 bytes further along each swizzled
 * row; MN-major, mma_k rows of 128 bytes further down. */
static unsigned kstep_units(int mn, const struct gemm_plan *g)
{
	return mn ? g->mma_k * SWIZZLE_BYTES / 16 : 2;
}

/* One K block: mma_per_kblock wgmma, each one K step further (the
 * descriptor's start address in 16-byte units).  MN-major operands set
 * the instruction's transpose immediates.  Ping-pong (acc2.n != 0): each
 * step's wgmma for rows 0-63 into the form's accumulators, then rows
 * 64-127 (A 64 rows further) into acc2. */
static void emit_kblock(struct kb *kb, const struct gemm_plan *g, struct instr *in,
			kreg da, kreg db, kreg first, kreg always, kreg acc2)
{
	struct operand *od = tile_find_op(in, "d");
	kreg acc1 = od->reg;
	struct operand *oa = tile_find_op(in, "da"), *ob = tile_find_op(in, "db");
	struct operand *sd = tile_find_op(in, "sd");
	struct operand *ta = tile_find_op(in, "transa"), *tb = tile_find_op(in, "transb");
	unsigned steps = g->bk / g->mma_k;
	unsigned ua = kstep_units(g->a_mn, g), ub = kstep_units(g->b_mn, g);

	assert((!g->a_mn || ta) && (!g->b_mn || tb));   /* 16-bit forms have them */
	if (ta)
		ta->imm[0] = g->a_mn;
	if (tb)
		tb->imm[0] = g->b_mn;

	memset(in->pre, 0, sizeof in->pre);     /* the template fences and commits */
	memset(in->post, 0, sizeof in->post);
	for (unsigned i = 0; i < steps; i++) {
		if (i) {
			oa->reg = kb_reg(kb, K_B64);
			ob->reg = kb_reg(kb, K_B64);
			ke(kb, "\tadd.s64 $r, $r, $u;\n\tadd.s64 $r, $r, $u;\n",
			   oa->reg, da, ua * i, ob->reg, db, ub * i);
		} else {
			oa->reg = da;
			ob->reg = db;
		}
		sd->reg = i ? always : first;
		emit_instruction(kb_buf(kb), g->form, in);
		if (!acc2.n)
			continue;
		kreg a = oa->reg;
		oa->reg = kb_reg(kb, K_B64);
		ke(kb, "\tadd.s64 $r, $r, $u;\n", oa->reg, a, 64 * SWIZZLE_BYTES / 16);
		od->reg = acc2;
		emit_instruction(kb_buf(kb), g->form, in);
		od->reg = acc1;
	}
}

/* Per-thread values the epilogue needs, loaded once. */
struct ep {
	const struct sm90_regs *sr;   /* the template's registers */
	struct gemm_epi x;        /* the per-element arithmetic (gemm_epi.h) */
	kreg gd, gc, m, n, ldd, ldc;
	kreg row, col;
	/* D through shared memory and TMA stores (pd_tma != 0) */
	kreg tma, tmd;            /* the choice; tensor_d's generic address */
	kreg issuer, wgbar;       /* thread 0 of the warpgroup; its barrier */
	kreg srow;                /* staging address of (row, col) in buffer 0
				   * (16-bit D: of the lane's stmatrix row) */
	kreg key;                 /* this lane's 16-byte-unit bits ^ row % 8, << 4
				   * (16-bit D: (lane/16) ^ (lane%8), << 4) */
	kreg ebuf;                /* fewer buffers than chunks: the offset of the one
				   * to fill, k * D_CHUNK_BYTES, taken in turn (one
				   * buffer: 0) */
	unsigned bufs, chunks;    /* chunk buffers per warpgroup; its chunks of a
				   * tile (ping-pong: of both 64-row halves) */
	int pingpong;             /* a warpgroup writes all 128 rows of its tiles */
	unsigned esize;           /* bytes of a D (and C) element */
	unsigned d_off;           /* D's staging in shared memory */
	int staged;               /* the kernel has the staged stores */
};

/* The staging of D for TMA stores.  A warpgroup's 64 rows go out in
 * chunks of 128 bytes of columns (128 8-bit, 64 16-bit or 32 32-bit elements), each
 * chunk a 64 x 128-byte box of tensor_d with the 128-byte swizzle: the
 * 16-byte unit u of row r sits at unit u ^ (r % 8).  Thread (warp w,
 * lane l) holds rows 16w + l/4 (+ 8) and, in each group of 8 columns,
 * columns 2(l%4), +1.  16-bit D goes in by stmatrix (srow and key are
 * then the lane's stmatrix row, below): each 8 x 8 matrix is 8 rows of 16
 * bytes in 8 different units, 32 banks.  Other D by st.shared of the
 * thread's pair: 8-bit D's b16 stores hit 32 different banks; 32-bit D's
 * v2.b32 stores meet 2 ways in a half warp.  Uses the template's wg,
 * warp, lane (e->sr). */
static void emit_staging_setup(struct kb *kb, struct ep *e)
{
	kreg t = kb_reg(kb, K_B32), u = kb_reg(kb, K_B32);
	e->tma = kb_reg(kb, K_PRED);
	e->tmd = kb_reg(kb, K_B64);
	e->issuer = kb_reg(kb, K_PRED);
	e->wgbar = kb_reg(kb, K_B32);
	e->srow = kb_reg(kb, K_B32);
	e->key = kb_reg(kb, K_B32);
	e->ebuf = kb_reg(kb, K_B32);
	ke(kb, "\tld.param.u32 $r, [pd_tma];\n\tsetp.ne.u32 $r, $r, 0;\n"
	       "\tmov.b64 $r, tensor_d;\n\tcvta.param.u64 $r, $r;\n",
	   t, e->tma, t, e->tmd, e->tmd, e->tmd);
	/* barrier 1 or 2 for warpgroup 1 or 2; the issuer is its thread 0 */
	ke(kb, "\tmov.u32 $r, $r;\n\tand.b32 $r, $r, 3;\n\tor.b32 $r, $r, $r;\n"
	       "\tsetp.eq.u32 $r, $r, 0;\n\tmov.u32 $r, 0;\n",
	   e->wgbar, e->sr->wg, t, e->sr->warp, t, t, e->sr->lane, e->issuer, t, e->ebuf);
	ke(kb, "\tmov.u32 $r, mmagen_smem;\n\tadd.u32 $r, $r, $u;\n", e->srow, e->srow, e->srow,
	   e->d_off);
	ke(kb, "\tsub.u32 $r, $r, 1;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
	   t, e->sr->wg, e->srow, t, e->bufs * D_CHUNK_BYTES, e->srow);
	if (e->esize == 2) {
		/* 16-bit D goes in by stmatrix.x4: lane l gives row l%8 of
		 * matrix l/8, matrix q being rows 8(q&1).. and column group
		 * q>>1 of a 16 x 16 block (the accumulators' own layout:
		 * registers 4j+2h+i are row 8h + l/4, columns 8j + 2(l%4) + i).
		 * srow = staging + (wg-1) * bufs chunks + (16 (warp%4) + l%16) * 128,
		 * key = (q>>1 ^ row % 8) << 4 */
		ke(kb, "\tand.b32 $r, $r, 3;\n\tshl.b32 $r, $r, 4;\n\tand.b32 $r, $r, 15;\n"
		       "\tadd.u32 $r, $r, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
		   t, e->sr->warp, t, t, u, e->sr->lane, t, t, u, e->srow, t, SWIZZLE_BYTES,
		   e->srow);
		ke(kb, "\tshr.u32 $r, $r, 4;\n\tand.b32 $r, $r, 7;\n\txor.b32 $r, $r, $r;\n"
		       "\tshl.b32 $r, $r, 4;\n",
		   t, e->sr->lane, u, e->sr->lane, e->key, t, u, e->key, e->key);
		return;
	}
	/* srow = staging + (wg-1) * bufs chunks + (16 (warp%4) + lane/4) * 128
	 *        + the lane's byte inside its 16-byte unit */
	ke(kb, "\tand.b32 $r, $r, 3;\n\tshl.b32 $r, $r, 4;\n\tshr.u32 $r, $r, 2;\n"
	       "\tadd.u32 $r, $r, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
	   t, e->sr->warp, t, t, u, e->sr->lane, t, t, u, e->srow, t, SWIZZLE_BYTES, e->srow);
	/* the lane's pair starts at byte 2 (lane%4) esize of its group of 8
	 * columns: the unit bits above 16 go into key, the rest into srow */
	ke(kb, "\tand.b32 $r, $r, 3;\n\tmul.lo.u32 $r, $r, $u;\n"
	       "\tand.b32 $r, $r, 15;\n\tadd.u32 $r, $r, $r;\n",
	   t, e->sr->lane, t, t, 2 * e->esize, u, t, e->srow, e->srow, u);
	ke(kb, "\tshr.u32 $r, $r, 4;\n\tshr.u32 $r, $r, 2;\n\txor.b32 $r, $r, $r;\n"
	       "\tshl.b32 $r, $r, 4;\n",
	   t, t, u, e->sr->lane, e->key, t, u, e->key, e->key);
}

static void emit_epilogue_setup(struct kb *kb, struct ep *e)
{
	e->gd = frag_param_ptr(kb, "pd");
	e->gc = frag_param_ptr(kb, "pc");
	e->m = kb_slot_reg(kb, "mlim", K_B32);   /* min(M, m0 + tile M), per tile */
	e->n = kb_reg(kb, K_B32);
	e->ldd = kb_reg(kb, K_B32);
	e->ldc = kb_reg(kb, K_B32);
	ke(kb, "\tld.param.u32 $r, [pn];\n"
	       "\tld.param.u32 $r, [pldd];\n\tld.param.u32 $r, [pldc];\n",
	   e->n, e->ldd, e->ldc);
	gemm_epi_params(kb, &e->x);
	if (e->staged)
		emit_staging_setup(kb, e);
	gemm_epi_params_out(kb, &e->x);
}


/* Chunks of D through shared memory.  With a buffer per chunk (bufs >=
 * chunks): before the first, the last tile's TMA stores have read the
 * buffers (the issuer waits, the warpgroup syncs); after the last, the
 * writes are made visible to the async proxy, and the issuer stores each
 * chunk's 64 x 128-byte box at (n0 + chunk columns, m0 + 64 (wg-1)).
 * With fewer buffers the same per chunk, the buffers taken in turn
 * across chunks and tiles: the issuer commits one bulk group per chunk,
 * so waiting until bufs - 1 groups are left unread frees the buffer the
 * store bufs chunks back read (one buffer: each chunk waits until the
 * last chunk's store has read it).  Uses the template's m0, n0, wg. */
static void chunk_begin(struct kb *kb, const struct ep *e, kreg base, unsigned c)
{
	if (e->bufs >= e->chunks) {
		if (c == 0)
			ke(kb, "\t@$r cp.async.bulk.wait_group.read 0;\n\tbar.sync $r, 128;\n",
			   e->issuer, e->wgbar);
		ke(kb, "\tadd.u32 $r, $r, $u;\n", base, e->srow, c * D_CHUNK_BYTES);
		return;
	}
	ke(kb, "\t@$r cp.async.bulk.wait_group.read $u;\n\tbar.sync $r, 128;\n"
	       "\tadd.u32 $r, $r, $r;\n", e->issuer, e->bufs - 1, e->wgbar, base, e->srow,
	   e->ebuf);
}

static void chunk_store(struct kb *kb, const struct ep *e, kreg x, kreg y, kreg base, unsigned c)
{
	unsigned per = e->pingpong ? e->chunks / 2 : e->chunks;   /* of 64 rows */
	unsigned col0 = c % per * (SWIZZLE_BYTES / e->esize);
	if (e->pingpong)        /* chunk c of rows 64 (c / per) of the tile */
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $u;\n", x, e->sr->n0, col0, y,
		   e->sr->m0, c / per * 64);
	else
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tsub.u32 $r, $r, 1;\n\tshl.b32 $r, $r, 6;\n"
		       "\tadd.u32 $r, $r, $r;\n", x, e->sr->n0, col0, y, e->sr->wg, y, y, y, y,
		   e->sr->m0);
	ke(kb, "\tcp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$r, {$r, $r}], [$r];\n",
	   e->tmd, x, y, base);
}

static void chunk_end(struct kb *kb, const struct ep *e, kreg base, unsigned c)
{
	kreg x = kb_reg(kb, K_B32), y = kb_reg(kb, K_B32), skip = kb_label(kb);
	if (e->bufs >= e->chunks) {
		if (c + 1 < e->chunks)
			return;
		ke(kb, "\tfence.proxy.async.shared::cta;\n\tbar.sync $r, 128;\n\t@!$r bra $r;\n",
		   e->wgbar, e->issuer, skip);
		for (unsigned i = 0; i < e->chunks; i++) {
			ke(kb, "\tadd.u32 $r, $r, $u;\n", base, e->srow, i * D_CHUNK_BYTES);
			chunk_store(kb, e, x, y, base, i);
		}
		ke(kb, "\tcp.async.bulk.commit_group;\n$r:\n", skip);
		return;
	}
	ke(kb, "\tfence.proxy.async.shared::cta;\n\tbar.sync $r, 128;\n\t@!$r bra $r;\n",
	   e->wgbar, e->issuer, skip);
	chunk_store(kb, e, x, y, base, c);
	ke(kb, "\tcp.async.bulk.commit_group;\n$r:\n", skip);
	/* the next buffer, round the warpgroup's bufs */
	if (e->bufs == 2)
		ke(kb, "\txor.b32 $r, $r, $u;\n", e->ebuf, e->ebuf, D_CHUNK_BYTES);
	else if (e->bufs > 2)
		ke(kb, "\tadd.u32 $r, $r, $u;\n\trem.u32 $r, $r, $u;\n", e->ebuf, e->ebuf,
		   D_CHUNK_BYTES, e->ebuf, e->ebuf, e->bufs * D_CHUNK_BYTES);
}

/* The pair (lo, hi) of column group jj of the chunk, row half h, into
 * the staging buffer at base. */
static void stage_pair(struct kb *kb, const struct ep *e, kreg base, unsigned jj, unsigned h,
		       kreg lo, kreg hi)
{
	kreg a = kb_reg(kb, K_B32);
	unsigned off = h * 8 * SWIZZLE_BYTES;          /* rows + 8 */
	ke(kb, "\txor.b32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n", a, e->key, jj * 8 * e->esize,
	   a, a, base);
	if (e->esize == 4) {
		ke(kb, "\tst.shared.v2.b32 [$r+$u], {$r, $r};\n", a, off, lo, hi);
		return;
	}
	/* 16-bit D goes in by stmatrix (stage_block) */
	assert(e->esize == 1);
	kreg h8 = kb_reg(kb, K_B16);
	gemm_epi_cvt_pair(kb, &e->x, h8, lo, hi);
	ke(kb, "\tst.shared.b16 [$r+$u], $r;\n", a, off, h8);
}

/* The 16 x 16 block of column groups jj, jj+1 of the chunk at base,
 * rows 16 (warp%4) .. +15, from four packed registers (w[2q+h]: group
 * jj+q, rows + 8h), into the staging buffer by stmatrix. */
static void stage_block(struct kb *kb, const struct ep *e, kreg base, unsigned jj, kreg w)
{
	kreg a = kb_reg(kb, K_B32);
	ke(kb, "\txor.b32 $r, $r, $u;\n\tadd.u32 $r, $r, $r;\n", a, e->key, jj * 16, a, a, base);
	ke(kb, "\tstmatrix.sync.aligned.m8n8.x4.shared.b16 [$r], {$r, $r, $r, $r};\n", a,
	   kr_at(w, 0), kr_at(w, 1), kr_at(w, 2), kr_at(w, 3));
}

/* D for this thread's accumulators (wgmma m64nN layout: register 4j+2h+i
 * is row + 8h, column col + 8j + i), with or without beta * C, stored
 * directly or staged for TMA stores (tma).  Direct: pairs inside N are
 * stored whole; a pair that N cuts is stored as one value.  Staged: TMA
 * leaves out what lies outside M x N. */
static void emit_store_all(struct kb *kb, const struct gemm_plan *g, const struct ep *e,
			   kreg acc, int with_c, int tma, kreg row0, unsigned half)
{
	kreg row[2] = { row0, kb_reg(kb, K_B32) };
	kreg prow[2] = { kb_reg(kb, K_PRED), kb_reg(kb, K_PRED) };
	kreg ad[2], ac[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	kreg cj = kb_reg(kb, K_B32), pin1 = kb_reg(kb, K_PRED), pin2 = kb_reg(kb, K_PRED);
	kreg p0 = kb_reg(kb, K_PRED), p1 = kb_reg(kb, K_PRED), ps = kb_reg(kb, K_PRED);
	kreg v = kb_regs(kb, e->x.out == MMAGEN_S32 ? K_B32 : K_F32, 2);
	kreg base = kb_reg(kb, K_B32), w = kb_regs(kb, K_B32, 4);
	unsigned es = e->esize, groups = SWIZZLE_BYTES / (8 * es);   /* per chunk */
	unsigned c0 = half * (g->bn / 8 / groups);     /* the half's first chunk */
	int bounds = !tma || with_c;

	if (bounds)
		ke(kb, "\tadd.u32 $r, $r, 8;\n\tsetp.lt.u32 $r, $r, $r;\n\tsetp.lt.u32 $r, $r, $r;\n",
		   row[1], row[0], prow[0], row[0], e->m, prow[1], row[1], e->m);
	for (int h = 0; h < 2; h++) {
		if (!tma)
			ad[h] = gemm_elem_addr(kb, e->gd, row[h], e->col, e->ldd, es);
		if (with_c)
			ac[h] = gemm_elem_addr(kb, e->gc, row[h], e->col, e->ldc, es);
	}
	for (unsigned j = 0; j < g->bn / 8; j++) {
		if (tma && j % groups == 0)
			chunk_begin(kb, e, base, c0 + j / groups);
		/* columns col+8j (pin1) and col+8j+1 (pin2) inside N? */
		if (bounds)
			ke(kb, "\tadd.u32 $r, $r, $u;\n\tsetp.lt.u32 $r, $r, $r;\n"
			       "\tadd.u32 $r, $r, 1;\n\tsetp.lt.u32 $r, $r, $r;\n",
			   cj, e->col, 8 * j, pin1, cj, e->n, cj, cj, pin2, cj, e->n);
		for (unsigned h = 0; h < 2; h++) {
			unsigned off = 8 * j * es;
			/* p0: element 0 inside, p1: both, ps: only element 0 */
			if (bounds)
				ke(kb, "\tand.pred $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
				       "\tnot.pred $r, $r;\n\tand.pred $r, $r, $r;\n",
				   p0, prow[h], pin1, p1, prow[h], pin2, ps, pin2, ps, ps, p0);
			/* registers 4j+2h+i; f16: register 2j+h holds the pair */
			int f16 = e->x.acc == MMAGEN_F16;
			kreg a0 = kr_at(acc, f16 ? 2 * j + h : 4 * j + 2 * h);
			kreg a1 = f16 ? a0 : kr_at(acc, 4 * j + 2 * h + 1);
			struct gemm_epi_c cin = { .p = { p0, p1 }, .addr = ac[h],
						  .off = { off, off + es } };
			gemm_epi_pair(kb, &e->x, v, a0, a1, with_c ? &cin : NULL);
			if (tma && e->esize == 2) {
				/* a 16 x 16 block (column groups j-1, j when j is
				 * odd) goes out in one stmatrix.x4 */
				gemm_epi_cvt_pair(kb, &e->x, kr_at(w, 2 * (j % 2) + h), kr_at(v, 0),
						  kr_at(v, 1));
				if (j % 2 && h)
					stage_block(kb, e, base, j % groups - 1, w);
				continue;
			}
			if (tma) {
				stage_pair(kb, e, base, j % groups, h, kr_at(v, 0), kr_at(v, 1));
				continue;
			}
			gemm_epi_store(kb, &e->x, p1, ps, ad[h], off, v);
		}
		if (tma && (j + 1) % groups == 0)
			chunk_end(kb, e, base, c0 + j / groups);
	}
}

/* Both 64-row halves of a ping-pong tile (rows row and row + 64, acc
 * and acc2), or the warpgroup's 64 rows (acc2.n == 0). */
static void emit_store_tile(struct kb *kb, const struct gemm_plan *g, const struct ep *e,
			    kreg acc, kreg acc2, int with_c, int tma)
{
	emit_store_all(kb, g, e, acc, with_c, tma, e->row, 0);
	if (!acc2.n)
		return;
	kreg row = kb_reg(kb, K_B32);
	ke(kb, "\tadd.u32 $r, $r, 64;\n", row, e->row);
	emit_store_all(kb, g, e, acc2, with_c, tma, row, 1);
}

/* Four copies of the stores: staged or direct (the host's pd_tma says
 * which: staged needs a tensor map of D), with or without C. */
static void emit_epilogue(struct kb *kb, const struct gemm_plan *g, struct ep *e, kreg acc,
			  kreg acc2)
{
	kreg done = kb_label(kb);
	for (int tma = g->d_stage ? 1 : 0; tma >= 0; tma--) {
		kreg no_c = kb_label(kb), next = kb_label(kb);
		if (tma)
			ke(kb, "\t@!$r bra.uni $r;\n", e->tma, next);
		ke(kb, "\t@!$r bra.uni $r;\n", e->x.has_c, no_c);
		emit_store_tile(kb, g, e, acc, acc2, 1, tma);
		ke(kb, "\tbra.uni $r;\n$r:\n", done, no_c);
		emit_store_tile(kb, g, e, acc, acc2, 0, tma);
		ke(kb, "\tbra.uni $r;\n$r:\n", done, next);
	}
	ke(kb, "$r:\n", done);
}

/* FP8 block scaling (MMAGEN_QF_FP8_BLOCK), DeepSeek-V3's: the partial
 * sums of K block kb join the f32 sums as fma(part, sa * sb, sums), sa
 * the scale of the register's row (row m, kb: at sa + 4 (m sa_sm + kb
 * sa_sk)) and sb of its column's 128-column block of B (nb = n / 128:
 * at sb + 4 (nb sb_sn + kb sb_sk)).  A thread holds two rows (wgmma's
 * m64nNk32 D fragment: register 4j + 2h + e is row 16 (warp % 4) + lane
 * / 4 + 8h of the warpgroup's 64, column 8j + 2 (lane % 4) + e), and
 * every column group j of the tile, which lies in one B block (128 is a
 * multiple of 8): B block n0 / 128 + o_j.  Where o_j depends on n0 % 128
 * (tile N not a divisor nor a multiple of 128: 192 spans 1 or 2 blocks,
 * and group 8..15's is the first or the second), a predicate per tile
 * picks it.  Rows past M and blocks past N are clamped to the last
 * (their D is never stored): the loads stay inside the arrays. */
#define BS_B_MAX 3u          /* B blocks a tile spans: 176 columns at 112 .. 287 */
#define BS_P_MAX 16u

struct bs_set {
	kreg sa[2], sb[BS_B_MAX];   /* the scales of one K block */
};

struct bs {
	unsigned nb;                /* B blocks a tile spans at most */
	/* per column group j and B block boundary b (o_j >= b + 1 when ...):
	 * -2 never, -1 always, else predicate p[that] */
	int cond[256 / 8][2];
	unsigned np, thr[BS_P_MAX];
	kreg p[BS_P_MAX];           /* per tile: n0 % 128 >= thr[i] */
	kreg ra[2], rb[BS_B_MAX];   /* per tile: min(row, M - 1) sa_sm, min(block, NB - 1) sb_sn */
	kreg k, more;               /* the template's bs_k, bs_more */
	struct bs_set set[2];       /* set 0; set 1: the second of K blocks in pairs */
};

/* The tile columns' B blocks over every n0 % 128 a tile can start at
 * (n0 = tile column x bn): how many, and per group which predicate. */
static void bs_plan(struct bs *b, unsigned bn)
{
	unsigned seen[128] = { 0 }, starts[128], ns = 0;
	for (unsigned t = 0; t < 128; t++)
		if (!seen[t * bn % 128]++)
			starts[ns++] = t * bn % 128;
	/* ascending (insertion: at most 128) */
	for (unsigned i = 1; i < ns; i++)
		for (unsigned j = i; j > 0 && starts[j - 1] > starts[j]; j--) {
			unsigned x = starts[j];
			starts[j] = starts[j - 1];
			starts[j - 1] = x;
		}
	b->nb = 1;
	for (unsigned i = 0; i < ns; i++)
		if ((starts[i] + bn - 1) / GEMM_SCALE_BLOCK + 1 > b->nb)
			b->nb = (starts[i] + bn - 1) / GEMM_SCALE_BLOCK + 1;
	assert(b->nb <= BS_B_MAX);
	b->np = 0;
	for (unsigned j = 0; j < bn / 8; j++)
		for (unsigned c = 0; c < 2; c++) {
			/* block offset > c: s + 8j >= 128 (c + 1), s the start */
			unsigned need = (c + 1) * GEMM_SCALE_BLOCK, first = 0, any = 0;
			for (unsigned i = ns; i-- > 0;)
				if (starts[i] + 8 * j >= need)
					first = starts[i], any = 1;
			if (!any) {
				b->cond[j][c] = -2;
			} else if (first == starts[0]) {
				b->cond[j][c] = -1;
			} else {
				unsigned q = 0;
				while (q < b->np && b->thr[q] != first)
					q++;
				if (q == b->np) {
					assert(b->np < BS_P_MAX);
					b->thr[b->np++] = first;
				}
				b->cond[j][c] = (int)q;
			}
		}
}

/* The tile's scale indices (slot scale_tile, at each tile's start: m0,
 * n0 of the template).  Uses the template's wg, warp, lane. */
static void bs_emit_tile(struct kb *kb, struct bs *b, const struct sm90_regs *sr)
{
	kreg last = kb_reg(kb, K_B32), r = kb_reg(kb, K_B32), t = kb_reg(kb, K_B32);
	kreg v = kb_reg(kb, K_B32), str = kb_reg(kb, K_B32), s = kb_reg(kb, K_B32);
	kb_at(kb, "scale_tile");
	/* rows m0 + 64 (wg - 1) + 16 (warp % 4) + lane / 4, + 8 */
	ke(kb, "\tld.param.u32 $r, [pm];\n\tsub.u32 $r, $r, 1;\n\tld.param.u32 $r, [psa_sm];\n"
	       "\tsub.u32 $r, $r, 1;\n\tshl.b32 $r, $r, 6;\n\tadd.u32 $r, $r, $r;\n"
	       "\tand.b32 $r, $r, 3;\n\tshl.b32 $r, $r, 4;\n\tadd.u32 $r, $r, $r;\n"
	       "\tshr.u32 $r, $r, 2;\n\tadd.u32 $r, $r, $r;\n",
	   last, last, last, str, r, sr->wg, r, r, r, r, sr->m0, t, sr->warp, t, t, r, r, t,
	   t, sr->lane, r, r, t);
	for (unsigned h = 0; h < 2; h++) {
		if (h)
			ke(kb, "\tadd.u32 $r, $r, 8;\n", r, r);
		ke(kb, "\tmin.u32 $r, $r, $r;\n\tmul.lo.u32 $r, $r, $r;\n", v, r, last, b->ra[h], v,
		   str);
	}
	/* B blocks n0 / 128 + o, up to the last, ceil(N / 128) - 1 */
	ke(kb, "\tld.param.u32 $r, [pn];\n\tadd.u32 $r, $r, $u;\n\tshr.u32 $r, $r, $u;\n"
	       "\tsub.u32 $r, $r, 1;\n\tld.param.u32 $r, [psb_sn];\n\tshr.u32 $r, $r, $u;\n",
	   last, last, last, GEMM_SCALE_BLOCK - 1, last, last, gemm_log2u(GEMM_SCALE_BLOCK), last,
	   last, str, r, sr->n0, gemm_log2u(GEMM_SCALE_BLOCK));
	for (unsigned o = 0; o < b->nb; o++) {
		if (o)
			ke(kb, "\tadd.u32 $r, $r, 1;\n", r, r);
		ke(kb, "\tmin.u32 $r, $r, $r;\n\tmul.lo.u32 $r, $r, $r;\n", v, r, last, b->rb[o], v,
		   str);
	}
	if (b->np)
		ke(kb, "\tand.b32 $r, $r, $u;\n", s, sr->n0, GEMM_SCALE_BLOCK - 1);
	for (unsigned i = 0; i < b->np; i++)
		ke(kb, "\tsetp.ge.u32 $r, $r, $u;\n", b->p[i], s, b->thr[i]);
}

/* The scales of K block bs_k into set `which` when bs_more (slots
 * scale_load_a, scale_load_b). */
static void bs_emit_load(struct kb *kb, const struct bs *b, unsigned which, const char *slot)
{
	const struct bs_set *st = &b->set[which];
	kreg str = kb_reg(kb, K_B32), ko = kb_reg(kb, K_B32), i = kb_reg(kb, K_B32);
	kreg base = kb_reg(kb, K_B64), a = kb_reg(kb, K_B64);
	kb_at(kb, slot);
	for (unsigned op = 0; op < 2; op++) {
		unsigned n = op ? b->nb : 2;
		ke(kb, "\tld.param.u32 $r, [$s];\n\tmul.lo.u32 $r, $r, $r;\n"
		       "\tld.param.u64 $r, [$s];\n\tcvta.to.global.u64 $r, $r;\n",
		   str, op ? "psb_sk" : "psa_sk", ko, b->k, str, base, op ? "psb" : "psa", base, base);
		for (unsigned x = 0; x < n; x++)
			ke(kb, "\tadd.u32 $r, $r, $r;\n\tmad.wide.u32 $r, $r, 4, $r;\n"
			       "\t@$r ld.global.nc.f32 $r, [$r];\n",
			   i, op ? b->rb[x] : b->ra[x], ko, a, i, base, b->more,
			   op ? st->sb[x] : st->sa[x], a);
	}
}

/* The combined scale of a column group of conditions c0, c1 (struct
 * bs's cond) from one row's products c[0..nb): offset 0, then past each
 * B block boundary the group is past, always or by a predicate. */
static kreg bs_pick(struct kb *kb, const struct bs *b, const kreg *c, int c0, int c1)
{
	const int cond[2] = { c0, c1 };
	kreg sc = c[0];
	for (unsigned q = 0; q < 2 && q + 1 < b->nb; q++) {
		if (cond[q] == -1) {
			sc = c[q + 1];
		} else if (cond[q] >= 0) {
			kreg x = kb_reg(kb, K_F32);
			ke(kb, "\tselp.f32 $r, $r, $r, $r;\n", x, c[q + 1], sc, b->p[cond[q]]);
			sc = x;
		}
	}
	return sc;
}

/* FP8: each K block's wgmma start from zero (their own accumulation has
 * reduced precision on sm_90) and are added into f32 sums, as DeepGEMM
 * does; `sums` holds them.  Block scaling (b): times the scales of set
 * `which`. */
static void emit_promotion(struct kb *kb, kreg sums, kreg part, const char *slot,
			   const struct bs *b, unsigned which)
{
	kb_at(kb, slot);
	if (!b) {
		for (unsigned i = 0; i < sums.n; i++)
			ke(kb, "\tadd.f32 $r, $r, $r;\n", kr_at(sums, i), kr_at(sums, i),
			   kr_at(part, i));
		return;
	}
	const struct bs_set *st = &b->set[which];
	kreg c[2][BS_B_MAX];
	for (unsigned h = 0; h < 2; h++)
		for (unsigned o = 0; o < b->nb; o++) {
			c[h][o] = kb_reg(kb, K_F32);
			ke(kb, "\tmul.f32 $r, $r, $r;\n", c[h][o], st->sa[h], st->sb[o]);
		}
	/* a group's combined scale: one register for every group that lies
	 * in the same B block of every tile (the same conditions) */
	struct { int c0, c1; kreg x[2]; } pick[256 / 8];
	unsigned npick = 0;
	for (unsigned j = 0; j < sums.n / 4; j++) {
		int c0 = b->cond[j][0], c1 = b->nb > 2 ? b->cond[j][1] : -2;
		unsigned m = 0;
		while (m < npick && (pick[m].c0 != c0 || pick[m].c1 != c1))
			m++;
		if (m == npick) {
			pick[m].c0 = c0;
			pick[m].c1 = c1;
			for (unsigned h = 0; h < 2; h++)
				pick[m].x[h] = bs_pick(kb, b, c[h], c0, c1);
			npick++;
		}
		for (unsigned h = 0; h < 2; h++)
			for (unsigned e = 0; e < 2; e++) {
				kreg d = kr_at(sums, 4 * j + 2 * h + e);
				ke(kb, "\tfma.rn.f32 $r, $r, $r, $r;\n", d,
				   kr_at(part, 4 * j + 2 * h + e), pick[m].x[h], d);
			}
	}
}

/* The block-scaling registers and the slots that only it fills. */
static void bs_init(struct kb *kb, struct bs *b, const struct gemm_plan *g,
		    const struct sm90_regs *sr)
{
	memset(b, 0, sizeof *b);
	bs_plan(b, g->bn);
	for (unsigned i = 0; i < b->np; i++)
		b->p[i] = kb_reg(kb, K_PRED);
	for (unsigned h = 0; h < 2; h++)
		b->ra[h] = kb_reg(kb, K_B32);
	for (unsigned o = 0; o < b->nb; o++)
		b->rb[o] = kb_reg(kb, K_B32);
	for (unsigned w = 0; w < (g->promote_pipe ? 2u : 1u); w++) {
		for (unsigned h = 0; h < 2; h++)
			b->set[w].sa[h] = kb_reg(kb, K_F32);
		for (unsigned o = 0; o < b->nb; o++)
			b->set[w].sb[o] = kb_reg(kb, K_F32);
	}
	b->k = kb_slot_reg(kb, "bs_k", K_B32);
	b->more = kb_slot_reg(kb, "bs_more", K_PRED);
	bs_emit_tile(kb, b, sr);
	bs_emit_load(kb, b, 0, "scale_load_a");
	if (g->promote_pipe)
		bs_emit_load(kb, b, 1, "scale_load_b");
}

/* The tile origin's own registers, written at both places it is needed. */
struct origin_regs {
	kreg per_group, group, first, rows, in, tm, tn;
};

/* Tile `tile` of the grouped order -> its first row m0 and column n0:
 * tiles go down `group` tile rows, then one tile column to the right.
 * Reads and writes the template's registers (sr); written at both places
 * it is needed. */
static void emit_tile_origin(struct kb *kb, const struct gemm_plan *g, const struct sm90_regs *sr,
			     const struct origin_regs *o, const char *slot)
{
	kb_at(kb, slot);
	ke(kb, "\t// tile origin: $r -> $r, $r\n"
	       "\tmul.lo.u32 $r, $r, $u;\n"
	       "\tdiv.u32 $r, $r, $r;\n"
	       "\tmul.lo.u32 $r, $r, $u;\n"
	       "\tsub.u32 $r, $r, $r;\n"
	       "\tmin.u32 $r, $r, $u;\n",
	   sr->tile, sr->m0, sr->n0,
	   o->per_group, sr->tiles_n, g->group,
	   o->group, sr->tile, o->per_group,
	   o->first, o->group, g->group,
	   o->rows, sr->tiles_m, o->first,
	   o->rows, o->rows, g->group);
	ke(kb, "\trem.u32 $r, $r, $r;\n"
	       "\trem.u32 $r, $r, $r;\n"
	       "\tadd.u32 $r, $r, $r;\n"
	       "\tdiv.u32 $r, $r, $r;\n"
	       "\tmul.lo.u32 $r, $r, $u;\n"
	       "\tmul.lo.u32 $r, $r, $u;\n"
	       "\t// tile origin end\n",
	   o->in, sr->tile, o->per_group,
	   o->tm, o->in, o->rows,
	   o->tm, o->tm, o->first,
	   o->tn, o->in, o->rows,
	   sr->m0, o->tm, g->bm * g->cluster,
	   sr->n0, o->tn, g->bn);
}

/* The constant bits of an operand's wgmma descriptor, 128-byte swizzle.
 * K-major: 8-row groups 1024 bytes apart (SBO), LBO unused (16).
 * MN-major (PTX's canonical MN-major layout, as gen/emit/smem.c has it): a
 * 128-byte row holds 64 M/N elements of one K, 8 K rows make a 1024-byte
 * atom; SBO is the step between 8-row groups of K (1024, the box's rows
 * follow each other), LBO the step between atoms along M/N (the next
 * TMA box, MN_BOX_BYTES). */
static mmagen_status operand_desc(int mn, uint64_t *bits)
{
	mmagen_wgmma_sdesc sd = { .lbo = mn ? MN_BOX_BYTES : 16, .sbo = 8 * SWIZZLE_BYTES,
				  .swizzle = SWIZZLE_BYTES };
	return mmagen_wgmma_sdesc_encode(&sd, bits);
}

/* The producer's TMA loads of an MN-major operand (layouts nn, nt, tt):
 * boxes of MN_BOX elements of M (A) or N (B) by the K block, MN_BOX_BYTES
 * apart from the stage's start (off).  A takes GEMM_BM / MN_BOX boxes
 * at m0; B takes bn / MN_BOX at n0, or with a cluster, this CTA's half
 * of them, multicast into both CTAs (as the K-major B).  Uses the
 * template's off, x (K), m0, n0, tma, tmb, bar, rank, mask. */
static void emit_mn_loads(struct kb *kb, const struct gemm_plan *g, const struct sm90_regs *sr)
{
	static const char load[] =
		"\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";
	if (!g->a_mn && !g->b_mn)
		return;
	kreg dst = kb_reg(kb, K_B32), mn = kb_reg(kb, K_B32);
	if (g->a_mn) {
		kb_at(kb, "load_a_mn");
		for (unsigned i = 0; i < GEMM_BM / MN_BOX; i++) {
			ke(kb, "\tadd.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $u;\n", dst, sr->off,
			   i * MN_BOX_BYTES, mn, sr->m0, i * MN_BOX);
			ke(kb, "$s [$r], [$r, {$r, $r}], [$r];\n", load, dst, sr->tma, mn, sr->x,
			   sr->bar);
		}
	}
	if (!g->b_mn)
		return;
	kb_at(kb, "load_b_mn");
	unsigned boxes = g->bn / MN_BOX / g->cluster;
	kreg base = kb_reg(kb, K_B32), n = kb_reg(kb, K_B32);
	if (g->cluster == 2)
		ke(kb, "\tmad.lo.u32 $r, $r, $u, $r;\n\tmad.lo.u32 $r, $r, $u, $r;\n",
		   base, sr->rank, boxes * MN_BOX_BYTES, sr->off, n, sr->rank, boxes * MN_BOX,
		   sr->n0);
	else
		ke(kb, "\tmov.u32 $r, $r;\n\tmov.u32 $r, $r;\n", base, sr->off, n, sr->n0);
	for (unsigned i = 0; i < boxes; i++) {
		ke(kb, "\tadd.u32 $r, $r, $u;\n\tadd.u32 $r, $r, $u;\n", dst, base,
		   i * MN_BOX_BYTES, mn, n, i * MN_BOX);
		if (g->cluster == 2)
			ke(kb, "$s.multicast::cluster [$r], [$r, {$r, $r}], [$r], $r;\n", load,
			   dst, sr->tmb, mn, sr->x, sr->bar, sr->mask);
		else
			ke(kb, "$s [$r], [$r, {$r, $r}], [$r];\n", load, dst, sr->tmb, mn, sr->x,
			   sr->bar);
	}
}

static mmagen_status set_sizes(struct kb *kb, const struct gemm_plan *g)
{
	kb_set(kb, "bm", "$u", g->bm);
	kb_set(kb, "bn", "$u", g->bn);
	kb_set(kb, "bk", "$u", g->bk);
	kb_set(kb, "bm_log2", "$u", gemm_log2u(g->bm));
	kb_set(kb, "bk_log2", "$u", gemm_log2u(g->bk));
	kb_set(kb, "bm_minus_1", "$u", g->bm - 1);
	kb_set(kb, "bn_minus_1", "$u", g->bn - 1);
	kb_set(kb, "bk_minus_1", "$u", g->bk - 1);
	kb_set(kb, "stages", "$u", g->stages);
	kb_set(kb, "stages_x8", "$u", 8 * g->stages);
	kb_set(kb, "b_offset", "$u", g->stages * g->a_stage);
	kb_set(kb, "bar_offset", "$u", g->stages * (g->a_stage + g->b_stage) + g->d_stage);
	kb_set(kb, "stage_bytes", "$u", g->a_stage + g->b_stage);
	kb_set(kb, "a_stage_bytes", "$u", g->a_stage);
	kb_set(kb, "b_stage_bytes", "$u", g->b_stage);
	kb_set(kb, "a_stage_units", "$u", g->a_stage / 16);
	kb_set(kb, "b_stage_units", "$u", g->b_stage / 16);
	kb_set(kb, "a_wg_bytes", "$u", 64 * SWIZZLE_BYTES);
	kb_flag(kb, "cluster", g->cluster == 2);
	/* the consumer warps of the cluster that read a stage: those of both
	 * warpgroups, or ping-pong, of one */
	kb_set(kb, "empty_count", "$u", (g->pingpong ? 4u : 8u) * g->cluster);
	kb_flag(kb, "pingpong", g->pingpong);
	kb_set(kb, "b_half_bytes", "$u", g->b_stage / 2);
	kb_set(kb, "b_half_rows", "$u", g->bn / 2);
	kb_set(kb, "producer_regs", "$u", PRODUCER_REGS);
	kb_set(kb, "consumer_regs", "$u", CONSUMER_REGS);
	kb_flag(kb, "a_mn", g->a_mn);
	kb_flag(kb, "b_mn", g->b_mn);
	kb_set(kb, "a_major", "$s", g->a_mn ? "M x K, M-major" : "M x K, K-major");
	kb_set(kb, "b_major", "$s", g->b_mn ? "K x N, N-major" : "N x K, K-major");
	uint64_t da = 0, db = 0;
	mmagen_status s = operand_desc(g->a_mn, &da);
	if (!s)
		s = operand_desc(g->b_mn, &db);
	kb_set(kb, "desc_a_bits", "$X", da);
	kb_set(kb, "desc_b_bits", "$X", db);
	return s;
}

mmagen_status gemm_emit_sm90(const struct gemm_plan *g, struct buf *out)
{
	struct kb kb;
	struct instr in;
	struct ep e = { .esize = mmagen_type_bits(g->req.out) / 8,
			.x = { .out = g->req.out, .acc = g->acc, .cvt_bf16 = 1 },
			.bufs = g->d_bufs,
			.chunks = g->bn * (mmagen_type_bits(g->req.out) / 8) / SWIZZLE_BYTES *
				  (g->pingpong ? 2 : 1), .pingpong = g->pingpong,
			.d_off = g->stages * (g->a_stage + g->b_stage), .staged = g->d_stage != 0 };
	char op[256];

	kb_init(&kb, "gemm_sm90");
	instr_of(g->form, &in);
	kb_bind(&kb, &in);
	kb_set(&kb, "kernel", "$s", GEMM_KERNEL_NAME);
	kb_set(&kb, "arch", "$s", mmagen_target_name(g->req.target));
	kb_set(&kb, "a_type", "$t", g->req.a);
	kb_set(&kb, "b_type", "$t", g->req.b);
	kb_set(&kb, "d_type", "$t", g->req.out);
	kb_set(&kb, "mma_shape", "$s", mmagen_form_opcode(g->form, op, sizeof op));
	kb_set(&kb, "mma_per_kblock", "$u", g->bk / g->mma_k);
	mmagen_status s = set_sizes(&kb, g);
	if (s) {
		kb_free(&kb);
		return s;
	}
	/* the registers the template shares with C: its slots {{thread}} .. */
	struct sm90_regs sr = {
		.thread = kb_slot_reg(&kb, "thread", K_B32), .wg = kb_slot_reg(&kb, "wg", K_B32),
		.warp = kb_slot_reg(&kb, "warp", K_B32), .lane = kb_slot_reg(&kb, "lane", K_B32),
		.tile = kb_slot_reg(&kb, "tile", K_B32),
		.tiles_m = kb_slot_reg(&kb, "tiles_m", K_B32),
		.tiles_n = kb_slot_reg(&kb, "tiles_n", K_B32),
		.m0 = kb_slot_reg(&kb, "m0", K_B32), .n0 = kb_slot_reg(&kb, "n0", K_B32),
		.rank = kb_slot_reg(&kb, "rank", K_B32), .off = kb_slot_reg(&kb, "off", K_B32),
		.bar = kb_slot_reg(&kb, "bar", K_B32), .empty = kb_slot_reg(&kb, "empty", K_B32),
		.x = kb_slot_reg(&kb, "x", K_B32), .t = kb_slot_reg(&kb, "t", K_B32),
		.tma = kb_slot_reg(&kb, "tma", K_B64), .tmb = kb_slot_reg(&kb, "tmb", K_B64),
		.mask = kb_slot_reg(&kb, "mask", K_B16),
	};
	struct origin_regs org = {
		.per_group = kb_reg(&kb, K_B32), .group = kb_reg(&kb, K_B32),
		.first = kb_reg(&kb, K_B32), .rows = kb_reg(&kb, K_B32), .in = kb_reg(&kb, K_B32),
		.tm = kb_reg(&kb, K_B32), .tn = kb_reg(&kb, K_B32),
	};
	e.sr = &sr;
	emit_tile_origin(&kb, g, &sr, &org, "tile_origin_p");
	emit_tile_origin(&kb, g, &sr, &org, "tile_origin_c");
	emit_mn_loads(&kb, g, &sr);
	gemm_entry_params(&kb, g);
	kb_set(&kb, "d_scale_note", "$s", gemm_is_fp8(g->req.out) ?
	       "//   then D = satfinite(d_scale * D): d_scale is the kernel's last parameter\n" : "");
	kb_at(&kb, "header");
	/* setmaxnreg and cvta.param need PTX 8.0 */
	unsigned v = mmagen_form_min_ptx(g->form, g->req.target);
	emit_header(kb_buf(&kb), g->req.target, v < 80 ? 80 : v);
	kreg da = kb_slot_reg(&kb, "da", K_B64), db = kb_slot_reg(&kb, "db", K_B64);
	kreg accumulate = kb_slot_reg(&kb, "accumulate", K_PRED);
	kreg always = kb_reg(&kb, K_PRED);
	kreg acc = tile_find_op(&in, "d")->reg;
	e.row = kb_slot_reg(&kb, "row", K_B32);
	e.col = kb_slot_reg(&kb, "col", K_B32);
	kb_at(&kb, "epilogue_setup");
	emit_epilogue_setup(&kb, &e);
	ke(&kb, "\tsetp.eq.u32 $r, 0, 0;\n", always);
	kb_flag(&kb, "promote", g->promote);
	kb_set(&kb, "promote_mask", "$u", g->promote_every - 1);
	kb_set(&kb, "promote_every", "$u", g->promote_every);
	kb_flag(&kb, "promote_interval", g->promote_every > 1);
	kb_set(&kb, "promote_half", "$u", g->promote_every / 2);
	/* a consumer warp hands stage t / 8 back to the producer(s) */
	kb_at(&kb, "release");
	ke(&kb, "\tadd.u32 $r, $r, $r;\n", sr.bar, sr.empty, sr.t);
	if (g->cluster == 2)
		ke(&kb, "\t// both CTAs' producers write this stage: release it in both\n"
		       "\t// (at CTA scope, as CUTLASS does: the stage was only read, by\n"
		       "\t// wgmma, and wait_group has seen those reads finish; a cluster-\n"
		       "\t// scope release fences every store in flight and cost 30% here)\n"
		       "\tmapa.shared::cluster.u32 $r, $r, 0;\n"
		       "\tmbarrier.arrive.shared::cluster.b64 _, [$r];\n"
		       "\tmapa.shared::cluster.u32 $r, $r, 1;\n"
		       "\tmbarrier.arrive.shared::cluster.b64 _, [$r];\n",
		   sr.x, sr.bar, sr.x, sr.x, sr.bar, sr.x);
	else
		ke(&kb, "\tmbarrier.arrive.shared::cta.b64 _, [$r];\n", sr.bar);
	kb_at(&kb, "tile_start");
	kreg spare = { 0 };
	kreg part_b = { 0 };
	struct bs bs;
	kb_flag(&kb, "block_scale", g->block_scale);
	if (g->block_scale)
		bs_init(&kb, &bs, g, &sr);
	if (g->promote) {
		kreg sums = kb_regs(&kb, K_F32, acc.n);
		kb_at(&kb, "tile_start");
		for (unsigned i = 0; i < sums.n; i++)
			ke(&kb, "\tmov.f32 $r, 0f00000000;\n", kr_at(sums, i));
		emit_promotion(&kb, sums, acc, "promote_sums", g->block_scale ? &bs : NULL, 0);
		if (g->promote_pipe) {
			part_b = kb_regs(&kb, K_F32, acc.n);
			emit_promotion(&kb, sums, part_b, "promote_sums_b",
				       g->block_scale ? &bs : NULL, 1);
		}
		/* wgmma's partial sums: dead after the last promotion (of two
		 * sets the second: split-K's loads into the first made ptxas
		 * serialize every wgmma, C7515) */
		spare = g->promote_pipe ? part_b : acc;
		acc = sums;
	}
	kb_flag(&kb, "promote_pipe", g->promote_pipe);
	/* ping-pong: rows 64-127's accumulators */
	kreg acc2 = { 0 };
	if (g->pingpong)
		acc2 = kb_regs(&kb, (enum kclass)acc.cls, acc.n);
	kb_at(&kb, "mma");
	emit_kblock(&kb, g, &in, da, db, accumulate, always, acc2);
	if (g->promote_pipe) {
		/* the second K block of a pair, into the second partial sums */
		tile_find_op(&in, "d")->reg = part_b;
		kb_at(&kb, "mma_b");
		emit_kblock(&kb, g, &in, da, db, accumulate, always, acc2);
	}
	kb_at(&kb, "epilogue");
	emit_epilogue(&kb, g, &e, acc, acc2);
	kb_flag(&kb, "split", g->split_kernel);
	if (g->split_kernel)
		gemm_sm90_split_emit(&kb, g, &sr, acc, spare, e.row, e.m);
	return kb_render(&kb, out);
}
