/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_soc_device.c - the soft device's firmware (firmware/soc/soc_device.c)
 * on the host with a fake hal (soc_fake_hal.h), against the C model of the
 * device (model/ref_device.c) byte for byte (soc_pair.h): CONTROL ops,
 * faults of every kind, every memory, MATMUL and ACTIVATE over random data
 * with the special values, programs split across frames, link errors,
 * OVERFLOW, the receive timeout, a host that keeps to the credit, the
 * line's pace against the firmware's, and random programs. Also the
 * integer fp32 adder the firmware uses (proto/numeric_int.c) against the
 * FPU's (proto/numeric.c).
 *
 * Golden values: the model, and docs/isa.md / docs/protocol.md for the
 * fault codes, the timeout's ERROR and the credit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

/* Room for the iCEBreaker's device and a 4x4 one (the target: the first). */
#define SOC_MAX_N 4
#define SOC_MEM_WORDS 4096u
#define SOC_MAX_RX_WORDS FTPU_DEV_ICEBREAKER_IQ_WORDS
#define SOC_RING_BYTES 16384u
#define FTPU_CRC32_SMALL /* the firmware's CRC, for everything here */
#define FTPU_CRC32_RAM_TABLE
#include "../../proto/crc32.c"
#include "../../firmware/soc/soc_device.c"

#include "soc_fake_hal.h"
#include "soc_pair.h"

static struct ftpu_ref_device_config cfg_icebreaker(void)
{
	return (struct ftpu_ref_device_config)FTPU_REF_DEVICE_SPEC_CONFIG(ICEBREAKER);
}

/* A 4x4 device with small memories and a small receive buffer. */
static struct ftpu_ref_device_config cfg_small(void)
{
	return (struct ftpu_ref_device_config){
		.n = 4, .row_delay = 1, .ub_vectors = 64, .wm_rows = 64, .acc_vectors = 48,
		.bias_vectors = 4, .rx_words = 64, .clock_hz = 1000000, .link_bytes = 1,
	};
}

static uint64_t seed(void)
{
	return ftpu_test_seed();
}

static uint32_t words_of(const struct ftpu_ref_device_config *c, unsigned mem)
{
	return mem == FTPU_MEM_UB || mem == FTPU_MEM_WM ? c->n / 2 : c->n;
}

static uint32_t vectors_of(const struct ftpu_ref_device_config *c, unsigned mem)
{
	const uint32_t v[4] = { c->ub_vectors, c->wm_rows, c->acc_vectors, c->bias_vectors };
	return v[mem];
}

/* A data word of mem: two bf16 or an fp32, corners included. */
static uint32_t data_word(struct rng *r, unsigned mem)
{
	if (mem == FTPU_MEM_UB || mem == FTPU_MEM_WM)
		return rng_bf16(r) | (uint32_t)rng_bf16(r) << 16;
	return rng_f32(r);
}

/* HOST_READ of vectors [at, at + n) of mem with random data. */
static void prog_host_read(struct prog *g, const struct ftpu_ref_device_config *c,
			   unsigned mem, uint32_t at, uint32_t n, struct rng *r)
{
	prog_ins(g, FTPU_OP_HOST_READ, mem, n, at, 0);
	for (uint32_t i = 0; i < n * words_of(c, mem); i++)
		prog_word(g, data_word(r, mem));
}

/* Fills a whole memory in programs of at most 256 vectors. */
static void fill_memory(struct pair *p, unsigned mem, struct rng *r)
{
	uint32_t size = vectors_of(&p->mcfg, mem);
	for (uint32_t at = 0; at < size; at += 256) {
		struct prog g = { 0 };
		prog_host_read(&g, &p->mcfg, mem, at, size - at < 256 ? size - at : 256, r);
		pair_program_split(p, g.w, g.n, r);
		prog_free(&g);
	}
}

/* ---- CONTROL ---------------------------------------------------------------- */

static void test_soc_control_ops(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	struct pair p;
	pair_open(&p, &c, FAKE_ALL, 0, seed());
	const uint32_t ops[] = { FTPU_LINK_OP_INFO, FTPU_LINK_OP_STATUS, FTPU_LINK_OP_READ_FAULTS,
				 FTPU_LINK_OP_READ_COUNTERS, FTPU_LINK_OP_CLEAR_COUNTERS,
				 FTPU_LINK_OP_READ_COUNTERS, FTPU_LINK_OP_RESET,
				 FTPU_LINK_OP_READ_COUNTERS, 0, FTPU_LINK_OP_FW_INFO,
				 FTPU_LINK_OP_SELFTEST, FTPU_LINK_OP_UPDATE_BEGIN,
				 FTPU_LINK_OP_UPDATE_DATA, FTPU_LINK_OP_UPDATE_COMMIT,
				 FTPU_LINK_OP_BOOT, 13, 0xffffffffu, FTPU_LINK_OP_STATUS };
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		pair_control(&p, ops[i]);
	/* BAD_REQUEST: empty, arguments; OVERFLOW: beyond the mailbox */
	uint32_t args[FTPU_LINK_MAX_CONTROL + 1] = { FTPU_LINK_OP_INFO, 1 };
	pair_frame(&p, FTPU_LINK_CONTROL, 0, NULL, 0);
	pair_frame(&p, FTPU_LINK_CONTROL, 0, args, 2);
	pair_frame(&p, FTPU_LINK_CONTROL, 0, args, FTPU_LINK_MAX_CONTROL);
	pair_frame(&p, FTPU_LINK_CONTROL, 0, args, FTPU_LINK_MAX_CONTROL + 1);
	pair_frame(&p, FTPU_LINK_CONTROL, 0x5a, args, 1); /* reserved flags: ignored */
	pair_control(&p, FTPU_LINK_OP_READ_COUNTERS);
	pair_check(&p);
	/* INFO says what spec/ftpu.toml says of the iCEBreaker's device */
	const struct frame *info = &p.got.f[0];
	uint32_t v;
	assert_int_equal(ftpu_link_info_get(info->p, info->len, FTPU_LINK_INFO_IQ_WORDS, &v), 0);
	assert_int_equal(v, FTPU_DEV_ICEBREAKER_IQ_WORDS);
	assert_int_equal(ftpu_link_info_get(info->p, info->len, FTPU_LINK_INFO_FEATURES, &v), 0);
	assert_int_equal(v, 1u << FTPU_FEATURE_IN_ORDER_LSB); /* no vector unit */
	pair_close(&p);
}

