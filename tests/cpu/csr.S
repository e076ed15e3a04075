/* SPDX-License-Identifier: Apache-2.0 */
/* Zicsr: CSRRW/S/C and their immediate forms, which forms write, the
 * read-only and the WARL CSRs of ftpu_rv32i (mstatus, misa, mtvec, mepc,
 * mcause, mie, mip, IDs), and the CSR accesses that are illegal. */
#include "cpu_test.h"

/* insn must trap as an illegal instruction (mtval 0) */
.macro ILLEGAL_CSR insn
	li t6, -1
	csrw mtval, t6
	TRAP_TO 8f
7:	\insn
	j fail
8:	EXPECT_CSR mcause, CAUSE_ILLEGAL
	EXPECT_MEPC 7b
	EXPECT_CSR mtval, 0
	TRAP_RESET
.endm

	TEST_START

	CHECK 1	/* CSRRW returns the old value, writes the new */
	li a0, 0x12345678
	csrw mscratch, a0
	EXPECT_CSR mscratch, 0x12345678
	li a1, 0xcafe0000
	csrrw a2, mscratch, a1
	EXPECT a2, 0x12345678
	EXPECT_CSR mscratch, 0xcafe0000
	csrrw a2, mscratch, a2		/* rd = rs1: old value out, new in */
	EXPECT a2, 0xcafe0000
	EXPECT_CSR mscratch, 0x12345678

	CHECK 2	/* CSRRS, CSRRC */
	li a0, 0x0000ff00
	csrrs a2, mscratch, a0
	EXPECT a2, 0x12345678
	EXPECT_CSR mscratch, 0x1234ff78
	li a0, 0x10300008
	csrrc a2, mscratch, a0
	EXPECT a2, 0x1234ff78
	EXPECT_CSR mscratch, 0x0204ff70
	csrrs a2, mscratch, zero	/* reads only */
	EXPECT a2, 0x0204ff70
	EXPECT_CSR mscratch, 0x0204ff70

	CHECK 3	/* immediate forms: uimm zero-extended, 5 bits */
	csrrwi a2, mscratch, 31
	EXPECT a2, 0x0204ff70
	EXPECT_CSR mscratch, 31
	csrrci a2, mscratch, 0x11
	EXPECT a2, 31
	EXPECT_CSR mscratch, 0x0e
	csrrsi a2, mscratch, 0x10
	EXPECT a2, 0x0e
	EXPECT_CSR mscratch, 0x1e
	csrrwi zero, mscratch, 0	/* rd = x0 */
	EXPECT_CSR mscratch, 0

	CHECK 4	/* read-only CSRs: reading forms are legal */
	csrr a0, mhartid
	EXPECT a0, 0
	csrr a0, mvendorid
	EXPECT a0, 0
	csrr a0, marchid
	EXPECT a0, 0
	csrr a0, mimpid
	EXPECT a0, 0
	csrrsi a0, mhartid, 0
	EXPECT a0, 0
	csrrc a0, cycle, zero
	csrrci a0, instret, 0

	CHECK 5	/* misa: RV32I, writes ignored */
	EXPECT_CSR misa, 0x40000100
	csrw misa, zero
	EXPECT_CSR misa, 0x40000100

	CHECK 6	/* mstatus: MIE and MPIE writable, MPP reads 3, rest 0 */
	EXPECT_CSR mstatus, 0x00001800	/* reset: MIE = MPIE = 0 */
	csrsi mstatus, 8
	EXPECT_CSR mstatus, 0x00001808
	li a0, 0x80
	csrs mstatus, a0
	EXPECT_CSR mstatus, 0x00001888
	csrci mstatus, 8
	EXPECT_CSR mstatus, 0x00001880
	li a0, -1
	csrw mstatus, a0
	EXPECT_CSR mstatus, 0x00001888
	csrw mstatus, zero
	EXPECT_CSR mstatus, 0x00001800
	EXPECT_CSR mstatush, 0

	CHECK 7	/* mie, mip: no interrupts, read 0 */
	li a0, -1
	csrw mie, a0
	EXPECT_CSR mie, 0
	csrw mip, a0
	EXPECT_CSR mip, 0

	CHECK 8	/* mtvec direct only; mepc bits 1:0 read 0 */
	csrr s1, mtvec
	la a0, unexpected_trap
	bne s1, a0, fail
	li a0, 0x00000103
	csrw mtvec, a0
	EXPECT_CSR mtvec, 0x00000100
	csrw mtvec, s1
	li a0, 0x0001234f
	csrw mepc, a0
	EXPECT_CSR mepc, 0x0001234c

	CHECK 9	/* mcause keeps its exception code, mtval all bits */
	li a0, 11
	csrw mcause, a0
	EXPECT_CSR mcause, 11
	li a0, 0xdeadbeef
	csrw mtval, a0
	EXPECT_CSR mtval, 0xdeadbeef

	CHECK 10	/* illegal: unknown CSRs */
	ILLEGAL_CSR "csrr a0, 0x7c0"
	ILLEGAL_CSR "csrw 0x306, a0"	/* mcounteren: not implemented */
	ILLEGAL_CSR "csrr a0, 0x800"
	ILLEGAL_CSR "csrr a0, 0xc01"	/* time */
	ILLEGAL_CSR "csrr a0, 0xc81"	/* timeh */
	ILLEGAL_CSR "csrr a0, 0xb03"	/* mhpmcounter3 */
	ILLEGAL_CSR "csrr a0, 0x3a0"	/* pmpcfg0 */

	CHECK 11	/* illegal: writes to read-only CSRs, even of 0 */
	ILLEGAL_CSR "csrw mhartid, a0"
	ILLEGAL_CSR "csrw cycle, zero"
	ILLEGAL_CSR "csrrwi a0, instreth, 0"
	ILLEGAL_CSR "csrrsi a0, mvendorid, 1"
	ILLEGAL_CSR "csrrc a0, cycleh, a1"

	CHECK 12	/* an illegal CSR instruction writes no rd */
	li a0, 0x55
	ILLEGAL_CSR "csrr a0, 0x7c1"
	EXPECT a0, 0x55
	j pass

	TEST_END
