/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gemm.c - ftpu_gemm() and ftpu_gemm_bf16() (host-lib/src/gemm.c) and
 * the planner behind them (gemm_plan.c).
 *
 * The planner's programs run directly on the C model of the device
 * (model/ref_device.c, through harness/device_host.h) for device
 * shapes the "ref" URI does not offer: tiny memories that force chunking in
 * M, N and K, B blocks that do not fit the weight memory, batches, the
 * 65535-vector instruction limit. The public API runs through
 * ftpu_open("ref"). Every result is compared with a reference built here
 * from ftpu_f32_to_bf16 and ftpu_ref_gemm: bit for bit when alpha = 1 and
 * beta = 0, else alpha * R + beta * C computed in fp32 as gemm.c documents.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define DH_NO_SIM
#include "device_host.h"
#include "ftpu_test.h"
#include "ftpu.h"
#include "gemm_plan.h"
#include "numeric.h"

static struct rng rng;

/* ---- operands and the reference ------------------------------------------ */

/* An fp32 operand: moderate values with all 23 fraction bits (so the
 * conversion rounds), sometimes a special value (NaN, Inf, subnormal,
 * huge) with special_pm per mille. */
static float rand_f32(unsigned special_pm)
{
	uint32_t u;
	float f;
	if (rng_below(&rng, 1000) < special_pm)
		u = f32_specials[rng_below(&rng, N_F32_SPECIALS)];
	else
		u = (rng_u32(&rng) & 0x807fffffu) | (118 + rng_below(&rng, 18))
							    << 23;
	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint16_t rand_bf16(unsigned special_pm)
{
	return rng_bf16_operand(&rng, special_pm);
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* A stored matrix: rows x cols (as stored) with stride ld >= cols, fp32 or
 * bf16; the padding between rows holds garbage the GEMM must not use. */
struct mat {
	size_t rows, cols, ld;
	float *f;
	uint16_t *h;
};

static void mat_init(struct mat *x, size_t rows, size_t cols, size_t pad,
		     bool bf16, unsigned special_pm)
{
	x->rows = rows, x->cols = cols, x->ld = cols + pad;
	x->f = NULL, x->h = NULL;
	size_t count = (rows - 1) * x->ld + cols;
	if (bf16) {
		x->h = malloc(count * sizeof(*x->h));
		assert_non_null(x->h);
		for (size_t i = 0; i < count; i++)
			x->h[i] = i % x->ld < cols ? rand_bf16(special_pm)
						   : 0x7fc1;
	} else {
		x->f = malloc(count * sizeof(*x->f));
		assert_non_null(x->f);
		for (size_t i = 0; i < count; i++)
			x->f[i] = i % x->ld < cols ? rand_f32(special_pm)
						   : bits_f32(0x7fc00001u);
	}
}

static void mat_free(struct mat *x)
{
	free(x->f);
	free(x->h);
	x->f = NULL, x->h = NULL;
}

/* op(X) (trans: X^T) as a dense row-major bf16 matrix, rounded as the
 * contract says (ftpu_f32_to_bf16). */
static uint16_t *op_bf16(const struct mat *x, bool trans)
{
	size_t r = trans ? x->cols : x->rows, c = trans ? x->rows : x->cols;
	uint16_t *o = malloc(r * c * sizeof(*o));
	assert_non_null(o);
	for (size_t i = 0; i < r; i++)
		for (size_t j = 0; j < c; j++) {
			size_t at = trans ? j * x->ld + i : i * x->ld + j;
			o[i * c + j] =
				x->h ? x->h[at]
				     : ftpu_f32_to_bf16(f32_bits(x->f[at]));
		}
	return o;
}

/* R = op(A) * op(B), fp32 bits, M x N dense. */
static uint32_t *reference(const struct mat *a, bool ta, const struct mat *b,
			   bool tb, size_t M, size_t N, size_t K)
{
	uint16_t *A = op_bf16(a, ta), *B = op_bf16(b, tb);
	uint32_t *R = malloc(M * N * sizeof(*R));
	assert_non_null(R);
	ftpu_ref_gemm(M, N, K, A, K, B, N, R, N, false);
	free(A);
	free(B);
	return R;
}

/* Compares C (stride ldc) with alpha * R + beta * C0 as gemm.c documents;
 * the padding of C must still hold the sentinel. Returns mismatches. */
static size_t check_c(const float *c, size_t ldc, const uint32_t *R,
		      const float *c0, size_t M, size_t N, float alpha,
		      float beta, const char *what)
{
	size_t bad = 0;
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < ldc; j++) {
			size_t at = i * ldc + j;
			if (i == M - 1 && j >= N)
				break;
			uint32_t want;
			if (j >= N)
				want = f32_bits(
					c0[at]); /* padding: untouched */
			else if (alpha == 1.0f && beta == 0.0f)
				want = R[i * N + j];
			else if (beta == 0.0f)
				want = f32_bits(alpha * bits_f32(R[i * N + j]));
			else
				want = f32_bits(alpha * bits_f32(R[i * N + j]) +
						beta * c0[at]);
			if (f32_bits(c[at]) != want && bad++ < 5)
				fprintf(stderr,
					"%s: C[%zu][%zu] = %08x, want %08x\n",
					what, i, j, f32_bits(c[at]), want);
		}
	return bad;
}

/* ---- the planner on the C model -------------------------------------------
 */

static void small_config(struct ftpu_ref_device_config *cfg, unsigned n,
			 uint32_t ub, uint32_t acc, uint32_t tiles)
{
	ftpu_ref_device_default_config(cfg);
	cfg->n = n, cfg->ub_vectors = ub, cfg->acc_vectors = acc;
	cfg->wm_rows = tiles * n;
}

static struct ftpu_gemm_device
gemm_device(const struct ftpu_ref_device_config *cfg)
{
	return (struct ftpu_gemm_device){.n = cfg->n,
					 .ub = cfg->ub_vectors,
					 .acc = cfg->acc_vectors,
					 .wm_tiles = cfg->wm_rows / cfg->n,
					 .link_bytes = cfg->link_bytes};
}

/* Opens the C model with cfg. */
static void open_model(struct dh_host *h,
		       const struct ftpu_ref_device_config *cfg)
{
	assert_int_equal(dh_host_open(h, cfg), FTPU_OK);
}

/* Sends words as one program to the C model; the DATA words into out. No
 * fault may happen. */
static void run_words(struct dh_host *h, const uint32_t *w, size_t n,
		      struct dh_words *out)
{
	dh_host_clear(h);
	assert_true(dh_host_program(h, w, n, FTPU_LINK_MAX_PAYLOAD, NULL));
	assert_true(dh_host_wait(h));
	const struct dh_frames *fs =
		dh_dev_frames(&h->dev[0], DH_CLASS_PROGRAM);
	for (size_t i = 0; i < fs->n; i++) {
		if (fs->f[i].type == FTPU_LINK_EVENT)
			fprintf(stderr,
				"fault %u at instruction %u (word %#x)\n",
				fs->f[i].payload[2], fs->f[i].payload[1],
				fs->f[i].payload[3]);
		assert_int_equal(fs->f[i].type, FTPU_LINK_DATA);
	}
	assert_int_equal(h->dev[0].rx_errors, 0);
	dh_dev_data_words(&h->dev[0], out);
}

static size_t plan_sent; /* bytes of program words run_plan sent */

/* The whole planned GEMM on h's device, alpha 1 and beta 0, into C (M x N
 * dense). Returns whether the plan was double buffered. */
static bool run_plan(struct dh_host *h, const struct ftpu_gemm_tuning *t,
		     const struct mat *a, bool ta, const struct mat *b, bool tb,
		     size_t M, size_t N, size_t K, bool send_b, float *C)
{
	const struct ftpu_gemm_device d = gemm_device(dh_host_cfg(h));
	struct ftpu_gemm_plan p;
	assert_int_equal(ftpu__gemm_plan(&d, M, N, K, t, &p), FTPU_OK);
	const struct ftpu_gemm_operand oa = {a->f, a->h, a->ld, ta};
	const struct ftpu_gemm_operand ob = {b->f, b->h, b->ld, tb};
	uint16_t *image = malloc(p.image_elems * sizeof(*image));
	uint16_t *scratch = malloc(p.mc * p.n * sizeof(*scratch));
	uint32_t *data = malloc(p.data_words * sizeof(*data));
	assert_true(image && scratch && data);
	ftpu__gemm_pack_b(&p, &ob, image);

	struct dh_words out = {0};
	size_t at = 0, sent = 0,
	       budget = t && t->batch_words ? t->batch_words
					    : FTPU_GEMM_BATCH_WORDS;
	for (size_t c0 = 0; c0 < p.chunks;) {
		size_t c1 = ftpu__gemm_batch_end(&p, c0, send_b, budget);
		assert_true(c1 > c0 && c1 <= p.chunks);
		size_t nw = ftpu__gemm_words(&p, c0, c1, send_b);
		assert_true(c1 == c0 + 1 || nw <= budget);
		uint32_t *w = malloc((nw + 1) * sizeof(*w));
		assert_non_null(w);
		w[nw] = 0xfeedf00d;
		assert_int_equal(ftpu__gemm_emit(&p, &oa, image, send_b, c0, c1,
						 scratch, w),
				 nw);
		assert_int_equal(w[nw], 0xfeedf00d);
		run_words(h, w, nw, &out);
		assert_int_equal(out.n, ftpu__gemm_data_words(&p, c0, c1));
		if (out.n)
			memcpy(data + at, out.w, out.n * sizeof(*data));
		at += out.n;
		sent += nw * 4;
		free(w);
		c0 = c1;
	}
	assert_int_equal(at, p.data_words);
	ftpu__gemm_store(&p, data, 1.0f, 0.0f, C, N);
	dh_words_free(&out);
	free(data);
	free(scratch);
	free(image);
	plan_sent = sent;
	return p.db;
}

/* Every chunk inside the memories, and the chunks cover every (row,
 * n-tile, k-tile) once. */
static void check_plan(const struct ftpu_gemm_device *d,
		       const struct ftpu_gemm_plan *p)
{
	size_t ub = p->db ? d->ub / 2 : d->ub,
	       acc = p->db ? d->acc / 2 : d->acc;
	uint64_t folds = 0;
	const bool all = p->chunks <= 200000;
	assert_true(p->mc >= 1 && p->mc <= 65535);
	assert_true(p->ktc * p->mc <= ub && p->ntc * p->mc <= acc);
	if (p->b_whole)
		assert_true(p->KT * p->NT <= d->wm_tiles);
	else
		assert_true(p->ktc * p->ntc <= d->wm_tiles);
	for (size_t i = 0; i < (all ? p->chunks : 2000); i++) {
		struct ftpu_gemm_chunk ch;
		size_t c = all ? i : i < 1000 ? i : p->chunks - 2000 + i;
		ftpu__gemm_chunk(p, c, &ch);
		assert_true(ch.mc >= 1 && ch.ntc >= 1 && ch.ktc >= 1);
		assert_true(ch.m0 + ch.mc <= p->M && ch.nt0 + ch.ntc <= p->NT &&
			    ch.kt0 + ch.ktc <= p->KT);
		assert_true(ch.ub + ch.ktc * ch.mc <= d->ub);
		assert_true(ch.acc + ch.ntc * ch.mc <= d->acc);
		folds += (uint64_t)ch.mc * ch.ntc * ch.ktc;
	}
	assert_true(!all || folds == (uint64_t)p->M * p->NT * p->KT);
}

/* ---- tests: pieces
 * ------------------------------------------------------------ */

/* The inlined conversion is ftpu_f32_to_bf16 on every sign/exponent/high
 * fraction pattern with the low 16 bits at the rounding boundaries. */
static void test_gemm_convert(void **state)
{
	static const uint32_t low[] = {0x0000, 0x0001, 0x7fff, 0x8000,
				       0x8001, 0xffff, 0x1234, 0xc000};
	enum { L = sizeof(low) / sizeof(low[0]) };
	float in[L];
	uint16_t out[L];
	(void)state;
	for (uint32_t hi = 0; hi < 0x10000; hi++) {
		for (size_t i = 0; i < L; i++)
			in[i] = bits_f32(hi << 16 | low[i]);
		ftpu__gemm_pack_f32(in, out, L);
		for (size_t i = 0; i < L; i++)
			if (out[i] != ftpu_f32_to_bf16(f32_bits(in[i])))
				fail_msg("%08x -> %04x, want %04x",
					 f32_bits(in[i]), out[i],
					 ftpu_f32_to_bf16(f32_bits(in[i])));
	}
	/* random bits through the vector path (8 at a time) and the tail */
	float r[11];
	uint16_t o[11];
	for (size_t i = 0; i < 100000; i++) {
		for (size_t j = 0; j < 11; j++)
			r[j] = bits_f32(rng_u32(&rng));
		ftpu__gemm_pack_f32(r, o, 11);
		for (size_t j = 0; j < 11; j++)
			assert_int_equal(o[j],
					 ftpu_f32_to_bf16(f32_bits(r[j])));
	}
}

/* The hash tells apart every one-bit change and every length. */
static void test_gemm_hash(void **state)
{
	uint8_t buf[300];
	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rng_u32(&rng);
	uint64_t h = ftpu__gemm_hash(buf, sizeof(buf));
	assert_true(h == ftpu__gemm_hash(buf, sizeof(buf)));
	for (size_t bit = 0; bit < 8 * sizeof(buf); bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
		assert_true(ftpu__gemm_hash(buf, sizeof(buf)) != h);
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
	for (size_t len = 0; len < sizeof(buf); len++)
		for (size_t len2 = len + 1; len2 <= sizeof(buf); len2 += 7)
			assert_true(ftpu__gemm_hash(buf, len) !=
				    ftpu__gemm_hash(buf, len2));
	/* zeros of different lengths (a padded image against a shorter one) */
	static const uint8_t zero[64];
	for (size_t len = 0; len < 64; len++)
		assert_true(ftpu__gemm_hash(zero, len) !=
			    ftpu__gemm_hash(zero, len + 1));
}

/* Plans for many devices and shapes stay inside the memories and cover
 * the GEMM; the 16x16 default keeps B whole when it fits. */
static void test_gemm_plan_fits(void **state)
{
	static const struct ftpu_gemm_device devs[] = {
		/* the link's bytes a cycle change the estimate, not the fit */
		{16, 4096, 4096, 1024, 1},   {4, 64, 32, 8, 4},  {2, 7, 5, 3, 1},
		{8, 100, 50, 16, 4},	     {2, 1, 1, 1, 1},	 {4, 3, 2, 1, 4},
		{16, 65536, 65536, 4096, 4}, {256, 300, 200, 2, 1},
	};
	(void)state;
	for (size_t di = 0; di < sizeof(devs) / sizeof(devs[0]); di++)
		for (int i = 0; i < 300; i++) {
			struct ftpu_gemm_tuning t = {0};
			struct ftpu_gemm_plan p;
			size_t M = 1 + rng_below(&rng, i % 3 ? 300 : 100000);
			size_t N = 1 + rng_below(&rng, i % 5 ? 300 : 5000);
			size_t K = 1 + rng_below(&rng, i % 7 ? 300 : 5000);
			t.no_double_buffer = i % 4 == 0;
			t.max_rows = i % 6 == 1 ? 1 + rng_below(&rng, 50) : 0;
			assert_int_equal(
				ftpu__gemm_plan(&devs[di], M, N, K, &t, &p),
				FTPU_OK);
			check_plan(&devs[di], &p);
			if (t.max_rows)
				assert_true(p.mc <= t.max_rows);
			assert_int_equal(p.b_whole,
					 p.KT * p.NT <= devs[di].wm_tiles);
		}
	/* the training demo's shapes keep B whole and need few chunks */
	struct ftpu_gemm_plan p;
	assert_int_equal(ftpu__gemm_plan(&devs[0], 128, 128, 784, NULL, &p),
			 FTPU_OK);
	assert_true(p.b_whole && p.db);
	assert_true(p.chunks <= 8);
	/* huge shapes plan at once (the search walks even splits only), and
	 * absurd ones are refused */
	assert_int_equal(ftpu__gemm_plan(&devs[0], 1, (size_t)1 << 24,
					 (size_t)1 << 24, NULL, &p),
			 FTPU_OK);
	check_plan(&devs[0], &p);
	assert_int_equal(
		ftpu__gemm_plan(&devs[4], 200000, 200000, 200000, NULL, &p),
		FTPU_ERR_INVALID);
	assert_int_equal(ftpu__gemm_plan(&devs[0], (size_t)1 << 30,
					 (size_t)1 << 30, (size_t)1 << 30, NULL,
					 &p),
			 FTPU_ERR_INVALID);
	/* bad sizes and devices */
	assert_int_equal(ftpu__gemm_plan(&devs[0], 0, 1, 1, NULL, &p),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu__gemm_plan(&devs[0], 1, 0, 1, NULL, &p),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu__gemm_plan(&devs[0], 1, 1, 0, NULL, &p),
			 FTPU_ERR_INVALID);
	assert_int_equal(
		ftpu__gemm_plan(&devs[0], 1, SIZE_MAX, SIZE_MAX, NULL, &p),
		FTPU_ERR_INVALID);
	assert_int_equal(
		ftpu__gemm_plan(&devs[0], SIZE_MAX, SIZE_MAX / 64, 1, NULL, &p),
		FTPU_ERR_INVALID);
	const struct ftpu_gemm_device odd = {3, 10, 10, 10, 1},
				      none = {4, 0, 10, 10, 1};
	assert_int_equal(ftpu__gemm_plan(&odd, 1, 1, 1, NULL, &p),
			 FTPU_ERR_UNSUPPORTED);
	assert_int_equal(ftpu__gemm_plan(&none, 1, 1, 1, NULL, &p),
			 FTPU_ERR_UNSUPPORTED);
}

/* Random GEMMs on small devices, where M, N and K all need chunks and B
 * rarely fits: bit-exact with the reference, with and without double
 * buffering, in one or many programs. */
static void test_gemm_plan_small_devices(void **state)
{
	static const uint32_t shapes[][4] = {
		/* n, ub, acc, tiles */
		{4, 64, 32, 8}, {2, 7, 5, 3},	{8, 100, 50, 16},
		{2, 1, 1, 1},	{4, 40, 40, 2}, {16, 4096, 4096, 1024},
	};
	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct ftpu_ref_device_config cfg;
		struct dh_host h;
		small_config(&cfg, shapes[s][0], shapes[s][1], shapes[s][2],
			     shapes[s][3]);
		open_model(&h, &cfg);
		for (int i = 0; i < 24; i++) {
			size_t M = 1 + rng_below(&rng, 90),
			       N = 1 + rng_below(&rng, 70);
			size_t K = 1 + rng_below(&rng, 70);
			bool ta = i & 1, tb = i & 2, bf = i & 4;
			struct ftpu_gemm_tuning t = {0};
			t.no_double_buffer = i % 5 == 0;
			t.force_double_buffer = i % 5 == 1 || i % 5 == 2;
			t.batch_words =
				i % 3 == 0 ? 1 + rng_below(&rng, 2000) : 0;
			t.max_rows = i % 7 == 0 ? 1 + rng_below(&rng, 10) : 0;
			struct mat a, b;
			mat_init(&a, ta ? K : M, ta ? M : K, rng_below(&rng, 3),
				 bf, 5);
			mat_init(&b, tb ? N : K, tb ? K : N, rng_below(&rng, 3),
				 bf, 5);
			float *C = malloc(M * N * sizeof(*C));
			assert_non_null(C);
			bool db = run_plan(&h, &t, &a, ta, &b, tb, M, N, K,
					   true, C);
			assert_true(db == (!t.no_double_buffer &&
					   cfg.ub_vectors >= 2 &&
					   cfg.acc_vectors >= 2 &&
					   (t.force_double_buffer || db)));
			uint32_t *R = reference(&a, ta, &b, tb, M, N, K);
			char what[96];
			snprintf(what, sizeof(what),
				 "n=%u %zux%zux%zu ta%d tb%d bf%d db%d", cfg.n,
				 M, K, N, ta, tb, bf, !t.no_double_buffer);
			assert_int_equal(
				check_c(C, N, R, C, M, N, 1.0f, 0.0f, what), 0);
			free(R);
			free(C);
			mat_free(&a);
			mat_free(&b);
		}
		dh_host_close(&h);
	}
}

/* A B already in WM is not sent again and still used; instructions and
 * HOST_WRITEs beyond 65535 vectors are split. */
static void test_gemm_plan_resident_and_limits(void **state)
{
	struct ftpu_ref_device_config cfg;
	struct dh_host h;
	struct mat a, a2, b;
	(void)state;

	small_config(&cfg, 4, 256, 256, 128);
	open_model(&h, &cfg);
	const size_t M = 50, N = 30, K = 45;
	mat_init(&a, M, K, 0, false, 0);
	mat_init(&a2, M, K, 0, false, 0);
	mat_init(&b, K, N, 0, false, 0);
	float *C = malloc(M * N * sizeof(*C));
	uint32_t *R = reference(&a2, false, &b, false, M, N, K);
	run_plan(&h, NULL, &a, false, &b, false, M, N, K, true, C);
	size_t sent = plan_sent;
	run_plan(&h, NULL, &a2, false, &b, false, M, N, K, false, C);
	size_t sent2 = plan_sent;
	assert_int_equal(check_c(C, N, R, C, M, N, 1.0f, 0.0f, "resident"), 0);
	/* 12 x 8 tiles of 4 x 4 bf16, plus a HOST_READ header per k-tile
	 * and n-block */
	struct ftpu_gemm_plan p;
	const struct ftpu_gemm_device d = gemm_device(&cfg);
	assert_int_equal(ftpu__gemm_plan(&d, M, N, K, NULL, &p), FTPU_OK);
	assert_true(p.b_whole);
	assert_int_equal(sent - sent2, 12 * 8 * 32 + 12 * p.nblocks * 12);
	free(R);
	free(C);
	mat_free(&a);
	mat_free(&a2);
	mat_free(&b);
	dh_host_close(&h);

	/* n = 2: a row of B tiles of 80000 WM rows, a 65536-vector
	 * HOST_WRITE and B row, MATMULs of at most 65535 rows */
	struct {
		uint32_t ub, acc, tiles;
		size_t M, N, K;
		bool db;
	} big[] = {
		{16, 65536, 65536, 1, 80000, 2, false},
		{64, 65536, 65536, 2, 65536, 2, false},
		{65536, 65536, 4, 65536, 2, 2, false},
		{65536, 65536, 4, 65536, 2, 2, true},
	};
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		struct ftpu_gemm_tuning t = {.no_double_buffer = !big[i].db};
		small_config(&cfg, 2, big[i].ub, big[i].acc, big[i].tiles);
		open_model(&h, &cfg);
		mat_init(&a, big[i].M, big[i].K, 0, true, 0);
		mat_init(&b, big[i].K, big[i].N, 0, true, 0);
		C = malloc(big[i].M * big[i].N * sizeof(*C));
		run_plan(&h, &t, &a, false, &b, false, big[i].M, big[i].N,
			 big[i].K, true, C);
		R = reference(&a, false, &b, false, big[i].M, big[i].N,
			      big[i].K);
		assert_int_equal(check_c(C, big[i].N, R, C, big[i].M, big[i].N,
					 1.0f, 0.0f, "65535"),
				 0);
		free(R);
		free(C);
		mat_free(&a);
		mat_free(&b);
		dh_host_close(&h);
	}
}

