/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_runtime.c - libftpu's runtime (host-lib/src/device.c) over both
 * in-process transports: "ref" (the C model) and "sim" (the Verilated
 * device, linked here). The same programs run on both; their DATA must be
 * identical, and each checks what it wrote. Also: URIs, bad arguments,
 * faults and recovery, programs far larger than the device's receive
 * buffer (flow control), timeouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device.h"
#include "ftpu.h"
#include "ftpu_test.h"
#include "isa.h"
#include "device_host.h"

static const char *const uris[] = { "ref", "sim" };
#define N_URIS (sizeof(uris) / sizeof(uris[0]))

/* Runs p on dev, locked, collecting up to cap DATA words. */
static int run(ftpu_device *dev, const struct dh_prog *p, uint32_t *data, size_t cap,
	       size_t *got, struct ftpu_stats *st)
{
	struct ftpu_exec x = { .words = p->w.w, .n_words = p->w.n, .data = data, .data_words = cap };
	ftpu__lock(dev);
	int ret = ftpu__execute(dev, &x, st);
	ftpu__unlock(dev);
	if (got)
		*got = x.data_got;
	return ret;
}

static void test_uris(void **state)
{
	(void)state;
	ftpu_device *dev = (ftpu_device *)0x1;
	static const struct { const char *uri; int status; } bad[] = {
		{ "nosuch", FTPU_ERR_NOT_FOUND },
		{ "simx", FTPU_ERR_NOT_FOUND },
		{ "ref:rows=8", FTPU_ERR_INVALID },
		{ "sim:rows", FTPU_ERR_INVALID },
		{ "sim:rows=", FTPU_ERR_INVALID },
		{ "sim:rows=abc", FTPU_ERR_INVALID },
		{ "sim:rows=16,", FTPU_ERR_INVALID },
		{ "sim:=4", FTPU_ERR_INVALID },
		{ "sim:rows=99999999999", FTPU_ERR_INVALID },
		{ "sim:rows=8,cols=4", FTPU_ERR_INVALID },
		{ "sim:bogus=1", FTPU_ERR_INVALID },
		{ "sim:rows=8", FTPU_ERR_UNSUPPORTED },
		{ "sim:threads=0", FTPU_ERR_INVALID },
		{ "sim:threads=two", FTPU_ERR_INVALID },
		{ "sim:threads=3", FTPU_ERR_UNSUPPORTED },
		{ "sim:rows=4,threads=2", FTPU_ERR_UNSUPPORTED },
		{ "sim:board=icebreaker,threads=2", FTPU_ERR_UNSUPPORTED },
		/* board transports (host-lib/src/transports/), no such devices in a test run */
		{ "uart:/dev/ttyFTPU_none9", FTPU_ERR_NOT_FOUND },
		{ "uart:", FTPU_ERR_INVALID },
		{ "uart:/dev/ttyFTPU_none9@fast", FTPU_ERR_INVALID },
		{ "usb:1d50:6130", FTPU_ERR_NOT_FOUND },
		{ "xdma:/dev/xdmaFTPU_none9", FTPU_ERR_NOT_FOUND },
		{ "xdma:", FTPU_ERR_INVALID },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dev = (ftpu_device *)0x1;
		int ret = ftpu_open(bad[i].uri, &dev);
		if (ret != bad[i].status)
			fail_msg("%s: %d (%s), want %d", bad[i].uri, ret, ftpu_last_error(NULL),
				 bad[i].status);
		assert_true(dev == (ftpu_device *)0x1); /* untouched on failure */
		assert_true(strlen(ftpu_last_error(NULL)) > 0);
	}
	assert_int_equal(ftpu_open("ref", NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_close(NULL), FTPU_OK);

	/* Good ones, and the default. */
	static const char *const good[] = { "ref", "sim", "", "sim:rows=4", "sim:rows=16,cols=16",
					    "sim:threads=1" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ftpu_device_info info;
		assert_int_equal(ftpu_open(good[i], &dev), FTPU_OK);
		assert_int_equal(ftpu_get_info(dev, &info), FTPU_OK);
		assert_int_equal(info.rows, strstr(good[i], "rows=4") ? 4 : 16);
		assert_int_equal(info.protocol, 0x00010005);
		assert_int_equal(info.features, 1u); /* VECTOR_UNIT on sim and ref */
		assert_int_equal(info.max_payload, 4096);
		assert_string_equal(info.transport, good[i][0] == 'r' ? "ref" : "sim");
		assert_int_equal(ftpu_close(dev), FTPU_OK);
	}
	assert_int_equal(ftpu_open(NULL, &dev), FTPU_OK);
	assert_int_equal(ftpu_get_info(dev, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_set_timeout(dev, 0), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_set_timeout(NULL, 5), FTPU_ERR_INVALID);
	struct ftpu_stats st;
	assert_int_equal(ftpu_last_stats(dev, &st), FTPU_ERR_STATE);
	assert_int_equal(ftpu_reset(NULL), FTPU_ERR_INVALID);
	ftpu_close(dev);
	assert_true(ftpu_version() == FTPU_VERSION);
	assert_true(ftpu_protocol_version() == 0x00010005);
}

struct uri_list {
	char uri[8][64];
	size_t n;
};

static int add_uri(void *arg, const char *uri, const char *what)
{
	struct uri_list *l = arg;
	assert_true(what && what[0]);
	assert_true(l->n < 8);
	snprintf(l->uri[l->n++], sizeof(l->uri[0]), "%s", uri);
	return 0;
}

static int stop_first(void *arg, const char *uri, const char *what)
{
	(void)uri, (void)what;
	++*(int *)arg;
	return 1;
}

/* ftpu_builtin_devices: the in-process devices this program links, each of
 * which opens; this test links device_16 and device_4p, no board model, so
 * no sim:board= (and opening one says which boards are linked; an unknown
 * one, which boards there are). */
static void test_builtin_devices(void **state)
{
	(void)state;
	struct uri_list l = { .n = 0 };
	assert_int_equal(ftpu_builtin_devices(add_uri, &l), 3);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.uri[0], "sim");
	assert_string_equal(l.uri[1], "sim:rows=4");
	assert_string_equal(l.uri[2], "ref");
	for (size_t i = 0; i < l.n; i++) {
		ftpu_device *dev;
		if (ftpu_open(l.uri[i], &dev))
			fail_msg("%s: %s", l.uri[i], ftpu_last_error(NULL));
		assert_int_equal(ftpu_close(dev), FTPU_OK);
	}
	int calls = 0;
	assert_int_equal(ftpu_builtin_devices(stop_first, &calls), 1);
	assert_int_equal(calls, 1);
	assert_int_equal(ftpu_builtin_devices(NULL, NULL), FTPU_ERR_INVALID);
	ftpu_device *dev;
	assert_int_equal(ftpu_open("sim:board=icebreaker", &dev), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(ftpu_last_error(NULL),
			       "without the simulated board \"icebreaker\" (linked: none)"));
	assert_int_equal(ftpu_open("sim:board=nosuch", &dev), FTPU_ERR_UNSUPPORTED);
	assert_non_null(strstr(ftpu_last_error(NULL),
			       "(known: icebreaker, tangnano20k, ulx3s, ulx3s_45f, ulx3s_25f)"));
}

/*
 * A round trip through every readable memory, the data far larger than
 * the device's receive buffer so flow control has to work; identical
 * DATA from both transports.
 */
static void test_roundtrip(void **state)
{
	(void)state;
	struct rng r = { ftpu_test_seed() };
	const unsigned vecs = 3000; /* UB: 3000 * 8 words = 24k words > IQ */
	struct dh_prog p = { 0 };
	dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_UB, vecs, 10, 0);
	uint32_t *ub = malloc(vecs * 8 * sizeof(uint32_t));
	for (size_t i = 0; i < vecs * 8u; i++)
		dh_prog_word(&p, ub[i] = rng_u32(&r));
	dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, 40, 100, 0);
	uint32_t acc[40 * 16];
	for (size_t i = 0; i < 40 * 16; i++)
		dh_prog_word(&p, acc[i] = rng_u32(&r));
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, vecs, 10, 0);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 40, 100, 0);

	size_t want = vecs * 8u + 40 * 16;
	uint32_t *out[N_URIS];
	for (size_t u = 0; u < N_URIS; u++) {
		ftpu_device *dev;
		struct ftpu_stats st;
		size_t got = 0;
		assert_int_equal(ftpu_open(uris[u], &dev), FTPU_OK);
		out[u] = calloc(want + 16, sizeof(uint32_t));
		int ret = run(dev, &p, out[u], want + 16, &got, &st);
		if (ret)
			fail_msg("%s: %s: %s", uris[u], ftpu_strerror(ret), ftpu_last_error(dev));
		assert_int_equal(got, want);
		assert_memory_equal(out[u], ub, vecs * 8u * sizeof(uint32_t));
		assert_memory_equal(out[u] + vecs * 8u, acc, sizeof(acc));
		assert_int_equal(st.instructions, 5); /* with the runtime's SYNC */
		assert_true(st.bytes_in >= p.w.n * 4);
		assert_true(st.bytes_out >= want * 4);
		assert_true(st.host_seconds > 0);
		struct ftpu_device_info di;
		assert_int_equal(ftpu_get_info(dev, &di), FTPU_OK);
		if (!strcmp(uris[u], "sim")) /* at most link_bytes a cycle */
			assert_true(st.cycles * di.link_bytes >= st.bytes_in);
		ftpu_close(dev);
	}
	assert_memory_equal(out[0], out[1], want * sizeof(uint32_t));
	for (size_t u = 0; u < N_URIS; u++)
		free(out[u]);
	free(ub);
	dh_prog_free(&p);
}

