/* SPDX-License-Identifier: Apache-2.0 */
/* Illegal instructions: encodings outside RV32I + Zicsr trap with mcause
 * 2, mepc = their address (the word there is the instruction), mtval 0,
 * and write no register. FENCE, FENCE.I and WFI are legal (no-ops). */
#include "cpu_test.h"

.macro ILLEGAL word
	TRAP_TO 8f
	li a0, 0x1234
	li t6, -1
	csrw mtval, t6
7:	.word \word
	j fail
8:	EXPECT_CSR mcause, CAUSE_ILLEGAL
	EXPECT_MEPC 7b
	EXPECT_CSR mtval, 0
	csrr t5, mepc
	lw t5, 0(t5)
	li t6, \word
	bne t5, t6, fail
	EXPECT a0, 0x1234
.endm

	TEST_START

	CHECK 1	/* all zeros, all ones, 16-bit (compressed) encodings */
	ILLEGAL 0x00000000
	ILLEGAL 0xffffffff
	ILLEGAL 0x00000001		/* c.nop */
	ILLEGAL 0x00004502		/* c.lwsp a0 */
	ILLEGAL 0x0000007f		/* opcode 0x7f */

	CHECK 2	/* other extensions: M, A, F, RV64 */
	ILLEGAL 0x02b50533		/* mul a0, a0, a1 */
	ILLEGAL 0x02b54533		/* div a0, a0, a1 */
	ILLEGAL 0x00b5252f		/* amoadd.w a0, a1, (a0) */
	ILLEGAL 0x00052007		/* flw f0, 0(a0) */
	ILLEGAL 0x00053503		/* ld a0, 0(a0) */
	ILLEGAL 0x00056503		/* lwu a0, 0(a0) */
	ILLEGAL 0x00a53023		/* sd a0, 0(a0) */
	ILLEGAL 0x0005051b		/* addiw a0, a0, 0 */
	ILLEGAL 0x00b5053b		/* addw a0, a0, a1 */

	CHECK 3	/* reserved funct fields of RV32I opcodes */
	ILLEGAL 0x40b51533		/* sll with funct7 0x20 */
	ILLEGAL 0x40b52533		/* slt with funct7 0x20 */
	ILLEGAL 0x00b50533 | (1 << 31)	/* add with funct7 0x40 */
	ILLEGAL 0x40151513		/* slli with funct7 0x20 */
	ILLEGAL 0x02155513		/* srli, shamt bit 5 (RV64 only) */
	ILLEGAL 0x20155513		/* srli/srai with funct7 0x10 */
	ILLEGAL 0x00057503		/* load funct3 7 */
	ILLEGAL 0x00a54023		/* store funct3 4 */
	ILLEGAL 0x00a57023		/* store funct3 7 */
	ILLEGAL 0x00002063		/* branch funct3 2 */
	ILLEGAL 0x00003063		/* branch funct3 3 */
	ILLEGAL 0x000510e7		/* jalr funct3 1 */
	ILLEGAL 0x0000200f		/* misc-mem funct3 2 */

	CHECK 4	/* SYSTEM: funct3 4, ECALL/EBREAK/MRET with fields set */
	ILLEGAL 0x00004073		/* funct3 4 */
	ILLEGAL 0x000000f3		/* ecall with rd = 1 */
	ILLEGAL 0x00008073		/* ecall with rs1 = 1 */
	ILLEGAL 0x00200073		/* uret */
	ILLEGAL 0x10200073		/* sret */
	ILLEGAL 0x7b200073		/* dret */
	ILLEGAL 0x12000073		/* sfence.vma */

	CHECK 5	/* legal no-ops */
	TRAP_RESET
	fence
	fence rw, rw
	.word 0x0000100f		/* fence.i */
	wfi
	li a0, 3
	EXPECT a0, 3
	j pass

	TEST_END
