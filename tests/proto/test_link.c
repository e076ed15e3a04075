/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_link - the link protocol (docs/protocol.md): CRC-32, frame encoding
 * and the resynchronizing receiver.
 *
 * The oracle is independent of proto/link.c: frames are built here
 * byte by byte with zlib's crc32, and every frame the receiver delivers is
 * compared field by field, payload CRC included, with the frame the test
 * sent under that sequence number. A delivered frame that was never sent
 * is a corrupted frame accepted, the one failure the link must never have.
 *
 * FTPU_FULL=1 runs ten times as many random streams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "ftpu_test.h"
#include "ftpu.h"
#include "link.h"

#define SYNC_WORD 0x55505446u
#define UNK 0xFFFFFFFFu

static unsigned long scale = 1; /* x10 under FTPU_FULL=1 */
static uint64_t seed;

/* ---- the oracle: frames built with zlib ---------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t zcrc(const void *p, size_t n)
{
	return (uint32_t)crc32(0L, (const Bytef *)p, (uInt)n);
}

/* zlib CRC of payload words as they travel (little-endian bytes), seeded
 * with crc: with 0 the test's identity hash of a payload, with the HCRC
 * the PCRC. */
static uint32_t payload_crc(uint32_t crc, const uint32_t *w, size_t n)
{
	uLong c = crc;
	uint8_t b[4];
	size_t i;

	for (i = 0; i < n; i++) {
		put32(b, w[i]);
		c = crc32(c, b, 4);
	}
	return (uint32_t)c;
}

/* Any header field values, correct CRCs; returns the bytes written. */
static size_t build_frame(uint8_t *out, unsigned int type, unsigned int flags,
			  unsigned int seq, unsigned int len_field,
			  unsigned int credit, const uint32_t *pl, size_t n)
{
	size_t i;

	put32(out, SYNC_WORD);
	put32(out + 4,
	      (type & 0xff) | (flags & 0xff) << 8 | (seq & 0xffff) << 16);
	put32(out + 8, (len_field & 0xffff) | (credit & 0xffff) << 16);
	put32(out + 12, zcrc(out, 12));
	for (i = 0; i < n; i++)
		put32(out + 16 + 4 * i, pl[i]);
	/* PCRC: the CRC of w0..w2 continued over the payload. */
	put32(out + 16 + 4 * n, payload_crc(zcrc(out, 12), pl, n));
	return 4 * (n + 5);
}

/* ---- growable byte stream and the record of what was sent ---------------- */

struct stream {
	uint8_t *b;
	size_t n, cap;
};

static uint8_t *stream_room(struct stream *s, size_t k)
{
	if (s->n + k > s->cap) {
		s->cap = (s->n + k) * 2 + 64;
		s->b = realloc(s->b, s->cap);
		assert_non_null(s->b);
	}
	return s->b + s->n;
}

static void stream_put(struct stream *s, const void *p, size_t k)
{
	memcpy(stream_room(s, k), p, k);
	s->n += k;
}

struct rec {
	uint8_t type, flags;
	uint16_t seq, credit, len;
	uint32_t phash;
};

static const uint8_t valid_types[] = {0x01, 0x02, 0x81, 0x82, 0x83, 0x84};

/* Appends a frame with a random payload of n words; returns its record. */
static struct rec stream_frame(struct stream *s, struct rng *r,
			       unsigned int type, unsigned int seq, size_t n)
{
	uint32_t *pl = malloc((n + 1) * sizeof(*pl));
	struct rec x = {.type = (uint8_t)type,
			.seq = (uint16_t)seq,
			.credit = (uint16_t)rng_u32(r),
			.len = (uint16_t)n};
	size_t i;

	assert_non_null(pl);
	for (i = 0; i < n; i++)
		pl[i] = rng_u32(r);
	x.phash = payload_crc(0, pl, n);
	s->n += build_frame(stream_room(s, 4 * (n + 5)), type, 0, seq, n,
			    x.credit, pl, n);
	free(pl);
	return x;
}

/*
 * stream_frame with no 'F' after the SYNC. Tests that cut or shift a frame
 * next to another one need it: if the bytes a cut removes happen to equal
 * the next frame's first bytes ('F', 'T', ...), nothing was lost.
 */
static struct rec stream_frame_no_f(struct stream *s, struct rng *r,
				    unsigned int type, unsigned int seq,
				    size_t n)
{
	size_t at = s->n;
	struct rec x;

	for (;;) {
		x = stream_frame(s, r, type, seq, n);
		if (!memchr(s->b + at + 4, 'F', s->n - at - 4))
			return x;
		s->n = at;
	}
}

static void stream_garbage(struct stream *s, struct rng *r, size_t k)
{
	uint8_t *p = stream_room(s, k);
	size_t i;

	for (i = 0; i < k; i++)
		p[i] = (uint8_t)rng_u32(r);
	s->n += k;
}

/* ---- the sink: what the receiver delivered ------------------------------- */

#define MAX_ERR_LOG 64

struct sink {
	struct rec *f;
	size_t nf, capf;
	size_t ne;				 /* errors reported */
	struct ftpu_link_error err[MAX_ERR_LOG]; /* the first ones */
	int admit_code;				 /* returned by admit */
	unsigned long admitted;
	const struct ftpu_link_rx *rx; /* when set: ack seen by callbacks */
	int32_t ack_at_error[MAX_ERR_LOG];
};

static void on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct sink *k = ctx;
	struct rec x = {.type = f->type,
			.flags = f->flags,
			.seq = f->seq,
			.credit = f->credit,
			.len = f->len};

	assert_true(f->len <= FTPU_LINK_MAX_PAYLOAD);
	assert_true(f->payload != NULL || f->len == 0);
	x.phash = payload_crc(0, f->payload, f->len);
	if (k->nf == k->capf) {
		k->capf = k->capf * 2 + 16;
		k->f = realloc(k->f, k->capf * sizeof(*k->f));
		assert_non_null(k->f);
	}
	k->f[k->nf++] = x;
}

static void on_error(void *ctx, const struct ftpu_link_error *e)
{
	struct sink *k = ctx;

	assert_true(e->code >= 1 && e->code <= FTPU_LINK_ERR_MAX);
	if (k->ne < MAX_ERR_LOG) {
		k->err[k->ne] = *e;
		k->ack_at_error[k->ne] = ftpu_link_rx_ack(k->rx);
	}
	k->ne++;
}

static int on_admit(void *ctx, const struct ftpu_link_header *h)
{
	struct sink *k = ctx;

	(void)h;
	k->admitted++;
	return k->admit_code;
}

static void sink_reset(struct sink *k)
{
	free(k->f);
	memset(k, 0, sizeof(*k));
}

static struct ftpu_link_rx_cb sink_cb(struct sink *k)
{
	struct ftpu_link_rx_cb cb = {.admit = on_admit,
				     .frame = on_frame,
				     .error = on_error,
				     .ctx = k};
	return cb;
}

static uint32_t rx_buf[FTPU_LINK_MAX_PAYLOAD];

