/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_graph.c - graphs, ftpu_compile and ftpu_run: the builders' checks,
 * the compiler's errors, and compiled programs against the reference
 * (ftpu_ref_gemm of bf16-rounded operands, then ftpu_ref_activate per
 * element), bit for bit. Programs run on "ref" through the library, and on
 * the C model of devices of other sizes (tiny memories that force k, n and
 * batch chunking; ragged arrays) through a minimal link host here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "compile.h"
#include "ftpu.h"
#include "isa.h"
#include "link.h"
#include "numeric.h"
#include "ref_device.h"

/* ---- values and the reference ------------------------------------------------------- */

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Uniform in [-scale, scale). */
static float *rand_matrix(struct rng *r, size_t rows, size_t cols, float scale)
{
	float *m = malloc(rows * cols * sizeof(*m) + 1);
	assert_non_null(m);
	for (size_t i = 0; i < rows * cols; i++)
		m[i] = scale * ((float)rng_u32(r) / 2147483648.0f - 1.0f);
	return m;
}

/*
 * One layer on the reference: raw = bf16(x) * bf16(w) in fp32 (M x N), and
 * act = bf16(relu?(raw + (b ? b : -0))) widened to fp32.
 */
static void ref_layer(size_t M, size_t K, size_t N, const float *x, const float *w,
		      const float *b, bool relu, float *raw, float *act)
{
	uint16_t *xa = malloc(M * K * sizeof(*xa)), *wb = malloc(K * N * sizeof(*wb));
	uint32_t *acc = calloc(M * N, sizeof(*acc));
	assert_non_null(xa);
	assert_non_null(wb);
	assert_non_null(acc);
	for (size_t i = 0; i < M * K; i++)
		xa[i] = ftpu_f32_to_bf16(bits(x[i]));
	for (size_t i = 0; i < K * N; i++)
		wb[i] = ftpu_f32_to_bf16(bits(w[i]));
	ftpu_ref_gemm(M, N, K, xa, K, wb, N, acc, N, false);
	for (size_t i = 0; i < M * N; i++) {
		if (raw)
			raw[i] = from_bits(acc[i]);
		if (act)
			act[i] = from_bits(ftpu_bf16_to_f32(ftpu_ref_activate(
				acc[i], b ? bits(b[i % N]) : 0x80000000u, relu)));
	}
	free(xa);
	free(wb);
	free(acc);
}

/* Bit-exact comparison; prints the first few differences. */
static size_t count_diff(const char *what, const float *got, const float *want, size_t rows,
			 size_t cols)
{
	size_t bad = 0;
	for (size_t i = 0; i < rows * cols; i++)
		if (bits(got[i]) != bits(want[i]) && bad++ < 5)
			print_error("%s[%zu][%zu]: got %08x want %08x\n", what, i / cols,
				    i % cols, bits(got[i]), bits(want[i]));
	return bad;
}

/* ---- a chain of layers: graph and reference ------------------------------------------ */

#define MAX_LAYERS 4

struct chain {
	size_t M, L;
	size_t dim[MAX_LAYERS + 1]; /* K of layer 0, N of each layer */
	bool bias[MAX_LAYERS], relu[MAX_LAYERS];
	bool out_all; /* every layer's result is an output, not only the last */
	/* data */
	float *x, *w[MAX_LAYERS], *b[MAX_LAYERS];
	/* the reference: raw and activated result of each layer */
	float *raw[MAX_LAYERS], *act[MAX_LAYERS];
	/* outputs: which layer, activated or raw */
	size_t n_out, out_layer[MAX_LAYERS];
	bool out_act[MAX_LAYERS];
};

static bool has_act(const struct chain *c, size_t i)
{
	return c->bias[i] || c->relu[i];
}

static void chain_data(struct chain *c, struct rng *r)
{
	c->x = rand_matrix(r, c->M, c->dim[0], 2.0f);
	for (size_t i = 0; i < c->L; i++) {
		c->w[i] = rand_matrix(r, c->dim[i], c->dim[i + 1],
				      2.0f / sqrtf((float)c->dim[i]));
		c->b[i] = c->bias[i] ? rand_matrix(r, 1, c->dim[i + 1], 0.5f) : NULL;
		c->raw[i] = malloc(c->M * c->dim[i + 1] * sizeof(float));
		c->act[i] = malloc(c->M * c->dim[i + 1] * sizeof(float));
		assert_non_null(c->raw[i]);
		assert_non_null(c->act[i]);
	}
	c->n_out = 0;
	for (size_t i = 0; i < c->L; i++)
		if (c->out_all || i == c->L - 1) {
			c->out_layer[c->n_out] = i;
			c->out_act[c->n_out++] = has_act(c, i);
		}
}

/* The reference for the current x: a layer's input is the previous
 * layer's activation (bf16, the implicit one when it has no bias/ReLU). */
static void chain_ref(struct chain *c)
{
	const float *in = c->x;
	for (size_t i = 0; i < c->L; i++) {
		ref_layer(c->M, c->dim[i], c->dim[i + 1], in, c->w[i], c->b[i], c->relu[i],
			  c->raw[i], c->act[i]);
		in = c->act[i];
	}
}

static ftpu_graph *chain_graph(const struct chain *c)
{
	ftpu_graph *g = NULL;
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor t = ftpu_graph_input(g, c->M, c->dim[0], "x");
	ftpu_tensor outs[MAX_LAYERS];
	for (size_t i = 0; i < c->L; i++) {
		ftpu_tensor w = ftpu_graph_constant(g, c->dim[i], c->dim[i + 1], c->w[i],
						    c->dim[i + 1], "w");
		t = ftpu_graph_matmul(g, t, w);
		if (c->bias[i])
			t = ftpu_graph_bias_add(
				g, t, ftpu_graph_constant(g, 1, c->dim[i + 1], c->b[i],
							  c->dim[i + 1], "b"));
		if (c->relu[i])
			t = ftpu_graph_relu(g, t);
		assert_true(t >= 0);
		outs[i] = t;
	}
	for (size_t j = 0; j < c->n_out; j++)
		assert_int_equal(ftpu_graph_output(g, outs[c->out_layer[j]]), FTPU_OK);
	return g;
}

static float **chain_outputs(const struct chain *c)
{
	float **o = calloc(MAX_LAYERS, sizeof(*o));
	assert_non_null(o);
	for (size_t j = 0; j < c->n_out; j++) {
		size_t n = c->M * c->dim[c->out_layer[j] + 1];
		o[j] = malloc(n * sizeof(float));
		assert_non_null(o[j]);
		memset(o[j], 0xA5, n * sizeof(float)); /* poison */
	}
	return o;
}

static size_t chain_check(const struct chain *c, float *const *o)
{
	size_t bad = 0;
	for (size_t j = 0; j < c->n_out; j++) {
		size_t l = c->out_layer[j];
		bad += count_diff(c->out_act[j] ? "act" : "raw", o[j],
				  c->out_act[j] ? c->act[l] : c->raw[l], c->M, c->dim[l + 1]);
	}
	return bad;
}

static void chain_free(struct chain *c, float **o)
{
	free(c->x);
	for (size_t i = 0; i < c->L; i++) {
		free(c->w[i]);
		free(c->b[i]);
		free(c->raw[i]);
		free(c->act[i]);
	}
	for (size_t j = 0; o && j < MAX_LAYERS; j++)
		free(o[j]);
	free(o);
}

