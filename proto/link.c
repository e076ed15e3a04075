/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link.c - frame encoding and the resynchronizing frame receiver of
 * the ftpu link protocol. docs/protocol.md is the specification; this file
 * is its reference implementation (the receiver section there describes the
 * same state machine: HUNT, PAYLOAD, SKIP).
 */
#include <string.h>

#include "link.h"
#include "status.h"

bool ftpu_link_type_valid(unsigned int type)
{
	switch (type) {
	case FTPU_LINK_CONTROL:
	case FTPU_LINK_PROGRAM:
	case FTPU_LINK_RESPONSE:
	case FTPU_LINK_DATA:
	case FTPU_LINK_EVENT:
	case FTPU_LINK_ERROR:
		return true;
	}
	return false;
}

const char *ftpu_link_type_name(unsigned int type)
{
	switch (type) {
	case FTPU_LINK_CONTROL:
		return "CONTROL";
	case FTPU_LINK_PROGRAM:
		return "PROGRAM";
	case FTPU_LINK_RESPONSE:
		return "RESPONSE";
	case FTPU_LINK_DATA:
		return "DATA";
	case FTPU_LINK_EVENT:
		return "EVENT";
	case FTPU_LINK_ERROR:
		return "ERROR";
	}
	return "UNKNOWN";
}

const char *ftpu_link_err_name(unsigned int code)
{
	switch (code) {
	case FTPU_LINK_ERR_BAD_HEADER_CRC:
		return "BAD_HEADER_CRC";
	case FTPU_LINK_ERR_BAD_PAYLOAD_CRC:
		return "BAD_PAYLOAD_CRC";
	case FTPU_LINK_ERR_BAD_LENGTH:
		return "BAD_LENGTH";
	case FTPU_LINK_ERR_UNKNOWN_TYPE:
		return "UNKNOWN_TYPE";
	case FTPU_LINK_ERR_OVERFLOW:
		return "OVERFLOW";
	case FTPU_LINK_ERR_TIMEOUT:
		return "TIMEOUT";
	}
	return "UNKNOWN";
}

uint32_t ftpu_link_encode_header(unsigned int type, unsigned int flags,
				 uint16_t seq, uint16_t credit, size_t n,
				 uint8_t out[FTPU_LINK_HEADER_BYTES])
{
	uint32_t hcrc;

	ftpu_link_put_le32(out, FTPU_LINK_SYNC);
	ftpu_link_put_le32(out + 4, FTPU_LINK_W1(type, flags, seq));
	ftpu_link_put_le32(out + 8, FTPU_LINK_W2(n, credit));
	hcrc = ftpu_crc32_update(0, out, 12);
	ftpu_link_put_le32(out + 12, hcrc);
	return hcrc;
}

int ftpu_link_encode_flags(unsigned int type, unsigned int flags, uint16_t seq,
			   uint16_t credit, const uint32_t *payload, size_t n,
			   void *out, size_t cap)
{
	uint8_t *p = out;
	uint32_t hcrc;
	size_t i;

	if (!ftpu_link_type_valid(type) || flags > 0xffu ||
	    n > FTPU_LINK_MAX_PAYLOAD || (n && !payload) || !out ||
	    cap < FTPU_LINK_FRAME_BYTES(n))
		return FTPU_PROTO_ERR_INVALID;

	hcrc = ftpu_link_encode_header(type, flags, seq, credit, n, p);
	p += FTPU_LINK_HEADER_BYTES;
	for (i = 0; i < n; i++)
		ftpu_link_put_le32(p + 4 * i, payload[i]);
	/* PCRC continues the CRC of w0..w2 over the payload, binding the
	 * payload to its header (docs/protocol.md, "CRCs"). */
	ftpu_link_put_le32(p + 4 * n, ftpu_crc32_update(hcrc, p, 4 * n));
	return (int)FTPU_LINK_FRAME_BYTES(n);
}

int ftpu_link_encode(unsigned int type, uint16_t seq, uint16_t credit,
		     const uint32_t *payload, size_t n, void *out, size_t cap)
{
	return ftpu_link_encode_flags(type, 0, seq, credit, payload, n, out,
				      cap);
}

