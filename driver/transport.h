/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport.h - how libftpu moves link bytes (docs/protocol.md) to and from
 * a device. One ops table per URI scheme; the runtime (host-lib/src/
 * device.c) speaks the protocol on top and never knows which it has.
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
};

extern const struct ftpu_transport_ops ftpu_transport_sim;
extern const struct ftpu_transport_ops ftpu_transport_ref;
extern const struct ftpu_transport_ops ftpu_transport_uart; /* uart_transport.c */
extern const struct ftpu_transport_ops ftpu_transport_usb;  /* usb_transport.c */
extern const struct ftpu_transport_ops ftpu_transport_xdma; /* xdma_transport.c */

#endif /* FTPU_TRANSPORT_H */