/* ---- tests: the public API on "ref"
 * ---------------------------------------------- */

static int open_ref(void **state)
{
	ftpu_device *dev = NULL;
	int ret = ftpu_open("ref", &dev);
	if (ret)
		fprintf(stderr, "ftpu_open(ref): %s: %s\n", ftpu_strerror(ret),
			ftpu_last_error(NULL));
	*state = dev;
	memset(&ftpu__gemm_tuning, 0, sizeof(ftpu__gemm_tuning));
	return ret;
}

static int close_ref(void **state)
{
	memset(&ftpu__gemm_tuning, 0, sizeof(ftpu__gemm_tuning));
	return ftpu_close(*state);
}

/* One GEMM through the API against the reference. C starts as NaN
 * garbage when beta == 0 (it must not be read). Returns the stats. */
static struct ftpu_stats api_gemm(ftpu_device *dev, bool ta, bool tb, size_t M,
				  size_t N, size_t K, size_t pad, bool bf,
				  float alpha, float beta, unsigned special_pm)
{
	struct mat a, b;
	struct ftpu_stats st;
	size_t ldc = N + pad;
	mat_init(&a, ta ? K : M, ta ? M : K, pad, bf, special_pm);
	mat_init(&b, tb ? N : K, tb ? K : N, (pad * 3) % 5, bf, special_pm);
	float *c = malloc(M * ldc * sizeof(*c)),
	      *c0 = malloc(M * ldc * sizeof(*c0));
	assert_true(c && c0);
	for (size_t i = 0; i < M * ldc; i++)
		c0[i] = beta == 0.0f ? bits_f32(0xffc12345u) : rand_f32(0);
	memcpy(c, c0, M * ldc * sizeof(*c));
	int ret = bf ? ftpu_gemm_bf16(dev, ta, tb, M, N, K, alpha, a.h, a.ld,
				      b.h, b.ld, beta, c, ldc)
		     : ftpu_gemm(dev, ta, tb, M, N, K, alpha, a.f, a.ld, b.f,
				 b.ld, beta, c, ldc);
	if (ret)
		fail_msg("gemm %zux%zux%zu: %s: %s", M, K, N,
			 ftpu_strerror(ret), ftpu_last_error(dev));
	uint32_t *R = reference(&a, ta, &b, tb, M, N, K);
	char what[128];
	snprintf(what, sizeof(what), "%s %zux%zux%zu ta%d tb%d pad%zu a%g b%g",
		 bf ? "bf16" : "f32", M, K, N, ta, tb, pad, alpha, beta);
	assert_int_equal(check_c(c, ldc, R, c0, M, N, alpha, beta, what), 0);
	assert_int_equal(ftpu_last_stats(dev, &st), FTPU_OK);
	free(R);
	free(c);
	free(c0);
	mat_free(&a);
	mat_free(&b);
	return st;
}

