/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mkimage - wraps a firmware binary into an update image (proto/ftpu_fw.h):
 * the 9-word header, then the binary padded to a multiple of 4 bytes.
 *
 *   mkimage APP.elf APP.bin VERSION OUT.img [SLOT_BYTES]
 *
 * The entry point comes from APP.elf's header, the load address is the RAM
 * slot's base (FTPU_RAM_BASE, firmware/layout.ld); the header is checked as
 * the boot ROM will check it (SLOT_BYTES, default 8192). Exit status 0 on
 * success, 1 with a message otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../proto/crc32.c"
#include "../image.c"
#include "ftpu_regs.h"

static unsigned char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out_close;
	buf = malloc((size_t)len + 4);
	if (!buf)
		goto out_close;
	memset(buf, 0, (size_t)len + 4);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
		goto out_close;
	}
	*n = (size_t)len;
out_close:
	fclose(f);
	return buf;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int main(int argc, char **argv)
{
	size_t elf_n, bin_n;
	unsigned char *elf, *bin;
	uint32_t hdr[FTPU_FW_IMG_WORDS], slot_bytes = 8192;
	int err;
	FILE *out;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: mkimage APP.elf APP.bin VERSION "
				"OUT.img [SLOT_BYTES]\n");
		return 1;
	}
	if (argc == 6)
		slot_bytes = (uint32_t)strtoul(argv[5], NULL, 0);
	elf = read_file(argv[1], &elf_n);
	bin = read_file(argv[2], &bin_n);
	if (!elf || !bin || elf_n < 28 || memcmp(elf, "\177ELF\001\001", 6)) {
		fprintf(stderr,
			"mkimage: cannot read %s (32-bit little-endian ELF) or "
			"%s\n",
			argv[1], argv[2]);
		return 1;
	}
	bin_n = (bin_n + 3) & ~(size_t)3; /* read_file left zeros after it */
	hdr[FTPU_FW_IMG_MAGIC] = FTPU_FW_IMAGE_MAGIC;
	hdr[FTPU_FW_IMG_FORMAT] = FTPU_FW_IMAGE_FORMAT;
	hdr[FTPU_FW_IMG_ABI] = FTPU_FW_ABI;
	hdr[FTPU_FW_IMG_VERSION] = (uint32_t)strtoul(argv[3], NULL, 0);
	hdr[FTPU_FW_IMG_LOAD_ADDR] = FTPU_RAM_BASE;
	hdr[FTPU_FW_IMG_ENTRY] = le32(elf + 24);
	hdr[FTPU_FW_IMG_SIZE] = (uint32_t)bin_n;
	hdr[FTPU_FW_IMG_CRC] = ftpu_crc32_update(0, bin, bin_n);
	hdr[FTPU_FW_IMG_HCRC] = fw_image_hcrc(hdr);
	err = fw_image_check(hdr, FTPU_RAM_BASE, slot_bytes);
	if (err) {
		fprintf(stderr,
			"mkimage: the image would be refused (error %d)\n",
			err);
		return 1;
	}
	out = fopen(argv[4], "wb");
	if (!out)
		return perror(argv[4]), 1;
	for (unsigned i = 0; i < FTPU_FW_IMG_WORDS; i++) {
		unsigned char w[4] = {(unsigned char)hdr[i],
				      (unsigned char)(hdr[i] >> 8),
				      (unsigned char)(hdr[i] >> 16),
				      (unsigned char)(hdr[i] >> 24)};
		fwrite(w, 1, 4, out);
	}
	fwrite(bin, 1, bin_n, out);
	if (fclose(out))
		return perror(argv[4]), 1;
	printf("%s: version 0x%06x, %zu bytes, entry 0x%08x, crc 0x%08x\n",
	       argv[4], hdr[FTPU_FW_IMG_VERSION], bin_n, hdr[FTPU_FW_IMG_ENTRY],
	       hdr[FTPU_FW_IMG_CRC]);
	free(elf);
	free(bin);
	return 0;
}
