/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_control.c - the control plane (rtl/core/ftpu_control.sv) against the
 * protocol's C model (model/ref_device.c): for the same CONTROL request the
 * RTL's RESPONSE payload must be the model's where their state agrees (INFO,
 * STATUS of an idle device, READ_FAULTS without faults, the status codes);
 * the rest (counters, fault records, RESET, the registers) is checked
 * against exact values derived from docs/protocol.md and the stimulus.
 * Every wait has a cycle budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "ftpu.h"
#include "ftpu_sim.h"
#include "link.h"
#include "ref_device.h"

#define BUDGET 1000 /* cycles for any one handshake or response */
#define MAXR 64     /* response payload words we take */

struct ctl {
	struct ftpu_sim *sim;
	struct ftpu_sim_control_params p;
	struct ftpu_sim_control_io io; /* inputs held between cycles */
	uint64_t cycle;                /* cycles run since setup */
	unsigned resets;               /* cycles with reset_o high */
	unsigned stall_pct;            /* rsp_ready low this often (%) */
	struct rng rng;
};

static void step(struct ctl *c)
{
	assert_true(ftpu_sim_control_cycle(c->sim, &c->io));
	c->resets += c->io.reset;
	c->cycle++;
}

static int setup(void **state)
{
	struct ctl *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	c->sim = ftpu_sim_open_control(NULL);
	assert_non_null(c->sim);
	assert_true(ftpu_sim_control_get_params(c->sim, &c->p));
	ftpu_sim_reset(c->sim, 4);
	c->io.credit = (uint16_t)c->p.iq_words;
	c->io.free_words = c->p.iq_words;
	c->io.reset_done = true;
	c->rng.s = ftpu_test_seed();
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctl *c = *state;
	ftpu_sim_close(c->sim);
	free(c);
	return 0;
}

/* Pushes one CONTROL frame; returns the cycle its last word was taken. */
static uint64_t push_request(struct ctl *c, uint16_t seq, const uint32_t *pl,
			     unsigned n)
{
	uint32_t w[2 + 20];
	assert_true(n <= 20);
	w[0] = FTPU_LINK_W1(FTPU_LINK_CONTROL, 0, seq);
	w[1] = FTPU_LINK_W2(n, 0);
	memcpy(w + 2, pl, n * sizeof(*pl));
	for (unsigned i = 0; i < n + 2; i++) {
		unsigned spent = 0;
		c->io.req_valid = true;
		c->io.req_word = w[i];
		for (;;) {
			step(c);
			if (c->io.req_ready)
				break;
			assert_true(++spent < BUDGET);
		}
	}
	c->io.req_valid = false;
	return c->cycle - 1;
}

/* Collects one RESPONSE frame (rsp_ready low stall_pct % of the cycles);
 * checks its header and returns its payload length. */
static unsigned pull_response(struct ctl *c, uint16_t seq, uint32_t *pl)
{
	uint32_t w[2 + MAXR];
	unsigned got = 0, need = 2, spent = 0;
	while (got < need) {
		c->io.rsp_ready = rng_below(&c->rng, 100) >= c->stall_pct;
		step(c);
		if (c->io.rsp_valid && c->io.rsp_ready) {
			w[got++] = c->io.rsp_word;
			if (got == 2) {
				need = 2 + (w[1] & 0xffff);
				assert_true(need <= 2 + MAXR);
			}
			spent = 0;
		}
		assert_true(++spent < BUDGET);
	}
	c->io.rsp_ready = false;
	assert_int_equal(w[0], FTPU_LINK_W1(FTPU_LINK_RESPONSE, 0, seq));
	assert_int_equal(w[1] >> 16, c->io.credit);
	memcpy(pl, w + 2, (need - 2) * sizeof(*pl));
	return need - 2;
}

static unsigned transact(struct ctl *c, uint16_t seq, const uint32_t *req,
			 unsigned n, uint32_t *rsp)
{
	push_request(c, seq, req, n);
	return pull_response(c, seq, rsp);
}

/* The C model's RESPONSE payload for the same request, from a fresh device
 * configured like the RTL. */
struct ref_rx {
	uint32_t *pl;
	unsigned n, frames;
};

static void ref_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct ref_rx *r = ctx;
	if (f->type != FTPU_LINK_RESPONSE)
		return;
	assert_true(f->len <= MAXR);
	memcpy(r->pl, f->payload, f->len * sizeof(uint32_t));
	r->n = f->len;
	r->frames++;
}

