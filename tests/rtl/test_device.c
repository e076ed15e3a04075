/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_device.c - the whole device (rtl/ftpu_top.sv) against its C model
 * (model/ref_device.c): every test sends the same link bytes to both and
 * compares what comes back, class by class (harness/device_host.h):
 * program output (DATA and EVENT frames, in order), RESPONSE frames and
 * ERROR frames, with the credit field, the acknowledged seq and the time
 * counters masked. GEMM results are also checked against ftpu_ref_gemm.
 *
 * Three models (mk/models.mk): device_16, the simulated device (16x16,
 * RowDelay 1, the C model's default sizes); device_4p, a 4x4 array at
 * the boards' pipeline depth (RowDelay 4) with small memories; device_2s,
 * the small profile (the iCEBreaker's 2x2 device: in order, no vector
 * unit, a byte-wide link).
 *
 * Covered: the CONTROL ops and the register port; every instruction alone;
 * tiled GEMMs of random shapes (ragged, K and N beyond the array, M up to a
 * few hundred, chunked where the memories are small), accumulating and
 * not, with activation; programs cut into many frames; every fault code,
 * with the memory outside the range read back and the next program
 * checked; link abuse (bit flips, truncation, wrong lengths, garbage,
 * unknown types, CONTROL and PROGRAM overflow); a stalled reader; the
 * performance counters. Every run has a cycle limit. FTPU_FULL=1 runs
 * more random GEMMs and fuzz rounds.
 *
 * Build with -DDH_NO_SIM to run the same tests on the C model alone
 * (a check of the test itself: the RTL comparisons are then vacuous).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "device_host.h"
#include "ftpu_test.h"

struct fixture {
	struct dh_host h;
	struct rng rng;
	const char *name;
	uint32_t tag; /* next SYNC tag */
};

/* ---- fixture ----------------------------------------------------------------- */

#ifdef DH_NO_SIM
/* spec/ftpu.toml's device_16, device_4p and device_2s, as the models are built. */
static const struct ftpu_ref_device_config cfg_16 = FTPU_REF_DEVICE_SPEC_CONFIG(DEVICE_16);
static const struct ftpu_ref_device_config cfg_4p = FTPU_REF_DEVICE_SPEC_CONFIG(DEVICE_4P);
static const struct ftpu_ref_device_config cfg_2s = FTPU_REF_DEVICE_SPEC_CONFIG(DEVICE_2S);
#endif

static int setup_model(void **state, const char *name,
#ifndef DH_NO_SIM
		       struct ftpu_sim *(*open)(const char *)
#else
		       const struct ftpu_ref_device_config *cfg
#endif
)
{
	static struct fixture fxs[3];
	unsigned which = name[0] == '4' ? 1 : name[0] == '2' ? 2 : 0;
	struct fixture *fx = &fxs[which];
	memset(fx, 0, sizeof(*fx));
	fx->name = name;
	fx->rng.s = ftpu_test_seed() ^ (uint32_t[]){ 0x1616, 0x4444, 0x2222 }[which];
	fx->tag = 0x100;
#ifndef DH_NO_SIM
	char path[512];
	const char *dir = getenv("FTPU_TRACE_DIR");
	if (dir)
		snprintf(path, sizeof(path), "%s/test_device_%s.fst", dir, name);
	struct ftpu_sim *sim = open(dir ? path : NULL);
	if (!sim || dh_host_open_rtl(&fx->h, sim, name))
		return -1;
	/* a test's waits: generous for its sizes, short enough for a hang */
	fx->h.dev[1].limit = 1500000;
#else
	if (dh_host_open(&fx->h, cfg))
		return -1;
#endif
	*state = fx;
	return 0;
}

static int setup_16(void **state)
{
#ifndef DH_NO_SIM
	return setup_model(state, "device_16", ftpu_sim_open_device_16);
#else
	return setup_model(state, "16 (C model only)", &cfg_16);
#endif
}

static int setup_4p(void **state)
{
#ifndef DH_NO_SIM
	return setup_model(state, "4p", ftpu_sim_open_device_4p);
#else
	return setup_model(state, "4p (C model only)", &cfg_4p);
#endif
}

static int setup_2s(void **state)
{
#ifndef DH_NO_SIM
	return setup_model(state, "2s", ftpu_sim_open_device_2s);
#else
	return setup_model(state, "2s (C model only)", &cfg_2s);
#endif
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (fx) /* NULL when the setup failed */
		dh_host_close(&fx->h);
	return 0;
}

static bool have_rtl(const struct fixture *fx)
{
	return fx->h.ndev > 1;
}

#ifndef DH_NO_SIM
static struct ftpu_sim *rtl(struct fixture *fx)
{
	return dh_host_sim(&fx->h);
}

static void set_pace(struct fixture *fx, unsigned in_period, unsigned out_period,
		     unsigned stall_len, unsigned stall_every)
{
	if (!have_rtl(fx))
		return;
	struct ftpu_sim_device_pace p = { in_period, out_period, stall_len, stall_every };
	assert_true(ftpu_sim_device_set_pace(rtl(fx), &p));
}
#else
static void set_pace(struct fixture *fx, unsigned in_period, unsigned out_period,
		     unsigned stall_len, unsigned stall_every)
{
	(void)fx, (void)in_period, (void)out_period, (void)stall_len, (void)stall_every;
}
#endif

/*
 * Before each test: the default link pace, nothing left over from the last
 * test. A device that hung in an earlier test is reset (rst_ni) and the C
 * model RESET to match, so one failure does not take the rest down.
 */
static int prepare(void **state)
{
	struct fixture *fx = *state;
	set_pace(fx, 1, 1, 0, 0);
#ifndef DH_NO_SIM
	if (have_rtl(fx)) {
		struct dh_dev *d = &fx->h.dev[1];
		d->flow = true;
		if (d->hung || !dh_dev_wait_idle(d)) {
			fprintf(stderr, "%s: resetting the RTL after a hang\n", fx->name);
			ftpu_sim_reset(d->sim, 4);
			ftpu_link_rx_reset(&d->rx);
			d->hung = false;
			d->control_due = 0;
			d->reset_due = false;
			size_t len;
			uint32_t op = FTPU_LINK_OP_RESET;
			uint8_t *b = dh_encode(FTPU_LINK_CONTROL, 0, ++fx->h.seq, &op, 1, &len);
			dh_dev_write(&fx->h.dev[0], b, len);
			free(b);
		}
	}
#endif
	dh_host_wait(&fx->h);
	dh_host_clear(&fx->h);
	return 0;
}

static size_t N_of(const struct fixture *fx)
{
	return dh_host_cfg(&fx->h)->n;
}

/* Runs to idle and compares the three classes; the frames stay for the
 * caller to look at (cleared by the next prepare or clear). */
static void settle_compare(struct fixture *fx)
{
	assert_true(dh_host_wait(&fx->h));
	assert_int_equal(dh_host_compare(&fx->h), 0);
}

/* The device the caller reads results from: the RTL when there is one. */
static struct dh_dev *dut(struct fixture *fx)
{
	return &fx->h.dev[fx->h.ndev - 1];
}

static void send(struct fixture *fx, const struct dh_prog *p, size_t max_words)
{
	assert_true(dh_host_send_prog(&fx->h, p, max_words, NULL));
}

static void control(struct fixture *fx, uint32_t op)
{
	assert_true(dh_host_control(&fx->h, op));
}

static void sync_instr(struct fixture *fx, struct dh_prog *p)
{
	dh_prog_instr(p, FTPU_OP_SYNC, 0, 0, fx->tag++, 0);
}

/* The response frames of the device under test, latest last. */
static const struct dh_frame *last_response(struct fixture *fx)
{
	const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_RESPONSE);
	assert_true(fs->n > 0);
	return &fs->f[fs->n - 1];
}

/* ---- GEMMs --------------------------------------------------------------------- */

struct gemm_case {
	size_t M, K, N;
	bool accumulate, activate, relu, bias, write_acc, write_act;
	unsigned special;  /* per mille of special operand values */
	size_t max_mc;     /* force smaller M chunks (0: as large as fits) */
	size_t frame;      /* PROGRAM frame words (0: random 1..4096) */
	bool place;        /* random bases in the memories */
	bool dbuf;         /* double-buffered chunks (dh_gemm.double_buffer) */
};

/*
 * Runs one GEMM program on both devices; compares the classes and checks
 * the results against ftpu_ref_gemm (and ftpu_ref_activate). Returns the
 * program's MACs.
 */
static uint64_t run_gemm(struct fixture *fx, const struct gemm_case *gc)
{
	const struct ftpu_ref_device_config *cfg = dh_host_cfg(&fx->h);
	const size_t M = gc->M, K = gc->K, N = gc->N;
	uint16_t *A = malloc(M * K * 2), *B = malloc(K * N * 2), *act = malloc(M * N * 2);
	uint32_t *C0 = malloc(M * N * 4), *C = malloc(M * N * 4), *bias = malloc(N * 4);
	assert_true(A && B && act && C0 && C && bias);
	for (size_t i = 0; i < M * K; i++)
		A[i] = rng_bf16_operand(&fx->rng, gc->special);
	for (size_t i = 0; i < K * N; i++)
		B[i] = rng_bf16_operand(&fx->rng, gc->special);
	for (size_t i = 0; i < M * N; i++)
		C0[i] = (i % 7 == 3) ? 0x80000000u : rng_f32(&fx->rng);
	for (size_t i = 0; i < N; i++)
		bias[i] = rng_f32(&fx->rng);
	struct dh_gemm g = {
		.M = M, .K = K, .N = N, .A = A, .B = B, .C0 = C0,
		.accumulate = gc->accumulate,
		.write_acc = gc->write_acc || !gc->activate,
		.activate = gc->activate, .relu = gc->relu, .use_bias = gc->bias,
		.bias = bias, .write_act = gc->activate && (gc->write_act || !gc->write_acc),
		.double_buffer = gc->dbuf,
	};
	struct dh_gemm_run pl;
	assert_int_equal(dh_gemm_setup(cfg, &g, gc->max_mc,
				       gc->place ? &fx->rng : NULL, &pl), 0);
	struct dh_prog p = { 0 };
	dh_gemm_emit(&p, &pl, &g);
	uint32_t tag = fx->tag;
	sync_instr(fx, &p);

	dh_host_clear(&fx->h);
	if (gc->frame)
		send(fx, &p, gc->frame);
	else
		assert_true(dh_host_send_prog(&fx->h, &p, 4096, &fx->rng));
	size_t bad = 0;
	assert_true(dh_host_wait(&fx->h));
	bad = dh_host_compare(&fx->h);
	/* the results, from the device under test */
	struct dh_words w = { 0 };
	dh_dev_data_words(dut(fx), &w);
	int unpacked = dh_gemm_unpack(&pl, &g, w.w, w.n, g.write_acc ? C : NULL,
				      g.write_act ? act : NULL);
	size_t wrong = unpacked ? 1 : dh_gemm_check(&g, g.write_acc ? C : NULL,
						   g.write_act ? act : NULL);
	/* the last frame is the SYNC event */
	const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
	bool synced = fs->n && fs->f[fs->n - 1].type == FTPU_LINK_EVENT &&
		      fs->f[fs->n - 1].payload[0] == FTPU_LINK_EVENT_SYNC &&
		      fs->f[fs->n - 1].payload[1] == tag;
	if (bad || wrong || !synced)
		fprintf(stderr, "%s: GEMM %zux%zux%zu acc=%d act=%d relu=%d bias=%d "
			"chunks mc=%zu ntc=%zu ktc=%zu: %zu frame diffs, %zu wrong, synced %d\n",
			fx->name, M, K, N, gc->accumulate, gc->activate, gc->relu, gc->bias,
			pl.p.mc, pl.p.ntc, pl.p.ktc, bad, wrong, synced);
	uint64_t macs = p.macs;
	dh_words_free(&w);
	dh_prog_free(&p);
	dh_gemm_run_free(&pl);
	free(A), free(B), free(act), free(C0), free(C), free(bias);
	assert_int_equal(bad, 0);
	assert_int_equal(wrong, 0);
	assert_true(synced);
	return macs;
}

