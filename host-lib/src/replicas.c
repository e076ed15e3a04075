/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replicas.c - ftpu_replicas_* (ftpu.h, docs/training.md "Replicas"):
 * data-parallel training over several devices in one process. Each step
 * splits the global batch in order, every replica computes the gradient
 * of its rows on a thread of its own (ftpu_train_gradient, the loss
 * gradient divided by the global rows), the gradients are summed in
 * replica order (ftpu_train_reduce) and every replica applies the sum
 * (ftpu_train_apply, again a thread each). The same reduction serves a
 * caller that exchanges gradients over MPI (examples/fashion_mnist).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

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
	struct ftpu_train_stats st; /* the last step's or logits' (both halves) */
};

struct ftpu_replicas {
	size_t n, flat, in, out;
	struct ftpu_train_config cfg;
	size_t widths[FTPU_TRAIN_MAX_LAYERS + 1];
	bool check_each_step; /* FTPU_REPLICAS_CHECK=1 */
	float *sum, *a, *b;   /* the reduced gradient; scratch of the check */
	const float **grads;
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
		free(r->r[i].grad);
	}
	free(r->r), free(r->grads), free(r->sum), free(r->a), free(r->b);
	free(r);
}

int ftpu_replicas_open(const char *const *uris, size_t n, const struct ftpu_train_config *cfg,
		       ftpu_replicas **out)
{
	int ret;
	if (!uris || !cfg || !out)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_open: %s is NULL",
				  !uris ? "uris" : !cfg ? "cfg" : "out");
	*out = NULL;
	if (!n || n > cfg->batch)
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "ftpu_replicas_open: %zu replicas for a global batch of %zu: "
				  "1 to the batch", n, cfg->batch);
	if (!cfg->widths || !cfg->n_layers || cfg->n_layers > FTPU_TRAIN_MAX_LAYERS)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_open: %zu layers: 1..%d",
				  cfg->n_layers, FTPU_TRAIN_MAX_LAYERS);
	ftpu_replicas *r = calloc(1, sizeof(*r));
	if (!r || !(r->r = calloc(n, sizeof(*r->r))) || !(r->grads = calloc(n, sizeof(*r->grads)))) {
		ftpu_replicas_close(r);
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "ftpu_replicas_open: out of memory");
	}
	r->n = n;
	r->cfg = *cfg;
	memcpy(r->widths, cfg->widths, (cfg->n_layers + 1) * sizeof(size_t));
	r->cfg.widths = r->widths;
	r->in = r->widths[0], r->out = r->widths[cfg->n_layers];
	const char *check = getenv("FTPU_REPLICAS_CHECK");
	r->check_each_step = check && !strcmp(check, "1");
	/* each replica's trainer takes the largest share of a global batch */
	struct ftpu_train_config c = *cfg;
	c.batch = (cfg->batch + n - 1) / n;
	for (size_t i = 0; i < n; i++) {
		if (!uris[i]) {
			ret = ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_open: URI %zu is NULL",
					 i);
			goto fail;
		}
		if ((ret = ftpu_open(uris[i], &r->r[i].dev))) {
			ftpu__fail(NULL, ret, "ftpu_replicas_open: replica %zu (%s): %s", i, uris[i],
				   ftpu_last_error(NULL));
			goto fail;
		}
		if ((ret = ftpu_train_create(r->r[i].dev, &c, &r->r[i].t))) {
			ftpu__fail(NULL, ret, "ftpu_replicas_open: replica %zu (%s): %s", i, uris[i],
				   ftpu_last_error(r->r[i].dev));
			goto fail;
		}
		r->flat = ftpu_train_size(r->r[i].t);
		if (!(r->r[i].grad = malloc(r->flat * sizeof(float)))) {
			ret = ftpu__fail(NULL, FTPU_ERR_NOMEM, "ftpu_replicas_open: out of memory");
			goto fail;
		}
		r->grads[i] = r->r[i].grad;
	}
	r->sum = malloc(r->flat * sizeof(float));
	r->a = malloc(r->flat * sizeof(float));
	r->b = malloc(r->flat * sizeof(float));
	if (!r->sum || !r->a || !r->b) {
		ret = ftpu__fail(NULL, FTPU_ERR_NOMEM, "ftpu_replicas_open: out of memory");
		goto fail;
	}
	*out = r;
	return FTPU_OK;
fail:
	ftpu_replicas_close(r);
	return ret;
}

void ftpu_replicas_share(size_t rows, size_t n, size_t i, size_t *first, size_t *count)
{
	size_t q = rows / n, rem = rows % n;
	*first = i * q + (i < rem ? i : rem);
	*count = q + (i < rem);
}

enum job { JOB_GRADIENT, JOB_APPLY, JOB_LOGITS };
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

static int step_any(ftpu_replicas *r, const char *fn, const void *x, bool u8,
		    const uint8_t *labels, size_t rows, float *loss)
{
	int ret = check_batch(r, fn, x, rows);
	if (ret)
		return ret;
	if (!labels)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: labels is NULL", fn);
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

int ftpu_replicas_read(ftpu_replicas *r, enum ftpu_train_part part, float *values)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_read: replicas is NULL");
	return ftpu_train_read(r->r[0].t, part, values);
}

int ftpu_replicas_write(ftpu_replicas *r, enum ftpu_train_part part, const float *values)
{
	if (!r)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_replicas_write: replicas is NULL");
	for (size_t i = 0; i < r->n; i++) {
		int ret = ftpu_train_write(r->r[i].t, part, values);
		if (ret)
			return ftpu__fail(NULL, ret, "ftpu_replicas_write: replica %zu: %s", i,
					  ftpu_last_error(r->r[i].dev));
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
		int ret = ftpu_train_read(r->r[0].t, part, r->a);
		for (size_t i = 1; i < r->n && !ret; i++) {
			if ((ret = ftpu_train_read(r->r[i].t, part, r->b)))
				break;
			/* bits, not values: -0 against +0 or two NaNs differ too */
			if (memcmp(r->a, r->b, r->flat * sizeof(float))) {
				size_t k = 0;
				while (!memcmp(&r->a[k], &r->b[k], sizeof(float)))
					k++;
				return ftpu__fail(NULL, FTPU_ERR_STATE,
						  "ftpu_replicas_check: replica %zu's %s differ from "
						  "replica 0's at value %zu (%a against %a)",
						  i, names[part], k, (double)r->b[k], (double)r->a[k]);
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
