/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_link_rtl.c - the link layer RTL (rtl/link/ftpu_link_rx.sv,
 * ftpu_link_tx.sv in sim/tops/ftpu_link_loop.sv) against the protocol's C
 * reference (proto/link.c): ftpu_link_encode makes the frames, and
 * the C receiver, fed the same bytes in step with the RTL and admitting as
 * the RTL must (docs/protocol.md §6: PROGRAM frames by the receive buffer's
 * credit, CONTROL frames by the one-frame mailbox), says which frames,
 * errors and acknowledged seq the RTL receiver must produce. The receiver
 * must never stall its input, the handshakes must hold their data while not
 * taken, and every run has a cycle budget.
 *
 * Built twice: FTPU_LINK_BYTES 1 (the byte-wide link of the boards, model
 * link_loop) and 4 (the simulated device's word port, model link_loop_w4,
 * test_link_rtl_w4.c): beats of 1 to 4 bytes at random, and a receiver
 * that may hold its input (in_ready) while the hunt takes a byte a cycle.
 * At 4 the C receiver runs ahead of the RTL by the staging register, so
 * the per-cycle checks of ack_seq and credit and the tests whose expected
 * refusals depend on that timing (credit, flush, mailbox timing) run at 1
 * only; every other test compares the same frames, errors and counters.
 */
#ifndef FTPU_LINK_BYTES
#define FTPU_LINK_BYTES 1
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "ftpu.h"
#include "ftpu_sim.h"
#include "link.h"

/* The device's receiver takes CONTROL and PROGRAM (ftpu_link_rx TypeFirst,
 * TypeLast); everything else with a good header is UNKNOWN_TYPE. */
#define DEV_TYPE_FIRST FTPU_LINK_CONTROL
#define DEV_TYPE_LAST FTPU_LINK_PROGRAM
#define MAXP FTPU_LINK_MAX_PAYLOAD

/* ---- growable arrays ----------------------------------------------------- */

struct u8v {
	uint8_t *p;
	size_t n, cap;
};

struct u32v {
	uint32_t *p;
	size_t n, cap;
};

/* An error report, as the RTL gives it (unknown seq/type all ones). */
struct rerr {
	unsigned code, seq, type;
};

struct errv {
	struct rerr *p;
	size_t n, cap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? 2 * *cap : 256;
	p = realloc(p, *cap * size);
	assert_non_null(p);
	return p;
}

static void u8_push(struct u8v *v, const void *src, size_t n)
{
	v->p = grow(v->p, &v->cap, v->n + n, 1);
	memcpy(v->p + v->n, src, n);
	v->n += n;
}

static void u32_push(struct u32v *v, uint32_t w)
{
	v->p = grow(v->p, &v->cap, v->n + 1, sizeof(*v->p));
	v->p[v->n++] = w;
}

static void err_push(struct errv *v, unsigned code, unsigned seq, unsigned type)
{
	v->p = grow(v->p, &v->cap, v->n + 1, sizeof(*v->p));
	v->p[v->n++] = (struct rerr){code, seq, type};
}

/* ---- frames -------------------------------------------------------------- */

struct frame {
	unsigned type, flags, seq, credit, len;
	const uint32_t *payload;
};

/* Random payload words; frames point into it. */
static uint32_t pool[2 * MAXP];

static void fill_pool(struct rng *r)
{
	for (size_t i = 0; i < 2 * MAXP; i++)
		pool[i] = rng_u32(r);
}

static struct frame rand_frame(struct rng *r, unsigned type, unsigned len)
{
	struct frame f = {
		.type = type,
		.flags = 0,
		.seq = rng_u32(r) & 0xffff,
		.credit = rng_u32(r) & 0xffff,
		.len = len,
		.payload = pool + rng_below(r, MAXP),
	};
	return f;
}

/* A length that favours short frames but reaches the maximum. */
static unsigned rand_len(struct rng *r)
{
	switch (rng_below(r, 8)) {
	case 0:
		return 0;
	case 1:
		return rng_below(r, 4);
	case 2:
		return rng_below(r, MAXP + 1);
	default:
		return rng_below(r, 200);
	}
}

/* Appends the frame's bytes: ftpu_link_encode's for flags 0 and a valid
 * type. Other frames (flags, invalid types, oversize len_field) are laid
 * out here the same way; test_link_rtl_frame_builder checks that this
 * agrees with the codec wherever the codec can be asked. */
static void put_frame_len(struct u8v *b, const struct frame *f,
			  unsigned len_field)
{
	uint8_t w[16];
	uint32_t hcrc, pcrc;

	if (!f->flags && len_field == f->len && ftpu_link_type_valid(f->type)) {
		size_t n = FTPU_LINK_FRAME_BYTES(f->len);
		uint8_t *tmp = malloc(n);
		assert_non_null(tmp);
		assert_int_equal(ftpu_link_encode(f->type, (uint16_t)f->seq,
						  (uint16_t)f->credit,
						  f->payload, f->len, tmp, n),
				 (int)n);
		u8_push(b, tmp, n);
		free(tmp);
		return;
	}
	ftpu_link_put_le32(w, FTPU_LINK_SYNC);
	ftpu_link_put_le32(w + 4, FTPU_LINK_W1(f->type, f->flags, f->seq));
	ftpu_link_put_le32(w + 8, FTPU_LINK_W2(len_field, f->credit));
	hcrc = ftpu_crc32_update(0, w, 12);
	ftpu_link_put_le32(w + 12, hcrc);
	u8_push(b, w, 16);
	pcrc = hcrc; /* link.h: PCRC = CRC of w0..w2 and the payload */
	for (unsigned i = 0; i < f->len; i++) {
		ftpu_link_put_le32(w, f->payload[i]);
		pcrc = ftpu_crc32_update(pcrc, w, 4);
		u8_push(b, w, 4);
	}
	ftpu_link_put_le32(w, pcrc);
	u8_push(b, w, 4);
}

static void put_frame(struct u8v *b, const struct frame *f)
{
	put_frame_len(b, f, f->len);
}

/* The receive-buffer words of a frame: w1, w2, payload. */
static void frame_words(struct u32v *v, const struct frame *f)
{
	u32_push(v, FTPU_LINK_W1(f->type, f->flags, f->seq));
	u32_push(v, FTPU_LINK_W2(f->len, f->credit));
	for (unsigned i = 0; i < f->len; i++)
		u32_push(v, f->payload[i]);
}

/* A frame's words where the device delivers it: CONTROL frames through the
 * mailbox (ctl), the others through the receive buffer (words). */
static void expect_frame(struct u32v *words, struct u32v *ctl,
			 const struct frame *f)
{
	frame_words(f->type == FTPU_LINK_CONTROL ? ctl : words, f);
}

/* Words a frame of len payload words takes in the receive buffer, or in
 * the mailbox: w1, w2 and the payload. */
#define FRAME_WORDS(len) ((len) + 2u)
#define MAXC FTPU_LINK_MAX_CONTROL

/* ---- the C reference receiver -------------------------------------------- */

/*
 * link.c's receiver (role DEVICE) runs in step with the RTL: it is fed each
 * byte in the cycle the RTL takes it, and its admit callback decides as
 * ftpu_link_rx does (docs/protocol.md §6) from a mirror of the RTL's two
 * readers: the receive buffer's unread words (committed by a frame the C
 * receiver delivered, not yet taken by the harness) and the mailbox's held
 * frame. Its frames, errors, counters and acknowledged seq are what the RTL
 * must produce.
 */
struct oracle {
	struct ftpu_link_rx rx;
	uint32_t buf[MAXP];
	struct u32v words; /* the receive buffer's words to come, from 0 */
	struct u32v ctl;   /* the mailbox's */
	struct errv errs;
	unsigned cap;	   /* receive-buffer words */
	size_t unread;	   /* committed receive-buffer words not taken */
	unsigned ctl_left; /* words of the held mailbox frame not taken; 0:
			      free */
	bool admit_all;	   /* loop mode: the harness cannot see the readers */
	/* the frame the current byte completed, applied after the cycle's
	 * reads and flush */
	bool pend;
	bool pend_ctl;
	struct u32v pend_words;
};

static int oracle_admit(void *ctx, const struct ftpu_link_header *h)
{
	const struct oracle *o = ctx;

	if (o->admit_all)
		return 0;
	if (h->type == FTPU_LINK_CONTROL)
		return h->len > FTPU_LINK_MAX_CONTROL || o->ctl_left
			       ? FTPU_LINK_ERR_OVERFLOW
			       : 0;
	return h->len + 2u > o->cap - o->unread ? FTPU_LINK_ERR_OVERFLOW : 0;
}

