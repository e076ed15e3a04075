/* SPDX-License-Identifier: Apache-2.0 */
/* mlp.c - the model, its backends, Adam and the weight file (mlp.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binfile.h"
#include "fail.h"
#include "mlp.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- RNG ----------------------------------------------------------------- */

uint64_t mlp_rng_next(struct mlp_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

float mlp_rng_float(struct mlp_rng *r)
{
	return (float)(mlp_rng_next(r) >> 40) / 16777216.0f;
}

size_t mlp_rng_below(struct mlp_rng *r, size_t n)
{
	return (size_t)(mlp_rng_next(r) % n);
}

/* ---- backends ------------------------------------------------------------ */

int mlp_backend_open(struct mlp_backend *be, const char *name, unsigned sim_threads)
{
	memset(be, 0, sizeof(*be));
	if (!strcmp(name, "cpu")) {
		be->kind = MLP_CPU;
		be->name = "cpu";
		return FTPU_OK;
	}
	if (strcmp(name, "sim") && strcmp(name, "ref"))
		return fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err),
			    "unknown backend '%s' (sim, ref or cpu)", name);
	be->kind = !strcmp(name, "sim") ? MLP_SIM : MLP_REF;
	be->name = be->kind == MLP_SIM ? "sim" : "ref";
	char uri[32];
	snprintf(uri, sizeof(uri), "%s", be->name);
	if (be->kind == MLP_SIM && sim_threads > 1)
		snprintf(uri, sizeof(uri), "sim:threads=%u", sim_threads);
	be->threads = be->kind == MLP_SIM && sim_threads > 1 ? sim_threads : 1;
	int ret = ftpu_open(uri, &be->dev);
	if (ret)
		return fm_fail(ret, be->err, sizeof(be->err),
			    "cannot open device '%s': %s: %s", uri,
			    ftpu_strerror(ret), ftpu_last_error(NULL));
	struct ftpu_device_info info;
	ret = ftpu_get_info(be->dev, &info);
	if (ret) {
		fm_fail(ret, be->err, sizeof(be->err), "%s: %s: %s", be->name,
		     ftpu_strerror(ret), ftpu_last_error(be->dev));
		ftpu_close(be->dev);
		be->dev = NULL;
		return ret;
	}
	be->rows = info.rows;
	be->cols = info.cols;
	be->vector_unit = info.features & FTPU_FEATURE_VECTOR_UNIT;
	return FTPU_OK;
}

int mlp_backend_open_replicas(struct mlp_backend *be, const char *const *uris, size_t n,
			      bool split_units)
{
	memset(be, 0, sizeof(*be));
	bool sim = true, ref = true;
	for (size_t i = 0; i < n; i++) {
		sim &= !strncmp(uris[i], "sim", 3);
		ref &= !strncmp(uris[i], "ref", 3);
	}
	be->kind = sim ? MLP_SIM : MLP_REF;
	be->name = sim ? "sim" : ref ? "ref" : "mixed";
	be->threads = 1;
	be->uris = uris;
	be->replicas = n;
	be->split_units = split_units;
	be->vector_unit = true; /* each trainer places itself (docs/training.md) */
	return n ? FTPU_OK
		 : fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err), "no replicas");
}

void mlp_backend_join(struct mlp_backend *be, const struct mlp_collective *c)
{
	be->coll = c->ranks > 1 ? c : NULL;
	be->replicas = (size_t)c->ranks;
}

void mlp_backend_close(struct mlp_backend *be)
{
	free(be->grad), free(be->grads);
	be->grad = be->grads = NULL;
	if (be->group) { /* it owns the trainers and devices */
		ftpu_replicas_close(be->group);
		be->group = NULL, be->trainer = NULL, be->dev = NULL;
	}
	if (be && be->trainer) {
		ftpu_train_destroy(be->trainer);
		be->trainer = NULL;
	}
	if (be && be->dev) {
		ftpu_close(be->dev);
		be->dev = NULL;
	}
}

void mlp_backend_clear(struct mlp_backend *be)
{
	be->gemms = be->macs = be->cycles = 0;
	be->bytes_in = be->bytes_out = 0;
	be->gemm_seconds = 0;
}

