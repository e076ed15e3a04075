/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link.c - CRC-32, frame encoding and the resynchronizing frame receiver of
 * the ftpu link protocol. docs/protocol.md is the specification; this file
 * is its reference implementation (the receiver section there describes the
 * same state machine: HUNT, PAYLOAD, SKIP).
 */
#include <string.h>

#include "ftpu.h"
#include "link.h"

/* crc32_table[i]: the reflected CRC-32 (poly 0xEDB88320) of byte i. */
static const uint32_t crc32_table[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
	0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
	0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
	0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
	0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
	0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
	0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
	0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
	0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
	0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
	0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
	0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
	0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
	0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
	0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
	0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
	0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
	0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
	0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
	0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
	0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
	0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
	0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
	0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
	0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
	0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
	0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
	0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
	0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
	0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
	0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
	0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
	0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
	0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
	0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
	0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
	0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t ftpu_crc32_update(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (n--)
		crc = crc32_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

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
	case FTPU_LINK_CONTROL: return "CONTROL";
	case FTPU_LINK_PROGRAM: return "PROGRAM";
	case FTPU_LINK_RESPONSE: return "RESPONSE";
	case FTPU_LINK_DATA: return "DATA";
	case FTPU_LINK_EVENT: return "EVENT";
	case FTPU_LINK_ERROR: return "ERROR";
	}
	return "UNKNOWN";
}

const char *ftpu_link_err_name(unsigned int code)
{
	switch (code) {
	case FTPU_LINK_ERR_BAD_HEADER_CRC: return "BAD_HEADER_CRC";
	case FTPU_LINK_ERR_BAD_PAYLOAD_CRC: return "BAD_PAYLOAD_CRC";
	case FTPU_LINK_ERR_BAD_LENGTH: return "BAD_LENGTH";
	case FTPU_LINK_ERR_UNKNOWN_TYPE: return "UNKNOWN_TYPE";
	case FTPU_LINK_ERR_OVERFLOW: return "OVERFLOW";
	case FTPU_LINK_ERR_TIMEOUT: return "TIMEOUT";
	}
	return "UNKNOWN";
}

int ftpu_link_encode(unsigned int type, uint16_t seq, uint16_t credit,
		     const uint32_t *payload, size_t n, void *out, size_t cap)
{
	uint8_t *p = out;
	size_t i;

	if (!ftpu_link_type_valid(type) || n > FTPU_LINK_MAX_PAYLOAD ||
	    (n && !payload) || !out || cap < FTPU_LINK_FRAME_BYTES(n))
		return FTPU_ERR_INVALID;

	ftpu_link_put_le32(p, FTPU_LINK_SYNC);
	ftpu_link_put_le32(p + 4, FTPU_LINK_W1(type, 0, seq));
	ftpu_link_put_le32(p + 8, FTPU_LINK_W2(n, credit));
	ftpu_link_put_le32(p + 12, ftpu_crc32_update(0, p, 12));
	p += FTPU_LINK_HEADER_BYTES;
	for (i = 0; i < n; i++)
		ftpu_link_put_le32(p + 4 * i, payload[i]);
	ftpu_link_put_le32(p + 4 * n, ftpu_crc32_update(0, p, 4 * n));
	return (int)FTPU_LINK_FRAME_BYTES(n);
}

int ftpu_link_info_get(const uint32_t *payload, size_t n, uint32_t key,
		       uint32_t *value)
{
	size_t i;

	if (!payload || !value)
		return FTPU_ERR_INVALID;
	if (n < 2 || (n - 2) % 2 || payload[0] != FTPU_LINK_OP_INFO ||
	    payload[1] != FTPU_LINK_RESP_OK)
		return FTPU_ERR_PROTOCOL;
	for (i = 2; i < n; i += 2) {
		if (payload[i] == key) {
			*value = payload[i + 1];
			return FTPU_OK;
		}
	}
	return FTPU_ERR_NOT_FOUND;
}

/* ---- receiver ------------------------------------------------------------ */

enum rx_state {
	ST_HUNT, /* hdr holds a SYNC prefix or a partial/complete header */
	ST_PAYLOAD, /* receiving payload + PCRC of an admitted header */
	ST_SKIP, /* discarding payload + PCRC of a rejected good header */
};

