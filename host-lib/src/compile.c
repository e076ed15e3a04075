/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compile.c - ftpu_compile(): a graph lowered to a program for one
 * device's sizes (docs/isa.md).
 *
 * Lowering. Every matmul is a layer: x (M x K) times a constant w (K x N)
 * as KT = ceil(K/R) x NT = ceil(N/R) tiles of the R x R array, lowered
 * through the GEMM emitter of ftpu_gemm (gemm_plan.h): per chunk of batch
 * rows one GEMM chunk with all of K and N, k-tile outer, n-tile inner,
 * each a LOAD_WEIGHTS and a MATMUL SWAP (ACCUMULATE after the first
 * k-tile) into the layer's accumulators, w resident at its WM place. A
 * bias_add of a constant and/or a relu after a matmul is an "activation":
 * one ACTIVATE per n-tile (flags BIAS/RELU; the bias in BIAS memory, -0
 * without one), fp32 -> bf16 into the unified buffer (UB); a relu of it is
 * the same activation. A matmul whose x is another
 * matmul's raw result gets an implicit activation without bias or ReLU
 * (the bf16 rounding of its operand). The device is square, so n-tile j of
 * an activation (R columns) is k-tile j of the next layer's x (R rows):
 * the next layer's MATMULs read it where ACTIVATE wrote it (the emitter's
 * resident A), and intermediates never leave the device. An input is read
 * (all its k-tiles, in as few HOST_READs as fit) by the first layer that
 * uses it; later readers find it in UB.
 *
 * Memory plan.
 *   WM    every weight constant once, as the emitter's B image (tiles
 *         (kt, nt) at rows (tile0 + kt*NT + nt) * R: rows beyond K are -0,
 *         columns beyond N +0, docs/numerics.md, Padding). Resident across
 *         runs.
 *   BIAS  every bias constant once, NT vectors at vec0 (+0 beyond N).
 *   UB    per chunk of mc batch rows: a region of KT*mc vectors per input
 *         (vector kt*mc + m is row m's k-tile kt, +0 lanes beyond K) and of
 *         NT*mc per activation. Regions are sized in "slots" of mc vectors
 *         and share space when their lifetimes do not overlap: an input
 *         lives from its first to its last reader's MATMULs, an activation
 *         from its ACTIVATEs to its last reader's MATMULs, so it may reuse
 *         its own layer's input.
 *   ACC   per chunk: NT*mc vectors per layer, live from its MATMULs to the
 *         next layer's (two layers alternate, so that the next layer's
 *         MATMULs do not wait for this one's ACTIVATEs and HOST_WRITEs).
 * mc, the chunk of batch rows, is the largest that fits UB and ACC (and
 * MATMUL's 16-bit count); a larger batch runs chunk after chunk, each
 * chunk through every layer.
 *
 * Outputs: a matmul's raw result is read with HOST_WRITE ACC (fp32), an
 * activation with HOST_WRITE UB (bf16, widened on the host), once per
 * output that names it, in the emitter's order (ACC, then each activation).
 *
 * Numerics: a layer equals ftpu_ref_gemm of the bf16-rounded operands, then
 * ftpu_ref_activate per element with the bias (-0 without), as bf16. One
 * caveat of padding: when N is not a multiple of R and a row of x holds an
 * infinity, the padding lanes of that row's accumulators become NaN
 * (Inf * 0), and so does the whole row of the next layer; the reference
 * gives NaN only where a real lane does. Data without infinities (NaN
 * included) are exact.
 *
 * Adding an operation: enum ftpu__op (compile.h) says where; here it needs
 * a case in classify() and, if it becomes a new device step, its emission
 * (in the GEMM emitter when it is part of a layer's block).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "device.h"
#include "gemm_plan.h"

/* A program of more words than this is refused (4 GiB): run a larger
 * batch in several calls. */
#define MAX_WORDS ((uint64_t)1 << 30)
/* ACTIVATE addresses UB and BIAS with 16 bits. */
#define ADDR16 65536u
#define MAX_N 65535u /* an instruction's vector count */

enum role { R_NONE, R_INPUT, R_CONST, R_LAYER, R_ACT };

/* A region of UB or ACC in slots of mc vectors, live in phases
 * [first, last] (plan()). */
struct region {
	size_t slots, off;
	size_t first, last;
	bool placed;
};

struct hostin {
	int node;
	size_t KT;
	bool used;
	size_t first_layer; /* where it is read into UB */
	struct region ub;
};

struct weight {
	int node;
	size_t KT, NT;
	uint64_t tile0;
};

struct bias {
	int node;
	size_t NT;
	uint64_t vec0;
};

struct act {
	size_t layer;
	int bias; /* index into biases, -1: none */
	bool relu;
	struct region ub;
};

struct layer {
	int node;
	int src_in;  /* hostin (input number) or -1 */
	int src_act; /* act or -1 */
	int weight;
	size_t K, N, KT, NT;
	struct region acc;
};

struct cnode {
	enum role role;
	bool live;
	int layer; /* R_LAYER; R_ACT: the matmul's layer */
	int bias_node; /* R_ACT: the bias constant, -1 none */
	bool relu;     /* R_ACT */
	int act;       /* R_ACT: materialized activation, -1 not yet;
			* R_LAYER: its implicit activation, -1 none */
};

struct out {
	bool acc; /* HOST_WRITE ACC of a layer, else UB of an act */
	int layer, act;
};

/* Words and pieces, or only their counts (w == NULL). */
struct emit {
	uint32_t *w;
	size_t n;
	struct ftpu__piece *in, *out;
	size_t n_in, n_out;
	uint64_t data_at;
	bool overflow, nomem;
	size_t io; /* the input being read (note_input) */
};

struct cc {
	const ftpu_graph *g;
	const struct ftpu_device_info *info;
	size_t R;
	char *why;
	size_t why_len;
	struct cnode *cn;
	struct hostin *in; /* by input number */
	struct layer *layers;
	struct act *acts;
	struct weight *weights;
	struct bias *biases;
	struct out *outs;
	struct ftpu_gemm_act *gacts; /* one layer's activations (emit_layer) */
	size_t n_layers, n_acts, n_weights, n_biases;
	size_t M, mc;
	uint64_t wm_tiles, bias_vecs;
};

__attribute__((format(printf, 3, 4)))
static int cfail(struct cc *c, int status, const char *fmt, ...)
{
	va_list ap;
	if (c->why_len) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->why_len, fmt, ap);
		va_end(ap);
	}
	return status;
}

static size_t div_up(size_t a, size_t b)
{
	return a / b + (a % b != 0);
}

static const char *desc(struct cc *c, int t, char *buf, size_t len)
{
	return ftpu__tensor_desc(c->g, t, buf, len);
}

/* ---- classification --------------------------------------------------------------- */

static int get_weight(struct cc *c, int node)
{
	for (size_t i = 0; i < c->n_weights; i++)
		if (c->weights[i].node == node)
			return (int)i;
	const struct ftpu__node *n = &c->g->nodes[node];
	c->weights[c->n_weights] = (struct weight){
		.node = node, .KT = div_up(n->rows, c->R), .NT = div_up(n->cols, c->R)
	};
	return (int)c->n_weights++;
}

static int get_bias(struct cc *c, int node)
{
	if (node < 0)
		return -1;
	for (size_t i = 0; i < c->n_biases; i++)
		if (c->biases[i].node == node)
			return (int)i;
	c->biases[c->n_biases] = (struct bias){
		.node = node, .NT = div_up(c->g->nodes[node].cols, c->R)
	};
	return (int)c->n_biases++;
}

/* The activation (layer, bias, relu), created once. */
static int get_act(struct cc *c, int layer, int bias_node, bool relu)
{
	int bias = get_bias(c, bias_node);
	for (size_t i = 0; i < c->n_acts; i++)
		if (c->acts[i].layer == (size_t)layer && c->acts[i].bias == bias &&
		    c->acts[i].relu == relu)
			return (int)i;
	c->acts[c->n_acts] = (struct act){ .layer = (size_t)layer, .bias = bias, .relu = relu };
	c->acts[c->n_acts].ub.slots = c->layers[layer].NT;
	return (int)c->n_acts++;
}

/* The activation of tensor t (R_ACT), materialized. */
static int act_of(struct cc *c, int t)
{
	struct cnode *n = &c->cn[t];
	if (n->act < 0)
		n->act = get_act(c, n->layer, n->bias_node, n->relu);
	return n->act;
}

static const char *role_hint(const struct cc *c, int t)
{
	switch (c->cn[t].role) {
	case R_INPUT: return "an input";
	case R_CONST: return "a constant";
	case R_LAYER: return "a matmul result";
	default: return "an activation";
	}
}

/* What each live tensor becomes on the device. */
static int classify(struct cc *c)
{
	const ftpu_graph *g = c->g;
	char d0[128], d1[128];

	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct ftpu__node *n = &g->nodes[i];
		struct cnode *cn = &c->cn[i];
		int t = (int)i, x = n->arg[0], y = n->arg[1];
		cn->act = -1;
		cn->bias_node = -1;
		if (!cn->live)
			continue;
		switch (n->op) {
		case FTPU__OP_INPUT:
			cn->role = R_INPUT;
			break;
		case FTPU__OP_CONSTANT:
			cn->role = R_CONST;
			break;
		case FTPU__OP_MATMUL: {
			if (c->cn[y].role != R_CONST)
				return cfail(c, FTPU_ERR_UNSUPPORTED,
					     "%s: its right operand %s is %s; it must be a "
					     "constant (weights live in the device's weight memory)",
					     desc(c, t, d0, sizeof(d0)), desc(c, y, d1, sizeof(d1)),
					     role_hint(c, y));
			struct layer *l = &c->layers[c->n_layers];
			*l = (struct layer){ .node = t, .src_in = -1, .src_act = -1,
					     .K = g->nodes[x].cols, .N = n->cols };
			l->KT = div_up(l->K, c->R);
			l->NT = div_up(l->N, c->R);
			l->acc.slots = l->NT;
			switch (c->cn[x].role) {
			case R_INPUT:
				l->src_in = (int)g->nodes[x].index;
				c->in[l->src_in].node = x;
				c->in[l->src_in].KT = l->KT;
				break;
			case R_LAYER:
				/* x's raw result rounded to bf16 by an ACTIVATE */
				if (c->cn[x].act < 0)
					c->cn[x].act = get_act(c, c->cn[x].layer, -1, false);
				l->src_act = c->cn[x].act;
				break;
			case R_ACT:
				l->src_act = act_of(c, x);
				break;
			default:
				return cfail(c, FTPU_ERR_UNSUPPORTED,
					     "%s: its left operand %s is a constant; it must be "
					     "an input or a result (fold constants on the host)",
					     desc(c, t, d0, sizeof(d0)), desc(c, x, d1, sizeof(d1)));
			}
			l->weight = get_weight(c, y);
			cn->role = R_LAYER;
			cn->layer = (int)c->n_layers++;
			break;
		}
		case FTPU__OP_BIAS_ADD:
			if (c->cn[x].role != R_LAYER)
				return cfail(c, FTPU_ERR_UNSUPPORTED,
					     "%s: its operand %s is %s; bias_add must follow a "
					     "matmul directly (it is fused into the matmul's ACTIVATE)",
					     desc(c, t, d0, sizeof(d0)), desc(c, x, d1, sizeof(d1)),
					     role_hint(c, x));
			if (c->cn[y].role != R_CONST)
				return cfail(c, FTPU_ERR_UNSUPPORTED,
					     "%s: its bias %s is %s; it must be a constant "
					     "(it lives in the device's bias memory)",
					     desc(c, t, d0, sizeof(d0)), desc(c, y, d1, sizeof(d1)),
					     role_hint(c, y));
			cn->role = R_ACT;
			cn->layer = c->cn[x].layer;
			cn->bias_node = y;
			cn->relu = false;
			break;
		case FTPU__OP_RELU:
			if (c->cn[x].role == R_LAYER) {
				cn->layer = c->cn[x].layer;
			} else if (c->cn[x].role == R_ACT) {
				/* after a bias_add; after a relu it changes nothing */
				cn->layer = c->cn[x].layer;
				cn->bias_node = c->cn[x].bias_node;
			} else {
				return cfail(c, FTPU_ERR_UNSUPPORTED,
					     "%s: its operand %s is %s; relu must follow a matmul "
					     "or a bias_add of one (it is fused into the matmul's "
					     "ACTIVATE)",
					     desc(c, t, d0, sizeof(d0)), desc(c, x, d1, sizeof(d1)),
					     role_hint(c, x));
			}
			cn->role = R_ACT;
			cn->relu = true;
			break;
		default:
			return cfail(c, FTPU_ERR_UNSUPPORTED, "%s: not supported by the compiler",
				     desc(c, t, d0, sizeof(d0)));
		}
	}
	for (size_t j = 0; j < g->n_outputs; j++) {
		int t = g->outputs[j];
		switch (c->cn[t].role) {
		case R_LAYER:
			c->outs[j] = (struct out){ .acc = true, .layer = c->cn[t].layer, .act = -1 };
			break;
		case R_ACT: {
			int a = act_of(c, t);
			c->outs[j] = (struct out){ .acc = false, .layer = (int)c->acts[a].layer,
						   .act = a };
			break;
		}
		default:
			return cfail(c, FTPU_ERR_UNSUPPORTED,
				     "output %zu: %s is %s, which the device does not compute "
				     "(outputs are matmul results or their activations)",
				     j, desc(c, t, d0, sizeof(d0)), role_hint(c, t));
		}
	}
	return FTPU_OK;
}

