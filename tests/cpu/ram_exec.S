/* SPDX-License-Identifier: Apache-2.0 */
/* Code runs from the RAM (where an updated firmware image runs), and a
 * store to an instruction changes what the next fetch of it executes (no
 * stale copy anywhere: FENCE.I is a no-op). */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* copy func to the RAM and call it there */
	la a0, func
	la a1, func_end
	la a2, ram_code
1:	lw t0, 0(a0)
	sw t0, 0(a2)
	addi a0, a0, 4
	addi a2, a2, 4
	bltu a0, a1, 1b
	la s0, ram_code
	li a0, 20
	jalr ra, 0(s0)
	EXPECT a0, 62			/* 3 * 20 + 2 */

	CHECK 2	/* patch the first instruction: addi a0, a0, 5 */
	li t0, 0x00550513
	sw t0, 0(s0)
	.word 0x0000100f		/* fence.i */
	li a0, 20
	jalr ra, 0(s0)
	EXPECT a0, 77			/* 3 * 25 + 2 */

	CHECK 3	/* a trap from RAM code: mepc is its RAM address */
	li t0, 0x00100073		/* ebreak */
	sw t0, 4(s0)
	TRAP_TO 8f
	li a0, 20
	jalr ra, 0(s0)
	j fail
8:	EXPECT_CSR mcause, CAUSE_BREAKPOINT
	addi t0, s0, 4
	EXPECT_CSR_REG mepc, t0
	j pass

	/* a0 = 3 * a0 + 2 (position-independent) */
func:
	addi a0, a0, 0
	slli t1, a0, 1
	add a0, a0, t1
	addi a0, a0, 2
	ret
func_end:

	TEST_END

	.data
	.align 2
ram_code:
	.fill 16, 4, 0
