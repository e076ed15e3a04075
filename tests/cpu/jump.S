/* SPDX-License-Identifier: Apache-2.0 */
/* JAL and JALR: link = pc + 4, rd = x0 links nothing, JALR clears bit 0 of
 * the target, JALR with rd = rs1 jumps to the old rs1, negative offsets. */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* JAL links pc + 4 */
1:	jal a0, 2f
	j fail
2:	la a1, 1b
	addi a1, a1, 4
	bne a0, a1, fail

	CHECK 2	/* JAL with rd = x0 (j) */
	li a0, 7
	j 3f
	li a0, 0
3:	EXPECT a0, 7

	CHECK 3	/* JALR: target rs1 + imm, link */
	la a1, 4f
	addi a1, a1, -8
5:	jalr a0, 8(a1)
	j fail
4:	la a2, 5b
	addi a2, a2, 4
	bne a0, a2, fail

	CHECK 4	/* JALR clears bit 0 of the target */
	la a1, 6f
	addi a1, a1, 1			/* odd address */
	jalr a0, 0(a1)
	j fail
6:	la a1, 7f
	jalr a0, 1(a1)			/* odd through the immediate */
	j fail
7:	la a1, 8f
	addi a1, a1, 3
	jalr a0, -2(a1)			/* +3 - 2 = +1: bit 0 set, cleared */
	j fail

8:	CHECK 5	/* JALR with rd = rs1: the target uses the old value */
	la a0, 9f
10:	jalr a0, 0(a0)
	j fail
9:	la a1, 10b
	addi a1, a1, 4
	bne a0, a1, fail

	CHECK 6	/* call and return (jal ra / jalr x0, ra) */
	li a0, 5
	call double
	EXPECT a0, 10
	call double
	EXPECT a0, 20

	CHECK 7	/* JAL backward */
	li a1, 0
	j 12f
11:	addi a1, a1, 1
	j 13f
12:	jal zero, 11b
13:	EXPECT a1, 1
	j pass

double:
	add a0, a0, a0
	ret

	TEST_END
