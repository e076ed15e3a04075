/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rv32i.c - the control core (rtl/cpu/, docs/firmware.md) in
 * Verilator: the instruction-level programs (tests/cpu/, .S files), each loaded
 * at run time into one cpu model and run to its exit code within a cycle
 * budget; random instruction sequences against a small RV32I reference
 * interpreter written here; and the firmware (build/fw/) answering CONTROL
 * requests through the mailbox, with a firmware update.
 *
 * Every run has a cycle budget; a program that does not write its exit
 * code within it fails.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "ftpu_fw.h"
#include "ftpu_regs.h"
#include "ftpu_test.h"
#include "ref_control.h"
#include "ftpu.h"
#include "ftpu_sim_cpu.h"
#include "link.h"
#include "ref_device.h"

#ifndef FTPU_FW_DIR
#define FTPU_FW_DIR "build/fw"
#endif
#ifndef FTPU_FW_APP_VERSION
#define FTPU_FW_APP_VERSION 0x000101
#endif

#ifndef FTPU_CPU_TEST_DIR
#define FTPU_CPU_TEST_DIR "build/cpu-tests"
#endif

/* tests/cpu/cpu_test.h */
#define PASS_CODE 0x0000600du
#define FAIL_CODE 0xfa110000u
#define TRAP_CODE 0xee000000u

static struct ftpu_sim *sim;
static struct ftpu_sim_cpu_config cfg;

/* Fills ROM and RAM with a pattern, so that no program sees what an
 * earlier one left behind. */
static void scrub(void)
{
	static uint32_t fill[16384];
	for (size_t i = 0; i < sizeof(fill) / 4; i++)
		fill[i] = 0xdeadbeefu ^ (uint32_t)i;
	assert_true(cfg.rom_bytes <= sizeof(fill) &&
		    cfg.ram_bytes <= sizeof(fill));
	assert_true(ftpu_sim_cpu_load_words(sim, cfg.rom_base, fill,
					    cfg.rom_bytes / 4));
	assert_true(ftpu_sim_cpu_load_words(sim, cfg.ram_base, fill,
					    cfg.ram_bytes / 4));
}

static void load_program(const char *name)
{
	char path[512];
	const char *dir = getenv("FTPU_CPU_TEST_DIR");
	snprintf(path, sizeof(path), "%s/%s.hex", dir ? dir : FTPU_CPU_TEST_DIR,
		 name);
	scrub();
	long n = ftpu_sim_cpu_load_hex(sim, path);
	if (n <= 0)
		fail_msg("cannot load %s (make %s)", path, path);
}

static void print_console(const char *name)
{
	char buf[512];
	size_t n = ftpu_sim_cpu_console(sim, buf, sizeof(buf) - 1);
	buf[n] = 0;
	if (n)
		print_message("%s console: %s\n", name, buf);
}

/* Runs the loaded program to its exit code; fails with its meaning. */
static void run_to_exit(const char *name, uint64_t budget,
			struct ftpu_sim_cpu_stats *st)
{
	unsigned ev = ftpu_sim_cpu_run(sim, budget, FTPU_SIM_CPU_UNTIL_EXIT);
	assert_true(ftpu_sim_cpu_get_stats(sim, st));
	print_console(name);
	if (!ev)
		fail_msg("%s: no exit code within %" PRIu64 " cycles (%" PRIu64
			 " retired, %" PRIu64 " traps)",
			 name, budget, st->retired, st->traps);
	uint32_t c = st->exit_code;
	if ((c & 0xffff0000u) == FAIL_CODE)
		fail_msg("%s: check %u failed", name, c & 0xffffu);
	if ((c & 0xff000000u) == TRAP_CODE)
		fail_msg("%s: unexpected trap, mcause %u, in check %u", name,
			 (c >> 16) & 0xffu, c & 0xffffu);
	if (c != PASS_CODE)
		fail_msg("%s: unknown exit code 0x%08x", name, c);
}

struct prog {
	const char *name;
	unsigned ext_delay; /* test device wait cycles */
};

