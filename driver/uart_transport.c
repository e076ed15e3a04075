/* SPDX-License-Identifier: Apache-2.0 */
/* uart_transport.c - placeholder while the uart transport is written (issue 6). */
#include <stdio.h>

#include "ftpu.h"
#include "transport.h"

static int uart_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	(void)opts;
	(void)ctx;
	snprintf(err, err_len, "the uart transport is not in this build");
	return FTPU_ERR_UNSUPPORTED;
}

static void uart_close(void *ctx) { (void)ctx; }
static int uart_write(void *ctx, const void *buf, size_t n)
{
	(void)ctx; (void)buf; (void)n;
	return FTPU_ERR_UNSUPPORTED;
}
static long uart_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	(void)ctx; (void)buf; (void)cap; (void)timeout_ms;
	return FTPU_ERR_UNSUPPORTED;
}

const struct ftpu_transport_ops ftpu_transport_uart = {
	.scheme = "uart",
	.open = uart_open,
	.close = uart_close,
	.write = uart_write,
	.read = uart_read,
};
