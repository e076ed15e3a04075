/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uri.c - device URIs parsed without opening anything (uri.h): the scheme
 * split and every transport's options.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpu.h"
#include "uri.h"

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

void ftpu__uri_split(const char *uri, size_t *scheme_len, const char **opts)
{
	size_t slen = strcspn(uri, ":");

	*scheme_len = slen;
	*opts = uri[slen] == ':' ? uri + slen + 1 : "";
}

/* ---- ref -------------------------------------------------------------------------- */

int ftpu__uri_parse_ref(const char *opts, bool *rows4, int *board, char *err, size_t err_len)
{
	*rows4 = !strcmp(opts, "rows=4");
	*board = -1;
	if (!strncmp(opts, "board=", 6))
		for (int i = 0; ftpu__sim_boards[i]; i++)
			if (!strcmp(opts + 6, ftpu__sim_boards[i]))
				*board = i;
	if (opts[0] && !*rows4 && *board < 0) {
		char known[128];
		size_t at = 0;
		known[0] = '\0';
		for (int i = 0; ftpu__sim_boards[i] && at < sizeof(known); i++)
			at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s", i ? ", " : "",
					       ftpu__sim_boards[i]);
		/* a long one elided, so the message ends as written */
		snprintf(err, err_len,
			 "ref takes no options but rows=4 (sim:rows=4's configuration) or "
			 "board=NAME (a board's: %s) (got \"%.64s%s\")", known, opts,
			 strlen(opts) > 64 ? "..." : "");
		return FTPU_ERR_INVALID;
	}
	return FTPU_OK;
}

/* ---- uart ------------------------------------------------------------------------- */

int ftpu__uri_parse_uart(const char *opts, char *path, size_t path_len, unsigned *baud,
			 char *err, size_t err_len)
{
	const char *at = strrchr(opts, '@');
	size_t plen = at ? (size_t)(at - opts) : strlen(opts);

	*baud = FTPU__UART_DEFAULT_BAUD;
	if (plen == 0) {
		snprintf(err, err_len, "uart: needs a serial port, e.g. "
			 "uart:/dev/ttyUSB1 or uart:/dev/ttyUSB1@3000000");
		return FTPU_ERR_INVALID;
	}
	if (plen >= path_len) {
		snprintf(err, err_len, "uart: the port's path is too long");
		return FTPU_ERR_INVALID;
	}
	memcpy(path, opts, plen);
	path[plen] = '\0';
	if (at) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(at + 1, &end, 10);
		if (at[1] < '0' || at[1] > '9' || *end || errno || v < FTPU__UART_MIN_BAUD ||
		    v > FTPU__UART_MAX_BAUD) {
			snprintf(err, err_len, "uart %s: baud rate \"%s\" is not a whole "
				 "number in %u ..= %u", path, at + 1, FTPU__UART_MIN_BAUD,
				 FTPU__UART_MAX_BAUD);
			return FTPU_ERR_INVALID;
		}
		*baud = (unsigned)v;
	}
	return FTPU_OK;
}

/* ---- usb -------------------------------------------------------------------------- */

/* 1 to 4 hex digits, whole. */
static bool parse_hex16(const char *s, size_t len, uint16_t *out)
{
	unsigned v = 0;

	if (len == 0 || len > 4)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		unsigned d;
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = (uint16_t)v;
	return true;
}

bool ftpu__uri_serial_char(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || ch == '-' || ch == '_' || ch == '.';
}

