/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc_device.c - the soft device (soc_device.h). Its frames, faults and
 * decoder mirror model/ref_device.c line for line where they can; what
 * differs is said where it does: the memories are words (two bf16 in UB and
 * WM), MATMUL goes through the array (soc_hal.h), frames are sent as they
 * are encoded, and long loops pump the UART.
 *
 * The core has no multiplier or divider (RV32I) and shifts a bit a cycle:
 * loops walk pointers instead of computing indices.
 */
#include "soc_device.h"

#include <stddef.h>
#include <string.h>

#include "numeric.h"
#include "status.h"

/* Receiver bytes a step takes and PROGRAM words, MATMUL or ACTIVATE vectors
 * between pumps: each well under the ~41 000 cycles the UART's FIFO takes
 * to fill. Measured on the core: a byte through the receiver ~110 cycles,
 * a word of instructions a few hundred, a MATMUL vector ~240, an ACTIVATE
 * vector ~400, a byte out ~80. */
#define SOC_CHUNK 128u
#define PUMP_WORDS 32u
#define PUMP_VECTORS 8u
#define PUMP_CLEAR 256u
#define PUMP_BULK 512u /* HOST_READ words copied between pumps */
#define PUMP_TX 64u     /* words CRCed and queued between pumps */

/* a / b for b > 0, without libgcc's division (rare here, and ROM is scarce) */
static uint32_t div_u32(uint32_t a, uint32_t b)
{
	uint32_t q = 0, bit = 1;
	while (b < a && !(b >> 31))
		b <<= 1, bit <<= 1;
	for (; bit; b >>= 1, bit >>= 1)
		if (a >= b)
			a -= b, q |= bit;
	return q;
}

static void pump(struct soc_device *d)
{
	soc_hal_pump(&d->ring);
}

/* ---- memories -------------------------------------------------------------- */

/* Vector v of a memory (FTPU_MEM_*). Out of line, as a few more below:
 * ROM is scarcer than cycles there. */
__attribute__((noinline)) static uint32_t *vec(const struct soc_device *d, unsigned int mem, uint32_t v)
{
	return d->mem[mem] + (v << d->shift[mem]);
}

/* [base, base + n) within the memory; computed without overflow. */
static bool in_range(uint32_t base, uint32_t n, uint32_t size)
{
	return base < size && n <= size - base;
}

__attribute__((noinline)) static void clear_counters(struct soc_device *d)
{
	const struct ftpu_link_stats *s = &d->rx.stats;
	d->t0 = soc_hal_cycles();
	d->busy = d->macs = d->bytes_out = 0;
	d->in0 = s->bytes_ok + s->bytes_skipped + s->bytes_dropped;
	d->instructions = 0;
}

/* The model's clear_state: memories zeroed (as its calloc), no tiles. */
static void clear_state(struct soc_device *d)
{
	uint32_t *p = d->m->mem;
	for (uint32_t i = 0; i < d->mem_total; i++) {
		p[i] = 0;
		if (!(i % PUMP_CLEAR))
			pump(d);
	}
	d->cur = 0;
	d->cur_valid = d->next_valid = false;
	d->in_program = d->discarding = false;
	d->instr_have = 0;
	d->data_left = 0;
	d->pc = 0;
	d->faults = d->fault_pc = d->fault_code = d->fault_instr = 0;
	clear_counters(d);
}

/* ---- output: frames streamed to the UART ---------------------------------- */

/* The free receive-buffer words (docs/protocol.md §6): IQ_WORDS less the
 * words of the accepted PROGRAM frame not yet taken by the decoder (its
 * header words are taken first). Frames after it wait in the ring, which
 * holds SOC_RING_NEED(rx_words). */
static uint32_t free_words(const struct soc_device *d)
{
	return d->cfg.rx_words - d->frame_left;
}

/* Words go out as their bytes in memory: the link's order (little-endian)
 * is the core's, so no word is taken apart (shifts cost a cycle a bit). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "words are sent as they lie");

static void tx_bytes(struct soc_device *d, const void *p, unsigned n)
{
	soc_hal_tx(&d->ring, p, n);
}

/* A frame's header; seq < 0: the acknowledged seq (DATA, EVENT, ERROR: the
 * last host frame the receiver finished, 0 before any). */
