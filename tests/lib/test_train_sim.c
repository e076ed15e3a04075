/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_train_sim.c - training on the device through the simulated RTL
 * ("sim", "sim:threads=2", "sim:rows=4") against the C model ("ref", and "ref" configured
 * alike): the same weights, batches and steps must leave bit-identical
 * weights, optimizer slots and losses after every step (docs/training.md).
 * The numerics themselves are test_train.c's (a host mirror); this test
 * holds the RTL to the model on whole training programs.
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

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float uniform(struct rng *r, float lo, float hi)
{
	return lo + (hi - lo) * (float)rng_below(r, 1u << 24) / (float)(1u << 24);
}

static ftpu_trainer *make(ftpu_device *dev, const struct ftpu_train_config *c)
{
	ftpu_trainer *t = NULL;
	int ret = ftpu_train_create(dev, c, &t);
	if (ret)
		fail_msg("ftpu_train_create: %s: %s", ftpu_strerror(ret), ftpu_last_error(dev));
	return t;
}

/* steps steps of c on sim_uri and ref_uri, compared after each. */
static void sim_vs_ref(const char *sim_uri, const char *ref_uri,
		       const struct ftpu_train_config *c, unsigned steps, uint64_t seed)
{
	ftpu_device *sim = NULL, *ref = NULL;
	assert_int_equal(ftpu_open(sim_uri, &sim), FTPU_OK);
	assert_int_equal(ftpu_open(ref_uri, &ref), FTPU_OK);
	ftpu_trainer *ts = make(sim, c), *tr = make(ref, c);
	size_t n = ftpu_train_size(ts);
	assert_int_equal(n, ftpu_train_size(tr));

	struct rng r = { seed };
	float *p = malloc(n * sizeof(float)), *a = malloc(n * sizeof(float)),
	      *b = malloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		p[i] = uniform(&r, -0.3f, 0.3f);
	assert_int_equal(ftpu_train_write(ts, FTPU_TRAIN_PARAMS, p), FTPU_OK);
	assert_int_equal(ftpu_train_write(tr, FTPU_TRAIN_PARAMS, p), FTPU_OK);

	const size_t in = c->widths[0], classes = c->widths[c->n_layers];
	const bool u8 = c->input == FTPU_TRAIN_INPUT_U8;
	float *x = malloc(c->batch * in * sizeof(float));
	uint8_t *y = malloc(c->batch), *px = malloc(c->batch * in);
	for (unsigned s = 0; s < steps; s++) {
		for (size_t i = 0; i < c->batch * in; i++) {
			px[i] = (uint8_t)rng_below(&r, 256);
			x[i] = (float)px[i] / 255.0f;
		}
		for (size_t i = 0; i < c->batch; i++)
			y[i] = (uint8_t)rng_below(&r, (uint32_t)classes);
		float ls = NAN, lr = NAN;
		int ret = u8 ? ftpu_train_step_u8(ts, px, y, c->batch, &ls)
			     : ftpu_train_step(ts, x, y, c->batch, &ls);
		if (ret)
			fail_msg("%s step %u: %s: %s", sim_uri, s, ftpu_strerror(ret),
				 ftpu_last_error(sim));
		assert_int_equal(u8 ? ftpu_train_step_u8(tr, px, y, c->batch, &lr)
				    : ftpu_train_step(tr, x, y, c->batch, &lr),
				 FTPU_OK);
		struct ftpu_train_stats st_s, st_r;
		ftpu_train_stats(ts, &st_s);
		ftpu_train_stats(tr, &st_r);
		print_message("%s step %u: loss %.6f, %llu cycles (ref %llu), %llu bytes in, "
			      "%llu out\n", sim_uri, s, ls, (unsigned long long)st_s.cycles,
			      (unsigned long long)st_r.cycles, (unsigned long long)st_s.bytes_in,
			      (unsigned long long)st_s.bytes_out);
		assert_int_equal(bits(ls), bits(lr));
		for (int part = 0; part < 3; part++) {
			assert_int_equal(ftpu_train_read(ts, (enum ftpu_train_part)part, a), FTPU_OK);
			assert_int_equal(ftpu_train_read(tr, (enum ftpu_train_part)part, b), FTPU_OK);
			for (size_t i = 0; i < n; i++)
				if (bits(a[i]) != bits(b[i]))
					fail_msg("%s step %u part %d [%zu]: sim %a, ref %a", sim_uri,
						 s, part, i, a[i], b[i]);
		}
	}
	free(p), free(a), free(b), free(x), free(y), free(px);
	ftpu_train_destroy(ts);
	ftpu_train_destroy(tr);
	ftpu_close(sim);
	ftpu_close(ref);
}

static struct ftpu_train_config adam(size_t n_layers, const size_t *w, size_t batch)
{
	return (struct ftpu_train_config){ .n_layers = n_layers, .widths = w, .batch = batch,
					   .optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-2f,
					   .beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f };
}

/* Two layers with ragged widths on the 16x16 device. */
static void test_adam_16(void **state)
{
	(void)state;
	static const size_t w[] = { 70, 40, 10 };
	struct ftpu_train_config c = adam(2, w, 40);
	sim_vs_ref("sim", "ref", &c, 3, 1);
}

/* The same on the device simulated by two threads (sim:threads=2, the
 * demo's): a model Verilated for threads must compute what the serial one
 * does. */
static void test_adam_16_threads(void **state)
{
	(void)state;
	static const size_t w[] = { 70, 40, 10 };
	struct ftpu_train_config c = adam(2, w, 40);
	sim_vs_ref("sim:threads=2", "ref", &c, 3, 1);
}

/* Three layers, SGD with momentum, on the 4x4 boards' pipeline with the
 * tiny memories (the optimizer runs in several chunks); byte input. */
static void test_sgd_4p(void **state)
{
	(void)state;
	static const size_t w[] = { 6, 7, 5, 3 };
	struct ftpu_train_config c = { .n_layers = 3, .widths = w, .batch = 6,
				       .optimizer = FTPU_OPTIMIZER_SGD, .learning_rate = 0.1f,
				       .momentum = 0.9f, .input = FTPU_TRAIN_INPUT_U8 };
	sim_vs_ref("sim:rows=4", "ref:rows=4", &c, 3, 2);
}

/* The demo's model at batch 128, byte input as the demo sends it
 * (FTPU_FULL=1: three steps; else one). */
static void test_demo_shape(void **state)
{
	(void)state;
	static const size_t w[] = { 784, 128, 10 };
	struct ftpu_train_config c = adam(2, w, 128);
	c.learning_rate = 1e-3f;
	c.input = FTPU_TRAIN_INPUT_U8;
	sim_vs_ref("sim", "ref", &c, ftpu_test_full() ? 3 : 1, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adam_16),
		cmocka_unit_test(test_adam_16_threads),
		cmocka_unit_test(test_sgd_4p),
		cmocka_unit_test(test_demo_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
