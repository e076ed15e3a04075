/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_replicas.c - training the demo's MLP (784-128 ReLU-10, Adam,
 * pixels as bytes) on 1 and 2 replicas of a device kind, 128 samples a
 * replica (the global batch 128 x replicas, as TPUStrategy scales it):
 * samples a second of wall time (the median step), and replica 0's device
 * cycles and link bytes in that step (its counters). The last column is
 * samples/s against one device at batch 128, measured in the same run.
 * One replica is ftpu_train_step_u8 (the whole step in one device program
 * pair); two are ftpu_replicas_step_u8, split by batch (the gradient out,
 * the sum in, the update) and split by units (each replica half the
 * hidden units and the whole batch; only the logits cross the link):
 * docs/training.md, Replicas.
 *
 * Usage: bench_replicas [STEPS] [KIND...]   (default: 3 steps; ref and sim)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftpu.h"
#include "ftpu_test.h"

#define IN 784
#define HID 128
#define OUT 10
#define PER_REPLICA 128

static void die(const char *what, int ret)
{
	fprintf(stderr, "bench_replicas: %s: %s: %s\n", what, ftpu_strerror(ret),
		ftpu_last_error(NULL));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct result {
	double seconds;
	struct ftpu_train_stats st; /* replica 0's */
};

/* steps steps on n replicas of kind; the median step. */
static struct result measure(const char *kind, size_t n, enum ftpu_replicas_split split,
			     unsigned steps)
{
	static const size_t widths[] = { IN, HID, OUT };
	const size_t batch = PER_REPLICA * n;
	struct ftpu_train_config c = {
		.n_layers = 2, .widths = widths, .batch = batch,
		.optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-3f,
		.beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f,
		.input = FTPU_TRAIN_INPUT_U8, .placement = FTPU_TRAIN_ON_DEVICE,
	};
	const char *uris[2] = { kind, kind };
	ftpu_replicas *r = NULL;
	int ret = ftpu_replicas_open_split(uris, n, &c, split, &r);
	if (ret)
		die(kind, ret);
	size_t flat = (IN + 1) * HID + (HID + 1) * OUT;
	float *p = malloc(flat * sizeof(float));
	uint8_t *x = malloc(batch * IN), *y = malloc(batch);
	double *secs = malloc(steps * sizeof(double));
	struct result *res = malloc(steps * sizeof(*res));
	if (!p || !x || !y || !secs || !res)
		die("out of memory", FTPU_ERR_NOMEM);
	struct rng g = { 1 };
	for (size_t i = 0; i < flat; i++)
		p[i] = ((float)rng_below(&g, 1u << 20) / (float)(1u << 20) - 0.5f) * 0.1f;
	for (size_t i = 0; i < batch; i++) {
		y[i] = (uint8_t)rng_below(&g, OUT);
		for (size_t k = 0; k < IN; k++)
			x[i * IN + k] = (uint8_t)rng_below(&g, 256);
	}
	if ((ret = ftpu_replicas_write(r, FTPU_TRAIN_PARAMS, p)))
		die("writing the weights", ret);
	ftpu_trainer *t0 = ftpu_replicas_trainer(r, 0);
	for (unsigned s = 0; s <= steps; s++) { /* step 0 warms up, untimed */
		double t = now_s();
		float loss;
		ret = n == 1 ? ftpu_train_step_u8(t0, x, y, batch, &loss)
			     : ftpu_replicas_step_u8(r, x, y, batch, &loss);
		if (ret)
			die("step", ret);
		if (!s)
			continue;
		secs[s - 1] = res[s - 1].seconds = now_s() - t;
		if (n == 1)
			ftpu_train_stats(t0, &res[s - 1].st);
		else
			ftpu_replicas_stats(r, 0, &res[s - 1].st);
	}
	qsort(secs, steps, sizeof(*secs), cmp);
	struct result m = res[0];
	for (unsigned s = 0; s < steps; s++)
		if (res[s].seconds == secs[steps / 2])
			m = res[s];
	ftpu_replicas_close(r);
	free(p), free(x), free(y), free(secs), free(res);
	return m;
}

int main(int argc, char **argv)
{
	unsigned steps = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	const char *defaults[] = { "ref", "sim" };
	const char **kinds = argc > 2 ? (const char **)argv + 2 : defaults;
	int nk = argc > 2 ? argc - 2 : 2;
	if (!steps)
		steps = 1;
	printf("| device | replicas | split | global batch | step (median of %u) | cycles a replica | link in / out a replica | samples/s | vs 1 device |\n",
	       steps);
	printf("|---|---|---|---|---|---|---|---|---|\n");
	static const struct { size_t n; enum ftpu_replicas_split split; const char *name; } runs[] = {
		{ 1, FTPU_REPLICAS_SPLIT_BATCH, "—" },
		{ 2, FTPU_REPLICAS_SPLIT_BATCH, "batch" },
		{ 2, FTPU_REPLICAS_SPLIT_UNITS, "units" },
	};
	for (int k = 0; k < nk; k++) {
		double base = 0;
		for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
			const size_t n = runs[i].n;
			struct result m = measure(kinds[k], n, runs[i].split, steps);
			double sps = (double)(PER_REPLICA * n) / m.seconds;
			if (n == 1)
				base = sps;
			printf("| %s | %zu | %s | %zu | %.3f s | %.0f k | %.1f / %.1f KB | %.1f | %.2f× |\n",
			       kinds[k], n, runs[i].name, PER_REPLICA * n, m.seconds,
			       (double)m.st.cycles / 1e3, (double)m.st.bytes_in / 1e3,
			       (double)m.st.bytes_out / 1e3, sps, sps / base);
			fflush(stdout);
		}
	}
	return 0;
}
