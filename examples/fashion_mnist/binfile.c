/* SPDX-License-Identifier: Apache-2.0 */
/* binfile.c - atomic writes and strict reads of the demo's files (binfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "fail.h"
#include "binfile.h"
#include "ftpu.h"

void binfile_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void binfile_put64(uint8_t *p, uint64_t v)
{
	binfile_put32(p, (uint32_t)v);
	binfile_put32(p + 4, (uint32_t)(v >> 32));
}

uint32_t binfile_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t binfile_get64(const uint8_t *p)
{
	return (uint64_t)binfile_get32(p) | (uint64_t)binfile_get32(p + 4) << 32;
}

static uint32_t crc_of(const uint8_t *buf, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	while (n) { /* zlib takes uInt lengths */
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;
		crc = crc32(crc, buf, k);
		buf += k, n -= k;
	}
	return (uint32_t)crc;
}

/* fsync of the directory holding path, so that the rename itself lasts. */
static void sync_dir(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int binfile_write(const char *path, uint8_t *buf, size_t size, char *err, size_t errlen)
{
	char tmp[4096];
	int fd, ret = FTPU_OK;

	binfile_put32(buf + size - 4, crc_of(buf, size - 4));
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return fm_fail(errno == ENOENT ? FTPU_ERR_NOT_FOUND : FTPU_ERR_IO, err, errlen,
			    "%s: cannot create: %s", path, strerror(errno));
	/* mkstemp's 0600 would outlive the rename: a file as open(2) makes it */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	for (size_t at = 0; at < size;) {
		ssize_t w = write(fd, buf + at, size - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = fm_fail(FTPU_ERR_IO, err, errlen, "%s: write failed: %s", path,
				   strerror(errno));
			break;
		}
		at += (size_t)w;
	}
	if (!ret && fsync(fd) != 0)
		ret = fm_fail(FTPU_ERR_IO, err, errlen, "%s: sync failed: %s", path, strerror(errno));
	if (close(fd) != 0 && !ret)
		ret = fm_fail(FTPU_ERR_IO, err, errlen, "%s: close failed: %s", path, strerror(errno));
	if (!ret && rename(tmp, path) != 0)
		ret = fm_fail(FTPU_ERR_IO, err, errlen, "%s: cannot rename: %s", path, strerror(errno));
	if (ret)
		unlink(tmp);
	else
		sync_dir(path);
	return ret;
}

/* Up to n bytes of fd into buf; *got short only at the end of the file. */
static int read_upto(int fd, const char *path, uint8_t *buf, size_t n, size_t *got, char *err,
		     size_t errlen)
{
	*got = 0;
	while (*got < n) {
		ssize_t r = read(fd, buf + *got, n - *got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fm_fail(FTPU_ERR_IO, err, errlen, "%s: read error: %s", path,
				    strerror(errno));
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return FTPU_OK;
}

int binfile_open(struct binfile *f, const char *path, const char *magic, const char *what,
		 uint8_t *head, size_t head_len, uint32_t max_version, uint32_t *version,
		 char *err, size_t errlen)
{
	size_t got;
	*f = (struct binfile){ .path = path, .fd = -1 };
	/* a regular file only (a FIFO or /dev/zero is refused unread), and
	 * the header first: only the bytes it announces are read */
	int fd = ftpu_open_file(path);
	if (fd < 0)
		return fm_fail(fd, err, errlen, "cannot open %s", ftpu_last_error(NULL));
	f->fd = fd;
	int ret = read_upto(fd, path, head, head_len, &got, err, errlen);
	if (ret)
		return ret;
	if (got < 8 || memcmp(head, magic, 8))
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen, "%s: not an ftpu %s (bad magic)", path,
			    what);
	if (got < head_len)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: truncated: %zu bytes, the header alone is %zu", path, got,
			    head_len);
	*version = binfile_get32(head + 8);
	if (*version == 0 || *version > max_version)
		return fm_fail(*version ? FTPU_ERR_UNSUPPORTED : FTPU_ERR_CORRUPT, err, errlen,
			    "%s: format version %u (this program reads 1..%u)", path, *version,
			    max_version);
	return FTPU_OK;
}

int binfile_read(struct binfile *f, const uint8_t *head, size_t head_len, size_t size,
		 const char *size_why, char *err, size_t errlen)
{
	const char *path = f->path;
	uint8_t extra;
	size_t got, more = 0;
	/* the size the header announces, before anything more is read */
	struct stat st;
	if (fstat(f->fd, &st) || (uint64_t)st.st_size != size) {
		uint64_t have = fstat(f->fd, &st) ? 0 : (uint64_t)st.st_size;
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen, "%s: %s: %llu bytes, %s %zu", path,
			    have < size ? "truncated" : "trailing bytes", (unsigned long long)have,
			    size_why, size);
	}
	f->buf = malloc(size);
	if (!f->buf)
		return fm_fail(FTPU_ERR_NOMEM, err, errlen, "%s: out of memory", path);
	f->size = size;
	memcpy(f->buf, head, head_len);
	int ret = read_upto(f->fd, path, f->buf + head_len, size - head_len, &got, err, errlen);
	if (!ret && got == size - head_len)
		ret = read_upto(f->fd, path, &extra, 1, &more, err, errlen);
	if (ret)
		return ret;
	if (got != size - head_len || more) /* changed meanwhile */
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen, "%s: %s while being read", path,
			    more ? "grew" : "shrank");
	uint32_t want = binfile_get32(f->buf + size - 4), crc = crc_of(f->buf, size - 4);
	if (want != crc)
		return fm_fail(FTPU_ERR_CORRUPT, err, errlen,
			    "%s: corrupt: CRC-32 0x%08x, the file says 0x%08x", path, crc, want);
	return FTPU_OK;
}

void binfile_close(struct binfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	*f = (struct binfile){ .fd = -1 };
}
