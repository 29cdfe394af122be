/* check_peak.c - the issue-peak kernels of `mmagen bench instr`
 * (mmagen_emit_peak) against ptxas, and their loops against nvdisasm.
 *
 *   check_peak PTXAS DIR TARGET [EXCEPT]
 *     every mma.sync / mma.sp form on TARGET (one per opcode; with EXCEPT,
 *     only those that target lacks) gets a peak kernel that assembles, but
 *     those ptxas emulates there (FP8 and INT4 on sm_90), which are refused;
 *     every other form of TARGET is refused with MMAGEN_UNSUPPORTED.
 *   check_peak PTXAS DIR --sass
 *     for a few native forms, the peak kernel's SASS has a multiple of
 *     MMAGEN_PEAK_COPIES times the tensor instructions the form's
 *     one-instruction module has (ptxas unrolls the loop; it must not
 *     drop it, or any accumulator set).  nvdisasm from $NVDISASM, PATH,
 *     /usr/local/cuda/bin or where .ci/deps puts the pip wheel.
 *     Also the sm_90a GEMM (mmagen_gemm_emit): the consumers' K loop
 *     (the smallest loop around each wgmma, GMMA in SASS) has no R2UR,
 *     i.e. ptxas keeps the stage, barriers and wgmma descriptors in
 *     uniform registers, which it does once the warpgroup index comes
 *     from lane 0 (shfl.sync.idx); the same kernel without that shfl must
 *     show R2UR there.  Among them an FP8 16x64 tile, whose K loop takes
 *     K blocks in pairs.
 *
 * Exit 77 without ptxas, or for --sass without nvdisasm (said why). */
#define _POSIX_C_SOURCE 200809L
#include "table.h"
#include "check.h"
#include "ptx_slots.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ptxas, *dir;

static int write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int bad = !fp || fputs(text, fp) < 0;
	if (fp && fclose(fp))
		bad = 1;
	if (bad)
		printf("FAIL: cannot write %s\n", path);
	return bad;
}

/* ptxas on `text` for target t, the cubin to `cubin` (NULL: none). */
static int assemble(const char *text, int t, const char *what, const char *cubin)
{
	char path[600], cmd[2000];

	snprintf(path, sizeof path, "%s/peak_%ld.ptx", dir, (long)getpid());
	if (write_text(path, text))
		return 1;
	snprintf(cmd, sizeof cmd, "'%s' -arch=%s '%s' -o '%s' >'%s.log' 2>&1", ptxas,
		 mmagen_target_name(t), path, cubin ? cubin : "/dev/null", path);
	if (system(cmd)) {
		printf("FAIL: %s does not assemble on %s (see %s.log)\n", what,
		       mmagen_target_name(t), path);
		return 1;
	}
	unlink(path);
	strncat(path, ".log", sizeof path - strlen(path) - 1);
	unlink(path);
	return 0;
}

static void peak_one(const mmagen_form *f, int t)
{
	char op[256], what[300], *ptx;
	double ops;

	mmagen_form_opcode(f, op, sizeof op);
	if (mmagen_peak_ops(f, &ops)) {
		CHECK(mmagen_emit_peak(f, t, &ptx, NULL) == MMAGEN_UNSUPPORTED &&
		      strstr(mmagen_last_error(), "only mma.sync / mma.sp forms"), "%s refused", op);
		CHECK(f->family != MMAGEN_FAM_MMA || f->block_scale, "%s has no peak kernel", op);
		return;
	}
	/* 2*m*n*k (mma.sp: its logical K), but four times for m8n8k4 with
	 * f16 inputs: each of the warp's quad-pairs does its own m8n8k4 */
	int quads = f->m == 8 && f->n == 8 && f->k == 4 && f->a == MMAGEN_F16;
	CHECK(ops == 2.0 * f->m * f->n * f->k * (quads ? 4 : 1), "%s: %g operations", op, ops);
	/* forms ptxas emulates on t (plan's table): refused, saying so */
	if (mmagen_form_emulated(f, t)) {
		CHECK(mmagen_emit_peak(f, t, &ptx, NULL) == MMAGEN_UNSUPPORTED &&
		      strstr(mmagen_last_error(), "time a native form"), "%s on %s refused as emulated",
		      op, mmagen_target_name(t));
		return;
	}
	if (mmagen_emit_peak(f, t, &ptx, NULL)) {
		CHECK(0, "%s on %s: %s", op, mmagen_target_name(t), mmagen_last_error());
		return;
	}
	snprintf(what, sizeof what, "the peak kernel of %s", op);
	assemble(ptx, t, what, NULL) ? failed++ : passed++;
	mmagen_free(ptx);
}

