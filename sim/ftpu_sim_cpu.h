/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_sim_cpu.h - C interface to the control core model (rtl/cpu/ftpu_cpu.sv
 * in the test top sim/tops/ftpu_cpu_tb.sv, shim sim/cpu_shim.cpp): load a
 * program, run it, talk to it through the CONTROL mailbox and a model of the
 * control-plane registers. Generic calls (ftpu_sim_close, ftpu_sim_cycles)
 * are those of ftpu_sim.h.
 *
 * Every function here returns false / 0 / -1 when sim is not a cpu model.
 */
#ifndef FTPU_SIM_CPU_H
#define FTPU_SIM_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftpu_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The control core with a 8 KiB ROM and a 16 KiB RAM (mk/models/cpu.mk).
 * It comes out of the opener held in reset with undefined memories. */
struct ftpu_sim *ftpu_sim_open_cpu(const char *trace_path);

/* Memory map of the model (docs/firmware.md). */
struct ftpu_sim_cpu_config {
	uint32_t rom_base, rom_bytes;
	uint32_t ram_base, ram_bytes;
	uint32_t
		mmio_base; /* REG at +0, MBOX +0x400, SYS +0x500, EXT +0x1000 */
};
bool ftpu_sim_cpu_get_config(const struct ftpu_sim *sim,
			     struct ftpu_sim_cpu_config *cfg);

/* The test device in the EXT window (sim/tops/ftpu_cpu_tb.sv). */
#define FTPU_SIM_CPU_EXIT 0x40001000u	 /* W: the program's exit code */
#define FTPU_SIM_CPU_CONSOLE 0x40001004u /* W: one character */
#define FTPU_SIM_CPU_SCRATCH 0x40001008u /* RW: a plain register */

/* Writes n words at byte address addr (4-aligned) into ROM or RAM through
 * the load port, holding the core in reset. False if addr is unaligned,
 * words is NULL with n > 0, or a word falls outside ROM and RAM (nothing is
 * written then). The core stays in reset until ftpu_sim_cpu_restart(). */
bool ftpu_sim_cpu_load_words(struct ftpu_sim *sim, uint32_t addr,
			     const uint32_t *words, size_t n);

/* Loads a hex image as objcopy -O verilog --verilog-data-width=4 writes
 * it ("@" word addresses, 32-bit words in hex), as ftpu_sim_cpu_load_words.
 * Returns the words loaded, or -1 if the file cannot be read, is malformed
 * or has a word outside ROM and RAM (memories may be partly written then). */
long ftpu_sim_cpu_load_hex(struct ftpu_sim *sim, const char *path);

/* Resets the whole model for `cycles` cycles (rst_ni: core, mailbox, system
 * registers, test device; memories keep their contents), clears the
 * queues, the console and the statistics, then lets the core run from the
 * boot address on the following cycles. */
void ftpu_sim_cpu_restart(struct ftpu_sim *sim, unsigned cycles);

/* What ftpu_sim_cpu_run() stops at (bits). */
enum ftpu_sim_cpu_until {
	FTPU_SIM_CPU_UNTIL_EXIT = 1u << 0, /* the program wrote EXIT */
	FTPU_SIM_CPU_UNTIL_RESPONSE =
		1u << 1, /* a whole RESPONSE frame came out */
};

/* Runs at most max_cycles cycles, stopping after the cycle in which one of
 * the `until` events happened. Returns the event (one bit of enum
 * ftpu_sim_cpu_until), or 0 when max_cycles ran out first. */
unsigned ftpu_sim_cpu_run(struct ftpu_sim *sim, uint64_t max_cycles,
			  unsigned until);

/* Counts since the last restart. */
struct ftpu_sim_cpu_stats {
	uint64_t cycles;      /* clock cycles run */
	uint64_t retired;     /* instructions retired (retire_o) */
	uint64_t traps;	      /* traps taken (trap_o) */
	uint64_t core_resets; /* cycles the core was held by SYS (REBOOT,
				 watchdog) */
	bool exited;	      /* EXIT was written ... */
	uint32_t exit_code;   /* ... with this value (the last one) */
	uint64_t exit_cycle;  /* cycles run when it was written */
	uint64_t responses;   /* whole RESPONSE frames received */
};
bool ftpu_sim_cpu_get_stats(const struct ftpu_sim *sim,
			    struct ftpu_sim_cpu_stats *st);

/* Moves up to cap console characters written since the last call into buf
 * (not NUL-terminated); returns how many. */
size_t ftpu_sim_cpu_console(struct ftpu_sim *sim, char *buf, size_t cap);

/* The test device answers delay + 1 cycles after a request (0..15). */
bool ftpu_sim_cpu_set_ext_delay(struct ftpu_sim *sim, unsigned delay);

/* --- the control plane seen by the firmware --- */

/* What a read of control-plane register addr (0..255, docs/registers.md)
 * returns from now on (0 for registers never set). */
bool ftpu_sim_cpu_reg_set(struct ftpu_sim *sim, unsigned addr, uint32_t value);

/* Writes the core made to register addr since the last restart: how many
 * (*count) and the last value (*last, 0 if none). Either may be NULL. */
bool ftpu_sim_cpu_reg_writes(const struct ftpu_sim *sim, unsigned addr,
			     unsigned *count, uint32_t *last);

/* Reads the core made of register addr since the last restart. */
unsigned ftpu_sim_cpu_reg_reads(const struct ftpu_sim *sim, unsigned addr);

/* Queues CONTROL mailbox words (a frame: w1, w2, payload) offered on
 * ctl_valid_i in order. False if words is NULL with n > 0. */
bool ftpu_sim_cpu_ctl_push(struct ftpu_sim *sim, const uint32_t *words,
			   size_t n);

/* Words queued by ftpu_sim_cpu_ctl_push() not yet taken by the core. */
size_t ftpu_sim_cpu_ctl_queued(const struct ftpu_sim *sim);

/* Moves up to cap RESPONSE words received (w1, w2, payload, frame after
 * frame) into words; returns how many. */
size_t ftpu_sim_cpu_rsp_pull(struct ftpu_sim *sim, uint32_t *words, size_t cap);

/* credit_i from now on. */
bool ftpu_sim_cpu_set_credit(struct ftpu_sim *sim, uint16_t credit);

/* rsp_ready_i is high one cycle in every `period` (1: always). */
bool ftpu_sim_cpu_set_rsp_period(struct ftpu_sim *sim, unsigned period);

#ifdef __cplusplus
}
#endif
#endif /* FTPU_SIM_CPU_H */
