/* SPDX-License-Identifier: Apache-2.0 */
/* crc32.h - CRC-32 as docs/protocol.md §2 and zlib's crc32() define it. */
#ifndef FW_CRC32_H
#define FW_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * fw_crc32(0, buf, n) is the CRC-32 of n bytes; passing the result back as
 * crc continues it over more bytes. Never fails; n == 0 returns crc.
 */
uint32_t fw_crc32(uint32_t crc, const void *buf, size_t n);

/* fw_crc32 over the 4 bytes of w, least significant first. */
uint32_t fw_crc32_word(uint32_t crc, uint32_t w);

#endif /* FW_CRC32_H */
