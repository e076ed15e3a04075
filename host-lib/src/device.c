/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device.c - the runtime: devices opened by URI, the link protocol spoken
 * over a transport (host-lib/src/transports/transport.h), programs executed under the
 * protocol's flow control (docs/protocol.md §5, §6), stats from the
 * device's counters.
 *
 * The host side of flow control: every D->H frame carries the credit C (free
 * receive-buffer words) and a seq s (the acknowledged seq, or for a
 * RESPONSE its request's). The host keeps the PROGRAM frames it sent in a
 * ring; those after s are in flight, and a frame of L words goes out only
 * when L + 2 + in flight <= C. Frames are at most FRAME_WORDS long so the
 * device starts on a program before all of it has arrived.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "isa.h"
#include "link.h"
#include "transport.h"
#include "uri.h"

enum {
	FRAME_WORDS = 1024,   /* PROGRAM frame payload the runtime sends */
	RING = 1024,          /* PROGRAM frames in flight, at most */
	READ_CHUNK = 65536,
	DEFAULT_TIMEOUT_MS = 30000,
};

struct sent_frame {
	uint16_t seq;
	uint32_t words; /* len + 2: what it takes of the receive buffer */
};

struct ftpu_device {
	pthread_mutex_t lock;
	const struct ftpu_transport_ops *ops;
	void *ctx;
	struct ftpu_device_info info;
	unsigned timeout_ms;
	bool failed; /* a timeout or protocol error: only ftpu_reset helps */

	/* link state */
	uint16_t seq;        /* of the last frame sent */
	uint32_t credit;     /* from the latest D->H frame */
	uint16_t ack;        /* its seq */
	bool have_credit;
	struct sent_frame ring[RING];
	size_t ring_head, ring_len;
	uint64_t inflight;   /* words of the frames in the ring */
	uint32_t sync_tag;

	struct ftpu_link_rx rx;
	uint32_t rx_buf[FTPU_LINK_MAX_PAYLOAD];
	uint8_t *io;         /* frame and read buffer */

	struct ftpu_wm_resident wm;
	uint64_t runs; /* programs started and resets: ftpu__run_count() */
	struct ftpu_stats last;
	bool have_last;
	char err[256];
	ftpu_device *next_live; /* the list of open handles (live_devices) */
};

static _Thread_local char open_err[256];
static _Thread_local char transport_err[256]; /* ftpu__transport_error() */

/* ---- errors, locking ---------------------------------------------------------- */

int ftpu__fail(ftpu_device *dev, int status, const char *fmt, ...)
{
	va_list ap;
	char *buf = dev ? dev->err : open_err;
	size_t len = dev ? sizeof(dev->err) : sizeof(open_err);

	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	/* a message cut short says so rather than stopping mid-word */
	if (n >= (int)len)
		memcpy(buf + len - 4, "...", 4);
	return status;
}

/* s as a message shows it: at most max bytes, the rest elided with "...". */
static const char *shown(const char *s, char *buf, size_t len, size_t max)
{
	if (strlen(s) <= max)
		return s;
	snprintf(buf, len, "%.*s...", (int)(max < len - 4 ? max : len - 4), s);
	return buf;
}

/*
 * The handles ftpu_open returned and ftpu_close has not closed. A call on
 * a closed handle is undefined (ftpu.h), but every public call looks its
 * handle up here first, comparing pointers only, so that a stale one is
 * FTPU_ERR_STATE instead of a lock of freed memory (a hang) or a crash.
 * Only a handle whose memory a later ftpu_open got again passes.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static ftpu_device *live_devices;

static bool is_live(const ftpu_device *dev)
{
	bool found = false;
	pthread_mutex_lock(&live_lock);
	for (const ftpu_device *d = live_devices; d && !found; d = d->next_live)
		found = d == dev;
	pthread_mutex_unlock(&live_lock);
	return found;
}

/* Takes dev off the list; false when it was not on it. */
static bool unlist(ftpu_device *dev)
{
	bool found = false;
	pthread_mutex_lock(&live_lock);
	for (ftpu_device **d = &live_devices; *d; d = &(*d)->next_live)
		if (*d == dev) {
			*d = dev->next_live;
			found = true;
			break;
		}
	pthread_mutex_unlock(&live_lock);
	return found;
}

int ftpu__check_device(const ftpu_device *dev, const char *fn)
{
	if (!dev)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "%s: device is NULL", fn);
	if (!is_live(dev))
		return ftpu__fail(NULL, FTPU_ERR_STATE,
				  "%s: not an open device (closed already?)", fn);
	return FTPU_OK;
}

