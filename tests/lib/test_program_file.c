/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_program_file.c - ftpu_program_save / ftpu_program_load: a round trip
 * gives the same program and the same results on "ref"; saving never
 * leaves a partial or temporary file; every damaged, truncated, foreign,
 * future or absurd file is refused with a status (FTPU_ERR_CORRUPT,
 * FTPU_ERR_UNSUPPORTED) and nothing else (run under ASan for leaks).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftpu_test.h"
#include "compile.h"
#include "ftpu.h"
#include "link.h"
#include "numeric.h"
#include "ref_device.h"

/* Offsets in a version-1 file (host-lib/src/program.c) with one input and
 * one output. */
enum {
	OFF_VERSION = 8,
	OFF_FLAGS = 12,
	OFF_ROWS = 16,
	OFF_N_INPUTS = 40,
	OFF_N_OUTPUTS = 44,
	OFF_N_IN_PIECES = 48,
	OFF_N_OUT_PIECES = 52,
	OFF_N_WORDS = 56,
	OFF_N_RESIDENT = 64,
	OFF_IN_SHAPE = 72,
	OFF_OUT_SHAPE = 88,
	OFF_IN_PIECE = 104, /* io, kind, at, row0, rows, tile0, tiles */
};

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || !ftpu_test_mkdtemp(f->dir, sizeof(f->dir), "progfile")) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/p.ftpu", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ftpu_test_rmtree(f->dir);
	free(f);
	return 0;
}

/* Number of entries in the directory besides . and .. */
static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return b;
}

