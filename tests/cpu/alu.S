/* SPDX-License-Identifier: Apache-2.0 */
/* OP and OP-IMM: every ALU instruction, immediates sign-extended, shifts by
 * 0, 1, 31 and by register amounts whose upper bits are ignored, signed and
 * unsigned comparisons, wrap-around, rd = rs1 = rs2. */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* ADD, ADDI: wrap, negative immediates */
	li a0, 0x7fffffff
	li a1, 1
	add a2, a0, a1
	EXPECT a2, 0x80000000
	li a0, -1
	add a2, a0, a1
	EXPECT a2, 0
	addi a2, a1, -1
	EXPECT a2, 0
	addi a2, zero, -2048		/* smallest immediate */
	EXPECT a2, 0xfffff800
	addi a2, zero, 2047		/* largest */
	EXPECT a2, 0x7ff
	li a0, 0x12345678
	addi a2, a0, -0x678
	EXPECT a2, 0x12345000

	CHECK 2	/* SUB */
	li a0, 0
	li a1, 1
	sub a2, a0, a1
	EXPECT a2, 0xffffffff
	li a0, 0x80000000
	sub a2, a0, a1
	EXPECT a2, 0x7fffffff
	li a0, 1000
	li a1, 1000
	sub a2, a0, a1
	EXPECT a2, 0
	sub a0, a0, a0			/* rd = rs1 = rs2 */
	EXPECT a0, 0

	CHECK 3	/* AND, OR, XOR and immediates (sign-extended) */
	li a0, 0xff00ff00
	li a1, 0x0ff00ff0
	and a2, a0, a1
	EXPECT a2, 0x0f000f00
	or a2, a0, a1
	EXPECT a2, 0xfff0fff0
	xor a2, a0, a1
	EXPECT a2, 0xf0f0f0f0
	andi a2, a0, -256		/* 0xffffff00 */
	EXPECT a2, 0xff00ff00
	andi a2, a0, 0x7f0
	EXPECT a2, 0x00000700
	ori a2, a1, -2048		/* 0xfffff800 */
	EXPECT a2, 0xfffffff0
	xori a2, a0, -1			/* NOT */
	EXPECT a2, 0x00ff00ff
	xori a2, a0, 0x0ff
	EXPECT a2, 0xff00ffff

	CHECK 4	/* SLT, SLTU, SLTI, SLTIU */
	li a0, -1
	li a1, 1
	slt a2, a0, a1			/* -1 < 1 */
	EXPECT a2, 1
	sltu a2, a0, a1			/* 0xffffffff < 1: no */
	EXPECT a2, 0
	slt a2, a1, a0
	EXPECT a2, 0
	sltu a2, a1, a0
	EXPECT a2, 1
	slt a2, a1, a1			/* equal */
	EXPECT a2, 0
	sltu a2, a1, a1
	EXPECT a2, 0
	li a0, 0x80000000
	li a1, 0x7fffffff
	slt a2, a0, a1			/* most negative < most positive */
	EXPECT a2, 1
	sltu a2, a0, a1
	EXPECT a2, 0
	slti a2, a0, 0
	EXPECT a2, 1
	slti a2, a1, 2047
	EXPECT a2, 0
	slti a2, zero, -1
	EXPECT a2, 0
	sltiu a2, zero, 1		/* seqz */
	EXPECT a2, 1
	sltiu a2, a1, -1		/* x < 0xffffffff unsigned */
	EXPECT a2, 1
	li a0, -1
	sltiu a2, a0, -1		/* equal: no */
	EXPECT a2, 0
	sltu a2, zero, a1		/* snez */
	EXPECT a2, 1

	CHECK 5	/* SLL, SLLI: by 0, 1, 31; amounts from rs2[4:0] only */
	li a0, 0x80000001
	slli a2, a0, 0
	EXPECT a2, 0x80000001
	slli a2, a0, 1
	EXPECT a2, 0x00000002
	slli a2, a0, 31
	EXPECT a2, 0x80000000
	li a1, 4
	sll a2, a0, a1
	EXPECT a2, 0x00000010
	li a1, 0xffffffe4		/* low 5 bits: 4 */
	sll a2, a0, a1
	EXPECT a2, 0x00000010
	li a1, 32			/* low 5 bits: 0 */
	sll a2, a0, a1
	EXPECT a2, 0x80000001
	li a1, 31
	sll a2, a0, a1
	EXPECT a2, 0x80000000

	CHECK 6	/* SRL, SRLI: zero fill */
	li a0, 0x80000010
	srli a2, a0, 0
	EXPECT a2, 0x80000010
	srli a2, a0, 1
	EXPECT a2, 0x40000008
	srli a2, a0, 4
	EXPECT a2, 0x08000001
	srli a2, a0, 31
	EXPECT a2, 1
	li a1, 0x3f			/* 31 */
	srl a2, a0, a1
	EXPECT a2, 1
	li a1, 0x20			/* 0 */
	srl a2, a0, a1
	EXPECT a2, 0x80000010

	CHECK 7	/* SRA, SRAI: sign fill */
	li a0, 0x80000010
	srai a2, a0, 0
	EXPECT a2, 0x80000010
	srai a2, a0, 1
	EXPECT a2, 0xc0000008
	srai a2, a0, 4
	EXPECT a2, 0xf8000001
	srai a2, a0, 31
	EXPECT a2, 0xffffffff
	li a0, 0x40000010		/* positive: zero fill */
	srai a2, a0, 4
	EXPECT a2, 0x04000001
	srai a2, a0, 31
	EXPECT a2, 0
	li a0, 0x80000000
	li a1, 0xfffffffe		/* 30 */
	sra a2, a0, a1
	EXPECT a2, 0xfffffffe
	li a1, 0x40			/* 0 */
	sra a2, a0, a1
	EXPECT a2, 0x80000000

	CHECK 8	/* shifts with rd = rs1 and rd = rs2 */
	li a0, 3
	li a1, 2
	sll a0, a0, a1
	EXPECT a0, 12
	li a0, 3
	sll a1, a0, a1
	EXPECT a1, 12
	li a0, 0x100
	srli a0, a0, 8
	EXPECT a0, 1

	CHECK 9	/* back-to-back dependent operations */
	li a0, 1
	add a0, a0, a0
	add a0, a0, a0
	add a0, a0, a0
	slli a0, a0, 2
	addi a0, a0, -1
	xori a0, a0, 0x10
	EXPECT a0, 0x0f
	j pass

	TEST_END
