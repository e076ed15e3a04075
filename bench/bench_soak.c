/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_soak.c - the soak run (make soak): random GEMMs, compiled programs
 * and CONTROL requests against the simulated device for a set time, with
 * faults injected into the link between them, checking after every call
 * that its result is bit-exact with "ref" or that it failed cleanly, that
 * nothing hangs and that memory stays flat.
 *
 * The link is real: the uart transport opens a pseudo-terminal, and a
 * relay thread here moves its bytes to and from the Verilated device
 * (harness/sim_peer.h), damaging them on request: a flipped bit, dropped
 * bytes, garbage, a CONTROL RESET slipped into the host's stream (a reset
 * in the middle of a program), in either direction; and a stalled reader
 * (the device's output held back, shorter or longer than the host's
 * timeout).
 *
 * Per call: a result without an error must equal ref's bit for bit, with
 * or without a fault; an error is allowed only when a fault was applied
 * during the call, and only a link or device error (PROTOCOL, TIMEOUT,
 * DEVICE); after one, ftpu_reset() must bring the device back. A call
 * that takes longer than HANG_TIMEOUTS host timeouts counts as a hang, and
 * a watchdog ends the run (exit 3) when the loop stops moving. Violations
 * are printed and make the exit status 1; the counts are printed at the end.
 *
 *   bench_soak [--seconds S] [--seed N] [--fault-per-mille P] [--timeout-ms T]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ftpu.h"
#include "link.h"
#include "ftpu_test.h"
#include "sim_peer.h"

enum {
	HANG_TIMEOUTS = 6,   /* a call longer than this many timeouts hangs */
	WATCHDOG_S = 180,    /* the loop must move at least this often */
	MAX_DIM = 48,        /* GEMM and program sizes */
	N_PROGRAMS = 4,      /* programs compiled once, run many times */
	RESET_TRIES = 3,
};

/* ---- faults ------------------------------------------------------------------ */

enum fault_kind {
	F_NONE,
	F_H2D_FLIP, F_H2D_DROP, F_H2D_GARBAGE, F_H2D_GAP_GARBAGE, F_H2D_RESET,
	F_D2H_FLIP, F_D2H_DROP, F_D2H_GARBAGE, F_D2H_STALL_SHORT, F_D2H_STALL_LONG,
	F_COUNT
};

static const char *const fault_names[F_COUNT] = {
	"none",
	"host->device bit flip", "host->device bytes dropped", "host->device garbage",
	"host->device garbage at a write",
	"host->device RESET frame", "device->host bit flip", "device->host bytes dropped",
	"device->host garbage", "reader stalled < timeout", "reader stalled > timeout",
};

/* The one fault armed for the current call, under relay.mu. */
struct fault {
	enum fault_kind kind;
	uint64_t at;   /* stream offset (in its direction) where it strikes */
	unsigned size; /* bytes dropped or added */
	bool applied;
};

struct relay {
	pthread_t thread;
	pthread_mutex_t mu;
	struct sim_peer *peer;
	int master;
	atomic_bool stop;
	struct fault f;
	uint64_t h2d, d2h;   /* bytes seen in each direction */
	unsigned stall_ms;   /* long stall: the host timeout x 3/2 */
	struct rng r;
	uint8_t pending[1 << 16]; /* device -> host bytes not yet written */
	size_t pending_len;
	double stall_until;  /* peer_now_ms() before which nothing goes out */
};

static void put_random(struct rng *r, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rng_u32(r);
}

/*
 * Applies the armed fault to the n bytes at stream offset *pos of one
 * direction (h2d: host -> device), writing the damaged bytes to out
 * (room for n + 128). Returns the bytes in out.
 */
