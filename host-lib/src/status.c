/* SPDX-License-Identifier: Apache-2.0 */
#include "ftpu.h"
#include "status.h"

/* proto/ and model/ return these values without seeing ftpu.h. */
_Static_assert(FTPU_PROTO_OK == FTPU_OK, "proto status");
_Static_assert(FTPU_PROTO_ERR_INVALID == FTPU_ERR_INVALID, "proto status");
_Static_assert(FTPU_PROTO_ERR_NOMEM == FTPU_ERR_NOMEM, "proto status");
_Static_assert(FTPU_PROTO_ERR_PROTOCOL == FTPU_ERR_PROTOCOL, "proto status");
_Static_assert(FTPU_PROTO_ERR_UNSUPPORTED == FTPU_ERR_UNSUPPORTED, "proto status");
_Static_assert(FTPU_PROTO_ERR_NOT_FOUND == FTPU_ERR_NOT_FOUND, "proto status");

const char *ftpu_strerror(int status)
{
	switch (status) {
	case FTPU_OK: return "success";
	case FTPU_ERR_INVALID: return "invalid argument";
	case FTPU_ERR_NOMEM: return "out of memory";
	case FTPU_ERR_TIMEOUT: return "timed out waiting for the device";
	case FTPU_ERR_IO: return "transport I/O error";
	case FTPU_ERR_PROTOCOL: return "link protocol error";
	case FTPU_ERR_DEVICE: return "device fault";
	case FTPU_ERR_UNSUPPORTED: return "not supported";
	case FTPU_ERR_NOT_FOUND: return "not found";
	case FTPU_ERR_CORRUPT: return "corrupt data";
	case FTPU_ERR_SHAPE: return "mismatched or uncompilable shapes";
	case FTPU_ERR_STATE: return "the handle is closed, failed or in the wrong state";
	}
	return "unknown ftpu status";
}
