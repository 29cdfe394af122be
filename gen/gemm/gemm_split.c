/* gemm_split.c - split-K on the wgmma GEMM: the default S, the shape's
 * choice of tile, cluster and S (mmagen_gemm_choose), and the sizes of
 * the workspace and counters.  The request's rule and the work units' K
 * ranges are gemm_plan.c's; the kernel's side is
 * templates/gemm_sm90.ptx.in (the units) and kernel_gemm_sm90_split.c
 * (the reduction). */
#include "gemm_plan.h"

#include <stddef.h>

/* The cost model behind the automatic S (mmagen_gemm_split_for) and the
 * shape's choice of tile N, cluster and S (mmagen_gemm_choose), fitted to
 * bf16 runs on the H200 (squares 1024-2048, M 16 and 128 of the LLM
 * shapes, every tile N 64/128/256 x cluster 1/2 x S 1/2/4/8; the model's
 * picks were 2% slower than the fastest on average, the old rule's up
 * to 3x).  Times in ns:
 *   unit  = LATENCY + K blocks per unit * max(compute, load)
 *   compute: the rows that are inside M (whole warpgroups of 64) times
 *            tile N times tile K, at SM_FLOPS per ns (per type class)
 *   load:   A's rows inside M and B's tile (half of it with a cluster,
 *            the other CTA multicasts the rest) per K block, at
 *            min(SM_BW, GPU_BW / busy CTAs) bytes per ns
 *   total = waves * unit + (S > 1: the last CTA's read of S partial
 *            tiles at REDUCE_BW, and SPLIT_SYNC for the handshake).
 * The constants were fitted to the ranking of the measured choices (the
 * picks 2% slower than the fastest on average, 13% at worst), not to the
 * absolute times.
 * Split-K is only ever chosen for one wave of units: every further wave
 * repeats the partial store, its release and the counter's round trip
 * (2048^3 with S 8 in 8 waves ran 28x slower than unsplit). */
#define AUTO_MAX 16u
#define LATENCY 500.0           /* ns per unit: pipeline fill, epilogue */
#define SPLIT_SYNC 10000.0      /* ns: partial stores, release, counter */
#define SM_BW 20.0              /* bytes per ns that one CTA streams */
#define GPU_BW 3000.0           /* bytes per ns of the whole GPU */
#define REDUCE_BW 15.0          /* bytes per ns of the last CTA's partial reads */

static double sm_flops(unsigned ea)
{
	return ea == 1 ? 6000.0 : ea == 4 ? 1500.0 : 3000.0;   /* per ns */
}

struct cost_in {
	uint64_t m, n, k;
	unsigned tile_m, tile_n, tile_k, cluster, ea, eb, sms, stages;
	unsigned promote;       /* FP8: K blocks per promotion of the partial sums
				 * into f32 (--promote / tile K); 0: none */
};

static uint64_t cdiv(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Streaming shapes (M <= 128, or a tile M of 16, 32 or 64: the GEMM is
 * a stream of B through few tile rows), fitted to bf16 and e4m3 runs on
 * the H200 (M 16 and 128 of the LLM shapes, tile M 16/64/128 x tile N
 * 64/128/256 x S 1/2/4 x 8/12/16 stages; the model's picks 4% slower
 * than the fastest on average, 22% at worst: e4m3 128 x 4096 x 14336,
 * whose split costs more than the model says).  Times in ns:
 *   per K block = max(stage bytes / the CTA's stream rate, one
 *                 warpgroup's wgmma on the block (warpgroups run side
 *                 by side) at STREAM_WG_FLOPS (FP8/INT8 twice that))
 *   the CTA's stream rate = min(its bytes in flight (stages) /
 *                 STREAM_LAT, STREAM_CTA_BW); FP8 at least
 *                 STREAM_PROMOTE_PER_N * tile N
 *   total = STREAM_FIXED + max(waves * K blocks per unit * per K block,
 *           the unique bytes of A and B / STREAM_DRAM_BW)
 *           + STREAM_SPLIT per slice past the first.
 * The DRAM term is what made 64-row tiles win at M = 128: two CTAs read
 * each column of B at once and L2 serves the second read (128 x 4096 x
 * 4096 bf16: 64x64 tiles 16.4 us, 128x128 with 2 slices 23.9, cuBLASLt
 * 16.7).  At most 2 slices: 4 was never faster (3-5 us per slice). */
