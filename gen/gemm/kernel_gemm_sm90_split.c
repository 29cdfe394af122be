/* kernel_gemm_sm90_split.c - split-K for the sm_90a GEMM: the reduction
 * of the K slices' partial tiles, written into the slots {{split_setup}}
 * and {{split_reduce}} of templates/gemm_sm90.ptx.in (which walks the
 * work units; gemm_split.c has their math and the host's rules).
 *
 * Per work unit (tile t, slice s of S), per consumer warpgroup:
 *   1. every thread stores its accumulators, as they lie in its registers,
 *      into the unit's slot of the workspace (f32 or s32, 16 bytes per
 *      store; a warp's 32 stores are 512 contiguous bytes);
 *   2. bar.sync of the warpgroup, then its thread 0 arrives on the
 *      warpgroup's counter of the tile with one atom.acq_rel.gpu.inc
 *      (release: the warpgroup's stores, ordered before it by the
 *      barrier; acquire: every earlier slice's);
 *   3. bar.red.or tells the warpgroup whether it was the S-th arrival;
 *      if not, its unit is done (no CTA ever waits for another);
 *   4. the last one adds the S slots in slice order 0, 1, .., S-1 (the
 *      same sum whichever CTA arrives last: deterministic) and goes on to
 *      the epilogue (alpha, beta, C, conversion, stores) as an unsplit
 *      tile does.
 * atom.inc wraps to 0 at S-1, so the last arrival leaves the counter
 * zero: the next launch needs no memset.  With S = 1 (splits 1, or K one
 * block) the unit is the tile and all of this is skipped.
 *
 * Only tail tiles (the template's units past `whole`) are split; whole
 * tiles skip all of this.
 * Layout of the workspace: slot (ct, i, w) of tail CTA tile ct = (t -
 * whole) * cluster + rank, slice i, warpgroup w (0, 1) at byte ((ct * S +
 * i) * 2 + w) * GEMM_SPLIT_WG_BYTES(bn); in it, accumulators 4q..4q+3 of
 * warpgroup thread x at byte (q * 128 + x) * 16.  Counter (ct, w): u32
 * number ct * 2 + w.  Only rows inside M are stored and read (a warp's
 * rows are all outside M for small M: it skips both). */
#include "gemm_plan.h"

#include <assert.h>

#define SPLIT_BATCH 4u     /* 16-byte loads in flight per thread */

struct split_regs {
	kreg ws, ctr;            /* global addresses */
	kreg tx16;               /* (thread % 128) * 16 + warpgroup slot offset */
	kreg wgi;                /* warpgroup - 1 */
	kreg issuer;             /* thread 0 of the warpgroup */
};

static void emit_setup(struct kb *kb, const struct sm90_regs *sr, struct split_regs *r,
		       unsigned wg_bytes)
{
	kreg t = kb_reg(kb, K_B32);
	r->ws = kb_reg(kb, K_B64);
	r->ctr = kb_reg(kb, K_B64);
	r->tx16 = kb_reg(kb, K_B64);
	r->wgi = kb_reg(kb, K_B32);
	r->issuer = kb_reg(kb, K_PRED);
	kb_at(kb, "split_setup");
	ke(kb, "\tld.param.u64 $r, [pworkspace];\n\tcvta.to.global.u64 $r, $r;\n"
	       "\tld.param.u64 $r, [pcounters];\n\tcvta.to.global.u64 $r, $r;\n",
	   r->ws, r->ws, r->ws, r->ctr, r->ctr, r->ctr);
	/* tx16 = (thread % 128) * 16 + (wg - 1) * wg_bytes */
	ke(kb, "\tsub.u32 $r, $r, 1;\n\tand.b32 $r, $r, 127;\n"
	       "\tsetp.eq.u32 $r, $r, 0;\n\tmul.wide.u32 $r, $r, 16;\n",
	   r->wgi, sr->wg, t, sr->thread, r->issuer, t, r->tx16, t);
	kreg w = kb_reg(kb, K_B64);
	ke(kb, "\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n", w, r->wgi, wg_bytes,
	   r->tx16, r->tx16, w);
}

