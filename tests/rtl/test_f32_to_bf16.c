/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_f32_to_bf16.c - the activation unit's conversion on its own
 * (rtl/core/ftpu_f32_to_bf16.sv) against ftpu_f32_to_bf16, bit for bit.
 * Through the activation's adder every NaN arrives canonical; here NaN
 * payloads and signs reach the conversion unchanged.
 *
 * Default: every sign, exponent and top 8 fraction bits (bits 31:15, which
 * decide everything but the rounding) with the low 15 bits from a set that
 * holds the rounding's edges, plus 2M random words. FTPU_FULL=1: all 2^32.
 * Lanes model (sim/tops/ftpu_lanes.sv, Unit 4): x in, bf16 in r[15:0].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

static uint32_t ref_cvt(uint32_t x, uint32_t y, uint32_t z)
{
	(void)y, (void)z;
	return ftpu_f32_to_bf16(x);
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_cvt_lanes, ref_cvt,
			   "f32_to_bf16");
}

static void test_f32_to_bf16_high_bits_sweep(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	/* bit 15 (the half) is part of the sweep; these are bits 14:0 */
	static const uint32_t low[] = { 0x0000, 0x0001, 0x0002, 0x0100,
					0x3FFF, 0x4000, 0x4001, 0x7FFE,
					0x7FFF, 0x2AAA, 0x5555, 0x1234 };
	uint64_t before = c->checked;
	for (uint32_t hi = 0; hi < (1u << 17); hi++)
		for (size_t i = 0; i < sizeof(low) / sizeof(low[0]); i++)
			lanes_push(c, &b, hi << 15 | low[i], 0, 0);
	lanes_finish(c, &b);
	assert_int_equal(c->checked - before, (1u << 17) * 12);
	assert_int_equal(c->mismatches, 0);
}

static void test_f32_to_bf16_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x7B7B };
	for (int i = 0; i < 2000000; i++)
		lanes_push(c, &b, rng_u32(&r), 0, 0);
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* make check-full: every fp32 bit pattern. */
static void test_f32_to_bf16_exhaustive(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	if (!ftpu_test_full())
		skip();
	uint64_t before = c->checked;
	uint32_t x = 0;
	do
		lanes_push(c, &b, x, 0, 0);
	while (++x != 0);
	lanes_finish(c, &b);
	assert_int_equal(c->checked - before, 1ull << 32);
	assert_int_equal(c->mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f32_to_bf16_high_bits_sweep),
		cmocka_unit_test(test_f32_to_bf16_random),
		cmocka_unit_test(test_f32_to_bf16_exhaustive),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
