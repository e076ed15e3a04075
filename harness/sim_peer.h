/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sim_peer.h - the simulated device (rtl/ftpu_top.sv, sim/ftpu_sim.h) as the
 * far end of a link, for transport tests and benchmarks: the device runs on
 * a thread of its own, and a test moves link bytes to and from it either
 * through memory or through file descriptors (a pty master, named pipes).
 *
 *   struct sim_peer *p = sim_peer_start(16);   16x16 device (device_16);
 *                                              4: device_4p; 2: the
 *                                              iCEBreaker's top behind its
 *                                              UART pins (board_icebreaker,
 *                                              linked by the tests that
 *                                              want it); 0: no device,
 *                                              host bytes echo back
 *   sim_peer_write(p, buf, n)                  host -> device bytes
 *   sim_peer_read(p, buf, cap, timeout_ms)     device -> host bytes
 *   sim_peer_inject(p, bytes, n)               garbage into device -> host
 *   sim_peer_serve_fds(p, in_fd, out_fd)       pump fds <-> the device
 *   sim_peer_hangup(p)                         close those fds (unplug)
 *   sim_peer_stop(p)                           all of it down, p freed
 *
 * Threads. The Verilated model is opened, run and closed only on the peer's
 * own thread. Everything else talks to it through two byte queues under
 * one mutex: in (host -> device) and out (device -> host). The peer thread
 * moves `in` into the model, runs the clock in slices while the device has
 * work (input queued, or not idle), and appends what the device sent to
 * `out`; with nothing to do it sleeps on a condition variable (bounded, so
 * a stop is seen within PEER_IDLE_MS). The fd server is a second thread
 * that reads in_fd into `in` and writes `out` to out_fd; the peer thread
 * wakes it through a pipe when `out` grows. Every wait in here is bounded.
 *
 * The device runs ~80k cycles/s and takes up to four host bytes a cycle
 * (INFO LINK_BYTES), so a link through it carries at most ~320 KB/s; echo mode (rows 0) has no device
 * and measures the transport alone.
 *
 * Header-only, static functions, C11 + POSIX threads. Link the device
 * models (device_16, device_4p) into any program that uses rows 16 or 4.
 */
#ifndef FTPU_SIM_PEER_H
#define FTPU_SIM_PEER_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftpu_sim.h"

/* Only the tests that serve the board link its model. */
#pragma weak ftpu_sim_open_board_icebreaker

enum {
	PEER_SLICE_CYCLES = 128, /* clock cycles per run call while busy */
	PEER_SETTLE_CYCLES = 32, /* per run call while it goes idle */
	PEER_IDLE_MS = 20,       /* longest sleep of an idle peer thread */
	PEER_POLL_MS = 50,       /* longest poll of the fd server */
	PEER_CHUNK = 65536,      /* bytes moved per step */
	PEER_START_MS = 10000,   /* opening the model, at most */
};

/* A growable byte queue: bytes [head, len) are queued. */
struct peer_bytes {
	uint8_t *b;
	size_t head, len, cap;
};

struct sim_peer {
	unsigned rows; /* 16, 4, or 0 (echo) */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* the peer thread waits here for input */
	pthread_cond_t out_cv; /* readers wait here for output */
	struct peer_bytes in, out, inject;
	bool stop, started, open_failed;
	uint64_t bytes_in, bytes_out; /* moved through the queues */

	/* fd server */
	pthread_t pump;
	bool serving, hangup;
	int in_fd, out_fd;
	int wake[2]; /* the peer thread writes a byte when out grows */
	bool wake_pending;
};

/* ---- time, queues ------------------------------------------------------- */

static inline double peer_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* An absolute CLOCK_MONOTONIC time ms from now, for pthread_cond_timedwait
 * on a condition variable made with that clock. */
