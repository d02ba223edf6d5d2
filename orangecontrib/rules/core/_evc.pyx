# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The EVC beam search (Možina et al. 2019; doc/evc.md).

* :class:`SearchData`: the training data as the search reads it;
* :func:`beam_search`: the whole CN2-style beam search for one rule of one
  target class (candidate generation, class counts, LRS, quality, beam and
  best-rule update) without the GIL, and :func:`permutation_maxima`, the
  searches on one class permutation that the Gumbel fit needs.

How a candidate is scored (the LRS of eq. 14, the chi-square tails, the
extreme value correction, the quality bounds) is ``_evc_quality.pxd``'s,
cimported. All counts are weighted (floats). Orange-free: arrays in,
arrays out.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc, qsort
from libc.string cimport memcpy, memset

from ._bits cimport ctz64
from ._coverage cimport OP_EQ, OP_GE, OP_LE, code_satisfies, coded_class_counts
from ._evc_quality cimport (QUALITY_EVC, QUALITY_LRS, Scorer, XLogX, _chi2_sf, _fill_log,
                            _fill_xlogx, _lrs_t, _score, _score_above, _upper_bound,
                            no_table)

cnp.import_array()

#: the most bytes a search keeps for counting a rule by its parent's counts
#: less the rows it drops (two beams' counts, :func:`_complement_counts`)
cdef Py_ssize_t COMPLEMENT_BYTES = 64 << 20
#: what a pass over a parent's slots costs, in cells counted (_complement_pays)
cdef Py_ssize_t COMPLEMENT_SLOT_COST = 16

# ------------------------------------------------------------ the search data
cdef class SearchData:
    """The training data as the beam search reads it, built once per fit.

    Every attribute is a *feature* of integer codes (``codes``, rows by
    features, ``-1`` for a missing value): a discrete attribute's value indices, or a
    continuous attribute's ordinal bins (one per distinct value, or
    equal-frequency bins, see ``features.ordinal_bins``). ``ordinal[f]``
    says which; slot ``offset[f] + code`` holds, for an ordinal feature, the
    smallest (``lo``) and largest (``hi``) training value of the bin, from
    which thresholds are placed. Discrete features come first, in the order
    of ``EncodedData.Xd``, then the ordinal ones in the order of ``Xc``.

    The kernels read the codes feature by feature (``codes_t``) and as
    slots row by row (``slots``); the codes are not kept a third time.
    Codes built column by column (Fortran order, as
    ``features.search_data`` does) become ``codes_t`` without a copy.

    *Exception counts* (``by_exceptions``): when most cells hold their
    feature's most common code (a bag of words' zeros, a binary attribute),
    the rows are kept instead as the cells that do not (``exc``, a slot, or
    ``-(f + 1)`` for a missing value of feature ``f``), and a parent's class
    counts are those cells' sums, the most common code's counts taken as the
    parent's total less the feature's other codes and missing values. A
    count then costs the rows' exceptions, not rows x features, and the
    row-major slots are not made. The counts are the same to the last bit
    because they are only used with integer weights (``table.exact``),
    whose sums are exact. ``exceptions``: ``None`` (default) uses them when
    the weights allow it and at most a quarter of the cells are exceptions;
    ``True`` / ``False`` force the choice (``True`` needs integer weights).
    """

    cdef readonly object n_bins_arr, ordinal_arr, lo_arr, hi_arr, w_arr
    cdef object __weakref__          # so joblib's Dask backend can scatter it once
    cdef int32_t[:, ::1] slots       # codes + offset[f]: the slot of each cell
    cdef int32_t[:, ::1] codes_t     # the codes, one contiguous column per feature
    cdef int64_t[::1] exc_ptr        # (n + 1): row r's exceptions exc[exc_ptr[r]:exc_ptr[r + 1]]
    cdef int32_t[::1] exc            # a slot, or -(f + 1): feature f missing
    cdef int32_t[::1] mode_slot      # (n_feat): the most common code's slot (-1: none)
    cdef int32_t[::1] slot_feat      # (n_slots): the feature of each slot
    cdef readonly bint by_exceptions
    cdef readonly object exceptions_arg
    cdef int8_t[::1] complete        # 1: the feature has no missing value
    cdef readonly bint positive_weights
    cdef int32_t[::1] offset
    cdef const int32_t[::1] n_bins
    cdef const int8_t[::1] ordinal
    cdef const double[::1] lo, hi, w
    cdef double[::1] xlogx, logk
    cdef XLogX table
    cdef readonly Py_ssize_t n, n_feat, n_slots, max_bins

    def __init__(self, codes, n_bins, ordinal, lo, hi, w, exceptions=None):
        codes = np.asarray(codes)
        if codes.ndim != 2:
            raise ValueError("codes must be two-dimensional (rows, features)")
        codes_t = np.ascontiguousarray(codes.T, dtype=np.int32)
        del codes
        self.n_bins_arr = np.ascontiguousarray(n_bins, dtype=np.int32)
        self.ordinal_arr = np.ascontiguousarray(ordinal, dtype=np.int8)
        self.lo_arr = np.ascontiguousarray(lo, dtype=np.float64)
        self.hi_arr = np.ascontiguousarray(hi, dtype=np.float64)
        self.w_arr = np.ascontiguousarray(w, dtype=np.float64)
        self.n_bins, self.ordinal = self.n_bins_arr, self.ordinal_arr
        self.lo, self.hi, self.w = self.lo_arr, self.hi_arr, self.w_arr
        self.n_feat, self.n = codes_t.shape[0], codes_t.shape[1]
        if self.n_bins.shape[0] != self.n_feat or self.ordinal.shape[0] != self.n_feat:
            raise ValueError("n_bins and ordinal need one entry per feature")
        if self.w.shape[0] != self.n:
            raise ValueError("w needs one weight per row")
        if np.any(self.n_bins_arr < 0):
            raise ValueError("n_bins must be non-negative")
        offset = np.zeros(self.n_feat + 1, dtype=np.int32)
        np.cumsum(self.n_bins_arr, out=offset[1:])
        self.offset = offset
        self.n_slots = int(offset[self.n_feat])
        self.max_bins = int(self.n_bins_arr.max()) if self.n_feat else 0
        if self.lo.shape[0] != self.n_slots or self.hi.shape[0] != self.n_slots:
            raise ValueError("lo and hi need one entry per slot")
        if self.n and np.any((codes_t >= self.n_bins_arr[:, None]) | (codes_t < -1)):
            raise ValueError("a code outside -1..n_bins - 1")
        if not np.all(np.isfinite(self.w_arr)) or np.any(self.w_arr < 0):
            raise ValueError("weights must be finite and non-negative")
        self.positive_weights = bool(np.all(self.w_arr > 0))
        self.codes_t = codes_t.reshape(self.n_feat, self.n)
        self.complete = np.ascontiguousarray(
            np.all(codes_t >= 0, axis=1) if self.n else np.ones(self.n_feat, bool),
            dtype=np.int8).reshape(self.n_feat)
        # x log x for integer counts: only when every weight is an integer
        total = float(self.w_arr.sum())
        if (self.n and np.all(self.w_arr == np.floor(self.w_arr))
                and total <= max(4.0 * self.n, 1024.0)):
            top = int(total)
            table = np.empty(top + 1)
            self.xlogx = table
            _fill_xlogx(&self.xlogx[0], top)
            logk = np.empty(top + 1)
            self.logk = logk
            _fill_log(&self.logk[0], top)
            self.table = XLogX(&self.xlogx[0], <double>top, True, &self.logk[0])
        else:
            self.table = no_table()
        self.exceptions_arg = exceptions
        self._layout(codes_t, offset, exceptions)

    def _layout(self, codes_t, offset, exceptions):
        """The row-major slots, or the exceptions (see the class docstring)."""
        n, F = self.n, self.n_feat
        if exceptions and not self.table.exact:
            raise ValueError("exception counts need integer weights")
        self.slot_feat = np.repeat(np.arange(F, dtype=np.int32),
                                   self.n_bins_arr).astype(np.int32)
        mode = np.full(F, -1, dtype=np.int64)
        n_exc = 0
        if exceptions is not False and self.table.exact and n and F:
            for f in range(F):
                known = codes_t[f][codes_t[f] >= 0]
                if known.shape[0]:
                    counts = np.bincount(known, minlength=self.n_bins_arr[f])
                    mode[f] = int(np.argmax(counts))  # ties: the lowest code
                    n_exc += n - int(counts[mode[f]])
                else:
                    n_exc += n
        self.by_exceptions = bool(exceptions) if exceptions is not None else (
            self.table.exact and n > 0 and F > 0 and 4 * n_exc <= n * F)
        if not self.by_exceptions:
            slots = np.empty((n, F), dtype=np.int32)
            np.add(codes_t.T, offset[:F], out=slots)  # in place: no temporaries
            slots[codes_t.T < 0] = -1                 # the size of the codes
            self.slots = slots
            self.exc_ptr = np.zeros(n + 1, dtype=np.int64)
            self.exc = np.zeros(1, dtype=np.int32)
            self.mode_slot = np.full(max(F, 1), -1, dtype=np.int32)
            return
        self.slots = np.zeros((1, 1), dtype=np.int32)
        self.mode_slot = np.ascontiguousarray(
            np.where(mode >= 0, mode + offset[:F], -1), dtype=np.int32)
        # the exceptions row by row, feature by feature within a row
        rows, feats = np.nonzero(codes_t.T != mode.astype(np.int32)[None, :])
        code = codes_t[feats, rows]
        self.exc = np.ascontiguousarray(
            np.where(code >= 0, code + offset[feats], -(feats + 1)), dtype=np.int32)
        if self.exc.shape[0] == 0:
            self.exc = np.zeros(1, dtype=np.int32)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
        self.exc_ptr = ptr

    @property
    def n_exceptions(self) -> int:
        """Cells that are not their feature's most common code (with
        ``by_exceptions``; else 0)."""
        return int(self.exc_ptr[self.n]) if self.by_exceptions else 0

    @property
    def codes_arr(self):
        """The codes, rows by features (a view of ``codes_t``)."""
        return np.asarray(self.codes_t).reshape(self.n_feat, self.n).T

    def __reduce__(self):
        return SearchData, (self.codes_arr, self.n_bins_arr, self.ordinal_arr,
                            self.lo_arr, self.hi_arr, self.w_arr, self.exceptions_arg)

    def __sizeof__(self):
        """The bytes it holds (what a task would copy if it were pickled)."""
        codes = 4 * self.n * self.n_feat
        layout = (12 * self.n_exceptions + 8 * self.n if self.by_exceptions else codes)
        return int(sum(a.nbytes for a in (self.n_bins_arr, self.ordinal_arr, self.lo_arr,
                                           self.hi_arr, self.w_arr))
                   + codes + layout + 64)



