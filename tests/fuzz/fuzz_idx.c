/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_idx.c - libFuzzer target over the demo's IDX reader
 * (examples/fashion_mnist/idx.c: plain and gzip files), on file images in
 * memory (idx_read_images_mem, idx_read_labels_mem).
 *
 * Input: a mode byte, then the file. Mode: bit 0 labels (else images),
 * bits 1..2 the image size asked for (any, 28x28, 2x3, 1x1), bits 3..5 the
 * bytes a read returns (as a file, 1, 2, 3, 7, 16, 100, 4096), bit 6 the
 * file is gzip-compressed here first (so the fuzzer explores IDX files
 * inside gzip too).
 *
 * Checked against a reader written here (zlib's inflate for gzip, the IDX
 * layout of idx.h): the file is accepted exactly when that reader accepts
 * it (one whole gzip stream with nothing after it, the magic, non-zero
 * dimensions of at most 1 GiB, the image size asked for, exactly
 * prod(dims) data bytes, labels below IDX_CLASSES); an accepted file's
 * counts and sizes are its dimensions, their product the data length, and
 * its pixels or labels its data bytes; a refused one gives FTPU_ERR_CORRUPT
 * or FTPU_ERR_NOMEM and a message naming the file.
 *
 * make fuzz-idx runs it (mk/fuzz.mk); test_fuzz_replay replays the corpus
 * (tests/fuzz/corpus/idx) through fuzz_idx_one().
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "../../examples/fashion_mnist/idx.h"
#include "ftpu.h"

#include "fuzz_check.h"

#define IDXF_MAX_PLAIN ((size_t)1 << 20) /* the model decides up to this */

static uint32_t idxf_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The gzip input inflated by zlib: 1 and the bytes (valid until the next
 * call) when it is one whole stream with nothing after it, 0 when it is
 * not, -1 when it inflates to more than IDXF_MAX_PLAIN (undecided). */
static int idxf_gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	FUZZ_CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK);
	static uint8_t *buf; /* one buffer for all runs: cheaper than a malloc each */
	if (!buf)
		buf = malloc(IDXF_MAX_PLAIN + 1);
	FUZZ_CHECK(buf);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = IDXF_MAX_PLAIN + 1;
	int r = inflate(&z, Z_FINISH);
	size_t n = IDXF_MAX_PLAIN + 1 - z.avail_out;
	int ret = r == Z_STREAM_END && z.avail_in == 0 ? 1 : 0;
	if (n > IDXF_MAX_PLAIN)
		ret = -1;
	inflateEnd(&z);
	*out = buf;
	*out_len = n;
	return ret;
}

/* IDX of unsigned bytes in nd dimensions (idx.h): whether plain is one,
 * with images of rows x cols when asked (0: any) and labels below
 * IDX_CLASSES (nd 1). */
static bool idxf_valid(const uint8_t *p, size_t len, unsigned nd, size_t rows, size_t cols)
{
	if (len < 4 + 4 * nd || idxf_be32(p) != (0x0800u | nd))
		return false;
	uint64_t total = 1;
	for (unsigned i = 0; i < nd; i++) {
		uint32_t d = idxf_be32(p + 4 + 4 * i);
		total *= d;
		if (!d || total > ((uint64_t)1 << 30))
			return false;
	}
	if (nd == 3 && ((rows && idxf_be32(p + 8) != rows) || (cols && idxf_be32(p + 12) != cols)))
		return false;
	if (len - (4 + 4 * nd) != total)
		return false;
	if (nd == 1)
		for (size_t i = 8; i < len; i++)
			if (p[i] >= IDX_CLASSES)
				return false;
	return true;
}

/* data gzip-compressed (deflate level 1, a small window). */
static uint8_t *idxf_gzip(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	FUZZ_CHECK(deflateInit2(&z, 1, Z_DEFLATED, 16 + 9, 1, Z_DEFAULT_STRATEGY) == Z_OK);
	size_t cap = deflateBound(&z, size) + 32;
	uint8_t *out = malloc(cap);
	FUZZ_CHECK(out);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static int fuzz_idx_one(const uint8_t *data, size_t size)
{
	static const size_t shapes[4][2] = { { 0, 0 }, { 28, 28 }, { 2, 3 }, { 1, 1 } };
	static const size_t chunks[8] = { 0, 1, 2, 3, 7, 16, 100, 4096 };
	static const char name[] = "fuzz.idx";
	unsigned mode = size ? data[0] : 0;
	bool labels = mode & 1;
	size_t rows = shapes[(mode >> 1) & 3][0], cols = shapes[(mode >> 1) & 3][1];
	size_t chunk = chunks[(mode >> 3) & 7];
	const uint8_t *file = size ? data + 1 : data;
	size_t len = size ? size - 1 : 0;
	uint8_t *gz = NULL, *copy;

	if (mode & 0x40) {
		gz = idxf_gzip(file, len, &len);
		file = gz;
	}
	/* exactly the file's bytes: ASan sees a read beyond them */
	copy = malloc(len ? len : 1);
	FUZZ_CHECK(copy);
	memcpy(copy, file, len);

	/* the model */
	const uint8_t *plain = copy;
	size_t plain_len = len;
	uint8_t *inflated;
	int decided = 1;
	bool want;
	if (len >= 2 && copy[0] == 0x1f && copy[1] == 0x8b) {
		decided = idxf_gunzip(copy, len, &inflated, &plain_len);
		plain = inflated;
	}
	want = decided == 1 &&
	       idxf_valid(plain, plain_len, labels ? 1 : 3, labels ? 0 : rows, labels ? 0 : cols);

	char err[256] = "";
	int ret;
	if (labels) {
		struct idx_labels lb = { 0, NULL };
		ret = idx_read_labels_mem(name, copy, len, chunk, &lb, err, sizeof(err));
		if (!ret) {
			FUZZ_CHECK(decided != 0 && plain_len >= 8);
			FUZZ_CHECK(lb.count == idxf_be32(plain + 4) && lb.count == plain_len - 8);
			FUZZ_CHECK(!memcmp(lb.labels, plain + 8, lb.count));
			for (size_t i = 0; i < lb.count; i++)
				FUZZ_CHECK(lb.labels[i] < IDX_CLASSES);
			idx_free_labels(&lb);
		}
	} else {
		struct idx_images im = { 0, 0, 0, NULL };
		ret = idx_read_images_mem(name, copy, len, chunk, rows, cols, &im, err,
					  sizeof(err));
		if (!ret) {
			FUZZ_CHECK(decided != 0 && plain_len >= 16);
			FUZZ_CHECK(im.count == idxf_be32(plain + 4) && im.rows == idxf_be32(plain + 8) &&
				   im.cols == idxf_be32(plain + 12));
			FUZZ_CHECK((!rows || im.rows == rows) && (!cols || im.cols == cols));
			FUZZ_CHECK(im.count * im.rows * im.cols == plain_len - 16);
			FUZZ_CHECK(!memcmp(im.pixels, plain + 16, plain_len - 16));
			idx_free_images(&im);
		}
	}
	if (decided >= 0)
		FUZZ_CHECK((ret == 0) == want);
	if (ret) {
		FUZZ_CHECK(ret == FTPU_ERR_CORRUPT || ret == FTPU_ERR_NOMEM);
		FUZZ_CHECK(strstr(err, name) != NULL);
	}
	free(copy);
	free(gz);
	return 0;
}

#ifndef FUZZ_IDX_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_idx_one(data, size);
}
#endif
