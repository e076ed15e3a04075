/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numeric.c - the numeric contract (docs/numerics.md) as scalar C:
 * conversion, the PE's multiplier and adder, the activation and the plain
 * reference GEMM.
 *
 * The contract is, by definition, float arithmetic with the FPU flushing
 * subnormal inputs (DAZ) and subnormal results (FTZ), rounding to nearest
 * even, and every NaN replaced by FTPU_F32_QNAN afterwards. So the scalar
 * ops do exactly that instead of emulating it: a bf16 x bf16 product has a
 * 16-bit significand and is therefore exact in fp32 whenever it is in
 * range, FTZ turns a product below 2^-126 into a signed zero and overflow
 * gives +-Inf under round-to-nearest. tests/proto/test_numeric.c checks this
 * against an integer soft-float model of the same rules. The parts that
 * need no FPU (conversion, the activation's output stage, an integer
 * adder for cores without one) are in numeric_int.c.
 */
#include <string.h>

#include "numeric.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

#define MXCSR_DAZ 0x0040u
#define MXCSR_EXC_MASKS 0x1f80u /* all six exception masks */
#define MXCSR_RC 0x6000u /* rounding control; 0 = to nearest */
#define MXCSR_FTZ 0x8000u
#elif defined(__aarch64__)
#define FPCR_RMODE (3ull << 22) /* rounding mode; 0 = to nearest */
#define FPCR_FZ (1ull << 24) /* flush subnormal inputs and results */
#define FPCR_TRAPS (0x9full << 8) /* IOE DZE OFE UFE IXE IDE trap enables */
#else
#error "ftpu numeric: need the FTZ/DAZ control of x86-64 (MXCSR) or aarch64 (FPCR)"
#endif

/*
 * The compiler does not know that float arithmetic depends on the FPU mode,
 * so it may compute a product before the mode is set or after it has been
 * restored. Forcing a value through this empty asm pins it: its producer must
 * run before, its consumers after, and volatile asms keep their order with
 * respect to the mode switch (itself volatile and a memory barrier).
 */
#define FP_PIN(x) __asm__ volatile("" : "+m"(x))

/* An opaque register copy of a float, so that it cannot be fused into the
 * next operation. Costs no instruction. */
#if defined(__x86_64__) || defined(__i386__)
#define FP_KEEP(x) __asm__("" : "+x"(x))
#else
#define FP_KEEP(x) __asm__("" : "+w"(x))
#endif



/* NaN is absorbing under + and *, so one replacement at the end of a chain
 * gives the same bits as canonicalizing after every operation. */
static inline uint32_t canon_nan(uint32_t u)
{
	return ftpu_f32_is_nan(u) ? FTPU_F32_QNAN : u;
}

void ftpu_fpmode_enter(struct ftpu_fpmode *m)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int csr = _mm_getcsr();

	m->saved = csr;
	/* Masking every exception as well: the contract has no traps, and a
	 * caller's feenableexcept() must not turn Inf - Inf into SIGFPE. */
	csr = (csr & ~MXCSR_RC) | MXCSR_FTZ | MXCSR_DAZ | MXCSR_EXC_MASKS;
	_mm_setcsr(csr);
#else
	uint64_t fpcr;

	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	m->saved = (unsigned int)fpcr; /* the upper half is RES0 */
	fpcr = (fpcr & ~(FPCR_RMODE | FPCR_TRAPS)) | FPCR_FZ;
	__asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
	__asm__ volatile("" : : : "memory");
}

void ftpu_fpmode_leave(const struct ftpu_fpmode *m)
{
	__asm__ volatile("" : : : "memory");
#if defined(__x86_64__) || defined(__i386__)
	/* Restores the caller's sticky flags too: ours are not theirs. */
	_mm_setcsr(m->saved);
#else
	uint64_t fpcr = m->saved;

	__asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
}

uint32_t ftpu_ref_mul(ftpu_bf16 a, ftpu_bf16 b)
{
	struct ftpu_fpmode m;
	float fa = ftpu_f32_value(ftpu_bf16_to_f32(a));
	float fb = ftpu_f32_value(ftpu_bf16_to_f32(b));
	float p;

	ftpu_fpmode_enter(&m);
	FP_PIN(fa);
	FP_PIN(fb);
	p = fa * fb;
	FP_PIN(p);
	ftpu_fpmode_leave(&m);
	return canon_nan(ftpu_f32_bits(p));
}

uint32_t ftpu_ref_add(uint32_t x, uint32_t y)
{
	struct ftpu_fpmode m;
	float fx = ftpu_f32_value(x);
	float fy = ftpu_f32_value(y);
	float s;

	ftpu_fpmode_enter(&m);
	FP_PIN(fx);
	FP_PIN(fy);
	s = fx + fy;
	FP_PIN(s);
	ftpu_fpmode_leave(&m);
	return canon_nan(ftpu_f32_bits(s));
}

/*
 * x86's FTZ flushes a product that is tiny after rounding, aarch64's FZ one
 * that is tiny before it: they differ for exact products in
 * [2^-126 - 2^-151, 2^-126), which round up to 2^-126. The contract is
 * "after rounding", so a flushed product is checked against that interval
 * in double, where the product of two fp32 values is exact.
 */