/* A fault stops the program with FTPU_ERR_DEVICE naming it; the device
 * runs the next program normally. */
static void test_fault_and_recovery(void **state)
{
	(void)state;
	for (size_t u = 0; u < N_URIS; u++) {
		ftpu_device *dev;
		assert_int_equal(ftpu_open(uris[u], &dev), FTPU_OK);
		struct dh_prog p = { 0 };
		dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_ACC, 1, 7, 0);
		for (unsigned i = 0; i < 16; i++)
			dh_prog_word(&p, 0x1000u + i);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 1, FTPU_DEV_DEFAULT_ACC_VECTORS,
			      0); /* out of range */
		/* a long tail the device must discard */
		dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_WM, 1024, 0, 0);
		for (unsigned i = 0; i < 1024 * 8; i++)
			dh_prog_word(&p, i);
		uint32_t data[64];
		int ret = run(dev, &p, data, 64, NULL, NULL);
		assert_int_equal(ret, FTPU_ERR_DEVICE);
		assert_non_null(strstr(ftpu_last_error(dev), "fault 3 at instruction 1"));

		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 1, 7, 0);
		size_t got = 0;
		ret = run(dev, &p, data, 64, &got, NULL);
		if (ret)
			fail_msg("%s: %s", uris[u], ftpu_last_error(dev));
		assert_int_equal(got, 16);
		for (unsigned i = 0; i < 16; i++)
			assert_int_equal(data[i], 0x1000u + i);

		/* More DATA than the caller has room for is a protocol error, and
		 * the device is then failed until a reset. */
		ret = run(dev, &p, data, 8, NULL, NULL);
		assert_int_equal(ret, FTPU_ERR_PROTOCOL);
		assert_int_equal(run(dev, &p, data, 64, NULL, NULL), FTPU_ERR_STATE);
		assert_int_equal(ftpu_reset(dev), FTPU_OK);
		dh_prog_reset(&p);
		dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_UB, 1, 0, 0);
		for (unsigned i = 0; i < 8; i++)
			dh_prog_word(&p, 0xabc0u + i);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 1, 0, 0);
		ret = run(dev, &p, data, 64, &got, NULL);
		if (ret)
			fail_msg("%s after reset: %s", uris[u], ftpu_last_error(dev));
		assert_int_equal(got, 8);
		assert_int_equal(data[7], 0xabc7u);
		dh_prog_free(&p);
		ftpu_close(dev);
	}
}

