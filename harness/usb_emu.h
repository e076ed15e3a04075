/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_emu.h - emulated USB devices for the usb transport's test and bench,
 * without hardware: umockdev (Debian's libumockdev, under umockdev-wrapper)
 * redirects libusb's view of sysfs and /dev into a testbed, and forwards
 * every ioctl on the device node to a handler here, which answers as the
 * kernel's usbdevfs would for a device behind it.
 *
 *   usb_emu_preload(argc, argv)           re-exec under umockdev-wrapper
 *   UMockdevTestbed *tb = umockdev_testbed_new();
 *   e = usb_emu_add(tb, USB_EMU_FT2232H, "FT0001", peer)
 *                                         sysfs device, /dev/bus/usb/BBB/DDD
 *   ... libusb enumerates, opens, claims it; the bytes of its bulk
 *   endpoints go to and come from peer (sim_peer.h: the simulated device,
 *   or echo), or with peer NULL into a sink and out of a counting source
 *   usb_emu_unplug(e, true)               gone: URBs fail as the kernel's do
 *   usb_emu_free(e)                       (after the host closed it)
 *
 * The device kinds: the project's vendor-class device (1209:0001, an
 * interrupt endpoint before its bulk pair so the host has to look at the
 * descriptors), FT232H (0403:6014) and FT2232H (0403:6010, channels A and
 * B). The FTDI chips take the vendor requests (reset, latency timer, bit
 * mode, flow control, purge), log them, pass link bytes only in FIFO mode
 * (sync FIFO, bit mode 0x40, on channel A; bit mode reset on B, whose
 * EEPROM makes it an asynchronous FIFO), start every max-packet-size
 * packet with two modem-status bytes and, with nothing to send, answer an
 * IN URB with a status-only packet after the latency timer. ftdi_sio is
 * bound to their interfaces until the host detaches it.
 *
 * The ioctls handled: GET_CAPABILITIES, CLAIMINTERFACE, RELEASEINTERFACE,
 * SETINTERFACE, GETDRIVER, IOCTL (DISCONNECT/CONNECT), DISCONNECT_CLAIM,
 * CONTROL, SUBMITURB (bulk and control URBs), DISCARDURB, REAPURB,
 * REAPURBNDELAY, DISCSIGNAL, CLEAR_HALT, RESETEP, RESET; others ENOTTY.
 * URBs complete when the handler next runs (libusb polls the node, which
 * is a plain file here, so it reaps all the time); an idle reap waits
 * 200 us so that polling does not starve the simulated device's thread.
 *
 * Threads: umockdev runs the handler on its own thread; the test thread
 * reads counters and injects faults under the same mutex. Header-only,
 * static functions, C11 + GLib (pkg-config umockdev-1.0).
 */
#ifndef FTPU_USB_EMU_H
#define FTPU_USB_EMU_H

#include <errno.h>
#include <limits.h>
#include <linux/usbdevice_fs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <umockdev.h>

#include "sim_peer.h"

enum usb_emu_kind { USB_EMU_VENDOR, USB_EMU_FT232H, USB_EMU_FT2232H };

enum {
	USB_EMU_MPS = 512,        /* bulk max packet size (high speed) */
	USB_EMU_STAGE = 65536,    /* device -> host bytes held for URBs */
	USB_EMU_LOG = 64,         /* FTDI requests kept */
	USB_EMU_IDLE_US = 200,    /* an idle reap waits this long */
};

/* One submitted URB: umockdev's copies of the struct and of its buffer. */
struct usb_emu_urb {
	UMockdevIoctlData *urb, *buf; /* buf NULL for an empty buffer */
	unsigned long addr;           /* the URB's address in the client */
	double t0;                    /* when it was submitted (ms) */
	const void *client;           /* the open file that submitted it */
	bool data_in, data_out;       /* on the link endpoints */
	struct usb_emu_urb *next;
};

struct usb_emu_ftdi_req {
	uint8_t req;
	uint16_t value, index;
};

/* The device's state and counters (usb_emu_snapshot copies them). */
struct usb_emu_stats {
	char driver[2][16]; /* kernel driver bound per interface, "" none */
	bool claimed[2];
	unsigned detached, attached; /* kernel driver unbinds, rebinds */
	unsigned set_interface;      /* SETINTERFACE requests */
	/* FTDI, per channel */
	unsigned bitmode[2], latency[2], flow[2], resets[2], purge_rx[2], purge_tx[2];
	struct usb_emu_ftdi_req log[USB_EMU_LOG];
	unsigned n_log;
	/* URBs on the link endpoints submitted and not yet reaped */
	unsigned in_flight_in, max_in_flight_in, in_flight_out, max_in_flight_out;
	uint64_t ioctls, submits, reaps, discards;
	uint64_t bytes_out, bytes_in; /* link bytes host -> device, device -> host */
	uint64_t sunk;                /* OUT bytes into the sink (peer NULL) */
	uint64_t zlps_sent, status_only, short_sent; /* IN completions of each kind */
	uint64_t lost_out;            /* FTDI: OUT bytes while not in FIFO mode */
};

struct usb_emu {
	UMockdevTestbed *tb;
	UMockdevIoctlBase *handler;
	gulong signal;
	char syspath[160], devnode[40];
	enum usb_emu_kind kind;
	unsigned bus, dev;
	uint16_t vid, pid;
	char serial[40];
	uint8_t desc[128]; /* device + configuration descriptors */
	size_t desc_len, cfg_off;
	unsigned n_ifaces;
	unsigned char ep_in[2], ep_out[2]; /* per interface */
	unsigned data_if;  /* the interface whose endpoints carry the link */
	struct sim_peer *peer;
	bool removed;