#define STREAM_FIXED 3000.0     /* ns: launch gap, pipeline fill, epilogue */
#define STREAM_LAT 1600.0       /* ns: a stage's round trip */
#define STREAM_CTA_BW 110.0     /* bytes per ns one CTA streams at most */
#define STREAM_DRAM_BW 3300.0   /* bytes per ns of unique A and B */
#define STREAM_WG_FLOPS 5000.0  /* 16-bit flops per ns of one warpgroup */
#define STREAM_SPLIT 5000.0     /* ns per slice past the first */
#define STREAM_SPLIT_MAX 2u
/* FP8 waits for each K block's wgmma before it promotes their sums: a
 * K block takes at least that round trip, which grows with tile N
 * (e4m3 x 4096 x 14336 on the H200: 16x64 and 64x64 tiles 27.6 and
 * 28.0 us whatever the stages, 112 blocks of ~220 ns; 64x128 tiles in 2
 * slices 30.8 us, 56 blocks of ~400 ns) */
#define STREAM_PROMOTE_PER_N 3.44   /* ns per column of tile N */

/* The work units of S slices (S at most the K blocks), as the kernel
 * walks them on the split grid (min(SMs, CTA tiles * S) CTAs): the whole
 * waves of whole tiles first (`whole_waves`, none when the tiles are
 * fewer than the CTAs), then the tail's tiles in S units each.  CTA
 * tiles in whole clusters; the CTAs busy, all the waves, the tail's
 * waves, K blocks per whole tile and per tail unit. */
struct work {
	unsigned s;
	uint64_t units, busy, waves, whole_waves, tail_waves, kblocks, per_unit;
	int full;               /* tiles enough for the whole grid: S splits the tail only */
};

static struct work work_of(const struct cost_in *c, unsigned s)
{
	uint64_t cl = c->cluster ? c->cluster : 1;
	uint64_t tiles = cdiv(cdiv(c->m, c->tile_m), cl) * cl * cdiv(c->n, c->tile_n);
	uint64_t kblocks = cdiv(c->k, c->tile_k);
	struct work w = { .s = s > kblocks ? (unsigned)kblocks : s, .kblocks = kblocks };
	uint64_t most = c->sms / cl * cl;
	if (!most)
		most = cl;
	uint64_t grid = tiles * w.s < most ? tiles * w.s : most;
	uint64_t whole = tiles / grid * grid;
	w.units = whole + (tiles - whole) * w.s;
	w.busy = grid;
	w.whole_waves = whole / grid;
	w.tail_waves = cdiv((tiles - whole) * w.s, grid);
	w.waves = w.whole_waves + w.tail_waves;
	w.per_unit = cdiv(kblocks, w.s);
	w.full = tiles >= most;
	return w;
}

/* The streaming model's domain, one answer per problem so that the
 * chooser never weighs one model's time against the other's: tiles of
 * fewer than 128 rows, or M up to 128 with N of 2048 or more (a quarter
 * wave of 64-column tiles; with fewer, splitting K is the only
 * parallelism, and the large-tile model's many slices stand). */
static int stream_shape(uint64_t m, uint64_t n)
{
	return m <= 128 && n >= 2048;
}

static int streaming(const struct cost_in *c)
{
	return c->tile_m < 128 || stream_shape(c->m, c->n);
}

static double cost_stream(const struct cost_in *c, unsigned s, uint64_t *units_out)
{
	/* tiles in whole clusters: with M <= tile M a cluster's second CTA
	 * has no rows inside M, yet it holds a multiprocessor (without this,
	 * cluster 1 and 2 cost the same and the tie went to cluster 2) */
	struct work w = work_of(c, s);
	double stage = ((double)c->tile_m * c->ea + (double)c->tile_n * c->eb) * c->tile_k;
	double rate = (c->stages ? c->stages : 4) * stage / STREAM_LAT;
	if (rate > STREAM_CTA_BW)
		rate = STREAM_CTA_BW;
	double flops = STREAM_WG_FLOPS * (c->ea == 1 && c->eb == 1 ? 2.0 : c->ea == 4 ? 0.5 : 1.0);
	double compute = 2.0 * 64 * c->tile_n * c->tile_k / flops;
	double block = stage / rate > compute ? stage / rate : compute;
	/* one wait per promotion, shared by its interval's K blocks; tiles
	 * of 16-64 rows up to 128 wide that promote every block take blocks
	 * in pairs, one pair's wait per two blocks (kernel_gemm_sm90.c; e4m3
	 * 128 x 4096 x 14336 on the H200: 64x64 tiles 23.1 us, where the
	 * unpaired floor chose 128x64 in 2 slices, 24.9) */
	double floor = c->promote ? STREAM_PROMOTE_PER_N * c->tile_n / c->promote : 0;
	if (gemm_fp8_pairs(c->promote, c->tile_m, c->tile_n))
		floor /= 2;
	if (block < floor)
		block = floor;
	double ctas = ((double)w.whole_waves * (double)w.kblocks +
		       (double)w.tail_waves * (double)w.per_unit) * block;
	double dram = ((double)c->m * c->ea + (double)c->n * c->eb) * (double)c->k / STREAM_DRAM_BW;
	*units_out = w.units;
	return STREAM_FIXED + (ctas > dram ? ctas : dram) + (double)(w.s - 1) * STREAM_SPLIT;
}