static void oracle_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct oracle *o = ctx;

	assert_false(o->pend);
	o->pend = true;
	o->pend_ctl = f->type == FTPU_LINK_CONTROL;
	o->pend_words.n = 0;
	u32_push(&o->pend_words, FTPU_LINK_W1(f->type, f->flags, f->seq));
	u32_push(&o->pend_words, FTPU_LINK_W2(f->len, f->credit));
	for (unsigned i = 0; i < f->len; i++)
		u32_push(&o->pend_words, f->payload[i]);
}

static void oracle_error(void *ctx, const struct ftpu_link_error *e)
{
	struct oracle *o = ctx;

	err_push(&o->errs, e->code,
		 e->seq == FTPU_LINK_UNKNOWN ? 0xffff : e->seq,
		 e->type == FTPU_LINK_UNKNOWN ? 0xff : e->type);
}

/* A fresh receiver, as the RTL's after reset: both readers empty. */
static void oracle_init(struct oracle *o, unsigned cap)
{
	assert_int_equal(ftpu_link_rx_init(&o->rx, o->buf, MAXP), FTPU_OK);
	assert_int_equal(ftpu_link_rx_set_role(&o->rx, FTPU_LINK_ROLE_DEVICE),
			 FTPU_OK);
	o->words.n = o->ctl.n = o->errs.n = 0;
	o->cap = cap;
	o->unread = 0;
	o->ctl_left = 0;
	o->pend = false;
}

static void oracle_push(struct oracle *o, uint8_t byte)
{
	struct ftpu_link_rx_cb cb = {oracle_admit, oracle_frame, oracle_error,
				     o};

	assert_int_equal(ftpu_link_rx_push(&o->rx, &byte, 1, &cb), FTPU_OK);
}

/* The RTL's acknowledged seq for the C receiver's (-1 before any is 0). */
static unsigned oracle_ack(const struct oracle *o)
{
	int32_t ack = ftpu_link_rx_ack(&o->rx);

	return ack < 0 ? 0 : (unsigned)ack;
}

static void oracle_free(struct oracle *o)
{
	free(o->words.p);
	free(o->ctl.p);
	free(o->errs.p);
	free(o->pend_words.p);
}

/* ---- the harness --------------------------------------------------------- */

struct harness {
	struct ftpu_sim *sim;
	struct rng r;
	unsigned cap; /* receive-buffer words */
	bool loop;
	/* bytes into the receiver */
	struct u8v in;
	size_t in_pos;
	unsigned in_gap; /* per mille: idle input cycles */
	/* flush in the next cycle, or in the cycle byte flush_at is taken
	 * (SIZE_MAX: never) */
	bool flush_now;
	size_t flush_at;
	/* the receive buffer's reader */
	bool out_hold;	    /* stalled */
	unsigned out_stall; /* per mille: not ready */
	struct u32v words;
	/* the mailbox's reader */
	bool ctl_hold;
	unsigned ctl_stall;
	struct u32v ctl_words;
	/* the error consumer */
	bool err_hold;
	struct errv errs;
	/* words into, bytes out of the transmitter */
	struct u32v tx_in;
	size_t tx_pos;
	unsigned tx_gap, tx_stall;
	struct u8v tx_out;
	/* when set, credit must be cap - (committed - words taken) */
	bool track_credit;
	size_t committed;
	struct ftpu_sim_link_io prev;
	uint64_t cycles;
	struct oracle o;
};

static struct ftpu_sim *link_sim;
static uint64_t test_seed;

static bool chance(struct rng *r, unsigned per_mille)
{
	return per_mille && rng_below(r, 1000) < per_mille;
}

/* One clock: drives the inputs, checks the handshakes, records transfers,
 * steps the C receiver and checks the acknowledged seq and the credit
 * against it. */
static void cycle(struct harness *h)
{
	const struct ftpu_sim_link_io *p = &h->prev;
	struct ftpu_sim_link_io io = {.loop = h->loop};
	struct oracle *o = &h->o;
	bool p_out_ready = h->loop ? p->tx_ready : p->rx_out_ready;
	bool out_ready;

	/* An offered input stays offered until taken. */
	io.rx_valid = h->in_pos < h->in.n && ((p->rx_valid && !p->rx_ready) ||
					      !chance(&h->r, h->in_gap));
	io.rx_byte = io.rx_valid ? h->in.p[h->in_pos] : 0;
	if (io.rx_valid) { /* a beat of 1..4 bytes, the same one until taken */
		size_t left = h->in.n - h->in_pos;
		unsigned k = p->rx_valid && !p->rx_ready ? p->rx_count
							 : 1 + rng_below(&h->r, 4);
		io.rx_count = FTPU_LINK_BYTES == 1 ? 1 : k < left ? k : (unsigned)left;
		/* bytes past the count are junk the receiver must ignore */
		io.rx_beat = p->rx_valid && !p->rx_ready ? p->rx_beat : rng_u32(&h->r);
		for (unsigned i = 0; i < io.rx_count; i++) {
			io.rx_beat &= ~(0xffu << (8 * i));
			io.rx_beat |= (uint32_t)h->in.p[h->in_pos + i] << (8 * i);
		}
	}
	io.rx_out_ready = !h->out_hold && !chance(&h->r, h->out_stall);
	io.ctl_ready = !h->ctl_hold && !chance(&h->r, h->ctl_stall);
	io.flush = h->flush_now || (io.rx_valid && h->in_pos <= h->flush_at &&
				    h->flush_at < h->in_pos + io.rx_count);
	io.err_ready = !h->err_hold;
	io.tx_valid =
		!h->loop && h->tx_pos < h->tx_in.n &&
		((p->tx_valid && !p->tx_ready) || !chance(&h->r, h->tx_gap));
	io.tx_word = io.tx_valid ? h->tx_in.p[h->tx_pos] : 0;
	io.tx_out_ready = !chance(&h->r, h->tx_stall);
	assert_true(ftpu_sim_link_cycle(h->sim, &io));
	h->cycles++;

	/* The byte-wide receiver never stalls the link. */
	if (FTPU_LINK_BYTES == 1)
		assert_true(io.rx_ready);
	/* What was offered and not taken is offered again, unchanged, unless
	 * a flush took it away. */
	if (p->rx_out_valid && !p_out_ready && !p->flush) {
		assert_true(io.rx_out_valid);
		assert_int_equal(io.rx_out_word, p->rx_out_word);
	}
	if (!h->loop && p->ctl_valid && !p->ctl_ready && !p->flush) {
		assert_true(io.ctl_valid);
		assert_int_equal(io.ctl_word, p->ctl_word);
	}
	if (p->err_valid && !p->err_ready) {
		assert_true(io.err_valid);
		assert_int_equal(io.err_code, p->err_code);
		assert_int_equal(io.err_seq, p->err_seq);
		assert_int_equal(io.err_type, p->err_type);
	}
	if (p->tx_out_valid && !p->tx_out_ready) {
		assert_true(io.tx_out_valid);
		assert_int_equal(io.tx_out_byte, p->tx_out_byte);
		assert_int_equal(io.tx_out_beat, p->tx_out_beat);
	}
	if (h->track_credit)
		assert_int_equal(io.credit,
				 h->cap - (h->committed - h->words.n));

	/* The outputs show the state before this cycle's byte: as the C
	 * receiver has it before that byte. */
	if (FTPU_LINK_BYTES == 1 && io.ack_seq != oracle_ack(o))
		fail_msg("cycle %llu: ack_seq %04x, link.c %04x (seed %#llx)",
			 (unsigned long long)h->cycles, io.ack_seq,
			 oracle_ack(o), (unsigned long long)test_seed);
	if (!h->loop && FTPU_LINK_BYTES == 1)
		assert_int_equal(io.credit, h->cap - o->unread);

	if (io.rx_valid && io.rx_ready) {
		for (unsigned i = 0; i < io.rx_count; i++)
			oracle_push(o, h->in.p[h->in_pos + i]);
		h->in_pos += io.rx_count;
	}
	if (io.flush) {
		h->flush_now = false;
		h->flush_at = SIZE_MAX;
	}
	out_ready = h->loop ? io.tx_ready : io.rx_out_ready;
	if (!h->loop && io.rx_out_valid && out_ready) {
		u32_push(&h->words, io.rx_out_word);
		assert_true(o->unread > 0);
		o->unread--;
	}
	if (!h->loop && io.ctl_valid && io.ctl_ready) {
		u32_push(&h->ctl_words, io.ctl_word);
		assert_true(o->ctl_left > 0);
		o->ctl_left--;
	}
	/* A flush forgets what was committed before this cycle and not
	 * taken; a frame committed by this cycle's byte stays. */
	if (io.flush) {
		o->unread = 0;
		o->ctl_left = 0;
		if (o->words.n > h->words.n)
			o->words.n = h->words.n;
		if (o->ctl.n > h->ctl_words.n)
			o->ctl.n = h->ctl_words.n;
	}
	if (o->pend) {
		struct u32v *v = o->pend_ctl ? &o->ctl : &o->words;

		for (size_t i = 0; i < o->pend_words.n; i++)
			u32_push(v, o->pend_words.p[i]);
		if (o->pend_ctl)
			o->ctl_left = (unsigned)o->pend_words.n;
		else
			o->unread += o->pend_words.n;
		o->pend = false;
	}
	if (io.err_valid && io.err_ready)
		err_push(&h->errs, io.err_code, io.err_seq, io.err_type);
	if (io.tx_valid && io.tx_ready)
		h->tx_pos++;
	if (io.tx_out_valid && io.tx_out_ready) {
		if (FTPU_LINK_BYTES == 1) {
			u8_push(&h->tx_out, &io.tx_out_byte, 1);
		} else {
			uint8_t b[4];
			for (unsigned i = 0; i < 4; i++)
				b[i] = (uint8_t)(io.tx_out_beat >> (8 * i));
			u8_push(&h->tx_out, b, 4);
		}
	}
	h->prev = io;
}

