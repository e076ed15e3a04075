/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compile.h - libftpu internals shared by graphs (graph.c), the compiler
 * (compile.c) and programs (program.c), and by their tests. Not installed.
 *
 * A graph is a list of nodes in creation order, which is a topological
 * order: a builder only takes tensors that already exist. A program is the
 * compiler's output: instruction words with their inline data, split into a
 * resident part (constants into the weight and bias memories) and a
 * per-run part, plus "pieces" that say where the inputs' data go in the
 * words and where the outputs' data come in the DATA words.
 */
#ifndef FTPU_COMPILE_H
#define FTPU_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftpu.h"

/* ---- graphs -------------------------------------------------------------------- */

/*
 * The operations. Adding one: a value here, a row in ftpu__ops (graph.c:
 * name and operand count), a builder that checks its shapes, and its
 * lowering in compile.c (classify(): what it becomes on the device).
 */
enum ftpu__op {
	FTPU__OP_INPUT,
	FTPU__OP_CONSTANT,
	FTPU__OP_MATMUL,
	FTPU__OP_BIAS_ADD,
	FTPU__OP_RELU,
	FTPU__OP_COUNT
};

struct ftpu__op_info {
	const char *name; /* in messages: "matmul" */
	unsigned n_args;  /* tensor operands */
};

extern const struct ftpu__op_info ftpu__ops[FTPU__OP_COUNT];

/* Limits of a tensor: rows and cols below FTPU__MAX_DIM, rows * cols at
 * most FTPU__MAX_ELEMS (any larger is FTPU_ERR_INVALID). */
#define FTPU__MAX_DIM ((uint64_t)1 << 31)
#define FTPU__MAX_ELEMS ((uint64_t)1 << 32)

struct ftpu__node {
	enum ftpu__op op;
	size_t rows, cols;
	int arg[2];    /* operand node indices (n_args of them) */
	char *name;    /* input, constant: may be NULL */
	float *values; /* constant: rows x cols, dense row-major */
	size_t index;  /* input: its number among the inputs */
};

/*
 * A tensor id (ftpu_tensor) is the node's index in the low
 * FTPU__TENSOR_INDEX_BITS bits and its graph's tag above them, so that a
 * tensor of another graph is refused rather than taken for this graph's
 * node of the same index (tags repeat only every FTPU__GRAPH_TAGS graphs).
 * Inside the library (nodes' args, outputs, messages' "t7") every tensor
 * is a node index.
 */
#define FTPU__TENSOR_INDEX_BITS 21
#define FTPU__MAX_NODES ((size_t)1 << FTPU__TENSOR_INDEX_BITS)
#define FTPU__GRAPH_TAGS (1u << (31 - FTPU__TENSOR_INDEX_BITS))
#define FTPU__TENSOR_ID(g, index) ((int)((g)->tag << FTPU__TENSOR_INDEX_BITS | (unsigned)(index)))
#define FTPU__TENSOR_INDEX(t) ((size_t)(t) & (FTPU__MAX_NODES - 1))

struct ftpu_graph {
	unsigned tag;  /* below FTPU__GRAPH_TAGS: in its tensors' ids */
	struct ftpu__node *nodes;
	size_t n_nodes, cap_nodes;
	int *outputs; /* node indices, in the order marked */
	size_t n_outputs, cap_outputs;
	size_t n_inputs;
	int status;    /* the first failure of a builder, 0 if none */
	char msg[256]; /* its detail */
};

/* "input t0 'x' [37 x 784]": tensor t of g for messages, into buf. */
const char *ftpu__tensor_desc(const ftpu_graph *g, int t, char *buf, size_t len);

/* ---- programs ------------------------------------------------------------------ */

/* The device sizes a program is compiled for (ftpu_device_info's). */
struct ftpu__sizes {
	uint32_t rows, cols;
	uint32_t ub_vectors, weight_tiles, acc_vectors, bias_vectors;
};

struct ftpu__shape {
	uint64_t rows, cols;
};

enum ftpu__piece_kind {
	FTPU__PIECE_BF16 = 0, /* bf16 vectors: N/2 words (HOST_READ UB, HOST_WRITE UB) */
	FTPU__PIECE_F32 = 1,  /* fp32 vectors: N words (HOST_WRITE ACC) */
};

