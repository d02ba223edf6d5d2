"""core/_slipper.pyx against numpy references (``evc_reference.threshold_candidates``),
and its sparse sweep against its dense one, to the last bit."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from Orange.data import Table

from orangecontrib.rules import core
from orangecontrib.rules.features import stored_order
from orangecontrib.rules.slipper import grow_objective

from evc_reference import threshold_candidates


@st.composite
def data(draw):
    n = draw(st.integers(1, 80))
    n_cont = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    Xc = np.round(rng.normal(size=(n, n_cont)) * 2) / 2
    Xc[rng.random(Xc.shape) < draw(st.sampled_from([0.0, 0.5, 0.9]))] = 0  # sparse
    Xc[rng.random(Xc.shape) < 0.15] = np.nan
    ypos = rng.integers(0, 2, n).astype(np.int32)
    D = rng.choice([0.0, 0.5, 1.0, 3.0], n) / n
    covered = (rng.random(n) < draw(st.sampled_from([0.3, 0.8, 1.0]))).astype(np.uint8)
    order = np.ascontiguousarray(np.argsort(Xc, axis=0, kind="stable").T, dtype=np.int32)
    n_valid = (~np.isnan(Xc)).sum(axis=0).astype(np.int32)
    return Xc, ypos, D, covered, order, n_valid


def sorted_cols(Xc, ypos, D, order, n_valid):
    """The dense sweep's columns: ``(order, groups, n_valid)`` of all rows,
    the arguments after them (``full_order, XcT, signed``), and ``signed``."""
    XcT = np.ascontiguousarray(Xc.T)
    signed = core.fixed_point(np.where(ypos == 1, D, -D) / max(D.sum(), 1e-300))
    groups = core.tie_groups(order, XcT, n_valid)
    return (order, groups, n_valid), (order, XcT, signed), signed


def test_tie_groups_are_the_first_position_of_each_value():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n, k = rng.integers(1, 40), rng.integers(1, 4)
        Xc = rng.integers(-3, 4, size=(n, k)).astype(float) / 2
        Xc[rng.random(Xc.shape) < 0.2] = np.nan
        Xc[Xc == 0] = rng.choice([0.0, -0.0], size=(Xc == 0).sum())  # equal values
        order = np.ascontiguousarray(np.argsort(Xc, axis=0, kind="stable").T, dtype=np.int32)
        n_valid = (~np.isnan(Xc)).sum(axis=0).astype(np.int32)
        groups = core.tie_groups(order, np.ascontiguousarray(Xc.T), n_valid)
        for j in range(k):
            xs = Xc[order[j], j]
            for p in range(n):
                if p < n_valid[j]:
                    assert groups[j, p] == np.flatnonzero(xs[:n_valid[j]] == xs[p])[0]
                else:
                    assert groups[j, p] == p  # a missing value: a group of its own


def test_fixed_point_sums_exactly():
    d = np.random.default_rng(0).dirichlet(np.ones(1000)) * np.where(np.arange(1000) % 3, 1, -1)
    q = core.fixed_point(d)
    assert q.dtype == np.int64
    np.testing.assert_allclose(q * core.WEIGHT_UNIT, d, rtol=0, atol=core.WEIGHT_UNIT)
    # the same sum in any order
    assert q.sum() == q[::-1].sum() == q[np.argsort(d)].sum()
    with pytest.raises(ValueError, match="distribution"):
        core.fixed_point(np.array([0.5, 2.0]))


@settings(max_examples=80, deadline=None)
@given(data(), st.booleans())
def test_best_sqrt_thresholds_matches_generic_refinements(d, compacted):
    Xc, ypos, D, covered, order, n_valid = d
    D = D / max(D.sum(), 1e-300)  # a distribution, as the grower's
    cols, rest, signed = sorted_cols(Xc, ypos, D, order, n_valid)
    if compacted:
        cols = core.compact_sorted(*cols, covered)
    score, thr, op, w_pos, w_neg = core.best_sqrt_thresholds(*cols, *rest, covered)
    t_all, below, ncand, total = threshold_candidates(Xc, ypos, D, covered, 2)
    for j in range(Xc.shape[1]):
        k = ncand[j]
        if k == 0:
            assert score[j] == -np.inf and op[j] == 0
            continue
        le = grow_objective(below[j, :k, 1], below[j, :k, 0])
        ge = grow_objective(np.maximum(total[j, 1] - below[j, :k, 1], 0),
                            np.maximum(total[j, 0] - below[j, :k, 0], 0))
        best = max(le.max(), ge.max())
        assert score[j] == pytest.approx(best, abs=1e-12)
        # the chosen condition really has that score
        x = Xc[:, j]
        with np.errstate(invalid="ignore"):
            sel = covered.astype(bool) & (x <= thr[j] if op[j] == 1 else x >= thr[j])
        assert grow_objective(D[sel & (ypos == 1)].sum(),
                              D[sel & (ypos == 0)].sum()) == pytest.approx(best, abs=1e-9)
        # and keeps those weights covered
        assert w_pos[j] == pytest.approx(D[sel & (ypos == 1)].sum(), abs=1e-9)
        assert w_neg[j] == pytest.approx(D[sel & (ypos == 0)].sum(), abs=1e-9)
        assert thr[j] in t_all[j, :k]


@settings(max_examples=50, deadline=None)
@given(data())
def test_compaction_keeps_order_and_valid_counts(d):
    Xc, ypos, D, covered, order, n_valid = d
    cols, rest, signed = sorted_cols(Xc, ypos, D, order, n_valid)
    o, g, v = core.compact_sorted(*cols, covered)
    for j in range(Xc.shape[1]):
        keep = covered[order[j]].astype(bool)
        np.testing.assert_array_equal(o[j], order[j][keep])
        np.testing.assert_array_equal(g[j], cols[1][j][keep])
        assert v[j] == (~np.isnan(Xc[o[j], j])).sum()
    # compacting again by a subset is compacting once by it
    sub = covered & (np.arange(len(covered)) % 2).astype(np.uint8)
    for a, b in zip(core.compact_sorted(o, g, v, sub), core.compact_sorted(*cols, sub)):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=150, deadline=None)
@given(data())
def test_the_sparse_sweep_is_the_dense_sweep_to_the_last_bit(d):
    """On the stored non-zero entries, with the zeros as one block: the
    same scores, thresholds, operators and kept weights, bit for bit, so a
    sparse table gives the dense table's rules."""
    Xc, ypos, D, covered, order, n_valid = d
    D = D / max(D.sum(), 1e-300)
    cols, rest, signed = sorted_cols(Xc, ypos, D, order, n_valid)
    dense = core.best_sqrt_thresholds(*cols, *rest, covered)
    stored = stored_order(sp.csc_matrix(Xc))
    indptr, rows, values, n_neg, n_valid_stored = stored
    for j in range(Xc.shape[1]):  # the stored entries: sorted, NaN last, counted
        col = Xc[rows[indptr[j]:indptr[j + 1]], j]
        np.testing.assert_array_equal(col, values[indptr[j]:indptr[j + 1]])
        assert (col != 0).all() and n_neg[j] == (col < 0).sum()
        assert n_valid_stored[j] == (~np.isnan(col)).sum()
        ok = col[~np.isnan(col)]
        assert np.all(np.diff(ok) >= 0) and np.isnan(col[len(ok):]).all()
    sparse = core.best_sqrt_thresholds_sparse(*stored, signed, covered)
    for a, b in zip(sparse, dense):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=150, deadline=None)
