/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fashion_mnist.c - the training demo's parts (examples/fashion_mnist/):
 * training steps of the 784-128-10 MLP on the simulated device ("sim",
 * the Verilated rtl/ftpu_top.sv) give the same losses and weights bit for
 * bit as on the C model ("ref"); the device's losses stay close to plain
 * fp32 ("cpu"); the backward pass matches finite differences; the IDX
 * reader reads small files it wrote and rejects truncated, corrupt and
 * mismatched ones; the weight file round-trips and rejects corrupt and
 * foreign files. Synthetic data: the dataset package is not needed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "ftpu.h"
#include "ftpu_test.h"
#include "../../examples/fashion_mnist/checkpoint.h"
#include "../../examples/fashion_mnist/idx.h"
#include "../../examples/fashion_mnist/mlp.h"

#define IN 784
#define HID 128
#define OUT 10

/* ---- synthetic data ------------------------------------------------------ */

/* n images of class-dependent bright bands over noise, as [0,1] floats. */
static void make_data(uint64_t seed, size_t n, float *x, uint8_t *y)
{
	struct rng r = {seed};
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)rng_below(&r, OUT);
		y[i] = c;
		for (size_t p = 0; p < IN; p++) {
			size_t row = p / 28;
			uint32_t px = rng_below(&r, 64);
			if (row / 3 == c || (p % 28) / 3 == (size_t)(9 - c))
				px += 160;
			x[i * IN + p] = (float)px / 255.0f;
		}
	}
}

static void open_backend(struct mlp_backend *be, const char *name)
{
	int ret = mlp_backend_open(be, name, 1);
	if (ret)
		fail_msg("%s: %s", name, be->err);
}

static void init_model(struct mlp *m, size_t in, size_t hid, size_t out,
		       uint64_t seed)
{
	char err[256];
	if (mlp_init(m, in, hid, out, seed, err, sizeof(err)))
		fail_msg("mlp_init: %s", err);
}

static void step(struct mlp *m, struct mlp_backend *be, const float *x,
		 const uint8_t *y, size_t n, float *loss)
{
	if (mlp_train_step(m, be, x, y, n, loss))
		fail_msg("%s: train step: %s", be->name, be->err);
}

/* ---- training on the backends -------------------------------------------- */

/* The same seed and batches: sim and ref give bit-identical losses,
 * weights, Adam moments and predictions. */
static void test_fashion_mnist_sim_ref_identical(void **state)
{
	(void)state;
	const size_t B = 16, STEPS = 2;
	uint64_t seed = ftpu_test_seed();
	struct mlp_backend sim, ref;
	struct mlp ms, mr;
	float *x = malloc(STEPS * B * IN * sizeof(float));
	uint8_t *y = malloc(STEPS * B), ps[16], pr[16];
	assert_true(x && y);

	make_data(seed, STEPS * B, x, y);
	open_backend(&sim, "sim");
	open_backend(&ref, "ref");
	init_model(&ms, IN, HID, OUT, seed);
	init_model(&mr, IN, HID, OUT, seed);
	for (size_t s = 0; s < STEPS; s++) {
		float ls, lr;
		step(&ms, &sim, x + s * B * IN, y + s * B, B, &ls);
		step(&mr, &ref, x + s * B * IN, y + s * B, B, &lr);
		if (memcmp(&ls, &lr, sizeof(ls)))
			fail_msg("step %zu: loss %.9g on sim, %.9g on ref "
				 "(seed %#llx)",
				 s, (double)ls, (double)lr,
				 (unsigned long long)seed);
		assert_true(isfinite(ls) && ls > 0);
		for (size_t i = 0; i < ms.n_params; i++)
			if (memcmp(&ms.params[i], &mr.params[i], 4) ||
			    memcmp(&ms.grads[i], &mr.grads[i], 4) ||
			    memcmp(&ms.m[i], &mr.m[i], 4) ||
			    memcmp(&ms.v[i], &mr.v[i], 4))
				fail_msg("step %zu: parameter %zu differs: "
					 "%.9g on sim, "
					 "%.9g on ref",
					 s, i, (double)ms.params[i],
					 (double)mr.params[i]);
	}
	/* the evaluation's forward pass too */
	assert_int_equal(mlp_predict(&ms, &sim, x, B, ps), FTPU_OK);
	assert_int_equal(mlp_predict(&mr, &ref, x, B, pr), FTPU_OK);
	assert_memory_equal(ps, pr, B);
	/* the counters came from the devices, and they did the same work */
	assert_true(sim.gemms == 5 * STEPS + 2 && sim.macs > 0 &&
		    sim.cycles > 0);
	assert_true(sim.macs == ref.macs);
	assert_true(mlp_backend_utilization(&sim) > 0 &&
		    mlp_backend_utilization(&sim) <= 1);
	mlp_free(&ms);
	mlp_free(&mr);
	mlp_backend_close(&sim);
	mlp_backend_close(&ref);
	free(x);
	free(y);
}

/* bf16 operands with fp32 accumulation stay close to fp32: the losses of
 * ref and cpu over 20 steps, and both learn the synthetic classes. */
static void test_fashion_mnist_cpu_close(void **state)
{
	(void)state;
	const size_t B = 32, STEPS = 20;
	uint64_t seed = ftpu_test_seed() + 1;
	struct mlp_backend ref, cpu;
	struct mlp mr, mc;
	float *x = malloc(STEPS * B * IN * sizeof(float));
	uint8_t *y = malloc(STEPS * B);
	float first = 0, last_r = 0, last_c = 0;
	assert_true(x && y);

	make_data(seed, STEPS * B, x, y);
	open_backend(&ref, "ref");
	open_backend(&cpu, "cpu");
	init_model(&mr, IN, HID, OUT, seed);
	init_model(&mc, IN, HID, OUT, seed);
	for (size_t s = 0; s < STEPS; s++) {
		float lr, lc;
		step(&mr, &ref, x + s * B * IN, y + s * B, B, &lr);
		step(&mc, &cpu, x + s * B * IN, y + s * B, B, &lc);
		if (fabsf(lr - lc) > 0.02f * lc + 1e-3f)
			fail_msg("step %zu: loss %.6f on ref, %.6f on cpu "
				 "(seed %#llx)",
				 s, (double)lr, (double)lc,
				 (unsigned long long)seed);
		if (s == 0)
			first = lc;
		last_r = lr, last_c = lc;
	}
	assert_true(last_r < first / 4 && last_c < first / 4);
	assert_true(cpu.cycles == 0 && mlp_backend_utilization(&cpu) == 0);
	mlp_free(&mr);
	mlp_free(&mc);
	mlp_backend_close(&ref);
	mlp_backend_close(&cpu);
	free(x);
	free(y);
}

/* --mode device on ref: the step runs on the device (ftpu_train_*), learns
 * the synthetic classes, and the weights read back give the gemm path's
 * logits bit for bit: the same forward pass computed two ways (device: VADD,
 * VMAX, CONVERT in the vector unit; gemm: ftpu_gemm and host fp32). */