static bool busy(const struct harness *h)
{
	const struct ftpu_sim_link_io *p = &h->prev;

	return h->in_pos < h->in.n || (!h->loop && h->tx_pos < h->tx_in.n) ||
	       (p->rx_out_valid && (h->loop || !h->out_hold)) ||
	       (p->ctl_valid && (h->loop || !h->ctl_hold)) ||
	       (p->err_valid && !h->err_hold) || p->tx_out_valid;
}

/* Runs until all input is taken and the outputs have been idle (or held
 * by the test) for 16 cycles; fails after budget cycles. */
static void run(struct harness *h, uint64_t budget)
{
	uint64_t end = h->cycles + budget;
	unsigned quiet = 0;

	while (quiet < 16) {
		if (h->cycles >= end)
			fail_msg("link not idle after %llu cycles (input "
				 "%zu/%zu, tx %zu/%zu)",
				 (unsigned long long)budget, h->in_pos, h->in.n,
				 h->tx_pos, h->tx_in.n);
		cycle(h);
		quiet = busy(h) ? 0 : quiet + 1;
	}
}

/* A generous budget for moving the queued bytes through. */
static uint64_t budget_for(const struct harness *h)
{
	return 10 * (uint64_t)(h->in.n - h->in_pos +
			       4 * (h->tx_in.n - h->tx_pos)) +
	       2000;
}

static struct ftpu_sim_link_stats stats(const struct harness *h)
{
	struct ftpu_sim_link_stats s;

	assert_true(ftpu_sim_link_get_stats(h->sim, &s));
	return s;
}

static void words_equal(const struct u32v *got, const struct u32v *want)
{
	size_t n = got->n < want->n ? got->n : want->n;

	for (size_t i = 0; i < n; i++)
		if (got->p[i] != want->p[i])
			fail_msg("word %zu: rtl %08x, expected %08x (seed "
				 "%#llx)",
				 i, got->p[i], want->p[i],
				 (unsigned long long)test_seed);
	assert_int_equal(got->n, want->n);
}

static void errs_equal(const struct errv *got, const struct errv *want)
{
	size_t n = got->n < want->n ? got->n : want->n;

	for (size_t i = 0; i < n; i++)
		if (memcmp(&got->p[i], &want->p[i], sizeof(got->p[i])))
			fail_msg("error %zu: rtl %s seq %04x type %02x, "
				 "expected %s seq %04x type %02x",
				 i, ftpu_link_err_name(got->p[i].code),
				 got->p[i].seq, got->p[i].type,
				 ftpu_link_err_name(want->p[i].code),
				 want->p[i].seq, want->p[i].type);
	assert_int_equal(got->n, want->n);
}

/* Everything the receiver has produced since the last reset equals what
 * the C receiver made of the same bytes: frames (each reader's), errors,
 * counters. The stream must end between frames. */
static void expect_oracle(const struct harness *h)
{
	const struct oracle *o = &h->o;
	struct ftpu_sim_link_stats s = stats(h);

	assert_int_equal(ftpu_link_rx_pending(&o->rx), 0);
	words_equal(&h->words, &o->words);
	words_equal(&h->ctl_words, &o->ctl);
	errs_equal(&h->errs, &o->errs);
	assert_int_equal(s.frames_ok, o->rx.stats.frames_ok);
	assert_int_equal(s.bytes_skipped, o->rx.stats.bytes_skipped);
	for (unsigned c = 1; c <= 5; c++)
		assert_int_equal(s.errors[c], o->rx.stats.errors[c]);
	assert_int_equal(s.err_lost, 0);
	assert_int_equal(h->prev.ack_seq, oracle_ack(o));
}

/* ---- fixtures ------------------------------------------------------------ */

static int group_setup(void **state)
{
	(void)state;
	link_sim = FTPU_LINK_BYTES == 1 ? ftpu_sim_open_link_loop(NULL)
					: ftpu_sim_open_link_loop_w4(NULL);
	return link_sim ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	ftpu_sim_close(link_sim);
	return 0;
}

static int setup(void **state)
{
	static unsigned n;
	struct harness *h = calloc(1, sizeof(*h));

	if (!h)
		return -1;
	h->sim = link_sim;
	h->cap = ftpu_sim_link_capacity(link_sim);
	test_seed = ftpu_test_seed() + 0x1000 * ++n;
	h->r.s = test_seed;
	fill_pool(&h->r);
	h->flush_at = SIZE_MAX;
	ftpu_sim_reset(link_sim, 4);
	oracle_init(&h->o, h->cap);
	*state = h;
	return h->cap ? 0 : -1;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	free(h->in.p);
	free(h->words.p);
	free(h->ctl_words.p);
	free(h->errs.p);
	free(h->tx_in.p);
	free(h->tx_out.p);
	oracle_free(&h->o);
	free(h);
	return 0;
}

/* Clears the recorded traffic and what the C receiver expects of it (the
 * RTL and the C receiver keep running). Only between frames, with nothing
 * left to read. */
static void forget(struct harness *h)
{
	h->in.n = h->in_pos = 0;
	h->words.n = 0;
	h->ctl_words.n = 0;
	h->errs.n = 0;
	h->tx_in.n = h->tx_pos = 0;
	h->tx_out.n = 0;
	h->o.words.n = h->o.ctl.n = h->o.errs.n = 0;
}

/* Resets the RTL and starts the C receiver afresh. */
static void restart(struct harness *h)
{
	ftpu_sim_reset(h->sim, 2);
	h->prev = (struct ftpu_sim_link_io){0};
	forget(h);
	oracle_init(&h->o, h->cap);
}

/* ---- receiver tests ------------------------------------------------------ */

/* The frame builder above lays frames out exactly as ftpu_link_encode. */
static void test_link_rtl_frame_builder(void **state)
{
	struct harness *h = *state;
	static const unsigned lens[] = {0, 1, 7, MAXP};

	for (unsigned i = 0; i < 4; i++) {
		struct frame f = rand_frame(&h->r, FTPU_LINK_PROGRAM, lens[i]);
		struct u8v a = {0}, b = {0};

		put_frame(&a, &f);
		f.flags = 0x100; /* take the builder's path; masked to 0 */
		put_frame(&b, &f);
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.p, b.p, a.n);
		free(a.p);
		free(b.p);
	}
}

/* Frames of both types with random flags, seq, credit and length (0 and
 * the maximum included, MAX_CONTROL for CONTROL) arrive as their w1, w2 and
 * payload words, nothing else: PROGRAM frames from the receive buffer,
 * CONTROL frames from the mailbox. */