static void run_prog(const struct prog *p)
{
	struct ftpu_sim_cpu_stats st;
	load_program(p->name);
	ftpu_sim_cpu_restart(sim, 4);
	assert_true(ftpu_sim_cpu_set_ext_delay(sim, p->ext_delay));
	assert_true(ftpu_sim_cpu_set_rsp_period(sim, 1));
	assert_true(ftpu_sim_cpu_set_credit(sim, 0));
	run_to_exit(p->name, 200000, &st);
	assert_int_equal(st.core_resets, 0);
	print_message("%-16s %6" PRIu64 " cycles %5" PRIu64
		      " instructions %3" PRIu64 " traps  CPI %.2f\n",
		      p->name, st.exit_cycle, st.retired, st.traps,
		      st.retired ? (double)st.exit_cycle / (double)st.retired
				 : 0.0);
}

#define PROG_TEST(n)                                                           \
	static void test_rv32i_##n(void **state)                               \
	{                                                                      \
		(void)state;                                                   \
		run_prog(&(struct prog){#n, 0});                               \
	}
PROG_TEST(alu)
PROG_TEST(lui_auipc)
PROG_TEST(branch)
PROG_TEST(jump)
PROG_TEST(load_store)
PROG_TEST(regs)
PROG_TEST(csr)
PROG_TEST(counters)
PROG_TEST(trap_misaligned)
PROG_TEST(trap_illegal)
PROG_TEST(trap_system)
PROG_TEST(access_fault)
PROG_TEST(ram_exec)

/* tests/cpu/mmio.S: the mailbox words it expects and sends, the EXT wait
 * states, three boots (REBOOT, watchdog). */
static void run_mmio(unsigned ext_delay, unsigned rsp_period)
{
	const uint32_t ctl[] = {0x11111111u, 0x22222222u, 0x33333333u};
	const uint32_t want[] = {0xaaaa0081u, 0x43210002u, 5, 6};
	uint32_t rsp[8];
	struct ftpu_sim_cpu_stats st;

	load_program("mmio");
	ftpu_sim_cpu_restart(sim, 4);
	assert_true(ftpu_sim_cpu_set_ext_delay(sim, ext_delay));
	assert_true(ftpu_sim_cpu_set_rsp_period(sim, rsp_period));
	assert_true(ftpu_sim_cpu_set_credit(sim, 0x4321));
	assert_true(ftpu_sim_cpu_ctl_push(sim, ctl, 3));
	run_to_exit("mmio", 200000, &st);
	assert_int_equal(ftpu_sim_cpu_ctl_queued(sim), 0);
	assert_int_equal(ftpu_sim_cpu_rsp_pull(sim, rsp, 8), 4);
	assert_memory_equal(rsp, want, sizeof(want));
	assert_int_equal(st.responses, 1);
	assert_int_equal(st.core_resets, 2); /* REBOOT, then the watchdog */
}

static void test_rv32i_mmio(void **state)
{
	(void)state;
	run_mmio(0, 1);
}

static void test_rv32i_mmio_wait_states(void **state)
{
	(void)state;
	run_mmio(7, 5);
	run_mmio(15, 13);
}

/* ---- the firmware on the core
 * ------------------------------------------------ */

#define FW_BOOT_CYCLES 20000u	/* from reset to polling the mailbox */
#define FW_RSP_CYCLES 2000000u	/* one request to its whole response */
#define FW_WDOG_BUDGET 6000000u /* the watchdog: 4 Mi cycles */

static struct ftpu_ref_device_config ref_cfg;

static void fw_path(char *path, size_t n, const char *file)
{
	const char *dir = getenv("FTPU_FW_DIR");
	snprintf(path, n, "%s/%s", dir ? dir : FTPU_FW_DIR, file);
}

/* The control plane's registers as ftpu_control shows the C model's
 * default device (docs/registers.md), idle, with no faults. */
static void set_device_regs(void)
{
	const struct ftpu_ref_device_config *c = &ref_cfg;
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
		assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_VERSION + i,
						 info[i]));
	assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_ID, FTPU_LINK_SYNC));
	assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_STATE,
					 FTPU_LINK_STATE_IDLE));
	assert_true(
		ftpu_sim_cpu_reg_set(sim, FTPU_REG_FREE_WORDS, c->rx_words));
	assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_QUEUED_WORDS, 0));
	assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_FAULTS, 0));
	for (unsigned a = FTPU_REG_FAULT_COUNT; a <= FTPU_REG_FAULT_INSTR; a++)
		assert_true(ftpu_sim_cpu_reg_set(sim, a, 0));
}

