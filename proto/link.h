/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link.h - the ftpu link protocol (docs/protocol.md) in C: CRC-32, frame
 * encoding and an incremental, resynchronizing frame receiver.
 *
 * This is the reference implementation of docs/protocol.md: the host
 * driver, the C model of the device and the RTL tests use it, and an RTL
 * receiver must deliver the same frames and errors for the same bytes.
 *
 * Words are 32-bit little-endian on the wire; every word handed to or
 * returned by these functions is in host order.
 */
#ifndef FTPU_LINK_H
#define FTPU_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crc32.h"

/* The protocol's numbers (version, SYNC, sizes, frame types, error codes,
 * CONTROL ops, response status, INFO keys, counters, STATUS words, states,
 * events): ftpu_spec.h, generated from spec/ftpu.toml. */
#include "ftpu_spec.h"

/*
 * Bytes on the wire of a frame with n payload words: header, payload, PCRC.
 * HCRC = CRC-32 of w0..w2; PCRC = CRC-32 of w0..w2 followed by the payload,
 * i.e. ftpu_crc32_update(HCRC, payload bytes, 4 n).
 */
#define FTPU_LINK_FRAME_BYTES(n) (FTPU_LINK_HEADER_BYTES + 4u * ((unsigned)(n) + 1u))
#define FTPU_LINK_MAX_FRAME_BYTES FTPU_LINK_FRAME_BYTES(FTPU_LINK_MAX_PAYLOAD)
/* struct ftpu_link_error: seq or type of a frame whose header was
 * unreadable. On the wire, ERROR payload words w1 and w2 carry it as
 * FTPU_LINK_SEQ_UNKNOWN and FTPU_LINK_TYPE_UNKNOWN. */
#define FTPU_LINK_UNKNOWN 0xFFFFFFFFu

/* Header words: w1 = type | flags | seq, w2 = len | credit (the fields'
 * positions: FTPU_LINK_FIELD_*). */
