/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device_host.h - a host for whole-device tests and benchmarks: the same
 * link bytes go to the C model of the device (model/ref_device.h) and to the
 * Verilated RTL (ftpu_sim device models, rtl/ftpu_top.sv), and what comes
 * back is parsed into frames and compared.
 *
 *   dh_dev      one device behind one of two backends: write bytes, run,
 *               read bytes; a frame sender that obeys the flow control of
 *               docs/protocol.md §6 on the RTL; a D->H parser (ftpu_link_rx,
 *               role HOST) that files each frame in one of three classes.
 *   dh_prog     a program builder (ftpu_isa_encode, inline data).
 *   dh_host     the C model plus (optionally) one RTL device fed the same
 *               frames; dh_host_compare() matches the three classes.
 *   dh_gemm     a tiled GEMM for any M x K x N on an n x n device, planned
 *               and emitted by the library (gemm_plan.h) with its regions
 *               at random places, and the unpacking of its DATA frames into
 *               C (and the activation) for comparison with ftpu_ref_gemm.
 *
 * Frame classes. The RTL must send the same frames as the C model except
 * for the credit field of every frame, the seq field of DATA, EVENT and
 * ERROR frames (the acknowledged seq at send time), the time counters of
 * READ_COUNTERS (cycles, busy, the stalls, idle), and the interleaving of
 * three classes: program output (DATA and EVENT, in order), RESPONSE, and
 * ERROR. So each class is compared as a sequence, with those fields masked.
 *
 * Header-only; every function returns a status or a count and prints what
 * went wrong to stderr (no cmocka here, so benchmarks use it too). Define
 * DH_NO_SIM to build against the C model alone.
 */
#ifndef FTPU_DEVICE_HOST_H
#define FTPU_DEVICE_HOST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpu.h"
#include "gemm_plan.h"
#include "isa.h"
#include "link.h"
#include "numeric.h"
#include "ref_device.h"
#include "ftpu_test.h"
#ifndef DH_NO_SIM
#include "ftpu_sim.h"
#endif

/* ---- growable arrays ------------------------------------------------------ */

struct dh_words {
	uint32_t *w;
	size_t n, cap;
};

static inline void dh_words_push(struct dh_words *v, uint32_t w)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		uint32_t *p = realloc(v->w, cap * sizeof(*p));
		if (!p) {
			fprintf(stderr, "device_host: out of memory\n");
			abort();
		}
		v->w = p, v->cap = cap;
	}
	v->w[v->n++] = w;
}

static inline void dh_words_free(struct dh_words *v)
{
	free(v->w);
	v->w = NULL, v->n = v->cap = 0;
}

/* ---- D->H frames ------------------------------------------------------------ */

enum dh_class {
	DH_CLASS_PROGRAM = 0, /* DATA and EVENT: the program's output, in order */
	DH_CLASS_RESPONSE,
	DH_CLASS_ERROR,
	DH_CLASSES,
};

static const char *const dh_class_name[DH_CLASSES] = { "DATA/EVENT", "RESPONSE",
						       "ERROR" };

struct dh_frame {
	uint8_t type, flags;
	uint16_t seq, credit, len;
	uint32_t *payload;
};

struct dh_frames {
	struct dh_frame *f;
	size_t n, cap;
};

static inline enum dh_class dh_class_of(unsigned type)
{
	return type == FTPU_LINK_RESPONSE ? DH_CLASS_RESPONSE :
	       type == FTPU_LINK_ERROR	  ? DH_CLASS_ERROR :
					    DH_CLASS_PROGRAM;
}

static inline void dh_frames_clear(struct dh_frames *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->f[i].payload);
	fs->n = 0;
}

static inline void dh_frames_free(struct dh_frames *fs)
{
	dh_frames_clear(fs);
	free(fs->f);
	fs->f = NULL, fs->cap = 0;
}

/* ---- one device ----------------------------------------------------------- */

enum dh_backend { DH_REF, DH_RTL };

struct dh_dev {
	enum dh_backend kind;
	const char *name;
	struct ftpu_ref_device_config cfg; /* the device's shape */
	struct ftpu_ref_device *ref;
#ifndef DH_NO_SIM
	struct ftpu_sim *sim;
#endif
	/* The host's receiver and what it got, by class. */
	struct ftpu_link_rx rx;
	uint32_t *rx_buf;
	struct dh_frames cls[DH_CLASSES];
	uint64_t rx_errors; /* the host's receive errors: must stay 0 */
	uint64_t bytes_in;  /* bytes handed to the device */
	uint64_t bytes_out; /* bytes read from the device */
	/* Frame sender (RTL): obey the PROGRAM credit and the one-CONTROL
	 * mailbox; wait at most `limit` cycles for either. */
	bool flow;
	unsigned control_due; /* CONTROL frames sent, RESPONSE not yet seen */
	/* The outstanding CONTROL is a RESET: PROGRAM frames wait for its
	 * RESPONSE (docs/protocol.md §7.2: frames sent before it may or may
	 * not be discarded; the control core takes a while to act on it). */
	bool reset_due;
	uint64_t limit;
	bool hung; /* a wait ran out of cycles */
};

