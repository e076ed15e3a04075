/* SPDX-License-Identifier: Apache-2.0 */
/*
 * control.h - the firmware's CONTROL request handling: one request payload
 * in, one RESPONSE payload out (docs/protocol.md §7.1-7.2 and the ops of
 * proto/ftpu_fw.h). Portable C with no MMIO: the device is reached
 * through hal.h. The answers to protocol 1.0's ops are those of
 * rtl/core/ftpu_control.sv and model/ref_device.c for the same registers.
 */
#ifndef FW_CONTROL_H
#define FW_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "ftpu_fw.h"
#include "ftpu_spec.h"
#include "update.h"

/* Request payload words a CONTROL frame can carry (MAX_CONTROL). */
#define FW_REQ_MAX FTPU_LINK_MAX_CONTROL
/* Response payload words fw_control() may write: op, status and the
 * longest results, INFO's key/value pairs (checked below). */
#define FW_RSP_MAX (2u + 2u * FTPU_LINK_INFO_MAX)
_Static_assert(FTPU_LINK_CNT_COUNT <= 2u * FTPU_LINK_INFO_MAX &&
		       FTPU_FW_INFO_COUNT <= 2u * FTPU_LINK_INFO_MAX,
	       "FW_RSP_MAX must hold the longest response");
/* Polls of STATE a RESET waits for the device to become idle (the fuzz
 * target, whose fake device can stay busy forever, sets fewer). */
#ifndef FW_RESET_POLLS
#define FW_RESET_POLLS 100000u
#endif

/* What the main loop does once the response is sent. */
enum fw_action {
	FW_ACTION_NONE = 0,
	FW_ACTION_REBOOT = 1, /* SYS REBOOT (BOOT: the boot ROM decides) */
};

struct fw_ctx {
	struct fw_boot_record *boot;
	struct fw_update upd;
	uint32_t update_error; /* enum ftpu_fw_update_err, last failure */
	bool running_app;      /* this firmware runs from the RAM slot */
};

/* A context over the boot record r (already decided by fw_boot_decide). */
void fw_ctx_init(struct fw_ctx *fw, struct fw_boot_record *r, bool running_app);

/*
 * Handles one CONTROL request of len payload words, of which req holds
 * the first min(len, FW_REQ_MAX) (a longer frame is malformed; its words
 * beyond are not looked at). Writes the RESPONSE payload (op, status,
 * results) to rsp (FW_RSP_MAX words) and returns its length in words (2 or
 * more). *action says what to do after the response. Never fails: bad
 * requests get their status (BAD_REQUEST, UNKNOWN_OP, FAILED).
 */
unsigned fw_control(struct fw_ctx *fw, const uint32_t *req, unsigned len,
		    uint32_t *rsp, enum fw_action *action);

#endif /* FW_CONTROL_H */