/* ---- a minimal link host on the C model (devices of any size) ----------------------------- */

struct raw {
	struct ftpu_ref_device_config cfg;
	struct ftpu_ref_device *d;
	struct ftpu_link_rx rx;
	uint32_t rx_buf[FTPU_LINK_MAX_PAYLOAD];
	uint32_t *data;
	size_t cap, got;
	bool synced, faulted, overflow;
	size_t errors;
	uint16_t seq;
};

static void raw_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct raw *r = ctx;
	if (f->type == FTPU_LINK_DATA) {
		if (r->got + f->len > r->cap) {
			r->overflow = true;
			return;
		}
		memcpy(r->data + r->got, f->payload, f->len * sizeof(uint32_t));
		r->got += f->len;
	} else if (f->type == FTPU_LINK_EVENT && f->len >= 1 &&
		   f->payload[0] == FTPU_LINK_EVENT_SYNC) {
		r->synced = true;
	} else if (f->type == FTPU_LINK_EVENT) {
		print_error("device fault: pc %u code %u word %#x\n", f->payload[1],
			    f->payload[2], f->payload[3]);
		r->faulted = true;
	} else {
		r->errors++;
	}
}

static void raw_error(void *ctx, const struct ftpu_link_error *e)
{
	(void)e;
	((struct raw *)ctx)->errors++;
}

static void raw_open(struct raw *r, const struct ftpu_ref_device_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	assert_int_equal(ftpu_ref_device_open(cfg, &r->d), FTPU_OK);
	assert_int_equal(ftpu_link_rx_init(&r->rx, r->rx_buf, FTPU_LINK_MAX_PAYLOAD), FTPU_OK);
}

static void raw_close(struct raw *r)
{
	ftpu_ref_device_close(r->d);
}

static void raw_info(const struct ftpu_ref_device_config *cfg, struct ftpu_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->rows = info->cols = cfg->n;
	info->ub_vectors = cfg->ub_vectors;
	info->weight_tiles = cfg->wm_rows / cfg->n;
	info->acc_vectors = cfg->acc_vectors;
	info->bias_vectors = cfg->bias_vectors;
}

/* Sends words + SYNC as one program; collects DATA into data (cap words).
 * Returns the DATA words received, or -1 on a fault or link error. */
static long raw_exec(struct raw *r, const uint32_t *words, size_t n, uint32_t *data, size_t cap)
{
	const struct ftpu_link_rx_cb cb = { .frame = raw_frame, .error = raw_error, .ctx = r };
	size_t total = n + FTPU_ISA_WORDS;
	uint32_t *w = malloc(total * sizeof(*w));
	uint8_t *frame = malloc(FTPU_LINK_MAX_FRAME_BYTES), buf[4096];
	assert_non_null(w);
	assert_non_null(frame);
	memcpy(w, words, n * sizeof(*w));
	ftpu_isa_encode(w + n, FTPU_OP_SYNC, 0, 0, 77, 0);
	r->data = data;
	r->cap = cap;
	r->got = 0;
	r->synced = r->faulted = r->overflow = false;
	for (size_t at = 0; at < total;) {
		size_t len = total - at < 1024 ? total - at : 1024;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + len == total ? FTPU_PROGRAM_END : 0);
		int bytes = ftpu_link_encode_flags(FTPU_LINK_PROGRAM, flags, ++r->seq, 0, w + at,
						   len, frame, FTPU_LINK_MAX_FRAME_BYTES);
		assert_true(bytes > 0);
		assert_int_equal(ftpu_ref_device_write(r->d, frame, (size_t)bytes), FTPU_OK);
		size_t got;
		while (ftpu_ref_device_pending(r->d) &&
		       (got = ftpu_ref_device_read(r->d, buf, sizeof(buf))) > 0)
			assert_int_equal(ftpu_link_rx_push(&r->rx, buf, got, &cb), FTPU_OK);
		at += len;
	}
	free(w);
	free(frame);
	if (r->faulted || r->errors || r->overflow || !r->synced)
		return -1;
	return (long)r->got;
}

/* Runs p on the raw device: the resident part too when `resident`. */
static void raw_run(struct raw *r, ftpu_program *p, const float *const *in, float *const *out,
		    bool resident)
{
	assert_non_null(ftpu__program_data(p));
	ftpu__program_pack(p, in);
	size_t skip = resident ? 0 : p->n_resident;
	long got = raw_exec(r, p->words + skip, p->n_words - skip, p->data, p->data_words);
	assert_int_equal(got, (long)p->data_words);
	ftpu__program_unpack(p, p->data, out);
}

static ftpu_program *compile_for(const struct ftpu_ref_device_config *cfg, const ftpu_graph *g)
{
	struct ftpu_device_info info;
	ftpu_program *p = NULL;
	char why[512];
	raw_info(cfg, &info);
	int ret = ftpu__compile_info(&info, g, &p, why, sizeof(why));
	if (ret)
		print_error("compile: %s\n", why);
	assert_int_equal(ret, FTPU_OK);
	assert_non_null(p);
	return p;
}

static struct ftpu_ref_device_config small_cfg(unsigned n, uint32_t ub, uint32_t tiles,
					       uint32_t acc, uint32_t bias)
{
	struct ftpu_ref_device_config cfg;
	ftpu_ref_device_default_config(&cfg);
	cfg.n = n;
	cfg.ub_vectors = ub;
	cfg.wm_rows = tiles * n;
	cfg.acc_vectors = acc;
	cfg.bias_vectors = bias;
	return cfg;
}

/* Builds, compiles for cfg, runs twice (the second time with new inputs
 * and without the resident part) and checks against the reference. */
static void chain_on_raw(const struct ftpu_ref_device_config *cfg, struct chain *c, uint64_t seed)
{
	struct rng r = { seed };
	struct raw dev;
	chain_data(c, &r);
	chain_ref(c);
	ftpu_graph *g = chain_graph(c);
	ftpu_program *p = compile_for(cfg, g);
	ftpu_graph_destroy(g);
	float **o = chain_outputs(c);
	raw_open(&dev, cfg);
	raw_run(&dev, p, (const float *const *)&c->x, o, true);
	assert_int_equal(chain_check(c, o), 0);
	/* new inputs; the constants stay */
	free(c->x);
	c->x = rand_matrix(&r, c->M, c->dim[0], 3.0f);
	chain_ref(c);
	raw_run(&dev, p, (const float *const *)&c->x, o, false);
	assert_int_equal(chain_check(c, o), 0);
	raw_close(&dev);
	ftpu_program_free(p);
	chain_free(c, o);
}

/* ---- builders --------------------------------------------------------------------- */

static bool last_error_has(const char *s)
{
	const char *e = ftpu_last_error(NULL);
	if (!strstr(e, s)) {
		print_error("ftpu_last_error(NULL) = \"%s\", wanted \"%s\"\n", e, s);
		return false;
	}
	return true;
}

