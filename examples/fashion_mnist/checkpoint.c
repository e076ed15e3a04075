/* SPDX-License-Identifier: Apache-2.0 */
/* checkpoint.c - the training run's checkpoint file (checkpoint.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "binfile.h"
#include "checkpoint.h"
#include "fail.h"

#define CKP_MAGIC "FTPU-CKP"
#define CKP_VERSION 1u
#define CKP_HEADER 100u
#define CKP_ROW 52u
/* bounds on what a header may announce, far above any real run */
#define CKP_MAX_SAMPLES (1u << 24)
#define CKP_MAX_STEPS (1u << 28)
#define CKP_MAX_ROWS (1u << 24)

size_t checkpoint_steps(const struct checkpoint *c)
{
	return c->batch ? ((size_t)c->n_train + c->batch - 1) / c->batch : 0;
}

uint32_t checkpoint_data_crc(const uint8_t *px, const uint8_t *labels, size_t n, size_t pixels)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	for (size_t i = 0; i < n; i++) /* a sample at a time: uInt lengths */
		crc = crc32(crc, px + i * pixels, (uInt)pixels);
	crc = crc32(crc, labels, (uInt)n);
	return (uint32_t)crc;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return FTPU_OK;
	size_t n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		return FTPU_ERR_NOMEM;
	*p = q, *cap = n;
	return FTPU_OK;
}

int checkpoint_add_loss(struct checkpoint *c, float loss)
{
	if (grow((void **)&c->losses, &c->losses_cap, c->n_losses + 1, sizeof(float)))
		return FTPU_ERR_NOMEM;
	c->losses[c->n_losses++] = loss;
	return FTPU_OK;
}

int checkpoint_add_row(struct checkpoint *c, const struct log_row *row)
{
	if (grow((void **)&c->rows, &c->rows_cap, c->n_rows + 1, sizeof(*row)))
		return FTPU_ERR_NOMEM;
	c->rows[c->n_rows++] = *row;
	return FTPU_OK;
}

