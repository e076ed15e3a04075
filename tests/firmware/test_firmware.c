/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_firmware.c - the firmware's portable logic (firmware/control.c,
 * update.c, image.c, boot.c, selftest.c, crc32.c) built for the host, on the
 * fake hal (tests/fuzz/fake_hal.h): every CONTROL request, malformed
 * requests, every update image check, the boot decisions, and a replay of
 * the fuzz corpus (tests/fuzz/corpus/control) plus inputs derived from it,
 * and the update image target's corpus (tests/fuzz/corpus/fw_image).
 *
 * Golden values: the C model of the device (model/ref_device.c) for the
 * protocol 1.0 answers, zlib for CRCs and image headers, docs/protocol.md
 * for the rest.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "../../firmware/boot.c"
#include "../../firmware/control.c"
#define FTPU_CRC32_SMALL /* the firmware's variant */
#include "../../proto/crc32.c"
#include "../../firmware/image.c"
#include "../../firmware/selftest.c"
#include "../../firmware/update.c"
#include "../fuzz/fake_hal.h"
#define FUZZ_CONTROL_NO_SOURCES
#define FUZZ_CONTROL_NO_MAIN
#include "../fuzz/fuzz_control.c"
#define FUZZ_FW_IMAGE_NO_SOURCES
#define FUZZ_FW_IMAGE_NO_MAIN
#include "../fuzz/fuzz_fw_image.c"
#include "../fuzz/fuzz_replay.h"

#include "ftpu_test.h"
#include "ref_control.h"
#include "ftpu.h"
#include "link.h"
#include "ref_device.h"

#ifndef FTPU_FUZZ_CORPUS
#define FTPU_FUZZ_CORPUS "tests/fuzz/corpus/control"
#endif

struct fx {
	struct fw_boot_record rec;
	struct fw_ctx fw;
	struct ftpu_ref_device_config cfg;
	uint32_t rsp[FW_RSP_MAX];
	enum fw_action action;
};