/* Cycles after the input queue empties before the credit is trusted: the
 * receiver commits a frame a few cycles after its last byte, and credit_o
 * does not count a frame still being received (rtl/link/ftpu_link_rx.sv). */
#define DH_COMMIT_CYCLES 8u
/* Default cycle budget of one wait. */
#define DH_DEFAULT_LIMIT 4000000u

static inline void dh_on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct dh_dev *d = ctx;
	struct dh_frames *fs = &d->cls[dh_class_of(f->type)];
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? 2 * fs->cap : 64;
		struct dh_frame *p = realloc(fs->f, cap * sizeof(*p));
		if (!p)
			abort();
		fs->f = p, fs->cap = cap;
	}
	struct dh_frame *g = &fs->f[fs->n++];
	g->type = f->type, g->flags = f->flags, g->seq = f->seq;
	g->credit = f->credit, g->len = f->len;
	g->payload = malloc((f->len + 1u) * sizeof(uint32_t));
	if (!g->payload)
		abort();
	memcpy(g->payload, f->payload, f->len * sizeof(uint32_t));
	if (f->type == FTPU_LINK_RESPONSE && d->control_due)
		d->control_due--;
	if (!d->control_due)
		d->reset_due = false;
}

static inline void dh_on_error(void *ctx, const struct ftpu_link_error *e)
{
	struct dh_dev *d = ctx;
	fprintf(stderr, "%s: host receive error %s (seq %#x type %#x)\n", d->name,
		ftpu_link_err_name(e->code), e->seq, e->type);
	d->rx_errors++;
}

static inline int dh_dev_init_common(struct dh_dev *d, const char *name)
{
	d->name = name;
	d->limit = DH_DEFAULT_LIMIT;
	d->rx_buf = malloc(FTPU_LINK_MAX_PAYLOAD * sizeof(uint32_t));
	if (!d->rx_buf)
		return FTPU_ERR_NOMEM;
	if (ftpu_link_rx_init(&d->rx, d->rx_buf, FTPU_LINK_MAX_PAYLOAD) ||
	    ftpu_link_rx_set_role(&d->rx, FTPU_LINK_ROLE_HOST))
		return FTPU_ERR_INVALID;
	return FTPU_OK;
}

/* Opens the C model with cfg. Returns FTPU_OK or the model's error. */
static inline int dh_dev_open_ref(struct dh_dev *d,
				  const struct ftpu_ref_device_config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->kind = DH_REF;
	d->cfg = *cfg;
	int ret = dh_dev_init_common(d, "ref");
	if (ret)
		return ret;
	return ftpu_ref_device_open(cfg, &d->ref);
}

#ifndef DH_NO_SIM
/* The C model's configuration of an RTL device model. */
static inline void dh_config_from_sim(const struct ftpu_sim_device_config *s,
				      struct ftpu_ref_device_config *c)
{
	*c = (struct ftpu_ref_device_config){
		.n = s->n,
		.row_delay = s->row_delay,
		.ub_vectors = s->ub_vectors,
		.wm_rows = s->wm_rows,
		.acc_vectors = s->acc_vectors,
		.bias_vectors = s->bias_vectors,
		.rx_words = s->iq_words,
		.clock_hz = s->clock_hz,
		.vector_unit = s->vector_unit != 0,
		.link_bytes = s->link_bytes,
		.in_order = s->in_order != 0,
	};
}

/* Takes an opened RTL device model (closed by dh_dev_close). Returns
 * FTPU_OK, FTPU_ERR_INVALID if sim is not a device model. */
static inline int dh_dev_open_rtl(struct dh_dev *d, struct ftpu_sim *sim,
				  const char *name)
{
	struct ftpu_sim_device_config sc;
	memset(d, 0, sizeof(*d));
	d->kind = DH_RTL;
	d->sim = sim;
	d->flow = true;
	if (!ftpu_sim_device_get_config(sim, &sc))
		return FTPU_ERR_INVALID;
	dh_config_from_sim(&sc, &d->cfg);
	return dh_dev_init_common(d, name);
}
#endif

static inline void dh_dev_clear_frames(struct dh_dev *d)
{
	for (int c = 0; c < DH_CLASSES; c++)
		dh_frames_clear(&d->cls[c]);
}

static inline void dh_dev_close(struct dh_dev *d)
{
	for (int c = 0; c < DH_CLASSES; c++)
		dh_frames_free(&d->cls[c]);
	free(d->rx_buf);
	d->rx_buf = NULL;
	if (d->ref)
		ftpu_ref_device_close(d->ref);
	d->ref = NULL;
#ifndef DH_NO_SIM
	if (d->sim)
		ftpu_sim_close(d->sim);
	d->sim = NULL;
#endif
}

/* Reads everything the device has sent into the parser. */
static inline void dh_dev_poll(struct dh_dev *d)
{
	const struct ftpu_link_rx_cb cb = { .frame = dh_on_frame,
					    .error = dh_on_error,
					    .ctx = d };
	uint8_t buf[4096];
	for (;;) {
		size_t n = 0;
		if (d->kind == DH_REF)
			n = ftpu_ref_device_read(d->ref, buf, sizeof(buf));
#ifndef DH_NO_SIM
		else
			n = ftpu_sim_device_pull(d->sim, buf, sizeof(buf));
#endif
		if (!n)
			break;
		d->bytes_out += n;
		ftpu_link_rx_push(&d->rx, buf, n, &cb);
	}
}