	pthread_mutex_t mu;
	struct usb_emu_urb *pending, *done; /* in submission / completion order */
	bool unplugged;
	const void *owner[2]; /* the client (an open file) that claimed it */
	struct usb_emu_stats st;

	uint8_t stage[USB_EMU_STAGE]; /* device -> host, not yet in a URB */
	size_t stage_len;
	uint8_t pack[USB_EMU_STAGE];  /* FTDI: an IN URB's packets */

	/* faults to inject */
	unsigned zlps;          /* next IN completions: empty (ZLP / status only) */
	unsigned short_max;     /* nonzero: data bytes per IN completion, at most */
	uint64_t unplug_after;  /* nonzero: unplug once this many OUT bytes came */

	/* the source (peer NULL) */
	uint64_t source_left, source_pos;
	double in_last; /* FTDI: the last IN completion (ms) */
};

/* ---- running under umockdev ------------------------------------------------- */

/*
 * Makes sure libumockdev-preload is loaded: if not, runs this program again
 * under umockdev-wrapper (same arguments). Returns true when it is loaded;
 * false, with the reason on stderr, when it cannot be.
 */
static inline bool usb_emu_preload(int argc, char **argv)
{
	const char *pl = getenv("LD_PRELOAD");
	char self[PATH_MAX];
	char **nargv;
	ssize_t n;

	if (pl && strstr(pl, "libumockdev-preload"))
		return true;
	if (getenv("FTPU_UMOCKDEV_REEXEC")) {
		fprintf(stderr, "%s: ran under umockdev-wrapper, but libumockdev-preload "
			"is not in LD_PRELOAD\n", argv[0]);
		return false;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "%s: cannot find my own executable\n", argv[0]);
		return false;
	}
	self[n] = '\0';
	nargv = calloc((size_t)argc + 2, sizeof(*nargv));
	if (!nargv)
		return false;
	nargv[0] = "umockdev-wrapper";
	nargv[1] = self;
	for (int i = 1; i < argc; i++)
		nargv[i + 1] = argv[i];
	setenv("FTPU_UMOCKDEV_REEXEC", "1", 1);
	execvp(nargv[0], nargv);
	fprintf(stderr, "%s: cannot run umockdev-wrapper (%s): install Debian's umockdev "
		"package (scripts/deps.sh does)\n", argv[0], strerror(errno));
	free(nargv);
	return false;
}

/* ---- descriptors --------------------------------------------------------------- */

static inline double usb_emu_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void usb_emu_put(struct usb_emu *e, const uint8_t *b, size_t n)
{
	memcpy(e->desc + e->desc_len, b, n);
	e->desc_len += n;
}

static inline void usb_emu_endpoint(struct usb_emu *e, uint8_t addr, uint8_t type,
				    uint16_t mps)
{
	const uint8_t ep[7] = { 7, 5, addr, type, (uint8_t)mps, (uint8_t)(mps >> 8),
				type == 3 ? 1 : 0 };
	usb_emu_put(e, ep, sizeof(ep));
}

static inline void usb_emu_interface(struct usb_emu *e, uint8_t num, uint8_t n_eps)
{
	const uint8_t itf[9] = { 9, 4, num, 0, n_eps, 0xff, 0xff, 0xff, 2 };
	usb_emu_put(e, itf, sizeof(itf));
}

/* Device and configuration descriptors, the endpoint map. */
static inline void usb_emu_descriptors(struct usb_emu *e)
{
	uint16_t bcd = e->kind == USB_EMU_VENDOR ? 0x0100 :
		       e->kind == USB_EMU_FT232H ? 0x0900 : 0x0700;
	const uint8_t dev[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64,
				  (uint8_t)e->vid, (uint8_t)(e->vid >> 8),
				  (uint8_t)e->pid, (uint8_t)(e->pid >> 8),
				  (uint8_t)bcd, (uint8_t)(bcd >> 8), 1, 2, 3, 1 };
	e->n_ifaces = e->kind == USB_EMU_FT2232H ? 2 : 1;
	const uint8_t cfg[9] = { 9, 2, 0, 0, (uint8_t)e->n_ifaces, 1, 0, 0x80, 50 };

	e->desc_len = 0;
	usb_emu_put(e, dev, sizeof(dev));
	e->cfg_off = e->desc_len;
	usb_emu_put(e, cfg, sizeof(cfg));
	if (e->kind == USB_EMU_VENDOR) {
		/* an interrupt endpoint first: the bulk pair must be looked for */
		usb_emu_interface(e, 0, 3);
		usb_emu_endpoint(e, 0x81, 3, 64);
		usb_emu_endpoint(e, 0x01, 2, USB_EMU_MPS);
		usb_emu_endpoint(e, 0x82, 2, USB_EMU_MPS);
		e->ep_in[0] = 0x82;
		e->ep_out[0] = 0x01;
	} else {
		usb_emu_interface(e, 0, 2);
		usb_emu_endpoint(e, 0x81, 2, USB_EMU_MPS);
		usb_emu_endpoint(e, 0x02, 2, USB_EMU_MPS);
		e->ep_in[0] = 0x81;
		e->ep_out[0] = 0x02;
		if (e->kind == USB_EMU_FT2232H) {
			usb_emu_interface(e, 1, 2);
			usb_emu_endpoint(e, 0x83, 2, USB_EMU_MPS);
			usb_emu_endpoint(e, 0x04, 2, USB_EMU_MPS);
			e->ep_in[1] = 0x83;
			e->ep_out[1] = 0x04;
		}
	}
	size_t total = e->desc_len - e->cfg_off;
	e->desc[e->cfg_off + 2] = (uint8_t)total;
	e->desc[e->cfg_off + 3] = (uint8_t)(total >> 8);
}

