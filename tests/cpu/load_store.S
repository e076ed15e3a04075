/* SPDX-License-Identifier: Apache-2.0 */
/* LB, LH, LW, LBU, LHU, SB, SH, SW: every aligned offset, sign and zero
 * extension, positive and negative immediates, stores that touch only
 * their bytes, loads from the ROM. */
#include "cpu_test.h"
	TEST_START
	la s0, buf

	CHECK 1	/* LW, SW */
	lw a0, 0(s0)
	EXPECT a0, 0x8899aabb
	lw a0, 4(s0)
	EXPECT a0, 0x01234567
	li a1, 0xcafef00d
	sw a1, 8(s0)
	lw a0, 8(s0)
	EXPECT a0, 0xcafef00d
	addi s1, s0, 12
	lw a0, -8(s1)			/* negative offset */
	EXPECT a0, 0x01234567

	CHECK 2	/* LB, LBU at each byte (little-endian), sign extension */
	lb a0, 0(s0)
	EXPECT a0, 0xffffffbb
	lb a0, 1(s0)
	EXPECT a0, 0xffffffaa
	lb a0, 2(s0)
	EXPECT a0, 0xffffff99
	lb a0, 3(s0)
	EXPECT a0, 0xffffff88
	lbu a0, 0(s0)
	EXPECT a0, 0xbb
	lbu a0, 1(s0)
	EXPECT a0, 0xaa
	lbu a0, 2(s0)
	EXPECT a0, 0x99
	lbu a0, 3(s0)
	EXPECT a0, 0x88
	lb a0, 4(s0)			/* positive bytes */
	EXPECT a0, 0x67
	lb a0, 7(s0)
	EXPECT a0, 0x01

	CHECK 3	/* LH, LHU at both halves */
	lh a0, 0(s0)
	EXPECT a0, 0xffffaabb
	lh a0, 2(s0)
	EXPECT a0, 0xffff8899
	lhu a0, 0(s0)
	EXPECT a0, 0xaabb
	lhu a0, 2(s0)
	EXPECT a0, 0x8899
	lh a0, 4(s0)
	EXPECT a0, 0x4567
	lh a0, 6(s0)
	EXPECT a0, 0x0123

	CHECK 4	/* SB writes only its byte */
	li a1, 0x11223344
	sw a1, 12(s0)
	li a2, 0xffffffa5		/* upper bits ignored */
	sb a2, 12(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x112233a5
	sb a2, 13(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x1122a5a5
	li a2, 0x5a
	sb a2, 14(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x115aa5a5
	sb zero, 15(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x005aa5a5
	lw a0, 8(s0)			/* the neighbours are untouched */
	EXPECT a0, 0xcafef00d
	lw a0, 16(s0)
	EXPECT a0, 0xdeadbeef

	CHECK 5	/* SH writes only its half */
	li a1, 0x11223344
	sw a1, 12(s0)
	li a2, 0xabcd8765
	sh a2, 12(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x11228765
	sh a2, 14(s0)
	lw a0, 12(s0)
	EXPECT a0, 0x87658765
	lh a0, 14(s0)
	EXPECT a0, 0xffff8765

	CHECK 6	/* a store then loads of every size at once */
	li a1, 0x80ff7f01
	sw a1, 20(s0)
	lb a0, 20(s0)
	EXPECT a0, 1
	lb a0, 21(s0)
	EXPECT a0, 0x7f
	lb a0, 22(s0)
	EXPECT a0, 0xffffffff
	lbu a0, 23(s0)
	EXPECT a0, 0x80
	lh a0, 22(s0)
	EXPECT a0, 0xffff80ff

	CHECK 7	/* load into the base register */
	la a0, buf
	lw a0, 4(a0)
	EXPECT a0, 0x01234567

	CHECK 8	/* loads from the ROM */
	la a1, rom_words
	lw a0, 0(a1)
	EXPECT a0, 0xfedcba98
	lbu a0, 5(a1)
	EXPECT a0, 0x32
	lh a0, 6(a1)
	EXPECT a0, 0x7654
	j pass

	TEST_END

	.section .rodata
	.align 2
rom_words:
	.word 0xfedcba98, 0x76543210

	.data
	.align 2
buf:
	.word 0x8899aabb, 0x01234567, 0, 0, 0xdeadbeef, 0, 0
