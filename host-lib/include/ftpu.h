/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu.h - public interface of libftpu, the host library of the ftpu
 * bfloat16 matrix accelerator.
 *
 * Every action returns an enum ftpu_status: 0 on success, a negative code
 * on failure; ftpu_strerror() names it. The library never calls abort()
 * or exit().
 */
#ifndef FTPU_H
#define FTPU_H

#ifdef __cplusplus
extern "C" {
#endif

#define FTPU_VERSION_MAJOR 0
#define FTPU_VERSION_MINOR 1
#define FTPU_VERSION_PATCH 0

enum ftpu_status {
	FTPU_OK = 0,
	FTPU_ERR_INVALID = -1,   /* bad argument: NULL, zero or overflowing size */
	FTPU_ERR_NOMEM = -2,     /* allocation failed */
	FTPU_ERR_TIMEOUT = -3,   /* the device did not answer in time */
	FTPU_ERR_IO = -4,        /* the transport failed */
	FTPU_ERR_PROTOCOL = -5,  /* malformed or unexpected frame */
	FTPU_ERR_DEVICE = -6,    /* the device reported a fault */
	FTPU_ERR_UNSUPPORTED = -7, /* not available in this build or device */
	FTPU_ERR_NOT_FOUND = -8, /* no such device, file or URI scheme */
	FTPU_ERR_CORRUPT = -9,   /* a file or program failed its checks */
};

/* A static, human-readable name for a status code; never NULL. */
const char *ftpu_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif /* FTPU_H */
