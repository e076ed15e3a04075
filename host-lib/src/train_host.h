/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_host.h - the trainer that keeps the weights and the optimizer on
 * the host (train_host.c), for devices that cannot hold them: every matmul
 * through ftpu_gemm_bf16, the rest on the host with the vector unit's
 * operations (proto/numeric.h), so it computes what the device's own
 * programs (train.c) compute, bit for bit. train.c's ftpu_train_* calls
 * hand their work here when a trainer is placed on the host.
 */
#ifndef FTPU_TRAIN_HOST_H
#define FTPU_TRAIN_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "ftpu.h"

/* Adam's constants, the same in both trainers: 1/sqrt and 1/x as
 * docs/numerics.md defines them (seed, Newton steps); v + 2^-100 under the
 * square root keeps 1/sqrt(v) finite at v = 0 (a weight whose input is 0
 * for every sample) and moves sqrt(v) by at most 2^-50, far below epsilon. */
#define RSQRT_MAGIC 0x5F3759DFu
#define RECIP_MAGIC 0x7EF311C3u
#define RSQRT_STEPS 2
#define RECIP_STEPS 3
#define DELTA_BITS 0x0D800000u /* 2^-100 */

struct ftpu__host_trainer;

/* cfg checked by the caller; n is the device's array size (the padding
 * the device's programs would use). FTPU_ERR_NOMEM only. */
int ftpu__host_train_create(ftpu_device *dev, const struct ftpu_train_config *cfg, unsigned n,
			    struct ftpu__host_trainer **out);
void ftpu__host_train_destroy(struct ftpu__host_trainer *h);

/* x: rows x widths[0] fp32, or bytes when u8. The forward pass; the
 * logits (rows x widths[n_layers]) into logits when it is not NULL.
 * The GEMMs' device counters are added to *st. */
int ftpu__host_train_logits(struct ftpu__host_trainer *h, const void *x, bool u8, size_t rows,
			    float *logits, struct ftpu_train_stats *st);
/* The first half of a step: forward, softmax cross-entropy (the loss
 * gradient divided by divisor), backward into the gradients; *loss_sum the
 * rows' summed loss. Nothing is updated. */
int ftpu__host_train_gradient(struct ftpu__host_trainer *h, const void *x, bool u8,
			      const uint8_t *labels, size_t rows, size_t divisor, double *loss_sum,
			      struct ftpu_train_stats *st);
/* The second: the update with the gradients held, as Adam step steps + 1. */
void ftpu__host_train_apply(struct ftpu__host_trainer *h, uint64_t steps);
/* One step: gradient (divisor rows) and apply. */
int ftpu__host_train_step(struct ftpu__host_trainer *h, const void *x, bool u8,
			  const uint8_t *labels, size_t rows, uint64_t steps, float *loss,
			  struct ftpu_train_stats *st);
/* The flat arrays of ftpu_train_read / ftpu_train_write: an enum
 * ftpu_train_part, or the gradients. */
#define FTPU__TRAIN_GRADIENT 3
void ftpu__host_train_read(const struct ftpu__host_trainer *h, int part, float *values);
void ftpu__host_train_write(struct ftpu__host_trainer *h, int part, const float *values);

/* Softmax cross-entropy as both trainers compute it: logits rows x out;
 * dz = (softmax - onehot) / divisor (the global batch's rows); returns the
 * summed loss (in double). */
double ftpu__train_softmax(const float *logits, const uint8_t *labels, size_t rows, size_t out,
			   size_t divisor, float *dz);

#endif /* FTPU_TRAIN_HOST_H */
