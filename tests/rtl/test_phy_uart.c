/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_phy_uart.c - the UART PHY (rtl/link/ftpu_phy_uart*.sv in
 * sim/tops/ftpu_phy_uart_tb.sv) against a C model of the serial line on
 * the other side: a sender whose bit period is off the nominal one by up
 * to +-2% (bytes back to back, framing errors, breaks, idle glitches
 * shorter than half a bit) and a receiver at such an offset rate that
 * samples the PHY's tx pin at the centre of its own bit times. Run at 3
 * Mbaud from 12 MHz (4 clocks per bit), 13.5 MHz (4.5) and 50 MHz (16.67).
 *
 * Time is in core clock periods: edge k of the PHY's clock is at time k,
 * the rx pin driven in call k is the line at time k, and the tx pin sampled
 * in call k is the line during [k - 1, k). Every run has a cycle bound.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "phy_test.h"

static const struct phy_model models[] = {
	{"phy_uart_4", ftpu_sim_open_phy_uart_4},
	{"phy_uart_4p5", ftpu_sim_open_phy_uart_4p5},
	{"phy_uart_50m", ftpu_sim_open_phy_uart_50m},
};
#define N_MODELS (sizeof(models) / sizeof(models[0]))

/* ---- the sending side of the line -------------------------------------------
 */

/* The line as level segments: level lvl[i] from time t[i] on. */
struct line_tx {
	double *t;
	uint8_t *lvl;
	size_t n, cap, cur;
	double now;	 /* where the next symbol starts */
	double bit;	 /* this sender's bit period, in PHY clocks */
	struct u8v want; /* the bytes the PHY must deliver */
	double *done;	 /* for each: when its stop bit's centre passes */
	size_t done_cap;
	unsigned ferr, brk; /* framing errors, of which breaks, to report */
};

static void seg(struct line_tx *l, double t, int lvl)
{
	if (l->n && l->lvl[l->n - 1] == lvl)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->t = realloc(l->t, l->cap * sizeof(*l->t));
		l->lvl = realloc(l->lvl, l->cap);
		assert_true(l->t && l->lvl);
	}
	l->t[l->n] = t;
	l->lvl[l->n++] = (uint8_t)lvl;
}

static void line_init(struct line_tx *l, double bit, double start)
{
	*l = (struct line_tx){0};
	l->bit = bit;
	seg(l, -1e9, 1);
	l->now = start;
}

static void line_free(struct line_tx *l)
{
	free(l->t);
	free(l->lvl);
	free(l->done);
	u8_free(&l->want);
}

/* One 8N1 frame; a low stop bit makes it a framing error (a break when
 * the byte is 0), and the line then idles for two bits so the receiver
 * sees it high again before the next start bit. */
static void line_byte(struct line_tx *l, uint8_t b, bool bad_stop)
{
	seg(l, l->now, 0);
	for (int i = 0; i < 8; i++)
		seg(l, l->now + (1 + i) * l->bit, (b >> i) & 1);
	seg(l, l->now + 9 * l->bit, !bad_stop);
	if (bad_stop) {
		seg(l, l->now + 10 * l->bit, 1);
		l->now += 12 * l->bit;
		l->ferr++;
		l->brk += b == 0;
		return;
	}
	if (l->want.n == l->done_cap) {
		l->done_cap = l->done_cap ? 2 * l->done_cap : 256;
		l->done = realloc(l->done, l->done_cap * sizeof(*l->done));
		assert_non_null(l->done);
	}
	l->done[l->want.n] = l->now + 9.5 * l->bit;
	u8_push(&l->want, b);
	l->now += 10 * l->bit;
}

static void line_idle(struct line_tx *l, double bits)
{
	seg(l, l->now, 1);
	l->now += bits * l->bit;
}

/* A break: the line low for `bits` bit times, then two bits idle. */
static void line_break(struct line_tx *l, double bits)
{
	seg(l, l->now, 0);
	seg(l, l->now + bits * l->bit, 1);
	l->now += (bits + 2) * l->bit;
	l->ferr++;
	l->brk++;
}

