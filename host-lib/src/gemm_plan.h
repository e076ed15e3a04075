/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_plan.h - the one tiled-GEMM planner and emitter of libftpu: how
 * ftpu_gemm() tiles a GEMM for a device and writes the device program
 * (docs/isa.md), and how the graph compiler (compile.c) lowers each matmul
 * layer. Internal to libftpu; tests and benchmarks drive it directly. No
 * locking, no I/O: gemm.c and compile.c run or keep what this builds.
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
 * same ACC rows, and its results leave after its last k-block. Within a
 * chunk (tiles numbered from the chunk's first, _g from the GEMM's; the
 * bases ub, acc, wm are the plan's, 0 unless the caller moves them):
 *
 *   UB [ub  + kt*mc + m]         row m of A's k-tile kt
 *   ACC[acc + nt*mc + m]         row m of C's n-tile nt
 *   WM [wm + (kt_g*NT + nt_g)*n] tile (kt, nt) when B is whole: all of B
 *                                 sits at WM rows wm + [0, KT*NT*n), sent in
 *                                 the chunks of the first m-chunk (or not
 *                                 at all when already resident)
 *   WM [wm + (kt*ntc + nt)*n]    otherwise: the chunk's block of B, sent
 *                                 with every chunk
 *   UB [act.ub + nt*mc + m]      an activation's row m of n-tile nt (bf16)
 *   BIAS[act.bias_at + nt]       its bias when sent with every block;
 *   BIAS[act.bias_at + nt_g]     when resident
 *
 * Per k-tile of a chunk the program is: HOST_READ A's k-tile (unless A is
 * resident), HOST_READ the k-tile's row of B tiles (when due), then
 * (LOAD_WEIGHTS, MATMUL SWAP [ACCUMULATE unless k-tile 0 of K and no C0])
 * per n-tile (with opts.a_first all of A's k-tiles come first). So the
 * data of k-tile kt + 1 streams in while the MATMULs of
 * kt run: they use other rows, and a HOST_READ into WM waits only for tile
 * loads in progress (docs/core.md). With a C0 (opts.c_in) a block's first
 * chunk starts with a HOST_READ ACC of it. A block's tail: acc_writes
 * HOST_WRITEs of its ACC rows, then per activation a HOST_READ BIAS (when
 * sent), one ACTIVATE per n-tile and its HOST_WRITEs of UB. So its DATA
 * words are [copy][n-tile][row][column] fp32, then per activation
 * [copy][n-tile][row][column] bf16 pairs.
 *
 * Double buffering: chunks alternate between the halves of UB, output
 * blocks between the halves of ACC (and their activations and sent biases
 * between halves of UB and BIAS), and the tail of a block is placed after
 * the first k-tile's MATMULs of the next chunk. So the decoder (in order)
 * never waits for a block's results before it reads on, and the results
 * of block i leave while block i + 1 streams in and computes. Without it
 * chunks reuse one region, and each block's tail follows its last MATMUL:
 * the next block's MATMULs wait for it, and so do the reads behind them.
 * The planner estimates both (halves mean more chunks, and a B block
 * resent per m-chunk costs more link than the overlap saves) and takes the
 * faster unless told otherwise. The device runs any of these programs as
 * if in order, so the choice is about time only.
 *
 * The graph compiler fixes the chunks (ftpu__gemm_plan_fixed: its mc, all
 * of K and N in one chunk), places the regions itself, keeps B and the
 * biases resident, reads A from the host only in the first layer that
 * uses an input (its data filled in at run time: a deferred operand) and
 * leaves a layer's activations in UB for the next layer's A.
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
 * ftpu_ref_device_config): what the GEMM's regions may take. */
struct ftpu_gemm_device {
	size_t n;	 /* ROWS = COLS, even */
	size_t ub;	 /* UB vectors */
	size_t acc;	 /* ACC vectors */
	size_t wm_tiles; /* WM tiles (rows / n) */
	size_t link_bytes; /* bytes the link moves a cycle (INFO LINK_BYTES;
			    * 0 counts as 1) */
};

/* One ACTIVATE of every block's results into UB (bf16): UB[ub + nt*mc + m]
 * (in the block's half when double buffered), with a bias or -0. */
struct ftpu_gemm_act {
	bool relu;
	bool bias;	  /* add the bias at bias_at */
	const float *bias_values; /* N values sent with every block (+0
				   * beyond N); NULL: resident in BIAS */
	uint32_t ub, bias_at;
	unsigned writes;  /* HOST_WRITEs of it per block (outputs) */
};

/* Where A comes from when the operand has no data (a deferred A): the
 * caller fills in the inline data of the HOST_READ of rows [m0, m0 + mc)
 * of k-tiles [kt, kt + tiles) at word `at` of the words (ftpu__gemm_emit's
 * w), vector (t, m) at word at + (t*mc + m)*n/2. */
typedef void ftpu_gemm_a_at_fn(void *ctx, size_t m0, size_t mc, size_t kt,
			       size_t tiles, size_t at);

/* What the program does besides C = op(A) op(B) into ACC. ftpu__gemm_plan
 * uses ftpu_gemm's: A and B sent, one HOST_WRITE of ACC, nothing else. */