static size_t damage(struct relay *y, bool h2d, const uint8_t *in, size_t n, uint8_t *out,
		     uint64_t *pos)
{
	struct fault *f = &y->f;
	uint64_t start = *pos;
	*pos += n;
	bool mine = f->kind != F_NONE && !f->applied &&
		    ((f->kind <= F_H2D_RESET) == h2d) && f->at >= start && f->at < start + n;
	if (!mine) {
		memcpy(out, in, n);
		return n;
	}
	size_t i = (size_t)(f->at - start), len = 0;
	f->applied = true;
	switch (f->kind) {
	case F_H2D_FLIP:
	case F_D2H_FLIP:
		memcpy(out, in, n);
		out[i] ^= (uint8_t)(1u << rng_below(&y->r, 8));
		return n;
	case F_H2D_DROP:
	case F_D2H_DROP: {
		size_t drop = f->size < n - i ? f->size : n - i;
		memcpy(out, in, i);
		memcpy(out + i, in + i + drop, n - i - drop);
		return n - drop;
	}
	case F_H2D_GARBAGE:
	case F_D2H_GARBAGE:
		memcpy(out, in, i);
		put_random(&y->r, out + i, f->size);
		memcpy(out + i + f->size, in + i, n - i);
		return n + f->size;
	case F_H2D_GAP_GARBAGE:
		/* At the start of the write it falls in: the host writes a frame
		 * in one piece, so this is usually between two frames, where the
		 * device's receiver skips it. */
		put_random(&y->r, out, f->size);
		out[0] = 'F'; /* a false start of a SYNC */
		memcpy(out + f->size, in, n);
		return n + f->size;
	case F_H2D_RESET: {
		/* At the start of the write it falls in, as above. */
		uint32_t op = FTPU_LINK_OP_RESET;
		int fl = ftpu_link_encode(FTPU_LINK_CONTROL, 0x7777, 0, &op, 1, out, 128);
		len = fl > 0 ? (size_t)fl : 0;
		memcpy(out + len, in, n);
		return len + n;
	}
	case F_D2H_STALL_SHORT:
	case F_D2H_STALL_LONG:
		y->stall_until = peer_now_ms() + (f->kind == F_D2H_STALL_LONG ? y->stall_ms
									    : y->stall_ms / 6);
		memcpy(out, in, n);
		return n;
	default:
		memcpy(out, in, n);
		return n;
	}
}

static void *relay_main(void *arg)
{
	struct relay *y = arg;
	static uint8_t in[4096], out[4096 + 128];

	while (!atomic_load(&y->stop)) {
		struct pollfd pfd = { .fd = y->master, .events = POLLIN };
		bool held = peer_now_ms() < y->stall_until;
		if (y->pending_len && !held)
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 1) < 0 && errno != EINTR)
			break;
		if (pfd.revents & POLLIN) {
			ssize_t n = read(y->master, in, sizeof(in));
			if (n > 0) {
				pthread_mutex_lock(&y->mu);
				size_t m = damage(y, true, in, (size_t)n, out, &y->h2d);
				pthread_mutex_unlock(&y->mu);
				if (m && sim_peer_write(y->peer, out, m))
					break;
			}
		}
		held = peer_now_ms() < y->stall_until;
		if (!held && y->pending_len < sizeof(y->pending) - sizeof(out)) {
			long n = sim_peer_read(y->peer, in, sizeof(in), 0);
			if (n < 0)
				break;
			if (n > 0) {
				pthread_mutex_lock(&y->mu);
				size_t m = damage(y, false, in, (size_t)n, out, &y->d2h);
				pthread_mutex_unlock(&y->mu);
				memcpy(y->pending + y->pending_len, out, m);
				y->pending_len += m;
			}
		}
		held = peer_now_ms() < y->stall_until;
		if (y->pending_len && !held) {
			ssize_t w = write(y->master, y->pending, y->pending_len);
			if (w > 0) {
				memmove(y->pending, y->pending + w, y->pending_len - (size_t)w);
				y->pending_len -= (size_t)w;
			}
		}
	}
	return NULL;
}

/* ---- the run ------------------------------------------------------------------- */

enum op_kind { OP_GEMM, OP_PROGRAM, OP_CONTROL, OP_RESET, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "GEMM", "program run", "CONTROL request",
						"reset" };

struct counts {
	uint64_t ops[OP_COUNT], exact[OP_COUNT];
	uint64_t armed[F_COUNT], applied[F_COUNT], ok_after[F_COUNT], err_after[F_COUNT];
	uint64_t status[16]; /* -status of the clean errors */
	uint64_t late_errors; /* in the call after a struck one that succeeded */
	uint64_t resets_needed, reset_retries, reopens, violations;
	uint64_t macs;
	double max_call_s, max_call_fault_s;
};

