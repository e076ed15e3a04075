/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_link_rx.c - libFuzzer target over the link's frame receiver
 * (proto/link.c: ftpu_link_rx_push and its resynchronization).
 *
 * Input: a config byte, then segments that build the byte stream. Config:
 * bits 0..1 the receiver's role (3: ANY), bits 2..4 its payload capacity
 * (0, 1, 2, 3, 8, 64, 1024, 4096 words), bit 5 an admit callback that
 * refuses frames of odd seq (with codes 0..7, so also invalid ones).
 * Each segment starts with a tag byte (mod 5):
 *   0 raw      a count byte, then that many bytes as they are
 *   1 frame    a well-formed frame (below)
 *   2 corrupt  a frame with one byte xored (position byte, value byte)
 *   3 cut      a frame cut short (a length byte)
 *   4 len lie  a frame whose len field is another 16-bit value, with a
 *              good HCRC
 * A frame is a type byte (below 0xc0: one of the six types, else the byte
 * itself), flags, seq (2 bytes), credit (2), a word-count byte (below
 * 0xf0: 0..15 words, else 16..256) and a seed byte for the payload words; its CRCs are computed here, independently
 * of ftpu_link_encode.
 *
 * Checked: every delivered frame is the FTPU_LINK_FRAME_BYTES(len) bytes
 * of the stream before the receiver's position (its stats: bytes
 * delivered, skipped and dropped), byte for byte as encoded here (SYNC, header, both CRCs),
 * with len within the receiver's capacity and FTPU_LINK_MAX_PAYLOAD, a type
 * the role takes, admitted, and the ack at its seq; every error has a known
 * code and sane seq/type; stats add up (bytes_in = ok + skipped + dropped +
 * pending, frames and errors counted); a stream of well-formed frames only
 * is delivered exactly, in order, without errors; pushing the same stream
 * in random chunks (1 byte and up) instead of at once gives the same
 * frames at the same positions, errors and stats; and after a
 * timeout a good frame is received whatever came before.
 *
 * make fuzz-link_rx runs it (mk/fuzz.mk); test_fuzz_replay replays the
 * corpus (tests/fuzz/corpus/link_rx) through fuzz_link_rx_one().
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

#include "fuzz_check.h"

#define LRX_MAX_STREAM (1u << 14)

static const uint8_t lrx_types[6] = {
	FTPU_LINK_CONTROL, FTPU_LINK_PROGRAM, FTPU_LINK_RESPONSE,
	FTPU_LINK_DATA,	   FTPU_LINK_EVENT,   FTPU_LINK_ERROR,
};

struct lrx_event {
	int frame; /* 1: a frame, 0: an error */
	unsigned code;
	uint32_t type, seq;
	unsigned flags, credit, len;
	uint32_t payload_crc;
	size_t end; /* a frame: the stream position of its end */
};

struct lrx_run {
	struct ftpu_link_rx rx;
	uint32_t *buf;
	size_t cap;
	int role;
	bool refuse_odd;
	const uint8_t *stream;
	size_t len;
	struct lrx_event *ev;
	size_t nev, cap_ev;
	/* the last header offered to admit and whether it was admitted */
	struct ftpu_link_header admitted;
	bool have_admitted;
	int refused; /* admit's code for it, 0 if it was admitted */
};

/* ---- the stream, built here ---- */

struct lrx_stream {
	uint8_t *b;
	size_t len;
	bool clean; /* only well-formed frames the receiver takes */
	struct lrx_event *want;
	size_t nwant;
};

static void lrx_put(struct lrx_stream *s, const void *p, size_t n)
{
	if (n > LRX_MAX_STREAM - s->len)
		n = LRX_MAX_STREAM - s->len;
	memcpy(s->b + s->len, p, n);
	s->len += n;
}

/* A frame's bytes into out (FTPU_LINK_FRAME_BYTES(n) of them), len_field
 * in w2 (n for an honest frame). */
