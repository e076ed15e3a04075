/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_plan.c - tiling, packing and the device program of ftpu_gemm()
 * (gemm_plan.h explains the layout and the program's order).
 */
#include <string.h>

#include "gemm_plan.h"
#include "isa.h"

struct ftpu_gemm_tuning ftpu__gemm_tuning;

enum {
	MAX_N = 65535,	     /* instruction n field: vectors per instruction */
	PAD_ZERO = 0x0000,   /* A beyond K, B beyond N */
	PAD_WEIGHT = 0x8000, /* B beyond K: -0, docs/numerics.md */
};

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

static size_t div_up(size_t a, size_t b)
{
	return a / b + (a % b != 0);
}

/* ---- conversion ---------------------------------------------------------- */

/* ftpu_f32_to_bf16 without a call or branches: RNE, overflow to Inf; NaN
 * quiet with its sign; zero and subnormal inputs to a signed zero (a
 * normal input cannot round to a subnormal: bf16 has fp32's exponent
 * range). */
static inline uint16_t f32_to_bf16(float f)
{
	uint32_t x, ax;
	memcpy(&x, &f, sizeof(x));
	ax = x & 0x7fffffffu;
	uint16_t r = (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
	r = ax < 0x00800000u ? (uint16_t)((x >> 16) & 0x8000u) : r;
	r = ax > 0x7f800000u ? (uint16_t)((x >> 16) | 0x0040u) : r;
	return r;
}

/* The same for 8 values at once in GCC vectors of 128 bits, which every
 * x86-64 (SSE2) and aarch64 (NEON) has: a loop of the scalar version
 * stays scalar at -O2, wider vectors get split into scalar compares. The
 * compares are signed (SSE2 has no unsigned ones) on |x| < 2^31. */
typedef uint32_t v4u32 __attribute__((vector_size(16)));
typedef int32_t v4i32 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));

static inline v4u32 f32_to_bf16_x4(v4u32 x)
{
	v4i32 ax = (v4i32)(x & 0x7fffffffu);
	v4u32 hi = x >> 16;
	v4u32 r = (x + 0x7fffu + (hi & 1u)) >> 16;
	v4u32 zero = (v4u32)(ax < 0x00800000), nan = (v4u32)(ax > 0x7f800000);
	r = (r & ~zero) | (hi & 0x8000u & zero);
	return (r & ~nan) | ((hi | 0x0040u) & nan);
}

static inline void f32_to_bf16_x8(const float *src, uint16_t *dst)
{
	v4u32 a, b;
	memcpy(&a, src, sizeof(a));
	memcpy(&b, src + 4, sizeof(b));
	a = f32_to_bf16_x4(a);
	b = f32_to_bf16_x4(b);
	/* the low halves of a's and b's lanes */
#if defined(__clang__) || __GNUC__ >= 12
	v8u16 h = __builtin_shufflevector((v8u16)a, (v8u16)b, 0, 2, 4, 6, 8, 10,
					  12, 14);
#else
	v8u16 h = __builtin_shuffle((v8u16)a, (v8u16)b,
				    (v8u16){0, 2, 4, 6, 8, 10, 12, 14});
#endif
	memcpy(dst, &h, sizeof(h));
}

static inline void cvt_run(const float *src, uint16_t *dst, size_t count)
{
	size_t i = 0;
	for (; i + 8 <= count; i += 8)
		f32_to_bf16_x8(src + i, dst + i);
	for (; i < count; i++)
		dst[i] = f32_to_bf16(src[i]);
}

void ftpu__gemm_pack_f32(const float *src, uint16_t *dst, size_t count)
{
	cvt_run(src, dst, count);
}

/* count bf16 values as count / 2 program words, element 2i in the low half
 * (docs/isa.md: inline data of a bf16 vector). count is even. */
static void put_pairs(uint32_t *w, const uint16_t *v, size_t count)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(w, v, count * sizeof(*v));
#else
	for (size_t i = 0; i < count / 2; i++)
		w[i] = (uint32_t)v[2 * i] | (uint32_t)v[2 * i + 1] << 16;
#endif
}

static void fill16(uint16_t *d, size_t count, uint16_t v)
{
	for (size_t i = 0; i < count; i++)
		d[i] = v;
}

/* ---- planning --------------------------------------------------------------
 */

/* The chunk sizes worth trying for x tiles are the even splits
 * ceil(x / j): the largest at most limit (>= 1), and the one after v (0
 * after 1). Walking them costs at most 2 sqrt(x) steps. */
static size_t first_split(size_t x, size_t limit)
{
	return limit >= x ? x : div_up(x, div_up(x, limit));
}

