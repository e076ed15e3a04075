/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vector.c - the vector unit (rtl/core/ftpu_vector_unit.sv, docs/vector.md)
 * in the whole device against the C model (model/ref_device.c), and against
 * proto/numeric.h directly: the same link bytes go to both devices and
 * everything that comes back is compared (harness/device_host.h); the
 * results are also recomputed here from the operands, element by element.
 *
 * Covered on device_16 (16x16, the adder combinational) and device_4p (4x4,
 * the adder in three cuts): every op with each FIXED/HALF flag, apart and in
 * place; CONVERT and COPY between every pair of memories, transposed and
 * not, apart and in place; every fault, with the memories read back (nothing
 * written); programs where vector instructions follow MATMUL, ACTIVATE and
 * HOST_READ into the ranges they read, and LOAD_WEIGHTS and MATMUL follow
 * them, with no SYNC between (the unit waits for the others and they for it);
 * vector ops queued between long MATMULs on rows they read and write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "device_host.h"
#include "ftpu_test.h"
#include "numeric.h"

struct fixture {
	struct dh_host h;
	struct rng rng;
	const char *name;
	uint32_t tag;
};

static int setup_model(void **state, const char *name, struct ftpu_sim *(*open)(const char *))
{
	static struct fixture fxs[2];
	struct fixture *fx = &fxs[name[0] == '4'];
	memset(fx, 0, sizeof(*fx));
	fx->name = name;
	fx->rng.s = ftpu_test_seed() ^ (name[0] == '4' ? 0x7444 : 0x7616);
	fx->tag = 0x100;
	struct ftpu_sim *sim = open(NULL);
	if (!sim || dh_host_open_rtl(&fx->h, sim, name))
		return -1;
	if (!dh_host_cfg(&fx->h)->vector_unit) {
		fprintf(stderr, "%s: built without the vector unit\n", name);
		return -1;
	}
	fx->h.dev[1].limit = 2000000;
	*state = fx;
	return 0;
}

static int setup_16(void **state)
{
	return setup_model(state, "device_16", ftpu_sim_open_device_16);
}

static int setup_4p(void **state)
{
	return setup_model(state, "4p", ftpu_sim_open_device_4p);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	dh_host_close(&fx->h);
	return 0;
}

static size_t N_of(const struct fixture *fx)
{
	return dh_host_cfg(&fx->h)->n;
}

static struct dh_dev *dut(struct fixture *fx)
{
	return &fx->h.dev[fx->h.ndev - 1];
}

static void sync_instr(struct fixture *fx, struct dh_prog *p)
{
	dh_prog_instr(p, FTPU_OP_SYNC, 0, 0, fx->tag++, 0);
}

/* Sends p (frames of random sizes), runs both devices to idle, compares all
 * they sent; w gets the DATA words of the device under test. */
static void run(struct fixture *fx, const struct dh_prog *p, struct dh_words *w)
{
	dh_host_clear(&fx->h);
	assert_true(dh_host_send_prog(&fx->h, p, 4096, &fx->rng));
	assert_true(dh_host_wait(&fx->h));
	assert_int_equal(dh_host_compare(&fx->h), 0);
	if (w)
		dh_dev_data_words(dut(fx), w);
}

static uint16_t bf16_at(const uint32_t *words, size_t e)
{
	return (uint16_t)(e & 1 ? words[e / 2] >> 16 : words[e / 2]);
}

/* ---- VADD .. VSEED --------------------------------------------------------------- */

static uint32_t lane_ref(unsigned op, unsigned flags, uint32_t x, uint32_t y, uint32_t z)
{
	switch (op) {
	case FTPU_OP_VADD: return ftpu_ref_add(x, y);
	case FTPU_OP_VSUB: return ftpu_ref_sub(x, y);
	case FTPU_OP_VMUL: return ftpu_ref_fmul(x, y);
	case FTPU_OP_VMAC: return ftpu_ref_add(ftpu_ref_fmul(x, y), z);
	case FTPU_OP_VMAX: return ftpu_ref_max(x, y);
	case FTPU_OP_VSEL: return ftpu_ref_select(z, x, y);
	default: return ftpu_ref_seed(x, y, flags & FTPU_VECTOR_HALF ? 1 : 0);
	}
}

enum place { APART, ON_A, ON_B, ON_C };

/* One vector instruction on random operands in four ACC regions; the
 * destination (and, to see stray writes, every source) read back. */