@given(data(), st.sampled_from(["negative", "-inf", "low", "score", "above"]), st.booleans())
def test_a_score_to_beat_gives_the_same_best_condition(d, kind, sparse):
    """With ``beat`` each column's sweep starts from the best of the columns
    before it: the argmax is the condition found without ``beat`` when that
    scores above ``beat`` (ties: the first column, the first candidate),
    and nothing is reported otherwise; the sparse sweep agrees bit for bit."""
    Xc, ypos, D, covered, order, n_valid = d
    D = D / max(D.sum(), 1e-300)
    cols, rest, signed = sorted_cols(Xc, ypos, D, order, n_valid)
    full = core.best_sqrt_thresholds(*cols, *rest, covered)
    top = full[0].max()
    beat = {"negative": -1.0, "-inf": -np.inf, "low": top - 0.25, "score": top,
            "above": top + 0.1}[kind]
    if not np.isfinite(beat) and kind != "-inf":
        beat = -1.0
    if sparse:
        cut = core.best_sqrt_thresholds_sparse(*stored_order(sp.csc_matrix(Xc)), signed,
                                               covered, beat)
    else:
        cut = core.best_sqrt_thresholds(*cols, *rest, covered, beat)
    if top > beat:
        j, k = int(np.argmax(full[0])), int(np.argmax(cut[0]))
        assert j == k
        for a, b in zip(full, cut):
            assert a[j] == b[j]
        # the reported scores rise strictly, column by column
        shown = cut[0][np.isfinite(cut[0])]
        assert np.all(np.diff(shown) > 0) and shown.min() > beat
    else:
        assert np.all(cut[0] == -np.inf) and np.all(cut[2] == 0)
    with pytest.raises(ValueError, match="NaN"):
        core.best_sqrt_thresholds(*cols, *rest, covered, np.nan)