/* ---- faults ----------------------------------------------------------------- */

struct fault_case {
	const char *what;
	unsigned op, flags, n;
	uint32_t a, b;
	unsigned code; /* docs/isa.md's fault code */
};

static void test_soc_faults(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	const uint32_t UB = c.ub_vectors, WM = c.wm_rows, ACC = c.acc_vectors, BI = c.bias_vectors;
	const struct fault_case cases[] = {
		{ "op 0", 0, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "op 7", 7, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "VADD (no vector unit)", FTPU_OP_VADD, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "CONVERT", FTPU_OP_CONVERT, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "COPY", FTPU_OP_COPY, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "op 0xff", 0xff, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ U8", FTPU_OP_HOST_READ, FTPU_HOST_READ_U8, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ ALSO_WM", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ flag 0x10", FTPU_OP_HOST_READ, 0x10, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "LOAD_WEIGHTS flags", FTPU_OP_LOAD_WEIGHTS, 1, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "MATMUL flag 4", FTPU_OP_MATMUL, 4, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "ACTIVATE flag 4", FTPU_OP_ACTIVATE, 4, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_WRITE flag 8", FTPU_OP_HOST_WRITE, 8, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "SYNC flags", FTPU_OP_SYNC, 1, 0, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ n 0", FTPU_OP_HOST_READ, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "LOAD_WEIGHTS n 0", FTPU_OP_LOAD_WEIGHTS, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "LOAD_WEIGHTS n 2", FTPU_OP_LOAD_WEIGHTS, 0, 2, 0, 0, FTPU_FAULT_COUNT },
		{ "MATMUL n 0", FTPU_OP_MATMUL, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "ACTIVATE n 0", FTPU_OP_ACTIVATE, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE n 0", FTPU_OP_HOST_WRITE, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS 0", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS, 1, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS > N", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 1, 0,
		  c.n + 1, FTPU_FAULT_COUNT },
		{ "HOST_READ UB beyond", FTPU_OP_HOST_READ, FTPU_MEM_UB, 1, UB, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ UB across", FTPU_OP_HOST_READ, FTPU_MEM_UB, 2, UB - 1, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ WM beyond", FTPU_OP_HOST_READ, FTPU_MEM_WM, 1, WM, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ BIAS beyond", FTPU_OP_HOST_READ, FTPU_MEM_BIAS, 1, BI, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ wraps", FTPU_OP_HOST_READ, FTPU_MEM_ACC, 2, 0xffffffffu, 0, FTPU_FAULT_RANGE },
		{ "LOAD_WEIGHTS tile beyond", FTPU_OP_LOAD_WEIGHTS, 0, 1, WM - c.n + 1, 0, FTPU_FAULT_RANGE },
		{ "MATMUL UB beyond", FTPU_OP_MATMUL, 0, 1, UB, 0, FTPU_FAULT_RANGE },
		{ "MATMUL ACC beyond", FTPU_OP_MATMUL, 0, 2, 0, ACC - 1, FTPU_FAULT_RANGE },
		{ "ACTIVATE ACC beyond", FTPU_OP_ACTIVATE, 0, 1, ACC, 0, FTPU_FAULT_RANGE },
		{ "ACTIVATE UB beyond", FTPU_OP_ACTIVATE, 0, 1, 0, UB, FTPU_FAULT_RANGE },
		{ "ACTIVATE BIAS beyond", FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS, 1, 0, BI << 16, FTPU_FAULT_RANGE },
		{ "HOST_WRITE ACC beyond", FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 1, ACC, 0, FTPU_FAULT_RANGE },
		{ "MATMUL no tile", FTPU_OP_MATMUL, 0, 1, 0, 0, FTPU_FAULT_NO_TILE },
		{ "MATMUL SWAP none loaded", FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, 1, 0, 0, FTPU_FAULT_NO_TILE },
		{ "HOST_WRITE WM", FTPU_OP_HOST_WRITE, FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_MEMORY },
		{ "HOST_WRITE BIAS", FTPU_OP_HOST_WRITE, FTPU_MEM_BIAS, 1, 0, 0, FTPU_FAULT_MEMORY },
		{ "HOST_WRITE WORDS WM", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_WM, 1, 0, 1,
		  FTPU_FAULT_MEMORY },
	};
	struct pair p;
	pair_open(&p, &c, FAKE_FIXED, 5, seed());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fault_case *k = &cases[i];
		struct prog g = { 0 };
		pair_control(&p, FTPU_LINK_OP_RESET);
		/* a SYNC first (pc 1 then), the fault, a SYNC the fault discards */
		prog_ins(&g, FTPU_OP_SYNC, 0, 0, 7, 0);
		prog_ins(&g, k->op, k->flags, k->n, k->a, k->b);
		prog_ins(&g, FTPU_OP_SYNC, 0, 0, 8, 0);
		pair_program(&p, g.w, g.n);
		pair_control(&p, FTPU_LINK_OP_READ_FAULTS);
		pair_control(&p, FTPU_LINK_OP_STATUS);
		pair_check(&p);
		/* RESET's response, SYNC 7, the FAULT, READ_FAULTS, STATUS */
		assert_int_equal(p.got.n, 5);
		const struct frame *ev = &p.got.f[2];
		if (ev->type != FTPU_LINK_EVENT || ev->p[0] != FTPU_LINK_EVENT_FAULT ||
		    ev->p[1] != 1 || ev->p[2] != k->code || ev->p[3] != g.w[3])
			fail_msg("%s: no FAULT %u at pc 1", k->what, k->code);
		prog_free(&g);
	}

	/* TRUNCATED: an instruction cut short, inline data cut short */
	uint32_t cut[2];
	uint32_t ins[FTPU_ISA_WORDS + 1];
	ftpu_isa_encode(ins, FTPU_OP_HOST_READ, FTPU_MEM_ACC, 1, 0, 0);
	ins[3] = 0x3f800000u; /* one of N data words */
	cut[0] = ins[0];
	cut[1] = ins[1];
	pair_program(&p, cut, 2);
	pair_program(&p, ins, 4);
	/* an END frame with nothing open, then words outside any program */
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, ins, 3);
	pair_frame(&p, FTPU_LINK_PROGRAM, 0, NULL, 0);
	/* a program faulted mid-way: STATUS FAULTED until its END */
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, (uint32_t[3]){ 0x7f, 0, 0 }, 3);
	pair_control(&p, FTPU_LINK_OP_STATUS);
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, ins, 3);
	pair_control(&p, FTPU_LINK_OP_STATUS);
	/* START inside an open program ends it (TRUNCATED if cut) */
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, ins, 2);
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, ins, 2);
	pair_control(&p, FTPU_LINK_OP_STATUS);
	pair_control(&p, FTPU_LINK_OP_READ_FAULTS);
	pair_check(&p);
	/* the last program stays open: no fault for it */
	const unsigned want[] = { FTPU_FAULT_TRUNCATED, FTPU_FAULT_TRUNCATED, FTPU_FAULT_FRAMING,
				  FTPU_FAULT_FRAMING, FTPU_FAULT_OPCODE, FTPU_FAULT_TRUNCATED };
	unsigned codes[8], nc = 0;
	for (size_t i = 0; i < p.got.n; i++)
		if (p.got.f[i].type == FTPU_LINK_EVENT && nc < 8)
			codes[nc++] = p.got.f[i].p[2];
	assert_int_equal(nc, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < nc; i++)
		assert_int_equal(codes[i], want[i]);
	/* STATUS: FAULTED inside the faulted program, IDLE after, RUNNING */
	unsigned st[3], ns = 0;
	for (size_t i = 0; i < p.got.n; i++)
		if (p.got.f[i].type == FTPU_LINK_RESPONSE && p.got.f[i].p[0] == FTPU_LINK_OP_STATUS)
			st[ns++] = p.got.f[i].p[2 + FTPU_LINK_STATUS_STATE];
	assert_int_equal(ns, 3);
	assert_int_equal(st[0], FTPU_LINK_STATE_FAULTED);
	assert_int_equal(st[1], FTPU_LINK_STATE_IDLE);
	assert_int_equal(st[2], FTPU_LINK_STATE_RUNNING);
	pair_close(&p);
}