static void test_link_rtl_good_frames(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0}, want_ctl = {0};
	/* the ideal schedule: a byte in per cycle, a frame's words read out
	 * one per cycle from the cycle its last byte is in, each reader on
	 * its own */
	uint64_t t_in = 0, t_out = 0, t_ctl = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < 100; i++) {
		bool ctl = !(i & 1);
		unsigned len = i == 0	? 0
			       : i == 1 ? MAXP
			       : i == 2 ? 1
			       : i == 4 ? MAXC
					: rand_len(&h->r) %
						  (ctl ? MAXC + 1 : MAXP + 1);
		struct frame f = rand_frame(
			&h->r, ctl ? FTPU_LINK_CONTROL : FTPU_LINK_PROGRAM,
			len);
		uint64_t *t = ctl ? &t_ctl : &t_out;

		f.flags = i & 2 ? rng_below(&h->r, 256) : 0;
		put_frame(&h->in, &f);
		expect_frame(&want, &want_ctl, &f);
		t_in += FTPU_LINK_FRAME_BYTES(f.len);
		*t = (*t > t_in ? *t : t_in) + f.len + 2;
		n++;
	}
	run(h, budget_for(h));
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 0);
	assert_int_equal(stats(h).frames_ok, n);
	assert_int_equal(stats(h).bytes_skipped, 0);
	assert_int_equal(h->prev.credit, h->cap);
	expect_oracle(h);
	/* which the RTL keeps to within a few cycles (16 are the idle tail) */
	if (t_ctl > t_out)
		t_out = t_ctl;
	assert_true(h->cycles <= t_out + 16 + 4);
	free(want.p);
	free(want_ctl.p);
}

/* Idle input cycles anywhere and readers that stall at random: the same
 * words, none lost or repeated (the harness checks the held outputs). A
 * CONTROL frame that finds the slow mailbox reader still busy with the
 * previous one is refused with OVERFLOW; every other frame arrives. */
static void test_link_rtl_gaps_and_stalls(void **state)
{
	struct harness *h = *state;
	static const unsigned gaps[][2] = {{300, 500}, {900, 0}, {0, 950}};
	struct u32v want = {0}, want_ctl = {0};
	struct frame fr[25];

	for (unsigned g = 0; g < 3; g++) {
		forget(h);
		want.n = want_ctl.n = 0;
		h->in_gap = gaps[g][0];
		h->out_stall = h->ctl_stall = gaps[g][1];
		for (unsigned i = 0; i < 25; i++) {
			/* the slowest reader must not need more than the buffer
			 */
			bool ctl = i % 2 == 0;
			unsigned len =
				i == 3 ? MAXP
				       : rand_len(&h->r) % (ctl	     ? MAXC + 1
							    : g == 2 ? 100
								     : 300);

			fr[i] = rand_frame(&h->r,
					   ctl ? FTPU_LINK_CONTROL
					       : FTPU_LINK_PROGRAM,
					   len);
			fr[i].seq = 100 * g + i;
			put_frame(&h->in, &fr[i]);
		}
		run(h, budget_for(h) * 4);
		/* refusals: CONTROL frames only, reported with their seq */
		for (unsigned i = 0, e = 0; i < 25; i++) {
			if (e < h->errs.n && h->errs.p[e].seq == fr[i].seq) {
				assert_int_equal(h->errs.p[e].code,
						 FTPU_LINK_ERR_OVERFLOW);
				assert_int_equal(fr[i].type, FTPU_LINK_CONTROL);
				e++;
				continue;
			}
			expect_frame(&want, &want_ctl, &fr[i]);
			if (i == 24)
				assert_int_equal(e, h->errs.n);
		}
		words_equal(&h->words, &want);
		words_equal(&h->ctl_words, &want_ctl);
		assert_int_equal(h->prev.credit, h->cap);
		errs_equal(&h->errs, &h->o.errs);
		words_equal(&h->words, &h->o.words);
		words_equal(&h->ctl_words, &h->o.ctl);
	}
	free(want.p);
	free(want_ctl.p);
}

/* Garbage between frames: random bytes, SYNC prefixes, SYNC followed by
 * junk, partial headers, headers with a bad HCRC. It is skipped (and
 * reported where a SYNC began a bad header) exactly as the C receiver
 * does, and every good frame still arrives. */
static void put_garbage(struct rng *r, struct u8v *b)
{
	static const uint8_t sync[4] = {'F', 'T', 'P', 'U'};
	uint8_t g[64];
	unsigned n = 1 + rng_below(r, 40);

	for (unsigned i = 0; i < sizeof(g); i++)
		g[i] = (uint8_t)rng_u32(r);
	switch (rng_below(r, 6)) {
	case 0: /* random bytes */
		break;
	case 1: /* scattered SYNC prefixes */
		for (unsigned i = 0; i + 4 <= n; i += 1 + rng_below(r, 5))
			memcpy(g + i, sync, 1 + rng_below(r, 4));
		break;
	case 2: /* SYNC and junk */
		memcpy(g, sync, 4);
		break;
	case 3: { /* a partial header */
		struct u8v t = {0};
		struct frame f =
			rand_frame(r, FTPU_LINK_CONTROL, rng_below(r, 3));

		put_frame(&t, &f);
		n = 1 + rng_below(r, 15);
		memcpy(g, t.p, n);
		/* Cut inside the HCRC, the next byte could complete it (the
		 * first byte of a SYNC, say): make sure it does not. */
		if (n >= 12) {
			g[n] = (uint8_t)~t.p[n];
			n++;
		}
		free(t.p);
		break;
	}
	case 4: { /* a whole header with one byte of w1..HCRC changed */
		struct u8v t = {0};
		struct frame f = rand_frame(r, FTPU_LINK_PROGRAM, 0);

		put_frame(&t, &f);
		t.p[4 + rng_below(r, 12)] ^= (uint8_t)(1 + rng_below(r, 255));
		n = 16;
		memcpy(g, t.p, n);
		free(t.p);
		break;
	}
	default: /* SYNCs one to sixteen bytes apart */
		n = 40;
		for (unsigned i = 0; i + 4 <= n; i += 4 + rng_below(r, 13))
			memcpy(g + i, sync, 4);
		break;
	}
	u8_push(b, g, n);
}

static void test_link_rtl_garbage(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0}, want_ctl = {0};

	for (unsigned i = 0; i < 3000; i++) {
		struct frame f = rand_frame(&h->r, DEV_TYPE_FIRST + (i & 1),
					    rng_below(&h->r, 12));

		for (unsigned k = rng_below(&h->r, 3); k; k--)
			put_garbage(&h->r, &h->in);
		put_frame(&h->in, &f);
		expect_frame(&want, &want_ctl, &f);
	}
	run(h, budget_for(h));
	expect_oracle(h);
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);
	assert_true(stats(h).bytes_skipped > 0);
	assert_true(stats(h).errors[FTPU_LINK_ERR_BAD_HEADER_CRC] > 0);
	free(want.p);
	free(want_ctl.p);
}

/* SYNC inside a frame that was received is no candidate: a whole frame
 * inside a payload is payload, and a header whose credit and HCRC spell
 * SYNC (found by search) does not leave a candidate behind it. */
static void test_link_rtl_sync_inside_frame(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0};
	struct frame inner = rand_frame(&h->r, FTPU_LINK_CONTROL, 2);
	struct frame outer, f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 1);
	struct frame g = rand_frame(&h->r, FTPU_LINK_CONTROL, 0);
	struct u8v t = {0};
	uint32_t words[8];
	uint8_t hdr[12];
	unsigned tries = 0;

	put_frame(&t, &inner);
	for (unsigned w = 0; w < 7; w++)
		words[w] = ftpu_link_get_le32(t.p + w * 4);
	words[7] = rng_u32(&h->r);
	outer = rand_frame(&h->r, FTPU_LINK_PROGRAM, 8);
	outer.payload = words;
	put_frame(&h->in, &outer);
	frame_words(&want, &outer);

	/* bytes 10..13 of f's header: credit 'F','T', HCRC 'P','U', ... */
	f.credit = 0x5446;
	do {
		assert_true(++tries < (1u << 24));
		f.seq = tries & 0xffff;
		f.flags = tries >> 16;
		ftpu_link_put_le32(hdr, FTPU_LINK_SYNC);
		ftpu_link_put_le32(hdr + 4,
				   FTPU_LINK_W1(f.type, f.flags, f.seq));
		ftpu_link_put_le32(hdr + 8, FTPU_LINK_W2(f.len, f.credit));
	} while ((ftpu_crc32_update(0, hdr, 12) & 0xffff) != 0x5550);
	put_frame(&h->in, &f);
	frame_words(&want, &f);
	put_frame(&h->in, &g);
	run(h, budget_for(h));
	words_equal(&h->words, &want);
	want.n = 0;
	frame_words(&want, &g); /* a CONTROL frame: from the mailbox */
	words_equal(&h->ctl_words, &want);
	assert_int_equal(h->errs.n, 0);
	expect_oracle(h);
	free(t.p);
	free(want.p);
}

