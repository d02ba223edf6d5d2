# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Stochastic local search for k-term DNF over literal bitsets (Rückert &
Kramer 2006, Algorithm 1; Rückert & Kramer 2003).

A literal ``A = v`` is a bitset over the examples (``lit_bits``). A rule holds
at most one literal per attribute; its coverage is the AND of its literals'
bitsets (all examples for the empty rule). A rule set covers what any of its
rules covers and predicts the positive class there. The score to minimise is
the weight of the misclassified examples: uncovered positives plus covered
negatives. Each candidate move is scored from the examples whose coverage it
changes only (``O(words)`` per candidate), with popcounts when all weights are
equal.

The random numbers come from a splitmix64 generator seeded by the caller, so
a search depends on its seed only.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, uint64_t
from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

cnp.import_array()

from ._bits cimport ctz64, popcount64, word_weight


# ------------------------------------------------------------ random numbers

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


# ------------------------------------------------------------ the search

cdef struct Search:
    Py_ssize_t n_lit, W, m, n_attrs, k
    const uint64_t *lit_bits     # (n_lit, W)
    const int32_t *lit_attr      # (n_lit,)
    const int32_t *ex_lit        # (m, n_attrs): literal of each example's value, -1 if none
    const uint64_t *pos          # (W,) positive examples
    const uint64_t *valid        # (W,) examples with positive weight
    const double *w              # (m,)
    bint unit                    # all weights equal (to w[0])
    int32_t *rules               # (k, n_attrs) literal id per attribute, -1 = none
    uint64_t *cov                # (k, W) coverage of each rule
    uint64_t *others             # (W,) scratch: coverage of the other rules
    uint64_t *scratch            # (W,)
    uint64_t *only_pos           # (W,) scratch: positives only one rule covers
    uint64_t *only_neg           # (W,) scratch: negatives only one rule covers
    int32_t *words               # (W,) scratch: indices of words holding any
    long long *kept              # (n_lit, 2) scratch: counts per literal, zero between moves
    int32_t *present             # (n_lit,) scratch: literals with a count
    double *delta                # (n_lit,) scratch: each candidate's change of the score
    Py_ssize_t *absent           # (n_attrs,) scratch: candidates of an attribute without a count
    int32_t *attr_first          # (n_attrs,) first literal of each attribute (contiguous)
    int32_t *attr_size           # (n_attrs,) its number of literals
    uint64_t state


cdef inline double _weight(Search *s, const uint64_t *bits, bint positive) noexcept nogil:
    """Weight of the examples in ``bits`` that are positive (or negative)."""
    cdef Py_ssize_t j
    cdef double total = 0
    for j in range(s.W):
        total += word_weight(bits[j] & s.valid[j] & (s.pos[j] if positive else ~s.pos[j]),
                             j, s.w, s.unit)
    return total


cdef void _rule_cover(Search *s, const int32_t *rule, uint64_t *out) noexcept nogil:
    """Coverage of ``rule`` (the AND of its literals) into ``out``."""
    cdef Py_ssize_t a, j
    cdef const uint64_t *bits
    for j in range(s.W):
        out[j] = s.valid[j]
    for a in range(s.n_attrs):
        if rule[a] >= 0:
            bits = s.lit_bits + rule[a] * s.W
            for j in range(s.W):
                out[j] &= bits[j]


cdef void _others(Search *s, Py_ssize_t t) noexcept nogil:
    """``s.others`` = coverage of every rule but ``t``."""
    cdef Py_ssize_t r, j
    for j in range(s.W):
        s.others[j] = 0
    for r in range(s.k):
        if r != t:
            for j in range(s.W):
                s.others[j] |= s.cov[r * s.W + j]


cdef double _score(Search *s) noexcept nogil:
    """Weight of uncovered positives plus covered negatives."""
    cdef Py_ssize_t j
    _others(s, -1)
    for j in range(s.W):
        s.scratch[j] = ~s.others[j]
    return _weight(s, s.others, False) + _weight(s, s.scratch, True)


