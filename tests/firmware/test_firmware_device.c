/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_firmware_device.c - issue 7 end to end: the control core inside the
 * simulated device (rtl/ftpu_top.sv ControlCore = 1) answers the CONTROL
 * frames with its firmware (build/fw/ftpu_fw.hex), on device_16 and
 * device_4p.
 *
 * Raw link (the device model and the C model side by side,
 * harness/device_host.h): FW_INFO (op 7, which ftpu_control's FSM and
 * the C model answer UNKNOWN_OP) reports the ROM firmware's version; INFO,
 * STATUS and FW_INFO round trips in cycles (printed); INFO, STATUS and
 * READ_FAULTS right while ftpu_top's register port is read every other
 * cycle (the core waits for the shared port); the self-test; a
 * matrix-unit fault (a MATMUL beyond the unified buffer) reported through
 * READ_FAULTS and STATUS exactly as the C model reports it, and equal to the
 * fault registers and the FAULT event.
 *
 * libftpu ("sim", "sim:rows=4"): ftpu_fw_info and ftpu_fw_selftest; a
 * corrupt update image (body, header) refused with the device's reason
 * while GEMMs keep matching the C model; the update built by make
 * (build/fw/ftpu_fw_app.img) accepted, booted and answering with its
 * version, then BOOT 0 back to the ROM; "ref" has no firmware
 * (FTPU_ERR_UNSUPPORTED). Every wait is bounded (cycles or the timeout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "ftpu_fw.h"
#include "device_host.h"
#include "ftpu_test.h"
#include "ftpu.h"
#include "numeric.h"

#ifndef FTPU_FW_DIR
#error "FTPU_FW_DIR: the firmware build directory (mk/models/cpu.mk)"
#endif

struct fixture {
	struct dh_host h;
	const char *name, *uri;
	uint32_t tag; /* next SYNC tag */
};

/* Cycle budget of one CONTROL round trip on the raw link: the firmware
 * answers INFO in ~2000 cycles, SELFTEST in ~80 000; power-on boot first. */
#define RT_LIMIT 2000000u

/* ---- fixture
 * ---------------------------------------------------------------------- */

static int setup_model(void **state, const char *name, const char *uri,
		       struct ftpu_sim *(*open)(const char *))
{
	static struct fixture fxs[2];
	struct fixture *fx = &fxs[name[0] == '4'];
	memset(fx, 0, sizeof(*fx));
	fx->name = name;
	fx->uri = uri;
	fx->tag = 0x100;
	struct ftpu_sim *sim = open(NULL);
	if (!sim || dh_host_open_rtl(&fx->h, sim, name))
		return -1;
	fx->h.dev[1].limit = RT_LIMIT;
	*state = fx;
	return 0;
}

static int setup_16(void **state)
{
	return setup_model(state, "device_16", "sim", ftpu_sim_open_device_16);
}

static int setup_4p(void **state)
{
	return setup_model(state, "4p", "sim:rows=4", ftpu_sim_open_device_4p);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	dh_host_close(&fx->h);
	return 0;
}

static int prepare(void **state)
{
	struct fixture *fx = *state;
	assert_true(dh_host_wait(&fx->h));
	dh_host_clear(&fx->h);
	return 0;
}

static struct ftpu_sim *rtl(struct fixture *fx)
{
	return dh_host_sim(&fx->h);
}

/* ---- raw CONTROL requests to the device model alone
 * ------------------------------- */

/*
 * Sends one CONTROL frame (req, n words) to the device model only, runs it
 * cycle by cycle until the whole RESPONSE is out (at most RT_LIMIT cycles)
 * and checks its framing and CRCs. Returns the RESPONSE payload length
 * (rsp gets up to cap words) and in *cycles the round trip: from the cycle
 * the request's first byte is offered to the one its answer's last byte
 * left. The device must be idle with nothing queued (the harness's frames
 * are not mixed with these).
 */
static size_t raw_request(struct fixture *fx, const uint32_t *req, size_t n,
			  uint32_t *rsp, size_t cap, uint64_t *cycles)
{
	struct ftpu_sim *s = rtl(fx);
	uint16_t seq = ++fx->h.seq;
	size_t len;
	uint8_t *b = dh_encode(FTPU_LINK_CONTROL, 0, seq, req, n, &len);
	uint8_t out[FTPU_LINK_FRAME_BYTES(FTPU_LINK_MAX_CONTROL * 2)];
	size_t got = 0, want = 16;
	uint64_t ran = 0;

	assert_int_equal(ftpu_sim_device_out_queued(s), 0);
	assert_true(ftpu_sim_device_push(s, b, len));
	free(b);
	while (got < want) {
		if (ran >= RT_LIMIT)
			fail_msg("%s: no RESPONSE to op %u within %u cycles",
				 fx->name, req[0], RT_LIMIT);
		assert_true(ftpu_sim_device_run(s, 1));
		ran++;
		size_t k = ftpu_sim_device_pull(s, out + got, want - got);
		got += k;
		if (k && got == 16) {
			/* the header: SYNC, w1, w2, HCRC */
			assert_int_equal(ftpu_link_get_le32(out),
					 FTPU_LINK_SYNC);
			assert_int_equal(ftpu_link_get_le32(out + 12),
					 ftpu_crc32_update(0, out, 12));
			uint32_t w1 = ftpu_link_get_le32(out + 4),
				 w2 = ftpu_link_get_le32(out + 8);
			assert_int_equal(w1 & 0xff, FTPU_LINK_RESPONSE);
			assert_int_equal(w1 >> 16, seq);
			assert_true((w2 & 0xffff) <= FTPU_LINK_MAX_CONTROL * 2);
			want = FTPU_LINK_FRAME_BYTES(w2 & 0xffff);
		}
	}
	size_t words = (want - 20) / 4;
	assert_int_equal(ftpu_link_get_le32(out + want - 4),
			 ftpu_crc32_update(ftpu_link_get_le32(out + 12),
					   out + 16, 4 * words));
	for (size_t i = 0; i < words && i < cap; i++)
		rsp[i] = ftpu_link_get_le32(out + 16 + 4 * i);
	assert_true(words >= 2);
	assert_int_equal(rsp[0], n ? req[0] : 0);
	if (cycles)
		*cycles = ran;
	/* nothing else came */
	assert_true(ftpu_sim_device_run_until_idle(s, RT_LIMIT, NULL));
	assert_int_equal(ftpu_sim_device_out_queued(s), 0);
	return words;
}

/* ---- tests: raw link
 * ------------------------------------------------------------------ */

/* The firmware answers: FW_INFO (an op only the firmware knows), INFO and
 * STATUS with the device's values; round trips in cycles. */
static void test_firmware_device_answers(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	uint32_t rsp[40], op;
	uint64_t cyc_info, cyc_status, cyc_fwinfo, cyc;

	op = FTPU_LINK_OP_FW_INFO;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, &cyc),
			 2 + FTPU_FW_INFO_COUNT);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rsp[2 + FTPU_FW_INFO_VERSION], FTPU_FW_VERSION);
	assert_int_equal(rsp[2 + FTPU_FW_INFO_ABI], FTPU_FW_ABI);
	assert_int_equal(rsp[2 + FTPU_FW_INFO_RUNNING], 0);
	assert_true(rsp[2 + FTPU_FW_INFO_BOOTS] >= 1);
	assert_int_equal(rsp[2 + FTPU_FW_INFO_FW_FAULTS], 0);
	/* again, now that the core is past its boot */
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, &cyc_fwinfo),
			 2 + FTPU_FW_INFO_COUNT);
	uint32_t boots = rsp[2 + FTPU_FW_INFO_BOOTS];

	op = FTPU_LINK_OP_INFO;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, &cyc_info), 28);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	uint32_t v;
	assert_int_equal(
		ftpu_link_info_get(rsp, 28, FTPU_LINK_INFO_VERSION, &v), 0);
	assert_int_equal(v, 0x00010005);
	assert_int_equal(
		ftpu_link_info_get(rsp, 28, FTPU_LINK_INFO_FEATURES, &v), 0);
	assert_int_equal(v, c->vector_unit ? 1u : 0u);
	assert_int_equal(ftpu_link_info_get(rsp, 28, FTPU_LINK_INFO_ROWS, &v),
			 0);
	assert_int_equal(v, c->n);
	assert_int_equal(
		ftpu_link_info_get(rsp, 28, FTPU_LINK_INFO_ROW_DELAY, &v), 0);
	assert_int_equal(v, c->row_delay);
	assert_int_equal(
		ftpu_link_info_get(rsp, 28, FTPU_LINK_INFO_IQ_WORDS, &v), 0);
	assert_int_equal(v, c->rx_words);

	op = FTPU_LINK_OP_STATUS;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, &cyc_status), 6);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rsp[2], FTPU_LINK_STATE_IDLE);
	assert_int_equal(rsp[3], c->rx_words);
	assert_int_equal(rsp[4], 0);

	/* an op nobody knows, and a malformed request: the firmware's
	 * answers are protocol 1.0's */
	op = 13;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, NULL), 2);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_UNKNOWN_OP);
	const uint32_t two[2] = {FTPU_LINK_OP_STATUS, 1};
	assert_int_equal(raw_request(fx, two, 2, rsp, 40, NULL), 2);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_BAD_REQUEST);

	/* the core did not reboot in between */
	op = FTPU_LINK_OP_FW_INFO;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 40, NULL),
			 2 + FTPU_FW_INFO_COUNT);
	assert_int_equal(rsp[2 + FTPU_FW_INFO_BOOTS], boots);

	print_message("%s: CONTROL round trip (first request byte in to last "
		      "RESPONSE "
		      "byte out), cycles: INFO %llu, STATUS %llu, FW_INFO %llu "
		      "(first, "
		      "with boot: %llu)\n",
		      fx->name, (unsigned long long)cyc_info,
		      (unsigned long long)cyc_status,
		      (unsigned long long)cyc_fwinfo, (unsigned long long)cyc);
	/* a hardware FSM answers within the frame's bytes and a few cycles;
	 * the firmware takes its instructions (docs/firmware.md) */
	assert_true(cyc_info >
		    FTPU_LINK_FRAME_BYTES(1) + FTPU_LINK_FRAME_BYTES(24) + 200);
	assert_true(cyc_info < 20000 && cyc_status < 20000 &&
		    cyc_fwinfo < 20000);
}

