/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_numeric - the scalar numeric contract (docs/numerics.md): fp32 -> bf16,
 * the PE multiplier and adder, one PE step and the activation.
 *
 * Golden values in the tables come from IEEE 754 facts worked out by hand
 * (the comment of each row says why). The library computes with the FPU
 * in FTZ/DAZ mode; this file also carries an integer-only soft-float model
 * of the same rules and compares the two on millions of random inputs
 * biased towards the edges (ties, cancellation, underflow, overflow,
 * specials). The directed tables run against the model too, so the model
 * is itself checked against the hand-worked values.
 *
 * FTPU_FULL=1 runs ten times as many random vectors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "numeric.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#define QNAN FTPU_F32_QNAN
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define NZERO 0x80000000u

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static unsigned long n_random = 4000000; /* per cross-check; x10 full */

/* ---- integer soft-float model of docs/numerics.md ----------------------- */

static bool bits_is_nan(uint32_t x)
{
	return (x & 0x7fffffffu) > 0x7f800000u;
}

/* FTZ(exact(DAZ(a) * DAZ(b))), canonical NaN. */
static uint32_t soft_mul(ftpu_bf16 a, ftpu_bf16 b)
{
	uint32_t sign = (uint32_t)((a ^ b) & 0x8000u) << 16;
	int ea = (a >> 7) & 0xff, eb = (b >> 7) & 0xff;
	unsigned int ma = a & 0x7f, mb = b & 0x7f;
	bool nan_a = ea == 0xff && ma, nan_b = eb == 0xff && mb;
	bool inf_a = ea == 0xff && !ma, inf_b = eb == 0xff && !mb;
	bool zero_a = ea == 0, zero_b = eb == 0; /* DAZ */
	uint32_t p;
	int e;

	if (nan_a || nan_b || (inf_a && zero_b) || (inf_b && zero_a))
		return QNAN;
	if (inf_a || inf_b)
		return sign | PINF;
	if (zero_a || zero_b)
		return sign;

	/* (0x80|ma) 2^(ea-134) * (0x80|mb) 2^(eb-134): p in [2^14, 2^16),
	 * exact. Biased exponent ea+eb-127 when p < 2^15. */
	p = (0x80u | ma) * (0x80u | mb);
	e = ea + eb - 127;
	if (p >= 1u << 15) {
		e++;
		p <<= 8; /* leading one to bit 23 */
	} else {
		p <<= 9;
	}
	if (e >= 0xff)
		return sign | PINF;
	if (e <= 0)
		return sign; /* below 2^-126: FTZ */
	return sign | (uint32_t)e << 23 | (p & 0x7fffffu);
}

/* RNE_fp32(DAZ(x) + DAZ(y)), FTZ result, canonical NaN. */
static uint32_t soft_add(uint32_t x, uint32_t y)
{
	uint32_t sx = x >> 31, sy = y >> 31;
	int ex = (x >> 23) & 0xff, ey = (y >> 23) & 0xff;
	uint64_t X, Y, S, m, rem;
	int d, e;

	if (bits_is_nan(x) || bits_is_nan(y))
		return QNAN;
	if (ex == 0xff || ey == 0xff) {
		if (ex == 0xff && ey == 0xff && sx != sy)
			return QNAN; /* Inf - Inf */
		return ex == 0xff ? x : y;
	}
	if (ex == 0 && ey == 0)
		return (sx & sy) << 31; /* -0 + -0 = -0, else +0 */
	if (ex == 0)
		return y; /* a (DAZ) zero plus a normal: exact */
	if (ey == 0)
		return x;

	if ((x & 0x7fffffffu) < (y & 0x7fffffffu)) { /* |x| >= |y| */
		uint32_t t = x;

		x = y;
		y = t;
		sx = x >> 31;
		sy = y >> 31;
		ex = (x >> 23) & 0xff;
		ey = (y >> 23) & 0xff;
	}
	/* Significands with 32 extra low bits; the bits of y shifted out
	 * beyond those are jammed into bit 0 (sticky). */
	X = (uint64_t)(0x800000u | (x & 0x7fffffu)) << 32;
	Y = (uint64_t)(0x800000u | (y & 0x7fffffu)) << 32;
	d = ex - ey;
	if (d > 60)
		Y = 1;
	else if (d > 0)
		Y = (Y >> d) | ((Y & ((1ull << d) - 1)) != 0);
	S = sx == sy ? X + Y : X - Y;
	if (S == 0)
		return 0; /* exact cancellation: +0 when rounding to nearest */

	e = ex; /* value = S 2^(e - 127 - 55) */
	if (S >= 1ull << 56) {
		S = (S >> 1) | (S & 1);
		e++;
	}
	while (S < 1ull << 55) {
		S <<= 1;
		e--;
	}
	m = S >> 32;
	rem = S & 0xffffffffu;
	if (rem > 0x80000000u || (rem == 0x80000000u && (m & 1)))
		m++;
	if (m == 1ull << 24) {
		m >>= 1;
		e++;
	}
	if (e >= 0xff)
		return sx << 31 | PINF;
	if (e <= 0)
		return sx << 31; /* subnormal result: FTZ, sign kept */
	return sx << 31 | (uint32_t)e << 23 | (uint32_t)(m & 0x7fffffu);
}

/* RNE_fp32(DAZ(x) * DAZ(y)), flushed when tiny after rounding (the
 * 24-bit rounded significand with an unbounded exponent below 2^-126),
 * canonical NaN. */
