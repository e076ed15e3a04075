/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_gemm.c - the fast reference GEMM: the same bits as
 * ftpu_ref_gemm_plain (docs/numerics.md), vectorized across output columns.
 *
 * Why the bits stay the same:
 *  - each output column is its own lane; a lane runs the sequential k loop
 *    of PE steps unchanged, as a vector multiply followed by a separate
 *    vector add under FTZ/DAZ. Never a fused multiply-add: it would keep a
 *    product below 2^-126 or beyond the fp32 range that the PE flushes or
 *    turns into Inf. The KEEP_* asms make that independent of
 *    -ffp-contract.
 *  - the k loop is cut into panels of KC; between panels the fp32 partial
 *    sum is stored to C and loaded back, which is exact, so the order of
 *    the additions is still k = 0, 1, ..., K-1.
 *  - NaN is absorbing under + and *, so NaNs are canonicalized once, when
 *    the last panel stores its results.
 *
 * Blocking in the usual GotoBLAS way: a KC x NC panel of B is converted to
 * fp32 into a stack buffer (strips of NR columns, k-major), then for every
 * MR rows of A a KC x MR micro-panel is converted and the micro-kernel
 * runs over the strips. Ragged edges go through a zero-padded tile. The
 * buffers live on the stack (about 130 KiB): no allocation, no failure.
 */
#include <string.h>

#include "numeric.h"
#include "status.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86_KERNELS 1
#else
#define HAVE_X86_KERNELS 0
#endif

#define MR 4      /* rows of a micro-tile, every kernel */
#define NR_MAX 32 /* widest micro-tile (AVX-512: two vectors) */
#define KC 128    /* k depth of a panel: a B strip of KC x NR_MAX is 16 KiB */
#define NC 256    /* columns of a packed B panel, a multiple of every NR */

/* Kernel flags. */
#define K_LOAD 1u  /* start from the sums in C, else from +0 */
#define K_CANON 2u /* last k panel: store NaNs as FTPU_F32_QNAN */

/*
 * A micro-kernel: c[MR x NR] (row stride ldc, fp32 bits) op= the kc steps of
 * a (kc x MR, k-major) times b (kc x NR, k-major). The FPU mode is set.
 */
typedef void kernel_fn(size_t kc, const float *a, const float *b,
		       uint32_t *c, size_t ldc, unsigned int flags);

struct kernel_desc {
	const char *name;
	unsigned int nr; /* columns per micro-tile */
	kernel_fn *fn;
};

/* ---- portable kernel: GCC vector extensions, 128-bit ------------------- */

typedef float v4sf __attribute__((vector_size(16)));
typedef int32_t v4si __attribute__((vector_size(16)));

#if defined(__x86_64__) || defined(__i386__)
#define KEEP_V4(x) __asm__("" : "+x"(x))
#elif defined(__aarch64__)
#define KEEP_V4(x) __asm__("" : "+w"(x))
#else
#define KEEP_V4(x) __asm__("" : "+m"(x))
#endif

#define GEN_NV 2 /* vectors per row */
#define GEN_NR (4 * GEN_NV)

static inline v4sf v4_load(const void *p)
{
	v4sf v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void v4_store(void *p, v4sf v)
{
	memcpy(p, &v, sizeof(v));
}

static void kernel_generic(size_t kc, const float *a, const float *b,
			   uint32_t *c, size_t ldc, unsigned int flags)
{
	v4sf acc[MR][GEN_NV];

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < GEN_NV; v++)
			acc[r][v] = (flags & K_LOAD) ?
				v4_load(c + r * ldc + 4 * v) : (v4sf){ 0 };

	for (size_t k = 0; k < kc; k++, a += MR, b += GEN_NR) {
		v4sf bv[GEN_NV];

#pragma GCC unroll 16
		for (int v = 0; v < GEN_NV; v++)
			bv[v] = v4_load(b + 4 * v);
#pragma GCC unroll 16
		for (int r = 0; r < MR; r++) {
			v4sf ar = { a[r], a[r], a[r], a[r] };

#pragma GCC unroll 16
			for (int v = 0; v < GEN_NV; v++) {
				v4sf p = ar * bv[v];

				KEEP_V4(p);
				acc[r][v] = acc[r][v] + p;
			}
		}
	}

	if (flags & K_CANON) {
		const v4si qnan = { FTPU_F32_QNAN, FTPU_F32_QNAN, FTPU_F32_QNAN,
				    FTPU_F32_QNAN };

#pragma GCC unroll 16
		for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
			for (int v = 0; v < GEN_NV; v++) {
				v4si nan = acc[r][v] != acc[r][v];

				acc[r][v] = (v4sf)(((v4si)acc[r][v] & ~nan) |
						   (qnan & nan));
			}
	}

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < GEN_NV; v++)
			v4_store(c + r * ldc + 4 * v, acc[r][v]);
}

