# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Shared coverage kernels (Orange-free: arrays in, arrays out).

Data layout (see ``orangecontrib.rules.encoding``):

* ``Xd``: ``int32[n, n_disc]`` discrete codes, ``-1`` = missing;
* ``Xc``: ``float64[n, n_cont]`` continuous values, ``NaN`` = missing;
* ``order``: ``int32[n_cont, n]`` argsort of each continuous column, missing
  values last, ``n_valid[j]`` of them not missing;
* ``y``: ``int32[n]`` class codes, ``w``: ``float64[n]`` weights.

A condition is ``(kind, col, op, value)``: ``kind`` 0 = discrete column of
``Xd``, 1 = continuous column of ``Xc``; ``op`` one of ``OP_EQ`` (``A = v``),
``OP_LE`` (``A <= t``), ``OP_GE`` (``A >= t``), ``OP_LT`` (``A < t``). A
missing value satisfies no
condition. A rule set is given in CSR form: the conditions of rule ``r`` are
``rule_ptr[r]:rule_ptr[r + 1]``; a rule without conditions covers everything.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from ._bits cimport BITS_IMPL, ctz64, ctz64_portable, popcount64, popcount64_portable

cnp.import_array()

cdef inline bint _satisfies(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                            Py_ssize_t i, int32_t kind, int32_t col, int8_t op,
                            double value) noexcept nogil:
    if kind == KIND_DISCRETE:
        return code_satisfies(Xd[i, col], OP_EQ, <int32_t>value)
    return value_satisfies(Xc[i, col], op, value)


cdef void coded_class_counts(const int32_t *slots, Py_ssize_t n_feat,
                             const int32_t *rows, Py_ssize_t n_rows,
                             const int8_t *cls, const double *w, double *out,
                             uint64_t *present) noexcept nogil:
    """Weighted class counts of every (feature, code) over the given rows.

    ``slots``: row-major ``(n, n_feat)``: for each row and feature the slot
    of its code (discrete value or ordinal bin; negative = missing). ``cls``
    in 0..2. ``out`` gets 4 doubles per slot (the weight of each class, one
    spare); with ``present``, a bitset over the slots also gets the slots
    held by at least one row (also a zero-weight row), so a caller can visit
    only those (and zero them after use).
    """
    cdef Py_ssize_t r, f
    cdef const int32_t *row
    cdef int32_t k
    cdef double wi
    cdef double *o
    for r in range(n_rows):
        row = slots + rows[r] * n_feat
        o = out + cls[rows[r]]
        wi = w[rows[r]]
        if present == NULL:
            for f in range(n_feat):
                k = row[f]
                if k >= 0:
                    o[4 * k] += wi
        else:
            for f in range(n_feat):
                k = row[f]
                if k >= 0:
                    o[4 * k] += wi
                    present[k >> 6] |= (<uint64_t>1) << (k & 63)


def _check_conditions(const int32_t[::1] kind, const int32_t[::1] col,
                      const int8_t[::1] op, const double[::1] value,
                      Py_ssize_t n_disc, Py_ssize_t n_cont):
    cdef Py_ssize_t k
    if not (kind.shape[0] == col.shape[0] == op.shape[0] == value.shape[0]):
        raise ValueError("condition arrays differ in length")
    for k in range(kind.shape[0]):
        if kind[k] == KIND_DISCRETE:
            if not 0 <= col[k] < n_disc:
                raise IndexError(f"discrete column {col[k]} out of range")
            if op[k] != OP_EQ:
                raise ValueError("discrete conditions must use OP_EQ")
        elif kind[k] == KIND_CONTINUOUS:
            if not 0 <= col[k] < n_cont:
                raise IndexError(f"continuous column {col[k]} out of range")
            if not OP_EQ <= op[k] <= OP_LT:
                raise ValueError(f"unknown operator {op[k]}")
        else:
            raise ValueError(f"unknown condition kind {kind[k]}")


cdef Py_ssize_t _check_rule_set(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                               const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                               const int32_t[::1] col, const int8_t[::1] op,
                               const double[::1] value) except -1:
    """Checks a rule set in CSR form against the data; its number of rules."""
    cdef Py_ssize_t n_rules = rule_ptr.shape[0] - 1
    if Xc.shape[0] != Xd.shape[0]:
        raise ValueError("Xd and Xc differ in number of rows")
    if n_rules < 0 or rule_ptr[n_rules] > kind.shape[0]:
        raise ValueError("rule_ptr does not match the condition arrays")
    _check_conditions(kind, col, op, value, Xd.shape[1], Xc.shape[1])
    return n_rules