/* Loads the boot ROM image, powers on and lets it boot. */
static void fw_power_on(void)
{
	char path[512];
	fw_path(path, sizeof(path), "ftpu_fw.hex");
	scrub();
	if (ftpu_sim_cpu_load_hex(sim, path) <= 0)
		fail_msg("cannot load %s (make firmware)", path);
	ftpu_sim_cpu_restart(sim, 4);
	assert_true(ftpu_sim_cpu_set_ext_delay(sim, 0));
	assert_true(ftpu_sim_cpu_set_rsp_period(sim, 1));
	assert_true(ftpu_sim_cpu_set_credit(sim, (uint16_t)ref_cfg.rx_words));
	set_device_regs();
	assert_int_equal(
		ftpu_sim_cpu_run(sim, FW_BOOT_CYCLES, FTPU_SIM_CPU_UNTIL_EXIT),
		0);
}

/* One CONTROL frame with n payload words; returns the RESPONSE payload
 * length and fills rsp (cap words). Checks the RESPONSE header: type, seq
 * echoed, credit, len. *cycles (may be NULL) gets the round trip. */
static unsigned fw_request(uint16_t seq, const uint32_t *pl, unsigned n,
			   uint32_t *rsp, unsigned cap, uint64_t *cycles)
{
	uint32_t w[2 + 32], r[2 + 64];
	struct ftpu_sim_cpu_stats st0, st;
	assert_true(n <= 32);
	w[0] = FTPU_LINK_W1(FTPU_LINK_CONTROL, 0, seq);
	w[1] = FTPU_LINK_W2(n, 0);
	memcpy(w + 2, pl, n * 4);
	assert_true(ftpu_sim_cpu_get_stats(sim, &st0));
	assert_true(ftpu_sim_cpu_ctl_push(sim, w, n + 2));
	if (ftpu_sim_cpu_run(sim, FW_RSP_CYCLES, FTPU_SIM_CPU_UNTIL_RESPONSE) ==
	    0)
		fail_msg("no RESPONSE to op %u within %u cycles", n ? pl[0] : 0,
			 FW_RSP_CYCLES);
	assert_true(ftpu_sim_cpu_get_stats(sim, &st));
	if (cycles)
		*cycles = st.cycles - st0.cycles;
	size_t got = ftpu_sim_cpu_rsp_pull(sim, r, 2 + 64);
	assert_true(got >= 4);
	assert_int_equal(r[0], FTPU_LINK_W1(FTPU_LINK_RESPONSE, 0, seq));
	unsigned len = r[1] & 0xffffu;
	assert_int_equal(r[1] >> 16, (uint16_t)ref_cfg.rx_words);
	assert_int_equal(got, 2 + len);
	assert_int_equal(ftpu_sim_cpu_ctl_queued(sim), 0);
	assert_true(len <= cap);
	memcpy(rsp, r + 2, len * 4);
	return len;
}

/* The firmware's answer equals the C model's for this request. */
static void expect_as_ref(uint16_t seq, const uint32_t *pl, unsigned n)
{
	uint32_t a[64], b[64];
	unsigned na = fw_request(seq, pl, n, a, 64, NULL);
	unsigned nb = ref_control(&ref_cfg, pl, n, b);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * 4);
}

static void test_rv32i_fw_protocol_1_0(void **state)
{
	(void)state;
	const uint32_t info = FTPU_LINK_OP_INFO, status = FTPU_LINK_OP_STATUS;
	const uint32_t faults = FTPU_LINK_OP_READ_FAULTS;
	const uint32_t two[] = {FTPU_LINK_OP_INFO, 5}, unknown = 99;
	uint64_t cycles;
	uint32_t rsp[64];

	fw_power_on();
	expect_as_ref(1, &info, 1);
	expect_as_ref(2, &status, 1);
	expect_as_ref(3, &faults, 1);
	expect_as_ref(4, &unknown, 1); /* UNKNOWN_OP */
	expect_as_ref(5, two, 2);      /* BAD_REQUEST */
	expect_as_ref(6, NULL, 0);     /* empty: op 0, BAD_REQUEST */
	expect_as_ref(7, (const uint32_t[]){99, 1}, 2);
	/* the round trip of INFO, mailbox to mailbox */
	assert_int_equal(fw_request(0xffff, &info, 1, rsp, 64, &cycles), 2 + 2 * FTPU_LINK_INFO_MAX);
	print_message("INFO round trip: %" PRIu64 " cycles\n", cycles);
	assert_true(cycles < 20000);
}

