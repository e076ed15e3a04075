/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numeric.h - the bit-exact numeric contract of ftpu (docs/numerics.md)
 * in C: bf16 <-> fp32 conversion, the PE step, the activation
 * and the reference GEMM. This is the oracle every RTL and transport test
 * compares against.
 *
 * fp32 values travel as uint32_t bit patterns so that NaN payloads and
 * signed zeros survive every call unchanged.
 */
#ifndef FTPU_NUMERIC_H
#define FTPU_NUMERIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint16_t ftpu_bf16; /* raw bfloat16 bits */

#define FTPU_F32_QNAN 0x7FC00000u /* the one NaN any computation returns */

/* A float's bits and back (memcpy: no aliasing, no conversion). */
static inline uint32_t ftpu_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float ftpu_f32_value(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Exact widening of bf16 to fp32 bits (subnormals stay subnormal here). */
static inline uint32_t ftpu_bf16_to_f32(ftpu_bf16 x)
{
	return (uint32_t)x << 16;
}

/* An fp32 NaN (exponent all ones, fraction nonzero), any sign or payload. */
static inline bool ftpu_f32_is_nan(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* fp32 -> bf16: a subnormal input flushes to a signed zero (before
 * rounding), else round to nearest even, overflow to +-Inf; NaN stays a
 * quiet NaN with its sign. */
ftpu_bf16 ftpu_f32_to_bf16(uint32_t x);

/* FTZ(exact(DAZ(a) * DAZ(b))), canonical NaN: the PE's multiplier. */
uint32_t ftpu_ref_mul(ftpu_bf16 a, ftpu_bf16 b);

/* RNE_fp32(DAZ(x) + DAZ(y)), FTZ result, canonical NaN: the PE's adder. */
uint32_t ftpu_ref_add(uint32_t x, uint32_t y);

/* RNE_fp32(DAZ(x) * DAZ(y)), canonical NaN; a product whose rounded value
 * (24-bit significand, unbounded exponent) is below 2^-126 becomes a zero
 * of its sign ("tiny after rounding", as x86 SSE and RISC-V F detect it).
 * The vector unit's multiplier (docs/numerics.md, Vector operations). */
uint32_t ftpu_ref_fmul(uint32_t x, uint32_t y);

/* x - y: ftpu_ref_add(x, y with its sign flipped), exactly IEEE's. */
uint32_t ftpu_ref_sub(uint32_t x, uint32_t y);

/* Canonical form of a value the vector unit passes through: a subnormal
 * becomes a zero of its sign, a NaN becomes FTPU_F32_QNAN. */
uint32_t ftpu_ref_canon(uint32_t x);

/* The larger of DAZ(x), DAZ(y); +0 is larger than -0; NaN if either is. */
uint32_t ftpu_ref_max(uint32_t x, uint32_t y);

/* canon(c > 0 ? a : b), where c > 0 means sign clear, exponent field
 * nonzero and not NaN (a subnormal c counts as zero): ReLU's backward. */
uint32_t ftpu_ref_select(uint32_t c, uint32_t a, uint32_t b);

/* The integer seed of a Newton iteration: canon(k - (x >> shift)) on the
 * raw bits, modulo 2^32 (k 0x7EF311C3 with shift 0 seeds 1/x, 0x5F3759DF
 * with shift 1 seeds 1/sqrt(x)); the constants are the program's. */
uint32_t ftpu_ref_seed(uint32_t x, uint32_t k, unsigned int shift);

/* One PE step: ftpu_ref_add(acc, ftpu_ref_mul(a, b)). */
uint32_t ftpu_ref_step(uint32_t acc, ftpu_bf16 a, ftpu_bf16 b);

/* Activation unit: bf16(relu?(acc + bias)) with the adder above; ReLU(x) is
 * x when x > 0, NaN when x is NaN, +0 otherwise. */
ftpu_bf16 ftpu_ref_activate(uint32_t acc, uint32_t bias, bool relu);

/* The activation's output stage: bf16(relu ? ReLU(s) : s) for the sum
 * s = acc + bias (ftpu_ref_activate is this of ftpu_ref_add). Integer code. */
ftpu_bf16 ftpu_activate_out(uint32_t s, bool relu);

/* ftpu_ref_add in integer code, bit for bit, for a core without an FPU
 * (the soft device's firmware): numeric_int.c, freestanding. */
uint32_t ftpu_f32_add_int(uint32_t x, uint32_t y);

/*
 * C[M x N] = (accumulate ? C : +0) + A[M x K] * B[K x N], every element the
 * sequential k loop of PE steps (docs/numerics.md, The PE step). Row-major,
 * leading dimensions in elements, C as fp32 bits. K == 0 leaves C unchanged
 * when accumulating and writes +0 otherwise. Sets and restores the FPU's
 * FTZ/DAZ mode itself. ftpu_ref_gemm is the fast (vectorized) path;
 * ftpu_ref_gemm_plain is the obvious triple loop over ftpu_ref_step. Both
 * give identical bits.
 */
void ftpu_ref_gemm(size_t M, size_t N, size_t K, const ftpu_bf16 *A,
		   size_t lda, const ftpu_bf16 *B, size_t ldb, uint32_t *C,
		   size_t ldc, bool accumulate);
void ftpu_ref_gemm_plain(size_t M, size_t N, size_t K, const ftpu_bf16 *A,
			 size_t lda, const ftpu_bf16 *B, size_t ldb,
			 uint32_t *C, size_t ldc, bool accumulate);

/*
 * The vector kernels behind ftpu_ref_gemm, all bit-identical to
 * ftpu_ref_gemm_plain. ftpu_ref_gemm uses the best one this CPU runs; tests
 * and benchmarks name one so that a single machine covers them all.
 */
enum ftpu_ref_kernel {
	FTPU_REF_KERNEL_GENERIC, /* portable 128-bit GCC vectors */
	FTPU_REF_KERNEL_AVX2,    /* x86-64 AVX2 */
	FTPU_REF_KERNEL_AVX512,  /* x86-64 AVX-512F */
	FTPU_REF_KERNEL_COUNT,
};

/* Whether this build and CPU run kernel k; false for an unknown k. */
bool ftpu_ref_kernel_available(enum ftpu_ref_kernel k);
/* The widest kernel this CPU runs: what ftpu_ref_gemm uses, except that it
 * may take a narrower one for a narrow C. */
enum ftpu_ref_kernel ftpu_ref_kernel_best(void);
/* A static name for kernel k ("generic", "avx2", "avx512f"); never NULL. */
const char *ftpu_ref_kernel_name(enum ftpu_ref_kernel k);
/* ftpu_ref_gemm with kernel k. Returns FTPU_OK, or FTPU_ERR_UNSUPPORTED
 * without touching C when k is not available. */
int ftpu_ref_gemm_kernel(enum ftpu_ref_kernel k, size_t M, size_t N, size_t K,
			 const ftpu_bf16 *A, size_t lda, const ftpu_bf16 *B,
			 size_t ldb, uint32_t *C, size_t ldc, bool accumulate);

/* The FPU mode the float paths need (x86 MXCSR FTZ|DAZ, round to nearest);
 * enter saves the caller's mode, leave restores it. */
struct ftpu_fpmode {
	unsigned int saved;
};
void ftpu_fpmode_enter(struct ftpu_fpmode *m);
void ftpu_fpmode_leave(const struct ftpu_fpmode *m);

#endif /* FTPU_NUMERIC_H */