static void test_fashion_mnist_device_mode(void **state)
{
	(void)state;
	const size_t B = 32, STEPS = 20;
	uint64_t seed = ftpu_test_seed() + 2;
	struct mlp_backend dev, gemm;
	struct mlp m;
	float *x = malloc(STEPS * B * IN * sizeof(float));
	uint8_t *y = malloc(STEPS * B);
	float *za = malloc(B * OUT * sizeof(float)), *zb = malloc(B * OUT * sizeof(float));
	float first = 0, last = 0;
	assert_true(x && y && za && zb);

	make_data(seed, STEPS * B, x, y);
	open_backend(&dev, "ref");
	open_backend(&gemm, "ref");
	assert_true(dev.vector_unit);
	init_model(&m, IN, HID, OUT, seed);
	if (mlp_device_attach(&m, &dev, B))
		fail_msg("attach: %s", dev.err);
	for (size_t s = 0; s < STEPS; s++) {
		float l;
		step(&m, &dev, x + s * B * IN, y + s * B, B, &l);
		if (s == 0)
			first = l;
		last = l;
	}
	assert_true(last < first / 4);
	assert_int_equal(m.t, STEPS);
	assert_true(dev.cycles > 0 && dev.bytes_in > 0);
	if (mlp_device_sync(&m, &dev))
		fail_msg("sync: %s", dev.err);
	assert_int_equal(mlp_logits(&m, &dev, x, B, za), FTPU_OK);
	assert_int_equal(mlp_logits(&m, &gemm, x, B, zb), FTPU_OK);
	assert_memory_equal(za, zb, B * OUT * sizeof(float));
	mlp_free(&m);
	mlp_backend_close(&dev);
	mlp_backend_close(&gemm);
	free(x), free(y), free(za), free(zb);
}

/* The device fed pixels (mlp_device_attach_px: bytes on the link) trains
 * exactly as one fed their MLP_PIXEL floats: the same losses every step,
 * the same predictions after, and the gemm path predicts the same from the
 * synced weights. */
static void test_fashion_mnist_device_pixels(void **state)
{
	(void)state;
	const size_t B = 32, STEPS = 6;
	uint64_t seed = ftpu_test_seed() + 3;
	struct mlp_backend dpx, dfl, gemm;
	struct mlp mp, mf;
	float *x = malloc(STEPS * B * IN * sizeof(float));
	uint8_t *px = malloc(STEPS * B * IN), *y = malloc(STEPS * B);
	uint8_t pa[32], pb[32], pc[32];
	assert_true(x && px && y);

	make_data(seed, STEPS * B, x, y);
	for (size_t i = 0; i < STEPS * B * IN; i++) {
		px[i] = (uint8_t)(x[i] * 255.0f + 0.5f);
		x[i] = MLP_PIXEL(px[i]);
	}
	open_backend(&dpx, "ref");
	open_backend(&dfl, "ref");
	open_backend(&gemm, "ref");
	init_model(&mp, IN, HID, OUT, seed);
	init_model(&mf, IN, HID, OUT, seed);
	if (mlp_device_attach_px(&mp, &dpx, B) || mlp_device_attach(&mf, &dfl, B))
		fail_msg("attach: %s %s", dpx.err, dfl.err);
	for (size_t s = 0; s < STEPS; s++) {
		float la, lb;
		if (mlp_train_step_px(&mp, &dpx, px + s * B * IN, y + s * B, B, &la))
			fail_msg("pixels: %s", dpx.err);
		step(&mf, &dfl, x + s * B * IN, y + s * B, B, &lb);
		assert_memory_equal(&la, &lb, sizeof(la));
	}
	/* each trainer takes its own input */
	float l;
	assert_int_equal(mlp_train_step(&mp, &dpx, x, y, B, &l), FTPU_ERR_INVALID);
	assert_int_equal(mlp_predict_px(&mp, &dpx, px, B, pa), FTPU_OK);
	assert_int_equal(mlp_predict(&mf, &dfl, x, B, pb), FTPU_OK);
	assert_memory_equal(pa, pb, B);
	if (mlp_device_sync(&mp, &dpx))
		fail_msg("sync: %s", dpx.err);
	assert_int_equal(mlp_predict_px(&mp, &gemm, px, B, pc), FTPU_OK);
	assert_memory_equal(pa, pc, B);
	mlp_free(&mp), mlp_free(&mf);
	mlp_backend_close(&dpx), mlp_backend_close(&dfl), mlp_backend_close(&gemm);
	free(x), free(px), free(y);
}

/* Mean cross-entropy of the model on (x, y) through the cpu backend. */
static double loss_of(const struct mlp *m, struct mlp_backend *be,
		      const float *x, const uint8_t *y, size_t n)
{
	float z[8 * 4];
	assert_true(n * m->out <= 8 * 4);
	assert_int_equal(mlp_logits(m, be, x, n, z), FTPU_OK);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		double mx = z[i * m->out], s = 0;
		for (size_t j = 1; j < m->out; j++)
			mx = fmax(mx, z[i * m->out + j]);
		for (size_t j = 0; j < m->out; j++)
			s += exp(z[i * m->out + j] - mx);
		sum += log(s) - (z[i * m->out + y[i]] - mx);
	}
	return sum / (double)n;
}

/* The backward pass (gradients of every parameter kind) against central
 * differences of the loss, on a small model in fp32. */
static void test_fashion_mnist_gradients(void **state)
{
	(void)state;
	const size_t in = 6, hid = 5, out = 4, n = 8;
	struct mlp m;
	struct mlp_backend cpu;
	struct rng r = {ftpu_test_seed() + 2};
	float x[8 * 6];
	uint8_t y[8];
	float loss;

	for (size_t i = 0; i < n * in; i++)
		x[i] = (float)rng_below(&r, 1000) / 500.0f - 1.0f;
	for (size_t i = 0; i < n; i++)
		y[i] = (uint8_t)rng_below(&r, (uint32_t)out);
	open_backend(&cpu, "cpu");
	init_model(&m, in, hid, out, ftpu_test_seed());
	for (size_t i = 0; i < hid; i++) /* biases too, off zero */
		m.b1[i] = (float)rng_below(&r, 100) / 500.0f - 0.1f;
	float *p0 = malloc(m.n_params * sizeof(float));
	assert_non_null(p0);
	memcpy(p0, m.params, m.n_params * sizeof(float));
	double l0 = loss_of(&m, &cpu, x, y, n);
	step(&m, &cpu, x, y, n,
	     &loss); /* grads at p0, then Adam moves params */
	assert_true(fabs(loss - l0) < 1e-5 * fabs(l0) + 1e-6);

	const float h = 1e-2f;
	size_t checked = 0;
	for (size_t i = 0; i < m.n_params; i++) {
		memcpy(m.params, p0, m.n_params * sizeof(float));
		m.params[i] = p0[i] + h;
		double lp = loss_of(&m, &cpu, x, y, n);
		m.params[i] = p0[i] - h;
		double lm = loss_of(&m, &cpu, x, y, n);
		double num = (lp - lm) / (2.0 * h), g = m.grads[i];
		if (fabs(num - g) > 2e-3 + 2e-2 * fabs(num))
			fail_msg("parameter %zu: gradient %.6g, finite "
				 "difference "
				 "%.6g",
				 i, g, num);
		checked++;
	}
	assert_int_equal(checked, in * hid + hid + hid * out + out);
	free(p0);
	mlp_free(&m);
	mlp_backend_close(&cpu);
}