/* ---- memory plan ------------------------------------------------------------------ */

/* Places r first-fit among the placed regions whose lifetimes overlap it;
 * returns the slots used up to its end. */
static size_t place(struct region *r, struct region *const *placed, size_t n_placed)
{
	size_t off = 0;
	for (bool moved = true; moved;) {
		moved = false;
		for (size_t i = 0; i < n_placed; i++) {
			const struct region *p = placed[i];
			if (p->last < r->first || r->last < p->first)
				continue; /* never live together */
			if (off < p->off + p->slots && p->off < off + r->slots) {
				off = p->off + p->slots;
				moved = true;
			}
		}
	}
	r->off = off;
	r->placed = true;
	return off + r->slots;
}

static int plan(struct cc *c)
{
	const struct ftpu_device_info *info = c->info;
	const ftpu_graph *g = c->g;
	char d0[128];
	size_t R = c->R;

	/* one batch size */
	c->M = 0;
	for (size_t s = 0; s < c->n_layers; s++) {
		const struct layer *l = &c->layers[s];
		size_t rows = g->nodes[l->node].rows;
		if (!c->M) {
			c->M = rows;
		} else if (rows != c->M) {
			char d1[128];
			return cfail(c, FTPU_ERR_SHAPE,
				     "%s has %zu rows but %s has %zu: a program runs one batch "
				     "size (all inputs need the same rows)",
				     desc(c, c->layers[0].node, d0, sizeof(d0)), c->M,
				     desc(c, l->node, d1, sizeof(d1)), rows);
		}
	}

	/* weights and biases: resident, each once */
	c->wm_tiles = 0;
	for (size_t i = 0; i < c->n_weights; i++) {
		c->weights[i].tile0 = c->wm_tiles;
		c->wm_tiles += (uint64_t)c->weights[i].KT * c->weights[i].NT;
	}
	if (c->wm_tiles > info->weight_tiles || c->wm_tiles * R > UINT32_MAX) {
		size_t big = 0;
		for (size_t i = 1; i < c->n_weights; i++)
			if (c->weights[i].KT * c->weights[i].NT >
			    c->weights[big].KT * c->weights[big].NT)
				big = i;
		return cfail(c, FTPU_ERR_UNSUPPORTED,
			     "the weights do not fit: %zu constant%s need %" PRIu64
			     " tiles of %zux%zu (the largest, %s, %zu), the device's weight "
			     "memory holds %" PRIu32,
			     c->n_weights, c->n_weights == 1 ? "" : "s", c->wm_tiles, R, R,
			     desc(c, c->weights[big].node, d0, sizeof(d0)),
			     c->weights[big].KT * c->weights[big].NT, info->weight_tiles);
	}
	c->bias_vecs = 0;
	for (size_t i = 0; i < c->n_biases; i++) {
		c->biases[i].vec0 = c->bias_vecs;
		c->bias_vecs += c->biases[i].NT;
	}
	uint64_t bias_cap = info->bias_vectors < ADDR16 ? info->bias_vectors : ADDR16;
	if (c->bias_vecs > bias_cap)
		return cfail(c, FTPU_ERR_UNSUPPORTED,
			     "the biases do not fit: they need %" PRIu64 " vectors of %zu (%zu "
			     "constant%s), the device's bias memory holds %" PRIu64,
			     c->bias_vecs, R, c->n_biases, c->n_biases == 1 ? "" : "s", bias_cap);

	/* Lifetimes in phases: layer s reads its x in phase 2s (HOST_READ,
	 * MATMULs) and writes its activations in phase 2s + 1 (ACTIVATE,
	 * HOST_WRITE), when its x is no longer read: an activation may take
	 * the place of its own layer's input. */
	for (size_t i = 0; i < g->n_inputs; i++)
		c->in[i].ub.slots = c->in[i].KT;
	for (size_t a = 0; a < c->n_acts; a++)
		c->acts[a].ub.first = c->acts[a].ub.last = 2 * c->acts[a].layer + 1;
	for (size_t s = 0; s < c->n_layers; s++) {
		struct layer *l = &c->layers[s];
		/* live into the next layer's MATMULs too, so that they need not
		 * wait for this layer's ACTIVATEs and HOST_WRITEs */
		l->acc.first = 2 * s;
		l->acc.last = 2 * s + 2;
		if (l->src_in >= 0) {
			struct hostin *h = &c->in[l->src_in];
			if (!h->used)
				h->first_layer = s;
			h->used = true;
			h->ub.first = 2 * h->first_layer;
			h->ub.last = 2 * s;
		} else {
			c->acts[l->src_act].ub.last = 2 * s;
		}
	}

	/* UB: inputs and activations in order of first use (an input is read
	 * before its layer, an activation written after it) */
	size_t n_ub = 0, n_acc = 0, ub_slots = 0, acc_slots = 0;
	struct region **placed = calloc(g->n_inputs + c->n_acts + c->n_layers + 1,
					sizeof(*placed));
	if (!placed)
		return cfail(c, FTPU_ERR_NOMEM, "out of memory");
	for (size_t s = 0; s < c->n_layers; s++) {
		for (size_t i = 0; i < g->n_inputs; i++) {
			struct hostin *h = &c->in[i];
			if (h->used && h->first_layer == s && !h->ub.placed) {
				size_t end = place(&h->ub, placed, n_ub);
				placed[n_ub++] = &h->ub;
				ub_slots = end > ub_slots ? end : ub_slots;
			}
		}
		for (size_t a = 0; a < c->n_acts; a++) {
			struct act *x = &c->acts[a];
			if (x->layer == s) {
				size_t end = place(&x->ub, placed, n_ub);
				placed[n_ub++] = &x->ub;
				ub_slots = end > ub_slots ? end : ub_slots;
			}
		}
	}
	for (size_t s = 0; s < c->n_layers; s++) {
		size_t end = place(&c->layers[s].acc, placed + n_ub, n_acc);
		placed[n_ub + n_acc++] = &c->layers[s].acc;
		acc_slots = end > acc_slots ? end : acc_slots;
	}
	free(placed);

	/* the chunk of batch rows */
	size_t ub_cap = info->ub_vectors < ADDR16 ? info->ub_vectors : ADDR16;
	size_t mc = c->M < MAX_N ? c->M : MAX_N;
	if (ub_slots && ub_cap / ub_slots < mc)
		mc = ub_cap / ub_slots;
	if (acc_slots && info->acc_vectors / acc_slots < mc)
		mc = info->acc_vectors / acc_slots;
	if (!mc)
		return cfail(c, FTPU_ERR_UNSUPPORTED,
			     "one batch row does not fit: it needs %zu unified-buffer "
			     "vectors (the device has %zu) and %zu accumulator vectors (the "
			     "device has %" PRIu32 ") for the inputs, activations and "
			     "results that are live together",
			     ub_slots, ub_cap, acc_slots, info->acc_vectors);
	c->mc = mc;
	return FTPU_OK;
}