/* Splitting the tail (tiles past whole waves of the grid, which the
 * kernel alone splits): the run's time by a model of measured absolute
 * times on the H200 (1980 MHz; 5 whole waves of e4m3 128x192 tiles took
 * 18.7 us each, a bf16 128x256 K block 0.72 us at 8192^3):
 *   whole tile = K blocks * tile flops per K block / TAIL_SM_FLOPS
 *   tail unit  = its K blocks likewise + TAIL_FIX (partial store,
 *                release, counter, the last slice's epilogue wait)
 *                + S slots read by the last slice, each
 *                max(TAIL_RT per batch of loads (FP8 loads a slot at
 *                once into its spent partial sums; others 4 chunks of
 *                16 bytes at a time), slot bytes / TAIL_BW)
 *   run = whole waves * whole tile + tail waves * tail unit.
 * Fitted to e4m3 4096^3 (S 1-4: 112.1, 109.1, 107.5, 118.6 us), e4m3
 * 4096 x 4096 x 14336 (S 3: 8% faster), bf16 4096 x 14336 x 4096 (S 2,
 * 3: 1-3% slower) and 4096^3 with S 9 (2.9x slower: 36 round trips per
 * slot then).  cost() scales the fitted model's unsplit time by this
 * model's ratio, so that tiles are still ranked by the fitted model. */
#define TAIL_FIX 4500.0         /* ns per tail unit */
#define TAIL_RT 500.0           /* ns per batch of a slot's loads */
#define TAIL_BW 100.0           /* bytes per ns of one CTA's slot reads */
#define TAIL_BATCH 4u           /* chunks per batch without FP8 (kernel_gemm_sm90_split.c) */

static double tail_sm_flops(unsigned ea)
{
	return ea == 1 ? 10800.0 : ea == 4 ? 2900.0 : 5800.0;   /* per ns */
}

static double tail_run(const struct cost_in *c, unsigned s)
{
	struct work w = work_of(c, s);
	double blk = 2.0 * c->tile_m * c->tile_n * c->tile_k / tail_sm_flops(c->ea);
	double t = (double)w.whole_waves * (double)w.kblocks * blk;
	if (w.s <= 1)
		return t + (double)w.tail_waves * (double)w.kblocks * blk;
	unsigned chunks = c->tile_n / 8, batch = c->promote ? chunks : TAIL_BATCH;
	double slot_bytes = 128.0 * c->tile_n * 4.0;
	double trips = TAIL_RT * (double)cdiv(chunks, batch ? batch : 1);
	double slot = trips > slot_bytes / TAIL_BW ? trips : slot_bytes / TAIL_BW;
	double unit = (double)w.per_unit * blk + TAIL_FIX + (double)w.s * slot;
	return t + (double)w.tail_waves * unit;
}

/* Estimated ns for S slices; *units_out: the work units */
static double cost(const struct cost_in *c, unsigned s, uint64_t *units_out)
{
	if (streaming(c))
		return cost_stream(c, s, units_out);
	if (s > 1 && work_of(c, 1).full) {
		/* whole waves and a split tail */
		double t1 = cost(c, 1, units_out);
		*units_out = work_of(c, s).units;
		return t1 * tail_run(c, s) / tail_run(c, 1);
	}
	uint64_t cl = c->cluster ? c->cluster : 1;
	struct work w = work_of(c, s);
	uint64_t units = w.units, busy = w.busy;
	s = w.s;
	uint64_t rows = c->m < c->tile_m ? c->m : c->tile_m;
	double crows = (double)(cdiv(rows, 64) * 64);
	double compute = crows * c->tile_n * c->tile_k * 2.0 / sm_flops(c->ea);
	double bw = GPU_BW / (double)busy < SM_BW ? GPU_BW / (double)busy : SM_BW;
	double load = ((double)rows * c->tile_k * c->ea +
		       (double)c->tile_n * c->tile_k * c->eb / (double)cl) / bw;
	double blk = compute > load ? compute : load;
	double t = (double)w.whole_waves * (LATENCY + (double)w.kblocks * blk) +
		   (double)w.tail_waves * (LATENCY + (double)w.per_unit * blk);
	if (s > 1 && w.tail_waves)
		t += SPLIT_SYNC + (double)s * (double)rows * c->tile_n * 4.0 / REDUCE_BW;
	*units_out = units;
	return t;
}

/* The best S for a fixed kernel: at most AUTO_MAX slices, each at least
 * `stages` K blocks, one wave of units when S > 1; ties keep the smaller
 * S.  *t_out: its estimated ns. */
