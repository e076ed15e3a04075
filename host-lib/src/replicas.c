/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replicas.c - ftpu_replicas_* (ftpu.h, docs/training.md "Replicas"):
 * training over several devices in one process, a thread each.
 *
 * Split by batch (data parallel): each step splits the global batch in
 * order, every replica computes the gradient of its rows
 * (ftpu_train_gradient, the loss gradient divided by the global rows), the
 * gradients are summed in replica order (ftpu_train_reduce) and every
 * replica applies the sum (ftpu_train_apply). The same reduction serves a
 * caller that exchanges gradients over MPI (examples/fashion_mnist).
 *
 * Split by units (one hidden layer): replica i keeps the hidden units of
 * its share, their columns of W1 and b1 and their rows of W2, and takes
 * the whole batch. Each computes its part of the logits (train.h; the
 * first adds the output bias), the parts are summed in replica order, the
 * host takes the loss, and each runs its backward pass and update with
 * the same loss gradient. No gradient crosses the link (the batch goes
 * in, the parts of the logits come out), so the link does not bound the
 * step; the output bias is the only state every replica holds.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "train.h"
#include "train_host.h" /* ftpu__train_softmax */

struct replica {
	ftpu_device *dev;
	ftpu_trainer *t;
	float *grad;
	/* this step's work and its result */
	const void *x;
	const uint8_t *labels;
	size_t rows, divisor;
	float *logits;
	double loss;
	int ret;
	/* split by units: the hidden units [unit0, unit0 + units) and the
	 * part of the logits (cfg.batch x classes) */
	size_t unit0, units;
	float *part;
	struct ftpu_train_stats st; /* the last step's or logits' (both halves) */
};

struct ftpu_replicas {
	size_t n, flat, in, out;
	struct ftpu_train_config cfg;
	size_t widths[FTPU_TRAIN_MAX_LAYERS + 1];
	enum ftpu_replicas_split split;
	bool check_each_step; /* FTPU_REPLICAS_CHECK=1 */
	float *sum, *a, *b;   /* the reduced gradient; scratch of the check */
	const float **grads;  /* split by units: the parts of the logits */
	float *dz;            /* split by units: the loss gradient */
	struct replica *r;
};

size_t ftpu_replicas_count(const ftpu_replicas *r) { return r ? r->n : 0; }

ftpu_device *ftpu_replicas_device(ftpu_replicas *r, size_t i)
{
	return r && i < r->n ? r->r[i].dev : NULL;
}

ftpu_trainer *ftpu_replicas_trainer(ftpu_replicas *r, size_t i)
{
	return r && i < r->n ? r->r[i].t : NULL;
}

void ftpu_replicas_close(ftpu_replicas *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->r && i < r->n; i++) {
		ftpu_train_destroy(r->r[i].t);
		ftpu_close(r->r[i].dev);
		free(r->r[i].grad), free(r->r[i].part);
	}
	free(r->r), free(r->grads), free(r->sum), free(r->a), free(r->b), free(r->dz);
	free(r);
}

/* Split by units: replica i's share of the hidden units, in whole chunks
 * of the first device's array (ftpu_replicas_share over the chunks). */
static void unit_share(size_t units, size_t chunk, size_t n, size_t i, size_t *first,
		       size_t *count)
{
	size_t c0, cn;
	ftpu_replicas_share((units + chunk - 1) / chunk, n, i, &c0, &cn);
	*first = c0 * chunk < units ? c0 * chunk : units;
	*count = (c0 + cn) * chunk < units ? cn * chunk : units - *first;
}

