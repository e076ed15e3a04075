/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_phy_axis.c - the AXI4-Stream PHY for the XDMA IP (rtl/link/
 * ftpu_phy_axis.sv in sim/tops/ftpu_phy_axis_tb.sv) against a C model of
 * the XDMA's streaming channels: H2C beats with random tkeep patterns
 * (sparse, empty, partial), random tlast and random TVALID gaps, held until
 * taken; a C2H sink with random TREADY that checks the AXI4-Stream rules
 * (a beat holds until taken) and XDMA's (tkeep all ones except on a tlast
 * beat, where it is contiguous from lane 0 and not empty). Models: 64 bits
 * on the core clock (Async 0), 64 bits across unrelated clocks, 128 bits
 * across unrelated clocks through the smallest FIFOs. Bytes are compared
 * exactly both ways; every run has a bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "phy_test.h"

static const struct phy_model models[] = {
	{"phy_axis", ftpu_sim_open_phy_axis},
	{"phy_axis_async", ftpu_sim_open_phy_axis_async},
	{"phy_axis_w128", ftpu_sim_open_phy_axis_w128},
};
#define N_MODELS (sizeof(models) / sizeof(models[0]))

/* Clock pairs (core, aclk) for the async models: a slow core under a
 * 250 MHz aclk, a fast core under a 125 MHz aclk. */
static const uint32_t clock_pairs[][2] = {{12871, 4000}, {3511, 7993}};
#define N_PAIRS 2

static uint8_t lane_get(const uint32_t *w, unsigned l)
{
	return (uint8_t)(w[l / 4] >> (8 * (l % 4)));
}

/* ---- the XDMA side ---------------------------------------------------------
 */

struct xdma {
	struct rng *g;
	unsigned lanes;
	/* H2C */
	unsigned beats_left;   /* beats still to send */
	unsigned valid_per_16; /* chance of offering a beat in a cycle */
	unsigned keep_mode;    /* 0 random patterns, 1 full beats */
	struct u8v h2c_bytes;  /* the kept bytes of beats taken */
	/* C2H */
	unsigned ready_per_16;
	unsigned stall_per_mille; /* chance per cycle of a long TREADY stall */
	unsigned stall_left;
	bool held; /* a beat was offered and not taken */
	uint32_t held_data[4];
	uint16_t held_keep;
	bool held_last;
	struct u8v c2h_bytes;
	unsigned c2h_beats, c2h_lasts, violations;
	bool last_was_tlast;
	uint64_t last_beat_edge, edges;
};

static void xdma_init(struct xdma *x, struct rng *g, unsigned lanes)
{
	*x = (struct xdma){0};
	x->g = g;
	x->lanes = lanes;
	x->valid_per_16 = x->ready_per_16 = 16;
}

static void xdma_free(struct xdma *x)
{
	u8_free(&x->h2c_bytes);
	u8_free(&x->c2h_bytes);
}

static void violation(struct xdma *x, const char *what)
{
	if (x->violations++ < 5)
		print_error("aclk edge %llu: %s\n",
			    (unsigned long long)x->edges, what);
}

static uint16_t rand_keep(struct xdma *x)
{
	uint16_t all = (uint16_t)((1u << x->lanes) - 1);
	if (x->keep_mode == 1)
		return all;
	switch (rng_below(x->g, 8)) {
	case 0:
		return 0; /* an empty beat */
	case 1:		  /* contiguous from lane 0, as XDMA's last beat */
		return (uint16_t)((1u << (1 + rng_below(x->g, x->lanes))) - 1);
	case 2:
	case 3:
		return all;
	default:
		return (uint16_t)(rng_u32(x->g) & all);
	}
}

/* The XDMA's pins for the coming aclk cycle. */
static void xdma_drive(struct xdma *x, struct ftpu_sim_axis_io *io)
{
	if (!io->s_tvalid && x->beats_left &&
	    rng_below(x->g, 16) < x->valid_per_16) {
		io->s_tvalid = true;
		for (unsigned i = 0; i < 4; i++)
			io->s_tdata[i] = rng_u32(x->g);
		io->s_tkeep = rand_keep(x);
		io->s_tlast = rng_below(x->g, 4) == 0;
	}
	io->m_tready = phy_sink_ready(x->g, &x->stall_left, x->stall_per_mille,
				      x->ready_per_16, 16);
}