/* ---- memories, MATMUL, ACTIVATE -------------------------------------------------- */

/* HOST_READ into all four memories; HOST_WRITE of UB and ACC, whole and
 * WORDS; WM and BIAS seen through MATMUL and ACTIVATE. */
static void memories(const struct ftpu_ref_device_config *c, enum fake_rate mode, unsigned rate)
{
	struct rng r = { seed() };
	struct pair p;
	pair_open(&p, c, mode, rate, seed() + 1);
	for (unsigned mem = FTPU_MEM_UB; mem <= FTPU_MEM_BIAS; mem++)
		fill_memory(&p, mem, &r);
	struct prog g = { 0 };
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, c->ub_vectors, 0, 0);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, c->acc_vectors, 0, 0);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | FTPU_HOST_WRITE_WORDS, 3, 1, 1);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | FTPU_HOST_WRITE_WORDS, 2, c->acc_vectors - 2,
		 c->n - 1);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_UB | FTPU_HOST_WRITE_WORDS, 5, 7, 1);
	for (uint32_t row = 0; row + c->n <= c->wm_rows; row += c->n * 7) {
		prog_ins(&g, FTPU_OP_LOAD_WEIGHTS, 0, 1, row, 0);
		prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, 4, row % (c->ub_vectors - 4), 0);
		prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 4, 0, 0);
	}
	for (uint32_t b = 0; b < c->bias_vectors; b++)
		prog_ins(&g, FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS | (b & 1 ? FTPU_ACTIVATE_RELU : 0), 2,
			 b, b << 16 | (b + 3));
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, c->bias_vectors + 4, 0, 0);
	prog_ins(&g, FTPU_OP_SYNC, 0, 0, 0x600d, 0);
	pair_program_split(&p, g.w, g.n, &r);
	pair_control(&p, FTPU_LINK_OP_READ_COUNTERS);
	pair_check(&p);
	prog_free(&g);
	pair_close(&p);
}

static void test_soc_memories(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	memories(&c, FAKE_ALL, 0);
	memories(&s, FAKE_RANDOM, 40);
}

/* Random tiles and vectors with the special values; every MATMUL flag,
 * ACTIVATE with and without RELU and BIAS, results written out. */
