/* SPDX-License-Identifier: Apache-2.0 */
/*
 * array_demo.c - `make TRACE=1 demo`: multiply two random bf16 matrices on
 * the simulated device through the public API (ftpu_gemm_bf16 on "sim", or
 * "sim:trace=FILE" to write its waves), check every bit against the
 * reference GEMM (ftpu_ref_gemm), and show what the array did.
 *
 *   build/examples/array_demo [M K N] [trace.fst]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftpu.h"

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
	char uri[1100];
	snprintf(uri, sizeof(uri), trace ? "sim:trace=%s" : "sim", trace ? trace : "");
	ftpu_device *dev;
	int ret = ftpu_open(uri, &dev);
	if (ret) {
		fprintf(stderr, "cannot open %s: %s\n", uri, ftpu_last_error(NULL));
		return 1;
	}
	struct ftpu_device_info info;
	ftpu_get_info(dev, &info);

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
	       M, K, N, info.rows, info.cols);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* alpha 1, beta 0: C gets the device's fp32 bits as they are */
	ret = ftpu_gemm_bf16(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K, 1.0f, A, K,
			     B, N, 0.0f, (float *)C, N);
	if (ret) {
		fprintf(stderr, "ftpu_gemm_bf16: %s\n", ftpu_last_error(dev));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct ftpu_stats st;
	ftpu_last_stats(dev, &st);
	ftpu_ref_gemm(M, N, K, A, K, B, N, ref, N, false);

	size_t diff = 0;
	for (size_t i = 0; i < M * N; i++)
		diff += C[i] != ref[i];
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("  C[0][0..3]   %.6f %.6f %.6f %.6f\n", f32_of(C[0]),
	       f32_of(C[N > 1]), f32_of(C[N > 2 ? 2 : 0]), f32_of(C[N > 3 ? 3 : 0]));
	printf("  bit-exact vs C reference: %s (%zu of %zu differ)\n",
	       diff ? "NO" : "yes", diff, M * N);
	printf("  device cycles %" PRIu64 " (busy %" PRIu64 "), %" PRIu64 " MACs, "
	       "%" PRIu64 " instructions\n", st.cycles, st.busy, st.macs, st.instructions);
	printf("  array utilization %.1f%%\n", 100.0 * st.utilization);
	printf("  simulated %.0f cycles/s (%.1f M PE-MAC/s) in %.2f s\n",
	       st.cycles / secs, st.cycles / secs * info.rows * info.cols / 1e6, secs);
	if (trace)
		printf("  waves: %s\n", trace);
	free(A), free(B), free(C), free(ref);
	ftpu_close(dev);
	return diff ? 1 : 0;
}
