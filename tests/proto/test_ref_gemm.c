/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ref_gemm - the fast reference GEMM (every vector kernel this CPU
 * runs, and the automatic choice) against ftpu_ref_gemm_plain, bit for
 * bit; and ftpu_ref_gemm_plain against a plain float loop written here,
 * run under an FTZ/DAZ mode this file sets itself.
 *
 * Shapes cover 1, primes, sizes either side of the kernels' blocking and
 * long k chains; leading dimensions larger than the rows; accumulate on
 * and off; inputs with NaN (with payloads), +-Inf, +-0, subnormals and
 * operands whose products overflow or underflow.
 *
 * FTPU_FULL=1 runs ten times as many random shapes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu.h"
#include "ftpu_test.h"
#include "numeric.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

#define SENTINEL 0xdeadbeefu /* C padding that nobody may write */

static unsigned int n_random_shapes = 400; /* x10 under FTPU_FULL=1 */

/* ---- random data ------------------------------------------------------- */

static struct rng rng; /* seeded per test */

/* What the inputs look like: per mille of special values, of values
 * from the whole exponent range (products overflow and underflow), of
 * values around 2^-64 and subnormals (products and sums at the bottom of
 * the fp32 range, where FTZ and DAZ decide the bits). */
struct profile {
	unsigned int special_pm, wide_pm, tiny_pm;
};

static const ftpu_bf16 edge_bf16[] = {
	0x7fc0, 0xffc0, 0x7f81, 0xffff, /* NaNs, with payloads */
	0x7f80, 0xff80,			/* +-Inf */
	0x0000, 0x8000,			/* +-0 */
	0x0001, 0x807f, 0x0040,		/* subnormals */
	0x7f7f, 0xff7f, 0x7200, 0xf280, /* huge: 2^127.., 2^101 */
	0x0080, 0x8080, 0x0d00, 0x8d80, /* tiny: 2^-126, 2^-101 */
};

static ftpu_bf16 rand_bf16(const struct profile *p)
{
	uint32_t r = rng_u32(&rng), pick = rng_below(&rng, 1000);

	if (pick < p->special_pm)
		return edge_bf16[rng_below(&rng, sizeof(edge_bf16) / 2)];
	if (pick < p->special_pm + p->wide_pm)
		return (ftpu_bf16)r; /* any bits: anything goes */
	if (pick < p->special_pm + p->wide_pm + p->tiny_pm) {
		uint32_t e = rng_below(&rng, 64);

		if (e < 4) /* subnormal: DAZ makes it a zero */
			return (ftpu_bf16)((r & 0x807f) | 1);
		if (e == 4) /* 2^53..2^68: a subnormal times this is normal */
			return (ftpu_bf16)((r & 0x807f) |
					   ((180 + (r >> 8) % 16) << 7));
		/* 2^-66..2^-60: products straddle 2^-126, sums cancel
		 * into the subnormal range */
		return (ftpu_bf16)((r & 0x807f) | ((61 + (r >> 8) % 7) << 7));
	}
	/* |x| in [2^-6, 2^6): sums that round and cancel, no shortcuts */
	return (ftpu_bf16)((r & 0x807f) | ((121 + (r >> 8) % 12) << 7));
}

static const uint32_t edge_f32[] = {
	0x7fc00000, 0xffc00000, 0x7f800001, 0xffa12345, 0x7f800000,
	0xff800000, 0x00000000, 0x80000000, 0x00000001, 0x807fffff,
	0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000,
};

/* An initial C element (the accumulate case). */
static uint32_t rand_f32(const struct profile *p)
{
	uint32_t r = rng_u32(&rng), pick = rng_below(&rng, 1000);

	if (pick < p->special_pm)
		return edge_f32[rng_below(&rng, sizeof(edge_f32) / 4)];
	if (pick < p->special_pm + p->wide_pm)
		return r;
	if (pick < p->special_pm + p->wide_pm + p->tiny_pm)
		return r & 0x81ffffffu; /* subnormal or just above */
	return (r & 0x807fffffu) | ((121 + (r >> 23) % 12) << 23);
}

/* ---- one problem: operands, leading dimensions, C with padding --------- */

struct problem {
	size_t m, n, k, lda, ldb, ldc;
	bool accumulate;
	ftpu_bf16 *a, *b;
	uint32_t *c0; /* initial C, padding = SENTINEL */
	size_t c_len;
};