static unsigned best_split(const struct cost_in *c, unsigned stages, double *t_out)
{
	uint64_t kblocks = cdiv(c->k, c->tile_k), units;
	uint64_t most = kblocks / (stages ? stages : 1);
	unsigned best = 1;
	double best_t = cost(c, 1, &units);
	if (most > AUTO_MAX)
		most = AUTO_MAX;
	if (streaming(c) && most > STREAM_SPLIT_MAX)
		most = STREAM_SPLIT_MAX;
	/* streaming shapes split only when every tile is split (fitted so);
	 * past whole waves the tail is split automatically for FP8 alone, the
	 * only kernels where it was measured faster (bf16 4096 x 14336 x 4096:
	 * 1-3% slower; tf32 8192^3 unchanged) */
	if (work_of(c, 1).full && (streaming(c) || !c->promote))
		most = 1;
	for (unsigned s = 2; s <= most; s++) {
		double t = cost(c, s, &units);
		/* with fewer tiles than CTAs every tile is split: one wave of
		 * units at most (more waves repeat the reduction); past whole
		 * waves only the tail is, in as many waves as pay */
		if (!work_of(c, s).full && units > c->sms)
			break;
		if (t < best_t)
			best = s, best_t = t;
	}
	*t_out = best_t;
	return best;
}

static int is_split_kernel(const mmagen_gemm_info *i)
{
	return i && i->size >= offsetof(mmagen_gemm_info, elem_bits_a) && i->path == MMAGEN_GEMM_PATH_WGMMA &&
	       i->split_k != 1 && i->tile_m && i->tile_n && i->tile_k;
}

/* CTA tiles: whole clusters of tile rows times tile columns */
static uint64_t cta_tiles(const mmagen_gemm_info *i, uint32_t m, uint32_t n)
{
	uint64_t cl = i->cluster[0] ? i->cluster[0] : 1;
	uint64_t rows = ((uint64_t)m + i->tile_m - 1) / i->tile_m;
	return (rows + cl - 1) / cl * cl * (((uint64_t)n + i->tile_n - 1) / i->tile_n);
}

/* FP8's K blocks per promotion (info from an older mmagen.h, or one that
 * held 1 for "promotes every K block": 1); 0 for other kernels */
static unsigned promote_blocks(const mmagen_gemm_info *i)
{
	if (i->size < offsetof(mmagen_gemm_info, fp8_promote) + sizeof i->fp8_promote ||
	    !i->fp8_promote)
		return 0;
	unsigned b = i->tile_k ? i->fp8_promote / i->tile_k : 1;
	return b ? b : 1;
}

static struct cost_in cost_of(const mmagen_gemm_info *i, uint32_t m, uint32_t n, uint32_t k,
			      unsigned sms)
{
	return (struct cost_in){ .m = m, .n = n, .k = k, .tile_m = i->tile_m,
				 .tile_n = i->tile_n, .tile_k = i->tile_k,
				 .cluster = i->cluster[0] ? i->cluster[0] : 1,
				 .ea = i->elem_bytes_a ? i->elem_bytes_a : 1,
				 .eb = i->elem_bytes_b ? i->elem_bytes_b : 1, .sms = sms,
				 .stages = i->stages,
				 .promote = promote_blocks(i) };
}

unsigned mmagen_gemm_split_for(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
			       uint32_t k, unsigned sms)
{
	if (!is_split_kernel(info) || !m || !n || !k || !sms)
		return 1;
	struct cost_in c = cost_of(info, m, n, k, sms);
	double t;
	return best_split(&c, info->stages, &t);
}

