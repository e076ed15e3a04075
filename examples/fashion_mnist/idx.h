/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idx.h - reader of the IDX files MNIST and Fashion-MNIST ship in
 * (gzip-compressed or plain). Only regular files are read (ftpu_open_file:
 * a FIFO or device is refused before a read); a gzip file is one stream
 * that must reach its end (CRC-32 and length checked) with nothing after.
 *
 * An IDX file: a big-endian magic 0x0000TTDD (TT the element type, 0x08
 * for unsigned bytes, DD the number of dimensions), DD big-endian 32-bit
 * sizes, then the elements. Images are 3-dimensional (count x rows x
 * cols), labels 1-dimensional (count).
 *
 * Every failure returns a negative enum ftpu_status and writes one line
 * naming the file into err: FTPU_ERR_NOT_FOUND (no such file), FTPU_ERR_IO
 * (other open or read errors), FTPU_ERR_CORRUPT (not a regular file, bad
 * magic, wrong dimensions, truncated data, a broken or truncated gzip
 * stream, bytes after it, trailing bytes, a
 * label out of range, label and image counts that disagree),
 * FTPU_ERR_NOMEM. Outputs are written only on success.
 */
#ifndef FM_IDX_H
#define FM_IDX_H

#include <stddef.h>
#include <stdint.h>

#define IDX_CLASSES 10

struct idx_images {
	size_t count, rows, cols; /* count images of rows x cols bytes */
	uint8_t *pixels;	  /* count * rows * cols, row-major */
};

struct idx_labels {
	size_t count;
	uint8_t *labels; /* count values below IDX_CLASSES */
};

/* A labelled set: images and labels of the same count. */
struct idx_set {
	struct idx_images images;
	struct idx_labels labels;
};

/* Reads a 3-dimensional unsigned-byte file whose images are rows x cols
 * (0 accepts any size). */
int idx_read_images(const char *path, size_t rows, size_t cols,
		    struct idx_images *out, char *err, size_t errlen);

/* Reads a 1-dimensional unsigned-byte file of labels below IDX_CLASSES. */
int idx_read_labels(const char *path, struct idx_labels *out, char *err,
		    size_t errlen);

/* The same on a file image in memory (len bytes at data), name standing
 * for the file in messages; chunk is the most bytes taken per read (0: as
 * from a file; tests split the input to reach every refill). For tests
 * and the fuzz target (tests/fuzz/fuzz_idx.c). */
int idx_read_images_mem(const char *name, const void *data, size_t len,
			size_t chunk, size_t rows, size_t cols,
			struct idx_images *out, char *err, size_t errlen);
int idx_read_labels_mem(const char *name, const void *data, size_t len,
			size_t chunk, struct idx_labels *out, char *err,
			size_t errlen);

/* Both files of a set; their counts must agree (the message names both). */
int idx_read_set(const char *images_path, const char *labels_path, size_t rows,
		 size_t cols, struct idx_set *out, char *err, size_t errlen);

/* The Fashion-MNIST set prefix ("train" or "t10k") in dir, 28x28 images:
 * dir/prefix-images-idx3-ubyte.gz and dir/prefix-labels-idx1-ubyte.gz
 * (or the same names without .gz when only those exist). */
int idx_read_fashion(const char *dir, const char *prefix, struct idx_set *out,
		     char *err, size_t errlen);

void idx_free_images(struct idx_images *im);
void idx_free_labels(struct idx_labels *lb);
void idx_free_set(struct idx_set *s);

/* Writes an IDX file (plain, or gzip when path ends in .gz) of unsigned
 * bytes: ndims sizes in dims, prod(dims) elements. For tests and tools. */
int idx_write(const char *path, const uint32_t *dims, unsigned ndims,
	      const uint8_t *data, char *err, size_t errlen);

#endif /* FM_IDX_H */