/* ---- tests: control plane ------------------------------------------------------- */

/* Every CONTROL op, well-formed and not, in the states IDLE, RUNNING (a
 * program open) and FAULTED. */
static void test_device_control_ops(void **state)
{
	struct fixture *fx = *state;
	static const uint32_t ops[] = {
		FTPU_LINK_OP_INFO, FTPU_LINK_OP_STATUS, FTPU_LINK_OP_READ_FAULTS,
		FTPU_LINK_OP_CLEAR_COUNTERS, FTPU_LINK_OP_READ_COUNTERS,
		FTPU_LINK_OP_RESET, FTPU_LINK_OP_STATUS, FTPU_LINK_OP_READ_COUNTERS,
		FTPU_LINK_OP_READ_FAULTS, 0, 13, 0xFFFFFFFF, /* 13: no device knows it */
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		control(fx, ops[i]);
		assert_true(dh_host_wait(&fx->h));
	}
	/* malformed requests: empty, two words, the largest the mailbox takes */
	uint32_t words[16] = { FTPU_LINK_OP_INFO, 1 };
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_CONTROL, 0, words, 0));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_CONTROL, 0, words, 2));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_CONTROL, 0, words, 16));
	/* reserved frame flags are ignored */
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_CONTROL, 0xA5, words, 1));
	settle_compare(fx);
	const struct dh_frames *rs = dh_dev_frames(dut(fx), DH_CLASS_RESPONSE);
	assert_int_equal(rs->n, sizeof(ops) / sizeof(ops[0]) + 4);

	/* INFO against the model's configuration */
	const struct dh_frame *info = &rs->f[0];
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	uint32_t v;
	assert_int_equal(ftpu_link_info_get(info->payload, info->len, FTPU_LINK_INFO_ROWS, &v), 0);
	assert_int_equal(v, c->n);
	assert_int_equal(ftpu_link_info_get(info->payload, info->len, FTPU_LINK_INFO_ROW_DELAY, &v), 0);
	assert_int_equal(v, c->row_delay);
	assert_int_equal(ftpu_link_info_get(info->payload, info->len, FTPU_LINK_INFO_IQ_WORDS, &v), 0);
	assert_int_equal(v, c->rx_words);
	assert_int_equal(ftpu_link_info_get(info->payload, info->len, FTPU_LINK_INFO_FEATURES, &v), 0);
	assert_int_equal(v, (c->vector_unit ? 1u : 0u) | (c->in_order ? 2u : 0u));
	assert_int_equal(ftpu_link_info_get(info->payload, info->len, FTPU_LINK_INFO_LINK_BYTES, &v), 0);
	assert_int_equal(v, c->link_bytes);
	dh_host_clear(&fx->h);

	/* STATUS while a program is open (RUNNING), and after a fault before
	 * its END (FAULTED), then after END (IDLE) */
	struct dh_prog p = { 0 };
	sync_instr(fx, &p);
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, p.w.w, p.w.n));
	assert_true(dh_host_wait(&fx->h));
	control(fx, FTPU_LINK_OP_STATUS);
	assert_true(dh_host_wait(&fx->h));
	dh_prog_reset(&p);
	dh_prog_instr(&p, 0x7F, 0, 1, 0, 0);
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, p.w.w, p.w.n));
	assert_true(dh_host_wait(&fx->h));
	control(fx, FTPU_LINK_OP_STATUS);
	assert_true(dh_host_wait(&fx->h));
	control(fx, FTPU_LINK_OP_READ_FAULTS);
	assert_true(dh_host_wait(&fx->h));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, NULL, 0));
	assert_true(dh_host_wait(&fx->h));
	control(fx, FTPU_LINK_OP_STATUS);
	settle_compare(fx);
	rs = dh_dev_frames(dut(fx), DH_CLASS_RESPONSE);
	assert_int_equal(rs->n, 4);
	assert_int_equal(rs->f[0].payload[2 + FTPU_LINK_STATUS_STATE], FTPU_LINK_STATE_RUNNING);
	assert_int_equal(rs->f[1].payload[2 + FTPU_LINK_STATUS_STATE], FTPU_LINK_STATE_FAULTED);
	assert_int_equal(rs->f[3].payload[2 + FTPU_LINK_STATUS_STATE], FTPU_LINK_STATE_IDLE);
	dh_prog_free(&p);
}

/* The register port (docs/registers.md) shows INFO, STATUS, the counters
 * and the fault record; CMD clears counters. RTL only. */
static void test_device_registers(void **state)
{
	struct fixture *fx = *state;
	if (!have_rtl(fx))
		skip();
#ifndef DH_NO_SIM
	struct ftpu_sim *s = rtl(fx);
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	uint32_t v;
	const struct {
		unsigned addr;
		uint32_t want;
	} regs[] = {
		{ 0x00, FTPU_LINK_SYNC }, { 0x01, 0x00010005 }, { 0x02, c->n }, { 0x03, c->n },
		{ 0x04, c->ub_vectors }, { 0x05, c->wm_rows / c->n }, { 0x06, c->acc_vectors },
		{ 0x07, c->bias_vectors }, { 0x08, c->rx_words }, { 0x09, c->clock_hz },
		{ 0x0A, c->row_delay }, { 0x0B, FTPU_LINK_MAX_PAYLOAD },
		{ 0x0C, (c->vector_unit ? 1u : 0u) | (c->in_order ? 2u : 0u) }, { 0x0D, c->link_bytes },
		{ 0x10, FTPU_LINK_STATE_IDLE }, { 0x11, c->rx_words }, { 0x12, 0 },
		{ 0x3F, 0 }, { 0xFE, 0 },
	};
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		assert_true(ftpu_sim_device_reg_read(s, regs[i].addr, &v));
		if (v != regs[i].want)
			fprintf(stderr, "register %#x: %#x, want %#x\n", regs[i].addr, v,
				regs[i].want);
		assert_int_equal(v, regs[i].want);
	}
	/* a fault, then the fault registers equal READ_FAULTS */
	struct dh_prog p = { 0 };
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_BIAS, 1, 0, 0);
	send(fx, &p, 4096);
	control(fx, FTPU_LINK_OP_READ_FAULTS);
	settle_compare(fx);
	const struct dh_frame *rf = last_response(fx);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(ftpu_sim_device_reg_read(s, 0x30 + i, &v));
		assert_int_equal(v, rf->payload[2 + i]);
	}
	assert_true(ftpu_sim_device_reg_read(s, 0x13, &v));
	assert_int_equal(v, rf->payload[2]);
	/* counters: READ_COUNTERS and the registers agree on what does not
	 * move while idle; the register read comes after the RESPONSE went out */
	control(fx, FTPU_LINK_OP_READ_COUNTERS);
	settle_compare(fx);
	const struct dh_frame *rc = last_response(fx);
	struct ftpu_sim_device_counters k;
	assert_true(ftpu_sim_device_read_counters(s, &k));
	const uint32_t *w = rc->payload + 2;
	assert_int_equal(k.macs, (uint64_t)w[FTPU_LINK_CNT_MACS_HI] << 32 | w[FTPU_LINK_CNT_MACS_LO]);
	assert_int_equal(k.bytes_in, (uint64_t)w[FTPU_LINK_CNT_BYTES_IN_HI] << 32 |
					     w[FTPU_LINK_CNT_BYTES_IN_LO]);
	assert_int_equal(k.bytes_out, ((uint64_t)w[FTPU_LINK_CNT_BYTES_OUT_HI] << 32 |
				       w[FTPU_LINK_CNT_BYTES_OUT_LO]) +
					      FTPU_LINK_FRAME_BYTES(rc->len));
	assert_int_equal(k.instructions, w[FTPU_LINK_CNT_INSTRUCTIONS]);
	assert_true(k.cycles > w[FTPU_LINK_CNT_CYCLES]);
	/* CMD bit 1 clears the counters (the C model gets CLEAR_COUNTERS) */
	assert_true(ftpu_sim_device_reg_write(s, 0x3F, 2));
	assert_true(ftpu_sim_device_read_counters(s, &k));
	assert_true(k.cycles < 64);
	assert_int_equal(k.macs, 0);
	assert_int_equal(k.bytes_in, 0);
	assert_int_equal(k.bytes_out, 0);
	assert_int_equal(k.instructions, 0);
	dh_prog_free(&p);
	/* bring the model's counters in line again */
	control(fx, FTPU_LINK_OP_CLEAR_COUNTERS);
	settle_compare(fx);
#endif
}

/* ---- tests: single instructions ------------------------------------------------ */

/* HOST_READ into UB and ACC, HOST_WRITE back: first, last and random
 * vectors, special values (NaN payloads, signed zeros, subnormals) kept
 * bit for bit; a HOST_WRITE longer than one DATA frame. */
static void test_device_host_read_write(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	struct dh_prog p = { 0 };
	uint16_t v16[300 * 16];
	uint32_t v32[300 * 16];
	struct {
		unsigned mem;
		uint32_t addr, n;
	} cases[] = {
		{ FTPU_MEM_UB, 0, 1 }, { FTPU_MEM_UB, c->ub_vectors - 1, 1 },
		{ FTPU_MEM_UB, c->ub_vectors - 7, 7 }, { FTPU_MEM_UB, 3, 40 },
		{ FTPU_MEM_ACC, 0, 1 }, { FTPU_MEM_ACC, c->acc_vectors - 1, 1 },
		{ FTPU_MEM_ACC, c->acc_vectors - 5, 5 }, { FTPU_MEM_ACC, 17, 33 },
		/* more than one DATA frame on 16x16 (256 fp32 vectors per frame) */
		{ FTPU_MEM_ACC, 100, c->acc_vectors >= 400 ? 300 : 150 },
		{ FTPU_MEM_UB, 60, c->ub_vectors >= 400 ? 300 : 150 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t n = cases[i].n;
		dh_prog_reset(&p);
		if (cases[i].mem == FTPU_MEM_UB) {
			for (size_t j = 0; j < n * N; j++)
				v16[j] = rng_bf16(&fx->rng);
			dh_prog_read_bf16(&p, FTPU_MEM_UB, cases[i].addr, v16, n, N);
		} else {
			for (size_t j = 0; j < n * N; j++)
				v32[j] = rng_f32(&fx->rng);
			dh_prog_read_f32(&p, FTPU_MEM_ACC, cases[i].addr, v32, n, N);
		}
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, cases[i].mem, n, cases[i].addr, 0);
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 1 + rng_below(&fx->rng, 600));
		settle_compare(fx);
		struct dh_words w = { 0 };
		dh_dev_data_words(dut(fx), &w);
		if (cases[i].mem == FTPU_MEM_UB) {
			assert_int_equal(w.n, n * N / 2);
			for (size_t j = 0; j < n * N; j++)
				assert_int_equal((uint16_t)(w.w[j / 2] >> (16 * (j % 2))), v16[j]);
		} else {
			assert_int_equal(w.n, n * N);
			assert_memory_equal(w.w, v32, n * N * 4);
		}
		dh_words_free(&w);
	}
	dh_prog_free(&p);
}

/* HOST_WRITE WORDS (protocol 1.3): the first b words of each vector, for
 * b from 1 to a whole vector, in UB and ACC, across DATA frames where the
 * memory is large enough; checked against the vectors sent in. */
