/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_plan.h - how ftpu_gemm() tiles a GEMM for a device and writes the
 * device program (docs/isa.md). Internal to libftpu; tests and benchmarks
 * drive it directly. No locking, no I/O: gemm.c runs what this builds.
 *
 * C (M x N) = op(A) (M x K) * op(B) (K x N) on an n x n array.
 *
 * B becomes an "image" of KT x NT tiles (KT = ceil(K/n), NT = ceil(N/n)),
 * tile (kt, nt) at element ((kt*NT + nt)*n + r)*n + c holding
 * op(B)[kt*n + r][nt*n + c]; rows beyond K hold -0 (0x8000), columns beyond
 * N +0 (docs/numerics.md, Padding). A UB vector is n consecutive k of one
 * row of op(A), +0 beyond K.
 *
 * The work is cut into chunks: mc rows of A (M), ntc n-tiles (N), ktc
 * k-tiles (K); m-chunk outer, then n-block, then k-block. The chunks of one
 * (m-chunk, n-block) pair form an output block: they accumulate in the
 * same ACC rows, and its results leave with one HOST_WRITE after its last
 * k-block. Within a chunk (tiles numbered from the chunk's first, _g from
 * the GEMM's):
 *
 *   UB [ub  + kt*mc + m]         row m of A's k-tile kt
 *   ACC[acc + nt*mc + m]         row m of C's n-tile nt
 *   WM [(kt_g*NT + nt_g)*n]      tile (kt, nt) when B is whole: all of B
 *                                 sits at WM rows [0, KT*NT*n), sent in the
 *                                 chunks of the first m-chunk (or not at
 *                                 all when already resident)
 *   WM [(kt*ntc + nt)*n]         otherwise: the chunk's block of B, sent
 *                                 with every chunk
 *
 * Per k-tile of a chunk the program is: HOST_READ A's k-tile, HOST_READ
 * the k-tile's row of B tiles (when due), then (LOAD_WEIGHTS, MATMUL SWAP
 * [ACCUMULATE unless k-tile 0 of K]) per n-tile. So the data of k-tile
 * kt + 1 streams in while the MATMULs of kt run: they use other rows, and
 * a HOST_READ into WM waits only for tile loads in progress (docs/core.md).
 *
 * Double buffering: chunks alternate between the halves of UB, output
 * blocks between the halves of ACC, and the HOST_WRITE of a block is
 * placed after the first k-tile's MATMULs of the next chunk. So the
 * decoder (in order) never waits for a block's results before it reads
 * on, and the results of block i leave while block i + 1 streams in and
 * computes. Without it chunks reuse one region, and each block's
 * HOST_WRITE follows its last MATMUL: the next block's MATMULs wait for
 * it, and so do the reads behind them. The planner estimates both (halves
 * mean more chunks, and a B block resent per m-chunk costs more link than
 * the overlap saves) and takes the faster unless told otherwise. The
 * device runs any of these programs as if in order, so the choice is
 * about time only.
 */
#ifndef FTPU_GEMM_PLAN_H
#define FTPU_GEMM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftpu.h"

/*
 * Switches for benchmarks and tests, read by every ftpu_gemm() call. Not
 * locked: set them while no GEMM runs. All zero is the library's normal
 * behaviour.
 */
struct ftpu_gemm_tuning {
	bool no_residency;     /* always send B, never keep it resident */
	bool no_double_buffer; /* one region per memory, writes not delayed */
	bool force_double_buffer; /* double buffer whenever UB and ACC can be
				   * halved, not only when estimated faster */
	size_t max_rows;	  /* at most this many rows of A per chunk */
	size_t max_ktiles;	  /* at most this many k-tiles per chunk */
	size_t max_ntiles;	  /* at most this many n-tiles per chunk */
	size_t batch_words; /* program words per ftpu__execute (0: default) */
	bool b_resident;  /* (gemm.c) B is already in WM: free in the estimate */
	bool inject_fault;  /* tests: the last program ends with an
			     * unknown opcode, so the device faults */
};
extern struct ftpu_gemm_tuning ftpu__gemm_tuning;

/* Program words per ftpu__execute by default: a batch of whole chunks
 * (at least one) so the program buffer stays bounded for any M. */
#define FTPU_GEMM_BATCH_WORDS ((size_t)1 << 22)

/* The device memories a plan uses (ftpu_device_info, or a test's
 * ftpu_ref_device_config). */
struct ftpu_gemm_device {
	size_t n;	 /* ROWS = COLS, even */
	size_t ub;	 /* UB vectors */
	size_t acc;	 /* ACC vectors */
	size_t wm_tiles; /* WM tiles (rows / n) */
};