#define FTPU_LINK_PUT(v, f)                                                    \
	(((uint32_t)(v) & ((1u << FTPU_LINK_FIELD_##f##_WIDTH) - 1u))          \
	 << FTPU_LINK_FIELD_##f##_LSB)
#define FTPU_LINK_GET(w, f)                                                    \
	((uint32_t)(w) >> FTPU_LINK_FIELD_##f##_LSB &                          \
	 ((1u << FTPU_LINK_FIELD_##f##_WIDTH) - 1u))
#define FTPU_LINK_W1(type, flags, seq)                                         \
	(FTPU_LINK_PUT(type, TYPE) | FTPU_LINK_PUT(flags, FLAGS) |             \
	 FTPU_LINK_PUT(seq, SEQ))
#define FTPU_LINK_W2(len, credit)                                              \
	(FTPU_LINK_PUT(len, LEN) | FTPU_LINK_PUT(credit, CREDIT))

/* CRC-32: crc32.h (ftpu_crc32_update). */

/* True for the six frame types of enum ftpu_link_type. */
bool ftpu_link_type_valid(unsigned int type);

/* A static name for a frame type or error code ("UNKNOWN" otherwise). */
const char *ftpu_link_type_name(unsigned int type);
const char *ftpu_link_err_name(unsigned int code);

/*
 * Writes one frame (flags 0) into out: FTPU_LINK_FRAME_BYTES(n) bytes.
 * Returns that byte count, or FTPU_ERR_INVALID when type is not one of
 * enum ftpu_link_type, n > FTPU_LINK_MAX_PAYLOAD, payload is NULL with
 * n > 0, out is NULL or cap is too small; out is not written then.
 */
int ftpu_link_encode(unsigned int type, uint16_t seq, uint16_t credit,
		     const uint32_t *payload, size_t n, void *out, size_t cap);

/*
 * The 16 header bytes (SYNC, W1, W2, HCRC) of a frame with n payload words,
 * for senders that stream the payload instead of encoding the frame in one
 * buffer (the soft device, firmware/soc/): the PCRC is then
 * ftpu_crc32_update(HCRC, payload bytes), i.e. ftpu_crc32_word() over the
 * payload words from the returned HCRC. Returns the HCRC. Checks nothing:
 * type, flags (at most 0xff) and n (at most FTPU_LINK_MAX_PAYLOAD) are the
 * caller's to get right, as ftpu_link_encode_flags() checks them.
 */
uint32_t ftpu_link_encode_header(unsigned int type, unsigned int flags,
				 uint16_t seq, uint16_t credit, size_t n,
				 uint8_t out[FTPU_LINK_HEADER_BYTES]);

/* ftpu_link_encode with the reserved flags byte set (tests of receivers,
 * which must ignore it). Also FTPU_ERR_INVALID when flags > 0xff. */
int ftpu_link_encode_flags(unsigned int type, unsigned int flags, uint16_t seq,
			   uint16_t credit, const uint32_t *payload, size_t n,
			   void *out, size_t cap);

/* Little-endian word access for byte buffers. */
static inline uint32_t ftpu_link_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void ftpu_link_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/*
 * Looks key up in an INFO response payload (op, status, key/value pairs).
 * Returns FTPU_OK and sets *value, FTPU_ERR_NOT_FOUND when the key is
 * absent, FTPU_ERR_PROTOCOL when the payload is not a well-formed INFO
 * response with status OK (too short, odd pair count, wrong op), and
 * FTPU_ERR_INVALID for NULL pointers.
 */
int ftpu_link_info_get(const uint32_t *payload, size_t n, uint32_t key,
		       uint32_t *value);

/* ---- receiver ------------------------------------------------------------ */

/* A frame that passed both CRCs. payload lives in the receiver's buffer
 * and is valid only during the callback. */
struct ftpu_link_frame {
	uint8_t type;
	uint8_t flags; /* reserved: delivered as received, 0 from conforming
			  senders */
	uint16_t seq;
	uint16_t credit;
	uint16_t len; /* payload words */
	const uint32_t *payload;
};

/* A receive error; seq and type are FTPU_LINK_UNKNOWN when the header was
 * unreadable (BAD_HEADER_CRC, TIMEOUT inside the header). */
struct ftpu_link_error {
	unsigned int code; /* enum ftpu_link_err */
	uint32_t seq;
	uint32_t type;
};

/* Which frame types a receiver takes; the others are UNKNOWN_TYPE. */
enum ftpu_link_role {
	FTPU_LINK_ROLE_ANY = 0, /* all six types (tests, loopback, sniffers) */
	FTPU_LINK_ROLE_DEVICE = 1, /* CONTROL, PROGRAM */
	FTPU_LINK_ROLE_HOST = 2,   /* RESPONSE, DATA, EVENT, ERROR */
};

/* A header that passed its checks and the receiver's own length and type
 * checks, offered to the admit callback. */
struct ftpu_link_header {
	uint8_t type;
	uint8_t flags;
	uint16_t seq;
	uint16_t credit;
	uint16_t len;
};

/*
 * Callbacks of ftpu_link_rx_push; each may be NULL. admit decides on a good
 * header before its payload arrives: return 0 to receive the frame, or an
 * enum ftpu_link_err code to report that error and skip the whole frame (a
 * device: OVERFLOW when a PROGRAM frame exceeds its free words or a CONTROL
 * frame its mailbox, docs/protocol.md §6); other non-zero values count as
 * OVERFLOW. Callbacks may read the receiver (ftpu_link_rx_ack, stats) but
 * must not push into it, time it out or reset it.
 */
struct ftpu_link_rx_cb {
	int (*admit)(void *ctx, const struct ftpu_link_header *h);
	void (*frame)(void *ctx, const struct ftpu_link_frame *f);
	void (*error)(void *ctx, const struct ftpu_link_error *e);
	void *ctx;
};

struct ftpu_link_stats {
	uint64_t bytes_in;	/* every byte pushed */
	uint64_t bytes_ok;	/* bytes of delivered frames */
	uint64_t bytes_skipped; /* discarded while searching for SYNC */
	uint64_t bytes_dropped; /* of frames dropped after a good header */
	uint64_t frames_ok;
	uint64_t errors[FTPU_LINK_ERR_MAX + 1]; /* by code; [0] unused */
};

/* Receiver state. Caller-allocated; the fields other than stats are
 * private. bytes_in = bytes_ok + bytes_skipped + bytes_dropped +
 * ftpu_link_rx_pending() at every return. */
struct ftpu_link_rx {
	struct ftpu_link_stats stats;
	uint32_t *buf; /* payload words, caller's */
	size_t cap;    /* words in buf */
	int role;      /* enum ftpu_link_role */
	int32_t ack;   /* see ftpu_link_rx_ack() */
	int state;
	unsigned int hlen; /* bytes in hdr */
	uint8_t hdr[FTPU_LINK_HEADER_BYTES];
	struct ftpu_link_header h; /* of the frame being received */
	uint32_t todo;		   /* payload + PCRC bytes still to come */
	uint32_t got;		   /* payload + PCRC bytes received */
	uint32_t crc;		   /* running PCRC, seeded with the HCRC */
	uint32_t word;		   /* partial word being assembled */
};

/*
 * Initializes rx to search for a frame, with buf (cap words, not written
 * outside) to receive payloads: frames longer than cap (and at most
 * FTPU_LINK_MAX_PAYLOAD) are reported as OVERFLOW and skipped. The role is
 * FTPU_LINK_ROLE_ANY. Returns FTPU_ERR_INVALID when rx is NULL or buf is
 * NULL with cap > 0.
 */
int ftpu_link_rx_init(struct ftpu_link_rx *rx, uint32_t *buf, size_t cap);

/* Sets which types rx takes (docs/protocol.md §3). Returns
 * FTPU_ERR_INVALID for a NULL rx or an unknown role. */
int ftpu_link_rx_set_role(struct ftpu_link_rx *rx, enum ftpu_link_role role);

/* The seq of the last frame rx finished with a valid header (accepted, or
 * dropped with an error), -1 before any: a device's acknowledged seq
 * (docs/protocol.md §5). -1 for NULL. */
int32_t ftpu_link_rx_ack(const struct ftpu_link_rx *rx);

/*
 * Feeds n received bytes; calls cb->frame for every good frame and
 * cb->error for every receive error, in stream order, before returning.
 * Frames may be split across calls anywhere. Never allocates or blocks;
 * the work per byte is bounded. Returns FTPU_OK, or FTPU_ERR_INVALID when
 * rx or cb is NULL or data is NULL with n > 0 (nothing consumed then).
 */
int ftpu_link_rx_push(struct ftpu_link_rx *rx, const void *data, size_t n,
		      const struct ftpu_link_rx_cb *cb);

/*
 * The transport saw no byte for its timeout while ftpu_link_rx_pending()
 * was non-zero: abandons the partial frame and searches again. Reports
 * TIMEOUT when a SYNC had been received and no error had been reported
 * for the frame yet. Returns FTPU_ERR_INVALID for NULL arguments.
 */
int ftpu_link_rx_timeout(struct ftpu_link_rx *rx,
			 const struct ftpu_link_rx_cb *cb);

/* Bytes held by the receiver: part of a frame, or of a SYNC, not yet
 * accounted as delivered, skipped or dropped. 0 for NULL. */
size_t ftpu_link_rx_pending(const struct ftpu_link_rx *rx);

/* Forgets the partial frame (pending bytes count as skipped or dropped)
 * and searches again; stats are kept. Does nothing for NULL. */
void ftpu_link_rx_reset(struct ftpu_link_rx *rx);

#endif /* FTPU_LINK_H */