static size_t rand_dim(void)
{
	switch (rng_below(&rng, 4)) {
	case 0:
		return 1 + rng_below(&rng, 16);
	case 1:
		return 16 * (1 + rng_below(&rng, 8)) + rng_below(&rng, 3) - 1;
	default:
		return 1 + rng_below(&rng, 300);
	}
}

/* Random shapes 1..300, all four transposes, padded strides, m = 1,
 * specials in the operands: bit-exact, C's NaN garbage ignored. */
static void test_gemm_random_shapes(void **state)
{
	ftpu_device *dev = *state;
	for (int i = 0; i < 48; i++) {
		size_t M = i < 4 ? 1 : rand_dim(), N = rand_dim(),
		       K = rand_dim();
		if (i == 4)
			M = 300, N = 17, K = 300;
		struct ftpu_stats st =
			api_gemm(dev, i & 1, i & 2, M, N, K, rng_below(&rng, 4),
				 false, 1.0f, 0.0f, 2);
		uint64_t KT = (K + 15) / 16, NT = (N + 15) / 16;
		assert_true(st.macs == (uint64_t)M * KT * NT * 256);
		assert_true(st.bytes_out >= (uint64_t)M * NT * 16 * 4);
	}
}

/* alpha and beta: C = alpha * R + beta * C in fp32. */
static void test_gemm_alpha_beta(void **state)
{
	static const float ab[][2] = {
		{1, 0},	      {2.5f, 0}, {-0.5f, 1.5f},	  {1, 1},     {1, -1},
		{0.1f, 0.3f}, {-1, 0},	 {1e30f, 1e-30f}, {3, -0.0f},
	};
	ftpu_device *dev = *state;
	for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++)
		for (int t = 0; t < 4; t++)
			api_gemm(dev, t & 1, t & 2, 1 + rng_below(&rng, 70),
				 1 + rng_below(&rng, 70),
				 1 + rng_below(&rng, 70), rng_below(&rng, 3),
				 t == 3, ab[i][0], ab[i][1], 2);
}