static void test_device_host_write_words(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	struct dh_prog p = { 0 };
	enum { MAXV = 600 };
	uint16_t *v16 = malloc(MAXV * N * 2);
	uint32_t *v32 = malloc(MAXV * N * 4);
	assert_non_null(v16);
	assert_non_null(v32);
	struct {
		unsigned mem;
		uint32_t addr, n, words;
	} cases[] = {
		{ FTPU_MEM_ACC, 0, 1, 1 }, { FTPU_MEM_ACC, 5, 7, (uint32_t)N - 1 },
		{ FTPU_MEM_ACC, c->acc_vectors - 3, 3, (uint32_t)N },
		{ FTPU_MEM_UB, 0, 2, 1 }, { FTPU_MEM_UB, c->ub_vectors - 9, 9, (uint32_t)N / 2 - 1 },
		/* 10 of 16 lanes (the logits): 409 vectors a frame on 16x16 */
		{ FTPU_MEM_ACC, 20, c->acc_vectors >= 600 ? 500 : 100, (uint32_t)N * 5 / 8 },
		{ FTPU_MEM_UB, 40, c->ub_vectors >= 640 ? MAXV : 100, 1 + (uint32_t)N / 4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t n = cases[i].n, words = cases[i].words;
		dh_prog_reset(&p);
		if (cases[i].mem == FTPU_MEM_UB) {
			for (size_t j = 0; j < n * N; j++)
				v16[j] = rng_bf16(&fx->rng);
			dh_prog_read_bf16(&p, FTPU_MEM_UB, cases[i].addr, v16, n, N);
		} else {
			for (size_t j = 0; j < n * N; j++)
				v32[j] = rng_f32(&fx->rng);
			dh_prog_read_f32(&p, FTPU_MEM_ACC, cases[i].addr, v32, n, N);
		}
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, cases[i].mem | FTPU_HOST_WRITE_WORDS, n,
			      cases[i].addr, words);
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 1 + rng_below(&fx->rng, 600));
		settle_compare(fx);
		struct dh_words w = { 0 };
		dh_dev_data_words(dut(fx), &w);
		assert_int_equal(w.n, (size_t)n * words);
		for (size_t v = 0; v < n; v++)
			for (size_t k = 0; k < words; k++) {
				uint32_t want = cases[i].mem == FTPU_MEM_ACC ? v32[v * N + k] :
					(uint32_t)v16[v * N + 2 * k] |
					(uint32_t)v16[v * N + 2 * k + 1] << 16;
				assert_int_equal(w.w[v * words + k], want);
			}
		dh_words_free(&w);
	}
	dh_prog_free(&p);
	free(v16), free(v32);
}

/* HOST_READ U8 into UB: every byte value, at the first and last vectors
 * and across DATA frames; each must read back as bf16(p / 255): the fp32
 * quotient rounded to nearest even here (positive normal numbers, so the
 * rounding is the carry of the 16 bits below). */
static void test_device_host_read_u8(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	if (!c->vector_unit) /* U8 is then an OPCODE fault (test_device_faults) */
		skip();
	const size_t N = c->n, wpv = (N + 3) / 4;
	struct dh_prog p = { 0 };
	uint8_t px[300 * 16];
	const struct { uint32_t addr, n; } cases[] = {
		{ 0, 1 }, { c->ub_vectors - 1, 1 }, { 5, 40 },
		{ 60, c->ub_vectors >= 400 ? 300 : 150 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t n = cases[i].n;
		for (size_t j = 0; j < n * N; j++)
			px[j] = j < 256 ? (uint8_t)(j * 97 + 13) : (uint8_t)rng_below(&fx->rng, 256);
		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_UB | FTPU_HOST_READ_U8, n,
			      cases[i].addr, 0);
		for (size_t v = 0; v < n; v++)
			for (size_t w = 0; w < wpv; w++) {
				uint32_t word = 0;
				for (size_t b = 0; b < 4; b++) /* bytes past N: junk, ignored */
					word |= (uint32_t)(4 * w + b < N ? px[v * N + 4 * w + b]
									 : 0xA5) << (8 * b);
				dh_prog_word(&p, word);
			}
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, n, cases[i].addr, 0);
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 1 + rng_below(&fx->rng, 600));
		settle_compare(fx);
		struct dh_words got = { 0 };
		dh_dev_data_words(dut(fx), &got);
		assert_int_equal(got.n, n * N / 2);
		for (size_t j = 0; j < n * N; j++) {
			float q = (float)px[j] / 255.0f;
			uint32_t bits;
			memcpy(&bits, &q, 4);
			uint32_t want = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
			assert_int_equal((uint16_t)(got.w[j / 2] >> (16 * (j % 2))), want);
		}
		dh_words_free(&got);
	}
	dh_prog_free(&p);
}

/* Reads a weight tile back: LOAD_WEIGHTS, then MATMUL SWAP of the unit
 * vectors (UB[ub..ub+N)) into ACC[acc..acc+N), HOST_WRITE. */
static void emit_tile_readback(struct dh_prog *p, size_t N, uint32_t row, uint32_t ub,
			       uint32_t acc)
{
	dh_prog_instr(p, FTPU_OP_LOAD_WEIGHTS, 0, 1, row, 0);
	dh_prog_matmul(p, N, FTPU_MATMUL_SWAP, (unsigned)N, ub, acc);
	dh_prog_instr(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, (unsigned)N, acc, 0);
}

static void emit_unit_vectors(struct dh_prog *p, size_t N, uint32_t ub)
{
	uint16_t e[256 * 256];
	for (size_t i = 0; i < N * N; i++)
		e[i] = i / N == i % N ? 0x3F80 : 0x0000;
	dh_prog_read_bf16(p, FTPU_MEM_UB, ub, e, N, N);
}

/* Reads BIAS[b] back: ACTIVATE (BIAS) of a -0 ACC vector into UB. */
static void emit_bias_readback(struct dh_prog *p, size_t N, uint32_t b, uint32_t acc,
			       uint32_t ub)
{
	uint32_t z[256];
	for (size_t i = 0; i < N; i++)
		z[i] = 0x80000000u;
	dh_prog_read_f32(p, FTPU_MEM_ACC, acc, z, 1, N);
	dh_prog_instr(p, FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS, 1, acc, ub | b << 16);
	dh_prog_instr(p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 1, ub, 0);
}

/* HOST_READ into WM and BIAS, read back through the array and the
 * activation unit; the first and last tile rows and bias vectors. */
static void test_device_weights_and_bias(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	static uint16_t t[256 * 256];
	uint32_t b[256];
	struct dh_prog p = { 0 };
	const uint32_t rows[] = { 0, (uint32_t)N, c->wm_rows - (uint32_t)N,
				  (uint32_t)(rng_below(&fx->rng, c->wm_rows - (uint32_t)N)) };
	emit_unit_vectors(&p, N, 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (size_t j = 0; j < N * N; j++)
			t[j] = rng_bf16(&fx->rng);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, rows[i], t, N, N);
		emit_tile_readback(&p, N, rows[i], 0, (uint32_t)(8 + i * N));
	}
	const uint32_t bv[] = { 0, c->bias_vectors - 1, c->bias_vectors / 2 };
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < N; j++)
			b[j] = rng_f32(&fx->rng);
		dh_prog_read_f32(&p, FTPU_MEM_BIAS, bv[i], b, 1, N);
		emit_bias_readback(&p, N, bv[i], (uint32_t)(c->acc_vectors - 1 - i),
				   (uint32_t)(c->ub_vectors - 1 - i));
	}
	sync_instr(fx, &p);
	send(fx, &p, 97);
	settle_compare(fx);
	/* the tiles come back as the products 1.0 * w of the array */
	struct dh_words w = { 0 };
	dh_dev_data_words(dut(fx), &w);
	assert_int_equal(w.n, 4 * N * N + 3 * N / 2);
	dh_words_free(&w);
	dh_prog_free(&p);
}

/* HOST_READ ALSO_WM: bf16 and byte vectors into UB and, the same bf16
 * rows, into WM (the first and last tiles and one between), read back from
 * UB and through the array; and a tile whose load waits behind others when
 * a HOST_READ overwrites its rows still multiplies the old rows. */
static void test_device_host_read_also_wm(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	if (!c->vector_unit) /* ALSO_WM is then an OPCODE fault (test_device_faults) */
		skip();
	const uint32_t N = c->n, wpv8 = (N + 3) / 4;
	static uint16_t t[3][256 * 256];
	static uint8_t px[256 * 256];
	const uint32_t wm[3] = { 0, c->wm_rows - N, N * (1 + rng_below(&fx->rng, c->wm_rows / N - 2)) };
	const uint32_t ub[3] = { N, 2 * N, c->ub_vectors - N };
	struct dh_prog p = { 0 };
	emit_unit_vectors(&p, N, 0);
	for (int i = 0; i < 3; i++) {
		if (i == 1) { /* bytes: UNORM8 into UB, the same bf16 into WM */
			for (size_t j = 0; j < (size_t)N * N; j++) {
				px[j] = (uint8_t)rng_below(&fx->rng, 256);
				float q = (float)px[j] / 255.0f;
				uint32_t bits;
				memcpy(&bits, &q, 4);
				t[i][j] = (uint16_t)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
			}
			dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_UB | FTPU_HOST_READ_U8 |
				      FTPU_HOST_READ_ALSO_WM, N, ub[i], wm[i]);
			for (size_t v = 0; v < N; v++)
				for (size_t w = 0; w < wpv8; w++) {
					uint32_t word = 0;
					for (size_t b = 0; b < 4 && 4 * w + b < N; b++)
						word |= (uint32_t)px[v * N + 4 * w + b] << (8 * b);
					dh_prog_word(&p, word);
				}
		} else {
			for (size_t j = 0; j < (size_t)N * N; j++)
				t[i][j] = rng_bf16_operand(&fx->rng, 0); /* finite: read back as x * 1 */
			if (i == 2) { /* loads queued, the last of the old rows, then the HOST_READ onto them */
				for (int k = 0; k < 6; k++)
					dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, wm[1], 0);
				dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, wm[0], 0);
			}
			dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_UB | FTPU_HOST_READ_ALSO_WM, N,
				      ub[i], i == 2 ? wm[0] : wm[i]);
			for (size_t j = 0; j < (size_t)N * N / 2; j++)
				dh_prog_word(&p, (uint32_t)t[i][2 * j] | (uint32_t)t[i][2 * j + 1] << 16);
			if (i == 2) /* the old tile 0 */
				dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, N, 0, 8 + 3 * N);
		}
		if (i < 2)
			emit_tile_readback(&p, N, wm[i], 0, 8 + (uint32_t)i * N);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, N, ub[i], 0);
	}
	emit_tile_readback(&p, N, wm[0], 0, 8 + 2 * N); /* the third tile, at tile 0's rows */
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, N, 8 + 3 * N, 0);
	sync_instr(fx, &p);
	dh_host_clear(&fx->h);
	send(fx, &p, 1 + rng_below(&fx->rng, 600));
	settle_compare(fx);
	struct dh_words w = { 0 };
	dh_dev_data_words(dut(fx), &w);
	/* tile 0 (fp32 words), UB 0 (bf16 pairs), tile 1, UB 1, UB 2, tile 2 at
	 * tile 0's rows, the old tile 0 */
	assert_int_equal(w.n, (size_t)4 * N * N + 3 * N * N / 2);
	const size_t at_tile[4] = { 0, (size_t)N * N * 3 / 2, (size_t)N * N * 7 / 2,
				    (size_t)N * N * 9 / 2 };
	const int of_tile[4] = { 0, 1, 2, 0 };
	for (int k = 0; k < 4; k++)
		for (size_t j = 0; j < (size_t)N * N; j++) {
			uint16_t want = t[of_tile[k]][j];
			if (want & 0x7FFF) /* x * 1.0 among zeros: exactly x but for zeros' signs */
				assert_int_equal(w.w[at_tile[k] + j], (uint32_t)want << 16);
		}
	const size_t at_ub[3] = { (size_t)N * N, (size_t)N * N * 5 / 2, (size_t)N * N * 3 };
	for (int i = 0; i < 3; i++)
		for (size_t j = 0; j < (size_t)N * N; j++)
			assert_int_equal((uint16_t)(w.w[at_ub[i] + j / 2] >> (16 * (j % 2))), t[i][j]);
	dh_words_free(&w);
	dh_prog_free(&p);
}

