/* SPDX-License-Identifier: Apache-2.0 */
/*
 * isa.h - the device's instruction set (docs/isa.md): opcodes, flags, fault
 * codes and the three-word encoding. Shared by the C device model, the
 * compiler and the tests; the RTL decoder implements the same table.
 */
#ifndef FTPU_ISA_H
#define FTPU_ISA_H

#include <stdint.h>

/* Opcodes, memories, flags, fault codes, FTPU_ISA_WORDS and the fields of
 * word 0: ftpu_spec.h, generated from spec/ftpu.toml. */
#include "ftpu_spec.h"

/* Word 0: opcode | flags | n (FTPU_ISA_FIELD_*). */
#define FTPU_ISA_PUT(v, f)                                                     \
	(((uint32_t)(v) & ((1u << FTPU_ISA_FIELD_##f##_WIDTH) - 1u))           \
	 << FTPU_ISA_FIELD_##f##_LSB)
#define FTPU_ISA_GET(w, f)                                                     \
	((uint32_t)(w) >> FTPU_ISA_FIELD_##f##_LSB &                           \
	 ((1u << FTPU_ISA_FIELD_##f##_WIDTH) - 1u))
static inline void ftpu_isa_encode(uint32_t out[FTPU_ISA_WORDS], unsigned op,
				   unsigned flags, unsigned n, uint32_t a,
				   uint32_t b)
{
	out[0] = FTPU_ISA_PUT(op, OP) | FTPU_ISA_PUT(flags, FLAGS) | FTPU_ISA_PUT(n, N);
	out[1] = a;
	out[2] = b;
}

static inline unsigned ftpu_isa_op(uint32_t w0) { return FTPU_ISA_GET(w0, OP); }
static inline unsigned ftpu_isa_flags(uint32_t w0) { return FTPU_ISA_GET(w0, FLAGS); }
static inline unsigned ftpu_isa_n(uint32_t w0) { return FTPU_ISA_GET(w0, N); }

#endif /* FTPU_ISA_H */
