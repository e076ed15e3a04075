/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_common.h - what the transport benchmarks (bench_transport.c,
 * bench_usb.c) measure the same way: wall and thread CPU clocks, INFO
 * round trips through a transport's ops (host-lib/src/transports/transport.h) with the
 * simulated device on the far end, and one GEMM through ftpu_gemm timed
 * with its link bytes. Header-only; a benchmark passes its die() (prints
 * what failed and exits) for the failures it cannot go on after.
 */
#ifndef FTPU_BENCH_COMMON_H
#define FTPU_BENCH_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ftpu.h"
#include "link.h"
#include "transport.h"
#include "ftpu_test.h"

static inline double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the calling thread. */
static inline double bench_thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void bench_on_rsp(void *ctx, const struct ftpu_link_frame *f)
{
	if (f->type == FTPU_LINK_RESPONSE)
		(*(unsigned *)ctx)++;
}

/*
 * INFO round trips per second through ops on an open ctx (the far end
 * already serving), for about seconds: a CONTROL frame out, the read
 * until its RESPONSE has been parsed. A failed write or read (nothing in
 * 5 s) calls die("INFO write") or die("INFO read").
 */
static inline double bench_info_rate(const struct ftpu_transport_ops *ops, void *ctx,
				     double seconds, void (*die)(const char *what))
{
	enum { READ_BYTES = 65536 };
	static uint32_t rx_buf[FTPU_LINK_MAX_PAYLOAD];
	struct ftpu_link_rx rx;
	uint8_t frame[64], *buf = malloc(READ_BYTES);
	uint32_t op = FTPU_LINK_OP_INFO;
	unsigned n = 0, rsp = 0;
	uint16_t seq = 0;
	const struct ftpu_link_rx_cb cb = { .frame = bench_on_rsp, .ctx = &rsp };

	if (!buf)
		die("out of memory");
	ftpu_link_rx_init(&rx, rx_buf, FTPU_LINK_MAX_PAYLOAD);
	ftpu_link_rx_set_role(&rx, FTPU_LINK_ROLE_HOST);
	double t0 = bench_now_s();
	while (bench_now_s() - t0 < seconds) {
		int len = ftpu_link_encode(FTPU_LINK_CONTROL, ++seq, 0, &op, 1, frame,
					   sizeof(frame));
		if (len < 0 || ops->write(ctx, frame, (size_t)len))
			die("INFO write");
		while (rsp == n) {
			long r = ops->read(ctx, buf, READ_BYTES, 5000);
			if (r <= 0)
				die("INFO read");
			ftpu_link_rx_push(&rx, buf, (size_t)r, &cb);
		}
		n++;
	}
	double dt = bench_now_s() - t0;
	free(buf);
	return n / dt;
}

/*
 * One GEMM C = A B on dev, A m x k and B k x n with entries drawn from g
 * in [-1, 1): *seconds its wall time, *kbps the link bytes both ways (the
 * device's counters) per second, in KB/s. Returns FTPU_OK, or the status
 * of ftpu_gemm or ftpu_last_stats (ftpu_last_error(dev) says why); no
 * memory for the operands calls die("out of memory").
 */
static inline int bench_gemm(ftpu_device *dev, struct rng *g, size_t m, size_t k, size_t n,
			     double *seconds, double *kbps, void (*die)(const char *what))
{
	struct ftpu_stats st;
	float *a = malloc(m * k * 4), *b = malloc(k * n * 4), *c = malloc(m * n * 4);
	int ret;

	if (!a || !b || !c)
		die("out of memory");
	for (size_t i = 0; i < m * k; i++)
		a[i] = (float)(int32_t)rng_u32(g) / 2147483648.0f;
	for (size_t i = 0; i < k * n; i++)
		b[i] = (float)(int32_t)rng_u32(g) / 2147483648.0f;
	double t0 = bench_now_s();
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c,
			n);
	*seconds = bench_now_s() - t0;
	if (!ret)
		ret = ftpu_last_stats(dev, &st);
	if (!ret)
		*kbps = (double)(st.bytes_in + st.bytes_out) / *seconds / 1e3;
	free(a);
	free(b);
	free(c);
	return ret;
}

#endif /* FTPU_BENCH_COMMON_H */
