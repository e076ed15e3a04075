/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uart_transport.c - the "uart" URI: the link's byte stream over a serial
 * port, e.g. the iCEBreaker's FT2232H channel B (docs/transports.md).
 *
 *   uart:/dev/ttyUSB1            3000000 baud (the boards' default)
 *   uart:/dev/ttyUSB1@12000000   any whole rate 50 ..= 20000000
 *
 * The port is put in raw mode, 8N1, no flow control (neither RTS/CTS nor
 * XON/XOFF: the link protocol's credit does flow control, and XON/XOFF
 * would eat payload bytes), modem lines ignored (CLOCAL). The rate is set
 * through termios2: a standard rate by its Bnnn code, any other with
 * BOTHER, so non-standard rates work on drivers that can make them
 * (ftdi_sio can); a rate the driver rounds by more than 3% is refused.
 * The port is held exclusively: flock(LOCK_EX) (which also keeps out root
 * and other flock users such as picocom and screen) plus TIOCEXCL (which
 * keeps out plain opens). Input that was waiting before
 * the open is discarded.
 *
 * Reads and writes are nonblocking underneath, with poll() bounding every
 * wait: a read by its timeout, a write by WRITE_MS plus the bytes' time
 * on the wire. A hang-up (the adapter unplugged, a pty's master closed)
 * is FTPU_ERR_IO "disconnected"; every message names the port.
 *
 * enumerate lists $FTPU_DEV_DIR/ttyUSB* and ttyACM* (FTPU_DEV_DIR defaults
 * to /dev), with the USB IDs and product from sysfs where there are any.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <asm/termbits.h> /* struct termios2, BOTHER; not with <termios.h> */
#include <sys/ioctl.h>
#endif

#include "dev_dir.h"
#include "device.h"
#include "ftpu.h"
#include "transport.h"
#include "uri.h"

enum {
	WRITE_MS = 2000, /* a write's wait beyond its time on the wire */
};

struct uart_ctx {
	int fd;
	unsigned baud;
	char path[PATH_MAX];
};

/* "... add yourself to group G" for a node we may not open. */
static void permission_hint(const char *path, char *buf, size_t len)
{
	struct stat st;
	struct group *g = NULL;

	if (!stat(path, &st))
		g = getgrgid(st.st_gid);
	snprintf(buf, len, "add yourself to its group (sudo usermod -aG %s $USER, "
		 "then log in again) or install the udev rules (make install; "
		 "sudo udevadm control --reload; replug the board)",
		 g ? g->gr_name : "dialout");
}

#ifdef __linux__
/* The Bnnn code of a standard rate, or BOTHER (the rate in c_ospeed). */
static tcflag_t baud_code(unsigned baud)
{
	static const struct { unsigned baud; tcflag_t code; } std[] = {
		{ 50, B50 }, { 75, B75 }, { 110, B110 }, { 134, B134 }, { 150, B150 },
		{ 200, B200 }, { 300, B300 }, { 600, B600 }, { 1200, B1200 },
		{ 1800, B1800 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
		{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1152000, B1152000 }, { 1500000, B1500000 },
		{ 2000000, B2000000 }, { 2500000, B2500000 }, { 3000000, B3000000 },
		{ 3500000, B3500000 }, { 4000000, B4000000 },
	};
	for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++)
		if (std[i].baud == baud)
			return std[i].code;
	return BOTHER;
}

/* Raw 8N1 at baud, no flow control, reads returning what is there. */
static int configure(struct uart_ctx *c, char *err, size_t err_len)
{
	struct termios2 t;

	if (ioctl(c->fd, TCGETS2, &t)) {
		snprintf(err, err_len, "uart %s: not a serial port (%s)", c->path,
			 strerror(errno));
		return FTPU_ERR_INVALID;
	}
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR |
				 ICRNL | IXON | IXOFF | IXANY | INPCK | IUCLC | IMAXBEL);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | CBAUD |
				 (CBAUD << IBSHIFT));
	/* A standard rate by its code (old drivers know no BOTHER), any
	 * other through BOTHER; the input rate follows the output's. */
	t.c_cflag |= CS8 | CREAD | CLOCAL | baud_code(c->baud);
	t.c_ispeed = t.c_ospeed = c->baud;
	/* VMIN 1: a read with nothing there is EAGAIN (O_NONBLOCK), so a
	 * read of 0 bytes means a hang-up. */
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (ioctl(c->fd, TCSETS2, &t)) {
		snprintf(err, err_len, "uart %s: cannot set raw mode at %u baud (%s)",
			 c->path, c->baud, strerror(errno));
		return errno == EINVAL ? FTPU_ERR_UNSUPPORTED : FTPU_ERR_IO;
	}
	/* The driver writes back the rate it made. */
	if (!ioctl(c->fd, TCGETS2, &t) && (t.c_cflag & CBAUD) == BOTHER && t.c_ospeed &&
	    (t.c_ospeed > c->baud ? t.c_ospeed - c->baud : c->baud - t.c_ospeed) >
		    c->baud / 33) {
		snprintf(err, err_len, "uart %s: the port cannot run at %u baud (it "
			 "offers %u)", c->path, c->baud, (unsigned)t.c_ospeed);
		return FTPU_ERR_UNSUPPORTED;
	}
	ioctl(c->fd, TCFLSH, TCIOFLUSH); /* stale input from before the open */
	return FTPU_OK;
}
#else
static int configure(struct uart_ctx *c, char *err, size_t err_len)
{
	snprintf(err, err_len, "uart %s: this build supports serial ports on "
		 "Linux only (termios2)", c->path);
	return FTPU_ERR_UNSUPPORTED;
}
#endif