struct ftpu_gemm_plan {
	size_t n;		/* array size */
	size_t M, N, K, KT, NT; /* the GEMM; KT, NT tiles */
	size_t mc, ntc, ktc;	/* chunk sizes; the last of each may be less */
	size_t mchunks, nblocks, kblocks, chunks;
	bool b_whole;		  /* B sits whole at WM rows [0, KT*NT*n) */
	bool b_free;       /* ... and resident: not sent */
	bool db;		  /* double buffered */
	uint32_t ub_alt, acc_alt; /* base of the second half (db) */
	size_t image_elems;	  /* bf16 elements of the B image */
	size_t data_words;	  /* DATA words the whole GEMM sends: M*NT*n */
};

/* One operand as the caller stores it: f32 or bf16 (the other NULL),
 * row stride ld, transposed (op(X) = X^T) or not. */
struct ftpu_gemm_operand {
	const float *f32;
	const uint16_t *bf16;
	size_t ld;
	bool trans;
};

/*
 * Chooses chunk sizes for M x K x N on d: among the even splits that fit
 * the memories (UB and ACC halved when double buffered), the least
 * estimated time (link bytes both ways, instructions, array cycles, what
 * overlaps: gemm_plan.c, plan_time), single or double buffered as t allows
 * (NULL: no limits). Returns FTPU_OK, FTPU_ERR_INVALID for zero sizes,
 * sizes whose B image or results would overflow size_t or that need more
 * than 2^48 chunks, FTPU_ERR_UNSUPPORTED for a device without the
 * memories for one tile (n odd or 0, a memory of 0).
 */
int ftpu__gemm_plan(const struct ftpu_gemm_device *d, size_t M, size_t N,
		    size_t K, const struct ftpu_gemm_tuning *t,
		    struct ftpu_gemm_plan *p);

/* Chunk c (0 <= c < p->chunks) of the plan, in program order. */
struct ftpu_gemm_chunk {
	size_t m0, mc, nt0, ntc, kt0, ktc;
	size_t block;	  /* output block: c / kblocks */
	bool last_k;	  /* the block's last k-block: its results are due */
	uint32_t ub, acc; /* UB and ACC base (its halves) */
};
void ftpu__gemm_chunk(const struct ftpu_gemm_plan *p, size_t c,
		      struct ftpu_gemm_chunk *ch);

/* fp32 -> bf16 of docs/numerics.md (ftpu_f32_to_bf16) for count values. */
void ftpu__gemm_pack_f32(const float *src, uint16_t *dst, size_t count);

/* Fills image (p->image_elems bf16) with B's tiles. */
void ftpu__gemm_pack_b(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *b, uint16_t *image);

/* A 64-bit content hash (xxHash64-style, seed 0) of bytes at data. */
uint64_t ftpu__gemm_hash(const void *data, size_t bytes);

/*
 * Program words of chunks [c0, c1): their reads and MATMULs and the
 * HOST_WRITE of every block whose last chunk is among them. send_b: whole B
 * is sent (with the chunks of the first m-chunk); ignored when !b_whole.
 */
size_t ftpu__gemm_words(const struct ftpu_gemm_plan *p, size_t c0, size_t c1,
			bool send_b);

/* The end of the batch that starts at chunk c0: the most chunks whose
 * words stay within budget, at least one. */
size_t ftpu__gemm_batch_end(const struct ftpu_gemm_plan *p, size_t c0,
			    bool send_b, size_t budget);

/* DATA words of the blocks that chunks [c0, c1) complete. */
size_t ftpu__gemm_data_words(const struct ftpu_gemm_plan *p, size_t c0,
			     size_t c1);

/*
 * Writes the program of chunks [c0, c1) into w (ftpu__gemm_words() words),
 * A packed from a, B's tiles copied from image (when sent). scratch holds
 * p->mc * p->n bf16. Returns the words written.
 */
size_t ftpu__gemm_emit(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *a, const uint16_t *image,
		       bool send_b, size_t c0, size_t c1, uint16_t *scratch,
		       uint32_t *w);

/*
 * Stores the DATA words of the whole GEMM (p->data_words, in program
 * order) into C (row stride ldc): C = alpha * R + beta * C in fp32, each
 * operation rounded on its own in the caller's floating-point environment;
 * R's bits exactly when alpha == 1 and beta == 0; C is not read when
 * beta == 0.
 */
void ftpu__gemm_store(const struct ftpu_gemm_plan *p, const uint32_t *data,
		      float alpha, float beta, float *c, size_t ldc);

#endif /* FTPU_GEMM_PLAN_H */
