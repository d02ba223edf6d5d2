/* The SLS kernel's vector code (core/_sls.pyx): counting examples into
 * the per-slot differences, scoring the candidate literals, and passes over
 * the examples' words with vector popcounts.
 *
 * The counts are laid out as SLSData._vector_layout says (prefix form: per
 * ordinal attribute of n bins, the examples in bins <= l for l < n - 1 and
 * its missing ones if it has any; per nominal attribute, per value), one
 * attribute after the other, cut into groups of 64 slots (an attribute may
 * straddle two groups; 40 attributes of ten bins take six groups). Each
 * example has one 64-bit mask per group: the bits of every slot it counts
 * in. Adding the example is then one masked byte add per group to a
 * 512-bit register of 64 byte counters. The counters are signed bytes;
 * each example moves a counter by at most one, so they are added to the
 * 32-bit differences every 127 examples, before they can overflow.
 *
 * With AVX2 (no mask registers, 16 vector registers of 256 bits) the
 * same counts take two byte registers per group, and an example's mask is
 * spread to bytes by a broadcast, a byte shuffle and a compare
 * (RULES_SLS_SPREAD); many examples are added by bit-sliced counters
 * instead (rules_sls_sliced_avx2). The scoring reads the counts in prefix
 * form with scalar loops (rules_sls_best_literals_prefix).
 *
 * The scalar loops count many examples by bit-sliced counters in plain C
 * (rules_sls_sliced, for every compiler and CPU; two groups at once where
 * the compiler has vector types).
 *
 * The counts are exact integers, so the search makes the same choices as
 * with the scalar loops of core/_sls.pyx on any CPU. Only x86-64 builds
 * the vector code (GCC and Clang: AVX2 and AVX-512; MSVC: AVX2, see below);
 * it runs where the CPU has AVX2 or AVX-512BW (the popcount passes:
 * VPOPCNTDQ), checked at run time; elsewhere the caller runs its scalar
 * loops.
 */
#ifndef RULES_SLS_COUNT_H
#define RULES_SLS_COUNT_H

#include <stdint.h>
#include <stddef.h>

/* Which vector code is built. x86-64 with GCC or Clang: AVX2 and AVX-512,
 * each function compiled for its target (RULES_TARGET). x86-64 with MSVC,
 * which builds the Windows wheels: AVX2 (MSVC compiles any intrinsic
 * without /arch, so no function needs a target; its AVX-512 reductions are
 * left out). The CPU is checked at run time on both. RULES_SLS_AS_MSVC makes
 * another compiler take MSVC's way, so that a machine without MSVC can
 * check that way compiles (scripts/windows_compile_check.py). Elsewhere
 * (ARM64, other compilers) the caller runs its scalar loops. */
#if defined(RULES_SLS_AS_MSVC) || (defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64))
#define RULES_SLS_MSVC 1
#define RULES_SLS_HAVE_AVX2 1
#define RULES_SLS_HAVE_AVX512 0
#include <intrin.h>
#define RULES_TARGET(features)
#define RULES_ALIGNED32
#define RULES_SLS_CTZ64(x) rules_sls_ctz64(x)
#define RULES_SLS_CTZ32(x) rules_sls_ctz64(x)
#define RULES_SLS_POPCOUNT64(x) ((int)__popcnt64(x))
#define RULES_SLS_POPCOUNT32(x) ((int)__popcnt(x))
/* the upper halves of the YMM registers cleared on leaving the AVX2 code,
 * so the SSE code after it pays no transition (GCC and Clang insert this
 * themselves in a function compiled for AVX2) */
#define RULES_SLS_ZEROUPPER() _mm256_zeroupper()
static __forceinline int rules_sls_ctz64(unsigned long long x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
/* CPUID leaf, subleaf: the registers eax, ebx, ecx, edx; XCR0 */
static void rules_sls_cpuid(int leaf, int sub, int r[4]) { __cpuidex(r, leaf, sub); }
static unsigned long long rules_sls_xcr0(void) { return _xgetbv(0); }
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define RULES_SLS_MSVC 0
#define RULES_SLS_HAVE_AVX2 1
#define RULES_SLS_HAVE_AVX512 1
#include <cpuid.h>
#define RULES_TARGET(features) __attribute__((target(features)))
#define RULES_ALIGNED32 __attribute__((aligned(32)))
#define RULES_SLS_CTZ64(x) __builtin_ctzll(x)
#define RULES_SLS_CTZ32(x) __builtin_ctz(x)
#define RULES_SLS_POPCOUNT64(x) __builtin_popcountll(x)
#define RULES_SLS_POPCOUNT32(x) __builtin_popcount(x)
#define RULES_SLS_ZEROUPPER() ((void)0)
static void rules_sls_cpuid(int leaf, int sub, int r[4]) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count((unsigned)leaf, (unsigned)sub, a, b, c, d);
    r[0] = (int)a; r[1] = (int)b; r[2] = (int)c; r[3] = (int)d;
}
static unsigned long long rules_sls_xcr0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#else
#define RULES_SLS_MSVC 0
#define RULES_SLS_HAVE_AVX2 0
#define RULES_SLS_HAVE_AVX512 0
#endif

#if RULES_SLS_HAVE_AVX2
/* AVX2 (with BMI1 and POPCNT, which rules_sls_list uses) by CPUID, and the
 * operating system saving the AVX registers (XCR0): how the MSVC build
 * checks the CPU. GCC and Clang ask __builtin_cpu_supports; a test compares
 * the two on the machine it runs on (core._sls.avx2_by_cpuid). */
static int rules_sls_avx2_by_cpuid(void) {
    int r[4];
    rules_sls_cpuid(0, 0, r);
    if (r[0] < 7)
        return 0;
    rules_sls_cpuid(1, 0, r);
    if (!(r[2] >> 27 & 1) || !(r[2] >> 28 & 1) || !(r[2] >> 23 & 1))  /* OSXSAVE, AVX, POPCNT */
        return 0;
    if ((rules_sls_xcr0() & 6) != 6)  /* the XMM and YMM state */
        return 0;
    rules_sls_cpuid(7, 0, r);
    return (r[1] >> 5 & 1) && (r[1] >> 3 & 1);  /* AVX2, BMI1 */
}
#else
static int rules_sls_avx2_by_cpuid(void) { return 0; }
#endif

/* The lowest d[l] over the slots l of lw and the highest over those of uw
 * (bit l of a mask: slot l of the group's 64), INT32_MAX / INT32_MIN for an
 * empty mask: the first pass of _best_by_bits (core/_sls.pyx). Every slot
 * is read and kept or not by its bit, without a branch, so the compiler
 * turns the loop into vector code (SSE2 on any x86-64, NEON on ARM64,
 * AVX2 in the build below): measured cheaper than visiting the set bits
 * one by one on the shapes of benchmarks/bench_shapes.py, whose groups
 * have most of their slots open (doc/sls.md). d must hold 64 readable
 * values (the slots no mask holds are not used). */