static struct counts cnt;
static atomic_ulong heartbeat;
static const char *volatile watch_what = "start";

static void *watchdog_main(void *arg)
{
	(void)arg;
	unsigned long last = ~0ul;
	for (;;) {
		unsigned long now = atomic_load(&heartbeat);
		if (now == last) {
			fprintf(stderr, "soak: HANG: no progress in %d s during %s\n", WATCHDOG_S,
				watch_what);
			fflush(NULL);
			_exit(3);
		}
		last = now;
		sleep(WATCHDOG_S);
	}
	return NULL;
}

/* The last calls before the current one, printed with a violation. */
enum { HISTORY = 6 };
struct past_call {
	char desc[128];
	enum fault_kind fault;
	bool struck;
	int ret;
	double seconds;
};
static struct past_call history[HISTORY];
static uint64_t history_n;

static void remember(const char *desc, enum fault_kind fk, bool struck, int ret, double s)
{
	struct past_call *c = &history[history_n++ % HISTORY];
	snprintf(c->desc, sizeof(c->desc), "%s", desc);
	c->fault = fk;
	c->struck = struck;
	c->ret = ret;
	c->seconds = s;
}

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;
	cnt.violations++;
	fputs("soak: VIOLATION: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	uint64_t from = history_n > HISTORY ? history_n - HISTORY : 0;
	for (uint64_t i = from; i < history_n; i++) {
		const struct past_call *c = &history[i % HISTORY];
		printf("  before: %s, fault %s%s, %s, %.2f s\n", c->desc, fault_names[c->fault],
		       c->fault ? (c->struck ? " (struck)" : " (did not strike)") : "",
		       c->ret ? ftpu_strerror(c->ret) : "ok", c->seconds);
	}
	fflush(stdout);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

/* GEMM operands: moderate bf16 values with a few specials, widened. */
static float *operand(struct rng *r, size_t n)
{
	float *m = malloc(n * sizeof(float) + 1);
	for (size_t i = 0; m && i < n; i++) {
		uint32_t bits = (uint32_t)rng_bf16_operand(r, 10) << 16;
		if (rng_below(r, 8) == 0)
			bits |= rng_u32(r) & 0xffff; /* not representable: rounded on the device */
		memcpy(&m[i], &bits, 4);
	}
	return m;
}

struct program_pair {
	ftpu_program *dev, *ref;
	size_t batch, in_cols, out_cols[2];
	size_t n_out;
	bool compiled;
};

/* A random graph: x (batch x k0) @ w1, optional bias + ReLU, optional second
 * matmul; outputs the last layer (and sometimes the first). */
static ftpu_graph *random_graph(struct rng *r, struct program_pair *pp)
{
	ftpu_graph *g = NULL;
	if (ftpu_graph_create(&g))
		return NULL;
	size_t b = 1 + rng_below(r, MAX_DIM), k0 = 1 + rng_below(r, MAX_DIM);
	size_t n1 = 1 + rng_below(r, MAX_DIM), n2 = 1 + rng_below(r, MAX_DIM);
	float *w1 = operand(r, k0 * n1), *w2 = operand(r, n1 * n2), *b1 = operand(r, n1);
	ftpu_tensor x = ftpu_graph_input(g, b, k0, "x");
	ftpu_tensor h = ftpu_graph_matmul(g, x, ftpu_graph_constant(g, k0, n1, w1, n1, "w1"));
	if (rng_below(r, 2))
		h = ftpu_graph_bias_add(g, h, ftpu_graph_constant(g, 1, n1, b1, n1, "b1"));
	if (rng_below(r, 2))
		h = ftpu_graph_relu(g, h);
	pp->batch = b;
	pp->in_cols = k0;
	pp->n_out = 0;
	if (rng_below(r, 2)) {
		ftpu_tensor y = ftpu_graph_matmul(g, h, ftpu_graph_constant(g, n1, n2, w2, n2, "w2"));
		if (rng_below(r, 2)) {
			ftpu_graph_output(g, h);
			pp->out_cols[pp->n_out++] = n1;
		}
		ftpu_graph_output(g, y);
		pp->out_cols[pp->n_out++] = n2;
	} else {
		ftpu_graph_output(g, h);
		pp->out_cols[pp->n_out++] = n1;
	}
	free(w1);
	free(w2);
	free(b1);
	return g;
}

static bool same_bits(const float *a, const float *b, size_t n, size_t *first)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(&a[i], &b[i], 4)) {
			*first = i;
			return false;
		}
	return true;
}