static void vector_case(struct fixture *fx, unsigned op, unsigned flags, enum place place,
			unsigned n)
{
	const size_t N = N_of(fx);
	const uint32_t region = dh_host_cfg(&fx->h)->acc_vectors / 4;
	bool uses_c = op == FTPU_OP_VMAC || op == FTPU_OP_VSEL;
	unsigned bn = flags & FTPU_VECTOR_B_FIXED ? 1 : n, cn = flags & FTPU_VECTOR_C_FIXED ? 1 : n;
	assert_true(n <= region);
	uint32_t base[4]; /* a, b, c, d */
	for (int r = 0; r < 4; r++)
		base[r] = (uint32_t)r * region + rng_below(&fx->rng, region - n + 1);
	if (place != APART)
		base[3] = base[place - ON_A];
	uint32_t *x = malloc(n * N * 4), *y = malloc(n * N * 4), *z = malloc(n * N * 4);
	uint32_t *want = malloc(n * N * 4);
	assert_true(x && y && z && want);
	for (size_t i = 0; i < n * N; i++) {
		x[i] = rng_f32(&fx->rng);
		y[i] = (i & 3) ? rng_f32_partner(&fx->rng, x[i]) : rng_f32(&fx->rng);
		z[i] = rng_f32(&fx->rng);
		if (op == FTPU_OP_VSEED && (flags & FTPU_VECTOR_B_FIXED))
			y[i] = flags & FTPU_VECTOR_HALF ? 0x5F3759DFu : 0x7EF311C3u;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < N; l++)
			want[i * N + l] = lane_ref(op, flags, x[i * N + l],
						   y[(bn > 1 ? i : 0) * N + l],
						   z[(cn > 1 ? i : 0) * N + l]);

	struct dh_prog p = { 0 };
	dh_prog_read_f32(&p, FTPU_MEM_ACC, base[0], x, n, N);
	dh_prog_read_f32(&p, FTPU_MEM_ACC, base[1], y, bn, N);
	if (uses_c)
		dh_prog_read_f32(&p, FTPU_MEM_ACC, base[2], z, cn, N);
	dh_prog_instr(&p, op, flags, n, base[0] | base[1] << 16, base[3] | base[2] << 16);
	dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, n, base[3], 0);
	for (int r = 0; r < 3; r++)
		if (r != 2 || uses_c)
			dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, r == 1 ? bn : r == 2 ? cn : n,
				      base[r], 0);
	sync_instr(fx, &p);
	struct dh_words w = { 0 };
	run(fx, &p, &w);

	/* the destination, then a, b, c as they are now */
	size_t at = 0, bad = 0;
	assert_true(w.n >= n * N);
	for (size_t e = 0; e < n * N; e++, at++)
		if (w.w[at] != want[e] && bad++ < 5)
			fprintf(stderr, "%s: op %#x flags %#x place %d n %u: d[%zu][%zu] = %08x, want %08x"
				" (x %08x y %08x z %08x)\n", fx->name, op, flags, place, n, e / N, e % N,
				w.w[at], want[e], x[e], y[(bn > 1 ? e / N : 0) * N + e % N],
				z[(cn > 1 ? e / N : 0) * N + e % N]);
	const uint32_t *src[3] = { x, y, z };
	const unsigned cnt[3] = { n, bn, cn };
	for (int r = 0; r < 3; r++) {
		if (r == 2 && !uses_c)
			continue;
		for (size_t e = 0; e < cnt[r] * N; e++, at++) {
			uint32_t expect = (place == (enum place)(ON_A + r)) ? want[e] : src[r][e];
			if (at >= w.n || w.w[at] != expect) {
				if (bad++ < 5)
					fprintf(stderr, "%s: op %#x place %d: source %d changed at %zu\n",
						fx->name, op, place, r, e);
			}
		}
	}
	assert_int_equal(at, w.n);
	assert_int_equal(bad, 0);
	dh_words_free(&w);
	dh_prog_free(&p);
	free(x), free(y), free(z), free(want);
}

static void test_vector_ops(void **state)
{
	struct fixture *fx = *state;
	static const unsigned ops[] = { FTPU_OP_VADD, FTPU_OP_VSUB, FTPU_OP_VMUL, FTPU_OP_VMAC,
					FTPU_OP_VMAX, FTPU_OP_VSEL, FTPU_OP_VSEED };
	size_t cases = 0;
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		unsigned op = ops[o];
		bool uses_c = op == FTPU_OP_VMAC || op == FTPU_OP_VSEL;
		unsigned variants = uses_c ? 4 : op == FTPU_OP_VSEED ? 4 : 2;
		for (unsigned v = 0; v < variants; v++) {
			unsigned flags = (v & 1 ? FTPU_VECTOR_B_FIXED : 0) |
					 (v & 2 ? (uses_c ? FTPU_VECTOR_C_FIXED : FTPU_VECTOR_HALF) : 0);
			for (int place = APART; place <= ON_C; place++) {
				if ((place == ON_B && (flags & FTPU_VECTOR_B_FIXED)) ||
				    (place == ON_C && (!uses_c || (flags & FTPU_VECTOR_C_FIXED))))
					continue;
				unsigned n = 1 + rng_below(&fx->rng, 24);
				vector_case(fx, op, flags, (enum place)place, n);
				cases++;
			}
		}
	}
	/* a fixed operand with n == 1 may be the destination */
	vector_case(fx, FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, APART, 1);
	printf("%s: %zu vector op cases\n", fx->name, cases + 1);
}

