/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_device.c - the C model of the ftpu device (ref_device.h).
 *
 * Bytes go through the protocol's reference receiver (link.c); CONTROL
 * frames are answered at once; PROGRAM frames feed an instruction decoder
 * that keeps its state across frames, so an instruction or its inline data
 * may be split anywhere. Each instruction runs to completion when its last
 * word arrives: in-order execution is the specification the concurrent
 * units of the RTL must match.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "link.h"
#include "numeric.h"
#include "ref_device.h"
#include "status.h"

enum { MAX_VECTORS = 65536 };

/* The counters of READ_COUNTERS (docs/protocol.md), as 64-bit values. */
struct counters {
	uint64_t cycles, macs, bytes_in, bytes_out, instructions;
};

struct ftpu_ref_device {
	struct ftpu_ref_device_config cfg;
	uint16_t *ub, *wm;  /* n bf16 per vector / row */
	uint32_t *acc, *bias; /* n fp32 per vector */
	uint16_t *tile[2];  /* the array's two weight buffers, n x n */
	unsigned int cur;   /* buffer MATMUL uses */
	bool cur_valid;     /* a tile has been swapped in */
	bool next_valid;    /* the other buffer holds a loaded tile */

	struct ftpu_link_rx rx;
	uint32_t *rx_buf;

	/* Program decoder. */
	bool in_program; /* START seen, END not yet */
	bool discarding; /* the program faulted: drop words up to END */
	uint32_t instr[FTPU_ISA_WORDS];
	unsigned int instr_have; /* words of instr received */
	uint32_t pc;             /* index of the instruction in its program */
	/* Inline data of the HOST_READ being received. */
	uint32_t data_left;      /* words still to come */
	uint32_t data_at;        /* word index into the target region */
	unsigned int data_mem;
	bool data_u8;            /* HOST_READ U8: bytes, stored as bf16(p / 255) */
	bool data_also_wm;       /* HOST_READ ALSO_WM: each UB vector to WM too */
	uint32_t data_base;      /* first vector */
	uint32_t data_wm_base;   /* ... its first WM row */
	uint32_t *data_vec;      /* the vector being received (n words) */
	uint32_t *block;         /* CONVERT / COPY: n x n elements in flight */

	/* Faults since reset; the last one. */
	uint32_t faults, fault_pc, fault_code, fault_instr;
	struct counters cnt;

	/* Output bytes: [head, len) are unread. */
	uint8_t *out;
	size_t out_head, out_len, out_cap;
	bool broken; /* out of memory: the device no longer answers */
};

/* ---- memories ----------------------------------------------------------- */

static uint32_t mem_vectors(const struct ftpu_ref_device *d, unsigned int mem)
{
	switch (mem) {
	case FTPU_MEM_UB: return d->cfg.ub_vectors;
	case FTPU_MEM_WM: return d->cfg.wm_rows;
	case FTPU_MEM_ACC: return d->cfg.acc_vectors;
	default: return d->cfg.bias_vectors;
	}
}

/* Words per vector on the link: bf16 pairs or fp32 values. */
static uint32_t mem_words(const struct ftpu_ref_device *d, unsigned int mem)
{
	return mem == FTPU_MEM_UB || mem == FTPU_MEM_WM ? d->cfg.n / 2 : d->cfg.n;
}

/* [base, base + n) within the memory; computed without overflow. */
static bool in_range(uint32_t base, uint32_t n, uint32_t size)
{
	return base < size && n <= size - base;
}

static void clear_state(struct ftpu_ref_device *d)
{
	size_t n = d->cfg.n;
	memset(d->ub, 0, d->cfg.ub_vectors * n * sizeof(*d->ub));
	memset(d->wm, 0, d->cfg.wm_rows * n * sizeof(*d->wm));
	memset(d->acc, 0, d->cfg.acc_vectors * n * sizeof(*d->acc));
	memset(d->bias, 0, d->cfg.bias_vectors * n * sizeof(*d->bias));
	memset(d->tile[0], 0, n * n * sizeof(*d->tile[0]));
	memset(d->tile[1], 0, n * n * sizeof(*d->tile[1]));
	d->cur = 0;
	d->cur_valid = d->next_valid = false;
	d->in_program = d->discarding = false;
	d->instr_have = 0;
	d->data_left = 0;
	d->pc = 0;
	d->faults = d->fault_pc = d->fault_code = d->fault_instr = 0;
	memset(&d->cnt, 0, sizeof(d->cnt));
}