# ------------------------------------------------ rule sets on the rows
#
# A model of thousands of rules shares few distinct conditions (a numeric
# column has a few cut points, a discrete one a few values), so the kernels
# below evaluate each distinct condition once per row, as a bitset over a
# block of rows, and read every rule from those bitsets: a word (64 rows) of
# a rule's coverage is the AND of its conditions' words; its failed
# conditions per row are counted in bit planes (a carry-save adder over the
# conditions). The rows' bytes of the dense outputs are written word by
# word from a table that spreads 8 bits into 8 bytes.

#: words of condition bitsets in one block of rows (16 MB)
cdef enum:
    BLOCK_WORDS = 1 << 21
#: words (of 64 rows) in one block at most: each distinct condition reads
#: one column of every row of the block, so the block's rows must stay in
#: a core's cache from one condition to the next (4,096 rows of 20 numeric
#: columns are 640 kB); larger blocks read the rows from memory once per
#: condition
cdef enum:
    ROW_BLOCK_WORDS = 64

cdef uint64_t _SPREAD[256]   # bit b of the index -> byte b of the value (0 or 1)
cdef Py_ssize_t _i, _b
for _i in range(256):
    _SPREAD[_i] = 0
    for _b in range(8):
        if (_i >> _b) & 1:
            _SPREAD[_i] |= (<uint64_t>1) << (8 * _b)


def _distinct_conditions(kind, col, op, value):
    """The distinct conditions (their four arrays) and, for each condition,
    the index of its distinct one (a lexicographic sort of the four)."""
    kind, col = np.asarray(kind, np.int32), np.asarray(col, np.int32)
    op, value = np.asarray(op, np.int8), np.asarray(value, np.float64)
    order = np.lexsort((value, op, col, kind))
    k, c, o, v = kind[order], col[order], op[order], value[order]
    new = np.ones(len(order), dtype=bool)
    # NaN never equals NaN: such conditions stay apart (each evaluated once)
    new[1:] = (k[1:] != k[:-1]) | (c[1:] != c[:-1]) | (o[1:] != o[:-1]) | (v[1:] != v[:-1])
    first = np.flatnonzero(new)
    inv = np.empty(len(order), dtype=np.int32)
    inv[order] = np.cumsum(new) - 1
    return (np.ascontiguousarray(k[first]), np.ascontiguousarray(c[first]),
            np.ascontiguousarray(o[first]), np.ascontiguousarray(v[first]), inv)


cdef inline void _spread_word(uint8_t *out, Py_ssize_t stride, Py_ssize_t rows,
                              const uint64_t *planes, int n_p) noexcept nogil:
    """``out[b * stride]`` = the count of row ``b`` (``b < rows``) whose bits
    are in the planes."""
    cdef Py_ssize_t q, t, b
    cdef int p
    cdef uint64_t e
    for q in range(0, rows, 8):  # a constant step: a C loop
        e = 0
        for p in range(n_p):
            e |= _SPREAD[(planes[p] >> q) & 255] << p
        for t in range(min(8, rows - q)):
            out[(q + t) * stride] = <uint8_t>(e >> (8 * t))