/* ---- emission ------------------------------------------------------------------------ */

/* Where a layer's deferred input data go: one piece per HOST_READ. */
static void note_input(void *ctx, size_t m0, size_t mc, size_t kt, size_t tiles,
		       size_t at)
{
	struct emit *e = ctx;
	if (e->in)
		e->in[e->n_in] = (struct ftpu__piece){
			.io = (uint32_t)e->io, .kind = FTPU__PIECE_BF16,
			.at = e->n + at, .row0 = m0, .rows = mc,
			.tile0 = (uint32_t)kt, .tiles = (uint32_t)tiles };
	e->n_in++;
}

/* A plan of one chunk of mc rows (all of K and N) for a rows x cols
 * operand; for the constants, one row. */
static void fixed_plan(struct cc *c, size_t M, size_t K, size_t N, size_t mc,
		       const struct ftpu_gemm_opts *o, struct ftpu_gemm_plan *p)
{
	ftpu__gemm_plan_fixed(c->R, M, N, K, mc, div_up(N, c->R), div_up(K, c->R),
			      true, o, p);
}

/* HOST_READ WM of a weight constant's tiles at its place. */
static void emit_weight(struct cc *c, struct emit *e, const struct weight *w)
{
	const struct ftpu__node *n = &c->g->nodes[w->node];
	struct ftpu_gemm_plan p;
	uint16_t *image = NULL;

	fixed_plan(c, 1, n->rows, n->cols, 1, NULL, &p);
	p.wm = (uint32_t)(w->tile0 * c->R);
	if (e->w) {
		image = malloc(p.image_elems * sizeof(*image));
		if (!image) {
			e->nomem = true;
			return;
		}
		const struct ftpu_gemm_operand b = { .f32 = n->values, .ld = n->cols };
		ftpu__gemm_pack_b(&p, &b, image);
	}
	e->n += ftpu__gemm_emit_image(&p, image, e->w ? e->w + e->n : NULL);
	free(image);
}

