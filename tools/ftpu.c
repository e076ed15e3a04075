/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu - the command line of libftpu: find devices, show what they are,
 * check them against the bit-exact reference, run and time GEMMs.
 *
 *   ftpu list | info URI | selftest URI | gemm URI M K N | bench URI
 *   ftpu fw info URI | fw selftest URI | fw load URI IMAGE [--no-boot]
 *   ftpu version | --version
 *
 * Every command takes --help or -h anywhere after it: usage on stdout, exit 0.
 *
 * Errors are one line on stderr and a non-zero exit: 1 for a failure of
 * the device or the check, 2 for bad usage.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ftpu.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char *prog = "ftpu";

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s%s%s: ", prog, cmd ? " " : "", cmd ? cmd : "");
	fprintf(stderr, fmt, arg);
	if (cmd)
		fprintf(stderr, " (try '%s %s --help')\n", prog, cmd);
	else
		fprintf(stderr, " (try '%s --help')\n", prog);
	return EXIT_USAGE;
}

static int device_error(const char *what, int status, ftpu_device *dev)
{
	const char *detail = ftpu_last_error(dev);
	fprintf(stderr, "%s: %s: %s%s%s\n", prog, what, ftpu_strerror(status),
		detail[0] ? ": " : "", detail);
	return EXIT_FAIL;
}

static bool is_help(const char *s)
{
	return !strcmp(s, "--help") || !strcmp(s, "-h");
}

/* A size argument: a whole decimal number in 1..max. */
static bool parse_size(const char *s, size_t max, size_t *out)
{
	char *end;
	unsigned long long v;
	/* digits only: strtoull would take " 4", "+4" and "-1" (as 2^64 - 1) */
	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return false;
	*out = (size_t)v;
	return true;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x5eedf7b0;
static float rnd(void) /* uniform in [-1, 1) */
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((int32_t)(rng_state >> 32)) / 2147483648.0f;
}

/* A rate of MACs per second with a unit that keeps 3 significant digits
 * ("1.44 MMAC/s", "27.1 kMAC/s"), "-" when there was no time to divide by. */
static const char *mac_rate(char *buf, size_t len, double macs, double seconds)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	double r = seconds > 0 ? macs / seconds : 0;
	size_t u = 0;
	if (!(r > 0) || !isfinite(r))
		return snprintf(buf, len, "-"), buf;
	while (r >= 999.5 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		r /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g %sMAC/s", r, unit[u]);
	return buf;
}

/*
 * The stats of a run on an rows x cols array, in the words of struct
 * ftpu_stats: utilization = MACs / (array MACs per cycle x cycles), the
 * share of the array's peak the run used, link time included; the link
 * roofline = the best utilization the link's bytes allow (INFO LINK_BYTES a cycle
 * each way); "of roofline" = utilization / roofline, how close the run came
 * to that bound. On ref the cycles leave the link out, so no roofline.
 */
static void print_stats(const struct ftpu_stats *st, const struct ftpu_device_info *info,
			bool is_ref)
{
	unsigned pe = info->rows * info->cols;
	char rate[32];
	printf("  device cycles   %" PRIu64 " (busy %" PRIu64 ", idle %" PRIu64 ")\n",
	       st->cycles, st->busy, st->idle);
	if (!is_ref && info->clock_hz)
		printf("  device time     %.3g ms at its %.1f MHz clock: %s\n",
		       1e3 * (double)st->cycles / info->clock_hz, info->clock_hz / 1e6,
		       mac_rate(rate, sizeof(rate), (double)st->macs,
				(double)st->cycles / info->clock_hz));
	printf("  MACs            %" PRIu64 " (by the %ux%u array, tiles padded)\n", st->macs,
	       info->rows, info->cols);
	printf("  utilization     %.1f%% of the array's peak: MACs / (%u per cycle x %" PRIu64
	       " cycles)\n", 100 * st->utilization, pe, st->cycles);
	if (is_ref) {
		printf("  link roofline   - (ref has no link: its cycles are the C model's "
		       "compute estimate)\n");
	} else {
		printf("  link roofline   %.1f%%: the best utilization these link bytes allow "
		       "(the link's bytes a cycle, INFO LINK_BYTES)\n", 100 * st->roofline);
		if (st->roofline > 0)
			printf("  of roofline     %.1f%%: how close this run came to that bound\n",
			       100 * st->utilization / st->roofline);
		if (st->roofline < 0.9)
			printf("                  (bound by the link, not the array: with the data "
			       "already on\n                  the device the array nears 100%%, "
			       "docs/array.md)\n");
	}
	printf("  stalls          weight %" PRIu64 ", input %" PRIu64 ", output %" PRIu64
	       " cycles\n", st->weight_stall, st->input_stall, st->output_stall);
	printf("  link bytes      %" PRIu64 " in, %" PRIu64 " out\n", st->bytes_in,
	       st->bytes_out);
	printf("  instructions    %" PRIu64 "\n", st->instructions);
	printf("  host time       %.3f s\n", st->host_seconds);
}