/* Adam's first step moves each parameter by lr against its gradient's
 * sign (Keras' bias-corrected update), and biases start at zero. */
static void test_fashion_mnist_init_adam(void **state)
{
	(void)state;
	struct mlp m;
	struct mlp_backend cpu;
	float x[4 * IN], loss;
	uint8_t y[4];

	make_data(ftpu_test_seed() + 3, 4, x, y);
	open_backend(&cpu, "cpu");
	init_model(&m, IN, HID, OUT, 7);
	const float l1 = sqrtf(6.0f / (IN + HID)),
		    l2 = sqrtf(6.0f / (HID + OUT));
	double mean = 0;
	for (size_t i = 0; i < IN * HID; i++) {
		assert_true(fabsf(m.w1[i]) <= l1);
		mean += m.w1[i];
	}
	assert_true(fabs(mean / (IN * HID)) < l1 / 50);
	for (size_t i = 0; i < HID * OUT; i++)
		assert_true(fabsf(m.w2[i]) <= l2);
	for (size_t i = 0; i < HID; i++)
		assert_true(m.b1[i] == 0.0f);
	float *p0 = malloc(m.n_params * sizeof(float));
	assert_non_null(p0);
	memcpy(p0, m.params, m.n_params * sizeof(float));
	step(&m, &cpu, x, y, 4, &loss);
	assert_true(m.t == 1);
	size_t moved = 0;
	for (size_t i = 0; i < m.n_params; i++) {
		/* Keras: m = 0.1 g, v = 0.001 g^2, alpha = lr sqrt(0.001) /
		 * 0.1, step = alpha m / (sqrt(v) + eps): about lr * sign(g) */
		double g = m.grads[i], d = (double)m.params[i] - p0[i];
		double alpha = 1e-3 * sqrt(1 - 0.999) / (1 - 0.9);
		double want = -alpha * (0.1 * g) / (sqrt(0.001 * g * g) + 1e-7);
		if (fabs(d - want) >
		    1e-3 * fabs(want) + 1e-7 * fabs(p0[i]) + 1e-12)
			fail_msg("parameter %zu: moved %.6g for gradient %.6g, "
				 "want %.6g",
				 i, d, g, want);
		moved += fabs(g) > 1e-4 && fabs(fabs(d) - 1e-3) < 1e-4;
	}
	assert_true(moved > m.n_params / 2);
	free(p0);
	mlp_free(&m);
	mlp_backend_close(&cpu);
}

/* ---- files --------------------------------------------------------------- */

struct fixture {
	char dir[64];
	char path[160], path2[160];
	char err[512];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || !ftpu_test_mkdtemp(f->dir, sizeof(f->dir), "fmnist")) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ftpu_test_rmtree(f->dir);
	free(f);
	return 0;
}

static const char *in_dir(struct fixture *f, char *buf, const char *name)
{
	snprintf(buf, 160, "%s/%s", f->dir, name);
	return buf;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	*n = (size_t)ftell(fp);
	fseek(fp, 0, SEEK_SET);
	uint8_t *b = malloc(*n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *n, fp), *n);
	fclose(fp);
	return b;
}

/* Asserts status and that the message names the file and says why. */
static void expect_fail(int ret, int status, const char *err, const char *path,
			const char *why)
{
	if (ret != status)
		fail_msg("%s: status %d (%s), want %d: %s", path, ret,
			 ftpu_strerror(ret), status, err);
	if (!strstr(err, path) || !strstr(err, why))
		fail_msg("message '%s' should name %s and say '%s'", err, path,
			 why);
}

