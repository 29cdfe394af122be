/* instr.c - mmagen_emit_instr: one instruction as a PTX module
 * (module.c), a CUDA wrapper (cuda.c) or its line alone. */
#include "emit.h"
#include "family.h"

mmagen_status mmagen_emit_instr(const mmagen_form *f, int t, mmagen_format fmt,
				char **out, size_t *len)
{
	struct buf b;
	struct instr in;

	if (!f || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_emit_instr: form and output are required");
	if (!family_of(f->family) || f->row >= mmagen_row_count)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"mmagen_emit_instr: not a form of the table (family %u, row %u); "
			"take forms from mmagen_select or mmagen_form_at",
			(unsigned)f->family, (unsigned)f->row);
	if (!mmagen_form_on_target(f, t)) {
		char op[256];
		return mmagen_set_error(MMAGEN_TARGET, "%s needs target %s (got %s)",
			mmagen_form_opcode(f, op, sizeof op),
			mmagen_target_name(mmagen_form_min_target(f)),
			mmagen_target_name(t));
	}
	instr_of(f, &in);
	buf_init(&b);
	switch (fmt) {
	case MMAGEN_FMT_PTX:
		emit_module(&b, f, t);
		break;
	case MMAGEN_FMT_CUDA:
		emit_cuda(&b, &f, 1, t);
		break;
	case MMAGEN_FMT_TEXT:
		family_emitter(f->family)->opcode(f, &b);
		buf_puts(&b, " ");
		emit_operands(&b, &in);
		buf_puts(&b, ";\n");
		break;
	default:
		buf_free(&b);
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"unknown output format %d; use ptx, cuda or text", (int)fmt);
	}
	return buf_finish(&b, out, len);
}