/* Each single-bit flip of a frame (2 payload words, then none), then a
 * good frame: nothing of the damaged frame arrives; a flip in SYNC leaves
 * no frame to report (its bytes are skipped), one in w1..HCRC is
 * BAD_HEADER_CRC, one in the payload or PCRC is BAD_PAYLOAD_CRC; the good
 * frame arrives. */
static void test_link_rtl_bit_flips(void **state)
{
	struct harness *h = *state;
	static const uint32_t payload[2] = {0x01234567,
					    0x89abcdef}; /* no 'F' */
	struct frame g = {FTPU_LINK_PROGRAM, 0, 0x5678, 0x0007, 2, payload};
	struct u32v want = {0};

	frame_words(&want, &g);
	for (unsigned len = 0; len <= 2; len += 2) {
		struct frame f = {
			FTPU_LINK_CONTROL, 0, 0x1234, 0x0042, len, payload};
		struct u8v bad = {0};

		put_frame(&bad, &f);
		for (unsigned bit = 0; bit < 8 * bad.n; bit++) {
			unsigned byte = bit / 8, code;

			restart(h);
			u8_push(&h->in, bad.p, bad.n);
			h->in.p[byte] ^= (uint8_t)(1u << (bit % 8));
			put_frame(&h->in, &g);
			run(h, budget_for(h));
			words_equal(&h->words, &want);
			assert_int_equal(h->ctl_words.n, 0);
			expect_oracle(h);
			code = byte < 4	   ? 0
			       : byte < 16 ? FTPU_LINK_ERR_BAD_HEADER_CRC
					   : FTPU_LINK_ERR_BAD_PAYLOAD_CRC;
			if (!code) {
				assert_int_equal(h->errs.n, 0);
				assert_true(stats(h).bytes_skipped >= 4);
			} else {
				assert_int_equal(h->errs.n, 1);
				assert_int_equal(h->errs.p[0].code, code);
				assert_int_equal(h->errs.p[0].seq,
						 code == 1 ? 0xffff : f.seq);
				assert_int_equal(h->errs.p[0].type,
						 code == 1 ? 0xff : f.type);
			}
		}
		free(bad.p);
	}
	free(want.p);
}

/* A frame that lost one byte (each position in turn), then good frames:
 * the receiver resynchronizes and the last good frame always arrives. */
static void test_link_rtl_dropped_byte(void **state)
{
	struct harness *h = *state;
	struct frame f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 3);
	struct frame g1 = rand_frame(&h->r, FTPU_LINK_CONTROL, 5);
	struct frame g2 = rand_frame(&h->r, FTPU_LINK_PROGRAM, 1);
	struct u8v bad = {0};
	struct u32v tail = {0};

	put_frame(&bad, &f);
	frame_words(&tail, &g2);
	for (unsigned k = 0; k < bad.n; k++) {
		restart(h);
		u8_push(&h->in, bad.p, k);
		u8_push(&h->in, bad.p + k + 1, bad.n - k - 1);
		put_frame(&h->in, &g1);
		put_frame(&h->in, &g2);
		run(h, budget_for(h));
		expect_oracle(h);
		assert_true(h->words.n >= tail.n);
		assert_memory_equal(h->words.p + h->words.n - tail.n, tail.p,
				    tail.n * sizeof(uint32_t));
		/* Without its SYNC the frame is just skipped; otherwise there
		 * is an error, unless the bytes from k on are all the same up
		 * to a last 'F': then the stream is the one where g1 lost its
		 * first 'F' instead, and f arrives whole. */
		unsigned j = k;
		while (j + 1 < bad.n && bad.p[j + 1] == bad.p[k])
			j++;
		if (j == bad.n - 1 && bad.p[j] == 'F')
			assert_int_equal(h->words.n, f.len + 2 + tail.n);
		else if (k >= 4)
			assert_true(h->errs.n >= 1);
	}
	free(bad.p);
	free(tail.p);
}

/* A good header with len > 4096 is BAD_LENGTH with its seq and type; the
 * search goes on from its second byte and the next frame arrives. */
static void test_link_rtl_bad_length(void **state)
{
	struct harness *h = *state;
	static const unsigned lens[] = {MAXP + 1, 0x8000, 0xffff};
	static const uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct u32v want = {0};

	for (unsigned i = 0; i < 3; i++) {
		struct frame f = rand_frame(&h->r, FTPU_LINK_CONTROL, 0);
		struct frame g = rand_frame(&h->r, FTPU_LINK_PROGRAM, i);
		struct u8v t = {0};

		put_frame_len(&t, &f, lens[i]);
		u8_push(&h->in, t.p, 16); /* the header only, then junk */
		u8_push(&h->in, junk, sizeof(junk));
		put_frame(&h->in, &g);
		frame_words(&want, &g);
		free(t.p);
		run(h, budget_for(h));
		assert_int_equal(h->errs.n, i + 1);
		assert_int_equal(h->errs.p[i].code, FTPU_LINK_ERR_BAD_LENGTH);
		assert_int_equal(h->errs.p[i].seq, f.seq);
		assert_int_equal(h->errs.p[i].type, f.type);
	}
	words_equal(&h->words, &want);
	expect_oracle(h);
	free(want.p);
}

/* A good header of a type the device does not take is UNKNOWN_TYPE and its
 * whole frame is skipped, trusting len: a valid frame hidden in its
 * payload is not delivered; the next frame is. */
static void test_link_rtl_unknown_type(void **state)
{
	struct harness *h = *state;
	static const unsigned types[] = {0x00, 0x03, 0x7f, 0x81, 0x84, 0xff};
	struct u32v want = {0};

	for (unsigned i = 0; i < 6; i++) {
		struct frame inner = rand_frame(&h->r, FTPU_LINK_CONTROL, 3);
		struct frame g = rand_frame(&h->r, FTPU_LINK_PROGRAM, i);
		struct u8v t = {0};
		uint32_t words[16];
		struct frame f;

		put_frame(&t, &inner); /* 32 bytes: 8 words of payload */
		for (unsigned w = 0; w < t.n / 4; w++)
			words[w] = ftpu_link_get_le32(t.p + 4 * w);
		f = rand_frame(&h->r, types[i], (unsigned)t.n / 4);
		f.payload = words;
		put_frame(&h->in, &f);
		put_frame(&h->in, &g);
		frame_words(&want, &g);
		free(t.p);
		run(h, budget_for(h));
		assert_int_equal(h->errs.n, i + 1);
		assert_int_equal(h->errs.p[i].code, FTPU_LINK_ERR_UNKNOWN_TYPE);
		assert_int_equal(h->errs.p[i].seq, f.seq);
		assert_int_equal(h->errs.p[i].type, f.type);
	}
	words_equal(&h->words, &want);
	expect_oracle(h);
	free(want.p);
}

/* With the reader stalled, frames fill the buffer; credit is capacity less
 * the unread words after each; a frame needing more than the credit (len
 * + 2 words) is OVERFLOW and none of it becomes visible, one needing
 * exactly the credit fits. Then the reader drains the fitted frames. */
static void test_link_rtl_overflow(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0};
	size_t used = 0;
	unsigned nerr = 0;

	/* Two big frames, then: one word more than the credit, a frame that
	 * leaves 5 words, one word too many again, exactly the 5, and no
	 * room left even for w1 and w2. */
	unsigned lens[8] = {4000, MAXP, 0, 0, 4, 3, 0, 0};

	lens[2] = h->cap - (4000 + 2) - (MAXP + 2) - 2 + 1;
	lens[3] = lens[2] - 1 - 5;
	h->out_hold = true;
	for (unsigned i = 0; i < 8; i++) {
		unsigned len = lens[i], fits;
		struct frame f;

		fits = used + len + 2 <= h->cap;
		f = rand_frame(&h->r, FTPU_LINK_PROGRAM, len);
		put_frame(&h->in, &f);
		run(h, budget_for(h));
		if (fits) {
			frame_words(&want, &f);
			used += len + 2;
		} else {
			nerr++;
			assert_int_equal(h->errs.n, nerr);
			assert_int_equal(h->errs.p[nerr - 1].code,
					 FTPU_LINK_ERR_OVERFLOW);
			assert_int_equal(h->errs.p[nerr - 1].seq, f.seq);
			assert_int_equal(h->errs.p[nerr - 1].type, f.type);
		}
		assert_int_equal(h->prev.credit, h->cap - used);
		assert_int_equal(h->errs.n, nerr);
	}
	assert_int_equal(used, h->cap);
	assert_int_equal(nerr, 4);
	h->out_hold = false;
	run(h, 2 * h->cap + 1000);
	words_equal(&h->words, &want);
	assert_int_equal(h->prev.credit, h->cap);
	assert_int_equal(stats(h).errors[FTPU_LINK_ERR_OVERFLOW], nerr);
	/* and the buffer takes the largest frame again */
	{
		struct frame f = rand_frame(&h->r, FTPU_LINK_PROGRAM, MAXP);

		put_frame(&h->in, &f);
		frame_words(&want, &f);
		run(h, budget_for(h));
		words_equal(&h->words, &want);
	}
	free(want.p);
}