/* Every byte accounted for; every error reported once and counted. */
static void check_accounting(const struct ftpu_link_rx *rx,
			     const struct sink *k)
{
	const struct ftpu_link_stats *s = &rx->stats;
	uint64_t errs = 0;
	int c;

	for (c = 1; c <= FTPU_LINK_ERR_MAX; c++)
		errs += s->errors[c];
	assert_int_equal(s->errors[0], 0);
	assert_int_equal(errs, k->ne);
	assert_int_equal(s->frames_ok, k->nf);
	assert_int_equal(s->bytes_in, s->bytes_ok + s->bytes_skipped +
					      s->bytes_dropped +
					      ftpu_link_rx_pending(rx));
}

/* Pushes s in chunks: chunk 0 = all at once, otherwise random 1..chunk. */
static void push_chunks(struct ftpu_link_rx *rx, struct sink *k,
			const uint8_t *p, size_t n, struct rng *r, size_t chunk)
{
	struct ftpu_link_rx_cb cb = sink_cb(k);
	size_t i = 0, m;

	while (i < n) {
		m = chunk ? 1 + rng_below(r, (uint32_t)chunk) : n - i;
		if (m > n - i)
			m = n - i;
		assert_int_equal(ftpu_link_rx_push(rx, p + i, m, &cb), FTPU_OK);
		i += m;
		check_accounting(rx, k);
	}
}

/* A fresh receiver over the whole static buffer and an empty sink. */
static void fresh(struct ftpu_link_rx *rx, struct sink *k)
{
	sink_reset(k);
	assert_int_equal(ftpu_link_rx_init(rx, rx_buf, FTPU_LINK_MAX_PAYLOAD),
			 FTPU_OK);
}

static bool rec_eq(const struct rec *a, const struct rec *b)
{
	return a->type == b->type && a->flags == b->flags && a->seq == b->seq &&
	       a->credit == b->credit && a->len == b->len &&
	       a->phash == b->phash;
}

static void assert_delivered(const struct sink *k, const struct rec *want,
			     size_t n)
{
	size_t i;

	assert_int_equal(k->nf, n);
	for (i = 0; i < n; i++) {
		if (!rec_eq(&k->f[i], &want[i]))
			fail_msg("frame %zu: got seq %u type %#x len %u, want "
				 "seq %u type %#x len %u (seed %#llx)",
				 i, k->f[i].seq, k->f[i].type, k->f[i].len,
				 want[i].seq, want[i].type, want[i].len,
				 (unsigned long long)seed);
	}
}

static void assert_error(const struct sink *k, size_t i, unsigned int code,
			 uint32_t seq, uint32_t type)
{
	assert_true(i < k->ne && i < MAX_ERR_LOG);
	assert_int_equal(k->err[i].code, code);
	assert_int_equal(k->err[i].seq, seq);
	assert_int_equal(k->err[i].type, type);
}

/* ---- CRC ----------------------------------------------------------------- */

static void test_link_crc32_check_value(void **state)
{
	(void)state;
	assert_int_equal(ftpu_crc32_update(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(ftpu_crc32_update(0, "", 0), 0);
	assert_int_equal(ftpu_crc32_update(0, NULL, 0), 0);
	/* incremental: split anywhere */
	for (size_t i = 0; i <= 9; i++) {
		static const char check[] = "123456789";
		uint32_t c = ftpu_crc32_update(0, check, i);

		assert_int_equal(ftpu_crc32_update(c, &check[i], 9 - i),
				 0xCBF43926u);
	}
}

static void test_link_crc32_matches_zlib(void **state)
{
	static uint8_t buf[9000];
	struct rng r = {seed};
	unsigned long it;

	(void)state;
	for (it = 0; it < 5000 * scale; it++) {
		size_t n = rng_below(&r, it < 200 ? 40 : sizeof(buf) + 1);
		size_t i = 0, m;
		uint32_t c = 0;

		for (m = 0; m < n; m++)
			buf[m] = (uint8_t)rng_u32(&r);
		if (it % 3 == 0) /* sparse and all-ones patterns */
			memset(buf, it % 2 ? 0xff : 0, n);
		assert_int_equal(ftpu_crc32_update(0, buf, n), zcrc(buf, n));
		while (i < n) {
			m = 1 + rng_below(&r, 64);
			if (m > n - i)
				m = n - i;
			c = ftpu_crc32_update(c, buf + i, m);
			i += m;
		}
		assert_int_equal(c, zcrc(buf, n));
	}
}

/* ---- encoding ------------------------------------------------------------ */

static void test_link_encode_matches_oracle(void **state)
{
	static uint8_t got[FTPU_LINK_MAX_FRAME_BYTES + 1];
	static uint8_t want[FTPU_LINK_MAX_FRAME_BYTES];
	static uint32_t pl[FTPU_LINK_MAX_PAYLOAD];
	static const size_t lens[] = {0, 1, 2, 3, 17, 255, 4095, 4096};
	struct rng r = {seed + 1};
	size_t t, l, i;

	(void)state;
	for (t = 0; t < sizeof(valid_types); t++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t n = lens[l];
			uint16_t seq = (uint16_t)rng_u32(&r);
			uint16_t credit = (uint16_t)rng_u32(&r);
			size_t bytes;

			for (i = 0; i < n; i++)
				pl[i] = rng_u32(&r);
			bytes = build_frame(want, valid_types[t], 0, seq, n,
					    credit, pl, n);
			assert_int_equal(bytes, FTPU_LINK_FRAME_BYTES(n));
			memset(got, 0xa5, sizeof(got));
			assert_int_equal(ftpu_link_encode(valid_types[t], seq,
							  credit, pl, n, got,
							  bytes),
					 (int)bytes);
			assert_memory_equal(got, want, bytes);
			assert_int_equal(got[bytes],
					 0xa5); /* nothing past it */
		}
	}
	/* An empty payload's PCRC is the HCRC (the CRC of w0..w2 continued
	 * over zero bytes). */
	assert_int_equal(
		ftpu_link_encode(FTPU_LINK_CONTROL, 0, 0, NULL, 0, got, 20),
		20);
	assert_int_equal(ftpu_link_get_le32(got + 16),
			 ftpu_link_get_le32(got + 12));
	assert_memory_equal(got, "FTPU", 4);
}

static void test_link_encode_rejects_bad_arguments(void **state)
{
	uint8_t out[64];
	uint32_t pl[2] = {1, 2};

	(void)state;
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(ftpu_link_encode(0x00, 1, 0, pl, 2, out, 64),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_encode(0x03, 1, 0, pl, 2, out, 64),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_encode(0x85, 1, 0, pl, 2, out, 64),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_encode(FTPU_LINK_PROGRAM, 1, 0, pl,
					  FTPU_LINK_MAX_PAYLOAD + 1, out, 64),
			 FTPU_ERR_INVALID);
	assert_int_equal(
		ftpu_link_encode(FTPU_LINK_PROGRAM, 1, 0, NULL, 2, out, 64),
		FTPU_ERR_INVALID);
	assert_int_equal(
		ftpu_link_encode(FTPU_LINK_PROGRAM, 1, 0, pl, 2, NULL, 64),
		FTPU_ERR_INVALID);
	assert_int_equal(
		ftpu_link_encode(FTPU_LINK_PROGRAM, 1, 0, pl, 2, out, 27),
		FTPU_ERR_INVALID);
	for (size_t i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], 0x5a);
	assert_int_equal(
		ftpu_link_encode(FTPU_LINK_PROGRAM, 1, 0, pl, 2, out, 28), 28);
}

