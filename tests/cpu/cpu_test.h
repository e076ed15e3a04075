/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu_test.h - conventions of the instruction-level tests of ftpu_rv32i
 * (tests/cpu/*.S, run by tests/cpu/test_rv32i.c on the cpu model).
 *
 * A test numbers its checks in gp (CHECK n) and ends by writing its exit
 * code to the test device's EXIT register (sim/tops/ftpu_cpu_tb.sv):
 *   PASS_CODE                       every check passed
 *   FAIL_CODE | n                   check n failed
 *   TRAP_CODE | mcause << 16 | n    an unexpected trap during check n
 *                                   (the handler also prints mepc and
 *                                   mtval on the console)
 * t6 (x31) and t5 (x30) are the macros' scratch registers; tests that check
 * them do so by hand. Expected values come from the RISC-V specification,
 * worked out by hand in each test's comments.
 */
#ifndef CPU_TEST_H
#define CPU_TEST_H

#define EXIT_ADDR 0x40001000
#define CONSOLE_ADDR 0x40001004
#define SCRATCH_ADDR 0x40001008
#define MMIO_BASE 0x40000000
#define RAM_BASE 0x00010000
#define ROM_BASE 0x00000000

#define PASS_CODE 0x0000600d
#define FAIL_CODE 0xfa110000
#define TRAP_CODE 0xee000000

/* mcause values */
#define CAUSE_FETCH_MISALIGNED 0
#define CAUSE_FETCH_FAULT 1
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_LOAD_MISALIGNED 4
#define CAUSE_LOAD_FAULT 5
#define CAUSE_STORE_MISALIGNED 6
#define CAUSE_STORE_FAULT 7
#define CAUSE_ECALL_M 11

/* clang-format off */

/* The program's entry: the unexpected-trap handler in mtvec, check 0. */
.macro TEST_START
	.section .text.init, "ax"
	.globl _start
_start:
	la t0, unexpected_trap
	csrw mtvec, t0
	li gp, 0
.endm

/* The checks that follow are number n. */
.macro CHECK n
	li gp, \n
.endm

/* Fail unless register r holds value v. */
.macro EXPECT r, v
	li t6, \v
	bne \r, t6, fail
.endm

/* Fail unless CSR csr holds value v. */
.macro EXPECT_CSR csr, v
	csrr t5, \csr
	li t6, \v
	bne t5, t6, fail
.endm

/* Fail unless CSR csr equals register r. */
.macro EXPECT_CSR_REG csr, r
	csrr t5, \csr
	bne t5, \r, fail
.endm

/* Fail unless mepc is the address of label l. */
.macro EXPECT_MEPC l
	csrr t5, mepc
	la t6, \l
	bne t5, t6, fail
.endm

/* The next trap goes to label l (4-aligned, as every instruction is). */
.macro TRAP_TO l
	la t6, \l
	csrw mtvec, t6
.endm

/* Traps are unexpected again. */
.macro TRAP_RESET
	la t6, unexpected_trap
	csrw mtvec, t6
.endm

/* Writes every check passed, fail and the trap handler. */
.macro TEST_END
pass:
	li t0, EXIT_ADDR
	li t1, PASS_CODE
	sw t1, 0(t0)
1:	j 1b

fail:
	li t0, EXIT_ADDR
	li t1, FAIL_CODE
	or t1, t1, gp
	sw t1, 0(t0)
2:	j 2b

	.align 2
unexpected_trap:
	csrr a0, mepc
	jal ra, print_hex
	csrr a0, mtval
	jal ra, print_hex
	li t0, EXIT_ADDR
	csrr t1, mcause
	andi t1, t1, 0xff
	slli t1, t1, 16
	or t1, t1, gp
	li t2, TRAP_CODE
	or t1, t1, t2
	sw t1, 0(t0)
3:	j 3b

/* Prints a0 as 8 hex digits and a space on the console; uses t0..t3. */
print_hex:
	li t0, CONSOLE_ADDR
	li t1, 8
4:	srli t2, a0, 28
	slli a0, a0, 4
	li t3, 10
	blt t2, t3, 5f
	addi t2, t2, 'a' - '0' - 10
5:	addi t2, t2, '0'
	sw t2, 0(t0)
	addi t1, t1, -1
	bnez t1, 4b
	li t2, ' '
	sw t2, 0(t0)
	ret
.endm

/* clang-format on */
#endif /* CPU_TEST_H */
