/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_host.c - ftpu_train_* with the weights and the optimizer on the
 * host (train_host.h): for a device without the vector unit, or whose
 * memories cannot hold the model (docs/training.md, Placement).
 *
 * The step is train.c's, operation for operation: the matmuls run on the
 * device through ftpu_gemm_bf16 (bf16 operands, fp32 in the sequential k
 * order, as the device's programs multiply), everything else on the host
 * with the vector unit's operations of proto/numeric.h (bias add, ReLU and
 * its derivative, the batch's pairwise bias sum, Adam's 1/sqrt and 1/x by
 * their seeds and Newton steps). Matrices are padded to the device's array
 * size as the device's programs pad them, so a host trainer and a device
 * trainer of the same model on the same array give the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "numeric.h"
#include "train_host.h"

struct ftpu__host_trainer {
	ftpu_device *dev;
	struct ftpu_train_config cfg;
	size_t nl, w[FTPU_TRAIN_MAX_LAYERS + 1]; /* widths */
	size_t D[FTPU_TRAIN_MAX_LAYERS + 1], Bp;  /* padded to the array */
	/* per layer, padded: W D[l] x D[l+1] row-major, b D[l+1]; fp32 bits */
	uint32_t *W[FTPU_TRAIN_MAX_LAYERS], *b[FTPU_TRAIN_MAX_LAYERS];
	uint32_t *m1W[FTPU_TRAIN_MAX_LAYERS], *m1b[FTPU_TRAIN_MAX_LAYERS];
	uint32_t *m2W[FTPU_TRAIN_MAX_LAYERS], *m2b[FTPU_TRAIN_MAX_LAYERS];
	/* a step's scratch: A_l (bf16, Bp x D[l]), Z_l (fp32, Bp x D[l+1]) */
	uint16_t *A[FTPU_TRAIN_MAX_LAYERS + 1];
	uint32_t *Z[FTPU_TRAIN_MAX_LAYERS];
	uint16_t *Wb;         /* a layer's bf16 weights */
	/* the gradients, all of them before any update: a step that fails on
	 * the device leaves the weights and slots as they were */
	uint32_t *gW[FTPU_TRAIN_MAX_LAYERS], *gb[FTPU_TRAIN_MAX_LAYERS];
	uint32_t *dZ, *dA, *col;
	uint16_t *dZb;
	float *lg, *dz;       /* logits and their gradient, rows x classes */
};



static size_t pad(size_t v, unsigned n) { return (v + n - 1) / n * n; }

void ftpu__host_train_destroy(struct ftpu__host_trainer *h)
{
	if (!h)
		return;
	for (size_t l = 0; l < h->nl; l++) {
		free(h->W[l]), free(h->b[l]), free(h->m1W[l]), free(h->m1b[l]);
		free(h->m2W[l]), free(h->m2b[l]), free(h->Z[l]), free(h->gW[l]), free(h->gb[l]);
	}
	for (size_t l = 0; l <= h->nl; l++)
		free(h->A[l]);
	free(h->Wb), free(h->dZ), free(h->dA), free(h->col), free(h->dZb);
	free(h->lg), free(h->dz);
	free(h);
}

int ftpu__host_train_create(ftpu_device *dev, const struct ftpu_train_config *cfg, unsigned n,
			    struct ftpu__host_trainer **out)
{
	struct ftpu__host_trainer *h = calloc(1, sizeof(*h));
	if (!h)
		return FTPU_ERR_NOMEM;
	h->dev = dev;
	h->cfg = *cfg;
	h->nl = cfg->n_layers;
	size_t widest = 0;
	for (size_t l = 0; l <= h->nl; l++) {
		h->w[l] = cfg->widths[l], h->D[l] = pad(cfg->widths[l], n);
		widest = h->D[l] > widest ? h->D[l] : widest;
	}
	h->cfg.widths = h->w;
	h->Bp = pad(cfg->batch, n);
	bool ok = true;
	size_t max_w = 0;
	for (size_t l = 0; l < h->nl; l++) {
		size_t nw = h->D[l] * h->D[l + 1], nb = h->D[l + 1];
		max_w = nw > max_w ? nw : max_w;
		ok &= !!(h->W[l] = calloc(nw, 4)) & !!(h->m1W[l] = calloc(nw, 4)) &
		      !!(h->m2W[l] = calloc(nw, 4)) & !!(h->b[l] = calloc(nb, 4)) &
		      !!(h->m1b[l] = calloc(nb, 4)) & !!(h->m2b[l] = calloc(nb, 4)) &
		      !!(h->Z[l] = calloc(h->Bp * nb, 4)) & !!(h->gW[l] = malloc(nw * 4)) &
		      !!(h->gb[l] = malloc(nb * 4));
	}
	for (size_t l = 0; l <= h->nl; l++)
		ok &= !!(h->A[l] = calloc(h->Bp * h->D[l], 2));
	const size_t classes = h->w[h->nl];
	ok &= !!(h->Wb = malloc(max_w * 2)) &
	      !!(h->dZ = malloc(h->Bp * widest * 4)) & !!(h->dA = malloc(h->Bp * widest * 4)) &
	      !!(h->dZb = malloc(h->Bp * widest * 2)) & !!(h->col = malloc(h->Bp * 4)) &
	      !!(h->lg = malloc(cfg->batch * classes * 4)) &
	      !!(h->dz = malloc(cfg->batch * classes * 4));
	if (!ok) {
		ftpu__host_train_destroy(h);
		return FTPU_ERR_NOMEM;
	}
	*out = h;
	return FTPU_OK;
}

