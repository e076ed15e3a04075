/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xdma_transport.c - the "xdma" URI: the link's byte stream over PCIe
 * through the Xilinx XDMA driver's character devices (dma_ip_drivers,
 * docs/transports.md), the IP's AXI4-Stream channels wired to the link.
 *
 *   xdma:/dev/xdma0    writes <base>_h2c_0 (host to card, H2C channel 0),
 *                      reads <base>_c2h_0 (card to host, C2H channel 0),
 *                      and requires <base>_user to exist
 *
 * <base>_user is the IP's AXI4-Lite master (the user BAR): mmap it and the
 * device's register file (docs/registers.md) is at offset 0, for status,
 * counters and a reset that do not need the stream. This transport speaks
 * only the stream; it checks the node so that a card without the register
 * BAR (a wrong bitstream, or a different XDMA design) is refused at once.
 *
 * Bounding the waits. The driver's c2h read blocks until the buffer is
 * full, the stream's TLAST ends a packet, or the driver's own timeout
 * (seconds) passes, and its nodes do not implement poll(). So a reader
 * thread does the reads, one largest frame's worth (READ_BYTES) at a time,
 * and queues the bytes; read() waits on that queue for at most its
 * timeout. The link's AXI4-Stream adapter ends every D->H frame with
 * TLAST, so each driver read completes at a frame's end instead of waiting
 * for a full buffer. Writes go straight to h2c, which completes when the
 * DMA has taken the bytes; poll() bounds the wait where the node supports
 * it (the named pipes the tests use), and the driver's h2c timeout where
 * not. close() wakes the reader, and cancels it if the driver holds it in
 * read() (cancellation interrupts the read).
 *
 * A node that reports end of file or EIO (the card gone, the peer of a
 * named pipe closed) is FTPU_ERR_IO "disconnected". SIGPIPE from a pipe
 * with no reader is held off and consumed, never delivered.
 *
 * enumerate lists $FTPU_DEV_DIR/xdma*_user (FTPU_DEV_DIR defaults to /dev).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dev_dir.h"
#include "device.h"
#include "ftpu.h"
#include "link.h"
#include "transport.h"
#include "uri.h"

enum {
	READ_BYTES = FTPU_LINK_MAX_FRAME_BYTES, /* per c2h read */
	QUEUE_MAX = 4 << 20, /* bytes read ahead, at most */
	WRITE_MS = 10000,    /* an h2c write's wait, at most */
	READER_POLL_MS = 100,
	CLOSE_JOIN_MS = 200, /* the reader's time to stop before it is cancelled */
};

struct xdma_ctx {
	int h2c, c2h;
	char base[PATH_MAX];
	char h2c_path[PATH_MAX + 8], c2h_path[PATH_MAX + 8];

	pthread_t reader;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* bytes queued, space freed, or the end */
	uint8_t *q;        /* QUEUE_MAX bytes, [head, head + len) */
	uint8_t *rbuf;     /* the reader's READ_BYTES */
	int wake[2];       /* close() wakes the reader's poll */
	size_t head, len;
	bool dead, stop;
	char why[160]; /* why dead */
};

