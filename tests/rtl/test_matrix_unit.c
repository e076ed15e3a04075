/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_matrix_unit.c - the matrix unit (rtl/core/ftpu_matrix_unit.sv) runs
 * LOAD_WEIGHTS and MATMUL commands against behavioural memories
 * (sim/tops/ftpu_matrix_unit_tb.sv): tiled GEMMs issued as the compiler
 * will, k-tile outer and n-tile inner, (LOAD_WEIGHTS, MATMUL SWAP
 * [ACCUMULATE]) pairs, must match the reference GEMM bit for bit; the
 * weight-buffer and accumulator hazards must give in-order results; and
 * stall-free GEMMs take the array's schedule (harness/array_gemm.h)
 * plus a fixed command-issue overhead. Every test runs on three models:
 * the simulated device's 16x16 array with RowDelay 1, a 4x4 array at the
 * ULX3S's pipeline depth (AddCuts 7, RowDelay 4: overlapping tile loads;
 * PipeRegs 1: the ACC hazard from a register), and the Tang Nano 20K's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "array_gemm.h"
#include "ftpu_test.h"
#include "numeric.h"

/* Cycles from the first command taken to its first vector entering the
 * array: dispatch of LOAD_WEIGHTS (1), dispatch of MATMUL (1), the UB read
 * (1). Every fold after the first follows at the stall-free period. */
#define MU_OVERHEAD 3

struct fixture {
	struct ftpu_sim *mu;
	struct ftpu_mu_dims d;
};

static int setup_model(void **state, struct ftpu_sim *(*open)(const char *),
		       const char *name)
{
	static struct fixture fx;
	char path[512];
	const char *dir = getenv("FTPU_TRACE_DIR");
	if (dir)
		snprintf(path, sizeof(path), "%s/test_matrix_unit_%s.fst", dir, name);
	fx.mu = open(dir ? path : NULL);
	if (!fx.mu || !ftpu_sim_mu_dims(fx.mu, &fx.d))
		return -1;
	ftpu_sim_reset(fx.mu, 4);
	*state = &fx;
	return 0;
}

static int setup_16(void **state)
{
	return setup_model(state, ftpu_sim_open_matrix_unit_16, "16");
}

static int setup_4p(void **state)
{
	return setup_model(state, ftpu_sim_open_matrix_unit_4p, "4p");
}

static int setup_4t(void **state)
{
	return setup_model(state, ftpu_sim_open_matrix_unit_4t, "4t");
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	ftpu_sim_close(fx->mu);
	return 0;
}

/* Writes vector v (n bf16) to UB or WM at addr. */
static void put16(struct fixture *fx, enum ftpu_sim_mu_mem mem, unsigned addr,
		  const uint16_t *v)
{
	uint32_t w[128] = { 0 };
	for (unsigned i = 0; i < fx->d.n; i++)
		w[i / 2] |= (uint32_t)v[i] << (16 * (i % 2));
	assert_true(ftpu_sim_mu_write(fx->mu, mem, addr, w));
}

static void push(struct fixture *fx, bool matmul, bool swap, bool acc,
		 unsigned wm, unsigned ub, unsigned accad, unsigned n)
{
	struct ftpu_mu_cmd c = { .matmul = matmul, .swap = swap, .accumulate = acc,
				 .wm_addr = wm, .ub_addr = ub, .acc_addr = accad, .n = n };
	assert_true(ftpu_sim_mu_push(fx->mu, &c));
}

/* Runs the queued commands with a cycle budget (no hangs). */
static struct ftpu_mu_stats run(struct fixture *fx, uint64_t budget)
{
	struct ftpu_mu_stats st;
	assert_true(ftpu_sim_mu_run(fx->mu, budget, &st));
	return st;
}

/*
 * C[M x N] = (accumulate ? C : +0) + A[M x K] * B[K x N] through the unit.
 * Layout: UB[kt*M + m] is row m of A's k-tile kt (+0 beyond K); the tile
 * (kt, nt) is WM rows (kt*NT + nt)*n.. (-0 beyond K, 0 beyond N); C's
 * n-tile nt is ACC[nt*M + m]. Commands: for kt, for nt: LOAD_WEIGHTS,
 * MATMUL SWAP | (kt > 0 || accumulate ? ACCUMULATE : 0).
 */
