/* SPDX-License-Identifier: Apache-2.0 */
/*
 * program.c - compiled programs (ftpu.h): running them, their inputs and
 * outputs, and their file format.
 *
 * A run packs the inputs (fp32 -> bf16) into the HOST_READ data the
 * compiler left for them, sends the words (the resident part only when
 * the device's weight and bias memories do not hold this program's
 * constants already: struct ftpu_wm_resident), and takes the DATA words
 * apart into the outputs.
 *
 * File format, version 1: little-endian throughout.
 *
 *   offset  size     field
 *   0       8        magic "FTPUPROG"
 *   8       4        format version (1)
 *   12      4        flags, 0 (reserved)
 *   16      4 x 6    device sizes: rows, cols, ub_vectors, weight_tiles,
 *                    acc_vectors, bias_vectors
 *   40      4        n_inputs
 *   44      4        n_outputs
 *   48      4        n_in_pieces
 *   52      4        n_out_pieces
 *   56      8        n_words
 *   64      8        n_resident (words of the resident part, which comes first)
 *   72      16 each  input shapes: rows u64, cols u64
 *           16 each  output shapes
 *           40 each  input pieces: io u32, kind u32, at u64, row0 u64,
 *                    rows u64, tile0 u32, tiles u32 (struct ftpu__piece)
 *           40 each  output pieces
 *           4 each   the words
 *   end-4   4        CRC-32 (ftpu_crc32_update) of every byte before it
 *
 * Every format version keeps the magic, the version word and the trailing
 * CRC where they are, so a reader checks the magic, then the CRC (damage
 * is FTPU_ERR_CORRUPT), then the version (a newer one is
 * FTPU_ERR_UNSUPPORTED). Every count is checked against the file's length
 * before anything is allocated, and the result against the program's own
 * rules (ftpu__program_finish) before it can run.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "device.h"
#include "isa.h"
#include "link.h"
#include "numeric.h"

#define FORMAT_VERSION 1u
#define HEADER_BYTES 72u
#define SHAPE_BYTES 16u
#define PIECE_BYTES 40u
static const char magic[8] = { 'F', 'T', 'P', 'U', 'P', 'R', 'O', 'G' };

__attribute__((format(printf, 3, 4)))
static int why_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return FTPU_ERR_CORRUPT;
}

uint64_t ftpu__hash_words(const uint32_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 32; b += 8) {
			h ^= (w[i] >> b) & 0xffu;
			h *= 0x100000001b3ull;
		}
	return h;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* A shape of a user's dense fp32 matrix. */
static bool shape_ok(const struct ftpu__shape *s)
{
	return s->rows && s->cols && s->rows < FTPU__MAX_DIM && s->cols < FTPU__MAX_DIM &&
	       s->rows * s->cols <= FTPU__MAX_ELEMS &&
	       s->rows <= SIZE_MAX / sizeof(float) / s->cols;
}

/* A piece within its matrix; its word count (tiles * rows * wpv) into
 * *words, or false when that exceeds limit. */
static bool piece_ok(const struct ftpu__piece *pc, const struct ftpu__shape *s, uint32_t R,
		     uint64_t wpv, uint64_t limit, uint64_t *words)
{
	uint64_t tiles = div_up(s->cols, R);
	if (!pc->rows || !pc->tiles || pc->row0 >= s->rows || pc->rows > s->rows - pc->row0 ||
	    pc->tile0 >= tiles || pc->tiles > tiles - pc->tile0)
		return false;
	uint64_t vectors = (uint64_t)pc->tiles * pc->rows; /* < 2^62 */
	if (vectors > limit / wpv)
		return false;
	*words = vectors * wpv;
	return true;
}