static inline const char *usb_emu_string(const struct usb_emu *e, unsigned idx)
{
	switch (idx) {
	case 1:
		return e->kind == USB_EMU_VENDOR ? "ftpu project" : "FTDI";
	case 2:
		return e->kind == USB_EMU_VENDOR ? "ftpu" :
		       e->kind == USB_EMU_FT232H ? "Single RS232-HS" : "Dual RS232-HS";
	case 3:
		return e->serial[0] ? e->serial : NULL;
	default:
		return NULL;
	}
}

/* ---- the device's side of transfers ------------------------------------------------ */

static inline bool usb_emu_is_ftdi(const struct usb_emu *e)
{
	return e->kind != USB_EMU_VENDOR;
}

/* FTDI: does the channel pass link bytes in its current mode? */
static inline bool usb_emu_fifo_mode(const struct usb_emu *e, unsigned ch)
{
	return ch == 0 ? e->st.bitmode[0] == 0x40 : e->st.bitmode[1] == 0x00;
}

static inline int usb_emu_ftdi_request(struct usb_emu *e, uint8_t req, uint16_t value,
				       uint16_t index)
{
	unsigned ch = (index & 0xff) - 1u;

	if (e->st.n_log < USB_EMU_LOG)
		e->st.log[e->st.n_log++] = (struct usb_emu_ftdi_req){ req, value, index };
	if (ch >= e->n_ifaces)
		return -EPIPE;
	switch (req) {
	case 0x00: /* SIO_RESET */
		if (value == 0)
			e->st.resets[ch]++;
		else if (value == 1)
			e->st.purge_rx[ch]++;
		else if (value == 2)
			e->st.purge_tx[ch]++;
		else
			return -EPIPE;
		return 0;
	case 0x02: /* SIO_SET_FLOW_CTRL */
		e->st.flow[ch] = index & 0xff00;
		return 0;
	case 0x09: /* SIO_SET_LATENCY_TIMER */
		if ((value & 0xff) == 0)
			return -EPIPE;
		e->st.latency[ch] = value & 0xff;
		return 0;
	case 0x0b: /* SIO_SET_BITMODE */
		e->st.bitmode[ch] = value >> 8;
		return 0;
	default:
		return 0; /* baud rate, characters, modem lines: accepted */
	}
}

/* A control request; the IN data stage into data (cap bytes), its length
 * into *actual. 0 or -EPIPE (a stall). */
static inline int usb_emu_control(struct usb_emu *e, const uint8_t *setup, uint8_t *data,
				  size_t cap, int *actual)
{
	uint8_t type = setup[0], req = setup[1];
	uint16_t value = (uint16_t)(setup[2] | setup[3] << 8);
	uint16_t index = (uint16_t)(setup[4] | setup[5] << 8);
	size_t want = (size_t)(setup[6] | setup[7] << 8);
	uint8_t buf[256];
	size_t n = 0;

	*actual = 0;
	if (want > cap)
		want = cap;
	if (type == 0x80 && req == 6) { /* GET_DESCRIPTOR */
		unsigned dt = value >> 8, idx = value & 0xff;
		if (dt == 1) {
			memcpy(buf, e->desc, 18);
			n = 18;
		} else if (dt == 2 && idx == 0) {
			n = e->desc_len - e->cfg_off;
			memcpy(buf, e->desc + e->cfg_off, n);
		} else if (dt == 3 && idx == 0) {
			const uint8_t langs[4] = { 4, 3, 0x09, 0x04 };
			memcpy(buf, langs, 4);
			n = 4;
		} else if (dt == 3 && usb_emu_string(e, idx)) {
			const char *s = usb_emu_string(e, idx);
			size_t len = strlen(s);
			buf[0] = (uint8_t)(2 + 2 * len);
			buf[1] = 3;
			for (size_t i = 0; i < len; i++) {
				buf[2 + 2 * i] = (uint8_t)s[i];
				buf[3 + 2 * i] = 0;
			}
			n = 2 + 2 * len;
		} else {
			return -EPIPE;
		}
	} else if (type == 0x80 && req == 8) { /* GET_CONFIGURATION */
		buf[0] = 1;
		n = 1;
	} else if (type == 0x00 && req == 9) { /* SET_CONFIGURATION */
		return value == 1 ? 0 : -EPIPE;
	} else if (type == 0x40 && usb_emu_is_ftdi(e)) {
		return usb_emu_ftdi_request(e, req, value, index);
	} else {
		return -EPIPE;
	}
	if (n > want)
		n = want;
	memcpy(data, buf, n);
	*actual = (int)n;
	return 0;
}

static inline struct usbdevfs_urb *usb_emu_urb_of(struct usb_emu_urb *u)
{
	return (struct usbdevfs_urb *)u->urb->data;
}

/* Moves u from the pending list to the end of the done list. */
static inline void usb_emu_finish(struct usb_emu *e, struct usb_emu_urb *u, int status,
				  int actual)
{
	struct usb_emu_urb **pp = &e->pending;
	while (*pp && *pp != u)
		pp = &(*pp)->next;
	if (*pp)
		*pp = u->next;
	usb_emu_urb_of(u)->status = status;
	usb_emu_urb_of(u)->actual_length = actual;
	u->next = NULL;
	pp = &e->done;
	while (*pp)
		pp = &(*pp)->next;
	*pp = u;
}