uint32_t ftpu_ref_fmul(uint32_t x, uint32_t y)
{
	struct ftpu_fpmode m;
	float fx = ftpu_f32_value(x);
	float fy = ftpu_f32_value(y);
	float p;
	uint32_t r;

	ftpu_fpmode_enter(&m);
	FP_PIN(fx);
	FP_PIN(fy);
	p = fx * fy;
	FP_PIN(p);
	ftpu_fpmode_leave(&m);
	r = canon_nan(ftpu_f32_bits(p));
	if ((r & 0x7fffffffu) == 0 && (x & 0x7f800000u) && (y & 0x7f800000u) &&
	    (x & 0x7f800000u) != 0x7f800000u && (y & 0x7f800000u) != 0x7f800000u) {
		/* both normal, product flushed: the exact product decides */
		double exact = (double)ftpu_f32_value(x & 0x7fffffffu) *
			       (double)ftpu_f32_value(y & 0x7fffffffu);
		if (exact >= 0x1p-126 - 0x1p-151)
			r |= 0x00800000u;
	}
	return r;
}

uint32_t ftpu_ref_sub(uint32_t x, uint32_t y)
{
	return ftpu_ref_add(x, y ^ 0x80000000u);
}

uint32_t ftpu_ref_canon(uint32_t x)
{
	if (ftpu_f32_is_nan(x))
		return FTPU_F32_QNAN;
	if ((x & 0x7f800000u) == 0)
		return x & 0x80000000u;
	return x;
}

/* Orders canonical non-NaN values as integers: sign-magnitude to a key
 * that increases with the value, -0 below +0. */
static inline uint32_t order_key(uint32_t x)
{
	return (x & 0x80000000u) ? ~x : x | 0x80000000u;
}

uint32_t ftpu_ref_max(uint32_t x, uint32_t y)
{
	x = ftpu_ref_canon(x);
	y = ftpu_ref_canon(y);
	if (x == FTPU_F32_QNAN || y == FTPU_F32_QNAN)
		return FTPU_F32_QNAN;
	return order_key(x) >= order_key(y) ? x : y;
}

uint32_t ftpu_ref_select(uint32_t c, uint32_t a, uint32_t b)
{
	bool positive = !(c & 0x80000000u) && (c & 0x7f800000u) && !ftpu_f32_is_nan(c);

	return ftpu_ref_canon(positive ? a : b);
}

uint32_t ftpu_ref_seed(uint32_t x, uint32_t k, unsigned int shift)
{
	return ftpu_ref_canon(k - (x >> (shift & 31u)));
}

uint32_t ftpu_ref_step(uint32_t acc, ftpu_bf16 a, ftpu_bf16 b)
{
	struct ftpu_fpmode m;
	float facc = ftpu_f32_value(acc);
	float fa = ftpu_f32_value(ftpu_bf16_to_f32(a));
	float fb = ftpu_f32_value(ftpu_bf16_to_f32(b));
	float p, s;

	ftpu_fpmode_enter(&m);
	FP_PIN(facc);
	FP_PIN(fa);
	FP_PIN(fb);
	p = fa * fb;
	/* Rounded and flushed on its own: a fused multiply-add would keep a
	 * product below 2^-126 and one beyond the fp32 range. */
	FP_PIN(p);
	s = facc + p;
	FP_PIN(s);
	ftpu_fpmode_leave(&m);
	return canon_nan(ftpu_f32_bits(s));
}

ftpu_bf16 ftpu_ref_activate(uint32_t acc, uint32_t bias, bool relu)
{
	return ftpu_activate_out(ftpu_ref_add(acc, bias), relu);
}

/*
 * One PE step in float, the FPU mode already set. The loads and stores
 * around it are ordered by the memory barriers of ftpu_fpmode_enter/leave;
 * the asm keeps the product a separately rounded operation even if this
 * file is ever built with -ffp-contract=fast.
 */
static inline float step_f(float acc, float a, float b)
{
	float p = a * b;

	FP_KEEP(p);
	return acc + p;
}

void ftpu_ref_gemm_plain(size_t M, size_t N, size_t K, const ftpu_bf16 *A,
			 size_t lda, const ftpu_bf16 *B, size_t ldb,
			 uint32_t *C, size_t ldc, bool accumulate)
{
	struct ftpu_fpmode m;

	if (K == 0) {
		if (!accumulate)
			for (size_t i = 0; i < M; i++)
				for (size_t j = 0; j < N; j++)
					C[i * ldc + j] = 0;
		return;
	}

	ftpu_fpmode_enter(&m);
	for (size_t i = 0; i < M; i++) {
		for (size_t j = 0; j < N; j++) {
			float acc = accumulate ? ftpu_f32_value(C[i * ldc + j])
					       : 0.0f;

			for (size_t k = 0; k < K; k++) {
				float a = ftpu_f32_value(
					ftpu_bf16_to_f32(A[i * lda + k]));
				float b = ftpu_f32_value(
					ftpu_bf16_to_f32(B[k * ldb + j]));

				acc = step_f(acc, a, b);
			}
			C[i * ldc + j] = canon_nan(ftpu_f32_bits(acc));
		}
	}
	ftpu_fpmode_leave(&m);
}
