/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_sim_phy.h - C interface to the Verilated PHY adapters
 * (rtl/link/ftpu_phy_*.sv in their test tops sim/tops/ftpu_phy_*_tb.sv,
 * built by mk/models/phy.mk, shim sim/phy_shim.cpp). The handles are
 * ordinary struct ftpu_sim (ftpu_sim.h): ftpu_sim_close(), ftpu_sim_reset()
 * and ftpu_sim_cycles() (core clock cycles) work on them.
 *
 * Each model has two clocks: the core clock (clk_i, the byte ports) and a
 * pin clock (the FT245's CLKOUT, the XDMA's axi_aclk; the UART has none).
 * Each clock rises at phase + n * period picoseconds and falls half a
 * period later. A cycle call runs to the next rising edge of either clock:
 * it drives all the inputs in the io struct, lets them settle, samples all
 * the outputs into the struct, then raises the clock(s) whose edge it is.
 * A test therefore asks ftpu_sim_phy_next() which clocks rise next, updates
 * the inputs of those domains only (the others hold, as real signals do),
 * and after the call updates its models of those domains from the sampled
 * outputs. A transfer happens in a domain when valid and ready are both
 * true in the same call for one of its edges.
 */
#ifndef FTPU_SIM_PHY_H
#define FTPU_SIM_PHY_H

#include <stdbool.h>
#include <stdint.h>

#include "ftpu_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* UART (ClockHz, Baud, FifoDepth): 12 MHz / 3 Mbaud (4 clocks per bit),
 * 13.5 MHz / 3 Mbaud (4.5), 50 MHz / 3 Mbaud (16.67, FIFO of 4). */