const char *ftpu_last_error(const ftpu_device *dev)
{
	if (dev && !is_live(dev))
		return "not an open device (closed already?)";
	return dev ? dev->err : open_err;
}

void ftpu__lock(ftpu_device *dev) { pthread_mutex_lock(&dev->lock); }
void ftpu__unlock(ftpu_device *dev) { pthread_mutex_unlock(&dev->lock); }

void ftpu__transport_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(transport_err, sizeof(transport_err), fmt, ap);
	va_end(ap);
}

/* The transport's reason for a failed read or write, into dev->err. */
static int transport_fail(ftpu_device *dev, int status, const char *what)
{
	if (transport_err[0])
		return ftpu__fail(dev, status, "%s: %s", what, transport_err);
	return ftpu__fail(dev, status, "%s: %s", what, ftpu_strerror(status));
}

const struct ftpu_device_info *ftpu__info(const ftpu_device *dev) { return &dev->info; }

struct ftpu_wm_resident *ftpu__wm_resident(ftpu_device *dev) { return &dev->wm; }

uint64_t ftpu__run_count(const ftpu_device *dev) { return dev->runs; }

void ftpu__stats_finish(struct ftpu_stats *st, const struct ftpu_device_info *info)
{
	double pe = (double)info->rows * info->cols;
	double compute = (double)st->macs / pe;
	double in = (double)st->bytes_in, out = (double)st->bytes_out;
	double link = (in > out ? in : out) / (double)(info->link_bytes ? info->link_bytes : 1);
	st->utilization = st->cycles ? (double)st->macs / (pe * (double)st->cycles) : 0.0;
	st->roofline = compute > 0 ? compute / (compute > link ? compute : link) : 0.0;
}

void ftpu__set_last_stats(ftpu_device *dev, const struct ftpu_stats *st)
{
	dev->last = *st;
	dev->have_last = true;
}

unsigned ftpu_version(void) { return FTPU_VERSION; }
unsigned ftpu_protocol_version(void)
{
	return FTPU_LINK_VERSION_MAJOR << 16 | FTPU_LINK_VERSION_MINOR;
}

/* A monotonic clock in seconds, for every timeout and timing in libftpu. */
double ftpu__now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A failure that leaves the link in an unknown state. */
static int fail_hard(ftpu_device *dev, int status, const char *what)
{
	dev->failed = true;
	dev->wm.valid = false;
	if (what != dev->err)
		ftpu__fail(dev, status, "%s", what);
	return status;
}

/* ---- receiving ------------------------------------------------------------------ */

/* What the receive callbacks are waiting for. */
struct wait {
	ftpu_device *dev;
	/* a RESPONSE */
	bool want_rsp, got_rsp;
	bool resync; /* after a failure: skip all but that RESPONSE */
	bool refused; /* resync: the device refused that request (OVERFLOW) */
	uint16_t rsp_seq;
	uint32_t rsp[2 + 2 * 16];
	size_t rsp_len;
	/* a program */
	struct ftpu_exec *x;
	bool synced, faulted;
	uint32_t fault[3];
	int status; /* first error */
};

/* D->H frames with a seq at or before s acknowledge those PROGRAM frames. */
static void acknowledge(ftpu_device *dev, uint16_t s, uint16_t credit)
{
	while (dev->ring_len) {
		struct sent_frame *f = &dev->ring[dev->ring_head];
		uint16_t after = (uint16_t)(f->seq - s);
		if (after != 0 && after < 0x8000u)
			break; /* sent after s: still in flight */
		dev->inflight -= f->words;
		dev->ring_head = (dev->ring_head + 1) % RING;
		dev->ring_len--;
	}
	dev->credit = credit;
	dev->ack = s;
	dev->have_credit = true;
}

