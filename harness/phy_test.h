/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phy_test.h - helpers the PHY adapter tests (tests/rtl/test_phy_*.c)
 * share around the Verilated PHY models (sim/ftpu_sim_phy.h): a table of
 * models by name, opening one and checking its kind, the clocks with the
 * pin clock at a random phase, growable byte vectors compared exactly, and
 * the core side of a run (a byte source and a byte sink on the core clock,
 * at random rates, the sink with long stalls). Header-only; include it
 * after <cmocka.h>.
 */
#ifndef FTPU_PHY_TEST_H
#define FTPU_PHY_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ftpu_test.h"
#include "ftpu_sim_phy.h"

/* ---- models -------------------------------------------------------------- */

/* One model of a test's table: its name in messages, its opener. */
struct phy_model {
	const char *name;
	struct ftpu_sim *(*open)(const char *trace_path);
};

/* Opens model pm (no trace), which must be a PHY of kind; fills *cfg. */
static inline struct ftpu_sim *phy_open(const struct phy_model *pm,
					enum ftpu_sim_phy_kind kind,
					struct ftpu_sim_phy_config *cfg)
{
	struct ftpu_sim *sim = pm->open(NULL);
	assert_non_null(sim);
	assert_true(ftpu_sim_phy_get_config(sim, cfg));
	assert_int_equal(cfg->kind, kind);
	return sim;
}

/* Core and pin clock periods (ps), the pin clock's phase drawn from g. */
static inline void phy_set_clocks(struct ftpu_sim *sim, struct rng *g,
				  uint32_t core_ps, uint32_t pin_ps)
{
	assert_true(ftpu_sim_phy_set_clocks(sim, core_ps, pin_ps,
					    rng_below(g, pin_ps)));
}

/* ---- byte vectors -------------------------------------------------------- */

struct u8v {
	uint8_t *p;
	size_t n, cap;
};

static inline void u8_push(struct u8v *v, uint8_t b)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->p = realloc(v->p, v->cap);
		assert_non_null(v->p);
	}
	v->p[v->n++] = b;
}

static inline void u8_free(struct u8v *v)
{
	free(v->p);
	*v = (struct u8v){0};
}

/* n random bytes from g onto v. */
static inline void fill_random(struct u8v *v, struct rng *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		u8_push(v, (uint8_t)rng_u32(g));
}

/* got equals want byte for byte; a failure names what and the first
 * difference. */
static inline void assert_bytes_equal(const struct u8v *got,
				      const struct u8v *want, const char *what)
{
	if (got->n != want->n)
		print_error("%s: %zu bytes, want %zu\n", what, got->n, want->n);
	assert_int_equal(got->n, want->n);
	for (size_t i = 0; i < want->n; i++) {
		if (got->p[i] != want->p[i])
			print_error("%s: byte %zu is %02x, want %02x\n", what,
				    i, got->p[i], want->p[i]);
		assert_int_equal(got->p[i], want->p[i]);
	}
}

/* ---- the core side of a run ---------------------------------------------- */

/*
 * A sink's ready for one cycle: low through a long stall (20 to 319
 * cycles; one starts with a chance of stall_per_mille a cycle), otherwise
 * high with a chance of ready out of scale.
 */
static inline bool phy_sink_ready(struct rng *g, unsigned *stall_left,
				  unsigned stall_per_mille, unsigned ready,
				  unsigned scale)
{
	if (*stall_left)
		(*stall_left)--;
	else if (rng_below(g, 1000) < stall_per_mille)
		*stall_left = 20 + rng_below(g, 300);
	return !*stall_left && rng_below(g, scale) < ready;
}

/* The PHY's byte ports on the core clock: a source offering src, a sink
 * collecting into sunk. Chances are out of scale. */
struct phy_core {
	struct u8v src;	 /* bytes the device sends */
	size_t src_next; /* next to offer */
	struct u8v sunk; /* bytes the device received */
	unsigned scale;	 /* of the chances: ready, valid out of scale */
	unsigned ready;	 /* the sink's out_ready chance */
	unsigned valid;	 /* the source's in_valid chance */
	unsigned stall_per_mille, stall_left; /* the sink's long stalls */
};

/* Empty, both sides always ready. */
static inline void phy_core_init(struct phy_core *c, unsigned scale)
{
	*c = (struct phy_core){0};
	c->scale = c->ready = c->valid = scale;
}

static inline void phy_core_free(struct phy_core *c)
{
	u8_free(&c->src);
	u8_free(&c->sunk);
}

/* Before a core edge: the sink's out_ready, and the next byte offered on
 * in_valid / in_byte when none is on offer. */
static inline void phy_core_drive(struct phy_core *c, struct rng *g,
				  bool *out_ready, bool *in_valid,
				  uint8_t *in_byte)
{
	*out_ready = phy_sink_ready(g, &c->stall_left, c->stall_per_mille,
				    c->ready, c->scale);
	if (!*in_valid && c->src_next < c->src.n &&
	    rng_below(g, c->scale) < c->valid) {
		*in_valid = true;
		*in_byte = c->src.p[c->src_next];
	}
}

/* After a core edge, from the sampled outputs: the byte the sink took, the
 * offer the PHY took. True when the PHY took a byte from the source. */
static inline bool phy_core_edge(struct phy_core *c, bool out_valid,
				 bool out_ready, uint8_t out_byte,
				 bool *in_valid, bool in_ready)
{
	if (out_valid && out_ready)
		u8_push(&c->sunk, out_byte);
	if (!*in_valid || !in_ready)
		return false;
	c->src_next++;
	*in_valid = false;
	return true;
}

#endif /* FTPU_PHY_TEST_H */
