/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm.c - ftpu_gemm() and ftpu_gemm_bf16(): BLAS-shaped GEMM on the device.
 *
 * A call checks its arguments, then holds the device lock throughout:
 * plans the tiling for the device's sizes (gemm_plan.c), packs op(B) into
 * its bf16 tile image, hashes it and skips sending it when the same image
 * is resident in the weight memory, runs the program (in batches of whole
 * chunks, one ftpu__execute each) and only then writes C:
 *
 *   C = R                      alpha == 1 and beta == 0 (R's bits)
 *   C = alpha * R              beta == 0 (C is not read)
 *   C = alpha * R + beta * C   otherwise
 *
 * R is the device's fp32 result (bit-exact with ftpu_ref_gemm on the bf16
 * operands); each * and + is one fp32 operation rounded on its own, in the
 * caller's floating-point environment. As in the reference BLAS, alpha == 0
 * skips the product altogether: C = beta * C, or +0 when beta == 0, and
 * A and B are not read (no device run; the stats are zero).
 *
 * Residency: after a call that sent a whole B, the device's WM record
 * (ftpu__wm_resident) holds its image's hash, size and rows; a call that
 * sends anything into WM clears it first, so a failed call never leaves a
 * record of a half-written image. ftpu_gemm_tuning (gemm_plan.h) turns
 * residency and double buffering off for benchmarks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "gemm_plan.h"
#include "isa.h"

/* A rows x cols matrix with row stride ld of elem-byte elements: ld covers
 * a row and the last element's byte offset fits a ptrdiff_t. */
static bool extent_ok(size_t rows, size_t cols, size_t ld, size_t elem)
{
	const size_t max = PTRDIFF_MAX / elem; /* elements */
	return ld >= cols && cols <= max && (rows - 1) <= (max - cols) / ld;
}

/* Adds the counters of one batch to the call's. */
static void stats_add(struct ftpu_stats *sum, const struct ftpu_stats *st)
{
	sum->cycles += st->cycles;
	sum->busy += st->busy;
	sum->idle += st->idle;
	sum->macs += st->macs;
	sum->weight_stall += st->weight_stall;
	sum->input_stall += st->input_stall;
	sum->output_stall += st->output_stall;
	sum->bytes_in += st->bytes_in;
	sum->bytes_out += st->bytes_out;
	sum->instructions += st->instructions;
}

/* alpha == 0: C = beta * C (+0 when beta == 0), the device unused. */
static void scale_c(size_t m, size_t n, float beta, float *c, size_t ldc)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			c[i * ldc + j] =
				beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
}

/* Runs the plan's program in batches; DATA into data. */
static int run(ftpu_device *dev, const struct ftpu_gemm_plan *p,
	       const struct ftpu_gemm_operand *a, const uint16_t *image,
	       bool send_b, const struct ftpu_gemm_tuning *tune, uint32_t *data,
	       struct ftpu_stats *sum)
{
	const size_t budget =
		tune->batch_words ? tune->batch_words : FTPU_GEMM_BATCH_WORDS;
	uint16_t *scratch = malloc(p->mc * p->n * sizeof(*scratch));
	uint32_t *words = NULL;
	size_t cap = 0, data_at = 0;
	int ret = FTPU_OK;

