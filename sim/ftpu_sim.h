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
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftpu_sim;

/* trace_path: an FST file to write, or NULL for none. */
struct ftpu_sim *ftpu_sim_open_mul_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_add_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_mac_lanes(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_16x16(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_8x8(const char *trace_path);
struct ftpu_sim *ftpu_sim_open_array_4x6(const char *trace_path);

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

#ifdef __cplusplus
}
#endif
#endif /* FTPU_SIM_H */
