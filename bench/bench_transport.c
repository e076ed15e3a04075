/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_transport.c - what the uart and xdma transports cost on the host,
 * without hardware: "uart" over a pseudo-terminal pair, "xdma" over named
 * pipes (as in tests/rtl/test_transport_{uart,xdma}.c), "sim" in process
 * for comparison.
 *
 * Table 1, raw: the transport's ops alone (host-lib/src/transports/transport.h) with a far
 * end that only sinks (H->D bytes/s) or echoes (bytes/s both ways at
 * once: a writer thread sends while the reader takes them back), 64 KiB
 * per write, and the host's CPU time per 64 KiB frame (the threads that
 * call the ops; not the far end's). A pty or a pipe moves bytes at memory
 * speed, so this is the host overhead, not a wire's rate: a real UART at
 * 3 Mbaud carries 300 KB/s.
 *
 * Table 2, end to end with the simulated device on the far end
 * (harness/sim_peer.h): INFO round trips per second (a CONTROL frame
 * out, its RESPONSE parsed), and a GEMM through ftpu_gemm, link bytes per
 * second (the device's counters over the host's wall time). The simulated
 * device runs ~80k cycles/s and takes up to four bytes a cycle, which
 * bounds these; the point is the transport's share.
 *
 * Usage: bench_transport [--quick]       Not pass/fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ftpu.h"
#include "link.h"
#include "transport.h"
#include "bench_common.h"
#include "ftpu_test.h"
#include "sim_peer.h"

enum { FRAME = 65536 };