static size_t lrx_encode(uint8_t *out, unsigned type, unsigned flags, unsigned seq,
			 unsigned credit, unsigned len_field, const uint32_t *pl, unsigned n)
{
	ftpu_link_put_le32(out, FTPU_LINK_SYNC);
	ftpu_link_put_le32(out + 4, (uint32_t)type | (uint32_t)flags << 8 | (uint32_t)seq << 16);
	ftpu_link_put_le32(out + 8, (uint32_t)len_field | (uint32_t)credit << 16);
	uint32_t hcrc = ftpu_crc32_update(0, out, 12);
	ftpu_link_put_le32(out + 12, hcrc);
	for (unsigned i = 0; i < n; i++)
		ftpu_link_put_le32(out + 16 + 4 * i, pl[i]);
	ftpu_link_put_le32(out + 16 + 4 * n, ftpu_crc32_update(hcrc, out + 16, 4u * n));
	return FTPU_LINK_FRAME_BYTES(n);
}

static bool lrx_takes(int role, unsigned type)
{
	bool valid = false;
	for (unsigned i = 0; i < 6; i++)
		valid |= type == lrx_types[i];
	if (!valid)
		return false;
	if (role == FTPU_LINK_ROLE_DEVICE)
		return type == FTPU_LINK_CONTROL || type == FTPU_LINK_PROGRAM;
	if (role == FTPU_LINK_ROLE_HOST)
		return type != FTPU_LINK_CONTROL && type != FTPU_LINK_PROGRAM;
	return true;
}

static uint8_t lrx_byte(const uint8_t *d, size_t size, size_t *i)
{
	return *i < size ? d[(*i)++] : 0;
}

/* ---- the receiver's callbacks ---- */

static void lrx_add(struct lrx_run *r, const struct lrx_event *e)
{
	FUZZ_CHECK(r->nev < r->cap_ev);
	r->ev[r->nev++] = *e;
}

/* What the admit callback answers for seq: odd ones get codes 0..7. */
static int lrx_admit_code(const struct lrx_run *r, unsigned seq)
{
	return r->refuse_odd && (seq & 1) ? (int)((seq >> 1) % 8) : 0;
}

static int lrx_admit(void *ctx, const struct ftpu_link_header *h)
{
	struct lrx_run *r = ctx;
	int code = lrx_admit_code(r, h->seq);

	/* offered only after the receiver's own checks */
	FUZZ_CHECK(lrx_takes(r->role, h->type));
	FUZZ_CHECK(h->len <= r->cap && h->len <= FTPU_LINK_MAX_PAYLOAD);
	r->admitted = *h;
	r->have_admitted = code == 0;
	r->refused = code;
	return code;
}

static void lrx_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct lrx_run *r = ctx;
	struct lrx_event e = {
		.frame = 1, .type = f->type, .seq = f->seq, .flags = f->flags,
		.credit = f->credit, .len = f->len,
	};

	FUZZ_CHECK(f->len <= r->cap && f->len <= FTPU_LINK_MAX_PAYLOAD);
	FUZZ_CHECK(lrx_takes(r->role, f->type));
	FUZZ_CHECK(f->len == 0 || f->payload == r->buf);
	FUZZ_CHECK(ftpu_link_rx_ack(&r->rx) == f->seq);
	FUZZ_CHECK(!r->refused);
	if (r->refuse_odd) {
		FUZZ_CHECK(r->have_admitted && r->admitted.seq == f->seq &&
			   r->admitted.type == f->type && r->admitted.len == f->len &&
			   r->admitted.credit == f->credit && r->admitted.flags == f->flags);
		r->have_admitted = false;
	}
	e.payload_crc = ftpu_crc32_update(0, f->payload, 4u * f->len);
	/* the frame is the bytes before the receiver's position (what it
	 * accounted as delivered, skipped or dropped), as encoded here */
	const struct ftpu_link_stats *st = &r->rx.stats;
	size_t n = FTPU_LINK_FRAME_BYTES(f->len);
	uint64_t end = st->bytes_ok + st->bytes_skipped + st->bytes_dropped;
	FUZZ_CHECK(ftpu_link_rx_pending(&r->rx) == 0);
	FUZZ_CHECK(end >= n && end <= r->len);
	uint8_t *enc = malloc(n);
	FUZZ_CHECK(enc);
	lrx_encode(enc, f->type, f->flags, f->seq, f->credit, f->len, f->payload, f->len);
	FUZZ_CHECK(!memcmp(enc, r->stream + end - n, n));
	free(enc);
	e.end = (size_t)end;
	lrx_add(r, &e);
}

