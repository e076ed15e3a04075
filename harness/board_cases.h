/* SPDX-License-Identifier: Apache-2.0 */
/*
 * board_cases.h - the cases every simulated board passes (tests/rtl/
 * test_board_<board>.c): the board's top as it would be built (PLL
 * bypassed, UART PHY, the board's parameters), driven only through its
 * pins by libftpu's "sim:board=<board>" (sim/board_shim.cpp is the host's
 * side of the serial line): INFO reports the board's configuration, GEMMs
 * are bit-identical to the C model, a reset works, and the link's byte
 * counts match what crossed the line.
 *
 * The build defines FTPU_BOARD_NAME and the board's parameters
 * (FTPU_DEV_*, mk/models/boards.mk board_defines).
 */
#ifndef FTPU_TEST_BOARD_CASES_H
#define FTPU_TEST_BOARD_CASES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu.h"
#include "transport_cases.h"

static const char board_uri[] = "sim:board=" FTPU_BOARD_NAME;

static inline float *randm(struct rng *r, size_t n)
{
	float *p = malloc(n * sizeof(float));
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (float)(int32_t)rng_u32(r) / 2147483648.0f * 4.0f;
	return p;
}

static inline void test_info(void **state)
{
	(void)state;
	ftpu_device *dev;
	struct ftpu_device_info info;
	assert_int_equal(ftpu_open(board_uri, &dev), FTPU_OK);
	assert_int_equal(ftpu_get_info(dev, &info), FTPU_OK);
	/* boards/<board>/board.mk: <board>_PARAMS, as the build passes them */
	assert_int_equal(info.rows, FTPU_DEV_N);
	assert_int_equal(info.cols, FTPU_DEV_N);
	assert_int_equal(info.row_delay, FTPU_DEV_ROW_DELAY);
	assert_int_equal(info.ub_vectors, FTPU_DEV_UB_VECTORS);
	assert_int_equal(info.weight_tiles, FTPU_DEV_WM_ROWS / FTPU_DEV_N);
	assert_int_equal(info.acc_vectors, FTPU_DEV_ACC_VECTORS);
	assert_int_equal(info.bias_vectors, FTPU_DEV_BIAS_VECTORS);
	assert_int_equal(info.iq_words, FTPU_DEV_IQ_WORDS);
	assert_int_equal(info.clock_hz, FTPU_DEV_CLOCK_HZ);
	assert_string_equal(info.transport, "sim");
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* The same GEMMs on the board and on the C model, bit for bit; shapes that
 * chunk the board's small memories and leave ragged edges on its 2x2 array. */
static inline void test_gemm_equals_ref(void **state)
{
	(void)state;
	static const struct { size_t m, k, n; bool ta, tb; } shapes[] = {
		{ 1, 1, 1, false, false }, { 5, 7, 3, false, false },
		{ 16, 16, 16, true, false }, { 9, 33, 5, false, true },
		{ 40, 24, 6, false, false },
	};
	struct rng r = { ftpu_test_seed() };
	ftpu_device *board, *ref;
	assert_int_equal(ftpu_open(board_uri, &board), FTPU_OK);
	assert_int_equal(ftpu_open("ref", &ref), FTPU_OK);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		size_t m = shapes[s].m, k = shapes[s].k, n = shapes[s].n;
		bool ta = shapes[s].ta, tb = shapes[s].tb;
		size_t lda = ta ? m : k, ldb = tb ? k : n;
		float *a = randm(&r, m * k), *b = randm(&r, k * n);
		float *c_board = calloc(m * n, 4), *c_ref = calloc(m * n, 4);
		assert_true(c_board && c_ref);
		assert_int_equal(ftpu_gemm(board, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
					   c_board, n), FTPU_OK);
		assert_int_equal(ftpu_gemm(ref, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
					   c_ref, n), FTPU_OK);
		if (memcmp(c_board, c_ref, m * n * 4))
			fail_msg("%zux%zux%zu: the board's result differs from ref", m, k, n);

		/* The device's own counters, read over the line: both operands
		 * came in as bf16 (B differs every time: nothing resident) and
		 * the fp32 result went out. */
		struct ftpu_stats st;
		assert_int_equal(ftpu_last_stats(board, &st), FTPU_OK);
		assert_true(st.bytes_in >= 2 * (m * k + k * n));
		assert_true(st.bytes_out >= 4 * m * n);
		free(a), free(b), free(c_board), free(c_ref);
	}
	assert_int_equal(ftpu_close(board), FTPU_OK);
	assert_int_equal(ftpu_close(ref), FTPU_OK);
}

/* ftpu_reset through the pins (a CONTROL RESET over the UART), then work. */
static inline void test_reset_then_gemm(void **state)
{
	(void)state;
	struct rng r = { ftpu_test_seed() + 1 };
	ftpu_device *board, *ref;
	assert_int_equal(ftpu_open(board_uri, &board), FTPU_OK);
	assert_int_equal(ftpu_open("ref", &ref), FTPU_OK);
	assert_int_equal(ftpu_reset(board), FTPU_OK);
	float *a = randm(&r, 6 * 10), *b = randm(&r, 10 * 4);
	float c_board[6 * 4], c_ref[6 * 4];
	assert_int_equal(ftpu_gemm(board, false, false, 6, 4, 10, 1.0f, a, 10, b, 4, 0.0f,
				   c_board, 4), FTPU_OK);
	assert_int_equal(ftpu_gemm(ref, false, false, 6, 4, 10, 1.0f, a, 10, b, 4, 0.0f,
				   c_ref, 4), FTPU_OK);
	assert_memory_equal(c_board, c_ref, sizeof(c_ref));
	free(a), free(b);
	assert_int_equal(ftpu_close(board), FTPU_OK);
	assert_int_equal(ftpu_close(ref), FTPU_OK);
}

#define BOARD_CASES                                                            \
	cmocka_unit_test(test_info), cmocka_unit_test(test_gemm_equals_ref),   \
		cmocka_unit_test(test_reset_then_gemm)

/* A board with the control core (the ULX3S's sizes): it answers through
 * the pins, FW_INFO from the boot ROM's firmware, its self-test run on the
 * core and passed (a board without the core answers FTPU_ERR_UNSUPPORTED
 * here). */
static inline void test_firmware_answers(void **state)
{
	(void)state;
	ftpu_device *dev = tc_open(board_uri);
	struct ftpu_fw_info fw;
	bool passed = false;
	uint32_t ran = 0, failed = ~0u;

	assert_int_equal(ftpu_fw_info(dev, &fw), FTPU_OK);
	assert_int_equal(fw.running, 0);
	assert_int_equal(fw.fw_faults, 0);
	assert_true(fw.version != 0);
	assert_int_equal(ftpu_fw_selftest(dev, &passed, &ran, &failed), FTPU_OK);
	assert_true(passed);
	assert_true(ran != 0);
	assert_int_equal(failed, 0);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

#define BOARD_FIRMWARE_CASES cmocka_unit_test(test_firmware_answers)

#endif