int ftpu_link_info_get(const uint32_t *payload, size_t n, uint32_t key,
		       uint32_t *value)
{
	size_t i;

	if (!payload || !value)
		return FTPU_PROTO_ERR_INVALID;
	if (n < 2 || (n - 2) % 2 || payload[0] != FTPU_LINK_OP_INFO ||
	    payload[1] != FTPU_LINK_RESP_OK)
		return FTPU_PROTO_ERR_PROTOCOL;
	for (i = 2; i < n; i += 2) {
		if (payload[i] == key) {
			*value = payload[i + 1];
			return FTPU_PROTO_OK;
		}
	}
	return FTPU_PROTO_ERR_NOT_FOUND;
}

/* ---- receiver ------------------------------------------------------------ */

enum rx_state {
	ST_HUNT,    /* hdr holds a SYNC prefix or a partial/complete header */
	ST_PAYLOAD, /* receiving payload + PCRC of an admitted header */
	ST_SKIP,    /* discarding payload + PCRC of a rejected good header */
};

static const uint8_t sync_bytes[4] = {'F', 'T', 'P', 'U'};

static void rx_error(struct ftpu_link_rx *rx, const struct ftpu_link_rx_cb *cb,
		     unsigned int code, uint32_t seq, uint32_t type)
{
	struct ftpu_link_error e = {.code = code, .seq = seq, .type = type};

	rx->stats.errors[code]++;
	if (cb && cb->error)
		cb->error(cb->ctx, &e);
}

/* Is type one of those rx takes? */
static bool rx_takes(const struct ftpu_link_rx *rx, unsigned int type)
{
	if (!ftpu_link_type_valid(type))
		return false;
	switch (rx->role) {
	case FTPU_LINK_ROLE_DEVICE:
		return !(type & 0x80u);
	case FTPU_LINK_ROLE_HOST:
		return type & 0x80u;
	}
	return true;
}

/* Can hdr[p..hlen) begin a frame, i.e. does it match SYNC as far as it goes? */
static bool sync_prefix_at(const struct ftpu_link_rx *rx, unsigned int p)
{
	unsigned int i;

	for (i = 0; i < 4 && p + i < rx->hlen; i++)
		if (rx->hdr[p + i] != sync_bytes[i])
			return false;
	return true;
}

/* Drops the first p bytes of hdr as skipped garbage. */
static void hdr_drop(struct ftpu_link_rx *rx, unsigned int p)
{
	memmove(rx->hdr, rx->hdr + p, rx->hlen - p);
	rx->hlen -= p;
	rx->stats.bytes_skipped += p;
}

/*
 * Checks the complete candidate header in hdr (which starts with SYNC).
 * Returns false, after reporting the error, when the candidate must be
 * given up byte-wise (BAD_HEADER_CRC, BAD_LENGTH); otherwise empties hdr
 * and moves to ST_PAYLOAD, or to ST_SKIP after reporting why the frame is
 * refused.
 */
static bool rx_header(struct ftpu_link_rx *rx, const struct ftpu_link_rx_cb *cb)
{
	uint32_t w1 = ftpu_link_get_le32(rx->hdr + 4);
	uint32_t w2 = ftpu_link_get_le32(rx->hdr + 8);
	uint32_t hcrc = ftpu_link_get_le32(rx->hdr + 12);
	struct ftpu_link_header *h = &rx->h;
	int code = 0;

	if (ftpu_crc32_update(0, rx->hdr, 12) != hcrc) {
		rx_error(rx, cb, FTPU_LINK_ERR_BAD_HEADER_CRC,
			 FTPU_LINK_UNKNOWN, FTPU_LINK_UNKNOWN);
		return false;
	}
	h->type = (uint8_t)w1;
	h->flags = (uint8_t)(w1 >> 8);
	h->seq = (uint16_t)(w1 >> 16);
	h->len = (uint16_t)w2;
	h->credit = (uint16_t)(w2 >> 16);
	if (h->len > FTPU_LINK_MAX_PAYLOAD) {
		rx->ack = h->seq;
		rx_error(rx, cb, FTPU_LINK_ERR_BAD_LENGTH, h->seq, h->type);
		return false;
	}

	if (!rx_takes(rx, h->type))
		code = FTPU_LINK_ERR_UNKNOWN_TYPE;
	else if (h->len > rx->cap)
		code = FTPU_LINK_ERR_OVERFLOW;
	else if (cb && cb->admit)
		code = cb->admit(cb->ctx, h);
	if (code && (code < 1 || code > FTPU_LINK_ERR_MAX))
		code = FTPU_LINK_ERR_OVERFLOW;

	rx->hlen = 0;
	rx->todo = 4u * h->len + 4u;
	rx->got = 0;
	rx->crc = hcrc; /* PCRC = CRC of w0..w2 and then the payload */
	rx->word = 0;
	if (code) {
		rx->ack = h->seq;
		rx_error(rx, cb, (unsigned int)code, h->seq, h->type);
		rx->state = ST_SKIP;
	} else {
		rx->state = ST_PAYLOAD;
	}
	return true;
}