static void matmul(const struct ftpu_ref_device_config *c, unsigned rounds, bool split)
{
	struct rng r = { seed() + 2 };
	struct pair p;
	pair_open(&p, c, FAKE_RANDOM, 64, seed() + 3);
	for (unsigned mem = FTPU_MEM_UB; mem <= FTPU_MEM_BIAS; mem++)
		fill_memory(&p, mem, &r);
	pair_check(&p);
	for (unsigned k = 0; k < rounds; k++) {
		struct prog g = { 0 };
		uint32_t n = 1 + rng_below(&r, 24), ub = rng_below(&r, c->ub_vectors - n + 1);
		uint32_t acc = rng_below(&r, c->acc_vectors - n + 1);
		uint32_t t1 = rng_below(&r, c->wm_rows - c->n + 1), t2 = rng_below(&r, c->wm_rows - c->n + 1);
		if (rng_below(&r, 3) == 0) /* fresh data now and then */
			prog_host_read(&g, c, FTPU_MEM_UB, ub, n, &r);
		prog_ins(&g, FTPU_OP_LOAD_WEIGHTS, 0, 1, t1, 0);
		prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, n, ub, acc);
		prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_ACCUMULATE, n, ub, acc);
		prog_ins(&g, FTPU_OP_LOAD_WEIGHTS, 0, 1, t2, 0);
		prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_ACCUMULATE, n, (ub + 1) % (c->ub_vectors - n + 1), acc);
		prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP | FTPU_MATMUL_ACCUMULATE, n, ub, acc);
		prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, n, acc, 0);
		unsigned flags = rng_below(&r, 4); /* RELU, BIAS */
		uint32_t out = rng_below(&r, c->ub_vectors - n + 1), bias = rng_below(&r, c->bias_vectors);
		prog_ins(&g, FTPU_OP_ACTIVATE, flags, n, acc, bias << 16 | out);
		prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, n, out, 0);
		prog_ins(&g, FTPU_OP_SYNC, 0, 0, k, 0);
		if (split)
			pair_program_split(&p, g.w, g.n, &r);
		else
			pair_program(&p, g.w, g.n);
		if (rng_below(&r, 4) == 0)
			pair_control(&p, FTPU_LINK_OP_READ_COUNTERS);
		pair_check(&p);
		prog_free(&g);
	}
	pair_close(&p);
}

static void test_soc_matmul_activate(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	matmul(&c, ftpu_test_full() ? 400 : 60, false);
	matmul(&s, ftpu_test_full() ? 400 : 60, false);
}

/* An array that does not answer in time: the device goes on (the hal's
 * timeout), counts it, and its frames stay those of the model. */
static void test_soc_array_late(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	struct pair p;
	pair_open(&p, &c, FAKE_ALL, 0, seed());
	fake.array_late = true;
	struct prog g = { 0 };
	prog_ins(&g, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
	prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, 5, 0, 0);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 5, 0, 0);
	pair_program(&p, g.w, g.n);
	pair_check(&p);
	assert_int_equal(p.dev.array_timeouts, 5);
	prog_free(&g);
	pair_close(&p);
}

static void test_soc_split_frames(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	matmul(&c, ftpu_test_full() ? 400 : 60, true);
	matmul(&s, ftpu_test_full() ? 400 : 60, true);
}

/* ---- the link ------------------------------------------------------------------- */

static void test_soc_link_errors(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	struct rng r = { seed() + 4 };
	struct pair p;
	pair_open(&p, &c, FAKE_FIXED, 3, seed());
	uint32_t sync[FTPU_ISA_WORDS];
	ftpu_isa_encode(sync, FTPU_OP_SYNC, 0, 0, 42, 0);
	uint8_t junk[300];
	for (unsigned round = 0; round < 40; round++) {
		/* garbage, SYNC prefixes in it */
		size_t n = rng_below(&r, sizeof(junk));
		for (size_t i = 0; i < n; i++)
			junk[i] = rng_below(&r, 3) ? (uint8_t)rng_u32(&r) : (uint8_t)"FTPU"[rng_below(&r, 4)];
		pair_bytes(&p, junk, n);
		pair_program(&p, sync, 3);
		/* a frame with one byte changed: header or payload */
		pair_program(&p, sync, 3);
		p.b[p.len - 1 - rng_below(&r, (uint32_t)FTPU_LINK_FRAME_BYTES(3))] ^=
			(uint8_t)(1u << rng_below(&r, 8));
		pair_control(&p, FTPU_LINK_OP_STATUS);
		/* a frame cut short: the next bytes become its own */
		pair_program(&p, sync, 3);
		p.len -= 1 + rng_below(&r, (uint32_t)FTPU_LINK_FRAME_BYTES(3) - 1);
		p.ends[p.nends - 1] = p.len;
		pair_control(&p, FTPU_LINK_OP_INFO);
		pair_program(&p, sync, 3);
		/* types the device does not take */
		pair_frame(&p, FTPU_LINK_RESPONSE, 0, sync, 3);
		pair_frame(&p, FTPU_LINK_ERROR, 0, sync, 1);
		pair_control(&p, FTPU_LINK_OP_READ_COUNTERS);
		pair_check(&p);
	}
	/* a header that claims more than MAX_PAYLOAD: BAD_LENGTH */
	uint8_t h[FTPU_LINK_HEADER_BYTES];
	ftpu_link_put_le32(h, FTPU_LINK_SYNC);
	ftpu_link_put_le32(h + 4, FTPU_LINK_W1(FTPU_LINK_PROGRAM, 0, 0x4444));
	ftpu_link_put_le32(h + 8, FTPU_LINK_W2(FTPU_LINK_MAX_PAYLOAD + 1, 0));
	ftpu_link_put_le32(h + 12, ftpu_crc32_update(0, h, 12));
	pair_bytes(&p, h, sizeof(h));
	pair_program(&p, sync, 3);
	pair_check(&p);
	assert_int_equal(p.got.f[0].type, FTPU_LINK_ERROR);
	assert_int_equal(p.got.f[0].p[0], FTPU_LINK_ERR_BAD_LENGTH);
	pair_close(&p);
}

/* PROGRAM frames beyond the receive buffer (len + 2 > IQ_WORDS), CONTROL
 * frames beyond the mailbox: OVERFLOW, skipped whole. */