cdef class _RuleRows:
    """A rule set's distinct conditions as bitsets over blocks of rows
    (``bits[j * n_u + u]``: word ``j`` of the block, distinct condition
    ``u``; word-major, so a word of every condition is at hand)."""
    cdef const int32_t[:, ::1] Xd
    cdef const double[:, ::1] Xc
    cdef const int32_t[::1] rule_ptr, inv, ukind, ucol
    cdef const int8_t[::1] uop
    cdef const double[::1] uvalue
    cdef object arrays
    cdef uint64_t[::1] bits
    cdef Py_ssize_t n, n_rules, n_u, block_rows

    def __init__(self, Xd, Xc, rule_ptr, kind, col, op, value, Py_ssize_t block_words=0):
        self.n_rules = _check_rule_set(Xd, Xc, rule_ptr, kind, col, op, value)
        self.Xd, self.Xc, self.rule_ptr = Xd, Xc, rule_ptr
        self.n = Xd.shape[0]
        n_cond = rule_ptr[self.n_rules] if self.n_rules > 0 else 0
        self.arrays = _distinct_conditions(np.asarray(kind)[:n_cond], np.asarray(col)[:n_cond],
                                           np.asarray(op)[:n_cond], np.asarray(value)[:n_cond])
        self.ukind, self.ucol, self.uop, self.uvalue, self.inv = self.arrays
        self.n_u = len(self.arrays[0])
        words = block_words or min(BLOCK_WORDS // max(self.n_u, 1), ROW_BLOCK_WORDS)
        words = max(1, min((self.n + 63) // 64, words))
        self.block_rows = 64 * words
        self.bits = np.zeros(max(words * self.n_u, 1), dtype=np.uint64)

    cdef void fill(self, Py_ssize_t i0, Py_ssize_t rows) noexcept nogil:
        """The bitsets of rows ``i0 .. i0 + rows``: each word built in a
        register from its 64 rows and stored once (every word the block's
        readers read is written, so nothing is cleared first)."""
        cdef Py_ssize_t u, j, b, first, n_u = self.n_u
        cdef int32_t kind, col
        cdef int8_t op
        cdef double value
        cdef uint64_t word
        for u in range(n_u):
            kind, col, op, value = self.ukind[u], self.ucol[u], self.uop[u], self.uvalue[u]
            for j in range((rows + 63) // 64):
                first = i0 + 64 * j
                word = 0
                for b in range(min(64, rows - 64 * j)):
                    if _satisfies(self.Xd, self.Xc, first + b, kind, col, op, value):
                        word |= (<uint64_t>1) << b
                self.bits[j * n_u + u] = word

    cdef inline uint64_t cover(self, Py_ssize_t r, Py_ssize_t j, uint64_t rows) noexcept nogil:
        """Word ``j`` of the block: the rows (of ``rows``) rule ``r`` covers."""
        cdef Py_ssize_t k
        cdef const uint64_t *w = &self.bits[j * self.n_u]
        for k in range(self.rule_ptr[r], self.rule_ptr[r + 1]):
            rows &= w[self.inv[k]]
        return rows

    cdef void dense(self, uint8_t[:, ::1] out, bint failed) noexcept nogil:
        """Every rule on every row into ``out`` (see :func:`_dense`), word
        by word of each block."""
        cdef Py_ssize_t i0 = 0, j, r, rows, left, i, k, count, n_rules = self.n_rules
        cdef uint64_t planes[9]
        cdef int n_p = 1
        while i0 < self.n:
            rows = min(self.block_rows, self.n - i0)
            self.fill(i0, rows)
            for j in range((rows + 63) // 64):
                left = min(64, rows - 64 * j)
                for r in range(n_rules):
                    if not failed:
                        planes[0] = self.cover(r, j, ~(<uint64_t>0) >> (64 - left))
                    elif self.rule_ptr[r + 1] - self.rule_ptr[r] <= 255:
                        n_p = self.failed(r, j, ~(<uint64_t>0) >> (64 - left), planes)
                    else:  # counts past a byte: row by row, saturated
                        for i in range(i0 + 64 * j, i0 + 64 * j + left):
                            count = 0
                            for k in range(self.rule_ptr[r], self.rule_ptr[r + 1]):
                                count += not _satisfies(
                                    self.Xd, self.Xc, i, self.ukind[self.inv[k]],
                                    self.ucol[self.inv[k]], self.uop[self.inv[k]],
                                    self.uvalue[self.inv[k]])
                            out[i, r] = <uint8_t>(count if count < 255 else 255)
                        continue
                    _spread_word(&out[i0 + 64 * j, r], n_rules, left, planes, n_p)
            i0 += rows

    cdef inline int failed(self, Py_ssize_t r, Py_ssize_t j, uint64_t rows,
                           uint64_t *planes) noexcept nogil:
        """Word ``j`` of the block: per row (of ``rows``), the number of
        rule ``r``'s conditions it fails, in bit planes (``planes[p]``: bit
        ``p`` of the count; at most 8); returns how many planes are used."""
        cdef Py_ssize_t k
        cdef int p, n_p = 0
        cdef uint64_t carry, t
        cdef const uint64_t *w = &self.bits[j * self.n_u]
        for k in range(self.rule_ptr[r], self.rule_ptr[r + 1]):
            carry = rows & ~w[self.inv[k]]
            p = 0
            while carry:
                if p == n_p:
                    planes[n_p] = 0
                    n_p += 1
                t = planes[p] & carry
                planes[p] ^= carry
                carry = t
                p += 1
        return n_p


def cover_matrix(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                 const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                 const int32_t[::1] col, const int8_t[::1] op,
                 const double[::1] value, Py_ssize_t block_words=0):
    """Boolean ``(n, n_rules)`` matrix: does rule ``r`` cover example ``i``.
    (``block_words``: rows per block of condition bitsets, in words; tests.)"""
    return _dense(_RuleRows(Xd, Xc, rule_ptr, kind, col, op, value, block_words),
                  False).view(np.bool_)


def violation_matrix(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                     const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                     const int32_t[::1] col, const int8_t[::1] op,
                     const double[::1] value, Py_ssize_t block_words=0):
    """``uint8 (n, n_rules)``: how many of rule ``r``'s conditions example
    ``i`` fails (a missing value fails its conditions; at most 255); 0 where
    :func:`cover_matrix` is true."""
    return _dense(_RuleRows(Xd, Xc, rule_ptr, kind, col, op, value, block_words), True)


cdef _dense(_RuleRows rr, bint failed):
    """``uint8 (n, n_rules)``: 1 where a rule covers a row, or (``failed``)
    how many of its conditions the row fails."""
    out_arr = np.zeros((rr.n, rr.n_rules), dtype=np.uint8)
    cdef uint8_t[:, ::1] out = out_arr
    if rr.n and rr.n_rules:
        with nogil:
            rr.dense(out, failed)
    return out_arr


def column_mask(const double[:] x, int8_t op, double value):
    """Boolean mask of ``x op value`` over one column (``x`` may be strided;
    integer codes as floats, ``-1`` for missing, with ``OP_EQ``); a missing
    value (NaN) satisfies nothing. The same test as :func:`cover_matrix`, for
    learners that refine one condition at a time (SLIPPER's grow step)."""
    if not OP_EQ <= op <= OP_LT:
        raise ValueError(f"unknown operator {op}")
    cdef Py_ssize_t i, n = x.shape[0]
    out_arr = np.empty(n, dtype=np.uint8)
    cdef uint8_t[::1] out = out_arr
    with nogil:
        for i in range(n):
            out[i] = value_satisfies(x[i], op, value)
    return out_arr.view(np.bool_)


def cover_columns(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                  const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                  const int32_t[::1] col, const int8_t[::1] op,
                  const double[::1] value, Py_ssize_t block_words=0):
    """:func:`cover_matrix` as the column pointers and row indices of a
    sparse ``(n, n_rules)`` matrix (CSC: rule ``r`` covers rows
    ``indices[indptr[r]:indptr[r + 1]]``, ascending): memory for the covered
    cells only, not for every row and rule. Two passes over the blocks of
    rows, one counting, one writing (the bitsets of one block are reused)."""
    cdef _RuleRows rr = _RuleRows(Xd, Xc, rule_ptr, kind, col, op, value, block_words)
    cdef Py_ssize_t n = rr.n, n_rules = rr.n_rules
    indptr_arr = np.zeros(max(n_rules, 0) + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    filled_arr = np.zeros(max(n_rules, 1), dtype=np.int64)
    cdef int64_t[::1] filled = filled_arr
    cdef Py_ssize_t i0, j, r, rows, left, npass
    cdef uint64_t word
    cdef bint one_block = n <= rr.block_rows
    cdef int32_t[::1] iv
    indices_arr = None
    for npass in range(2):
        if npass == 1:
            for r in range(n_rules):
                indptr[r + 1] += indptr[r]
                filled[r] = indptr[r]
            indices_arr = np.empty(indptr[n_rules], dtype=np.int32)
            iv = indices_arr
        with nogil:
            i0 = 0
            while i0 < n:
                rows = min(rr.block_rows, n - i0)
                if npass == 0 or not one_block:
                    rr.fill(i0, rows)
                for j in range((rows + 63) // 64):
                    left = min(64, rows - 64 * j)
                    for r in range(n_rules):
                        word = rr.cover(r, j, ~(<uint64_t>0) >> (64 - left))
                        if npass == 0:
                            indptr[r + 1] += popcount64(word)
                            continue
                        while word:
                            iv[filled[r]] = <int32_t>(i0 + 64 * j + ctz64(word))
                            filled[r] += 1
                            word &= word - 1
                i0 += rows
    return indptr_arr, indices_arr


# ---------------------------------------------------------------- bitsets

def bits_check(const uint64_t[::1] words):
    """The bit operations of ``core/_bits.pxd`` on ``words`` (non-zero), as
    the kernels run them and in the portable version: ``(popcount, ctz,
    popcount_portable, ctz_portable, implementation)``, the last the name of
    what this build uses (``"builtin"``, ``"msvc intrinsics"``,
    ``"portable"``, ...), for tests and the wheel's smoke test."""
    cdef Py_ssize_t n = words.shape[0], i
    out = np.zeros((4, n), dtype=np.int32)
    cdef int32_t[:, ::1] o = out
    for i in range(n):
        if words[i] == 0:
            raise ValueError("count-trailing-zeros of 0 is undefined")
    with nogil:
        for i in range(n):
            o[0, i] = popcount64(words[i])
            o[1, i] = ctz64(words[i])
            o[2, i] = popcount64_portable(words[i])
            o[3, i] = ctz64_portable(words[i])
    return out[0], out[1], out[2], out[3], BITS_IMPL.decode()


cdef extern from *:
    """
    /* Whether the CPU has the instructions the build assumes: on x86-64
       POPCNT (GCC and Clang are asked for it, MSVC's __popcnt64 is it);
       every other target needs nothing. */
    #if defined(_MSC_VER) && defined(_M_X64)
    #include <intrin.h>
    #endif
    static int rules_cpu_has_baseline(void) {
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(RULES_BITS_PORTABLE)
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt");
    #elif defined(_MSC_VER) && defined(_M_X64) && !defined(RULES_BITS_PORTABLE)
        int info[4];
        __cpuid(info, 1);
        return (info[2] >> 23) & 1;
    #else
        return 1;
    #endif
    }
    """
    int rules_cpu_has_baseline() nogil


def cpu_has_baseline():
    """True if this CPU has what the build assumes (POPCNT on x86-64: every
    x86-64 CPU since 2008-2011). ``core/__init__.py`` checks it before any
    kernel runs, so an older CPU gets an ImportError saying so instead of a
    crash on an illegal instruction."""
    return bool(rules_cpu_has_baseline())


def n_words(Py_ssize_t n):
    """Number of 64-bit words that hold ``n`` bits."""
    return (n + 63) // 64


def pack_bits(const uint8_t[::1] mask):
    """Pack a 0/1 byte mask into a ``uint64`` bitset (bit ``i % 64`` of word ``i // 64``)."""
    cdef Py_ssize_t n = mask.shape[0], i
    out_arr = np.zeros(n_words(n), dtype=np.uint64)
    cdef uint64_t[::1] out = out_arr
    with nogil:
        for i in range(n):
            if mask[i]:
                out[i >> 6] |= (<uint64_t>1) << (i & 63)
    return out_arr


def unpack_bits(const uint64_t[::1] bits, Py_ssize_t n):
    """Inverse of :func:`pack_bits`: a boolean mask of length ``n``."""
    if bits.shape[0] < n_words(n):
        raise ValueError("bitset too short")
    out_arr = np.zeros(n, dtype=np.uint8)
    cdef uint8_t[::1] out = out_arr
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            out[i] = (bits[i >> 6] >> (i & 63)) & 1
    return out_arr.view(np.bool_)


# ------------------------------------------------- refinement statistics

cdef _check_classes(const int32_t[::1] y, Py_ssize_t n_classes):
    cdef Py_ssize_t i
    for i in range(y.shape[0]):
        if not 0 <= y[i] < n_classes:
            raise ValueError(f"class code {y[i]} outside 0..{n_classes - 1}")


def class_weights(const int32_t[::1] y, const double[::1] w,
                  const uint8_t[::1] covered, Py_ssize_t n_classes):
    """Weighted class counts of the covered examples."""
    cdef Py_ssize_t n = y.shape[0], i
    if w.shape[0] != n or covered.shape[0] != n:
        raise ValueError("y, w and covered differ in length")
    _check_classes(y, n_classes)
    out_arr = np.zeros(n_classes, dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for i in range(n):
            if covered[i]:
                out[y[i]] += w[i]
    return out_arr


def discrete_refinements(const int32_t[:, ::1] Xd, const int32_t[::1] n_values,
                         const int32_t[::1] y, const double[::1] w,
                         const uint8_t[::1] covered, Py_ssize_t n_classes):
    """Weighted class counts for every refinement ``A = v``.

    Returns ``counts[a, v, c]``: total weight of covered examples of class
    ``c`` with ``Xd[:, a] == v``; shape ``(n_disc, max(n_values), n_classes)``.
    Missing codes are counted nowhere.
    """
    cdef Py_ssize_t n = Xd.shape[0], n_disc = Xd.shape[1], i, a
    cdef int32_t v
    if n_values.shape[0] != n_disc:
        raise ValueError("n_values must have one entry per discrete column")
    if y.shape[0] != n or w.shape[0] != n or covered.shape[0] != n:
        raise ValueError("Xd, y, w and covered differ in length")
    _check_classes(y, n_classes)
    max_v = max([0] + [n_values[a] for a in range(n_disc)])
    for i in range(n):
        for a in range(n_disc):
            if Xd[i, a] >= n_values[a]:
                raise ValueError(f"code {Xd[i, a]} in column {a} exceeds n_values")
    out_arr = np.zeros((n_disc, max_v, n_classes), dtype=np.float64)
    cdef double[:, :, ::1] out = out_arr
    with nogil:
        for i in range(n):
            if not covered[i]:
                continue
            for a in range(n_disc):
                v = Xd[i, a]
                if v >= 0:
                    out[a, v, y[i]] += w[i]
    return out_arr


cdef class IndicatorMatrix:
    """A 0/1 matrix in CSR form without its data array (every stored entry
    is 1), for ``M @ x``: row ``i`` sums ``x`` over its column indices in
    four interleaved partial sums (independent additions pipeline; one
    running sum is a chain of dependent additions), with a third of the
    memory traffic of a general sparse product. The sum's rounding differs
    from ``scipy.sparse``'s in the last bits. Built from any scipy sparse matrix of 0/1 entries; the indices
    are checked once here, not in every product (logistic regression with
    rules multiplies by its rule indicators twice per optimiser step)."""
    cdef readonly object indptr, indices
    cdef readonly tuple shape

    def __init__(self, matrix):
        import scipy.sparse as sp
        m = sp.csr_matrix(matrix)
        m.sum_duplicates()
        if m.nnz and not np.all(m.data == 1):
            raise ValueError("IndicatorMatrix holds 0/1 matrices only")
        self.shape = (int(m.shape[0]), int(m.shape[1]))
        self.indptr = np.ascontiguousarray(m.indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(m.indices, dtype=np.int32)

    @property
    def T(self):
        import scipy.sparse as sp
        data = np.ones(len(self.indices))
        return IndicatorMatrix(sp.csr_matrix((data, self.indices, self.indptr),
                                             shape=self.shape).T)

    def __matmul__(self, x):
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.ndim != 1 or x.shape[0] != self.shape[1]:
            raise ValueError(f"x must have shape ({self.shape[1]},)")
        out = np.zeros(self.shape[0], dtype=np.float64)
        cdef const int64_t[::1] ptr = self.indptr
        cdef const int32_t[::1] idx = self.indices
        cdef const double[::1] xv = x
        cdef double[::1] o = out
        cdef Py_ssize_t i, jj, end
        cdef double a0, a1, a2, a3
        with nogil:
            for i in range(o.shape[0]):
                # four partial sums: independent additions, not one chain
                a0 = a1 = a2 = a3 = 0.0
                jj, end = ptr[i], ptr[i + 1]
                while jj + 4 <= end:
                    a0 = a0 + xv[idx[jj]]
                    a1 = a1 + xv[idx[jj + 1]]
                    a2 = a2 + xv[idx[jj + 2]]
                    a3 = a3 + xv[idx[jj + 3]]
                    jj = jj + 4
                while jj < end:
                    a0 = a0 + xv[idx[jj]]
                    jj = jj + 1
                o[i] = (a0 + a1) + (a2 + a3)
        return out


def gradient_histograms(const int32_t[:, ::1] slots, const int64_t[::1] rows,
                        const double[::1] g, const double[::1] h, const double[::1] v,
                        Py_ssize_t n_slots):
    """Sums of ``g``, ``h`` and ``v`` over ``rows`` per slot:
    ``float64[3, n_slots]``. ``slots[i, j]`` is row ``i``'s slot in column
    ``j`` (a bin of the column: the histograms of every column side by side),
    so one pass over the rows fills every column's histogram (a rule grown
    on the gradient of the log loss, ``gradient_rules``)."""
    cdef Py_ssize_t n = slots.shape[0], d = slots.shape[1], r, i, j, s
    cdef double gi, hi_, vi
    if g.shape[0] != n or h.shape[0] != n or v.shape[0] != n:
        raise ValueError("slots, g, h and v differ in rows")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= n):
        raise ValueError("a row index is out of range")
    if n and d and (np.min(slots) < 0 or np.max(slots) >= n_slots):
        raise ValueError("a slot is out of range")
    out_arr = np.zeros((3, n_slots), dtype=np.float64)
    cdef double[:, ::1] out = out_arr
    with nogil:
        for r in range(rows.shape[0]):
            i = rows[r]
            gi, hi_, vi = g[i], h[i], v[i]
            for j in range(d):
                s = slots[i, j]
                out[0, s] += gi
                out[1, s] += hi_
                out[2, s] += vi
    return out_arr


def best_gradient_split(const double[:, ::1] hist, const int64_t[::1] cut_slot,
                        const int64_t[::1] cut_start, const int64_t[::1] cut_end,
                        const int64_t[::1] eq_slot, double lam, double min_cover):
    """The best condition from :func:`gradient_histograms`' sums: of every
    numeric cut (the rows of slots ``cut_start < s <= cut_slot``, "below",
    and ``cut_slot < s <= cut_end``, "above") and every discrete value
    (slot ``eq_slot``), the side of largest ``G^2 / (H + lam)`` among those
    of weight ``V >= min_cover``. Returns ``(gain, side, index)``: side 0
    below, 1 above, 2 a value; ``(-inf, -1, -1)`` if none qualifies. Ties go
    to the first (below before above, cuts before values, in index order)."""
    cdef Py_ssize_t n_slots = hist.shape[1], k, s, side = -1, index = -1
    cdef double best = -np.inf, gb, hb, vb, ga, ha, va, gain
    if hist.shape[0] != 3:
        raise ValueError("hist must have the rows G, H and V")
    if cut_start.shape[0] != cut_slot.shape[0] or cut_end.shape[0] != cut_slot.shape[0]:
        raise ValueError("cut_slot, cut_start and cut_end differ in length")
    for k in range(cut_slot.shape[0]):
        if not (0 <= cut_start[k] < cut_slot[k] < cut_end[k] < n_slots):
            raise ValueError("a cut's slots are out of order or out of range")
    for k in range(eq_slot.shape[0]):
        if not 0 <= eq_slot[k] < n_slots:
            raise ValueError("a value's slot is out of range")
    cum_arr = np.cumsum(hist, axis=1)  # sums of slots 0..s
    cdef const double[:, ::1] cum = cum_arr
    with nogil:
        for k in range(cut_slot.shape[0]):
            gb = cum[0, cut_slot[k]] - cum[0, cut_start[k]]
            hb = cum[1, cut_slot[k]] - cum[1, cut_start[k]]
            vb = cum[2, cut_slot[k]] - cum[2, cut_start[k]]
            ga = cum[0, cut_end[k]] - cum[0, cut_slot[k]]
            ha = cum[1, cut_end[k]] - cum[1, cut_slot[k]]
            va = cum[2, cut_end[k]] - cum[2, cut_slot[k]]
            if vb >= min_cover:
                gain = gb * gb / (hb + lam)
                if gain > best:
                    best, side, index = gain, 0, k
            if va >= min_cover:
                gain = ga * ga / (ha + lam)
                if gain > best:
                    best, side, index = gain, 1, k
        for k in range(eq_slot.shape[0]):
            s = eq_slot[k]
            if hist[2, s] >= min_cover:
                gain = hist[0, s] * hist[0, s] / (hist[1, s] + lam)
                if gain > best:
                    best, side, index = gain, 2, k
    return best, side, index