static int sweep(const char *target, const char *except)
{
	char prev[256] = "", op[256];
	int t, x = -1;

	if (mmagen_target_parse(target, &t) || (except && mmagen_target_parse(except, &x)))
		return printf("FAIL: %s\n", mmagen_last_error()), 1;
	for (size_t i = 0; i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		if (!mmagen_form_on_target(f, t) || (except && mmagen_form_on_target(f, x)) ||
		    !strcmp(mmagen_form_opcode(f, op, sizeof op), prev))
			continue;
		snprintf(prev, sizeof prev, "%s", op);
		peak_one(f, t);
	}
	return check_summary();
}

/* ---- --sass ---- */

static int executable(const char *p)
{
	return p && *p && !access(p, X_OK);
}

/* nvdisasm's path into buf, or 0. */
static int find_nvdisasm(char *buf, size_t n)
{
	const char *env = getenv("NVDISASM"), *path = getenv("PATH"), *home = getenv("HOME");
	const char *tools = getenv("MMAGEN_CUDA_TOOLS");
	char pat[600];
	glob_t g;

	if (executable(env))
		return snprintf(buf, n, "%s", env), 1;
	for (const char *p = path; p && *p; p += strcspn(p, ":"), p += *p == ':') {
		snprintf(buf, n, "%.*s/nvdisasm", (int)strcspn(p, ":"), p);
		if (executable(buf))
			return 1;
	}
	snprintf(buf, n, "/usr/local/cuda/bin/nvdisasm");
	if (executable(buf))
		return 1;
	snprintf(pat, sizeof pat, "%s%s/nvidia/cu*/bin/nvdisasm", tools ? tools : home ? home : "",
		 tools ? "" : "/.local/mmagen-cuda-tools");
	int found = !glob(pat, 0, NULL, &g) && g.gl_pathc && executable(g.gl_pathv[0]);
	if (found)
		snprintf(buf, n, "%s", g.gl_pathv[0]);
	globfree(&g);
	return found;
}

/* Tensor-core instructions (a mnemonic with MMA in it) in the cubin's
 * SASS; *name gets the first one's mnemonic.  -1 if nvdisasm failed. */
static int count_mma(const char *nvdisasm, const char *cubin, char *name, size_t n)
{
	char cmd[1400], line[1024];
	int count = 0;

	snprintf(cmd, sizeof cmd, "'%s' -c '%s'", nvdisasm, cubin);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof line, p)) {
		char *s = strstr(line, "*/");          /* after the address */
		if (!s)
			continue;
		s += 2 + strspn(s + 2, " \t");
		if (*s == '@')                         /* a predicate */
			s += strcspn(s, " \t"), s += strspn(s, " \t");
		size_t len = strcspn(s, " \t;");
		char mn[128];
		snprintf(mn, sizeof mn, "%.*s", (int)(len < sizeof mn ? len : sizeof mn - 1), s);
		if (!strstr(mn, "MMA") || mn[0] < 'A' || mn[0] > 'Z')
			continue;
		if (!count++)
			snprintf(name, n, "%s", mn);
	}
	return pclose(p) ? -1 : count;
}

/* Forms whose SASS is native on their target (tests/inspect/truth.txt):
 * one per kind of tensor instruction. */
