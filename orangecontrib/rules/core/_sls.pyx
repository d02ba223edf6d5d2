# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Stochastic local search for k-term DNF (Rückert & Kramer 2006,
Algorithm 1; Rückert & Kramer 2003), on coded attributes.

An attribute is *nominal* (codes are values; a literal is ``A = v``) or
*ordinal* (codes are the bins of a numeric column; a literal is a bound,
``A >= cut_j``, i.e. ``code >= j``, or ``A < cut_{j+1}``, i.e. ``code <= j``).
A rule holds at most one literal on a nominal attribute and at most a lower
and an upper bound on an ordinal one (an interval, never empty). A missing
value (code -1) satisfies no literal. A rule set covers what any of its
rules covers and predicts the positive class there; the score to minimise is
the weight of the misclassified examples.

Coverage is kept as one bitset per rule, and every literal and every value
or bin has its bitset (:class:`SLSData`, built once per fit and shared by all
searches). A generalisation tests each literal of the rule that the example
violates on those bitsets. A specialisation scores every literal it may add
from the class weights, per value or bin, of the examples only the rule
covers, counted in one pass (by example when they are few, else by
popcounts of the bins' bitsets) and read with prefix sums over the bins of
ordinal attributes: ``O(examples x attributes)`` or ``O(bins x words)``,
whichever is less, plus ``O(literals)``, instead of one bitset pass per
literal. With equal weights only the positives minus the negatives per
slot are needed: each rule keeps them for its last ``N_KEPT`` counted
sets and brings the nearest up to date the cheapest way, by the examples
that entered or left its only-covered set since, by the set's examples, by
the examples outside it or by popcounts (:func:`_kept_differences`; exact
integers, so the same choices).

Where the CPU has AVX-512 (checked at run time, ``_sls_count.h``), the
examples are added to those counts by masked byte adds, 64 slots at a time,
in *prefix form* (per ordinal bound the examples it uncovers, so the scoring
needs no prefix sums: :meth:`SLSData._vector_layout`); the candidates are
scored 16 at a time; and with VPOPCNTDQ the passes over the examples' words
(the only-covered set, the distances to the kept sets, the misclassified
examples, a generalisation's newly covered ones) use vector popcounts.
Same integers, so the same searches as the scalar loops, which every other
CPU runs. Without AVX-512 (the AVX2 path and the scalar loops) the
candidates are read off the slots' bits: the example's mask in prefix form
splits the slots the rule leaves open into its lower and its upper bounds,
and the lowest change and its ties are found over those bits, not
attribute by attribute (:func:`_best_by_bits`).

The random numbers come from a splitmix64 generator seeded by the caller, so
a search depends on its seed only.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport (INT32_MAX, INT32_MIN, INT64_MAX, int8_t, int32_t, int64_t, uint8_t,
                          uint64_t)
from libc.math cimport INFINITY, fabs
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

cnp.import_array()

from ._bits cimport ctz64, popcount64, word_weight

cdef extern from "_sls_count.h" nogil:
    void init_tables "rules_sls_init"()
    int simd_available "rules_sls_simd_available"()
    int avx2_available "rules_sls_avx2_available"()
    int avx2_by_cpuid_c "rules_sls_avx2_by_cpuid"()
    void count_packed_avx2 "rules_sls_count_packed_avx2"(
        const uint64_t *masks, Py_ssize_t G, const uint64_t *plus, const uint64_t *minus,
        Py_ssize_t W, int32_t *d, int32_t *idx, Py_ssize_t n)
    Py_ssize_t best_literals_prefix "rules_sls_best_literals_prefix"(
        const int32_t *D, int32_t total, Py_ssize_t A, const int32_t *xv, const int32_t *lo,
        const int32_t *hi, const int32_t *off, const int32_t *nb, const int32_t *first_lit,
        const int8_t *ordinal, const int8_t *has_missing, int32_t *ties)
    void planes_to_counts "rules_sls_planes_to_counts"(const uint64_t *plane, int32_t *out)
    void sliced_count "rules_sls_sliced"(const uint64_t *masks, Py_ssize_t G,
                                          const int32_t *idx, Py_ssize_t n, int32_t *out)
    enum: SLICED_GROUPS "RULES_SLS_SLICED_GROUPS"
    void count_packed "rules_sls_count_packed"(
        const uint64_t *masks, Py_ssize_t G, const uint64_t *plus, const uint64_t *minus,
        Py_ssize_t W, int32_t *d)
    int vpopcnt_available "rules_sls_vpopcnt_available"()
    void only_set "rules_sls_only_set"(
        const uint64_t *cov, const uint64_t *others, const uint64_t *pos, Py_ssize_t W,
        uint64_t *only, uint64_t *only_pos, uint64_t *only_neg, int64_t *counts)
    void others_of "rules_sls_others"(const uint64_t *cov, Py_ssize_t k, Py_ssize_t t,
                                       Py_ssize_t W, uint64_t *others)
    void changes "rules_sls_changes"(const uint64_t *now, uint64_t *before, const uint64_t *pos,
                                      Py_ssize_t W, uint64_t *plus, uint64_t *minus)
    void distances "rules_sls_distances"(const uint64_t *now, const uint64_t *sets,
                                          Py_ssize_t n, Py_ssize_t W, Py_ssize_t *out)
    Py_ssize_t misclassified "rules_sls_misclassified"(
        const uint64_t *pos, const uint64_t *covered, const uint64_t *valid, Py_ssize_t W,
        uint64_t *mis)
    Py_ssize_t uncovered_delta "rules_sls_uncovered_delta"(
        const uint64_t *bits, const uint64_t *covered, const uint64_t *pos, Py_ssize_t W)
    # _candidate in integers: keep the literals of the lowest change so far,
    # in literal order (one definition for the Cython and the C scoring)
    void keep "rules_sls_keep"(int32_t delta, int32_t lit, int32_t *best,
                               Py_ssize_t *n_ties, int32_t *ties)
    void group_extremes "rules_sls_group_extremes"(const int32_t *d, uint64_t lw, uint64_t uw,
                                                    int32_t *lmin, int32_t *umax)
    void group_extremes_avx2 "rules_sls_group_extremes_avx2"(
        const int32_t *d, uint64_t lw, uint64_t uw, int32_t *lmin, int32_t *umax)
    void group_ties "rules_sls_group_ties"(const int32_t *d, int64_t a, int64_t b,
                                            uint64_t *el, uint64_t *eu)
    void group_ties_avx2 "rules_sls_group_ties_avx2"(const int32_t *d, int64_t a, int64_t b,
                                                      uint64_t *el, uint64_t *eu)
    int32_t free_range "rules_sls_free_range"(int32_t v, int32_t nbm, int8_t ordinal,
                                              int32_t lo, int32_t hi, int32_t *r)
    Py_ssize_t best_literals "rules_sls_best_literals"(
        const int32_t *D, int32_t total, Py_ssize_t A, const int32_t *xv, const int32_t *lo,
        const int32_t *hi, const int32_t *off, const int32_t *nb, const int32_t *first_lit,
        const int8_t *ordinal, const int8_t *has_missing, int32_t *scratch, int32_t *ties)


init_tables()


def avx2_by_cpuid():
    """True if CPUID says this CPU has AVX2 (with BMI1 and POPCNT) and the
    operating system saves its registers: how a Windows (MSVC) build
    chooses the AVX2 path; GCC and Clang builds ask the compiler's
    ``__builtin_cpu_supports``. False where no AVX2 code is built."""
    return bool(avx2_by_cpuid_c())


#: the kernel's code paths, each using less of the CPU than the next
SIMD_LEVELS = ("scalar", "avx2", "avx512bw", "avx512")


def simd_paths():
    """The paths this CPU and build can run: ``scalar`` always, ``avx2``
    (AVX2 counting), ``avx512bw`` (AVX-512 counting and scoring) and
    ``avx512`` (with VPOPCNTDQ popcount passes) where available."""
    out = ["scalar"]
    if avx2_available():
        out.append("avx2")
    if simd_available():
        out.append("avx512bw")
        if vpopcnt_available():
            out.append("avx512")
    return out


def simd_level(simd=None):
    """The path a search takes: ``simd=None`` reads the environment variable
    ``ORANGE_RULES_SIMD`` (``scalar``, ``avx2``, ``avx512bw`` or ``avx512``: the
    most the kernel may use; unset: the most this CPU can run), ``True``
    the most available, ``False`` the scalar loops; a level the CPU cannot
    run falls to the most it can. The searches are the same on every path."""
    import os
    if simd is None:
        simd = os.environ.get("ORANGE_RULES_SIMD", "").strip().lower() or True
    paths = simd_paths()
    best = paths[len(paths) - 1]  # (no negative indices: wraparound is off here)
    if simd is True:
        return best
    if simd is False:
        return "scalar"
    if simd not in SIMD_LEVELS:
        raise ValueError(f"ORANGE_RULES_SIMD must be one of {', '.join(SIMD_LEVELS)}; "
                         f"got {simd!r}")
    return min(simd, best, key=SIMD_LEVELS.index)


# ------------------------------------------------------------ random numbers

ctypedef void (*extremes_f)(const int32_t *, uint64_t, uint64_t, int32_t *,
                            int32_t *) noexcept nogil
ctypedef void (*ties_f)(const int32_t *, int64_t, int64_t, uint64_t *, uint64_t *) noexcept nogil


cdef inline uint64_t _next(uint64_t *state) noexcept nogil:
    """splitmix64 (Steele, Lea & Flood 2014)."""
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double _uniform(uint64_t *state) noexcept nogil:
    """A double in [0, 1)."""
    return (_next(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline Py_ssize_t _randint(uint64_t *state, Py_ssize_t n) noexcept nogil:
    """An integer in [0, n), n > 0."""
    return <Py_ssize_t>(_uniform(state) * n)


cdef inline bint _take(double value, double *best, Py_ssize_t *n_tied,
                       uint64_t *state) noexcept nogil:
    """Keep a running minimum with ties broken uniformly at random (reservoir
    sampling): True if ``value`` becomes the current choice."""
    if value < best[0]:
        best[0] = value
        n_tied[0] = 1
        return True
    if value == best[0]:
        n_tied[0] += 1
        return _randint(state, n_tied[0]) == 0
    return False


# ------------------------------------------------------------ the data

cdef inline void _set_run(uint64_t *words, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Set the bits ``lo..hi-1`` of the bitset ``words`` (none if ``hi <= lo``),
    a word at a time: an example's slots of an ordinal attribute are a run."""
    cdef Py_ssize_t j, first, last
    cdef uint64_t low, high
    if hi <= lo:
        return
    first, last = lo >> 6, (hi - 1) >> 6
    low = (~<uint64_t>0) << (lo & 63)
    high = (~<uint64_t>0) >> (63 - ((hi - 1) & 63))
    if first == last:
        words[first] |= low & high
        return
    words[first] |= low
    for j in range(first + 1, last):
        words[j] = ~<uint64_t>0
    words[last] |= high


cdef class SLSData:
    """The training data of the search, built once per fit and read by
    every search (all classes, all ``k``, all rule sets; threads share it).

    ``codes`` ``(m, n_attrs)`` int32: the value (nominal) or bin (ordinal)
    of each example, ``-1`` missing; ``n_bins``: values or bins per
    attribute; ``ordinal``: 1 for ordinal attributes; ``w``: example weights
    (examples of weight 0 take no part); ``simd``: the code path,
    :func:`simd_level` (``None``, the default: the environment variable
    ``ORANGE_RULES_SIMD`` or the most the CPU can run; ``False``: the scalar
    loops; a level name; the searches are the same on every path);
    ``fixed_stride`` (tests: ``False``) lets the scalar loops count with the
    same number of slots per attribute where that is cheap (``stride``; 0
    on the vector paths, which count from their masks); ``by_bits`` (tests
    and measurements: ``False``) lets every path score the candidate
    literals by the slots' bits where it can (``by_bits``).

    The bitsets are built here, per attribute: one per value or bin
    (``code = b``), then for an ordinal attribute its literals, the lower
    bounds ``code >= j`` for ``j = 1..n_bins-1`` and the upper bounds
    ``code <= j`` for ``j = 0..n_bins-2``. A literal is numbered within its
    attribute by ``offset``: the value of a nominal literal; ``j - 1`` for a
    lower bound ``j``, ``n_bins - 1 + j`` for an upper bound ``j``.
    """

    cdef readonly object codes_arr, n_bins_arr, ordinal_arr, w_arr, bits_arr, slots_arr, masks_arr
    cdef readonly object lower_masks_arr
    cdef readonly object cells_arr
    cdef object __weakref__          # so joblib's Dask backend can scatter it once
    cdef const int32_t[:, ::1] codes
    cdef int32_t[:, ::1] slots       # histogram slot of each cell: off[a] + code, or the missing slot
    cdef uint8_t[:, ::1] cells       # scalar loops, fixed stride: slot - off[a] per cell (else (m, 0))
    cdef const int32_t[::1] nb
    cdef const int8_t[::1] ordinal
    cdef const double[::1] w
    cdef int32_t[::1] off            # first histogram slot of each attribute (bins, then missing)
    # the vector code's slots (SLSData.simd; _sls_count.h): see _vector_layout
    cdef int32_t[::1] voff           # first slot of each attribute
    cdef int8_t[::1] has_missing     # the attribute has missing values (a slot for them)
    cdef uint64_t[:, ::1] masks      # (m, G) the example's slots in each group of 64
    cdef uint64_t[:, ::1] lower_masks  # (m, G) by_bits: the slots of the lower bounds the
                                       # example violates (masks but where a value is missing)
    cdef bint own_lower              # lower_masks is not masks (an ordinal missing slot)
    cdef int32_t[::1] wide           # attributes of more than 64 slots (in no group)
    cdef int32_t[::1] lit            # first literal number of each attribute
    cdef int32_t[::1] lit_attr       # attribute of each literal
    cdef int32_t[::1] row            # first bitset row of each attribute
    cdef uint64_t[:, ::1] bits       # (rows, words)
    cdef uint64_t[::1] valid         # examples of positive weight
    cdef readonly Py_ssize_t m, n_attrs, n_words, n_slots, n_vslots, n_literals, n_groups
    cdef readonly Py_ssize_t stride  # slots per attribute when they are equal (else 0)
    cdef readonly bint unit, simd, vpop
    cdef readonly bint by_bits       # the candidates are scored by the slots' bits
    cdef readonly str level          # the path of simd_level

    def __init__(self, codes, n_bins, ordinal, w, simd=None, fixed_stride=True,
                 by_bits=True):
        self.codes_arr = np.ascontiguousarray(codes, dtype=np.int32)
        self.n_bins_arr = np.ascontiguousarray(n_bins, dtype=np.int32)
        self.ordinal_arr = np.ascontiguousarray(ordinal, dtype=np.int8)
        self.w_arr = np.ascontiguousarray(w, dtype=np.float64)
        if self.codes_arr.ndim != 2:
            raise ValueError("codes must be two-dimensional")
        m, A = self.codes_arr.shape
        if m < 1:
            raise ValueError("SLS needs at least one example")
        if A < 1:
            raise ValueError("SLS needs at least one attribute")
        if self.n_bins_arr.shape != (A,) or self.ordinal_arr.shape != (A,):
            raise ValueError("n_bins and ordinal need one entry per attribute")
        if self.w_arr.shape != (m,):
            raise ValueError("w needs one weight per example")
        if np.any(self.n_bins_arr < 1):
            raise ValueError("every attribute needs at least one value")
        if not np.all(np.isfinite(self.w_arr)) or np.any(self.w_arr < 0):
            raise ValueError("weights must be finite and non-negative")
        if np.any(self.codes_arr < -1) or np.any(self.codes_arr >= self.n_bins_arr):
            raise ValueError("codes must be -1 (missing) or 0..n_bins-1")
        self.codes, self.nb, self.ordinal, self.w = (self.codes_arr, self.n_bins_arr,
                                                     self.ordinal_arr, self.w_arr)
        self.m, self.n_attrs, self.n_words = m, A, (m + 63) // 64
        ordinal_ = self.ordinal_arr != 0
        n_lit = np.where(ordinal_, 2 * (self.n_bins_arr - 1), self.n_bins_arr)
        n_rows = np.where(ordinal_, self.n_bins_arr + n_lit, self.n_bins_arr)
        # exclusive prefix sums
        self.lit = (np.cumsum(n_lit) - n_lit).astype(np.int32)
        self.row = (np.cumsum(n_rows) - n_rows).astype(np.int32)
        self.lit_attr = np.repeat(np.arange(A, dtype=np.int32), n_lit)
        self.n_literals = int(n_lit.sum())
        self.level = simd_level(simd)
        self.simd = self.level != "scalar"
        self.vpop = self.level == "avx512"
        self._vector_layout()
        # every attribute in a group of 64 slots: what _best_by_bits reads
        # (on every path)
        self.by_bits = bool(by_bits) and self.n_groups > 0 and self.wide.shape[0] == 0
        # histogram slots (n_bins + 1 per attribute: values or bins, then
        # missing), one attribute after the other; for the scalar loops the
        # same number for every attribute (the most any needs) where that
        # costs at most twice the slots and fits a byte, so their counting
        # reads a byte per cell and steps through the attributes by a
        # constant (_count_rows; the vector code counts from its masks)
        width = self.n_bins_arr.astype(np.int64) + 1
        widest = int(width.max())
        self.stride = widest if (fixed_stride and not self.simd and widest <= 255
                                 and widest * A <= 2 * int(width.sum())) else 0
        if self.stride:
            width = np.full(A, widest, dtype=np.int64)
        self.off = (np.cumsum(width) - width).astype(np.int32)
        self.n_slots = int(width.sum())
        self.masks_arr = np.zeros((m, self.n_groups if self.simd or self.by_bits else 0),
                                  dtype=np.uint64)
        self.masks = self.masks_arr
        # an example whose value of an ordinal attribute is missing violates
        # every bound of it, lower ones included, while its mask holds the
        # missing slot only (what it counts in): its own row for the scoring
        self.own_lower = self.by_bits and bool(np.any(
            (np.asarray(self.has_missing) != 0) & ordinal_))
        self.lower_masks_arr = (np.zeros_like(self.masks_arr) if self.own_lower
                                else self.masks_arr)  # filled by _build
        self.lower_masks = self.lower_masks_arr
        self.unit = bool(np.all(self.w_arr == self.w_arr[0]))
        # off[a] + code, or the missing slot off[a] + n_bins[a]; made in place
        # (one array the size of the codes, no temporaries of that size)
        slots = np.add(self.codes_arr, np.asarray(self.off), dtype=np.int32)
        missing = self.codes_arr < 0
        if missing.any():
            slots[missing] = np.broadcast_to(np.asarray(self.off) + self.n_bins_arr,
                                             slots.shape)[missing]
        del missing
        self.slots_arr = slots
        self.slots = self.slots_arr
        self.cells_arr = np.zeros((m, 0), dtype=np.uint8)
        if self.stride:  # slot - off[a], in bytes: exact modulo 256, and it is below 255
            self.cells_arr = np.subtract(slots, np.asarray(self.off), dtype=np.uint8,
                                         casting="unsafe")
        self.cells = self.cells_arr
        self.valid = np.zeros(self.n_words, dtype=np.uint64)
        self.bits_arr = np.zeros((int(n_rows.sum()), self.n_words), dtype=np.uint64)
        self.bits = self.bits_arr
        with nogil:
            self._build()

    def _vector_layout(self):
        """The slots of the counts the vector code keeps (equal weights,
        ``simd``), in *prefix form*: for an ordinal attribute of ``n`` bins,
        the examples in bins ``<= l`` for ``l = 0..n-2`` (what its bounds
        uncover; the top bin is never needed) and, if the attribute has
        missing values at all, its missing ones; for a nominal attribute,
        the examples of each value. Attributes of at most 64 such slots
        come first, one after the other, counted in groups of 64 slots by
        masked byte adds (an example's mask has the bits of every slot it
        counts in: bins ``code..n-2`` of an ordinal attribute); the others
        follow, counted one example at a time."""
        codes, nb = self.codes_arr, self.n_bins_arr.astype(np.int64)
        ordinal = self.ordinal_arr != 0
        self.has_missing = np.ascontiguousarray(np.any(codes < 0, axis=0), dtype=np.int8)
        vwidth = np.where(ordinal, nb - 1 + np.asarray(self.has_missing), nb)
        narrow = vwidth <= 64
        voff = np.zeros(self.n_attrs, dtype=np.int64)
        voff[narrow] = np.cumsum(vwidth[narrow]) - vwidth[narrow]
        self.n_groups = (int(vwidth[narrow].sum()) + 63) // 64
        end = 64 * self.n_groups
        for a in np.flatnonzero(~narrow):
            voff[a] = end
            end += vwidth[a]
        self.voff = voff.astype(np.int32)
        self.wide = np.flatnonzero(~narrow).astype(np.int32)
        self.n_vslots = int(end)
        self.simd = self.simd and self.n_groups > 0

    cdef void _build(self) noexcept nogil:
        # raw pointers: the compiler keeps them in registers (a memoryview
        # attribute is read again after every store through another)
        cdef Py_ssize_t x, a, j, v, base, nbm, A = self.n_attrs, W = self.n_words
        cdef Py_ssize_t G = self.masks.shape[1], first, last
        cdef const int32_t *codes = &self.codes[0, 0]
        cdef const int32_t *nb = &self.nb[0]
        cdef const int32_t *voff = &self.voff[0]
        cdef const int32_t *row = &self.row[0]
        cdef const int8_t *ordinal = &self.ordinal[0]
        cdef uint64_t *bits = &self.bits[0, 0]
        cdef uint64_t *masks = &self.masks[0, 0]
        cdef uint64_t *lower = &self.lower_masks[0, 0]
        cdef bint own_lower = self.own_lower
        cdef bint prefix = (self.simd or self.by_bits) and G > 0
        cdef Py_ssize_t grouped = 64 * self.n_groups
        cdef uint64_t *column
        for j in range(W):  # the bins' bitsets a word at a time: one attribute's
            for a in range(A):  # words stay in the cache while its 64 examples go in
                column = bits + row[a] * W + j
                for x in range(64 * j, min(64 * j + 64, self.m)):
                    v = codes[x * A + a]
                    if v >= 0:
                        column[v * W] |= (<uint64_t>1) << (x & 63)
        for x in range(self.m):
            if self.w[x] > 0:
                self.valid[x >> 6] |= (<uint64_t>1) << (x & 63)
            if not prefix:
                continue
            for a in range(A):
                v = codes[x * A + a]
                if voff[a] >= grouped:
                    continue
                # the example's slots in prefix form (_vector_layout)
                nbm = nb[a] - 1
                if not ordinal[a]:
                    first, last = v, v + 1       # none if missing (v < 0)
                elif v < 0:
                    first, last = nbm, nbm + 1   # the missing slot
                else:
                    first, last = v, nbm         # bins v..nbm-1 (none for the top bin)
                if v < 0 and not ordinal[a]:
                    last = first
                _set_run(masks + x * G, voff[a] + first, voff[a] + last)
                if not own_lower:
                    continue
                if v < 0 and ordinal[a]:  # every bin's slot: the lower bounds
                    first, last = 0, nbm
                _set_run(lower + x * G, voff[a] + first, voff[a] + last)
        for a in range(A):
            if not ordinal[a]:
                continue
            base = row[a] + nb[a]
            nbm = nb[a] - 1
            for j in range(nbm):   # code >= j + 1: bins j+1..nbm, from the top
                v = nbm - 1 - j
                for x in range(W):
                    bits[(base + v) * W + x] = bits[(row[a] + v + 1) * W + x] | (
                        bits[(base + v + 1) * W + x] if v + 1 < nbm else 0)
            for j in range(nbm):   # code <= j: bins 0..j, from the bottom
                for x in range(W):
                    bits[(base + nbm + j) * W + x] = bits[(row[a] + j) * W + x] | (
                        bits[(base + nbm + j - 1) * W + x] if j > 0 else 0)

    def __reduce__(self):
        return SLSData, (self.codes_arr, self.n_bins_arr, self.ordinal_arr, self.w_arr,
                         self.level, self.stride > 0, self.by_bits)

    def __sizeof__(self):
        """The bytes it holds (what a task would copy if it were pickled)."""
        lower = self.lower_masks_arr.nbytes if self.own_lower else 0
        return int(2 * self.codes_arr.nbytes + self.w_arr.nbytes + self.bits_arr.nbytes
                   + self.masks_arr.nbytes + lower + self.cells_arr.nbytes + 64)

    def literal_bits(self, Py_ssize_t a):
        """The bitsets of attribute ``a``'s literals, in literal order (tests)."""
        if not 0 <= a < self.n_attrs:
            raise IndexError("attribute out of range")
        start = self.row[a] + (self.nb[a] if self.ordinal[a] else 0)
        n = 2 * (self.nb[a] - 1) if self.ordinal[a] else self.nb[a]
        return np.asarray(self.bits_arr)[start:start + n]

    def rule_choices(self):
        """For each attribute, the ways a rule can test it, not testing it
        included: ``n + 1`` for a nominal attribute of ``n`` values,
        ``n (n + 1) / 2`` intervals of ``n`` bins for an ordinal one (the
        whole range being "not tested"). For the size of the hypothesis space
        of the PAC-Bayes bound."""
        nb = self.n_bins_arr.astype(float)
        return np.where(self.ordinal_arr != 0, nb * (nb + 1) / 2, nb + 1)


# ------------------------------------------------------------ the search

# each rule keeps its last N_KEPT counted sets with their differences
cdef enum:
    N_KEPT = 4
    # one group's masked add, in scalar slot adds, for choosing how to count
    SIMD_ROW_COST = 1
    AVX2_ROW_COST = 3
    # the scalar loops count a bitset's examples by bit-sliced counters
    # from this many on (_add_side)
    SCALAR_SLICED = 128
    # so there the popcounts of every bin weigh this many times more
    # against counting examples (_kept_differences; 4, 8 and 16 measured
    # alike, 1 slower: doc/sls.md)
    SCALAR_SLICED_GAIN = 4

cdef struct Search:
    Py_ssize_t m, A, W, S, k
    Py_ssize_t DS             # slots of the kept differences (DS = S unless simd)
    const int32_t *codes      # (m, A)
    const int32_t *slots      # (m, A) histogram slot of each cell
    const uint8_t *cells      # (m, A) slot - off[a] of each cell, if stride (else NULL)
    Py_ssize_t stride         # slots per attribute when equal (off[a] = a * stride), else 0
    const int32_t *nb         # (A,)
    const int8_t *ordinal     # (A,)
    const int32_t *off        # (A,) first histogram slot of each attribute
    const int32_t *voff       # (A,) its first slot in the vector code's prefix form
    const int8_t *has_missing  # (A,) the attribute has missing values
    const int32_t *lit        # (A,) first literal number of each attribute
    const int32_t *lit_attr   # (n_literals,) attribute of each literal
    const int32_t *row        # (A,) first bitset row of each attribute
    const uint64_t *bits      # bitsets (SLSData)
    const uint64_t *pos       # (W,) positive examples
    const uint64_t *valid     # (W,) examples of positive weight
    const double *w           # (m,)
    bint unit                 # all weights equal (to w0): counts by popcount
    double w0
    # the rule set: per rule and attribute the literal(s) it holds
    int32_t *lo               # (k, A) nominal: value or -1; ordinal: lower bin (0: none)
    int32_t *hi               # (k, A) nominal: = lo;      ordinal: upper bin (nb-1: none)
    int32_t *tested           # (k, A) the attributes each rule tests, ascending
    int32_t *n_tested         # (k,)
    uint64_t *cov             # (k, W) coverage of each rule
    # scratch
    uint64_t *others          # (W,) coverage of the other rules
    uint64_t *covered         # (W,) coverage of all rules (the moves keep it up to date)
    uint64_t *mis             # (W,) misclassified examples (after the last score)
    Py_ssize_t n_mis
    uint64_t *scratch         # (W,)
    uint64_t *only            # (W,) examples only one rule covers
    uint64_t *only_pos        # (W,) the positives of them
    uint64_t *only_neg        # (W,) the negatives of them
    int32_t *words            # (W,) words holding any of them
    int32_t *cand_attr        # (A,) attributes with candidate literals
    int32_t *cand_range       # (A, 4) their literals: offsets [lo1, hi1) and [lo2, hi2)
    double *Hp               # (S,) weight (count if unit) of positives per slot (value/bin, missing)
    double *Hn               # (S,) of negatives
    int32_t *Cp              # (S,) counts of positives (equal weights)
    int32_t *Cn              # (S,) of negatives
    int32_t *ties             # (n_literals,) the best specialisation candidates, in literal order
    # equal weights: per rule, the examples only it covered the last
    # N_KEPT times they were counted and, per slot, their positives minus
    # their negatives (any such pair is a valid starting point)
    uint64_t *kept_bits       # (k, N_KEPT, W)
    int32_t *kept_diff        # (k, N_KEPT, S)
    int8_t *n_kept           # (k,) snapshots held
    int8_t *kept_next         # (k,) the snapshot to write next
    int32_t *all_diff         # (S,) positives minus negatives of all valid examples
    Py_ssize_t n_valid        # valid examples
    Py_ssize_t n_bins         # bins (values) of all attributes
    # counting with vector registers (SLSData.simd, _add_differences)
    bint simd
    bint avx2                 # counting with AVX2 (else AVX-512BW), scoring with plain loops
    bint vpop                 # and passes over words with vector popcounts (equal weights)
    const uint64_t *masks     # (m, G) the slots of each example per group of 64
    Py_ssize_t G
    int32_t *order            # (m + 64,) AVX2, sliced: the examples to count, listed (scratch)
    int32_t *sliced           # (64 G,) the scalar loops' bit-sliced counts, prefix form (scratch)
    const int32_t *wide       # (n_wide,) the attributes in no group
    Py_ssize_t n_wide
    int32_t *score_scratch    # (40 A,) for best_literals
    # scoring by the slots' bits (_best_by_bits; SLSData.by_bits: any path,
    # no wide attribute): per slot of the
    # prefix form (64 G of them)
    # its lower- and upper-bound literal numbers (-1: none), and bitsets of
    # G words: every value slot, the ordinal attributes' slots, scratch
    bint by_bits
    const uint64_t *lower_masks  # (m, G) SLSData.lower_masks
    bint own_lower            # an ordinal attribute has a missing slot (s.low is read)
    int32_t *low              # (64 G,) the lower bounds' changes where a missing slot adds
    extremes_f group_extremes  # the two passes of a group: rules_sls_group_extremes,
    ties_f group_ties          # _ties (their AVX2 build on the vector paths)
    uint64_t *missing_groups  # (G,) 1: the group holds a bin of an ordinal attribute
                              # with missing values (its lower bounds are read from low)
    int32_t *lit_lower        # (64 G,)
    int32_t *lit_upper        # (64 G,)
    uint64_t *value_slots     # (G,)
    uint64_t *ordinal_slots   # (G,)
    uint64_t *allowed         # (G,) the slots rule t leaves open
    uint64_t *tie_lower       # (G,)
    uint64_t *tie_upper       # (G,)
    int64_t *group_best       # (G,)
    int32_t *prefix           # (64 G,) the scalar loops' counts in prefix form
    uint64_t *plus_bits       # (W,) examples to add (scratch)
    uint64_t *minus_bits      # (W,) examples to subtract (scratch)
    Py_ssize_t row_cost       # cost of counting one example, in slot adds
    bint check                # tests: compare kept counts with fresh ones
    int err                   # set by such a check (3: they differ)
    uint64_t state


cdef inline bint _none(Search *s, Py_ssize_t t, Py_ssize_t a) noexcept nogil:
    """Rule ``t`` does not test attribute ``a``."""
    if s.ordinal[a]:
        return s.lo[t * s.A + a] == 0 and s.hi[t * s.A + a] == s.nb[a] - 1
    return s.lo[t * s.A + a] < 0


cdef inline void _set_none(Search *s, Py_ssize_t t, Py_ssize_t a) noexcept nogil:
    if s.ordinal[a]:
        s.lo[t * s.A + a] = 0
        s.hi[t * s.A + a] = s.nb[a] - 1
    else:
        s.lo[t * s.A + a] = -1
        s.hi[t * s.A + a] = -1


cdef inline const uint64_t *_literal(Search *s, Py_ssize_t a, Py_ssize_t offset) noexcept nogil:
    """The bitset of literal ``offset`` of attribute ``a``."""
    return s.bits + (s.row[a] + (s.nb[a] if s.ordinal[a] else 0) + offset) * s.W


cdef inline void _add_tested(Search *s, Py_ssize_t t, int32_t a) noexcept nogil:
    """Insert ``a`` into rule ``t``'s ascending list of tested attributes."""
    cdef int32_t *lst = s.tested + t * s.A
    cdef Py_ssize_t i = s.n_tested[t]
    while i > 0 and lst[i - 1] > a:
        lst[i] = lst[i - 1]
        i -= 1
    lst[i] = a
    s.n_tested[t] += 1


cdef inline void _remove_tested(Search *s, Py_ssize_t t, int32_t a) noexcept nogil:
    cdef int32_t *lst = s.tested + t * s.A
    cdef Py_ssize_t i = 0, n = s.n_tested[t]
    while lst[i] != a:
        i += 1
    while i < n - 1:
        lst[i] = lst[i + 1]
        i += 1
    s.n_tested[t] -= 1


cdef inline bint _covers(Search *s, Py_ssize_t t, Py_ssize_t x) noexcept nogil:
    cdef Py_ssize_t i, a
    cdef int32_t v
    cdef const int32_t *lst = s.tested + t * s.A
    for i in range(s.n_tested[t]):
        a = lst[i]
        v = s.codes[x * s.A + a]
        if v < 0 or not s.lo[t * s.A + a] <= v <= s.hi[t * s.A + a]:
            return False
    return True


cdef inline bint _violates(Search *s, Py_ssize_t t, Py_ssize_t a, int side,
                           int32_t v) noexcept nogil:
    """A value ``v`` violates literal ``side`` of rule ``t`` on the tested
    ``a`` (side 0: the nominal literal or the lower bound, 1: the upper
    bound), and the rule holds that literal."""
    cdef int32_t lo = s.lo[t * s.A + a], hi = s.hi[t * s.A + a]
    if not s.ordinal[a]:
        return side == 0 and v != lo
    if side == 0:
        return lo > 0 and (v < 0 or v < lo)
    return hi < s.nb[a] - 1 and (v < 0 or v > hi)


cdef inline Py_ssize_t _violations(Search *s, Py_ssize_t t, Py_ssize_t x) noexcept nogil:
    """Literals of rule ``t`` that ``x`` violates (a bound of an ordinal
    attribute is one literal)."""
    cdef Py_ssize_t i, a, n = 0
    cdef int32_t v
    cdef const int32_t *lst = s.tested + t * s.A
    for i in range(s.n_tested[t]):
        a = lst[i]
        v = s.codes[x * s.A + a]
        n += _violates(s, t, a, 0, v) + _violates(s, t, a, 1, v)
    return n


cdef void _and_literals(Search *s, Py_ssize_t t, Py_ssize_t skip_a, int skip_side,
                        uint64_t *out) noexcept nogil:
    """``out`` = coverage of rule ``t`` without its literal ``(skip_a,
    skip_side)`` (``skip_a = -1``: with all its literals)."""
    cdef Py_ssize_t i, j, a, A = s.A, W = s.W, nbm
    cdef const uint64_t *b
    cdef const int32_t *lst = s.tested + t * A
    for j in range(W):
        out[j] = s.valid[j]
    for i in range(s.n_tested[t]):
        a = lst[i]
        if not s.ordinal[a]:
            if a != skip_a:
                b = _literal(s, a, s.lo[t * A + a])
                for j in range(W):
                    out[j] &= b[j]
            continue
        nbm = s.nb[a] - 1
        if s.lo[t * A + a] > 0 and not (a == skip_a and skip_side == 0):
            b = _literal(s, a, s.lo[t * A + a] - 1)
            for j in range(W):
                out[j] &= b[j]
        if s.hi[t * A + a] < nbm and not (a == skip_a and skip_side == 1):
            b = _literal(s, a, nbm + s.hi[t * A + a])
            for j in range(W):
                out[j] &= b[j]


cdef inline double _weight(Search *s, const uint64_t *bits, bint positive) noexcept nogil:
    """Weight of the valid examples in ``bits`` that are positive (or negative)."""
    cdef Py_ssize_t j
    cdef double total = 0
    for j in range(s.W):
        total += word_weight(bits[j] & s.valid[j] & (s.pos[j] if positive else ~s.pos[j]),
                             j, s.w, s.unit)
    return total


cdef inline double _weight_of(Search *s, const uint64_t *bits) noexcept nogil:
    """Weight of the examples in ``bits``."""
    cdef Py_ssize_t j
    cdef double total = 0
    for j in range(s.W):
        total += word_weight(bits[j], j, s.w, s.unit)
    return total


cdef inline double _uncovered_delta(Search *s, const uint64_t *bits) noexcept nogil:
    """Weight of the negatives minus that of the positives among the
    examples of ``bits`` (valid ones) that no rule covers (``s.covered``):
    the score change of covering them. The two sums run in the order of
    :func:`_weight`, so weighted ties break the same way."""
    cdef Py_ssize_t j
    cdef double neg = 0, wpos = 0
    cdef long long n_neg = 0, n_pos = 0
    cdef uint64_t new
    if s.vpop:
        return uncovered_delta(bits, s.covered, s.pos, s.W) * s.w0
    if s.unit:
        for j in range(s.W):
            new = bits[j] & ~s.covered[j]
            n_neg += popcount64(new & ~s.pos[j])
            n_pos += popcount64(new & s.pos[j])
        return (n_neg - n_pos) * s.w0
    for j in range(s.W):
        new = bits[j] & ~s.covered[j]
        neg += word_weight(new & ~s.pos[j], j, s.w, False)
        wpos += word_weight(new & s.pos[j], j, s.w, False)
    return neg - wpos


cdef void _others(Search *s, Py_ssize_t t) noexcept nogil:
    """``s.others`` = coverage of every rule but ``t``."""
    cdef Py_ssize_t r, j
    for j in range(s.W):
        s.others[j] = 0
    for r in range(s.k):
        if r != t:
            for j in range(s.W):
                s.others[j] |= s.cov[r * s.W + j]


cdef void _union(Search *s) noexcept nogil:
    """``s.covered`` = the coverage of all rules (the moves keep it up to
    date; after a restart or a load it is computed afresh)."""
    cdef Py_ssize_t j, r, W = s.W
    cdef uint64_t *covered = s.covered
    cdef const uint64_t *c
    memcpy(covered, s.cov, W * sizeof(uint64_t))
    for r in range(1, s.k):  # rule by rule: the compiler vectorises the words
        c = s.cov + r * W
        for j in range(W):
            covered[j] |= c[j]


cdef double _score(Search *s) noexcept nogil:
    """Weight of uncovered positives plus covered negatives (the union of
    the rules ``s.covered`` is up to date); leaves the misclassified
    examples in ``s.mis`` (``s.n_mis`` of them) for the next move."""
    cdef Py_ssize_t j, n_mis = 0
    cdef double total = 0
    cdef uint64_t mis
    if s.vpop:
        s.n_mis = misclassified(s.pos, s.covered, s.valid, s.W, s.mis)
        return s.n_mis * s.w0
    for j in range(s.W):  # misclassified: positive xor covered
        mis = (s.pos[j] ^ s.covered[j]) & s.valid[j]
        s.mis[j] = mis
        n_mis += popcount64(mis)
        if not s.unit and mis:
            total += word_weight(mis, j, s.w, False)
    s.n_mis = n_mis
    return n_mis * s.w0 if s.unit else total


cdef void _init_rule(Search *s, Py_ssize_t t, Py_ssize_t n_pos) noexcept nogil:
    """Rule ``t`` becomes one random literal of a random positive example:
    an attribute at random, its value (nominal) or a random cut, on the
    example's side (ordinal); no literal if the value is missing."""
    cdef Py_ssize_t a, j, x = -1, r = _randint(&s.state, n_pos), seen = 0, i
    cdef uint64_t word
    cdef int32_t v, cut
    for i in range(s.n_tested[t]):
        _set_none(s, t, s.tested[t * s.A + i])
    s.n_tested[t] = 0
    for j in range(s.W):  # the r-th valid positive
        word = s.pos[j] & s.valid[j]
        if seen + popcount64(word) > r:
            while True:
                if seen == r:
                    x = j * 64 + ctz64(word)
                    break
                word &= word - 1
                seen += 1
            break
        seen += popcount64(word)
    if x >= 0:
        a = _randint(&s.state, s.A)
        v = s.codes[x * s.A + a]
        if v >= 0:
            if not s.ordinal[a]:
                s.lo[t * s.A + a] = v
                s.hi[t * s.A + a] = v
                _add_tested(s, t, <int32_t>a)
            elif s.nb[a] > 1:
                cut = 1 + <int32_t>_randint(&s.state, s.nb[a] - 1)  # code >= cut or < cut
                if v >= cut:
                    s.lo[t * s.A + a] = cut
                else:
                    s.hi[t * s.A + a] = cut - 1
                _add_tested(s, t, <int32_t>a)
    _and_literals(s, t, -1, 0, s.cov + t * s.W)


cdef inline Py_ssize_t _select64(uint64_t word, Py_ssize_t r) noexcept nogil:
    """The position of the ``r``-th set bit of ``word`` (from 0; ``r`` below
    its popcount), by halving: six popcounts instead of a loop over bits."""
    cdef Py_ssize_t pos = 0, c
    cdef int shift = 32
    while shift:  # 32, 16, 8, 4, 2, 1
        c = popcount64(word & ((<uint64_t>1 << shift) - 1))
        if r >= c:
            r -= c
            word >>= shift
            pos += shift
        shift >>= 1
    return pos


cdef Py_ssize_t _pick_misclassified(Search *s, double score) noexcept nogil:
    """A misclassified example (of ``s.mis``, as :func:`_score` left it),
    chosen with probability proportional to its weight (uniformly when
    weights are equal); -1 if there is none."""
    cdef Py_ssize_t j, r, x = -1
    cdef uint64_t word
    cdef double u, acc = 0
    if s.n_mis == 0:
        return -1
    if s.unit:
        r = _randint(&s.state, s.n_mis)
        for j in range(s.W):
            word = s.mis[j]
            if r >= popcount64(word):
                r -= popcount64(word)
                continue
            return j * 64 + _select64(word, r)
        return -1
    u = _uniform(&s.state) * score
    for j in range(s.W):
        word = s.mis[j]
        while word:
            x = j * 64 + ctz64(word)
            acc += s.w[x]
            if acc > u:
                return x
            word &= word - 1
    return x  # rounding: the last one


cdef Py_ssize_t _generalise(Search *s, Py_ssize_t x, double p_noise) noexcept nogil:
    """``x`` is an uncovered positive. The rule violating the fewest of
    ``x``'s literals (ties at random) drops one literal that ``x``
    violates: a random one with probability ``p_noise``, else the one whose
    removal gives the lowest score (ties at random). Returns the rule
    changed."""
    cdef Py_ssize_t r, i, j, a, t = -1, n_best = 0, viol, best_viol = 2 * s.A + 1
    cdef Py_ssize_t n_cand = 0, best_a = -1, A = s.A
    cdef int side, best_side = 0
    cdef int32_t v
    cdef double delta, best_delta = 1e300
    for r in range(s.k):
        viol = _violations(s, r, x)
        if viol < best_viol:
            best_viol, t, n_best = viol, r, 1
        elif viol == best_viol:
            n_best += 1
            if _randint(&s.state, n_best) == 0:
                t = r
    if _uniform(&s.state) < p_noise:
        for i in range(s.n_tested[t]):
            a = s.tested[t * A + i]
            v = s.codes[x * A + a]
            for side in range(2):
                if _violates(s, t, a, side, v):
                    n_cand += 1
                    if _randint(&s.state, n_cand) == 0:
                        best_a, best_side = a, side
    else:
        for i in range(s.n_tested[t]):
            a = s.tested[t * A + i]
            v = s.codes[x * A + a]
            for side in range(2):
                if not _violates(s, t, a, side, v):
                    continue
                if best_viol == 1:  # the only candidate: no score needed (nor drawn)
                    best_a, best_side = a, side
                    break
                _and_literals(s, t, a, side, s.scratch)
                # newly covered by the rule set: outside the union (s.covered)
                delta = _uncovered_delta(s, s.scratch)
                if _take(delta, &best_delta, &n_cand, &s.state):
                    best_a, best_side = a, side
    if best_a >= 0:
        if not s.ordinal[best_a]:
            _set_none(s, t, best_a)
        elif best_side == 0:
            s.lo[t * A + best_a] = 0
        else:
            s.hi[t * A + best_a] = s.nb[best_a] - 1
        if _none(s, t, best_a):
            _remove_tested(s, t, <int32_t>best_a)
        _and_literals(s, t, -1, 0, s.cov + t * s.W)
        for j in range(s.W):  # the rule covers more: so does the union
            s.covered[j] |= s.cov[t * s.W + j]
    return t


cdef inline void _count_rows(Search *s, uint64_t word, Py_ssize_t j, int32_t *C,
                             int32_t step) noexcept nogil:
    """Add ``step`` to the slots of every attribute of the examples of
    ``word`` (word ``j``). With a fixed number of slots per attribute, a
    byte per cell and a constant step from one attribute's slots to the
    next: on 10^5 rows the cells are a quarter of the int32 slots' bytes,
    and the counting reads them from memory (doc/sls.md, "CPUs without
    AVX-512")."""
    cdef Py_ssize_t x, a, A = s.A, stride = s.stride
    cdef const int32_t *row
    cdef const uint8_t *cell
    cdef int32_t *c
    if stride:
        while word:
            x = j * 64 + ctz64(word)
            word &= word - 1
            cell = s.cells + x * A
            c = C
            for a in range(A):
                c[cell[a]] += step
                c += stride
        return
    while word:
        x = j * 64 + ctz64(word)
        word &= word - 1
        row = s.slots + x * A
        for a in range(A):
            C[row[a]] += step


cdef inline void _add_prefix(Search *s, Py_ssize_t x, Py_ssize_t a, int32_t *d,
                             int32_t step) noexcept nogil:
    """Add ``step`` to example ``x``'s slots of attribute ``a`` in the
    vector code's prefix form (``SLSData._vector_layout``)."""
    cdef Py_ssize_t slot, v = s.codes[x * s.A + a], nbm = s.nb[a] - 1
    cdef int32_t *da = d + s.voff[a]
    if not s.ordinal[a]:
        if v >= 0:
            da[v] += step
    elif v < 0:
        da[nbm] += step
    else:
        for slot in range(v, nbm):
            da[slot] += step


cdef void _add_differences(Search *s, const uint64_t *plus, const uint64_t *minus,
                           int32_t *d, Py_ssize_t n) noexcept nogil:
    """``d[slot] +=`` the examples of ``plus`` minus those of ``minus`` in
    the slot, for every attribute: with vector registers for the
    attributes in groups of 64 slots when the CPU has them (``_sls_count.h``,
    the slots in prefix form, ``SLSData._vector_layout``), else one add per
    example and attribute (histogram slots). ``n``: how many examples the
    two hold together (-1: not known), which tells the AVX2 path whether
    any side may be many."""
    cdef Py_ssize_t i, x, a, j
    cdef uint64_t word
    if not s.simd and s.sliced != NULL and (n < 0 or n >= SCALAR_SLICED):
        _add_side(s, plus, d, 1)
        _add_side(s, minus, d, -1)
        return
    if not s.simd:
        for j in range(s.W):
            if plus[j]:
                _count_rows(s, plus[j], j, d, 1)
            if minus[j]:
                _count_rows(s, minus[j], j, d, -1)
        return
    if s.avx2:
        count_packed_avx2(s.masks, s.G, plus, minus, s.W, d, s.order, n)
    else:
        count_packed(s.masks, s.G, plus, minus, s.W, d)
    for i in range(s.n_wide):
        a = s.wide[i]
        for j in range(s.W):
            word = plus[j]
            while word:
                x = j * 64 + ctz64(word)
                word &= word - 1
                _add_prefix(s, x, a, d, 1)
            word = minus[j]
            while word:
                x = j * 64 + ctz64(word)
                word &= word - 1
                _add_prefix(s, x, a, d, -1)


cdef void _add_side(Search *s, const uint64_t *b, int32_t *d, int32_t sign) noexcept nogil:
    """The scalar loops' ``d[slot] += sign`` for the examples of ``b`` in
    the slot (histogram slots): from ``SCALAR_SLICED`` examples on by the
    bit-sliced counters of ``_sls_count.h`` (``rules_sls_sliced``: about six
    operations an example per group of 64 slots, against one add per
    attribute) on the examples' masks, whose prefix form is then turned into
    histogram slots; else one add per example and attribute. Needs the
    masks (``SLSData.by_bits``: every attribute in a group)."""
    cdef Py_ssize_t j, n = 0, a, l, nbm
    cdef uint64_t word
    cdef int32_t prev, total, missing
    cdef const int32_t *p
    cdef int32_t *h
    for j in range(s.W):
        n += popcount64(b[j])
    if n < SCALAR_SLICED:
        for j in range(s.W):
            if b[j]:
                _count_rows(s, b[j], j, d, sign)
        return
    n = 0
    for j in range(s.W):
        word = b[j]
        while word:
            s.order[n] = <int32_t>(j * 64 + ctz64(word))
            n += 1
            word &= word - 1
    memset(s.sliced, 0, 64 * s.G * sizeof(int32_t))
    sliced_count(s.masks, s.G, s.order, n, s.sliced)
    for a in range(s.A):
        nbm = s.nb[a] - 1
        p, h = s.sliced + s.voff[a], d + s.off[a]
        if s.ordinal[a]:  # bins <= l for l < nbm: bin l is the difference
            prev = 0
            for l in range(nbm):
                h[l] += sign * (p[l] - prev)
                prev = p[l]
            missing = p[nbm] if s.has_missing[a] else 0  # the slot after the bins
            h[nbm] += sign * (<int32_t>n - prev - missing)
            h[nbm + 1] += sign * missing
        else:  # per value, and the missing ones in the slot after them
            total = 0
            for l in range(nbm + 1):
                h[l] += sign * p[l]
                total += p[l]
            h[nbm + 1] += sign * (<int32_t>n - total)


cdef inline void _bin_counts(Search *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t n_words,
                             long long *kp, long long *kn) noexcept nogil:
    """The positives and negatives only the rule covers (``s.only_pos``,
    ``s.only_neg``, in the words ``s.words``) in bin or value ``b`` of
    attribute ``a``, by popcounts."""
    cdef const uint64_t *bb = s.bits + (s.row[a] + b) * s.W
    cdef Py_ssize_t i, j
    kp[0] = kn[0] = 0
    for i in range(n_words):
        j = s.words[i]
        kp[0] += popcount64(s.only_pos[j] & bb[j])
        kn[0] += popcount64(s.only_neg[j] & bb[j])


cdef inline void _add_rows(Search *s, uint64_t word, Py_ssize_t j, double *H,
                           int32_t *C) noexcept nogil:
    """Add the examples of ``word`` (word ``j``) to the slots of all their
    attributes: one each to ``C`` (counts), or their weight to ``H`` when
    ``C`` is NULL."""
    cdef Py_ssize_t x, a, A = s.A
    cdef const int32_t *row
    cdef double amount
    if C != NULL:
        _count_rows(s, word, j, C, 1)
        return
    while word:
        x = j * 64 + ctz64(word)
        word &= word - 1
        row = s.slots + x * A
        amount = s.w[x]
        for a in range(A):
            H[row[a]] += amount


cdef void _class_histograms(Search *s, Py_ssize_t t, Py_ssize_t n_cand_attr,
                            Py_ssize_t n_words, double tot_pos, double tot_neg) noexcept nogil:
    """``s.Hp``/``s.Hn``: for each candidate attribute, the weights (counts
    when all weights are equal) of the positive and negative examples only
    rule ``t`` covers (``s.only_pos``/``s.only_neg``) per value or bin, and
    in the missing slot. By example when they are few, else by popcounts of
    the bins' bitsets, whichever costs less."""
    cdef Py_ssize_t i, c, j, a, b, lo, hi, n_only = 0, bins = 0, A = s.A
    cdef double sp, sn
    cdef long long kp, kn
    for c in range(n_cand_attr):
        a = s.cand_attr[c]
        memset(s.Hp + s.off[a], 0, (s.nb[a] + 1) * sizeof(double))
        memset(s.Hn + s.off[a], 0, (s.nb[a] + 1) * sizeof(double))
        bins += s.nb[a]
    if s.unit:
        for i in range(n_words):
            j = s.words[i]
            n_only += popcount64(s.only_pos[j] | s.only_neg[j])
    if not s.unit or n_only * A < bins * n_words * 2:  # measured
        # every attribute of each example (the slots of the attributes that
        # are not candidates collect counts nobody reads)
        if s.unit:  # integer counts (faster to add), then to the histograms
            for c in range(n_cand_attr):
                a = s.cand_attr[c]
                memset(s.Cp + s.off[a], 0, (s.nb[a] + 1) * sizeof(int32_t))
                memset(s.Cn + s.off[a], 0, (s.nb[a] + 1) * sizeof(int32_t))
        for i in range(n_words):
            j = s.words[i]
            _add_rows(s, s.only_pos[j], j, s.Hp, s.Cp if s.unit else NULL)
            _add_rows(s, s.only_neg[j], j, s.Hn, s.Cn if s.unit else NULL)
        if s.unit:
            for c in range(n_cand_attr):
                a = s.cand_attr[c]
                for b in range(s.off[a], s.off[a] + s.nb[a] + 1):
                    s.Hp[b] = s.Cp[b]
                    s.Hn[b] = s.Cn[b]
        return
    for c in range(n_cand_attr):
        a = s.cand_attr[c]
        if s.ordinal[a]:
            lo, hi = s.lo[t * s.A + a], s.hi[t * s.A + a]
        else:
            lo, hi = 0, s.nb[a] - 1
        sp = sn = 0
        for b in range(lo, hi + 1):
            _bin_counts(s, a, b, n_words, &kp, &kn)
            s.Hp[s.off[a] + b], s.Hn[s.off[a] + b] = <double>kp, <double>kn
            sp += kp
            sn += kn
        s.Hp[s.off[a] + s.nb[a]] = tot_pos - sp       # the missing slot
        s.Hn[s.off[a] + s.nb[a]] = tot_neg - sn


cdef Py_ssize_t _list_words(Search *s) noexcept nogil:
    """``s.words``: the words holding examples only the rule covers
    (``s.only``; the vector pass counts them without listing them)."""
    cdef Py_ssize_t j, n = 0
    for j in range(s.W):
        if s.only[j]:
            s.words[n] = <int32_t>j
            n += 1
    return n


cdef const int32_t *_kept_differences(Search *s, Py_ssize_t t, Py_ssize_t n_words,
                                      Py_ssize_t n_only, Py_ssize_t total) noexcept nogil:
    """Equal weights only: per slot, the positives minus the negatives among
    the examples only rule ``t`` covers (``s.only_pos``/``s.only_neg``;
    ``n_only`` examples, ``total`` positives minus negatives), which is all
    a specialisation's score changes need. Rule ``t`` keeps them for the
    last ``N_KEPT`` sets it counted (a local search often comes back near
    where it was); the result is the cheapest of four ways: the nearest
    kept set brought up to date by the examples that entered or left since,
    a fresh count of the set's examples, of the valid examples outside it
    (subtracted from those of all examples), or popcounts of every bin's
    bitset. It replaces the oldest kept set. Costs in added slots, the
    popcounts' weighed as measured (on the scalar loops, whose counts of
    many examples are bit-sliced, ``SCALAR_SLICED_GAIN`` times more)."""
    cdef Py_ssize_t j, a, b, A = s.A, W = s.W, S = s.DS, n_diff = -1, r, best = -1, nbm
    cdef long long kp, kn, sd
    cdef uint64_t now, before, out
    cdef uint64_t *kb
    cdef int32_t *d
    cdef Py_ssize_t cost, pop = s.n_bins * n_words * 2, rc = s.row_cost
    # the snapshot nearest the set, and the slot the result goes to (the oldest)
    cdef Py_ssize_t dist[N_KEPT]
    if not s.simd and s.sliced != NULL:
        pop *= SCALAR_SLICED_GAIN
    if s.vpop:
        distances(s.only, s.kept_bits + t * N_KEPT * W, s.n_kept[t], W, dist)
    else:
        for r in range(s.n_kept[t]):
            kb = s.kept_bits + (t * N_KEPT + r) * W
            dist[r] = 0
            for j in range(W):
                dist[r] += popcount64(s.only[j] ^ kb[j])
    for r in range(s.n_kept[t]):
        if n_diff < 0 or dist[r] < n_diff:
            n_diff, best = dist[r], r
    r = s.kept_next[t]
    s.kept_next[t] = (r + 1) % N_KEPT
    if s.n_kept[t] < N_KEPT:
        s.n_kept[t] += 1
    kb = s.kept_bits + (t * N_KEPT + r) * W
    d = s.kept_diff + (t * N_KEPT + r) * S
    cost = min(n_only, s.n_valid - n_only)
    if n_diff >= 0 and n_diff < cost and n_diff * rc < pop:
        if best != r:
            memcpy(kb, s.kept_bits + (t * N_KEPT + best) * W, W * sizeof(uint64_t))
            memcpy(d, s.kept_diff + (t * N_KEPT + best) * S, S * sizeof(int32_t))
        if s.vpop:
            changes(s.only, kb, s.pos, W, s.plus_bits, s.minus_bits)
        else:
            for j in range(W):  # entered positives and left negatives add, the others subtract
                now = s.only[j]
                before = kb[j]
                s.plus_bits[j] = (now & ~before & s.pos[j]) | (before & ~now & ~s.pos[j])
                s.minus_bits[j] = (before & ~now & s.pos[j]) | (now & ~before & ~s.pos[j])
                kb[j] = now
        _add_differences(s, s.plus_bits, s.minus_bits, d, n_diff)
        return d
    if cost * rc < pop and n_only == cost:  # the set's examples
        memset(d, 0, S * sizeof(int32_t))
        _add_differences(s, s.only_pos, s.only_neg, d, n_only)
    elif cost * rc < pop:  # all examples' but those outside the set
        memcpy(d, s.all_diff, S * sizeof(int32_t))
        for j in range(W):
            out = s.valid[j] & ~s.only[j]
            s.plus_bits[j] = out & ~s.pos[j]
            s.minus_bits[j] = out & s.pos[j]
        _add_differences(s, s.plus_bits, s.minus_bits, d, s.n_valid - n_only)
    else:  # popcounts of every bin's bitset, into histogram slots or prefix form
        if s.vpop:
            _list_words(s)
        for a in range(A):
            sd = 0
            nbm = s.nb[a] - 1
            for b in range(s.nb[a]):
                _bin_counts(s, a, b, n_words, &kp, &kn)
                sd += kp - kn
                if not s.simd:
                    d[s.off[a] + b] = <int32_t>(kp - kn)
                elif not s.ordinal[a]:  # prefix form (SLSData._vector_layout)
                    d[s.voff[a] + b] = <int32_t>(kp - kn)
                elif b < nbm:
                    d[s.voff[a] + b] = <int32_t>sd
            if not s.simd:
                d[s.off[a] + s.nb[a]] = <int32_t>(total - sd)   # the missing slot
            elif s.ordinal[a] and s.has_missing[a]:
                d[s.voff[a] + nbm] = <int32_t>(total - sd)
    memcpy(kb, s.only, W * sizeof(uint64_t))
    return d


cdef void _check_kept(Search *s, Py_ssize_t t, Py_ssize_t n_cand_attr, Py_ssize_t n_words,
                      const int32_t *d, double tp, double tn) noexcept nogil:
    """Tests: ``s.err = 3`` unless a fresh count (:func:`_class_histograms`)
    gives the kept differences ``d`` on the candidate attributes."""
    cdef Py_ssize_t c, a, b, nbm
    cdef double below
    cdef const double *Hp
    cdef const double *Hn
    cdef const int32_t *da
    _class_histograms(s, t, n_cand_attr, n_words, tp, tn)
    for c in range(n_cand_attr):
        a = s.cand_attr[c]
        if not s.simd:
            for b in range(s.off[a], s.off[a] + s.nb[a] + 1):
                if d[b] != s.Hp[b] - s.Hn[b]:
                    s.err = 3
            continue
        # prefix form (SLSData._vector_layout)
        Hp, Hn, da, nbm = s.Hp + s.off[a], s.Hn + s.off[a], d + s.voff[a], s.nb[a] - 1
        if not s.ordinal[a]:
            for b in range(nbm + 1):
                if da[b] != Hp[b] - Hn[b]:
                    s.err = 3
            continue
        below = 0
        for b in range(nbm):
            below += Hp[b] - Hn[b]
            if da[b] != below:
                s.err = 3
        if s.has_missing[a] and da[nbm] != Hp[nbm + 1] - Hn[nbm + 1]:
            s.err = 3


cdef inline void _candidate(Search *s, double delta, Py_ssize_t lit, double *best,
                            Py_ssize_t *n_ties) noexcept nogil:
    """Keep the candidates of the lowest change so far (in literal order)."""
    if delta < best[0]:
        best[0] = delta
        n_ties[0] = 0
    if delta == best[0]:
        s.ties[n_ties[0]] = <int32_t>lit
        n_ties[0] += 1


cdef Py_ssize_t _best_by_weights(Search *s, Py_ssize_t n_cand_attr, double tp,
                                 double tn) noexcept nogil:
    """The literals a specialisation may add (``s.cand_attr``,
    ``s.cand_range``) whose addition changes the score least (uncovered
    positives minus uncovered negatives of the examples only the rule
    covers, ``tp`` and ``tn`` in all), from their class weights per slot
    ``s.Hp``, ``s.Hn`` with prefix sums over ordinal bins: into ``s.ties``
    in literal order; returns how many."""
    cdef Py_ssize_t i, a, l, b, nbm, lo1, hi1, lo2, hi2, n_ties = 0
    cdef double best = INFINITY, delta, mp, mn, pp, pn
    cdef const double *Hp
    cdef const double *Hn
    for i in range(n_cand_attr):
        a = s.cand_attr[i]
        lo1, hi1, lo2, hi2 = (s.cand_range[4 * i], s.cand_range[4 * i + 1],
                              s.cand_range[4 * i + 2], s.cand_range[4 * i + 3])
        Hp, Hn = s.Hp + s.off[a], s.Hn + s.off[a]
        if not s.ordinal[a]:   # A = u uncovers the only-t examples of other values
            for l in range(lo1, hi1):
                delta = (tp - Hp[l]) - (tn - Hn[l])
                _candidate(s, delta, s.lit[a] + l, &best, &n_ties)
            for l in range(lo2, hi2):
                delta = (tp - Hp[l]) - (tn - Hn[l])
                _candidate(s, delta, s.lit[a] + l, &best, &n_ties)
            continue
        nbm = s.nb[a] - 1
        mp, mn = Hp[nbm + 1], Hn[nbm + 1]   # the missing slot
        # lower bound b (offset b - 1) uncovers the missing and the bins < b
        pp = pn = 0
        b = 0
        for l in range(lo1, hi1):
            while b < l + 1:
                pp += Hp[b]
                pn += Hn[b]
                b += 1
            delta = (mp + pp) - (mn + pn)
            _candidate(s, delta, s.lit[a] + l, &best, &n_ties)
        # upper bound b (offset nbm + b) uncovers the missing and the bins > b
        pp = pn = 0
        b = 0
        for l in range(lo2, hi2):
            while b < l - nbm + 1:
                pp += Hp[b]
                pn += Hn[b]
                b += 1
            delta = (tp - pp) - (tn - pn)
            _candidate(s, delta, s.lit[a] + l, &best, &n_ties)
    return n_ties


cdef Py_ssize_t _best_by_differences(Search *s, const int32_t *xv, const int32_t *lo_t,
                                     const int32_t *hi_t, const int32_t *D,
                                     int32_t total) noexcept nogil:
    """:func:`_best_by_weights` for equal weights, in integers, from the
    positives minus negatives per slot ``D`` of the examples only the rule
    covers (``total`` of them): adding a literal changes the score by the
    difference of the examples it uncovers. The candidates are those of the
    example of codes ``xv`` for the rule of literals ``lo_t``, ``hi_t``
    (``free_range``)."""
    cdef Py_ssize_t a, l, b, nbm, lit, n_ties = 0
    cdef int32_t best = 2147483647, below, missing
    cdef int32_t rg[4]
    cdef const int32_t *d
    # the search's arrays in locals: the compiler need not reload them
    # after every store to ties
    cdef const int32_t *off = s.off
    cdef const int32_t *nb = s.nb
    cdef const int32_t *first_lit = s.lit
    cdef const int8_t *ordinal = s.ordinal
    cdef int32_t *ties = s.ties
    for a in range(s.A):
        nbm = nb[a] - 1
        if not free_range(xv[a], <int32_t>nbm, ordinal[a], lo_t[a], hi_t[a], rg):
            continue
        d = D + off[a]
        lit = first_lit[a]
        if not ordinal[a]:   # A = u uncovers the only-t examples of other values
            for l in range(rg[0], rg[1]):
                keep(total - d[l], <int32_t>(lit + l), &best, &n_ties, ties)
            for l in range(rg[2], rg[3]):
                keep(total - d[l], <int32_t>(lit + l), &best, &n_ties, ties)
            continue
        missing = d[nbm + 1]
        # lower bound b (offset l = b - 1) uncovers the missing and the bins < b
        below = 0
        for b in range(rg[0]):
            below += d[b]
        for l in range(rg[0], rg[1]):
            below += d[l]
            keep(missing + below, <int32_t>(lit + l), &best, &n_ties, ties)
        # upper bound b (offset l = nbm + b) uncovers the missing and the bins > b
        below = 0
        for b in range(rg[2] - nbm):
            below += d[b]
        for l in range(rg[2], rg[3]):
            below += d[l - nbm]
            keep(total - below, <int32_t>(lit + l), &best, &n_ties, ties)
    return n_ties


cdef Py_ssize_t _candidates(Search *s, const int32_t *xv, const int32_t *lo_t,
                            const int32_t *hi_t) noexcept nogil:
    """``s.cand_attr``, ``s.cand_range``: the attributes with literals a
    specialisation may add (``free_range``) and their ranges; returns how
    many attributes."""
    cdef Py_ssize_t a, n = 0
    for a in range(s.A):
        if free_range(xv[a], s.nb[a] - 1, s.ordinal[a], lo_t[a], hi_t[a],
                      s.cand_range + 4 * n):
            s.cand_attr[n] = <int32_t>a
            n += 1
    return n


cdef int _alloc_by_bits(Search *s) except -1:
    """The slot tables of :func:`_best_by_bits` (``SLSData.by_bits``)."""
    cdef Py_ssize_t a, l, nbm, G = s.G
    s.lit_lower = <int32_t *>malloc(64 * G * sizeof(int32_t))
    s.lit_upper = <int32_t *>malloc(64 * G * sizeof(int32_t))
    s.value_slots = <uint64_t *>calloc(G, sizeof(uint64_t))
    s.ordinal_slots = <uint64_t *>calloc(G, sizeof(uint64_t))
    s.allowed = <uint64_t *>calloc(G, sizeof(uint64_t))
    s.tie_lower = <uint64_t *>calloc(G, sizeof(uint64_t))
    s.tie_upper = <uint64_t *>calloc(G, sizeof(uint64_t))
    s.group_best = <int64_t *>calloc(G, sizeof(int64_t))
    s.prefix = <int32_t *>calloc(64 * G, sizeof(int32_t))
    s.group_extremes = group_extremes_avx2 if s.simd else group_extremes
    s.group_ties = group_ties_avx2 if s.simd else group_ties
    s.low = <int32_t *>calloc(64 * G, sizeof(int32_t))
    s.missing_groups = <uint64_t *>calloc(G, sizeof(uint64_t))
    if (s.lit_lower == NULL or s.lit_upper == NULL or s.value_slots == NULL
            or s.ordinal_slots == NULL or s.allowed == NULL or s.tie_lower == NULL
            or s.tie_upper == NULL or s.group_best == NULL or s.prefix == NULL
            or s.low == NULL or s.missing_groups == NULL):
        _free_search(s)
        raise MemoryError()
    for l in range(64 * G):
        s.lit_lower[l] = s.lit_upper[l] = -1
    for a in range(s.A):
        nbm = s.nb[a] - 1
        # ordinal: bins 0..nbm-1, a lower bound (literal l) uncovers bins
        # <= l, an upper bound (literal nbm + l) bins > l; nominal: values
        for l in range(nbm if s.ordinal[a] else nbm + 1):
            _set_bit(s.value_slots, s.voff[a] + l)
            if s.ordinal[a]:
                _set_bit(s.ordinal_slots, s.voff[a] + l)
                s.lit_lower[s.voff[a] + l] = <int32_t>(s.lit[a] + l)
                s.lit_upper[s.voff[a] + l] = <int32_t>(s.lit[a] + nbm + l)
            else:
                s.lit_upper[s.voff[a] + l] = <int32_t>(s.lit[a] + l)
        if s.ordinal[a] and s.has_missing[a]:  # its bins' groups read s.low
            for l in range(nbm):
                s.missing_groups[(s.voff[a] + l) >> 6] = 1
    s.by_bits = True
    return 0


cdef const int32_t *_prefix_form(Search *s, const int32_t *D) noexcept nogil:
    """The scalar loops' counts ``D`` (histogram slots, ``off``) in the
    vector code's prefix form (``voff``), for :func:`_best_by_bits`: an
    ordinal attribute's examples in bins ``<= l`` for ``l = 0..n-2`` and,
    if it has missing values, the missing ones; a nominal one's per value
    (its missing ones in no slot)."""
    cdef Py_ssize_t a, l, nbm
    cdef int32_t run
    cdef const int32_t *d
    cdef int32_t *p
    for a in range(s.A):
        nbm = s.nb[a] - 1
        d, p = D + s.off[a], s.prefix + s.voff[a]
        if s.ordinal[a]:
            run = 0
            for l in range(nbm):
                run += d[l]
                p[l] = run
            if s.has_missing[a]:  # the missing ones, after the bins
                p[nbm] = d[nbm + 1]
        else:
            for l in range(nbm + 1):
                p[l] = d[l]
    return s.prefix


cdef inline void _set_bit(uint64_t *bits, Py_ssize_t i) noexcept nogil:
    bits[i >> 6] |= (<uint64_t>1) << (i & 63)


cdef inline void _clear_bit(uint64_t *bits, Py_ssize_t i) noexcept nogil:
    bits[i >> 6] &= ~((<uint64_t>1) << (i & 63))


cdef const int32_t *_lower_changes(Search *s, const int32_t *D) noexcept nogil:
    """``s.low``: the counts ``D`` (prefix form) with, for every ordinal
    attribute with missing values, its missing slot's count added to its
    bins' slots (what a lower bound uncovers); the groups without such an
    attribute are not read from it (``s.missing_groups``)."""
    cdef Py_ssize_t a, l, nbm, g
    cdef int32_t miss
    for g in range(s.G):
        if s.missing_groups[g]:
            memcpy(s.low + 64 * g, D + 64 * g, 64 * sizeof(int32_t))
    for a in range(s.A):
        if s.ordinal[a] and s.has_missing[a]:
            nbm = s.nb[a] - 1
            miss = D[s.voff[a] + nbm]
            for l in range(nbm):
                s.low[s.voff[a] + l] = D[s.voff[a] + l] + miss
    return s.low


cdef Py_ssize_t _best_by_bits(Search *s, Py_ssize_t t, Py_ssize_t x, const int32_t *D,
                              int32_t total) noexcept nogil:
    """The literals of :func:`best_literals_prefix`, in the same order, read
    off the slots' bits: equal weights, counts ``D`` in prefix form with no
    missing slot and every attribute in a group of 64 slots
    (``s.by_bits``). Rule ``t`` covers ``x``, so the literals it can take
    that ``x`` violates are, among the slots it leaves open (an ordinal
    attribute's bins ``lo..hi-1``, an untested nominal one's values), the
    lower bounds at the slots of ``x``'s mask (bins ``v..``: change
    ``D[l]``) and the upper bounds or other values at the others (change
    ``total - D[l]``). One pass takes the lowest change of each group of
    64 slots, a second the slots of that change in the groups that reach
    it (``rules_sls_group_extremes``, ``rules_sls_group_ties``: all 64
    slots read, each kept or not by its bit, which the compiler makes
    vector code; built for AVX2 too, taken on every vector path); their
    literals are then listed, lower and upper bounds merged by literal
    number. Replaces a loop over every attribute's ranges (doc/sls.md,
    "Scoring by the slots' bits").

    An ordinal attribute with missing values: a bound uncovers the missing
    ones too, so a lower bound's change is ``D[l]`` plus the missing slot's
    count (the upper bounds' ``total - D[l]`` counts them already); the
    groups of its bins read the lower bounds from ``s.low``, ``D`` with
    that added. An example whose value is missing violates every bound of
    the attribute (``SLSData.lower_masks``)."""
    cdef Py_ssize_t g, G = s.G, i, a, l, first, n = 0, gl = 0, gu = 0
    cdef const uint64_t *mx = s.masks + x * G
    cdef const uint64_t *lx = s.lower_masks + x * G
    cdef const int32_t *L = D
    cdef uint64_t lw, uw, wl, wu, ignored
    cdef int32_t lmin, umax, ll, lu, ignored_min
    cdef int64_t best = INT64_MAX, gb
    if s.own_lower:
        L = _lower_changes(s, D)
    memcpy(s.allowed, s.value_slots, G * sizeof(uint64_t))
    for i in range(s.n_tested[t]):
        a = s.tested[t * s.A + i]
        first = s.voff[a]
        if not s.ordinal[a]:  # tested: its values are closed
            for l in range(s.nb[a]):
                _clear_bit(s.allowed, first + l)
            continue
        for l in range(s.lo[t * s.A + a]):
            _clear_bit(s.allowed, first + l)
        for l in range(s.hi[t * s.A + a], s.nb[a] - 1):
            _clear_bit(s.allowed, first + l)
    for g in range(G):
        lw = lx[g] & s.ordinal_slots[g] & s.allowed[g]
        uw = ~mx[g] & s.allowed[g]
        if s.missing_groups[g]:  # the lower bounds from L, the upper from D
            s.group_extremes(L + 64 * g, lw, 0, &lmin, &ignored_min)
            s.group_extremes(D + 64 * g, 0, uw, &ignored_min, &umax)
        else:
            s.group_extremes(D + 64 * g, lw, uw, &lmin, &umax)
        gb = lmin
        if <int64_t>total - umax < gb:
            gb = <int64_t>total - umax
        s.group_best[g] = gb
        if gb < best:
            best = gb
    for g in range(G):
        s.tie_lower[g] = s.tie_upper[g] = 0
        if s.group_best[g] != best:
            continue
        # the slots of the best change: d[l] = best among lw's, total -
        # d[l] = best among uw's
        if s.missing_groups[g]:
            s.group_ties(L + 64 * g, best, <int64_t>total - best, &wl, &ignored)
            s.group_ties(D + 64 * g, best, <int64_t>total - best, &ignored, &wu)
        else:
            s.group_ties(D + 64 * g, best, <int64_t>total - best, &wl, &wu)
        s.tie_lower[g] = wl & lx[g] & s.ordinal_slots[g] & s.allowed[g]
        s.tie_upper[g] = wu & ~mx[g] & s.allowed[g]
    # merge by literal number (an attribute may span two groups)
    wl, wu = s.tie_lower[0], s.tie_upper[0]
    while True:
        while wl == 0 and gl < G - 1:
            gl += 1
            wl = s.tie_lower[gl]
        while wu == 0 and gu < G - 1:
            gu += 1
            wu = s.tie_upper[gu]
        if wl == 0 and wu == 0:
            break
        ll = s.lit_lower[64 * gl + ctz64(wl)] if wl else INT32_MAX
        lu = s.lit_upper[64 * gu + ctz64(wu)] if wu else INT32_MAX
        if ll < lu:
            s.ties[n] = ll
            wl &= wl - 1
        else:
            s.ties[n] = lu
            wu &= wu - 1
        n += 1
    return n


cdef void _check_by_bits(Search *s, Py_ssize_t t, Py_ssize_t x, const int32_t *D,
                         int32_t total, Py_ssize_t n_ties) noexcept nogil:
    """Tests: ``s.err = 4`` unless :func:`best_literals_prefix` (the loops
    over the attributes' ranges) gives the ties of :func:`_best_by_bits`."""
    cdef Py_ssize_t i, n
    cdef int32_t *mine = <int32_t *>malloc(max(n_ties, 1) * sizeof(int32_t))
    if mine == NULL:
        s.err = 4
        return
    memcpy(mine, s.ties, n_ties * sizeof(int32_t))
    n = best_literals_prefix(D, total, s.A, s.codes + x * s.A, s.lo + t * s.A,
                             s.hi + t * s.A, s.voff, s.nb, s.lit, s.ordinal, s.has_missing,
                             s.ties)
    if n != n_ties:
        s.err = 4
    else:
        for i in range(n):
            if s.ties[i] != mine[i]:
                s.err = 4
    free(mine)


cdef Py_ssize_t _specialise(Search *s, Py_ssize_t x, double p_noise) noexcept nogil:
    """``x`` is a covered negative. A random rule covering ``x`` gets one
    literal that ``x`` violates and the rule can take: a random one with
    probability ``p_noise``, else the one whose addition gives the lowest
    score (ties uniformly at random). Returns the rule changed.

    Adding a literal to rule ``t`` uncovers the examples only ``t`` covers
    that do not satisfy it: the score changes by their positives minus
    their negatives, read from those examples' class weights per value or
    bin (:func:`_class_histograms`; equal weights: their differences,
    :func:`_kept_differences`) with prefix sums over the bins of ordinal
    attributes."""
    cdef Py_ssize_t r, j, a, l, t = -1, n_cov = 0, n_free = 0, best_l = -1, size
    cdef Py_ssize_t n_ties = 0, A = s.A
    cdef Py_ssize_t n_cand_attr = 0, n_words = 0, n_pos = 0, n_neg = 0
    cdef double tp, tn
    cdef const int32_t *D
    cdef const uint64_t *bits
    cdef uint64_t word
    cdef const int32_t *xv
    cdef const int32_t *lo_t
    cdef const int32_t *hi_t
    cdef int32_t rg[4]
    cdef bint counted = True   # the scored way: s.others is computed
    cdef int64_t counts[3]
    for r in range(s.k):  # x is valid: the coverage bitsets hold it
        if (s.cov[r * s.W + (x >> 6)] >> (x & 63)) & 1:
            n_cov += 1
            if _randint(&s.state, n_cov) == 0:
                t = r
    if t < 0:
        return -1
    # the literals the rule can take and x violates (free_range): is there
    # one? (counted in full only for a random move, which needs their number)
    xv, lo_t, hi_t = s.codes + x * A, s.lo + t * A, s.hi + t * A
    for a in range(A):
        if free_range(xv[a], s.nb[a] - 1, s.ordinal[a], lo_t[a], hi_t[a], rg):
            break
    else:
        return t
    if _uniform(&s.state) < p_noise:  # the r-th of them, in literal order
        counted = False
        for a in range(A):
            n_free += free_range(xv[a], s.nb[a] - 1, s.ordinal[a], lo_t[a], hi_t[a], rg)
        r = _randint(&s.state, n_free)
        for a in range(A):
            free_range(xv[a], s.nb[a] - 1, s.ordinal[a], lo_t[a], hi_t[a], rg)
            size = rg[1] - rg[0]
            if r < size:
                best_l = s.lit[a] + rg[0] + r
                break
            r -= size
            size = rg[3] - rg[2]
            if r < size:
                best_l = s.lit[a] + rg[2] + r
                break
            r -= size
    else:
        # the examples only rule t covers, split by class, and their words
        if s.vpop:
            others_of(s.cov, s.k, t, s.W, s.others)
            only_set(s.cov + t * s.W, s.others, s.pos, s.W, s.only, s.only_pos, s.only_neg,
                     counts)
            n_pos, n_neg, n_words = counts[0], counts[1], counts[2]
            if s.check:
                _list_words(s)
        else:
            _others(s, t)
            for j in range(s.W):
                word = s.cov[t * s.W + j] & ~s.others[j]
                s.only[j] = word
                s.only_pos[j] = word & s.pos[j]
                s.only_neg[j] = word & ~s.pos[j]
                n_pos += popcount64(s.only_pos[j])
                n_neg += popcount64(s.only_neg[j])
                if word:
                    s.words[n_words] = <int32_t>j
                    n_words += 1
        if s.unit:  # counts: the scores' differences in examples
            tp, tn = n_pos, n_neg
            D = _kept_differences(s, t, n_words, n_pos + n_neg, n_pos - n_neg)
            if s.check:
                n_cand_attr = _candidates(s, xv, lo_t, hi_t)
                _check_kept(s, t, n_cand_attr, n_words, D, tp, tn)
            if s.by_bits:  # the same literals from the counts in prefix form
                if not s.simd:
                    D = _prefix_form(s, D)
                n_ties = _best_by_bits(s, t, x, D, <int32_t>(n_pos - n_neg))
                if s.check:
                    _check_by_bits(s, t, x, D, <int32_t>(n_pos - n_neg), n_ties)
            elif s.avx2:
                n_ties = best_literals_prefix(D, <int32_t>(n_pos - n_neg), A, xv, lo_t, hi_t,
                                              s.voff, s.nb, s.lit, s.ordinal, s.has_missing,
                                              s.ties)
            elif s.simd:  # the same literals with vector registers (_sls_count.h)
                n_ties = best_literals(D, <int32_t>(n_pos - n_neg), A, xv, lo_t, hi_t, s.voff,
                                       s.nb, s.lit, s.ordinal, s.has_missing,
                                       s.score_scratch, s.ties)
            else:
                n_ties = _best_by_differences(s, xv, lo_t, hi_t, D, <int32_t>(n_pos - n_neg))
        else:
            n_cand_attr = _candidates(s, xv, lo_t, hi_t)
            tp = _weight_of(s, s.only_pos)
            tn = _weight_of(s, s.only_neg)
            _class_histograms(s, t, n_cand_attr, n_words, tp, tn)
            n_ties = _best_by_weights(s, n_cand_attr, tp, tn)
        best_l = s.ties[_randint(&s.state, n_ties)]  # the r-th tie in literal order
    if best_l >= 0:
        a = s.lit_attr[best_l]
        l = best_l - s.lit[a]
        if _none(s, t, a):
            _add_tested(s, t, <int32_t>a)
        if not s.ordinal[a]:
            s.lo[t * A + a] = <int32_t>l
            s.hi[t * A + a] = <int32_t>l
        elif l < s.nb[a] - 1:
            s.lo[t * A + a] = <int32_t>(l + 1)
        else:
            s.hi[t * A + a] = <int32_t>(l - (s.nb[a] - 1))
        bits = _literal(s, a, l)
        for j in range(s.W):
            s.cov[t * s.W + j] &= bits[j]
        if counted:  # s.others holds the other rules' coverage
            for j in range(s.W):
                s.covered[j] = s.others[j] | s.cov[t * s.W + j]
        else:
            _union(s)
    return t


# ------------------------------------------------------------ set-up

cdef void _free_search(Search *s) noexcept nogil:
    free(s.lo)
    free(s.hi)
    free(s.tested)
    free(s.n_tested)
    free(s.cov)
    free(s.others)
    free(s.covered)
    free(s.mis)
    free(s.scratch)
    free(s.only)
    free(s.only_pos)
    free(s.only_neg)
    free(s.words)
    free(s.cand_attr)
    free(s.cand_range)
    free(s.Hp)
    free(s.Hn)
    free(s.Cp)
    free(s.Cn)
    free(s.ties)
    free(s.kept_bits)
    free(s.kept_diff)
    free(s.all_diff)
    free(s.n_kept)
    free(s.kept_next)
    free(s.plus_bits)
    free(s.score_scratch)
    free(s.lit_lower)
    free(s.lit_upper)
    free(s.value_slots)
    free(s.ordinal_slots)
    free(s.allowed)
    free(s.tie_lower)
    free(s.tie_upper)
    free(s.group_best)
    free(s.prefix)
    free(s.low)
    free(s.missing_groups)
    free(s.minus_bits)
    free(s.order)
    free(s.sliced)


cdef int _alloc_search(Search *s, SLSData data, const uint64_t[::1] pos, Py_ssize_t k,
                       uint64_t seed) except -1:
    """The search's state for ``data``, the positives ``pos`` and ``k``
    rules testing nothing (free with :func:`_free_search`)."""
    cdef Py_ssize_t t, a, j, L = max(data.n_literals, 1)
    memset(s, 0, sizeof(Search))
    s.m, s.A, s.W, s.S, s.k = data.m, data.n_attrs, data.n_words, data.n_slots, k
    s.codes = &data.codes[0, 0]
    s.slots = &data.slots[0, 0]
    s.stride = data.stride
    s.cells = &data.cells[0, 0] if data.stride else NULL
    s.nb = &data.nb[0]
    s.ordinal = &data.ordinal[0]
    s.off = &data.off[0]
    s.voff = &data.voff[0]
    s.has_missing = &data.has_missing[0]
    s.DS = data.n_vslots if data.simd else data.n_slots
    s.lit = &data.lit[0]
    s.lit_attr = &data.lit_attr[0] if data.n_literals else NULL
    s.row = &data.row[0]
    s.bits = &data.bits[0, 0] if data.bits_arr.shape[0] else NULL
    s.pos = &pos[0]
    s.valid = &data.valid[0]
    s.w = &data.w[0]
    s.unit = data.unit
    s.w0 = data.w[0]
    s.state = seed
    s.lo = <int32_t *>malloc(k * s.A * sizeof(int32_t))
    s.hi = <int32_t *>malloc(k * s.A * sizeof(int32_t))
    s.tested = <int32_t *>malloc(k * s.A * sizeof(int32_t))
    s.n_tested = <int32_t *>calloc(k, sizeof(int32_t))
    s.cov = <uint64_t *>calloc(k * s.W, sizeof(uint64_t))
    s.others = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.covered = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.mis = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.scratch = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.only = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.only_pos = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.only_neg = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.words = <int32_t *>calloc(s.W, sizeof(int32_t))
    s.cand_attr = <int32_t *>calloc(s.A, sizeof(int32_t))
    s.cand_range = <int32_t *>calloc(4 * s.A, sizeof(int32_t))
    s.Hp = <double *>calloc(s.S, sizeof(double))
    s.Hn = <double *>calloc(s.S, sizeof(double))
    s.Cp = <int32_t *>calloc(s.S, sizeof(int32_t))
    s.Cn = <int32_t *>calloc(s.S, sizeof(int32_t))
    s.ties = <int32_t *>malloc(L * sizeof(int32_t))
    s.kept_bits = <uint64_t *>calloc(k * N_KEPT * s.W, sizeof(uint64_t))
    s.kept_diff = <int32_t *>calloc(k * N_KEPT * s.DS, sizeof(int32_t))
    s.kept_next = <int8_t *>calloc(k, sizeof(int8_t))
    s.all_diff = <int32_t *>calloc(s.DS, sizeof(int32_t))
    s.n_kept = <int8_t *>calloc(k, sizeof(int8_t))
    s.plus_bits = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    s.minus_bits = <uint64_t *>calloc(s.W, sizeof(uint64_t))
    if s.plus_bits == NULL or s.minus_bits == NULL:
        _free_search(s)
        raise MemoryError()
    s.simd = data.simd
    s.avx2 = data.simd and data.level == "avx2"
    s.vpop = data.simd and data.unit and data.vpop
    s.row_cost = s.A
    if s.simd:
        s.masks = &data.masks[0, 0]
        s.G = data.n_groups
        s.wide = &data.wide[0] if data.wide.shape[0] else NULL
        s.n_wide = data.wide.shape[0]
        s.row_cost = (AVX2_ROW_COST if s.avx2 else SIMD_ROW_COST) * s.G + s.n_wide
        s.score_scratch = <int32_t *>malloc(40 * s.A * sizeof(int32_t))
        if s.avx2:
            s.order = <int32_t *>malloc((s.m + 64) * sizeof(int32_t))
        if s.score_scratch == NULL or (s.avx2 and s.order == NULL):
            _free_search(s)
            raise MemoryError()
    if data.by_bits:
        s.masks = &data.masks[0, 0]
        s.lower_masks = &data.lower_masks[0, 0]
        s.own_lower = data.own_lower
        s.G = data.n_groups
        _alloc_by_bits(s)
        if not s.simd and s.unit and s.G <= SLICED_GROUPS:  # _add_side
            s.order = <int32_t *>malloc((s.m + 64) * sizeof(int32_t))
            s.sliced = <int32_t *>malloc(64 * s.G * sizeof(int32_t))
            if s.order == NULL or s.sliced == NULL:
                _free_search(s)
                raise MemoryError()
    if (s.lo == NULL or s.hi == NULL or s.tested == NULL or s.n_tested == NULL
            or s.cov == NULL or s.others == NULL or s.covered == NULL or s.mis == NULL or s.scratch == NULL
            or s.only == NULL or s.only_pos == NULL or s.only_neg == NULL or s.words == NULL
            or s.cand_attr == NULL or s.cand_range == NULL or s.Hp == NULL or s.Hn == NULL or s.ties == NULL
            or s.Cp == NULL or s.Cn == NULL or s.kept_bits == NULL
            or s.kept_diff == NULL or s.all_diff == NULL or s.n_kept == NULL or s.kept_next == NULL):
        _free_search(s)
        raise MemoryError()
    for t in range(k):
        for a in range(s.A):
            _set_none(s, t, a)
        _and_literals(s, t, -1, 0, s.cov + t * s.W)
    for a in range(s.A):
        s.n_bins += s.nb[a]
    for j in range(s.W):
        s.n_valid += popcount64(s.valid[j])
        s.plus_bits[j] = s.valid[j] & s.pos[j]
        s.minus_bits[j] = s.valid[j] & ~s.pos[j]
    if s.unit:
        _add_differences(s, s.plus_bits, s.minus_bits, s.all_diff, s.n_valid)
    return 0


cdef void _load_rules(Search *s, const int32_t *rules) noexcept nogil:
    """Rules given as ``(k, n_attrs, 2)`` (lo, hi), and their coverage."""
    cdef Py_ssize_t t, a
    for t in range(s.k):
        s.n_tested[t] = 0
        for a in range(s.A):
            s.lo[t * s.A + a] = rules[2 * (t * s.A + a)]
            s.hi[t * s.A + a] = rules[2 * (t * s.A + a) + 1]
            if not _none(s, t, a):
                _add_tested(s, t, <int32_t>a)
        _and_literals(s, t, -1, 0, s.cov + t * s.W)


cdef void _store_rules(Search *s, int32_t *out) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(s.k * s.A):
        out[2 * i] = s.lo[i]
        out[2 * i + 1] = s.hi[i]


cdef int _verify(Search *s) noexcept nogil:
    """0 if every rule's coverage and list of tested attributes agree with
    its literals, and the union of the rules is up to date (tests only)."""
    cdef Py_ssize_t t, j, a, n
    for t in range(s.k):
        n = 0
        for a in range(s.A):
            if not _none(s, t, a):
                if n >= s.n_tested[t] or s.tested[t * s.A + n] != a:
                    return 1
                n += 1
        if n != s.n_tested[t]:
            return 1
        _and_literals(s, t, -1, 0, s.scratch)
        for j in range(s.W):
            if s.scratch[j] != s.cov[t * s.W + j]:
                return 2
    for j in range(s.W):  # the union the moves keep
        s.scratch[j] = 0
        for t in range(s.k):
            s.scratch[j] |= s.cov[t * s.W + j]
        if s.scratch[j] != s.covered[j]:
            return 4
    return 0


def _check_rules(SLSData data, rules):
    """``rules`` as a valid ``(k, n_attrs, 2)`` int32 array of (lo, hi)."""
    arr = np.array(rules, dtype=np.int32, order="C", copy=True)
    if arr.ndim != 3 or arr.shape[1:] != (data.n_attrs, 2) or arr.shape[0] < 1:
        raise ValueError("rules must be (k, n_attrs, 2) with k >= 1")
    nb = data.n_bins_arr
    ordinal = data.ordinal_arr != 0
    lo, hi = arr[:, :, 0], arr[:, :, 1]
    nominal_ok = (lo == hi) & (lo >= -1) & (lo < nb)
    ordinal_ok = (lo >= 0) & (lo <= hi) & (hi <= nb - 1)
    if not np.all(np.where(ordinal, ordinal_ok, nominal_ok)):
        raise ValueError("rules hold literals outside their attributes' values, "
                         "or an empty interval")
    return arr


def _check_pos(SLSData data, pos):
    pos = np.ascontiguousarray(pos, dtype=np.uint64)
    if pos.shape != (data.n_words,):
        raise ValueError("pos must be a bitset of the examples")
    if data.m & 63 and int(pos[data.n_words - 1]) >> (data.m & 63):
        raise ValueError("pos has bits beyond the last example")
    return pos


def empty_rules(SLSData data, Py_ssize_t k):
    """``k`` rules testing nothing, as ``(k, n_attrs, 2)`` (lo, hi)."""
    out = np.empty((k, data.n_attrs, 2), dtype=np.int32)
    out[:, :, 0] = np.where(data.ordinal_arr != 0, 0, -1)
    out[:, :, 1] = np.where(data.ordinal_arr != 0, data.n_bins_arr - 1, -1)
    return out


def count_differences(SLSData data, plus, minus):
    """Per slot, the examples of the bitset ``plus`` minus those of
    ``minus`` in it, as a search counts them (``_add_differences``: histogram
    slots on the scalar path, the prefix form of ``SLSData._vector_layout``
    on the vector paths, ``data.n_vslots`` of them). For tests."""
    plus_arr, minus_arr = _check_pos(data, plus), _check_pos(data, minus)
    cdef const uint64_t[::1] p = plus_arr, q = minus_arr
    cdef Search s
    _alloc_search(&s, data, p, 1, 0)
    out = np.zeros(max(s.DS, 1), dtype=np.int32)
    cdef int32_t[::1] d = out
    try:
        _add_differences(&s, &p[0], &q[0], &d[0], -1)
    finally:
        _free_search(&s)
    return out[:s.DS]


def planes_to_counts_check(const uint64_t[::1] planes):
    """The 64 counts whose bit ``q`` is bit ``b`` of ``planes[q]``, as the
    scalar loops' bit-sliced counting reads them out at its end
    (``rules_sls_planes_to_counts``; 32 planes). For tests."""
    if planes.shape[0] != 32:
        raise ValueError("planes must hold the 32 bit planes of a group")
    out = np.zeros(64, dtype=np.int32)
    cdef int32_t[::1] o = out
    planes_to_counts(&planes[0], &o[0])
    return out


def group_passes_check(const int32_t[::1] d, uint64_t lw, uint64_t uw, int64_t a, int64_t b,
                       bint avx2=False):
    """The two passes of :func:`_best_by_bits` on one group of 64 slots:
    ``(lowest d[l] over the bits l of lw, highest over those of uw, mask of
    the slots with d[l] == a, mask of those with d[l] == b)``
    (``INT32_MAX`` / ``INT32_MIN`` for an empty mask; ``avx2``: the AVX2
    build of the loops). For tests."""
    if d.shape[0] != 64:
        raise ValueError("d must hold the 64 slots of a group")
    if avx2 and not avx2_available():
        raise RuntimeError("this CPU or build cannot run AVX2")
    cdef int32_t lmin, umax
    cdef uint64_t el, eu
    if avx2:
        group_extremes_avx2(&d[0], lw, uw, &lmin, &umax)
        group_ties_avx2(&d[0], a, b, &el, &eu)
    else:
        group_extremes(&d[0], lw, uw, &lmin, &umax)
        group_ties(&d[0], a, b, &el, &eu)
    return lmin, umax, el, eu


def sls_move(SLSData data, pos, rules_in, Py_ssize_t x, double p_noise=0.0,
             uint64_t seed=0):
    """One move of Algorithm 1 on example ``x`` for the rule set
    ``rules_in`` (``(k, n_attrs, 2)``, see :func:`sls_search`): generalise
    if ``x`` is an uncovered positive, specialise if it is a covered
    negative, nothing otherwise (nor for an example of weight 0, which a
    search never picks). Returns ``(new_rules, changed_rule)``
    (``-1``: no move). For tests and for reading the algorithm;
    :func:`sls_search` runs the same code."""
    pos_arr = _check_pos(data, pos)
    rules_arr = _check_rules(data, rules_in)
    if not 0 <= x < data.m:
        raise IndexError("x out of range")
    cdef const uint64_t[::1] pos_v = pos_arr
    cdef int32_t[:, :, ::1] rv = rules_arr
    cdef Py_ssize_t k = rules_arr.shape[0], changed = -1, t
    cdef Search s
    _alloc_search(&s, data, pos_v, k, seed)
    cdef bint positive = (pos_v[x >> 6] >> (x & 63)) & 1
    cdef bint covered = False
    cdef int err = 0
    try:
        _load_rules(&s, &rv[0, 0, 0])
        for t in range(k):
            covered = covered or _covers(&s, t, x)
        if not (s.valid[x >> 6] >> (x & 63)) & 1:  # weight 0: never picked
            positive = covered = False
        _union(&s)  # the union of the rules, as a search step finds it
        if positive and not covered:
            changed = _generalise(&s, x, p_noise)
        elif covered and not positive:
            changed = _specialise(&s, x, p_noise)
        err = _verify(&s)
        _store_rules(&s, &rv[0, 0, 0])
    finally:
        _free_search(&s)
    if err:
        raise RuntimeError(f"SLS state check failed (code {err})")
    return rules_arr, changed


def sls_search(SLSData data, pos, Py_ssize_t k, Py_ssize_t max_steps=5000,
               double p_noise=0.2, double p_restart=0.01, uint64_t seed=0,
               bint check=False):
    """Algorithm 1: search for a ``k``-term DNF with the lowest score.

    ``data``: :class:`SLSData`; ``pos``: bitset of the positive examples.
    Starts from ``k`` rules of one random literal of a random positive, then
    for ``max_steps`` steps (or until the score is 0) picks a misclassified
    example and generalises (uncovered positive) or specialises (covered
    negative) a rule for it (see ``_generalise``/``_specialise``), and with
    probability ``p_restart`` re-initialises a random rule. ``check``
    verifies the rules' coverage after every step and each specialisation's
    kept class counts against fresh ones (tests).

    Returns ``(rules, score, steps, regions, best_step)``: the best rule set
    seen as an int32 ``(k, n_attrs, 2)`` array of ``(lo, hi)`` per rule and
    attribute (nominal: ``lo = hi =`` the value, ``-1`` not tested; ordinal:
    the bins ``lo..hi``, ``0..n_bins-1`` not tested), its score, the number
    of steps taken, the weights of the positives and of the negatives where
    the rule set fires and where it does not (``[fire_pos, fire_neg,
    rest_pos, rest_neg]``) and the step at which it was found.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    if max_steps < 0:
        raise ValueError("max_steps must be non-negative")
    pos_arr = _check_pos(data, pos)
    cdef const uint64_t[::1] pos_v = pos_arr
    best_arr = np.empty((k, data.n_attrs, 2), dtype=np.int32)
    cdef int32_t[:, :, ::1] bv = best_arr
    cdef int32_t *best_rules = &bv[0, 0, 0]
    regions = np.zeros(4)
    cdef double[::1] reg = regions
    cdef Search s
    _alloc_search(&s, data, pos_v, k, seed)
    s.check = check
    cdef Py_ssize_t t, step = 0, n_pos = 0, j, x, best_step = 0
    cdef double score, best_score
    cdef int err = 0
    try:
        with nogil:
            for j in range(s.W):
                n_pos += popcount64(s.pos[j] & s.valid[j])
            for t in range(k):
                if n_pos:
                    _init_rule(&s, t, n_pos)
            _union(&s)
            score = _score(&s)
            best_score = score
            _store_rules(&s, best_rules)
            if check:
                err = _verify(&s)
            while step < max_steps and best_score > 0 and not err:
                step += 1
                x = _pick_misclassified(&s, score)
                if x < 0:
                    break
                if (s.pos[x >> 6] >> (x & 63)) & 1:
                    _generalise(&s, x, p_noise)
                else:
                    _specialise(&s, x, p_noise)
                if n_pos and _uniform(&s.state) < p_restart:
                    _init_rule(&s, _randint(&s.state, k), n_pos)
                    _union(&s)
                score = _score(&s)
                if score < best_score:
                    best_score = score
                    best_step = step
                    _store_rules(&s, best_rules)
                if check:
                    err = _verify(&s) or s.err
            # where the best rule set fires, by class
            _load_rules(&s, best_rules)
            _others(&s, -1)
            reg[0] = _weight(&s, s.others, True)
            reg[1] = _weight(&s, s.others, False)
            for j in range(s.W):
                s.scratch[j] = ~s.others[j]
            reg[2] = _weight(&s, s.scratch, True)
            reg[3] = _weight(&s, s.scratch, False)
    finally:
        _free_search(&s)
    if err:
        raise RuntimeError(f"SLS state check failed at step {step} (code {err})")
    return best_arr, best_score, step, regions, best_step


def rule_set_cover(SLSData data, rules):
    """Boolean ``(m,)``: the examples of ``data`` the rule set ``rules``
    (``(k, n_attrs, 2)``) covers (examples of weight 0 included); a numpy
    reading of the rules, independent of the search's bitsets."""
    rules_arr = _check_rules(data, rules)
    codes = data.codes_arr
    ordinal = data.ordinal_arr != 0
    out = np.zeros(data.m, dtype=bool)
    for rule in rules_arr:
        covered = np.ones(data.m, dtype=bool)
        for a in range(data.n_attrs):
            lo, hi = int(rule[a, 0]), int(rule[a, 1])
            if ordinal[a]:
                if lo > 0 or hi < data.n_bins_arr[a] - 1:
                    covered &= (codes[:, a] >= lo) & (codes[:, a] <= hi)
            elif lo >= 0:
                covered &= codes[:, a] == lo
        out |= covered
    return out