# ------------------------------------------------------------ the beam search
cdef struct Cond:
    int32_t feat
    int8_t op       # OP_EQ, OP_LE or OP_GE
    int32_t code    # EQ: the value; LE: the last bin kept; GE: the first bin kept
    double value    # EQ: the value index; LE/GE: the threshold


cdef struct Cand:
    double s, n, c2, bound   # counts and the bound of the quality
    double q, p, l
    int64_t seq              # the position in the Python search's candidate order
    int32_t parent
    Cond cond


cdef struct Rule:
    int32_t *rows            # covered rows, ascending
    Py_ssize_t n_rows
    double s, n, q
    int32_t n_cond
    Cond *conds              # capacity max_len
    int32_t pidx             # the parent's index in the beam before (-1: the root)
    int32_t *removed         # the parent's rows it does not cover, or NULL (_complement_counts)
    Py_ssize_t n_removed


cdef struct Entry:
    # what one rule covers, kept between the covering searches of a class
    int32_t n_cond           # -1: an empty slot of the table
    uint64_t hash
    Cond *conds              # in canonical order (feature, operator)
    double *sums             # 2 per slot: weight of the other classes, of the target
    uint64_t *present        # slots held by a covered row
    int32_t *upos            # covered rows that were uncovered positives when last seen
    Py_ssize_t n_upos


cdef struct Cache:
    Entry *entries
    Py_ssize_t capacity, n_used, n_slots, n_words
    size_t bytes, budget
    int64_t hits, misses


cdef void _clear_cache(Cache *c) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(c.capacity):
        if c.entries[i].n_cond >= 0:
            free(c.entries[i].conds)
            free(c.entries[i].sums)
            free(c.entries[i].present)
            free(c.entries[i].upos)
            c.entries[i].n_cond = -1
    c.n_used = 0
    c.bytes = 0


cdef class SearchCache:
    """Class counts of the rules a class's covering searches have refined,
    so the next search refines them without counting their rows again.

    Between two covering searches of one class only the split of the target
    class into covered and uncovered examples changes, and only towards
    covered; a rule's per-slot weights of the other classes and of the
    target do not. For a rule seen before, a search takes those and counts
    only the rule's still-uncovered positives (a list that only shrinks).
    Valid for one :class:`SearchData` and one target class, while codes move
    only from 2 to 1; used only with integer weights, where every sum is
    exact, so a search gives the same result with or without it. The
    memory stays below ``budget`` bytes (the table is emptied when full).
    """

    cdef Cache c
    cdef SearchData data

    def __cinit__(self, SearchData data, size_t budget=256 * 2**20,
                  Py_ssize_t capacity=4096):
        cdef Py_ssize_t i
        self.data = data
        self.c.capacity = 1
        while self.c.capacity < capacity:
            self.c.capacity *= 2
        self.c.entries = <Entry *>malloc(self.c.capacity * sizeof(Entry))
        if self.c.entries == NULL:
            raise MemoryError()
        for i in range(self.c.capacity):
            self.c.entries[i].n_cond = -1
        self.c.n_used = 0
        self.c.n_slots = data.n_slots
        self.c.n_words = (data.n_slots >> 6) + 1
        self.c.bytes = 0
        self.c.budget = budget
        self.c.hits = self.c.misses = 0

    def __dealloc__(self):
        if self.c.entries != NULL:
            _clear_cache(&self.c)
            free(self.c.entries)

    @property
    def hits(self):
        return self.c.hits

    @property
    def misses(self):
        return self.c.misses


cdef int _key_order(const void *a, const void *b) noexcept nogil:
    cdef const Cond *x = <const Cond *>a
    cdef const Cond *y = <const Cond *>b
    cdef int kx = x.feat * 3 + x.op, ky = y.feat * 3 + y.op
    return -1 if kx < ky else (1 if kx > ky else 0)


cdef uint64_t _key_hash(const Cond *conds, int32_t n) noexcept nogil:
    cdef uint64_t h = 0xcbf29ce484222325ULL, bits
    cdef int32_t i
    for i in range(n):
        memcpy(&bits, &conds[i].value, sizeof(double))
        h = (h ^ <uint64_t>(conds[i].feat * 3 + conds[i].op)) * 0x100000001b3ULL
        h = (h ^ bits) * 0x100000001b3ULL
    return h ^ (h >> 29)


cdef Entry *_find(Cache *c, const Cond *key, int32_t n, uint64_t h, bint *found) noexcept nogil:
    """The entry of rule ``key`` (canonical), or the empty slot for it."""
    cdef Py_ssize_t i = <Py_ssize_t>(h & <uint64_t>(c.capacity - 1)), j
    cdef Entry *e
    cdef bint same
    while True:
        e = &c.entries[i]
        if e.n_cond < 0:
            found[0] = False
            return e
        if e.hash == h and e.n_cond == n:
            same = True
            for j in range(n):
                if not _same_cond(&e.conds[j], &key[j]):
                    same = False
                    break
            if same:
                found[0] = True
                return e
        i = (i + 1) & (c.capacity - 1)


