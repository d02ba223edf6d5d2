# cython: language_level=3
"""Bitset helpers the kernels share (``cimport``-ed; nothing to import at
run time): popcount / count-trailing-zeros and the weight of a word's set
bits."""
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    #define RULES_BITS_POPCOUNT64(x) __builtin_popcountll(x)
    #else
    /* x86-64 without the POPCNT instruction (the baseline binary wheels are
       built for): GCC would call a library routine; this is inline and
       branch-free (Hacker's Delight, 5-2) */
    static inline int RULES_BITS_POPCOUNT64(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    #define RULES_BITS_CTZ64(x) __builtin_ctzll(x)
    #else
    static inline int RULES_BITS_POPCOUNT64(unsigned long long x) {
        int c = 0; while (x) { x &= x - 1; c++; } return c;
    }
    static inline int RULES_BITS_CTZ64(unsigned long long x) {
        int c = 0; while (!(x & 1ULL)) { x >>= 1; c++; } return c;
    }
    #endif
    """
    int popcount64 "RULES_BITS_POPCOUNT64"(unsigned long long x) nogil
    int ctz64 "RULES_BITS_CTZ64"(unsigned long long x) nogil


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