static size_t next_split(size_t x, size_t v)
{
	if (v <= 1)
		return 0;
	size_t j = (x - 1) / (v - 1) + 1; /* the first j with ceil(x/j) < v */
	return div_up(x, j);
}

static size_t cap_by(size_t v, size_t cap)
{
	return cap && cap < v ? cap : v;
}

/* Rows per chunk when ktc k-tiles, ntc n-tiles and acts activations of
 * them share the budgets. */
static size_t rows_for(size_t M, size_t ub, size_t acc, size_t ktc, size_t ntc,
		       size_t acts, size_t cap)
{
	size_t mc = min_sz(min_sz(M, ub / (ktc + acts * ntc)),
			   min_sz(acc / ntc, MAX_N));
	if (cap && mc > cap)
		mc = cap;
	if (!mc)
		return 0;
	return div_up(M, div_up(M, mc)); /* the same chunks, evenly filled */
}

/*
 * The estimated time of a plan, in device cycles (the link moves
 * link_bytes a cycle each way, INFO LINK_BYTES; docs/core.md for what
 * overlaps):
 *   in    A (once per n-block), B (once when whole, else per m-chunk) and
 *         the instructions (12 bytes each: a LOAD_WEIGHTS + MATMUL pair
 *         per fold, a HOST_READ per k-tile and B row, a HOST_WRITE per block)
 *   out   the results
 *   array a fold takes max(mc, n) cycles
 * Double buffered, input, output and the array overlap but for the ends:
 * the last block's results leave after the last input, the first block's
 * only after its input. Without it, a block's HOST_WRITE waits for its
 * MATMULs and the next block's MATMULs for the HOST_WRITE: in and out
 * add up.
 */
static double plan_time(const struct ftpu_gemm_plan *p, bool db, size_t mc,
			size_t ntc)
{
	const double n = (double)p->n, KT = (double)p->KT, NT = (double)p->NT;
	const double mch = (double)div_up(p->M, mc),
		     nbl = (double)div_up(p->NT, ntc);
	const double tile = n * n * 2, folds = mch * KT * NT;
	double in = (double)p->M * KT * n * 2 * nbl +
		    (p->b_free ? 0 : KT * NT * tile * (p->b_whole ? 1 : mch)) +
		    12 * (mch * nbl * KT * (p->b_whole ? 1 : 2) + 2 * folds +
			  mch * nbl);
	double out = (double)p->M * NT * n * 4,
	       array = folds * (double)(mc > p->n ? mc : p->n);
	double block_out = (double)mc * (double)ntc * n * 4;
	double first_in = (double)mc * KT * n * 2 +
			  (p->b_free ? 0 : KT * (double)ntc * tile);
	const double w = (double)p->link_bytes; /* bytes to cycles */
	in /= w, out /= w, block_out /= w, first_in /= w;
	double t = db ? max_d(in + block_out, first_in + out) : in + out;
	return max_d(t, array);
}

/* Sent biases among the plan's activations. */
static size_t sent_biases(const struct ftpu_gemm_opts *o)
{
	size_t k = 0;
	for (size_t i = 0; i < o->n_acts; i++)
		k += o->acts[i].bias && o->acts[i].bias_values;
	return k;
}

/* The best even split for budgets of ub, acc and bias vectors (wm tiles
 * for a B block); *time is its estimate, or < 0 when none fits. Ties go
 * to the larger mc, then to fewer chunks. */
static void plan_search(struct ftpu_gemm_plan *p,
			const struct ftpu_gemm_tuning *t, bool db, size_t ub,
			size_t acc, size_t wm, size_t bias, double *time)
{
	const size_t M = p->M, KT = p->KT, NT = p->NT;
	const size_t sent = sent_biases(&p->o);
	size_t best_chunks = 0;

	*time = -1;
	size_t kmax = cap_by(p->b_whole ? ub : min_sz(ub, wm), t->max_ktiles);
	for (size_t ktc = first_split(KT, kmax); ktc;
	     ktc = next_split(KT, ktc)) {
		size_t nmax = cap_by(p->b_whole ? acc : min_sz(acc, wm / ktc),
				     t->max_ntiles);
		if (sent)
			nmax = min_sz(nmax, bias / sent);
		for (size_t ntc = first_split(NT, nmax); ntc;
		     ntc = next_split(NT, ntc)) {
			/* Fewer rows than fit can be faster: the last block's
			 * results, which cannot overlap any input, shrink (at
			 * the price of more instructions). Down to half the
			 * array, below which the weight port bounds a fold. */
			size_t mmax = rows_for(M, ub, acc, ktc, ntc,
					       p->o.n_acts, t->max_rows);
			for (size_t mc = mmax; mc && (mc == mmax || 2 * mc >= p->n);
			     mc = next_split(M, mc)) {
				double cost = plan_time(p, db, mc, ntc);
				size_t chunks = div_up(M, mc) * div_up(NT, ntc) *
						div_up(KT, ktc);
				if (*time < 0 || cost < *time ||
				    (cost == *time &&
				     (mc > p->mc ||
				      (mc == p->mc && chunks < best_chunks)))) {
					*time = cost;
					p->mc = mc, p->ktc = ktc, p->ntc = ntc;
					best_chunks = chunks;
				}
			}
		}
	}
}

