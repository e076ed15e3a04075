/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_discover.c - finding board devices (host-lib/src/discover.c, the
 * uart and xdma enumerate hooks) and `ftpu list`, in a temporary directory
 * that stands in for /dev (FTPU_DEV_DIR): a served and an unserved serial
 * port (pty slaves behind ttyUSB0 and ttyACM3), a served XDMA card (named
 * pipes) and one without channels, and names that must not be listed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu.h"
#include "ftpu_test.h"
#include "sim_peer.h"

struct fake_dev {
	char dir[64];
	struct sim_peer *uart_peer, *xdma_peer;
	int idle_slave; /* ttyACM3: a pty nobody serves */
	int idle_master;
};

/* A pty; its slave's path in path, master and (held, raw) slave fds. */
static int make_pty(char *path, size_t len, int *master, int *slave)
{
	struct termios t;
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) || unlockpt(*master) ||
	    ptsname_r(*master, path, len))
		return -1;
	*slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0 || tcgetattr(*slave, &t))
		return -1;
	cfmakeraw(&t);
	return tcsetattr(*slave, TCSANOW, &t);
}

static int touch(const char *dir, const char *name)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	return f ? fclose(f) : -1;
}

static int setup(void **state)
{
	struct fake_dev *d = calloc(1, sizeof(*d));
	char pts[128], p[256], q[256];
	int master, slave, h2c, c2h;

	if (!d || !ftpu_test_mkdtemp(d->dir, sizeof(d->dir), "devdir"))
		return -1;
	/* ttyUSB0: served */
	if (make_pty(pts, sizeof(pts), &master, &slave))
		return -1;
	close(slave);
	d->uart_peer = sim_peer_start(4);
	if (!d->uart_peer || sim_peer_serve_fds(d->uart_peer, master, master))
		return -1;
	snprintf(p, sizeof(p), "%s/ttyUSB0", d->dir);
	if (symlink(pts, p))
		return -1;
	/* ttyACM3: nobody answers */
	if (make_pty(pts, sizeof(pts), &d->idle_master, &d->idle_slave))
		return -1;
	snprintf(p, sizeof(p), "%s/ttyACM3", d->dir);
	if (symlink(pts, p))
		return -1;
	/* xdma0: served */
	snprintf(p, sizeof(p), "%s/xdma0_h2c_0", d->dir);
	snprintf(q, sizeof(q), "%s/xdma0_c2h_0", d->dir);
	if (mkfifo(p, 0600) || mkfifo(q, 0600) || touch(d->dir, "xdma0_user"))
		return -1;
	h2c = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	c2h = open(q, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	d->xdma_peer = sim_peer_start(4);
	if (h2c < 0 || c2h < 0 || !d->xdma_peer ||
	    sim_peer_serve_fds(d->xdma_peer, h2c, c2h))
		return -1;
	/* xdma1: the user BAR only. Not devices: ttyS0, xdmaX_user,
	 * xdma0_h2c_0 itself, ttyusb1. */
	if (touch(d->dir, "xdma1_user") || touch(d->dir, "ttyS0") ||
	    touch(d->dir, "xdmaX_user") || touch(d->dir, "ttyusb1"))
		return -1;
	setenv("FTPU_DEV_DIR", d->dir, 1);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct fake_dev *d = *state;
	unsetenv("FTPU_DEV_DIR");
	sim_peer_stop(d->uart_peer);
	sim_peer_stop(d->xdma_peer);
	close(d->idle_slave);
	close(d->idle_master);
	ftpu_test_rmtree(d->dir);
	free(d);
	return 0;
}

struct seen {
	const char *dir;
	char uri[8][256];
	int n, others;
	int stop_after; /* 0: never */
};

static int on_found(void *arg, const char *uri, const char *what)
{
	struct seen *s = arg;
	print_message("found %s (%s)\n", uri, what);
	assert_non_null(what);
	assert_true(what[0]);
	if (strstr(uri, s->dir) && s->n < 8)
		snprintf(s->uri[s->n++], sizeof(s->uri[0]), "%s", uri);
	else
		s->others++;
	return s->stop_after && s->n + s->others >= s->stop_after;
}

static void test_discover_finds(void **state)
{
	struct fake_dev *d = *state;
	struct seen s = { .dir = d->dir };
	char want[4][256];

	int n = ftpu_discover(on_found, &s);
	assert_int_equal(n, s.n + s.others);
	/* uart and xdma could look (usb's libusb may not, in a container) */
	assert_null(strstr(ftpu_last_error(NULL), "uart"));
	assert_null(strstr(ftpu_last_error(NULL), "xdma"));
	/* In the order of ftpu_open's table (uart, usb, xdma), sorted within. */
	snprintf(want[0], sizeof(want[0]), "uart:%s/ttyACM3", d->dir);
	snprintf(want[1], sizeof(want[1]), "uart:%s/ttyUSB0", d->dir);
	snprintf(want[2], sizeof(want[2]), "xdma:%s/xdma0", d->dir);
	snprintf(want[3], sizeof(want[3]), "xdma:%s/xdma1", d->dir);
	assert_int_equal(s.n, 4);
	for (int i = 0; i < 4; i++)
		assert_string_equal(s.uri[i], want[i]);

	/* found() stops it */
	struct seen one = { .dir = d->dir, .stop_after = 1 };
	assert_int_equal(ftpu_discover(on_found, &one), 1);
	assert_int_equal(ftpu_discover(NULL, NULL), FTPU_ERR_INVALID);

	/* Nothing in an empty directory, and a missing one is no error. */
	char empty[64];
	assert_true(ftpu_test_mkdtemp(empty, sizeof(empty), "devempty"));
	setenv("FTPU_DEV_DIR", empty, 1);
	struct seen none = { .dir = empty };
	ftpu_discover(on_found, &none);
	assert_int_equal(none.n, 0);
	ftpu_test_rmtree(empty);
	ftpu_discover(on_found, &none);
	assert_int_equal(none.n, 0);
	assert_null(strstr(ftpu_last_error(NULL), "uart"));
	assert_null(strstr(ftpu_last_error(NULL), "xdma"));
	setenv("FTPU_DEV_DIR", d->dir, 1);
}

static void test_discover_probe(void **state)
{
	struct fake_dev *d = *state;
	struct ftpu_device_info info;
	char uri[256];

	snprintf(uri, sizeof(uri), "uart:%s/ttyUSB0", d->dir);
	assert_int_equal(ftpu_probe(uri, 2000, &info), FTPU_OK);
	assert_string_equal(info.transport, "uart");
	assert_int_equal(info.rows, 4);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma0", d->dir);
	assert_int_equal(ftpu_probe(uri, 2000, &info), FTPU_OK);
	assert_string_equal(info.transport, "xdma");
	assert_int_equal(info.rows, 4);

	snprintf(uri, sizeof(uri), "uart:%s/ttyACM3", d->dir);
	double t0 = peer_now_ms();
	assert_int_equal(ftpu_probe(uri, 200, &info), FTPU_ERR_TIMEOUT);
	assert_true(peer_now_ms() - t0 < 1500);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma1", d->dir);
	assert_int_equal(ftpu_probe(uri, 200, &info), FTPU_ERR_NOT_FOUND);
	assert_non_null(strstr(ftpu_last_error(NULL), "xdma1_c2h_0"));
	assert_int_equal(ftpu_probe("ref", 0, &info), FTPU_OK);
	assert_int_equal(ftpu_probe("ref", 0, NULL), FTPU_ERR_INVALID);
}

/* The line of `ftpu list` output that starts with uri. */
static const char *line_of(const char *out, const char *uri)
{
	static char line[1024];
	size_t len = strlen(uri);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, uri, len) && p[len] == ' ') {
			size_t l = strcspn(p, "\n");
			snprintf(line, sizeof(line), "%.*s", (int)l, p);
			return line;
		}
	}
	fail_msg("`ftpu list` has no line for %s:\n%s", uri, out);
	return NULL;
}