/* A program whose last HOST_READ never gets its data: the runtime's own
 * SYNC becomes inline data and the END that follows cuts the HOST_READ
 * short, so the device reports TRUNCATED (code 5) instead of waiting
 * forever, and the runtime returns it instead of hanging. */
static void test_truncated_program(void **state)
{
	(void)state;
	for (size_t u = 0; u < N_URIS; u++) {
		ftpu_device *dev;
		assert_int_equal(ftpu_open(uris[u], &dev), FTPU_OK);
		assert_int_equal(ftpu_set_timeout(dev, 2000), FTPU_OK);
		struct dh_prog p = { 0 };
		dh_prog_instr(&p, FTPU_OP_HOST_READ, FTPU_MEM_WM, 100, 0, 0);
		uint32_t data[4];
		int ret = run(dev, &p, data, 4, NULL, NULL);
		if (ret != FTPU_ERR_DEVICE || !strstr(ftpu_last_error(dev), "fault 5 at instruction 0"))
			fail_msg("%s: %d %s", uris[u], ret, ftpu_last_error(dev));
		dh_prog_free(&p);
		ftpu_close(dev);
	}
}

/* A closed handle (ftpu.h: undefined, but detected): every call fails with
 * FTPU_ERR_STATE instead of hanging on freed memory, a second close too. */