static void on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct wait *w = ctx;
	ftpu_device *dev = w->dev;

	acknowledge(dev, f->seq, f->credit);
	if (w->status)
		return;
	if (w->resync && f->type == FTPU_LINK_ERROR && f->len >= 2 &&
	    f->payload[0] == FTPU_LINK_ERR_OVERFLOW && (uint16_t)f->payload[1] == w->rsp_seq) {
		/* the CONTROL mailbox still held an abandoned request */
		w->refused = true;
		return;
	}
	if (w->resync && !(f->type == FTPU_LINK_RESPONSE && f->seq == w->rsp_seq))
		return; /* left over from before the failure */
	switch (f->type) {
	case FTPU_LINK_RESPONSE:
		if (!w->want_rsp || w->got_rsp || f->seq != w->rsp_seq || f->len < 2 ||
		    f->len > sizeof(w->rsp) / 4) {
			w->status = ftpu__fail(dev, FTPU_ERR_PROTOCOL,
					       "unexpected RESPONSE (seq %u, %u words)",
					       f->seq, f->len);
			return;
		}
		memcpy(w->rsp, f->payload, f->len * 4u);
		w->rsp_len = f->len;
		w->got_rsp = true;
		return;
	case FTPU_LINK_DATA:
		if (!w->x || w->faulted || w->x->data_got + f->len > w->x->data_words) {
			w->status = ftpu__fail(dev, FTPU_ERR_PROTOCOL,
					       "unexpected DATA frame (%u words)", f->len);
			return;
		}
		memcpy(w->x->data + w->x->data_got, f->payload, f->len * 4u);
		w->x->data_got += f->len;
		return;
	case FTPU_LINK_EVENT:
		if (w->x && f->len == 2 && f->payload[0] == FTPU_LINK_EVENT_SYNC &&
		    f->payload[1] == dev->sync_tag) {
			w->synced = true;
			return;
		}
		if (w->x && f->len == 4 && f->payload[0] == FTPU_LINK_EVENT_FAULT) {
			w->faulted = true;
			memcpy(w->fault, f->payload + 1, sizeof(w->fault));
			return;
		}
		w->status = ftpu__fail(dev, FTPU_ERR_PROTOCOL, "unexpected EVENT (%u words)",
				       f->len);
		return;
	case FTPU_LINK_ERROR:
		w->status = ftpu__fail(dev, FTPU_ERR_PROTOCOL,
				       "the device reported a link error: %s (seq %#x)",
				       f->len ? ftpu_link_err_name(f->payload[0]) : "?",
				       f->len > 1 ? f->payload[1] : 0xffffu);
		return;
	default:
		w->status = ftpu__fail(dev, FTPU_ERR_PROTOCOL, "unexpected frame type %#x",
				       f->type);
	}
}

static void on_error(void *ctx, const struct ftpu_link_error *e)
{
	struct wait *w = ctx;
	if (!w->status && !w->resync)
		w->status = ftpu__fail(w->dev, FTPU_ERR_PROTOCOL,
				       "corrupt frame from the device: %s",
				       ftpu_link_err_name(e->code));
}

/*
 * Receives what the device sends. With block, waits up to the device's
 * timeout for the first bytes; otherwise takes what is there now. Returns
 * 1 if bytes came, 0 if none, or a negative status.
 */
static int receive(ftpu_device *dev, struct wait *w, bool block)
{
	const struct ftpu_link_rx_cb cb = { .frame = on_frame, .error = on_error, .ctx = w };
	transport_err[0] = '\0';
	long n = dev->ops->read(dev->ctx, dev->io, READ_CHUNK, block ? dev->timeout_ms : 0);
	if (n < 0 && !(n == FTPU_ERR_TIMEOUT && !block)) {
		/* A timeout gets its message from the caller, which knows
		 * what it waited for. */
		if (n != FTPU_ERR_TIMEOUT || transport_err[0])
			transport_fail(dev, (int)n, "cannot receive from the device");
		return (int)n;
	}
	if (n <= 0)
		return 0;
	int ret = ftpu_link_rx_push(&dev->rx, dev->io, (size_t)n, &cb);
	if (ret)
		return ret;
	return w->status ? w->status : 1;
}

/* Waits until done(w) or an error; the wait ends after the timeout
 * without bytes. */
static int wait_for(ftpu_device *dev, struct wait *w, bool (*done)(const struct wait *))
{
	while (!done(w)) {
		int ret = receive(dev, w, true);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return FTPU_ERR_TIMEOUT;
	}
	return w->status;
}

static bool rsp_done(const struct wait *w) { return w->got_rsp || w->refused || w->status; }

/* ---- sending ------------------------------------------------------------------------ */