static unsigned ref_response(const struct ctl *c, uint16_t seq,
			     const uint32_t *req, unsigned n, uint32_t *rsp)
{
	struct ftpu_ref_device_config cfg;
	struct ftpu_ref_device *d;
	uint8_t in[FTPU_LINK_FRAME_BYTES(20)], out[4096];
	uint32_t buf[FTPU_LINK_MAX_PAYLOAD];
	struct ftpu_link_rx rx;
	struct ref_rx r = {.pl = rsp};
	struct ftpu_link_rx_cb cb = {.frame = ref_frame, .ctx = &r};
	int len;
	size_t got;

	assert_int_equal(c->p.rows, c->p.cols); /* the model is square */
	ftpu_ref_device_default_config(&cfg);
	cfg.n = c->p.rows;
	cfg.row_delay = c->p.row_delay;
	cfg.ub_vectors = c->p.ub_vectors;
	cfg.wm_rows = c->p.weight_tiles * c->p.rows;
	cfg.acc_vectors = c->p.acc_vectors;
	cfg.bias_vectors = c->p.bias_vectors;
	cfg.rx_words = c->p.iq_words;
	cfg.clock_hz = c->p.clock_hz;
	cfg.vector_unit = c->p.vector_unit;
	cfg.link_bytes = c->p.link_bytes;
	assert_int_equal(c->p.max_payload, FTPU_LINK_MAX_PAYLOAD);
	assert_int_equal(ftpu_ref_device_open(&cfg, &d), FTPU_OK);
	len = ftpu_link_encode(FTPU_LINK_CONTROL, seq, 0, req, n, in, sizeof(in));
	assert_true(len > 0);
	assert_int_equal(ftpu_ref_device_write(d, in, (size_t)len), FTPU_OK);
	got = ftpu_ref_device_read(d, out, sizeof(out));
	assert_int_equal(ftpu_ref_device_pending(d), 0);
	ftpu_ref_device_close(d);
	assert_int_equal(ftpu_link_rx_init(&rx, buf, FTPU_LINK_MAX_PAYLOAD), FTPU_OK);
	assert_int_equal(ftpu_link_rx_set_role(&rx, FTPU_LINK_ROLE_HOST), FTPU_OK);
	assert_int_equal(ftpu_link_rx_push(&rx, out, got, &cb), FTPU_OK);
	assert_int_equal(r.frames, 1);
	return r.n;
}

static void check_like_ref(struct ctl *c, uint16_t seq, const uint32_t *req,
			   unsigned n)
{
	uint32_t got[MAXR], want[MAXR];
	unsigned gn = transact(c, seq, req, n, got);
	unsigned wn = ref_response(c, seq, req, n, want);
	assert_int_equal(gn, wn);
	assert_memory_equal(got, want, wn * sizeof(uint32_t));
}

/* ---- tests ---------------------------------------------------------------- */

static void test_control_info_matches_ref(void **state)
{
	struct ctl *c = *state;
	uint32_t op = FTPU_LINK_OP_INFO, rsp[MAXR], v;
	unsigned n;
	check_like_ref(c, 1, &op, 1);
	/* and the host's parser reads the RTL's answer */
	n = transact(c, 2, &op, 1, rsp);
	assert_int_equal(ftpu_link_info_get(rsp, n, FTPU_LINK_INFO_WEIGHT_TILES, &v), FTPU_OK);
	assert_int_equal(v, c->p.weight_tiles);
	assert_int_equal(ftpu_link_info_get(rsp, n, FTPU_LINK_INFO_CLOCK_HZ, &v), FTPU_OK);
	assert_int_equal(v, c->p.clock_hz);
	assert_int_equal(ftpu_link_info_get(rsp, n, FTPU_LINK_INFO_FEATURES, &v), FTPU_OK);
	assert_int_equal(v, c->p.vector_unit ? 1u : 0u);
	assert_int_equal(ftpu_link_info_get(rsp, n, FTPU_LINK_INFO_LINK_BYTES, &v), FTPU_OK);
	assert_int_equal(v, c->p.link_bytes);
}

