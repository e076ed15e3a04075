/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_array.c - the systolic array (rtl/core/ftpu_systolic_array.sv) runs
 * whole GEMMs, driven cycle by cycle by harness/array_gemm.h, and must
 * match the reference GEMM bit for bit: ragged shapes, K folds through the
 * column-top partial sums, accumulation, special values inside the
 * matrices; and take exactly the cycles of the stall-free schedule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "array_gemm.h"
#include "ftpu_test.h"
#include "numeric.h"

struct fixture {
	struct ftpu_sim *a16, *a4x6, *a4x6b; /* a4x6b: ColSkew 0 (broadcast) */
};

static struct ftpu_sim *open_traced(struct ftpu_sim *(*open)(const char *),
				    const char *name)
{
	char path[512];
	const char *dir = getenv("FTPU_TRACE_DIR");
	if (!dir)
		return open(NULL);
	snprintf(path, sizeof(path), "%s/test_array-%s.fst", dir, name);
	return open(path);
}

static int setup(void **state)
{
	static struct fixture fx;
	fx.a16 = open_traced(ftpu_sim_open_array_16x16, "16x16");
	fx.a4x6 = open_traced(ftpu_sim_open_array_4x6, "4x6");
	fx.a4x6b = open_traced(ftpu_sim_open_array_4x6b, "4x6b");
	*state = &fx;
	return fx.a16 && fx.a4x6 && fx.a4x6b ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	ftpu_sim_close(fx->a16);
	ftpu_sim_close(fx->a4x6);
	ftpu_sim_close(fx->a4x6b);
	return 0;
}

/* Runs one GEMM on the array and on the reference; asserts equal bits.
 * Returns the stats for cycle checks. */
static struct array_gemm_stats run_case(struct ftpu_sim *sim, size_t M, size_t K,
					size_t N, bool accumulate,
					unsigned special, uint64_t seed)
{
	struct rng r = { seed };
	size_t lda = K + (seed & 3), ldb = N + (seed >> 2 & 1);
	uint16_t *A = malloc(M * lda * sizeof(*A));
	uint16_t *B = malloc(K * ldb * sizeof(*B));
	uint32_t *C = malloc(M * N * sizeof(*C)), *want = malloc(M * N * sizeof(*C));
	assert_non_null(A), assert_non_null(B), assert_non_null(C), assert_non_null(want);
	for (size_t i = 0; i < M * lda; i++)
		A[i] = rng_bf16_operand(&r, special);
	for (size_t i = 0; i < K * ldb; i++)
		B[i] = rng_bf16_operand(&r, special);
	for (size_t i = 0; i < M * N; i++)
		C[i] = want[i] = (i % 7 == 3) ? 0x80000000u : rng_f32(&r);

	struct array_gemm_stats st;
	assert_int_equal(array_gemm(sim, M, N, K, A, lda, B, ldb, C, N, accumulate, &st), 0);
	ftpu_ref_gemm_plain(M, N, K, A, lda, B, ldb, want, N, accumulate);
	size_t bad = 0;
	for (size_t i = 0; i < M * N; i++)
		if (C[i] != want[i] && bad++ < 5)
			fprintf(stderr, "%zux%zux%zu acc=%d seed=%#llx: C[%zu][%zu] rtl %08x ref %08x\n",
				M, K, N, accumulate, (unsigned long long)seed, i / N, i % N,
				C[i], want[i]);
	free(A), free(B), free(C), free(want);
	assert_int_equal(bad, 0);
	return st;
}

static void check_shapes(struct ftpu_sim *sim, const size_t (*shapes)[3], size_t n)
{
	uint64_t seed = ftpu_test_seed();
	for (size_t i = 0; i < n; i++)
		for (int acc = 0; acc < 2; acc++)
			run_case(sim, shapes[i][0], shapes[i][1], shapes[i][2], acc, 20,
				 seed + i * 2 + acc);
}

/* M, K, N off the array's multiples; K beyond ROWS folds through the
 * column tops, N beyond COLS tiles; M below ROWS leaves fold bubbles. */
static void test_array_ragged_shapes_16x16(void **state)
{
	static const size_t shapes[][3] = {
		{ 1, 1, 1 },  { 3, 5, 7 },   { 16, 16, 16 }, { 17, 33, 15 },
		{ 40, 20, 17 }, { 5, 70, 3 }, { 64, 48, 50 }, { 2, 100, 40 },
	};
	check_shapes(((struct fixture *)*state)->a16, shapes, sizeof(shapes) / sizeof(shapes[0]));
}

static void test_array_ragged_shapes_4x6(void **state)
{
	static const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 7, 9, 13 }, { 4, 6, 6 }, { 30, 17, 19 }, { 2, 41, 5 },
	};
	struct fixture *fx = *state;
	check_shapes(fx->a4x6, shapes, sizeof(shapes) / sizeof(shapes[0]));
	check_shapes(fx->a4x6b, shapes, sizeof(shapes) / sizeof(shapes[0]));
}

/* Random shapes up to a few tiles each way, accumulating or not, on all
 * three arrays (the 4x6 ones pipelined as on boards, one of them with its
 * activations broadcast). FTPU_FULL runs ten times more. */