/* The registers of the C model's default device, idle (docs/registers.md). */
static void set_regs(const struct ftpu_ref_device_config *c)
{
	const uint32_t info[] = {0x00010005u,
				 c->n,
				 c->n,
				 c->ub_vectors,
				 c->wm_rows / c->n,
				 c->acc_vectors,
				 c->bias_vectors,
				 c->rx_words,
				 c->clock_hz,
				 c->row_delay,
				 FTPU_LINK_MAX_PAYLOAD,
				 c->vector_unit ? 1u : 0u, /* FEATURES */
				 c->link_bytes};
	for (unsigned i = 0; i < 13; i++)
		fake.regs[FTPU_REG_VERSION + i] = info[i];
	fake.regs[FTPU_REG_ID] = FTPU_LINK_SYNC;
	fake.regs[FTPU_REG_STATE] = FTPU_LINK_STATE_IDLE;
	fake.regs[FTPU_REG_FREE_WORDS] = c->rx_words;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	fake_reset();
	ftpu_ref_device_default_config(&f->cfg);
	set_regs(&f->cfg);
	assert_int_equal(fw_boot_decide(&f->rec, FTPU_SYS_CAUSE_POWER_ON),
			 FW_BOOT_STAY);
	fw_ctx_init(&f->fw, &f->rec, false);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* One request; returns the response length. The request is copied into a
 * buffer of exactly min(len, FW_REQ_MAX) words (ASan: no read beyond). */
static unsigned request(struct fx *f, const uint32_t *req, unsigned len)
{
	unsigned have = len < FW_REQ_MAX ? len : FW_REQ_MAX;
	uint32_t *buf = malloc(have ? have * 4u : 1);
	assert_non_null(buf);
	if (have)
		memcpy(buf, req, have * 4u);
	memset(f->rsp, 0xa5, sizeof(f->rsp));
	unsigned n = fw_control(&f->fw, buf, len, f->rsp, &f->action);
	free(buf);
	assert_in_range(n, 2, FW_RSP_MAX);
	assert_int_equal(f->rsp[0], len ? req[0] : 0);
	return n;
}

/* ---- the C model's answer ---- */

static void expect_as_ref(struct fx *f, const uint32_t *req, unsigned len)
{
	uint32_t want[64];
	unsigned nw = ref_control(&f->cfg, req, len, want);
	unsigned n = request(f, req, len);
	assert_int_equal(n, nw);
	assert_memory_equal(f->rsp, want, n * 4);
	assert_int_equal(f->action, FW_ACTION_NONE);
}

/* ---- CRC ---- */

static void test_firmware_crc32(void **state)
{
	(void)state;
	uint8_t buf[1000];
	struct rng g = {ftpu_test_seed()};
	assert_int_equal(ftpu_crc32_update(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(ftpu_crc32_update(0, buf, 0), 0);
	for (unsigned t = 0; t < 200; t++) {
		size_t n = rng_below(&g, sizeof(buf)),
		       cut = n ? rng_below(&g, (uint32_t)n) : 0;
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rng_u32(&g);
		uint32_t want = (uint32_t)crc32(0, buf, (uInt)n);
		assert_int_equal(ftpu_crc32_update(0, buf, n), want);
		assert_int_equal(
			ftpu_crc32_update(ftpu_crc32_update(0, buf, cut), buf + cut, n - cut),
			want);
	}
	uint32_t w = 0x04030201u, c = 0;
	const uint8_t b[] = {1, 2, 3, 4, 1, 2, 3, 4};
	c = ftpu_crc32_word(ftpu_crc32_word(c, w), w);
	assert_int_equal(c, (uint32_t)crc32(0, b, 8));
}

/* ---- protocol 1.0 ops: the C model's answers ---- */

static void test_firmware_info_status_faults(void **state)
{
	struct fx *f = *state;
	for (uint32_t op = FTPU_LINK_OP_INFO; op <= FTPU_LINK_OP_READ_FAULTS;
	     op++)
		if (op != FTPU_LINK_OP_RESET &&
		    op != FTPU_LINK_OP_READ_COUNTERS &&
		    op != FTPU_LINK_OP_CLEAR_COUNTERS)
			expect_as_ref(f, &op, 1);
	/* the INFO values come from the registers: another device */
	f->cfg.n = 8;
	f->cfg.wm_rows = 8 * 300;
	f->cfg.clock_hz = 123456789;
	f->cfg.rx_words = 5000;
	set_regs(&f->cfg);
	const uint32_t info = FTPU_LINK_OP_INFO;
	expect_as_ref(f, &info, 1);
	/* a fault record */
	fake.regs[FTPU_REG_FAULT_COUNT] = 3;
	fake.regs[FTPU_REG_FAULT_PC] = 17;
	fake.regs[FTPU_REG_FAULT_CODE] = 5;
	fake.regs[FTPU_REG_FAULT_INSTR] = 0xdeadbeefu;
	const uint32_t rf = FTPU_LINK_OP_READ_FAULTS;
	assert_int_equal(request(f, &rf, 1), 6);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(f->rsp[2], 3);
	assert_int_equal(f->rsp[3], 17);
	assert_int_equal(f->rsp[4], 5);
	assert_int_equal(f->rsp[5], 0xdeadbeefu);
}

static void test_firmware_malformed(void **state)
{
	struct fx *f = *state;
	const uint32_t two[] = {FTPU_LINK_OP_STATUS, 0}, unk[] = {77, 1};
	uint32_t big[20] = {FTPU_LINK_OP_INFO};
	expect_as_ref(f, NULL, 0); /* empty: op 0, BAD_REQUEST */
	expect_as_ref(f, two, 2);  /* an argument where none is taken */
	expect_as_ref(f, unk, 1);  /* UNKNOWN_OP */
	expect_as_ref(f, unk, 2);  /* unknown op with an argument */
	const uint32_t fwinfo2[] = {FTPU_LINK_OP_FW_INFO, 1};
	assert_int_equal(request(f, fwinfo2, 2), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_BAD_REQUEST);
	/* longer than MAX_CONTROL: only 16 words are delivered */
	assert_int_equal(request(f, big, 20), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_BAD_REQUEST);
	assert_int_equal(request(f, big, 17), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_BAD_REQUEST);
	/* nothing touched the device */
	assert_int_equal(fake.writes[FTPU_REG_CMD], 0);
}

static void test_firmware_read_counters(void **state)
{
	struct fx *f = *state;
	const uint32_t op = FTPU_LINK_OP_READ_COUNTERS;
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
		fake.regs[FTPU_REG_CYCLES + i] = 0x100u * i + 7;
	fake.norder = 0;
	assert_int_equal(request(f, &op, 1), 2 + FTPU_LINK_CNT_COUNT);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	/* one CMD SNAPSHOT, then the snapshot registers in order */
	assert_int_equal(fake.writes[FTPU_REG_CMD], 1);
	assert_int_equal(fake.last_write[FTPU_REG_CMD], FTPU_MASK(CMD_SNAPSHOT));
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++) {
		assert_int_equal(f->rsp[2 + i], 0x100u * i + 7);
		assert_int_equal(fake.order[i], FTPU_REG_SNAP + i);
	}
}

static void test_firmware_clear_counters(void **state)
{
	struct fx *f = *state;
	const uint32_t op = FTPU_LINK_OP_CLEAR_COUNTERS;
	assert_int_equal(request(f, &op, 1), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(fake.writes[FTPU_REG_CMD], 1);
	assert_int_equal(fake.last_write[FTPU_REG_CMD], 2);
}

static void test_firmware_reset(void **state)
{
	struct fx *f = *state;
	const uint32_t op = FTPU_LINK_OP_RESET, fi = FTPU_LINK_OP_FW_INFO;
	/* the device is busy for 5 polls */
	fake.busy_polls = 5;
	assert_int_equal(request(f, &op, 1), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(fake.writes[FTPU_REG_CMD], 1);
	assert_int_equal(fake.last_write[FTPU_REG_CMD], 1);
	assert_int_equal(fake.reads[FTPU_REG_STATE], 6);
	/* it never becomes idle: FAILED after a bounded wait, a fault */
	fake.busy_polls = ~0u;
	fake.reads[FTPU_REG_STATE] = 0;
	assert_int_equal(request(f, &op, 1), 2);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_FAILED);
	assert_int_equal(fake.reads[FTPU_REG_STATE], FW_RESET_POLLS + 1);
	assert_true(fake.kicks > 0);
	fake.busy_polls = 0;
	assert_int_equal(request(f, &fi, 1), 2 + FTPU_FW_INFO_COUNT);
	assert_int_equal(f->rsp[2 + FTPU_FW_INFO_FW_FAULTS], 1);
	assert_int_equal(f->rsp[2 + FTPU_FW_INFO_FAULT_CODE],
			 FTPU_FW_FAULT_RESET_TIMEOUT);
}

static void test_firmware_fw_info(void **state)
{
	struct fx *f = *state;
	const uint32_t op = FTPU_LINK_OP_FW_INFO;
	assert_int_equal(request(f, &op, 1), 2 + FTPU_FW_INFO_COUNT);
	const uint32_t *r = f->rsp + 2;
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(r[FTPU_FW_INFO_VERSION], FTPU_FW_VERSION);
	assert_int_equal(r[FTPU_FW_INFO_ABI], FTPU_FW_ABI);
	assert_int_equal(r[FTPU_FW_INFO_RUNNING], 0);
	assert_int_equal(r[FTPU_FW_INFO_RESET_CAUSE], FTPU_SYS_CAUSE_POWER_ON);
	assert_int_equal(r[FTPU_FW_INFO_BOOTS], 1);
	assert_int_equal(r[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_NONE);
	assert_int_equal(r[FTPU_FW_INFO_UPDATE_ERROR], FTPU_FW_UPD_OK);
	assert_int_equal(r[FTPU_FW_INFO_FW_FAULTS], 0);
}

/* ---- update images ---- */

struct image {
	uint32_t hdr[FTPU_FW_IMG_WORDS];
	uint32_t body[FAKE_SLOT_BYTES / 4 + 16];
	unsigned n; /* body words */
};

/* A good image of n body words, its CRCs from zlib. */
static void make_image(struct image *im, unsigned n, uint32_t seed)
{
	struct rng g = {seed};
	im->n = n;
	for (unsigned i = 0; i < n; i++)
		im->body[i] = rng_u32(&g);
	im->hdr[FTPU_FW_IMG_MAGIC] = 0x57465446u; /* 'F','T','F','W' */
	im->hdr[FTPU_FW_IMG_FORMAT] = 1;
	im->hdr[FTPU_FW_IMG_ABI] = FTPU_FW_ABI;
	im->hdr[FTPU_FW_IMG_VERSION] = 0x000203;
	im->hdr[FTPU_FW_IMG_LOAD_ADDR] = FAKE_SLOT_BASE;
	im->hdr[FTPU_FW_IMG_ENTRY] = FAKE_SLOT_BASE + 4 * (n / 2);
	im->hdr[FTPU_FW_IMG_SIZE] = 4 * n;
	im->hdr[FTPU_FW_IMG_CRC] =
		(uint32_t)crc32(0, (const Bytef *)im->body, 4 * n);
}

/* Header CRC from zlib (after any change to words 0..7). */
static void seal(struct image *im)
{
	im->hdr[FTPU_FW_IMG_HCRC] =
		(uint32_t)crc32(0, (const Bytef *)im->hdr, 32);
}

static uint32_t op_status(struct fx *f, const uint32_t *req, unsigned len)
{
	request(f, req, len);
	return f->rsp[1];
}

static uint32_t update_error(struct fx *f)
{
	const uint32_t op = FTPU_LINK_OP_FW_INFO;
	request(f, &op, 1);
	return f->rsp[2 + FTPU_FW_INFO_UPDATE_ERROR];
}

static uint32_t begin(struct fx *f, const struct image *im)
{
	uint32_t req[1 + FTPU_FW_IMG_WORDS] = {FTPU_LINK_OP_UPDATE_BEGIN};
	memcpy(req + 1, im->hdr, sizeof(im->hdr));
	return op_status(f, req, 1 + FTPU_FW_IMG_WORDS);
}

/* DATA of words [from, from + k) at byte offset off. */
static uint32_t data(struct fx *f, const struct image *im, uint32_t off,
		     unsigned from, unsigned k)
{
	uint32_t req[16] = {FTPU_LINK_OP_UPDATE_DATA, off};
	assert_true(k <= FTPU_FW_DATA_WORDS);
	memcpy(req + 2, im->body + from, 4 * k);
	return op_status(f, req, 2 + k);
}

static uint32_t send_all(struct fx *f, const struct image *im)
{
	for (unsigned i = 0; i < im->n; i += FTPU_FW_DATA_WORDS) {
		unsigned k = im->n - i < FTPU_FW_DATA_WORDS
				     ? im->n - i
				     : FTPU_FW_DATA_WORDS;
		uint32_t st = data(f, im, 4 * i, i, k);
		if (st)
			return st;
	}
	return FTPU_LINK_RESP_OK;
}

static uint32_t commit(struct fx *f)
{
	const uint32_t op = FTPU_LINK_OP_UPDATE_COMMIT;
	return op_status(f, &op, 1);
}

static void test_firmware_update_ok(void **state)
{
	struct fx *f = *state;
	static struct image im;
	const uint32_t boot1[] = {FTPU_LINK_OP_BOOT, 1}, st = FTPU_LINK_OP_SELFTEST;
	make_image(&im, 1000, 1);
	seal(&im);
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(send_all(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_OK);
	assert_memory_equal(fake.slot, im.body, 4 * im.n);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_ACCEPTED);
	assert_int_equal(f->rec.app_version, 0x000203);
	assert_int_equal(f->rec.app_size, 4000);
	assert_int_equal(f->rec.app_crc, im.hdr[FTPU_FW_IMG_CRC]);
	assert_int_equal(f->rec.app_entry, FAKE_SLOT_BASE + 2000);
	/* the self-test checks it too */
	request(f, &st, 1);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_PASSED], 1);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_RAN] & FTPU_FW_TEST_APP,
			 FTPU_FW_TEST_APP);
	fake.slot[3] ^= 1;
	request(f, &st, 1);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_PASSED], 0);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_FAILED], FTPU_FW_TEST_APP);
	fake.slot[3] ^= 1;
	/* BOOT 1: BOOTING, then the reboot; the boot ROM will start it */
	assert_int_equal(op_status(f, boot1, 2), FTPU_LINK_RESP_OK);
	assert_int_equal(f->action, FW_ACTION_REBOOT);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_BOOTING);
	assert_int_equal(fw_boot_decide(&f->rec, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_APP);
	assert_true(fw_boot_app_intact(&f->rec));
	/* a full slot is fine too */
	setup((void **)&f);
	make_image(&im, FAKE_SLOT_BYTES / 4, 2);
	seal(&im);
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(send_all(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_OK);
	teardown((void **)&f);
}

/* Each header check refuses with its own error, before anything is
 * written to the slot. */
static void test_firmware_update_bad_header(void **state)
{
	struct fx *f = *state;
	static struct image im;
	static const struct {
		unsigned word;
		uint32_t value;
		bool reseal;
		uint32_t err;
	} bad[] = {
		{FTPU_FW_IMG_MAGIC, 0x57465447u, true, FTPU_FW_UPD_BAD_MAGIC},
		{FTPU_FW_IMG_VERSION, 0x000204, false, FTPU_FW_UPD_BAD_HCRC},
		{FTPU_FW_IMG_FORMAT, 2, true, FTPU_FW_UPD_BAD_FORMAT},
		{FTPU_FW_IMG_ABI, FTPU_FW_ABI + 0x10000u, true,
		 FTPU_FW_UPD_BAD_ABI},
		{FTPU_FW_IMG_ABI, FTPU_FW_ABI + 1, true, FTPU_FW_UPD_BAD_ABI},
		{FTPU_FW_IMG_VERSION, 0, true, FTPU_FW_UPD_BAD_VERSION},
		{FTPU_FW_IMG_SIZE, 0, true, FTPU_FW_UPD_BAD_SIZE},
		{FTPU_FW_IMG_SIZE, 402, true, FTPU_FW_UPD_BAD_SIZE},
		{FTPU_FW_IMG_SIZE, FAKE_SLOT_BYTES + 4, true,
		 FTPU_FW_UPD_TOO_BIG},
		{FTPU_FW_IMG_SIZE, 0xfffffffcu, true, FTPU_FW_UPD_TOO_BIG},
		{FTPU_FW_IMG_LOAD_ADDR, FAKE_SLOT_BASE + 4, true,
		 FTPU_FW_UPD_BAD_ADDR},
		{FTPU_FW_IMG_ENTRY, FAKE_SLOT_BASE + 2, true,
		 FTPU_FW_UPD_BAD_ADDR},
		{FTPU_FW_IMG_ENTRY, FAKE_SLOT_BASE + 400, true,
		 FTPU_FW_UPD_BAD_ADDR},
		{FTPU_FW_IMG_ENTRY, FAKE_SLOT_BASE - 4, true,
		 FTPU_FW_UPD_BAD_ADDR},
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_image(&im, 100, 3);
		seal(&im);
		im.hdr[bad[i].word] = bad[i].value;
		if (bad[i].reseal)
			seal(&im);
		assert_int_equal(begin(f, &im), FTPU_LINK_RESP_FAILED);
		assert_int_equal(update_error(f), bad[i].err);
		/* no session: DATA is refused */
		assert_int_equal(data(f, &im, 0, 0, 1), FTPU_LINK_RESP_FAILED);
		assert_int_equal(update_error(f), FTPU_FW_UPD_NO_SESSION);
	}
	for (unsigned i = 0; i < FAKE_SLOT_BYTES / 4; i++)
		assert_int_equal(fake.slot[i], 0);
	/* wrong argument counts */
	uint32_t req[1 + FTPU_FW_IMG_WORDS + 1] = {FTPU_LINK_OP_UPDATE_BEGIN};
	assert_int_equal(op_status(f, req, FTPU_FW_IMG_WORDS),
			 FTPU_LINK_RESP_BAD_REQUEST);
	assert_int_equal(op_status(f, req, FTPU_FW_IMG_WORDS + 2),
			 FTPU_LINK_RESP_BAD_REQUEST);
}

static void test_firmware_update_bad_data(void **state)
{
	struct fx *f = *state;
	static struct image im;
	make_image(&im, 100, 4);
	seal(&im);

	/* commit before everything came: TRUNCATED */
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(data(f, &im, 0, 0, 14), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_TRUNCATED);
	assert_int_equal(commit(f),
			 FTPU_LINK_RESP_FAILED); /* the session ended */
	assert_int_equal(update_error(f), FTPU_FW_UPD_NO_SESSION);

	/* a gap, a repeat */
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(data(f, &im, 56, 14, 14), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_BAD_OFFSET);
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(data(f, &im, 0, 0, 14), FTPU_LINK_RESP_OK);
	assert_int_equal(data(f, &im, 0, 0, 14), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_BAD_OFFSET);

	/* past the end */
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	for (unsigned i = 0; i < 98; i += 14)
		assert_int_equal(data(f, &im, 4 * i, i, 14), FTPU_LINK_RESP_OK);
	assert_int_equal(data(f, &im, 4 * 98, 98, 3), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_OVERRUN);

	/* one flipped bit: BAD_CRC, nothing accepted */
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	im.body[50] ^= 0x80u;
	assert_int_equal(send_all(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_BAD_CRC);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_NONE);
	im.body[50] ^= 0x80u;

	/* the slot does not keep what was written: VERIFY (word 7 keeps
	 * the 0 it has now) */
	memset(fake.slot, 0, sizeof(fake.slot));
	fake.stuck_slot_word = 7;
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(send_all(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_VERIFY);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_NONE);
	fake.stuck_slot_word = -1;

	/* malformed DATA: no words, too many */
	const uint32_t d2[] = {FTPU_LINK_OP_UPDATE_DATA, 0};
	assert_int_equal(op_status(f, d2, 2), FTPU_LINK_RESP_BAD_REQUEST);
	uint32_t d17[17] = {FTPU_LINK_OP_UPDATE_DATA, 0};
	assert_int_equal(op_status(f, d17, 17), FTPU_LINK_RESP_BAD_REQUEST);
	const uint32_t c2[] = {FTPU_LINK_OP_UPDATE_COMMIT, 0};
	assert_int_equal(op_status(f, c2, 2), FTPU_LINK_RESP_BAD_REQUEST);

	/* a new BEGIN drops the accepted image (its slot is overwritten) */
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(send_all(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(commit(f), FTPU_LINK_RESP_OK);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_ACCEPTED);
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_OK);
	assert_int_equal(f->rec.app_state, FTPU_FW_APP_NONE);
}

static void test_firmware_boot_op(void **state)
{
	struct fx *f = *state;
	const uint32_t b0[] = {FTPU_LINK_OP_BOOT, 0}, b1[] = {FTPU_LINK_OP_BOOT, 1};
	const uint32_t b2[] = {FTPU_LINK_OP_BOOT, 2}, bnone = FTPU_LINK_OP_BOOT;
	assert_int_equal(op_status(f, b1, 2), FTPU_LINK_RESP_FAILED);
	assert_int_equal(f->action, FW_ACTION_NONE);
	assert_int_equal(update_error(f), FTPU_FW_UPD_NO_IMAGE);
	assert_int_equal(op_status(f, b2, 2), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_BAD_ARG);
	assert_int_equal(op_status(f, &bnone, 1), FTPU_LINK_RESP_BAD_REQUEST);
	assert_int_equal(op_status(f, b0, 2), FTPU_LINK_RESP_OK);
	assert_int_equal(f->action, FW_ACTION_REBOOT);
	/* an update running from the slot refuses BEGIN */
	static struct image im;
	make_image(&im, 10, 5);
	seal(&im);
	fw_ctx_init(&f->fw, &f->rec, true);
	assert_int_equal(begin(f, &im), FTPU_LINK_RESP_FAILED);
	assert_int_equal(update_error(f), FTPU_FW_UPD_RUNNING);
}

/* The boot ROM's decisions over a sequence of boots. */
static void test_firmware_boot_decide(void **state)
{
	(void)state;
	struct fw_boot_record r;
	memset(&r, 0x5a, sizeof(r)); /* power-on: garbage */
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_POWER_ON),
			 FW_BOOT_STAY);
	assert_int_equal(r.magic, FW_BOOT_MAGIC);
	assert_int_equal(r.boots, 1);
	assert_int_equal(r.app_state, FTPU_FW_APP_NONE);
	assert_int_equal(r.fw_faults, 0);
	/* a REBOOT without BOOT 1 stays */
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_STAY);
	assert_int_equal(r.boots, 2);
	/* BOOTING + REBOOT starts the image; the watchdog fails it */
	r.app_state = FTPU_FW_APP_BOOTING;
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_APP);
	r.app_state = FTPU_FW_APP_RUNNING;
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_WATCHDOG),
			 FW_BOOT_STAY);
	assert_int_equal(r.app_state, FTPU_FW_APP_FAILED);
	assert_int_equal(r.fw_faults, 1);
	assert_int_equal(r.fault_code, FTPU_FW_FAULT_WATCHDOG);
	assert_int_equal(r.cause, FTPU_SYS_CAUSE_WATCHDOG);
	/* a failed image is not started again by a plain REBOOT */
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_STAY);
	assert_int_equal(r.app_state, FTPU_FW_APP_FAILED);
	/* BOOTING after a watchdog (not a REBOOT) does not start it */
	r.app_state = FTPU_FW_APP_BOOTING;
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_WATCHDOG),
			 FW_BOOT_STAY);
	assert_int_equal(r.app_state, FTPU_FW_APP_FAILED);
	/* left running by BOOT 0: accepted again */
	r.app_state = FTPU_FW_APP_RUNNING;
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_STAY);
	assert_int_equal(r.app_state, FTPU_FW_APP_ACCEPTED);
	/* a trap in a running image */
	r.app_state = FTPU_FW_APP_RUNNING;
	fw_boot_fault(&r, FTPU_FW_FAULT_TRAP + 2, 0x10010, 0xffffffff);
	assert_int_equal(r.app_state, FTPU_FW_APP_FAILED);
	assert_int_equal(r.fault_pc, 0x10010);
	/* power-on forgets everything */
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_POWER_ON),
			 FW_BOOT_STAY);
	assert_int_equal(r.boots, 1);
	assert_int_equal(r.fw_faults, 0);
	assert_int_equal(r.app_state, FTPU_FW_APP_NONE);
	/* a REBOOT with a broken record rebuilds it */
	r.magic = 0;
	r.app_state = FTPU_FW_APP_BOOTING;
	assert_int_equal(fw_boot_decide(&r, FTPU_SYS_CAUSE_REBOOT),
			 FW_BOOT_STAY);
	assert_int_equal(r.app_state, FTPU_FW_APP_NONE);
}

