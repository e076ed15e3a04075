/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu_test.h - shared test helpers: a seeded RNG, operand generators that
 * favour the interesting corners of bf16/fp32, and the FTPU_FULL switch.
 * Header-only so each test binary stays one file.
 */
#ifndef FTPU_TEST_H
#define FTPU_TEST_H

#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FTPU_FULL=1 selects the long sweeps of make check-full. */
static inline bool ftpu_test_full(void)
{
	const char *s = getenv("FTPU_FULL");
	return s && s[0] == '1';
}

/* FTPU_SEED overrides the fixed default seed; failures print the seed. */
static inline uint64_t ftpu_test_seed(void)
{
	const char *s = getenv("FTPU_SEED");
	return s ? strtoull(s, NULL, 0) : 0x5eedf7b0ull;
}

/* A fresh directory /tmp/ftpu_<tag>_XXXXXX for a test's files, its path in
 * dir (len bytes); false if it cannot be made. */
static inline bool ftpu_test_mkdtemp(char *dir, size_t len, const char *tag)
{
	snprintf(dir, len, "/tmp/ftpu_%s_XXXXXX", tag);
	return mkdtemp(dir) != NULL;
}

/* Removes the files and empty directories in dir, then dir. */
static inline void ftpu_test_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p))
			rmdir(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r) /* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint32_t rng_u32(struct rng *r)
{
	return (uint32_t)(rng_next(r) >> 32);
}

/* Uniform in [0, n). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* bf16 values every unit must handle: zeros, subnormals, extremes, Inf, NaN. */
static const uint16_t bf16_specials[] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x8080,
	0x0081, 0x3F80, 0xBF80, 0x3F81, 0x4000, 0x3FFF, 0x7F7F, 0xFF7F,
	0x7F00, 0x0100, 0x1F80, 0x5F80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0,
	0x7F81, 0xFF81, 0x7FFF, 0x3F00, 0x2000, 0x6000,
};
#define N_BF16_SPECIALS (sizeof(bf16_specials) / sizeof(bf16_specials[0]))

static const uint32_t f32_specials[] = {
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
	0x00800000, 0x80800000, 0x00800001, 0x80800001, 0x00FFFFFF, 0x01000000,
	0x3F800000, 0xBF800000, 0x3F800001, 0xBF7FFFFF, 0x33800000, 0x33C00000,
	0x7F7FFFFF, 0xFF7FFFFF, 0x7F7FFFFE, 0x7F000000, 0x7F800000, 0xFF800000,
	0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x4B800000, 0xCB800001,
};
#define N_F32_SPECIALS (sizeof(f32_specials) / sizeof(f32_specials[0]))

/* A bf16 operand: 1/8 specials, else random sign and fraction with the
 * exponent either anywhere or near the middle (so products stay in range). */
static inline uint16_t rng_bf16(struct rng *r)
{
	uint32_t u = rng_u32(r);
	if ((u & 7) == 0)
		return bf16_specials[rng_below(r, N_BF16_SPECIALS)];
	uint32_t exp = (u & 8) ? (u >> 4) & 0xFF : 100 + rng_below(r, 55);
	return (uint16_t)(((u >> 12) & 0x8000) | (exp << 7) | ((u >> 20) & 0x7F));
}

/* A GEMM operand: moderate magnitudes (so long sums mostly stay finite and
 * rounding matters), with special_per_mille of the special values. */
static inline uint16_t rng_bf16_operand(struct rng *r, unsigned special_per_mille)
{
	if (rng_below(r, 1000) < special_per_mille)
		return bf16_specials[rng_below(r, N_BF16_SPECIALS)];
	uint32_t u = rng_u32(r);
	return (uint16_t)((u & 0x8000) | (118 + rng_below(r, 18)) << 7 | (u & 0x7F));
}

/* An fp32 operand, by the same recipe as rng_bf16. */
static inline uint32_t rng_f32(struct rng *r)
{
	uint32_t u = rng_u32(r);
	if ((u & 7) == 0)
		return f32_specials[rng_below(r, N_F32_SPECIALS)];
	uint32_t exp = (u & 8) ? rng_below(r, 256) : 100 + rng_below(r, 55);
	return (u & 0x80000000u) | (exp << 23) | (rng_u32(r) & 0x7FFFFF);
}

/* A second addend that makes x + y hard: the same or a nearby exponent
 * (cancellation, carries), an exact half-ulp (ties), or an unrelated value. */
static inline uint32_t rng_f32_partner(struct rng *r, uint32_t x)
{
	uint32_t u = rng_u32(r), sign = (u & 1) ? 0x80000000u : 0;
	int exp = (int)((x >> 23) & 0xFF);
	uint32_t frac = rng_u32(r) & 0x7FFFFF;
	switch ((u >> 1) & 7) {
	case 0: /* ties: y is half an ulp of x, or x with its last bit moved */
		exp -= 24;
		frac = 0;
		break;
	case 1: /* near-cancellation: x with a few low bits changed */
		frac = (x & 0x7FFFFF) ^ (frac & 0xF);
		break;
	case 2:
	case 3:
		exp += (int)rng_below(r, 7) - 3;
		break;
	case 4:
		exp -= (int)rng_below(r, 30);
		break;
	default:
		return rng_f32(r);
	}
	if (exp < 0)
		exp = 0;
	if (exp > 255)
		exp = 255;
	return sign | ((uint32_t)exp << 23) | frac;
}

#endif /* FTPU_TEST_H */
