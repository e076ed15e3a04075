/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_gemm.c - ftpu_gemm() end to end on a device (default "sim"): the
 * Fashion-MNIST MLP's GEMM shapes (forward, and the three backward
 * products) and a large square one. Per shape: device cycles with every
 * transfer included, utilization against the link roofline
 * min(compute, link) (struct ftpu_stats), and the gain from weight
 * residency and from double buffering, each switched off in the same run
 * (host-lib/src/gemm_plan.h, ftpu__gemm_tuning). Then the host overhead of
 * one call, measured on "ref" where the device itself takes no time.
 *
 *   build/bench/bench_gemm [URI]
 *
 * Prints tables; never pass/fail.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftpu.h"
#include "gemm_plan.h"

struct shape {
	const char *what;
	size_t m, k, n;
	enum ftpu_transpose ta, tb;
};

static const struct shape shapes[] = {
	{ "X*W1 (forward)", 128, 784, 128, FTPU_NO_TRANS, FTPU_NO_TRANS },
	{ "H*W2 (forward)", 128, 128, 10, FTPU_NO_TRANS, FTPU_NO_TRANS },
	{ "dY*W2^T", 128, 10, 128, FTPU_NO_TRANS, FTPU_TRANS },
	{ "H^T*dY", 128, 128, 10, FTPU_TRANS, FTPU_NO_TRANS },
	{ "X^T*dH", 784, 128, 128, FTPU_TRANS, FTPU_NO_TRANS },
	{ "square", 512, 512, 512, FTPU_NO_TRANS, FTPU_NO_TRANS },
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static float *matrix(size_t n, unsigned seed)
{
	float *p = malloc(n * sizeof(float));
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((i * 2654435761u + seed) % 2001) / 1000.0f - 1.0f;
	return p;
}

/* One call; exits on failure (a benchmark has no partial answer). */
static struct ftpu_stats run(ftpu_device *dev, const struct shape *s, const float *a,
			     const float *b, float *c)
{
	size_t lda = s->ta ? s->m : s->k, ldb = s->tb ? s->k : s->n;
	struct ftpu_stats st;
	int ret = ftpu_gemm(dev, s->ta, s->tb, s->m, s->n, s->k, 1.0f, a, lda, b, ldb, 0.0f,
			    c, s->n);
	if (!ret)
		ret = ftpu_last_stats(dev, &st);
	if (ret) {
		fprintf(stderr, "bench_gemm: %s: %s: %s\n", s->what, ftpu_strerror(ret),
			ftpu_last_error(dev));
		exit(1);
	}
	return st;
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "sim";
	ftpu_device *dev;
	if (ftpu_open(uri, &dev)) {
		fprintf(stderr, "bench_gemm: cannot open %s: %s\n", uri, ftpu_last_error(NULL));
		return 1;
	}

	printf("ftpu_gemm on %s, transfers included (link: INFO LINK_BYTES a cycle each way)\n\n", uri);
	printf("| GEMM | M x K x N | cycles | utilization | link roofline | of roofline "
	       "| no residency: cycles, bytes in | no double buffering: cycles | host s |\n");
	printf("|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		float *a = matrix(s->m * s->k, 1), *b = matrix(s->k * s->n, 2);
		float *c = malloc(s->m * s->n * sizeof(float));
		if (!c)
			return 1;
		/* Normal: B resident from a first call, as in a training loop where
		 * the weights are reused by the next batch. */
		memset(&ftpu__gemm_tuning, 0, sizeof(ftpu__gemm_tuning));
		run(dev, s, a, b, c);
		struct ftpu_stats on = run(dev, s, a, b, c);
		ftpu__gemm_tuning.no_residency = true;
		struct ftpu_stats nores = run(dev, s, a, b, c);
		ftpu__gemm_tuning.no_residency = false;
		ftpu__gemm_tuning.no_double_buffer = true;
		run(dev, s, a, b, c);
		struct ftpu_stats nodb = run(dev, s, a, b, c);
		memset(&ftpu__gemm_tuning, 0, sizeof(ftpu__gemm_tuning));
		printf("| %s | %zux%zux%zu | %" PRIu64 " | %.1f%% | %.1f%% | %.1f%% | %" PRIu64
		       " (%.2fx), %" PRIu64 " | %" PRIu64 " (%.2fx) | %.2f |\n",
		       s->what, s->m, s->k, s->n, on.cycles, 100 * on.utilization,
		       100 * on.roofline, 100 * on.utilization / on.roofline, nores.cycles,
		       (double)nores.cycles / (double)on.cycles, nores.bytes_in, nodb.cycles,
		       (double)nodb.cycles / (double)on.cycles, on.host_seconds);
		fflush(stdout);
		free(a);
		free(b);
		free(c);
	}
	ftpu_close(dev);

	/* Host overhead per call: on ref the device takes no time, so the wall
	 * time is the library's (packing, framing, parsing, the model's own
	 * work excluded as far as a tiny GEMM allows). */
	if (ftpu_open("ref", &dev))
		return 1;
	static const struct shape tiny = { "tiny", 16, 16, 16, FTPU_NO_TRANS, FTPU_NO_TRANS };
	float *a = matrix(256, 3), *b = matrix(256, 4), c[256];
	const int calls = 2000;
	double t0 = now_s();
	for (int i = 0; i < calls; i++)
		run(dev, &tiny, a, b, c);
	double per = (now_s() - t0) / calls;
	printf("\nhost overhead: %.1f us per 16x16x16 ftpu_gemm call on ref (%d calls)\n",
	       per * 1e6, calls);
	free(a);
	free(b);
	ftpu_close(dev);
	printf("reproduce: make build/bench/bench_gemm && build/bench/bench_gemm %s\n", uri);
	return 0;
}