/* alpha == 0: C = beta * C, or +0 when beta == 0, A and B unread (NaN in
 * them does not matter). */
static void test_gemm_alpha_zero(void **state)
{
	ftpu_device *dev = *state;
	float a[6], b[6], c[4] = {1, -2, 4, 8};
	for (int i = 0; i < 6; i++)
		a[i] = b[i] = NAN;
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 3,
				   0.0f, a, 3, b, 2, 0.5f, c, 2),
			 FTPU_OK);
	assert_true(c[0] == 0.5f && c[1] == -1.0f && c[2] == 2.0f &&
		    c[3] == 4.0f);
	c[1] = NAN;
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 3,
				   0.0f, a, 3, b, 2, 0.0f, c, 2),
			 FTPU_OK);
	for (int i = 0; i < 4; i++)
		assert_int_equal(f32_bits(c[i]), 0);
	/* unread, so A and B may be NULL (the leading dimensions are still
	 * checked: test_gemm_bad_input) */
	c[0] = 3;
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 3,
				   0.0f, NULL, 3, NULL, 2, 2.0f, c, 2),
			 FTPU_OK);
	assert_true(c[0] == 6.0f && c[1] == 0.0f);
	assert_int_equal(ftpu_gemm_bf16(dev, FTPU_TRANS, FTPU_NO_TRANS, 2, 2,
					3, 0.0f, NULL, 2, NULL, 2, 0.5f, c, 2),
			 FTPU_OK);
	assert_true(c[0] == 3.0f);
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 3,
				   0.0f, NULL, 3, NULL, 2, 2.0f, NULL, 2),
			 FTPU_ERR_INVALID);
}

