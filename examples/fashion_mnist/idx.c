/* SPDX-License-Identifier: Apache-2.0 */
/* idx.c - IDX reader and writer (idx.h): zlib's inflate and gz* calls. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "fail.h"
#include "ftpu.h"
#include "idx.h"

#define IDX_TYPE_UBYTE 0x08
/* Larger files than this are not IDX files of ours: refuse to allocate. */
#define IDX_MAX_BYTES ((size_t)1 << 30)
/* The data buffer's first size; it doubles as data arrives. */
#define IDX_FIRST_ALLOC ((size_t)1 << 20)

/*
 * The reader: a regular file (ftpu_open_file: a FIFO or device is refused
 * before anything is read), plain or one gzip stream inflated here rather
 * than by gzread, which skips junk after a stream and leaves it to the
 * caller to ask whether one ended. A gzip file must end with its stream's
 * end, CRC-32 and length checked (inflate does), and nothing after it.
 */
struct src {
	const char *path;
	int fd;
	bool gz, end, eof; /* gzip; its stream ended; the file ended */
	const uint8_t *mem; /* a file image instead of fd (idx_read_*_mem) */
	size_t mem_len, mem_at, mem_chunk;
	z_stream z;
	uint8_t in[1 << 16];
	size_t plain_have, plain_at; /* plain: bytes of in not yet taken */
};

/* More input into in from byte off on (off > 0 only before the gzip
 * check, which needs two bytes: a read may return fewer); 0, or a
 * failure. */
static int refill_at(struct src *s, size_t off, char *err, size_t errlen)
{
	for (;;) {
		ssize_t r;
		size_t room = sizeof(s->in) - off;
		if (s->mem) {
			size_t k = s->mem_len - s->mem_at;
			if (k > s->mem_chunk)
				k = s->mem_chunk;
			if (k > room)
				k = room;
			memcpy(s->in + off, s->mem + s->mem_at, k);
			s->mem_at += k;
			r = (ssize_t)k;
		} else {
			r = read(s->fd, s->in + off, room);
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fm_fail(FTPU_ERR_IO, err, errlen, "%s: read error: %s",
				    s->path, strerror(errno));
		s->eof = r == 0;
		if (s->gz) {
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)r;
		} else {
			s->plain_at = 0;
			s->plain_have = off + (size_t)r;
		}
		return FTPU_OK;
	}
}

static int refill(struct src *s, char *err, size_t errlen)
{
	return refill_at(s, 0, err, errlen);
}

/* Opens path, or (mem not NULL) reads the file image mem of mem_len
 * bytes, chunk bytes a read (0: as a file is read). */
static int src_open(struct src *s, const char *path, const void *mem,
		    size_t mem_len, size_t chunk, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	if (mem) {
		s->fd = -1;
		s->mem = mem;
		s->mem_len = mem_len;
		s->mem_chunk = chunk && chunk < sizeof(s->in) ? chunk : sizeof(s->in);
	} else {
		s->fd = ftpu_open_file(path);
		if (s->fd < 0) {
			if (s->fd == FTPU_ERR_NOT_FOUND)
				return fm_fail(s->fd, err, errlen, "%s: no such file",
					    path);
			return fm_fail(s->fd, err, errlen, "cannot open %s",
				    ftpu_last_error(NULL));
		}
	}
	int ret = refill(s, err, errlen);
	/* the gzip magic is two bytes: a short first read is not the
	 * file's end (found by tests/fuzz/fuzz_idx.c) */
	while (!ret && s->plain_have < 2 && !s->eof)
		ret = refill_at(s, s->plain_have, err, errlen);
	if (ret) {
		if (s->fd >= 0)
			close(s->fd);
		return ret;
	}
	s->gz = s->plain_have >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
	if (s->gz) {
		s->z.next_in = s->in;
		s->z.avail_in = (uInt)s->plain_have;
		if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
			if (s->fd >= 0)
				close(s->fd);
			return fm_fail(FTPU_ERR_NOMEM, err, errlen,
				    "%s: out of memory", path);
		}
	}
	return FTPU_OK;
}

static void src_close(struct src *s)
{
	if (s->gz)
		inflateEnd(&s->z);
	if (s->fd >= 0)
		close(s->fd);
}

