/* kernel_peak.c - the issue-peak kernel of an mma.sync / mma.sp form
 * (templates/instr_peak.ptx.in), which `mmagen bench instr` times.
 *
 * Our GEMM reports say "x% of mma.sync's issue peak"; this kernel is that
 * peak, measurable on the user's GPU: a loop on registers alone, so that
 * neither memory nor anything but the instruction limits it.  Each warp
 * holds MMAGEN_PEAK_COPIES accumulator sets, because one chain of
 * dependent mma waits out the instruction's latency: on the H200, 8 warps
 * of 16 chains reach the peak (653 TFLOP/s bf16 sustained), 8 warps of 8
 * fall short.  The instruction line and its operands come from the table
 * (instr_of), as in every kernel: only the registers are ours. */
#include "kernel.h"

#include <string.h>

/* An element pattern and the bits of it that %tid.x may change.  Floats
 * sit near 2^-4 with the thread's bits in the mantissa alone: finite,
 * normal, never NaN, and small enough that f16 accumulators stay finite
 * through the ~10^5 passes of a 10 ms launch (products of 2^-8, K of 32 at
 * most).  FP4 cannot be that small (1.0 is its least normal): with f16
 * accumulators those sums do reach Inf, which the tensor cores run at the
 * same rate.  Integers and b1 take any bits. */
static const struct pattern {
	uint8_t type, bits;      /* the element's width in its register */
	uint64_t elem, mask;
} patterns[] = {
	{ MMAGEN_F64, 64, 0x3FB0000000000000u, 0x000FFFFFFFFFFFFFu },
	{ MMAGEN_TF32, 32, 0x3D800000u, 0x007FE000u },  /* the 10 bits tf32 reads */
	{ MMAGEN_F16, 16, 0x2C00u, 0x03FFu },
	{ MMAGEN_BF16, 16, 0x3D80u, 0x007Fu },
	{ MMAGEN_E4M3, 8, 0x18u, 0x07u },
	{ MMAGEN_E5M2, 8, 0x2Cu, 0x03u },
	/* kind::f8f6f4's byte containers: FP6 in the low 6 bits, FP4 in
	 * bits 2..5 (as check.c packs them) */
	{ MMAGEN_E3M2, 8, 0x04u, 0x03u },               /* 0.25 */
	{ MMAGEN_E2M3, 8, 0x08u, 0x07u },               /* 1.0 */
	{ MMAGEN_E2M1, 8, 0x08u, 0x04u },               /* 1.0 */
};
static const struct pattern any_bits = { 0, 32, 0x9E3779B9u, 0xFFFFFFFFu };

/* Legal 2:4 metadata in every nibble: index pairs (0,1) = 0x4 and (2,3) =
 * 0xE, ordered as .sp::ordered_metadata requires and the only pairs tf32
 * has; xor with 0xA swaps one for the other. */
#define META 0x4E4E4E4Eu
#define META_SWAP 0xAAAAAAAAu

/* Why f has no peak kernel, or NULL. */
static const char *refusal(const mmagen_form *f)
{
	switch (f->family) {
	case MMAGEN_FAM_MMA:
		return f->block_scale ? "block-scaled forms (.block_scale) need scale-factor "
			"operands (not yet); kind::f8f6f4 forms without .block_scale run" : NULL;
	case MMAGEN_FAM_WGMMA:
		return "wgmma needs shared-memory operands (not yet)";
	case MMAGEN_FAM_TCGEN05:
		return "tcgen05.mma needs shared-memory and Tensor Memory operands (not yet)";
	default:
		return "ldmatrix and stmatrix move data, they compute nothing";
	}
}

mmagen_status mmagen_peak_ops(const mmagen_form *f, double *ops)
{
	mmagen_frag fa;
	mmagen_status s;
	const char *why;

	if (!f || !ops)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_peak_ops: NULL argument");
	if ((why = refusal(f)))
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"only mma.sync / mma.sp forms run in a register loop; %s", why);
	if ((s = mmagen_frag_info(f, MMAGEN_OPND_A, &fa)))
		return s;
	/* m8n8k4 f16: each quad-pair (8 threads) does its own m8n8k4 */
	*ops = 2.0 * f->m * f->n * f->k * (32 / fa.threads);
	return MMAGEN_OK;
}

static uint64_t replicate(uint64_t elem, unsigned bits, unsigned reg_bits)
{
	uint64_t v = 0;
	for (unsigned at = 0; at < reg_bits; at += bits)
		v |= elem << at;
	return v;
}