/* ---- output --------------------------------------------------------------- */

static uint16_t credit(const struct ftpu_ref_device *d)
{
	return d->cfg.rx_words > 0xffff ? 0xffff : (uint16_t)d->cfg.rx_words;
}

/* Queues one frame; on allocation failure the device stops answering. */
static void send(struct ftpu_ref_device *d, unsigned int type, uint16_t seq,
		 const uint32_t *payload, size_t n)
{
	size_t bytes = FTPU_LINK_FRAME_BYTES(n);
	if (d->broken)
		return;
	if (d->out_head > 0 && d->out_head == d->out_len)
		d->out_head = d->out_len = 0;
	if (d->out_len + bytes > d->out_cap) {
		size_t cap = d->out_cap ? d->out_cap : 65536;
		while (cap < d->out_len + bytes)
			cap *= 2;
		uint8_t *p = realloc(d->out, cap);
		if (!p) {
			d->broken = true;
			return;
		}
		d->out = p;
		d->out_cap = cap;
	}
	int len = ftpu_link_encode(type, seq, credit(d), payload, n,
				   d->out + d->out_len, d->out_cap - d->out_len);
	if (len < 0) { /* cannot happen: sizes are ours */
		d->broken = true;
		return;
	}
	d->out_len += (size_t)len;
	d->cnt.bytes_out += (uint64_t)len;
}

/* DATA, EVENT and ERROR frames carry the acknowledged seq: the last host
 * frame the receiver has finished (docs/protocol.md §5). */
static uint16_t ack_seq(const struct ftpu_ref_device *d)
{
	int32_t ack = ftpu_link_rx_ack(&d->rx);
	return ack < 0 ? 0 : (uint16_t)ack;
}

static void fault(struct ftpu_ref_device *d, unsigned int code)
{
	uint32_t ev[4] = { FTPU_LINK_EVENT_FAULT, d->pc, code, d->instr[0] };
	d->faults++;
	d->fault_pc = d->pc;
	d->fault_code = code;
	d->fault_instr = d->instr[0];
	send(d, FTPU_LINK_EVENT, ack_seq(d), ev, 4);
	d->discarding = true;
	d->instr_have = 0;
	d->data_left = 0;
}

/* ---- instructions ----------------------------------------------------------- */

/* Words per vector of a HOST_READ into mem (U8: four bytes a word). */
static uint32_t read_words(const struct ftpu_ref_device *d, unsigned int mem, bool u8)
{
	return u8 ? (d->cfg.n + 3) / 4 : mem_words(d, mem);
}

static void exec_host_read(struct ftpu_ref_device *d, unsigned int flags,
			   uint32_t n, uint32_t addr, uint32_t wm_row)
{
	unsigned int mem = flags & 3u;
	bool u8 = flags & FTPU_HOST_READ_U8, also_wm = flags & FTPU_HOST_READ_ALSO_WM;
	if ((flags & ~(3u | FTPU_HOST_READ_U8 | FTPU_HOST_READ_ALSO_WM)) ||
	    ((u8 || also_wm) && (mem != FTPU_MEM_UB || !d->cfg.vector_unit)))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (!in_range(addr, n, mem_vectors(d, mem)) ||
	    (also_wm && !in_range(wm_row, n, d->cfg.wm_rows)))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	d->data_mem = mem;
	d->data_u8 = u8;
	d->data_also_wm = also_wm;
	d->data_base = addr;
	d->data_wm_base = wm_row;
	d->data_at = 0;
	d->data_left = n * read_words(d, mem, u8);
}

/* HOST_READ U8 (UNORM8): the byte p as bf16(p / 255), the quotient in fp32
 * rounded to bf16 (both to nearest even), as a host converts pixels. */
static uint16_t unorm8_to_bf16(uint8_t p)
{
	float q = (float)p / 255.0f;
	uint32_t u;
	memcpy(&u, &q, sizeof(u));
	return ftpu_f32_to_bf16(u);
}

/* One inline data word of the current HOST_READ. Words collect in a vector
 * that is written when complete, as the device's memories take whole
 * vectors: a program cut short inside a vector leaves that vector alone. */
