/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ref_device.c - the C model of the device (model/ref_device.c) driven
 * through its link bytes, as a host would: INFO, tiled GEMM programs split
 * across frames against the reference GEMM, ACTIVATE against the reference
 * activation, every fault kind followed by a working program, and link
 * errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "ftpu.h"
#include "isa.h"
#include "link.h"
#include "numeric.h"
#include "ref_device.h"

/* ---- a minimal host: send frames, collect the device's frames ------------ */

#define MAX_FRAMES 256

struct got_frame {
	uint8_t type;
	uint16_t seq;
	uint32_t len;
	uint32_t *payload;
};

struct host {
	struct ftpu_ref_device *dev;
	struct ftpu_ref_device_config cfg;
	struct ftpu_link_rx rx;
	uint32_t rx_buf[FTPU_LINK_MAX_PAYLOAD];
	struct got_frame frames[MAX_FRAMES];
	size_t nframes;
	size_t rx_errors;
	uint16_t seq;
	struct rng rng;
};

static void on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct host *h = ctx;
	assert_true(h->nframes < MAX_FRAMES);
	struct got_frame *g = &h->frames[h->nframes++];
	g->type = f->type;
	g->seq = f->seq;
	g->len = f->len;
	g->payload = malloc((f->len + 1) * sizeof(uint32_t));
	assert_non_null(g->payload);
	memcpy(g->payload, f->payload, f->len * sizeof(uint32_t));
}

static void on_error(void *ctx, const struct ftpu_link_error *e)
{
	(void)e;
	((struct host *)ctx)->rx_errors++;
}

static void clear_frames(struct host *h)
{
	for (size_t i = 0; i < h->nframes; i++)
		free(h->frames[i].payload);
	h->nframes = 0;
}

/* Move everything the device has said into h->frames. */
static void drain(struct host *h)
{
	const struct ftpu_link_rx_cb cb = { .frame = on_frame, .error = on_error, .ctx = h };
	uint8_t buf[4096];
	size_t n;
	while ((n = ftpu_ref_device_read(h->dev, buf, sizeof(buf))) > 0)
		assert_int_equal(ftpu_link_rx_push(&h->rx, buf, n, &cb), FTPU_OK);
}

static size_t encode(unsigned type, unsigned flags, uint16_t seq,
		     const uint32_t *p, size_t n, uint8_t *out, size_t cap)
{
	int len = ftpu_link_encode_flags(type, flags, seq, 0, p, n, out, cap);
	assert_true(len > 0);
	return (size_t)len;
}

static void send_frame(struct host *h, unsigned type, unsigned flags,
		       const uint32_t *p, size_t n)
{
	uint8_t *buf = malloc(FTPU_LINK_FRAME_BYTES(n));
	assert_non_null(buf);
	size_t len = encode(type, flags, ++h->seq, p, n, buf, FTPU_LINK_FRAME_BYTES(n));
	/* hand the bytes over in random pieces, as a transport would */
	for (size_t at = 0; at < len;) {
		size_t piece = 1 + rng_below(&h->rng, 3000);
		if (piece > len - at)
			piece = len - at;
		assert_int_equal(ftpu_ref_device_write(h->dev, buf + at, piece), FTPU_OK);
		at += piece;
	}
	free(buf);
	drain(h);
}

/* Send a program as several PROGRAM frames cut at random word boundaries. */
static void send_program(struct host *h, const uint32_t *w, size_t n)
{
	size_t at = 0;
	do {
		size_t piece = n - at;
		if (piece > 1 && rng_below(&h->rng, 2))
			piece = 1 + rng_below(&h->rng, (uint32_t)piece);
		if (piece > FTPU_LINK_MAX_PAYLOAD)
			piece = FTPU_LINK_MAX_PAYLOAD;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + piece == n ? FTPU_PROGRAM_END : 0);
		send_frame(h, FTPU_LINK_PROGRAM, flags, w + at, piece);
		at += piece;
	} while (at < n);
}

static int setup(void **state)
{
	struct host *h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	ftpu_ref_device_default_config(&h->cfg);
	if (ftpu_ref_device_open(&h->cfg, &h->dev) ||
	    ftpu_link_rx_init(&h->rx, h->rx_buf, FTPU_LINK_MAX_PAYLOAD))
		return -1;
	h->rng.s = ftpu_test_seed();
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct host *h = *state;
	clear_frames(h);
	ftpu_ref_device_close(h->dev);
	free(h);
	return 0;
}

