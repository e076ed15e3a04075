/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_train.c - training on the device (ftpu_train_*, host-lib/src/train.c)
 * on the C model ("ref").
 *
 * Two oracles, both written here from docs/training.md and
 * docs/numerics.md, not from the device programs:
 *  - a mirror of the step on the host, matrix by matrix (row-major, padded
 *    to the array's size as the device pads) with proto/numeric.h's
 *    operations and ftpu_ref_gemm: weights, both optimizer slots and the
 *    loss must equal the device's bit for bit after every step;
 *  - textbook backpropagation in double without padding or bf16: one
 *    plain-SGD step's weight change must point the same way (cosine
 *    > 0.999 per layer), which a transposed or misplaced gradient fails.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu.h"
#include "ftpu_test.h"
#include "numeric.h"


static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float fl(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* n rounded up to the device's array size (the programs' padding) */
static size_t pad(size_t n, size_t array) { return (n + array - 1) / array * array; }

/* ---- the mirror ------------------------------------------------------------- */

struct mirror {
	struct ftpu_train_config cfg;
	size_t nl, w[FTPU_TRAIN_MAX_LAYERS + 1], D[FTPU_TRAIN_MAX_LAYERS + 1], Bp;
	/* per layer, padded: W D[l] x D[l+1], b D[l+1]; slots likewise */
	uint32_t *W[FTPU_TRAIN_MAX_LAYERS], *b[FTPU_TRAIN_MAX_LAYERS];
	uint32_t *mW[FTPU_TRAIN_MAX_LAYERS], *mb[FTPU_TRAIN_MAX_LAYERS];
	uint32_t *vW[FTPU_TRAIN_MAX_LAYERS], *vb[FTPU_TRAIN_MAX_LAYERS];
	uint64_t steps;
};

static void mirror_init(struct mirror *m, const struct ftpu_train_config *cfg, size_t array)
{
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	m->nl = cfg->n_layers;
	for (size_t l = 0; l <= m->nl; l++)
		m->w[l] = cfg->widths[l], m->D[l] = pad(cfg->widths[l], array);
	m->Bp = pad(cfg->batch, array);
	for (size_t l = 0; l < m->nl; l++) {
		size_t nw = m->D[l] * m->D[l + 1], nb = m->D[l + 1];
		m->W[l] = calloc(nw, 4), m->mW[l] = calloc(nw, 4), m->vW[l] = calloc(nw, 4);
		m->b[l] = calloc(nb, 4), m->mb[l] = calloc(nb, 4), m->vb[l] = calloc(nb, 4);
	}
}

static void mirror_free(struct mirror *m)
{
	for (size_t l = 0; l < m->nl; l++)
		free(m->W[l]), free(m->mW[l]), free(m->vW[l]), free(m->b[l]), free(m->mb[l]),
			free(m->vb[l]);
}

/* The flat layout of ftpu_train_read: W_l row-major, then b_l. */
static void mirror_flat(const struct mirror *m, int part, float *out)
{
	size_t k = 0;
	for (size_t l = 0; l < m->nl; l++) {
		const uint32_t *W = part == 0 ? m->W[l] : part == 1 ? m->mW[l] : m->vW[l];
		const uint32_t *b = part == 0 ? m->b[l] : part == 1 ? m->mb[l] : m->vb[l];
		for (size_t i = 0; i < m->w[l]; i++)
			for (size_t j = 0; j < m->w[l + 1]; j++)
				out[k++] = fl(W[i * m->D[l + 1] + j]);
		for (size_t j = 0; j < m->w[l + 1]; j++)
			out[k++] = fl(b[j]);
	}
}

static void mirror_set_params(struct mirror *m, const float *flat)
{
	size_t k = 0;
	for (size_t l = 0; l < m->nl; l++) {
		for (size_t i = 0; i < m->w[l]; i++)
			for (size_t j = 0; j < m->w[l + 1]; j++)
				m->W[l][i * m->D[l + 1] + j] = bits(flat[k++]);
		for (size_t j = 0; j < m->w[l + 1]; j++)
			m->b[l][j] = bits(flat[k++]);
	}
}