/* C (m x n, fp32 bits) = op(A) op(B) on the device, its counters into st. */
static int gemm(struct ftpu__host_trainer *h, enum ftpu_transpose ta, enum ftpu_transpose tb,
		size_t m, size_t n, size_t k, const uint16_t *a, size_t lda, const uint16_t *b,
		size_t ldb, uint32_t *c, struct ftpu_train_stats *st)
{
	/* fp32 bits and floats share their storage (alpha 1, beta 0 copy bits) */
	int ret = ftpu_gemm_bf16(h->dev, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, (float *)c,
				 n);
	struct ftpu_stats s;
	if (!ret && !ftpu_last_stats(h->dev, &s)) {
		st->cycles += s.cycles, st->macs += s.macs, st->instructions += s.instructions;
		st->bytes_in += s.bytes_in, st->bytes_out += s.bytes_out;
	}
	return ret;
}

static void to_bf16(uint16_t *o, const uint32_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o[i] = ftpu_f32_to_bf16(x[i]);
}

int ftpu__host_train_logits(struct ftpu__host_trainer *h, const void *x, bool u8, size_t rows,
			    float *logits, struct ftpu_train_stats *st)
{
	const size_t in = h->w[0], D0 = h->D[0];
	memset(h->A[0], 0, h->Bp * D0 * 2);
	for (size_t r = 0; r < rows; r++)
		for (size_t i = 0; i < in; i++) {
			/* UNORM8 as the device stores a byte: bf16(p / 255) */
			float v = u8 ? (float)((const uint8_t *)x)[r * in + i] / 255.0f
				     : ((const float *)x)[r * in + i];
			h->A[0][r * D0 + i] = ftpu_f32_to_bf16(ftpu_f32_bits(v));
		}
	for (size_t l = 0; l < h->nl; l++) {
		const size_t K = h->D[l], Nn = h->D[l + 1];
		to_bf16(h->Wb, h->W[l], K * Nn);
		int ret = gemm(h, FTPU_NO_TRANS, FTPU_NO_TRANS, h->Bp, Nn, K, h->A[l], K, h->Wb, Nn,
			       h->Z[l], st);
		if (ret)
			return ret;
		const bool relu = l + 1 < h->nl;
		for (size_t r = 0; r < h->Bp; r++)
			for (size_t j = 0; j < Nn; j++) {
				uint32_t *z = &h->Z[l][r * Nn + j];
				*z = ftpu_ref_add(*z, h->b[l][j]);
				if (relu)
					*z = ftpu_ref_max(*z, 0);
			}
		if (relu)
			to_bf16(h->A[l + 1], h->Z[l], h->Bp * Nn);
	}
	if (logits) {
		const size_t classes = h->w[h->nl], Dt = h->D[h->nl];
		for (size_t r = 0; r < rows; r++)
			for (size_t j = 0; j < classes; j++)
				logits[r * classes + j] = ftpu_f32_value(h->Z[h->nl - 1][r * Dt + j]);
	}
	return FTPU_OK;
}

/* The batch's pairwise sum of train.c's emit_tree_sum: [i] += [i + n - h]. */
static uint32_t tree_sum(uint32_t *v, size_t n)
{
	if (n == 1)
		return ftpu_ref_add(v[0], 0x80000000u);
	while (n > 1) {
		size_t half = n / 2;
		for (size_t i = 0; i < half; i++)
			v[i] = ftpu_ref_add(v[i], v[i + n - half]);
		n -= half;
	}
	return v[0];
}