/*
 * Restores the HUNT invariant after bytes were appended to hdr: hdr starts
 * at the earliest position that can still begin a frame; a complete
 * candidate is checked, and a failed one loses only its first byte before
 * the search goes on inside the remaining 15. Each round drops a byte or
 * returns, so this is at most 16 rounds of 16 steps.
 */
static void rx_settle(struct ftpu_link_rx *rx, const struct ftpu_link_rx_cb *cb)
{
	unsigned int p;

	for (;;) {
		for (p = 0; p < rx->hlen && !sync_prefix_at(rx, p); p++)
			;
		if (p)
			hdr_drop(rx, p);
		if (rx->hlen < FTPU_LINK_HEADER_BYTES || rx_header(rx, cb))
			return;
		hdr_drop(rx, 1);
	}
}

/* End of payload + PCRC: deliver the frame or report BAD_PAYLOAD_CRC. */
static void rx_finish(struct ftpu_link_rx *rx, const struct ftpu_link_rx_cb *cb)
{
	uint64_t bytes = FTPU_LINK_HEADER_BYTES + (uint64_t)rx->got;
	struct ftpu_link_frame f;

	rx->state = ST_HUNT;
	rx->ack = rx->h.seq;
	if (rx->word != rx->crc) {
		rx->stats.bytes_dropped += bytes;
		rx_error(rx, cb, FTPU_LINK_ERR_BAD_PAYLOAD_CRC, rx->h.seq,
			 rx->h.type);
		return;
	}
	f.type = rx->h.type;
	f.flags = rx->h.flags;
	f.seq = rx->h.seq;
	f.credit = rx->h.credit;
	f.len = rx->h.len;
	f.payload = rx->buf;
	rx->stats.frames_ok++;
	rx->stats.bytes_ok += bytes;
	if (cb && cb->frame)
		cb->frame(cb->ctx, &f);
}

/* Takes up to n bytes of payload + PCRC; returns how many it took. The
 * payload bytes are checked and stored a word at a time where aligned. */
static size_t rx_payload(struct ftpu_link_rx *rx,
			 const struct ftpu_link_rx_cb *cb, const uint8_t *p,
			 size_t n)
{
	uint32_t plen = 4u * rx->h.len;
	size_t take = n < rx->todo ? n : rx->todo;
	size_t i = 0, k = 0;

	if (rx->got < plen) {
		k = plen - rx->got < take ? plen - rx->got : take;
		rx->crc = ftpu_crc32_update(rx->crc, p, k);
		for (; i < k && (rx->got & 3u); i++, rx->got++) {
			rx->word |= (uint32_t)p[i] << (8u * (rx->got & 3u));
			if ((rx->got & 3u) == 3u) {
				rx->buf[rx->got / 4u] = rx->word;
				rx->word = 0;
			}
		}
		for (; k - i >= 4; i += 4, rx->got += 4)
			rx->buf[rx->got / 4u] = ftpu_link_get_le32(p + i);
	}
	/* A partial last payload word, then the PCRC bytes (plen is a
	 * multiple of 4, so neither completes a payload word here). */
	for (; i < take; i++, rx->got++)
		rx->word |= (uint32_t)p[i] << (8u * (rx->got & 3u));
	rx->todo -= (uint32_t)take;
	if (!rx->todo)
		rx_finish(rx, cb);
	return take;
}

