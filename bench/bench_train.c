/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_train.c - one training step of the demo's MLP (784-128 ReLU-10,
 * batch 128, Adam) two ways on each device, from the device's counters:
 *
 *   gemm    the five matmuls of the step through ftpu_gemm (weights and
 *           activations over the link every step, Adam on the host), as
 *           `fashion_mnist --mode gemm` does;
 *   device  ftpu_train_step_u8: weights and Adam's slots on the device,
 *           the batch in (pixels as bytes), the logits out, their gradient
 *           in (docs/training.md).
 *
 * Per path: cycles and link bytes per step (the median of the steps run),
 * MACs, utilization, and the roofline max(compute, link in, link out) at
 * the device's INFO LINK_BYTES a cycle each way; the last column is the device path against
 * the gemm path measured in the same run.
 *
 * Usage: bench_train [STEPS] [URI...]   (default: 3 steps on ref and sim)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpu.h"
#include "ftpu_test.h"

#define IN 784
#define HID 128
#define OUT 10
#define BATCH 128

struct cost {
	uint64_t cycles, macs, in, out;
	double seconds;
};

static void die(const char *what, ftpu_device *dev, int ret)
{
	fprintf(stderr, "bench_train: %s: %s: %s\n", what, ftpu_strerror(ret),
		ftpu_last_error(dev));
	exit(1);
}

