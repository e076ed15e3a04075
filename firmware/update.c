/* SPDX-License-Identifier: Apache-2.0 */
/* update.c - receiving an update image into the RAM slot. Portable C. */
#include "update.h"

#include "crc32.h"
#include "hal.h"
#include "image.h"

int fw_update_begin(struct fw_update *u, struct fw_boot_record *r,
		    const uint32_t *hdr)
{
	int err;

	u->active = false;
	err = fw_image_check(hdr, fw_hal_slot_base(), fw_hal_slot_bytes());
	if (err)
		return err;
	for (unsigned i = 0; i < FTPU_FW_IMG_WORDS; i++)
		u->hdr[i] = hdr[i];
	u->received = 0;
	u->crc = 0;
	u->active = true;
	r->app_state = FTPU_FW_APP_NONE;
	r->app_version = r->app_size = r->app_crc = r->app_entry = 0;
	return FTPU_FW_UPD_OK;
}

int fw_update_data(struct fw_update *u, uint32_t off, const uint32_t *w,
		   unsigned n)
{
	uint32_t size = u->hdr[FTPU_FW_IMG_SIZE];

	if (!u->active)
		return FTPU_FW_UPD_NO_SESSION;
	if (off != u->received) {
		u->active = false;
		return FTPU_FW_UPD_BAD_OFFSET;
	}
	/* size <= slot bytes < 2^30: no overflow */
	if (n > (size - off) / 4u) {
		u->active = false;
		return FTPU_FW_UPD_OVERRUN;
	}
	for (unsigned i = 0; i < n; i++) {
		fw_hal_slot_write(off + 4u * i, w[i]);
		u->crc = ftpu_crc32_word(u->crc, w[i]);
	}
	u->received += 4u * n;
	return FTPU_FW_UPD_OK;
}

int fw_update_commit(struct fw_update *u, struct fw_boot_record *r)
{
	uint32_t size = u->hdr[FTPU_FW_IMG_SIZE];
	uint32_t want = u->hdr[FTPU_FW_IMG_CRC];

	if (!u->active)
		return FTPU_FW_UPD_NO_SESSION;
	u->active = false;
	if (u->received != size)
		return FTPU_FW_UPD_TRUNCATED;
	if (u->crc != want)
		return FTPU_FW_UPD_BAD_CRC;
	r->app_size = size;
	r->app_crc = want;
	r->app_state = FTPU_FW_APP_ACCEPTED;
	if (!fw_boot_app_intact(r)) {
		r->app_state = FTPU_FW_APP_NONE;
		r->app_size = r->app_crc = 0;
		return FTPU_FW_UPD_VERIFY;
	}
	r->app_version = u->hdr[FTPU_FW_IMG_VERSION];
	r->app_entry = u->hdr[FTPU_FW_IMG_ENTRY];
	return FTPU_FW_UPD_OK;
}
