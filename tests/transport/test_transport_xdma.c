/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_transport_xdma.c - the "xdma" transport (host-lib/src/transports/xdma_transport.c)
 * end to end without a card: a temporary directory stands in for /dev,
 * with named pipes xdma0_h2c_0 and xdma0_c2h_0 served by the simulated
 * device (harness/sim_peer.h) and a plain file xdma0_user. INFO,
 * GEMMs bit-exact against "ref", a disconnect in mid-GEMM, garbage from
 * the device side, missing and wrong nodes; and character devices (a pty
 * slave behind both channels) for the blocking reads the driver's nodes
 * do.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu.h"
#include "transport_cases.h"

struct fifo_link {
	struct tc_link l;
	char dir[64];
};

/* The nodes of base dir/name: h2c and c2h pipes (when pipes), a user file. */
static int make_nodes(const char *dir, const char *name, bool pipes, bool user)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s_h2c_0", dir, name);
	if (pipes && mkfifo(p, 0600))
		return -1;
	snprintf(p, sizeof(p), "%s/%s_c2h_0", dir, name);
	if (pipes && mkfifo(p, 0600))
		return -1;
	snprintf(p, sizeof(p), "%s/%s_user", dir, name);
	if (user) {
		FILE *f = fopen(p, "w");
		if (!f)
			return -1;
		fclose(f);
	}
	return 0;
}

/* The far end of base dir/name's pipes, opened as the peer would. */
static int open_far_end(const char *dir, const char *name, int *h2c, int *c2h)
{
	char p[256];
	/* O_RDWR: never blocks, never sees the host's close as EOF */
	snprintf(p, sizeof(p), "%s/%s_h2c_0", dir, name);
	*h2c = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/%s_c2h_0", dir, name);
	*c2h = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return *h2c >= 0 && *c2h >= 0 ? 0 : -1;
}

static int fifo_setup(void **state, unsigned rows)
{
	struct fifo_link *f = calloc(1, sizeof(*f));
	int h2c = -1, c2h = -1;

	if (!f || !ftpu_test_mkdtemp(f->dir, sizeof(f->dir), "xdma"))
		goto out_fail;
	if (make_nodes(f->dir, "xdma0", true, true) ||
	    open_far_end(f->dir, "xdma0", &h2c, &c2h))
		goto out_fail;
	f->l.rows = rows;
	f->l.peer = sim_peer_start(rows);
	if (!f->l.peer || sim_peer_serve_fds(f->l.peer, h2c, c2h))
		goto out_fail;
	snprintf(f->l.path, sizeof(f->l.path), "%s/xdma0", f->dir);
	snprintf(f->l.uri, sizeof(f->l.uri), "xdma:%s", f->l.path);
	*state = f;
	return 0;

out_fail:
	fprintf(stderr, "fifo setup: %s\n", strerror(errno));
	if (f && f->l.peer) {
		sim_peer_stop(f->l.peer);
	} else {
		if (h2c >= 0)
			close(h2c);
		if (c2h >= 0)
			close(c2h);
	}
	if (f && f->dir[0])
		ftpu_test_rmtree(f->dir);
	free(f);
	return -1;
}

static int setup16(void **state) { return fifo_setup(state, 16); }
static int setup4(void **state) { return fifo_setup(state, 4); }

static int teardown(void **state)
{
	struct fifo_link *f = *state;
	sim_peer_stop(f->l.peer);
	ftpu_test_rmtree(f->dir);
	free(f);
	return 0;
}

static void test_transport_xdma_info(void **state)
{
	tc_info(&((struct fifo_link *)*state)->l, "xdma");
}

static void test_transport_xdma_gemm(void **state)
{
	tc_gemm(&((struct fifo_link *)*state)->l);
}

static void test_transport_xdma_disconnect(void **state)
{
	tc_disconnect(&((struct fifo_link *)*state)->l);
}

static void test_transport_xdma_garbage(void **state)
{
	tc_garbage(&((struct fifo_link *)*state)->l);
}