/* The counts that follow from the chunk sizes. */
static int plan_finish(struct ftpu_gemm_plan *p)
{
	const size_t M = p->M, KT = p->KT, NT = p->NT, n = p->n;
	/* absurd sizes (valid extents, but more chunks than any memory
	 * could hold the program of) */
	if ((double)div_up(M, p->mc) * (double)div_up(NT, p->ntc) *
		    (double)div_up(KT, p->ktc) >
	    (double)((size_t)1 << 48))
		return FTPU_ERR_INVALID;
	p->mchunks = div_up(M, p->mc);
	p->nblocks = div_up(NT, p->ntc);
	p->kblocks = div_up(KT, p->ktc);
	p->chunks = p->mchunks * p->nblocks * p->kblocks;
	p->image_elems = KT * NT * n * n;
	size_t copies = 2 * (size_t)p->o.acc_writes; /* in bf16 halves */
	for (size_t i = 0; i < p->o.n_acts; i++)
		copies += p->o.acts[i].writes;
	p->data_words = M * NT * n / 2 * copies;
	return FTPU_OK;
}

/* Sizes and options common to both planners; false for sizes whose B
 * image or results would overflow size_t. */
static bool plan_init(struct ftpu_gemm_plan *p, size_t n, size_t M, size_t N,
		      size_t K, const struct ftpu_gemm_opts *o)
{
	static const struct ftpu_gemm_opts gemm = {.acc_writes = 1};
	const size_t KT = div_up(K, n), NT = div_up(N, n);

	memset(p, 0, sizeof(*p));
	p->link_bytes = 1;
	p->o = o ? *o : gemm;
	size_t copies = p->o.acc_writes;
	for (size_t i = 0; i < p->o.n_acts; i++)
		copies += p->o.acts[i].writes;
	/* the B image (KT*NT*n*n bf16) and the results (M*NT*n fp32 per
	 * copy) must be addressable */
	if (NT > SIZE_MAX / 4 / n / n / KT ||
	    M > SIZE_MAX / 4 / n / NT / (copies ? copies : 1))
		return false;
	p->n = n, p->M = M, p->N = N, p->K = K, p->KT = KT, p->NT = NT;
	return true;
}

int ftpu__gemm_plan(const struct ftpu_gemm_device *d, size_t M, size_t N,
		    size_t K, const struct ftpu_gemm_tuning *t,
		    struct ftpu_gemm_plan *p)
{
	return ftpu__gemm_plan_opts(d, M, N, K, t, NULL, p);
}

int ftpu__gemm_plan_opts(const struct ftpu_gemm_device *d, size_t M, size_t N,
			 size_t K, const struct ftpu_gemm_tuning *t,
			 const struct ftpu_gemm_opts *o,
			 struct ftpu_gemm_plan *p)
{
	static const struct ftpu_gemm_tuning none;
	const size_t n = d->n, T = d->wm_tiles;

	if (!t)
		t = &none;
	memset(p, 0, sizeof(*p));
	if (!M || !N || !K)
		return FTPU_ERR_INVALID;
	if (!n || n % 2 || !d->ub || !d->acc || !T || d->ub > UINT32_MAX ||
	    d->acc > UINT32_MAX || T > UINT32_MAX / n)
		return FTPU_ERR_UNSUPPORTED;
	if (!plan_init(p, n, M, N, K, o))
		return FTPU_ERR_INVALID;
	p->link_bytes = d->link_bytes ? d->link_bytes : 1;
	const size_t bias = p->o.bias_vectors;
	const size_t KT = p->KT, NT = p->NT, sent = sent_biases(&p->o);
	if (sent && bias < sent)
		return FTPU_ERR_UNSUPPORTED;

	p->b_whole = KT <= T / NT;
	p->b_free = (p->b_whole && t->b_resident) || p->o.b_resident;