/* ---- list, info ---------------------------------------------------------------- */

static int print_info(const char *uri, ftpu_device *dev)
{
	struct ftpu_device_info i;
	int ret = ftpu_get_info(dev, &i);
	if (ret)
		return device_error("info", ret, dev);
	printf("%s\n", uri);
	printf("  transport       %s\n", i.transport);
	printf("  protocol        %u.%u\n", i.protocol >> 16, i.protocol & 0xffffu);
	printf("  array           %ux%u, %u cycle%s per PE\n", i.rows, i.cols, i.row_delay,
	       i.row_delay == 1 ? "" : "s");
	printf("  unified buffer  %" PRIu32 " vectors (%" PRIu64 " KiB)\n", i.ub_vectors,
	       (uint64_t)i.ub_vectors * i.rows * 2 / 1024);
	printf("  weight memory   %" PRIu32 " tiles (%" PRIu64 " KiB)\n", i.weight_tiles,
	       (uint64_t)i.weight_tiles * i.rows * i.cols * 2 / 1024);
	printf("  accumulators    %" PRIu32 " vectors (%" PRIu64 " KiB)\n", i.acc_vectors,
	       (uint64_t)i.acc_vectors * i.cols * 4 / 1024);
	printf("  bias memory     %" PRIu32 " vectors\n", i.bias_vectors);
	printf("  receive buffer  %" PRIu32 " words\n", i.iq_words);
	printf("  clock           %.1f MHz\n", i.clock_hz / 1e6);
	printf("  peak            %.1f GMAC/s\n", (double)i.rows * i.cols * i.clock_hz / 1e9);
	printf("  vector unit     %s\n", i.features & FTPU_FEATURE_VECTOR_UNIT ? "yes" : "no");
	printf("  dispatch        %s\n", i.features & FTPU_FEATURE_IN_ORDER ? "in order (small profile)" : "overlapped units");
	printf("  link            %" PRIu32 " byte%s a cycle each way\n", i.link_bytes,
	       i.link_bytes == 1 ? "" : "s");
	struct ftpu_fw_info fw;
	ret = ftpu_fw_info(dev, &fw);
	if (ret == FTPU_OK)
		printf("  firmware        %u.%u.%u (%s)\n", fw.version >> 16,
		       (fw.version >> 8) & 0xffu, fw.version & 0xffu,
		       fw.running ? "update in RAM" : "boot ROM");
	else if (ret == FTPU_ERR_UNSUPPORTED)
		printf("  firmware        no FW_INFO (a hardware control plane, or the soft device)\n");
	else
		return device_error("info", ret, dev);
	return 0;
}

/* Devices ftpu_discover() reported. */
struct found_list {
	char **uri, **what;
	size_t n, cap;
};

static int on_found(void *arg, const char *uri, const char *what)
{
	struct found_list *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **u = realloc(l->uri, cap * sizeof(*u));
		if (u)
			l->uri = u;
		char **w = realloc(l->what, cap * sizeof(*w));
		if (w)
			l->what = w;
		if (!u || !w)
			return 1;
		l->cap = cap;
	}
	l->uri[l->n] = strdup(uri);
	l->what[l->n] = strdup(what);
	if (!l->uri[l->n] || !l->what[l->n]) {
		free(l->uri[l->n]);
		free(l->what[l->n]);
		return 1;
	}
	l->n++;
	return 0;
}

/* One line of the list: what uri reports, or why it does not. */
static void list_one(const char *uri, unsigned timeout_ms, int width)
{
	struct ftpu_device_info i;
	int ret = ftpu_probe(uri, timeout_ms, &i);
	if (ret) {
		printf("%-*s (%s: %s)\n", width, uri, ftpu_strerror(ret),
		       ftpu_last_error(NULL));
		return;
	}
	printf("%-*s %-6s %3ux%-3u %7" PRIu64 " %9" PRIu64 " %7" PRIu64 "  %u.%u\n", width,
	       uri, i.transport, i.rows, i.cols,
	       (uint64_t)i.ub_vectors * i.rows * 2 / 1024,
	       (uint64_t)i.weight_tiles * i.rows * i.cols * 2 / 1024,
	       (uint64_t)i.acc_vectors * i.cols * 4 / 1024, i.protocol >> 16,
	       i.protocol & 0xffffu);
}

