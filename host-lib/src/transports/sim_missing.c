/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sim_missing.c - the "sim" scheme when the program was linked without the
 * simulated devices: a weak ftpu_transport_sim that sim/sim_transport.c
 * (linked with the device models, and into libftpu.so) overrides. Keeps
 * "sim" a known scheme that fails with FTPU_ERR_UNSUPPORTED, and says what
 * a user of the installed library can do: a program linked with libftpu.a
 * gets here, and mk/models.mk (how the source tree links the models) is
 * not installed.
 */
#include <stdio.h>

#include "ftpu.h"
#include "transport.h"

static int missing_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	(void)opts;
	(void)ctx;
	snprintf(err, err_len, "this program was linked with the static libftpu.a, "
		 "which has no simulated device: link the shared library (-lftpu, "
		 "as pkg-config --libs ftpu gives) for \"sim\", or open \"ref\" "
		 "(the bit-exact C model)");
	return FTPU_ERR_UNSUPPORTED;
}

static void missing_close(void *ctx)
{
	(void)ctx;
}

static int missing_write(void *ctx, const void *buf, size_t n)
{
	(void)ctx, (void)buf, (void)n;
	return FTPU_ERR_UNSUPPORTED;
}

static long missing_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	(void)ctx, (void)buf, (void)cap, (void)timeout_ms;
	return FTPU_ERR_UNSUPPORTED;
}

__attribute__((weak)) const struct ftpu_transport_ops ftpu_transport_sim = {
	.scheme = "sim",
	.open = missing_open,
	.close = missing_close,
	.write = missing_write,
	.read = missing_read,
};