/* ftpu_gemm_bf16: the operands' bits as given, specials included. */
static void test_gemm_bf16(void **state)
{
	ftpu_device *dev = *state;
	for (int i = 0; i < 24; i++)
		api_gemm(dev, i & 1, i & 2, i < 2 ? 1 : rand_dim(), rand_dim(),
			 rand_dim(), rng_below(&rng, 3), true, 1.0f, 0.0f, 20);
}

/* The same B twice is sent once; a changed B is sent and used; the same
 * image from a differently stored B is recognized; without residency
 * every call sends B. */
static void test_gemm_residency(void **state)
{
	ftpu_device *dev = *state;
	const size_t M = 128, K = 784, N = 128, image = 49 * 8 * 256 * 2;
	struct mat a, b, bt;
	mat_init(&a, M, K, 0, false, 0);
	mat_init(&b, K, N, 0, false, 0);
	/* bt = b^T stored as N x K: op(bt) with TRANS is b */
	mat_init(&bt, N, K, 0, false, 0);
	for (size_t k = 0; k < K; k++)
		for (size_t j = 0; j < N; j++)
			bt.f[j * K + k] = b.f[k * N + j];
	float *c = malloc(M * N * sizeof(*c));
	uint32_t *R = reference(&a, false, &b, false, M, N, K);
	struct ftpu_stats st[6];
	int calls = 0;
#define CALL(bm, tb)                                                           \
	do {                                                                   \
		assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, tb, M, N, K,    \
					   1.0f, a.f, K, (bm)->f, (bm)->ld,    \
					   0.0f, c, N),                        \
				 FTPU_OK);                                     \
		assert_int_equal(ftpu_last_stats(dev, &st[calls]), FTPU_OK);   \
		calls++;                                                       \
	} while (0)

	assert_int_equal(ftpu_reset(dev), FTPU_OK);
	CALL(&b, FTPU_NO_TRANS);
	CALL(&b, FTPU_NO_TRANS);
	assert_int_equal(check_c(c, N, R, c, M, N, 1, 0, "resident"), 0);
	CALL(&bt, FTPU_TRANS); /* the same image */
	assert_int_equal(check_c(c, N, R, c, M, N, 1, 0, "resident (B^T)"), 0);
	printf("128x784x128: bytes_in %" PRIu64 " first call, %" PRIu64
	       " with B resident (B image %zu bytes)\n",
	       st[0].bytes_in, st[1].bytes_in, image);
	assert_true(st[0].bytes_in - st[1].bytes_in >= image);
	assert_true(st[2].bytes_in == st[1].bytes_in);
	/* bytes_out differs by the STATUS polls of the longer program */
	assert_true(st[0].macs == st[1].macs);

	b.f[K * N / 2] += 1.0f; /* one element changes */
	free(R);
	R = reference(&a, false, &b, false, M, N, K);
	CALL(&b, FTPU_NO_TRANS);
	assert_int_equal(check_c(c, N, R, c, M, N, 1, 0, "changed B"), 0);
	assert_true(st[3].bytes_in == st[0].bytes_in);

	ftpu__gemm_tuning.no_residency = true;
	CALL(&b, FTPU_NO_TRANS);
	CALL(&b, FTPU_NO_TRANS);
	assert_int_equal(check_c(c, N, R, c, M, N, 1, 0, "no residency"), 0);
	assert_true(st[4].bytes_in == st[0].bytes_in &&
		    st[5].bytes_in == st[0].bytes_in);
	ftpu__gemm_tuning.no_residency = false;
	/* residency again, and a reset forgets the resident B */
	const uint64_t full = st[0].bytes_in, resident = st[1].bytes_in;
	calls = 0;
	CALL(&b, FTPU_NO_TRANS);
	CALL(&b, FTPU_NO_TRANS);
	assert_int_equal(ftpu_reset(dev), FTPU_OK);
	CALL(&b, FTPU_NO_TRANS);
	assert_true(st[0].bytes_in == full && st[1].bytes_in == resident &&
		    st[2].bytes_in == full);
