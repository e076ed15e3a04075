/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_device.c - GEMMs on the whole Verilated device (rtl/ftpu_top.sv),
 * timed by the device's own counters (READ_COUNTERS through the register
 * port, docs/registers.md).
 *
 * Table 1, data on the device: per chunk of the GEMM, the operands are
 * loaded first (HOST_READ, not timed), the counters cleared, and then only
 * the (LOAD_WEIGHTS, MATMUL) pairs run; results stay in ACC. Compared with
 * the double-buffered model R + F·max(M, R) + P·(R + C − 2) (P = D;
 * docs/array.md, Cycle model) and the exact count of docs/matrix_unit.md,
 * (F − 1)·max(M, R) + M + Latency + 3; both summed over the chunks the
 * device runs.
 *
 * Table 2, streamed: one program HOST_READs the operands, computes and
 * HOST_WRITEs C, all through the link at INFO LINK_BYTES a cycle each way,
 * against the roofline max(link-bound, compute-bound). Results are checked
 * against ftpu_ref_gemm.
 *
 * Usage: bench_device [4p] [M K N]...   (default: device_16 and the four
 * shapes below)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_host.h"
#include "ftpu_test.h"

#define REG_CMD 0x3F
#define CMD_CLEAR_COUNTERS 2u

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct bench {
	struct dh_dev d;
	struct ftpu_sim_device_config sc;
	uint16_t seq;
	uint64_t sim_cycles; /* all cycles simulated, for the speed line */
};

static void die(const char *what)
{
	fprintf(stderr, "bench_device: %s\n", what);
	exit(1);
}

/* A program as PROGRAM frames, the first of first_words and each next one
 * twice as long up to MAX_PAYLOAD: a frame executes only once its PCRC is
 * in, so short frames first let execution start early, and doubling keeps
 * the next frame arriving while the last one runs. */
static void send_program(struct bench *b, const struct dh_prog *p, size_t first_words)
{
	size_t at = 0, n = p->w.n, next = first_words;
	while (at < n) {
		size_t piece = next;
		next = next * 2 < FTPU_LINK_MAX_PAYLOAD ? next * 2 : FTPU_LINK_MAX_PAYLOAD;
		if (piece > n - at)
			piece = n - at;
		unsigned flags = (at == 0 ? FTPU_PROGRAM_START : 0) |
				 (at + piece == n ? FTPU_PROGRAM_END : 0);
		size_t len;
		uint8_t *buf = dh_encode(FTPU_LINK_PROGRAM, flags, ++b->seq, p->w.w + at, piece,
					 &len);
		if (!dh_dev_send(&b->d, buf, len, FTPU_LINK_PROGRAM, piece, false))
			die("device hung while sending");
		free(buf);
		at += piece;
	}
}

static void wait_idle(struct bench *b)
{
	if (!dh_dev_wait_idle(&b->d))
		die("device hung");
}

static void clear_counters(struct bench *b)
{
	ftpu_sim_device_reg_write(b->d.sim, REG_CMD, CMD_CLEAR_COUNTERS);
}

/* Counters since the clear; cycles without the idle settling of
 * ftpu_sim_device_run_until_idle (so: clear .. first idle cycle). */
static void read_counters(struct bench *b, struct ftpu_sim_device_counters *k)
{
	ftpu_sim_device_read_counters(b->d.sim, k);
	k->cycles -= FTPU_SIM_DEVICE_IDLE_SETTLE;
}

struct shape {
	size_t M, K, N;
};

struct operands {
	uint16_t *A, *B;
	uint32_t *C;
	struct dh_gemm g;
	struct dh_gemm_run r; /* the library's plan (gemm_plan.h) */
	size_t chunks;
};

static void make_operands(struct bench *b, const struct shape *s, bool dbuf,
			  struct operands *o)
{
	struct rng r = { 0xbe4c + s->M * 7 + s->K * 131 + s->N };
	memset(o, 0, sizeof(*o));
	o->A = malloc(s->M * s->K * 2);
	o->B = malloc(s->K * s->N * 2);
	o->C = malloc(s->M * s->N * 4);
	if (!o->A || !o->B || !o->C)
		die("out of memory");
	for (size_t i = 0; i < s->M * s->K; i++)
		o->A[i] = rng_bf16_operand(&r, 0);
	for (size_t i = 0; i < s->K * s->N; i++)
		o->B[i] = rng_bf16_operand(&r, 0);
	o->g = (struct dh_gemm){ .M = s->M, .K = s->K, .N = s->N, .A = o->A, .B = o->B,
				 .write_acc = true, .double_buffer = dbuf };
	if (dh_gemm_setup(&b->d.cfg, &o->g, 0, NULL, &o->r))
		die("shape does not fit the device");
	o->chunks = o->r.p.chunks;
}

static void free_operands(struct operands *o)
{
	free(o->A), free(o->B), free(o->C);
	dh_gemm_run_free(&o->r);
}

/* How the shape was cut, for the table: "1", or the chunk count and the
 * chunk sizes that are smaller than the shape (M rows, N and K columns). */
