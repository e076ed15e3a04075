/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_ulx3s.c - the ULX3S's top (boards/ulx3s/)
 * through its pins: the cases every board passes
 * (harness/board_cases.h), with the control core and its firmware
 * answering CONTROL as on the board. The uart transport over a pty is
 * checked against the iCEBreaker's top (test_board_icebreaker.c); every
 * UART top wraps the same ftpu_board_uart.
 */
#include "board_cases.h"

/* The control core answers through the pins: FW_INFO from the boot ROM's
 * firmware, its self-test run on the core and passed (a board without
 * the core answers FTPU_ERR_UNSUPPORTED here). */
static void test_firmware_answers(void **state)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOARD_CASES,
		cmocka_unit_test(test_firmware_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
