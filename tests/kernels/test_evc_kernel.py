"""The compiled EVC beam search (``core.beam_search``) against the former
Python search (``tests/evc_reference.py``) on random small data: the same
best rule and the same largest LRS per rule length, in every candidate mode
(all thresholds, boundary points, binned columns) and with every quality."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from orangecontrib.rules.core import (Quality, SearchData, beam_search, permutation_maxima,
                                      reach_table)
from orangecontrib.rules.evc import evc_quality, likelihood_ratio, m_estimate
from orangecontrib.rules.features import encode_table, ordinal_bins, search_data

from evc_reference import Task, beam_search as reference_search, threshold_candidates


@st.composite
def problems(draw):
    """A small table in SearchData form, a target coding and settings."""
    n = draw(st.integers(4, 40))
    n_disc = draw(st.integers(0, 2))
    n_cont = draw(st.integers(0 if n_disc else 1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    max_thresholds = draw(st.sampled_from([None, None, 2, 4]))
    # mostly one value per column (a bag of words' zeros), so that the
    # exception counts are used (SearchData.by_exceptions)
    sparse = draw(st.booleans())
    codes, n_bins, lo, hi, ordinal = [], [], [], [], []
    for _ in range(n_disc):
        k = int(rng.integers(2, 5))
        c = rng.integers(0, k, n).astype(np.int32)
        if sparse:
            c[rng.random(n) < 0.8] = 0
        c[rng.random(n) < 0.1] = -1
        codes.append(c)
        n_bins.append(k)
        lo.append(np.zeros(k))
        hi.append(np.zeros(k))
        ordinal.append(0)
    for _ in range(n_cont):
        x = rng.integers(0, int(rng.integers(2, 12)), n).astype(float)
        if sparse:
            x[rng.random(n) < 0.8] = 0
        x[rng.random(n) < 0.1] = np.nan
        c, l, h = ordinal_bins(x, max_thresholds)
        codes.append(c)
        n_bins.append(len(l))
        lo.append(l)
        hi.append(h)
        ordinal.append(1)
    weights = draw(st.sampled_from(["unit", "dyadic", "zeros"]))
    if weights == "unit":
        w = np.ones(n)
    elif weights == "dyadic":  # sums stay exact in any order
        w = rng.choice([0.5, 1.0, 2.0, 3.0], n)
    else:
        w = rng.choice([0.0, 1.0, 2.0], n)
    exceptions = draw(st.sampled_from([None, False, True]))
    if exceptions and not np.all(w == np.floor(w)):
        exceptions = None  # exception counts need integer weights
    sd = SearchData(np.column_stack(codes), np.array(n_bins, np.int32),
                    np.array(ordinal, np.int8), np.concatenate(lo), np.concatenate(hi), w,
                    exceptions)
    y = rng.integers(0, 2, n)
    y[: 2] = [0, 1]
    code = np.where(y == 1, 2, 0).astype(np.int8)
    if draw(st.booleans()):  # a covering step: some positives already covered
        code[(y == 1) & (rng.random(n) < 0.4)] = 1
    settings_ = dict(
        beam_width=draw(st.integers(1, 5)), max_rule_length=draw(st.integers(1, 4)),
        min_covered=draw(st.sampled_from([1.0, 2.0])),
        parent_alpha=draw(st.sampled_from([1.0, 1.0, 0.5])),
        boundary_only=draw(st.booleans()))
    return sd, code, settings_


def _run_both(sd, code, quality, settings_, mu=None, beta=None, m=2.0, alpha=1.0,
              covering=True, has_valid=True):
    w = np.asarray(sd.w_arr)
    pos = code > 0
    S, N = float(w[pos].sum()), float(w.sum())
    L = settings_["max_rule_length"]
    mu = np.zeros(L) if mu is None else mu
    beta = np.zeros(L) if beta is None else beta
    kernel = beam_search(sd, code, quality, S, N, mu, beta, m, alpha,
                         settings_["beam_width"], L, settings_["min_covered"],
                         settings_["parent_alpha"], covering, has_valid,
                         settings_["boundary_only"])
    prior = S / N if N else 0.0

    def q_of(s, n, length):
        if quality == Quality.QUALITY_LRS:
            l = likelihood_ratio(s, n, S, N)
            return l, np.ones_like(l), l
        if quality == Quality.QUALITY_M:
            l = likelihood_ratio(s, n, S, N)
            from orangecontrib.rules.evc import chi2_sf
            return m_estimate(s, n, prior, m), chi2_sf(l), l
        return evc_quality(s, n, S, N, mu[length - 1], beta[length - 1])

    valid = (lambda q, p, s, n: p <= alpha and s > n * prior) if has_valid else None
    task = Task(sd, code, S, N, settings_["boundary_only"])
    ref = reference_search(task, q_of, beam_width=settings_["beam_width"],
                           max_rule_length=L, min_covered_examples=settings_["min_covered"],
                           parent_alpha=settings_["parent_alpha"], valid=valid,
                           covering=covering)
    return kernel, ref


def _same(kernel, ref):
    conds, stats, _, mask = kernel
    found, _ = ref
    assert (conds is None) == (found is None)
    if found is None:
        return
    assert frozenset(map(tuple, conds)) == frozenset(found.conditions)
    assert stats == (found.s, found.n, found.q, found.p, found.lrs)
    np.testing.assert_array_equal(mask, found.mask)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_permutation_search_matches_reference(problem):
    """LRS quality, no covering, no valid rule: the per-length maxima."""
    sd, code, s = problem
    code = np.where(code > 0, 2, 0).astype(np.int8)
    kernel, ref = _run_both(sd, code, Quality.QUALITY_LRS, s, covering=False,
                            has_valid=False)
    assert kernel[0] is None
    np.testing.assert_array_equal(kernel[2], ref[1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.floats(0.0, 6.0), st.floats(0.0, 3.0), st.sampled_from([0.05, 0.5, 1.0]))
def test_evc_search_matches_reference(problem, mu, beta, alpha):
    sd, code, s = problem
    L = s["max_rule_length"]
    mus = mu + np.arange(L) * 0.7  # non-decreasing in the length, as fitted
    betas = np.full(L, beta)
    kernel, ref = _run_both(sd, code, Quality.QUALITY_EVC, s, mus, betas, alpha=alpha)
    _same(kernel, ref)
    w = np.asarray(sd.w_arr)
    S = float(w[code > 0].sum())
    if np.all(w == np.floor(w)):  # the bound of pure rules prunes, changes nothing
        reach = reach_table(S, float(w.sum()), mus, betas)
        pruned = beam_search(sd, code, Quality.QUALITY_EVC, S, float(w.sum()), mus, betas,
                             2.0, alpha, s["beam_width"], L, s["min_covered"],
                             s["parent_alpha"], True, True, s["boundary_only"], None, None,
                             reach)
        assert pruned[:2] == kernel[:2]
        np.testing.assert_array_equal(pruned[3], kernel[3])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from([0.0, 2.0, 22.0]), st.sampled_from([0.05, 1.0]))
def test_m_estimate_search_matches_reference(problem, m, alpha):
    sd, code, s = problem
    kernel, ref = _run_both(sd, code, Quality.QUALITY_M, s, m=m, alpha=alpha)
    _same(kernel, ref)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_all_thresholds_are_every_midpoint(seed):
    """With exact bins and every threshold, the reference's candidates are
    every threshold of :func:`evc_reference.threshold_candidates`
    (midpoints between consecutive covered values, counts below and above)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    x = rng.integers(0, 8, n).astype(float) * 0.5
    x[rng.random(n) < 0.1] = np.nan
    y = rng.integers(0, 3, n).astype(np.int32)
    w = rng.choice([0.0, 1.0, 2.0], n)
    covered = rng.random(n) < 0.7
    codes, lo, hi = ordinal_bins(x)
    sd = SearchData(codes[:, None], np.array([len(lo)], np.int32), np.ones(1, np.int8),
                    lo, hi, w)
    task = Task(sd, y.astype(np.int8), 1.0, 2.0, boundary_only=False)
    f, op, t, cnt = task.refinements(covered, set())
    thr, below, ncand, total = threshold_candidates(x[:, None], y, w, covered, 3)
    k = ncand[0]
    le, ge = op == 1, op == 2
    np.testing.assert_array_equal(t[le], thr[0, :k])
    np.testing.assert_array_equal(t[ge], thr[0, :k])
    np.testing.assert_array_equal(cnt[le], below[0, :k])
    np.testing.assert_array_equal(cnt[ge], total[0] - below[0, :k])


