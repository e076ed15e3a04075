/* SPDX-License-Identifier: Apache-2.0 */
/*
 * checkpoint.h - everything a training run needs to go on exactly where
 * it stopped (--checkpoint, --resume): the weights, Adam's moments and
 * step count, the position in the data (epoch, step, this epoch's sample
 * order and the shuffling RNG after it), every step's loss and the log.
 * Training resumed from a checkpoint takes the same steps on the same
 * batches as training that never stopped: the same weights and losses,
 * bit for bit (tests/examples/test_fashion_mnist.c).
 */
#ifndef FM_CHECKPOINT_H
#define FM_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "mlp.h"
#include "plot.h"

struct checkpoint {
	/* the run it belongs to: resuming with other values is refused */
	uint64_t seed;
	uint32_t batch;    /* the global batch (every replica's rows) */
	uint32_t n_train;  /* training samples used (the first n_train) */
	uint32_t data_crc; /* checkpoint_data_crc of them */
	uint32_t epochs;   /* the epochs it was asked for (resuming's default) */
	/* where training stands */
	uint32_t epoch;         /* 1-based: the epoch in progress (or just done) */
	uint32_t step;          /* its steps done: 0..checkpoint_steps() */
	struct mlp_rng shuffle; /* the shuffling RNG after this epoch's shuffle */
	uint32_t *order;        /* this epoch's sample order, n_train indices */
	float *losses;          /* every step's loss so far, all epochs */
	size_t n_losses, losses_cap;
	struct log_row *rows;   /* the log so far (CSV and chart) */
	size_t n_rows, rows_cap;
	struct mlp model;       /* weights, moments, Adam's steps and settings */
};

/* Steps in an epoch: ceil(n_train / batch). */
size_t checkpoint_steps(const struct checkpoint *c);

/* CRC-32 of n samples' pixels (n * pixels bytes) and labels: a checkpoint
 * of other data is refused. */
uint32_t checkpoint_data_crc(const uint8_t *px, const uint8_t *labels, size_t n, size_t pixels);

/* Appending, growing the arrays; FTPU_ERR_NOMEM when out of memory. */
int checkpoint_add_loss(struct checkpoint *c, float loss);
int checkpoint_add_row(struct checkpoint *c, const struct log_row *row);

/*
 * The file (little-endian; binfile.h: written atomically, CRC-32 last):
 *    0  8  magic "FTPU-CKP"
 *    8  4  format version (1)
 *   12  4  in, 16 hid, 20 out (u32)
 *   24  4  batch, 28 n_train, 32 8 seed, 40 4 data CRC
 *   44  4  epoch, 48 4 step, 52 4 log rows (R), 56 8 Adam's steps
 *   64  8  shuffling RNG state, 72 8 steps so far (S)
 *   80 16  Adam's lr, beta1, beta2, epsilon (fp32), 96 4 epochs asked for
 *  100  .. parameters, first moments, second moments (fp32, mlp.h's
 *          layout), order (u32 x n_train), losses (fp32 x S), log rows
 *          (R x 52 bytes: epoch u32, step u64, x, loss, accuracy,
 *          seconds, utilization as f64)
 *  end  4  CRC-32 of every byte before it
 * Load refuses, with one line that names the file: a foreign file (magic),
 * a newer version (FTPU_ERR_UNSUPPORTED), a length other than the header
 * announces, a CRC mismatch, and contents that cannot be a run (an order
 * that is not a permutation, non-finite weights, negative second moments,
 * a position that disagrees with the steps) (FTPU_ERR_CORRUPT); a
 * missing file is FTPU_ERR_NOT_FOUND. A failed load leaves c untouched.
 */
int checkpoint_save(const struct checkpoint *c, const char *path, char *err, size_t errlen);
int checkpoint_load(struct checkpoint *c, const char *path, char *err, size_t errlen);
void checkpoint_free(struct checkpoint *c);

#endif /* FM_CHECKPOINT_H */