static void write_set(struct fixture *f, const char *images, const char *labels,
		      uint32_t count, uint32_t rows, uint32_t cols, uint8_t *px,
		      uint8_t *lb)
{
	uint32_t d3[3] = {count, rows, cols}, d1[1] = {count};
	for (size_t i = 0; i < (size_t)count * rows * cols; i++)
		px[i] = (uint8_t)(i * 7 + 3);
	for (uint32_t i = 0; i < count; i++)
		lb[i] = (uint8_t)(i % IDX_CLASSES);
	assert_int_equal(idx_write(images, d3, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	assert_int_equal(idx_write(labels, d1, 1, lb, f->err, sizeof(f->err)),
			 FTPU_OK);
}

static void test_fashion_mnist_idx_valid(void **state)
{
	struct fixture *f = *state;
	char im[160], lb[160], im2[160], lb2[160];
	uint8_t px[5 * 28 * 28], lab[5];
	struct idx_set s;

	/* gzip, as the dataset ships, and plain */
	write_set(f, in_dir(f, im, "train-images-idx3-ubyte.gz"),
		  in_dir(f, lb, "train-labels-idx1-ubyte.gz"), 5, 28, 28, px,
		  lab);
	write_set(f, in_dir(f, im2, "t10k-images-idx3-ubyte"),
		  in_dir(f, lb2, "t10k-labels-idx1-ubyte"), 5, 28, 28, px, lab);
	static const char *const prefixes[] = {"train", "t10k"};
	for (int k = 0; k < 2; k++) {
		int ret = idx_read_fashion(f->dir, prefixes[k], &s, f->err,
					   sizeof(f->err));
		if (ret)
			fail_msg("%s: %s", prefixes[k], f->err);
		assert_int_equal(s.images.count, 5);
		assert_int_equal(s.images.rows, 28);
		assert_int_equal(s.images.cols, 28);
		assert_int_equal(s.labels.count, 5);
		assert_memory_equal(s.images.pixels, px, sizeof(px));
		assert_memory_equal(s.labels.labels, lab, sizeof(lab));
		idx_free_set(&s);
	}
	/* any image size when asked for none */
	struct idx_images i2;
	uint32_t d[3] = {2, 3, 4};
	in_dir(f, im, "small.gz");
	assert_int_equal(idx_write(im, d, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	assert_int_equal(idx_read_images(im, 0, 0, &i2, f->err, sizeof(f->err)),
			 FTPU_OK);
	assert_true(i2.count == 2 && i2.rows == 3 && i2.cols == 4);
	assert_memory_equal(i2.pixels, px, 24);
	idx_free_images(&i2);
}

static void test_fashion_mnist_idx_truncated(void **state)
{
	struct fixture *f = *state;
	char im[160], lb[160], cut[160];
	uint8_t px[6 * 28 * 28], lab[6];
	struct idx_images i2;
	size_t n;

	write_set(f, in_dir(f, im, "i.gz"), in_dir(f, lb, "l.gz"), 6, 28, 28,
		  px, lab);
	/* a gzip stream cut in the middle */
	uint8_t *b = read_bytes(im, &n);
	write_bytes(in_dir(f, cut, "cut.gz"), b, n / 2);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	/* the gzip trailer (CRC, length) missing: all data there, no end */
	write_bytes(cut, b, n - 4);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "corrupt");
	/* the whole trailer cut (head -c -8) and a bit of the data flipped:
	 * without the CRC the damage would pass; the missing end is an
	 * error. A gzip stream followed by junk is one too. */
	uint8_t *d8 = malloc(n + 3);
	assert_non_null(d8);
	memcpy(d8, b, n);
	write_bytes(cut, d8, n - 8);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	memcpy(d8 + n, "abc", 3);
	write_bytes(cut, d8, n + 3);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "after the gzip stream");
	free(d8);
	/* noise does not compress: deflate stores it, so one flipped bit of
	 * the file is one wrong pixel, which only the CRC can tell; with the
	 * trailer cut too, only the stream's missing end */
	uint8_t noise[6 * 28 * 28];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 23);
	}
	uint32_t dd[3] = {6, 28, 28};
	assert_int_equal(idx_write(cut, dd, 3, noise, f->err, sizeof(f->err)),
			 FTPU_OK);
	free(b);
	b = read_bytes(cut, &n);
	assert_true(n > sizeof(noise)); /* stored, not compressed */
	b[n / 2] ^= 0x10;
	write_bytes(cut, b, n);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "incorrect data check");
	write_bytes(cut, b, n - 8);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	free(b);
	/* a FIFO (no writer: opening it to read would wait for ever) */
	in_dir(f, cut, "fifo.gz");
	assert_int_equal(mkfifo(cut, 0600), 0);
	alarm(20); /* a hang fails the test */
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "not a regular file");
	alarm(0);
	assert_int_equal(unlink(cut), 0);
	/* a plain file shorter than its dimensions */
	in_dir(f, im, "i");
	uint32_t d[3] = {6, 28, 28};
	assert_int_equal(idx_write(im, d, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	b = read_bytes(im, &n);
	in_dir(f, cut, "cut");
	write_bytes(cut, b, n - 1);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	/* a header cut short, and an empty file */
	write_bytes(cut, b, 10);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	write_bytes(cut, b, 0);
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, cut, "truncated");
	free(b);
	/* and a missing one */
	in_dir(f, cut, "nothing.gz");
	expect_fail(idx_read_images(cut, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_NOT_FOUND, f->err, cut, "no such file");
}

static void test_fashion_mnist_idx_corrupt(void **state)
{
	struct fixture *f = *state;
	char im[160], lb[160], bad[160];
	uint8_t px[4 * 28 * 28], lab[4];
	struct idx_images i2;
	struct idx_labels l2;
	struct idx_set s;
	size_t n;

	write_set(f, in_dir(f, im, "i.gz"), in_dir(f, lb, "l.gz"), 4, 28, 28,
		  px, lab);
	/* bytes of the compressed stream flipped */
	uint8_t *b = read_bytes(im, &n);
	for (size_t i = n / 3; i < n / 3 + 8; i++)
		b[i] ^= 0x5a;
	write_bytes(in_dir(f, bad, "bad.gz"), b, n);
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "corrupt");
	free(b);
	/* a labels file given as images, and the other way round: magic */
	expect_fail(idx_read_images(lb, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, lb, "bad magic");
	expect_fail(idx_read_labels(im, &l2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, im, "bad magic");
	/* not an IDX file at all */
	write_bytes(bad, "hello, world\n", 13);
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "bad magic");
	/* images of the wrong size; a zero count */
	uint32_t d[3] = {4, 28, 27};
	assert_int_equal(idx_write(bad, d, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "bad dimensions");
	d[0] = 0, d[2] = 28;
	assert_int_equal(idx_write(bad, d, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "bad dimensions");
	/* dimensions too large to be real */
	uint8_t head[16] = {0, 0, 8, 3,	 0x7f, 0xff, 0xff, 0xff,
			    0, 0, 0, 28, 0,    0,    0,	   28};
	write_bytes(bad, head, sizeof(head));
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "bad dimensions");
	/* more bytes than the dimensions say */
	d[0] = 3, d[1] = 28, d[2] = 28;
	in_dir(f, bad, "long");
	assert_int_equal(idx_write(bad, d, 3, px, f->err, sizeof(f->err)),
			 FTPU_OK);
	b = read_bytes(bad, &n);
	uint8_t *longer = malloc(n + 5);
	assert_non_null(longer);
	memcpy(longer, b, n);
	memset(longer + n, 1, 5);
	write_bytes(bad, longer, n + 5);
	expect_fail(idx_read_images(bad, 28, 28, &i2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "trailing bytes");
	free(b);
	free(longer);
	/* a label that is no class */
	uint8_t wrong[3] = {1, 10, 2};
	uint32_t d1[1] = {3};
	in_dir(f, bad, "labels.gz");
	assert_int_equal(idx_write(bad, d1, 1, wrong, f->err, sizeof(f->err)),
			 FTPU_OK);
	expect_fail(idx_read_labels(bad, &l2, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "not a class");
	/* 4 images, 3 labels: the message names both files */
	uint8_t three[3] = {1, 2, 3};
	assert_int_equal(idx_write(bad, d1, 1, three, f->err, sizeof(f->err)),
			 FTPU_OK);
	expect_fail(idx_read_set(im, bad, 28, 28, &s, f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, bad, "3 labels");
	assert_non_null(strstr(f->err, im));
}

static void save(struct fixture *f, const struct mlp *m, const char *path)
{
	if (mlp_save(m, path, f->err, sizeof(f->err)))
		fail_msg("save: %s", f->err);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrites the CRC so that only the edited field is wrong. */
static void fix_crc(uint8_t *b, size_t n)
{
	put_le32(b + n - 4, (uint32_t)crc32(0L, b, (uInt)(n - 4)));
}

static void test_fashion_mnist_weights_file(void **state)
{
	struct fixture *f = *state;
	char path[160], bad[160];
	struct mlp m, l;
	size_t n;

	init_model(&m, IN, HID, OUT, ftpu_test_seed());
	m.t = 1234567890123ull;
	m.b2[3] = 0.25f;
	save(f, &m, in_dir(f, path, "w.bin"));
	assert_int_equal(mlp_load(&l, path, f->err, sizeof(f->err)), FTPU_OK);
	assert_true(l.in == IN && l.hid == HID && l.out == OUT && l.t == m.t);
	assert_memory_equal(l.params, m.params, m.n_params * sizeof(float));
	mlp_free(&l);
	/* saving over a file replaces it, and leaves no temporary behind */
	m.b2[3] = -1.5f;
	save(f, &m, path);
	assert_int_equal(mlp_load(&l, path, f->err, sizeof(f->err)), FTPU_OK);
	assert_true(l.b2[3] == -1.5f);
	mlp_free(&l);
	DIR *d = opendir(f->dir);
	struct dirent *e;
	size_t files = 0;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);

	uint8_t *b = read_bytes(path, &n), *c = malloc(n);
	assert_non_null(c);
	in_dir(f, bad, "bad.bin");
	/* one bit of a weight flipped: the CRC */
	memcpy(c, b, n);
	c[1000] ^= 0x10;
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "CRC");
	/* cut short, and longer than its sizes */
	write_bytes(bad, b, n - 100);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "truncated");
	write_bytes(bad, b, 20);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "truncated");
	uint8_t *longer = calloc(n + 8, 1);
	assert_non_null(longer);
	memcpy(longer, b, n);
	write_bytes(bad, longer, n + 8);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "trailing bytes");
	free(longer);
	/* foreign files: another magic, an IDX file, an empty one */
	memcpy(c, b, n);
	memcpy(c, "FTPUPROG", 8);
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "bad magic");
	uint32_t d1[1] = {4};
	in_dir(f, bad, "labels");
	assert_int_equal(idx_write(bad, d1, 1, (const uint8_t *)"\1\2\3\4",
				   f->err, sizeof(f->err)),
			 FTPU_OK);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "bad magic");
	in_dir(f, bad, "bad.bin");
	write_bytes(bad, b, 0);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "bad magic");
	/* a FIFO, and /dev/zero (whose zeros would be read up to a bound,
	 * 2 GiB, before the magic was looked at): refused unread */
	in_dir(f, bad, "fifo.bin");
	assert_int_equal(mkfifo(bad, 0600), 0);
	alarm(20); /* a hang fails the test */
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "not a regular file");
	alarm(0);
	assert_int_equal(unlink(bad), 0);
	expect_fail(mlp_load(&l, "/dev/zero", f->err, sizeof(f->err)),
		    FTPU_ERR_CORRUPT, f->err, "/dev/zero", "not a regular file");
	/* a header that announces far more than the file holds: refused
	 * before anything beyond the header is read or allocated */
	in_dir(f, bad, "bad.bin");
	memcpy(c, b, n);
	put_le32(c + 12, 1u << 16);
	put_le32(c + 16, 1u << 16);
	write_bytes(bad, c, 64);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "truncated: 64 bytes");
	/* a newer format, CRC intact */
	memcpy(c, b, n);
	put_le32(c + 8, 2);
	fix_crc(c, n);
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)),
		    FTPU_ERR_UNSUPPORTED, f->err, bad, "version 2");
	/* sizes that disagree with the length, or are zero, CRC intact */
	memcpy(c, b, n);
	put_le32(c + 16, HID + 1);
	fix_crc(c, n);
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "truncated");
	memcpy(c, b, n);
	put_le32(c + 12, 0);
	fix_crc(c, n);
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "bad model sizes");
	/* a NaN weight, CRC intact */
	memcpy(c, b, n);
	put_le32(c + 32 + 4 * 5, 0x7fc00000u);
	fix_crc(c, n);
	write_bytes(bad, c, n);
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)), FTPU_ERR_CORRUPT,
		    f->err, bad, "not finite");
	/* missing */
	in_dir(f, bad, "none.bin");
	expect_fail(mlp_load(&l, bad, f->err, sizeof(f->err)),
		    FTPU_ERR_NOT_FOUND, f->err, bad, "cannot open");
	/* into a directory that does not exist */
	in_dir(f, bad, "no/such/dir.bin");
	expect_fail(mlp_save(&m, bad, f->err, sizeof(f->err)),
		    FTPU_ERR_NOT_FOUND, f->err, bad, "cannot create");
	free(b);
	free(c);
	mlp_free(&m);
}

