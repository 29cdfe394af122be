/* test_inputs.c - library entry points fed what a hostile caller would
 * (issue 11's findings): target names with numbers that overflow, a
 * block-scaled spec without an element type.  Expectations by hand. */
#include "check.h"
#include "mmagen.h"

#include <math.h>
#include <string.h>

static void target_names(void)
{
	static const char *const bad[] = {
		"sm_-9223372036854775808", "sm_9223372036854775808", "sm_-1", "sm_+90",
		"sm_ 90", "sm_99999999999999999999", "compute_-90", "sm_", "sm_x90",
	};
	int t = -5;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		mmagen_status s = mmagen_target_parse(bad[i], &t);
		const char *e = mmagen_last_error();

		check(s == MMAGEN_UNKNOWN_NAME && t == -5, "%s: status %d, target %d", bad[i],
		      (int)s, t);
		/* no number to be near: no "nearest" picked by an overflow */
		check(strstr(e, "nearest") == NULL && strstr(e, "sm_75 .. sm_121f") != NULL,
		      "%s: %s", bad[i], e);
	}
	check(mmagen_target_parse("sm_91", &t) == MMAGEN_UNKNOWN_NAME &&
	      strstr(mmagen_last_error(), "nearest: sm_90 ") != NULL, "sm_91: %s",
	      mmagen_last_error());
	check(mmagen_target_parse("sm_118", &t) == MMAGEN_UNKNOWN_NAME &&
	      strstr(mmagen_last_error(), "nearest: sm_120 ") != NULL, "sm_118: %s",
	      mmagen_last_error());
	check(mmagen_target_parse("sm_90A", &t) == MMAGEN_OK &&
	      !strcmp(mmagen_target_name(t), "sm_90a"), "sm_90A");
}

static void quant_spec_without_element(void)
{
	mmagen_quant_spec s;
	float in[32], out[32];
	uint8_t el[32], sc[1] = { 127 };

	for (int i = 0; i < 32; i++)
		in[i] = (float)i;
	for (unsigned f = MMAGEN_QF_MXFP8; f < MMAGEN_QF_END; f++) {
		check(mmagen_quant_spec_init(&s, f, MMAGEN_TYPE_NONE) == MMAGEN_OK, "init %u", f);
		s.elem = MMAGEN_TYPE_NONE;      /* every other field still right */
		memset(el, 0, sizeof el);
		out[0] = 1.0f;
		check(mmagen_dequantize(&s, el, sc, 32, out) == MMAGEN_INVALID_ARGUMENT &&
		      out[0] == 1.0f, "%s: dequantize accepts element type NONE (out %g)",
		      mmagen_qformat_name(f), (double)out[0]);
		check(mmagen_quantize(&s, in, 32, el, sc) == MMAGEN_INVALID_ARGUMENT,
		      "%s: quantize accepts element type NONE", mmagen_qformat_name(f));
		check(strstr(mmagen_last_error(), "without an element type") != NULL, "%s: %s",
		      mmagen_qformat_name(f), mmagen_last_error());
	}
	/* a zeroed spec has no block: sizes 0, no division by zero */
	size_t ne = 9, ns = 9;
	memset(&s, 0, sizeof s);
	mmagen_quant_sizes(&s, 100, &ne, &ns);
	check(ne == 0 && ns == 0, "sizes of a zeroed spec: %zu, %zu", ne, ns);
}

int main(void)
{
	target_names();
	quant_spec_without_element();
	return check_summary();
}