int ftpu__program_finish(ftpu_program *p, char *why, size_t why_len)
{
	const struct ftpu__sizes *d = &p->dev;
	const uint32_t R = d->rows;

	free(p->data);
	p->data = NULL;
	if (d->rows != d->cols || R < 2 || R % 2 || R > 4096 || !d->ub_vectors ||
	    !d->weight_tiles || !d->acc_vectors || !d->bias_vectors)
		return why_fail(why, why_len, "unusable device sizes (%ux%u array)", d->rows,
				d->cols);
	if (p->n_resident > p->n_words)
		return why_fail(why, why_len, "resident part (%zu words) beyond the program "
				"(%zu words)", p->n_resident, p->n_words);
	for (size_t i = 0; i < p->n_inputs; i++)
		if (!shape_ok(&p->inputs[i]))
			return why_fail(why, why_len, "input %zu has a bad shape", i);
	for (size_t j = 0; j < p->n_outputs; j++)
		if (!shape_ok(&p->outputs[j]))
			return why_fail(why, why_len, "output %zu has a bad shape", j);

	/* the resident part: whole HOST_READs of WM and BIAS */
	uint64_t wm_end = 0, bytes = 0;
	for (size_t at = 0; at < p->n_resident;) {
		if (p->n_resident - at < FTPU_ISA_WORDS)
			return why_fail(why, why_len, "resident part cut inside an instruction");
		uint32_t w0 = p->words[at];
		unsigned op = ftpu_isa_op(w0), mem = ftpu_isa_flags(w0), n = ftpu_isa_n(w0);
		if (op != FTPU_OP_HOST_READ || (mem != FTPU_MEM_WM && mem != FTPU_MEM_BIAS) ||
		    !n || p->words[at + 2])
			return why_fail(why, why_len, "resident part: word %zu is not a "
					"HOST_READ of WM or BIAS", at);
		uint64_t data = (uint64_t)n * (mem == FTPU_MEM_WM ? R / 2 : R);
		if (data > p->n_resident - at - FTPU_ISA_WORDS)
			return why_fail(why, why_len, "resident part: HOST_READ data cut short");
		if (mem == FTPU_MEM_WM && (uint64_t)p->words[at + 1] + n > wm_end)
			wm_end = (uint64_t)p->words[at + 1] + n;
		bytes += data * 4;
		at += FTPU_ISA_WORDS + data;
	}
	if (wm_end > (uint64_t)d->weight_tiles * R)
		return why_fail(why, why_len, "weights beyond the weight memory");
	p->wm_rows = (uint32_t)wm_end;
	p->resident_bytes = bytes;
	p->resident_hash = ftpu__hash_words(p->words, p->n_resident);

	/* pieces: within their matrices and the words */
	for (size_t i = 0; i < p->n_in_pieces; i++) {
		const struct ftpu__piece *pc = &p->in_pieces[i];
		uint64_t words;
		if (pc->io >= p->n_inputs || pc->kind != FTPU__PIECE_BF16 ||
		    pc->at < p->n_resident || pc->at > p->n_words ||
		    !piece_ok(pc, &p->inputs[pc->io], R, R / 2, p->n_words - pc->at, &words))
			return why_fail(why, why_len, "input piece %zu out of range", i);
	}
	/* outputs: back to back in the DATA words, no more than the outputs
	 * hold (so the DATA buffer is bounded by what the caller provides) */
	uint64_t total = 0, cap = 0;
	for (size_t j = 0; j < p->n_outputs; j++) {
		uint64_t c = p->outputs[j].rows * div_up(p->outputs[j].cols, R) * R;
		cap = cap + c < cap ? UINT64_MAX : cap + c;
	}
	for (size_t i = 0; i < p->n_out_pieces; i++) {
		const struct ftpu__piece *pc = &p->out_pieces[i];
		uint64_t words;
		if (pc->io >= p->n_outputs ||
		    (pc->kind != FTPU__PIECE_BF16 && pc->kind != FTPU__PIECE_F32) ||
		    pc->at != total ||
		    !piece_ok(pc, &p->outputs[pc->io], R,
			      pc->kind == FTPU__PIECE_F32 ? R : R / 2, cap - total, &words))
			return why_fail(why, why_len, "output piece %zu out of range", i);
		total += words;
	}
	if (total > SIZE_MAX / sizeof(uint32_t) - 1)
		return why_fail(why, why_len, "too much output");
	/* The DATA buffer is allocated by its first run (ftpu__program_data):
	 * a small file may describe outputs of gigabytes, which loading it
	 * must not reserve (found by tests/fuzz/fuzz_program_file.c). */
	p->data_words = (size_t)total;
	return FTPU_OK;
}