/* A low glitch of `clocks` on an idle line, then a bit of idle. */
static void line_glitch(struct line_tx *l, double clocks)
{
	seg(l, l->now, 0);
	seg(l, l->now + clocks, 1);
	l->now += clocks + l->bit;
}

/* The level at time t (t never decreases between calls). */
static bool line_at(struct line_tx *l, double t)
{
	while (l->cur + 1 < l->n && l->t[l->cur + 1] <= t)
		l->cur++;
	return l->lvl[l->cur];
}

/* ---- the receiving side of the line
 * ------------------------------------------- */

struct line_rx {
	double bit; /* this receiver's bit period, in PHY clocks */
	bool busy;
	bool prev;     /* level during the previous clock */
	double edge;   /* start bit's falling edge */
	unsigned next; /* next bit to sample: 0 start .. 9 stop */
	uint8_t sh;
	struct u8v got;
	double *starts; /* falling edge of each byte received */
	size_t starts_cap;
	unsigned ferr; /* stop bits sampled low */
	unsigned false_starts;
};

static void rx_init(struct line_rx *r, double bit)
{
	*r = (struct line_rx){0};
	r->bit = bit;
	r->prev = true;
}

static void rx_free(struct line_rx *r)
{
	u8_free(&r->got);
	free(r->starts);
}

/* Call k: the tx pin was at level v during [k - 1, k). */
static void rx_step(struct line_rx *r, uint64_t k, bool v)
{
	if (!r->busy) {
		if (r->prev && !v) {
			r->busy = true;
			r->edge = (double)k - 1;
			r->next = 0;
		}
		r->prev = v;
		if (!r->busy)
			return;
	}
	r->prev = v;
	double s = r->edge + (r->next + 0.5) * r->bit;
	if (s >= (double)k)
		return;
	/* the sample falls in [k - 1, k): the level is v */
	if (r->next == 0) {
		if (v) { /* not a start bit after all */
			r->false_starts++;
			r->busy = false;
		}
	} else if (r->next <= 8) {
		r->sh = (uint8_t)(r->sh >> 1 | (v ? 0x80 : 0));
	} else {
		if (v) {
			u8_push(&r->got, r->sh);
			if (r->got.n > r->starts_cap) {
				r->starts_cap =
					r->starts_cap ? 2 * r->starts_cap : 256;
				r->starts =
					realloc(r->starts,
						r->starts_cap * sizeof(double));
				assert_non_null(r->starts);
			}
			r->starts[r->got.n - 1] = r->edge;
		} else {
			r->ferr++;
		}
		r->busy = false;
		r->prev = v;
		return;
	}
	r->next++;
}

/* ---- one run
 * ------------------------------------------------------------------ */

struct run {
	struct ftpu_sim *sim;
	struct ftpu_sim_phy_config cfg;
	double bit; /* nominal bit period in clocks */
	struct ftpu_sim_uart_io io;
	uint64_t k;
	unsigned ferr_pulses, brk_pulses, ovr_pulses;
	struct u8v sunk; /* bytes the sink took from out_* */
};

static void run_open(struct run *r, unsigned m)
{
	*r = (struct run){0};
	r->sim = phy_open(&models[m], FTPU_SIM_PHY_UART, &r->cfg);
	r->bit = (double)r->cfg.clock_hz / r->cfg.baud;
	ftpu_sim_reset(r->sim, 4);
	r->io.rx = true;
	r->k = ftpu_sim_cycles(r->sim);
}

static void run_close(struct run *r)
{
	ftpu_sim_close(r->sim);
	u8_free(&r->sunk);
}

/* One cycle: rx from the line (if any) at time k, the sink and the
 * receiver (if any) from the sampled outputs. */
