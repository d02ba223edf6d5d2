# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""ROCCER's rule insertion test (Prati & Flach 2005, Algorithm 1), over
coverage bitsets.

The current rule list ``R_1 .. R_L, R_default`` is given by the unions
``U_j`` of the coverage of its first ``j`` rules (``U_0`` empty) and by its
ROC segments: segment ``j`` goes from the point of the first ``j`` rules to
that of the first ``j + 1`` (the last one ends at ``(N, P)``, the default
rule). Counts are weights, not rates: the comparison of slopes is the same.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, uint64_t

cnp.import_array()

from ._bits cimport popcount64, word_weight


cdef inline void _counts(const uint64_t *bits, const uint64_t *minus,
                         const uint64_t[::1] pos, const double[::1] w, bint unit,
                         Py_ssize_t W, double *tp, double *fp) noexcept nogil:
    """Weight of positives and negatives in ``bits & ~minus``."""
    cdef Py_ssize_t j
    cdef uint64_t word
    cdef long long n_tp = 0, n_fp = 0
    if unit:  # integer counts times the one weight
        for j in range(W):
            word = bits[j] & ~minus[j]
            n_tp += popcount64(word & pos[j])
            n_fp += popcount64(word & ~pos[j])
        tp[0] = n_tp * w[0]
        fp[0] = n_fp * w[0]
        return
    tp[0] = 0
    fp[0] = 0
    for j in range(W):
        word = bits[j] & ~minus[j]
        tp[0] += word_weight(word & pos[j], j, &w[0], unit)
        fp[0] += word_weight(word & ~pos[j], j, &w[0], unit)


def _check(bits, pos, w):
    W = bits.shape[1]
    if pos.shape[0] != W or w.shape[0] > 64 * W or w.shape[0] <= 64 * (W - 1):
        raise ValueError("pos or w does not match the bitsets")


def equal_weights(w) -> bool:
    """Whether all weights are equal (the kernels then count bits)."""
    w_arr = np.asarray(w)
    return bool(len(w_arr) == 0 or np.all(w_arr == w_arr[0]))


def coverage_counts(const uint64_t[:, ::1] bits, const uint64_t[::1] pos,
                    const double[::1] w, unit=None):
    """``(tp, fp)``: weight of the positives and negatives each row covers.
    ``unit``: :func:`equal_weights` of ``w`` if known (a caller in a loop
    saves a pass over the weights)."""
    _check(bits, pos, w)
    cdef Py_ssize_t K = bits.shape[0], W = bits.shape[1], k
    tp_arr, fp_arr = np.zeros(K), np.zeros(K)
    cdef double[::1] tp = tp_arr
    cdef double[::1] fp = fp_arr
    cdef bint is_unit = equal_weights(w) if unit is None else unit
    zero_arr = np.zeros(W, np.uint64)
    cdef uint64_t[::1] zero = zero_arr
    if K and W:
        with nogil:
            for k in range(K):
                _counts(&bits[k, 0], &zero[0], pos, w, is_unit, W, &tp[k], &fp[k])
    return tp_arr, fp_arr


