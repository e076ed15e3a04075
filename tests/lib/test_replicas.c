/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_replicas.c - data-parallel training (ftpu_replicas_*, the halves
 * ftpu_train_gradient / ftpu_train_apply, ftpu_train_reduce;
 * docs/training.md, Replicas): a step's halves are the step, bit for bit,
 * on the device and on the host placement; replicas on the simulated RTL,
 * on the C model and mixed give the same bits and keep every device's
 * weights identical; the replicas' gradient is the sum of the parts'
 * gradients in replica order (recomputed here from separate trainers) and
 * close to one device's on the whole batch; drift is detected; bad calls
 * are refused. Split by units: one share is one device's step, bit for
 * bit; shares on sim, ref and mixed give the same bits; the model's state
 * goes in and out through the shares unchanged; against one device on the
 * same batch the logits and an SGD step differ only by the partial
 * logits' sum order.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu.h"
#include "ftpu_test.h"

#define IN 40
#define HID 24
#define OUT 10

static const size_t widths[] = { IN, HID, OUT };

static struct ftpu_train_config config(size_t batch)
{
	return (struct ftpu_train_config){
		.n_layers = 2, .widths = widths, .batch = batch,
		.optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-2f,
		.beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f,
		.input = FTPU_TRAIN_INPUT_U8,
	};
}

static void data(uint64_t seed, size_t rows, uint8_t *x, uint8_t *y)
{
	struct rng r = { seed };
	for (size_t b = 0; b < rows; b++) {
		y[b] = (uint8_t)rng_below(&r, OUT);
		for (size_t i = 0; i < IN; i++)
			x[b * IN + i] = (uint8_t)(rng_below(&r, 96) + (i / 4 == y[b] ? 150 : 0));
	}
}

static float *initial(size_t n)
{
	struct rng r = { ftpu_test_seed() };
	float *p = malloc(n * sizeof(float));
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = ((float)rng_below(&r, 1u << 20) / (float)(1u << 20) - 0.5f) * 0.6f;
	return p;
}

static ftpu_trainer *make(ftpu_device *dev, const struct ftpu_train_config *c, const float *p)
{
	ftpu_trainer *t = NULL;
	int ret = ftpu_train_create(dev, c, &t);
	if (ret)
		fail_msg("ftpu_train_create: %s: %s", ftpu_strerror(ret), ftpu_last_error(dev));
	if (p)
		assert_int_equal(ftpu_train_write(t, FTPU_TRAIN_PARAMS, p), FTPU_OK);
	return t;
}

static void read_all(ftpu_trainer *t, float *out, size_t n)
{
	for (int part = 0; part < 3; part++)
		assert_int_equal(ftpu_train_read(t, part, out + part * n), FTPU_OK);
}

/* gradient (divisor = rows) then apply is ftpu_train_step, bit for bit,
 * on the device (ref) and on the host placement (a ULX3S-shaped ref). */
static void test_replicas_halves_are_a_step(void **state)
{
	(void)state;
	static const char *const uris[] = { "ref", "ref:board=ulx3s" };
	uint8_t x[48 * IN], y[48];
	for (size_t k = 0; k < 2; k++) {
		ftpu_device *d1, *d2;
		assert_int_equal(ftpu_open(uris[k], &d1), FTPU_OK);
		assert_int_equal(ftpu_open(uris[k], &d2), FTPU_OK);
		struct ftpu_train_config c = config(48);
		c.placement = k ? FTPU_TRAIN_ON_HOST : FTPU_TRAIN_ON_DEVICE;
		ftpu_trainer *t1 = make(d1, &c, NULL), *t2;
		/* the same start on both */
		size_t n = ftpu_train_size(t1);
		float *p = initial(n), *g = malloc(n * sizeof(float));
		float *a = malloc(3 * n * sizeof(float)), *b = malloc(3 * n * sizeof(float));
		assert_true(g && a && b);
		assert_int_equal(ftpu_train_write(t1, FTPU_TRAIN_PARAMS, p), FTPU_OK);
		t2 = make(d2, &c, p);
		struct ftpu_train_stats created;
		ftpu_train_stats(t2, &created);
		for (int s = 0; s < 3; s++) {
			size_t rows = s == 1 ? 37 : 48; /* a short batch too */
			data(ftpu_test_seed() + (uint64_t)s, rows, x, y);
			float l1;
			double l2;
			assert_int_equal(ftpu_train_step_u8(t1, x, y, rows, &l1), FTPU_OK);
			assert_int_equal(ftpu_train_gradient_u8(t2, x, y, rows, rows, g, &l2), FTPU_OK);
			assert_int_equal(ftpu_train_apply(t2, g), FTPU_OK);
			assert_true(l1 == (float)(l2 / (double)rows));
			read_all(t1, a, n);
			read_all(t2, b, n);
			assert_memory_equal(a, b, 3 * n * sizeof(float));
		}
		struct ftpu_train_stats st;
		ftpu_train_stats(t2, &st);
		assert_int_equal(st.steps, 3);
		assert_int_equal(st.placement, k ? FTPU_TRAIN_ON_HOST : FTPU_TRAIN_ON_DEVICE);
		/* on the device the halves are compiled on first use, and count */
		if (!k)
			assert_true(st.compile_seconds > created.compile_seconds);
		free(p), free(g), free(a), free(b);
		ftpu_train_destroy(t1), ftpu_train_destroy(t2);
		ftpu_close(d1), ftpu_close(d2);
	}
}