/* Runs n cycles (the RTL; the C model has no time) and reads the output. */
static inline void dh_dev_run(struct dh_dev *d, uint64_t n)
{
#ifndef DH_NO_SIM
	if (d->kind == DH_RTL)
		ftpu_sim_device_run(d->sim, n);
#endif
	(void)n;
	dh_dev_poll(d);
}

/* Runs until the device is idle (the C model always is). Returns false and
 * marks the device hung when d->limit cycles ran out. */
static inline bool dh_dev_wait_idle(struct dh_dev *d)
{
	bool ok = true;
#ifndef DH_NO_SIM
	if (d->kind == DH_RTL) {
		/* read as it goes, so a long output never piles up */
		uint64_t left = d->limit, ran;
		ok = false;
		while (left) {
			uint64_t step = left < 65536 ? left : 65536;
			bool idle = ftpu_sim_device_run_until_idle(d->sim, step, &ran);
			left -= ran;
			dh_dev_poll(d);
			if (idle) {
				ok = true;
				break;
			}
		}
		if (!ok) {
			fprintf(stderr, "%s: not idle after %" PRIu64 " cycles\n",
				d->name, d->limit);
			d->hung = true;
		}
	}
#endif
	dh_dev_poll(d);
	return ok;
}

/* Hands raw bytes to the device, no flow control (link abuse). */
static inline void dh_dev_write(struct dh_dev *d, const void *bytes, size_t n)
{
	d->bytes_in += n;
	if (d->kind == DH_REF) {
		if (ftpu_ref_device_write(d->ref, bytes, n))
			fprintf(stderr, "ref: write failed\n");
	}
#ifndef DH_NO_SIM
	else {
		ftpu_sim_device_push(d->sim, bytes, n);
	}
#endif
	dh_dev_poll(d);
}

#ifndef DH_NO_SIM
/* Runs the RTL until pred(d) holds, in steps; false (hung) after d->limit
 * cycles. */
static inline bool dh_dev_wait(struct dh_dev *d, bool (*pred)(struct dh_dev *, size_t),
			       size_t arg, const char *what)
{
	uint64_t waited = 0;
	while (!pred(d, arg)) {
		if (waited >= d->limit) {
			fprintf(stderr, "%s: waited %" PRIu64 " cycles for %s\n",
				d->name, waited, what);
			d->hung = true;
			return false;
		}
		ftpu_sim_device_run(d->sim, 16);
		waited += 16;
		dh_dev_poll(d);
	}
	return true;
}

static inline bool dh_pred_in_empty(struct dh_dev *d, size_t arg)
{
	(void)arg;
	return ftpu_sim_device_in_queued(d->sim) == 0;
}

static inline bool dh_pred_credit(struct dh_dev *d, size_t words)
{
	return ftpu_sim_device_credit(d->sim) >= words;
}

static inline bool dh_pred_no_control(struct dh_dev *d, size_t arg)
{
	(void)arg;
	return d->control_due == 0;
}
#endif

/* Sends one encoded frame of `len` payload words and type `type`. On the
 * RTL with d->flow: only once the bytes before it are in and committed,
 * a PROGRAM frame when len + 2 <= credit, a CONTROL frame when no other is
 * outstanding. Returns false (nothing sent, device hung) when a wait ran
 * out. */
static inline bool dh_dev_send(struct dh_dev *d, const uint8_t *bytes,
			       size_t n, unsigned type, size_t len, bool reset)
{
	bool control = type == FTPU_LINK_CONTROL && len <= FTPU_LINK_MAX_CONTROL;
#ifndef DH_NO_SIM
	if (d->kind == DH_RTL && d->flow) {
		if (!dh_dev_wait(d, dh_pred_in_empty, 0, "input to drain"))
			return false;
		dh_dev_run(d, DH_COMMIT_CYCLES);
		if (type == FTPU_LINK_PROGRAM && d->reset_due &&
		    !dh_dev_wait(d, dh_pred_no_control, 0, "the RESET's RESPONSE"))
			return false;
		if (type == FTPU_LINK_PROGRAM &&
		    !dh_dev_wait(d, dh_pred_credit, len + 2, "PROGRAM credit"))
			return false;
		if (type == FTPU_LINK_CONTROL &&
		    !dh_dev_wait(d, dh_pred_no_control, 0, "a RESPONSE"))
			return false;
	}
#endif
	if (control) {
		d->control_due++;
		d->reset_due = reset;
	}
	dh_dev_write(d, bytes, n);
	return true;
}

/* Frames of class c received so far. */
static inline const struct dh_frames *dh_dev_frames(const struct dh_dev *d,
						    enum dh_class c)
{
	return &d->cls[c];
}

/* ---- comparing two devices ------------------------------------------------ */