int ftpu_replicas_open_split(const char *const *uris, size_t n,
			     const struct ftpu_train_config *cfg, enum ftpu_replicas_split split,
			     ftpu_replicas **out)
{
	static const char fn[] = "ftpu_replicas_open";
	int ret;
	if (!uris || !cfg || !out)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: %s is NULL", fn,
				  !uris ? "uris" : !cfg ? "cfg" : "out");
	*out = NULL;
	if (split != FTPU_REPLICAS_SPLIT_BATCH && split != FTPU_REPLICAS_SPLIT_UNITS)
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "%s: split %d: FTPU_REPLICAS_SPLIT_BATCH or _UNITS", fn, (int)split);
	if (!n || (split == FTPU_REPLICAS_SPLIT_BATCH && n > cfg->batch))
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "%s: %zu replicas for a global batch of %zu: 1 to the batch", fn, n,
				  cfg->batch);
	if (!cfg->widths || !cfg->n_layers || cfg->n_layers > FTPU_TRAIN_MAX_LAYERS)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: %zu layers: 1..%d", fn,
				  cfg->n_layers, FTPU_TRAIN_MAX_LAYERS);
	if (split == FTPU_REPLICAS_SPLIT_UNITS && cfg->n_layers != 2)
		return ftpu__fail(NULL, FTPU_ERR_UNSUPPORTED,
				  "%s: splitting the units takes a model with one hidden layer (this "
				  "one has %zu layers); split the batch instead", fn, cfg->n_layers);
	ftpu_replicas *r = calloc(1, sizeof(*r));
	if (!r || !(r->r = calloc(n, sizeof(*r->r))) || !(r->grads = calloc(n, sizeof(*r->grads)))) {
		ftpu_replicas_close(r);
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "%s: out of memory", fn);
	}
	r->n = n;
	r->split = split;
	r->cfg = *cfg;
	memcpy(r->widths, cfg->widths, (cfg->n_layers + 1) * sizeof(size_t));
	r->cfg.widths = r->widths;
	r->in = r->widths[0], r->out = r->widths[cfg->n_layers];
	r->flat = 0;
	for (size_t l = 0; l < cfg->n_layers; l++)
		r->flat += (r->widths[l] + 1) * r->widths[l + 1];
	const char *check = getenv("FTPU_REPLICAS_CHECK");
	r->check_each_step = check && !strcmp(check, "1");
	for (size_t i = 0; i < n; i++) {
		if (!uris[i]) {
			ret = ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: URI %zu is NULL", fn, i);
			goto fail;
		}
		if ((ret = ftpu_open(uris[i], &r->r[i].dev))) {
			ftpu__fail(NULL, ret, "%s: replica %zu (%s): %s", fn, i, uris[i],
				   ftpu_last_error(NULL));
			goto fail;
		}
	}
	/* split by batch: each replica's trainer takes the largest share of a
	 * global batch; by units: the whole batch through its units */
	struct ftpu_train_config c = *cfg;
	size_t w[3];
	if (split == FTPU_REPLICAS_SPLIT_BATCH) {
		c.batch = (cfg->batch + n - 1) / n;
	} else {
		ftpu__lock(r->r[0].dev);
		const size_t chunk = ftpu__info(r->r[0].dev)->rows;
		ftpu__unlock(r->r[0].dev);
		if (r->widths[1] < n) {
			ret = ftpu__fail(NULL, FTPU_ERR_INVALID,
					 "%s: %zu hidden units cannot be split over %zu replicas", fn,
					 r->widths[1], n);
			goto fail;
		}
		for (size_t i = 0; i < n; i++)
			unit_share(r->widths[1], r->widths[1] >= n * chunk ? chunk : 1, n, i,
				   &r->r[i].unit0, &r->r[i].units);
		c.widths = w;
	}
	for (size_t i = 0; i < n; i++) {
		struct replica *p = &r->r[i];
		if (split == FTPU_REPLICAS_SPLIT_UNITS) {
			w[0] = r->widths[0], w[1] = p->units, w[2] = r->widths[2];
			ret = ftpu__train_create_share(p->dev, &c, i > 0, &p->t);
		} else {
			ret = ftpu_train_create(p->dev, &c, &p->t);
		}
		if (ret) {
			ftpu__fail(NULL, ret, "%s: replica %zu (%s): %s", fn, i, uris[i],
				   ftpu_last_error(p->dev));
			goto fail;
		}
		const size_t size = split == FTPU_REPLICAS_SPLIT_BATCH ? r->flat
								      : cfg->batch * r->out;
		if (split == FTPU_REPLICAS_SPLIT_BATCH ? !(p->grad = malloc(size * sizeof(float)))
						       : !(p->part = malloc(size * sizeof(float)))) {
			ret = ftpu__fail(NULL, FTPU_ERR_NOMEM, "%s: out of memory", fn);
			goto fail;
		}
		r->grads[i] = split == FTPU_REPLICAS_SPLIT_BATCH ? p->grad : p->part;
	}
	const size_t logits = cfg->batch * r->out;
	r->sum = malloc((r->flat > logits ? r->flat : logits) * sizeof(float));
	r->a = malloc(r->flat * sizeof(float));
	r->b = malloc(r->flat * sizeof(float));
	r->dz = malloc(cfg->batch * r->out * sizeof(float));
	if (!r->sum || !r->a || !r->b || !r->dz) {
		ret = ftpu__fail(NULL, FTPU_ERR_NOMEM, "%s: out of memory", fn);
		goto fail;
	}
	*out = r;
	return FTPU_OK;
fail:
	ftpu_replicas_close(r);
	return ret;
}