static void problem_make(struct problem *pr, size_t m, size_t n, size_t k,
			 size_t pad, bool accumulate, const struct profile *p)
{
	pr->m = m;
	pr->n = n;
	pr->k = k;
	pr->lda = k + (pad ? rng_below(&rng, (uint32_t)pad + 1) : 0);
	pr->ldb = n + (pad ? rng_below(&rng, (uint32_t)pad + 1) : 0);
	pr->ldc = n + (pad ? rng_below(&rng, (uint32_t)pad + 1) : 0);
	pr->accumulate = accumulate;
	/* one spare row everywhere: nobody may touch it either */
	pr->a = malloc(((m + 1) * pr->lda + 1) * sizeof(*pr->a));
	pr->b = malloc(((k + 1) * pr->ldb + 1) * sizeof(*pr->b));
	pr->c_len = (m + 1) * pr->ldc + 1;
	pr->c0 = malloc(pr->c_len * sizeof(*pr->c0));
	assert_non_null(pr->a);
	assert_non_null(pr->b);
	assert_non_null(pr->c0);
	for (size_t i = 0; i < (m + 1) * pr->lda + 1; i++)
		pr->a[i] = rand_bf16(p);
	for (size_t i = 0; i < (k + 1) * pr->ldb + 1; i++)
		pr->b[i] = rand_bf16(p);
	for (size_t i = 0; i < pr->c_len; i++)
		pr->c0[i] = SENTINEL;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			pr->c0[i * pr->ldc + j] = rand_f32(p);
}

static void problem_free(struct problem *pr)
{
	free(pr->a);
	free(pr->b);
	free(pr->c0);
}

static uint32_t *c_copy(const struct problem *pr)
{
	uint32_t *c = malloc(pr->c_len * sizeof(*c));

	assert_non_null(c);
	memcpy(c, pr->c0, pr->c_len * sizeof(*c));
	return c;
}

static void run_plain(const struct problem *pr, uint32_t *c)
{
	ftpu_ref_gemm_plain(pr->m, pr->n, pr->k, pr->a, pr->lda, pr->b,
			    pr->ldb, c, pr->ldc, pr->accumulate);
}

/* kernel < 0: ftpu_ref_gemm itself. */
static void run_fast(const struct problem *pr, int kernel, uint32_t *c)
{
	int ret;

	if (kernel < 0) {
		ftpu_ref_gemm(pr->m, pr->n, pr->k, pr->a, pr->lda, pr->b,
			      pr->ldb, c, pr->ldc, pr->accumulate);
		return;
	}
	ret = ftpu_ref_gemm_kernel(kernel, pr->m, pr->n, pr->k, pr->a, pr->lda,
				   pr->b, pr->ldb, c, pr->ldc, pr->accumulate);
	assert_int_equal(ret, FTPU_OK);
}

/* Same bits everywhere, padding included; prints the first difference. */
static bool same_c(const struct problem *pr, const uint32_t *got,
		   const uint32_t *want, const char *what)
{
	for (size_t i = 0; i < pr->c_len; i++) {
		if (got[i] == want[i])
			continue;
		print_error("%s: %zux%zux%zu lda %zu ldb %zu ldc %zu acc %d: "
			    "C[%zu][%zu] = %08x, want %08x\n",
			    what, pr->m, pr->k, pr->n, pr->lda, pr->ldb,
			    pr->ldc, pr->accumulate, i / pr->ldc, i % pr->ldc,
			    got[i], want[i]);
		return false;
	}
	return true;
}

static bool padding_intact(const struct problem *pr, const uint32_t *c)
{
	for (size_t i = 0; i < pr->c_len; i++) {
		bool inside = i / pr->ldc < pr->m && i % pr->ldc < pr->n;

		if (!inside && c[i] != SENTINEL)
			return false;
	}
	return true;
}

/* Every available kernel and ftpu_ref_gemm against the plain loop. */
static bool check_problem(const struct problem *pr)
{
	uint32_t *want = c_copy(pr);
	bool ok = true;

	run_plain(pr, want);
	if (!padding_intact(pr, want)) {
		print_error("plain wrote outside C\n");
		ok = false;
	}
	for (int kern = -1; kern < FTPU_REF_KERNEL_COUNT; kern++) {
		uint32_t *got;

		if (kern >= 0 && !ftpu_ref_kernel_available(kern))
			continue;
		got = c_copy(pr);
		run_fast(pr, kern, got);
		ok &= same_c(pr, got, want,
			     kern < 0 ? "ftpu_ref_gemm" :
					ftpu_ref_kernel_name(kern));
		free(got);
	}
	free(want);
	return ok;
}

