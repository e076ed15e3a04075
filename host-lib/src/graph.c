/* SPDX-License-Identifier: Apache-2.0 */
/*
 * graph.c - the graph builders (ftpu.h): a table of tensors, each the
 * result of one operation on earlier tensors, with their shapes checked as
 * they are built. A builder that fails returns a negative status as the
 * tensor; the graph keeps its first failure (status and message) and
 * ftpu_compile() reports it, so callers may build without checking each
 * step. The detail of a failure is also in ftpu_last_error(NULL) for the
 * calling thread.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "device.h"

/* The operation table; see enum ftpu__op for how to add one. */
const struct ftpu__op_info ftpu__ops[FTPU__OP_COUNT] = {
	[FTPU__OP_INPUT] = { .name = "input", .n_args = 0 },
	[FTPU__OP_CONSTANT] = { .name = "constant", .n_args = 0 },
	[FTPU__OP_MATMUL] = { .name = "matmul", .n_args = 2 },
	[FTPU__OP_BIAS_ADD] = { .name = "bias_add", .n_args = 2 },
	[FTPU__OP_RELU] = { .name = "relu", .n_args = 1 },
};

/* Records a failure: the graph's first one is kept (g may be NULL), and
 * the calling thread's ftpu_last_error(NULL) gets every one. */