static void test_control_status_matches_ref(void **state)
{
	struct ctl *c = *state;
	uint32_t op = FTPU_LINK_OP_STATUS, rsp[MAXR];
	check_like_ref(c, 7, &op, 1); /* idle, empty queue, no faults */
	c->io.state = FTPU_LINK_STATE_RUNNING;
	c->io.free_words = 1234;
	c->io.queued_words = 77;
	c->io.fault_valid = true;
	step(c);
	step(c);
	c->io.fault_valid = false;
	assert_int_equal(transact(c, 8, &op, 1, rsp), 2 + FTPU_LINK_STATUS_COUNT);
	assert_int_equal(rsp[0], op);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rsp[2 + FTPU_LINK_STATUS_STATE], FTPU_LINK_STATE_RUNNING);
	assert_int_equal(rsp[2 + FTPU_LINK_STATUS_FREE_WORDS], 1234);
	assert_int_equal(rsp[2 + FTPU_LINK_STATUS_QUEUED_WORDS], 77);
	assert_int_equal(rsp[2 + FTPU_LINK_STATUS_FAULTS], 2);
}

static void test_control_status_codes_match_ref(void **state)
{
	struct ctl *c = *state;
	uint32_t req[16] = {FTPU_LINK_OP_STATUS, 5, 6};
	uint32_t op99 = 99, op0 = 0;
	check_like_ref(c, 10, req, 0);  /* BAD_REQUEST, op 0 */
	check_like_ref(c, 11, req, 2);  /* BAD_REQUEST, op echoed */
	check_like_ref(c, 12, req, 16); /* the largest CONTROL frame */
	check_like_ref(c, 13, &op99, 1); /* UNKNOWN_OP */
	check_like_ref(c, 14, &op0, 1);
	/* and by the spec's numbers */
	uint32_t rsp[MAXR];
	assert_int_equal(transact(c, 15, &op99, 1, rsp), 2);
	assert_int_equal(rsp[0], 99);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_UNKNOWN_OP);
	assert_int_equal(transact(c, 16, req, 0, rsp), 2);
	assert_int_equal(rsp[0], 0);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_BAD_REQUEST);
}

static void test_control_faults_recorded(void **state)
{
	struct ctl *c = *state;
	uint32_t op = FTPU_LINK_OP_READ_FAULTS, rsp[MAXR];
	check_like_ref(c, 20, &op, 1); /* none: 0, zeros */
	for (unsigned i = 0; i < 3; i++) {
		c->io.fault_valid = true;
		c->io.fault_pc = 100 + i;
		c->io.fault_code = 3 + i;
		c->io.fault_instr = 0xabcd0000u + i;
		step(c);
		c->io.fault_valid = false;
		step(c);
	}
	assert_int_equal(transact(c, 21, &op, 1, rsp), 6);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(rsp[2], 3);
	assert_int_equal(rsp[3], 102);
	assert_int_equal(rsp[4], 5);
	assert_int_equal(rsp[5], 0xabcd0002u);
}

/* Expected counters for a window of `cycles` cycles in which event bit b is
 * high in cycle i when (i % (b + 2)) == 0. */
static void drive_events(struct ctl *c, unsigned cycles, uint64_t *cnt)
{
	for (unsigned i = 0; i < cycles; i++) {
		c->io.ev = 0;
		for (unsigned b = 0; b < 9; b++)
			if (i % (b + 2) == 0) {
				c->io.ev |= 1u << b;
				cnt[b]++;
			}
		step(c);
	}
	c->io.ev = 0;
}

/* The counters k[] (READ_COUNTERS order) against the events ev[] driven:
 * busy, MAC vectors, weight/input/output stalls, idle, bytes in, bytes
 * out, instructions; cycles counted; pes = rows * cols. */
static void check_counters(const uint32_t *k, uint64_t cycles, const uint64_t *ev,
			   uint64_t pes)
{
	uint64_t macs = ev[1] * pes;
	assert_int_equal(k[FTPU_LINK_CNT_CYCLES], cycles);
	assert_int_equal(k[FTPU_LINK_CNT_BUSY], ev[0]);
	assert_int_equal(k[FTPU_LINK_CNT_MACS_LO], (uint32_t)macs);
	assert_int_equal(k[FTPU_LINK_CNT_MACS_HI], (uint32_t)(macs >> 32));
	assert_int_equal(k[FTPU_LINK_CNT_WEIGHT_STALL], ev[2]);
	assert_int_equal(k[FTPU_LINK_CNT_INPUT_STALL], ev[3]);
	assert_int_equal(k[FTPU_LINK_CNT_OUTPUT_STALL], ev[4]);
	assert_int_equal(k[FTPU_LINK_CNT_IDLE], ev[5]);
	assert_int_equal(k[FTPU_LINK_CNT_BYTES_IN_LO], ev[6]);
	assert_int_equal(k[FTPU_LINK_CNT_BYTES_IN_HI], 0);
	assert_int_equal(k[FTPU_LINK_CNT_BYTES_OUT_LO], ev[7]);
	assert_int_equal(k[FTPU_LINK_CNT_BYTES_OUT_HI], 0);
	assert_int_equal(k[FTPU_LINK_CNT_INSTRUCTIONS], ev[8]);
}