static void host_read_word(struct ftpu_ref_device *d, uint32_t w)
{
	uint32_t words = read_words(d, d->data_mem, d->data_u8);
	d->data_vec[d->data_at % words] = w;
	d->data_at++;
	if (d->data_at % words == 0) {
		size_t n = d->cfg.n, v = d->data_base + d->data_at / words - 1;
		if (d->data_u8) {
			for (size_t i = 0; i < n; i++)
				d->ub[v * n + i] = unorm8_to_bf16((uint8_t)(d->data_vec[i / 4] >> (8 * (i % 4))));
		} else switch (d->data_mem) {
		case FTPU_MEM_UB:
		case FTPU_MEM_WM: {
			uint16_t *m = (d->data_mem == FTPU_MEM_UB ? d->ub : d->wm) + v * n;
			for (size_t i = 0; i < n / 2; i++) {
				m[2 * i] = (uint16_t)d->data_vec[i];
				m[2 * i + 1] = (uint16_t)(d->data_vec[i] >> 16);
			}
			break;
		}
		case FTPU_MEM_ACC:
			memcpy(d->acc + v * n, d->data_vec, n * sizeof(uint32_t));
			break;
		default:
			memcpy(d->bias + v * n, d->data_vec, n * sizeof(uint32_t));
			break;
		}
		if (d->data_also_wm) /* a UB vector: the same bf16 row in WM */
			memcpy(d->wm + (v - d->data_base + d->data_wm_base) * n, d->ub + v * n,
			       n * sizeof(uint16_t));
	}
	if (--d->data_left == 0) {
		d->cnt.instructions++;
		d->pc++;
	}
}

static void exec_load_weights(struct ftpu_ref_device *d, unsigned int flags,
			      uint32_t n, uint32_t row)
{
	size_t N = d->cfg.n;
	if (flags)
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (n != 1)
		{ fault(d, FTPU_FAULT_COUNT); return; }
	if (!in_range(row, (uint32_t)N, d->cfg.wm_rows))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	memcpy(d->tile[d->cur ^ 1], d->wm + (size_t)row * N, N * N * sizeof(uint16_t));
	d->next_valid = true;
	d->cnt.cycles += N;
}

static void exec_matmul(struct ftpu_ref_device *d, unsigned int flags,
			uint32_t n, uint32_t ub, uint32_t acc)
{
	size_t N = d->cfg.n;
	if (flags & ~(FTPU_MATMUL_ACCUMULATE | FTPU_MATMUL_SWAP))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (!in_range(ub, n, d->cfg.ub_vectors) || !in_range(acc, n, d->cfg.acc_vectors))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	if ((flags & FTPU_MATMUL_SWAP) ? !d->next_valid : !d->cur_valid)
		{ fault(d, FTPU_FAULT_NO_TILE); return; }
	if (flags & FTPU_MATMUL_SWAP) {
		d->cur ^= 1;
		d->cur_valid = true;
		d->next_valid = false;
	}
	ftpu_ref_gemm(n, N, N, d->ub + (size_t)ub * N, N, d->tile[d->cur], N,
		      d->acc + (size_t)acc * N, N, flags & FTPU_MATMUL_ACCUMULATE);
	d->cnt.macs += (uint64_t)n * N * N;
	d->cnt.cycles += n;
}

static void exec_activate(struct ftpu_ref_device *d, unsigned int flags,
			  uint32_t n, uint32_t acc, uint32_t b)
{
	size_t N = d->cfg.n;
	uint32_t ub = b & 0xffffu, bias = b >> 16;
	if (flags & ~(FTPU_ACTIVATE_RELU | FTPU_ACTIVATE_BIAS))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (!in_range(acc, n, d->cfg.acc_vectors) || !in_range(ub, n, d->cfg.ub_vectors) ||
	    ((flags & FTPU_ACTIVATE_BIAS) && bias >= d->cfg.bias_vectors))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < N; c++) {
			/* no bias is a bias of -0: x + (-0) == x (NaN canonical) */
			uint32_t bv = (flags & FTPU_ACTIVATE_BIAS) ?
				      d->bias[(size_t)bias * N + c] : 0x80000000u;
			d->ub[(ub + i) * N + c] = ftpu_ref_activate(
				d->acc[(acc + i) * N + c], bv, flags & FTPU_ACTIVATE_RELU);
		}
	d->cnt.cycles += n;
}