static void help_list(void)
{
	printf("usage: %s list [--timeout MS]\n\n"
	       "Lists the devices this build can open: the simulated devices it links (sim,\n"
	       "sim:rows=4, sim:board=NAME), the C model (ref), and every board device found\n"
	       "(serial ports ttyUSB*/ttyACM*, XDMA cards, USB devices), each opened and asked\n"
	       "for INFO within MS milliseconds (default 1000). A device that does not answer\n"
	       "is listed with the reason.\n"
	       "FTPU_DEV_DIR: where to look for device nodes instead of /dev.\n",
	       prog);
}

static int cmd_list(int argc, char **argv)
{
	struct found_list builtin = { 0 }, found = { 0 };
	size_t timeout_ms = 1000;
	int width = 14;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--timeout") && a + 1 < argc) {
			if (!parse_size(argv[++a], 600000, &timeout_ms))
				return usage_error("list", "bad --timeout '%s'", argv[a]);
			continue;
		}
		return usage_error("list", "unexpected argument '%s'", argv[a]);
	}
	/* the in-process devices this build links (sim:board=... among them),
	 * as the library knows them, then the boards on this machine */
	ftpu_builtin_devices(on_found, &builtin);
	ftpu_discover(on_found, &found);
	if (ftpu_last_error(NULL)[0])
		fprintf(stderr, "%s list: could not look everywhere: %s\n", prog,
			ftpu_last_error(NULL));
	for (size_t i = 0; i < builtin.n; i++)
		if ((int)strlen(builtin.uri[i]) > width)
			width = (int)strlen(builtin.uri[i]);
	for (size_t i = 0; i < found.n; i++)
		if ((int)strlen(found.uri[i]) > width)
			width = (int)strlen(found.uri[i]);

	printf("%-*s %-6s %-7s %7s %9s %7s  %s\n", width, "URI", "link", "array", "UB KiB",
	       "W KiB", "ACC KiB", "protocol");
	for (size_t i = 0; i < builtin.n; i++) {
		list_one(builtin.uri[i], 0, width);
		free(builtin.uri[i]);
		free(builtin.what[i]);
	}
	for (size_t i = 0; i < found.n; i++) {
		list_one(found.uri[i], (unsigned)timeout_ms, width);
		printf("%-*s   %s\n", width, "", found.what[i]);
		free(found.uri[i]);
		free(found.what[i]);
	}
	if (!found.n) {
		const char *dir = getenv("FTPU_DEV_DIR");
		printf("(no board devices found: no serial ports ttyUSB*/ttyACM* or XDMA "
		       "nodes in %s, no USB devices)\n", dir && dir[0] ? dir : "/dev");
	}
	free(builtin.uri);
	free(builtin.what);
	free(found.uri);
	free(found.what);
	return 0;
}

static int open_arg(const char *cmd, int argc, char **argv, ftpu_device **dev)
{
	if (argc < 2)
		return usage_error(cmd, "%s", "needs a device URI");
	int ret = ftpu_open(argv[1], dev);
	if (ret) {
		fprintf(stderr, "%s %s: cannot open '%s': %s: %s\n", prog, cmd, argv[1],
			ftpu_strerror(ret), ftpu_last_error(NULL));
		return EXIT_FAIL;
	}
	return 0;
}

static void help_info(void)
{
	printf("usage: %s info URI\n\nPrints what the device reports: array, "
	       "memories, clock, protocol.\nURI: sim, sim:rows=4, sim:board=NAME, ref, "
	       "uart:TTY[@BAUD], xdma:/dev/xdmaN, usb:...\n('%s list' shows the ones "
	       "this build can open)\n", prog, prog);
}

static int cmd_info(int argc, char **argv)
{
	ftpu_device *dev;
	if (argc > 2)
		return usage_error("info", "unexpected argument '%s'", argv[2]);
	int ret = open_arg("info", argc, argv, &dev);
	if (ret)
		return ret;
	ret = print_info(argv[1], dev);
	ftpu_close(dev);
	return ret;
}

/* ---- GEMM helpers ------------------------------------------------------------------- */

/* The bit-exact expectation of ftpu_gemm(alpha 1, beta 0): bf16-rounded
 * operands through the reference GEMM. */