/* RESPONSE payload words that count time (READ_COUNTERS): not compared. */
static inline bool dh_masked_word(const struct dh_frame *f, size_t i)
{
	if (f->type != FTPU_LINK_RESPONSE || f->len < 2 ||
	    f->payload[0] != FTPU_LINK_OP_READ_COUNTERS ||
	    f->payload[1] != FTPU_LINK_RESP_OK || i < 2)
		return false;
	switch (i - 2) {
	case FTPU_LINK_CNT_CYCLES:
	case FTPU_LINK_CNT_BUSY:
	case FTPU_LINK_CNT_WEIGHT_STALL:
	case FTPU_LINK_CNT_INPUT_STALL:
	case FTPU_LINK_CNT_OUTPUT_STALL:
	case FTPU_LINK_CNT_IDLE:
		return true;
	default:
		return false;
	}
}

static inline void dh_print_frame(const char *who, const struct dh_frame *f)
{
	fprintf(stderr, "  %s: %s seq %u len %u:", who,
		ftpu_link_type_name(f->type), f->seq, f->len);
	for (size_t i = 0; i < f->len && i < 8; i++)
		fprintf(stderr, " %08" PRIx32, f->payload[i]);
	fprintf(stderr, "%s\n", f->len > 8 ? " ..." : "");
}

/*
 * Compares class c of device b with the reference a: the same number of
 * frames, each with the same type, flags, length and payload (masked as
 * above), and for RESPONSE frames the same seq. Prints the first
 * differences; returns how many frames differ (a missing frame counts).
 */
static inline size_t dh_compare_class(const struct dh_dev *a,
				      const struct dh_dev *b, enum dh_class c)
{
	const struct dh_frames *x = &a->cls[c], *y = &b->cls[c];
	size_t n = x->n > y->n ? x->n : y->n, bad = 0;
	for (size_t i = 0; i < n; i++) {
		const struct dh_frame *f = i < x->n ? &x->f[i] : NULL;
		const struct dh_frame *g = i < y->n ? &y->f[i] : NULL;
		bool same = f && g && f->type == g->type && f->flags == g->flags &&
			    f->len == g->len &&
			    (c != DH_CLASS_RESPONSE || f->seq == g->seq);
		size_t word = 0;
		for (size_t w = 0; same && w < f->len; w++)
			if (f->payload[w] != g->payload[w] && !dh_masked_word(f, w))
				same = false, word = w;
		if (same)
			continue;
		if (bad++ < 4) {
			fprintf(stderr, "%s frame %zu of %zu/%zu differs (%s vs %s)",
				dh_class_name[c], i, x->n, y->n, a->name, b->name);
			if (f && g && f->len == g->len)
				fprintf(stderr, " at word %zu: %08" PRIx32 " vs %08" PRIx32,
					word, f->payload[word], g->payload[word]);
			fprintf(stderr, "\n");
			if (f)
				dh_print_frame(a->name, f);
			if (g)
				dh_print_frame(b->name, g);
		}
	}
	return bad;
}

/* ---- programs ---------------------------------------------------------------- */

struct dh_prog {
	struct dh_words w;
	size_t instructions; /* emitted */
	uint64_t macs;       /* n * N * N per MATMUL, for an N x N device */
	size_t matmuls;
};

static inline void dh_prog_free(struct dh_prog *p)
{
	dh_words_free(&p->w);
	p->instructions = 0, p->macs = 0, p->matmuls = 0;
}

static inline void dh_prog_reset(struct dh_prog *p)
{
	p->w.n = 0;
	p->instructions = 0, p->macs = 0, p->matmuls = 0;
}

static inline void dh_prog_word(struct dh_prog *p, uint32_t w)
{
	dh_words_push(&p->w, w);
}

/* One instruction (its inline data follows with dh_prog_word). */
static inline void dh_prog_instr(struct dh_prog *p, unsigned op, unsigned flags,
				 unsigned n, uint32_t a, uint32_t b)
{
	uint32_t w[FTPU_ISA_WORDS];
	ftpu_isa_encode(w, op, flags, n, a, b);
	for (unsigned i = 0; i < FTPU_ISA_WORDS; i++)
		dh_prog_word(p, w[i]);
	p->instructions++;
}

/* MATMUL, counting its MACs on an N x N device. */
static inline void dh_prog_matmul(struct dh_prog *p, size_t N, unsigned flags,
				  unsigned n, uint32_t ub, uint32_t acc)
{
	dh_prog_instr(p, FTPU_OP_MATMUL, flags, n, ub, acc);
	p->macs += (uint64_t)n * N * N;
	p->matmuls++;
}

/* HOST_READ of nvec bf16 vectors of N values (UB or WM). */
static inline void dh_prog_read_bf16(struct dh_prog *p, unsigned mem,
				     uint32_t addr, const uint16_t *v,
				     size_t nvec, size_t N)
{
	dh_prog_instr(p, FTPU_OP_HOST_READ, mem, (unsigned)nvec, addr, 0);
	for (size_t i = 0; i < nvec * N; i += 2)
		dh_prog_word(p, (uint32_t)v[i] | (uint32_t)v[i + 1] << 16);
}

/* HOST_READ of nvec fp32 vectors of N values (ACC or BIAS). */
static inline void dh_prog_read_f32(struct dh_prog *p, unsigned mem,
				    uint32_t addr, const uint32_t *v,
				    size_t nvec, size_t N)
{
	dh_prog_instr(p, FTPU_OP_HOST_READ, mem, (unsigned)nvec, addr, 0);
	for (size_t i = 0; i < nvec * N; i++)
		dh_prog_word(p, v[i]);
}