static void test_firmware_selftest(void **state)
{
	struct fx *f = *state;
	const uint32_t op = FTPU_LINK_OP_SELFTEST;
	assert_int_equal(request(f, &op, 1), 2 + FTPU_FW_SELFTEST_COUNT);
	assert_int_equal(f->rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_PASSED], 1);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_RAN],
			 FTPU_FW_TEST_CRC | FTPU_FW_TEST_GEMM |
				 FTPU_FW_TEST_RAM);
	assert_int_equal(f->rsp[2 + FTPU_FW_SELFTEST_FAILED], 0);
	/* the RAM test wrote its pattern's complement last */
	assert_int_equal(fake.scratch[1], ~0x9e3779b9u);
	/* the GEMM check finds a wrong element, in any row or column */
	struct gemm g;
	gemm_run(&g);
	assert_int_equal(gemm_check(&g), 1);
	assert_true(g.c[0][0] != g.c[GM - 1][GN - 1]);
	for (unsigned i = 0; i < GM; i++)
		for (unsigned j = 0; j < GN; j++) {
			g.c[i][j] ^= 1u << (i + j);
			assert_int_equal(gemm_check(&g), 0);
			g.c[i][j] ^= 1u << (i + j);
		}
	/* two errors that cancel in their row are caught by the columns,
	 * two that cancel in their column by the rows */
	g.c[1][0] += 5;
	g.c[1][2] -= 5;
	assert_int_equal(gemm_check(&g), 0);
	g.c[1][0] -= 5;
	g.c[1][2] += 5;
	g.c[0][1] += 5;
	g.c[2][1] -= 5;
	assert_int_equal(gemm_check(&g), 0);
}