static uint16_t *to_bf16(const uint32_t *x, size_t n)
{
	uint16_t *o = malloc(n * 2);
	for (size_t i = 0; i < n; i++)
		o[i] = ftpu_f32_to_bf16(x[i]);
	return o;
}

static uint16_t *transpose16(const uint16_t *x, size_t r, size_t c)
{
	uint16_t *o = malloc(r * c * 2);
	for (size_t i = 0; i < r; i++)
		for (size_t j = 0; j < c; j++)
			o[j * r + i] = x[i * c + j];
	return o;
}

/* Keras' Adam with 1/sqrt and 1/x as docs/numerics.md defines them. */
static void adam(const struct mirror *m, uint32_t *w, uint32_t *mm, uint32_t *vv, uint32_t g,
		 uint32_t alpha)
{
	const uint32_t c1 = bits(1.0f - m->cfg.beta1), c2 = bits(1.0f - m->cfg.beta2);
	*mm = ftpu_ref_add(*mm, ftpu_ref_fmul(ftpu_ref_sub(g, *mm), c1));
	*vv = ftpu_ref_add(*vv, ftpu_ref_fmul(ftpu_ref_sub(ftpu_ref_fmul(g, g), *vv), c2));
	uint32_t x = ftpu_ref_add(*vv, 0x0D800000u); /* + 2^-100 */
	uint32_t y = ftpu_ref_seed(x, 0x5F3759DFu, 1), h = ftpu_ref_fmul(x, bits(0.5f));
	for (int i = 0; i < 2; i++)
		y = ftpu_ref_fmul(y, ftpu_ref_sub(bits(1.5f), ftpu_ref_fmul(h, ftpu_ref_fmul(y, y))));
	uint32_t d = ftpu_ref_add(ftpu_ref_fmul(x, y), bits(m->cfg.epsilon));
	uint32_t z = ftpu_ref_seed(d, 0x7EF311C3u, 0);
	for (int i = 0; i < 3; i++)
		z = ftpu_ref_fmul(z, ftpu_ref_sub(bits(2.0f), ftpu_ref_fmul(d, z)));
	*w = ftpu_ref_sub(*w, ftpu_ref_fmul(ftpu_ref_fmul(*mm, alpha), z));
}

static void sgd(const struct mirror *m, uint32_t *w, uint32_t *mm, uint32_t g)
{
	uint32_t t = ftpu_ref_fmul(g, bits(-m->cfg.learning_rate));
	*mm = ftpu_ref_add(ftpu_ref_fmul(*mm, bits(m->cfg.momentum)), t);
	*w = ftpu_ref_add(*w, *mm);
}

/* The batch's pairwise sum of docs/training.md: [i] += [i + n - h]. */
static uint32_t tree_sum(uint32_t *v, size_t n)
{
	if (n == 1)
		return ftpu_ref_add(v[0], 0x80000000u);
	while (n > 1) {
		size_t h = n / 2;
		for (size_t i = 0; i < h; i++)
			v[i] = ftpu_ref_add(v[i], v[i + n - h]);
		n -= h;
	}
	return v[0];
}

