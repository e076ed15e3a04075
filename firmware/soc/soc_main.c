/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_main.c - the soft device's firmware: the iCEBreaker's device
 * (spec/ftpu.toml [device.icebreaker]) in a loop. A trap is recorded in
 * RAM that start-up leaves alone (for a debugger: nothing in the protocol
 * reports it) and the core reboots through SYS into a fresh device.
 */
#include <stdint.h>

#include "../hal_mmio.h"
#include "ftpu_regs.h"
#include "soc_device.h"

void fw_trap(uint32_t mcause, uint32_t mepc, uint32_t mtval)
	__attribute__((noreturn));
int main(void);

#define TRAP_MAGIC 0x50415254u /* "TRAP": the record below is valid */

static struct {
	uint32_t magic, count, mcause, mepc, mtval;
} trap_record __attribute__((section(".noinit"), used));

static struct soc_device dev;
/* Not cleared by start-up (tens of thousands of cycles, while the UART may
 * fill): soc_device_init() clears the memories, pumping as it goes. */
static struct soc_storage storage __attribute__((section(".noinit.storage")));

void fw_trap(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
	if (trap_record.magic != TRAP_MAGIC) {
		trap_record.magic = TRAP_MAGIC;
		trap_record.count = 0;
	}
	trap_record.count++;
	trap_record.mcause = mcause;
	trap_record.mepc = mepc;
	trap_record.mtval = mtval;
	mmio_write(FTPU_MMIO_SYS(FTPU_SYS_CTRL), FTPU_MASK(SYS_CTRL_REBOOT));
	for (;;)
		; /* the reboot takes the core */
}

int main(void)
{
	static const struct soc_device_config cfg = SOC_DEVICE_SPEC_CONFIG(ICEBREAKER);
	if (soc_device_init(&dev, &storage, &cfg))
		__asm__ volatile("ebreak"); /* cannot happen (static checks): trap */
	for (;;)
		soc_device_step(&dev);
}