static struct ftpu_mu_stats mu_gemm(struct fixture *fx, size_t M, size_t K,
				    size_t N, const uint16_t *A,
				    const uint16_t *B, uint32_t *C, bool accumulate)
{
	const size_t n = fx->d.n, KT = (K + n - 1) / n, NT = (N + n - 1) / n;
	assert_true(M * KT <= fx->d.ub_vectors && KT * NT * n <= fx->d.wm_rows &&
		    M * NT <= fx->d.acc_vectors && M <= 65535);
	uint16_t v[256];
	uint32_t w[256];
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t m = 0; m < M; m++) {
			for (size_t r = 0; r < n; r++) {
				size_t k = kt * n + r;
				v[r] = k < K ? A[m * K + k] : ARRAY_PAD_ACT;
			}
			put16(fx, FTPU_SIM_MU_UB, (unsigned)(kt * M + m), v);
		}
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t nt = 0; nt < NT; nt++)
			for (size_t r = 0; r < n; r++) {
				size_t k = kt * n + r;
				for (size_t c = 0; c < n; c++) {
					size_t j = nt * n + c;
					v[c] = k >= K ? ARRAY_PAD_WEIGHT : j < N ? B[k * N + j] : 0;
				}
				put16(fx, FTPU_SIM_MU_WM, (unsigned)((kt * NT + nt) * n + r), v);
			}
	if (accumulate)
		for (size_t nt = 0; nt < NT; nt++)
			for (size_t m = 0; m < M; m++) {
				for (size_t c = 0; c < n; c++) {
					size_t j = nt * n + c;
					w[c] = j < N ? C[m * N + j] : 0;
				}
				assert_true(ftpu_sim_mu_write(fx->mu, FTPU_SIM_MU_ACC,
							      (unsigned)(nt * M + m), w));
			}
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t nt = 0; nt < NT; nt++) {
			push(fx, false, false, false, (unsigned)((kt * NT + nt) * n), 0, 0, 0);
			push(fx, true, true, kt > 0 || accumulate, 0, (unsigned)(kt * M),
			     (unsigned)(nt * M), (unsigned)M);
		}
	struct ftpu_array_dims ad = { (unsigned)n, (unsigned)n, fx->d.row_delay, fx->d.latency };
	uint64_t budget = 4 * array_gemm_predicted(&ad, M, K, N) + 1000 +
			  KT * NT * (fx->d.latency + 4);
	struct ftpu_mu_stats st = run(fx, budget);
	for (size_t nt = 0; nt < NT; nt++)
		for (size_t m = 0; m < M; m++) {
			assert_true(ftpu_sim_mu_read(fx->mu, FTPU_SIM_MU_ACC,
						     (unsigned)(nt * M + m), w));
			for (size_t c = 0; c < n && nt * n + c < N; c++)
				C[m * N + nt * n + c] = w[c];
		}
	assert_int_equal(st.vectors, M * KT * NT);
	assert_int_equal(st.acc_writes, M * KT * NT);
	return st;
}

/* One GEMM on the unit and on the reference; asserts equal bits. */
static struct ftpu_mu_stats run_case(struct fixture *fx, size_t M, size_t K,
				     size_t N, bool accumulate, unsigned special,
				     uint64_t seed)
{
	struct rng r = { seed };
	uint16_t *A = malloc(M * K * sizeof(*A)), *B = malloc(K * N * sizeof(*B));
	uint32_t *C = malloc(M * N * sizeof(*C)), *want = malloc(M * N * sizeof(*C));
	assert_non_null(A), assert_non_null(B), assert_non_null(C), assert_non_null(want);
	for (size_t i = 0; i < M * K; i++)
		A[i] = rng_bf16_operand(&r, special);
	for (size_t i = 0; i < K * N; i++)
		B[i] = rng_bf16_operand(&r, special);
	for (size_t i = 0; i < M * N; i++)
		C[i] = want[i] = (i % 7 == 3) ? 0x80000000u : rng_f32(&r);
	struct ftpu_mu_stats st = mu_gemm(fx, M, K, N, A, B, C, accumulate);
	ftpu_ref_gemm(M, N, K, A, K, B, N, want, N, accumulate);
	size_t bad = 0;
	for (size_t i = 0; i < M * N; i++)
		if (C[i] != want[i] && bad++ < 5)
			fprintf(stderr, "%zux%zux%zu acc=%d seed=%#llx: C[%zu][%zu] rtl %08x ref %08x\n",
				M, K, N, accumulate, (unsigned long long)seed, i / N,
				i % N, C[i], want[i]);
	free(A), free(B), free(C), free(want);
	assert_int_equal(bad, 0);
	return st;
}

