/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update.h - receiving a firmware update image into the RAM slot
 * (UPDATE_BEGIN, UPDATE_DATA, UPDATE_COMMIT; docs/firmware.md). The image
 * is written to the slot as it comes and accepted only when its header
 * passed (image.h), every byte came in order and the CRC-32 of the bytes
 * written, and of the slot read back, equal the header's.
 */
#ifndef FW_UPDATE_H
#define FW_UPDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "ftpu_fw.h"

struct fw_update {
	uint32_t hdr[FTPU_FW_IMG_WORDS];
	uint32_t received; /* image bytes written so far */
	uint32_t crc;	   /* CRC-32 of those bytes */
	bool active;	   /* between a good BEGIN and COMMIT */
};

/*
 * Starts an update with a header: checks it (fw_image_check) against the
 * hal's slot. Any earlier session is dropped first, and so is the accepted
 * image in the record (its slot is about to be overwritten). Returns
 * FTPU_FW_UPD_OK or the error.
 */
int fw_update_begin(struct fw_update *u, struct fw_boot_record *r,
		    const uint32_t *hdr);

/*
 * n image words at byte offset off: off must be the next byte expected and
 * off + 4 n at most the image size. Writes them to the slot. Returns
 * FTPU_FW_UPD_OK or the error (NO_SESSION, BAD_OFFSET, OVERRUN); an error
 * ends the session.
 */
int fw_update_data(struct fw_update *u, uint32_t off, const uint32_t *w,
		   unsigned n);

/*
 * Ends the session: checks size and CRC, reads the slot back and checks it
 * again, then records the image in r as ACCEPTED. Returns FTPU_FW_UPD_OK
 * or the error (NO_SESSION, TRUNCATED, BAD_CRC, VERIFY).
 */
int fw_update_commit(struct fw_update *u, struct fw_boot_record *r);

#endif /* FW_UPDATE_H */
