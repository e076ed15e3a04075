/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_check.h - the checks of the fuzz targets (tests/fuzz/fuzz_*.c).
 * FUZZ_CHECK(cond) calls __builtin_trap() when cond fails: a crash that
 * libFuzzer reports with its input. A replay test defines FUZZ_CHECK
 * before including a target to fail its test case instead
 * (tests/fuzz/test_fuzz_replay.c).
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#ifndef FUZZ_CHECK
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			__builtin_trap();                                      \
	} while (0)
#endif

#endif /* FUZZ_CHECK_H */