/* READ_COUNTERS answers the counter registers in protocol order. */
static void test_rv32i_fw_counters(void **state)
{
	(void)state;
	const uint32_t op = FTPU_LINK_OP_READ_COUNTERS,
		       clr = FTPU_LINK_OP_CLEAR_COUNTERS;
	uint32_t rsp[64];
	unsigned cnt;
	uint32_t last;

	fw_power_on();
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
		assert_true(ftpu_sim_cpu_reg_set(sim, FTPU_REG_CYCLES + i,
						 0x1000u * (i + 1) + i));
	assert_int_equal(fw_request(10, &op, 1, rsp, 64, NULL),
			 2 + FTPU_LINK_CNT_COUNT);
	assert_int_equal(rsp[0], op);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
		assert_int_equal(rsp[2 + i], 0x1000u * (i + 1) + i);
	/* one CMD SNAPSHOT (all counters in one cycle), then its copy read
	 * once each; the live registers are not read */
	assert_true(ftpu_sim_cpu_reg_writes(sim, FTPU_REG_CMD, &cnt, &last));
	assert_int_equal(cnt, 1);
	assert_int_equal(last, FTPU_MASK(CMD_SNAPSHOT));
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++) {
		assert_int_equal(ftpu_sim_cpu_reg_reads(sim, FTPU_REG_SNAP + i), 1);
		assert_int_equal(ftpu_sim_cpu_reg_reads(sim, FTPU_REG_CYCLES + i), 0);
	}
	assert_int_equal(fw_request(11, &clr, 1, rsp, 64, NULL), 2);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_true(ftpu_sim_cpu_reg_writes(sim, FTPU_REG_CMD, &cnt, &last));
	assert_int_equal(cnt, 2);
	assert_int_equal(last, FTPU_MASK(CMD_CLEAR_COUNTERS));
}

/* RESET writes CMD.RESET and waits for STATE to read IDLE. */
static void test_rv32i_fw_reset(void **state)
{
	(void)state;
	const uint32_t op = FTPU_LINK_OP_RESET;
	uint32_t rsp[64];
	unsigned cnt;
	uint32_t last;

	fw_power_on();
	assert_int_equal(fw_request(20, &op, 1, rsp, 64, NULL), 2);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_true(ftpu_sim_cpu_reg_writes(sim, FTPU_REG_CMD, &cnt, &last));
	assert_int_equal(cnt, 1);
	assert_int_equal(last, FTPU_MASK(CMD_RESET));
	assert_true(ftpu_sim_cpu_reg_reads(sim, FTPU_REG_STATE) >= 1);
}

/* Requests longer than MAX_CONTROL (which the link refuses anyway) are
 * read to their end and answered BAD_REQUEST; the next one still works. */
static void test_rv32i_fw_long_request(void **state)
{
	(void)state;
	uint32_t pl[20] = {FTPU_LINK_OP_INFO}, rsp[64];
	const uint32_t status = FTPU_LINK_OP_STATUS;

	fw_power_on();
	assert_int_equal(fw_request(30, pl, 20, rsp, 64, NULL), 2);
	assert_int_equal(rsp[0], FTPU_LINK_OP_INFO);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_BAD_REQUEST);
	expect_as_ref(31, &status, 1);
}

static unsigned fw_info(uint16_t seq, uint32_t *info)
{
	const uint32_t op = FTPU_LINK_OP_FW_INFO;
	uint32_t rsp[64];
	unsigned n = fw_request(seq, &op, 1, rsp, 64, NULL);
	assert_int_equal(n, 2 + FTPU_FW_INFO_COUNT);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	memcpy(info, rsp + 2, FTPU_FW_INFO_COUNT * 4);
	return n;
}