static int send_frame(ftpu_device *dev, unsigned type, unsigned flags,
		      const uint32_t *payload, size_t n)
{
	dev->seq++;
	int len = ftpu_link_encode_flags(type, flags, dev->seq, 0, payload, n, dev->io,
					 FTPU_LINK_MAX_FRAME_BYTES);
	if (len < 0)
		return ftpu__fail(dev, len, "cannot encode a frame of %zu words", n);
	transport_err[0] = '\0';
	int ret = dev->ops->write(dev->ctx, dev->io, (size_t)len);
	if (ret)
		return transport_fail(dev, ret, "cannot send to the device");
	return FTPU_OK;
}

/* One CONTROL request (req: op and arguments, n words) and its RESPONSE:
 * the RESPONSE's status into *status, its results (after op and status)
 * into res (cap words), their count into *got. With resync, whatever comes
 * before that RESPONSE (frames of an abandoned request or program, corrupt
 * bytes) is skipped instead of failing the request. Fails with the
 * transport's errors, FTPU_ERR_TIMEOUT (the device is then failed) and
 * FTPU_ERR_PROTOCOL for a RESPONSE to another op; a status other than OK
 * is not a failure here. */
static int request(ftpu_device *dev, const uint32_t *req, size_t n, uint32_t *status,
		   uint32_t *res, size_t cap, size_t *got, bool resync)
{
	struct wait w = { .dev = dev, .want_rsp = true, .resync = resync };
	int ret;

	if (dev->failed)
		return ftpu__fail(dev, FTPU_ERR_STATE,
				  "the device failed earlier (%s); ftpu_reset() it", dev->err);
	/* With resync, the device's one-frame CONTROL mailbox may still hold
	 * an abandoned request (a control core takes ~2000 cycles to answer
	 * one): it refuses ours with OVERFLOW, and we send it again until it
	 * is taken, for at most the timeout. */
	double deadline = ftpu__now_s() + dev->timeout_ms / 1e3;
	do {
		ret = send_frame(dev, FTPU_LINK_CONTROL, 0, req, n);
		if (ret)
			return fail_hard(dev, ret, dev->err);
		w.rsp_seq = dev->seq;
		w.refused = false;
		ret = wait_for(dev, &w, rsp_done);
	} while (!ret && w.refused && ftpu__now_s() < deadline);
	if (!ret && w.refused)
		return fail_hard(dev, FTPU_ERR_TIMEOUT, "the device kept refusing a CONTROL "
				 "request (its mailbox stayed full)");
	if (ret == FTPU_ERR_TIMEOUT)
		return fail_hard(dev, ret, "the device did not answer a CONTROL request");
	if (ret)
		return fail_hard(dev, ret, dev->err);
	if (w.rsp[0] != req[0])
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL, "CONTROL op %u answered with "
				  "op %u status %u", req[0], w.rsp[0], w.rsp[1]);
	*status = w.rsp[1];
	size_t k = w.rsp_len - 2;
	if (k > cap)
		k = cap;
	if (res)
		memcpy(res, w.rsp + 2, k * 4);
	if (got)
		*got = k;
	return FTPU_OK;
}

int ftpu__control(ftpu_device *dev, const uint32_t *req, size_t n, uint32_t *status,
		  uint32_t *res, size_t cap, size_t *got)
{
	return request(dev, req, n, status, res, cap, got, false);
}

/* One CONTROL op without arguments that must answer OK. */
static int control_sync(ftpu_device *dev, uint32_t op, uint32_t *res, size_t cap, size_t *n,
			bool resync)
{
	uint32_t status;
	int ret = request(dev, &op, 1, &status, res, cap, n, resync);
	if (ret)
		return ret;
	if (status != FTPU_LINK_RESP_OK)
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL, "CONTROL op %u answered with "
				  "op %u status %u", op, op, status);
	return FTPU_OK;
}

static int control(ftpu_device *dev, uint32_t op, uint32_t *res, size_t cap, size_t *n)
{
	return control_sync(dev, op, res, cap, n, false);
}

/* ---- execution -------------------------------------------------------------------------- */

static bool exec_done(const struct wait *w) { return w->synced || w->faulted || w->status; }

