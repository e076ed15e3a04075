/* SPDX-License-Identifier: Apache-2.0 */
/* start.S - entry of the firmware (boot ROM at 0, or an update image at its
 * entry point): stack, trap vector, .data copied from its load address,
 * .bss cleared, then main(). Traps go to fw_trap() in C, which records the
 * fault and reboots (main.c); they never return. */
	.section .text.start, "ax"
	.globl _start
_start:
	la sp, __stack_top
	la t0, trap_entry
	csrw mtvec, t0
	la t0, __data_load
	la t1, __data_start
	la t2, __data_end
1:	bgeu t1, t2, 2f
	lw t3, 0(t0)
	sw t3, 0(t1)
	addi t0, t0, 4
	addi t1, t1, 4
	j 1b
2:	la t1, __bss_start
	la t2, __bss_end
3:	bgeu t1, t2, 4f
	sw zero, 0(t1)
	addi t1, t1, 4
	j 3b
4:	call main
5:	j 5b

	.align 2
trap_entry:
	la sp, __stack_top
	csrr a0, mcause
	csrr a1, mepc
	csrr a2, mtval
	call fw_trap
6:	j 6b
