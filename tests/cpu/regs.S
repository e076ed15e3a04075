/* SPDX-License-Identifier: Apache-2.0 */
/* The register file: x1..x31 hold 31 distinct values at once (no two
 * register numbers share storage), and x0 reads 0 after every kind of write
 * to it: ALU, LUI, AUIPC, load, JAL, JALR, CSR read. Each register value is
 * (n * 0x01010101) ^ 0xa5000000 for register n, x31 the buffer's address. */
#include "cpu_test.h"
	TEST_START

	/* check 1: all registers written, then all stored through x31 */
	li x1, 0xa4010101
	li x2, 0xa7020202
	li x3, 0xa6030303
	li x4, 0xa1040404
	li x5, 0xa0050505
	li x6, 0xa3060606
	li x7, 0xa2070707
	li x8, 0xad080808
	li x9, 0xac090909
	li x10, 0xaf0a0a0a
	li x11, 0xae0b0b0b
	li x12, 0xa90c0c0c
	li x13, 0xa80d0d0d
	li x14, 0xab0e0e0e
	li x15, 0xaa0f0f0f
	li x16, 0xb5101010
	li x17, 0xb4111111
	li x18, 0xb7121212
	li x19, 0xb6131313
	li x20, 0xb1141414
	li x21, 0xb0151515
	li x22, 0xb3161616
	li x23, 0xb2171717
	li x24, 0xbd181818
	li x25, 0xbc191919
	li x26, 0xbf1a1a1a
	li x27, 0xbe1b1b1b
	li x28, 0xb91c1c1c
	li x29, 0xb81d1d1d
	li x30, 0xbb1e1e1e
	la x31, regs
	sw x1, 4(x31)
	sw x2, 8(x31)
	sw x3, 12(x31)
	sw x4, 16(x31)
	sw x5, 20(x31)
	sw x6, 24(x31)
	sw x7, 28(x31)
	sw x8, 32(x31)
	sw x9, 36(x31)
	sw x10, 40(x31)
	sw x11, 44(x31)
	sw x12, 48(x31)
	sw x13, 52(x31)
	sw x14, 56(x31)
	sw x15, 60(x31)
	sw x16, 64(x31)
	sw x17, 68(x31)
	sw x18, 72(x31)
	sw x19, 76(x31)
	sw x20, 80(x31)
	sw x21, 84(x31)
	sw x22, 88(x31)
	sw x23, 92(x31)
	sw x24, 96(x31)
	sw x25, 100(x31)
	sw x26, 104(x31)
	sw x27, 108(x31)
	sw x28, 112(x31)
	sw x29, 116(x31)
	sw x30, 120(x31)
	sw x31, 124(x31)
	CHECK 1
	la s0, regs
	lw t0, 4(s0)
	EXPECT t0, 0xa4010101
	lw t0, 8(s0)
	EXPECT t0, 0xa7020202
	lw t0, 16(s0)
	EXPECT t0, 0xa1040404
	lw t0, 20(s0)
	EXPECT t0, 0xa0050505
	lw t0, 24(s0)
	EXPECT t0, 0xa3060606
	lw t0, 28(s0)
	EXPECT t0, 0xa2070707
	lw t0, 32(s0)
	EXPECT t0, 0xad080808
	lw t0, 36(s0)
	EXPECT t0, 0xac090909
	lw t0, 40(s0)
	EXPECT t0, 0xaf0a0a0a
	lw t0, 44(s0)
	EXPECT t0, 0xae0b0b0b
	lw t0, 48(s0)
	EXPECT t0, 0xa90c0c0c
	lw t0, 52(s0)
	EXPECT t0, 0xa80d0d0d
	lw t0, 56(s0)
	EXPECT t0, 0xab0e0e0e
	lw t0, 60(s0)
	EXPECT t0, 0xaa0f0f0f
	lw t0, 64(s0)
	EXPECT t0, 0xb5101010
	lw t0, 68(s0)
	EXPECT t0, 0xb4111111
	lw t0, 72(s0)
	EXPECT t0, 0xb7121212
	lw t0, 76(s0)
	EXPECT t0, 0xb6131313
	lw t0, 80(s0)
	EXPECT t0, 0xb1141414
	lw t0, 84(s0)
	EXPECT t0, 0xb0151515
	lw t0, 88(s0)
	EXPECT t0, 0xb3161616
	lw t0, 92(s0)
	EXPECT t0, 0xb2171717
	lw t0, 96(s0)
	EXPECT t0, 0xbd181818
	lw t0, 100(s0)
	EXPECT t0, 0xbc191919
	lw t0, 104(s0)
	EXPECT t0, 0xbf1a1a1a
	lw t0, 108(s0)
	EXPECT t0, 0xbe1b1b1b
	lw t0, 112(s0)
	EXPECT t0, 0xb91c1c1c
	lw t0, 116(s0)
	EXPECT t0, 0xb81d1d1d
	lw t0, 120(s0)
	EXPECT t0, 0xbb1e1e1e
	lw t0, 12(s0)
	EXPECT t0, 0xa6030303
	lw t0, 124(s0)
	bne t0, s0, fail

	CHECK 2	/* x0 after writes of every kind */
	li t0, 5
	add x0, t0, t0
	bnez x0, fail
	addi x0, x0, 1
	bnez x0, fail
	lui x0, 0xfffff
	bnez x0, fail
	auipc x0, 0x1
	bnez x0, fail
	lw x0, 4(s0)
	bnez x0, fail
	jal x0, 1f
1:	bnez x0, fail
	la t1, 2f
	jalr x0, 0(t1)
2:	bnez x0, fail
	csrr x0, mcycle
	bnez x0, fail
	csrrs x0, mscratch, t0
	bnez x0, fail
	slli x0, t0, 3
	bnez x0, fail
	mv t2, x0			/* x0 as a source gives 0 */
	EXPECT t2, 0
	sub t2, t0, x0
	EXPECT t2, 5
	j pass

	TEST_END

	.data
	.align 2
regs:	.fill 32, 4, 0