static float *rand_floats(struct rng *r, size_t n, float scale)
{
	float *p = malloc(n * sizeof(float));
	if (!p)
		exit(1);
	for (size_t i = 0; i < n; i++)
		p[i] = ((float)rng_below(r, 1u << 24) / (float)(1u << 24) - 0.5f) * scale;
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One GEMM of the step, its counters added to c. */
static void gemm(ftpu_device *dev, struct cost *c, bool ta, bool tb, size_t m, size_t n,
		 size_t k, const float *a, size_t lda, const float *b, size_t ldb, float *out,
		 size_t ldc)
{
	struct ftpu_stats st;
	int ret = ftpu_gemm(dev, ta ? FTPU_TRANS : FTPU_NO_TRANS, tb ? FTPU_TRANS : FTPU_NO_TRANS, m,
			    n, k, 1.0f, a, lda, b, ldb, 0.0f, out, ldc);
	if (ret || (ret = ftpu_last_stats(dev, &st)))
		die("ftpu_gemm", dev, ret);
	c->cycles += st.cycles, c->macs += st.macs, c->in += st.bytes_in, c->out += st.bytes_out;
	c->seconds += st.host_seconds;
}

/* The gemm path's step: the matmuls mlp.c runs (the host's share, a few
 * ms of softmax and Adam, is not the device's and not counted). */
static struct cost gemm_step(ftpu_device *dev, const float *x, const float *w1, const float *w2,
			     float *z1, float *z2, float *g1, float *g2, float *dh)
{
	struct cost c = { 0 };
	gemm(dev, &c, false, false, BATCH, HID, IN, x, IN, w1, HID, z1, HID);
	gemm(dev, &c, false, false, BATCH, OUT, HID, z1, HID, w2, OUT, z2, OUT);
	gemm(dev, &c, true, false, HID, OUT, BATCH, z1, HID, z2, OUT, g2, OUT);
	gemm(dev, &c, false, true, BATCH, HID, OUT, z2, OUT, w2, OUT, dh, HID);
	gemm(dev, &c, true, false, IN, HID, BATCH, x, IN, dh, HID, g1, HID);
	return c;
}

static double roofline(const struct cost *c, unsigned n, unsigned link_bytes)
{
	double compute = (double)c->macs / ((double)n * n);
	double link = (double)(c->in > c->out ? c->in : c->out) / link_bytes;
	return compute > link ? compute : link;
}

static void row(const char *uri, const char *path, const struct cost *c,
		const struct ftpu_device_info *info, const struct cost *base)
{
	const unsigned n = info->rows, w = info->link_bytes;
	const double roof = roofline(c, n, w);
	printf("| %s | %u | %s | %.0f k | %.1f KB | %.1f KB | %.1f M | %.1f%% | %.0f k (%s) | %.2f s |",
	       uri, w, path, c->cycles / 1e3, c->in / 1e3, c->out / 1e3, c->macs / 1e6,
	       100.0 * (double)c->macs / ((double)n * n * (double)c->cycles),
	       roof / 1e3, (double)c->macs / ((double)n * n) >= roof ? "compute" : "link",
	       c->seconds);
	if (base)
		printf(" %.2fx |\n", (double)base->cycles / (double)c->cycles);
	else
		printf(" 1 |\n");
}

static struct cost median(struct cost *v, unsigned k)
{
	uint64_t cyc[64];
	for (unsigned i = 0; i < k; i++)
		cyc[i] = v[i].cycles;
	qsort(cyc, k, sizeof(cyc[0]), cmp_u64);
	for (unsigned i = 0; i < k; i++)
		if (v[i].cycles == cyc[k / 2])
			return v[i];
	return v[0];
}

int main(int argc, char **argv)
{
	unsigned steps = 3;
	int first = 1;
	if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') {
		steps = (unsigned)strtoul(argv[1], NULL, 10);
		first = 2;
	}
	if (steps < 1 || steps > 64)
		steps = 3;
	static const char *const def[] = { "ref", "sim" };
	const char *const *uris = argc > first ? (const char *const *)argv + first : def;
	int n_uris = argc > first ? argc - first : 2;

	struct rng r = { 7 };
	float *w1 = rand_floats(&r, IN * HID, 0.1f), *w2 = rand_floats(&r, HID * OUT, 0.2f);
	/* pixels: the device path sends them as bytes, the gemm path their
	 * floats p / 255 (as fashion_mnist does) */
	uint8_t *px = malloc(BATCH * IN);
	float *x = malloc(BATCH * IN * sizeof(float));
	for (int i = 0; i < BATCH * IN; i++) {
		px[i] = (uint8_t)rng_below(&r, 256);
		x[i] = (float)px[i] / 255.0f;
	}
	float *z1 = malloc(BATCH * HID * 4), *z2 = malloc(BATCH * OUT * 4),
	      *g1 = malloc(IN * HID * 4), *g2 = malloc(HID * OUT * 4), *dh = malloc(BATCH * HID * 4);
	uint8_t y[BATCH];
	for (int i = 0; i < BATCH; i++)
		y[i] = (uint8_t)rng_below(&r, OUT);

	printf("One training step of the %d-%d-%d MLP at batch %d, median of %u steps\n\n", IN,
	       HID, OUT, BATCH, steps);
	printf("| device | link B/cycle | path | cycles | link in | link out | MACs | utilization | roofline "
	       "(bound) | host s | vs gemm |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int u = 0; u < n_uris; u++) {
		ftpu_device *dev;
		int ret = ftpu_open(uris[u], &dev);
		if (ret)
			die(uris[u], NULL, ret);
		struct ftpu_device_info info;
		ftpu_get_info(dev, &info);
		struct cost g[64], d[64];
		for (unsigned s = 0; s < steps; s++)
			g[s] = gemm_step(dev, x, w1, w2, z1, z2, g1, g2, dh);
		struct cost gm = median(g, steps);
		row(uris[u], "gemm", &gm, &info, NULL);

		const size_t widths[] = { IN, HID, OUT };
		const struct ftpu_train_config c = {
			.n_layers = 2, .widths = widths, .batch = BATCH,
			.optimizer = FTPU_OPTIMIZER_ADAM, .learning_rate = 1e-3f,
			.beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f,
			.input = FTPU_TRAIN_INPUT_U8,
		};
		ftpu_trainer *t;
		if ((ret = ftpu_train_create(dev, &c, &t))) {
			printf("| %s | device | %s |\n", uris[u], ftpu_last_error(dev));
			ftpu_close(dev);
			continue;
		}
		for (unsigned s = 0; s < steps; s++) {
			struct ftpu_train_stats st;
			if ((ret = ftpu_train_step_u8(t, px, y, BATCH, NULL)))
				die("ftpu_train_step", dev, ret);
			ftpu_train_stats(t, &st);
			d[s] = (struct cost){ st.cycles, st.macs, st.bytes_in, st.bytes_out,
					      st.host_seconds };
		}
		struct cost dm = median(d, steps);
		row(uris[u], "device", &dm, &info, &gm);
		ftpu_train_destroy(t);
		ftpu_close(dev);
		fflush(stdout);
	}
	printf("\ngemm: ftpu_gemm per matmul (fashion_mnist --mode gemm); device: ftpu_train_step_u8 "
	       "(docs/training.md).\nroofline: max(MACs / N^2, link bytes / link B/cycle) cycles (ref "
	       "charges no link time).\n");
	free(x), free(px), free(w1), free(w2), free(z1), free(z2), free(g1), free(g2), free(dh);
	return 0;
}
