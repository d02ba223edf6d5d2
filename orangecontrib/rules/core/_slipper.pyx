# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""SLIPPER's grow step (Cohen & Singer 1999, eq. 6), fused for speed.

SLIPPER needs, per continuous column, only the threshold of the best
``sqrt(W+) - sqrt(W-)``, not the class weights of every candidate
threshold: one sweep per column finds it.

The weights are summed in fixed point: the signed weights (``+D`` for a
positive, ``-D`` for a negative; ``D`` sums to 1) as whole multiples of
``WEIGHT_UNIT = 2**-52`` (:func:`fixed_point`). Integer sums are exact, so a
sum does not depend on the order of its terms: a sparse column's zeros,
taken as the column's total less its non-zeros, have the very weight the
dense sweep adds row by row, and the sparse and the dense sweep score
every candidate the same to the last bit (the same rules from a sparse and
a dense table).

Two layouts of the sorted columns for the per-call sweeps
(:func:`best_sqrt_thresholds`, :func:`best_sqrt_thresholds_sparse`, which
``slipper.grow_rule`` calls, the reference grower and the sparse tables'):

* dense: per continuous column the examples in sorted order (``order``)
  and their tie groups (``groups``, :func:`tie_groups`: equal values,
  equal groups), both restricted to the examples the rule still covers
  (:func:`compact_sorted`), swept in ascending order. In every row the
  first ``n_valid[j]`` entries are non-missing; every row holds the same
  examples.
* sparse: per column only its stored non-zero entries in sorted order;
  the zeros are one block between the negative and the positive values,
  so a sweep costs ``O(non-zeros)``.

On a dense table the grower calls :func:`grow_dense`, which runs the whole
GrowRule loop here (the sweeps and each chosen condition's test of the
examples), with nothing returned to Python between refinements. Its
sweeps go by bins (:class:`SortedBins`, :func:`_sweep_binned`): per
refinement one histogram pass over the covered examples, the cuts between
bins scored from it, and only the bins that could still hold the best cut
swept example by example; the same cut as the ascending sweep.

The sums of a boosting round around the grow (the split, the class
weights, PruneRule's table, the reweighting: :func:`split_grow`,
:func:`class_sums`, :func:`prune_table`, :func:`reweight`) are here too,
the very floats numpy gives (:func:`_np_sum`).
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, int8_t, uint8_t
from libc.math cimport INFINITY, rint, sqrt
from libc.string cimport memset

from ._coverage cimport (KIND_CONTINUOUS, KIND_DISCRETE, OP_EQ, code_satisfies,
                         value_satisfies)

cnp.import_array()

#: the fixed-point unit of the signed weights (see the module docstring)
WEIGHT_UNIT = 2.0 ** -52
cdef double UNIT = 2.0 ** -52


def fixed_point(signed_d):
    """``signed_d`` (``|d| <= 1``) as whole multiples of :data:`WEIGHT_UNIT`
    (int64; sums of up to 2**10 such totals of 1 cannot overflow)."""
    d = np.asarray(signed_d, dtype=np.float64)
    if d.size and not np.abs(d).max() <= 1:
        raise ValueError("signed weights must lie in [-1, 1] (a distribution)")
    return np.rint(d * 2.0 ** 52).astype(np.int64)


cdef inline bint _may_beat(double a, double b, double best,
                           double best2) noexcept nogil:
    """False when ``sqrt(a) - sqrt(b) > best`` is impossible, decided
    without a sqrt (``best2``: ``best^2 (1 - 1e-9)``). For ``best >= 0`` it
    needs ``a > b`` and
    ``a - b = (sqrt a - sqrt b)(sqrt a + sqrt b) > best (sqrt a + sqrt b)``,
    so ``(a - b)^2 > best^2 (a + b + 2 sqrt(ab)) >= best^2 (a + 3b)`` as
    ``sqrt(ab) >= b``. On a random walk this rules out all but ~0.2% of the
    candidates. The slack keeps candidates that differ from ``best`` by
    rounding only for the exact comparison. Bitwise ``&``/``|``, not
    ``and``/``or``: the tests' outcomes follow the classes of the examples,
    which a branch would mispredict; this way the one branch, on the
    result, is almost always not taken."""
    cdef double diff = a - b
    return (best < 0) | ((diff > 0) & (diff * diff >= best2 * (a + 3 * b)))


cdef struct Sweep:
    # one column's sweep in ascending order of the covered values
    int64_t tp, tn          # the column's covered non-missing W+, W- (fixed point)
    int64_t bp, bn          # W+, W- of the values below the current one
    double eps, best, best2   # best2: best^2 (1 - 1e-9), for _may_beat
    double prev               # the key (value, or tie group) of the last covered example
    double lo, hi             # the keys either side of the best cut
    int64_t wp, wn          # W+, W- the best condition keeps covered
    int8_t op               # 0: no candidate yet, 1: ``<=``, 2: ``>=``
    bint have_prev
    double pos              # the best's place in ascending order (_candidate_at)


cdef inline void _start(Sweep* s, int64_t tp, int64_t tn, double eps,
                        double floor) noexcept nogil:
    # ``floor``: a candidate is kept only if it scores above it
    s.tp, s.tn, s.bp, s.bn = tp, tn, 0, 0
    s.eps, s.best, s.prev, s.lo, s.hi = eps, floor, 0, 0, 0
    s.best2 = floor * floor * (1 - 1e-9)
    s.wp, s.wn, s.op, s.have_prev, s.pos = 0, 0, 0, False, 0


cdef inline void _candidate(Sweep* s, int64_t wp, int64_t wn, double key,
                            int8_t op) noexcept nogil:
    # weights below eps (a 1e-12 share of the total) count as 0, as in the
    # rule's stopping test; most candidates are ruled out by _may_beat,
    # without a sqrt, and once the best is not negative, by one integer
    # comparison before it (sqrt(W+) - sqrt(W-) > 0 needs W+ > W-); ties
    # keep the first candidate
    cdef double a, b, v
    if s.best >= 0 and wp <= wn:
        return
    a = wp * UNIT
    b = wn * UNIT
    a = a if a >= s.eps else 0.0
    b = b if b >= s.eps else 0.0
    if _may_beat(a, b, s.best, s.best2):
        v = sqrt(a) - sqrt(b)
        if v > s.best:
            s.best, s.op, s.wp, s.wn = v, op, wp, wn
            s.lo, s.hi = s.prev, key  # the threshold is taken once, at the end
            s.best2 = v * v * (1 - 1e-9)


cdef inline void _visit(Sweep* s, double key, int64_t d, int64_t d_abs) noexcept nogil:
    """The next covered example in ascending order of value, with signed
    weight ``d`` (``d_abs``: its absolute value, or for a block of values the
    sum of theirs). ``key``: its value, or any number that is the same for
    equal values and different for different ones (the dense sweep's tie
    group). At each new distinct value, the candidates ``A <= t`` and
    ``A >= t`` at the cut with the value before."""
    if s.have_prev and key != s.prev:
        _candidate(s, s.bp, s.bn, key, 1)
        _candidate(s, s.tp - s.bp, s.tn - s.bn, key, 2)
    # W+ and W- without branching on the sign (the class), which would
    # mispredict often: (|d| + d) / 2 and (|d| - d) / 2, exact in integers
    s.bp += (d_abs + d) >> 1
    s.bn += (d_abs - d) >> 1
    s.prev = key
    s.have_prev = True


cdef inline double _midpoint(double a, double z) noexcept nogil:
    """The threshold between consecutive distinct values ``a < z``: their
    midpoint, or ``a`` when no double lies strictly between them."""
    cdef double t = 0.5 * (a + z)
    return a if t == z else t


cdef inline int64_t _abs(int64_t d) noexcept nogil:
    return -d if d < 0 else d


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


def tie_groups(const int32_t[:, ::1] order, const double[:, ::1] XcT,
               const int32_t[::1] n_valid):
    """The dense sweep's tie groups: ``groups[j, p]`` is the first position
    ``q <= p`` of column ``j``'s sorted order whose value equals the value at
    ``p`` (``XcT[j, order[j, p]]``), so two examples have the same value iff
    they have the same group, and ``XcT[j, order[j, groups[j, p]]]`` is the
    value; a missing value (the last ``m - n_valid[j]`` positions) is a group
    of its own. Computed once per fit."""
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], j, p
    if XcT.shape[0] != n_cont:
        raise ValueError("XcT does not match order")
    _check(order, n_valid, XcT.shape[1], ())
    groups_arr = np.empty((n_cont, m), dtype=np.int32)
    cdef int32_t[:, ::1] g = groups_arr
    cdef double x, prev = 0
    with nogil:
        for j in range(n_cont):
            for p in range(m):
                x = XcT[j, order[j, p]]
                g[j, p] = g[j, p - 1] if 0 < p < n_valid[j] and x == prev else <int32_t>p
                prev = x
    return groups_arr