#undef CALL
	free(R);
	free(c);
	mat_free(&a);
	mat_free(&b);
	mat_free(&bt);
}

/* M beyond UB (m = 5000, k = 784, n = 128); chunked GEMMs with double
 * buffering off, forced on, and in several programs: the same bits. */
static void test_gemm_chunked_m(void **state)
{
	ftpu_device *dev = *state;
	struct ftpu_stats st = api_gemm(dev, false, false, 5000, 128, 784, 0,
					false, 1.0f, 0.0f, 0);
	assert_true(st.macs == 5000ull * 49 * 8 * 256);
	printf("5000x784x128: %" PRIu64 " bytes in, %" PRIu64 " out, %" PRIu64
	       " instructions, %.3f s\n",
	       st.bytes_in, st.bytes_out, st.instructions, st.host_seconds);
	ftpu__gemm_tuning.no_double_buffer = true;
	api_gemm(dev, true, false, 1500, 100, 700, 1, false, 1.0f, 0.0f, 1);
	ftpu__gemm_tuning.no_double_buffer = false;
	ftpu__gemm_tuning.force_double_buffer = true;
	api_gemm(dev, true, true, 1500, 100, 700, 0, true, 1.0f, 0.0f, 1);
	ftpu__gemm_tuning.force_double_buffer = false;
	ftpu__gemm_tuning.batch_words = 20000;
	st = api_gemm(dev, false, true, 1500, 100, 700, 2, false, 1.0f, 0.0f,
		      1);
	assert_true(st.macs == 1500ull * 44 * 7 * 256);
	ftpu__gemm_tuning.batch_words = 0;
}

