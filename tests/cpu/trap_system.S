/* SPDX-License-Identifier: Apache-2.0 */
/* ECALL (mcause 11), EBREAK (3), MRET, and what a trap does to mstatus:
 * MPIE = MIE, MIE = 0 on the trap; MIE = MPIE, MPIE = 1 on MRET. mtval is
 * 0 for both. A trapping instruction does not retire. */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* ECALL: cause, mepc, mtval; MRET back past it */
	li a0, -1
	csrw mtval, a0
	TRAP_TO handler
	csrsi mstatus, 8		/* MIE = 1, MPIE = 0 */
	li s1, 0
1:	ecall
	EXPECT s1, 1			/* the handler ran once */
	EXPECT s2, CAUSE_ECALL_M
	la a1, 1b
	bne s3, a1, fail		/* mepc seen by the handler */
	EXPECT s4, 0			/* mtval */
	EXPECT s5, 0x00001880		/* in the handler: MIE 0, MPIE 1 */
	EXPECT_CSR mstatus, 0x00001888	/* after MRET: MIE 1, MPIE 1 */

	CHECK 2	/* EBREAK */
	csrw mstatus, zero
	li a0, -1
	csrw mtval, a0
2:	ebreak
	EXPECT s1, 2
	EXPECT s2, CAUSE_BREAKPOINT
	la a1, 2b
	bne s3, a1, fail
	EXPECT s4, 0
	EXPECT s5, 0x00001800		/* MIE was 0: MPIE 0 */
	EXPECT_CSR mstatus, 0x00001880	/* MRET: MIE = MPIE (0), MPIE 1 */

	CHECK 3	/* the trapping instruction does not retire: csrr, ecall,
		 * 9 handler instructions, csrr */
	csrr a0, minstret
	ecall
	csrr a1, minstret
	sub a2, a1, a0
	EXPECT a2, 10

	CHECK 4	/* MRET jumps to mepc wherever it points */
	la a0, 3f
	csrw mepc, a0
	mret
	j fail
3:	EXPECT_CSR mstatus, 0x00001888	/* MIE = MPIE (1) */

	CHECK 5	/* ECALL in a loop: the handler runs each time */
	li s1, 0
	li t0, 4
4:	ecall
	addi t0, t0, -1
	bnez t0, 4b
	EXPECT s1, 4
	j pass

	/* Records the trap in s2..s5, counts it in s1, returns past it. */
	.align 2
handler:
	addi s1, s1, 1
	csrr s2, mcause
	csrr s3, mepc
	csrr s4, mtval
	csrr s5, mstatus
	csrr t6, mepc
	addi t6, t6, 4
	csrw mepc, t6
	mret

	TEST_END
