/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_pair.h - the soft device (on soc_fake_hal.h) and the C model
 * (model/ref_device.c, the oracle) fed the same bytes, their frames
 * decoded with proto/link.c and compared: everything but the credit field
 * and the cycle counters (READ_COUNTERS cycles, busy, idle), which the soft
 * device measures and the model cannot. For tests/firmware/test_soc_device.c.
 *
 * Bytes go in segments: the model takes each in one write, the device the
 * whole stream at the fake line's pace. A frame is a segment of its own, so
 * that the model's bytes_in (counted per write) is the bytes up to the end
 * of a READ_COUNTERS frame, as the device counts them.
 */
#ifndef SOC_PAIR_H
#define SOC_PAIR_H

#include "isa.h"
#include "link.h"
#include "ref_device.h"

struct frame {
	uint8_t type, flags;
	uint16_t seq, credit, len;
	uint32_t *p;
};

struct frames {
	struct frame *f;
	size_t n, cap, errors;
};

static void frames_free(struct frames *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->f[i].p);
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

static void frames_on_frame(void *ctx, const struct ftpu_link_frame *fr)
{
	struct frames *fs = ctx;
	fs->f = fake_grow(fs->f, &fs->cap, (fs->n + 1) * sizeof(*fs->f));
	struct frame *g = &fs->f[fs->n++];
	*g = (struct frame){ .type = fr->type, .flags = fr->flags, .seq = fr->seq,
			     .credit = fr->credit, .len = fr->len };
	g->p = malloc((fr->len + 1) * sizeof(uint32_t));
	assert_non_null(g->p);
	memcpy(g->p, fr->payload, fr->len * sizeof(uint32_t));
}

static void frames_on_error(void *ctx, const struct ftpu_link_error *e)
{
	(void)e;
	((struct frames *)ctx)->errors++;
}

/* The frames in n device bytes (whole frames: a device sends no other). */
static void frames_decode(struct frames *fs, const uint8_t *b, size_t n)
{
	static uint32_t buf[FTPU_LINK_MAX_PAYLOAD];
	struct ftpu_link_rx rx;
	const struct ftpu_link_rx_cb cb = { .frame = frames_on_frame,
					    .error = frames_on_error, .ctx = fs };
	assert_int_equal(ftpu_link_rx_init(&rx, buf, FTPU_LINK_MAX_PAYLOAD), 0);
	assert_int_equal(ftpu_link_rx_set_role(&rx, FTPU_LINK_ROLE_HOST), 0);
	assert_int_equal(ftpu_link_rx_push(&rx, b, n, &cb), 0);
	assert_int_equal(ftpu_link_rx_pending(&rx), 0);
}

static struct soc_storage pair_storage;

struct pair {
	struct ftpu_ref_device *model;
	struct ftpu_ref_device_config mcfg;
	struct soc_device dev;
	uint16_t seq;
	/* the batch being built: bytes and where each segment ends */
	uint8_t *b;
	size_t len, cap;
	size_t *ends;
	size_t nends, ends_cap;
	size_t out_done; /* fake.out bytes compared already */
	struct frames got, want; /* of the last batch */
};

static struct soc_device_config soc_config_of(const struct ftpu_ref_device_config *m)
{
	return (struct soc_device_config){
		.n = m->n, .row_delay = m->row_delay, .ub_vectors = m->ub_vectors,
		.wm_rows = m->wm_rows, .acc_vectors = m->acc_vectors,
		.bias_vectors = m->bias_vectors, .rx_words = m->rx_words,
		.clock_hz = m->clock_hz, .link_bytes = m->link_bytes, .in_order = m->in_order,
	};
}

static void pair_open(struct pair *p, const struct ftpu_ref_device_config *mcfg,
		      enum fake_rate mode, unsigned rate, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	fake_reset(mode, rate, seed);
	p->mcfg = *mcfg;
	assert_false(p->mcfg.vector_unit); /* the soft device has none */
	assert_int_equal(ftpu_ref_device_open(mcfg, &p->model), 0);
	struct soc_device_config c = soc_config_of(mcfg);
	assert_int_equal(soc_device_init(&p->dev, &pair_storage, &c), 0);
}