/*
 * The worked examples of docs/protocol.md, byte for byte. The bytes were
 * produced by ftpu_link_encode and their CRC words checked with zlib; this
 * test keeps the document and the code in agreement.
 */
static const uint8_t doc_info_request[24] = {
	0x46, 0x54, 0x50, 0x55, 0x01, 0x00, 0x01, 0x00, /* SYNC, w1 */
	0x01, 0x00, 0x00, 0x00, 0xf6, 0x4c, 0x77, 0x52, /* w2, HCRC */
	0x01, 0x00, 0x00, 0x00, 0x4f, 0x5a, 0x6e, 0xa6, /* op, PCRC */
};
static const uint32_t doc_info_payload[26] = {
	FTPU_LINK_OP_INFO,
	FTPU_LINK_RESP_OK,
	1,
	0x00010001,
	2,
	16,
	3,
	16,
	4,
	4096,
	5,
	1024,
	6,
	4096,
	7,
	64,
	8,
	8192,
	9,
	100000000,
	10,
	4,
	11,
	4096,
	12,
	1,
};
static const uint8_t doc_info_response_head[16] = {
	0x46, 0x54, 0x50, 0x55, 0x81, 0x00, 0x01, 0x00,
	0x1a, 0x00, 0x00, 0x20, 0x7a, 0x39, 0x3a, 0xbd,
};
static const uint8_t doc_info_response_pcrc[4] = {0x35, 0xbd, 0x44, 0x03};

static void test_link_doc_examples(void **state)
{
	uint8_t out[128];
	uint32_t op = FTPU_LINK_OP_INFO, v;

	(void)state;
	assert_int_equal(ftpu_link_encode(FTPU_LINK_CONTROL, 1, 0, &op, 1, out,
					  sizeof(out)),
			 24);
	assert_memory_equal(out, doc_info_request, 24);
	assert_int_equal(ftpu_link_get_le32(doc_info_request + 12),
			 zcrc(doc_info_request, 12));
	assert_int_equal(
		ftpu_link_get_le32(doc_info_request + 20),
		crc32(zcrc(doc_info_request, 12), doc_info_request + 16, 4));

	assert_int_equal(ftpu_link_encode(FTPU_LINK_RESPONSE, 1, 8192,
					  doc_info_payload, 26, out,
					  sizeof(out)),
			 124);
	assert_memory_equal(out, doc_info_response_head, 16);
	assert_int_equal(ftpu_link_get_le32(out + 12), zcrc(out, 12));
	assert_memory_equal(out + 120, doc_info_response_pcrc, 4);
	assert_int_equal(ftpu_link_get_le32(out + 120),
			 crc32(zcrc(out, 12), out + 16, 104));

	assert_int_equal(ftpu_link_info_get(doc_info_payload, 26,
					    FTPU_LINK_INFO_IQ_WORDS, &v),
			 FTPU_OK);
	assert_int_equal(v, 8192);
}

static void test_link_info_get(void **state)
{
	uint32_t ok[6] = {FTPU_LINK_OP_INFO, 0, 2, 8, 3, 4}, v = 77;
	uint32_t bad_op[4] = {FTPU_LINK_OP_STATUS, 0, 2, 8};
	uint32_t failed[4] = {FTPU_LINK_OP_INFO, FTPU_LINK_RESP_FAILED, 2, 8};

	(void)state;
	assert_int_equal(ftpu_link_info_get(ok, 6, 3, &v), FTPU_OK);
	assert_int_equal(v, 4);
	assert_int_equal(ftpu_link_info_get(ok, 6, 4, &v), FTPU_ERR_NOT_FOUND);
	assert_int_equal(ftpu_link_info_get(ok, 5, 2, &v), FTPU_ERR_PROTOCOL);
	assert_int_equal(ftpu_link_info_get(ok, 1, 2, &v), FTPU_ERR_PROTOCOL);
	assert_int_equal(ftpu_link_info_get(bad_op, 4, 2, &v),
			 FTPU_ERR_PROTOCOL);
	assert_int_equal(ftpu_link_info_get(failed, 4, 2, &v),
			 FTPU_ERR_PROTOCOL);
	assert_int_equal(ftpu_link_info_get(NULL, 6, 2, &v), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_info_get(ok, 6, 2, NULL), FTPU_ERR_INVALID);
	assert_int_equal(v, 4);
}

static void test_link_rx_rejects_bad_arguments(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	uint8_t b = 'F';

	(void)state;
	assert_int_equal(ftpu_link_rx_init(NULL, rx_buf, 4), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_rx_init(&rx, NULL, 4), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_rx_init(&rx, NULL, 0), FTPU_OK);
	assert_int_equal(ftpu_link_rx_push(NULL, &b, 1, &cb), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_rx_push(&rx, NULL, 1, &cb),
			 FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_rx_push(&rx, &b, 1, NULL), FTPU_ERR_INVALID);
	assert_int_equal(rx.stats.bytes_in, 0);
	assert_int_equal(ftpu_link_rx_push(&rx, NULL, 0, &cb), FTPU_OK);
	assert_int_equal(ftpu_link_rx_timeout(NULL, &cb), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_link_rx_pending(NULL), 0);
	ftpu_link_rx_reset(NULL);
	/* A receiver without a buffer takes empty frames only. */
	{
		uint8_t f[64];
		uint32_t w = 9;
		size_t n = build_frame(f, FTPU_LINK_EVENT, 0, 5, 0, 0, NULL, 0);

		n += build_frame(f + n, FTPU_LINK_EVENT, 0, 6, 1, 0, &w, 1);
		assert_int_equal(ftpu_link_rx_push(&rx, f, n, &cb), FTPU_OK);
		assert_int_equal(k.nf, 1);
		assert_int_equal(k.f[0].seq, 5);
		assert_int_equal(k.ne, 1);
		assert_error(&k, 0, FTPU_LINK_ERR_OVERFLOW, 6, FTPU_LINK_EVENT);
		check_accounting(&rx, &k);
	}
	sink_reset(&k);
}

/* ---- round trips --------------------------------------------------------- */

static void test_link_roundtrip_every_split(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct stream s = {0};
	struct rec want[4];
	struct rng r = {seed + 2};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	size_t a, b;

	(void)state;
	want[0] = stream_frame(&s, &r, FTPU_LINK_CONTROL, 1, 1);
	want[1] = stream_frame(&s, &r, FTPU_LINK_RESPONSE, 0xffff, 0);
	want[2] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 0, 7);
	want[3] = stream_frame(&s, &r, FTPU_LINK_DATA, 0x1234, 2);

	/* Two pushes, split at every byte. */
	for (a = 0; a <= s.n; a++) {
		fresh(&rx, &k);
		assert_int_equal(ftpu_link_rx_push(&rx, s.b, a, &cb), FTPU_OK);
		assert_int_equal(ftpu_link_rx_push(&rx, s.b + a, s.n - a, &cb),
				 FTPU_OK);
		assert_delivered(&k, want, 4);
		assert_int_equal(k.ne, 0);
		assert_int_equal(rx.stats.bytes_ok, s.n);
		assert_int_equal(ftpu_link_rx_pending(&rx), 0);
		check_accounting(&rx, &k);
	}
	/* Three pushes, every pair of split points inside the first two frames.
	 */
	for (a = 0; a <= 80; a++) {
		for (b = a; b <= 80; b++) {
			fresh(&rx, &k);
			ftpu_link_rx_push(&rx, s.b, a, &cb);
			ftpu_link_rx_push(&rx, s.b + a, b - a, &cb);
			ftpu_link_rx_push(&rx, s.b + b, s.n - b, &cb);
			assert_delivered(&k, want, 4);
			assert_int_equal(k.ne, 0);
		}
	}
	/* One byte at a time. */
	fresh(&rx, &k);
	for (a = 0; a < s.n; a++)
		ftpu_link_rx_push(&rx, s.b + a, 1, &cb);
	assert_delivered(&k, want, 4);
	check_accounting(&rx, &k);
	sink_reset(&k);
	free(s.b);
}

