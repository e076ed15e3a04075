/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_control.h - the C model's answer to one CONTROL request
 * (model/ref_device.c), the golden value for the firmware's answers
 * (test_firmware on the host, test_rv32i on the core). Header-only, for
 * cmocka tests.
 */
#ifndef FTPU_REF_CONTROL_H
#define FTPU_REF_CONTROL_H

#include <stdint.h>
#include <string.h>

#include "ftpu.h"
#include "link.h"
#include "ref_device.h"

struct ref_control_rsp {
	uint32_t p[64];
	unsigned n;
};

static void ref_control_on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct ref_control_rsp *r = ctx;
	assert_int_equal(f->type, FTPU_LINK_RESPONSE);
	assert_true(f->len <= 64);
	memcpy(r->p, f->payload, f->len * 4u);
	r->n = f->len;
}

/* The RESPONSE payload (op, status, results) a fresh C model of cfg gives
 * to the CONTROL request req[0..n), into rsp (64 words); its length. */
static inline unsigned ref_control(const struct ftpu_ref_device_config *cfg,
				   const uint32_t *req, unsigned n, uint32_t *rsp)
{
	struct ftpu_ref_device *d;
	uint8_t in[256], out[1024];
	uint32_t buf[FTPU_LINK_MAX_PAYLOAD];
	struct ftpu_link_rx rx;
	struct ref_control_rsp r = { .n = 0 };
	const struct ftpu_link_rx_cb cb = { .frame = ref_control_on_frame, .ctx = &r };
	int len = ftpu_link_encode(FTPU_LINK_CONTROL, 1, 0, req, n, in, sizeof(in));

	assert_true(len > 0);
	assert_int_equal(ftpu_ref_device_open(cfg, &d), FTPU_OK);
	assert_int_equal(ftpu_ref_device_write(d, in, (size_t)len), FTPU_OK);
	size_t got = ftpu_ref_device_read(d, out, sizeof(out));
	ftpu_ref_device_close(d);
	assert_int_equal(ftpu_link_rx_init(&rx, buf, FTPU_LINK_MAX_PAYLOAD), FTPU_OK);
	assert_int_equal(ftpu_link_rx_push(&rx, out, got, &cb), FTPU_OK);
	assert_true(r.n >= 2);
	memcpy(rsp, r.p, r.n * 4u);
	return r.n;
}

#endif /* FTPU_REF_CONTROL_H */