static ftpu_replicas *open_replicas(const char *const *uris, size_t n, size_t batch,
				    const float *p)
{
	struct ftpu_train_config c = config(batch);
	ftpu_replicas *r = NULL;
	int ret = ftpu_replicas_open(uris, n, &c, &r);
	if (ret)
		fail_msg("ftpu_replicas_open: %s: %s", ftpu_strerror(ret), ftpu_last_error(NULL));
	assert_int_equal(ftpu_replicas_write(r, FTPU_TRAIN_PARAMS, p), FTPU_OK);
	return r;
}

/* Two replicas on sim, on ref and on sim + ref: the same losses and
 * states after every step, the same on every device (ftpu_replicas_check);
 * and each step is the reduction of the parts' gradients, recomputed with
 * separate trainers here. */
static void test_replicas_sim_ref_identical(void **state)
{
	(void)state;
	static const char *const sets[3][2] = { { "ref", "ref" }, { "sim", "sim" }, { "sim", "ref" } };
	enum { B = 64, STEPS = 3 };
	uint8_t x[B * IN], y[B];
	ftpu_replicas *r[3];
	float *p = NULL;
	size_t n = 0;
	{
		struct ftpu_train_config c = config(B);
		ftpu_device *d;
		ftpu_trainer *t;
		assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
		assert_int_equal(ftpu_train_create(d, &c, &t), FTPU_OK);
		n = ftpu_train_size(t);
		ftpu_train_destroy(t), ftpu_close(d);
		p = initial(n);
	}
	for (int k = 0; k < 3; k++)
		r[k] = open_replicas(sets[k], 2, B, p);
	/* the oracle: two separate trainers and the documented reduction */
	ftpu_device *d0, *d1;
	assert_int_equal(ftpu_open("ref", &d0), FTPU_OK);
	assert_int_equal(ftpu_open("ref", &d1), FTPU_OK);
	struct ftpu_train_config half = config(B / 2);
	ftpu_trainer *h0 = make(d0, &half, p), *h1 = make(d1, &half, p);
	float *g0 = malloc(n * 4), *g1 = malloc(n * 4), *sum = malloc(n * 4);
	float *a = malloc(3 * n * 4), *b = malloc(3 * n * 4);
	assert_true(g0 && g1 && sum && a && b);
	for (int s = 0; s < STEPS; s++) {
		size_t rows = s == 2 ? 61 : B; /* 31 + 30 rows: the remainder to replica 0 */
		data(ftpu_test_seed() ^ (uint64_t)(s + 100), rows, x, y);
		float loss[3];
		for (int k = 0; k < 3; k++)
			assert_int_equal(ftpu_replicas_step_u8(r[k], x, y, rows, &loss[k]), FTPU_OK);
		size_t n0 = (rows + 1) / 2;
		double l0, l1;
		assert_int_equal(ftpu_train_gradient_u8(h0, x, y, n0, rows, g0, &l0), FTPU_OK);
		assert_int_equal(ftpu_train_gradient_u8(h1, x + n0 * IN, y + n0, rows - n0, rows, g1,
							&l1), FTPU_OK);
		for (size_t i = 0; i < n; i++)
			sum[i] = g0[i] + g1[i];
		assert_int_equal(ftpu_train_apply(h0, sum), FTPU_OK);
		assert_int_equal(ftpu_train_apply(h1, sum), FTPU_OK);
		assert_true(loss[0] == (float)((l0 + l1) / (double)rows));
		read_all(h0, a, n);
		for (int k = 0; k < 3; k++) {
			assert_memory_equal(&loss[k], &loss[0], sizeof(float));
			assert_int_equal(ftpu_replicas_check(r[k]), FTPU_OK);
			for (int part = 0; part < 3; part++)
				assert_int_equal(ftpu_replicas_read(r[k], part, b + part * n), FTPU_OK);
			assert_memory_equal(a, b, 3 * n * sizeof(float));
		}
	}
	for (int k = 0; k < 3; k++)
		ftpu_replicas_close(r[k]);
	ftpu_train_destroy(h0), ftpu_train_destroy(h1);
	ftpu_close(d0), ftpu_close(d1);
	free(p), free(g0), free(g1), free(sum), free(a), free(b);
}

