/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hal.h - what the firmware's portable code (control.c, update.c, boot.c,
 * selftest.c) needs from the device. hal_mmio.c implements it on the
 * control core; the host tests (tests/fuzz/fake_hal.h) implement it over
 * arrays. Nothing here fails: accesses to the hardware cannot.
 */
#ifndef FW_HAL_H
#define FW_HAL_H

#include <stdbool.h>
#include <stdint.h>

/* A control-plane register (docs/registers.md), by word address. */
uint32_t fw_hal_reg_read(unsigned addr);
void fw_hal_reg_write(unsigned addr, uint32_t value);

/* The RAM slot an update image is written to and runs from. */
uint32_t fw_hal_slot_base(void);  /* its address on the core */
uint32_t fw_hal_slot_bytes(void); /* its size, a multiple of 4 */
/* Word at byte offset off (a multiple of 4, below fw_hal_slot_bytes()). */
void fw_hal_slot_write(uint32_t off, uint32_t word);
uint32_t fw_hal_slot_read(uint32_t off);

/* RAM the self-test may overwrite: *words words at the returned address. */
uint32_t *fw_hal_scratch(unsigned *words);

/* Restarts the watchdog: long loops call it now and then. */
void fw_hal_kick(void);

#endif /* FW_HAL_H */