cdef inline bint _covers(Search *s, const int32_t *rule, Py_ssize_t x) noexcept nogil:
    cdef Py_ssize_t a
    for a in range(s.n_attrs):
        if rule[a] >= 0 and rule[a] != s.ex_lit[x * s.n_attrs + a]:
            return False
    return True


cdef void _init_rule(Search *s, Py_ssize_t t, Py_ssize_t n_pos) noexcept nogil:
    """A rule of one random literal of a random positive example."""
    cdef Py_ssize_t a, j, x = -1, r = _randint(&s.state, n_pos), seen = 0
    cdef uint64_t word
    cdef int32_t *rule = s.rules + t * s.n_attrs
    for a in range(s.n_attrs):
        rule[a] = -1
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
        a = _randint(&s.state, s.n_attrs)
        rule[a] = s.ex_lit[x * s.n_attrs + a]
    _rule_cover(s, rule, s.cov + t * s.W)


cdef Py_ssize_t _pick_misclassified(Search *s, double score) noexcept nogil:
    """A misclassified example, chosen with probability proportional to its
    weight (uniformly when weights are equal); -1 if there is none."""
    cdef Py_ssize_t j, count = 0, r, x = -1
    cdef uint64_t word
    cdef double u, acc = 0
    _others(s, -1)
    for j in range(s.W):  # misclassified: positive xor covered
        s.scratch[j] = (s.pos[j] ^ s.others[j]) & s.valid[j]
        count += popcount64(s.scratch[j])
    if count == 0:
        return -1
    if s.unit:
        r = _randint(&s.state, count)
        for j in range(s.W):
            word = s.scratch[j]
            if r >= popcount64(word):
                r -= popcount64(word)
                continue
            while r > 0:
                word &= word - 1
                r -= 1
            return j * 64 + ctz64(word)
        return -1
    u = _uniform(&s.state) * score
    for j in range(s.W):
        word = s.scratch[j]
        while word:
            x = j * 64 + ctz64(word)
            acc += s.w[x]
            if acc > u:
                return x
            word &= word - 1
    return x  # rounding: the last one


cdef Py_ssize_t _generalise(Search *s, Py_ssize_t x, double p_noise) noexcept nogil:
    """``x`` is an uncovered positive. The rule violating the fewest of ``x``'s
    literals (ties at random) drops one literal that ``x`` violates: a random
    one with probability ``p_noise``, else the one whose removal gives the
    lowest score (ties at random). Returns the rule changed."""
    cdef Py_ssize_t r, a, j, t = -1, n_best = 0, viol, best_viol = s.n_attrs + 1
    cdef Py_ssize_t cand, n_cand = 0, best_a = -1
    cdef int32_t *rule
    cdef int32_t saved
    cdef double delta, best_delta = 1e300
    for r in range(s.k):
        rule = s.rules + r * s.n_attrs
        viol = 0
        for a in range(s.n_attrs):
            if rule[a] >= 0 and rule[a] != s.ex_lit[x * s.n_attrs + a]:
                viol += 1
        if viol < best_viol:
            best_viol, t, n_best = viol, r, 1
        elif viol == best_viol:
            n_best += 1
            if _randint(&s.state, n_best) == 0:
                t = r
    rule = s.rules + t * s.n_attrs
    if _uniform(&s.state) < p_noise:
        for a in range(s.n_attrs):
            if rule[a] >= 0 and rule[a] != s.ex_lit[x * s.n_attrs + a]:
                n_cand += 1
                if _randint(&s.state, n_cand) == 0:
                    best_a = a
    else:
        _others(s, t)
        for a in range(s.n_attrs):
            if rule[a] < 0 or rule[a] == s.ex_lit[x * s.n_attrs + a]:
                continue
            saved = rule[a]
            rule[a] = -1
            _rule_cover(s, rule, s.scratch)
            rule[a] = saved
            for j in range(s.W):  # newly covered by the rule set
                s.scratch[j] &= ~s.cov[t * s.W + j] & ~s.others[j]
            delta = _weight(s, s.scratch, False) - _weight(s, s.scratch, True)
            if _take(delta, &best_delta, &n_cand, &s.state):
                best_a = a
    if best_a >= 0:
        rule[best_a] = -1
        _rule_cover(s, rule, s.cov + t * s.W)
    return t