void checkpoint_free(struct checkpoint *c)
{
	free(c->order), free(c->losses), free(c->rows);
	mlp_free(&c->model);
	memset(c, 0, sizeof(*c));
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float f32_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static void put_f64(uint8_t *p, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	binfile_put64(p, u);
}

static double get_f64(const uint8_t *p)
{
	uint64_t u = binfile_get64(p);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static size_t file_size(size_t n_params, size_t n_train, size_t steps, size_t rows)
{
	return CKP_HEADER + 3 * 4 * n_params + 4 * n_train + 4 * steps + CKP_ROW * rows + 4;
}

int checkpoint_save(const struct checkpoint *c, const char *path, char *err, size_t errlen)
{
	const struct mlp *m = &c->model;
	size_t size = file_size(m->n_params, c->n_train, c->n_losses, c->n_rows);
	uint8_t *buf = malloc(size), *p;

	if (!buf)
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory", path);
	memcpy(buf, CKP_MAGIC, 8);
	binfile_put32(buf + 8, CKP_VERSION);
	binfile_put32(buf + 12, (uint32_t)m->in);
	binfile_put32(buf + 16, (uint32_t)m->hid);
	binfile_put32(buf + 20, (uint32_t)m->out);
	binfile_put32(buf + 24, c->batch);
	binfile_put32(buf + 28, c->n_train);
	binfile_put64(buf + 32, c->seed);
	binfile_put32(buf + 40, c->data_crc);
	binfile_put32(buf + 44, c->epoch);
	binfile_put32(buf + 48, c->step);
	binfile_put32(buf + 52, (uint32_t)c->n_rows);
	binfile_put64(buf + 56, m->t);
	binfile_put64(buf + 64, c->shuffle.s);
	binfile_put64(buf + 72, c->n_losses);
	binfile_put32(buf + 80, f32_bits(m->adam.lr));
	binfile_put32(buf + 84, f32_bits(m->adam.beta1));
	binfile_put32(buf + 88, f32_bits(m->adam.beta2));
	binfile_put32(buf + 92, f32_bits(m->adam.eps));
	binfile_put32(buf + 96, c->epochs);
	p = buf + CKP_HEADER;
	mlp_put_floats(p, m->params, m->n_params), p += 4 * m->n_params;
	mlp_put_floats(p, m->m, m->n_params), p += 4 * m->n_params;
	mlp_put_floats(p, m->v, m->n_params), p += 4 * m->n_params;
	for (size_t i = 0; i < c->n_train; i++, p += 4)
		binfile_put32(p, c->order[i]);
	mlp_put_floats(p, c->losses, c->n_losses), p += 4 * c->n_losses;
	for (size_t i = 0; i < c->n_rows; i++, p += CKP_ROW) {
		const struct log_row *r = &c->rows[i];
		binfile_put32(p, r->epoch);
		binfile_put64(p + 4, r->step);
		put_f64(p + 12, r->x);
		put_f64(p + 20, r->loss);
		put_f64(p + 28, r->accuracy);
		put_f64(p + 36, r->seconds);
		put_f64(p + 44, r->utilization);
	}
	int ret = binfile_write(path, buf, size, err, errlen);
	free(buf);
	return ret;
}

/* What the CRC cannot catch: a file written by a program that got its
 * state wrong, or crafted. */
static int check_run(const struct checkpoint *c, const char *path, char *err, size_t errlen)
{
	const struct mlp *m = &c->model;
	const size_t steps = checkpoint_steps(c);
	uint8_t *seen = calloc(c->n_train, 1);
	if (!seen)
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory", path);
	for (size_t i = 0; i < c->n_train; i++) {
		uint32_t k = c->order[i];
		if (k >= c->n_train || seen[k]) {
			free(seen);
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt: the sample order is not a permutation of %u "
				    "samples (entry %zu: %u)", path, c->n_train, i, k);
		}
		seen[k] = 1;
	}
	free(seen);
	for (size_t i = 0; i < m->n_params; i++)
		if (!(m->v[i] >= 0.0f))
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt: second moment %zu is negative", path, i);
	if (!c->epoch || c->epoch > c->epochs || c->step > steps ||
	    c->n_losses != (uint64_t)(c->epoch - 1) * steps + c->step || m->t != c->n_losses)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: corrupt: epoch %u of %u, step %u of %zu, %zu losses and %llu Adam "
			    "steps do not agree", path, c->epoch, c->epochs, c->step, steps, c->n_losses,
			    (unsigned long long)m->t);
	if (!(m->adam.lr > 0.0f) || !(m->adam.beta1 >= 0.0f && m->adam.beta1 < 1.0f) ||
	    !(m->adam.beta2 >= 0.0f && m->adam.beta2 < 1.0f) || !(m->adam.eps > 0.0f))
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: corrupt: Adam lr %g, beta1 %g, beta2 %g, epsilon %g", path,
			    (double)m->adam.lr, (double)m->adam.beta1, (double)m->adam.beta2,
			    (double)m->adam.eps);
	for (size_t i = 0; i < c->n_rows; i++)
		if (!c->rows[i].epoch || c->rows[i].epoch > c->epoch ||
		    c->rows[i].step > c->n_losses)
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt: log row %zu is at epoch %u step %zu, the run "
				    "at epoch %u step %zu", path, i, c->rows[i].epoch,
				    c->rows[i].step, c->epoch, c->n_losses);
	return FTPU_OK;
}

