# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Class association rules ``itemset -> class`` by Eclat over bitsets.

An item is a literal ``A = v`` given as a bitset over the examples. A
depth-first search extends an itemset with items of later attributes (two
values of one attribute never hold together), keeping the AND of their
bitsets. The support of ``itemset -> class`` is the weight of the covered
examples of that class (anti-monotone, so a branch below the minimum is cut);
its confidence is that over the weight of all covered examples. Every
itemset with enough support and confidence is a candidate, except one with
an item that changes no coverage (it has the ROC point of the itemset
without that item, a shorter rule the search also visits): apart from those
duplicates, the miner finds exactly the candidates Apriori would.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memmove

cnp.import_array()

from ._bits cimport popcount64, word_weight
from ._hull import equal_weights


cdef struct Miner:
    Py_ssize_t n_items, W, max_len, max_out
    const uint64_t *item_bits
    const int32_t *item_attr
    const uint64_t *pos
    const double *w
    bint unit
    double min_support, min_confidence
    # growable outputs
    Py_ssize_t n_out, cap_out, n_flat, cap_flat
    int32_t *flat        # items of every candidate, concatenated
    int32_t *ends        # end offset of each candidate in flat
    double *support      # weight of covered examples of the class
    double *cover        # weight of covered examples
    uint64_t *bits_out   # coverage of each candidate (cap_out, W); NULL: not kept
    bint with_bits
    bint overflow, nomem
    int32_t *prefix      # the current itemset
    uint64_t *stack      # (max_len + 1, W) bitsets along the path
    double *cover_stack  # (max_len + 1,) their covered weights
    double *support_stack  # and their support
    bint productive
    long long visits, max_visits  # itemsets with enough support seen, and the limit
    bint shorten         # over a limit: drop the longest length and go on
    long long *visits_at  # (max_len + 1,) visits per itemset length


cdef inline double _weight(Miner *s, const uint64_t *bits, bint positive_only) noexcept nogil:
    cdef Py_ssize_t j
    cdef double total = 0
    cdef long long count = 0
    if s.unit:
        for j in range(s.W):
            count += popcount64(bits[j] & s.pos[j] if positive_only else bits[j])
        return count * s.w[0]
    for j in range(s.W):
        total += word_weight(bits[j] & s.pos[j] if positive_only else bits[j],
                             j, s.w, s.unit)
    return total


cdef bint _shorten(Miner *s) noexcept nogil:
    """Over a limit with ``shorten``: drop the itemsets of the longest
    length (candidates and visits) and go on mining the shorter ones, while
    more than one length is left; False (and ``overflow``) otherwise. The
    candidates and visits left are exactly those of a search with the
    shorter length so far, so the search that goes on is complete for it."""
    cdef Py_ssize_t k, a = 0, b, n = 0, flat = 0
    if not s.shorten or s.max_len <= 1:
        s.overflow = True
        return False
    for k in range(s.n_out):  # keep the candidates shorter than max_len, in order
        b = s.ends[k]
        if b - a < s.max_len:
            memmove(s.flat + flat, s.flat + a, (b - a) * sizeof(int32_t))
            flat += b - a
            s.ends[n] = <int32_t>flat
            s.support[n] = s.support[k]
            s.cover[n] = s.cover[k]
            if s.with_bits:
                memmove(s.bits_out + n * s.W, s.bits_out + k * s.W, s.W * sizeof(uint64_t))
            n += 1
        a = b
    s.n_out, s.n_flat = n, flat
    s.visits -= s.visits_at[s.max_len]
    s.visits_at[s.max_len] = 0
    s.max_len -= 1
    return True


cdef bint _emit(Miner *s, Py_ssize_t depth, const uint64_t *bits,
                double sup, double cov) noexcept nogil:
    """Append the current itemset; False when out of memory or capacity
    (with ``shorten``: True, and the itemset is dropped if its length was)."""
    cdef Py_ssize_t need
    while s.n_out >= s.max_out:
        if not _shorten(s):
            return False
        if depth > s.max_len:
            return True
    if s.n_out == s.cap_out:
        s.cap_out = 2 * s.cap_out
        s.ends = <int32_t *>realloc(s.ends, s.cap_out * sizeof(int32_t))
        s.support = <double *>realloc(s.support, s.cap_out * sizeof(double))
        s.cover = <double *>realloc(s.cover, s.cap_out * sizeof(double))
        if s.with_bits:
            s.bits_out = <uint64_t *>realloc(s.bits_out, s.cap_out * s.W * sizeof(uint64_t))
        if (s.ends == NULL or s.support == NULL or s.cover == NULL
                or (s.with_bits and s.bits_out == NULL)):
            s.nomem = True
            return False
    need = s.n_flat + depth
    if need > s.cap_flat:
        while s.cap_flat < need:
            s.cap_flat = 2 * s.cap_flat
        s.flat = <int32_t *>realloc(s.flat, s.cap_flat * sizeof(int32_t))
        if s.flat == NULL:
            s.nomem = True
            return False
    memcpy(s.flat + s.n_flat, s.prefix, depth * sizeof(int32_t))
    s.n_flat = need
    s.ends[s.n_out] = <int32_t>need
    s.support[s.n_out] = sup
    s.cover[s.n_out] = cov
    if s.with_bits:
        memcpy(s.bits_out + s.n_out * s.W, bits, s.W * sizeof(uint64_t))
    s.n_out += 1
    return True