/* The register port is shared: ftpu_top's own port has priority and the
 * core waits. INFO, READ_FAULTS and STATUS answered while the port is read
 * on every other cycle (ID and BIAS_VECTORS, values none of these answers
 * holds elsewhere) equal the answers without it: each side gets its own
 * words. */
static void test_firmware_device_shared_registers(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	struct ftpu_sim *s = rtl(fx);
	const uint32_t ops[] = {FTPU_LINK_OP_INFO, FTPU_LINK_OP_READ_FAULTS,
				FTPU_LINK_OP_STATUS};
	uint8_t out[256];

	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		uint32_t want_rsp[32], rsp[32], v;
		size_t n = raw_request(fx, &ops[o], 1, want_rsp, 32, NULL);
		uint16_t seq = ++fx->h.seq;
		size_t len, got = 0, want = 16, reads = 0;
		uint8_t *b =
			dh_encode(FTPU_LINK_CONTROL, 0, seq, &ops[o], 1, &len);
		assert_true(ftpu_sim_device_push(s, b, len));
		free(b);
		for (uint64_t cyc = 0; got < want; cyc += 2) {
			uint32_t addr = reads % 2 ? 0x07 : 0x00;
			assert_true(cyc < RT_LIMIT);
			/* two cycles: the request (the core waits), the data */
			assert_true(ftpu_sim_device_reg_read(s, addr, &v));
			assert_int_equal(v, addr ? c->bias_vectors
						 : FTPU_LINK_SYNC);
			reads++;
			got += ftpu_sim_device_pull(s, out + got, want - got);
			if (got >= 16 && want == 16)
				want = FTPU_LINK_FRAME_BYTES(
					ftpu_link_get_le32(out + 8) & 0xffff);
		}
		size_t words = (want - 20) / 4;
		assert_int_equal(words, n);
		assert_int_equal(ftpu_link_get_le32(out + 4) >> 16, seq);
		for (size_t i = 0; i < words; i++) {
			rsp[i] = ftpu_link_get_le32(out + 16 + 4 * i);
			if (rsp[i] != want_rsp[i])
				fail_msg("%s: op %u word %zu: %#x under "
					 "register reads, %#x "
					 "without",
					 fx->name, ops[o], i, rsp[i],
					 want_rsp[i]);
		}
		assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
		print_message("%s: op %u answered under %zu register reads\n",
			      fx->name, ops[o], reads);
		assert_true(ftpu_sim_device_run_until_idle(s, RT_LIMIT, NULL));
	}
}