/* Completes an IN URB with the n bytes at src: they go into the client's
 * buffer (the first n bytes of it only). */
static inline void usb_emu_finish_in(struct usb_emu *e, struct usb_emu_urb *u,
				     const uint8_t *src, size_t n)
{
	if (n) {
		GError *err = NULL;
		u->buf = umockdev_ioctl_data_resolve(u->urb,
						     G_STRUCT_OFFSET(struct usbdevfs_urb, buffer),
						     n, &err);
		g_clear_error(&err);
		if (!u->buf) {
			usb_emu_finish(e, u, -EFAULT, 0);
			return;
		}
		memcpy(u->buf->data, src, n);
	}
	usb_emu_finish(e, u, 0, (int)n);
}

/* Device -> host bytes into the stage: from the peer, or the source. */
static inline void usb_emu_fill_stage(struct usb_emu *e)
{
	size_t room = USB_EMU_STAGE - e->stage_len;
	if (!room)
		return;
	if (e->peer) {
		long n = sim_peer_read(e->peer, e->stage + e->stage_len, room, 0);
		if (n > 0)
			e->stage_len += (size_t)n;
		return;
	}
	size_t n = e->source_left < room ? (size_t)e->source_left : room;
	for (size_t i = 0; i < n; i++)
		e->stage[e->stage_len + i] = (uint8_t)(e->source_pos + i);
	e->source_pos += n;
	e->source_left -= n;
	e->stage_len += n;
}

static inline void usb_emu_unstage(struct usb_emu *e, size_t n)
{
	memmove(e->stage, e->stage + n, e->stage_len - n);
	e->stage_len -= n;
	e->st.bytes_in += n;
}

/* The URBs' kernel side: with the device gone, every pending one fails. */
static inline void usb_emu_gone(struct usb_emu *e)
{
	e->unplugged = true;
	while (e->pending)
		usb_emu_finish(e, e->pending, -ESHUTDOWN, 0);
}

/*
 * Lets the device work: OUT URBs on the link endpoint deliver their bytes
 * (to the peer, or the sink) and complete; IN URBs, oldest first, take
 * what the device has sent. Called with mu held.
 */
static inline void usb_emu_progress(struct usb_emu *e, const void *client)
{
	unsigned ch = e->data_if;
	struct usb_emu_urb *u, *next;

	if (e->unplugged)
		return;
	for (u = e->pending; u; u = next) {
		struct usbdevfs_urb *urb = usb_emu_urb_of(u);
		next = u->next;
		if (!u->data_out || u->client != client)
			continue;
		if (usb_emu_is_ftdi(e) && !usb_emu_fifo_mode(e, ch))
			e->st.lost_out += (uint64_t)urb->buffer_length;
		else if (e->peer && urb->buffer_length)
			sim_peer_write(e->peer, u->buf->data, (size_t)urb->buffer_length);
		else
			e->st.sunk += (uint64_t)urb->buffer_length;
		e->st.bytes_out += (uint64_t)urb->buffer_length;
		usb_emu_finish(e, u, 0, urb->buffer_length);
		if (e->unplug_after && e->st.bytes_out >= e->unplug_after) {
			usb_emu_gone(e);
			return;
		}
	}
	for (u = e->pending; u; u = next) {
		struct usbdevfs_urb *urb = usb_emu_urb_of(u);
		size_t len = (size_t)urb->buffer_length;
		next = u->next;
		if (!u->data_in || u->client != client)
			continue; /* its buffer can be reached in its own ioctls only */
		bool fifo = !usb_emu_is_ftdi(e) || usb_emu_fifo_mode(e, ch);
		if (fifo)
			usb_emu_fill_stage(e);
		size_t avail = fifo ? e->stage_len : 0;
		if (e->short_max && avail > e->short_max)
			avail = e->short_max;
		if (!usb_emu_is_ftdi(e)) {
			if (e->zlps) {
				e->zlps--;
				e->st.zlps_sent++;
				usb_emu_finish(e, u, 0, 0);
				continue;
			}
			size_t n = avail < len ? avail : len;
			if (!n)
				break; /* the device NAKs: later URBs wait too */
			e->st.short_sent += n < len;
			usb_emu_finish_in(e, u, e->stage, n);
			usb_emu_unstage(e, n);
			continue;
		}
		/* FTDI: two status bytes, then up to MPS - 2 data bytes, per packet;
		 * a short packet ends the transfer. */
		if (len < 2) {
			usb_emu_finish(e, u, -EOVERFLOW, 0);
			continue;
		}
		/* With nothing to send, the chip answers the IN token at the head
		 * of the queue with status bytes alone when its latency timer
		 * (restarted by each packet) runs out. */
		double now = usb_emu_now_ms();
		double since = now - (u->t0 > e->in_last ? u->t0 : e->in_last);
		if (e->zlps) {
			e->zlps--;
			avail = 0;
		} else if (!avail && since < e->st.latency[ch]) {
			break;
		}
		e->in_last = now;
		size_t pos = 0, taken = 0;
		if (len > sizeof(e->pack))
			len = sizeof(e->pack);
		do {
			size_t k = USB_EMU_MPS - 2;
			if (k > avail - taken)
				k = avail - taken;
			if (pos + 2 + k > len)
				k = len - pos - 2;
			e->pack[pos] = 0x31;     /* modem status */
			e->pack[pos + 1] = 0x60; /* line status */
			memcpy(e->pack + pos + 2, e->stage + taken, k);
			pos += 2 + k;
			taken += k;
			if (k < USB_EMU_MPS - 2)
				break;
		} while (pos + 2 < len && taken < avail);
		usb_emu_unstage(e, taken);
		if (!taken)
			e->st.status_only++;
		e->st.short_sent += pos < (size_t)urb->buffer_length;
		usb_emu_finish_in(e, u, e->pack, pos);
	}
}

