/* target.c - the targets of targets.def and their names. */
#include "table.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct target mmagen_targets[T_COUNT] = {
#define TARGET(id, nm, sm_, sfx, ptx, feat, gemm_, smem) \
	[T_##id] = { .name = nm, .sm = sm_, .suffix = sfx, .min_ptx = ptx, .features = feat, \
		     .gemm = gemm_, .smem_kib = smem },
#include "targets.def"
#undef TARGET
};

int mmagen_target_count(void)
{
	return T_COUNT;
}

const char *mmagen_target_name(int t)
{
	if (t < 0 || t >= T_COUNT)
		return "unknown";
	return mmagen_targets[t].name;
}

unsigned mmagen_target_min_ptx(int t)
{
	if (t < 0 || t >= T_COUNT)
		return 0;
	return mmagen_targets[t].min_ptx;
}

uint32_t mmagen_target_features(int t)
{
	if (t < 0 || t >= T_COUNT)
		return 0;
	return mmagen_targets[t].features;
}

unsigned mmagen_target_gemm(int t)
{
	if (t < 0 || t >= T_COUNT)
		return 0;
	return mmagen_targets[t].gemm;
}

unsigned mmagen_target_smem(int t)
{
	if (t < 0 || t >= T_COUNT)
		return 0;
	return mmagen_targets[t].smem_kib * 1024u;
}

mmagen_status mmagen_target_parse(const char *s, int *out)
{
	char norm[32];
	const char *p = s;
	size_t n;
	int t, best = 0;
	long bestd = -1;

	if (!s || !*s)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"missing target; use e.g. sm_90a");
	if (!strncmp(p, "sm_", 3))
		p += 3;
	else if (!strncmp(p, "compute_", 8))
		p += 8;
	else if (!strncmp(p, "sm", 2))
		p += 2;
	n = strlen(p);
	if (n + 4 < sizeof norm) {
		snprintf(norm, sizeof norm, "sm_%s", p);
		for (char *q = norm; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		for (t = 0; t < T_COUNT; t++)
			if (!strcmp(norm, mmagen_targets[t].name)) {
				*out = t;
				return MMAGEN_OK;
			}
	}
	/* Nearest by compute capability: "sm_91" -> sm_90a's neighbours.  The
	 * digits only (no sign, no blanks), at most four of them: a long or
	 * negative number has no nearest to speak of and must not overflow. */
	size_t nd = strspn(p, "0123456789");
	if (nd == 0 || nd > 4)
		return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
			"unknown target '%s'; targets are sm_75 .. sm_121f as ptxas 13.0 "
			"knows them; see `mmagen list --targets`", s);
	int cc = 0;
	for (size_t i = 0; i < nd; i++)
		cc = cc * 10 + (p[i] - '0');
	for (t = 0; t < T_COUNT; t++) {
		long d = labs((long)mmagen_targets[t].sm - cc);
		if (bestd < 0 || d < bestd) {
			bestd = d;
			best = t;
		}
	}
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
		"unknown target '%s'; nearest: %s (targets are sm_75 .. sm_121f as ptxas 13.0 knows them; see `mmagen list --targets`)",
		s, mmagen_targets[best].name);
}