/* HOST_READ BIAS of a bias constant (fp32, +0 beyond its columns). */
static void emit_bias(struct cc *c, struct emit *e, const struct bias *b)
{
	const struct ftpu__node *n = &c->g->nodes[b->node];
	struct ftpu_gemm_plan p;
	fixed_plan(c, 1, 1, n->cols, 1, NULL, &p);
	e->n += ftpu__gemm_emit_bias(&p, n->values, 0, b->NT, (uint32_t)b->vec0,
				     e->w ? e->w + e->n : NULL);
}

/* Output pieces of a block's DATA, rows [m0, m0 + m) of every n-tile: a
 * piece per HOST_WRITE's worth of whole tiles. */
static void note_output(struct emit *e, size_t io, bool acc, size_t NT, size_t m0,
			size_t m, size_t R)
{
	const size_t per = MAX_N / m;
	for (size_t t0 = 0; t0 < NT; t0 += per) {
		size_t cnt = NT - t0 < per ? NT - t0 : per;
		if (e->out)
			e->out[e->n_out] = (struct ftpu__piece){
				.io = (uint32_t)io,
				.kind = acc ? FTPU__PIECE_F32 : FTPU__PIECE_BF16,
				.at = e->data_at, .row0 = m0, .rows = m,
				.tile0 = (uint32_t)t0, .tiles = (uint32_t)cnt };
		e->n_out++;
		e->data_at += (uint64_t)cnt * m * (acc ? R : R / 2);
	}
}