static const uint32_t rules_sls_lane_bit[32] = {
    1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
    1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

/* the body of rules_sls_group_extremes, for each target it is compiled for */
#define RULES_SLS_GROUP_EXTREMES_BODY                                             \
    const uint32_t l0 = (uint32_t)lw, l1 = (uint32_t)(lw >> 32);                 \
    const uint32_t u0 = (uint32_t)uw, u1 = (uint32_t)(uw >> 32);                 \
    int32_t lo = INT32_MAX, hi = INT32_MIN;                                       \
    for (int l = 0; l < 32; l++) {  /* slots l and 32 + l */                      \
        const uint32_t bit = rules_sls_lane_bit[l];                               \
        const int32_t v0 = d[l], v1 = d[32 + l];                                  \
        const int32_t a0 = (l0 & bit) ? v0 : INT32_MAX, a1 = (l1 & bit) ? v1 : INT32_MAX; \
        const int32_t b0 = (u0 & bit) ? v0 : INT32_MIN, b1 = (u1 & bit) ? v1 : INT32_MIN; \
        const int32_t a = a0 < a1 ? a0 : a1, b = b0 > b1 ? b0 : b1;               \
        lo = a < lo ? a : lo;                                                     \
        hi = b > hi ? b : hi;                                                     \
    }                                                                             \
    *lmin = lo;                                                                   \
    *umax = hi;

static inline void rules_sls_group_extremes(const int32_t *d, uint64_t lw, uint64_t uw,
                                            int32_t *lmin, int32_t *umax) {
    RULES_SLS_GROUP_EXTREMES_BODY
}

/* The slots of the group whose d[l] equals a (el) and those whose d[l]
 * equals b (eu), as masks: the second pass of _best_by_bits, for a group
 * that reaches the best change (the caller keeps the bits of its lw and
 * uw). Branch-free like rules_sls_group_extremes; a value outside the
 * int32 range equals no slot. */
#define RULES_SLS_GROUP_TIES_BODY                                                 \
    const int32_t a32 = (int32_t)a, b32 = (int32_t)b;                             \
    uint32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;                                      \
    for (int l = 0; l < 32; l++) {  /* slots l and 32 + l */                      \
        const uint32_t bit = rules_sls_lane_bit[l];                               \
        a0 |= bit & (0u - (uint32_t)(d[l] == a32));                               \
        a1 |= bit & (0u - (uint32_t)(d[32 + l] == a32));                          \
        b0 |= bit & (0u - (uint32_t)(d[l] == b32));                               \
        b1 |= bit & (0u - (uint32_t)(d[32 + l] == b32));                          \
    }                                                                             \
    *el = (a == (int64_t)a32) ? (a0 | ((uint64_t)a1 << 32)) : 0;                  \
    *eu = (b == (int64_t)b32) ? (b0 | ((uint64_t)b1 << 32)) : 0;

static inline void rules_sls_group_ties(const int32_t *d, int64_t a, int64_t b,
                                        uint64_t *el, uint64_t *eu) {
    RULES_SLS_GROUP_TIES_BODY
}

#if RULES_SLS_HAVE_AVX2 && !RULES_SLS_MSVC
/* the same two, compiled for AVX2 (eight slots a vector instead of four) */
static RULES_TARGET("avx2") void rules_sls_group_extremes_avx2(
        const int32_t *d, uint64_t lw, uint64_t uw, int32_t *lmin, int32_t *umax) {
    RULES_SLS_GROUP_EXTREMES_BODY
}
static RULES_TARGET("avx2") void rules_sls_group_ties_avx2(
        const int32_t *d, int64_t a, int64_t b, uint64_t *el, uint64_t *eu) {
    RULES_SLS_GROUP_TIES_BODY
}
#else
#define rules_sls_group_extremes_avx2 rules_sls_group_extremes
#define rules_sls_group_ties_avx2 rules_sls_group_ties
#endif

/* The literals of one attribute that a specialisation of a rule may add
 * for an example it covers (core/_sls.pyx, _specialise), as two ranges
 * [r[0], r[1]) and [r[2], r[3]) of literal offsets; returns how many. v:
 * the example's code (-1 missing); nbm: bins (values) - 1; lo, hi: the
 * rule's literal(s) on the attribute. Nominal: the values but v if the
 * rule does not test the attribute (lo < 0), none if it does. Ordinal:
 * the lower bounds above v's bin (offset b - 1 for bound b) and the upper
 * bounds below it (offset nbm + b) that keep the interval non-empty
 * (lo <= v <= hi, as the rule covers the example); every bound if v is
 * missing (then the rule does not test the attribute). */
static inline int32_t rules_sls_free_range(int32_t v, int32_t nbm, int8_t ordinal,
                                           int32_t lo, int32_t hi, int32_t *r) {
    if (!ordinal) {
        if (lo >= 0) { r[0] = r[1] = r[2] = r[3] = 0; return 0; }
        if (v < 0) { r[0] = 0; r[1] = nbm + 1; r[2] = r[3] = 0; return nbm + 1; }
        r[0] = 0; r[1] = v; r[2] = v + 1; r[3] = nbm + 1;
        return nbm;
    }
    if (v < 0) { r[0] = 0; r[1] = nbm; r[2] = nbm; r[3] = 2 * nbm; return 2 * nbm; }
    r[0] = v; r[1] = hi; r[2] = nbm + lo; r[3] = nbm + v;
    return hi - lo;
}

/* Keep the literals of the lowest change so far, in literal order (the
 * scalar scoring of core/_sls.pyx and rules_sls_best_literals_prefix). */
static inline void rules_sls_keep(int32_t delta, int32_t lit, int32_t *best,
                                  ptrdiff_t *n_ties, int32_t *ties) {
    if (delta <= *best) {
        if (delta < *best) { *best = delta; *n_ties = 0; }
        ties[(*n_ties)++] = lit;
    }
}

/* rules_sls_best_literals (below) with plain loops, for the counts in
 * prefix form when the CPU counts with AVX2: an ordinal attribute's
 * bounds read their count directly (no prefix sums), as there. */
static ptrdiff_t rules_sls_best_literals_prefix(
        const int32_t *D, int32_t total, ptrdiff_t A, const int32_t *xv, const int32_t *lo,
        const int32_t *hi, const int32_t *off, const int32_t *nb, const int32_t *first_lit,
        const int8_t *ordinal, const int8_t *has_missing, int32_t *ties) {
    int32_t best = INT32_MAX, rg[4], missing;
    ptrdiff_t a, l, n_ties = 0;
    for (a = 0; a < A; a++) {
        ptrdiff_t nbm = nb[a] - 1;
        int32_t lit = first_lit[a];
        const int32_t *d = D + off[a];
        if (!rules_sls_free_range(xv[a], (int32_t)nbm, ordinal[a], lo[a], hi[a], rg))
            continue;
        if (!ordinal[a]) {
            for (l = rg[0]; l < rg[1]; l++) rules_sls_keep(total - d[l], lit + (int32_t)l, &best, &n_ties, ties);
            for (l = rg[2]; l < rg[3]; l++) rules_sls_keep(total - d[l], lit + (int32_t)l, &best, &n_ties, ties);
            continue;
        }
        missing = has_missing[a] ? d[nbm] : 0;
        for (l = rg[0]; l < rg[1]; l++)
            rules_sls_keep(missing + d[l], lit + (int32_t)l, &best, &n_ties, ties);
        for (l = rg[2]; l < rg[3]; l++)
            rules_sls_keep(total - d[l - nbm], lit + (int32_t)l, &best, &n_ties, ties);
    }
    return n_ties;
}

/* Bit-sliced counting in plain C, for the scalar path on any compiler and
 * CPU: out[64 g + i] += the examples idx[0..n) whose mask of group g has
 * bit i, for the G <= RULES_SLS_SLICED_GROUPS groups. Per group, sixteen
 * examples' masks go through a tree of carry-save adders (a full adder on
 * every bit of a 64-bit word: five logic operations) into the count's bits
 * of weight 1, 2, 4 and 8, which carry over to the next sixteen; the carry
 * of weight 16 is added to the higher bits by a ripple of half adders
 * (mostly one or two). So an example costs about six operations a group
 * of 64 slots, whatever its bits, and the bits become counts once, at the
 * end. */
#define RULES_SLS_SLICED_GROUPS 32
#define RULES_SLS_CSA64(h, l, a, b, c) do {                                       \
    uint64_t u_ = (a) ^ (b);                                                      \
    h = ((a) & (b)) | (u_ & (c));                                                 \
    l = u_ ^ (c);                                                                 \
} while (0)

