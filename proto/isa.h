/* SPDX-License-Identifier: Apache-2.0 */
/*
 * isa.h - the device's instruction set (docs/isa.md): opcodes, flags, fault
 * codes and the three-word encoding. Shared by the C device model, the
 * compiler and the tests; the RTL decoder implements the same table.
 */
#ifndef FTPU_ISA_H
#define FTPU_ISA_H

#include <stdint.h>

#define FTPU_ISA_WORDS 3u /* words per instruction, before inline data */

enum ftpu_op {
	FTPU_OP_HOST_READ = 0x01,
	FTPU_OP_LOAD_WEIGHTS = 0x02,
	FTPU_OP_MATMUL = 0x03,
	FTPU_OP_ACTIVATE = 0x04,
	FTPU_OP_HOST_WRITE = 0x05,
	FTPU_OP_SYNC = 0x06,
};

/* HOST_READ / HOST_WRITE flags[1:0]: the memory. */
enum ftpu_mem {
	FTPU_MEM_UB = 0,   /* bf16 vectors */
	FTPU_MEM_WM = 1,   /* bf16 weight rows */
	FTPU_MEM_ACC = 2,  /* fp32 vectors */
	FTPU_MEM_BIAS = 3, /* fp32 vectors */
};

#define FTPU_MATMUL_ACCUMULATE 0x01u
#define FTPU_MATMUL_SWAP 0x02u
#define FTPU_ACTIVATE_RELU 0x01u
#define FTPU_ACTIVATE_BIAS 0x02u

/* PROGRAM frame flags (docs/protocol.md): a program runs from a frame
 * flagged START to one flagged END (one frame may carry both). */
#define FTPU_PROGRAM_START 0x01u
#define FTPU_PROGRAM_END 0x02u

/* EVENT FAULT word 2. */
enum ftpu_fault {
	FTPU_FAULT_OPCODE = 1,   /* unknown opcode or reserved flag bits set */
	FTPU_FAULT_COUNT = 2,    /* n == 0, or LOAD_WEIGHTS with n != 1 */
	FTPU_FAULT_RANGE = 3,    /* address + n beyond a memory */
	FTPU_FAULT_NO_TILE = 4,  /* MATMUL without a tile to use or swap in */
	FTPU_FAULT_TRUNCATED = 5, /* the program ended inside an instruction */
	FTPU_FAULT_MEMORY = 6,   /* a memory the instruction cannot address */
	FTPU_FAULT_FRAMING = 7,  /* PROGRAM words outside START..END */
};

/* Word 0: opcode[7:0] | flags[15:8] | n[31:16]. */
static inline void ftpu_isa_encode(uint32_t out[FTPU_ISA_WORDS], unsigned op,
				   unsigned flags, unsigned n, uint32_t a,
				   uint32_t b)
{
	out[0] = (op & 0xffu) | (flags & 0xffu) << 8 | (n & 0xffffu) << 16;
	out[1] = a;
	out[2] = b;
}

static inline unsigned ftpu_isa_op(uint32_t w0) { return w0 & 0xffu; }
static inline unsigned ftpu_isa_flags(uint32_t w0) { return (w0 >> 8) & 0xffu; }
static inline unsigned ftpu_isa_n(uint32_t w0) { return w0 >> 16; }

#endif /* FTPU_ISA_H */