	/* single buffered, and with UB and ACC halved if allowed: the
	 * faster estimate wins (halves mean more chunks, and a B block
	 * resent per m-chunk costs more link than double buffering saves) */
	struct ftpu_gemm_plan db = *p;
	double t_single, t_db = -1;
	plan_search(p, t, false, d->ub, d->acc, T, bias, &t_single);
	if (!t->no_double_buffer && d->ub >= 2 && d->acc >= 2 &&
	    bias >= 2 * sent)
		plan_search(&db, t, true, d->ub / 2, d->acc / 2, T, bias / 2,
			    &t_db);
	if (t_db >= 0 &&
	    (t_single < 0 || t_db <= t_single || t->force_double_buffer)) {
		*p = db;
		p->db = true;
		p->ub_step = (uint32_t)(d->ub / 2);
		p->acc_step = (uint32_t)(d->acc / 2);
		p->bias_step = (uint32_t)(bias / 2);
	} else if (t_single < 0) {
		return FTPU_ERR_UNSUPPORTED; /* a tuning cap of 0 rows... */
	}
	return plan_finish(p);
}

int ftpu__gemm_plan_fixed(size_t n, size_t M, size_t N, size_t K, size_t mc,
			  size_t ntc, size_t ktc, bool b_whole,
			  const struct ftpu_gemm_opts *o,
			  struct ftpu_gemm_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!n || n % 2 || !M || !N || !K || !plan_init(p, n, M, N, K, o) ||
	    !mc || mc > MAX_N || !ntc || ntc > p->NT || !ktc || ktc > p->KT)
		return FTPU_ERR_INVALID;
	p->mc = mc, p->ntc = ntc, p->ktc = ktc;
	p->b_whole = b_whole;
	p->b_free = p->o.b_resident;
	return plan_finish(p);
}

void ftpu__gemm_chunk(const struct ftpu_gemm_plan *p, size_t c,
		      struct ftpu_gemm_chunk *ch)
{
	size_t kb = c % p->kblocks, block = c / p->kblocks;
	size_t nb = block % p->nblocks, mi = block / p->nblocks;

	ch->m0 = mi * p->mc;
	ch->mc = min_sz(p->mc, p->M - ch->m0);
	ch->nt0 = nb * p->ntc;
	ch->ntc = min_sz(p->ntc, p->NT - ch->nt0);
	ch->kt0 = kb * p->ktc;
	ch->ktc = min_sz(p->ktc, p->KT - ch->kt0);
	ch->block = block;
	ch->last_k = kb + 1 == p->kblocks;
	/* operands alternate per chunk, results per output block (its
	 * k-blocks accumulate in one place) */
	const bool odd = p->db && (c & 1), odd_block = p->db && (block & 1);
	ch->ub = p->ub + (odd ? p->ub_step : 0);
	ch->acc = p->acc + (odd_block ? p->acc_step : 0);
	ch->ub_out = odd_block ? p->ub_step : 0;
	ch->bias_out = odd_block ? p->bias_step : 0;
}

/* ---- packing
 * ------------------------------------------------------------------ */

/* mc UB vectors of A's k-tile kt for rows m0.. into s (mc * n bf16). */
static void pack_a(const struct ftpu_gemm_plan *p,
		   const struct ftpu_gemm_operand *a, size_t m0, size_t mc,
		   size_t kt, uint16_t *s)
{
	const size_t n = p->n, k0 = kt * n, kc = min_sz(n, p->K - k0);

	if (!a->trans) { /* op(A)[m][k] = A[m*ld + k]: rows are contiguous */
		for (size_t m = 0; m < mc; m++) {
			uint16_t *d = s + m * n;
			size_t at = (m0 + m) * a->ld + k0;
			if (a->f32)
				cvt_run(a->f32 + at, d, kc);
			else
				memcpy(d, a->bf16 + at, kc * sizeof(*d));
			fill16(d + kc, n - kc, PAD_ZERO);
		}
		return;
	}
	/* op(A)[m][k] = A[k*ld + m]: read along m, write every n-th */
	for (size_t r = 0; r < kc; r++) {
		size_t at = (k0 + r) * a->ld + m0;
		if (a->f32) {
			const float *src = a->f32 + at;
			for (size_t m = 0; m < mc; m++)
				s[m * n + r] = f32_to_bf16(src[m]);
		} else {
			const uint16_t *src = a->bf16 + at;
			for (size_t m = 0; m < mc; m++)
				s[m * n + r] = src[m];
		}
	}
	for (size_t m = 0; kc < n && m < mc; m++)
		fill16(s + m * n + kc, n - kc, PAD_ZERO);
}