/* The tree of carry-save adders (full adders CSA on values of type T):
 * the sixteen inputs in(0)..in(15) added to the bit planes ones, twos,
 * fours and eights; the carry of weight 16 comes out in carry. */
#define RULES_SLS_SIXTEEN(T, CSA, in, ones, twos, fours, eights, carry) do {       \
    T ta_, tb_, fa_, fb_, ea_, eb_;                                               \
    CSA(ta_, ones, ones, in(0), in(1));                                           \
    CSA(tb_, ones, ones, in(2), in(3));                                           \
    CSA(fa_, twos, twos, ta_, tb_);                                               \
    CSA(ta_, ones, ones, in(4), in(5));                                           \
    CSA(tb_, ones, ones, in(6), in(7));                                           \
    CSA(fb_, twos, twos, ta_, tb_);                                               \
    CSA(ea_, fours, fours, fa_, fb_);                                             \
    CSA(ta_, ones, ones, in(8), in(9));                                           \
    CSA(tb_, ones, ones, in(10), in(11));                                         \
    CSA(fa_, twos, twos, ta_, tb_);                                               \
    CSA(ta_, ones, ones, in(12), in(13));                                         \
    CSA(tb_, ones, ones, in(14), in(15));                                         \
    CSA(fb_, twos, twos, ta_, tb_);                                               \
    CSA(eb_, fours, fours, fa_, fb_);                                             \
    CSA(carry, eights, eights, ea_, eb_);                                         \
} while (0)

/* byte i of the result: bit i of the byte b (0 or 1) */
static inline uint64_t rules_sls_spread_byte(uint64_t b) {
    uint64_t t = (b * 0x0101010101010101ULL) & 0x8040201008040201ULL;
    return ((t + 0x7F7F7F7F7F7F7F7FULL) >> 7) & 0x0101010101010101ULL;
}

/* out[b] += the count whose bit q is bit b of plane[q], for the 64 slots
 * b of a group. Eight slots at a time: each plane's byte is spread to
 * eight bytes of 0 or 1 (a multiply and three logic operations) and put
 * at bit q % 8 of the bytes of the (q / 8)-th byte of the counts, so a
 * plane costs eight spreads, not 64 shifts; the counts are then read out
 * of those bytes. */
static inline void rules_sls_planes_to_counts(const uint64_t *plane, int32_t *out) {
    uint64_t part[4][8] = {{0}};  /* [byte of the counts][eight slots] */
    int top = -1;
    for (int q = 0; q < 32; q++) {
        uint64_t w = plane[q];
        if (!w) continue;
        top = q;
        for (int c = 0; c < 8; c++)
            part[q >> 3][c] |= rules_sls_spread_byte((w >> (8 * c)) & 0xFF) << (q & 7);
    }
    if (top < 0) return;
    for (int c = 0; c < 8; c++)
        for (int i = 0; i < 8; i++) {
            uint32_t v = (uint32_t)((part[0][c] >> (8 * i)) & 0xFF);
            for (int r = 1; r <= top >> 3; r++)
                v |= (uint32_t)((part[r][c] >> (8 * i)) & 0xFF) << (8 * r);
            out[8 * c + i] += (int32_t)v;
        }
}

/* Two groups in one 128-bit value where the compiler has vector types
 * (GCC and Clang: SSE2 on every x86-64 CPU, NEON on ARM64): the same
 * logic operations on both halves, so the tree costs half as many
 * instructions per group. Other compilers (MSVC) take one group at a time. */
#if defined(__GNUC__)
#define RULES_SLS_HAVE_U64X2 1
typedef uint64_t rules_sls_u64x2 __attribute__((vector_size(16)));
#define RULES_SLS_CSA2(h, l, a, b, c) do {                                        \
    rules_sls_u64x2 u_ = (a) ^ (b);                                               \
    h = ((a) & (b)) | (u_ & (c));                                                 \
    l = u_ ^ (c);                                                                 \
} while (0)
#else
#define RULES_SLS_HAVE_U64X2 0
#endif

static void rules_sls_sliced(const uint64_t *masks, ptrdiff_t G, const int32_t *idx,
                             ptrdiff_t n, int32_t *out) {
    static const uint64_t none[RULES_SLS_SLICED_GROUPS] = {0};
    uint64_t planes[RULES_SLS_SLICED_GROUPS][32];  /* bit q of the counts: weight 2^q */
    const uint64_t *row[16];
    ptrdiff_t pairs = 0;
#if RULES_SLS_HAVE_U64X2
    rules_sls_u64x2 pplanes[RULES_SLS_SLICED_GROUPS / 2][32];  /* groups 2p and 2p + 1 */
    pairs = G / 2;
    for (ptrdiff_t p = 0; p < pairs; p++)
        for (int q = 0; q < 32; q++) pplanes[p][q] = (rules_sls_u64x2){0, 0};
#endif
    for (ptrdiff_t g = 0; g < G; g++)
        for (int q = 0; q < 32; q++) planes[g][q] = 0;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        for (int k = 0; k < 16; k++)
            row[k] = i + k < n ? masks + (ptrdiff_t)idx[i + k] * G : none;
#if RULES_SLS_HAVE_U64X2
        for (ptrdiff_t pr = 0; pr < pairs; pr++) {
            rules_sls_u64x2 *p = pplanes[pr], in[16];
            rules_sls_u64x2 ones = p[0], twos = p[1], fours = p[2], eights = p[3], carry;
            for (int k = 0; k < 16; k++)
                __builtin_memcpy(&in[k], row[k] + 2 * pr, sizeof(rules_sls_u64x2));
#define RULES_SLS_ROW(k) in[k]
            RULES_SLS_SIXTEEN(rules_sls_u64x2, RULES_SLS_CSA2, RULES_SLS_ROW, ones, twos,
                              fours, eights, carry);
#undef RULES_SLS_ROW
            p[0] = ones; p[1] = twos; p[2] = fours; p[3] = eights;
            for (int q = 4; carry[0] | carry[1]; q++) {  /* count < 2^32 */
                rules_sls_u64x2 t = p[q] & carry;
                p[q] ^= carry;
                carry = t;
            }
        }
#endif
        for (ptrdiff_t g = 2 * pairs; g < G; g++) {
            uint64_t *p = planes[g];
            uint64_t ones = p[0], twos = p[1], fours = p[2], eights = p[3], carry;
#define RULES_SLS_ROW(k) row[k][g]
            RULES_SLS_SIXTEEN(uint64_t, RULES_SLS_CSA64, RULES_SLS_ROW, ones, twos, fours,
                              eights, carry);
#undef RULES_SLS_ROW
            p[0] = ones; p[1] = twos; p[2] = fours; p[3] = eights;
            for (int q = 4; carry; q++) {  /* count < 2^32: q stays below 32 */
                uint64_t t = p[q] & carry;
                p[q] ^= carry;
                carry = t;
            }
        }
    }
#if RULES_SLS_HAVE_U64X2
    for (ptrdiff_t p = 0; p < pairs; p++)
        for (int q = 0; q < 32; q++) {
            planes[2 * p][q] = pplanes[p][q][0];
            planes[2 * p + 1][q] = pplanes[p][q][1];
        }
#endif
    for (ptrdiff_t g = 0; g < G; g++)
        rules_sls_planes_to_counts(planes[g], out + 64 * g);
}

#if RULES_SLS_HAVE_AVX2
#include <immintrin.h>

typedef void (*rules_sls_chunk_fn)(const uint64_t *, ptrdiff_t, ptrdiff_t, const uint64_t *,
                                   const uint64_t *, ptrdiff_t, int32_t *);
#endif

#if RULES_SLS_HAVE_AVX512

#define RULES_AVX512 RULES_TARGET("avx512f,avx512bw")

static int rules_sls_simd_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