static void pair_close(struct pair *p)
{
	ftpu_ref_device_close(p->model);
	frames_free(&p->got);
	frames_free(&p->want);
	free(p->b);
	free(p->ends);
	memset(p, 0, sizeof(*p));
}

/* One segment of host bytes. */
static void pair_bytes(struct pair *p, const void *bytes, size_t n)
{
	p->b = fake_grow(p->b, &p->cap, p->len + n);
	memcpy(p->b + p->len, bytes, n);
	p->len += n;
	p->ends = fake_grow(p->ends, &p->ends_cap, (p->nends + 1) * sizeof(size_t));
	p->ends[p->nends++] = p->len;
}

/* A frame with the next seq (reserved flags allowed); returns its seq. */
static uint16_t pair_frame(struct pair *p, unsigned type, unsigned flags,
			   const uint32_t *w, size_t n)
{
	size_t cap = FTPU_LINK_FRAME_BYTES(n);
	uint8_t *buf = malloc(cap);
	assert_non_null(buf);
	int len = ftpu_link_encode_flags(type, flags, ++p->seq, 0, w, n, buf, cap);
	assert_true(len > 0);
	pair_bytes(p, buf, (size_t)len);
	free(buf);
	return p->seq;
}

static void pair_control(struct pair *p, uint32_t op)
{
	pair_frame(p, FTPU_LINK_CONTROL, 0, &op, 1);
}

/* A program in as few frames as the receive buffer takes. */
static void pair_program(struct pair *p, const uint32_t *w, size_t n)
{
	size_t at = 0, max = p->mcfg.rx_words - 2;
	do {
		size_t piece = n - at < max ? n - at : max;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + piece == n ? FTPU_PROGRAM_END : 0);
		pair_frame(p, FTPU_LINK_PROGRAM, flags, w + at, piece);
		at += piece;
	} while (at < n);
}

/* A program in frames cut at random words (empty ones too). */
static void pair_program_split(struct pair *p, const uint32_t *w, size_t n, struct rng *r)
{
	size_t at = 0;
	do {
		size_t piece = rng_below(r, 4) ? rng_below(r, 40) : n - at;
		if (piece > n - at)
			piece = n - at;
		if (piece > p->mcfg.rx_words - 2)
			piece = p->mcfg.rx_words - 2;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + piece == n ? FTPU_PROGRAM_END : 0);
		pair_frame(p, FTPU_LINK_PROGRAM, flags, w + at, piece);
		at += piece;
	} while (at < n);
}

/* Runs the device until it has taken every byte on the wire and has
 * nothing left to do. */
static void pair_settle(struct pair *p)
{
	for (unsigned long turns = 0;
	     fake.in_pos < fake.in_len || !soc_device_drained(&p->dev); turns++) {
		assert_true(turns < 100000000ul);
		soc_device_step(&p->dev);
	}
	soc_device_step(&p->dev); /* an idle turn: the LED goes off */
	assert_false(fake.busy);
	assert_int_equal(p->dev.ring.lost, 0);
}

/* Feeds the batch's segments to the model and decodes its answer into
 * p->want. */
static void pair_model(struct pair *p)
{
	uint8_t buf[8192];
	size_t n, at = 0, len = 0, cap = 0;
	uint8_t *out = NULL;

	frames_free(&p->want);
	for (size_t i = 0; i < p->nends; i++) {
		assert_int_equal(ftpu_ref_device_write(p->model, p->b + at, p->ends[i] - at), 0);
		at = p->ends[i];
	}
	while ((n = ftpu_ref_device_read(p->model, buf, sizeof(buf))) > 0) {
		out = fake_grow(out, &cap, len + n);
		memcpy(out + len, buf, n);
		len += n;
	}
	frames_decode(&p->want, out, len);
	free(out);
	p->len = p->nends = 0;
}

