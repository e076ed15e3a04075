/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sim_speed.c - how fast the Verilated systolic array simulates:
 * cycles/s and PE-MAC/s (array PEs x cycles per second, the array kept fully
 * busy by a GEMM stream), for each array size built. Also the share of time
 * spent in the C driver, measured by running the same schedule against an
 * idle array (no valid data).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "array_gemm.h"
#include "ftpu_test.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const char *name, struct ftpu_sim *(*open)(const char *))
{
	struct ftpu_sim *sim = open(NULL);
	struct ftpu_array_dims d;
	if (!sim || !ftpu_sim_array_dims(sim, &d)) {
		fprintf(stderr, "cannot open %s\n", name);
		exit(1);
	}
	/* M = 8 ROWS keeps the array > 95% busy; 4 x 4 folds. */
	size_t M = 8 * d.rows, K = 4 * d.rows, N = 4 * d.cols;
	struct rng r = { 42 };
	uint16_t *A = malloc(M * K * 2), *B = malloc(K * N * 2);
	uint32_t *C = calloc(M * N, 4);
	for (size_t i = 0; i < M * K; i++)
		A[i] = 0x3C00 | (rng_u32(&r) & 0x80FF);
	for (size_t i = 0; i < K * N; i++)
		B[i] = 0x3C00 | (rng_u32(&r) & 0x80FF);

	struct array_gemm_stats st;
	uint64_t cycles = 0, macs = 0;
	double t0 = now(), t;
	do {
		array_gemm(sim, M, N, K, A, K, B, N, C, N, false, &st);
		cycles += st.cycles;
		macs += (uint64_t)M * N * K;
	} while ((t = now() - t0) < 2.0);

	/* Idle cycles: the model's floor with nothing toggling. */
	uint64_t idle = 200000;
	double i0 = now();
	for (uint64_t i = 0; i < idle; i++)
		ftpu_sim_array_cycle(sim, NULL, NULL, NULL);
	double ti = now() - i0;

	printf("| %-6s | %9.0f | %8.1f | %8.1f | %5.1f%% | %9.0f |\n", name,
	       cycles / t, cycles / t * d.rows * d.cols / 1e6, macs / t / 1e6,
	       100.0 * macs / ((double)cycles * d.rows * d.cols), idle / ti);
	free(A), free(B), free(C);
	ftpu_sim_close(sim);
}

int main(void)
{
	printf("Verilated ftpu_systolic_array, one thread, GEMM stream M=8R K=4R N=4C\n\n");
	printf("| array  | cycles/s  | PE-MAC/s (M) | useful MAC/s (M) | util | idle cycles/s |\n");
	printf("|--------|-----------|----------|----------|--------|-----------|\n");
	bench("8x8", ftpu_sim_open_array_8x8);
	bench("16x16", ftpu_sim_open_array_16x16);
	return 0;
}
