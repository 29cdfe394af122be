/* types.c - element types: names, aliases, and exact decode/encode of
 * every bit pattern.
 *
 * All floating formats narrower than f64 go through one pair of routines
 * (float_decode/float_encode) driven by the format table, so that the
 * rounding rules live in one place and do not depend on the host's half
 * types or on the FPU rounding mode.  Only f64 is a plain bit copy.
 */
#include "internal.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum type_kind {
	KIND_NONE,
	KIND_F64,	/* the host double, bit for bit */
	KIND_FLOAT,	/* sign/exponent/mantissa, parameters in the table */
	KIND_UE8M0,	/* exponent only: 2^(e-127) */
	KIND_SINT,
	KIND_UINT,
	KIND_BIT,
};

/* Which exponent/mantissa codes are not finite numbers. */
enum nan_rule {
	NAN_IEEE,	/* top exponent: mantissa 0 is Inf, else NaN */
	NAN_ALL_ONES,	/* NaN only when all bits set; no Inf */
	NAN_NONE,	/* every code is a finite number */
};

struct type_desc {
	const char *name;
	unsigned bits;		/* container width */
	enum type_kind kind;
	unsigned ebits;		/* exponent field width (KIND_FLOAT) */
	unsigned mbits;		/* stored mantissa width */
	int bias;
	enum nan_rule nan;
	unsigned is_signed;
	unsigned shift;		/* ignored low bits (tf32: 13) */
	unsigned cls;		/* TYPE_* classes (internal.h) */
};

#define FLT(e, m, b, n, s, sh) KIND_FLOAT, (e), (m), (b), (n), (s), (sh)
#define NOFLT(k) (k), 0, 0, 0, NAN_NONE, 0, 0

static const struct type_desc types[MMAGEN_TYPE_COUNT] = {
	[MMAGEN_TYPE_NONE] = { "none", 0, NOFLT(KIND_NONE), 0 },
	[MMAGEN_F64] = { "f64", 64, NOFLT(KIND_F64), TYPE_FLOAT },
	[MMAGEN_F32] = { "f32", 32, FLT(8, 23, 127, NAN_IEEE, 1, 0), TYPE_FLOAT },
	[MMAGEN_TF32] = { "tf32", 32, FLT(8, 10, 127, NAN_IEEE, 1, 13), TYPE_FLOAT },
	[MMAGEN_F16] = { "f16", 16, FLT(5, 10, 15, NAN_IEEE, 1, 0), TYPE_FLOAT },
	[MMAGEN_BF16] = { "bf16", 16, FLT(8, 7, 127, NAN_IEEE, 1, 0), TYPE_FLOAT },
	[MMAGEN_E4M3] = { "e4m3", 8, FLT(4, 3, 7, NAN_ALL_ONES, 1, 0), TYPE_FLOAT | TYPE_FP8 },
	[MMAGEN_E5M2] = { "e5m2", 8, FLT(5, 2, 15, NAN_IEEE, 1, 0), TYPE_FLOAT | TYPE_FP8 },
	[MMAGEN_E3M2] = { "e3m2", 6, FLT(3, 2, 3, NAN_NONE, 1, 0), TYPE_FLOAT | TYPE_FP6 | TYPE_SUB },
	[MMAGEN_E2M3] = { "e2m3", 6, FLT(2, 3, 1, NAN_NONE, 1, 0), TYPE_FLOAT | TYPE_FP6 | TYPE_SUB },
	[MMAGEN_E2M1] = { "e2m1", 4, FLT(2, 1, 1, NAN_NONE, 1, 0), TYPE_FLOAT | TYPE_FP4 | TYPE_SUB },
	[MMAGEN_UE8M0] = { "ue8m0", 8, NOFLT(KIND_UE8M0), TYPE_FLOAT | TYPE_SCALE },
	/* 7 value bits in an 8-bit container; bit 7 is ignored. */
	[MMAGEN_UE4M3] = { "ue4m3", 8, FLT(4, 3, 7, NAN_ALL_ONES, 0, 0), TYPE_FLOAT | TYPE_SCALE },
	[MMAGEN_S32] = { "s32", 32, NOFLT(KIND_SINT), TYPE_INT },
	[MMAGEN_S8] = { "s8", 8, NOFLT(KIND_SINT), TYPE_INT },
	[MMAGEN_U8] = { "u8", 8, NOFLT(KIND_UINT), TYPE_INT },
	[MMAGEN_S4] = { "s4", 4, NOFLT(KIND_SINT), TYPE_INT | TYPE_SUB },
	[MMAGEN_U4] = { "u4", 4, NOFLT(KIND_UINT), TYPE_INT | TYPE_SUB },
	[MMAGEN_B1] = { "b1", 1, NOFLT(KIND_BIT), TYPE_SUB },
};

