/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_phy_ft245.c - the FT245 synchronous FIFO PHY (rtl/link/
 * ftpu_phy_ft245.sv in sim/tops/ftpu_phy_ft245_tb.sv) against a C model of
 * the FT2232H's FIFO side, on its own 60 MHz CLKOUT, with the core clock
 * at a ratio to it that is not an integer (37.3 MHz, 100.3 MHz).
 *
 * The chip model, per CLKOUT edge (FT2232H datasheet, 245 synchronous
 * FIFO): a byte moves to the FPGA at an edge where RD# and RXF# are both
 * low, from the FPGA at an edge where WR# and TXE# are both low. RXF# and
 * TXE# drop at random (USB packets come and go) as well as when its
 * buffers run empty or full. It drives D only while OE# is low, with junk
 * while RXF# is high; an undriven bus reads random junk. It checks the
 * rules the PHY must keep: OE# low one cycle before RD# and during it, RD#
 * low only after an edge with RXF# low, WR# low only after an edge with
 * TXE# low and with the PHY driving D, the PHY never driving D while OE#
 * is low nor in the cycle after OE# was low. Bytes both ways are compared
 * exactly: none lost, duplicated or reordered. Every run has a bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "phy_test.h"

static const struct phy_model models[] = {
	{"phy_ft245", ftpu_sim_open_phy_ft245},
	{"phy_ft245_min", ftpu_sim_open_phy_ft245_min},
};
#define N_MODELS (sizeof(models) / sizeof(models[0]))

#define FT_PERIOD 16667u /* 60 MHz */
static const uint32_t core_periods[] = {26813, 9973};
#define N_CORE (sizeof(core_periods) / sizeof(core_periods[0]))

/* ---- the chip --------------------------------------------------------------
 */

struct chip {
	struct rng *g;
	/* host -> FPGA: bytes the host has written, [0, avail) arrived in
	 * the chip so far, head the next one to present */
	struct u8v host_out;
	size_t avail, head;
	/* FPGA -> host */
	struct u8v got;
	unsigned tx_room, tx_cap; /* free bytes in the chip's TX buffer */
	/* availability: RXF#/TXE# held high for the rest of a drop */
	unsigned rx_drop, tx_drop;
	unsigned drop_per_mille; /* chance per cycle that a drop starts */
	/* outputs for the coming cycle */
	bool rxf_n, txe_n;
	/* the previous cycle, for the rules */
	bool prev_oe_n, prev_rxf_n, prev_txe_n;
	/* counts */
	unsigned violations, siwu, rd_cycles, wr_cycles;
	uint64_t last_wr_edge, last_siwu_edge, first_move, last_move;
	uint64_t edges;
};

static void chip_init(struct chip *c, struct rng *g, unsigned drop_per_mille)
{
	*c = (struct chip){0};
	c->g = g;
	c->tx_cap = c->tx_room = 1024; /* FT2232H: 4 KiB; small here */
	c->drop_per_mille = drop_per_mille;
	c->rxf_n = c->txe_n = true;
	c->prev_oe_n = c->prev_rxf_n = c->prev_txe_n = true;
}

static void chip_free(struct chip *c)
{
	u8_free(&c->host_out);
	u8_free(&c->got);
}

static void violation(struct chip *c, const char *what)
{
	if (c->violations++ < 5)
		print_error("edge %llu: %s\n", (unsigned long long)c->edges,
			    what);
}

/* The chip's pins for the coming CLKOUT cycle. */
static void chip_drive(struct chip *c, struct ftpu_sim_ft245_io *io)
{
	io->rxf_n = c->rxf_n;
	io->txe_n = c->txe_n;
	io->chip_d =
		!c->rxf_n ? c->host_out.p[c->head] : (uint8_t)rng_u32(c->g);
	io->float_d = (uint8_t)rng_u32(c->g);
}

/* The CLKOUT edge: check the FPGA's pins as sampled, move bytes, choose
 * RXF# and TXE# for the next cycle. */