/* ---- CONVERT, COPY --------------------------------------------------------------- */

/* The source memory's contents for a move: ACC as fp32, UB/WM as bf16. */
static void move_case(struct fixture *fx, unsigned op, unsigned smem, unsigned dmem,
		      bool transpose, bool in_place, unsigned n)
{
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const size_t N = c->n;
	bool convert = op == FTPU_OP_CONVERT;
	uint32_t ssize = smem == FTPU_MEM_ACC ? c->acc_vectors :
			 smem == FTPU_MEM_UB ? c->ub_vectors : c->wm_rows;
	uint32_t dsize = dmem == FTPU_MEM_UB ? c->ub_vectors : c->wm_rows;
	/* the source in the lower half, the destination in the upper, the
	 * read-back scratch for WM at the top of UB */
	uint32_t half = (dsize < ssize ? dsize : ssize) / 2;
	uint32_t scratch = c->ub_vectors - n;
	assert_true(n <= half / 2);
	uint32_t src = rng_below(&fx->rng, half / 2 - n + 1);
	uint32_t dst = in_place ? src : half + rng_below(&fx->rng, half / 2 - n + 1);
	uint32_t *f = malloc(n * N * 4);
	uint16_t *h = malloc(n * N * 2), *want = malloc(n * N * 2);
	assert_true(f && h && want);
	for (size_t e = 0; e < n * N; e++) {
		f[e] = rng_f32(&fx->rng);
		h[e] = convert ? ftpu_f32_to_bf16(f[e]) : rng_bf16(&fx->rng);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < N; l++) {
			size_t row = transpose ? (i / N) * N + l : i, lane = transpose ? i % N : l;
			want[i * N + l] = h[row * N + lane];
		}

	struct dh_prog p = { 0 };
	unsigned flags;
	if (convert) {
		dh_prog_read_f32(&p, FTPU_MEM_ACC, src, f, n, N);
		flags = dmem | (transpose ? FTPU_TRANSPOSE_CONVERT : 0);
	} else {
		dh_prog_read_bf16(&p, smem, src, h, n, N);
		flags = smem | dmem << 2 | (transpose ? FTPU_TRANSPOSE_COPY : 0);
	}
	dh_prog_instr(&p, op, flags, n, src, dst);
	if (dmem == FTPU_MEM_WM) {  /* WM leaves through UB */
		dh_prog_instr(&p, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, n, dst, scratch);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, n, scratch, 0);
	} else {
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, n, dst, 0);
	}
	sync_instr(fx, &p);
	struct dh_words w = { 0 };
	run(fx, &p, &w);
	assert_int_equal(w.n, n * N / 2);
	size_t bad = 0;
	for (size_t e = 0; e < n * N; e++)
		if (bf16_at(w.w, e) != want[e] && bad++ < 5)
			fprintf(stderr, "%s: op %#x %u->%u T%d in place %d n %u: [%zu][%zu] = %04x, want %04x\n",
				fx->name, op, smem, dmem, transpose, in_place, n, e / N, e % N,
				bf16_at(w.w, e), want[e]);
	assert_int_equal(bad, 0);
	dh_words_free(&w);
	dh_prog_free(&p);
	free(f), free(h), free(want);
}

static void test_vector_convert_copy(void **state)
{
	struct fixture *fx = *state;
	const unsigned N = (unsigned)N_of(fx);
	const unsigned mems[2] = { FTPU_MEM_UB, FTPU_MEM_WM };
	size_t cases = 0;
	/* t = 0: as they are, n random; t = 1..3: transposed, t blocks (the
	 * unit stores every other block the other way round) */
	for (int t = 0; t < 4; t++) {
		unsigned n = t ? N * (unsigned)t : 1 + rng_below(&fx->rng, 3 * N);
		for (int d = 0; d < 2; d++, cases++)
			move_case(fx, FTPU_OP_CONVERT, FTPU_MEM_ACC, mems[d], t > 0, false, n);
		for (int s = 0; s < 2; s++)
			for (int d = 0; d < 2; d++)
				for (int in_place = 0; in_place < 1 + (s == d); in_place++, cases++)
					move_case(fx, FTPU_OP_COPY, mems[s], mems[d], t > 0, in_place, n);
	}
	printf("%s: %zu CONVERT/COPY cases\n", fx->name, cases);
}

/* ---- faults -------------------------------------------------------------------------- */

/* Each fault: the FAULT event as the model's, the SYNC after it not run,
 * and the regions every case aims at (ACC, UB, WM rows 0..G) unchanged. */
