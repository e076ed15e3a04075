/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_transport.c - the "usb" URI: link bytes over a pair of USB bulk
 * endpoints through libusb-1.0 (docs/usb.md).
 *
 *   usb                         the first device with a known ID
 *   usb:VID:PID[:SERIAL]        hex IDs; SERIAL picks one of several
 *   ...[,iface=A|B][,timeout=MS]
 *
 * Two kinds of device:
 *  - the project's vendor-class device (1209:0001, and any VID:PID that is
 *    not an FTDI chip): interface 0 with one bulk IN and one bulk OUT
 *    endpoint, found from the descriptors; the bytes are the link stream;
 *  - FTDI FT232H (0403:6014) and FT2232H (0403:6010) in FT245 synchronous
 *    FIFO mode: reset, latency timer, bit mode 0x40, RTS/CTS flow control,
 *    purge; every max-packet-size packet the chip sends starts with two
 *    modem-status bytes, stripped here. The FT2232H has sync FIFO on
 *    channel A only (the default); iface=B takes channel B in the mode its
 *    EEPROM gives it (bit mode reset, e.g. an asynchronous 245 FIFO).
 *
 * Transfers are asynchronous: N_IN bulk IN transfers of IN_SIZE bytes stay
 * in flight all the time (what a FT2232H needs to be read at its ~40 MB/s),
 * their bytes collect in a ring that read() drains; write() sends in
 * OUT_SIZE chunks, N_OUT in flight. All libusb events are handled in the
 * caller's thread, inside read() and write(), for at most their timeouts.
 * A device that goes away (a transfer or submission fails with NO_DEVICE,
 * or the hot-plug callback sees it leave) fails every later call with
 * FTPU_ERR_IO; close() cancels and reaps every transfer, waiting a bounded
 * time for each.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libusb.h>

#include "device.h"
#include "ftpu.h"
#include "transport.h"
#include "uri.h"

enum {
	N_IN = 4,            /* IN transfers kept in flight */
	IN_SIZE = 16384,     /* bytes per IN transfer, a multiple of 512 */
	N_OUT = 4,           /* OUT transfers in flight, at most */
	OUT_SIZE = 16384,    /* bytes per OUT transfer */
	RX_CAP = 4 * N_IN * IN_SIZE, /* received bytes the ring holds */
	CONTROL_TIMEOUT_MS = 1000,
	CLOSE_WAIT_MS = 1000, /* for cancelled transfers to come back */
	GONE_WAIT_MS = 200,   /* the same once the device is gone */
	FTDI_LATENCY_MS = 2,
	MAX_SERIAL = FTPU__USB_MAX_SERIAL,
};

/* FTDI vendor requests (bmRequestType 0x40) and their values. */
enum {
	SIO_RESET = 0x00,
	SIO_SET_FLOW_CTRL = 0x02,
	SIO_SET_LATENCY_TIMER = 0x09,
	SIO_SET_BITMODE = 0x0b,
	SIO_RESET_SIO = 0,
	SIO_RESET_PURGE_RX = 1,
	SIO_RESET_PURGE_TX = 2,
	SIO_RTS_CTS_HS = 0x1 << 8,
	BITMODE_RESET = 0x00,
	BITMODE_SYNCFF = 0x40,
	FTDI_STATUS_BYTES = 2,
};

enum usb_kind { KIND_VENDOR, KIND_FTDI };

struct known_id {
	uint16_t vid, pid;
	enum usb_kind kind;
	const char *name;
	int channels; /* FTDI interfaces: A, B */
};

static const struct known_id known_ids[] = {
	{ 0x1209, 0x0001, KIND_VENDOR, "ftpu", 1 },
	{ 0x0403, 0x6014, KIND_FTDI, "FT232H", 1 },
	{ 0x0403, 0x6010, KIND_FTDI, "FT2232H", 2 },
};
#define N_KNOWN (sizeof(known_ids) / sizeof(known_ids[0]))