#undef FLT
#undef NOFLT

static const struct type_desc *desc(mmagen_type t)
{
	if ((unsigned)t >= MMAGEN_TYPE_COUNT)
		return &types[MMAGEN_TYPE_NONE];
	return &types[t];
}

const char *mmagen_type_name(mmagen_type t)
{
	return desc(t)->name;
}

unsigned mmagen_type_bits(mmagen_type t)
{
	return desc(t)->bits;
}

int mmagen_type_is_float(mmagen_type t)
{
	return (desc(t)->cls & TYPE_FLOAT) != 0;
}

unsigned mmagen_type_class(mmagen_type t)
{
	return desc(t)->cls;
}

static uint64_t low_mask(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* ---- generic small float ---- */

static uint64_t exp_all_ones(const struct type_desc *d)
{
	return low_mask(d->ebits);
}

/* Magnitude code (exponent and mantissa fields) of the largest finite. */
static uint64_t float_max_mag(const struct type_desc *d)
{
	uint64_t all = low_mask(d->ebits + d->mbits);

	switch (d->nan) {
	case NAN_IEEE:
		return (exp_all_ones(d) << d->mbits) - 1;
	case NAN_ALL_ONES:
		return all - 1;
	case NAN_NONE:
		break;
	}
	return all;
}

/* The canonical NaN: positive, IEEE ones quiet (top mantissa bit set). */
static uint64_t float_nan_mag(const struct type_desc *d)
{
	if (d->nan == NAN_IEEE)
		return (exp_all_ones(d) << d->mbits) |
		       (UINT64_C(1) << (d->mbits - 1));
	return low_mask(d->ebits + d->mbits);
}

static double float_decode(const struct type_desc *d, uint64_t bits)
{
	uint64_t code = bits >> d->shift;
	uint64_t m = code & low_mask(d->mbits);
	uint64_t e = (code >> d->mbits) & low_mask(d->ebits);
	int neg = d->is_signed && ((code >> (d->ebits + d->mbits)) & 1);
	int emin = 1 - d->bias;
	double v;

	if (d->nan == NAN_IEEE && e == exp_all_ones(d))
		v = m ? NAN : INFINITY;
	else if (d->nan == NAN_ALL_ONES && e == exp_all_ones(d) &&
		 m == low_mask(d->mbits))
		v = NAN;
	else if (e == 0)
		v = ldexp((double)m, emin - (int)d->mbits);
	else
		v = ldexp((double)((UINT64_C(1) << d->mbits) | m),
			  (int)e - d->bias - (int)d->mbits);
	return neg ? -v : v;
}

/* Round a non-negative double to an integer, ties to even.  Done by hand
 * rather than with rint() so that it does not follow the FPU mode.
 * n - floor(n) is exact for n >= 0. */
static double round_even(double n)
{
	double r = floor(n);
	double frac = n - r;

	if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0.0))
		r += 1.0;
	return r;
}

/* Magnitude code for a finite a >= 0, or a code above float_max_mag()
 * when it overflows. */
static uint64_t float_round_mag(const struct type_desc *d, double a)
{
	int emin = 1 - d->bias;
	int emax = (int)exp_all_ones(d) - d->bias -
		   (d->nan == NAN_IEEE ? 1 : 0);
	int x;
	double n;

	if (a == 0.0)
		return 0;
	(void)frexp(a, &x);
	x -= 1;			/* a = 1.f * 2^x */
	if (x > emax)
		return float_max_mag(d) + 1;
	if (x < emin)
		x = emin;	/* subnormal: quantum fixed at emin */
	/* Scale so one unit is one quantum at a's exponent; exact, as it is
	 * a power of two and the result is small. */
	n = round_even(ldexp(a, (int)d->mbits - x));
	/* Normal codes are ((x + bias) << mbits) + (n - 2^mbits); that
	 * equals ((x + bias - 1) << mbits) + n, which also gives subnormals
	 * (x = emin, n < 2^mbits) and a mantissa carry into the next
	 * exponent without special cases. */
	return ((uint64_t)(x + d->bias - 1) << d->mbits) + (uint64_t)n;
}

