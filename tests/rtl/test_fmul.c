/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fmul.c - the vector unit's fp32 multiplier (rtl/core/ftpu_fp32_mul.sv)
 * against ftpu_ref_fmul, bit for bit: special classes, every exponent pair,
 * the smallest-normal boundary (tiny after rounding), overflow, ties, and
 * random pairs (200M in make check-full).
 *
 * ftpu_ref_fmul itself is checked on every vector against a second oracle
 * written from docs/numerics.md alone: the exact product in double (24 x 24
 * bits fit its 53), rounded to 24 bits with an unbounded exponent by rint,
 * then flushed or overflowed by range.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

static uint64_t oracle_disagreements;

static uint32_t f32(uint32_t sign, uint32_t exp, uint32_t frac)
{
	return sign << 31 | (exp & 0xFF) << 23 | (frac & 0x7FFFFF);
}

/* docs/numerics.md, Vector operations: fmul. */
static uint32_t fmul_oracle(uint32_t x, uint32_t y)
{
	uint32_t ex = x >> 23 & 0xFF, ey = y >> 23 & 0xFF;
	uint32_t sign = (x ^ y) & 0x80000000u;
	int x_nan = ex == 0xFF && (x & 0x7FFFFF), y_nan = ey == 0xFF && (y & 0x7FFFFF);
	int x_inf = ex == 0xFF && !(x & 0x7FFFFF), y_inf = ey == 0xFF && !(y & 0x7FFFFF);
	if (x_nan || y_nan || (x_inf && ey == 0) || (y_inf && ex == 0))
		return 0x7FC00000u;
	if (x_inf || y_inf)
		return sign | 0x7F800000u;
	if (ex == 0 || ey == 0) /* DAZ */
		return sign;
	/* Significands as integers: the product is exact in double. */
	double p = (double)((x & 0x7FFFFF) | 0x800000) *
		   (double)((y & 0x7FFFFF) | 0x800000);
	int e;
	double m = frexp(p, &e);                  /* p = m * 2^e, m in [0.5, 1) */
	double r = rint(ldexp(m, 24));            /* 24 bits, ties to even */
	double v = ldexp(r, e - 24 + (int)ex - 127 - 23 + (int)ey - 127 - 23);
	if (v < 0x1p-126)
		return sign;                      /* tiny after rounding */
	if (v >= 0x1p128)
		return sign | 0x7F800000u;
	float f = (float)v;                       /* exact: 24 bits, in range */
	uint32_t bits;
	memcpy(&bits, &f, sizeof(bits));
	return sign | bits;
}

static uint32_t ref_fmul(uint32_t x, uint32_t y, uint32_t z)
{
	(void)z;
	uint32_t r = ftpu_ref_fmul(x, y);
	if (r != fmul_oracle(x, y) && oracle_disagreements++ < 8)
		printf("ftpu_ref_fmul(%08x, %08x) = %08x, oracle %08x\n", x, y, r,
		       fmul_oracle(x, y));
	return r;
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_fmul_lanes, ref_fmul, "fmul");
}

static void finish(struct lanes_checker *c, struct lanes_batch *b)
{
	lanes_finish(c, b);
	assert_int_equal(c->mismatches, 0);
	assert_int_equal(oracle_disagreements, 0);
}

static void test_fmul_special_classes(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	for (size_t i = 0; i < N_F32_SPECIALS; i++)
		for (size_t j = 0; j < N_F32_SPECIALS; j++)
			lanes_push(c, &b, f32_specials[i], f32_specials[j], 0);
	finish(c, &b);
}

/* Every exponent pair with random signs and fractions: each underflow and
 * overflow boundary, and the product's carry into the next binade. */
static void test_fmul_every_exponent_pair(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6161 };
	int per_pair = ftpu_test_full() ? 64 : 4;
	for (uint32_t ex = 0; ex < 256; ex++)
		for (uint32_t ey = 0; ey < 256; ey++)
			for (int k = 0; k < per_pair; k++) {
				uint32_t u = rng_u32(&r);
				lanes_push(c, &b, f32(u & 1, ex, rng_u32(&r)),
					   f32(u >> 1 & 1, ey, rng_u32(&r)), 0);
			}
	finish(c, &b);
}

/* Products next to 2^-126: exponents whose sum lands there, with
 * significands that make the product fall in [2^-126 - 2^-151, 2^-126)
 * (rounds up to the smallest normal) or just below (flushed). Pairs are
 * built as x = 1 + a, y = (2 - eps) / (1 + a) rounded either way. */