/* Random shapes up to a few tiles each way, with and without accumulating
 * onto preloaded ACC values, special values among the operands. */
static void test_matrix_unit_tiled_gemm_random_shapes(void **state)
{
	struct fixture *fx = *state;
	struct rng r = { ftpu_test_seed() ^ 0x3A7 };
	int cases = ftpu_test_full() ? 600 : 60;
	for (int i = 0; i < cases; i++) {
		size_t M = 1 + rng_below(&r, 70), K = 1 + rng_below(&r, 70);
		size_t N = 1 + rng_below(&r, 70);
		run_case(fx, M, K, N, rng_below(&r, 2), 20, rng_next(&r));
	}
}

/* Ragged and edge shapes, each accumulating onto preloaded ACC and not. */
static void test_matrix_unit_ragged_shapes_accumulate(void **state)
{
	static const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 3, 5, 7 }, { 16, 16, 16 }, { 17, 33, 15 },
		{ 40, 20, 17 }, { 5, 70, 3 }, { 2, 100, 40 }, { 33, 16, 48 },
	};
	uint64_t seed = ftpu_test_seed();
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int acc = 0; acc < 2; acc++)
			run_case(*state, shapes[i][0], shapes[i][1], shapes[i][2], acc,
				 20, seed + i * 2 + acc);
}

/* NaN, Inf, zeros and extremes in a quarter of all operands. */
static void test_matrix_unit_special_values(void **state)
{
	run_case(*state, 20, 40, 20, true, 250, ftpu_test_seed() ^ 0x77);
	run_case(*state, 9, 11, 13, false, 1000, ftpu_test_seed() ^ 0x78);
}

/* A random n x n tile T, stored at WM rows row..row+n-1. */
static void put_tile(struct fixture *fx, unsigned row, uint16_t *T, struct rng *r)
{
	const unsigned n = fx->d.n;
	for (unsigned i = 0; i < n * n; i++)
		T[i] = rng_bf16_operand(r, 20);
	for (unsigned k = 0; k < n; k++)
		put16(fx, FTPU_SIM_MU_WM, row + k, T + k * n);
}

static void put_acts(struct fixture *fx, unsigned ub, size_t m, uint16_t *A,
		     struct rng *r)
{
	const unsigned n = fx->d.n;
	for (size_t i = 0; i < m * n; i++)
		A[i] = rng_bf16_operand(r, 20);
	for (size_t i = 0; i < m; i++)
		put16(fx, FTPU_SIM_MU_UB, ub + (unsigned)i, A + i * n);
}

static void check_acc(struct fixture *fx, unsigned acc, size_t m,
		      const uint16_t *A, const uint16_t *T, const char *what)
{
	const unsigned n = fx->d.n;
	uint32_t want[64 * 16] = { 0 }, got[16];
	assert_true(m <= 64 && n <= 16);
	ftpu_ref_gemm(m, n, n, A, n, T, n, want, n, false);
	size_t bad = 0;
	for (size_t i = 0; i < m; i++) {
		assert_true(ftpu_sim_mu_read(fx->mu, FTPU_SIM_MU_ACC, acc + (unsigned)i, got));
		for (unsigned c = 0; c < n; c++)
			if (got[c] != want[i * n + c] && bad++ < 3)
				fprintf(stderr, "%s: row %zu col %u rtl %08x ref %08x\n",
					what, i, c, got[c], want[i * n + c]);
	}
	assert_int_equal(bad, 0);
}

/* LOAD_WEIGHTS then MATMUL without SWAP multiplies by the old tile; the
 * next MATMUL SWAP takes the new one. The load overlaps the long MATMUL. */
