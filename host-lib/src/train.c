/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train.c - training on the device (ftpu_train_*, docs/training.md): the
 * step of a dense ReLU network compiled once into two device programs
 * that keep the fp32 weights, biases and optimizer slots in the
 * accumulator memory (the vector memory, docs/vector.md).
 *
 *   forward   the weights' bf16 tiles (CONVERT into WM, beside the first
 *             layer's matmuls); X (bf16 or bytes, sent) -> UB; per layer
 *             Z = A W (tiles in WM), + b, ReLU (VMAX), bf16 copy into UB
 *             for the next layer; the last layer's Z (the logits, fp32)
 *             goes to the host.
 *   host      softmax cross-entropy: the loss and dZ = (softmax - onehot)
 *             / rows, sent back as bf16 (the device has no exp).
 *   backward  per layer, last first: dZ^T into UB (CONVERT TRANSPOSE),
 *             db = the sum of dZ over the batch (a fixed tree of VADDs),
 *             dW^T = dZ^T A (A's tiles in WM: X's sent there with it,
 *             the others copied), dA = dZ W^T,
 *             dZ of the layer below = dA where its output was > 0 (VSEL);
 *             W's update beside the next rows' dW^T matmuls, then the
 *             biases'.
 *
 * Layouts (N = the array's size, Bp = the batch rounded up to N, D = a
 * width rounded up to N, "[a][b]" = vector index a * |b| + b):
 *   activations, Z, dZ    [unit chunk][batch row], lanes = N units
 *   dZ^T (UB)             [batch chunk][unit], lanes = N batch rows
 *   W_l master (ACC)      [input chunk][output unit], lanes = N inputs,
 *                         i.e. W^T in N x N blocks: the layout dW^T = dZ^T A
 *                         produces, so the update needs no shuffling
 *   b_l master (ACC)      [output chunk], lanes = N outputs
 * Padding lanes and rows hold zeros and get zero gradients, so they stay
 * zero (docs/training.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "isa.h"
#include "numeric.h"
#include "train.h"
#include "train_host.h"

/* The constants vectors in ACC (each N equal lanes), at acc_k + index. */
enum {
	K_ZERO, K_NEG_ZERO, K_HALF, K_THREE_HALVES, K_MINUS_ONE, K_TWO,
	K_RSQRT_MAGIC, K_RECIP_MAGIC, K_EPSILON, K_DELTA, K_C1, K_C2,
	K_NEG_LR, K_MOMENTUM, K_ALPHA, K_COUNT
};

/* Vector instructions address ACC with 16 bits. */
#define VEC_ADDR_LIMIT 65536u
#define MAX_N 65535u
/* HOST_READs (of at most MAX_N vectors) it takes to fill the whole of it */
#define VEC_PIECES ((VEC_ADDR_LIMIT + MAX_N - 1) / MAX_N)

struct layer {
	uint32_t in, out;   /* widths */
	uint32_t kc, oc;    /* chunks of in and out (ceil / N) */
	uint32_t pw, pb;    /* W and b in the parameter region (vectors) */
	uint32_t z, dz;     /* ACC: Z (then ReLU'd), dZ: oc * Bp each */
	uint32_t ub_in;     /* UB: the layer's input A, kc * Bp (bf16) */
	uint32_t ub_dz;     /* UB: dZ as bf16, oc * Bp (layers above the first) */
	uint32_t wm_fwd;    /* WM rows: W's tiles (kc x oc) */
	uint32_t wm_bwd;    /* WM rows: W^T's tiles (oc x kc), layers above the first */
	uint32_t wm_act;    /* WM rows: A's tiles (batch chunks x kc) */
	size_t flat_w, flat_b; /* offsets in the flat arrays of ftpu_train_read */
};

struct words {
	uint32_t *w;
	size_t n, cap;
	bool oom;
};

struct ftpu_trainer {
	ftpu_device *dev;
	struct ftpu_train_config cfg;
	size_t widths[FTPU_TRAIN_MAX_LAYERS + 1];
	uint32_t N, Bp, bc;  /* array size, padded batch, batch chunks */
	struct layer L[FTPU_TRAIN_MAX_LAYERS];
	uint32_t pn;         /* parameter vectors */
	uint32_t acc_p, acc_m, acc_v, acc_g, acc_k, acc_t[4], chunk;
	uint32_t ub_dzt;     /* dZ^T of the layer being done */
	size_t flat;         /* ftpu_train_size() */

	struct words fwd, bwd;
	/* X's inline data: piece j (batch rows [j * x_piece, + x_piece)) of input
	 * chunk kc at fwd.w + x_at[kc * x_pieces + j] (SIZE_MAX: no rows) */
	size_t *x_at;
	uint32_t x_pieces, x_piece;
	size_t bwd_dz_at, bwd_alpha_at;
	/* the two halves of a step for replicas (ftpu_train_gradient/_apply),
	 * compiled on first use: the backward pass without the update, ending
	 * with the gradient sent to the host; the gradient received and the
	 * update. grad_data: the gradient's DATA words. */
	struct words bwdg, apply;
	size_t bwdg_dz_at, apply_alpha_at, apply_g_at[VEC_PIECES];
	uint32_t *grad_data;
	/* the gradient leaves in pieces as the backward pass finishes them:
	 * vector v of the gradient region is DATA vector grad_order[v] */
	uint32_t *grad_order, grad_sent;
	uint32_t *data;      /* DATA words: the logits */
	size_t data_words;
	/* words a vector of the logits' last chunk comes in: its lanes with
	 * HOST_WRITE WORDS (protocol 1.3), else N */
	uint32_t last_words;
	float *lg, *dz;      /* host scratch: the logits and their gradient */
	/* the state on the host, matmuls through ftpu_gemm (train_host.c);
	 * NULL for a trainer on the device */
	struct ftpu__host_trainer *host;

	uint64_t steps, runs;
	bool failed;
	/* ftpu__train_create_share: the forward pass leaves out the last
	 * layer's bias */
	bool partial_logits;
	/* ftpu__train_forward's rows, for ftpu__train_backward; 0: none (any
	 * other program since) */
	size_t forward_rows;
	struct ftpu_train_stats st;
};

/* ---- emitting instructions ---------------------------------------------------- */

static void emit_words(struct words *p, const uint32_t *w, size_t n)
{
	if (p->oom)
		return;
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		while (cap < p->n + n)
			cap *= 2;
		uint32_t *nw = realloc(p->w, cap * sizeof(*nw));
		if (!nw) {
			p->oom = true;
			return;
		}
		p->w = nw, p->cap = cap;
	}
	memcpy(p->w + p->n, w, n * sizeof(*w));
	p->n += n;
}

static void emit(struct words *p, unsigned op, unsigned flags, uint32_t n, uint32_t a, uint32_t b)
{
	uint32_t w[FTPU_ISA_WORDS];
	ftpu_isa_encode(w, op, flags, n, a, b);
	emit_words(p, w, FTPU_ISA_WORDS);
}

/* Room for n vectors of inline data after a HOST_READ (zeros for now);
 * returns the word offset of the data. */
static size_t emit_data(struct words *p, size_t words)
{
	size_t at = p->n;
	while (words && !p->oom) {
		static const uint32_t zeros[256];
		size_t k = words < 256 ? words : 256;
		emit_words(p, zeros, k);
		words -= k;
	}
	return at;
}

/* A vector instruction over n vectors, split into counts the encoding
 * takes; FIXED operands stay, the others advance. */
static void vop(struct words *p, unsigned op, unsigned flags, uint32_t n, uint32_t a, uint32_t b,
		uint32_t c, uint32_t d)
{
	while (n) {
		uint32_t k = n < MAX_N ? n : MAX_N;
		uint32_t w[FTPU_ISA_WORDS];
		ftpu_isa_encode(w, op, flags, k, a | b << 16, d | c << 16);
		emit_words(p, w, FTPU_ISA_WORDS);
		a += k, d += k, n -= k;
		if (!(flags & FTPU_VECTOR_B_FIXED))
			b += k;
		if (!(flags & FTPU_VECTOR_C_FIXED) && (op == FTPU_OP_VMAC || op == FTPU_OP_VSEL))
			c += k;
	}
}

/* CONVERT (ACC -> mem) or COPY, split at multiples of N when transposed. */
static void move(struct words *p, unsigned op, unsigned flags, uint32_t n, uint32_t src,
		 uint32_t dst, uint32_t N)
{
	bool transpose = op == FTPU_OP_CONVERT ? flags & FTPU_TRANSPOSE_CONVERT
					       : flags & FTPU_TRANSPOSE_COPY;
	uint32_t max = transpose ? MAX_N / N * N : MAX_N;
	while (n) {
		uint32_t k = n < max ? n : max;
		emit(p, op, flags, k, src, dst);
		src += k, dst += k, n -= k;
	}
}