static void exec_host_write(struct ftpu_ref_device *d, unsigned int flags,
			    uint32_t n, uint32_t addr, uint32_t b)
{
	unsigned int mem = flags & 3u;
	bool part = flags & FTPU_HOST_WRITE_WORDS;
	if (flags & ~(3u | FTPU_HOST_WRITE_WORDS))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (mem != FTPU_MEM_UB && mem != FTPU_MEM_ACC)
		{ fault(d, FTPU_FAULT_MEMORY); return; }
	/* WORDS: the first b words of each vector (the rest stays here). */
	size_t vwords = mem_words(d, mem), words = part ? b : vwords;
	if (part && (b == 0 || b > vwords))
		{ fault(d, FTPU_FAULT_COUNT); return; }
	if (!in_range(addr, n, mem_vectors(d, mem)))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	/* Whole (or WORDS-cut) vectors per DATA frame, as many as fit. */
	size_t per = FTPU_LINK_MAX_PAYLOAD / words;
	uint32_t buf[FTPU_LINK_MAX_PAYLOAD];
	for (size_t v = 0; v < n; v += per) {
		size_t cnt = n - v < per ? n - v : per;
		for (size_t k = 0; k < cnt; k++) {
			size_t vec = (size_t)addr + v + k;
			for (size_t i = 0; i < words; i++) {
				const uint16_t *u = d->ub + vec * d->cfg.n + 2 * i;
				buf[k * words + i] = mem == FTPU_MEM_ACC ?
					d->acc[vec * d->cfg.n + i] :
					(uint32_t)u[0] | (uint32_t)u[1] << 16;
			}
		}
		send(d, FTPU_LINK_DATA, ack_seq(d), buf, cnt * words);
	}
}

/* ---- vector unit (docs/vector.md) ------------------------------------------ */

/* A destination range equal to a source range (in place) or apart from it:
 * then element-wise order gives what reading everything first would. */
static bool apart_or_equal(uint32_t dst, uint32_t n, uint32_t src, uint32_t sn)
{
	return (dst == src && n == sn) || dst + n <= src || src + sn <= dst;
}

static void exec_vector(struct ftpu_ref_device *d, unsigned int op,
			unsigned int flags, uint32_t n, uint32_t w1, uint32_t w2)
{
	size_t N = d->cfg.n;
	uint32_t a = w1 & 0xffffu, b = w1 >> 16, dst = w2 & 0xffffu, c = w2 >> 16;
	bool uses_c = op == FTPU_OP_VMAC || op == FTPU_OP_VSEL;
	unsigned int allowed = FTPU_VECTOR_B_FIXED | (uses_c ? FTPU_VECTOR_C_FIXED : 0) |
			       (op == FTPU_OP_VSEED ? FTPU_VECTOR_HALF : 0);
	uint32_t size = d->cfg.acc_vectors;

	if (!d->cfg.vector_unit || (flags & ~allowed))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (n == 0)
		{ fault(d, FTPU_FAULT_COUNT); return; }
	uint32_t bn = (flags & FTPU_VECTOR_B_FIXED) ? 1 : n;
	uint32_t cn = (flags & FTPU_VECTOR_C_FIXED) ? 1 : n;
	if (!in_range(a, n, size) || !in_range(b, bn, size) || !in_range(dst, n, size) ||
	    (uses_c && !in_range(c, cn, size)) || !apart_or_equal(dst, n, a, n) ||
	    !apart_or_equal(dst, n, b, bn) || (uses_c && !apart_or_equal(dst, n, c, cn)))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	for (size_t i = 0; i < n; i++) {
		const uint32_t *x = d->acc + (a + i) * N;
		const uint32_t *y = d->acc + (b + (bn > 1 ? i : 0)) * N;
		const uint32_t *z = d->acc + (c + (cn > 1 ? i : 0)) * N;
		uint32_t *r = d->acc + (dst + i) * N;
		for (size_t l = 0; l < N; l++) {
			uint32_t v;
			switch (op) {
			case FTPU_OP_VADD: v = ftpu_ref_add(x[l], y[l]); break;
			case FTPU_OP_VSUB: v = ftpu_ref_sub(x[l], y[l]); break;
			case FTPU_OP_VMUL: v = ftpu_ref_fmul(x[l], y[l]); break;
			case FTPU_OP_VMAC: v = ftpu_ref_add(ftpu_ref_fmul(x[l], y[l]), z[l]); break;
			case FTPU_OP_VMAX: v = ftpu_ref_max(x[l], y[l]); break;
			case FTPU_OP_VSEL: v = ftpu_ref_select(z[l], x[l], y[l]); break;
			default: /* VSEED */
				v = ftpu_ref_seed(x[l], y[l], flags & FTPU_VECTOR_HALF ? 1 : 0);
				break;
			}
			r[l] = v; /* every source element of index l is read */
		}
	}
	d->cnt.cycles += (n + FTPU_VECTOR_WIDTH - 1) / FTPU_VECTOR_WIDTH; /* V vectors a cycle */
}

