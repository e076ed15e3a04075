/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_ulx3s.c - the ULX3S's top (boards/ulx3s/) at the 85F's
 * parameters through its pins: the cases every board passes
 * (harness/board_cases.h), with the control core and its firmware
 * answering CONTROL as on the board. The uart transport over a pty is
 * checked against the iCEBreaker's top (test_board_icebreaker.c); every
 * UART top wraps the same ftpu_board_uart.
 */
#include "board_cases.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOARD_CASES,
		BOARD_FIRMWARE_CASES,
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
