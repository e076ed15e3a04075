/* SPDX-License-Identifier: Apache-2.0 */
/* idx.c - IDX reader and writer (idx.h), through zlib's gz* calls. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "ftpu.h"
#include "idx.h"

#define IDX_TYPE_UBYTE 0x08
/* Larger files than this are not IDX files of ours: refuse to allocate. */
#define IDX_MAX_BYTES ((size_t)1 << 30)

static int fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}

/* Why gzread stopped: a broken stream, an I/O error or the end. */
static const char *gz_reason(gzFile f)
{
	int code;
	const char *msg = gzerror(f, &code);

	if (code == Z_ERRNO)
		return strerror(errno);
	if (code != Z_OK && msg && *msg)
		return msg;
	return NULL;
}

/* Reads exactly n bytes; what, the part being read, goes into the message. */
static int read_exact(gzFile f, const char *path, void *buf, size_t n,
		      const char *what, char *err, size_t errlen)
{
	size_t got = 0;

	while (got < n) {
		size_t want = n - got > (1u << 30) ? (1u << 30) : n - got;
		int r = gzread(f, (uint8_t *)buf + got, (unsigned)want);
		if (r < 0)
			return fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt (%s) while reading the %s",
				    path,
				    gz_reason(f) ? gz_reason(f) : "read error",
				    what);
		if (r == 0) {
			const char *why = gz_reason(f);
			return fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: truncated: %zu of %zu bytes of the "
				    "%s%s%s%s",
				    path, got, n, what, why ? " (" : "",
				    why ? why : "", why ? ")" : "");
		}
		got += (size_t)r;
	}
	return FTPU_OK;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * Opens path, checks the magic for ndims unsigned-byte dimensions and reads
 * them into dims; then reads the data (prod(dims) bytes, after check(dims)
 * accepted them) into a new buffer, and insists on the end of the file.
 */
static int read_idx(const char *path, unsigned ndims, uint32_t *dims,
		    int (*check)(const char *path, const uint32_t *dims,
				 const void *arg, char *err, size_t errlen),
		    const void *arg, uint8_t **data, size_t *size, char *err,
		    size_t errlen)
{
	uint8_t head[4 + 4 * 3];
	int ret;

	if (access(path, F_OK) != 0 && errno == ENOENT)
		return fail(FTPU_ERR_NOT_FOUND, err, errlen, "%s: no such file",
			    path);
	gzFile f = gzopen(path, "rb");
	if (!f)
		return fail(errno == ENOENT ? FTPU_ERR_NOT_FOUND : FTPU_ERR_IO,
			    err, errlen, "%s: cannot open: %s", path,
			    errno ? strerror(errno) : "out of memory");
	gzbuffer(f, 1u << 17);
	ret = read_exact(f, path, head, 4, "header", err, errlen);
	if (ret)
		goto out;
	uint32_t magic = be32(head);
	uint32_t want = (uint32_t)IDX_TYPE_UBYTE << 8 | ndims;
	if (magic != want) {
		ret = fail(FTPU_ERR_CORRUPT, err, errlen,
			   "%s: bad magic 0x%08x (want 0x%08x: an IDX file of "
			   "unsigned bytes in %u dimension%s)",
			   path, magic, want, ndims, ndims > 1 ? "s" : "");
		goto out;
	}
	ret = read_exact(f, path, head + 4, 4 * ndims, "header", err, errlen);
	if (ret)
		goto out;
	size_t total = 1;
	for (unsigned i = 0; i < ndims; i++) {
		dims[i] = be32(head + 4 + 4 * i);
		if (dims[i] == 0) {
			ret = fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: bad dimensions: size %u is 0", path, i);
			goto out;
		}
		if (dims[i] > IDX_MAX_BYTES / total) {
			ret = fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: bad dimensions: more than %zu bytes",
				   path, IDX_MAX_BYTES);
			goto out;
		}
		total *= dims[i];
	}
	ret = check(path, dims, arg, err, errlen);
	if (ret)
		goto out;
	uint8_t *buf = malloc(total);
	if (!buf) {
		ret = fail(FTPU_ERR_NOMEM, err, errlen,
			   "%s: out of memory for %zu bytes", path, total);
		goto out;
	}
	ret = read_exact(f, path, buf, total, "data", err, errlen);
	if (!ret) {
		/* The end: no trailing bytes, and (for gzip) the stream's
		 * CRC and length, which zlib checks when it reaches them. */
		uint8_t extra;
		int r = gzread(f, &extra, 1);
		if (r > 0)
			ret = fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: trailing bytes after %zu data bytes "
				   "(wrong dimensions?)",
				   path, total);
		else if (r < 0 || gz_reason(f))
			ret = fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: corrupt (%s) at the end", path,
				   gz_reason(f) ? gz_reason(f) : "read error");
	}
	if (ret) {
		free(buf);
		goto out;
	}
	*data = buf;
	*size = total;
out:
	gzclose(f);
	return ret;
}

struct image_shape {
	size_t rows, cols;
};

static int check_images(const char *path, const uint32_t *dims, const void *arg,
			char *err, size_t errlen)
{
	const struct image_shape *s = arg;

	if ((s->rows && dims[1] != s->rows) || (s->cols && dims[2] != s->cols))
		return fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: bad dimensions: images of %ux%u, want %zux%zu",
			    path, dims[1], dims[2], s->rows, s->cols);
	return FTPU_OK;
}