/* ---- the ioctl handler ------------------------------------------------------------------ */

static inline void usb_emu_free_urb(struct usb_emu_urb *u)
{
	if (u->buf)
		g_object_unref(u->buf);
	g_object_unref(u->urb);
	free(u);
}

/* The interface that has endpoint ep, or -1. */
static inline int usb_emu_iface_of(const struct usb_emu *e, unsigned ep)
{
	for (unsigned i = 0; i < e->n_ifaces; i++)
		if (ep == e->ep_in[i] || ep == e->ep_out[i] ||
		    (e->kind == USB_EMU_VENDOR && ep == 0x81))
			return (int)i;
	return -1;
}

/* An interface is claimed by one open file at a time, and not while a
 * kernel driver has it. */
static inline int usb_emu_claim(struct usb_emu *e, const void *client, unsigned itf)
{
	if (e->st.driver[itf][0] || (e->st.claimed[itf] && e->owner[itf] != client))
		return -EBUSY;
	e->st.claimed[itf] = true;
	e->owner[itf] = client;
	return 0;
}

static inline int usb_emu_submit(struct usb_emu *e, const void *client,
				 UMockdevIoctlData *arg)
{
	GError *err = NULL;
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb),
							   &err);
	struct usbdevfs_urb *urb;
	struct usb_emu_urb *u;

	if (!d) {
		g_clear_error(&err);
		return -EFAULT;
	}
	urb = (struct usbdevfs_urb *)d->data;
	if (urb->buffer_length < 0 ||
	    (urb->type != USBDEVFS_URB_TYPE_BULK && urb->type != USBDEVFS_URB_TYPE_CONTROL)) {
		g_object_unref(d);
		return -EINVAL;
	}
	if (urb->type == USBDEVFS_URB_TYPE_BULK) {
		int itf = usb_emu_iface_of(e, urb->endpoint);
		if (itf < 0) {
			g_object_unref(d);
			return -ENOENT;
		}
		int ret = usb_emu_claim(e, client, (unsigned)itf); /* implicitly, as usbfs */
		if (ret) {
			g_object_unref(d);
			return ret;
		}
	} else if (urb->buffer_length < 8) {
		g_object_unref(d);
		return -EINVAL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		g_object_unref(d);
		return -ENOMEM;
	}
	u->urb = d;
	u->client = client;
	u->addr = d->client_addr;
	u->t0 = usb_emu_now_ms();
	u->data_in = urb->type == USBDEVFS_URB_TYPE_BULK && urb->endpoint == e->ep_in[e->data_if];
	u->data_out = urb->type == USBDEVFS_URB_TYPE_BULK &&
		      urb->endpoint == e->ep_out[e->data_if];
	/* An IN buffer is fetched when data goes into it, only as much as goes
	 * (umockdev copies whatever is resolved both ways over its socket). */
	if (urb->buffer_length && !(urb->endpoint & 0x80 && urb->type == USBDEVFS_URB_TYPE_BULK)) {
		u->buf = umockdev_ioctl_data_resolve(d,
						     G_STRUCT_OFFSET(struct usbdevfs_urb, buffer),
						     (gsize)urb->buffer_length, &err);
		if (!u->buf) {
			g_clear_error(&err);
			g_object_unref(d);
			free(u);
			return -EFAULT;
		}
	}
	e->st.submits++;
	struct usb_emu_urb **pp = &e->pending; /* appended: submission order */
	while (*pp)
		pp = &(*pp)->next;
	*pp = u;

	if (urb->type == USBDEVFS_URB_TYPE_CONTROL) {
		int actual = 0;
		int st = usb_emu_control(e, u->buf->data, u->buf->data + 8,
					 (size_t)urb->buffer_length - 8, &actual);
		usb_emu_finish(e, u, st, actual);
		return 0;
	}
	if (u->data_in && ++e->st.in_flight_in > e->st.max_in_flight_in)
		e->st.max_in_flight_in = e->st.in_flight_in;
	if (u->data_out && ++e->st.in_flight_out > e->st.max_in_flight_out)
		e->st.max_in_flight_out = e->st.in_flight_out;
	usb_emu_progress(e, client);
	return 0;
}

/* The caller's oldest completed URB, or NULL; its link in *pp. */
static inline struct usb_emu_urb *usb_emu_done_of(struct usb_emu *e, const void *client,
						  struct usb_emu_urb ***pp)
{
	for (*pp = &e->done; **pp; *pp = &(**pp)->next)
		if ((**pp)->client == client)
			return **pp;
	return NULL;
}

/* REAPURB(NDELAY): hands the caller's oldest completed URB back. */
static inline int usb_emu_reap(struct usb_emu *e, const void *client, UMockdevIoctlData *arg)
{
	GError *err = NULL;
	struct usb_emu_urb *u, **pp;

	usb_emu_progress(e, client);
	if (!usb_emu_done_of(e, client, &pp) && !e->unplugged) {
		pthread_mutex_unlock(&e->mu);
		usleep(USB_EMU_IDLE_US);
		pthread_mutex_lock(&e->mu);
		usb_emu_progress(e, client);
	}
	u = usb_emu_done_of(e, client, &pp);
	if (!u)
		return e->unplugged ? -ENODEV : -EAGAIN;
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(void *), &err);
	if (!d) {
		g_clear_error(&err);
		return -EFAULT;
	}
	*pp = u->next;
	umockdev_ioctl_data_set_ptr(d, 0, u->urb);
	g_object_unref(d);
	e->st.reaps++;
	if (u->data_in)
		e->st.in_flight_in--;
	if (u->data_out)
		e->st.in_flight_out--;
	usb_emu_free_urb(u);
	return 0;
}