/* One step; the loss into *loss. */
static void mirror_step(struct mirror *m, const float *x, const uint8_t *y, size_t rows,
			float *loss)
{
	const size_t nl = m->nl, Bp = m->Bp;
	uint16_t *A[FTPU_TRAIN_MAX_LAYERS + 1];
	uint32_t *Z[FTPU_TRAIN_MAX_LAYERS];

	A[0] = calloc(Bp * m->D[0], 2);
	for (size_t r = 0; r < rows; r++)
		for (size_t i = 0; i < m->w[0]; i++)
			A[0][r * m->D[0] + i] = ftpu_f32_to_bf16(bits(x[r * m->w[0] + i]));
	for (size_t l = 0; l < nl; l++) {
		size_t K = m->D[l], Nn = m->D[l + 1];
		uint16_t *Wb = to_bf16(m->W[l], K * Nn);
		Z[l] = malloc(Bp * Nn * 4);
		ftpu_ref_gemm(Bp, Nn, K, A[l], K, Wb, Nn, Z[l], Nn, false);
		free(Wb);
		for (size_t r = 0; r < Bp; r++)
			for (size_t j = 0; j < Nn; j++) {
				uint32_t *z = &Z[l][r * Nn + j];
				*z = ftpu_ref_add(*z, m->b[l][j]);
				if (l + 1 < nl)
					*z = ftpu_ref_max(*z, 0);
			}
		if (l + 1 < nl)
			A[l + 1] = to_bf16(Z[l], Bp * Nn);
	}

	/* softmax cross-entropy as the library computes it on the host */
	const size_t out = m->w[nl], Dt = m->D[nl];
	uint32_t *dZ = calloc(Bp * Dt, 4);
	double sum = 0.0;
	const float inv = 1.0f / (float)rows;
	for (size_t r = 0; r < rows; r++) {
		const uint32_t *z = Z[nl - 1] + r * Dt;
		float mx = fl(z[0]), s = 0.0f, e[256];
		for (size_t j = 1; j < out; j++)
			mx = fl(z[j]) > mx ? fl(z[j]) : mx;
		for (size_t j = 0; j < out; j++) {
			e[j] = expf(fl(z[j]) - mx);
			s += e[j];
		}
		sum += (double)(logf(s) - (fl(z[y[r]]) - mx));
		for (size_t j = 0; j < out; j++) {
			float d = (e[j] / s - (j == y[r] ? 1.0f : 0.0f)) * inv;
			/* sent as bf16, widened exactly */
			dZ[r * Dt + j] = ftpu_bf16_to_f32(ftpu_f32_to_bf16(bits(d)));
		}
	}
	*loss = (float)(sum / (double)rows);

	uint32_t *gW[FTPU_TRAIN_MAX_LAYERS], *gb[FTPU_TRAIN_MAX_LAYERS];
	for (size_t l = nl; l-- > 0;) {
		size_t Din = m->D[l], Dout = m->D[l + 1];
		uint16_t *dZb = to_bf16(dZ, Bp * Dout);
		uint16_t *dZt = transpose16(dZb, Bp, Dout);
		gb[l] = malloc(Dout * 4);
		uint32_t *col = malloc(Bp * 4);
		for (size_t j = 0; j < Dout; j++) {
			for (size_t r = 0; r < Bp; r++)
				col[r] = dZ[r * Dout + j];
			gb[l][j] = tree_sum(col, Bp);
		}
		free(col);
		/* dW^T = dZ^T A, then transposed back */
		uint32_t *gWt = malloc(Dout * Din * 4);
		ftpu_ref_gemm(Dout, Din, Bp, dZt, Bp, A[l], Din, gWt, Din, false);
		gW[l] = malloc(Din * Dout * 4);
		for (size_t i = 0; i < Din; i++)
			for (size_t j = 0; j < Dout; j++)
				gW[l][i * Dout + j] = gWt[j * Din + i];
		free(gWt), free(dZt);
		if (l > 0) {
			uint16_t *Wb = to_bf16(m->W[l], Din * Dout);
			uint16_t *Wt = transpose16(Wb, Din, Dout);
			uint32_t *dA = malloc(Bp * Din * 4);
			ftpu_ref_gemm(Bp, Din, Dout, dZb, Dout, Wt, Din, dA, Din, false);
			free(Wb), free(Wt), free(dZ);
			dZ = dA;
			for (size_t k = 0; k < Bp * Din; k++)
				dZ[k] = ftpu_ref_select(Z[l - 1][k], dZ[k], 0);
		}
		free(dZb);
	}
	free(dZ);

	uint32_t alpha = 0;
	if (m->cfg.optimizer == FTPU_OPTIMIZER_ADAM) {
		double t = (double)(m->steps + 1);
		alpha = bits((float)(m->cfg.learning_rate * sqrt(1.0 - pow(m->cfg.beta2, t)) /
				     (1.0 - pow(m->cfg.beta1, t))));
	}
	for (size_t l = 0; l < nl; l++) {
		const bool is_adam = m->cfg.optimizer == FTPU_OPTIMIZER_ADAM;
		for (size_t i = 0; i < m->D[l] * m->D[l + 1]; i++) {
			if (is_adam)
				adam(m, &m->W[l][i], &m->mW[l][i], &m->vW[l][i], gW[l][i], alpha);
			else
				sgd(m, &m->W[l][i], &m->mW[l][i], gW[l][i]);
		}
		for (size_t j = 0; j < m->D[l + 1]; j++) {
			if (is_adam)
				adam(m, &m->b[l][j], &m->mb[l][j], &m->vb[l][j], gb[l][j], alpha);
			else
				sgd(m, &m->b[l][j], &m->mb[l][j], gb[l][j]);
		}
		free(gW[l]), free(gb[l]);
	}
	m->steps++;
	for (size_t l = 0; l < nl; l++)
		free(A[l]), free(Z[l]);
}