/* ---- the fuzz corpus and inputs derived from it ---- */

static void test_firmware_fuzz_replay(void **state)
{
	(void)state;
	const char *dir = getenv("FTPU_FUZZ_CORPUS");
	DIR *d = opendir(dir ? dir : FTPU_FUZZ_CORPUS);
	struct dirent *e;
	static uint8_t buf[4096], mut[4096];
	struct rng g = {ftpu_test_seed()};
	unsigned files = 0, runs = 0, per_seed = ftpu_test_full() ? 20000 : 300;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[1024];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s",
			 dir ? dir : FTPU_FUZZ_CORPUS, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		fuzz_control_one(buf, n);
		files++;
		/* byte flips, insertions and cuts of the seed */
		for (unsigned k = 0; k < per_seed; k++) {
			size_t m = n;
			memcpy(mut, buf, n);
			unsigned edits = 1 + rng_below(&g, 4);
			for (unsigned j = 0; j < edits && m; j++) {
				size_t at = rng_below(&g, (uint32_t)m);
				switch (rng_below(&g, 3)) {
				case 0:
					mut[at] ^= (uint8_t)(1u << rng_below(
								     &g, 8));
					break;
				case 1:
					mut[at] = (uint8_t)rng_u32(&g);
					break;
				default:
					m = at + 1;
					break;
				}
			}
			fuzz_control_one(mut, m);
			runs++;
		}
	}
	closedir(d);
	assert_true(files >= 10);
	/* and plain random inputs */
	for (unsigned k = 0; k < per_seed * 4; k++) {
		size_t m = rng_below(&g, 400);
		for (size_t j = 0; j < m; j++)
			mut[j] = (uint8_t)rng_u32(&g);
		fuzz_control_one(mut, m);
		runs++;
	}
	print_message("fuzz replay: %u seeds, %u derived inputs\n", files,
		      runs);
}