static void overflow(const struct ftpu_ref_device_config *c)
{
	struct pair p;
	pair_open(&p, c, FAKE_ALL, 0, seed());
	size_t big = c->rx_words - 1;
	uint32_t *w = calloc(big, sizeof(uint32_t));
	assert_non_null(w);
	/* the largest that fits: a HOST_READ of ACC and its data, SYNCs */
	uint32_t data = c->rx_words - 2 - 2 * FTPU_ISA_WORDS;
	uint32_t nv = data / c->n;
	ftpu_isa_encode(w, FTPU_OP_HOST_READ, FTPU_MEM_ACC, nv, 0, 0);
	for (uint32_t i = 0; i < nv * c->n; i++)
		w[FTPU_ISA_WORDS + i] = 0x3f800000u + i;
	size_t at = FTPU_ISA_WORDS + nv * c->n;
	while (at + FTPU_ISA_WORDS <= c->rx_words - 2) {
		ftpu_isa_encode(w + at, FTPU_OP_SYNC, 0, 0, (uint32_t)at, 0);
		at += FTPU_ISA_WORDS;
	}
	while (at < c->rx_words - 2) /* pad with whole no-ops: empty SYNC tags */
		w[at++] = 0;
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, w, c->rx_words - 2);
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, w, big);     /* OVERFLOW */
	pair_frame(&p, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, NULL, 0);
	pair_control(&p, FTPU_LINK_OP_STATUS);
	uint32_t ctl[FTPU_LINK_MAX_CONTROL + 1] = { FTPU_LINK_OP_STATUS };
	pair_frame(&p, FTPU_LINK_CONTROL, 0, ctl, FTPU_LINK_MAX_CONTROL + 1); /* OVERFLOW */
	pair_control(&p, FTPU_LINK_OP_READ_FAULTS);
	struct prog g = { 0 };
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, nv, 0, 0);
	pair_program(&p, g.w, g.n);
	pair_check(&p);
	unsigned overflows = 0;
	for (size_t i = 0; i < p.got.n; i++)
		if (p.got.f[i].type == FTPU_LINK_ERROR && p.got.f[i].p[0] == FTPU_LINK_ERR_OVERFLOW)
			overflows++;
	assert_int_equal(overflows, 2);
	prog_free(&g);
	free(w);
	pair_close(&p);
}

static void test_soc_overflow(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	overflow(&c);
	overflow(&s);
}

/* Quiet on the line inside a frame for the timeout: ERROR TIMEOUT
 * (docs/protocol.md §4.2), with the frame's seq and type once its header
 * was read, unknown before, nothing before a SYNC; then the next frames
 * as if the cut one had never been sent. */
static void test_soc_timeout(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	uint32_t timeout = c.clock_hz / 1000 * SOC_RX_TIMEOUT_MS;
	struct pair p;
	pair_open(&p, &c, FAKE_FIXED, 7, seed());
	uint32_t w[6];
	ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, 1, 0);
	ftpu_isa_encode(w + 3, FTPU_OP_SYNC, 0, 0, 2, 0);
	const size_t cuts[] = { 2, 3, 4, 9, 16, 17, FTPU_LINK_FRAME_BYTES(6) - 1 };
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		uint8_t f[FTPU_LINK_FRAME_BYTES(6)];
		uint16_t seq = ++p.seq;
		int len = ftpu_link_encode_flags(FTPU_LINK_PROGRAM, FTPU_PROGRAM_START | FTPU_PROGRAM_END,
						 seq, 0, w, 6, f, sizeof(f));
		assert_int_equal(len, sizeof(f));
		size_t out0 = fake.out_len;
		fake_send(f, cuts[k]);
		pair_settle(&p); /* idle: the LED is off while it waits */
		assert_int_equal(fake.out_len, out0);
		fake.cycles += timeout - 100; /* not yet */
		soc_device_step(&p.dev);
		assert_int_equal(fake.out_len, out0);
		fake.cycles += 200;
		soc_device_step(&p.dev);
		struct frames got = { 0 };
		frames_decode(&got, fake.out + out0, fake.out_len - out0);
		if (cuts[k] < 4) { /* no SYNC yet: dropped silently */
			assert_int_equal(got.n, 0);
		} else {
			assert_int_equal(got.n, 1);
			assert_int_equal(got.f[0].type, FTPU_LINK_ERROR);
			assert_int_equal(got.f[0].p[0], FTPU_LINK_ERR_TIMEOUT);
			bool header = cuts[k] >= FTPU_LINK_HEADER_BYTES;
			assert_int_equal(got.f[0].p[1], header ? seq : FTPU_LINK_SEQ_UNKNOWN);
			assert_int_equal(got.f[0].p[2], header ? FTPU_LINK_PROGRAM : FTPU_LINK_TYPE_UNKNOWN);
			if (header) /* the acknowledged seq moves past the cut frame */
				assert_int_equal(got.f[0].seq, seq);
		}
		frames_free(&got);
		/* the link works on, as the model's without the cut frame */
		pair_program(&p, w, 6);
		pair_control(&p, FTPU_LINK_OP_STATUS);
		pair_check(&p);
	}
	pair_close(&p);
}

/* ---- flow control ---------------------------------------------------------------- */

/* A host by docs/protocol.md §6 (credit from the latest frame, inflight
 * since its acknowledged seq) sending as fast as that allows while the
 * line outruns the firmware: the ring never loses a byte nor holds more
 * than SOC_RING_NEED, and the results are the model's. */
struct sent {
	uint16_t seq;
	uint32_t words;
};

