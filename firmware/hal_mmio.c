/* SPDX-License-Identifier: Apache-2.0 */
/* hal_mmio.c - hal.h and hal_mmio.h on the control core (rtl/cpu/). */
#include "hal_mmio.h"

#include "control.h"
#include "include/ftpu_regs.h"
#include "hal.h"
#include "link.h"

extern char __slot_base[], __slot_bytes[], __scratch[], __scratch_words[];

static struct fw_boot_record boot_record __attribute__((section(".noinit")));

/* Polls of MBOX_STATUS for the rest of a frame already in the mailbox. */
#define RX_POLLS 1000u

uint32_t fw_hal_reg_read(unsigned addr)
{
	return mmio_read(FTPU_MMIO_REG(addr));
}

void fw_hal_reg_write(unsigned addr, uint32_t value)
{
	mmio_write(FTPU_MMIO_REG(addr), value);
}

uint32_t fw_hal_slot_base(void)
{
	return (uint32_t)__slot_base;
}

uint32_t fw_hal_slot_bytes(void)
{
	return (uint32_t)__slot_bytes;
}

void fw_hal_slot_write(uint32_t off, uint32_t word)
{
	mmio_write((uint32_t)__slot_base + off, word);
}

uint32_t fw_hal_slot_read(uint32_t off)
{
	return mmio_read((uint32_t)__slot_base + off);
}

uint32_t *fw_hal_scratch(unsigned *words)
{
	*words = (unsigned)__scratch_words;
	return (uint32_t *)__scratch;
}

void fw_hal_kick(void)
{
	mmio_write(FTPU_MMIO_SYS(FTPU_SYS_WDOG), FW_WDOG_CYCLES);
}

struct fw_boot_record *fw_hal_boot_record(void)
{
	return &boot_record;
}

bool fw_hal_in_rom(void)
{
	uint32_t pc;
	__asm__("auipc %0, 0" : "=r"(pc));
	return pc < FTPU_RAM_BASE;
}

unsigned fw_hal_reset_cause(void)
{
	return mmio_read(FTPU_MMIO_SYS(FTPU_SYS_CAUSE));
}

void fw_hal_reboot(void)
{
	mmio_write(FTPU_MMIO_SYS(FTPU_SYS_CTRL), FTPU_MASK(SYS_CTRL_REBOOT));
	for (;;)
		;
}

static bool rx_valid(void)
{
	return mmio_read(FTPU_MMIO_MBOX(FTPU_MBOX_STATUS)) &
	       FTPU_MASK(MBOX_STATUS_RX_VALID);
}

/* The next word of a frame that is in the mailbox; 0 if it never comes. */
static uint32_t rx_word(void)
{
	for (unsigned i = 0; i < RX_POLLS; i++)
		if (rx_valid())
			return mmio_read(FTPU_MMIO_MBOX(FTPU_MBOX_RX));
	return 0;
}

bool fw_hal_request(uint32_t *req, unsigned *len, uint16_t *seq)
{
	uint32_t w1, w2;
	if (!rx_valid())
		return false;
	w1 = mmio_read(FTPU_MMIO_MBOX(FTPU_MBOX_RX));
	w2 = rx_word();
	*seq = (uint16_t)(w1 >> 16);
	*len = w2 & 0xffffu;
	for (unsigned i = 0; i < *len; i++) {
		uint32_t w = rx_word();
		if (i < FW_REQ_MAX)
			req[i] = w;
	}
	return true;
}

static void tx(unsigned reg, uint32_t w)
{
	while (mmio_read(FTPU_MMIO_MBOX(FTPU_MBOX_STATUS)) &
	       FTPU_MASK(MBOX_STATUS_TX_FULL))
		fw_hal_kick(); /* the host is slow to read: not a hang */
	mmio_write(FTPU_MMIO_MBOX(reg), w);
}

void fw_hal_respond(uint16_t seq, const uint32_t *p, unsigned n)
{
	tx(FTPU_MBOX_TX, FTPU_LINK_W1(FTPU_LINK_RESPONSE, 0, seq));
	tx(FTPU_MBOX_TX_W2, n);
	for (unsigned i = 0; i < n; i++)
		tx(FTPU_MBOX_TX, p[i]);
}

void fw_hal_tx_drain(void)
{
	while (mmio_read(FTPU_MMIO_MBOX(FTPU_MBOX_STATUS)) &
	       FTPU_MASK(MBOX_STATUS_TX_FULL))
		fw_hal_kick();
}
