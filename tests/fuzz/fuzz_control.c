/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_control.c - libFuzzer target over the firmware's CONTROL handling
 * (firmware/control.c and what it calls), on the fake hal.
 *
 * Input: one flags byte, then requests, each a length byte (payload words,
 * 0..20, taken mod 21) and that many little-endian words (a short last
 * request is cut). Flags: bit 0 the firmware runs from the slot, bit 1 a
 * slot word ignores writes, bits 2..3 STATE stays busy 0/3/50/forever polls
 * after a RESET.
 *
 * Checked for every request: the response length (2..FW_RSP_MAX), its op
 * word, a known status, no results unless OK, the result count of each
 * protocol 1.0 op, and that an ACCEPTED image is in the slot with the CRC
 * recorded. ASan/UBSan check the memory accesses: a request buffer holds
 * exactly the words a frame delivers.
 *
 * make fuzz-control runs it; test_firmware replays the corpus
 * (tests/fuzz/corpus/control) and derived inputs through fuzz_control_one().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_CONTROL_NO_SOURCES
#include "../../firmware/boot.c"
#include "../../firmware/control.c"
#define FTPU_CRC32_SMALL /* the firmware's variant */
#include "../../proto/crc32.c"
#include "../../firmware/image.c"
#include "../../firmware/selftest.c"
#include "../../firmware/update.c"
#include "fake_hal.h"
#endif

#define FUZZ_MAX_LEN 20u

#include "fuzz_check.h" /* FUZZ_CHECK */

static unsigned expected_results(uint32_t op)
{
	switch (op) {
	case FTPU_LINK_OP_INFO:
		return 2 * FTPU_LINK_INFO_MAX; /* one key/value pair per key */
	case FTPU_LINK_OP_STATUS:
		return FTPU_LINK_STATUS_COUNT;
	case FTPU_LINK_OP_READ_COUNTERS:
		return FTPU_LINK_CNT_COUNT;
	case FTPU_LINK_OP_READ_FAULTS:
		return 4;
	case FTPU_LINK_OP_FW_INFO:
		return FTPU_FW_INFO_COUNT;
	case FTPU_LINK_OP_SELFTEST:
		return FTPU_FW_SELFTEST_COUNT;
	default:
		return 0;
	}
}

static void check_record(const struct fw_boot_record *r)
{
	if (r->app_state != FTPU_FW_APP_ACCEPTED &&
	    r->app_state != FTPU_FW_APP_BOOTING)
		return;
	FUZZ_CHECK(r->app_size && r->app_size <= FAKE_SLOT_BYTES &&
		   r->app_size % 4 == 0);
	FUZZ_CHECK(ftpu_crc32_update(0, fake.slot, r->app_size) == r->app_crc);
	FUZZ_CHECK(r->app_entry - FAKE_SLOT_BASE < r->app_size);
}

static int fuzz_control_one(const uint8_t *data, size_t size)
{
	static struct fw_boot_record rec;
	struct fw_ctx fw;
	uint32_t rsp[FW_RSP_MAX + 8];
	unsigned flags = size ? data[0] : 0;
	static const unsigned busy[4] = {0, 3, 50, ~0u};

	fake_reset();
	for (unsigned a = 0; a < 256; a++)
		fake.regs[a] = a * 0x01000193u;
	if (flags & 2)
		fake.stuck_slot_word = 5;
	memset(&rec, 0, sizeof(rec));
	fw_boot_decide(&rec, FTPU_SYS_CAUSE_POWER_ON);
	fw_ctx_init(&fw, &rec, flags & 1);
	size_t i = size ? 1 : 0;
	while (i < size) {
		unsigned len = data[i++] % (FUZZ_MAX_LEN + 1);
		unsigned have = len < FW_REQ_MAX ? len : FW_REQ_MAX;
		uint32_t *req = malloc(have ? have * 4u : 1);
		enum fw_action action;
		FUZZ_CHECK(req != NULL);
		for (unsigned k = 0; k < have; k++) {
			uint8_t b[4] = {0};
			for (unsigned j = 0; j < 4 && i < size; j++)
				b[j] = data[i++];
			req[k] = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
				 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		}
		fake.busy_polls = busy[(flags >> 2) & 3];
		uint32_t op = len ? req[0] : 0;
		unsigned n = fw_control(&fw, req, len, rsp, &action);
		FUZZ_CHECK(n >= 2 && n <= FW_RSP_MAX);
		FUZZ_CHECK(rsp[0] == op);
		FUZZ_CHECK(rsp[1] <= FTPU_LINK_RESP_FAILED);
		if (rsp[1] != FTPU_LINK_RESP_OK)
			FUZZ_CHECK(n == 2);
		else
			FUZZ_CHECK(n == 2 + expected_results(op));
		if (len != 1 && op <= FTPU_LINK_OP_SELFTEST)
			FUZZ_CHECK(rsp[1] == FTPU_LINK_RESP_BAD_REQUEST);
		if (action == FW_ACTION_REBOOT)
			FUZZ_CHECK(op == FTPU_LINK_OP_BOOT &&
				   rsp[1] == FTPU_LINK_RESP_OK);
		check_record(&rec);
		free(req);
	}
	return 0;
}

#ifndef FUZZ_CONTROL_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_control_one(data, size);
}
#endif
