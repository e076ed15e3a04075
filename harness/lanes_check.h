/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lanes_check.h - stream operand vectors through a Verilated ftpu_lanes
 * model (many copies of one numeric unit, possibly pipelined) and compare
 * every lane, bit for bit, with the C reference of numeric.h.
 */
#ifndef FTPU_LANES_CHECK_H
#define FTPU_LANES_CHECK_H

#include "ftpu_sim.h"
#include "ftpu_test.h"

#define LANES_MAX 256

/* The unit's reference: r = ref(x, y, z), with the model's operand layout. */
typedef uint32_t (*lanes_ref_fn)(uint32_t x, uint32_t y, uint32_t z);

struct lanes_batch {
	unsigned n; /* filled lanes */
	uint32_t x[LANES_MAX], y[LANES_MAX], z[LANES_MAX];
};

struct lanes_checker {
	struct ftpu_sim *sim;
	lanes_ref_fn ref;
	const char *unit;
	uint64_t checked;
	uint64_t mismatches; /* since the last lanes_finish: one test's count */
	bool finished;       /* lanes_finish ran; the next push starts afresh */
	/* Batches presented whose results have not come out yet (the pipeline
	 * delay, at most 3 for the adder). */
	struct lanes_batch inflight[4];
	unsigned head, count;
};

/* One clock of the model with batch b's operands (unfilled lanes zero);
 * compares what comes out with the batch presented delay clocks earlier. */
static inline void lanes_clock(struct lanes_checker *c, const struct lanes_batch *b)
{
	unsigned lanes = ftpu_sim_lanes(c->sim), delay = ftpu_sim_lanes_delay(c->sim);
	uint32_t r[LANES_MAX];
	if (c->finished) { /* a new test: count its mismatches alone */
		c->mismatches = 0;
		c->finished = false;
	}
	struct lanes_batch *slot = &c->inflight[(c->head + c->count++) % 4];
	*slot = *b;
	for (unsigned i = slot->n; i < lanes; i++)
		slot->x[i] = slot->y[i] = slot->z[i] = 0;
	ftpu_sim_lanes_eval(c->sim, slot->x, slot->y, slot->z, r);
	if (c->count <= delay)
		return;
	const struct lanes_batch *o = &c->inflight[c->head];
	c->head = (c->head + 1) % 4, c->count--;
	for (unsigned i = 0; i < o->n; i++) {
		uint32_t want = c->ref(o->x[i], o->y[i], o->z[i]);
		if (r[i] != want && c->mismatches++ < 10)
			fprintf(stderr,
				"%s mismatch: x=%08" PRIx32 " y=%08" PRIx32
				" z=%08" PRIx32 ": rtl %08" PRIx32
				" ref %08" PRIx32 "\n",
				c->unit, o->x[i], o->y[i], o->z[i], r[i], want);
	}
	c->checked += o->n;
}

/* Queue one vector; clocks the model when the batch is full. */
static inline void lanes_push(struct lanes_checker *c, struct lanes_batch *b,
			      uint32_t x, uint32_t y, uint32_t z)
{
	b->x[b->n] = x;
	b->y[b->n] = y;
	b->z[b->n] = z;
	if (++b->n == ftpu_sim_lanes(c->sim)) {
		lanes_clock(c, b);
		b->n = 0;
	}
}

/* Clock the partial batch, then empty batches until every vector queued so
 * far has come out and been checked (the empties stay in flight).
 * c->mismatches then holds this test's count; the next push resets it. */
static inline void lanes_finish(struct lanes_checker *c, struct lanes_batch *b)
{
	static const struct lanes_batch empty;
	if (b->n)
		lanes_clock(c, b);
	b->n = 0;
	for (unsigned i = 0; i < ftpu_sim_lanes_delay(c->sim); i++)
		lanes_clock(c, &empty);
	c->finished = true;
}

/* cmocka group setup: open the lanes model, keep one checker in *state. */
static inline int lanes_setup(void **state, struct ftpu_sim *(*open)(const char *),
			      lanes_ref_fn ref, const char *unit)
{
	static struct lanes_checker c;
	c = (struct lanes_checker){ .ref = ref, .unit = unit };
	c.sim = open(NULL);
	if (!c.sim || ftpu_sim_lanes(c.sim) > LANES_MAX)
		return -1;
	*state = &c;
	return 0;
}

static inline int lanes_teardown(void **state)
{
	struct lanes_checker *c = *state;
	ftpu_sim_close(c->sim);
	return 0;
}

#endif /* FTPU_LANES_CHECK_H */