void ftpu__gemm_pack_b(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *b, uint16_t *image)
{
	const size_t n = p->n, K = p->K, N = p->N, KT = p->KT, NT = p->NT;
#define TILE_ROW(k, nt) (image + (((k) / n * NT + (nt)) * n + (k) % n) * n)

	/* padding: rows beyond K, then columns beyond N of the last n-tile */
	for (size_t k = K; k < KT * n; k++)
		for (size_t nt = 0; nt < NT; nt++)
			fill16(TILE_ROW(k, nt), n, PAD_WEIGHT);
	if (N % n)
		for (size_t k = 0; k < K; k++)
			fill16(TILE_ROW(k, NT - 1) + N % n, n - N % n,
			       PAD_ZERO);

	if (!b->trans) { /* op(B)[k][j] = B[k*ld + j] */
		for (size_t k = 0; k < K; k++) {
			size_t at = k * b->ld;
			for (size_t nt = 0; nt < NT; nt++) {
				size_t cnt = min_sz(n, N - nt * n);
				uint16_t *d = TILE_ROW(k, nt);
				if (b->f32)
					cvt_run(b->f32 + at + nt * n, d, cnt);
				else
					memcpy(d, b->bf16 + at + nt * n,
					       cnt * sizeof(*d));
			}
		}
		return;
	}
	/* op(B)[k][j] = B[j*ld + k]: a stored row is a column of tiles */
	for (size_t j = 0; j < N; j++) {
		size_t at = j * b->ld, nt = j / n, col = j % n;
		for (size_t kt = 0; kt < KT; kt++) {
			uint16_t *d = image + (kt * NT + nt) * n * n + col;
			size_t kc = min_sz(n, K - kt * n), k0 = kt * n;
			if (b->f32) {
				const float *src = b->f32 + at + k0;
				for (size_t r = 0; r < kc; r++)
					d[r * n] = f32_to_bf16(src[r]);
			} else {
				const uint16_t *src = b->bf16 + at + k0;
				for (size_t r = 0; r < kc; r++)
					d[r * n] = src[r];
			}
		}
	}
#undef TILE_ROW
}

/* ---- hashing
 * ------------------------------------------------------------------- */

#define H_P1 0x9E3779B185EBCA87ull
#define H_P2 0xC2B2AE3D27D4EB4Full
#define H_P3 0x165667B19E3779F9ull
#define H_P4 0x85EBCA77C2B2AE63ull
#define H_P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return x << r | x >> (64 - r);
}

static inline uint64_t read64(const uint8_t *b)
{
	uint64_t v;
	memcpy(&v, b, sizeof(v));
	return v;
}

static inline uint64_t h_round(uint64_t acc, uint64_t in)
{
	return rotl64(acc + in * H_P2, 31) * H_P1;
}

static inline uint64_t h_merge(uint64_t h, uint64_t v)
{
	return (h ^ h_round(0, v)) * H_P1 + H_P4;
}

uint64_t ftpu__gemm_hash(const void *data, size_t bytes)
{
	const uint8_t *b = data;
	size_t left = bytes;
	uint64_t h;

	if (left >= 32) {
		uint64_t v1 = H_P1 + H_P2, v2 = H_P2, v3 = 0, v4 = 0 - H_P1;
		do {
			v1 = h_round(v1, read64(b));
			v2 = h_round(v2, read64(b + 8));
			v3 = h_round(v3, read64(b + 16));
			v4 = h_round(v4, read64(b + 24));
			b += 32, left -= 32;
		} while (left >= 32);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) +
		    rotl64(v4, 18);
		h = h_merge(h, v1);
		h = h_merge(h, v2);
		h = h_merge(h, v3);
		h = h_merge(h, v4);
	} else {
		h = H_P5;
	}
	h += (uint64_t)bytes;
	for (; left >= 8; b += 8, left -= 8)
		h = rotl64(h ^ h_round(0, read64(b)), 27) * H_P1 + H_P4;
	if (left >= 4) {
		uint32_t v;
		memcpy(&v, b, sizeof(v));
		h = rotl64(h ^ (uint64_t)v * H_P1, 23) * H_P2 + H_P3;
		b += 4, left -= 4;
	}
	for (; left; b++, left--)
		h = rotl64(h ^ *b * H_P5, 11) * H_P1;
	h ^= h >> 33;
	h *= H_P2;
	h ^= h >> 29;
	h *= H_P3;
	h ^= h >> 32;
	return h;
}

/* ---- the program
 * ----------------------------------------------------------------- */