static struct timespec deadline_after(double ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long ns = (long long)ts.tv_nsec + (long long)(ms * 1e6);
	ts.tv_sec += (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	return ts;
}

/* Opens one node, with a reason for each way it fails. */
static int open_node(const char *path, int flags, int *fd, char *err, size_t err_len)
{
	struct stat st;
	struct group *g = NULL;

	*fd = open(path, flags | O_CLOEXEC | O_NONBLOCK);
	if (*fd >= 0)
		return FTPU_OK;
	switch (errno) {
	case ENOENT:
	case ENODEV:
		snprintf(err, err_len, "xdma %s: no such node (is the card's bitstream "
			 "loaded and the xdma driver bound? `ftpu list` shows the "
			 "cards found)", path);
		return FTPU_ERR_NOT_FOUND;
	case ENXIO: /* a named pipe nobody serves */
		snprintf(err, err_len, "xdma %s: nothing at the other end", path);
		return FTPU_ERR_NOT_FOUND;
	case EACCES:
	case EPERM:
		if (!stat(path, &st))
			g = getgrgid(st.st_gid);
		snprintf(err, err_len, "xdma %s: permission denied: install the udev "
			 "rules (make install; sudo udevadm control --reload; reload the "
			 "xdma driver) or add yourself to group %s", path,
			 g ? g->gr_name : "root");
		return FTPU_ERR_IO;
	default:
		snprintf(err, err_len, "xdma %s: cannot open: %s", path, strerror(errno));
		return FTPU_ERR_IO;
	}
}

/* With mu held: the stream has ended. */
static void set_dead(struct xdma_ctx *c, const char *why)
{
	if (!c->dead)
		snprintf(c->why, sizeof(c->why), "%s", why);
	c->dead = true;
	pthread_cond_broadcast(&c->cv);
}

/*
 * The reader: c2h into the queue. Cancellation is enabled only around the
 * poll and the read (no lock held there), so close() can interrupt a read
 * the driver keeps blocked.
 */
static void *reader_main(void *arg)
{
	struct xdma_ctx *c = arg;
	uint8_t *buf = c->rbuf;
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&c->mu);
	while (!c->stop && !c->dead) {
		if (c->len + READ_BYTES > QUEUE_MAX) { /* the host is behind */
			struct timespec t = deadline_after(READER_POLL_MS);
			pthread_cond_timedwait(&c->cv, &c->mu, &t);
			continue;
		}
		pthread_mutex_unlock(&c->mu);

		struct pollfd pf[2] = {
			{ .fd = c->c2h, .events = POLLIN },
			{ .fd = c->wake[0], .events = POLLIN },
		};
		ssize_t n = -1;
		int e = EAGAIN;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		poll(pf, 2, READER_POLL_MS);
		if (pf[0].revents && !pf[1].revents) {
			n = read(c->c2h, buf, READ_BYTES);
			e = errno;
		}
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);

		pthread_mutex_lock(&c->mu);
		if (n > 0) {
			if (c->head + c->len + (size_t)n > QUEUE_MAX) {
				memmove(c->q, c->q + c->head, c->len);
				c->head = 0;
			}
			memcpy(c->q + c->head + c->len, buf, (size_t)n);
			c->len += (size_t)n;
			pthread_cond_broadcast(&c->cv);
		} else if (n == 0) {
			set_dead(c, "end of file");
		} else if (e != EAGAIN && e != EINTR && e != ETIMEDOUT) {
			/* ETIMEDOUT: the driver's own wait ended, nothing came */
			set_dead(c, strerror(e));
		}
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static int xdma_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	struct xdma_ctx *c;
	char user[PATH_MAX + 8];
	struct stat st;
	pthread_condattr_t ca;
	int ret;

	char base[PATH_MAX];
	ret = ftpu__uri_parse_xdma(opts, base, sizeof(base), err, err_len);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, err_len, "xdma: out of memory");
		return FTPU_ERR_NOMEM;
	}
	c->h2c = c->c2h = -1;
	c->wake[0] = c->wake[1] = -1;
	snprintf(c->base, sizeof(c->base), "%s", base);
	snprintf(c->h2c_path, sizeof(c->h2c_path), "%s_h2c_0", c->base);
	snprintf(c->c2h_path, sizeof(c->c2h_path), "%s_c2h_0", c->base);
	snprintf(user, sizeof(user), "%s_user", c->base);

	if (stat(user, &st)) {
		snprintf(err, err_len, "xdma %s: no such node (is the card's bitstream "
			 "loaded and the xdma driver bound? `ftpu list` shows the cards "
			 "found)", user);
		ret = FTPU_ERR_NOT_FOUND;
		goto out_free;
	}
	ret = open_node(c->c2h_path, O_RDONLY, &c->c2h, err, err_len);
	if (ret)
		goto out_free;
	ret = open_node(c->h2c_path, O_WRONLY, &c->h2c, err, err_len);
	if (ret)
		goto out_c2h;
	/*
	 * Streams, not files (a file's reads end at once). The driver's nodes
	 * block in read and write, bounded by its own timeouts (a blocked
	 * read is cancelled at close); named pipes stay nonblocking, poll()
	 * bounds their waits.
	 */
	for (int i = 0; i < 2; i++) {
		int fd = i ? c->h2c : c->c2h;
		if (fstat(fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "xdma %s: not a device node or pipe",
				 i ? c->h2c_path : c->c2h_path);
			ret = FTPU_ERR_INVALID;
			goto out_h2c;
		}
		if (S_ISCHR(st.st_mode))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	c->q = malloc(QUEUE_MAX);
	c->rbuf = malloc(READ_BYTES);
	if (!c->q || !c->rbuf || pipe2(c->wake, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, err_len, "xdma: out of memory");
		ret = FTPU_ERR_NOMEM;
		goto out_h2c;
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&c->reader, NULL, reader_main, c)) {
		snprintf(err, err_len, "xdma %s: cannot start the reader thread", c->base);
		ret = FTPU_ERR_NOMEM;
		goto out_sync;
	}
	*ctx = c;
	return FTPU_OK;

out_sync:
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
out_h2c:
	if (c->wake[0] >= 0) {
		close(c->wake[0]);
		close(c->wake[1]);
	}
	free(c->q);
	free(c->rbuf);
	close(c->h2c);
out_c2h:
	close(c->c2h);
out_free:
	free(c);
	return ret;
}

