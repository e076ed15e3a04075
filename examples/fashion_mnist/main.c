/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - `make demo`: the Fashion-MNIST MLP of the TPU tutorials
 * (Flatten 28x28 -> Dense 128 ReLU -> Dense 10, softmax cross-entropy,
 * Adam 1e-3, batch 128) trained in C on an ftpu device: the whole step on
 * the device (ftpu_train_*), or with --mode gemm every matmul through
 * ftpu_gemm.
 *
 *   build/examples/fashion_mnist/fashion_mnist [--backend sim|ref|cpu] ...
 *   (--help lists the flags)
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "collective.h"
#include "idx.h"
#include "mlp.h"
#include "plot.h"

#define PROG "fashion_mnist"
#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"
/* --out when this binary is not in a build tree's examples/fashion_mnist/ */
#define FALLBACK_OUT "build/demo"
#define HIDDEN 128
#define PIXELS (28 * 28)

/*
 * Every backend trains on all 60,000 samples and tests on all 10,000 by
 * default: on sim a step of 128 is 147 k device cycles, ~2.1 s of
 * simulation, so `make demo`'s epoch takes ~17 minutes (docs/demo.md).
 * --subset and --test-subset take fewer.
 */

static const char *prog_path = PROG; /* argv[0], for the hints printed */

/*
 * --out's default: demo/ in the build directory this binary was built in
 * (BUILD/examples/fashion_mnist/fashion_mnist writes BUILD/demo, so
 * build/demo of the checkout wherever it is run from, as make demo);
 * FALLBACK_OUT under the current directory for a binary anywhere else.
 */
static const char *default_out(void)
{
	static char dir[4096];
	static const char tail[] = "/examples/fashion_mnist";
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return FALLBACK_OUT;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return FALLBACK_OUT;
	*slash = '\0';
	size_t len = strlen(exe), tl = sizeof(tail) - 1;
	if (len <= tl || strcmp(exe + len - tl, tail))
		return FALLBACK_OUT;
	exe[len - tl] = '\0';
	snprintf(dir, sizeof(dir), "%s/demo", exe);
	return dir;
}

/* path as printed: relative to the current directory when it is below it
 * (build/demo/... from the checkout), else absolute, so that it can be
 * found from wherever the program ran. */
static const char *shown_path(const char *path, char *buf, size_t len)
{
	char cwd[4096], *abs = realpath(path, NULL);
	if (!abs)
		return path;
	size_t cl = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
	if (cl && !strncmp(abs, cwd, cl) && abs[cl] == '/')
		snprintf(buf, len, "%s", abs + cl + 1);
	else
		snprintf(buf, len, "%s", abs);
	free(abs);
	return buf;
}

static const char *const class_names[IDX_CLASSES] = {
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal",      "Shirt",	  "Sneaker",  "Bag",   "Ankle boot",
};

struct options {
	const char *backend, *data, *out, *save, *eval, *mode, *split;
	const char *checkpoint, *resume;
	char *replicas_arg;       /* --replicas, split at its commas */
	const char *replicas_list; /* --replicas as given */
	const char *uris[64];
	size_t n_uris;
	size_t replicas;          /* the replicas: URIs, or MPI's ranks; 1 */
	bool backend_set;
	size_t epochs, batch, subset, test_subset; /* 0: default */
	size_t checkpoint_every, max_steps;	   /* 0: none */
	unsigned threads; /* the simulation's (sim:threads=N); 0: default */
	uint64_t seed;
	bool seed_set;
	bool write_files; /* the log and chart (MPI: rank 0 only) */
};

