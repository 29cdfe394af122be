/* load_tile.c - load a tile kernel that `mmagen emit tile` wrote at build
 * time, run it with libmmart and check D with libmmagen's reference.  The
 * Meson, CMake and Makefile projects next to this file build it.
 *
 *   load_tile PTXFILE [OPCODE]
 *
 * OPCODE (default mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32) must
 * be the one the build generated PTXFILE for, with --arch sm_80 and the
 * default tile options.  Exit 0 when D is right, 1 when it is not or
 * something failed, 77 when there is no CUDA driver or no GPU that runs
 * sm_80 code (a skip for test runners).
 */
#include "mmagen.h"
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) == (size_t)n)
		s[n] = '\0';
	else {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	const char *opcode = argc > 2 ? argv[2] :
		"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
	mmart_ctx *ctx = NULL;
	mmagen_check *chk = NULL;
	uint64_t dev[16] = { 0 };
	void *args[16], *dhost = NULL;
	char *ptx;
	int major, minor, rc = 1;

	if (argc < 2)
		return fprintf(stderr, "usage: load_tile PTXFILE [OPCODE]\n"), 2;
	if (!(ptx = read_file(argv[1])))
		return fprintf(stderr, "load_tile: cannot read %s\n", argv[1]), 1;

	mmart_status st = mmart_open(-1, &ctx);
	if (st == MMART_NO_DRIVER || st == MMART_NO_DEVICE) {
		fprintf(stderr, "load_tile: skipped: %s\n", mmart_last_error());
		free(ptx);
		return 77;
	}
	if (st || mmart_device_info(ctx, &major, &minor, NULL, 0)) {
		fprintf(stderr, "load_tile: device: %s\n", mmart_last_error());
		goto out;
	}
	if (major < 8) {
		fprintf(stderr, "load_tile: skipped: the GPU is sm_%d%d, the PTX needs sm_80\n",
			major, minor);
		rc = 77;
		goto out;
	}

	/* the form the PTX was generated for, its random inputs and reference */
	mmagen_request req;
	const mmagen_form *f;
	mmagen_request_init(&req);
	req.opcode = opcode;
	if (mmagen_target_parse("sm_80", &req.target) || mmagen_select(&req, &f) ||
	    mmagen_check_new(f, NULL, MMAGEN_CHECK_RANDOM, (uint64_t)time(NULL), &chk)) {
		fprintf(stderr, "load_tile: %s\n", mmagen_last_error());
		goto out;
	}
	const mmagen_tile_info *ti = mmagen_check_tile(chk);
	unsigned d;
	if (ti->nparams > 16 || mmagen_check_find_param(ti, "D", &d) || !strstr(ptx, ti->kernel)) {
		fprintf(stderr, "load_tile: %s is not the tile kernel of %s\n", argv[1], opcode);
		goto out;
	}
	for (unsigned p = 0; p < ti->nparams; p++) {
		const void *data;
		size_t bytes;
		if (mmagen_check_data(chk, p, &data, &bytes) ||
		    mmart_alloc(ctx, bytes, &dev[p]) ||
		    mmart_copy_to_device(ctx, dev[p], data, bytes)) {
			fprintf(stderr, "load_tile: inputs: %s%s\n", mmagen_last_error(),
				mmart_last_error());
			goto out;
		}
		args[p] = &dev[p];
	}

	/* JIT-load the build's PTX, run it, check D */
	mmart_module *mod;
	void *fn;
	size_t dbytes = ti->params[d].bytes;
	if (mmart_load_ptx(ctx, ptx, &mod, NULL) || mmart_get_function(mod, ti->kernel, &fn) ||
	    mmart_launch(ctx, fn, ti->grid, ti->block, ti->smem, args) || mmart_sync(ctx) ||
	    !(dhost = malloc(dbytes)) || mmart_copy_to_host(ctx, dhost, dev[d], dbytes)) {
		fprintf(stderr, "load_tile: run: %s\n", mmart_last_error());
		goto out;
	}
	mmagen_check_result res = { .size = sizeof res };
	if (mmagen_check_verify(chk, dhost, dbytes, &res)) {
		fprintf(stderr, "load_tile: verify: %s\n", mmagen_last_error());
		goto out;
	}
	printf("%s %s: %zu elements, %zu wrong, largest error %.3g\n", res.pass ? "PASS" : "FAIL",
	       argv[1], res.total, res.bad, res.max_err);
	rc = res.pass ? 0 : 1;
out:
	for (unsigned p = 0; p < 16; p++)
		if (dev[p])
			mmart_free(ctx, dev[p]);
	free(dhost);
	mmagen_check_free(chk);
	mmart_close(ctx);
	free(ptx);
	return rc;
}