static const struct profile clean = { 0, 0, 0 };
static const struct profile sprinkled = { 3, 20, 0 };
static const struct profile wild = { 60, 300, 0 };
static const struct profile tiny = { 0, 0, 1000 };

/* ---- tests ------------------------------------------------------------ */

static void test_ref_gemm_kernels_available(void **state)
{
	(void)state;
	assert_true(ftpu_ref_kernel_available(FTPU_REF_KERNEL_GENERIC));
	assert_true(ftpu_ref_kernel_available(ftpu_ref_kernel_best()));
	assert_false(ftpu_ref_kernel_available(FTPU_REF_KERNEL_COUNT));
	for (int k = 0; k < FTPU_REF_KERNEL_COUNT; k++)
		if (!ftpu_ref_kernel_available(k))
			assert_int_equal(ftpu_ref_gemm_kernel(k, 1, 1, 1, NULL,
							      1, NULL, 1, NULL,
							      1, false),
					 FTPU_ERR_UNSUPPORTED);
	print_message("kernels: best %s\n",
		      ftpu_ref_kernel_name(ftpu_ref_kernel_best()));
}

/* Shapes picked to sit on and either side of plausible block sizes
 * (4-row tiles, 8/16/32 columns, k panels of 128, 256-column panels). */
static void test_ref_gemm_edge_shapes_match_plain(void **state)
{
	static const size_t shapes[][3] = {
		/* M, N, K */
		{ 1, 1, 1 },	 { 1, 1, 2 },	  { 2, 3, 5 },
		{ 3, 7, 11 },	 { 4, 8, 1 },	  { 4, 16, 128 },
		{ 4, 32, 128 },	 { 5, 33, 129 },  { 7, 17, 127 },
		{ 8, 31, 255 },	 { 13, 257, 131 }, { 2, 255, 256 },
		{ 17, 9, 257 },	 { 3, 513, 50 },  { 1, 784, 128 },
		{ 33, 64, 64 },	 { 31, 300, 300 }, { 1, 3, 5000 },
		{ 6, 40, 2000 }, { 67, 15, 33 },  { 4, 256, 384 },
	};
	int bad = 0;

	(void)state;
	rng.s = 0x452821e638d01377ull;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int v = 0; v < 6; v++) {
			static const struct profile *profiles[] = {
				&clean, &sprinkled, &wild, &tiny
			};
			const struct profile *p = profiles[(s + v) % 4];
			struct problem pr;

			problem_make(&pr, shapes[s][0], shapes[s][1],
				     shapes[s][2], v < 3 ? 0 : 7, v & 1, p);
			bad += !check_problem(&pr);
			problem_free(&pr);
		}
	assert_int_equal(bad, 0);
}

static void test_ref_gemm_random_shapes_match_plain(void **state)
{
	int bad = 0;

	(void)state;
	rng.s = 0xbe5466cf34e90c6cull;
	for (unsigned int t = 0; t < n_random_shapes; t++) {
		static const struct profile *profiles[] = { &clean, &sprinkled,
							    &wild, &tiny };
		size_t m = 1 + rng_below(&rng, 40), n = 1 + rng_below(&rng, 300);
		size_t k = 1 + rng_below(&rng, rng_u32(&rng) & 1 ? 64 : 700);
		struct problem pr;

		problem_make(&pr, m, n, k, rng_u32(&rng) & 1 ? 0 : 1 + rng_below(&rng, 70),
			     rng_u32(&rng) & 1, profiles[rng_below(&rng, 4)]);
		bad += !check_problem(&pr);
		problem_free(&pr);
	}
	assert_int_equal(bad, 0);
}

/* Overflow and underflow on purpose: a huge A row against huge and tiny
 * B, so that every product is Inf, a flushed zero or in between, with
 * partial sums that reach Inf and then meet -Inf. */
