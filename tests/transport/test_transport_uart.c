/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_transport_uart.c - the "uart" transport (host-lib/src/transports/uart_transport.c)
 * end to end over a real pseudo-terminal pair: the simulated device
 * (harness/sim_peer.h) is served on the master, libftpu opens
 * "uart:<slave>". INFO, GEMMs bit-exact against "ref", a disconnect in
 * mid-GEMM, garbage from the device side, bad URIs, exclusive opens, a
 * non-standard baud rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu.h"
#include "transport_cases.h"

static int pty_setup(void **state, unsigned rows)
{
	struct tc_pty_link *p = calloc(1, sizeof(*p));
	if (!p || tc_pty_open(p, rows)) {
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static int setup16(void **state) { return pty_setup(state, 16); }
static int setup4(void **state) { return pty_setup(state, 4); }

static int teardown(void **state)
{
	tc_pty_close(*state);
	free(*state);
	return 0;
}

static void test_transport_uart_info(void **state)
{
	tc_info(&((struct tc_pty_link *)*state)->l, "uart");
}

static void test_transport_uart_gemm(void **state)
{
	tc_gemm(&((struct tc_pty_link *)*state)->l);
}

static void test_transport_uart_disconnect(void **state)
{
	tc_disconnect(&((struct tc_pty_link *)*state)->l);
}

static void test_transport_uart_garbage(void **state)
{
	tc_garbage(&((struct tc_pty_link *)*state)->l);
}

static void test_transport_uart_bad_uris(void **state)
{
	struct tc_pty_link *p = *state;
	char dir[64], file[128], uri[PATH_MAX + 32];

	tc_expect_fail("uart:", FTPU_ERR_INVALID, NULL, "needs a serial port");
	tc_expect_fail("uart:@115200", FTPU_ERR_INVALID, NULL, "needs a serial port");
	static const char *const bauds[] = { "", "abc", "0", "49", "20000001", "-9600",
					     "9600x", "99999999999999999999", " 9600" };
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		snprintf(uri, sizeof(uri), "uart:%s@%s", p->l.path, bauds[i]);
		tc_expect_fail(uri, FTPU_ERR_INVALID, p->l.path, "baud");
	}
	tc_expect_fail("uart:/dev/ttyFTPU_nonexistent7", FTPU_ERR_NOT_FOUND,
		    "/dev/ttyFTPU_nonexistent7", "no such port");
	tc_expect_fail("uart:/dev/ttyFTPU_nonexistent7@115200", FTPU_ERR_NOT_FOUND,
		    "/dev/ttyFTPU_nonexistent7", NULL);

	assert_true(ftpu_test_mkdtemp(dir, sizeof(dir), "uart"));
	snprintf(file, sizeof(file), "%s/notatty", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs("hello", f);
	fclose(f);
	snprintf(uri, sizeof(uri), "uart:%s", file);
	tc_expect_fail(uri, FTPU_ERR_INVALID, file, "not a serial port (a regular file)");
	snprintf(uri, sizeof(uri), "uart:%s", dir);
	tc_expect_fail(uri, FTPU_ERR_INVALID, dir, "not a serial port");
	tc_expect_fail("uart:/dev/null", FTPU_ERR_INVALID, "/dev/null", "not a serial port");
	/* Permission: a node we may not open (not as root, who may). */
	if (geteuid() != 0) {
		assert_int_equal(chmod(file, 0), 0);
		snprintf(uri, sizeof(uri), "uart:%s", file);
		tc_expect_fail(uri, FTPU_ERR_IO, file, "udev");
	}
	ftpu_test_rmtree(dir);

	/* The pty still works after all that. */
	ftpu_device *dev = tc_open(p->l.uri);
	ftpu_close(dev);
}

/* One user at a time: a second open, in this process or another, is
 * refused while the first holds the port, and works once it is closed. */
static void test_transport_uart_exclusive(void **state)
{
	struct tc_pty_link *p = *state;
	ftpu_device *dev = tc_open(p->l.uri);

	tc_expect_fail(p->l.uri, FTPU_ERR_IO, p->l.path, "in use");
	char uri[PATH_MAX + 32];
	snprintf(uri, sizeof(uri), "%s@115200", p->l.uri);
	tc_expect_fail(uri, FTPU_ERR_IO, p->l.path, "in use");
	/* Another process too: `ftpu info` next to this binary. */
	char exe[PATH_MAX], cmd[2 * PATH_MAX + 64], out[1024] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "%s/../../tools/ftpu info %s 2>&1", exe, p->l.uri);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t got = fread(out, 1, sizeof(out) - 1, f);
	out[got] = '\0';
	int st = pclose(f);
	print_message("another process: %s", out);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	assert_non_null(strstr(out, "in use"));

	struct ftpu_device_info info;
	assert_int_equal(ftpu_get_info(dev, &info), FTPU_OK); /* the first is fine */
	assert_int_equal(ftpu_reset(dev), FTPU_OK);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	dev = tc_open(p->l.uri);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* The kernel's struct termios2 (<asm/termbits.h> clashes with
 * <termios.h>): the rate the port was set to. */
struct k_termios2 {
	tcflag_t c_iflag, c_oflag, c_cflag, c_lflag;
	cc_t c_line;
	cc_t c_cc[19];
	speed_t c_ispeed, c_ospeed;
};
#define K_TCGETS2 _IOR('T', 0x2A, struct k_termios2)
#define K_BOTHER 0010000

/* Standard rates by their codes, others through termios2 / BOTHER. */
static void test_transport_uart_baud(void **state)
{
	struct tc_pty_link *p = *state;
	static const unsigned rates[] = { 115200, 3000000, 1234567, 12000000 };
	char uri[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		snprintf(uri, sizeof(uri), "%s@%u", p->l.uri, rates[i]);
		ftpu_device *dev = tc_open(uri);
		struct termios t;
		assert_int_equal(tcgetattr(p->slave, &t), 0);
		speed_t s = cfgetospeed(&t);
		struct k_termios2 t2;
		assert_int_equal(ioctl(p->slave, K_TCGETS2, &t2), 0);
		print_message("%s: code %#o, c_ospeed %u\n", uri, (unsigned)s,
			      (unsigned)t2.c_ospeed);
		if (rates[i] == 115200)
			assert_int_equal(s, B115200);
		else if (rates[i] == 3000000)
			assert_int_equal(s, B3000000);
		else
			assert_int_equal(s, K_BOTHER);
		assert_int_equal(t2.c_ospeed, rates[i]);
		assert_int_equal(t.c_cflag & CSIZE, CS8);
		assert_int_equal(t.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0);
		assert_int_equal(t.c_iflag & (IXON | IXOFF | ICRNL), 0);
		assert_int_equal(t.c_lflag & (ICANON | ECHO | ISIG), 0);
		assert_int_equal(ftpu_close(dev), FTPU_OK);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transport_uart_info, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_info, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_gemm, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_gemm, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_disconnect, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_garbage, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_bad_uris, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_exclusive, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_uart_baud, setup4, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