cdef inline Py_ssize_t _free_literals(Search *s, const int32_t *rule, Py_ssize_t x,
                                      Py_ssize_t a) noexcept nogil:
    """Literals of attribute ``a`` a specialisation for ``x`` may add: all
    its values but ``x``'s, if the rule does not test ``a`` yet."""
    if rule[a] >= 0:
        return 0
    return s.attr_size[a] - (1 if s.ex_lit[x * s.n_attrs + a] >= 0 else 0)


cdef Py_ssize_t _nth_free_literal(Search *s, const int32_t *rule, Py_ssize_t x,
                                  Py_ssize_t r) noexcept nogil:
    """The ``r``-th (from 0) of those literals, in literal order."""
    cdef Py_ssize_t a, l, c
    cdef int32_t xl
    for a in range(s.n_attrs):
        c = _free_literals(s, rule, x, a)
        if r >= c:
            r -= c
            continue
        xl = s.ex_lit[x * s.n_attrs + a]
        for l in range(s.attr_first[a], s.attr_first[a] + s.attr_size[a]):
            if l == xl:
                continue
            if r == 0:
                return l
            r -= 1
    return -1


cdef Py_ssize_t _specialise(Search *s, Py_ssize_t x, double p_noise) noexcept nogil:
    """``x`` is a covered negative. A random rule covering ``x`` gets one
    literal that ``x`` violates, on an attribute the rule does not test yet:
    a random one with probability ``p_noise``, else the one whose addition
    gives the lowest score (ties uniformly at random). Returns the rule
    changed.

    Adding literal ``l`` to rule ``t`` uncovers the examples only ``t``
    covers that are outside ``l``: the score changes by their positives
    minus their negatives. Those counts come from two popcounts a word a
    literal or, when such examples are few, from one pass over them; then
    every literal none of them satisfies has the same change, so the ties
    are counted per attribute instead of literal by literal."""
    cdef Py_ssize_t r, l, a, i, j, t = -1, n_cov = 0, n_free = 0, best_l = -1
    cdef Py_ssize_t n_words = 0, n_ties, n_absent
    cdef int32_t *rule
    cdef int32_t xl
    cdef const uint64_t *bits
    cdef uint64_t word
    cdef double delta, best = INFINITY, tot_pos = 0, tot_neg = 0, d_absent
    cdef long long kept_pos, kept_neg, n_only
    cdef bint by_example = False
    for r in range(s.k):
        if _covers(s, s.rules + r * s.n_attrs, x):
            n_cov += 1
            if _randint(&s.state, n_cov) == 0:
                t = r
    if t < 0:
        return -1
    rule = s.rules + t * s.n_attrs
    for a in range(s.n_attrs):
        n_free += _free_literals(s, rule, x, a)
    if n_free == 0:
        return t
    if _uniform(&s.state) < p_noise:
        best_l = _nth_free_literal(s, rule, x, _randint(&s.state, n_free))
    else:
        # the examples only rule t covers, split by class, and their words
        _others(s, t)
        for j in range(s.W):
            word = s.cov[t * s.W + j] & ~s.others[j]
            s.only_pos[j] = word & s.pos[j]
            s.only_neg[j] = word & ~s.pos[j]
            if word:
                s.words[n_words] = <int32_t>j
                n_words += 1
        tot_pos = _weight_of(s, s.only_pos)
        tot_neg = _weight_of(s, s.only_neg)
        if s.unit:
            n_only = 0
            for i in range(n_words):
                j = s.words[i]
                n_only += popcount64(s.only_pos[j] | s.only_neg[j])
            by_example = n_only * s.n_attrs * 4 < 2 * s.n_lit * n_words  # measured
        if by_example:
            best_l = _best_by_example(s, rule, x, n_words, tot_pos, tot_neg)
        else:
            for l in range(s.n_lit):  # every candidate's change, the lowest
                a = s.lit_attr[l]
                if rule[a] >= 0 or l == s.ex_lit[x * s.n_attrs + a]:
                    s.delta[l] = INFINITY
                    continue
                bits = s.lit_bits + l * s.W
                if s.unit:
                    kept_pos = kept_neg = 0
                    for i in range(n_words):
                        j = s.words[i]
                        kept_pos += popcount64(s.only_pos[j] & bits[j])
                        kept_neg += popcount64(s.only_neg[j] & bits[j])
                    delta = (tot_pos - kept_pos * s.w[0]) - (tot_neg - kept_neg * s.w[0])
                else:
                    for j in range(s.W):  # newly uncovered by the rule set
                        s.scratch[j] = (s.only_pos[j] | s.only_neg[j]) & ~bits[j]
                    delta = _weight(s, s.scratch, True) - _weight(s, s.scratch, False)
                s.delta[l] = delta
                if delta < best:
                    best = delta
            n_ties = 0
            for l in range(s.n_lit):
                n_ties += s.delta[l] == best
            r = _randint(&s.state, n_ties)
            for l in range(s.n_lit):
                if s.delta[l] == best:
                    if r == 0:
                        best_l = l
                        break
                    r -= 1
    if best_l >= 0:
        rule[s.lit_attr[best_l]] = <int32_t>best_l
        bits = s.lit_bits + best_l * s.W
        for j in range(s.W):
            s.cov[t * s.W + j] &= bits[j]
    return t