/* Layer s on rows [m0, m0 + mc) through the GEMM emitter (gemm_plan.h):
 * its x read from the host where an input is first used, else already in
 * UB; its weights resident; its results out of ACC and through its
 * activations into UB, each as often as the graph outputs it. */
static void emit_layer(struct cc *c, struct emit *e, size_t s, size_t m0)
{
	const ftpu_graph *g = c->g;
	const struct layer *l = &c->layers[s];
	const size_t R = c->R, mc = c->mc, m = c->M - m0 < mc ? c->M - m0 : mc;
	struct ftpu_gemm_opts o = { .a_first = true, .b_resident = true, .acts = c->gacts,
				    .a_at = note_input, .ctx = e };
	struct ftpu_gemm_operand a = { 0 }; /* deferred: filled in per run */
	uint32_t src;

	if (l->src_in >= 0) {
		const struct hostin *h = &c->in[l->src_in];
		o.a_resident = h->first_layer != s;
		e->io = (size_t)l->src_in;
		src = (uint32_t)(h->ub.off * mc);
	} else {
		o.a_resident = true;
		src = (uint32_t)(c->acts[l->src_act].ub.off * mc);
	}
	for (size_t j = 0; j < g->n_outputs; j++)
		o.acc_writes += c->outs[j].acc && c->outs[j].layer == (int)s;
	for (size_t i = 0; i < c->n_acts; i++) {
		const struct act *x = &c->acts[i];
		if (x->layer != s)
			continue;
		struct ftpu_gemm_act *ga = &c->gacts[o.n_acts++];
		*ga = (struct ftpu_gemm_act){
			.relu = x->relu, .bias = x->bias >= 0, .ub = (uint32_t)(x->ub.off * mc),
			.bias_at = x->bias >= 0 ? (uint32_t)c->biases[x->bias].vec0 : 0 };
		for (size_t j = 0; j < g->n_outputs; j++)
			ga->writes += !c->outs[j].acc && c->outs[j].act == (int)i;
	}

	struct ftpu_gemm_plan p;
	fixed_plan(c, c->M, l->K, l->N, mc, &o, &p);
	p.ub = src;
	p.acc = (uint32_t)(l->acc.off * mc);
	p.wm = (uint32_t)(c->weights[l->weight].tile0 * R);
	e->n += ftpu__gemm_emit(&p, &a, NULL, false, m0 / mc, m0 / mc + 1, NULL,
				e->w ? e->w + e->n : NULL);

	/* the DATA in the emitter's order: ACC copies, then each activation's */
	for (size_t j = 0; j < g->n_outputs; j++)
		if (c->outs[j].acc && c->outs[j].layer == (int)s)
			note_output(e, j, true, l->NT, m0, m, R);
	for (size_t i = 0; i < c->n_acts; i++)
		for (size_t j = 0; c->acts[i].layer == s && j < g->n_outputs; j++)
			if (!c->outs[j].acc && c->outs[j].act == (int)i)
				note_output(e, j, false, l->NT, m0, m, R);
}