def test_slipper_kernels_reject_bad_input():
    two = np.array([2], np.int32)
    XcT, signed = np.array([[0.0, 1.0, 2.0]]), core.fixed_point([0.5, -0.5, 0.0])
    full = np.array([[0, 1, 2]], np.int32)
    with pytest.raises(IndexError):  # an example outside 0..n-1
        core.best_sqrt_thresholds(np.array([[0, 5]], np.int32), np.array([[0, 1]], np.int32),
                                  two, full, XcT, signed, np.ones(3, np.uint8))
    with pytest.raises(IndexError):  # a tie group outside the full order
        core.best_sqrt_thresholds(np.array([[0, 1]], np.int32), np.array([[0, 7]], np.int32),
                                  two, full, XcT, signed, np.ones(3, np.uint8))
    with pytest.raises(ValueError, match="do not match"):
        core.best_sqrt_thresholds(np.array([[0, 1]], np.int32), np.array([[0, 1]], np.int32),
                                  two, full, XcT[:, :2], signed, np.ones(3, np.uint8))
    with pytest.raises(ValueError, match="differ in shape"):
        core.compact_sorted(np.array([[0, 1]], np.int32), np.array([[0]], np.int32), two,
                            np.ones(3, np.uint8))
    with pytest.raises(ValueError, match="same examples"):
        core.compact_sorted(np.array([[0, 1], [1, 2]], np.int32), np.zeros((2, 2), np.int32),
                            np.array([2, 2], np.int32), np.array([1, 1, 0], np.uint8))
    with pytest.raises(ValueError, match="n_valid"):
        core.tie_groups(full, XcT, np.array([4], np.int32))
    one = np.ones(1, np.int32)
    ptr = np.array([0, 1], np.int64)
    with pytest.raises(IndexError):  # a stored row outside 0..n-1
        core.best_sqrt_thresholds_sparse(ptr, np.array([5], np.int32), np.ones(1), 0 * one,
                                         one, np.zeros(3, np.int64), np.ones(3, np.uint8))
    with pytest.raises(ValueError, match="out of range"):  # more negatives than entries
        core.best_sqrt_thresholds_sparse(ptr, np.array([0], np.int32), np.ones(1), 2 * one,
                                         one, np.zeros(3, np.int64), np.ones(3, np.uint8))


@st.composite
def tables(draw, min_rows=2, max_rows=150):
    """A small Orange table of continuous and discrete columns (ties,
    missing values, one-valued columns), two classes, and example weights."""
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.integers(min_rows, max_rows))
    n_cont, n_disc = draw(st.integers(0, 4)), draw(st.integers(0, 3))
    if n_cont + n_disc == 0:
        n_cont = 1
    n_values = rng.integers(1, 5, n_disc)
    X = np.empty((n, n_cont + n_disc))
    for j in range(n_cont):
        X[:, j] = rng.integers(0, 4, n) if draw(st.booleans()) else rng.normal(size=n)
    for j, k in enumerate(n_values):
        X[:, n_cont + j] = rng.integers(0, k, n)
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.4]))] = np.nan
    y = (rng.random(n) < draw(st.sampled_from([0.2, 0.5]))).astype(float)
    domain = Domain([ContinuousVariable(f"c{j}") for j in range(n_cont)]
                    + [DiscreteVariable(f"d{j}", values=tuple(map(str, range(k))))
                       for j, k in enumerate(n_values)],
                    DiscreteVariable("y", values=("a", "b")))
    w = rng.choice([0.0, 1.0, 1.0, 2.5], n) if draw(st.booleans()) else np.ones(n)
    w[0] = max(w[0], 1.0)
    return Table.from_numpy(domain, X, y), w, int(rng.integers(2**31))