/* The node of tensor t (its id carries g's tag, compile.h). */
static const struct ftpu__node *node(const ftpu_graph *g, ftpu_tensor t)
{
	assert_true(t >= 0 && FTPU__TENSOR_INDEX(t) < g->n_nodes);
	return &g->nodes[FTPU__TENSOR_INDEX(t)];
}

static void test_graph_builders_null_graph(void **state)
{
	(void)state;
	float v[4] = { 0 };
	assert_int_equal(ftpu_graph_create(NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_input(NULL, 1, 1, "x"), FTPU_ERR_INVALID);
	assert_true(last_error_has("NULL"));
	assert_int_equal(ftpu_graph_constant(NULL, 1, 1, v, 1, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_matmul(NULL, 0, 1), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_bias_add(NULL, 0, 1), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_relu(NULL, 0), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_output(NULL, 0), FTPU_ERR_INVALID);
	ftpu_graph_destroy(NULL);
}

static void test_graph_builders_bad_sizes(void **state)
{
	(void)state;
	ftpu_graph *g;
	float v[8] = { 0 };
	struct {
		size_t rows, cols;
		const char *msg;
	} bad[] = {
		{ 0, 5, "zero size" },
		{ 5, 0, "zero size" },
		{ 0, 0, "zero size" },
		{ (size_t)1 << 31, 1, "too large" },
		{ 1, (size_t)1 << 31, "too large" },
		{ SIZE_MAX, SIZE_MAX, "too large" },
		{ (size_t)1 << 30, (size_t)1 << 30, "too large" }, /* both fine alone */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
		assert_int_equal(ftpu_graph_input(g, bad[i].rows, bad[i].cols, "x"),
				 FTPU_ERR_INVALID);
		assert_true(last_error_has(bad[i].msg));
		assert_int_equal(ftpu_graph_constant(g, bad[i].rows, bad[i].cols, v, 8, "c"),
				 FTPU_ERR_INVALID);
		assert_true(last_error_has(bad[i].msg));
		/* the graph keeps its first failure: compile reports it */
		assert_int_equal(g->status, FTPU_ERR_INVALID);
		assert_non_null(strstr(g->msg, "input"));
		ftpu_graph_destroy(g);
	}
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	assert_int_equal(ftpu_graph_constant(g, 2, 4, NULL, 4, "c"), FTPU_ERR_INVALID);
	assert_true(last_error_has("values is NULL"));
	assert_int_equal(ftpu_graph_constant(g, 2, 4, v, 3, "c"), FTPU_ERR_INVALID);
	assert_true(last_error_has("ld 3"));
	assert_int_equal(ftpu_graph_constant(g, 2, 4, v, SIZE_MAX, "c"), FTPU_ERR_INVALID);
	assert_true(last_error_has("overflows"));
	/* good ones still work after failures, with a stride */
	float m[2 * 5] = { 1, 2, 3, 4, 99, 5, 6, 7, 8, 99 };
	ftpu_tensor c = ftpu_graph_constant(g, 2, 4, m, 5, NULL);
	assert_true(c >= 0);
	assert_true(node(g, c)->values[4] == 5.0f && node(g, c)->values[7] == 8.0f);
	ftpu_graph_destroy(g);
}

static void test_graph_builders_shapes(void **state)
{
	(void)state;
	ftpu_graph *g;
	float w[785 * 2] = { 0 };
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor x = ftpu_graph_input(g, 37, 784, "pixels");
	ftpu_tensor w1 = ftpu_graph_constant(g, 785, 2, w, 2, "w1");
	ftpu_tensor w2 = ftpu_graph_constant(g, 784, 2, w, 2, "w2");
	assert_int_equal(FTPU__TENSOR_INDEX(x), 0);
	assert_int_equal(FTPU__TENSOR_INDEX(w1), 1);
	assert_int_equal(FTPU__TENSOR_INDEX(w2), 2);
	assert_int_equal(ftpu_graph_matmul(g, x, w1), FTPU_ERR_SHAPE);
	assert_true(last_error_has("matmul: input t0 'pixels' [37 x 784] times constant t1 "
				   "'w1' [785 x 2]: x has 784 columns but w has 785 rows"));
	ftpu_tensor h = ftpu_graph_matmul(g, x, w2);
	assert_int_equal(FTPU__TENSOR_INDEX(h), 3);
	assert_int_equal(node(g, h)->rows, 37);
	assert_int_equal(node(g, h)->cols, 2);
	/* biases: 1 x n only */
	ftpu_tensor b3 = ftpu_graph_constant(g, 1, 3, w, 3, "b3");
	ftpu_tensor b2x2 = ftpu_graph_constant(g, 2, 2, w, 2, "b2x2");
	ftpu_tensor b = ftpu_graph_constant(g, 1, 2, w, 2, "b");
	assert_int_equal(ftpu_graph_bias_add(g, h, b3), FTPU_ERR_SHAPE);
	assert_true(last_error_has("bias must be [1 x 2]"));
	assert_true(last_error_has("b3"));
	assert_int_equal(ftpu_graph_bias_add(g, h, b2x2), FTPU_ERR_SHAPE);
	ftpu_tensor y = ftpu_graph_relu(g, ftpu_graph_bias_add(g, h, b));
	assert_true(y >= 0);
	assert_int_equal(node(g, y)->rows, 37);
	/* the first failure is kept */
	assert_int_equal(g->status, FTPU_ERR_SHAPE);
	assert_non_null(strstr(g->msg, "785 rows"));
	ftpu_graph_destroy(g);
}

static void test_graph_builders_failed_tensors(void **state)
{
	(void)state;
	ftpu_graph *g, *g2;
	float v[4] = { 0 };
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor bad = ftpu_graph_input(g, 0, 4, "x");
	assert_int_equal(bad, FTPU_ERR_INVALID);
	ftpu_tensor w = ftpu_graph_constant(g, 4, 1, v, 1, "w");
	assert_true(w >= 0);
	/* a failed tensor passes its status on, through every builder */
	ftpu_tensor t = ftpu_graph_matmul(g, bad, w);
	assert_int_equal(t, FTPU_ERR_INVALID);
	assert_true(last_error_has("operand x is a failed tensor"));
	t = ftpu_graph_relu(g, ftpu_graph_bias_add(g, t, w));
	assert_int_equal(t, FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_output(g, t), FTPU_ERR_INVALID);
	/* other statuses too */
	assert_int_equal(ftpu_graph_relu(g, FTPU_ERR_SHAPE), FTPU_ERR_SHAPE);
	assert_int_equal(ftpu_graph_matmul(g, w, FTPU_ERR_NOMEM), FTPU_ERR_NOMEM);
	assert_true(last_error_has("operand w is a failed tensor"));
	/* not a tensor at all */
	assert_int_equal(ftpu_graph_relu(g, -1000), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_relu(g, 57), FTPU_ERR_INVALID);
	assert_true(last_error_has("not a tensor of this graph"));
	/* compile reports the first failure */
	struct ftpu_device_info info;
	struct ftpu_ref_device_config cfg;
	ftpu_program *p = (ftpu_program *)&info; /* must stay untouched */
	char why[256];
	ftpu_ref_device_default_config(&cfg);
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_INVALID);
	assert_ptr_equal(p, (ftpu_program *)&info);
	assert_non_null(strstr(why, "input: zero size [0 x 4]"));
	ftpu_graph_destroy(g);

	/* a good tensor of another graph is not this graph's, even where this
	 * graph has a node of the same index */
	ftpu_graph *g3;
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	assert_int_equal(ftpu_graph_create(&g3), FTPU_OK);
	ftpu_tensor x = ftpu_graph_input(g, 2, 4, "x");
	ftpu_tensor w3 = ftpu_graph_constant(g3, 4, 1, v, 1, "w3");
	assert_true(x >= 0 && w3 >= 0);
	assert_int_equal(ftpu_graph_matmul(g, x, w3), FTPU_ERR_INVALID);
	assert_true(last_error_has("not a tensor of this graph"));
	assert_int_equal(ftpu_graph_output(g3, x), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_graph_relu(g3, w3 + 1), FTPU_ERR_INVALID);
	assert_true(ftpu_graph_relu(g3, w3) >= 0);
	ftpu_graph_destroy(g);
	ftpu_graph_destroy(g3);

	/* a failed tensor from another graph fails this one too */
	assert_int_equal(ftpu_graph_create(&g2), FTPU_OK);
	assert_int_equal(ftpu_graph_output(g2, FTPU_ERR_SHAPE), FTPU_ERR_SHAPE);
	assert_int_equal(g2->status, FTPU_ERR_SHAPE);
	ftpu_graph_destroy(g2);
}

/* ---- compile errors (no device needed) ------------------------------------------------------ */

struct bad_graph {
	const char *what;
	int status;
	const char *msg;
};

/* Builds graph number `which` of the bad ones below. */
static ftpu_graph *bad_graph(int which)
{
	static float v[64 * 64];
	ftpu_graph *g;
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor x = ftpu_graph_input(g, 8, 16, "x");
	ftpu_tensor x2 = ftpu_graph_input(g, 9, 16, "x2");
	ftpu_tensor w = ftpu_graph_constant(g, 16, 16, v, 16, "w");
	ftpu_tensor b = ftpu_graph_constant(g, 1, 16, v, 16, "b");
	ftpu_tensor h = ftpu_graph_matmul(g, x, w);
	switch (which) {
	case 0: /* nothing marked */
		break;
	case 1:
		ftpu_graph_output(g, ftpu_graph_matmul(g, x, ftpu_graph_input(g, 16, 16, "wi")));
		break;
	case 2:
		ftpu_graph_output(g, ftpu_graph_matmul(
					     g, h, ftpu_graph_matmul(g, ftpu_graph_input(g, 16, 16, "wi"),
								     w)));
		break;
	case 3:
		ftpu_graph_output(g, ftpu_graph_bias_add(g, x, b));
		break;
	case 4:
		ftpu_graph_output(g, ftpu_graph_relu(g, x));
		break;
	case 5:
		ftpu_graph_output(g, ftpu_graph_bias_add(g, h, ftpu_graph_input(g, 1, 16, "bi")));
		break;
	case 6:
		ftpu_graph_output(g, ftpu_graph_bias_add(
					     g, h, ftpu_graph_matmul(g, ftpu_graph_input(g, 1, 16, "xb"),
								     w)));
		break;
	case 7:
		ftpu_graph_output(g, ftpu_graph_bias_add(g, ftpu_graph_relu(g, h), b));
		break;
	case 8:
		ftpu_graph_output(g, x);
		break;
	case 9:
		ftpu_graph_output(g, ftpu_graph_matmul(g, ftpu_graph_constant(g, 8, 16, v, 16, "c"),
						       w));
		break;
	case 10:
		ftpu_graph_output(g, h);
		ftpu_graph_output(g, ftpu_graph_matmul(g, x2, w));
		break;
	case 11:
		ftpu_graph_output(g, b);
		break;
	case 12: /* bias_add of a bias_add */
		ftpu_graph_output(g, ftpu_graph_bias_add(g, ftpu_graph_bias_add(g, h, b), b));
		break;
	}
	return g;
}

static const struct bad_graph bad_graphs[] = {
	{ "no outputs", FTPU_ERR_INVALID, "no outputs" },
	{ "w is an input", FTPU_ERR_UNSUPPORTED,
	  "matmul t6 [8 x 16]: its right operand input t5 'wi' [16 x 16] is an input; it must "
	  "be a constant" },
	{ "w is a result", FTPU_ERR_UNSUPPORTED,
	  "right operand matmul t6 [16 x 16] is a matmul result; it must be a constant" },
	{ "bias_add of an input", FTPU_ERR_UNSUPPORTED,
	  "bias_add t5 [8 x 16]: its operand input t0 'x' [8 x 16] is an input; bias_add must "
	  "follow a matmul" },
	{ "relu of an input", FTPU_ERR_UNSUPPORTED,
	  "relu t5 [8 x 16]: its operand input t0 'x' [8 x 16] is an input; relu must follow" },
	{ "bias is an input", FTPU_ERR_UNSUPPORTED, "its bias input t5 'bi' [1 x 16] is an input" },
	{ "bias is a result", FTPU_ERR_UNSUPPORTED,
	  "its bias matmul t6 [1 x 16] is a matmul result; it must be a constant" },
	{ "bias after relu", FTPU_ERR_UNSUPPORTED, "is an activation; bias_add must follow" },
	{ "input as output", FTPU_ERR_UNSUPPORTED,
	  "output 0: input t0 'x' [8 x 16] is an input, which the device does not compute" },
	{ "constant x", FTPU_ERR_UNSUPPORTED, "its left operand constant t5 'c' [8 x 16]" },
	{ "two batch sizes", FTPU_ERR_SHAPE, "has 8 rows but matmul t5 [9 x 16] has 9" },
	{ "constant as output", FTPU_ERR_UNSUPPORTED, "output 0: constant t3 'b'" },
	{ "bias_add of bias_add", FTPU_ERR_UNSUPPORTED, "is an activation; bias_add must" },
};

static void test_graph_compile_unsupported(void **state)
{
	(void)state;
	struct ftpu_ref_device_config cfg;
	struct ftpu_device_info info;
	ftpu_ref_device_default_config(&cfg);
	raw_info(&cfg, &info);
	for (size_t i = 0; i < sizeof(bad_graphs) / sizeof(bad_graphs[0]); i++) {
		ftpu_graph *g = bad_graph((int)i);
		ftpu_program *p = NULL;
		char why[512];
		assert_int_equal(g->status, 0);
		int ret = ftpu__compile_info(&info, g, &p, why, sizeof(why));
		if (ret != bad_graphs[i].status || !strstr(why, bad_graphs[i].msg))
			print_error("%s: got %d \"%s\"\n", bad_graphs[i].what, ret, why);
		assert_int_equal(ret, bad_graphs[i].status);
		assert_non_null(strstr(why, bad_graphs[i].msg));
		assert_null(p);
		ftpu_graph_destroy(g);
	}
}

/* Graphs that do not fit a device's memories. */
static void test_graph_compile_does_not_fit(void **state)
{
	(void)state;
	static float v[784 * 128];
	struct ftpu_ref_device_config cfg;
	struct ftpu_device_info info;
	ftpu_program *p = NULL;
	char why[512];
	ftpu_graph *g;

	/* the MLP's weights: 49 * 8 + 8 * 1 = 400 tiles of 16 x 16 */
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor x = ftpu_graph_input(g, 4, 784, "x");
	ftpu_tensor w1 = ftpu_graph_constant(g, 784, 128, v, 128, "w1");
	ftpu_tensor b1 = ftpu_graph_constant(g, 1, 128, v, 128, "b1");
	ftpu_tensor w2 = ftpu_graph_constant(g, 128, 10, v, 10, "w2");
	ftpu_tensor h = ftpu_graph_relu(g, ftpu_graph_bias_add(g, ftpu_graph_matmul(g, x, w1), b1));
	ftpu_tensor y = ftpu_graph_matmul(g, h, w2);
	assert_int_equal(ftpu_graph_output(g, y), FTPU_OK);

	cfg = small_cfg(16, 4096, 399, 4096, 256);
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "weights do not fit: 2 constants need 400 tiles of 16x16 "
				    "(the largest, constant t1 'w1' [784 x 128], 392)"));
	assert_non_null(strstr(why, "holds 399"));
	cfg.wm_rows = 400 * 16;
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_OK);
	ftpu_program_free(p);
	p = NULL;

	/* bias: 8 vectors */
	cfg.bias_vectors = 7;
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "biases do not fit: they need 8 vectors of 16 (1 constant)"));
	cfg.bias_vectors = 8;

	/* UB: one row needs the input's 49 k-tiles (the hidden layer's 8 take
	 * their place) */
	cfg.ub_vectors = 48;
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "one batch row does not fit: it needs 49 unified-buffer"));
	cfg.ub_vectors = 49;
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_OK);
	assert_int_equal(p->in_pieces[0].rows, 1); /* one row per chunk */
	assert_int_equal(p->n_in_pieces, 4);
	ftpu_program_free(p);
	p = NULL;

	/* ACC: the hidden layer's 8 n-tiles and the next layer's 1 */
	cfg.acc_vectors = 8;
	raw_info(&cfg, &info);
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "9 accumulator vectors"));

	/* devices the compiler cannot use */
	cfg = small_cfg(16, 4096, 1024, 4096, 256);
	raw_info(&cfg, &info);
	info.cols = 8;
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "16x8 array"));
	info.cols = 16;
	info.bias_vectors = 0;
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_ERR_UNSUPPORTED);
	assert_null(p);
	assert_int_equal(ftpu__compile_info(NULL, g, &p, why, sizeof(why)), FTPU_ERR_INVALID);
	assert_int_equal(ftpu__compile_info(&info, NULL, &p, why, sizeof(why)), FTPU_ERR_INVALID);
	assert_int_equal(ftpu__compile_info(&info, g, NULL, why, sizeof(why)), FTPU_ERR_INVALID);
	ftpu_graph_destroy(g);
}