/* SELFTEST runs on the core and passes. */
static void test_firmware_device_selftest(void **state)
{
	struct fixture *fx = *state;
	uint32_t rsp[8], op = FTPU_LINK_OP_SELFTEST;
	uint64_t cyc;
	assert_int_equal(raw_request(fx, &op, 1, rsp, 8, &cyc),
			 2 + FTPU_FW_SELFTEST_COUNT);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	const uint32_t need =
		FTPU_FW_TEST_CRC | FTPU_FW_TEST_GEMM | FTPU_FW_TEST_RAM;
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_RAN] & need, need);
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_FAILED], 0);
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_PASSED], 1);
	print_message("%s: SELFTEST ran %#x in %llu cycles\n", fx->name,
		      rsp[2 + FTPU_FW_SELFTEST_RAN], (unsigned long long)cyc);
}

/* A fault in the matrix unit (a MATMUL reading beyond the unified buffer):
 * the FAULT event, then READ_FAULTS and STATUS answered by the firmware as
 * the C model answers them, equal to the fault registers; RESET clears
 * it. */
static void test_firmware_device_fault(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	struct dh_prog p = {0};

	assert_true(dh_host_control(&fx->h, FTPU_LINK_OP_RESET));
	dh_prog_instr(&p, FTPU_OP_SYNC, 0, 0, fx->tag++, 0);
	dh_prog_matmul(&p, c->n, FTPU_MATMUL_SWAP, 1, c->ub_vectors, 0);
	dh_prog_instr(&p, FTPU_OP_SYNC, 0, 0, fx->tag++, 0);
	assert_true(dh_host_send_prog(&fx->h, &p, 4, NULL));
	assert_true(dh_host_control(&fx->h, FTPU_LINK_OP_READ_FAULTS));
	assert_true(dh_host_control(&fx->h, FTPU_LINK_OP_STATUS));
	assert_true(dh_host_wait(&fx->h));
	assert_int_equal(dh_host_compare(&fx->h), 0);

	const struct dh_frames *ev =
		dh_dev_frames(&fx->h.dev[1], DH_CLASS_PROGRAM);
	const struct dh_frames *rs =
		dh_dev_frames(&fx->h.dev[1], DH_CLASS_RESPONSE);
	assert_true(ev->n >= 1 && rs->n == 3);
	const struct dh_frame *fault = &ev->f[ev->n - 1], *rf = &rs->f[1],
			      *st = &rs->f[2];
	assert_int_equal(fault->payload[0], FTPU_LINK_EVENT_FAULT);
	assert_int_equal(fault->payload[2], FTPU_FAULT_RANGE);
	assert_int_equal(rf->payload[0], FTPU_LINK_OP_READ_FAULTS);
	assert_int_equal(rf->payload[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rf->payload[2], 1); /* one fault since RESET */
	for (unsigned i = 0; i < 3;
	     i++) /* pc, code, instruction: the event's */
		assert_int_equal(rf->payload[3 + i], fault->payload[1 + i]);
	assert_int_equal(st->payload[5], 1); /* STATUS faults */
	for (unsigned i = 0; i < 4; i++) {
		uint32_t v;
		assert_true(ftpu_sim_device_reg_read(rtl(fx), 0x30 + i, &v));
		assert_int_equal(v, rf->payload[2 + i]);
	}
	dh_host_clear(&fx->h);

	/* RESET (through the firmware) clears the record */
	assert_true(dh_host_control(&fx->h, FTPU_LINK_OP_RESET));
	assert_true(dh_host_control(&fx->h, FTPU_LINK_OP_READ_FAULTS));
	assert_true(dh_host_wait(&fx->h));
	assert_int_equal(dh_host_compare(&fx->h), 0);
	rs = dh_dev_frames(&fx->h.dev[1], DH_CLASS_RESPONSE);
	assert_int_equal(rs->n, 2);
	assert_int_equal(rs->f[0].credit,
			 c->rx_words > 0xffff ? 0xffff : c->rx_words);
	assert_int_equal(rs->f[1].payload[2], 0);
	dh_prog_free(&p);
}

/* ---- tests: libftpu
 * --------------------------------------------------------------- */

static ftpu_device *open_dev(const char *uri)
{
	ftpu_device *dev = NULL;
	int ret = ftpu_open(uri, &dev);
	if (ret)
		fail_msg("ftpu_open(%s): %s (%s)", uri, ftpu_strerror(ret),
			 ftpu_last_error(NULL));
	return dev;
}

/* A small GEMM on dev and on the C model: bit-identical results. */
static void gemm_vs_ref(ftpu_device *dev, ftpu_device *ref, uint32_t seed)
{
	enum { M = 5, K = 7, N = 6 };
	float a[M * K], b[K * N], c1[M * N], c2[M * N];
	struct rng r = {seed};
	for (size_t i = 0; i < M * K; i++)
		a[i] = (float)(int32_t)rng_u32(&r) / 2147483648.0f;
	for (size_t i = 0; i < K * N; i++)
		b[i] = (float)(int32_t)rng_u32(&r) / 2147483648.0f;
	int ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K, 1.0f, a,
			    K, b, N, 0.0f, c1, N);
	if (ret)
		fail_msg("ftpu_gemm: %s (%s)", ftpu_strerror(ret),
			 ftpu_last_error(dev));
	assert_int_equal(ftpu_gemm(ref, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K,
				   1.0f, a, K, b, N, 0.0f, c2, N),
			 FTPU_OK);
	assert_memory_equal(c1, c2, sizeof(c1));
}