static const char *const sass_forms[][2] = {
	{ "sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" },      /* HMMA */
	{ "sm_80", "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32" },           /* IMMA */
	{ "sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" },       /* QMMA */
	{ "sm_90", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64" },           /* DMMA */
	{ "sm_80", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32" },
};

static void sass_one(const char *nvdisasm, const char *target, const char *opcode)
{
	char one[600], loop[600], mn[128] = "", what[400];
	char *ptx = NULL, *mod = NULL;
	const mmagen_form *f;
	mmagen_request r;
	int t;

	mmagen_request_init(&r);
	r.opcode = opcode;
	if (mmagen_target_parse(target, &t) || (r.target = t, mmagen_select(&r, &f)) ||
	    mmagen_emit_instr(f, t, MMAGEN_FMT_PTX, &mod, NULL) || mmagen_emit_peak(f, t, &ptx, NULL)) {
		CHECK(0, "%s on %s: %s", opcode, target, mmagen_last_error());
		goto out;
	}
	snprintf(one, sizeof one, "%s/peak_%ld_one.cubin", dir, (long)getpid());
	snprintf(loop, sizeof loop, "%s/peak_%ld_loop.cubin", dir, (long)getpid());
	snprintf(what, sizeof what, "%s (one instruction)", opcode);
	if (assemble(mod, t, what, one) || assemble(ptx, t, opcode, loop)) {
		failed++;
		goto out;
	}
	int per = count_mma(nvdisasm, one, mn, sizeof mn);
	int got = count_mma(nvdisasm, loop, mn, sizeof mn);
	int want = MMAGEN_PEAK_COPIES * per;
	printf("%s %s: %d x %s in one instruction's SASS, %d in the loop's (%d a pass)\n", target,
	       opcode, per, mn, got, want);
	CHECK(per > 0 && got >= want && got % want == 0,
	      "%s on %s: %d tensor instructions in the loop, want a multiple of %d x %d", opcode,
	      target, got, MMAGEN_PEAK_COPIES, per);
	unlink(one);
	unlink(loop);
out:
	mmagen_free(ptx);
	mmagen_free(mod);
}

/* The R2UR in the sm_90a GEMM's K loops: for each GMMA, the smallest
 * span from a label to a later branch back to it that holds the GMMA
 * (a retry branch from out-of-line code spans more and is not taken);
 * *most gets the most R2UR in one such loop, *loose the GMMAs in none.
 * The number of distinct K loops, or -1 if nvdisasm failed. */
static int r2ur_in_k_loops(const char *nvdisasm, const char *cubin, int *most, int *loose)
{
	char cmd[1400], line[1024];
	size_t n = 0, cap = 4096;
	char **sass = malloc(cap * sizeof *sass);
	int loops = 0;

	*most = 0;
	*loose = 0;
	snprintf(cmd, sizeof cmd, "'%s' -c '%s'", nvdisasm, cubin);
	FILE *p = popen(cmd, "r");
	if (!p || !sass) {
		free(sass);
		return -1;
	}
	while (fgets(line, sizeof line, p)) {
		if (n == cap)
			sass = realloc(sass, (cap *= 2) * sizeof *sass);
		sass[n] = malloc(strlen(line) + 1);
		strcpy(sass[n++], line);
	}
	int bad = pclose(p) != 0;
	size_t prev_lo = 0, prev_hi = 0;
	for (size_t g = 0; g < n && !bad; g++) {
		if (!strstr(sass[g], "GMMA"))
			continue;
		size_t lo = 0, hi = 0;
		for (size_t b = g; b < n; b++) {      /* branches after it, back to a label before */
			const char *t = strstr(sass[b], "BRA");
			t = t ? strstr(t, "`(") : NULL;
			if (!t)
				continue;
			char label[64];
			snprintf(label, sizeof label, "%.*s:", (int)strcspn(t + 2, ")"), t + 2);
			for (size_t l = 0; l < g; l++)
				if (!strncmp(sass[l], label, strlen(label)) && (!hi || b - l < hi - lo))
					lo = l, hi = b;
		}
		if (!hi) {
			++*loose;
			continue;
		}
		if (lo == prev_lo && hi == prev_hi)
			continue;
		prev_lo = lo, prev_hi = hi;
		loops++;
		int r2ur = 0;
		for (size_t i = lo; i <= hi; i++)
			r2ur += strstr(sass[i], "R2UR") != NULL;
		*most = r2ur > *most ? r2ur : *most;
	}
	for (size_t i = 0; i < n; i++)
		free(sass[i]);
	free(sass);
	return bad ? -1 : loops;
}


/* One GEMM variant (and, without_shfl, the same kernel without the
 * warpgroup index's shfl): 0 R2UR on the way to the wgmma, or some. */
static void sass_gemm(const char *nvdisasm, mmagen_type a, mmagen_type out, unsigned tile_m,
		      unsigned tile_n, unsigned split, int without_shfl)
{
	char cubin[600], what[200];
	char *ptx = NULL;
	mmagen_gemm_request r;
	int t, most = 0;

	mmagen_gemm_request_init(&r);
	mmagen_target_parse("sm_90a", &t);
	r.target = t;
	r.a = r.b = a;
	r.out = out;
	r.tile_m = tile_m;
	r.tile_n = tile_n;
	r.split_k = split;
	char tile[40] = "";
	if (tile_n)
		snprintf(tile, sizeof tile, ", tile %ux%u", tile_m ? tile_m : 128, tile_n);
	else if (tile_m)
		snprintf(tile, sizeof tile, ", tile M %u", tile_m);
	snprintf(what, sizeof what, "gemm %s -> %s%s%s%s", mmagen_type_name(a), mmagen_type_name(out),
		 tile, split ? ", split-K auto" : "", without_shfl ? ", without the shfl" : "");
	if (mmagen_gemm_emit(&r, MMAGEN_FMT_PTX, &ptx, NULL)) {
		CHECK(0, "%s: %s", what, mmagen_last_error());
		return;
	}
	/* FP8 tiles of 16-64 rows up to 128 wide: the K loop's pair path */
	if (a == MMAGEN_E4M3 && tile_m && tile_m < 128 && tile_n && tile_n <= 128)
		CHECK(strstr(ptx, "$c_pair_done:") != NULL, "%s: the kernel takes K blocks in pairs", what);
	/* the template's {{wg}}: its `// slots:` comment names the register */
	const char *wg = ptx_slot(ptx, "wg");
	char wg_shfl[96];
	snprintf(wg_shfl, sizeof wg_shfl, "\tshfl.sync.idx.b32 %s, %s, 0, 31, -1;\n", wg ? wg : "?",
		 wg ? wg : "?");
	char *at = strstr(ptx, wg_shfl);
	CHECK(at != NULL, "%s: the kernel takes wg from lane 0 (%s)", what, "shfl.sync.idx");
	if (at && without_shfl)
		memmove(at, at + strlen(wg_shfl), strlen(at + strlen(wg_shfl)) + 1);
	snprintf(cubin, sizeof cubin, "%s/gemm_sass_%ld.cubin", dir, (long)getpid());
	if (assemble(ptx, t, what, cubin)) {
		failed++;
		mmagen_free(ptx);
		return;
	}
	int loose = 0, loops = r2ur_in_k_loops(nvdisasm, cubin, &most, &loose);
	printf("%s: %d K loop(s) around its wgmma, at most %d R2UR in one\n", what, loops, most);
	CHECK(loops > 0 && !loose, "%s: %d K loops in the SASS, %d GMMA outside any loop", what,
	      loops, loose);
	if (without_shfl)
		CHECK(most > 0, "%s: no R2UR in the K loop even without the shfl: the check sees nothing", what);
	else
		CHECK(most == 0, "%s: %d R2UR in the K loop (descriptors out of uniform registers)", what,
		      most);
	unlink(cubin);
	mmagen_free(ptx);
}

static int sass(void)
{
	char nvdisasm[600];

	if (!find_nvdisasm(nvdisasm, sizeof nvdisasm))
		return printf("SKIP: no nvdisasm ($NVDISASM, PATH, /usr/local/cuda/bin, or "
			      "pip install nvidia-cuda-nvdisasm as .ci/deps does)\n"), 77;
	for (size_t i = 0; i < sizeof sass_forms / sizeof *sass_forms; i++)
		sass_one(nvdisasm, sass_forms[i][0], sass_forms[i][1]);
	sass_gemm(nvdisasm, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 0, 0);
	sass_gemm(nvdisasm, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0, 0);
	sass_gemm(nvdisasm, MMAGEN_TF32, MMAGEN_F32, 0, 0, 0, 0);
	sass_gemm(nvdisasm, MMAGEN_S8, MMAGEN_S32, 0, 0, 0, 0);
	sass_gemm(nvdisasm, MMAGEN_E4M3, MMAGEN_BF16, 64, 0, MMAGEN_GEMM_SPLIT_AUTO, 0);
	sass_gemm(nvdisasm, MMAGEN_BF16, MMAGEN_F32, 0, 0, MMAGEN_GEMM_SPLIT_AUTO, 0);
	/* FP8 tiles of 16-64 rows take K blocks in pairs (two loops' worth
	 * of wgmma around one wait) */
	sass_gemm(nvdisasm, MMAGEN_E4M3, MMAGEN_BF16, 16, 64, 0, 0);
	sass_gemm(nvdisasm, MMAGEN_E4M3, MMAGEN_BF16, 0, 0, 0, 1);
	sass_gemm(nvdisasm, MMAGEN_BF16, MMAGEN_BF16, 0, 0, 0, 1);
	return check_summary();
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5)
		return fprintf(stderr, "usage: check_peak PTXAS DIR TARGET [EXCEPT] | check_peak PTXAS DIR --sass\n"), 2;
	ptxas = argv[1];
	dir = argv[2];
	if (access(ptxas, X_OK))
		return printf("SKIP: ptxas not found (%s)\n", ptxas), 77;
	if (!strcmp(argv[3], "--sass"))
		return sass();
	return sweep(argv[3], argc == 5 ? argv[4] : NULL);
}