static uint16_t *bf16_mem(struct ftpu_ref_device *d, unsigned int mem)
{
	return mem == FTPU_MEM_UB ? d->ub : d->wm;
}

/* Block by block through d->block (N vectors), transposed or not: with
 * ranges apart or equal that is reading everything before writing. */
static void exec_convert_copy(struct ftpu_ref_device *d, unsigned int op,
			      unsigned int flags, uint32_t n, uint32_t src, uint32_t dst)
{
	size_t N = d->cfg.n;
	bool convert = op == FTPU_OP_CONVERT;
	unsigned int tflag = convert ? FTPU_TRANSPOSE_CONVERT : FTPU_TRANSPOSE_COPY;
	unsigned int smem = convert ? FTPU_MEM_ACC : (flags & 3u);
	unsigned int dmem = convert ? (flags & 3u) : (flags >> 2 & 3u);
	unsigned int allowed = (convert ? 3u : 0xfu) | tflag;
	bool transpose = flags & tflag;

	if (!d->cfg.vector_unit || (flags & ~allowed) ||
	    (!convert && smem != FTPU_MEM_UB && smem != FTPU_MEM_WM) ||
	    (dmem != FTPU_MEM_UB && dmem != FTPU_MEM_WM))
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	if (n == 0 || (transpose && n % N))
		{ fault(d, FTPU_FAULT_COUNT); return; }
	if (!in_range(src, n, mem_vectors(d, smem)) || !in_range(dst, n, mem_vectors(d, dmem)) ||
	    (smem == dmem && !apart_or_equal(dst, n, src, n)))
		{ fault(d, FTPU_FAULT_RANGE); return; }
	uint16_t *out = bf16_mem(d, dmem);
	for (size_t at = 0; at < n; at += N) {
		size_t rows = n - at < N ? n - at : N;
		for (size_t i = 0; i < rows; i++)
			for (size_t l = 0; l < N; l++)
				d->block[i * N + l] = convert ?
					ftpu_f32_to_bf16(d->acc[(src + at + i) * N + l]) :
					bf16_mem(d, smem)[(src + at + i) * N + l];
		for (size_t i = 0; i < rows; i++)
			for (size_t l = 0; l < N; l++)
				out[(dst + at + i) * N + l] = (uint16_t)(transpose ?
					d->block[l * N + i] : d->block[i * N + l]);
	}
	d->cnt.cycles += n;
}