/* Keras' Adam as train.c's emit_adam runs it on the vector unit. */
static void adam(const struct ftpu_train_config *c, uint32_t *w, uint32_t *m, uint32_t *v,
		 uint32_t g, uint32_t alpha)
{
	const uint32_t c1 = ftpu_f32_bits(1.0f - c->beta1), c2 = ftpu_f32_bits(1.0f - c->beta2);
	*m = ftpu_ref_add(*m, ftpu_ref_fmul(ftpu_ref_sub(g, *m), c1));
	*v = ftpu_ref_add(*v, ftpu_ref_fmul(ftpu_ref_sub(ftpu_ref_fmul(g, g), *v), c2));
	const uint32_t x = ftpu_ref_add(*v, DELTA_BITS), half = ftpu_ref_fmul(x, ftpu_f32_bits(0.5f));
	uint32_t y = ftpu_ref_seed(x, RSQRT_MAGIC, 1);
	for (int i = 0; i < RSQRT_STEPS; i++)
		y = ftpu_ref_fmul(y, ftpu_ref_sub(ftpu_f32_bits(1.5f), ftpu_ref_fmul(half, ftpu_ref_fmul(y, y))));
	const uint32_t d = ftpu_ref_add(ftpu_ref_fmul(x, y), ftpu_f32_bits(c->epsilon));
	uint32_t z = ftpu_ref_seed(d, RECIP_MAGIC, 0);
	for (int i = 0; i < RECIP_STEPS; i++)
		z = ftpu_ref_fmul(z, ftpu_ref_sub(ftpu_f32_bits(2.0f), ftpu_ref_fmul(d, z)));
	*w = ftpu_ref_sub(*w, ftpu_ref_fmul(ftpu_ref_fmul(*m, alpha), z));
}

/* Keras' SGD with momentum as train.c's emit_sgd. */
static void sgd(const struct ftpu_train_config *c, uint32_t *w, uint32_t *m, uint32_t g)
{
	const uint32_t t = ftpu_ref_fmul(g, ftpu_f32_bits(-c->learning_rate));
	*m = ftpu_ref_add(ftpu_ref_fmul(*m, ftpu_f32_bits(c->momentum)), t);
	*w = ftpu_ref_add(*w, *m);
}

static void update(const struct ftpu_train_config *c, uint32_t *w, uint32_t *m1, uint32_t *m2,
		   const uint32_t *g, size_t n, uint32_t alpha)
{
	for (size_t i = 0; i < n; i++) {
		if (c->optimizer == FTPU_OPTIMIZER_ADAM)
			adam(c, &w[i], &m1[i], &m2[i], g[i], alpha);
		else
			sgd(c, &w[i], &m1[i], g[i]);
	}
}

double ftpu__train_softmax(const float *logits, const uint8_t *labels, size_t rows, size_t out,
			   size_t divisor, float *dz)
{
	const float inv = 1.0f / (float)divisor;
	double sum = 0.0;
	for (size_t b = 0; b < rows; b++, logits += out, dz += out) {
		float mx = logits[0], s = 0.0f;
		for (size_t j = 1; j < out; j++)
			mx = logits[j] > mx ? logits[j] : mx;
		for (size_t j = 0; j < out; j++) {
			dz[j] = expf(logits[j] - mx);
			s += dz[j];
		}
		sum += (double)(logf(s) - (logits[labels[b]] - mx));
		for (size_t j = 0; j < out; j++)
			dz[j] = (dz[j] / s - (j == labels[b] ? 1.0f : 0.0f)) * inv;
	}
	return sum;
}

int ftpu__host_train_gradient(struct ftpu__host_trainer *h, const void *x, bool u8,
			      const uint8_t *labels, size_t rows, size_t divisor, double *loss_sum,
			      struct ftpu_train_stats *st)
{
	int ret = ftpu__host_train_logits(h, x, u8, rows, h->lg, st);
	if (ret)
		return ret;
	const size_t nl = h->nl, Bp = h->Bp, classes = h->w[nl];
	*loss_sum = ftpu__train_softmax(h->lg, labels, rows, classes, divisor, h->dz);