#define COPY_FLAGS(from, to) ((unsigned)(from) | (unsigned)(to) << 2)

/* A tile from WM row wm_row, then n UB vectors from ub through it into ACC
 * from acc (added to what is there unless first). */
static void tile_matmul(struct words *p, uint32_t wm_row, bool first, uint32_t n, uint32_t ub,
			uint32_t acc)
{
	emit(p, FTPU_OP_LOAD_WEIGHTS, 0, 1, wm_row, 0);
	emit(p, FTPU_OP_MATMUL, FTPU_MATMUL_SWAP | (first ? 0 : FTPU_MATMUL_ACCUMULATE), n, ub, acc);
}

/* ---- the programs ------------------------------------------------------------- */

/* The forward pass's bf16 tiles of W, tiles [i0, i0 + n) (tile i: input
 * chunk i / oc, output chunk i % oc). */
static void emit_fwd_tiles(ftpu_trainer *t, struct words *p, const struct layer *y, uint32_t i0,
			   uint32_t n)
{
	const uint32_t N = t->N;
	move(p, FTPU_OP_CONVERT, FTPU_MEM_WM | FTPU_TRANSPOSE_CONVERT, n * N,
	     t->acc_p + y->pw + i0 * N, y->wm_fwd + i0 * N, N);
}

/* Every layer's tiles but the first one's forward tiles: W for the
 * forward pass, W^T for propagating gradients down (layers above the
 * first). */
static void emit_other_tiles(ftpu_trainer *t, struct words *p)
{
	for (size_t l = 1; l < t->cfg.n_layers; l++) {
		const struct layer *y = &t->L[l];
		emit_fwd_tiles(t, p, y, 0, y->kc * y->oc);
		move(p, FTPU_OP_CONVERT, FTPU_MEM_WM, y->kc * y->oc * t->N, t->acc_p + y->pw,
		     y->wm_bwd, t->N);
	}
}

/* The forward pass converts the fp32 weights into the tiles it and the
 * backward pass multiply, so the tiles never lag the weights (an update,
 * ftpu_train_write). A CONVERT into WM runs beside the matrix unit
 * (docs/vector.md): the first layer's tiles of input chunk kc + 1 are
 * converted while the array multiplies chunk kc, a tile after each piece
 * of X (a piece, which also goes into WM, waits for a CONVERT), the other
 * layers' tiles beside its last chunk; only chunk 0's run before the array
 * starts, between X's first pieces. */
static void emit_forward(ftpu_trainer *t, struct words *p)
{
	const uint32_t N = t->N, Bp = t->Bp;
	const size_t nl = t->cfg.n_layers;

	/* X in pieces of batch rows, chunk kc + 1's spread over the first
	 * layer's matmuls on chunk kc: the decoder takes a piece while the
	 * array streams a matmul (the next one dispatches only as this one's
	 * last vector issues), so the link and the array overlap; the sums go
	 * in the same order. Each piece goes into WM as well (HOST_READ
	 * ALSO_WM): X's tiles for the first layer's weight gradient. */
	const struct layer *first = &t->L[0];
	const bool u8 = t->cfg.input == FTPU_TRAIN_INPUT_U8;
	const uint32_t pieces = first->oc, piece = (Bp + pieces - 1) / pieces;
	free(t->x_at);
	t->x_at = malloc((size_t)first->kc * pieces * sizeof(*t->x_at));
	if (!t->x_at) {
		p->oom = true;
		return;
	}
	t->x_pieces = pieces, t->x_piece = piece;
	for (uint32_t kc = 0; kc <= first->kc; kc++)
		for (uint32_t oc = 0; oc < first->oc; oc++) {
			if (kc > 0)
				tile_matmul(p, first->wm_fwd + ((kc - 1) * first->oc + oc) * N, kc == 1,
					    Bp, first->ub_in + (kc - 1) * Bp, first->z + oc * Bp);
			if (kc == first->kc) {
				if (oc == 0)
					emit_other_tiles(t, p);
				continue;
			}
			const uint32_t v0 = oc * piece;
			const uint32_t n = v0 < Bp ? (Bp - v0 < piece ? Bp - v0 : piece) : 0;
			size_t *at = &t->x_at[kc * pieces + oc];
			*at = SIZE_MAX;
			if (n) {
				emit(p, FTPU_OP_HOST_READ, FTPU_MEM_UB | FTPU_HOST_READ_ALSO_WM |
				     (u8 ? FTPU_HOST_READ_U8 : 0), n, first->ub_in + kc * Bp + v0,
				     first->wm_act + kc * Bp + v0);
				*at = emit_data(p, (size_t)n * (u8 ? (N + 3) / 4 : N / 2));
			}
			emit_fwd_tiles(t, p, first, kc * first->oc + oc, 1);
		}
	for (size_t l = 0; l < nl; l++) {
		const struct layer *y = &t->L[l];
		for (uint32_t kc = 0; l > 0 && kc < y->kc; kc++)
			for (uint32_t oc = 0; oc < y->oc; oc++)
				tile_matmul(p, y->wm_fwd + (kc * y->oc + oc) * N, kc == 0, Bp,
					    y->ub_in + kc * Bp, y->z + oc * Bp);
		/* a share of a split model's last layer (all but the first share)
		 * sends its logits without the bias: the shares' sum adds it once */
		for (uint32_t oc = 0; oc < y->oc && !(t->partial_logits && l + 1 == nl); oc++)
			vop(p, FTPU_OP_VADD, FTPU_VECTOR_B_FIXED, Bp, y->z + oc * Bp,
			    t->acc_p + y->pb + oc, 0, y->z + oc * Bp);
		if (l + 1 < nl) {
			vop(p, FTPU_OP_VMAX, FTPU_VECTOR_B_FIXED, y->oc * Bp, y->z,
			    t->acc_k + K_ZERO, 0, y->z);
			move(p, FTPU_OP_CONVERT, FTPU_MEM_UB, y->oc * Bp, y->z, t->L[l + 1].ub_in, N);
		}
	}
	/* The logits: whole vectors but for the last chunk's (10 classes: 10 of
	 * 16 lanes, 5 KB of a batch of 128 instead of 8 KB). */
	const struct layer *top = &t->L[nl - 1];
	if (top->oc > 1)
		emit(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, (top->oc - 1) * Bp, top->z, 0);
	if (t->last_words < N)
		emit(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | FTPU_HOST_WRITE_WORDS, Bp,
		     top->z + (top->oc - 1) * Bp, t->last_words);
	else
		emit(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, Bp, top->z + (top->oc - 1) * Bp, 0);
}

/* Sums the Bp vectors at base into dst, pairwise from both ends: a fixed
 * order, so every device and the host's mirror give the same bits. */
static void emit_tree_sum(ftpu_trainer *t, struct words *p, uint32_t base, uint32_t dst)
{
	uint32_t n = t->Bp;
	while (n > 1) {
		uint32_t h = n / 2;
		vop(p, FTPU_OP_VADD, 0, h, base, base + n - h, 0, n - h == 1 ? dst : base);
		n -= h;
	}
	if (t->Bp == 1)
		vop(p, FTPU_OP_VADD, FTPU_VECTOR_B_FIXED, 1, base, t->acc_k + K_NEG_ZERO, 0, dst);
}

static void emit_adam(ftpu_trainer *t, struct words *p, uint32_t o, uint32_t n)
{
	const unsigned B = FTPU_VECTOR_B_FIXED, BC = FTPU_VECTOR_B_FIXED | FTPU_VECTOR_C_FIXED;
	const uint32_t g = t->acc_g + o, m = t->acc_m + o, v = t->acc_v + o, w = t->acc_p + o;
	const uint32_t T1 = t->acc_t[0], T2 = t->acc_t[1], T3 = t->acc_t[2], T4 = t->acc_t[3];
	const uint32_t k = t->acc_k;

	/* m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2) */
	vop(p, FTPU_OP_VSUB, 0, n, g, m, 0, T1);
	vop(p, FTPU_OP_VMAC, B, n, T1, k + K_C1, m, m);
	vop(p, FTPU_OP_VMUL, 0, n, g, g, 0, T1);
	vop(p, FTPU_OP_VSUB, 0, n, T1, v, 0, T1);
	vop(p, FTPU_OP_VMAC, B, n, T1, k + K_C2, v, v);
	/* T1 = sqrt(v + delta) = (v + delta) / sqrt(v + delta) */
	vop(p, FTPU_OP_VADD, B, n, v, k + K_DELTA, 0, T1);
	vop(p, FTPU_OP_VSEED, B | FTPU_VECTOR_HALF, n, T1, k + K_RSQRT_MAGIC, 0, T2);
	vop(p, FTPU_OP_VMUL, B, n, T1, k + K_HALF, 0, T3);
	for (int i = 0; i < RSQRT_STEPS; i++) {
		vop(p, FTPU_OP_VMUL, 0, n, T2, T2, 0, T4);
		vop(p, FTPU_OP_VMUL, 0, n, T3, T4, 0, T4);
		vop(p, FTPU_OP_VMAC, BC, n, T4, k + K_MINUS_ONE, k + K_THREE_HALVES, T4);
		vop(p, FTPU_OP_VMUL, 0, n, T2, T4, 0, T2);
	}
	vop(p, FTPU_OP_VMUL, 0, n, T1, T2, 0, T1);
	/* T2 = 1 / (sqrt + epsilon) */
	vop(p, FTPU_OP_VADD, B, n, T1, k + K_EPSILON, 0, T1);
	vop(p, FTPU_OP_VSEED, B, n, T1, k + K_RECIP_MAGIC, 0, T2);
	for (int i = 0; i < RECIP_STEPS; i++) {
		vop(p, FTPU_OP_VMUL, 0, n, T1, T2, 0, T4);
		vop(p, FTPU_OP_VMAC, BC, n, T4, k + K_MINUS_ONE, k + K_TWO, T4);
		vop(p, FTPU_OP_VMUL, 0, n, T2, T4, 0, T2);
	}
	/* w -= (m alpha) / (sqrt(v) + epsilon) */
	vop(p, FTPU_OP_VMUL, B, n, m, k + K_ALPHA, 0, T3);
	vop(p, FTPU_OP_VMUL, 0, n, T3, T2, 0, T3);
	vop(p, FTPU_OP_VSUB, 0, n, w, T3, 0, w);
}