static void test_vector_faults(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const uint32_t N = c->n, A = c->acc_vectors, U = c->ub_vectors, W = c->wm_rows;
	enum { G = 16 };
	const struct {
		const char *what;
		unsigned op, flags, n;
		uint32_t a, b, code;
	} cases[] = {
		{ "VADD C_FIXED", FTPU_OP_VADD, FTPU_VECTOR_C_FIXED, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "VMUL HALF", FTPU_OP_VMUL, FTPU_VECTOR_HALF, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "VMAC flag 8", FTPU_OP_VMAC, 0x08, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "VSEED flag 0x80 n=0", FTPU_OP_VSEED, 0x80, 0, 0, 1, FTPU_FAULT_OPCODE },
		{ "opcode 0x19", 0x19, 0, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "opcode 0x0F", 0x0F, 0, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "CONVERT to ACC", FTPU_OP_CONVERT, FTPU_MEM_ACC, 1, 0, 0, FTPU_FAULT_OPCODE },
		{ "CONVERT copy's transpose", FTPU_OP_CONVERT, FTPU_MEM_UB | 0x10, 1, 0, 0,
		  FTPU_FAULT_OPCODE },
		{ "COPY from ACC", FTPU_OP_COPY, FTPU_MEM_ACC | FTPU_MEM_UB << 2, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "COPY to BIAS", FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_BIAS << 2, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "COPY flag 0x20", FTPU_OP_COPY, 0x20, 1, 0, 1, FTPU_FAULT_OPCODE },
		{ "VADD n=0", FTPU_OP_VADD, 0, 0, 0, 1, FTPU_FAULT_COUNT },
		{ "CONVERT n=0", FTPU_OP_CONVERT, FTPU_MEM_UB, 0, 0, 0, FTPU_FAULT_COUNT },
		{ "CONVERT T n=N+1", FTPU_OP_CONVERT, FTPU_MEM_UB | FTPU_TRANSPOSE_CONVERT, N + 1, 0, 0,
		  FTPU_FAULT_COUNT },
		{ "COPY T n=N/2", FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_WM << 2 | FTPU_TRANSPOSE_COPY, N / 2,
		  0, 0, FTPU_FAULT_COUNT },
		{ "COPY T n=N/2, bad range", FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_WM << 2 | FTPU_TRANSPOSE_COPY,
		  N / 2, W, 0, FTPU_FAULT_COUNT },
		{ "VADD a end", FTPU_OP_VADD, 0, 2, A - 1, 1, FTPU_FAULT_RANGE },
		{ "VADD b end", FTPU_OP_VADD, 0, 2, 2u | (A - 1) << 16, 8, FTPU_FAULT_RANGE },
		{ "VADD d end", FTPU_OP_VADD, 0, 2, 2u | 4u << 16, A - 1, FTPU_FAULT_RANGE },
		{ "VMAC c end", FTPU_OP_VMAC, 0, 2, 2u | 4u << 16, 8u | (A - 1) << 16, FTPU_FAULT_RANGE },
		{ "VSEL c fixed beyond", FTPU_OP_VSEL, FTPU_VECTOR_C_FIXED, 2, 2u | 4u << 16,
		  8u | A << 16, FTPU_FAULT_RANGE },
		{ "VADD d overlaps a", FTPU_OP_VADD, 0, 2, 2u | 6u << 16, 3, FTPU_FAULT_RANGE },
		{ "VSUB d overlaps b", FTPU_OP_VSUB, 0, 3, 9u | 2u << 16, 3, FTPU_FAULT_RANGE },
		{ "VMAC d overlaps c", FTPU_OP_VMAC, 0, 3, 9u | 12u << 16, 2u | 4u << 16, FTPU_FAULT_RANGE },
		{ "VMUL fixed b inside d", FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, 2, 2u | 9u << 16, 8,
		  FTPU_FAULT_RANGE },
		{ "CONVERT src end", FTPU_OP_CONVERT, FTPU_MEM_UB, 2, A - 1, 0, FTPU_FAULT_RANGE },
		{ "CONVERT dst end", FTPU_OP_CONVERT, FTPU_MEM_WM, 2, 0, W - 1, FTPU_FAULT_RANGE },
		{ "CONVERT src huge", FTPU_OP_CONVERT, FTPU_MEM_UB, 1, 0xFFFFFFFFu, 0, FTPU_FAULT_RANGE },
		{ "COPY UB overlap", FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_UB << 2, 4, 0, 2, FTPU_FAULT_RANGE },
		{ "COPY WM->UB dst end", FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, 2, 0, U - 1,
		  FTPU_FAULT_RANGE },
		/* not faults: overlap across memories, the last rows, in place */
		{ "COPY UB->WM same rows", FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_WM << 2, 4, 0, 2, 0 },
		{ "VADD last row in place", FTPU_OP_VADD, 0, 1, (A - 1) | (A - 1) << 16, A - 1, 0 },
		{ "VMUL fixed b is d, n 1", FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, 1, 2u | 9u << 16, 9, 0 },
	};
	/* random contents where the cases aim */
	uint32_t *acc = malloc((size_t)G * N * 4);
	uint16_t *ub = malloc((size_t)G * N * 2), *wm = malloc((size_t)G * N * 2);
	assert_true(acc && ub && wm);
	for (size_t e = 0; e < (size_t)G * N; e++) {
		acc[e] = rng_f32(&fx->rng);
		ub[e] = rng_bf16(&fx->rng);
		wm[e] = rng_bf16(&fx->rng);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* with 65536 ACC vectors every 16-bit operand is in range: a FIXED
		 * operand beyond the memory cannot be encoded */
		if (A > 0xFFFFu && !strcmp(cases[i].what, "VSEL c fixed beyond"))
			continue;
		struct dh_prog p = { 0 };
		dh_prog_read_f32(&p, FTPU_MEM_ACC, 0, acc, G, N);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, A - G, acc, G, N);
		dh_prog_read_bf16(&p, FTPU_MEM_UB, 0, ub, G, N);
		dh_prog_read_bf16(&p, FTPU_MEM_UB, U - G, ub, G, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, 0, wm, G, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, W - G, wm, G, N);
		sync_instr(fx, &p);
		size_t at = p.w.n;
		dh_prog_instr(&p, cases[i].op, cases[i].flags, cases[i].n, cases[i].a, cases[i].b);
		sync_instr(fx, &p); /* runs only when the case is not a fault */
		run(fx, &p, NULL);
		const struct dh_frames *fs = dh_dev_frames(dut(fx), DH_CLASS_PROGRAM);
		const struct dh_frame *last = &fs->f[fs->n - 1];
		bool ok = last->type == FTPU_LINK_EVENT &&
			  (cases[i].code ? last->payload[0] == FTPU_LINK_EVENT_FAULT &&
						   last->payload[2] == cases[i].code &&
						   last->payload[3] == p.w.w[at]
					 : last->payload[0] == FTPU_LINK_EVENT_SYNC && fs->n == 2);
		if (!ok)
			fprintf(stderr, "%s: fault case '%s' (want code %u)\n", fx->name, cases[i].what,
				cases[i].code);
		assert_true(ok);
		dh_prog_free(&p);
		if (cases[i].code == 0)
			continue;
		/* nothing written: read everything back (WM through UB) */
		struct dh_prog q = { 0 };
		dh_prog_instr(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, G, 0, 0);
		dh_prog_instr(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, G, A - G, 0);
		dh_prog_instr(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, G, 0, 0);
		dh_prog_instr(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, G, U - G, 0);
		dh_prog_instr(&q, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, G, 0, 2 * G);
		dh_prog_instr(&q, FTPU_OP_COPY, FTPU_MEM_WM | FTPU_MEM_UB << 2, G, W - G, 3 * G);
		dh_prog_instr(&q, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, 2 * G, 2 * G, 0);
		sync_instr(fx, &q);
		struct dh_words w = { 0 };
		run(fx, &q, &w);
		const size_t fw = (size_t)G * N, hw = fw / 2;
		assert_int_equal(w.n, 2 * fw + 4 * hw);
		for (size_t e = 0; e < fw; e++) {
			assert_int_equal(w.w[e], acc[e]);
			assert_int_equal(w.w[fw + e], acc[e]);
		}
		for (size_t e = 0; e < fw; e++) {
			const uint32_t *h = w.w + 2 * fw;
			assert_int_equal(bf16_at(h, e), ub[e]);
			assert_int_equal(bf16_at(h + hw, e), ub[e]);
			assert_int_equal(bf16_at(h + 2 * hw, e), wm[e]);
			assert_int_equal(bf16_at(h + 3 * hw, e), wm[e]);
		}
		dh_words_free(&w);
		dh_prog_free(&q);
	}
	free(acc), free(ub), free(wm);
}