/* DISCARDURB: the URB (by its client address) completes as cancelled. */
static inline int usb_emu_discard(struct usb_emu *e, const void *client, unsigned long addr)
{
	for (struct usb_emu_urb *u = e->pending; u; u = u->next) {
		if (u->addr == addr && u->client == client) {
			e->st.discards++;
			usb_emu_finish(e, u, -ENOENT, 0);
			return 0;
		}
	}
	return -EINVAL;
}

/* Resolves the ioctl's argument struct of size n; NULL on failure. */
static inline UMockdevIoctlData *usb_emu_arg(UMockdevIoctlClient *client, size_t n)
{
	GError *err = NULL;
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(umockdev_ioctl_client_get_arg(client),
							   0, n, &err);
	g_clear_error(&err);
	return d;
}

static inline int usb_emu_iface_arg(struct usb_emu *e, UMockdevIoctlClient *client,
				    unsigned *itf)
{
	UMockdevIoctlData *d = usb_emu_arg(client, sizeof(unsigned));
	if (!d)
		return -EFAULT;
	memcpy(itf, d->data, sizeof(*itf));
	g_object_unref(d);
	return *itf < e->n_ifaces ? 0 : -ENOENT;
}

static inline int usb_emu_ioctl(struct usb_emu *e, UMockdevIoctlClient *client)
{
	unsigned long req = umockdev_ioctl_client_get_request(client);
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	UMockdevIoctlData *d;
	unsigned itf;
	int ret;

	e->st.ioctls++;
	if (e->unplugged && req != USBDEVFS_REAPURB && req != USBDEVFS_REAPURBNDELAY)
		return -ENODEV;
	switch (req) {
	case USBDEVFS_GET_CAPABILITIES: {
		uint32_t caps = USBDEVFS_CAP_BULK_SCATTER_GATHER | USBDEVFS_CAP_BULK_CONTINUATION |
				USBDEVFS_CAP_NO_PACKET_SIZE_LIM | USBDEVFS_CAP_ZERO_PACKET |
				USBDEVFS_CAP_REAP_AFTER_DISCONNECT;
		d = usb_emu_arg(client, sizeof(caps));
		if (!d)
			return -EFAULT;
		memcpy(d->data, &caps, sizeof(caps));
		g_object_unref(d);
		return 0;
	}
	case USBDEVFS_CLAIMINTERFACE:
		ret = usb_emu_iface_arg(e, client, &itf);
		if (ret)
			return ret;
		return usb_emu_claim(e, client, itf);
	case USBDEVFS_RELEASEINTERFACE:
		ret = usb_emu_iface_arg(e, client, &itf);
		if (ret)
			return ret;
		if (!e->st.claimed[itf] || e->owner[itf] != client)
			return -EINVAL;
		e->st.claimed[itf] = false;
		e->owner[itf] = NULL;
		return 0;
	case USBDEVFS_SETINTERFACE: {
		struct usbdevfs_setinterface si;
		d = usb_emu_arg(client, sizeof(si));
		if (!d)
			return -EFAULT;
		memcpy(&si, d->data, sizeof(si));
		g_object_unref(d);
		if (si.interface >= e->n_ifaces || si.altsetting != 0)
			return -EINVAL;
		e->st.set_interface++;
		return 0;
	}
	case USBDEVFS_GETDRIVER: {
		struct usbdevfs_getdriver gd;
		d = usb_emu_arg(client, sizeof(gd));
		if (!d)
			return -EFAULT;
		memcpy(&gd, d->data, sizeof(gd));
		if (gd.interface >= e->n_ifaces || !e->st.driver[gd.interface][0]) {
			g_object_unref(d);
			return -ENODATA;
		}
		snprintf(((struct usbdevfs_getdriver *)d->data)->driver,
			 sizeof(gd.driver), "%s", e->st.driver[gd.interface]);
		g_object_unref(d);
		return 0;
	}
	case USBDEVFS_IOCTL: {
		struct usbdevfs_ioctl io;
		d = usb_emu_arg(client, sizeof(io));
		if (!d)
			return -EFAULT;
		memcpy(&io, d->data, sizeof(io));
		g_object_unref(d);
		if (io.ifno < 0 || (unsigned)io.ifno >= e->n_ifaces)
			return -EINVAL;
		if ((unsigned)io.ioctl_code == USBDEVFS_DISCONNECT) {
			if (!e->st.driver[io.ifno][0])
				return -ENODATA;
			e->st.driver[io.ifno][0] = '\0';
			e->st.detached++;
			return 0;
		}
		if ((unsigned)io.ioctl_code == USBDEVFS_CONNECT) {
			if (e->st.claimed[io.ifno])
				return -EBUSY;
			if (!usb_emu_is_ftdi(e) || e->st.driver[io.ifno][0])
				return 0;
			snprintf(e->st.driver[io.ifno], sizeof(e->st.driver[0]), "ftdi_sio");
			e->st.attached++;
			return 1;
		}
		return -ENOTTY;
	}
	case USBDEVFS_DISCONNECT_CLAIM: {
		struct usbdevfs_disconnect_claim dc;
		d = usb_emu_arg(client, sizeof(dc));
		if (!d)
			return -EFAULT;
		memcpy(&dc, d->data, sizeof(dc));
		g_object_unref(d);
		if (dc.interface >= e->n_ifaces)
			return -EINVAL;
		dc.driver[sizeof(dc.driver) - 1] = '\0';
		const char *bound = e->st.driver[dc.interface];
		bool unbind = bound[0] &&
			      (((dc.flags & USBDEVFS_DISCONNECT_CLAIM_IF_DRIVER) &&
				!strcmp(bound, dc.driver)) ||
			       ((dc.flags & USBDEVFS_DISCONNECT_CLAIM_EXCEPT_DRIVER) &&
				strcmp(bound, dc.driver)) ||
			       !(dc.flags & 3));
		if (unbind) {
			e->st.driver[dc.interface][0] = '\0';
			e->st.detached++;
		}
		return usb_emu_claim(e, client, dc.interface);
	}
	case USBDEVFS_CONTROL: {
		struct usbdevfs_ctrltransfer ct;
		uint8_t setup[8], tmp[4096];
		int actual = 0;
		d = usb_emu_arg(client, sizeof(ct));
		if (!d)
			return -EFAULT;
		memcpy(&ct, d->data, sizeof(ct));
		setup[0] = ct.bRequestType;
		setup[1] = ct.bRequest;
		memcpy(setup + 2, &ct.wValue, 2);
		memcpy(setup + 4, &ct.wIndex, 2);
		memcpy(setup + 6, &ct.wLength, 2);
		ret = usb_emu_control(e, setup, tmp, sizeof(tmp), &actual);
		if (!ret && actual && (ct.bRequestType & 0x80)) {
			GError *err = NULL;
			UMockdevIoctlData *b = umockdev_ioctl_data_resolve(
				d, G_STRUCT_OFFSET(struct usbdevfs_ctrltransfer, data),
				ct.wLength, &err);
			g_clear_error(&err);
			if (b) {
				memcpy(b->data, tmp, (size_t)actual);
				g_object_unref(b);
			}
		}
		g_object_unref(d);
		return ret ? ret : actual;
	}
	case USBDEVFS_SUBMITURB:
		return usb_emu_submit(e, client, arg);
	case USBDEVFS_REAPURB:
	case USBDEVFS_REAPURBNDELAY:
		return usb_emu_reap(e, client, arg);
	case USBDEVFS_DISCARDURB: {
		unsigned long addr;
		memcpy(&addr, arg->data, sizeof(addr));
		return usb_emu_discard(e, client, addr);
	}
	case USBDEVFS_DISCSIGNAL:
	case USBDEVFS_CLEAR_HALT:
	case USBDEVFS_RESETEP:
	case USBDEVFS_RESET:
		return 0;
	default:
		return -ENOTTY;
	}
}