	if (!scratch)
		return ftpu__fail(dev, FTPU_ERR_NOMEM,
				  "ftpu_gemm: out of memory");
	for (size_t c0 = 0; c0 < p->chunks;) {
		size_t c1 = ftpu__gemm_batch_end(p, c0, send_b, budget);
		size_t nw = ftpu__gemm_words(p, c0, c1, send_b);
		size_t nd = ftpu__gemm_data_words(p, c0, c1);
		if (nw + FTPU_ISA_WORDS > cap) {
			free(words);
			cap = nw + FTPU_ISA_WORDS;
			words = malloc(cap * sizeof(*words));
			if (!words) {
				ret = ftpu__fail(
					dev, FTPU_ERR_NOMEM,
					"ftpu_gemm: out of "
					"memory for a %zu-word program",
					nw);
				goto out;
			}
		}
		size_t got = ftpu__gemm_emit(p, a, image, send_b, c0, c1,
					     scratch, words);
		if (got != nw) { /* the planner's own sums disagree: a bug */
			ret = ftpu__fail(dev, FTPU_ERR_INVALID,
					 "ftpu_gemm: program of "
					 "%zu words, %zu planned",
					 got, nw);
			goto out;
		}
		if (tune->inject_fault && c1 == p->chunks) {
			ftpu_isa_encode(words + nw, 0xff, 0, 1, 0, 0);
			nw += FTPU_ISA_WORDS;
		}
		struct ftpu_exec x = {
			.words = words,
			.n_words = nw,
			.data = data + data_at,
			.data_words = nd,
		};
		struct ftpu_stats st = {0};
		ret = ftpu__execute(dev, &x, &st);
		if (ret)
			goto out;
		if (x.data_got != nd) {
			ret = ftpu__fail(dev, FTPU_ERR_PROTOCOL,
					 "ftpu_gemm: %zu result "
					 "words, %zu expected",
					 x.data_got, nd);
			goto out;
		}
		stats_add(sum, &st);
		data_at += nd;
		c0 = c1;
	}
out:
	free(words);
	free(scratch);
	return ret;
}

static int gemm(ftpu_device *dev, const char *fn, enum ftpu_transpose trans_a,
		enum ftpu_transpose trans_b, size_t m, size_t n, size_t k,
		float alpha, const struct ftpu_gemm_operand *a,
		const struct ftpu_gemm_operand *b, float beta, float *c,
		size_t ldc, size_t elem)
{
	const double t0 = ftpu__now_s();
	struct ftpu_gemm_tuning tune = ftpu__gemm_tuning; /* a copy: see b_resident */
	struct ftpu_stats st = {0};
	struct ftpu_gemm_plan p;
	uint16_t *image = NULL;
	uint32_t *data = NULL;
	int ret;

	if ((ret = ftpu__check_device(dev, fn)))
		return ret;
	ftpu__lock(dev);
	if ((trans_a != FTPU_NO_TRANS && trans_a != FTPU_TRANS) ||
	    (trans_b != FTPU_NO_TRANS && trans_b != FTPU_TRANS)) {
		ret = ftpu__fail(dev, FTPU_ERR_INVALID,
				 "%s: bad transpose flag", fn);
		goto out_unlock;
	}
	/* alpha == 0 reads neither A nor B (the reference BLAS): they may be
	 * NULL then; C is always needed */
	if ((alpha != 0.0f && (!(a->f32 || a->bf16) || !(b->f32 || b->bf16))) ||
	    !c) {
		ret = ftpu__fail(dev, FTPU_ERR_INVALID, "%s: NULL matrix", fn);
		goto out_unlock;
	}
	if (!m || !n || !k) {
		ret = ftpu__fail(dev, FTPU_ERR_INVALID,
				 "%s: zero size (m %zu, n %zu, "
				 "k %zu)",
				 fn, m, n, k);
		goto out_unlock;
	}
	/* as stored: A is m x k (k x m transposed), B k x n (n x k), C m x n */
	if (!extent_ok(a->trans ? k : m, a->trans ? m : k, a->ld, elem) ||
	    !extent_ok(b->trans ? n : k, b->trans ? k : n, b->ld, elem) ||
	    !extent_ok(m, n, ldc, sizeof(float))) {
		ret = ftpu__fail(
			dev, FTPU_ERR_INVALID,
			"%s: leading dimension too "
			"small or size overflow (m %zu, n %zu, k %zu, lda %zu, "
			"ldb %zu, ldc %zu)",
			fn, m, n, k, a->ld, b->ld, ldc);
		goto out_unlock;
	}
	if (alpha == 0.0f) {
		scale_c(m, n, beta, c, ldc);
		st.host_seconds = ftpu__now_s() - t0;
		ftpu__set_last_stats(dev, &st);
		ret = FTPU_OK;
		goto out_unlock;
	}

	const struct ftpu_device_info *info = ftpu__info(dev);
	const struct ftpu_gemm_device d = {
		.n = info->rows,
		.ub = info->ub_vectors,
		.acc = info->acc_vectors,
		.wm_tiles = info->weight_tiles,
		.link_bytes = info->link_bytes,
	};
	ret = ftpu__gemm_plan(&d, m, n, k, &tune, &p);
	if (ret) {
		ftpu__fail(dev, ret,
			   "%s: cannot tile %zu x %zu x %zu for a %ux%u "
			   "device",
			   fn, m, k, n, info->rows, info->cols);
		goto out_unlock;
	}
	image = malloc(p.image_elems * sizeof(*image));
	data = malloc(p.data_words * sizeof(*data));
	if (!image || !data) {
		ret = ftpu__fail(dev, FTPU_ERR_NOMEM, "%s: out of memory", fn);
		goto out_free;
	}
	ftpu__gemm_pack_b(&p, b, image);

	/* residency: the same image at the same rows need not be sent */
	struct ftpu_wm_resident *res = ftpu__wm_resident(dev);
	const bool keep = p.b_whole && !tune.no_residency;
	const uint64_t bytes = (uint64_t)p.image_elems * sizeof(*image);
	const uint32_t rows = (uint32_t)(p.KT * p.NT * p.n);
	uint64_t hash = 0;
	bool send_b = true;
	if (keep) {
		hash = ftpu__gemm_hash(image, bytes);
		send_b = !(res->valid && res->hash == hash &&
			   res->bytes == bytes && res->row == 0 &&
			   res->rows == rows);
	}
	if (send_b) {
		res->valid = false; /* WM is about to change */
	} else {
		/* Plan again knowing B costs nothing to send: smaller chunks
		 * may pay then. A whole B's image does not depend on the
		 * chunks, so the packed image stays valid. */
		tune.b_resident = true;
		ret = ftpu__gemm_plan(&d, m, n, k, &tune, &p);
		if (ret || !p.b_whole) {
			ret = ftpu__fail(dev, ret ? ret : FTPU_ERR_INVALID,
					 "%s: planning changed under residency", fn);
			goto out_free;
		}
	}

	ret = run(dev, &p, a, image, send_b, &tune, data, &st);
	if (ret)
		goto out_free;
	if (keep && send_b)
		*res = (struct ftpu_wm_resident){
			.valid = true,
			.hash = hash,
			.bytes = bytes,
			.row = 0,
			.rows = rows,
		};
	ftpu__gemm_store(&p, data, alpha, beta, c, ldc);
	ftpu__stats_finish(&st, info);
	st.host_seconds = ftpu__now_s() - t0;
	ftpu__set_last_stats(dev, &st);
out_free:
	free(data);
	free(image);
out_unlock:
	ftpu__unlock(dev);
	return ret;
}