int ftpu_replicas_open(const char *const *uris, size_t n, const struct ftpu_train_config *cfg,
		       ftpu_replicas **out)
{
	return ftpu_replicas_open_split(uris, n, cfg, FTPU_REPLICAS_SPLIT_BATCH, out);
}

void ftpu_replicas_share(size_t rows, size_t n, size_t i, size_t *first, size_t *count)
{
	size_t q = rows / n, rem = rows % n;
	*first = i * q + (i < rem ? i : rem);
	*count = q + (i < rem);
}

enum job { JOB_GRADIENT, JOB_APPLY, JOB_LOGITS, JOB_FORWARD, JOB_BACKWARD };
struct task {
	ftpu_replicas *r;
	size_t i;
	enum job job;
	bool u8;
};

/* Adds a call's device counters to the replica's step. */
static void add_stats(struct replica *p)
{
	struct ftpu_train_stats s;
	ftpu_train_stats(p->t, &s);
	p->st.cycles += s.cycles, p->st.macs += s.macs, p->st.instructions += s.instructions;
	p->st.bytes_in += s.bytes_in, p->st.bytes_out += s.bytes_out;
	p->st.host_seconds += s.host_seconds;
	p->st.steps = s.steps, p->st.placement = s.placement;
	p->st.compile_seconds = s.compile_seconds;
}

static void *work(void *arg)
{
	const struct task *k = arg;
	struct replica *p = &k->r->r[k->i];
	if (k->job == JOB_FORWARD || k->job == JOB_BACKWARD) { /* split by units */
		p->ret = k->job == JOB_FORWARD
				 ? ftpu__train_forward(p->t, p->x, k->u8, p->rows, p->part)
				 : ftpu__train_backward(p->t, k->r->dz, p->rows);
		if (!p->ret)
			ftpu_train_stats(p->t, &p->st);
		return NULL;
	}
	if (k->job != JOB_APPLY)
		memset(&p->st, 0, sizeof(p->st));
	if (k->job == JOB_APPLY)
		p->ret = ftpu_train_apply(p->t, k->r->sum);
	else if (!p->rows)
		p->ret = FTPU_OK, p->loss = 0; /* a batch smaller than the replicas */
	else if (k->job == JOB_GRADIENT)
		p->ret = k->u8 ? ftpu_train_gradient_u8(p->t, p->x, p->labels, p->rows, p->divisor,
							p->grad, &p->loss)
			       : ftpu_train_gradient(p->t, p->x, p->labels, p->rows, p->divisor,
						     p->grad, &p->loss);
	else
		p->ret = k->u8 ? ftpu_train_logits_u8(p->t, p->x, p->rows, p->logits)
			       : ftpu_train_logits(p->t, p->x, p->rows, p->logits);
	if (!p->ret && (p->rows || k->job == JOB_APPLY))
		add_stats(p);
	return NULL;
}

/* Runs job on every replica at once (a thread each beyond the first,
 * which runs on the caller's); the first failure, in replica order. */
static int run_all(ftpu_replicas *r, enum job job, bool u8, const char *fn)
{
	struct task *tasks = calloc(r->n, sizeof(*tasks));
	pthread_t *th = calloc(r->n, sizeof(*th));
	bool *started = calloc(r->n, sizeof(*started));
	int ret = FTPU_OK;
	if (!tasks || !th || !started) {
		free(tasks), free(th), free(started);
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "%s: out of memory", fn);
	}
	for (size_t i = 0; i < r->n; i++) {
		tasks[i] = (struct task){ r, i, job, u8 };
		started[i] = i > 0 && !pthread_create(&th[i], NULL, work, &tasks[i]);
		if (i > 0 && !started[i])
			work(&tasks[i]); /* no thread to be had: in turn */
	}
	work(&tasks[0]);
	for (size_t i = 1; i < r->n; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	for (size_t i = 0; i < r->n && !ret; i++)
		if (r->r[i].ret) {
			ret = r->r[i].ret;
			ftpu__fail(NULL, ret, "%s: replica %zu: %s", fn, i,
				   ftpu_last_error(r->r[i].dev));
		}
	free(tasks), free(th), free(started);
	return ret;
}

static int check_batch(ftpu_replicas *r, const char *fn, const void *x, size_t rows)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: replicas is NULL", fn);
	if (!x)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: x is NULL", fn);
	if (!rows || rows > r->cfg.batch)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: %zu rows, the replicas take 1..%zu",
				  fn, rows, r->cfg.batch);
	return FTPU_OK;
}

/* Split by units: every replica's part of the logits of all rows, summed
 * in replica order into r->sum (rows x classes). */
