/* SPDX-License-Identifier: Apache-2.0 */
/*
 * array_gemm.h - drive a Verilated ftpu_systolic_array through a whole GEMM,
 * cycle by cycle, as the matrix unit will: the schedule of docs/array.md.
 *
 * Folds are (k-tile, n-tile) pairs, k-tile outer, so that a fold's partial
 * sums (from the fold with the same n-tile one k-tile earlier) have usually
 * left the array before they are needed at the column tops. Fold f uses
 * weight buffer f % 2. Its tile load starts at a cycle A after the buffer's
 * previous user was presented, and writes row r at A + r*D (D = row_delay):
 * row r then takes effect for exactly the vectors presented from A on
 * (docs/array.md). The fold's vectors follow from A on. Loads overlap, each
 * on its own phase of the cycle count mod D, so the weight port still moves
 * one row per cycle.
 */
#ifndef FTPU_ARRAY_GEMM_H
#define FTPU_ARRAY_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftpu_sim.h"

struct array_gemm_stats {
	uint64_t cycles;      /* first presented input .. last result, inclusive */
	uint64_t stalls;      /* cycles a vector waited for its partial sums
			       * (the total only grows if the weights are not
			       * what it waits for anyway) */
	uint64_t folds;
	uint64_t predicted;   /* cycles of the stall-free schedule */
};

/* Padding rows of a ragged K tile must add nothing, not even to a -0
 * accumulator: an activation +0 times a weight -0 is -0, and x + (-0) == x
 * for every x. (A +0 product would turn a -0 sum into +0.) */
#define ARRAY_PAD_ACT 0x0000u
#define ARRAY_PAD_WEIGHT 0x8000u

/* Cycles of the stall-free schedule for an M x K x N GEMM: a fold every
 * max(M, ROWS) cycles (the weight port moves a tile in ROWS), then the last
 * fold's M vectors and the array's latency. */
static inline uint64_t array_gemm_predicted(const struct ftpu_array_dims *d,
					    size_t M, size_t K, size_t N)
{
	uint64_t F = ((K + d->rows - 1) / d->rows) * ((N + d->cols - 1) / d->cols);
	uint64_t fold = M > d->rows ? M : d->rows;
	return (F - 1) * fold + M + d->latency;
}

/*
 * C[M x N] = (accumulate ? C : +0) + A[M x K] * B[K x N] on the array; A, B
 * bf16 row-major, C fp32 bits. Returns 0, or -1 on bad sizes or no memory.
 */
static inline int array_gemm(struct ftpu_sim *sim, size_t M, size_t N, size_t K,
			     const uint16_t *A, size_t lda, const uint16_t *B,
			     size_t ldb, uint32_t *C, size_t ldc, bool accumulate,
			     struct array_gemm_stats *st)
{
	struct ftpu_array_dims d;
	if (!ftpu_sim_array_dims(sim, &d) || !M || !N || !K || d.rows > 256 ||
	    d.cols > 256 || d.row_delay < 1 || d.row_delay > 15)
		return -1;
	const size_t R = d.rows, Cc = d.cols, lat = d.latency;
	const size_t KT = (K + R - 1) / R, NT = (N + Cc - 1) / Cc, F = KT * NT;
	const size_t Np = NT * Cc;

	/* Partial sums between k-tiles; the in-flight (fold, m) queue; how many
	 * k-tiles each partial-sum row holds so far; per fold its load start
	 * and last presentation cycle (-1: not yet). */
	const size_t qcap = lat + 2;
	uint32_t *part = calloc(M * Np, sizeof(*part));
	size_t *queue = malloc(qcap * sizeof(*queue));
	size_t *tiles_in = calloc(M * NT, sizeof(*tiles_in));
	int64_t *load_start = malloc(F * sizeof(*load_start));
	int64_t *fold_end = malloc(F * sizeof(*fold_end));
	int ret = -1;
	if (!part || !queue || !tiles_in || !load_start || !fold_end)
		goto out_free;
	for (size_t i = 0; i < F; i++)
		load_start[i] = fold_end[i] = -1;