/* LOAD_WEIGHTS + MATMUL alone: with and without SWAP and ACCUMULATE, two
 * loads before a SWAP, a MATMUL on the old tile while the new one loads. */
static void test_device_matmul(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	static uint16_t t[4][256 * 256], a[64 * 256];
	struct dh_prog p = { 0 };
	for (int i = 0; i < 4; i++) {
		for (size_t j = 0; j < N * N; j++)
			t[i][j] = rng_bf16_operand(&fx->rng, 30);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, (uint32_t)(i * N), t[i], N, N);
	}
	for (size_t j = 0; j < 64 * N; j++)
		a[j] = rng_bf16_operand(&fx->rng, 30);
	dh_prog_read_bf16(&p, FTPU_MEM_UB, 0, a, 64, N);
	dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
	dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 40, 0, 0);             /* a * t0 */
	dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)N, 0);
	dh_prog_matmul(&p, N, 0, 8, 40, 40);                           /* still t0 */
	dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)(2 * N), 0);
	dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 8, 48, 48);            /* t2 */
	dh_prog_matmul(&p, N, FTPU_MATMUL_ACCUMULATE, 8, 48, 48);      /* += t2 */
	dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)(3 * N), 0);
	dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP | FTPU_MATMUL_ACCUMULATE, 1, 63, 0); /* ACC[0] += */
	dh_prog_matmul(&p, N, FTPU_MATMUL_ACCUMULATE, 3, 0, 1);        /* short, back to back */
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 56, 0, 0);
	sync_instr(fx, &p);
	send(fx, &p, 4096);
	settle_compare(fx);
	/* the first block against the reference: ACC[0] was accumulated onto,
	 * rows 4..39 are a * t0 */
	struct dh_words w = { 0 };
	dh_dev_data_words(dut(fx), &w);
	assert_int_equal(w.n, 56 * N);
	uint32_t *want = calloc(40 * N, 4);
	assert_non_null(want);
	ftpu_ref_gemm(40, N, N, a, N, t[0], N, want, N, false);
	assert_memory_equal(w.w + 4 * N, want + 4 * N, 36 * N * 4);
	free(want);
	dh_words_free(&w);
	dh_prog_free(&p);
}

/* ACTIVATE in all four modes on special ACC and bias values, also in place
 * over UB that a MATMUL reads next. */
static void test_device_activate(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n, V = 24;
	uint32_t acc[24 * 16], bias[16];
	assert_true(N <= 16);
	for (unsigned mode = 0; mode < 4; mode++) {
		struct dh_prog p = { 0 };
		for (size_t i = 0; i < V * N; i++)
			acc[i] = rng_f32(&fx->rng);
		for (size_t i = 0; i < N; i++)
			bias[i] = rng_f32(&fx->rng);
		uint32_t b = rng_below(&fx->rng, c->bias_vectors);
		uint32_t a = rng_below(&fx->rng, c->acc_vectors - (uint32_t)V);
		uint32_t u = rng_below(&fx->rng, c->ub_vectors - (uint32_t)V);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, a, acc, V, N);
		dh_prog_read_f32(&p, FTPU_MEM_BIAS, b, bias, 1, N);
		/* without BIAS the bias field is ignored, even out of range */
		uint32_t bf = mode & FTPU_ACTIVATE_BIAS ? b : 0xFFFF;
		dh_prog_instr(&p, FTPU_OP_ACTIVATE, mode, (unsigned)V, a, u | bf << 16);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, (unsigned)V, u, 0);
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 50);
		settle_compare(fx);
		struct dh_words w = { 0 };
		dh_dev_data_words(dut(fx), &w);
		assert_int_equal(w.n, V * N / 2);
		for (size_t i = 0; i < V * N; i++) {
			uint16_t got = (uint16_t)(w.w[i / 2] >> (16 * (i % 2)));
			uint32_t bv = mode & FTPU_ACTIVATE_BIAS ? bias[i % N] : 0x80000000u;
			assert_int_equal(got, ftpu_ref_activate(acc[i], bv, mode & FTPU_ACTIVATE_RELU));
		}
		dh_words_free(&w);
		dh_prog_free(&p);
	}
}

/*
 * Two layers in one program without SYNCs, so that every instruction
 * depends on the one before it: what an overlapped device's scoreboard or
 * the small profile's in-order dispatch must hold back.
 *   MATMUL   X T1        -> ACC A    (X in UB 0)
 *   ACTIVATE A + b, ReLU -> UB U1    waits for A's rows
 *   MATMUL   U1 T2       -> ACC B    waits for ACTIVATE's UB rows
 *   HOST_READ Y          -> UB U1    waits for that MATMUL's UB reads
 *   ACTIVATE B           -> UB U2    waits for B's rows
 *   MATMUL   U1 T2       -> ACC A    Y T2, over rows ACTIVATE read
 * The results are recomputed here from the reference GEMM and activation,
 * and both devices must agree on everything.
 */
static void test_device_dependent_chain(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	static uint16_t X[160 * 16], Y[160 * 16], T1[16 * 16], T2[16 * 16], H[160 * 16];
	static uint32_t bias[16], C[160 * 16];
	assert_true(N <= 16);
	for (int round = 0; round < 3; round++) {
		const uint32_t m = (uint32_t)(6 * N + rng_below(&fx->rng, (uint32_t)(4 * N)));
		const uint32_t A = 3, B = A + m, U1 = m, U2 = 2 * m;
		for (size_t i = 0; i < m * N; i++) {
			X[i] = rng_bf16_operand(&fx->rng, 0);
			Y[i] = rng_bf16_operand(&fx->rng, 0);
		}
		for (size_t i = 0; i < N * N; i++) {
			T1[i] = rng_bf16_operand(&fx->rng, 0);
			T2[i] = rng_bf16_operand(&fx->rng, 0);
		}
		for (size_t i = 0; i < N; i++)
			bias[i] = (uint32_t)rng_bf16_operand(&fx->rng, 0) << 16;
		struct dh_prog p = { 0 };
		dh_prog_read_bf16(&p, FTPU_MEM_WM, 0, T1, N, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, (uint32_t)N, T2, N, N);
		dh_prog_read_f32(&p, FTPU_MEM_BIAS, 1, bias, 1, N);
		dh_prog_read_bf16(&p, FTPU_MEM_UB, 0, X, m, N);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A);
		dh_prog_instr(&p, FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS | FTPU_ACTIVATE_RELU, m, A,
			      U1 | 1u << 16);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)N, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, U1, B);
		dh_prog_read_bf16(&p, FTPU_MEM_UB, U1, Y, m, N);
		dh_prog_instr(&p, FTPU_OP_ACTIVATE, 0, m, B, U2);
		dh_prog_matmul(&p, N, 0, m, U1, A);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, m, U2, 0);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, m, A, 0);
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 1 + rng_below(&fx->rng, 600));
		settle_compare(fx);

		/* layer 1, layer 2, then Y T2 */
		ftpu_ref_gemm(m, N, N, X, N, T1, N, C, N, false);
		for (size_t i = 0; i < m * N; i++)
			H[i] = ftpu_ref_activate(C[i], bias[i % N], true);
		ftpu_ref_gemm(m, N, N, H, N, T2, N, C, N, false);
		struct dh_words w = { 0 };
		dh_dev_data_words(dut(fx), &w);
		assert_int_equal(w.n, (size_t)m * N / 2 + (size_t)m * N);
		for (size_t i = 0; i < m * N; i++) {
			uint16_t got = (uint16_t)(w.w[i / 2] >> (16 * (i % 2)));
			assert_int_equal(got, ftpu_ref_activate(C[i], 0x80000000u, false));
		}
		ftpu_ref_gemm(m, N, N, Y, N, T2, N, C, N, false);
		assert_memory_equal(w.w + m * N / 2, C, (size_t)m * N * 4);
		dh_words_free(&w);
		dh_prog_free(&p);
	}
}

/* SYNC: any tag, n ignored; the EVENT follows the DATA of everything
 * before it. */
static void test_device_sync(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	struct dh_prog p = { 0 };
	uint32_t v[8 * 16];
	for (size_t i = 0; i < 8 * N; i++)
		v[i] = rng_u32(&fx->rng);
	dh_prog_read_f32(&p, FTPU_MEM_ACC, 5, v, 8, N);
	const uint32_t tags[] = { 0, 0xFFFFFFFF, 0x80000000, 1, 0xC0FFEE };
	for (size_t i = 0; i < 5; i++) {
		dh_prog_instr(&p, FTPU_OP_SYNC, 0, i * 7777u, tags[i], i * 0x1111u);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 1 + (unsigned)i, 5, 0);
	}
	for (int i = 0; i < 5; i++)
		sync_instr(fx, &p);
	send(fx, &p, 4096);
	settle_compare(fx);
	const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
	assert_int_equal(fs->n, 15);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(fs->f[2 * i].type, FTPU_LINK_EVENT);
		assert_int_equal(fs->f[2 * i].payload[1], tags[i]);
		assert_int_equal(fs->f[2 * i + 1].type, FTPU_LINK_DATA);
	}
	dh_prog_free(&p);
}

/* ---- tests: GEMMs ------------------------------------------------------------------- */

/* Ragged and edge shapes: K and N beyond the array, M from 1 up, all four
 * combinations of accumulate and activation. */
static void test_device_gemm_shapes(void **state)
{
	struct fixture *fx = *state;
	const size_t n = N_of(fx);
	const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 1, n, n }, { n, n, n }, { 3, 2 * n + 1, n + 3 },
		{ 2 * n + 5, 3 * n - 1, 2 * n }, { 40, 5, 3 * n + 2 }, { 7, 4 * n, 1 },
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct gemm_case gc = {
			.M = shapes[i][0], .K = shapes[i][1], .N = shapes[i][2],
			.accumulate = i & 1, .activate = i % 3 == 1, .relu = i & 2,
			.bias = i % 2 == 0, .write_acc = true, .write_act = true,
			.special = 20, .frame = 0, .place = true,
		};
		run_gemm(fx, &gc);
	}
}

/* Random shapes; M up to a few hundred; chunked when the memories are too
 * small (always on 4p for the big ones); random frame sizes. */
static void test_device_gemm_random(void **state)
{
	struct fixture *fx = *state;
	const size_t n = N_of(fx);
	int cases = ftpu_test_full() ? 120 : 24;
	for (int i = 0; i < cases; i++) {
		bool big = i % 4 == 3;
		struct gemm_case gc = {
			.M = big ? 100 + rng_below(&fx->rng, 200) : 1 + rng_below(&fx->rng, 3 * n),
			.K = 1 + rng_below(&fx->rng, big ? 2 * n : 5 * n),
			.N = 1 + rng_below(&fx->rng, big ? 2 * n : 4 * n),
			.accumulate = rng_below(&fx->rng, 2),
			.activate = rng_below(&fx->rng, 3) == 0,
			.relu = rng_below(&fx->rng, 2),
			.bias = rng_below(&fx->rng, 2),
			.write_acc = rng_below(&fx->rng, 2),
			.write_act = true,
			.special = 20,
			.place = true,
			.dbuf = rng_below(&fx->rng, 2),
		};
		run_gemm(fx, &gc);
	}
}

/* Chunked layouts forced on purpose: small M chunks (the same B reused),
 * and on 4p shapes whose K or N exceed the weight memory. */