/* NaN: IEEE formats get their canonical quiet NaN, e4m3/ue4m3 their one
 * NaN code.  FP6/FP4 have no NaN; we return +max there, the same place
 * the saturating formats send +Inf, rather than inventing a number. */
static uint64_t float_encode(const struct type_desc *d, double v)
{
	unsigned sign_pos = d->ebits + d->mbits;
	uint64_t sign = 0, mag;

	if (isnan(v)) {
		mag = d->nan == NAN_NONE ? float_max_mag(d) : float_nan_mag(d);
		return mag << d->shift;
	}
	if (signbit(v)) {
		if (!d->is_signed)
			return 0;	/* ue4m3: negatives (and -0) clamp */
		sign = UINT64_C(1) << sign_pos;
		v = -v;
	}
	mag = isinf(v) ? float_max_mag(d) + 1 : float_round_mag(d, v);
	if (mag > float_max_mag(d)) {
		if (d->nan == NAN_IEEE)
			mag = exp_all_ones(d) << d->mbits;	/* Inf */
		else
			mag = float_max_mag(d);		/* saturate */
	}
	return (sign | mag) << d->shift;
}

/* ---- ue8m0: a biased power of two ---- */

static double ue8m0_decode(uint64_t bits)
{
	unsigned e = (unsigned)(bits & 0xFF);

	if (e == 0xFF)
		return NAN;
	return ldexp(1.0, (int)e - 127);
}

/* Nearest power of two by value: between 2^k and 2^(k+1) the midpoint is
 * 1.5 * 2^k; exactly there we take the even exponent field. */
static uint64_t ue8m0_encode(double v)
{
	int x;
	double f;

	if (isnan(v))
		return 0xFF;
	if (!(v > 0.0))
		return 0x00;
	if (isinf(v))
		return 0xFE;
	f = 2.0 * frexp(v, &x);	/* v = f * 2^(x-1), f in [1, 2) */
	x -= 1;
	if (f > 1.5 || (f == 1.5 && (x + 127) % 2 != 0))
		x += 1;
	if (x < -127)
		x = -127;
	if (x > 127)
		x = 127;
	return (uint64_t)(x + 127);
}

/* ---- integers ---- */

static double int_min(const struct type_desc *d)
{
	return d->kind == KIND_SINT ? -ldexp(1.0, (int)d->bits - 1) : 0.0;
}

static double int_max(const struct type_desc *d)
{
	unsigned vbits = d->kind == KIND_SINT ? d->bits - 1 : d->bits;

	return ldexp(1.0, (int)vbits) - 1.0;
}

static double int_decode(const struct type_desc *d, uint64_t bits)
{
	uint64_t u = bits & low_mask(d->bits);

	if (d->kind == KIND_SINT && ((u >> (d->bits - 1)) & 1))
		return (double)u - ldexp(1.0, (int)d->bits);
	return (double)u;
}

/* Round half to even, then saturate.  NaN encodes as 0, as cvt.sat does. */
static uint64_t int_encode(const struct type_desc *d, double v)
{
	double r;

	if (isnan(v))
		return 0;
	if (v <= int_min(d))
		r = int_min(d);
	else if (v >= int_max(d))
		r = int_max(d);
	else
		r = v < 0 ? -round_even(-v) : round_even(v);
	/* r is an integer within a signed 64-bit range here. */
	return (uint64_t)(int64_t)r & low_mask(d->bits);
}

/* ---- public value functions ---- */