struct soak {
	struct relay y;
	struct rng r;
	ftpu_device *dev, *ref;
	char uri[PATH_MAX + 8];
	int slave;
	unsigned timeout_ms;
	struct ftpu_device_info info;
	bool has_fw;
	struct program_pair progs[N_PROGRAMS];
};

/* One random call; *desc says what it was. Returns its status; a status of
 * 0 with a result that differs from ref is a violation reported here. */
static int one_call(struct soak *s, enum op_kind op, char *desc, size_t cap)
{
	struct rng *r = &s->r;
	int ret = FTPU_OK;
	size_t at;

	switch (op) {
	case OP_GEMM: {
		size_t m = 1 + rng_below(r, MAX_DIM), n = 1 + rng_below(r, MAX_DIM),
		       k = 1 + rng_below(r, MAX_DIM);
		enum ftpu_transpose ta = rng_below(r, 2) ? FTPU_TRANS : FTPU_NO_TRANS;
		enum ftpu_transpose tb = rng_below(r, 2) ? FTPU_TRANS : FTPU_NO_TRANS;
		float beta = rng_below(r, 3) ? 0.0f : 1.0f, alpha = rng_below(r, 4) ? 1.0f : 0.5f;
		float *a = operand(r, m * k), *b = operand(r, k * n), *c = operand(r, m * n);
		float *want = malloc(m * n * 4 + 1);
		memcpy(want, c, m * n * 4);
		snprintf(desc, cap, "GEMM %zux%zux%zu%s%s", m, n, k, ta ? " A^T" : "",
			 tb ? " B^T" : "");
		int rr = ftpu_gemm(s->ref, ta, tb, m, n, k, alpha, a, ta ? m : k, b, tb ? k : n,
				   beta, want, n);
		if (rr) {
			violation("ref %s: %s", desc, ftpu_last_error(s->ref));
		} else {
			ret = ftpu_gemm(s->dev, ta, tb, m, n, k, alpha, a, ta ? m : k, b,
					tb ? k : n, beta, c, n);
			if (!ret && !same_bits(c, want, m * n, &at))
				violation("%s: C[%zu] = %a, ref %a", desc, at, (double)c[at],
					  (double)want[at]);
			else if (!ret)
				cnt.exact[op]++;
			cnt.macs += m * n * k;
		}
		free(a);
		free(b);
		free(c);
		free(want);
		break;
	}
	case OP_PROGRAM: {
		struct program_pair *pp = &s->progs[rng_below(r, N_PROGRAMS)];
		if (!pp->compiled) {
			ftpu_graph *g = random_graph(r, pp);
			snprintf(desc, cap, "compile");
			if (!g || ftpu_compile(s->ref, g, &pp->ref)) {
				violation("compile on ref: %s", ftpu_last_error(s->ref));
				ftpu_graph_destroy(g);
				return FTPU_OK;
			}
			/* Compiling asks the device for INFO: a fault may strike it,
			 * and its error is judged as any call's. */
			ret = ftpu_compile(s->dev, g, &pp->dev);
			ftpu_graph_destroy(g);
			if (ret) {
				ftpu_program_free(pp->ref);
				pp->ref = NULL;
				return ret;
			}
			pp->compiled = true;
		}
		float *x = operand(r, pp->batch * pp->in_cols);
		float *got[2] = { NULL, NULL }, *want[2] = { NULL, NULL };
		for (size_t j = 0; j < pp->n_out; j++) {
			got[j] = calloc(pp->batch * pp->out_cols[j], 4);
			want[j] = calloc(pp->batch * pp->out_cols[j], 4);
		}
		const float *in[1] = { x };
		snprintf(desc, cap, "program %zux%zu -> %zu output(s)", pp->batch, pp->in_cols,
			 pp->n_out);
		if (ftpu_run(s->ref, pp->ref, in, want, NULL)) {
			violation("ref %s: %s", desc, ftpu_last_error(s->ref));
		} else {
			ret = ftpu_run(s->dev, pp->dev, in, got, NULL);
			bool same = true;
			for (size_t j = 0; !ret && j < pp->n_out && same; j++)
				if (!same_bits(got[j], want[j], pp->batch * pp->out_cols[j], &at)) {
					violation("%s: output %zu [%zu] = %a, ref %a", desc, j, at,
						  (double)got[j][at], (double)want[j][at]);
					same = false;
				}
			if (!ret && same)
				cnt.exact[op]++;
		}
		free(x);
		for (size_t j = 0; j < 2; j++) {
			free(got[j]);
			free(want[j]);
		}
		break;
	}
	case OP_CONTROL: {
		struct ftpu_device_info info;
		struct ftpu_fw_info fw;
		unsigned which = rng_below(r, s->has_fw ? 2 : 1);
		snprintf(desc, cap, "CONTROL %s", which ? "FW_INFO" : "INFO");
		if (which)
			ret = ftpu_fw_info(s->dev, &fw);
		else if (!(ret = ftpu_get_info(s->dev, &info))) {
			if (memcmp(&info, &s->info, sizeof(info)))
				violation("INFO differs from the first INFO");
			else
				cnt.exact[op]++;
		}
		if (which && !ret)
			cnt.exact[op]++;
		break;
	}
	case OP_RESET:
		snprintf(desc, cap, "CONTROL RESET");
		ret = ftpu_reset(s->dev);
		if (!ret)
			cnt.exact[op]++;
		break;
	default:
		break;
	}
	return ret;
}