@settings(max_examples=120, deadline=None)
@given(tables())
def test_the_core_grows_the_reference_rule_bit_for_bit(d):
    """``core.grow_dense`` (GrowRule in one call) against ``slipper.grow_rule``
    (a refinement at a time, the sweeps and counts called from Python):
    the same conditions, thresholds to the last bit, and prefix lengths,
    over several rounds of reweighted examples."""
    _grow_both_ways(d, lambda D, ypos, covered, rng: D * np.exp(rng.normal(size=len(D))))


def _grow_both_ways(d, reweight, rounds=4):
    """Grow with the core and with the reference ``rounds`` times on the
    table of ``d`` (from :func:`tables`): the same conditions and prefix
    lengths each time; ``reweight(D, ypos, covered, rng)`` gives the next
    distribution before its normalisation."""
    from orangecontrib.rules import encode_table
    from orangecontrib.rules.slipper import _FitCache, _split, grow_rule, prefix_lengths

    data, w, seed = d
    enc = encode_table(data)
    rng = np.random.default_rng(seed)
    ypos = np.ascontiguousarray(enc.y == 1, dtype=np.int32)
    D = w / w.sum()
    cache = _FitCache(enc)
    # the learner's bins, and bins of one tie group, of three examples and
    # one bin per column (every cut inside a bin)
    bins = [cache.bins] + ([core.SortedBins(enc.order, cache.groups, enc.n_valid, rows)
                            for rows in (1, 3, enc.n)] if cache.bins is not None else [])
    for _ in range(rounds):
        grow, _ = _split(rng, D)
        conds, masks = grow_rule(enc, ypos, D, grow, cache)
        got, lengths = cache.grow(ypos, D, grow)
        assert got == [(k.kind, int(k.col), k.op, float(k.value)) for k in conds]
        np.testing.assert_array_equal(lengths, prefix_lengths(masks, enc.n))
        w_pos, w_neg = core.class_sums(D, ypos, grow)
        for b in bins[1:]:
            other = core.grow_dense(enc.Xd, enc.n_values, ypos, D, b, cache.XcT,
                                    core.signed_fixed_point(D, ypos), grow.view(np.uint8),
                                    w_pos, w_neg)
            assert other[0] == got
            np.testing.assert_array_equal(other[1], lengths)
        D = reweight(D, ypos, lengths >= len(got), rng)
        D /= D.sum()


@settings(max_examples=60, deadline=None)
@given(tables(min_rows=100, max_rows=900))
def test_the_binned_sweeps_keep_the_rule_of_the_ascending_sweeps(d):
    """``core.grow_dense`` scores the cuts between bins and sweeps only the
    bins that could hold a better cut; ``slipper.grow_rule`` sweeps every
    column in ascending order to the end. Tables of hundreds of rows (many
    bins, and bins of many examples) reweighted as boosting does, by two
    factors, so equal scores stay common and the first of them must still
    win: the same rules, to the last bit."""
    _grow_both_ways(d, lambda D, ypos, covered, rng:
                    np.where(covered, D * np.where(ypos == 1, 0.5, 2.0), D))