static void tx_begin(struct soc_device *d, unsigned int type, int32_t seq, uint32_t n)
{
	uint8_t h[FTPU_LINK_HEADER_BYTES];
	uint32_t credit = free_words(d);
	if (seq < 0)
		seq = ftpu_link_rx_ack(&d->rx) < 0 ? 0 : ftpu_link_rx_ack(&d->rx);
	d->tx_crc = ftpu_link_encode_header(type, 0, (uint16_t)seq,
					    (uint16_t)(credit > 0xffffu ? 0xffffu : credit), n, h);
	tx_bytes(d, h, sizeof(h));
	d->bytes_out += FTPU_LINK_FRAME_BYTES(n);
}

/* n payload words, pumping between blocks. */
static void tx_words(struct soc_device *d, const uint32_t *w, uint32_t n)
{
	while (n) {
		uint32_t k = n < PUMP_TX ? n : PUMP_TX;
		d->tx_crc = ftpu_crc32_update(d->tx_crc, w, 4 * k);
		tx_bytes(d, w, 4 * k);
		pump(d);
		w += k;
		n -= k;
	}
}

static void tx_end(struct soc_device *d)
{
	tx_bytes(d, &d->tx_crc, 4);
}

static void send(struct soc_device *d, unsigned int type, int32_t seq,
		 const uint32_t *payload, uint32_t n)
{
	tx_begin(d, type, seq, n);
	tx_words(d, payload, n);
	tx_end(d);
}

static void fault(struct soc_device *d, unsigned int code)
{
	uint32_t ev[4] = { FTPU_LINK_EVENT_FAULT, d->pc, code, d->instr[0] };
	d->faults++;
	d->fault_pc = d->pc;
	d->fault_code = code;
	d->fault_instr = d->instr[0];
	send(d, FTPU_LINK_EVENT, -1, ev, 4);
	d->discarding = true;
	d->instr_have = 0;
	d->data_left = 0;
}

/* ---- instructions ------------------------------------------------------------ */
/* Each exec_* checks in the model's order and returns the fault code, or 0
 * after doing its work. */

static unsigned int exec_host_read(struct soc_device *d, unsigned int flags,
				   uint32_t n, uint32_t addr)
{
	unsigned int mem = flags & 3u;
	/* U8 and ALSO_WM need the vector unit, which the soft device lacks */
	if (flags & ~3u)
		return FTPU_FAULT_OPCODE;
	if (!in_range(addr, n, d->vectors[mem]))
		return FTPU_FAULT_RANGE;
	d->data_words = d->words[mem];
	d->data_to = vec(d, mem, addr);
	d->data_k = 0;
	d->data_left = n << d->shift[mem];
	return 0;
}

/* n words of inline data taken: the HOST_READ retires with its last. */
static void host_read_took(struct soc_device *d, uint32_t n)
{
	d->data_left -= n;
	if (d->data_left == 0) {
		d->instructions++;
		d->pc++;
	}
}

/* One inline data word: vectors are written whole, as the model's are, so
 * a program cut short inside a vector leaves that vector alone. */
static void host_read_word(struct soc_device *d, uint32_t w)
{
	d->data_vec[d->data_k++] = w;
	if (d->data_k == d->data_words) {
		for (uint32_t i = 0; i < d->data_words; i++)
			d->data_to[i] = d->data_vec[i];
		d->data_to += d->data_words;
		d->data_k = 0;
	}
	host_read_took(d, 1);
}

/* The fast path of host_read_word: the whole vectors among the frame's next
 * `avail` words (at most a pump's worth) straight into memory. Returns how
 * many words it took. */
static uint32_t host_read_vectors(struct soc_device *d, const uint32_t *w, uint32_t avail)
{
	uint32_t n = d->data_left < avail ? d->data_left : avail;
	if (n > PUMP_BULK)
		n = PUMP_BULK;
	n &= ~(d->data_words - 1u); /* whole vectors: data_words is a power of two */
	for (uint32_t i = 0; i < n; i++)
		d->data_to[i] = w[i];
	d->data_to += n;
	if (n)
		host_read_took(d, n);
	return n;
}

