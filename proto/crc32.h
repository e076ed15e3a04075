/* SPDX-License-Identifier: Apache-2.0 */
/* crc32.h - CRC-32 as docs/protocol.md §2 and zlib's crc32() define it. */
#ifndef FTPU_CRC32_H
#define FTPU_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bitwise-reflected CRC-32 (IEEE 802.3, poly 0xEDB88320), the zlib crc32:
 * crc = ftpu_crc32_update(0, buf, n) is the CRC of buf, and feeding the
 * bytes in pieces, each time passing the previous result, gives the same
 * value. The CRC of zero bytes is 0. Never fails (n == 0 returns crc).
 */
uint32_t ftpu_crc32_update(uint32_t crc, const void *buf, size_t n);

/* ftpu_crc32_update over the 4 bytes of w, least significant first. */
uint32_t ftpu_crc32_word(uint32_t crc, uint32_t w);

#endif /* FTPU_CRC32_H */
