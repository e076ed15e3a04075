/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_libftpu_sim.c - libftpu's public API end to end through the
 * simulated device ("sim", the Verilated rtl/ftpu_top.sv) and the C model
 * ("ref"): random GEMM shapes and transposes against the reference GEMM,
 * bit-identical between the two transports; a compiled MLP graph against
 * hand-composed GEMM + bias + ReLU, identical on both; the 4x4 boards'
 * pipeline ("sim:rows=4") too.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu.h"
#include "numeric.h"
#include "ftpu_test.h"

static float *randm(struct rng *r, size_t n)
{
	float *p = malloc(n * sizeof(float));
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (float)(int32_t)rng_u32(r) / 2147483648.0f * 4.0f;
	return p;
}

static uint16_t bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return ftpu_f32_to_bf16(u);
}

/* The reference for ftpu_gemm(alpha 1, beta 0): bf16-rounded op(A), op(B)
 * through ftpu_ref_gemm. */
static void reference(bool ta, bool tb, size_t m, size_t n, size_t k, const float *a,
		      size_t lda, const float *b, size_t ldb, uint32_t *c)
{
	uint16_t *a16 = malloc(m * k * 2), *b16 = malloc(k * n * 2);
	assert_true(a16 && b16);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < k; j++)
			a16[i * k + j] = bf16(ta ? a[j * lda + i] : a[i * lda + j]);
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < n; j++)
			b16[i * n + j] = bf16(tb ? b[j * ldb + i] : b[i * ldb + j]);
	memset(c, 0, m * n * 4);
	ftpu_ref_gemm(m, n, k, a16, k, b16, n, c, n, false);
	free(a16);
	free(b16);
}

static void test_gemm_random(void **state)
{
	(void)state;
	struct rng r = { ftpu_test_seed() };
	static const char *const uris[] = { "sim", "ref", "sim:rows=4" };
	ftpu_device *dev[3];
	for (size_t u = 0; u < 3; u++)
		assert_int_equal(ftpu_open(uris[u], &dev[u]), FTPU_OK);
	const int rounds = ftpu_test_full() ? 60 : 12;
	for (int t = 0; t < rounds; t++) {
		size_t m = 1 + rng_below(&r, t < 4 ? 8 : 120);
		size_t k = 1 + rng_below(&r, 150), n = 1 + rng_below(&r, 70);
		bool ta = rng_below(&r, 2), tb = rng_below(&r, 2);
		size_t lda = (ta ? m : k) + rng_below(&r, 3), ldb = (tb ? k : n) + rng_below(&r, 3);
		float *a = randm(&r, (ta ? k : m) * lda), *b = randm(&r, (tb ? n : k) * ldb);
		uint32_t *want = malloc(m * n * 4);
		float *c[3];
		reference(ta, tb, m, n, k, a, lda, b, ldb, want);
		/* the 4x4 device has small memories: only the small shapes */
		size_t ndev = m * k <= 40 * 16 && k * n <= 40 * 16 ? 3 : 2;
		for (size_t u = 0; u < ndev; u++) {
			c[u] = malloc(m * n * 4);
			int ret = ftpu_gemm(dev[u], ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
					    c[u], n);
			if (ret)
				fail_msg("%s %zux%zux%zu ta %d tb %d: %s: %s", uris[u], m, k, n, ta,
					 tb, ftpu_strerror(ret), ftpu_last_error(dev[u]));
			if (memcmp(c[u], want, m * n * 4))
				fail_msg("%s %zux%zux%zu ta %d tb %d: differs from the reference "
					 "(seed %#llx)", uris[u], m, k, n, ta, tb,
					 (unsigned long long)ftpu_test_seed());
		}
		for (size_t u = 0; u < ndev; u++)
			free(c[u]);
		free(a);
		free(b);
		free(want);
	}
	struct ftpu_stats st;
	assert_int_equal(ftpu_last_stats(dev[0], &st), FTPU_OK);
	assert_true(st.cycles > 0 && st.macs > 0 && st.utilization > 0 && st.roofline > 0);
	assert_true(st.cycles == st.busy + st.idle);
	for (size_t u = 0; u < 3; u++)
		ftpu_close(dev[u]);
}

/* 784-128-10 MLP forward pass at a small batch: a compiled graph with
 * bias + ReLU fused into ACTIVATE, on sim and ref. */
