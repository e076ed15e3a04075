/* SPDX-License-Identifier: Apache-2.0 */
/*
 * boot.h - the boot record and the boot ROM's decision at each boot
 * (docs/firmware.md, "Boot and update"). The record lives in RAM that no
 * start-up code clears (.noinit), so it survives REBOOT and the watchdog;
 * at power-on it is rebuilt.
 */
#ifndef FW_BOOT_H
#define FW_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#define FW_BOOT_MAGIC 0x544f4f42u /* 'B','O','O','T' */

struct fw_boot_record {
	uint32_t magic;	    /* FW_BOOT_MAGIC once initialised */
	uint32_t boots;	    /* boots since power-on, this one included */
	uint32_t cause;	    /* enum ftpu_sys_cause of this boot */
	uint32_t app_state; /* enum ftpu_fw_app_state */
	uint32_t app_version, app_size, app_crc, app_entry; /* accepted image */
	uint32_t fw_faults; /* firmware faults since power-on */
	uint32_t fault_code, fault_pc, fault_value; /* the last one */
};

enum fw_boot_action {
	FW_BOOT_STAY = 0, /* run the boot ROM's firmware */
	FW_BOOT_APP = 1,  /* start the accepted image, after checking it */
};

/*
 * The boot ROM's decision, first thing after reset, for a boot with SYS
 * cause `cause`: rebuilds the record at power-on (or when its magic is
 * wrong), counts the boot, records a watchdog reset as a fault (failing a
 * running update), and returns FW_BOOT_APP only after a REBOOT asked for
 * by BOOT 1 / COMMIT (app_state BOOTING). Never fails.
 */
enum fw_boot_action fw_boot_decide(struct fw_boot_record *r, unsigned cause);

/* Records a firmware fault; a running update becomes FAILED. */
void fw_boot_fault(struct fw_boot_record *r, uint32_t code, uint32_t pc,
		   uint32_t value);

/*
 * The CRC-32 of the accepted image as the slot holds it now (through the
 * hal), compared with the record: true when they match and an image is
 * recorded. Kicks the watchdog as it goes.
 */
bool fw_boot_app_intact(const struct fw_boot_record *r);

#endif /* FW_BOOT_H */