static void test_device_gemm_chunked(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t n = c->n;
	struct gemm_case gc = {
		.M = 50, .K = 3 * n, .N = 2 * n + 1, .accumulate = true, .write_acc = true,
		.special = 20, .max_mc = 7, .frame = 300,
	};
	run_gemm(fx, &gc);
	/* double-buffered: a chunk's HOST_WRITE and ACTIVATE overlap the
	 * next chunk, which works in the other halves */
	struct gemm_case db = {
		.M = 61, .K = 2 * n + 5, .N = 3 * n, .write_acc = true, .activate = true,
		.bias = true, .relu = true, .write_act = true, .special = 20, .max_mc = 9,
		.frame = 2000, .dbuf = true, .place = true,
	};
	run_gemm(fx, &db);
	if (c->wm_rows <= 1024) { /* K beyond the weight memory: k-chunks */
		struct gemm_case k = {
			.M = 9, .K = c->wm_rows + 3 * n + 1, .N = n + 1, .write_acc = true,
			.activate = true, .relu = true, .bias = true, .write_act = true,
			.special = 10, .frame = 4096,
		};
		run_gemm(fx, &k);
		k.dbuf = true, k.M = 30, k.N = 3 * n - 1;
		run_gemm(fx, &k);
	}
}

/* One program cut into tiny frames: 1, 2 words, random sizes, and empty
 * frames inside it; instructions and inline data cross every boundary. */
static void test_device_program_split(void **state)
{
	struct fixture *fx = *state;
	const size_t n = N_of(fx);
	const size_t sizes[] = { 1, 2, 5 };
	for (size_t i = 0; i < 3; i++) {
		struct gemm_case gc = {
			.M = 5, .K = n + 1, .N = n - 1, .write_acc = true,
			.special = 20, .frame = sizes[i],
		};
		run_gemm(fx, &gc);
	}
	/* random sizes with empty frames in between */
	struct dh_prog p = { 0 };
	uint32_t v[32 * 16];
	for (size_t i = 0; i < 32 * n; i++)
		v[i] = rng_f32(&fx->rng);
	dh_prog_read_f32(&p, FTPU_MEM_ACC, 9, v, 32, n);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 32, 9, 0);
	sync_instr(fx, &p);
	dh_host_clear(&fx->h);
	size_t at = 0;
	while (at < p.w.n) {
		size_t piece = 1 + rng_below(&fx->rng, 40);
		if (piece > p.w.n - at)
			piece = p.w.n - at;
		unsigned fl = (at == 0 ? FTPU_PROGRAM_START : 0) |
			      (at + piece == p.w.n ? FTPU_PROGRAM_END : 0);
		if (!(fl & FTPU_PROGRAM_END))
			assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, NULL, 0));
		assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, fl, p.w.w + at, piece));
		at += piece;
	}
	settle_compare(fx);
	struct dh_words w = { 0 };
	dh_dev_data_words(dut(fx), &w);
	assert_int_equal(w.n, 32 * n);
	assert_memory_equal(w.w, v, 32 * n * 4);
	dh_words_free(&w);
	dh_prog_free(&p);
}

/* ---- tests: faults --------------------------------------------------------------------- */

/* Guard vectors at both ends of UB, ACC, BIAS and WM, and the middle
 * scratch areas the read-back uses. */
#define GUARD 4u

static void write_guards(struct fixture *fx)
{
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	static uint16_t b16[256 * 256];
	uint32_t b32[GUARD * 256];
	struct dh_prog p = { 0 };
	for (int end = 0; end < 2; end++) {
		for (size_t i = 0; i < GUARD * N; i++)
			b16[i] = rng_bf16(&fx->rng), b32[i] = rng_f32(&fx->rng);
		dh_prog_read_bf16(&p, FTPU_MEM_UB, end ? c->ub_vectors - GUARD : 0, b16, GUARD, N);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, end ? c->acc_vectors - GUARD : 0, b32, GUARD, N);
		dh_prog_read_f32(&p, FTPU_MEM_BIAS, end ? c->bias_vectors - 2 : 0, b32, 2, N);
		for (size_t i = 0; i < N * N; i++)
			b16[i] = rng_bf16_operand(&fx->rng, 30);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, end ? c->wm_rows - (uint32_t)N : 0, b16, N, N);
	}
	send(fx, &p, 4096);
	settle_compare(fx);
	dh_prog_free(&p);
}

/* Reads every guard back (compared with the C model, which never writes
 * outside a checked range). Uses UB and ACC vectors from GUARD on. */
static void check_guards(struct fixture *fx)
{
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	const uint32_t ub = GUARD, acc = GUARD; /* scratch */
	struct dh_prog p = { 0 };
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, GUARD, 0, 0);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, GUARD, c->ub_vectors - GUARD, 0);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, GUARD, 0, 0);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, GUARD, c->acc_vectors - GUARD, 0);
	emit_unit_vectors(&p, N, ub);
	emit_tile_readback(&p, N, 0, ub, acc);
	emit_tile_readback(&p, N, c->wm_rows - (uint32_t)N, ub, acc);
	const uint32_t bv[] = { 0, 1, c->bias_vectors - 2, c->bias_vectors - 1 };
	for (int i = 0; i < 4; i++)
		emit_bias_readback(&p, N, bv[i], acc, ub + (uint32_t)N);
	sync_instr(fx, &p);
	dh_host_clear(&fx->h);
	send(fx, &p, 4096);
	settle_compare(fx);
	dh_prog_free(&p);
}

struct fault_case {
	const char *what;
	unsigned op, flags, n;
	uint32_t a, b;
	unsigned code; /* 0: must not fault */
};

/* Every fault of docs/isa.md that one instruction causes, and their
 * priorities (the C model's order of checks). */
static size_t fault_cases(const struct ftpu_ref_device_config *c, struct fault_case *fc)
{
	const uint32_t N = c->n, UB = c->ub_vectors, WM = c->wm_rows, ACC = c->acc_vectors;
	const uint32_t BI = c->bias_vectors;
	const struct fault_case all[] = {
		{ "opcode 0", 0x00, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "opcode 7", 0x07, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "opcode 0xFF n=0", 0xFF, 0, 0, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ flag 0x10", FTPU_OP_HOST_READ, 0x10, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ ALSO_WM into WM", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM | FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ ALSO_WM into ACC", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM | FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ ALSO_WM WM end", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM, 2, 0, WM - 1, FTPU_FAULT_RANGE },
		{ "HOST_READ ALSO_WM U8 WM wrap", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM | FTPU_HOST_READ_U8, 2, 0, 0xFFFFFFFF, FTPU_FAULT_RANGE },
		{ "HOST_READ ALSO_WM UB end", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM, 2, UB - 1, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ U8 into WM", FTPU_OP_HOST_READ, FTPU_HOST_READ_U8 | FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ U8 into ACC", FTPU_OP_HOST_READ, FTPU_HOST_READ_U8 | FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ U8 UB end", FTPU_OP_HOST_READ, FTPU_HOST_READ_U8, 3, UB - 2, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ flag 0x80 + range", FTPU_OP_HOST_READ, 0x80, 2, UB, 0, FTPU_FAULT_OPCODE },
		{ "LOAD_WEIGHTS flag", FTPU_OP_LOAD_WEIGHTS, 0x01, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "MATMUL flag 4", FTPU_OP_MATMUL, 0x04, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "ACTIVATE flag 4", FTPU_OP_ACTIVATE, 0x04, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_WRITE flag 0x40", FTPU_OP_HOST_WRITE, 0x40, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "SYNC flag", FTPU_OP_SYNC, 0x01, 0, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_READ n=0", FTPU_OP_HOST_READ, FTPU_MEM_UB, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "LOAD_WEIGHTS n=0", FTPU_OP_LOAD_WEIGHTS, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "LOAD_WEIGHTS n=2", FTPU_OP_LOAD_WEIGHTS, 0, 2, 0, 0, FTPU_FAULT_COUNT },
		{ "LOAD_WEIGHTS n=65535", FTPU_OP_LOAD_WEIGHTS, 0, 65535, 0, 0, FTPU_FAULT_COUNT },
		{ "MATMUL n=0 flag 4", FTPU_OP_MATMUL, 0x04, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "ACTIVATE n=0", FTPU_OP_ACTIVATE, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WM n=0", FTPU_OP_HOST_WRITE, FTPU_MEM_WM, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_READ UB start", FTPU_OP_HOST_READ, FTPU_MEM_UB, 1, UB, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ UB end", FTPU_OP_HOST_READ, FTPU_MEM_UB, 3, UB - 2, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ UB wrap", FTPU_OP_HOST_READ, FTPU_MEM_UB, 2, 0xFFFFFFFF, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ WM end", FTPU_OP_HOST_READ, FTPU_MEM_WM, 2, WM - 1, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ ACC end", FTPU_OP_HOST_READ, FTPU_MEM_ACC, 2, ACC - 1, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ BIAS start", FTPU_OP_HOST_READ, FTPU_MEM_BIAS, 1, BI, 0, FTPU_FAULT_RANGE },
		{ "HOST_READ BIAS end", FTPU_OP_HOST_READ, FTPU_MEM_BIAS, 4, BI - 3, 0, FTPU_FAULT_RANGE },
		{ "LOAD_WEIGHTS last row + 1", FTPU_OP_LOAD_WEIGHTS, 0, 1, WM - N + 1, 0, FTPU_FAULT_RANGE },
		{ "LOAD_WEIGHTS huge", FTPU_OP_LOAD_WEIGHTS, 0, 1, 0xFFFFFFF0, 0, FTPU_FAULT_RANGE },
		{ "MATMUL UB end", FTPU_OP_MATMUL, 0, 2, UB - 1, 0, FTPU_FAULT_RANGE },
		{ "MATMUL UB start", FTPU_OP_MATMUL, FTPU_MATMUL_SWAP, 1, UB, 0, FTPU_FAULT_RANGE },
		{ "MATMUL ACC end", FTPU_OP_MATMUL, FTPU_MATMUL_ACCUMULATE, 3, 0, ACC - 2, FTPU_FAULT_RANGE },
		{ "MATMUL ACC wrap", FTPU_OP_MATMUL, 0, 1, 0, 0xFFFFFFFF, FTPU_FAULT_RANGE },
		{ "ACTIVATE ACC end", FTPU_OP_ACTIVATE, 0, 2, ACC - 1, 0, FTPU_FAULT_RANGE },
		{ "ACTIVATE UB end", FTPU_OP_ACTIVATE, FTPU_ACTIVATE_RELU, 2, 0, UB - 1, FTPU_FAULT_RANGE },
		{ "ACTIVATE BIAS", FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS, 1, 0, BI << 16, FTPU_FAULT_RANGE },
		{ "HOST_WRITE UB end", FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 2, UB - 1, 0, FTPU_FAULT_RANGE },
		{ "HOST_WRITE ACC start", FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 1, ACC, 0, FTPU_FAULT_RANGE },
		{ "HOST_WRITE WM", FTPU_OP_HOST_WRITE, FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_MEMORY },
		{ "HOST_WRITE BIAS beyond", FTPU_OP_HOST_WRITE, FTPU_MEM_BIAS, 1, BI, 0, FTPU_FAULT_MEMORY },
		{ "HOST_WRITE flag 8", FTPU_OP_HOST_WRITE, 0x08 | FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "HOST_WRITE WORDS of WM", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_MEMORY },
		{ "HOST_WRITE WORDS b=0", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS ACC b=N+1", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 1, 0, N + 1, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS UB b=N/2+1", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_UB, 1, 0, N / 2 + 1, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS b=2^32-1", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 1, 0, 0xFFFFFFFF, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS b=0 + range", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_UB, 2, UB, 0, FTPU_FAULT_COUNT },
		{ "HOST_WRITE WORDS ACC end", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 2, ACC - 1, 1, FTPU_FAULT_RANGE },
		/* not faults: the last vector of each memory, SYNC's n */
		{ "ACTIVATE no BIAS, bias field 0xFFFF", FTPU_OP_ACTIVATE, 0, 1, ACC - 1,
		  0xFFFF0000u | (UB - 1), 0 },
		{ "LOAD_WEIGHTS last tile", FTPU_OP_LOAD_WEIGHTS, 0, 1, WM - N, 0, 0 },
		{ "SYNC n=65535", FTPU_OP_SYNC, 0, 65535, 0x5555, 0, 0 },
		{ "HOST_WRITE UB last", FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 1, UB - 1, 0, 0 },
		{ "HOST_WRITE WORDS ACC b=N, last", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_ACC, 1, ACC - 1, N, 0 },
		{ "HOST_WRITE WORDS UB b=N/2", FTPU_OP_HOST_WRITE, FTPU_HOST_WRITE_WORDS | FTPU_MEM_UB, 2, 0, N / 2, 0 },
		{ "HOST_READ ALSO_WM last rows", FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM, 1, UB - 1, WM - 1, 0 },
	};
	memcpy(fc, all, sizeof(all));
	const size_t n = sizeof(all) / sizeof(all[0]);
	/* without the vector unit U8 and ALSO_WM are OPCODE faults, checked first */
	for (size_t i = 0; i < n && !c->vector_unit; i++)
		if (fc[i].op == FTPU_OP_HOST_READ &&
		    (fc[i].flags & (FTPU_HOST_READ_U8 | FTPU_HOST_READ_ALSO_WM)))
			fc[i].code = FTPU_FAULT_OPCODE;
	return n;
}

/*
 * Each fault: a SYNC that runs, the faulting instruction (a HOST_READ's
 * data after it), a SYNC that must not run, split over frames; the FAULT
 * event equals the model's; READ_FAULTS; nothing outside the ranges
 * written (guards read back at the end and every 8 cases); the next
 * program works.
 */
static void test_device_faults(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	struct fault_case fc[64];
	size_t nc = fault_cases(c, fc);
	write_guards(fx);
	for (size_t i = 0; i < nc; i++) {
		struct dh_prog p = { 0 };
		/* a tile in both buffers, so MATMUL reaches its range checks */
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)(2 * c->n), 0);
		dh_prog_matmul(&p, c->n, FTPU_MATMUL_SWAP, 1, 2 * GUARD, 2 * GUARD);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)(2 * c->n), 0);
		sync_instr(fx, &p);
		dh_prog_instr(&p, fc[i].op, fc[i].flags, fc[i].n, fc[i].a, fc[i].b);
		if (fc[i].op == FTPU_OP_HOST_READ) {
			size_t words = (size_t)fc[i].n * ((fc[i].flags & FTPU_HOST_READ_U8) ? (c->n + 3) / 4 :
							  (fc[i].flags & 3) >= FTPU_MEM_ACC ? c->n : c->n / 2);
			for (size_t w = 0; w < words && w < 4096; w++)
				dh_prog_word(&p, rng_u32(&fx->rng));
		}
		sync_instr(fx, &p);
		dh_host_clear(&fx->h);
		send(fx, &p, 1 + rng_below(&fx->rng, 8));
		control(fx, FTPU_LINK_OP_READ_FAULTS);
		settle_compare(fx);
		const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
		const struct dh_frame *last = &fs->f[fs->n - 1];
		bool ok;
		if (fc[i].code)
			ok = fs->n >= 2 && last->type == FTPU_LINK_EVENT &&
			     last->payload[0] == FTPU_LINK_EVENT_FAULT && last->payload[1] == 4 &&
			     last->payload[2] == fc[i].code && last->payload[3] == p.w.w[12];
		else
			ok = last->type == FTPU_LINK_EVENT &&
			     last->payload[0] == FTPU_LINK_EVENT_SYNC;
		if (!ok)
			fprintf(stderr, "%s: fault case '%s' (want code %u)\n", fx->name,
				fc[i].what, fc[i].code);
		assert_true(ok);
		dh_prog_free(&p);
		if (i % 8 == 7 || i + 1 == nc)
			check_guards(fx);
		/* and the next program works */
		struct gemm_case gc = { .M = 3, .K = 2 * c->n - 1, .N = 5, .write_acc = true,
					.special = 20, .frame = 4096 };
		if (i % 4 == 0)
			run_gemm(fx, &gc);
	}
}