/* ---- checkpoints and resuming (the demo's binary, new processes) -------- */

/* build/examples/fashion_mnist/fashion_mnist beside this test's build/tests/examples/ */
static const char *demo_path(void)
{
	static char path[4096];
	char exe[4000];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../../examples/fashion_mnist/fashion_mnist", exe);
	if (access(path, X_OK))
		fail_msg("%s: not built (make %s)", path, "build/examples/fashion_mnist/fashion_mnist");
	return path;
}

/* Runs the demo with args (NULL-terminated) and returns its exit status;
 * its output goes to dir/out.txt. A run over 300 s fails the test. */
static int run_demo(struct fixture *f, const char *const *args)
{
	const char *argv[32] = {demo_path()};
	size_t n = 1;
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	char out[160];
	in_dir(f, out, "out.txt");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	alarm(300);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	alarm(0);
	if (!WIFEXITED(st))
		fail_msg("%s did not exit (status 0x%x)", argv[0], st);
	return WEXITSTATUS(st);
}

/* The run's output (out.txt) as one string, for messages. */
static char *demo_output(struct fixture *f)
{
	char out[160];
	size_t n;
	uint8_t *b = read_bytes(in_dir(f, out, "out.txt"), &n);
	b[n] = 0;
	return (char *)b;
}

static void expect_demo(struct fixture *f, const char *const *args, int want, const char *says)
{
	int got = run_demo(f, args);
	char *out = demo_output(f);
	if (got != want || (says && !strstr(out, says)))
		fail_msg("fashion_mnist %s %s ...: exit %d, want %d%s%s; it said:\n%s", args[0],
			 args[1], got, want, says ? " saying " : "", says ? says : "", out);
	free(out);
}

/* n training and 40 test samples of the synthetic bands as IDX files in
 * the fixture's directory (the dataset's names). */
static void write_dataset(struct fixture *f, uint32_t n)
{
	char path[160];
	const uint32_t counts[2] = {n, 40};
	static const char *const names[2][2] = {
		{"train-images-idx3-ubyte", "train-labels-idx1-ubyte"},
		{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}};
	for (int k = 0; k < 2; k++) {
		float *x = malloc((size_t)counts[k] * IN * sizeof(float));
		uint8_t *px = malloc((size_t)counts[k] * IN), *y = malloc(counts[k]);
		assert_true(x && px && y);
		make_data(ftpu_test_seed() + (uint64_t)k, counts[k], x, y);
		for (size_t i = 0; i < (size_t)counts[k] * IN; i++)
			px[i] = (uint8_t)(x[i] * 255.0f + 0.5f);
		uint32_t d3[3] = {counts[k], 28, 28}, d1[1] = {counts[k]};
		assert_int_equal(idx_write(in_dir(f, path, names[k][0]), d3, 3, px, f->err,
					   sizeof(f->err)), FTPU_OK);
		assert_int_equal(idx_write(in_dir(f, path, names[k][1]), d1, 1, y, f->err,
					   sizeof(f->err)), FTPU_OK);
		free(x), free(px), free(y);
	}
}

static void load_ckpt(struct fixture *f, const char *name, struct checkpoint *c)
{
	char path[160];
	if (checkpoint_load(c, in_dir(f, path, name), f->err, sizeof(f->err)))
		fail_msg("%s", f->err);
}

/* Two checkpoints of the same training: identical weights, moments, Adam
 * steps, data order, RNG and every step's loss (only the log's clock may
 * differ). */
static void expect_same_training(const struct checkpoint *a, const struct checkpoint *b,
				 size_t steps)
{
	assert_int_equal(a->n_losses, steps);
	assert_int_equal(b->n_losses, steps);
	assert_memory_equal(a->losses, b->losses, steps * sizeof(float));
	assert_int_equal(a->model.n_params, b->model.n_params);
	assert_memory_equal(a->model.params, b->model.params, a->model.n_params * sizeof(float));
	assert_memory_equal(a->model.m, b->model.m, a->model.n_params * sizeof(float));
	assert_memory_equal(a->model.v, b->model.v, a->model.n_params * sizeof(float));
	assert_true(a->model.t == steps && b->model.t == steps);
	assert_true(a->epoch == b->epoch && a->step == b->step);
	assert_true(a->shuffle.s == b->shuffle.s);
	assert_memory_equal(a->order, b->order, a->n_train * sizeof(*a->order));
}