/* The program is written by one set of functions in two modes: into
 * words, or (w NULL) only counted, so the planner's word counts are the
 * emitter's by construction. */
struct writer {
	uint32_t *w; /* NULL: count only */
	size_t at;
	const struct ftpu_gemm_plan *p;
	const struct ftpu_gemm_operand *a;
	const uint16_t *image;
	uint16_t *scratch;
	bool send_b;
	bool notify; /* tell p->o.a_at (ftpu__gemm_emit, not the counts) */
};

static void put_instr(struct writer *o, unsigned op, unsigned flags, size_t n,
		      uint32_t a, uint32_t b)
{
	if (o->w)
		ftpu_isa_encode(o->w + o->at, op, flags, (unsigned)n, a, b);
	o->at += FTPU_ISA_WORDS;
}

/* HOST_READ of rows bf16 vectors from v (NULL: zeros, filled in later)
 * into mem at addr, in pieces of at most max rows. */
static void put_read(struct writer *o, unsigned mem, uint32_t addr,
		     const uint16_t *v, size_t rows, size_t max)
{
	const size_t n = o->p->n;
	for (size_t done = 0; done < rows;) {
		size_t piece = min_sz(rows - done, max);
		put_instr(o, FTPU_OP_HOST_READ, mem, piece,
			  addr + (uint32_t)done, 0);
		if (o->w && v)
			put_pairs(o->w + o->at, v + done * n, piece * n);
		else if (o->w)
			memset(o->w + o->at, 0, piece * n / 2 * sizeof(*o->w));
		o->at += piece * n / 2;
		done += piece;
	}
}

/* HOST_READ into mem (ACC or BIAS) at addr of rows fp32 vectors, vector v
 * (0 <= v < rows) being n-tile nt0 + v / per, row v % per of values (row
 * stride ld, +0 beyond N). */
static void put_read_f32(struct writer *o, unsigned mem, uint32_t addr,
			 const float *values, size_t ld, size_t nt0, size_t per,
			 size_t rows)
{
	const size_t n = o->p->n, N = o->p->N;
	for (size_t done = 0; done < rows;) {
		size_t piece = min_sz(rows - done, MAX_N);
		put_instr(o, FTPU_OP_HOST_READ, mem, piece,
			  addr + (uint32_t)done, 0);
		for (size_t v = done; o->w && v < done + piece; v++) {
			size_t j0 = (nt0 + v / per) * n,
			       cnt = j0 < N ? min_sz(n, N - j0) : 0;
			uint32_t *d = o->w + o->at + (v - done) * n;
			if (cnt)
				memcpy(d, values + v % per * ld + j0,
				       cnt * sizeof(*d));
			memset(d + cnt, 0, (n - cnt) * sizeof(*d));
		}
		o->at += piece * n;
		done += piece;
	}
}

/* HOST_WRITEs of rows vectors of mem at addr, in pieces. */
static void put_write(struct writer *o, unsigned mem, uint32_t addr,
		      size_t rows)
{
	for (size_t done = 0; done < rows;) {
		size_t piece = min_sz(rows - done, MAX_N);
		put_instr(o, FTPU_OP_HOST_WRITE, mem, piece,
			  addr + (uint32_t)done, 0);
		done += piece;
	}
}

/* Whether chunk ch sends B tiles with its k-tiles. */
static bool b_due(const struct ftpu_gemm_plan *p,
		  const struct ftpu_gemm_chunk *ch, bool send_b)
{
	if (p->o.b_resident)
		return false;
	return p->b_whole ? send_b && ch->m0 == 0 : true;
}

/* The tail of ch's block: its results out of ACC and its activations. */
static void put_tail(struct writer *o, const struct ftpu_gemm_chunk *ch)
{
	const struct ftpu_gemm_plan *p = o->p;
	const size_t rows = ch->ntc * ch->mc;

	for (unsigned i = 0; i < p->o.acc_writes; i++)
		put_write(o, FTPU_MEM_ACC, ch->acc, rows);
	for (size_t i = 0; i < p->o.n_acts; i++) {
		const struct ftpu_gemm_act *x = &p->o.acts[i];
		const uint32_t ub = x->ub + ch->ub_out;
		/* a sent bias holds the chunk's n-tiles, a resident one all */
		uint32_t bias = x->bias_at;
		if (x->bias && x->bias_values) {
			bias += ch->bias_out;
			put_read_f32(o, FTPU_MEM_BIAS, bias, x->bias_values, 0,
				     ch->nt0, 1, ch->ntc);
		} else {
			bias += (uint32_t)ch->nt0;
		}
		unsigned flags = (x->relu ? FTPU_ACTIVATE_RELU : 0) |
				 (x->bias ? FTPU_ACTIVATE_BIAS : 0);
		for (size_t j = 0; j < ch->ntc; j++)
			put_instr(o, FTPU_OP_ACTIVATE, flags, ch->mc,
				  ch->acc + (uint32_t)(j * ch->mc),
				  (ub + (uint32_t)(j * ch->mc)) |
					  (x->bias ? (bias + (uint32_t)j) << 16
						   : 0));
		for (unsigned k = 0; k < x->writes; k++)
			put_write(o, FTPU_MEM_UB, ub, rows);
	}
}