static void usage(FILE *f)
{
	/* clang-format off */
	fprintf(f,
"usage: " PROG " [options]\n"
"Trains the Fashion-MNIST MLP (784-128 ReLU-10, softmax cross-entropy, Adam)\n"
"with every matmul of forward and backward on an ftpu device (ftpu_gemm:\n"
"bf16 operands, fp32 accumulation); the rest on the host in fp32.\n"
"\n"
"  --backend B       sim: the Verilated device (default, slow);\n"
"                    ref: the bit-exact C model of the device (fast);\n"
"                    cpu: plain fp32 matmuls on the host, no device\n"
"  --mode M          device: the whole step on the device, weights and Adam's\n"
"                    slots kept there, the host sends batches and does the\n"
"                    softmax (the default for sim and ref);\n"
"                    gemm: every matmul through ftpu_gemm, the rest on the\n"
"                    host (the default for a device without a vector unit)\n"
"  --epochs N        passes over the training samples (default 1)\n"
"  --batch N         batch size (default 128)\n"
"  --seed N          weights and shuffling (default 1)\n"
"  --threads N       the simulation's threads with --backend sim, 1 or 2\n"
"                    (default 1: two are faster only on an idle machine\n"
"                    whose two CPUs are real cores; docs/demo.md)\n"
"  --subset N        training samples used, the first N (default: all 60000)\n"
"  --test-subset N   test samples, the first N (default: all 10000)\n"
"  --data DIR        the IDX files (default " DEFAULT_DATA ")\n"
"  --out DIR         the CSV log and the SVG chart (default %s:\n"
"                    demo/ in the build directory of this binary)\n"
"  --save FILE       write the trained weights (a versioned binary file)\n"
"  --checkpoint FILE write the whole training state there (weights, Adam's\n"
"                    moments, the position in the data, the log) at the end,\n"
"                    at --max-steps and every --checkpoint-every steps;\n"
"                    atomically: a kill never leaves a half-written file\n"
"  --checkpoint-every N  steps between checkpoints (default: only at the end)\n"
"  --resume FILE     go on from a checkpoint: the same steps on the same\n"
"                    batches as a run that never stopped, bit for bit (its\n"
"                    seed, batch and subset; --epochs may ask for more)\n"
"  --max-steps N     stop after N steps in all (counting the resumed ones)\n"
"  --replicas U,U,.. train on several devices at once (URIs: sim, ref,\n"
"                    boards), a thread each: --batch samples each, the\n"
"                    gradients summed before every update (docs/demo.md);\n"
"                    under mpirun -np N each rank is a replica on --backend\n"
"  --split batch|units  how --replicas share a step: batch (the default)\n"
"                    splits the samples and sums the gradients; units gives\n"
"                    each device the whole global batch through its share of the\n"
"                    hidden units, so only the logits cross the links\n"
"  --eval FILE       no training: load weights, report the test accuracy and\n"
"                    the confusion matrix\n"
"  --help            this text\n"
"\n"
"The full run: " PROG " --backend ref --epochs 5\n",
		default_out());
	/* clang-format on */
}

/* One line on stderr; the caller exits non-zero. */
static void error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool parse_num(const char *flag, const char *s, uint64_t min,
		      uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-' || v < min || v > max) {
		error("%s: '%s' is not a number from %llu to %llu", flag, s,
		      (unsigned long long)min, (unsigned long long)max);
		return false;
	}
	*out = v;
	return true;
}