/* Two replicas of 64 rows against one device of 128: the same forward
 * pass, so the same first loss; gradients that differ only by the order of
 * their fp32 sums (each replica sums its own rows, then the two sums are
 * added), measured here against the gradient's size. */
static void test_replicas_against_one_device(void **state)
{
	(void)state;
	enum { B = 128 };
	static const char *const uris[] = { "ref", "ref" };
	uint8_t x[B * IN], y[B];
	ftpu_device *d;
	assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
	struct ftpu_train_config c = config(B);
	ftpu_trainer *t = make(d, &c, NULL);
	size_t n = ftpu_train_size(t);
	float *p = initial(n), *g = malloc(n * 4), *g0 = malloc(n * 4), *g1 = malloc(n * 4),
	      *sum = malloc(n * 4);
	assert_true(g && g0 && g1 && sum);
	assert_int_equal(ftpu_train_write(t, FTPU_TRAIN_PARAMS, p), FTPU_OK);
	ftpu_replicas *r = open_replicas(uris, 2, B, p);
	data(ftpu_test_seed() + 7, B, x, y);
	double l, l0, l1;
	assert_int_equal(ftpu_train_gradient_u8(t, x, y, B, B, g, &l), FTPU_OK);
	ftpu_trainer *t0 = ftpu_replicas_trainer(r, 0), *t1 = ftpu_replicas_trainer(r, 1);
	assert_int_equal(ftpu_train_gradient_u8(t0, x, y, B / 2, B, g0, &l0), FTPU_OK);
	assert_int_equal(ftpu_train_gradient_u8(t1, x + B / 2 * IN, y + B / 2, B / 2, B, g1, &l1),
			 FTPU_OK);
	const float *parts[] = { g0, g1 };
	ftpu_train_reduce(sum, parts, 2, n);
	assert_true((float)(l / B) == (float)((l0 + l1) / B));
	double worst = 0, norm = 0;
	size_t differ = 0;
	for (size_t i = 0; i < n; i++) {
		double d1 = fabs((double)sum[i] - (double)g[i]);
		differ += sum[i] != g[i];
		worst = d1 > worst ? d1 : worst;
		norm = fabs(g[i]) > norm ? fabs(g[i]) : norm;
	}
	print_message("2 x 64 against 1 x 128: %zu of %zu gradient values differ, by at most "
		      "%.3g (%.3g of the largest, %.3g)\n", differ, n, worst, worst / norm, norm);
	/* a few fp32 roundings of partial sums no larger than the gradient's
	 * largest value times the batch chunks: 2^-24 * 8 chunks * 4 */
	assert_true(worst <= norm * 0x1p-24 * 32);
	ftpu_replicas_close(r);
	ftpu_train_destroy(t), ftpu_close(d);
	free(p), free(g), free(g0), free(g1), free(sum);
}

/* A replica whose weights were changed behind the group's back is found
 * by ftpu_replicas_check, named, with the first value that differs. */