double mlp_backend_utilization(const struct mlp_backend *be)
{
	if (!be->cycles || !be->rows)
		return 0.0;
	return (double)be->macs / ((double)be->rows * be->cols * be->cycles);
}

/* Plain fp32 C = op(A) op(B) on the host, k in sequential order. */
static void cpu_gemm(bool ta, bool tb, size_t m, size_t n, size_t k,
		     const float *a, size_t lda, const float *b, size_t ldb,
		     float *c, size_t ldc)
{
	for (size_t i = 0; i < m; i++) {
		float *ci = c + i * ldc;
		if (!tb) {
			/* row i of C accumulates rows of B: a vector loop */
			for (size_t j = 0; j < n; j++)
				ci[j] = 0.0f;
			for (size_t p = 0; p < k; p++) {
				float aip =
					ta ? a[p * lda + i] : a[i * lda + p];
				const float *bp = b + p * ldb;
				for (size_t j = 0; j < n; j++)
					ci[j] += aip * bp[j];
			}
		} else {
			/* B transposed: each element a dot product */
			for (size_t j = 0; j < n; j++) {
				const float *bj = b + j * ldb;
				float s = 0.0f;
				for (size_t p = 0; p < k; p++)
					s += (ta ? a[p * lda + i]
						 : a[i * lda + p]) *
					     bj[p];
				ci[j] = s;
			}
		}
	}
}

int mlp_gemm(struct mlp_backend *be, bool trans_a, bool trans_b, size_t m,
	     size_t n, size_t k, const float *a, size_t lda, const float *b,
	     size_t ldb, float *c, size_t ldc)
{
	double t0 = now_s();

	if (!be->dev) {
		cpu_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
		be->gemms++;
		be->macs += (uint64_t)m * n * k;
		be->gemm_seconds += now_s() - t0;
		return FTPU_OK;
	}
	int ret = ftpu_gemm(be->dev, trans_a ? FTPU_TRANS : FTPU_NO_TRANS,
			    trans_b ? FTPU_TRANS : FTPU_NO_TRANS, m, n, k, 1.0f,
			    a, lda, b, ldb, 0.0f, c, ldc);
	struct ftpu_stats st;
	if (!ret)
		ret = ftpu_last_stats(be->dev, &st);
	if (ret)
		return fm_fail(ret, be->err, sizeof(be->err),
			    "%s: %zux%zux%zu GEMM: %s: %s", be->name, m, k, n,
			    ftpu_strerror(ret), ftpu_last_error(be->dev));
	be->gemms++;
	be->macs += st.macs;
	be->cycles += st.cycles;
	be->bytes_in += st.bytes_in;
	be->bytes_out += st.bytes_out;
	be->gemm_seconds += now_s() - t0;
	return FTPU_OK;
}

/* ---- the model ----------------------------------------------------------- */

static void point_params(struct mlp *m)
{
	size_t o1 = 0, o2 = o1 + m->in * m->hid, o3 = o2 + m->hid,
	       o4 = o3 + m->hid * m->out;
	m->w1 = m->params + o1, m->gw1 = m->grads + o1;
	m->b1 = m->params + o2, m->gb1 = m->grads + o2;
	m->w2 = m->params + o3, m->gw2 = m->grads + o3;
	m->b2 = m->params + o4, m->gb2 = m->grads + o4;
}

int mlp_alloc(struct mlp *m, size_t in, size_t hid, size_t out,
		       char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (!in || !hid || !out || in > 1u << 16 || hid > 1u << 16 ||
	    out > 1u << 16)
		return fm_fail(FTPU_ERR_INVALID, err, errlen,
			    "bad model sizes %zu-%zu-%zu", in, hid, out);
	m->in = in, m->hid = hid, m->out = out;
	m->n_params = in * hid + hid + hid * out + out;
	m->params = calloc(m->n_params, sizeof(float));
	m->grads = calloc(m->n_params, sizeof(float));
	m->m = calloc(m->n_params, sizeof(float));
	m->v = calloc(m->n_params, sizeof(float));
	if (!m->params || !m->grads || !m->m || !m->v) {
		mlp_free(m);
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "out of memory");
	}
	m->adam = MLP_ADAM_DEFAULT;
	point_params(m);
	return FTPU_OK;
}