static inline struct timespec peer_deadline(double ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long ns = (long long)ts.tv_nsec + (long long)(ms * 1e6);
	ts.tv_sec += (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	return ts;
}

static inline size_t peer_bytes_queued(const struct peer_bytes *q)
{
	return q->len - q->head;
}

/* Appends n bytes; false when out of memory. */
static inline bool peer_bytes_put(struct peer_bytes *q, const void *src, size_t n)
{
	if (q->head && q->head == q->len)
		q->head = q->len = 0;
	if (q->len + n > q->cap) {
		size_t live = q->len - q->head;
		if (q->head && live + n <= q->cap) {
			memmove(q->b, q->b + q->head, live);
		} else {
			size_t cap = q->cap ? q->cap : 4096;
			while (cap < live + n)
				cap *= 2;
			uint8_t *b = malloc(cap);
			if (!b)
				return false;
			if (live)
				memcpy(b, q->b + q->head, live);
			free(q->b);
			q->b = b;
			q->cap = cap;
		}
		q->head = 0;
		q->len = live;
	}
	if (n)
		memcpy(q->b + q->len, src, n);
	q->len += n;
	return true;
}

/* Takes up to cap bytes; returns how many. */
static inline size_t peer_bytes_take(struct peer_bytes *q, void *dst, size_t cap)
{
	size_t n = peer_bytes_queued(q);
	if (n > cap)
		n = cap;
	if (n)
		memcpy(dst, q->b + q->head, n);
	q->head += n;
	if (q->head == q->len)
		q->head = q->len = 0;
	return n;
}

/* With mu held: output has grown; wake readers and the fd server. */
static inline void peer_out_grew(struct sim_peer *p)
{
	pthread_cond_broadcast(&p->out_cv);
	if (p->serving && !p->wake_pending) {
		char c = 1;
		if (write(p->wake[1], &c, 1) == 1)
			p->wake_pending = true;
	}
}

/* ---- the peer thread ------------------------------------------------------ */

static void *sim_peer_main(void *arg)
{
	struct sim_peer *p = arg;
	struct ftpu_sim *sim = NULL;
	uint8_t *buf = malloc(PEER_CHUNK);
	unsigned quiet = 0; /* idle slices in a row */

	if (buf && p->rows == 16)
		sim = ftpu_sim_open_device_16(NULL);
	else if (buf && p->rows == 4)
		sim = ftpu_sim_open_device_4p(NULL);
	else if (buf && p->rows == 2 && ftpu_sim_open_board_icebreaker)
		sim = ftpu_sim_open_board_icebreaker(NULL);
	pthread_mutex_lock(&p->mu);
	p->open_failed = !buf || (p->rows && !sim);
	p->started = true;
	pthread_cond_broadcast(&p->out_cv);
	if (p->open_failed) {
		pthread_mutex_unlock(&p->mu);
		free(buf);
		return NULL;
	}
	while (!p->stop) {
		size_t n = peer_bytes_take(&p->in, buf, PEER_CHUNK);
		if (!p->rows) { /* echo */
			if (n && peer_bytes_put(&p->out, buf, n)) {
				p->bytes_out += n;
				peer_out_grew(p);
			} else if (!n) {
				struct timespec t = peer_deadline(PEER_IDLE_MS);
				pthread_cond_timedwait(&p->cv, &p->mu, &t);
			}
			continue;
		}
		pthread_mutex_unlock(&p->mu);

		if (n)
			ftpu_sim_device_push(sim, buf, n);
		/* Short slices: input that arrives meanwhile waits for the
		 * slice to end (~1.5 ms at 80k cycles/s). */
		bool busy = n || ftpu_sim_device_in_queued(sim) ||
			    !ftpu_sim_device_idle(sim);
		if (busy || quiet < 2)
			ftpu_sim_device_run(sim, busy ? PEER_SLICE_CYCLES :
						  PEER_SETTLE_CYCLES);
		size_t got = ftpu_sim_device_pull(sim, buf, PEER_CHUNK);
		bool idle = !got && ftpu_sim_device_idle(sim) &&
			    !ftpu_sim_device_in_queued(sim) &&
			    !ftpu_sim_device_out_queued(sim);
		quiet = idle ? (quiet < 2 ? quiet + 1 : 2) : 0;

		pthread_mutex_lock(&p->mu);
		if (got && peer_bytes_put(&p->out, buf, got)) {
			p->bytes_out += got;
			peer_out_grew(p);
		}
		/* Garbage goes out between frames: when the device is quiet. */
		if (quiet >= 2 && peer_bytes_queued(&p->inject)) {
			peer_bytes_put(&p->out, p->inject.b + p->inject.head,
				       peer_bytes_queued(&p->inject));
			p->inject.head = p->inject.len = 0;
			peer_out_grew(p);
		}
		if (quiet >= 2 && !peer_bytes_queued(&p->in) && !p->stop) {
			struct timespec t = peer_deadline(PEER_IDLE_MS);
			pthread_cond_timedwait(&p->cv, &p->mu, &t);
		}
	}
	pthread_mutex_unlock(&p->mu);
	ftpu_sim_close(sim);
	free(buf);
	return NULL;
}

/* ---- the memory API --------------------------------------------------------- */

static inline void sim_peer_stop(struct sim_peer *p);

/*
 * Starts a peer: rows 16 (device_16), 4 (device_4p), 2 (board_icebreaker,
 * when linked), or 0 (no device: the host's bytes come straight back).
 * NULL when out of memory, rows is another value, or the model does not
 * open within PEER_START_MS.
 */
static inline struct sim_peer *sim_peer_start(unsigned rows)
{
	struct sim_peer *p;
	pthread_condattr_t ca;

	if (rows != 0 && rows != 2 && rows != 4 && rows != 16)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->rows = rows;
	p->in_fd = p->out_fd = -1;
	p->wake[0] = p->wake[1] = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_cond_init(&p->out_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->thread, NULL, sim_peer_main, p)) {
		pthread_cond_destroy(&p->cv);
		pthread_cond_destroy(&p->out_cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	struct timespec t = peer_deadline(PEER_START_MS);
	pthread_mutex_lock(&p->mu);
	while (!p->started)
		if (pthread_cond_timedwait(&p->out_cv, &p->mu, &t) == ETIMEDOUT)
			break;
	bool ok = p->started && !p->open_failed;
	pthread_mutex_unlock(&p->mu);
	if (!ok) {
		sim_peer_stop(p); /* joins: the opener returns eventually */
		return NULL;
	}
	return p;
}

/* Queues n host -> device bytes; 0, or -1 when out of memory or stopped. */
static inline int sim_peer_write(struct sim_peer *p, const void *buf, size_t n)
{
	int ret = 0;
	pthread_mutex_lock(&p->mu);
	if (p->stop || !peer_bytes_put(&p->in, buf, n))
		ret = -1;
	else
		p->bytes_in += n;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return ret;
}

/*
 * Takes up to cap device -> host bytes, waiting at most timeout_ms for the
 * first. Returns the count, 0 when none came in time, -1 once stopped.
 */
static inline long sim_peer_read(struct sim_peer *p, void *buf, size_t cap,
				 unsigned timeout_ms)
{
	struct timespec t = peer_deadline(timeout_ms);
	long n;

	pthread_mutex_lock(&p->mu);
	while (!p->stop && !peer_bytes_queued(&p->out))
		if (pthread_cond_timedwait(&p->out_cv, &p->mu, &t) == ETIMEDOUT)
			break;
	n = (long)peer_bytes_take(&p->out, buf, cap);
	if (!n && p->stop)
		n = -1;
	pthread_mutex_unlock(&p->mu);
	return n;
}

/*
 * Puts n bytes into the device -> host stream as if the device had sent
 * them, between frames: the peer thread adds them to the output when the
 * device is quiet (idle, nothing queued either way), after everything the
 * device sent before. Waits until it has, at most PEER_START_MS, so bytes
 * the host sends after this call are answered after the garbage. In echo
 * mode they go out at once. 0, or -1 (out of memory, stopped, or the
 * device was never quiet in time).
 */
static inline int sim_peer_inject(struct sim_peer *p, const void *bytes, size_t n)
{
	struct timespec t = peer_deadline(PEER_START_MS);
	bool ok;

	pthread_mutex_lock(&p->mu);
	if (p->rows) {
		ok = peer_bytes_put(&p->inject, bytes, n);
		pthread_cond_signal(&p->cv);
		while (ok && !p->stop && peer_bytes_queued(&p->inject))
			if (pthread_cond_timedwait(&p->out_cv, &p->mu, &t) == ETIMEDOUT)
				break;
		ok = ok && !peer_bytes_queued(&p->inject);
	} else {
		ok = peer_bytes_put(&p->out, bytes, n);
		if (ok)
			peer_out_grew(p);
	}
	pthread_mutex_unlock(&p->mu);
	return ok ? 0 : -1;
}

/* Bytes moved so far: host -> device (*in) and device -> host (*out, the
 * device's own, injected bytes not counted). Either may be NULL. */
static inline void sim_peer_counts(struct sim_peer *p, uint64_t *in, uint64_t *out)
{
	pthread_mutex_lock(&p->mu);
	if (in)
		*in = p->bytes_in;
	if (out)
		*out = p->bytes_out;
	pthread_mutex_unlock(&p->mu);
}

/* ---- the fd server ------------------------------------------------------------ */

/*
 * The fd server: one poll() over both directions, so that a host which is
 * busy writing and not reading (its output buffer full) never stops the
 * server from taking the host's bytes, nor the other way round.
 */
static void *sim_peer_pump(void *arg)
{
	struct sim_peer *p = arg;
	uint8_t *in = malloc(PEER_CHUNK), *out = malloc(PEER_CHUNK);
	size_t out_len = 0, out_off = 0; /* device bytes still to write */
	bool same = p->in_fd == p->out_fd;

	while (in && out) {
		if (out_off == out_len) {
			pthread_mutex_lock(&p->mu);
			p->wake_pending = false;
			out_len = peer_bytes_take(&p->out, out, PEER_CHUNK);
			out_off = 0;
			pthread_mutex_unlock(&p->mu);
		}
		bool pending = out_off < out_len;
		struct pollfd pf[3] = {
			{ .fd = p->in_fd,
			  .events = POLLIN | (same && pending ? POLLOUT : 0) },
			{ .fd = p->wake[0], .events = POLLIN },
			{ .fd = !same && pending ? p->out_fd : -1, .events = POLLOUT },
		};
		int r = poll(pf, 3, PEER_POLL_MS);

		pthread_mutex_lock(&p->mu);
		bool quit = p->hangup || p->stop;
		pthread_mutex_unlock(&p->mu);
		if (quit || (r < 0 && errno != EINTR))
			break;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(p->in_fd, in, PEER_CHUNK);
			if (n > 0) {
				sim_peer_write(p, in, (size_t)n);
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				/*
				 * The host side is closed (a pty master whose
				 * slave nobody holds reads EIO): wait a little
				 * for it to come back rather than spin.
				 */
				struct timespec ts = { 0, 10 * 1000 * 1000 };
				nanosleep(&ts, NULL);
			}
		}
		if (pf[1].revents & POLLIN) {
			char c;
			while (read(p->wake[0], &c, 1) == 1)
				;
		}
		if (pending && ((same ? pf[0].revents : pf[2].revents) & (POLLOUT | POLLERR))) {
			ssize_t w = write(p->out_fd, out + out_off, out_len - out_off);
			if (w > 0)
				out_off += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				out_off = out_len; /* the host is gone: the bytes are lost */
		}
	}
	free(in);
	free(out);
	return NULL;
}

/*
 * Serves the device on file descriptors: bytes read from in_fd go to the
 * device, the device's bytes are written to out_fd (the same fd for a pty
 * master). The peer owns the fds from here on (they are made nonblocking)
 * and closes them at sim_peer_hangup() or sim_peer_stop(). While serving,
 * read the device's output only through out_fd (sim_peer_read would take
 * bytes away from the server). 0, or -1 (already serving, or no thread).
 */
static inline int sim_peer_serve_fds(struct sim_peer *p, int in_fd, int out_fd)
{
	if (p->serving || pipe2(p->wake, O_NONBLOCK | O_CLOEXEC))
		return -1;
	fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK);
	fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
	pthread_mutex_lock(&p->mu);
	p->in_fd = in_fd;
	p->out_fd = out_fd;
	p->hangup = false;
	p->serving = true;
	p->wake_pending = false;
	pthread_mutex_unlock(&p->mu);
	if (pthread_create(&p->pump, NULL, sim_peer_pump, p)) {
		pthread_mutex_lock(&p->mu);
		p->serving = false;
		pthread_mutex_unlock(&p->mu);
		close(p->wake[0]);
		close(p->wake[1]);
		p->wake[0] = p->wake[1] = -1;
		return -1;
	}
	return 0;
}

