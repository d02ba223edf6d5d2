# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""SLIPPER's grow step (Cohen & Singer 1999, eq. 6), fused for speed.

SLIPPER needs, per continuous column, only the threshold of the best
``sqrt(W+) - sqrt(W-)``, not the class weights of every candidate
threshold: one sweep per column finds it. The grower keeps, per continuous column,
the examples in sorted order (``order``), their values (``xs``) and their
signed weights (``ds``: ``+D`` for a positive, ``-D`` for a negative), all
restricted to the examples the rule still covers (:func:`compact_sorted`),
so a sweep reads memory sequentially and costs ``O(covered)`` per column.
In every row the first ``n_valid[j]`` entries are non-missing; every row
holds the same examples.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, int8_t, uint8_t
from libc.math cimport INFINITY, fabs, sqrt

cnp.import_array()


cdef inline double _objective(double wp, double wn, double eps) noexcept nogil:
    # weights left over by subtracting sums are rounding residue below eps:
    # treat them as 0, else sqrt turns 1e-17 into 3e-9 and breaks ties
    if wp < eps:
        wp = 0
    if wn < eps:
        wn = 0
    return sqrt(wp) - sqrt(wn)


cdef inline bint _may_beat(double wp, double wn, double eps,
                           double best) noexcept nogil:
    """False when ``_objective(wp, wn, eps) > best`` is impossible, decided
    without a sqrt. For ``best >= 0`` it needs ``a > b`` and
    ``a - b = (sqrt a - sqrt b)(sqrt a + sqrt b) > best (sqrt a + sqrt b)``,
    so ``(a - b)^2 > best^2 (a + b + 2 sqrt(ab)) >= best^2 (a + 3b)`` as
    ``sqrt(ab) >= b``. On a random walk this rules out all but ~0.2% of the
    candidates. The slack keeps candidates that differ from ``best`` by
    rounding only for the exact comparison."""
    cdef double a = wp if wp >= eps else 0.0
    cdef double b = wn if wn >= eps else 0.0
    cdef double diff = a - b
    return best < 0 or (diff > 0 and diff * diff >= best * best * (a + 3 * b) * (1 - 1e-9))


cdef _check(const int32_t[:, ::1] order, const int32_t[::1] n_valid,
            Py_ssize_t n, tuple shapes, bint scan=True):
    """Shapes and ``n_valid``; with ``scan``, also every index in ``order``
    (an O(size) pass: kernels that read every index anyway check inline)."""
    cdef Py_ssize_t j, p
    cdef bint bad = False
    for shape in shapes:
        if tuple(shape[:2]) != (order.shape[0], order.shape[1]):
            raise ValueError("sorted arrays differ in shape")
    if n_valid.shape[0] != order.shape[0]:
        raise ValueError("n_valid does not match order")
    for j in range(order.shape[0]):
        if not 0 <= n_valid[j] <= order.shape[1]:
            raise ValueError("n_valid out of range")
    if not scan:
        return
    with nogil:
        for j in range(order.shape[0]):
            for p in range(order.shape[1]):
                if order[j, p] < 0 or order[j, p] >= n:
                    bad = True
    if bad:
        raise IndexError("order holds an index outside 0..n-1")


def gather_sorted(const int32_t[:, ::1] order, const double[:, ::1] XcT,
                  const double[::1] signed_d):
    """``xs[j, p] = XcT[j, order[j, p]]`` and ``ds[j, p] = signed_d[order[j, p]]``."""
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], j, p
    if XcT.shape[0] != n_cont:
        raise ValueError("XcT does not match order")
    _check(order, np.full(n_cont, m, np.int32), min(XcT.shape[1], signed_d.shape[0]), ())
    xs_arr = np.empty((n_cont, m))
    ds_arr = np.empty((n_cont, m))
    cdef double[:, ::1] xs = xs_arr
    cdef double[:, ::1] ds = ds_arr
    with nogil:
        for j in range(n_cont):
            for p in range(m):
                xs[j, p] = XcT[j, order[j, p]]
                ds[j, p] = signed_d[order[j, p]]
    return xs_arr, ds_arr