/* ---- program building ------------------------------------------------------ */

struct prog {
	uint32_t *w;
	size_t n, cap;
};

static void emit_word(struct prog *p, uint32_t w)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->w = realloc(p->w, p->cap * sizeof(uint32_t));
		assert_non_null(p->w);
	}
	p->w[p->n++] = w;
}

static void emit(struct prog *p, unsigned op, unsigned flags, unsigned n,
		 uint32_t a, uint32_t b)
{
	uint32_t w[FTPU_ISA_WORDS];
	ftpu_isa_encode(w, op, flags, n, a, b);
	for (unsigned i = 0; i < FTPU_ISA_WORDS; i++)
		emit_word(p, w[i]);
}

/* HOST_READ of bf16 vectors (N values each) from a generator. */
static void emit_bf16_vectors(struct prog *p, unsigned mem, uint32_t addr,
			      const uint16_t *v, size_t nvec, size_t N)
{
	emit(p, FTPU_OP_HOST_READ, mem, (unsigned)nvec, addr, 0);
	for (size_t i = 0; i < nvec * N; i += 2)
		emit_word(p, (uint32_t)v[i] | (uint32_t)v[i + 1] << 16);
}

/* The compiler's job, done by hand: C = (acc ? C : 0) + A * B as tiles. */
static void check_gemm(struct host *h, size_t M, size_t K, size_t Nn, bool acc)
{
	const size_t N = h->cfg.n, KT = (K + N - 1) / N, NT = (Nn + N - 1) / N;
	uint16_t *A = malloc(M * K * 2), *B = malloc(K * Nn * 2);
	uint32_t *C = malloc(M * Nn * 4), *want = malloc(M * Nn * 4);
	uint16_t *vec = malloc(N * N * 2);
	struct prog p = { 0 };
	assert_true(A && B && C && want && vec);
	for (size_t i = 0; i < M * K; i++)
		A[i] = rng_bf16_operand(&h->rng, 20);
	for (size_t i = 0; i < K * Nn; i++)
		B[i] = rng_bf16_operand(&h->rng, 20);
	for (size_t i = 0; i < M * Nn; i++)
		want[i] = rng_f32(&h->rng);

	/* weight tiles: tile t = kt * NT + nt at WM rows t*N; pads -0 / 0 */
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t nt = 0; nt < NT; nt++) {
			for (size_t r = 0; r < N; r++)
				for (size_t c = 0; c < N; c++) {
					size_t k = kt * N + r, n = nt * N + c;
					vec[r * N + c] = k >= K ? 0x8000 : n < Nn ? B[k * Nn + n] : 0;
				}
			emit_bf16_vectors(&p, FTPU_MEM_WM, (uint32_t)((kt * NT + nt) * N), vec, N, N);
		}
	/* activations: UB vector kt*M + m holds A[m][kt*N .. kt*N+N), pads +0 */
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t m = 0; m < M; m++) {
			for (size_t r = 0; r < N; r++) {
				size_t k = kt * N + r;
				vec[r] = k < K ? A[m * K + k] : 0;
			}
			emit_bf16_vectors(&p, FTPU_MEM_UB, (uint32_t)(kt * M + m), vec, 1, N);
		}
	/* the initial C into the accumulators: ACC vector nt*M + m */
	if (acc)
		for (size_t nt = 0; nt < NT; nt++) {
			emit(&p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, (unsigned)M, (uint32_t)(nt * M), 0);
			for (size_t m = 0; m < M; m++)
				for (size_t c = 0; c < N; c++) {
					size_t n = nt * N + c;
					emit_word(&p, n < Nn ? want[m * Nn + n] : 0);
				}
		}
	for (size_t kt = 0; kt < KT; kt++)
		for (size_t nt = 0; nt < NT; nt++) {
			emit(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, (uint32_t)((kt * NT + nt) * N), 0);
			emit(&p, FTPU_OP_MATMUL,
			     FTPU_MATMUL_SWAP | (kt > 0 || acc ? FTPU_MATMUL_ACCUMULATE : 0),
			     (unsigned)M, (uint32_t)(kt * M), (uint32_t)(nt * M));
		}
	for (size_t nt = 0; nt < NT; nt++)
		emit(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, (unsigned)M, (uint32_t)(nt * M), 0);
	emit(&p, FTPU_OP_SYNC, 0, 0, 0xC0FFEE, 0);

	clear_frames(h);
	send_program(h, p.w, p.n);

	/* DATA frames: M x N fp32 per n-tile, in order; then the SYNC event */
	size_t nt = 0, m = 0;
	bool synced = false;
	for (size_t f = 0; f < h->nframes; f++) {
		struct got_frame *g = &h->frames[f];
		if (g->type == FTPU_LINK_EVENT) {
			assert_int_equal(g->payload[0], FTPU_LINK_EVENT_SYNC);
			assert_int_equal(g->payload[1], 0xC0FFEE);
			synced = true;
			continue;
		}
		assert_int_equal(g->type, FTPU_LINK_DATA);
		assert_int_equal(g->len % N, 0);
		for (size_t v = 0; v < g->len / N; v++, m++) {
			if (m == M)
				m = 0, nt++;
			for (size_t c = 0; c < N; c++)
				if (nt * N + c < Nn)
					C[m * Nn + nt * N + c] = g->payload[v * N + c];
		}
	}
	assert_true(synced);
	assert_int_equal(nt * M + m, NT * M);
	ftpu_ref_gemm(M, Nn, K, A, K, B, Nn, want, Nn, acc);
	assert_memory_equal(C, want, M * Nn * 4);
	free(A), free(B), free(C), free(want), free(vec), free(p.w);
}

