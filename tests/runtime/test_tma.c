/* test_tma.c - what a Hopper GEMM needs of libmmart, end to end on the GPU:
 * a tensor map over a random bf16 matrix, a launch with a 2x1x1 cluster
 * and more than 48 KB of dynamic shared memory on a created stream, a TMA
 * load of every box (the last ones cut by the matrix edge, which TMA fills
 * with zeros), every element compared, and event timing.
 *
 *   test_tma              the GPU test (exit 77 without a driver, a device
 *                         or an sm_90 one)
 *   test_tma --ptxas P D  assembles the kernel with ptxas P for sm_90a in
 *                         scratch directory D (exit 77 without ptxas), so
 *                         that CI checks the PTX without a GPU
 */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../unit/check.h"

#define EXPECT(cond)                                                       \
	CHECK(cond, "%s:%d: %s (%s)", __FILE__, __LINE__, #cond,           \
	      mmart_last_error())

/* The matrix: ROWS x COLS bf16, row-major, rows PITCH elements apart (the
 * padding holds a sentinel that TMA must never return).  Boxes of
 * BOX_ROWS x BOX_COLS; neither size divides the matrix, so the last box
 * column and row are partial. */
#define ROWS 300
#define COLS 200
#define PITCH 208
#define BOX_COLS 64
#define BOX_ROWS 128
#define BOXES_X ((COLS + BOX_COLS - 1) / BOX_COLS) /* 4: even, for the cluster */
#define BOXES_Y ((ROWS + BOX_ROWS - 1) / BOX_ROWS) /* 3 */
#define BOX_BYTES (BOX_COLS * BOX_ROWS * 2)       /* 16384 */
#define BOX_SMEM_OFFSET 65536                     /* above the 48 KB line */
#define SMEM_BYTES (BOX_SMEM_OFFSET + BOX_BYTES)  /* 81920 */
#define THREADS 128
#define SENTINEL 0x7777
#define POISON8 0xa5

/* tma_copy(tmap, out, info), one CTA per box, grid BOXES_X x BOXES_Y:
 * thread 0 sets up an mbarrier at the start of dynamic shared memory,
 * expects BOX_BYTES and starts the TMA load of box (ctaid.x, ctaid.y) to
 * offset 64 KB; all threads wait for the barrier's phase 0, then copy the
 * box as it lies in shared memory (BOX_ROWS rows of BOX_COLS elements) to
 * out + box * BOX_BYTES, box = ctaid.y * nctaid.x + ctaid.x.  Thread 0
 * writes {cluster_ctarank, cluster_nctarank, clusterid.x, cluster_ctaid.x}
 * to info + box * 16 so that the host sees the cluster shape. */
static const char tma_ptx[] =
	".version 8.0\n"
	".target sm_90a\n"
	".address_size 64\n"
	"\n"
	".extern .shared .align 1024 .b8 smem[];\n"
	"\n"
	".visible .entry tma_copy(\n"
	"\t.param .align 64 .b8 tmap[128],\n"
	"\t.param .u64 out,\n"
	"\t.param .u64 info)\n"
	"{\n"
	"\t.reg .pred %p<4>;\n"
	"\t.reg .b32 %r<20>;\n"
	"\t.reg .b64 %rd<8>;\n"
	"\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ctaid.y;\n"
	"\tmov.u32 %r4, %nctaid.x;\n"
	"\tmov.u32 %r5, smem;\n"                   /* the mbarrier */
	"\tadd.u32 %r6, %r5, 65536;\n"             /* the box */
	"\tmov.u64 %rd1, tmap;\n"
	"\tcvta.param.u64 %rd1, %rd1;\n"           /* generic address */
	"\tsetp.ne.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra SYNC;\n"
	"\tmbarrier.init.shared::cta.b64 [%r5], 1;\n"
	"\tfence.mbarrier_init.release.cluster;\n"
	"SYNC:\n"
	"\tbar.sync 0;\n"
	"\t@%p1 bra WAIT;\n"
	"\tshl.b32 %r7, %r2, 6;\n"                 /* column: x * 64 */
	"\tshl.b32 %r8, %r3, 7;\n"                 /* row: y * 128 */
	"\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 16384;\n"
	"\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
	"complete_tx::bytes [%r6], [%rd1, {%r7, %r8}], [%r5];\n"
	"WAIT:\n"
	"\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;\n"
	"\t@!%p2 bra WAIT;\n"
	"\tld.param.u64 %rd2, [out];\n"
	"\tld.param.u64 %rd3, [info];\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tcvta.to.global.u64 %rd3, %rd3;\n"
	"\tmad.lo.u32 %r9, %r3, %r4, %r2;\n"       /* box index */
	"\tmul.wide.u32 %rd4, %r9, 16384;\n"
	"\tadd.s64 %rd4, %rd2, %rd4;\n"
	"\tmov.u32 %r10, %r1;\n"
	"\tmov.u32 %r18, %ntid.x;\n"
	"COPY:\n"                                  /* word r10 of 4096 */
	"\tshl.b32 %r11, %r10, 2;\n"
	"\tadd.u32 %r12, %r6, %r11;\n"
	"\tld.shared.b32 %r13, [%r12];\n"
	"\tcvt.u64.u32 %rd5, %r11;\n"
	"\tadd.s64 %rd6, %rd4, %rd5;\n"
	"\tst.global.b32 [%rd6], %r13;\n"
	"\tadd.u32 %r10, %r10, %r18;\n"
	"\tsetp.lt.u32 %p3, %r10, 4096;\n"
	"\t@%p3 bra COPY;\n"
	"\t@%p1 bra DONE;\n"
	"\tmov.u32 %r14, %cluster_ctarank;\n"
	"\tmov.u32 %r15, %cluster_nctarank;\n"
	"\tmov.u32 %r16, %clusterid.x;\n"
	"\tmov.u32 %r17, %cluster_ctaid.x;\n"
	"\tmul.wide.u32 %rd7, %r9, 16;\n"
	"\tadd.s64 %rd7, %rd3, %rd7;\n"
	"\tst.global.v4.b32 [%rd7], {%r14, %r15, %r16, %r17};\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

