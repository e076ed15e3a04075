/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file.c - ftpu_open_file (ftpu.h): the one way every reader of files
 * opens them (program files here; the tools' firmware images, the demo's
 * IDX files and weights), so that none of them blocks on a FIFO or reads a
 * device node without end.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "ftpu.h"

int ftpu_open_file(const char *path)
{
	struct stat st;
	int fd, e, flags;

	if (!path || !path[0])
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_open_file: %s",
				  path ? "empty path" : "path is NULL");
	/* O_NONBLOCK: opening a FIFO for reading waits for a writer, a tty
	 * for its carrier; the type is checked before anything is read */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		return ftpu__fail(NULL,
				  e == ENOENT || e == ENOTDIR ? FTPU_ERR_NOT_FOUND :
				  e == ENOMEM		      ? FTPU_ERR_NOMEM :
								FTPU_ERR_IO,
				  "%s: %s", path, strerror(e));
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		return ftpu__fail(NULL, FTPU_ERR_IO, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ftpu__fail(NULL, FTPU_ERR_CORRUPT, "%s: not a regular file (a %s)", path,
				  S_ISDIR(st.st_mode)  ? "directory" :
				  S_ISFIFO(st.st_mode) ? "FIFO" :
				  S_ISCHR(st.st_mode)  ? "character device" :
				  S_ISBLK(st.st_mode)  ? "block device" :
				  S_ISSOCK(st.st_mode) ? "socket" :
							 "special file");
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		return ftpu__fail(NULL, FTPU_ERR_IO, "%s: %s", path, strerror(e));
	}
	return fd;
}