/* Straight through vs stopped, saved, resumed in a new process: the same
 * bits, on the RTL (sim), on the C model (ref) on the whole step, and with
 * every matmul through ftpu_gemm and Adam on the host (ref, gemm). */
static void test_fashion_mnist_resume(void **state)
{
	struct fixture *f = *state;
	char a[160], b[160], c[160];
	in_dir(f, a, "a.ckpt"), in_dir(f, b, "b.ckpt"), in_dir(f, c, "c.ckpt");
	static const struct {
		const char *backend, *mode, *batch, *subset, *epochs;
		const char *straight, *first, *total;
		size_t steps;
	} runs[] = {
		/* 4 steps straight = 2, a new process, 2 more */
		{"sim", "device", "32", "128", "1", "4", "2", "4", 4},
		/* across an epoch's end (10 steps an epoch): its shuffle and test */
		{"ref", "device", "64", "600", "2", "14", "7", "14", 14},
		{"ref", "gemm", "64", "600", "2", "13", "10", "13", 13},
	};
	write_dataset(f, 600);
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		const char *common[] = {"--backend", runs[k].backend, "--mode", runs[k].mode,
					"--data", f->dir, "--out", f->dir, "--test-subset", "40"};
		const char *straight[24], *first[24], *resume[24];
		size_t n = 0;
		for (; n < 10; n++)
			straight[n] = first[n] = resume[n] = common[n];
		const char *tail1[] = {"--batch", runs[k].batch, "--subset", runs[k].subset,
				       "--epochs", runs[k].epochs, "--seed", "7"};
		size_t m = n;
		for (size_t i = 0; i < 8; i++)
			straight[m + i] = first[m + i] = tail1[i];
		m += 8;
		straight[m] = "--max-steps", straight[m + 1] = runs[k].straight;
		straight[m + 2] = "--checkpoint", straight[m + 3] = a, straight[m + 4] = NULL;
		first[m] = "--max-steps", first[m + 1] = runs[k].first;
		first[m + 2] = "--checkpoint", first[m + 3] = b, first[m + 4] = NULL;
		/* the resumed run takes seed, batch and subset from the file */
		resume[n] = "--resume", resume[n + 1] = b;
		resume[n + 2] = "--max-steps", resume[n + 3] = runs[k].total;
		resume[n + 4] = "--checkpoint", resume[n + 5] = c, resume[n + 6] = NULL;
		expect_demo(f, straight, 0, "stopped after step");
		expect_demo(f, first, 0, "stopped after step");
		expect_demo(f, resume, 0, "resumed from");
		struct checkpoint ca, cb, cc;
		load_ckpt(f, "a.ckpt", &ca);
		load_ckpt(f, "b.ckpt", &cb);
		load_ckpt(f, "c.ckpt", &cc);
		expect_same_training(&ca, &cc, runs[k].steps);
		/* and the stopped run's losses are the first of them */
		assert_memory_equal(cb.losses, ca.losses, cb.n_losses * sizeof(float));
		assert_true(cb.n_losses < ca.n_losses);
		checkpoint_free(&ca), checkpoint_free(&cb), checkpoint_free(&cc);
	}

	/* resuming against other flags or data is refused, and says why */
	const char *base[] = {"--backend", "ref", "--data", f->dir, "--out", f->dir,
			      "--test-subset", "40", "--resume", b};
	struct {
		const char *flag, *value, *says;
	} bad[] = {
		{"--seed", "8", "made with --seed 7"},
		{"--batch", "32", "made with a global batch of 64"},
		{"--subset", "500", "made with --subset 600"},
		{"--epochs", "0", NULL}, /* below 1: a usage error */
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		const char *args[16];
		for (size_t i = 0; i < 10; i++)
			args[i] = base[i];
		args[10] = bad[k].flag, args[11] = bad[k].value, args[12] = NULL;
		expect_demo(f, args, bad[k].says ? 1 : 2, bad[k].says);
	}
	/* the same file names on other data: 600 other samples */
	char path[160];
	uint8_t *px = calloc(600, IN), *y = calloc(600, 1);
	uint32_t d3[3] = {600, 28, 28}, d1[1] = {600};
	assert_int_equal(idx_write(in_dir(f, path, "train-images-idx3-ubyte"), d3, 3, px, f->err,
				   sizeof(f->err)), FTPU_OK);
	assert_int_equal(idx_write(in_dir(f, path, "train-labels-idx1-ubyte"), d1, 1, y, f->err,
				   sizeof(f->err)), FTPU_OK);
	free(px), free(y);
	const char *other[] = {"--backend", "ref", "--data", f->dir, "--out", f->dir,
			       "--test-subset", "40", "--resume", b, NULL};
	expect_demo(f, other, 1, "other training data");
	const char *missing[] = {"--backend", "ref", "--data", f->dir, "--resume", "/nonexistent.ckpt", NULL};
	expect_demo(f, missing, 1, "cannot open");
}

/* argv for `mpirun -np 2 [--oversubscribe] <demo> args...` (root may run
 * it here: a container's). */
static void mpi_argv(const char **argv, const char *const *args)
{
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	size_t n = 0;
	argv[n++] = "-np", argv[n++] = "2", argv[n++] = "--oversubscribe";
	argv[n++] = demo_path();
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

/* Runs mpirun (found on PATH) as run_demo runs the demo. */
static int run_mpi(struct fixture *f, const char *const *args)
{
	const char *argv[40];
	mpi_argv(argv, args);
	char out[160];
	in_dir(f, out, "out.txt");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 1), dup2(fd, 2);
		const char *full[42] = {"mpirun"};
		for (size_t i = 0; argv[i]; i++)
			full[i + 1] = argv[i], full[i + 2] = NULL;
		execvp("mpirun", (char *const *)full);
		_exit(127);
	}
	int st;
	alarm(300);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	alarm(0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Replicas: two threads (--replicas) and two MPI ranks (mpirun -np 2)
 * train the same bits, on the RTL and on the C model; an MPI job stopped
 * and resumed goes on as the threads did straight through. */
static void test_fashion_mnist_replicas(void **state)
{
	struct fixture *f = *state;
	char a[160], b[160], c[160];
	in_dir(f, a, "a.ckpt"), in_dir(f, b, "b.ckpt"), in_dir(f, c, "c.ckpt");
	write_dataset(f, 600);
	static const struct {
		const char *kind, *uris, *batch, *steps, *first;
		size_t n;
	} runs[] = {
		{"sim", "sim,sim", "16", "2", NULL, 2},
		{"ref", "ref,ref", "32", "12", "5", 12}, /* 10 steps an epoch of 600 */
	};
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		const char *threads[] = {"--replicas", runs[k].uris, "--data", f->dir, "--out", f->dir,
					 "--test-subset", "40", "--subset", "600", "--epochs", "2",
					 "--batch", runs[k].batch, "--max-steps", runs[k].steps,
					 "--checkpoint", a, NULL};
		expect_demo(f, threads, 0, "2 replicas (threads)");
		const char *ranks[] = {"--backend", runs[k].kind, "--data", f->dir, "--out", f->dir,
				       "--test-subset", "40", "--subset", "600", "--epochs", "2",
				       "--batch", runs[k].batch, "--max-steps",
				       runs[k].first ? runs[k].first : runs[k].steps,
				       "--checkpoint", runs[k].first ? b : c, NULL};
		int st = run_mpi(f, ranks);
		if (st) {
			char *out = demo_output(f);
			fail_msg("mpirun -np 2 fashion_mnist --backend %s: exit %d:\n%s",
				 runs[k].kind, st, out);
		}
		if (runs[k].first) {
			const char *resume[] = {"--backend", runs[k].kind, "--data", f->dir, "--out",
						f->dir, "--test-subset", "40", "--resume", b,
						"--max-steps", runs[k].steps, "--checkpoint", c, NULL};
			assert_int_equal(run_mpi(f, resume), 0);
		}
		struct checkpoint ca, cc;
		load_ckpt(f, "a.ckpt", &ca);
		load_ckpt(f, "c.ckpt", &cc);
		expect_same_training(&ca, &cc, runs[k].n);
		assert_int_equal(ca.batch, 2 * atoi(runs[k].batch));
		checkpoint_free(&ca), checkpoint_free(&cc);
	}
	/* what the two launches refuse */
	const char *both[] = {"--replicas", "ref,ref", "--backend", "ref", "--data", f->dir, NULL};
	expect_demo(f, both, 2, "--replicas names the devices");
	const char *gemm[] = {"--backend", "ref", "--mode", "gemm", "--data", f->dir, "--out",
			      f->dir, "--subset", "64", NULL};
	assert_int_not_equal(run_mpi(f, gemm), 0);
	char *out = demo_output(f);
	if (!strstr(out, "replicas train on the device"))
		fail_msg("mpirun with --mode gemm said:\n%s", out);
	free(out);
}