def test_permutation_maxima_is_one_search_per_class(heart):
    enc = encode_table(heart)
    sd, _ = search_data(enc, None)
    y = enc.y[np.random.default_rng(1).permutation(enc.n)].astype(np.int32)
    S = np.array([float(enc.w[y == c].sum()) for c in range(enc.n_classes)] + [0.0])
    classes = np.arange(enc.n_classes + 1, dtype=np.int32)  # one class absent
    out = permutation_maxima(sd, y, classes, S, float(enc.w.sum()), 5, 3, 1.0, True)
    assert out.shape == (enc.n_classes + 1, 3)
    assert np.all(out[-1] == 0)
    for c in range(enc.n_classes):
        code = np.where(y == c, 2, 0).astype(np.int8)
        _, _, level, _ = beam_search(sd, code, Quality.QUALITY_LRS, S[c],
                                     float(enc.w.sum()), np.zeros(3), np.zeros(3),
                                     2.0, 1.0, 5, 3, 1.0, 1.0, False, False, True)
        np.testing.assert_array_equal(out[c], level)


def test_binning_is_equal_frequency_and_exact_when_small():
    x = np.r_[np.arange(100.0), [np.nan]]
    codes, lo, hi = ordinal_bins(x)
    assert len(lo) == 100 and codes[-1] == -1 and np.array_equal(lo, hi)
    codes, lo, hi = ordinal_bins(x, 4)
    assert len(lo) == 5
    np.testing.assert_array_equal(np.bincount(codes[:-1]), [20] * 5)
    assert np.all(hi[:-1] < lo[1:])  # bins do not overlap
    for b in range(5):
        assert np.all((x[:-1][codes[:-1] == b] >= lo[b]) & (x[:-1][codes[:-1] == b] <= hi[b]))
    # heavy ties: a cut never splits a value
    x = np.r_[np.zeros(90), np.arange(1.0, 11.0)]
    codes, lo, hi = ordinal_bins(x, 4)
    assert len(set(codes[:90])) == 1 and len(lo) <= 5