static void credit_host(const struct ftpu_ref_device_config *c, bool empty_frames)
{
	enum { FRAMES = 3000 };
	static struct sent sent[FRAMES];
	static uint32_t hbuf[FTPU_LINK_MAX_PAYLOAD];
	struct rng r = { seed() + 5 };
	struct pair p;
	struct ftpu_link_rx hrx;
	struct frames got = { 0 };
	const struct ftpu_link_rx_cb cb = { .frame = frames_on_frame,
					    .error = frames_on_error, .ctx = &got };
	size_t nsent = 0, seen = 0, fed, status_base = 0;
	uint32_t credit = 0;
	long base = -2; /* sent[] index the credit counts up to; -2: no credit yet */
	uint16_t status_seq;

	pair_open(&p, c, FAKE_ALL, 0, seed());
	assert_int_equal(ftpu_link_rx_init(&hrx, hbuf, FTPU_LINK_MAX_PAYLOAD), 0);
	assert_int_equal(ftpu_link_rx_set_role(&hrx, FTPU_LINK_ROLE_HOST), 0);
	fed = fake.out_len;
	pair_control(&p, FTPU_LINK_OP_STATUS);
	status_seq = p.seq;
	fake_send(p.b, p.len);
	for (unsigned k = 0; k < FRAMES;) {
		/* learn the credit from each frame the device sent */
		assert_int_equal(ftpu_link_rx_push(&hrx, fake.out + fed, fake.out_len - fed, &cb), 0);
		fed = fake.out_len;
		for (; seen < got.n; seen++) {
			const struct frame *f = &got.f[seen];
			credit = f->credit;
			if (f->type == FTPU_LINK_RESPONSE) {
				assert_int_equal(f->seq, status_seq);
				base = (long)status_base - 1; /* frames sent after the STATUS */
				continue;
			}
			base = -2;
			for (size_t i = 0; i < nsent; i++)
				if (sent[i].seq == f->seq)
					base = (long)i;
			assert_true(base >= 0); /* an EVENT acknowledges a PROGRAM frame */
		}
		uint32_t inflight = 0;
		for (long i = base + 1; base >= -1 && i < (long)nsent; i++)
			inflight += sent[i].words;
		/* the next frame: HOST_READ + SYNC, or an empty one */
		struct prog g = { 0 };
		if (!empty_frames) {
			uint32_t n = 1 + rng_below(&r, 40), at = rng_below(&r, c->ub_vectors - n + 1);
			prog_host_read(&g, c, FTPU_MEM_UB, at, n, &r);
			prog_ins(&g, FTPU_OP_SYNC, 0, 0, k, 0);
		}
		if (base >= -1 && g.n + 2 + inflight <= credit) {
			size_t before = p.len;
			uint16_t s = pair_frame(&p, FTPU_LINK_PROGRAM,
						FTPU_PROGRAM_START | FTPU_PROGRAM_END, g.w, g.n);
			sent[nsent++] = (struct sent){ s, (uint32_t)g.n + 2 };
			fake_send(p.b + before, p.len - before);
			k++;
		} else {
			/* out of credit: the device works; when nothing comes
			 * back (empty frames), STATUS (§6) */
			size_t out0 = fake.out_len;
			for (int i = 0; i < 20; i++)
				soc_device_step(&p.dev);
			if (fake.out_len == out0 && soc_device_drained(&p.dev) &&
			    fake.in_pos == fake.in_len) {
				size_t before = p.len;
				pair_control(&p, FTPU_LINK_OP_STATUS);
				status_seq = p.seq;
				status_base = nsent;
				fake_send(p.b + before, p.len - before);
			}
		}
		prog_free(&g);
		assert_int_equal(p.dev.ring.lost, 0);
	}
	pair_settle(&p);
	assert_int_equal(ftpu_link_rx_push(&hrx, fake.out + fed, fake.out_len - fed, &cb), 0);
	assert_true(fake.ring_peak <= SOC_RING_NEED(c->rx_words));
	assert_true(fake.ring_peak > SOC_RING_NEED(c->rx_words) / 4); /* it was pressed */
	/* the same frames through the model */
	frames_free(&p.got);
	p.got = got;
	pair_model(&p);
	pair_compare(&p);
	pair_close(&p);
}

static void test_soc_credit(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	credit_host(&c, false);
	credit_host(&c, true); /* the most frames, and bytes, per credit word */
	credit_host(&s, false);
}

/* The line's pace against the firmware's changes nothing: the same bytes
 * give the same frames, credit fields included (frames run in stream
 * order), whether the pump finds one byte, a few or all of them. */
static void build_mixed(struct pair *p, struct rng *r)
{
	for (unsigned mem = FTPU_MEM_UB; mem <= FTPU_MEM_BIAS; mem++)
		fill_memory(p, mem, r);
	struct prog g = { 0 };
	prog_ins(&g, FTPU_OP_LOAD_WEIGHTS, 0, 1, 2, 0);
	prog_ins(&g, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, 100, 3, 5);
	prog_ins(&g, FTPU_OP_ACTIVATE, FTPU_ACTIVATE_RELU | FTPU_ACTIVATE_BIAS, 100, 5, 1u << 16 | 9);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 200, 0, 0);
	prog_ins(&g, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 100, 5, 0);
	prog_ins(&g, FTPU_OP_SYNC, 0, 0, 9, 0);
	prog_ins(&g, FTPU_OP_MATMUL, 0, 1, 0, 0xfffff);
	pair_program_split(p, g.w, g.n, r);
	uint8_t junk[64];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rng_u32(r);
	pair_bytes(p, junk, sizeof(junk));
	pair_control(p, FTPU_LINK_OP_READ_FAULTS);
	pair_control(p, FTPU_LINK_OP_READ_COUNTERS);
	prog_free(&g);
}