static void arm(struct soak *s, enum fault_kind k)
{
	struct relay *y = &s->y;
	pthread_mutex_lock(&y->mu);
	y->f.kind = k;
	y->f.applied = false;
	y->f.size = k == F_H2D_GARBAGE || k == F_H2D_GAP_GARBAGE || k == F_D2H_GARBAGE
			    ? 1 + rng_below(&s->r, 96)
							       : 1 + rng_below(&s->r, 8);
	/* Somewhere in the next call's first few kilobytes (a call may end
	 * sooner: then the fault never strikes). */
	uint64_t base = k <= F_H2D_RESET ? y->h2d : y->d2h;
	y->f.at = base + rng_below(&s->r, k <= F_H2D_RESET ? 6000 : 1500);
	pthread_mutex_unlock(&y->mu);
	cnt.armed[k]++;
}

/* Disarms and says whether the fault struck; waits out a stall. */
static bool disarm(struct soak *s)
{
	struct relay *y = &s->y;
	pthread_mutex_lock(&y->mu);
	bool applied = y->f.applied;
	y->f.kind = F_NONE;
	y->stall_until = 0;
	pthread_mutex_unlock(&y->mu);
	return applied;
}

static int open_dev(struct soak *s)
{
	int ret = ftpu_open(s->uri, &s->dev);
	if (!ret)
		ret = ftpu_set_timeout(s->dev, s->timeout_ms);
	if (ret)
		fprintf(stderr, "soak: open %s: %s: %s\n", s->uri, ftpu_strerror(ret),
			ftpu_last_error(NULL));
	return ret;
}

static void recover(struct soak *s, const char *desc)
{
	cnt.resets_needed++;
	for (int t = 0; t < RESET_TRIES; t++) {
		if (!ftpu_reset(s->dev))
			return;
		cnt.reset_retries++;
	}
	violation("after %s: %d resets did not recover: %s", desc, RESET_TRIES,
		  ftpu_last_error(s->dev));
	ftpu_close(s->dev);
	s->dev = NULL;
	cnt.reopens++; /* the programs stay valid: the same device sizes */
	if (open_dev(s)) {
		fprintf(stderr, "soak: cannot reopen the device\n");
		exit(1);
	}
}

static int usage(FILE *to)
{
	fprintf(to, "usage: bench_soak [--seconds S] [--seed N] [--fault-per-mille P] "
			"[--timeout-ms T]\n");
	return 2;
}

static bool parse_num(const char *s, unsigned long long *v)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