struct ftpu_gemm_opts {
	bool a_resident;  /* A's k-tiles are in UB already: no HOST_READ */
	bool a_first;	  /* a chunk reads all its k-tiles of A before its
			   * MATMULs, in as few HOST_READs as fit (the
			   * compiler's, whose inputs' pieces are fewer) */
	bool b_resident;  /* B's tiles are in WM already (whole or the
			   * chunk's block): never sent */
	const float *c_in; /* M x N (row stride N): each block's first chunk
			    * reads its part into ACC and every MATMUL
			    * accumulates onto it */
	unsigned acc_writes; /* HOST_WRITEs of ACC per block */
	const struct ftpu_gemm_act *acts; /* n_acts activations */
	size_t n_acts;
	ftpu_gemm_a_at_fn *a_at; /* deferred A (see above) */
	void *ctx;
	size_t bias_vectors; /* BIAS the sent biases may take (halved when
			      * double buffered) */
};

struct ftpu_gemm_plan {
	size_t n;		/* array size */
	size_t link_bytes;	/* the link's bytes a cycle (>= 1) */
	size_t M, N, K, KT, NT; /* the GEMM; KT, NT tiles */
	size_t mc, ntc, ktc;	/* chunk sizes; the last of each may be less */
	size_t mchunks, nblocks, kblocks, chunks;
	bool b_whole;		  /* B sits whole at WM rows wm + [0, KT*NT*n) */
	bool b_free;       /* ... and resident: not sent */
	bool db;		  /* double buffered */
	struct ftpu_gemm_opts o;  /* what the program does */
	/* Region bases (0 from the planner; the caller may move them within
	 * what it planned with) and, double buffered, the offset of the
	 * second half of UB, ACC and BIAS. */
	uint32_t ub, acc, wm;
	uint32_t ub_step, acc_step, bias_step;
	size_t image_elems;	  /* bf16 elements of the B image */
	size_t data_words;	  /* DATA words the whole GEMM sends */
};

/* One operand as the caller stores it: f32 or bf16 (the other NULL),
 * row stride ld, transposed (op(X) = X^T) or not. Neither: A deferred. */
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

/* The same with options o (NULL: ftpu_gemm's): UB budgets for each
 * activation ntc*mc more vectors per chunk, BIAS ntc per sent bias. The
 * activations' ub and bias_at are the caller's to place. */
int ftpu__gemm_plan_opts(const struct ftpu_gemm_device *d, size_t M, size_t N,
			 size_t K, const struct ftpu_gemm_tuning *t,
			 const struct ftpu_gemm_opts *o,
			 struct ftpu_gemm_plan *p);

/* A plan of the caller's chunk sizes (mc <= 65535, ntc <= NT, ktc <= KT),
 * single buffered, B whole when b_whole: the graph compiler's, whose
 * memory plan has placed everything. FTPU_ERR_INVALID for sizes out of
 * range. */
int ftpu__gemm_plan_fixed(size_t n, size_t M, size_t N, size_t K, size_t mc,
			  size_t ntc, size_t ktc, bool b_whole,
			  const struct ftpu_gemm_opts *o,
			  struct ftpu_gemm_plan *p);

/* Chunk c (0 <= c < p->chunks) of the plan, in program order. */
struct ftpu_gemm_chunk {
	size_t m0, mc, nt0, ntc, kt0, ktc;
	size_t block;	  /* output block: c / kblocks */
	bool last_k;	  /* the block's last k-block: its results are due */
	uint32_t ub, acc; /* UB and ACC base (its halves) */
	uint32_t ub_out, bias_out; /* the block's half: added to the
				    * activations' ub and sent bias_at */
};
void ftpu__gemm_chunk(const struct ftpu_gemm_plan *p, size_t c,
		      struct ftpu_gemm_chunk *ch);

/* fp32 -> bf16 of docs/numerics.md (ftpu_f32_to_bf16) for count values. */
void ftpu__gemm_pack_f32(const float *src, uint16_t *dst, size_t count);

/* Fills image (p->image_elems bf16) with B's tiles. */
void ftpu__gemm_pack_b(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *b, uint16_t *image);

/* HOST_READs of the whole image into WM at p->wm (pieces of whole tiles),
 * for a B kept resident; w NULL: only counts. Returns the words. */
size_t ftpu__gemm_emit_image(const struct ftpu_gemm_plan *p,
			     const uint16_t *image, uint32_t *w);

/* HOST_READ BIAS at `at` of n-tiles [nt0, nt0 + ntc) of bias (p->N values,
 * +0 beyond N); w NULL: only counts. Returns the words. */
size_t ftpu__gemm_emit_bias(const struct ftpu_gemm_plan *p, const float *bias,
			    size_t nt0, size_t ntc, uint32_t at, uint32_t *w);

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
 * Writes the program of chunks [c0, c1) into w (ftpu__gemm_words() words;
 * NULL: only counts), A packed from a (unused with a resident A; a
 * deferred A is zeros and told to p->o.a_at), B's tiles copied from image
 * (when sent). scratch holds p->mc * p->n bf16. Returns the words.
 */
size_t ftpu__gemm_emit(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *a, const uint16_t *image,
		       bool send_b, size_t c0, size_t c1, uint16_t *scratch,
		       uint32_t *w);

/*
 * Stores the DATA words of the whole GEMM (p->data_words, in program
 * order; one HOST_WRITE of ACC per block, no activation) into C (row stride ldc): C = alpha * R + beta * C in fp32, each
 * operation rounded on its own in the caller's floating-point environment;
 * R's bits exactly when alpha == 1 and beta == 0; C is not read when
 * beta == 0.
 */
void ftpu__gemm_store(const struct ftpu_gemm_plan *p, const uint32_t *data,
		      float alpha, float beta, float *c, size_t ldc);

#endif /* FTPU_GEMM_PLAN_H */
