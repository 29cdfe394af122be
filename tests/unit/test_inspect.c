/* test_inspect.c - the inspect API (mmagen.h) on the CPU: the SASS
 * classifier and the verdicts on hand-written disassemblies (both
 * nvdisasm's and cuobjdump's layout) of known cases, the fields it reads
 * from mnemonics, ELF and fatbinary containers built here byte by byte,
 * and some 20000 mutated or truncated containers, which must give a status
 * (never a crash or a read outside the buffer: run it under valgrind or
 * ASan to see the latter). */
#include "mmagen.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry kn() { mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0}, {%r0}, {%r1}, {%f0}; }\n"
	".visible .entry kc() { mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f0}, {%r0}, {%r1}, {%f0}; }\n"
	".visible .entry ke() { mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%r0}, {%r0}, {%r1}, {%r0}; }\n"
	".visible .entry kz() { mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0}, {%r0}, {%r1}, {%f0}; }\n"
	".visible .entry kx() { mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r0}, {%r0}, {%r1}, {%r0}; }\n"
	".visible .entry kw() { wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%f0}, %rd0, %rd1, 1, 1, 1; }\n";

/* nvdisasm -c layout */
static const char nvdisasm_text[] =
	"\t.target\tsm_90\n"
	"//--------------------- .text.kn --------------------------\n"
	"\t.section\t.text.kn,\"ax\",@progbits\n"
	"kn:\n.text.kn:\n"
	"        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
	"        /*0170*/                   HMMA.16816.F32.BF16 R4, R4, R18, RZ ;\n"
	"\t.section\t.text.kc,\"ax\",@progbits\n"
	"kc:\n"
	"        /*0010*/                   F2FP.F16.E4M3.UNPACK_B R2, R2 ;\n"
	"        /*0020*/              @!P0 HMMA.16816.F32 R4, R4, R18, RZ ;\n"
	"        /*0030*/                   HMMA.16816.F32 R4, R8, R18, R4 ;\n"
	"\t.section\t.text.ke,\"ax\",@progbits\n"
	"ke:\n"
	"        /*00e0*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm_9x_mma_sub_byte_internal_m16n8k64_s4_s4) ;\n"
	"$__internal_0_$__cuda_sm_9x_mma_sub_byte_internal_m16n8k64_s4_s4:\n"
	"        /*0c80*/                   IMMA.16832.S8.S8 R8, R8.ROW, R12.COL, RZ ;\n"
	"        /*0ca0*/                   IMMA.16832.S8.S8 R4, R4.ROW, R2.COL, RZ ;\n"
	"\t.section\t.text.kz,\"ax\",@progbits\n"
	"kz:\n"
	"        /*0000*/                   FFMA R1, R2, R3, R4 ;\n"
	"\t.section\t.text.kx,\"ax\",@progbits\n"
	"kx:\n"
	"        /*0000*/                   BMMA.88128.AND.POPC R4, R4.ROW, R2.COL, RZ ;\n";

/* cuobjdump -sass layout */
static const char cuobjdump_text[] =
	"\tcode for sm_90a\n\t\tFunction : kw\n"
	"\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
	"        /*0100*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;   /* 0x0 */\n";

static const mmagen_inspect_verdict *verdict_of(const mmagen_inspect *r, const char *k)
{
	for (size_t i = 0; i < mmagen_inspect_verdict_count(r); i++)
		if (!strcmp(mmagen_inspect_verdict_at(r, i)->kernel, k))
			return mmagen_inspect_verdict_at(r, i);
	return NULL;
}

static const mmagen_inspect_op *sass_op(const mmagen_inspect *r, const char *text)
{
	for (size_t i = 0; i < mmagen_inspect_op_count(r); i++) {
		const mmagen_inspect_op *o = mmagen_inspect_op_at(r, i);
		if (o->sass && !strcmp(o->text, text))
			return o;
	}
	return NULL;
}

