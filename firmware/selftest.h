/* SPDX-License-Identifier: Apache-2.0 */
/* selftest.h - the SELFTEST op (proto/ftpu_fw.h, enum ftpu_fw_selftest). */
#ifndef FW_SELFTEST_H
#define FW_SELFTEST_H

#include <stdint.h>

#include "boot.h"

/*
 * Runs the self-tests and fills out[FTPU_FW_SELFTEST_COUNT]: passed, the
 * mask of tests run, the mask of those that failed. The RAM test
 * overwrites the hal's scratch area; the app test runs when r records an
 * image. The matrix-unit GEMM is not integrated yet and never runs.
 */
void fw_selftest(const struct fw_boot_record *r, uint32_t *out);

#endif /* FW_SELFTEST_H */