/* ---- tests --------------------------------------------------------------------- */

static void test_ref_device_info(void **state)
{
	struct host *h = *state;
	uint32_t op = FTPU_LINK_OP_INFO, v;
	clear_frames(h);
	send_frame(h, FTPU_LINK_CONTROL, 0, &op, 1);
	assert_int_equal(h->nframes, 1);
	struct got_frame *g = &h->frames[0];
	assert_int_equal(g->type, FTPU_LINK_RESPONSE);
	assert_int_equal(g->seq, h->seq);
	assert_int_equal(ftpu_link_info_get(g->payload, g->len, FTPU_LINK_INFO_ROWS, &v), FTPU_OK);
	assert_int_equal(v, h->cfg.n);
	assert_int_equal(ftpu_link_info_get(g->payload, g->len, FTPU_LINK_INFO_ACC_VECTORS, &v), FTPU_OK);
	assert_int_equal(v, h->cfg.acc_vectors);
}

static void test_ref_device_gemm_programs(void **state)
{
	struct host *h = *state;
	static const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 5, 17, 3 }, { 16, 16, 16 }, { 20, 40, 33 }, { 64, 100, 20 },
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int acc = 0; acc < 2; acc++)
			check_gemm(h, shapes[i][0], shapes[i][1], shapes[i][2], acc);
}

/* ACTIVATE with and without bias and ReLU against ftpu_ref_activate. */
static void test_ref_device_activate(void **state)
{
	struct host *h = *state;
	const size_t N = h->cfg.n, V = 8;
	uint32_t acc[8 * 16], bias[16];
	for (int mode = 0; mode < 4; mode++) {
		struct prog p = { 0 };
		for (size_t i = 0; i < V * N; i++)
			acc[i] = rng_f32(&h->rng);
		for (size_t c = 0; c < N; c++)
			bias[c] = rng_f32(&h->rng);
		emit(&p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, V, 100, 0);
		for (size_t i = 0; i < V * N; i++)
			emit_word(&p, acc[i]);
		emit(&p, FTPU_OP_HOST_READ, FTPU_MEM_BIAS, 1, 7, 0);
		for (size_t c = 0; c < N; c++)
			emit_word(&p, bias[c]);
		emit(&p, FTPU_OP_ACTIVATE, (unsigned)mode, V, 100, 7u << 16 | 200);
		emit(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, V, 200, 0);
		clear_frames(h);
		send_program(h, p.w, p.n);
		assert_int_equal(h->nframes, 1);
		assert_int_equal(h->frames[0].len, V * N / 2);
		for (size_t i = 0; i < V * N; i++) {
			uint32_t w = h->frames[0].payload[i / 2];
			uint16_t got = (uint16_t)(i & 1 ? w >> 16 : w);
			uint32_t b = (mode & FTPU_ACTIVATE_BIAS) ? bias[i % N] : 0x80000000u;
			assert_int_equal(got, ftpu_ref_activate(acc[i], b, mode & FTPU_ACTIVATE_RELU));
		}
		free(p.w);
	}
}

/* Every fault: an EVENT FAULT naming the instruction, nothing else of that
 * program runs, and the next program is fine. */