cdef double _floor(beat) except? -1:
    """The sweeps' starting best: ``-inf``, or ``beat`` (a number, not NaN)."""
    if beat is None:
        return -INFINITY
    cdef double b = float(beat)
    if b != b:
        raise ValueError("beat must be a number, not NaN")
    return b


cdef tuple _outputs(Py_ssize_t n_cont):
    return (np.full(n_cont, -np.inf), np.full(n_cont, np.nan),
            np.zeros(n_cont, dtype=np.int8), np.zeros(n_cont), np.zeros(n_cont))


cdef inline void _store(Sweep* s, Py_ssize_t j, double a, double z, double[::1] score,
                        double[::1] thr, int8_t[::1] op, double[::1] wpo,
                        double[::1] wno) noexcept nogil:
    """Column ``j``'s best candidate, if any; ``a < z``: the values either
    side of its cut."""
    if s.op:
        score[j], thr[j], op[j] = s.best, _midpoint(a, z), s.op
        wpo[j], wno[j] = s.wp * UNIT, s.wn * UNIT


cdef void _covered_totals(const int64_t[::1] signed_q, const uint8_t[::1] covered,
                          int64_t* all_p, int64_t* all_n, Py_ssize_t* n_cov) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t d
    all_p[0] = all_n[0] = 0
    n_cov[0] = 0
    for i in range(covered.shape[0]):
        if covered[i]:
            d = signed_q[i]
            all_p[0] += (_abs(d) + d) >> 1
            all_n[0] += (_abs(d) - d) >> 1
            n_cov[0] += 1


cdef bint _dense_totals(const int32_t *order0, Py_ssize_t m, const int64_t *signed_q,
                       const uint8_t *covered, Py_ssize_t n, int64_t *all_p,
                       int64_t *all_n, const int64_t *w0=NULL,
                       bint every=False) noexcept nogil:
    """The covered examples' W+ and W- (fixed point) from one row of the
    sorted order (every row holds the same examples); True on an index
    outside ``0..n-1``. ``w0``: the row's weights in its order, read
    instead of ``signed_q``; ``every``: each example of the row is covered
    (``covered`` is not read)."""
    cdef Py_ssize_t p
    cdef int32_t i
    cdef int64_t d, tp = 0, tn = 0  # locals: stores through the pointers could alias signed_q
    all_p[0] = all_n[0] = 0
    for p in range(m):
        if not every:
            i = order0[p]
            if i < 0 or i >= n:
                return True
            if not covered[i]:
                continue
        d = w0[p] if w0 != NULL else signed_q[order0[p]]
        tp += (_abs(d) + d) >> 1
        tn += (_abs(d) - d) >> 1
    all_p[0], all_n[0] = tp, tn
    return False


cdef inline bint _less_missing(const int32_t *order_j, Py_ssize_t nv, Py_ssize_t m,
                               const int64_t *signed_q, const uint8_t *covered, Py_ssize_t n,
                               int64_t *tp, int64_t *tn, const int64_t *w_j=NULL,
                               bint every=False) noexcept nogil:
    """Subtract from ``tp``, ``tn`` the covered examples of a sorted column's
    missing tail (positions ``nv..m-1``), which are in no candidate's
    weights; True on an index outside ``0..n-1``. ``w_j``, ``every``: as
    in :func:`_dense_totals` (integer sums: the tail's total is what
    subtracting its examples one by one leaves)."""
    cdef int64_t mp, mn
    if _dense_totals(order_j + nv, m - nv, signed_q, covered, n, &mp, &mn,
                     w_j + nv if w_j != NULL else NULL, every):
        return True
    tp[0] -= mp
    tn[0] -= mn
    return False


cdef bint _sweep_dense(Sweep *out, const int32_t *order_j, const int32_t *groups_j,
                       Py_ssize_t m, Py_ssize_t nv, const int64_t *signed_q,
                       const uint8_t *covered, Py_ssize_t n, int64_t all_p, int64_t all_n,
                       double floor) noexcept nogil:
    """One dense column's sweep (``order_j``, ``groups_j``: its ``m``
    examples in ascending order, the first ``nv`` not missing) into ``out``;
    True on an index outside ``0..n-1``. The sweep runs on a local copy,
    which the compiler keeps in registers (stores through ``out`` could
    alias the signed weights, so each would be written back)."""
    cdef Py_ssize_t p
    cdef int32_t i
    cdef int64_t d, tp = all_p, tn = all_n  # minus the covered missing ones (the tail)
    cdef Sweep s
    cdef bint bad = False
    _start(out, 0, 0, 0, floor)  # no candidate, if an index is out of range
    if _less_missing(order_j, nv, m, signed_q, covered, n, &tp, &tn):
        return True
    _start(&s, tp, tn, 1e-12 * (all_p + all_n) * UNIT, floor)
    for p in range(nv):
        i = order_j[p]
        if i < 0 or i >= n:
            bad = True
            break
        if covered[i]:
            d = signed_q[i]
            _visit(&s, groups_j[p], d, _abs(d))
    out[0] = s
    return bad