/* Bounds a counting pass: stop early once the program is too large. */
static bool too_big(const struct emit *e)
{
	return e->n > MAX_WORDS;
}

static void emit_all(struct cc *c, struct emit *e, size_t *n_resident)
{
	for (size_t i = 0; i < c->n_weights; i++)
		emit_weight(c, e, &c->weights[i]);
	for (size_t i = 0; i < c->n_biases; i++)
		emit_bias(c, e, &c->biases[i]);
	*n_resident = e->n;

	for (size_t m0 = 0; m0 < c->M && !too_big(e); m0 += c->mc)
		for (size_t s = 0; s < c->n_layers; s++)
			emit_layer(c, e, s, m0);
	e->overflow = too_big(e);
}

/* ---- the program ---------------------------------------------------------------------- */

static int build(struct cc *c, ftpu_program **out)
{
	const ftpu_graph *g = c->g;
	struct emit count = { 0 }, e = { 0 };
	size_t n_resident = 0, n_res2 = 0;
	int ret = FTPU_ERR_NOMEM;

	emit_all(c, &count, &n_resident);
	if (count.overflow)
		return cfail(c, FTPU_ERR_UNSUPPORTED,
			     "the program would exceed %" PRIu64 " words (a batch of %zu "
			     "rows in chunks of %zu)",
			     (uint64_t)MAX_WORDS, c->M, c->mc);

	ftpu_program *p = calloc(1, sizeof(*p));
	if (!p)
		return cfail(c, FTPU_ERR_NOMEM, "out of memory");
	p->dev = (struct ftpu__sizes){
		.rows = c->info->rows, .cols = c->info->cols,
		.ub_vectors = c->info->ub_vectors, .weight_tiles = c->info->weight_tiles,
		.acc_vectors = c->info->acc_vectors, .bias_vectors = c->info->bias_vectors,
	};
	p->n_inputs = g->n_inputs;
	p->n_outputs = g->n_outputs;
	p->inputs = calloc(g->n_inputs + 1, sizeof(*p->inputs));
	p->outputs = calloc(g->n_outputs + 1, sizeof(*p->outputs));
	p->words = malloc((count.n + 1) * sizeof(*p->words));
	p->in_pieces = calloc(count.n_in + 1, sizeof(*p->in_pieces));
	p->out_pieces = calloc(count.n_out + 1, sizeof(*p->out_pieces));
	if (!p->inputs || !p->outputs || !p->words || !p->in_pieces || !p->out_pieces) {
		cfail(c, ret, "out of memory for a program of %zu words", count.n);
		goto out_free;
	}
	for (size_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].op == FTPU__OP_INPUT)
			p->inputs[g->nodes[i].index] = (struct ftpu__shape){
				g->nodes[i].rows, g->nodes[i].cols };
	for (size_t j = 0; j < g->n_outputs; j++)
		p->outputs[j] = (struct ftpu__shape){ g->nodes[g->outputs[j]].rows,
						      g->nodes[g->outputs[j]].cols };

	e.w = p->words;
	e.in = p->in_pieces;
	e.out = p->out_pieces;
	emit_all(c, &e, &n_res2);
	if (e.nomem) {
		cfail(c, ret, "out of memory for the weights' tiles");
		goto out_free;
	}
	p->n_words = e.n;
	p->n_resident = n_res2;
	p->n_in_pieces = e.n_in;
	p->n_out_pieces = e.n_out;

	char why[256];
	ret = ftpu__program_finish(p, why, sizeof(why));
	if (ret) {
		/* cannot happen for a plan that fits: a compiler bug */
		cfail(c, ret == FTPU_ERR_NOMEM ? ret : FTPU_ERR_INVALID,
		      "internal error: the compiled program fails its checks: %s", why);
		ret = ret == FTPU_ERR_NOMEM ? ret : FTPU_ERR_INVALID;
		goto out_free;
	}
	*out = p;
	return FTPU_OK;