static void test_ref_device_faults(void **state)
{
	struct host *h = *state;
	const struct ftpu_ref_device_config *c = &h->cfg;
	struct {
		unsigned op, flags, n;
		uint32_t a, b;
		unsigned code;
	} cases[] = {
		{ 0x7F, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ FTPU_OP_MATMUL, 0x80, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ FTPU_OP_MATMUL, 0, 0, 0, 0, FTPU_FAULT_COUNT },
		{ FTPU_OP_LOAD_WEIGHTS, 0, 2, 0, 0, FTPU_FAULT_COUNT },
		{ FTPU_OP_LOAD_WEIGHTS, 0, 1, c->wm_rows - 1, 0, FTPU_FAULT_RANGE },
		{ FTPU_OP_MATMUL, 0, 2, c->ub_vectors - 1, 0, FTPU_FAULT_RANGE },
		{ FTPU_OP_MATMUL, 0, 1, 0, 0xFFFFFFFF, FTPU_FAULT_RANGE },
		{ FTPU_OP_ACTIVATE, FTPU_ACTIVATE_BIAS, 1, 0, c->bias_vectors << 16, FTPU_FAULT_RANGE },
		{ FTPU_OP_HOST_WRITE, FTPU_MEM_WM, 1, 0, 0, FTPU_FAULT_MEMORY },
		{ FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | 0x08, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | FTPU_HOST_WRITE_WORDS, 1, 0, 0, FTPU_FAULT_COUNT },
		{ FTPU_OP_HOST_WRITE, FTPU_MEM_UB | FTPU_HOST_WRITE_WORDS, 1, 0, c->n / 2 + 1, FTPU_FAULT_COUNT },
		{ FTPU_OP_HOST_WRITE, FTPU_MEM_ACC | FTPU_HOST_WRITE_WORDS, 2, c->acc_vectors - 1, c->n, FTPU_FAULT_RANGE },
		{ FTPU_OP_HOST_READ, FTPU_MEM_ACC, 3, c->acc_vectors - 2, 0, FTPU_FAULT_RANGE },
	};
	uint32_t op = FTPU_LINK_OP_RESET;
	for (size_t i = 0; i <= sizeof(cases) / sizeof(cases[0]); i++) {
		struct prog p = { 0 };
		bool no_tile = i == sizeof(cases) / sizeof(cases[0]);
		emit(&p, FTPU_OP_SYNC, 0, 0, 1, 0); /* instruction 0 runs */
		if (no_tile) { /* a fresh device has no tile to multiply with */
			send_frame(h, FTPU_LINK_CONTROL, 0, &op, 1);
			emit(&p, FTPU_OP_MATMUL, 0, 1, 0, 0);
		}
		else
			emit(&p, cases[i].op, cases[i].flags, cases[i].n, cases[i].a, cases[i].b);
		emit(&p, FTPU_OP_SYNC, 0, 0, 2, 0); /* must not run */
		clear_frames(h);
		send_program(h, p.w, p.n);
		assert_int_equal(h->nframes, 2);
		assert_int_equal(h->frames[0].payload[0], FTPU_LINK_EVENT_SYNC);
		assert_int_equal(h->frames[1].type, FTPU_LINK_EVENT);
		assert_int_equal(h->frames[1].payload[0], FTPU_LINK_EVENT_FAULT);
		assert_int_equal(h->frames[1].payload[1], 1); /* its index */
		assert_int_equal(h->frames[1].payload[2], no_tile ? FTPU_FAULT_NO_TILE : cases[i].code);
		assert_int_equal(h->frames[1].payload[3], p.w[3]);
		free(p.w);
		check_gemm(h, 3, 20, 5, false); /* and the next program works */
	}
}

/* A program that ends inside an instruction or its inline data. */
static void test_ref_device_truncated_program(void **state)
{
	struct host *h = *state;
	uint32_t w[FTPU_ISA_WORDS + 1];
	ftpu_isa_encode(w, FTPU_OP_HOST_READ, FTPU_MEM_UB, 4, 0, 0);
	w[3] = 0x3F803F80;
	clear_frames(h);
	send_frame(h, FTPU_LINK_PROGRAM, FTPU_PROGRAM_START | FTPU_PROGRAM_END, w, 4);
	assert_int_equal(h->nframes, 1);
	assert_int_equal(h->frames[0].payload[0], FTPU_LINK_EVENT_FAULT);
	assert_int_equal(h->frames[0].payload[2], FTPU_FAULT_TRUNCATED);
	/* words outside START..END are refused */
	clear_frames(h);
	send_frame(h, FTPU_LINK_PROGRAM, 0, w, 3);
	assert_int_equal(h->nframes, 1);
	assert_int_equal(h->frames[0].payload[2], FTPU_FAULT_FRAMING);
	check_gemm(h, 2, 3, 4, true);
}