/* credit_o is capacity minus unread words at every cycle while a stalled
 * buffer is read out at random (the harness checks each cycle). */
static void test_link_rtl_credit(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0};

	h->out_hold = true;
	for (unsigned i = 0; i < 30; i++) {
		struct frame f = rand_frame(&h->r, FTPU_LINK_PROGRAM,
					    rng_below(&h->r, 100));

		put_frame(&h->in, &f);
		frame_words(&want, &f);
	}
	run(h, budget_for(h));
	assert_int_equal(h->words.n, 0);
	assert_int_equal(h->prev.credit, h->cap - want.n);
	h->committed = want.n;
	h->track_credit = true;
	h->out_hold = false;
	h->out_stall = 700;
	run(h, 20 * want.n + 1000);
	words_equal(&h->words, &want);
	assert_int_equal(h->prev.credit, h->cap);
	free(want.p);
}

/* An error consumer that is not ready never stalls the link: the first
 * error is held, later ones are counted (by code and as lost) but not
 * reported, and the frames still arrive. */
static void test_link_rtl_error_backpressure(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0};
	struct ftpu_sim_link_stats s;
	const struct oracle *o = &h->o;

	h->err_hold = true;
	for (unsigned i = 0; i < 12; i++) {
		struct frame bad =
			rand_frame(&h->r, i % 3 ? FTPU_LINK_CONTROL : 0x42, 2);
		struct frame g = rand_frame(&h->r, FTPU_LINK_PROGRAM, 3);
		struct u8v t = {0};

		put_frame(&t, &bad);
		if (i % 3 == 1)
			t.p[6] ^= 1; /* bad HCRC */
		else if (i % 3 == 2)
			t.p[20] ^= 1; /* bad PCRC */
		u8_push(&h->in, t.p, t.n);
		put_frame(&h->in, &g);
		frame_words(&want, &g);
		free(t.p);
	}
	run(h, budget_for(h));
	words_equal(&h->words, &want);
	assert_true(h->prev.err_valid);
	s = stats(h);
	for (unsigned c = 1; c <= 5; c++)
		assert_int_equal(s.errors[c], o->rx.stats.errors[c]);
	assert_int_equal(o->errs.n, 12);
	assert_int_equal(s.err_lost, o->errs.n - 1);
	h->err_hold = false;
	run(h, 100);
	assert_int_equal(h->errs.n, 1);
	assert_memory_equal(&h->errs.p[0], &o->errs.p[0], sizeof(o->errs.p[0]));
	free(want.p);
}

/* ---- CONTROL mailbox, acknowledged seq, flush --------------------------- */

/* Sends one frame and runs until the link is quiet. */
static void send(struct harness *h, const struct frame *f)
{
	put_frame(&h->in, f);
	run(h, budget_for(h) + 20 * (uint64_t)h->cap);
}

/* The last reported error is code for frame f. */
static void expect_err(const struct harness *h, size_t n, unsigned code,
		       const struct frame *f)
{
	assert_int_equal(h->errs.n, n);
	assert_int_equal(h->errs.p[n - 1].code, code);
	assert_int_equal(h->errs.p[n - 1].seq, f->seq);
	assert_int_equal(h->errs.p[n - 1].type, f->type);
}

/* A full receive buffer (credit 0) refuses PROGRAM frames, even empty
 * ones, but CONTROL frames still get through the mailbox. */
static void test_link_rtl_control_when_full(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0}, want_ctl = {0};
	struct frame f;
	size_t used = 0;

	h->out_hold = true;
	while (used < h->cap) {
		unsigned len =
			h->cap - used - 2 < MAXP ? h->cap - used - 2 : MAXP;

		f = rand_frame(&h->r, FTPU_LINK_PROGRAM, len);
		send(h, &f);
		frame_words(&want, &f);
		used += FRAME_WORDS(len);
	}
	assert_int_equal(used, h->cap);
	assert_int_equal(h->prev.credit, 0);
	assert_int_equal(h->errs.n, 0);

	f = rand_frame(&h->r, FTPU_LINK_CONTROL, MAXC);
	send(h, &f);
	frame_words(&want_ctl, &f);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 0);
	f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 0);
	send(h, &f);
	expect_err(h, 1, FTPU_LINK_ERR_OVERFLOW, &f);
	f = rand_frame(&h->r, FTPU_LINK_CONTROL, 1);
	send(h, &f);
	frame_words(&want_ctl, &f);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 1);
	assert_int_equal(h->prev.credit, 0);
	assert_int_equal(h->words.n, 0);

	h->out_hold = false;
	run(h, 2 * h->cap + 1000);
	words_equal(&h->words, &want);
	assert_int_equal(h->prev.credit, h->cap);
	expect_oracle(h);
	free(want.p);
	free(want_ctl.p);
}

/* While the mailbox holds a frame, the next CONTROL frame is OVERFLOW
 * (PROGRAM frames are not affected); it is free again exactly when its
 * last word has been taken. */
static void test_link_rtl_control_held(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0}, want_ctl = {0};
	struct frame c1 = rand_frame(&h->r, FTPU_LINK_CONTROL, 3);
	struct frame c2 = rand_frame(&h->r, FTPU_LINK_CONTROL, 0);
	struct frame p = rand_frame(&h->r, FTPU_LINK_PROGRAM, 5);
	struct frame c3 = rand_frame(&h->r, FTPU_LINK_CONTROL, 2);
	struct frame c4 = rand_frame(&h->r, FTPU_LINK_CONTROL, 4);

	h->ctl_hold = true;
	send(h, &c1);
	frame_words(&want_ctl, &c1);
	assert_int_equal(h->errs.n, 0);
	assert_true(h->prev.ctl_valid);
	assert_int_equal(h->prev.ctl_word, want_ctl.p[0]);
	send(h, &c2);
	expect_err(h, 1, FTPU_LINK_ERR_OVERFLOW, &c2);
	send(h, &p);
	frame_words(&want, &p);
	words_equal(&h->words, &want);
	assert_int_equal(h->errs.n, 1);
	assert_int_equal(h->ctl_words.n, 0);
	assert_int_equal(h->prev.ctl_word, want_ctl.p[0]);

	h->ctl_hold = false;
	run(h, 1000);
	words_equal(&h->ctl_words, &want_ctl);
	send(h, &c2); /* again: taken now */
	frame_words(&want_ctl, &c2);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 1);

	/* c3 read but for its last word: c4 is refused; then taken */
	h->ctl_hold = true;
	send(h, &c3);
	frame_words(&want_ctl, &c3);
	h->ctl_hold = false;
	while (h->ctl_words.n < want_ctl.n - 1) {
		assert_true(h->cycles < 100000);
		cycle(h);
	}
	h->ctl_hold = true;
	send(h, &c4);
	expect_err(h, 2, FTPU_LINK_ERR_OVERFLOW, &c4);
	assert_true(h->prev.ctl_valid);
	h->ctl_hold = false;
	run(h, 1000);
	words_equal(&h->ctl_words, &want_ctl);
	send(h, &c4);
	frame_words(&want_ctl, &c4);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 2);
	expect_oracle(h);
	free(want.p);
	free(want_ctl.p);
}

/* A CONTROL frame takes at most MAX_CONTROL payload words: longer is
 * OVERFLOW (the whole frame skipped), whatever room the mailbox has. */
static void test_link_rtl_control_len(void **state)
{
	struct harness *h = *state;
	static const unsigned lens[] = {MAXC + 1, MAXC,	    0,
					MAXP,	  MAXC - 1, MAXC + 2};
	struct u32v want_ctl = {0};
	size_t nerr = 0;

	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct frame f = rand_frame(&h->r, FTPU_LINK_CONTROL, lens[i]);

		send(h, &f);
		if (lens[i] > MAXC)
			expect_err(h, ++nerr, FTPU_LINK_ERR_OVERFLOW, &f);
		else
			frame_words(&want_ctl, &f);
		assert_int_equal(h->errs.n, nerr);
		words_equal(&h->ctl_words, &want_ctl);
		assert_int_equal(h->prev.ack_seq, f.seq);
	}
	assert_int_equal(h->words.n, 0);
	assert_int_equal(h->prev.credit, h->cap);
	expect_oracle(h);
	free(want_ctl.p);
}