static size_t rx_skip(struct ftpu_link_rx *rx, size_t n)
{
	size_t take = n < rx->todo ? n : rx->todo;

	rx->todo -= (uint32_t)take;
	rx->got += (uint32_t)take;
	if (!rx->todo) {
		rx->stats.bytes_dropped +=
			FTPU_LINK_HEADER_BYTES + (uint64_t)rx->got;
		rx->state = ST_HUNT;
	}
	return take;
}

int ftpu_link_rx_init(struct ftpu_link_rx *rx, uint32_t *buf, size_t cap)
{
	if (!rx || (!buf && cap))
		return FTPU_PROTO_ERR_INVALID;
	memset(rx, 0, sizeof(*rx));
	rx->buf = buf;
	rx->cap = cap;
	rx->role = FTPU_LINK_ROLE_ANY;
	rx->ack = -1;
	rx->state = ST_HUNT;
	return FTPU_PROTO_OK;
}

int ftpu_link_rx_set_role(struct ftpu_link_rx *rx, enum ftpu_link_role role)
{
	if (!rx ||
	    (role != FTPU_LINK_ROLE_ANY && role != FTPU_LINK_ROLE_DEVICE &&
	     role != FTPU_LINK_ROLE_HOST))
		return FTPU_PROTO_ERR_INVALID;
	rx->role = role;
	return FTPU_PROTO_OK;
}

int32_t ftpu_link_rx_ack(const struct ftpu_link_rx *rx)
{
	return rx ? rx->ack : -1;
}

int ftpu_link_rx_push(struct ftpu_link_rx *rx, const void *data, size_t n,
		      const struct ftpu_link_rx_cb *cb)
{
	const uint8_t *p = data;
	size_t i = 0;

	if (!rx || !cb || (!data && n))
		return FTPU_PROTO_ERR_INVALID;
	rx->stats.bytes_in += n;
	while (i < n) {
		switch (rx->state) {
		case ST_PAYLOAD:
			i += rx_payload(rx, cb, p + i, n - i);
			break;
		case ST_SKIP:
			i += rx_skip(rx, n - i);
			break;
		default:
			if (!rx->hlen) {
				/* Garbage fast path: jump to the next 'F'. */
				const uint8_t *f = memchr(p + i, 'F', n - i);
				size_t k = f ? (size_t)(f - (p + i)) : n - i;

				rx->stats.bytes_skipped += k;
				i += k;
				if (i == n)
					break;
			}
			rx->hdr[rx->hlen++] = p[i++];
			rx_settle(rx, cb);
			break;
		}
	}
	return FTPU_PROTO_OK;
}

/* Accounts the pending bytes as skipped or dropped and searches again. */
static void rx_abandon(struct ftpu_link_rx *rx)
{
	if (rx->state == ST_HUNT) {
		rx->stats.bytes_skipped += rx->hlen;
	} else {
		rx->ack = rx->h.seq;
		rx->stats.bytes_dropped +=
			FTPU_LINK_HEADER_BYTES + (uint64_t)rx->got;
	}
	rx->hlen = 0;
	rx->state = ST_HUNT;
}

int ftpu_link_rx_timeout(struct ftpu_link_rx *rx,
			 const struct ftpu_link_rx_cb *cb)
{
	if (!rx || !cb)
		return FTPU_PROTO_ERR_INVALID;
	if (rx->state == ST_PAYLOAD) {
		rx->ack = rx->h.seq;
		rx_error(rx, cb, FTPU_LINK_ERR_TIMEOUT, rx->h.seq, rx->h.type);
	} else if (rx->state == ST_HUNT && rx->hlen >= 4) {
		rx_error(rx, cb, FTPU_LINK_ERR_TIMEOUT, FTPU_LINK_UNKNOWN,
			 FTPU_LINK_UNKNOWN);
	}
	rx_abandon(rx);
	return FTPU_PROTO_OK;
}

size_t ftpu_link_rx_pending(const struct ftpu_link_rx *rx)
{
	if (!rx)
		return 0;
	if (rx->state == ST_HUNT)
		return rx->hlen;
	return FTPU_LINK_HEADER_BYTES + rx->got;
}

void ftpu_link_rx_reset(struct ftpu_link_rx *rx)
{
	if (rx)
		rx_abandon(rx);
}
