/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_transport_usb.c - the "usb" transport (host-lib/src/transports/usb_transport.c) end
 * to end without hardware. The binary runs itself under umockdev-wrapper;
 * the devices are emulated in a umockdev testbed (harness/usb_emu.h:
 * sysfs attributes and descriptors, a /dev/bus/usb node whose usbdevfs
 * ioctls are answered here) and the simulated device (sim_peer.h) serves
 * their bulk endpoints. libusb enumerates, opens, claims and streams
 * through them exactly as it would through the kernel.
 *
 * For the vendor-class device and the FT2232H: INFO, GEMMs bit-exact
 * against "ref", an unplug in mid-GEMM (URBs failing as the kernel's do,
 * and a silent one only the hot-plug event reports), garbage from the
 * device side, short and zero-length IN packets, several transfers in
 * flight each way (counted by the emulated device). Also: the FTDI setup
 * and kernel-driver handling, channel B, choosing by serial number,
 * discovery, bad URIs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device.h"
#include "ftpu.h"
#include "transport.h"
#include "transport_cases.h"
#include "usb_emu.h"

static UMockdevTestbed *tb;

/* The transfers the transport keeps in flight (host-lib/src/transports/usb_transport.c). */
enum { N_IN = 4, N_OUT = 4, XFER = 16384 };

struct usb_link {
	struct tc_link l;
	struct usb_emu *emu;
};

static const char *kind_name(enum usb_emu_kind k)
{
	return k == USB_EMU_VENDOR ? "vendor" : k == USB_EMU_FT232H ? "FT232H" : "FT2232H";
}

/* A device of that kind with the simulated device (rows; 0: none, a sink
 * and source) behind it. */
static struct usb_link *link_add(enum usb_emu_kind kind, unsigned rows, const char *serial)
{
	struct usb_link *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->l.rows = rows;
	if (rows) {
		u->l.peer = sim_peer_start(rows);
		if (!u->l.peer) {
			free(u);
			return NULL;
		}
	}
	u->emu = usb_emu_add(tb, kind, serial, u->l.peer);
	if (!u->emu) {
		sim_peer_stop(u->l.peer);
		free(u);
		return NULL;
	}
	snprintf(u->l.uri, sizeof(u->l.uri), "usb:%04x:%04x%s%s", u->emu->vid, u->emu->pid,
		 serial ? ":" : "", serial ? serial : "");
	snprintf(u->l.path, sizeof(u->l.path), "bus %u dev %u", u->emu->bus, u->emu->dev);
	return u;
}

static void link_free(struct usb_link *u)
{
	if (!u)
		return;
	usb_emu_free(u->emu);
	sim_peer_stop(u->l.peer);
	free(u);
}

static int setup_vendor(void **state)
{
	return (*state = link_add(USB_EMU_VENDOR, 4, "FTPU0001")) ? 0 : -1;
}

static int setup_ft2232h(void **state)
{
	return (*state = link_add(USB_EMU_FT2232H, 4, "FT2232H1")) ? 0 : -1;
}

static int setup_ft232h(void **state)
{
	return (*state = link_add(USB_EMU_FT232H, 4, "FT232H01")) ? 0 : -1;
}

static int teardown(void **state)
{
	link_free(*state);
	return 0;
}

static struct usb_link *link_of(void **state) { return *state; }

/* ---- INFO, GEMM, garbage: the cases every transport passes ------------------- */

/* The FTDI setup seen by the chip: reset, FIFO bit mode, 2 ms latency,
 * RTS/CTS, both purges, on channel ch; ftdi_sio detached from ch only and
 * given back when the transport let go. */