/*
 * Stops the fd server and closes its fds, as an unplugged device would
 * (the host's next read sees a hang-up or EOF). Returns within
 * ~2 * PEER_POLL_MS. The device keeps running; no-op when not serving.
 */
static inline void sim_peer_hangup(struct sim_peer *p)
{
	if (!p->serving)
		return;
	pthread_mutex_lock(&p->mu);
	p->hangup = true;
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->pump, NULL);
	/* Not serving before the wake pipe closes: the peer thread writes
	 * to it under mu while serving. */
	pthread_mutex_lock(&p->mu);
	p->serving = false;
	pthread_mutex_unlock(&p->mu);
	if (p->in_fd >= 0)
		close(p->in_fd);
	if (p->out_fd >= 0 && p->out_fd != p->in_fd)
		close(p->out_fd);
	close(p->wake[0]);
	close(p->wake[1]);
	p->in_fd = p->out_fd = p->wake[0] = p->wake[1] = -1;
}

/* Stops the fd server (closing its fds), the device and the thread, and
 * frees p. NULL is a no-op. */
static inline void sim_peer_stop(struct sim_peer *p)
{
	if (!p)
		return;
	sim_peer_hangup(p);
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_cond_broadcast(&p->out_cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	free(p->in.b);
	free(p->out.b);
	free(p->inject.b);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->out_cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

#endif /* FTPU_SIM_PEER_H */