/* The aclk edge, from the sampled outputs. */
static void xdma_edge(struct xdma *x, struct ftpu_sim_axis_io *io)
{
	if (io->s_tvalid && io->s_tready) {
		for (unsigned l = 0; l < x->lanes; l++)
			if (io->s_tkeep >> l & 1)
				u8_push(&x->h2c_bytes,
					lane_get(io->s_tdata, l));
		io->s_tvalid = false;
		x->beats_left--;
	}
	if (x->held) {
		if (!io->m_tvalid)
			violation(x,
				  "tvalid dropped before the beat was taken");
		else if (memcmp(x->held_data, io->m_tdata,
				sizeof(x->held_data)) ||
			 x->held_keep != io->m_tkeep ||
			 x->held_last != io->m_tlast)
			violation(x, "beat changed before it was taken");
	}
	x->held = io->m_tvalid && !io->m_tready;
	if (x->held) {
		memcpy(x->held_data, io->m_tdata, sizeof(x->held_data));
		x->held_keep = io->m_tkeep;
		x->held_last = io->m_tlast;
	}
	if (io->m_tvalid && io->m_tready) {
		uint16_t all = (uint16_t)((1u << x->lanes) - 1);
		uint16_t k = io->m_tkeep;
		if (!io->m_tlast && k != all)
			violation(x, "partial beat without tlast");
		if (k == 0 || (k & (k + 1)) != 0 || (k & ~all))
			violation(x, "tkeep not contiguous from lane 0");
		for (unsigned l = 0; l < x->lanes; l++)
			if (k >> l & 1)
				u8_push(&x->c2h_bytes,
					lane_get(io->m_tdata, l));
		x->c2h_beats++;
		x->c2h_lasts += io->m_tlast;
		x->last_was_tlast = io->m_tlast;
		x->last_beat_edge = x->edges;
	}
	x->edges++;
}

/* ---- one run
 * ------------------------------------------------------------------ */

struct run {
	struct ftpu_sim *sim;
	struct ftpu_sim_phy_config cfg;
	struct ftpu_sim_axis_io io;
	struct xdma x;
	struct rng g;
	struct phy_core core; /* chances out of 16 */
	uint64_t core_edges, last_in_edge;
	uint64_t done_core; /* core_edges when run_to_end saw the end */
};

/* pair: index into clock_pairs for async models (ignored otherwise). */
static void run_open(struct run *r, unsigned m, unsigned pair, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->g.s = seed;
	r->sim = phy_open(&models[m], FTPU_SIM_PHY_AXIS, &r->cfg);
	if (r->cfg.async)
		phy_set_clocks(r->sim, &r->g, clock_pairs[pair][0],
			       clock_pairs[pair][1]);
	else
		assert_true(ftpu_sim_phy_set_clocks(r->sim, 10000, 10000, 0));
	ftpu_sim_reset(r->sim, 4);
	xdma_init(&r->x, &r->g, r->cfg.data_w / 8);
	phy_core_init(&r->core, 16);
}

static void run_close(struct run *r)
{
	xdma_free(&r->x);
	phy_core_free(&r->core);
	ftpu_sim_close(r->sim);
}

static void run_edge(struct run *r)
{
	unsigned m = ftpu_sim_phy_next(r->sim);
	if (m & FTPU_SIM_PHY_PIN)
		xdma_drive(&r->x, &r->io);
	if (m & FTPU_SIM_PHY_CORE)
		phy_core_drive(&r->core, &r->g, &r->io.out_ready,
			       &r->io.in_valid, &r->io.in_byte);
	assert_int_equal(ftpu_sim_axis_cycle(r->sim, &r->io), m);
	if (m & FTPU_SIM_PHY_PIN)
		xdma_edge(&r->x, &r->io);
	if (m & FTPU_SIM_PHY_CORE) {
		if (phy_core_edge(&r->core, r->io.out_valid, r->io.out_ready,
				  r->io.out_byte, &r->io.in_valid,
				  r->io.in_ready))
			r->last_in_edge = r->core_edges;
		r->core_edges++;
	}
}

/* Until all H2C beats are in and every byte has crossed both ways. */
static uint64_t run_to_end(struct run *r, uint64_t max_edges)
{
	uint64_t e = 0;
	for (; e < max_edges; e++) {
		if (!r->x.beats_left && !r->io.s_tvalid &&
		    r->core.sunk.n == r->x.h2c_bytes.n &&
		    r->x.c2h_bytes.n == r->core.src.n)
			break;
		run_edge(r);
	}
	r->done_core = r->core_edges;
	for (unsigned i = 0; i < 100; i++)
		run_edge(r);
	assert_true(e < max_edges);
	return e;
}

/* The runs each test makes: every model, and both clock pairs of the
 * async ones (models[0] is the one on the core clock). */
#define FOR_EACH_RUN(m, p)                                                     \
	for (unsigned m = 0; m < N_MODELS; m++)                                \
		for (unsigned p = 0; p < N_PAIRS; p++)                         \
			if (p == 0 || m != 0)

/* ---- tests
 * ---------------------------------------------------------------------- */

/* Both directions with random tkeep, TVALID gaps, TREADY back-pressure
 * with long stalls (the FIFOs fill, and beats are flushed into a full
 * one), a slow sink with long stalls and a gappy source. */