cdef bint _extend(Miner *s, Py_ssize_t depth, Py_ssize_t first) noexcept nogil:
    """Extend ``prefix[:depth]`` (bitset ``stack[depth]``) by items
    ``first..``; False to stop the whole search."""
    cdef Py_ssize_t i, j
    cdef const uint64_t *parent = s.stack + depth * s.W
    cdef uint64_t *child = s.stack + (depth + 1) * s.W
    cdef const uint64_t *item
    cdef double sup, cov
    cdef int32_t last_attr = s.item_attr[s.prefix[depth - 1]] if depth else -1
    cdef uint64_t word
    cdef long long n_sup, n_cov
    for i in range(first, s.n_items):
        if depth >= s.max_len:  # the longest length was dropped (_shorten)
            return True
        if s.item_attr[i] == last_attr:  # same attribute: never together
            continue
        item = s.item_bits + i * s.W
        if s.unit:  # one pass: the AND and both counts, in integers
            n_sup = 0
            n_cov = 0
            for j in range(s.W):
                word = parent[j] & item[j]
                child[j] = word
                n_sup += popcount64(word & s.pos[j])
                n_cov += popcount64(word)
            sup = n_sup * s.w[0]
            cov = n_cov * s.w[0]
        else:
            sup = 0
            cov = 0
            for j in range(s.W):
                word = parent[j] & item[j]
                child[j] = word
                sup += word_weight(word & s.pos[j], j, s.w, False)
                cov += word_weight(word, j, s.w, False)
        if sup < s.min_support:  # anti-monotone: no superset qualifies
            continue
        s.visits += 1
        s.visits_at[depth + 1] += 1
        while s.visits > s.max_visits:
            if not _shorten(s):
                return False
            if depth >= s.max_len:
                return True
        if cov >= s.cover_stack[depth]:
            # the item changes no coverage: this itemset and every extension
            # of it cover what the same itemsets without it cover, which the
            # search visits anyway (same ROC point, longer rule)
            continue
        s.prefix[depth] = <int32_t>i
        s.cover_stack[depth + 1] = cov
        s.support_stack[depth + 1] = sup
        # productive: more confident than the itemset it extends (sup / cov >
        # parent's), else its ROC point is on or below the segment from the
        # origin to the parent's and never on the hull
        if sup >= s.min_confidence * cov and (
                not s.productive
                or sup * s.cover_stack[depth] > s.support_stack[depth] * cov):
            if not _emit(s, depth + 1, child, sup, cov):
                return False
            if depth >= s.max_len:  # shortened while emitting
                return True
        if depth + 1 < s.max_len and not (s.productive and sup >= cov):
            # (below a pure itemset nothing is more confident)
            if not _extend(s, depth + 1, i + 1):
                return False
    return True


