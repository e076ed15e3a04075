/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uri.h - device URIs (ftpu_open, docs/transports.md) parsed without
 * opening anything: the scheme split of ftpu_open (device.c) and each
 * transport's options. The transports call these before they touch a
 * device; the fuzz target tests/fuzz/fuzz_uri.c calls them alone. Internal
 * to libftpu (and sim/sim_transport.c, which sees this folder); not
 * installed.
 *
 * Every parser returns FTPU_OK, or FTPU_ERR_INVALID (FTPU_ERR_UNSUPPORTED
 * for an unknown simulated board) with a one-line reason in err (err_len
 * bytes, NUL-terminated), which names the user's text.
 */
#ifndef FTPU_URI_H
#define FTPU_URI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "scheme[:options]": the scheme's length into *scheme_len and the
 * options (the text after the first ':', "" when there is none) into
 * *opts. */
void ftpu__uri_split(const char *uri, size_t *scheme_len, const char **opts);

/* ref: no options, "rows=4" (*rows4: the device_4p configuration that
 * sim:rows=4 runs) or "board=NAME" (*board: the index into ftpu__sim_boards
 * of the board whose configuration the model takes, else -1). */
int ftpu__uri_parse_ref(const char *opts, bool *rows4, int *board, char *err, size_t err_len);

/* uart: "PATH[@BAUD]", BAUD a whole number FTPU__UART_MIN_BAUD ..=
 * FTPU__UART_MAX_BAUD (default FTPU__UART_DEFAULT_BAUD); path gets PATH
 * (path_len bytes: a longer one is refused). */
#define FTPU__UART_DEFAULT_BAUD 3000000u
#define FTPU__UART_MIN_BAUD 50u
#define FTPU__UART_MAX_BAUD 20000000u
int ftpu__uri_parse_uart(const char *opts, char *path, size_t path_len, unsigned *baud,
			 char *err, size_t err_len);

/* usb: "" | VID:PID[:SERIAL], either followed by ,key=value options (the
 * bare form as ",key=value"): iface=A|B (or 0|1), timeout=MS. */
#define FTPU__USB_MAX_SERIAL 64
#define FTPU__USB_DEFAULT_WRITE_TIMEOUT_MS 10000u
#define FTPU__USB_MAX_WRITE_TIMEOUT_MS 3600000u
struct ftpu__usb_uri {
	bool have_id;
	uint16_t vid, pid;
	char serial[FTPU__USB_MAX_SERIAL]; /* "" for any */
	int channel;                       /* FTDI channel 0 (A) or 1 (B); -1 unset */
	unsigned write_timeout_ms;
};
/* A character of a USB serial number here: letters, digits, '-', '_', '.'. */
bool ftpu__uri_serial_char(char ch);
int ftpu__uri_parse_usb(const char *opts, struct ftpu__usb_uri *u, char *err, size_t err_len);

/* xdma: the driver's device base ("/dev/xdma0"), not empty, shorter than
 * base_len. */
int ftpu__uri_parse_xdma(const char *opts, char *base, size_t base_len, char *err,
			 size_t err_len);

/* sim: rows=N, cols=N (cols defaults to rows, rows to 16; square),
 * board=NAME (one of ftpu__sim_boards; no rows/cols with it), trace=FILE,
 * comma-separated. Which arrays and boards a program can open is the sim
 * transport's business (it checks what is linked). */
#define FTPU__SIM_TRACE_MAX 1024
struct ftpu__sim_uri {
	unsigned rows, cols;
	int board;  /* index into ftpu__sim_boards, -1 for none */
	bool have_rows; /* rows= or cols= was given */
	unsigned threads; /* simulation threads, threads= (1 unless given) */
	char trace[FTPU__SIM_TRACE_MAX]; /* "" for none */
};
extern const char *const ftpu__sim_boards[]; /* NULL-terminated */
int ftpu__uri_parse_sim(const char *opts, struct ftpu__sim_uri *s, char *err, size_t err_len);

#endif /* FTPU_URI_H */