static void test_verdicts(void)
{
	static const struct { const char *kernel; unsigned verdict; const char *target; } want[] = {
		{ "kn", MMAGEN_VERDICT_NATIVE, "sm_90" },
		{ "kc", MMAGEN_VERDICT_CONVERTED, "sm_90" },
		{ "ke", MMAGEN_VERDICT_EMULATED, "sm_90" },
		{ "kz", MMAGEN_VERDICT_EMULATED, "sm_90" },
		{ "kx", MMAGEN_VERDICT_CONVERTED, "sm_90" },   /* AND for XOR, no helper */
		{ "kw", MMAGEN_VERDICT_NATIVE, "sm_90a" },
	};
	mmagen_inspect *r;
	const mmagen_inspect_op *o;

	CHECK(!mmagen_inspect_buffer(ptx, sizeof ptx - 1, &r), "PTX: %s", mmagen_last_error());
	CHECK(mmagen_inspect_image_count(r) == 1 &&
	      mmagen_inspect_image_at(r, 0)->kind == MMAGEN_IMG_PTX &&
	      mmagen_inspect_image_at(r, 0)->sm == 90, "one PTX image for sm_90");
	CHECK(!mmagen_inspect_add_sass(r, NULL, nvdisasm_text, sizeof nvdisasm_text - 1), "nvdisasm text");
	CHECK(!mmagen_inspect_add_sass(r, NULL, cuobjdump_text, sizeof cuobjdump_text - 1), "cuobjdump text");
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const mmagen_inspect_verdict *v = verdict_of(r, want[i].kernel);
		CHECK(v && v->verdict == want[i].verdict && !strcmp(v->target, want[i].target),
		      "%s: verdict %s on %s, want %s on %s (%s)", want[i].kernel,
		      v ? mmagen_inspect_verdict_name(v->verdict) : "none", v ? v->target : "-",
		      mmagen_inspect_verdict_name(want[i].verdict), want[i].target, v ? v->reason : "");
	}
	CHECK(mmagen_inspect_verdict_count(r) == 6, "%zu verdicts, want 6",
	      mmagen_inspect_verdict_count(r));
	/* what the mnemonics say */
	o = sass_op(r, "HMMA.16816.F32.BF16");
	CHECK(o && o->a == MMAGEN_BF16 && o->d == MMAGEN_F32 && !strcmp(o->shape, "16816") &&
	      !strcmp(o->family, "HMMA") && o->count == 1, "HMMA.16816.F32.BF16 fields");
	o = sass_op(r, "HMMA.16816.F32");
	CHECK(o && o->a == MMAGEN_F16 && o->count == 2 && !strcmp(o->kernel, "kc"),
	      "HMMA.16816.F32: f16 inputs, twice in kc (one predicated)");
	o = sass_op(r, "IMMA.16832.S8.S8");
	CHECK(o && o->a == MMAGEN_S8 && o->helper && strstr(o->helper, "sub_byte") && o->count == 2,
	      "IMMA.16832.S8.S8 in the emulation routine");
	o = sass_op(r, "F2FP.F16.E4M3.UNPACK_B");
	CHECK(o && !strcmp(o->family, "convert"), "F2FP unpack is a conversion");
	o = sass_op(r, "QGMMA.64x128x32.F32.E4M3.E4M3");
	CHECK(o && o->a == MMAGEN_E4M3 && o->b == MMAGEN_E4M3 && !strcmp(o->target, "sm_90a"),
	      "QGMMA fields and target");
	CHECK(!sass_op(r, "FFMA") && !sass_op(r, "CALL.REL.NOINC") && !sass_op(r, "LDC"),
	      "other instructions are not listed");
	mmagen_inspect_free(r);
}

/* ---- containers built byte by byte ---- */
static size_t put(unsigned char *b, size_t at, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[at + i] = (unsigned char)(v >> (8 * i));
	return at + bytes;
}

/* A fatbinary holding `ptx` as one PTX entry; returns its size. */
static size_t make_fatbin(unsigned char *b)
{
	size_t plen = strlen(ptx);
	memset(b, 0, 16 + 64 + plen);
	put(b, 0, 0xBA55ED50u, 4);
	put(b, 4, 1, 2);
	put(b, 6, 16, 2);
	put(b, 8, 64 + plen, 8);
	put(b, 16, 1, 2);          /* PTX */
	put(b, 20, 64, 4);
	put(b, 24, plen, 8);
	put(b, 44, 90, 4);
	put(b, 56, 0x11, 8);
	memcpy(b + 80, ptx, plen);
	return 80 + plen;
}

