/* SPDX-License-Identifier: Apache-2.0 */
/* mcycle and minstret (and cycle, instret, the h halves): exact counts
 * between two reads (the CPI documented in rtl/cpu/ftpu_rv32i.sv, from the
 * ROM), writes in place of the increment, carries into the high halves. */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* minstret: N instructions between two reads count N + 1 */
	csrr a0, minstret
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	csrr a1, minstret
	sub a2, a1, a0
	EXPECT a2, 8

	CHECK 2	/* mcycle: 3 cycles per OP-IMM / CSR instruction */
	csrr a0, mcycle
	nop
	nop
	nop
	nop
	csrr a1, mcycle
	sub a2, a1, a0
	EXPECT a2, 15

	CHECK 3	/* a taken branch (5 cycles), a not-taken one (5), a load (5) */
	la s0, word
	csrr a0, mcycle
	beq zero, zero, 1f
1:	lw t0, 0(s0)
	csrr a1, mcycle
	sub a2, a1, a0
	EXPECT a2, 13			/* csrr 3 + beq 5 + lw 5 */
	csrr a0, mcycle
	bne zero, zero, fail
	csrr a1, mcycle
	sub a2, a1, a0
	EXPECT a2, 8			/* bne 5 + csrr 3 */
	csrr a0, mcycle
	sw t0, 0(s0)			/* store: 6 */
	add t0, t0, t0			/* OP: 4 */
	csrr a1, mcycle
	sub a2, a1, a0
	EXPECT a2, 13

	CHECK 4	/* cycle and instret are the same counters */
	csrr a0, mcycle
	rdcycle a1
	sub a2, a1, a0
	EXPECT a2, 3
	csrr a0, minstret
	rdinstret a1
	sub a2, a1, a0
	EXPECT a2, 1

	CHECK 5	/* a write replaces that cycle's increment */
	li a0, 1000
	csrw mcycle, a0
	csrr a1, mcycle
	EXPECT a1, 1002			/* written, then 2 more cycles */
	li a0, 100
	csrw minstret, a0
	csrr a1, minstret		/* the csrw itself did not count */
	csrr a2, minstret
	EXPECT a1, 100
	EXPECT a2, 101

	CHECK 6	/* mcycle carries into mcycleh, read through cycleh too */
	li a0, 5
	csrw mcycleh, a0
	li a0, -40
	csrw mcycle, a0
	EXPECT_CSR mcycleh, 5		/* not yet */
	.rept 12
	nop
	.endr				/* 36 cycles: past the wrap */
	EXPECT_CSR mcycleh, 6
	EXPECT_CSR cycleh, 6
	csrr a0, mcycle
	li a1, 100
	bgeu a0, a1, fail		/* low half small again */

	CHECK 7	/* minstret carries into minstreth */
	li a0, 7
	csrw minstreth, a0
	li a0, -3
	csrw minstret, a0		/* 0xfffffffd, then +1 per retirement */
	nop				/* ...fe */
	nop				/* ...ff */
	csrr a1, minstreth		/* reads 7, and wraps the low half */
	EXPECT a1, 7
	EXPECT_CSR minstreth, 8
	EXPECT_CSR instreth, 8
	/* low half since the wrap: li, bne, then csrr, li, bne twice */
	EXPECT_CSR minstret, 8

	CHECK 8	/* counters keep counting in a loop: 100 x 3 instructions */
	csrr a0, minstret
	li t0, 100
2:	addi t0, t0, -1
	nop
	bnez t0, 2b
	csrr a1, minstret
	sub a2, a1, a0
	EXPECT a2, 302			/* csrr, li, 300 */

	CHECK 9	/* a write to either half replaces the increment of the whole
		 * counter: nothing carries out of a written low half */
	csrw minstreth, zero
	li a0, -1
	csrw minstret, a0		/* {0, 0xffffffff} */
	csrw minstret, a0		/* at {0, 0xffffffff}: +1 would carry */
	csrr a1, minstreth
	EXPECT a1, 0
	csrw mcycleh, zero
	li a0, -3
	csrw mcycle, a0			/* 0xfffffffd ... */
	csrw mcycle, zero		/* ... 0xffffffff at this write (3 cycles on) */
	csrr a1, mcycleh
	EXPECT a1, 0
	j pass

	TEST_END

	.data
	.align 2
word:	.word 3
