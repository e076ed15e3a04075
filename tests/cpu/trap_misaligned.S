/* SPDX-License-Identifier: Apache-2.0 */
/* Address-misaligned exceptions: loads and stores of halves and words at
 * every misaligned offset (mcause 4 / 6, mtval = the address, no register
 * or memory written), and jumps and taken branches to a target with bit 1
 * set (mcause 0, mtval = the target, no link written). Not-taken branches
 * to such targets and aligned accesses do not trap. */
#include "cpu_test.h"

.macro MIS_LOAD insn, off
	TRAP_TO 8f
	li a0, 0x5a5a5a5a
	addi a1, s0, \off
7:	\insn a0, \off(s0)
	j fail
8:	EXPECT_CSR mcause, CAUSE_LOAD_MISALIGNED
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, a1
	EXPECT a0, 0x5a5a5a5a
.endm

.macro MIS_STORE insn, off
	TRAP_TO 8f
	li a0, -1
	addi a1, s0, \off
7:	\insn a0, \off(s0)
	j fail
8:	EXPECT_CSR mcause, CAUSE_STORE_MISALIGNED
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, a1
	lw a2, 0(s0)
	EXPECT a2, 0x03020100
	lw a2, 4(s0)
	EXPECT a2, 0x07060504
.endm

	TEST_START
	la s0, buf

	CHECK 1	/* LH, LHU at odd addresses */
	MIS_LOAD lh, 1
	MIS_LOAD lh, 3
	MIS_LOAD lhu, 1
	MIS_LOAD lhu, 3

	CHECK 2	/* LW at 1, 2, 3 */
	MIS_LOAD lw, 1
	MIS_LOAD lw, 2
	MIS_LOAD lw, 3

	CHECK 3	/* SH, SW: nothing written */
	MIS_STORE sh, 1
	MIS_STORE sh, 3
	MIS_STORE sw, 1
	MIS_STORE sw, 2
	MIS_STORE sw, 3

	CHECK 4	/* aligned accesses of each size still work (no trap) */
	TRAP_RESET
	lh a0, 2(s0)
	EXPECT a0, 0x0302
	lb a0, 3(s0)
	EXPECT a0, 3
	lw a0, 4(s0)
	EXPECT a0, 0x07060504

	CHECK 5	/* JAL to pc + 6: trap at the JAL, no link */
	TRAP_TO 8f
	li ra, 0x77
7:	jal ra, 7b + 6
	j fail
8:	EXPECT_CSR mcause, CAUSE_FETCH_MISALIGNED
	EXPECT_MEPC 7b
	la a1, 7b
	addi a1, a1, 6
	EXPECT_CSR_REG mtval, a1
	EXPECT ra, 0x77

	CHECK 6	/* taken branch to pc + 6 */
	TRAP_TO 8f
7:	beq zero, zero, 7b + 6
	j fail
8:	EXPECT_CSR mcause, CAUSE_FETCH_MISALIGNED
	EXPECT_MEPC 7b
	la a1, 7b
	addi a1, a1, 6
	EXPECT_CSR_REG mtval, a1

	CHECK 7	/* not-taken branches to misaligned targets do not trap */
	TRAP_RESET
	bne zero, zero, . + 6
	blt zero, zero, . + 10
	bltu zero, zero, . - 2

	CHECK 8	/* JALR to an address with bit 1 set; bit 0 is cleared first */
	TRAP_TO 8f
	li a0, 0x99
	la a1, 9f
	addi a1, a1, 2
7:	jalr a0, 0(a1)
	j fail
8:	EXPECT_CSR mcause, CAUSE_FETCH_MISALIGNED
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, a1
	EXPECT a0, 0x99
	TRAP_TO 8f
	la a1, 9f
	addi a2, a1, 2			/* mtval: bit 0 cleared */
7:	jalr a0, 3(a1)
	j fail
8:	EXPECT_CSR mcause, CAUSE_FETCH_MISALIGNED
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, a2
	EXPECT a0, 0x99
	j pass
9:	j fail

	TEST_END

	.data
	.align 2
buf:	.byte 0, 1, 2, 3, 4, 5, 6, 7
