/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_program_file.c - libFuzzer target over the program file reader
 * (host-lib/src/program.c: ftpu__program_parse, what ftpu_program_load
 * runs on a file's bytes, and ftpu__program_finish's checks).
 *
 * Input: a mode byte, then the file's bytes. Mode bit 0: the trailing
 * CRC-32 is recomputed first, so that the fuzzer gets past it to the
 * counts, shapes, pieces and instructions.
 *
 * Checked for a file that loads: no DATA buffer is allocated yet (a small
 * file may describe outputs of gigabytes); the program's inputs and outputs and
 * their shapes (ftpu_program_io, ftpu_program_shape) are the file's; its
 * file image (ftpu__program_encode, the bytes ftpu_program_save writes) is
 * the input with the input pieces' words zeroed and the CRC redone (every
 * other byte kept); that image loads again, to a program that encodes to
 * the same bytes, with the same derived sizes (DATA words, resident hash,
 * weight rows). For a file that does not: a known status (CORRUPT,
 * UNSUPPORTED, NOMEM) and a one-line reason.
 *
 * make fuzz-program_file runs it (mk/fuzz.mk); test_fuzz_replay replays
 * the corpus (tests/fuzz/corpus/program_file).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "ftpu.h"
#include "link.h"

#include "fuzz_check.h"

static uint32_t pf_le32(const uint8_t *p)
{
	return ftpu_link_get_le32(p);
}

static uint64_t pf_le64(const uint8_t *p)
{
	return pf_le32(p) | (uint64_t)pf_le32(p + 4) << 32;
}

/* A parse that failed: a known status and a reason. */
static void pf_check_refusal(int ret, const char *why)
{
	FUZZ_CHECK(ret == FTPU_ERR_CORRUPT || ret == FTPU_ERR_UNSUPPORTED ||
		   ret == FTPU_ERR_NOMEM);
	FUZZ_CHECK(why[0] && memchr(why, '\0', 256) && !strchr(why, '\n'));
}

static int fuzz_program_file_one(const uint8_t *data, size_t size)
{
	char why[256] = "";
	ftpu_program *p = NULL, *q = NULL;
	uint8_t *buf, *enc = NULL, *enc2 = NULL;
	size_t len, enc_len = 0, enc2_len = 0;

	if (!size)
		return 0;
	len = size - 1;
	/* a copy of exactly the file's length: ASan sees a read beyond it */
	buf = malloc(len ? len : 1);
	FUZZ_CHECK(buf);
	memcpy(buf, data + 1, len);
	if ((data[0] & 1) && len >= 4)
		ftpu_link_put_le32(buf + len - 4, ftpu_crc32_update(0, buf, len - 4));

	int ret = ftpu__program_parse(buf, len, &p, why, sizeof(why));
	if (ret) {
		FUZZ_CHECK(p == NULL);
		pf_check_refusal(ret, why);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(p != NULL);
	/* loading reserves no DATA buffer: its outputs may claim gigabytes */
	FUZZ_CHECK(p->data == NULL);

	/* the header's counts and shapes are what the program reports */
	FUZZ_CHECK(len >= 76);
	size_t ni, no, rows, cols;
	FUZZ_CHECK(ftpu_program_io(p, &ni, &no) == FTPU_OK);
	FUZZ_CHECK(ni == pf_le32(buf + 40) && no == pf_le32(buf + 44));
	size_t npi = pf_le32(buf + 48), npo = pf_le32(buf + 52);
	uint64_t nw = pf_le64(buf + 56);
	size_t words_at = 72 + 16 * (ni + no) + 40 * (npi + npo);
	FUZZ_CHECK(words_at + 4 * nw + 4 == len);
	for (size_t k = 0; k < ni + no; k++) {
		int out = k >= ni;
		size_t idx = out ? k - ni : k;
		FUZZ_CHECK(ftpu_program_shape(p, out, idx, &rows, &cols) == FTPU_OK);
		FUZZ_CHECK(rows == pf_le64(buf + 72 + 16 * k) &&
			   cols == pf_le64(buf + 80 + 16 * k));
		FUZZ_CHECK(rows && cols);
	}
	FUZZ_CHECK(ftpu_program_shape(p, 0, ni, &rows, &cols) == FTPU_ERR_INVALID);
	FUZZ_CHECK(ftpu_program_shape(p, 1, no, &rows, &cols) == FTPU_ERR_INVALID);

	/* saved: the input with the input pieces' words zeroed */
	FUZZ_CHECK(ftpu__program_encode(p, &enc, &enc_len) == FTPU_OK);
	FUZZ_CHECK(enc_len == len);
	uint8_t *want = malloc(len);
	FUZZ_CHECK(want);
	memcpy(want, buf, len);
	uint32_t half = pf_le32(buf + 16) / 2;
	for (size_t k = 0; k < npi; k++) {
		const uint8_t *pc = buf + 72 + 16 * (ni + no) + 40 * k;
		uint64_t at = pf_le64(pc + 8), prow = pf_le64(pc + 24);
		uint64_t tiles = pf_le32(pc + 36);
		uint64_t n = tiles * prow * half;
		FUZZ_CHECK(at <= nw && n <= nw - at); /* the reader checked it */
		memset(want + words_at + 4 * at, 0, 4 * n);
	}
	ftpu_link_put_le32(want + len - 4, ftpu_crc32_update(0, want, len - 4));
	FUZZ_CHECK(!memcmp(enc, want, len));
	free(want);

	/* ... which loads again, to the same program */
	ret = ftpu__program_parse(enc, enc_len, &q, why, sizeof(why));
	FUZZ_CHECK(ret == FTPU_OK && q);
	FUZZ_CHECK(ftpu__program_encode(q, &enc2, &enc2_len) == FTPU_OK);
	FUZZ_CHECK(enc2_len == enc_len && !memcmp(enc, enc2, enc_len));
	FUZZ_CHECK(q->data_words == p->data_words && q->resident_hash == p->resident_hash &&
		   q->resident_bytes == p->resident_bytes && q->wm_rows == p->wm_rows &&
		   q->n_resident == p->n_resident && q->n_words == p->n_words);

	free(enc2);
	free(enc);
	ftpu_program_free(q);
	ftpu_program_free(p);
	free(buf);
	return 0;
}

#ifndef FUZZ_PROGRAM_FILE_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_program_file_one(data, size);
}
#endif
