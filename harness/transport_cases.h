/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport_cases.h - the end-to-end cases every board transport passes
 * against the simulated device served on its far end (sim_peer.h): INFO,
 * GEMMs bit-exact against "ref", a disconnect in mid-transfer, garbage
 * from the device side; and tc_expect_fail() for the opens that must
 * fail. A test file provides the link (a pty, named pipes) in a struct
 * tc_link and calls the tc_* functions from cmocka tests. Header-only,
 * for the tests in tests/rtl/.
 */
#ifndef FTPU_TRANSPORT_CASES_H
#define FTPU_TRANSPORT_CASES_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftpu.h"
#include "link.h"
#include "ftpu_test.h"
#include "sim_peer.h"

/* One link with the simulated device on its far end. */
struct tc_link {
	struct sim_peer *peer; /* serving the far end */
	unsigned rows;         /* the peer's device: 16 or 4 */
	char path[PATH_MAX];   /* the port or node base, as errors name it */
	char uri[PATH_MAX + 16];
};

static inline double tc_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline ftpu_device *tc_open(const char *uri)
{
	ftpu_device *dev = NULL;
	int ret = ftpu_open(uri, &dev);
	if (ret)
		fail_msg("ftpu_open(%s): %s: %s", uri, ftpu_strerror(ret),
			 ftpu_last_error(NULL));
	return dev;
}

/*
 * An open of uri that must fail with status, leave the handle untouched,
 * and say why: the message must contain names (the port or node, when not
 * NULL) and says (when not NULL).
 */
static inline void tc_expect_fail(const char *uri, int status, const char *names,
				  const char *says)
{
	ftpu_device *dev = (ftpu_device *)0x1;
	int ret = ftpu_open(uri, &dev);
	const char *msg = ftpu_last_error(NULL);

	print_message("%s\n    %s: %s\n", uri, ftpu_strerror(ret), msg);
	if (ret != status)
		fail_msg("%s: %s (%s), want %s", uri, ftpu_strerror(ret), msg,
			 ftpu_strerror(status));
	assert_true(dev == (ftpu_device *)0x1);
	if (names && !strstr(msg, names))
		fail_msg("%s: the message \"%s\" does not name %s", uri, msg, names);
	if (says && !strstr(msg, says))
		fail_msg("%s: the message \"%s\" does not say \"%s\"", uri, msg, says);
}

/* GEMM operands: bf16 values of moderate size, as floats. */
static inline float *tc_matrix(struct rng *r, size_t n)
{
	float *p = malloc(n * sizeof(float));
	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		uint32_t u = (uint32_t)rng_bf16_operand(r, 20) << 16;
		memcpy(&p[i], &u, 4);
	}
	return p;
}

/*
 * C = A B on dev and on "ref", bit-exact; m x k times k x n. A failure
 * names the shape and the transport's message.
 */
static inline void tc_gemm_vs_ref(ftpu_device *dev, ftpu_device *ref, struct rng *r,
				  size_t m, size_t k, size_t n)
{
	float *a = tc_matrix(r, m * k), *b = tc_matrix(r, k * n);
	float *c = calloc(m * n, 4), *want = calloc(m * n, 4);
	assert_true(c && want);
	int ret = ftpu_gemm(ref, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n,
			    0.0f, want, n);
	assert_int_equal(ret, FTPU_OK);
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f,
			c, n);
	if (ret)
		fail_msg("gemm %zux%zux%zu: %s: %s", m, k, n, ftpu_strerror(ret),
			 ftpu_last_error(dev));
	for (size_t i = 0; i < m * n; i++)
		if (memcmp(&c[i], &want[i], 4))
			fail_msg("gemm %zux%zux%zu: C[%zu] = %a, ref %a", m, k, n, i,
				 (double)c[i], (double)want[i]);
	free(a);
	free(b);
	free(c);
	free(want);
}

/* A pty whose master the simulated device (sim_peer_start(rows)) serves;
 * the uart transport opens l.uri, "uart:<slave>". */