int mlp_init(struct mlp *m, size_t in, size_t hid, size_t out, uint64_t seed,
	     char *err, size_t errlen)
{
	int ret = mlp_alloc(m, in, hid, out, err, errlen);
	if (ret)
		return ret;
	struct mlp_rng r = {seed};
	/* Glorot uniform: U(-l, l), l = sqrt(6 / (fan_in + fan_out)) */
	float l1 = sqrtf(6.0f / (float)(in + hid));
	float l2 = sqrtf(6.0f / (float)(hid + out));
	for (size_t i = 0; i < in * hid; i++)
		m->w1[i] = (2.0f * mlp_rng_float(&r) - 1.0f) * l1;
	for (size_t i = 0; i < hid * out; i++)
		m->w2[i] = (2.0f * mlp_rng_float(&r) - 1.0f) * l2;
	return FTPU_OK;
}

static void free_scratch(struct mlp *m)
{
	free(m->z1), free(m->h), free(m->z2), free(m->dz2), free(m->dh);
	m->z1 = m->h = m->z2 = m->dz2 = m->dh = NULL;
	m->cap = 0;
}

void mlp_free(struct mlp *m)
{
	if (!m)
		return;
	free(m->params), free(m->grads), free(m->m), free(m->v);
	free_scratch(m);
	memset(m, 0, sizeof(*m));
}

static int reserve(struct mlp *m, size_t n)
{
	if (n <= m->cap)
		return FTPU_OK;
	free_scratch(m);
	m->z1 = malloc(n * m->hid * sizeof(float));
	m->h = malloc(n * m->hid * sizeof(float));
	m->z2 = malloc(n * m->out * sizeof(float));
	m->dz2 = malloc(n * m->out * sizeof(float));
	m->dh = malloc(n * m->hid * sizeof(float));
	if (!m->z1 || !m->h || !m->z2 || !m->dz2 || !m->dh) {
		free_scratch(m);
		return FTPU_ERR_NOMEM;
	}
	m->cap = n;
	return FTPU_OK;
}

/* z1 = x w1 + b1, h = relu(z1), z2 = h w2 + b2 for n rows. */
static int forward(const struct mlp *m, struct mlp_backend *be, const float *x,
		   size_t n, float *z1, float *h, float *z2)
{
	int ret = mlp_gemm(be, false, false, n, m->hid, m->in, x, m->in, m->w1,
			   m->hid, z1, m->hid);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m->hid; j++) {
			float z = z1[i * m->hid + j] + m->b1[j];
			z1[i * m->hid + j] = z;
			h[i * m->hid + j] = z > 0.0f ? z : 0.0f;
		}
	ret = mlp_gemm(be, false, false, n, m->out, m->hid, h, m->hid, m->w2,
		       m->out, z2, m->out);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m->out; j++)
			z2[i * m->out + j] += m->b2[j];
	return FTPU_OK;
}

/* Keras' Adam: alpha = lr sqrt(1 - b2^t) / (1 - b1^t),
 * m += (g - m)(1 - b1), v += (g^2 - v)(1 - b2), w -= alpha m / (sqrt(v) + eps).
 */
static void adam_step(struct mlp *m)
{
	const struct mlp_adam *a = &m->adam;
	m->t++;
	double b1t = pow(a->beta1, (double)m->t),
	       b2t = pow(a->beta2, (double)m->t);
	float alpha = (float)(a->lr * sqrt(1.0 - b2t) / (1.0 - b1t));
	float c1 = 1.0f - a->beta1, c2 = 1.0f - a->beta2;
	for (size_t i = 0; i < m->n_params; i++) {
		float g = m->grads[i];
		m->m[i] += (g - m->m[i]) * c1;
		m->v[i] += (g * g - m->v[i]) * c2;
		m->params[i] -= m->m[i] * alpha / (sqrtf(m->v[i]) + a->eps);
	}
}

