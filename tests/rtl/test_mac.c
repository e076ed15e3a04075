/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mac.c - one PE step (ftpu_bf16_mul into ftpu_fp32_add, as wired in
 * ftpu_pe) against ftpu_ref_step, bit for bit: special operands in every
 * position, accumulators that cancel the product, and >= 10M random steps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

/* Lane layout of ftpu_lanes Unit 2: x = acc, y = a, z = b. */
static uint32_t ref_step(uint32_t acc, uint32_t a, uint32_t b)
{
	return ftpu_ref_step(acc, (ftpu_bf16)a, (ftpu_bf16)b);
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_mac_lanes, ref_step, "mac");
}

static void test_mac_special_operands(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	for (size_t i = 0; i < N_F32_SPECIALS; i++)
		for (size_t j = 0; j < N_BF16_SPECIALS; j++)
			for (size_t k = 0; k < N_BF16_SPECIALS; k++)
				lanes_push(c, &b, f32_specials[i],
					   bf16_specials[j], bf16_specials[k]);
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

static void test_mac_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x6666 };
	uint64_t n = ftpu_test_full() ? 200000000ull : 12000000ull;
	for (uint64_t i = 0; i < n; i++) {
		uint16_t a = rng_bf16(&r), w = rng_bf16(&r);
		uint32_t acc;
		if (i & 1) /* an accumulator near -a*w: cancellation, ties */
			acc = rng_f32_partner(&r, ftpu_ref_mul(a, w) ^ 0x80000000u);
		else
			acc = rng_f32(&r);
		lanes_push(c, &b, acc, a, w);
	}
	lanes_finish(c, &b);
	printf("mac: %" PRIu64 " random steps, seed %#" PRIx64 "\n", n,
	       ftpu_test_seed());
	assert_int_equal(c->mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_special_operands),
		cmocka_unit_test(test_mac_random),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
