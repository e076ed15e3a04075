/* SPDX-License-Identifier: Apache-2.0 */
/* BEQ, BNE, BLT, BGE, BLTU, BGEU: taken and not taken, forward and
 * backward, signed against unsigned, equal operands. A branch that should
 * not be taken falls into `j fail`; one that should be, skips it. */
#include "cpu_test.h"

/* taken: the branch must jump over the fail */
.macro TAKEN op, a, b
	\op \a, \b, 1f
	j fail
1:
.endm
/* not taken: the branch must fall through */
.macro NOT_TAKEN op, a, b
	\op \a, \b, fail
.endm

	TEST_START
	li s0, 1
	li s1, -1
	li s2, 0x80000000
	li s3, 0x7fffffff

	CHECK 1	/* BEQ, BNE */
	TAKEN beq, s0, s0
	TAKEN beq, zero, zero
	NOT_TAKEN beq, s0, s1
	TAKEN bne, s0, s1
	NOT_TAKEN bne, s1, s1
	NOT_TAKEN bne, zero, zero

	CHECK 2	/* BLT, BGE (signed) */
	TAKEN blt, s1, s0		/* -1 < 1 */
	NOT_TAKEN blt, s0, s1
	NOT_TAKEN blt, s0, s0
	TAKEN blt, s2, s3		/* INT_MIN < INT_MAX */
	TAKEN bge, s0, s1
	TAKEN bge, s0, s0		/* equal */
	NOT_TAKEN bge, s1, s0
	NOT_TAKEN bge, s2, s3
	TAKEN bge, s3, s2

	CHECK 3	/* BLTU, BGEU (unsigned) */
	TAKEN bltu, s0, s1		/* 1 < 0xffffffff */
	NOT_TAKEN bltu, s1, s0
	NOT_TAKEN bltu, s1, s1
	NOT_TAKEN bltu, s2, s3		/* 0x80000000 > 0x7fffffff */
	TAKEN bltu, s3, s2
	TAKEN bgeu, s1, s0
	TAKEN bgeu, s1, s1
	NOT_TAKEN bgeu, zero, s0
	TAKEN bgeu, s2, s3

	CHECK 4	/* backward branches: a counted loop runs 5 times */
	li a0, 0
	li a1, 5
2:	addi a0, a0, 1
	blt a0, a1, 2b
	EXPECT a0, 5
	li a0, 0
	li a1, 3
3:	addi a1, a1, -1
	addi a0, a0, 2
	bnez a1, 3b
	EXPECT a0, 6

	CHECK 5	/* a taken branch to the next instruction, and far */
	beq zero, zero, 4f
4:	bne zero, s0, far
	j fail
back:
	j pass

	.fill 600, 4, 0x00000013	/* 2400 bytes of nops */
far:	beq s0, s0, back		/* backward, 2.4 KiB */
	j fail

	TEST_END
