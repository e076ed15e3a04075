/* SPDX-License-Identifier: Apache-2.0 */
/* image.c - update image header checks. Portable C. */
#include "image.h"

#include "crc32.h"

uint32_t fw_image_hcrc(const uint32_t *hdr)
{
	uint32_t crc = 0;
	for (unsigned i = 0; i < FTPU_FW_IMG_HCRC; i++)
		crc = ftpu_crc32_word(crc, hdr[i]);
	return crc;
}

int fw_image_check(const uint32_t *hdr, uint32_t slot_base, uint32_t slot_bytes)
{
	uint32_t size = hdr[FTPU_FW_IMG_SIZE];
	uint32_t entry = hdr[FTPU_FW_IMG_ENTRY];
	uint32_t abi = hdr[FTPU_FW_IMG_ABI];

	if (hdr[FTPU_FW_IMG_MAGIC] != FTPU_FW_IMAGE_MAGIC)
		return FTPU_FW_UPD_BAD_MAGIC;
	if (hdr[FTPU_FW_IMG_HCRC] != fw_image_hcrc(hdr))
		return FTPU_FW_UPD_BAD_HCRC;
	if (hdr[FTPU_FW_IMG_FORMAT] != FTPU_FW_IMAGE_FORMAT)
		return FTPU_FW_UPD_BAD_FORMAT;
	if (abi >> 16 != FTPU_FW_ABI >> 16 ||
	    (abi & 0xffffu) > (FTPU_FW_ABI & 0xffffu))
		return FTPU_FW_UPD_BAD_ABI;
	if (hdr[FTPU_FW_IMG_VERSION] == 0)
		return FTPU_FW_UPD_BAD_VERSION;
	if (size == 0 || size % 4u)
		return FTPU_FW_UPD_BAD_SIZE;
	if (size > slot_bytes)
		return FTPU_FW_UPD_TOO_BIG;
	/* entry - base wraps to a huge value below the base */
	if (hdr[FTPU_FW_IMG_LOAD_ADDR] != slot_base || entry % 4u ||
	    entry - slot_base >= size)
		return FTPU_FW_UPD_BAD_ADDR;
	return FTPU_FW_UPD_OK;
}