uint32_t *ftpu__program_data(ftpu_program *p)
{
	if (!p->data)
		p->data = malloc((p->data_words + 1) * sizeof(uint32_t));
	return p->data;
}


static uint16_t bf16_of(const float *row, uint64_t j, uint64_t cols)
{
	return j < cols ? ftpu_f32_to_bf16(ftpu_f32_bits(row[j])) : 0x0000u;
}

void ftpu__program_pack(ftpu_program *p, const float *const *inputs)
{
	const uint32_t R = p->dev.rows;
	for (size_t i = 0; i < p->n_in_pieces; i++) {
		const struct ftpu__piece *pc = &p->in_pieces[i];
		const uint64_t cols = p->inputs[pc->io].cols;
		uint32_t *w = p->words + pc->at;
		for (uint32_t t = 0; t < pc->tiles; t++) {
			const uint64_t j0 = (uint64_t)(pc->tile0 + t) * R;
			for (uint64_t m = 0; m < pc->rows; m++) {
				const float *row = inputs[pc->io] + (pc->row0 + m) * cols;
				if (j0 + R <= cols) {
					for (uint32_t c = 0; c < R; c += 2)
						*w++ = ftpu_f32_to_bf16(ftpu_f32_bits(row[j0 + c])) |
						       (uint32_t)ftpu_f32_to_bf16(
							       ftpu_f32_bits(row[j0 + c + 1])) << 16;
				} else {
					for (uint32_t c = 0; c < R; c += 2)
						*w++ = bf16_of(row, j0 + c, cols) |
						       (uint32_t)bf16_of(row, j0 + c + 1, cols) << 16;
				}
			}
		}
	}
}

void ftpu__program_unpack(const ftpu_program *p, const uint32_t *data, float *const *outputs)
{
	const uint32_t R = p->dev.rows;
	for (size_t i = 0; i < p->n_out_pieces; i++) {
		const struct ftpu__piece *pc = &p->out_pieces[i];
		const uint64_t cols = p->outputs[pc->io].cols;
		const bool f32 = pc->kind == FTPU__PIECE_F32;
		const uint32_t *w = data + pc->at;
		for (uint32_t t = 0; t < pc->tiles; t++) {
			const uint64_t j0 = (uint64_t)(pc->tile0 + t) * R;
			const uint32_t n = j0 + R <= cols ? R : (uint32_t)(cols - j0);
			for (uint64_t m = 0; m < pc->rows; m++) {
				float *row = outputs[pc->io] + (pc->row0 + m) * cols + j0;
				if (f32) {
					memcpy(row, w, n * sizeof(float));
					w += R;
				} else {
					for (uint32_t c = 0; c < n; c++) {
						uint32_t b = ftpu_bf16_to_f32(
							(ftpu_bf16)(w[c / 2] >> (c % 2 * 16)));
						memcpy(&row[c], &b, sizeof(b));
					}
					w += R / 2;
				}
			}
		}
	}
}

void ftpu_program_free(ftpu_program *p)
{
	if (!p)
		return;
	free(p->inputs);
	free(p->outputs);
	free(p->words);
	free(p->in_pieces);
	free(p->out_pieces);
	free(p->data);
	free(p);
}

int ftpu_program_io(const ftpu_program *p, size_t *n_inputs, size_t *n_outputs)
{
	if (!p)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_program_io: program is NULL");
	if (n_inputs)
		*n_inputs = p->n_inputs;
	if (n_outputs)
		*n_outputs = p->n_outputs;
	return FTPU_OK;
}

int ftpu_program_shape(const ftpu_program *p, int is_output, size_t index, size_t *rows,
		       size_t *cols)
{
	if (!p)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_program_shape: program is NULL");
	if (is_output != 0 && is_output != 1)
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "ftpu_program_shape: is_output %d is not 0 or 1", is_output);
	size_t n = is_output ? p->n_outputs : p->n_inputs;
	if (index >= n)
		return ftpu__fail(NULL, FTPU_ERR_INVALID,
				  "ftpu_program_shape: %s %zu of %zu", is_output ? "output" : "input",
				  index, n);
	const struct ftpu__shape *s = is_output ? &p->outputs[index] : &p->inputs[index];
	if (rows)
		*rows = (size_t)s->rows;
	if (cols)
		*cols = (size_t)s->cols;
	return FTPU_OK;
}

