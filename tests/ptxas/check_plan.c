/* check_plan.c - every instruction form that `mmagen plan` names assembles
 * with ptxas for its target: all configs on sm_80, sm_89, sm_90, sm_90a,
 * sm_100a and sm_120a, one module per target (the forms of every plan,
 * each once).  The unit test checks that each is in the table for the
 * target; this checks ptxas agrees.
 * Usage: check_plan PTXAS SCRATCHDIR.  Exit 77 without ptxas. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const targets[] = { "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a" };

int main(int argc, char **argv)
{
	struct harness h = { 0 };
	size_t nall = mmagen_form_count();
	const mmagen_form **fs = malloc((nall ? nall : 1) * sizeof *fs);
	char *ok = malloc(nall ? nall : 1), **msg = calloc(nall ? nall : 1, sizeof *msg);

	if (argc != 3)
		return fprintf(stderr, "usage: check_plan PTXAS DIR\n"), 2;
	h.ptxas = argv[1];
	h.dir = argv[2];
	if (access(h.ptxas, X_OK))
		return printf("ptxas not found: skipped\n"), 77;
	if (!fs || !ok || !msg)
		return printf("out of memory\n"), 1;
	for (size_t ti = 0; ti < sizeof targets / sizeof targets[0]; ti++) {
		int t;
		size_t n = 0;
		unsigned v = 0;

		CHECK(!mmagen_target_parse(targets[ti], &t), "%s", targets[ti]);
		for (size_t c = 0; mmagen_plan_config_name(c); c++) {
			mmagen_plan_request r;
			mmagen_plan *p;
			mmagen_plan_request_init(&r);
			r.target = t;
			r.quant = mmagen_plan_config_name(c);
			if (mmagen_plan_new(&r, &p)) {
				fail("%s on %s: %s", r.quant, targets[ti], mmagen_last_error());
				continue;
			}
			for (size_t i = 0; i < p->npaths; i++)
				for (size_t j = 0; j < p->paths[i].nforms; j++) {
					const mmagen_form *f = p->paths[i].forms[j].form;
					int dup = 0;
					for (size_t k = 0; k < n && !dup; k++)
						dup = fs[k] == f;
					if (dup)
						continue;
					fs[n++] = f;
					if (mmagen_form_min_ptx(f, t) > v)
						v = mmagen_form_min_ptx(f, t);
				}
			mmagen_plan_free(p);
		}
		if (harness_assemble(&h, t, v, fs, n, ok, msg) < 0) {
			fail("%s: ptxas could not be run", targets[ti]);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			char op[200];
			CHECK(ok[i], "%s: %s does not assemble: %s", targets[ti],
			      mmagen_form_opcode(fs[i], op, sizeof op), msg[i] ? msg[i] : "");
			free(msg[i]);
			msg[i] = NULL;
		}
		printf("%s: %zu forms named by plans, .version %u.%u\n", targets[ti], n, v / 10, v % 10);
	}
	free(fs);
	free(ok);
	free(msg);
	return check_summary();
}
