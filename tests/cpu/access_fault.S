/* SPDX-License-Identifier: Apache-2.0 */
/* Access faults (ftpu_cpu's memory map): loads from unmapped addresses and
 * beyond the ROM and RAM (mcause 5), stores to the ROM or unmapped
 * addresses (7), fetches from unmapped addresses or the MMIO window (1,
 * mepc = the target, mtval 0). Nothing is written; rd keeps its value. */
#include "cpu_test.h"

.macro LOAD_FAULT addr
	TRAP_TO 8f
	li s1, \addr
	li a0, 0x5a
7:	lw a0, 0(s1)
	j fail
8:	EXPECT_CSR mcause, CAUSE_LOAD_FAULT
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, s1
	EXPECT a0, 0x5a
.endm

.macro STORE_FAULT addr
	TRAP_TO 8f
	li s1, \addr
7:	sw s1, 0(s1)
	j fail
8:	EXPECT_CSR mcause, CAUSE_STORE_FAULT
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, s1
.endm

.macro FETCH_FAULT addr
	TRAP_TO 8f
	li s1, \addr
	jalr ra, 0(s1)
	j fail
8:	EXPECT_CSR mcause, CAUSE_FETCH_FAULT
	EXPECT_CSR_REG mepc, s1
	EXPECT_CSR mtval, 0
.endm

	TEST_START

	CHECK 1	/* loads: unmapped, past ROM (8 KiB) and RAM (16 KiB),
		 * reserved MMIO, an EXT address the device refuses */
	LOAD_FAULT 0x20000000
	LOAD_FAULT 0xfffffffc
	LOAD_FAULT 0x00002000
	LOAD_FAULT 0x00014000
	LOAD_FAULT 0x0000fffc
	LOAD_FAULT 0x40000600
	LOAD_FAULT 0x40000ffc
	LOAD_FAULT 0x4000100c
	LOAD_FAULT 0x40010000

	CHECK 2	/* stores: ROM, unmapped; the ROM word is unchanged */
	la s2, rom_word
	TRAP_TO 8f
7:	sw s2, 0(s2)
	j fail
8:	EXPECT_CSR mcause, CAUSE_STORE_FAULT
	EXPECT_MEPC 7b
	EXPECT_CSR_REG mtval, s2
	lw a0, 0(s2)
	EXPECT a0, 0x600dc0de
	TRAP_TO 8f
7:	sb zero, 1(s2)			/* a byte store too */
	j fail
8:	EXPECT_CSR mcause, CAUSE_STORE_FAULT
	addi t0, s2, 1
	EXPECT_CSR_REG mtval, t0
	lw a0, 0(s2)
	EXPECT a0, 0x600dc0de
	STORE_FAULT 0x80000000
	STORE_FAULT 0x00014000
	STORE_FAULT 0x40000700

	CHECK 3	/* fetches: unmapped, MMIO, past the RAM */
	FETCH_FAULT 0x20000000
	FETCH_FAULT 0x40001008
	FETCH_FAULT 0x40000000
	FETCH_FAULT 0x00014000

	CHECK 4	/* mapped addresses at the edges do not fault */
	TRAP_RESET
	li s1, 0x00013ffc		/* last RAM word */
	li a0, 0x1234
	sw a0, 0(s1)
	lw a1, 0(s1)
	EXPECT a1, 0x1234
	li s1, 0x00001ffc		/* last ROM word */
	lw a1, 0(s1)
	j pass

	TEST_END

	.section .rodata
	.align 2
rom_word:
	.word 0x600dc0de