/* Any other VID:PID named in a URI is taken to be a vendor-class device. */
static const struct known_id other_id = { 0, 0, KIND_VENDOR, "vendor-class", 1 };

struct usb_ctx;

struct xfer {
	struct usb_ctx *c;
	struct libusb_transfer *t;
	unsigned char *buf;
	bool busy; /* submitted; its callback has not run yet */
};

struct usb_ctx {
	libusb_context *usb;
	libusb_device_handle *h;
	const struct known_id *id;
	int iface;            /* the claimed interface */
	uint16_t ftdi_index;  /* wIndex of FTDI requests: 1 = A, 2 = B */
	unsigned char ep_in, ep_out;
	unsigned in_mps;      /* IN max packet size */
	bool claimed, closing, gone;
	bool have_hotplug;
	libusb_hotplug_callback_handle hotplug;
	unsigned write_timeout_ms;

	struct xfer in[N_IN], out[N_OUT];
	size_t out_done;      /* bytes the current write's transfers moved */
	int out_status;       /* first failure among them (ftpu status) */

	uint8_t *rx;          /* ring of received bytes */
	size_t rx_head, rx_len;

	int fail;             /* a status that fails every later call */
	char what[80];        /* "FT2232H 0403:6010 bus 1 dev 4" */
	char err[160];        /* why it failed */
};

/* ---- small helpers ------------------------------------------------------------ */

static struct timeval ms_tv(double ms)
{
	if (ms < 0)
		ms = 0;
	long long us = (long long)(ms * 1e3);
	return (struct timeval){ .tv_sec = (time_t)(us / 1000000),
				 .tv_usec = (suseconds_t)(us % 1000000) };
}

static const struct known_id *lookup_id(uint16_t vid, uint16_t pid)
{
	for (size_t i = 0; i < N_KNOWN; i++)
		if (known_ids[i].vid == vid && known_ids[i].pid == pid)
			return &known_ids[i];
	return NULL;
}

/* Records the first fatal failure ("<device>: <reason>"); every later
 * read and write returns it. */
static int set_fail(struct usb_ctx *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_fail(struct usb_ctx *c, int status, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (c->fail)
		return c->fail;
	c->fail = status;
	len = snprintf(c->err, sizeof(c->err), "%s: ", c->what);
	va_start(ap, fmt);
	if (len > 0 && (size_t)len < sizeof(c->err))
		vsnprintf(c->err + len, sizeof(c->err) - (size_t)len, fmt, ap);
	va_end(ap);
	return c->fail;
}

/* status, with its reason handed to the runtime (ftpu_last_error). */
static int report(struct usb_ctx *c, int status)
{
	ftpu__transport_error("usb %s", c->err[0] ? c->err : ftpu_strerror(status));
	return status;
}

static int set_gone(struct usb_ctx *c)
{
	c->gone = true;
	return set_fail(c, FTPU_ERR_IO, "disconnected");
}

/* ---- the URI ------------------------------------------------------------------ */

/* ---- finding and opening the device -------------------------------------------- */

/* The device's serial number string ("" when it has none or it cannot be
 * read). */
static void read_serial(libusb_device_handle *h, const struct libusb_device_descriptor *dd,
			char *out, size_t len)
{
	out[0] = '\0';
	if (!dd->iSerialNumber)
		return;
	int n = libusb_get_string_descriptor_ascii(h, dd->iSerialNumber, (unsigned char *)out,
						   (int)len);
	if (n < 0)
		out[0] = '\0';
	else
		out[n < (int)len ? n : (int)len - 1] = '\0';
}

static int describe_open_error(int r, const char *what, char *err, size_t err_len)
{
	if (r == LIBUSB_ERROR_ACCESS) {
		snprintf(err, err_len, "%s: no permission to open it: install the udev "
			 "rules (host-lib/udev/99-ftpu.rules into /etc/udev/rules.d, or make install "
			 "PREFIX=/usr) and replug it, or join group plugdev", what);
		return FTPU_ERR_IO;
	}
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		snprintf(err, err_len, "%s: disconnected while opening it", what);
		return FTPU_ERR_IO;
	}
	snprintf(err, err_len, "%s: cannot open it: %s", what, libusb_strerror(r));
	return FTPU_ERR_IO;
}