/* ---- ordering with the other units ---------------------------------------------------- */

/*
 * One program without SYNCs: X into UB, a weight tile into WM, MATMUL into
 * ACC, a vector op on its results at once, CONVERT (transposed) into WM,
 * LOAD_WEIGHTS of that tile and MATMUL with it, ACTIVATE of those results
 * and COPY of the activations while HOST_WRITE sends them. Each step reads
 * what the one before writes; the devices must agree on every result.
 */
static void test_vector_ordering(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const uint32_t N = c->n;
	for (int round = 0; round < 6; round++) {
		unsigned m = N + rng_below(&fx->rng, 3 * N); /* MATMUL rows */
		uint16_t *X = malloc((size_t)m * N * 2), *Wt = malloc((size_t)N * N * 2);
		uint32_t *s = malloc((size_t)N * 4);
		assert_true(X && Wt && s);
		for (size_t e = 0; e < (size_t)m * N; e++)
			X[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t e = 0; e < (size_t)N * N; e++)
			Wt[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t l = 0; l < N; l++)
			s[l] = 0x3F000000u + (rng_u32(&fx->rng) & 0x7FFFFF); /* 0.5 .. 1 */
		const uint32_t acc0 = 8, scal = 4, acc1 = 8 + m, acc2 = 8 + 2 * m;
		const uint32_t ub0 = 0, ub1 = m, ub2 = 2 * m, wm0 = 0, wm1 = 2 * N;
		struct dh_prog p = { 0 };
		dh_prog_read_bf16(&p, FTPU_MEM_UB, ub0, X, m, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, wm0, Wt, N, N);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, scal, s, 1, N);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, wm0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, ub0, acc0);
		/* scale the results in place, then a second op on top */
		dh_prog_instr(&p, FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, m, acc0 | scal << 16, acc0);
		dh_prog_instr(&p, round & 1 ? FTPU_OP_VMAX : FTPU_OP_VSUB, 0, m,
			      acc0 | acc0 << 16, acc1);
		/* its first N rows, transposed, are the next weight tile */
		dh_prog_instr(&p, FTPU_OP_CONVERT, FTPU_MEM_WM | FTPU_TRANSPOSE_CONVERT, N, acc1, wm1);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, wm1, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, ub0, acc2);
		dh_prog_instr(&p, FTPU_OP_ACTIVATE, FTPU_ACTIVATE_RELU, m, acc2, ub1);
		dh_prog_instr(&p, FTPU_OP_COPY, FTPU_MEM_UB | FTPU_MEM_UB << 2 |
			      (round & 2 ? FTPU_TRANSPOSE_COPY : 0), N, ub1, ub2);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, m, acc1, 0);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, m, ub1, 0);
		dh_prog_instr(&p, FTPU_OP_VADD, 0, m, acc2 | acc1 << 16, acc2);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, m, acc2, 0);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_UB, N, ub2, 0);
		sync_instr(fx, &p);
		struct dh_words w = { 0 };
		run(fx, &p, &w);
		assert_int_equal(w.n, (size_t)m * N * 2 + (size_t)m * N / 2 + (size_t)N * N / 2);
		/* the first step, recomputed here: acc1 = VSUB/VMAX of the scaled
		 * MATMUL result with itself */
		uint32_t *C = malloc((size_t)m * N * 4);
		assert_true(C);
		ftpu_ref_gemm(m, N, N, X, N, Wt, N, C, N, false);
		for (size_t e = 0; e < (size_t)m * N; e++) {
			uint32_t v = ftpu_ref_fmul(C[e], s[e % N]);
			uint32_t want = round & 1 ? ftpu_ref_max(v, v) : ftpu_ref_sub(v, v);
			assert_int_equal(w.w[e], want);
		}
		free(C);
		dh_words_free(&w);
		dh_prog_free(&p);
		free(X), free(Wt), free(s);
	}
}

