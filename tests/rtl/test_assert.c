/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_assert.c - the RTL's assertions (rtl/include/ftpu_assert.svh) fire
 * in the models (built with --assert): the link transmitter's payload
 * handshake (ftpu_link_tx a_in_payload) driven against the protocol in a
 * forked child, which must stop with Verilator's "Assertion failed"; the
 * same stimulus obeying the protocol runs to the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu_sim.h"

enum mode { OBEY, CHANGE_DATA, DROP_VALID };

/* One DATA frame of two payload words into the transmitter; while the
 * second waits (the link takes no bytes) the data change or valid drops in
 * the third stalled cycle. Returns 0 when the frame was taken. */
static int send_frame(enum mode mode)
{
	static const uint32_t words[] = { 0x00000082u, 0x00000002u,
					  0x11111111u, 0x22222222u };
	struct ftpu_sim *s = ftpu_sim_open_link_loop(NULL);
	if (!s)
		return 2;
	ftpu_sim_reset(s, 4);
	struct ftpu_sim_link_io io = { 0 };
	unsigned pos = 0, stall = 0;
	for (unsigned c = 0; c < 200 && pos < 4; c++) {
		io.rx_out_ready = io.ctl_ready = io.err_ready = true;
		io.tx_out_ready = !(pos == 3 && stall < 4);
		if (!io.tx_out_ready)
			stall++;
		io.tx_valid = true;
		io.tx_word = words[pos];
		if (pos == 3 && stall == 3 && mode == CHANGE_DATA)
			io.tx_word ^= 1;
		if (pos == 3 && stall == 3 && mode == DROP_VALID)
			io.tx_valid = false;
		ftpu_sim_link_cycle(s, &io);
		if (pos == 3 && stall > 0 && stall < 4 && io.tx_ready)
			pos = 99; /* must not be taken while the link stalls */
		if (io.tx_valid && io.tx_ready)
			pos++;
	}
	for (unsigned c = 0; c < 64; c++) {
		memset(&io, 0, sizeof(io));
		io.tx_out_ready = true;
		ftpu_sim_link_cycle(s, &io);
	}
	ftpu_sim_close(s);
	return pos == 4 ? 0 : 3;
}

struct outcome {
	int status;
	char out[8192];
};

/* Runs send_frame(mode) in a child, its stdout and stderr captured. */
static void run_child(enum mode mode, struct outcome *o)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		int rc = send_frame(mode);
		fflush(NULL);
		_exit(rc);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t r;
	while ((r = read(fd[0], o->out + n, sizeof(o->out) - 1 - n)) > 0)
		n += (size_t)r;
	o->out[n] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &o->status, 0), pid);
}

static void expect_fired(enum mode mode)
{
	struct outcome o;
	run_child(mode, &o);
	if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0)
		fail_msg("protocol broken (mode %d) but no assertion fired:\n%s",
			 (int)mode, o.out);
	print_message("%s", o.out);
	assert_non_null(strstr(o.out, "Assertion failed"));
	assert_non_null(strstr(o.out, "a_in_payload"));
}

static void test_assert_obeyed(void **state)
{
	(void)state;
	struct outcome o;
	run_child(OBEY, &o);
	if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
		fail_msg("protocol kept, yet the child failed (status %d):\n%s",
			 o.status, o.out);
	assert_null(strstr(o.out, "Assertion failed"));
}

static void test_assert_data_changed(void **state)
{
	(void)state;
	expect_fired(CHANGE_DATA);
}

static void test_assert_valid_dropped(void **state)
{
	(void)state;
	expect_fired(DROP_VALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assert_obeyed),
		cmocka_unit_test(test_assert_data_changed),
		cmocka_unit_test(test_assert_valid_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