static void test_link_roundtrip_random_chunks(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 3};
	unsigned long it;

	(void)state;
	for (it = 0; it < 200 * scale; it++) {
		struct stream s = {0};
		struct rec want[40];
		size_t i, nf = 1 + rng_below(&r, 40);

		for (i = 0; i < nf; i++) {
			size_t n = rng_below(&r, 8) == 0
					   ? FTPU_LINK_MAX_PAYLOAD -
						     rng_below(&r, 3)
					   : rng_below(&r, 200);
			want[i] = stream_frame(&s, &r,
					       valid_types[rng_below(&r, 6)],
					       rng_u32(&r), n);
		}
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r,
			    (size_t[]){0, 1, 3, 17, 1000, 20000}[it % 6]);
		assert_delivered(&k, want, nf);
		assert_int_equal(k.ne, 0);
		assert_int_equal(rx.stats.bytes_skipped, 0);
		assert_int_equal(rx.stats.bytes_dropped, 0);
		free(s.b);
	}
	sink_reset(&k);
}

static void test_link_flags_are_delivered(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	uint8_t f[32], g[32];
	uint32_t w = 0xdeadbeef;
	size_t n = build_frame(f, FTPU_LINK_DATA, 0xa5, 3, 1, 77, &w, 1);

	(void)state;
	assert_int_equal(ftpu_link_encode_flags(FTPU_LINK_DATA, 0xa5, 3, 77, &w,
						1, g, sizeof(g)),
			 (int)n);
	assert_memory_equal(f, g, n);
	assert_int_equal(ftpu_link_encode_flags(FTPU_LINK_DATA, 0x100, 3, 77,
						&w, 1, g, sizeof(g)),
			 FTPU_ERR_INVALID);
	fresh(&rx, &k);
	ftpu_link_rx_push(&rx, f, n, &cb);
	assert_int_equal(k.nf, 1);
	assert_int_equal(k.f[0].flags, 0xa5);
	assert_int_equal(k.f[0].credit, 77);
	assert_int_equal(k.f[0].phash, payload_crc(0, &w, 1));
	sink_reset(&k);
}

/* ---- garbage and resynchronization --------------------------------------- */

/* Garbage that tries hard: SYNC, SYNC prefixes, partial headers of real
 * frames (under 16 bytes, so never a complete valid header). */
static void stream_nasty_garbage(struct stream *s, struct rng *r,
				 const uint8_t *frame, size_t k)
{
	size_t end = s->n + k;

	while (s->n < end) {
		size_t left = end - s->n, m;

		switch (rng_below(r, 5)) {
		case 0:
			m = left < 4 ? left : 4;
			stream_put(s, "FTPU", m);
			break;
		case 1:
			m = 1 + rng_below(r, 3);
			stream_put(s, "FTPU", m < left ? m : left);
			break;
		case 2: /* at most 12: 4 more bytes would be needed to
			 * complete the header, a 2^-32 chance */
			m = 1 + rng_below(r, 12);
			stream_put(s, frame, m < left ? m : left);
			break;
		default:
			m = 1 + rng_below(r, 12);
			stream_garbage(s, r, m < left ? m : left);
			break;
		}
	}
}

static void test_link_garbage_between_frames(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 4};
	struct stream tmpl = {0};
	unsigned long it;

	(void)state;
	stream_frame(&tmpl, &r, FTPU_LINK_PROGRAM, 7, 2);
	for (it = 0; it < 2000 * scale; it++) {
		struct stream s = {0};
		struct rec want[20];
		size_t i, nf = 1 + rng_below(&r, 20), garbage = 0, g;

		for (i = 0; i < nf; i++) {
			size_t at;

			g = rng_below(&r, 4) ? rng_below(&r, 60) : 0;
			at = s.n;
			stream_nasty_garbage(&s, &r, tmpl.b, g);
			garbage += s.n - at;
			want[i] = stream_frame(&s, &r,
					       valid_types[rng_below(&r, 6)], i,
					       rng_below(&r, 30));
		}
		g = rng_below(&r, 40);
		stream_garbage(&s, &r, g);
		garbage += g;
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r, it % 2 ? 0 : 1 + it % 29);
		assert_delivered(&k, want, nf);
		for (i = 0; i < k.ne && i < MAX_ERR_LOG; i++)
			assert_error(&k, i, FTPU_LINK_ERR_BAD_HEADER_CRC, UNK,
				     UNK);
		/* Garbage is skipped; the trailing SYNC prefix may be pending.
		 */
		ftpu_link_rx_reset(&rx);
		assert_int_equal(rx.stats.bytes_skipped, garbage);
		assert_int_equal(rx.stats.bytes_dropped, 0);
		check_accounting(&rx, &k);
		free(s.b);
	}
	free(tmpl.b);
	sink_reset(&k);
}

/* A SYNC followed by g < 12 garbage bytes and then a frame: the candidate
 * header takes the frame's first bytes, fails, and the frame is found. */
static void test_link_sync_in_garbage_does_not_swallow_frame(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 5};
	unsigned int g, lead;

	(void)state;
	for (lead = 0; lead < 4; lead++) {
		for (g = 0; g <= 16; g++) {
			struct stream s = {0};
			struct rec want;

			stream_garbage(&s, &r, lead);
			stream_put(&s, "FTPU", 4);
			stream_garbage(&s, &r, g);
			want = stream_frame(&s, &r, FTPU_LINK_EVENT, 9, 4);
			fresh(&rx, &k);
			push_chunks(&rx, &k, s.b, s.n, &r, g % 3);
			assert_delivered(&k, &want, 1);
			assert_true(k.ne >= 1);
			assert_error(&k, 0, FTPU_LINK_ERR_BAD_HEADER_CRC, UNK,
				     UNK);
			assert_int_equal(rx.stats.bytes_skipped, lead + 4 + g);
			free(s.b);
		}
	}
	sink_reset(&k);
}

/* A small frame with every single bit flipped, then a good frame: the
 * flipped one is never delivered, the error names where the flip was, and
 * the next frame always survives. */
static void test_link_single_bit_flips(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 6};
	struct stream s = {0};
	struct rec a, b;
	size_t alen, bit;

	(void)state;
	a = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 0x0102, 2);
	alen = s.n;
	b = stream_frame(&s, &r, FTPU_LINK_CONTROL, 0x0103, 1);
	(void)a;
	for (bit = 0; bit < 8 * alen; bit++) {
		size_t byte = bit / 8;

		s.b[byte] ^= (uint8_t)(1u << (bit % 8));
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r, bit % 4);
		assert_delivered(&k, &b, 1);
		if (byte < 4) {
			assert_int_equal(k.ne, 0); /* no SYNC, no candidate */
		} else if (byte < 16) {
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_BAD_HEADER_CRC, UNK,
				     UNK);
		} else {
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_BAD_PAYLOAD_CRC,
				     0x0102, FTPU_LINK_PROGRAM);
		}
		check_accounting(&rx, &k);
		s.b[byte] ^= (uint8_t)(1u << (bit % 8));
	}
	sink_reset(&k);
	free(s.b);
}