/* 0 to go on, 1 after --help, -1 on an error (printed). */
static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){.backend = "sim",
			      .data = DEFAULT_DATA,
			      .out = default_out(),
			      .seed = 1,
			      .write_files = true};
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		char flag[64];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout);
			return 1;
		}
		if (strncmp(arg, "--", 2)) {
			error("unexpected argument '%s' (see --help)", arg);
			return -1;
		}
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		if (len >= sizeof(flag)) {
			error("unknown option '%s' (see --help)", arg);
			return -1;
		}
		memcpy(flag, arg, len);
		flag[len] = 0;
		static const char *const known[] = {
			"--backend", "--epochs",      "--batch", "--seed",
			"--subset",  "--test-subset", "--data",	 "--out",
			"--save",    "--eval",	      "--mode",	 "--threads",
			"--checkpoint", "--checkpoint-every", "--resume",
			"--max-steps", "--replicas", "--split",
		};
		bool ok = false;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			ok |= !strcmp(flag, known[k]);
		if (!ok) {
			error("unknown option '%s' (see --help)", flag);
			return -1;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else {
			error("%s needs a value (see --help)", flag);
			return -1;
		}
		uint64_t v;
		if (!strcmp(flag, "--backend")) {
			if (strcmp(val, "sim") && strcmp(val, "ref") &&
			    strcmp(val, "cpu")) {
				error("--backend: '%s' is not sim, ref or cpu",
				      val);
				return -1;
			}
			o->backend = val;
			o->backend_set = true;
		} else if (!strcmp(flag, "--replicas")) {
			free(o->replicas_arg);
			o->replicas_list = val;
			o->replicas_arg = strdup(val);
			if (!o->replicas_arg) {
				error("out of memory");
				return -1;
			}
			o->n_uris = 0;
			for (char *u = strtok(o->replicas_arg, ","); u; u = strtok(NULL, ",")) {
				if (o->n_uris == sizeof(o->uris) / sizeof(o->uris[0])) {
					error("--replicas: at most %zu devices",
					      sizeof(o->uris) / sizeof(o->uris[0]));
					return -1;
				}
				o->uris[o->n_uris++] = u;
			}
			if (!o->n_uris) {
				error("--replicas: a comma-separated list of device URIs");
				return -1;
			}
		} else if (!strcmp(flag, "--split")) {
			if (strcmp(val, "batch") && strcmp(val, "units")) {
				error("--split: '%s' is not batch or units", val);
				return -1;
			}
			o->split = val;
		} else if (!strcmp(flag, "--mode")) {
			if (strcmp(val, "device") && strcmp(val, "gemm")) {
				error("--mode: '%s' is not device or gemm", val);
				return -1;
			}
			o->mode = val;
		} else if (!strcmp(flag, "--threads")) {
			if (!parse_num(flag, val, 1, 2, &v))
				return -1;
			o->threads = (unsigned)v;
		} else if (!strcmp(flag, "--data")) {
			o->data = val;
		} else if (!strcmp(flag, "--out")) {
			o->out = val;
		} else if (!strcmp(flag, "--save")) {
			o->save = val;
		} else if (!strcmp(flag, "--eval")) {
			o->eval = val;
		} else if (!strcmp(flag, "--checkpoint")) {
			o->checkpoint = val;
		} else if (!strcmp(flag, "--resume")) {
			o->resume = val;
		} else if (!strcmp(flag, "--seed")) {
			if (!parse_num(flag, val, 0, UINT64_MAX, &o->seed))
				return -1;
			o->seed_set = true;
		} else if (!strcmp(flag, "--checkpoint-every") ||
			   !strcmp(flag, "--max-steps")) {
			if (!parse_num(flag, val, 1, 1u << 28, &v))
				return -1;
			*(!strcmp(flag, "--max-steps") ? &o->max_steps
						       : &o->checkpoint_every) = v;
		} else {
			uint64_t max =
				!strcmp(flag, "--epochs") ? 1000 : 1000000;
			if (!parse_num(flag, val, 1, max, &v))
				return -1;
			if (!strcmp(flag, "--epochs"))
				o->epochs = v;
			else if (!strcmp(flag, "--batch"))
				o->batch = v;
			else if (!strcmp(flag, "--subset"))
				o->subset = v;
			else
				o->test_subset = v;
		}
	}
	if (o->threads && strcmp(o->backend, "sim")) {
		error("--threads: only the sim backend is simulated");
		return -1;
	}
	if (o->mode && !strcmp(o->backend, "cpu")) {
		error("--mode: the cpu backend has no device (it trains in fp32 "
		      "on the host)");
		return -1;
	}
	if (o->eval && (o->save || o->epochs || o->batch || o->subset ||
			o->checkpoint || o->resume || o->max_steps)) {
		error("--eval loads weights and trains nothing: it takes no "
		      "--save, --epochs, --batch, --subset, --checkpoint, "
		      "--resume or --max-steps");
		return -1;
	}
	if (o->n_uris && (o->backend_set || o->threads ||
			  (o->mode && strcmp(o->mode, "device")) || o->eval)) {
		error("--replicas names the devices and trains on them: it takes no "
		      "--backend, --threads, --mode gemm or --eval");
		return -1;
	}
	if (o->split && !o->n_uris) {
		error("--split: how --replicas share the work (MPI ranks split the batch)");
		return -1;
	}
	if (o->checkpoint_every && !o->checkpoint) {
		error("--checkpoint-every: say where with --checkpoint FILE");
		return -1;
	}
	return 0;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = 0;
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = c;
			if (!c)
				break;
		}
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Whether a file can be created where path points (its directory). */
static bool dir_writable(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK) == 0;
	size_t len = slash == path ? 1 : (size_t)(slash - path);
	if (len >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(dir, path, len);
	dir[len] = 0;
	return access(dir, W_OK) == 0;
}

static const char *hms(double s, char *buf, size_t len)
{
	unsigned t = s > 0 && s < 1e7 ? (unsigned)(s + 0.5) : 0;
	if (t >= 3600)
		snprintf(buf, len, "%u:%02u:%02u", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, len, "%u:%02u", t / 60, t % 60);
	return buf;
}

/* ---- progress ------------------------------------------------------------ */

struct progress {
	bool tty;
	double started, last_print;
	unsigned epoch, epochs;
	size_t total;
};

/* The epoch's bar: redrawn in place on a terminal; elsewhere printed when
 * the epoch ends or 30 s after the last. */