struct tc_pty_link {
	struct tc_link l;
	int slave; /* held open so the master never hangs up between opens */
};

static inline int tc_pty_open(struct tc_pty_link *p, unsigned rows)
{
	struct termios t;
	int master = -1;

	p->slave = -1;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, p->l.path, sizeof(p->l.path)))
		goto out_fail;
	p->slave = open(p->l.path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0 || tcgetattr(p->slave, &t))
		goto out_fail;
	cfmakeraw(&t); /* no echo of the device's bytes before the host opens */
	if (tcsetattr(p->slave, TCSANOW, &t))
		goto out_fail;
	p->l.rows = rows;
	p->l.peer = sim_peer_start(rows);
	if (!p->l.peer || sim_peer_serve_fds(p->l.peer, master, master))
		goto out_fail;
	snprintf(p->l.uri, sizeof(p->l.uri), "uart:%s", p->l.path);
	return 0;

out_fail:
	fprintf(stderr, "pty setup: %s\n", strerror(errno));
	if (p->l.peer)
		sim_peer_stop(p->l.peer);
	else if (master >= 0)
		close(master);
	if (p->slave >= 0)
		close(p->slave);
	return -1;
}

static inline void tc_pty_close(struct tc_pty_link *p)
{
	sim_peer_stop(p->l.peer);
	close(p->slave);
}

