/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_icebreaker.c - the iCEBreaker's top through its pins: the
 * cases every board passes (harness/board_cases.h), then the whole
 * chain a user has: libftpu's uart transport on a pseudo-terminal whose
 * other end feeds the board's pins; and the board URIs' errors.
 */
#include "board_cases.h"

/* uart:<pty> -> the board's UART pins (sim_peer serving board_icebreaker):
 * the same INFO as the in-process board, GEMMs bit-exact against ref. */
static void test_uart_transport_to_board(void **state)
{
	(void)state;
	struct tc_pty_link p = { 0 };
	struct ftpu_device_info got, want;
	ftpu_device *dev, *board;

	assert_int_equal(tc_pty_open(&p, 2), 0);
	dev = tc_open(p.l.uri);
	board = tc_open(board_uri);
	assert_int_equal(ftpu_get_info(dev, &got), FTPU_OK);
	assert_int_equal(ftpu_get_info(board, &want), FTPU_OK);
	assert_string_equal(got.transport, "uart");
	memcpy(got.transport, want.transport, sizeof(got.transport));
	assert_memory_equal(&got, &want, sizeof(got));
	assert_int_equal(ftpu_close(board), FTPU_OK);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	tc_gemm(&p.l);
	tc_pty_close(&p);
}

/* The board's option takes no array size; an unknown board is refused
 * naming the known ones, one this program was linked without (ulx3s here)
 * naming the linked ones. */
static void test_bad_board_uris(void **state)
{
	(void)state;
	ftpu_device *dev = NULL;
	assert_int_equal(ftpu_open("sim:board=icebreaker,rows=4", &dev), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_open("sim:board=nosuch", &dev), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(ftpu_last_error(NULL), "known: icebreaker, tangnano20k, ulx3s, ulx3s_45f, ulx3s_25f"));
	assert_int_equal(ftpu_open("sim:board=ulx3s", &dev), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(ftpu_last_error(NULL), "\"ulx3s\" (linked: icebreaker)"));
	assert_null(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOARD_CASES,
		cmocka_unit_test(test_uart_transport_to_board),
		cmocka_unit_test(test_bad_board_uris),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
