/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_tangnano20k.c - the Tang Nano 20K's top (boards/tangnano20k/)
 * through its pins: the cases every board passes
 * (harness/board_cases.h). The uart transport over a pty is checked
 * against the iCEBreaker's top (test_board_icebreaker.c); both tops wrap
 * the same ftpu_board_uart.
 */
#include "board_cases.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOARD_CASES,
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