static void run_cycle(struct run *r, struct line_tx *tx, struct line_rx *rx)
{
	if (tx)
		r->io.rx = line_at(tx, (double)r->k);
	assert_true(ftpu_sim_uart_cycle(r->sim, &r->io));
	if (r->io.out_valid && r->io.out_ready)
		u8_push(&r->sunk, r->io.out_byte);
	r->ferr_pulses += r->io.frame_err;
	r->brk_pulses += r->io.brk;
	r->ovr_pulses += r->io.overrun;
	if (rx)
		rx_step(rx, r->k, r->io.tx);
	r->k++;
}

/* A random stream for the receiver: bytes back to back, with (unless
 * clean) framing errors, breaks and idle stretches holding glitches
 * shorter than half of the PHY's bit. */
static void make_stream(struct line_tx *l, struct rng *g, unsigned n,
			double nominal_bit, bool clean)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned c = clean ? 99 : rng_below(g, 100);
		if (c < 4) {
			line_byte(l, (uint8_t)rng_u32(g), true);
		} else if (c < 6) {
			line_byte(l, 0, true); /* a one-frame break */
		} else if (c < 8) {
			line_break(l, 11 + rng_below(g, 30));
		} else if (c < 14) {
			line_idle(l, 0.5 + rng_below(g, 20) / 4.0);
			line_glitch(l,
				    nominal_bit *
					    (0.05 + 0.44 * rng_below(g, 1001) /
							    1000.0));
		} else if (c < 18) {
			line_idle(l, rng_below(g, 40) / 8.0);
			line_byte(l, (uint8_t)rng_u32(g), false);
		} else {
			line_byte(l, (uint8_t)rng_u32(g), false);
		}
	}
	line_idle(l, 20);
}

/* ---- tests
 * ---------------------------------------------------------------------- */

/* Bytes in from a sender 2% slow, exact and 2% fast, back to back, with
 * framing errors, breaks and glitches: exactly the good bytes come out, in
 * order, each error counted once, no overrun. The sink is slow but keeps
 * up on average. */
static void test_phy_uart_receive(void **state)
{
	(void)state;
	static const double offs[] = {-0.02, 0.0, 0.02};
	struct rng g = {ftpu_test_seed()};

	for (unsigned m = 0; m < N_MODELS; m++) {
		for (unsigned o = 0; o < 3; o++) {
			struct run r;
			struct line_tx l;
			run_open(&r, m);
			line_init(&l, r.bit * (1 + offs[o]),
				  (double)r.k + 3 +
					  rng_below(&g, 1000) / 1000.0);
			make_stream(&l, &g, 4000, r.bit, false);
			uint64_t end = (uint64_t)l.now + 10;
			while (r.k < end) {
				r.io.out_ready = rng_below(&g, 8) < 5;
				run_cycle(&r, &l, NULL);
			}
			print_message(
				"%s, sender %+.0f%%: %zu bytes, %u framing "
				"errors (%u breaks)\n",
				models[m].name, 100 * offs[o], l.want.n, l.ferr,
				l.brk);
			assert_bytes_equal(&r.sunk, &l.want, models[m].name);
			assert_int_equal(r.ferr_pulses, l.ferr);
			assert_int_equal(r.io.frame_errs, l.ferr);
			assert_int_equal(r.brk_pulses, l.brk);
			assert_int_equal(r.ovr_pulses, 0);
			assert_int_equal(r.io.overruns, 0);
			line_free(&l);
			run_close(&r);
		}
	}
}

/* Glitches alone: an idle line with low pulses of up to 0.49 bit at random
 * phases, then one byte: the byte is all that comes out. */
static void test_phy_uart_glitches(void **state)
{
	(void)state;
	struct rng g = {ftpu_test_seed() ^ 1};

	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		struct line_tx l;
		run_open(&r, m);
		line_init(&l, r.bit, (double)r.k + 3);
		for (unsigned i = 0; i < 3000; i++) {
			line_idle(&l, rng_below(&g, 1000) / 500.0);
			line_glitch(&l,
				    r.bit * (0.3 + 0.19 * rng_below(&g, 1001) /
							   1000.0));
		}
		line_byte(&l, 0xA5, false);
		line_idle(&l, 4);
		uint64_t end = (uint64_t)l.now + 10;
		r.io.out_ready = true;
		while (r.k < end)
			run_cycle(&r, &l, NULL);
		assert_bytes_equal(&r.sunk, &l.want, models[m].name);
		assert_int_equal(r.ferr_pulses, 0);
		line_free(&l);
		run_close(&r);
	}
}