def test_search_data_checks_its_input():
    ok = dict(codes=np.zeros((3, 1), np.int32), n_bins=np.array([2], np.int32),
              ordinal=np.zeros(1, np.int8), lo=np.zeros(2), hi=np.zeros(2), w=np.ones(3))
    SearchData(**ok)
    with pytest.raises(ValueError, match="code outside"):
        SearchData(**{**ok, "codes": np.full((3, 1), 2, np.int32)})
    with pytest.raises(ValueError, match="weights"):
        SearchData(**{**ok, "w": np.array([1.0, -1.0, 1.0])})
    with pytest.raises(ValueError, match="slot"):
        SearchData(**{**ok, "lo": np.zeros(3)})
    sd = SearchData(**ok)
    with pytest.raises(ValueError, match="pseudo-class"):
        beam_search(sd, np.full(3, 3, np.int8), 0, 1.0, 3.0, np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="one entry per row"):
        beam_search(sd, np.zeros(2, np.int8), 0, 1.0, 3.0, np.zeros(5), np.zeros(5))


def _covering_args(w, code, s, mu, beta):
    """``beam_search``'s arguments after the data and coding for a covering
    search with the EVC quality (Gumbel parameters growing with the rule's
    length), and the total weight ``N``."""
    L = s["max_rule_length"]
    S, N = float(w[code > 0].sum()), float(w.sum())
    return (Quality.QUALITY_EVC, S, N, mu + np.arange(L) * 0.5, np.full(L, beta), 2.0,
            0.5, s["beam_width"], L, s["min_covered"], s["parent_alpha"], True, True,
            s["boundary_only"]), N


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.floats(0.0, 4.0), st.floats(0.0, 2.0))
def test_search_cache_changes_no_result(problem, mu, beta):
    """A whole covering loop with and without the cache of counted rules."""
    from orangecontrib.rules.core import SearchCache
    sd, code, s = problem
    w = np.asarray(sd.w_arr)
    args, _ = _covering_args(w, code, s, mu, beta)
    cache = SearchCache(sd)
    code = code.copy()
    for _ in range(20):
        plain = beam_search(sd, code, *args)
        cached = beam_search(sd, code, *args, None, cache)
        assert plain[0] == cached[0] and plain[1] == cached[1]
        np.testing.assert_array_equal(plain[3], cached[3])
        if plain[0] is None:
            break
        code[(code == 2) & plain[3]] = 1
    if np.all(w == np.floor(w)):
        assert cache.hits + cache.misses > 0  # used with integer weights only