/*
 * Vector ops beside MATMULs (ftpu_core_hazards): one program without
 * SYNCs, long MATMULs queued into ACC regions A0..A3 with vector ops between
 * them. Each vector op reads or writes rows a queued MATMUL writes (so it
 * must wait for that MATMUL, not run beside it), and MATMULs follow that
 * accumulate onto a running vector op's result or leave its rows alone:
 *   VMUL  A0 * s            -> D0   reads A0 while A1's MATMUL runs
 *   MATMUL +X W             -> D0   accumulates onto the running VMUL's D0
 *   VADD  A1 + A0[0] (FIXED)-> A1   in place; A1's MATMUL may still run
 *   MATMUL X W              -> A2   beside the VADD (other rows)
 *   VMAC  A2 * A1[0] + D0   -> A3   FIXED y on the VADD's rows, z on D0
 *   MATMUL X W              -> A0   overwrites what the VMUL read
 * Everything is read back and compared between the devices; D0 and A3 are
 * also recomputed here.
 */
static void test_vector_beside_matmul(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const uint32_t N = c->n;
	for (int round = 0; round < 4; round++) {
		unsigned m = 4 * N + rng_below(&fx->rng, 4 * N); /* MATMUL rows */
		uint16_t *X = malloc((size_t)m * N * 2), *Wt = malloc((size_t)N * N * 2);
		uint32_t *s = malloc((size_t)N * 4);
		assert_true(X && Wt && s);
		for (size_t e = 0; e < (size_t)m * N; e++)
			X[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t e = 0; e < (size_t)N * N; e++)
			Wt[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t l = 0; l < N; l++)
			s[l] = 0x3F000000u + (rng_u32(&fx->rng) & 0x7FFFFF); /* 0.5 .. 1 */
		const uint32_t scal = 2, A0 = 8, A1 = A0 + m, A2 = A1 + m, A3 = A2 + m, D0 = A3 + m;
		struct dh_prog p = { 0 };
		dh_prog_read_bf16(&p, FTPU_MEM_UB, 0, X, m, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, 0, Wt, N, N);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, scal, s, 1, N);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, 0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A0);
		dh_prog_matmul(&p, N, 0, m, 0, A1);
		dh_prog_instr(&p, FTPU_OP_VMUL, FTPU_VECTOR_B_FIXED, m, A0 | scal << 16, D0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_ACCUMULATE, m, 0, D0);
		dh_prog_instr(&p, FTPU_OP_VADD, FTPU_VECTOR_B_FIXED, m, A1 | A0 << 16, A1);
		dh_prog_matmul(&p, N, 0, m, 0, A2);
		dh_prog_instr(&p, FTPU_OP_VMAC, FTPU_VECTOR_B_FIXED, m, A2 | A1 << 16, A3 | D0 << 16);
		dh_prog_matmul(&p, N, 0, m, 0, A0);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 5 * m, A0, 0);
		sync_instr(fx, &p);
		struct dh_words w = { 0 };
		run(fx, &p, &w);
		assert_int_equal(w.n, (size_t)5 * m * N);
		uint32_t *C = malloc((size_t)m * N * 4), *D = malloc((size_t)m * N * 4);
		assert_true(C && D);
		ftpu_ref_gemm(m, N, N, X, N, Wt, N, C, N, false);
		for (size_t e = 0; e < (size_t)m * N; e++)
			D[e] = ftpu_ref_fmul(C[e], s[e % N]);
		ftpu_ref_gemm(m, N, N, X, N, Wt, N, D, N, true); /* onto the VMUL's D0 */
		for (size_t e = 0; e < (size_t)m * N; e++) {
			const size_t l = e % N;
			uint32_t a1_0 = ftpu_ref_add(C[l], C[l]); /* the VADD's row 0 */
			uint32_t a3 = ftpu_ref_add(ftpu_ref_fmul(C[e], a1_0), D[e]);
			assert_int_equal(w.w[e], C[e]);
			assert_int_equal(w.w[(size_t)(D0 - A0) * N + e], D[e]);
			assert_int_equal(w.w[(size_t)(A3 - A0) * N + e], a3);
		}
		free(C), free(D);
		dh_words_free(&w);
		dh_prog_free(&p);
		free(X), free(Wt), free(s);
	}
}