static void lrx_error(void *ctx, const struct ftpu_link_error *err)
{
	struct lrx_run *r = ctx;
	struct lrx_event e = {
		.code = err->code, .type = err->type, .seq = err->seq,
	};

	FUZZ_CHECK(err->code >= 1 && err->code <= FTPU_LINK_ERR_MAX);
	if (r->refused) {
		/* the error admit asked for (another value is OVERFLOW), at
		 * once, for the header it refused */
		int want = r->refused <= FTPU_LINK_ERR_MAX ? r->refused : FTPU_LINK_ERR_OVERFLOW;
		FUZZ_CHECK(err->code == (unsigned)want && err->seq == r->admitted.seq &&
			   err->type == r->admitted.type);
		FUZZ_CHECK(ftpu_link_rx_ack(&r->rx) == (int32_t)err->seq);
		r->refused = 0;
	} else if (err->code == FTPU_LINK_ERR_BAD_HEADER_CRC) {
		FUZZ_CHECK(err->seq == FTPU_LINK_UNKNOWN && err->type == FTPU_LINK_UNKNOWN);
	} else if (err->code == FTPU_LINK_ERR_TIMEOUT && err->seq == FTPU_LINK_UNKNOWN) {
		FUZZ_CHECK(err->type == FTPU_LINK_UNKNOWN);
	} else {
		FUZZ_CHECK(err->seq <= 0xffffu && err->type <= 0xffu);
		FUZZ_CHECK(ftpu_link_rx_ack(&r->rx) == (int32_t)err->seq);
		if (err->code == FTPU_LINK_ERR_UNKNOWN_TYPE)
			FUZZ_CHECK(!lrx_takes(r->role, err->type));
	}
	lrx_add(r, &e);
}

static void lrx_check_stats(const struct lrx_run *r)
{
	const struct ftpu_link_stats *st = &r->rx.stats;
	uint64_t frames = 0, errors[FTPU_LINK_ERR_MAX + 1] = { 0 };

	FUZZ_CHECK(st->bytes_in ==
		   st->bytes_ok + st->bytes_skipped + st->bytes_dropped +
			   ftpu_link_rx_pending(&r->rx));
	for (size_t i = 0; i < r->nev; i++) {
		if (r->ev[i].frame)
			frames++;
		else
			errors[r->ev[i].code]++;
	}
	FUZZ_CHECK(st->frames_ok == frames);
	for (unsigned c = 1; c <= FTPU_LINK_ERR_MAX; c++)
		FUZZ_CHECK(st->errors[c] == errors[c]);
}

static void lrx_run_init(struct lrx_run *r, const struct lrx_run *like)
{
	*r = *like;
	r->nev = 0;
	r->have_admitted = false;
	r->refused = 0;
	FUZZ_CHECK(ftpu_link_rx_init(&r->rx, r->buf, r->cap) == 0);
	FUZZ_CHECK(ftpu_link_rx_set_role(&r->rx, r->role) == 0);
}

static bool lrx_same_event(const struct lrx_event *a, const struct lrx_event *b)
{
	return a->frame == b->frame && a->code == b->code && a->type == b->type &&
	       a->seq == b->seq && a->flags == b->flags && a->credit == b->credit &&
	       a->len == b->len && a->payload_crc == b->payload_crc && a->end == b->end;
}

