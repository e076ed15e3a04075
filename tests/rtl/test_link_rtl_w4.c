/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_link_rtl_w4.c - test_link_rtl.c at the simulated device's word port
 * (ftpu_link_rx/tx Bytes = 4, model link_loop_w4): the same frames, errors
 * and counters as proto/link.c for beats of 1 to 4 bytes.
 */
#define FTPU_LINK_BYTES 4
/* the tests that run at one byte a cycle only are compiled, not run */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "test_link_rtl.c"