static int uart_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	struct uart_ctx *c = calloc(1, sizeof(*c));
	struct stat st;
	char hint[256];
	int ret;

	if (!c) {
		snprintf(err, err_len, "uart: out of memory");
		return FTPU_ERR_NOMEM;
	}
	ret = ftpu__uri_parse_uart(opts, c->path, sizeof(c->path), &c->baud, err, err_len);
	if (ret)
		goto out_free;

	c->fd = open(c->path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0) {
		switch (errno) {
		case EISDIR:
			snprintf(err, err_len, "uart %s: not a serial port (a directory)",
				 c->path);
			ret = FTPU_ERR_INVALID;
			break;
		case ENOENT:
		case ENODEV:
		case ENXIO:
			snprintf(err, err_len, "uart %s: no such port (is the board "
				 "plugged in? `ftpu list` shows the ports found)", c->path);
			ret = FTPU_ERR_NOT_FOUND;
			break;
		case EACCES:
		case EPERM:
			permission_hint(c->path, hint, sizeof(hint));
			snprintf(err, err_len, "uart %s: permission denied: %s", c->path, hint);
			ret = FTPU_ERR_IO;
			break;
		case EBUSY:
			snprintf(err, err_len, "uart %s: in use by another program (it "
				 "holds the port exclusively)", c->path);
			ret = FTPU_ERR_IO;
			break;
		default:
			snprintf(err, err_len, "uart %s: cannot open: %s", c->path,
				 strerror(errno));
			ret = FTPU_ERR_IO;
		}
		goto out_free;
	}
	if (fstat(c->fd, &st) || !S_ISCHR(st.st_mode)) {
		snprintf(err, err_len, "uart %s: not a serial port (a %s)", c->path,
			 S_ISREG(st.st_mode) ? "regular file" :
			 S_ISDIR(st.st_mode) ? "directory" :
			 S_ISFIFO(st.st_mode) ? "named pipe" : "file of another kind");
		ret = FTPU_ERR_INVALID;
		goto out_close;
	}
	if (!isatty(c->fd)) {
		snprintf(err, err_len, "uart %s: not a serial port (a character "
			 "device that is no tty)", c->path);
		ret = FTPU_ERR_INVALID;
		goto out_close;
	}
	if (flock(c->fd, LOCK_EX | LOCK_NB)) {
		snprintf(err, err_len, "uart %s: in use by another program (it holds "
			 "the port's lock)", c->path);
		ret = FTPU_ERR_IO;
		goto out_close;
	}
#ifdef TIOCEXCL
	ioctl(c->fd, TIOCEXCL);
#endif
	ret = configure(c, err, err_len);
	if (ret)
		goto out_unexcl;
	*ctx = c;
	return FTPU_OK;

out_unexcl:
#ifdef TIOCNXCL
	ioctl(c->fd, TIOCNXCL);
#endif
out_close:
	close(c->fd);
out_free:
	free(c);
	return ret;
}

static void uart_close(void *ctx)
{
	struct uart_ctx *c = ctx;
	if (!c)
		return;
#ifdef __linux__
	/* Output still queued would hold close() up to the port's
	 * closing_wait (30 s) on a board that stopped reading. */
	ioctl(c->fd, TCFLSH, TCIOFLUSH);
	ioctl(c->fd, TIOCNXCL);
#endif
	close(c->fd); /* drops the flock too */
	free(c);
}

/* Errors of a read or write that mean the port is gone. */
static bool gone(int e)
{
	return e == EIO || e == ENXIO || e == ENODEV || e == EPIPE || e == EBADF;
}