int main(int argc, char **argv)
{
	unsigned long long seconds = 60, seed = 1, per_mille = 300, timeout_ms = 4000, v;
	for (int i = 1; i < argc; i++) {
		unsigned long long *dst = !strcmp(argv[i], "--seconds")	  ? &seconds
					  : !strcmp(argv[i], "--seed")		  ? &seed
					  : !strcmp(argv[i], "--fault-per-mille") ? &per_mille
					  : !strcmp(argv[i], "--timeout-ms")	  ? &timeout_ms
										  : NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout), 0;
		if (!dst || i + 1 >= argc || !parse_num(argv[i + 1], &v) ||
		    (dst == &per_mille && v > 1000) || (dst == &timeout_ms && (v < 100 || v > 60000)))
			return usage(stderr);
		*dst = v;
		i++;
	}

	static struct soak s;
	s.r.s = seed;
	s.y.r.s = seed ^ 0x50a4;
	s.timeout_ms = (unsigned)timeout_ms;
	s.y.stall_ms = s.timeout_ms * 3 / 2;
	pthread_mutex_init(&s.y.mu, NULL);

	/* The pty: the host opens the slave, the relay serves the master. */
	char path[PATH_MAX];
	struct termios t;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, path, sizeof(path))) {
		perror("soak: pty");
		return 1;
	}
	s.slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s.slave < 0 || tcgetattr(s.slave, &t)) {
		perror("soak: pty slave");
		return 1;
	}
	cfmakeraw(&t);
	tcsetattr(s.slave, TCSANOW, &t);
	s.y.master = master;
	s.y.peer = sim_peer_start(16);
	if (!s.y.peer) {
		fprintf(stderr, "soak: the simulated device did not start\n");
		return 1;
	}
	pthread_create(&s.y.thread, NULL, relay_main, &s.y);
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog_main, NULL);
	pthread_detach(wd);

	snprintf(s.uri, sizeof(s.uri), "uart:%s", path);
	if (open_dev(&s) || ftpu_open("ref", &s.ref))
		return 1;
	struct ftpu_fw_info fw;
	if (ftpu_get_info(s.dev, &s.info)) {
		fprintf(stderr, "soak: INFO: %s\n", ftpu_last_error(s.dev));
		return 1;
	}
	s.has_fw = ftpu_fw_info(s.dev, &fw) == FTPU_OK;
	printf("soak: %llu s on %s (the Verilated %ux%u device behind a pty), seed %llu, "
	       "a fault before %.1f%% of calls, host timeout %u ms\n",
	       seconds, s.uri, s.info.rows, s.info.cols, seed, per_mille / 10.0, s.timeout_ms);
	fflush(stdout);

	double t0 = peer_now_ms() / 1e3, last_report = t0;
	long rss_start = -1, rss_max = 0;
	uint64_t calls = 0;
	bool late = false; /* a fault struck the last call, which succeeded */
	char desc[128];
	while (peer_now_ms() / 1e3 - t0 < (double)seconds) {
		enum op_kind op = (enum op_kind)rng_below(&s.r, 20);
		op = op < 9 ? OP_GEMM : op < 16 ? OP_PROGRAM : op < 19 ? OP_CONTROL : OP_RESET;
		enum fault_kind fk = F_NONE;
		if (rng_below(&s.r, 1000) < per_mille)
			fk = (enum fault_kind)(1 + rng_below(&s.r, F_COUNT - 1));
		if (fk)
			arm(&s, fk);
		watch_what = op_names[op];
		double c0 = peer_now_ms();
		int ret = one_call(&s, op, desc, sizeof(desc));
		double took = (peer_now_ms() - c0) / 1e3;
		bool applied = fk && disarm(&s);
		/* Damage at the end of a call's bytes can be answered after it
		 * (the device's ERROR for garbage behind the last frame): the next
		 * call may fail of it. */
		bool excused = applied || late;
		late = applied && ret == FTPU_OK;
		cnt.ops[op]++;
		calls++;
		atomic_fetch_add(&heartbeat, 1);
		if (applied) {
			cnt.applied[fk]++;
			if (took > cnt.max_call_fault_s)
				cnt.max_call_fault_s = took;
		} else if (took > cnt.max_call_s) {
			cnt.max_call_s = took;
		}
		if (took > HANG_TIMEOUTS * s.timeout_ms / 1e3)
			violation("%s took %.1f s (fault: %s)", desc, took, fault_names[fk]);
		if (ret == FTPU_OK) {
			if (applied)
				cnt.ok_after[fk]++;
		} else {
			bool clean = ret == FTPU_ERR_PROTOCOL || ret == FTPU_ERR_TIMEOUT ||
				     ret == FTPU_ERR_DEVICE;
			if (!excused)
				violation("%s failed without a fault: %s: %s", desc,
					  ftpu_strerror(ret), ftpu_last_error(s.dev));
			else if (!clean)
				violation("%s after a %s: %s (not a link or device error): %s",
					  desc, fault_names[fk], ftpu_strerror(ret),
					  ftpu_last_error(s.dev));
			else if (applied)
				cnt.err_after[fk]++;
			else
				cnt.late_errors++;
			if (-ret < 16)
				cnt.status[-ret]++;
			watch_what = "recovery";
			recover(&s, desc);
		}
		remember(desc, fk, applied, ret, took);
		if (calls == 50)
			rss_start = rss_kib();
		long rss = rss_kib();
		if (rss > rss_max)
			rss_max = rss;
		double now = peer_now_ms() / 1e3;
		if (now - last_report >= 60) {
			last_report = now;
			printf("soak: %.0f s, %" PRIu64 " calls, %" PRIu64 " violations, RSS %ld KiB\n",
			       now - t0, calls, cnt.violations, rss);
			fflush(stdout);
		}
	}
	double elapsed = peer_now_ms() / 1e3 - t0;
	long rss_end = rss_kib();

	printf("\nsoak: %" PRIu64 " calls in %.0f s (%.1f per s), %.1f M MACs\n", calls, elapsed,
	       (double)calls / elapsed, (double)cnt.macs / 1e6);
	printf("  %-28s %10s %10s\n", "call", "made", "exact");
	for (int i = 0; i < OP_COUNT; i++)
		printf("  %-28s %10" PRIu64 " %10" PRIu64 "\n", op_names[i], cnt.ops[i],
		       cnt.exact[i]);
	printf("  %-33s %8s %8s %8s %8s\n", "fault", "armed", "struck", "then ok", "clean err");
	uint64_t struck = 0;
	for (int k = 1; k < F_COUNT; k++) {
		printf("  %-33s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
		       fault_names[k], cnt.armed[k], cnt.applied[k], cnt.ok_after[k],
		       cnt.err_after[k]);
		struck += cnt.applied[k];
	}
	printf("  errors by status:");
	for (int i = 1; i < 16; i++)
		if (cnt.status[i])
			printf(" %s %" PRIu64, ftpu_strerror(-i), cnt.status[i]);
	printf("\n  errors in the call after a struck fault that had no effect: %" PRIu64 "\n",
	       cnt.late_errors);
	printf("  faults struck %" PRIu64 ", resets after an error %" PRIu64
	       " (retries %" PRIu64 ", reopens %" PRIu64 ")\n",
	       struck, cnt.resets_needed, cnt.reset_retries, cnt.reopens);
	printf("  longest call %.2f s without a fault, %.2f s with one (hang bound %.1f s)\n",
	       cnt.max_call_s, cnt.max_call_fault_s, HANG_TIMEOUTS * s.timeout_ms / 1e3);
	printf("  RSS %ld KiB after 50 calls, %ld KiB at the end (max %ld): %+ld KiB\n",
	       rss_start, rss_end, rss_max, rss_start >= 0 ? rss_end - rss_start : 0);
	if (rss_start >= 0 && rss_end - rss_start > 16 * 1024)
		violation("RSS grew by %ld KiB", rss_end - rss_start);
	printf("  violations %" PRIu64 "\n", cnt.violations);

	for (size_t i = 0; i < N_PROGRAMS; i++) {
		ftpu_program_free(s.progs[i].dev);
		ftpu_program_free(s.progs[i].ref);
	}
	ftpu_close(s.dev);
	ftpu_close(s.ref);
	atomic_store(&s.y.stop, true);
	pthread_join(s.y.thread, NULL);
	sim_peer_stop(s.y.peer);
	close(master);
	close(s.slave);
	return cnt.violations ? 1 : 0;
}