/* ---- programs on the C model of devices of other sizes -------------------------------------- */

static void test_graph_small_device_chains(void **state)
{
	(void)state;
	/* 4 x 4, tiny memories: k and n tiles, chunks of a few rows */
	struct ftpu_ref_device_config tiny = small_cfg(4, 64, 64, 32, 16);
	struct ftpu_ref_device_config six = small_cfg(6, 100, 40, 60, 10);
	struct ftpu_ref_device_config two = small_cfg(2, 24, 300, 24, 40);
	struct {
		const struct ftpu_ref_device_config *cfg;
		struct chain c;
	} cases[] = {
		{ &tiny, { .M = 50, .L = 2, .dim = { 10, 7, 5 }, .bias = { 1, 1 },
			   .relu = { 1, 0 } } },
		{ &tiny, { .M = 1, .L = 1, .dim = { 3, 2 } } },
		{ &tiny, { .M = 9, .L = 1, .dim = { 13, 9 }, .relu = { 1 } } },
		{ &tiny, { .M = 9, .L = 1, .dim = { 13, 9 }, .bias = { 1 } } },
		{ &tiny, { .M = 33, .L = 3, .dim = { 8, 8, 6, 3 }, .out_all = true,
			   .bias = { 1, 0, 1 }, .relu = { 1, 0, 0 } } },
		{ &tiny, { .M = 17, .L = 4, .dim = { 5, 9, 4, 7, 2 }, .out_all = true,
			   .bias = { 0, 1, 0, 1 }, .relu = { 0, 1, 1, 0 } } },
		{ &six, { .M = 61, .L = 2, .dim = { 20, 13, 11 }, .out_all = true,
			  .bias = { 1, 1 }, .relu = { 1, 1 } } },
		{ &six, { .M = 7, .L = 3, .dim = { 6, 12, 6, 1 }, .bias = { 1, 1, 1 },
			  .relu = { 1, 1, 0 } } },
		{ &two, { .M = 40, .L = 3, .dim = { 9, 5, 3, 4 }, .out_all = true,
			  .bias = { 1, 0, 1 }, .relu = { 0, 1, 1 } } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		chain_on_raw(cases[i].cfg, &cases[i].c, ftpu_test_seed() + i);
}

/* Vector counts of a chunk beyond one instruction's 65535: HOST_READ and
 * HOST_WRITE split by tiles. */
static void test_graph_large_chunks(void **state)
{
	(void)state;
	struct ftpu_ref_device_config big = small_cfg(2, 65536, 16, 65536, 16);
	struct chain c = { .M = 40000, .L = 1, .dim = { 4, 4 } };
	struct rng r = { ftpu_test_seed() };
	chain_data(&c, &r);
	chain_ref(&c);
	ftpu_graph *g = chain_graph(&c);
	ftpu_program *p = compile_for(&big, g);
	ftpu_graph_destroy(g);
	/* 2 k-tiles x 32768 rows in UB: two HOST_READs in the first chunk,
	 * one for the 7232 rows of the second; the same for HOST_WRITE */
	assert_int_equal(p->n_in_pieces, 3);
	assert_int_equal(p->in_pieces[0].rows, 32768);
	assert_int_equal(p->in_pieces[0].tiles, 1);
	assert_int_equal(p->in_pieces[2].rows, 7232);
	assert_int_equal(p->in_pieces[2].tiles, 2);
	assert_int_equal(p->n_out_pieces, 3);
	float **o = chain_outputs(&c);
	struct raw dev;
	raw_open(&dev, &big);
	raw_run(&dev, p, (const float *const *)&c.x, o, true);
	assert_int_equal(chain_check(&c, o), 0);
	raw_close(&dev);
	ftpu_program_free(p);
	chain_free(&c, o);
}

/* The plan reuses UB: an input's region serves a later activation. */
static void test_graph_memory_reuse(void **state)
{
	(void)state;
	struct ftpu_ref_device_config tiny = small_cfg(4, 64, 64, 32, 16);
	struct chain c = { .M = 50, .L = 2, .dim = { 10, 7, 5 }, .bias = { 1, 1 },
			   .relu = { 1, 0 } };
	struct rng r = { 1 };
	chain_data(&c, &r);
	ftpu_graph *g = chain_graph(&c);
	ftpu_program *p = compile_for(&tiny, g);
	/* UB: x 3 tiles, read by layer 0's MATMULs; h 2, from layer 0's
	 * ACTIVATEs to layer 1's MATMULs; y 2 from layer 1's ACTIVATEs: each
	 * takes the place of the one before -> 3 slots, 64 / 3 = 21 rows;
	 * ACC: 2 + 2 (the layers alternate) -> 32 / 4 = 8 rows */
	assert_int_equal(p->in_pieces[0].rows, 8);
	assert_int_equal(p->n_in_pieces, 7);
	/* every ACTIVATE writes inside the 3 slots: a walk over the run part */
	size_t R = 4, seen_act = 0;
	for (size_t at = p->n_resident; at < p->n_words;) {
		uint32_t w0 = p->words[at];
		unsigned op = ftpu_isa_op(w0), n = ftpu_isa_n(w0);
		assert_true(n >= 1);
		if (op == FTPU_OP_ACTIVATE) {
			assert_true((p->words[at + 2] & 0xffff) + n <= 3 * 8);
			seen_act++;
		}
		at += FTPU_ISA_WORDS;
		if (op == FTPU_OP_HOST_READ)
			at += n * (ftpu_isa_flags(w0) == FTPU_MEM_UB ? R / 2 : R);
	}
	assert_int_equal(seen_act, 7 * 4);
	ftpu_graph_destroy(g);
	ftpu_program_free(p);
	chain_free(&c, NULL);
}

/* Graph shapes beyond a chain: two inputs, one input read by two layers,
 * one weight constant in two layers, a raw matmul into another matmul,
 * and the same tensor as two outputs. */
static void test_graph_dag(void **state)
{
	(void)state;
	struct ftpu_ref_device_config tiny = small_cfg(4, 96, 64, 64, 16);
	struct rng r = { ftpu_test_seed() };
	const size_t M = 23;
	float *x1 = rand_matrix(&r, M, 6, 1), *x2 = rand_matrix(&r, M, 5, 1);
	float *wa = rand_matrix(&r, 6, 6, 1), *wb = rand_matrix(&r, 5, 3, 1);
	float *wc = rand_matrix(&r, 6, 3, 1), *b = rand_matrix(&r, 1, 6, 1);
	ftpu_graph *g;
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor tx1 = ftpu_graph_input(g, M, 6, "x1");
	ftpu_tensor tx2 = ftpu_graph_input(g, M, 5, "x2");
	ftpu_tensor twa = ftpu_graph_constant(g, 6, 6, wa, 6, "wa");
	ftpu_tensor twb = ftpu_graph_constant(g, 5, 3, wb, 3, "wb");
	ftpu_tensor twc = ftpu_graph_constant(g, 6, 3, wc, 3, "wc");
	ftpu_tensor tb = ftpu_graph_constant(g, 1, 6, b, 6, "b");
	/* o0 = relu(x1 wa + b) wa   (wa twice)
	 * o1 = (x1 wa) wc           (a raw result as x: rounded to bf16)
	 * o2 = relu(x2 wb), o3 = o2  (twice)
	 * o4 = x1 wc                 (x1 read by a third layer) */
	ftpu_tensor h = ftpu_graph_matmul(g, tx1, twa);
	ftpu_tensor a = ftpu_graph_relu(g, ftpu_graph_bias_add(g, h, tb));
	ftpu_tensor o0 = ftpu_graph_matmul(g, a, twa);
	ftpu_tensor o1 = ftpu_graph_matmul(g, h, twc);
	ftpu_tensor o2 = ftpu_graph_relu(g, ftpu_graph_matmul(g, tx2, twb));
	ftpu_tensor o4 = ftpu_graph_matmul(g, tx1, twc);
	assert_int_equal(ftpu_graph_output(g, o0), FTPU_OK);
	assert_int_equal(ftpu_graph_output(g, o1), FTPU_OK);
	assert_int_equal(ftpu_graph_output(g, o2), FTPU_OK);
	assert_int_equal(ftpu_graph_output(g, o2), FTPU_OK);
	assert_int_equal(ftpu_graph_output(g, o4), FTPU_OK);
	/* o5 = relu(relu(x1 wa + b)): the second relu changes nothing */
	assert_int_equal(ftpu_graph_output(g, ftpu_graph_relu(g, a)), FTPU_OK);
	ftpu_program *p = compile_for(&tiny, g);
	ftpu_graph_destroy(g);

	float *hr = malloc(M * 6 * 4), *hb = malloc(M * 6 * 4), *ha = malloc(M * 6 * 4);
	float *want[6], *got[6];
	size_t cols[6] = { 6, 3, 3, 3, 3, 6 };
	for (int i = 0; i < 6; i++) {
		want[i] = malloc(M * 6 * 4);
		got[i] = malloc(M * 6 * 4);
	}
	ref_layer(M, 6, 6, x1, wa, NULL, false, hr, hb); /* hb: h rounded (no bias) */
	ref_layer(M, 6, 6, x1, wa, b, true, NULL, ha);
	ref_layer(M, 6, 6, ha, wa, NULL, false, want[0], NULL);
	ref_layer(M, 6, 3, hb, wc, NULL, false, want[1], NULL);
	ref_layer(M, 5, 3, x2, wb, NULL, true, NULL, want[2]);
	ref_layer(M, 5, 3, x2, wb, NULL, true, NULL, want[3]);
	ref_layer(M, 6, 3, x1, wc, NULL, false, want[4], NULL);
	memcpy(want[5], ha, M * 6 * sizeof(float));
	/* weights once each: wa 4, wb 2, wc 2 tiles */
	assert_int_equal(p->wm_rows, 8 * 4);
	size_t n_in, n_out, rows, cs;
	assert_int_equal(ftpu_program_io(p, &n_in, &n_out), FTPU_OK);
	assert_int_equal(n_in, 2);
	assert_int_equal(n_out, 6);
	assert_int_equal(ftpu_program_shape(p, 0, 1, &rows, &cs), FTPU_OK);
	assert_int_equal(rows, M);
	assert_int_equal(cs, 5);
	assert_int_equal(ftpu_program_shape(p, 1, 0, &rows, &cs), FTPU_OK);
	assert_int_equal(cs, 6);
	assert_int_equal(ftpu_program_shape(p, 1, 6, &rows, &cs), FTPU_ERR_INVALID);
	/* is_output is 0 or 1, no other truth value */
	rows = cs = 77;
	assert_int_equal(ftpu_program_shape(p, 7, 0, &rows, &cs), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_program_shape(p, -1, 0, &rows, &cs), FTPU_ERR_INVALID);
	assert_true(rows == 77 && cs == 77);
	assert_int_equal(ftpu_program_shape(NULL, 1, 0, &rows, &cs), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_program_io(NULL, &n_in, &n_out), FTPU_ERR_INVALID);

	struct raw dev;
	const float *in[2] = { x1, x2 };
	raw_open(&dev, &tiny);
	raw_run(&dev, p, in, got, true);
	for (int i = 0; i < 6; i++)
		assert_int_equal(count_diff("dag", got[i], want[i], M, cols[i]), 0);
	raw_close(&dev);
	ftpu_program_free(p);
	for (int i = 0; i < 6; i++) {
		free(want[i]);
		free(got[i]);
	}
	free(hr), free(hb), free(ha);
	free(x1), free(x2), free(wa), free(wb), free(wc), free(b);
}

/* Special values: signed zeros, subnormals (flushed), NaN, Inf, values
 * that overflow bf16; a sum that underflows to -0 keeps its sign through a
 * ragged k-tile (the -0 weight padding). Single layers, and two layers with
 * a hidden width that fills the array (no padding lanes: exact for Inf). */
static void test_graph_special_values(void **state)
{
	(void)state;
	struct ftpu_ref_device_config tiny = small_cfg(4, 64, 64, 32, 16);
	struct rng r = { ftpu_test_seed() ^ 0x51 };
	for (int layers = 1; layers <= 2; layers++)
		for (int bias = 0; bias < 2; bias++) {
			struct chain c = { .M = 24, .L = (size_t)layers, .dim = { 6, 8, 3 },
					   .out_all = true, .bias = { (bool)bias, (bool)bias },
					   .relu = { layers == 2, (bool)bias } };
			chain_data(&c, &r);
			for (size_t i = 0; i < c.M * c.dim[0]; i++)
				if (rng_below(&r, 4) == 0)
					c.x[i] = from_bits(f32_specials[rng_below(&r, N_F32_SPECIALS)]);
			for (size_t l = 0; l < c.L; l++)
				for (size_t i = 0; i < c.dim[l] * c.dim[l + 1]; i++)
					if (rng_below(&r, 8) == 0)
						c.w[l][i] = from_bits(
							f32_specials[rng_below(&r, N_F32_SPECIALS)]);
			/* row 0: 1.5 * 2^-126 - 1.75 * 2^-126 -> -0 (FTZ), K = 6 ragged */
			memset(c.x, 0, c.dim[0] * sizeof(float));
			c.x[0] = from_bits(0x00C00000u);
			c.x[1] = 1.0f;
			c.w[0][0 * 8 + 0] = 1.0f;
			c.w[0][1 * 8 + 0] = -from_bits(0x00E00000u);
			for (size_t k = 2; k < c.dim[0]; k++)
				c.w[0][k * 8 + 0] = -1.0f; /* +0 * -1 = -0 keeps it */
			chain_ref(&c);
			assert_int_equal(bits(c.raw[0][0]), 0x80000000u);
			ftpu_graph *g = chain_graph(&c);
			ftpu_program *p = compile_for(&tiny, g);
			ftpu_graph_destroy(g);
			float **o = chain_outputs(&c);
			struct raw dev;
			raw_open(&dev, &tiny);
			raw_run(&dev, p, (const float *const *)&c.x, o, true);
			assert_int_equal(chain_check(&c, o), 0);
			raw_close(&dev);
			ftpu_program_free(p);
			chain_free(&c, o);
		}
}

/* ---- through the library on "ref" ---------------------------------------------------------- */

static int open_ref(void **state)
{
	ftpu_device *dev = NULL;
	int ret = ftpu_open("ref", &dev);
	if (ret)
		print_error("ftpu_open(ref): %s\n", ftpu_last_error(NULL));
	*state = dev;
	return ret;
}

static int close_dev(void **state)
{
	ftpu_close(*state);
	return 0;
}

/* The Fashion-MNIST MLP's shapes. */
static struct chain mlp(size_t M, size_t layers)
{
	struct chain c = { .M = M, .L = layers, .dim = { 784, 128, 10 },
			   .bias = { 1, 1 }, .relu = { 1, 0 } };
	return c;
}

/* Compiles c for dev and runs it `runs` times with new inputs; with
 * chunks > 0, the program must take that many chunks of rows. */
static void run_chain_dev(ftpu_device *dev, struct chain *c, uint64_t seed, size_t runs,
			  size_t chunks)
{
	struct rng r = { seed };
	struct ftpu_stats st, last;
	ftpu_program *p = NULL;
	chain_data(c, &r);
	ftpu_graph *g = chain_graph(c);
	int ret = ftpu_compile(dev, g, &p);
	if (ret)
		print_error("compile: %s\n", ftpu_last_error(dev));
	assert_int_equal(ret, FTPU_OK);
	ftpu_graph_destroy(g);
	if (chunks) /* one HOST_READ per chunk */
		assert_int_equal(p->n_in_pieces, chunks);
	float **o = chain_outputs(c);
	uint64_t first_in = 0;
	for (size_t run = 0; run < runs; run++) {
		if (run) {
			free(c->x);
			c->x = rand_matrix(&r, c->M, c->dim[0], 1.0f + (float)run);
		}
		chain_ref(c);
		memset(&st, 0, sizeof(st));
		ret = ftpu_run(dev, p, (const float *const *)&c->x, o, &st);
		if (ret)
			print_error("run: %s\n", ftpu_last_error(dev));
		assert_int_equal(ret, FTPU_OK);
		assert_int_equal(chain_check(c, o), 0);
		/* stats: every MAC of every tile pair */
		uint64_t macs = 0;
		for (size_t l = 0; l < c->L; l++)
			macs += (uint64_t)c->M * ((c->dim[l] + 15) / 16) *
				((c->dim[l + 1] + 15) / 16) * 256;
		assert_int_equal(st.macs, macs);
		assert_true(st.cycles > 0);
		assert_true(st.instructions > 0);
		assert_true(st.bytes_out > 0);
		assert_true(st.utilization > 0 && st.utilization <= 1.0);
		assert_true(st.host_seconds > 0);
		assert_int_equal(ftpu_last_stats(dev, &last), FTPU_OK);
		assert_memory_equal(&last, &st, sizeof(st));
		/* the weights go with the first run only */
		if (run == 0)
			first_in = st.bytes_in;
		else
			assert_true(st.bytes_in + p->resident_bytes <= first_in);
	}
	ftpu_program_free(p);
	chain_free(c, o);
}

static void test_graph_mlp_one_layer(void **state)
{
	const size_t batches[] = { 1, 37, 128 };
	for (size_t i = 0; i < 3; i++) {
		struct chain c = mlp(batches[i], 1);
		run_chain_dev(*state, &c, ftpu_test_seed() + i, 1, 0);
	}
}

static void test_graph_mlp_two_layers(void **state)
{
	const size_t batches[] = { 1, 37, 128 };
	for (size_t i = 0; i < 3; i++) {
		struct chain c = mlp(batches[i], 2);
		c.out_all = i == 1;
		run_chain_dev(*state, &c, ftpu_test_seed() + 10 + i, 1, 0);
	}
}

/* A batch beyond the unified buffer: 83 rows per chunk on the default
 * device (49 UB vectors per row), so 1000 rows take 13 chunks. */
static void test_graph_mlp_chunked(void **state)
{
	struct chain c = mlp(1000, 2);
	c.out_all = true;
	/* a chunk is the rows whose 49 input k-tiles fit UB (the hidden
	 * activation reuses their space): 13 chunks with 4096 UB vectors */
	struct ftpu_device_info info;
	assert_int_equal(ftpu_get_info(*state, &info), FTPU_OK);
	size_t rows = info.ub_vectors / 49, chunks = (c.M + rows - 1) / rows;
	assert_true(chunks > 1);
	run_chain_dev(*state, &c, ftpu_test_seed() + 20, 2, chunks);
}

/* Compile once, run many: new inputs each time, the weights sent once. */
static void test_graph_compile_once_run_many(void **state)
{
	struct chain c = mlp(64, 2);
	run_chain_dev(*state, &c, ftpu_test_seed() + 30, 4, 1);
}

/* Two programs take turns on one device: each must find its own weights
 * (resent when the other's replaced them). */
static void test_graph_programs_take_turns(void **state)
{
	ftpu_device *dev = *state;
	struct chain a = mlp(16, 2), b = mlp(16, 2);
	struct rng r = { 99 };
	ftpu_program *pa, *pb;
	struct ftpu_stats st;
	chain_data(&a, &r);
	chain_data(&b, &r);
	chain_ref(&a);
	chain_ref(&b);
	ftpu_graph *g = chain_graph(&a);
	assert_int_equal(ftpu_compile(dev, g, &pa), FTPU_OK);
	ftpu_graph_destroy(g);
	g = chain_graph(&b);
	assert_int_equal(ftpu_compile(dev, g, &pb), FTPU_OK);
	ftpu_graph_destroy(g);
	assert_true(pa->resident_hash != pb->resident_hash);
	float **oa = chain_outputs(&a), **ob = chain_outputs(&b);
	for (int round = 0; round < 2; round++) {
		memset(oa[0], 0, 16 * 10 * 4);
		assert_int_equal(ftpu_run(dev, pa, (const float *const *)&a.x, oa, &st), FTPU_OK);
		assert_true(st.bytes_in > pa->resident_bytes);
		assert_int_equal(chain_check(&a, oa), 0);
		memset(ob[0], 0, 16 * 10 * 4);
		assert_int_equal(ftpu_run(dev, pb, (const float *const *)&b.x, ob, &st), FTPU_OK);
		assert_true(st.bytes_in > pb->resident_bytes);
		assert_int_equal(chain_check(&b, ob), 0);
	}
	/* a reset forgets what is resident */
	assert_int_equal(ftpu_run(dev, pb, (const float *const *)&b.x, ob, &st), FTPU_OK);
	assert_true(st.bytes_in < pb->resident_bytes);
	assert_int_equal(ftpu_reset(dev), FTPU_OK);
	assert_int_equal(ftpu_run(dev, pb, (const float *const *)&b.x, ob, &st), FTPU_OK);
	assert_true(st.bytes_in > pb->resident_bytes);
	assert_int_equal(chain_check(&b, ob), 0);
	ftpu_program_free(pa);
	ftpu_program_free(pb);
	chain_free(&a, oa);
	chain_free(&b, ob);
}

static void test_graph_compile_errors_dev(void **state)
{
	ftpu_device *dev = *state;
	ftpu_program *p = NULL;
	ftpu_graph *g = bad_graph(1);
	assert_int_equal(ftpu_compile(dev, g, &p), FTPU_ERR_UNSUPPORTED);
	assert_null(p);
	assert_non_null(strstr(ftpu_last_error(dev), "it must be a constant"));
	assert_non_null(strstr(ftpu_last_error(dev), "ftpu_compile: "));
	ftpu_graph_destroy(g);
	/* a builder's failure, reported by compile */
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	float v[4] = { 0 };
	ftpu_tensor w = ftpu_graph_constant(g, 3, 1, v, 1, "w");
	ftpu_graph_output(g, ftpu_graph_matmul(g, ftpu_graph_input(g, 2, 4, "x"), w));
	assert_int_equal(ftpu_compile(dev, g, &p), FTPU_ERR_SHAPE);
	assert_non_null(strstr(ftpu_last_error(dev), "x has 4 columns but w has 3 rows"));
	assert_int_equal(ftpu_compile(dev, NULL, &p), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_compile(dev, g, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_compile(NULL, g, &p), FTPU_ERR_INVALID);
	assert_null(p);
	ftpu_graph_destroy(g);
}

static void test_graph_run_errors(void **state)
{
	ftpu_device *dev = *state;
	struct ftpu_ref_device_config cfg = small_cfg(16, 2048, 1024, 4096, 256);
	struct chain c = mlp(4, 1);
	struct rng r = { 5 };
	ftpu_program *p = NULL;
	struct ftpu_stats st;
	chain_data(&c, &r);
	chain_ref(&c);
	ftpu_graph *g = chain_graph(&c);
	float **o = chain_outputs(&c);

	/* compiled for another device: refused, outputs untouched */
	ftpu_program *other = compile_for(&cfg, g);
	memset(o[0], 0x5A, 4 * 128 * sizeof(float));
	memset(&st, 0x5A, sizeof(st));
	assert_int_equal(ftpu_run(dev, other, (const float *const *)&c.x, o, &st), FTPU_ERR_SHAPE);
	assert_non_null(strstr(ftpu_last_error(dev), "compiled for a 16x16 array, UB 2048"));
	assert_int_equal(bits(o[0][0]), 0x5A5A5A5Au);
	assert_int_equal(st.macs, 0x5A5A5A5A5A5A5A5Aull);
	ftpu_program_free(other);

	assert_int_equal(ftpu_compile(dev, g, &p), FTPU_OK);
	ftpu_graph_destroy(g);
	const float *none[1] = { NULL };
	float *onone[1] = { NULL };
	assert_int_equal(ftpu_run(NULL, p, (const float *const *)&c.x, o, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_run(dev, NULL, (const float *const *)&c.x, o, NULL),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_run(dev, p, NULL, o, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_run(dev, p, none, o, NULL), FTPU_ERR_INVALID);
	assert_non_null(strstr(ftpu_last_error(dev), "input 0 is NULL"));
	assert_int_equal(ftpu_run(dev, p, (const float *const *)&c.x, NULL, NULL),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_run(dev, p, (const float *const *)&c.x, onone, NULL),
			 FTPU_ERR_INVALID);
	/* and then it runs */
	assert_int_equal(ftpu_run(dev, p, (const float *const *)&c.x, o, NULL), FTPU_OK);
	assert_int_equal(chain_check(&c, o), 0);
	ftpu_program_free(p);
	ftpu_program_free(NULL);
	chain_free(&c, o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_builders_null_graph),
		cmocka_unit_test(test_graph_builders_bad_sizes),
		cmocka_unit_test(test_graph_builders_shapes),
		cmocka_unit_test(test_graph_builders_failed_tensors),
		cmocka_unit_test(test_graph_compile_unsupported),
		cmocka_unit_test(test_graph_compile_does_not_fit),
		cmocka_unit_test(test_graph_small_device_chains),
		cmocka_unit_test(test_graph_large_chunks),
		cmocka_unit_test(test_graph_memory_reuse),
		cmocka_unit_test(test_graph_dag),
		cmocka_unit_test(test_graph_special_values),
		cmocka_unit_test_setup_teardown(test_graph_mlp_one_layer, open_ref, close_dev),
		cmocka_unit_test_setup_teardown(test_graph_mlp_two_layers, open_ref, close_dev),
		cmocka_unit_test_setup_teardown(test_graph_mlp_chunked, open_ref, close_dev),
		cmocka_unit_test_setup_teardown(test_graph_compile_once_run_many, open_ref,
						close_dev),
		cmocka_unit_test_setup_teardown(test_graph_programs_take_turns, open_ref,
						close_dev),
		cmocka_unit_test_setup_teardown(test_graph_compile_errors_dev, open_ref, close_dev),
		cmocka_unit_test_setup_teardown(test_graph_run_errors, open_ref, close_dev),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