/* Bytes out at full rate to receivers 2% slow and 2% fast: every byte,
 * good stop bits, and start bits exactly 10 bit periods apart (within one
 * clock of rounding); then with random gaps from the source. */
static void test_phy_uart_transmit(void **state)
{
	(void)state;
	static const double offs[] = {-0.02, 0.02};
	struct rng g = {ftpu_test_seed() ^ 2};

	for (unsigned m = 0; m < N_MODELS; m++) {
		for (unsigned o = 0; o < 2; o++) {
			for (int gaps = 0; gaps < 2; gaps++) {
				struct run r;
				struct line_rx rx;
				struct u8v sent = {0};
				run_open(&r, m);
				rx_init(&rx, r.bit * (1 + offs[o]));
				const unsigned n = 1000;
				uint64_t bound =
					r.k +
					(uint64_t)(n * (10 * r.bit + 200));
				uint64_t end = bound;
				while (r.k < end) {
					if (!r.io.in_valid && sent.n < n &&
					    (!gaps || rng_below(&g, 64) == 0)) {
						r.io.in_valid = true;
						r.io.in_byte =
							(uint8_t)rng_u32(&g);
					}
					uint8_t b = r.io.in_byte;
					bool v = r.io.in_valid;
					run_cycle(&r, NULL, &rx);
					if (v && r.io.in_ready) {
						u8_push(&sent, b);
						r.io.in_valid = false;
					}
					/* then 3 byte times more: nothing else
					 * comes */
					if (rx.got.n == n && end == bound)
						end = r.k +
						      (uint64_t)(30 * r.bit);
				}
				assert_int_equal(sent.n, n);
				assert_bytes_equal(&rx.got, &sent,
						   models[m].name);
				assert_int_equal(rx.ferr, 0);
				assert_int_equal(rx.false_starts, 0);
				for (size_t i = 1; !gaps && i < rx.got.n; i++) {
					double d = rx.starts[i] - rx.starts[0] -
						   10.0 * r.bit * (double)i;
					if (fabs(d) > 1.0)
						print_error(
							"byte %zu starts %.2f "
							"clocks off\n",
							i, d);
					assert_true(fabs(d) <= 1.0);
				}
				u8_free(&sent);
				rx_free(&rx);
				run_close(&r);
			}
		}
	}
}

/* Both directions at once at full rate, independent streams: a fast
 * sender, a slow receiver. */
static void test_phy_uart_full_duplex(void **state)
{
	(void)state;
	struct rng g = {ftpu_test_seed() ^ 3};

	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		struct line_tx l;
		struct line_rx rx;
		struct u8v sent = {0};
		run_open(&r, m);
		line_init(&l, r.bit * 1.02, (double)r.k + 5.5);
		make_stream(&l, &g, 2000, r.bit, true);
		rx_init(&rx, r.bit * 0.98);
		uint64_t end = (uint64_t)(l.now + 20 * r.bit);
		r.io.out_ready = true;
		while (r.k < end) {
			if (!r.io.in_valid && sent.n < 2000) {
				r.io.in_valid = true;
				r.io.in_byte = (uint8_t)rng_u32(&g);
			}
			uint8_t b = r.io.in_byte;
			bool v = r.io.in_valid;
			run_cycle(&r, &l, &rx);
			if (v && r.io.in_ready) {
				u8_push(&sent, b);
				r.io.in_valid = false;
			}
		}
		assert_bytes_equal(&r.sunk, &l.want, "received");
		assert_int_equal(sent.n, 2000);
		assert_bytes_equal(&rx.got, &sent, "sent");
		assert_int_equal(rx.ferr, 0);
		assert_int_equal(r.ovr_pulses + r.ferr_pulses, 0);
		u8_free(&sent);
		rx_free(&rx);
		line_free(&l);
		run_close(&r);
	}
}