/* Every pair of bit flips in a small frame: never accepted (CRC-32 has
 * Hamming distance > 2 at these lengths and a flip in SYNC hides it). */
static void test_link_double_bit_flips(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 7};
	struct stream s = {0};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	size_t i, j, nbits;

	(void)state;
	stream_frame(&s, &r, FTPU_LINK_DATA, 0x4242, 3);
	nbits = 8 * s.n;
	for (i = 0; i < nbits; i++) {
		s.b[i / 8] ^= (uint8_t)(1u << (i % 8));
		for (j = i + 1; j < nbits; j++) {
			s.b[j / 8] ^= (uint8_t)(1u << (j % 8));
			fresh(&rx, &k);
			ftpu_link_rx_push(&rx, s.b, s.n, &cb);
			ftpu_link_rx_timeout(&rx, &cb);
			assert_int_equal(k.nf, 0);
			assert_true(k.ne <= 2);
			s.b[j / 8] ^= (uint8_t)(1u << (j % 8));
		}
		s.b[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	sink_reset(&k);
	free(s.b);
}

/* A frame cut inside its header, then a good frame: always recovered. */
static void test_link_truncated_header_then_frame(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 8};
	size_t cut;

	(void)state;
	for (cut = 1; cut < 16; cut++) {
		struct stream s = {0}, t = {0};
		struct rec b;

		stream_frame_no_f(&t, &r, FTPU_LINK_PROGRAM, 1, 6);
		stream_put(&s, t.b, cut);
		b = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 2, 6);
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r, cut % 5);
		assert_delivered(&k, &b, 1);
		assert_int_equal(k.ne, cut >= 4 ? 1 : 0);
		if (cut >= 4)
			assert_error(&k, 0, FTPU_LINK_ERR_BAD_HEADER_CRC, UNK,
				     UNK);
		assert_int_equal(rx.stats.bytes_skipped, cut);
		free(s.b);
		free(t.b);
	}
	sink_reset(&k);
}

/*
 * A frame A cut inside its payload: its header is good, so its length is
 * trusted and the receiver takes `missing` bytes of what follows as the rest
 * of A. The next frame B is recovered when (a) at least `missing` idle or
 * garbage bytes separate them, or (b) the receiver's timeout fires between
 * them. Otherwise (c) B's start is eaten and B is lost; C after B is found.
 * docs/protocol.md states this limit.
 */
static void test_link_truncated_payload_then_frame(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 9};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	size_t cut, mode;

	(void)state;
	for (mode = 0; mode < 3; mode++) {
		/* A: 8 words -> 36 payload+PCRC bytes; B: 4 words, 36 bytes. */
		for (cut = 16; cut < 16 + 36; cut++) {
			struct stream s = {0}, t = {0};
			struct rec bc[2];
			size_t missing = 16 + 36 - cut;

			stream_frame_no_f(&t, &r, FTPU_LINK_PROGRAM, 1, 8);
			stream_put(&s, t.b, cut);
			fresh(&rx, &k);
			if (mode == 0) { /* filler, unlike the lost bytes */
				for (size_t i = 0; i < missing; i++) {
					uint8_t x = (uint8_t)~t.b[cut + i];

					stream_put(&s, &x, 1);
				}
			}
			if (mode == 1) {
				ftpu_link_rx_push(&rx, s.b, s.n, &cb);
				ftpu_link_rx_timeout(&rx, &cb);
				s.n = 0;
			}
			bc[0] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 2, 4);
			bc[1] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 3, 4);
			push_chunks(&rx, &k, s.b, s.n, &r, cut % 7);
			assert_int_equal(k.ne, 1);
			if (mode == 0) {
				assert_delivered(&k, bc, 2);
				assert_error(&k, 0,
					     FTPU_LINK_ERR_BAD_PAYLOAD_CRC, 1,
					     FTPU_LINK_PROGRAM);
			} else if (mode == 1) {
				assert_delivered(&k, bc, 2);
				assert_error(&k, 0, FTPU_LINK_ERR_TIMEOUT, 1,
					     FTPU_LINK_PROGRAM);
			} else {
				assert_delivered(&k, bc + 1, 1);
				assert_error(&k, 0,
					     FTPU_LINK_ERR_BAD_PAYLOAD_CRC, 1,
					     FTPU_LINK_PROGRAM);
			}
			check_accounting(&rx, &k);
			free(s.b);
			free(t.b);
		}
	}
	sink_reset(&k);
}

/* One byte lost anywhere in frame B of A B C D (a UART overrun). */
static void test_link_dropped_byte(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 10};
	struct stream s = {0};
	struct rec f[4], want[3];
	size_t b0, b1, j, lead;

	(void)state;
	f[0] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 10, 5);
	b0 = s.n;
	f[1] = stream_frame_no_f(&s, &r, FTPU_LINK_PROGRAM, 11, 5);
	b1 = s.n;
	f[2] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 12, 5);
	f[3] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 13, 5);
	for (j = b0; j < b1; j++) {
		struct stream t = {0};
		size_t off = j;

		/* Deleting any byte of a run of equal bytes gives the same
		 * stream: classify by the run's last byte (B has no 'F', so
		 * the run ends inside B). */
		while (s.b[off + 1] == s.b[j])
			off++;
		off -= b0;
		stream_put(&t, s.b, j);
		stream_put(&t, s.b + j + 1, s.n - j - 1);
		fresh(&rx, &k);
		push_chunks(&rx, &k, t.b, t.n, &r, j % 6);
		want[0] = f[0];
		if (off < 16) { /* B lost, C and D found */
			want[1] = f[2];
			want[2] = f[3];
			assert_delivered(&k, want, 3);
			assert_int_equal(k.ne, off < 4 ? 0 : 1);
		} else { /* B's trusted length eats C's first byte */
			want[1] = f[3];
			assert_delivered(&k, want, 2);
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_BAD_PAYLOAD_CRC, 11,
				     FTPU_LINK_PROGRAM);
		}
		free(t.b);
	}
	/* One byte inserted in B's payload: B lost, C found (B's tail is
	 * hunted as garbage). The byte differs from its successor, so it
	 * really goes in at j. */
	for (j = b0 + 16; j < b1; j++) {
		struct stream t = {0};
		uint8_t x = (uint8_t)~s.b[j];

		stream_put(&t, s.b, j);
		stream_put(&t, &x, 1);
		stream_put(&t, s.b + j, s.n - j);
		fresh(&rx, &k);
		push_chunks(&rx, &k, t.b, t.n, &r, j % 6);
		want[0] = f[0];
		want[1] = f[2];
		want[2] = f[3];
		assert_delivered(&k, want, 3);
		assert_int_equal(k.ne, 1);
		free(t.b);
	}
	/* The whole stream shifted by 1..3 bytes: word alignment is irrelevant.
	 */
	for (lead = 1; lead < 4; lead++) {
		struct stream t = {0};

		stream_garbage(&t, &r, lead);
		stream_put(&t, s.b, s.n);
		fresh(&rx, &k);
		push_chunks(&rx, &k, t.b, t.n, &r, lead);
		assert_delivered(&k, f, 4);
		free(t.b);
	}
	sink_reset(&k);
	free(s.b);
}