/*
 * Opens the device the URI names into c->h (and c->id, c->what). Without
 * a serial the first match wins; with one, each match is opened to read
 * its serial. FTPU_ERR_NOT_FOUND lists what was found instead.
 */
static int find_device(struct usb_ctx *c, const struct ftpu__usb_uri *u, char *err, size_t err_len)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(c->usb, &list);
	char found[256] = "";
	size_t flen = 0;
	int access_err = 0;
	char access_msg[320] = "";
	int ret = FTPU_ERR_NOT_FOUND;

	if (n < 0) {
		snprintf(err, err_len, "cannot list USB devices: %s",
			 libusb_strerror((int)n));
		return FTPU_ERR_IO;
	}
	for (ssize_t i = 0; i < n && !c->h; i++) {
		struct libusb_device_descriptor dd;
		if (libusb_get_device_descriptor(list[i], &dd))
			continue;
		const struct known_id *id = lookup_id(dd.idVendor, dd.idProduct);
		char what[80];
		snprintf(what, sizeof(what), "%s %04x:%04x bus %u dev %u",
			 id ? id->name : "USB device", dd.idVendor, dd.idProduct,
			 libusb_get_bus_number(list[i]), libusb_get_device_address(list[i]));
		bool match = u->have_id ? dd.idVendor == u->vid && dd.idProduct == u->pid : !!id;
		if (!match) {
			if (id && flen < sizeof(found))
				flen += (size_t)snprintf(found + flen, sizeof(found) - flen, "%s%s",
							 flen ? "; " : "", what);
			continue;
		}
		libusb_device_handle *h;
		int r = libusb_open(list[i], &h);
		if (r) {
			if (!access_err) {
				access_err = describe_open_error(r, what, access_msg,
								 sizeof(access_msg));
			}
			if (!u->serial[0])
				break; /* the first match is the one wanted */
			continue;
		}
		char serial[MAX_SERIAL];
		read_serial(h, &dd, serial, sizeof(serial));
		if (u->serial[0] && strcmp(serial, u->serial)) {
			if (flen < sizeof(found))
				flen += (size_t)snprintf(found + flen, sizeof(found) - flen,
							 "%s%s serial %s", flen ? "; " : "",
							 what, serial[0] ? serial : "(none)");
			libusb_close(h);
			continue;
		}
		c->h = h;
		c->id = id ? id : &other_id;
		snprintf(c->what, sizeof(c->what), "%s", what);
		ret = FTPU_OK;
	}
	libusb_free_device_list(list, 1);
	if (ret == FTPU_OK)
		return FTPU_OK;
	if (access_err) {
		snprintf(err, err_len, "%s", access_msg);
		return access_err;
	}
	char want[96];
	if (u->have_id)
		snprintf(want, sizeof(want), "%04x:%04x%s%s", u->vid, u->pid,
			 u->serial[0] ? " serial " : "", u->serial);
	else
		snprintf(want, sizeof(want), "ftpu (1209:0001) or FTDI FT232H/FT2232H");
	snprintf(err, err_len, "no USB device %s (found: %s)", want,
		 flen ? found : "no device with a known ID");
	return FTPU_ERR_NOT_FOUND;
}