static int device_fail(struct mlp_backend *be, int ret, const char *what)
{
	return fm_fail(ret, be->err, sizeof(be->err), "%s: %s: %s: %s", be->name, what,
		       ftpu_strerror(ret), ftpu_last_error(be->group ? NULL : be->dev));
}

static int attach(struct mlp *m, struct mlp_backend *be, size_t batch, bool px)
{
	const size_t widths[] = { m->in, m->hid, m->out };
	const struct ftpu_train_config c = {
		.n_layers = 2, .widths = widths, .batch = batch,
		.optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = m->adam.lr,
		.beta1 = m->adam.beta1, .beta2 = m->adam.beta2, .epsilon = m->adam.eps,
		.input = px ? FTPU_TRAIN_INPUT_U8 : FTPU_TRAIN_INPUT_F32,
	};
	struct ftpu_train_stats st;
	int ret;
	be->train_batch = batch;
	be->pixel_input = px;
	be->steps = 0;
	if (be->uris) {
		/* threads: a trainer per device; the same state to each */
		if ((ret = ftpu_replicas_open_split(be->uris, be->replicas, &c,
						    be->split_units ? FTPU_REPLICAS_SPLIT_UNITS
								    : FTPU_REPLICAS_SPLIT_BATCH,
						    &be->group)))
			return device_fail(be, ret, "opening the replicas");
		struct ftpu_device_info info;
		be->trainer = ftpu_replicas_trainer(be->group, 0);
		be->dev = ftpu_replicas_device(be->group, 0);
		if ((ret = ftpu_get_info(be->dev, &info)))
			return device_fail(be, ret, "INFO");
		be->rows = info.rows, be->cols = info.cols;
		if ((ret = ftpu_replicas_write(be->group, FTPU_TRAIN_PARAMS, m->params)) ||
		    (ret = ftpu_replicas_write(be->group, FTPU_TRAIN_SLOT1, m->m)) ||
		    (ret = ftpu_replicas_write(be->group, FTPU_TRAIN_SLOT2, m->v)) ||
		    (ret = ftpu_replicas_set_steps(be->group, m->t)))
			return device_fail(be, ret, "writing the weights");
		ftpu_train_stats(be->trainer, &st);
		be->compile_seconds = st.compile_seconds;
		return FTPU_OK;
	}
	if (!be->dev || !be->vector_unit)
		return fm_fail(FTPU_ERR_UNSUPPORTED, be->err, sizeof(be->err),
			    "%s: no device with a vector unit to train on", be->name);
	struct ftpu_train_config mine = c;
	if (be->coll) {
		/* an MPI rank: its share of a global batch, at most */
		mine.batch = (batch + be->replicas - 1) / be->replicas;
		be->grad = malloc((m->n_params + 2) * sizeof(float));
		be->grads = malloc(be->replicas * (m->n_params + 2) * sizeof(float));
		if (!be->grad || !be->grads)
			return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err), "out of memory");
	}
	if ((ret = ftpu_train_create(be->dev, &mine, &be->trainer)))
		return device_fail(be, ret, "compiling the training step");
	ftpu_train_stats(be->trainer, &st);
	be->compile_seconds = st.compile_seconds;
	if ((ret = ftpu_train_write(be->trainer, FTPU_TRAIN_PARAMS, m->params)) ||
	    (ret = ftpu_train_write(be->trainer, FTPU_TRAIN_SLOT1, m->m)) ||
	    (ret = ftpu_train_write(be->trainer, FTPU_TRAIN_SLOT2, m->v)) ||
	    (ret = ftpu_train_set_steps(be->trainer, m->t)))
		return device_fail(be, ret, "writing the weights");
	return FTPU_OK;
}

int mlp_device_attach(struct mlp *m, struct mlp_backend *be, size_t batch)
{
	return attach(m, be, batch, false);
}

int mlp_device_attach_px(struct mlp *m, struct mlp_backend *be, size_t batch)
{
	return attach(m, be, batch, true);
}

