/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_sim.h - C interface to the Verilated models (the only C++ in ftpu is
 * behind this header). Each model built by mk/models.mk has an opener
 * ftpu_sim_open_<model>(); everything else is generic over the handle.
 *
 * Openers return NULL when out of memory or when a trace was requested from a
 * build without tracing (build with TRACE=1).
 */
#ifndef FTPU_SIM_H
#define FTPU_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftpu_sim;

/* trace_path: an FST file to write, or NULL for none. */
struct ftpu_sim *ftpu_sim_open_mul_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_add_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_mac_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_act_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_cvt_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_fmul_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_16x16(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_8x8(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_4x6(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_4x6b(const char *trace_path);

/* Finishes the trace file, if any, and frees the model. NULL is a no-op. */
void ftpu_sim_close(struct ftpu_sim *sim);

/* --- numeric lanes (combinational) --- */

/* Number of lanes evaluated per call; 0 if sim is not a lanes model. */
unsigned ftpu_sim_lanes(const struct ftpu_sim *sim);

/* Calls by which results trail their inputs (the adder's pipeline). */
unsigned ftpu_sim_lanes_delay(const struct ftpu_sim *sim);

/* One clock: presents x, y, z to every lane and returns in r the results of
 * the inputs presented ftpu_sim_lanes_delay() calls earlier, r[l] =
 * unit(x[l], y[l], z[l]) (sim/tops/ftpu_lanes.sv). Each array holds
 * ftpu_sim_lanes() words. */
void ftpu_sim_lanes_eval(struct ftpu_sim *sim, const uint32_t *x,
			 const uint32_t *y, const uint32_t *z, uint32_t *r);

/* --- systolic array (clocked) --- */

struct ftpu_array_dims {
	unsigned rows, cols;
	unsigned row_delay; /* cycles a partial sum spends in one PE */
	unsigned latency;   /* cycles from a vector in to its result out */
};

/* One cycle's inputs. Pointers may be NULL when the matching valid is
 * false (zeros are driven then). */
struct ftpu_array_in {
	bool valid;            /* act/psum carry a vector this cycle */
	bool wsel;             /* weight buffer the vector multiplies */
	const uint16_t *act;   /* rows bf16 values */
	const uint32_t *psum;  /* cols fp32 values entering the column tops */
	bool wl_valid;         /* wl_data is row wl_row of buffer wl_buf */
	bool wl_buf;
	unsigned wl_row;
	const uint16_t *wl_data; /* cols bf16 values */
};

/* Fills dims; false if sim is not an array model. */
bool ftpu_sim_array_dims(const struct ftpu_sim *sim,
			 struct ftpu_array_dims *dims);

/* Holds reset for the given number of cycles (inputs driven to zero). */
void ftpu_sim_reset(struct ftpu_sim *sim, unsigned cycles);

/* Runs one clock cycle with inputs `in` (NULL: all idle). Before the clock
 * edge it stores this cycle's outputs: *out_valid and, when valid, cols
 * fp32 values in out_psum (which may be NULL to skip the copy). */
void ftpu_sim_array_cycle(struct ftpu_sim *sim, const struct ftpu_array_in *in,
			  bool *out_valid, uint32_t *out_psum);

/* Clock cycles simulated since open. */
uint64_t ftpu_sim_cycles(const struct ftpu_sim *sim);

/* --- link layer (rtl/link/, sim/tops/ftpu_link_loop.sv) --- */

/* ftpu_link_rx and ftpu_link_tx side by side; in loop mode the receive
 * buffer and the CONTROL mailbox feed the transmitter, a whole frame at a
 * time, each frame re-typed RESPONSE. */
struct ftpu_sim *ftpu_sim_open_link_loop(const char *trace_path);
/* The same at Bytes 4: rx_beat/rx_count in, tx_out_beat out. */
struct ftpu_sim *ftpu_sim_open_link_loop_w4(const char *trace_path);

/* One clock cycle of a link model: the inputs, then the outputs, which
 * ftpu_sim_link_cycle() samples before the clock edge. A transfer happens
 * on an interface when its valid and ready are both true in one cycle. */
struct ftpu_sim_link_io {
	/* inputs */
	bool loop; /* tx takes rx's frames (rx_out_ready, ctl_ready, tx_valid
		      ignored) */
	bool rx_valid; /* rx_byte is offered to the receiver (Bytes 1), or
			* rx_count bytes of rx_beat, byte 0 first (Bytes 4) */
	uint8_t rx_byte;
	uint32_t rx_beat;
	unsigned rx_count;
	bool rx_out_ready; /* the receive buffer's reader takes a word */
	bool ctl_ready; /* the mailbox's reader takes a word */
	bool flush; /* empty the receive buffer and the mailbox (a pulse) */
	bool err_ready; /* the error consumer takes a report */
	bool tx_valid; /* tx_word is offered to the transmitter */
	uint32_t tx_word;
	bool tx_out_ready; /* the link takes a byte (a word) from the transmitter */
	/* outputs */
	bool rx_ready;
	bool rx_out_valid;
	uint32_t rx_out_word;
	uint32_t credit; /* free receive-buffer words (PROGRAM credit) */
	bool ctl_valid; /* the CONTROL mailbox offers ctl_word */
	uint32_t ctl_word;
	uint16_t ack_seq; /* acknowledged seq (docs/protocol.md §5), 0 at reset */
	bool err_valid;
	uint8_t err_code; /* enum ftpu_link_err */
	uint16_t err_seq; /* 0xFFFF when unreadable */
	uint8_t err_type; /* 0xFF when unreadable */
	bool tx_ready;
	bool tx_out_valid;
	uint8_t tx_out_byte;   /* Bytes 1 */
	uint32_t tx_out_beat;  /* Bytes 4: four bytes, byte 0 first */
};

/* The receiver's counters (32 bits, wrapping). */
struct ftpu_sim_link_stats {
	uint32_t frames_ok; /* frames committed to the receive buffer */
	uint32_t bytes_skipped; /* hunt bytes that began no good header */
	uint32_t errors[6]; /* by enum ftpu_link_err code; [0] unused */
	uint32_t err_lost; /* errors not reported: the consumer was busy */
};

/* Words of the receive buffer; 0 if sim is not a link model. */
unsigned ftpu_sim_link_capacity(const struct ftpu_sim *sim);

/* Runs one clock cycle with io's inputs and fills its outputs. False
 * (nothing run) if sim is not a link model. */
bool ftpu_sim_link_cycle(struct ftpu_sim *sim, struct ftpu_sim_link_io *io);

/* Reads the receiver's counters; false if sim is not a link model. */
bool ftpu_sim_link_get_stats(const struct ftpu_sim *sim,
			     struct ftpu_sim_link_stats *stats);


/* --- matrix unit (rtl/core/ftpu_matrix_unit.sv in the test top
 * sim/tops/ftpu_matrix_unit_tb.sv, with behavioural UB, WM and ACC) --- */

struct ftpu_sim *ftpu_sim_open_matrix_unit_16(const char *trace_path);
/* 4x4 array at the boards' pipeline depth (AddCuts 7, RowDelay 4). */
struct ftpu_sim *ftpu_sim_open_matrix_unit_4p(const char *trace_path);
/* The Tang Nano 20K's ([device.tangnano20k]): 4x4, RowDelay 2, activations
 * broadcast (ColSkew 0). */
struct ftpu_sim *ftpu_sim_open_matrix_unit_4t(const char *trace_path);

struct ftpu_mu_dims {
	unsigned n;           /* the array is n x n */
	unsigned row_delay;   /* cycles a partial sum spends in one PE */
	unsigned latency;     /* the array's: vector in to result out */
	unsigned ub_vectors, wm_rows, acc_vectors; /* memory sizes */
};

/* Fills dims; false if sim is not a matrix unit model. */
bool ftpu_sim_mu_dims(const struct ftpu_sim *sim, struct ftpu_mu_dims *dims);

enum ftpu_sim_mu_mem { FTPU_SIM_MU_UB = 0, FTPU_SIM_MU_WM = 1, FTPU_SIM_MU_ACC = 2 };

/* One memory word through the backdoor: UB and WM words are n bf16 (n/2
 * uint32: element i in bits 16*(i%2) of word i/2), ACC words n fp32. A
 * write takes one clock cycle, a read none. False if sim is not a matrix
 * unit, addr is beyond the memory, or (write) the unit is busy. */
bool ftpu_sim_mu_write(struct ftpu_sim *sim, enum ftpu_sim_mu_mem mem,
		       unsigned addr, const uint32_t *words);
bool ftpu_sim_mu_read(struct ftpu_sim *sim, enum ftpu_sim_mu_mem mem,
		      unsigned addr, uint32_t *words);

/* A command for the unit (already range-checked, as upstream does). */
struct ftpu_mu_cmd {
	bool matmul;     /* false: LOAD_WEIGHTS */
	bool accumulate; /* MATMUL flags */
	bool swap;
	unsigned wm_addr; /* LOAD_WEIGHTS: WM row of the tile's row 0 */
	unsigned ub_addr, acc_addr, n; /* MATMUL: n >= 1 */
};

/* Queues a command; the shim offers queued commands in order, one per
 * cycle while the unit takes them. False if sim is not a matrix unit. */
bool ftpu_sim_mu_push(struct ftpu_sim *sim, const struct ftpu_mu_cmd *cmd);

struct ftpu_mu_stats {
	uint64_t cycles;        /* cycles run by this call */
	uint64_t span;          /* first command taken .. last ACC write,
				 * inclusive (0 if none) */
	uint64_t vectors;       /* mac_o cycles (n*n MACs each) */
	uint64_t weight_stalls; /* weight_stall_o cycles */
	uint64_t input_stalls;  /* input_stall_o cycles */
	uint64_t acc_writes;
};

/* Runs until every queued command has been taken and the unit is idle.
 * Fills *st (may be NULL). False if sim is not a matrix unit or
 * max_cycles ran out first (commands may then remain queued). */
bool ftpu_sim_mu_run(struct ftpu_sim *sim, uint64_t max_cycles,
		     struct ftpu_mu_stats *st);

/* --- control plane (rtl/core/ftpu_control.sv, Verilated as its own top) --- */

struct ftpu_sim *ftpu_sim_open_control(const char *trace_path);

/* The model's parameters (mk/models.mk control_*), as INFO reports them. */
struct ftpu_sim_control_params {
	unsigned rows, cols, ub_vectors, weight_tiles, acc_vectors;
	unsigned bias_vectors, iq_words, clock_hz, row_delay, max_payload;
	unsigned vector_unit, link_bytes;
};

/* ev bits of struct ftpu_sim_control_io: the ev_*_i inputs. */
enum ftpu_sim_control_ev {
	FTPU_SIM_CTL_EV_BUSY = 1u << 0,
	FTPU_SIM_CTL_EV_MAC = 1u << 1,
	FTPU_SIM_CTL_EV_WEIGHT_STALL = 1u << 2,
	FTPU_SIM_CTL_EV_INPUT_STALL = 1u << 3,
	FTPU_SIM_CTL_EV_OUTPUT_STALL = 1u << 4,
	FTPU_SIM_CTL_EV_IDLE = 1u << 5,
	FTPU_SIM_CTL_EV_BYTE_IN = 1u << 6,
	FTPU_SIM_CTL_EV_BYTE_OUT = 1u << 7,
	FTPU_SIM_CTL_EV_INSTR = 1u << 8,
};

/* One clock cycle of the control model: inputs, then the outputs sampled
 * before the clock edge (a transfer happens when valid and ready are both
 * true in the same call). */
struct ftpu_sim_control_io {
	/* inputs */
	bool req_valid;
	uint32_t req_word; /* CONTROL frame: w1, w2, payload */
	bool rsp_ready;
	uint16_t credit;
	unsigned state; /* enum ftpu_link_dev_state */
	uint32_t free_words, queued_words;
	unsigned ev; /* enum ftpu_sim_control_ev bits */
	bool fault_valid;
	uint32_t fault_pc, fault_code, fault_instr;
	bool reset_done;
	bool reg_req, reg_we;
	uint8_t reg_addr;
	uint32_t reg_wdata;
	/* outputs */
	bool req_ready;
	bool rsp_valid;
	uint32_t rsp_word; /* RESPONSE frame: w1, w2, payload */
	bool reset;        /* reset_o */
	uint32_t reg_rdata; /* data of the read one cycle earlier */
};

/* Fills *p; false if sim is not the control model. */
bool ftpu_sim_control_get_params(const struct ftpu_sim *sim,
			     struct ftpu_sim_control_params *p);

/* Runs one cycle; false (nothing run) if sim is not the control model.
 * Reset with ftpu_sim_reset(). */
bool ftpu_sim_control_cycle(struct ftpu_sim *sim, struct ftpu_sim_control_io *io);

/* --- the whole device (rtl/ftpu_top.sv): link bytes in and out, the
 * register port (docs/registers.md), credit_o and idle_o --- */

/* 16x16, RowDelay 1, the C model's default sizes (spec/ftpu.toml's
 * device_16 configuration). */
struct ftpu_sim *ftpu_sim_open_device_16(const char *trace_path);
/* The same device Verilated for two threads (mk/models.mk device_16_t2). */
struct ftpu_sim *ftpu_sim_open_device_16_t2(const char *trace_path);
/* 4x4 at the boards' pipeline depth (AddCuts 7, RowDelay 4, InFlight 8),
 * small memories (spec/ftpu.toml's device_4p configuration). */
struct ftpu_sim *ftpu_sim_open_device_4p(const char *trace_path);
/* The small profile: the iCEBreaker's 2x2 device, in order, no vector unit,
 * a byte-wide link (spec/ftpu.toml's device_2s configuration). */
struct ftpu_sim *ftpu_sim_open_device_2s(const char *trace_path);
/* The iCEBreaker's top (boards/icebreaker/) behind its pins: bytes cross a
 * 3 Mbaud UART at the board's 24 MHz, the idle is its busy LED; no register
 * port or counters (sim/board_shim.cpp). A 2x2 array, small memories. */
struct ftpu_sim *ftpu_sim_open_board_icebreaker(const char *trace_path);
/* The Tang Nano 20K's top (boards/tangnano20k/) the same way: 3 Mbaud at the
 * board's 27 MHz, a 2x2 array. */
struct ftpu_sim *ftpu_sim_open_board_tangnano20k(const char *trace_path);
/* The ULX3S's top (boards/ulx3s/): 3 Mbaud at the device's 33.3 MHz, a 4x4
 * array, the control core and its firmware answering CONTROL. */
struct ftpu_sim *ftpu_sim_open_board_ulx3s(const char *trace_path);
/* The same top at the 45F's parameters (4x4, half the weight memory) and
 * at the 25F's (2x2, the iCEBreaker's memories; the 12F's design too). */
struct ftpu_sim *ftpu_sim_open_board_ulx3s_45f(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_board_ulx3s_25f(const char *trace_path);

/* A device model's parameters (mk/models.mk), as INFO reports them and the
 * build-only ones. The model comes out of its opener reset (4 cycles);
 * ftpu_sim_reset() resets it again (rst_ni; queued bytes are dropped) and
 * ftpu_sim_cycles() counts the cycles since open. */
struct ftpu_sim_device_config {
	unsigned n;         /* ROWS = COLS */
	unsigned add_cuts;  /* PE adder cuts, a 3-bit mask */
	unsigned row_delay; /* 1 + popcount(add_cuts) */
	unsigned ub_vectors, wm_rows, acc_vectors, bias_vectors;
	unsigned iq_words;  /* receive buffer words: the credit when empty */
	unsigned clock_hz;
	unsigned in_flight; /* MATMULs with results pending */
	unsigned vector_unit; /* 1: the vector instructions run (docs/vector.md) */
	unsigned link_bytes;  /* bytes the link moves per cycle (INFO LINK_BYTES) */
	unsigned in_order;    /* 1: the small profile's dispatch (INFO FEATURES IN_ORDER) */
};

/* Fills *cfg; false if sim is not a device model. */
bool ftpu_sim_device_get_config(const struct ftpu_sim *sim,
				struct ftpu_sim_device_config *cfg);

/* How the simulated link moves bytes. A beat of queued host bytes (up to
 * link_bytes of them) is offered on in_valid at most once every in_period
 * cycles (1: back to back) while the device is ready. out_ready is high in cycle t (ftpu_sim_cycles) when
 * t % out_period == 0 and not (out_stall_every && t % out_stall_every <
 * out_stall_len): a slow reader and long stalls. Default {1, 1, 0, 0}. */
struct ftpu_sim_device_pace {
	unsigned in_period, out_period;
	unsigned out_stall_len, out_stall_every;
};

/* Sets the pacing; false if sim is not a device model or a period is 0. */
bool ftpu_sim_device_set_pace(struct ftpu_sim *sim,
			      const struct ftpu_sim_device_pace *pace);

/* Queues n host bytes for the link (they enter as cycles run). False if
 * sim is not a device model or bytes is NULL with n > 0. */
bool ftpu_sim_device_push(struct ftpu_sim *sim, const void *bytes, size_t n);

/* Host bytes queued and not yet taken by the device; 0 if not a device. */
size_t ftpu_sim_device_in_queued(const struct ftpu_sim *sim);

/* Moves up to cap of the bytes the device has sent into buf; returns how
 * many (0 if not a device model). */
size_t ftpu_sim_device_pull(struct ftpu_sim *sim, void *buf, size_t cap);

/* Bytes the device has sent and not yet pulled; 0 if not a device. */
size_t ftpu_sim_device_out_queued(const struct ftpu_sim *sim);

/* Runs n clock cycles; false if sim is not a device model. */
bool ftpu_sim_device_run(struct ftpu_sim *sim, uint64_t n);

/* Runs until the device is idle: the input queue is empty and idle_o has
 * been high for FTPU_SIM_DEVICE_IDLE_SETTLE consecutive cycles (so a frame
 * still being checked by the receiver is not taken for idleness). False
 * if sim is not a device model or max_cycles ran out first. *ran (may be
 * NULL) gets the cycles run. */
#define FTPU_SIM_DEVICE_IDLE_SETTLE 16u
bool ftpu_sim_device_run_until_idle(struct ftpu_sim *sim, uint64_t max_cycles,
				    uint64_t *ran);

/* credit_o and idle_o as sampled in the last cycle run (0 / false if not a
 * device model). */
uint32_t ftpu_sim_device_credit(const struct ftpu_sim *sim);
bool ftpu_sim_device_idle(const struct ftpu_sim *sim);

/* One register access (docs/registers.md) through reg_*_i: a read takes
 * two cycles (request, data), a write one. The link keeps moving bytes
 * meanwhile. False if sim is not a device model or value is NULL. */
bool ftpu_sim_device_reg_read(struct ftpu_sim *sim, unsigned addr,
			      uint32_t *value);
bool ftpu_sim_device_reg_write(struct ftpu_sim *sim, unsigned addr,
			       uint32_t value);

/* The READ_COUNTERS values (docs/protocol.md §7.2) read through the
 * counter registers 0x20..0x2C in one pipelined burst of 14 cycles: live
 * values, not one snapshot. */
struct ftpu_sim_device_counters {
	uint32_t cycles, busy;
	uint64_t macs;
	uint32_t weight_stall, input_stall, output_stall, idle;
	uint64_t bytes_in, bytes_out;
	uint32_t instructions;
};

/* Fills *c; false if sim is not a device model or c is NULL. */
bool ftpu_sim_device_read_counters(struct ftpu_sim *sim,
				   struct ftpu_sim_device_counters *c);

/* The link as the shim saw it since open: bytes the device took
 * (in_valid && in_ready) and sent (out_valid && out_ready). */
struct ftpu_sim_device_stats {
	uint64_t bytes_in, bytes_out;
};

/* Fills *st; false if sim is not a device model or st is NULL. */
bool ftpu_sim_device_get_stats(const struct ftpu_sim *sim,
			       struct ftpu_sim_device_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* FTPU_SIM_H */