/*
 * A block of one input's or output's matrix as the device's vectors: rows
 * [row0, row0 + rows) of column tiles [tile0, tile0 + tiles), N = the
 * array's size columns per tile; vector (t, m) (tile tile0 + t, row
 * row0 + m) is at word at + (t * rows + m) * words-per-vector. For an
 * input, at indexes the program's words (the inline data of a HOST_READ
 * UB); for an output, the DATA words of a run. Lanes beyond the matrix's
 * columns are +0 in inputs and ignored in outputs.
 */
struct ftpu__piece {
	uint32_t io;   /* input or output number */
	uint32_t kind; /* enum ftpu__piece_kind; inputs: BF16 */
	uint64_t at;
	uint64_t row0, rows;
	uint32_t tile0, tiles;
};

struct ftpu_program {
	struct ftpu__sizes dev;
	size_t n_inputs, n_outputs;
	struct ftpu__shape *inputs, *outputs;
	/* words[0, n_resident): HOST_READs of WM and BIAS (the constants);
	 * words[n_resident, n_words): the run (inputs, compute, outputs) */
	uint32_t *words;
	size_t n_words, n_resident;
	struct ftpu__piece *in_pieces, *out_pieces;
	size_t n_in_pieces, n_out_pieces;

	/* derived by ftpu__program_finish() */
	uint64_t resident_hash;  /* of the resident words */
	uint64_t resident_bytes; /* WM and BIAS data they carry */
	uint32_t wm_rows;        /* WM rows [0, wm_rows) hold the weights */
	size_t data_words;       /* DATA words a run receives */
	uint32_t *data;          /* their buffer: ftpu__program_data() */
};

/*
 * Compiles g for a device of the given sizes (ftpu_compile without a
 * device). On failure returns the status and writes the reason into why
 * (why_len bytes, may be 0); *out is untouched.
 */
int ftpu__compile_info(const struct ftpu_device_info *info, const ftpu_graph *g,
		       ftpu_program **out, char *why, size_t why_len);

/*
 * Checks a program's structure (sizes, shapes, pieces within their
 * matrices and words, a resident part of whole HOST_READs of WM and BIAS)
 * and derives the fields after `data` (data itself stays NULL until
 * ftpu__program_data). Returns FTPU_OK or FTPU_ERR_CORRUPT with the
 * reason in why. Every program that ftpu_run() may see went through it.
 */
int ftpu__program_finish(ftpu_program *p, char *why, size_t why_len);

/* p's DATA buffer (data_words + 1 words), allocated on the first call;
 * NULL when out of memory. */
uint32_t *ftpu__program_data(ftpu_program *p);

/* Writes the inputs (fp32, rows x cols dense each) into p's words as
 * bf16 (ftpu_f32_to_bf16). */
void ftpu__program_pack(ftpu_program *p, const float *const *inputs);

/* Takes the DATA words apart into the outputs (fp32). */
void ftpu__program_unpack(const ftpu_program *p, const uint32_t *data,
			  float *const *outputs);

/*
 * The program file format (program.c) in memory, for ftpu_program_load and
 * ftpu_program_save and for the tests and fuzz target of the format.
 * ftpu__program_parse reads a whole file image of len bytes: FTPU_OK and
 * a new program in *out, or FTPU_ERR_CORRUPT / FTPU_ERR_UNSUPPORTED /
 * FTPU_ERR_NOMEM with the reason in why (why_len bytes, may be 0).
 * ftpu__program_encode writes the file image of p (the bytes
 * ftpu_program_save writes) into a new buffer (free() it): FTPU_OK,
 * FTPU_ERR_NOMEM, or FTPU_ERR_UNSUPPORTED (counts beyond the format).
 */
int ftpu__program_parse(const uint8_t *buf, size_t len, ftpu_program **out, char *why,
			size_t why_len);
int ftpu__program_encode(const ftpu_program *p, uint8_t **out, size_t *len);

/* The 64-bit FNV-1a hash of n words (as little-endian bytes). */
uint64_t ftpu__hash_words(const uint32_t *w, size_t n);

#endif /* FTPU_COMPILE_H */