static void test_ref_gemm_overflow_underflow_match_plain(void **state)
{
	int bad = 0;

	(void)state;
	rng.s = 0xc0ac29b7c97c50ddull;
	for (int t = 0; t < 20; t++) {
		struct problem pr;

		problem_make(&pr, 1 + rng_below(&rng, 9), 1 + rng_below(&rng, 70),
			     1 + rng_below(&rng, 300), 3, t & 1, &clean);
		for (size_t i = 0; i < (pr.m + 1) * pr.lda + 1; i++)
			pr.a[i] = (ftpu_bf16)((rng_u32(&rng) & 0x807f) |
					      ((200 + rng_below(&rng, 54)) << 7));
		for (size_t i = 0; i < (pr.k + 1) * pr.ldb + 1; i++)
			pr.b[i] = (ftpu_bf16)((rng_u32(&rng) & 0x807f) |
					      ((1 + rng_below(&rng, 120)) << 7));
		bad += !check_problem(&pr);
		problem_free(&pr);
	}
	assert_int_equal(bad, 0);
}

static void test_ref_gemm_k_zero(void **state)
{
	(void)state;
	rng.s = 0x3f84d5b5b5470917ull;
	for (int acc = 0; acc < 2; acc++) {
		struct problem pr;

		problem_make(&pr, 5, 37, 0, 4, acc, &wild);
		for (int kern = -2; kern < FTPU_REF_KERNEL_COUNT; kern++) {
			uint32_t *c = c_copy(&pr);

			if (kern >= 0 && !ftpu_ref_kernel_available(kern)) {
				free(c);
				continue;
			}
			if (kern == -2)
				run_plain(&pr, c);
			else
				run_fast(&pr, kern, c);
			/* unchanged (NaN payloads, subnormals and all)
			 * when accumulating, +0 otherwise */
			for (size_t i = 0; i < pr.c_len; i++) {
				bool inside = i / pr.ldc < pr.m &&
					      i % pr.ldc < pr.n;
				uint32_t want = acc || !inside ? pr.c0[i] : 0;

				assert_int_equal(c[i], want);
			}
			free(c);
		}
		problem_free(&pr);
	}
}

static void test_ref_gemm_empty_writes_nothing(void **state)
{
	static const size_t shapes[][3] = { { 0, 5, 3 }, { 4, 0, 3 },
					    { 0, 0, 0 } };

	(void)state;
	rng.s = 0x9216d5d98979fb1bull;
	for (size_t s = 0; s < 3; s++) {
		struct problem pr;
		uint32_t *c;

		problem_make(&pr, shapes[s][0], shapes[s][1], shapes[s][2], 3,
			     false, &clean);
		c = c_copy(&pr);
		run_plain(&pr, c);
		run_fast(&pr, -1, c);
		for (int k = 0; k < FTPU_REF_KERNEL_COUNT; k++)
			if (ftpu_ref_kernel_available(k))
				run_fast(&pr, k, c);
		assert_memory_equal(c, pr.c0, pr.c_len * sizeof(*c));
		free(c);
		problem_free(&pr);
	}
}

/* The plain GEMM is the chain of the scalar oracle's steps. */
static void test_ref_gemm_plain_is_chain_of_steps(void **state)
{
	static const struct profile *profiles[] = { &sprinkled, &wild, &tiny };

	(void)state;
	rng.s = 0x0801f2e2858efc16ull;
	for (int t = 0; t < 3; t++) {
		struct problem pr;
		uint32_t *c;

		problem_make(&pr, 7, 19, 45, 5, true, profiles[t]);
		c = c_copy(&pr);
		run_plain(&pr, c);
		for (size_t i = 0; i < pr.m; i++)
			for (size_t j = 0; j < pr.n; j++) {
				uint32_t acc = pr.c0[i * pr.ldc + j];

				for (size_t k = 0; k < pr.k; k++) {
					ftpu_bf16 a = pr.a[i * pr.lda + k];
					ftpu_bf16 b = pr.b[k * pr.ldb + j];

					acc = ftpu_ref_step(acc, a, b);
				}
				assert_int_equal(c[i * pr.ldc + j], acc);
			}
		free(c);
		problem_free(&pr);
	}
}

#if HAVE_MXCSR
/*
 * The C reference of docs/numerics.md written out independently: float, FTZ|DAZ
 * set by the caller (below), no fused multiply-add, NaN canonicalized.
 * noinline, so that its arithmetic stays between the mode switches.
 */