def _layouts(sd):
    """``sd`` counted row by row and by exceptions (integer weights only)."""
    args = (sd.codes_arr, sd.n_bins_arr, sd.ordinal_arr, sd.lo_arr, sd.hi_arr, sd.w_arr)
    return SearchData(*args, exceptions=False), SearchData(*args, exceptions=True)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.floats(0.0, 4.0), st.floats(0.0, 2.0))
def test_exception_counts_give_the_same_searches_to_the_last_bit(problem, mu, beta):
    """The same rules, statistics (exactly equal floats), covered rows and
    per-length maxima whether the class counts come row by row or from the
    exceptions: a covering loop with the cache of counted rules (which
    moves the newly covered positives' weights) and the permutation
    searches."""
    from orangecontrib.rules.core import SearchCache
    sd, code, s = problem
    w = np.asarray(sd.w_arr)
    if not np.all(w == np.floor(w)):
        with pytest.raises(ValueError, match="integer weights"):
            _layouts(sd)
        return
    rows, exc = _layouts(sd)
    assert not rows.by_exceptions and exc.by_exceptions
    assert exc.n_exceptions <= sd.n * sd.n_feat
    L = s["max_rule_length"]
    args, N = _covering_args(w, code, s, mu, beta)
    caches = SearchCache(rows), SearchCache(exc)
    code = code.copy()
    for _ in range(20):
        a = beam_search(rows, code, *args, None, caches[0])
        b = beam_search(exc, code, *args, None, caches[1])
        assert a[0] == b[0] and a[1] == b[1]
        np.testing.assert_array_equal(a[2], b[2])
        np.testing.assert_array_equal(a[3], b[3])
        if a[0] is None:
            break
        code[(code == 2) & a[3]] = 1
    y = (code > 0).astype(np.int32)
    S2 = np.array([float(w[y == c].sum()) for c in range(2)])
    for layout_args in ((s["beam_width"], L, s["min_covered"], s["boundary_only"]),):
        np.testing.assert_array_equal(
            permutation_maxima(rows, y, np.arange(2, dtype=np.int32), S2, N, *layout_args),
            permutation_maxima(exc, y, np.arange(2, dtype=np.int32), S2, N, *layout_args))