/* The mma.sync path (sm_80-89, SM120, --path mma.sync): a CTA of
 * (tile M / 64) x (tile N / 64) warps, each warp a 64 x 64 piece for all
 * of its K slice; at most 8 warps on a multiprocessor (about 240
 * registers a thread) and as many CTAs as shared memory holds; 4
 * schedulers, each a tensor pipe.  A tile and K slices S (1 to 16, at
 * least 8 units of 128 bytes of K each, only as many as fit in one wave
 * of resident CTAs) of the least estimated time, in units of one warp's
 * 64 x 64 x 128 bytes of K:
 *   waves x (K units / S + 2) x max(1, warps on an SM / 4)
 *     + 8 (1 + S / 2) for a split (each slice's slot written, the last
 *       one's reads and adds),
 * times 1 + 0.1 (M' + N') 64 / (M' x N'), M' and N' the tile's M and N,
 * or M and N rounded up to 16 where less: the bytes a tile loads per flop
 * (on a tie, the tile of fewer warps).  M <= 64 takes tile M 64 (a warp's rows past M
 * still run its mma) and N 64 or 128 (64x256, H200: 22.5 TFLOP/s against
 * 25.6 in 64x128 at 16 x 4096 x 4096, 39.5 against 42.8 at 16 x 4096 x
 * 14336, each in the slices it would take).  The default stages (the generator's).  Fitted on
 * the H200 (bf16 and s8, `run gemm --bench`, tiles 64x64, 64x128,
 * 128x128 at S 1, 2, 3, 4, 6, 8 for M 16 and 128 x N 4096, 14336 x K
 * 4096, 14336): its picks reach 0.93-1.0 of the fastest of each shape's
 * 18 (geometric mean 0.98; slices of at least 16 units, as first
 * fitted on bf16 alone, kept s8 at K 4096 whole: 0.72 and 0.81 of the
 * fastest at M 16 and 128), where the rule before (the tile feeding the
 * most pipes, S = SMs / tiles, and with fewer CTAs than SMs up to 16
 * stages) reached 0.40-0.95 (mean 0.71; 128 x 4096 x 14336: 123.5 TFLOP/s
 * against 308.4 in 128x128 tiles and 4 slices).  More stages for a CTA
 * alone on its SM were slower where tried (then in 64-byte rows: 128 x
 * 14336 x 4096 in 14 stages 316.6 against 340.7 in 4, 2048^3 391.4
 * against 404.4). */
#define SYNC_CTA_UNITS 2.0      /* a CTA's fill and epilogue */
#define SYNC_SPLIT_UNITS 8.0    /* a split's slots */
#define SYNC_SLICE_MIN 8        /* 128-byte units of K a slice has at least */
static mmagen_status choose_sync(mmagen_gemm_request *req, uint32_t m, uint32_t n, uint32_t k,
				 unsigned sms)
{
	static const unsigned cand[][2] = { { 128, 256 }, { 256, 128 }, { 128, 128 },
					    { 64, 256 }, { 256, 64 }, { 64, 128 }, { 128, 64 },
					    { 64, 64 } };
	mmagen_gemm_request best = *req;
	double best_cost = 0;
	int found = 0;
	uint64_t sm_smem = gemm80_smem_limit(req->target) + 1024;
	for (unsigned i = 0; i < sizeof cand / sizeof cand[0]; i++) {
		if ((req->tile_m && req->tile_m != cand[i][0]) ||
		    (req->tile_n && req->tile_n != cand[i][1]) ||
		    (!req->tile_m && m <= 64 && cand[i][0] != 64) ||
		    (!req->tile_n && m <= 64 && cand[i][1] > 128))
			continue;
		mmagen_gemm_request r = *req;
		mmagen_gemm_info info = { .size = sizeof info };
		r.tile_m = cand[i][0];
		r.tile_n = cand[i][1];
		r.split_k = req->split_k ? req->split_k : 1;
		if (mmagen_gemm_info_of(&r, &info))
			continue;
		uint64_t w = (uint64_t)r.tile_m * r.tile_n / 4096;
		uint64_t per_sm = 8 / w ? 8 / w : 1, by_smem = sm_smem / (info.smem + 1024);
		if (by_smem < per_sm)
			per_sm = by_smem ? by_smem : 1;
		uint64_t tiles = cdiv(m, r.tile_m) * cdiv(n, r.tile_n);
		uint64_t bits = info.elem_bits_a ? info.elem_bits_a : 8 * info.elem_bytes_a;
		uint64_t units = cdiv((uint64_t)k * bits, 8 * 128);
		uint64_t bm = cdiv(m, 16) * 16 < r.tile_m ? cdiv(m, 16) * 16 : r.tile_m;
		uint64_t bn = cdiv(n, 16) * 16 < r.tile_n ? cdiv(n, 16) * 16 : r.tile_n;
		double traffic = 1 + 0.1 * (double)(bm + bn) * 64 / ((double)bm * bn);
		unsigned s0 = r.split_k, s1 = r.split_k;
		if (!req->split_k) {
			uint64_t room = units / SYNC_SLICE_MIN;
			s1 = room < 2 ? 1 : room > 16 ? 16 : (unsigned)room;
		}
		for (unsigned s = s0; s <= s1; s++) {
			mmagen_gemm_request rs = r;
			rs.split_k = s;
			if (s != r.split_k && mmagen_gemm_info_of(&rs, &info))
				break;           /* no split on this generator */
			uint64_t ctas = tiles * s, waves = cdiv(ctas, sms * per_sm);
			if (!req->split_k && s > 1 && waves > 1)
				break;           /* splits fill one wave, no more */
			uint64_t c = cdiv(ctas, sms) < per_sm ? cdiv(ctas, sms) : per_sm;
			double share = c * w > 4 ? (double)(c * w) / 4 : 1;
			double cost = ((double)waves * ((double)cdiv(units, s) + SYNC_CTA_UNITS) * share +
				       (s > 1 ? SYNC_SPLIT_UNITS * (1 + s / 2.0) : 0)) * traffic +
				      1e-3 * (double)w;   /* ties: fewer warps */
			if (!found || cost < best_cost)
				best = rs, best_cost = cost, found = 1;
		}
	}
	if (found)
		*req = best;               /* else the request's own choices stand */
	return MMAGEN_OK;
}