/* Replicas that split the hidden units (--split units): the RTL and the C
 * model train the same bits; stopped, saved and resumed in a new process,
 * the run goes on as it did straight through; the checkpoint holds the
 * whole model. --split wants --replicas. */
static void test_fashion_mnist_split_units(void **state)
{
	struct fixture *f = *state;
	char a[160], b[160], c[160];
	in_dir(f, a, "a.ckpt"), in_dir(f, b, "b.ckpt"), in_dir(f, c, "c.ckpt");
	write_dataset(f, 600);
	const char *sim[] = {"--replicas", "sim,sim", "--split", "units", "--data", f->dir,
			     "--out", f->dir, "--test-subset", "40", "--subset", "600",
			     "--batch", "16", "--max-steps", "2", "--checkpoint", a, NULL};
	expect_demo(f, sim, 0, "2 replicas (threads, the hidden units split)");
	const char *ref[] = {"--replicas", "ref,ref", "--split", "units", "--data", f->dir,
			     "--out", f->dir, "--test-subset", "40", "--subset", "600",
			     "--batch", "16", "--max-steps", "2", "--checkpoint", b, NULL};
	expect_demo(f, ref, 0, "the hidden units split");
	struct checkpoint ca, cb, cc;
	load_ckpt(f, "a.ckpt", &ca);
	load_ckpt(f, "b.ckpt", &cb);
	expect_same_training(&ca, &cb, 2);
	assert_int_equal(ca.model.n_params, 784 * 128 + 128 + 128 * 10 + 10);
	checkpoint_free(&ca), checkpoint_free(&cb);

	/* 12 steps straight against 5, a new process, 7 more */
	const char *straight[] = {"--replicas", "ref,ref", "--split", "units", "--data", f->dir,
				  "--out", f->dir, "--test-subset", "40", "--subset", "600",
				  "--epochs", "2", "--batch", "32", "--max-steps", "12",
				  "--checkpoint", a, NULL};
	expect_demo(f, straight, 0, "the hidden units split");
	const char *first[] = {"--replicas", "ref,ref", "--split", "units", "--data", f->dir,
			       "--out", f->dir, "--test-subset", "40", "--subset", "600",
			       "--epochs", "2", "--batch", "32", "--max-steps", "5",
			       "--checkpoint", b, NULL};
	expect_demo(f, first, 0, "the hidden units split");
	const char *resume[] = {"--replicas", "ref,ref", "--split", "units", "--data", f->dir,
				"--out", f->dir, "--test-subset", "40", "--resume", b,
				"--max-steps", "12", "--checkpoint", c, NULL};
	expect_demo(f, resume, 0, "resumed from");
	load_ckpt(f, "a.ckpt", &ca);
	load_ckpt(f, "c.ckpt", &cc);
	expect_same_training(&ca, &cc, 12);
	assert_int_equal(ca.batch, 64);
	checkpoint_free(&ca), checkpoint_free(&cc);

	const char *alone[] = {"--backend", "ref", "--split", "units", "--data", f->dir, NULL};
	expect_demo(f, alone, 2, "--split: how --replicas share the work");
	const char *bad[] = {"--replicas", "ref,ref", "--split", "rows", "--data", f->dir, NULL};
	expect_demo(f, bad, 2, "--split: 'rows' is not batch or units");
}

/* Killed at any moment while it checkpoints every step, the demo leaves
 * no checkpoint, or one that loads and is a state of its run. */
static void test_fashion_mnist_checkpoint_kill(void **state)
{
	struct fixture *f = *state;
	char ck[160];
	in_dir(f, ck, "k.ckpt");
	write_dataset(f, 256);
	const char *argv[] = {demo_path(), "--backend", "ref", "--data", f->dir, "--out", f->dir,
			      "--test-subset", "40", "--batch", "16", "--subset", "256",
			      "--epochs", "3", "--checkpoint", ck, "--checkpoint-every", "1", NULL};
	struct rng r = {ftpu_test_seed()};
	size_t loaded = 0;
	for (int round = 0; round < 12; round++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1), dup2(fd, 2);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		usleep(100000 + rng_below(&r, 900000));
		kill(pid, SIGKILL);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		struct checkpoint c;
		int ret = checkpoint_load(&c, ck, f->err, sizeof(f->err));
		if (ret == FTPU_ERR_NOT_FOUND)
			continue;
		if (ret)
			fail_msg("round %d: after a kill: %s", round, f->err);
		assert_true(c.n_losses >= 1 && c.batch == 16 && c.n_train == 256);
		loaded++;
		checkpoint_free(&c);
	}
	/* most kills land after the first step (a step of ref is ~ms) */
	assert_true(loaded >= 6);
}

static void expect_ckpt_fail(struct fixture *f, const char *path, const char *why)
{
	struct checkpoint c;
	memset(&c, 0x5a, sizeof(c));
	int ret = checkpoint_load(&c, path, f->err, sizeof(f->err));
	if (ret >= 0)
		fail_msg("%s: loaded (%s)", path, why ? why : "any refusal");
	if (!strstr(f->err, path) || (why && !strstr(f->err, why)))
		fail_msg("message '%s' should name %s and say '%s'", f->err, path, why);
	/* a refused file leaves the caller's struct as it was */
	struct checkpoint same;
	memset(&same, 0x5a, sizeof(same));
	assert_memory_equal(&c, &same, sizeof(c));
}