static void test_array_random_shapes(void **state)
{
	struct fixture *fx = *state;
	struct rng r = { ftpu_test_seed() ^ 0xA11 };
	int n = ftpu_test_full() ? 400 : 40;
	for (int i = 0; i < n; i++) {
		struct ftpu_sim *sim = (i % 3 == 1) ? fx->a4x6 : (i % 3 == 2) ? fx->a4x6b : fx->a16;
		size_t M = 1 + rng_below(&r, 70), K = 1 + rng_below(&r, 70);
		size_t N = 1 + rng_below(&r, 70);
		run_case(sim, M, K, N, rng_below(&r, 2), 20, rng_next(&r));
	}
}

/* NaN, Inf, zeros and extremes in a quarter of all operands: canonical NaN,
 * signed zeros and overflow must survive the array exactly. */
static void test_array_special_values(void **state)
{
	struct fixture *fx = *state;
	run_case(fx->a16, 20, 40, 20, true, 250, ftpu_test_seed() ^ 0x77);
	run_case(fx->a4x6, 9, 11, 13, false, 250, ftpu_test_seed() ^ 0x78);
	run_case(fx->a4x6, 9, 11, 13, true, 1000, ftpu_test_seed() ^ 0x79);
	run_case(fx->a4x6b, 9, 11, 13, true, 1000, ftpu_test_seed() ^ 0x7A);
}

/* Adding padding rows must not turn a -0 accumulator into +0. */
static void test_array_negative_zero_survives_padding(void **state)
{
	struct fixture *fx = *state;
	uint16_t A[3] = { 0x8000, 0x0000, 0x8000 }, B[3] = { 0x3F80, 0x8000, 0x4000 };
	uint32_t C = 0x80000000u, want = 0x80000000u;
	struct array_gemm_stats st;
	/* products -0, -0, -0 onto -0: the sum stays -0 */
	assert_int_equal(array_gemm(fx->a16, 1, 1, 3, A, 3, B, 1, &C, 1, true, &st), 0);
	ftpu_ref_gemm_plain(1, 1, 3, A, 3, B, 1, &want, 1, true);
	assert_int_equal(want, 0x80000000u);
	assert_int_equal(C, want);
}

/* Stall-free shapes finish in exactly the predicted cycles; the prediction
 * is within the double-buffered model (docs/array.md, Cycle model); M >= 4
 * ROWS reaches 95% once the GEMM is long enough to hide the array's fill and
 * drain (Latency cycles). On the pipelined 4x6 array (4 cycles per PE) this
 * also checks that overlapping tile loads keep the weight port at one row
 * per cycle. */
static void check_cycles(struct ftpu_sim *sim, const size_t (*shapes)[3], size_t n)
{
	struct ftpu_array_dims d;
	assert_true(ftpu_sim_array_dims(sim, &d));
	for (size_t i = 0; i < n; i++) {
		size_t M = shapes[i][0], K = shapes[i][1], N = shapes[i][2];
		struct array_gemm_stats st = run_case(sim, M, K, N, false, 0, 99 + i);
		uint64_t fold = M > d.rows ? M : d.rows;
		/* the model with P = the PE's vertical pipeline depth */
		uint64_t model = d.rows + st.folds * fold +
				 d.row_delay * (d.rows + d.cols - 2);
		double util = (double)M * K * N / ((double)d.rows * d.cols * st.cycles);
		printf("%ux%u D=%u %3zux%3zux%3zu: %llu cycles, schedule %llu, "
		       "model %llu, psum waits %llu, utilization %.1f%%\n",
		       d.rows, d.cols, d.row_delay, M, K, N,
		       (unsigned long long)st.cycles, (unsigned long long)st.predicted,
		       (unsigned long long)model, (unsigned long long)st.stalls,
		       100 * util);
		assert_int_equal(st.cycles, st.predicted);
		assert_true(st.cycles <= model);
		if (M >= 4 * d.rows && st.folds * M >= 19 * d.latency)
			assert_true(util >= 0.95);
	}
}

static void test_array_cycles_match_schedule(void **state)
{
	struct fixture *fx = *state;
	static const size_t s16[][3] = {
		{ 64, 64, 64 }, { 64, 512, 64 }, { 128, 32, 48 }, { 16, 16, 16 },
		{ 24, 48, 64 }, { 5, 40, 100 },
	};
	static const size_t s4x6[][3] = {
		{ 16, 32, 24 }, { 8, 12, 18 }, { 40, 64, 30 }, { 4, 4, 6 },
	};
	check_cycles(fx->a16, s16, sizeof(s16) / sizeof(s16[0]));
	check_cycles(fx->a4x6, s4x6, sizeof(s4x6) / sizeof(s4x6[0]));
	check_cycles(fx->a4x6b, s4x6, sizeof(s4x6) / sizeof(s4x6[0]));
}

/* One n-tile with few rows: the next k-fold must wait for its partial sums;
 * the schedule stalls and the result is still exact. */
static void test_array_partial_sum_dependency_stalls(void **state)
{
	struct fixture *fx = *state;
	struct array_gemm_stats st = run_case(fx->a16, 3, 64, 10, true, 20, 1234);
	assert_true(st.stalls > 0);
	assert_true(st.cycles > st.predicted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_ragged_shapes_16x16),
		cmocka_unit_test(test_array_ragged_shapes_4x6),
		cmocka_unit_test(test_array_random_shapes),
		cmocka_unit_test(test_array_special_values),
		cmocka_unit_test(test_array_negative_zero_survives_padding),
		cmocka_unit_test(test_array_cycles_match_schedule),
		cmocka_unit_test(test_array_partial_sum_dependency_stalls),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