static void test_matrix_unit_matmul_without_swap_keeps_tile(void **state)
{
	struct fixture *fx = *state;
	struct rng r = { ftpu_test_seed() ^ 0x5A };
	static uint16_t T1[256], T2[256], A1[40 * 16], A2[40 * 16], A3[40 * 16];
	const unsigned n = fx->d.n;
	put_tile(fx, 0, T1, &r);
	put_tile(fx, n, T2, &r);
	put_acts(fx, 0, 40, A1, &r);
	put_acts(fx, 40, 40, A2, &r);
	put_acts(fx, 80, 40, A3, &r);
	push(fx, false, false, false, 0, 0, 0, 0);      /* T1 -> free buffer */
	push(fx, true, true, false, 0, 0, 0, 40);       /* A1 * T1 */
	push(fx, false, false, false, n, 0, 0, 0);      /* T2 -> free buffer */
	push(fx, true, false, false, 0, 40, 40, 40);    /* A2 * T1 still */
	push(fx, true, false, false, 0, 80, 120, 20);   /* A3[0..20) * T1 */
	push(fx, true, true, false, 0, 100, 140, 20);   /* A3[20..40) * T2 */
	struct ftpu_mu_stats st = run(fx, 2000);
	check_acc(fx, 0, 40, A1, T1, "A1*T1");
	check_acc(fx, 40, 40, A2, T1, "A2*T1 (no swap)");
	check_acc(fx, 120, 20, A3, T1, "A3a*T1 (no swap)");
	check_acc(fx, 140, 20, A3 + 20 * n, T2, "A3b*T2 (swap)");
	assert_int_equal(st.vectors, 120);
	/* no bubble between the MATMULs: 3 + 120 vectors + latency */
	assert_int_equal(st.span, MU_OVERHEAD + 120 + fx->d.latency);
}

/* Two LOAD_WEIGHTS before a SWAP: the second overwrites the free buffer
 * (after the first is done), while MATMULs keep using the current tile;
 * the SWAP then takes the second tile. Then a load into the buffer the
 * first MATMUL used, right behind it. */
static void test_matrix_unit_two_loads_before_swap(void **state)
{
	struct fixture *fx = *state;
	struct rng r = { ftpu_test_seed() ^ 0x2L };
	static uint16_t T1[256], T2[256], T3[256], T4[256], A[40 * 16];
	const unsigned n = fx->d.n;
	put_tile(fx, 0, T1, &r);
	put_tile(fx, n, T2, &r);
	put_tile(fx, 2 * n, T3, &r);
	put_tile(fx, 3 * n, T4, &r);
	put_acts(fx, 0, 40, A, &r);
	push(fx, false, false, false, 0, 0, 0, 0);      /* T1 */
	push(fx, true, true, false, 0, 0, 0, 8);        /* A[0..8) * T1 */
	push(fx, false, false, false, n, 0, 0, 0);      /* T2 -> free */
	push(fx, false, false, false, 2 * n, 0, 0, 0);  /* T3 -> same free buffer */
	push(fx, true, false, false, 0, 8, 8, 8);       /* A[8..16) * T1 */
	push(fx, true, true, false, 0, 16, 16, 8);      /* A[16..24) * T3 */
	push(fx, false, false, false, 3 * n, 0, 0, 0);  /* T4 -> T1's buffer */
	push(fx, true, true, false, 0, 24, 24, 8);      /* A[24..32) * T4 */
	push(fx, true, false, false, 0, 32, 32, 8);     /* A[32..40) * T4 */
	run(fx, 2000);
	check_acc(fx, 0, 8, A, T1, "T1");
	check_acc(fx, 8, 8, A + 8 * n, T1, "T1 (no swap)");
	check_acc(fx, 16, 8, A + 16 * n, T3, "T3 (second load)");
	check_acc(fx, 24, 8, A + 24 * n, T4, "T4");
	check_acc(fx, 32, 8, A + 32 * n, T4, "T4 (no swap)");
}

/* One n-tile with few rows and K > n: each accumulating MATMUL reads the
 * ACC rows the previous one has not yet written back, so it must wait; the
 * result is still exact, and the waits are counted. */
static void test_matrix_unit_acc_hazard_waits(void **state)
{
	struct fixture *fx = *state;
	/* 10 columns, or one n-tile's on a narrower array: with more n-tiles the
	 * folds between two of the same tile can outlast the wait (4x4, D = 2). */
	size_t N1 = fx->d.n < 10 ? fx->d.n : 10;
	struct ftpu_mu_stats st = run_case(fx, 3, 64, N1, true, 20, 1234);
	struct ftpu_array_dims ad = { fx->d.n, fx->d.n, fx->d.row_delay, fx->d.latency };
	printf("3x64x%zu (ACC hazard): span %llu cycles, input stalls %llu\n", N1,
	       (unsigned long long)st.span, (unsigned long long)st.input_stalls);
	assert_true(st.input_stalls > 0);
	assert_true(st.span > array_gemm_predicted(&ad, 3, 64, N1) + MU_OVERHEAD);
	/* one n-tile, 20 rows per fold (Latency's on the 4x4 with D = 2):
	 * shorter than Latency + 2 */
	size_t M2 = fx->d.latency < 20 ? fx->d.latency : 20;
	st = run_case(fx, M2, 5 * fx->d.n, fx->d.n, false, 20, 4321);
	assert_true(st.input_stalls > 0);
	/* The boundary: a row written back in cycle w (Latency + 1 cycles after
	 * its UB read) may be read from w + 1 on, so one n-tile of M rows runs
	 * stall-free from M = Latency + 2 on; M = Latency + 1 waits a cycle per
	 * fold (and reading a cycle early would give wrong sums). */
	size_t M = fx->d.latency + 2, n = fx->d.n;
	st = run_case(fx, M, 3 * n, n, false, 20, 99);
	assert_int_equal(st.input_stalls, 0);
	assert_int_equal(st.span, array_gemm_predicted(&ad, M, 3 * n, n) + MU_OVERHEAD);
	st = run_case(fx, M - 1, 3 * n, n, false, 20, 98);
	assert_int_equal(st.input_stalls, 2);
	assert_int_equal(st.span, array_gemm_predicted(&ad, M - 1, 3 * n, n) + MU_OVERHEAD + 2);
}

