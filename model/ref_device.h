/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_device.h - the C model of the whole ftpu device: link frames in, link
 * frames out (docs/protocol.md), programs executed per docs/isa.md with the
 * bit-exact numerics of proto/numeric.h. It is the executable
 * specification the RTL is compared with, and the engine of the `ref`
 * transport.
 *
 * What the model cannot know exactly it models: the credit field of its
 * frames is its whole receive buffer (it consumes every frame at once), and
 * the cycle counters follow the stall-free costs of docs/isa.md. Tests that
 * compare it with the RTL compare everything else byte for byte.
 */
#ifndef FTPU_REF_DEVICE_H
#define FTPU_REF_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftpu_spec.h"

struct ftpu_ref_device_config {
	unsigned int n;          /* array ROWS = COLS */
	unsigned int row_delay;  /* reported by INFO */
	uint32_t ub_vectors;     /* unified buffer, vectors of n bf16 */
	uint32_t wm_rows;        /* weight memory, rows of n bf16 */
	uint32_t acc_vectors;    /* accumulators, vectors of n fp32 */
	uint32_t bias_vectors;   /* bias memory, vectors of n fp32 */
	uint32_t rx_words;       /* receive buffer words (flow-control credit);
				  * a PROGRAM frame of len L takes L + 2 */
	uint32_t clock_hz;       /* reported by INFO */
	bool vector_unit;        /* executes the vector instructions (docs/vector.md);
				  * else they are OPCODE faults (spec VectorUnit) */
	unsigned int link_bytes; /* reported by INFO: the link's bytes a cycle
				  * (the model charges no link time) */
	bool in_order;           /* reported by INFO FEATURES IN_ORDER: the small
				  * profile's dispatch (same results; the model
				  * charges no overlap either way) */
};

struct ftpu_ref_device;

/* A configuration of spec/ftpu.toml as an initializer (a braced list): D is its name in
 * ftpu_spec.h's FTPU_DEV_<D>_* (DEFAULT, DEVICE_4P, ...), as the RTL
 * models of that name are built. */
#define FTPU_REF_DEVICE_SPEC_CONFIG(D)                                                          \
	{                                                                                       \
		.n = FTPU_DEV_##D##_N, .row_delay = FTPU_DEV_##D##_ROW_DELAY,                   \
		.ub_vectors = FTPU_DEV_##D##_UB_VECTORS, .wm_rows = FTPU_DEV_##D##_WM_ROWS,     \
		.acc_vectors = FTPU_DEV_##D##_ACC_VECTORS,                                      \
		.bias_vectors = FTPU_DEV_##D##_BIAS_VECTORS, .rx_words = FTPU_DEV_##D##_IQ_WORDS, \
		.clock_hz = FTPU_DEV_##D##_CLOCK_HZ, .vector_unit = FTPU_DEV_##D##_VECTOR_UNIT,   \
		.link_bytes = FTPU_DEV_##D##_LINK_BYTES, .in_order = FTPU_DEV_##D##_IN_ORDER }

/* The simulation default of docs/isa.md: spec/ftpu.toml's [device.default]. */
void ftpu_ref_device_default_config(struct ftpu_ref_device_config *cfg);

/*
 * Creates a device in its reset state. Returns FTPU_OK, FTPU_ERR_INVALID for
 * NULL arguments, n outside 2..256 or n odd, a zero or oversized memory
 * (more than 65536 vectors) or rx_words too small for a PROGRAM frame of
 * one instruction; FTPU_ERR_NOMEM when allocation fails. A PROGRAM frame of
 * len L needs L + 2 of the rx_words (docs/protocol.md §6): below
 * FTPU_LINK_MAX_PAYLOAD + 2 the longest PROGRAM frames are refused with
 * OVERFLOW, as a device with that buffer (the boards' 1024 words) refuses
 * them.
 */
int ftpu_ref_device_open(const struct ftpu_ref_device_config *cfg,
			 struct ftpu_ref_device **out);

/* Frees everything; NULL is a no-op. */
void ftpu_ref_device_close(struct ftpu_ref_device *dev);

/*
 * Hands the device n bytes from the host. Every complete frame among them is
 * executed before the call returns, and the device's answers are queued for
 * ftpu_ref_device_read. Returns FTPU_OK, FTPU_ERR_INVALID for NULL
 * arguments, FTPU_ERR_NOMEM when the output queue cannot grow (the device
 * then stops answering until it is closed).
 */
int ftpu_ref_device_write(struct ftpu_ref_device *dev, const void *bytes,
			  size_t n);

/* Moves up to cap queued output bytes into buf; returns how many. */
size_t ftpu_ref_device_read(struct ftpu_ref_device *dev, void *buf,
			    size_t cap);

/* Output bytes queued and not yet read; 0 for NULL. */
size_t ftpu_ref_device_pending(const struct ftpu_ref_device *dev);

#endif /* FTPU_REF_DEVICE_H */
