/* SPDX-License-Identifier: Apache-2.0 */
/* fail.c - fm_fail (fail.h). */
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"

int fm_fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}