/* Claims the interface and finds its bulk endpoints. */
static int claim(struct usb_ctx *c, const struct ftpu__usb_uri *u, char *err, size_t err_len)
{
	struct libusb_config_descriptor *cfg;
	int r;

	if (u->channel >= 0 && (c->id->kind != KIND_FTDI || u->channel >= c->id->channels)) {
		snprintf(err, err_len, "%s: has no channel %c (iface= is for the FT2232H)",
			 c->what, 'A' + u->channel);
		return FTPU_ERR_INVALID;
	}
	c->iface = u->channel > 0 ? u->channel : 0;
	c->ftdi_index = (uint16_t)(c->iface + 1);

	r = libusb_get_active_config_descriptor(libusb_get_device(c->h), &cfg);
	if (r) {
		snprintf(err, err_len, "%s: cannot read its configuration: %s", c->what,
			 libusb_strerror(r));
		return FTPU_ERR_IO;
	}
	for (int i = 0; i < cfg->bNumInterfaces; i++) {
		const struct libusb_interface_descriptor *alt;
		if (!cfg->interface[i].num_altsetting)
			continue;
		alt = &cfg->interface[i].altsetting[0];
		if (alt->bInterfaceNumber != c->iface)
			continue;
		for (int e = 0; e < alt->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep = &alt->endpoint[e];
			if ((ep->bmAttributes & LIBUSB_TRANSFER_TYPE_MASK) !=
			    LIBUSB_TRANSFER_TYPE_BULK)
				continue;
			if ((ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !c->ep_in) {
				c->ep_in = ep->bEndpointAddress;
				c->in_mps = ep->wMaxPacketSize & 0x7ff;
			} else if (!(ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !c->ep_out) {
				c->ep_out = ep->bEndpointAddress;
			}
		}
	}
	libusb_free_config_descriptor(cfg);
	if (!c->ep_in || !c->ep_out || !c->in_mps) {
		snprintf(err, err_len, "%s: interface %d has no bulk IN and OUT endpoint pair",
			 c->what, c->iface);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (c->id->kind == KIND_FTDI && (IN_SIZE % c->in_mps || c->in_mps <= FTDI_STATUS_BYTES)) {
		snprintf(err, err_len, "%s: unexpected IN packet size %u", c->what, c->in_mps);
		return FTPU_ERR_UNSUPPORTED;
	}

	/* A kernel driver (ftdi_sio) is detached on claim, reattached on release. */
	libusb_set_auto_detach_kernel_driver(c->h, 1);
	r = libusb_claim_interface(c->h, c->iface);
	if (r == LIBUSB_ERROR_BUSY) {
		snprintf(err, err_len, "%s: interface %d is in use by another program",
			 c->what, c->iface);
		return FTPU_ERR_IO;
	}
	if (r) {
		snprintf(err, err_len, "%s: cannot claim interface %d: %s", c->what, c->iface,
			 libusb_strerror(r));
		return r == LIBUSB_ERROR_ACCESS ? describe_open_error(r, c->what, err, err_len) :
						  FTPU_ERR_IO;
	}
	c->claimed = true;
	/* Alternate setting 0 (the only one): both ends restart their data
	 * toggles, whatever a program before this one left behind. */
	if (c->id->kind == KIND_VENDOR) {
		r = libusb_set_interface_alt_setting(c->h, c->iface, 0);
		if (r == LIBUSB_ERROR_NO_DEVICE) {
			snprintf(err, err_len, "%s: disconnected while opening it", c->what);
			return FTPU_ERR_IO;
		}
	}
	return FTPU_OK;
}

static int ftdi_request(struct usb_ctx *c, uint8_t req, uint16_t value, uint16_t index)
{
	return libusb_control_transfer(c->h, LIBUSB_REQUEST_TYPE_VENDOR |
				       LIBUSB_RECIPIENT_DEVICE | LIBUSB_ENDPOINT_OUT,
				       req, value, index, NULL, 0, CONTROL_TIMEOUT_MS);
}

/* The FT245 synchronous FIFO setup (FTDI AN_130), in libftdi's order. */
static int ftdi_setup(struct usb_ctx *c, char *err, size_t err_len)
{
	const uint16_t ix = c->ftdi_index;
	const uint8_t mode = c->iface == 0 ? BITMODE_SYNCFF : BITMODE_RESET;
	const struct {
		const char *what;
		uint8_t req;
		uint16_t value, index;
	} steps[] = {
		{ "reset", SIO_RESET, SIO_RESET_SIO, ix },
		{ "bit mode reset", SIO_SET_BITMODE, BITMODE_RESET << 8 | 0xff, ix },
		{ "bit mode", SIO_SET_BITMODE, (uint16_t)(mode << 8 | 0xff), ix },
		{ "latency timer", SIO_SET_LATENCY_TIMER, FTDI_LATENCY_MS, ix },
		{ "flow control", SIO_SET_FLOW_CTRL, 0, (uint16_t)(SIO_RTS_CTS_HS | ix) },
		{ "purge RX", SIO_RESET, SIO_RESET_PURGE_RX, ix },
		{ "purge TX", SIO_RESET, SIO_RESET_PURGE_TX, ix },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int r = ftdi_request(c, steps[i].req, steps[i].value, steps[i].index);
		if (r < 0) {
			snprintf(err, err_len, "%s: FTDI setup (%s) failed: %s", c->what,
				 steps[i].what, libusb_strerror(r));
			return FTPU_ERR_IO;
		}
	}
	return FTPU_OK;
}

/* ---- transfers --------------------------------------------------------------------- */

static size_t rx_free(const struct usb_ctx *c) { return RX_CAP - c->rx_len; }

static void rx_put(struct usb_ctx *c, const uint8_t *src, size_t n)
{
	/* in_cb only resubmits while the ring has room for every transfer */
	if (n > rx_free(c))
		n = rx_free(c);
	size_t tail = (c->rx_head + c->rx_len) % RX_CAP;
	size_t first = n < RX_CAP - tail ? n : RX_CAP - tail;
	memcpy(c->rx + tail, src, first);
	memcpy(c->rx, src + first, n - first);
	c->rx_len += n;
}

static size_t rx_take(struct usb_ctx *c, uint8_t *dst, size_t cap)
{
	size_t n = c->rx_len < cap ? c->rx_len : cap;
	size_t first = n < RX_CAP - c->rx_head ? n : RX_CAP - c->rx_head;
	memcpy(dst, c->rx + c->rx_head, first);
	memcpy(dst + first, c->rx, n - first);
	c->rx_head = (c->rx_head + n) % RX_CAP;
	c->rx_len -= n;
	return n;
}

/* A completed IN transfer's bytes into the ring; FTDI packets lose their
 * two modem-status bytes each. */
static void take_in(struct usb_ctx *c, const uint8_t *buf, size_t len)
{
	if (c->id->kind != KIND_FTDI) {
		rx_put(c, buf, len);
		return;
	}
	for (size_t off = 0; off < len; off += c->in_mps) {
		size_t pkt = len - off < c->in_mps ? len - off : c->in_mps;
		if (pkt > FTDI_STATUS_BYTES)
			rx_put(c, buf + off + FTDI_STATUS_BYTES, pkt - FTDI_STATUS_BYTES);
	}
}

static int busy_count(const struct xfer *x, int n)
{
	int busy = 0;
	for (int i = 0; i < n; i++)
		busy += x[i].busy;
	return busy;
}

/* Submits x; false (and the failure recorded) when that fails. */
static bool submit(struct usb_ctx *c, struct xfer *x)
{
	int r = libusb_submit_transfer(x->t);
	if (r == 0) {
		x->busy = true;
		return true;
	}
	if (r == LIBUSB_ERROR_NO_DEVICE)
		set_gone(c);
	else
		set_fail(c, FTPU_ERR_IO, "cannot submit a transfer: %s", libusb_strerror(r));
	return false;
}

/* Resubmits idle IN transfers while the ring has room for all in flight. */
static void refill(struct usb_ctx *c)
{
	for (int i = 0; i < N_IN && !c->fail && !c->closing; i++) {
		struct xfer *x = &c->in[i];
		if (x->busy)
			continue;
		if (rx_free(c) < (size_t)(busy_count(c->in, N_IN) + 1) * IN_SIZE)
			return;
		if (!submit(c, x))
			return;
	}
}

static void LIBUSB_CALL in_cb(struct libusb_transfer *t)
{
	struct xfer *x = t->user_data;
	struct usb_ctx *c = x->c;

	x->busy = false;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED:
	case LIBUSB_TRANSFER_TIMED_OUT:
		take_in(c, t->buffer, (size_t)t->actual_length);
		refill(c);
		return;
	case LIBUSB_TRANSFER_CANCELLED:
		return;
	case LIBUSB_TRANSFER_NO_DEVICE:
		set_gone(c);
		return;
	case LIBUSB_TRANSFER_STALL:
		set_fail(c, FTPU_ERR_IO, "the IN endpoint stalled");
		return;
	default:
		set_fail(c, FTPU_ERR_IO, "an IN transfer failed: %s",
			 t->status == LIBUSB_TRANSFER_OVERFLOW ? "overflow" : "transfer error");
	}
}

static void LIBUSB_CALL out_cb(struct libusb_transfer *t)
{
	struct xfer *x = t->user_data;
	struct usb_ctx *c = x->c;

	x->busy = false;
	c->out_done += (size_t)t->actual_length;
	if (c->out_status)
		return;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED:
		if (t->actual_length != t->length)
			c->out_status = FTPU_ERR_IO;
		return;
	case LIBUSB_TRANSFER_TIMED_OUT:
	case LIBUSB_TRANSFER_CANCELLED:
		c->out_status = FTPU_ERR_TIMEOUT;
		return;
	case LIBUSB_TRANSFER_NO_DEVICE:
		c->out_status = set_gone(c);
		return;
	default:
		c->out_status = set_fail(c, FTPU_ERR_IO, "an OUT transfer failed");
	}
}

static int LIBUSB_CALL hotplug_cb(libusb_context *usb, libusb_device *dev,
				  libusb_hotplug_event event, void *arg)
{
	struct usb_ctx *c = arg;
	(void)usb;
	if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT && c->h && dev == libusb_get_device(c->h))
		set_gone(c);
	return 0;
}