static void check_ftdi_setup(struct usb_emu *e, unsigned ch)
{
	struct usb_emu_stats st = usb_emu_snapshot(e);
	bool sync_mode = false;
	uint16_t ix = (uint16_t)(ch + 1);

	print_message("FTDI requests (request value index):");
	for (unsigned i = 0; i < st.n_log; i++) {
		print_message(" %x,%04x,%04x", st.log[i].req, st.log[i].value, st.log[i].index);
		if (st.log[i].req == 0x0b && st.log[i].value == 0x40ff && st.log[i].index == ix)
			sync_mode = true;
	}
	print_message("\n");
	assert_true(st.n_log > 0);
	assert_true(st.resets[ch] >= 1);
	assert_true(st.purge_rx[ch] >= 1 && st.purge_tx[ch] >= 1);
	assert_int_equal(st.latency[ch], 2);
	assert_int_equal(st.flow[ch], 0x0100); /* SIO_RTS_CTS_HS */
	assert_true(sync_mode == (ch == 0));
	assert_int_equal(st.bitmode[ch], 0); /* reset again at close */
	assert_true(st.lost_out == 0);       /* no byte before FIFO mode */
	assert_true(st.bytes_out > 0 && st.bytes_in > 0);
	assert_true(st.detached >= 1 && st.attached >= 1);
	assert_string_equal(st.driver[ch], "ftdi_sio");
	assert_false(st.claimed[ch]);
	for (unsigned i = 0; i < e->n_ifaces; i++) {
		if (i == ch)
			continue; /* the other channel: untouched */
		assert_int_equal(st.resets[i] + st.purge_rx[i] + st.purge_tx[i], 0);
		assert_int_equal(st.latency[i], 16);
		assert_string_equal(st.driver[i], "ftdi_sio");
	}
}

static void test_transport_usb_info(void **state)
{
	struct usb_link *u = link_of(state);
	tc_info(&u->l, "usb");
	if (u->emu->kind != USB_EMU_VENDOR)
		check_ftdi_setup(u->emu, 0);
	else
		assert_int_equal(usb_emu_snapshot(u->emu).set_interface, 1);
}

static void test_transport_usb_gemm(void **state)
{
	struct usb_link *u = link_of(state);
	tc_gemm(&u->l);
	struct usb_emu_stats st = usb_emu_snapshot(u->emu);
	print_message("%s: %llu ioctls, %llu URBs, %u IN in flight at most, %llu short, "
		      "%llu status-only\n", kind_name(u->emu->kind),
		      (unsigned long long)st.ioctls, (unsigned long long)st.submits,
		      st.max_in_flight_in, (unsigned long long)st.short_sent,
		      (unsigned long long)st.status_only);
	assert_int_equal(st.max_in_flight_in, N_IN);
	assert_int_equal(st.in_flight_in, 0); /* all reaped at close */
}

static void test_transport_usb_garbage(void **state)
{
	tc_garbage(&link_of(state)->l);
}

/* Zero-length (FTDI: status-only) and short IN packets between the data. */
static void test_transport_usb_short_packets(void **state)
{
	struct usb_link *u = link_of(state);
	struct rng r = { ftpu_test_seed() ^ 0x5107 };
	ftpu_device *dev, *ref = tc_open("ref");

	usb_emu_inject_in(u->emu, 25, 7);
	dev = tc_open(u->l.uri);
	tc_gemm_vs_ref(dev, ref, &r, 9, 13, 6);
	struct usb_emu_stats st = usb_emu_snapshot(u->emu);
	print_message("%s: %llu empty, %llu status-only, %llu short completions\n",
		      kind_name(u->emu->kind), (unsigned long long)st.zlps_sent,
		      (unsigned long long)st.status_only, (unsigned long long)st.short_sent);
	if (u->emu->kind == USB_EMU_VENDOR)
		assert_true(st.zlps_sent == 25);
	else
		assert_true(st.status_only >= 25);
	assert_true(st.short_sent > 50); /* 7 bytes at a time */
	usb_emu_inject_in(u->emu, 0, 0);
	tc_gemm_vs_ref(dev, ref, &r, 16, 16, 16);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	ftpu_close(ref);
}

/* ---- unplugging ---------------------------------------------------------------------- */

