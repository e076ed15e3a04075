/* SPDX-License-Identifier: Apache-2.0 */
/*
 * status.h - return codes of proto/ and model/: the values of enum
 * ftpu_status (host-lib/include/ftpu.h, the public contract), which the
 * layers below the library do not include. host-lib/src/status.c checks
 * that the two agree.
 */
#ifndef FTPU_PROTO_STATUS_H
#define FTPU_PROTO_STATUS_H

#define FTPU_PROTO_OK 0
#define FTPU_PROTO_ERR_INVALID (-1)     /* FTPU_ERR_INVALID */
#define FTPU_PROTO_ERR_NOMEM (-2)       /* FTPU_ERR_NOMEM */
#define FTPU_PROTO_ERR_PROTOCOL (-5)    /* FTPU_ERR_PROTOCOL */
#define FTPU_PROTO_ERR_UNSUPPORTED (-7) /* FTPU_ERR_UNSUPPORTED */
#define FTPU_PROTO_ERR_NOT_FOUND (-8)   /* FTPU_ERR_NOT_FOUND */

#endif /* FTPU_PROTO_STATUS_H */