static int forward_units(ftpu_replicas *r, const char *fn, const void *x, bool u8, size_t rows)
{
	for (size_t i = 0; i < r->n; i++)
		r->r[i].x = x, r->r[i].rows = rows;
	int ret = run_all(r, JOB_FORWARD, u8, fn);
	if (!ret)
		ftpu_train_reduce(r->sum, r->grads, r->n, rows * r->out);
	return ret;
}

static int step_any(ftpu_replicas *r, const char *fn, const void *x, bool u8,
		    const uint8_t *labels, size_t rows, float *loss)
{
	int ret = check_batch(r, fn, x, rows);
	if (ret)
		return ret;
	if (!labels)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: labels is NULL", fn);
	if (r->split == FTPU_REPLICAS_SPLIT_UNITS) {
		for (size_t b = 0; b < rows; b++)
			if (labels[b] >= r->out)
				return ftpu__fail(NULL, FTPU_ERR_INVALID,
						  "%s: label %u of row %zu: the model has %zu classes",
						  fn, labels[b], b, r->out);
		if ((ret = forward_units(r, fn, x, u8, rows)))
			return ret;
		double sum = ftpu__train_softmax(r->sum, labels, rows, r->out, rows, r->dz);
		if ((ret = run_all(r, JOB_BACKWARD, u8, fn)))
			return ret;
		if (loss)
			*loss = (float)(sum / (double)rows);
		return r->check_each_step ? ftpu_replicas_check(r) : FTPU_OK;
	}
	const size_t row_bytes = r->in * (u8 ? 1 : sizeof(float));
	for (size_t i = 0; i < r->n; i++) {
		size_t first, count;
		ftpu_replicas_share(rows, r->n, i, &first, &count);
		struct replica *p = &r->r[i];
		p->x = (const uint8_t *)x + first * row_bytes;
		p->labels = labels + first;
		p->rows = count, p->divisor = rows;
		if (!count) /* no rows: a zero gradient */
			memset(p->grad, 0, r->flat * sizeof(float));
	}
	if ((ret = run_all(r, JOB_GRADIENT, u8, fn)))
		return ret;
	ftpu_train_reduce(r->sum, r->grads, r->n, r->flat);
	if ((ret = run_all(r, JOB_APPLY, u8, fn)))
		return ret;
	if (loss) {
		double sum = 0;
		for (size_t i = 0; i < r->n; i++)
			sum += r->r[i].loss;
		*loss = (float)(sum / (double)rows);
	}
	return r->check_each_step ? ftpu_replicas_check(r) : FTPU_OK;
}

int ftpu_replicas_step(ftpu_replicas *r, const float *x, const uint8_t *labels, size_t rows,
		       float *loss)
{
	return step_any(r, "ftpu_replicas_step", x, false, labels, rows, loss);
}

int ftpu_replicas_step_u8(ftpu_replicas *r, const uint8_t *x, const uint8_t *labels,
			  size_t rows, float *loss)
{
	return step_any(r, "ftpu_replicas_step_u8", x, true, labels, rows, loss);
}

static int logits_any(ftpu_replicas *r, const char *fn, const void *x, bool u8, size_t rows,
		      float *logits)
{
	int ret = check_batch(r, fn, x, rows);
	if (ret)
		return ret;
	if (!logits)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: logits is NULL", fn);
	if (r->split == FTPU_REPLICAS_SPLIT_UNITS) {
		if (!(ret = forward_units(r, fn, x, u8, rows)))
			memcpy(logits, r->sum, rows * r->out * sizeof(float));
		return ret;
	}
	const size_t row_bytes = r->in * (u8 ? 1 : sizeof(float));
	for (size_t i = 0; i < r->n; i++) {
		size_t first, count;
		ftpu_replicas_share(rows, r->n, i, &first, &count);
		r->r[i].x = (const uint8_t *)x + first * row_bytes;
		r->r[i].rows = count;
		r->r[i].logits = logits + first * r->out;
	}
	return run_all(r, JOB_LOGITS, u8, fn);
}

int ftpu_replicas_logits(ftpu_replicas *r, const float *x, size_t rows, float *logits)
{
	return logits_any(r, "ftpu_replicas_logits", x, false, rows, logits);
}

int ftpu_replicas_logits_u8(ftpu_replicas *r, const uint8_t *x, size_t rows, float *logits)
{
	return logits_any(r, "ftpu_replicas_logits_u8", x, true, rows, logits);
}

/* Split by units: where value k of replica p's flat state (W1's columns,
 * b1's lanes and W2's rows of its units, then the output bias) is in the
 * model's flat state. */