/* Feeds the batch to both, decodes what each said into p->got (device) and
 * p->want (model). */
static void pair_run(struct pair *p)
{
	size_t out0 = fake.out_len;
	frames_free(&p->got);
	fake_send(p->b, p->len);
	pair_model(p);
	pair_settle(p);
	frames_decode(&p->got, fake.out + out0, fake.out_len - out0);
}

static bool is_counters(const struct frame *f)
{
	return f->type == FTPU_LINK_RESPONSE && f->len == 2 + FTPU_LINK_CNT_COUNT &&
	       f->p[0] == FTPU_LINK_OP_READ_COUNTERS && f->p[1] == FTPU_LINK_RESP_OK;
}

/* Frame i of got against want: equal but for the credit and cycle counts;
 * the credit within the receive buffer, all of it in a RESPONSE (CONTROL
 * frames are answered between PROGRAM frames). */
static void frame_check(const struct pair *p, size_t i)
{
	const struct frame *g = &p->got.f[i], *w = &p->want.f[i];
	uint32_t iq = p->mcfg.rx_words > 0xffff ? 0xffff : p->mcfg.rx_words;
	if (g->type != w->type || g->seq != w->seq || g->len != w->len || g->flags != w->flags)
		fail_msg("frame %zu: type %#x seq %u len %u, the model's %#x seq %u len %u", i,
			 g->type, g->seq, g->len, w->type, w->seq, w->len);
	for (size_t k = 0; k < g->len; k++) {
		if (is_counters(g) && (k == 2 + FTPU_LINK_CNT_CYCLES ||
				       k == 2 + FTPU_LINK_CNT_BUSY || k == 2 + FTPU_LINK_CNT_IDLE))
			continue;
		if (g->p[k] != w->p[k])
			fail_msg("frame %zu (type %#x, op/kind %u): word %zu is %#x, the model's %#x",
				 i, g->type, g->p[0], k, g->p[k], w->p[k]);
	}
	if (is_counters(g)) /* the device's own: busy within cycles, idle the rest */
		assert_int_equal(g->p[2 + FTPU_LINK_CNT_IDLE],
				 g->p[2 + FTPU_LINK_CNT_CYCLES] - g->p[2 + FTPU_LINK_CNT_BUSY]);
	assert_true(g->credit <= iq);
	if (g->type == FTPU_LINK_RESPONSE)
		assert_int_equal(g->credit, iq);
}

static void pair_compare(struct pair *p)
{
	assert_int_equal(p->got.errors, 0);
	assert_int_equal(p->want.errors, 0);
	if (p->got.n != p->want.n)
		fail_msg("the device sent %zu frames, the model %zu", p->got.n, p->want.n);
	for (size_t i = 0; i < p->got.n; i++)
		frame_check(p, i);
}

/* Runs the batch and compares every frame. */
static void pair_check(struct pair *p)
{
	pair_run(p);
	pair_compare(p);
}

/* ---- programs ------------------------------------------------------------ */

struct prog {
	uint32_t *w;
	size_t n, cap;
};

static void prog_word(struct prog *g, uint32_t w)
{
	g->w = fake_grow(g->w, &g->cap, (g->n + 1) * sizeof(uint32_t));
	g->w[g->n++] = w;
}

static void prog_ins(struct prog *g, unsigned op, unsigned flags, unsigned n,
		     uint32_t a, uint32_t b)
{
	uint32_t w[FTPU_ISA_WORDS];
	ftpu_isa_encode(w, op, flags, n, a, b);
	for (unsigned i = 0; i < FTPU_ISA_WORDS; i++)
		prog_word(g, w[i]);
}

static void prog_free(struct prog *g)
{
	free(g->w);
	memset(g, 0, sizeof(*g));
}

#endif /* SOC_PAIR_H */