static void test_closed_handle(void **state)
{
	(void)state;
	ftpu_device *dev, *other;
	struct ftpu_device_info info;
	struct ftpu_stats st;
	struct ftpu_fw_info fi;
	float a[4] = { 1, 2, 3, 4 }, c[4] = { 0 };
	assert_int_equal(ftpu_open("ref", &dev), FTPU_OK);
	assert_int_equal(ftpu_open("ref", &other), FTPU_OK);
	assert_int_equal(ftpu_close(dev), FTPU_OK);
	assert_int_equal(ftpu_close(dev), FTPU_ERR_STATE);
	assert_non_null(strstr(ftpu_last_error(NULL), "not an open device"));
	assert_non_null(strstr(ftpu_last_error(dev), "not an open device"));
	assert_int_equal(ftpu_get_info(dev, &info), FTPU_ERR_STATE);
	assert_int_equal(ftpu_set_timeout(dev, 100), FTPU_ERR_STATE);
	assert_int_equal(ftpu_reset(dev), FTPU_ERR_STATE);
	assert_int_equal(ftpu_last_stats(dev, &st), FTPU_ERR_STATE);
	assert_int_equal(ftpu_fw_info(dev, &fi), FTPU_ERR_STATE);
	assert_int_equal(ftpu_fw_boot(dev, 0), FTPU_ERR_STATE);
	assert_int_equal(ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1, a, 2, a, 2,
				   0, c, 2),
			 FTPU_ERR_STATE);
	assert_true(c[0] == 0);
	assert_int_equal(ftpu_run(dev, NULL, NULL, NULL, NULL), FTPU_ERR_STATE);
	/* the other handle is untouched */
	assert_int_equal(ftpu_gemm(other, FTPU_NO_TRANS, FTPU_NO_TRANS, 2, 2, 2, 1, a, 2, a, 2,
				   0, c, 2),
			 FTPU_OK);
	assert_true(c[0] == 7);
	assert_int_equal(ftpu_close(other), FTPU_OK);
}

/* A very long URI: the message names it elided and ends as written. */
static void test_long_uri(void **state)
{
	(void)state;
	static const char *const schemes[] = { "nosuch:", "uart:/dev/", "xdma:/dev/", "ref:",
					       "sim:rows=" };
	static char uri[5000 + 16];
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		ftpu_device *dev = (ftpu_device *)0x1;
		size_t n = strlen(schemes[i]);
		memcpy(uri, schemes[i], n);
		memset(uri + n, 'A', 5000 - n);
		uri[5000] = '\0';
		assert_true(ftpu_open(uri, &dev) < 0);
		assert_true(dev == (ftpu_device *)0x1);
		const char *msg = ftpu_last_error(NULL);
		size_t len = strlen(msg);
		/* the URI at most as its first 64 bytes and "...", never cut */
		char run[66];
		memset(run, 'A', 65);
		run[65] = '\0';
		if (len < 8 || strstr(msg, run) || msg[len - 1] == 'A')
			fail_msg("%s...: message not elided: %s", schemes[i], msg);
		if (i == 0 && !strstr(msg, "xdma:/dev/xdmaN)"))
			fail_msg("the list of schemes is cut: %s", msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uris),
		cmocka_unit_test(test_builtin_devices),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_fault_and_recovery),
		cmocka_unit_test(test_truncated_program),
		cmocka_unit_test(test_closed_handle),
		cmocka_unit_test(test_long_uri),
	};
	return cmocka_run_group_tests_name("runtime (ref and sim)", tests, NULL, NULL);
}