/* Corrupted frames get ERROR frames, are never executed, and the link
 * carries on. */
static void test_ref_device_link_errors(void **state)
{
	struct host *h = *state;
	uint32_t w[FTPU_ISA_WORDS];
	uint8_t buf[64];
	ftpu_isa_encode(w, FTPU_OP_SYNC, 0, 0, 77, 0);
	size_t len = encode(FTPU_LINK_PROGRAM, FTPU_PROGRAM_START | FTPU_PROGRAM_END, 9,
			    w, 3, buf, sizeof(buf));
	buf[20] ^= 0x10; /* a payload bit: BAD_PAYLOAD_CRC */
	clear_frames(h);
	assert_int_equal(ftpu_ref_device_write(h->dev, "garbage", 7), FTPU_OK);
	assert_int_equal(ftpu_ref_device_write(h->dev, buf, len), FTPU_OK);
	drain(h);
	assert_int_equal(h->nframes, 1);
	assert_int_equal(h->frames[0].type, FTPU_LINK_ERROR);
	assert_int_equal(h->frames[0].payload[0], FTPU_LINK_ERR_BAD_PAYLOAD_CRC);
	assert_int_equal(h->frames[0].payload[1], 9);
	/* a device-to-host type sent to the device */
	clear_frames(h);
	send_frame(h, FTPU_LINK_DATA, 0, w, 3);
	assert_int_equal(h->nframes, 1);
	assert_int_equal(h->frames[0].payload[0], FTPU_LINK_ERR_UNKNOWN_TYPE);
	check_gemm(h, 4, 4, 4, false);
	assert_int_equal(h->rx_errors, 0); /* the device's own frames are clean */
}

/* Admission at the exact boundaries (docs/protocol.md §6): a PROGRAM frame
 * of len L takes L + 2 receive-buffer words, so with rx_words R the model
 * takes len R - 2 (outside START..END: a FAULT FRAMING event) and refuses
 * R - 1 with OVERFLOW; a CONTROL frame takes up to MAX_CONTROL words. */
static void test_ref_device_overflow_boundary(void **state)
{
	struct host *h = *state;
	struct ftpu_ref_device *dev = h->dev;
	/* the boards' 1024 words, and around the largest frame */
	static const uint32_t rx_words[] = {1024, FTPU_LINK_MAX_PAYLOAD,
					    FTPU_LINK_MAX_PAYLOAD + 1,
					    FTPU_LINK_MAX_PAYLOAD + 2};
	uint32_t *p = calloc(FTPU_LINK_MAX_PAYLOAD, sizeof(uint32_t));
	struct ftpu_ref_device_config cfg = h->cfg;
	struct ftpu_ref_device *small;

	assert_non_null(p);
	cfg.rx_words = 2 + FTPU_ISA_WORDS - 1; /* no room for one instruction */
	assert_int_equal(ftpu_ref_device_open(&cfg, &small), FTPU_ERR_INVALID);
	for (size_t i = 0; i < sizeof(rx_words) / sizeof(rx_words[0]); i++) {
		uint32_t r = rx_words[i];

		cfg.rx_words = r;
		assert_int_equal(ftpu_ref_device_open(&cfg, &small), FTPU_OK);
		h->dev = small;
		clear_frames(h);
		send_frame(h, FTPU_LINK_PROGRAM, 0, p, r - 2);
		assert_int_equal(h->nframes, 1);
		assert_int_equal(h->frames[0].type, FTPU_LINK_EVENT);
		assert_int_equal(h->frames[0].payload[0], FTPU_LINK_EVENT_FAULT);
		assert_int_equal(h->frames[0].payload[2], FTPU_FAULT_FRAMING);
		if (r - 1 <= FTPU_LINK_MAX_PAYLOAD) {
			clear_frames(h);
			send_frame(h, FTPU_LINK_PROGRAM, 0, p, r - 1);
			assert_int_equal(h->nframes, 1);
			assert_int_equal(h->frames[0].type, FTPU_LINK_ERROR);
			assert_int_equal(h->frames[0].payload[0], FTPU_LINK_ERR_OVERFLOW);
			assert_int_equal(h->frames[0].payload[1], h->seq);
			assert_int_equal(h->frames[0].payload[2], FTPU_LINK_PROGRAM);
			assert_int_equal(h->frames[0].seq, h->seq); /* acknowledged */
		}
		/* CONTROL: MAX_CONTROL words taken (a request of the wrong
		 * size, answered), one more refused */
		clear_frames(h);
		send_frame(h, FTPU_LINK_CONTROL, 0, p, FTPU_LINK_MAX_CONTROL);
		assert_int_equal(h->nframes, 1);
		assert_int_equal(h->frames[0].type, FTPU_LINK_RESPONSE);
		assert_int_equal(h->frames[0].payload[1], FTPU_LINK_RESP_BAD_REQUEST);
		clear_frames(h);
		send_frame(h, FTPU_LINK_CONTROL, 0, p, FTPU_LINK_MAX_CONTROL + 1);
		assert_int_equal(h->nframes, 1);
		assert_int_equal(h->frames[0].type, FTPU_LINK_ERROR);
		assert_int_equal(h->frames[0].payload[0], FTPU_LINK_ERR_OVERFLOW);
		assert_int_equal(h->frames[0].payload[2], FTPU_LINK_CONTROL);
		ftpu_ref_device_close(small);
	}
	h->dev = dev;
	clear_frames(h);
	assert_int_equal(h->rx_errors, 0);
	free(p);
}

