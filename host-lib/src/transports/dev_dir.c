/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dev_dir.c - the scan of $FTPU_DEV_DIR (or /dev) behind the uart and xdma
 * transports' enumerate hooks (dev_dir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_dir.h"
#include "ftpu.h"

const char *ftpu__dev_dir(void)
{
	const char *d = getenv("FTPU_DEV_DIR");
	return d && d[0] ? d : "/dev";
}

int ftpu__dev_dir_enumerate(const struct ftpu_dev_kind *k,
			    int (*found)(void *arg, const char *uri, const char *what),
			    void *arg, char *err, size_t err_len)
{
	const char *dir = ftpu__dev_dir();
	struct dirent **names;
	int n = scandir(dir, &names, k->filter, versionsort);
	int stop = 0;

	if (n < 0) {
		if (errno == ENOENT)
			return FTPU_OK;
		snprintf(err, err_len, "%s: cannot list %s: %s", k->scheme, dir,
			 strerror(errno));
		return FTPU_ERR_IO;
	}
	for (int i = 0; i < n; i++) {
		char uri[PATH_MAX + 8], what[PATH_MAX + 128], more[128];
		const char *name = names[i]->d_name;
		int len = (int)(strlen(name) - k->strip);
		if (!stop) {
			more[0] = '\0';
			if (k->describe && !strcmp(dir, "/dev"))
				k->describe(name, more, sizeof(more));
			snprintf(uri, sizeof(uri), "%s:%s/%.*s", k->scheme, dir, len, name);
			snprintf(what, sizeof(what), "%s %s/%.*s%s%s", k->label, dir, len,
				 name, more[0] ? ", " : "", more);
			stop = found(arg, uri, what);
		}
		free(names[i]);
	}
	free(names);
	return FTPU_OK;
}