static gboolean usb_emu_handle_ioctl(UMockdevIoctlBase *base, UMockdevIoctlClient *client,
				     gpointer user)
{
	struct usb_emu *e = user;
	(void)base;
	pthread_mutex_lock(&e->mu);
	int ret = usb_emu_ioctl(e, client);
	pthread_mutex_unlock(&e->mu);
	umockdev_ioctl_client_complete(client, ret < 0 ? -1 : ret, ret < 0 ? -ret : 0);
	return TRUE;
}

/* ---- devices in the testbed ------------------------------------------------------------------ */

/*
 * A new device of that kind in tb, on bus 1 with the next free address,
 * serial number serial (NULL: none); its link bytes go to and come from
 * peer (NULL: sink and source). NULL on failure (reason on stderr).
 */
static inline struct usb_emu *usb_emu_add(UMockdevTestbed *tb, enum usb_emu_kind kind,
					  const char *serial, struct sim_peer *peer)
{
	static unsigned next_dev = 2;
	struct usb_emu *e = calloc(1, sizeof(*e));
	GError *err = NULL;
	GString *s;

	if (!e)
		return NULL;
	e->tb = tb;
	e->kind = kind;
	e->bus = 1;
	e->dev = next_dev++;
	e->vid = kind == USB_EMU_VENDOR ? 0x1209 : 0x0403;
	e->pid = kind == USB_EMU_VENDOR ? 0x0001 : kind == USB_EMU_FT232H ? 0x6014 : 0x6010;
	e->peer = peer;
	snprintf(e->serial, sizeof(e->serial), "%s", serial ? serial : "");
	pthread_mutex_init(&e->mu, NULL);
	usb_emu_descriptors(e);
	for (unsigned i = 0; i < e->n_ifaces; i++) {
		if (usb_emu_is_ftdi(e))
			snprintf(e->st.driver[i], sizeof(e->st.driver[i]), "ftdi_sio");
		e->st.latency[i] = 16; /* the chip's default */
	}
	snprintf(e->devnode, sizeof(e->devnode), "/dev/bus/usb/%03u/%03u", e->bus, e->dev);
	snprintf(e->syspath, sizeof(e->syspath),
		 "/sys/devices/pci0000:00/0000:00:14.0/usb%u/%u-%u", e->bus, e->bus, e->dev);

	s = g_string_new(NULL);
	g_string_append_printf(s, "P: %s\nN: %s\n", e->syspath + 4, e->devnode + 5);
	g_string_append_printf(s, "E: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: DRIVER=usb\n"
			       "E: DEVNAME=%s\nE: BUSNUM=%03u\nE: DEVNUM=%03u\n"
			       "E: PRODUCT=%x/%x/%x\n", e->devnode, e->bus, e->dev,
			       e->vid, e->pid, e->desc[12] | e->desc[13] << 8);
	g_string_append_printf(s, "A: idVendor=%04x\nA: idProduct=%04x\nA: busnum=%u\n"
			       "A: devnum=%u\nA: speed=480\nA: bConfigurationValue=1\n"
			       "A: bNumInterfaces=%u\nA: manufacturer=%s\nA: product=%s\n",
			       e->vid, e->pid, e->bus, e->dev, e->n_ifaces,
			       usb_emu_string(e, 1), usb_emu_string(e, 2));
	if (e->serial[0])
		g_string_append_printf(s, "A: serial=%s\n", e->serial);
	g_string_append(s, "H: descriptors=");
	for (size_t i = 0; i < e->desc_len; i++)
		g_string_append_printf(s, "%02x", e->desc[i]);
	g_string_append(s, "\n\n");
	bool ok = umockdev_testbed_add_from_string(tb, s->str, &err);
	g_string_free(s, TRUE);
	if (!ok) {
		fprintf(stderr, "usb_emu: cannot add %s: %s\n", e->syspath, err->message);
		g_clear_error(&err);
		pthread_mutex_destroy(&e->mu);
		free(e);
		return NULL;
	}
	e->handler = umockdev_ioctl_base_new();
	e->signal = g_signal_connect(e->handler, "handle-ioctl",
				     G_CALLBACK(usb_emu_handle_ioctl), e);
	if (!umockdev_testbed_attach_ioctl(tb, e->devnode, e->handler, &err)) {
		fprintf(stderr, "usb_emu: cannot attach to %s: %s\n", e->devnode, err->message);
		g_clear_error(&err);
		umockdev_testbed_remove_device(tb, e->syspath);
		g_signal_handler_disconnect(e->handler, e->signal);
		g_object_unref(e->handler);
		pthread_mutex_destroy(&e->mu);
		free(e);
		return NULL;
	}
	return e;
}