static void test_rv32i_fw_info_selftest(void **state)
{
	(void)state;
	uint32_t info[FTPU_FW_INFO_COUNT], rsp[64];
	const uint32_t op = FTPU_LINK_OP_SELFTEST;
	uint64_t cycles;

	fw_power_on();
	fw_info(40, info);
	assert_int_equal(info[FTPU_FW_INFO_VERSION], FTPU_FW_VERSION);
	assert_int_equal(info[FTPU_FW_INFO_ABI], FTPU_FW_ABI);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 0);
	assert_int_equal(info[FTPU_FW_INFO_RESET_CAUSE],
			 FTPU_SYS_CAUSE_POWER_ON);
	assert_int_equal(info[FTPU_FW_INFO_BOOTS], 1);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_NONE);
	assert_int_equal(info[FTPU_FW_INFO_FW_FAULTS], 0);
	assert_int_equal(fw_request(41, &op, 1, rsp, 64, &cycles),
			 2 + FTPU_FW_SELFTEST_COUNT);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_PASSED], 1);
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_RAN],
			 FTPU_FW_TEST_CRC | FTPU_FW_TEST_GEMM |
				 FTPU_FW_TEST_RAM);
	assert_int_equal(rsp[2 + FTPU_FW_SELFTEST_FAILED], 0);
	print_message("SELFTEST: %" PRIu64 " cycles\n", cycles);
}

/* ---- updates ---- */

struct image {
	uint32_t w[FTPU_FW_IMG_WORDS + 4096];
	unsigned words; /* header + body */
};

static void load_image(struct image *im, const char *file)
{
	char path[512];
	fw_path(path, sizeof(path), file);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (make firmware)", path);
	size_t n = fread(im->w, 1, sizeof(im->w), f);
	fclose(f);
	assert_true(n % 4 == 0 && n > FTPU_FW_IMG_WORDS * 4);
	im->words = (unsigned)(n / 4);
}

/* An image of the given body words, its header made here with zlib. */
static void make_image(struct image *im, const uint32_t *body, unsigned n,
		       uint32_t version)
{
	uint32_t *h = im->w;
	h[FTPU_FW_IMG_MAGIC] = FTPU_FW_IMAGE_MAGIC;
	h[FTPU_FW_IMG_FORMAT] = FTPU_FW_IMAGE_FORMAT;
	h[FTPU_FW_IMG_ABI] = FTPU_FW_ABI;
	h[FTPU_FW_IMG_VERSION] = version;
	h[FTPU_FW_IMG_LOAD_ADDR] = cfg.ram_base;
	h[FTPU_FW_IMG_ENTRY] = cfg.ram_base;
	h[FTPU_FW_IMG_SIZE] = 4 * n;
	memcpy(im->w + FTPU_FW_IMG_WORDS, body, 4 * n);
	h[FTPU_FW_IMG_CRC] = (uint32_t)crc32(0, (const Bytef *)body, 4 * n);
	h[FTPU_FW_IMG_HCRC] = (uint32_t)crc32(0, (const Bytef *)h, 32);
	im->words = FTPU_FW_IMG_WORDS + n;
}

/* Sends BEGIN, DATA in 14-word chunks, COMMIT; returns COMMIT's status
 * (the earlier ones must be OK). */
static uint32_t send_image(uint16_t *seq, const struct image *im)
{
	uint32_t req[16], rsp[64];
	req[0] = FTPU_LINK_OP_UPDATE_BEGIN;
	memcpy(req + 1, im->w, FTPU_FW_IMG_WORDS * 4);
	fw_request((*seq)++, req, 1 + FTPU_FW_IMG_WORDS, rsp, 64, NULL);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	unsigned body = im->words - FTPU_FW_IMG_WORDS;
	for (unsigned off = 0; off < body; off += FTPU_FW_DATA_WORDS) {
		unsigned k = body - off < FTPU_FW_DATA_WORDS
				     ? body - off
				     : FTPU_FW_DATA_WORDS;
		req[0] = FTPU_LINK_OP_UPDATE_DATA;
		req[1] = 4 * off;
		memcpy(req + 2, im->w + FTPU_FW_IMG_WORDS + off, 4 * k);
		fw_request((*seq)++, req, 2 + k, rsp, 64, NULL);
		assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	}
	req[0] = FTPU_LINK_OP_UPDATE_COMMIT;
	uint64_t cycles;
	fw_request((*seq)++, req, 1, rsp, 64, &cycles);
	print_message("COMMIT of %u bytes: %" PRIu64 " cycles\n", 4 * body,
		      cycles);
	return rsp[1];
}