/* ---- ptxas mode ---- */

static int run_ptxas(const char *ptxas, const char *dir)
{
	char src[4096], bin[4096];
	FILE *f;
	pid_t pid;
	int st = 0;

	if (access(ptxas, X_OK) != 0) {
		printf("SKIP: no ptxas at %s\n", ptxas);
		return 77;
	}
	snprintf(src, sizeof src, "%s/test_tma_%d.ptx", dir, (int)getpid());
	snprintf(bin, sizeof bin, "%s/test_tma_%d.cubin", dir, (int)getpid());
	f = fopen(src, "w");
	if (!f || fputs(tma_ptx, f) < 0 || fclose(f) != 0) {
		perror(src);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(ptxas, ptxas, "-arch=sm_90a", src, "-o", bin, (char *)NULL);
		_exit(127);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT(access(bin, R_OK) == 0);
	remove(src);
	remove(bin);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* ---- GPU mode ---- */

static uint64_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

/* A random finite, non-zero bf16 that is not the sentinel. */
static uint16_t random_bf16(void)
{
	for (;;) {
		uint16_t v = (uint16_t)next();

		if ((v & 0x7f80) != 0x7f80 && (v & 0x7fff) && v != SENTINEL)
			return v;
	}
}

/* What box (bx, by) must hold at (r, c) of the box: the element, or 0
 * beyond the matrix (never the padding). */
static uint16_t expected(const uint16_t *a, int bx, int by, int r, int c)
{
	int row = by * BOX_ROWS + r, col = bx * BOX_COLS + c;

	return row < ROWS && col < COLS ? a[(size_t)row * PITCH + col] : 0;
}

static void check_boxes(const uint16_t *a, const uint16_t *out,
			const uint32_t *info)
{
	long bad = 0, zeros = 0;

	for (int by = 0; by < BOXES_Y; by++)
		for (int bx = 0; bx < BOXES_X; bx++) {
			int box = by * BOXES_X + bx;
			const uint16_t *o = out + (size_t)box * BOX_BYTES / 2;
			const uint32_t *in = info + 4 * box;

			for (int r = 0; r < BOX_ROWS; r++)
				for (int c = 0; c < BOX_COLS; c++) {
					uint16_t want = expected(a, bx, by, r, c);
					uint16_t got = o[r * BOX_COLS + c];

					zeros += want == 0;
					if (got != want && bad++ < 8)
						printf("box (%d,%d) [%d][%d]: "
						       "%04x, want %04x\n", bx,
						       by, r, c, got, want);
				}
			/* Cluster 2x1x1: rank = cluster_ctaid.x = x % 2,
			 * two CTAs, cluster x = x / 2. */
			CHECK(in[0] == (uint32_t)bx % 2 && in[1] == 2
			      && in[2] == (uint32_t)bx / 2
			      && in[3] == (uint32_t)bx % 2,
			      "box (%d,%d): cluster rank %u of %u, cluster %u, "
			      "ctaid %u; want %d of 2, %d, %d", bx, by, in[0],
			      in[1], in[2], in[3], bx % 2, bx / 2, bx % 2);
		}
	CHECK(bad == 0, "%ld of %d box elements differ", bad,
	      BOXES_X * BOXES_Y * BOX_ROWS * BOX_COLS);
	/* The edge really was crossed: 4*3 boxes of 8192 hold 98304
	 * elements, 60000 of them in the matrix. */
	CHECK(zeros == (long)BOXES_X * BOXES_Y * BOX_ROWS * BOX_COLS
		       - (long)ROWS * COLS,
	      "%ld zero-filled elements, want %ld", zeros,
	      (long)BOXES_X * BOXES_Y * BOX_ROWS * BOX_COLS - ROWS * COLS);
}

static mmart_tensor_desc matrix_desc(uint64_t addr)
{
	mmart_tensor_desc d;

	memset(&d, 0, sizeof d);
	d.dtype = MMART_TENSOR_BF16;
	d.rank = 2;
	d.addr = addr;
	d.dims[0] = COLS;
	d.dims[1] = ROWS;
	d.strides[0] = PITCH * 2;
	d.box[0] = BOX_COLS;
	d.box[1] = BOX_ROWS;
	d.elem_strides[0] = d.elem_strides[1] = 1;
	d.swizzle = MMART_SWIZZLE_NONE;
	d.oob_fill = MMART_OOB_ZERO;
	return d;
}

static int run_gpu(void)
{
	const size_t a_bytes = (size_t)ROWS * PITCH * 2;
	const size_t out_bytes = (size_t)BOXES_X * BOXES_Y * BOX_BYTES;
	const size_t info_bytes = (size_t)BOXES_X * BOXES_Y * 16;
	uint16_t *a = malloc(a_bytes), *out = malloc(out_bytes);
	uint32_t *info = malloc(info_bytes);
	uint64_t da = 0, dout = 0, dinfo = 0;
	mmart_ctx *ctx = NULL;
	mmart_stream *stream = NULL;
	mmart_event *ev0 = NULL, *ev1 = NULL;
	mmart_module *mod = NULL;
	mmart_tensor_map map;
	mmart_tensor_desc desc;
	mmart_launch_config cfg = {
		.grid = { BOXES_X, BOXES_Y, 1 },
		.block = { THREADS, 1, 1 },
		.cluster = { 2, 1, 1 },
		.smem_bytes = SMEM_BYTES,
	};
	void *fn = NULL, *params[3] = { &map, &dout, &dinfo };
	int major = 0, minor = 0, reps = 20;
	char name[128] = "";
	float ms = -1;
	mmart_status s;

	rng = ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid()) | 1;
	printf("seed %llu\n", (unsigned long long)rng);
	s = mmart_open(-1, &ctx);
	if (s == MMART_NO_DRIVER || s == MMART_NO_DEVICE) {
		printf("SKIP: %s\n", mmart_last_error());
		return 77;
	}
	EXPECT(s == MMART_OK);
	if (s != MMART_OK || !a || !out || !info)
		return 1;
	EXPECT(mmart_device_info(ctx, &major, &minor, name, sizeof name)
	       == MMART_OK);
	printf("device: %s sm_%d%d\n", name, major, minor);
	if (major < 9) {
		printf("SKIP: TMA and clusters need sm_90\n");
		mmart_close(ctx);
		return 77;
	}
	for (size_t r = 0; r < ROWS; r++)
		for (size_t c = 0; c < PITCH; c++)
			a[r * PITCH + c] = c < COLS ? random_bf16() : SENTINEL;

	EXPECT(mmart_stream_create(ctx, &stream) == MMART_OK);
	EXPECT(mmart_event_create(ctx, &ev0) == MMART_OK);
	EXPECT(mmart_event_create(ctx, &ev1) == MMART_OK);
	cfg.stream = stream;
	EXPECT(mmart_alloc(ctx, a_bytes, &da) == MMART_OK);
	EXPECT(mmart_alloc(ctx, out_bytes, &dout) == MMART_OK);
	EXPECT(mmart_alloc(ctx, info_bytes, &dinfo) == MMART_OK);
	EXPECT(mmart_copy_to_device_async(ctx, da, a, a_bytes, stream)
	       == MMART_OK);
	EXPECT(mmart_memset8_async(ctx, dout, POISON8, out_bytes, stream)
	       == MMART_OK);
	EXPECT(mmart_memset8_async(ctx, dinfo, POISON8, info_bytes, stream)
	       == MMART_OK);

	desc = matrix_desc(da);
	EXPECT(mmart_tensor_map_encode(ctx, "A", &desc, &map) == MMART_OK);
	/* With a context too, the checks come before the driver. */
	desc.addr = da + 2;
	EXPECT(mmart_tensor_map_encode(ctx, "A", &desc, &map)
	       == MMART_INVALID_ARGUMENT);
	EXPECT(strstr(mmart_last_error(), "A: global address") != NULL);
	desc = matrix_desc(da);
	EXPECT(mmart_tensor_map_encode(ctx, "A", &desc, &map) == MMART_OK);

	EXPECT(mmart_load_ptx(ctx, tma_ptx, &mod, NULL) == MMART_OK);
	if (mod)
		EXPECT(mmart_get_function(mod, "tma_copy", &fn) == MMART_OK);
	if (!fn)
		goto out;

	/* 80 KB without raising the limit: refused, with the hint. */
	s = mmart_launch_ex(ctx, fn, &cfg, params);
	printf("launch before the attribute: %s: %s\n", mmart_status_str(s),
	       mmart_last_error());
	EXPECT(s != MMART_OK);
	EXPECT(strstr(mmart_last_error(), "mmart_func_set_max_dynamic_smem")
	       != NULL);
	/* More than the device has: refused by our check. */
	s = mmart_func_set_max_dynamic_smem(ctx, fn, 1u << 20);
	printf("1 MB of shared memory: %s\n", mmart_last_error());
	EXPECT(s == MMART_INVALID_ARGUMENT);
	EXPECT(strstr(mmart_last_error(), "at most") != NULL);
	EXPECT(mmart_func_set_max_dynamic_smem(ctx, fn, SMEM_BYTES)
	       == MMART_OK);

	EXPECT(mmart_launch_ex(ctx, fn, &cfg, params) == MMART_OK);
	EXPECT(mmart_copy_to_host_async(ctx, out, dout, out_bytes, stream)
	       == MMART_OK);
	EXPECT(mmart_copy_to_host_async(ctx, info, dinfo, info_bytes, stream)
	       == MMART_OK);
	EXPECT(mmart_stream_sync(ctx, stream) == MMART_OK);
	check_boxes(a, out, info);

	/* Timing on the stream: the event pair spans reps launches. */
	EXPECT(mmart_event_record(ctx, ev0, stream) == MMART_OK);
	for (int i = 0; i < reps; i++)
		EXPECT(mmart_launch_ex(ctx, fn, &cfg, params) == MMART_OK);
	EXPECT(mmart_event_record(ctx, ev1, stream) == MMART_OK);
	EXPECT(mmart_event_elapsed_ms(ctx, ev0, ev1, &ms) == MMART_OK);
	EXPECT(ms > 0 && ms < 1000);
	printf("tma_copy, %d boxes of %d bytes, cluster 2x1x1, %u bytes of "
	       "shared memory: %.2f us per launch\n", BOXES_X * BOXES_Y,
	       BOX_BYTES, SMEM_BYTES, ms * 1000 / reps);
	/* The repeated launches left the same result. */
	memset(out, 0, out_bytes);
	EXPECT(mmart_copy_to_host_async(ctx, out, dout, out_bytes, stream)
	       == MMART_OK);
	EXPECT(mmart_stream_sync(ctx, stream) == MMART_OK);
	check_boxes(a, out, info);
out:
	EXPECT(mmart_free(ctx, da) == MMART_OK);
	EXPECT(mmart_free(ctx, dout) == MMART_OK);
	EXPECT(mmart_free(ctx, dinfo) == MMART_OK);
	EXPECT(mmart_event_destroy(ctx, ev0) == MMART_OK);
	EXPECT(mmart_event_destroy(ctx, ev1) == MMART_OK);
	EXPECT(mmart_stream_destroy(ctx, stream) == MMART_OK);
	mmart_close(ctx);
	free(a);
	free(out);
	free(info);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--ptxas"))
		return run_ptxas(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_tma [--ptxas PTXAS DIR]\n");
		return 2;
	}
	return run_gpu();
}