	size_t qhead = 0, qlen = 0;
	uint16_t act[256], wrow[256];
	uint32_t psum[256], out[256];
	const uint64_t D = d.row_delay;
	size_t active[16], nactive = 0; /* folds whose tiles are loading */
	size_t lf = 0;                  /* next fold to start loading */
	size_t f = 0, m = 0;   /* fold and vector being presented */
	size_t done = 0;       /* results received */

	ftpu_sim_reset(sim, 4);
	memset(st, 0, sizeof(*st));
	st->folds = F;
	st->predicted = array_gemm_predicted(&d, M, K, N);

	for (uint64_t t = 0; done < M * F; t++) {
		struct ftpu_array_in in = { 0 };
		/* Weight port: an active load whose phase this cycle is writes its
		 * next row; if none, a new load may start here on a free phase. */
		int64_t writer = -1;
		for (size_t i = 0; i < nactive; i++)
			if ((t - (uint64_t)load_start[active[i]]) % D == 0)
				writer = (int64_t)i;
		if (writer < 0 && lf < F &&
		    (lf < 2 || (fold_end[lf - 2] >= 0 && (int64_t)t > fold_end[lf - 2]))) {
			load_start[lf] = (int64_t)t;
			active[nactive] = lf++;
			writer = (int64_t)nactive++;
		}
		if (writer >= 0) {
			size_t j = active[writer];
			size_t lr = (t - (uint64_t)load_start[j]) / D;
			size_t kt = j / NT, nt = j % NT, k = kt * R + lr;
			for (size_t c = 0; c < Cc; c++) {
				size_t n = nt * Cc + c;
				wrow[c] = k >= K ? ARRAY_PAD_WEIGHT :
				          n < N ? B[k * ldb + n] : 0;
			}
			in.wl_valid = true;
			in.wl_buf = j & 1;
			in.wl_row = (unsigned)lr;
			in.wl_data = wrow;
			if (lr == R - 1) /* this load is done */
				active[writer] = active[--nactive];
		}
		/* Presenter: fold f's load has started; its partial sums are here. */
		if (f < F && load_start[f] >= 0 && load_start[f] <= (int64_t)t) {
			size_t kt = f / NT, nt = f % NT;
			bool have = tiles_in[m * NT + nt] == kt;
			if (have) {
				for (size_t r = 0; r < R; r++) {
					size_t k = kt * R + r;
					act[r] = k < K ? A[m * lda + k] : ARRAY_PAD_ACT;
				}
				for (size_t c = 0; c < Cc; c++) {
					size_t n = nt * Cc + c;
					if (kt > 0)
						psum[c] = part[m * Np + n];
					else
						psum[c] = accumulate && n < N ? C[m * ldc + n] : 0;
				}
				in.valid = true;
				in.wsel = f & 1;
				in.act = act;
				in.psum = psum;
				queue[(qhead + qlen++) % qcap] = f * M + m;
				if (++m == M) {
					fold_end[f] = (int64_t)t;
					m = 0, f++;
				}
			} else {
				st->stalls++;
			}
		}
		bool ov;
		ftpu_sim_array_cycle(sim, &in, &ov, out);
		if (ov && qlen) {
			size_t of = queue[qhead] / M, om = queue[qhead] % M;
			qhead = (qhead + 1) % qcap, qlen--;
			size_t kt = of / NT, nt = of % NT;
			for (size_t c = 0; c < Cc; c++) {
				size_t n = nt * Cc + c;
				if (kt + 1 < KT)
					part[om * Np + n] = out[c];
				else if (n < N)
					C[om * ldc + n] = out[c];
			}
			tiles_in[om * NT + nt] = kt + 1; /* usable from the next cycle */
			done++;
			st->cycles = t + 1;
		}
	}
	ret = 0;
out_free:
	free(part);
	free(queue);
	free(tiles_in);
	free(load_start);
	free(fold_end);
	return ret;
}

#endif /* FTPU_ARRAY_GEMM_H */