/* BOOT arg: OK, then the core reboots; lets it boot. */
static void fw_boot(uint16_t seq, uint32_t arg, uint64_t budget)
{
	const uint32_t req[] = {FTPU_LINK_OP_BOOT, arg};
	uint32_t rsp[64];
	struct ftpu_sim_cpu_stats st0, st;
	assert_true(ftpu_sim_cpu_get_stats(sim, &st0));
	fw_request(seq, req, 2, rsp, 64, NULL);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(ftpu_sim_cpu_run(sim, budget, FTPU_SIM_CPU_UNTIL_EXIT),
			 0);
	assert_true(ftpu_sim_cpu_get_stats(sim, &st));
	assert_true(st.core_resets > st0.core_resets);
}

/* The update built by make (the same firmware, linked for the RAM slot,
 * another version) is accepted, runs, answers, and BOOT 0 goes back. */
static void test_rv32i_fw_update(void **state)
{
	(void)state;
	static struct image im;
	uint32_t info[FTPU_FW_INFO_COUNT];
	const uint32_t op = FTPU_LINK_OP_INFO;
	uint16_t seq = 100;

	load_image(&im, "ftpu_fw_app.img");
	fw_power_on();
	assert_int_equal(send_image(&seq, &im), FTPU_LINK_RESP_OK);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_ACCEPTED);
	assert_int_equal(info[FTPU_FW_INFO_APP_VERSION], FTPU_FW_APP_VERSION);
	assert_int_equal(info[FTPU_FW_INFO_APP_SIZE],
			 4 * (im.words - FTPU_FW_IMG_WORDS));
	assert_int_equal(info[FTPU_FW_INFO_APP_CRC], im.w[FTPU_FW_IMG_CRC]);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 0);

	fw_boot(seq++, 1, 200000);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 1);
	assert_int_equal(info[FTPU_FW_INFO_VERSION], FTPU_FW_APP_VERSION);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_RUNNING);
	assert_int_equal(info[FTPU_FW_INFO_RESET_CAUSE], FTPU_SYS_CAUSE_REBOOT);
	assert_int_equal(info[FTPU_FW_INFO_BOOTS], 2);
	expect_as_ref(seq++, &op, 1); /* the update serves the protocol */

	/* an update cannot overwrite itself */
	uint32_t req[16] = {FTPU_LINK_OP_UPDATE_BEGIN}, rsp[64];
	memcpy(req + 1, im.w, FTPU_FW_IMG_WORDS * 4);
	fw_request(seq++, req, 1 + FTPU_FW_IMG_WORDS, rsp, 64, NULL);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_FAILED);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_UPDATE_ERROR], FTPU_FW_UPD_RUNNING);

	fw_boot(seq++, 0, 200000);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 0);
	assert_int_equal(info[FTPU_FW_INFO_VERSION], FTPU_FW_VERSION);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_ACCEPTED);
	assert_int_equal(info[FTPU_FW_INFO_BOOTS], 3);
}

/* A corrupt image is refused at COMMIT; the firmware keeps working and
 * will not boot it. */
static void test_rv32i_fw_update_corrupt(void **state)
{
	(void)state;
	static struct image im;
	uint32_t info[FTPU_FW_INFO_COUNT], rsp[64];
	const uint32_t op = FTPU_LINK_OP_INFO, boot1[] = {FTPU_LINK_OP_BOOT, 1};
	uint16_t seq = 200;

	load_image(&im, "ftpu_fw_app.img");
	im.w[FTPU_FW_IMG_WORDS + 17] ^= 0x00100000u; /* one bit of the body */
	fw_power_on();
	assert_int_equal(send_image(&seq, &im), FTPU_LINK_RESP_FAILED);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_UPDATE_ERROR], FTPU_FW_UPD_BAD_CRC);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_NONE);
	fw_request(seq++, boot1, 2, rsp, 64, NULL);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_FAILED);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_UPDATE_ERROR], FTPU_FW_UPD_NO_IMAGE);
	assert_int_equal(info[FTPU_FW_INFO_BOOTS], 1);
	expect_as_ref(seq++, &op, 1);
}

