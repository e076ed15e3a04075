/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_uri.c - libFuzzer target over the device URI parsers
 * (host-lib/src/transports/uri.c: the scheme split of ftpu_open and the
 * options of sim, ref, uart, usb and xdma). Parsing only: nothing is
 * opened.
 *
 * Input: a byte that sizes the error buffer (1..128 bytes, and the uart
 * path buffer: 1..64 bytes or PATH_MAX), then the URI (up to its first NUL).
 *
 * Checked: the split is the text before the first ':' and after it; a
 * refused URI gives FTPU_ERR_INVALID (FTPU_ERR_UNSUPPORTED for an unknown
 * simulated board) and a reason that fits the buffer; an accepted one has
 * its fields in range (uart: a path that is the text before the last '@'
 * and fits, a baud rate in 50 ..= 20000000 written as the digits after it;
 * usb: hex IDs, a serial of letters, digits, '-', '_' and '.', shorter
 * than 64, channel -1/0/1, a timeout in 1 ..= 3600000 ms; xdma: the base
 * as given; sim: a square array, a known board, a trace name that fits;
 * ref: none but rows=4), and written back in canonical form it parses to the
 * same fields. All buffers are exactly their size (ASan).
 *
 * make fuzz-uri runs it (mk/fuzz.mk); test_fuzz_replay replays the corpus
 * (tests/fuzz/corpus/uri) through fuzz_uri_one().
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpu.h"
#include "uri.h"

#include "fuzz_check.h"

#define URIF_MAX 4096

/* A refusal: the status and a NUL-terminated reason within err_len. */
static void urif_refused(int ret, const char *err, size_t err_len, bool board)
{
	FUZZ_CHECK(ret == FTPU_ERR_INVALID || (board && ret == FTPU_ERR_UNSUPPORTED));
	FUZZ_CHECK(memchr(err, '\0', err_len) != NULL);
	FUZZ_CHECK(err_len == 1 || err[0]);
}

static void urif_uart(const char *opts, char *err, size_t err_len, size_t small)
{
	char *path = malloc(PATH_MAX);
	char *tiny = malloc(small);
	unsigned baud = 0, baud2 = 0;
	FUZZ_CHECK(path && tiny);
	int ret = ftpu__uri_parse_uart(opts, path, PATH_MAX, &baud, err, err_len);
	if (ret) {
		urif_refused(ret, err, err_len, false);
	} else {
		const char *at = strrchr(opts, '@');
		size_t plen = at ? (size_t)(at - opts) : strlen(opts);
		FUZZ_CHECK(plen > 0 && plen < PATH_MAX && strlen(path) == plen &&
			   !memcmp(path, opts, plen));
		FUZZ_CHECK(baud >= FTPU__UART_MIN_BAUD && baud <= FTPU__UART_MAX_BAUD);
		if (at) {
			FUZZ_CHECK(strspn(at + 1, "0123456789") == strlen(at + 1));
			FUZZ_CHECK(strtoul(at + 1, NULL, 10) == baud);
		} else {
			FUZZ_CHECK(baud == FTPU__UART_DEFAULT_BAUD);
		}
		/* canonical: PATH@BAUD */
		size_t n = plen + 16;
		char *canon = malloc(n);
		char *path2 = malloc(PATH_MAX);
		FUZZ_CHECK(canon && path2);
		snprintf(canon, n, "%s@%u", path, baud);
		FUZZ_CHECK(ftpu__uri_parse_uart(canon, path2, PATH_MAX, &baud2, err, err_len) == 0);
		FUZZ_CHECK(!strcmp(path, path2) && baud == baud2);
		free(path2);
		free(canon);
	}
	/* a path buffer of `small` bytes: the path fits or it is refused */
	int r2 = ftpu__uri_parse_uart(opts, tiny, small, &baud2, err, err_len);
	if (!r2)
		FUZZ_CHECK(!ret && strlen(tiny) < small && !strcmp(tiny, path) && baud2 == baud);
	else
		FUZZ_CHECK(ret || strlen(path) >= small);
	free(tiny);
	free(path);
}