static uint8_t *read_image(size_t *len)
{
	const char *path = FTPU_FW_DIR "/ftpu_fw_app.img";
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (make firmware)", path);
	uint8_t *buf = malloc(64 * 1024);
	assert_non_null(buf);
	*len = fread(buf, 1, 64 * 1024, f);
	fclose(f);
	assert_true(*len > 4 * FTPU_FW_IMG_WORDS && *len % 4 == 0);
	return buf;
}

/* ftpu_fw_info and ftpu_fw_selftest through the library; the C model has
 * no firmware. */
static void test_firmware_device_libftpu(void **state)
{
	struct fixture *fx = *state;
	ftpu_device *dev = open_dev(fx->uri), *ref = open_dev("ref");
	struct ftpu_fw_info fi;
	struct ftpu_device_info di;
	bool passed = false;
	uint32_t ran = 0, failed = ~0u;

	assert_int_equal(ftpu_get_info(dev, &di), FTPU_OK);
	assert_int_equal(di.rows, dh_host_cfg(&fx->h)->n);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.version, FTPU_FW_VERSION);
	assert_int_equal(fi.abi, FTPU_FW_ABI);
	assert_int_equal(fi.running, 0);
	assert_int_equal(ftpu_fw_selftest(dev, &passed, &ran, &failed),
			 FTPU_OK);
	assert_true(passed);
	assert_int_equal(failed, 0);
	assert_true(ran & FTPU_FW_TEST_GEMM);
	gemm_vs_ref(dev, ref, 1);
	assert_int_equal(ftpu_fw_info(ref, &fi), FTPU_ERR_UNSUPPORTED);
	/* the ops with arguments too (BAD_REQUEST from a device that judges
	 * the length first), and the device still works after them */
	size_t len;
	uint8_t *img = read_image(&len);
	assert_int_equal(ftpu_fw_selftest(ref, &passed, &ran, &failed),
			 FTPU_ERR_UNSUPPORTED);
	assert_int_equal(ftpu_fw_load(ref, img, len, true), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(ftpu_last_error(ref), "no control core"));
	assert_int_equal(ftpu_fw_boot(ref, 0), FTPU_ERR_UNSUPPORTED);
	assert_int_equal(ftpu_fw_boot(ref, 1), FTPU_ERR_UNSUPPORTED);
	free(img);
	gemm_vs_ref(dev, ref, 1);
	assert_int_equal(ftpu_fw_info(dev, NULL), FTPU_ERR_INVALID);
	ftpu_close(ref);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