/* ---- the vector unit (docs/vector.md) -------------------------------------- */

/* Reopens the model with its vector unit on (or off). */
static void set_vector_unit(struct host *h, bool on)
{
	ftpu_ref_device_close(h->dev);
	h->cfg.vector_unit = on;
	assert_int_equal(ftpu_ref_device_open(&h->cfg, &h->dev), FTPU_OK);
}

static void emit_acc(struct prog *p, uint32_t addr, const uint32_t *v, size_t nvec, size_t N)
{
	emit(p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, (unsigned)nvec, addr, 0);
	for (size_t i = 0; i < nvec * N; i++)
		emit_word(p, v[i]);
}

/* The one DATA frame a program's HOST_WRITE sent. */
static const uint32_t *data_frame(struct host *h, size_t words)
{
	assert_int_equal(h->nframes, 1);
	assert_int_equal(h->frames[0].type, FTPU_LINK_DATA);
	assert_int_equal(h->frames[0].len, words);
	return h->frames[0].payload;
}

static uint32_t vector_want(unsigned op, unsigned flags, uint32_t x, uint32_t y, uint32_t z)
{
	switch (op) {
	case FTPU_OP_VADD: return ftpu_ref_add(x, y);
	case FTPU_OP_VSUB: return ftpu_ref_sub(x, y);
	case FTPU_OP_VMUL: return ftpu_ref_fmul(x, y);
	case FTPU_OP_VMAC: return ftpu_ref_add(ftpu_ref_fmul(x, y), z);
	case FTPU_OP_VMAX: return ftpu_ref_max(x, y);
	case FTPU_OP_VSEL: return ftpu_ref_select(z, x, y);
	default: return ftpu_ref_seed(x, y, flags & FTPU_VECTOR_HALF ? 1 : 0);
	}
}

/* Every operation, with and without FIXED operands, to a separate
 * destination and in place, against the numeric reference element by
 * element; the lanes are random values with specials mixed in. */