/* Registers of operand o (element type t) from the thread's bits tw
 * (%tid.x in every byte, b32; tw64 the same in b64): register r is a
 * constant of its own xor the thread's bits, within the pattern's mask. */
static void init_input(struct kb *kb, const struct operand *o, mmagen_type t,
		       unsigned salt, kreg tw, kreg tw64)
{
	const struct pattern *p = &any_bits;
	int wide = o->reg.cls == K_F64;
	unsigned rbits = wide ? 64 : 32;

	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++)
		if (patterns[i].type == t)
			p = &patterns[i];
	uint64_t elem = replicate(p->elem, p->bits, rbits), mask = replicate(p->mask, p->bits, rbits);
	kreg m = kb_reg(kb, wide ? K_B64 : K_B32);
	if (wide)
		ke(kb, "\tand.b64 $r, $r, $X;\n", m, tw64, mask);
	else
		ke(kb, "\tand.b32 $r, $r, $x;\n", m, tw, (unsigned)mask);
	for (unsigned r = 0; r < o->reg.n; r++) {
		uint64_t c = elem ^ ((r * 2u + salt + 1) * 0x9E3779B97F4A7C15u & mask);
		if (wide)
			ke(kb, "\txor.b64 $r, $r, $X;\n", kr_at(o->reg, r), m, c);
		else
			ke(kb, "\txor.b32 $r, $r, $x;\n", kr_at(o->reg, r), m, (unsigned)c);
	}
}

/* One A and one B for every accumulator set: the sets' products are
 * equal, which a native mma cannot exploit (D = A*B + D is one
 * instruction) but an emulation can (a multiply, then an add per set:
 * forms ptxas emulates are refused).  An A of its own per set cost the
 * H200 10% (bf16 589.9 TFLOP/s against 653.6, s8 1181 TOP/s against
 * 1294; the operand reuse cache): the peak is the shared loop's. */
static void init_inputs(struct kb *kb, const mmagen_form *f, struct instr *in, kreg tid)
{
	kreg tw = kb_reg(kb, K_B32), tw64 = { 0, 0, 0 };

	ke(kb, "\t// A and B: constants xor the thread's bits\n"
	       "\tmul.lo.u32 $r, $r, 0x01010101;\n", tw, tid);
	if (tile_find_op(in, "a")->reg.cls == K_F64) {
		tw64 = kb_reg(kb, K_B64);
		ke(kb, "\tcvt.u64.u32 $r, $r;\n", tw64, tw);
	}
	init_input(kb, tile_find_op(in, "a"), (mmagen_type)f->a, 0, tw, tw64);
	init_input(kb, tile_find_op(in, "b"), (mmagen_type)f->b, 1, tw, tw64);
	if (f->sparse) {
		kreg e = tile_find_op(in, "e")->reg, x = kb_reg(kb, K_B32);
		ke(kb, "\t// E: legal metadata, one of two patterns by the lane's parity\n"
		       "\tand.b32 $r, $r, 1;\n\tmul.lo.u32 $r, $r, $x;\n\txor.b32 $r, $r, $x;\n",
		   x, tid, x, x, META_SWAP, e, x, META);
	}
}

static void zero(struct kb *kb, kreg run)
{
	static const char *const lit[K_NCLASS] = {
		[K_B32] = "0", [K_F32] = "0f00000000", [K_F64] = "0d0000000000000000",
	};
	for (unsigned r = 0; r < run.n; r++)
		ke(kb, "\tmov.$s $r, $s;\n", kclass_type(run.cls), kr_at(run, r), lit[run.cls]);
}

/* C from D where their registers differ: the one such form family is
 * m8n8k4 with f32 D and f16 C (two f32 to each f16x2 register).  The
 * conversions keep every pass depending on the last, as D = A*B + D does
 * for the rest (a C that never changed would let ptxas hoist the mma). */
static mmagen_status chain(struct kb *kb, kreg d, kreg c)
{
	if (d.cls != K_F32 || c.cls != K_B32 || d.n != 2 * c.n)
		return mmagen_set_error(MMAGEN_INTERNAL,
			"internal: no peak loop for a C of %u %s and a D of %u %s registers",
			c.n, kclass_type(c.cls), d.n, kclass_type(d.cls));
	kreg h = kb_regs(kb, K_B16, 2);
	for (unsigned r = 0; r < c.n; r++)
		ke(kb, "\tcvt.rn.f16.f32 $r, $r;\n\tcvt.rn.f16.f32 $r, $r;\n\tmov.b32 $r, $v;\n",
		   kr_at(h, 0), kr_at(d, 2 * r), kr_at(h, 1), kr_at(d, 2 * r + 1), kr_at(c, r), h);
	return MMAGEN_OK;
}