void gemm_sm90_split_emit(struct kb *kb, const struct gemm_plan *g, const struct sm90_regs *sr,
			  kreg acc, kreg spare, kreg row, kreg m)
{
	struct split_regs r;
	unsigned wg_bytes = GEMM_SPLIT_WG_BYTES(g->bn), chunks = acc.n / 4;
	const char *add = g->acc == MMAGEN_S32 ? "add.s32" : "add.f32";

	assert(acc.n * 128u * 4u == wg_bytes && acc.n % 4 == 0);
	kreg unit = kb_slot_reg(kb, "unit", K_B32), splits = kb_slot_reg(kb, "splits", K_B32);
	kreg whole = kb_slot_reg(kb, "whole", K_B32);
	kb_slot_reg(kb, "kball", K_B32);
	kb_slot_reg(kb, "kbeg", K_B32);
	emit_setup(kb, sr, &r, wg_bytes);

	kreg one = kb_reg(kb, K_PRED), pv = kb_reg(kb, K_PRED), last = kb_reg(kb, K_PRED);
	kreg p = kb_reg(kb, K_PRED);
	kreg slice = kb_reg(kb, K_B32), ct = kb_reg(kb, K_B32), old = kb_reg(kb, K_B32);
	kreg s1 = kb_reg(kb, K_B32), i = kb_reg(kb, K_B32);
	kreg base = kb_reg(kb, K_B64), own = kb_reg(kb, K_B64), t64 = kb_reg(kb, K_B64);
	kreg ca = kb_reg(kb, K_B64);
	/* a slot's loads go out `batch` chunks at a time, each into its own
	 * registers: with one set of four, ptxas issued every load after the
	 * one before had been added (24-32 L2 round trips in a row per slot:
	 * about 5 us a slot on the H200, more than a short tail unit's
	 * wgmma).  FP8 lends its partial sums (all chunks at once); other
	 * kernels take SPLIT_BATCH chunks' registers (8 spilled at tile N 256) */
	unsigned batch = chunks < SPLIT_BATCH ? chunks : SPLIT_BATCH;
	kreg tmp;
	if (spare.n >= 4 * batch) {
		batch = spare.n / 4 < chunks ? spare.n / 4 : chunks;
		tmp = spare;
	} else {
		tmp = kb_regs(kb, g->acc == MMAGEN_S32 ? K_B32 : K_F32, 4 * batch);
	}
	kreg epi = kb_label(kb), loop = kb_label(kb);

	kb_at(kb, "split_reduce");
	/* whole tiles (unit < whole, or S = 1) go straight to the epilogue */
	ke(kb, "\tsetp.eq.u32 $r, $r, 1;\n\tsetp.lt.or.u32 $r, $r, $r, $r;\n\t@$r bra.uni $r;\n",
	   one, splits, one, unit, whole, one, one, epi);
	/* tail tile tt = tile - whole; slice = unit - whole - tt * S; CTA
	 * tile ct = tt * cluster + rank */
	ke(kb, "\tsub.u32 $r, $r, $r;\n\tsub.u32 $r, $r, $r;\n\tmul.lo.u32 $r, $r, $r;\n"
	       "\tsub.u32 $r, $r, $r;\n",
	   ct, sr->tile, whole, slice, unit, whole, old, ct, splits, slice, slice, old);
	if (g->cluster == 2)
		ke(kb, "\tmad.lo.u32 $r, $r, 2, $r;\n", ct, ct, sr->rank);
	/* base = ws + ct * S * 2 * wg_bytes + tx16 (the warpgroup's slot of
	 * slice 0); own = base + slice * 2 * wg_bytes */
	ke(kb, "\tmul.wide.u32 $r, $r, $r;\n\tmul.lo.u64 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n"
	       "\tadd.u64 $r, $r, $r;\n",
	   base, ct, splits, base, base, 2 * wg_bytes, base, base, r.ws, base, base, r.tx16);
	ke(kb, "\tmul.wide.u32 $r, $r, $u;\n\tadd.u64 $r, $r, $r;\n", own, slice, 2 * wg_bytes,
	   own, own, base);
	/* rows inside M: this thread's first row (its +8 row rides along) */
	ke(kb, "\tsetp.lt.u32 $r, $r, $r;\n", pv, row, m);
	for (unsigned q = 0; q < chunks; q++)
		ke(kb, "\t@$r st.global.cg.v4.b32 [$r+$u], {$r, $r, $r, $r};\n", pv, own, q * 2048u, kr_at(acc, 4 * q), kr_at(acc, 4 * q + 1),
		   kr_at(acc, 4 * q + 2), kr_at(acc, 4 * q + 3));
	/* arrive: counter (ct * 2 + wg - 1), wrapping to 0 at S - 1 */
	ke(kb, "\tbar.sync $r, 128;\n\tmad.lo.u32 $r, $r, 2, $r;\n\tmul.wide.u32 $r, $r, 4;\n"
	       "\tadd.u64 $r, $r, $r;\n\tsub.u32 $r, $r, 1;\n\tmov.u32 $r, 0;\n",
	   sr->wg, old, ct, r.wgi, ca, old, ca, ca, r.ctr, s1, splits, old);
	ke(kb, "\t@$r atom.acq_rel.gpu.global.inc.u32 $r, [$r], $r;\n"
	       "\tsetp.eq.u32 $r, $r, $r;\n\tand.pred $r, $r, $r;\n"
	       "\tbar.red.or.pred $r, $r, 128, $r;\n\t@!$r bra.uni $$c_unit_done;\n",
	   r.issuer, old, ca, s1, last, old, s1, last, last, r.issuer, last, sr->wg, last, last);
	/* the last arrival: acc = slot 0 + slot 1 + ... + slot S-1, in order */
	for (unsigned k = 0; k < acc.n; k++)
		ke(kb, g->acc == MMAGEN_S32 ? "\tmov.b32 $r, 0;\n" : "\tmov.f32 $r, 0f00000000;\n",
		   kr_at(acc, k));
	ke(kb, "\tmov.u32 $r, 0;\n\tmov.u64 $r, $r;\n$r:\n", i, t64, base, loop);
	for (unsigned q0 = 0; q0 < chunks; q0 += batch) {
		unsigned nq = chunks - q0 < batch ? chunks - q0 : batch;
		for (unsigned b = 0; b < nq; b++)
			ke(kb, "\t@$r ld.global.cg.v4.b32 {$r, $r, $r, $r}, [$r+$u];\n", pv,
			   kr_at(tmp, 4 * b), kr_at(tmp, 4 * b + 1), kr_at(tmp, 4 * b + 2),
			   kr_at(tmp, 4 * b + 3), t64, (q0 + b) * 2048u);
		for (unsigned b = 0; b < nq; b++)
			for (unsigned k = 0; k < 4; k++)
				ke(kb, "\t$s $r, $r, $r;\n", add, kr_at(acc, 4 * (q0 + b) + k),
				   kr_at(acc, 4 * (q0 + b) + k), kr_at(tmp, 4 * b + k));
	}
	ke(kb, "\tadd.u64 $r, $r, $u;\n\tadd.u32 $r, $r, 1;\n\tsetp.lt.u32 $r, $r, $r;\n"
	       "\t@$r bra.uni $r;\n$r:\n",
	   t64, t64, 2 * wg_bytes, i, i, p, i, splits, p, loop, epi);
}