static int usb_option(const char *p, size_t len, struct ftpu__usb_uri *u, char *err,
		      size_t err_len)
{
	const char *eq = memchr(p, '=', len);
	size_t klen = eq ? (size_t)(eq - p) : len;
	const char *val = eq ? eq + 1 : "";
	size_t vlen = eq ? len - klen - 1 : 0;

	if (!eq || klen == 0) {
		snprintf(err, err_len, "usb option \"%.*s\" is not key=value", (int)len, p);
		return FTPU_ERR_INVALID;
	}
	if (klen == 5 && !memcmp(p, "iface", 5)) {
		if (vlen == 1 && (val[0] == 'a' || val[0] == 'A' || val[0] == '0')) {
			u->channel = 0;
		} else if (vlen == 1 && (val[0] == 'b' || val[0] == 'B' || val[0] == '1')) {
			u->channel = 1;
		} else {
			snprintf(err, err_len, "usb option iface=\"%.*s\": want A or B",
				 (int)vlen, val);
			return FTPU_ERR_INVALID;
		}
		return FTPU_OK;
	}
	if (klen == 7 && !memcmp(p, "timeout", 7)) {
		unsigned v;
		if (!parse_uint(val, vlen, &v) || v == 0 || v > FTPU__USB_MAX_WRITE_TIMEOUT_MS)
			goto bad_timeout;
		u->write_timeout_ms = v;
		return FTPU_OK;
bad_timeout:
		snprintf(err, err_len, "usb option timeout=\"%.*s\": want milliseconds, "
			 "1 to %u", (int)vlen, val, FTPU__USB_MAX_WRITE_TIMEOUT_MS);
		return FTPU_ERR_INVALID;
	}
	snprintf(err, err_len, "unknown usb option \"%.*s\" (known: iface, timeout)",
		 (int)klen, p);
	return FTPU_ERR_INVALID;
}

int ftpu__uri_parse_usb(const char *opts, struct ftpu__usb_uri *u, char *err, size_t err_len)
{
	const char *comma = strchr(opts, ',');
	size_t head = comma ? (size_t)(comma - opts) : strlen(opts);

	*u = (struct ftpu__usb_uri){ .channel = -1,
				     .write_timeout_ms = FTPU__USB_DEFAULT_WRITE_TIMEOUT_MS };
	if (head) {
		const char *c1 = memchr(opts, ':', head);
		const char *c2 = c1 ? memchr(c1 + 1, ':', head - (size_t)(c1 + 1 - opts)) : NULL;
		size_t pid_len = c1 ? (size_t)((c2 ? c2 : opts + head) - (c1 + 1)) : 0;

		if (!c1 || !parse_hex16(opts, (size_t)(c1 - opts), &u->vid) ||
		    !parse_hex16(c1 + 1, pid_len, &u->pid)) {
			snprintf(err, err_len, "usb:%.*s: want usb:VID:PID[:SERIAL] with "
				 "VID and PID in hex (e.g. usb:0403:6010)", (int)head, opts);
			return FTPU_ERR_INVALID;
		}
		u->have_id = true;
		if (c2) {
			size_t slen = head - (size_t)(c2 + 1 - opts);
			if (slen == 0 || slen >= sizeof(u->serial)) {
				snprintf(err, err_len, "usb:%.*s: the serial number is %s",
					 (int)head, opts, slen ? "too long" : "empty");
				return FTPU_ERR_INVALID;
			}
			for (size_t i = 0; i < slen; i++) {
				if (!ftpu__uri_serial_char(c2[1 + i])) {
					snprintf(err, err_len, "usb:%.*s: a serial number is "
						 "letters, digits, '-', '_' and '.'",
						 (int)head, opts);
					return FTPU_ERR_INVALID;
				}
			}
			memcpy(u->serial, c2 + 1, slen);
			u->serial[slen] = '\0';
		}
	}
	while (comma) {
		const char *p = comma + 1;
		comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int ret = usb_option(p, len, u, err, err_len);
		if (ret)
			return ret;
	}
	return FTPU_OK;
}

/* ---- xdma ------------------------------------------------------------------------- */

int ftpu__uri_parse_xdma(const char *opts, char *base, size_t base_len, char *err,
			 size_t err_len)
{
	if (!opts[0]) {
		snprintf(err, err_len, "xdma: needs the driver's device base, e.g. "
			 "xdma:/dev/xdma0");
		return FTPU_ERR_INVALID;
	}
	if (strlen(opts) >= base_len) {
		snprintf(err, err_len, "xdma: the device path is too long");
		return FTPU_ERR_INVALID;
	}
	memcpy(base, opts, strlen(opts) + 1);
	return FTPU_OK;
}

