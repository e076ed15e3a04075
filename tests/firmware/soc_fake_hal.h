/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_fake_hal.h - firmware/soc/soc_hal.h on the host, for
 * tests/firmware/test_soc_device.c: the UART's received bytes come from a
 * buffer (a chosen number per pump: the line's speed against the
 * firmware's), sent bytes go to a buffer, time is a counter that each
 * reading advances, and the 2x2 (N x N) array is computed with
 * ftpu_ref_step by the formula of soc_hal.h, as docs/numerics.md defines
 * the PE chain. The RTL test checks the real array against the same.
 */
#ifndef SOC_FAKE_HAL_H
#define SOC_FAKE_HAL_H

#include <stdlib.h>
#include <string.h>

#include "ftpu_test.h"
#include "numeric.h"

/* How many of the waiting bytes a pump moves. */
enum fake_rate {
	FAKE_ALL,    /* every byte sent so far: the line outruns the firmware */
	FAKE_FIXED,  /* fake.rate bytes */
	FAKE_RANDOM, /* 0 .. fake.rate bytes */
};

static struct fake {
	/* wire: bytes the host has sent; [0, in_pos) are in the ring */
	uint8_t *in;
	size_t in_len, in_pos, in_cap;
	enum fake_rate mode;
	unsigned rate;
	bool tx_pumps; /* the transmitter is "full" now and then: it pumps */
	struct rng rng;
	/* what the device sent */
	uint8_t *out;
	size_t out_len, out_cap;
	uint64_t cycles;
	bool busy;
	uint32_t ring_peak; /* the most bytes the ring held */
	/* the array's weight buffers, [buffer][row][column] */
	uint16_t tile[2][SOC_MAX_N][SOC_MAX_N];
	unsigned long vectors;
	bool array_late; /* the array's result never shows in time */
} fake;

static void *fake_grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	p = realloc(p, c);
	assert_non_null(p);
	*cap = c;
	return p;
}

/* The host puts bytes on the wire. */
static void fake_send(const void *p, size_t n)
{
	fake.in = fake_grow(fake.in, &fake.in_cap, fake.in_len + n);
	memcpy(fake.in + fake.in_len, p, n);
	fake.in_len += n;
}

static void fake_reset(enum fake_rate mode, unsigned rate, uint64_t seed)
{
	free(fake.in);
	free(fake.out);
	memset(&fake, 0, sizeof(fake));
	fake.mode = mode;
	fake.rate = rate;
	fake.rng.s = seed;
}

uint64_t soc_hal_cycles(void)
{
	return ++fake.cycles;
}

void soc_hal_pump(struct soc_ring *r)
{
	size_t n = fake.in_len - fake.in_pos;
	if (fake.mode == FAKE_FIXED && n > fake.rate)
		n = fake.rate;
	else if (fake.mode == FAKE_RANDOM) {
		size_t k = rng_below(&fake.rng, fake.rate + 1);
		if (n > k)
			n = k;
	}
	for (size_t i = 0; i < n; i++) {
		if (r->head - r->tail <= r->mask)
			r->buf[r->head++ & r->mask] = fake.in[fake.in_pos];
		else
			r->lost++;
		fake.in_pos++;
		fake.busy = true; /* popping a byte sets the LED */
	}
	if (n)
		r->last_in = (uint32_t)soc_hal_cycles();
	if (r->head - r->tail > fake.ring_peak)
		fake.ring_peak = r->head - r->tail;
}

void soc_hal_tx(struct soc_ring *r, const uint8_t *p, unsigned n)
{
	fake.out = fake_grow(fake.out, &fake.out_cap, fake.out_len + n);
	memcpy(fake.out + fake.out_len, p, n);
	fake.out_len += n;
	if (fake.tx_pumps && rng_below(&fake.rng, 4) == 0)
		soc_hal_pump(r); /* as while waiting for room */
}

void soc_hal_busy(bool on)
{
	fake.busy = on;
}

void soc_hal_array_row(unsigned buf, unsigned row, const uint32_t *w, unsigned n)
{
	assert_true(buf < 2 && row < n && n <= SOC_MAX_N);
	for (unsigned k = 0; k < n; k++)
		fake.tile[buf][row][k] = (uint16_t)(w[k / 2] >> (16 * (k % 2)));
}

bool soc_hal_array_vector(unsigned buf, const uint32_t *psum,
			  const uint32_t *act, uint32_t *out, unsigned n)
{
	uint32_t acc[SOC_MAX_N];
	assert_true(buf < 2 && n <= SOC_MAX_N);
	memcpy(acc, psum, n * sizeof(*acc)); /* psum may be out */
	for (unsigned c = 0; c < n; c++)
		for (unsigned r = 0; r < n; r++)
			acc[c] = ftpu_ref_step(acc[c], (uint16_t)(act[r / 2] >> (16 * (r % 2))),
					       fake.tile[buf][r][c]);
	memcpy(out, acc, n * sizeof(*acc));
	fake.vectors++;
	return !fake.array_late;
}

#endif /* SOC_FAKE_HAL_H */