/* Handles libusb events for up to ms (0: what is pending now). */
static void pump(struct usb_ctx *c, double ms)
{
	struct timeval tv = ms_tv(ms);
	int r = libusb_handle_events_timeout_completed(c->usb, &tv, NULL);
	if (r < 0 && r != LIBUSB_ERROR_INTERRUPTED && r != LIBUSB_ERROR_TIMEOUT)
		set_fail(c, FTPU_ERR_IO, "libusb event handling failed: %s",
			 libusb_strerror(r));
}

/* Cancels every busy transfer and waits, at most wait_ms, for them to
 * come back; true when all did. */
static bool cancel_all(struct usb_ctx *c, struct xfer *x, int n, double wait_ms)
{
	double deadline = ftpu__now_s() * 1e3 + wait_ms;
	for (int i = 0; i < n; i++)
		if (x[i].busy)
			libusb_cancel_transfer(x[i].t);
	while (busy_count(x, n)) {
		double left = deadline - ftpu__now_s() * 1e3;
		if (left <= 0)
			return false;
		struct timeval tv = ms_tv(left < 50 ? left : 50);
		libusb_handle_events_timeout_completed(c->usb, &tv, NULL);
	}
	return true;
}

static int alloc_xfers(struct usb_ctx *c, struct xfer *x, int n, size_t size, bool in)
{
	for (int i = 0; i < n; i++) {
		x[i].c = c;
		x[i].t = libusb_alloc_transfer(0);
		x[i].buf = malloc(size);
		if (!x[i].t || !x[i].buf)
			return FTPU_ERR_NOMEM;
		libusb_fill_bulk_transfer(x[i].t, c->h, in ? c->ep_in : c->ep_out, x[i].buf,
					  (int)size, in ? in_cb : out_cb, &x[i],
					  in ? 0 : c->write_timeout_ms);
	}
	return FTPU_OK;
}

