/* SPDX-License-Identifier: Apache-2.0 */
/* The MMIO blocks of ftpu_cpu: the EXT window (the test device's scratch
 * register, sub-word accesses, wait states set by the C test), the mailbox
 * (tests/cpu/test_rv32i.c queues CONTROL words 0x11111111, 0x22222222,
 * 0x33333333 and credit 0x4321, and checks the RESPONSE words 0xaaaa0081,
 * 0x43210002, 5, 6 this program sends) and the system registers: REBOOT,
 * the watchdog and the reset cause, over three boots counted in RAM. */
#include "cpu_test.h"

#define MBOX (MMIO_BASE + 0x400)
#define SYS (MMIO_BASE + 0x500)

	TEST_START
	la s0, boots
	lw s1, 0(s0)
	addi t0, s1, 1
	sw t0, 0(s0)
	li s2, SYS
	beqz s1, boot1
	li t0, 1
	beq s1, t0, boot2
	li t0, 2
	beq s1, t0, boot3
	CHECK 99
	j fail

boot1:
	CHECK 1	/* power-on */
	lw t0, 4(s2)
	EXPECT t0, 0
	lw t0, 8(s2)			/* watchdog off */
	EXPECT t0, 0

	CHECK 2	/* EXT: word and sub-word accesses */
	li s3, SCRATCH_ADDR
	li t0, 0x11223344
	sw t0, 0(s3)
	lw t1, 0(s3)
	EXPECT t1, 0x11223344
	li t0, 0xaa
	sb t0, 1(s3)
	lw t1, 0(s3)
	EXPECT t1, 0x1122aa44
	lb t1, 1(s3)
	EXPECT t1, 0xffffffaa
	lhu t1, 2(s3)
	EXPECT t1, 0x1122
	li t0, 0xbeef
	sh t0, 2(s3)
	lw t1, 0(s3)
	EXPECT t1, 0xbeefaa44

	CHECK 3	/* mailbox: three CONTROL words, then none */
	li s4, MBOX
	lw t0, 0(s4)
	andi t0, t0, 1
	EXPECT t0, 1
	lw t0, 4(s4)
	EXPECT t0, 0x11111111
	lw t0, 4(s4)
	EXPECT t0, 0x22222222
	lw t0, 4(s4)
	EXPECT t0, 0x33333333
	lw t0, 0(s4)
	andi t0, t0, 1
	EXPECT t0, 0
	lw t0, 4(s4)			/* empty: 0, nothing popped */
	EXPECT t0, 0
	lw t0, 16(s4)
	EXPECT t0, 0x4321

	CHECK 4	/* mailbox: a RESPONSE, w2 with the credit */
	li t0, 0xaaaa0081
	sw t0, 8(s4)
	li t0, 0xffff0002		/* upper half replaced by the credit */
	sw t0, 12(s4)
	li t0, 5
	sw t0, 8(s4)
	li t0, 6
	sw t0, 8(s4)
	li t1, 1000
1:	lw t0, 0(s4)			/* wait for TX_FULL to clear */
	andi t0, t0, 2
	beqz t0, 2f
	addi t1, t1, -1
	bnez t1, 1b
	j fail
2:
	CHECK 5	/* watchdog: counts down, 0 turns it off */
	li t0, 1000
	sw t0, 8(s2)
	lw t1, 8(s2)
	li t2, 1000
	bgeu t1, t2, fail
	li t2, 900
	bltu t1, t2, fail
	sw zero, 8(s2)
	lw t1, 8(s2)
	EXPECT t1, 0

	CHECK 6	/* REBOOT */
	li t0, 1
	sw t0, 0(s2)
	j fail				/* not reached: the core is reset */

boot2:
	CHECK 7	/* after REBOOT; the EXT scratch kept its value */
	lw t0, 4(s2)
	EXPECT t0, 1
	li s3, SCRATCH_ADDR
	lw t1, 0(s3)
	EXPECT t1, 0xbeefaa44
	li t0, 200			/* the watchdog fires in 200 cycles */
	sw t0, 8(s2)
3:	j 3b

boot3:
	CHECK 8	/* after the watchdog */
	lw t0, 4(s2)
	EXPECT t0, 2
	lw t0, 8(s2)
	EXPECT t0, 0
	j pass

	TEST_END

	.data
	.align 2
boots:	.word 0