/* ack_seq_o is ftpu_link_rx_ack() of link.c (role DEVICE, the RTL's
 * admission) after every byte (the harness checks each cycle), over a
 * random stream of good, damaged and refused frames, garbage and readers
 * that stall and hold; after each frame it is that frame's seq if its
 * header was good, else unchanged. */
static void test_link_rtl_ack_seq(void **state)
{
	struct harness *h = *state;
	unsigned ack = 0, ovf[2] = {0};
	struct ftpu_sim_link_stats s;

	h->in_gap = 100;
	h->out_stall = 300;
	h->ctl_stall = 300;
	for (unsigned i = 0; i < 600; i++) {
		unsigned kind = rng_below(&h->r, 8);
		struct u8v t = {0};
		struct frame f;
		bool good_header = true;

		/* hold a reader for a while now and then: refusals (the
		 * receive buffer fills in some 10 PROGRAM frames) */
		if (rng_below(&h->r, h->out_hold ? 40 : 15) == 0)
			h->out_hold = !h->out_hold;
		if (rng_below(&h->r, 5) == 0)
			h->ctl_hold = !h->ctl_hold;
		if (rng_below(&h->r, 8) == 0)
			put_garbage(&h->r, &h->in);
		switch (kind) {
		case 0: /* CONTROL, sometimes too long */
		case 1:
			f = rand_frame(&h->r, FTPU_LINK_CONTROL,
				       rng_below(&h->r, MAXC + 4));
			put_frame(&t, &f);
			break;
		case 2: /* PROGRAM */
		case 3:
			f = rand_frame(&h->r, FTPU_LINK_PROGRAM,
				       kind == 2 ? rand_len(&h->r)
						 : rng_below(&h->r, MAXP + 1));
			put_frame(&t, &f);
			break;
		case 4: /* a type the device does not take */
			f = rand_frame(&h->r, 0x81 + rng_below(&h->r, 4),
				       rng_below(&h->r, 20));
			put_frame(&t, &f);
			break;
		case 5: /* a bad PCRC (or a refusal first) */
			f = rand_frame(&h->r,
				       DEV_TYPE_FIRST + rng_below(&h->r, 2),
				       rng_below(&h->r, 20));
			put_frame(&t, &f);
			t.p[16 + rng_below(&h->r, (unsigned)t.n - 16)] ^=
				(uint8_t)(1 + rng_below(&h->r, 255));
			break;
		case 6: /* a bad HCRC: no seq to acknowledge */
			f = rand_frame(&h->r, FTPU_LINK_PROGRAM,
				       rng_below(&h->r, 20));
			put_frame(&t, &f);
			t.p[4 + rng_below(&h->r, 12)] ^=
				(uint8_t)(1 + rng_below(&h->r, 255));
			good_header = false;
			break;
		default: /* BAD_LENGTH: a header alone */
			f = rand_frame(&h->r,
				       DEV_TYPE_FIRST + rng_below(&h->r, 2), 0);
			put_frame_len(&t, &f,
				      MAXP + 1 +
					      rng_below(&h->r, 0xffff - MAXP));
			t.n = 16;
			break;
		}
		u8_push(&h->in, t.p, t.n);
		free(t.p);
		run(h, budget_for(h) + 20 * (uint64_t)h->cap);
		if (good_header)
			ack = f.seq;
		assert_int_equal(h->prev.ack_seq, ack);
		assert_int_equal(h->prev.ack_seq, oracle_ack(&h->o));
	}
	h->out_hold = h->ctl_hold = false;
	run(h, 20 * (uint64_t)h->cap + 1000);
	/* A good frame last: the RTL counts hunt bytes as skipped when they
	 * leave its window, the C receiver as soon as they cannot begin a
	 * frame. */
	{
		struct frame f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 0);

		send(h, &f);
		assert_int_equal(h->prev.ack_seq, f.seq);
	}
	expect_oracle(h);
	/* the stream had every kind of finish */
	s = stats(h);
	assert_true(s.frames_ok > 0);
	for (unsigned c = 1; c <= 5; c++)
		assert_true(s.errors[c] > 0);
	for (size_t e = 0; e < h->errs.n; e++)
		if (h->errs.p[e].code == FTPU_LINK_ERR_OVERFLOW)
			ovf[h->errs.p[e].type == FTPU_LINK_CONTROL]++;
	assert_true(ovf[0] > 0);
	assert_true(ovf[1] > 0);
}

/* flush_i empties the receive buffer and the mailbox of what they hold;
 * a frame being received meanwhile, or completed in that very cycle,
 * arrives normally; afterwards both take frames again. */
static void test_link_rtl_flush(void **state)
{
	struct harness *h = *state;
	struct u32v want = {0}, want_ctl = {0};
	struct frame p1 = rand_frame(&h->r, FTPU_LINK_PROGRAM, 10);
	struct frame p2 = rand_frame(&h->r, FTPU_LINK_PROGRAM, 0);
	struct frame c1 = rand_frame(&h->r, FTPU_LINK_CONTROL, 4);
	struct frame f;

	/* everything held is discarded */
	h->out_hold = h->ctl_hold = true;
	send(h, &p1);
	send(h, &p2);
	send(h, &c1);
	assert_int_equal(h->prev.credit,
			 h->cap - FRAME_WORDS(10) - FRAME_WORDS(0));
	assert_true(h->prev.rx_out_valid);
	assert_true(h->prev.ctl_valid);
	h->flush_now = true;
	run(h, 100);
	assert_int_equal(h->prev.credit, h->cap);
	assert_false(h->prev.rx_out_valid);
	assert_false(h->prev.ctl_valid);
	h->out_hold = h->ctl_hold = false;
	run(h, 100);
	assert_int_equal(h->words.n, 0);
	assert_int_equal(h->ctl_words.n, 0);
	/* and both take frames again */
	f = rand_frame(&h->r, FTPU_LINK_CONTROL, MAXC);
	send(h, &f);
	frame_words(&want_ctl, &f);
	f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 7);
	send(h, &f);
	frame_words(&want, &f);
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);

	/* during a PROGRAM frame: the held frames go, it stays */
	h->out_hold = h->ctl_hold = true;
	send(h, &p1);
	send(h, &c1);
	f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 9);
	h->flush_at = h->in.n + 20;
	send(h, &f);
	frame_words(&want, &f);
	assert_int_equal(h->prev.credit, h->cap - FRAME_WORDS(9));
	assert_false(h->prev.ctl_valid);
	h->out_hold = h->ctl_hold = false;
	run(h, 1000);
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);
	/* during a CONTROL frame: it stays */
	h->out_hold = h->ctl_hold = true;
	send(h, &p1);
	f = rand_frame(&h->r, FTPU_LINK_CONTROL, 6);
	h->flush_at = h->in.n + 17;
	send(h, &f);
	frame_words(&want_ctl, &f);
	assert_true(h->prev.ctl_valid);
	assert_int_equal(h->prev.credit, h->cap);
	h->out_hold = h->ctl_hold = false;
	run(h, 1000);
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);

	/* in the cycle a frame's last byte comes: the earlier frames go, it
	 * stays */
	h->out_hold = h->ctl_hold = true;
	send(h, &p1);
	send(h, &c1);
	f = rand_frame(&h->r, FTPU_LINK_PROGRAM, 3);
	put_frame(&h->in, &f);
	h->flush_at = h->in.n - 1;
	run(h, budget_for(h));
	frame_words(&want, &f);
	assert_int_equal(h->prev.credit, h->cap - FRAME_WORDS(3));
	assert_false(h->prev.ctl_valid);
	h->out_hold = h->ctl_hold = false;
	run(h, 1000);
	words_equal(&h->words, &want);
	words_equal(&h->ctl_words, &want_ctl);
	assert_int_equal(h->errs.n, 0);
	expect_oracle(h);
	free(want.p);
	free(want_ctl.p);
}

/* ---- transmitter tests --------------------------------------------------- */

/* Random frames of every type (flags too, 0 and the largest length) as
 * words in, with gaps at the input and back-pressure at the output: the
 * bytes out are the codec's bytes for those frames. */