static void expected_gemm(size_t m, size_t k, size_t n, const float *a, const float *b,
			  float *c)
{
	uint16_t *a16 = malloc(m * k * 2), *b16 = malloc(k * n * 2);
	uint32_t *acc = calloc(m * n, 4);
	if (!a16 || !b16 || !acc) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(EXIT_FAIL);
	}
	for (size_t i = 0; i < m * k; i++) {
		uint32_t u;
		memcpy(&u, &a[i], 4);
		a16[i] = ftpu_f32_to_bf16(u);
	}
	for (size_t i = 0; i < k * n; i++) {
		uint32_t u;
		memcpy(&u, &b[i], 4);
		b16[i] = ftpu_f32_to_bf16(u);
	}
	ftpu_ref_gemm(m, n, k, a16, k, b16, n, acc, n, false);
	memcpy(c, acc, m * n * 4);
	free(a16);
	free(b16);
	free(acc);
}

static float *random_matrix(size_t rows, size_t cols)
{
	float *p = malloc(rows * cols * sizeof(float));
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(EXIT_FAIL);
	}
	for (size_t i = 0; i < rows * cols; i++)
		p[i] = rnd();
	return p;
}

/* An input file as the library's readers open them (ftpu_open_file: a
 * regular file, a FIFO or device refused unread); NULL with the reason in
 * ftpu_last_error(NULL). */
static FILE *open_input(const char *path)
{
	int fd = ftpu_open_file(path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

/*
 * The --out file, made ready before the device computes anything: a
 * temporary next to path (through a symbolic link, at its target) with
 * room for bytes, renamed over path once written, so a full disk, a
 * missing directory or no permission fail first and an old path is never
 * left half-written. Not a regular file (/dev/full, a FIFO) is refused.
 */
struct out_file {
	char *path, *tmp;
	int fd;
};

static bool out_open(struct out_file *o, const char *path, size_t bytes)
{
	struct stat st;
	o->path = o->tmp = NULL;
	o->fd = -1;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s gemm: cannot write %s: not a regular file\n", prog, path);
		return false;
	}
	o->path = realpath(path, NULL);
	if (!o->path && !(o->path = strdup(path)))
		goto fail_errno;
	size_t len = strlen(o->path) + 16;
	if (!(o->tmp = malloc(len)))
		goto fail_errno;
	snprintf(o->tmp, len, "%s.tmp.XXXXXX", o->path);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		goto fail_errno;
	}
	/* the mode a new file would get, or the old file's */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, !stat(o->path, &st) ? st.st_mode & 07777 : 0666 & ~mask))
		goto fail_errno;
	int e = bytes ? posix_fallocate(o->fd, 0, (off_t)bytes) : 0;
	if (e && e != EOPNOTSUPP && e != EINVAL) {
		errno = e;
		goto fail_errno;
	}
	return true;
fail_errno:
	fprintf(stderr, "%s gemm: cannot write %s: %s\n", prog, path, strerror(errno));
	if (o->fd >= 0) {
		close(o->fd);
		unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	o->fd = -1;
	return false;
}

/* Writes data and renames the file into place; or (data NULL) drops it. */
static bool out_close(struct out_file *o, const void *data, size_t bytes)
{
	bool ok = data != NULL;
	for (size_t at = 0; ok && at < bytes;) {
		ssize_t w = write(o->fd, (const char *)data + at, bytes - at);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		at += ok ? (size_t)w : 0;
	}
	ok = ok && !fsync(o->fd);
	ok = !close(o->fd) && ok;
	ok = ok && !rename(o->tmp, o->path);
	if (!ok && data)
		fprintf(stderr, "%s gemm: cannot write %s: %s\n", prog, o->path,
			strerror(errno));
	if (!ok)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	return ok;
}

/* Reads rows x cols little-endian fp32 values from path. */
static float *read_matrix(const char *path, size_t rows, size_t cols)
{
	FILE *f = open_input(path);
	if (!f) {
		fprintf(stderr, "%s gemm: cannot open %s\n", prog, ftpu_last_error(NULL));
		return NULL;
	}
	float *p = malloc(rows * cols * sizeof(float));
	size_t got = p ? fread(p, sizeof(float), rows * cols, f) : 0;
	int extra = fgetc(f);
	fclose(f);
	if (!p || got != rows * cols || extra != EOF) {
		fprintf(stderr, "%s gemm: %s holds %s than %zux%zu fp32 values\n", prog, path,
			got != rows * cols ? "fewer" : "more", rows, cols);
		free(p);
		return NULL;
	}
	return p;
}