/* One HOST_READ of tiles k-tiles of A from the chunk's i-th (tiles * mc
 * <= MAX_N): packed from the operand, or zeros for a deferred A (told to
 * p->o.a_at). The operand is not read when only counting. */
static void put_a(struct writer *o, const struct ftpu_gemm_chunk *ch, size_t i,
		  size_t tiles)
{
	const struct ftpu_gemm_plan *p = o->p;
	const struct ftpu_gemm_operand *a = o->a;
	const size_t words = ch->mc * p->n / 2;

	put_instr(o, FTPU_OP_HOST_READ, FTPU_MEM_UB, tiles * ch->mc,
		  ch->ub + (uint32_t)(i * ch->mc), 0);
	const bool deferred = a && !a->f32 && !a->bf16;
	if (deferred && o->notify && p->o.a_at)
		p->o.a_at(p->o.ctx, ch->m0, ch->mc, ch->kt0 + i, tiles, o->at);
	for (size_t t = 0; t < tiles; t++, o->at += words) {
		if (!o->w)
			continue;
		if (deferred) {
			memset(o->w + o->at, 0, words * sizeof(*o->w));
			continue;
		}
		pack_a(p, a, ch->m0, ch->mc, ch->kt0 + i + t, o->scratch);
		put_pairs(o->w + o->at, o->scratch, ch->mc * p->n);
	}
}

/* Chunk ch; the tail of pending (if any) after its first k-tile's
 * MATMULs. */
static void put_chunk(struct writer *o, const struct ftpu_gemm_chunk *ch,
		      const struct ftpu_gemm_chunk *pending)
{
	const struct ftpu_gemm_plan *p = o->p;
	const size_t n = p->n, NT = p->NT;
	const bool due = b_due(p, ch, o->send_b), c_in = p->o.c_in;

	if (c_in && ch->kt0 == 0)
		put_read_f32(o, FTPU_MEM_ACC, ch->acc,
			     p->o.c_in + ch->m0 * p->N, p->N, ch->nt0, ch->mc,
			     ch->ntc * ch->mc);
	/* A's k-tiles one by one, or all of them first in as few reads as
	 * fit */
	const bool a_each = !p->o.a_resident && !p->o.a_first;
	const size_t group = MAX_N / ch->mc;
	for (size_t i = 0; !p->o.a_resident && p->o.a_first && i < ch->ktc;
	     i += group)
		put_a(o, ch, i, min_sz(group, ch->ktc - i));
	for (size_t i = 0; i < ch->ktc; i++) {
		size_t kt = ch->kt0 + i;
		uint32_t ub = ch->ub + (uint32_t)(i * ch->mc);

		if (a_each)
			put_a(o, ch, i, 1);
		/* the k-tile's row of B tiles: contiguous in the image */
		uint32_t wm = p->wm + (uint32_t)((p->b_whole ? kt * NT + ch->nt0
							     : i * ch->ntc) *
						 n);
		if (due)
			put_read(o, FTPU_MEM_WM, wm,
				 o->image + (kt * NT + ch->nt0) * n * n,
				 ch->ntc * n, MAX_N);
		unsigned flags = FTPU_MATMUL_SWAP |
				 (kt || c_in ? FTPU_MATMUL_ACCUMULATE : 0);
		for (size_t j = 0; j < ch->ntc; j++) {
			put_instr(o, FTPU_OP_LOAD_WEIGHTS, 0, 1,
				  wm + (uint32_t)(j * n), 0);
			put_instr(o, FTPU_OP_MATMUL, flags, ch->mc, ub,
				  ch->acc + (uint32_t)(j * ch->mc));
		}
		/* the previous block's tail, now that this chunk's first
		 * MATMULs are queued behind its last ones */
		if (i == 0 && pending)
			put_tail(o, pending);
	}
}