/* ---- x86-64 kernels ----------------------------------------------------- */

#if HAVE_X86_KERNELS

#define AVX2_NV 2
#define AVX2_NR (8 * AVX2_NV)
#define KEEP_YMM(x) __asm__("" : "+x"(x))

__attribute__((target("avx2"))) static void
kernel_avx2(size_t kc, const float *a, const float *b, uint32_t *c,
	    size_t ldc, unsigned int flags)
{
	/* The intrinsics load and store through may_alias vector types. */
	float *cf = (float *)c;
	__m256 acc[MR][AVX2_NV];

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < AVX2_NV; v++)
			acc[r][v] = (flags & K_LOAD) ?
				_mm256_loadu_ps(cf + r * ldc + 8 * v) :
				_mm256_setzero_ps();

	for (size_t k = 0; k < kc; k++, a += MR, b += AVX2_NR) {
		__m256 bv[AVX2_NV];

#pragma GCC unroll 16
		for (int v = 0; v < AVX2_NV; v++)
			bv[v] = _mm256_load_ps(b + 8 * v);
#pragma GCC unroll 16
		for (int r = 0; r < MR; r++) {
			__m256 ar = _mm256_broadcast_ss(a + r);

#pragma GCC unroll 16
			for (int v = 0; v < AVX2_NV; v++) {
				__m256 p = _mm256_mul_ps(ar, bv[v]);

				KEEP_YMM(p);
				acc[r][v] = _mm256_add_ps(acc[r][v], p);
			}
		}
	}

	if (flags & K_CANON) {
		const __m256 qnan =
			_mm256_castsi256_ps(_mm256_set1_epi32(FTPU_F32_QNAN));

#pragma GCC unroll 16
		for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
			for (int v = 0; v < AVX2_NV; v++) {
				__m256 nan = _mm256_cmp_ps(acc[r][v], acc[r][v],
							   _CMP_UNORD_Q);

				acc[r][v] = _mm256_blendv_ps(acc[r][v], qnan,
							     nan);
			}
	}

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < AVX2_NV; v++)
			_mm256_storeu_ps(cf + r * ldc + 8 * v, acc[r][v]);
}

#define AVX512_NV 2
#define AVX512_NR (16 * AVX512_NV)
#define KEEP_ZMM(x) __asm__("" : "+v"(x))

__attribute__((target("avx512f"))) static void
kernel_avx512(size_t kc, const float *a, const float *b, uint32_t *c,
	      size_t ldc, unsigned int flags)
{
	__m512 acc[MR][AVX512_NV];

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < AVX512_NV; v++)
			acc[r][v] = (flags & K_LOAD) ?
				_mm512_loadu_ps(c + r * ldc + 16 * v) :
				_mm512_setzero_ps();

	for (size_t k = 0; k < kc; k++, a += MR, b += AVX512_NR) {
		__m512 bv[AVX512_NV];

#pragma GCC unroll 16
		for (int v = 0; v < AVX512_NV; v++)
			bv[v] = _mm512_load_ps(b + 16 * v);
#pragma GCC unroll 16
		for (int r = 0; r < MR; r++) {
			__m512 ar = _mm512_set1_ps(a[r]);

#pragma GCC unroll 16
			for (int v = 0; v < AVX512_NV; v++) {
				__m512 p = _mm512_mul_ps(ar, bv[v]);

				KEEP_ZMM(p);
				acc[r][v] = _mm512_add_ps(acc[r][v], p);
			}
		}
	}

	if (flags & K_CANON) {
		const __m512 qnan =
			_mm512_castsi512_ps(_mm512_set1_epi32(FTPU_F32_QNAN));

#pragma GCC unroll 16
		for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
			for (int v = 0; v < AVX512_NV; v++) {
				__mmask16 nan = _mm512_cmp_ps_mask(
					acc[r][v], acc[r][v], _CMP_UNORD_Q);

				acc[r][v] = _mm512_mask_mov_ps(acc[r][v], nan,
							       qnan);
			}
	}