static void emit_sgd(ftpu_trainer *t, struct words *p, uint32_t o, uint32_t n)
{
	const unsigned B = FTPU_VECTOR_B_FIXED;
	const uint32_t g = t->acc_g + o, m = t->acc_m + o, w = t->acc_p + o, T1 = t->acc_t[0];
	/* m = m momentum - g lr; w += m (Keras' SGD) */
	vop(p, FTPU_OP_VMUL, B, n, g, t->acc_k + K_NEG_LR, 0, T1);
	vop(p, FTPU_OP_VMAC, B, n, m, t->acc_k + K_MOMENTUM, T1, m);
	vop(p, FTPU_OP_VADD, 0, n, w, m, 0, w);
}

/* The optimizer's update of parameter vectors [o, o + n), in pieces its
 * temporaries hold. */
static void emit_update(ftpu_trainer *t, struct words *p, uint32_t o, uint32_t n)
{
	while (n) {
		uint32_t k = n < t->chunk ? n : t->chunk;
		if (t->cfg.optimizer == FTPU_OPTIMIZER_ADAM)
			emit_adam(t, p, o, k);
		else
			emit_sgd(t, p, o, k);
		o += k, n -= k;
	}
}

/* W's update runs on the vector unit while the array computes the next
 * rows of dW^T (ftpu_core_hazards lets a vector op run beside MATMULs off
 * its rows): rows of at least this many vectors go together, so the
 * unit's fixed cost per instruction stays small. */
#define UPDATE_GROUP_VECTORS 256

/* Copies u's instructions from *at up to instruction number until. */
static void splice(struct words *p, const struct words *u, size_t *at, size_t until)
{
	size_t end = until * FTPU_ISA_WORDS < u->n ? until * FTPU_ISA_WORDS : u->n;
	if (u->oom)
		p->oom = true;
	if (*at < end) {
		emit_words(p, u->w + *at, end - *at);
		*at = end;
	}
}

/* Sends gradient vectors [o, o + n) to the host (ftpu_train_gradient's
 * program): the output unit reads them while the array computes the next
 * ones (ftpu_core_hazards: a HOST_WRITE waits only for the MATMULs that
 * write its rows). */
static void emit_gradient_out(ftpu_trainer *t, struct words *p, uint32_t o, uint32_t n)
{
	emit(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, n, t->acc_g + o, 0);
	for (uint32_t i = 0; i < n && t->grad_order; i++)
		t->grad_order[o + i] = t->grad_sent++;
}

/* dW^T = dZ^T A for layer y, input chunk kc's D outputs summed over batch
 * chunks, with W's update in groups: a group's update is spread over the
 * next group's matmuls (from its quarter on, so the array has work queued
 * when the update first waits for the rows it reads), the last one after. */
static void emit_weight_gradient(ftpu_trainer *t, struct words *p, const struct layer *y,
				 bool update)
{
	const uint32_t N = t->N, rows = y->oc * N;
	const uint32_t group = (UPDATE_GROUP_VECTORS + rows - 1) / rows;
	struct words u = {0};
	size_t at = 0;
	for (uint32_t k0 = 0; k0 < y->kc; k0 += group) {
		const uint32_t kn = y->kc - k0 < group ? y->kc - k0 : group;
		const size_t total = (size_t)kn * t->bc, skip = total / 4;
		const size_t ops = u.n / FTPU_ISA_WORDS;
		size_t i = 0;
		for (uint32_t kc = k0; kc < k0 + kn; kc++)
			for (uint32_t bc = 0; bc < t->bc; bc++) {
				tile_matmul(p, y->wm_act + (kc * t->bc + bc) * N, bc == 0, rows,
					    t->ub_dzt + bc * rows, t->acc_g + y->pw + kc * rows);
				i++;
				if (i > skip)
					splice(p, &u, &at, (ops * (i - skip) + total - skip - 1) /
							       (total - skip));
			}
		splice(p, &u, &at, ops);
		u.n = 0, at = 0;
		if (update)
			emit_update(t, &u, y->pw + k0 * rows, kn * rows);
		else
			emit_gradient_out(t, p, y->pw + k0 * rows, kn * rows);
	}
	splice(p, &u, &at, u.n / FTPU_ISA_WORDS);
	free(u.w);
}

/* A state region of ACC (pn vectors from base: the parameters, a slot, the
 * gradient) to the host, in HOST_WRITEs the encoding takes. */
static void emit_state_out(ftpu_trainer *t, struct words *p, uint32_t base)
{
	for (uint32_t o = 0; o < t->pn; o += MAX_N)
		emit(p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, t->pn - o < MAX_N ? t->pn - o : MAX_N,
		     base + o, 0);
}

/* The same region from the host: HOST_READs whose inline data start at
 * at[piece] (zeros; state_pack fills them). */
static void emit_state_in(ftpu_trainer *t, struct words *p, uint32_t base, size_t at[VEC_PIECES])
{
	for (uint32_t o = 0; o < t->pn; o += MAX_N) {
		uint32_t n = t->pn - o < MAX_N ? t->pn - o : MAX_N;
		emit(p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, n, base + o, 0);
		at[o / MAX_N] = emit_data(p, (size_t)n * t->N);
	}
}

static void flat_place(const ftpu_trainer *t, size_t i, uint32_t *vec, uint32_t *lane);

/* The flat values (ftpu_train_read's layout) from the region's DATA words,
 * and into emit_state_in's inline data (padding lanes stay the zeros they
 * were emitted as). */
static void state_unpack(const ftpu_trainer *t, const uint32_t *data, float *values)
{
	for (size_t i = 0; i < t->flat; i++) {
		uint32_t v, lane;
		flat_place(t, i, &v, &lane);
		values[i] = ftpu_f32_value(data[(size_t)v * t->N + lane]);
	}
}

static void state_pack(const ftpu_trainer *t, uint32_t *w, const size_t at[VEC_PIECES],
		       const float *values)
{
	for (size_t i = 0; i < t->flat; i++) {
		uint32_t v, lane;
		flat_place(t, i, &v, &lane);
		w[at[v / MAX_N] + (size_t)(v % MAX_N) * t->N + lane] = ftpu_f32_bits(values[i]);
	}
}

/* Adam's alpha_t for the next update (one vector of inline data). */
static size_t emit_alpha(ftpu_trainer *t, struct words *p)
{
	if (t->cfg.optimizer != FTPU_OPTIMIZER_ADAM)
		return 0;
	emit(p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, 1, t->acc_k + K_ALPHA, 0);
	return emit_data(p, t->N);
}

/* The backward pass; with update, the optimizer's update beside it (a
 * step), else the gradient goes to the host in pieces as they are done
 * (ftpu_train_gradient; t->grad_order says where each vector lands). */