/* Sends one PROGRAM frame if the credit allows it; 1 if sent, 0 if not. */
static int try_send(ftpu_device *dev, unsigned flags, const uint32_t *words, size_t n)
{
	if (!dev->have_credit || dev->ring_len == RING || dev->inflight + n + 2 > dev->credit)
		return 0;
	int ret = send_frame(dev, FTPU_LINK_PROGRAM, flags, words, n);
	if (ret)
		return ret;
	size_t at = (dev->ring_head + dev->ring_len) % RING;
	dev->ring[at] = (struct sent_frame){ .seq = dev->seq, .words = (uint32_t)n + 2 };
	dev->ring_len++;
	dev->inflight += n + 2;
	return 1;
}

static uint64_t lohi(const uint32_t *c, int lo, int hi)
{
	return (uint64_t)c[lo] | (uint64_t)c[hi] << 32;
}

int ftpu__execute(ftpu_device *dev, struct ftpu_exec *x, struct ftpu_stats *stats)
{
	struct wait w = { .dev = dev, .x = x };
	uint32_t sync[FTPU_ISA_WORDS];
	size_t pos = 0, total, frame_max;
	bool sent_end = false;
	double t0 = ftpu__now_s();
	int ret;

	if (dev->failed)
		return ftpu__fail(dev, FTPU_ERR_STATE,
				  "the device failed earlier (%s); ftpu_reset() it", dev->err);
	if (!x || (!x->words && x->n_words) || (!x->data && x->data_words))
		return ftpu__fail(dev, FTPU_ERR_INVALID, "bad program");
	dev->runs++;
	ret = control(dev, FTPU_LINK_OP_CLEAR_COUNTERS, NULL, 0, NULL);
	if (ret)
		return ret;
	x->data_got = 0;
	dev->err[0] = '\0';
	dev->sync_tag++;
	ftpu_isa_encode(sync, FTPU_OP_SYNC, 0, 0, dev->sync_tag, 0);
	total = x->n_words + FTPU_ISA_WORDS;
	frame_max = dev->info.iq_words - 2 < FRAME_WORDS ? dev->info.iq_words - 2 : FRAME_WORDS;

	/* Short of credit with nothing coming back, the host asks with STATUS
	 * (docs/protocol.md §6), at most every `backoff` empty polls. */
	unsigned backoff = 1, polls = 0;
	double last = ftpu__now_s();
	while (!exec_done(&w)) {
		bool starved = false;
		while (pos < total && !w.faulted) {
			uint32_t buf[FRAME_WORDS];
			size_t n = total - pos < frame_max ? total - pos : frame_max;
			const uint32_t *src = buf;
			if (pos + n <= x->n_words) {
				src = x->words + pos;
			} else {
				for (size_t i = 0; i < n; i++)
					buf[i] = pos + i < x->n_words ? x->words[pos + i] :
							 sync[pos + i - x->n_words];
			}
			unsigned flags = (pos == 0 ? FTPU_PROGRAM_START : 0) |
					 (pos + n == total ? FTPU_PROGRAM_END : 0);
			ret = try_send(dev, flags, src, n);
			if (ret < 0)
				return fail_hard(dev, ret, dev->err);
			if (ret == 0) {
				starved = true;
				break;
			}
			pos += n;
			sent_end = pos == total;
			last = ftpu__now_s();
		}
		/* Everything sent: wait for answers; else take what is there. */
		ret = receive(dev, &w, !starved);
		if (ret < 0 && ret != FTPU_ERR_TIMEOUT)
			return fail_hard(dev, ret, dev->err);
		if (ret > 0) {
			last = ftpu__now_s();
			backoff = 1;
			polls = 0;
		}
		if (w.got_rsp) /* a STATUS answered: its credit is in */
			w.want_rsp = w.got_rsp = false;
		if (!starved && ret <= 0)
			return fail_hard(dev, FTPU_ERR_TIMEOUT,
					 "the device stopped answering during a program");
		if (starved && ret <= 0 && !w.want_rsp && ++polls >= backoff) {
			uint32_t op = FTPU_LINK_OP_STATUS;
			ret = send_frame(dev, FTPU_LINK_CONTROL, 0, &op, 1);
			if (ret)
				return fail_hard(dev, ret, dev->err);
			w.want_rsp = true;
			w.rsp_seq = dev->seq;
			polls = 0;
			backoff = backoff < 8 ? backoff * 2 : 8;
		}
		if (ftpu__now_s() - last > dev->timeout_ms / 1e3)
			return fail_hard(dev, FTPU_ERR_TIMEOUT,
					 "no credit from the device within the timeout");
	}
	if (w.status)
		return fail_hard(dev, w.status, dev->err);
	/* A STATUS still unanswered would confuse the next request. */
	if (w.want_rsp && !w.got_rsp) {
		ret = wait_for(dev, &w, rsp_done);
		if (ret)
			return fail_hard(dev, ret, ret == FTPU_ERR_TIMEOUT ?
					 "the device did not answer STATUS" : dev->err);
	}
	if (w.faulted) {
		/* The device discards the program up to its END: send one. */
		for (int tries = 0; !sent_end; tries++) {
			ret = try_send(dev, FTPU_PROGRAM_END, NULL, 0);
			if (ret < 0)
				return fail_hard(dev, ret, dev->err);
			if (ret > 0)
				break;
			if (tries == 8)
				return fail_hard(dev, FTPU_ERR_TIMEOUT,
						 "no credit to end a faulted program");
			ret = control(dev, FTPU_LINK_OP_STATUS, NULL, 0, NULL);
			if (ret)
				return ret;
		}
		return ftpu__fail(dev, FTPU_ERR_DEVICE,
				  "device fault %u at instruction %u (word %#010x)",
				  w.fault[1], w.fault[0], w.fault[2]);
	}

	uint32_t c[FTPU_LINK_CNT_COUNT] = { 0 };
	size_t got = 0;
	ret = control(dev, FTPU_LINK_OP_READ_COUNTERS, c, FTPU_LINK_CNT_COUNT, &got);
	if (ret)
		return ret;
	if (got < FTPU_LINK_CNT_COUNT)
		return fail_hard(dev, FTPU_ERR_PROTOCOL, "short READ_COUNTERS response");
	if (stats) {
		struct ftpu_stats st = {
			.cycles = c[FTPU_LINK_CNT_CYCLES],
			.busy = c[FTPU_LINK_CNT_BUSY],
			.idle = c[FTPU_LINK_CNT_IDLE],
			.macs = lohi(c, FTPU_LINK_CNT_MACS_LO, FTPU_LINK_CNT_MACS_HI),
			.weight_stall = c[FTPU_LINK_CNT_WEIGHT_STALL],
			.input_stall = c[FTPU_LINK_CNT_INPUT_STALL],
			.output_stall = c[FTPU_LINK_CNT_OUTPUT_STALL],
			.bytes_in = lohi(c, FTPU_LINK_CNT_BYTES_IN_LO, FTPU_LINK_CNT_BYTES_IN_HI),
			.bytes_out = lohi(c, FTPU_LINK_CNT_BYTES_OUT_LO, FTPU_LINK_CNT_BYTES_OUT_HI),
			.instructions = c[FTPU_LINK_CNT_INSTRUCTIONS],
		};
		ftpu__stats_finish(&st, &dev->info);
		st.host_seconds = ftpu__now_s() - t0;
		*stats = st;
	}
	return FTPU_OK;
}