static void test_replicas_check_finds_drift(void **state)
{
	(void)state;
	static const char *const uris[] = { "ref", "ref", "ref" };
	ftpu_device *d;
	assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
	struct ftpu_train_config c = config(30);
	ftpu_trainer *t = make(d, &c, NULL);
	size_t n = ftpu_train_size(t);
	ftpu_train_destroy(t), ftpu_close(d);
	float *p = initial(n);
	ftpu_replicas *r = open_replicas(uris, 3, 30, p);
	assert_int_equal(ftpu_replicas_count(r), 3);
	assert_int_equal(ftpu_replicas_check(r), FTPU_OK);
	p[123] = -p[123];
	assert_int_equal(ftpu_train_write(ftpu_replicas_trainer(r, 2), FTPU_TRAIN_PARAMS, p), FTPU_OK);
	assert_int_equal(ftpu_replicas_check(r), FTPU_ERR_STATE);
	const char *e = ftpu_last_error(NULL);
	if (!strstr(e, "replica 2's weights") || !strstr(e, "value 123"))
		fail_msg("%s", e);
	/* a slot too */
	p[123] = -p[123];
	assert_int_equal(ftpu_train_write(ftpu_replicas_trainer(r, 2), FTPU_TRAIN_PARAMS, p), FTPU_OK);
	p[5] = 1.0f;
	assert_int_equal(ftpu_train_write(ftpu_replicas_trainer(r, 1), FTPU_TRAIN_SLOT2, p), FTPU_OK);
	assert_int_equal(ftpu_replicas_check(r), FTPU_ERR_STATE);
	if (!strstr(ftpu_last_error(NULL), "replica 1's second slots"))
		fail_msg("%s", ftpu_last_error(NULL));
	ftpu_replicas_close(r);
	free(p);
}

/* Bad calls: refused with a message, nothing trained. A batch smaller than
 * the replicas leaves the last ones without rows: a zero gradient. */
static void test_replicas_bad_calls(void **state)
{
	(void)state;
	static const char *const uris[] = { "ref", "ref" }, *const bad_uri[] = { "ref", "nosuch:" };
	struct ftpu_train_config c = config(8);
	ftpu_replicas *r = NULL;
	assert_int_equal(ftpu_replicas_open(uris, 0, &c, &r), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_replicas_open(uris, 9, &c, &r), FTPU_ERR_INVALID);
	assert_null(r);
	assert_true(ftpu_replicas_open(bad_uri, 2, &c, &r) < 0);
	if (!strstr(ftpu_last_error(NULL), "replica 1 (nosuch:)"))
		fail_msg("%s", ftpu_last_error(NULL));
	assert_null(r);
	ftpu_device *d;
	assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
	ftpu_trainer *t = make(d, &c, NULL);
	size_t n = ftpu_train_size(t);
	float *p = initial(n), *g = malloc(n * 4);
	uint8_t x[8 * IN], y[8];
	data(1, 8, x, y);
	assert_int_equal(ftpu_train_gradient_u8(t, x, y, 8, 7, g, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_gradient_u8(t, x, y, 8, 8, NULL, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_train_gradient(t, (const float *)x, y, 8, 8, g, NULL),
			 FTPU_ERR_INVALID); /* a byte trainer */
	assert_int_equal(ftpu_train_apply(t, NULL), FTPU_ERR_INVALID);
	ftpu_train_destroy(t), ftpu_close(d);
	r = open_replicas(uris, 2, 8, p);
	float loss;
	y[0] = OUT;
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 8, &loss), FTPU_ERR_INVALID);
	y[0] = 0;
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 9, &loss), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 1, &loss), FTPU_OK);
	assert_true(isfinite(loss));
	assert_int_equal(ftpu_replicas_check(r), FTPU_OK);
	float lg[8 * OUT];
	assert_int_equal(ftpu_replicas_logits_u8(r, x, 8, lg), FTPU_OK);
	ftpu_replicas_close(r);
	free(p), free(g);
}

/* ---- split by units ---- */

static ftpu_replicas *open_units(const char *const *uris, size_t n,
				 const struct ftpu_train_config *c, const float *p)
{
	ftpu_replicas *r = NULL;
	int ret = ftpu_replicas_open_split(uris, n, c, FTPU_REPLICAS_SPLIT_UNITS, &r);
	if (ret)
		fail_msg("ftpu_replicas_open_split: %s: %s", ftpu_strerror(ret),
			 ftpu_last_error(NULL));
	if (p)
		assert_int_equal(ftpu_replicas_write(r, FTPU_TRAIN_PARAMS, p), FTPU_OK);
	return r;
}

static size_t model_size(const size_t *w)
{
	return (w[0] + 1) * w[1] + (w[1] + 1) * w[2];
}

/* One share holds the whole model: its step is one device's step, bit for
 * bit (the halves around the logits, the host's loss between them). */
