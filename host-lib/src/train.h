/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train.h - train.c's step in halves around the logits, for replicas that
 * split a model's hidden units (replicas.c, docs/training.md "Replicas"):
 * each share computes its part of the logits, the host sums the parts and
 * takes the loss, and each share runs its backward pass and update with
 * the loss gradient. On the device only.
 */
#ifndef FTPU_TRAIN_H
#define FTPU_TRAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "ftpu.h"

/* ftpu_train_create, placed on the device; with partial_logits the
 * forward pass leaves the last layer's bias out of the logits (a share
 * other than the first: the sum adds the bias once). */
int ftpu__train_create_share(ftpu_device *dev, const struct ftpu_train_config *cfg,
			     bool partial_logits, ftpu_trainer **out);
/* The forward pass of rows samples (fp32, or bytes for a U8 trainer):
 * logits (rows x classes) as ftpu_train_logits gives them. The device
 * keeps what the backward pass needs until its next program. */
int ftpu__train_forward(ftpu_trainer *t, const void *x, bool u8, size_t rows, float *logits);
/* The backward pass and the optimizer's update (Adam step steps + 1) with
 * dz, the loss gradient by the logits (rows x classes) of the forward
 * pass just run: FTPU_ERR_STATE when the device holds no forward pass of
 * rows rows. The trainer's stats are both halves'. */
int ftpu__train_backward(ftpu_trainer *t, const float *dz, size_t rows);

#endif /* FTPU_TRAIN_H */