static uint32_t soft_fmul(uint32_t x, uint32_t y)
{
	uint32_t sign = (x ^ y) & 0x80000000u;
	int ex = (x >> 23) & 0xff, ey = (y >> 23) & 0xff;
	bool inf_x = ex == 0xff && !(x & 0x7fffffu), inf_y = ey == 0xff && !(y & 0x7fffffu);
	bool zero_x = ex == 0, zero_y = ey == 0; /* DAZ */
	uint64_t p, m, rem, half;
	int e, shift;

	if (bits_is_nan(x) || bits_is_nan(y) || (inf_x && zero_y) || (inf_y && zero_x))
		return QNAN;
	if (inf_x || inf_y)
		return sign | PINF;
	if (zero_x || zero_y)
		return sign;
	/* significands of 24 bits: p in [2^46, 2^48); biased exponent
	 * ex + ey - 127 when p < 2^47 */
	p = (uint64_t)(0x800000u | (x & 0x7fffffu)) * (0x800000u | (y & 0x7fffffu));
	e = ex + ey - 127;
	shift = 23;
	if (p >= 1ull << 47) {
		e++;
		shift = 24;
	}
	m = p >> shift;
	rem = p & ((1ull << shift) - 1);
	half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (m & 1)))
		m++;
	if (m == 1ull << 24) {
		m >>= 1;
		e++;
	}
	if (e >= 0xff)
		return sign | PINF;
	if (e <= 0)
		return sign; /* tiny after rounding: FTZ */
	return sign | (uint32_t)e << 23 | (uint32_t)(m & 0x7fffffu);
}

/* ---- random inputs biased towards the edges ----------------------------- */

static struct rng rng; /* seeded per test */

static const ftpu_bf16 edge_bf16[] = {
	0x0000, 0x8000, 0x0001, 0x807f, 0x0040, 0x0080, 0x8080, 0x00ff,
	0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0,
	0x7f81, 0xffff, 0x3f81, 0x4000,
};

static const uint32_t edge_f32[] = {
	0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00400000,
	0x00800000, 0x80800000, 0x00800001, 0x3f800000, 0xbf800000,
	0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
	0xffc00000, 0x7f800001, 0xffffffff, 0x33800000, 0x73000000,
};

static ftpu_bf16 bf16_with_exp(int e)
{
	if (e < 0)
		e = 0;
	if (e > 0xff)
		e = 0xff;
	return (ftpu_bf16)((rng_u32(&rng) & 0x807f) | (unsigned int)e << 7);
}

static void rand_mul_pair(ftpu_bf16 *a, ftpu_bf16 *b)
{
	uint32_t r = rng_u32(&rng);
	int ea;

	*a = (ftpu_bf16)r;
	*b = (ftpu_bf16)(r >> 16);
	switch (rng_below(&rng, 8)) {
	case 0: /* product exponent near the bottom of the fp32 range */
		ea = 1 + (int)rng_below(&rng, 254);
		*a = bf16_with_exp(ea);
		*b = bf16_with_exp(127 - ea + (int)rng_below(&rng, 5) - 2);
		break;
	case 1: /* and near the top */
		ea = 1 + (int)rng_below(&rng, 254);
		*a = bf16_with_exp(ea);
		*b = bf16_with_exp(381 - ea + (int)rng_below(&rng, 5) - 2);
		break;
	case 2:
		*a = edge_bf16[rng_below(&rng, sizeof(edge_bf16) / 2)];
		break;
	case 3:
		*b = edge_bf16[rng_below(&rng, sizeof(edge_bf16) / 2)];
		break;
	default: /* uniform bits */
		break;
	}
}

/* A mantissa whose low bits are often zero, so that sums hit exact ties. */
static uint32_t rand_mant(void)
{
	uint32_t m = rng_u32(&rng) & 0x7fffffu;

	if (rng_u32(&rng) & 1)
		m &= ~((1u << rng_below(&rng, 24)) - 1);
	return m;
}

static uint32_t f32_with(uint32_t sign, int e, uint32_t mant)
{
	if (e < 0)
		e = 0;
	if (e > 0xff)
		e = 0xff;
	return sign << 31 | (uint32_t)e << 23 | mant;
}

static void rand_add_pair(uint32_t *x, uint32_t *y)
{
	int ex = 1 + (int)rng_below(&rng, 254);

	*x = rng_u32(&rng);
	*y = rng_u32(&rng);
	switch (rng_below(&rng, 10)) {
	case 0: /* close exponents: cancellation */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, ex - (int)rng_below(&rng, 3), rand_mant());
		break;
	case 1: /* y around half an ulp of x: rounding and ties */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, ex - 22 - (int)rng_below(&rng, 6),
			      rand_mant());
		break;
	case 2: /* tiny operands: subnormal results, DAZ */
		*x = f32_with(rng_u32(&rng) & 1, (int)rng_below(&rng, 4), rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, (int)rng_below(&rng, 4), rand_mant());
		break;
	case 3: /* huge operands: overflow */
		*x = f32_with(rng_u32(&rng) & 1, 251 + (int)rng_below(&rng, 5), rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, 251 + (int)rng_below(&rng, 5), rand_mant());
		break;
	case 4:
		*x = edge_f32[rng_below(&rng, sizeof(edge_f32) / 4)];
		break;
	case 5: /* same magnitude, often opposite signs: x + (-x) */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = *x ^ (rng_u32(&rng) & 0x80000000u);
		break;
	case 6: /* far apart */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, (int)rng_below(&rng, 256), rand_mant());
		break;
	default: /* uniform bits */
		break;
	}
}

static void rand_fmul_pair(uint32_t *x, uint32_t *y)
{
	int ex = 1 + (int)rng_below(&rng, 254);

	*x = rng_u32(&rng);
	*y = rng_u32(&rng);
	switch (rng_below(&rng, 8)) {
	case 0: /* product near 2^-126: tiny before or after rounding */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant() | (rng_u32(&rng) & 1 ? 0x7fff00u : 0));
		*y = f32_with(rng_u32(&rng) & 1, 127 - ex + (int)rng_below(&rng, 3) - 1,
			      rand_mant());
		break;
	case 1: /* near the top of the range */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, 381 - ex + (int)rng_below(&rng, 5) - 2,
			      rand_mant());
		break;
	case 2:
		*x = edge_f32[rng_below(&rng, N_OF(edge_f32))];
		break;
	case 3: /* short significands: exact products and ties */
		*x = f32_with(rng_u32(&rng) & 1, ex, rand_mant());
		*y = f32_with(rng_u32(&rng) & 1, 1 + (int)rng_below(&rng, 254), rand_mant());
		break;
	default: /* uniform bits */
		break;
	}
}

/* ---- directed tables ------------------------------------------------- */

struct conv_case {
	uint32_t x;
	ftpu_bf16 want;
	const char *why;
};