int mlp_device_sync(struct mlp *m, struct mlp_backend *be)
{
	struct ftpu_train_stats st;
	int ret = FTPU_OK;
	if (!be->trainer)
		return FTPU_OK;
	/* replicas: ftpu_replicas_read gathers a model split by units */
	for (int part = FTPU_TRAIN_PARAMS; part <= FTPU_TRAIN_SLOT2 && !ret; part++) {
		float *to = part == FTPU_TRAIN_PARAMS ? m->params : part == FTPU_TRAIN_SLOT1 ? m->m
												 : m->v;
		ret = be->group ? ftpu_replicas_read(be->group, part, to)
				: ftpu_train_read(be->trainer, part, to);
	}
	if (ret)
		return device_fail(be, ret, "reading the weights back");
	ftpu_train_stats(be->trainer, &st);
	m->t = st.steps;
	return FTPU_OK;
}

static void add_train_stats(struct mlp_backend *be, const struct ftpu_train_stats *st)
{
	be->macs += st->macs;
	be->cycles += st->cycles;
	be->bytes_in += st->bytes_in;
	be->bytes_out += st->bytes_out;
}

/* x: floats, or bytes for a pixel-input trainer */
/* An MPI rank's step: the gradient of its share of the global batch, every
 * rank's gradient and loss gathered, summed in rank order, applied. The
 * counters are the rank's own (both halves). */
static int rank_step(struct mlp *m, struct mlp_backend *be, const void *x, const uint8_t *y,
		     size_t n, float *loss)
{
	const size_t np = m->n_params, block = np + 2, ranks = be->replicas;
	const size_t row_bytes = m->in * (be->pixel_input ? 1 : sizeof(float));
	size_t first, count;
	struct ftpu_train_stats st;
	double sum = 0;
	int ret = FTPU_OK;
	ftpu_replicas_share(n, ranks, (size_t)be->coll->rank, &first, &count);
	const void *xs = (const uint8_t *)x + first * row_bytes;
	if (!count) /* fewer rows than ranks: nothing to add */
		memset(be->grad, 0, np * sizeof(float));
	else if (be->pixel_input)
		ret = ftpu_train_gradient_u8(be->trainer, xs, y + first, count, n, be->grad, &sum);
	else
		ret = ftpu_train_gradient(be->trainer, xs, y + first, count, n, be->grad, &sum);
	if (ret)
		return device_fail(be, ret, "gradient");
	if (count) {
		ftpu_train_stats(be->trainer, &st);
		add_train_stats(be, &st);
	}
	memcpy(be->grad + np, &sum, sizeof(sum)); /* the loss rides along */
	if ((ret = mlp_collective_allgather(be->coll, be->grad, block * sizeof(float), be->grads,
					    be->err, sizeof(be->err))))
		return ret;
	const float *parts[ranks];
	sum = 0;
	for (size_t r = 0; r < ranks; r++) {
		double s;
		parts[r] = be->grads + r * block;
		memcpy(&s, parts[r] + np, sizeof(s));
		sum += s;
	}
	ftpu_train_reduce(be->grad, parts, ranks, np);
	if ((ret = ftpu_train_apply(be->trainer, be->grad)))
		return device_fail(be, ret, "update");
	ftpu_train_stats(be->trainer, &st);
	add_train_stats(be, &st);
	if (loss)
		*loss = (float)(sum / (double)n);
	return FTPU_OK;
}

static int device_step(struct mlp *m, struct mlp_backend *be, const void *x,
		       const uint8_t *y, size_t n, float *loss)
{
	double t0 = now_s();
	struct ftpu_train_stats st;
	int ret;
	if (be->coll) {
		if ((ret = rank_step(m, be, x, y, n, loss)))
			return ret;
	} else if (be->group) {
		ret = be->pixel_input ? ftpu_replicas_step_u8(be->group, x, y, n, loss)
				      : ftpu_replicas_step(be->group, x, y, n, loss);
		if (ret)
			return device_fail(be, ret, "training step");
		ftpu_replicas_stats(be->group, 0, &st);
		add_train_stats(be, &st);
	} else {
		ret = be->pixel_input ? ftpu_train_step_u8(be->trainer, x, y, n, loss)
				      : ftpu_train_step(be->trainer, x, y, n, loss);
		if (ret)
			return device_fail(be, ret, "training step");
		ftpu_train_stats(be->trainer, &st);
		add_train_stats(be, &st);
	}
	ftpu_train_stats(be->trainer, &st);
	double dt = now_s() - t0;
	be->gemm_seconds += dt;
	if (be->steps++ == 0)
		be->first_step_seconds = dt;
	else
		be->step_seconds += dt;
	m->t = st.steps;
	return FTPU_OK;
}