/* add the byte counters of n_groups groups to the 32-bit differences at d
 * (64 slots a group) and clear them */
#define RULES_SLS_FLUSH(acc, n_groups, d)                                         \
    for (int g_ = 0; g_ < (n_groups); g_++) {                                     \
        int32_t *p_ = (d) + 64 * g_;                                              \
        __m512i v0_ = _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(acc[g_], 0)); \
        __m512i v1_ = _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(acc[g_], 1)); \
        __m512i v2_ = _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(acc[g_], 2)); \
        __m512i v3_ = _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(acc[g_], 3)); \
        _mm512_storeu_si512(p_, _mm512_add_epi32(_mm512_loadu_si512(p_), v0_));   \
        _mm512_storeu_si512(p_ + 16, _mm512_add_epi32(_mm512_loadu_si512(p_ + 16), v1_)); \
        _mm512_storeu_si512(p_ + 32, _mm512_add_epi32(_mm512_loadu_si512(p_ + 32), v2_)); \
        _mm512_storeu_si512(p_ + 48, _mm512_add_epi32(_mm512_loadu_si512(p_ + 48), v3_)); \
        acc[g_] = _mm512_setzero_si512();                                         \
    }

/* One pass over the examples for N groups starting at g0: +1 for the
 * examples of the bitset plus, -1 for those of minus (W words each). N is a
 * constant, so the N counters stay in registers. */
#define RULES_SLS_CHUNK(N)                                                        \
static RULES_AVX512 void rules_sls_chunk##N(                                      \
        const uint64_t *masks, ptrdiff_t G, ptrdiff_t g0,                         \
        const uint64_t *plus, const uint64_t *minus, ptrdiff_t W, int32_t *d) {   \
    __m512i acc[N];                                                               \
    const __m512i one = _mm512_set1_epi8(1);                                      \
    int since = 0;                                                                \
    for (int g = 0; g < N; g++) acc[g] = _mm512_setzero_si512();                  \
    for (ptrdiff_t j = 0; j < W; j++) {                                           \
        uint64_t word = plus[j];                                                  \
        while (word) {                                                            \
            const uint64_t *row = masks + (64 * j + RULES_SLS_CTZ64(word)) * G + g0; \
            word &= word - 1;                                                     \
            for (int g = 0; g < N; g++)                                           \
                acc[g] = _mm512_mask_add_epi8(acc[g], (__mmask64)row[g], acc[g], one); \
            if (++since == 127) { RULES_SLS_FLUSH(acc, N, d + 64 * g0); since = 0; } \
        }                                                                         \
        word = minus[j];                                                          \
        while (word) {                                                            \
            const uint64_t *row = masks + (64 * j + RULES_SLS_CTZ64(word)) * G + g0; \
            word &= word - 1;                                                     \
            for (int g = 0; g < N; g++)                                           \
                acc[g] = _mm512_mask_sub_epi8(acc[g], (__mmask64)row[g], acc[g], one); \
            if (++since == 127) { RULES_SLS_FLUSH(acc, N, d + 64 * g0); since = 0; } \
        }                                                                         \
    }                                                                             \
    RULES_SLS_FLUSH(acc, N, d + 64 * g0);                                         \
}

RULES_SLS_CHUNK(1)  RULES_SLS_CHUNK(2)  RULES_SLS_CHUNK(3)  RULES_SLS_CHUNK(4)
RULES_SLS_CHUNK(5)  RULES_SLS_CHUNK(6)  RULES_SLS_CHUNK(7)  RULES_SLS_CHUNK(8)
RULES_SLS_CHUNK(9)  RULES_SLS_CHUNK(10) RULES_SLS_CHUNK(11) RULES_SLS_CHUNK(12)
RULES_SLS_CHUNK(13) RULES_SLS_CHUNK(14) RULES_SLS_CHUNK(15) RULES_SLS_CHUNK(16)
RULES_SLS_CHUNK(17) RULES_SLS_CHUNK(18) RULES_SLS_CHUNK(19) RULES_SLS_CHUNK(20)
RULES_SLS_CHUNK(21) RULES_SLS_CHUNK(22) RULES_SLS_CHUNK(23) RULES_SLS_CHUNK(24)

#define RULES_SLS_MAX_CHUNK 24
static const rules_sls_chunk_fn rules_sls_chunks[RULES_SLS_MAX_CHUNK + 1] = {
    NULL, rules_sls_chunk1, rules_sls_chunk2, rules_sls_chunk3, rules_sls_chunk4,
    rules_sls_chunk5, rules_sls_chunk6, rules_sls_chunk7, rules_sls_chunk8,
    rules_sls_chunk9, rules_sls_chunk10, rules_sls_chunk11, rules_sls_chunk12,
    rules_sls_chunk13, rules_sls_chunk14, rules_sls_chunk15, rules_sls_chunk16,
    rules_sls_chunk17, rules_sls_chunk18, rules_sls_chunk19, rules_sls_chunk20,
    rules_sls_chunk21, rules_sls_chunk22, rules_sls_chunk23, rules_sls_chunk24};

/* d[slot] += (examples of plus) - (examples of minus) in every slot of the
 * G groups (d holds their 64 G slots first): one pass over the examples per
 * 24 groups (24 of the 32 vector registers) */
static void rules_sls_count_packed(const uint64_t *masks, ptrdiff_t G,
                                   const uint64_t *plus, const uint64_t *minus,
                                   ptrdiff_t W, int32_t *d) {
    for (ptrdiff_t g0 = 0; g0 < G; g0 += RULES_SLS_MAX_CHUNK) {
        ptrdiff_t n = G - g0 < RULES_SLS_MAX_CHUNK ? G - g0 : RULES_SLS_MAX_CHUNK;
        rules_sls_chunks[n](masks, G, g0, plus, minus, W, d);
    }
}


#endif  /* RULES_SLS_HAVE_AVX512 */

#if RULES_SLS_HAVE_AVX2
/* ---- AVX2 ---- */
#define RULES_AVX2 RULES_TARGET("avx2")

static int rules_sls_avx2_available(void) {
#if RULES_SLS_MSVC
    return rules_sls_avx2_by_cpuid();
#else
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#endif
}

/* the 64 bits of a mask as 64 bytes in two registers, 0xFF where the bit
 * is set: bit i goes to byte i. The mask is broadcast from memory; the
 * shuffles give byte i of the low register the mask's byte i / 8 (of the
 * high one, byte 4 + i / 8); the compares keep bit i % 8. */
#define RULES_SLS_SPREAD(p, lo, hi) do {                                          \
    __m256i m_ = _mm256_set1_epi64x((long long)*(p));                             \
    lo = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(m_, shuf_lo), bits), bits); \
    hi = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(m_, shuf_hi), bits), bits); \
} while (0)

/* add the byte counters (two registers a group) to the 32-bit differences */
#define RULES_SLS_FLUSH2(acc, n_groups, d)                                        \
    for (int g_ = 0; g_ < 2 * (n_groups); g_++) {                                 \
        int32_t *p_ = (d) + 32 * g_;                                              \
        __m128i lo_ = _mm256_castsi256_si128(acc[g_]);                            \
        __m128i hi_ = _mm256_extracti128_si256(acc[g_], 1);                       \
        __m256i v0_ = _mm256_cvtepi8_epi32(lo_);                                  \
        __m256i v1_ = _mm256_cvtepi8_epi32(_mm_srli_si128(lo_, 8));               \
        __m256i v2_ = _mm256_cvtepi8_epi32(hi_);                                  \
        __m256i v3_ = _mm256_cvtepi8_epi32(_mm_srli_si128(hi_, 8));               \
        __m256i *q_ = (__m256i *)p_;                                              \
        _mm256_storeu_si256(q_, _mm256_add_epi32(_mm256_loadu_si256(q_), v0_));   \
        _mm256_storeu_si256(q_ + 1, _mm256_add_epi32(_mm256_loadu_si256(q_ + 1), v1_)); \
        _mm256_storeu_si256(q_ + 2, _mm256_add_epi32(_mm256_loadu_si256(q_ + 2), v2_)); \
        _mm256_storeu_si256(q_ + 3, _mm256_add_epi32(_mm256_loadu_si256(q_ + 3), v3_)); \
        acc[g_] = _mm256_setzero_si256();                                         \
    }

