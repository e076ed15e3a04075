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
 * The configurations take turns, a step each, so that a machine whose
 * speed drifts slows them alike.
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

/* One configuration: n replicas of a device kind sharing the work as
 * split says, and its measured steps. */
struct setup {
	size_t n;
	enum ftpu_replicas_split split;
	const char *name;
	ftpu_replicas *r;
	uint8_t *x, *y;
	double *secs;
	struct ftpu_train_stats *st; /* replica 0's, per step */
};

static void open_setup(struct setup *u, const char *kind, unsigned steps)
{
	static const size_t widths[] = { IN, HID, OUT };
	const size_t batch = PER_REPLICA * u->n;
	struct ftpu_train_config c = {
		.n_layers = 2, .widths = widths, .batch = batch,
		.optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-3f,
		.beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f,
		.input = FTPU_TRAIN_INPUT_U8, .placement = FTPU_TRAIN_ON_DEVICE,
	};
	const char *uris[2] = { kind, kind };
	int ret = ftpu_replicas_open_split(uris, u->n, &c, u->split, &u->r);
	if (ret)
		die(kind, ret);
	size_t flat = (IN + 1) * HID + (HID + 1) * OUT;
	float *p = malloc(flat * sizeof(float));
	u->x = malloc(batch * IN), u->y = malloc(batch);
	u->secs = malloc(steps * sizeof(double));
	u->st = malloc(steps * sizeof(*u->st));
	if (!p || !u->x || !u->y || !u->secs || !u->st)
		die("out of memory", FTPU_ERR_NOMEM);
	struct rng g = { 1 };
	for (size_t i = 0; i < flat; i++)
		p[i] = ((float)rng_below(&g, 1u << 20) / (float)(1u << 20) - 0.5f) * 0.1f;
	for (size_t i = 0; i < batch; i++) {
		u->y[i] = (uint8_t)rng_below(&g, OUT);
		for (size_t k = 0; k < IN; k++)
			u->x[i * IN + k] = (uint8_t)rng_below(&g, 256);
	}
	if ((ret = ftpu_replicas_write(u->r, FTPU_TRAIN_PARAMS, p)))
		die("writing the weights", ret);
	free(p);
}

/* One step; its wall time, and replica 0's counters, as step s. One
 * replica is a plain ftpu_train_step_u8. */
static void step(struct setup *u, int s)
{
	const size_t batch = PER_REPLICA * u->n;
	ftpu_trainer *t0 = ftpu_replicas_trainer(u->r, 0);
	float loss;
	double t = now_s();
	int ret = u->n == 1 ? ftpu_train_step_u8(t0, u->x, u->y, batch, &loss)
			    : ftpu_replicas_step_u8(u->r, u->x, u->y, batch, &loss);
	if (ret)
		die("step", ret);
	if (s < 0)
		return;
	u->secs[s] = now_s() - t;
	if (u->n == 1)
		ftpu_train_stats(t0, &u->st[s]);
	else
		ftpu_replicas_stats(u->r, 0, &u->st[s]);
}

/* The median step's seconds and counters. */
static double median(const struct setup *u, unsigned steps, struct ftpu_train_stats *st)
{
	double *sorted = malloc(steps * sizeof(double));
	if (!sorted)
		die("out of memory", FTPU_ERR_NOMEM);
	memcpy(sorted, u->secs, steps * sizeof(double));
	qsort(sorted, steps, sizeof(double), cmp);
	double m = sorted[steps / 2];
	for (unsigned s = 0; s < steps; s++)
		if (u->secs[s] == m)
			*st = u->st[s];
	free(sorted);
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
	for (int k = 0; k < nk; k++) {
		struct setup u[] = {
			{ .n = 1, .split = FTPU_REPLICAS_SPLIT_BATCH, .name = "—" },
			{ .n = 2, .split = FTPU_REPLICAS_SPLIT_BATCH, .name = "batch" },
			{ .n = 2, .split = FTPU_REPLICAS_SPLIT_UNITS, .name = "units" },
		};
		const size_t nu = sizeof(u) / sizeof(u[0]);
		for (size_t i = 0; i < nu; i++) {
			open_setup(&u[i], kinds[k], steps);
			step(&u[i], -1); /* warms up, untimed */
		}
		/* in turns, so that a machine whose speed drifts (a shared
		 * host) slows every configuration alike */
		for (unsigned s = 0; s < steps; s++)
			for (size_t i = 0; i < nu; i++)
				step(&u[i], (int)s);
		double base = 0;
		for (size_t i = 0; i < nu; i++) {
			struct ftpu_train_stats st = { 0 };
			double secs = median(&u[i], steps, &st);
			double sps = (double)(PER_REPLICA * u[i].n) / secs;
			if (i == 0)
				base = sps;
			printf("| %s | %zu | %s | %zu | %.3f s | %.0f k | %.1f / %.1f KB | %.1f | %.2f× |\n",
			       kinds[k], u[i].n, u[i].name, PER_REPLICA * u[i].n, secs,
			       (double)st.cycles / 1e3, (double)st.bytes_in / 1e3,
			       (double)st.bytes_out / 1e3, sps, sps / base);
			fflush(stdout);
			ftpu_replicas_close(u[i].r);
			free(u[i].x), free(u[i].y), free(u[i].secs), free(u[i].st);
		}
	}
	return 0;
}
