/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hal_mmio.h - the control core's side of the hal (hal_mmio.c): MMIO
 * accessors and what only the target needs (mailbox, system registers).
 * Not part of the portable code.
 */
#ifndef FW_HAL_MMIO_H
#define FW_HAL_MMIO_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"

/* Cycles the watchdog allows between kicks (4 Mi cycles: 0.2 s at 20 MHz). */
#define FW_WDOG_CYCLES (1u << 22)

static inline uint32_t mmio_read(uint32_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void mmio_write(uint32_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

/* The boot record (.noinit at a fixed address, layout.ld). */
struct fw_boot_record *fw_hal_boot_record(void);

/* This image is the boot ROM (link.ld) rather than an update (link_app.ld). */
bool fw_hal_in_rom(void);

/* SYS_CAUSE of this boot. */
unsigned fw_hal_reset_cause(void);

/* SYS REBOOT: resets the core into the boot ROM. Does not return. */
void fw_hal_reboot(void) __attribute__((noreturn));

/*
 * Takes a CONTROL frame out of the mailbox if one is waiting: its seq, its
 * declared payload length *len and its first min(*len, FW_REQ_MAX) words
 * in req. False when none is waiting (nothing is taken then).
 */
bool fw_hal_request(uint32_t *req, unsigned *len, uint16_t *seq);

/* Sends a RESPONSE frame with seq and n payload words (the mailbox adds
 * the credit), waiting for the transmitter as needed. */
void fw_hal_respond(uint16_t seq, const uint32_t *p, unsigned n);

/* Waits until the transmitter has taken the last response word. */
void fw_hal_tx_drain(void);

#endif /* FW_HAL_MMIO_H */
