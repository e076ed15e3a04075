/* SPDX-License-Identifier: Apache-2.0 */
/* xdma_transport.c - placeholder while the xdma transport is written (issue 6). */
#include <stdio.h>

#include "ftpu.h"
#include "transport.h"

static int xdma_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	(void)opts;
	(void)ctx;
	snprintf(err, err_len, "the xdma transport is not in this build");
	return FTPU_ERR_UNSUPPORTED;
}

static void xdma_close(void *ctx) { (void)ctx; }
static int xdma_write(void *ctx, const void *buf, size_t n)
{
	(void)ctx; (void)buf; (void)n;
	return FTPU_ERR_UNSUPPORTED;
}
static long xdma_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	(void)ctx; (void)buf; (void)cap; (void)timeout_ms;
	return FTPU_ERR_UNSUPPORTED;
}

const struct ftpu_transport_ops ftpu_transport_xdma = {
	.scheme = "xdma",
	.open = xdma_open,
	.close = xdma_close,
	.write = xdma_write,
	.read = xdma_read,
};