/*
 * Random command streams whose MATMULs accumulate onto overlapping ACC
 * rows, with short and long MATMULs, loads and swaps mixed in: the ACC
 * hazard must hold back exactly the rows still owed, also when an older
 * MATMUL's write-backs come with gaps (its own waits), which tiled GEMMs
 * never produce. After each stream every ACC row is checked against a
 * shadow that ran the commands one after another (ftpu_ref_gemm per
 * MATMUL, so a row read too early shows as a wrong sum); with PipeRegs the
 * model's a_hazard_ahead assertion also compares the registered hazard
 * with the test made in the cycle itself.
 */
static void test_matrix_unit_random_overlapping_accumulates(void **state)
{
	enum { ACC_ROWS = 24, UB_ROWS = 64, TILES = 6, CMDS = 40 };
	struct fixture *fx = *state;
	const unsigned n = fx->d.n;
	struct rng r = { ftpu_test_seed() ^ 0xACC };
	static uint16_t T[TILES][256], A[UB_ROWS * 16];
	static uint32_t shadow[ACC_ROWS * 16], got[16];
	int rounds = ftpu_test_full() ? 200 : 20;
	uint64_t stalls = 0;
	for (unsigned t = 0; t < TILES; t++)
		put_tile(fx, t * n, T[t], &r);
	put_acts(fx, 0, UB_ROWS, A, &r);
	for (int round = 0; round < rounds; round++) {
		for (unsigned i = 0; i < ACC_ROWS; i++) {
			for (unsigned c = 0; c < n; c++)
				shadow[i * n + c] = rng_f32(&r);
			assert_true(ftpu_sim_mu_write(fx->mu, FTPU_SIM_MU_ACC, i, shadow + i * n));
		}
		/* buf[b]: the tile in weight buffer b; cur: the one MATMUL uses */
		int buf[2] = { -1, -1 }, cur = 0;
		for (int c = 0; c < CMDS; c++) {
			bool load = buf[!cur] < 0 || rng_below(&r, 3) == 0;
			if (load) {
				unsigned t = (unsigned)rng_below(&r, TILES);
				push(fx, false, false, false, t * n, 0, 0, 0);
				buf[!cur] = (int)t;
			}
			bool swap = buf[cur] < 0 || rng_below(&r, 2);
			if (swap)
				cur = !cur;
			/* mostly short MATMULs: they keep several in flight */
			unsigned m = rng_below(&r, 4) ? 1 + (unsigned)rng_below(&r, 6)
						      : 1 + (unsigned)rng_below(&r, 20);
			unsigned acc = (unsigned)rng_below(&r, ACC_ROWS - m + 1);
			unsigned ub = (unsigned)rng_below(&r, UB_ROWS - m + 1);
			bool accumulate = rng_below(&r, 4) != 0;
			push(fx, true, swap, accumulate, 0, ub, acc, m);
			ftpu_ref_gemm(m, n, n, A + ub * n, n, T[buf[cur]], n,
				      shadow + acc * n, n, accumulate);
		}
		struct ftpu_mu_stats st = run(fx, 100000);
		stalls += st.input_stalls;
		size_t bad = 0;
		for (unsigned i = 0; i < ACC_ROWS; i++) {
			assert_true(ftpu_sim_mu_read(fx->mu, FTPU_SIM_MU_ACC, i, got));
			for (unsigned c = 0; c < n; c++)
				if (got[c] != shadow[i * n + c] && bad++ < 3)
					fprintf(stderr, "round %d: ACC[%u][%u] rtl %08x ref %08x\n",
						round, i, c, got[c], shadow[i * n + c]);
		}
		assert_int_equal(bad, 0);
	}
	printf("%d random streams of %d MATMULs: %llu ACC waits\n", rounds, CMDS,
	       (unsigned long long)stalls);
	assert_true(stalls > 0);
}