static void test_soc_pump_pace(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker();
	const struct { enum fake_rate mode; unsigned rate; bool tx_pumps; } paces[] = {
		{ FAKE_ALL, 0, false }, { FAKE_FIXED, 1, false }, { FAKE_FIXED, 13, true },
		{ FAKE_RANDOM, 3, true }, { FAKE_RANDOM, 600, true },
	};
	struct frames first = { 0 };
	for (size_t k = 0; k < sizeof(paces) / sizeof(paces[0]); k++) {
		struct rng r = { seed() + 6 }; /* the same bytes each time */
		struct pair p;
		pair_open(&p, &c, paces[k].mode, paces[k].rate, seed() + k);
		fake.tx_pumps = paces[k].tx_pumps;
		build_mixed(&p, &r);
		pair_check(&p);
		if (!k) {
			first = p.got;
			p.got = (struct frames){ 0 };
		} else {
			assert_int_equal(p.got.n, first.n);
			for (size_t i = 0; i < first.n; i++) {
				assert_int_equal(p.got.f[i].credit, first.f[i].credit);
				assert_int_equal(p.got.f[i].len, first.f[i].len);
			}
		}
		pair_close(&p);
	}
	frames_free(&first);
}

/* ---- random programs ------------------------------------------------------------- */

static uint32_t pick_at(struct rng *r, uint32_t size, uint32_t n)
{
	uint32_t k = rng_below(r, 20);
	if (k == 0)
		return rng_u32(r);
	if (k == 1)
		return size - rng_below(r, 3);
	return n <= size ? rng_below(r, size - n + 1) : 0;
}

static uint32_t pick_n(struct rng *r)
{
	uint32_t k = rng_below(r, 20);
	return k == 0 ? 0 : k == 1 ? rng_below(r, 300) : 1 + rng_below(r, 6);
}

static void random_program(struct prog *g, const struct ftpu_ref_device_config *c, struct rng *r)
{
	unsigned count = 1 + rng_below(r, 8);
	for (unsigned i = 0; i < count; i++) {
		uint32_t n = pick_n(r), junk = rng_below(r, 25) == 0 ? 1u << rng_below(r, 8) : 0;
		unsigned mem = rng_below(r, 4);
		switch (rng_below(r, 16)) {
		case 0: case 1: case 2: case 3: {
			uint32_t at = pick_at(r, vectors_of(c, mem), n);
			prog_ins(g, FTPU_OP_HOST_READ, mem | junk, n, at, 0);
			uint32_t words = n * words_of(c, mem);
			if (words > 600)
				words = rng_below(r, 8);
			if (rng_below(r, 10) == 0) /* data cut short */
				words = rng_below(r, words + 1);
			for (uint32_t k = 0; k < words; k++)
				prog_word(g, data_word(r, mem));
			break;
		}
		case 4: case 5:
			prog_ins(g, FTPU_OP_LOAD_WEIGHTS, junk, rng_below(r, 12) ? 1 : n,
				 pick_at(r, c->wm_rows, c->n), 0);
			break;
		case 6: case 7: case 8:
			prog_ins(g, FTPU_OP_MATMUL, rng_below(r, 4) | junk, n,
				 pick_at(r, c->ub_vectors, n), pick_at(r, c->acc_vectors, n));
			break;
		case 9: case 10:
			prog_ins(g, FTPU_OP_ACTIVATE, rng_below(r, 4) | junk, n,
				 pick_at(r, c->acc_vectors, n),
				 (rng_below(r, 10) ? rng_below(r, c->bias_vectors) : rng_below(r, 0x10000)) << 16 |
					 (pick_at(r, c->ub_vectors, n) & 0xffffu));
			break;
		case 11: case 12: {
			unsigned flags = (rng_below(r, 5) ? (mem & 2) : mem) |
					 (rng_below(r, 3) ? 0 : FTPU_HOST_WRITE_WORDS);
			prog_ins(g, FTPU_OP_HOST_WRITE, flags | junk, n,
				 pick_at(r, vectors_of(c, flags & 3), n), rng_below(r, c->n + 2));
			break;
		}
		case 13:
			prog_ins(g, FTPU_OP_SYNC, junk, rng_below(r, 3), rng_u32(r), rng_u32(r));
			break;
		default:
			prog_ins(g, rng_below(r, 0x20), rng_below(r, 0x10), n, rng_u32(r), rng_u32(r));
			break;
		}
	}
}

/* A random program in random frames, now and then without its START or
 * END, with a CONTROL frame between two of its frames, or a byte changed. */
static void random_batch(struct pair *p, struct rng *r)
{
	struct prog g = { 0 };
	random_program(&g, &p->mcfg, r);
	size_t at = 0;
	bool start = rng_below(r, 20), end = rng_below(r, 20);
	do {
		size_t piece = rng_below(r, 3) ? rng_below(r, 50) : g.n - at;
		if (piece > g.n - at)
			piece = g.n - at;
		if (piece > p->mcfg.rx_words - 2)
			piece = p->mcfg.rx_words - 2;
		unsigned flags = (at == 0 && start ? FTPU_PROGRAM_START : 0) |
				 (at + piece == g.n && end ? FTPU_PROGRAM_END : 0);
		pair_frame(p, FTPU_LINK_PROGRAM, flags, g.w + at, piece);
		at += piece;
		if (rng_below(r, 30) == 0) /* a byte of that frame changed */
			p->b[p->len - 1 - rng_below(r, (uint32_t)FTPU_LINK_FRAME_BYTES(piece))] ^= 0x10;
		if (rng_below(r, 12) == 0) {
			const uint32_t ops[] = { FTPU_LINK_OP_STATUS, FTPU_LINK_OP_READ_FAULTS,
						 FTPU_LINK_OP_READ_COUNTERS, FTPU_LINK_OP_INFO,
						 FTPU_LINK_OP_CLEAR_COUNTERS, FTPU_LINK_OP_RESET };
			pair_control(p, ops[rng_below(r, rng_below(r, 8) ? 5 : 6)]);
		}
	} while (at < g.n);
	prog_free(&g);
}