static void test_fmul_smallest_normal_boundary(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6262 };
	for (int k = 0; k < 400000; k++) {
		uint32_t fx = rng_u32(&r) & 0x7FFFFF;
		/* y's significand ~ 2 / x's, so the product is ~2 (just below) */
		double sx = 1.0 + fx / 0x1p23;
		uint32_t fy = (uint32_t)((2.0 / sx - 1.0) * 0x1p23);
		fy = (fy + (rng_u32(&r) % 5) - 2) & 0x7FFFFF;
		uint32_t ex = 1 + rng_below(&r, 125);
		uint32_t ey = 127 - ex - 1 + rng_below(&r, 3); /* sum ~ 2^-127 */
		uint32_t u = rng_u32(&r);
		lanes_push(c, &b, f32(u & 1, ex, fx), f32(u >> 1 & 1, ey, fy), 0);
		/* a significand of all ones times 1: exactly 2^-126 - 2^-150 */
		lanes_push(c, &b, f32(u >> 2 & 1, ex, 0x7FFFFF),
			   f32(u >> 3 & 1, 127 - ex, 0), 0);
	}
	/* The exact tie 2^-126 - 2^-151 (rounds up, to even): significands
	 * Mx * My = 2^22 * (2^25 - 1) (a product of 2 - 2^-24), from each
	 * divisor d of 2^25 - 1 = 31 * 601 * 1801, shifted into [2^23, 2^24). */
	int ties = 0;
	for (uint32_t d = 1; d < 1u << 25; d += 2) {
		if ((0x1FFFFFFu % d) != 0)
			continue;
		uint64_t mx = d, my = 0x1FFFFFFu / d;
		int shift = 0;
		while (mx < 1u << 23) {
			mx <<= 1;
			shift++;
		}
		if (shift > 22)
			continue;
		my <<= 22 - shift; /* mx * my = (2^25 - 1) * 2^22 */
		if (my < 1u << 23 || my >= 1u << 24)
			continue;
		for (uint32_t ex = 1; ex < 127; ex += 9) {
			uint32_t u = rng_u32(&r);
			lanes_push(c, &b, f32(u & 1, ex, (uint32_t)mx),
				   f32(u >> 1 & 1, 127 - ex, (uint32_t)my), 0);
			/* and one ulp either side of the tie */
			lanes_push(c, &b, f32(0, ex, (uint32_t)mx + 1),
				   f32(0, 127 - ex, (uint32_t)my), 0);
			lanes_push(c, &b, f32(0, ex, (uint32_t)mx - 1),
				   f32(0, 127 - ex, (uint32_t)my), 0);
		}
		ties++;
	}
	assert_true(ties > 0);
	finish(c, &b);
}

/* Products next to the largest finite value: overflow, or rounding up
 * into it. */
static void test_fmul_overflow_edge(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6363 };
	for (int k = 0; k < 400000; k++) {
		uint32_t ex = 128 + rng_below(&r, 127);
		uint32_t ey = 254 + 127 - ex - rng_below(&r, 2) + (k & 1);
		uint32_t u = rng_u32(&r);
		lanes_push(c, &b, f32(u & 1, ex, rng_u32(&r) | 0x7FF000),
			   f32(u >> 1 & 1, ey, rng_u32(&r) | 0x7F0000), 0);
	}
	finish(c, &b);
}

/* Exact halfway products: fractions with few low bits, so the bits below
 * the rounding position are often exactly 100...0. */
static void test_fmul_ties(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6464 };
	for (int k = 0; k < 400000; k++) {
		uint32_t fx = (rng_u32(&r) & 0x7FF) << (12 + rng_below(&r, 12));
		uint32_t fy = (rng_u32(&r) & 0xFFF) << rng_below(&r, 12);
		uint32_t u = rng_u32(&r);
		lanes_push(c, &b, f32(u & 1, 100 + rng_below(&r, 50), fx),
			   f32(u >> 1 & 1, 100 + rng_below(&r, 50), fy), 0);
	}
	finish(c, &b);
}

static void test_fmul_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6565 };
	uint64_t n = ftpu_test_full() ? 200000000ull : 6000000ull;
	for (uint64_t i = 0; i < n; i++)
		lanes_push(c, &b, rng_f32(&r), rng_f32(&r), 0);
	printf("fmul: %" PRIu64 " random pairs, seed %#" PRIx64 "\n", n,
	       ftpu_test_seed());
	finish(c, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmul_special_classes),
		cmocka_unit_test(test_fmul_every_exponent_pair),
		cmocka_unit_test(test_fmul_smallest_normal_boundary),
		cmocka_unit_test(test_fmul_overflow_edge),
		cmocka_unit_test(test_fmul_ties),
		cmocka_unit_test(test_fmul_random),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