static unsigned int exec_load_weights(struct soc_device *d, unsigned int flags,
				      uint32_t n, uint32_t row)
{
	unsigned int N = d->cfg.n, words = N / 2;
	if (flags)
		return FTPU_FAULT_OPCODE;
	if (n != 1)
		return FTPU_FAULT_COUNT;
	if (!in_range(row, N, d->cfg.wm_rows))
		return FTPU_FAULT_RANGE;
	const uint32_t *w = vec(d, FTPU_MEM_WM, row);
	for (unsigned int r = 0; r < N; r++, w += words)
		soc_hal_array_row(d->cur ^ 1u, r, w, N);
	d->next_valid = true;
	return 0;
}

static unsigned int exec_matmul(struct soc_device *d, unsigned int flags,
				uint32_t n, uint32_t ub, uint32_t acc)
{
	static const uint32_t zero[SOC_MAX_N]; /* +0 partial sums */
	unsigned int N = d->cfg.n;
	bool swap = flags & FTPU_MATMUL_SWAP;
	if (flags & ~(FTPU_MATMUL_ACCUMULATE | FTPU_MATMUL_SWAP))
		return FTPU_FAULT_OPCODE;
	if (!in_range(ub, n, d->cfg.ub_vectors) || !in_range(acc, n, d->cfg.acc_vectors))
		return FTPU_FAULT_RANGE;
	if (swap ? !d->next_valid : !d->cur_valid)
		return FTPU_FAULT_NO_TILE;
	if (swap) {
		d->cur ^= 1u;
		d->cur_valid = true;
		d->next_valid = false;
	}
	const uint32_t *a = vec(d, FTPU_MEM_UB, ub);
	uint32_t *c = vec(d, FTPU_MEM_ACC, acc);
	for (uint32_t i = 0; i < n; i++, a += N / 2, c += N) {
		if (!soc_hal_array_vector(d->cur, (flags & FTPU_MATMUL_ACCUMULATE) ? c : zero,
					  a, c, N))
			d->array_timeouts++;
		if (!(i % PUMP_VECTORS))
			pump(d);
	}
	d->macs += n << 2 * d->shift[FTPU_MEM_ACC]; /* n N^2 < 2^32 */
	return 0;
}

static unsigned int exec_activate(struct soc_device *d, unsigned int flags,
				  uint32_t n, uint32_t acc, uint32_t b)
{
	/* no bias is a bias of -0: x + (-0) == x (NaN canonical) */
	static const uint32_t minus_zero = 0x80000000u;
	unsigned int N = d->cfg.n;
	uint32_t ub = b & 0xffffu, bias = b >> 16, bstep = 0;
	bool relu = flags & FTPU_ACTIVATE_RELU;
	if (flags & ~(FTPU_ACTIVATE_RELU | FTPU_ACTIVATE_BIAS))
		return FTPU_FAULT_OPCODE;
	if (!in_range(acc, n, d->cfg.acc_vectors) || !in_range(ub, n, d->cfg.ub_vectors) ||
	    ((flags & FTPU_ACTIVATE_BIAS) && bias >= d->cfg.bias_vectors))
		return FTPU_FAULT_RANGE;
	const uint32_t *x = vec(d, FTPU_MEM_ACC, acc), *b0 = &minus_zero;
	if (flags & FTPU_ACTIVATE_BIAS)
		b0 = vec(d, FTPU_MEM_BIAS, bias), bstep = 1;
	uint32_t *out = vec(d, FTPU_MEM_UB, ub), w = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *bv = b0;
		for (unsigned int c = 0; c < N; c++, bv += bstep) {
			uint32_t h = ftpu_activate_out(ftpu_f32_add_int(*x++, *bv), relu);
			if (c & 1u)
				*out++ = w | h << 16; /* element 2k + 1 in bits 31:16 */
			else
				w = h;
		}
		if (!(i % PUMP_VECTORS))
			pump(d);
	}
	return 0;
}