cdef inline double _eps_weight(int64_t w, double eps) noexcept nogil:
    # a fixed-point weight as _candidate reads it (below eps: 0)
    cdef double a = w * UNIT
    return a if a >= eps else 0.0


cdef inline void _candidate_at(Sweep* s, int64_t wp, int64_t wn, double lo, double hi,
                               int8_t op, double pos) noexcept nogil:
    """:func:`_candidate` for a sweep that meets the cuts out of order: the
    cut between the keys ``lo < hi``, at place ``pos`` in the ascending
    order of the candidates (``2 hi`` for ``<=``, ``2 hi + 1`` for ``>=``).
    A candidate scoring the same as the best replaces it if it comes first
    in that order, so the best is the one the ascending sweep keeps (the
    first of the highest score above the floor)."""
    cdef double a, b, v
    if s.best > 0 and wp <= wn:  # then v <= 0 < best (at best = 0 a tie may win)
        return
    a = _eps_weight(wp, s.eps)
    b = _eps_weight(wn, s.eps)
    # _may_beat lets every tie through but one: v = 0 = best (a = b)
    if _may_beat(a, b, s.best, s.best2) or (a == b and s.best == 0):
        v = sqrt(a) - sqrt(b)
        if v > s.best or (v == s.best and s.op != 0 and pos < s.pos):
            s.best, s.op, s.wp, s.wn, s.pos = v, op, wp, wn, pos
            s.lo, s.hi = lo, hi
            s.best2 = v * v * (1 - 1e-9)


cdef inline bint _cut_values(Sweep *s, const int32_t *full_order_j, Py_ssize_t M,
                             const double *x_j, Py_ssize_t n, double *a,
                             double *z) noexcept nogil:
    """The values either side of the best cut of a dense sweep (its tie
    groups are positions in ``full_order_j``); True if out of range."""
    cdef Py_ssize_t lo = <Py_ssize_t>s.lo, hi = <Py_ssize_t>s.hi
    if not (0 <= lo < M and 0 <= hi < M and 0 <= full_order_j[lo] < n
            and 0 <= full_order_j[hi] < n):
        return True
    a[0] = x_j[full_order_j[lo]]
    z[0] = x_j[full_order_j[hi]]
    return False


def best_sqrt_thresholds(const int32_t[:, ::1] order, const int32_t[:, ::1] groups,
                         const int32_t[::1] n_valid, const int32_t[:, ::1] full_order,
                         const double[:, ::1] XcT, const int64_t[::1] signed_q,
                         const uint8_t[::1] covered, beat=None):
    """Per column, the condition ``A <= t`` or ``A >= t`` (``t`` a midpoint
    between consecutive distinct covered values) maximising
    ``sqrt(W+) - sqrt(W-)`` over the covered examples.

    ``order``, ``groups``, ``n_valid``: the columns' examples in ascending
    order of value (every row the same examples, the first ``n_valid[j]``
    not missing) and their tie groups, as :func:`compact_sorted` keeps them
    (at first :func:`tie_groups` of the full ``full_order``). A group is a
    position in ``full_order``, whose value is
    ``XcT[j, full_order[j, group]]``: the sweep compares groups (integers)
    and looks up two values for the best cut only. ``signed_q``: every
    example's signed weight in fixed point (:func:`fixed_point`).

    Returns ``(score, threshold, op, w_pos, w_neg)`` arrays of length
    ``n_cont``; ``op`` is 1 (``<=``) or 2 (``>=``); ``w_pos``/``w_neg`` the
    weights of the positives and negatives the best condition keeps covered;
    columns without a candidate get score ``-inf`` and op 0. Ties keep the
    first candidate (ascending ``t``, ``<=`` first).

    ``beat``: when only the best condition of all columns is wanted, and
    only if it scores above ``beat``: each column's sweep then starts from
    the best score of the columns before it (at least ``beat``), so it
    rules out most candidates without a sqrt, and a column reports a
    condition (else score ``-inf``) only if it beats them all.
    ``np.argmax(score)`` is then the condition it is without ``beat``
    (the first column of the highest score) whenever that scores above
    ``beat``, and every score is ``-inf`` otherwise.
    """
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], j
    cdef Py_ssize_t n = covered.shape[0], M = full_order.shape[1]
    cdef bint bad = False
    _check(order, n_valid, n, (groups.shape,), scan=False)
    if (full_order.shape[0] != n_cont or XcT.shape[0] != n_cont
            or signed_q.shape[0] != n or XcT.shape[1] != n):
        raise ValueError("full_order, XcT, signed_q and covered do not match")
    score_arr, thr_arr, op_arr, wp_arr, wn_arr = _outputs(n_cont)
    cdef double[::1] score = score_arr, thr = thr_arr, wpo = wp_arr, wno = wn_arr
    cdef int8_t[::1] op = op_arr
    cdef int64_t all_p = 0, all_n = 0
    cdef double a, z
    cdef Sweep s
    cdef bint carry = beat is not None
    cdef double floor = _floor(beat)
    with nogil:
        if n_cont:
            bad = _dense_totals(&order[0, 0], m, &signed_q[0], &covered[0], n, &all_p, &all_n)
        for j in range(n_cont):
            if bad:
                break
            bad = _sweep_dense(&s, &order[j, 0], &groups[j, 0], m, n_valid[j], &signed_q[0],
                               &covered[0], n, all_p, all_n, floor)
            if s.op and not bad:
                bad = _cut_values(&s, &full_order[j, 0], M, &XcT[j, 0], n, &a, &z)
                if not bad:
                    _store(&s, j, a, z, score, thr, op, wpo, wno)
            if carry:
                floor = s.best
    if bad:
        raise IndexError("order, groups or full_order hold an index out of range")
    return score_arr, thr_arr, op_arr, wp_arr, wn_arr