/* Up to n bytes into buf (fewer only at the end of the data); *got. */
static int src_read(struct src *s, uint8_t *buf, size_t n, size_t *got,
		    char *err, size_t errlen)
{
	int ret;

	*got = 0;
	while (*got < n) {
		if (!s->gz) {
			if (s->plain_at == s->plain_have) {
				if (s->eof)
					return FTPU_OK;
				if ((ret = refill(s, err, errlen)))
					return ret;
				continue;
			}
			size_t k = s->plain_have - s->plain_at;
			if (k > n - *got)
				k = n - *got;
			memcpy(buf + *got, s->in + s->plain_at, k);
			s->plain_at += k;
			*got += k;
			continue;
		}
		if (s->end)
			return FTPU_OK;
		if (!s->z.avail_in) {
			if (s->eof)
				return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
					    "%s: corrupt: the gzip stream is "
					    "truncated (it stops before its "
					    "end, CRC and length)",
					    s->path);
			if ((ret = refill(s, err, errlen)))
				return ret;
			continue;
		}
		size_t want = n - *got > (1u << 30) ? (1u << 30) : n - *got;
		s->z.next_out = buf + *got;
		s->z.avail_out = (uInt)want;
		int r = inflate(&s->z, Z_NO_FLUSH);
		*got += want - s->z.avail_out;
		if (r == Z_STREAM_END)
			s->end = true;
		else if (r == Z_NEED_DICT || r == Z_DATA_ERROR)
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: corrupt (%s)", s->path,
				    s->z.msg ? s->z.msg : "bad gzip data");
		else if (r == Z_MEM_ERROR)
			return fm_fail(FTPU_ERR_NOMEM, err, errlen,
				    "%s: out of memory", s->path);
	}
	return FTPU_OK;
}

/* Reads exactly n bytes; what, the part being read, goes into the message. */
static int read_exact(struct src *s, void *buf, size_t n, const char *what,
		      char *err, size_t errlen)
{
	size_t got;
	int ret = src_read(s, buf, n, &got, err, errlen);
	if (ret)
		return ret;
	if (got < n)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: truncated: %zu of %zu bytes of the %s",
			    s->path, got, n, what);
	return FTPU_OK;
}

/* The end of the file right after total data bytes: for gzip the end of
 * its stream (CRC and length checked) and nothing after it. */
static int expect_end(struct src *s, size_t total, char *err, size_t errlen)
{
	uint8_t extra;
	size_t got;
	int ret = src_read(s, &extra, 1, &got, err, errlen);
	if (ret)
		return ret;
	if (got)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: trailing bytes after %zu data bytes "
			    "(wrong dimensions?)",
			    s->path, total);
	if (!s->gz)
		return FTPU_OK;
	/* the stream ended: what follows it must be nothing */
	while (!s->z.avail_in && !s->eof)
		if ((ret = refill(s, err, errlen)))
			return ret;
	if (s->z.avail_in)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: corrupt: bytes after the gzip stream",
			    s->path);
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
struct idx_mem {
	const void *data;
	size_t len, chunk;
};

static int read_idx(const char *path, const struct idx_mem *mem, unsigned ndims,
		    uint32_t *dims,
		    int (*check)(const char *path, const uint32_t *dims,
				 const void *arg, char *err, size_t errlen),
		    const void *arg, uint8_t **data, size_t *size, char *err,
		    size_t errlen)
{
	uint8_t head[4 + 4 * 3];
	struct src *f = malloc(sizeof(*f));
	int ret;

	if (!f)
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory",
			    path);
	ret = mem ? src_open(f, path, mem->data ? mem->data : "", mem->len,
			     mem->chunk, err, errlen) :
		    src_open(f, path, NULL, 0, 0, err, errlen);
	if (ret) {
		free(f);
		return ret;
	}
	ret = read_exact(f, head, 4, "header", err, errlen);
	if (ret)
		goto out;
	uint32_t magic = be32(head);
	uint32_t want = (uint32_t)IDX_TYPE_UBYTE << 8 | ndims;
	if (magic != want) {
		ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			   "%s: bad magic 0x%08x (want 0x%08x: an IDX file of "
			   "unsigned bytes in %u dimension%s)",
			   path, magic, want, ndims, ndims > 1 ? "s" : "");
		goto out;
	}
	ret = read_exact(f, head + 4, 4 * ndims, "header", err, errlen);
	if (ret)
		goto out;
	size_t total = 1;
	for (unsigned i = 0; i < ndims; i++) {
		dims[i] = be32(head + 4 + 4 * i);
		if (dims[i] == 0) {
			ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: bad dimensions: size %u is 0", path, i);
			goto out;
		}
		if (dims[i] > IDX_MAX_BYTES / total) {
			ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: bad dimensions: more than %zu bytes",
				   path, IDX_MAX_BYTES);
			goto out;
		}
		total *= dims[i];
	}
	ret = check(path, dims, arg, err, errlen);
	if (ret)
		goto out;
	/* The buffer grows with the data that comes (doubling from 1 MiB):
	 * a header claiming more than the file holds costs no more memory
	 * than the file's data. */
	size_t cap = total < IDX_FIRST_ALLOC ? total : IDX_FIRST_ALLOC, have = 0;
	uint8_t *buf = malloc(cap);
	while (buf && !ret && have < total) {
		if (have == cap) {
			cap = cap > total / 2 ? total : 2 * cap;
			uint8_t *more = realloc(buf, cap);
			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
		}
		size_t got;
		ret = src_read(f, buf + have, cap - have, &got, err, errlen);
		if (!ret && got < cap - have)
			ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				   "%s: truncated: %zu of %zu bytes of the data",
				   path, have + got, total);
		have += got;
	}
	if (!buf) {
		ret = fm_fail(FTPU_ERR_NOMEM, err, errlen,
			   "%s: out of memory for %zu bytes", path, total);
		goto out;
	}
	if (!ret)
		ret = expect_end(f, total, err, errlen);
	if (ret) {
		free(buf);
		goto out;
	}
	*data = buf;
	*size = total;