def mine_class_rules(const uint64_t[:, ::1] item_bits, const int32_t[::1] item_attr,
                     const uint64_t[::1] pos, const double[::1] w,
                     double min_support, double min_confidence,
                     Py_ssize_t max_len, Py_ssize_t max_rules=2_000_000,
                     bint productive=False, long long max_visits=-1,
                     bint with_bits=True, bint shorten=False):
    """All itemsets ``S`` (at most ``max_len`` items, at most one per
    attribute) with ``support(S -> class) >= min_support`` and
    ``support / cover >= min_confidence`` (weights, not fractions).

    ``item_bits`` ``(n_items, words)``: examples with each item; items must
    be sorted by attribute (``item_attr`` non-decreasing). ``pos``: bitset of
    the class's examples; ``w``: example weights.

    Returns ``(items, ends, support, cover, bits, complete, length)``:
    candidate ``c`` is ``items[ends[c-1]:ends[c]]``, ``bits`` its coverage,
    ``complete`` False if the search stopped at ``max_rules`` candidates
    (or ``max_visits``) and ``length`` the longest itemset length searched.
    ``shorten``: over either limit, drop the longest length and go on, so
    the result is that of the longest ``max_len`` whose search stays within
    both (complete, unless even single items exceed them), found in one
    search instead of one per length.
    With ``productive``, an itemset is a candidate only if it is more
    confident than the itemset it extends (the empty one: the class prior).
    ``max_visits``: also stop (``complete`` False) after visiting this many
    itemsets with enough support (-1: no limit). ``with_bits=False``: the
    candidates' coverage is not kept (``bits`` is None; a candidate's
    coverage is the AND of its items' bitsets), so their number does not
    cost memory in proportion to the rows.
    """
    cdef Py_ssize_t n_items = item_bits.shape[0], W = item_bits.shape[1]
    attr = np.asarray(item_attr)
    if attr.shape[0] != n_items:
        raise ValueError("item_attr does not match item_bits")
    if n_items and np.any(np.diff(attr) < 0):
        raise ValueError("items must be sorted by attribute")
    if w.shape[0] < 1:
        raise ValueError("no examples")
    if pos.shape[0] != W or w.shape[0] > 64 * W or w.shape[0] <= 64 * (W - 1):
        raise ValueError("pos or w does not match the bitsets")
    if max_len < 1 or max_rules < 1:
        raise ValueError("max_len and max_rules must be at least 1")
    if not 0 <= min_confidence <= 1:
        raise ValueError("min_confidence must be in [0, 1]")
    if np.any(np.asarray(w) < 0):
        raise ValueError("negative weights")
    cdef Miner s
    s.n_items, s.W, s.max_out = n_items, W, max_rules
    s.max_len = min(max_len, len(np.unique(attr))) if n_items else 0
    s.item_bits = &item_bits[0, 0] if n_items else NULL
    s.item_attr = &item_attr[0] if n_items else NULL
    s.pos = &pos[0]
    s.w = &w[0]
    s.unit = equal_weights(w)
    s.min_support = max(min_support, 1e-300)  # an itemset must cover something
    s.min_confidence = min_confidence
    s.n_out, s.cap_out, s.n_flat, s.cap_flat = 0, 64, 0, 256
    s.overflow, s.nomem = False, False
    s.flat = <int32_t *>malloc(s.cap_flat * sizeof(int32_t))
    s.ends = <int32_t *>malloc(s.cap_out * sizeof(int32_t))
    s.support = <double *>malloc(s.cap_out * sizeof(double))
    s.cover = <double *>malloc(s.cap_out * sizeof(double))
    s.with_bits = with_bits
    s.bits_out = <uint64_t *>malloc(s.cap_out * W * sizeof(uint64_t)) if with_bits else NULL
    s.prefix = <int32_t *>malloc((s.max_len + 1) * sizeof(int32_t))
    s.stack = <uint64_t *>malloc((s.max_len + 2) * W * sizeof(uint64_t))
    s.cover_stack = <double *>malloc((s.max_len + 2) * sizeof(double))
    s.support_stack = <double *>malloc((s.max_len + 2) * sizeof(double))
    s.productive = productive
    s.visits = 0
    s.shorten = shorten
    s.visits_at = <long long *>calloc(s.max_len + 2, sizeof(long long))
    s.max_visits = max_visits if max_visits >= 0 else (<long long>1 << 62)
    cdef Py_ssize_t j, m = w.shape[0]
    try:
        if (s.flat == NULL or s.ends == NULL or s.support == NULL or s.cover == NULL
                or (with_bits and s.bits_out == NULL) or s.prefix == NULL or s.stack == NULL
                or s.cover_stack == NULL or s.support_stack == NULL
                or s.visits_at == NULL):
            raise MemoryError()
        with nogil:
            for j in range(W):  # the empty itemset covers every example
                s.stack[j] = ~(<uint64_t>0)
            if m % 64:
                s.stack[W - 1] = ((<uint64_t>1) << (m % 64)) - 1
            s.cover_stack[0] = _weight(&s, s.stack, False)
            s.support_stack[0] = _weight(&s, s.stack, True)
            if s.max_len:
                _extend(&s, 0, 0)
        if s.nomem:
            raise MemoryError("out of memory while mining itemsets")
        n = s.n_out
        items = np.array(<int32_t[:s.n_flat]>s.flat, dtype=np.int32) if s.n_flat \
            else np.zeros(0, np.int32)
        ends = np.array(<int32_t[:n]>s.ends, dtype=np.int32) if n else np.zeros(0, np.int32)
        support = np.array(<double[:n]>s.support) if n else np.zeros(0)
        cover = np.array(<double[:n]>s.cover) if n else np.zeros(0)
        if not with_bits:
            bits = None
        elif n and W:
            bits = np.array(<uint64_t[:n * W]>s.bits_out, dtype=np.uint64).reshape(n, W)
        else:
            bits = np.zeros((n, W), np.uint64)
        return items, ends, support, cover, bits, not s.overflow, s.max_len
    finally:
        free(s.flat)
        free(s.ends)
        free(s.support)
        free(s.cover)
        free(s.bits_out)
        free(s.prefix)
        free(s.stack)
        free(s.cover_stack)
        free(s.support_stack)
        free(s.visits_at)