static void test_ref_device_vector_ops(void **state)
{
	struct host *h = *state;
	const size_t N = h->cfg.n, V = 5;
	static const unsigned ops[] = { FTPU_OP_VADD, FTPU_OP_VSUB, FTPU_OP_VMUL, FTPU_OP_VMAC,
					FTPU_OP_VMAX, FTPU_OP_VSEL, FTPU_OP_VSEED };
	uint32_t *x = calloc(3 * V * N, sizeof(uint32_t)), *y = x + V * N, *z = y + V * N;
	assert_non_null(x);
	set_vector_unit(h, true);
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		unsigned op = ops[k];
		bool uses_c = op == FTPU_OP_VMAC || op == FTPU_OP_VSEL;
		for (unsigned variant = 0; variant < 8; variant++) {
			unsigned flags = variant & 3u, in_place = variant >> 2;
			if ((flags & FTPU_VECTOR_C_FIXED) && !uses_c)
				continue;
			if (op == FTPU_OP_VSEED)
				flags |= (variant & 2) ? FTPU_VECTOR_HALF : 0, flags &= ~FTPU_VECTOR_C_FIXED;
			for (size_t i = 0; i < 3 * V * N; i++)
				x[i] = rng_f32(&h->rng);
			struct prog p = { 0 };
			/* a at 10, b at 40, c at 70, d at 100 (or a) */
			uint32_t d = in_place ? 10 : 100;
			emit_acc(&p, 10, x, V, N);
			emit_acc(&p, 40, y, V, N);
			emit_acc(&p, 70, z, V, N);
			emit(&p, op, flags, V, 10u | 40u << 16, d | 70u << 16);
			emit(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, V, d, 0);
			clear_frames(h);
			send_program(h, p.w, p.n);
			const uint32_t *got = data_frame(h, V * N);
			for (size_t i = 0; i < V; i++)
				for (size_t l = 0; l < N; l++) {
					size_t bi = (flags & FTPU_VECTOR_B_FIXED) ? 0 : i;
					size_t ci = (flags & FTPU_VECTOR_C_FIXED) ? 0 : i;
					uint32_t want = vector_want(op, flags, x[i * N + l], y[bi * N + l],
								    z[ci * N + l]);
					if (got[i * N + l] != want)
						fail_msg("op 0x%02x flags 0x%x in place %u: vector %zu lane %zu "
							 "= %08x, want %08x", op, flags, in_place, i, l,
							 got[i * N + l], want);
				}
			free(p.w);
		}
	}
	free(x);
	set_vector_unit(h, false);
}

/* CONVERT to UB and WM, plain and transposed, and COPY between them; WM is
 * read back through a COPY to UB (HOST_WRITE cannot read WM). */
static void test_ref_device_convert_copy(void **state)
{
	struct host *h = *state;
	const size_t N = h->cfg.n, V = 2 * N;
	uint32_t *acc = calloc(V * N, sizeof(uint32_t));
	assert_non_null(acc);
	set_vector_unit(h, true);
	for (unsigned mode = 0; mode < 6; mode++) {
		/* 0,1: CONVERT to UB (plain, T); 2,3: CONVERT to WM (plain, T),
		 * COPY to UB; 4: CONVERT to UB, COPY UB->UB transposed in place;
		 * 5: CONVERT to WM, COPY WM->WM transposed elsewhere, COPY to UB */
		bool t = mode == 1 || mode == 3;
		for (size_t i = 0; i < V * N; i++)
			acc[i] = rng_f32(&h->rng);
		struct prog p = { 0 };
		emit_acc(&p, 3, acc, V, N);
		unsigned mem = (mode >= 2 && mode != 4) ? FTPU_MEM_WM : FTPU_MEM_UB;
		emit(&p, FTPU_OP_CONVERT, mem | (t ? FTPU_TRANSPOSE_CONVERT : 0), V, 3, 50);
		if (mode == 4)
			emit(&p, FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_UB << 2 | FTPU_TRANSPOSE_COPY, V, 50, 50);
		if (mode == 5)
			emit(&p, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_WM << 2 | FTPU_TRANSPOSE_COPY, V, 50, 200);
		if (mode == 2 || mode == 3)
			emit(&p, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, V, 50, 50);
		if (mode == 5)
			emit(&p, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, V, 200, 50);
		emit(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, V, 50, 0);
		clear_frames(h);
		send_program(h, p.w, p.n);
		const uint32_t *got = data_frame(h, V * N / 2);
		bool transposed = t || mode >= 4;
		for (size_t i = 0; i < V; i++)
			for (size_t l = 0; l < N; l++) {
				/* element (i, l) of the result is source (row, lane) */
				size_t row = transposed ? (i / N) * N + l : i, lane = transposed ? i % N : l;
				uint16_t want = ftpu_f32_to_bf16(acc[row * N + lane]);
				size_t e = i * N + l;
				uint16_t g = (uint16_t)(e & 1 ? got[e / 2] >> 16 : got[e / 2]);
				if (g != want)
					fail_msg("mode %u: vector %zu lane %zu = %04x, want %04x", mode, i, l, g, want);
			}
		free(p.w);
	}
	free(acc);
	set_vector_unit(h, false);
}

/* Each fault of the vector instructions: the EVENT, and the destination
 * left as it was. Without the unit every vector opcode is OPCODE. */
