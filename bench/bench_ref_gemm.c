/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_ref_gemm - throughput of the reference GEMM: the fast path
 * (ftpu_ref_gemm, each vector kernel this CPU runs) against the plain
 * triple loop measured in the same run. Single-threaded; G MAC/s is
 * M*N*K / seconds / 1e9, best of repeated calls until 0.3 s have passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "numeric.h"

#define MIN_SECONDS 0.3

struct shape {
	size_t m, k, n; /* C[m x n] = A[m x k] B[k x n] */
};

static const struct shape shapes[] = {
	{ 128, 784, 128 }, { 512, 512, 512 }, { 1024, 1024, 1024 },
	{ 16, 4096, 16 },  { 1, 784, 128 },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rand32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* A finite bf16 of moderate magnitude (|x| in [2^-4, 2^4)), random sign:
 * the common case, no NaN shortcuts. */
static ftpu_bf16 rand_bf16(void)
{
	uint32_t r = rand32();

	return (ftpu_bf16)((r & 0x807f) | ((123 + (r >> 8) % 8) << 7));
}

#define RUN_PLAIN (-1)
#define RUN_AUTO (-2) /* ftpu_ref_gemm: best kernel for the shape */

/* which: RUN_PLAIN, RUN_AUTO or a kernel. Returns G MAC/s. */
static double measure(int which, const struct shape *s, const ftpu_bf16 *A,
		      const ftpu_bf16 *B, uint32_t *C)
{
	double macs = (double)s->m * s->n * s->k, total = 0, best = 1e30;
	long reps = 0;

	while (total < MIN_SECONDS || reps < 2) {
		double t0 = now(), dt;

		if (which == RUN_PLAIN)
			ftpu_ref_gemm_plain(s->m, s->n, s->k, A, s->k, B, s->n,
					    C, s->n, false);
		else if (which == RUN_AUTO)
			ftpu_ref_gemm(s->m, s->n, s->k, A, s->k, B, s->n, C,
				      s->n, false);
		else
			ftpu_ref_gemm_kernel(which, s->m, s->n, s->k, A, s->k,
					     B, s->n, C, s->n, false);
		dt = now() - t0;
		total += dt;
		reps++;
		if (dt < best)
			best = dt;
	}
	return macs / best / 1e9;
}

int main(void)
{
	printf("ftpu_ref_gemm vs ftpu_ref_gemm_plain, G MAC/s (M*K*N / s), "
	       "single thread, best of runs over >= %.1f s\n",
	       MIN_SECONDS);
	printf("per-kernel columns: ftpu_ref_gemm_kernel(); "
	       "ratio = ref_gemm / plain\n\n");
	printf("%-16s %10s", "shape MxKxN", "ref_gemm");
	for (int k = 0; k < FTPU_REF_KERNEL_COUNT; k++)
		if (ftpu_ref_kernel_available(k))
			printf(" %10s", ftpu_ref_kernel_name(k));
	printf(" %10s %8s\n", "plain", "ratio");

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		ftpu_bf16 *A = malloc(s->m * s->k * sizeof(*A));
		ftpu_bf16 *B = malloc(s->k * s->n * sizeof(*B));
		uint32_t *C = malloc(s->m * s->n * sizeof(*C));
		char name[48];
		double fast, plain;

		if (!A || !B || !C) {
			fprintf(stderr, "bench_ref_gemm: out of memory\n");
			return 1;
		}
		for (size_t j = 0; j < s->m * s->k; j++)
			A[j] = rand_bf16();
		for (size_t j = 0; j < s->k * s->n; j++)
			B[j] = rand_bf16();

		snprintf(name, sizeof(name), "%zux%zux%zu", s->m, s->k, s->n);
		fast = measure(RUN_AUTO, s, A, B, C);
		printf("%-16s %10.2f", name, fast);
		for (int k = 0; k < FTPU_REF_KERNEL_COUNT; k++)
			if (ftpu_ref_kernel_available(k))
				printf(" %10.2f", measure(k, s, A, B, C));
		plain = measure(RUN_PLAIN, s, A, B, C);
		printf(" %10.2f %7.1fx\n", plain, fast / plain);
		fflush(stdout);
		free(A);
		free(B);
		free(C);
	}
	return 0;
}