/* Words of chunk c, with its block's tail when it completes one. */
static size_t chunk_words(const struct ftpu_gemm_plan *p, size_t c,
			  bool send_b)
{
	struct writer o = {.p = p, .send_b = send_b};
	struct ftpu_gemm_chunk ch;
	ftpu__gemm_chunk(p, c, &ch);
	put_chunk(&o, &ch, NULL);
	if (ch.last_k)
		put_tail(&o, &ch);
	return o.at;
}

size_t ftpu__gemm_words(const struct ftpu_gemm_plan *p, size_t c0, size_t c1,
			bool send_b)
{
	size_t words = 0;
	for (size_t c = c0; c < c1; c++)
		words += chunk_words(p, c, send_b);
	return words;
}

size_t ftpu__gemm_batch_end(const struct ftpu_gemm_plan *p, size_t c0,
			    bool send_b, size_t budget)
{
	size_t c = c0, words = 0;

	while (c < p->chunks) {
		size_t w = chunk_words(p, c, send_b);
		if (c > c0 && words + w > budget)
			break;
		words += w;
		c++;
	}
	return c;
}

size_t ftpu__gemm_data_words(const struct ftpu_gemm_plan *p, size_t c0,
			     size_t c1)
{
	struct ftpu_gemm_chunk ch;
	size_t halves = 2 * (size_t)p->o.acc_writes, words = 0;

	for (size_t i = 0; i < p->o.n_acts; i++)
		halves += p->o.acts[i].writes;
	for (size_t c = c0; c < c1; c++) {
		ftpu__gemm_chunk(p, c, &ch);
		if (ch.last_k)
			words += ch.ntc * ch.mc * p->n / 2 * halves;
	}
	return words;
}

size_t ftpu__gemm_emit_image(const struct ftpu_gemm_plan *p,
			     const uint16_t *image, uint32_t *w)
{
	struct writer o = {.w = w, .p = p};
	put_read(&o, FTPU_MEM_WM, p->wm, image, p->KT * p->NT * p->n,
		 MAX_N / p->n * p->n);
	return o.at;
}

size_t ftpu__gemm_emit_bias(const struct ftpu_gemm_plan *p, const float *bias,
			    size_t nt0, size_t ntc, uint32_t at, uint32_t *w)
{
	struct writer o = {.w = w, .p = p};
	put_read_f32(&o, FTPU_MEM_BIAS, at, bias, 0, nt0, 1, ntc);
	return o.at;
}

size_t ftpu__gemm_emit(const struct ftpu_gemm_plan *p,
		       const struct ftpu_gemm_operand *a, const uint16_t *image,
		       bool send_b, size_t c0, size_t c1, uint16_t *scratch,
		       uint32_t *w)
{
	struct writer o = {w, 0, p, a, image, scratch, send_b, true};
	struct ftpu_gemm_chunk ch, pending;
	bool have_pending = false;

	for (size_t c = c0; c < c1; c++) {
		ftpu__gemm_chunk(p, c, &ch);
		put_chunk(&o, &ch, have_pending ? &pending : NULL);
		have_pending = false;
		if (ch.last_k) {
			if (p->db) {
				pending = ch;
				have_pending = true;
			} else {
				put_tail(&o, &ch);
			}
		}
	}
	if (have_pending)
		put_tail(&o, &pending);
	return o.at;
}

void ftpu__gemm_store(const struct ftpu_gemm_plan *p, const uint32_t *data,
		      float alpha, float beta, float *c, size_t ldc)
{
	const size_t n = p->n, N = p->N;
	const bool exact = alpha == 1.0f && beta == 0.0f;
	struct ftpu_gemm_chunk ch;
	size_t off = 0;

	/* blocks in program order; any chunk of a block has its rows and
	 * n-tiles; its words are [n-tile][row][column] */
	for (size_t first = 0; first < p->chunks; first += p->kblocks) {
		ftpu__gemm_chunk(p, first, &ch);
		for (size_t m = 0; m < ch.mc; m++) {
			float *dst_row = c + (ch.m0 + m) * ldc;
			for (size_t j = 0; j < ch.ntc; j++) {
				size_t j0 = (ch.nt0 + j) * n,
				       cnt = min_sz(n, N - j0);
				const uint32_t *src =
					data + off + (j * ch.mc + m) * n;
				float *dst = dst_row + j0;
				if (exact) {
					memcpy(dst, src, cnt * sizeof(*dst));
					continue;
				}
				for (size_t i = 0; i < cnt; i++) {
					float r;
					memcpy(&r, &src[i], sizeof(r));
					dst[i] =
						beta == 0.0f
							? alpha * r
							: alpha * r +
								  beta * dst[i];
				}
			}
		}
		off += ch.ntc * ch.mc * n;
	}
}