/*
 * CONVERT into WM beside MATMULs and LOAD_WEIGHTS (ftpu_core_hazards), one
 * program without SYNCs, tile T0 at WM rows W0, MATMULs of m rows:
 *   MATMUL X T0              -> A0
 *   CONVERT TRANSPOSE A0[..N) -> W1   waits for A0's MATMUL (reads its rows)
 *   MATMUL X T0              -> A1   beside the CONVERT (other rows)
 *   LOAD W1; MATMUL X W1     -> A2   the load waits for the CONVERT's rows
 *   LOAD W0; CONVERT A0[..N) -> W0   overwrites the tile being loaded: waits
 *                                    for the load (seen where rows load
 *                                    RowDelay apart, device_4p)
 *   MATMUL X T0              -> A3   ... so A3 still multiplies T0
 *   LOAD W0; MATMUL          -> A4   the new tile
 * and a second one, the array idle when a long CONVERT starts:
 *   CONVERT P[..3m)          -> W2
 *   LOAD W0; MATMUL X        -> P + 3m - N   overwrites rows the CONVERT
 *                                    has yet to read: waits for it
 *   LOAD W2 + 3m - N; MATMUL X -> Q  the tile converted from P's old rows
 * Both devices must agree on everything; the results are recomputed here.
 */