static unsigned int exec_host_write(struct soc_device *d, unsigned int flags,
				    uint32_t n, uint32_t addr, uint32_t b)
{
	unsigned int mem = flags & 3u;
	bool part = flags & FTPU_HOST_WRITE_WORDS;
	if (flags & ~(3u | FTPU_HOST_WRITE_WORDS))
		return FTPU_FAULT_OPCODE;
	if (mem != FTPU_MEM_UB && mem != FTPU_MEM_ACC)
		return FTPU_FAULT_MEMORY;
	/* WORDS: the first b words of each vector. */
	uint32_t vwords = d->words[mem], words = part ? b : vwords;
	if (part && (b == 0 || b > vwords))
		return FTPU_FAULT_COUNT;
	if (!in_range(addr, n, d->vectors[mem]))
		return FTPU_FAULT_RANGE;
	/* Whole (or WORDS-cut) vectors per DATA frame, as many as fit. */
	uint32_t per = div_u32(FTPU_LINK_MAX_PAYLOAD, words);
	const uint32_t *p = vec(d, mem, addr);
	for (uint32_t v = 0; v < n; v += per) {
		uint32_t cnt = n - v < per ? n - v : per;
		tx_begin(d, FTPU_LINK_DATA, -1, cnt * words);
		if (words == vwords) { /* whole vectors lie back to back */
			tx_words(d, p, cnt * words);
			p += cnt * words;
		} else {
			for (uint32_t k = 0; k < cnt; k++, p += vwords)
				tx_words(d, p, words);
		}
		tx_end(d);
	}
	return 0;
}

static unsigned int exec_sync(struct soc_device *d, unsigned int flags, uint32_t tag)
{
	if (flags)
		return FTPU_FAULT_OPCODE;
	uint32_t ev[2] = { FTPU_LINK_EVENT_SYNC, tag };
	send(d, FTPU_LINK_EVENT, -1, ev, 2);
	return 0;
}

/* Runs the complete instruction in d->instr (HOST_READ: its header). */
static void execute(struct soc_device *d)
{
	uint32_t w0 = d->instr[0], a = d->instr[1], b = d->instr[2];
	unsigned int op = ftpu_isa_op(w0), flags = ftpu_isa_flags(w0), code;
	uint32_t n = ftpu_isa_n(w0);

	if (n == 0 && op >= FTPU_OP_HOST_READ && op <= FTPU_OP_HOST_WRITE)
		code = FTPU_FAULT_COUNT;
	else switch (op) {
	case FTPU_OP_HOST_READ:
		code = exec_host_read(d, flags, n, a);
		if (!code)
			return; /* retires when its data is in */
		break;
	case FTPU_OP_LOAD_WEIGHTS: code = exec_load_weights(d, flags, n, a); break;
	case FTPU_OP_MATMUL: code = exec_matmul(d, flags, n, a, b); break;
	case FTPU_OP_ACTIVATE: code = exec_activate(d, flags, n, a, b); break;
	case FTPU_OP_HOST_WRITE: code = exec_host_write(d, flags, n, a, b); break;
	case FTPU_OP_SYNC: code = exec_sync(d, flags, a); break;
	default: code = FTPU_FAULT_OPCODE; /* the vector unit's too: there is none */
	}
	if (code) {
		fault(d, code);
		return;
	}
	d->instructions++;
	d->pc++;
}

/* ---- frames -------------------------------------------------------------------- */

static void program_word(struct soc_device *d, uint32_t w)
{
	if (d->discarding)
		return;
	if (d->data_left) {
		host_read_word(d, w);
		return;
	}
	d->instr[d->instr_have++] = w;
	if (d->instr_have == FTPU_ISA_WORDS) {
		d->instr_have = 0;
		execute(d);
	}
}

/* The program ends: an instruction or its data cut short is a fault. */
static void program_end(struct soc_device *d)
{
	if (!d->discarding && (d->instr_have || d->data_left))
		fault(d, FTPU_FAULT_TRUNCATED);
	d->in_program = d->discarding = false;
	d->instr_have = 0;
	d->data_left = 0;
}