#pragma GCC unroll 16
	for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
		for (int v = 0; v < AVX512_NV; v++)
			_mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
}

#endif /* HAVE_X86_KERNELS */

static const struct kernel_desc kernels[FTPU_REF_KERNEL_COUNT] = {
	[FTPU_REF_KERNEL_GENERIC] = { "generic", GEN_NR, kernel_generic },
#if HAVE_X86_KERNELS
	[FTPU_REF_KERNEL_AVX2] = { "avx2", AVX2_NR, kernel_avx2 },
	[FTPU_REF_KERNEL_AVX512] = { "avx512f", AVX512_NR, kernel_avx512 },
#else
	[FTPU_REF_KERNEL_AVX2] = { "avx2", 0, NULL },
	[FTPU_REF_KERNEL_AVX512] = { "avx512f", 0, NULL },
#endif
};

_Static_assert(NC % NR_MAX == 0 && NR_MAX % GEN_NR == 0, "NC vs NR");

/* ---- packing --------------------------------------------------------- */

static inline float bf16_to_float(ftpu_bf16 x)
{
	uint32_t u = ftpu_bf16_to_f32(x);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* n conversions; with a constant n the compiler vectorizes this, which
 * matters when M is small and packing B costs as much as the products. */
static inline __attribute__((always_inline)) void
convert_row(float *dst, const ftpu_bf16 *src, size_t n)
{
	for (size_t j = 0; j < n; j++)
		dst[j] = bf16_to_float(src[j]);
}

/* B[kc x nc] -> strips of nr columns, each kc x nr k-major, zero padded. */
static void pack_b(float *dst, const ftpu_bf16 *B, size_t ldb, size_t kc,
		   size_t nc, size_t nr)
{
	for (size_t j0 = 0; j0 < nc; j0 += nr) {
		size_t w = nc - j0 < nr ? nc - j0 : nr;

		for (size_t k = 0; k < kc; k++, dst += nr) {
			const ftpu_bf16 *src = B + k * ldb + j0;

			if (w == 32 && nr == 32) {
				convert_row(dst, src, 32);
			} else if (w == 16 && nr == 16) {
				convert_row(dst, src, 16);
			} else if (w == 8 && nr == 8) {
				convert_row(dst, src, 8);
			} else {
				convert_row(dst, src, w);
				memset(dst + w, 0, (nr - w) * sizeof(*dst));
			}
		}
	}
}

/* A[mr x kc] -> kc x MR k-major, rows beyond mr zero. */
static void pack_a(float *dst, const ftpu_bf16 *A, size_t lda, size_t kc,
		   size_t mr)
{
	for (size_t r = 0; r < MR; r++)
		for (size_t k = 0; k < kc; k++)
			dst[k * MR + r] =
				r < mr ? bf16_to_float(A[r * lda + k]) : 0.0f;
}

/* ---- driver ------------------------------------------------------------ */

/* One micro-tile of mr x w valid elements at c. A ragged one runs as a
 * whole tile on a zero-padded copy; only what lies inside C goes back. */
static void run_tile(const struct kernel_desc *kd, size_t kc, const float *ap,
		     const float *bp, uint32_t *c, size_t ldc, size_t mr,
		     size_t w, unsigned int flags)
{
	_Alignas(64) uint32_t tile[MR * NR_MAX];
	const size_t nr = kd->nr;

	if (mr == MR && w == nr) {
		kd->fn(kc, ap, bp, c, ldc, flags);
		return;
	}
	memset(tile, 0, sizeof(tile));
	if (flags & K_LOAD)
		for (size_t r = 0; r < mr; r++)
			memcpy(tile + r * nr, c + r * ldc, w * sizeof(*c));
	kd->fn(kc, ap, bp, tile, nr, flags);
	for (size_t r = 0; r < mr; r++)
		memcpy(c + r * ldc, tile + r * nr, w * sizeof(*c));
}

static void gemm_blocked(const struct kernel_desc *kd, size_t M, size_t N,
			 size_t K, const ftpu_bf16 *A, size_t lda,
			 const ftpu_bf16 *B, size_t ldb, uint32_t *C,
			 size_t ldc, bool accumulate)
{
	_Alignas(64) float bpack[KC * NC];
	_Alignas(64) float apack[KC * MR];
	const size_t nr = kd->nr;

	for (size_t jc = 0; jc < N; jc += NC) {
		size_t nc = N - jc < NC ? N - jc : NC;

		for (size_t pc = 0; pc < K; pc += KC) {
			size_t kc = K - pc < KC ? K - pc : KC;
			unsigned int flags = 0;

			if (pc > 0 || accumulate)
				flags |= K_LOAD;
			if (pc + kc == K)
				flags |= K_CANON;

			pack_b(bpack, B + pc * ldb + jc, ldb, kc, nc, nr);
			for (size_t ic = 0; ic < M; ic += MR) {
				size_t mr = M - ic < MR ? M - ic : MR;
				uint32_t *c = C + ic * ldc + jc;

				pack_a(apack, A + ic * lda + pc, lda, kc, mr);
				for (size_t jr = 0; jr < nc; jr += nr)
					run_tile(kd, kc, apack, bpack + jr * kc,
						 c + jr, ldc, mr,
						 nc - jr < nr ? nc - jr : nr,
						 flags);
			}
		}
	}
}

bool ftpu_ref_kernel_available(enum ftpu_ref_kernel k)
{
	switch (k) {
	case FTPU_REF_KERNEL_GENERIC:
		return true;
#if HAVE_X86_KERNELS
	case FTPU_REF_KERNEL_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	case FTPU_REF_KERNEL_AVX512:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f");
#endif
	default:
		return false;
	}
}

enum ftpu_ref_kernel ftpu_ref_kernel_best(void)
{
	if (ftpu_ref_kernel_available(FTPU_REF_KERNEL_AVX512))
		return FTPU_REF_KERNEL_AVX512;
	if (ftpu_ref_kernel_available(FTPU_REF_KERNEL_AVX2))
		return FTPU_REF_KERNEL_AVX2;
	return FTPU_REF_KERNEL_GENERIC;
}

const char *ftpu_ref_kernel_name(enum ftpu_ref_kernel k)
{
	if ((unsigned int)k >= FTPU_REF_KERNEL_COUNT)
		return "unknown";
	return kernels[k].name;
}

int ftpu_ref_gemm_kernel(enum ftpu_ref_kernel k, size_t M, size_t N, size_t K,
			 const ftpu_bf16 *A, size_t lda, const ftpu_bf16 *B,
			 size_t ldb, uint32_t *C, size_t ldc, bool accumulate)
{
	struct ftpu_fpmode m;

	if (!ftpu_ref_kernel_available(k))
		return FTPU_PROTO_ERR_UNSUPPORTED;

	if (K == 0) {
		if (!accumulate)
			for (size_t i = 0; i < M; i++)
				memset(C + i * ldc, 0, N * sizeof(*C));
		return FTPU_PROTO_OK;
	}

	/* The kernels do all float arithmetic between these two calls, on
	 * memory they load after enter and store before leave. */
	ftpu_fpmode_enter(&m);
	gemm_blocked(&kernels[k], M, N, K, A, lda, B, ldb, C, ldc, accumulate);
	ftpu_fpmode_leave(&m);
	return FTPU_PROTO_OK;
}

void ftpu_ref_gemm(size_t M, size_t N, size_t K, const ftpu_bf16 *A,
		   size_t lda, const ftpu_bf16 *B, size_t ldb, uint32_t *C,
		   size_t ldc, bool accumulate)
{
	enum ftpu_ref_kernel k = ftpu_ref_kernel_best();

	/* For a narrow C, a 32-column AVX-512 tile is mostly padding. */
	if (k == FTPU_REF_KERNEL_AVX512 && N <= 16 &&
	    ftpu_ref_kernel_available(FTPU_REF_KERNEL_AVX2))
		k = FTPU_REF_KERNEL_AVX2;
	/* Cannot fail: k is available. */
	ftpu_ref_gemm_kernel(k, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}