def test_grow_dense_rejects_bad_input():
    n = 4
    Xd, nv = np.zeros((n, 1), np.int32), np.array([2], np.int32)
    ypos, D = np.array([0, 1, 0, 1], np.int32), np.full(n, 0.25)
    XcT = np.array([[0.0, 1.0, 2.0, 3.0]])
    order, groups = np.array([[0, 1, 2, 3]], np.int32), np.array([[0, 1, 2, 3]], np.int32)
    nvalid, q = np.array([4], np.int32), core.fixed_point(np.where(ypos, D, -D))
    grow = np.ones(n, np.uint8)
    bins = core.SortedBins(order, groups, nvalid)

    def call(**kw):
        args = dict(Xd=Xd, n_values=nv, ypos=ypos, D=D, bins=bins, XcT=XcT, signed_q=q,
                    grow=grow, w_pos=0.5, w_neg=0.5)
        args.update(kw)
        return core.grow_dense(*args.values())

    conds, lengths = call()  # a valid call: x >= 1 or so separates nothing
    assert lengths.shape == (n,) and all(len(c) == 4 for c in conds)
    with pytest.raises(ValueError, match="0 or 1"):
        call(ypos=np.array([0, 2, 0, 1], np.int32))
    with pytest.raises(ValueError, match="exceeds n_values"):
        call(Xd=np.full((n, 1), 2, np.int32))
    with pytest.raises(ValueError, match="do not match"):
        call(D=np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="one entry per discrete column"):
        call(n_values=np.array([2, 2], np.int32))
    with pytest.raises(ValueError, match="SortedBins"):  # none, or of another table
        call(bins=None)
    with pytest.raises(ValueError, match="SortedBins"):
        call(bins=core.SortedBins(order[:, :3].copy(), groups[:, :3].copy(),
                                  np.array([3], np.int32)))
    with pytest.raises(ValueError, match="not a permutation"):  # a row without example 3
        core.SortedBins(np.array([[0, 1, 2, 2]], np.int32), groups, nvalid)
    with pytest.raises(IndexError):  # an example outside 0..n-1
        core.SortedBins(np.array([[0, 1, 2, 9]], np.int32), groups, nvalid)
    with pytest.raises(ValueError, match="max_bins"):
        core.SortedBins(order, groups, nvalid, 1, 300)


def test_sorted_bins_pickle():
    """The bins travel with an internal fold to a process or Dask worker
    (``slipper.SharedFold``): unpickled, the same bins, the same rule."""
    import pickle

    from orangecontrib.rules import encode_table
    from orangecontrib.rules.slipper import _FitCache

    data = Table("heart_disease")
    enc = encode_table(data)
    cache = _FitCache(enc)
    again = pickle.loads(pickle.dumps(cache))
    for name in ("codes", "starts", "nbins"):
        np.testing.assert_array_equal(getattr(again.bins, name), getattr(cache.bins, name))
    ypos = np.ascontiguousarray(enc.y == 1, dtype=np.int32)
    D = np.full(enc.n, 1 / enc.n)
    grow = np.arange(enc.n) % 3 != 0
    got, lengths = again.grow(ypos, D, grow)
    want = cache.grow(ypos, D, grow)
    assert got == want[0] and len(got) > 0
    np.testing.assert_array_equal(lengths, want[1])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 400), st.integers(1, 40),
       st.integers(1, core.MAX_BINS))
