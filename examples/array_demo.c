/* SPDX-License-Identifier: Apache-2.0 */
/*
 * array_demo.c - `make demo` (until the training demo lands): multiply two
 * random bf16 matrices on the Verilated 16x16 systolic array, check every bit
 * against the C reference GEMM, and show what the array did.
 *
 *   build/examples/array_demo [M K N] [trace.fst]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/common/array_gemm.h"
#include "numeric.h"

static uint16_t bf16_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return ftpu_f32_to_bf16(u);
}

static float f32_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

int main(int argc, char **argv)
{
	size_t M = 128, K = 784, N = 128; /* a Fashion-MNIST layer's shape */
	if (argc >= 4) {
		M = strtoul(argv[1], NULL, 0);
		K = strtoul(argv[2], NULL, 0);
		N = strtoul(argv[3], NULL, 0);
	}
	if (!M || !K || !N || M > 4096 || K > 4096 || N > 4096) {
		fprintf(stderr, "usage: %s [M K N (1..4096)] [trace.fst]\n", argv[0]);
		return 2;
	}
	const char *trace = argc >= 5 ? argv[4] : NULL;
	struct ftpu_sim *sim = ftpu_sim_open_array_16x16(trace);
	if (!sim) {
		fprintf(stderr, "cannot open the simulated array%s\n",
			trace ? " with a trace (build with TRACE=1)" : "");
		return 1;
	}
	struct ftpu_array_dims d;
	ftpu_sim_array_dims(sim, &d);

	uint16_t *A = malloc(M * K * 2), *B = malloc(K * N * 2);
	uint32_t *C = malloc(M * N * 4), *ref = malloc(M * N * 4);
	if (!A || !B || !C || !ref) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	srand(1);
	for (size_t i = 0; i < M * K; i++)
		A[i] = bf16_of((float)rand() / RAND_MAX * 2 - 1);
	for (size_t i = 0; i < K * N; i++)
		B[i] = bf16_of(((float)rand() / RAND_MAX * 2 - 1) / 16);

	printf("ftpu: %zu x %zu x %zu GEMM on a simulated %ux%u bf16 systolic array\n",
	       M, K, N, d.rows, d.cols);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct array_gemm_stats st;
	if (array_gemm(sim, M, N, K, A, K, B, N, C, N, false, &st)) {
		fprintf(stderr, "array_gemm failed\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ftpu_ref_gemm(M, N, K, A, K, B, N, ref, N, false);

	size_t diff = 0;
	for (size_t i = 0; i < M * N; i++)
		diff += C[i] != ref[i];
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("  C[0][0..3]   %.6f %.6f %.6f %.6f\n", f32_of(C[0]),
	       f32_of(C[N > 1]), f32_of(C[N > 2 ? 2 : 0]), f32_of(C[N > 3 ? 3 : 0]));
	printf("  bit-exact vs C reference: %s (%zu of %zu differ)\n",
	       diff ? "NO" : "yes", diff, M * N);
	printf("  device cycles %" PRIu64 " (stall-free schedule %" PRIu64 "), "
	       "%" PRIu64 " folds\n", st.cycles, st.predicted, st.folds);
	printf("  array utilization %.1f%%\n",
	       100.0 * M * K * N / ((double)d.rows * d.cols * st.cycles));
	printf("  simulated %.0f cycles/s (%.1f M PE-MAC/s) in %.2f s\n",
	       st.cycles / secs, st.cycles / secs * d.rows * d.cols / 1e6, secs);
	if (trace)
		printf("  waves: %s\n", trace);
	free(A), free(B), free(C), free(ref);
	ftpu_sim_close(sim);
	return diff ? 1 : 0;
}