/* Runs the complete instruction in d->instr (HOST_READ: its header). */
static void execute(struct ftpu_ref_device *d)
{
	uint32_t w0 = d->instr[0], a = d->instr[1], b = d->instr[2];
	unsigned int op = ftpu_isa_op(w0), flags = ftpu_isa_flags(w0);
	uint32_t n = ftpu_isa_n(w0);

	if (n == 0 && op >= FTPU_OP_HOST_READ && op <= FTPU_OP_HOST_WRITE)
		{ fault(d, FTPU_FAULT_COUNT); return; }
	switch (op) {
	case FTPU_OP_HOST_READ:
		exec_host_read(d, flags, n, a, b);
		return; /* retires when its data is in */
	case FTPU_OP_LOAD_WEIGHTS:
		exec_load_weights(d, flags, n, a);
		break;
	case FTPU_OP_MATMUL:
		exec_matmul(d, flags, n, a, b);
		break;
	case FTPU_OP_ACTIVATE:
		exec_activate(d, flags, n, a, b);
		break;
	case FTPU_OP_HOST_WRITE:
		exec_host_write(d, flags, n, a, b);
		break;
	case FTPU_OP_VADD: case FTPU_OP_VSUB: case FTPU_OP_VMUL: case FTPU_OP_VMAC:
	case FTPU_OP_VMAX: case FTPU_OP_VSEL: case FTPU_OP_VSEED:
		exec_vector(d, op, flags, n, a, b);
		break;
	case FTPU_OP_CONVERT:
	case FTPU_OP_COPY:
		exec_convert_copy(d, op, flags, n, a, b);
		break;
	case FTPU_OP_SYNC:
		if (flags)
			{ fault(d, FTPU_FAULT_OPCODE); return; }
		send(d, FTPU_LINK_EVENT, ack_seq(d),
		     (const uint32_t[]){ FTPU_LINK_EVENT_SYNC, a }, 2);
		break;
	default:
		{ fault(d, FTPU_FAULT_OPCODE); return; }
	}
	if (!d->discarding) {
		d->cnt.instructions++;
		d->pc++;
	}
}

/* ---- frames ------------------------------------------------------------------ */

static void program_word(struct ftpu_ref_device *d, uint32_t w)
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
static void program_end(struct ftpu_ref_device *d)
{
	if (!d->discarding && (d->instr_have || d->data_left))
		fault(d, FTPU_FAULT_TRUNCATED);
	d->in_program = d->discarding = false;
	d->instr_have = 0;
	d->data_left = 0;
}

static void on_program(struct ftpu_ref_device *d, const struct ftpu_link_frame *f)
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
	for (size_t i = 0; i < f->len; i++)
		program_word(d, f->payload[i]);
	if (f->flags & FTPU_PROGRAM_END)
		program_end(d);
}

static void respond(struct ftpu_ref_device *d, uint16_t seq, uint32_t op,
		    uint32_t status, const uint32_t *words, size_t n)
{
	uint32_t p[2 + 2 * 16];
	p[0] = op;
	p[1] = status;
	if (n)
		memcpy(p + 2, words, n * sizeof(*words));
	send(d, FTPU_LINK_RESPONSE, seq, p, 2 + n);
}