/* The loop body: one instruction per accumulator set; then the stores
 * that keep it alive, each register to its own address. */
static mmagen_status emit_loop(struct kb *kb, const mmagen_form *f, struct instr *in, kreg out)
{
	struct operand *d = tile_find_op(in, "d"), *c = tile_find_op(in, "c");
	int same = d->reg.cls == c->reg.cls && d->reg.n == c->reg.n;
	kreg acc[MMAGEN_PEAK_COPIES], cin[MMAGEN_PEAK_COPIES];
	mmagen_status s = MMAGEN_OK;
	unsigned at = 0;

	kb_at(kb, "init");
	ke(kb, "\t// $u accumulator sets, from 0\n", MMAGEN_PEAK_COPIES);
	for (unsigned j = 0; j < MMAGEN_PEAK_COPIES; j++) {
		/* kb_bind gave C registers of its own: where D = A*B + D needs
		 * none, they are set 1's D */
		acc[j] = j == 0 ? d->reg : j == 1 && same ? c->reg :
			 kb_regs(kb, (enum kclass)d->reg.cls, d->reg.n);
		cin[j] = same ? acc[j] : j ? kb_regs(kb, (enum kclass)c->reg.cls, c->reg.n) : c->reg;
		zero(kb, acc[j]);
	}
	kb_at(kb, "body");
	for (unsigned j = 0; j < MMAGEN_PEAK_COPIES && !s; j++) {
		if (!same)
			s = chain(kb, acc[j], cin[j]);
		d->reg = acc[j];
		c->reg = cin[j];
		emit_instruction(kb_buf(kb), f, in);
	}
	kb_at(kb, "store");
	for (unsigned j = 0; j < MMAGEN_PEAK_COPIES; j++)
		for (unsigned r = 0; r < acc[j].n; r++, at += 8)
			ke(kb, "\tst.global.$s [$r+$u], $r;\n", kclass_type(acc[j].cls), out, at,
			   kr_at(acc[j], r));
	return s;
}

mmagen_status mmagen_emit_peak(const mmagen_form *f, int t, char **out, size_t *len)
{
	struct instr in;
	struct kb kb;
	struct buf b;
	char op[256];
	double ops;
	mmagen_status s;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "mmagen_emit_peak: NULL argument");
	if ((s = mmagen_peak_ops(f, &ops)))
		return s;
	if (!mmagen_form_on_target(f, t))
		return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
			mmagen_form_opcode(f, op, sizeof op),
			mmagen_target_name(mmagen_form_min_target(f)), mmagen_target_name(t));
	/* a loop of unchanging operands lets ptxas's emulation convert them
	 * once and share one product among the accumulator sets: sm_90's
	 * e4m3 m16n8k32 read 1142 "TFLOP/s", more than bf16's native 653 */
	const char *why = mmagen_form_emulated(f, t);
	if (why)
		return mmagen_set_error(MMAGEN_UNSUPPORTED,
			"%s on %s is %s; a register loop would time ptxas's emulation, not a tensor instruction: time a native form (`mmagen plan` lists them per target)",
			mmagen_form_opcode(f, op, sizeof op), mmagen_target_name(t), why);
	kb_init(&kb, "instr_peak");
	instr_of(f, &in);
	kb_bind(&kb, &in);
	kb_set(&kb, "opcode", "$s", mmagen_form_opcode(f, op, sizeof op));
	kb_set(&kb, "copies", "$u", MMAGEN_PEAK_COPIES);
	kb_at(&kb, "header");
	emit_header(kb_buf(&kb), t, mmagen_form_min_ptx(f, t));
	kb_slot_reg(&kb, "n", K_B32);
	kb_slot_reg(&kb, "p", K_PRED);
	kreg tid = kb_slot_reg(&kb, "tid", K_B32), outp = kb_slot_reg(&kb, "out", K_B64);
	kb_at(&kb, "init");
	init_inputs(&kb, f, &in, tid);
	if ((s = emit_loop(&kb, f, &in, outp))) {
		kb_free(&kb);
		return s;
	}
	buf_init(&b);
	if ((s = kb_render(&kb, &b))) {
		buf_free(&b);
		return s;
	}
	return buf_finish(&b, out, len);
}