def best_sqrt_thresholds(const int32_t[:, ::1] order, const double[:, ::1] xs,
                         const double[:, ::1] ds, const int32_t[::1] n_valid,
                         const uint8_t[::1] covered):
    """Per column, the condition ``A <= t`` or ``A >= t`` (``t`` a midpoint
    between consecutive distinct covered values) maximising
    ``sqrt(W+) - sqrt(W-)`` over the covered examples.

    Returns ``(score, threshold, op, w_pos, w_neg)`` arrays of length
    ``n_cont``; ``op`` is 1 (``<=``) or 2 (``>=``); ``w_pos``/``w_neg`` the
    weights of the positives and negatives the best condition keeps covered;
    columns without a candidate get score ``-inf`` and op 0. Ties keep the
    first candidate (ascending ``t``, ``<=`` first).
    """
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], j, p
    cdef Py_ssize_t n = covered.shape[0]
    cdef int32_t i
    cdef bint bad = False
    _check(order, n_valid, n, (xs.shape, ds.shape), scan=False)
    score_arr = np.full(n_cont, -np.inf)
    thr_arr = np.full(n_cont, np.nan)
    op_arr = np.zeros(n_cont, dtype=np.int8)
    wp_arr = np.zeros(n_cont)
    wn_arr = np.zeros(n_cont)
    cdef double[::1] wpo = wp_arr
    cdef double[::1] wno = wn_arr
    cdef double[::1] score = score_arr
    cdef double[::1] thr = thr_arr
    cdef int8_t[::1] op = op_arr
    cdef double tp, tn, all_p = 0, all_n = 0, bp, bn, s, x, d, prev, t, eps, best, sum_d, sum_abs
    cdef bint have_prev
    with nogil:
        if n_cont:  # every row holds the same examples: class totals from row 0
            for p in range(m):
                i = order[0, p]
                if i < 0 or i >= n:
                    bad = True
                    break
                if covered[i]:
                    d = ds[0, p]
                    if d >= 0:
                        all_p += d
                    else:
                        all_n -= d
        eps = 1e-12 * (all_p + all_n)
        for j in range(n_cont):
            if bad:
                break
            tp = all_p  # minus the covered missing ones (the row's tail)
            tn = all_n
            for p in range(n_valid[j], m):
                i = order[j, p]
                if i < 0 or i >= n:
                    bad = True
                    break
                if covered[i]:
                    d = ds[j, p]
                    if d >= 0:
                        tp -= d
                    else:
                        tn += d
            bp = 0
            bn = 0
            sum_d = 0
            sum_abs = 0
            best = -INFINITY
            have_prev = False
            prev = 0
            for p in range(n_valid[j]):
                i = order[j, p]
                if i < 0 or i >= n:
                    bad = True
                    break
                if not covered[i]:
                    continue
                x = xs[j, p]
                if have_prev and x != prev:
                    t = 0.5 * (prev + x)
                    if t == x:
                        t = prev
                    # most candidates are ruled out by _may_beat, without a sqrt
                    if _may_beat(bp, bn, eps, best):
                        s = _objective(bp, bn, eps)
                        if s > best:
                            best = s
                            thr[j] = t
                            op[j] = 1
                            wpo[j], wno[j] = bp, bn
                    if _may_beat(tp - bp, tn - bn, eps, best):
                        s = _objective(tp - bp, tn - bn, eps)
                        if s > best:
                            best = s
                            thr[j] = t
                            op[j] = 2
                            wpo[j], wno[j] = tp - bp, tn - bn
                # W+ and W- below x from the signed and the absolute sums:
                # branching on the sign (the class) would mispredict often
                d = ds[j, p]
                sum_d += d
                sum_abs += fabs(d)
                bp = 0.5 * (sum_abs + sum_d)
                bn = 0.5 * (sum_abs - sum_d)
                prev = x
                have_prev = True
            if op[j]:
                score[j] = best
    if bad:
        raise IndexError("order holds an index outside 0..n-1")
    return score_arr, thr_arr, op_arr, wp_arr, wn_arr