/* ---- the ops ------------------------------------------------------------------------- */

static void usb_close(void *ctx);

static int usb_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	struct ftpu__usb_uri u;
	struct usb_ctx *c;
	int ret, r;

	ret = ftpu__uri_parse_usb(opts, &u, err, err_len);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->rx = malloc(RX_CAP))) {
		free(c);
		snprintf(err, err_len, "out of memory");
		return FTPU_ERR_NOMEM;
	}
	c->write_timeout_ms = u.write_timeout_ms;
	r = libusb_init(&c->usb);
	if (r) {
		/* No way to reach a USB device from here: none is found. */
		snprintf(err, err_len, "no USB device%s%s: libusb cannot start here (%s)",
			 opts[0] ? " " : "", opts, libusb_strerror(r));
		ret = r == LIBUSB_ERROR_NO_MEM ? FTPU_ERR_NOMEM : FTPU_ERR_NOT_FOUND;
		goto out_free;
	}
	ret = find_device(c, &u, err, err_len);
	if (ret)
		goto out_close;
	ret = claim(c, &u, err, err_len);
	if (ret)
		goto out_close;
	if (c->id->kind == KIND_FTDI) {
		ret = ftdi_setup(c, err, err_len);
		if (ret)
			goto out_close;
	}
	if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
		struct libusb_device_descriptor dd;
		libusb_get_device_descriptor(libusb_get_device(c->h), &dd);
		c->have_hotplug = !libusb_hotplug_register_callback(
			c->usb, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0, dd.idVendor, dd.idProduct,
			LIBUSB_HOTPLUG_MATCH_ANY, hotplug_cb, c, &c->hotplug);
	}
	if (alloc_xfers(c, c->in, N_IN, IN_SIZE, true) ||
	    alloc_xfers(c, c->out, N_OUT, OUT_SIZE, false)) {
		snprintf(err, err_len, "out of memory");
		ret = FTPU_ERR_NOMEM;
		goto out_close;
	}
	refill(c);
	if (c->fail) {
		snprintf(err, err_len, "%s", c->err);
		ret = c->fail;
		goto out_close;
	}
	*ctx = c;
	return FTPU_OK;