/* ---- running ------------------------------------------------------------------------ */

static bool sizes_equal(const struct ftpu__sizes *s, const struct ftpu_device_info *i)
{
	return s->rows == i->rows && s->cols == i->cols && s->ub_vectors == i->ub_vectors &&
	       s->weight_tiles == i->weight_tiles && s->acc_vectors == i->acc_vectors &&
	       s->bias_vectors == i->bias_vectors;
}

int ftpu_run(ftpu_device *dev, ftpu_program *p, const float *const *inputs,
	     float *const *outputs, struct ftpu_stats *stats)
{
	struct ftpu_stats st = { 0 };
	int ret;

	if ((ret = ftpu__check_device(dev, "ftpu_run")))
		return ret;
	if (!p)
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_run: program is NULL");
	if ((p->n_inputs && !inputs) || (p->n_outputs && !outputs))
		return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_run: %s is NULL",
				  p->n_inputs && !inputs ? "inputs" : "outputs");
	for (size_t i = 0; i < p->n_inputs; i++)
		if (!inputs[i])
			return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_run: input %zu is NULL", i);
	for (size_t j = 0; j < p->n_outputs; j++)
		if (!outputs[j])
			return ftpu__fail(dev, FTPU_ERR_INVALID, "ftpu_run: output %zu is NULL", j);

	double t0 = ftpu__now_s();
	ftpu__lock(dev);
	const struct ftpu_device_info *info = ftpu__info(dev);
	if (!sizes_equal(&p->dev, info)) {
		ret = ftpu__fail(dev, FTPU_ERR_SHAPE,
				 "ftpu_run: the program was compiled for a %ux%u array, UB %u, "
				 "weight tiles %u, accumulators %u, bias %u; this device has "
				 "%ux%u, %u, %u, %u, %u",
				 p->dev.rows, p->dev.cols, p->dev.ub_vectors, p->dev.weight_tiles,
				 p->dev.acc_vectors, p->dev.bias_vectors, info->rows, info->cols,
				 info->ub_vectors, info->weight_tiles, info->acc_vectors,
				 info->bias_vectors);
		goto out_unlock;
	}
	if (!ftpu__program_data(p)) {
		ret = ftpu__fail(dev, FTPU_ERR_NOMEM, "ftpu_run: out of memory for %zu DATA words",
				 p->data_words);
		goto out_unlock;
	}
	ftpu__program_pack(p, inputs);

	/* The constants go only when the device does not hold them. */
	struct ftpu_wm_resident *res = ftpu__wm_resident(dev);
	bool send = p->n_resident &&
		    !(res->valid && res->hash == p->resident_hash &&
		      res->bytes == p->resident_bytes && res->row == 0 && res->rows == p->wm_rows);
	size_t skip = send ? 0 : p->n_resident;
	if (send)
		res->valid = false; /* until they are all in */
	struct ftpu_exec x = {
		.words = p->words + skip,
		.n_words = p->n_words - skip,
		.data = p->data,
		.data_words = p->data_words,
	};
	ret = ftpu__execute(dev, &x, &st);
	if (ret)
		goto out_unlock;
	if (send)
		*res = (struct ftpu_wm_resident){ .valid = true, .hash = p->resident_hash,
						  .bytes = p->resident_bytes, .row = 0,
						  .rows = p->wm_rows };
	if (x.data_got != p->data_words) {
		ret = ftpu__fail(dev, FTPU_ERR_PROTOCOL,
				 "ftpu_run: the device sent %zu DATA words, the program expects %zu",
				 x.data_got, p->data_words);
		goto out_unlock;
	}
	ftpu__program_unpack(p, p->data, outputs);
	st.host_seconds = ftpu__now_s() - t0;
	ftpu__set_last_stats(dev, &st);
	if (stats)
		*stats = st;