static void test_vector_convert_beside_matmul(void **state)
{
	struct fixture *fx = *state;
	const struct ftpu_ref_device_config *c = dh_host_cfg(&fx->h);
	const uint32_t N = c->n;
	for (int round = 0; round < 3; round++) {
		unsigned m = 4 * N + rng_below(&fx->rng, 4 * N); /* MATMUL rows */
		uint16_t *X = malloc((size_t)m * N * 2), *T0 = malloc((size_t)N * N * 2);
		uint16_t *T1 = malloc((size_t)N * N * 2), *T2 = malloc((size_t)N * N * 2);
		uint32_t *C = malloc((size_t)m * N * 4), *C1 = malloc((size_t)m * N * 4);
		uint32_t *P = malloc((size_t)3 * m * N * 4);
		assert_true(X && T0 && T1 && T2 && C && C1 && P);
		for (size_t e = 0; e < (size_t)m * N; e++)
			X[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t e = 0; e < (size_t)N * N; e++)
			T0[e] = rng_bf16_operand(&fx->rng, 10);
		for (size_t e = 0; e < (size_t)3 * m * N; e++)
			P[e] = (uint32_t)rng_bf16_operand(&fx->rng, 10) << 16 |
			       (rng_u32(&fx->rng) & 0xFFFF);
		const uint32_t A0 = 0, A1 = m, A2 = 2 * m, A3 = 3 * m, A4 = 4 * m;
		const uint32_t W0 = 0, W1 = 2 * N, W2 = 4 * N;
		struct dh_prog p = { 0 };
		dh_prog_read_bf16(&p, FTPU_MEM_UB, 0, X, m, N);
		dh_prog_read_bf16(&p, FTPU_MEM_WM, W0, T0, N, N);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A0);
		dh_prog_instr(&p, FTPU_OP_CONVERT, FTPU_MEM_WM | FTPU_TRANSPOSE_CONVERT, N, A0, W1);
		dh_prog_matmul(&p, N, 0, m, 0, A1);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W1, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A2);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W0, 0);
		dh_prog_instr(&p, FTPU_OP_CONVERT, FTPU_MEM_WM, N, A0, W0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A3);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, A4);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, 5 * m, A0, 0);
		sync_instr(fx, &p);
		struct dh_words w = { 0 };
		run(fx, &p, &w);
		assert_int_equal(w.n, (size_t)5 * m * N);
		/* C = X T0 (A0, A1, A3); T1 = A0[..N) transposed, T2 = A0[..N) */
		ftpu_ref_gemm(m, N, N, X, N, T0, N, C, N, false);
		for (size_t k = 0; k < N; k++)
			for (size_t j = 0; j < N; j++) {
				T1[k * N + j] = ftpu_f32_to_bf16(C[j * N + k]);
				T2[k * N + j] = ftpu_f32_to_bf16(C[k * N + j]);
			}
		for (size_t e = 0; e < (size_t)m * N; e++) {
			assert_int_equal(w.w[(size_t)A0 * N + e], C[e]);
			assert_int_equal(w.w[(size_t)A1 * N + e], C[e]);
			assert_int_equal(w.w[(size_t)A3 * N + e], C[e]);
		}
		ftpu_ref_gemm(m, N, N, X, N, T1, N, C1, N, false);
		for (size_t e = 0; e < (size_t)m * N; e++)
			assert_int_equal(w.w[(size_t)A2 * N + e], C1[e]);
		ftpu_ref_gemm(m, N, N, X, N, T2, N, C1, N, false);
		for (size_t e = 0; e < (size_t)m * N; e++)
			assert_int_equal(w.w[(size_t)A4 * N + e], C1[e]);
		dh_words_free(&w);

		/* the long CONVERT and the MATMUL onto its last rows */
		const uint32_t Pa = 0, Q = 4 * m, last = 3 * m - N;
		dh_prog_reset(&p);
		dh_prog_read_f32(&p, FTPU_MEM_ACC, Pa, P, 3 * m, N);
		dh_prog_instr(&p, FTPU_OP_CONVERT, FTPU_MEM_WM, 3 * m, Pa, W2);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W0, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, Pa + last);
		dh_prog_instr(&p, FTPU_OP_LOAD_WEIGHTS, 0, 1, W2 + last, 0);
		dh_prog_matmul(&p, N, FTPU_MATMUL_SWAP, m, 0, Q);
		dh_prog_instr(&p, FTPU_OP_HOST_WRITE, FTPU_MEM_ACC, m, Q, 0);
		sync_instr(fx, &p);
		run(fx, &p, &w);
		assert_int_equal(w.n, (size_t)m * N);
		for (size_t e = 0; e < (size_t)N * N; e++)
			T2[e] = ftpu_f32_to_bf16(P[(size_t)last * N + e]);
		ftpu_ref_gemm(m, N, N, X, N, T2, N, C1, N, false);
		for (size_t e = 0; e < (size_t)m * N; e++)
			assert_int_equal(w.w[e], C1[e]);
		dh_words_free(&w);
		dh_prog_free(&p);
		free(X), free(T0), free(T1), free(T2), free(C), free(C1), free(P);
	}
}

#define T16(t) cmocka_unit_test(t)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T16(test_vector_ops),
		T16(test_vector_convert_copy),
		T16(test_vector_faults),
		T16(test_vector_ordering),
		T16(test_vector_beside_matmul),
		T16(test_vector_convert_beside_matmul),
	};
	int fails = cmocka_run_group_tests_name("device_16", tests, setup_16, teardown);
	fails += cmocka_run_group_tests_name("device_4p", tests, setup_4p, teardown);
	return fails;
}