static void test_discover_ftpu_list(void **state)
{
	struct fake_dev *d = *state;
	char exe[PATH_MAX], cmd[PATH_MAX + 64], uri[256];
	static char out[16384];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0'; /* build/tests/rtl */
	snprintf(cmd, sizeof(cmd), "%s/../../tools/ftpu list --timeout 300", exe);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t got = fread(out, 1, sizeof(out) - 1, f);
	out[got] = '\0';
	int st = pclose(f);
	print_message("%s", out);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	const char *l = line_of(out, "sim");
	assert_non_null(strstr(l, "16x16"));
	l = line_of(out, "ref");
	assert_non_null(strstr(l, "16x16"));
	snprintf(uri, sizeof(uri), "uart:%s/ttyUSB0", d->dir);
	l = line_of(out, uri);
	assert_non_null(strstr(l, " uart "));
	assert_non_null(strstr(l, "4x4"));
	assert_non_null(strstr(l, "1.5"));
	snprintf(uri, sizeof(uri), "xdma:%s/xdma0", d->dir);
	l = line_of(out, uri);
	assert_non_null(strstr(l, " xdma "));
	assert_non_null(strstr(l, "4x4"));
	snprintf(uri, sizeof(uri), "uart:%s/ttyACM3", d->dir);
	l = line_of(out, uri);
	assert_non_null(strstr(l, "timed out"));
	snprintf(uri, sizeof(uri), "xdma:%s/xdma1", d->dir);
	l = line_of(out, uri);
	assert_non_null(strstr(l, "no such node"));
	assert_null(strstr(out, "ttyS0"));
	assert_null(strstr(out, "xdmaX"));
	assert_null(strstr(out, "ttyusb1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover_finds),
		cmocka_unit_test(test_discover_probe),
		cmocka_unit_test(test_discover_ftpu_list),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