/* ---- the host: the C model and the RTL fed the same frames -------------------- */

struct dh_host {
	struct dh_dev dev[2]; /* [0] the C model, [1] the RTL if any */
	unsigned ndev;
	uint16_t seq; /* of the last frame sent */
};

/* Opens the C model with cfg as dev[0]. */
static inline int dh_host_open(struct dh_host *h,
			       const struct ftpu_ref_device_config *cfg)
{
	memset(h, 0, sizeof(*h));
	int ret = dh_dev_open_ref(&h->dev[0], cfg);
	if (ret)
		return ret;
	h->ndev = 1;
	return FTPU_OK;
}

#ifndef DH_NO_SIM
/* Opens an RTL device model as dev[1] and the C model with its
 * configuration as dev[0]. Returns FTPU_ERR_INVALID for a NULL sim. */
static inline int dh_host_open_rtl(struct dh_host *h, struct ftpu_sim *sim,
				   const char *name)
{
	struct ftpu_sim_device_config sc;
	struct ftpu_ref_device_config cfg;
	if (!sim || !ftpu_sim_device_get_config(sim, &sc))
		return FTPU_ERR_INVALID;
	dh_config_from_sim(&sc, &cfg);
	int ret = dh_host_open(h, &cfg);
	if (ret)
		return ret;
	ret = dh_dev_open_rtl(&h->dev[1], sim, name);
	if (ret)
		return ret;
	h->ndev = 2;
	return FTPU_OK;
}

/* The RTL device model, or NULL with the C model alone. */
static inline struct ftpu_sim *dh_host_sim(const struct dh_host *h)
{
	return h->ndev > 1 ? h->dev[1].sim : NULL;
}
#endif

static inline void dh_host_close(struct dh_host *h)
{
	for (unsigned i = 0; i < h->ndev; i++)
		dh_dev_close(&h->dev[i]);
	h->ndev = 0;
}

static inline const struct ftpu_ref_device_config *dh_host_cfg(const struct dh_host *h)
{
	return &h->dev[0].cfg;
}

/* Encodes a frame (any type, flags, seq; credit 0) into a malloc'ed buffer. */
static inline uint8_t *dh_encode(unsigned type, unsigned flags, uint16_t seq,
				 const uint32_t *payload, size_t n, size_t *len)
{
	uint8_t *buf = malloc(FTPU_LINK_FRAME_BYTES(n));
	if (!buf)
		abort();
	int ret = ftpu_link_encode_flags(type, flags, seq, 0, payload, n, buf,
					 FTPU_LINK_FRAME_BYTES(n));
	if (ret < 0) {
		fprintf(stderr, "dh_encode: type %#x len %zu refused\n", type, n);
		abort();
	}
	*len = (size_t)ret;
	return buf;
}

/*
 * Any frame, valid CRCs over whatever header words are given (types and
 * lengths ftpu_link_encode refuses, a len that disagrees with the payload):
 * SYNC, w1, w2, HCRC, n payload words, PCRC. Returns the byte count written
 * to out (cap at least FTPU_LINK_FRAME_BYTES(n)).
 */
static inline size_t dh_encode_raw(uint32_t w1, uint32_t w2, const uint32_t *payload,
				   size_t n, uint8_t *out)
{
	ftpu_link_put_le32(out, FTPU_LINK_SYNC);
	ftpu_link_put_le32(out + 4, w1);
	ftpu_link_put_le32(out + 8, w2);
	uint32_t hcrc = ftpu_crc32_update(0, out, 12);
	ftpu_link_put_le32(out + 12, hcrc);
	for (size_t i = 0; i < n; i++)
		ftpu_link_put_le32(out + 16 + 4 * i, payload[i]);
	ftpu_link_put_le32(out + 16 + 4 * n,
			   ftpu_crc32_update(hcrc, out + 16, 4 * n));
	return FTPU_LINK_FRAME_BYTES(n);
}

/* Sends a frame with the next seq to every device (flow-controlled on the
 * RTL). Returns false if a device hung. */
static inline bool dh_host_send_frame(struct dh_host *h, unsigned type,
				      unsigned flags, const uint32_t *payload,
				      size_t n)
{
	size_t len;
	uint8_t *buf = dh_encode(type, flags, ++h->seq, payload, n, &len);
	bool ok = true;
	for (unsigned i = 0; i < h->ndev; i++)
		ok &= dh_dev_send(&h->dev[i], buf, len, type, n,
				  type == FTPU_LINK_CONTROL && n == 1 &&
					  payload[0] == FTPU_LINK_OP_RESET);
	free(buf);
	return ok;
}

/* Raw bytes to every device, no flow control. */
static inline void dh_host_write(struct dh_host *h, const void *bytes, size_t n)
{
	for (unsigned i = 0; i < h->ndev; i++)
		dh_dev_write(&h->dev[i], bytes, n);
}

/* A CONTROL frame with one word, the op. */
static inline bool dh_host_control(struct dh_host *h, uint32_t op)
{
	return dh_host_send_frame(h, FTPU_LINK_CONTROL, 0, &op, 1);
}

