/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_hal.h - what the soft device (soc_device.c) needs from the hardware of
 * the iCEBreaker SoC: the UART (through a RAM ring the hal's pump fills),
 * the busy LED, a cycle counter and the 2x2 systolic array.
 * soc_hal_mmio.c implements it on the control core (rtl/soc/); the host
 * test (tests/firmware/test_soc_device.c) fakes it. No call fails or
 * blocks for good: every wait has a timeout.
 */
#ifndef FW_SOC_HAL_H
#define FW_SOC_HAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Received bytes on their way from the UART's FIFO to the link receiver:
 * the pump puts them at head, the device takes them at tail. Both count
 * bytes since the start (they wrap together); size is a power of two.
 */
struct soc_ring {
	uint8_t *buf;
	uint32_t mask;       /* size - 1 */
	uint32_t head, tail; /* bytes put, bytes taken */
	uint32_t last_in;    /* soc_hal_cycles() (low word) when a byte came in */
	uint32_t lost;       /* bytes the pump found no room for */
};

/*
 * Moves every byte the UART holds into r (a byte finding r full is counted
 * in r->lost and dropped: a host beyond its credit) and restarts the
 * watchdog. Cheap when nothing came: the device calls it between chunks of
 * work, so that the UART's 512-byte FIFO never fills (it does in ~41 000
 * cycles at 3 Mbaud and 24 MHz).
 */
void soc_hal_pump(struct soc_ring *r);

/* Queues n bytes for the UART, pumping r while its FIFO is full (a
 * transmitter stuck for good: the watchdog resets the core). */
void soc_hal_tx(struct soc_ring *r, const uint8_t *p, unsigned n);

/* The busy LED: on while the device has work (taking a byte sets it). */
void soc_hal_busy(bool on);

/* Clock cycles (mcycle), counted on in 64 bits: call it at least once
 * every 2^32 cycles (the main loop's idle turn does). */
uint64_t soc_hal_cycles(void);

/* Writes row `row` (n bf16: n / 2 words, element 2k in bits 15:0 of word
 * k) of the array's weight buffer `buf` (0 or 1). */
void soc_hal_array_row(unsigned buf, unsigned row, const uint32_t *w, unsigned n);

/*
 * Sends one vector of n bf16 (act, n / 2 words) through the array with
 * weight buffer buf, with top partial sums psum (n fp32), and reads the n
 * results into out: out[c] = the PE steps of column c from psum[c] over
 * act[0..n) and the buffer's rows 0..n (docs/numerics.md). psum and out
 * may be the same array. False when no result came within the hal's
 * timeout (out is then whatever the array shows).
 */
bool soc_hal_array_vector(unsigned buf, const uint32_t *psum,
			  const uint32_t *act, uint32_t *out, unsigned n);

#endif /* FW_SOC_HAL_H */
