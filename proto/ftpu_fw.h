/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_fw.h - what the firmware adds to the link protocol (a proposal for
 * docs/protocol.md §7.1, ops after protocol 1.0's six), the update image
 * format and the firmware's fault codes. Plain C: the firmware, its host
 * tests, mkimage and (later) the host library include it.
 */
#ifndef FTPU_FW_H
#define FTPU_FW_H

#include <stdint.h>

/* The firmware's own version, major << 16 | minor << 8 | patch (make
 * FW_VERSION). */
#ifndef FTPU_FW_VERSION
#define FTPU_FW_VERSION 0x000100u
#endif

/* The interface an image is built against: this register description and
 * the memory map, major << 16 | minor. An image runs on a boot ROM with the
 * same major and a minor at least its own. */
#define FTPU_FW_ABI 0x00010000u

/* The CONTROL ops the firmware serves beyond protocol 1.0's six are
 * FTPU_LINK_OP_FW_INFO .. FTPU_LINK_OP_BOOT (ftpu_spec.h, spec/ftpu.toml). */
#include "ftpu_spec.h"

/* Image words per UPDATE_DATA request: MAX_CONTROL - op - offset. */
#define FTPU_FW_DATA_WORDS (FTPU_LINK_MAX_CONTROL - 2u)

/* FW_INFO results (after op and status), word index. */
enum ftpu_fw_info_word {
	FTPU_FW_INFO_VERSION = 0,  /* FTPU_FW_VERSION of the running firmware */
	FTPU_FW_INFO_ABI,	   /* FTPU_FW_ABI */
	FTPU_FW_INFO_RUNNING,	   /* 0 boot ROM, 1 update (RAM) */
	FTPU_FW_INFO_RESET_CAUSE,  /* enum ftpu_sys_cause of the last boot */
	FTPU_FW_INFO_BOOTS,	   /* boots since power-on */
	FTPU_FW_INFO_APP_STATE,	   /* enum ftpu_fw_app_state */
	FTPU_FW_INFO_APP_VERSION,  /* accepted update: version (0: none) */
	FTPU_FW_INFO_APP_SIZE,	   /* ... size in bytes */
	FTPU_FW_INFO_APP_CRC,	   /* ... CRC-32 */
	FTPU_FW_INFO_UPDATE_ERROR, /* enum ftpu_fw_update_err of the last
				      update request that failed */
	FTPU_FW_INFO_FW_FAULTS,	   /* firmware faults since power-on */
	FTPU_FW_INFO_FAULT_CODE,   /* the last one: enum ftpu_fw_fault */
	FTPU_FW_INFO_FAULT_PC,	   /* its mepc (or 0) */
	FTPU_FW_INFO_FAULT_VALUE,  /* its mtval (or 0) */
	FTPU_FW_INFO_COUNT	   /* 14 words */
};

/* SELFTEST results (after op and status). */
enum ftpu_fw_selftest_word {
	FTPU_FW_SELFTEST_PASSED = 0, /* 1 when every test run passed */
	FTPU_FW_SELFTEST_RAN,	 /* mask of enum ftpu_fw_selftest bits run */
	FTPU_FW_SELFTEST_FAILED, /* mask of those that failed */
	FTPU_FW_SELFTEST_COUNT
};

enum ftpu_fw_selftest {
	FTPU_FW_TEST_CRC = 1u << 0,  /* CRC-32 check value on the core */
	FTPU_FW_TEST_GEMM = 1u << 1, /* an integer GEMM on the core, checked
					by its row/column checksums */
	FTPU_FW_TEST_RAM = 1u << 2,  /* a pattern test of a RAM scratch area */
	FTPU_FW_TEST_APP = 1u << 3,  /* the accepted update's CRC, if any */
	FTPU_FW_TEST_MATRIX = 1u << 4, /* a GEMM on the matrix unit (not yet
					  integrated: never run) */
};

/* Why an update request failed (FW_INFO UPDATE_ERROR). */
enum ftpu_fw_update_err {
	FTPU_FW_UPD_OK = 0,
	FTPU_FW_UPD_BAD_MAGIC = 1,   /* not an ftpu firmware image */
	FTPU_FW_UPD_BAD_HCRC = 2,    /* header CRC */
	FTPU_FW_UPD_BAD_FORMAT = 3,  /* header format this ROM does not know */
	FTPU_FW_UPD_BAD_ABI = 4,     /* built for another register ABI */
	FTPU_FW_UPD_BAD_VERSION = 5, /* version 0 */
	FTPU_FW_UPD_BAD_ADDR = 6,    /* load address or entry point */
	FTPU_FW_UPD_BAD_SIZE = 7,    /* 0 or not a multiple of 4 */
	FTPU_FW_UPD_TOO_BIG = 8,     /* larger than the RAM slot */
	FTPU_FW_UPD_NO_SESSION = 9,  /* DATA or COMMIT without BEGIN */
	FTPU_FW_UPD_BAD_OFFSET = 10, /* DATA not at the next offset */
	FTPU_FW_UPD_OVERRUN = 11,    /* DATA beyond the image size */
	FTPU_FW_UPD_TRUNCATED = 12,  /* COMMIT before every byte came */
	FTPU_FW_UPD_BAD_CRC = 13,    /* image CRC */
	FTPU_FW_UPD_VERIFY = 14,     /* the slot does not read back the image */
	FTPU_FW_UPD_RUNNING = 15,    /* an update is running from the slot:
					BOOT 0 first */
	FTPU_FW_UPD_NO_IMAGE = 16,   /* BOOT 1 without an accepted image */
	FTPU_FW_UPD_BAD_ARG = 17,    /* BOOT with another argument */
};

/* State of the RAM slot (FW_INFO APP_STATE). */
enum ftpu_fw_app_state {
	FTPU_FW_APP_NONE = 0,	  /* nothing accepted */
	FTPU_FW_APP_ACCEPTED = 1, /* checked, not running */
	FTPU_FW_APP_BOOTING = 2,  /* the boot ROM is to start it */
	FTPU_FW_APP_RUNNING = 3,  /* started */
	FTPU_FW_APP_FAILED = 4,	  /* it trapped or the watchdog fired: the
				     boot ROM does not start it again by itself */
};

/* Firmware fault codes (FW_INFO FAULT_CODE): a core trap is its mcause
 * + 0x100; the others are detected by the firmware. Above docs/isa.md's
 * device fault codes (1..7) so the two can share a record later. */
enum ftpu_fw_fault {
	FTPU_FW_FAULT_NONE = 0,
	FTPU_FW_FAULT_TRAP = 0x100,	/* + mcause */
	FTPU_FW_FAULT_WATCHDOG = 0x200, /* the watchdog reset the core */
	FTPU_FW_FAULT_APP_CRC = 0x201,	/* the slot failed its CRC at boot */
	FTPU_FW_FAULT_RESET_TIMEOUT = 0x202, /* RESET: the device stayed busy */
};

/* ---- update image: header (9 words, little-endian) + the binary ---- */
#define FTPU_FW_IMAGE_MAGIC 0x57465446u /* 'F','T','F','W' */
#define FTPU_FW_IMAGE_FORMAT 1u

enum ftpu_fw_image_word {
	FTPU_FW_IMG_MAGIC = 0,
	FTPU_FW_IMG_FORMAT,    /* FTPU_FW_IMAGE_FORMAT */
	FTPU_FW_IMG_ABI,       /* FTPU_FW_ABI it was built for */
	FTPU_FW_IMG_VERSION,   /* its FTPU_FW_VERSION, not 0 */
	FTPU_FW_IMG_LOAD_ADDR, /* where it runs: the RAM slot's base */
	FTPU_FW_IMG_ENTRY,     /* its first instruction, in the image */
	FTPU_FW_IMG_SIZE,      /* bytes after the header, a multiple of 4 */
	FTPU_FW_IMG_CRC,       /* CRC-32 of those bytes */
	FTPU_FW_IMG_HCRC,      /* CRC-32 of header words 0..7 (32 bytes) */
	FTPU_FW_IMG_WORDS      /* 9 */
};

#endif /* FTPU_FW_H */