static void chunk_note(const struct operands *o, char *buf, size_t cap)
{
	const struct ftpu_gemm_plan *pl = &o->r.p;
	size_t at = (size_t)snprintf(buf, cap, "%zu", o->chunks);
	if (pl->mc < o->g.M && at < cap)
		at += (size_t)snprintf(buf + at, cap - at, " M/%zu", pl->mc);
	if (pl->ntc < pl->NT && at < cap)
		at += (size_t)snprintf(buf + at, cap - at, " N/%zu", pl->ntc * pl->n);
	if (pl->ktc < pl->KT && at < cap)
		snprintf(buf + at, cap - at, " K/%zu", pl->ktc * pl->n);
}

/* Table 1: per chunk, load (untimed), clear, compute, read the counters. */
static void table1_row(struct bench *b, const struct shape *s)
{
	struct operands o;
	make_operands(b, s, false, &o);
	const size_t R = b->sc.n, D = b->sc.row_delay;
	uint64_t cycles = 0, busy = 0, macs = 0, wstall = 0, istall = 0, model = 0, exact = 0;
	uint64_t prog_bytes = 0;
	/* the same chunk twice: loads (and compute), then compute alone */
	struct ftpu_gemm_plan only = o.r.p;
	only.o.a_resident = only.o.b_resident = true;
	only.o.acc_writes = 0;
	o.r.p.o.acc_writes = 0;
	for (size_t i = 0; i < o.chunks; i++) {
		struct ftpu_gemm_chunk ch;
		ftpu__gemm_chunk(&o.r.p, i, &ch);
		const struct ftpu_gemm_chunk *c = &ch;
		struct dh_prog p = { 0 };
		dh_gemm_emit_range(&p, &o.r, &o.g, i, i + 1);
		send_program(b, &p, FTPU_LINK_MAX_PAYLOAD);
		wait_idle(b);
		dh_prog_reset(&p);
		struct dh_gemm_run compute = o.r;
		compute.p = only;
		dh_gemm_emit_range(&p, &compute, &o.g, i, i + 1);
		prog_bytes += 4 * p.w.n;
		clear_counters(b);
		send_program(b, &p, 6); /* the first pair alone: it starts at once */
		wait_idle(b);
		struct ftpu_sim_device_counters k;
		read_counters(b, &k);
		cycles += k.cycles, busy += k.busy, macs += k.macs;
		wstall += k.weight_stall, istall += k.input_stall;
		size_t Kc = c->ktc * R, Nc = c->ntc * R;
		model += dh_model_cycles(R, D, c->mc, Kc, Nc);
		exact += dh_exact_cycles(R, D, c->mc, Kc, Nc);
		dh_prog_free(&p);
	}
	char note[64];
	chunk_note(&o, note, sizeof(note));
	printf("| %4zux%4zux%4zu | %-16s | %10llu | %9llu | %9llu | %9llu | %9llu "
	       "| %6.3f | %5.1f%% | %7llu/%llu |\n",
	       s->M, s->K, s->N, note, (unsigned long long)macs, (unsigned long long)cycles,
	       (unsigned long long)busy, (unsigned long long)model, (unsigned long long)exact,
	       (double)cycles / exact, 100.0 * macs / ((double)R * R * cycles),
	       (unsigned long long)wstall, (unsigned long long)istall);
	if (macs != (uint64_t)dh_div_up(s->K, R) * R * dh_div_up(s->N, R) * R * s->M)
		printf("  (MACs counter differs from the folds' n*N*N sum)\n");
	(void)prog_bytes;
	dh_dev_clear_frames(&b->d);
	free_operands(&o);
}

/* Table 2: the whole GEMM through the link. */
static void table2_row(struct bench *b, const struct shape *s)
{
	struct operands o;
	make_operands(b, s, true, &o);
	const size_t R = b->sc.n, D = b->sc.row_delay;
	struct dh_prog p = { 0 };
	dh_gemm_emit(&p, &o.r, &o.g);
	uint64_t compute = 0;
	for (size_t i = 0; i < o.chunks; i++) {
		struct ftpu_gemm_chunk c;
		ftpu__gemm_chunk(&o.r.p, i, &c);
		compute += dh_exact_cycles(R, D, c.mc, c.ktc * R, c.ntc * R);
	}
	dh_dev_clear_frames(&b->d);
	clear_counters(b);
	send_program(b, &p, 64);
	wait_idle(b);
	struct ftpu_sim_device_counters k;
	read_counters(b, &k);
	/* check the results */
	struct dh_words w = { 0 };
	dh_dev_data_words(&b->d, &w);
	size_t bad = dh_gemm_unpack(&o.r, &o.g, w.w, w.n, o.C, NULL) ? 1 :
		     dh_gemm_check(&o.g, o.C, NULL);
	uint64_t link = k.bytes_in > k.bytes_out ? k.bytes_in : k.bytes_out;
	uint64_t roof = link > compute ? link : compute;
	char note[64];
	chunk_note(&o, note, sizeof(note));
	printf("| %4zux%4zux%4zu | %-14s | %9llu | %9llu | %9llu | %9llu | %9llu | %9llu "
	       "| %5.1f%% | %5.1f%% | %7llu | %s |\n",
	       s->M, s->K, s->N, note, (unsigned long long)k.cycles, (unsigned long long)k.bytes_in,
	       (unsigned long long)k.bytes_out, (unsigned long long)link,
	       (unsigned long long)compute, (unsigned long long)roof,
	       100.0 * roof / k.cycles, 100.0 * k.macs / ((double)R * R * k.cycles),
	       (unsigned long long)k.output_stall, bad ? "WRONG" : "ok");
	dh_words_free(&w);
	dh_prog_free(&p);
	dh_dev_clear_frames(&b->d);
	free_operands(&o);
}