int checkpoint_load(struct checkpoint *out, const char *path, char *err, size_t errlen)
{
	uint8_t head[CKP_HEADER];
	struct binfile f;
	struct checkpoint c = { 0 };
	uint32_t version;
	char why[128];

	int ret = binfile_open(&f, path, CKP_MAGIC, "training checkpoint", head, sizeof(head),
			       CKP_VERSION, &version, err, errlen);
	if (ret)
		goto out;
	uint32_t in = binfile_get32(head + 12), hid = binfile_get32(head + 16),
		 o = binfile_get32(head + 20), rows = binfile_get32(head + 52);
	uint64_t steps = binfile_get64(head + 72);
	c.batch = binfile_get32(head + 24);
	c.n_train = binfile_get32(head + 28);
	if (!in || !hid || !o || in > 1u << 16 || hid > 1u << 16 || o > 1u << 16 || !c.batch ||
	    !c.n_train || c.n_train > CKP_MAX_SAMPLES || steps > CKP_MAX_STEPS ||
	    rows > CKP_MAX_ROWS) {
		ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			   "%s: corrupt: a %u-%u-%u model, batch %u, %u samples, %llu steps, "
			   "%u log rows", path, in, hid, o, c.batch, c.n_train,
			   (unsigned long long)steps, rows);
		goto out;
	}
	size_t n = (size_t)in * hid + hid + (size_t)hid * o + o;
	snprintf(why, sizeof(why), "a %u-%u-%u model, %u samples, %llu steps and %u log rows take",
		 in, hid, o, c.n_train, (unsigned long long)steps, rows);
	ret = binfile_read(&f, head, sizeof(head), file_size(n, c.n_train, steps, rows), why,
			   err, errlen);
	if (ret)
		goto out;
	if ((ret = mlp_alloc(&c.model, in, hid, o, err, errlen)))
		goto out;
	c.seed = binfile_get64(head + 32);
	c.epochs = binfile_get32(head + 96);
	c.data_crc = binfile_get32(head + 40);
	c.epoch = binfile_get32(head + 44);
	c.step = binfile_get32(head + 48);
	c.model.t = binfile_get64(head + 56);
	c.shuffle.s = binfile_get64(head + 64);
	c.model.adam = (struct mlp_adam){ f32_of(binfile_get32(head + 80)),
					  f32_of(binfile_get32(head + 84)),
					  f32_of(binfile_get32(head + 88)),
					  f32_of(binfile_get32(head + 92)) };
	c.order = malloc(c.n_train * sizeof(*c.order));
	c.losses = malloc((steps ? steps : 1) * sizeof(*c.losses));
	c.rows = malloc((rows ? rows : 1) * sizeof(*c.rows));
	if (!c.order || !c.losses || !c.rows) {
		ret = fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory", path);
		goto out;
	}
	c.n_losses = c.losses_cap = steps;
	c.n_rows = c.rows_cap = rows;
	const uint8_t *p = f.buf + CKP_HEADER;
	struct mlp *m = &c.model;
	if ((ret = mlp_get_floats(m->params, p, n, path, "parameter", err, errlen)) ||
	    (ret = mlp_get_floats(m->m, p + 4 * n, n, path, "first moment", err, errlen)) ||
	    (ret = mlp_get_floats(m->v, p + 8 * n, n, path, "second moment", err, errlen)))
		goto out;
	p += 12 * n;
	for (size_t i = 0; i < c.n_train; i++, p += 4)
		c.order[i] = binfile_get32(p);
	if ((ret = mlp_get_floats(c.losses, p, steps, path, "loss", err, errlen)))
		goto out;
	p += 4 * steps;
	for (size_t i = 0; i < rows; i++, p += CKP_ROW)
		c.rows[i] = (struct log_row){
			.epoch = binfile_get32(p), .step = (size_t)binfile_get64(p + 4),
			.x = get_f64(p + 12), .loss = get_f64(p + 20), .accuracy = get_f64(p + 28),
			.seconds = get_f64(p + 36), .utilization = get_f64(p + 44),
		};
	if ((ret = check_run(&c, path, err, errlen)))
		goto out;
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	checkpoint_free(&c);
	binfile_close(&f);
	return ret;
}