/* ---- helpers ---------------------------------------------------------------- */

static ftpu_device *dev;

static int open_ref(void **state)
{
	(void)state;
	return ftpu_open("ref", &dev) ? -1 : 0;
}

static int close_ref(void **state)
{
	(void)state;
	ftpu_close(dev);
	dev = NULL;
	return 0;
}

static float *random_params(struct rng *r, const struct ftpu_train_config *c, size_t n)
{
	float *p = malloc(n * sizeof(float));
	size_t k = 0;
	for (size_t l = 0; l < c->n_layers; l++) {
		float lim = sqrtf(6.0f / (float)(c->widths[l] + c->widths[l + 1]));
		for (size_t i = 0; i < c->widths[l] * c->widths[l + 1]; i++)
			p[k++] = ((float)rng_below(r, 1u << 24) / (float)(1u << 24) * 2.0f - 1.0f) * lim;
		for (size_t j = 0; j < c->widths[l + 1]; j++)
			p[k++] = ((float)rng_below(r, 1u << 24) / (float)(1u << 24) - 0.5f) * 0.1f;
	}
	assert_int_equal(k, n);
	return p;
}

/* Pixels px and x = px / 255 (what a byte-input trainer must see: ftpu.h,
 * FTPU_TRAIN_INPUT_U8). */
static void random_batch(struct rng *r, size_t rows, size_t in, size_t classes,
			 uint8_t *px, float *x, uint8_t *y)
{
	for (size_t i = 0; i < rows * in; i++) {
		px[i] = (uint8_t)rng_below(r, 256);
		x[i] = (float)px[i] / 255.0f;
	}
	for (size_t i = 0; i < rows; i++)
		y[i] = (uint8_t)rng_below(r, (uint32_t)classes);
}

static void assert_bits_equal(const float *a, const float *b, size_t n, const char *what,
			      unsigned step)
{
	for (size_t i = 0; i < n; i++)
		if (bits(a[i]) != bits(b[i]))
			fail_msg("step %u: %s[%zu]: device %a (0x%08x), mirror %a (0x%08x)", step,
				 what, i, a[i], bits(a[i]), b[i], bits(b[i]));
}

/* Trains cfg for steps steps (batches of rows, the last one short) on dev
 * (its trainer placed where `where` says: FTPU_TRAIN_ON_DEVICE or _ON_HOST)
 * and the mirror, comparing everything after each step. */
