# cython: language_level=3
"""Bitset helpers the kernels share (``cimport``-ed; nothing to import at
run time): popcount / count-trailing-zeros and the weight of a word's set
bits. Each is one instruction with GCC and Clang (x86-64 with POPCNT, which
the build asks for, and ARM64) and with MSVC (its intrinsics); a portable
branch-free version serves any other compiler, or every compiler when the
build defines ``RULES_BITS_PORTABLE``. ``core.bits_check`` compares both
with numpy."""
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    /* Portable, branch-free versions for a compiler with neither a builtin
       nor an intrinsic: popcount by Hacker's Delight 5-2, count-trailing-
       zeros by a de Bruijn multiply (the lowest set bit isolated, its
       position looked up). Always compiled, so a test can compare them
       with numpy on any machine (core.bits_check). */
    static inline int rules_bits_popcount64_portable(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    static inline int rules_bits_ctz64_portable(unsigned long long x) {
        static const int table[64] = {
            0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
            62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
            63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
            46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6};
        return table[((x & (0ULL - x)) * 0x03F79D71B4CB0A89ULL) >> 58];
    }
    #if defined(RULES_BITS_PORTABLE)
    /* forced at build time (CFLAGS=-DRULES_BITS_PORTABLE): to measure it */
    #define RULES_BITS_POPCOUNT64(x) rules_bits_popcount64_portable(x)
    #define RULES_BITS_CTZ64(x) rules_bits_ctz64_portable(x)
    #define RULES_BITS_IMPL "portable"
    #elif defined(__GNUC__) || defined(__clang__)
    #if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    /* one instruction: POPCNT on x86-64 (the build asks for it), CNT on ARM64 */
    #define RULES_BITS_POPCOUNT64(x) __builtin_popcountll(x)
    #define RULES_BITS_IMPL "builtin"
    #else
    /* x86 without the POPCNT instruction: GCC would call a library routine */
    #define RULES_BITS_POPCOUNT64(x) rules_bits_popcount64_portable(x)
    #define RULES_BITS_IMPL "builtin ctz, portable popcount"
    #endif
    #define RULES_BITS_CTZ64(x) __builtin_ctzll(x)
    #elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    /* MSVC, which builds the Windows wheels: the intrinsics */
    #include <intrin.h>
    #if defined(_M_X64)
    #define RULES_BITS_POPCOUNT64(x) ((int)__popcnt64(x))
    #else
    #define RULES_BITS_POPCOUNT64(x) ((int)_CountOneBits64(x))
    #endif
    static __forceinline int RULES_BITS_CTZ64(unsigned long long x) {
        unsigned long i;
        _BitScanForward64(&i, x);
        return (int)i;
    }
    #define RULES_BITS_IMPL "msvc intrinsics"
    #else
    #define RULES_BITS_POPCOUNT64(x) rules_bits_popcount64_portable(x)
    #define RULES_BITS_CTZ64(x) rules_bits_ctz64_portable(x)
    #define RULES_BITS_IMPL "portable"
    #endif
    """
    int popcount64 "RULES_BITS_POPCOUNT64"(unsigned long long x) nogil
    int ctz64 "RULES_BITS_CTZ64"(unsigned long long x) nogil
    int popcount64_portable "rules_bits_popcount64_portable"(unsigned long long x) nogil
    int ctz64_portable "rules_bits_ctz64_portable"(unsigned long long x) nogil
    const char *BITS_IMPL "RULES_BITS_IMPL"


cdef inline double word_weight(uint64_t word, Py_ssize_t j, const double *w,
                               bint unit) noexcept nogil:
    """Weight of the examples whose bits are set in word ``j`` (bit ``b`` is
    example ``64 j + b``): a popcount times ``w[0]`` when all weights are
    equal (``unit``), else the sum of their weights."""
    cdef double total = 0
    if unit:
        return popcount64(word) * w[0]
    while word:
        total += w[j * 64 + ctz64(word)]
        word &= word - 1
    return total