/* rules_sls_chunk##N with AVX2: N groups in 2 N byte registers */
#define RULES_SLS_CHUNK2(N)                                                       \
static RULES_AVX2 void rules_sls_chunk2_##N(                                      \
        const uint64_t *masks, ptrdiff_t G, ptrdiff_t g0,                         \
        const uint64_t *plus, const uint64_t *minus, ptrdiff_t W, int32_t *d) {   \
    __m256i acc[2 * N], lo, hi;                                                   \
    const __m256i shuf_lo = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, \
                                             2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3); \
    const __m256i shuf_hi = _mm256_setr_epi8(4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, \
                                             6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7); \
    const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ULL);    \
    int since = 0;                                                                \
    for (int g = 0; g < 2 * N; g++) acc[g] = _mm256_setzero_si256();              \
    for (ptrdiff_t j = 0; j < W; j++) {                                           \
        uint64_t word = plus ? plus[j] : 0;                                       \
        while (word) {                                                            \
            const uint64_t *row = masks + (64 * j + RULES_SLS_CTZ64(word)) * G + g0; \
            word &= word - 1;                                                     \
            for (int g = 0; g < N; g++) {   /* a set byte is -1: subtract it */   \
                RULES_SLS_SPREAD(row + g, lo, hi);                                \
                acc[2 * g] = _mm256_sub_epi8(acc[2 * g], lo);                     \
                acc[2 * g + 1] = _mm256_sub_epi8(acc[2 * g + 1], hi);             \
            }                                                                     \
            if (++since == 127) { RULES_SLS_FLUSH2(acc, N, d + 64 * g0); since = 0; } \
        }                                                                         \
        word = minus ? minus[j] : 0;                                              \
        while (word) {                                                            \
            const uint64_t *row = masks + (64 * j + RULES_SLS_CTZ64(word)) * G + g0; \
            word &= word - 1;                                                     \
            for (int g = 0; g < N; g++) {                                         \
                RULES_SLS_SPREAD(row + g, lo, hi);                                \
                acc[2 * g] = _mm256_add_epi8(acc[2 * g], lo);                     \
                acc[2 * g + 1] = _mm256_add_epi8(acc[2 * g + 1], hi);             \
            }                                                                     \
            if (++since == 127) { RULES_SLS_FLUSH2(acc, N, d + 64 * g0); since = 0; } \
        }                                                                         \
    }                                                                             \
    RULES_SLS_FLUSH2(acc, N, d + 64 * g0);                                        \
}

RULES_SLS_CHUNK2(1) RULES_SLS_CHUNK2(2) RULES_SLS_CHUNK2(3) RULES_SLS_CHUNK2(4)
RULES_SLS_CHUNK2(5) RULES_SLS_CHUNK2(6) RULES_SLS_CHUNK2(7)

/* Up to seven groups a pass: fourteen byte counters, more than the
 * sixteen registers leave beside the spread's constants and temporaries,
 * so the compiler keeps some counters on the stack, which costs less than
 * another pass over the examples (doc/sls.md, "Seven groups a pass"). The
 * groups are shared evenly among the passes (8: 4 + 4, not 7 + 1). */
#define RULES_SLS_MAX_CHUNK2 7
static const rules_sls_chunk_fn rules_sls_chunks2[RULES_SLS_MAX_CHUNK2 + 1] = {
    NULL, rules_sls_chunk2_1, rules_sls_chunk2_2, rules_sls_chunk2_3, rules_sls_chunk2_4,
    rules_sls_chunk2_5, rules_sls_chunk2_6, rules_sls_chunk2_7};

/* rules_sls_chunks2 over all G groups, in as few passes as there are and
 * as even as they can be */
static void rules_sls_passes2(const uint64_t *masks, ptrdiff_t G, const uint64_t *plus,
                              const uint64_t *minus, ptrdiff_t W, int32_t *d) {
    ptrdiff_t passes = (G + RULES_SLS_MAX_CHUNK2 - 1) / RULES_SLS_MAX_CHUNK2;
    for (ptrdiff_t g0 = 0; passes > 0; passes--) {
        ptrdiff_t k = (G - g0 + passes - 1) / passes;
        rules_sls_chunks2[k](masks, G, g0, plus, minus, W, d);
        g0 += k;
    }
}

/* ---- AVX2, many examples: bit-sliced counters (Harley-Seal) ----
 *
 * Four groups' masks of an example are one 256-bit vector. Sixteen
 * examples are added up by a tree of carry-save adders (each a full adder
 * on every bit: 5 logic instructions) into four bit planes, the counts'
 * bits 1, 2, 4 and 8, which carry over to the next sixteen; the tree's
 * carry out of the top plane (16) is spread to byte counters once per
 * sixteen examples, the planes once at the end. About 5 logic
 * instructions an example for four groups, against 9 a group when each
 * example is spread to bytes. */
#define RULES_SLS_CSA(h, l, a, b, c) do {                                         \
    __m256i u_ = _mm256_xor_si256(a, b);                                          \
    h = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u_, c));         \
    l = _mm256_xor_si256(u_, c);                                                  \
} while (0)

/* the 64 bits of the word *w as 64 bytes, -1 where set, subtracted `times`
 * times (1..8) from the two byte counters acc[0], acc[1] */
static RULES_AVX2 inline void rules_sls_spread_sub(const uint64_t *w, __m256i *acc, int times) {
    const __m256i shuf_lo = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                             2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i shuf_hi = _mm256_setr_epi8(4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
                                             6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7);
    const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    __m256i lo, hi;
    RULES_SLS_SPREAD(w, lo, hi);
    for (int i = 0; i < times; i++) {
        acc[0] = _mm256_sub_epi8(acc[0], lo);
        acc[1] = _mm256_sub_epi8(acc[1], hi);
    }
}

/* d[slot] += weight * (the byte counters acc of n groups), and clear them */
static RULES_AVX2 inline void rules_sls_flush_weighted(__m256i *acc, ptrdiff_t n_groups,
                                                       int32_t weight, int32_t *d) {
    const __m256i wv = _mm256_set1_epi32(weight);
    for (ptrdiff_t g = 0; g < 2 * n_groups; g++) {
        __m256i *q = (__m256i *)(d + 32 * g);
        __m128i lo = _mm256_castsi256_si128(acc[g]), hi = _mm256_extracti128_si256(acc[g], 1);
        __m256i v[4] = {_mm256_cvtepi8_epi32(lo), _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)),
                        _mm256_cvtepi8_epi32(hi), _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))};
        for (int i = 0; i < 4; i++)
            _mm256_storeu_si256(q + i, _mm256_add_epi32(_mm256_loadu_si256(q + i),
                                                        _mm256_mullo_epi32(v[i], wv)));
        acc[g] = _mm256_setzero_si256();
    }
}

/* d[slot] += sign * (the examples idx[0..n) in the slot), for the groups
 * g0..g0+lanes-1 (lanes <= 4) */
