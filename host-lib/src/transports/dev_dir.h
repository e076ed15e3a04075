/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dev_dir.h - finding the device nodes of a transport for its enumerate
 * hook (transport.h): the directory they live in ($FTPU_DEV_DIR, /dev by
 * default; tests point it at a directory of ptys and named pipes), and one
 * scan of it that calls found() with a URI and a description per node.
 * Shared by the uart and xdma transports; internal to libftpu.
 */
#ifndef FTPU_DEV_DIR_H
#define FTPU_DEV_DIR_H

#include <dirent.h>
#include <stddef.h>

/* The kind of node a transport looks for, and how it names one. */
struct ftpu_dev_kind {
	const char *scheme; /* "uart": URIs are "uart:<dir>/<node>" */
	const char *label;  /* "serial port": descriptions are "<label> <dir>/<node>" */
	/* Nonzero for a node of this kind (scandir's filter). */
	int (*filter)(const struct dirent *e);
	/* Bytes dropped from the end of a node's name in the URI and the
	 * description ("_user" of xdma0_user: 5), 0 for none. */
	size_t strip;
	/*
	 * Optional: a few words on the node from sysfs ("FT2232H 0403:6010"),
	 * "" when there are none; appended to the description after ", ".
	 * Called only when the directory is /dev (sysfs describes /dev's
	 * nodes, not a test's).
	 */
	void (*describe)(const char *name, char *buf, size_t len);
};

/* The directory device nodes are looked for in: $FTPU_DEV_DIR or /dev. */
const char *ftpu__dev_dir(void);

/*
 * Calls found(arg, uri, what) for each node of kind k in ftpu__dev_dir(),
 * in versionsort order, until found() returns nonzero. A directory that
 * does not exist holds no nodes (FTPU_OK). Returns FTPU_OK, or
 * FTPU_ERR_IO with "<scheme>: cannot list <dir>: <why>" in err when the
 * directory cannot be read.
 */
int ftpu__dev_dir_enumerate(const struct ftpu_dev_kind *k,
			    int (*found)(void *arg, const char *uri, const char *what),
			    void *arg, char *err, size_t err_len);

#endif /* FTPU_DEV_DIR_H */