out:
	src_close(f);
	free(f);
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
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
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

static int read_images(const char *path, const struct idx_mem *mem, size_t rows,
		       size_t cols, struct idx_images *out, char *err,
		       size_t errlen)
{
	struct image_shape s = {rows, cols};
	uint32_t dims[3];
	uint8_t *data;
	size_t size;

	if (!path || !out)
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "idx: no path");
	int ret = read_idx(path, mem, 3, dims, check_images, &s, &data, &size,
			   err, errlen);
	if (ret)
		return ret;
	out->count = dims[0];
	out->rows = dims[1];
	out->cols = dims[2];
	out->pixels = data;
	return FTPU_OK;
}

int idx_read_images(const char *path, size_t rows, size_t cols,
		    struct idx_images *out, char *err, size_t errlen)
{
	return read_images(path, NULL, rows, cols, out, err, errlen);
}

int idx_read_images_mem(const char *name, const void *data, size_t len,
			size_t chunk, size_t rows, size_t cols,
			struct idx_images *out, char *err, size_t errlen)
{
	struct idx_mem m = {data, len, chunk};
	return read_images(name, &m, rows, cols, out, err, errlen);
}

static int read_labels(const char *path, const struct idx_mem *mem,
		       struct idx_labels *out, char *err, size_t errlen)
{
	uint32_t dims[1];
	uint8_t *data;
	size_t size;

	if (!path || !out)
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "idx: no path");
	int ret = read_idx(path, mem, 1, dims, check_none, NULL, &data, &size,
			   err, errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < size; i++)
		if (data[i] >= IDX_CLASSES) {
			unsigned label = data[i];
			free(data);
			return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
				    "%s: label %u of item %zu is not a class "
				    "(0..%d)",
				    path, label, i, IDX_CLASSES - 1);
		}
	out->count = size;
	out->labels = data;
	return FTPU_OK;
}

int idx_read_labels(const char *path, struct idx_labels *out, char *err,
		    size_t errlen)
{
	return read_labels(path, NULL, out, err, errlen);
}

int idx_read_labels_mem(const char *name, const void *data, size_t len,
			size_t chunk, struct idx_labels *out, char *err,
			size_t errlen)
{
	struct idx_mem m = {data, len, chunk};
	return read_labels(name, &m, out, err, errlen);
}

int idx_read_set(const char *images_path, const char *labels_path, size_t rows,
		 size_t cols, struct idx_set *out, char *err, size_t errlen)
{
	struct idx_images im;
	struct idx_labels lb;
	int ret;

	if (!out)
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "idx: no output");
	ret = idx_read_images(images_path, rows, cols, &im, err, errlen);
	if (ret)
		return ret;
	ret = idx_read_labels(labels_path, &lb, err, errlen);
	if (ret) {
		idx_free_images(&im);
		return ret;
	}
	if (im.count != lb.count) {
		ret = fm_fail(FTPU_ERR_CORRUPT, err, errlen,
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
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "%s: %u dimensions",
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
		return fm_fail(FTPU_ERR_IO, err, errlen, "%s: cannot create: %s",
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
		return fm_fail(ret, err, errlen, "%s: write failed", path);
	return FTPU_OK;
}
