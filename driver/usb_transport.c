/* SPDX-License-Identifier: Apache-2.0 */
/* usb_transport.c - placeholder while the usb transport is written (issue 6). */
#include <stdio.h>

#include "ftpu.h"
#include "transport.h"

static int usb_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	(void)opts;
	(void)ctx;
	snprintf(err, err_len, "the usb transport is not in this build");
	return FTPU_ERR_UNSUPPORTED;
}

static void usb_close(void *ctx) { (void)ctx; }
static int usb_write(void *ctx, const void *buf, size_t n)
{
	(void)ctx; (void)buf; (void)n;
	return FTPU_ERR_UNSUPPORTED;
}
static long usb_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	(void)ctx; (void)buf; (void)cap; (void)timeout_ms;
	return FTPU_ERR_UNSUPPORTED;
}

const struct ftpu_transport_ops ftpu_transport_usb = {
	.scheme = "usb",
	.open = usb_open,
	.close = usb_close,
	.write = usb_write,
	.read = usb_read,
};