out_unlock:
	ftpu__unlock(dev);
	return ret;
}

/* ---- saving ------------------------------------------------------------------------ */

/* Into a file (f), or into a growing buffer (mem) when f is NULL. */
struct writer {
	FILE *f;
	uint8_t *mem;
	size_t mem_len, mem_cap;
	uint32_t crc;
	bool err;
};

static void w_bytes(struct writer *w, const void *b, size_t n)
{
	if (w->err)
		return;
	if (w->f) {
		if (fwrite(b, 1, n, w->f) != n)
			w->err = true;
	} else {
		if (n > w->mem_cap - w->mem_len) {
			size_t cap = w->mem_cap ? w->mem_cap : 256;
			while (n > cap - w->mem_len) {
				if (cap > SIZE_MAX / 2) {
					w->err = true;
					return;
				}
				cap *= 2;
			}
			uint8_t *m = realloc(w->mem, cap);
			if (!m) {
				w->err = true;
				return;
			}
			w->mem = m;
			w->mem_cap = cap;
		}
		memcpy(w->mem + w->mem_len, b, n);
		w->mem_len += n;
	}
	w->crc = ftpu_crc32_update(w->crc, b, n);
}

static void w_u32(struct writer *w, uint32_t v)
{
	uint8_t b[4];
	ftpu_link_put_le32(b, v);
	w_bytes(w, b, 4);
}

static void w_u64(struct writer *w, uint64_t v)
{
	w_u32(w, (uint32_t)v);
	w_u32(w, (uint32_t)(v >> 32));
}

static void w_shapes(struct writer *w, const struct ftpu__shape *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		w_u64(w, s[i].rows);
		w_u64(w, s[i].cols);
	}
}

static void w_pieces(struct writer *w, const struct ftpu__piece *pc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		w_u32(w, pc[i].io);
		w_u32(w, pc[i].kind);
		w_u64(w, pc[i].at);
		w_u64(w, pc[i].row0);
		w_u64(w, pc[i].rows);
		w_u32(w, pc[i].tile0);
		w_u32(w, pc[i].tiles);
	}
}

/* An input piece's words [at, end). */
struct span {
	uint64_t at, end;
};

static int by_at(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->at, y = ((const struct span *)b)->at;
	return (x > y) - (x < y);
}

/* The input pieces' spans sorted by position (n_in_pieces + 1 entries
 * allocated), or NULL when out of memory. */
static struct span *sorted_spans(const ftpu_program *p)
{
	struct span *spans = malloc((p->n_in_pieces + 1) * sizeof(*spans));
	if (!spans)
		return NULL;
	for (size_t i = 0; i < p->n_in_pieces; i++) {
		const struct ftpu__piece *pc = &p->in_pieces[i];
		spans[i].at = pc->at;
		spans[i].end = pc->at + (uint64_t)pc->tiles * pc->rows * (p->dev.rows / 2);
	}
	qsort(spans, p->n_in_pieces, sizeof(*spans), by_at);
	return spans;
}

/* Writes p. The input pieces' words (the last run's inputs) are written as
 * zeros, from spans sorted by position: the file is the program alone. */
static void w_program(struct writer *w, const ftpu_program *p, const struct span *spans)
{
	const struct ftpu__sizes *d = &p->dev;
	uint64_t zero_end = 0;
	size_t k = 0;
	uint8_t buf[4096];

	w_bytes(w, magic, sizeof(magic));
	w_u32(w, FORMAT_VERSION);
	w_u32(w, 0);
	w_u32(w, d->rows);
	w_u32(w, d->cols);
	w_u32(w, d->ub_vectors);
	w_u32(w, d->weight_tiles);
	w_u32(w, d->acc_vectors);
	w_u32(w, d->bias_vectors);
	w_u32(w, (uint32_t)p->n_inputs);
	w_u32(w, (uint32_t)p->n_outputs);
	w_u32(w, (uint32_t)p->n_in_pieces);
	w_u32(w, (uint32_t)p->n_out_pieces);
	w_u64(w, p->n_words);
	w_u64(w, p->n_resident);
	w_shapes(w, p->inputs, p->n_inputs);
	w_shapes(w, p->outputs, p->n_outputs);
	w_pieces(w, p->in_pieces, p->n_in_pieces);
	w_pieces(w, p->out_pieces, p->n_out_pieces);
	for (size_t i = 0; i < p->n_words;) {
		size_t n = 0;
		for (; n < sizeof(buf) && i < p->n_words; n += 4, i++) {
			for (; k < p->n_in_pieces && spans[k].at <= i; k++)
				zero_end = spans[k].end > zero_end ? spans[k].end : zero_end;
			ftpu_link_put_le32(buf + n, i < zero_end ? 0 : p->words[i]);
		}
		w_bytes(w, buf, n);
	}
	uint32_t crc = w->crc;
	w_u32(w, crc);
}