/* len > 4096 with a good HCRC: BAD_LENGTH, then a byte-wise search, so a
 * frame starting anywhere after the bad header's SYNC is found. */
static void test_link_oversize_length(void **state)
{
	static const unsigned int lens[] = {FTPU_LINK_MAX_PAYLOAD + 1, 0x8000,
					    0xffff};
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 11};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct stream s = {0};
		struct rec want[2];

		s.n += build_frame(stream_room(&s, 20), FTPU_LINK_PROGRAM, 0,
				   40, lens[i], 0, NULL, 0) -
		       4;
		want[0] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 41, 3);
		want[1] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 42, 3);
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r, i);
		assert_delivered(&k, want, 2);
		assert_int_equal(k.ne, 1);
		assert_error(&k, 0, FTPU_LINK_ERR_BAD_LENGTH, 40,
			     FTPU_LINK_PROGRAM);
		assert_int_equal(rx.stats.bytes_skipped, 16);
		assert_int_equal(k.admitted, 2);
		free(s.b);
	}
	sink_reset(&k);
}

/* A valid header of an unknown type: UNKNOWN_TYPE, the whole frame is
 * skipped by its trusted length (a frame image inside it is not taken). */
static void test_link_unknown_type_skips_frame(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 12};
	unsigned int type;

	(void)state;
	for (type = 0; type < 256; type++) {
		struct stream s = {0}, inner = {0};
		struct rec want;
		uint32_t pl[6];

		if (memchr(valid_types, (int)type, sizeof(valid_types)))
			continue;
		stream_frame(&inner, &r, FTPU_LINK_PROGRAM, 77, 0);
		for (size_t i = 0; i < 5; i++)
			pl[i] = ftpu_link_get_le32(inner.b + 4 * i);
		pl[5] = rng_u32(&r);
		s.n += build_frame(stream_room(&s, 44), type, 0, 76, 6, 0, pl,
				   6);
		want = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 78, 2);
		fresh(&rx, &k);
		push_chunks(&rx, &k, s.b, s.n, &r, type % 4);
		assert_delivered(&k, &want, 1);
		assert_int_equal(k.ne, 1);
		assert_error(&k, 0, FTPU_LINK_ERR_UNKNOWN_TYPE, 76, type);
		assert_int_equal(rx.stats.bytes_dropped, 44);
		assert_int_equal(rx.stats.bytes_skipped, 0);
		assert_int_equal(k.admitted, 1); /* never asked about it */
		free(s.b);
		free(inner.b);
	}
	sink_reset(&k);
}

/* A frame longer than the receive buffer, or refused by admit: that error,
 * the frame skipped whole, the next one received. */
static void test_link_overflow_skips_frame(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 13};
	struct stream s = {0};
	struct rec f[3];
	int mode;

	(void)state;
	f[0] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 1, 8);
	f[1] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 2, 9);
	f[2] = stream_frame(&s, &r, FTPU_LINK_PROGRAM, 3, 0);
	for (mode = 0; mode < 4; mode++) {
		sink_reset(&k);
		if (mode == 0) { /* buffer of 8 words */
			ftpu_link_rx_init(&rx, rx_buf, 8);
		} else {
			ftpu_link_rx_init(&rx, rx_buf, FTPU_LINK_MAX_PAYLOAD);
			k.admit_code = mode == 1   ? FTPU_LINK_ERR_OVERFLOW
				       : mode == 2 ? FTPU_LINK_ERR_UNKNOWN_TYPE
						   : 99;
		}
		push_chunks(&rx, &k, s.b, s.n, &r, 3);
		check_accounting(&rx, &k);
		if (mode == 0) {
			struct rec want[2] = {f[0], f[2]};

			assert_delivered(&k, want, 2);
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_OVERFLOW, 2,
				     FTPU_LINK_PROGRAM);
			assert_int_equal(k.admitted, 2);
		} else {
			unsigned int code = mode == 2
						    ? FTPU_LINK_ERR_UNKNOWN_TYPE
						    : FTPU_LINK_ERR_OVERFLOW;

			assert_int_equal(k.nf, 0);
			assert_int_equal(k.ne, 3);
			for (size_t i = 0; i < 3; i++)
				assert_error(&k, i, code, i + 1,
					     FTPU_LINK_PROGRAM);
			assert_int_equal(rx.stats.bytes_dropped, s.n);
		}
	}
	sink_reset(&k);
	free(s.b);
}

/* The timeout abandons a partial frame: TIMEOUT once a SYNC was in (with
 * seq and type once the header was good), silence before that or when the
 * frame was already refused. */
static void test_link_timeout(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 14};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	struct stream s = {0};
	struct rec a, b;
	size_t cut, alen;

	(void)state;
	a = stream_frame(&s, &r, FTPU_LINK_DATA, 0x77, 4);
	alen = s.n;
	b = stream_frame(&s, &r, FTPU_LINK_DATA, 0x78, 4);
	for (cut = 0; cut <= alen; cut++) {
		fresh(&rx, &k);
		ftpu_link_rx_push(&rx, s.b, cut, &cb);
		assert_int_equal(ftpu_link_rx_pending(&rx),
				 cut < alen ? cut : 0);
		ftpu_link_rx_timeout(&rx, &cb);
		assert_int_equal(ftpu_link_rx_pending(&rx), 0);
		check_accounting(&rx, &k);
		if (cut < 4 || cut == alen) {
			assert_int_equal(k.ne, 0);
		} else if (cut < 16) {
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_TIMEOUT, UNK, UNK);
		} else {
			assert_int_equal(k.ne, 1);
			assert_error(&k, 0, FTPU_LINK_ERR_TIMEOUT, 0x77,
				     FTPU_LINK_DATA);
		}
		ftpu_link_rx_push(&rx, s.b + alen, s.n - alen, &cb);
		if (cut == alen) {
			struct rec want[2] = {a, b};

			assert_delivered(&k, want, 2);
		} else {
			assert_delivered(&k, &b, 1);
		}
		check_accounting(&rx, &k);
	}
	/* Timeout while skipping a refused frame: no second error. */
	fresh(&rx, &k);
	k.admit_code = FTPU_LINK_ERR_OVERFLOW;
	ftpu_link_rx_push(&rx, s.b, 20, &cb);
	ftpu_link_rx_timeout(&rx, &cb);
	assert_int_equal(k.ne, 1);
	assert_int_equal(rx.stats.bytes_dropped, 20);
	check_accounting(&rx, &k);
	sink_reset(&k);
	free(s.b);
}

/*
 * Why the PCRC covers w0..w2 too (docs/protocol.md, "CRCs"). With a PCRC
 * over the payload alone, (a) a frame header -- 12 bytes and their CRC --
 * is a valid 3-word payload with its PCRC, so losing the 16 payload bytes
 * of a 3-word frame (an ERROR frame, say) made the receiver take the next
 * frame's header as that payload; (b) losing the bytes from one frame's
 * payload to the next equal-length frame's payload joined the first
 * header to the second payload. Both must be rejected, and the frame
 * after the damage still found.
 */
