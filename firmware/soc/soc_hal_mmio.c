/* SPDX-License-Identifier: Apache-2.0 */
/* soc_hal_mmio.c - soc_hal.h on the iCEBreaker SoC's control core: the
 * UART, busy LED and array registers of spec/ftpu.toml [enum.soc_mmio]
 * (FTPU_SOC_*), mcycle, and the SYS watchdog (docs/firmware.md §2). */
#include "soc_hal.h"

#include "../hal_mmio.h"
#include "ftpu_regs.h"

/* The registers' fields as [enum.soc_mmio] describes them (the spec
 * generates their addresses, not these). */
#define UART_RX_VALID (1u << 8) /* UART_RX: a byte was popped, in 7:0 */
#define UART_TX_FULL 1u         /* UART_TX read: the FIFO is full */
#define ARRAY_ACT_BUF1 0x80u    /* ARRAY_ACT + this: weight buffer 1 */
#define ARRAY_READY 1u          /* ARRAY_STATUS: the result is there */

/* The array answers a vector in tens of cycles: polls before giving up. */
#define ARRAY_POLLS 1000u
/* The UART takes a byte every 80 cycles: a FIFO still full after this many
 * polls (a pump each, ~10^6 cycles) is stuck; the write then waits on the
 * bus, and the watchdog ends that. */
#define TX_POLLS 20000u

/* mcycle alone: the SoC's core keeps 32 bits (FullCounters 0), extended
 * here by the turns it has made since the last call. */
uint64_t soc_hal_cycles(void)
{
	static uint64_t total;
	static uint32_t last;
	uint32_t now;
	__asm__ volatile("csrr %0, mcycle" : "=r"(now));
	total += now - last;
	last = now;
	return total;
}

void soc_hal_pump(struct soc_ring *r)
{
	/* locals: a byte store could alias *r, which would be reloaded */
	uint8_t *buf = r->buf;
	uint32_t mask = r->mask, h = r->head, full = r->tail + mask + 1u, lost = 0, v;

	mmio_write(FTPU_MMIO_SYS(FTPU_SYS_WDOG), FW_WDOG_CYCLES);
	while ((v = mmio_read(FTPU_SOC_UART_RX)) & UART_RX_VALID) {
		if (h != full)
			buf[h++ & mask] = (uint8_t)v;
		else
			lost++;
	}
	if (h != r->head || lost) {
		r->head = h;
		r->lost += lost;
		__asm__ volatile("csrr %0, mcycle" : "=r"(r->last_in));
	}
}

void soc_hal_tx(struct soc_ring *r, const uint8_t *p, unsigned n)
{
	while (n--) {
		for (unsigned i = 0; i < TX_POLLS && (mmio_read(FTPU_SOC_UART_TX) & UART_TX_FULL); i++)
			soc_hal_pump(r);
		mmio_write(FTPU_SOC_UART_TX, *p++);
	}
}

void soc_hal_busy(bool on)
{
	mmio_write(FTPU_SOC_BUSY, on);
}

void soc_hal_array_row(unsigned buf, unsigned row, const uint32_t *w, unsigned n)
{
	mmio_write(FTPU_SOC_ARRAY_WROW, buf | row << 1);
	for (unsigned k = 0; k < n / 2; k++)
		mmio_write(FTPU_SOC_ARRAY_WDATA + 4u * k, w[k]);
}

bool soc_hal_array_vector(unsigned buf, const uint32_t *psum,
			  const uint32_t *act, uint32_t *out, unsigned n)
{
	uint32_t act_at = FTPU_SOC_ARRAY_ACT + (buf ? ARRAY_ACT_BUF1 : 0);
	unsigned i = 0;
	for (unsigned c = 0; c < n; c++)
		mmio_write(FTPU_SOC_ARRAY_PSUM + 4u * c, psum[c]);
	for (unsigned k = 0; k < n / 2; k++) /* the last word sends it */
		mmio_write(act_at + 4u * k, act[k]);
	while (!(mmio_read(FTPU_SOC_ARRAY_STATUS) & ARRAY_READY) && i < ARRAY_POLLS)
		i++;
	for (unsigned c = 0; c < n; c++)
		out[c] = mmio_read(FTPU_SOC_ARRAY_RESULT + 4u * c);
	return i < ARRAY_POLLS;
}
