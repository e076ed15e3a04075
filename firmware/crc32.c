/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crc32.c - reflected CRC-32 (polynomial 0xEDB88320), four bits at a time
 * from a 16-entry table: 64 bytes of table, two lookups per byte, which
 * suits a core without a barrel shifter (ftpu_rv32i shifts one bit per
 * cycle). Portable C: the firmware and its host tests build it.
 */
#include "crc32.h"

static const uint32_t crc_nibble[16] = {
	0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
	0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
	0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
	0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

static uint32_t crc_byte(uint32_t r, uint32_t b)
{
	r ^= b;
	r = (r >> 4) ^ crc_nibble[r & 15u];
	return (r >> 4) ^ crc_nibble[r & 15u];
}

uint32_t fw_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	uint32_t r = ~crc;
	while (n--)
		r = crc_byte(r, *p++);
	return ~r;
}

uint32_t fw_crc32_word(uint32_t crc, uint32_t w)
{
	uint32_t r = ~crc;
	for (unsigned i = 0; i < 4; i++, w >>= 8)
		r = crc_byte(r, w & 0xffu);
	return ~r;
}
