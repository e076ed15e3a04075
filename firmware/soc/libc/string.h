/* SPDX-License-Identifier: Apache-2.0 */
/* string.h - the part of <string.h> the soft device's sources use (proto/
 * link.c, numeric.h), for the target, which has no C library: firmware/
 * libc.c defines them. On the target's include path only (mk/soc_fw.mk). */
#ifndef FW_SOC_STRING_H
#define FW_SOC_STRING_H

#include <stddef.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memchr(const void *s, int c, size_t n);

#endif /* FW_SOC_STRING_H */