static RULES_AVX2 void rules_sls_sliced_avx2(const uint64_t *masks, ptrdiff_t G, ptrdiff_t g0,
                                             ptrdiff_t lanes, const int32_t *idx, ptrdiff_t n,
                                             int32_t sign, int32_t *d) {
    const __m256i keep = _mm256_setr_epi64x(-1, lanes > 1 ? -1 : 0, lanes > 2 ? -1 : 0,
                                            lanes > 3 ? -1 : 0);
    const __m256i zero = _mm256_setzero_si256();
    __m256i ones = zero, twos = zero, fours = zero, eights = zero, sixteens;
    __m256i in[16], acc[8];
    uint64_t word[4] RULES_ALIGNED32;
    int blocks = 0;
    for (int g = 0; g < 8; g++) acc[g] = zero;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        for (int k = 0; k < 16; k++) {
            if (i + k >= n)
                in[k] = zero;
            else if (lanes == 4)
                in[k] = _mm256_loadu_si256((const __m256i *)(masks + (ptrdiff_t)idx[i + k] * G + g0));
            else  /* the lanes past the last group are not read */
                in[k] = _mm256_maskload_epi64(
                    (const long long *)(masks + (ptrdiff_t)idx[i + k] * G + g0), keep);
        }
#define RULES_SLS_IN(k) in[k]
        RULES_SLS_SIXTEEN(__m256i, RULES_SLS_CSA, RULES_SLS_IN, ones, twos, fours, eights,
                          sixteens);
#undef RULES_SLS_IN
        _mm256_storeu_si256((__m256i *)word, sixteens);
        for (ptrdiff_t l = 0; l < lanes; l++)
            if (word[l]) rules_sls_spread_sub(word + l, acc + 2 * l, 1);
        if (++blocks == 127) {  /* before a byte counter can overflow */
            rules_sls_flush_weighted(acc, lanes, 16 * sign, d + 64 * g0);
            blocks = 0;
        }
    }
    rules_sls_flush_weighted(acc, lanes, 16 * sign, d + 64 * g0);
    {   /* what the planes hold: at most 15 in a slot */
        __m256i planes[4] = {ones, twos, fours, eights};
        for (int p = 0; p < 4; p++) {
            _mm256_storeu_si256((__m256i *)word, planes[p]);
            for (ptrdiff_t l = 0; l < lanes; l++)
                if (word[l]) rules_sls_spread_sub(word + l, acc + 2 * l, 1 << p);
        }
    }
    rules_sls_flush_weighted(acc, lanes, sign, d + 64 * g0);
}

/* the positions of the set bits of each byte, ascending, then zeros:
 * filled once when the extension is loaded (rules_sls_init) */
static int32_t rules_sls_byte_bits[256][8] RULES_ALIGNED32;

static void rules_sls_byte_bits_fill(void) {
    for (int b = 0; b < 256; b++) {
        int k = 0;
        for (int i = 0; i < 8; i++)
            if (b >> i & 1) rules_sls_byte_bits[b][k++] = i;
        while (k < 8) rules_sls_byte_bits[b][k++] = 0;
    }
}

/* the examples of the bitset b (W words) as indices, ascending; returns
 * how many. A word of at most eight examples: a trailing-zero count and a
 * lowest-bit clear per example (one instruction each with BMI1, which
 * every CPU with AVX2 has), eight indices written whatever its count. A
 * word of more: a byte at a time, the byte's set bits from
 * rules_sls_byte_bits plus the byte's first index, stored as eight
 * indices of which the first popcount(byte) count (the next byte
 * overwrites the rest): no chain of dependent instructions from one
 * example to the next, nor a loop exit that depends on the count. idx
 * needs room for 64 past the last index. */
static RULES_TARGET("avx2,bmi,popcnt") ptrdiff_t rules_sls_list(
        const uint64_t *b, ptrdiff_t W, int32_t *idx) {
    const __m256i eight = _mm256_set1_epi32(8);
    ptrdiff_t n = 0;
    for (ptrdiff_t j = 0; j < W; j++) {
        uint64_t word = b[j];
        if (!word) continue;
        const int count = RULES_SLS_POPCOUNT64(word);
        if (count <= 8) {
            int32_t base = (int32_t)(64 * j), *out = idx + n;
            for (int i = 0; i < 8; i++) {
                out[i] = base + (int32_t)RULES_SLS_CTZ64(word);
                word &= word - 1;
            }
            n += count;
            continue;
        }
        __m256i base = _mm256_set1_epi32((int32_t)(64 * j));
        for (int q = 0; q < 8; q++) {
            const unsigned byte = (unsigned)(word & 0xff);
            const __m256i bits = _mm256_loadu_si256((const __m256i *)rules_sls_byte_bits[byte]);
            _mm256_storeu_si256((__m256i *)(idx + n), _mm256_add_epi32(bits, base));
            n += RULES_SLS_POPCOUNT32(byte);
            word >>= 8;
            base = _mm256_add_epi32(base, eight);
        }
    }
    return n;
}

/* rules_sls_count_packed with AVX2. The examples of plus and of minus,
 * each side by bit-sliced counters if it has RULES_SLS_SLICED or more
 * (listed in idx, which has room for 64 more than the examples; one pass
 * per four groups), else each example spread to bytes, one pass over them
 * per six groups (12 of the 16 vector registers; the compiler reads the
 * three constants from memory where it must), so forty attributes of ten
 * bins (six groups) take one pass instead of two. n: the examples of
 * plus and minus together if the caller knows it (else -1). */
#ifndef RULES_SLS_SLICED
#define RULES_SLS_SLICED 96
#endif
static void rules_sls_count_packed_avx2(const uint64_t *masks, ptrdiff_t G,
                                        const uint64_t *plus, const uint64_t *minus,
                                        ptrdiff_t W, int32_t *d, int32_t *idx, ptrdiff_t n) {
    ptrdiff_t np = 0, nm = 0;
    if (n >= 0 && n < RULES_SLS_SLICED) {  /* both sides few */
        rules_sls_passes2(masks, G, plus, minus, W, d);
        RULES_SLS_ZEROUPPER();
        return;
    }
    for (ptrdiff_t j = 0; j < W; j++) {
        np += RULES_SLS_POPCOUNT64(plus[j]);
        nm += RULES_SLS_POPCOUNT64(minus[j]);
    }
    const uint64_t *few_plus = np < RULES_SLS_SLICED ? plus : NULL;
    const uint64_t *few_minus = nm < RULES_SLS_SLICED ? minus : NULL;
    if (few_plus || few_minus)
        rules_sls_passes2(masks, G, few_plus, few_minus, W, d);
    for (int side = 0; side < 2; side++) {
        if (side ? few_minus != NULL : few_plus != NULL) continue;
        ptrdiff_t listed = rules_sls_list(side ? minus : plus, W, idx);
        for (ptrdiff_t g0 = 0; g0 < G; g0 += 4)
            rules_sls_sliced_avx2(masks, G, g0, G - g0 < 4 ? G - g0 : 4, idx, listed,
                                  side ? -1 : 1, d);
    }
    RULES_SLS_ZEROUPPER();
}

#endif  /* RULES_SLS_HAVE_AVX2 */

