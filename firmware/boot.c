/* SPDX-License-Identifier: Apache-2.0 */
/* boot.c - the boot record and the boot ROM's decision. Portable C. */
#include "boot.h"

#include "crc32.h"
#include "ftpu_fw.h"
#include "include/ftpu_regs.h"
#include "hal.h"

void fw_boot_fault(struct fw_boot_record *r, uint32_t code, uint32_t pc,
		   uint32_t value)
{
	r->fw_faults++;
	r->fault_code = code;
	r->fault_pc = pc;
	r->fault_value = value;
	if (r->app_state == FTPU_FW_APP_RUNNING ||
	    r->app_state == FTPU_FW_APP_BOOTING)
		r->app_state = FTPU_FW_APP_FAILED;
}

enum fw_boot_action fw_boot_decide(struct fw_boot_record *r, unsigned cause)
{
	if (cause == FTPU_SYS_CAUSE_POWER_ON || r->magic != FW_BOOT_MAGIC) {
		*r = (struct fw_boot_record){.magic = FW_BOOT_MAGIC};
		cause = FTPU_SYS_CAUSE_POWER_ON;
	}
	r->boots++;
	r->cause = cause;
	if (cause == FTPU_SYS_CAUSE_WATCHDOG)
		fw_boot_fault(r, FTPU_FW_FAULT_WATCHDOG, 0, 0);
	if (r->app_state == FTPU_FW_APP_BOOTING &&
	    cause == FTPU_SYS_CAUSE_REBOOT)
		return FW_BOOT_APP;
	if (r->app_state == FTPU_FW_APP_RUNNING)
		r->app_state = FTPU_FW_APP_ACCEPTED; /* it was left by BOOT 0 */
	return FW_BOOT_STAY;
}

bool fw_boot_app_intact(const struct fw_boot_record *r)
{
	uint32_t crc = 0;
	if (r->app_state == FTPU_FW_APP_NONE || !r->app_size ||
	    r->app_size > fw_hal_slot_bytes() || r->app_size % 4u)
		return false;
	for (uint32_t off = 0; off < r->app_size; off += 4) {
		if (off % 1024u == 0)
			fw_hal_kick();
		crc = ftpu_crc32_word(crc, fw_hal_slot_read(off));
	}
	return crc == r->app_crc;
}