/* The wgmma path's candidates: tile N 64, 128 and the type's widest (256,
 * FP8 192), cluster 1 or 2, S by best_split; each one the generator
 * takes (mmagen_gemm_info_of) and of the least estimated time.  Cluster
 * 2 only where the tiles make three waves or more: it saves L2 traffic
 * and energy on long runs (8192^3 0.913 vs 0.900 of cuBLASLt) but a
 * short grid loses more to pairing (1024^3 0.80 vs 0.88; with M <= 128
 * the second CTA's rows are all outside M). */
/* Ping-pong (MMAGEN_GEMM_SCHED_PINGPONG) in place of the cooperative
 * pick `best` (its waves in `bw`) when the schedule, tile N and split-K
 * are left open (or split-K is 1: auto asks for the split kernel), the
 * shape does not stream (stream_shape), the pick is a 128-row tile
 * without split-K or FP8 promotion, and a ping-pong tile (N 192 or 128,
 * at most 64 columns narrower than the pick's) has at least a full wave
 * of tiles and at most PP_EDGE of the pick's work per CTA (waves x tile
 * area, the waves rounded up): one warpgroup writes D while the other's
 * wgmma run, which the fitted model above does not know.  H200, 8192^3, ncu cycles: s8 128x192 ping-pong 1.077M
 * against 1.161M (cooperative 128x256) and cuBLASLt's 1.090M; bf16
 * 2.124M against 2.190M; tf32 4.258M against 4.377M.  Time ratios to
 * cuBLASLt, same runs, cooperative -> ping-pong: s8 8192^3 (128x192)
 * 0.963 -> 1.061 and 1.045 -> 1.072, 4096 x 14336 x 4096 (128x192)
 * 0.967 -> 1.002; 2048^3 (128x256 -> 128x128) s8 1.377 -> 1.489, bf16 0.962
 * -> 1.018, f16 0.982 -> 1.023, tf32 1.045 -> 1.065.  A 128x128
 * ping-pong tile in place of a cooperative 128x256 (the same work per
 * CTA) was slower for 16-bit and tf32 (4096^3: bf16 0.987 -> 0.970,
 * f16 0.992 -> 0.959, tf32 1.013 -> 0.901), mixed for s8 (4096^3 0.968
 * -> 1.008, 4096 x 4096 x 14336 1.081 -> 1.038): hence "at most 64
 * narrower", unless the pick runs one wave (2048^3 above: 128 tiles of
 * 128x256 against 2 per CTA of 128x128, one for each warpgroup).
 * 8-bit inputs take cluster 1 (s8 128x192: 1.077M against 1.079M with
 * 2; 128x128 1.096M against 1.111M); the others keep the pick's. */
#define PP_EDGE 0.97
static void choose_pingpong(const mmagen_gemm_request *req, mmagen_gemm_request *best,
			    struct work bw, uint32_t m, uint32_t n, uint32_t k, unsigned sms)
{
	mmagen_gemm_info info = { .size = sizeof info };
	if (req->schedule || req->split_k > 1 || req->tile_n ||
	    bw.s > 1 || (best->tile_m && best->tile_m != 128) ||
	    mmagen_gemm_info_of(best, &info) || promote_blocks(&info) || stream_shape(m, n))
		return;
	double coop = (double)bw.waves * info.tile_m * info.tile_n, pp_best = 0;
	const unsigned tns[] = { 192, 128 };
	mmagen_gemm_request pick = *best;
	for (unsigned t = 0; t < 2; t++) {
		mmagen_gemm_request r = *best;
		r.schedule = MMAGEN_GEMM_SCHED_PINGPONG;
		r.tile_n = tns[t];
		r.split_k = 1;
		if (!req->cluster)
			r.cluster = info.elem_bytes_a == 1 ? 1 : best->cluster;
		mmagen_gemm_info pi = { .size = sizeof pi };
		if (mmagen_gemm_info_of(&r, &pi) || (pi.tile_n + 64 < info.tile_n && bw.waves > 1))
			continue;
		struct cost_in c = cost_of(&pi, m, n, k, sms);
		struct work w = work_of(&c, 1);
		double pp = (double)w.waves * pi.tile_m * pi.tile_n;
		if (w.full && pp * PP_EDGE < coop && (!pp_best || pp < pp_best))
			pp_best = pp, pick = r;
	}
	if (pp_best)
		*best = pick;
}