static void against_mirror_on(ftpu_device *d, enum ftpu_train_placement where,
			      const struct ftpu_train_config *cfg, unsigned steps, uint64_t seed)
{
	struct rng r = { seed };
	ftpu_trainer *t = NULL;
	struct ftpu_device_info info;
	assert_int_equal(ftpu_get_info(d, &info), FTPU_OK);
	int ret = ftpu_train_create(d, cfg, &t);
	if (ret)
		fail_msg("ftpu_train_create: %s: %s", ftpu_strerror(ret), ftpu_last_error(d));
	size_t n = ftpu_train_size(t);
	float *p0 = random_params(&r, cfg, n);
	float *got = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
	struct mirror m;
	mirror_init(&m, cfg, info.rows);
	mirror_set_params(&m, p0);
	assert_int_equal(ftpu_train_write(t, FTPU_TRAIN_PARAMS, p0), FTPU_OK);

	const size_t in = cfg->widths[0], classes = cfg->widths[cfg->n_layers];
	const bool u8 = cfg->input == FTPU_TRAIN_INPUT_U8;
	float *x = malloc(cfg->batch * in * sizeof(float));
	uint8_t *y = malloc(cfg->batch), *px = malloc(cfg->batch * in);
	for (unsigned s = 0; s < steps; s++) {
		size_t rows = s + 1 == steps && cfg->batch > 1 ? cfg->batch - 1 : cfg->batch;
		random_batch(&r, rows, in, classes, px, x, y);
		float loss_dev = NAN, loss_ref = NAN;
		ret = u8 ? ftpu_train_step_u8(t, px, y, rows, &loss_dev)
			 : ftpu_train_step(t, x, y, rows, &loss_dev);
		if (ret)
			fail_msg("step %u: %s: %s", s, ftpu_strerror(ret), ftpu_last_error(d));
		struct ftpu_train_stats after;
		assert_int_equal(ftpu_train_stats(t, &after), FTPU_OK);
		assert_true(after.macs > 0 && after.cycles > 0); /* the matmuls ran on d */
		mirror_step(&m, x, y, rows, &loss_ref);
		assert_int_equal(bits(loss_dev), bits(loss_ref));
		static const char *parts[] = { "weights", "slot 1", "slot 2" };
		for (int part = 0; part < 3; part++) {
			if (part == 2 && cfg->optimizer != FTPU_OPTIMIZER_ADAM)
				continue;
			assert_int_equal(ftpu_train_read(t, (enum ftpu_train_part)part, got), FTPU_OK);
			mirror_flat(&m, part, want);
			assert_bits_equal(got, want, n, parts[part], s);
		}
	}
	struct ftpu_train_stats st;
	assert_int_equal(ftpu_train_stats(t, &st), FTPU_OK);
	assert_int_equal(st.steps, steps);
	assert_int_equal(st.placement, where);
	mirror_free(&m);
	free(p0), free(got), free(want), free(x), free(y), free(px);
	ftpu_train_destroy(t);
}

/* On ref, on the device; then the same with the state on the host
 * (FTPU_TRAIN_ON_HOST): both must be the mirror, bit for bit. */
static void against_mirror(const struct ftpu_train_config *cfg, unsigned steps, uint64_t seed)
{
	against_mirror_on(dev, FTPU_TRAIN_ON_DEVICE, cfg, steps, seed);
	struct ftpu_train_config host = *cfg;
	host.placement = FTPU_TRAIN_ON_HOST;
	against_mirror_on(dev, FTPU_TRAIN_ON_HOST, &host, steps, seed);
}

/* ---- tests ------------------------------------------------------------------- */

static struct ftpu_train_config adam_cfg(size_t n_layers, const size_t *widths, size_t batch)
{
	return (struct ftpu_train_config){ .n_layers = n_layers, .widths = widths, .batch = batch,
					   .optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-3f,
					   .beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f };
}

/* Two layers with ragged widths and batch (padding everywhere). */
static void test_mirror_adam_two_layers(void **state)
{
	(void)state;
	static const size_t w[] = { 37, 20, 10 };
	struct ftpu_train_config c = adam_cfg(2, w, 23);
	c.learning_rate = 1e-2f; /* large steps: the slots and weights move far */
	against_mirror(&c, 3, 11);
}

/* Three layers, SGD with momentum; a batch of three chunks exactly (48: the
 * tree sum meets an odd count). */
static void test_mirror_sgd_three_layers(void **state)
{
	(void)state;
	static const size_t w[] = { 50, 33, 17, 5 };
	struct ftpu_train_config c = { .n_layers = 3, .widths = w, .batch = 48,
				       .optimizer = FTPU_OPTIMIZER_SGD, .learning_rate = 0.05f,
				       .momentum = 0.9f };
	against_mirror(&c, 3, 12);
}

/* Byte input (HOST_READ U8): the device must train exactly as on the
 * floats p / 255; 37 inputs leave a chunk's last word part padding. */