/* Corrupt images are refused and the device keeps working; the good one
 * is accepted, boots and answers; BOOT 0 returns to the ROM. */
static void test_firmware_device_update(void **state)
{
	struct fixture *fx = *state;
	ftpu_device *dev = open_dev(fx->uri), *ref = open_dev("ref");
	struct ftpu_fw_info fi;
	size_t len;
	uint8_t *img = read_image(&len), *bad = malloc(len);
	int ret;

	assert_non_null(bad);
	/* a flipped bit in the body: BAD_CRC at COMMIT */
	memcpy(bad, img, len);
	bad[4 * FTPU_FW_IMG_WORDS + 100] ^= 0x08;
	ret = ftpu_fw_load(dev, bad, len, true);
	print_message("%s: corrupt body: %s (%s)\n", fx->name,
		      ftpu_strerror(ret), ftpu_last_error(dev));
	assert_int_equal(ret, FTPU_ERR_CORRUPT);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.update_error, FTPU_FW_UPD_BAD_CRC);
	assert_int_equal(fi.app_state, FTPU_FW_APP_NONE);
	assert_int_equal(fi.running, 0);
	assert_int_equal(fi.version, FTPU_FW_VERSION);
	gemm_vs_ref(dev, ref, 2);
	/* a flipped bit in the header's version: BAD_HCRC at BEGIN */
	memcpy(bad, img, len);
	bad[4 * FTPU_FW_IMG_VERSION] ^= 0x01;
	assert_int_equal(ftpu_fw_load(dev, bad, len, true), FTPU_ERR_CORRUPT);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.update_error, FTPU_FW_UPD_BAD_HCRC);
	/* BOOT 1 without an accepted image */
	assert_int_equal(ftpu_fw_boot(dev, 1), FTPU_ERR_CORRUPT);
	gemm_vs_ref(dev, ref, 3);

	/* the good image: accepted, booted, serving */
	ret = ftpu_fw_load(dev, img, len, true);
	if (ret)
		fail_msg("ftpu_fw_load: %s (%s)", ftpu_strerror(ret),
			 ftpu_last_error(dev));
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.version, FTPU_FW_APP_VERSION);
	assert_int_equal(fi.running, 1);
	assert_int_equal(fi.app_state, FTPU_FW_APP_RUNNING);
	assert_int_equal(fi.app_version, FTPU_FW_APP_VERSION);
	assert_int_equal(fi.app_size, len - 4 * FTPU_FW_IMG_WORDS);
	assert_int_equal(fi.fw_faults, 0);
	gemm_vs_ref(dev, ref, 4);
	assert_int_equal(ftpu_reset(dev), FTPU_OK);
	gemm_vs_ref(dev, ref, 5);
	/* an update cannot replace itself */
	assert_int_equal(ftpu_fw_load(dev, img, len, false), FTPU_ERR_CORRUPT);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.update_error, FTPU_FW_UPD_RUNNING);

	/* back to the boot ROM's firmware; the update stays accepted */
	assert_int_equal(ftpu_fw_boot(dev, 0), FTPU_OK);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_OK);
	assert_int_equal(fi.version, FTPU_FW_VERSION);
	assert_int_equal(fi.running, 0);
	assert_int_equal(fi.app_state, FTPU_FW_APP_ACCEPTED);
	gemm_vs_ref(dev, ref, 6);
	free(bad);
	free(img);
	ftpu_close(ref);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
}

#define T(f) cmocka_unit_test_setup(f, prepare)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_firmware_device_answers),
		T(test_firmware_device_shared_registers),
		T(test_firmware_device_selftest),
		T(test_firmware_device_fault),
		T(test_firmware_device_libftpu),
		T(test_firmware_device_update),
	};
	int failed = cmocka_run_group_tests_name("device_16", tests, setup_16,
						 teardown);
	failed += cmocka_run_group_tests_name("4p", tests, setup_4p, teardown);
	return failed;
}