mmagen_status mmagen_gemm_choose(mmagen_gemm_request *req, uint32_t m, uint32_t n, uint32_t k,
				 unsigned sms)
{
	mmagen_gemm_info info = { .size = sizeof info };
	mmagen_status st;
	if (!req)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_gemm_choose: NULL request");
	if (!m || !n || !k || !sms)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_gemm_choose: M, N, K and the multiprocessors are at least 1 (M %u, N %u, K %u, sms %u)",
			m, n, k, sms);
	if ((st = mmagen_gemm_info_of(req, &info)))
		return st;
	if (info.path == MMAGEN_GEMM_PATH_MMA_SYNC)
		return choose_sync(req, m, n, k, sms);
	if (info.path != MMAGEN_GEMM_PATH_WGMMA)
		return MMAGEN_OK;              /* the request's own choices stand */
	unsigned wide = info.elem_bytes_a == 1 && info.elem_bytes_b == 1 &&
			(mmagen_type_class(req->a) & TYPE_FP8) ? 192 : 256;
	/* small M (up to 64) with a K-major A: a tile of 16, 32 or 64 rows,
	 * whose A box has no rows past M to fill (bf16 16 x 14336 x 4096 on
	 * the H200: 33 us against 49 with 128 rows); M up to 128: tile M 64
	 * or 128 (M = 128: twice the CTAs without split-K's reduction, 64x64
	 * tiles fastest for N 4096, 128x128 for N 14336) */
	int k_major_a = req->layout != MMAGEN_GEMM_NN && req->layout != MMAGEN_GEMM_NT;
	unsigned tms[2] = { req->tile_m, 0 }, ntm = 1;
	if (!req->tile_m && k_major_a && m <= 64)
		tms[0] = m <= 16 ? 16 : m <= 32 ? 32 : 64;
	else if (!req->tile_m && k_major_a && m <= 128 && stream_shape(m, n))
		tms[0] = 64, tms[1] = 0, ntm = 2;   /* 0: the default, 128 */
	/* a tile N the request fixed is the only one */
	const unsigned tiles[] = { req->tile_n ? req->tile_n : 64, 128, wide };
	/* streaming shapes: tile N 64 or 128 (256 was never the fastest at
	 * M = 16 or 128, 7-50% slower than 128) */
	int stream = stream_shape(m, n) || (tms[0] && tms[0] < 128);
	const unsigned ntiles = req->tile_n ? 1 : stream ? 2 : 3;
	mmagen_gemm_request best = *req;
	struct work best_w = { 0 };
	double best_t = 0;
	int found = 0;
	for (unsigned im = 0; im < ntm; im++) {
		unsigned tile_m = tms[im];
		for (unsigned t = 0; t < ntiles; t++) {
			for (unsigned cl = 1; cl <= 2; cl++) {
				if (req->cluster && req->cluster != cl)
					continue;
				mmagen_gemm_request r = *req;
				r.tile_n = tiles[t];
				r.tile_m = tile_m;
				r.cluster = cl;
				r.split_k = 1;
				if (mmagen_gemm_info_of(&r, &info))
					continue;      /* not one this generator takes */
				struct cost_in c = cost_of(&info, m, n, k, sms);
				uint64_t tiles_cl1 = cdiv(m, info.tile_m) * cdiv(n, info.tile_n);
				if (cl == 2 && !req->cluster && tiles_cl1 < 3ull * sms)
					continue;
				/* FP8 (a kernel that promotes) runs alone
				 * (kernel_gemm_sm90.c: as fast or faster at every
				 * shape timed) */
				if (cl == 2 && !req->cluster && promote_blocks(&info))
					continue;
				/* the S the kernel will run with: the one asked for;
				 * for auto (chosen at run time) and for none given, the
				 * best; 1 with f16 accumulators and ping-pong (no split
				 * kernel) */
				uint64_t units;
				double tt;
				unsigned s = req->split_k;
				unsigned run_s = s && s != MMAGEN_GEMM_SPLIT_AUTO ? s : best_split(&c, info.stages, &tt);
				if (req->acc == MMAGEN_F16 || info.schedule == MMAGEN_GEMM_SCHED_PINGPONG)
					run_s = 1;
				tt = cost(&c, run_s, &units);
				r.split_k = s ? s : run_s;
				/* ties (streaming shapes at the DRAM floor tie
				 * exactly) go to fewer waves, then to more work
				 * units (more CTAs streaming: bf16 16 x 4096 x
				 * 14336 in 2 slices, 16x64 tiles 36.6 us, 16x128
				 * 40.3), then to cluster 2, then to the wider tile:
				 * more reuse of what was loaded */
				struct work w = work_of(&c, run_s);
				if (!found || tt < best_t ||
				    (tt == best_t &&
				     (w.waves < best_w.waves ||
				      (w.waves == best_w.waves &&
				       (w.units > best_w.units ||
					(w.units == best_w.units &&
					 (cl > best.cluster ||
					  (cl == best.cluster && r.tile_n > best.tile_n))))))))
					best = r, best_t = tt, best_w = w, found = 1;
			}
		}
	}
	if (!found)
		return MMAGEN_OK;
	choose_pingpong(req, &best, best_w, m, n, k, sms);
	if (!req->tile_m)
		req->tile_m = best.tile_m;
	if (!req->tile_n)
		req->tile_n = best.tile_n;
	if (!req->cluster)
		req->cluster = best.cluster;
	if (!req->split_k)
		req->split_k = best.split_k;
	req->schedule = best.schedule;
	return MMAGEN_OK;
}

