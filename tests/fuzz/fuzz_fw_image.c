/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_fw_image.c - libFuzzer target over the firmware's update image
 * checks and update session (firmware/image.c, firmware/update.c) on the
 * fake hal, each result compared with a model written here from their
 * headers (image.h, update.h).
 *
 * Input: a flags byte, a seed byte, the 9 header words (little-endian),
 * then the image body (whole words). Flags: bit 0 the header CRC is
 * recomputed, bit 1 the body CRC in the header is that of the body given
 * (so the fuzzer gets past both), bit 2 a slot word (index from the seed)
 * ignores writes, bit 3 one DATA is sent one word off its offset, bit 4
 * the header's size is set to the body's. The body goes in as DATA of 1..16
 * words (from the seed), then COMMIT.
 *
 * Checked: fw_image_check gives the model's answer (the first failing
 * check, in the documented order); BEGIN gives the same and clears the
 * record; each DATA and the COMMIT give the model's status (NO_SESSION,
 * BAD_OFFSET, OVERRUN, TRUNCATED, BAD_CRC, VERIFY, OK); an accepted image
 * is in the slot word for word, recorded with its size, CRC, version and
 * entry point.
 *
 * make fuzz-fw_image runs it (mk/fuzz.mk); test_firmware replays the
 * corpus (tests/fuzz/corpus/fw_image) through fuzz_fw_image_one().
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_FW_IMAGE_NO_SOURCES
#include "../../firmware/boot.c"
#define FTPU_CRC32_SMALL /* the firmware's variant */
#include "../../proto/crc32.c"
#include "../../firmware/image.c"
#include "../../firmware/update.c"
#include "fake_hal.h"
#endif

#include "fuzz_check.h"

/* image.h's checks, in its order. */
static int fwi_model_check(const uint32_t *h, uint32_t base, uint32_t bytes)
{
	uint32_t crc = 0;
	for (unsigned i = 0; i < 8; i++)
		crc = ftpu_crc32_word(crc, h[i]);
	if (h[0] != 0x57465446u)
		return FTPU_FW_UPD_BAD_MAGIC;
	if (h[8] != crc)
		return FTPU_FW_UPD_BAD_HCRC;
	if (h[1] != 1)
		return FTPU_FW_UPD_BAD_FORMAT;
	if (h[2] >> 16 != 1 || (h[2] & 0xffffu) > 0)
		return FTPU_FW_UPD_BAD_ABI;
	if (h[3] == 0)
		return FTPU_FW_UPD_BAD_VERSION;
	if (h[6] == 0 || h[6] % 4)
		return FTPU_FW_UPD_BAD_SIZE;
	if (h[6] > bytes)
		return FTPU_FW_UPD_TOO_BIG;
	if (h[4] != base || h[5] % 4 || h[5] < base || (uint64_t)h[5] >= (uint64_t)base + h[6])
		return FTPU_FW_UPD_BAD_ADDR;
	return FTPU_FW_UPD_OK;
}