cdef Py_ssize_t _best_by_example(Search *s, const int32_t *rule, Py_ssize_t x,
                                 Py_ssize_t n_words, double tot_pos,
                                 double tot_neg) noexcept nogil:
    """The lowest-change literal (ties uniformly at random, in literal order)
    from per-literal counts of the few examples only the rule covers: the
    literals they satisfy are listed, every other candidate of an attribute
    has the change of keeping none of them."""
    cdef Py_ssize_t i, j, a, l, n_present = 0, n_ties = 0, r, c
    cdef double best = INFINITY, delta, d_absent = tot_pos - tot_neg
    cdef bint absent_best = False
    cdef int32_t xl
    for i in range(n_words):
        j = s.words[i]
        _count_literals(s, s.only_pos[j], j, 0, &n_present)
        _count_literals(s, s.only_neg[j], j, 1, &n_present)
    for a in range(s.n_attrs):
        s.absent[a] = _free_literals(s, rule, x, a)
    for i in range(n_present):  # the candidates among the listed literals
        l = s.present[i]
        a = s.lit_attr[l]
        if rule[a] >= 0 or l == s.ex_lit[x * s.n_attrs + a]:
            s.delta[l] = INFINITY
            continue
        s.absent[a] -= 1
        delta = (tot_pos - s.kept[2 * l] * s.w[0]) - (tot_neg - s.kept[2 * l + 1] * s.w[0])
        s.delta[l] = delta
        if delta < best:
            best = delta
    for a in range(s.n_attrs):
        if s.absent[a] > 0:
            if d_absent < best:
                best = d_absent
            break
    absent_best = d_absent == best
    for a in range(s.n_attrs):  # ties per attribute
        if not absent_best:
            s.absent[a] = 0
    for i in range(n_present):
        l = s.present[i]
        if s.delta[l] == best:
            s.absent[s.lit_attr[l]] += 1
    for a in range(s.n_attrs):
        n_ties += s.absent[a]
    r = _randint(&s.state, n_ties)
    for a in range(s.n_attrs):  # the r-th tie in literal order
        c = s.absent[a]
        if r >= c:
            r -= c
            continue
        xl = s.ex_lit[x * s.n_attrs + a]
        for l in range(s.attr_first[a], s.attr_first[a] + s.attr_size[a]):
            if l == xl:
                continue
            if s.kept[2 * l] + s.kept[2 * l + 1] > 0:
                if s.delta[l] != best:
                    continue
            elif not absent_best:
                continue
            if r == 0:
                _clear_present(s, n_present)
                return l
            r -= 1
    _clear_present(s, n_present)
    return -1