int mlp_train_step(struct mlp *m, struct mlp_backend *be, const float *x,
		   const uint8_t *y, size_t n, float *loss)
{
	const size_t H = m->hid, O = m->out;
	int ret;

	if (be->trainer && be->pixel_input)
		return fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err),
			    "the device takes pixels: mlp_train_step_px");
	if (be->trainer)
		return n ? device_step(m, be, x, y, n, loss)
			 : fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err), "empty batch");

	if (!n)
		return fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err),
			    "empty batch");
	if (reserve(m, n))
		return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err),
			    "out of memory for a batch of %zu", n);
	ret = forward(m, be, x, n, m->z1, m->h, m->z2);
	if (ret)
		return ret;

	/* softmax cross-entropy; dz2 = (softmax - onehot) / n */
	double sum = 0.0;
	const float inv_n = 1.0f / (float)n;
	for (size_t i = 0; i < n; i++) {
		const float *z = m->z2 + i * O;
		float *d = m->dz2 + i * O;
		float mx = z[0], s = 0.0f;
		for (size_t j = 1; j < O; j++)
			mx = z[j] > mx ? z[j] : mx;
		for (size_t j = 0; j < O; j++) {
			d[j] = expf(z[j] - mx);
			s += d[j];
		}
		sum += (double)(logf(s) - (z[y[i]] - mx));
		for (size_t j = 0; j < O; j++)
			d[j] = (d[j] / s - (j == y[i] ? 1.0f : 0.0f)) * inv_n;
	}
	*loss = (float)(sum / (double)n);

	/* layer 2: dW2 = H^T dZ2, db2 = column sums, dH = dZ2 W2^T */
	ret = mlp_gemm(be, true, false, H, O, n, m->h, H, m->dz2, O, m->gw2, O);
	if (ret)
		return ret;
	ret = mlp_gemm(be, false, true, n, H, O, m->dz2, O, m->w2, O, m->dh, H);
	if (ret)
		return ret;
	for (size_t j = 0; j < O; j++)
		m->gb2[j] = 0.0f;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < O; j++)
			m->gb2[j] += m->dz2[i * O + j];

	/* ReLU': dZ1 = dH where z1 > 0 (in place in dh); db1; dW1 = X^T dZ1 */
	for (size_t j = 0; j < H; j++)
		m->gb1[j] = 0.0f;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < H; j++) {
			float d = m->z1[i * H + j] > 0.0f ? m->dh[i * H + j]
							  : 0.0f;
			m->dh[i * H + j] = d;
			m->gb1[j] += d;
		}
	ret = mlp_gemm(be, true, false, m->in, H, n, x, m->in, m->dh, H, m->gw1,
		       H);
	if (ret)
		return ret;

	adam_step(m);
	return FTPU_OK;
}

/* Logits of n rows on the device, a trainer batch at a time; x: floats, or
 * bytes for a pixel-input trainer. */
/* One trainer's logits of k rows (nothing to do for none). */
static int trainer_logits(struct mlp_backend *be, const void *x, size_t k, float *logits)
{
	struct ftpu_train_stats st;
	if (!k)
		return FTPU_OK;
	int ret = be->pixel_input ? ftpu_train_logits_u8(be->trainer, x, k, logits)
				  : ftpu_train_logits(be->trainer, x, k, logits);
	if (ret)
		return device_fail(be, ret, "logits");
	ftpu_train_stats(be->trainer, &st);
	add_train_stats(be, &st);
	return FTPU_OK;
}

/* An MPI rank's part of the logits of k rows, every rank's gathered:
 * blocks of the largest share, in rank order. */