static void check_conv(const struct conv_case *c, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		ftpu_bf16 got = ftpu_f32_to_bf16(c[i].x);

		if (got != c[i].want) {
			print_error("f32_to_bf16(%08x) = %04x, want %04x: %s\n",
				    c[i].x, got, c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct mul_case {
	ftpu_bf16 a, b;
	uint32_t want;
	const char *why;
};

/* Each row against the library and against the soft-float model. */
static void check_mul(const struct mul_case *c, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t got = ftpu_ref_mul(c[i].a, c[i].b);
		uint32_t soft = soft_mul(c[i].a, c[i].b);

		if (got != c[i].want || soft != c[i].want) {
			print_error("mul(%04x, %04x) = %08x, model %08x, want %08x: %s\n",
				    c[i].a, c[i].b, got, soft, c[i].want,
				    c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct add_case {
	uint32_t x, y, want;
	const char *why;
};

static void check_add(const struct add_case *c, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		/* Addition commutes, NaN included once canonical. */
		uint32_t got = ftpu_ref_add(c[i].x, c[i].y);
		uint32_t got_swapped = ftpu_ref_add(c[i].y, c[i].x);
		uint32_t soft = soft_add(c[i].x, c[i].y);

		if (got != c[i].want || got_swapped != c[i].want ||
		    soft != c[i].want) {
			print_error("add(%08x, %08x) = %08x / %08x swapped, model %08x, want %08x: %s\n",
				    c[i].x, c[i].y, got, got_swapped, soft,
				    c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_f32_to_bf16_ties_to_even(void **state)
{
	static const struct conv_case c[] = {
		{ 0x3f808000, 0x3f80, "1 + 2^-8: tie, 0x3f80 is even, down" },
		{ 0x3f818000, 0x3f82, "tie between 3f81 and 3f82: up to even" },
		{ 0x3f808001, 0x3f81, "just above the tie: up" },
		{ 0x3f817fff, 0x3f81, "just below the tie: down" },
		{ 0xbf808000, 0xbf80, "negative tie, down in magnitude" },
		{ 0xbf818000, 0xbf82, "negative tie, up in magnitude" },
		{ 0x3f7f8000, 0x3f80, "tie carrying into the exponent" },
		{ 0x3f800000, 0x3f80, "exact" },
		{ 0x00800000, 0x0080, "smallest normal is exact" },
	};

	(void)state;
	check_conv(c, N_OF(c));
}

static void test_numeric_f32_to_bf16_overflow_to_inf(void **state)
{
	static const struct conv_case c[] = {
		{ 0x7f7fffff, 0x7f80, "FLT_MAX rounds past the largest bf16" },
		{ 0x7f7f8000, 0x7f80, "tie above 7f7f (odd): to even = Inf" },
		{ 0x7f7f7fff, 0x7f7f, "below the tie: largest finite bf16" },
		{ 0xff7fffff, 0xff80, "-FLT_MAX to -Inf" },
		{ 0x7f800000, 0x7f80, "+Inf stays" },
		{ 0xff800000, 0xff80, "-Inf stays" },
	};

	(void)state;
	check_conv(c, N_OF(c));
}

static void test_numeric_f32_to_bf16_nan_quiet_sign_kept(void **state)
{
	static const struct conv_case c[] = {
		{ 0x7fc00000, 0x7fc0, "canonical NaN" },
		{ 0xffc00000, 0xffc0, "negative quiet NaN keeps its sign" },
		{ 0x7f800001, 0x7fc0, "payload only in the dropped bits: still NaN" },
		{ 0xffa00000, 0xffe0, "signalling NaN is quieted, payload kept" },
		{ 0x7f812345, 0x7fc1, "top payload bits kept, never rounded" },
		{ 0x7fffffff, 0x7fff, "all-ones payload does not carry" },
	};

	(void)state;
	check_conv(c, N_OF(c));
}

static void test_numeric_f32_to_bf16_subnormal_flush_signed(void **state)
{
	static const struct conv_case c[] = {
		{ 0x00000001, 0x0000, "smallest subnormal" },
		{ 0x007fffff, 0x0000, "largest subnormal would round to normal" },
		{ 0x807fffff, 0x8000, "negative subnormal keeps the sign" },
		{ 0x80000000, 0x8000, "-0" },
		{ 0x00000000, 0x0000, "+0" },
	};

	(void)state;
	check_conv(c, N_OF(c));
}

/* Every 97th fp32 pattern against the nearest-even rule stated by
 * comparison, rather than by the add-and-shift trick the library uses. */
static void test_numeric_f32_to_bf16_nearest_even_sweep(void **state)
{
	unsigned long bad = 0;

	(void)state;
	for (uint64_t i = 0; i < 1ull << 32; i += 97) {
		uint32_t x = (uint32_t)i, e = (x >> 23) & 0xff;
		uint32_t lo = x >> 16, rem = x & 0xffffu, want;

		if (e == 0xff && (x & 0x7fffffu))
			want = lo | 0x40;
		else if (e == 0)
			want = lo & 0x8000;
		else if (rem > 0x8000 || (rem == 0x8000 && (lo & 1)))
			want = lo + 1; /* next bf16 in magnitude */
		else
			want = lo;
		if (ftpu_f32_to_bf16(x) != want && bad++ < 5)
			print_error("f32_to_bf16(%08x) = %04x, want %04x\n",
				    x, ftpu_f32_to_bf16(x), want);
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_mul_signed_zeros(void **state)
{
	static const struct mul_case c[] = {
		{ 0x0000, 0xc040, NZERO, "+0 * -3 = -0" },
		{ 0x8000, 0x8000, 0x00000000, "-0 * -0 = +0" },
		{ 0x8000, 0x3f80, NZERO, "-0 * 1 = -0" },
		{ 0x3f80, 0x4000, 0x40000000, "1 * 2 = 2" },
		{ 0xbfc0, 0x3fc0, 0xc0100000, "-1.5 * 1.5 = -2.25" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_subnormal_inputs_are_zero(void **state)
{
	static const struct mul_case c[] = {
		/* 2^-127 * 2^7 would be 2^-120, a normal number */
		{ 0x0040, 0x4300, 0x00000000, "DAZ: subnormal * 128 = +0" },
		{ 0x8040, 0x4300, NZERO, "DAZ keeps the sign: -0" },
		{ 0x0040, 0xc300, NZERO, "+subnormal * -128 = -0" },
		{ 0x007f, 0x7f00, 0x00000000, "largest subnormal * 2^127 = +0" },
		{ 0x0001, 0x7f80, QNAN, "subnormal * Inf is 0 * Inf" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_inf_times_zero_is_canonical_nan(void **state)
{
	static const struct mul_case c[] = {
		{ 0x7f80, 0x0000, QNAN, "Inf * 0" },
		{ 0xff80, 0x0000, QNAN, "-Inf * +0: positive canonical NaN" },
		{ 0x8000, 0x7f80, QNAN, "-0 * Inf" },
		{ 0x7f80, 0xc000, NINF, "Inf * -2 = -Inf, not NaN" },
		{ 0xff80, 0xff80, PINF, "-Inf * -Inf = +Inf" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_nan_payload_canonical(void **state)
{
	static const struct mul_case c[] = {
		{ 0x7f81, 0x3f80, QNAN, "signalling NaN in" },
		{ 0xffc1, 0x4000, QNAN, "negative NaN with payload" },
		{ 0x3f80, 0xffff, QNAN, "NaN as second operand" },
		{ 0x7fc0, 0x0000, QNAN, "NaN * 0" },
		{ 0xffc0, 0x7f80, QNAN, "NaN * Inf" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_exact_product(void **state)
{
	static const struct mul_case c[] = {
		/* (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: bits 17 and 9 */
		{ 0x3f81, 0x3f81, 0x3f820200, "16-bit product kept exactly" },
		/* (2 - 2^-7)^2 = 4 - 2^-5 + 2^-14: 2 (2 - 2^-6 + 2^-15) */
		{ 0x3fff, 0x3fff, 0x407e0100, "largest significands" },
		{ 0x5f80, 0x5f00, 0x7f000000, "2^64 * 2^63 = 2^127 in range" },
		{ 0x2000, 0x2000, 0x00800000, "2^-63 * 2^-63 = 2^-126, normal" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_overflow_to_inf(void **state)
{
	static const struct mul_case c[] = {
		{ 0x7f00, 0x4000, PINF, "2^127 * 2 = 2^128 overflows" },
		{ 0x7f7f, 0xc000, NINF, "-(max bf16 * 2)" },
		{ 0x7f7f, 0xbf80, 0xff7f0000, "max * -1 stays finite" },
		{ 0x7f7f, 0x7f7f, PINF, "max * max" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_mul_underflow_to_signed_zero(void **state)
{
	static const struct mul_case c[] = {
		/* 2^-127 is representable as an fp32 subnormal: still 0 */
		{ 0x0080, 0x3f00, 0x00000000, "2^-126 * 0.5 flushes" },
		{ 0x0080, 0xbf00, NZERO, "... with the product's sign" },
		{ 0x2000, 0x1f80, 0x00000000, "2^-63 * 2^-64 = 2^-127" },
		{ 0x00ff, 0x3f00, 0x00000000, "(2 - 2^-7) 2^-127 < 2^-126" },
		{ 0x0080, 0x3f80, 0x00800000, "2^-126 * 1 is normal, kept" },
		{ 0x8080, 0x8080, 0x00000000, "2^-252: far below" },
	};

	(void)state;
	check_mul(c, N_OF(c));
}

static void test_numeric_add_cancellation_is_plus_zero(void **state)
{
	static const struct add_case c[] = {
		{ 0x3f800000, 0xbf800000, 0x00000000, "1 + -1 = +0" },
		{ 0xc2f60000, 0x42f60000, 0x00000000, "-123 + 123 = +0" },
		{ 0x7f7fffff, 0xff7fffff, 0x00000000, "FLT_MAX - FLT_MAX" },
		{ 0x3f800001, 0xbf800000, 0x34000000, "(1 + 2^-23) - 1 = 2^-23" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_signed_zero_sums(void **state)
{
	static const struct add_case c[] = {
		{ NZERO, NZERO, NZERO, "-0 + -0 = -0" },
		{ 0x00000000, NZERO, 0x00000000, "+0 + -0 = +0" },
		{ 0x00000000, 0x00000000, 0x00000000, "+0 + +0 = +0" },
		{ NZERO, 0xbf800000, 0xbf800000, "-0 + -1 = -1" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_ties_to_even(void **state)
{
	static const struct add_case c[] = {
		{ 0x3f800000, 0x33800000, 0x3f800000, "1 + 2^-24: tie, stays 1" },
		{ 0x3f800001, 0x33800000, 0x3f800002, "odd + half ulp: up" },
		{ 0x3f800000, 0x33800001, 0x3f800001, "just above half: up" },
		{ 0x3f800000, 0x337fffff, 0x3f800000, "just below half: down" },
		{ 0xbf800001, 0xb3800000, 0xbf800002, "negative tie to even" },
		/* 2 - 2^-24 lies halfway between 2 - 2^-23 (odd) and 2 */
		{ 0x40000000, 0xb3800000, 0x40000000, "tie across a binade" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_inf_minus_inf_canonical_nan(void **state)
{
	static const struct add_case c[] = {
		{ PINF, NINF, QNAN, "Inf - Inf" },
		{ PINF, PINF, PINF, "Inf + Inf" },
		{ NINF, NINF, NINF, "-Inf + -Inf" },
		{ PINF, 0xff7fffff, PINF, "Inf + finite" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_nan_canonical(void **state)
{
	static const struct add_case c[] = {
		{ 0xffc12345, 0x3f800000, QNAN, "negative NaN with payload" },
		{ 0x7f800001, 0x00000000, QNAN, "signalling NaN" },
		{ 0xffffffff, PINF, QNAN, "NaN + Inf" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_subnormal_inputs_daz(void **state)
{
	static const struct add_case c[] = {
		{ 0x00000001, NZERO, 0x00000000, "DAZ(+sub) + -0 = +0" },
		{ 0x80000001, NZERO, NZERO, "DAZ(-sub) is -0: -0 + -0 = -0" },
		{ 0x80000001, 0x00000000, 0x00000000, "-0 + +0 = +0" },
		/* without DAZ: 2^-127 + 2^-126 = 0x00c00000 */
		{ 0x00400000, 0x00800000, 0x00800000, "subnormal adds nothing" },
		{ 0x007fffff, 0x007fffff, 0x00000000, "two subnormals: +0" },
		{ 0x807fffff, 0x807fffff, NZERO, "two negative ones: -0" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_subnormal_result_flushed(void **state)
{
	static const struct add_case c[] = {
		/* exact 2^-149 without FTZ */
		{ 0x00800001, 0x80800000, 0x00000000, "+2^-149 flushes to +0" },
		{ 0x80800001, 0x00800000, NZERO, "-2^-149 flushes to -0" },
		{ 0x00c00000, 0x80800000, 0x00000000, "2^-127 flushes" },
		{ 0x80ffffff, 0x00800000, NZERO, "-(2^-126 - 2^-149) to -0" },
		{ 0x01000000, 0x80800000, 0x00800000, "2^-125 - 2^-126 is normal" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_add_overflow(void **state)
{
	static const struct add_case c[] = {
		{ 0x7f7fffff, 0x7f7fffff, PINF, "FLT_MAX + FLT_MAX" },
		{ 0xff7fffff, 0xff7fffff, NINF, "-FLT_MAX - FLT_MAX" },
		/* ulp(FLT_MAX) = 2^104: + 2^103 is a tie, FLT_MAX is odd */
		{ 0x7f7fffff, 0x73000000, PINF, "FLT_MAX + half ulp: Inf" },
		{ 0x7f7fffff, 0x72ffffff, 0x7f7fffff, "just below: FLT_MAX" },
	};

	(void)state;
	check_add(c, N_OF(c));
}

static void test_numeric_step_is_mul_then_add(void **state)
{
	static const struct {
		uint32_t acc;
		ftpu_bf16 a, b;
		uint32_t want;
		const char *why;
	} c[] = {
		/* A fused multiply-add would keep the -2^-127 product and
		 * return a flushed 2^-127, i.e. +0. */
		{ 0x00800000, 0x0080, 0xbf00, 0x00800000,
		  "2^-126 + FTZ(-2^-127) = 2^-126" },
		/* Fused: 2^128 - 2^127 = 2^127, finite. */
		{ 0xff000000, 0x7f00, 0x4000, PINF,
		  "-2^127 + (2^127 * 2 = Inf) = Inf" },
		{ 0x3f800000, 0x3f80, 0x4000, 0x40400000, "1 + 1 * 2 = 3" },
		{ 0xbf800000, 0x3f80, 0x3f80, 0x00000000, "-1 + 1 * 1 = +0" },
		{ NZERO, 0x8000, 0x3f80, NZERO, "-0 + (-0 * 1) = -0" },
		{ 0x7fc00001, 0x3f80, 0x3f80, QNAN, "NaN acc: canonical" },
		{ 0x3f800000, 0x7f80, 0x0000, QNAN, "1 + Inf * 0" },
		{ 0x00000001, 0x0000, 0x3f80, 0x00000000, "DAZ(acc) + 0 = +0" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N_OF(c); i++) {
		uint32_t got = ftpu_ref_step(c[i].acc, c[i].a, c[i].b);
		uint32_t soft = soft_add(c[i].acc, soft_mul(c[i].a, c[i].b));

		if (got != c[i].want || soft != c[i].want) {
			print_error("step(%08x, %04x, %04x) = %08x, model %08x, want %08x: %s\n",
				    c[i].acc, c[i].a, c[i].b, got, soft,
				    c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct act_case {
	uint32_t acc, bias;
	bool relu;
	ftpu_bf16 want;
	const char *why;
};

static void check_act(const struct act_case *c, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		ftpu_bf16 got =
			ftpu_ref_activate(c[i].acc, c[i].bias, c[i].relu);

		if (got != c[i].want) {
			print_error("activate(%08x, %08x, relu=%d) = %04x, want %04x: %s\n",
				    c[i].acc, c[i].bias, c[i].relu, got,
				    c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_activate_relu_negative_zero(void **state)
{
	static const struct act_case c[] = {
		{ NZERO, NZERO, true, 0x0000, "ReLU(-0) = +0" },
		{ NZERO, NZERO, false, 0x8000, "without ReLU -0 stays" },
		{ 0x80800001, 0x00800000, true, 0x0000, "flushed -0, ReLU: +0" },
		{ 0x80800001, 0x00800000, false, 0x8000, "flushed -0 stays -0" },
	};

	(void)state;
	check_act(c, N_OF(c));
}

static void test_numeric_activate_relu_nan(void **state)
{
	static const struct act_case c[] = {
		{ PINF, NINF, true, 0x7fc0, "ReLU(Inf - Inf) is NaN" },
		{ 0xffc12345, 0x00000000, true, 0x7fc0, "NaN in: canonical out" },
		{ 0xffc12345, 0x00000000, false, 0x7fc0, "also without ReLU" },
		{ NINF, 0x3f800000, true, 0x0000, "ReLU(-Inf) = +0" },
		{ PINF, 0x3f800000, true, 0x7f80, "ReLU(Inf) = Inf" },
	};

	(void)state;
	check_act(c, N_OF(c));
}

static void test_numeric_activate_relu_negative(void **state)
{
	static const struct act_case c[] = {
		{ 0xc0000000, 0x3f800000, true, 0x0000, "ReLU(-2 + 1) = +0" },
		{ 0xc0000000, 0x3f800000, false, 0xbf80, "-2 + 1 = -1" },
		{ 0xff7fffff, 0x00000000, true, 0x0000, "ReLU(-FLT_MAX) = +0" },
		{ 0x3f800000, 0x40000000, true, 0x4040, "ReLU(1 + 2) = 3" },
		{ 0x00800000, 0x00000000, true, 0x0080, "smallest normal > 0" },
	};

	(void)state;
	check_act(c, N_OF(c));
}

static void test_numeric_activate_rounds_after_bias(void **state)
{
	static const struct act_case c[] = {
		/* 1 + 2^-8 is exact in fp32, then a bf16 tie: to even */
		{ 0x3f800000, 0x3b800000, false, 0x3f80, "tie down to even" },
		{ 0x3f810000, 0x3b800000, true, 0x3f82, "tie up to even" },
		/* the bias add itself rounds first: 1 + 2^-24 -> 1 */
		{ 0x3f808000, 0x33800000, false, 0x3f80, "fp32 tie, bf16 tie" },
		{ 0x7f7f0000, 0x7e800000, false, 0x7f80, "overflow to Inf" },
	};

	(void)state;
	check_act(c, N_OF(c));
}

/* The scalar ops change the FPU mode only for their own duration. */
static void test_numeric_fpmode_restored(void **state)
{
#if defined(__x86_64__) || defined(__i386__)
	/* round toward zero, no FTZ/DAZ, inexact flag sticky */
	const unsigned int mode = 0x1f80 | 0x6000 | 0x0020;
	unsigned int saved = _mm_getcsr(), after[5];
	uint32_t r[4];

	(void)state;
	_mm_setcsr(mode);
	r[0] = ftpu_ref_mul(0x3f81, 0x3f81);
	after[0] = _mm_getcsr();
	r[1] = ftpu_ref_add(0x3f800000, 0x33800001);
	after[1] = _mm_getcsr();
	r[2] = ftpu_ref_step(0x3f800000, 0x0080, 0x3f00);
	after[2] = _mm_getcsr();
	r[3] = ftpu_ref_activate(0x3f800000, 0x33800001, true);
	after[3] = _mm_getcsr();
	{
		struct ftpu_fpmode m;

		ftpu_fpmode_enter(&m);
		ftpu_fpmode_leave(&m);
	}
	after[4] = _mm_getcsr();
	_mm_setcsr(saved);

	for (int i = 0; i < 5; i++)
		assert_int_equal(after[i], mode);
	/* and the caller's rounding mode did not leak in: round toward
	 * zero would give 0x3f800000 for the add */
	assert_int_equal(r[0], 0x3f820200);
	assert_int_equal(r[1], 0x3f800001);
	assert_int_equal(r[2], 0x3f800000);
	assert_int_equal(r[3], 0x3f80);
#else
	(void)state;
	skip();
#endif
}

/* ---- cross-checks against the soft-float model -------------------------- */

static void test_numeric_mul_matches_softfloat(void **state)
{
	unsigned long bad = 0;

	(void)state;
	rng.s = 0x243f6a8885a308d3ull;
	for (unsigned long i = 0; i < n_random; i++) {
		ftpu_bf16 a, b;
		uint32_t got, want;

		rand_mul_pair(&a, &b);
		got = ftpu_ref_mul(a, b);
		want = soft_mul(a, b);
		if (got != want && bad++ < 10)
			print_error("mul(%04x, %04x) = %08x, model %08x\n", a,
				    b, got, want);
	}
	assert_int_equal(bad, 0);
}

/* Every bf16 times a fixed set: all classes against all classes. */
static void test_numeric_mul_all_bf16_by_specials(void **state)
{
	unsigned long bad = 0;

	(void)state;
	for (uint32_t a = 0; a <= 0xffff; a++)
		for (size_t j = 0; j < N_OF(edge_bf16); j++) {
			ftpu_bf16 b = edge_bf16[j];
			uint32_t got = ftpu_ref_mul((ftpu_bf16)a, b);
			uint32_t want = soft_mul((ftpu_bf16)a, b);

			if (got != want && bad++ < 10)
				print_error("mul(%04x, %04x) = %08x, model %08x\n",
					    a, b, got, want);
		}
	assert_int_equal(bad, 0);
}

static void test_numeric_add_matches_softfloat(void **state)
{
	unsigned long bad = 0;

	(void)state;
	rng.s = 0x13198a2e03707344ull;
	for (unsigned long i = 0; i < n_random; i++) {
		uint32_t x, y, got, want;

		rand_add_pair(&x, &y);
		got = ftpu_ref_add(x, y);
		want = soft_add(x, y);
		if (got != want && bad++ < 10)
			print_error("add(%08x, %08x) = %08x, model %08x\n", x,
				    y, got, want);
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_step_matches_softfloat(void **state)
{
	unsigned long bad = 0;

	(void)state;
	rng.s = 0xa4093822299f31d0ull;
	for (unsigned long i = 0; i < n_random / 2; i++) {
		ftpu_bf16 a, b;
		uint32_t acc, unused, got, want;

		rand_mul_pair(&a, &b);
		rand_add_pair(&acc, &unused);
		if (rng_u32(&rng) & 1) /* an accumulator of the product's size */
			acc = soft_mul(a, b) ^ (rng_u32(&rng) & 0x80000000u) ^
			      (rng_u32(&rng) & 0x00000fffu);
		got = ftpu_ref_step(acc, a, b);
		want = soft_add(acc, soft_mul(a, b));
		if (got != want && bad++ < 10)
			print_error("step(%08x, %04x, %04x) = %08x, model %08x\n",
				    acc, a, b, got, want);
	}
	assert_int_equal(bad, 0);
}

/* ---- the vector unit's operations (docs/numerics.md) -------------------- */

struct bin_case {
	uint32_t x, y, want;
	const char *why;
};

static void test_numeric_fmul_directed(void **state)
{
	static const struct bin_case c[] = {
		{ 0x3fc00000, 0x40000000, 0x40400000, "1.5 * 2 = 3" },
		{ 0x3f800001, 0x3f800001, 0x3f800002, "(1+u)^2 = 1+2u+u^2: u^2 is below half an ulp" },
		{ 0x3f800001, 0x3fffffff, 0x40000000, "(1+u)(2-u): 2+u-u^2 rounds to 2 (the ulp above 2 is 2u)" },
		{ 0x3f7ffffe, 0x00800001, 0x00800000, "2^-126 (1 - 2^-46): tiny before rounding, rounds to 2^-126: kept" },
		{ 0x3f7fffff, 0x00800000, 0x00000000, "2^-126 (1 - 2^-24): exact, below 2^-126: flushed" },
		{ 0xbf7fffff, 0x00800000, 0x80000000, "flushed keeps its sign" },
		{ 0x3f000000, 0x00800000, 0x00000000, "2^-127: flushed" },
		{ 0x00400000, 0x7f000000, 0x00000000, "a subnormal input counts as zero (DAZ)" },
		{ 0x80000000, 0x3f800000, 0x80000000, "-0 * 1 = -0" },
		{ 0x7f7fffff, 0x40000000, 0x7f800000, "overflow to +Inf" },
		{ 0xff7fffff, 0x40000000, 0xff800000, "overflow to -Inf" },
		{ 0x7f800000, 0x00000000, QNAN, "Inf * 0" },
		{ 0x7f800000, 0x00000001, QNAN, "Inf * subnormal (a zero)" },
		{ 0xffc00001, 0x3f800000, QNAN, "NaN payload and sign dropped" },
		{ 0x7f800000, 0xbf800000, 0xff800000, "Inf * -1" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N_OF(c); i++) {
		uint32_t got = ftpu_ref_fmul(c[i].x, c[i].y), swapped = ftpu_ref_fmul(c[i].y, c[i].x);
		uint32_t soft = soft_fmul(c[i].x, c[i].y);

		if (got != c[i].want || swapped != c[i].want || soft != c[i].want) {
			print_error("fmul(%08x, %08x) = %08x / %08x, model %08x, want %08x: %s\n",
				    c[i].x, c[i].y, got, swapped, soft, c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_fmul_matches_softfloat(void **state)
{
	unsigned long bad = 0;

	(void)state;
	rng.s = 0x452821e638d01377ull;
	for (unsigned long i = 0; i < n_random; i++) {
		uint32_t x, y, got, want;

		rand_fmul_pair(&x, &y);
		got = ftpu_ref_fmul(x, y);
		want = soft_fmul(x, y);
		if (got != want && bad++ < 10)
			print_error("fmul(%08x, %08x) = %08x, model %08x\n", x, y, got, want);
	}
	assert_int_equal(bad, 0);
}

/* Every mantissa pair whose exact product lies next to 2^-126: the one
 * place where "tiny before" and "tiny after rounding" differ. */
static void test_numeric_fmul_underflow_boundary(void **state)
{
	unsigned long bad = 0, kept = 0;

	(void)state;
	for (uint32_t dm = 0; dm < 4096; dm++) {
		uint32_t x = 0x3f7fffffu - dm;                /* 1 - (dm+1) 2^-24 */
		for (uint32_t k = 0; k < 4096; k++) {
			uint32_t y = 0x00800000u + k;         /* 2^-126 (1 + k 2^-23) */
			uint32_t got = ftpu_ref_fmul(x, y), want = soft_fmul(x, y);

			kept += got != 0;
			if (got != want && bad++ < 10)
				print_error("fmul(%08x, %08x) = %08x, model %08x\n", x, y, got, want);
		}
	}
	assert_int_equal(bad, 0);
	assert_true(kept > 0 && kept < 4096ul * 4096); /* both sides reached */
}

static void test_numeric_sub_is_add_of_negation(void **state)
{
	static const struct bin_case c[] = {
		{ 0x3f800000, 0x3f800000, 0x00000000, "1 - 1 = +0" },
		{ 0x80000000, 0x00000000, 0x80000000, "-0 - +0 = -0" },
		{ 0x00000000, 0x00000000, 0x00000000, "+0 - +0 = +0" },
		{ 0x7f800000, 0x7f800000, QNAN, "Inf - Inf" },
		{ 0x40000000, 0x3f800000, 0x3f800000, "2 - 1" },
		{ 0x3f800000, 0xffc00000, QNAN, "minus a NaN" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N_OF(c); i++) {
		uint32_t got = ftpu_ref_sub(c[i].x, c[i].y);

		if (got != c[i].want || soft_add(c[i].x, c[i].y ^ 0x80000000u) != c[i].want) {
			print_error("sub(%08x, %08x) = %08x, want %08x: %s\n", c[i].x, c[i].y,
				    got, c[i].want, c[i].why);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_numeric_max_select_seed(void **state)
{
	static const struct bin_case mx[] = {
		{ 0x3f800000, 0x40000000, 0x40000000, "max(1, 2)" },
		{ 0xbf800000, 0xc0000000, 0xbf800000, "max(-1, -2)" },
		{ 0x80000000, 0x00000000, 0x00000000, "max(-0, +0) = +0" },
		{ 0x00000000, 0x80000000, 0x00000000, "either order" },
		{ 0x00400000, 0x80000000, 0x00000000, "a subnormal is a zero" },
		{ 0x3f800000, 0x7fc00001, QNAN, "NaN wins, canonical" },
		{ 0xff800000, 0x7f7fffff, 0x7f7fffff, "max(-Inf, max)" },
		{ 0xbf800000, 0xff800000, 0xbf800000, "max(-1, -Inf)" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N_OF(mx); i++) {
		uint32_t got = ftpu_ref_max(mx[i].x, mx[i].y);

		if (got != mx[i].want) {
			print_error("max(%08x, %08x) = %08x, want %08x: %s\n", mx[i].x, mx[i].y,
				    got, mx[i].want, mx[i].why);
			bad++;
		}
	}
	/* select(c, a, b): a where c > 0 */
	assert_int_equal(ftpu_ref_select(0x3f800000, 0x40400000, 0x40800000), 0x40400000);
	assert_int_equal(ftpu_ref_select(0x00000000, 0x40400000, 0x40800000), 0x40800000);
	assert_int_equal(ftpu_ref_select(0x80000000, 0x40400000, 0x40800000), 0x40800000);
	assert_int_equal(ftpu_ref_select(0x00000001, 0x40400000, 0x40800000), 0x40800000); /* DAZ */
	assert_int_equal(ftpu_ref_select(0x7fc00000, 0x40400000, 0x40800000), 0x40800000); /* NaN is not > 0 */
	assert_int_equal(ftpu_ref_select(0x7f800000, 0x40400000, 0x40800000), 0x40400000); /* +Inf is */
	assert_int_equal(ftpu_ref_select(0x3f800000, 0x807fffff, 0), 0x80000000); /* result canonical */
	assert_int_equal(ftpu_ref_select(0x3f800000, 0xffc12345, 0), QNAN);
	/* seed: k - (x >> shift) on the bits, canonical */
	assert_int_equal(ftpu_ref_seed(0x40800000, 0x5f3759dfu, 1), 0x5f3759dfu - 0x20400000u);
	assert_int_equal(ftpu_ref_seed(0x40000000, 0x7ef311c3u, 0), 0x7ef311c3u - 0x40000000u);
	assert_int_equal(ftpu_ref_seed(0x7f000000, 0x7f000000u, 0), 0); /* 0: a zero */
	assert_int_equal(ftpu_ref_seed(0x7f000001, 0x7f000000u, 0), QNAN); /* wraps to a NaN pattern */
	assert_int_equal(ftpu_ref_seed(0x7e800001, 0x7f000000u, 0), 0x00000000); /* subnormal bits flushed */
	assert_int_equal(bad, 0);
}

/*
 * The reciprocal and reciprocal-square-root sequences of docs/numerics.md,
 * built from the vector operations exactly as a device program runs them:
 * their error against double, over significands of [1, 4) at exponents
 * across the domain the page gives ([2^-125, 2^125]).
 */
static uint32_t seq_rsqrt(uint32_t x, int steps)
{
	uint32_t h = ftpu_ref_fmul(x, 0x3f000000u), y = ftpu_ref_seed(x, 0x5f3759dfu, 1);

	for (int i = 0; i < steps; i++) {
		uint32_t t = ftpu_ref_fmul(y, y);

		t = ftpu_ref_fmul(h, t);
		t = ftpu_ref_sub(0x3fc00000u, t); /* 1.5 - x/2 y^2 */
		y = ftpu_ref_fmul(y, t);
	}
	return y;
}

static uint32_t seq_recip(uint32_t d, int steps)
{
	uint32_t z = ftpu_ref_seed(d, 0x7ef311c3u, 0);

	for (int i = 0; i < steps; i++) {
		uint32_t t = ftpu_ref_fmul(d, z);

		t = ftpu_ref_sub(0x40000000u, t); /* 2 - d z */
		z = ftpu_ref_fmul(z, t);
	}
	return z;
}

static double bits_f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void test_numeric_newton_sequences(void **state)
{
	static const int exps[] = { -124, -61, 0, 62, 123 }; /* even: 4^k scales */
	double worst_rsqrt = 0, worst_recip = 0;

	(void)state;
	for (size_t e = 0; e < N_OF(exps); e++)
		for (uint32_t m = 0; m < 1u << 24; m += 61) {
			uint32_t x = (uint32_t)(127 + exps[e]) << 23 | (m & 0x7fffffu);
			double r, q;

			if (m >> 23) /* [2, 4) */
				x += 1u << 23;
			r = fabs(bits_f(seq_rsqrt(x, 2)) * sqrt(bits_f(x)) - 1);
			q = fabs(bits_f(seq_recip(x, 3)) * bits_f(x) - 1);
			worst_rsqrt = r > worst_rsqrt ? r : worst_rsqrt;
			worst_recip = q > worst_recip ? q : worst_recip;
		}
	printf("rsqrt, seed + 2 steps: max relative error %.3g; reciprocal, seed + 3 steps: %.3g\n",
	       worst_rsqrt, worst_recip);
	assert_true(worst_rsqrt < 5e-6);
	assert_true(worst_recip < 2e-7);
}

int main(void)
{
	const char *full = getenv("FTPU_FULL");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric_f32_to_bf16_ties_to_even),
		cmocka_unit_test(test_numeric_f32_to_bf16_overflow_to_inf),
		cmocka_unit_test(test_numeric_f32_to_bf16_nan_quiet_sign_kept),
		cmocka_unit_test(test_numeric_f32_to_bf16_subnormal_flush_signed),
		cmocka_unit_test(test_numeric_f32_to_bf16_nearest_even_sweep),
		cmocka_unit_test(test_numeric_mul_signed_zeros),
		cmocka_unit_test(test_numeric_mul_subnormal_inputs_are_zero),
		cmocka_unit_test(test_numeric_mul_inf_times_zero_is_canonical_nan),
		cmocka_unit_test(test_numeric_mul_nan_payload_canonical),
		cmocka_unit_test(test_numeric_mul_exact_product),
		cmocka_unit_test(test_numeric_mul_overflow_to_inf),
		cmocka_unit_test(test_numeric_mul_underflow_to_signed_zero),
		cmocka_unit_test(test_numeric_add_cancellation_is_plus_zero),
		cmocka_unit_test(test_numeric_add_signed_zero_sums),
		cmocka_unit_test(test_numeric_add_ties_to_even),
		cmocka_unit_test(test_numeric_add_inf_minus_inf_canonical_nan),
		cmocka_unit_test(test_numeric_add_nan_canonical),
		cmocka_unit_test(test_numeric_add_subnormal_inputs_daz),
		cmocka_unit_test(test_numeric_add_subnormal_result_flushed),
		cmocka_unit_test(test_numeric_add_overflow),
		cmocka_unit_test(test_numeric_step_is_mul_then_add),
		cmocka_unit_test(test_numeric_activate_relu_negative_zero),
		cmocka_unit_test(test_numeric_activate_relu_nan),
		cmocka_unit_test(test_numeric_activate_relu_negative),
		cmocka_unit_test(test_numeric_activate_rounds_after_bias),
		cmocka_unit_test(test_numeric_fpmode_restored),
		cmocka_unit_test(test_numeric_mul_matches_softfloat),
		cmocka_unit_test(test_numeric_mul_all_bf16_by_specials),
		cmocka_unit_test(test_numeric_add_matches_softfloat),
		cmocka_unit_test(test_numeric_step_matches_softfloat),
		cmocka_unit_test(test_numeric_fmul_directed),
		cmocka_unit_test(test_numeric_fmul_matches_softfloat),
		cmocka_unit_test(test_numeric_fmul_underflow_boundary),
		cmocka_unit_test(test_numeric_sub_is_add_of_negation),
		cmocka_unit_test(test_numeric_max_select_seed),
		cmocka_unit_test(test_numeric_newton_sequences),
	};

	if (full && strcmp(full, "1") == 0)
		n_random *= 10;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
