/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_activate.c - one lane of the activation unit (rtl/core/ftpu_activate.sv:
 * bias add, ReLU, fp32 -> bf16) against ftpu_ref_activate, bit for bit, on
 * the boards' pipelined adder: special classes crossed, ties of the bf16
 * rounding, overflow to Inf, flushes to signed zeros, NaNs, ReLU's corners
 * and >= 10M random vectors.
 *
 * Operands in the lanes model (sim/tops/ftpu_lanes.sv, Unit 3): x = acc,
 * y = bias, z[0] = relu; the bf16 result in r[15:0], r[31:16] zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

#define NEG_ZERO 0x80000000u /* bias of an ACTIVATE without BIAS */

static uint32_t ref_act(uint32_t x, uint32_t y, uint32_t z)
{
	return ftpu_ref_activate(x, y, z & 1);
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_act_lanes, ref_act, "activate");
}

static uint32_t f32(uint32_t sign, uint32_t exp, uint32_t frac)
{
	return sign << 31 | (exp & 0xFF) << 23 | (frac & 0x7FFFFF);
}

/* Push (acc, bias) with relu off and on. */
static void push2(struct lanes_checker *c, struct lanes_batch *b, uint32_t acc,
		  uint32_t bias)
{
	lanes_push(c, b, acc, bias, 0);
	lanes_push(c, b, acc, bias, 1);
}

/* acc x bias x relu over the shared special values, plus a few that matter
 * to the conversion: bf16 ties, the last finite bf16, NaN payloads. */
static const uint32_t act_extra[] = {
	0x3F808000, 0x3F818000, 0xBF808000, 0xBF818000, 0x3F807FFF,
	0x3F808001, 0x7F7F8000, 0x7F7F7FFF, 0xFF7F8000, 0xFF7F7FFF,
	0x00808000, 0x80818000, 0x0080FFFF, 0x7FFFFFFF, 0xFFFFFFFF,
	0x7F810000, 0xFF80FFFF, 0x7FA00000, 0x3F7F8000, 0xC0000001,
};
#define N_ACT_EXTRA (sizeof(act_extra) / sizeof(act_extra[0]))

static uint32_t special(size_t i)
{
	return i < N_F32_SPECIALS ? f32_specials[i]
				  : act_extra[i - N_F32_SPECIALS];
}

static void test_activate_special_classes(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	size_t n = N_F32_SPECIALS + N_ACT_EXTRA;
	uint64_t before = c->checked;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			push2(c, &b, special(i), special(j));
		push2(c, &b, special(i), NEG_ZERO); /* no bias */
	}
	lanes_finish(c, &b);
	assert_int_equal(c->checked - before, 2 * n * (n + 1));
	assert_int_equal(c->mismatches, 0);
}

/* Sums exactly halfway between two bf16 values (low 16 bits 0x8000), with
 * the last kept bit even and odd, and one step either side; from the
 * accumulator alone (bias -0 or +0) and from a real add of half a bf16 ulp. */