static void test_link_splices_rejected(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 16};
	size_t xlen;

	(void)state;
	for (xlen = 2; xlen <= 3; xlen++) {
		struct stream s = {0}, t = {0};
		struct rec z;
		size_t xb = 4 * (xlen + 5);

		stream_frame(&s, &r, FTPU_LINK_ERROR, 1, xlen);
		stream_frame(&s, &r, FTPU_LINK_DATA, 2, 2);
		z = stream_frame(&s, &r, FTPU_LINK_DATA, 3, 2);
		stream_put(&t, s.b, 16); /* X's header */
		if (xlen == 3) {	 /* (a): X's payload lost */
			stream_put(&t, s.b + xb, s.n - xb);
		} else { /* (b): X's payload .. Y's header lost */
			stream_put(&t, s.b + xb + 16, s.n - xb - 16);
		}
		fresh(&rx, &k);
		push_chunks(&rx, &k, t.b, t.n, &r, 0);
		assert_int_equal(k.ne, 1);
		assert_error(&k, 0, FTPU_LINK_ERR_BAD_PAYLOAD_CRC, 1,
			     FTPU_LINK_ERROR);
		/* X took Y's header (a) or Y's payload (b): Z is next. */
		assert_delivered(&k, &z, 1);
		free(s.b);
		free(t.b);
	}
	sink_reset(&k);
}

/* A device takes only CONTROL and PROGRAM, a host only the D->H types;
 * the others are UNKNOWN_TYPE and skipped whole. */
static void test_link_role_filters_direction(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 17};
	struct stream s = {0};
	struct rec f[6];
	size_t i;
	int role;

	(void)state;
	for (i = 0; i < 6; i++)
		f[i] = stream_frame(&s, &r, valid_types[i], 100 + i, i);
	assert_int_equal(ftpu_link_rx_set_role(NULL, FTPU_LINK_ROLE_HOST),
			 FTPU_ERR_INVALID);
	for (role = 0; role < 3; role++) {
		size_t first = role == FTPU_LINK_ROLE_HOST ? 2 : 0;
		size_t n = role == FTPU_LINK_ROLE_ANY	   ? 6
			   : role == FTPU_LINK_ROLE_DEVICE ? 2
							   : 4;

		fresh(&rx, &k);
		assert_int_equal(ftpu_link_rx_set_role(&rx, role), FTPU_OK);
		push_chunks(&rx, &k, s.b, s.n, &r, 5);
		assert_delivered(&k, f + first, n);
		assert_int_equal(k.ne, 6 - n);
		for (i = 0; i < 6 - n; i++) {
			size_t t = role == FTPU_LINK_ROLE_HOST ? i : 2 + i;

			assert_error(&k, i, FTPU_LINK_ERR_UNKNOWN_TYPE, 100 + t,
				     valid_types[t]);
		}
	}
	assert_int_equal(ftpu_link_rx_set_role(&rx, 3), FTPU_ERR_INVALID);
	sink_reset(&k);
	free(s.b);
}

/* The acknowledged seq (docs/protocol.md §5): the last frame finished with
 * a valid header, already updated when its error is reported, unchanged
 * by garbage and by a frame still arriving. */
static void test_link_ack_seq(void **state)
{
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 18};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	struct stream s = {0};
	uint8_t junk[24];
	size_t at;

	(void)state;
	fresh(&rx, &k);
	k.rx = &rx;
	assert_int_equal(ftpu_link_rx_ack(&rx), -1);
	assert_int_equal(ftpu_link_rx_ack(NULL), -1);
	stream_frame(&s, &r, FTPU_LINK_PROGRAM, 5, 3);
	ftpu_link_rx_push(&rx, s.b, s.n, &cb);
	assert_int_equal(ftpu_link_rx_ack(&rx), 5);

	/* Garbage with a false SYNC: BAD_HEADER_CRC, ack unchanged. */
	memcpy(junk, "FTPU", 4);
	memset(junk + 4, 0x11, sizeof(junk) - 4);
	ftpu_link_rx_push(&rx, junk, sizeof(junk), &cb);
	assert_int_equal(k.ne, 1);
	assert_int_equal(k.ack_at_error[0], 5);

	/* A bad payload: ack is the offending frame when the error is out. */
	s.n = 0;
	stream_frame(&s, &r, FTPU_LINK_PROGRAM, 6, 3);
	s.b[20] ^= 1;
	ftpu_link_rx_push(&rx, s.b, s.n, &cb);
	assert_error(&k, 1, FTPU_LINK_ERR_BAD_PAYLOAD_CRC, 6,
		     FTPU_LINK_PROGRAM);
	assert_int_equal(k.ack_at_error[1], 6);

	/* A frame half in: not acknowledged yet; then its timeout is. */
	s.n = 0;
	stream_frame(&s, &r, FTPU_LINK_PROGRAM, 7, 3);
	ftpu_link_rx_push(&rx, s.b, 20, &cb);
	assert_int_equal(ftpu_link_rx_ack(&rx), 6);
	ftpu_link_rx_timeout(&rx, &cb);
	assert_int_equal(k.ack_at_error[2], 7);

	/* Refused at the header: acknowledged at once. */
	fresh(&rx, &k);
	k.rx = &rx;
	k.admit_code = FTPU_LINK_ERR_OVERFLOW;
	s.n = 0;
	stream_frame(&s, &r, FTPU_LINK_PROGRAM, 8, 3);
	at = s.n;
	ftpu_link_rx_push(&rx, s.b, 16, &cb);
	assert_int_equal(ftpu_link_rx_ack(&rx), 8);
	assert_int_equal(k.ack_at_error[0], 8);
	ftpu_link_rx_push(&rx, s.b + 16, at - 16, &cb);
	assert_int_equal(ftpu_link_rx_pending(&rx), 0);
	check_accounting(&rx, &k);
	sink_reset(&k);
	free(s.b);
}

/* ---- fuzz ---------------------------------------------------------------- */

/* Applies one random mutation to s (bounded growth). */
static void mutate(struct stream *s, struct rng *r)
{
	size_t at = s->n ? rng_below(r, (uint32_t)s->n) : 0;
	size_t m = 1 + rng_below(r, 24), i;
	uint8_t tmp[64];

	switch (rng_below(r, 10)) {
	case 0: /* bit flip */
		if (s->n)
			s->b[at] ^= (uint8_t)(1u << rng_below(r, 8));
		break;
	case 1: /* burst of flips */
		for (i = 0; i < m && at + i < s->n; i++)
			s->b[at + i] ^= (uint8_t)rng_u32(r);
		break;
	case 2: /* delete a range (a lost byte, a lost FIFO chunk) */
		if (m > s->n - at)
			m = s->n - at;
		memmove(s->b + at, s->b + at + m, s->n - at - m);
		s->n -= m;
		break;
	case 3: /* insert garbage, SYNC included */
	case 4:
		for (i = 0; i < m; i++)
			tmp[i] = rng_below(r, 3) ? (uint8_t)rng_u32(r)
						 : (uint8_t) "FTPU"[i % 4];
		goto insert;
	case 5: /* insert a copy of a nearby range (a header, a frame piece) */
		m = 1 + rng_below(r, 40);
		if (m > s->n - at)
			m = s->n - at;
		memcpy(tmp, s->b + at, m);
		at = s->n ? rng_below(r, (uint32_t)s->n) : 0;
		goto insert;
	case 6: /* duplicate one byte */
		if (!s->n)
			break;
		tmp[0] = s->b[at];
		m = 1;
		goto insert;
	case 7: /* truncate the tail */
		s->n = at;
		break;
	case 8: /* delete whole words (a lost payload, header, FIFO block):
		 * the splices that a payload-only PCRC would let through */
		m = 4 * (1 + rng_below(r, 50));
		if (m > s->n - at)
			m = s->n - at;
		memmove(s->b + at, s->b + at + m, s->n - at - m);
		s->n -= m;
		break;
	default: /* overwrite a word with another word of the stream */
		if (s->n >= 8 && at + 4 <= s->n)
			memcpy(s->b + at,
			       s->b + rng_below(r, (uint32_t)s->n - 4), 4);
		break;
	}
	return;
insert:
	stream_room(s, m);
	memmove(s->b + at + m, s->b + at, s->n - at);
	memcpy(s->b + at, tmp, m);
	s->n += m;
}