static void on_program(struct soc_device *d, const struct ftpu_link_frame *f)
{
	if (f->flags & FTPU_PROGRAM_START) {
		if (d->in_program)
			program_end(d);
		d->in_program = true;
		d->discarding = false;
		d->pc = 0;
	}
	if (!d->in_program) {
		/* Words outside any program: report once per frame, drop. */
		d->instr[0] = f->len ? f->payload[0] : 0;
		d->pc = 0;
		fault(d, FTPU_FAULT_FRAMING);
		d->discarding = false;
		return;
	}
	d->frame_left = f->len;
	for (uint32_t i = 0; i < f->len;) {
		if (d->data_left && !d->data_k && !d->discarding) {
			uint32_t n = host_read_vectors(d, f->payload + i, f->len - i);
			if (n) {
				i += n;
				d->frame_left -= n;
				pump(d);
				continue;
			}
		}
		d->frame_left--;
		program_word(d, f->payload[i++]);
		if (!(i % PUMP_WORDS))
			pump(d);
	}
	if (f->flags & FTPU_PROGRAM_END)
		program_end(d);
}

/* The RESPONSE to a CONTROL frame: op, status, then the n result words;
 * INFO's as key/value pairs, keys from VERSION on (the model's order). */
static void respond(struct soc_device *d, uint16_t seq, uint32_t op,
		    uint32_t status, const uint32_t *w, uint32_t n)
{
	bool info = op == FTPU_LINK_OP_INFO && status == FTPU_LINK_RESP_OK;
	uint32_t head[2] = { op, status };
	tx_begin(d, FTPU_LINK_RESPONSE, seq, 2 + (info ? 2 * n : n));
	tx_words(d, head, 2);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t key = FTPU_LINK_INFO_VERSION + i;
		if (info)
			tx_words(d, &key, 1);
		tx_words(d, w + i, 1);
	}
	tx_end(d);
}

static void on_control(struct soc_device *d, const struct ftpu_link_frame *f)
{
	const struct soc_device_config *c = &d->cfg;
	const struct ftpu_link_stats *s = &d->rx.stats;
	uint32_t op = f->len ? f->payload[0] : 0, status = FTPU_LINK_RESP_OK, n = 0;
	uint32_t w[FTPU_LINK_CNT_COUNT > FTPU_LINK_INFO_MAX ? FTPU_LINK_CNT_COUNT
							     : FTPU_LINK_INFO_MAX] = { 0 };
	uint64_t cycles, in;

	if (f->len != 1)
		op = f->len ? op : 0, status = FTPU_LINK_RESP_BAD_REQUEST;
	else switch (op) {
	case FTPU_LINK_OP_INFO: /* values of keys VERSION.. LINK_BYTES */
		w[0] = FTPU_LINK_VERSION_MAJOR << 16 | FTPU_LINK_VERSION_MINOR;
		w[FTPU_LINK_INFO_ROWS - 1] = w[FTPU_LINK_INFO_COLS - 1] = c->n;
		w[FTPU_LINK_INFO_UB_VECTORS - 1] = c->ub_vectors;
		w[FTPU_LINK_INFO_WEIGHT_TILES - 1] = div_u32(c->wm_rows, c->n);
		w[FTPU_LINK_INFO_ACC_VECTORS - 1] = c->acc_vectors;
		w[FTPU_LINK_INFO_BIAS_VECTORS - 1] = c->bias_vectors;
		w[FTPU_LINK_INFO_IQ_WORDS - 1] = c->rx_words;
		w[FTPU_LINK_INFO_CLOCK_HZ - 1] = c->clock_hz;
		w[FTPU_LINK_INFO_ROW_DELAY - 1] = c->row_delay;
		w[FTPU_LINK_INFO_MAX_PAYLOAD - 1] = FTPU_LINK_MAX_PAYLOAD;
		w[FTPU_LINK_INFO_FEATURES - 1] = (uint32_t)c->in_order << FTPU_FEATURE_IN_ORDER_LSB;
		w[FTPU_LINK_INFO_LINK_BYTES - 1] = c->link_bytes ? c->link_bytes : 1;
		n = FTPU_LINK_INFO_MAX;
		break;
	case FTPU_LINK_OP_STATUS:
		w[FTPU_LINK_STATUS_STATE] = d->discarding ? FTPU_LINK_STATE_FAULTED :
					    d->in_program ? FTPU_LINK_STATE_RUNNING :
							    FTPU_LINK_STATE_IDLE;
		w[FTPU_LINK_STATUS_FREE_WORDS] = free_words(d);
		w[FTPU_LINK_STATUS_QUEUED_WORDS] = d->frame_left;
		w[FTPU_LINK_STATUS_FAULTS] = d->faults;
		n = FTPU_LINK_STATUS_COUNT;
		break;
	case FTPU_LINK_OP_RESET:
		clear_state(d);
		break;
	case FTPU_LINK_OP_READ_COUNTERS: /* the stalls: none counted (0) */
		cycles = soc_hal_cycles() - d->t0;
		in = s->bytes_ok + s->bytes_skipped + s->bytes_dropped - d->in0;
		w[FTPU_LINK_CNT_CYCLES] = (uint32_t)cycles;
		w[FTPU_LINK_CNT_BUSY] = (uint32_t)d->busy;
		w[FTPU_LINK_CNT_MACS_LO] = (uint32_t)d->macs;
		w[FTPU_LINK_CNT_MACS_HI] = (uint32_t)(d->macs >> 32);
		w[FTPU_LINK_CNT_IDLE] = (uint32_t)(cycles - d->busy);
		w[FTPU_LINK_CNT_BYTES_IN_LO] = (uint32_t)in;
		w[FTPU_LINK_CNT_BYTES_IN_HI] = (uint32_t)(in >> 32);
		w[FTPU_LINK_CNT_BYTES_OUT_LO] = (uint32_t)d->bytes_out;
		w[FTPU_LINK_CNT_BYTES_OUT_HI] = (uint32_t)(d->bytes_out >> 32);
		w[FTPU_LINK_CNT_INSTRUCTIONS] = d->instructions;
		n = FTPU_LINK_CNT_COUNT;
		break;
	case FTPU_LINK_OP_CLEAR_COUNTERS:
		clear_counters(d);
		break;
	case FTPU_LINK_OP_READ_FAULTS:
		w[0] = d->faults;
		w[1] = d->fault_pc;
		w[2] = d->fault_code;
		w[3] = d->fault_instr;
		n = 4;
		break;
	default:
		/* including the firmware ops (FW_INFO, SELFTEST, updates, BOOT):
		 * the soft device has none, as the C model */
		status = FTPU_LINK_RESP_UNKNOWN_OP;
	}
	respond(d, f->seq, op, status, w, n);
}

