/* check_tile.c - generate, JIT-load, run and check one tile kernel through
 * the public APIs only: libmmagen (mmagen.h) makes the kernel, its inputs
 * and the reference; libmmart (mmart.h) loads and launches it.
 *
 *   check_tile [OPCODE [SEED]]
 *
 * Default: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 on the
 * GPU's own target.  Exit 0 when D is right, 1 when it is not or something
 * failed, 77 when there is no CUDA driver or GPU (a skip for `meson test`).
 */
#include "mmagen.h"
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int lib_fail(const char *what)
{
	fprintf(stderr, "check_tile: %s: %s\n", what, mmagen_last_error());
	return 1;
}

static int rt_fail(const char *what)
{
	fprintf(stderr, "check_tile: %s: %s\n", what, mmart_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	const char *opcode = argc > 1 ? argv[1] :
		"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
	mmart_ctx *ctx = NULL;
	mmagen_check *chk = NULL;
	char *ptx = NULL, target[32];
	uint64_t dev[16] = { 0 };
	void *args[16];
	void *dhost = NULL;
	int major, minor, rc = 1;

	/* 1. the device, and the target it runs: sm_90a on an H200 */
	mmart_status st = mmart_open(-1, &ctx);
	if (st == MMART_NO_DRIVER || st == MMART_NO_DEVICE) {
		fprintf(stderr, "check_tile: skipped: %s\n", mmart_last_error());
		return 77;
	}
	if (st || mmart_device_info(ctx, &major, &minor, NULL, 0)) {
		rt_fail("device");
		goto out;
	}
	mmagen_request req;
	mmagen_request_init(&req);
	snprintf(target, sizeof target, "sm_%d%da", major, minor);
	if (mmagen_target_parse(target, &req.target)) {
		snprintf(target, sizeof target, "sm_%d%d", major, minor);
		if (mmagen_target_parse(target, &req.target)) {
			lib_fail("target");
			goto out;
		}
	}

	/* 2. the form, its tile kernel, and the check: inputs + reference */
	const mmagen_form *f;
	req.opcode = opcode;
	if (mmagen_select(&req, &f)) {
		lib_fail("select");
		goto out;
	}
	if (mmagen_emit_tile(f, req.target, NULL, MMAGEN_FMT_PTX, &ptx, NULL)) {
		lib_fail("emit");
		goto out;
	}
	if (mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, seed, &chk)) {
		lib_fail("check");
		goto out;
	}
	const mmagen_tile_info *ti = mmagen_check_tile(chk);
	unsigned d;
	if (ti->nparams > 16 || mmagen_check_find_param(ti, "D", &d)) {
		lib_fail("manifest");
		goto out;
	}

	/* 3. every parameter to the device: inputs, and the poison for D */
	for (unsigned p = 0; p < ti->nparams; p++) {
		const void *data;
		size_t bytes;
		if (mmagen_check_data(chk, p, &data, &bytes)) {
			lib_fail("data");
			goto out;
		}
		if (mmart_alloc(ctx, bytes, &dev[p]) ||
		    mmart_copy_to_device(ctx, dev[p], data, bytes)) {
			rt_fail("copy in");
			goto out;
		}
		args[p] = &dev[p];
	}

	/* 4. JIT, launch, D back */
	mmart_module *mod;
	void *fn;
	size_t dbytes = ti->params[d].bytes;
	if (mmart_load_ptx(ctx, ptx, &mod, NULL) ||
	    mmart_get_function(mod, ti->kernel, &fn) ||
	    mmart_launch(ctx, fn, ti->grid, ti->block, ti->smem, args) ||
	    mmart_sync(ctx)) {
		rt_fail("run");
		goto out;
	}
	if (!(dhost = malloc(dbytes)) || mmart_copy_to_host(ctx, dhost, dev[d], dbytes)) {
		rt_fail("copy out");
		goto out;
	}

	/* 5. verify */
	mmagen_check_result res = { .size = sizeof res };
	if (mmagen_check_verify(chk, dhost, dbytes, &res)) {
		lib_fail("verify");
		goto out;
	}
	if (res.pass)
		printf("PASS %s on %s (seed %llu): %zu elements, largest error %.3g (%.2g of sum|a*b|+|c|)\n",
		       opcode, target, (unsigned long long)seed, res.total, res.max_err, res.max_rel);
	else
		printf("FAIL %s on %s (seed %llu): %zu of %zu elements wrong; first D[%u][%u] = %.17g (0x%llx), reference %.17g\n",
		       opcode, target, (unsigned long long)seed, res.bad, res.total, res.row,
		       res.col, res.got_value, (unsigned long long)res.got, res.exact);
	rc = res.pass ? 0 : 1;
out:
	for (unsigned p = 0; p < 16; p++)
		if (dev[p])
			mmart_free(ctx, dev[p]);
	free(dhost);
	mmagen_check_free(chk);
	mmagen_free(ptx);
	mmart_close(ctx);
	return rc;
}