static void chip_edge(struct chip *c, const struct ftpu_sim_ft245_io *io)
{
	if (io->contention)
		violation(c, "OE# low while the FPGA drives D");
	if (io->data_oe && !c->prev_oe_n)
		violation(c, "FPGA drives D right after OE# was low");
	if (!io->rd_n) {
		c->rd_cycles++;
		if (io->oe_n || c->prev_oe_n)
			violation(c, "RD# low without OE# low a cycle before");
		if (c->prev_rxf_n)
			violation(c, "RD# low after an edge with RXF# high");
		if (!io->rxf_n) {
			c->head++;
			c->last_move = c->edges;
			if (!c->first_move)
				c->first_move = c->edges;
		}
	}
	if (!io->wr_n) {
		c->wr_cycles++;
		if (!io->data_oe || !io->oe_n)
			violation(c, "WR# low while the FPGA does not drive D");
		if (c->prev_txe_n)
			violation(c, "WR# low after an edge with TXE# high");
		if (!io->txe_n) {
			u8_push(&c->got, io->bus);
			c->tx_room--;
			c->last_wr_edge = c->last_move = c->edges;
			if (!c->first_move)
				c->first_move = c->edges;
		}
	}
	if (!io->siwu_n) {
		if (!io->wr_n)
			violation(c, "SIWU# strobed during a write");
		c->siwu++;
		c->last_siwu_edge = c->edges;
	}
	c->prev_oe_n = io->oe_n;
	c->prev_rxf_n = io->rxf_n;
	c->prev_txe_n = io->txe_n;

	/* the USB side: the host reads the TX buffer in packets */
	if (c->tx_room < c->tx_cap && rng_below(c->g, 64) == 0)
		c->tx_room = c->tx_cap;
	/* random drops of RXF# and TXE# */
	if (c->rx_drop)
		c->rx_drop--;
	else if (rng_below(c->g, 1000) < c->drop_per_mille)
		c->rx_drop = 1 + rng_below(c->g, rng_below(c->g, 2) ? 3 : 40);
	if (c->tx_drop)
		c->tx_drop--;
	else if (rng_below(c->g, 1000) < c->drop_per_mille)
		c->tx_drop = 1 + rng_below(c->g, rng_below(c->g, 2) ? 3 : 40);
	c->rxf_n = !(c->head < c->avail && !c->rx_drop);
	c->txe_n = !(c->tx_room > 0 && !c->tx_drop);
	c->edges++;
}

/* ---- one run
 * ------------------------------------------------------------------ */

struct run {
	struct ftpu_sim *sim;
	struct ftpu_sim_phy_config cfg;
	struct ftpu_sim_ft245_io io;
	struct chip chip;
	struct rng g;
	struct phy_core core; /* chances out of 8 */
	size_t arrive_chunk;  /* host bytes that arrive in the chip at once */
};

static void run_open(struct run *r, unsigned m, uint32_t core_ps,
		     unsigned drop_per_mille, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->g.s = seed;
	r->sim = phy_open(&models[m], FTPU_SIM_PHY_FT245, &r->cfg);
	phy_set_clocks(r->sim, &r->g, core_ps, FT_PERIOD);
	ftpu_sim_reset(r->sim, 4);
	chip_init(&r->chip, &r->g, drop_per_mille);
	r->io.rxf_n = r->io.txe_n = true;
	phy_core_init(&r->core, 8);
	r->arrive_chunk = 512;
}

static void run_close(struct run *r)
{
	chip_free(&r->chip);
	phy_core_free(&r->core);
	ftpu_sim_close(r->sim);
}

