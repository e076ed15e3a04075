/* SPDX-License-Identifier: Apache-2.0 */
/* control.c - CONTROL request handling. Portable C (see control.h). */
#include "control.h"

#include "ftpu_fw.h"
#include "include/ftpu_regs.h"
#include "hal.h"
#include "link.h"
#include "selftest.h"


void fw_ctx_init(struct fw_ctx *fw, struct fw_boot_record *r, bool running_app)
{
	fw->boot = r;
	fw->upd.active = false;
	fw->update_error = FTPU_FW_UPD_OK;
	fw->running_app = running_app;
}

/* n registers from addr on into out. */
static void read_regs(unsigned addr, unsigned n, uint32_t *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = fw_hal_reg_read(addr + i);
}

/* RESET through CMD, then wait for the device to be idle again. */
static bool reset_device(struct fw_ctx *fw)
{
	fw_hal_reg_write(FTPU_REG_CMD, FTPU_MASK(CMD_RESET));
	for (uint32_t i = 0; i < FW_RESET_POLLS; i++) {
		if (fw_hal_reg_read(FTPU_REG_STATE) == FTPU_LINK_STATE_IDLE)
			return true;
		if (i % 1024u == 0)
			fw_hal_kick();
	}
	fw_boot_fault(fw->boot, FTPU_FW_FAULT_RESET_TIMEOUT, 0,
		      fw_hal_reg_read(FTPU_REG_STATE));
	return false;
}

static unsigned fw_info(const struct fw_ctx *fw, uint32_t *out)
{
	const struct fw_boot_record *r = fw->boot;
	out[FTPU_FW_INFO_VERSION] = FTPU_FW_VERSION;
	out[FTPU_FW_INFO_ABI] = FTPU_FW_ABI;
	out[FTPU_FW_INFO_RUNNING] = fw->running_app;
	out[FTPU_FW_INFO_RESET_CAUSE] = r->cause;
	out[FTPU_FW_INFO_BOOTS] = r->boots;
	out[FTPU_FW_INFO_APP_STATE] = r->app_state;
	out[FTPU_FW_INFO_APP_VERSION] = r->app_version;
	out[FTPU_FW_INFO_APP_SIZE] = r->app_size;
	out[FTPU_FW_INFO_APP_CRC] = r->app_crc;
	out[FTPU_FW_INFO_UPDATE_ERROR] = fw->update_error;
	out[FTPU_FW_INFO_FW_FAULTS] = r->fw_faults;
	out[FTPU_FW_INFO_FAULT_CODE] = r->fault_code;
	out[FTPU_FW_INFO_FAULT_PC] = r->fault_pc;
	out[FTPU_FW_INFO_FAULT_VALUE] = r->fault_value;
	return FTPU_FW_INFO_COUNT;
}

/* BOOT arg: 0 reboot into the boot ROM's firmware, 1 into the image. */
static int boot(struct fw_ctx *fw, uint32_t arg, enum fw_action *action)
{
	struct fw_boot_record *r = fw->boot;
	if (arg > 1)
		return FTPU_FW_UPD_BAD_ARG;
	if (arg == 1) {
		/* the boot ROM checks the image's CRC before it starts it */
		if (r->app_state == FTPU_FW_APP_NONE)
			return FTPU_FW_UPD_NO_IMAGE;
		r->app_state = FTPU_FW_APP_BOOTING;
	}
	*action = FW_ACTION_REBOOT;
	return FTPU_FW_UPD_OK;
}

/* The firmware's update ops; returns an enum ftpu_fw_update_err, or -1
 * for a wrong number of request words. */