static const uint8_t sync_bytes[4] = { 'F', 'T', 'P', 'U' };

static void rx_error(struct ftpu_link_rx *rx, const struct ftpu_link_rx_cb *cb,
		     unsigned int code, uint32_t seq, uint32_t type)
{
	struct ftpu_link_error e = { .code = code, .seq = seq, .type = type };

	rx->stats.errors[code]++;
	if (cb && cb->error)
		cb->error(cb->ctx, &e);
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
		rx_error(rx, cb, FTPU_LINK_ERR_BAD_HEADER_CRC, FTPU_LINK_UNKNOWN,
			 FTPU_LINK_UNKNOWN);
		return false;
	}
	h->type = (uint8_t)w1;
	h->flags = (uint8_t)(w1 >> 8);
	h->seq = (uint16_t)(w1 >> 16);
	h->len = (uint16_t)w2;
	h->credit = (uint16_t)(w2 >> 16);
	if (h->len > FTPU_LINK_MAX_PAYLOAD) {
		rx_error(rx, cb, FTPU_LINK_ERR_BAD_LENGTH, h->seq, h->type);
		return false;
	}

	if (!ftpu_link_type_valid(h->type))
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
	rx->crc = 0;
	rx->word = 0;
	if (code) {
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

/* Takes up to n bytes of payload + PCRC; returns how many it took. */
static size_t rx_payload(struct ftpu_link_rx *rx,
			 const struct ftpu_link_rx_cb *cb, const uint8_t *p,
			 size_t n)
{
	uint32_t plen = 4u * rx->h.len;
	size_t take = n < rx->todo ? n : rx->todo;
	size_t i;

	if (rx->got < plen) {
		size_t k = plen - rx->got < take ? plen - rx->got : take;

		rx->crc = ftpu_crc32_update(rx->crc, p, k);
	}
	for (i = 0; i < take; i++) {
		unsigned int sh = 8u * (rx->got & 3u);

		rx->word |= (uint32_t)p[i] << sh;
		if ((rx->got & 3u) == 3u && rx->got < plen) {
			rx->buf[rx->got / 4u] = rx->word;
			rx->word = 0;
		}
		rx->got++;
	}
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
		rx->stats.bytes_dropped += FTPU_LINK_HEADER_BYTES + (uint64_t)rx->got;
		rx->state = ST_HUNT;
	}
	return take;
}

int ftpu_link_rx_init(struct ftpu_link_rx *rx, uint32_t *buf, size_t cap)
{
	if (!rx || (!buf && cap))
		return FTPU_ERR_INVALID;
	memset(rx, 0, sizeof(*rx));
	rx->buf = buf;
	rx->cap = cap;
	rx->state = ST_HUNT;
	return FTPU_OK;
}

int ftpu_link_rx_push(struct ftpu_link_rx *rx, const void *data, size_t n,
		      const struct ftpu_link_rx_cb *cb)
{
	const uint8_t *p = data;
	size_t i = 0;

	if (!rx || !cb || (!data && n))
		return FTPU_ERR_INVALID;
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
	return FTPU_OK;
}

/* Accounts the pending bytes as skipped or dropped and searches again. */
static void rx_abandon(struct ftpu_link_rx *rx)
{
	if (rx->state == ST_HUNT)
		rx->stats.bytes_skipped += rx->hlen;
	else
		rx->stats.bytes_dropped +=
			FTPU_LINK_HEADER_BYTES + (uint64_t)rx->got;
	rx->hlen = 0;
	rx->state = ST_HUNT;
}

int ftpu_link_rx_timeout(struct ftpu_link_rx *rx,
			 const struct ftpu_link_rx_cb *cb)
{
	if (!rx || !cb)
		return FTPU_ERR_INVALID;
	if (rx->state == ST_PAYLOAD)
		rx_error(rx, cb, FTPU_LINK_ERR_TIMEOUT, rx->h.seq, rx->h.type);
	else if (rx->state == ST_HUNT && rx->hlen >= 4)
		rx_error(rx, cb, FTPU_LINK_ERR_TIMEOUT, FTPU_LINK_UNKNOWN,
			 FTPU_LINK_UNKNOWN);
	rx_abandon(rx);
	return FTPU_OK;
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
