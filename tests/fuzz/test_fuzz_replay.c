/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fuzz_replay.c - the committed inputs of the host-side fuzz targets
 * through their checkers, in every make test (and under ASan/UBSan as
 * test_fuzz_replay_san): tests/fuzz/corpus/<target>/ (the seeds, which
 * must exist) and tests/fuzz/crashes/<target>/ (inputs of bugs the fuzzer
 * found, if any) for link_rx, program_file, idx and uri. A failing
 * property fails the test case, naming the input. The firmware targets
 * (control, fw_image) are replayed by tests/firmware/test_firmware.c.
 */
/* The demo's IDX reader (and its fm_fail), built into this test: the
 * fuzz target's code as the demo has it. */
#include "../../examples/fashion_mnist/fail.c"
#include "../../examples/fashion_mnist/idx.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fuzz_replay.h"

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			fail_msg("%s: %s:%d: FUZZ_CHECK(%s) failed",           \
				 fuzz_replay_path, __FILE__, __LINE__, #cond); \
	} while (0)

#define FUZZ_LINK_RX_NO_MAIN
#include "fuzz_link_rx.c"
#define FUZZ_PROGRAM_FILE_NO_MAIN
#include "fuzz_program_file.c"
#define FUZZ_IDX_NO_MAIN
#include "fuzz_idx.c"
#define FUZZ_URI_NO_MAIN
#include "fuzz_uri.c"

static void replay(const char *target, int (*one)(const uint8_t *, size_t))
{
	char dir[256];
	snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", target);
	int seeds = fuzz_replay_dir(dir, one);
	if (seeds < 1)
		fail_msg("%s: no seeds (or unreadable)", dir);
	snprintf(dir, sizeof(dir), "tests/fuzz/crashes/%s", target);
	int crashes = fuzz_replay_dir(dir, one); /* -1: no such directory */
	print_message("%s: %d seeds, %d regression inputs\n", target, seeds,
		      crashes < 0 ? 0 : crashes);
}

static void test_replay_link_rx(void **state)
{
	(void)state;
	replay("link_rx", fuzz_link_rx_one);
}

static void test_replay_program_file(void **state)
{
	(void)state;
	replay("program_file", fuzz_program_file_one);
}

static void test_replay_idx(void **state)
{
	(void)state;
	replay("idx", fuzz_idx_one);
}

static void test_replay_uri(void **state)
{
	(void)state;
	replay("uri", fuzz_uri_one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_link_rx),
		cmocka_unit_test(test_replay_program_file),
		cmocka_unit_test(test_replay_idx),
		cmocka_unit_test(test_replay_uri),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