/* Images that pass every check but fail when they run: one traps (ebreak),
 * one hangs (the watchdog). The boot ROM takes over, records the fault and
 * does not start them again by itself. */
static void test_rv32i_fw_bad_update_recovery(void **state)
{
	(void)state;
	static struct image im;
	uint32_t info[FTPU_FW_INFO_COUNT];
	const uint32_t op = FTPU_LINK_OP_STATUS;
	const uint32_t trap_body[] = {0x00000013u,
				      0x00100073u}; /* nop; ebreak */
	const uint32_t hang_body[] = {0x0000006fu}; /* j . */
	uint16_t seq = 300;

	fw_power_on();
	make_image(&im, trap_body, 2, 0x000200);
	assert_int_equal(send_image(&seq, &im), FTPU_LINK_RESP_OK);
	fw_boot(seq++, 1, 200000);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 0);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_FAILED);
	assert_int_equal(info[FTPU_FW_INFO_FW_FAULTS], 1);
	assert_int_equal(info[FTPU_FW_INFO_FAULT_CODE], FTPU_FW_FAULT_TRAP + 3);
	assert_int_equal(info[FTPU_FW_INFO_FAULT_PC], cfg.ram_base + 4);
	expect_as_ref(seq++, &op, 1);

	make_image(&im, hang_body, 1, 0x000201);
	assert_int_equal(send_image(&seq, &im), FTPU_LINK_RESP_OK);
	fw_boot(seq++, 1, FW_WDOG_BUDGET);
	fw_info(seq++, info);
	assert_int_equal(info[FTPU_FW_INFO_RUNNING], 0);
	assert_int_equal(info[FTPU_FW_INFO_RESET_CAUSE],
			 FTPU_SYS_CAUSE_WATCHDOG);
	assert_int_equal(info[FTPU_FW_INFO_APP_STATE], FTPU_FW_APP_FAILED);
	assert_int_equal(info[FTPU_FW_INFO_FW_FAULTS], 2);
	assert_int_equal(info[FTPU_FW_INFO_FAULT_CODE], FTPU_FW_FAULT_WATCHDOG);
	expect_as_ref(seq++, &op, 1);
}

static int group_setup(void **state)
{
	(void)state;
	ftpu_ref_device_default_config(&ref_cfg);
	sim = ftpu_sim_open_cpu(NULL);
	if (!sim || !ftpu_sim_cpu_get_config(sim, &cfg))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	ftpu_sim_close(sim);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rv32i_alu),
		cmocka_unit_test(test_rv32i_lui_auipc),
		cmocka_unit_test(test_rv32i_branch),
		cmocka_unit_test(test_rv32i_jump),
		cmocka_unit_test(test_rv32i_load_store),
		cmocka_unit_test(test_rv32i_regs),
		cmocka_unit_test(test_rv32i_csr),
		cmocka_unit_test(test_rv32i_counters),
		cmocka_unit_test(test_rv32i_trap_misaligned),
		cmocka_unit_test(test_rv32i_trap_illegal),
		cmocka_unit_test(test_rv32i_trap_system),
		cmocka_unit_test(test_rv32i_access_fault),
		cmocka_unit_test(test_rv32i_ram_exec),
		cmocka_unit_test(test_rv32i_mmio),
		cmocka_unit_test(test_rv32i_mmio_wait_states),
		cmocka_unit_test(test_rv32i_fw_protocol_1_0),
		cmocka_unit_test(test_rv32i_fw_counters),
		cmocka_unit_test(test_rv32i_fw_reset),
		cmocka_unit_test(test_rv32i_fw_long_request),
		cmocka_unit_test(test_rv32i_fw_info_selftest),
		cmocka_unit_test(test_rv32i_fw_update),
		cmocka_unit_test(test_rv32i_fw_update_corrupt),
		cmocka_unit_test(test_rv32i_fw_bad_update_recovery),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