/* ---- opening ---------------------------------------------------------------------------- */

static const struct ftpu_transport_ops *const transports[] = {
	&ftpu_transport_sim,
	&ftpu_transport_ref,
	&ftpu_transport_uart,
	&ftpu_transport_usb,
	&ftpu_transport_xdma,
};

const struct ftpu_transport_ops *const *ftpu__transports(size_t *n)
{
	*n = sizeof(transports) / sizeof(transports[0]);
	return transports;
}

/* ftpu.h's masks are the spec's bits. */
_Static_assert(FTPU_FEATURE_VECTOR_UNIT == 1u << FTPU_FEATURE_VECTOR_UNIT_LSB,
	       "FTPU_FEATURE_VECTOR_UNIT");
_Static_assert(FTPU_FEATURE_IN_ORDER == 1u << FTPU_FEATURE_IN_ORDER_LSB, "FTPU_FEATURE_IN_ORDER");

/* Reads INFO into dev->info; also the first credit. */
static int read_info(ftpu_device *dev)
{
	uint32_t r[2 + 2 * 16];
	struct wait w = { .dev = dev, .want_rsp = true };
	uint32_t op = FTPU_LINK_OP_INFO, v;
	int ret = send_frame(dev, FTPU_LINK_CONTROL, 0, &op, 1);
	if (ret)
		return ret;
	w.rsp_seq = dev->seq;
	ret = wait_for(dev, &w, rsp_done);
	if (ret)
		return ftpu__fail(dev, ret, "no answer to INFO: %s",
				  ret == FTPU_ERR_TIMEOUT ? "timed out" : dev->err);
	memcpy(r, w.rsp, w.rsp_len * 4);
	static const struct { uint32_t key; size_t off; } keys[] = {
		{ FTPU_LINK_INFO_VERSION, offsetof(struct ftpu_device_info, protocol) },
		{ FTPU_LINK_INFO_ROWS, offsetof(struct ftpu_device_info, rows) },
		{ FTPU_LINK_INFO_COLS, offsetof(struct ftpu_device_info, cols) },
		{ FTPU_LINK_INFO_ROW_DELAY, offsetof(struct ftpu_device_info, row_delay) },
		{ FTPU_LINK_INFO_UB_VECTORS, offsetof(struct ftpu_device_info, ub_vectors) },
		{ FTPU_LINK_INFO_WEIGHT_TILES, offsetof(struct ftpu_device_info, weight_tiles) },
		{ FTPU_LINK_INFO_ACC_VECTORS, offsetof(struct ftpu_device_info, acc_vectors) },
		{ FTPU_LINK_INFO_BIAS_VECTORS, offsetof(struct ftpu_device_info, bias_vectors) },
		{ FTPU_LINK_INFO_IQ_WORDS, offsetof(struct ftpu_device_info, iq_words) },
		{ FTPU_LINK_INFO_CLOCK_HZ, offsetof(struct ftpu_device_info, clock_hz) },
		{ FTPU_LINK_INFO_MAX_PAYLOAD, offsetof(struct ftpu_device_info, max_payload) },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		ret = ftpu_link_info_get(r, w.rsp_len, keys[i].key, &v);
		if (ret)
			return ftpu__fail(dev, FTPU_ERR_PROTOCOL, "INFO lacks key %u", keys[i].key);
		/* every field is 32 bits wide (unsigned or uint32_t) */
		memcpy((char *)&dev->info + keys[i].off, &v, sizeof(v));
	}
	/* protocol 1.1's key; a 1.0 device has no optional units */
	dev->info.features = ftpu_link_info_get(r, w.rsp_len, FTPU_LINK_INFO_FEATURES, &v)
		? 0 : v;
	/* protocol 1.2's key; an older device moves a byte a cycle */
	dev->info.link_bytes = ftpu_link_info_get(r, w.rsp_len, FTPU_LINK_INFO_LINK_BYTES, &v)
		? 1 : v;
	if (dev->info.protocol >> 16 != FTPU_LINK_VERSION_MAJOR)
		return ftpu__fail(dev, FTPU_ERR_UNSUPPORTED, "the device speaks protocol %u.%u",
				  dev->info.protocol >> 16, dev->info.protocol & 0xffffu);
	if (dev->info.rows != dev->info.cols || dev->info.rows < 2 || dev->info.rows % 2 ||
	    dev->info.iq_words < 8 || !dev->info.ub_vectors || !dev->info.weight_tiles ||
	    !dev->info.acc_vectors || !dev->info.bias_vectors || !dev->info.link_bytes ||
	    dev->info.link_bytes > 64)
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL, "the device reports unusable sizes");
	return FTPU_OK;
}