def best_sqrt_thresholds_sparse(const int64_t[::1] indptr, const int32_t[::1] rows,
                                const double[::1] xs, const int32_t[::1] n_neg,
                                const int32_t[::1] n_valid, const int64_t[::1] signed_q,
                                const uint8_t[::1] covered, beat=None):
    """:func:`best_sqrt_thresholds` on sparse columns, the same result as on
    the dense ones to the last bit. Column ``j`` is its stored non-zero
    entries ``indptr[j]:indptr[j + 1]`` (rows ``rows``, values ``xs``) in
    ascending order, missing (NaN) last: the first ``n_neg[j]`` negative,
    the first ``n_valid[j]`` not missing (:func:`features.stored_order`).
    Every other row of the column is 0. ``signed_q``: the signed weights
    of all rows in fixed point (:func:`fixed_point`); ``beat`` as there.
    Costs ``O(n)`` once and ``O(stored entries)`` per column."""
    cdef Py_ssize_t n_cont = n_neg.shape[0], n = covered.shape[0], j, p
    cdef Py_ssize_t start, stop, n_cov, k
    cdef int32_t i
    cdef bint bad = False
    if indptr.shape[0] != n_cont + 1 or n_valid.shape[0] != n_cont:
        raise ValueError("indptr, n_neg and n_valid differ in length")
    if rows.shape[0] != xs.shape[0] or (n_cont and indptr[n_cont] != rows.shape[0]):
        raise ValueError("rows, xs and indptr differ in size")
    if signed_q.shape[0] != n:
        raise ValueError("signed_q and covered differ in length")
    for j in range(n_cont):
        if not (0 <= indptr[j] <= indptr[j + 1]
                and 0 <= n_neg[j] <= n_valid[j] <= indptr[j + 1] - indptr[j]):
            raise ValueError("indptr, n_neg or n_valid out of range")
    score_arr, thr_arr, op_arr, wp_arr, wn_arr = _outputs(n_cont)
    cdef double[::1] score = score_arr, thr = thr_arr, wpo = wp_arr, wno = wn_arr
    cdef int8_t[::1] op = op_arr
    cdef int64_t tp, tn, all_p, all_n, d, zp, zn
    cdef Sweep s
    cdef bint carry = beat is not None
    cdef double floor = _floor(beat)
    with nogil:
        _covered_totals(signed_q, covered, &all_p, &all_n, &n_cov)
        for j in range(n_cont):
            start, stop = indptr[j], indptr[j + 1]
            # the covered zeros: what the missing and the non-zero entries leave
            tp, tn, zp, zn, k = all_p, all_n, all_p, all_n, n_cov
            for p in range(start, stop):
                i = rows[p]
                if i < 0 or i >= n:
                    bad = True
                    break
                if covered[i]:
                    d = signed_q[i]
                    if p >= start + n_valid[j]:  # missing: in no candidate's totals
                        tp -= (_abs(d) + d) >> 1
                        tn -= (_abs(d) - d) >> 1
                    zp -= (_abs(d) + d) >> 1
                    zn -= (_abs(d) - d) >> 1
                    k -= 1
            if bad:
                break
            _start(&s, tp, tn, 1e-12 * (all_p + all_n) * UNIT, floor)
            for p in range(start, start + n_neg[j]):
                if covered[rows[p]]:
                    _visit(&s, xs[p], signed_q[rows[p]], _abs(signed_q[rows[p]]))
            if k > 0:  # the block of covered zeros, one value
                _visit(&s, 0.0, zp - zn, zp + zn)
            for p in range(start + n_neg[j], start + n_valid[j]):
                if covered[rows[p]]:
                    _visit(&s, xs[p], signed_q[rows[p]], _abs(signed_q[rows[p]]))
            _store(&s, j, s.lo, s.hi, score, thr, op, wpo, wno)
            if carry:
                floor = s.best
    if bad:
        raise IndexError("rows holds an index outside 0..n-1")
    return score_arr, thr_arr, op_arr, wp_arr, wn_arr


cdef bint _compact(const int32_t *o_in, const int32_t *g_in, const int32_t *nv_in,
                   Py_ssize_t n_cont, Py_ssize_t m, const uint8_t *covered, Py_ssize_t n,
                   Py_ssize_t kept, int32_t *o_out, int32_t *g_out,
                   int32_t *nv_out) noexcept nogil:
    """Rows of ``m`` sorted examples (and their tie groups) restricted to the
    ``kept`` covered ones, in order, into rows of ``kept`` (the outputs hold
    ``n_cont * kept + 1``). The outputs may be the inputs themselves: a
    slot is written only after it was read (a row's ``k``-th kept example
    goes to slot ``j * kept + k <= j * m + p``, where it was read). True on
    an index outside ``0..n-1`` or a row holding another number of covered
    examples.

    Branch-free (whether an example is covered is unpredictable): every
    example is written at slot k, and k advances only if it is covered, so
    the next one overwrites an uncovered one. The spare slot ``kept`` of
    row j is slot 0 of row j + 1, which row j + 1 then overwrites (rows are
    filled in order)."""
    cdef Py_ssize_t j, p, k, slot, nv, v
    cdef int32_t i
    cdef int c
    for j in range(n_cont):
        k = v = 0
        nv = nv_in[j]
        for p in range(m):
            i = o_in[j * m + p]
            if i < 0 or i >= n:
                return True
            c = covered[i] != 0
            slot = j * kept + (k if k < kept else kept)
            o_out[slot] = i
            g_out[slot] = g_in[j * m + p]
            k += c
            v += c & (p < nv)
        nv_out[j] = <int32_t>v
        if k != kept:
            return True
    return False


def compact_sorted(const int32_t[:, ::1] order, const int32_t[:, ::1] groups,
                   const int32_t[::1] n_valid, const uint8_t[::1] covered):
    """Restrict every row of ``order`` and ``groups`` to the covered
    examples, keeping the order; returns the new ``(order, groups,
    n_valid)``. The start of a grow restricts the full order and
    :func:`tie_groups` to the GrowSet, each refinement the rule's rows to
    those it still covers."""
    cdef Py_ssize_t n_cont = order.shape[0], m = order.shape[1], p
    cdef Py_ssize_t kept = 0
    cdef bint bad = False
    cdef Py_ssize_t n = covered.shape[0]
    _check(order, n_valid, n, (groups.shape,), scan=False)
    if n_cont:  # indices are checked inline: every loop reads them all
        for p in range(m):
            if order[0, p] < 0 or order[0, p] >= n:
                raise IndexError("order holds an index outside 0..n-1")
            kept += covered[order[0, p]] != 0
    size = n_cont * kept
    o_flat = np.empty(size + 1, dtype=np.int32)
    g_flat = np.empty(size + 1, dtype=np.int32)
    v_arr = np.zeros(n_cont, dtype=np.int32)
    cdef int32_t[::1] o = o_flat
    cdef int32_t[::1] go = g_flat
    cdef int32_t[::1] v = v_arr
    if n_cont:
        with nogil:
            bad = _compact(&order[0, 0], &groups[0, 0], &n_valid[0], n_cont, m, &covered[0],
                           n, kept, &o[0], &go[0], &v[0])
    if bad:
        raise ValueError("the rows of order do not hold the same examples "
                         "or hold an index outside 0..n-1")
    return (o_flat[:size].reshape(n_cont, kept), g_flat[:size].reshape(n_cont, kept), v_arr)