static int errno_status(int e)
{
	return e == ENOENT || e == ENOTDIR ? FTPU_ERR_NOT_FOUND :
	       e == ENOMEM		   ? FTPU_ERR_NOMEM :
					     FTPU_ERR_IO;
}

/* The path the symbolic link at path names (relative to its directory),
 * for a target that does not exist yet; NULL (errno set) on failure. */
static char *link_target(const char *path)
{
	char to[PATH_MAX];
	ssize_t n = readlink(path, to, sizeof(to) - 1);
	if (n < 0)
		return NULL;
	to[n] = '\0';
	const char *slash = strrchr(path, '/');
	size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
	char *out = malloc(dir + (size_t)n + 1);
	if (!out)
		return NULL;
	memcpy(out, path, dir);
	memcpy(out + dir, to, (size_t)n + 1);
	return out;
}

int ftpu_program_save(const ftpu_program *p, const char *path)
{
	static atomic_uint counter;
	struct writer w = { 0 };
	struct span *spans;
	char *tmp;
	int fd = -1, ret, e;

	if (!p || !path || !path[0])
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_program_save: %s",
				  !p ? "program is NULL" : "no path");
	if (p->n_inputs > UINT32_MAX || p->n_outputs > UINT32_MAX ||
	    p->n_in_pieces > UINT32_MAX || p->n_out_pieces > UINT32_MAX)
		return ftpu__fail(NULL, FTPU_ERR_UNSUPPORTED,
				  "ftpu_program_save: too many inputs, outputs or pieces");
	/* A symbolic link is written through: its target gets the new file
	 * (the rename below would put a regular file in the link's place). */
	char *real = NULL;
	struct stat ls;
	if (!lstat(path, &ls) && S_ISLNK(ls.st_mode)) {
		real = realpath(path, NULL);
		if (!real && errno == ENOENT)
			real = link_target(path); /* a new target */
		if (!real) {
			e = errno;
			return ftpu__fail(NULL, errno_status(e),
					  "ftpu_program_save: %s: a symbolic link whose target "
					  "cannot be resolved: %s", path, strerror(e));
		}
		path = real;
	}
	size_t len = strlen(path) + 64;
	tmp = malloc(len);
	spans = sorted_spans(p);
	if (!tmp || !spans) {
		free(tmp);
		free(spans);
		free(real);
		return ftpu__fail(NULL, FTPU_ERR_NOMEM, "ftpu_program_save: out of memory");
	}
	/* a fresh file next to path, renamed over it when complete */
	for (int tries = 0; fd < 0; tries++) {
		snprintf(tmp, len, "%s.tmp.%ld.%u", path, (long)getpid(),
			 atomic_fetch_add(&counter, 1));
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && (errno != EEXIST || tries == 100)) {
			e = errno;
			ret = ftpu__fail(NULL, errno_status(e), "ftpu_program_save: %s: %s",
					 tmp, strerror(e));
			goto out_free;
		}
	}
	w.f = fdopen(fd, "wb");
	if (!w.f) {
		e = errno;
		close(fd);
		ret = ftpu__fail(NULL, errno_status(e), "ftpu_program_save: %s", strerror(e));
		goto out_unlink;
	}
	w_program(&w, p, spans);
	e = w.err ? (errno ? errno : EIO) : 0;
	if (!e && fflush(w.f))
		e = errno;
	if (!e && fsync(fileno(w.f)))
		e = errno;
	if (fclose(w.f) && !e)
		e = errno;
	if (e) {
		ret = ftpu__fail(NULL, errno_status(e), "ftpu_program_save: writing %s: %s",
				 tmp, strerror(e));
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		e = errno;
		ret = ftpu__fail(NULL, errno_status(e), "ftpu_program_save: rename to %s: %s",
				 path, strerror(e));
		goto out_unlink;
	}
	free(tmp);
	free(spans);
	free(real);
	return FTPU_OK;

