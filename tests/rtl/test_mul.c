/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mul.c - the RTL bf16 multiplier (rtl/core/ftpu_bf16_mul.sv) against
 * ftpu_ref_mul, bit for bit: special classes, every exponent pair, random
 * pairs, and (make check-full) all 2^32 input pairs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lanes_check.h"
#include "numeric.h"

static uint32_t ref_mul(uint32_t x, uint32_t y, uint32_t z)
{
	(void)z;
	return ftpu_ref_mul((ftpu_bf16)x, (ftpu_bf16)y);
}

static int setup(void **state)
{
	return lanes_setup(state, ftpu_sim_open_mul_lanes, ref_mul, "mul");
}

static void test_mul_special_classes(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	for (size_t i = 0; i < N_BF16_SPECIALS; i++)
		for (size_t j = 0; j < N_BF16_SPECIALS; j++)
			lanes_push(c, &b, bf16_specials[i], bf16_specials[j], 0);
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

/* Every exponent pair with random signs and fractions: covers each
 * underflow and overflow boundary and the carry into the next binade. */
static void test_mul_every_exponent_pair(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() };
	for (uint32_t ea = 0; ea < 256; ea++)
		for (uint32_t eb = 0; eb < 256; eb++)
			for (int k = 0; k < 4; k++) {
				uint32_t u = rng_u32(&r);
				lanes_push(c, &b,
					   (u & 0x807F) | ea << 7,
					   ((u >> 16) & 0x807F) | eb << 7, 0);
			}
	lanes_finish(c, &b);
	assert_int_equal(c->mismatches, 0);
}

static void test_mul_random(void **state)
{
	struct lanes_checker *c = *state;
	struct lanes_batch b = { 0 };
	struct rng r = { ftpu_test_seed() ^ 0x1111 };
	uint64_t n = ftpu_test_full() ? 200000000ull : 12000000ull;
	for (uint64_t i = 0; i < n; i++)
		lanes_push(c, &b, rng_bf16(&r), rng_bf16(&r), 0);
	lanes_finish(c, &b);
	printf("mul: %" PRIu64 " random pairs, seed %#" PRIx64 "\n", n,
	       ftpu_test_seed());
	assert_int_equal(c->mismatches, 0);
}

/* All 2^32 pairs, split over two processes (one per core here). */
static void test_mul_exhaustive(void **state)
{
	(void)state;
	if (!ftpu_test_full())
		skip();
	enum { WORKERS = 2 };
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid[WORKERS];
	for (int w = 0; w < WORKERS; w++) {
		pid[w] = fork();
		assert_true(pid[w] >= 0);
		if (pid[w] > 0)
			continue;
		struct lanes_checker c = { .ref = ref_mul, .unit = "mul" };
		struct lanes_batch b = { 0 };
		c.sim = ftpu_sim_open_mul_lanes(NULL);
		if (!c.sim)
			_exit(2);
		for (uint32_t a = w; a < 0x10000; a += WORKERS)
			for (uint32_t bb = 0; bb < 0x10000; bb++)
				lanes_push(&c, &b, a, bb, 0);
		lanes_finish(&c, &b);
		ftpu_sim_close(c.sim);
		_exit(c.mismatches == 0 && c.checked == 0x80000000ull ? 0 : 1);
	}
	int failed = 0;
	for (int w = 0; w < WORKERS; w++) {
		int status;
		waitpid(pid[w], &status, 0);
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("mul: all 2^32 pairs in %.1f s\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
	assert_false(failed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul_special_classes),
		cmocka_unit_test(test_mul_every_exponent_pair),
		cmocka_unit_test(test_mul_random),
		cmocka_unit_test(test_mul_exhaustive),
	};
	return cmocka_run_group_tests(tests, setup, lanes_teardown);
}