/* A device that echoes (loop): a sender 2% slow, back to back (the echo
 * cannot outrun a faster one), and a receiver 2% fast get the same bytes
 * back, none overrun. */
static void test_phy_uart_echo(void **state)
{
	(void)state;
	struct rng g = {ftpu_test_seed() ^ 4};

	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		struct line_tx l;
		struct line_rx rx;
		run_open(&r, m);
		r.io.loop = true;
		line_init(&l, r.bit * 1.02, (double)r.k + 2.25);
		make_stream(&l, &g, 2000, r.bit, true);
		rx_init(&rx, r.bit * 0.98);
		uint64_t end = (uint64_t)(l.now + 40 * r.bit);
		while (r.k < end)
			run_cycle(&r, &l, &rx);
		assert_bytes_equal(&rx.got, &l.want, models[m].name);
		assert_int_equal(rx.ferr, 0);
		assert_int_equal(r.io.overruns, 0);
		rx_free(&rx);
		line_free(&l);
		run_close(&r);
	}
}

/* A sink that stalls: during each stall the FIFO takes the first
 * fifo_depth bytes that complete, every later one is dropped and counted
 * as an overrun, and the rest of the stream is untouched. Bytes are
 * numbered so the drops can be located. Stalls begin and end half a byte
 * away from any byte's completion, so which bytes complete inside is
 * unambiguous. */
static void test_phy_uart_overrun(void **state)
{
	(void)state;
	struct rng g = {ftpu_test_seed() ^ 5};

	for (unsigned m = 0; m < N_MODELS; m++) {
		struct run r;
		struct line_tx l;
		run_open(&r, m);
		const unsigned n = 250, depth = r.cfg.fifo_depth;
		line_init(&l, r.bit * (rng_below(&g, 2) ? 1.02 : 0.98),
			  (double)r.k + 3);
		for (unsigned i = 0; i < n; i++)
			line_byte(&l, (uint8_t)i, false);
		line_idle(&l, 20);
		/* stalls: [done[a] + half a byte, done[b] + half a byte) */
		unsigned a[4] = {10, 60, 120, 200};
		unsigned b[4] = {10 + depth + 5, 60 + depth, 120 + depth + 30,
				 200 + depth + 1};
		bool want[256];
		unsigned dropped = 0;
		for (unsigned i = 0; i < n; i++)
			want[i] = true;
		for (unsigned s = 0; s < 4; s++)
			for (unsigned i = a[s] + 1 + depth; i <= b[s]; i++) {
				want[i] = false;
				dropped++;
			}
		struct u8v exp = {0};
		for (unsigned i = 0; i < n; i++)
			if (want[i])
				u8_push(&exp, (uint8_t)i);
		double half = 5 * l.bit;
		uint64_t end = (uint64_t)l.now + 10;
		while (r.k < end) {
			bool stalled = false;
			for (unsigned s = 0; s < 4; s++)
				stalled |= (double)r.k >= l.done[a[s]] + half &&
					   (double)r.k < l.done[b[s]] + half;
			r.io.out_ready = !stalled;
			run_cycle(&r, &l, NULL);
		}
		print_message("%s: %u of %u bytes dropped\n", models[m].name,
			      dropped, n);
		assert_bytes_equal(&r.sunk, &exp, models[m].name);
		assert_int_equal(r.ovr_pulses, dropped);
		assert_int_equal(r.io.overruns, dropped);
		assert_int_equal(r.ferr_pulses, 0);
		u8_free(&exp);
		line_free(&l);
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phy_uart_receive),
		cmocka_unit_test(test_phy_uart_glitches),
		cmocka_unit_test(test_phy_uart_transmit),
		cmocka_unit_test(test_phy_uart_full_duplex),
		cmocka_unit_test(test_phy_uart_echo),
		cmocka_unit_test(test_phy_uart_overrun),
	};
	print_message("seed %#" PRIx64 " (FTPU_SEED)\n", ftpu_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