static void write_all(const char *path, const void *b, size_t len)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void fix_crc(uint8_t *b, size_t len)
{
	ftpu_link_put_le32(b + len - 4, ftpu_crc32_update(0, b, len - 4));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	ftpu_link_put_le32(p, (uint32_t)v);
	ftpu_link_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* Loads path, expecting status: *out must stay untouched on failure. */
static void expect_load(const char *path, int status)
{
	ftpu_program *sentinel = (ftpu_program *)(uintptr_t)0x1234, *p = sentinel;
	int ret = ftpu_program_load(path, &p);
	if (ret != status)
		print_error("load: %d (%s), wanted %d\n", ret, ftpu_last_error(NULL), status);
	assert_int_equal(ret, status);
	if (status) {
		assert_ptr_equal(p, sentinel);
	} else {
		assert_non_null(p);
		ftpu_program_free(p);
	}
}

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float *rand_matrix(struct rng *r, size_t n, float scale)
{
	float *m = malloc(n * sizeof(*m));
	assert_non_null(m);
	for (size_t i = 0; i < n; i++)
		m[i] = scale * ((float)rng_u32(r) / 2147483648.0f - 1.0f);
	return m;
}

/* A one-layer graph x (M x K) w (K x N) + b, ReLU. */
static ftpu_graph *layer_graph(size_t M, size_t K, size_t N, const float *w, const float *b)
{
	ftpu_graph *g;
	assert_int_equal(ftpu_graph_create(&g), FTPU_OK);
	ftpu_tensor x = ftpu_graph_input(g, M, K, "x");
	ftpu_tensor tw = ftpu_graph_constant(g, K, N, w, N, "w");
	ftpu_tensor tb = ftpu_graph_constant(g, 1, N, b, N, "b");
	ftpu_tensor y = ftpu_graph_relu(g, ftpu_graph_bias_add(g, ftpu_graph_matmul(g, x, tw), tb));
	assert_int_equal(ftpu_graph_output(g, y), FTPU_OK);
	return g;
}

/* A small program (a 4x4 device, 2 x 5 x 6), saved at path; its bytes. */
static uint8_t *small_file(const char *path, size_t *len)
{
	float w[5 * 6], b[6];
	for (int i = 0; i < 30; i++)
		w[i] = (float)(i % 7) - 3.0f;
	for (int i = 0; i < 6; i++)
		b[i] = 0.25f * (float)i;
	ftpu_graph *g = layer_graph(2, 5, 6, w, b);
	struct ftpu_device_info info = { .rows = 4, .cols = 4, .ub_vectors = 64,
					 .weight_tiles = 16, .acc_vectors = 64,
					 .bias_vectors = 8 };
	ftpu_program *p = NULL;
	char why[256];
	assert_int_equal(ftpu__compile_info(&info, g, &p, why, sizeof(why)), FTPU_OK);
	ftpu_graph_destroy(g);
	assert_int_equal(ftpu_program_save(p, path), FTPU_OK);
	ftpu_program_free(p);
	return read_all(path, len);
}

static void assert_programs_equal(const ftpu_program *a, const ftpu_program *b)
{
	assert_memory_equal(&a->dev, &b->dev, sizeof(a->dev));
	assert_int_equal(a->n_inputs, b->n_inputs);
	assert_int_equal(a->n_outputs, b->n_outputs);
	assert_memory_equal(a->inputs, b->inputs, a->n_inputs * sizeof(*a->inputs));
	assert_memory_equal(a->outputs, b->outputs, a->n_outputs * sizeof(*a->outputs));
	assert_int_equal(a->n_words, b->n_words);
	assert_int_equal(a->n_resident, b->n_resident);
	assert_int_equal(a->n_in_pieces, b->n_in_pieces);
	assert_int_equal(a->n_out_pieces, b->n_out_pieces);
	/* the input data differ after runs: compare the resident part and
	 * the structure */
	assert_memory_equal(a->words, b->words, a->n_resident * sizeof(uint32_t));
	assert_memory_equal(a->in_pieces, b->in_pieces, a->n_in_pieces * sizeof(*a->in_pieces));
	assert_memory_equal(a->out_pieces, b->out_pieces,
			    a->n_out_pieces * sizeof(*a->out_pieces));
	assert_int_equal(a->resident_hash, b->resident_hash);
	assert_int_equal(a->resident_bytes, b->resident_bytes);
	assert_int_equal(a->wm_rows, b->wm_rows);
	assert_int_equal(a->data_words, b->data_words);
}

/* ---- round trip ------------------------------------------------------------------------ */

static void test_program_file_round_trip(void **state)
{
	struct fixture *f = *state;
	const size_t M = 37, K = 784, N = 128;
	struct rng r = { ftpu_test_seed() };
	ftpu_device *dev;
	ftpu_program *p, *q;
	struct ftpu_stats st;
	float *x = rand_matrix(&r, M * K, 1.0f), *w = rand_matrix(&r, K * N, 0.1f);
	float *b = rand_matrix(&r, N, 0.5f);
	float *y1 = malloc(M * N * 4), *y2 = malloc(M * N * 4), *want = malloc(M * N * 4);
	uint16_t *xa = malloc(M * K * 2), *wb = malloc(K * N * 2);
	uint32_t *acc = calloc(M * N, 4);

	assert_int_equal(ftpu_open("ref", &dev), FTPU_OK);
	ftpu_graph *g = layer_graph(M, K, N, w, b);
	assert_int_equal(ftpu_compile(dev, g, &p), FTPU_OK);
	ftpu_graph_destroy(g);
	assert_int_equal(ftpu_program_save(p, f->path), FTPU_OK);
	assert_int_equal(dir_entries(f->dir), 1); /* no temporary left */
	assert_int_equal(ftpu_program_load(f->path, &q), FTPU_OK);
	assert_programs_equal(p, q);
	size_t ni, no, rows, cols;
	assert_int_equal(ftpu_program_io(q, &ni, &no), FTPU_OK);
	assert_int_equal(ni, 1);
	assert_int_equal(no, 1);
	assert_int_equal(ftpu_program_shape(q, 0, 0, &rows, &cols), FTPU_OK);
	assert_int_equal(rows, M);
	assert_int_equal(cols, K);
	assert_int_equal(ftpu_program_shape(q, 1, 0, &rows, &cols), FTPU_OK);
	assert_int_equal(cols, N);

	/* the reference */
	for (size_t i = 0; i < M * K; i++)
		xa[i] = ftpu_f32_to_bf16(bits(x[i]));
	for (size_t i = 0; i < K * N; i++)
		wb[i] = ftpu_f32_to_bf16(bits(w[i]));
	ftpu_ref_gemm(M, N, K, xa, K, wb, N, acc, N, false);
	for (size_t i = 0; i < M * N; i++) {
		uint32_t v = ftpu_bf16_to_f32(ftpu_ref_activate(acc[i], bits(b[i % N]), true));
		memcpy(&want[i], &v, 4);
	}
	const float *in[1] = { x };
	float *out1[1] = { y1 }, *out2[1] = { y2 };
	assert_int_equal(ftpu_run(dev, p, in, out1, NULL), FTPU_OK);
	/* the loaded program's constants are the same: not sent again */
	assert_int_equal(ftpu_run(dev, q, in, out2, &st), FTPU_OK);
	assert_true(st.bytes_in < q->resident_bytes);
	assert_memory_equal(y1, want, M * N * 4);
	assert_memory_equal(y2, want, M * N * 4);
	/* the loaded one on a fresh device, and saved again: same bytes */
	ftpu_close(dev);
	assert_int_equal(ftpu_open("ref", &dev), FTPU_OK);
	memset(y2, 0, M * N * 4);
	assert_int_equal(ftpu_run(dev, q, in, out2, &st), FTPU_OK);
	assert_true(st.bytes_in > q->resident_bytes);
	assert_memory_equal(y2, want, M * N * 4);
	char path2[160];
	snprintf(path2, sizeof(path2), "%s/q.ftpu", f->dir);
	size_t l1, l2;
	ftpu_program *fresh;
	assert_int_equal(ftpu_program_load(f->path, &fresh), FTPU_OK);
	assert_int_equal(ftpu_program_save(fresh, path2), FTPU_OK);
	uint8_t *b1 = read_all(f->path, &l1), *b2 = read_all(path2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b2);
	/* a program that has run saves the same bytes: its inputs' data are
	 * not part of the file */
	assert_int_equal(ftpu_program_save(p, path2), FTPU_OK);
	b2 = read_all(path2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1), free(b2);
	ftpu_program_free(fresh);

	ftpu_close(dev);
	ftpu_program_free(p);
	ftpu_program_free(q);
	free(x), free(w), free(b), free(y1), free(y2), free(want), free(xa), free(wb), free(acc);
}

/* Saving replaces a file whole, and fails cleanly. */
static void test_program_file_save(void **state)
{
	struct fixture *f = *state;
	size_t len, len2;
	uint8_t *a = small_file(f->path, &len);
	/* over an existing file: replaced, nothing else left */
	write_all(f->path, "old contents", 12);
	uint8_t *b = small_file(f->path, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(a, b, len);
	assert_int_equal(dir_entries(f->dir), 1);
	expect_load(f->path, FTPU_OK);

	ftpu_program *p;
	assert_int_equal(ftpu_program_load(f->path, &p), FTPU_OK);
	char bad[200];
	/* a missing directory */
	snprintf(bad, sizeof(bad), "%s/none/p.ftpu", f->dir);
	assert_int_equal(ftpu_program_save(p, bad), FTPU_ERR_NOT_FOUND);
	assert_non_null(strstr(ftpu_last_error(NULL), "none"));
	/* a directory in the way: the rename fails, the temporary goes */
	snprintf(bad, sizeof(bad), "%s/sub", f->dir);
	assert_int_equal(mkdir(bad, 0700), 0);
	assert_int_equal(ftpu_program_save(p, bad), FTPU_ERR_IO);
	assert_int_equal(dir_entries(f->dir), 2);
	/* a symbolic link is written through: the link stays, its target
	 * gets the file; a link to a missing directory fails */
	char link[200], target[200];
	struct stat ls;
	snprintf(link, sizeof(link), "%s/link", f->dir);
	snprintf(target, sizeof(target), "%s/target", f->dir);
	assert_int_equal(symlink("target", link), 0);
	assert_int_equal(ftpu_program_save(p, link), FTPU_OK);
	assert_int_equal(lstat(link, &ls), 0);
	assert_true(S_ISLNK(ls.st_mode));
	expect_load(target, FTPU_OK);
	expect_load(link, FTPU_OK);
	assert_int_equal(dir_entries(f->dir), 4);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(symlink("none/target", link), 0);
	assert_int_equal(ftpu_program_save(p, link), FTPU_ERR_NOT_FOUND);
	assert_int_equal(lstat(link, &ls), 0);
	assert_true(S_ISLNK(ls.st_mode));
	assert_int_equal(unlink(link), 0);
	assert_int_equal(ftpu_program_save(NULL, f->path), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_program_save(p, NULL), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_program_save(p, ""), FTPU_ERR_INVALID);
	/* loading a directory, a FIFO or a device (refused before a read,
	 * which would wait for a writer or never end), a missing file, NULLs */
	expect_load(bad, FTPU_ERR_CORRUPT);
	snprintf(bad, sizeof(bad), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(bad, 0600), 0);
	alarm(20); /* a hang fails the test */
	expect_load(bad, FTPU_ERR_CORRUPT);
	assert_non_null(strstr(ftpu_last_error(NULL), "not a regular file (a FIFO)"));
	expect_load("/dev/zero", FTPU_ERR_CORRUPT);
	alarm(0);
	assert_int_equal(unlink(bad), 0);
	snprintf(bad, sizeof(bad), "%s/missing", f->dir);
	expect_load(bad, FTPU_ERR_NOT_FOUND);
	assert_int_equal(ftpu_program_load(NULL, &p), FTPU_ERR_INVALID);
	assert_int_equal(ftpu_program_load(f->path, NULL), FTPU_ERR_INVALID);
	ftpu_program_free(p);
	free(a);
	free(b);
}

/* ---- damaged files ---------------------------------------------------------------------- */

static void test_program_file_byte_flips(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *good = small_file(f->path, &len);
	uint8_t *b = malloc(len);
	assert_non_null(b);
	assert_true(len > 300 && len < 2000);
	for (size_t i = 0; i < len; i++)
		for (unsigned k = 0; k < 9; k++) {
			memcpy(b, good, len);
			b[i] ^= k < 8 ? (uint8_t)(1u << k) : 0xFFu;
			write_all(f->path, b, len);
			/* the CRC is checked before anything else is believed */
			expect_load(f->path, FTPU_ERR_CORRUPT);
		}
	write_all(f->path, good, len);
	expect_load(f->path, FTPU_OK);
	free(b);
	free(good);
}

static void test_program_file_truncated(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *good = small_file(f->path, &len);
	for (size_t n = 0; n < len; n++) {
		write_all(f->path, good, n);
		expect_load(f->path, FTPU_ERR_CORRUPT);
	}
	/* and one byte too many */
	uint8_t *b = malloc(len + 1);
	memcpy(b, good, len);
	b[len] = 0;
	write_all(f->path, b, len + 1);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	free(b);
	free(good);
}

static void test_program_file_foreign(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *good = small_file(f->path, &len);
	uint8_t *b = malloc(len);

	write_all(f->path, "hello, world\n", 13);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	assert_non_null(strstr(ftpu_last_error(NULL), "bad magic"));
	/* another magic with a valid CRC */
	memcpy(b, good, len);
	memcpy(b, "FTPUPROH", 8);
	fix_crc(b, len);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	/* a link frame's sync word, an ELF header */
	memcpy(b, good, len);
	memcpy(b, "FTPU\x02\x00\x00\x00", 8);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	memcpy(b, "\x7f" "ELF\x02\x01\x01\x00", 8);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	free(b);
	free(good);
}

static void test_program_file_versions(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *good = small_file(f->path, &len);
	uint8_t *b = malloc(len);
	const uint32_t future[] = { 2, 3, 0x100, 0xFFFFFFFFu };
	for (size_t i = 0; i < 4; i++) {
		memcpy(b, good, len);
		ftpu_link_put_le32(b + OFF_VERSION, future[i]);
		fix_crc(b, len);
		write_all(f->path, b, len);
		expect_load(f->path, FTPU_ERR_UNSUPPORTED);
		assert_non_null(strstr(ftpu_last_error(NULL), "newer"));
	}
	/* a future version may be any length: still UNSUPPORTED */
	uint8_t tiny[20];
	memcpy(tiny, good, 16);
	ftpu_link_put_le32(tiny + OFF_VERSION, 2);
	fix_crc(tiny, sizeof(tiny));
	write_all(f->path, tiny, sizeof(tiny));
	expect_load(f->path, FTPU_ERR_UNSUPPORTED);
	/* version 0 never existed */
	memcpy(b, good, len);
	ftpu_link_put_le32(b + OFF_VERSION, 0);
	fix_crc(b, len);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	free(b);
	free(good);
}

/* Fields changed with the CRC made valid again: each is caught by the
 * checks behind the CRC, without allocating what a length claims. */
static void test_program_file_absurd_fields(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *good = small_file(f->path, &len);
	uint8_t *b = malloc(len);
	struct {
		size_t off;
		unsigned bytes; /* 4 or 8 */
		uint64_t value;
	} edits[] = {
		{ OFF_FLAGS, 4, 1 },
		{ OFF_ROWS, 4, 3 },            /* odd, not square */
		{ OFF_ROWS, 4, 0 },
		{ OFF_ROWS + 4, 4, 8 },        /* cols != rows */
		{ OFF_ROWS + 8, 4, 0 },        /* no unified buffer */
		{ OFF_N_INPUTS, 4, 0xFFFFFFFFu },
		{ OFF_N_INPUTS, 4, 2 },
		{ OFF_N_OUTPUTS, 4, 0xFFFFFFFFu },
		{ OFF_N_IN_PIECES, 4, 0xFFFFFFFFu },
		{ OFF_N_OUT_PIECES, 4, 0x7FFFFFFFu },
		{ OFF_N_WORDS, 8, (uint64_t)1 << 62 },
		{ OFF_N_WORDS, 8, UINT64_MAX },
		{ OFF_N_WORDS, 8, 0 },
		{ OFF_N_RESIDENT, 8, UINT64_MAX },
		{ OFF_N_RESIDENT, 8, 1 },      /* cuts an instruction */
		{ OFF_IN_SHAPE, 8, 0 },
		{ OFF_IN_SHAPE, 8, (uint64_t)1 << 40 },
		{ OFF_IN_SHAPE, 8, 1 },        /* the piece's rows beyond it */
		{ OFF_IN_SHAPE + 8, 8, 1 },    /* its tiles beyond it */
		{ OFF_OUT_SHAPE, 8, UINT64_MAX },
		{ OFF_OUT_SHAPE + 8, 8, 0 },
		{ OFF_IN_PIECE, 4, 1 },        /* io: no such input */
		{ OFF_IN_PIECE + 4, 4, 1 },    /* kind */
		{ OFF_IN_PIECE + 8, 8, 0 },    /* at: in the resident part */
		{ OFF_IN_PIECE + 8, 8, UINT64_MAX },
		{ OFF_IN_PIECE + 16, 8, 1 },   /* row0 */
		{ OFF_IN_PIECE + 24, 8, 0 },   /* rows */
		{ OFF_IN_PIECE + 24, 8, (uint64_t)1 << 61 },
		{ OFF_IN_PIECE + 32, 4, 2 },   /* tile0 */
		{ OFF_IN_PIECE + 36, 4, 0xFFFFFFFFu },
		{ OFF_IN_PIECE + 40 + 8, 8, 1 }, /* output piece not at 0 */
		{ OFF_IN_PIECE + 40 + 24, 8, 0xFFFFFFFFFFull },
		{ OFF_IN_PIECE + 40 + 4, 4, 7 },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		memcpy(b, good, len);
		if (edits[i].bytes == 4)
			ftpu_link_put_le32(b + edits[i].off, (uint32_t)edits[i].value);
		else
			put_le64(b + edits[i].off, edits[i].value);
		fix_crc(b, len);
		write_all(f->path, b, len);
		ftpu_program *p = NULL;
		int ret = ftpu_program_load(f->path, &p);
		if (ret != FTPU_ERR_CORRUPT)
			print_error("edit %zu (offset %zu = %#llx): %d %s\n", i, edits[i].off,
				    (unsigned long long)edits[i].value, ret,
				    ftpu_last_error(NULL));
		assert_int_equal(ret, FTPU_ERR_CORRUPT);
		assert_null(p);
	}
	/* everything resident: the input piece would lie in it */
	memcpy(b, good, len);
	put_le64(b + OFF_N_RESIDENT, (len - 4 - (OFF_IN_PIECE + 2 * 40)) / 4);
	fix_crc(b, len);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	/* a resident part that is not HOST_READs of WM and BIAS */
	memcpy(b, good, len);
	size_t words = OFF_IN_PIECE + 2 * 40;
	ftpu_link_put_le32(b + words, ftpu_link_get_le32(b + words) + 1); /* opcode */
	fix_crc(b, len);
	write_all(f->path, b, len);
	expect_load(f->path, FTPU_ERR_CORRUPT);
	assert_non_null(strstr(ftpu_last_error(NULL), "resident part"));
	/* the file as written loads */
	write_all(f->path, good, len);
	expect_load(f->path, FTPU_OK);
	free(b);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_program_file_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_byte_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_versions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_file_absurd_fields, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
