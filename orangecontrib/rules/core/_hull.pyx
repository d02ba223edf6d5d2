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
from libc.stdint cimport uint64_t

cnp.import_array()

from ._bits cimport word_weight


cdef inline void _counts(const uint64_t *bits, const uint64_t *minus,
                         const uint64_t[::1] pos, const double[::1] w, bint unit,
                         Py_ssize_t W, double *tp, double *fp) noexcept nogil:
    """Weight of positives and negatives in ``bits & ~minus``."""
    cdef Py_ssize_t j
    cdef uint64_t word
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


def coverage_counts(const uint64_t[:, ::1] bits, const uint64_t[::1] pos,
                    const double[::1] w):
    """``(tp, fp)``: weight of the positives and negatives each row covers."""
    _check(bits, pos, w)
    cdef Py_ssize_t K = bits.shape[0], W = bits.shape[1], k
    tp_arr, fp_arr = np.zeros(K), np.zeros(K)
    cdef double[::1] tp = tp_arr
    cdef double[::1] fp = fp_arr
    w_arr = np.asarray(w)
    cdef bint unit = bool(np.all(w_arr == w_arr[0]))
    zero_arr = np.zeros(W, np.uint64)
    cdef uint64_t[::1] zero = zero_arr
    if K and W:
        with nogil:
            for k in range(K):
                _counts(&bits[k, 0], &zero[0], pos, w, unit, W, &tp[k], &fp[k])
    return tp_arr, fp_arr


def first_insertion(const uint64_t[:, ::1] candidates, Py_ssize_t start,
                    const uint64_t[:, ::1] unions, const double[::1] seg_tp,
                    const double[::1] seg_fp, const uint64_t[::1] pos,
                    const double[::1] w):
    """TryToInsertRule for candidates ``start, start + 1, ...`` until one is
    inserted: returns ``(k, j)``, candidate ``k`` goes before rule ``j``
    (``j = L``: before the default rule), or ``(-1, -1)``.

    Candidate ``R`` is compared with segment ``j = 0, 1, .., L`` in turn,
    read as ``not R_1 and .. not R_j and R`` (its coverage minus ``U_j``):
    it is inserted at the first segment it lies strictly above, i.e. where
    ``tp * seg_fp[j] > fp * seg_tp[j]``; past the default segment it is
    discarded. ``unions`` ``(L + 1, words)``: ``U_0 .. U_L``; ``seg_tp``,
    ``seg_fp`` ``(L + 1,)``: the rise and run of each segment.
    """
    _check(candidates, pos, w)
    cdef Py_ssize_t K = candidates.shape[0], W = candidates.shape[1]
    cdef Py_ssize_t L1 = unions.shape[0], k, j
    if unions.shape[1] != W or seg_tp.shape[0] != L1 or seg_fp.shape[0] != L1 or L1 < 1:
        raise ValueError("unions and segments do not match")
    if start < 0:
        raise ValueError("start must be non-negative")
    w_arr = np.asarray(w)
    cdef bint unit = bool(np.all(w_arr == w_arr[0]))
    cdef double tp, fp, scale = float(w_arr.sum()) ** 2 * 1e-12
    cdef Py_ssize_t found_k = -1, found_j = -1
    if W == 0:
        return -1, -1
    with nogil:
        for k in range(start, K):
            for j in range(L1):
                _counts(&candidates[k, 0], &unions[j, 0], pos, w, unit, W, &tp, &fp)
                if tp == 0:  # covers no new positive: never above a segment
                    if fp == 0:
                        break  # nothing left to cover further down the list
                    continue
                if tp * seg_fp[j] - fp * seg_tp[j] > scale:
                    found_k, found_j = k, j
                    break
            if found_k >= 0:
                break
    return found_k, found_j