static void test_ref_device_vector_faults(void **state)
{
	struct host *h = *state;
	const size_t N = h->cfg.n;
	const uint32_t A = h->cfg.acc_vectors;
	struct {
		bool unit;
		unsigned op, flags, n;
		uint32_t a, b, code;
	} cases[] = {
		{ false, FTPU_OP_VADD, 0, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ false, FTPU_OP_VSEED, 0, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ false, FTPU_OP_CONVERT, 0, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ false, FTPU_OP_COPY, 0, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ false, FTPU_OP_HOST_READ, FTPU_HOST_READ_U8, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ false, FTPU_OP_HOST_READ, FTPU_HOST_READ_ALSO_WM, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_VADD, FTPU_VECTOR_C_FIXED, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_VMUL, FTPU_VECTOR_HALF, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_VMAC, 0x08, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_CONVERT, FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_BIAS << 2, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_COPY, 0x20, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ true, FTPU_OP_VADD, 0, 0, 0, 1, FTPU_FAULT_COUNT },
		{ true, FTPU_OP_CONVERT, FTPU_TRANSPOSE_CONVERT, (unsigned)N + 1, 0, 0, FTPU_FAULT_COUNT },
		{ true, FTPU_OP_VADD, 0, 2, A - 1, 1, FTPU_FAULT_RANGE },            /* a */
		{ true, FTPU_OP_VADD, 0, 2, 2u | (A - 1) << 16, 8, FTPU_FAULT_RANGE }, /* b */
		{ true, FTPU_OP_VADD, 0, 2, 2u | 4u << 16, A - 1, FTPU_FAULT_RANGE },  /* d */
		{ true, FTPU_OP_VMAC, 0, 2, 2u | 4u << 16, 8u | (A - 1) << 16, FTPU_FAULT_RANGE }, /* c */
		{ true, FTPU_OP_VADD, 0, 2, 2u | 4u << 16, 3, FTPU_FAULT_RANGE },      /* d overlaps a */
		{ true, FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, 2, 2u | 9u << 16, 8, FTPU_FAULT_RANGE }, /* fixed b in d */
		{ true, FTPU_OP_CONVERT, FTPU_MEM_UB, 2, A - 1, 0, FTPU_FAULT_RANGE },
		{ true, FTPU_OP_CONVERT, FTPU_MEM_WM, 2, 0, h->cfg.wm_rows - 1, FTPU_FAULT_RANGE },
		{ true, FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_UB << 2, 4, 0, 2, FTPU_FAULT_RANGE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_vector_unit(h, cases[i].unit);
		struct prog p = { 0 };
		emit(&p, FTPU_OP_SYNC, 0, 0, 1, 0);
		emit(&p, cases[i].op, cases[i].flags, cases[i].n, cases[i].a, cases[i].b);
		emit(&p, FTPU_OP_SYNC, 0, 0, 2, 0); /* must not run */
		clear_frames(h);
		send_program(h, p.w, p.n);
		assert_int_equal(h->nframes, 2);
		assert_int_equal(h->frames[1].payload[0], FTPU_LINK_EVENT_FAULT);
		if (h->frames[1].payload[2] != cases[i].code)
			fail_msg("case %zu: fault %u, want %u", i, h->frames[1].payload[2], cases[i].code);
		free(p.w);
		/* the memories are still zero (the model was reopened): nothing written */
		struct prog q = { 0 };
		emit(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 16, 0, 0);
		emit(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 16, 0, 0);
		clear_frames(h);
		send_program(h, q.w, q.n);
		assert_int_equal(h->nframes, 2);
		for (size_t k = 0; k < 2; k++)
			for (size_t w = 0; w < h->frames[k].len; w++)
				assert_int_equal(h->frames[k].payload[w], 0);
		free(q.w);
	}
	set_vector_unit(h, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref_device_info),
		cmocka_unit_test(test_ref_device_gemm_programs),
		cmocka_unit_test(test_ref_device_activate),
		cmocka_unit_test(test_ref_device_faults),
		cmocka_unit_test(test_ref_device_truncated_program),
		cmocka_unit_test(test_ref_device_link_errors),
		cmocka_unit_test(test_ref_device_overflow_boundary),
		cmocka_unit_test(test_ref_device_vector_ops),
		cmocka_unit_test(test_ref_device_convert_copy),
		cmocka_unit_test(test_ref_device_vector_faults),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
