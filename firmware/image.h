/* SPDX-License-Identifier: Apache-2.0 */
/* image.h - checks of an update image header (proto/ftpu_fw.h). */
#ifndef FW_IMAGE_H
#define FW_IMAGE_H

#include <stdint.h>

#include "ftpu_fw.h"

/*
 * Checks an image header (FTPU_FW_IMG_WORDS words) against a RAM slot of
 * slot_bytes bytes at slot_base, in this order: magic, header CRC, format,
 * ABI (same major, minor not above FTPU_FW_ABI's), version != 0, size (not
 * 0, a multiple of 4, at most slot_bytes), load address == slot_base, entry
 * point 4-aligned inside the image. Returns FTPU_FW_UPD_OK or the first
 * enum ftpu_fw_update_err that fails.
 */
int fw_image_check(const uint32_t *hdr, uint32_t slot_base,
		   uint32_t slot_bytes);

/* The header CRC: CRC-32 of words 0..7 as little-endian bytes. */
uint32_t fw_image_hcrc(const uint32_t *hdr);

#endif /* FW_IMAGE_H */