/* The update image target's seeds, and the regression inputs of both
 * firmware targets (tests/fuzz/crashes/, when there are any): a failed
 * check traps (fuzz_check.h). */
static void test_firmware_fuzz_fw_image_replay(void **state)
{
	(void)state;
	int seeds = fuzz_replay_dir("tests/fuzz/corpus/fw_image", fuzz_fw_image_one);
	int c1 = fuzz_replay_dir("tests/fuzz/crashes/fw_image", fuzz_fw_image_one);
	int c2 = fuzz_replay_dir("tests/fuzz/crashes/control", fuzz_control_one);
	assert_true(seeds >= 5);
	print_message("fw_image: %d seeds; regression inputs: fw_image %d, control %d\n",
		      seeds, c1 < 0 ? 0 : c1, c2 < 0 ? 0 : c2);
}

/* The generated register description agrees with the protocol's enums
 * (docs/registers.md: INFO values at their key, STATUS at 0x10 + word,
 * counters at 0x20 + index) and with the RTL's MBOX/SYS offsets. */
static void test_firmware_register_description(void **state)
{
	(void)state;
	assert_int_equal(FTPU_REG_VERSION, FTPU_LINK_INFO_VERSION);
	assert_int_equal(FTPU_REG_MAX_PAYLOAD, FTPU_LINK_INFO_MAX_PAYLOAD);
	assert_int_equal(FTPU_REG_WEIGHT_TILES, FTPU_LINK_INFO_WEIGHT_TILES);
	assert_int_equal(FTPU_REG_STATE + FTPU_LINK_STATUS_FAULTS,
			 FTPU_REG_FAULTS);
	assert_int_equal(FTPU_REG_CYCLES + FTPU_LINK_CNT_INSTRUCTIONS,
			 FTPU_REG_INSTRUCTIONS);
	assert_int_equal(FTPU_REG_CYCLES + FTPU_LINK_CNT_BYTES_OUT_HI,
			 FTPU_REG_BYTES_OUT_HI);
	assert_int_equal(FTPU_REG_FAULT_COUNT + 3, FTPU_REG_FAULT_INSTR);
	assert_int_equal(FTPU_REG_CMD, 0x3f);
	assert_int_equal(FTPU_MASK(CMD_RESET), 1);
	assert_int_equal(FTPU_MASK(CMD_CLEAR_COUNTERS), 2);
	/* rtl/cpu/ftpu_cpu_mbox.sv, ftpu_cpu_sys.sv, ftpu_cpu.sv */
	assert_int_equal(FTPU_MMIO_MBOX(FTPU_MBOX_TX_W2), 0x4000040cu);
	assert_int_equal(FTPU_MMIO_MBOX(FTPU_MBOX_CREDIT), 0x40000410u);
	assert_int_equal(FTPU_MASK(MBOX_STATUS_TX_FULL), 2);
	assert_int_equal(FTPU_MMIO_SYS(FTPU_SYS_WDOG), 0x40000508u);
	assert_int_equal(FTPU_MASK(SYS_CTRL_REBOOT), 1);
	assert_int_equal(FTPU_MMIO_REG(FTPU_REG_CMD), 0x400000fcu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_firmware_crc32),
		cmocka_unit_test(test_firmware_register_description),
		cmocka_unit_test_setup_teardown(
			test_firmware_info_status_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_firmware_malformed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_firmware_read_counters,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_firmware_clear_counters,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_firmware_reset, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_firmware_fw_info, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_firmware_update_ok, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_firmware_update_bad_header,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_firmware_update_bad_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_firmware_boot_op, setup,
						teardown),
		cmocka_unit_test(test_firmware_boot_decide),
		cmocka_unit_test_setup_teardown(test_firmware_selftest, setup,
						teardown),
		cmocka_unit_test(test_firmware_fuzz_replay),
		cmocka_unit_test(test_firmware_fuzz_fw_image_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