static int rank_logits(const struct mlp *m, struct mlp_backend *be, const void *x, size_t k,
		       float *logits)
{
	const size_t ranks = be->replicas, most = (k + ranks - 1) / ranks;
	const size_t row_bytes = m->in * (be->pixel_input ? 1 : sizeof(float));
	size_t first, count;
	float *mine = calloc(most * m->out, sizeof(float));
	float *all = malloc(ranks * most * m->out * sizeof(float));
	int ret = mine && all ? FTPU_OK
			      : fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err), "out of memory");
	ftpu_replicas_share(k, ranks, (size_t)be->coll->rank, &first, &count);
	if (!ret)
		ret = trainer_logits(be, (const uint8_t *)x + first * row_bytes, count, mine);
	if (!ret)
		ret = mlp_collective_allgather(be->coll, mine, most * m->out * sizeof(float), all,
					       be->err, sizeof(be->err));
	for (size_t r = 0; r < ranks && !ret; r++) {
		ftpu_replicas_share(k, ranks, r, &first, &count);
		memcpy(logits + first * m->out, all + r * most * m->out,
		       count * m->out * sizeof(float));
	}
	free(mine), free(all);
	return ret;
}

static int device_logits(const struct mlp *m, struct mlp_backend *be, const void *x,
			 size_t n, float *logits)
{
	const size_t in_bytes = be->pixel_input ? 1 : sizeof(float);
	for (size_t at = 0; at < n; at += be->train_batch) {
		size_t k = n - at < be->train_batch ? n - at : be->train_batch;
		const void *xa = (const char *)x + at * m->in * in_bytes;
		float *out = logits + at * m->out;
		int ret;
		if (be->coll) {
			ret = rank_logits(m, be, xa, k, out);
		} else if (be->group) {
			struct ftpu_train_stats st;
			ret = be->pixel_input ? ftpu_replicas_logits_u8(be->group, xa, k, out)
					      : ftpu_replicas_logits(be->group, xa, k, out);
			if (ret)
				return device_fail(be, ret, "logits");
			ftpu_replicas_stats(be->group, 0, &st);
			add_train_stats(be, &st);
		} else {
			ret = trainer_logits(be, xa, k, out);
		}
		if (ret)
			return ret;
	}
	return FTPU_OK;
}

int mlp_logits(const struct mlp *m, struct mlp_backend *be, const float *x,
	       size_t n, float *logits)
{
	if (be->trainer && be->pixel_input)
		return fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err),
			    "the device takes pixels: mlp_predict_px");
	if (be->trainer)
		return device_logits(m, be, x, n, logits);
	float *z1 = malloc(n * m->hid * sizeof(float));
	float *h = malloc(n * m->hid * sizeof(float));
	int ret;
	if (!z1 || !h)
		ret = fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err),
			   "out of memory for %zu rows", n);
	else
		ret = forward(m, be, x, n, z1, h, logits);
	free(z1);
	free(h);
	return ret;
}

/* The class of each of n rows of logits z (n x out). */
static void argmax_rows(const float *z, size_t n, size_t out, uint8_t *pred)
{
	for (size_t i = 0; i < n; i++) {
		size_t best = 0;
		for (size_t j = 1; j < out; j++)
			if (z[i * out + j] > z[i * out + best])
				best = j;
		pred[i] = (uint8_t)best;
	}
}

int mlp_predict(const struct mlp *m, struct mlp_backend *be, const float *x,
		size_t n, uint8_t *pred)
{
	float *z = malloc(n * m->out * sizeof(float));
	if (!z)
		return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err),
			    "out of memory for %zu rows", n);
	int ret = mlp_logits(m, be, x, n, z);
	if (!ret)
		argmax_rows(z, n, m->out, pred);
	free(z);
	return ret;
}

/* ---- the weight file ----------------------------------------------------- */

#define MLP_MAGIC "FTPU-MLP"
#define MLP_VERSION 1u
#define MLP_HEADER 32u