__attribute__((format(printf, 3, 4)))
static int fail(ftpu_graph *g, int status, const char *fmt, ...)
{
	char msg[sizeof(g->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (g && !g->status) {
		g->status = status;
		memcpy(g->msg, msg, sizeof(msg));
	}
	return ftpu__fail(NULL, status, "%s", msg);
}

const char *ftpu__tensor_desc(const ftpu_graph *g, int t, char *buf, size_t len)
{
	if (!g || t < 0 || (size_t)t >= g->n_nodes) {
		snprintf(buf, len, "tensor %d", t);
		return buf;
	}
	const struct ftpu__node *n = &g->nodes[t];
	if (n->name)
		snprintf(buf, len, "%s t%d '%.40s' [%zu x %zu]", ftpu__ops[n->op].name, t,
			 n->name, n->rows, n->cols);
	else
		snprintf(buf, len, "%s t%d [%zu x %zu]", ftpu__ops[n->op].name, t, n->rows,
			 n->cols);
	return buf;
}

/* A known failure status passed on as a tensor, or FTPU_ERR_INVALID. */
static int failed_status(int t)
{
	return t < 0 && t >= FTPU_ERR_STATE ? t : FTPU_ERR_INVALID;
}

/* Checks operand t of op (what: "x", "w", ...): a tensor of g, whose node
 * index goes into *idx. Returns 0, or the status to fail with (recorded). */
static int check_arg(ftpu_graph *g, const char *op, const char *what, int t, int *idx)
{
	if (t < 0)
		return fail(g, failed_status(t), "%s: operand %s is a failed tensor (%s)", op,
			    what, ftpu_strerror(failed_status(t)));
	if ((unsigned)t >> FTPU__TENSOR_INDEX_BITS != g->tag)
		return fail(g, FTPU_ERR_INVALID,
			    "%s: operand %s (%d) is not a tensor of this graph (another graph's?)",
			    op, what, t);
	if (FTPU__TENSOR_INDEX(t) >= g->n_nodes)
		return fail(g, FTPU_ERR_INVALID,
			    "%s: operand %s (%d) is not a tensor of this graph (it has %zu)",
			    op, what, t, g->n_nodes);
	*idx = (int)FTPU__TENSOR_INDEX(t);
	return 0;
}

static int check_dims(ftpu_graph *g, const char *op, size_t rows, size_t cols)
{
	if (!rows || !cols)
		return fail(g, FTPU_ERR_INVALID, "%s: zero size [%zu x %zu]", op, rows, cols);
	if (rows >= FTPU__MAX_DIM || cols >= FTPU__MAX_DIM ||
	    (uint64_t)rows * cols > FTPU__MAX_ELEMS ||
	    rows > SIZE_MAX / sizeof(float) / cols)
		return fail(g, FTPU_ERR_INVALID, "%s: size [%zu x %zu] too large", op, rows,
			    cols);
	return 0;
}

/* Appends a node; returns its tensor or a status (recorded). */
static int add_node(ftpu_graph *g, const struct ftpu__node *n)
{
	if (g->n_nodes >= FTPU__MAX_NODES)
		return fail(g, FTPU_ERR_INVALID, "%s: more than %zu tensors", ftpu__ops[n->op].name,
			    FTPU__MAX_NODES);
	if (g->n_nodes == g->cap_nodes) {
		size_t cap = g->cap_nodes ? 2 * g->cap_nodes : 16;
		struct ftpu__node *p = realloc(g->nodes, cap * sizeof(*p));
		if (!p)
			return fail(g, FTPU_ERR_NOMEM, "%s: out of memory", ftpu__ops[n->op].name);
		g->nodes = p;
		g->cap_nodes = cap;
	}
	g->nodes[g->n_nodes] = *n;
	return FTPU__TENSOR_ID(g, g->n_nodes++);
}

int ftpu_graph_create(ftpu_graph **out)
{
	if (!out)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_create: out is NULL");
	static atomic_uint next_tag;
	ftpu_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return fail(NULL, FTPU_ERR_NOMEM, "ftpu_graph_create: out of memory");
	g->tag = atomic_fetch_add(&next_tag, 1) % FTPU__GRAPH_TAGS;
	*out = g;
	return FTPU_OK;
}

void ftpu_graph_destroy(ftpu_graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_nodes; i++) {
		free(g->nodes[i].name);
		free(g->nodes[i].values);
	}
	free(g->nodes);
	free(g->outputs);
	free(g);
}

static char *copy_name(const char *name, bool *nomem)
{
	*nomem = false;
	if (!name)
		return NULL;
	char *s = strdup(name);
	*nomem = !s;
	return s;
}

ftpu_tensor ftpu_graph_input(ftpu_graph *g, size_t rows, size_t cols, const char *name)
{
	struct ftpu__node n = { .op = FTPU__OP_INPUT, .rows = rows, .cols = cols,
				.arg = { -1, -1 } };
	bool nomem;
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_input: graph is NULL");
	if ((ret = check_dims(g, "input", rows, cols)))
		return ret;
	n.name = copy_name(name, &nomem);
	if (nomem)
		return fail(g, FTPU_ERR_NOMEM, "input: out of memory");
	n.index = g->n_inputs;
	ret = add_node(g, &n);
	if (ret < 0)
		free(n.name);
	else
		g->n_inputs++;
	return ret;
}

ftpu_tensor ftpu_graph_constant(ftpu_graph *g, size_t rows, size_t cols,
				const float *values, size_t ld, const char *name)
{
	struct ftpu__node n = { .op = FTPU__OP_CONSTANT, .rows = rows, .cols = cols,
				.arg = { -1, -1 } };
	bool nomem;
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_constant: graph is NULL");
	if ((ret = check_dims(g, "constant", rows, cols)))
		return ret;
	if (!values)
		return fail(g, FTPU_ERR_INVALID, "constant: values is NULL");
	if (ld < cols)
		return fail(g, FTPU_ERR_INVALID, "constant: ld %zu is less than cols %zu", ld,
			    cols);
	if (ld > (SIZE_MAX - cols) / rows)
		return fail(g, FTPU_ERR_INVALID, "constant: ld %zu x %zu rows overflows", ld,
			    rows);
	n.values = malloc(rows * cols * sizeof(float));
	n.name = copy_name(name, &nomem);
	if (!n.values || nomem) {
		free(n.values);
		free(n.name);
		return fail(g, FTPU_ERR_NOMEM, "constant: out of memory");
	}
	for (size_t r = 0; r < rows; r++)
		memcpy(n.values + r * cols, values + r * ld, cols * sizeof(float));
	ret = add_node(g, &n);
	if (ret < 0) {
		free(n.values);
		free(n.name);
	}
	return ret;
}

ftpu_tensor ftpu_graph_matmul(ftpu_graph *g, ftpu_tensor x, ftpu_tensor w)
{
	char dx[96], dw[96];
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_matmul: graph is NULL");
	if ((ret = check_arg(g, "matmul", "x", x, &x)) ||
	    (ret = check_arg(g, "matmul", "w", w, &w)))
		return ret;
	const struct ftpu__node *a = &g->nodes[x], *b = &g->nodes[w];
	if (a->cols != b->rows)
		return fail(g, FTPU_ERR_SHAPE,
			    "matmul: %s times %s: x has %zu columns but w has %zu rows",
			    ftpu__tensor_desc(g, x, dx, sizeof(dx)),
			    ftpu__tensor_desc(g, w, dw, sizeof(dw)), a->cols, b->rows);
	struct ftpu__node n = { .op = FTPU__OP_MATMUL, .rows = a->rows, .cols = b->cols,
				.arg = { x, w } };
	return add_node(g, &n);
}

ftpu_tensor ftpu_graph_bias_add(ftpu_graph *g, ftpu_tensor x, ftpu_tensor bias)
{
	char dx[96], db[96];
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_bias_add: graph is NULL");
	if ((ret = check_arg(g, "bias_add", "x", x, &x)) ||
	    (ret = check_arg(g, "bias_add", "bias", bias, &bias)))
		return ret;
	const struct ftpu__node *a = &g->nodes[x], *b = &g->nodes[bias];
	if (b->rows != 1 || b->cols != a->cols)
		return fail(g, FTPU_ERR_SHAPE,
			    "bias_add: %s plus %s: the bias must be [1 x %zu]",
			    ftpu__tensor_desc(g, x, dx, sizeof(dx)),
			    ftpu__tensor_desc(g, bias, db, sizeof(db)), a->cols);
	struct ftpu__node n = { .op = FTPU__OP_BIAS_ADD, .rows = a->rows, .cols = a->cols,
				.arg = { x, bias } };
	return add_node(g, &n);
}

ftpu_tensor ftpu_graph_relu(ftpu_graph *g, ftpu_tensor x)
{
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_relu: graph is NULL");
	if ((ret = check_arg(g, "relu", "x", x, &x)))
		return ret;
	struct ftpu__node n = { .op = FTPU__OP_RELU, .rows = g->nodes[x].rows,
				.cols = g->nodes[x].cols, .arg = { x, -1 } };
	return add_node(g, &n);
}

int ftpu_graph_output(ftpu_graph *g, ftpu_tensor x)
{
	int ret;

	if (!g)
		return fail(NULL, FTPU_ERR_INVALID, "ftpu_graph_output: graph is NULL");
	if ((ret = check_arg(g, "output", "x", x, &x)))
		return ret;
	if (g->n_outputs >= (size_t)INT32_MAX)
		return fail(g, FTPU_ERR_INVALID, "output: too many outputs");
	if (g->n_outputs == g->cap_outputs) {
		size_t cap = g->cap_outputs ? 2 * g->cap_outputs : 8;
		int *p = realloc(g->outputs, cap * sizeof(*p));
		if (!p)
			return fail(g, FTPU_ERR_NOMEM, "output: out of memory");
		g->outputs = p;
		g->cap_outputs = cap;
	}
	g->outputs[g->n_outputs++] = x;
	return FTPU_OK;
}
