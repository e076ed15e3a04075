/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device.h - libftpu internals shared by the runtime (device.c), GEMM
 * (gemm.c) and programs (program.c, compile.c). Not installed.
 */
#ifndef FTPU_DEVICE_INTERNAL_H
#define FTPU_DEVICE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftpu.h"
#include "transport.h" /* ftpu__now_s, ftpu__transport_error */


/* One program execution (ftpu__execute). */
struct ftpu_exec {
	const uint32_t *words; /* instruction words with their inline data */
	size_t n_words;        /* the runtime adds START/END framing and a SYNC */
	uint32_t *data;        /* DATA payload words land here, in order */
	size_t data_words;     /* capacity of data */
	size_t data_got;       /* out: DATA words received */
};

/*
 * Runs a program on dev, whose lock the caller holds (ftpu__lock): clears
 * the counters, sends the words as PROGRAM frames (START on the first, END
 * on the last) under the link's flow control, appends a SYNC with a fresh
 * tag, and receives DATA frames into x->data while it sends, so both link
 * directions overlap; returns when the SYNC event arrives. Fills *stats
 * (may be NULL) from the device's counters and the wall time.
 * Errors: a FAULT event is FTPU_ERR_DEVICE with the fault (pc, code,
 * instruction) in ftpu_last_error(dev); more DATA than x->data_words or an
 * unexpected frame FTPU_ERR_PROTOCOL; no progress within the device's
 * timeout FTPU_ERR_TIMEOUT (the device is then failed: FTPU_ERR_STATE
 * until ftpu_reset()).
 */
int ftpu__execute(ftpu_device *dev, struct ftpu_exec *x, struct ftpu_stats *stats);

/* The device's sizes (valid while dev is open). */
const struct ftpu_device_info *ftpu__info(const ftpu_device *dev);

/* The device lock: every public call on a device holds it throughout.
 * Not recursive. */
/* One CONTROL request (req[0] the op, then its arguments; n words) and its
 * RESPONSE: status into *status, up to cap result words into res, their
 * count into *got. The caller holds the lock. Fails with the
 * transport's errors, FTPU_ERR_TIMEOUT, FTPU_ERR_STATE (failed earlier),
 * FTPU_ERR_PROTOCOL; a status other than OK is not a failure. */
int ftpu__control(ftpu_device *dev, const uint32_t *req, size_t n, uint32_t *status,
		  uint32_t *res, size_t cap, size_t *got);

void ftpu__lock(ftpu_device *dev);
void ftpu__unlock(ftpu_device *dev);

/* Every public call on a device checks it first: FTPU_ERR_INVALID for
 * NULL, FTPU_ERR_STATE for a handle that is not open (closed already),
 * the message (naming fn) in the calling thread's ftpu_last_error(NULL). */
int ftpu__check_device(const ftpu_device *dev, const char *fn);

/* Records a failure message for ftpu_last_error(dev) (dev NULL: the
 * calling thread's open error) and returns status. */
int ftpu__fail(ftpu_device *dev, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * What the weight memory holds, for residency across calls: the owner
 * (a GEMM's B image or a program) identified by a 64-bit content hash and
 * a size, at WM rows [row, row + rows). Cleared by ftpu_reset() and when
 * the device fails. The holder of the lock may read and replace it.
 */
struct ftpu_wm_resident {
	bool valid;
	uint64_t hash;  /* of the bf16 image as it sits in WM */
	uint64_t bytes; /* its size */
	uint32_t row, rows;
};
struct ftpu_wm_resident *ftpu__wm_resident(ftpu_device *dev);

/* Programs started on dev (ftpu__execute) and resets since it was opened:
 * a holder of state in the device's memories (a trainer) records it after
 * its own runs and finds out when anything else ran in between. */
uint64_t ftpu__run_count(const ftpu_device *dev);

/* The stats of the last run, kept for ftpu_last_stats(). */
/* st's utilization and roofline from its cycles, MACs and bytes (ftpu.h,
 * struct ftpu_stats; the link moves info->link_bytes a cycle). */
void ftpu__stats_finish(struct ftpu_stats *st, const struct ftpu_device_info *info);
void ftpu__set_last_stats(ftpu_device *dev, const struct ftpu_stats *st);

/* ---- transports (transports/transport.h) and discovery (discover.c) ---- */

/* The transports ftpu_open() knows, in its order; their count in *n. */
const struct ftpu_transport_ops *const *ftpu__transports(size_t *n);

/*
 * ftpu_open() with its INFO request bounded by timeout_ms, which also
 * becomes the device's timeout (ftpu_set_timeout). Fails as ftpu_open().
 */
int ftpu__open_timeout(const char *uri, unsigned timeout_ms, ftpu_device **out);


#endif /* FTPU_DEVICE_INTERNAL_H */