static void test_activate_rounding_ties(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xA1A1 };
	static const uint32_t low[] = { 0x8000, 0x7FFF, 0x8001, 0x7FFE,
					0x8002, 0x0000, 0xFFFF, 0x0001 };
	for (int k = 0; k < 100000; k++) {
		uint32_t u = rng_u32(&r);
		uint32_t exp = 1 + rng_below(&r, 254);
		/* bits 22:17 random, bit 16 = parity (k & 1) */
		uint32_t hi = (rng_u32(&r) & 0x7E0000) | (uint32_t)(k & 1) << 16;
		uint32_t acc = f32(u & 1, exp, hi | low[(k >> 1) & 7]);
		lanes_push(c, &b, acc, NEG_ZERO, u >> 1 & 1);
		lanes_push(c, &b, acc, 0, u >> 2 & 1);
		/* acc on the bf16 grid, bias half its bf16 ulp (2^(e-8)): a tie
		 * after the add, or a quarter/three quarters of it */
		if (exp > 9) {
			uint32_t grid = f32(u >> 3 & 1, exp, hi);
			uint32_t bsign = u >> 4 & 1;
			lanes_push(c, &b, grid, f32(bsign, exp - 8, 0), u >> 5 & 1);
			lanes_push(c, &b, grid, f32(bsign, exp - 9, 0), u >> 6 & 1);
			lanes_push(c, &b, grid, f32(bsign, exp - 9, 0x400000),
				   u >> 7 & 1);
			lanes_push(c, &b, grid,
				   f32(bsign, exp - 8, rng_u32(&r) & 0x3),
				   u >> 8 & 1);
		}
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Rounding up past the largest finite bf16 (0x7F7F) into Inf, sums that
 * overflow fp32 in the adder, and values just below the rounding point. */
static void test_activate_overflow(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xB2B2 };
	for (int k = 0; k < 100000; k++) {
		uint32_t u = rng_u32(&r);
		uint32_t s = u & 1;
		/* 0x7F7F0000 .. 0x7F7FFFFF, both signs */
		uint32_t acc = f32(s, 254, 0x7F0000 | (rng_u32(&r) & 0xFFFF));
		if (u & 2)
			acc = f32(s, 254, 0x7F7F00 | (rng_u32(&r) & 0xFF)) + 0x7F00;
		uint32_t bias;
		switch (u >> 2 & 3) {
		case 0:
			bias = NEG_ZERO;
			break;
		case 1: /* a few fp32 ulps either way */
			bias = f32(rng_u32(&r) & 1, 231 + rng_below(&r, 3),
				   rng_u32(&r));
			break;
		case 2: /* near half a bf16 ulp */
			bias = f32(rng_u32(&r) & 1, 246, rng_u32(&r));
			break;
		default: /* large: overflows fp32 in the adder, or cancels */
			bias = f32(rng_u32(&r) & 1, 250 + rng_below(&r, 5),
				   rng_u32(&r));
			break;
		}
		lanes_push(c, &b, acc, bias, u >> 4 & 1);
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Tiny values: fp32 subnormal accumulators (DAZ), sums cancelling below
 * 2^-126 (FTZ in the adder), the smallest normals rounding in bf16; every
 * flush keeps the sign of its result. */
static void test_activate_subnormal_flush(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xC3C3 };
	for (int k = 0; k < 100000; k++) {
		uint32_t u = rng_u32(&r);
		uint32_t sub = f32(u & 1, 0, rng_u32(&r) | 1);
		uint32_t tiny = f32(u >> 1 & 1, 1 + rng_below(&r, 2), rng_u32(&r));
		uint32_t tiny2 = f32(u >> 2 & 1, 1 + rng_below(&r, 2), rng_u32(&r));
		uint32_t bias0 = (u & 8) ? NEG_ZERO : (u & 16) ? 0 : sub ^ 0x80000000u;
		lanes_push(c, &b, sub, bias0, u >> 5 & 1);
		lanes_push(c, &b, tiny, tiny2, u >> 6 & 1);
		/* x + (-x with its last bits changed): exact tiny differences */
		lanes_push(c, &b, tiny, (tiny ^ 0x80000000u) ^ (rng_u32(&r) & 0xFF),
			   u >> 7 & 1);
		lanes_push(c, &b, tiny, (u & 32) ? NEG_ZERO : sub, u >> 8 & 1);
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* NaN accumulators and biases with every sign and payload, quiet and
 * signalling; Inf - Inf. The adder canonicalizes first (docs/isa.md: the
 * add of -0 without BIAS canonicalizes NaN), so the reference decides. */
static void test_activate_nan(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xD4D4 };
	for (int k = 0; k < 50000; k++) {
		uint32_t u = rng_u32(&r);
		uint32_t nan = f32(u & 1, 255, rng_u32(&r) | (1u << (u >> 8 & 15)));
		uint32_t other = (u & 2) ? rng_f32(&r) : NEG_ZERO;
		uint32_t relu = u >> 2 & 1;
		lanes_push(c, &b, nan, other, relu);
		lanes_push(c, &b, other, nan, relu);
		lanes_push(c, &b, nan, f32(u >> 3 & 1, 255, rng_u32(&r) | 1), relu);
	}
	push2(c, &b, 0x7F800000, 0xFF800000);
	push2(c, &b, 0xFF800000, 0x7F800000);
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* ReLU: -0 (from -0 + -0, and a -0 accumulator without bias) gives +0;
 * x + (-x) = +0; negatives of every size give +0; positives pass, down to
 * the smallest normal; NaN stays NaN. Relu off shows the signs survive. */
static void test_activate_relu(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xE5E5 };
	push2(c, &b, NEG_ZERO, NEG_ZERO);
	push2(c, &b, 0, NEG_ZERO);
	push2(c, &b, NEG_ZERO, 0);
	push2(c, &b, 0x80000001, NEG_ZERO);
	push2(c, &b, 0x00800000, NEG_ZERO);
	push2(c, &b, 0x80800000, NEG_ZERO);
	push2(c, &b, 0xFF800000, NEG_ZERO);
	push2(c, &b, 0x7FC00000, NEG_ZERO);
	for (int k = 0; k < 100000; k++) {
		uint32_t x = rng_f32(&r);
		push2(c, &b, x, x ^ 0x80000000u); /* +0, or NaN */
		push2(c, &b, x | 0x80000000u, NEG_ZERO);
		push2(c, &b, x & 0x7FFFFFFFu, rng_f32_partner(&r, x));
	}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

static void test_activate_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0xF6F6 };
	uint64_t n = ftpu_test_full() ? 120000000ull : 12000000ull;
	uint64_t before = c->checked;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t u = rng_u32(&r);
		uint32_t x = rng_f32(&r);
		uint32_t y;
		switch (u & 3) {
		case 0:
			y = NEG_ZERO;
			break;
		case 1:
			y = rng_f32(&r);
			break;
		default:
			y = rng_f32_partner(&r, x);
			break;
		}
		lanes_push(c, &b, x, y, u >> 2 & 1);
	}
	lanes_finish(c, &b);
	printf("activate: %" PRIu64 " random vectors (%" PRIu64
	       " in all), seed %#" PRIx64 "\n",
	       n, c->checked, ftpu_test_seed());
	assert_int_equal(c->checked - before, n);
	assert_int_equal(c->mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_activate_special_classes),
		cmocka_unit_test(test_activate_rounding_ties),
		cmocka_unit_test(test_activate_overflow),
		cmocka_unit_test(test_activate_subnormal_flush),
		cmocka_unit_test(test_activate_nan),
		cmocka_unit_test(test_activate_relu),
		cmocka_unit_test(test_activate_random),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