static int disconnected(const struct uart_ctx *c, const char *how)
{
	ftpu__transport_error("uart %s: disconnected (%s)", c->path, how);
	return FTPU_ERR_IO;
}

/* A read or write failed with errno e. */
static int io_failed(const struct uart_ctx *c, const char *op, int e)
{
	if (gone(e))
		return disconnected(c, strerror(e));
	ftpu__transport_error("uart %s: %s failed: %s", c->path, op, strerror(e));
	return FTPU_ERR_IO;
}

static int uart_write(void *ctx, const void *buf, size_t n)
{
	struct uart_ctx *c = ctx;
	const char *p = buf;
	size_t left = n;
	double wire = (double)n * 10e3 / c->baud; /* 8N1: 10 bits a byte */
	double deadline = ftpu__now_s() * 1e3 + WRITE_MS + wire;

	while (left) {
		ssize_t w = write(c->fd, p, left);
		if (w > 0) {
			p += w;
			left -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return io_failed(c, "write", errno);
		double rest = deadline - ftpu__now_s() * 1e3;
		if (rest <= 0) {
			ftpu__transport_error("uart %s: write timed out (%zu of %zu bytes "
					      "sent in %.0f ms)", c->path, n - left, n,
					      WRITE_MS + wire);
			return FTPU_ERR_TIMEOUT;
		}
		struct pollfd pf = { .fd = c->fd, .events = POLLOUT };
		if (poll(&pf, 1, (int)rest + 1) < 0 && errno != EINTR)
			return disconnected(c, strerror(errno));
		if (pf.revents & (POLLERR | POLLNVAL))
			return disconnected(c, "the port reports an error");
		/* POLLHUP: the next write says EIO. */
	}
	return FTPU_OK;
}

static long uart_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	struct uart_ctx *c = ctx;
	double deadline = ftpu__now_s() * 1e3 + timeout_ms;
	short hup = 0;

	if (cap > SSIZE_MAX)
		cap = SSIZE_MAX;
	for (;;) {
		ssize_t n = read(c->fd, buf, cap);
		if (n > 0)
			return (long)n;
		if (n == 0)
			return disconnected(c, "end of file");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return io_failed(c, "read", errno);
		if (hup)
			return disconnected(c, "hang-up");
		double rest = deadline - ftpu__now_s() * 1e3;
		if (rest <= 0)
			return 0;
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		int r = poll(&pf, 1, (int)rest + 1);
		if (r < 0 && errno != EINTR)
			return disconnected(c, strerror(errno));
		/* Read once more after a hang-up: bytes may precede it. */
		hup = pf.revents & (POLLHUP | POLLERR | POLLNVAL);
	}
}

/* ---- enumerate -------------------------------------------------------------- */

/* The first line of a sysfs attribute, or "" when there is none. */
static void read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* "FT2232H 0403:6010" for a USB serial port, from sysfs; "" otherwise. */
static void describe_tty(const char *name, char *buf, size_t len)
{
	char link[PATH_MAX], dir[PATH_MAX], vid[16], pid[16], product[96];

	buf[0] = '\0';
	snprintf(link, sizeof(link), "/sys/class/tty/%s/device", name);
	if (!realpath(link, dir))
		return;
	/* Up from the interface to the USB device, which has idVendor. */
	for (int up = 0; up < 4; up++) {
		read_attr(dir, "idVendor", vid, sizeof(vid));
		if (vid[0]) {
			read_attr(dir, "idProduct", pid, sizeof(pid));
			read_attr(dir, "product", product, sizeof(product));
			snprintf(buf, len, "%s%s%s:%s", product, product[0] ? " " : "",
				 vid, pid);
			return;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return;
		*slash = '\0';
	}
}

static int tty_filter(const struct dirent *e)
{
	return !strncmp(e->d_name, "ttyUSB", 6) || !strncmp(e->d_name, "ttyACM", 6);
}

static const struct ftpu_dev_kind tty_kind = {
	.scheme = "uart",
	.label = "serial port",
	.filter = tty_filter,
	.describe = describe_tty,
};

static int uart_enumerate(int (*found)(void *arg, const char *uri, const char *what),
			  void *arg, char *err, size_t err_len)
{
	return ftpu__dev_dir_enumerate(&tty_kind, found, arg, err, err_len);
}

const struct ftpu_transport_ops ftpu_transport_uart = {
	.scheme = "uart",
	.open = uart_open,
	.close = uart_close,
	.write = uart_write,
	.read = uart_read,
	.enumerate = uart_enumerate,
};