int main(int argc, char **argv)
{
	static const struct shape defaults[] = {
		{ 128, 784, 128 }, { 512, 512, 512 }, { 16, 4096, 16 }, { 1, 784, 128 },
	};
	struct shape shapes[16];
	size_t nshapes = 0;
	bool small = argc > 1 && strcmp(argv[1], "4p") == 0;
	int a = small ? 2 : 1;
	for (; a + 2 < argc && nshapes < 16; a += 3)
		shapes[nshapes++] = (struct shape){ strtoul(argv[a], NULL, 0),
						    strtoul(argv[a + 1], NULL, 0),
						    strtoul(argv[a + 2], NULL, 0) };
	if (!nshapes) {
		memcpy(shapes, defaults, sizeof(defaults));
		nshapes = sizeof(defaults) / sizeof(defaults[0]);
	}

	struct bench b = { 0 };
	struct ftpu_sim *sim = small ? ftpu_sim_open_device_4p(NULL) : ftpu_sim_open_device_16(NULL);
	if (!sim || dh_dev_open_rtl(&b.d, sim, small ? "device_4p" : "device_16"))
		die("cannot open the device model");
	ftpu_sim_device_get_config(sim, &b.sc);
	b.d.limit = 50000000;
	double t0 = now();

	printf("ftpu device (rtl/ftpu_top.sv, Verilated %s): %ux%u, RowDelay %u, UB %u, WM %u "
	       "rows, ACC %u vectors\n\n", small ? "device_4p" : "device_16", b.sc.n, b.sc.n,
	       b.sc.row_delay, b.sc.ub_vectors, b.sc.wm_rows, b.sc.acc_vectors);
	printf("Table 1: data on the device (operands loaded first, untimed; counters cleared; "
	       "LOAD_WEIGHTS/MATMUL only)\n\n");
	printf("| M x K x N        | chunks           | MACs       | cycles    | busy      | model     "
	       "| exact     | /exact | util   | stalls w/in |\n");
	printf("|------------------|------------------|-----------:|----------:|----------:|----------:"
	       "|----------:|-------:|-------:|------------:|\n");
	for (size_t i = 0; i < nshapes; i++)
		table1_row(&b, &shapes[i]);
	printf("\ncycles: device counter from the clear (as the program's first byte enters) "
	       "to idle; busy: cycles an instruction executes;\nmodel: R + F*max(M,R) + "
	       "D*(2R-2) (docs/array.md); exact: (F-1)*max(M,R) + M + R*D + R + 1 + 3 "
	       "(docs/matrix_unit.md);\nboth summed over the chunks; util = MACs / (R*C*cycles). "
	       "Chunks: the shape cut to fit UB/WM/ACC (M by rows, B kept in WM when it\n"
	       "fits).\n\n");

	printf("Table 2: streamed through the link (HOST_READ A and B, compute, HOST_WRITE C; "
	       "1 byte/cycle each way)\n\n");
	printf("| M x K x N        | chunks         | cycles    | bytes in  | bytes out "
	       "| link-bound | compute   | roofline  | vs roof | MAC util | out stall | C |\n");
	printf("|------------------|----------------|----------:|----------:|----------:"
	       "|-----------:|----------:|----------:|--------:|---------:|----------:|---|\n");
	for (size_t i = 0; i < nshapes; i++)
		table2_row(&b, &shapes[i]);
	double t = now() - t0;
	b.sim_cycles = ftpu_sim_cycles(sim);
	printf("\nChunks double-buffered (alternate halves of UB and ACC, B kept in WM when it "
	       "fits) so a chunk's HOST_WRITE overlaps the next chunk.\nlink-bound: max(bytes in, "
	       "bytes out) (the link is full duplex); compute: the exact model summed over the "
	       "chunks;\nroofline = max of the two; vs roof = roofline / cycles; out stall: the "
	       "output_stall counter; C: results\nagainst ftpu_ref_gemm.\n");
	printf("\nsimulated %llu cycles in %.1f s (%.0f cycles/s)\n",
	       (unsigned long long)b.sim_cycles, t, b.sim_cycles / t);
	printf("reproduce: make build/bench/bench_device && build/bench/bench_device");
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	dh_dev_close(&b.d);
	return 0;
}