int ftpu_gemm(ftpu_device *dev, enum ftpu_transpose trans_a,
	      enum ftpu_transpose trans_b, size_t m, size_t n, size_t k,
	      float alpha, const float *a, size_t lda, const float *b,
	      size_t ldb, float beta, float *c, size_t ldc)
{
	const struct ftpu_gemm_operand oa = {
		.f32 = a, .ld = lda, .trans = trans_a == FTPU_TRANS};
	const struct ftpu_gemm_operand ob = {
		.f32 = b, .ld = ldb, .trans = trans_b == FTPU_TRANS};
	return gemm(dev, "ftpu_gemm", trans_a, trans_b, m, n, k, alpha, &oa,
		    &ob, beta, c, ldc, sizeof(float));
}

int ftpu_gemm_bf16(ftpu_device *dev, enum ftpu_transpose trans_a,
		   enum ftpu_transpose trans_b, size_t m, size_t n, size_t k,
		   float alpha, const uint16_t *a, size_t lda,
		   const uint16_t *b, size_t ldb, float beta, float *c,
		   size_t ldc)
{
	const struct ftpu_gemm_operand oa = {
		.bf16 = a, .ld = lda, .trans = trans_a == FTPU_TRANS};
	const struct ftpu_gemm_operand ob = {
		.bf16 = b, .ld = ldb, .trans = trans_b == FTPU_TRANS};
	return gemm(dev, "ftpu_gemm_bf16", trans_a, trans_b, m, n, k, alpha,
		    &oa, &ob, beta, c, ldc, sizeof(uint16_t));
}