static void emit_backward(ftpu_trainer *t, struct words *p, bool update, size_t *dz_at,
			  size_t *alpha_at)
{
	const uint32_t N = t->N, Bp = t->Bp;
	const size_t nl = t->cfg.n_layers;
	const struct layer *top = &t->L[nl - 1];

	emit(p, FTPU_OP_HOST_READ, FTPU_MEM_UB, top->oc * Bp, top->ub_dz, 0);
	*dz_at = emit_data(p, (size_t)top->oc * Bp * N / 2);
	if (update)
		*alpha_at = emit_alpha(t, p);
	/* the inputs of the layers above the first as tiles (batch chunk x
	 * input chunk) for dW; X's came with it (HOST_READ ALSO_WM) */
	for (size_t l = 1; l < nl; l++)
		move(p, FTPU_OP_COPY, COPY_FLAGS(FTPU_MEM_UB, FTPU_MEM_WM), t->L[l].kc * Bp,
		     t->L[l].ub_in, t->L[l].wm_act, N);
	/* the top dZ in fp32: through an identity tile (exact) */
	emit(p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
	for (uint32_t oc = 0; oc < top->oc; oc++)
		emit(p, FTPU_OP_MATMUL, oc ? 0 : FTPU_MATMUL_SWAP, Bp, top->ub_dz + oc * Bp,
		     top->dz + oc * Bp);

	for (size_t l = nl; l-- > 0;) {
		const struct layer *y = &t->L[l];
		/* dZ^T: block (oc, bc) to UB[bc][oc * N ..] */
		for (uint32_t oc = 0; oc < y->oc; oc++)
			for (uint32_t bc = 0; bc < t->bc; bc++)
				emit(p, FTPU_OP_CONVERT, FTPU_MEM_UB | FTPU_TRANSPOSE_CONVERT, N,
				     y->dz + oc * Bp + bc * N, t->ub_dzt + bc * y->oc * N + oc * N);
		if (l > 0 && l + 1 < nl)
			move(p, FTPU_OP_CONVERT, FTPU_MEM_UB, y->oc * Bp, y->dz, y->ub_dz, N);
		/* db (consumes dZ) */
		for (uint32_t oc = 0; oc < y->oc; oc++)
			emit_tree_sum(t, p, y->dz + oc * Bp, t->acc_g + y->pb + oc);
		if (!update)
			emit_gradient_out(t, p, y->pb, y->oc);
		/* dW^T and W's update */
		emit_weight_gradient(t, p, y, update);
		if (l == 0)
			break;
		/* dA = dZ W^T into the layer below's dZ, then its ReLU' */
		const struct layer *x = &t->L[l - 1];
		for (uint32_t oc = 0; oc < y->oc; oc++)
			for (uint32_t kc = 0; kc < y->kc; kc++)
				tile_matmul(p, y->wm_bwd + (kc * y->oc + oc) * N, oc == 0, Bp,
					    y->ub_dz + oc * Bp, x->dz + kc * Bp);
		vop(p, FTPU_OP_VSEL, FTPU_VECTOR_B_FIXED, x->oc * Bp, x->dz, t->acc_k + K_ZERO, x->z,
		    x->dz);
	}

	if (!update)
		return;
	for (size_t l = 0; l < nl; l++)
		emit_update(t, p, t->L[l].pb, t->L[l].oc);
}

/* The gradient from the host into ACC, and the update with it. */
static void emit_apply(ftpu_trainer *t, struct words *p)
{
	t->apply_alpha_at = emit_alpha(t, p);
	emit_state_in(t, p, t->acc_g, t->apply_g_at);
	emit_update(t, p, 0, t->pn);
}

/* ---- layout ------------------------------------------------------------------- */

static uint32_t chunks(size_t w, uint32_t N) { return (uint32_t)((w + N - 1) / N); }

/* Places everything; FTPU_ERR_SHAPE with the numbers when it does not fit. */
static int plan(ftpu_trainer *t, const struct ftpu_device_info *info, char *why, size_t len)
{
	const uint32_t N = info->rows;
	const size_t nl = t->cfg.n_layers;
	const bool adam = t->cfg.optimizer == FTPU_OPTIMIZER_ADAM;
	uint64_t pn = 0, ub = 0, wm = N, acc_act = 0, dzt = 0, flat = 0;

	t->N = N;
	if (t->cfg.batch > MAX_N - N) {
		snprintf(why, len, "batch %zu: at most %u rows a step", t->cfg.batch, MAX_N - N);
		return FTPU_ERR_SHAPE;
	}
	t->Bp = chunks(t->cfg.batch, N) * N;
	t->bc = t->Bp / N;
	for (size_t l = 0; l < nl; l++) {
		struct layer *y = &t->L[l];
		if (t->widths[l] > MAX_N - N || t->widths[l + 1] > MAX_N - N) {
			snprintf(why, len, "layer %zu: widths above %u", l + 1, MAX_N - N);
			return FTPU_ERR_SHAPE;
		}
		y->in = (uint32_t)t->widths[l], y->out = (uint32_t)t->widths[l + 1];
		y->kc = chunks(y->in, N), y->oc = chunks(y->out, N);
		y->flat_w = flat, y->flat_b = flat + (size_t)y->in * y->out;
		flat = y->flat_b + y->out;
		y->pw = (uint32_t)pn, pn += (uint64_t)y->kc * y->oc * N;
		y->pb = (uint32_t)pn, pn += y->oc;
		if (pn > VEC_ADDR_LIMIT)
			break;
		y->ub_in = (uint32_t)ub, ub += (uint64_t)y->kc * t->Bp;
		if (l > 0 && l + 1 < nl)
			y->ub_dz = (uint32_t)ub, ub += (uint64_t)y->oc * t->Bp;
		y->wm_fwd = (uint32_t)wm, wm += (uint64_t)y->kc * y->oc * N;
		if (l > 0)
			y->wm_bwd = (uint32_t)wm, wm += (uint64_t)y->kc * y->oc * N;
		if (l == 0)
			y->wm_act = (uint32_t)wm, wm += (uint64_t)y->kc * t->Bp;
		acc_act += 2ull * y->oc * t->Bp;
		if ((uint64_t)t->bc * y->oc * N > dzt)
			dzt = (uint64_t)t->bc * y->oc * N;
	}
	/* The inputs of the layers above the first as tiles are copied in by
	 * the backward pass, after the forward pass's last use of the first
	 * layer's forward tiles, so they share its rows when they fit there
	 * (a batch of 256 through 784-64-10 fits 16384 rows so). */
	uint64_t acts = 0;
	for (size_t l = 1; l < nl && pn <= VEC_ADDR_LIMIT; l++)
		acts += (uint64_t)t->L[l].kc * t->Bp;
	uint64_t act_at = acts <= (uint64_t)t->L[0].kc * t->L[0].oc * N ? t->L[0].wm_fwd : wm;
	if (act_at == wm)
		wm += acts;
	for (size_t l = 1; l < nl && pn <= VEC_ADDR_LIMIT; l++)
		t->L[l].wm_act = (uint32_t)act_at, act_at += (uint64_t)t->L[l].kc * t->Bp;
	struct layer *top = &t->L[nl - 1];
	top->ub_dz = (uint32_t)ub, ub += (uint64_t)top->oc * t->Bp;
	t->ub_dzt = (uint32_t)ub, ub += dzt;
	t->flat = flat;

	/* ACC: parameters, slots, gradients, constants, activations, then
	 * the optimizer's temporaries in what is left */
	uint64_t acc_lim = info->acc_vectors < VEC_ADDR_LIMIT ? info->acc_vectors : VEC_ADDR_LIMIT;
	uint64_t fixed = pn * (adam ? 4 : 3) + K_COUNT + acc_act;
	unsigned temps = adam ? 4 : 1;
	uint64_t chunk = fixed < acc_lim ? (acc_lim - fixed) / temps : 0;
	if (chunk > pn)
		chunk = pn;
	if (chunk > MAX_N)
		chunk = MAX_N;
	const uint64_t min_chunk = pn < N ? pn : N;
	if (ub > info->ub_vectors) {
		snprintf(why, len, "batch %zu needs %llu UB vectors (%llu KiB), the device has %u (%u KiB)",
			 t->cfg.batch, (unsigned long long)ub,
			 (unsigned long long)(ub * N * 2 / 1024), info->ub_vectors,
			 info->ub_vectors * N * 2 / 1024);
		return FTPU_ERR_SHAPE;
	}
	if (wm > (uint64_t)info->weight_tiles * N) {
		snprintf(why, len,
			 "the model and batch %zu need %llu weight-memory rows (%llu tiles), the "
			 "device has %u tiles",
			 t->cfg.batch, (unsigned long long)wm, (unsigned long long)(wm / N),
			 info->weight_tiles);
		return FTPU_ERR_SHAPE;
	}
	if (pn > VEC_ADDR_LIMIT || chunk < min_chunk) {
		snprintf(why, len,
			 "the model (%llu parameter vectors of %u) and batch %zu need %llu "
			 "accumulator vectors, the device has %llu (usable by the vector unit)",
			 (unsigned long long)pn, N, t->cfg.batch,
			 (unsigned long long)(fixed + temps * min_chunk), (unsigned long long)acc_lim);
		return FTPU_ERR_SHAPE;
	}
	t->pn = (uint32_t)pn;
	t->chunk = (uint32_t)chunk;
	t->acc_p = 0;
	t->acc_m = t->pn;
	t->acc_g = 2 * t->pn;
	t->acc_v = adam ? 3 * t->pn : t->acc_g; /* unused by SGD */
	uint32_t at = t->pn * (adam ? 4 : 3);
	t->acc_k = at, at += K_COUNT;
	for (size_t l = 0; l < nl; l++) {
		t->L[l].z = at, at += t->L[l].oc * t->Bp;
		t->L[l].dz = at, at += t->L[l].oc * t->Bp;
	}
	for (unsigned i = 0; i < 4; i++)
		t->acc_t[i] = i < temps ? at + i * t->chunk : t->acc_t[0];
	return FTPU_OK;
}

/* ---- running ------------------------------------------------------------------ */



static void add_stats(struct ftpu_train_stats *a, const struct ftpu_stats *s)
{
	a->cycles += s->cycles, a->macs += s->macs, a->instructions += s->instructions;
	a->bytes_in += s->bytes_in, a->bytes_out += s->bytes_out;
}

/* Checks the trainer may use the device; the caller holds the lock. */
static int check_owner(ftpu_trainer *t, const char *fn)
{
	if (t->failed)
		return ftpu__fail(t->dev, FTPU_ERR_STATE,
				  "%s: an earlier step of this trainer failed; its state on the "
				  "device is lost (create a new one)", fn);
	if (ftpu__run_count(t->dev) != t->runs)
		return ftpu__fail(t->dev, FTPU_ERR_STATE,
				  "%s: another program or a reset ran on the device since this "
				  "trainer's last call; its training state there is gone",
				  fn);
	return FTPU_OK;
}

/* Runs words on the device (lock held), adding to the trainer's stats. */
static int run(ftpu_trainer *t, const uint32_t *words, size_t n, uint32_t *data,
	       size_t data_words)
{
	struct ftpu_exec x = { .words = words, .n_words = n, .data = data,
			       .data_words = data_words };
	struct ftpu_stats st;
	t->forward_rows = 0;
	int ret = ftpu__execute(t->dev, &x, &st);
	/* whatever happened, the weight memory is no longer a GEMM's */
	ftpu__wm_resident(t->dev)->valid = false;
	t->runs = ftpu__run_count(t->dev);
	if (!ret && x.data_got != data_words)
		ret = ftpu__fail(t->dev, FTPU_ERR_PROTOCOL,
				 "training: the device sent %zu DATA words, the step expects %zu",
				 x.data_got, data_words);
	if (ret) {
		t->failed = true;
		return ret;
	}
	add_stats(&t->st, &st);
	return FTPU_OK;
}

static void begin_stats(ftpu_trainer *t)
{
	double c = t->st.compile_seconds;
	memset(&t->st, 0, sizeof(t->st));
	t->st.compile_seconds = c;
	t->st.host_seconds = ftpu__now_s();
}

static void end_stats(ftpu_trainer *t)
{
	const struct ftpu_device_info *info = ftpu__info(t->dev);
	t->st.steps = t->steps;
	t->st.placement = t->host ? FTPU_TRAIN_ON_HOST : FTPU_TRAIN_ON_DEVICE;
	t->st.host_seconds = ftpu__now_s() - t->st.host_seconds;
	t->st.utilization = t->st.cycles ? (double)t->st.macs /
						   ((double)info->rows * info->cols * t->st.cycles)
					 : 0.0;
}

/* Columns [chunk * N, + N) of rows [b0, b0 + nb) of the rows x cols
 * matrix m as nb bf16 vectors (inline data at w), +0 beyond its rows and
 * columns. */
static void pack_chunk(const ftpu_trainer *t, uint32_t *w, const float *m, size_t rows,
		       size_t cols, uint32_t chunk, uint32_t b0, uint32_t nb)
{
	for (uint32_t b = b0; b < b0 + nb; b++)
		for (uint32_t c = 0; c < t->N; c += 2) {
			size_t j = (size_t)chunk * t->N + c;
			uint32_t lo = 0, hi = 0;
			if (b < rows && j < cols)
				lo = ftpu_f32_to_bf16(ftpu_f32_bits(m[b * cols + j]));
			if (b < rows && j + 1 < cols)
				hi = ftpu_f32_to_bf16(ftpu_f32_bits(m[b * cols + j + 1]));
			*w++ = lo | hi << 16;
		}
}

/* The same for bytes (HOST_READ U8): ceil(N / 4) words a vector, 0 beyond
 * m's rows and columns. */
static void pack_chunk_u8(const ftpu_trainer *t, uint32_t *w, const uint8_t *m, size_t rows,
			  size_t cols, uint32_t chunk, uint32_t b0, uint32_t nb)
{
	for (uint32_t b = b0; b < b0 + nb; b++)
		for (uint32_t c = 0; c < t->N; c += 4) {
			uint32_t word = 0;
			for (uint32_t k = 0; k < 4 && c + k < t->N; k++) {
				size_t j = (size_t)chunk * t->N + c + k;
				if (b < rows && j < cols)
					word |= (uint32_t)m[b * cols + j] << (8 * k);
			}
			*w++ = word;
		}
}

/* x: fp32 or (a U8 trainer) bytes. */
static int forward(ftpu_trainer *t, const void *x, size_t rows)
{
	for (uint32_t kc = 0; kc < t->L[0].kc; kc++)
		for (uint32_t j = 0; j < t->x_pieces; j++) {
			const size_t off = t->x_at[kc * t->x_pieces + j];
			const uint32_t b0 = j * t->x_piece;
			if (off == SIZE_MAX)
				continue;
			const uint32_t nb = t->Bp - b0 < t->x_piece ? t->Bp - b0 : t->x_piece;
			if (t->cfg.input == FTPU_TRAIN_INPUT_U8)
				pack_chunk_u8(t, t->fwd.w + off, x, rows, t->widths[0], kc, b0, nb);
			else
				pack_chunk(t, t->fwd.w + off, x, rows, t->widths[0], kc, b0, nb);
		}
	return run(t, t->fwd.w, t->fwd.n, t->data, t->data_words);
}

/* Logit j of row b from the DATA words: chunk c's Bp vectors, N words each
 * but the last chunk's (last_words). */
static float logit(const ftpu_trainer *t, size_t b, size_t j)
{
	const size_t c = j / t->N, w = c + 1 < t->L[t->cfg.n_layers - 1].oc ? t->N : t->last_words;
	return ftpu_f32_value(t->data[c * t->Bp * t->N + b * w + j % t->N]);
}

static int check_call(ftpu_trainer *t, const char *fn, const void *x, size_t rows, bool u8)
{
	if (!t)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: trainer is NULL", fn);
	if (u8 != (t->cfg.input == FTPU_TRAIN_INPUT_U8))
		return ftpu__fail(t->dev, FTPU_ERR_INVALID,
				  "%s: the trainer takes %s input: use ftpu_train_step%s and "
				  "ftpu_train_logits%s", fn, u8 ? "fp32" : "byte",
				  u8 ? "" : "_u8", u8 ? "" : "_u8");
	if (!x)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: x is NULL", fn);
	if (!rows || rows > t->cfg.batch)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: %zu rows, the trainer takes 1..%zu",
				  fn, rows, t->cfg.batch);
	return FTPU_OK;
}