_Static_assert(FTPU_LINK_INFO_VERSION == 1 && FTPU_LINK_INFO_LINK_BYTES == FTPU_LINK_INFO_MAX,
	       "INFO's keys are 1..FTPU_LINK_INFO_MAX, all of them sent");

/* Frames run as they arrive, so the receive buffer is empty at a header:
 * a PROGRAM frame overflows only beyond IQ_WORDS, a CONTROL frame only
 * beyond MAX_CONTROL (the model's rule). */
static int on_admit(void *ctx, const struct ftpu_link_header *h)
{
	struct soc_device *d = ctx;
	if (h->type == FTPU_LINK_CONTROL)
		return h->len > FTPU_LINK_MAX_CONTROL ? FTPU_LINK_ERR_OVERFLOW : 0;
	return h->len + 2u > d->cfg.rx_words ? FTPU_LINK_ERR_OVERFLOW : 0;
}

static void on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct soc_device *d = ctx;
	if (f->type == FTPU_LINK_CONTROL) {
		on_control(d, f);
	} else {
		uint64_t t = soc_hal_cycles();
		on_program(d, f);
		d->busy += soc_hal_cycles() - t;
	}
}

static void on_error(void *ctx, const struct ftpu_link_error *e)
{
	struct soc_device *d = ctx;
	uint32_t p[3] = { e->code,
			  e->seq == FTPU_LINK_UNKNOWN ? FTPU_LINK_SEQ_UNKNOWN : e->seq,
			  e->type == FTPU_LINK_UNKNOWN ? FTPU_LINK_TYPE_UNKNOWN : e->type };
	send(d, FTPU_LINK_ERROR, -1, p, 3);
}

/* ---- public ------------------------------------------------------------------------ */

_Static_assert((SOC_RING_BYTES & (SOC_RING_BYTES - 1u)) == 0, "the ring wraps by a mask");
_Static_assert(SOC_RING_NEED(SOC_MAX_RX_WORDS) <= SOC_RING_BYTES,
	       "the ring must hold what the largest credit lets a host send");