#if RULES_SLS_HAVE_AVX512
/* lanes [lo, hi) of a 16-lane mask */
static inline __mmask16 rules_sls_lanes(ptrdiff_t lo, ptrdiff_t hi) {
    if (hi <= lo) return 0;
    return (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

/* The specialisation's best literals (core/_sls.pyx, _best_by_differences,
 * which this computes the same, with vector registers, from the counts in
 * prefix form): for each of the A attributes, its literals the rule may
 * add for the example of codes xv (rules_sls_free_range; lo, hi: the
 * rule's literals), and the score change of each from the positives minus
 * negatives D (total: of all the examples only the rule covers), laid out
 * from off[a] as SLSData._vector_layout says: an ordinal attribute's P[l]
 * (bins <= l, l < nbm) and, if it has missing values, their count M; a
 * nominal attribute's per value. Lower bound offset l uncovers the
 * missing and bins <= l: M + P[l]; upper bound offset nbm + b uncovers the
 * rest: total - P[b]; nominal value l: total - D[l]. The literals of the
 * lowest change go to ties in literal order, and their number is returned.
 * An attribute of up to 16 such counts is one 16-lane vector, wider ones
 * are read one literal at a time. scratch: 40 ints per attribute. */
static RULES_AVX512 ptrdiff_t rules_sls_best_literals(
        const int32_t *D, int32_t total, ptrdiff_t A, const int32_t *xv, const int32_t *lo,
        const int32_t *hi, const int32_t *off, const int32_t *nb, const int32_t *first_lit,
        const int8_t *ordinal, const int8_t *has_missing, int32_t *scratch, int32_t *ties) {
    const __m512i vtotal = _mm512_set1_epi32(total);
    __m512i vbest = _mm512_set1_epi32(INT32_MAX);
    int32_t best = INT32_MAX, delta, missing;
    ptrdiff_t a, i, n = 0, l, n_ties = 0;
    for (a = 0; a < A; a++) {        /* the lowest change */
        int32_t *sc = scratch + 40 * n, *rg = sc + 35;
        ptrdiff_t nbm = nb[a] - 1, width = ordinal[a] ? nbm : nbm + 1;
        if (!rules_sls_free_range(xv[a], (int32_t)nbm, ordinal[a], lo[a], hi[a], rg))
            continue;
        sc[34] = (int32_t)a;
        n++;
        const int32_t *d = D + off[a];
        missing = ordinal[a] && has_missing[a] ? d[nbm] : 0;
        if (width > 16) {
            if (!ordinal[a]) {
                for (l = rg[0]; l < rg[1]; l++) if (total - d[l] < best) best = total - d[l];
                for (l = rg[2]; l < rg[3]; l++) if (total - d[l] < best) best = total - d[l];
                continue;
            }
            for (l = rg[0]; l < rg[1]; l++) if (missing + d[l] < best) best = missing + d[l];
            for (l = rg[2]; l < rg[3]; l++) if (total - d[l - nbm] < best) best = total - d[l - nbm];
            continue;
        }
        __m512i v = _mm512_maskz_loadu_epi32((__mmask16)((1u << width) - 1u), d);
        __m512i low, up;
        __mmask16 k1, k2;
        if (ordinal[a]) {
            low = _mm512_add_epi32(_mm512_set1_epi32(missing), v);
            up = _mm512_sub_epi32(vtotal, v);
            k1 = rules_sls_lanes(rg[0], rg[1]);
            k2 = rules_sls_lanes(rg[2] - nbm, rg[3] - nbm);
        } else {
            low = up = _mm512_sub_epi32(vtotal, v);
            k1 = rules_sls_lanes(rg[0], rg[1]) | rules_sls_lanes(rg[2], rg[3]);
            k2 = 0;
        }
        _mm512_storeu_si512(sc, low);
        _mm512_storeu_si512(sc + 16, up);
        sc[32] = k1;
        sc[33] = k2;
        vbest = _mm512_mask_min_epi32(vbest, k1, vbest, low);
        vbest = _mm512_mask_min_epi32(vbest, k2, vbest, up);
    }
    delta = _mm512_reduce_min_epi32(vbest);
    if (delta < best) best = delta;
    const __m512i vb = _mm512_set1_epi32(best);
    for (i = 0; i < n; i++) {        /* its literals, in literal order */
        const int32_t *sc = scratch + 40 * i, *rg = sc + 35;
        a = sc[34];
        ptrdiff_t nbm = nb[a] - 1, lit = first_lit[a], width = ordinal[a] ? nbm : nbm + 1;
        const int32_t *d = D + off[a];
        if (width > 16) {
            if (!ordinal[a]) {
                for (l = rg[0]; l < rg[1]; l++) if (total - d[l] == best) ties[n_ties++] = (int32_t)(lit + l);
                for (l = rg[2]; l < rg[3]; l++) if (total - d[l] == best) ties[n_ties++] = (int32_t)(lit + l);
                continue;
            }
            missing = has_missing[a] ? d[nbm] : 0;
            for (l = rg[0]; l < rg[1]; l++) if (missing + d[l] == best) ties[n_ties++] = (int32_t)(lit + l);
            for (l = rg[2]; l < rg[3]; l++) if (total - d[l - nbm] == best) ties[n_ties++] = (int32_t)(lit + l);
            continue;
        }
        unsigned e1 = _mm512_mask_cmpeq_epi32_mask((__mmask16)sc[32], _mm512_loadu_si512(sc), vb);
        unsigned e2 = _mm512_mask_cmpeq_epi32_mask((__mmask16)sc[33], _mm512_loadu_si512(sc + 16), vb);
        for (; e1; e1 &= e1 - 1) ties[n_ties++] = (int32_t)(lit + RULES_SLS_CTZ32(e1));
        for (; e2; e2 &= e2 - 1) ties[n_ties++] = (int32_t)(lit + nbm + RULES_SLS_CTZ32(e2));
    }
    return n_ties;
}

/* Passes over the words of the examples' bitsets with vector popcounts
 * (AVX-512 VPOPCNTDQ, checked at run time apart from the counting; the
 * caller's scalar loops elsewhere). Eight words a register, the last ones
 * masked. */
#define RULES_VPOPCNT RULES_TARGET("avx512f,avx512bw,avx512vpopcntdq")

static int rules_sls_vpopcnt_available(void) {
    __builtin_cpu_init();
    return rules_sls_simd_available() && __builtin_cpu_supports("avx512vpopcntdq");
}

static inline __mmask8 rules_sls_tail(ptrdiff_t left) {
    return left >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
}

/* the examples only the rule covers (cov & ~others), split by class (pos):
 * into only, only_pos, only_neg; counts[0..2] = positives, negatives and
 * words holding any of them */
static RULES_VPOPCNT void rules_sls_only_set(
        const uint64_t *cov, const uint64_t *others, const uint64_t *pos, ptrdiff_t W,
        uint64_t *only, uint64_t *only_pos, uint64_t *only_neg, int64_t *counts) {
    __m512i n_pos = _mm512_setzero_si512(), n_neg = _mm512_setzero_si512();
    int64_t n_words = 0;
    for (ptrdiff_t j = 0; j < W; j += 8) {
        __mmask8 m = rules_sls_tail(W - j);
        __m512i w = _mm512_andnot_si512(_mm512_maskz_loadu_epi64(m, others + j),
                                        _mm512_maskz_loadu_epi64(m, cov + j));
        __m512i p = _mm512_maskz_loadu_epi64(m, pos + j);
        __m512i wp = _mm512_and_si512(w, p), wn = _mm512_andnot_si512(p, w);
        _mm512_mask_storeu_epi64(only + j, m, w);
        _mm512_mask_storeu_epi64(only_pos + j, m, wp);
        _mm512_mask_storeu_epi64(only_neg + j, m, wn);
        n_pos = _mm512_add_epi64(n_pos, _mm512_popcnt_epi64(wp));
        n_neg = _mm512_add_epi64(n_neg, _mm512_popcnt_epi64(wn));
        n_words += RULES_SLS_POPCOUNT32((unsigned)_mm512_test_epi64_mask(w, w));
    }
    counts[0] = _mm512_reduce_add_epi64(n_pos);
    counts[1] = _mm512_reduce_add_epi64(n_neg);
    counts[2] = n_words;
}

/* others = the union of the k rules' coverage (W words each, one after
 * the other) but rule t's */
static RULES_VPOPCNT void rules_sls_others(const uint64_t *cov, ptrdiff_t k, ptrdiff_t t,
                                           ptrdiff_t W, uint64_t *others) {
    for (ptrdiff_t j = 0; j < W; j += 8) {
        __mmask8 m = rules_sls_tail(W - j);
        __m512i acc = _mm512_setzero_si512();
        for (ptrdiff_t r = 0; r < k; r++)
            if (r != t) acc = _mm512_or_si512(acc, _mm512_maskz_loadu_epi64(m, cov + r * W + j));
        _mm512_mask_storeu_epi64(others + j, m, acc);
    }
}

/* the examples that entered (now, not before) or left a kept set, by
 * class: plus = entered positives and left negatives, minus = the others;
 * before becomes now */
static RULES_VPOPCNT void rules_sls_changes(const uint64_t *now, uint64_t *before,
                                           const uint64_t *pos, ptrdiff_t W,
                                           uint64_t *plus, uint64_t *minus) {
    for (ptrdiff_t j = 0; j < W; j += 8) {
        __mmask8 m = rules_sls_tail(W - j);
        __m512i n = _mm512_maskz_loadu_epi64(m, now + j), b = _mm512_maskz_loadu_epi64(m, before + j);
        __m512i p = _mm512_maskz_loadu_epi64(m, pos + j);
        __m512i entered = _mm512_andnot_si512(b, n), left = _mm512_andnot_si512(n, b);
        _mm512_mask_storeu_epi64(plus + j, m, _mm512_or_si512(_mm512_and_si512(entered, p),
                                                              _mm512_andnot_si512(p, left)));
        _mm512_mask_storeu_epi64(minus + j, m, _mm512_or_si512(_mm512_and_si512(left, p),
                                                               _mm512_andnot_si512(p, entered)));
        _mm512_mask_storeu_epi64(before + j, m, n);
    }
}

/* out[i] = the examples in which now and the i-th of n sets (W words
 * each, one after the other) differ */
static RULES_VPOPCNT void rules_sls_distances(const uint64_t *now, const uint64_t *sets,
                                              ptrdiff_t n, ptrdiff_t W, ptrdiff_t *out) {
    for (ptrdiff_t i = 0; i < n; i++) {
        __m512i acc = _mm512_setzero_si512();
        for (ptrdiff_t j = 0; j < W; j += 8) {
            __mmask8 m = rules_sls_tail(W - j);
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_xor_si512(
                _mm512_maskz_loadu_epi64(m, now + j),
                _mm512_maskz_loadu_epi64(m, sets + i * W + j))));
        }
        out[i] = (ptrdiff_t)_mm512_reduce_add_epi64(acc);
    }
}