struct ftpu_sim *ftpu_sim_open_phy_uart_4(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_phy_uart_4p5(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_phy_uart_50m(const char *trace_path);
/* FT245 synchronous FIFO: FIFOs of 16, bursts of 64, SIWU# after 16 idle
 * cycles; and FIFOs of 4, bursts of 3, SIWU# after 3. */
struct ftpu_sim *ftpu_sim_open_phy_ft245(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_phy_ft245_min(const char *trace_path);
/* AXI4-Stream: 64 bits on the core clock; 64 bits across clocks (FIFOs of
 * 16 beats); 128 bits across clocks (FIFOs of 4). */
struct ftpu_sim *ftpu_sim_open_phy_axis(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_phy_axis_async(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_phy_axis_w128(const char *trace_path);

enum ftpu_sim_phy_kind {
	FTPU_SIM_PHY_UART = 1,
	FTPU_SIM_PHY_FT245 = 2,
	FTPU_SIM_PHY_AXIS = 3,
};

/* A model's parameters (mk/models/phy.mk); fields of other kinds are 0. */
struct ftpu_sim_phy_config {
	enum ftpu_sim_phy_kind kind;
	unsigned clock_hz, baud;     /* UART */
	unsigned fifo_depth;	     /* UART receive FIFO; AXIS beats */
	unsigned rx_depth, tx_depth; /* FT245 */
	unsigned burst;		     /* FT245 */
	unsigned flush_idle;	     /* FT245 SIWU#, AXIS tlast flush */
	unsigned data_w;	     /* AXIS tdata bits (<= 128) */
	bool async;		     /* AXIS: aclk unrelated to clk_i */
};

/* Fills *cfg; false if sim is not a PHY model or cfg is NULL. */
bool ftpu_sim_phy_get_config(const struct ftpu_sim *sim,
			     struct ftpu_sim_phy_config *cfg);

/* Clock bits: the result of ftpu_sim_phy_next() and the cycle calls. */
#define FTPU_SIM_PHY_CORE 1u /* clk_i */
#define FTPU_SIM_PHY_PIN 2u  /* ft_clk_i, aclk_i */

/* Sets the clock periods (ps) and the pin clock's phase: core edges at
 * t0 + k * core_period_ps, pin edges at t0 + pin_phase_ps + k *
 * pin_period_ps (k >= 1), where t0 is the time of the last edge run (0
 * before the first); pin_period_ps is ignored by the UART. An AXIS model
 * without async must get equal periods and phase 0 (its AXI side runs on
 * clk_i; the pin bit then rises with the core bit). Defaults: core 10000,
 * pin 16667, phase 0. Call it before ftpu_sim_reset(). False if sim is not
 * a PHY model, a period is below 2 or the phase not below the pin period. */
bool ftpu_sim_phy_set_clocks(struct ftpu_sim *sim, uint32_t core_period_ps,
			     uint32_t pin_period_ps, uint32_t pin_phase_ps);

/* The clocks (FTPU_SIM_PHY_* bits) that rise at the next cycle call; 0 if
 * sim is not a PHY model. */
unsigned ftpu_sim_phy_next(const struct ftpu_sim *sim);

/* Time of the last edge run, in ps (0 before the first). */
uint64_t ftpu_sim_phy_time_ps(const struct ftpu_sim *sim);

/* Rising edges of the pin clock since open. */
uint64_t ftpu_sim_phy_pin_cycles(const struct ftpu_sim *sim);

/* ---- UART (one clock: every call is a core clock cycle) ---- */

struct ftpu_sim_uart_io {
	/* inputs */
	bool loop;	/* received bytes are sent back (byte ports idle) */
	bool rx;	/* uart_rx_i, the line level */
	bool out_ready; /* the sink takes out_byte */
	bool in_valid;	/* in_byte is offered for sending */
	uint8_t in_byte;
	/* outputs */
	bool tx; /* uart_tx_o */
	bool out_valid;
	uint8_t out_byte;
	bool in_ready;
	bool frame_err, brk, overrun;  /* one-cycle pulses */
	uint16_t frame_errs, overruns; /* wrapping counts */
};

/* Runs one clock cycle; false (nothing run) if sim is not a UART model. */
bool ftpu_sim_uart_cycle(struct ftpu_sim *sim, struct ftpu_sim_uart_io *io);

/* ---- FT245 synchronous FIFO ---- */

struct ftpu_sim_ft245_io {
	/* core-domain inputs */
	bool loop;
	bool out_ready;
	bool in_valid;
	uint8_t in_byte;
	/* pin-domain inputs: the chip */
	bool rxf_n, txe_n;
	uint8_t chip_d;	 /* what the chip drives on D while OE# is low */
	uint8_t float_d; /* what D reads when nobody drives it */
	/* core-domain outputs */
	bool out_valid;
	uint8_t out_byte;
	bool in_ready;
	/* pin-domain outputs */
	bool rd_n, wr_n, oe_n, siwu_n;
	bool data_oe;	 /* the PHY drives D */
	uint8_t bus;	 /* D as resolved (what the chip reads when WR#) */
	bool contention; /* OE# low while the PHY drives D */
};

/* Runs to the next rising edge; returns the clocks that rose (0: not an
 * FT245 model, nothing run). */
unsigned ftpu_sim_ft245_cycle(struct ftpu_sim *sim,
			      struct ftpu_sim_ft245_io *io);

/* ---- AXI4-Stream (XDMA H2C / C2H) ---- */

struct ftpu_sim_axis_io {
	/* core-domain inputs */
	bool loop;
	bool out_ready;
	bool in_valid;
	uint8_t in_byte;
	/* AXI-domain inputs */
	bool s_tvalid;
	uint32_t s_tdata[4]; /* data_w bits, word 0 least significant */
	uint16_t s_tkeep;
	bool s_tlast;
	bool m_tready;
	/* core-domain outputs */
	bool out_valid;
	uint8_t out_byte;
	bool in_ready;
	/* AXI-domain outputs */
	bool s_tready;
	bool m_tvalid;
	uint32_t m_tdata[4];
	uint16_t m_tkeep;
	bool m_tlast;
};

/* Runs to the next rising edge; returns the clocks that rose (0: not an
 * AXIS model, nothing run). */
unsigned ftpu_sim_axis_cycle(struct ftpu_sim *sim, struct ftpu_sim_axis_io *io);

#ifdef __cplusplus
}
#endif
#endif /* FTPU_SIM_PHY_H */
