/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sim_transport.c - the "sim" URI: the Verilated device (rtl/ftpu_top.sv,
 * sim/ftpu_sim.h) in process. The simulation advances only while the host
 * waits for bytes: a read runs the clock in short slices until the device
 * has sent something, the wall-clock timeout passes, or the device is idle
 * with nothing to send (then nothing can ever come: FTPU_ERR_TIMEOUT).
 *
 * Part of the simulated-device library (sim/, linked with every model and
 * into libftpu.so), not of libftpu: its ftpu_transport_sim overrides the
 * library's weak stand-in (host-lib/src/transports/sim_missing.c), which
 * fails with FTPU_ERR_UNSUPPORTED. The models a program links are its own
 * choice (mk/models.mk), so each opener is referenced weakly here.
 *
 * Options: rows=N,cols=N (16: device_16, the default; 4: device_4p, the
 * boards' pipeline on a 4x4 array), trace=FILE.fst (a TRACE=1 build),
 * board=NAME (a board's top behind its pins: the UART PHY at the board's
 * baud rate and array; sim/board_shim.cpp, docs/boards.md): icebreaker,
 * tangnano20k, ulx3s.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftpu.h"
#include "ftpu_sim.h"
#include "transport.h"

#pragma weak ftpu_sim_open_device_16
#pragma weak ftpu_sim_open_device_4p
#pragma weak ftpu_sim_open_board_icebreaker
#pragma weak ftpu_sim_open_board_tangnano20k
#pragma weak ftpu_sim_open_board_ulx3s
#pragma weak ftpu_sim_close
#pragma weak ftpu_sim_device_push
#pragma weak ftpu_sim_device_pull
#pragma weak ftpu_sim_device_run
#pragma weak ftpu_sim_device_idle
#pragma weak ftpu_sim_device_in_queued
#pragma weak ftpu_sim_device_out_queued

enum { SLICE_CYCLES = 256 };

struct sim_ctx {
	struct ftpu_sim *sim;
};

/* A decimal option value, whole and in range. */
static bool parse_uint(const char *s, size_t len, unsigned *out)
{
	char buf[16];
	char *end;
	unsigned long v;

	if (len == 0 || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

/* The simulated boards (mk/models/boards.mk SIM_BOARDS): the name after
 * board= and the model's opener, NULL when this program was linked
 * without it. */
struct sim_board {
	const char *name;
	struct ftpu_sim *(*open)(const char *trace_path);
};

static const struct sim_board *sim_boards(size_t *n)
{
	static const struct sim_board boards[] = {
		{ "icebreaker", ftpu_sim_open_board_icebreaker },
		{ "tangnano20k", ftpu_sim_open_board_tangnano20k },
		{ "ulx3s", ftpu_sim_open_board_ulx3s },
	};
	*n = sizeof(boards) / sizeof(boards[0]);
	return boards;
}

static const struct sim_board *find_board(const char *name, size_t len)
{
	size_t n;
	const struct sim_board *boards = sim_boards(&n);
	for (size_t i = 0; i < n; i++)
		if (strlen(boards[i].name) == len && !memcmp(boards[i].name, name, len))
			return &boards[i];
	return NULL;
}

/* The boards this program links, "icebreaker, tangnano20k" ("none"). */
static void linked_boards(char *buf, size_t len)
{
	size_t n, at = 0;
	const struct sim_board *boards = sim_boards(&n);
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		if (boards[i].open)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       boards[i].name);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Whether the device models and the simulation are linked. */
static bool have_sim(void)
{
	return ftpu_sim_close && ftpu_sim_device_push && ftpu_sim_device_pull &&
	       ftpu_sim_device_run && ftpu_sim_device_idle && ftpu_sim_device_in_queued &&
	       ftpu_sim_device_out_queued;
}

/* A user's text in a message: at most 64 bytes, the rest elided, so the
 * message ends as written */
#define SHOWN(n, s) (int)((n) > 64 ? 64 : (n)), (s), ((n) > 64 ? "..." : "")

/* Whether the options name rows= or cols= (board= sets its own array). */
static bool opts_have_rows(const char *opts)
{
	for (const char *p = opts; *p; p++)
		if ((p == opts || p[-1] == ',') &&
		    (!strncmp(p, "rows=", 5) || !strncmp(p, "cols=", 5)))
			return true;
	return false;
}

static int sim_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	unsigned rows = 16, cols = 0;
	const struct sim_board *board = NULL;
	char trace[1024] = "";
	const char *p = opts;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		const char *val = eq ? eq + 1 : NULL;
		size_t vlen = eq ? len - klen - 1 : 0;

		if (!eq || klen == 0) {
			snprintf(err, err_len, "sim option \"%.*s%s\" is not key=value",
				 SHOWN(len, p));
			return FTPU_ERR_INVALID;
		}
		if (klen == 4 && !memcmp(p, "rows", 4)) {
			if (!parse_uint(val, vlen, &rows)) {
				snprintf(err, err_len, "sim option rows=\"%.*s%s\" is not a number",
					 SHOWN(vlen, val));
				return FTPU_ERR_INVALID;
			}
		} else if (klen == 4 && !memcmp(p, "cols", 4)) {
			if (!parse_uint(val, vlen, &cols)) {
				snprintf(err, err_len, "sim option cols=\"%.*s%s\" is not a number",
					 SHOWN(vlen, val));
				return FTPU_ERR_INVALID;
			}
		} else if (klen == 5 && !memcmp(p, "board", 5)) {
			board = find_board(val, vlen);
			if (!board) {
				char built[128];
				linked_boards(built, sizeof(built));
				snprintf(err, err_len, "no simulated board \"%.*s%s\" (linked: "
					 "%s)", SHOWN(vlen, val), built);
				return FTPU_ERR_UNSUPPORTED;
			}
		} else if (klen == 5 && !memcmp(p, "trace", 5)) {
			if (vlen == 0 || vlen >= sizeof(trace)) {
				snprintf(err, err_len, "sim option trace= needs a file name");
				return FTPU_ERR_INVALID;
			}
			memcpy(trace, val, vlen);
			trace[vlen] = '\0';
		} else {
			snprintf(err, err_len,
				 "unknown sim option \"%.*s%s\" (known: rows, cols, board, trace)",
				 SHOWN(klen, p));
			return FTPU_ERR_INVALID;
		}
		p = end ? end + 1 : p + len;
		if (end && !*p) {
			snprintf(err, err_len, "sim options end with a comma");
			return FTPU_ERR_INVALID;
		}
	}
	if (!cols)
		cols = rows;
	if (rows != cols) {
		snprintf(err, err_len, "the device's array is square: rows=%u cols=%u",
			 rows, cols);
		return FTPU_ERR_INVALID;
	}
	if (!have_sim()) {
		snprintf(err, err_len, "this program was linked without the simulated "
			 "device (link the device models, see mk/models.mk)");
		return FTPU_ERR_UNSUPPORTED;
	}
	if (board && opts_have_rows(opts)) {
		snprintf(err, err_len, "sim:board= takes no rows/cols (the board sets its array)");
		return FTPU_ERR_INVALID;
	}
	if (board && !board->open) {
		char built[128];
		linked_boards(built, sizeof(built));
		snprintf(err, err_len, "this program was linked without the simulated board "
			 "\"%s\" (linked: %s); the shared libftpu (-lftpu) carries every board",
			 board->name, built);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (!board && rows != 16 && rows != 4) {
		snprintf(err, err_len, "no simulated device with a %ux%u array "
			 "(built: 16x16, 4x4)", rows, cols);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (!board && !(rows == 16 ? ftpu_sim_open_device_16 : ftpu_sim_open_device_4p)) {
		snprintf(err, err_len, "this program was linked without the simulated "
			 "%ux%u device (link its model device_%s, see mk/models.mk)", rows,
			 cols, rows == 16 ? "16" : "4p");
		return FTPU_ERR_UNSUPPORTED;
	}

	struct sim_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, err_len, "out of memory");
		return FTPU_ERR_NOMEM;
	}
	c->sim = board ? board->open(trace[0] ? trace : NULL) :
		 rows == 16 ? ftpu_sim_open_device_16(trace[0] ? trace : NULL) :
			      ftpu_sim_open_device_4p(trace[0] ? trace : NULL);
	if (!c->sim) {
		free(c);
		snprintf(err, err_len, trace[0] ?
			 "cannot open the simulated device with a trace (is this a "
			 "TRACE=1 build, and is %s writable?)" :
			 "cannot open the simulated device%s", trace);
		return trace[0] ? FTPU_ERR_UNSUPPORTED : FTPU_ERR_NOMEM;
	}
	*ctx = c;
	return FTPU_OK;
}

static void sim_close(void *ctx)
{
	struct sim_ctx *c = ctx;
	if (!c)
		return;
	ftpu_sim_close(c->sim);
	free(c);
}

static int sim_write(void *ctx, const void *buf, size_t n)
{
	struct sim_ctx *c = ctx;
	return ftpu_sim_device_push(c->sim, buf, n) ? FTPU_OK : FTPU_ERR_IO;
}

static long sim_read(void *ctx, void *buf, size_t cap, unsigned timeout_ms)
{
	struct sim_ctx *c = ctx;
	double deadline = ftpu__now_s() * 1e3 + timeout_ms;

	for (;;) {
		if (ftpu_sim_device_out_queued(c->sim))
			return (long)ftpu_sim_device_pull(c->sim, buf, cap > LONG_MAX ?
							  LONG_MAX : cap);
		if (ftpu_sim_device_idle(c->sim) && !ftpu_sim_device_in_queued(c->sim)) {
			/* Settle: a frame may still be in the receiver's checks. */
			ftpu_sim_device_run(c->sim, SLICE_CYCLES);
			if (!ftpu_sim_device_out_queued(c->sim) &&
			    ftpu_sim_device_idle(c->sim))
				return FTPU_ERR_TIMEOUT;
			continue;
		}
		ftpu_sim_device_run(c->sim, SLICE_CYCLES);
		if (!ftpu_sim_device_out_queued(c->sim) && ftpu__now_s() * 1e3 > deadline)
			return 0;
	}
}

/* The simulated devices this program links: "sim", "sim:rows=4", and
 * "sim:board=NAME" for every board of sim_boards() whose model it links. */
static int sim_builtin(int (*found)(void *arg, const char *uri, const char *what),
		       void *arg)
{
	char uri[64], what[128];
	size_t n;
	const struct sim_board *boards = sim_boards(&n);
	int stop = 0;

	if (!have_sim())
		return 0;
	if (ftpu_sim_open_device_16)
		stop = found(arg, "sim", "the Verilated device, 16x16 array");
	if (!stop && ftpu_sim_open_device_4p)
		stop = found(arg, "sim:rows=4", "the Verilated device, 4x4 with the boards' pipeline");
	for (size_t i = 0; i < n && !stop; i++) {
		if (!boards[i].open)
			continue;
		snprintf(uri, sizeof(uri), "sim:board=%s", boards[i].name);
		snprintf(what, sizeof(what), "the %s board's top behind its UART pins "
			 "(docs/boards.md)", boards[i].name);
		stop = found(arg, uri, what);
	}
	return stop;
}

const struct ftpu_transport_ops ftpu_transport_sim = {
	.scheme = "sim",
	.open = sim_open,
	.close = sim_close,
	.write = sim_write,
	.read = sim_read,
	.builtin = sim_builtin,
};