/* One edge of either clock. */
static void run_edge(struct run *r)
{
	unsigned m = ftpu_sim_phy_next(r->sim);
	if (m & FTPU_SIM_PHY_PIN) {
		/* host writes arrive in the chip a packet at a time */
		struct chip *c = &r->chip;
		if (c->avail < c->host_out.n && rng_below(&r->g, 16) == 0) {
			c->avail += r->arrive_chunk;
			if (c->avail > c->host_out.n)
				c->avail = c->host_out.n;
			c->rxf_n = !(c->head < c->avail && !c->rx_drop);
		}
		chip_drive(c, &r->io);
	}
	if (m & FTPU_SIM_PHY_CORE)
		phy_core_drive(&r->core, &r->g, &r->io.out_ready,
			       &r->io.in_valid, &r->io.in_byte);
	assert_int_equal(ftpu_sim_ft245_cycle(r->sim, &r->io), m);
	if (m & FTPU_SIM_PHY_PIN)
		chip_edge(&r->chip, &r->io);
	if (m & FTPU_SIM_PHY_CORE)
		phy_core_edge(&r->core, r->io.out_valid, r->io.out_ready,
			      r->io.out_byte, &r->io.in_valid, r->io.in_ready);
}

/* Runs until every byte has crossed both ways (and the PHY has let go of
 * the bus), or the bound; then checks everything. */
static void run_to_end(struct run *r, uint64_t max_edges, const char *what)
{
	struct chip *c = &r->chip;
	uint64_t e = 0;
	for (; e < max_edges; e++) {
		if (r->core.sunk.n == c->host_out.n &&
		    c->got.n == r->core.src.n && r->io.rd_n && r->io.wr_n)
			break;
		run_edge(r);
	}
	/* a while more: nothing else may move */
	for (unsigned i = 0; i < 200; i++)
		run_edge(r);
	print_message("%s: %zu bytes in, %zu out, %llu CLKOUT edges, "
		      "%u SIWU#\n",
		      what, r->core.sunk.n, c->got.n,
		      (unsigned long long)c->edges, c->siwu);
	assert_int_equal(c->violations, 0);
	assert_bytes_equal(&r->core.sunk, &c->host_out, "chip -> device");
	assert_bytes_equal(&c->got, &r->core.src, "device -> chip");
	assert_true(e < max_edges);
}

/* ---- tests
 * ---------------------------------------------------------------------- */

/* Both directions at once with everything random: RXF#/TXE# drops, host
 * packets, a slow sink with long stalls (the receive FIFO fills) and a
 * gappy source, both core clocks. */
static void test_phy_ft245_random(void **state)
{
	(void)state;
	char what[64];
	for (unsigned m = 0; m < N_MODELS; m++) {
		for (unsigned k = 0; k < N_CORE; k++) {
			struct run r;
			run_open(&r, m, core_periods[k], 60,
				 ftpu_test_seed() ^ (m * 16 + k));
			r.core.ready = 5;
			r.core.stall_per_mille = 4;
			r.core.valid = 3;
			r.arrive_chunk = 1 + rng_below(&r.g, 512);
			fill_random(&r.chip.host_out, &r.g, 20000);
			fill_random(&r.core.src, &r.g, 20000);
			snprintf(what, sizeof(what), "%s, core %u ps",
				 models[m].name, core_periods[k]);
			run_to_end(&r, 1000000, what);
			run_close(&r);
		}
	}
}

/* Flickering flags: RXF# and TXE# drop almost every other cycle. */
static void test_phy_ft245_flicker(void **state)
{
	(void)state;
	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		run_open(&r, m, core_periods[1], 450, ftpu_test_seed() ^ 0x77);
		r.arrive_chunk = 7;
		fill_random(&r.chip.host_out, &r.g, 3000);
		fill_random(&r.core.src, &r.g, 3000);
		run_to_end(&r, 200000, models[m].name);
		run_close(&r);
	}
}