/* mis = (pos ^ covered) & valid; returns how many */
static RULES_VPOPCNT ptrdiff_t rules_sls_misclassified(
        const uint64_t *pos, const uint64_t *covered, const uint64_t *valid, ptrdiff_t W,
        uint64_t *mis) {
    __m512i acc = _mm512_setzero_si512();
    for (ptrdiff_t j = 0; j < W; j += 8) {
        __mmask8 m = rules_sls_tail(W - j);
        __m512i w = _mm512_and_si512(_mm512_xor_si512(_mm512_maskz_loadu_epi64(m, pos + j),
                                                      _mm512_maskz_loadu_epi64(m, covered + j)),
                                     _mm512_maskz_loadu_epi64(m, valid + j));
        _mm512_mask_storeu_epi64(mis + j, m, w);
        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(w));
    }
    return (ptrdiff_t)_mm512_reduce_add_epi64(acc);
}

/* of the examples of bits outside covered: the negatives minus the positives */
static RULES_VPOPCNT ptrdiff_t rules_sls_uncovered_delta(
        const uint64_t *bits, const uint64_t *covered, const uint64_t *pos, ptrdiff_t W) {
    __m512i acc = _mm512_setzero_si512();
    for (ptrdiff_t j = 0; j < W; j += 8) {
        __mmask8 m = rules_sls_tail(W - j);
        __m512i w = _mm512_andnot_si512(_mm512_maskz_loadu_epi64(m, covered + j),
                                        _mm512_maskz_loadu_epi64(m, bits + j));
        __m512i p = _mm512_maskz_loadu_epi64(m, pos + j);
        acc = _mm512_add_epi64(acc, _mm512_sub_epi64(
            _mm512_popcnt_epi64(_mm512_andnot_si512(p, w)),
            _mm512_popcnt_epi64(_mm512_and_si512(w, p))));
    }
    return (ptrdiff_t)_mm512_reduce_add_epi64(acc);
}

#else  /* no AVX-512 code: the caller counts and scores with its scalar loops or AVX2 */
static int rules_sls_simd_available(void) { return 0; }
static int rules_sls_vpopcnt_available(void) { return 0; }
static void rules_sls_only_set(const uint64_t *cov, const uint64_t *others, const uint64_t *pos,
                               ptrdiff_t W, uint64_t *only, uint64_t *only_pos,
                               uint64_t *only_neg, int64_t *counts) {
    (void)cov; (void)others; (void)pos; (void)W; (void)only; (void)only_pos; (void)only_neg;
    (void)counts;
}
static void rules_sls_others(const uint64_t *cov, ptrdiff_t k, ptrdiff_t t, ptrdiff_t W,
                             uint64_t *others) {
    (void)cov; (void)k; (void)t; (void)W; (void)others;
}
static void rules_sls_changes(const uint64_t *now, uint64_t *before, const uint64_t *pos,
                              ptrdiff_t W, uint64_t *plus, uint64_t *minus) {
    (void)now; (void)before; (void)pos; (void)W; (void)plus; (void)minus;
}
static void rules_sls_distances(const uint64_t *now, const uint64_t *sets, ptrdiff_t n,
                                ptrdiff_t W, ptrdiff_t *out) {
    (void)now; (void)sets; (void)n; (void)W; (void)out;
}
static ptrdiff_t rules_sls_misclassified(const uint64_t *pos, const uint64_t *covered,
                                         const uint64_t *valid, ptrdiff_t W, uint64_t *mis) {
    (void)pos; (void)covered; (void)valid; (void)W; (void)mis;
    return 0;
}
static ptrdiff_t rules_sls_uncovered_delta(const uint64_t *bits, const uint64_t *covered,
                                           const uint64_t *pos, ptrdiff_t W) {
    (void)bits; (void)covered; (void)pos; (void)W;
    return 0;
}
static void rules_sls_count_packed(const uint64_t *masks, ptrdiff_t G,
                                   const uint64_t *plus, const uint64_t *minus,
                                   ptrdiff_t W, int32_t *d) {
    (void)masks; (void)G; (void)plus; (void)minus; (void)W; (void)d;
}
static ptrdiff_t rules_sls_best_literals(
        const int32_t *D, int32_t total, ptrdiff_t A, const int32_t *xv, const int32_t *lo,
        const int32_t *hi, const int32_t *off, const int32_t *nb, const int32_t *first_lit,
        const int8_t *ordinal, const int8_t *has_missing, int32_t *scratch, int32_t *ties) {
    (void)D; (void)total; (void)A; (void)xv; (void)lo; (void)hi; (void)off;
    (void)nb; (void)first_lit; (void)ordinal; (void)has_missing; (void)scratch; (void)ties;
    return 0;
}
#endif  /* RULES_SLS_HAVE_AVX512 */

#if !RULES_SLS_HAVE_AVX2  /* no vector code: the caller counts with its scalar loops */
static int rules_sls_avx2_available(void) { return 0; }
static void rules_sls_count_packed_avx2(const uint64_t *masks, ptrdiff_t G,
                                        const uint64_t *plus, const uint64_t *minus,
                                        ptrdiff_t W, int32_t *d, int32_t *idx, ptrdiff_t n) {
    (void)masks; (void)G; (void)plus; (void)minus; (void)W; (void)d; (void)idx; (void)n;
}
#endif

/* what the vector code needs filled in once, before any search: called
 * when the extension is loaded (core/_sls.pyx) */
static void rules_sls_init(void) {
#if RULES_SLS_HAVE_AVX2
    rules_sls_byte_bits_fill();
#endif
}

#endif