/* ---- sim -------------------------------------------------------------------------- */

/* The simulated boards (mk/models/boards.mk SIM_BOARDS); sim_transport.c
 * has their openers in the same order. */
const char *const ftpu__sim_boards[] = { "icebreaker", "tangnano20k", "ulx3s", "ulx3s_45f",
					   "ulx3s_25f", NULL };


/* A user's text in a message: at most 64 bytes, the rest elided, so the
 * message ends as written */
#define SHOWN(n, s) (int)((n) > 64 ? 64 : (n)), (s), ((n) > 64 ? "..." : "")

int ftpu__uri_parse_sim(const char *opts, struct ftpu__sim_uri *s, char *err, size_t err_len)
{
	const char *p = opts;

	s->rows = 16;
	s->cols = 0;
	s->board = -1;
	s->have_rows = false;
	s->threads = 1;
	s->trace[0] = '\0';
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
			s->have_rows = true;
			if (!parse_uint(val, vlen, &s->rows)) {
				snprintf(err, err_len, "sim option rows=\"%.*s%s\" is not a number",
					 SHOWN(vlen, val));
				return FTPU_ERR_INVALID;
			}
		} else if (klen == 4 && !memcmp(p, "cols", 4)) {
			s->have_rows = true;
			if (!parse_uint(val, vlen, &s->cols)) {
				snprintf(err, err_len, "sim option cols=\"%.*s%s\" is not a number",
					 SHOWN(vlen, val));
				return FTPU_ERR_INVALID;
			}
		} else if (klen == 5 && !memcmp(p, "board", 5)) {
			s->board = -1;
			for (int i = 0; ftpu__sim_boards[i]; i++)
				if (strlen(ftpu__sim_boards[i]) == vlen &&
				    !memcmp(ftpu__sim_boards[i], val, vlen))
					s->board = i;
			if (s->board < 0) {
				char known[128];
				size_t at = 0;
				for (int i = 0; ftpu__sim_boards[i] && at < sizeof(known); i++)
					at += (size_t)snprintf(known + at, sizeof(known) - at,
							       "%s%s", i ? ", " : "",
							       ftpu__sim_boards[i]);
				snprintf(err, err_len, "no simulated board \"%.*s%s\" (known: %s)",
					 SHOWN(vlen, val), known);
				return FTPU_ERR_UNSUPPORTED;
			}
		} else if (klen == 7 && !memcmp(p, "threads", 7)) {
			if (!parse_uint(val, vlen, &s->threads) || s->threads == 0) {
				snprintf(err, err_len, "sim option threads=\"%.*s%s\" is not a "
					 "positive number", SHOWN(vlen, val));
				return FTPU_ERR_INVALID;
			}
		} else if (klen == 5 && !memcmp(p, "trace", 5)) {
			if (vlen == 0 || vlen >= sizeof(s->trace)) {
				snprintf(err, err_len, "sim option trace= needs a file name");
				return FTPU_ERR_INVALID;
			}
			memcpy(s->trace, val, vlen);
			s->trace[vlen] = '\0';
		} else {
			snprintf(err, err_len,
				 "unknown sim option \"%.*s%s\" (known: rows, cols, board, threads, trace)",
				 SHOWN(klen, p));
			return FTPU_ERR_INVALID;
		}
		p = end ? end + 1 : p + len;
		if (end && !*p) {
			snprintf(err, err_len, "sim options end with a comma");
			return FTPU_ERR_INVALID;
		}
	}
	if (!s->cols)
		s->cols = s->rows;
	if (s->rows != s->cols) {
		snprintf(err, err_len, "the device's array is square: rows=%u cols=%u",
			 s->rows, s->cols);
		return FTPU_ERR_INVALID;
	}
	return FTPU_OK;
}