static void on_control(struct ftpu_ref_device *d, const struct ftpu_link_frame *f)
{
	const struct ftpu_ref_device_config *c = &d->cfg;
	uint32_t op = f->len ? f->payload[0] : 0;
	if (f->len != 1)
		{ respond(d, f->seq, op, FTPU_LINK_RESP_BAD_REQUEST, NULL, 0); return; }
	switch (op) {
	case FTPU_LINK_OP_INFO: {
		const uint32_t kv[] = {
			FTPU_LINK_INFO_VERSION, FTPU_LINK_VERSION_MAJOR << 16 | FTPU_LINK_VERSION_MINOR,
			FTPU_LINK_INFO_ROWS, c->n,
			FTPU_LINK_INFO_COLS, c->n,
			FTPU_LINK_INFO_UB_VECTORS, c->ub_vectors,
			FTPU_LINK_INFO_WEIGHT_TILES, c->wm_rows / c->n,
			FTPU_LINK_INFO_ACC_VECTORS, c->acc_vectors,
			FTPU_LINK_INFO_BIAS_VECTORS, c->bias_vectors,
			FTPU_LINK_INFO_IQ_WORDS, c->rx_words,
			FTPU_LINK_INFO_CLOCK_HZ, c->clock_hz,
			FTPU_LINK_INFO_ROW_DELAY, c->row_delay,
			FTPU_LINK_INFO_MAX_PAYLOAD, FTPU_LINK_MAX_PAYLOAD,
			FTPU_LINK_INFO_FEATURES, (uint32_t)c->vector_unit << FTPU_FEATURE_VECTOR_UNIT_LSB |
							 (uint32_t)c->in_order << FTPU_FEATURE_IN_ORDER_LSB,
			FTPU_LINK_INFO_LINK_BYTES, c->link_bytes ? c->link_bytes : 1,
		};
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, kv, sizeof(kv) / 4); return; }
	}
	case FTPU_LINK_OP_STATUS: {
		uint32_t s[FTPU_LINK_STATUS_COUNT] = {
			[FTPU_LINK_STATUS_STATE] = d->discarding ? FTPU_LINK_STATE_FAULTED :
						   d->in_program ? FTPU_LINK_STATE_RUNNING :
								   FTPU_LINK_STATE_IDLE,
			[FTPU_LINK_STATUS_FREE_WORDS] = c->rx_words,
			[FTPU_LINK_STATUS_QUEUED_WORDS] = 0,
			[FTPU_LINK_STATUS_FAULTS] = d->faults,
		};
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, s, FTPU_LINK_STATUS_COUNT); return; }
	}
	case FTPU_LINK_OP_RESET:
		clear_state(d);
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, NULL, 0); return; }
	case FTPU_LINK_OP_READ_COUNTERS: {
		const struct counters *k = &d->cnt;
		uint32_t w[FTPU_LINK_CNT_COUNT] = {
			[FTPU_LINK_CNT_CYCLES] = (uint32_t)k->cycles,
			[FTPU_LINK_CNT_BUSY] = (uint32_t)k->cycles,
			[FTPU_LINK_CNT_MACS_LO] = (uint32_t)k->macs,
			[FTPU_LINK_CNT_MACS_HI] = (uint32_t)(k->macs >> 32),
			[FTPU_LINK_CNT_BYTES_IN_LO] = (uint32_t)k->bytes_in,
			[FTPU_LINK_CNT_BYTES_IN_HI] = (uint32_t)(k->bytes_in >> 32),
			[FTPU_LINK_CNT_BYTES_OUT_LO] = (uint32_t)k->bytes_out,
			[FTPU_LINK_CNT_BYTES_OUT_HI] = (uint32_t)(k->bytes_out >> 32),
			[FTPU_LINK_CNT_INSTRUCTIONS] = (uint32_t)k->instructions,
		};
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, w, FTPU_LINK_CNT_COUNT); return; }
	}
	case FTPU_LINK_OP_CLEAR_COUNTERS:
		memset(&d->cnt, 0, sizeof(d->cnt));
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, NULL, 0); return; }
	case FTPU_LINK_OP_READ_FAULTS: {
		uint32_t w[4] = { d->faults, d->fault_pc, d->fault_code, d->fault_instr };
		{ respond(d, f->seq, op, FTPU_LINK_RESP_OK, w, 4); return; }
	}
	default:
		/* including the firmware ops 7..12 (FW_INFO, SELFTEST, updates,
		 * BOOT: docs/protocol.md §7.2.1): the C model has no control
		 * core, as a ControlCore = 0 device; libftpu reports
		 * FTPU_ERR_UNSUPPORTED */
		{ respond(d, f->seq, op, FTPU_LINK_RESP_UNKNOWN_OP, NULL, 0); return; }
	}
}

/* The receiver (role DEVICE) has refused other types already. The model
 * executes every frame as it arrives, so its receive buffer and its mailbox
 * are always empty: a PROGRAM frame, which takes len + 2 buffer words,
 * overflows only beyond the whole buffer, a CONTROL frame only beyond
 * MAX_CONTROL (docs/protocol.md §6). */
static int on_admit(void *ctx, const struct ftpu_link_header *h)
{
	struct ftpu_ref_device *d = ctx;
	if (h->type == FTPU_LINK_CONTROL)
		return h->len > FTPU_LINK_MAX_CONTROL ? FTPU_LINK_ERR_OVERFLOW : 0;
	return h->len + 2u > d->cfg.rx_words ? FTPU_LINK_ERR_OVERFLOW : 0;
}

static void on_frame(void *ctx, const struct ftpu_link_frame *f)
{
	struct ftpu_ref_device *d = ctx;
	if (f->type == FTPU_LINK_CONTROL)
		on_control(d, f);
	else
		on_program(d, f);
}

static void on_error(void *ctx, const struct ftpu_link_error *e)
{
	struct ftpu_ref_device *d = ctx;
	uint32_t seq = e->seq == FTPU_LINK_UNKNOWN ? 0xffffu : e->seq;
	uint32_t type = e->type == FTPU_LINK_UNKNOWN ? 0xffu : e->type;
	uint32_t p[3] = { e->code, seq, type };
	send(d, FTPU_LINK_ERROR, ack_seq(d), p, 3);
}

/* ---- public --------------------------------------------------------------------- */