def test_exception_counts_are_chosen_for_mostly_constant_columns():
    """By default: with integer weights when at most a quarter of the cells
    are not their column's most common code; never with other weights. The
    choice survives pickling, and the data take less memory."""
    import pickle
    rng = np.random.default_rng(0)
    n, F = 200, 30
    codes = np.where(rng.random((n, F)) < 0.1, 1, 0).astype(np.int32)
    codes[rng.random((n, F)) < 0.02] = -1
    args = (codes, np.full(F, 2, np.int32), np.ones(F, np.int8), np.zeros(2 * F),
            np.ones(2 * F))
    sparse = SearchData(*args, np.ones(n))
    assert sparse.by_exceptions
    assert sparse.n_exceptions == int((codes != 0).sum())
    assert sparse.__sizeof__() < SearchData(*args, np.ones(n), False).__sizeof__()
    assert pickle.loads(pickle.dumps(sparse)).by_exceptions
    assert not pickle.loads(pickle.dumps(SearchData(*args, np.ones(n), False))).by_exceptions
    assert not SearchData(*args, np.full(n, 0.5)).by_exceptions  # not integer
    dense = rng.integers(0, 2, (n, F)).astype(np.int32)
    assert not SearchData(dense, *args[1:], np.ones(n)).by_exceptions


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.floats(0.0, 4.0), st.floats(0.0, 2.0))
def test_counts_by_complement_give_the_same_searches_to_the_last_bit(problem, mu, beta):
    """A rule's class counts as its parent's less the rows it drops (with
    integer, positive weights; ``_evc.complement_bytes``, here whenever a
    rule drops fewer rows than it keeps) or by its own rows: the same
    rules, statistics (exactly equal floats), covered rows in a covering
    loop (with the cache of counted rules too, which turns it off), and
    the same per-length maxima of the permutation searches."""
    from orangecontrib.rules.core import SearchCache, _evc
    sd, code, s = problem
    w = np.asarray(sd.w_arr)
    L = s["max_rule_length"]
    args, N = _covering_args(w, code, s, mu, beta)
    y = (code > 0).astype(np.int32)
    S2 = np.array([float(w[y == c].sum()) for c in range(2)])
    perm = (sd, y, np.arange(2, dtype=np.int32), S2, N, s["beam_width"], L,
            s["min_covered"], s["boundary_only"])

    def loop(cache_too):
        out, c = [], code.copy()
        cache = SearchCache(sd) if cache_too else None
        for _ in range(20):
            r = beam_search(sd, c, *args, None, cache)
            out.append((r, _evc.last_search_work()[0]))
            if r[0] is None:
                break
            c[(c == 2) & r[3]] = 1
        return out, permutation_maxima(*perm)

    default = _evc.complement_bytes()
    try:
        for cache_too in (False, True):
            _evc.complement_bytes(default[0], 0)
            by_complement, maxima = loop(cache_too)
            _evc.complement_bytes(0)
            own_rows, own_maxima = loop(cache_too)
            _evc.complement_bytes(*default)
            assert len(by_complement) == len(own_rows)
            for (a, worked_a), (b, worked_b) in zip(by_complement, own_rows):
                assert a[0] == b[0] and a[1] == b[1]
                np.testing.assert_array_equal(a[2], b[2])
                np.testing.assert_array_equal(a[3], b[3])
                assert worked_a <= worked_b  # never more rows counted
            np.testing.assert_array_equal(maxima, own_maxima)
    finally:
        _evc.complement_bytes(*default)


def test_counts_by_complement_count_fewer_rows_on_real_data():
    """On heart_disease (unit weights, every cell its own code) the beam's
    refinements that keep most of their parent's rows are counted by the
    rows they drop: fewer rows counted, the same rule (with the default
    cost of a slot, and counting by complement whenever it can)."""
    from Orange.data import Table

    from orangecontrib.rules.core import _evc
    enc = encode_table(Table("heart_disease"))
    sd, _ = search_data(enc, max_thresholds=16)
    assert not sd.by_exceptions and sd.positive_weights
    code = np.where(enc.y == 1, 2, 0).astype(np.int8)
    S, N = float((enc.y == 1).sum()), float(enc.n)
    args = (sd, code, Quality.QUALITY_LRS, S, N, np.zeros(4), np.zeros(4), 2.0, 1.0, 5, 4)
    default = _evc.complement_bytes()
    try:
        fast = beam_search(*args)
        fast_rows = _evc.last_search_work()[0]
        _evc.complement_bytes(default[0], 0)
        fastest = beam_search(*args)
        fastest_rows = _evc.last_search_work()[0]
        _evc.complement_bytes(0)
        slow = beam_search(*args)
        slow_rows = _evc.last_search_work()[0]
    finally:
        _evc.complement_bytes(*default)
    assert fast[:2] == slow[:2] == fastest[:2]
    np.testing.assert_array_equal(fast[3], slow[3])
    np.testing.assert_array_equal(fastest[3], slow[3])
    assert fastest_rows <= fast_rows < slow_rows
    assert _evc.complement_bytes() == default
    for bad in ((-1, None), (None, -1)):
        with pytest.raises(ValueError, match=">= 0"):
            _evc.complement_bytes(*bad)
