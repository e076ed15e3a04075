/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lanes_check.h - run operand vectors through a Verilated ftpu_lanes model
 * (many copies of one numeric unit) and compare every lane, bit for bit,
 * with the C reference of numeric.h.
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
	uint64_t checked, mismatches;
};

/* Evaluate a batch (unfilled lanes are zero) and compare; prints the first
 * few mismatches with their operands. */
static inline void lanes_flush(struct lanes_checker *c, struct lanes_batch *b)
{
	unsigned lanes = ftpu_sim_lanes(c->sim);
	uint32_t r[LANES_MAX];
	for (unsigned i = b->n; i < lanes; i++)
		b->x[i] = b->y[i] = b->z[i] = 0;
	ftpu_sim_lanes_eval(c->sim, b->x, b->y, b->z, r);
	for (unsigned i = 0; i < b->n; i++) {
		uint32_t want = c->ref(b->x[i], b->y[i], b->z[i]);
		if (r[i] != want && c->mismatches++ < 10)
			fprintf(stderr,
				"%s mismatch: x=%08" PRIx32 " y=%08" PRIx32
				" z=%08" PRIx32 ": rtl %08" PRIx32
				" ref %08" PRIx32 "\n",
				c->unit, b->x[i], b->y[i], b->z[i], r[i], want);
	}
	c->checked += b->n;
	b->n = 0;
}

/* Queue one vector; evaluates when the batch is full. */
static inline void lanes_push(struct lanes_checker *c, struct lanes_batch *b,
			      uint32_t x, uint32_t y, uint32_t z)
{
	b->x[b->n] = x;
	b->y[b->n] = y;
	b->z[b->n] = z;
	if (++b->n == ftpu_sim_lanes(c->sim))
		lanes_flush(c, b);
}

#endif /* FTPU_LANES_CHECK_H */