static size_t unit_place(const ftpu_replicas *r, const struct replica *p, size_t k)
{
	const size_t in = r->widths[0], hid = r->widths[1], out = r->out, u = p->units;
	if (k < in * u)
		return k / u * hid + p->unit0 + k % u;
	k -= in * u;
	if (k < u)
		return in * hid + p->unit0 + k;
	k -= u;
	if (k < u * out)
		return in * hid + hid + (p->unit0 + k / out) * out + k % out;
	return in * hid + hid + hid * out + (k - u * out);
}

int ftpu_replicas_read(ftpu_replicas *r, enum ftpu_train_part part, float *values)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_read: replicas is NULL");
	if (r->split == FTPU_REPLICAS_SPLIT_BATCH)
		return ftpu_train_read(r->r[0].t, part, values);
	if (!values)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_read: values is NULL");
	for (size_t i = 0; i < r->n; i++) {
		const struct replica *p = &r->r[i];
		int ret = ftpu_train_read(p->t, part, r->a);
		if (ret)
			return ftpu__fail(NULL, ret, "ftpu_replicas_read: replica %zu: %s", i,
					  ftpu_last_error(p->dev));
		/* the output bias from replica 0: the last out values */
		const size_t size = ftpu_train_size(p->t), own = size - (i ? r->out : 0);
		for (size_t k = 0; k < own; k++)
			values[unit_place(r, p, k)] = r->a[k];
	}
	return FTPU_OK;
}

int ftpu_replicas_write(ftpu_replicas *r, enum ftpu_train_part part, const float *values)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_write: replicas is NULL");
	if (!values)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_write: values is NULL");
	for (size_t i = 0; i < r->n; i++) {
		const struct replica *p = &r->r[i];
		const float *v = values;
		if (r->split == FTPU_REPLICAS_SPLIT_UNITS) {
			const size_t size = ftpu_train_size(p->t);
			for (size_t k = 0; k < size; k++)
				r->a[k] = values[unit_place(r, p, k)];
			v = r->a;
		}
		int ret = ftpu_train_write(p->t, part, v);
		if (ret)
			return ftpu__fail(NULL, ret, "ftpu_replicas_write: replica %zu: %s", i,
					  ftpu_last_error(p->dev));
	}
	return FTPU_OK;
}

int ftpu_replicas_set_steps(ftpu_replicas *r, uint64_t steps)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "ftpu_replicas_set_steps: replicas is NULL");
	for (size_t i = 0; i < r->n; i++)
		ftpu_train_set_steps(r->r[i].t, steps);
	return FTPU_OK;
}

int ftpu_replicas_check(ftpu_replicas *r)
{
	static const char *const names[] = { "weights", "first slots", "second slots" };
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_check: replicas is NULL");
	for (int part = FTPU_TRAIN_PARAMS; part <= FTPU_TRAIN_SLOT2; part++) {
		/* what every replica holds: all of it, or (split by units) the
		 * output bias at the end */
		const size_t size0 = ftpu_train_size(r->r[0].t);
		const size_t shared = r->split == FTPU_REPLICAS_SPLIT_BATCH ? size0 : r->out;
		int ret = ftpu_train_read(r->r[0].t, part, r->a);
		for (size_t i = 1; i < r->n && !ret; i++) {
			size_t size = ftpu_train_size(r->r[i].t);
			if ((ret = ftpu_train_read(r->r[i].t, part, r->b)))
				break;
			const float *a = r->a + size0 - shared, *b = r->b + size - shared;
			/* bits, not values: -0 against +0 or two NaNs differ too */
			if (memcmp(a, b, shared * sizeof(float))) {
				size_t k = 0;
				while (!memcmp(&a[k], &b[k], sizeof(float)))
					k++;
				return ftpu__fail(NULL, FTPU_ERR_STATE,
						  "ftpu_replicas_check: replica %zu's %s differ from "
						  "replica 0's at value %zu (%a against %a)",
						  i, names[part], k + size - shared, (double)b[k],
						  (double)a[k]);
			}
		}
		if (ret)
			return ret;
	}
	return FTPU_OK;
}

int ftpu_replicas_stats(const ftpu_replicas *r, size_t i, struct ftpu_train_stats *stats)
{
	if (!r || !stats || i >= r->n)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_stats: %s",
				  !r ? "replicas is NULL" : !stats ? "stats is NULL"
				     : "no such replica");
	*stats = r->r[i].st;
	const struct ftpu_device_info *info = ftpu__info(r->r[i].dev);
	stats->utilization = stats->cycles ? (double)stats->macs /
						   ((double)info->rows * info->cols * stats->cycles)
					   : 0.0;
	return FTPU_OK;
}