_Static_assert(SOC_RX_BUF_WORDS >= FTPU_LINK_MAX_CONTROL, "a CONTROL frame must fit");
_Static_assert(FTPU_MEM_UB == 0 && FTPU_MEM_WM == 1 && FTPU_MEM_ACC == 2 && FTPU_MEM_BIAS == 3,
	       "d->mem[] is indexed by the memory field");

/* The model's limits (ftpu_ref_device_open) where they matter here, N a
 * power of two (vectors are found by shifts: the core cannot multiply),
 * then the storage's. */
int soc_device_init(struct soc_device *d, struct soc_storage *m,
		    const struct soc_device_config *cfg)
{
	if (!d || !m || !cfg || cfg->n < 2 || cfg->n > SOC_MAX_N || (cfg->n & (cfg->n - 1)) ||
	    cfg->wm_rows < cfg->n || cfg->rx_words < 2 + FTPU_ISA_WORDS ||
	    cfg->rx_words > SOC_MAX_RX_WORDS || SOC_RING_NEED(cfg->rx_words) > SOC_RING_BYTES)
		return FTPU_PROTO_ERR_INVALID;
	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	d->m = m;
	/* UB, WM, ACC, BIAS one after the other in m->mem */
	const uint32_t vectors[4] = { cfg->ub_vectors, cfg->wm_rows, cfg->acc_vectors,
				      cfg->bias_vectors };
	unsigned int log2n = 0;
	while (1u << log2n < cfg->n)
		log2n++;
	uint32_t at = 0;
	for (unsigned int mem = FTPU_MEM_UB; mem <= FTPU_MEM_BIAS; mem++) {
		/* bf16 pairs in UB and WM, fp32 in ACC and BIAS */
		unsigned int shift = mem <= FTPU_MEM_WM ? log2n - 1 : log2n;
		if (!vectors[mem] || vectors[mem] > (SOC_MEM_WORDS - at) >> shift)
			return FTPU_PROTO_ERR_INVALID;
		d->mem[mem] = m->mem + at;
		d->vectors[mem] = vectors[mem];
		d->words[mem] = 1u << shift;
		d->shift[mem] = shift;
		at += vectors[mem] << shift;
	}
	d->mem_total = at;
	d->ring.buf = m->ring;
	d->ring.mask = SOC_RING_BYTES - 1u;
	d->timeout = div_u32(cfg->clock_hz, 1000u) * SOC_RX_TIMEOUT_MS;
	d->cb.admit = on_admit;
	d->cb.frame = on_frame;
	d->cb.error = on_error;
	d->cb.ctx = d;
	uint32_t cap = cfg->rx_words - 2u;
	if (ftpu_link_rx_init(&d->rx, m->rx_buf, cap < FTPU_LINK_MAX_CONTROL ?
				  FTPU_LINK_MAX_CONTROL : cap) ||
	    ftpu_link_rx_set_role(&d->rx, FTPU_LINK_ROLE_DEVICE))
		return FTPU_PROTO_ERR_INVALID;
	clear_state(d);
	return FTPU_PROTO_OK;
}

void soc_device_step(struct soc_device *d)
{
	struct soc_ring *r = &d->ring;
	pump(d);
	uint32_t used = r->head - r->tail;
	if (used) {
		/* contiguous bytes from tail, at most a chunk */
		uint32_t at = r->tail & r->mask, n = r->mask + 1u - at;
		if (n > used)
			n = used;
		if (n > SOC_CHUNK)
			n = SOC_CHUNK;
		ftpu_link_rx_push(&d->rx, r->buf + at, n, &d->cb);
		r->tail += n;
		return;
	}
	/* time read every idle turn (soc_hal_cycles' 64 bits need it), so
	 * the 32-bit difference cannot wrap unseen */
	uint32_t now = (uint32_t)soc_hal_cycles();
	if (ftpu_link_rx_pending(&d->rx) && now - r->last_in >= d->timeout) {
		soc_hal_busy(true);
		ftpu_link_rx_timeout(&d->rx, &d->cb);
		return;
	}
	soc_hal_busy(false);
}

bool soc_device_drained(const struct soc_device *d)
{
	return d->ring.head == d->ring.tail;
}