struct unplug_at {
	struct usb_emu *emu;
	uint64_t after;  /* OUT bytes */
	double at;       /* when it happened (s), 0 if not */
	bool stop;
};

/* Silently unplugs the device (no URB completes; new ones fail with
 * ENODEV, and the device leaves sysfs) once it has received `after` bytes;
 * waits at most 10 s. */
static void *unplug_main(void *arg)
{
	struct unplug_at *p = arg;
	double t0 = tc_now_s();
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) && tc_now_s() - t0 < 10) {
		if (usb_emu_snapshot(p->emu).bytes_out >= p->after) {
			p->at = tc_now_s();
			usb_emu_unplug(p->emu, false);
			return NULL;
		}
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/*
 * The device goes away in mid-GEMM: with fail_urbs the URBs in flight fail
 * with -ESHUTDOWN and new ones with ENODEV (the kernel's way); without,
 * nothing completes, new URBs fail with ENODEV and the device leaves sysfs
 * (the hot-plug event; test_transport_usb_hotplug has it alone).
 * Either way the GEMM fails with FTPU_ERR_IO "disconnected" at once, not
 * after the device timeout, later calls fail at once and the handle closes.
 */
static void unplug_case(struct usb_link *u, bool fail_urbs)
{
	const size_t m = 64, k = 64, n = 64;
	const unsigned timeout_ms = 20000; /* a hang would show */
	struct rng r = { ftpu_test_seed() };
	float *a = tc_matrix(&r, m * k), *b = tc_matrix(&r, k * n), *c = calloc(m * n, 4);
	ftpu_device *dev = tc_open(u->l.uri);
	struct unplug_at p = { .emu = u->emu };
	pthread_t t;

	assert_int_equal(ftpu_set_timeout(dev, timeout_ms), FTPU_OK);
	uint64_t base = usb_emu_snapshot(u->emu).bytes_out;
	if (fail_urbs) {
		usb_emu_unplug_after(u->emu, 6000);
	} else {
		p.after = base + 6000;
		assert_int_equal(pthread_create(&t, NULL, unplug_main, &p), 0);
	}
	double t0 = tc_now_s();
	int ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f,
			    c, n);
	double t1 = tc_now_s();
	if (!fail_urbs) {
		__atomic_store_n(&p.stop, true, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
	} else {
		p.at = t0; /* armed in the handler: it happened before t1 */
	}
	struct usb_emu_stats st = usb_emu_snapshot(u->emu);
	print_message("%s, %s: gemm %s (%s) after %.0f ms, %.0f ms after the unplug; "
		      "%llu bytes out\n", kind_name(u->emu->kind),
		      fail_urbs ? "URBs fail" : "silent", ftpu_strerror(ret), ftpu_last_error(dev),
		      (t1 - t0) * 1e3, p.at ? (t1 - p.at) * 1e3 : -1.0,
		      (unsigned long long)st.bytes_out);
	if (ret == FTPU_OK)
		fail_msg("the GEMM finished before the unplug (%llu bytes): make it larger",
			 (unsigned long long)st.bytes_out);
	assert_int_equal(ret, FTPU_ERR_IO);
	assert_non_null(strstr(ftpu_last_error(dev), "disconnected"));
	assert_non_null(strstr(ftpu_last_error(dev), u->l.path));
	assert_true(p.at > 0);
	assert_true(t1 - p.at < 2.0);
	usb_emu_remove_sysfs(u->emu); /* the kernel's uevent follows */
	/* Failed now; the next calls say so at once. */
	t0 = tc_now_s();
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
	assert_true(ret != FTPU_OK);
	ret = ftpu_reset(dev);
	assert_int_equal(ret, FTPU_ERR_IO);
	assert_true(tc_now_s() - t0 < 1.0);
	t0 = tc_now_s();
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	print_message("closed in %.0f ms\n", (tc_now_s() - t0) * 1e3);
	assert_true(tc_now_s() - t0 < 1.5);
	st = usb_emu_snapshot(u->emu);
	if (fail_urbs)
		assert_int_equal(st.in_flight_in + st.in_flight_out, 0);
	free(a);
	free(b);
	free(c);
}

static void test_transport_usb_unplug(void **state)
{
	unplug_case(link_of(state), true);
}

static void test_transport_usb_unplug_silent(void **state)
{
	unplug_case(link_of(state), false);
}

/* ---- the transport's streams, without the protocol ------------------------------ */

/* A device with a sink and a source behind it, opened through the ops. */
struct stream {
	struct usb_link *u;
	void *ctx;
};

static int stream_setup(void **state, enum usb_emu_kind kind)
{
	struct stream *s = calloc(1, sizeof(*s));
	char err[256] = "", opts[32];

	if (!s || !(s->u = link_add(kind, 0, NULL)))
		goto out_fail;
	snprintf(opts, sizeof(opts), "%04x:%04x", s->u->emu->vid, s->u->emu->pid);
	int ret = ftpu_transport_usb.open(opts, &s->ctx, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "open usb:%s: %s: %s\n", opts, ftpu_strerror(ret), err);
		goto out_fail;
	}
	*state = s;
	return 0;
out_fail:
	if (s)
		link_free(s->u);
	free(s);
	return -1;
}