static void test_graph_mlp(void **state)
{
	(void)state;
	struct rng r = { ftpu_test_seed() + 1 };
	const size_t B = 24, I = 784, H = 128, O = 10;
	float *x = randm(&r, B * I), *w1 = randm(&r, I * H), *b1 = randm(&r, H);
	float *w2 = randm(&r, H * O), *b2 = randm(&r, O);
	float *y[2];

	/* hand-composed: GEMM, then bias + ReLU and bf16 per element */
	uint32_t *acc1 = malloc(B * H * 4), *acc2 = malloc(B * O * 4);
	float *h = malloc(B * H * 4), *want = malloc(B * O * 4);
	reference(false, false, B, H, I, x, I, w1, H, acc1);
	for (size_t i = 0; i < B * H; i++) {
		uint32_t bb;
		memcpy(&bb, &b1[i % H], 4);
		uint32_t hv = (uint32_t)ftpu_ref_activate(acc1[i], bb, true) << 16;
		memcpy(&h[i], &hv, 4);
	}
	reference(false, false, B, O, H, h, H, w2, O, acc2);
	for (size_t i = 0; i < B * O; i++) {
		uint32_t bb;
		memcpy(&bb, &b2[i % O], 4);
		uint32_t yv = (uint32_t)ftpu_ref_activate(acc2[i], bb, false) << 16;
		memcpy(&want[i], &yv, 4);
	}

	static const char *const uris[] = { "sim", "ref" };
	for (size_t u = 0; u < 2; u++) {
		ftpu_device *dev;
		ftpu_graph *g;
		ftpu_program *p;
		assert_int_equal(ftpu_open(uris[u], &dev), FTPU_OK);
		assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
		ftpu_tensor tx = ftpu_graph_input(g, B, I, "x");
		ftpu_tensor t1 = ftpu_graph_relu(g, ftpu_graph_bias_add(g,
			ftpu_graph_matmul(g, tx, ftpu_graph_constant(g, I, H, w1, H, "w1")),
			ftpu_graph_constant(g, 1, H, b1, H, "b1")));
		ftpu_tensor t2 = ftpu_graph_bias_add(g,
			ftpu_graph_matmul(g, t1, ftpu_graph_constant(g, H, O, w2, O, "w2")),
			ftpu_graph_constant(g, 1, O, b2, O, "b2"));
		assert_int_equal(ftpu_graph_output(g, t2), FTPU_OK);
		int ret = ftpu_compile(dev, g, &p);
		if (ret)
			fail_msg("%s: compile: %s", uris[u], ftpu_last_error(dev));
		ftpu_graph_destroy(g);
		y[u] = malloc(B * O * 4);
		const float *in[] = { x };
		float *out[] = { y[u] };
		struct ftpu_stats st;
		for (int run = 0; run < 2; run++) { /* the second with weights resident */
			ret = ftpu_run(dev, p, in, out, &st);
			if (ret)
				fail_msg("%s: run: %s", uris[u], ftpu_last_error(dev));
			assert_memory_equal(y[u], want, B * O * 4);
		}
		/* 49 x 8 tiles of W1, 8 x 1 of W2, B vectors each, 16 x 16 MACs */
		assert_int_equal(st.macs, (uint64_t)B * 16 * 16 * (49 * 8 + 8 * 1));
		ftpu_program_free(p);
		ftpu_close(dev);
	}
	assert_memory_equal(y[0], y[1], B * O * 4);
	free(y[0]);
	free(y[1]);
	free(x);
	free(w1);
	free(b1);
	free(w2);
	free(b2);
	free(acc1);
	free(acc2);
	free(h);
	free(want);
}

/* One device handle shared by threads: calls serialize inside, every
 * result is right. */
struct worker {
	ftpu_device *dev;
	unsigned seed;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rng r = { w->seed };
	for (int t = 0; t < 4; t++) {
		size_t m = 1 + rng_below(&r, 40), k = 1 + rng_below(&r, 60), n = 1 + rng_below(&r, 40);
		float *a = randm(&r, m * k), *b = randm(&r, k * n), *c = malloc(m * n * 4);
		uint32_t *want = malloc(m * n * 4);
		reference(false, false, m, n, k, a, k, b, n, want);
		if (ftpu_gemm(w->dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f,
			      c, n) || memcmp(c, want, m * n * 4))
			w->bad++;
		free(a);
		free(b);
		free(c);
		free(want);
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	static const char *const uris[] = { "ref", "sim" };
	for (size_t u = 0; u < 2; u++) {
		ftpu_device *dev;
		pthread_t th[4];
		struct worker w[4];
		assert_int_equal(ftpu_open(uris[u], &dev), FTPU_OK);
		for (int i = 0; i < 4; i++) {
			w[i] = (struct worker){ .dev = dev, .seed = 100 + (unsigned)i };
			assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			if (w[i].bad)
				fail_msg("%s: thread %d: %d wrong results", uris[u], i, w[i].bad);
		}
		ftpu_close(dev);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_random),
		cmocka_unit_test(test_graph_mlp),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests_name("libftpu through sim and ref", tests, NULL, NULL);
}