static int fuzz_link_rx_one(const uint8_t *data, size_t size)
{
	static const size_t caps[8] = { 0, 1, 2, 3, 8, 64, 1024, FTPU_LINK_MAX_PAYLOAD };
	unsigned cfg = size ? data[0] : 0;
	struct lrx_run base = { 0 }, a, b;
	struct lrx_stream s = { 0 };
	size_t i = size ? 1 : 0;
	static uint32_t pl[256];
	static uint8_t frame[FTPU_LINK_FRAME_BYTES(256)];

	base.role = (cfg & 3) == 3 ? FTPU_LINK_ROLE_ANY : (int)(cfg & 3);
	base.cap = caps[(cfg >> 2) & 7];
	base.refuse_odd = cfg & 0x20;
	/* exactly cap words: ASan sees a write beyond them */
	base.buf = malloc(base.cap ? base.cap * sizeof(uint32_t) : 1);
	s.b = malloc(LRX_MAX_STREAM + FTPU_LINK_FRAME_BYTES(3));
	s.want = malloc(size * sizeof(*s.want) + sizeof(*s.want));
	FUZZ_CHECK(base.buf && s.b && s.want);
	s.clean = true;

	/* the stream */
	while (i < size && s.len < LRX_MAX_STREAM) {
		unsigned tag = data[i++] % 5;
		if (tag == 0) {
			size_t n = lrx_byte(data, size, &i);
			if (n > size - i)
				n = size - i;
			lrx_put(&s, data + i, n);
			i += n;
			s.clean = false;
			continue;
		}
		unsigned sel = lrx_byte(data, size, &i);
		unsigned type = sel < 0xc0 ? lrx_types[sel % 6] : sel;
		unsigned flags = lrx_byte(data, size, &i);
		unsigned seq = lrx_byte(data, size, &i);
		seq |= (unsigned)lrx_byte(data, size, &i) << 8;
		unsigned credit = lrx_byte(data, size, &i);
		credit |= (unsigned)lrx_byte(data, size, &i) << 8;
		unsigned n = lrx_byte(data, size, &i);
		n = n < 0xf0 ? n % 16 : (n - 0xef) * 16; /* mostly short, up to 256 */
		uint32_t seed = lrx_byte(data, size, &i) * 0x9e3779b9u;
		for (unsigned k = 0; k < n; k++)
			pl[k] = seed ^ (k * 0x01000193u);
		unsigned len_field = n;
		if (tag == 4) {
			len_field = lrx_byte(data, size, &i);
			len_field |= (unsigned)lrx_byte(data, size, &i) << 8;
		}
		size_t fl = lrx_encode(frame, type, flags, seq, credit, len_field, pl, n);
		if (tag == 2) {
			unsigned at = lrx_byte(data, size, &i);
			at |= (unsigned)lrx_byte(data, size, &i) << 8;
			frame[at % fl] ^= (uint8_t)(lrx_byte(data, size, &i) | 1);
		} else if (tag == 3) {
			unsigned cut = lrx_byte(data, size, &i);
			cut |= (unsigned)lrx_byte(data, size, &i) << 8;
			fl = cut % fl;
		}
		if (tag == 1 && lrx_takes(base.role, type) && n <= base.cap &&
		    !lrx_admit_code(&base, seq) && s.len + fl <= LRX_MAX_STREAM) {
			struct lrx_event e = {
				.frame = 1, .type = type, .seq = seq, .flags = flags,
				.credit = credit, .len = n,
				.payload_crc = ftpu_crc32_update(0, pl, 4u * n),
				.end = s.len + fl,
			};
			s.want[s.nwant++] = e;
		} else {
			s.clean = false;
		}
		lrx_put(&s, frame, fl);
	}
	base.stream = s.b;
	base.len = s.len;
	base.cap_ev = s.len + 2;
	base.ev = NULL;

	/* the whole stream in one push */
	lrx_run_init(&a, &base);
	a.ev = malloc(a.cap_ev * sizeof(*a.ev));
	FUZZ_CHECK(a.ev);
	struct ftpu_link_rx_cb cb = { lrx_admit, lrx_frame, lrx_error, &a };
	if (!base.refuse_odd)
		cb.admit = NULL;
	FUZZ_CHECK(ftpu_link_rx_push(&a.rx, s.b, s.len, &cb) == 0);
	lrx_check_stats(&a);
	if (s.clean) {
		FUZZ_CHECK(a.nev == s.nwant);
		for (size_t k = 0; k < a.nev; k++)
			FUZZ_CHECK(lrx_same_event(&a.ev[k], &s.want[k]));
		FUZZ_CHECK(ftpu_link_rx_pending(&a.rx) == 0);
	}

	/* the same stream in random chunks: the same events and stats */
	lrx_run_init(&b, &base);
	b.ev = malloc(b.cap_ev * sizeof(*b.ev));
	FUZZ_CHECK(b.ev);
	struct ftpu_link_rx_cb cb2 = cb;
	cb2.ctx = &b;
	uint32_t rnd = 0x2545f491u ^ cfg ^ (uint32_t)s.len;
	for (size_t at = 0; at < s.len;) {
		rnd ^= rnd << 13;
		rnd ^= rnd >> 17;
		rnd ^= rnd << 5;
		size_t n = rnd % 4 == 0 ? 1 + rnd % 7 : 1 + rnd % 600;
		if (n > s.len - at)
			n = s.len - at;
		FUZZ_CHECK(ftpu_link_rx_push(&b.rx, s.b + at, n, &cb2) == 0);
		at += n;
		FUZZ_CHECK(b.rx.stats.bytes_in ==
			   b.rx.stats.bytes_ok + b.rx.stats.bytes_skipped +
				   b.rx.stats.bytes_dropped + ftpu_link_rx_pending(&b.rx));
	}
	lrx_check_stats(&b);
	FUZZ_CHECK(b.nev == a.nev);
	for (size_t k = 0; k < a.nev; k++)
		FUZZ_CHECK(lrx_same_event(&a.ev[k], &b.ev[k]));
	FUZZ_CHECK(!memcmp(&a.rx.stats, &b.rx.stats, sizeof(a.rx.stats)));
	FUZZ_CHECK(ftpu_link_rx_pending(&a.rx) == ftpu_link_rx_pending(&b.rx));
	FUZZ_CHECK(ftpu_link_rx_ack(&a.rx) == ftpu_link_rx_ack(&b.rx));

	/* an idle gap, then a good frame: received whatever came before */
	FUZZ_CHECK(ftpu_link_rx_timeout(&a.rx, &cb) == 0);
	FUZZ_CHECK(ftpu_link_rx_pending(&a.rx) == 0);
	lrx_check_stats(&a);
	unsigned type = base.role == FTPU_LINK_ROLE_HOST ? FTPU_LINK_RESPONSE : FTPU_LINK_CONTROL;
	unsigned n = base.cap < 3 ? (unsigned)base.cap : 3;
	for (unsigned k = 0; k < n; k++)
		pl[k] = 0xa5a5a5a5u + k;
	size_t fl = lrx_encode(frame, type, 0, 0x1234, 7, n, pl, n);
	size_t before = a.nev;
	memcpy(s.b + s.len, frame, fl); /* room: LRX_MAX_STREAM + a frame */
	a.len = s.len + fl;
	FUZZ_CHECK(ftpu_link_rx_push(&a.rx, frame, fl, &cb) == 0);
	FUZZ_CHECK(a.nev == before + 1 && a.ev[before].frame && a.ev[before].seq == 0x1234 &&
		   a.ev[before].len == n && a.ev[before].type == type &&
		   a.ev[before].credit == 7);
	FUZZ_CHECK(ftpu_link_rx_pending(&a.rx) == 0);

	free(a.ev);
	free(b.ev);
	free(s.want);
	free(s.b);
	free(base.buf);
	return 0;
}

#ifndef FUZZ_LINK_RX_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_link_rx_one(data, size);
}
#endif