cdef inline void _clear_present(Search *s, Py_ssize_t n_present) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n_present):
        s.kept[2 * s.present[i]] = 0
        s.kept[2 * s.present[i] + 1] = 0


cdef inline void _count_literals(Search *s, uint64_t word, Py_ssize_t j, int c,
                                 Py_ssize_t *n_present) noexcept nogil:
    """Add the examples of ``word`` (class ``c``: 0 positive, 1 negative)
    to ``s.kept`` under every literal they satisfy, listing each literal
    the first time (``s.kept`` is all zero between moves)."""
    cdef Py_ssize_t x, a
    cdef int32_t l
    while word:
        x = j * 64 + ctz64(word)
        word &= word - 1
        for a in range(s.n_attrs):
            l = s.ex_lit[x * s.n_attrs + a]
            if l >= 0:
                if s.kept[2 * l] + s.kept[2 * l + 1] == 0:
                    s.present[n_present[0]] = l
                    n_present[0] += 1
                s.kept[2 * l + c] += 1


cdef inline double _weight_of(Search *s, const uint64_t *bits) noexcept nogil:
    """Weight of the examples in ``bits``."""
    cdef Py_ssize_t j
    cdef double total = 0
    for j in range(s.W):
        total += word_weight(bits[j], j, s.w, s.unit)
    return total


cdef inline void _copy_rules(Search *s, int32_t *out) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(s.k * s.n_attrs):
        out[i] = s.rules[i]


def _check(lit_bits, lit_attr, ex_lit, pos, valid, w, Py_ssize_t k):
    n_lit, W = lit_bits.shape[0], lit_bits.shape[1]
    m, n_attrs = ex_lit.shape[0], ex_lit.shape[1]
    if k < 1:
        raise ValueError("k must be at least 1")
    if m < 1:
        raise ValueError("SLS needs at least one example")
    if n_attrs < 1 or n_lit < 1:
        raise ValueError("SLS needs at least one attribute and one literal")
    if W != (m + 63) // 64 or pos.shape[0] != W or valid.shape[0] != W:
        raise ValueError("bitsets do not match the number of examples")
    if lit_attr.shape[0] != n_lit or w.shape[0] != m:
        raise ValueError("lit_attr or w has the wrong length")
    la = np.asarray(lit_attr)
    if la.min() < 0 or la.max() >= n_attrs:
        raise ValueError("lit_attr out of range")
    if np.any(np.diff(la) < 0):
        raise ValueError("the literals of an attribute must be contiguous")
    el = np.asarray(ex_lit)
    if el.min() < -1 or el.max() >= n_lit:
        raise ValueError("ex_lit out of range")
    ok = el >= 0
    if not np.all(la[np.where(ok, el, 0)][ok] == np.nonzero(ok)[1]):
        raise ValueError("ex_lit names a literal of another attribute")
    if np.any(np.asarray(w) < 0):
        raise ValueError("negative weights")