static int update_op(struct fw_ctx *fw, uint32_t op, const uint32_t *req,
		     unsigned len, enum fw_action *action)
{
	switch (op) {
	case FTPU_LINK_OP_UPDATE_BEGIN:
		if (len != 1 + FTPU_FW_IMG_WORDS)
			return -1;
		if (fw->running_app)
			return FTPU_FW_UPD_RUNNING;
		return fw_update_begin(&fw->upd, fw->boot, req + 1);
	case FTPU_LINK_OP_UPDATE_DATA:
		if (len < 3)
			return -1;
		return fw_update_data(&fw->upd, req[1], req + 2, len - 2);
	case FTPU_LINK_OP_UPDATE_COMMIT:
		if (len != 1)
			return -1;
		return fw_update_commit(&fw->upd, fw->boot);
	default: /* FTPU_LINK_OP_BOOT */
		if (len != 2)
			return -1;
		return boot(fw, req[1], action);
	}
}

unsigned fw_control(struct fw_ctx *fw, const uint32_t *req, unsigned len,
		    uint32_t *rsp, enum fw_action *action)
{
	uint32_t op = len ? req[0] : 0;
	uint32_t status = FTPU_LINK_RESP_OK;
	unsigned n = 0; /* result words */
	uint32_t *res = rsp + 2;

	*action = FW_ACTION_NONE;
	if (len > FW_REQ_MAX) {
		status = FTPU_LINK_RESP_BAD_REQUEST;
	} else if (op >= FTPU_LINK_OP_UPDATE_BEGIN && op <= FTPU_LINK_OP_BOOT) {
		int err = update_op(fw, op, req, len, action);
		if (err < 0) {
			status = FTPU_LINK_RESP_BAD_REQUEST;
		} else if (err) {
			status = FTPU_LINK_RESP_FAILED;
			fw->update_error = (uint32_t)err;
		}
	} else if (len != 1) {
		/* protocol 1.0's ops and FW_INFO, SELFTEST take no arguments;
		 * an unknown op with arguments is malformed too, as in
		 * ftpu_control and the C model */
		status = FTPU_LINK_RESP_BAD_REQUEST;
	} else {
		switch (op) {
		case FTPU_LINK_OP_INFO:
			for (unsigned key = FTPU_LINK_INFO_VERSION;
			     key <= FTPU_LINK_INFO_MAX; key++) {
				res[n++] = key;
				res[n++] = fw_hal_reg_read(key);
			}
			break;
		case FTPU_LINK_OP_STATUS:
			read_regs(FTPU_REG_STATE, FTPU_LINK_STATUS_COUNT, res);
			n = FTPU_LINK_STATUS_COUNT;
			break;
		case FTPU_LINK_OP_RESET:
			if (!reset_device(fw))
				status = FTPU_LINK_RESP_FAILED;
			break;
		case FTPU_LINK_OP_READ_COUNTERS:
			/* one snapshot, taken in one cycle (busy + idle ==
			 * cycles), as ftpu_control's own READ_COUNTERS */
			fw_hal_reg_write(FTPU_REG_CMD, FTPU_MASK(CMD_SNAPSHOT));
			read_regs(FTPU_REG_SNAP, FTPU_LINK_CNT_COUNT, res);
			n = FTPU_LINK_CNT_COUNT;
			break;
		case FTPU_LINK_OP_CLEAR_COUNTERS:
			fw_hal_reg_write(FTPU_REG_CMD,
					 FTPU_MASK(CMD_CLEAR_COUNTERS));
			break;
		case FTPU_LINK_OP_READ_FAULTS:
			read_regs(FTPU_REG_FAULT_COUNT, 4, res);
			n = 4;
			break;
		case FTPU_LINK_OP_FW_INFO:
			n = fw_info(fw, res);
			break;
		case FTPU_LINK_OP_SELFTEST:
			fw_selftest(fw->boot, res);
			n = FTPU_FW_SELFTEST_COUNT;
			break;
		default:
			status = FTPU_LINK_RESP_UNKNOWN_OP;
			break;
		}
	}
	rsp[0] = op;
	rsp[1] = status;
	return 2 + (status == FTPU_LINK_RESP_OK ? n : 0);
}