/* A checkpoint of a few steps, to corrupt. */
static void small_checkpoint(struct checkpoint *c)
{
	char err[256];
	memset(c, 0, sizeof(*c));
	assert_int_equal(mlp_init(&c->model, 20, 8, 4, 3, err, sizeof(err)), FTPU_OK);
	c->seed = 3, c->batch = 4, c->n_train = 10, c->epochs = 2, c->data_crc = 0x12345678;
	c->epoch = 2, c->step = 1, c->shuffle.s = 99;
	c->order = malloc(10 * sizeof(*c->order));
	for (uint32_t i = 0; i < 10; i++)
		c->order[i] = (i * 3) % 10;
	for (int i = 0; i < 4; i++)
		assert_int_equal(checkpoint_add_loss(c, 2.0f - 0.25f * (float)i), FTPU_OK);
	c->model.t = 4;
	c->model.v[5] = 0.5f, c->model.m[6] = -0.25f;
	struct log_row r = {.epoch = 1, .step = 3, .x = 1, .loss = 1.5, .accuracy = 0.5,
			    .seconds = 2, .utilization = 0.75};
	assert_int_equal(checkpoint_add_row(c, &r), FTPU_OK);
}

static void test_fashion_mnist_checkpoint_file(void **state)
{
	struct fixture *f = *state;
	char path[160], bad[160];
	struct checkpoint c, l;
	size_t n;

	small_checkpoint(&c);
	in_dir(f, path, "c.ckpt");
	if (checkpoint_save(&c, path, f->err, sizeof(f->err)))
		fail_msg("%s", f->err);
	load_ckpt(f, "c.ckpt", &l);
	expect_same_training(&c, &l, 4);
	assert_true(l.seed == 3 && l.batch == 4 && l.n_train == 10 && l.epochs == 2 &&
		    l.data_crc == 0x12345678 && l.n_rows == 1);
	assert_true(l.rows[0].epoch == 1 && l.rows[0].step == 3 && l.rows[0].x == 1 &&
		    l.rows[0].loss == 1.5 && l.rows[0].accuracy == 0.5 && l.rows[0].seconds == 2 &&
		    l.rows[0].utilization == 0.75);
	assert_true(l.model.adam.lr == c.model.adam.lr && l.model.adam.eps == c.model.adam.eps);
	checkpoint_free(&l);

	uint8_t *b = read_bytes(path, &n), *x = malloc(n + 8);
	assert_non_null(x);
	in_dir(f, bad, "bad.ckpt");
	/* every byte of the header, flipped: refused */
	for (size_t i = 0; i < 100; i++) {
		memcpy(x, b, n);
		x[i] ^= 0xff;
		write_bytes(bad, x, n);
		expect_ckpt_fail(f, bad, NULL);
	}
	/* a bit anywhere after it: the CRC */
	struct rng r = {ftpu_test_seed()};
	for (int k = 0; k < 50; k++) {
		memcpy(x, b, n);
		x[100 + rng_below(&r, (uint32_t)(n - 100))] ^= (uint8_t)(1u << rng_below(&r, 8));
		write_bytes(bad, x, n);
		expect_ckpt_fail(f, bad, "CRC");
	}
	/* cut short anywhere, or longer */
	static const size_t cuts[] = {0, 1, 7, 8, 11, 12, 50, 99};
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		write_bytes(bad, b, cuts[k]);
		expect_ckpt_fail(f, bad, cuts[k] < 8 ? "bad magic" : "truncated");
	}
	for (size_t cut = 100; cut < n; cut += 1 + rng_below(&r, 97)) {
		write_bytes(bad, b, cut);
		expect_ckpt_fail(f, bad, "truncated");
	}
	write_bytes(bad, b, n - 1);
	expect_ckpt_fail(f, bad, "truncated");
	memcpy(x, b, n);
	memset(x + n, 0, 8);
	write_bytes(bad, x, n + 8);
	expect_ckpt_fail(f, bad, "trailing bytes");
	/* foreign: the weight file of mlp.h */
	mlp_save(&c.model, bad, f->err, sizeof(f->err));
	expect_ckpt_fail(f, bad, "not an ftpu training checkpoint");
	/* a newer version, CRC intact */
	memcpy(x, b, n);
	put_le32(x + 8, 2);
	fix_crc(x, n);
	write_bytes(bad, x, n);
	struct checkpoint u;
	assert_int_equal(checkpoint_load(&u, bad, f->err, sizeof(f->err)), FTPU_ERR_UNSUPPORTED);
	/* what the CRC cannot see: written wrong, CRC intact */
	const size_t np = c.model.n_params, order = 100 + 12 * np;
	struct {
		size_t at;
		uint32_t value;
		const char *why;
	} edits[] = {
		{order + 4 * 3, 0, "not a permutation"},    /* 0 twice */
		{order + 4 * 9, 10, "not a permutation"},   /* out of range */
		{100 + 8 * np + 4 * 5, 0xbf800000u, "second moment 5 is negative"},
		{100 + 4 * np + 4 * 2, 0x7f800000u, "first moment 2 is not finite"},
		{100 + 4 * 7, 0xffc00000u, "parameter 7 is not finite"},
		{48, 2, "do not agree"},  /* step 2 of epoch 2 with 4 losses */
		{44, 3, "do not agree"},  /* epoch 3 of 2 */
		{56, 5, "do not agree"},  /* Adam steps */
		{80, 0, "Adam lr"},
		{96, 1, "do not agree"},  /* epochs asked: 1, in epoch 2 */
	};
	for (size_t k = 0; k < sizeof(edits) / sizeof(edits[0]); k++) {
		memcpy(x, b, n);
		put_le32(x + edits[k].at, edits[k].value);
		fix_crc(x, n);
		write_bytes(bad, x, n);
		expect_ckpt_fail(f, bad, edits[k].why);
	}
	/* a missing one, and none into a missing directory */
	in_dir(f, bad, "none.ckpt");
	assert_int_equal(checkpoint_load(&u, bad, f->err, sizeof(f->err)), FTPU_ERR_NOT_FOUND);
	in_dir(f, bad, "no/such/dir.ckpt");
	assert_int_equal(checkpoint_save(&c, bad, f->err, sizeof(f->err)), FTPU_ERR_NOT_FOUND);
	free(b), free(x);
	checkpoint_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fashion_mnist_sim_ref_identical),
		cmocka_unit_test(test_fashion_mnist_cpu_close),
		cmocka_unit_test(test_fashion_mnist_device_mode),
		cmocka_unit_test(test_fashion_mnist_device_pixels),
		cmocka_unit_test(test_fashion_mnist_gradients),
		cmocka_unit_test(test_fashion_mnist_init_adam),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_idx_valid,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_fashion_mnist_idx_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_idx_corrupt,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_checkpoint_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_resume,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_replicas,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_split_units,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_checkpoint_kill,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fashion_mnist_weights_file,
						setup, teardown),
	};
	return cmocka_run_group_tests_name("the Fashion-MNIST training demo",
					   tests, NULL, NULL);
}
