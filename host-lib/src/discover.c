/* SPDX-License-Identifier: Apache-2.0 */
/*
 * discover.c - finding board devices: every transport's enumerate hook
 * (host-lib/src/transports/transport.h) in the order ftpu_open() knows them, the
 * in-process devices (their builtin hooks), and a probe
 * that opens a device with a short INFO timeout (what `ftpu list` prints).
 */
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "ftpu.h"
#include "transport.h"

struct count {
	int (*found)(void *arg, const char *uri, const char *what);
	void *arg;
	int n;
	int stop;
};

static int count_found(void *arg, const char *uri, const char *what)
{
	struct count *c = arg;
	c->n++;
	c->stop = c->found(c->arg, uri, what);
	return c->stop;
}

int ftpu_discover(int (*found)(void *arg, const char *uri, const char *what), void *arg)
{
	struct count c = { .found = found, .arg = arg };
	const struct ftpu_transport_ops *const *t;
	char why[512] = "", err[256];
	size_t n;

	if (!found)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_discover: found is NULL");
	t = ftpu__transports(&n);
	for (size_t i = 0; i < n && !c.stop; i++) {
		if (!t[i]->enumerate)
			continue;
		err[0] = '\0';
		int ret = t[i]->enumerate(count_found, &c, err, sizeof(err));
		if (ret && strlen(why) + strlen(err) + 3 < sizeof(why)) {
			if (why[0])
				strcat(why, "; ");
			strcat(why, err[0] ? err : ftpu_strerror(ret));
		}
	}
	ftpu__fail(NULL, FTPU_OK, "%s", why);
	return c.n;
}

int ftpu_builtin_devices(int (*found)(void *arg, const char *uri, const char *what),
			 void *arg)
{
	struct count c = { .found = found, .arg = arg };
	const struct ftpu_transport_ops *const *t;
	size_t n;

	if (!found)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_builtin_devices: found is NULL");
	t = ftpu__transports(&n);
	for (size_t i = 0; i < n && !c.stop; i++)
		if (t[i]->builtin)
			t[i]->builtin(count_found, &c);
	return c.n;
}

int ftpu_probe(const char *uri, unsigned timeout_ms, struct ftpu_device_info *info)
{
	ftpu_device *dev;
	int ret;

	if (!info)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_probe: info is NULL");
	ret = ftpu__open_timeout(uri, timeout_ms, &dev);
	if (ret)
		return ret;
	ret = ftpu_get_info(dev, info);
	ftpu_close(dev);
	return ret;
}