/* The device leaves sysfs (a "remove" uevent; libusb's hot-plug sees it). */
static inline void usb_emu_remove_sysfs(struct usb_emu *e)
{
	if (e->removed)
		return;
	e->removed = true;
	umockdev_testbed_uevent(e->tb, e->syspath, "remove");
	umockdev_testbed_remove_device(e->tb, e->syspath);
}

/*
 * Unplugs the device: from now on every ioctl fails with ENODEV (REAPURB
 * first hands back what had completed). With fail_urbs, the URBs in flight
 * complete with -ESHUTDOWN, as the kernel's do when the device goes; without,
 * they are never completed (only the hot-plug event tells). Then the device
 * leaves sysfs.
 */
static inline void usb_emu_unplug(struct usb_emu *e, bool fail_urbs)
{
	pthread_mutex_lock(&e->mu);
	if (fail_urbs)
		usb_emu_gone(e);
	else
		e->unplugged = true;
	pthread_mutex_unlock(&e->mu);
	usb_emu_remove_sysfs(e);
}

/* Arms an unplug from the handler's thread once the device has received
 * out_bytes (URBs in flight fail with -ESHUTDOWN). */
static inline void usb_emu_unplug_after(struct usb_emu *e, uint64_t out_bytes)
{
	pthread_mutex_lock(&e->mu);
	e->unplug_after = e->st.bytes_out + out_bytes;
	pthread_mutex_unlock(&e->mu);
}

/* Makes the source send n more bytes (peer NULL only). */
static inline void usb_emu_source(struct usb_emu *e, uint64_t n)
{
	pthread_mutex_lock(&e->mu);
	e->source_left += n;
	pthread_mutex_unlock(&e->mu);
}

/* A consistent copy of the device's state and counters. */
static inline struct usb_emu_stats usb_emu_snapshot(struct usb_emu *e)
{
	pthread_mutex_lock(&e->mu);
	struct usb_emu_stats st = e->st;
	pthread_mutex_unlock(&e->mu);
	return st;
}

/* Injects faults into the IN direction: the next zlps completions carry no
 * data (a zero-length packet; FTDI: a status-only packet), and while
 * short_max is nonzero no completion carries more than that many bytes. */
static inline void usb_emu_inject_in(struct usb_emu *e, unsigned zlps, unsigned short_max)
{
	pthread_mutex_lock(&e->mu);
	e->zlps = zlps;
	e->short_max = short_max;
	pthread_mutex_unlock(&e->mu);
}

/* FT2232H: the link is on interface (channel) itf, 0 = A, 1 = B. */
static inline void usb_emu_set_data_iface(struct usb_emu *e, unsigned itf)
{
	pthread_mutex_lock(&e->mu);
	e->data_if = itf < e->n_ifaces ? itf : 0;
	pthread_mutex_unlock(&e->mu);
}

/* Removes the device and frees e; call after the host has closed it. */
static inline void usb_emu_free(struct usb_emu *e)
{
	if (!e)
		return;
	g_signal_handler_disconnect(e->handler, e->signal);
	umockdev_testbed_detach_ioctl(e->tb, e->devnode, NULL);
	usb_emu_remove_sysfs(e);
	g_object_unref(e->handler);
	pthread_mutex_lock(&e->mu);
	while (e->pending) {
		struct usb_emu_urb *u = e->pending;
		e->pending = u->next;
		usb_emu_free_urb(u);
	}
	while (e->done) {
		struct usb_emu_urb *u = e->done;
		e->done = u->next;
		usb_emu_free_urb(u);
	}
	pthread_mutex_unlock(&e->mu);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

#endif /* FTPU_USB_EMU_H */
