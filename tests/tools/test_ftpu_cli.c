/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ftpu_cli.c - the ftpu command (tools/ftpu.c) given bad arguments and
 * hostile files, run as a user runs it (the built binary, on ref): sizes
 * parsed strictly, outputs checked before the GEMM runs and not clobbered
 * when it fails, FIFOs refused without blocking, firmware ops on a device
 * without a control core "not supported". Every run is bounded by
 * timeout(1), so a hang fails the case instead of the suite.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu.h"

static char ftpu_bin[PATH_MAX];
static char dir[64];
static char out[16384];

/* Runs `ftpu ARGS REDIR` (args already quoted for the shell), what reaches
 * its stdout into out; returns its exit status (124: timed out). */
static int run_for(const char *args, const char *redir, int seconds)
{
	char cmd[PATH_MAX + 1024];
	snprintf(cmd, sizeof(cmd), "timeout %d '%s' %s %s", seconds, ftpu_bin, args, redir);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t got = fread(out, 1, sizeof(out) - 1, f);
	out[got] = '\0';
	int st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int run_redir(const char *args, const char *redir)
{
	return run_for(args, redir, 30);
}

/* ftpu ARGS, its stdout and stderr into out. */
static int run(const char *args)
{
	return run_redir(args, "2>&1");
}

static void expect(const char *args, int rc, const char *text)
{
	int got = run(args);
	if (got != rc || !strstr(out, text))
		fail_msg("ftpu %s: exit %d (want %d), output without \"%s\":\n%s", args, got, rc,
			 text, out);
}

static int setup(void **state)
{
	(void)state;
	ssize_t n = readlink("/proc/self/exe", ftpu_bin, sizeof(ftpu_bin) - 1);
	if (n <= 0)
		return -1;
	ftpu_bin[n] = '\0';
	*strrchr(ftpu_bin, '/') = '\0'; /* build/tests/tools */
	strncat(ftpu_bin, "/../../tools/ftpu", sizeof(ftpu_bin) - strlen(ftpu_bin) - 1);
	snprintf(dir, sizeof(dir), "/tmp/ftpu-cli-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char path[128];
	snprintf(path, sizeof(path), "%s/fifo", dir);
	return mkfifo(path, 0600);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_sizes_strict(void **state)
{
	(void)state;
	expect("gemm ref -1 1 1", 2, "'-1' is not a size");
	expect("gemm ref 1 -1 1", 2, "'-1' is not a size");
	expect("gemm ref ' 4' 4 4", 2, "' 4' is not a size");
	expect("gemm ref 4 '4 ' 4", 2, "'4 ' is not a size");
	expect("gemm ref 4 4 0x4", 2, "'0x4' is not a size");
	expect("gemm ref 4 4 1048577", 2, "not a size in 1..1048576");
	expect("gemm ref 4 4 4", 0, "device cycles");
}

static void test_output_checked_first(void **state)
{
	(void)state;
	char args[256], path[128];

	/* refused before the GEMM runs: nothing computed, nothing printed */
	expect("gemm ref 4 4 4 --out /dev/full", 1, "not a regular file");
	assert_null(strstr(out, "device cycles"));
	snprintf(args, sizeof(args), "gemm ref 4 4 4 --out %s/no/such/dir", dir);
	expect(args, 1, "No such file or directory");
	assert_null(strstr(out, "device cycles"));

	/* a failed run keeps the file it would have replaced */
	snprintf(path, sizeof(path), "%s/kept", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("kept\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "gemm nosuch: 4 4 4 --out %s", path);
	expect(args, 1, "unknown device URI");
	char buf[16] = "";
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "kept\n");

	/* and a good one writes m x n fp32 values */
	snprintf(args, sizeof(args), "gemm ref 4 4 4 --out %s", path);
	expect(args, 0, "device cycles");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4 * 4 * 4);
}

static void test_fifo_refused(void **state)
{
	(void)state;
	char args[256];
	snprintf(args, sizeof(args), "gemm ref 4 4 4 --a %s/fifo", dir);
	expect(args, 1, "not a regular file (a FIFO)");
	snprintf(args, sizeof(args), "fw load ref %s/fifo", dir);
	expect(args, 1, "not a regular file (a FIFO)");
}

static void test_firmware_unsupported(void **state)
{
	(void)state;
	char args[256], path[128];
	snprintf(path, sizeof(path), "%s/image", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 256; i++)
		fputc(i, f);
	fclose(f);
	snprintf(args, sizeof(args), "fw load ref %s", path);
	expect(args, 1, "not supported");
	expect("fw info ref", 1, "not supported");
}

/* Every command and fw subcommand takes --help and -h, wherever they stand:
 * its usage on stdout, nothing on stderr, exit 0, nothing opened or run
 * (bench sim would take a minute, fw info ref fails). */
static void test_help_everywhere(void **state)
{
	(void)state;
	static const char *const cmds[] = {
		"list", "info", "info ref", "selftest", "selftest ref", "gemm",
		"gemm ref 4 4 4", "bench", "bench sim", "bench sim --quick", "fw",
		"fw info", "fw info ref", "fw selftest ref", "fw load ref image",
		"fw load ref image --no-boot", "version",
	};
	static const char *const flags[] = { "--help", "-h" };
	char args[128], want[64];
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		for (size_t f = 0; f < 2; f++) {
			snprintf(args, sizeof(args), "%s %s", cmds[c], flags[f]);
			snprintf(want, sizeof(want), "usage: ftpu %.*s", (int)strcspn(cmds[c], " "),
				 cmds[c]);
			int rc = run_redir(args, "2>/dev/null");
			if (rc != 0 || strncmp(out, want, strlen(want)))
				fail_msg("ftpu %s: exit %d (want 0), stdout not \"%s...\":\n%s", args,
					 rc, want, out);
			rc = run_redir(args, "2>&1 >/dev/null");
			if (out[0])
				fail_msg("ftpu %s: wrote to stderr:\n%s", args, out);
		}
	}
}

/* ftpu --version and ftpu version: the library's version and the link
 * protocol it speaks, the one a device reports in INFO (ref's). */
static void test_version(void **state)
{
	(void)state;
	char want[128];
	expect("info ref", 0, "  protocol        ");
	/* the C model's default device has the vector unit (INFO FEATURES) */
	assert_non_null(strstr(out, "  vector unit     yes\n"));
	/* and the simulated device's word port (INFO LINK_BYTES) */
	assert_non_null(strstr(out, "  link            4 bytes a cycle each way\n"));
	assert_non_null(strstr(out, "  dispatch        overlapped units\n"));
	unsigned major, minor;
	assert_int_equal(sscanf(strstr(out, "  protocol        "), "  protocol %u.%u", &major,
				&minor), 2);
	snprintf(want, sizeof(want), "ftpu %s (libftpu %s, link protocol %u.%u)\n",
		 FTPU_VERSION_STRING, FTPU_VERSION_STRING, major, minor);
	expect("--version", 0, want);
	assert_string_equal(out, want);
	expect("version", 0, want);
	assert_string_equal(out, want);
	/* the iCEBreaker's configuration is the small profile (INFO FEATURES IN_ORDER) */
	expect("info ref:board=icebreaker", 0, "  dispatch        in order (small profile)\n");
	expect("version extra", 2, "unexpected argument 'extra'");
	expect("--help", 0, "--version");
}

/* ftpu list: every simulated device this build links (the ftpu command
 * links all, the boards among them) and ref, each answering INFO; no
 * board devices (FTPU_DEV_DIR an empty directory). */
static void test_list_builtin(void **state)
{
	(void)state;
	static const struct { const char *uri, *link; } want[] = {
		{ "sim", "sim" }, { "sim:rows=4", "sim" }, { "sim:board=icebreaker", "sim" },
		{ "sim:board=tangnano20k", "sim" }, { "ref", "ref" },
	};
	char empty[128], line[96];
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	assert_int_equal(mkdir(empty, 0700), 0);
	assert_int_equal(setenv("FTPU_DEV_DIR", empty, 1), 0);
	int rc = run("list");
	unsetenv("FTPU_DEV_DIR");
	if (rc != 0)
		fail_msg("ftpu list: exit %d:\n%s", rc, out);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		/* "URI  link  RxC ...": the URI padded to the widest one */
		const char *at = NULL;
		for (const char *p = out; (p = strstr(p, want[i].uri)); p++)
			if ((p == out || p[-1] == '\n') && p[strlen(want[i].uri)] == ' ') {
				at = p;
				break;
			}
		if (!at)
			fail_msg("ftpu list: no line for %s:\n%s", want[i].uri, out);
		if (sscanf(at + strlen(want[i].uri), " %95s", line) != 1 ||
		    strcmp(line, want[i].link))
			fail_msg("ftpu list: %s does not answer as %s:\n%s", want[i].uri,
				 want[i].link, out);
	}
}

/* A number after label in out ("  utilization     10.2% ..."). */
static double stat_after(const char *label)
{
	const char *at = strstr(out, label);
	double v;
	if (!at || sscanf(at + strlen(label), " %lf", &v) != 1)
		fail_msg("no \"%s\" number in:\n%s", label, out);
	return v;
}

/* ftpu gemm's stats say what each number is, and they agree: utilization
 * = MACs / (16x16 x cycles); the link roofline is a bound, "of roofline"
 * is utilization / roofline. On ref (no link) there is no roofline. */
static void test_gemm_stats_words(void **state)
{
	(void)state;
	expect("gemm sim 32 64 32", 0, "of the array's peak: MACs / (256 per cycle x ");
	double cycles = stat_after("device cycles"), macs = stat_after("MACs");
	double util = stat_after("utilization"), roof = stat_after("link roofline");
	double of = stat_after("of roofline");
	assert_true(fabs(util - 100 * macs / (256 * cycles)) < 0.051);
	assert_true(util <= roof + 0.051);
	/* of roofline from the unrounded values: within what the 0.1% rounding
	 * of utilization and roofline leaves */
	assert_true(of >= 100 * (util - 0.05) / (roof + 0.05) - 0.05 &&
		    of <= 100 * (util + 0.05) / (roof - 0.05) + 0.05);
	assert_non_null(strstr(out, "the best utilization these link bytes allow"));
	assert_non_null(strstr(out, "how close this run came to that bound"));
	assert_non_null(strstr(out, "bound by the link, not the array"));
	expect("gemm ref 4 4 4", 0, "link roofline   - (ref has no link");
	assert_null(strstr(out, "of roofline"));
}

/* The wall-clock rate in a unit that shows it (not "0.00 GMAC/s"), and the
 * device's own rate at its clock. */
static void test_gemm_rate(void **state)
{
	(void)state;
	expect("gemm sim 32 64 32", 0, " s wall clock, ");
	assert_null(strstr(out, "0.00 GMAC/s"));
	const char *r = strstr(out, " s wall clock, ");
	double v;
	char unit[16];
	assert_int_equal(sscanf(r, " s wall clock, %lf %15s", &v, unit), 2);
	assert_true(v >= 1 && v < 1000);
	assert_non_null(strstr(unit, "MAC/s"));
	assert_non_null(strstr(out, "the simulator's speed"));
	expect("gemm sim 32 64 32", 0, "  device time     ");
	assert_non_null(strstr(strstr(out, "  device time     "), "MHz clock: "));
}

/* ftpu bench sim says first that it takes a minute and that --quick
 * exists (stopped after 3 s here); ref, fast, does not. */
static void test_bench_says_slow(void **state)
{
	(void)state;
	int rc = run_for("bench sim", "2>&1 >/dev/null", 3);
	if (!strstr(out, "takes about a minute on sim") || !strstr(out, "--quick"))
		fail_msg("ftpu bench sim: exit %d, no early hint on stderr:\n%s", rc, out);
	expect("bench ref", 0, "| 512x512x512 |");
	assert_null(strstr(out, "about a minute"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_strict),
		cmocka_unit_test(test_output_checked_first),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_firmware_unsupported),
		cmocka_unit_test(test_help_everywhere),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_list_builtin),
		cmocka_unit_test(test_gemm_stats_words),
		cmocka_unit_test(test_gemm_rate),
		cmocka_unit_test(test_bench_says_slow),
	};
	return cmocka_run_group_tests_name("ftpu command", tests, setup, teardown);
}