/* Stall-free shapes take exactly the array's schedule plus MU_OVERHEAD;
 * long GEMMs reach >= 95% utilization. Shapes with M < n are bound by the
 * weight port (a tile per n cycles); with RowDelay 1 they too take exactly
 * the schedule. With RowDelay > 1 their loads run in bursts of up to D on
 * the free phases, which the schedule's fold period of n only bounds:
 * there the count is printed and checked against that bound. */
static void test_matrix_unit_cycles_match_schedule(void **state)
{
	struct fixture *fx = *state;
	static const size_t shapes16[][3] = {
		{ 64, 64, 64 }, { 64, 512, 64 }, { 128, 32, 48 }, { 16, 16, 16 },
		{ 24, 48, 64 }, { 5, 40, 100 }, { 8, 64, 80 },
	};
	/* 4x4, D = 4: one n-tile's folds come back NT * max(M, n) cycles
	 * later, so NT * max(M, 4) >= Latency + 2 = 23 keeps ACC stall-free
	 * (D = 2 with ColSkew 0: Latency + 2 = 12). */
	static const size_t shapes4[][3] = {
		{ 64, 128, 16 }, { 16, 16, 16 }, { 32, 8, 12 }, { 4, 4, 4 },
		{ 4, 16, 24 }, { 5, 12, 20 }, { 6, 12, 16 }, { 23, 12, 4 },
		{ 3, 16, 32 }, { 1, 8, 96 },
	};
	const bool big = fx->d.n == 16;
	const size_t (*shapes)[3] = big ? shapes16 : shapes4;
	size_t nshapes = big ? sizeof(shapes16) / sizeof(shapes16[0]) :
			       sizeof(shapes4) / sizeof(shapes4[0]);
	struct ftpu_array_dims ad = { fx->d.n, fx->d.n, fx->d.row_delay, fx->d.latency };
	for (size_t i = 0; i < nshapes; i++) {
		size_t M = shapes[i][0], K = shapes[i][1], N = shapes[i][2];
		struct ftpu_mu_stats st = run_case(fx, M, K, N, false, 0, 99 + i);
		uint64_t pred = array_gemm_predicted(&ad, M, K, N);
		double util = (double)M * K * N / ((double)ad.rows * ad.cols * st.span);
		printf("%ux%u D=%u %3zux%3zux%3zu: %llu cycles, schedule %llu + %d, "
		       "weight waits %llu, ACC waits %llu, utilization %.1f%%\n",
		       ad.rows, ad.cols, ad.row_delay, M, K, N,
		       (unsigned long long)st.span, (unsigned long long)pred,
		       MU_OVERHEAD, (unsigned long long)st.weight_stalls,
		       (unsigned long long)st.input_stalls, 100 * util);
		assert_int_equal(st.input_stalls, 0);
		if (M >= ad.rows || ad.row_delay == 1)
			assert_int_equal(st.span, pred + MU_OVERHEAD);
		else
			assert_true(st.span <= pred + MU_OVERHEAD);
		if (M >= 4 * ad.rows && K >= 32 * ad.rows)
			assert_true(util >= 0.95);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_unit_tiled_gemm_random_shapes),
		cmocka_unit_test(test_matrix_unit_ragged_shapes_accumulate),
		cmocka_unit_test(test_matrix_unit_special_values),
		cmocka_unit_test(test_matrix_unit_matmul_without_swap_keeps_tile),
		cmocka_unit_test(test_matrix_unit_two_loads_before_swap),
		cmocka_unit_test(test_matrix_unit_acc_hazard_waits),
		cmocka_unit_test(test_matrix_unit_random_overlapping_accumulates),
		cmocka_unit_test(test_matrix_unit_cycles_match_schedule),
	};
	int failed = cmocka_run_group_tests_name("matrix_unit_16 (16x16, RowDelay 1)",
						 tests, setup_16, teardown);
	failed += cmocka_run_group_tests_name("matrix_unit_4p (4x4, RowDelay 4)",
					      tests, setup_4p, teardown);
	failed += cmocka_run_group_tests_name("matrix_unit_4t (4x4, RowDelay 2, ColSkew 0)",
					      tests, setup_4t, teardown);
	return failed;
}