static size_t mismatches(const float *got, const float *want, size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		if (memcmp(&got[i], &want[i], 4))
			bad++;
	return bad;
}

/* ---- selftest ------------------------------------------------------------------------- */

static void help_selftest(void)
{
	printf("usage: %s selftest URI\n\nRuns known GEMMs on the device and checks "
	       "every result bit for bit\nagainst the reference (docs/numerics.md).\n",
	       prog);
}

static int cmd_selftest(int argc, char **argv)
{
	static const struct { size_t m, k, n; } shapes[] = {
		{ 1, 1, 1 }, { 16, 16, 16 }, { 17, 33, 15 }, { 64, 200, 40 },
		{ 128, 784, 128 }, { 3, 1000, 70 },
	};
	ftpu_device *dev;
	if (argc > 2)
		return usage_error("selftest", "unexpected argument '%s'", argv[2]);
	int ret = open_arg("selftest", argc, argv, &dev);
	if (ret)
		return ret;
	int failed = 0;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		size_t m = shapes[s].m, k = shapes[s].k, n = shapes[s].n;
		float *a = random_matrix(m, k), *b = random_matrix(k, n);
		float *c = calloc(m * n, 4), *want = calloc(m * n, 4);
		if (!c || !want) {
			fprintf(stderr, "%s: out of memory\n", prog);
			exit(EXIT_FAIL);
		}
		expected_gemm(m, k, n, a, b, want);
		ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n,
				0.0f, c, n);
		size_t bad = ret ? m * n : mismatches(c, want, m * n);
		printf("  %4zu x %4zu x %4zu  %s", m, k, n, ret ? "ERROR" : bad ? "FAIL" : "ok");
		if (ret)
			printf(" (%s: %s)", ftpu_strerror(ret), ftpu_last_error(dev));
		else if (bad)
			printf(" (%zu of %zu results differ)", bad, m * n);
		printf("\n");
		failed += ret || bad;
		free(a);
		free(b);
		free(c);
		free(want);
		if (ret)
			ftpu_reset(dev);
	}
	ftpu_close(dev);
	printf("selftest %s: %s\n", argv[1], failed ? "FAILED" : "passed");
	return failed ? EXIT_FAIL : 0;
}

/* ---- gemm ---------------------------------------------------------------------------------- */

static void help_gemm(void)
{
	printf("usage: %s gemm URI M K N [--a FILE] [--b FILE] [--out FILE] "
	       "[--check] [--seed N]\n\n"
	       "C (MxN) = A (MxK) * B (KxN) on the device: random operands in "
	       "[-1, 1) or raw\nlittle-endian fp32 row-major files; prints time "
	       "and the device's stats.\n--check compares every result with the "
	       "bit-exact reference. --out (a regular file) is made ready before\n"
	       "the GEMM runs and replaced whole once it is done.\n", prog);
}

