/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mlp.h - a two-layer perceptron (in -> hid ReLU -> out, softmax
 * cross-entropy) trained with Adam, in one of two ways:
 *  - on the device (mlp_device_attach: ftpu_train_*, docs/training.md):
 *    weights and Adam's slots live on the device, the host sends batches
 *    and computes the softmax; the struct mlp's copies are stale until
 *    mlp_device_sync;
 *  - every matmul through a backend, an ftpu device (ftpu_gemm: bf16
 *    operands, fp32 accumulation) or plain fp32 loops on the host, and
 *    everything else (bias, ReLU, softmax, loss, bias gradients, Adam) on
 *    the host in fp32 on fp32 master weights ("gemm" mode).
 *
 * Failures return a negative enum ftpu_status with one line in err (the
 * backend's device error, or what was wrong with a file).
 */
#ifndef FM_MLP_H
#define FM_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collective.h"
#include "ftpu.h"

/* splitmix64: weights, shuffles and synthetic data of tests. */
struct mlp_rng {
	uint64_t s;
};
uint64_t mlp_rng_next(struct mlp_rng *r);
/* Uniform in [0, 1) with 24 random bits. */
float mlp_rng_float(struct mlp_rng *r);
/* Uniform in [0, n), n >= 1. */
size_t mlp_rng_below(struct mlp_rng *r, size_t n);

enum mlp_backend_kind { MLP_SIM, MLP_REF, MLP_CPU };

struct mlp_backend {
	enum mlp_backend_kind kind;
	const char *name;    /* "sim", "ref", "cpu" */
	ftpu_device *dev;    /* NULL for cpu */
	unsigned rows, cols; /* the device's array (0 for cpu) */
	unsigned threads;    /* the simulation's threads (1 but for sim:threads=2) */
	/* Totals over the GEMMs since open or mlp_backend_clear(), from
	 * ftpu_last_stats: the device's own counters. */
	uint64_t gemms, macs, cycles, bytes_in, bytes_out;
	double gemm_seconds; /* host wall time inside the GEMM (or step) calls */
	bool vector_unit;    /* the device can train on itself */
	ftpu_trainer *trainer; /* set by mlp_device_attach */
	size_t train_batch;    /* its batch: ftpu_train_logits takes as many */
	bool pixel_input;      /* the trainer takes bytes (mlp_*_px only) */
	double compile_seconds, first_step_seconds, step_seconds; /* steps after the first */
	uint64_t steps;        /* on the device since attach */
	/* Replicas (docs/demo.md): the global batch split in order over
	 * several devices, their gradients summed in replica order before
	 * every update, so every device applies the same bits. Either
	 * threads in this process (mlp_backend_open_replicas: a device and a
	 * trainer per URI, ftpu_replicas) or the ranks of an MPI job
	 * (mlp_backend_join: this process's device is its rank's replica).
	 * Threads may split the hidden units instead: each device takes the
	 * whole batch through its share (FTPU_REPLICAS_SPLIT_UNITS). */
	const char *const *uris; /* mlp_backend_open_replicas' */
	size_t replicas;         /* 1 without either */
	bool split_units;        /* mlp_backend_open_replicas' */
	ftpu_replicas *group;    /* the threads' trainers, from attach */
	const struct mlp_collective *coll; /* an MPI job with more than one rank */
	float *grad, *grads;     /* MPI: this rank's gradient, every rank's */
	char err[512];	     /* the last failure */
};

/* Opens "sim", "ref" or "cpu" (sim and ref through ftpu_open); sim_threads
 * picks the simulated device's build (sim:threads=N: 1 or 2; 0 is 1). */
int mlp_backend_open(struct mlp_backend *be, const char *name, unsigned sim_threads);
/* A backend of n devices (URIs: sim, ref, boards), one replica each, in
 * threads, splitting the batch or (split_units) the hidden units: opened
 * by mlp_device_attach(_px), which must follow (only training on the
 * device is replicated). uris must outlive be. */
int mlp_backend_open_replicas(struct mlp_backend *be, const char *const *uris, size_t n,
			      bool split_units);
/* Makes be (opened with mlp_backend_open) this rank's replica of an MPI
 * job of c->ranks: steps take the global batch, train on this rank's
 * share and meet the other ranks at every update. Before attach. */
void mlp_backend_join(struct mlp_backend *be, const struct mlp_collective *c);
void mlp_backend_close(struct mlp_backend *be);
void mlp_backend_clear(struct mlp_backend *be);
/* macs / (rows * cols * cycles) over the totals; 0 without cycles. */
double mlp_backend_utilization(const struct mlp_backend *be);

/* C = op(A) * op(B) (alpha 1, beta 0), row-major as ftpu_gemm. */
int mlp_gemm(struct mlp_backend *be, bool trans_a, bool trans_b, size_t m,
	     size_t n, size_t k, const float *a, size_t lda, const float *b,
	     size_t ldb, float *c, size_t ldc);

struct mlp_adam {
	float lr, beta1, beta2, eps;
};
/* Keras' defaults: 1e-3, 0.9, 0.999, 1e-7. */
#define MLP_ADAM_DEFAULT ((struct mlp_adam){1e-3f, 0.9f, 0.999f, 1e-7f})

struct mlp {
	size_t in, hid, out;
	/* Parameters in one array: w1 (in x hid), b1 (hid), w2 (hid x out),
	 * b2 (out); gradients and Adam's moments in the same layout. */
	size_t n_params;
	float *params, *grads, *m, *v;
	float *w1, *b1, *w2, *b2;
	float *gw1, *gb1, *gw2, *gb2;
	uint64_t t; /* Adam steps taken */
	struct mlp_adam adam;
	/* scratch for batches of up to cap rows */
	size_t cap;
	float *z1, *h, *z2, *dz2, *dh;
};

/* A model of zero parameters and moments, Adam's defaults. */
int mlp_alloc(struct mlp *m, size_t in, size_t hid, size_t out, char *err,
	      size_t errlen);
/* Glorot-uniform weights from seed, zero biases, zero moments. */
int mlp_init(struct mlp *m, size_t in, size_t hid, size_t out, uint64_t seed,
	     char *err, size_t errlen);
void mlp_free(struct mlp *m);

/* Moves training onto the device (be must have the vector unit): compiles
 * the step for batches of up to batch rows (the global batch with
 * replicas) and writes m's weights, Adam's slots and step count there.
 * Later mlp_train_step and mlp_logits run on the device. */
int mlp_device_attach(struct mlp *m, struct mlp_backend *be, size_t batch);
/* The same with byte input: the device receives the pixels themselves
 * (half the link bytes of bf16, FTPU_TRAIN_INPUT_U8) and sees p / 255;
 * train and predict with mlp_train_step_px and mlp_predict_px. */
int mlp_device_attach_px(struct mlp *m, struct mlp_backend *be, size_t batch);
/* Reads the device's weights, slots and step count back into m. */
int mlp_device_sync(struct mlp *m, struct mlp_backend *be);

/* One step on a batch of n rows x (n x in), labels y (< out): forward,
 * backward, Adam. *loss is the batch's mean cross-entropy before the step. */
int mlp_train_step(struct mlp *m, struct mlp_backend *be, const float *x,
		   const uint8_t *y, size_t n, float *loss);

/* Logits (n x out) of n rows; the whole batch through each layer at once
 * (so a device keeps each layer's weights resident). */
int mlp_logits(const struct mlp *m, struct mlp_backend *be, const float *x,
	       size_t n, float *logits);

/* Predicted classes of n rows (argmax of the logits). */
int mlp_predict(const struct mlp *m, struct mlp_backend *be, const float *x,
		size_t n, uint8_t *pred);

/* The input of pixel p (the device's UNORM8 gives its bf16 exactly). */
#define MLP_PIXEL(p) ((float)(p) / 255.0f)
/* mlp_train_step and mlp_predict on pixels (n x in bytes): on a device
 * attached with mlp_device_attach_px the bytes go to it, elsewhere they
 * become MLP_PIXEL floats first. */
int mlp_train_step_px(struct mlp *m, struct mlp_backend *be, const uint8_t *px,
		      const uint8_t *y, size_t n, float *loss);
int mlp_predict_px(const struct mlp *m, struct mlp_backend *be, const uint8_t *px,
		   size_t n, uint8_t *pred);

/*
 * The weight file (little-endian):
 *    0  8  magic "FTPU-MLP"
 *    8  4  format version (1)
 *   12  4  in, 16 hid, 20 out (u32)
 *   24  8  Adam steps taken (u64, informational)
 *   32  .. w1, b1, w2, b2 as fp32
 *   end 4  CRC-32 (zlib) of every byte before it
 * Save writes a temporary file and renames it over path. Load: a missing
 * file is FTPU_ERR_NOT_FOUND; a foreign, truncated or corrupt one (magic,
 * sizes, length, CRC, non-finite values) FTPU_ERR_CORRUPT; a newer
 * version FTPU_ERR_UNSUPPORTED. Loading makes a new model (no moments).
 */
int mlp_save(const struct mlp *m, const char *path, char *err, size_t errlen);
int mlp_load(struct mlp *m, const char *path, char *err, size_t errlen);

/* n fp32 values as little-endian words at p, and back; a non-finite value
 * read is FTPU_ERR_CORRUPT ("<path>: corrupt: <what> <i> is not finite"). */
void mlp_put_floats(uint8_t *p, const float *v, size_t n);
int mlp_get_floats(float *v, const uint8_t *p, size_t n, const char *path,
		   const char *what, char *err, size_t errlen);

#endif /* FM_MLP_H */