static void destroy(ftpu_device *dev)
{
	dev->ops->close(dev->ctx);
	pthread_mutex_destroy(&dev->lock);
	free(dev->io);
	free(dev);
}

int ftpu_open(const char *uri, ftpu_device **out)
{
	return ftpu__open_timeout(uri, DEFAULT_TIMEOUT_MS, out);
}

int ftpu__open_timeout(const char *uri, unsigned timeout_ms, ftpu_device **out)
{
	const struct ftpu_transport_ops *ops = NULL;
	const char *opts = "";
	size_t slen;
	ftpu_device *dev;
	int ret;

	open_err[0] = '\0';
	if (!out)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_open: out is NULL");
	if (!uri || !uri[0])
		uri = "sim";
	/* messages name the URI, a long one elided so the rest still fits */
	char ushort[72];
	const char *ushown = shown(uri, ushort, sizeof(ushort), 64);
	ftpu__uri_split(uri, &slen, &opts);
	for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (strlen(transports[i]->scheme) == slen &&
		    !memcmp(uri, transports[i]->scheme, slen))
			ops = transports[i];
	if (!ops)
		return ftpu__fail(NULL, FTPU_ERR_NOT_FOUND,
				  "unknown device URI \"%s\" (known: sim[:OPTIONS], ref, "
				  "uart:TTY[@BAUD], usb:VID:PID[:SERIAL], xdma:/dev/xdmaN)", ushown);

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "out of memory");
	dev->io = malloc(READ_CHUNK > FTPU_LINK_MAX_FRAME_BYTES ? READ_CHUNK :
			 FTPU_LINK_MAX_FRAME_BYTES);
	if (!dev->io || pthread_mutex_init(&dev->lock, NULL)) {
		free(dev->io);
		free(dev);
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "out of memory");
	}
	dev->ops = ops;
	dev->timeout_ms = timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS;
	ftpu_link_rx_init(&dev->rx, dev->rx_buf, FTPU_LINK_MAX_PAYLOAD);
	ftpu_link_rx_set_role(&dev->rx, FTPU_LINK_ROLE_HOST);
	snprintf(dev->info.transport, sizeof(dev->info.transport), "%s", ops->scheme);

	/* the transport's reason names its options (a path, ...): it gets
	 * room for a long one, and a cut one ends in "..." */
	char terr[1024] = "";
	ret = ops->open(opts, &dev->ctx, terr, sizeof(terr));
	if (ret) {
		if (strlen(terr) == sizeof(terr) - 1)
			memcpy(terr + sizeof(terr) - 4, "...", 4);
		ftpu__fail(NULL, ret, "%s", terr);
		pthread_mutex_destroy(&dev->lock);
		free(dev->io);
		free(dev);
		return ret;
	}
	ret = read_info(dev);
	if (ret) {
		ftpu__fail(NULL, ret, "%s: %s", ushown, dev->err);
		destroy(dev);
		return ret;
	}
	pthread_mutex_lock(&live_lock);
	dev->next_live = live_devices;
	live_devices = dev;
	pthread_mutex_unlock(&live_lock);
	*out = dev;
	return FTPU_OK;
}