static int logits_any(ftpu_trainer *t, const char *fn, const void *x, bool u8, size_t rows,
		      float *logits)
{
	int ret = check_call(t, fn, x, rows, u8);
	if (ret)
		return ret;
	if (!logits)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: logits is NULL", fn);
	if (t->host) {
		begin_stats(t);
		if (!(ret = ftpu__host_train_logits(t->host, x, u8, rows, logits, &t->st)))
			end_stats(t);
		return ret;
	}
	ftpu__lock(t->dev);
	begin_stats(t);
	if (!(ret = check_owner(t, fn)) && !(ret = forward(t, x, rows))) {
		const size_t out = t->widths[t->cfg.n_layers];
		for (size_t b = 0; b < rows; b++)
			for (size_t j = 0; j < out; j++)
				logits[b * out + j] = logit(t, b, j);
		t->forward_rows = rows; /* for ftpu__train_backward */
		end_stats(t);
	}
	ftpu__unlock(t->dev);
	return ret;
}

int ftpu_train_logits(ftpu_trainer *t, const float *x, size_t rows, float *logits)
{
	return logits_any(t, "ftpu_train_logits", x, false, rows, logits);
}

int ftpu_train_logits_u8(ftpu_trainer *t, const uint8_t *x, size_t rows, float *logits)
{
	return logits_any(t, "ftpu_train_logits_u8", x, true, rows, logits);
}

/* Checks a step's labels. */
static int check_labels(ftpu_trainer *t, const char *fn, const uint8_t *labels, size_t rows)
{
	const size_t out = t->widths[t->cfg.n_layers];
	if (!labels)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: labels is NULL", fn);
	for (size_t b = 0; b < rows; b++)
		if (labels[b] >= out)
			return ftpu__fail(t->dev, FTPU_ERR_INVALID,
					  "%s: label %u of row %zu: the model has %zu classes", fn,
					  labels[b], b, out);
	return FTPU_OK;
}