cdef struct Search:
    # inputs
    const int32_t *slots     # (n, n_feat): the count slot of each cell, -1 missing
    bint by_exc              # count by exceptions (SearchData.by_exceptions) instead
    const int64_t *exc_ptr
    const int32_t *exc
    const int32_t *mode_slot
    const int32_t *slot_feat
    int64_t *exc_rows        # scratch (n_feat): a parent's rows with an exception there
    double *exc_w            # scratch (3 n_feat): their weights by class, or moved weights
    const int32_t *codes_t   # (n_feat, n): the codes by feature
    const int32_t *offset
    bint positive_weights
    const int32_t *n_bins
    const int8_t *ordinal
    const int8_t *complete   # features without a missing value
    const double *lo
    const double *hi
    const double *w
    const int8_t *cls        # 0 negative, 1 covered positive, 2 uncovered positive
    Py_ssize_t n, n_feat, n_slots, max_bins
    Scorer sc
    int beam_width, max_len
    double min_covered, parent_alpha, alpha
    double min_new           # with covering: the least weight of uncovered positives
    bint covering, has_valid, boundary_only
    # state
    double *counts           # 4 per slot; all zero between parents
    uint64_t *present        # slots held by a covered row (bitset)
    Py_ssize_t n_words
    Cand *buf                # candidates of one parent kept for evaluation
    Py_ssize_t n_buf
    Cand *heap               # the next beam, best first
    int n_heap
    Cand level_best
    bint have_level_best
    Cand best
    bint have_best
    int32_t *best_rows
    Py_ssize_t best_n_rows
    int32_t best_n_cond
    Cond *best_conds
    Rule *beam
    Rule *next_beam
    int n_beam
    double *level_lrs
    double level_max
    bint failed
    Cache *cache             # NULL: count every parent's rows
    # counts by complement (_complement_counts): the counts and held slots of
    # the beam's rules as refined (``cur``) and of the beam before (``prev``)
    bint complement
    double *snap_cur
    double *snap_prev
    uint64_t *bits_cur
    uint64_t *bits_prev
    int8_t *ok_cur
    int8_t *ok_prev
    Cond *key                # scratch: a rule's conditions in canonical order
    int32_t *upos            # scratch (n): the uncovered positives of a parent
    # work done, for benchmarks: rows counted, candidates offered and scored
    int64_t n_rows_counted, n_offered, n_scored


cdef inline bint _better(const Cand *a, const Cand *b) noexcept nogil:
    """``a`` comes before ``b`` in the search's order: quality, then LRS,
    then coverage, all descending, then the candidate order."""
    if a.q != b.q:
        return a.q > b.q
    if a.l != b.l:
        return a.l > b.l
    if a.n != b.n:
        return a.n > b.n
    return a.seq < b.seq


cdef inline bint _outranks(const Cand *a, const Cand *b) noexcept nogil:
    """``(q, l, n)`` of ``a`` strictly above ``b``'s (a new best rule)."""
    if a.q != b.q:
        return a.q > b.q
    if a.l != b.l:
        return a.l > b.l
    return a.n > b.n


cdef inline bint _same_cond(const Cond *a, const Cond *b) noexcept nogil:
    return a.feat == b.feat and a.op == b.op and a.value == b.value


cdef bint _same_rule(Search *S, const Cand *a, const Cand *b) noexcept nogil:
    """Whether two candidates of one level are the same set of conditions
    (each set has one condition per attribute and operator)."""
    cdef const Rule *pa = &S.beam[a.parent]
    cdef const Rule *pb = &S.beam[b.parent]
    cdef int i, j
    cdef bint found
    cdef const Cond *x
    if a.s != b.s or a.n != b.n:
        return False  # one set of conditions covers one set of rows
    for i in range(pa.n_cond + 1):
        x = &pa.conds[i] if i < pa.n_cond else &a.cond
        found = False
        for j in range(pb.n_cond + 1):
            if _same_cond(x, &pb.conds[j] if j < pb.n_cond else &b.cond):
                found = True
                break
        if not found:
            return False
    return True


cdef void _heap_push(Search *S, const Cand *c) noexcept nogil:
    """Keep the ``beam_width`` best distinct candidates of the level."""
    cdef int i, k = S.beam_width
    for i in range(S.n_heap):
        if _same_rule(S, &S.heap[i], c):
            if c.seq < S.heap[i].seq:  # the same rule reached earlier in the order
                S.heap[i] = c[0]
                _bubble_up(S.heap, i)
            return
    if S.n_heap < k:
        i = S.n_heap
        S.n_heap += 1
    elif _better(c, &S.heap[k - 1]):
        i = k - 1
    else:
        return
    S.heap[i] = c[0]
    _bubble_up(S.heap, i)


cdef inline void _bubble_up(Cand *heap, int i) noexcept nogil:
    cdef Cand tmp
    while i > 0 and _better(&heap[i], &heap[i - 1]):
        tmp = heap[i]
        heap[i] = heap[i - 1]
        heap[i - 1] = tmp
        i -= 1


cdef inline bint _used(const Rule *r, int32_t feat, int8_t op) noexcept nogil:
    cdef int i
    for i in range(r.n_cond):
        if r.conds[i].feat == feat and r.conds[i].op == op:
            return True
    return False


cdef inline double _bar(Search *S, bint may_win) noexcept nogil:
    """The bound a candidate must reach to matter: to enter the full beam it
    must beat its last rule; to become the best rule (``may_win``: it could
    be valid), the best so far."""
    cdef double beam_bar = S.heap[S.beam_width - 1].q if S.n_heap == S.beam_width else -INFINITY
    cdef double win_bar = -INFINITY
    if not (S.has_valid and may_win):
        return beam_bar
    if S.have_best:
        win_bar = S.best.q
    if S.have_level_best and S.level_best.q > win_bar:
        win_bar = S.level_best.q
    return beam_bar if beam_bar < win_bar else win_bar


cdef inline bint _may_win(const Search *S, double s, double n) noexcept nogil:
    """Only a rule better than the prior can be returned."""
    return s > n * S.sc.prior


cdef void _accept(Search *S, Cand *c, const Rule *parent) noexcept nogil:
    """A scored candidate: if admissible, offer it to the beam and as the
    best rule."""
    S.n_scored += 1
    if not c.q >= parent.q - 1e-12:
        return  # a refinement must not lower the quality
    if S.parent_alpha < 1.0 and \
            _chi2_sf(_lrs_t(c.s, c.n, parent.s, parent.n, &S.sc.table)) > S.parent_alpha:
        return  # the condition is not significant against the parent
    if S.sc.kind == QUALITY_LRS and c.l > S.level_max:
        S.level_max = c.l
    _heap_push(S, c)
    if S.has_valid and c.p <= S.alpha and c.s > c.n * S.sc.prior:
        if not S.have_level_best or _better(c, &S.level_best):
            S.level_best = c[0]
            S.have_level_best = True


cdef void _evaluate(Search *S, Cand *c, const Rule *parent, int L) noexcept nogil:
    """Score a candidate (EVC, m) unless it provably cannot matter."""
    cdef double bar = parent.q - 1e-12
    cdef double relevant = _bar(S, _may_win(S, c.s, c.n))
    if relevant > bar:
        bar = relevant
    if _score_above(&S.sc, c.s, c.n, L, bar, &c.q, &c.p, &c.l):
        _accept(S, c, parent)


cdef inline void _offer(Search *S, const Rule *parent, int32_t b, int L,
                        int32_t feat, int8_t op, int32_t code, double value,
                        const double *cnt, int64_t seq) noexcept nogil:
    """A refinement with class counts ``cnt``: the cheap tests, then (LRS)
    evaluate at once or (EVC, m) keep it for evaluation by bound."""
    cdef Cand c
    S.n_offered += 1
    c.s = cnt[1] + cnt[2]
    c.n = cnt[0] + cnt[1] + cnt[2]
    c.c2 = cnt[2]
    if not c.n >= S.min_covered or not c.n < parent.n * (1 - 1e-12):
        return
    if S.covering and not (c.c2 > 0 and c.c2 >= S.min_new):
        return  # must cover positives not covered yet (at least min_new of them)
    c.seq = seq
    c.parent = b
    c.cond.feat = feat
    c.cond.op = op
    c.cond.code = code
    c.cond.value = value
    if S.sc.kind == QUALITY_LRS:
        # the LRS is the quality: cheap, so scored at once; a candidate that
        # cannot reach its parent or the beam changes nothing (the level's
        # largest LRS is at least the beam's)
        c.l = _lrs_t(c.s, c.n, S.sc.S, S.sc.N, &S.sc.table)
        if c.l < parent.q - 1e-12 or (S.n_heap == S.beam_width
                                      and c.l < S.heap[S.beam_width - 1].q):
            return
        c.q = c.l
        c.p = 1.0
        _accept(S, &c, parent)
        return
    c.bound = _upper_bound(&S.sc, c.s, c.n, L)
    if c.bound < parent.q - 1e-12 or c.bound < _bar(S, _may_win(S, c.s, c.n)):
        return
    S.buf[S.n_buf] = c
    S.n_buf += 1


