/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - the control core's firmware: the boot ROM's decision (boot.c),
 * then a loop that takes CONTROL frames out of the mailbox, answers them
 * (control.c) and does what they leave to do (reboot). Traps land in
 * fw_trap(), which records a fault and reboots into the boot ROM.
 */
#include <stdint.h>

#include "boot.h"
#include "control.h"
#include "ftpu_fw.h"
#include "hal.h"
#include "hal_mmio.h"

void fw_trap(uint32_t mcause, uint32_t mepc, uint32_t mtval)
	__attribute__((noreturn));
int main(void);

void fw_trap(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
	fw_boot_fault(fw_hal_boot_record(),
		      FTPU_FW_FAULT_TRAP + (mcause & 0xffu), mepc, mtval);
	fw_hal_reboot();
}

static struct fw_ctx ctx;

int main(void)
{
	struct fw_boot_record *r = fw_hal_boot_record();
	uint32_t req[FW_REQ_MAX], rsp[FW_RSP_MAX];

	fw_hal_kick();
	if (fw_hal_in_rom() &&
	    fw_boot_decide(r, fw_hal_reset_cause()) == FW_BOOT_APP) {
		if (fw_boot_app_intact(r)) {
			r->app_state = FTPU_FW_APP_RUNNING;
			fw_hal_kick();
			((void (*)(void))r->app_entry)();
		}
		fw_boot_fault(r, FTPU_FW_FAULT_APP_CRC, r->app_entry,
			      r->app_crc);
	}
	fw_ctx_init(&ctx, r, !fw_hal_in_rom());
	for (;;) {
		unsigned len, n;
		uint16_t seq;
		enum fw_action action;

		fw_hal_kick();
		if (!fw_hal_request(req, &len, &seq))
			continue;
		n = fw_control(&ctx, req, len, rsp, &action);
		fw_hal_respond(seq, rsp, n);
		if (action == FW_ACTION_REBOOT) {
			fw_hal_tx_drain();
			fw_hal_reboot();
		}
	}
}