/* MATMUL without a tile: SWAP before any LOAD_WEIGHTS after RESET, a
 * MATMUL without SWAP when only a load happened, a second SWAP without a
 * new load; and RANGE before NO_TILE. */
static void test_device_fault_no_tile(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const uint32_t N = c->n;
	for (int k = 0; k < 4; k++) {
		struct dh_prog p = { 0 };
		control(fx, FTPU_LINK_OP_RESET);
		sync_instr(fx, &p);
		switch (k) {
		case 0:
			dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 1, 0, 0);
			break;
		case 1:
			dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
			dh_prog_matmul(&p, N, 0, 1, 0, 0);
			break;
		case 2:
			dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
			dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 1, 0, 0);
			dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 1, 0, 0);
			break;
		default:
			dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, 1, c->ub_vectors, 0);
			break;
		}
		sync_instr(fx, &p);
		send(fx, &p, 4);
		control(fx, FTPU_LINK_OP_READ_FAULTS);
		settle_compare(fx);
		const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
		assert_int_equal(fs->f[fs->n - 1].payload[0], FTPU_LINK_EVENT_FAULT);
		assert_int_equal(fs->f[fs->n - 1].payload[2],
				 k == 3 ? FTPU_FAULT_RANGE : FTPU_FAULT_NO_TILE);
		dh_host_clear(&fx->h);
		dh_prog_free(&p);
	}
	struct gemm_case gc = { .M = 4, .K = N + 1, .N = N, .write_acc = true, .frame = 7 };
	run_gemm(fx, &gc);
}

/* Programs that end inside an instruction or its data (TRUNCATED), a START
 * while a program is open, and PROGRAM words outside START..END (FRAMING,
 * once per frame). */
static void test_device_truncated_and_framing(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	struct dh_prog p = { 0 };
	uint32_t w[64];
	/* END after 1 and 2 words of an instruction, inside HOST_READ data */
	sync_instr(fx, &p);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 1, 0, 0);
	for (size_t cut = 4; cut <= 5; cut++)
		assert_true(dh_host_program(&fx->h, p.w.w, cut, 2, NULL));
	dh_prog_reset(&p);
	sync_instr(fx, &p);
	dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, 2, 0, 0);
	for (size_t i = 0; i < N; i++)
		dh_prog_word(&p, rng_f32(&fx->rng));
	assert_true(dh_host_program(&fx->h, p.w.w, p.w.n, 5, NULL));
	/* a START while a program is open, mid-instruction: TRUNCATED, then
	 * the new program runs */
	dh_prog_reset(&p);
	sync_instr(fx, &p);
	dh_prog_instr(&p, FTPU_OP_SYNC, 0, 0, 0xBAD, 0);
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, p.w.w, 4));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM,
				       FTPU_PROGRAM_START | FTPU_PROGRAM_END, p.w.w, 3));
	/* a START while open at an instruction boundary: no fault */
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, p.w.w, 3));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, p.w.w, 3));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, NULL, 0));
	/* empty programs */
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM,
				       FTPU_PROGRAM_START | FTPU_PROGRAM_END, NULL, 0));
	/* outside START..END: one FAULT per frame, whatever its flags */
	for (size_t i = 0; i < 6; i++)
		w[i] = rng_u32(&fx->rng);
	ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, 0xF00D, 0);
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, w, 3));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, w, 6));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, NULL, 0));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, w + 1, 5));
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0xF0, w + 3, 2));
	control(fx, FTPU_LINK_OP_READ_FAULTS);
	settle_compare(fx);
	const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
	size_t faults = 0;
	for (size_t i = 0; i < fs->n; i++)
		faults += fs->f[i].payload[0] == FTPU_LINK_EVENT_FAULT;
	assert_int_equal(faults, 3 + 1 + 5);
	dh_prog_free(&p);
	struct gemm_case gc = { .M = 2, .K = 3, .N = 4, .accumulate = true, .write_acc = true,
				.frame = 4096 };
	run_gemm(fx, &gc);
}

/*
 * A HOST_READ cut short (END inside its inline data: TRUNCATED) writes the
 * complete vectors it received, not the partial one (docs/isa.md, fault
 * 5: the memories take whole vectors).
 */
static void test_device_truncated_host_read(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	for (unsigned mem = FTPU_MEM_UB; mem <= FTPU_MEM_ACC; mem += FTPU_MEM_ACC) {
		const size_t words = mem == FTPU_MEM_ACC ? N : N / 2;
		struct dh_prog p = { 0 };
		dh_prog_instr(&p, FTPU_OP_HOST_READ, mem, 3, 40, 0);
		for (size_t i = 0; i < 3 * words; i++)
			dh_prog_word(&p, 0x11110000u + (uint32_t)i);
		send(fx, &p, 4096);
		/* one vector and a half of three */
		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_READ, mem, 3, 40, 0);
		for (size_t i = 0; i < words + words / 2; i++)
			dh_prog_word(&p, 0x22220000u + (uint32_t)i);
		send(fx, &p, 4096);
		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, mem, 3, 40, 0);
		send(fx, &p, 4096);
		settle_compare(fx);
		struct dh_words w = { 0 };
		dh_dev_data_words(dut(fx), &w);
		assert_int_equal(w.n, 3 * words);
		for (size_t i = 0; i < 3 * words; i++)
			assert_int_equal(w.w[i], (i < words ? 0x22220000u : 0x11110000u) + i);
		dh_words_free(&w);
		dh_host_clear(&fx->h);
		dh_prog_free(&p);
	}
}

/* ---- tests: the link ---------------------------------------------------------------------- */

/* A program that sends a SYNC event with tag, as one frame. */
static size_t sync_frame(struct fixture *fx, uint32_t tag, uint8_t *out)
{
	uint32_t w[FTPU_ISA_WORDS];
	ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, tag, 0);
	return dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM,
					  FTPU_PROGRAM_START | FTPU_PROGRAM_END, ++fx->h.seq),
			     FTPU_LINK_W2(3, 0), w, 3, out);
}

static void garbage(struct fixture *fx, uint8_t *out, size_t n)
{
	static const char sync[] = "FTPU";
	for (size_t i = 0; i < n; i++) {
		uint32_t r = rng_u32(&fx->rng);
		out[i] = (r & 7) == 0 ? (uint8_t)sync[(r >> 3) % 4] : (uint8_t)(r >> 8);
	}
}

/*
 * Link abuse, bytes paced so the device's error reports keep up: flipped
 * header and payload bits, truncated frames, lengths that disagree with
 * the payload or exceed MAX_PAYLOAD, unknown types, garbage between frames,
 * CONTROL len 17. ERROR frames equal the model's, corrupted frames are
 * never executed or answered, and the link carries on.
 */