static void test_replicas_units_one_share_is_a_step(void **state)
{
	(void)state;
	enum { B = 48 };
	static const char *const uris[] = { "ref" };
	struct ftpu_train_config c = config(B);
	const size_t n = model_size(widths);
	float *p = initial(n), *a = malloc(3 * n * 4), *b = malloc(3 * n * 4);
	assert_true(a && b);
	ftpu_device *d;
	assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
	ftpu_trainer *t = make(d, &c, p);
	ftpu_replicas *r = open_units(uris, 1, &c, p);
	uint8_t x[B * IN], y[B];
	for (int s = 0; s < 3; s++) {
		size_t rows = s == 1 ? 37 : B;
		data(ftpu_test_seed() + 50 + (uint64_t)s, rows, x, y);
		float l1, l2;
		assert_int_equal(ftpu_train_step_u8(t, x, y, rows, &l1), FTPU_OK);
		assert_int_equal(ftpu_replicas_step_u8(r, x, y, rows, &l2), FTPU_OK);
		assert_memory_equal(&l1, &l2, sizeof(float));
		read_all(t, a, n);
		for (int part = 0; part < 3; part++)
			assert_int_equal(ftpu_replicas_read(r, part, b + part * n), FTPU_OK);
		assert_memory_equal(a, b, 3 * n * sizeof(float));
	}
	float l1[B * OUT], l2[B * OUT];
	assert_int_equal(ftpu_train_logits_u8(t, x, B, l1), FTPU_OK);
	assert_int_equal(ftpu_replicas_logits_u8(r, x, B, l2), FTPU_OK);
	assert_memory_equal(l1, l2, sizeof(l1));
	ftpu_replicas_close(r);
	ftpu_train_destroy(t), ftpu_close(d);
	free(p), free(a), free(b);
}

/* The model's state through 2 and 3 shares (units in whole chunks of the
 * array and one by one) and back: unchanged, every part; each share holds
 * its units' values (read through its own trainer) and the output bias. */