static void test_mirror_u8_input(void **state)
{
	(void)state;
	static const size_t w[] = { 37, 20, 10 };
	struct ftpu_train_config c = adam_cfg(2, w, 23);
	c.input = FTPU_TRAIN_INPUT_U8;
	against_mirror(&c, 3, 14);
}

/* One layer (softmax regression), Adam, batch 1 at the end (rows 1). */
static void test_mirror_one_layer(void **state)
{
	(void)state;
	static const size_t w[] = { 16, 3 };
	struct ftpu_train_config c = adam_cfg(1, w, 2);
	against_mirror(&c, 3, 13);
}

/* The demo's shape, Fashion-MNIST's MLP at batch 128: one step. */
static void test_mirror_demo_shape(void **state)
{
	(void)state;
	static const size_t w[] = { 784, 128, 10 };
	struct ftpu_train_config c = adam_cfg(2, w, 128);
	against_mirror(&c, ftpu_test_full() ? 3 : 1, 14);
}

/* A board's configuration (ref:board=ulx3s: an 8x8 array, small memories,
 * no vector unit): the default placement keeps the state on the host and
 * trains as the mirror padded to that array; the device alone refuses. */
static void test_board_keeps_state_on_host(void **state)
{
	(void)state;
	ftpu_device *board = NULL;
	assert_int_equal(ftpu_open("ref:board=ulx3s", &board), FTPU_OK);
	struct ftpu_device_info info;
	assert_int_equal(ftpu_get_info(board, &info), FTPU_OK);
	assert_int_equal(info.features & FTPU_FEATURE_VECTOR_UNIT, 0);
	static const size_t w[] = { 37, 20, 10 };
	struct ftpu_train_config c = adam_cfg(2, w, 23);
	c.learning_rate = 1e-2f;
	against_mirror_on(board, FTPU_TRAIN_ON_HOST, &c, 3, 15);
	c.input = FTPU_TRAIN_INPUT_U8;
	against_mirror_on(board, FTPU_TRAIN_ON_HOST, &c, 2, 16);
	ftpu_trainer *t = NULL;
	c.placement = FTPU_TRAIN_ON_DEVICE;
	assert_int_equal(ftpu_train_create(board, &c, &t), FTPU_ERR_UNSUPPORTED);
	assert_null(t);
	assert_non_null(strstr(ftpu_last_error(board), "no vector unit"));
	ftpu_close(board);
}

/* Double-precision backprop: dL/dW for the mean cross-entropy. */
static void textbook_gradient(const struct ftpu_train_config *c, const float *p, const float *x,
			      const uint8_t *y, size_t rows, double *g)
{
	const size_t nl = c->n_layers;
	double *act[FTPU_TRAIN_MAX_LAYERS + 1], *dz[FTPU_TRAIN_MAX_LAYERS + 1];
	size_t off[FTPU_TRAIN_MAX_LAYERS + 1], k = 0;
	for (size_t l = 0; l < nl; l++)
		off[l] = k, k += c->widths[l] * c->widths[l + 1] + c->widths[l + 1];
	memset(g, 0, k * sizeof(double));
	act[0] = malloc(rows * c->widths[0] * sizeof(double));
	for (size_t i = 0; i < rows * c->widths[0]; i++)
		act[0][i] = x[i];
	for (size_t l = 0; l < nl; l++) {
		size_t in = c->widths[l], o = c->widths[l + 1];
		act[l + 1] = malloc(rows * o * sizeof(double));
		for (size_t r = 0; r < rows; r++)
			for (size_t j = 0; j < o; j++) {
				double s = p[off[l] + in * o + j];
				for (size_t i = 0; i < in; i++)
					s += act[l][r * in + i] * p[off[l] + i * o + j];
				act[l + 1][r * o + j] = l + 1 < nl && s < 0 ? 0 : s;
			}
	}
	size_t o = c->widths[nl];
	dz[nl] = malloc(rows * o * sizeof(double));
	for (size_t r = 0; r < rows; r++) {
		double mx = -INFINITY, s = 0;
		for (size_t j = 0; j < o; j++)
			mx = fmax(mx, act[nl][r * o + j]);
		for (size_t j = 0; j < o; j++)
			s += exp(act[nl][r * o + j] - mx);
		for (size_t j = 0; j < o; j++)
			dz[nl][r * o + j] = (exp(act[nl][r * o + j] - mx) / s - (j == y[r])) / rows;
	}
	for (size_t l = nl; l-- > 0;) {
		size_t in = c->widths[l], ou = c->widths[l + 1];
		for (size_t r = 0; r < rows; r++)
			for (size_t j = 0; j < ou; j++) {
				double d = dz[l + 1][r * ou + j];
				g[off[l] + in * ou + j] += d;
				for (size_t i = 0; i < in; i++)
					g[off[l] + i * ou + j] += act[l][r * in + i] * d;
			}
		if (l == 0)
			break;
		dz[l] = calloc(rows * in, sizeof(double));
		for (size_t r = 0; r < rows; r++)
			for (size_t i = 0; i < in; i++) {
				if (act[l][r * in + i] <= 0)
					continue;
				double s = 0;
				for (size_t j = 0; j < ou; j++)
					s += dz[l + 1][r * ou + j] * p[off[l] + i * ou + j];
				dz[l][r * in + i] = s;
			}
	}
	for (size_t l = 0; l <= nl; l++) {
		free(act[l]);
		if (l > 0)
			free(dz[l]);
	}
}