static uint32_t fwi_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int fuzz_fw_image_one(const uint8_t *data, size_t size)
{
	static struct fw_boot_record rec;
	static struct fw_update u;
	uint32_t hdr[FTPU_FW_IMG_WORDS] = { 0 };
	uint8_t head[2 + 4 * FTPU_FW_IMG_WORDS] = { 0 };

	memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
	unsigned flags = head[0], seed = head[1];
	for (unsigned i = 0; i < FTPU_FW_IMG_WORDS; i++)
		hdr[i] = fwi_le32(head + 2 + 4 * i);
	const uint8_t *body = size > sizeof(head) ? data + sizeof(head) : NULL;
	size_t nbody = size > sizeof(head) ? (size - sizeof(head)) / 4 : 0;
	uint32_t *w = malloc(nbody ? nbody * 4 : 4);
	FUZZ_CHECK(w);
	for (size_t i = 0; i < nbody; i++)
		w[i] = fwi_le32(body + 4 * i);

	fake_reset();
	int stuck = -1;
	if (flags & 4)
		stuck = fake.stuck_slot_word = (int)(seed * 37u % (FAKE_SLOT_BYTES / 4));
	if (flags & 16)
		hdr[FTPU_FW_IMG_SIZE] = (uint32_t)(4 * nbody);
	if (flags & 2) {
		uint32_t crc = 0;
		for (size_t i = 0; i < nbody; i++)
			crc = ftpu_crc32_word(crc, w[i]);
		hdr[FTPU_FW_IMG_CRC] = crc;
	}
	if (flags & 1)
		hdr[FTPU_FW_IMG_HCRC] = fw_image_hcrc(hdr);

	/* the header checks */
	int want = fwi_model_check(hdr, FAKE_SLOT_BASE, FAKE_SLOT_BYTES);
	FUZZ_CHECK(fw_image_check(hdr, FAKE_SLOT_BASE, FAKE_SLOT_BYTES) == want);

	/* a session: BEGIN, DATA, COMMIT against the model */
	memset(&rec, 0, sizeof(rec));
	rec.app_state = FTPU_FW_APP_ACCEPTED; /* an earlier image, dropped by BEGIN */
	rec.app_size = 4;
	int ret = fw_update_begin(&u, &rec, hdr);
	FUZZ_CHECK(ret == want);
	bool active = ret == FTPU_FW_UPD_OK;
	FUZZ_CHECK(u.active == active);
	if (active)
		FUZZ_CHECK(rec.app_state == FTPU_FW_APP_NONE && !rec.app_size && !rec.app_crc);
	uint32_t isize = hdr[FTPU_FW_IMG_SIZE], received = 0;
	uint32_t rnd = seed * 0x01000193u + 1;
	size_t at = 0, chunk = 0;
	while (at < nbody) {
		rnd ^= rnd << 13;
		rnd ^= rnd >> 17;
		rnd ^= rnd << 5;
		unsigned n = 1 + rnd % 16;
		if (n > nbody - at)
			n = (unsigned)(nbody - at);
		uint32_t off = (uint32_t)(4 * at);
		if ((flags & 8) && chunk == seed % 4)
			off += 4;
		int st = fw_update_data(&u, off, w + at, n);
		int model;
		if (!active)
			model = FTPU_FW_UPD_NO_SESSION;
		else if (off != received)
			model = FTPU_FW_UPD_BAD_OFFSET;
		else if ((uint64_t)off + 4u * n > isize)
			model = FTPU_FW_UPD_OVERRUN;
		else
			model = FTPU_FW_UPD_OK;
		FUZZ_CHECK(st == model);
		if (model == FTPU_FW_UPD_OK)
			received += 4u * n;
		else
			active = false;
		FUZZ_CHECK(u.active == active && (!active || u.received == received));
		at += n;
		chunk++;
	}
	ret = fw_update_commit(&u, &rec);
	int model;
	uint32_t crc = 0;
	for (uint32_t i = 0; i < received / 4; i++)
		crc = ftpu_crc32_word(crc, w[i]);
	if (!active)
		model = FTPU_FW_UPD_NO_SESSION;
	else if (received != isize)
		model = FTPU_FW_UPD_TRUNCATED;
	else if (crc != hdr[FTPU_FW_IMG_CRC])
		model = FTPU_FW_UPD_BAD_CRC;
	else if (stuck >= 0 && (uint32_t)stuck < isize / 4 && w[stuck] != 0)
		model = FTPU_FW_UPD_VERIFY; /* the slot kept its 0 */
	else
		model = FTPU_FW_UPD_OK;
	FUZZ_CHECK(ret == model);
	FUZZ_CHECK(!u.active);
	if (ret == FTPU_FW_UPD_OK) {
		FUZZ_CHECK(rec.app_state == FTPU_FW_APP_ACCEPTED && rec.app_size == isize &&
			   rec.app_crc == hdr[FTPU_FW_IMG_CRC] &&
			   rec.app_version == hdr[FTPU_FW_IMG_VERSION] &&
			   rec.app_entry == hdr[FTPU_FW_IMG_ENTRY]);
		FUZZ_CHECK(!memcmp(fake.slot, w, isize));
		FUZZ_CHECK(fw_boot_app_intact(&rec));
	} else if (active || want == FTPU_FW_UPD_OK) {
		/* a refused image leaves no accepted one behind */
		FUZZ_CHECK(rec.app_state == FTPU_FW_APP_NONE && !rec.app_size);
	}
	/* no DATA or COMMIT after the session */
	FUZZ_CHECK(fw_update_data(&u, received, w, 0) == FTPU_FW_UPD_NO_SESSION);
	FUZZ_CHECK(fw_update_commit(&u, &rec) == FTPU_FW_UPD_NO_SESSION);
	free(w);
	return 0;
}

#ifndef FUZZ_FW_IMAGE_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fw_image_one(data, size);
}
#endif