static void test_replicas_units_state_round_trip(void **state)
{
	(void)state;
	static const size_t wide[] = { IN, 40, OUT }; /* 2 of 16: 32 + 8 units */
	static const char *const uris[] = { "ref", "ref", "ref" };
	const struct { const size_t *w; size_t n, units0; } cases[] = {
		{ wide, 2, 32 }, { widths, 2, 12 }, { widths, 3, 8 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const size_t *w = cases[k].w, n = model_size(w);
		struct ftpu_train_config c = config(16);
		c.widths = w;
		float *p = initial(3 * n), *q = malloc(3 * n * 4), *s0 = malloc(n * 4);
		assert_true(q && s0);
		ftpu_replicas *r = open_units(uris, cases[k].n, &c, NULL);
		for (int part = 0; part < 3; part++)
			assert_int_equal(ftpu_replicas_write(r, part, p + part * n), FTPU_OK);
		for (int part = 0; part < 3; part++)
			assert_int_equal(ftpu_replicas_read(r, part, q + part * n), FTPU_OK);
		assert_memory_equal(p, q, 3 * n * sizeof(float));
		/* share 0: the first units0 columns of W1 and b1, rows of W2 */
		ftpu_trainer *t0 = ftpu_replicas_trainer(r, 0);
		const size_t u = cases[k].units0;
		assert_int_equal(ftpu_train_size(t0), (w[0] + 1) * u + (u + 1) * w[2]);
		assert_int_equal(ftpu_train_read(t0, FTPU_TRAIN_PARAMS, s0), FTPU_OK);
		assert_memory_equal(&s0[1 * u + 2], &p[1 * w[1] + 2], sizeof(float));
		assert_memory_equal(&s0[w[0] * u + 3], &p[w[0] * w[1] + 3], sizeof(float));
		assert_memory_equal(&s0[w[0] * u + u + 2 * w[2] + 5],
				    &p[w[0] * w[1] + w[1] + 2 * w[2] + 5], sizeof(float));
		assert_memory_equal(&s0[(w[0] + 1) * u + u * w[2]],
				    &p[(w[0] + 1) * w[1] + w[1] * w[2]], w[2] * sizeof(float));
		assert_int_equal(ftpu_replicas_check(r), FTPU_OK);
		/* the output bias is every share's: a change in one is drift */
		ftpu_trainer *tl = ftpu_replicas_trainer(r, cases[k].n - 1);
		const size_t nl = ftpu_train_size(tl);
		float *sl = malloc(nl * 4);
		assert_non_null(sl);
		assert_int_equal(ftpu_train_read(tl, FTPU_TRAIN_SLOT1, sl), FTPU_OK);
		sl[nl - 1] += 1.0f;
		assert_int_equal(ftpu_train_write(tl, FTPU_TRAIN_SLOT1, sl), FTPU_OK);
		assert_int_equal(ftpu_replicas_check(r), FTPU_ERR_STATE);
		if (!strstr(ftpu_last_error(NULL), "first slots"))
			fail_msg("%s", ftpu_last_error(NULL));
		ftpu_replicas_close(r);
		free(p), free(q), free(s0), free(sl);
	}
}

/* Two shares on sim, on ref and on sim + ref, and three on ref: the same
 * losses and states after every step, bit for bit across device kinds. */
static void test_replicas_units_sim_ref_identical(void **state)
{
	(void)state;
	static const char *const sets[3][2] = { { "ref", "ref" }, { "sim", "sim" }, { "sim", "ref" } };
	enum { B = 64, STEPS = 3 };
	struct ftpu_train_config c = config(B);
	const size_t n = model_size(widths);
	float *p = initial(n), *a = malloc(3 * n * 4), *b = malloc(3 * n * 4);
	assert_true(a && b);
	ftpu_replicas *r[3];
	for (int k = 0; k < 3; k++)
		r[k] = open_units(sets[k], 2, &c, p);
	uint8_t x[B * IN], y[B];
	for (int s = 0; s < STEPS; s++) {
		size_t rows = s == 2 ? 61 : B;
		data(ftpu_test_seed() ^ (uint64_t)(s + 300), rows, x, y);
		float loss[3];
		for (int k = 0; k < 3; k++) {
			assert_int_equal(ftpu_replicas_step_u8(r[k], x, y, rows, &loss[k]), FTPU_OK);
			assert_int_equal(ftpu_replicas_check(r[k]), FTPU_OK);
			for (int part = 0; part < 3; part++)
				assert_int_equal(ftpu_replicas_read(r[k], part, (k ? b : a) + part * n),
						 FTPU_OK);
			assert_memory_equal(&loss[k], &loss[0], sizeof(float));
			if (k)
				assert_memory_equal(a, b, 3 * n * sizeof(float));
		}
	}
	struct ftpu_train_stats st;
	assert_int_equal(ftpu_replicas_stats(r[1], 1, &st), FTPU_OK);
	assert_int_equal(st.steps, STEPS);
	assert_true(st.cycles > 0 && st.bytes_in > 0 && st.bytes_out > 0);
	for (int k = 0; k < 3; k++)
		ftpu_replicas_close(r[k]);
	free(p), free(a), free(b);
}

/* Against one device on the same batch (SGD, so the update is the
 * gradient scaled): the logits differ only by the order in which the
 * shares' parts are added, a few roundings of values no larger than the
 * sum of the parts' magnitudes; so does the step. */
static void test_replicas_units_against_one_device(void **state)
{
	(void)state;
	enum { B = 64 };
	static const char *const uris[] = { "ref", "ref" };
	struct ftpu_train_config c = config(B);
	c.optimizer = FTPU_OPTIMIZER_SGD, c.momentum = 0.0f, c.learning_rate = 0.5f;
	const size_t n = model_size(widths);
	float *p = initial(n), *a = malloc(n * 4), *b = malloc(n * 4);
	assert_true(a && b);
	ftpu_device *d;
	assert_int_equal(ftpu_open("ref", &d), FTPU_OK);
	ftpu_trainer *t = make(d, &c, p);
	ftpu_replicas *r = open_units(uris, 2, &c, p);
	uint8_t x[B * IN], y[B];
	data(ftpu_test_seed() + 9, B, x, y);
	float l1[B * OUT], l2[B * OUT], loss1, loss2;
	assert_int_equal(ftpu_train_logits_u8(t, x, B, l1), FTPU_OK);
	assert_int_equal(ftpu_replicas_logits_u8(r, x, B, l2), FTPU_OK);
	double worst = 0, scale = 0;
	size_t differ = 0;
	for (size_t i = 0; i < B * OUT; i++) {
		differ += l1[i] != l2[i];
		worst = fmax(worst, fabs((double)l1[i] - (double)l2[i]));
		scale = fmax(scale, fabs((double)l1[i]));
	}
	print_message("split by units, logits: %zu of %d differ, by at most %.3g (largest %.3g)\n",
		      differ, B * OUT, worst, scale);
	assert_true(worst <= scale * 0x1p-24 * 8);
	assert_int_equal(ftpu_train_step_u8(t, x, y, B, &loss1), FTPU_OK);
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, B, &loss2), FTPU_OK);
	assert_true(fabsf(loss1 - loss2) <= fabsf(loss1) * 0x1p-20f);
	assert_int_equal(ftpu_train_read(t, FTPU_TRAIN_PARAMS, a), FTPU_OK);
	assert_int_equal(ftpu_replicas_read(r, FTPU_TRAIN_PARAMS, b), FTPU_OK);
	double moved = 0;
	worst = 0, differ = 0;
	for (size_t i = 0; i < n; i++) {
		differ += a[i] != b[i];
		worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
		moved = fmax(moved, fabs((double)a[i] - (double)p[i]));
	}
	print_message("split by units, one SGD step: %zu of %zu weights differ, by at most %.3g "
		      "(the step moved them up to %.3g)\n", differ, n, worst, moved);
	/* a misplaced weight or gradient would be off by the step itself */
	assert_true(worst <= moved * 0x1p-12);
	ftpu_replicas_close(r);
	ftpu_train_destroy(t), ftpu_close(d);
	free(p), free(a), free(b);
}