static void test_link_rtl_tx_frames(void **state)
{
	struct harness *h = *state;
	static const unsigned types[] = {0x01, 0x02, 0x81, 0x82, 0x83, 0x84};
	static const unsigned gaps[][2] = {{0, 0}, {300, 500}, {0, 950}};
	struct u8v want = {0};

	for (unsigned g = 0; g < 3; g++) {
		unsigned nframes = 0;

		forget(h);
		want.n = 0;
		h->tx_gap = gaps[g][0];
		h->tx_stall = gaps[g][1];
		for (unsigned i = 0; i < (g == 2 ? 10 : 60); i++) {
			unsigned len = i == 0	? 0
				       : i == 1 ? MAXP
						: rand_len(&h->r) % 300;
			struct frame f = rand_frame(
				&h->r, types[rng_below(&h->r, 6)], len);

			f.flags = i & 1 ? rng_below(&h->r, 256) : 0;
			put_frame(&want, &f);
			frame_words(&h->tx_in, &f);
			nframes++;
		}
		run(h, budget_for(h) * (g == 2 ? 3 : 1));
		assert_int_equal(h->tx_out.n, want.n);
		for (size_t i = 0; i < want.n; i++)
			if (h->tx_out.p[i] != want.p[i])
				fail_msg("byte %zu: rtl %02x, expected %02x "
					 "(seed %#llx)",
					 i, h->tx_out.p[i], want.p[i],
					 (unsigned long long)test_seed);
		/* unhindered, one byte per cycle: no bubbles between words or
		 * frames */
		if (g == 0)
			assert_true(h->cycles <= want.n + 16 + 4);
		h->cycles = 0;
	}
	free(want.p);
}

/* ---- loop test ----------------------------------------------------------- */

/* The host's side of the loop test: the echoes, sorted by the kind of host
 * frame they answer (seq - seq0 indexes the host's frames). */
struct host_rx {
	const struct frame *fr;
	unsigned n, seq0;
	struct u32v words[2]; /* w1, w2, payload: [0] PROGRAM, [1] CONTROL */
	unsigned errors;
	int ctl_wait; /* seq of the CONTROL frame not yet answered, or -1 */
};

static void host_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct host_rx *c = ctx;
	unsigned i = (uint16_t)(f->seq - c->seq0);
	bool ctl;

	assert_true(i < c->n);
	ctl = c->fr[i].type == FTPU_LINK_CONTROL;
	if (ctl && (int)f->seq == c->ctl_wait)
		c->ctl_wait = -1;
	u32_push(&c->words[ctl], FTPU_LINK_W1(f->type, f->flags, f->seq));
	u32_push(&c->words[ctl], FTPU_LINK_W2(f->len, f->credit));
	for (unsigned k = 0; k < f->len; k++)
		u32_push(&c->words[ctl], f->payload[k]);
}

static void host_error(void *ctx, const struct ftpu_link_error *e)
{
	struct host_rx *c = ctx;

	(void)e;
	c->errors++;
}

/* Host frames (ftpu_link_encode, garbage between them, seqs consecutive)
 * -> rx -> the words -> tx, re-typed RESPONSE -> bytes a C receiver parses
 * back into the same frames, now responses: the PROGRAM frames in order,
 * the CONTROL frames in order, each frame whole (a CONTROL echo may
 * overtake PROGRAM echoes still in the receive buffer). The link out is
 * slower than the link in, so the host keeps the rules of docs/protocol.md
 * §6: a PROGRAM frame only when the credit covers its len + 2 words, a
 * CONTROL frame only when the previous one has been answered. No OVERFLOW. */
static void test_link_rtl_loop(void **state)
{
	struct harness *h = *state;
	enum { NFRAMES = 150 };
	struct frame fr[NFRAMES];
	size_t want_bytes = 0;
	struct u32v want[2] = {{0}};
	struct host_rx host = {.fr = fr, .n = NFRAMES, .ctl_wait = -1};
	static uint32_t buf[MAXP];
	struct ftpu_link_rx rx;
	struct ftpu_link_rx_cb cb = {NULL, host_frame, host_error, &host};
	uint64_t end;
	size_t parsed = 0;
	unsigned next = 0, idle = 0;

	h->loop = true;
	h->o.admit_all = true;
	h->in_gap = 100;
	h->tx_stall = 500;
	host.seq0 = rng_u32(&h->r) & 0xffff;
	for (unsigned i = 0; i < NFRAMES; i++) {
		bool ctl = i % 2 == 0;
		unsigned len = i == 5 || i == 7 ? MAXP
			       : ctl		? rand_len(&h->r) % (MAXC + 1)
						: rand_len(&h->r) % 400;
		struct frame resp;

		fr[i] = rand_frame(&h->r,
				   ctl ? FTPU_LINK_CONTROL : FTPU_LINK_PROGRAM,
				   len);
		fr[i].seq = (host.seq0 + i) & 0xffff;
		resp = fr[i];
		resp.type = FTPU_LINK_RESPONSE;
		want_bytes += FTPU_LINK_FRAME_BYTES(len);
		frame_words(&want[ctl], &resp);
	}
	assert_int_equal(ftpu_link_rx_init(&rx, buf, MAXP), FTPU_OK);
	end = 40 * (uint64_t)want_bytes + 10000;
	while (next < NFRAMES || busy(h) || idle < 16) {
		if (h->cycles >= end)
			fail_msg("loop stuck after %llu cycles: %u of %u "
				 "frames sent",
				 (unsigned long long)h->cycles, next, NFRAMES);
		/* The last frame's bytes are in, and the credit sampled since
		 * covers the next PROGRAM frame; a CONTROL frame waits for
		 * the answer to the previous one. */
		if (next < NFRAMES && h->in_pos == h->in.n && idle >= 2 &&
		    (fr[next].type == FTPU_LINK_CONTROL
			     ? host.ctl_wait < 0
			     : h->prev.credit >= FRAME_WORDS(fr[next].len))) {
			if (fr[next].type == FTPU_LINK_CONTROL)
				host.ctl_wait = (int)fr[next].seq;
			if (rng_below(&h->r, 4) == 0)
				put_garbage(&h->r, &h->in);
			put_frame(&h->in, &fr[next++]);
		}
		cycle(h);
		idle = h->in_pos < h->in.n ? 0 : idle + 1;
		assert_int_equal(ftpu_link_rx_push(&rx, h->tx_out.p + parsed,
						   h->tx_out.n - parsed, &cb),
				 FTPU_OK);
		parsed = h->tx_out.n;
	}
	assert_int_equal(stats(h).errors[FTPU_LINK_ERR_OVERFLOW], 0);
	assert_int_equal(stats(h).frames_ok, NFRAMES);
	assert_int_equal(h->tx_out.n, want_bytes);
	assert_int_equal(host.errors, 0);
	assert_int_equal(rx.stats.frames_ok, NFRAMES);
	assert_int_equal(rx.stats.bytes_ok, want_bytes);
	words_equal(&host.words[0], &want[0]);
	words_equal(&host.words[1], &want[1]);
	assert_int_equal(h->prev.credit, h->cap);
	assert_int_equal(h->prev.ack_seq, fr[NFRAMES - 1].seq);
	for (unsigned k = 0; k < 2; k++) {
		free(want[k].p);
		free(host.words[k].p);
	}
}

/* The tests whose expectations hold at any beat width (above). */
#define WIDE_TESTS(T)                                                          \
	T(test_link_rtl_frame_builder)                                         \
	T(test_link_rtl_good_frames)                                           \
	T(test_link_rtl_garbage)                                               \
	T(test_link_rtl_sync_inside_frame)                                     \
	T(test_link_rtl_bit_flips)                                             \
	T(test_link_rtl_dropped_byte)                                          \
	T(test_link_rtl_bad_length)                                            \
	T(test_link_rtl_unknown_type)                                          \
	T(test_link_rtl_control_len)                                           \
	T(test_link_rtl_tx_frames)                                             \
	T(test_link_rtl_loop)
#define AS_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown),

int main(void)
{
#if FTPU_LINK_BYTES != 1
	const struct CMUnitTest tests[] = { WIDE_TESTS(AS_TEST) };
#else
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_link_rtl_frame_builder,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_good_frames,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_gaps_and_stalls,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_garbage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_sync_inside_frame,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_bit_flips, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_dropped_byte,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_bad_length, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_unknown_type,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_overflow, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_credit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_link_rtl_error_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_control_when_full,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_control_held,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_control_len,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_ack_seq, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_flush, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_tx_frames, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_rtl_loop, setup,
						teardown),
	};
#endif

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