int ftpu_close(ftpu_device *dev)
{
	if (!dev)
		return FTPU_OK;
	if (!unlist(dev))
		return ftpu__fail(NULL, FTPU_ERR_STATE,
				  "ftpu_close: not an open device (closed already?)");
	destroy(dev);
	return FTPU_OK;
}

int ftpu_get_info(ftpu_device *dev, struct ftpu_device_info *info)
{
	int ret = ftpu__check_device(dev, "ftpu_get_info");
	if (ret)
		return ret;
	if (!info)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_get_info: NULL argument");
	ftpu__lock(dev);
	*info = dev->info;
	ftpu__unlock(dev);
	return FTPU_OK;
}

int ftpu_set_timeout(ftpu_device *dev, unsigned timeout_ms)
{
	int ret = ftpu__check_device(dev, "ftpu_set_timeout");
	if (ret)
		return ret;
	if (!timeout_ms)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_set_timeout: timeout 0");
	ftpu__lock(dev);
	dev->timeout_ms = timeout_ms;
	ftpu__unlock(dev);
	return FTPU_OK;
}

int ftpu_reset(ftpu_device *dev)
{
	int ret = ftpu__check_device(dev, "ftpu_reset");
	if (ret)
		return ret;
	ftpu__lock(dev);
	dev->failed = false;
	dev->runs++;
	dev->wm.valid = false;
	/* Whatever was in flight is gone with the device's receive buffer. */
	dev->ring_len = 0;
	dev->inflight = 0;
	/* After a failure the stream may still hold answers to abandoned
	 * requests, or half a frame: start the receiver afresh and skip
	 * everything up to the RESET's own RESPONSE. */
	ftpu_link_rx_init(&dev->rx, dev->rx_buf, FTPU_LINK_MAX_PAYLOAD);
	ftpu_link_rx_set_role(&dev->rx, FTPU_LINK_ROLE_HOST);
	ret = control_sync(dev, FTPU_LINK_OP_RESET, NULL, 0, NULL, true);
	ftpu__unlock(dev);
	return ret;
}

int ftpu_last_stats(ftpu_device *dev, struct ftpu_stats *stats)
{
	int ret = ftpu__check_device(dev, "ftpu_last_stats");
	if (ret)
		return ret;
	if (!stats)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_last_stats: NULL argument");
	ftpu__lock(dev);
	if (dev->have_last)
		*stats = dev->last;
	else
		ret = ftpu__fail(dev, FTPU_ERR_STATE, "no run yet");
	ftpu__unlock(dev);
	return ret;
}