static void test_device_link_errors(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[256], g[64];
	uint32_t words[20] = { FTPU_LINK_OP_STATUS };
	size_t len;
	set_pace(fx, 8, 1, 0, 0);
	/* header bit flips (incl. SYNC bytes) and payload / PCRC bit flips */
	for (size_t byte = 0; byte < 32; byte += 1 + byte / 8) {
		len = sync_frame(fx, 0xE000 + (uint32_t)byte, f);
		f[byte] ^= (uint8_t)(1u << rng_below(&fx->rng, 8));
		dh_host_write(&fx->h, f, len);
		len = sync_frame(fx, 0xA000 + (uint32_t)byte, f); /* must run */
		dh_host_write(&fx->h, f, len);
	}
	settle_compare(fx);
	/* a corrupted CONTROL frame gets no RESPONSE */
	len = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_CONTROL, 0, ++fx->h.seq), FTPU_LINK_W2(1, 0),
			    words, 1, f);
	f[17] ^= 0x40;
	dh_host_write(&fx->h, f, len);
	/* truncated frames: the next frame's bytes complete them */
	for (size_t cut = 5; cut < 28; cut += 7) {
		len = sync_frame(fx, 0xB000 + (uint32_t)cut, f);
		dh_host_write(&fx->h, f, len - cut);
		len = sync_frame(fx, 0xB100 + (uint32_t)cut, f);
		dh_host_write(&fx->h, f, len);
		garbage(fx, g, 40); /* so the frame after is found */
		dh_host_write(&fx->h, g, 40);
		len = sync_frame(fx, 0xB200 + (uint32_t)cut, f);
		dh_host_write(&fx->h, f, len);
	}
	/* lengths: shorter and longer than the payload, beyond MAX_PAYLOAD */
	const uint32_t lens[] = { 2, 4, 9, FTPU_LINK_MAX_PAYLOAD + 1, 0xFFFF };
	for (size_t i = 0; i < 5; i++) {
		uint32_t w[3];
		ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, 0xC000 + (uint32_t)i, 0);
		len = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM, 3, ++fx->h.seq),
				    FTPU_LINK_W2(lens[i], 0), w, 3, f);
		dh_host_write(&fx->h, f, len);
		garbage(fx, g, 48);
		dh_host_write(&fx->h, g, 48);
		len = sync_frame(fx, 0xC100 + (uint32_t)i, f);
		dh_host_write(&fx->h, f, len);
	}
	/* unknown types and device-to-host types: skipped whole */
	const unsigned types[] = { 0x00, 0x03, 0x7F, 0x81, 0x82, 0x83, 0x84, 0xFF };
	for (size_t i = 0; i < 8; i++) {
		uint32_t w[3];
		ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, 0xD000 + (uint32_t)i, 0);
		len = dh_encode_raw(FTPU_LINK_W1(types[i], 3, ++fx->h.seq), FTPU_LINK_W2(3, 0),
				    w, 3, f);
		dh_host_write(&fx->h, f, len);
		len = sync_frame(fx, 0xD100 + (uint32_t)i, f);
		dh_host_write(&fx->h, f, len);
	}
	/* garbage with partial SYNCs between frames */
	for (int i = 0; i < 6; i++) {
		size_t n = 1 + rng_below(&fx->rng, 60);
		garbage(fx, g, n);
		dh_host_write(&fx->h, g, n);
		len = sync_frame(fx, 0xE100 + (uint32_t)i, f);
		dh_host_write(&fx->h, f, len);
	}
	settle_compare(fx);
	/* CONTROL len 17: OVERFLOW; the mailbox still works */
	len = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_CONTROL, 0, ++fx->h.seq), FTPU_LINK_W2(17, 0),
			    words, 17, f);
	dh_host_write(&fx->h, f, len);
	control(fx, FTPU_LINK_OP_STATUS);
	control(fx, FTPU_LINK_OP_READ_FAULTS);
	settle_compare(fx);
	const struct dh_frames *es = dh_dev_frames(dut(fx), DH_CLASS_ERROR);
	assert_true(es->n > 20);
	assert_int_equal(es->f[es->n - 1].payload[0], FTPU_LINK_ERR_OVERFLOW);
	assert_int_equal(dh_dev_frames(dut(fx), DH_CLASS_RESPONSE)->n, 2);
	struct gemm_case gc = { .M = 6, .K = 7, .N = 9, .write_acc = true, .frame = 13 };
	run_gemm(fx, &gc);
}

/* Random damage to a stream of good frames (bit flips, dropped and added
 * bytes), many rounds: the model and the RTL agree on every frame. */
static void test_device_link_fuzz(void **state)
{
	struct fixture *fx = *state;
	const size_t N = N_of(fx);
	int rounds = ftpu_test_full() ? 400 : 40;
	uint8_t *s = malloc(65536);
	assert_non_null(s);
	/*
	 * Damage can join the head of one program to the tail of another, so
	 * the device may read words at other offsets than they were written
	 * for. Every word is chosen so that this stays harmless and equal on
	 * both devices: data words and SYNC tags decode as unknown opcodes and
	 * as addresses beyond every memory, and the few small values that can
	 * become an address (0, 6, 32..97) point into ACC rows written here
	 * (the RTL's memories are undefined after an earlier test's RESET, the
	 * model's zero).
	 */
	struct dh_prog init = { 0 };
	uint32_t *z = calloc(128 * N, 4);
	assert_non_null(z);
	dh_prog_read_f32(&init, FTPU_MEM_ACC, 0, z, 128, N);
	send(fx, &init, 4096);
	settle_compare(fx);
	dh_host_clear(&fx->h);
	set_pace(fx, 8, 1, 0, 0);
	for (int r = 0; r < rounds; r++) {
		size_t n = 0;
		/* a few small programs: HOST_READ ACC then HOST_WRITE, SYNC */
		for (int k = 0; k < 4; k++) {
			struct dh_prog p = { 0 };
			uint32_t v[4 * 16];
			/* data words that decode as unknown opcodes, should a lost
			 * frame ever make the device read them as instructions */
			for (size_t i = 0; i < 4 * N; i++)
				v[i] = rng_u32(&fx->rng) | 0x80;
			uint32_t a = 32 + rng_below(&fx->rng, 64);
			dh_prog_read_f32(&p, FTPU_MEM_ACC, a, v, 2, N);
			dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 2, a, 0);
			dh_prog_instr(&p, FTPU_OP_SYNC, 0, 0, 0xF0000080u | (uint32_t)(r * 4 + k) << 8, 0);
			size_t cut = 1 + rng_below(&fx->rng, (uint32_t)p.w.n);
			n += dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM, FTPU_PROGRAM_START,
							++fx->h.seq),
					   FTPU_LINK_W2(cut, 0), p.w.w, cut, s + n);
			n += dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM, FTPU_PROGRAM_END,
							++fx->h.seq),
					   FTPU_LINK_W2(p.w.n - cut, 0), p.w.w + cut, p.w.n - cut,
					   s + n);
			dh_prog_free(&p);
		}
		/* damage */
		int hits = 1 + (int)rng_below(&fx->rng, 4);
		for (int h = 0; h < hits; h++) {
			size_t at = rng_below(&fx->rng, (uint32_t)n);
			switch (rng_below(&fx->rng, 3)) {
			case 0:
				s[at] ^= (uint8_t)(1u << rng_below(&fx->rng, 8));
				break;
			case 1: { /* drop up to 8 bytes */
				size_t k = 1 + rng_below(&fx->rng, 8);
				if (at + k > n)
					k = n - at;
				memmove(s + at, s + at + k, n - at - k);
				n -= k;
				break;
			}
			default: { /* insert up to 8 bytes */
				size_t k = 1 + rng_below(&fx->rng, 8);
				memmove(s + at + k, s + at, n - at);
				garbage(fx, s + at, k);
				n += k;
				break;
			}
			}
		}
		/* then idle garbage, so a frame whose length was trusted cannot
		 * swallow what follows, and a clean program: its START ends a
		 * program the damage left open (the device waits for the rest of
		 * a HOST_READ's data until then: not idle) */
		garbage(fx, s + n, 64);
		n += 64;
		n += sync_frame(fx, 0x7E57, s + n);
		dh_host_write(&fx->h, s, n);
		settle_compare(fx);
		const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
		assert_true(fs->n >= 1);
		assert_int_equal(fs->f[fs->n - 1].payload[0], FTPU_LINK_EVENT_SYNC);
		assert_int_equal(fs->f[fs->n - 1].payload[1], 0x7E57);
		dh_host_clear(&fx->h);
	}
	free(z);
	dh_prog_free(&init);
	free(s);
}

#ifndef DH_NO_SIM
/* Sends raw bytes to one device only. */
static void write_to(struct dh_dev *d, const uint8_t *b, size_t n)
{
	dh_dev_write(d, b, n);
}
#endif

/*
 * PROGRAM frames beyond the credit (RTL only; the C model consumes every
 * frame at once, so its credit never runs short): with the reader stalled,
 * a program whose output cannot leave fills the receive buffer; a frame
 * longer than the credit gets OVERFLOW and is dropped whole, the rest of
 * the program runs when the reader resumes. The C model gets the same
 * frames without the refused one; the RTL's ERROR frames must be exactly
 * that OVERFLOW.
 */
static void test_device_program_overflow(void **state)
{
	struct fixture *fx = *state;
	if (!have_rtl(fx))
		skip();
#ifndef DH_NO_SIM
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	struct dh_dev *ref = &fx->h.dev[0], *d = &fx->h.dev[1];
	struct dh_prog p = { 0 };
	uint8_t *buf = malloc(FTPU_LINK_MAX_FRAME_BYTES);
	size_t len;
	assert_non_null(buf);
	set_pace(fx, 1, 1, 1, 1); /* out_ready never high */
	uint32_t v[64 * 16];
	for (size_t i = 0; i < 64 * c->n; i++)
		v[i] = rng_f32(&fx->rng);
	dh_prog_read_f32(&p, FTPU_MEM_ACC, 0, v, 64, c->n);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 64, 0, 0);
	for (int i = 0; i < 200; i++)
		sync_instr(fx, &p);
	assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START, p.w.w,
				       p.w.n));
	/* SYNC frames while they fit; the device stops taking words */
	uint32_t credit = 0, stable = 0;
	for (int k = 0; k < 40 && stable < 3; k++) {
		ftpu_sim_device_run(d->sim, 3000);
		dh_dev_poll(d);
		if (ftpu_sim_device_in_queued(d->sim)) { /* a frame still arriving */
			stable = 0;
			continue;
		}
		uint32_t now = ftpu_sim_device_credit(d->sim);
		stable = now == credit ? stable + 1 : 0;
		credit = now;
		if (credit >= 4095 + 2) {
			dh_prog_reset(&p);
			for (int i = 0; i < 1365; i++)
				sync_instr(fx, &p);
			assert_true(dh_host_send_frame(&fx->h, FTPU_LINK_PROGRAM, 0, p.w.w, p.w.n));
			stable = 0;
		}
	}
	fprintf(stderr, "%s: credit %u with the reader stalled\n", fx->name, credit);
	assert_true(credit < c->rx_words);
	assert_true(credit <= FTPU_LINK_MAX_PAYLOAD + 1);
	/* the refused frame: len + 2 > credit; whole SYNC instructions */
	size_t L = credit >= 1 ? credit - 1 : 0;
	L += (3 - L % 3) % 3;
	assert_true(L + 2 > credit && L <= FTPU_LINK_MAX_PAYLOAD);
	dh_prog_reset(&p);
	for (size_t i = 0; i < L / 3; i++)
		dh_prog_instr(&p, FTPU_OP_SYNC, 0, 0, 0xDEAD0000u + (uint32_t)i, 0);
	uint16_t refused = ++fx->h.seq;
	len = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM, 0, refused), FTPU_LINK_W2(L, 0),
			    p.w.w, L, buf);
	write_to(d, buf, len);
	/* the program's END, then the reader resumes */
	dh_prog_reset(&p);
	sync_instr(fx, &p);
	len = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_PROGRAM, FTPU_PROGRAM_END, ++fx->h.seq),
			    FTPU_LINK_W2(3, 0), p.w.w, 3, buf);
	write_to(ref, buf, len);
	write_to(d, buf, len);
	ftpu_sim_device_run(d->sim, 20000);
	set_pace(fx, 1, 1, 0, 0);
	assert_true(dh_host_wait(&fx->h));
	size_t bad = dh_compare_class(ref, d, DH_CLASS_PROGRAM) +
		     dh_compare_class(ref, d, DH_CLASS_RESPONSE);
	assert_int_equal(bad, 0);
	const struct dh_frames *es = dh_dev_frames(d, DH_CLASS_ERROR);
	assert_int_equal(dh_dev_frames(ref, DH_CLASS_ERROR)->n, 0);
	assert_int_equal(es->n, 1);
	assert_int_equal(es->f[0].payload[0], FTPU_LINK_ERR_OVERFLOW);
	assert_int_equal(es->f[0].payload[1], refused);
	assert_int_equal(es->f[0].payload[2], FTPU_LINK_PROGRAM);
	dh_host_clear(&fx->h);
	control(fx, FTPU_LINK_OP_STATUS);
	settle_compare(fx);
	free(buf);
	dh_prog_free(&p);