/*
 * Sends words as one program: PROGRAM frames of at most max_words (at least
 * 1) words, the first flagged START, the last END; with rng, each frame's
 * size is drawn uniformly from 1..max_words. Frames cut instructions and
 * inline data wherever they fall. Returns false if a device hung.
 */
static inline bool dh_host_program(struct dh_host *h, const uint32_t *w,
				   size_t n, size_t max_words, struct rng *rng)
{
	size_t at = 0;
	bool ok = true;
	if (max_words < 1)
		max_words = 1;
	if (max_words > FTPU_LINK_MAX_PAYLOAD)
		max_words = FTPU_LINK_MAX_PAYLOAD;
	do {
		size_t piece = rng ? 1 + rng_below(rng, (uint32_t)max_words) : max_words;
		if (piece > n - at)
			piece = n - at;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + piece == n ? FTPU_PROGRAM_END : 0);
		ok &= dh_host_send_frame(h, FTPU_LINK_PROGRAM, flags, w + at, piece);
		at += piece;
	} while (at < n && ok);
	return ok;
}

static inline bool dh_host_send_prog(struct dh_host *h, const struct dh_prog *p,
				     size_t max_words, struct rng *rng)
{
	return dh_host_program(h, p->w.w, p->w.n, max_words, rng);
}

/* Runs every device until idle; false if one hung. */
static inline bool dh_host_wait(struct dh_host *h)
{
	bool ok = true;
	for (unsigned i = 0; i < h->ndev; i++)
		ok &= dh_dev_wait_idle(&h->dev[i]);
	return ok;
}

/* Compares every class of every device with the C model's and counts the
 * host's receive errors; returns the number of differences. */
static inline size_t dh_host_compare(const struct dh_host *h)
{
	size_t bad = 0;
	for (unsigned i = 0; i < h->ndev; i++)
		bad += h->dev[i].rx_errors;
	for (unsigned i = 1; i < h->ndev; i++)
		for (int c = 0; c < DH_CLASSES; c++)
			bad += dh_compare_class(&h->dev[0], &h->dev[i], c);
	return bad;
}

static inline void dh_host_clear(struct dh_host *h)
{
	for (unsigned i = 0; i < h->ndev; i++)
		dh_dev_clear_frames(&h->dev[i]);
}

/* The payload words of the DATA frames of class PROGRAM, concatenated;
 * EVENT frames are skipped. */
static inline void dh_dev_data_words(const struct dh_dev *d, struct dh_words *out)
{
	const struct dh_frames *fs = &d->cls[DH_CLASS_PROGRAM];
	out->n = 0;
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].type == FTPU_LINK_DATA)
			for (size_t w = 0; w < fs->f[i].len; w++)
				dh_words_push(out, fs->f[i].payload[w]);
}

/* ---- tiled GEMM programs ------------------------------------------------------- */

/*
 * C = (accumulate ? C0 : +0) + A[M x K] * B[K x N] on an n x n device, A and
 * B bf16 row-major, C fp32 bits; optionally ACTIVATE the result into UB
 * (bias: one fp32 per column of C, ReLU) and send it back as bf16.
 */
struct dh_gemm {
	size_t M, K, N;
	const uint16_t *A, *B;
	const uint32_t *C0; /* M x N, with accumulate */
	bool accumulate;
	bool write_acc;     /* HOST_WRITE the fp32 results */
	bool activate;      /* ACTIVATE them into UB ... */
	bool relu, use_bias;
	const uint32_t *bias; /* N values, with use_bias */
	bool write_act;     /* ... and HOST_WRITE those */
	/* Chunks alternate between two halves of UB, ACC and BIAS, so a
	 * block's results can leave while the next computes (docs/isa.md:
	 * units wait per address range). */
	bool double_buffer;
};

/*
 * A dh_gemm as the library plans and emits it (gemm_plan.h, the one
 * tiled-GEMM emitter): its plan within cfg's memories, caps and double
 * buffering as the case asks, the regions moved to random places, C0 and
 * the bias as the emitter's fp32 operands and B's tile image. Lives where
 * it was set up (the plan points at act).
 */
struct dh_gemm_run {
	struct ftpu_gemm_plan p;
	struct ftpu_gemm_act act;
	float *c0, *bias;
	uint16_t *image;
};

static inline void dh_gemm_run_free(struct dh_gemm_run *r)
{
	free(r->c0), free(r->bias), free(r->image);
	r->c0 = r->bias = NULL, r->image = NULL;
}

/* v in [0, hi] */
static inline uint32_t dh_pick(struct rng *r, size_t hi)
{
	return r ? rng_below(r, (uint32_t)hi + 1) : 0;
}

/*
 * Plans g on cfg (at most max_mc rows per chunk if max_mc > 0) and, with
 * place, puts every region at a random base in its memory's slack (in the
 * first half when double buffered). Returns 0, or -1 when nothing fits.
 */
