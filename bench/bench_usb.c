/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_usb.c - what the usb transport (host-lib/src/transports/usb_transport.c) moves and
 * what it costs the host, without hardware: libusb against devices
 * emulated under umockdev (harness/usb_emu.h, as in
 * tests/transport/test_transport_usb.c). The program runs itself under
 * umockdev-wrapper.
 *
 * Table 1, raw: the transport's ops alone with a far end that sinks (H->D),
 * sources a counting pattern (D->H, checked) or echoes (a 64 KiB write,
 * then the same bytes read back; sim_peer.h with no device). Per row:
 * bytes/s, URBs on the link endpoints (16 KiB transfers, 4 in flight each
 * way), the CPU time of the thread that calls the ops (transport + libusb)
 * per URB and per MB, and the whole process's CPU per MB (that includes
 * the emulated device: umockdev moves every URB and its buffer over a
 * socket, which the kernel does not). So these are the emulation's rates,
 * an upper bound of the host's cost per transfer; a real FT2232H is
 * bounded by the chip at ~40 MB/s.
 *
 * Table 2, end to end with the simulated device (device_16) behind the
 * emulated device: INFO round trips per second and a GEMM's link bytes per
 * second through ftpu_gemm. The simulated device runs ~80k cycles/s and
 * takes up to four bytes a cycle, which bounds these.
 *
 * Usage: bench_usb [--quick]   (32 MiB per row, --quick 8)   Not pass/fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ftpu.h"
#include "link.h"
#include "transport.h"
#include "bench_common.h"
#include "ftpu_test.h"
#include "sim_peer.h"
#include "usb_emu.h"

enum { CHUNK = 65536 };

static UMockdevTestbed *tb;

static void die(const char *what)
{
	fprintf(stderr, "bench_usb: %s\n", what);
	exit(1);
}

static double process_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static const char *kind_name(enum usb_emu_kind k)
{
	return k == USB_EMU_VENDOR ? "vendor" : k == USB_EMU_FT232H ? "FT232H" : "FT2232H";
}

/* ---- raw ---------------------------------------------------------------------------- */

struct raw {
	double mbps, urbs, cpu_us_urb, cpu_ms_mb, proc_ms_mb;
};

struct meter {
	double t, cpu, proc;
	uint64_t submits;
};

static struct meter meter_start(struct usb_emu *e)
{
	return (struct meter){ bench_now_s(), bench_thread_cpu_s(),
			       process_cpu_s(), usb_emu_snapshot(e).submits };
}

static struct raw meter_stop(struct usb_emu *e, const struct meter *m, double bytes)
{
	double dt = bench_now_s() - m->t, cpu = bench_thread_cpu_s() - m->cpu;
	double proc = process_cpu_s() - m->proc;
	double urbs = (double)(usb_emu_snapshot(e).submits - m->submits);
	return (struct raw){
		.mbps = bytes / dt / 1e6,
		.urbs = urbs,
		.cpu_us_urb = urbs ? cpu / urbs * 1e6 : 0,
		.cpu_ms_mb = cpu / (bytes / 1e6) * 1e3,
		.proc_ms_mb = proc / (bytes / 1e6) * 1e3,
	};
}

static void *open_ops(struct usb_emu *e)
{
	char opts[32], err[256] = "";
	void *ctx;
	snprintf(opts, sizeof(opts), "%04x:%04x", e->vid, e->pid);
	if (ftpu_transport_usb.open(opts, &ctx, err, sizeof(err))) {
		fprintf(stderr, "bench_usb: usb:%s: %s\n", opts, err);
		exit(1);
	}
	return ctx;
}

/* H->D into the sink, D->H from the source, mb each. */
static void raw_sink_source(enum usb_emu_kind kind, size_t mb, struct raw *sink,
			    struct raw *source)
{
	const struct ftpu_transport_ops *ops = &ftpu_transport_usb;
	struct usb_emu *e = usb_emu_add(tb, kind, NULL, NULL);
	uint8_t *buf = malloc(CHUNK);
	size_t total = mb << 20;

	if (!e || !buf)
		die("cannot make the device");
	void *ctx = open_ops(e);
	memset(buf, 0x5a, CHUNK);
	struct meter m = meter_start(e);
	for (size_t done = 0; done < total; done += CHUNK)
		if (ops->write(ctx, buf, CHUNK))
			die("write");
	*sink = meter_stop(e, &m, (double)total);

	usb_emu_source(e, total);
	m = meter_start(e);
	size_t got = 0;
	while (got < total) {
		long n = ops->read(ctx, buf, CHUNK, 5000);
		if (n <= 0)
			die("read: the source stopped");
		for (long i = 0; i < n; i++)
			if (buf[i] != (uint8_t)(got + (size_t)i))
				die("read: the source's pattern came back wrong");
		got += (size_t)n;
	}
	*source = meter_stop(e, &m, (double)total);
	ops->close(ctx);
	usb_emu_free(e);
	free(buf);
}