cdef tuple _compact(const int32_t[:, ::1] order, const double[:, ::1] xs,
                    const double[:, ::1] ds, const double[::1] signed_d,
                    bint from_signed, const int32_t[::1] n_valid,
                    const uint8_t[::1] covered):
    """Rows of ``order``/``xs`` and of ``ds`` (or ``signed_d[order]`` when
    ``from_signed``) restricted to the covered examples, order kept."""
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], j, p, k, size
    cdef Py_ssize_t kept = 0
    cdef int32_t i
    cdef bint bad = False
    cdef Py_ssize_t n = covered.shape[0]
    if n_cont:  # indices are checked inline: every loop reads them all
        for p in range(m):
            if order[0, p] < 0 or order[0, p] >= n:
                raise IndexError("order holds an index outside 0..n-1")
            kept += covered[order[0, p]] != 0
    # Branch-free compaction (whether an example is covered is unpredictable):
    # every example is written at slot k, and k advances only if it is
    # covered, so the next one overwrites an uncovered one. Flat buffers with
    # one spare slot: slot ``kept`` of row j is slot 0 of row j + 1, which
    # row j + 1 then overwrites (rows are filled in order).
    size = n_cont * kept
    o_flat = np.empty(size + 1, dtype=np.int32)
    x_flat = np.empty(size + 1)
    d_flat = np.empty(size + 1)
    v_arr = np.zeros(n_cont, dtype=np.int32)
    cdef int32_t[::1] o = o_flat
    cdef double[::1] xo = x_flat
    cdef double[::1] do = d_flat
    cdef int32_t[::1] v = v_arr
    cdef Py_ssize_t slot, nv
    cdef int c
    with nogil:
        for j in range(n_cont):
            k = 0
            nv = n_valid[j]
            for p in range(m):
                i = order[j, p]
                if i < 0 or i >= n:
                    bad = True
                    break
                c = covered[i] != 0
                slot = j * kept + (k if k < kept else kept)
                o[slot] = i
                xo[slot] = xs[j, p]
                do[slot] = signed_d[i] if from_signed else ds[j, p]
                k += c
                v[j] += c & (p < nv)
            if k != kept:
                bad = True
    if bad:
        raise ValueError("the rows of order do not hold the same examples "
                         "or hold an index outside 0..n-1")
    return (o_flat[:size].reshape(n_cont, kept), x_flat[:size].reshape(n_cont, kept),
            d_flat[:size].reshape(n_cont, kept), v_arr)


def compact_sorted(const int32_t[:, ::1] order, const double[:, ::1] xs,
                   const double[:, ::1] ds, const int32_t[::1] n_valid,
                   const uint8_t[::1] covered):
    """Restrict every row of ``order``/``xs``/``ds`` to the covered examples,
    keeping the order; returns the new ``(order, xs, ds, n_valid)``."""
    _check(order, n_valid, covered.shape[0], (xs.shape, ds.shape), scan=False)
    return _compact(order, xs, ds, np.zeros(covered.shape[0]), False, n_valid,
                    covered)


def select_sorted(const int32_t[:, ::1] order, const double[:, ::1] xs,
                  const int32_t[::1] n_valid, const double[::1] signed_d,
                  const uint8_t[::1] covered):
    """:func:`compact_sorted` for the start of a grow: the values ``xs`` are
    fixed for the whole fit, the signed weights are read from ``signed_d``
    (this round's distribution) for the kept examples only."""
    if signed_d.shape[0] != covered.shape[0]:
        raise ValueError("signed_d and covered differ in length")
    _check(order, n_valid, covered.shape[0], (xs.shape,), scan=False)
    return _compact(order, xs, np.zeros((0, 0)), signed_d, True, n_valid, covered)