out_close:
	usb_close(c);
	return ret;
out_free:
	free(c->rx);
	free(c);
	return ret;
}

static void usb_close(void *ctx)
{
	struct usb_ctx *c = ctx;

	if (!c)
		return;
	c->closing = true;
	if (c->h) {
		cancel_all(c, c->in, N_IN, c->gone ? GONE_WAIT_MS : CLOSE_WAIT_MS);
		cancel_all(c, c->out, N_OUT, c->gone ? GONE_WAIT_MS : CLOSE_WAIT_MS);
		if (c->have_hotplug)
			libusb_hotplug_deregister_callback(c->usb, c->hotplug);
		/* Leave an FTDI chip in its EEPROM mode for the next user. */
		if (c->claimed && c->id->kind == KIND_FTDI && !c->gone)
			ftdi_request(c, SIO_SET_BITMODE, BITMODE_RESET << 8, c->ftdi_index);
		if (c->claimed)
			libusb_release_interface(c->h, c->iface);
		/* Drops transfers that never came back from libusb's lists. */
		libusb_close(c->h);
	}
	for (int i = 0; i < N_IN; i++) {
		libusb_free_transfer(c->in[i].t);
		free(c->in[i].buf);
	}
	for (int i = 0; i < N_OUT; i++) {
		libusb_free_transfer(c->out[i].t);
		free(c->out[i].buf);
	}
	if (c->usb)
		libusb_exit(c->usb);
	free(c->rx);
	free(c);
}

