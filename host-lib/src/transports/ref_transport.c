/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_transport.c - the "ref" URI: the C model of the device
 * (ref_device.h) in process; "ref:rows=4" is it in sim:rows=4's
 * configuration, "ref:board=NAME" in a board's (its array, memories and
 * link width, no vector unit: develop for a board without one). It executes every frame the moment its bytes
 * arrive, so a read finds everything the device will ever send.
 */
#include <stdio.h>
#include <string.h>

#include "ftpu.h"
#include "ref_device.h"
#include "transport.h"
#include "uri.h"

static int ref_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	struct ftpu_ref_device_config cfg;
	struct ftpu_ref_device *d;
	int ret;

	bool rows4;
	int board;
	ret = ftpu__uri_parse_ref(opts, &rows4, &board, err, err_len);
	if (ret)
		return ret;
	/* spec/ftpu.toml's configurations: [device.device_4p] as sim:rows=4,
	 * the boards' in the order of ftpu__sim_boards */
	static const struct ftpu_ref_device_config boards[] = {
		FTPU_REF_DEVICE_SPEC_CONFIG(ICEBREAKER), FTPU_REF_DEVICE_SPEC_CONFIG(TANGNANO20K),
		FTPU_REF_DEVICE_SPEC_CONFIG(ULX3S),	 FTPU_REF_DEVICE_SPEC_CONFIG(ULX3S_45F),
		FTPU_REF_DEVICE_SPEC_CONFIG(ULX3S_25F),
	};
	ftpu_ref_device_default_config(&cfg);
	if (rows4)
		cfg = (struct ftpu_ref_device_config)FTPU_REF_DEVICE_SPEC_CONFIG(DEVICE_4P);
	else if (board >= 0 && (size_t)board < sizeof(boards) / sizeof(boards[0]))
		cfg = boards[board];
	ret = ftpu_ref_device_open(&cfg, &d);
	if (ret) {
		snprintf(err, err_len, "cannot create the C device model: %s",
			 ftpu_strerror(ret));
		return ret;
	}
	*ctx = d;
	return FTPU_OK;
}

static void ref_close(void *ctx)
{
	ftpu_ref_device_close(ctx);
}

static int ref_write(void *ctx, const void *buf, size_t n)
{
	return ftpu_ref_device_write(ctx, buf, n);
}

static long ref_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	(void)timeout_ms;
	if (!ftpu_ref_device_pending(ctx))
		return FTPU_ERR_TIMEOUT; /* it has answered everything it will */
	return (long)ftpu_ref_device_read(ctx, buf, cap);
}

static int ref_builtin(int (*found)(void *arg, const char *uri, const char *what),
		       void *arg)
{
	return found(arg, "ref", "the C model of the device (bit-exact, fast)");
}

const struct ftpu_transport_ops ftpu_transport_ref = {
	.scheme = "ref",
	.open = ref_open,
	.close = ref_close,
	.write = ref_write,
	.read = ref_read,
	.builtin = ref_builtin,
};