/* A device that echoes (loop): what the host writes comes back. */
static void test_phy_ft245_echo(void **state)
{
	(void)state;
	for (unsigned m = 0; m < N_MODELS; m++) {
		for (unsigned k = 0; k < N_CORE; k++) {
			struct run r;
			run_open(&r, m, core_periods[k], 20,
				 ftpu_test_seed() ^ (0x100 + m * 16 + k));
			r.io.loop = true;
			fill_random(&r.chip.host_out, &r.g, 20000);
			struct chip *c = &r.chip;
			uint64_t e = 0;
			for (; e < 1000000 && c->got.n < c->host_out.n; e++)
				run_edge(&r);
			for (unsigned i = 0; i < 200; i++)
				run_edge(&r);
			assert_int_equal(c->violations, 0);
			assert_bytes_equal(&c->got, &c->host_out, "echo");
			assert_int_equal(r.core.sunk.n, 0);
			run_close(&r);
		}
	}
}

/* Throughput with the chip always ready and a fast core: reading alone and
 * writing alone move a byte on nearly every CLKOUT edge; both at once
 * share the bus, losing only the turn-round cycles (Burst bytes a turn). */
static void test_phy_ft245_throughput(void **state)
{
	(void)state;
	for (unsigned dir = 0; dir < 3; dir++) {
		struct run r;
		run_open(&r, 0, core_periods[1], 0, ftpu_test_seed() ^ 0x200);
		size_t n = 8000;
		if (dir != 1)
			fill_random(&r.chip.host_out, &r.g, n);
		if (dir != 0)
			fill_random(&r.core.src, &r.g, n);
		/* everything written by the host is in the chip already */
		r.chip.avail = r.chip.host_out.n;
		r.chip.tx_cap = r.chip.tx_room = 1u << 30;
		r.chip.rxf_n = r.chip.host_out.n == 0;
		static const char *names[] = {"read", "write", "both"};
		run_to_end(&r, 100000, names[dir]);
		double moved = (double)(r.core.sunk.n + r.chip.got.n);
		double span =
			(double)(r.chip.last_move - r.chip.first_move + 1);
		double burst = r.cfg.burst;
		/* per turn: an idle cycle each way and the OE# cycle */
		double want =
			dir == 2 ? 0.97 * (2 * burst) / (2 * burst + 3) : 0.99;
		print_message("%s: %.3f bytes per CLKOUT edge (want >= %.3f)\n",
			      names[dir], moved / span, want);
		assert_true(moved / span >= want);
		run_close(&r);
	}
}

/* SIWU#: after each burst the device writes, one strobe, FlushIdle edges
 * after the last byte, and none while bytes keep coming (a fast core
 * keeps the PHY supplied). */
static void test_phy_ft245_siwu(void **state)
{
	(void)state;
	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		run_open(&r, m, core_periods[1], 0, ftpu_test_seed() ^ 0x300);
		struct chip *c = &r.chip;
		unsigned fi = r.cfg.flush_idle;
		for (unsigned b = 0; b < 20; b++) {
			unsigned siwu0 = c->siwu;
			fill_random(&r.core.src, &r.g,
				    1 + rng_below(&r.g, 300));
			uint64_t e = 0;
			for (; e < 20000 && c->got.n < r.core.src.n; e++)
				run_edge(&r);
			assert_int_equal(c->got.n, r.core.src.n);
			assert_int_equal(c->siwu, siwu0);
			uint64_t last = c->last_wr_edge;
			for (e = 0; e < 20000 && c->edges < last + fi + 20; e++)
				run_edge(&r);
			assert_int_equal(c->siwu, siwu0 + 1);
			/* low in the cycle after fi edges without a byte,
			 * so the chip sees it at the edge after those */
			assert_int_equal(c->last_siwu_edge, last + fi + 1);
		}
		assert_int_equal(c->violations, 0);
		assert_bytes_equal(&c->got, &r.core.src, "device -> chip");
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phy_ft245_random),
		cmocka_unit_test(test_phy_ft245_flicker),
		cmocka_unit_test(test_phy_ft245_echo),
		cmocka_unit_test(test_phy_ft245_throughput),
		cmocka_unit_test(test_phy_ft245_siwu),
	};
	print_message("seed %#" PRIx64 " (FTPU_SEED)\n", ftpu_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