out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	free(spans);
	free(real);
	return ret;
}

int ftpu__program_encode(const ftpu_program *p, uint8_t **out, size_t *len)
{
	struct writer w = { 0 };
	struct span *spans;

	if (!p || !out || !len)
		return FTPU_ERR_INVALID;
	if (p->n_inputs > UINT32_MAX || p->n_outputs > UINT32_MAX ||
	    p->n_in_pieces > UINT32_MAX || p->n_out_pieces > UINT32_MAX)
		return FTPU_ERR_UNSUPPORTED;
	spans = sorted_spans(p);
	if (!spans)
		return FTPU_ERR_NOMEM;
	w_program(&w, p, spans);
	free(spans);
	if (w.err) {
		free(w.mem);
		return FTPU_ERR_NOMEM;
	}
	*out = w.mem;
	*len = w.mem_len;
	return FTPU_OK;
}

/* ---- loading ------------------------------------------------------------------------ */

static int read_file(const char *path, uint8_t **out, size_t *out_len)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0, size;
	int fd, e, ret;

	fd = ftpu_open_file(path);
	if (fd < 0)
		return ftpu__fail(NULL, fd, "ftpu_program_load: %s", ftpu_last_error(NULL));
	if (fstat(fd, &st)) {
		e = errno;
		ret = ftpu__fail(NULL, errno_status(e), "ftpu_program_load: %s: %s", path,
				 strerror(e));
		goto out_close;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX - 1) {
		ret = ftpu__fail(NULL, FTPU_ERR_NOMEM, "ftpu_program_load: %s: too large", path);
		goto out_close;
	}
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf) {
		ret = ftpu__fail(NULL, FTPU_ERR_NOMEM,
				 "ftpu_program_load: %s: out of memory for %zu bytes", path, size);
		goto out_close;
	}
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			ret = ftpu__fail(NULL, FTPU_ERR_IO, "ftpu_program_load: %s: %s", path,
					 strerror(e));
			goto out_close;
		}
		if (n == 0)
			break; /* shrank meanwhile: the checks below see it */
		got += (size_t)n;
	}
	*out = buf;
	*out_len = got;
	close(fd);
	return FTPU_OK;

out_close:
	free(buf);
	close(fd);
	return ret;
}

struct reader {
	const uint8_t *p;
	size_t at;
};

static uint32_t r_u32(struct reader *r)
{
	uint32_t v = ftpu_link_get_le32(r->p + r->at);
	r->at += 4;
	return v;
}

static uint64_t r_u64(struct reader *r)
{
	uint64_t lo = r_u32(r);
	return lo | (uint64_t)r_u32(r) << 32;
}

static void r_shapes(struct reader *r, struct ftpu__shape *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		s[i].rows = r_u64(r);
		s[i].cols = r_u64(r);
	}
}

static void r_pieces(struct reader *r, struct ftpu__piece *pc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pc[i].io = r_u32(r);
		pc[i].kind = r_u32(r);
		pc[i].at = r_u64(r);
		pc[i].row0 = r_u64(r);
		pc[i].rows = r_u64(r);
		pc[i].tile0 = r_u32(r);
		pc[i].tiles = r_u32(r);
	}
}