static int usb_write(void *ctx, const void *buf, size_t n)
{
	struct usb_ctx *c = ctx;
	const uint8_t *src = buf;
	size_t sent = 0;
	double deadline = ftpu__now_s() * 1e3 + c->write_timeout_ms + CONTROL_TIMEOUT_MS;

	if (c->fail)
		return report(c, c->fail);
	c->out_done = 0;
	c->out_status = FTPU_OK;
	while (c->out_done < n || busy_count(c->out, N_OUT)) {
		for (int i = 0; i < N_OUT && sent < n && !c->out_status && !c->fail; i++) {
			struct xfer *x = &c->out[i];
			if (x->busy)
				continue;
			size_t len = n - sent < OUT_SIZE ? n - sent : OUT_SIZE;
			memcpy(x->buf, src + sent, len);
			x->t->length = (int)len;
			if (!submit(c, x))
				break;
			sent += len;
		}
		if (c->fail || c->out_status || ftpu__now_s() * 1e3 > deadline)
			break;
		pump(c, deadline - ftpu__now_s() * 1e3);
	}
	if (busy_count(c->out, N_OUT))
		cancel_all(c, c->out, N_OUT, c->gone ? GONE_WAIT_MS : CLOSE_WAIT_MS);
	if (c->fail)
		return report(c, c->fail);
	if (c->out_status == FTPU_ERR_TIMEOUT || (c->out_done < n && !c->out_status)) {
		ftpu__transport_error("usb %s: write timed out (%zu of %zu bytes taken in "
				      "%u ms)", c->what, c->out_done, n, c->write_timeout_ms);
		return FTPU_ERR_TIMEOUT;
	}
	if (c->out_status) {
		ftpu__transport_error("usb %s: short write (%zu of %zu bytes)", c->what,
				      c->out_done, n);
		return c->out_status;
	}
	return FTPU_OK;
}

static long usb_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	struct usb_ctx *c = ctx;
	double deadline = ftpu__now_s() * 1e3 + timeout_ms;

	for (;;) {
		if (c->rx_len) {
			long n = (long)rx_take(c, buf, cap > LONG_MAX ? LONG_MAX : cap);
			refill(c);
			return n;
		}
		if (c->fail)
			return report(c, c->fail);
		refill(c);
		double left = deadline - ftpu__now_s() * 1e3;
		pump(c, left > 0 ? left : 0);
		if (!c->rx_len && !c->fail && left <= 0)
			return 0;
	}
}

/* ---- discovery ------------------------------------------------------------------------- */

static int usb_enumerate(int (*found)(void *arg, const char *uri, const char *what),
			 void *arg, char *err, size_t err_len)
{
	libusb_context *usb;
	libusb_device **list;
	ssize_t n;
	int r = libusb_init(&usb);

	if (r) {
		snprintf(err, err_len, "cannot start libusb: %s", libusb_strerror(r));
		return FTPU_ERR_IO;
	}
	n = libusb_get_device_list(usb, &list);
	if (n < 0) {
		snprintf(err, err_len, "cannot list USB devices: %s", libusb_strerror((int)n));
		libusb_exit(usb);
		return FTPU_ERR_IO;
	}
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		const struct known_id *id;
		libusb_device_handle *h;
		char serial[MAX_SERIAL] = "", uri[96], what[96];

		if (libusb_get_device_descriptor(list[i], &dd))
			continue;
		id = lookup_id(dd.idVendor, dd.idProduct);
		if (!id)
			continue;
		if (!libusb_open(list[i], &h)) {
			read_serial(h, &dd, serial, sizeof(serial));
			libusb_close(h);
		}
		/* a serial that a URI cannot carry is left out */
		for (char *s = serial; *s; s++)
			if (!ftpu__uri_serial_char(*s))
				serial[0] = '\0';
		snprintf(uri, sizeof(uri), "usb:%04x:%04x%s%s", dd.idVendor, dd.idProduct,
			 serial[0] ? ":" : "", serial);
		snprintf(what, sizeof(what), "%s bus %u dev %u", id->name,
			 libusb_get_bus_number(list[i]), libusb_get_device_address(list[i]));
		if (found(arg, uri, what))
			break;
	}
	libusb_free_device_list(list, 1);
	libusb_exit(usb);
	return FTPU_OK;
}

const struct ftpu_transport_ops ftpu_transport_usb = {
	.scheme = "usb",
	.open = usb_open,
	.close = usb_close,
	.write = usb_write,
	.read = usb_read,
	.enumerate = usb_enumerate,
};