static void test_control_counters_exact(void **state)
{
	struct ctl *c = *state;
	uint32_t op = FTPU_LINK_OP_CLEAR_COUNTERS, rsp[MAXR];
	uint64_t ev[9] = {0}, t_clear, t_read;
	const unsigned N = 5000;

	t_clear = push_request(c, 30, &op, 1) + 1; /* handled the next cycle */
	assert_int_equal(pull_response(c, 30, rsp), 2);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	drive_events(c, N, ev);
	op = FTPU_LINK_OP_READ_COUNTERS;
	c->stall_pct = 50;
	t_read = push_request(c, 31, &op, 1) + 1;
	assert_int_equal(pull_response(c, 31, rsp), 2 + FTPU_LINK_CNT_COUNT);
	assert_int_equal(rsp[0], op);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	/* counting starts the cycle after the clear and stops before the
	 * snapshot's cycle */
	check_counters(rsp + 2, t_read - t_clear - 1, ev, c->p.rows * c->p.cols);

	/* CLEAR_COUNTERS zeroes them: only cycles runs on */
	op = FTPU_LINK_OP_CLEAR_COUNTERS;
	t_clear = push_request(c, 32, &op, 1) + 1;
	pull_response(c, 32, rsp);
	op = FTPU_LINK_OP_READ_COUNTERS;
	t_read = push_request(c, 33, &op, 1) + 1;
	assert_int_equal(pull_response(c, 33, rsp), 2 + FTPU_LINK_CNT_COUNT);
	assert_int_equal(rsp[2 + FTPU_LINK_CNT_CYCLES], t_read - t_clear - 1);
	for (unsigned i = 1; i < FTPU_LINK_CNT_COUNT; i++)
		assert_int_equal(rsp[2 + i], 0);
}

static void test_control_reset_pulses_once(void **state)
{
	struct ctl *c = *state;
	uint32_t op = FTPU_LINK_OP_RESET, rsp[MAXR];
	uint64_t ev[9] = {0};

	c->io.fault_valid = true;
	step(c);
	c->io.fault_valid = false;
	drive_events(c, 100, ev);
	/* the RESPONSE waits for reset_done */
	c->io.reset_done = false;
	push_request(c, 40, &op, 1);
	c->io.rsp_ready = true;
	for (unsigned i = 0; i < 50; i++) {
		step(c);
		assert_false(c->io.rsp_valid);
	}
	assert_int_equal(c->resets, 1);
	c->io.reset_done = true;
	assert_int_equal(pull_response(c, 40, rsp), 2);
	assert_int_equal(rsp[0], op);
	assert_int_equal(rsp[1], FTPU_LINK_RESP_OK);
	assert_int_equal(c->resets, 1);
	/* faults and counters cleared */
	op = FTPU_LINK_OP_READ_FAULTS;
	check_like_ref(c, 41, &op, 1);
	op = FTPU_LINK_OP_READ_COUNTERS;
	transact(c, 42, &op, 1, rsp);
	for (unsigned i = 1; i < FTPU_LINK_CNT_COUNT; i++)
		assert_int_equal(rsp[2 + i], 0);
	/* a RESET with reset_done already high answers at once */
	op = FTPU_LINK_OP_RESET;
	assert_int_equal(transact(c, 43, &op, 1, rsp), 2);
	assert_int_equal(c->resets, 2);
}

static void test_control_backpressure_loses_nothing(void **state)
{
	struct ctl *c = *state;
	uint32_t want[MAXR], got[MAXR];
	const uint32_t ops[] = {FTPU_LINK_OP_INFO, FTPU_LINK_OP_STATUS,
				FTPU_LINK_OP_READ_FAULTS, 99};
	for (unsigned r = 0; r < 40; r++) {
		uint32_t op = ops[r % 4];
		unsigned wn;
		c->stall_pct = 0;
		wn = transact(c, (uint16_t)(100 + r), &op, 1, want);
		c->stall_pct = 10 + rng_below(&c->rng, 80);
		assert_int_equal(transact(c, (uint16_t)(200 + r), &op, 1, got), wn);
		assert_memory_equal(got, want, wn * sizeof(uint32_t));
	}
}