static void progress_show(struct progress *p, size_t done, double loss,
			  double util, bool device)
{
	double t = now_s(), el = t - p->started;
	bool final = done == p->total;
	if (!final &&
	    (p->tty ? t - p->last_print < 0.1 : t - p->last_print < 30))
		return;
	p->last_print = t;
	char bar[25], eta[32], line[256];
	size_t fill = p->total ? done * 24 / p->total : 24;
	for (size_t i = 0; i < 24; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[24] = 0;
	int len = snprintf(line, sizeof(line),
			   "epoch %u/%u [%s] %zu/%zu  %.2f steps/s  loss %.4f",
			   p->epoch, p->epochs, bar, done, p->total,
			   el > 0 ? (double)done / el : 0.0, loss);
	if (device && len > 0 && (size_t)len < sizeof(line))
		len += snprintf(line + len, sizeof(line) - len, "  util %.1f%%",
				100 * util);
	if (len > 0 && (size_t)len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "  %s %s",
			 final ? "in" : "ETA",
			 hms(final ? el
				   : el / (double)(done ? done : 1) *
					     (double)(p->total - done),
			     eta, sizeof(eta)));
	if (p->tty)
		printf("\r%s\033[K%s", line, final ? "\n" : "");
	else
		printf("%s\n", line);
	fflush(stdout);
}

/* ---- evaluation ---------------------------------------------------------- */

/* Accuracy of m on the first n test samples; confusion[true][pred] when
 * not NULL. */
static int evaluate(const struct mlp *m, struct mlp_backend *be,
		    const struct idx_set *test, size_t n, bool tty,
		    double *accuracy, unsigned (*confusion)[IDX_CLASSES])
{
	uint8_t *pred = malloc(n);
	int ret;

	if (!pred) {
		error("out of memory for %zu test samples", n);
		return FTPU_ERR_NOMEM;
	}
	if (tty) {
		printf("  testing on %zu samples (%s) ...", n, be->name);
		fflush(stdout);
	}
	ret = mlp_predict_px(m, be, test->images.pixels, n, pred);
	if (tty)
		printf("\r\033[K");
	if (ret) {
		error("%s", be->err);
	} else {
		size_t right = 0;
		for (size_t i = 0; i < n; i++) {
			uint8_t y = test->labels.labels[i];
			right += pred[i] == y;
			if (confusion)
				confusion[y][pred[i]]++;
		}
		*accuracy = (double)right / (double)n;
	}
	free(pred);
	return ret;
}

static void print_confusion(unsigned (*c)[IDX_CLASSES])
{
	printf("confusion matrix (rows: true class, columns: predicted "
	       "class)\n");
	printf("%16s", "");
	for (int j = 0; j < IDX_CLASSES; j++)
		printf(" %5d", j);
	printf("  recall\n");
	for (int i = 0; i < IDX_CLASSES; i++) {
		unsigned row = 0;
		for (int j = 0; j < IDX_CLASSES; j++)
			row += c[i][j];
		printf("%d %-13s ", i, class_names[i]);
		for (int j = 0; j < IDX_CLASSES; j++)
			printf(" %5u", c[i][j]);
		printf("  %5.1f%%\n", row ? 100.0 * c[i][i] / row : 0.0);
	}
}

static const char *backend_desc(const struct mlp_backend *be)
{
	static char buf[256];
	if (be->kind == MLP_CPU)
		return "the host CPU (fp32 matmuls, no device)";
	int n = snprintf(buf, sizeof(buf), "%s (%s%s, a %ux%u bf16 systolic array)",
			 be->name,
			 be->kind == MLP_SIM ? "the Verilated device"
					     : "the C model of the device",
			 be->threads > 1 ? " on 2 threads" : "", be->rows, be->cols);
	if (be->replicas > 1 && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ", %zu replicas (%s%s)", be->replicas,
			 be->coll ? "MPI ranks" : "threads",
			 be->split_units ? ", the hidden units split" : "");
	return buf;
}

static int run_eval(const struct options *o, struct mlp_backend *be,
		    const struct idx_set *test, size_t n_test, bool tty)
{
	struct mlp m;
	char err[512];
	unsigned confusion[IDX_CLASSES][IDX_CLASSES] = {{0}};
	double acc = 0;

	int ret = mlp_load(&m, o->eval, err, sizeof(err));
	if (ret) {
		error("%s", err);
		return 1;
	}
	if (m.in != PIXELS || m.out != IDX_CLASSES) {
		error("%s: a %zu-%zu-%zu model; Fashion-MNIST needs %d inputs "
		      "and %d outputs",
		      o->eval, m.in, m.hid, m.out, PIXELS, IDX_CLASSES);
		mlp_free(&m);
		return 1;
	}
	printf("ftpu: evaluating %s (%zu-%zu-%zu, %llu steps trained) on %s\n",
	       o->eval, m.in, m.hid, m.out, (unsigned long long)m.t,
	       backend_desc(be));
	double t0 = now_s();
	mlp_backend_clear(be);
	ret = evaluate(&m, be, test, n_test, tty, &acc, confusion);
	mlp_free(&m);
	if (ret)
		return 1;
	printf("test accuracy %.4f (%zu of %zu test samples), %.1f s", acc,
	       n_test, test->images.count, now_s() - t0);
	if (be->dev)
		printf(", device utilization %.1f%%",
		       100 * mlp_backend_utilization(be));
	printf("\n");
	print_confusion(confusion);
	return 0;
}

/* ---- training ------------------------------------------------------------ */

static double util_of(const struct mlp_backend *be, uint64_t macs,
		      uint64_t cycles)
{
	if (!be->dev)
		return -1;
	return cycles ? (double)macs / ((double)be->rows * be->cols * cycles)
		      : 0;
}

/* A new run: Glorot weights and the identity order from the seed, no
 * epoch begun. */
static int start_run(const struct options *o, const struct idx_set *train,
		     size_t n_train, struct checkpoint *ck)
{
	char err[512];
	memset(ck, 0, sizeof(*ck));
	if (mlp_init(&ck->model, PIXELS, HIDDEN, IDX_CLASSES, o->seed, err,
		     sizeof(err))) {
		error("%s", err);
		return -1;
	}
	ck->seed = o->seed;
	ck->batch = (uint32_t)((o->batch ? o->batch : 128) * o->replicas);
	ck->n_train = (uint32_t)n_train;
	ck->epochs = (uint32_t)(o->epochs ? o->epochs : 1);
	ck->data_crc = checkpoint_data_crc(train->images.pixels,
					   train->labels.labels, n_train, PIXELS);
	ck->shuffle.s = o->seed ^ 0x5f0c3a2b9d1e4f67ull;
	ck->order = malloc(n_train * sizeof(*ck->order));
	if (!ck->order) {
		error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < n_train; i++)
		ck->order[i] = (uint32_t)i;
	return 0;
}

/* --resume: the checkpoint's run, refused when the flags or the data say
 * otherwise. */
static int resume_run(const struct options *o, const struct idx_set *train,
		      struct checkpoint *ck)
{
	char err[512];
	int ret = checkpoint_load(ck, o->resume, err, sizeof(err));
	if (ret) {
		error("%s", err);
		return -1;
	}
	const struct mlp *m = &ck->model;
	const char *bad = NULL;
	char why[256];
	if (m->in != PIXELS || m->hid != HIDDEN || m->out != IDX_CLASSES)
		snprintf(why, sizeof(why),
			 "a %zu-%zu-%zu model; this program trains %d-%d-%d",
			 m->in, m->hid, m->out, PIXELS, HIDDEN, IDX_CLASSES),
			bad = why;
	else if (o->seed_set && o->seed != ck->seed)
		snprintf(why, sizeof(why), "made with --seed %llu, not %llu",
			 (unsigned long long)ck->seed,
			 (unsigned long long)o->seed),
			bad = why;
	else if (o->batch && o->batch * o->replicas != ck->batch)
		snprintf(why, sizeof(why),
			 "made with a global batch of %u, not %zu (--batch %zu x %zu "
			 "replicas)", ck->batch, o->batch * o->replicas, o->batch,
			 o->replicas),
			bad = why;
	else if (o->subset && o->subset != ck->n_train)
		snprintf(why, sizeof(why), "made with --subset %u, not %zu",
			 ck->n_train, o->subset),
			bad = why;
	else if (ck->n_train > train->images.count)
		snprintf(why, sizeof(why),
			 "made on %u training samples, the data has %zu",
			 ck->n_train, train->images.count),
			bad = why;
	else if (checkpoint_data_crc(train->images.pixels, train->labels.labels,
				     ck->n_train, PIXELS) != ck->data_crc)
		snprintf(why, sizeof(why),
			 "made on other training data than %s's", o->data),
			bad = why;
	else if (o->epochs && o->epochs < ck->epoch)
		snprintf(why, sizeof(why),
			 "already in epoch %u, --epochs asks for %zu", ck->epoch,
			 o->epochs),
			bad = why;
	if (bad) {
		error("%s: %s", o->resume, bad);
		return -1;
	}
	if (o->epochs)
		ck->epochs = (uint32_t)o->epochs;
	return 0;
}

/* The device's state into the checkpoint, and the file. */
static int save_checkpoint(const struct options *o, struct mlp_backend *be,
			   struct checkpoint *ck)
{
	char err[512];
	if (mlp_device_sync(&ck->model, be)) {
		error("%s", be->err);
		return -1;
	}
	if (checkpoint_save(ck, o->checkpoint, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	return 0;
}

/* Trains ck's run from where it stands up to ck->epochs (or --max-steps),
 * checkpointing as asked. */
static int run_train(const struct options *o, struct mlp_backend *be,
		     struct checkpoint *ck, const struct idx_set *train,
		     const struct idx_set *test, size_t n_test, bool tty)
{
	const size_t epochs = ck->epochs, batch = ck->batch,
		     n_train = ck->n_train;
	const size_t steps = checkpoint_steps(ck);
	const size_t log_every = steps >= 25 ? steps / 25 : 1;
	char err[512], csv[4096], svg[4096], title[256];
	struct mlp *m = &ck->model;
	int status = 1;

	if (o->write_files && make_dirs(o->out) != 0) {
		error("%s: cannot create the directory: %s", o->out,
		      strerror(errno));
		return 1;
	}
	snprintf(csv, sizeof(csv), "%s/fashion_mnist-%s.csv", o->out, be->name);
	snprintf(svg, sizeof(svg), "%s/fashion_mnist-%s.svg", o->out, be->name);
	uint8_t *px = malloc(batch * PIXELS);
	uint8_t *y = malloc(batch);
	if (!px || !y) {
		error("out of memory");
		goto out;
	}

	const bool on_device =
		be->uris || (be->dev && (o->mode ? !strcmp(o->mode, "device") : be->vector_unit));
	if (be->replicas > 1 && !on_device) {
		error("replicas train on the device (the whole step, --mode device): %s "
		      "cannot", be->name);
		goto out;
	}
	if (on_device && mlp_device_attach_px(m, be, batch)) {
		error("%s", be->err);
		goto out;
	}
	if (on_device)
		printf("ftpu: Fashion-MNIST MLP %d-%d-%d trained on %s: the whole "
		       "step on the device (weights and Adam's slots kept there)\n",
		       PIXELS, HIDDEN, IDX_CLASSES, backend_desc(be));
	else
		printf("ftpu: Fashion-MNIST MLP %d-%d-%d trained with every matmul "
		       "on %s\n",
		       PIXELS, HIDDEN, IDX_CLASSES, backend_desc(be));
	printf("  %zu of %zu training samples, %zu of %zu test samples, "
	       "batch %zu, %zu epoch%s of %zu steps, Adam lr %g, seed %llu\n",
	       n_train, train->images.count, n_test, test->images.count, batch,
	       epochs, epochs > 1 ? "s" : "", steps, (double)m->adam.lr,
	       (unsigned long long)ck->seed);
	if (o->resume)
		printf("  resumed from %s: epoch %u, step %u of %zu (%zu steps "
		       "done)\n",
		       o->resume, ck->epoch, ck->step, steps, ck->n_losses);

	/* the log's clock goes on from the checkpoint's */
	double t_train = now_s() -
			 (ck->n_rows ? ck->rows[ck->n_rows - 1].seconds : 0.0);
	bool stopped = o->max_steps && ck->n_losses >= o->max_steps;
	unsigned told_compile = 0; /* the compile line: once, after the first epoch */
	for (size_t e = ck->epoch ? ck->epoch : 1; e <= epochs && !stopped; e++) {
		if (e != ck->epoch) {
			/* Fisher-Yates, as Keras shuffles every epoch */
			for (size_t i = n_train - 1; i > 0; i--) {
				size_t j = mlp_rng_below(&ck->shuffle, i + 1);
				uint32_t t = ck->order[i];
				ck->order[i] = ck->order[j], ck->order[j] = t;
			}
			ck->epoch = (uint32_t)e, ck->step = 0;
		}
		const size_t first = ck->step, e0 = (e - 1) * steps;
		struct progress pr = {.tty = tty,
				      .started = now_s(),
				      .last_print = now_s(),
				      .epoch = (unsigned)e,
				      .epochs = (unsigned)epochs,
				      .total = steps - first};
		mlp_backend_clear(be);
		/* the epoch's losses and the log window's so far, from the
		 * losses kept (a resumed epoch begins part way) */
		const size_t win0 = ck->n_rows ? ck->rows[ck->n_rows - 1].step : 0;
		double epoch_loss = 0, win_loss = 0;
		size_t win_steps = 0;
		for (size_t i = e0; i < ck->n_losses; i++) {
			epoch_loss += ck->losses[i];
			if (i >= win0)
				win_loss += ck->losses[i], win_steps++;
		}
		uint64_t win_macs = 0, win_cycles = 0;
		for (size_t s = first; s < steps; s++) {
			size_t at = s * batch;
			size_t nb = n_train - at < batch ? n_train - at : batch;
			for (size_t i = 0; i < nb; i++) {
				size_t k = ck->order[at + i];
				memcpy(px + i * PIXELS, train->images.pixels + k * PIXELS,
				       PIXELS);
				y[i] = train->labels.labels[k];
			}
			float loss;
			if (mlp_train_step_px(m, be, px, y, nb, &loss)) {
				if (tty)
					printf("\n");
				error("epoch %zu step %zu: %s", e, s + 1,
				      be->err);
				goto out;
			}
			if (!isfinite(loss)) {
				if (tty)
					printf("\n");
				error("epoch %zu step %zu: the loss is %g", e,
				      s + 1, (double)loss);
				goto out;
			}
			if (checkpoint_add_loss(ck, loss)) {
				error("out of memory");
				goto out;
			}
			ck->step = (uint32_t)(s + 1);
			epoch_loss += loss;
			win_loss += loss;
			win_steps++;
			progress_show(&pr, s + 1 - first, epoch_loss / (double)(s + 1),
				      mlp_backend_utilization(be), be->dev);
			if (win_steps == log_every || s + 1 == steps) {
				struct log_row r = {
					.epoch = (unsigned)e,
					.step = ck->n_losses,
					.x = (double)(e - 1) +
					     (double)(s + 1) / steps,
					.loss = win_loss / (double)win_steps,
					.accuracy = -1,
					.seconds = now_s() - t_train,
					.utilization = util_of(
						be, be->macs - win_macs,
						be->cycles - win_cycles),
				};
				if (checkpoint_add_row(ck, &r)) {
					error("out of memory");
					goto out;
				}
				win_loss = 0, win_steps = 0;
				win_macs = be->macs, win_cycles = be->cycles;
			}
			stopped = o->max_steps && ck->n_losses >= o->max_steps;
			if (o->checkpoint && (stopped || (o->checkpoint_every &&
							  ck->n_losses % o->checkpoint_every == 0)) &&
			    save_checkpoint(o, be, ck))
				goto out;
			if (stopped) {
				if (tty && s + 1 < steps)
					printf("\n");
				break;
			}
		}
		if (stopped && ck->step < steps)
			break;
		/* a run resumed after its last epoch's test has nothing to add */
		const struct log_row *last = ck->n_rows ? &ck->rows[ck->n_rows - 1] : NULL;
		if (first == steps && last && last->epoch == e && last->accuracy >= 0)
			continue;
		double train_s = now_s() - pr.started;
		double util = util_of(be, be->macs, be->cycles);
		const struct mlp_backend tr = *be; /* the training's totals */

		double t_test = now_s(), acc = 0;
		if (evaluate(m, be, test, n_test, tty, &acc, NULL))
			goto out;
		double test_s = now_s() - t_test;
		struct log_row r = {
			.epoch = (unsigned)e,
			.step = ck->n_losses,
			.x = (double)e,
			.loss = epoch_loss / (double)steps,
			.accuracy = acc,
			.seconds = now_s() - t_train,
			.utilization = util,
		};
		if (checkpoint_add_row(ck, &r)) {
			error("out of memory");
			goto out;
		}
		printf("epoch %zu/%zu: train loss %.4f, test accuracy %.4f, "
		       "%.1f s (train %.1f s, %.0f%% in %s; "
		       "test %.1f s)\n",
		       e, epochs, r.loss, acc, train_s + test_s, train_s,
		       train_s > 0 ? 100 * tr.gemm_seconds / train_s : 0,
		       on_device ? "device steps" : "matmuls", test_s);
		if (be->dev && steps > first)
			printf("  device (training): %.2f G MACs in %.1f M "
			       "cycles, utilization %.1f%%, %.1f MB in / "
			       "%.1f MB out over the link\n",
			       (double)tr.macs / 1e9, (double)tr.cycles / 1e6,
			       100 * util, (double)tr.bytes_in / 1e6,
			       (double)tr.bytes_out / 1e6);
		if (be->dev && steps > first)
			printf("  per step: %.0f k cycles, %.1f KB in / %.1f KB "
			       "out\n",
			       (double)tr.cycles / 1e3 / (double)(steps - first),
			       (double)tr.bytes_in / 1e3 / (double)(steps - first),
			       (double)tr.bytes_out / 1e3 / (double)(steps - first));
		if (on_device && tr.steps > 1 && !told_compile++)
			printf("  compiled once in %.1f ms; the first step %.2f s, "
			       "the others %.2f s each\n",
			       1e3 * tr.compile_seconds, tr.first_step_seconds,
			       tr.step_seconds / (double)(tr.steps - 1));
		fflush(stdout);
		if (o->checkpoint && !stopped && ck->epoch == epochs &&
		    save_checkpoint(o, be, ck))
			goto out;
	}

	snprintf(title, sizeof(title),
		 "Fashion-MNIST MLP on %s: %zu train / %zu test samples, batch "
		 "%zu, seed %llu",
		 be->name, n_train, n_test, batch, (unsigned long long)ck->seed);
	if (o->write_files &&
	    (log_write_csv(csv, ck->rows, ck->n_rows, err, sizeof(err)) ||
	     plot_write_svg(svg, title, ck->rows, ck->n_rows, (double)epochs, err,
			    sizeof(err)))) {
		error("%s", err);
		goto out;
	}
	char shown[4096];
	printf("log:     %s\n", shown_path(csv, shown, sizeof(shown)));
	printf("chart:   %s\n", shown_path(svg, shown, sizeof(shown)));
	if (o->checkpoint)
		printf("checkpoint: %s (epoch %u, step %u of %zu; go on: %s%s "
		       "--resume %s --checkpoint %s %s%s)\n",
		       o->checkpoint, ck->epoch, ck->step, steps,
		       be->coll ? "mpirun -np N " : "", prog_path, o->checkpoint,
		       o->checkpoint, o->n_uris ? "--replicas " : "--backend ",
		       o->n_uris ? o->replicas_list : be->name);
	if (stopped)
		printf("stopped after step %zu (--max-steps)\n", ck->n_losses);
	if (o->save && !stopped) {
		if (mlp_device_sync(m, be)) {
			error("%s", be->err);
			goto out;
		}
		if (mlp_save(m, o->save, err, sizeof(err))) {
			error("%s", err);
			goto out;
		}
		printf("weights: %s (test them: %s --eval %s --backend %s)\n",
		       o->save, prog_path, o->save, be->name);
	}
	if (be->kind == MLP_SIM &&
	    (n_train < train->images.count || epochs < 5))
		printf("the full run (60000 samples, 5 epochs, ~0.87 accuracy, "
		       "~80 s): %s --backend ref --epochs 5\n",
		       prog_path);
	status = 0;
out:
	free(px);
	free(y);
	return status;
}

/* Everything after the arguments: 0, or the exit status. */
static int run(struct options *o, const struct mlp_collective *coll)
{
	struct idx_set train = {0}, test = {0};
	struct mlp_backend be;
	char err[1024];
	int status = 1;
	bool tty = isatty(STDOUT_FILENO);

	if (o->save && !dir_writable(o->save)) {
		error("%s: cannot write there: %s", o->save, strerror(errno));
		return 1;
	}
	if (o->checkpoint && !dir_writable(o->checkpoint)) {
		error("%s: cannot write there: %s", o->checkpoint, strerror(errno));
		return 1;
	}
	int r = o->eval ? 0
			: idx_read_fashion(o->data, "train", &train, err,
					   sizeof(err));
	if (!r)
		r = idx_read_fashion(o->data, "t10k", &test, err, sizeof(err));
	if (r) {
		error("%s%s", err,
		      r != FTPU_ERR_NOT_FOUND
			      ? ""
			      : " (the dataset: apt-get install "
				"dataset-fashion-mnist, "
				"or --data DIR)");
		goto out_data;
	}
	struct checkpoint ck = {0};
	size_t n_train = o->subset ? o->subset : train.images.count;
	size_t n_test = o->test_subset ? o->test_subset : test.images.count;
	if (!o->eval && n_train > train.images.count)
		n_train = train.images.count;
	if (o->subset && o->subset > train.images.count && !o->eval) {
		error("--subset: %zu is more than the %zu training samples",
		      o->subset, train.images.count);
		goto out_data;
	}
	if (o->test_subset && o->test_subset > test.images.count) {
		error("--test-subset: %zu is more than the %zu test samples",
		      o->test_subset, test.images.count);
		goto out_data;
	}
	if (n_test > test.images.count)
		n_test = test.images.count;
	/* One simulation thread unless asked: two spin-wait on each other and
	 * measured bimodal here (1.47 or 3.48 s a step, docs/demo.md). */
	unsigned threads = o->threads ? o->threads : 1;
	const bool units = o->split && !strcmp(o->split, "units");
	if (o->n_uris ? mlp_backend_open_replicas(&be, o->uris, o->n_uris, units)
		      : mlp_backend_open(&be, o->backend, threads)) {
		error("%s", be.err);
		goto out_data;
	}
	if (coll->ranks > 1)
		mlp_backend_join(&be, coll);
	if (o->eval)
		status = run_eval(o, &be, &test, n_test, tty);
	else if (!(o->resume ? resume_run(o, &train, &ck)
			     : start_run(o, &train, n_train, &ck)))
		status = run_train(o, &be, &ck, &train, &test, n_test, tty);
	mlp_backend_close(&be);
	checkpoint_free(&ck);
out_data:
	idx_free_set(&train);
	idx_free_set(&test);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	struct mlp_collective coll;
	char err[256];

	/* an MPI job's ranks first: MPI_Init may take its own arguments */
	if (mlp_collective_init(&coll, &argc, &argv, err, sizeof(err))) {
		error("%s", err);
		return 1;
	}
	if (argc > 0 && argv[0])
		prog_path = argv[0];
	int status = parse_args(argc, argv, &o);
	if (status) {
		status = status > 0 ? 0 : 2;
	} else if (coll.ranks > 1 && (o.n_uris || o.eval)) {
		error("under mpirun each rank is a replica on --backend: no --replicas or "
		      "--eval");
		status = 2;
	} else {
		o.replicas = o.n_uris ? o.n_uris : (size_t)coll.ranks;
		/* one voice: rank 0 prints and writes the files */
		if (coll.rank > 0 && !freopen("/dev/null", "w", stdout))
			status = 1;
		if (coll.rank > 0)
			o.checkpoint = NULL, o.save = NULL, o.write_files = false;
		if (!status)
			status = run(&o, &coll);
	}
	free(o.replicas_arg);
	mlp_collective_finish(&coll, status);
	return status;
}
