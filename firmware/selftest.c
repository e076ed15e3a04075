/* SPDX-License-Identifier: Apache-2.0 */
/* selftest.c - the SELFTEST op's tests on the control core. Portable C. */
#include "selftest.h"

#include "crc32.h"
#include "ftpu_fw.h"
#include "hal.h"

#define GM 4 /* C = A (GM x GK) * B (GK x GN) */
#define GK 5
#define GN 3

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 24;
}

struct gemm {
	uint32_t a[GM][GK], b[GK][GN], c[GM][GN];
};

/* C = A B for A and B from a fixed generator. */
static void gemm_run(struct gemm *g)
{
	uint32_t s = 12345u;
	for (unsigned k = 0; k < GK; k++) {
		for (unsigned j = 0; j < GN; j++)
			g->b[k][j] = lcg(&s);
		for (unsigned i = 0; i < GM; i++)
			g->a[i][k] = lcg(&s);
	}
	for (unsigned i = 0; i < GM; i++)
		for (unsigned j = 0; j < GN; j++) {
			g->c[i][j] = 0;
			for (unsigned k = 0; k < GK; k++)
				g->c[i][j] += g->a[i][k] * g->b[k][j];
		}
}

/* Checks C without a second copy of it: every row sum of C must equal A's
 * row times B's row sums, every column sum A's column sums times B's
 * column (algorithm-based fault tolerance). 1 when C passes. */
static int gemm_check(const struct gemm *g)
{
	uint32_t brow[GK], acol[GK];
	for (unsigned k = 0; k < GK; k++) {
		brow[k] = acol[k] = 0;
		for (unsigned j = 0; j < GN; j++)
			brow[k] += g->b[k][j];
		for (unsigned i = 0; i < GM; i++)
			acol[k] += g->a[i][k];
	}
	for (unsigned i = 0; i < GM; i++) {
		uint32_t row = 0, want = 0;
		for (unsigned j = 0; j < GN; j++)
			row += g->c[i][j];
		for (unsigned k = 0; k < GK; k++)
			want += g->a[i][k] * brow[k];
		if (row != want)
			return 0;
	}
	for (unsigned j = 0; j < GN; j++) {
		uint32_t col = 0, want = 0;
		for (unsigned i = 0; i < GM; i++)
			col += g->c[i][j];
		for (unsigned k = 0; k < GK; k++)
			want += acol[k] * g->b[k][j];
		if (col != want)
			return 0;
	}
	return 1;
}

/* Two passes of an address-dependent pattern and its complement. */
static int ram_ok(void)
{
	unsigned n;
	volatile uint32_t *p = fw_hal_scratch(&n);
	for (uint32_t inv = 0; inv < 2; inv++) {
		for (unsigned i = 0; i < n; i++)
			p[i] = (i * 0x9e3779b9u) ^ (0u - inv);
		for (unsigned i = 0; i < n; i++)
			if (p[i] != ((i * 0x9e3779b9u) ^ (0u - inv)))
				return 0;
	}
	return 1;
}

void fw_selftest(const struct fw_boot_record *r, uint32_t *out)
{
	static const char check[] = "123456789";
	uint32_t ran = FTPU_FW_TEST_CRC | FTPU_FW_TEST_GEMM | FTPU_FW_TEST_RAM;
	uint32_t failed = 0;

	if (ftpu_crc32_update(0, check, 9) != 0xcbf43926u)
		failed |= FTPU_FW_TEST_CRC;
	struct gemm g;
	gemm_run(&g);
	if (!gemm_check(&g))
		failed |= FTPU_FW_TEST_GEMM;
	if (!ram_ok())
		failed |= FTPU_FW_TEST_RAM;
	if (r->app_state != FTPU_FW_APP_NONE) {
		ran |= FTPU_FW_TEST_APP;
		if (!fw_boot_app_intact(r))
			failed |= FTPU_FW_TEST_APP;
	}
	out[FTPU_FW_SELFTEST_PASSED] = failed == 0;
	out[FTPU_FW_SELFTEST_RAN] = ran;
	out[FTPU_FW_SELFTEST_FAILED] = failed;
}