/* The loss gradient dz (rows x classes) as bf16 into a backward program's
 * inline data at w. */
static void put_dz(const ftpu_trainer *t, uint32_t *w, const float *dz, size_t rows)
{
	const size_t out = t->widths[t->cfg.n_layers];
	for (uint32_t oc = 0; oc < t->L[t->cfg.n_layers - 1].oc; oc++)
		pack_chunk(t, w + (size_t)oc * t->Bp * t->N / 2, dz, rows, out, oc, 0, t->Bp);
}

/* The forward program, then softmax cross-entropy on the host: *sum the
 * rows' summed loss, dZ = (p - onehot) / divisor as bf16 into the inline
 * data of backward program p at dz_at. Lock held. */
static int forward_loss(ftpu_trainer *t, const void *x, const uint8_t *labels, size_t rows,
			size_t divisor, struct words *p, size_t dz_at, double *sum)
{
	const size_t out = t->widths[t->cfg.n_layers];
	int ret = forward(t, x, rows);
	if (ret)
		return ret;
	for (size_t b = 0; b < rows; b++)
		for (size_t j = 0; j < out; j++)
			t->lg[b * out + j] = logit(t, b, j);
	*sum = ftpu__train_softmax(t->lg, labels, rows, out, divisor, t->dz);
	put_dz(t, p->w + dz_at, t->dz, rows);
	return FTPU_OK;
}

/* Keras: alpha = lr sqrt(1 - b2^t) / (1 - b1^t) in double, as N lanes of
 * inline data at w (Adam only). */
static void put_alpha(const ftpu_trainer *t, uint32_t *w)
{
	const struct ftpu_train_config *c = &t->cfg;
	if (c->optimizer != FTPU_OPTIMIZER_ADAM)
		return;
	double step = (double)(t->steps + 1);
	float alpha = (float)(c->learning_rate * sqrt(1.0 - pow(c->beta2, step)) /
			      (1.0 - pow(c->beta1, step)));
	for (uint32_t i = 0; i < t->N; i++)
		w[i] = ftpu_f32_bits(alpha);
}

static int step_any(ftpu_trainer *t, const char *fn, const void *x, bool u8,
		    const uint8_t *labels, size_t rows, float *loss)
{
	int ret = check_call(t, fn, x, rows, u8);
	if (ret || (ret = check_labels(t, fn, labels, rows)))
		return ret;
	if (t->host) {
		begin_stats(t);
		if (!(ret = ftpu__host_train_step(t->host, x, u8, labels, rows, t->steps, loss,
						  &t->st))) {
			t->steps++;
			end_stats(t);
		}
		return ret;
	}
	ftpu__lock(t->dev);
	begin_stats(t);
	double sum;
	if ((ret = check_owner(t, fn)) ||
	    (ret = forward_loss(t, x, labels, rows, rows, &t->bwd, t->bwd_dz_at, &sum)))
		goto out;
	put_alpha(t, t->bwd.w + t->bwd_alpha_at);
	if ((ret = run(t, t->bwd.w, t->bwd.n, NULL, 0)))
		goto out;
	t->steps++;
	if (loss)
		*loss = (float)(sum / (double)rows);
	end_stats(t);
out:
	ftpu__unlock(t->dev);
	return ret;
}

int ftpu__train_forward(ftpu_trainer *t, const void *x, bool u8, size_t rows, float *logits)
{
	if (t && t->host)
		return ftpu__fail(t->dev, FTPU_ERR_UNSUPPORTED,
				  "ftpu__train_forward: a step in halves runs on the device only");
	return logits_any(t, u8 ? "ftpu_train_logits_u8" : "ftpu_train_logits", x, u8, rows,
			  logits);
}

int ftpu__train_backward(ftpu_trainer *t, const float *dz, size_t rows)
{
	static const char fn[] = "ftpu_train_backward";
	int ret;
	ftpu__lock(t->dev);
	if (!t->forward_rows || t->forward_rows != rows) {
		ret = ftpu__fail(t->dev, FTPU_ERR_STATE,
				 "%s: %zu rows, but the device holds the forward pass of %zu (0: "
				 "none, or another program ran since)", fn, rows, t->forward_rows);
		goto out;
	}
	if ((ret = check_owner(t, fn)))
		goto out;
	put_dz(t, t->bwd.w + t->bwd_dz_at, dz, rows);
	put_alpha(t, t->bwd.w + t->bwd_alpha_at);
	/* the step's counters: the forward pass's and this */
	struct ftpu_train_stats fwd = t->st;
	begin_stats(t);
	if (!(ret = run(t, t->bwd.w, t->bwd.n, NULL, 0))) {
		t->steps++;
		t->st.cycles += fwd.cycles, t->st.macs += fwd.macs;
		t->st.instructions += fwd.instructions;
		t->st.bytes_in += fwd.bytes_in, t->st.bytes_out += fwd.bytes_out;
		end_stats(t);
		t->st.host_seconds += fwd.host_seconds;
	}
out:
	ftpu__unlock(t->dev);
	return ret;
}

static int gradient_any(ftpu_trainer *t, const char *fn, const void *x, bool u8,
			const uint8_t *labels, size_t rows, size_t divisor, float *grad,
			double *loss_sum)
{
	int ret = check_call(t, fn, x, rows, u8);
	if (ret || (ret = check_labels(t, fn, labels, rows)))
		return ret;
	if (divisor < rows)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID,
				  "%s: divisor %zu: the global batch's rows, at least the %zu "
				  "here", fn, divisor, rows);
	if (!grad)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: grad is NULL", fn);
	double sum = 0;
	if (t->host) {
		begin_stats(t);
		if (!(ret = ftpu__host_train_gradient(t->host, x, u8, labels, rows, divisor, &sum,
						      &t->st))) {
			ftpu__host_train_read(t->host, FTPU__TRAIN_GRADIENT, grad);
			end_stats(t);
		}
		goto done;
	}
	const size_t nd = (size_t)t->pn * t->N;
	if (!t->bwdg.n) {
		/* compiled on first use; its time counts as the trainer's */
		const double t0 = ftpu__now_s();
		t->grad_order = malloc(((size_t)t->pn + 1) * sizeof(*t->grad_order));
		t->grad_sent = 0;
		emit_backward(t, &t->bwdg, false, &t->bwdg_dz_at, &(size_t){ 0 });
		t->grad_data = malloc((nd + 1) * sizeof(*t->grad_data));
		if (t->bwdg.oom || !t->grad_data || !t->grad_order || t->grad_sent != t->pn) {
			free(t->bwdg.w), free(t->grad_data), free(t->grad_order);
			t->bwdg = (struct words){ 0 }, t->grad_data = NULL, t->grad_order = NULL;
			return ftpu__fail(t->dev, FTPU_ERR_NOMEM, "%s: out of memory", fn);
		}
		t->st.compile_seconds += ftpu__now_s() - t0;
	}
	ftpu__lock(t->dev);
	begin_stats(t);
	if (!(ret = check_owner(t, fn)) &&
	    !(ret = forward_loss(t, x, labels, rows, divisor, &t->bwdg, t->bwdg_dz_at, &sum)) &&
	    !(ret = run(t, t->bwdg.w, t->bwdg.n, t->grad_data, nd))) {
		for (size_t i = 0; i < t->flat; i++) {
			uint32_t v, lane;
			flat_place(t, i, &v, &lane);
			grad[i] = ftpu_f32_value(t->grad_data[(size_t)t->grad_order[v] * t->N + lane]);
		}
		end_stats(t);
	}
	ftpu__unlock(t->dev);
done:
	if (!ret && loss_sum)
		*loss_sum = sum;
	return ret;
}

int ftpu_train_gradient(ftpu_trainer *t, const float *x, const uint8_t *labels, size_t rows,
			size_t divisor, float *grad, double *loss_sum)
{
	return gradient_any(t, "ftpu_train_gradient", x, false, labels, rows, divisor, grad,
			    loss_sum);
}

int ftpu_train_gradient_u8(ftpu_trainer *t, const uint8_t *x, const uint8_t *labels,
			   size_t rows, size_t divisor, float *grad, double *loss_sum)
{
	return gradient_any(t, "ftpu_train_gradient_u8", x, true, labels, rows, divisor, grad,
			    loss_sum);
}