static int cmd_gemm(int argc, char **argv)
{
	const char *fa = NULL, *fb = NULL, *fout = NULL;
	bool check = false;
	size_t dims[3];
	int pos = 0;
	const char *uri = NULL;

	for (int i = 1; i < argc; i++) {
		const char **slot = !strcmp(argv[i], "--a") ? &fa : !strcmp(argv[i], "--b") ? &fb :
				    !strcmp(argv[i], "--out") ? &fout : NULL;
		if (slot || !strcmp(argv[i], "--seed")) {
			if (i + 1 >= argc)
				return usage_error("gemm", "%s needs a value", argv[i]);
			if (slot) {
				*slot = argv[++i];
			} else {
				size_t seed;
				if (!parse_size(argv[++i], SIZE_MAX, &seed))
					return usage_error("gemm", "bad seed '%s'", argv[i]);
				rng_state = seed;
			}
		} else if (!strcmp(argv[i], "--check")) {
			check = true;
		} else if (argv[i][0] == '-' && argv[i][1] &&
			   !(uri && pos < 3 && isdigit((unsigned char)argv[i][1]))) {
			/* "-1" where a size goes is a bad size, not an option */
			return usage_error("gemm", "unknown option '%s'", argv[i]);
		} else if (!uri) {
			uri = argv[i];
		} else if (pos < 3) {
			if (!parse_size(argv[i], 1u << 20, &dims[pos]))
				return usage_error("gemm", "'%s' is not a size in 1..1048576", argv[i]);
			pos++;
		} else {
			return usage_error("gemm", "unexpected argument '%s'", argv[i]);
		}
	}
	if (!uri || pos < 3)
		return usage_error("gemm", "%s", "needs URI M K N");
	size_t m = dims[0], k = dims[1], n = dims[2];
	struct out_file out = { .fd = -1 };
	if (fout && !out_open(&out, fout, m * n * sizeof(float)))
		return EXIT_FAIL;
	float *a = fa ? read_matrix(fa, m, k) : random_matrix(m, k);
	float *b = fb ? read_matrix(fb, k, n) : random_matrix(k, n);
	float *c = calloc(m * n, sizeof(float));
	if (!a || !b || !c) {
		if (fout)
			out_close(&out, NULL, 0);
		free(a);
		free(b);
		free(c);
		return EXIT_FAIL;
	}
	ftpu_device *dev;
	char *args[] = { argv[0], (char *)uri };
	int ret = open_arg("gemm", 2, args, &dev), code = 0;
	if (ret) {
		if (fout)
			out_close(&out, NULL, 0);
		free(a);
		free(b);
		free(c);
		return ret;
	}
	double t0 = now_s();
	ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
	double t = now_s() - t0;
	if (ret) {
		code = device_error("gemm", ret, dev);
	} else {
		struct ftpu_stats st;
		struct ftpu_device_info info;
		char rate[32];
		bool have = !ftpu_last_stats(dev, &st) && !ftpu_get_info(dev, &info);
		bool sim = have && !strcmp(info.transport, "sim");
		printf("%zu x %zu x %zu on %s: %.3f s wall clock, %s%s\n", m, k, n, uri, t,
		       mac_rate(rate, sizeof(rate), (double)m * k * n, t),
		       sim ? " (the simulator's speed, not the device's: see device time)" : "");
		if (have)
			print_stats(&st, &info, !strcmp(info.transport, "ref"));
		if (check) {
			float *want = calloc(m * n, sizeof(float));
			if (!want) {
				code = EXIT_FAIL;
			} else {
				expected_gemm(m, k, n, a, b, want);
				size_t bad = mismatches(c, want, m * n);
				printf("  check           %s", bad ? "FAILED" : "bit-exact");
				if (bad)
					printf(" (%zu of %zu differ)", bad, m * n);
				printf("\n");
				code = bad ? EXIT_FAIL : 0;
				free(want);
			}
		}
	}
	if (fout && !out_close(&out, ret ? NULL : c, m * n * sizeof(float)))
		code = EXIT_FAIL;
	ftpu_close(dev);
	free(a);
	free(b);
	free(c);
	return code;
}

/* ---- bench ----------------------------------------------------------------------------------- */

static void help_bench(void)
{
	printf("usage: %s bench URI [--quick]\n\nA GEMM sweep through ftpu_gemm: device "
	       "cycles and utilization, the\nlink roofline, host time. About a minute on "
	       "sim; --quick stops before the\nlargest shapes (512x512x512), about half "
	       "of that.\n", prog);
}

static int cmd_bench(int argc, char **argv)
{
	static const struct { size_t m, k, n; } sweep[] = {
		{ 1, 784, 128 }, { 16, 784, 128 }, { 128, 784, 128 }, { 128, 128, 10 },
		{ 128, 10, 128 }, { 256, 256, 256 }, { 512, 512, 512 },
	};
	bool quick = false;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else
			return usage_error("bench", "unexpected argument '%s'", argv[i]);
	}
	ftpu_device *dev;
	int ret = open_arg("bench", argc, argv, &dev);
	if (ret)
		return ret;
	struct ftpu_device_info info;
	ret = ftpu_get_info(dev, &info);
	if (ret) {
		int code = device_error("bench", ret, dev);
		ftpu_close(dev);
		return code;
	}
	bool is_ref = !strcmp(info.transport, "ref");
	/* on sim the whole sweep is a minute of simulation (512x512x512 half
	 * of it) before the last row: said first, on stderr beside the table */
	if (!quick && !strcmp(info.transport, "sim")) {
		fprintf(stderr, "%s bench: the sweep takes about a minute on %s (a simulation); "
			"--quick stops before\nthe largest shapes (about half a minute)\n", prog,
			argv[1]);
		fflush(stderr);
	}
	if (is_ref)
		printf("(ref: cycles are the C model's stall-free compute estimate, without the link)\n");
	printf("(util: MACs / (%ux%u x cycles), the share of the array's peak used; link roofline:\n"
	       " the best util the link's bytes allow at INFO LINK_BYTES a cycle; of roofline: util /\n"
	       " roofline, how close the run came to that bound)\n", info.rows, info.cols);
	printf("| M x K x N | cycles | util | link roofline | of roofline | bytes in | bytes out | host s |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (size_t s = 0; s < sizeof(sweep) / sizeof(sweep[0]); s++) {
		size_t m = sweep[s].m, k = sweep[s].k, n = sweep[s].n;
		if (quick && m * k * n > 16u << 20)
			break;
		float *a = random_matrix(m, k), *b = random_matrix(k, n);
		float *c = calloc(m * n, 4);
		struct ftpu_stats st;
		ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f,
				c, n);
		if (!ret)
			ret = ftpu_last_stats(dev, &st);
		free(a);
		free(b);
		free(c);
		if (ret) {
			int code = device_error("bench", ret, dev);
			ftpu_close(dev);
			return code;
		}
		/* The C model counts stall-free compute cycles only, no link time:
		 * its roofline comparison means nothing. */
		char vs[16] = "-";
		if (!is_ref && st.roofline > 0)
			snprintf(vs, sizeof(vs), "%.1f%%", 100 * st.utilization / st.roofline);
		printf("| %zux%zux%zu | %" PRIu64 " | %.1f%% | %.1f%% | %s | %" PRIu64 " | %" PRIu64
		       " | %.2f |\n", m, k, n, st.cycles, 100 * st.utilization, 100 * st.roofline,
		       vs, st.bytes_in, st.bytes_out, st.host_seconds);
		fflush(stdout);
	}
	ftpu_close(dev);
	return 0;
}