/* Missing and wrong nodes, each refused with a reason naming the node. */
static void test_transport_xdma_nodes(void **state)
{
	struct fifo_link *f = *state;
	char uri[512], node[512];
	int h2c, c2h;

	tc_expect_fail("xdma:", FTPU_ERR_INVALID, NULL, "needs");
	snprintf(uri, sizeof(uri), "xdma:%s/xdma7", f->dir);
	snprintf(node, sizeof(node), "%s/xdma7_user", f->dir);
	tc_expect_fail(uri, FTPU_ERR_NOT_FOUND, node, "no such node");

	/* user only: no channels */
	assert_int_equal(make_nodes(f->dir, "xdma1", false, true), 0);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma1", f->dir);
	snprintf(node, sizeof(node), "%s/xdma1_c2h_0", f->dir);
	tc_expect_fail(uri, FTPU_ERR_NOT_FOUND, node, "no such node");

	/* channels but no user BAR */
	assert_int_equal(make_nodes(f->dir, "xdma2", true, false), 0);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma2", f->dir);
	snprintf(node, sizeof(node), "%s/xdma2_user", f->dir);
	tc_expect_fail(uri, FTPU_ERR_NOT_FOUND, node, "no such node");

	/* pipes nobody serves: h2c has no reader */
	assert_int_equal(make_nodes(f->dir, "xdma3", true, true), 0);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma3", f->dir);
	snprintf(node, sizeof(node), "%s/xdma3_h2c_0", f->dir);
	tc_expect_fail(uri, FTPU_ERR_NOT_FOUND, node, "nothing at the other end");

	/* served, but c2h is a regular file */
	assert_int_equal(make_nodes(f->dir, "xdma4", false, true), 0);
	snprintf(node, sizeof(node), "%s/xdma4_h2c_0", f->dir);
	assert_int_equal(mkfifo(node, 0600), 0);
	snprintf(node, sizeof(node), "%s/xdma4_c2h_0", f->dir);
	FILE *fp = fopen(node, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(node, sizeof(node), "%s/xdma4_h2c_0", f->dir);
	h2c = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	assert_true(h2c >= 0);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma4", f->dir);
	snprintf(node, sizeof(node), "%s/xdma4_c2h_0", f->dir);
	tc_expect_fail(uri, FTPU_ERR_INVALID, node, "not a device node or pipe");
	close(h2c);

	/* served by something that never answers: INFO times out */
	assert_int_equal(make_nodes(f->dir, "xdma5", true, true), 0);
	assert_int_equal(open_far_end(f->dir, "xdma5", &h2c, &c2h), 0);
	snprintf(uri, sizeof(uri), "xdma:%s/xdma5", f->dir);
	struct ftpu_device_info info;
	double t0 = tc_now_s();
	assert_int_equal(ftpu_probe(uri, 300, &info), FTPU_ERR_TIMEOUT);
	assert_true(tc_now_s() - t0 < 2.0);
	print_message("%s: %s\n", uri, ftpu_last_error(NULL));
	close(h2c);
	close(c2h);

	/* the real one still opens */
	ftpu_device *dev = tc_open(f->l.uri);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/*
 * Character devices, as the driver's nodes are: both channels are links to
 * one pty slave (raw), its master served by another simulated device. The
 * transport then reads and writes blocking, as it would the driver's, and
 * close() cancels its reader where it waits (here in poll(), up to 100 ms
 * a round; with the driver in read()) instead of waiting for it.
 */
static void test_transport_xdma_chardev(void **state)
{
	struct fifo_link *f = *state;
	struct tc_link l = { .rows = 4 };
	char pts[128], node[512];
	struct termios t;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_int_equal(ptsname_r(master, pts, sizeof(pts)), 0);
	int slave = open(pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(slave >= 0);
	assert_int_equal(tcgetattr(slave, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(slave, TCSANOW, &t), 0);
	snprintf(node, sizeof(node), "%s/xdma6_h2c_0", f->dir);
	assert_int_equal(symlink(pts, node), 0);
	snprintf(node, sizeof(node), "%s/xdma6_c2h_0", f->dir);
	assert_int_equal(symlink(pts, node), 0);
	assert_int_equal(make_nodes(f->dir, "xdma6", false, true), 0);
	l.peer = sim_peer_start(4);
	assert_non_null(l.peer);
	assert_int_equal(sim_peer_serve_fds(l.peer, master, master), 0);
	snprintf(l.path, sizeof(l.path), "%s/xdma6", f->dir);
	snprintf(l.uri, sizeof(l.uri), "xdma:%s", l.path);

	tc_info(&l, "xdma");
	ftpu_device *dev = tc_open(l.uri), *ref = tc_open("ref");
	struct rng r = { ftpu_test_seed() };
	tc_gemm_vs_ref(dev, ref, &r, 9, 17, 6);
	double t0 = tc_now_s();
	assert_int_equal(ftpu_close(dev), FTPU_OK); /* its reader is waiting */
	double dt = tc_now_s() - t0;
	print_message("close with a blocked reader: %.1f ms\n", dt * 1e3);
	assert_true(dt < 0.05);
	ftpu_close(ref);
	sim_peer_stop(l.peer);
	close(slave);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transport_xdma_info, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_info, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_gemm, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_gemm, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_disconnect, setup16, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_garbage, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_nodes, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_transport_xdma_chardev, setup4, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
