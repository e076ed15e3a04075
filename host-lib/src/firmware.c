/* SPDX-License-Identifier: Apache-2.0 */
/*
 * firmware.c - the control core's CONTROL ops (docs/protocol.md §7.3,
 * docs/firmware.md): FW_INFO, SELFTEST, the update ops and BOOT.
 */
#include <string.h>

#include "device.h"
#include "ftpu.h"
#include "link.h"
#include "ftpu_fw.h"

/* enum ftpu_fw_update_err, for messages. */
static const char *update_err_name(uint32_t e)
{
	static const char *const names[] = {
		"no error",
		"not an ftpu firmware image (magic)",
		"header CRC",
		"header format unknown to this boot ROM",
		"built for another register ABI",
		"version 0",
		"load address or entry point",
		"size 0 or not a multiple of 4",
		"larger than the RAM slot",
		"data or commit without a begin",
		"data not at the next offset",
		"data beyond the image size",
		"commit before every byte came",
		"image CRC",
		"the slot does not read back the image",
		"an update is running: boot the ROM's firmware first",
		"no accepted image to boot",
		"bad boot argument",
	};
	return e < sizeof(names) / sizeof(names[0]) ? names[e]
						    : "unknown reason";
}

/* A request that must answer OK; UNKNOWN_OP is FTPU_ERR_UNSUPPORTED,
 * FAILED FTPU_ERR_CORRUPT (the caller may say more), anything else
 * FTPU_ERR_PROTOCOL. *got result words into res. */
static int fw_request(ftpu_device *dev, const uint32_t *req, size_t n,
		      uint32_t *res, size_t cap, size_t *got)
{
	uint32_t status;
	int ret = ftpu__control(dev, req, n, &status, res, cap, got);
	if (ret)
		return ret;
	switch (status) {
	case FTPU_LINK_RESP_OK:
		return FTPU_OK;
	case FTPU_LINK_RESP_UNKNOWN_OP:
		return ftpu__fail(
			dev, FTPU_ERR_UNSUPPORTED,
			"the device does not know CONTROL op %u (no control "
			"core firmware)",
			req[0]);
	case FTPU_LINK_RESP_FAILED:
		return FTPU_ERR_CORRUPT;
	case FTPU_LINK_RESP_BAD_REQUEST:
		/* A device without a control core (ftpu_control's FSM, the C
		 * model) judges a request's length before its op, so an op it
		 * does not know that carries arguments (UPDATE_*, BOOT) is
		 * BAD_REQUEST there. Ours have the right length: ask FW_INFO,
		 * which takes none, whether the ops exist at all. */
		if (n > 1 && req[0] != FTPU_LINK_OP_FW_INFO) {
			const uint32_t op = FTPU_LINK_OP_FW_INFO;
			uint32_t st;
			size_t g = 0;
			if (!ftpu__control(dev, &op, 1, &st, NULL, 0, &g) &&
			    st == FTPU_LINK_RESP_UNKNOWN_OP)
				return ftpu__fail(
					dev, FTPU_ERR_UNSUPPORTED,
					"the device does not know CONTROL op %u "
					"(no control core firmware)",
					req[0]);
		}
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL,
				  "CONTROL op %u answered with status %u "
				  "(BAD_REQUEST)",
				  req[0], status);
	default:
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL,
				  "CONTROL op %u answered with "
				  "status %u",
				  req[0], status);
	}
}

static int fw_info_locked(ftpu_device *dev, struct ftpu_fw_info *info)
{
	const uint32_t op = FTPU_LINK_OP_FW_INFO;
	uint32_t w[FTPU_FW_INFO_COUNT];
	size_t got = 0;
	int ret = fw_request(dev, &op, 1, w, FTPU_FW_INFO_COUNT, &got);
	if (ret == FTPU_ERR_CORRUPT)
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL, "FW_INFO failed");
	if (ret)
		return ret;
	if (got != FTPU_FW_INFO_COUNT)
		return ftpu__fail(dev, FTPU_ERR_PROTOCOL,
				  "FW_INFO: %zu words, not %u", got,
				  (unsigned)FTPU_FW_INFO_COUNT);
	info->version = w[FTPU_FW_INFO_VERSION];
	info->abi = w[FTPU_FW_INFO_ABI];
	info->running = w[FTPU_FW_INFO_RUNNING];
	info->reset_cause = w[FTPU_FW_INFO_RESET_CAUSE];
	info->boots = w[FTPU_FW_INFO_BOOTS];
	info->app_state = w[FTPU_FW_INFO_APP_STATE];
	info->app_version = w[FTPU_FW_INFO_APP_VERSION];
	info->app_size = w[FTPU_FW_INFO_APP_SIZE];
	info->app_crc = w[FTPU_FW_INFO_APP_CRC];
	info->update_error = w[FTPU_FW_INFO_UPDATE_ERROR];
	info->fw_faults = w[FTPU_FW_INFO_FW_FAULTS];
	info->fault_code = w[FTPU_FW_INFO_FAULT_CODE];
	info->fault_pc = w[FTPU_FW_INFO_FAULT_PC];
	info->fault_value = w[FTPU_FW_INFO_FAULT_VALUE];
	return FTPU_OK;
}

int ftpu_fw_info(ftpu_device *dev, struct ftpu_fw_info *info)
{
	int ret = ftpu__check_device(dev, "ftpu_fw_info");
	if (ret)
		return ret;
	if (!info)
		return ftpu__fail(dev, FTPU_ERR_INVALID,
				  "ftpu_fw_info: NULL argument");
	ftpu__lock(dev);
	ret = fw_info_locked(dev, info);
	ftpu__unlock(dev);
	return ret;
}

