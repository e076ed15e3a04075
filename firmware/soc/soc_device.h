/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_device.h - the soft device: the ftpu device (docs/protocol.md,
 * docs/isa.md) as firmware on the control core, for boards too small for
 * the hardware device (the iCEBreaker). Link bytes in, link frames out,
 * programs executed with the systolic array behind soc_hal.h; it answers
 * as the C model (model/ref_device.c) does for the same bytes, except for
 * the credit fields and the cycle counters, which are real here.
 *
 * Portable: no MMIO (soc_hal.h does that), so the host test builds it.
 * Bytes go UART -> RAM ring (the hal's pump) -> the protocol's reference
 * receiver (proto/link.c) -> frames executed in stream order, as the model
 * does; each PROGRAM frame waits for its PCRC before it runs.
 */
#ifndef FW_SOC_DEVICE_H
#define FW_SOC_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "ftpu_spec.h"
#include "isa.h"
#include "link.h"
#include "soc_hal.h"

/* Capacities of the static storage: the iCEBreaker's device (spec/ftpu.toml
 * [device.icebreaker]); a configuration may use less, or split the memory
 * words otherwise. The host test may define larger ones before it includes
 * soc_device.c. */
#ifndef SOC_MAX_N
#define SOC_MAX_N FTPU_DEV_ICEBREAKER_N
#define SOC_MEM_WORDS                                                          \
	((FTPU_DEV_ICEBREAKER_UB_VECTORS + FTPU_DEV_ICEBREAKER_WM_ROWS) *      \
		 FTPU_DEV_ICEBREAKER_N / 2 +                                   \
	 (FTPU_DEV_ICEBREAKER_ACC_VECTORS + FTPU_DEV_ICEBREAKER_BIAS_VECTORS) * \
		 FTPU_DEV_ICEBREAKER_N)
#define SOC_MAX_RX_WORDS FTPU_DEV_ICEBREAKER_IQ_WORDS
#define SOC_RING_BYTES 16384u
#endif

/*
 * Ring bytes a host that keeps to its credit can have sent beyond the
 * acknowledged seq: PROGRAM frames worth rx_words credit words (a frame of
 * len L takes L + 2 of them and 4 L + 20 bytes, so at most 10 bytes a
 * credit word, for empty frames) and the one CONTROL frame it may have
 * outstanding. The rest of the ring absorbs garbage.
 */
#define SOC_RING_NEED(rx_words)                                                \
	(FTPU_LINK_FRAME_BYTES(0) / 2u * (rx_words) +                          \
	 FTPU_LINK_FRAME_BYTES(FTPU_LINK_MAX_CONTROL))

/* Payload words the receiver holds: the longest PROGRAM frame the credit
 * admits (a CONTROL frame is shorter). */
#define SOC_RX_BUF_WORDS (SOC_MAX_RX_WORDS - 2u)

/* The receive timeout (docs/protocol.md §4.4: at least 10 ms): a frame cut
 * short is dropped with TIMEOUT after this much quiet on the line. */
#define SOC_RX_TIMEOUT_MS 20u

/* The device's parameters, as ftpu_ref_device_config less the vector unit
 * (the soft device has none: its instructions are OPCODE faults). */
struct soc_device_config {
	unsigned int n;         /* array ROWS = COLS, a power of two */
	unsigned int row_delay; /* reported by INFO */
	uint32_t ub_vectors, wm_rows, acc_vectors, bias_vectors;
	uint32_t rx_words; /* IQ_WORDS: the credit when nothing is queued */
	uint32_t clock_hz; /* INFO, and the receive timeout */
	unsigned int link_bytes;
	bool in_order;
};

/* A configuration of spec/ftpu.toml by its FTPU_DEV_<D>_* name. */
#define SOC_DEVICE_SPEC_CONFIG(D)                                              \
	{                                                                      \
		.n = FTPU_DEV_##D##_N, .row_delay = FTPU_DEV_##D##_ROW_DELAY,  \
		.ub_vectors = FTPU_DEV_##D##_UB_VECTORS,                       \
		.wm_rows = FTPU_DEV_##D##_WM_ROWS,                             \
		.acc_vectors = FTPU_DEV_##D##_ACC_VECTORS,                     \
		.bias_vectors = FTPU_DEV_##D##_BIAS_VECTORS,                   \
		.rx_words = FTPU_DEV_##D##_IQ_WORDS,                           \
		.clock_hz = FTPU_DEV_##D##_CLOCK_HZ,                           \
		.link_bytes = FTPU_DEV_##D##_LINK_BYTES,                       \
		.in_order = FTPU_DEV_##D##_IN_ORDER }

/* The large arrays: the memories (UB, WM, ACC, BIAS one after the other,
 * vector after vector: bf16 pairs per word in UB and WM, element 2k in
 * bits 15:0, fp32 in ACC and BIAS), the receiver's payload, the ring. The
 * target keeps them out of .bss (start-up would take too long to clear
 * them); soc_device_init() clears the memories. */
struct soc_storage {
	uint32_t mem[SOC_MEM_WORDS];
	uint32_t rx_buf[SOC_RX_BUF_WORDS];
	uint8_t ring[SOC_RING_BYTES];
};

struct soc_device {
	struct soc_device_config cfg;
	struct soc_storage *m;
	struct soc_ring ring;
	struct ftpu_link_rx rx;
	struct ftpu_link_rx_cb cb;
	uint32_t timeout; /* cycles */
	/* By memory (FTPU_MEM_*): where it starts, its vectors, words each. */
	uint32_t *mem[4];
	uint32_t vectors[4], words[4], shift[4]; /* words = 1 << shift */
	uint32_t mem_total; /* words of all four */

	/* The array's weight buffers, as the model's tiles. */
	unsigned int cur;
	bool cur_valid, next_valid;

	/* Program decoder (the model's). */
	bool in_program, discarding;
	uint32_t instr[FTPU_ISA_WORDS];
	unsigned int instr_have;
	uint32_t pc;
	uint32_t data_left; /* HOST_READ words still to come */
	uint32_t data_k;    /* words of data_vec filled */
	uint32_t data_words;
	uint32_t *data_to;  /* where data_vec goes when full */
	uint32_t data_vec[SOC_MAX_N];
	uint32_t frame_left; /* words of the running PROGRAM frame not taken */

	uint32_t faults, fault_pc, fault_code, fault_instr;
	/* Counters since RESET / CLEAR_COUNTERS. */
	uint64_t t0, busy, macs, in0, bytes_out;
	uint32_t instructions;
	uint32_t array_timeouts; /* the array never answered (hardware) */

	uint32_t tx_crc; /* PCRC of the frame being sent */
};

/* Sets d up in its reset state on storage m (memories cleared). Returns
 * FTPU_PROTO_OK, or FTPU_PROTO_ERR_INVALID for NULL arguments or a
 * configuration beyond the storage's capacities (the model's limits, and
 * SOC_RING_NEED(rx_words) within the ring). */
int soc_device_init(struct soc_device *d, struct soc_storage *m,
		    const struct soc_device_config *cfg);

/* One turn of the main loop: pump, then feed the receiver a chunk of the
 * ring (running the frames it completes), or time a cut-short frame out,
 * or, with nothing to do, turn the busy LED off. */
void soc_device_step(struct soc_device *d);

/* Nothing received is waiting in the ring. */
bool soc_device_drained(const struct soc_device *d);

#endif /* FW_SOC_DEVICE_H */