int ftpu_train_apply(ftpu_trainer *t, const float *grad)
{
	int ret;
	if (!t)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_train_apply: trainer is NULL");
	if (!grad)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "ftpu_train_apply: grad is NULL");
	if (t->host) {
		begin_stats(t);
		ftpu__host_train_write(t->host, FTPU__TRAIN_GRADIENT, grad);
		ftpu__host_train_apply(t->host, t->steps);
		t->steps++;
		end_stats(t);
		return FTPU_OK;
	}
	if (!t->apply.n) {
		const double t0 = ftpu__now_s();
		emit_apply(t, &t->apply);
		if (t->apply.oom) {
			free(t->apply.w);
			t->apply = (struct words){ 0 };
			return ftpu__fail(t->dev, FTPU_ERR_NOMEM, "ftpu_train_apply: out of memory");
		}
		t->st.compile_seconds += ftpu__now_s() - t0;
	}
	state_pack(t, t->apply.w, t->apply_g_at, grad);
	put_alpha(t, t->apply.w + t->apply_alpha_at);
	ftpu__lock(t->dev);
	begin_stats(t);
	if (!(ret = check_owner(t, "ftpu_train_apply")) &&
	    !(ret = run(t, t->apply.w, t->apply.n, NULL, 0))) {
		t->steps++;
		end_stats(t);
	}
	ftpu__unlock(t->dev);
	return ret;
}

void ftpu_train_reduce(float *sum, const float *const *grads, size_t n, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		float s = grads[0][i];
		for (size_t r = 1; r < n; r++)
			s += grads[r][i];
		sum[i] = s;
	}
}

int ftpu_train_step(ftpu_trainer *t, const float *x, const uint8_t *labels, size_t rows,
		    float *loss)
{
	return step_any(t, "ftpu_train_step", x, false, labels, rows, loss);
}

int ftpu_train_step_u8(ftpu_trainer *t, const uint8_t *x, const uint8_t *labels, size_t rows,
		       float *loss)
{
	return step_any(t, "ftpu_train_step_u8", x, true, labels, rows, loss);
}

/* ---- state in and out ----------------------------------------------------------- */

static uint32_t part_base(const ftpu_trainer *t, enum ftpu_train_part part)
{
	return part == FTPU_TRAIN_PARAMS ? t->acc_p : part == FTPU_TRAIN_SLOT1 ? t->acc_m : t->acc_v;
}

/* ACC vector and lane of flat value i. */
static void flat_place(const ftpu_trainer *t, size_t i, uint32_t *vec, uint32_t *lane)
{
	const uint32_t N = t->N;
	for (size_t l = 0; l < t->cfg.n_layers; l++) {
		const struct layer *y = &t->L[l];
		if (i >= y->flat_b + y->out)
			continue;
		if (i >= y->flat_b) {
			size_t j = i - y->flat_b;
			*vec = y->pb + (uint32_t)(j / N), *lane = (uint32_t)(j % N);
		} else {
			size_t r = (i - y->flat_w) / y->out, j = (i - y->flat_w) % y->out;
			*vec = y->pw + (uint32_t)(r / N) * y->oc * N + (uint32_t)j;
			*lane = (uint32_t)(r % N);
		}
		return;
	}
}

static int check_part(ftpu_trainer *t, const char *fn, enum ftpu_train_part part,
		      const void *values)
{
	if (!t)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: trainer is NULL", fn);
	if (!values)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: values is NULL", fn);
	if (part != FTPU_TRAIN_PARAMS && part != FTPU_TRAIN_SLOT1 && part != FTPU_TRAIN_SLOT2)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID, "%s: no part %d", fn, (int)part);
	return FTPU_OK;
}

size_t ftpu_train_size(const ftpu_trainer *t) { return t ? t->flat : 0; }

int ftpu_train_read(ftpu_trainer *t, enum ftpu_train_part part, float *values)
{
	int ret = check_part(t, "ftpu_train_read", part, values);
	if (ret)
		return ret;
	if (part == FTPU_TRAIN_SLOT2 && t->cfg.optimizer != FTPU_OPTIMIZER_ADAM) {
		memset(values, 0, t->flat * sizeof(*values));
		return FTPU_OK;
	}
	if (t->host) {
		ftpu__host_train_read(t->host, part, values);
		return FTPU_OK;
	}
	const uint32_t N = t->N, base = part_base(t, part);
	struct words p = { 0 };
	emit_state_out(t, &p, base);
	size_t nd = (size_t)t->pn * N;
	uint32_t *data = malloc((nd + 1) * sizeof(*data));
	if (p.oom || !data) {
		free(p.w), free(data);
		return ftpu__fail(t->dev, FTPU_ERR_NOMEM, "ftpu_train_read: out of memory");
	}
	ftpu__lock(t->dev);
	begin_stats(t);
	if (!(ret = check_owner(t, "ftpu_train_read")) && !(ret = run(t, p.w, p.n, data, nd))) {
		state_unpack(t, data, values);
		end_stats(t);
	}
	ftpu__unlock(t->dev);
	free(p.w), free(data);
	return ret;
}

int ftpu_train_write(ftpu_trainer *t, enum ftpu_train_part part, const float *values)
{
	int ret = check_part(t, "ftpu_train_write", part, values);
	if (ret)
		return ret;
	if (part == FTPU_TRAIN_SLOT2 && t->cfg.optimizer != FTPU_OPTIMIZER_ADAM)
		return ftpu__fail(t->dev, FTPU_ERR_INVALID,
				  "ftpu_train_write: SGD has no second slot");
	if (t->host) {
		ftpu__host_train_write(t->host, part, values);
		return FTPU_OK;
	}
	struct words p = { 0 };
	size_t at[VEC_PIECES] = { 0 };
	emit_state_in(t, &p, part_base(t, part), at);
	if (p.oom) {
		free(p.w);
		return ftpu__fail(t->dev, FTPU_ERR_NOMEM, "ftpu_train_write: out of memory");
	}
	state_pack(t, p.w, at, values);
	ftpu__lock(t->dev);
	begin_stats(t);
	if (!(ret = check_owner(t, "ftpu_train_write")) && !(ret = run(t, p.w, p.n, NULL, 0)))
		end_stats(t);
	ftpu__unlock(t->dev);
	free(p.w);
	return ret;
}

int ftpu_train_set_steps(ftpu_trainer *t, uint64_t steps)
{
	if (!t)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_train_set_steps: trainer is NULL");
	t->steps = steps;
	return FTPU_OK;
}

int ftpu_train_stats(const ftpu_trainer *t, struct ftpu_train_stats *stats)
{
	if (!t || !stats)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_train_stats: %s is NULL",
				  t ? "stats" : "trainer");
	*stats = t->st;
	return FTPU_OK;
}

/* ---- creating ------------------------------------------------------------------- */

void ftpu_train_destroy(ftpu_trainer *t)
{
	if (!t)
		return;
	free(t->fwd.w), free(t->bwd.w), free(t->x_at);
	free(t->bwdg.w), free(t->apply.w), free(t->grad_data), free(t->grad_order);
	free(t->data), free(t->lg), free(t->dz);
	ftpu__host_train_destroy(t->host);
	free(t);
}

static int check_config(const struct ftpu_train_config *c, char *why, size_t len)
{
	if (!c->n_layers || c->n_layers > FTPU_TRAIN_MAX_LAYERS || !c->widths) {
		snprintf(why, len, "%zu layers: 1..%d, with n_layers + 1 widths", c->n_layers,
			 FTPU_TRAIN_MAX_LAYERS);
		return FTPU_ERR_INVALID;
	}
	for (size_t l = 0; l <= c->n_layers; l++)
		if (!c->widths[l]) {
			snprintf(why, len, "width %zu is 0", l);
			return FTPU_ERR_INVALID;
		}
	if (c->widths[c->n_layers] > 256) {
		snprintf(why, len, "%zu classes: labels are bytes, at most 256",
			 c->widths[c->n_layers]);
		return FTPU_ERR_INVALID;
	}
	if (!c->batch) {
		snprintf(why, len, "batch 0");
		return FTPU_ERR_INVALID;
	}
	if (c->placement != FTPU_TRAIN_AUTO && c->placement != FTPU_TRAIN_ON_DEVICE &&
	    c->placement != FTPU_TRAIN_ON_HOST) {
		snprintf(why, len, "placement %d: FTPU_TRAIN_AUTO, _ON_DEVICE or _ON_HOST",
			 (int)c->placement);
		return FTPU_ERR_INVALID;
	}
	if (c->input != FTPU_TRAIN_INPUT_F32 && c->input != FTPU_TRAIN_INPUT_U8) {
		snprintf(why, len, "input kind %d: FTPU_TRAIN_INPUT_F32 or _U8", (int)c->input);
		return FTPU_ERR_INVALID;
	}
	if (!(c->learning_rate > 0.0f) || !isfinite(c->learning_rate)) {
		snprintf(why, len, "learning rate %g: positive and finite", c->learning_rate);
		return FTPU_ERR_INVALID;
	}
	if (c->optimizer == FTPU_OPTIMIZER_ADAM) {
		if (!(c->beta1 >= 0.0f && c->beta1 < 1.0f) || !(c->beta2 >= 0.0f && c->beta2 < 1.0f) ||
		    !(c->epsilon >= 1e-30f && c->epsilon <= 1.0f)) {
			snprintf(why, len, "Adam beta1 %g, beta2 %g in [0, 1), epsilon %g in "
				 "[1e-30, 1]", c->beta1, c->beta2, c->epsilon);
			return FTPU_ERR_INVALID;
		}
	} else if (c->optimizer == FTPU_OPTIMIZER_SGD) {
		if (!(c->momentum >= 0.0f && c->momentum < 1.0f)) {
			snprintf(why, len, "SGD momentum %g: in [0, 1)", c->momentum);
			return FTPU_ERR_INVALID;
		}
	} else {
		snprintf(why, len, "unknown optimizer %d", (int)c->optimizer);
		return FTPU_ERR_INVALID;
	}
	return FTPU_OK;
}