static inline int dh_gemm_setup(const struct ftpu_ref_device_config *cfg,
				const struct dh_gemm *g, size_t max_mc,
				struct rng *place, struct dh_gemm_run *r)
{
	const size_t n = cfg->n, N = g->N;
	memset(r, 0, sizeof(*r));
	if (!g->M || !g->K || !N)
		return -1;
	const bool sent = g->activate && g->use_bias;
	r->act = (struct ftpu_gemm_act){ .relu = g->relu, .bias = sent,
					 .writes = g->write_act };
	r->c0 = malloc((g->accumulate ? g->M * N : 1) * sizeof(float));
	r->bias = malloc(N * sizeof(float));
	if (!r->c0 || !r->bias)
		abort();
	if (g->accumulate) /* the bits as they are */
		memcpy(r->c0, g->C0, g->M * N * sizeof(float));
	if (sent)
		memcpy(r->bias, g->bias, N * sizeof(float));
	r->act.bias_values = sent ? r->bias : NULL;
	const struct ftpu_gemm_opts o = {
		.c_in = g->accumulate ? r->c0 : NULL,
		.acc_writes = g->write_acc,
		.acts = &r->act,
		.n_acts = g->activate,
		.bias_vectors = cfg->bias_vectors,
	};
	const struct ftpu_gemm_tuning t = {
		.no_double_buffer = !g->double_buffer,
		.force_double_buffer = g->double_buffer,
		.max_rows = max_mc,
	};
	const struct ftpu_gemm_device d = { .n = n, .ub = cfg->ub_vectors,
					    .acc = cfg->acc_vectors,
					    .wm_tiles = cfg->wm_rows / n };
	struct ftpu_gemm_plan *p = &r->p;
	if (ftpu__gemm_plan_opts(&d, g->M, N, g->K, &t, &o, p))
		return -1;
	if (g->double_buffer != p->db) {
		fprintf(stderr, "dh_gemm_setup: memories too small to halve\n");
		return -1;
	}

	/* the regions of one half, and what a half holds */
	const size_t ub_a = p->ktc * p->mc, ub_out = g->activate ? p->ntc * p->mc : 0;
	const size_t acc = p->ntc * p->mc, bias = sent ? p->ntc : 0;
	const size_t wm = (p->b_whole ? p->KT * p->NT : p->ktc * p->ntc) * n;
	const size_t ub_cap = p->db ? p->ub_step : cfg->ub_vectors;
	const size_t acc_cap = p->db ? p->acc_step : cfg->acc_vectors;
	const size_t bias_cap = p->db ? p->bias_step : cfg->bias_vectors;
	if (ub_a + ub_out > ub_cap || acc > acc_cap || bias > bias_cap ||
	    wm > cfg->wm_rows) {
		fprintf(stderr, "dh_gemm_setup: the plan overflows a memory\n");
		return -1;
	}
	size_t slack = ub_cap - ub_a - ub_out;
	p->ub = dh_pick(place, slack);
	r->act.ub = (uint32_t)(p->ub + ub_a) + dh_pick(place, slack - p->ub);
	p->wm = dh_pick(place, cfg->wm_rows - wm);
	p->acc = dh_pick(place, acc_cap - acc);
	r->act.bias_at = dh_pick(place, bias_cap - bias);

	r->image = malloc(p->image_elems * sizeof(*r->image));
	if (!r->image)
		abort();
	const struct ftpu_gemm_operand ob = { .bf16 = g->B, .ld = N };
	ftpu__gemm_pack_b(p, &ob, r->image);
	return 0;
}

/* The program of chunks [c0, c1) of a set-up GEMM (B sent), appended to
 * prog; MACs counted as n*n per row of each MATMUL. */
static inline void dh_gemm_emit_range(struct dh_prog *prog, const struct dh_gemm_run *r,
				      const struct dh_gemm *g, size_t c0, size_t c1)
{
	const struct ftpu_gemm_plan *p = &r->p;
	const struct ftpu_gemm_operand oa = { .bf16 = g->A, .ld = g->K };
	size_t words = ftpu__gemm_emit(p, &oa, r->image, true, c0, c1, NULL, NULL);
	uint16_t *scratch = malloc(p->mc * p->n * sizeof(*scratch));
	while (prog->w.cap < prog->w.n + words + 1) {
		size_t cap = prog->w.cap ? 2 * prog->w.cap : 1024;
		prog->w.w = realloc(prog->w.w, cap * sizeof(uint32_t));
		prog->w.cap = cap;
		if (!prog->w.w)
			abort();
	}
	if (!scratch)
		abort();
	size_t got = ftpu__gemm_emit(p, &oa, r->image, true, c0, c1, scratch,
				     prog->w.w + prog->w.n);
	if (got != words) {
		fprintf(stderr, "dh_gemm_emit_range: %zu words, %zu counted\n", got, words);
		abort();
	}
	prog->w.n += words;
	for (size_t c = c0; c < c1; c++) {
		struct ftpu_gemm_chunk ch;
		ftpu__gemm_chunk(p, c, &ch);
		prog->macs += (uint64_t)ch.mc * ch.ktc * ch.ntc * p->n * p->n;
		prog->matmuls += ch.ktc * ch.ntc;
	}
	free(scratch);
}

/* The whole GEMM as one program (append a SYNC yourself if wanted). */
static inline void dh_gemm_emit(struct dh_prog *prog, const struct dh_gemm_run *r,
				const struct dh_gemm *g)
{
	dh_gemm_emit_range(prog, r, g, 0, r->p.chunks);
}