__attribute__((noinline)) static void
independent_gemm(const struct problem *pr, uint32_t *c)
{
	for (size_t i = 0; i < pr->m; i++)
		for (size_t j = 0; j < pr->n; j++) {
			uint32_t *out = &c[i * pr->ldc + j];
			float acc = 0.0f;

			if (pr->accumulate)
				memcpy(&acc, out, sizeof(acc));
			for (size_t k = 0; k < pr->k; k++) {
				uint32_t ua = (uint32_t)pr->a[i * pr->lda + k]
					      << 16;
				uint32_t ub = (uint32_t)pr->b[k * pr->ldb + j]
					      << 16;
				volatile float prod; /* rounded on its own */
				float fa, fb;

				memcpy(&fa, &ua, sizeof(fa));
				memcpy(&fb, &ub, sizeof(fb));
				prod = fa * fb;
				acc = acc + prod;
			}
			memcpy(out, &acc, sizeof(acc));
			if ((*out & 0x7fffffffu) > 0x7f800000u)
				*out = 0x7fc00000u;
		}
}
#endif

static void test_ref_gemm_plain_matches_independent_loop(void **state)
{
#if HAVE_MXCSR
	static const struct profile *profiles[] = { &clean, &sprinkled, &wild,
						    &tiny };
	int bad = 0;

	(void)state;
	rng.s = 0x858efc16636920d8ull;
	for (int t = 0; t < 60; t++) {
		struct problem pr;
		uint32_t *want, *got;
		unsigned int saved;

		/* short k for the tiny profile: the sums that end up
		 * subnormal (FTZ) are the ones that cancel early */
		problem_make(&pr, 1 + rng_below(&rng, 20), 1 + rng_below(&rng, 70),
			     1 + rng_below(&rng, t % 4 == 3 ? 24 : 400),
			     t & 2 ? 5 : 0, t & 1, profiles[t % 4]);
		want = c_copy(&pr);
		got = c_copy(&pr);
		saved = _mm_getcsr();
		/* FTZ | DAZ | all exceptions masked, round to nearest */
		_mm_setcsr(0x8000 | 0x0040 | 0x1f80);
		independent_gemm(&pr, want);
		_mm_setcsr(saved);
		run_plain(&pr, got);
		bad += !same_c(&pr, got, want, "plain vs independent");
		free(want);
		free(got);
		problem_free(&pr);
	}
	assert_int_equal(bad, 0);
#else
	(void)state;
	skip();
#endif
}

/* The caller's FPU mode survives every entry point, and does not leak
 * into the results (here: round toward zero, no FTZ/DAZ). */
static void test_ref_gemm_restores_fpmode(void **state)
{
#if HAVE_MXCSR
	const unsigned int mode = 0x1f80 | 0x6000 | 0x0020;
	struct problem pr;
	uint32_t *want, *got;
	unsigned int saved;

	(void)state;
	rng.s = 0x7b54a41dc25a59b5ull;
	problem_make(&pr, 9, 45, 200, 3, true, &sprinkled);
	want = c_copy(&pr);
	run_plain(&pr, want);

	for (int kern = -2; kern < FTPU_REF_KERNEL_COUNT; kern++) {
		unsigned int after;

		if (kern >= 0 && !ftpu_ref_kernel_available(kern))
			continue;
		got = c_copy(&pr);
		saved = _mm_getcsr();
		_mm_setcsr(mode);
		if (kern == -2)
			run_plain(&pr, got);
		else if (kern == -1)
			ftpu_ref_gemm(pr.m, pr.n, pr.k, pr.a, pr.lda, pr.b,
				      pr.ldb, got, pr.ldc, pr.accumulate);
		else
			ftpu_ref_gemm_kernel(kern, pr.m, pr.n, pr.k, pr.a,
					     pr.lda, pr.b, pr.ldb, got, pr.ldc,
					     pr.accumulate);
		after = _mm_getcsr();
		_mm_setcsr(saved);
		assert_int_equal(after, mode);
		assert_true(same_c(&pr, got, want, "under a foreign mode"));
		free(got);
	}
	free(want);
	problem_free(&pr);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const char *full = getenv("FTPU_FULL");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref_gemm_kernels_available),
		cmocka_unit_test(test_ref_gemm_edge_shapes_match_plain),
		cmocka_unit_test(test_ref_gemm_random_shapes_match_plain),
		cmocka_unit_test(test_ref_gemm_overflow_underflow_match_plain),
		cmocka_unit_test(test_ref_gemm_k_zero),
		cmocka_unit_test(test_ref_gemm_empty_writes_nothing),
		cmocka_unit_test(test_ref_gemm_plain_is_chain_of_steps),
		cmocka_unit_test(test_ref_gemm_plain_matches_independent_loop),
		cmocka_unit_test(test_ref_gemm_restores_fpmode),
	};

	if (full && strcmp(full, "1") == 0)
		n_random_shapes *= 10;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