out_free:
	ftpu_program_free(p);
	return ret;
}

int ftpu__compile_info(const struct ftpu_device_info *info, const ftpu_graph *g,
		       ftpu_program **out, char *why, size_t why_len)
{
	struct cc c = { .g = g, .info = info, .why = why, .why_len = why_len };
	int ret;

	if (why_len)
		why[0] = '\0';
	if (!info || !g || !out)
		return cfail(&c, FTPU_ERR_INVALID, "ftpu_compile: NULL argument");
	if (g->status)
		return cfail(&c, g->status, "%s", g->msg);
	if (!g->n_outputs)
		return cfail(&c, FTPU_ERR_INVALID,
			     "the graph has no outputs (mark them with ftpu_graph_output)");
	if (info->rows != info->cols || info->rows < 2 || info->rows % 2 ||
	    info->rows > 4096 || !info->ub_vectors || !info->weight_tiles ||
	    !info->acc_vectors || !info->bias_vectors)
		return cfail(&c, FTPU_ERR_UNSUPPORTED,
			     "cannot compile for a %ux%u array with %" PRIu32 " UB, %" PRIu32
			     " weight-tile, %" PRIu32 " accumulator and %" PRIu32
			     " bias vectors (the array must be square, even-sized)",
			     info->rows, info->cols, info->ub_vectors, info->weight_tiles,
			     info->acc_vectors, info->bias_vectors);
	c.R = info->rows;

	size_t nn = g->n_nodes + 1;
	c.cn = calloc(nn, sizeof(*c.cn));
	c.in = calloc(g->n_inputs + 1, sizeof(*c.in));
	c.layers = calloc(nn, sizeof(*c.layers));
	c.acts = calloc(nn, sizeof(*c.acts));
	c.weights = calloc(nn, sizeof(*c.weights));
	c.biases = calloc(nn, sizeof(*c.biases));
	c.outs = calloc(g->n_outputs + 1, sizeof(*c.outs));
	c.gacts = calloc(nn, sizeof(*c.gacts));
	if (!c.cn || !c.in || !c.layers || !c.acts || !c.weights || !c.biases || !c.outs ||
	    !c.gacts) {
		ret = cfail(&c, FTPU_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* live: what the outputs need */
	for (size_t j = 0; j < g->n_outputs; j++)
		c.cn[g->outputs[j]].live = true;
	for (size_t i = g->n_nodes; i-- > 0;)
		if (c.cn[i].live)
			for (unsigned a = 0; a < ftpu__ops[g->nodes[i].op].n_args; a++)
				c.cn[g->nodes[i].arg[a]].live = true;

	ret = classify(&c);
	if (!ret)
		ret = plan(&c);
	if (!ret)
		ret = build(&c, out);
out:
	free(c.cn);
	free(c.in);
	free(c.layers);
	free(c.acts);
	free(c.weights);
	free(c.biases);
	free(c.outs);
	free(c.gacts);
	return ret;
}

int ftpu_compile(ftpu_device *dev, const ftpu_graph *g, ftpu_program **out)
{
	char why[512];
	int ret;

	if ((ret = ftpu__check_device(dev, "ftpu_compile")))
		return ret;
	if (!g || !out)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_compile: %s is NULL",
				  g ? "out" : "graph");
	ftpu__lock(dev);
	ret = ftpu__compile_info(ftpu__info(dev), g, out, why, sizeof(why));
	if (ret)
		ftpu__fail(dev, ret, "ftpu_compile: %s", why);
	ftpu__unlock(dev);
	return ret;
}
