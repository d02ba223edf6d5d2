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
from ._bits cimport ctz64, popcount64
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

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


def cover_matrix(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                 const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                 const int32_t[::1] col, const int8_t[::1] op,
                 const double[::1] value):
    """Boolean ``(n, n_rules)`` matrix: does rule ``r`` cover example ``i``."""
    cdef Py_ssize_t n = Xd.shape[0]
    cdef Py_ssize_t n_rules = _check_rule_set(Xd, Xc, rule_ptr, kind, col, op, value)
    out_arr = np.ones((n, n_rules), dtype=np.uint8)
    cdef uint8_t[:, ::1] out = out_arr
    cdef Py_ssize_t i, r, k
    with nogil:
        for i in range(n):
            for r in range(n_rules):
                for k in range(rule_ptr[r], rule_ptr[r + 1]):
                    if not _satisfies(Xd, Xc, i, kind[k], col[k], op[k], value[k]):
                        out[i, r] = 0
                        break
    return out_arr.view(np.bool_)


def violation_matrix(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                     const int32_t[::1] rule_ptr, const int32_t[::1] kind,
                     const int32_t[::1] col, const int8_t[::1] op,
                     const double[::1] value):
    """``uint8 (n, n_rules)``: how many of rule ``r``'s conditions example
    ``i`` fails (a missing value fails its conditions; at most 255); 0 where
    :func:`cover_matrix` is true."""
    cdef Py_ssize_t n = Xd.shape[0]
    cdef Py_ssize_t n_rules = _check_rule_set(Xd, Xc, rule_ptr, kind, col, op, value)
    out_arr = np.zeros((n, n_rules), dtype=np.uint8)
    cdef uint8_t[:, ::1] out = out_arr
    cdef Py_ssize_t i, r, k, failed
    with nogil:
        for i in range(n):
            for r in range(n_rules):
                failed = 0
                for k in range(rule_ptr[r], rule_ptr[r + 1]):
                    failed += not _satisfies(Xd, Xc, i, kind[k], col[k], op[k], value[k])
                out[i, r] = <uint8_t>(failed if failed < 255 else 255)
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
                  const double[::1] value):
    """:func:`cover_matrix` as the column pointers and row indices of a
    sparse ``(n, n_rules)`` matrix (CSC: rule ``r`` covers rows
    ``indices[indptr[r]:indptr[r + 1]]``, ascending): memory for the covered
    cells only, not for every row and rule."""
    cdef Py_ssize_t n = Xd.shape[0]
    cdef Py_ssize_t n_rules = _check_rule_set(Xd, Xc, rule_ptr, kind, col, op, value)
    indptr_arr = np.zeros(max(n_rules, 0) + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    cdef Py_ssize_t cap = max(n, 16), nnz = 0, i, r, k
    cdef int32_t *buf = <int32_t *>malloc(cap * sizeof(int32_t))
    cdef int32_t *grown
    cdef bint ok, failed = False
    if buf == NULL:
        raise MemoryError()
    with nogil:
        for r in range(n_rules):
            for i in range(n):
                ok = True
                for k in range(rule_ptr[r], rule_ptr[r + 1]):
                    if not _satisfies(Xd, Xc, i, kind[k], col[k], op[k], value[k]):
                        ok = False
                        break
                if ok:
                    if nnz == cap:
                        grown = <int32_t *>realloc(buf, 2 * cap * sizeof(int32_t))
                        if grown == NULL:
                            failed = True
                            break
                        buf, cap = grown, 2 * cap
                    buf[nnz] = <int32_t>i
                    nnz += 1
            if failed:
                break
            indptr[r + 1] = nnz
    if failed:
        free(buf)
        raise MemoryError()
    indices_arr = np.empty(nnz, dtype=np.int32)
    cdef int32_t[::1] iv = indices_arr
    if nnz:
        memcpy(&iv[0], buf, nnz * sizeof(int32_t))
    free(buf)
    return indptr_arr, indices_arr


# ---------------------------------------------------------------- bitsets

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


def condition_bitsets(const int32_t[:, ::1] Xd, const double[:, ::1] Xc,
                      const int32_t[::1] kind, const int32_t[::1] col,
                      const int8_t[::1] op, const double[::1] value):
    """One bitset row per condition (literal): ``uint64[n_conditions, n_words]``."""
    cdef Py_ssize_t n = Xd.shape[0], n_cond = kind.shape[0], k, i
    if Xc.shape[0] != n:
        raise ValueError("Xd and Xc differ in number of rows")
    _check_conditions(kind, col, op, value, Xd.shape[1], Xc.shape[1])
    out_arr = np.zeros((n_cond, n_words(n)), dtype=np.uint64)
    cdef uint64_t[:, ::1] out = out_arr
    with nogil:
        for k in range(n_cond):
            for i in range(n):
                if _satisfies(Xd, Xc, i, kind[k], col[k], op[k], value[k]):
                    out[k, i >> 6] |= (<uint64_t>1) << (i & 63)
    return out_arr


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


def continuous_refinements(const double[:, ::1] Xc, const int32_t[:, ::1] order,
                           const int32_t[::1] n_valid, const int32_t[::1] y,
                           const double[::1] w, const uint8_t[::1] covered,
                           Py_ssize_t n_classes):
    """Cumulative class counts along each presorted continuous column.

    For column ``j`` the covered, non-missing examples are visited in
    increasing order. Between two consecutive distinct values ``u < u'`` a
    candidate threshold ``t = (u + u') / 2`` is emitted, with ``below[j, k, c]``
    the covered weight of class ``c`` with ``A <= t``. With ``total[j, c]``
    the covered non-missing weight, ``A >= t`` covers ``total - below``. So
    the best threshold for any quality function is one vectorised sweep.

    Returns ``(thresholds, below, n_candidates, total)`` with shapes
    ``(n_cont, m)``, ``(n_cont, m, n_classes)``, ``(n_cont,)``,
    ``(n_cont, n_classes)``; ``m`` is the largest number of candidates, and
    unused entries are ``NaN`` (thresholds) and 0 (counts).
    """
    cdef Py_ssize_t n = Xc.shape[0], n_cont = Xc.shape[1]
    cdef Py_ssize_t i, j, p, k, c, nv, n_cov = 0
    if order.shape[0] != n_cont or order.shape[1] != n or n_valid.shape[0] != n_cont:
        raise ValueError("order/n_valid do not match Xc")
    if y.shape[0] != n or w.shape[0] != n or covered.shape[0] != n:
        raise ValueError("Xc, y, w and covered differ in length")
    _check_classes(y, n_classes)
    for j in range(n_cont):
        if not 0 <= n_valid[j] <= n:
            raise ValueError("n_valid out of range")
    for i in range(n):
        n_cov += covered[i] != 0
    cdef Py_ssize_t m = max(n_cov - 1, 0)
    thr_arr = np.full((n_cont, m), np.nan)
    below_arr = np.zeros((n_cont, m, n_classes))
    ncand_arr = np.zeros(n_cont, dtype=np.int32)
    total_arr = np.zeros((n_cont, n_classes))
    cdef double[:, ::1] thr = thr_arr
    cdef double[:, :, ::1] below = below_arr
    cdef int32_t[::1] ncand = ncand_arr
    cdef double[:, ::1] total = total_arr
    cdef double prev, x
    cdef bint have_prev
    cdef Py_ssize_t prev_i
    with nogil:
        for j in range(n_cont):
            nv = n_valid[j]
            k = 0
            have_prev = False
            prev = 0.0
            prev_i = 0
            for p in range(nv):
                i = order[j, p]
                if not covered[i]:
                    continue
                x = Xc[i, j]
                if have_prev and x != prev:
                    # close the block of value `prev`: a threshold between prev and x
                    thr[j, k] = 0.5 * (prev + x)
                    if thr[j, k] == x:  # adjacent floats: keep `x` above the threshold
                        thr[j, k] = prev
                    for c in range(n_classes):
                        below[j, k, c] = total[j, c]
                    k += 1
                total[j, y[i]] += w[i]
                prev = x
                have_prev = True
            ncand[j] = <int32_t>k
    return thr_arr, below_arr, ncand_arr, total_arr



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
