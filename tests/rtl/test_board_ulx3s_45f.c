/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_ulx3s_45f.c - the ULX3S's top (boards/ulx3s/) at the 45F's
 * parameters (the 85F's 4x4 device with half its weight memory) through
 * its pins: test_board_ulx3s.c's cases, control core included.
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