void ftpu_ref_device_default_config(struct ftpu_ref_device_config *cfg)
{
	if (!cfg)
		return;
	/* spec/ftpu.toml [device.default], as ftpu_top's parameters */
	*cfg = (struct ftpu_ref_device_config)FTPU_REF_DEVICE_SPEC_CONFIG(DEFAULT);
}

int ftpu_ref_device_open(const struct ftpu_ref_device_config *cfg,
			 struct ftpu_ref_device **out)
{
	struct ftpu_ref_device *d;
	size_t n;

	if (!cfg || !out || cfg->n < 2 || cfg->n > 256 || cfg->n % 2 ||
	    !cfg->ub_vectors || cfg->ub_vectors > MAX_VECTORS ||
	    cfg->wm_rows < cfg->n || cfg->wm_rows > 4 * MAX_VECTORS ||
	    !cfg->acc_vectors || cfg->acc_vectors > MAX_VECTORS ||
	    !cfg->bias_vectors || cfg->bias_vectors > MAX_VECTORS ||
	    cfg->rx_words < 2 + FTPU_ISA_WORDS) /* a PROGRAM frame of one instruction */
		return FTPU_PROTO_ERR_INVALID;
	d = calloc(1, sizeof(*d));
	if (!d)
		return FTPU_PROTO_ERR_NOMEM;
	d->cfg = *cfg;
	n = cfg->n;
	d->ub = calloc((size_t)cfg->ub_vectors * n, sizeof(*d->ub));
	d->wm = calloc((size_t)cfg->wm_rows * n, sizeof(*d->wm));
	d->acc = calloc((size_t)cfg->acc_vectors * n, sizeof(*d->acc));
	d->bias = calloc((size_t)cfg->bias_vectors * n, sizeof(*d->bias));
	d->tile[0] = calloc(n * n, sizeof(uint16_t));
	d->tile[1] = calloc(n * n, sizeof(uint16_t));
	d->rx_buf = calloc(FTPU_LINK_MAX_PAYLOAD, sizeof(uint32_t));
	d->data_vec = calloc(n, sizeof(uint32_t));
	d->block = calloc(n * n, sizeof(uint32_t));
	if (!d->ub || !d->wm || !d->acc || !d->bias || !d->tile[0] ||
	    !d->tile[1] || !d->rx_buf || !d->data_vec || !d->block)
		goto out_free;
	if (ftpu_link_rx_init(&d->rx, d->rx_buf, FTPU_LINK_MAX_PAYLOAD) ||
	    ftpu_link_rx_set_role(&d->rx, FTPU_LINK_ROLE_DEVICE))
		goto out_free;
	*out = d;
	return FTPU_PROTO_OK;

out_free:
	ftpu_ref_device_close(d);
	return FTPU_PROTO_ERR_NOMEM;
}

void ftpu_ref_device_close(struct ftpu_ref_device *d)
{
	if (!d)
		return;
	free(d->ub);
	free(d->wm);
	free(d->acc);
	free(d->bias);
	free(d->tile[0]);
	free(d->tile[1]);
	free(d->rx_buf);
	free(d->data_vec);
	free(d->block);
	free(d->out);
	free(d);
}

int ftpu_ref_device_write(struct ftpu_ref_device *d, const void *bytes, size_t n)
{
	const struct ftpu_link_rx_cb cb = {
		.admit = on_admit, .frame = on_frame, .error = on_error, .ctx = d,
	};
	if (!d || (!bytes && n))
		return FTPU_PROTO_ERR_INVALID;
	d->cnt.bytes_in += n;
	int ret = ftpu_link_rx_push(&d->rx, bytes, n, &cb);
	if (ret)
		return ret;
	return d->broken ? FTPU_PROTO_ERR_NOMEM : FTPU_PROTO_OK;
}

size_t ftpu_ref_device_read(struct ftpu_ref_device *d, void *buf, size_t cap)
{
	size_t n;
	if (!d || !buf)
		return 0;
	n = d->out_len - d->out_head;
	if (n > cap)
		n = cap;
	if (!n)
		return 0; /* out may still be NULL */
	memcpy(buf, d->out + d->out_head, n);
	d->out_head += n;
	return n;
}

size_t ftpu_ref_device_pending(const struct ftpu_ref_device *d)
{
	return d ? d->out_len - d->out_head : 0;
}
