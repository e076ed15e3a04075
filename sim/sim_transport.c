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
 * boards' pipeline on a 4x4 array), threads=N (1, the default; 2: the 16x16
 * device simulated on two threads, device_16_t2), trace=FILE.fst (a TRACE=1
 * build),
 * board=NAME (a board's top behind its pins: the UART PHY at the board's
 * baud rate and array; sim/board_shim.cpp, docs/boards.md): icebreaker,
 * tangnano20k, ulx3s, ulx3s_45f, ulx3s_25f (the ULX3S's sizes; the 12F
 * is the 25F's design).
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
#include "uri.h"

#pragma weak ftpu_sim_open_device_16
#pragma weak ftpu_sim_open_device_16_t2
#pragma weak ftpu_sim_open_device_4p
#pragma weak ftpu_sim_open_board_icebreaker
#pragma weak ftpu_sim_open_board_tangnano20k
#pragma weak ftpu_sim_open_board_ulx3s
#pragma weak ftpu_sim_open_board_ulx3s_45f
#pragma weak ftpu_sim_open_board_ulx3s_25f
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

/* The simulated boards' openers, in the order of ftpu__sim_boards (uri.c,
 * the names after board=); NULL when this program was linked without
 * the board's model. */
typedef struct ftpu_sim *(*sim_opener)(const char *trace_path);
static sim_opener board_opener(int board)
{
	static const sim_opener openers[] = {
		ftpu_sim_open_board_icebreaker,
		ftpu_sim_open_board_tangnano20k,
		ftpu_sim_open_board_ulx3s,
		ftpu_sim_open_board_ulx3s_45f,
		ftpu_sim_open_board_ulx3s_25f,
	};
	return board >= 0 && (size_t)board < sizeof(openers) / sizeof(openers[0]) ?
		       openers[board] : NULL;
}

/* The boards this program links, "icebreaker, tangnano20k" ("none"). */
static void linked_boards(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; ftpu__sim_boards[i] && at < len; i++)
		if (board_opener(i))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       ftpu__sim_boards[i]);
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

static int sim_open(const char *opts, void **ctx, char *err, size_t err_len)
{
	struct ftpu__sim_uri o;
	int ret = ftpu__uri_parse_sim(opts, &o, err, err_len);

	if (ret)
		return ret;
	unsigned rows = o.rows, cols = o.cols;
	const char *trace = o.trace;
	bool board = o.board >= 0;
	sim_opener board_open = board_opener(o.board);
	if (!have_sim()) {
		snprintf(err, err_len, "this program was linked without the simulated "
			 "device (link the device models, see mk/models.mk)");
		return FTPU_ERR_UNSUPPORTED;
	}
	if (board && o.have_rows) {
		snprintf(err, err_len, "sim:board= takes no rows/cols (the board sets its array)");
		return FTPU_ERR_INVALID;
	}
	if (board && !board_open) {
		char built[128];
		linked_boards(built, sizeof(built));
		snprintf(err, err_len, "this program was linked without the simulated board "
			 "\"%s\" (linked: %s); the shared libftpu (-lftpu) carries every board",
			 ftpu__sim_boards[o.board], built);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (!board && rows != 16 && rows != 4) {
		snprintf(err, err_len, "no simulated device with a %ux%u array "
			 "(built: 16x16, 4x4)", rows, cols);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (o.threads != 1 && (board || rows != 16 || o.threads != 2)) {
		snprintf(err, err_len, "sim:threads=%u: the simulated devices are built for "
			 "one thread, and the 16x16 one also for two (threads=2)", o.threads);
		return FTPU_ERR_UNSUPPORTED;
	}
	sim_opener device_open = rows == 4	  ? ftpu_sim_open_device_4p :
				 o.threads == 2 ? ftpu_sim_open_device_16_t2 :
						  ftpu_sim_open_device_16;
	if (!board && !device_open) {
		snprintf(err, err_len, "this program was linked without the simulated "
			 "%ux%u device (link its model device_%s, see mk/models.mk)", rows,
			 cols, rows == 4 ? "4p" : o.threads == 2 ? "16_t2" : "16");
		return FTPU_ERR_UNSUPPORTED;
	}

	struct sim_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, err_len, "out of memory");
		return FTPU_ERR_NOMEM;
	}
	c->sim = (board ? board_open : device_open)(trace[0] ? trace : NULL);
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
 * "sim:board=NAME" for every board of ftpu__sim_boards whose model it links. */
static int sim_builtin(int (*found)(void *arg, const char *uri, const char *what),
		       void *arg)
{
	char uri[64], what[128];
	int stop = 0;

	if (!have_sim())
		return 0;
	if (ftpu_sim_open_device_16)
		stop = found(arg, "sim", "the Verilated device, 16x16 array");
	if (!stop && ftpu_sim_open_device_4p)
		stop = found(arg, "sim:rows=4", "the Verilated device, 4x4 with the boards' pipeline");
	for (int i = 0; ftpu__sim_boards[i] && !stop; i++) {
		if (!board_opener(i))
			continue;
		snprintf(uri, sizeof(uri), "sim:board=%s", ftpu__sim_boards[i]);
		snprintf(what, sizeof(what), "the %s board's top behind its UART pins "
			 "(docs/boards.md)", ftpu__sim_boards[i]);
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