/* A B larger than the weight memory (2048 x 1024 bf16 = 4 MiB > 512 KiB). */
static void test_gemm_b_larger_than_wm(void **state)
{
	ftpu_device *dev = *state;
	struct ftpu_stats st = api_gemm(dev, false, false, 96, 1024, 2048, 0,
					false, 1.0f, 0.0f, 0);
	printf("96x2048x1024: %" PRIu64 " bytes in, %.3f s\n", st.bytes_in,
	       st.host_seconds);
	api_gemm(dev, true, true, 33, 200, 2100, 0, true, 1.0f, 0.0f, 5);
}

/* The padding adds nothing, not even to a -0 sum (docs/numerics.md): a
 * sum that flushes to -0 stays -0 across the padded rows of its k-tile,
 * in every layout (transposes, chunks, a B that does not fit). */
static void test_gemm_padding(void **state)
{
	ftpu_device *dev = *state;
	/* 1.5 * 2^-126 - 1.75 * 2^-126 = -0.25 * 2^-126: subnormal, -0 */
	const uint16_t a_row[2] = {0x2040, 0x2060}, b_col[2] = {0x2000, 0xa000};
	for (int t = 0; t < 8; t++) {
		bool ta = t & 1, tb = t & 2, big = t & 4;
		size_t M = big ? 3 : 1, N = big ? 3000 : 1, K = 2;
		uint16_t *a = calloc(M * K, sizeof(*a)),
			 *b = calloc(K * N, sizeof(*b));
		float *fa = calloc(M * K, sizeof(*fa)),
		      *fb = calloc(K * N, sizeof(*fb));
		float *c = malloc(M * N * sizeof(*c));
		assert_true(a && b && fa && fb && c);
		for (size_t i = 0; i < M; i++)
			for (size_t k = 0; k < K; k++)
				a[ta ? k * M + i : i * K + k] = a_row[k];
		for (size_t j = 0; j < N; j++)
			for (size_t k = 0; k < K; k++)
				b[tb ? j * K + k : k * N + j] = b_col[k];
		for (size_t i = 0; i < M * K; i++)
			fa[i] = bits_f32((uint32_t)a[i] << 16);
		for (size_t i = 0; i < K * N; i++)
			fb[i] = bits_f32((uint32_t)b[i] << 16);
		if (big) /* force chunks: B beyond WM is impossible at K = 2 */
			ftpu__gemm_tuning.max_rows = 1,
			ftpu__gemm_tuning.max_ntiles = 7;
		assert_int_equal(ftpu_gemm_bf16(dev, ta, tb, M, N, K, 1, a,
						ta ? M : K, b, tb ? K : N, 0, c,
						N),
				 FTPU_OK);
		for (size_t i = 0; i < M * N; i++)
			assert_int_equal(f32_bits(c[i]), 0x80000000u);
		assert_int_equal(ftpu_gemm(dev, ta, tb, M, N, K, 1, fa,
					   ta ? M : K, fb, tb ? K : N, 0, c, N),
				 FTPU_OK);
		for (size_t i = 0; i < M * N; i++)
			assert_int_equal(f32_bits(c[i]), 0x80000000u);
		memset(&ftpu__gemm_tuning, 0, sizeof(ftpu__gemm_tuning));
		free(a), free(b), free(fa), free(fb), free(c);
	}
	/* the reference agrees */
	uint32_t r;
	ftpu_ref_gemm(1, 1, 2, a_row, 2, b_col, 1, &r, 1, false);
	assert_int_equal(r, 0x80000000u);
}

/* A device fault (injected at the end of the program): the status, C
 * untouched, a B that was being sent no longer counts as resident, and
 * the device works on. */