/* Split by units: refused with a message where it cannot work. */
static void test_replicas_units_bad_calls(void **state)
{
	(void)state;
	static const char *const uris[] = { "ref", "ref", "ref" };
	static const char *const small[] = { "ref", "ref:board=icebreaker" };
	static const size_t deep[] = { IN, 16, 16, OUT };
	struct ftpu_train_config c = config(8);
	ftpu_replicas *r = NULL;
	assert_int_equal(ftpu_replicas_open_split(uris, 2, &c, (enum ftpu_replicas_split)7, &r),
			 FTPU_ERR_INVALID);
	c.widths = deep, c.n_layers = 3;
	assert_int_equal(ftpu_replicas_open_split(uris, 2, &c, FTPU_REPLICAS_SPLIT_UNITS, &r),
			 FTPU_ERR_UNSUPPORTED);
	if (!strstr(ftpu_last_error(NULL), "one hidden layer"))
		fail_msg("%s", ftpu_last_error(NULL));
	static const size_t narrow[] = { IN, 2, OUT };
	c.widths = narrow, c.n_layers = 2;
	assert_int_equal(ftpu_replicas_open_split(uris, 3, &c, FTPU_REPLICAS_SPLIT_UNITS, &r),
			 FTPU_ERR_INVALID);
	if (!strstr(ftpu_last_error(NULL), "2 hidden units cannot be split over 3"))
		fail_msg("%s", ftpu_last_error(NULL));
	c.widths = widths;
	/* a share needs the vector unit: the iCEBreaker has none */
	assert_true(ftpu_replicas_open_split(small, 2, &c, FTPU_REPLICAS_SPLIT_UNITS, &r) < 0);
	if (!strstr(ftpu_last_error(NULL), "replica 1 (ref:board=icebreaker)"))
		fail_msg("%s", ftpu_last_error(NULL));
	assert_null(r);
	/* more replicas than rows is fine: every share takes the whole batch */
	const size_t n = model_size(widths);
	float *p = initial(n);
	r = open_units(uris, 3, &c, p);
	uint8_t x[8 * IN], y[8];
	data(2, 8, x, y);
	float loss;
	y[3] = OUT;
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 8, &loss), FTPU_ERR_INVALID);
	y[3] = 0;
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 9, &loss), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_replicas_step(r, (const float *)x, y, 8, &loss), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_replicas_step_u8(r, x, y, 2, &loss), FTPU_OK);
	assert_true(isfinite(loss));
	assert_int_equal(ftpu_replicas_check(r), FTPU_OK);
	ftpu_replicas_close(r);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replicas_halves_are_a_step),
		cmocka_unit_test(test_replicas_sim_ref_identical),
		cmocka_unit_test(test_replicas_against_one_device),
		cmocka_unit_test(test_replicas_check_finds_drift),
		cmocka_unit_test(test_replicas_bad_calls),
		cmocka_unit_test(test_replicas_units_one_share_is_a_step),
		cmocka_unit_test(test_replicas_units_state_round_trip),
		cmocka_unit_test(test_replicas_units_sim_ref_identical),
		cmocka_unit_test(test_replicas_units_against_one_device),
		cmocka_unit_test(test_replicas_units_bad_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