static void test_gradient_direction(void **state)
{
	(void)state;
	static const size_t w[] = { 40, 24, 12, 7 };
	const struct ftpu_train_config c = { .n_layers = 3, .widths = w, .batch = 32,
					     .optimizer = FTPU_OPTIMIZER_SGD,
					     .learning_rate = 1e-3f, .momentum = 0.0f };
	struct rng r = { 21 };
	ftpu_trainer *t = NULL;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_OK);
	size_t n = ftpu_train_size(t);
	float *p0 = random_params(&r, &c, n), *p1 = malloc(n * sizeof(float));
	double *g = malloc(n * sizeof(double));
	float x[32 * 40];
	uint8_t y[32], px[32 * 40];
	random_batch(&r, 32, 40, 7, px, x, y);
	assert_int_equal(ftpu_train_write(t, FTPU_TRAIN_PARAMS, p0), FTPU_OK);
	assert_int_equal(ftpu_train_step(t, x, y, 32, NULL), FTPU_OK);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_PARAMS, p1), FTPU_OK);
	textbook_gradient(&c, p0, x, y, 32, g);
	size_t k = 0;
	for (size_t l = 0; l < 3; l++) {
		size_t len = w[l] * w[l + 1] + w[l + 1];
		double dot = 0, na = 0, nb = 0;
		for (size_t i = k; i < k + len; i++) {
			double step = -((double)p1[i] - (double)p0[i]) / 1e-3;
			dot += step * g[i], na += step * step, nb += g[i] * g[i];
		}
		double cosine = dot / sqrt(na * nb);
		if (!(cosine > 0.999))
			fail_msg("layer %zu: the device's step and the gradient: cosine %.6f", l + 1,
				 cosine);
		k += len;
	}
	free(p0), free(p1), free(g);
	ftpu_train_destroy(t);
}