static void random_programs(const struct ftpu_ref_device_config *c, unsigned count)
{
	struct rng r = { seed() + 7 };
	struct pair p;
	pair_open(&p, c, FAKE_RANDOM, 200, seed() + 8);
	fake.tx_pumps = true;
	for (unsigned mem = FTPU_MEM_UB; mem <= FTPU_MEM_BIAS; mem++)
		fill_memory(&p, mem, &r);
	pair_check(&p);
	for (unsigned k = 0; k < count; k++) {
		random_batch(&p, &r);
		pair_check(&p);
	}
	pair_close(&p);
}

static void test_soc_random_programs(void **state)
{
	(void)state;
	struct ftpu_ref_device_config c = cfg_icebreaker(), s = cfg_small();
	unsigned scale = ftpu_test_full() ? 10 : 1;
	random_programs(&c, 3000 * scale);
	random_programs(&s, 1000 * scale);
}

/* ---- the parts -------------------------------------------------------------------- */

/* ftpu_f32_add_int (no FPU) against ftpu_ref_add (the FPU in the
 * contract's mode), and the activation built on it. */
static void test_soc_f32_add(void **state)
{
	(void)state;
	struct rng r = { seed() + 9 };
	for (size_t i = 0; i < N_F32_SPECIALS; i++)
		for (size_t j = 0; j < N_F32_SPECIALS; j++) {
			uint32_t x = f32_specials[i], y = f32_specials[j];
			if (ftpu_f32_add_int(x, y) != ftpu_ref_add(x, y))
				fail_msg("%#x + %#x: %#x, not %#x", x, y, ftpu_f32_add_int(x, y),
					 ftpu_ref_add(x, y));
		}
	unsigned long n = ftpu_test_full() ? 40000000ul : 4000000ul;
	for (unsigned long k = 0; k < n; k++) {
		uint32_t x = rng_f32(&r), y = k & 1 ? rng_f32_partner(&r, x) : rng_f32(&r);
		if (ftpu_f32_add_int(x, y) != ftpu_ref_add(x, y))
			fail_msg("%#x + %#x: %#x, not %#x", x, y, ftpu_f32_add_int(x, y),
				 ftpu_ref_add(x, y));
		bool relu = k & 2;
		assert_int_equal(ftpu_activate_out(ftpu_f32_add_int(x, y), relu),
				 ftpu_ref_activate(x, y, relu));
	}
}

/* The firmware's CRC-32 (the byte table built in RAM) against zlib's, in
 * pieces of any length and alignment. */
static void test_soc_crc32(void **state)
{
	(void)state;
	struct rng r = { seed() + 10 };
	uint8_t buf[4096];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rng_u32(&r);
	assert_int_equal(ftpu_crc32_update(0, "123456789", 9), 0xcbf43926u);
	for (int k = 0; k < 2000; k++) {
		size_t at = rng_below(&r, 64), n = rng_below(&r, (uint32_t)(sizeof(buf) - at));
		size_t cut = rng_below(&r, (uint32_t)n + 1);
		uint32_t c = ftpu_crc32_update(ftpu_crc32_update(0, buf + at, cut), buf + at + cut, n - cut);
		assert_int_equal(c, (uint32_t)crc32(0, buf + at, (uInt)n));
	}
}

static void test_soc_config_refused(void **state)
{
	(void)state;
	const struct soc_device_config good = soc_config_of(&(struct ftpu_ref_device_config)
		FTPU_REF_DEVICE_SPEC_CONFIG(ICEBREAKER));
	struct soc_device d;
	assert_int_equal(soc_device_init(&d, &pair_storage, &good), FTPU_PROTO_OK);
	assert_int_equal(soc_device_init(NULL, &pair_storage, &good), FTPU_PROTO_ERR_INVALID);
	assert_int_equal(soc_device_init(&d, NULL, &good), FTPU_PROTO_ERR_INVALID);
	assert_int_equal(soc_device_init(&d, &pair_storage, NULL), FTPU_PROTO_ERR_INVALID);
	struct soc_device_config c;
#define REFUSED(field, value)                                                          \
	do {                                                                           \
		c = good;                                                              \
		c.field = value;                                                       \
		assert_int_equal(soc_device_init(&d, &pair_storage, &c), FTPU_PROTO_ERR_INVALID); \
	} while (0)
	REFUSED(n, 0);
	REFUSED(n, 3);
	REFUSED(n, 6);                   /* even, but not a power of two */
	REFUSED(n, 2 * SOC_MAX_N);       /* beyond the storage */
	REFUSED(ub_vectors, 0);
	REFUSED(wm_rows, 1);             /* less than a tile */
	REFUSED(acc_vectors, 0);
	REFUSED(bias_vectors, 0);
	REFUSED(acc_vectors, SOC_MEM_WORDS); /* the memories overflow the storage */
	REFUSED(ub_vectors, 0xffffffffu);
	REFUSED(rx_words, 2 + FTPU_ISA_WORDS - 1);
	REFUSED(rx_words, SOC_MAX_RX_WORDS + 1);
#undef REFUSED
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soc_f32_add),
		cmocka_unit_test(test_soc_crc32),
		cmocka_unit_test(test_soc_config_refused),
		cmocka_unit_test(test_soc_control_ops),
		cmocka_unit_test(test_soc_faults),
		cmocka_unit_test(test_soc_memories),
		cmocka_unit_test(test_soc_matmul_activate),
		cmocka_unit_test(test_soc_split_frames),
		cmocka_unit_test(test_soc_array_late),
		cmocka_unit_test(test_soc_link_errors),
		cmocka_unit_test(test_soc_overflow),
		cmocka_unit_test(test_soc_timeout),
		cmocka_unit_test(test_soc_credit),
		cmocka_unit_test(test_soc_pump_pace),
		cmocka_unit_test(test_soc_random_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
