/* SPDX-License-Identifier: Apache-2.0 */
/* LUI and AUIPC: the upper immediate, low 12 bits zero, AUIPC relative to
 * its own address, negative upper immediates. */
#include "cpu_test.h"
	TEST_START

	CHECK 1	/* LUI */
	lui a0, 0x12345
	EXPECT a0, 0x12345000
	lui a0, 0xfffff
	EXPECT a0, 0xfffff000
	lui a0, 0x80000
	EXPECT a0, 0x80000000
	lui a0, 0
	EXPECT a0, 0
	li a0, -1
	lui a0, 1			/* replaces every bit */
	EXPECT a0, 0x1000

	CHECK 2	/* AUIPC with 0: its own address */
1:	auipc a0, 0
	la a1, 1b
	bne a0, a1, fail
	/* its address is known: the test starts at 0 */
	li a2, 0x1000
	bgeu a0, a2, fail

	CHECK 3	/* AUIPC with an offset, positive and negative */
2:	auipc a0, 0x10
	la a1, 2b
	li a2, 0x10000
	add a1, a1, a2
	bne a0, a1, fail
3:	auipc a0, 0xfffff		/* -4096 */
	la a1, 3b
	li a2, -4096
	add a1, a1, a2
	bne a0, a1, fail
	j pass

	TEST_END