static void test_refusals(void **state)
{
	(void)state;
	ftpu_trainer *t = NULL;
	static const size_t w[] = { 784, 128, 10 };
	struct ftpu_train_config c = adam_cfg(2, w, 4096);

	/* a batch too big for UB: on the device, refused at creation with the
	 * numbers; by default, placed on the host */
	c.placement = FTPU_TRAIN_ON_DEVICE;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_SHAPE);
	assert_null(t);
	assert_non_null(strstr(ftpu_last_error(dev), "batch 4096 needs"));
	assert_non_null(strstr(ftpu_last_error(dev), "UB vectors"));
	c.placement = FTPU_TRAIN_AUTO;
	struct ftpu_train_stats st;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_OK);
	assert_int_equal(ftpu_train_stats(t, &st), FTPU_OK);
	assert_int_equal(st.placement, FTPU_TRAIN_ON_HOST);
	ftpu_train_destroy(t);
	t = NULL;
	/* a model too big for the vector memory */
	static const size_t big[] = { 2048, 2048, 10 };
	c = adam_cfg(2, big, 16);
	c.placement = FTPU_TRAIN_ON_DEVICE;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_SHAPE);
	assert_non_null(strstr(ftpu_last_error(dev), "accumulator vectors"));
	c = adam_cfg(2, w, 128);
	c.placement = (enum ftpu_train_placement)3;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	/* bad configurations */
	c = adam_cfg(2, w, 128);
	c.n_layers = 0;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	c = adam_cfg(2, w, 128);
	c.beta2 = 1.0f;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	c = adam_cfg(2, w, 128);
	c.input = (enum ftpu_train_input)2;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	c = adam_cfg(2, w, 128);
	c.learning_rate = NAN;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	static const size_t zero[] = { 784, 0, 10 };
	c = adam_cfg(2, zero, 128);
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_ERR_INVALID);
	assert_null(t);

	/* bad steps: a label out of range, too many rows; nothing runs */
	static const size_t s[] = { 20, 4 };
	c = adam_cfg(1, s, 8);
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_OK);
	float x[9 * 20] = { 0 }, before[84], after[84];
	uint8_t y[9] = { 0, 1, 2, 3, 4, 0, 0, 0, 0 };
	assert_int_equal(ftpu_train_size(t), 84);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_SLOT1, before), FTPU_OK);
	assert_int_equal(ftpu_train_step(t, x, y, 8, NULL), FTPU_ERR_INVALID);
	assert_non_null(strstr(ftpu_last_error(dev), "label 4 of row 4"));
	assert_int_equal(ftpu_train_step(t, x, y, 9, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_step(t, x, y, 0, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_step(t, NULL, y, 1, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_SLOT1, after), FTPU_OK);
	assert_memory_equal(before, after, sizeof(before));
	assert_int_equal(ftpu_train_read(t, (enum ftpu_train_part)7, after), FTPU_ERR_INVALID);
	/* each kind of trainer takes its own kind of input */
	uint8_t px[9 * 20] = { 0 };
	assert_int_equal(ftpu_train_step_u8(t, px, y, 1, NULL), FTPU_ERR_INVALID);
	assert_non_null(strstr(ftpu_last_error(dev), "fp32 input"));
	assert_int_equal(ftpu_train_logits_u8(t, px, 1, (float[4]){ 0 }), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_SLOT1, after), FTPU_OK);
	assert_memory_equal(before, after, sizeof(before));

	/* anything else on the device ends the trainer's claim */
	float a[4] = { 1, 2, 3, 4 }, cc[4];
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, a, 2,
				   0.0f, cc, 2),
			 FTPU_OK);
	assert_int_equal(ftpu_train_step(t, x, y, 1, NULL), FTPU_ERR_STATE);
	assert_non_null(strstr(ftpu_last_error(dev), "another program"));
	ftpu_train_destroy(t);
	ftpu_train_destroy(NULL);

	/* a trainer on the host leaves nothing on the device between calls,
	 * and refuses bad steps alike */
	c = adam_cfg(1, s, 8);
	c.placement = FTPU_TRAIN_ON_HOST;
	assert_int_equal(ftpu_train_create(dev, &c, &t), FTPU_OK);
	assert_int_equal(ftpu_train_size(t), 84);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_SLOT1, before), FTPU_OK);
	assert_int_equal(ftpu_train_step(t, x, y, 8, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_step_u8(t, px, y, 1, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_SLOT1, after), FTPU_OK);
	assert_memory_equal(before, after, sizeof(before));
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1.0f, a, 2, a, 2,
				   0.0f, cc, 2),
			 FTPU_OK);
	float loss = NAN;
	assert_int_equal(ftpu_train_step(t, x, y, 4, &loss), FTPU_OK);
	assert_true(isfinite(loss));
	ftpu_train_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mirror_adam_two_layers, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_mirror_sgd_three_layers, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_mirror_one_layer, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_mirror_u8_input, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_mirror_demo_shape, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_gradient_direction, open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_refusals, open_ref, close_ref),
		cmocka_unit_test(test_board_keeps_state_on_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