static void test_gemm_device_fault(void **state)
{
	ftpu_device *dev = *state;
	const size_t M = 40, K = 100, N = 50;
	struct mat a, b, b2;
	struct ftpu_stats st;
	mat_init(&a, M, K, 0, false, 0);
	mat_init(&b, K, N, 0, false, 0);
	mat_init(&b2, K, N, 0, false, 0);
	float *c = malloc(M * N * sizeof(*c));
	for (size_t i = 0; i < M * N; i++)
		c[i] = 42.0f;

	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K,
				   1, a.f, K, b.f, N, 0, c, N),
			 FTPU_OK);
	assert_int_equal(ftpu_last_stats(dev, &st), FTPU_OK);
	const uint64_t full = st.bytes_in;
	for (size_t i = 0; i < M * N; i++)
		c[i] = 42.0f;
	ftpu__gemm_tuning.inject_fault = true;
	for (int i = 0; i < 2; i++) { /* B resident, then B2 sent */
		int ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K,
				    1, a.f, K, i ? b2.f : b.f, N, 0, c, N);
		assert_int_equal(ret, FTPU_ERR_DEVICE);
		assert_non_null(strstr(ftpu_last_error(dev), "fault"));
		for (size_t j = 0; j < M * N; j++)
			assert_true(c[j] == 42.0f);
	}
	ftpu__gemm_tuning.inject_fault = false;
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, M, N, K,
				   1, a.f, K, b.f, N, 0, c, N),
			 FTPU_OK);
	assert_int_equal(ftpu_last_stats(dev, &st), FTPU_OK);
	assert_true(st.bytes_in == full); /* B sent again */
	uint32_t *R = reference(&a, false, &b, false, M, N, K);
	assert_int_equal(check_c(c, N, R, c, M, N, 1, 0, "after a fault"), 0);
	free(R);
	free(c);
	mat_free(&a);
	mat_free(&b);
	mat_free(&b2);
}

/* Bad arguments: a status, C untouched. */
static void test_gemm_bad_input(void **state)
{
	ftpu_device *dev = *state;
	float a[64], b[64], c[64];
	uint16_t ah[64], bh[64];
	const size_t big = SIZE_MAX / 2;
	for (int i = 0; i < 64; i++)
		a[i] = b[i] = 1.0f, c[i] = 42.0f, ah[i] = bh[i] = 0x3f80;
#define NT FTPU_NO_TRANS
#define TR FTPU_TRANS
#define BAD(call, status)                                                      \
	do {                                                                   \
		assert_int_equal(call, status);                                \
		for (int i_ = 0; i_ < 64; i_++)                                \
			assert_true(c[i_] == 42.0f);                           \
	} while (0)
	BAD(ftpu_gemm(NULL, NT, NT, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 2, 1, NULL, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	assert_true(ftpu_last_error(dev)[0] != '\0');
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 2, 1, a, 2, NULL, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 2, 1, a, 2, b, 2, 0, NULL, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm_bf16(dev, NT, NT, 2, 2, 2, 1, NULL, 2, bh, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm_bf16(dev, NT, NT, 2, 2, 2, 1, ah, 2, NULL, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 0, 2, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 0, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 0, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, 2, NT, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, -1, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	/* leading dimensions: A m x k (k x m), B k x n (n x k), C m x n */
	BAD(ftpu_gemm(dev, NT, NT, 2, 3, 4, 1, a, 3, b, 3, 0, c, 3),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, TR, NT, 2, 3, 4, 1, a, 1, b, 3, 0, c, 3),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 3, 4, 1, a, 4, b, 2, 0, c, 3),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, TR, 2, 3, 4, 1, a, 4, b, 3, 0, c, 3),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 3, 4, 1, a, 4, b, 3, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm_bf16(dev, TR, TR, 2, 3, 4, 1, ah, 1, bh, 4, 0, c, 3),
	    FTPU_ERR_INVALID);
	/* sizes whose extents overflow */
	BAD(ftpu_gemm(dev, NT, NT, big, 2, 2, 1, a, 2, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, big, 1, a, big, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, big, 2, 1, a, 2, b, big, 0, c, big),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, TR, TR, 3, 3, SIZE_MAX, 1, a, 3, b, SIZE_MAX, 0, c,
		      3),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 2, 1, a, SIZE_MAX, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm(dev, NT, NT, 1 << 20, 2, 2, 1, a, 1ull << 50, b, 2, 0, c,
		      2),
	    FTPU_ERR_INVALID);
	BAD(ftpu_gemm_bf16(dev, NT, NT, 1ull << 62, 2, 2, 1, ah, 2, bh, 2, 0, c,
			   2),
	    FTPU_ERR_INVALID);
	/* alpha == 0 still checks its arguments */
	BAD(ftpu_gemm(dev, NT, NT, 2, 2, 2, 0, a, 1, b, 2, 0, c, 2),
	    FTPU_ERR_INVALID);
	/* the device still works */
	assert_int_equal(
		ftpu_gemm(dev, NT, NT, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2),
		FTPU_OK);
	assert_true(c[0] == 2.0f && c[3] == 2.0f && c[4] == 42.0f);
#undef BAD
#undef NT
#undef TR
}

int main(void)
{
	rng.s = ftpu_test_seed();
	fprintf(stderr, "seed %#" PRIx64 " (FTPU_SEED)\n", rng.s);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_convert),
		cmocka_unit_test(test_gemm_hash),
		cmocka_unit_test(test_gemm_plan_fits),
		cmocka_unit_test(test_gemm_plan_small_devices),
		cmocka_unit_test(test_gemm_plan_resident_and_limits),
		cmocka_unit_test_setup_teardown(test_gemm_random_shapes,
						open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_alpha_beta, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_alpha_zero, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_bf16, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_residency, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_chunked_m, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_b_larger_than_wm,
						open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_padding, open_ref,
						close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_device_fault,
						open_ref, close_ref),
		cmocka_unit_test_setup_teardown(test_gemm_bad_input, open_ref,
						close_ref),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