/* ---- fw: the control core's firmware ------------------------------------------------- */

static const char *const app_states[] = { "none", "accepted", "booting", "running",
					  "failed" };

static int fw_print_info(const char *uri, ftpu_device *dev)
{
	struct ftpu_fw_info f;
	int ret = ftpu_fw_info(dev, &f);
	if (ret)
		return device_error("fw info", ret, dev);
	printf("%s\n", uri);
	printf("  firmware        %u.%u.%u, ABI %u.%u, running from %s\n", f.version >> 16,
	       (f.version >> 8) & 0xffu, f.version & 0xffu, f.abi >> 16, f.abi & 0xffffu,
	       f.running ? "RAM (update)" : "the boot ROM");
	printf("  boots           %" PRIu32 ", last by %s\n", f.boots,
	       f.reset_cause == 0 ? "power-on" : f.reset_cause == 1 ? "reboot" :
	       f.reset_cause == 2 ? "watchdog" : "?");
	printf("  update slot     %s", f.app_state < 5 ? app_states[f.app_state] : "?");
	if (f.app_state)
		printf(", version %u.%u.%u, %" PRIu32 " bytes, CRC %08" PRIx32,
		       f.app_version >> 16, (f.app_version >> 8) & 0xffu, f.app_version & 0xffu,
		       f.app_size, f.app_crc);
	printf("\n");
	if (f.update_error)
		printf("  last refusal    update error %" PRIu32 "\n", f.update_error);
	printf("  firmware faults %" PRIu32, f.fw_faults);
	if (f.fw_faults)
		printf(", last code %#" PRIx32 " at pc %#" PRIx32 " (value %#" PRIx32 ")",
		       f.fault_code, f.fault_pc, f.fault_value);
	printf("\n");
	return 0;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = open_input(path);
	uint8_t *buf = NULL;
	size_t cap = 0;
	*len = 0;
	if (!f) {
		errno = 0; /* the reason is in ftpu_last_error(NULL) */
		return NULL;
	}
	for (;;) {
		if (*len == cap) {
			uint8_t *p = cap < (1u << 24) ? realloc(buf, cap ? 2 * cap : 4096) : NULL;
			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
			cap = cap ? 2 * cap : 4096;
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void help_fw(void)
{
	printf("usage: %s fw info URI | fw selftest URI | fw load URI IMAGE [--no-boot]\n\n"
	       "The device's control core (docs/firmware.md):\n"
	       "  info       its firmware: version, boots, update slot, faults\n"
	       "  selftest   the firmware's self-test, run on the core\n"
	       "  load       send an update image (make firmware: build/fw/ftpu_fw_app.img);\n"
	       "             the device checks it (CRC, version, size) and boots it unless\n"
	       "             --no-boot. A refused image leaves the running firmware.\n",
	       prog);
}

static int cmd_fw(int argc, char **argv)
{
	ftpu_device *dev;
	const char *sub = argc > 1 ? argv[1] : "";
	if (argc < 2) {
		help_fw();
		return EXIT_USAGE;
	}
	bool load = !strcmp(sub, "load"), boot = true;
	if (strcmp(sub, "info") && strcmp(sub, "selftest") && !load)
		return usage_error("fw", "unknown subcommand '%s'", sub);
	int want = load ? 4 : 3;
	if (load && argc == 5 && !strcmp(argv[4], "--no-boot"))
		boot = false;
	else if (argc > want)
		return usage_error("fw", "unexpected argument '%s'", argv[want]);
	if (argc < want)
		return usage_error("fw", "%s", load ? "load needs URI IMAGE" : "needs a device URI");
	int ret = open_arg("fw", argc - 1, argv + 1, &dev);
	if (ret)
		return ret;
	if (!strcmp(sub, "info")) {
		ret = fw_print_info(argv[2], dev);
	} else if (!load) {
		bool passed;
		uint32_t ran, failed;
		ret = ftpu_fw_selftest(dev, &passed, &ran, &failed);
		if (ret) {
			ret = device_error("fw selftest", ret, dev);
		} else {
			printf("fw selftest %s: %s (tests run %#" PRIx32 ", failed %#" PRIx32
			       ": bit 0 CRC, 1 GEMM on the core, 2 RAM, 3 update image)\n",
			       argv[2], passed ? "passed" : "FAILED", ran, failed);
			ret = passed ? 0 : EXIT_FAIL;
		}
	} else {
		size_t len;
		uint8_t *img = read_file(argv[3], &len);
		if (!img) {
			fprintf(stderr, "%s fw load: cannot read '%s': %s\n", prog, argv[3],
				errno ? strerror(errno) : ftpu_last_error(NULL));
			ftpu_close(dev);
			return EXIT_FAIL;
		}
		ret = ftpu_fw_load(dev, img, len, boot);
		free(img);
		if (ret)
			ret = device_error("fw load", ret, dev);
		else
			ret = fw_print_info(argv[2], dev);
	}
	ftpu_close(dev);
	return ret;
}

/* ftpu --version, ftpu version: this command's, the library's and the
 * link protocol's versions. */
static int cmd_version(int argc, char **argv)
{
	if (argc > 1)
		return usage_error("version", "unexpected argument '%s'", argv[1]);
	unsigned v = ftpu_version(), p = ftpu_protocol_version();
	printf("ftpu %s (libftpu %u.%u.%u, link protocol %u.%u)\n", FTPU_VERSION_STRING,
	       v >> 16, (v >> 8) & 0xffu, v & 0xffu, p >> 16, p & 0xffffu);
	return 0;
}

static void help_version(void)
{
	printf("usage: %s version (or %s --version)\n\nPrints the versions of this "
	       "command, of the libftpu it runs with\nand of the link protocol that "
	       "library speaks (a device must share its major).\n", prog, prog);
}

static int help(void)
{
	printf("usage: %s COMMAND [ARGS]\n\n"
	       "  list               devices this build can open\n"
	       "  info URI           what a device reports\n"
	       "  selftest URI       known GEMMs checked bit for bit against the reference\n"
	       "  gemm URI M K N     one GEMM, random or from files, with timing and stats\n"
	       "  bench URI          a GEMM sweep as a table\n"
	       "  fw info|selftest|load URI [IMAGE]  the control core's firmware\n"
	       "  version, --version the command's, libftpu's and the protocol's versions\n\n"
	       "URI: sim (the simulated device), sim:rows=4, sim:board=NAME, ref (the C model),\n"
	       "     uart:/dev/ttyUSB1[@BAUD], xdma:/dev/xdma0, usb:... (docs/transports.md).\n"
	       "'%s COMMAND --help' for more. libftpu %u.%u.%u\n", prog, prog,
	       ftpu_version() >> 16, (ftpu_version() >> 8) & 0xff, ftpu_version() & 0xff);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
		void (*help)(void);
	} cmds[] = {
		{ "list", cmd_list, help_list }, { "info", cmd_info, help_info },
		{ "selftest", cmd_selftest, help_selftest }, { "gemm", cmd_gemm, help_gemm },
		{ "bench", cmd_bench, help_bench }, { "fw", cmd_fw, help_fw },
		{ "version", cmd_version, help_version },
	};
	if (argc < 2)
		return help(), EXIT_USAGE;
	if (is_help(argv[1]))
		return help();
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		/* --help or -h anywhere after the command (ftpu fw info --help):
		 * its usage on stdout, exit 0, nothing opened or run */
		for (int a = 2; a < argc; a++)
			if (is_help(argv[a]))
				return cmds[i].help(), 0;
		return cmds[i].fn(argc - 1, argv + 1);
	}
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}