static void die(const char *what)
{
	fprintf(stderr, "bench_transport: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- links --------------------------------------------------------------- */

/* One link: the host's URI options and the far end's fds. */
struct link {
	const char *name;
	const struct ftpu_transport_ops *ops;
	char opts[256];
	int far_in, far_out; /* the far end reads far_in, writes far_out */
	int keep;            /* uart: the held slave fd */
	char dir[64];        /* xdma: the node directory */
};

static void link_make(struct link *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->keep = -1;
	if (!strcmp(name, "uart")) {
		char path[128];
		struct termios t;
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (m < 0 || grantpt(m) || unlockpt(m) || ptsname_r(m, path, sizeof(path)))
			die("pty");
		l->keep = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (l->keep < 0 || tcgetattr(l->keep, &t))
			die("pty slave");
		cfmakeraw(&t);
		tcsetattr(l->keep, TCSANOW, &t);
		l->ops = &ftpu_transport_uart;
		l->far_in = l->far_out = m;
		snprintf(l->opts, sizeof(l->opts), "%s", path);
	} else {
		char h2c[128], c2h[128], user[128];
		if (!ftpu_test_mkdtemp(l->dir, sizeof(l->dir), "benchx"))
			die("mkdtemp");
		snprintf(h2c, sizeof(h2c), "%s/xdma0_h2c_0", l->dir);
		snprintf(c2h, sizeof(c2h), "%s/xdma0_c2h_0", l->dir);
		snprintf(user, sizeof(user), "%s/xdma0_user", l->dir);
		FILE *f = fopen(user, "w");
		if (mkfifo(h2c, 0600) || mkfifo(c2h, 0600) || !f)
			die("fifos");
		fclose(f);
		l->far_in = open(h2c, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		l->far_out = open(c2h, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (l->far_in < 0 || l->far_out < 0)
			die("open fifos");
		/* Pipes of 1 MiB where allowed (the default is 64 KiB). */
		fcntl(l->far_in, F_SETPIPE_SZ, 1 << 20);
		fcntl(l->far_out, F_SETPIPE_SZ, 1 << 20);
		l->ops = &ftpu_transport_xdma;
		snprintf(l->opts, sizeof(l->opts), "%s/xdma0", l->dir);
	}
}

/* The far end's fds go to a sim_peer (which closes them) or are closed. */
static void link_free(struct link *l, bool fds_given)
{
	if (!fds_given) {
		close(l->far_in);
		if (l->far_out != l->far_in)
			close(l->far_out);
	}
	if (l->keep >= 0)
		close(l->keep);
	if (l->dir[0])
		ftpu_test_rmtree(l->dir);
}

static void *host_open(const struct link *l)
{
	char err[256];
	void *ctx;
	if (l->ops->open(l->opts, &ctx, err, sizeof(err))) {
		fprintf(stderr, "bench_transport: %s:%s: %s\n", l->name, l->opts, err);
		exit(1);
	}
	return ctx;
}

/* ---- table 1: raw --------------------------------------------------------- */

struct sink {
	int fd;
	volatile bool stop;
	uint64_t bytes;
};

static void *sink_main(void *arg)
{
	struct sink *s = arg;
	char *buf = malloc(FRAME);
	while (buf && !s->stop) {
		struct pollfd pf = { .fd = s->fd, .events = POLLIN };
		if (poll(&pf, 1, 50) <= 0)
			continue;
		ssize_t n = read(s->fd, buf, FRAME);
		if (n > 0)
			s->bytes += (uint64_t)n;
	}
	free(buf);
	return NULL;
}

struct raw_result {
	double mbps, cpu_us; /* MB/s; host CPU per 64 KiB frame */
};

/* H->D only: the far end reads and drops. */
static struct raw_result raw_sink(const char *name, unsigned frames)
{
	struct link l;
	struct sink s = { 0 };
	pthread_t t;
	char *buf = calloc(1, FRAME);

	link_make(&l, name);
	fcntl(l.far_in, F_SETFL, fcntl(l.far_in, F_GETFL) | O_NONBLOCK);
	s.fd = l.far_in;
	void *ctx = host_open(&l);
	pthread_create(&t, NULL, sink_main, &s);
	double t0 = bench_now_s(), c0 = bench_thread_cpu_s();
	for (unsigned i = 0; i < frames; i++)
		if (l.ops->write(ctx, buf, FRAME))
			die("write");
	double c1 = bench_thread_cpu_s(), t1 = bench_now_s();
	/* what the far end still has to take counts too */
	while (s.bytes < (uint64_t)frames * FRAME && bench_now_s() - t1 < 5)
		usleep(100);
	t1 = bench_now_s();
	s.stop = true;
	pthread_join(t, NULL);
	l.ops->close(ctx);
	link_free(&l, false);
	free(buf);
	return (struct raw_result){ (double)frames * FRAME / (t1 - t0) / 1e6,
				    (c1 - c0) / frames * 1e6 };
}

struct writer {
	const struct ftpu_transport_ops *ops;
	void *ctx;
	unsigned frames;
	double cpu;
	int ret;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	char *buf = calloc(1, FRAME);
	double c0 = bench_thread_cpu_s();
	for (unsigned i = 0; i < w->frames && !w->ret; i++)
		w->ret = w->ops->write(w->ctx, buf, FRAME);
	w->cpu = bench_thread_cpu_s() - c0;
	free(buf);
	return NULL;
}

/* Both ways: a sim_peer in echo mode sends every byte back. */
static struct raw_result raw_echo(const char *name, unsigned frames)
{
	struct link l;
	pthread_t t;
	char *buf = malloc(FRAME);
	uint64_t want = (uint64_t)frames * FRAME, got = 0;

	link_make(&l, name);
	struct sim_peer *p = sim_peer_start(0);
	if (!p || sim_peer_serve_fds(p, l.far_in, l.far_out))
		die("echo peer");
	struct writer w = { .ops = l.ops, .ctx = host_open(&l), .frames = frames };
	double t0 = bench_now_s(), c0 = bench_thread_cpu_s();
	pthread_create(&t, NULL, writer_main, &w);
	while (got < want) {
		long n = l.ops->read(w.ctx, buf, FRAME, 5000);
		if (n <= 0)
			die("echo read");
		got += (uint64_t)n;
	}
	double c1 = bench_thread_cpu_s(), t1 = bench_now_s();
	pthread_join(t, NULL);
	l.ops->close(w.ctx);
	sim_peer_stop(p);
	link_free(&l, true);
	free(buf);
	return (struct raw_result){ (double)want / (t1 - t0) / 1e6,
				    (c1 - c0 + w.cpu) / frames * 1e6 };
}

/* ---- table 2: with the simulated device ---------------------------------------- */

struct e2e_result {
	double info_per_s;
	double gemm_kbps[2]; /* link KB/s of each GEMM shape */
	double gemm_s[2];
};

static const size_t gemm_shapes[2][3] = { { 32, 32, 32 }, { 64, 128, 64 } };

/* GEMMs through ftpu_gemm on uri: link bytes per second. */
static void gemm_rate(const char *uri, struct e2e_result *r, int shapes)
{
	ftpu_device *dev;
	struct rng g = { 1 };

	if (ftpu_open(uri, &dev)) {
		fprintf(stderr, "bench_transport: %s: %s\n", uri, ftpu_last_error(NULL));
		exit(1);
	}
	for (int s = 0; s < shapes; s++) {
		if (bench_gemm(dev, &g, gemm_shapes[s][0], gemm_shapes[s][1], gemm_shapes[s][2],
			       &r->gemm_s[s], &r->gemm_kbps[s], die)) {
			fprintf(stderr, "bench_transport: gemm on %s: %s\n", uri,
				ftpu_last_error(dev));
			exit(1);
		}
	}
	ftpu_close(dev);
}

static struct e2e_result end_to_end(const char *name, double seconds, int shapes)
{
	struct e2e_result r = { 0 };
	char uri[300];

	if (!strcmp(name, "sim")) {
		char err[256];
		void *ctx;
		if (ftpu_transport_sim.open("rows=16", &ctx, err, sizeof(err)))
			die(err);
		r.info_per_s = bench_info_rate(&ftpu_transport_sim, ctx, seconds, die);
		ftpu_transport_sim.close(ctx);
		gemm_rate("sim", &r, shapes);
		return r;
	}
	struct link l;
	link_make(&l, name);
	struct sim_peer *p = sim_peer_start(16);
	if (!p || sim_peer_serve_fds(p, l.far_in, l.far_out))
		die("device peer");
	void *ctx = host_open(&l);
	r.info_per_s = bench_info_rate(l.ops, ctx, seconds, die);
	l.ops->close(ctx);
	snprintf(uri, sizeof(uri), "%s:%s", name, l.opts);
	gemm_rate(uri, &r, shapes);
	sim_peer_stop(p);
	link_free(&l, true);
	return r;
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	unsigned frames = quick ? 64 : 512;
	static const char *const names[] = { "uart", "xdma" };

	printf("Raw transport, 64 KiB writes, %u frames (a pty / named pipes: host "
	       "overhead, not a wire)\n\n", frames);
	printf("%-6s %12s %14s %12s %14s\n", "link", "sink MB/s", "sink CPU us/fr",
	       "echo MB/s", "echo CPU us/fr");
	for (size_t i = 0; i < 2; i++) {
		struct raw_result s = raw_sink(names[i], frames);
		struct raw_result e = raw_echo(names[i], frames);
		printf("%-6s %12.1f %14.1f %12.1f %14.1f\n", names[i], s.mbps, s.cpu_us,
		       e.mbps, e.cpu_us);
	}

	int shapes = quick ? 1 : 2;
	printf("\nWith the simulated device (device_16) on the far end\n\n");
	printf("%-6s %10s", "link", "INFO rt/s");
	for (int s = 0; s < shapes; s++)
		printf("   GEMM %zux%zux%zu KB/s (s)", gemm_shapes[s][0], gemm_shapes[s][1],
		       gemm_shapes[s][2]);
	printf("\n");
	static const char *const e2e[] = { "sim", "uart", "xdma" };
	for (size_t i = 0; i < 3; i++) {
		struct e2e_result r = end_to_end(e2e[i], quick ? 0.5 : 2.0, shapes);
		printf("%-6s %10.0f", e2e[i], r.info_per_s);
		for (int s = 0; s < shapes; s++)
			printf("   %14.1f (%5.2f)    ", r.gemm_kbps[s], r.gemm_s[s]);
		printf("\n");
	}
	printf("\n(sim: the device in process, no transport; INFO and GEMM rates are "
	       "bound by the\nsimulated device's ~80k cycles/s, one link byte per "
	       "cycle each way)\n");
	return 0;
}