cdef void _setup(Search *s, const uint64_t[:, ::1] lit_bits,
                 const int32_t[::1] lit_attr, const int32_t[:, ::1] ex_lit,
                 const uint64_t[::1] pos, const uint64_t[::1] valid,
                 const double[::1] w, Py_ssize_t k, uint64_t seed):
    s.n_lit, s.W = lit_bits.shape[0], lit_bits.shape[1]
    s.m, s.n_attrs, s.k = ex_lit.shape[0], ex_lit.shape[1], k
    s.lit_bits = &lit_bits[0, 0]
    s.lit_attr = &lit_attr[0]
    s.ex_lit = &ex_lit[0, 0]
    s.pos = &pos[0]
    s.valid = &valid[0]
    s.w = &w[0]
    s.state = seed
    w_arr = np.asarray(w)
    s.unit = bool(np.all(w_arr == w_arr[0]))


cdef void _free_buffers(Search *s, uint64_t *buf) noexcept nogil:
    free(buf)
    free(s.kept)
    free(s.present)
    free(s.delta)
    free(s.absent)
    free(s.attr_first)
    free(s.attr_size)


cdef uint64_t *_alloc_bitsets(Search *s) except NULL:
    """The search's buffers: one for the ``k`` rule coverages and the word
    scratch, and the per-literal scratch; :func:`_free_buffers` frees them."""
    cdef Py_ssize_t l
    cdef uint64_t *buf = <uint64_t *>malloc((s.k + 5) * s.W * sizeof(uint64_t))
    if buf == NULL:
        raise MemoryError()
    s.cov, s.others, s.scratch = buf, buf + s.k * s.W, buf + (s.k + 1) * s.W
    s.only_pos, s.only_neg = buf + (s.k + 2) * s.W, buf + (s.k + 3) * s.W
    s.words = <int32_t *>(buf + (s.k + 4) * s.W)  # W int32 fit in W words
    s.kept = <long long *>calloc(2 * s.n_lit, sizeof(long long))
    s.present = <int32_t *>malloc(s.n_lit * sizeof(int32_t))
    s.delta = <double *>malloc(s.n_lit * sizeof(double))
    s.absent = <Py_ssize_t *>malloc(s.n_attrs * sizeof(Py_ssize_t))
    s.attr_first = <int32_t *>calloc(s.n_attrs, sizeof(int32_t))
    s.attr_size = <int32_t *>calloc(s.n_attrs, sizeof(int32_t))
    if (s.kept == NULL or s.present == NULL or s.delta == NULL or s.absent == NULL
            or s.attr_first == NULL or s.attr_size == NULL):
        _free_buffers(s, buf)
        raise MemoryError()
    for l in range(s.n_lit - 1, -1, -1):  # literals of an attribute are contiguous
        s.attr_first[s.lit_attr[l]] = <int32_t>l
        s.attr_size[s.lit_attr[l]] += 1
    return buf


def sls_move(const uint64_t[:, ::1] lit_bits, const int32_t[::1] lit_attr,
             const int32_t[:, ::1] ex_lit, const uint64_t[::1] pos,
             const uint64_t[::1] valid, const double[::1] w, rules_in,
             Py_ssize_t x, double p_noise=0.0, uint64_t seed=0):
    """One move of Algorithm 1 on example ``x`` for the rule set ``rules_in``
    (``(k, n_attrs)`` literal ids): generalise if ``x`` is an uncovered
    positive, specialise if it is a covered negative, nothing otherwise.
    Returns ``(new_rules, changed_rule)`` (``-1``: no move). For tests and
    for reading the algorithm; :func:`sls_search` runs the same code."""
    rules_arr = np.array(rules_in, dtype=np.int32, order="C", copy=True)
    if rules_arr.ndim != 2 or rules_arr.shape[1] != ex_lit.shape[1]:
        raise ValueError("rules must be (k, n_attrs)")
    cdef Py_ssize_t k = rules_arr.shape[0], t, changed = -1
    _check(lit_bits, lit_attr, ex_lit, pos, valid, w, k)
    if not 0 <= x < ex_lit.shape[0]:
        raise IndexError("x out of range")
    if rules_arr.min() < -1 or rules_arr.max() >= lit_bits.shape[0] or np.any(
            (rules_arr >= 0) & (np.asarray(lit_attr)[np.maximum(rules_arr, 0)]
                                != np.arange(rules_arr.shape[1]))):
        raise ValueError("rules hold literals of the wrong attribute")
    cdef Search s
    _setup(&s, lit_bits, lit_attr, ex_lit, pos, valid, w, k, seed)
    cdef int32_t[:, ::1] rules = rules_arr
    s.rules = &rules[0, 0]
    cdef uint64_t *buf = _alloc_bitsets(&s)
    cdef bint positive = (pos[x >> 6] >> (x & 63)) & 1
    cdef bint covered = False
    try:
        for t in range(k):
            _rule_cover(&s, s.rules + t * s.n_attrs, s.cov + t * s.W)
            covered = covered or _covers(&s, s.rules + t * s.n_attrs, x)
        if positive and not covered:
            changed = _generalise(&s, x, p_noise)
        elif covered and not positive:
            changed = _specialise(&s, x, p_noise)
    finally:
        _free_buffers(&s, buf)
    return rules_arr, changed


