/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_ulx3s_25f.c - the ULX3S's top (boards/ulx3s/) at the 25F's
 * parameters (a 2x2 array; the 12F is built from the same design) through
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