cdef struct Order:
    double bound
    Py_ssize_t i


cdef inline bint _before(const Order *x, const Order *y) noexcept nogil:
    """``x`` is evaluated before ``y``: larger bound first, then earlier."""
    return x.bound > y.bound or (x.bound == y.bound and x.i < y.i)


cdef void _sift_down(Order *h, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t c
    cdef Order tmp
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and _before(&h[c + 1], &h[c]):
            c += 1
        if not _before(&h[c], &h[i]):
            return
        tmp = h[i]
        h[i] = h[c]
        h[c] = tmp
        i = c


cdef Order _pop(Order *h, Py_ssize_t *n) noexcept nogil:
    """The first candidate of the max-heap ``h`` of ``n`` entries (removed):
    a heap instead of a sort, since the evaluation usually stops early."""
    cdef Order top = h[0]
    n[0] -= 1
    h[0] = h[n[0]]
    _sift_down(h, 0, n[0])
    return top


cdef inline double _threshold(double a, double b) noexcept nogil:
    """A threshold between training values ``a < b``: their midpoint (halves
    added, so no overflow near the largest doubles)."""
    return 0.5 * a + 0.5 * b


cdef inline Py_ssize_t _next_present(const uint64_t *bits, Py_ssize_t k,
                                     Py_ssize_t end) noexcept nogil:
    """The first slot ``>= k`` and ``< end`` whose bit is set, else ``end``."""
    cdef Py_ssize_t j
    cdef uint64_t word
    if k >= end:
        return end
    j = k >> 6
    word = bits[j] & (~(<uint64_t>0) << (k & 63))
    while True:
        if word:
            k = (j << 6) + ctz64(word)
            return k if k < end else end
        j += 1
        if (j << 6) >= end:
            return end
        word = bits[j]


cdef void _exception_counts(Search *S, const Rule *parent) noexcept nogil:
    """:func:`coded_class_counts` with ``S.present`` by the parent's rows'
    exceptions (``SearchData.by_exceptions``): the other slots' counts and
    the missing values' weights by one pass over the exceptions, then each
    feature's most common slot as the parent's total less those. Exact for
    integer weights (their sums are)."""
    cdef Py_ssize_t r, p, f, k, m, F = S.n_feat
    cdef int64_t i
    cdef int32_t e
    cdef int c
    cdef double wi, v
    cdef double total[3]
    cdef double *cnt = S.counts
    total[0] = total[1] = total[2] = 0
    memset(S.exc_rows, 0, F * sizeof(int64_t))
    memset(S.exc_w, 0, 3 * F * sizeof(double))
    for r in range(parent.n_rows):
        i = parent.rows[r]
        c = S.cls[i]
        wi = S.w[i]
        total[c] += wi
        for p in range(S.exc_ptr[i], S.exc_ptr[i + 1]):
            e = S.exc[p]
            if e >= 0:
                cnt[4 * e + c] += wi
                S.present[e >> 6] |= (<uint64_t>1) << (e & 63)
                S.exc_rows[S.slot_feat[e]] += 1
            else:
                S.exc_w[3 * (-e - 1) + c] += wi
                S.exc_rows[-e - 1] += 1
    for f in range(F):
        m = S.mode_slot[f]
        if m < 0 or S.exc_rows[f] >= parent.n_rows:
            continue  # no row of the parent has the most common code
        for c in range(3):
            v = total[c] - S.exc_w[3 * f + c]
            for k in range(S.offset[f], S.offset[f + 1]):
                if k != m:
                    v -= cnt[4 * k + c]
            cnt[4 * m + c] = v
        S.present[m >> 6] |= (<uint64_t>1) << (m & 63)


cdef void _move_by_exceptions(Search *S, const int32_t *rows, Py_ssize_t n_rows) noexcept nogil:
    """The weight of ``rows`` (positives of the parent no longer uncovered)
    moved from class 1 to class 2 in every slot they hold, by their
    exceptions and, for the most common slots, by what the exceptions
    leave (exact for integer weights)."""
    cdef Py_ssize_t r, p, f, m, F = S.n_feat
    cdef int32_t e
    cdef double wi, moved = 0, d
    cdef double *cnt = S.counts
    memset(S.exc_w, 0, F * sizeof(double))
    for r in range(n_rows):
        wi = S.w[rows[r]]
        moved += wi
        for p in range(S.exc_ptr[rows[r]], S.exc_ptr[rows[r] + 1]):
            e = S.exc[p]
            if e >= 0:
                cnt[4 * e + 1] -= wi
                cnt[4 * e + 2] += wi
                S.exc_w[S.slot_feat[e]] += wi
            else:
                S.exc_w[-e - 1] += wi
    if n_rows == 0:
        return
    for f in range(F):
        m = S.mode_slot[f]
        d = moved - S.exc_w[f]
        if m >= 0 and d != 0:
            cnt[4 * m + 1] -= d
            cnt[4 * m + 2] += d


cdef void _complement_counts(Search *S, const Rule *r) noexcept nogil:
    """The class counts of every slot over ``r``'s rows as its parent's
    counts (kept when the parent was refined, ``S.snap_prev``) less the
    counts of the parent's rows ``r`` does not cover (``r.removed``, fewer
    than its own rows). Exact for integer weights (every sum is an exact
    integer, whatever the order), and with positive weights a slot is held
    iff its counts are not all zero. Used only then (``S.complement``)."""
    cdef Py_ssize_t k, base = <Py_ssize_t>r.pidx * 4 * S.n_slots
    cdef const double *pc = S.snap_prev + base
    cdef const uint64_t *pb = S.bits_prev + <Py_ssize_t>r.pidx * S.n_words
    cdef double *cnt = S.counts
    cdef double a, b, c
    coded_class_counts(S.slots, S.n_feat, r.removed, r.n_removed, S.cls, S.w, cnt, NULL)
    k = _next_present(pb, 0, S.n_slots)
    while k < S.n_slots:
        a = pc[4 * k] - cnt[4 * k]
        b = pc[4 * k + 1] - cnt[4 * k + 1]
        c = pc[4 * k + 2] - cnt[4 * k + 2]
        cnt[4 * k], cnt[4 * k + 1], cnt[4 * k + 2] = a, b, c
        if a + b + c > 0:
            S.present[k >> 6] |= (<uint64_t>1) << (k & 63)
        k = _next_present(pb, k + 1, S.n_slots)


cdef void _snapshot(Search *S, int32_t b) noexcept nogil:
    """Keep beam rule ``b``'s counts and held slots (just counted) for its
    refinements in the next beam (:func:`_complement_counts`)."""
    cdef Py_ssize_t k
    cdef double *out = S.snap_cur + <Py_ssize_t>b * 4 * S.n_slots
    memcpy(S.bits_cur + <Py_ssize_t>b * S.n_words, S.present, S.n_words * sizeof(uint64_t))
    k = _next_present(S.present, 0, S.n_slots)
    while k < S.n_slots:
        out[4 * k] = S.counts[4 * k]
        out[4 * k + 1] = S.counts[4 * k + 1]
        out[4 * k + 2] = S.counts[4 * k + 2]
        k = _next_present(S.present, k + 1, S.n_slots)
    S.ok_cur[b] = 1


cdef void _count(Search *S, const Rule *parent) noexcept nogil:
    """Class counts of every slot over the parent's rows into ``S.counts``
    (and ``S.present``): from the cache when the rule was refined before,
    else by one pass over its rows (then kept in the cache)."""
    cdef Cache *c = S.cache
    cdef Entry *e
    cdef bint found
    cdef uint64_t h
    cdef Py_ssize_t k, r, m, f, F = S.n_feat
    cdef double *cnt = S.counts
    cdef const int32_t *row
    cdef double wi
    if c != NULL:
        memcpy(S.key, parent.conds, parent.n_cond * sizeof(Cond))
        qsort(S.key, parent.n_cond, sizeof(Cond), _key_order)
        h = _key_hash(S.key, parent.n_cond)
        e = _find(c, S.key, parent.n_cond, h, &found)
        if found:
            c.hits += 1
            memcpy(S.present, e.present, S.n_words * sizeof(uint64_t))
            k = _next_present(S.present, 0, S.n_slots)
            while k < S.n_slots:
                cnt[4 * k] = e.sums[2 * k]
                cnt[4 * k + 1] = e.sums[2 * k + 1]
                k = _next_present(S.present, k + 1, S.n_slots)
            m = 0  # the positives still uncovered: move their weight to class 2
            for r in range(e.n_upos):
                if S.cls[e.upos[r]] == 2:
                    e.upos[m] = e.upos[r]
                    m += 1
            e.n_upos = m
            S.n_rows_counted += m
            if S.by_exc:
                _move_by_exceptions(S, e.upos, m)
                return
            for r in range(m):
                row = S.slots + e.upos[r] * F
                wi = S.w[e.upos[r]]
                for f in range(F):
                    k = row[f]
                    if k >= 0:
                        cnt[4 * k + 1] -= wi
                        cnt[4 * k + 2] += wi
            return
    memset(S.present, 0, S.n_words * sizeof(uint64_t))
    if S.complement and parent.removed != NULL and S.ok_prev[parent.pidx]:
        S.n_rows_counted += parent.n_removed
        _complement_counts(S, parent)
    elif S.by_exc:
        S.n_rows_counted += parent.n_rows
        _exception_counts(S, parent)
    elif S.positive_weights and parent.n_rows * F >= S.n_slots:
        # many rows: a slot is held iff it has weight; find them afterwards
        S.n_rows_counted += parent.n_rows
        coded_class_counts(S.slots, F, parent.rows, parent.n_rows, S.cls, S.w, cnt, NULL)
        for k in range(S.n_slots):
            if cnt[4 * k] + cnt[4 * k + 1] + cnt[4 * k + 2] > 0:
                S.present[k >> 6] |= (<uint64_t>1) << (k & 63)
    else:
        S.n_rows_counted += parent.n_rows
        coded_class_counts(S.slots, F, parent.rows, parent.n_rows, S.cls, S.w, cnt,
                           S.present)
    if c == NULL:
        return
    c.misses += 1
    if c.n_used * 2 >= c.capacity or c.bytes > c.budget:
        _clear_cache(c)
        e = _find(c, S.key, parent.n_cond, h, &found)
    e.conds = <Cond *>malloc((parent.n_cond + 1) * sizeof(Cond))
    e.sums = <double *>calloc(2 * S.n_slots + 1, sizeof(double))
    e.present = <uint64_t *>malloc(S.n_words * sizeof(uint64_t))
    m = 0  # the uncovered positives, in one pass
    for r in range(parent.n_rows):
        S.upos[m] = parent.rows[r]
        m += S.cls[parent.rows[r]] == 2
    e.upos = <int32_t *>malloc((m + 1) * sizeof(int32_t))
    if e.conds == NULL or e.sums == NULL or e.present == NULL or e.upos == NULL:
        free(e.conds)
        free(e.sums)
        free(e.present)
        free(e.upos)
        S.failed = True
        return
    e.n_cond = parent.n_cond
    e.hash = h
    memcpy(e.conds, S.key, parent.n_cond * sizeof(Cond))
    memcpy(e.present, S.present, S.n_words * sizeof(uint64_t))
    k = _next_present(S.present, 0, S.n_slots)
    while k < S.n_slots:
        e.sums[2 * k] = cnt[4 * k]
        e.sums[2 * k + 1] = cnt[4 * k + 1] + cnt[4 * k + 2]
        k = _next_present(S.present, k + 1, S.n_slots)
    memcpy(e.upos, S.upos, m * sizeof(int32_t))
    e.n_upos = m
    c.n_used += 1
    c.bytes += (2 * S.n_slots + S.n_words * 4 + m) * 8 + 256


cdef void _refine(Search *S, int32_t b, int L) noexcept nogil:
    """All one-condition refinements of beam rule ``b``: ``A = v`` of every
    discrete feature, ``A <= t`` and ``A >= t`` at every threshold of every
    ordinal feature. Each gets its position in the Python search's order
    (discrete first, then all ``<=``, then all ``>=``) as ``seq``, so the
    order in which they are visited here does not matter."""
    cdef const Rule *parent = &S.beam[b]
    cdef double *cnt = S.counts
    cdef Py_ssize_t f, k, first, end, prev, i, F = S.n_feat, stride = S.max_bins + 1
    cdef double below[3]
    cdef double total[3]
    cdef double above[3]
    cdef double shared[3]
    cdef bint have_shared = False
    cdef double t_le, t_ge, a, z
    cdef double *slot
    cdef int c
    cdef int64_t seq_eq, seq_le, seq_ge
    cdef bint use_eq, use_le, use_ge
    cdef Order *order
    cdef Py_ssize_t n_left
    cdef Cand *cand
    _count(S, parent)
    if S.failed:
        return
    if S.complement and _complement_pays(S, parent.n_rows, 0):
        _snapshot(S, b)  # a refinement may be counted by complement
    S.n_buf = 0
    for f in range(F):
        first, end = S.offset[f], S.offset[f + 1]
        seq_eq = ((<int64_t>b * 3 + 0) * F + f) * stride - first
        seq_le = ((<int64_t>b * 3 + 1) * F + f) * stride - first
        seq_ge = ((<int64_t>b * 3 + 2) * F + f) * stride - first
        if not S.ordinal[f]:
            use_eq = not _used(parent, <int32_t>f, OP_EQ)
            k = _next_present(S.present, first, end)
            while k < end:
                slot = &cnt[4 * k]
                if use_eq and slot[0] + slot[1] + slot[2] > 0:
                    _offer(S, parent, b, L, <int32_t>f, OP_EQ, <int32_t>(k - first),
                           <double>(k - first), slot, seq_eq + k)
                slot[0] = slot[1] = slot[2] = 0
                k = _next_present(S.present, k + 1, end)
            continue
        use_le = not _used(parent, <int32_t>f, OP_LE)
        use_ge = not _used(parent, <int32_t>f, OP_GE)
        total[0] = total[1] = total[2] = 0
        if use_ge and S.complete[f] and have_shared:
            # every row has a code: the totals are the parent's, as summed
            # for the first such feature
            total[0], total[1], total[2] = shared[0], shared[1], shared[2]
        elif use_ge:
            k = _next_present(S.present, first, end)
            while k < end:
                for c in range(3):
                    total[c] += cnt[4 * k + c]
                k = _next_present(S.present, k + 1, end)
            if S.complete[f]:
                shared[0], shared[1], shared[2] = total[0], total[1], total[2]
                have_shared = True
        below[0] = below[1] = below[2] = 0
        prev = -1
        k = _next_present(S.present, first, end)
        while k < end:
            slot = &cnt[4 * k]
            if prev >= 0 and (use_le or use_ge) and not (
                    S.boundary_only and _same_pure_class(&cnt[4 * prev], slot)):
                a, z = S.hi[prev], S.lo[k]  # the values either side of the cut
                t_le = t_ge = _threshold(a, z)
                if t_le >= z:  # adjacent doubles: no value strictly between
                    t_le = a
                if t_ge <= a:
                    t_ge = z
                if use_le:
                    _offer(S, parent, b, L, <int32_t>f, OP_LE, <int32_t>(prev - first),
                           t_le, below, seq_le + k)
                if use_ge:
                    for c in range(3):
                        above[c] = total[c] - below[c]
                    _offer(S, parent, b, L, <int32_t>f, OP_GE, <int32_t>(k - first),
                           t_ge, above, seq_ge + k)
            if prev >= 0:
                cnt[4 * prev] = cnt[4 * prev + 1] = cnt[4 * prev + 2] = 0
            for c in range(3):
                below[c] += slot[c]
            prev = k
            k = _next_present(S.present, k + 1, end)
        if prev >= 0:
            cnt[4 * prev] = cnt[4 * prev + 1] = cnt[4 * prev + 2] = 0
    if S.sc.kind == QUALITY_LRS or S.n_buf == 0:
        return
    # evaluate the kept candidates, most promising first, while they can matter
    order = <Order *>malloc(S.n_buf * sizeof(Order))
    if order == NULL:
        S.failed = True
        return
    for i in range(S.n_buf):
        order[i].bound = S.buf[i].bound
        order[i].i = i
    n_left = S.n_buf
    for i in range(n_left // 2 - 1, -1, -1):
        _sift_down(order, i, n_left)
    while n_left:
        cand = &S.buf[_pop(order, &n_left).i]
        if cand.bound < _bar(S, True):
            break  # by bound: nothing further can enter the beam or win
        if cand.bound < _bar(S, _may_win(S, cand.s, cand.n)):
            continue
        _evaluate(S, cand, parent, L)
    free(order)


cdef inline bint _same_pure_class(const double *a, const double *b) noexcept nogil:
    """Whether the cut between two bins is not a boundary point: the covered
    examples of both are all of the target class, or all of other classes
    (Fayyad & Irani 1992)."""
    cdef bint pos = a[1] + a[2] > 0 or b[1] + b[2] > 0
    cdef bint neg = a[0] > 0 or b[0] > 0
    return not (pos and neg)


cdef Py_ssize_t _filter_rows(const Search *S, const int32_t *rows, Py_ssize_t n_rows,
                             const Cond *cond, int32_t *out) noexcept nogil:
    cdef Py_ssize_t r, m = 0
    cdef const int32_t *col = S.codes_t + cond.feat * S.n
    for r in range(n_rows):
        if code_satisfies(col[rows[r]], cond.op, cond.code):
            out[m] = rows[r]
            m += 1
    return m


cdef inline bint _complement_pays(const Search *S, Py_ssize_t kept,
                                  Py_ssize_t dropped) noexcept nogil:
    """Whether counting ``dropped`` rows and subtracting from the parent's
    counts is cheaper than counting ``kept`` rows: a row costs a cell's
    count per feature, the passes over the parent's slots (its snapshot,
    the subtraction) about sixteen cells a slot (``COMPLEMENT_SLOT_COST``,
    :func:`complement_bytes`). The factor was measured:
    at 2 and 8 the permutation searches on 360 x 90 x 15 (240 rows, 1,530
    slots) took 1.08 and 1.02 of the time they take counting every rule's
    own rows, at 16 1.00, and those on 5000 x 40 x 11 0.79 to 0.82 at
    every factor (``2e64135:benchmarks/probes/evc_complement_counts.py``)."""
    return (kept - dropped) * S.n_feat > COMPLEMENT_SLOT_COST * S.n_slots


cdef void _split_rows(const Search *S, const Rule *par, const Cond *cond,
                      Rule *child) noexcept nogil:
    """``child.rows``: the rows of ``par`` satisfying ``cond``; and, when
    counting the others is cheaper (:func:`_complement_pays`), those in
    ``child.removed`` (so its counts are its parent's less theirs,
    :func:`_complement_counts`)."""
    cdef Py_ssize_t r, m = 0, k = 0
    cdef const int32_t *col = S.codes_t + cond.feat * S.n
    cdef int32_t *removed = <int32_t *>malloc((par.n_rows + 1) * sizeof(int32_t))
    if removed == NULL:  # no memory to spare: count the rows themselves
        child.n_rows = _filter_rows(S, par.rows, par.n_rows, cond, child.rows)
        return
    for r in range(par.n_rows):
        if code_satisfies(col[par.rows[r]], cond.op, cond.code):
            child.rows[m] = par.rows[r]
            m += 1
        else:
            removed[k] = par.rows[r]
            k += 1
    child.n_rows = m
    if _complement_pays(S, m, k):
        child.removed = removed
        child.n_removed = k
    else:
        free(removed)


cdef void _swap_snapshots(Search *S) noexcept nogil:
    cdef double *d = S.snap_cur
    cdef uint64_t *u = S.bits_cur
    cdef int8_t *o = S.ok_cur
    S.snap_cur, S.snap_prev = S.snap_prev, d
    S.bits_cur, S.bits_prev = S.bits_prev, u
    S.ok_cur, S.ok_prev = S.ok_prev, o
    memset(S.ok_cur, 0, S.beam_width * sizeof(int8_t))


cdef bint _alloc_rule(Rule *r, Py_ssize_t n_rows, int max_len) noexcept nogil:
    r.rows = <int32_t *>malloc((n_rows if n_rows > 0 else 1) * sizeof(int32_t))
    r.conds = <Cond *>malloc(max_len * sizeof(Cond))
    r.pidx = -1
    r.removed = NULL
    r.n_removed = 0
    return r.rows != NULL and r.conds != NULL


cdef void _free_beam(Rule *beam, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        free(beam[i].rows)
        free(beam[i].conds)
        free(beam[i].removed)
        beam[i].rows = NULL
        beam[i].conds = NULL
        beam[i].removed = NULL


cdef inline double _reach(const Search *S, const Rule *r, int L) noexcept nogil:
    """The best quality a refinement of ``r`` of length ``L`` can have. A
    refinement covers ``s <= s_r`` positives among ``n >= s`` examples, and
    ``q(s, n) <= q(s, s)`` (for fixed ``s`` the corrected quality does not
    rise with ``n``: the LRS falls, and so does the proportion that reaches
    the corrected LRS) ``<= max_{k <= s_r} q(k, k)``, tabulated per class."""
    cdef long k
    if S.sc.reach == NULL or L > S.max_len or r.s != <double>(<long>r.s):
        return INFINITY
    k = <long>r.s
    if k > S.sc.reach_top:
        k = S.sc.reach_top
    return S.sc.reach[(L - 1) * (S.sc.reach_top + 1) + k]


cdef bint _may_improve(Search *S, const Rule *r, int L) noexcept nogil:
    """Whether some refinement of ``r`` of a length ``>= L`` could still be
    returned: beat the best rule found so far."""
    cdef int j
    if not S.have_best:
        return True
    for j in range(L, S.max_len + 1):
        if _reach(S, r, j) >= S.best.q:
            return True
    return False


cdef void _search(Search *S) noexcept nogil:
    """Algorithm of the EVC rule search (doc/evc.md): CN2-style beam
    search from the empty rule, one condition per level."""
    cdef int L, b, i
    cdef Py_ssize_t r
    cdef Rule *tmp
    cdef Rule *child
    cdef const Rule *par
    cdef double q0, p0, l0, bar
    cdef bint hope
    # the root: every row, the data's counts and quality
    S.n_beam = 1
    if not _alloc_rule(&S.beam[0], S.n, S.max_len):
        S.failed = True
        return
    for r in range(S.n):
        S.beam[0].rows[r] = <int32_t>r
    S.beam[0].n_rows = S.n
    S.beam[0].s = S.sc.S
    S.beam[0].n = S.sc.N
    _score(&S.sc, S.sc.S, S.sc.N, 1, &q0, &p0, &l0)
    S.beam[0].q = q0
    S.beam[0].n_cond = 0
    S.have_best = False
    for L in range(1, S.max_len + 1):
        S.n_heap = 0
        S.have_level_best = False
        S.level_max = 0.0
        for b in range(S.n_beam):
            if S.sc.reach != NULL:
                bar = _bar(S, True)
                if bar < S.beam[b].q - 1e-12:
                    bar = S.beam[b].q - 1e-12
                if _reach(S, &S.beam[b], L) < bar:
                    continue  # no refinement can enter the beam or win
            _refine(S, b, L)
            if S.failed:
                return
        if S.n_heap == 0:
            break
        S.level_lrs[L - 1] = S.level_max
        if S.have_level_best and (not S.have_best or _outranks(&S.level_best, &S.best)):
            S.best = S.level_best
            S.have_best = True
            par = &S.beam[S.best.parent]
            S.best_n_rows = _filter_rows(S, par.rows, par.n_rows, &S.best.cond, S.best_rows)
            for i in range(par.n_cond):
                S.best_conds[i] = par.conds[i]
            S.best_conds[par.n_cond] = S.best.cond
            S.best_n_cond = par.n_cond + 1
        # the next beam: the heap's rules, best first
        for i in range(S.n_heap):
            par = &S.beam[S.heap[i].parent]
            child = &S.next_beam[i]
            if not _alloc_rule(child, par.n_rows, S.max_len):
                S.failed = True
                _free_beam(S.next_beam, i + 1)
                return
            if S.complement and S.ok_cur[S.heap[i].parent]:
                _split_rows(S, par, &S.heap[i].cond, child)
                child.pidx = S.heap[i].parent
            else:
                child.n_rows = _filter_rows(S, par.rows, par.n_rows, &S.heap[i].cond,
                                            child.rows)
            child.s = S.heap[i].s
            child.n = S.heap[i].n
            child.q = S.heap[i].q
            memcpy(child.conds, par.conds, par.n_cond * sizeof(Cond))
            child.conds[par.n_cond] = S.heap[i].cond
            child.n_cond = par.n_cond + 1
        _free_beam(S.beam, S.n_beam)
        tmp = S.beam
        S.beam = S.next_beam
        S.next_beam = tmp
        S.n_beam = S.n_heap
        if S.complement:  # the parents' counts become the beam before's
            _swap_snapshots(S)
        if S.sc.reach != NULL and S.has_valid and S.have_best:
            hope = False  # only the best rule is returned: stop when it is safe
            for b in range(S.n_beam):
                if _may_improve(S, &S.beam[b], L + 1):
                    hope = True
                    break
            if not hope:
                break


cdef bint _init_search(Search *S, SearchData data, const int8_t *cls, int quality,
                       double S_, double N_, const double *mu, const double *beta,
                       double m, double alpha, int beam_width, int max_len,
                       double min_covered, double parent_alpha, bint covering,
                       double min_new,
                       bint has_valid, bint boundary_only, double *level_lrs,
                       int32_t *best_rows, double *pure, long pure_top,
                       const double *reach, long reach_top,
                       Cache *cache) noexcept nogil:
    cdef Py_ssize_t per_parent
    S.slots = &data.slots[0, 0] if data.n and data.n_feat else NULL
    S.by_exc = data.by_exceptions
    S.exc_ptr = &data.exc_ptr[0]
    S.exc = &data.exc[0]
    S.mode_slot = &data.mode_slot[0]
    S.slot_feat = &data.slot_feat[0] if data.n_slots else NULL
    S.exc_rows = <int64_t *>calloc(data.n_feat + 1, sizeof(int64_t))
    S.exc_w = <double *>calloc(3 * (data.n_feat + 1), sizeof(double))
    S.codes_t = &data.codes_t[0, 0] if data.n and data.n_feat else NULL
    S.positive_weights = data.positive_weights
    S.offset = &data.offset[0]
    S.n_bins = &data.n_bins[0] if data.n_feat else NULL
    S.ordinal = &data.ordinal[0] if data.n_feat else NULL
    S.complete = &data.complete[0] if data.n_feat else NULL
    S.lo = &data.lo[0] if data.n_slots else NULL
    S.hi = &data.hi[0] if data.n_slots else NULL
    S.w = &data.w[0] if data.n else NULL
    S.cls = cls
    S.n, S.n_feat, S.n_slots, S.max_bins = data.n, data.n_feat, data.n_slots, data.max_bins
    S.sc.kind = quality
    S.sc.S, S.sc.N = S_, N_
    S.sc.prior = S_ / N_ if N_ > 0 else 0.0
    S.sc.m = m
    S.sc.mu, S.sc.beta = mu, beta
    S.sc.table = data.table
    S.sc.pure, S.sc.pure_top = pure, (pure_top if pure != NULL else -1)
    S.sc.reach = reach if quality == QUALITY_EVC else NULL
    S.sc.reach_top = reach_top
    S.beam_width, S.max_len = beam_width, max_len
    S.min_covered = min_covered if min_covered > 1e-12 else 1e-12
    S.parent_alpha, S.alpha = parent_alpha, alpha
    S.covering, S.has_valid, S.boundary_only = covering, has_valid, boundary_only
    S.min_new = min_new
    S.level_lrs = level_lrs
    S.best_rows = best_rows
    S.best_n_rows = 0
    S.best_n_cond = 0
    S.failed = False
    S.cache = cache if data.table.exact else NULL  # exact sums only
    S.key = <Cond *>malloc((max_len + 1) * sizeof(Cond))
    S.upos = <int32_t *>malloc((data.n + 1) * sizeof(int32_t))
    S.n_rows_counted = S.n_offered = S.n_scored = 0
    per_parent = 2 * data.n_slots + 1
    S.counts = <double *>calloc(4 * (data.n_slots + 1), sizeof(double))
    S.n_words = (data.n_slots >> 6) + 1
    S.present = <uint64_t *>malloc(S.n_words * sizeof(uint64_t))
    S.buf = <Cand *>malloc(per_parent * sizeof(Cand))
    S.heap = <Cand *>malloc(beam_width * sizeof(Cand))
    S.best_conds = <Cond *>malloc(max_len * sizeof(Cond))
    S.beam = <Rule *>malloc(beam_width * sizeof(Rule))
    S.next_beam = <Rule *>malloc(beam_width * sizeof(Rule))
    S.n_beam = 0
    # counts by complement: integer weights (exact sums), positive ones (a
    # held slot has weight), the row-major slots, no cache of counted rules
    # (a covering loop finds most rules there, so keeping every beam rule's
    # counts and its dropped rows only costs: Rule Scoring on 5000 x 40 x 11
    # took 1.4 times as long), and the beam's kept counts within
    # COMPLEMENT_BYTES (else every parent's rows are counted)
    S.complement = (data.table.exact and data.positive_weights and not data.by_exceptions
                    and S.cache == NULL and data.n_feat > 0
                    and 2 * beam_width * (4 * data.n_slots * 8 + S.n_words * 8)
                    <= COMPLEMENT_BYTES)
    S.snap_cur = S.snap_prev = NULL
    S.bits_cur = S.bits_prev = NULL
    S.ok_cur = S.ok_prev = NULL
    if S.complement:
        S.snap_cur = <double *>malloc(beam_width * 4 * data.n_slots * sizeof(double))
        S.snap_prev = <double *>malloc(beam_width * 4 * data.n_slots * sizeof(double))
        S.bits_cur = <uint64_t *>malloc(beam_width * S.n_words * sizeof(uint64_t))
        S.bits_prev = <uint64_t *>malloc(beam_width * S.n_words * sizeof(uint64_t))
        S.ok_cur = <int8_t *>calloc(beam_width, sizeof(int8_t))
        S.ok_prev = <int8_t *>calloc(beam_width, sizeof(int8_t))
        if (S.snap_cur == NULL or S.snap_prev == NULL or S.bits_cur == NULL
                or S.bits_prev == NULL or S.ok_cur == NULL or S.ok_prev == NULL):
            S.complement = False  # count every parent's rows instead
    return (S.counts != NULL and S.present != NULL and S.key != NULL and S.upos != NULL
            and S.exc_rows != NULL and S.exc_w != NULL and S.buf != NULL and S.heap != NULL
            and S.best_conds != NULL and S.beam != NULL and S.next_beam != NULL)


cdef void _free_search(Search *S) noexcept nogil:
    if S.beam != NULL:
        _free_beam(S.beam, S.n_beam)
    free(S.counts)
    free(S.present)
    free(S.exc_rows)
    free(S.exc_w)
    free(S.key)
    free(S.upos)
    free(S.buf)
    free(S.heap)
    free(S.best_conds)
    free(S.beam)
    free(S.next_beam)
    free(S.snap_cur)
    free(S.snap_prev)
    free(S.bits_cur)
    free(S.bits_prev)
    free(S.ok_cur)
    free(S.ok_prev)


def _check_search(SearchData data, cls, mu, beta, int beam_width, int max_len):
    if beam_width < 1 or max_len < 1:
        raise ValueError("beam_width and max_rule_length must be at least 1")
    if cls.shape[0] != data.n:
        raise ValueError("the class codes need one entry per row")
    if data.n and (cls.min() < 0 or cls.max() > 2):
        raise ValueError("the pseudo-class codes must be 0, 1 or 2")
    if mu.shape[0] < max_len or beta.shape[0] < max_len:
        raise ValueError("mu and beta need one entry per rule length")
    if (<int64_t>beam_width * 3 * (data.n_feat + 1) * (data.max_bins + 1)
            > (<int64_t>1 << 62)):
        raise ValueError("too many candidates for one search")


_last_work = (0, 0, 0)


def complement_bytes(n=None, slot_cost=None):
    """The most bytes a search keeps to count a rule as its parent's
    counts less the rows it drops (``_complement_counts``; default 64 MiB)
    and the cost of a pass over a parent's slots in cells counted, by
    which it decides when that pays (``_complement_pays``; default 16).
    With ``n`` or ``slot_cost``, set them (``n=0``: always count a rule's
    own rows; ``slot_cost=0``: by complement whenever a rule drops fewer
    rows than it keeps; for tests and benchmarks). Returns both as they
    were."""
    global COMPLEMENT_BYTES, COMPLEMENT_SLOT_COST
    old = (COMPLEMENT_BYTES, COMPLEMENT_SLOT_COST)
    if (n is not None and n < 0) or (slot_cost is not None and slot_cost < 0):
        raise ValueError("complement_bytes and slot_cost must be >= 0")
    if n is not None:
        COMPLEMENT_BYTES = n
    if slot_cost is not None:
        COMPLEMENT_SLOT_COST = slot_cost
    return old


def last_search_work():
    """``(rows counted, candidates offered, candidates scored)`` of the last
    :func:`beam_search` call (for benchmarks and tests of the pruning)."""
    return _last_work


def beam_search(SearchData data, const int8_t[::1] cls, int quality, double S,
                double N, const double[::1] mu, const double[::1] beta,
                double m=2.0, double alpha=1.0, int beam_width=10,
                int max_rule_length=5, double min_covered=1.0,
                double parent_alpha=1.0, bint covering=True,
                bint has_valid=True, bint boundary_only=True, double[:, ::1] pure=None,
                SearchCache cache=None, const double[:, ::1] reach=None,
                double min_new=0.0):
    """The best rule for the target class coded in ``cls`` (0 negative, 1
    positive already covered, 2 positive not covered yet) by a beam search
    of ``beam_width`` and depth ``max_rule_length`` (doc/evc.md
    rule search).

    ``quality``: :class:`Quality`; ``S``, ``N``: the weight of the target
    class and of all rows; ``mu``, ``beta``: the Gumbel parameters of rule
    lengths 1, 2, ...; ``m``: the m-estimate's ``m``. A refinement must
    change the coverage, cover at least ``min_covered``, not lower the
    quality, be significant against its parent at ``parent_alpha`` and,
    with ``covering``, cover positives not covered yet, at least ``min_new``
    of their weight (and more than 0). With ``has_valid``
    a rule is returned only if ``P_a <= alpha`` and it is better than the
    prior. ``boundary_only``: thresholds only between bins whose examples
    are not all of one class (else between every two values).

    Returns ``(conditions, stats, level_lrs, mask)``: ``conditions`` a list
    of ``(feature, op, value)`` (``None`` if no rule was found), ``stats``
    ``(s, n, q, p, lrs)``, ``level_lrs`` the largest LRS of an admissible
    refinement per length (with ``QUALITY_LRS`` only), ``mask`` the rows the
    rule covers.
    """
    _check_search(data, np.asarray(cls), np.asarray(mu), np.asarray(beta),
                  beam_width, max_rule_length)
    level_arr = np.zeros(max_rule_length)
    rows_arr = np.zeros(max(data.n, 1), dtype=np.int32)
    cdef double[::1] level = level_arr
    cdef int32_t[::1] rows = rows_arr
    cdef Search Sx
    cdef bint ok
    cdef int i
    feat_arr = np.zeros(max_rule_length, dtype=np.int32)
    op_arr = np.zeros(max_rule_length, dtype=np.int8)
    value_arr = np.zeros(max_rule_length)
    cdef const double *reach_ptr = NULL
    cdef long reach_top = -1
    if reach is not None:
        if reach.shape[0] < max_rule_length or reach.shape[1] == 0:
            raise ValueError("reach needs one row per rule length")
        reach_ptr = &reach[0, 0]
        reach_top = reach.shape[1] - 1
    cdef Cache *cache_ptr = NULL
    if cache is not None:
        if cache.data is not data:
            raise ValueError("the cache belongs to other search data")
        cache_ptr = &cache.c
    cdef double *pure_ptr = NULL
    cdef long pure_top = -1
    if pure is not None and pure.shape[0] >= max_rule_length and pure.shape[1] > 0:
        pure_ptr = &pure[0, 0]
        pure_top = pure.shape[1] - 1
    cdef int32_t[::1] feat = feat_arr
    cdef int8_t[::1] op = op_arr
    cdef double[::1] value = value_arr
    with nogil:
        ok = _init_search(&Sx, data, &cls[0] if data.n else NULL, quality, S, N,
                          &mu[0], &beta[0], m, alpha, beam_width, max_rule_length,
                          min_covered, parent_alpha, covering, min_new, has_valid,
                          boundary_only, &level[0], &rows[0], pure_ptr, pure_top,
                          reach_ptr, reach_top, cache_ptr)
        if ok:
            _search(&Sx)
            for i in range(Sx.best_n_cond if Sx.have_best else 0):
                feat[i] = Sx.best_conds[i].feat
                op[i] = Sx.best_conds[i].op
                value[i] = Sx.best_conds[i].value
        _free_search(&Sx)
    if not ok or Sx.failed:
        raise MemoryError("out of memory in the EVC beam search")
    global _last_work
    _last_work = (Sx.n_rows_counted, Sx.n_offered, Sx.n_scored)
    mask = np.zeros(data.n, dtype=bool)
    if not Sx.have_best:
        return None, None, level_arr, mask
    mask[rows_arr[:Sx.best_n_rows]] = True
    conds = [(int(feat_arr[i]), int(op_arr[i]), float(value_arr[i]))
             for i in range(Sx.best_n_cond)]
    stats = (Sx.best.s, Sx.best.n, Sx.best.q, Sx.best.p, Sx.best.l)
    return conds, stats, level_arr, mask



def permutation_maxima(SearchData data, const int32_t[::1] y,
                       const int32_t[::1] classes, const double[::1] S,
                       double N, int beam_width=10, int max_rule_length=5,
                       double min_covered=1.0, bint boundary_only=True):
    """The Gumbel fit's searches on one permutation ``y`` of the class
    column: for each target class in ``classes`` (with weight ``S[i]``), the
    largest LRS of a rule of each length found by the beam search with the
    LRS as its quality (the paper's Fig. 8). Returns ``(len(classes),
    max_rule_length)``; a class without weight gets zeros."""
    cdef Py_ssize_t k, i, n = data.n, n_cls = classes.shape[0]
    if y.shape[0] != n or S.shape[0] != n_cls:
        raise ValueError("y needs one class per row and S one weight per class")
    zeros = np.zeros(max_rule_length)
    _check_search(data, np.zeros(n, np.int8), zeros, zeros, beam_width, max_rule_length)
    out_arr = np.zeros((n_cls, max_rule_length))
    cls_arr = np.zeros(max(n, 1), dtype=np.int8)
    rows_arr = np.zeros(max(n, 1), dtype=np.int32)
    cdef double[:, ::1] out = out_arr
    cdef int8_t[::1] cls = cls_arr
    cdef int32_t[::1] rows = rows_arr
    cdef double[::1] z = zeros
    cdef Search Sx
    cdef bint ok = True
    with nogil:
        for k in range(n_cls):
            if S[k] <= 0:
                continue  # a class absent from the data: nothing to search
            for i in range(n):
                cls[i] = 2 if y[i] == classes[k] else 0
            ok = _init_search(&Sx, data, &cls[0], QUALITY_LRS, S[k], N, &z[0], &z[0],
                              0.0, 1.0, beam_width, max_rule_length, min_covered,
                              1.0, False, 0.0, False, boundary_only, &out[k, 0], &rows[0],
                              NULL, -1, NULL, -1, NULL)
            if ok:
                _search(&Sx)
            ok = ok and not Sx.failed
            _free_search(&Sx)
            if not ok:
                break
    if not ok:
        raise MemoryError("out of memory in the EVC beam search")
    return out_arr
