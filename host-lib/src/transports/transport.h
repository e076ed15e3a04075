/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport.h - how libftpu moves link bytes (docs/protocol.md) to and from
 * a device. One ops table per URI scheme; the runtime (host-lib/src/
 * device.c) speaks the protocol on top and never knows which it has. The
 * backends live in host-lib/src/transports/; this header is also all that
 * the simulated devices (sim/sim_transport.c) see of the library.
 */
#ifndef FTPU_TRANSPORT_H
#define FTPU_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct ftpu_transport_ops {
	const char *scheme; /* "sim", "ref", ... */
	/*
	 * Opens a device from the URI's options (the text after "scheme:",
	 * "" when none). On failure returns a negative status and writes a
	 * one-line reason into err (err_len bytes, NUL-terminated).
	 */
	int (*open)(const char *opts, void **ctx, char *err, size_t err_len);
	void (*close)(void *ctx);
	/* Sends all n bytes or fails (a negative status). */
	int (*write)(void *ctx, const void *buf, size_t n);
	/*
	 * Receives up to cap bytes, waiting at most timeout_ms for the first.
	 * Returns the count (> 0), 0 when none came in time, or a negative
	 * status; FTPU_ERR_TIMEOUT at once when the transport knows nothing
	 * can come (a simulated device that is idle with nothing to send).
	 */
	long (*read)(void *ctx, void *buf, size_t cap, unsigned timeout_ms);
	/*
	 * Optional (NULL when the scheme has nothing to discover): calls
	 * found() once for every device of this scheme that may be present on
	 * this machine, with a URI that open() takes and a short description
	 * ("FT2232H 0403:6010 bus 1 dev 4", "/dev/ttyUSB1"); found() returns
	 * nonzero to stop. Does not open the link or speak the protocol
	 * (ftpu list then opens each URI and asks for INFO). Returns 0, or a
	 * negative status with a reason in err.
	 */
	int (*enumerate)(int (*found)(void *arg, const char *uri, const char *what),
			 void *arg, char *err, size_t err_len);
	/*
	 * Optional (NULL when the scheme has none): calls found() once for
	 * every in-process device of this scheme that this program can open
	 * ("sim:board=icebreaker" when its model is linked, "ref"), with its
	 * URI and a short description, without opening it (ftpu_builtin_devices,
	 * ftpu list). Returns the first nonzero found() returned, else 0.
	 */
	int (*builtin)(int (*found)(void *arg, const char *uri, const char *what),
		       void *arg);
};

/* "sim" comes from the simulated-device library (sim/sim_transport.c); a
 * program linked without it gets libftpu's weak stand-in (sim_missing.c),
 * which fails with FTPU_ERR_UNSUPPORTED. */
extern const struct ftpu_transport_ops ftpu_transport_sim;
extern const struct ftpu_transport_ops ftpu_transport_ref;
extern const struct ftpu_transport_ops ftpu_transport_uart; /* uart_transport.c */
extern const struct ftpu_transport_ops ftpu_transport_usb;  /* usb_transport.c */
extern const struct ftpu_transport_ops ftpu_transport_xdma; /* xdma_transport.c */

/* A monotonic clock in seconds (CLOCK_MONOTONIC): every timeout and
 * timing in libftpu and its transports. */
double ftpu__now_s(void);

/*
 * Called by a transport's read or write before it returns a negative
 * status: the reason ("uart /dev/ttyUSB1: disconnected"), which the
 * runtime puts into ftpu_last_error(dev). Kept per thread: the op runs on
 * the thread that holds the device's lock.
 */
void ftpu__transport_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FTPU_TRANSPORT_H */
