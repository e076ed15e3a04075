/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_hal.h - firmware/hal.h over arrays, for the firmware's host tests
 * (tests/firmware/test_firmware.c) and its fuzz target (fuzz_control.c): a
 * register file, the RAM slot, the self-test's scratch area, and knobs to
 * make the device misbehave. Header-only; include it once, after the
 * firmware's portable sources.
 */
#ifndef FAKE_HAL_H
#define FAKE_HAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../firmware/hal.h"
#include "../../firmware/include/ftpu_regs.h"

#define FAKE_SLOT_BASE 0x00010000u
#define FAKE_SLOT_BYTES 8192u
#define FAKE_SCRATCH_WORDS 64u

struct fake_dev {
	uint32_t regs[256];
	unsigned reads[256], writes[256];
	uint32_t last_write[256];
	uint32_t slot[FAKE_SLOT_BYTES / 4];
	uint32_t scratch[FAKE_SCRATCH_WORDS];
	unsigned kicks;
	unsigned busy_polls; /* STATE reads RUNNING this many times after a
				RESET (~0u: forever) */
	int stuck_slot_word; /* a slot word that ignores writes (-1: none) */
	unsigned order[64];  /* addresses of the last register reads */
	unsigned norder;
};

static struct fake_dev fake;

static void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.stuck_slot_word = -1;
}

uint32_t fw_hal_reg_read(unsigned addr)
{
	addr &= 0xffu;
	fake.reads[addr]++;
	fake.order[fake.norder++ % 64] = addr;
	if (addr == FTPU_REG_STATE && fake.busy_polls) {
		if (fake.busy_polls != ~0u)
			fake.busy_polls--;
		return 1; /* RUNNING */
	}
	return addr == FTPU_REG_CMD ? 0 : fake.regs[addr];
}

void fw_hal_reg_write(unsigned addr, uint32_t value)
{
	addr &= 0xffu;
	fake.writes[addr]++;
	fake.last_write[addr] = value;
	/* ftpu_control: CMD SNAPSHOT copies the counters to SNAP.. */
	if (addr == FTPU_REG_CMD && (value & FTPU_MASK(CMD_SNAPSHOT)))
		for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
			fake.regs[FTPU_REG_SNAP + i] = fake.regs[FTPU_REG_CYCLES + i];
}

uint32_t fw_hal_slot_base(void)
{
	return FAKE_SLOT_BASE;
}

uint32_t fw_hal_slot_bytes(void)
{
	return FAKE_SLOT_BYTES;
}

/* The hal contract: off is a multiple of 4 below the slot size. Breaking
 * it is a firmware bug: abort, so that tests and the fuzzer see it. */
static void fake_check_off(uint32_t off)
{
	if (off % 4u || off >= FAKE_SLOT_BYTES)
		__builtin_trap();
}

void fw_hal_slot_write(uint32_t off, uint32_t word)
{
	fake_check_off(off);
	if ((int)(off / 4u) != fake.stuck_slot_word)
		fake.slot[off / 4u] = word;
}

uint32_t fw_hal_slot_read(uint32_t off)
{
	fake_check_off(off);
	return fake.slot[off / 4u];
}

uint32_t *fw_hal_scratch(unsigned *words)
{
	*words = FAKE_SCRATCH_WORDS;
	return fake.scratch;
}

void fw_hal_kick(void)
{
	fake.kicks++;
}

#endif /* FAKE_HAL_H */