static void xdma_close(void *ctx)
{
	struct xdma_ctx *c = ctx;
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	/*
	 * A reader in poll() wakes and stops; one the driver holds in read()
	 * (no poll support there) is cancelled, which interrupts the read.
	 */
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += CLOSE_JOIN_MS * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	if (write(c->wake[1], "", 1) != 1 || pthread_timedjoin_np(c->reader, NULL, &t)) {
		pthread_cancel(c->reader);
		pthread_join(c->reader, NULL);
	}
	close(c->wake[0]);
	close(c->wake[1]);
	close(c->h2c);
	close(c->c2h);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c->q);
	free(c->rbuf);
	free(c);
}

static int disconnected(const char *path, const char *how)
{
	ftpu__transport_error("xdma %s: disconnected (%s)", path, how);
	return FTPU_ERR_IO;
}

/* write(), with SIGPIPE (a pipe without a reader) held off and consumed:
 * EPIPE is the answer, not the signal's default of ending the program. */
static ssize_t write_nosig(int fd, const void *buf, size_t n)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t w;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	w = write(fd, buf, n);
	e = errno;
	if (w < 0 && e == EPIPE && !was_pending) {
		const struct timespec zero = { 0, 0 };
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return w;
}

static int xdma_write(void *ctx, const void *buf, size_t n)
{
	struct xdma_ctx *c = ctx;
	const char *p = buf;
	size_t left = n;
	double deadline = ftpu__now_s() * 1e3 + WRITE_MS;

	while (left) {
		ssize_t w = write_nosig(c->h2c, p, left);
		if (w > 0) {
			p += w;
			left -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0 || errno != EAGAIN) {
			if (w == 0 || errno == EPIPE || errno == EIO || errno == ENODEV ||
			    errno == ENXIO)
				return disconnected(c->h2c_path, w ? strerror(errno) :
						    "nothing written");
			ftpu__transport_error("xdma %s: write failed: %s", c->h2c_path,
					      strerror(errno));
			return FTPU_ERR_IO;
		}
		double rest = deadline - ftpu__now_s() * 1e3;
		if (rest <= 0) {
			ftpu__transport_error("xdma %s: write timed out (%zu of %zu bytes "
					      "taken in %d ms)", c->h2c_path, n - left, n,
					      WRITE_MS);
			return FTPU_ERR_TIMEOUT;
		}
		struct pollfd pf = { .fd = c->h2c, .events = POLLOUT };
		if (poll(&pf, 1, (int)rest + 1) < 0 && errno != EINTR)
			return disconnected(c->h2c_path, strerror(errno));
		/* POLLERR (no reader): the next write says EPIPE. */
	}
	return FTPU_OK;
}

static long xdma_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	struct xdma_ctx *c = ctx;
	struct timespec t = deadline_after(timeout_ms);
	long n = 0;

	pthread_mutex_lock(&c->mu);
	while (!c->len && !c->dead)
		if (pthread_cond_timedwait(&c->cv, &c->mu, &t) == ETIMEDOUT)
			break;
	if (c->len) { /* bytes before the end still count */
		size_t k = c->len < cap ? c->len : cap;
		memcpy(buf, c->q + c->head, k);
		c->head += k;
		c->len -= k;
		if (!c->len)
			c->head = 0;
		n = (long)k;
		pthread_cond_broadcast(&c->cv);
	} else if (c->dead) {
		n = disconnected(c->c2h_path, c->why);
	}
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* ---- enumerate -------------------------------------------------------------- */

/* xdma<N>_user */
static int user_filter(const struct dirent *e)
{
	const char *s = e->d_name;
	size_t len = strlen(s);

	if (strncmp(s, "xdma", 4) || len < 10 || strcmp(s + len - 5, "_user"))
		return 0;
	for (size_t i = 4; i < len - 5; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* "PCIe 0000:03:00.0" from sysfs, or "". */
static void describe_card(const char *user_name, char *buf, size_t len)
{
	char link[PATH_MAX], dev[PATH_MAX];

	buf[0] = '\0';
	snprintf(link, sizeof(link), "/sys/class/xdma/%s/device", user_name);
	if (!realpath(link, dev))
		return;
	const char *slash = strrchr(dev, '/');
	snprintf(buf, len, "PCIe %.40s", slash ? slash + 1 : dev);
}

static const struct ftpu_dev_kind user_kind = {
	.scheme = "xdma",
	.label = "XDMA",
	.filter = user_filter,
	.strip = 5, /* the URI names the base: less "_user" */
	.describe = describe_card,
};

static int xdma_enumerate(int (*found)(void *arg, const char *uri, const char *what),
			  void *arg, char *err, size_t err_len)
{
	return ftpu__dev_dir_enumerate(&user_kind, found, arg, err, err_len);
}

const struct ftpu_transport_ops ftpu_transport_xdma = {
	.scheme = "xdma",
	.open = xdma_open,
	.close = xdma_close,
	.write = xdma_write,
	.read = xdma_read,
	.enumerate = xdma_enumerate,
};
