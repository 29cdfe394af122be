/* run_gemm_tune.c - `mmagen run gemm --tune` and the kernel choices on
 * the GPU side: a remembered (tuned) choice or the chooser's for the
 * shape applied to the request, and --tune's candidates checked, timed
 * and the fastest remembered (the records file: run_gemm_tune_file.c). */
#define _POSIX_C_SOURCE 200809L
#include "run_gemm_gpu.h"
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void choice_text(const mmagen_gemm_info *i, unsigned group, char *buf, size_t n)
{
	snprintf(buf, n, "--tile %ux%u --stages %u --cluster %u --group %u%s", i->tile_m, i->tile_n,
		 i->stages, i->cluster[0], group,
		 i->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? " --schedule pingpong" : "");
}

static void key_text(const struct rg_tune_key *k, char *buf, size_t n)
{
	snprintf(buf, n, "%s, %s x %s -> %s, shape class 2^%u x 2^%u x 2^%u", k->gpu,
		 mmagen_type_name(k->a), mmagen_type_name(k->b), mmagen_type_name(k->out), k->lm,
		 k->ln, k->lk);
}

static int gpu_key(struct gpu *g, const mmagen_gemm_request *r, struct rg_tune_key *key)
{
	char name[96] = "";
	int major, minor;
	if (mmart_device_info(g->ctx, &major, &minor, name, sizeof name))
		return rgg_rt_fail("device");
	rg_tune_key_of(key, name, r, g->p->m, g->p->n, g->p->k);
	return 0;
}

/* r with choice c, checked: 0 (and *info), or 1 when the generator
 * refuses it (FP8's N 192 with too many stages, ...). */
static int with_choice(struct gpu *g, const mmagen_gemm_request *r, const struct rg_tune_choice *c,
		       mmagen_gemm_request *out, mmagen_gemm_info *info)
{
	*out = *r;
	out->tile_m = c->tile_m;
	/* a choice without tile M (a record from before tile M was kept, or
	 * a large-M candidate): the chooser's for this M, since a tuned
	 * choice stops the chooser (else a tuned small M ran 128-row tiles) */
	unsigned sms = rgg_device_sms(g->ctx);
	if (!out->tile_m && sms) {
		mmagen_gemm_request t = *out;
		t.tile_n = c->tile_n;
		t.cluster = c->cluster;
		t.split_k = 1;
		if (!mmagen_gemm_choose(&t, g->p->m, g->p->n, g->p->k, sms))
			out->tile_m = t.tile_m;
	}
	out->tile_n = c->tile_n;
	out->cluster = c->cluster;
	out->group = c->group;
	out->schedule = c->schedule;
	out->split_k = c->schedule == MMAGEN_GEMM_SCHED_PINGPONG ? 1 : out->split_k;
	out->stages = 0;
	if (c->stages == RG_STAGES_FEWER) {
		if (mmagen_gemm_info_of(out, info) || info->stages <= 2)
			return 1;
		out->stages = info->stages - 1;
	} else {
		out->stages = c->stages;
	}
	return mmagen_gemm_info_of(out, info) ? 1 : 0;
}

/* The request had no tile, stages, cluster or group of its own and runs
 * on the wgmma path: a remembered choice for its key replaces the
 * generator's defaults (said on stderr). */
int rgg_apply_tuned(struct gpu *g, mmagen_gemm_request *r)
{
	struct rg_tune_key key;
	struct rg_tune_choice c;
	mmagen_gemm_request rr;
	mmagen_gemm_info info = { .size = sizeof info };
	char path[4200], note[512], kt[256], ct[128];

	/* (records are per types: a block-scaled kernel does not take the
	 * unscaled FP8 kernel's, and --tune refuses --quant) */
	if (r->tile_n || r->tile_m || r->stages || r->cluster || r->group || r->schedule ||
	    r->quant || g->info.path != MMAGEN_GEMM_PATH_WGMMA || rg_tune_path(path, sizeof path))
		return 0;
	if (gpu_key(g, r, &key))
		return 1;
	int found = rg_tune_lookup(path, &key, &c, note, sizeof note);
	if (note[0])
		fprintf(stderr, "mmagen: run gemm: %s\n", note);
	if (!found)
		return 0;
	key_text(&key, kt, sizeof kt);
	if (with_choice(g, r, &c, &rr, &info)) {
		fprintf(stderr, "mmagen: run gemm: the tuned choice for %s is not one this generator "
			"takes (%s); the defaults are used\n", kt, mmagen_last_error());
		return 0;
	}
	*r = rr;
	g->info = info;
	choice_text(&info, rr.group, ct, sizeof ct);
	fprintf(stderr, "mmagen: run gemm: tuned choice for %s: %s (%.1f when tuned; give any of "
		"--tile, --stages, --cluster, --group, --schedule to choose yourself)\n", kt, ct, c.tflops);
	return 0;
}

/* Neither the request nor a tuned choice fixed the tile N, cluster or
 * split-K: the shape's choice (mmagen_gemm_choose), said on stderr. */