/* A host ELF64 with a .nv_fatbin section; returns its size. */
static size_t make_elf(unsigned char *b)
{
	static const char names[] = "\0.nv_fatbin\0.shstrtab";
	size_t fb = 64, fl = make_fatbin(b + 64), so = fb + fl, sh = so + sizeof names;

	memset(b, 0, 64);
	memcpy(b, "\177ELF\2\1\1", 7);
	put(b, 16, 1, 2);
	put(b, 18, 62, 2);         /* x86-64 */
	put(b, 40, sh, 8);
	put(b, 58, 64, 2);
	put(b, 60, 3, 2);
	put(b, 62, 2, 2);
	memcpy(b + so, names, sizeof names);
	memset(b + sh, 0, 3 * 64);
	put(b, sh + 64, 1, 4);
	put(b, sh + 64 + 4, 1, 4);
	put(b, sh + 64 + 24, fb, 8);
	put(b, sh + 64 + 32, fl, 8);
	put(b, sh + 128, 12, 4);
	put(b, sh + 128 + 4, 3, 4);
	put(b, sh + 128 + 24, so, 8);
	put(b, sh + 128 + 32, sizeof names, 8);
	return sh + 3 * 64;
}

static unsigned kernels_with_ptx(const mmagen_inspect *r)
{
	unsigned n = 0;
	for (size_t i = 0; i < mmagen_inspect_op_count(r); i++)
		n += !mmagen_inspect_op_at(r, i)->sass;
	return n;
}

static void test_containers(void)
{
	static unsigned char b[8192], m[8192];
	mmagen_inspect *r;
	size_t n = make_elf(b);
	uint64_t x = 0x9e3779b97f4a7c15u;
	unsigned ok = 0;

	CHECK(!mmagen_inspect_buffer(b, n, &r), "ELF: %s", mmagen_last_error());
	if (r) {
		CHECK(mmagen_inspect_image_count(r) == 1 &&
		      mmagen_inspect_image_at(r, 0)->kind == MMAGEN_IMG_PTX &&
		      mmagen_inspect_image_at(r, 0)->sm == 90 &&
		      strstr(mmagen_inspect_image_at(r, 0)->where, ".nv_fatbin"),
		      "the PTX entry of .nv_fatbin");
		CHECK(kernels_with_ptx(r) == 6, "6 PTX ops through ELF + fatbin, got %u",
		      kernels_with_ptx(r));
		mmagen_inspect_free(r);
	}
	/* every prefix, then random byte changes */
	for (size_t cut = 0; cut < n; cut++) {
		if (!mmagen_inspect_buffer(b, cut, &r)) {
			ok++;
			mmagen_inspect_free(r);
		}
	}
	for (unsigned it = 0; it < 20000; it++) {
		char *text;
		memcpy(m, b, n);
		for (unsigned k = 0; k < 1 + it % 8; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			m[(x >> 8) % n] = (unsigned char)x;
		}
		if (mmagen_inspect_buffer(m, n, &r))
			continue;
		ok++;
		mmagen_inspect_add_sass(r, NULL, (const char *)m, n);
		if (!mmagen_inspect_render(r, MMAGEN_FMT_JSON, &text, NULL))
			mmagen_free(text);
		mmagen_inspect_free(r);
	}
	CHECK(ok > 0, "some mutated containers still read");
	CHECK(mmagen_inspect_buffer(NULL, 4, &r) == MMAGEN_INVALID_ARGUMENT, "NULL data");
	CHECK(mmagen_inspect_buffer("garbage!", 8, &r) == MMAGEN_INVALID_ARGUMENT && !r,
	      "not PTX/ELF/fatbin");
	/* a fatbinary header that claims 2^40 bytes: refused with the reason,
	 * not a report of nothing */
	unsigned char hdr[16];
	put(hdr, 0, 0xBA55ED50u, 4);
	put(hdr, 4, 1, 2);
	put(hdr, 6, 16, 2);
	put(hdr, 8, 1ull << 40, 8);
	CHECK(mmagen_inspect_buffer(hdr, sizeof hdr, &r) == MMAGEN_INVALID_ARGUMENT && !r &&
	      strstr(mmagen_last_error(), "cut short"), "a cut-short fatbinary: %s", mmagen_last_error());
	CHECK(mmagen_inspect_render(NULL, MMAGEN_FMT_TEXT, NULL, NULL) == MMAGEN_INVALID_ARGUMENT,
	      "render NULL");
}

int main(void)
{
	test_verdicts();
	test_containers();
	return check_summary();
}
