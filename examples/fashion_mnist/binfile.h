/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binfile.h - the demo's versioned binary files (the weight file of
 * mlp.h, the checkpoint of checkpoint.h): little-endian fields, an 8-byte
 * magic, a 32-bit version, a CRC-32 (zlib) of every byte before it at the
 * end; written atomically, read strictly.
 *
 * Failures return a negative enum ftpu_status with one line in err that
 * names the file.
 */
#ifndef FM_BINFILE_H
#define FM_BINFILE_H

#include <stddef.h>
#include <stdint.h>

void binfile_put32(uint8_t *p, uint32_t v);
void binfile_put64(uint8_t *p, uint64_t v);
uint32_t binfile_get32(const uint8_t *p);
uint64_t binfile_get64(const uint8_t *p);

/*
 * Writes buf[0..size) to path through a temporary file in its directory
 * (path.XXXXXX, synced) renamed over path, and syncs the directory: a
 * crash or kill at any moment leaves either the old file or the new one
 * whole, never a part. The last 4 bytes of buf are set to the CRC-32 of
 * the ones before them. A missing directory is FTPU_ERR_NOT_FOUND.
 */
int binfile_write(const char *path, uint8_t *buf, size_t size, char *err, size_t errlen);

/*
 * Reading: binfile_open checks the file is a regular one (never blocks on
 * a FIFO), reads up to head_len bytes into head and checks the magic
 * ("not an ftpu <what> (bad magic)"), the length of the header
 * ("truncated") and the version (0: corrupt; above max_version:
 * FTPU_ERR_UNSUPPORTED). The caller works out the size the header
 * announces and calls binfile_read, which checks the file has exactly
 * that many bytes before reading more ("truncated" / "trailing bytes",
 * with size_why saying what takes that size), reads them (the file
 * changing meanwhile is corrupt) and checks the CRC. binfile_close frees
 * everything.
 */
struct binfile {
	const char *path;
	int fd;
	uint8_t *buf; /* binfile_read: the whole file */
	size_t size;
};
int binfile_open(struct binfile *f, const char *path, const char *magic, const char *what,
		 uint8_t *head, size_t head_len, uint32_t max_version, uint32_t *version,
		 char *err, size_t errlen);
int binfile_read(struct binfile *f, const uint8_t *head, size_t head_len, size_t size,
		 const char *size_why, char *err, size_t errlen);
void binfile_close(struct binfile *f);

#endif /* FM_BINFILE_H */