static void urif_usb_canon(const struct ftpu__usb_uri *u, char *out, size_t n)
{
	int k = 0;
	out[0] = '\0';
	if (u->have_id)
		k += snprintf(out + k, n - (size_t)k, "%x:%X%s%s", u->vid, u->pid,
			      u->serial[0] ? ":" : "", u->serial);
	if (u->channel >= 0)
		k += snprintf(out + k, n - (size_t)k, ",iface=%c", u->channel ? 'B' : 'a');
	if (u->write_timeout_ms != FTPU__USB_DEFAULT_WRITE_TIMEOUT_MS)
		k += snprintf(out + k, n - (size_t)k, ",timeout=%u", u->write_timeout_ms);
	FUZZ_CHECK(k >= 0 && (size_t)k < n);
}

static void urif_usb(const char *opts, char *err, size_t err_len)
{
	struct ftpu__usb_uri u, v;
	char canon[160];
	memset(&u, 0x5a, sizeof(u));
	int ret = ftpu__uri_parse_usb(opts, &u, err, err_len);
	if (ret) {
		urif_refused(ret, err, err_len, false);
		return;
	}
	size_t head = strcspn(opts, ",");
	FUZZ_CHECK(u.have_id == (head > 0));
	size_t slen = strnlen(u.serial, sizeof(u.serial));
	FUZZ_CHECK(slen < sizeof(u.serial));
	for (size_t i = 0; i < slen; i++)
		FUZZ_CHECK(strchr("0123456789abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.", u.serial[i]) && u.serial[i]);
	FUZZ_CHECK(u.channel >= -1 && u.channel <= 1);
	FUZZ_CHECK(u.write_timeout_ms >= 1 &&
		   u.write_timeout_ms <= FTPU__USB_MAX_WRITE_TIMEOUT_MS);
	if (u.have_id) {
		/* the IDs are the hex digits before the first ':' and after it */
		FUZZ_CHECK(strtoul(opts, NULL, 16) == u.vid);
		FUZZ_CHECK(strtoul(strchr(opts, ':') + 1, NULL, 16) == u.pid);
	}
	urif_usb_canon(&u, canon, sizeof(canon));
	memset(&v, 0xa5, sizeof(v));
	FUZZ_CHECK(ftpu__uri_parse_usb(canon, &v, err, err_len) == 0);
	FUZZ_CHECK(v.have_id == u.have_id && v.vid == u.vid && v.pid == u.pid &&
		   !strcmp(v.serial, u.serial) && v.channel == u.channel &&
		   v.write_timeout_ms == u.write_timeout_ms);
}