double mmagen_type_decode(mmagen_type t, uint64_t bits)
{
	const struct type_desc *d = desc(t);
	double v;

	switch (d->kind) {
	case KIND_F64:
		memcpy(&v, &bits, sizeof v);
		return v;
	case KIND_FLOAT:
		return float_decode(d, bits & low_mask(d->bits));
	case KIND_UE8M0:
		return ue8m0_decode(bits);
	case KIND_SINT:
	case KIND_UINT:
		return int_decode(d, bits);
	case KIND_BIT:
		return (double)(bits & 1);
	case KIND_NONE:
		break;
	}
	return NAN;
}

uint64_t mmagen_type_encode(mmagen_type t, double v)
{
	const struct type_desc *d = desc(t);
	uint64_t bits;

	switch (d->kind) {
	case KIND_F64:
		if (isnan(v))
			return UINT64_C(0x7FF8000000000000);
		memcpy(&bits, &v, sizeof bits);
		return bits;
	case KIND_FLOAT:
		return float_encode(d, v);
	case KIND_UE8M0:
		return ue8m0_encode(v);
	case KIND_SINT:
	case KIND_UINT:
		return int_encode(d, v);
	case KIND_BIT:
		return v != 0.0;	/* NaN != 0, so NaN gives 1 */
	case KIND_NONE:
		break;
	}
	return 0;
}

double mmagen_type_max(mmagen_type t)
{
	const struct type_desc *d = desc(t);

	switch (d->kind) {
	case KIND_F64:
		return DBL_MAX;
	case KIND_FLOAT:
		return float_decode(d, float_max_mag(d) << d->shift);
	case KIND_UE8M0:
		return ldexp(1.0, 127);
	case KIND_SINT:
	case KIND_UINT:
		return int_max(d);
	case KIND_BIT:
		return 1.0;
	case KIND_NONE:
		break;
	}
	return 0.0;
}

/* ---- names ---- */

struct type_alias {
	const char *name;
	mmagen_type type;
};

/* Framework spellings.  Block formats (mxfp4, nvfp4, ...) are not element
 * types, so they are deliberately absent, and so are the *fnuz variants,
 * which have a different bias and NaN. */
static const struct type_alias aliases[] = {
	{ "fp64", MMAGEN_F64 },
	{ "double", MMAGEN_F64 },
	{ "float64", MMAGEN_F64 },
	{ "fp32", MMAGEN_F32 },
	{ "float", MMAGEN_F32 },
	{ "float32", MMAGEN_F32 },
	{ "tfloat32", MMAGEN_TF32 },
	{ "fp16", MMAGEN_F16 },
	{ "half", MMAGEN_F16 },
	{ "float16", MMAGEN_F16 },
	{ "bfloat16", MMAGEN_BF16 },
	{ "fp8e4m3", MMAGEN_E4M3 },
	{ "fp8_e4m3", MMAGEN_E4M3 },
	{ "float8_e4m3fn", MMAGEN_E4M3 },
	{ "float8_e4m3", MMAGEN_E4M3 },
	{ "e4m3fn", MMAGEN_E4M3 },
	{ "fp8e5m2", MMAGEN_E5M2 },
	{ "fp8_e5m2", MMAGEN_E5M2 },
	{ "float8_e5m2", MMAGEN_E5M2 },
	{ "fp6e3m2", MMAGEN_E3M2 },
	{ "fp6_e3m2", MMAGEN_E3M2 },
	{ "float6_e3m2fn", MMAGEN_E3M2 },
	{ "fp6e2m3", MMAGEN_E2M3 },
	{ "fp6_e2m3", MMAGEN_E2M3 },
	{ "float6_e2m3fn", MMAGEN_E2M3 },
	{ "fp4", MMAGEN_E2M1 },
	{ "fp4e2m1", MMAGEN_E2M1 },
	{ "fp4_e2m1", MMAGEN_E2M1 },
	{ "float4_e2m1fn", MMAGEN_E2M1 },
	{ "e8m0", MMAGEN_UE8M0 },
	{ "float8_e8m0fnu", MMAGEN_UE8M0 },
	{ "int32", MMAGEN_S32 },
	{ "i32", MMAGEN_S32 },
	{ "int8", MMAGEN_S8 },
	{ "i8", MMAGEN_S8 },
	{ "uint8", MMAGEN_U8 },
	{ "int4", MMAGEN_S4 },
	{ "i4", MMAGEN_S4 },
	{ "uint4", MMAGEN_U4 },
	{ "bit", MMAGEN_B1 },
	{ "int1", MMAGEN_B1 },
};