/* The constants, the identity tile, zeroed parameters and slots (the
 * forward pass converts the weight tiles). */
static int emit_init(ftpu_trainer *t, struct words *p)
{
	const uint32_t N = t->N;
	const struct ftpu_train_config *c = &t->cfg;
	const bool adam = c->optimizer == FTPU_OPTIMIZER_ADAM;
	uint32_t k[K_COUNT] = {
		[K_ZERO] = 0, [K_NEG_ZERO] = 0x80000000u, [K_HALF] = ftpu_f32_bits(0.5f),
		[K_THREE_HALVES] = ftpu_f32_bits(1.5f), [K_MINUS_ONE] = ftpu_f32_bits(-1.0f),
		[K_TWO] = ftpu_f32_bits(2.0f), [K_RSQRT_MAGIC] = RSQRT_MAGIC,
		[K_RECIP_MAGIC] = RECIP_MAGIC, [K_DELTA] = DELTA_BITS,
		[K_EPSILON] = ftpu_f32_bits(adam ? c->epsilon : 0.0f),
		[K_C1] = ftpu_f32_bits(adam ? 1.0f - c->beta1 : 0.0f),
		[K_C2] = ftpu_f32_bits(adam ? 1.0f - c->beta2 : 0.0f),
		[K_NEG_LR] = ftpu_f32_bits(-c->learning_rate),
		[K_MOMENTUM] = ftpu_f32_bits(adam ? 0.0f : c->momentum), [K_ALPHA] = 0,
	};
	emit(p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, K_COUNT, t->acc_k, 0);
	size_t at = emit_data(p, (size_t)K_COUNT * N);
	for (unsigned i = 0; i < K_COUNT && !p->oom; i++)
		for (uint32_t j = 0; j < N; j++)
			p->w[at + i * N + j] = k[i];
	emit(p, FTPU_OP_HOST_READ, FTPU_MEM_WM, N, 0, 0);
	at = emit_data(p, (size_t)N * N / 2);
	for (uint32_t r = 0; r < N && !p->oom; r++)
		p->w[at + r * N / 2 + r / 2] = (uint32_t)0x3F80 << (r % 2 ? 16 : 0);
	/* zero parameters and slots: VSEL of +0 over whatever ACC held */
	uint32_t zero_n = t->pn * (adam ? 4 : 3);
	vop(p, FTPU_OP_VSEL, FTPU_VECTOR_B_FIXED | FTPU_VECTOR_C_FIXED, zero_n, t->acc_p,
	    t->acc_k + K_ZERO, t->acc_k + K_ZERO, t->acc_p);
	return p->oom ? FTPU_ERR_NOMEM : FTPU_OK;
}

static int create(ftpu_device *dev, const struct ftpu_train_config *cfg, bool partial_logits,
		  ftpu_trainer **out)
{
	char why[256] = "";
	int ret;

	if ((ret = ftpu__check_device(dev, "ftpu_train_create")))
		return ret;
	if (!cfg || !out)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_train_create: %s is NULL",
				  cfg ? "out" : "cfg");
	if ((ret = check_config(cfg, why, sizeof(why))))
		return ftpu__fail(dev, ret, "ftpu_train_create: %s", why);

	double t0 = ftpu__now_s();
	ftpu_trainer *t = calloc(1, sizeof(*t));
	if (!t)
		return ftpu__fail(dev, FTPU_ERR_NOMEM, "ftpu_train_create: out of memory");
	t->dev = dev;
	t->partial_logits = partial_logits;
	t->cfg = *cfg;
	memcpy(t->widths, cfg->widths, (cfg->n_layers + 1) * sizeof(size_t));
	t->cfg.widths = t->widths;

	ftpu__lock(dev);
	const struct ftpu_device_info info = *ftpu__info(dev);
	ftpu__unlock(dev);
	/* Why the device cannot keep this trainer (ret, why), or 0. */
	ret = 0;
	if (cfg->placement == FTPU_TRAIN_ON_HOST) {
		ret = FTPU_ERR_UNSUPPORTED;
		snprintf(why, sizeof(why), "placed on the host");
	} else if (!(info.features & FTPU_FEATURE_VECTOR_UNIT)) {
		ret = FTPU_ERR_UNSUPPORTED;
		snprintf(why, sizeof(why), "the device (%s) has no vector unit, so it cannot keep "
			 "the optimizer", info.transport);
	} else if (info.protocol < 0x00010004u) {
		ret = FTPU_ERR_UNSUPPORTED;
		snprintf(why, sizeof(why), "the step needs HOST_READ ALSO_WM (protocol 1.4), the "
			 "device speaks %u.%u", info.protocol >> 16, info.protocol & 0xffffu);
	} else if (info.rows != info.cols) {
		ret = FTPU_ERR_UNSUPPORTED;
		snprintf(why, sizeof(why), "a %ux%u array", info.rows, info.cols);
	} else {
		ret = plan(t, &info, why, sizeof(why));
	}
	if (ret && cfg->placement == FTPU_TRAIN_ON_DEVICE) {
		ftpu__fail(dev, ret, "ftpu_train_create: %s", why);
		goto fail;
	}
	if (ret && (cfg->placement == FTPU_TRAIN_ON_HOST || ret == FTPU_ERR_UNSUPPORTED ||
		    ret == FTPU_ERR_SHAPE)) {
		/* the weights and the optimizer on the host, matmuls on the device */
		t->flat = 0;
		for (size_t l = 0; l < cfg->n_layers; l++)
			t->flat += (t->widths[l] + 1) * t->widths[l + 1];
		if (ftpu__host_train_create(dev, &t->cfg, info.rows, &t->host)) {
			ret = ftpu__fail(dev, FTPU_ERR_NOMEM, "ftpu_train_create: out of memory");
			goto fail;
		}
		t->st.compile_seconds = ftpu__now_s() - t0;
		t->st.placement = FTPU_TRAIN_ON_HOST;
		*out = t;
		return FTPU_OK;
	}
	if (ret) {
		ftpu__fail(dev, ret, "ftpu_train_create: %s", why);
		goto fail;
	}
	const struct layer *top = &t->L[cfg->n_layers - 1];
	t->last_words = top->out - (top->oc - 1) * t->N; /* HOST_WRITE WORDS, protocol 1.3 */
	struct words init = { 0 };
	emit_forward(t, &t->fwd);
	emit_backward(t, &t->bwd, true, &t->bwd_dz_at, &t->bwd_alpha_at);
	ret = emit_init(t, &init);
	t->data_words = ((size_t)(top->oc - 1) * t->N + t->last_words) * t->Bp;
	t->data = malloc((t->data_words + 1) * sizeof(*t->data));
	t->dz = malloc(cfg->batch * t->widths[cfg->n_layers] * sizeof(*t->dz));
	t->lg = malloc(cfg->batch * t->widths[cfg->n_layers] * sizeof(*t->lg));
	if (ret || t->fwd.oom || t->bwd.oom || !t->data || !t->dz || !t->lg) {
		free(init.w);
		ret = ftpu__fail(dev, FTPU_ERR_NOMEM, "ftpu_train_create: out of memory");
		goto fail;
	}
	t->st.compile_seconds = ftpu__now_s() - t0;

	ftpu__lock(dev);
	t->runs = ftpu__run_count(dev);
	begin_stats(t);
	ret = run(t, init.w, init.n, NULL, 0);
	if (!ret)
		end_stats(t);
	ftpu__unlock(dev);
	free(init.w);
	if (ret)
		goto fail;
	*out = t;
	return FTPU_OK;
fail:
	ftpu_train_destroy(t);
	return ret;
}

int ftpu_train_create(ftpu_device *dev, const struct ftpu_train_config *cfg, ftpu_trainer **out)
{
	return create(dev, cfg, false, out);
}

int ftpu__train_create_share(ftpu_device *dev, const struct ftpu_train_config *cfg,
			     bool partial_logits, ftpu_trainer **out)
{
	struct ftpu_train_config c = *cfg;
	c.placement = FTPU_TRAIN_ON_DEVICE; /* the halves below run on the device only */
	return create(dev, &c, partial_logits, out);
}