static int setup_stream_vendor(void **state) { return stream_setup(state, USB_EMU_VENDOR); }
static int setup_stream_ft2232h(void **state) { return stream_setup(state, USB_EMU_FT2232H); }
static int setup_stream_ft232h(void **state) { return stream_setup(state, USB_EMU_FT232H); }

static int teardown_stream(void **state)
{
	struct stream *s = *state;
	if (s->ctx)
		ftpu_transport_usb.close(s->ctx);
	link_free(s->u);
	free(s);
	return 0;
}

/*
 * Straight through the ops: 1 MiB written arrives whole at the sink with
 * N_OUT transfers in flight; 1 MiB from the counting source reads back in
 * order (for the FTDI chips: with the status bytes of each packet gone)
 * with N_IN in flight; close reaps every transfer.
 */
static void test_transport_usb_streams(void **state)
{
	struct stream *s = *state;
	const struct ftpu_transport_ops *ops = &ftpu_transport_usb;
	const size_t total = 1 << 20;
	struct usb_emu *e = s->u->emu;
	uint8_t *buf = malloc(total);

	assert_non_null(buf);
	for (size_t i = 0; i < total; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(ops->write(s->ctx, buf, total), FTPU_OK);
	struct usb_emu_stats st = usb_emu_snapshot(e);
	assert_true(st.sunk == total);
	assert_int_equal(st.max_in_flight_out, N_OUT);

	usb_emu_source(e, total);
	size_t got = 0;
	double t0 = tc_now_s();
	while (got < total && tc_now_s() - t0 < 20) {
		long n = ops->read(s->ctx, buf + got, total - got, 1000);
		assert_true(n >= 0);
		got += (size_t)n;
	}
	assert_true(got == total);
	for (size_t i = 0; i < total; i++)
		if (buf[i] != (uint8_t)i)
			fail_msg("%s: byte %zu is %#x, want %#x", kind_name(e->kind), i, buf[i],
				 (uint8_t)i);
	/* nothing more comes */
	assert_int_equal(ops->read(s->ctx, buf, total, 20), 0);
	st = usb_emu_snapshot(e);
	assert_int_equal(st.max_in_flight_in, N_IN);
	assert_int_equal(st.in_flight_in, N_IN);
	ops->close(s->ctx);
	s->ctx = NULL;
	st = usb_emu_snapshot(e);
	print_message("%s: %llu URBs, %llu discarded at close, %llu ioctls\n",
		      kind_name(e->kind), (unsigned long long)st.submits,
		      (unsigned long long)st.discards, (unsigned long long)st.ioctls);
	assert_int_equal(st.in_flight_in + st.in_flight_out, 0); /* all reaped */
	if (e->kind == USB_EMU_VENDOR)
		assert_true(st.discards == N_IN); /* an idle device: all cancelled */
	free(buf);
}

struct unplug_later {
	struct usb_emu *emu;
	double at;
};

static void *unplug_later_main(void *arg)
{
	struct unplug_later *p = arg;
	struct timespec ts = { 0, 100 * 1000000L };
	nanosleep(&ts, NULL);
	p->at = tc_now_s();
	usb_emu_unplug(p->emu, false);
	return NULL;
}

/*
 * A read waiting for bytes when the device silently goes (its URBs never
 * complete, nothing is written): only the hot-plug event can tell, and it
 * does, long before the read's timeout.
 */
static void test_transport_usb_hotplug(void **state)
{
	struct stream *s = *state;
	struct unplug_later p = { .emu = s->u->emu };
	uint8_t buf[64];
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, unplug_later_main, &p), 0);
	double t0 = tc_now_s();
	long n = ftpu_transport_usb.read(s->ctx, buf, sizeof(buf), 5000);
	double t1 = tc_now_s();
	pthread_join(t, NULL);
	print_message("read: %ld after %.0f ms, %.0f ms after the unplug\n", n, (t1 - t0) * 1e3,
		      (t1 - p.at) * 1e3);
	assert_int_equal(n, FTPU_ERR_IO);
	assert_true(t1 - p.at < 1.0);
	assert_int_equal(ftpu_transport_usb.write(s->ctx, buf, sizeof(buf)), FTPU_ERR_IO);
	t0 = tc_now_s();
	ftpu_transport_usb.close(s->ctx);
	s->ctx = NULL;
	assert_true(tc_now_s() - t0 < 1.0);
}