/* An accepted frame must be exactly the frame sent with its seq. */
static bool fuzz_frame_ok(const struct rec *g, const struct rec *sent,
			  size_t nf, uint16_t seq0)
{
	size_t idx = (uint16_t)(g->seq - seq0);

	return idx < nf && rec_eq(g, &sent[idx]);
}

static void test_link_fuzz_never_accepts_corruption(void **state)
{
	static const size_t chunks[] = {0, 1, 2, 5, 64, 999};
	struct ftpu_link_rx rx;
	struct sink k = {0};
	struct rng r = {seed + 15};
	struct ftpu_link_rx_cb cb = sink_cb(&k);
	unsigned long it, n_ok = 0, n_sent = 0, n_err = 0;

	(void)state;
	for (it = 0; it < 30000 * scale; it++) {
		struct stream s = {0};
		struct rec sent[24], tail;
		size_t start[24];
		size_t i, nf = 1 + rng_below(&r, 24), nm, pos = 0;
		size_t chunk = chunks[it % 6];
		bool timed_out = false, clean;
		uint16_t seq0 = (uint16_t)rng_u32(&r);

		for (i = 0; i < nf; i++) {
			size_t n = rng_below(&r, 16) ? rng_below(&r, 40)
						     : rng_below(&r, 600);

			/* Equal lengths and 3-word payloads (as long as a
			 * header) invite splices. */
			if (rng_below(&r, 3) == 0)
				n = i && rng_below(&r, 2) ? sent[i - 1].len : 3;
			if (rng_below(&r, 5) == 0)
				stream_garbage(&s, &r, rng_below(&r, 30));
			start[i] = s.n;
			sent[i] = stream_frame(&s, &r,
					       valid_types[rng_below(&r, 6)],
					       (uint16_t)(seq0 + i), n);
		}
		nm = rng_below(&r, 4) ? 1 + rng_below(&r, 6) : 0;
		clean = !nm;
		if (nm && rng_below(&r, 3) == 0) {
			/* Structural loss: a frame's payload + PCRC, possibly
			 * with the next header, or whole words after it. */
			size_t f = rng_below(&r, (uint32_t)nf);
			size_t at = start[f] + 16;
			size_t m = 4 * (sent[f].len + 1u);

			if (rng_below(&r, 3) == 0)
				m += 16;
			else if (rng_below(&r, 2))
				m = 4 * (1 + rng_below(&r, 40));
			if (m > s.n - at)
				m = s.n - at;
			memmove(s.b + at, s.b + at + m, s.n - at - m);
			s.n -= m;
			nm--;
		}
		for (i = 0; i < nm; i++)
			mutate(&s, &r);

		fresh(&rx, &k);
		if (it % 7 == 0) /* small buffers: the OVERFLOW path */
			ftpu_link_rx_init(&rx, rx_buf, rng_below(&r, 64));
		while (pos < s.n) {
			size_t m = chunk ? 1 + rng_below(&r, (uint32_t)chunk)
					 : s.n;

			if (m > s.n - pos)
				m = s.n - pos;
			ftpu_link_rx_push(&rx, s.b + pos, m, &cb);
			pos += m;
			if (rng_below(&r, 50) == 0) {
				ftpu_link_rx_timeout(&rx, &cb);
				timed_out = true;
			}
		}
		check_accounting(&rx, &k);
		for (i = 0; i < k.nf; i++) {
			const struct rec *g = &k.f[i];

			if (!fuzz_frame_ok(g, sent, nf, seq0))
				fail_msg(
					"iteration %lu: accepted a frame never "
					"sent (seq %u type %#x len %u, seed "
					"%#llx)",
					it, g->seq, g->type, g->len,
					(unsigned long long)seed);
		}
		if (clean && !timed_out && rx.cap == FTPU_LINK_MAX_PAYLOAD)
			assert_int_equal(k.nf, nf);
		n_ok += k.nf;
		n_sent += nf;
		n_err += k.ne;

		/* Liveness: after a timeout the next intact frame is taken. */
		ftpu_link_rx_timeout(&rx, &cb);
		s.n = 0;
		tail = stream_frame(&s, &r, FTPU_LINK_EVENT,
				    (uint16_t)(seq0 - 1), 3);
		i = k.nf;
		ftpu_link_rx_push(&rx, s.b, s.n, &cb);
		if (rx.cap >= 3) {
			assert_int_equal(k.nf, i + 1);
			assert_true(rec_eq(&k.f[i], &tail));
		}
		check_accounting(&rx, &k);
		free(s.b);
	}
	print_message("fuzz: %lu frames sent, %lu accepted, %lu errors\n",
		      n_sent, n_ok, n_err);
	sink_reset(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_crc32_check_value),
		cmocka_unit_test(test_link_crc32_matches_zlib),
		cmocka_unit_test(test_link_encode_matches_oracle),
		cmocka_unit_test(test_link_encode_rejects_bad_arguments),
		cmocka_unit_test(test_link_doc_examples),
		cmocka_unit_test(test_link_info_get),
		cmocka_unit_test(test_link_rx_rejects_bad_arguments),
		cmocka_unit_test(test_link_roundtrip_every_split),
		cmocka_unit_test(test_link_roundtrip_random_chunks),
		cmocka_unit_test(test_link_flags_are_delivered),
		cmocka_unit_test(test_link_garbage_between_frames),
		cmocka_unit_test(
			test_link_sync_in_garbage_does_not_swallow_frame),
		cmocka_unit_test(test_link_single_bit_flips),
		cmocka_unit_test(test_link_double_bit_flips),
		cmocka_unit_test(test_link_truncated_header_then_frame),
		cmocka_unit_test(test_link_truncated_payload_then_frame),
		cmocka_unit_test(test_link_dropped_byte),
		cmocka_unit_test(test_link_oversize_length),
		cmocka_unit_test(test_link_unknown_type_skips_frame),
		cmocka_unit_test(test_link_overflow_skips_frame),
		cmocka_unit_test(test_link_timeout),
		cmocka_unit_test(test_link_splices_rejected),
		cmocka_unit_test(test_link_role_filters_direction),
		cmocka_unit_test(test_link_ack_seq),
		cmocka_unit_test(test_link_fuzz_never_accepts_corruption),
	};

	if (ftpu_test_full())
		scale = 10;
	seed = ftpu_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