_NOT_SORTED = ("order, groups and n_valid are not the sorted columns of every example "
               "(rows of other examples or an index outside 0..n-1)")


# ------------------------------------------ the grow's sweeps over bins
#
# A sweep of the rule's sorted rows reads every covered example of every
# column at each refinement (and the compactions copy them). The binned
# grow instead cuts each column's sorted order, once per fit, into at most
# MAX_BINS runs of whole tie groups (``SortedBins``); at each refinement
# one pass over the covered examples sums their weights per bin (a
# histogram, in row order: no sorted rows to keep), every cut between two
# bins is scored from those sums, and only a bin whose bound could still
# beat the best is swept example by example (in the whole table's order,
# skipping what the rule does not cover). Integer sums make every
# candidate's weights those of the ascending sweep, and candidates meet
# in any order through ``_candidate_at``: the same rule to the last bit.

#: the most bins per column (a bin's code is one byte; ``BIN_MISSING``
#: marks a missing value)
MAX_BINS = 254
cdef enum:
    BIN_MISSING = 255


cdef class SortedBins:
    """Each continuous column's sorted order (``order``, :func:`tie_groups`'
    ``groups``, ``n_valid``, every row a permutation of the ``n``
    examples, checked here once) cut into at most ``max_bins`` bins of
    consecutive whole tie groups of about equal size: ``starts[j, b]`` is
    the first position of bin ``b`` of column ``j`` (``starts[j, nbins[j]]
    = n_valid[j]``) and ``codes[j, i]`` the bin of example ``i``
    (``BIN_MISSING`` if its value is missing). Made once per fit
    (``slipper._FitCache``) for :func:`grow_dense`'s binned sweeps."""
    cdef readonly object codes, starts, nbins
    cdef object _args  # what pickling makes it again from
    cdef const int32_t[:, ::1] _order
    cdef const int32_t[:, ::1] _groups
    cdef const uint8_t[:, ::1] _codes
    cdef const int32_t[:, ::1] _starts
    cdef const int32_t[::1] _nbins

    def __init__(self, order_arr, groups_arr, n_valid_arr, Py_ssize_t bin_rows=1,
                 Py_ssize_t max_bins=MAX_BINS):
        cdef const int32_t[:, ::1] order = order_arr
        cdef const int32_t[:, ::1] groups = groups_arr
        cdef const int32_t[::1] n_valid = n_valid_arr
        cdef Py_ssize_t n_cont = order.shape[0], n = order.shape[1], j, p, b, size, nv
        cdef int32_t i
        cdef bint bad = False
        if not 1 <= max_bins <= MAX_BINS or bin_rows < 1:
            raise ValueError(f"max_bins must lie in 1..{MAX_BINS}, bin_rows be positive")
        _check(order, n_valid, n, (groups.shape,))
        codes = np.full((n_cont, n), BIN_MISSING, dtype=np.uint8)
        starts = np.zeros((n_cont, max_bins + 1), dtype=np.int32)
        nbins = np.zeros(n_cont, dtype=np.int32)
        seen_arr = np.zeros(max(n, 1), dtype=np.int32)
        cdef uint8_t[:, ::1] c = codes
        cdef int32_t[:, ::1] st = starts
        cdef int32_t[::1] nb = nbins, seen = seen_arr
        with nogil:
            for j in range(n_cont):
                nv = n_valid[j]
                size = max(bin_rows, (nv + max_bins - 1) // max_bins)
                b = -1
                for p in range(n):
                    i = order[j, p]
                    bad |= seen[i] == j + 1  # twice in this row: not a permutation
                    seen[i] = <int32_t>(j + 1)
                    if p < nv:
                        if b < 0 or (groups[j, p] == p and p - st[j, b] >= size):
                            b += 1  # a new bin starts with a new tie group
                            st[j, b] = <int32_t>p
                        c[j, i] = <uint8_t>b
                nb[j] = <int32_t>(b + 1)
                st[j, b + 1] = <int32_t>nv
        if bad:
            raise ValueError("a row of order is not a permutation of the examples")
        self._args = (order_arr, groups_arr, n_valid_arr, bin_rows, max_bins)
        self.codes, self.starts, self.nbins = codes, starts, nbins
        self._order, self._groups, self._codes, self._starts, self._nbins = (
            order, groups, codes, starts, nbins)

    def __reduce__(self):
        # the sorted columns travel (a process or Dask worker), the bins are
        # cut again there: O(columns x rows), once
        return SortedBins, self._args


cdef Py_ssize_t _covered_list(const uint8_t *covered, Py_ssize_t n, const int64_t *signed_q,
                              int32_t *cidx, int64_t *cw, int64_t *all_p,
                              int64_t *all_n) noexcept nogil:
    """The covered examples' indices and signed weights into ``cidx``,
    ``cw`` (``n + 1`` slots: each example is written at the next slot,
    which advances only if it is covered), their W+ and W- into ``all_p``,
    ``all_n``; returns how many."""
    cdef Py_ssize_t i, k = 0
    cdef int64_t d, tp = 0, tn = 0
    for i in range(n):
        cidx[k] = <int32_t>i
        k += covered[i] != 0
    for i in range(k):
        d = signed_q[cidx[i]]
        cw[i] = d
        tp += (_abs(d) + d) >> 1
        tn += (_abs(d) - d) >> 1
    all_p[0], all_n[0] = tp, tn
    return k


cdef void _sweep_binned(Sweep *out, const int32_t *order_j, const int32_t *groups_j,
                        const uint8_t *codes_j, const int32_t *starts_j, Py_ssize_t nb,
                        const int64_t *signed_q, const uint8_t *covered,
                        const int32_t *cidx, const int64_t *cw, Py_ssize_t n_cov,
                        int64_t all_p, int64_t all_n, double floor,
                        int64_t *hs, int64_t *ha, int32_t *hc, int32_t *used) noexcept nogil:
    """One column's best cut among the ``n_cov`` covered examples ``cidx``
    (their signed weights ``cw``), as :func:`_sweep_dense` finds it, by
    bins (:class:`SortedBins`). The histogram ``hs``, ``ha``, ``hc`` (256
    entries each, all 0 on entry and left so) holds per bin the signed
    weights' sum, their absolute values' sum and the examples (``W+ =
    (Σ|d| + Σd) / 2``, exact in integers); ``used`` (256 entries) lists
    the bins holding covered examples. The cuts between two such bins are
    scored first; then a bin is swept example by example only if one of
    its cuts could still beat the best: an ``A <= t`` in it keeps at most
    the ``W+`` below the bin's end and at least the ``W-`` below its
    start, an ``A >= t`` the other way round (a square root, the ``eps``
    cut and a rounded difference never decrease in the larger term nor
    increase in the smaller, so the bound holds for the computed scores
    too, and a bin whose bound is below the best holds no cut that could
    win or tie). A cut between bins is named by its bins
    (``lo = -1 - b``) until :func:`_bin_cut_keys` finds its keys."""
    cdef Py_ssize_t k, b, p, n_used = 0, u
    cdef int32_t i
    cdef uint8_t c
    cdef int64_t d, tp, tn, bp = 0, bn = 0, cp, cn, hp, hn
    cdef double key, prev = 0, hi
    cdef Sweep s
    for k in range(n_cov):
        c = codes_j[cidx[k]]
        d = cw[k]
        hs[c] += d
        ha[c] += _abs(d)
        hc[c] += 1
    for b in range(nb):
        used[n_used] = <int32_t>b
        n_used += hc[b] != 0
    tp = all_p - ((ha[BIN_MISSING] + hs[BIN_MISSING]) >> 1)  # the non-missing W+, W-
    tn = all_n - ((ha[BIN_MISSING] - hs[BIN_MISSING]) >> 1)
    hs[BIN_MISSING] = ha[BIN_MISSING] = hc[BIN_MISSING] = 0
    _start(&s, tp, tn, 1e-12 * (all_p + all_n) * UNIT, floor)
    for u in range(n_used):  # the cuts between bins
        b = used[u]
        if u:  # placed where the bin's first key would be: before its own cuts
            hi = starts_j[b]
            _candidate_at(&s, bp, bn, -1.0 - used[u - 1], -1.0 - b, 1, 2 * hi)
            _candidate_at(&s, tp - bp, tn - bn, -1.0 - used[u - 1], -1.0 - b, 2, 2 * hi + 1)
        bp += (ha[b] + hs[b]) >> 1
        bn += (ha[b] - hs[b]) >> 1
    bp = bn = 0
    for u in range(n_used):  # the cuts inside the bins that could beat the best
        b = used[u]
        hp = (ha[b] + hs[b]) >> 1
        hn = (ha[b] - hs[b]) >> 1
        if hc[b] > 1 and (
                s.best == -INFINITY
                or sqrt(_eps_weight(bp + hp, s.eps)) - sqrt(_eps_weight(bn, s.eps)) >= s.best
                or sqrt(_eps_weight(tp - bp, s.eps)) - sqrt(_eps_weight(tn - bn - hn, s.eps))
                >= s.best):
            cp, cn, k = bp, bn, 0
            for p in range(starts_j[b], starts_j[b + 1]):
                i = order_j[p]
                if covered[i]:
                    key = groups_j[p]
                    if k and key != prev:
                        _candidate_at(&s, cp, cn, prev, key, 1, 2 * key)
                        _candidate_at(&s, tp - cp, tn - cn, prev, key, 2, 2 * key + 1)
                    d = signed_q[i]
                    cp += (_abs(d) + d) >> 1
                    cn += (_abs(d) - d) >> 1
                    prev = key
                    k += 1
                    if k == hc[b]:  # the bin's last covered example
                        break
        bp += hp
        bn += hn
        hs[b] = ha[b] = hc[b] = 0
    out[0] = s


cdef void _bin_cut_keys(Sweep *s, const int32_t *order_j, const int32_t *groups_j,
                        const int32_t *starts_j, const uint8_t *covered) noexcept nogil:
    """The keys either side of a best cut between two bins (named by its
    bins, :func:`_sweep_binned`): the last covered example's of the lower
    bin and the first's of the upper."""
    cdef Py_ssize_t p, b
    if s.lo >= 0:
        return
    b = <Py_ssize_t>(-1.0 - s.lo)
    for p in range(starts_j[b + 1] - 1, starts_j[b] - 1, -1):
        if covered[order_j[p]]:
            s.lo = groups_j[p]
            break
    b = <Py_ssize_t>(-1.0 - s.hi)
    for p in range(starts_j[b], starts_j[b + 1]):
        if covered[order_j[p]]:
            s.hi = groups_j[p]
            break


def grow_dense(const int32_t[:, ::1] Xd, const int32_t[::1] n_values,
               const int32_t[::1] ypos, const double[::1] D, SortedBins bins,
               const double[:, ::1] XcT, const int64_t[::1] signed_q,
               const uint8_t[::1] grow, double w_pos, double w_neg):
    """GrowRule (Section 3) on a dense table in one call: from the rule
    covering the GrowSet ``grow`` (``w_pos``, ``w_neg``: its weights),
    add the condition maximising eq. 6 (``sqrt(W+) - sqrt(W-)``) until the
    rule covers no GrowSet negative (``W- <= 1e-12 (W+ + W-)``) or no
    condition improves eq. 6 by more than ``1e-12``.

    The same rule, step by step and bit by bit, as ``slipper.grow_rule``
    (its reference): discrete refinements ``A = v`` from the class weights
    of ``Xd``'s values summed in row order (as ``discrete_refinements``;
    the first best in column-major order, taken if it beats eq. 6 of the
    rule), then each continuous column's best cut with the score to beat
    carried (as :func:`best_sqrt_thresholds`), found by the bins of
    ``bins`` (:class:`SortedBins` of the whole table's sorted columns,
    :func:`_sweep_binned`) from the list of the examples the rule covers.

    ``ypos``: 1 for a positive, 0 for a negative; ``D``: the weights (for
    the discrete counts); ``signed_q``: :func:`fixed_point` of ``+D`` for a
    positive and ``-D`` for a negative (the sweeps'); ``XcT``: the
    continuous columns, one row each (with no continuous column, ``bins``
    may be ``None``).

    Returns ``(conds, lengths)``: the conditions ``(kind, col, op,
    value)`` in the order added, and for every example the number of
    leading conditions it satisfies (``slipper.prefix_lengths``)."""
    cdef Py_ssize_t n = ypos.shape[0], n_disc = Xd.shape[1], n_cont = XcT.shape[0]
    cdef Py_ssize_t i, a, v, j, max_v = 0
    if (Xd.shape[0] != n or D.shape[0] != n or signed_q.shape[0] != n or grow.shape[0] != n
            or (n_cont and XcT.shape[1] != n)):
        raise ValueError("Xd, ypos, D, XcT, signed_q and grow do not match")
    if n_values.shape[0] != n_disc:
        raise ValueError("n_values must have one entry per discrete column")
    if n_cont and (bins is None or bins._order.shape[0] != n_cont
                   or bins._order.shape[1] != n):
        raise ValueError("bins must be the SortedBins of XcT's sorted columns")
    for i in range(n):
        if ypos[i] != 0 and ypos[i] != 1:
            raise ValueError("ypos must be 0 or 1")
        for a in range(n_disc):
            if Xd[i, a] >= n_values[a]:
                raise ValueError(f"code {Xd[i, a]} in column {a} exceeds n_values")
    for a in range(n_disc):
        max_v = max(max_v, n_values[a])
    counts_arr = np.zeros((n_disc, max(max_v, 1), 2))
    cdef double[:, :, ::1] counts = counts_arr
    # the rule's covered examples (a subset of the GrowSet), every example's
    # prefix length and whether it satisfies every condition so far
    covered_arr = np.array(grow, dtype=np.uint8)
    lengths_arr = np.zeros(n, dtype=np.int32)
    alive_arr = np.ones(n, dtype=np.uint8)
    cdef uint8_t[::1] covered = covered_arr, alive = alive_arr
    cdef int32_t[::1] lengths = lengths_arr
    # the covered examples as a list (their indices and signed weights, one
    # spare slot each) and one column's histogram (256 bins; the counts
    # and then the bins used)
    cidx_arr = np.empty(n + 1, dtype=np.int32)
    cw_arr = np.empty(n + 1, dtype=np.int64)
    hist_arr = np.zeros(2 * 256, dtype=np.int64)
    hc_arr = np.zeros(2 * 256, dtype=np.int32)
    cdef int32_t[::1] cidx = cidx_arr, hc = hc_arr
    cdef int64_t[::1] cw = cw_arr, hist = hist_arr
    cdef const int32_t *b_order = NULL
    cdef const int32_t *b_groups = NULL
    cdef const uint8_t *b_codes = NULL
    cdef const int32_t *b_starts = NULL
    cdef const int32_t *b_nbins = NULL
    cdef Py_ssize_t b_width = 0, n_cov
    cdef int64_t all_p = 0, all_n = 0
    if n_cont:
        b_order, b_groups = &bins._order[0, 0], &bins._groups[0, 0]
        b_codes, b_starts, b_nbins = &bins._codes[0, 0], &bins._starts[0, 0], &bins._nbins[0]
        b_width = bins._starts.shape[1]
    with nogil:
        n_cov = _covered_list(&covered[0], n, &signed_q[0], &cidx[0], &cw[0], &all_p, &all_n)
    cdef double current = sqrt(w_pos) - sqrt(w_neg), beat, best, score
    cdef double thr = 0, a_val = 0, z_val = 0
    cdef Sweep s
    cdef Py_ssize_t best_a = 0, best_v = 0, best_j = -1
    cdef int kind = -1
    cdef int8_t op = 0
    cdef bint bad = False
    conds = []
    while w_neg > 1e-12 * (w_pos + w_neg):  # a negative of the GrowSet is still covered
        beat = current + 1e-12
        best, kind = -INFINITY, -1
        with nogil:
            if n_disc:  # the class weights of each value, summed in row order
                memset(&counts[0, 0, 0], 0, counts.shape[0] * counts.shape[1] * 2 * sizeof(double))
                for i in range(n):
                    if covered[i]:
                        for a in range(n_disc):
                            v = Xd[i, a]
                            if v >= 0:
                                counts[a, v, ypos[i]] += D[i]
                best_a = best_v = 0
                score = -INFINITY
                for a in range(n_disc):
                    for v in range(n_values[a]):
                        if sqrt(counts[a, v, 1]) - sqrt(counts[a, v, 0]) > score:
                            score = sqrt(counts[a, v, 1]) - sqrt(counts[a, v, 0])
                            best_a, best_v = a, v
                if score > (best if best > beat else beat):
                    best, kind, op = score, KIND_DISCRETE, OP_EQ
                    w_pos, w_neg = counts[best_a, best_v, 1], counts[best_a, best_v, 0]
            best_j = -1
            score = best if best > beat else beat  # the score to beat, carried
            for j in range(n_cont):
                _sweep_binned(&s, b_order + j * n, b_groups + j * n, b_codes + j * n,
                              b_starts + j * b_width, b_nbins[j], &signed_q[0], &covered[0],
                              &cidx[0], &cw[0], n_cov, all_p, all_n, score,
                              &hist[0], &hist[256], &hc[0], &hc[256])
                if s.op:
                    _bin_cut_keys(&s, b_order + j * n, b_groups + j * n,
                                  b_starts + j * b_width, &covered[0])
                    bad = _cut_values(&s, b_order + j * n, n, &XcT[j, 0], n, &a_val, &z_val)
                    if bad:
                        break
                    best_j, score, op, thr = j, s.best, s.op, _midpoint(a_val, z_val)
                    w_pos, w_neg = s.wp * UNIT, s.wn * UNIT
            if best_j >= 0 and score > best:
                best, kind = score, KIND_CONTINUOUS
        if bad:
            raise ValueError(_NOT_SORTED)
        if kind < 0:
            break
        if kind == KIND_DISCRETE:
            conds.append((<int>KIND_DISCRETE, best_a, <int>OP_EQ, <double>best_v))
        else:
            conds.append((<int>KIND_CONTINUOUS, best_j, <int>op, thr))
        with nogil:
            for i in range(n):
                if kind == KIND_DISCRETE:
                    alive[i] &= code_satisfies(Xd[i, best_a], OP_EQ, <int32_t>best_v)
                else:
                    alive[i] &= value_satisfies(XcT[best_j, i], op, thr)
                lengths[i] += alive[i]
                covered[i] &= alive[i]
            n_cov = _covered_list(&covered[0], n, &signed_q[0], &cidx[0], &cw[0],
                                  &all_p, &all_n)
        current = best
    return conds, lengths_arr


# ------------------------------------------------- a boosting round's sums
#
# The round around a grow (slipper.boost_rounds: the split, PruneRule's
# table, the rule's weights, the reweighting) sums example weights. numpy's
# sums of these arrays took about 0.2 ms a round, as long as a short grow;
# the functions below give the very same floats in one pass each: a sum of
# a float64 array is numpy's pairwise sum of it (_np_sum), a running sum
# is sequential in numpy (cumsum, bincount) and here.

cdef double _np_sum(const double *a, Py_ssize_t n) noexcept nogil:
    """``np.sum`` of the contiguous ``a[:n]``, term for term as numpy adds
    them: fewer than 8 terms in order; up to 128 in eight interleaved
    running sums, added in pairs, then the rest in order; more, the two
    halves (the first a multiple of 8 terms) summed so and added."""
    cdef double r0, r1, r2, r3, r4, r5, r6, r7, res
    cdef Py_ssize_t i, n2
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - n % 8:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _np_sum(a, n2) + _np_sum(a + n2, n - n2)


def np_sum(const double[::1] a):
    """``np.sum(a)`` to the last bit (:func:`_np_sum`); for the tests."""
    return _np_sum(&a[0], a.shape[0]) if a.shape[0] else 0.0


def class_sums(const double[::1] D, const int32_t[::1] ypos, mask=None):
    """``(D[mask & (ypos == 1)].sum(), D[mask & (ypos == 0)].sum())`` to the
    last bit, without the two masked copies (``mask``: uint8 or bool of
    ``len(D)``; ``None``: every example)."""
    cdef Py_ssize_t n = D.shape[0], i, k_pos = 0, k_neg = 0
    if ypos.shape[0] != n:
        raise ValueError("D and ypos differ in length")
    cdef const uint8_t[::1] m
    cdef bint masked = mask is not None
    if masked:
        m = np.ascontiguousarray(mask).view(np.uint8)
        if m.shape[0] != n:
            raise ValueError("mask and D differ in length")
    # each class's weights gathered in order, as numpy's masked copies
    buf_arr = np.empty((2, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] buf = buf_arr
    cdef double w_pos, w_neg
    with nogil:
        for i in range(n):
            if masked and not m[i]:
                continue
            if ypos[i] == 1:
                buf[1, k_pos] = D[i]
                k_pos += 1
            elif ypos[i] == 0:
                buf[0, k_neg] = D[i]
                k_neg += 1
        w_pos = _np_sum(&buf[1, 0], k_pos)
        w_neg = _np_sum(&buf[0, 0], k_neg)
    return w_pos, w_neg


def split_grow(const int64_t[::1] perm, const double[::1] D):
    """The GrowSet of ``slipper._split`` for its permutation ``perm`` of the
    examples: the first of them in that order up to the one where the
    running sum of ``D`` (``np.cumsum``) first reaches 2/3 of its total
    (``np.searchsorted(..., side="left")``), as a uint8 mask."""
    cdef Py_ssize_t n = D.shape[0], i, k
    if perm.shape[0] != n or n == 0:
        raise ValueError("perm must be a permutation of the examples of D (at least one)")
    cum_arr = np.empty(n, dtype=np.float64)
    grow_arr = np.zeros(n, dtype=np.uint8)
    cdef double[::1] cum = cum_arr
    cdef uint8_t[::1] grow = grow_arr
    cdef double run = 0.0, target
    for i in range(n):
        if perm[i] < 0 or perm[i] >= n:
            raise ValueError("perm must be a permutation of the examples of D")
    with nogil:
        run = D[perm[0]]
        cum[0] = run
        for i in range(1, n):
            run = run + D[perm[i]]
            cum[i] = run
        target = cum[n - 1] * 2 / 3
        k = 0
        while k < n and not cum[k] >= target:
            k += 1
        for i in range(min(k + 1, n)):
            grow[perm[i]] = 1
    return grow_arr


def signed_fixed_point(const double[::1] D, const int32_t[::1] ypos):
    """:func:`fixed_point` of ``+D`` for a positive (``ypos == 1``) and
    ``-D`` otherwise, to the last bit, in one pass."""
    cdef Py_ssize_t n = D.shape[0], i
    if ypos.shape[0] != n:
        raise ValueError("D and ypos differ in length")
    out_arr = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    cdef double d
    cdef bint bad = False
    with nogil:
        for i in range(n):
            d = D[i] if ypos[i] == 1 else -D[i]
            if not (d <= 1 and d >= -1):
                bad = True
                break
            out[i] = <int64_t>rint(d * 4503599627370496.0)  # 2**52
    if bad:
        raise ValueError("signed weights must lie in [-1, 1] (a distribution)")
    return out_arr


def prune_table(const int32_t[::1] lengths, const uint8_t[::1] grow,
                const int32_t[::1] ypos, const double[::1] D, Py_ssize_t L):
    """PruneRule's table (``slipper.prune_rule``): ``(cov, d_prune)``, the
    weights covered by each prefix length ``0..L-1`` of the rule (a row of
    ``cov``: GrowSet positives, GrowSet negatives, PruneSet positives,
    PruneSet negatives) and the PruneSet's total, to the last bit as numpy
    computes them (``np.bincount`` of the examples by prefix length, set
    and class, summed from the longest prefix down; ``D[~grow].sum()``)."""
    cdef Py_ssize_t n = D.shape[0], i, l, c, k = 0
    if lengths.shape[0] != n or grow.shape[0] != n or ypos.shape[0] != n or L < 1:
        raise ValueError("lengths, grow, ypos and D differ in length (or L < 1)")
    for i in range(n):
        if lengths[i] < 0 or lengths[i] >= L:
            raise ValueError("a prefix length outside 0..L-1")
    cov_arr = np.zeros((L, 4), dtype=np.float64)
    buf_arr = np.empty(max(n, 1), dtype=np.float64)
    cdef double[:, ::1] cov = cov_arr
    cdef double[::1] buf = buf_arr
    cdef double d_prune
    with nogil:
        for i in range(n):
            c = (0 if grow[i] else 2) + (ypos[i] != 1)
            cov[lengths[i], c] += D[i]
            if not grow[i]:
                buf[k] = D[i]
                k += 1
        for l in range(L - 2, -1, -1):
            for c in range(4):
                cov[l, c] = cov[l + 1, c] + cov[l, c]
        d_prune = _np_sum(&buf[0], k) if k else 0.0
    return cov_arr, d_prune


def reweight(const double[::1] D, const uint8_t[::1] covered, const int32_t[::1] ypos,
             double e_pos, double e_neg):
    """SLIPPER's update of ``D`` (Fig. 1): a covered positive's weight times
    ``e_pos``, a covered negative's times ``e_neg``, then all divided by
    their sum; to the last bit as ``np.where`` and ``D /= D.sum()``."""
    cdef Py_ssize_t n = D.shape[0], i
    if covered.shape[0] != n or ypos.shape[0] != n or n == 0:
        raise ValueError("D, covered and ypos differ in length (or are empty)")
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef double total
    with nogil:
        for i in range(n):
            if covered[i]:
                out[i] = D[i] * (e_pos if ypos[i] == 1 else e_neg)
            else:
                out[i] = D[i]
        total = _np_sum(&out[0], n)
        for i in range(n):
            out[i] = out[i] / total
    return out_arr