/*
 * Takes the DATA words of a dh_gemm_emit program apart into C (M x N fp32,
 * with write_acc) and act (M x N bf16, with write_act); either may be NULL.
 * The order is gemm_plan.h's: output blocks in program order, each its
 * ACC rows [n-tile][row][column], then its activation's. Returns 0, or -1
 * when there are fewer or more words than the program sends.
 */
static inline int dh_gemm_unpack(const struct dh_gemm_run *r, const struct dh_gemm *g,
				 const uint32_t *w, size_t nw, uint32_t *C, uint16_t *act)
{
	const struct ftpu_gemm_plan *p = &r->p;
	const size_t n = p->n, N = g->N;
	size_t at = 0;
	for (size_t first = 0; first < p->chunks; first += p->kblocks) {
		struct ftpu_gemm_chunk c;
		ftpu__gemm_chunk(p, first, &c);
		size_t need = (g->write_acc ? c.ntc * c.mc * n : 0) +
			      (g->activate && g->write_act ? c.ntc * c.mc * n / 2 : 0);
		if (at + need > nw) {
			fprintf(stderr, "dh_gemm_unpack: %zu DATA words, the program sends more\n",
				nw);
			return -1;
		}
		for (size_t nt = 0; g->write_acc && nt < c.ntc; nt++)
			for (size_t m = 0; m < c.mc; m++)
				for (size_t col = 0; col < n; col++, at++) {
					size_t j = (c.nt0 + nt) * n + col;
					if (j < N && C)
						C[(c.m0 + m) * N + j] = w[at];
				}
		for (size_t nt = 0; g->activate && g->write_act && nt < c.ntc; nt++)
			for (size_t m = 0; m < c.mc; m++)
				for (size_t col = 0; col < n; col += 2, at++) {
					size_t j = (c.nt0 + nt) * n + col;
					if (j < N && act)
						act[(c.m0 + m) * N + j] = (uint16_t)w[at];
					if (j + 1 < N && act)
						act[(c.m0 + m) * N + j + 1] = (uint16_t)(w[at] >> 16);
				}
	}
	if (at != nw) {
		fprintf(stderr, "dh_gemm_unpack: %zu DATA words, the program sends %zu\n", nw, at);
		return -1;
	}
	return 0;
}

/*
 * Compares C and act (either may be NULL) with the reference: ftpu_ref_gemm
 * and ftpu_ref_activate. Returns the number of wrong values, printing the
 * first few.
 */
static inline size_t dh_gemm_check(const struct dh_gemm *g, const uint32_t *C,
				   const uint16_t *act)
{
	const size_t M = g->M, N = g->N;
	uint32_t *want = malloc(M * N * sizeof(*want));
	size_t bad = 0;
	if (!want)
		abort();
	if (g->accumulate)
		memcpy(want, g->C0, M * N * sizeof(*want));
	ftpu_ref_gemm(M, N, g->K, g->A, g->K, g->B, N, want, N, g->accumulate);
	for (size_t i = 0; C && i < M * N; i++)
		if (C[i] != want[i] && bad++ < 5)
			fprintf(stderr, "gemm %zux%zux%zu: C[%zu][%zu] got %08" PRIx32
				" want %08" PRIx32 "\n", M, g->K, N, i / N, i % N, C[i], want[i]);
	for (size_t i = 0; act && i < M * N; i++) {
		uint32_t b = g->use_bias ? g->bias[i % N] : 0x80000000u;
		uint16_t a = ftpu_ref_activate(want[i], b, g->relu);
		if (act[i] != a && bad++ < 5)
			fprintf(stderr, "gemm %zux%zux%zu: act[%zu][%zu] got %04x want %04x\n",
				M, g->K, N, i / N, i % N, act[i], a);
	}
	free(want);
	return bad;
}

static inline size_t dh_div_up(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/* Cycle models of a GEMM on an R x R array with row delay D
 * (docs/array.md, docs/matrix_unit.md). */
static inline uint64_t dh_gemm_folds(size_t R, size_t M, size_t K, size_t N)
{
	(void)M;
	return (uint64_t)dh_div_up(K, R) * dh_div_up(N, R);
}

/* docs/array.md, Cycle model: R + F·max(M, R) + P·(R + C − 2), P = D. */
static inline uint64_t dh_model_cycles(size_t R, size_t D, size_t M, size_t K,
				       size_t N)
{
	uint64_t F = dh_gemm_folds(R, M, K, N);
	return R + F * (M > R ? M : R) + D * (2 * R - 2);
}

/* docs/matrix_unit.md: (F − 1)·max(M, R) + M + Latency + 3, Latency =
 * R·D + R + 1 (exact when M >= R, or D = 1, and ACC rows come back in
 * time). */
static inline uint64_t dh_exact_cycles(size_t R, size_t D, size_t M, size_t K,
				       size_t N)
{
	uint64_t F = dh_gemm_folds(R, M, K, N);
	return (F - 1) * (M > R ? M : R) + M + (R * D + R + 1) + 3;
}

#endif /* FTPU_DEVICE_HOST_H */