int mlp_save(const struct mlp *m, const char *path, char *err, size_t errlen)
{
	size_t size = MLP_HEADER + 4 * m->n_params + 4;
	uint8_t *buf = malloc(size);

	if (!buf)
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory",
			    path);
	memcpy(buf, MLP_MAGIC, 8);
	binfile_put32(buf + 8, MLP_VERSION);
	binfile_put32(buf + 12, (uint32_t)m->in);
	binfile_put32(buf + 16, (uint32_t)m->hid);
	binfile_put32(buf + 20, (uint32_t)m->out);
	binfile_put64(buf + 24, m->t);
	mlp_put_floats(buf + MLP_HEADER, m->params, m->n_params);
	int ret = binfile_write(path, buf, size, err, errlen);
	free(buf);
	return ret;
}

void mlp_put_floats(uint8_t *p, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &v[i], 4);
		binfile_put32(p + 4 * i, u);
	}
}

int mlp_get_floats(float *v, const uint8_t *p, size_t n, const char *path,
		   const char *what, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = binfile_get32(p + 4 * i);
		memcpy(&v[i], &u, 4);
		if (!isfinite(v[i]))
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt: %s %zu is not finite", path,
				    what, i);
	}
	return FTPU_OK;
}

int mlp_load(struct mlp *m, const char *path, char *err, size_t errlen)
{
	uint8_t head[MLP_HEADER];
	struct binfile f;
	uint32_t version;
	char why[96];

	int ret = binfile_open(&f, path, MLP_MAGIC, "MLP weight file", head,
			       sizeof(head), MLP_VERSION, &version, err, errlen);
	if (ret)
		goto out;
	uint32_t in = binfile_get32(head + 12), hid = binfile_get32(head + 16),
		 out = binfile_get32(head + 20);
	if (!in || !hid || !out || in > 1u << 16 || hid > 1u << 16 ||
	    out > 1u << 16) {
		ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			   "%s: bad model sizes %u-%u-%u", path, in, hid, out);
		goto out;
	}
	size_t n = (size_t)in * hid + hid + (size_t)hid * out + out;
	snprintf(why, sizeof(why), "a %u-%u-%u model takes", in, hid, out);
	ret = binfile_read(&f, head, sizeof(head), MLP_HEADER + 4 * n + 4, why,
			   err, errlen);
	if (ret)
		goto out;
	struct mlp nm;
	ret = mlp_alloc(&nm, in, hid, out, err, errlen);
	if (ret)
		goto out;
	ret = mlp_get_floats(nm.params, f.buf + MLP_HEADER, n, path,
			     "parameter", err, errlen);
	if (ret) {
		mlp_free(&nm);
		goto out;
	}
	nm.t = binfile_get64(head + 24);
	*m = nm;
out:
	binfile_close(&f);
	return ret;
}

/* Pixels as the network's input floats (MLP_PIXEL); NULL when out of memory. */
static float *px_floats(const uint8_t *px, size_t count)
{
	float *x = malloc((count ? count : 1) * sizeof(float));
	for (size_t i = 0; x && i < count; i++)
		x[i] = MLP_PIXEL(px[i]);
	return x;
}

int mlp_train_step_px(struct mlp *m, struct mlp_backend *be, const uint8_t *px,
		      const uint8_t *y, size_t n, float *loss)
{
	if (be->trainer && be->pixel_input)
		return n ? device_step(m, be, px, y, n, loss)
			 : fm_fail(FTPU_ERR_INVALID, be->err, sizeof(be->err), "empty batch");
	float *x = px_floats(px, n * m->in);
	if (!x)
		return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err), "out of memory for %zu rows", n);
	int ret = mlp_train_step(m, be, x, y, n, loss);
	free(x);
	return ret;
}

int mlp_predict_px(const struct mlp *m, struct mlp_backend *be, const uint8_t *px,
		   size_t n, uint8_t *pred)
{
	if (!(be->trainer && be->pixel_input)) {
		float *x = px_floats(px, n * m->in);
		if (!x)
			return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err),
				    "out of memory for %zu rows", n);
		int ret = mlp_predict(m, be, x, n, pred);
		free(x);
		return ret;
	}
	float *z = malloc(n * m->out * sizeof(float));
	if (!z)
		return fm_fail(FTPU_ERR_NOMEM, be->err, sizeof(be->err), "out of memory for %zu rows", n);
	int ret = device_logits(m, be, px, n, z);
	if (!ret)
		argmax_rows(z, n, m->out, pred);
	free(z);
	return ret;
}
