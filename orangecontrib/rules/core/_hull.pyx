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
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memmove, memset

cnp.import_array()

from ._bits cimport popcount64, word_weight


cdef inline void _counts(const uint64_t *bits, const uint64_t *minus,
                         const uint64_t *pos, const double *w, bint unit,
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
        tp[0] += word_weight(word & pos[j], j, w, unit)
        fp[0] += word_weight(word & ~pos[j], j, w, unit)


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
                _counts(&bits[k, 0], &zero[0], &pos[0], &w[0], is_unit, W, &tp[k], &fp[k])
    return tp_arr, fp_arr


BAD_CANDIDATES = ("cand_ends must rise by at least 1 up to len(cand_items), "
                  "cand_items index item_bits")


cdef struct Insertion:
    # the candidates, as first_insertion reads them
    const uint64_t *item_bits   # (n_items, W)
    const int32_t *cand_items
    const int32_t *cand_ends
    const double *cand_tp
    const double *cand_fp
    Py_ssize_t K, n_items, n_flat, W
    const uint64_t *pos
    const double *w
    bint unit
    double scale, skip_below


cdef void _insertion_setup(Insertion *q, double sum_w) noexcept nogil:
    """The tolerances of :func:`first_insertion`'s comparisons."""
    q.scale = sum_w ** 2 * 1e-12
    # weights other than one sum with rounding in another order than the
    # miner's: skip a segment only when its bound fails by more than that
    q.skip_below = q.scale - (0.0 if q.unit else 1e-9 * sum_w ** 2)


cdef const uint64_t *_candidate_bits(Insertion *q, Py_ssize_t k,
                                     uint64_t *scratch) noexcept nogil:
    """Candidate ``k``'s coverage, the AND of its items' bitsets: its one
    item's row, or ``scratch`` holding the AND; NULL if its items are out of
    range (checked here, for the candidates read: a check of all of them
    would cost more than the search on each call)."""
    cdef Py_ssize_t W = q.W, a = q.cand_ends[k - 1] if k else 0, b = q.cand_ends[k], i, j
    cdef const uint64_t *bits
    if not 0 <= a < b <= q.n_flat:
        return NULL
    for i in range(a, b):
        if not 0 <= q.cand_items[i] < q.n_items:
            return NULL
    bits = q.item_bits + q.cand_items[a] * W
    if b - a == 1:
        return bits
    for j in range(W):
        scratch[j] = bits[j]
    for i in range(a + 1, b):
        bits = q.item_bits + q.cand_items[i] * W
        for j in range(W):
            scratch[j] &= bits[j]
    return scratch


cdef int _first_insertion(Insertion *q, Py_ssize_t start, const uint64_t *unions,
                          Py_ssize_t L1, const double *seg_tp, const double *seg_fp,
                          double *rest_tp, double *in_fp, uint64_t *scratch,
                          Py_ssize_t *found_k, Py_ssize_t *found_j) noexcept nogil:
    """TryToInsertRule for candidates ``start, start + 1, ...`` (see
    :func:`first_insertion`): ``found_k``, ``found_j`` (-1, -1 if none);
    ``rest_tp``, ``in_fp`` and ``scratch`` are room for ``L1``, ``L1`` and
    ``W`` values. Returns -1 if the candidates' items are out of range."""
    cdef Py_ssize_t W = q.W, k, j
    cdef double tp, fp, known_tp, known_fp, known_in_fp
    cdef const uint64_t *bits
    cdef bint built
    found_k[0] = found_j[0] = -1
    if W == 0:
        return 0
    # positives outside U_j and negatives inside it, from the segments
    # (sums in the order of numpy's cumsum)
    rest_tp[L1 - 1] = seg_tp[L1 - 1]
    for j in range(L1 - 2, -1, -1):
        rest_tp[j] = rest_tp[j + 1] + seg_tp[j]
    in_fp[0] = 0.0
    for j in range(1, L1):
        in_fp[j] = in_fp[j - 1] + seg_fp[j - 1]
    for k in range(start, q.K):
        built = False
        # the last counts known: past U_j0 (j0 = 0: the candidate's own)
        known_tp, known_fp, known_in_fp = q.cand_tp[k], q.cand_fp[k], 0.0
        for j in range(L1):
            if (min(known_tp, rest_tp[j]) * seg_fp[j]
                    - max(known_fp - (in_fp[j] - known_in_fp), 0.0) * seg_tp[j]
                    <= q.skip_below):
                continue  # not above segment j even at best
            if not built:  # its coverage, once per candidate
                bits = _candidate_bits(q, k, scratch)
                if bits == NULL:
                    return -1
                built = True
            _counts(bits, unions + j * W, q.pos, q.w, q.unit, W, &tp, &fp)
            known_tp, known_fp, known_in_fp = tp, fp, in_fp[j]
            if tp == 0:  # covers no new positive: never above a segment
                if fp == 0:
                    break  # nothing left to cover further down the list
                continue
            if tp * seg_fp[j] - fp * seg_tp[j] > q.scale:
                found_k[0], found_j[0] = k, j
                return 0
    return 0


cdef int _insertion_from(Insertion *q, const uint64_t[:, ::1] item_bits,
                         const int32_t[::1] cand_items, const int32_t[::1] cand_ends,
                         const double[::1] cand_tp, const double[::1] cand_fp,
                         const uint64_t[::1] pos, const double[::1] w, unit, total) except -1:
    """``q`` reads these candidates (checked against each other)."""
    _check(item_bits, pos, w)
    q.K, q.W = cand_ends.shape[0], item_bits.shape[1]
    q.n_items, q.n_flat = item_bits.shape[0], cand_items.shape[0]
    if cand_tp.shape[0] != q.K or cand_fp.shape[0] != q.K:
        raise ValueError("cand_tp and cand_fp need one weight per candidate")
    q.item_bits = &item_bits[0, 0] if q.n_items and q.W else NULL
    q.cand_items = &cand_items[0] if q.n_flat else NULL
    q.cand_ends = &cand_ends[0] if q.K else NULL
    q.cand_tp = &cand_tp[0] if q.K else NULL
    q.cand_fp = &cand_fp[0] if q.K else NULL
    q.pos = &pos[0] if q.W else NULL
    q.w = &w[0] if w.shape[0] else NULL
    q.unit = equal_weights(w) if unit is None else unit
    _insertion_setup(q, float(np.asarray(w).sum()) if total is None else total)
    return 0


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
    cdef Insertion q
    _insertion_from(&q, item_bits, cand_items, cand_ends, cand_tp, cand_fp, pos, w,
                    unit, total)
    cdef Py_ssize_t L1 = unions.shape[0], k = -1, j = -1
    if unions.shape[1] != q.W or seg_tp.shape[0] != L1 or seg_fp.shape[0] != L1 or L1 < 1:
        raise ValueError("unions and segments do not match")
    if start < 0:
        raise ValueError("start must be non-negative")
    if q.W == 0:
        return -1, -1
    rest_arr, in_arr, scratch_arr = np.empty(L1), np.empty(L1), np.empty(q.W, np.uint64)
    cdef double[::1] rest_tp = rest_arr
    cdef double[::1] in_fp = in_arr
    cdef uint64_t[::1] scratch = scratch_arr
    cdef int err
    with nogil:
        err = _first_insertion(&q, start, &unions[0, 0], L1, &seg_tp[0], &seg_fp[0],
                               &rest_tp[0], &in_fp[0], &scratch[0], &k, &j)
    if err:
        raise ValueError(BAD_CANDIDATES)
    return k, j


cdef enum:
    CONVEX = 0
    EMPTY = 1
    COLLINEAR = 2
    CONCAVE = 3


cdef Py_ssize_t _first_concavity(const double *fp, const double *tp, Py_ssize_t L1,
                                 double end_fp, double end_tp, int *kind) noexcept nogil:
    """:func:`first_concavity` on ``L1`` points: the point's index, and its
    ``kind``, or 0 (``kind`` CONVEX)."""
    cdef Py_ssize_t i
    cdef double dx1, dy1, dx2, dy2, nx, ny, cross, tol
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
            kind[0] = EMPTY
            return i + 1
        if cross >= -tol:
            kind[0] = CONCAVE if cross > tol else COLLINEAR
            return i + 1
    kind[0] = CONVEX
    return 0


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
    cdef int kind = CONVEX
    if tp.shape[0] != L1:
        raise ValueError("fp and tp differ in length")
    if L1 < 2:
        return None
    i = _first_concavity(&fp[0], &tp[0], L1, end_fp, end_tp, &kind)
    if kind == CONVEX:
        return None
    return i, ("empty" if kind == EMPTY else "concave" if kind == CONCAVE else "collinear")


cdef int _resize(void **p, size_t size) noexcept nogil:
    """``p[0]`` reallocated to ``size`` bytes; -1 (``p[0]`` as it was) if out
    of memory."""
    cdef void *q = realloc(p[0], size)
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef class HullSelection:
    """Algorithm 1 for one class, in compiled code: the candidates (as
    :func:`first_insertion` reads them) go in their order into the list
    ``[R_default]`` by TryToInsertRule, and after each insertion the list is
    repaired until its curve is strictly convex (Section 3): at a concave
    point of rule ``r``, that rule is removed if it is the inserted one or
    comes after it, else it is merged with the next one into a disjunction;
    a rule that adds nothing is removed, one collinear with the next merged
    with it (next to the default rule: removed).

    :meth:`run` inserts up to a given number of candidates at a time without
    the GIL, so the caller can report progress (and cancel) between calls;
    :meth:`entries` gives the list. The arithmetic is that of
    :func:`first_insertion`, :func:`first_concavity` and
    :func:`coverage_counts` on the unions of the list's prefixes, the same
    as when Python drives them (``tests/roccer_reference.py``).

    The list's entries are rows of a pool of bitsets, in list order by
    ``slot``; each entry's candidates a chain through ``nxt`` (a merge joins
    two chains); ``unions[e]`` is ``U_e`` and ``tp[e]``, ``fp[e]`` its
    weights, for ``e = 0..L``."""

    cdef Insertion q
    cdef object keep  # the arrays q points into
    cdef double P, N
    cdef readonly Py_ssize_t start, L
    cdef Py_ssize_t cap, n_free
    cdef uint64_t *pool
    cdef uint64_t *unions
    cdef uint64_t *scratch
    cdef uint64_t *zero
    cdef int32_t *slot
    cdef int32_t *free_slots
    cdef int32_t *head
    cdef int32_t *tail
    cdef int32_t *nxt
    cdef double *tp
    cdef double *fp
    cdef double *seg_tp
    cdef double *seg_fp
    cdef double *rest_tp
    cdef double *in_fp

    def __cinit__(self):
        self.pool = self.unions = self.scratch = self.zero = NULL
        self.slot = self.free_slots = self.head = self.tail = self.nxt = NULL
        self.tp = self.fp = self.seg_tp = self.seg_fp = self.rest_tp = self.in_fp = NULL
        self.cap = 0

    def __init__(self, item_bits, cand_items, cand_ends, cand_tp, cand_fp, pos, w,
                 double P, double N, unit=None, total=None):
        """The candidates and the class as for :func:`first_insertion`;
        ``P``, ``N``: the weights of the class and of the rest."""
        if self.cap:
            raise RuntimeError("a HullSelection is initialised once")
        arrays = (np.ascontiguousarray(item_bits, dtype=np.uint64),
                  np.ascontiguousarray(cand_items, dtype=np.int32),
                  np.ascontiguousarray(cand_ends, dtype=np.int32),
                  np.ascontiguousarray(cand_tp, dtype=float),
                  np.ascontiguousarray(cand_fp, dtype=float),
                  np.ascontiguousarray(pos, dtype=np.uint64),
                  np.ascontiguousarray(w, dtype=float))
        self.keep = arrays
        _insertion_from(&self.q, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4],
                        arrays[5], arrays[6], unit, total)
        self.P, self.N = P, N
        self.start, self.L = 0, 0
        W = self.q.W
        self.scratch = <uint64_t *>calloc(max(W, 1), sizeof(uint64_t))
        self.zero = <uint64_t *>calloc(max(W, 1), sizeof(uint64_t))
        self.nxt = <int32_t *>malloc(max(self.q.K, 1) * sizeof(int32_t))
        if self.scratch == NULL or self.zero == NULL or self.nxt == NULL:
            raise MemoryError()
        if self._grow(16):
            raise MemoryError()
        self.tp[0] = self.fp[0] = 0.0

    def __dealloc__(self):
        free(self.pool)
        free(self.unions)
        free(self.scratch)
        free(self.zero)
        free(self.slot)
        free(self.free_slots)
        free(self.head)
        free(self.tail)
        free(self.nxt)
        free(self.tp)
        free(self.fp)
        free(self.seg_tp)
        free(self.seg_fp)
        free(self.rest_tp)
        free(self.in_fp)

    cdef int _grow(self, Py_ssize_t cap) noexcept nogil:
        """Room for ``cap`` entries (and ``cap + 1`` points); -1 if out of
        memory. The pool's free slots are the new ones."""
        cdef Py_ssize_t W = max(self.q.W, 1), c
        cdef size_t n = cap, n1 = cap + 1
        if (_resize(<void **>&self.pool, n * W * sizeof(uint64_t))
                or _resize(<void **>&self.unions, n1 * W * sizeof(uint64_t))
                or _resize(<void **>&self.slot, n * sizeof(int32_t))
                or _resize(<void **>&self.free_slots, n * sizeof(int32_t))
                or _resize(<void **>&self.head, n * sizeof(int32_t))
                or _resize(<void **>&self.tail, n * sizeof(int32_t))
                or _resize(<void **>&self.tp, n1 * sizeof(double))
                or _resize(<void **>&self.fp, n1 * sizeof(double))
                or _resize(<void **>&self.seg_tp, n1 * sizeof(double))
                or _resize(<void **>&self.seg_fp, n1 * sizeof(double))
                or _resize(<void **>&self.rest_tp, n1 * sizeof(double))
                or _resize(<void **>&self.in_fp, n1 * sizeof(double))):
            return -1
        if self.cap == 0:
            memset(self.unions, 0, W * sizeof(uint64_t))  # U_0: empty
        for c in range(cap - 1, self.cap - 1, -1):  # the new slots are free
            self.free_slots[self.n_free] = <int32_t>c
            self.n_free += 1
        self.cap = cap
        return 0

    cdef void _points(self, Py_ssize_t start) noexcept nogil:
        """``unions``, ``tp``, ``fp`` of the entries from ``start`` on (the
        ones before are unchanged)."""
        cdef Py_ssize_t W = self.q.W, e, i
        cdef uint64_t *u
        cdef const uint64_t *b
        for e in range(start, self.L):
            u = self.unions + (e + 1) * W
            b = self.pool + self.slot[e] * W
            for i in range(W):
                u[i] = self.unions[e * W + i] | b[i]
        for e in range(start, self.L):
            _counts(self.unions + (e + 1) * W, self.zero, self.q.pos, self.q.w, self.q.unit,
                    W, &self.tp[e + 1], &self.fp[e + 1])

    cdef void _remove(self, Py_ssize_t r) noexcept nogil:
        """Entry ``r`` leaves the list (its slot is free again)."""
        self.free_slots[self.n_free] = self.slot[r]
        self.n_free += 1
        memmove(self.slot + r, self.slot + r + 1, (self.L - r - 1) * sizeof(int32_t))
        self.L -= 1

    cdef void _repair(self, Py_ssize_t inserted) noexcept nogil:
        """After inserting entry ``inserted``: until the curve is strictly
        convex (the removals and merges of the class docstring)."""
        cdef Py_ssize_t W = self.q.W, r, i, start = inserted
        cdef int kind
        cdef bint last
        cdef uint64_t *a
        cdef const uint64_t *b
        while True:
            self._points(start)
            r = _first_concavity(self.fp, self.tp, self.L + 1, self.N, self.P, &kind) - 1
            if kind == CONVEX:
                return
            start = r  # entries before r are not touched below
            last = r == self.L - 1
            if kind == EMPTY or (kind == COLLINEAR and last) or (
                    kind == CONCAVE and (inserted < 0 or r >= inserted)):
                self._remove(r)
                if inserted >= 0 and r == inserted:
                    inserted = -1
                elif inserted >= 0 and r < inserted:
                    inserted -= 1
            else:  # rules r and r + 1 become their disjunction
                a = self.pool + self.slot[r] * W
                b = self.pool + self.slot[r + 1] * W
                for i in range(W):
                    a[i] |= b[i]
                self.nxt[self.tail[self.slot[r]]] = self.head[self.slot[r + 1]]
                self.tail[self.slot[r]] = self.tail[self.slot[r + 1]]
                self._remove(r + 1)
                if inserted >= 0 and inserted > r:
                    inserted -= 1

    cdef int _insert_next(self) noexcept nogil:
        """TryToInsertRule for the candidates from ``start`` on, then the
        repair: 1 if one was inserted, 0 if none is left, -1 on an item out
        of range, -2 out of memory."""
        cdef Py_ssize_t W = self.q.W, L = self.L, j, k, s
        if self.start >= self.q.K or W == 0:
            self.start = self.q.K
            return 0
        for j in range(L):  # rise and run of each segment, the last to (N, P)
            self.seg_tp[j] = self.tp[j + 1] - self.tp[j]
            self.seg_fp[j] = self.fp[j + 1] - self.fp[j]
        self.seg_tp[L] = self.P - self.tp[L]
        self.seg_fp[L] = self.N - self.fp[L]
        if _first_insertion(&self.q, self.start, self.unions, L + 1, self.seg_tp,
                            self.seg_fp, self.rest_tp, self.in_fp, self.scratch, &k, &j):
            return -1
        if k < 0:
            self.start = self.q.K
            return 0
        if L + 1 >= self.cap and self._grow(2 * self.cap):
            return -2
        self.n_free -= 1
        s = self.free_slots[self.n_free]
        # its coverage (first_insertion built it, its items are in range)
        memcpy(self.pool + s * W, _candidate_bits(&self.q, k, self.scratch),
               W * sizeof(uint64_t))
        self.head[s] = self.tail[s] = <int32_t>k
        self.nxt[k] = -1
        memmove(self.slot + j + 1, self.slot + j, (L - j) * sizeof(int32_t))
        self.slot[j] = <int32_t>s
        self.L += 1
        self._repair(j)
        self.start = k + 1
        return 1

    def run(self, Py_ssize_t max_insertions):
        """Insert up to ``max_insertions`` candidates (each with its
        repair); ``True`` while candidates are left to try."""
        cdef Py_ssize_t n = 0
        cdef int got = 1
        with nogil:
            while n < max_insertions:
                got = self._insert_next()
                if got <= 0:
                    break
                n += 1
        if got == -1:
            raise ValueError(BAD_CANDIDATES)
        if got == -2:
            raise MemoryError()
        return self.start < self.q.K

    def entries(self):
        """The list without the default rule: per entry ``(candidates,
        coverage bitset)``, the candidates in the order they joined it."""
        cdef Py_ssize_t e, W = self.q.W
        cdef int32_t k
        cdef uint64_t[::1] view
        out = []
        for e in range(self.L):
            members = []
            k = self.head[self.slot[e]]
            while k >= 0:
                members.append(int(k))
                k = self.nxt[k]
            bits = np.empty(W, np.uint64)
            if W:
                view = bits
                memcpy(&view[0], self.pool + self.slot[e] * W, W * sizeof(uint64_t))
            out.append((members, bits))
        return out
