/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_add.c - the RTL fp32 adder (rtl/core/ftpu_fp32_add.sv) against
 * ftpu_ref_add, bit for bit: special classes, every exponent difference with
 * both effective operations, ties to even, cancellation, the underflow and
 * overflow edges, and >= 10M random pairs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

static uint32_t ref_add(uint32_t x, uint32_t y, uint32_t z)
{
	(void)z;
	return ftpu_ref_add(x, y);
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_add_lanes, ref_add, "add");
}

static uint32_t f32(uint32_t sign, uint32_t exp, uint32_t frac)
{
	return sign << 31 | (exp & 0xFF) << 23 | (frac & 0x7FFFFF);
}

static void test_add_special_classes(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	for (size_t i = 0; i < N_F32_SPECIALS; i++)
		for (size_t j = 0; j < N_F32_SPECIALS; j++)
			lanes_push(c, &b, f32_specials[i], f32_specials[j], 0);
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Exponent differences 0..40 (alignment, sticky, everything-shifted-out),
 * same and opposite signs (carry out, cancellation of up to 24 bits). */
static void test_add_every_exponent_difference(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x2222 };
	for (uint32_t d = 0; d <= 40; d++)
		for (int k = 0; k < 20000; k++) {
			uint32_t ex = d + 1 + rng_below(&r, 254 - d);
			uint32_t fx = rng_u32(&r), fy = rng_u32(&r);
			/* few low bits set in y half the time: exact cancellations */
			if (k & 1)
				fy = fx ^ (rng_u32(&r) & 0x3F);
			lanes_push(c, &b, f32(k >> 1 & 1, ex, fx),
				   f32(k >> 2 & 1, ex - d, fy), 0);
		}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Exact halfway cases: y is half an ulp of x (and half plus/minus a bit),
 * with x's last bit both even and odd, adding and subtracting. */
static void test_add_ties_to_even(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x3333 };
	for (int k = 0; k < 200000; k++) {
		uint32_t ex = 30 + rng_below(&r, 200);
		uint32_t fx = rng_u32(&r);
		uint32_t dy = 24 + (k & 1); /* half ulp; quarter ulp */
		uint32_t fy = (k & 2) ? 0 : rng_u32(&r) & 0x7;
		lanes_push(c, &b, f32(k >> 2 & 1, ex, fx),
			   f32(k >> 3 & 1, ex - dy, fy), 0);
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Results next to the smallest normal (flushed to a signed zero) and next to
 * the largest finite value (overflow to Inf, or rounding up into it). */
static void test_add_range_edges(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x4444 };
	for (int k = 0; k < 200000; k++) {
		uint32_t lo = 1 + rng_below(&r, 3), hi = 254 - rng_below(&r, 3);
		uint32_t u = rng_u32(&r);
		lanes_push(c, &b, f32(u & 1, lo, rng_u32(&r)),
			   f32(u >> 1 & 1, lo + rng_below(&r, 2), rng_u32(&r)), 0);
		lanes_push(c, &b, f32(u >> 2 & 1, hi, rng_u32(&r) | 0x7FFF00),
			   f32(u >> 3 & 1, hi - rng_below(&r, 26), rng_u32(&r)), 0);
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

static void test_add_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x5555 };
	uint64_t n = ftpu_test_full() ? 200000000ull : 12000000ull;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t x = rng_f32(&r);
		uint32_t y = (i & 1) ? rng_f32_partner(&r, x) : rng_f32(&r);
		lanes_push(c, &b, x, y, 0);
	}
	lanes_finish(c, &b);
	printf("add: %" PRIu64 " random pairs, seed %#" PRIx64 "\n", n,
	       ftpu_test_seed());
	assert_int_equal(c->mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_special_classes),
		cmocka_unit_test(test_add_every_exponent_difference),
		cmocka_unit_test(test_add_ties_to_even),
		cmocka_unit_test(test_add_range_edges),
		cmocka_unit_test(test_add_random),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