def sls_search(const uint64_t[:, ::1] lit_bits, const int32_t[::1] lit_attr,
               const int32_t[:, ::1] ex_lit, const uint64_t[::1] pos,
               const uint64_t[::1] valid, const double[::1] w,
               Py_ssize_t k, Py_ssize_t max_steps=5000, double p_noise=0.2,
               double p_restart=0.01, uint64_t seed=0):
    """Algorithm 1: search for a ``k``-term DNF with the lowest score.

    ``lit_bits`` ``(n_lit, words)``: examples satisfying each literal;
    ``lit_attr``: the attribute of each literal; ``ex_lit`` ``(m, n_attrs)``:
    the literal each example satisfies on each attribute (``-1``: none);
    ``pos``/``valid``: bitsets of the positive examples and of those with
    positive weight; ``w``: example weights.

    Starts from ``k`` rules of one random literal of a random positive, then
    for ``max_steps`` steps (or until the score is 0) picks a misclassified
    example and generalises (uncovered positive) or specialises (covered
    negative) a rule for it (see ``_generalise``/``_specialise``), and with
    probability ``p_restart`` re-initialises a random rule.

    Returns ``(rules, score, steps)``: the best rule set seen as an int32
    ``(k, n_attrs)`` array of literal ids (``-1``: attribute not tested),
    its score and the number of steps taken.
    """
    _check(lit_bits, lit_attr, ex_lit, pos, valid, w, k)
    cdef Search s
    _setup(&s, lit_bits, lit_attr, ex_lit, pos, valid, w, k, seed)
    rules_arr = np.full((k, s.n_attrs), -1, dtype=np.int32)
    best_arr = np.full((k, s.n_attrs), -1, dtype=np.int32)
    cdef int32_t[:, ::1] rules = rules_arr
    cdef int32_t[:, ::1] best_rules = best_arr
    s.rules = &rules[0, 0]
    cdef uint64_t *buf = _alloc_bitsets(&s)
    cdef Py_ssize_t t, step = 0, n_pos = 0, j, x
    cdef double score, best_score
    try:
        with nogil:
            for j in range(s.W):
                n_pos += popcount64(s.pos[j] & s.valid[j])
            for t in range(k):
                if n_pos:
                    _init_rule(&s, t, n_pos)
                else:
                    _rule_cover(&s, s.rules + t * s.n_attrs, s.cov + t * s.W)
            score = _score(&s)
            best_score = score
            _copy_rules(&s, &best_rules[0, 0])
            while step < max_steps and best_score > 0:
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
                score = _score(&s)
                if score < best_score:
                    best_score = score
                    _copy_rules(&s, &best_rules[0, 0])
    finally:
        _free_buffers(&s, buf)
    return best_arr, best_score, step