int ftpu__program_parse(const uint8_t *buf, size_t len, ftpu_program **out, char *why,
			size_t why_len)
{
	struct reader r = { buf, 0 };
	int ret;

	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic)))
		return why_fail(why, why_len, "not an ftpu program file (bad magic)");
	if (len < 16)
		return why_fail(why, why_len, "truncated (%zu bytes)", len);
	if (ftpu_crc32_update(0, buf, len - 4) != ftpu_link_get_le32(buf + len - 4))
		return why_fail(why, why_len, "CRC mismatch: the file is damaged or truncated");
	uint32_t version = ftpu_link_get_le32(buf + 8);
	if (!version)
		return why_fail(why, why_len, "format version 0");
	if (version > FORMAT_VERSION) {
		if (why_len)
			snprintf(why, why_len, "format version %u is newer than this "
				 "library reads (%u)", version, FORMAT_VERSION);
		return FTPU_ERR_UNSUPPORTED;
	}
	if (len < HEADER_BYTES + 4)
		return why_fail(why, why_len, "truncated header (%zu bytes)", len);
	r.at = 12;
	if (r_u32(&r))
		return why_fail(why, why_len, "reserved flags set");
	struct ftpu__sizes d;
	d.rows = r_u32(&r);
	d.cols = r_u32(&r);
	d.ub_vectors = r_u32(&r);
	d.weight_tiles = r_u32(&r);
	d.acc_vectors = r_u32(&r);
	d.bias_vectors = r_u32(&r);
	uint64_t ni = r_u32(&r), no = r_u32(&r), npi = r_u32(&r), npo = r_u32(&r);
	uint64_t nw = r_u64(&r), nres = r_u64(&r);
	/* every count against the bytes there are, before allocating */
	uint64_t body = len - HEADER_BYTES - 4;
	if (nw > body / 4 ||
	    SHAPE_BYTES * (ni + no) + PIECE_BYTES * (npi + npo) + 4 * nw != body)
		return why_fail(why, why_len, "its sizes (%" PRIu64 " inputs, %" PRIu64
				" outputs, %" PRIu64 " + %" PRIu64 " pieces, %" PRIu64
				" words) disagree with its length (%zu bytes)",
				ni, no, npi, npo, nw, len);
	if (nres > nw)
		return why_fail(why, why_len, "resident part longer than the program");

	ftpu_program *p = calloc(1, sizeof(*p));
	if (!p)
		return FTPU_ERR_NOMEM;
	p->dev = d;
	p->n_inputs = (size_t)ni;
	p->n_outputs = (size_t)no;
	p->n_in_pieces = (size_t)npi;
	p->n_out_pieces = (size_t)npo;
	p->n_words = (size_t)nw;
	p->n_resident = (size_t)nres;
	p->inputs = calloc(ni + 1, sizeof(*p->inputs));
	p->outputs = calloc(no + 1, sizeof(*p->outputs));
	p->in_pieces = calloc(npi + 1, sizeof(*p->in_pieces));
	p->out_pieces = calloc(npo + 1, sizeof(*p->out_pieces));
	p->words = malloc((nw + 1) * sizeof(*p->words));
	if (!p->inputs || !p->outputs || !p->in_pieces || !p->out_pieces || !p->words) {
		ret = FTPU_ERR_NOMEM;
		if (why_len)
			snprintf(why, why_len, "out of memory");
		goto out_free;
	}
	r_shapes(&r, p->inputs, p->n_inputs);
	r_shapes(&r, p->outputs, p->n_outputs);
	r_pieces(&r, p->in_pieces, p->n_in_pieces);
	r_pieces(&r, p->out_pieces, p->n_out_pieces);
	for (size_t i = 0; i < p->n_words; i++)
		p->words[i] = r_u32(&r);
	ret = ftpu__program_finish(p, why, why_len);
	if (ret)
		goto out_free;
	*out = p;
	return FTPU_OK;

out_free:
	ftpu_program_free(p);
	return ret;
}

int ftpu_program_load(const char *path, ftpu_program **out)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	char why[256];
	int ret;

	if (!path || !out)
		return ftpu__fail(NULL, FTPU_ERR_INVALID, "ftpu_program_load: %s is NULL",
				  path ? "out" : "path");
	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	ret = ftpu__program_parse(buf, len, out, why, sizeof(why));
	free(buf);
	if (ret)
		return ftpu__fail(NULL, ret, "ftpu_program_load: %s: %s", path, why);
	return FTPU_OK;
}
