/* SPDX-License-Identifier: Apache-2.0 */
/* fail.h - the demo's one way to report a failure: a line in err, a status. */
#ifndef FM_FAIL_H
#define FM_FAIL_H

#include <stddef.h>

/* Formats one line into err (when err and errlen) and returns status. */
int fm_fail(int status, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* FM_FAIL_H */