/* Longest name we compare; anything longer cannot match. */
#define NAME_MAX_LEN 31

/* Levenshtein distance, one rolling row; both strings are short. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[NAME_MAX_LEN + 2];
	size_t la = strlen(a), lb = strlen(b);
	size_t i, j;

	if (lb > NAME_MAX_LEN)
		lb = NAME_MAX_LEN;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* Nearest known spelling; PTX names win ties as they come first. */
static const char *nearest_name(const char *key, mmagen_type *type)
{
	const char *best = types[1].name;
	unsigned best_d = UINT32_MAX;
	size_t i;

	*type = (mmagen_type)1;
	for (i = 1; i < MMAGEN_TYPE_COUNT; i++) {
		unsigned dist = edit_distance(key, types[i].name);

		if (dist < best_d) {
			best_d = dist;
			best = types[i].name;
			*type = (mmagen_type)i;
		}
	}
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		unsigned dist = edit_distance(key, aliases[i].name);

		if (dist < best_d) {
			best_d = dist;
			best = aliases[i].name;
			*type = aliases[i].type;
		}
	}
	return best;
}

/* Names of a class of types rather than one type: the answer lists the
 * class's members instead of the nearest single spelling ("fp8" is one
 * edit from the alias "fp4", which would be the wrong advice). */
static const struct {
	const char *name, *members;
} classes[] = {
	{ "fp8", "e4m3 or e5m2" }, { "f8", "e4m3 or e5m2" },
	{ "float8", "e4m3 or e5m2" },
	{ "fp6", "e3m2 or e2m3" }, { "f6", "e3m2 or e2m3" },
	{ "float6", "e3m2 or e2m3" },
	{ "f4", "e2m1 (alias fp4)" }, { "float4", "e2m1 (alias fp4)" },
	{ "int", "s32, s8 or s4" }, { "uint", "u8 or u4" },
	{ "ue8", "ue8m0" },
};

static mmagen_status unknown_type(const char *s, const char *key)
{
	char known[256] = "";
	size_t len = 0;
	mmagen_type near;
	const char *guess = nearest_name(key, &near);
	char also[32] = "";
	size_t i;

	for (i = 1; i < MMAGEN_TYPE_COUNT && len < sizeof known; i++)
		len += (size_t)snprintf(known + len, sizeof known - len,
					"%s%s", i > 1 ? ", " : "",
					types[i].name);
	for (i = 0; i < ARRAY_SIZE(classes); i++)
		if (strcmp(key, classes[i].name) == 0)
			return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
						"unknown element type '%.40s': it names "
						"several; use %s", s, classes[i].members);
	if (strcmp(guess, types[near].name) != 0)
		snprintf(also, sizeof also, " (%s)", types[near].name);
	return mmagen_set_error(MMAGEN_UNKNOWN_NAME,
				"unknown element type '%.40s'; did you mean "
				"'%s'%s? known: %s",
				s, guess, also, known);
}

mmagen_status mmagen_type_parse(const char *s, mmagen_type *out)
{
	char key[NAME_MAX_LEN + 1];
	const char *p;
	size_t n = 0, i;

	if (!s || !out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
					"mmagen_type_parse: NULL argument");
	p = *s == '.' ? s + 1 : s;
	/* Lower-case copy; a name too long to be ours is still reported
	 * with a suggestion, from its first NAME_MAX_LEN characters. */
	while (p[n] && n < NAME_MAX_LEN) {
		key[n] = (char)tolower((unsigned char)p[n]);
		n++;
	}
	key[n] = '\0';
	if (p[n])
		return unknown_type(s, key);
	for (i = 1; i < MMAGEN_TYPE_COUNT; i++) {
		if (strcmp(key, types[i].name) == 0) {
			*out = (mmagen_type)i;
			return MMAGEN_OK;
		}
	}
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (strcmp(key, aliases[i].name) == 0) {
			*out = aliases[i].type;
			return MMAGEN_OK;
		}
	}
	return unknown_type(s, key);
}