static void urif_sim(const char *opts, char *err, size_t err_len)
{
	struct ftpu__sim_uri *s = malloc(sizeof(*s)), *t = malloc(sizeof(*t));
	FUZZ_CHECK(s && t);
	int ret = ftpu__uri_parse_sim(opts, s, err, err_len);
	if (ret) {
		urif_refused(ret, err, err_len, true);
	} else {
		FUZZ_CHECK(s->rows == s->cols);
		int boards = 0;
		while (ftpu__sim_boards[boards])
			boards++;
		FUZZ_CHECK(s->board >= -1 && s->board < boards);
		FUZZ_CHECK(s->threads >= 1);
		FUZZ_CHECK(strlen(s->trace) < sizeof(s->trace));
		bool rows_given = false;
		for (const char *p = opts; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
			rows_given |= !strncmp(p, "rows=", 5) || !strncmp(p, "cols=", 5);
		FUZZ_CHECK(s->have_rows == rows_given);
		/* canonical: rows=R,cols=C,board=NAME,threads=N,trace=FILE, those
		 * given (threads when not 1) */
		size_t n = strlen(s->trace) + 96;
		char *canon = malloc(n);
		FUZZ_CHECK(canon);
		canon[0] = '\0';
		int k = 0;
		if (s->have_rows)
			k += snprintf(canon + k, n - (size_t)k, ",rows=%u,cols=%u", s->rows, s->cols);
		if (s->board >= 0)
			k += snprintf(canon + k, n - (size_t)k, ",board=%s",
				      ftpu__sim_boards[s->board]);
		if (s->threads != 1)
			k += snprintf(canon + k, n - (size_t)k, ",threads=%u", s->threads);
		if (s->trace[0])
			k += snprintf(canon + k, n - (size_t)k, ",trace=%s", s->trace);
		FUZZ_CHECK(k >= 0 && (size_t)k < n);
		FUZZ_CHECK(ftpu__uri_parse_sim(k ? canon + 1 : canon, t, err, err_len) == 0);
		FUZZ_CHECK(t->rows == s->rows && t->cols == s->cols && t->board == s->board &&
			   t->have_rows == s->have_rows && t->threads == s->threads &&
			   !strcmp(t->trace, s->trace));
		free(canon);
	}
	free(t);
	free(s);
}

static int fuzz_uri_one(const uint8_t *data, size_t size)
{
	unsigned sel = size ? data[0] : 0;
	size_t err_len = 1 + sel % 128;
	size_t small = sel & 0x80 ? 1 + sel % 64 : PATH_MAX;
	size_t n = size ? size - 1 : 0;
	if (n > URIF_MAX)
		n = URIF_MAX;
	char *uri = malloc(n + 1);
	char *err = malloc(err_len);
	FUZZ_CHECK(uri && err);
	if (n)
		memcpy(uri, data + 1, n);
	uri[n] = '\0';

	size_t slen;
	const char *opts;
	ftpu__uri_split(uri, &slen, &opts);
	FUZZ_CHECK(slen == strcspn(uri, ":"));
	FUZZ_CHECK(uri[slen] == ':' ? opts == uri + slen + 1 : !opts[0]);

	err[0] = '\0';
	if (slen == 3 && !memcmp(uri, "ref", 3)) {
		bool rows4, named = false;
		int board;
		int ret = ftpu__uri_parse_ref(opts, &rows4, &board, err, err_len);
		for (int i = 0; ftpu__sim_boards[i]; i++)
			named |= !strncmp(opts, "board=", 6) && !strcmp(opts + 6, ftpu__sim_boards[i]);
		FUZZ_CHECK(!ret == (!opts[0] || !strcmp(opts, "rows=4") || named));
		FUZZ_CHECK(ret || (rows4 + (board >= 0)) == !!opts[0]);
		FUZZ_CHECK(ret || board < 0 || !strcmp(opts + 6, ftpu__sim_boards[board]));
		if (ret)
			urif_refused(ret, err, err_len, false);
	} else if (slen == 4 && !memcmp(uri, "uart", 4)) {
		urif_uart(opts, err, err_len, small);
	} else if (slen == 3 && !memcmp(uri, "usb", 3)) {
		urif_usb(opts, err, err_len);
	} else if (slen == 4 && !memcmp(uri, "xdma", 4)) {
		char *base = malloc(PATH_MAX);
		FUZZ_CHECK(base);
		int ret = ftpu__uri_parse_xdma(opts, base, PATH_MAX, err, err_len);
		if (ret)
			urif_refused(ret, err, err_len, false);
		else
			FUZZ_CHECK(opts[0] && !strcmp(base, opts));
		FUZZ_CHECK(!ret == (opts[0] && strlen(opts) < PATH_MAX));
		free(base);
	} else {
		/* anything else as sim options (a sim URI's, and garbage) */
		urif_sim(slen == 3 && !memcmp(uri, "sim", 3) ? opts : uri, err, err_len);
	}
	free(err);
	free(uri);
	return 0;
}

#ifndef FUZZ_URI_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_uri_one(data, size);
}
#endif