/* ---- permissions, exclusive use -------------------------------------------------------- */

/* An open that must fail with status, its message containing says. */
static void expect_fail(const char *uri, int status, const char *says);

/*
 * libusb opens /dev/bus/usb/BBB/DDD with open(). This test runs as root,
 * whom no permission bits stop, so it denies one node itself: these
 * definitions come before umockdev's and libc's in symbol lookup and pass
 * every other open on to them.
 */
static char deny_node[64];

static bool denied(const char *path)
{
	if (!__atomic_load_n(&deny_node[0], __ATOMIC_ACQUIRE) || !path || strcmp(path, deny_node))
		return false;
	errno = EACCES;
	return true;
}

int open(const char *path, int flags, ...)
{
	typedef int open_fn(const char *, int, ...);
	open_fn *next = (open_fn *)dlsym(RTLD_NEXT, "open");
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (denied(path))
		return -1;
	return next(path, flags, mode);
}

int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	typedef int open2_fn(const char *, int);
	open2_fn *next = (open2_fn *)dlsym(RTLD_NEXT, "__open_2");
	if (denied(path))
		return -1;
	return next(path, flags);
}

/* No permission on the node: FTPU_ERR_IO saying what to do about it. */
static void test_transport_usb_access(void **state)
{
	struct usb_link *u = link_of(state);
	snprintf(deny_node, sizeof(deny_node), "%s", u->emu->devnode);
	expect_fail(u->l.uri, FTPU_ERR_IO, "99-ftpu.rules");
	expect_fail(u->l.uri, FTPU_ERR_IO, "plugdev");
	expect_fail("usb", FTPU_ERR_IO, "no permission");
	__atomic_store_n(&deny_node[0], '\0', __ATOMIC_RELEASE);
	ftpu_device *dev = tc_open(u->l.uri);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* One program at a time: a second open of the device finds its interface
 * claimed (by the first handle's open file) and says so. */
static void test_transport_usb_exclusive(void **state)
{
	struct usb_link *u = link_of(state);
	ftpu_device *dev = tc_open(u->l.uri);
	expect_fail(u->l.uri, FTPU_ERR_IO, "in use by another program");
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	dev = tc_open(u->l.uri); /* free again */
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* ---- choosing a device ------------------------------------------------------------------ */

static void expect_fail(const char *uri, int status, const char *says)
{
	ftpu_device *dev = (ftpu_device *)0x1;
	int ret = ftpu_open(uri, &dev);
	const char *msg = ftpu_last_error(NULL);

	print_message("%s: %s: %s\n", uri, ftpu_strerror(ret), msg);
	if (ret != status)
		fail_msg("%s: %s (%s), want %s", uri, ftpu_strerror(ret), msg,
			 ftpu_strerror(status));
	assert_true(dev == (ftpu_device *)0x1);
	if (says && !strstr(msg, says))
		fail_msg("%s: \"%s\" does not say \"%s\"", uri, msg, says);
}

/* Up to four devices, freed at teardown. */
static int setup_none(void **state)
{
	return (*state = calloc(4, sizeof(struct usb_link *))) ? 0 : -1;
}

static int teardown_all(void **state)
{
	struct usb_link **l = *state;
	for (int i = 0; i < 4; i++)
		link_free(l[i]);
	free(l);
	return 0;
}

static void test_transport_usb_bad_uris(void **state)
{
	static const char *const invalid[] = {
		"usb:12345:0001", "usb:xyz:0001", "usb:1209", "usb:1209:", "usb::0001",
		"usb:0x12:0001", "usb:1209:0001:", "usb:1209:0001:a b", "usb:1209:0001:a/b",
		"usb:1209:0001,iface=c", "usb:1209:0001,bogus=1", "usb:1209:0001,timeout=0",
		"usb:1209:0001,timeout=x", "usb:1209:0001,", "usb:1209:0001,iface",
	};
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		expect_fail(invalid[i], FTPU_ERR_INVALID, "usb");

	/* Nothing plugged in. */
	expect_fail("usb", FTPU_ERR_NOT_FOUND, "no device with a known ID");
	expect_fail("usb:1d50:6130", FTPU_ERR_NOT_FOUND, "1d50:6130");

	/* What is there is listed. */
	struct usb_link **l = *state;
	struct usb_link *v = l[0] = link_add(USB_EMU_VENDOR, 0, "FTPU0007");
	struct usb_link *f = l[1] = link_add(USB_EMU_FT232H, 0, "FT232H07");
	assert_true(v && f);
	expect_fail("usb:1d50:6130", FTPU_ERR_NOT_FOUND, v->l.path);
	expect_fail("usb:1d50:6130", FTPU_ERR_NOT_FOUND, "FT232H 0403:6014");
	expect_fail("usb:1209:0001:NOSUCH", FTPU_ERR_NOT_FOUND, "serial FTPU0007");
	expect_fail("usb:0403:6014,iface=b", FTPU_ERR_INVALID, "no channel B");
	expect_fail("usb:1209:0001,iface=a", FTPU_ERR_INVALID, "FT2232H");
}

static int collect(void *arg, const char *uri, const char *what)
{
	char *s = arg;
	size_t len = strlen(s);
	snprintf(s + len, 1024 - len, "%s = %s\n", uri, what);
	return 0;
}

/* Two FT2232Hs and the vendor device: discovery lists all three; a serial
 * picks one, "usb" alone the first; channel B carries the link when asked. */
static void test_transport_usb_choose(void **state)
{
	struct usb_link **l = *state;
	struct usb_link *a = l[0] = link_add(USB_EMU_FT2232H, 0, "FTAAAA");
	struct usb_link *b = l[1] = link_add(USB_EMU_FT2232H, 4, "FTBBBB");
	struct usb_link *v = l[2] = link_add(USB_EMU_VENDOR, 4, "FTPU0009");
	char list[1024] = "", want[128], err[128] = "";
	ftpu_device *dev;

	assert_true(a && b && v);
	assert_int_equal(ftpu_transport_usb.enumerate(collect, list, err, sizeof(err)), 0);
	print_message("%s", list);
	snprintf(want, sizeof(want), "usb:0403:6010:FTAAAA = FT2232H bus 1 dev %u\n", a->emu->dev);
	assert_non_null(strstr(list, want));
	snprintf(want, sizeof(want), "usb:0403:6010:FTBBBB = FT2232H bus 1 dev %u\n", b->emu->dev);
	assert_non_null(strstr(list, want));
	snprintf(want, sizeof(want), "usb:1209:0001:FTPU0009 = ftpu bus 1 dev %u\n", v->emu->dev);
	assert_non_null(strstr(list, want));

	/* The second FT2232H by its serial: only it sees traffic. */
	dev = tc_open("usb:0403:6010:FTBBBB");
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	assert_true(usb_emu_snapshot(a->emu).bytes_out == 0);
	assert_true(usb_emu_snapshot(b->emu).bytes_out > 0);

	/* Channel B of it, when the link is there. */
	usb_emu_set_data_iface(b->emu, 1);
	dev = NULL;
	assert_int_equal(ftpu__open_timeout("usb:0403:6010:FTBBBB", 300, &dev),
			 FTPU_ERR_TIMEOUT); /* A is silent now */
	int ret = ftpu_open("usb:0403:6010:FTBBBB,iface=B", &dev);
	if (ret)
		fail_msg("channel B: %s: %s", ftpu_strerror(ret), ftpu_last_error(NULL));
	struct usb_emu_stats st = usb_emu_snapshot(b->emu);
	assert_true(st.claimed[1] && !st.claimed[0]);
	assert_string_equal(st.driver[0], "ftdi_sio"); /* A left alone */
	assert_int_equal(st.latency[1], 2);
	assert_int_equal(ftpu_close(dev), FTPU_OK);

	/* "usb" alone: the first device with a known ID that answers. */
	link_free(a);
	link_free(b);
	l[0] = l[1] = NULL;
	dev = tc_open("usb");
	struct ftpu_device_info info;
	assert_int_equal(ftpu_get_info(dev, &info), FTPU_OK);
	assert_string_equal(info.transport, "usb");
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	assert_true(usb_emu_snapshot(v->emu).bytes_out > 0);
}

int main(int argc, char **argv)
{
	if (!usb_emu_preload(argc, argv))
		return 1;
	tb = umockdev_testbed_new();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transport_usb_info, setup_vendor, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_info, setup_ft2232h, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_info, setup_ft232h, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_gemm, setup_vendor, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_gemm, setup_ft2232h, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_garbage, setup_vendor, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_garbage, setup_ft2232h,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_short_packets, setup_vendor,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_short_packets, setup_ft2232h,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_unplug, setup_vendor, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_unplug, setup_ft2232h, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_unplug_silent, setup_vendor,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_unplug_silent, setup_ft2232h,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_streams, setup_stream_vendor,
						teardown_stream),
		cmocka_unit_test_setup_teardown(test_transport_usb_streams, setup_stream_ft2232h,
						teardown_stream),
		cmocka_unit_test_setup_teardown(test_transport_usb_streams, setup_stream_ft232h,
						teardown_stream),
		cmocka_unit_test_setup_teardown(test_transport_usb_hotplug, setup_stream_vendor,
						teardown_stream),
		cmocka_unit_test_setup_teardown(test_transport_usb_hotplug, setup_stream_ft2232h,
						teardown_stream),
		cmocka_unit_test_setup_teardown(test_transport_usb_access, setup_vendor, teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_exclusive, setup_ft2232h,
						teardown),
		cmocka_unit_test_setup_teardown(test_transport_usb_bad_uris, setup_none,
						teardown_all),
		cmocka_unit_test_setup_teardown(test_transport_usb_choose, setup_none,
						teardown_all),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);
	g_object_unref(tb);
	return ret;
}