	/* dZ of the top layer: the gradient as the device gets it, bf16 */
	const size_t Dt = h->D[nl];
	memset(h->dZ, 0, Bp * Dt * 4);
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < classes; j++)
			h->dZ[r * Dt + j] =
				ftpu_bf16_to_f32(ftpu_f32_to_bf16(ftpu_f32_bits(h->dz[r * classes + j])));

	/* Layer by layer, last first, as the device's backward program */
	for (size_t l = nl; l-- > 0;) {
		const size_t Din = h->D[l], Dout = h->D[l + 1];
		to_bf16(h->dZb, h->dZ, Bp * Dout);
		/* db: the pairwise sum over the padded batch, column by column */
		for (size_t j = 0; j < Dout; j++) {
			for (size_t r = 0; r < Bp; r++)
				h->col[r] = h->dZ[r * Dout + j];
			h->gb[l][j] = tree_sum(h->col, Bp);
		}
		/* dW = A^T dZ: the products and their k (batch) order of dW^T = dZ^T A */
		if ((ret = gemm(h, FTPU_TRANS, FTPU_NO_TRANS, Din, Dout, Bp, h->A[l], Din, h->dZb,
				Dout, h->gW[l], st)))
			return ret;
		if (l == 0)
			break;
		to_bf16(h->Wb, h->W[l], Din * Dout);
		if ((ret = gemm(h, FTPU_NO_TRANS, FTPU_TRANS, Bp, Din, Dout, h->dZb, Dout, h->Wb,
				Dout, h->dA, st)))
			return ret;
		for (size_t k = 0; k < Bp * Din; k++)
			h->dZ[k] = ftpu_ref_select(h->Z[l - 1][k], h->dA[k], 0);
	}
	return FTPU_OK;
}

void ftpu__host_train_apply(struct ftpu__host_trainer *h, uint64_t steps)
{
	const size_t nl = h->nl;
	uint32_t alpha = 0;
	if (h->cfg.optimizer == FTPU_OPTIMIZER_ADAM) {
		/* Keras: alpha = lr sqrt(1 - b2^t) / (1 - b1^t), in double */
		const struct ftpu_train_config *c = &h->cfg;
		double t = (double)(steps + 1);
		alpha = ftpu_f32_bits((float)(c->learning_rate * sqrt(1.0 - pow(c->beta2, t)) /
				     (1.0 - pow(c->beta1, t))));
	}
	for (size_t l = 0; l < nl; l++) {
		update(&h->cfg, h->W[l], h->m1W[l], h->m2W[l], h->gW[l], h->D[l] * h->D[l + 1],
		       alpha);
		update(&h->cfg, h->b[l], h->m1b[l], h->m2b[l], h->gb[l], h->D[l + 1], alpha);
	}
}

int ftpu__host_train_step(struct ftpu__host_trainer *h, const void *x, bool u8,
			  const uint8_t *labels, size_t rows, uint64_t steps, float *loss,
			  struct ftpu_train_stats *st)
{
	double sum;
	int ret = ftpu__host_train_gradient(h, x, u8, labels, rows, rows, &sum, st);
	if (ret)
		return ret;
	ftpu__host_train_apply(h, steps);
	if (loss)
		*loss = (float)(sum / (double)rows);
	return FTPU_OK;
}

/* The padded arrays of part (FTPU__TRAIN_GRADIENT: the gradients). */
static uint32_t *part_W(const struct ftpu__host_trainer *h, int part, size_t l)
{
	return part == FTPU_TRAIN_PARAMS ? h->W[l] : part == FTPU_TRAIN_SLOT1 ? h->m1W[l]
					   : part == FTPU_TRAIN_SLOT2 ? h->m2W[l] : h->gW[l];
}

static uint32_t *part_b(const struct ftpu__host_trainer *h, int part, size_t l)
{
	return part == FTPU_TRAIN_PARAMS ? h->b[l] : part == FTPU_TRAIN_SLOT1 ? h->m1b[l]
					   : part == FTPU_TRAIN_SLOT2 ? h->m2b[l] : h->gb[l];
}

void ftpu__host_train_read(const struct ftpu__host_trainer *h, int part, float *values)
{
	size_t k = 0;
	for (size_t l = 0; l < h->nl; l++) {
		const uint32_t *W = part_W(h, part, l), *b = part_b(h, part, l);
		for (size_t i = 0; i < h->w[l]; i++)
			for (size_t j = 0; j < h->w[l + 1]; j++)
				values[k++] = ftpu_f32_value(W[i * h->D[l + 1] + j]);
		for (size_t j = 0; j < h->w[l + 1]; j++)
			values[k++] = ftpu_f32_value(b[j]);
	}
}

void ftpu__host_train_write(struct ftpu__host_trainer *h, int part, const float *values)
{
	size_t k = 0;
	for (size_t l = 0; l < h->nl; l++) {
		uint32_t *W = part_W(h, part, l), *b = part_b(h, part, l);
		for (size_t i = 0; i < h->w[l]; i++)
			for (size_t j = 0; j < h->w[l + 1]; j++)
				W[i * h->D[l + 1] + j] = ftpu_f32_bits(values[k++]);
		for (size_t j = 0; j < h->w[l + 1]; j++)
			b[j] = ftpu_f32_bits(values[k++]);
	}
}