static uint32_t reg_read(struct ctl *c, uint8_t addr)
{
	c->io.reg_req = true;
	c->io.reg_we = false;
	c->io.reg_addr = addr;
	step(c);
	c->io.reg_req = false;
	step(c);
	return c->io.reg_rdata;
}

static void reg_write(struct ctl *c, uint8_t addr, uint32_t v)
{
	c->io.reg_req = true;
	c->io.reg_we = true;
	c->io.reg_addr = addr;
	c->io.reg_wdata = v;
	step(c);
	c->io.reg_req = false;
	c->io.reg_we = false;
}

static void test_control_registers_match_responses(void **state)
{
	struct ctl *c = *state;
	uint32_t op, rsp[MAXR];
	uint64_t ev[9] = {0};

	op = FTPU_LINK_OP_INFO;
	assert_int_equal(transact(c, 50, &op, 1, rsp), 2 + 2 * FTPU_LINK_INFO_MAX);
	assert_int_equal(reg_read(c, 0x00), FTPU_LINK_SYNC);
	for (unsigned i = 0; i < FTPU_LINK_INFO_MAX; i++) { /* INFO key k at address k */
		assert_int_equal(rsp[2 + 2 * i], i + 1);
		assert_int_equal(reg_read(c, (uint8_t)(i + 1)), rsp[3 + 2 * i]);
	}
	c->io.state = FTPU_LINK_STATE_FAULTED;
	c->io.free_words = 99;
	c->io.queued_words = 4;
	c->io.fault_valid = true;
	c->io.fault_pc = 7;
	c->io.fault_code = 8;
	c->io.fault_instr = 9;
	step(c);
	c->io.fault_valid = false;
	op = FTPU_LINK_OP_STATUS;
	transact(c, 51, &op, 1, rsp);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(reg_read(c, (uint8_t)(0x10 + i)), rsp[2 + i]);
	op = FTPU_LINK_OP_READ_FAULTS;
	transact(c, 52, &op, 1, rsp);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(reg_read(c, (uint8_t)(0x30 + i)), rsp[2 + i]);

	/* counters: registers CLEAR, events, then lo/hi pairs through the latch */
	reg_write(c, 0x3f, 2);
	drive_events(c, 300, ev);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_BUSY), ev[0]);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_MACS_LO),
			 (uint32_t)(ev[1] * c->p.rows * c->p.cols));
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_MACS_HI), 0);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_BYTES_IN_LO), ev[6]);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_INSTRUCTIONS), ev[8]);
	assert_int_equal(reg_read(c, 0x2d), 0); /* unmapped */
	assert_int_equal(c->resets, 0);

	/* register RESET: one pulse, faults and counters cleared */
	reg_write(c, 0x3f, 1);
	step(c);
	assert_int_equal(c->resets, 1);
	assert_int_equal(reg_read(c, 0x30), 0);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_BUSY), 0);
}

/* CMD SNAPSHOT (how the control core's firmware answers READ_COUNTERS):
 * every counter as it stood in the cycle of the write, at 0x40..0x4C in
 * READ_COUNTERS order; the live counters move on, the snapshot does not. */
static void test_control_snapshot_registers(void **state)
{
	struct ctl *c = *state;
	uint64_t ev[9] = {0}, more[9] = {0};
	uint32_t k[FTPU_LINK_CNT_COUNT];

	uint64_t t_clear = c->cycle;
	reg_write(c, 0x3f, 2);
	drive_events(c, 777, ev);
	uint64_t t_snap = c->cycle;
	reg_write(c, 0x3f, 4);
	drive_events(c, 100, more);
	for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
		k[i] = reg_read(c, (uint8_t)(0x40 + i));
	check_counters(k, t_snap - t_clear - 1, ev, c->p.rows * c->p.cols);
	/* read again: the same; live: moved on; past the last: unmapped */
	assert_int_equal(reg_read(c, 0x40 + FTPU_LINK_CNT_BUSY), ev[0]);
	assert_int_equal(reg_read(c, 0x20 + FTPU_LINK_CNT_BUSY), ev[0] + more[0]);
	assert_int_equal(reg_read(c, 0x40 + FTPU_LINK_CNT_COUNT), 0);
	assert_int_equal(c->resets, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_control_info_matches_ref, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_status_matches_ref, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_status_codes_match_ref, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_faults_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_counters_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_reset_pulses_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_backpressure_loses_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_registers_match_responses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_snapshot_registers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