int ftpu_fw_selftest(ftpu_device *dev, bool *passed, uint32_t *ran,
		     uint32_t *failed)
{
	const uint32_t op = FTPU_LINK_OP_SELFTEST;
	uint32_t w[FTPU_FW_SELFTEST_COUNT];
	size_t got = 0;
	int ret;

	if ((ret = ftpu__check_device(dev, "ftpu_fw_selftest")))
		return ret;
	if (!passed || !ran || !failed)
		return ftpu__fail(dev, FTPU_ERR_INVALID,
				  "ftpu_fw_selftest: NULL argument");
	ftpu__lock(dev);
	ret = fw_request(dev, &op, 1, w, FTPU_FW_SELFTEST_COUNT, &got);
	if (ret == FTPU_ERR_CORRUPT)
		ret = ftpu__fail(dev, FTPU_ERR_PROTOCOL, "SELFTEST failed");
	else if (!ret && got != FTPU_FW_SELFTEST_COUNT)
		ret = ftpu__fail(dev, FTPU_ERR_PROTOCOL, "SELFTEST: %zu words",
				 got);
	if (!ret) {
		*passed = w[FTPU_FW_SELFTEST_PASSED] == 1;
		*ran = w[FTPU_FW_SELFTEST_RAN];
		*failed = w[FTPU_FW_SELFTEST_FAILED];
	}
	ftpu__unlock(dev);
	return ret;
}

/* A refused update op: FTPU_ERR_CORRUPT with the device's reason. */
static int refused(ftpu_device *dev, const char *what)
{
	struct ftpu_fw_info fi;
	if (fw_info_locked(dev, &fi))
		return ftpu__fail(dev, FTPU_ERR_CORRUPT,
				  "the device refused %s", what);
	return ftpu__fail(dev, FTPU_ERR_CORRUPT,
			  "the device refused %s: %s (%u)", what,
			  update_err_name(fi.update_error), fi.update_error);
}

/* BOOT which, then FW_INFO until the rebooted firmware answers. */
static int boot_locked(ftpu_device *dev, unsigned which)
{
	const uint32_t req[2] = {FTPU_LINK_OP_BOOT, which};
	struct ftpu_fw_info fi;
	int ret = fw_request(dev, req, 2, NULL, 0, NULL);
	if (ret == FTPU_ERR_CORRUPT)
		return refused(dev, which ? "to boot the update" : "to reboot");
	if (ret)
		return ret;
	/* The core reboots after its answer; the request below waits in the
	 * link's CONTROL mailbox until the new firmware takes it. */
	return fw_info_locked(dev, &fi);
}

int ftpu_fw_boot(ftpu_device *dev, unsigned which)
{
	int ret = ftpu__check_device(dev, "ftpu_fw_boot");
	if (ret)
		return ret;
	ftpu__lock(dev);
	ret = boot_locked(dev, which);
	ftpu__unlock(dev);
	return ret;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int ftpu_fw_load(ftpu_device *dev, const void *image, size_t bytes, bool boot)
{
	const uint8_t *img = image;
	uint32_t req[FTPU_LINK_MAX_CONTROL];
	int ret;

	if ((ret = ftpu__check_device(dev, "ftpu_fw_load")))
		return ret;
	if (!image)
		return ftpu__fail(dev, FTPU_ERR_INVALID,
				  "ftpu_fw_load: NULL argument");
	if (bytes < 4u * FTPU_FW_IMG_WORDS || bytes % 4)
		return ftpu__fail(dev, FTPU_ERR_INVALID,
				  "ftpu_fw_load: %zu bytes is not an "
				  "image (a %u-byte header, whole words)",
				  bytes, 4u * FTPU_FW_IMG_WORDS);
	ftpu__lock(dev);
	req[0] = FTPU_LINK_OP_UPDATE_BEGIN;
	for (unsigned i = 0; i < FTPU_FW_IMG_WORDS; i++)
		req[1 + i] = le32(img + 4 * i);
	ret = fw_request(dev, req, 1 + FTPU_FW_IMG_WORDS, NULL, 0, NULL);
	if (ret == FTPU_ERR_CORRUPT)
		ret = refused(dev, "the image header");
	/* The body, FTPU_FW_DATA_WORDS words per request, byte offsets from
	 * the end of the header. The device checks the size it was told. */
	size_t body = bytes - 4u * FTPU_FW_IMG_WORDS;
	for (size_t off = 0; !ret && off < body;
	     off += 4u * FTPU_FW_DATA_WORDS) {
		size_t words = (body - off) / 4;
		if (words > FTPU_FW_DATA_WORDS)
			words = FTPU_FW_DATA_WORDS;
		req[0] = FTPU_LINK_OP_UPDATE_DATA;
		req[1] = (uint32_t)off;
		for (size_t i = 0; i < words; i++)
			req[2 + i] = le32(img + 4u * FTPU_FW_IMG_WORDS + off +
					  4 * i);
		ret = fw_request(dev, req, 2 + words, NULL, 0, NULL);
		if (ret == FTPU_ERR_CORRUPT)
			ret = refused(dev, "the image data");
	}
	if (!ret) {
		req[0] = FTPU_LINK_OP_UPDATE_COMMIT;
		ret = fw_request(dev, req, 1, NULL, 0, NULL);
		if (ret == FTPU_ERR_CORRUPT)
			ret = refused(dev, "the image");
	}
	if (!ret && boot)
		ret = boot_locked(dev, 1);
	ftpu__unlock(dev);
	return ret;
}