def first_insertion(const uint64_t[:, ::1] item_bits, const int32_t[::1] cand_items,
                    const int32_t[::1] cand_ends, const double[::1] cand_tp,
                    const double[::1] cand_fp, Py_ssize_t start,
                    const uint64_t[:, ::1] unions, const double[::1] seg_tp,
                    const double[::1] seg_fp, const uint64_t[::1] pos,
                    const double[::1] w, unit=None, total=None):
    """TryToInsertRule for candidates ``start, start + 1, ...`` until one is
    inserted: returns ``(k, j)``, candidate ``k`` goes before rule ``j``
    (``j = L``: before the default rule), or ``(-1, -1)``.

    A candidate is an itemset: candidate ``k`` covers the AND of the bitsets
    ``item_bits[i]`` of its items ``i`` in ``cand_items[cand_ends[k - 1]:
    cand_ends[k]]`` (``cand_ends[-1]`` read as 0). Its coverage is built
    when it is tried, so the candidates take no bitset memory of their own
    (a candidate given as a bitset is an itemset of one item).

    Candidate ``R`` is compared with segment ``j = 0, 1, .., L`` in turn,
    read as ``not R_1 and .. not R_j and R`` (its coverage minus ``U_j``):
    it is inserted at the first segment it lies strictly above, i.e. where
    ``tp * seg_fp[j] > fp * seg_tp[j]``; past the default segment it is
    discarded. ``unions`` ``(L + 1, words)``: ``U_0 .. U_L``; ``seg_tp``,
    ``seg_fp`` ``(L + 1,)``: the rise and run of each segment.

    ``cand_tp``, ``cand_fp``: each candidate's weight of positives and
    negatives (what the miner counted). A segment is skipped without a pass
    over the words where the candidate cannot lie above it even at best:
    with ``tp``, ``fp`` its weights past ``U_i`` (the last segment ``i``
    counted, or its own weights), past ``U_j`` it keeps at most
    ``min(tp, P - tp(U_j))`` positives and at least ``fp - (fp(U_j) -
    fp(U_i))`` negatives. Only comparisons that would fail are skipped, so
    the result is that of testing every segment.

    ``unit`` (:func:`equal_weights`) and ``total`` (the weights' sum), if
    known, save two passes over the weights per call.
    """
    _check(item_bits, pos, w)
    cdef Py_ssize_t K = cand_ends.shape[0], W = item_bits.shape[1]
    cdef Py_ssize_t n_items = item_bits.shape[0], n_flat = cand_items.shape[0]
    cdef Py_ssize_t L1 = unions.shape[0], k, j, j2, i, a, b
    if unions.shape[1] != W or seg_tp.shape[0] != L1 or seg_fp.shape[0] != L1 or L1 < 1:
        raise ValueError("unions and segments do not match")
    if cand_tp.shape[0] != K or cand_fp.shape[0] != K:
        raise ValueError("cand_tp and cand_fp need one weight per candidate")
    if start < 0:
        raise ValueError("start must be non-negative")
    cdef bint is_unit = equal_weights(w) if unit is None else unit
    cdef double sum_w = float(np.asarray(w).sum()) if total is None else total
    cdef double tp, fp, scale = sum_w ** 2 * 1e-12
    # weights other than one sum with rounding in another order than the
    # miner's: skip a segment only when its bound fails by more than that
    cdef double skip_below = scale - (0.0 if is_unit else 1e-9 * sum_w ** 2)
    cdef Py_ssize_t found_k = -1, found_j = -1
    if W == 0:
        return -1, -1
    # positives outside U_j and negatives inside it, from the segments
    rest_tp_arr = np.cumsum(np.asarray(seg_tp)[::-1])[::-1].copy()
    in_fp_arr = np.concatenate([[0.0], np.cumsum(np.asarray(seg_fp))[:L1 - 1]])
    cdef double[::1] rest_tp = rest_tp_arr
    cdef double[::1] in_fp = in_fp_arr
    scratch_arr = np.empty(W, np.uint64)
    cdef uint64_t[::1] scratch = scratch_arr
    cdef const uint64_t *bits
    cdef bint built, bad = False
    cdef double known_tp, known_fp, known_in_fp
    with nogil:
        for k in range(start, K):
            built = False
            # the last counts known: past U_j0 (j0 = 0: the candidate's own)
            known_tp, known_fp, known_in_fp = cand_tp[k], cand_fp[k], 0.0
            for j in range(L1):
                if (min(known_tp, rest_tp[j]) * seg_fp[j]
                        - max(known_fp - (in_fp[j] - known_in_fp), 0.0) * seg_tp[j]
                        <= skip_below):
                    continue  # not above segment j even at best
                if not built:  # the AND of the items' bitsets, once per candidate
                    a = cand_ends[k - 1] if k else 0
                    b = cand_ends[k]
                    # (checked here, for the candidates read: a check of all
                    # of them would cost more than the search on each call)
                    if not 0 <= a < b <= n_flat:
                        bad = True
                        break
                    for i in range(a, b):
                        if not 0 <= cand_items[i] < n_items:
                            bad = True
                    if bad:
                        break
                    bits = &item_bits[cand_items[a], 0]
                    if b - a > 1:
                        for i in range(W):
                            scratch[i] = bits[i]
                        for i in range(a + 1, b):
                            for j2 in range(W):
                                scratch[j2] &= item_bits[cand_items[i], j2]
                        bits = &scratch[0]
                    built = True
                _counts(bits, &unions[j, 0], pos, w, is_unit, W, &tp, &fp)
                known_tp, known_fp, known_in_fp = tp, fp, in_fp[j]
                if tp == 0:  # covers no new positive: never above a segment
                    if fp == 0:
                        break  # nothing left to cover further down the list
                    continue
                if tp * seg_fp[j] - fp * seg_tp[j] > scale:
                    found_k, found_j = k, j
                    break
            if found_k >= 0 or bad:
                break
    if bad:
        raise ValueError("cand_ends must rise by at least 1 up to len(cand_items), "
                         "cand_items index item_bits")
    return found_k, found_j


def first_concavity(const double[::1] fp, const double[::1] tp, double end_fp,
                    double end_tp):
    """The first inner point ``i`` (1..L) of the curve ``(fp[0], tp[0]) ..
    (fp[L], tp[L]), (end_fp, end_tp)`` that is not a strict vertex of an
    upper convex hull, as ``(i, kind)``: ``"empty"`` (the segment before it
    is empty), ``"collinear"`` or ``"concave"`` (the curve turns left, by
    more than 1e-9 of the cross product's terms); ``None`` if the curve is
    strictly convex. The same arithmetic as the differences and cross
    products taken with numpy, in a loop that stops at the first such
    point (ROCCER's repair asks after every insertion)."""
    cdef Py_ssize_t L1 = fp.shape[0], i
    cdef double dx1, dy1, dx2, dy2, nx, ny, cross, tol
    if tp.shape[0] != L1:
        raise ValueError("fp and tp differ in length")
    for i in range(L1 - 1):  # the point i + 1, between segments i and i + 1
        dx1 = fp[i + 1] - fp[i]
        dy1 = tp[i + 1] - tp[i]
        nx = fp[i + 2] if i + 2 < L1 else end_fp
        ny = tp[i + 2] if i + 2 < L1 else end_tp
        dx2 = nx - fp[i + 1]
        dy2 = ny - tp[i + 1]
        cross = dx1 * dy2 - dy1 * dx2
        tol = 1e-9 * (abs(dx1 * dy2) + abs(dy1 * dx2))
        if dx1 == 0 and dy1 == 0:
            return i + 1, "empty"
        if cross >= -tol:
            return i + 1, ("concave" if cross > tol else "collinear")
    return None