/* 64 KiB out, the same 64 KiB back, mb in all, through an echo. */
static struct raw raw_echo(enum usb_emu_kind kind, size_t mb)
{
	const struct ftpu_transport_ops *ops = &ftpu_transport_usb;
	struct sim_peer *peer = sim_peer_start(0);
	struct usb_emu *e = peer ? usb_emu_add(tb, kind, NULL, peer) : NULL;
	uint8_t *out = malloc(CHUNK), *in = malloc(CHUNK);
	size_t total = mb << 20;

	if (!e || !out || !in)
		die("cannot make the echo device");
	void *ctx = open_ops(e);
	for (size_t i = 0; i < CHUNK; i++)
		out[i] = (uint8_t)(i * 13 + 5);
	struct meter m = meter_start(e);
	for (size_t done = 0; done < total; done += CHUNK) {
		if (ops->write(ctx, out, CHUNK))
			die("echo write");
		for (size_t got = 0; got < CHUNK;) {
			long n = ops->read(ctx, in + got, CHUNK - got, 5000);
			if (n <= 0)
				die("echo read");
			got += (size_t)n;
		}
		if (memcmp(in, out, CHUNK))
			die("the echo came back wrong");
	}
	struct raw r = meter_stop(e, &m, 2.0 * (double)total);
	ops->close(ctx);
	usb_emu_free(e);
	sim_peer_stop(peer);
	free(out);
	free(in);
	return r;
}

/* ---- end to end ----------------------------------------------------------------------- */

struct e2e {
	double info_per_s, gemm_kbps, gemm_s;
};

static const size_t gemm_shape[3] = { 32, 32, 32 };

static struct e2e end_to_end(enum usb_emu_kind kind, double seconds)
{
	struct sim_peer *peer = sim_peer_start(16);
	struct usb_emu *e = peer ? usb_emu_add(tb, kind, "BENCH1", peer) : NULL;
	struct e2e r = { 0 };
	struct rng g = { 1 };
	char uri[64];
	ftpu_device *dev;

	if (!e)
		die("cannot make the device");
	void *ctx = open_ops(e);
	r.info_per_s = bench_info_rate(&ftpu_transport_usb, ctx, seconds, die);
	ftpu_transport_usb.close(ctx);

	snprintf(uri, sizeof(uri), "usb:%04x:%04x:BENCH1", e->vid, e->pid);
	if (ftpu_open(uri, &dev)) {
		fprintf(stderr, "bench_usb: %s: %s\n", uri, ftpu_last_error(NULL));
		exit(1);
	}
	if (bench_gemm(dev, &g, gemm_shape[0], gemm_shape[1], gemm_shape[2], &r.gemm_s,
		       &r.gemm_kbps, die)) {
		fprintf(stderr, "bench_usb: gemm on %s: %s\n", uri, ftpu_last_error(dev));
		exit(1);
	}
	ftpu_close(dev);
	usb_emu_free(e);
	sim_peer_stop(peer);
	return r;
}

int main(int argc, char **argv)
{
	static const enum usb_emu_kind kinds[] = { USB_EMU_VENDOR, USB_EMU_FT2232H };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	size_t mb = quick ? 8 : 32;

	if (!usb_emu_preload(argc, argv))
		return 1;
	tb = umockdev_testbed_new();

	printf("Raw usb transport under umockdev: 64 KiB per write/read, %zu MiB per row;\n"
	       "16 KiB URBs, 4 in flight each way (the emulation's rates, not a chip's)\n\n",
	       mb);
	printf("%-8s %-7s %9s %8s %13s %13s %14s\n", "device", "test", "MB/s", "URBs",
	       "CPU us/URB", "CPU ms/MB", "process ms/MB");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct raw r[3];
		raw_sink_source(kinds[i], mb, &r[0], &r[1]);
		r[2] = raw_echo(kinds[i], mb / 2);
		static const char *const what[3] = { "sink", "source", "echo" };
		for (int j = 0; j < 3; j++)
			printf("%-8s %-7s %9.1f %8.0f %13.1f %13.2f %14.2f\n", kind_name(kinds[i]),
			       what[j], r[j].mbps, r[j].urbs, r[j].cpu_us_urb, r[j].cpu_ms_mb,
			       r[j].proc_ms_mb);
	}

	printf("\nWith the simulated device (device_16) behind the emulated device\n\n");
	printf("%-8s %10s   GEMM %zux%zux%zu KB/s (s)\n", "device", "INFO rt/s", gemm_shape[0],
	       gemm_shape[1], gemm_shape[2]);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct e2e r = end_to_end(kinds[i], quick ? 0.5 : 2.0);
		printf("%-8s %10.0f   %14.1f (%5.2f)\n", kind_name(kinds[i]), r.info_per_s,
		       r.gemm_kbps, r.gemm_s);
	}
	printf("\n(the FT2232H's IN URBs also complete every 2 ms with status bytes only,\n"
	       "as the chip's latency timer makes them; the simulated device's ~80k\n"
	       "cycles/s bound table 2)\n");
	g_object_unref(tb);
	return 0;
}