def test_sorted_bins_are_runs_of_whole_tie_groups(seed, n, bin_rows, max_bins):
    """Every bin of ``core.SortedBins`` starts a tie group (equal values
    share a bin), holds at least ``bin_rows`` positions unless it is the
    last or the column has too few, the bins tile the non-missing
    positions, there are at most ``max_bins``, and each example's code is
    the bin of its position (missing values: ``BIN_MISSING``, 255)."""
    from orangecontrib.rules.core._slipper import tie_groups

    rng = np.random.default_rng(seed)
    X = rng.integers(0, rng.integers(1, 30), (2, n)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    order = np.argsort(X, axis=1, kind="stable").astype(np.int32)  # NaN last
    n_valid = (~np.isnan(X)).sum(axis=1).astype(np.int32)
    groups = tie_groups(order, X, n_valid)
    bins = core.SortedBins(order, groups, n_valid, bin_rows, max_bins)
    size = np.maximum(bin_rows, -(-n_valid // max_bins))
    for j in range(2):
        nb, nv = bins.nbins[j], n_valid[j]
        starts = bins.starts[j, :nb + 1]
        assert nb <= max_bins and (nb == 0) == (nv == 0)
        assert starts[0] == 0 and starts[-1] == nv and np.all(np.diff(starts) > 0)
        assert np.all(groups[j, starts[:-1]] == starts[:-1])  # each starts a tie group
        assert np.all(np.diff(starts)[:-1] >= size[j])
        pos = np.empty(n, np.int64)
        pos[order[j]] = np.arange(n)
        want = np.where(pos < nv, np.searchsorted(starts, pos, side="right") - 1, 255)
        np.testing.assert_array_equal(bins.codes[j], want)


@st.composite
def weighted_rounds(draw):
    """A distribution ``D`` (zeros, ties and magnitudes far apart), classes
    0/1 and a random mask, as a boosting round sees them."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.sampled_from([1, 2, 7, 8, 9, 127, 128, 129, 300, 1000, 4099]))
    D = rng.random(n) * 10.0 ** rng.integers(-6, 3, n)
    D[rng.random(n) < draw(st.sampled_from([0.0, 0.3]))] = 0.0
    if draw(st.booleans()):  # many equal weights, as in the first rounds
        D = np.round(D, 1)
    D[0] += 1.0
    D /= D.sum()
    ypos = (rng.random(n) < draw(st.sampled_from([0.1, 0.5]))).astype(np.int32)
    mask = rng.random(n) < draw(st.sampled_from([0.1, 0.67, 1.0]))
    return D, ypos, mask, rng


@settings(max_examples=150, deadline=None)
@given(weighted_rounds())
def test_a_rounds_sums_are_numpys_to_the_last_bit(d):
    """The core's sums of a boosting round (the split, the rule's weights,
    PruneRule's table, the reweighting) against the numpy expressions they
    replace: equal floats, not close ones."""
    import slipper_reference as ref
    D, ypos, mask, rng = d
    assert core._slipper.np_sum(D) == np.sum(D)
    assert core.class_sums(D, ypos, mask) == ref.class_sums(D, ypos, mask)
    assert core.class_sums(D, ypos) == ref.class_sums(D, ypos, np.ones(len(D), bool))
    perm = rng.permutation(len(D))
    np.testing.assert_array_equal(core.split_grow(perm, D).view(bool), ref.split_grow(perm, D))
    np.testing.assert_array_equal(core.signed_fixed_point(D, ypos),
                                  core.fixed_point(np.where(ypos == 1, D, -D)))
    L = int(rng.integers(1, 6))
    lengths = rng.integers(0, L, len(D)).astype(np.int32)
    cov, d_prune = core.prune_table(lengths, mask.view(np.uint8), ypos, D, L)
    cov_ref, d_prune_ref = ref.prune_table(lengths, mask, ypos, D, L)
    np.testing.assert_array_equal(cov, cov_ref)
    assert d_prune == d_prune_ref
    e_pos, e_neg = np.exp(np.array([-0.7, 0.7]))
    np.testing.assert_array_equal(core.reweight(D, mask.view(np.uint8), ypos, e_pos, e_neg),
                                  ref.reweight(D, mask, ypos, e_pos, e_neg))


def test_the_growset_ends_where_the_running_sum_first_reaches_two_thirds():
    import slipper_reference as ref
    for n in (3, 6, 12):  # equal weights: a running sum equals 2/3 exactly
        D, perm = np.full(n, 1.0 / n), np.arange(n)[::-1].copy()
        grow = core.split_grow(perm, D).view(bool)
        np.testing.assert_array_equal(grow, ref.split_grow(perm, D))
        assert grow.sum() == 2 * n // 3


def test_a_rounds_sums_are_numpys_on_a_million_weights():
    import slipper_reference as ref
    rng = np.random.default_rng(5)
    D = rng.random(10**6) ** 3
    D /= D.sum()
    ypos = (rng.random(10**6) < 0.3).astype(np.int32)
    mask = rng.random(10**6) < 0.67
    assert core._slipper.np_sum(D) == np.sum(D)
    assert core.class_sums(D, ypos, mask) == ref.class_sums(D, ypos, mask)


def test_a_rounds_sums_reject_bad_input():
    D, y = np.full(4, 0.25), np.array([0, 1, 0, 1], np.int32)
    with pytest.raises(ValueError):
        core.class_sums(D, y[:3])
    with pytest.raises(ValueError):
        core.class_sums(D, y, np.ones(3, bool))
    with pytest.raises(ValueError):
        core.split_grow(np.array([0, 1, 2, 7]), D)  # not a permutation's range
    with pytest.raises(ValueError):
        core.split_grow(np.arange(3), D)
    with pytest.raises(ValueError, match="distribution"):
        core.signed_fixed_point(np.array([2.0, 0, 0, 0]), y)
    with pytest.raises(ValueError, match="prefix length"):
        core.prune_table(np.array([0, 3, 0, 0], np.int32), np.ones(4, np.uint8), y, D, 2)
    with pytest.raises(ValueError):
        core.reweight(D, np.ones(3, np.uint8), y, 0.5, 2.0)
