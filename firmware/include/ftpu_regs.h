/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_regs.h - register addresses and fields (the control plane's from
 * spec/ftpu.toml via ftpu_spec.h, the mailbox's and SYS's from ftpu_regs.def),
 * and the control core's memory map (docs/firmware.md). Plain C (C99 and
 * later, freestanding or hosted): the firmware and the host library both
 * include it.
 *
 *   FTPU_REG_<NAME>               control-plane word address (0..0xFF)
 *   FTPU_<REG>_<FIELD>_LSB/_WIDTH/_MASK   its fields
 *   FTPU_MBOX_<NAME>, FTPU_SYS_<NAME>      byte offsets in the MBOX / SYS
 * blocks FTPU_MBOX_<REG>_<FIELD>_..., FTPU_SYS_<REG>_<FIELD>_...
 *   FTPU_MMIO_REG(a), FTPU_MMIO_MBOX(o), FTPU_MMIO_SYS(o)  core addresses
 */
#ifndef FTPU_REGS_H
#define FTPU_REGS_H

/* ---- memory map of the control core (rtl/cpu/ftpu_cpu.sv) ---- */
#define FTPU_ROM_BASE 0x00000000u
#define FTPU_RAM_BASE 0x00010000u
#define FTPU_MMIO_BASE 0x40000000u
#define FTPU_MMIO_MBOX_BASE 0x40000400u
#define FTPU_MMIO_SYS_BASE 0x40000500u
#define FTPU_MMIO_EXT_BASE 0x40001000u
#define FTPU_MMIO_REG(a) (FTPU_MMIO_BASE + 4u * (unsigned)(a))
#define FTPU_MMIO_MBOX(o) (FTPU_MMIO_MBOX_BASE + (unsigned)(o))
#define FTPU_MMIO_SYS(o) (FTPU_MMIO_SYS_BASE + (unsigned)(o))

/* ---- control-plane registers: enum ftpu_reg (FTPU_REG_<NAME>) and the CMD
 * fields (FTPU_CMD_<FIELD>_LSB/_WIDTH), generated from spec/ftpu.toml ---- */
#include "ftpu_spec.h"

/* ---- mailbox and system registers ---- */
enum ftpu_mbox_reg {
#define FTPU_MBOX(name, offset, access, text) FTPU_MBOX_##name = (offset),
#include "ftpu_regs.def"
};

enum ftpu_mbox_field {
#define FTPU_MBOX_FIELD(reg, name, lsb, width, text)                           \
	FTPU_MBOX_##reg##_##name##_LSB = (lsb),                                \
	FTPU_MBOX_##reg##_##name##_WIDTH = (width),
#include "ftpu_regs.def"
};

enum ftpu_sys_reg {
#define FTPU_SYS(name, offset, access, text) FTPU_SYS_##name = (offset),
#include "ftpu_regs.def"
};

enum ftpu_sys_field {
#define FTPU_SYS_FIELD(reg, name, lsb, width, text)                            \
	FTPU_SYS_##reg##_##name##_LSB = (lsb),                                 \
	FTPU_SYS_##reg##_##name##_WIDTH = (width),
#include "ftpu_regs.def"
};

/* A field's mask from its _LSB and _WIDTH: FTPU_MASK(CMD_RESET). */
#define FTPU_MASK(f)                                                           \
	((((1u << (FTPU_##f##_WIDTH - 1)) << 1) - 1u) << FTPU_##f##_LSB)

/* SYS_CAUSE values. */
enum ftpu_sys_cause {
	FTPU_SYS_CAUSE_POWER_ON = 0,
	FTPU_SYS_CAUSE_REBOOT = 1,
	FTPU_SYS_CAUSE_WATCHDOG = 2,
};

#endif /* FTPU_REGS_H */
