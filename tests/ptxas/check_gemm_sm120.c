/* check_gemm_sm120.c - every sm_120a GEMM variant assembles with ptxas:
 * kind::f8f6f4 on all 25 mixes of e4m3/e5m2/e3m2/e2m3/e2m1, the
 * block-scaled kinds on all 25 (kind::mxf8f6f4 with ue8m0 per 32; e2m1 x
 * e2m1 under mxfp4 is kind::mxf4), nvfp4 (kind::mxf4nvf4, ue4m3 per 16),
 * each output type, the other tiles, e2m1 x e2m1 mxfp4 as kind::mxf4nvf4
 * and kind::mxf8f6f4 (--kind), and sm_121a.
 * Usage: check_gemm_sm120 PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "mmagen.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ptxas, *dir;

static void assemble(const mmagen_gemm_request *r, const char *arch, const char *kind)
{
	char what[200], path[600], cmd[3000], *text;
	size_t len;

	snprintf(what, sizeof what, "gemm %s %s x %s -> %s, quant %s, tile %ux%u", arch,
		 mmagen_type_name(r->a), mmagen_type_name(r->b), mmagen_type_name(r->out),
		 mmagen_qformat_name(r->quant), r->tile_m, r->tile_n);
	if (mmagen_gemm_emit(r, MMAGEN_FMT_PTX, &text, &len)) {
		check(0, "%s: %s", what, mmagen_last_error());
		return;
	}
	check(strstr(text, kind) != NULL, "%s: the instruction is %s", what, kind);
	snprintf(path, sizeof path, "%s/gemm120_%ld.ptx", dir, (long)getpid());
	FILE *fp = fopen(path, "w");
	int bad = !fp || fwrite(text, 1, len, fp) != len;
	if (fp)
		fclose(fp);
	mmagen_free(text);
	if (bad) {
		check(0, "cannot write %s", path);
		return;
	}
	/* spills would be local memory traffic in the main loop */
	snprintf(cmd, sizeof cmd, "'%s' -arch=%s -v '%s' -o /dev/null >'%s.log' 2>&1 && "
		 "! grep -q '[1-9][0-9]* bytes spill' '%s.log'", ptxas, arch, path, path, path);
	int rc = system(cmd);
	check(!rc, "%s: does not assemble, or spills (see %s.log)", what, path);
	if (!rc) {
		unlink(path);
		strncat(path, ".log", sizeof path - strlen(path) - 1);
		unlink(path);
	}
}

static void request(mmagen_gemm_request *r, const char *arch, mmagen_type a, mmagen_type b,
		    mmagen_type out, unsigned quant)
{
	mmagen_gemm_request_init(r);
	mmagen_target_parse(arch, &r->target);
	r->a = a;
	r->b = b;
	r->out = out;
	r->quant = quant;
}

int main(int argc, char **argv)
{
	static const mmagen_type types[] = { MMAGEN_E4M3, MMAGEN_E5M2, MMAGEN_E3M2, MMAGEN_E2M3,
					     MMAGEN_E2M1 };
	static const mmagen_type outs[] = { MMAGEN_F32, MMAGEN_F16, MMAGEN_BF16 };
	static const unsigned tiles[][2] = { { 64, 128 }, { 128, 64 }, { 128, 256 }, { 256, 128 } };
	mmagen_gemm_request r;
	unsigned x = 0;

	if (argc != 3)
		return fprintf(stderr, "usage: check_gemm_sm120 PTXAS DIR\n"), 2;
	if (access(argv[1], X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	ptxas = argv[1];
	dir = argv[2];
	for (unsigned i = 0; i < 5; i++)
		for (unsigned j = 0; j < 5; j++, x++) {
			mmagen_type a = types[i], b = types[j];
			/* the format of A's type names the scales */
			unsigned q = i < 2 ? MMAGEN_QF_MXFP8 : i < 4 ? MMAGEN_QF_MXFP6 : MMAGEN_QF_MXFP4;
			request(&r, "sm_120a", a, b, outs[x % 3], 0);
			assemble(&r, "sm_120a", "kind::f8f6f4");
			request(&r, "sm_120a", a, b, outs[(x + 1) % 3], q);
			assemble(&r, "sm_120a", a == MMAGEN_E2M1 && b == MMAGEN_E2M1
				 ? "kind::mxf4.block_scale.scale_vec::2X"
				 : "kind::mxf8f6f4.block_scale.scale_vec::1X");
		}
	for (unsigned o = 0; o < 3; o++) {
		request(&r, "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, outs[o], MMAGEN_QF_NVFP4);
		assemble(&r, "sm_120a", "kind::mxf4nvf4.block_scale.scale_vec::4X");
	}
	for (unsigned t = 0; t < 4; t++) {
		request(&r, "sm_120a", MMAGEN_E4M3, MMAGEN_E2M1, MMAGEN_BF16, MMAGEN_QF_MXFP8);
		r.tile_m = tiles[t][0];
		r.tile_n = tiles[t][1];
		assemble(&r, "sm_120a", "kind::mxf8f6f4");
		if (t < 2) {
			request(&r, "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_F32, MMAGEN_QF_NVFP4);
			r.tile_m = tiles[t][0];
			r.tile_n = tiles[t][1];
			assemble(&r, "sm_120a", "kind::mxf4nvf4");
		}
	}
	/* e2m1 x e2m1 mxfp4 through the other two kinds (--kind) */
	request(&r, "sm_120a", MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_BF16, MMAGEN_QF_MXFP4);
	r.kind = MMAGEN_KIND_MXF4NVF4;
	assemble(&r, "sm_120a", "kind::mxf4nvf4.block_scale.scale_vec::2X");
	r.kind = MMAGEN_KIND_MXF8F6F4;
	assemble(&r, "sm_120a", "kind::mxf8f6f4.block_scale.scale_vec::1X");
	request(&r, "sm_121a", MMAGEN_E2M1, MMAGEN_E2M1, MMAGEN_F16, MMAGEN_QF_MXFP4);
	assemble(&r, "sm_121a", "kind::mxf4");
	return check_summary();
}