static mmagen_status split_sizes(const mmagen_gemm_info *info, unsigned splits, uint64_t tiles,
				 uint64_t *workspace_bytes, uint64_t *counter_bytes);

mmagen_status mmagen_gemm_split_buffers(const mmagen_gemm_info *info, uint32_t m, uint32_t n,
					unsigned splits, uint64_t *workspace_bytes,
					uint64_t *counter_bytes)
{
	if (!info || !workspace_bytes || !counter_bytes)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_gemm_split_buffers: NULL argument");
	*workspace_bytes = *counter_bytes = 0;
	if (info->size >= offsetof(mmagen_gemm_info, split_workspace) + sizeof info->split_workspace &&
	    info->path == MMAGEN_GEMM_PATH_MMA_SYNC && info->split_workspace && info->tile_m &&
	    info->tile_n) {
		/* a slot of the accumulator's type per tile and K slice (the
		 * kernel's S: its grid's z) */
		uint64_t tiles = ((uint64_t)m + info->tile_m - 1) / info->tile_m *
				 (((uint64_t)n + info->tile_n - 1) / info->tile_n);
		/* the kernel numbers slots t * S + z in 32 bits (and a slot is
		 * at most 2^18 bytes, so the product stays under 2^50) */
		if (tiles * info->split_k > UINT32_MAX)
			return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
				"mmagen_gemm_split_buffers: %llu tiles x %u K slices exceed the mma.sync kernel's 2^32 workspace slots; use fewer slices or a larger tile",
				(unsigned long long)tiles, info->split_k);
		*workspace_bytes = tiles * info->split_k * info->tile_m * info->tile_n * 4;
		*counter_bytes = tiles * 4;
		return MMAGEN_OK;
	}
	if (!is_split_kernel(info))
		return MMAGEN_OK;
	if (!splits || splits > GEMM_SPLIT_MAX)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"split-K takes 1 to %u K slices, not %u", GEMM_SPLIT_MAX, splits);
	return split_sizes(info, splits, cta_tiles(info, m, n), workspace_bytes, counter_bytes);
}

mmagen_status mmagen_gemm_split_buffers_grid(const mmagen_gemm_info *info, uint32_t m,
					     uint32_t n, unsigned splits, unsigned grid,
					     uint64_t *workspace_bytes, uint64_t *counter_bytes)
{
	mmagen_status st = mmagen_gemm_split_buffers(info, m, n, splits, workspace_bytes,
						     counter_bytes);
	if (st || !is_split_kernel(info))
		return st;
	uint64_t cl = info->cluster[0] ? info->cluster[0] : 1;
	if (!grid || grid % cl)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"split-K's grid is a positive multiple of the cluster (%u CTAs), not %u",
			(unsigned)cl, grid);
	/* the tail: the CTA tiles past the whole waves of the grid (the
	 * kernel's `whole`, counted in clusters) */
	uint64_t tiles = cta_tiles(info, m, n) / cl, g = grid / cl;
	return split_sizes(info, splits, (tiles - tiles / g * g) * cl, workspace_bytes,
			   counter_bytes);
}

/* Slots of S slices and counters for `tiles` split CTA tiles */
static mmagen_status split_sizes(const mmagen_gemm_info *info, unsigned splits, uint64_t tiles,
				 uint64_t *workspace_bytes, uint64_t *counter_bytes)
{
	/* two warpgroup slots of 64 rows whatever the tile's M */
	uint64_t per_tile = (uint64_t)splits * 128u * info->tile_n * 4;
	if (tiles > UINT64_MAX / per_tile)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"split-K's workspace for %llu tiles in %u slices exceeds 2^64 bytes; use fewer slices or a smaller problem",
			(unsigned long long)tiles, splits);
	*workspace_bytes = tiles * per_tile;
	*counter_bytes = tiles * 2 * 4;
	return MMAGEN_OK;
}