static int check_none(const char *path, const uint32_t *dims, const void *arg,
		      char *err, size_t errlen)
{
	(void)path, (void)dims, (void)arg, (void)err, (void)errlen;
	return FTPU_OK;
}

int idx_read_images(const char *path, size_t rows, size_t cols,
		    struct idx_images *out, char *err, size_t errlen)
{
	struct image_shape s = {rows, cols};
	uint32_t dims[3];
	uint8_t *data;
	size_t size;

	if (!path || !out)
		return fail(FTPU_ERR_INVALID, err, errlen, "idx: no path");
	int ret = read_idx(path, 3, dims, check_images, &s, &data, &size, err,
			   errlen);
	if (ret)
		return ret;
	out->count = dims[0];
	out->rows = dims[1];
	out->cols = dims[2];
	out->pixels = data;
	return FTPU_OK;
}

int idx_read_labels(const char *path, struct idx_labels *out, char *err,
		    size_t errlen)
{
	uint32_t dims[1];
	uint8_t *data;
	size_t size;

	if (!path || !out)
		return fail(FTPU_ERR_INVALID, err, errlen, "idx: no path");
	int ret = read_idx(path, 1, dims, check_none, NULL, &data, &size, err,
			   errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < size; i++)
		if (data[i] >= IDX_CLASSES) {
			unsigned label = data[i];
			free(data);
			return fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: label %u of item %zu is not a class "
				    "(0..%d)",
				    path, label, i, IDX_CLASSES - 1);
		}
	out->count = size;
	out->labels = data;
	return FTPU_OK;
}

int idx_read_set(const char *images_path, const char *labels_path, size_t rows,
		 size_t cols, struct idx_set *out, char *err, size_t errlen)
{
	struct idx_images im;
	struct idx_labels lb;
	int ret;

	if (!out)
		return fail(FTPU_ERR_INVALID, err, errlen, "idx: no output");
	ret = idx_read_images(images_path, rows, cols, &im, err, errlen);
	if (ret)
		return ret;
	ret = idx_read_labels(labels_path, &lb, err, errlen);
	if (ret) {
		idx_free_images(&im);
		return ret;
	}
	if (im.count != lb.count) {
		ret = fail(FTPU_ERR_CORRUPT, err, errlen,
			   "%s: %zu labels but %s holds %zu images",
			   labels_path, lb.count, images_path, im.count);
		idx_free_images(&im);
		idx_free_labels(&lb);
		return ret;
	}
	out->images = im;
	out->labels = lb;
	return FTPU_OK;
}

/* dir/name.gz when it exists or name does not, else dir/name. */
static void data_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s.gz", dir, name);
	if (access(buf, F_OK) == 0)
		return;
	char plain[4096];
	snprintf(plain, sizeof(plain), "%s/%s", dir, name);
	if (access(plain, F_OK) == 0)
		snprintf(buf, len, "%s", plain);
}

int idx_read_fashion(const char *dir, const char *prefix, struct idx_set *out,
		     char *err, size_t errlen)
{
	char images[4096], labels[4096], name[256];

	snprintf(name, sizeof(name), "%s-images-idx3-ubyte", prefix);
	data_path(images, sizeof(images), dir, name);
	snprintf(name, sizeof(name), "%s-labels-idx1-ubyte", prefix);
	data_path(labels, sizeof(labels), dir, name);
	return idx_read_set(images, labels, 28, 28, out, err, errlen);
}

void idx_free_images(struct idx_images *im)
{
	if (im) {
		free(im->pixels);
		im->pixels = NULL;
		im->count = 0;
	}
}

void idx_free_labels(struct idx_labels *lb)
{
	if (lb) {
		free(lb->labels);
		lb->labels = NULL;
		lb->count = 0;
	}
}

void idx_free_set(struct idx_set *s)
{
	if (s) {
		idx_free_images(&s->images);
		idx_free_labels(&s->labels);
	}
}

int idx_write(const char *path, const uint32_t *dims, unsigned ndims,
	      const uint8_t *data, char *err, size_t errlen)
{
	size_t len = strlen(path), total = 1;
	bool gz = len > 3 && !strcmp(path + len - 3, ".gz");
	uint8_t head[4 + 4 * 255];
	int ret = FTPU_OK;

	if (ndims == 0 || ndims > 255)
		return fail(FTPU_ERR_INVALID, err, errlen, "%s: %u dimensions",
			    path, ndims);
	head[0] = head[1] = 0;
	head[2] = IDX_TYPE_UBYTE;
	head[3] = (uint8_t)ndims;
	for (unsigned i = 0; i < ndims; i++) {
		for (int b = 0; b < 4; b++)
			head[4 + 4 * i + b] =
				(uint8_t)(dims[i] >> (24 - 8 * b));
		total *= dims[i];
	}
	gzFile f = gzopen(path, gz ? "wb" : "wbT");
	if (!f)
		return fail(FTPU_ERR_IO, err, errlen, "%s: cannot create: %s",
			    path, strerror(errno));
	if (gzwrite(f, head, 4 + 4 * ndims) != (int)(4 + 4 * ndims))
		ret = FTPU_ERR_IO;
	for (size_t at = 0; !ret && at < total;) {
		size_t n = total - at > (1u << 30) ? (1u << 30) : total - at;
		if (gzwrite(f, data + at, (unsigned)n) != (int)n)
			ret = FTPU_ERR_IO;
		at += n;
	}
	if (gzclose(f) != Z_OK)
		ret = FTPU_ERR_IO;
	if (ret)
		return fail(ret, err, errlen, "%s: write failed", path);
	return FTPU_OK;
}
