/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numeric_int.c - the parts of the numeric contract (docs/numerics.md) that
 * need no FPU: fp32 -> bf16, the activation's output stage and an integer
 * fp32 adder. Freestanding and 32-bit only, so that the soft device's
 * RV32I firmware (firmware/soc/) builds it; numeric.c does the rest with the
 * host's FPU.
 */
#include "numeric.h"

ftpu_bf16 ftpu_f32_to_bf16(uint32_t x)
{
	/* Pure integer code: the FPU mode must not matter here. */
	if (ftpu_f32_is_nan(x))
		return (ftpu_bf16)((x >> 16) | 0x0040u); /* quiet, sign kept */
	if ((x & 0x7f800000u) == 0)
		return (ftpu_bf16)((x >> 16) & 0x8000u); /* zero or subnormal */
	/* Round to nearest, ties to even. A carry out of the mantissa bumps
	 * the exponent, which is exactly right, up to and including Inf. */
	return (ftpu_bf16)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

ftpu_bf16 ftpu_activate_out(uint32_t s, bool relu)
{
	/* ReLU keeps NaN and maps -0 (and every negative) to +0. The sum is
	 * never subnormal, so sign clear and nonzero means s > 0. */
	if (relu && !ftpu_f32_is_nan(s) && ((s & 0x80000000u) || s == 0))
		s = 0;
	return ftpu_f32_to_bf16(s);
}

#define F32_INF 0x7f800000u
#define F32_MIN_NORMAL 0x00800000u
#define F32_SIGN 0x80000000u
/* Guard bits below the 24-bit significand, the last one sticky: three
 * suffice for a correctly rounded sum; 7 put the leading one at bit 30. */
#define GUARD 7

uint32_t ftpu_f32_add_int(uint32_t x, uint32_t y)
{
	uint32_t ax = x & ~F32_SIGN, ay = y & ~F32_SIGN, mx, my, s, t;
	int e, d;

	if (ax < ay) { /* |x| >= |y|: the result has x's sign */
		t = x, x = y, y = t;
		t = ax, ax = ay, ay = t;
	}
	if (ax > F32_INF) /* a NaN (y's too: it is not larger) */
		return FTPU_F32_QNAN;
	if (ax == F32_INF) /* Inf - Inf, else Inf */
		return ay == F32_INF && x != y ? FTPU_F32_QNAN : x;
	if (ay < F32_MIN_NORMAL) /* DAZ: y is a zero; -0 + -0 is -0 */
		return ax < F32_MIN_NORMAL ? x & y & F32_SIGN : x;
	e = (int)(ax >> 23);
	d = e - (int)(ay >> 23);
	mx = (F32_MIN_NORMAL | (ax & (F32_MIN_NORMAL - 1u))) << GUARD;
	my = (F32_MIN_NORMAL | (ay & (F32_MIN_NORMAL - 1u))) << GUARD;
	if (d > 30) {
		my = 1; /* all of it sticky */
	} else if (d) {
		t = my >> d;
		my = t | (t << d != my); /* bits shifted out: sticky */
	}
	s = (x ^ y) & F32_SIGN ? mx - my : mx + my;
	if (s == 0)
		return 0; /* exact cancellation: +0 when rounding to nearest */
	if (s >> (24 + GUARD)) { /* a carry: one bit right, sticky kept */
		s = s >> 1 | (s & 1u);
		e++;
	}
	while (!(s >> (23 + GUARD))) { /* cancellation: exact, bits come back */
		s <<= 1;
		e--;
	}
	t = s & ((1u << GUARD) - 1u); /* the bits rounded off */
	s >>= GUARD;
	if (t > 1u << (GUARD - 1) || (t == 1u << (GUARD - 1) && (s & 1u)))
		s++;
	if (s >> 24) { /* rounded up to the next power of two */
		s >>= 1;
		e++;
	}
	x &= F32_SIGN;
	if (e >= 0xff)
		return x | F32_INF;
	if (e <= 0)
		return x; /* below 2^-126: FTZ, sign kept */
	return x | (uint32_t)e << 23 | (s & (F32_MIN_NORMAL - 1u));
}