/* INFO through the link equals INFO of the same model in process. */
static inline void tc_info(struct tc_link *l, const char *scheme)
{
	struct ftpu_device_info got, want;
	char sim_uri[32];
	ftpu_device *dev = tc_open(l->uri), *sim;

	snprintf(sim_uri, sizeof(sim_uri), "sim:rows=%u", l->rows);
	sim = tc_open(sim_uri);
	assert_int_equal(ftpu_get_info(dev, &got), FTPU_OK);
	assert_int_equal(ftpu_get_info(sim, &want), FTPU_OK);
	assert_string_equal(got.transport, scheme);
	assert_int_equal(got.rows, l->rows);
	memcpy(got.transport, want.transport, sizeof(got.transport));
	assert_memory_equal(&got, &want, sizeof(got));
	assert_int_equal(ftpu_close(sim), FTPU_OK);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* A few shapes, ragged ones included, each bit-exact against "ref". */
static inline void tc_gemm(struct tc_link *l)
{
	static const size_t shapes[][3] = {
		{ 16, 16, 16 }, { 5, 7, 3 }, { 1, 1, 1 }, { 19, 33, 17 }, { 2, 40, 9 },
	};
	struct rng r = { ftpu_test_seed() };
	ftpu_device *dev = tc_open(l->uri), *ref = tc_open("ref");

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		tc_gemm_vs_ref(dev, ref, &r, shapes[i][0], shapes[i][1], shapes[i][2]);
	ftpu_close(ref);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

struct tc_hangup {
	struct sim_peer *peer;
	unsigned after_ms;
	double at; /* when the link went down */
};

static void *tc_hangup_main(void *arg)
{
	struct tc_hangup *h = arg;
	struct timespec ts = { h->after_ms / 1000, (long)(h->after_ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	sim_peer_hangup(h->peer);
	h->at = tc_now_s();
	return NULL;
}

/*
 * The far end goes away while a GEMM is in flight: the GEMM fails with
 * FTPU_ERR_IO (the transport saw the hang-up; the message says
 * "disconnected" and names the port) or FTPU_ERR_TIMEOUT, within the
 * device's timeout and a margin, and the handle still closes.
 */
static inline void tc_disconnect(struct tc_link *l)
{
	/* well past the hang-up on any link: 64^3 finished in ~145 ms on sim */
	const size_t m = 128, k = 128, n = 128;
	const unsigned timeout_ms = 1500;
	struct rng r = { ftpu_test_seed() };
	float *a = tc_matrix(&r, m * k), *b = tc_matrix(&r, k * n), *c = calloc(m * n, 4);
	ftpu_device *dev = tc_open(l->uri);
	struct tc_hangup h = { .peer = l->peer, .after_ms = 150 };
	pthread_t t;

	assert_int_equal(ftpu_set_timeout(dev, timeout_ms), FTPU_OK);
	assert_int_equal(pthread_create(&t, NULL, tc_hangup_main, &h), 0);
	double t0 = tc_now_s();
	int ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f,
			    c, n);
	double t1 = tc_now_s();
	pthread_join(t, NULL);
	print_message("gemm after the hang-up: %s (%s) after %.0f ms, %.0f ms after it\n",
		      ftpu_strerror(ret), ftpu_last_error(dev), (t1 - t0) * 1e3,
		      (t1 - h.at) * 1e3);
	if (ret == FTPU_OK)
		fail_msg("the GEMM finished in %.0f ms, before the hang-up at %u ms: make it "
			 "larger", (t1 - t0) * 1e3, h.after_ms);
	assert_true(ret == FTPU_ERR_IO || ret == FTPU_ERR_TIMEOUT);
	if (ret == FTPU_ERR_IO) {
		assert_non_null(strstr(ftpu_last_error(dev), "disconnected"));
		assert_non_null(strstr(ftpu_last_error(dev), l->path));
	}
	assert_true(t1 - h.at < timeout_ms / 1e3 + 1.0);
	/* Failed now; another call says so at once, no hang. */
	t0 = tc_now_s();
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
	assert_true(ret != FTPU_OK);
	assert_true(tc_now_s() - t0 < timeout_ms / 1e3 + 1.0);
	ret = ftpu_reset(dev);
	assert_true(ret == FTPU_ERR_IO || ret == FTPU_ERR_TIMEOUT);
	assert_true(tc_now_s() - t0 < 2 * (timeout_ms / 1e3 + 1.0));
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	free(a);
	free(b);
	free(c);
}

/*
 * Garbage from the device side. Random bytes between frames are skipped
 * by the host's receiver (docs/protocol.md §4): the next call works. A
 * corrupt frame (a good header, a payload that fails its CRC) is a
 * protocol error: the call fails with FTPU_ERR_PROTOCOL, the device is
 * failed (FTPU_ERR_STATE) until ftpu_reset(), which recovers it.
 */
static inline void tc_garbage(struct tc_link *l)
{
	struct rng r = { ftpu_test_seed() ^ 0x9a5b };
	ftpu_device *dev = tc_open(l->uri), *ref = tc_open("ref");
	uint8_t junk[1500];
	int ret;

	assert_int_equal(ftpu_set_timeout(dev, 5000), FTPU_OK);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)rng_u32(&r);
		junk[0] = 'F'; /* a false start of a SYNC */
		junk[1] = 'T';
		assert_int_equal(sim_peer_inject(l->peer, junk, sizeof(junk) - round * 500), 0);
		tc_gemm_vs_ref(dev, ref, &r, 7, 9, 5);
	}

	/* A corrupt EVENT: a valid header, a flipped payload bit. */
	uint32_t payload[2] = { FTPU_LINK_EVENT_SYNC, 1234 };
	uint8_t frame[64];
	int len = ftpu_link_encode(FTPU_LINK_EVENT, 1, 100, payload, 2, frame, sizeof(frame));
	assert_true(len > 20);
	frame[17] ^= 0x10;
	assert_int_equal(sim_peer_inject(l->peer, frame, (size_t)len), 0);
	float a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 0, 0, 1 }, c[4];
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
	print_message("after a corrupt frame: %s (%s)\n", ftpu_strerror(ret),
		      ftpu_last_error(dev));
	assert_int_equal(ret, FTPU_ERR_PROTOCOL);
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
	assert_int_equal(ret, FTPU_ERR_STATE);
	ret = ftpu_reset(dev);
	if (ret)
		fail_msg("ftpu_reset after a protocol error: %s: %s", ftpu_strerror(ret),
			 ftpu_last_error(dev));
	tc_gemm_vs_ref(dev, ref, &r, 6, 5, 4);
	ftpu_close(ref);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

#endif /* FTPU_TRANSPORT_CASES_H */