static void test_phy_axis_random(void **state)
{
	(void)state;
	FOR_EACH_RUN(m, p)
	{
		struct run r;
		run_open(&r, m, p, ftpu_test_seed() ^ (m * 16 + p));
		r.x.beats_left = 10000;
		r.x.valid_per_16 = 9;
		r.x.ready_per_16 = 7;
		r.x.stall_per_mille = 5;
		r.core.ready = 10;
		r.core.valid = 9;
		r.core.stall_per_mille = 5;
		fill_random(&r.core.src, &r.g, 30000);
		run_to_end(&r, 2000000);
		print_message("%s (pair %u): %zu bytes in, %zu out in %u beats "
			      "(%u with tlast)\n",
			      models[m].name, p, r.core.sunk.n, r.x.c2h_bytes.n,
			      r.x.c2h_beats, r.x.c2h_lasts);
		assert_int_equal(r.x.violations, 0);
		assert_bytes_equal(&r.core.sunk, &r.x.h2c_bytes, "H2C");
		assert_bytes_equal(&r.x.c2h_bytes, &r.core.src, "C2H");
		assert_true(r.x.last_was_tlast);
		run_close(&r);
	}
}

/* A device that echoes (loop): H2C bytes come back on C2H. */
static void test_phy_axis_echo(void **state)
{
	(void)state;
	FOR_EACH_RUN(m, p)
	{
		struct run r;
		run_open(&r, m, p, ftpu_test_seed() ^ (0x100 + m * 16 + p));
		r.io.loop = true;
		r.x.beats_left = 8000;
		r.x.valid_per_16 = 12;
		r.x.ready_per_16 = 9;
		uint64_t e = 0;
		for (; e < 2000000 && (r.x.beats_left || r.io.s_tvalid ||
				       r.x.c2h_bytes.n < r.x.h2c_bytes.n);
		     e++)
			run_edge(&r);
		for (unsigned i = 0; i < 100; i++)
			run_edge(&r);
		assert_int_equal(r.x.violations, 0);
		assert_bytes_equal(&r.x.c2h_bytes, &r.x.h2c_bytes, "echo");
		assert_int_equal(r.core.sunk.n, 0);
		run_close(&r);
	}
}

/* Bursts from the device separated by pauses: each burst ends with exactly
 * one tlast beat carrying its last bytes, within FlushIdle cycles plus the
 * crossing, and no tlast comes while the device keeps offering bytes even
 * when TREADY holds them back. */
static void test_phy_axis_flush(void **state)
{
	(void)state;
	FOR_EACH_RUN(m, p)
	{
		struct run r;
		run_open(&r, m, p, ftpu_test_seed() ^ (0x200 + m * 16 + p));
		r.x.ready_per_16 = 11;
		r.x.stall_per_mille = 3;
		unsigned bursts = 60;
		for (unsigned b = 0; b < bursts; b++) {
			fill_random(&r.core.src, &r.g,
				    1 + rng_below(&r.g, b < 20 ? 20 : 400));
			uint64_t e = 0;
			for (; e < 100000 && r.x.c2h_bytes.n < r.core.src.n;
			     e++)
				run_edge(&r);
			assert_int_equal(r.x.c2h_bytes.n, r.core.src.n);
			assert_true(r.x.last_was_tlast);
			assert_int_equal(r.x.c2h_lasts, b + 1);
			/* the wait after the last byte: FlushIdle core
			 * cycles, then the crossing and TREADY's whims */
			uint64_t wait = r.core_edges - r.last_in_edge;
			assert_true(wait >= r.cfg.flush_idle);
			/* a pause, longer than FlushIdle */
			for (unsigned i = 0; i < 3 * r.cfg.flush_idle + 50; i++)
				run_edge(&r);
			assert_int_equal(r.x.c2h_lasts, b + 1);
		}
		assert_int_equal(r.x.violations, 0);
		assert_bytes_equal(&r.x.c2h_bytes, &r.core.src, "C2H");
		run_close(&r);
	}
}

/* Full beats and a sink and source that never wait: one byte per core
 * cycle both ways (on the core clock; across clocks the slower side
 * decides). */
static void test_phy_axis_throughput(void **state)
{
	(void)state;
	FOR_EACH_RUN(m, p)
	{
		struct run r;
		run_open(&r, m, p, ftpu_test_seed() ^ (0x300 + m * 16 + p));
		r.x.keep_mode = 1;
		r.x.beats_left = 16000 / r.x.lanes;
		fill_random(&r.core.src, &r.g, 16000);
		uint64_t c0 = r.core_edges;
		run_to_end(&r, 400000);
		assert_int_equal(r.x.violations, 0);
		assert_bytes_equal(&r.core.sunk, &r.x.h2c_bytes, "H2C");
		assert_bytes_equal(&r.x.c2h_bytes, &r.core.src, "C2H");
		/* Both pairs of clocks leave the core the slower side (the
		 * AXI side moves 8 or 16 bytes a beat), so the ideal is one
		 * byte per core cycle each way. */
		double rate = 16000.0 / (double)(r.done_core - c0);
		print_message(
			"%s (pair %u): %.3f bytes per core cycle each way\n",
			models[m].name, p, rate);
		assert_true(rate >= 0.97);
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phy_axis_random),
		cmocka_unit_test(test_phy_axis_echo),
		cmocka_unit_test(test_phy_axis_flush),
		cmocka_unit_test(test_phy_axis_throughput),
	};
	print_message("seed %#" PRIx64 " (FTPU_SEED)\n", ftpu_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