int rgg_apply_chosen(struct gpu *g, mmagen_gemm_request *r)
{
	const struct rg_problem *p = g->p;
	unsigned sms = rgg_device_sms(g->ctx);
	if ((g->info.path != MMAGEN_GEMM_PATH_WGMMA && g->info.path != MMAGEN_GEMM_PATH_MMA_SYNC) ||
	    r->tile_n || r->cluster || r->split_k || !sms)
		return 0;
	mmagen_gemm_request c = *r;
	mmagen_gemm_info info = { .size = sizeof info };
	if (mmagen_gemm_choose(&c, p->m, p->n, p->k, sms) || mmagen_gemm_info_of(&c, &info))
		return fprintf(stderr, "mmagen: run gemm: %s\n", mmagen_last_error()), 1;
	unsigned own_stages = r->stages, own_schedule = r->schedule;
	*r = c;
	g->info = info;
	char stages[32] = "";
	if (c.stages && !own_stages)
		snprintf(stages, sizeof stages, " --stages %u", c.stages);
	fprintf(stderr, "mmagen: run gemm: chosen for %u x %u x %u on %u SMs: --tile %ux%u --cluster %u"
		" --split-k %u%s%s (give --tile, --cluster or --split-k to choose yourself)\n",
		p->m, p->n, p->k, sms, info.tile_m, info.tile_n, info.cluster[0],
		c.split_k ? c.split_k : 1, stages,
		info.schedule == MMAGEN_GEMM_SCHED_PINGPONG && !own_schedule ?
		" --schedule pingpong" : "");
	return 0;
}

/* What --tune cannot do, said before the driver is touched: 0 or 2. */
int rgg_tune_usage(const mmagen_gemm_request *r, const mmagen_gemm_info *info)
{
	if (info->path != MMAGEN_GEMM_PATH_WGMMA) {
		fprintf(stderr, "mmagen: run gemm: --tune chooses among wgmma kernels (sm_90a); the mma.sync path has no choices to try yet; leave --tune out\n");
		return 2;
	}
	if (r->tile_n || r->tile_m || r->stages || r->cluster || r->group || r->schedule) {
		fprintf(stderr, "mmagen: run gemm: --tune chooses --tile, --stages, --cluster, --group and --schedule itself; leave them out\n");
		return 2;
	}
	/* the candidates are launched before setup_split gives the split
	 * kernel its workspace, counters and splits parameters */
	if (r->split_k > 1) {
		fprintf(stderr, "mmagen: run gemm: --tune times kernels without split-K; leave --split-k out (run gemm then picks S for the chosen kernel)\n");
		return 2;
	}
	return 0;
}

/* --tune: every candidate that the generator takes is loaded, run once
 * and checked against the reference (a wrong kernel is never chosen),
 * then timed; the fastest becomes *r and is remembered. */
int rgg_tune(struct gpu *g, mmagen_gemm_request *r, struct rg_data *d,
	     const struct run_gemm_opts *o)
{
	struct rg_tune_choice cand[32], best = { 0 };
	mmagen_gemm_request best_r = *r;
	mmagen_gemm_info best_i = g->info;
	struct rg_tune_key key;
	char path[4200], note[512] = "", kt[256], ct[128], no_path[512] = "";
	double flop = 2.0 * d->p.m * d->p.n * d->p.k;
	int have_path, rc = 1;

	if (rgg_tune_usage(r, &g->info))
		return 2;
	if (gpu_key(g, r, &key))
		return 1;
	key_text(&key, kt, sizeof kt);
	have_path = !rg_tune_path(path, sizeof path);
	if (!have_path)
		snprintf(no_path, sizeof no_path, "%s", rg_error());
	if (!g->stream && mmart_stream_create(g->ctx, &g->stream))
		return rgg_rt_fail("stream");
	unsigned n = rg_tune_candidates(r, d->p.m, cand, 32), tried = 0;
	printf("tune gemm %s: %u choices, each checked then timed (median of %u)\n", kt, n, o->reps);
	for (unsigned i = 0; i < n; i++) {
		mmagen_gemm_request rr;
		mmagen_gemm_info info = { .size = sizeof info };
		size_t guard_bad = 0;
		int d_tma = 0, hit;
		struct rg_verdict v;
		struct timing t;
		uint64_t blocker = 0, blocker_bytes = 0;

		if (with_choice(g, r, &cand[i], &rr, &info))
			continue;            /* not a kernel the generator writes */
		g->info = info;
		choice_text(&info, rr.group, ct, sizeof ct);
		if (rgg_load_kernel(g, &rr, &hit))
			goto out;
		rgg_set_config(g);
		if (rgg_run_once(g, d, &guard_bad, &d_tma))
			goto out;
		if (rg_verify(d, &v)) {
			rgg_said();
			goto out;
		}
		if (v.bad || guard_bad) {
			printf("  %-52s wrong results (%zu of %zu elements, %zu guard bytes): skipped\n", ct,
			       v.bad, v.checked, guard_bad);
			continue;
		}
		int bad = rgg_timing_sets(g, d, o->reps, &blocker, &blocker_bytes) ||
			  rgg_time_launches(g, rgg_launch_mmagen, o->reps, blocker, blocker_bytes, &t, NULL);
		mmart_free(g->ctx, blocker);
		rgg_free_sets(g);
		if (bad)
			goto out;
		cand[i].stages = info.stages;
		cand[i].tflops = flop / (t.median * 1e-3) / 1e12;
		printf("  %-52s %8.1f %s\n", ct, cand[i].tflops,
		       rg_class_of(d->p.a) == RG_INT ? "TOP/s" : "TFLOP/s");
		tried++;
		if (cand[i].tflops > best.tflops) {
			best = cand[i];
			best_r = rr;
			best_i = info;
		}
	}
	if (!tried) {
		printf("FAIL tune gemm %s: no choice ran correctly\n", kt);
		goto out;
	}
	*r = best_r;
	g->info = best_i;
	choice_text(&best_i, best_r.group, ct, sizeof ct);
	printf("best: %s, %.1f\n", ct, best.tflops);
	if (!have_path)
		printf("not remembered: %s\n", no_path);
	else if (rg_tune_record(path, &key, &best, note, sizeof note))
		printf("not remembered: %s\n", rg_error());
	else
		printf("remembered in %s%s%s\n", path, note[0] ? "; " : "", note);
	rc = 0;
out:
	return rc;
}