#endif
}

/*
 * CONTROL frames while the mailbox still holds one (RTL only: the C model
 * answers each at once). With the reader stalled, RESPONSEs cannot leave,
 * so the control block, then the mailbox fill up: from some frame on,
 * every CONTROL frame gets OVERFLOW instead of a RESPONSE. The answered
 * ones are a prefix, their RESPONSEs equal the model's for the same frames,
 * and the first refused frame is reported.
 */
static void test_device_control_overflow(void **state)
{
	struct fixture *fx = *state;
	if (!have_rtl(fx))
		skip();
#ifndef DH_NO_SIM
	struct dh_dev *ref = &fx->h.dev[0], *d = &fx->h.dev[1];
	enum { FRAMES = 8 };
	uint8_t buf[FRAMES][64];
	size_t len[FRAMES];
	uint16_t seq[FRAMES];
	set_pace(fx, 1, 1, 1, 1);
	for (int i = 0; i < FRAMES; i++) {
		uint32_t op = i == 0 ? FTPU_LINK_OP_INFO : i % 2 ? FTPU_LINK_OP_STATUS :
								  FTPU_LINK_OP_READ_FAULTS;
		seq[i] = ++fx->h.seq;
		len[i] = dh_encode_raw(FTPU_LINK_W1(FTPU_LINK_CONTROL, 0, seq[i]),
				       FTPU_LINK_W2(1, 0), &op, 1, buf[i]);
		write_to(d, buf[i], len[i]);
		ftpu_sim_device_run(d->sim, 3000);
	}
	set_pace(fx, 1, 1, 0, 0);
	assert_true(dh_dev_wait_idle(d));
	const struct dh_frames *rs = dh_dev_frames(d, DH_CLASS_RESPONSE);
	const struct dh_frames *es = dh_dev_frames(d, DH_CLASS_ERROR);
	fprintf(stderr, "%s: %zu CONTROL frames answered, %zu refused\n", fx->name, rs->n,
		es->n);
	/* ERROR frames are advisory (docs/protocol.md §7.6): with the
	 * transmitter stalled, later ones may be dropped, never the first */
	assert_true(es->n > 0 && rs->n > 0 && rs->n + es->n <= FRAMES);
	for (size_t i = 0, k = rs->n; i < es->n; i++, k++) {
		fprintf(stderr, "  refused seq %u\n", es->f[i].payload[1]);
		while (i > 0 && k < FRAMES && seq[k] != es->f[i].payload[1])
			k++;
		assert_true(k < FRAMES);
		assert_int_equal(es->f[i].payload[0], FTPU_LINK_ERR_OVERFLOW);
		assert_int_equal(es->f[i].payload[1], seq[k]);
		assert_int_equal(es->f[i].payload[2], FTPU_LINK_CONTROL);
	}
	for (size_t i = 0; i < rs->n; i++)
		write_to(ref, buf[i], len[i]);
	assert_int_equal(dh_compare_class(ref, d, DH_CLASS_RESPONSE), 0);
	dh_host_clear(&fx->h);
	d->control_due = 0;
	d->reset_due = false;
	control(fx, FTPU_LINK_OP_STATUS);
	settle_compare(fx);
#endif
}

/* A slow reader with long stalls: every byte still arrives, in order. */
static void test_device_stalled_reader(void **state)
{
	struct fixture *fx = *state;
	const size_t n = N_of(fx);
	set_pace(fx, 1, 3, 2500, 6000);
	struct gemm_case gc = {
		.M = 70, .K = 2 * n + 3, .N = 3 * n, .accumulate = true, .activate = true,
		.bias = true, .write_acc = true, .write_act = true, .special = 20, .frame = 512,
	};
	run_gemm(fx, &gc);
	set_pace(fx, 2, 1, 9000, 10000);
	control(fx, FTPU_LINK_OP_INFO);
	settle_compare(fx);
	gc.M = 20, gc.accumulate = false, gc.relu = true;
	run_gemm(fx, &gc);
}

/*
 * Counters: after CLEAR_COUNTERS, a workload (GEMMs, a fault, garbage),
 * then READ_COUNTERS equals the model's but for the time counters; macs is
 * the sum of n * N * N over the MATMULs, bytes in and out are the bytes the
 * link moved, cycles is cycles since the clear (within the CONTROL frames'
 * handling), and busy + idle == cycles (rtl/ftpu_top.sv's definition).
 */
static void test_device_counters(void **state)
{
	struct fixture *fx = *state;
	const size_t n = N_of(fx);
	struct dh_dev *d = dut(fx);
	control(fx, FTPU_LINK_OP_CLEAR_COUNTERS);
	assert_true(dh_host_wait(&fx->h));
	uint64_t in0 = d->bytes_in, out0 = d->bytes_out - FTPU_LINK_FRAME_BYTES(2);
#ifndef DH_NO_SIM
	uint64_t cyc0 = have_rtl(fx) ? ftpu_sim_cycles(rtl(fx)) : 0;
#endif
	uint64_t macs = 0;
	struct gemm_case gc = { .M = 33, .K = 2 * n + 1, .N = n + 2, .write_acc = true,
				.frame = 1000 };
	macs += run_gemm(fx, &gc);
	gc.M = 5, gc.activate = true, gc.relu = true, gc.write_act = true;
	macs += run_gemm(fx, &gc);
	struct dh_prog p = { 0 };
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_WM, 1, 0, 0);
	send(fx, &p, 4096);
	uint8_t g[100];
	garbage(fx, g, sizeof(g));
	dh_host_write(&fx->h, g, sizeof(g));
	assert_true(dh_host_wait(&fx->h));
	control(fx, FTPU_LINK_OP_READ_COUNTERS);
	settle_compare(fx);
	const struct dh_frame *rc = last_response(fx);
	const uint32_t *w = rc->payload + 2;
	assert_int_equal(rc->len, 2 + FTPU_LINK_CNT_COUNT);
	uint64_t got_macs = (uint64_t)w[FTPU_LINK_CNT_MACS_HI] << 32 | w[FTPU_LINK_CNT_MACS_LO];
	uint64_t bin = (uint64_t)w[FTPU_LINK_CNT_BYTES_IN_HI] << 32 | w[FTPU_LINK_CNT_BYTES_IN_LO];
	uint64_t bout = (uint64_t)w[FTPU_LINK_CNT_BYTES_OUT_HI] << 32 | w[FTPU_LINK_CNT_BYTES_OUT_LO];
	assert_int_equal(got_macs, macs);
	assert_int_equal(bin, d->bytes_in - in0);
	assert_int_equal(bout, d->bytes_out - FTPU_LINK_FRAME_BYTES(rc->len) - out0);
#ifndef DH_NO_SIM
	if (have_rtl(fx)) {
		uint64_t cyc = ftpu_sim_cycles(rtl(fx)) - cyc0;
		uint32_t cycles = w[FTPU_LINK_CNT_CYCLES], busy = w[FTPU_LINK_CNT_BUSY];
		uint32_t idle = w[FTPU_LINK_CNT_IDLE];
		fprintf(stderr, "%s: cycles %u (sim %llu since the clear was answered), busy %u, "
			"idle %u, stalls weight %u input %u output %u\n", fx->name, cycles,
			(unsigned long long)cyc, busy, idle, w[FTPU_LINK_CNT_WEIGHT_STALL],
			w[FTPU_LINK_CNT_INPUT_STALL], w[FTPU_LINK_CNT_OUTPUT_STALL]);
		assert_true(cycles + 2000 > cyc && cyc + 2000 > cycles);
		assert_true(busy > 0 && idle > 0);
		/* rtl/ftpu_top.sv: busy = an instruction executes anywhere,
		 * idle = all other cycles */
		assert_int_equal((uint64_t)busy + idle, cycles);
	}
#endif
	dh_prog_free(&p);
}

/*
 * HOST_READ's decoder rate: on a 4-byte link the decoder takes a data word
 * every cycle the link has one, a completed vector written in the cycle
 * the next word comes in (docs/core.md, Decoder). So the cycles it is busy
 * without waiting for the link (busy - input_stall) are the program's
 * words, for every vector width: bf16 (N/2 words a vector), fp32 (N) and
 * bytes (N/4); it took a cycle more a vector. A byte link waits for the
 * link anyway: not measured there.
 */
static void test_device_host_read_rate(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	if (!have_rtl(fx) || c->link_bytes != 4)
		skip();
	const size_t N = c->n;
	const struct { unsigned mem; uint32_t wpv; } kinds[] = {
		{ FTPU_MEM_UB, (uint32_t)N / 2 },
		{ FTPU_MEM_ACC, (uint32_t)N },
		{ FTPU_MEM_UB | FTPU_HOST_READ_U8, (uint32_t)(N + 3) / 4 },
	};
	struct dh_prog p = { 0 };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if ((kinds[k].mem & FTPU_HOST_READ_U8) && !c->vector_unit)
			continue;
		const uint32_t cap = (kinds[k].mem & 3) == FTPU_MEM_ACC ? c->acc_vectors
									: c->ub_vectors;
		const uint32_t n = cap < 2048 ? cap : 2048;
		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_READ, kinds[k].mem, n, 0, 0);
		for (size_t i = 0; i < (size_t)n * kinds[k].wpv; i++)
			dh_prog_word(&p, (uint32_t)rng_below(&fx->rng, 1u << 30) & 0x3F7F3F7Fu);
		sync_instr(fx, &p);
		control(fx, FTPU_LINK_OP_CLEAR_COUNTERS);
		assert_true(dh_host_wait(&fx->h));
		send(fx, &p, 1024);
		settle_compare(fx);
		control(fx, FTPU_LINK_OP_READ_COUNTERS);
		settle_compare(fx);
		const uint32_t *w = last_response(fx)->payload + 2;
		const uint32_t busy = w[FTPU_LINK_CNT_BUSY], wait = w[FTPU_LINK_CNT_INPUT_STALL];
		const size_t words = (size_t)n * kinds[k].wpv;
		fprintf(stderr, "%s: HOST_READ of %u vectors of %u words: busy %u, waiting for the "
			"link %u, decoding %u cycles\n", fx->name, n, kinds[k].wpv, busy, wait,
			busy - wait);
		/* a cycle per word, two per frame for its W1 and W2 (1024-word
		 * frames), a few for the instructions and the SYNC */
		const size_t most = words + 2 * (words / 1024 + 2) + 64;
		assert_true(busy - wait >= words && busy - wait <= most);
	}
	dh_prog_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup(t, prepare)
		T(test_device_control_ops),
		T(test_device_registers),
		T(test_device_host_read_write),
		T(test_device_host_write_words),
		T(test_device_host_read_u8),
		T(test_device_host_read_rate),
		T(test_device_host_read_also_wm),
		T(test_device_weights_and_bias),
		T(test_device_matmul),
		T(test_device_activate),
		T(test_device_dependent_chain),
		T(test_device_sync),
		T(test_device_gemm_shapes),
		T(test_device_gemm_random),
		T(test_device_gemm_chunked),
		T(test_device_program_split),
		T(test_device_faults),
		T(test_device_fault_no_tile),
		T(test_device_truncated_and_framing),
		T(test_device_truncated_host_read),
		T(test_device_link_errors),
		T(test_device_link_fuzz),
		T(test_device_program_overflow),
		T(test_device_control_overflow),
		T(test_device_stalled_reader),
		T(test_device_counters),
#undef T
	};
	int failed = cmocka_run_group_tests_name("device_16 (16x16, RowDelay 1)", tests,
						 setup_16, teardown);
	failed += cmocka_run_group_tests_name("device_4p (4x4, RowDelay 4, small memories)",
					      tests, setup_4p, teardown);
	failed += cmocka_run_group_tests_name("device_2s (the small profile: 2x2, in order)",
					      tests, setup_2s, teardown);
	return failed;
}
