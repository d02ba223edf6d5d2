"""The kernels of rules grown on the gradient of the log loss
(``core.gradient_histograms``, ``core.best_gradient_split``) and the grower
built on them (:mod:`orangecontrib.rules.gradient_rules`) against slow,
obviously-correct numpy references."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from Orange.data import ContinuousVariable, DiscreteVariable, Domain

from orangecontrib.rules import core
from orangecontrib.rules.gradient_rules import (BinnedColumns, _best_condition, grow_rules,
                                                step_rules)
from orangecontrib.rules.rules import covering

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def binned(draw, max_n=80):
    """A random table of numeric (ties, missing) and discrete columns,
    binned, with a gradient, a Hessian and weights per row."""
    n = draw(st.integers(1, max_n))
    n_num, n_disc = draw(st.integers(0, 3)), draw(st.integers(0, 2))
    if n_num + n_disc == 0:
        n_num = 1
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 31 - 1)))
    X = np.round(rng.normal(size=(n, n_num + n_disc)) * 2) / 2
    values = [int(rng.integers(1, 4)) for _ in range(n_disc)]
    for k, m in enumerate(values):
        X[:, n_num + k] = rng.integers(0, m, n)
    X[rng.random(X.shape) < 0.15] = np.nan
    domain = Domain([ContinuousVariable(f"x{j}") for j in range(n_num)]
                    + [DiscreteVariable(f"d{k}", values=tuple(map(str, range(m))))
                       for k, m in enumerate(values)])
    w = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    bins = BinnedColumns(X, domain, np.ones(n), max_bins=draw(st.sampled_from([2, 4, 128])))
    p = rng.uniform(0.05, 0.95, n)
    y = rng.integers(0, 2, n)
    g, h = w * (p - y), w * p * (1 - p)
    rows = np.flatnonzero(rng.random(n) < draw(st.sampled_from([0.3, 1.0]))).astype(np.int64)
    return X, domain, bins, g, h, w, rows, y


def reference_histograms(slots, rows, g, h, v, n_slots):
    out = np.zeros((3, n_slots))
    for i in rows:
        for s in slots[i]:
            out[:, s] += (g[i], h[i], v[i])
    return out


@given(binned())
@SETTINGS
def test_gradient_histograms_match_the_reference(case):
    _, _, bins, g, h, w, rows, _ = case
    got = core.gradient_histograms(bins.slots, rows, g, h, w, bins.n_slots)
    np.testing.assert_allclose(got, reference_histograms(bins.slots, rows, g, h, w,
                                                         bins.n_slots), atol=1e-12)


def reference_best(bins, rows, g, h, v, lam, min_cover):
    """Every condition of every column of two bins or values or more (one
    offers none), its rows found from the codes."""
    best = None
    for j in range(bins.codes.shape[1]):
        if bins.n_bins[j] < 2:
            continue
        c = bins.codes[rows, j]
        if bins.numeric[j]:
            conds = [("<=", b, (c >= 0) & (c <= b)) for b in range(bins.n_bins[j] - 1)] + \
                    [(">=", b, c >= b) for b in range(1, bins.n_bins[j])]
        else:
            conds = [("==", b, c == b) for b in range(bins.n_bins[j])]
        for op, b, mask in conds:
            r = rows[mask]
            if v[r].sum() < min_cover:
                continue
            gain = g[r].sum() ** 2 / (h[r].sum() + lam)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, j, op, b)
    return best


@given(binned(), st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 2.0]))
@SETTINGS
def test_best_condition_is_the_best_of_every_condition(case, min_cover, lam):
    _, _, bins, g, h, w, rows, _ = case
    lam = lam + 1e-3  # no empty side divided by 0
    got = _best_condition(bins, rows, g, h, w, lam, min_cover)
    want = reference_best(bins, rows, g, h, w, lam, min_cover)
    if want is None:
        assert got is None
        return
    assert got is not None and got[0] == pytest.approx(want[0], rel=1e-9, abs=1e-12)
    # the condition named has that gain (ties may name another)
    j, op, b = got[1:]
    c = bins.codes[rows, j]
    mask = (c == b) if op == "==" else (c >= 0) & ((c <= b) if op == "<=" else (c >= b))
    r = rows[mask]
    assert g[r].sum() ** 2 / (h[r].sum() + lam) == pytest.approx(got[0], rel=1e-9, abs=1e-12)


def test_best_gradient_split_rejects_slots_out_of_range():
    hist = np.zeros((3, 4))
    bad = np.array([5], dtype=np.int64)
    ok = np.array([0], dtype=np.int64)
    with pytest.raises(ValueError):
        core.best_gradient_split(hist, np.array([1], np.int64), ok, bad,
                                 np.zeros(0, np.int64), 1.0, 0.0)
    with pytest.raises(ValueError):
        core.gradient_histograms(np.zeros((2, 1), np.int32), np.array([0, 2], np.int64),
                                 np.zeros(2), np.zeros(2), np.zeros(2), 4)


@given(binned(max_n=60))
@settings(max_examples=25, deadline=None)
def test_boosting_steps_are_second_order_steps_of_their_rules(case):
    """Replaying the steps on the table itself: each rule's weight is
    ``-G / (H + lambda)`` of the rows it covers at the margins before it,
    and the rules printed (Orange's conditions) cover those rows."""
    X, domain, bins, _, _, w, _, y = case
    lam, shrink = 1.0, 0.5
    steps, _ = grow_rules(bins, y, w, np.zeros(len(y)), 4, lam=lam, shrinkage=shrink,
                          min_cover=0.5)
    f = np.zeros(len(y))
    for rule, weight in steps:
        conds = [bins.condition(*c) for c in rule]
        from orangecontrib.rules.rules import Rule
        cov = covering([Rule(conds, 1, np.zeros(2))], X)[:, 0] & (w > 0)
        p = 1 / (1 + np.exp(-f))
        g, h = w * (p - y), w * p * (1 - p)
        assert weight == pytest.approx(-g[cov].sum() / (h[cov].sum() + lam), rel=1e-9,
                                       abs=1e-12)
        f[cov] += shrink * weight
    fixed, grown = step_rules(steps, bins, shrink)
    assert not fixed
    # a rule's weight is the sum of its shrunk steps; it favours its head
    assert all((r.head == 1) == (b > 0) for r, b in grown)


def reference_boosting(bins, y, v, margin, max_rules, fixed, held, lam, shrink, max_length,
                       min_cover, patience):
    """:func:`grow_rules` the slow way: every step recomputes the log-odds'
    gradient, every rule's rows from the codes, every fixed rule's sums and
    the held-out loss from scratch."""
    y, f = np.asarray(y, float), np.array(margin, float)
    vt = np.where(held, 0.0, v)
    live, train = v > 0, (v > 0) & ~held
    F = fixed.toarray().astype(bool) & live[:, None]
    steps, used = [], set()
    losses = [float(np.sum(np.where(held, v, 0) * (np.logaddexp(0, f) - y * f)))]
    while len(steps) < 3 * max_rules:
        if len(losses) - 1 - int(np.argmin(losses)) >= patience:
            break
        p = 1 / (1 + np.exp(-f))
        g, h = vt * (p - y), vt * p * (1 - p)
        best = (-np.inf, None, None)
        if len(used) < max_rules:
            rows, conds = np.flatnonzero(train), []
            current = g[rows].sum() ** 2 / (h[rows].sum() + lam)
            while len(conds) < max_length:
                found = reference_best(bins, rows, g, h, vt, lam, min_cover)
                if found is None or found[0] <= current * (1 + 1e-9):
                    break
                current, j, op, b = found
                c = bins.codes[rows, j]
                rows = rows[(c == b) if op == "==" else
                            (c >= 0) & ((c <= b) if op == "<=" else (c >= b))]
                conds.append((j, op, b))
            if conds:
                mask = live.copy()
                for j, op, b in conds:
                    c = bins.codes[:, j]
                    mask &= (c == b) if op == "==" else \
                        (c >= 0) & ((c <= b) if op == "<=" else (c >= b))
                best = (current, conds, mask)
        for k in range(F.shape[1]):
            if len(used) >= max_rules and ("fixed", k) not in used:
                continue
            m = F[:, k]
            if vt[m].sum() < min_cover:
                continue
            gain = g[m].sum() ** 2 / (h[m].sum() + lam)
            if gain > best[0]:
                best = (gain, k, m)
        gain, rule, mask = best
        if rule is None or not gain > 0:
            break
        weight = -g[mask].sum() / (h[mask].sum() + lam)
        f[mask] += shrink * weight
        steps.append((rule, weight))
        used.add(("fixed", rule) if isinstance(rule, int) else ("grown", tuple(rule)))
        losses.append(float(np.sum(np.where(held, v, 0) * (np.logaddexp(0, f) - y * f))))
    return steps, losses


@given(binned(max_n=80), st.integers(1, 4), st.booleans())
@settings(max_examples=30, deadline=None)
def test_boosting_updates_match_a_slow_reference(case, max_rules, with_fixed):
    """The boosting's incremental updates (the training rows' histograms,
    the fixed rules' sums and the held-out loss of the rows a step moves)
    take the same steps as recomputing everything each step."""
    import scipy.sparse as sp
    _, _, bins, _, _, w, _, y = case
    rng = np.random.default_rng(len(y))
    margin = rng.normal(size=len(y)) * 0.3
    held = rng.random(len(y)) < 1 / 3
    fixed = sp.csr_matrix((rng.random((len(y), 3)) < 0.4).astype(float) if with_fixed
                          else np.zeros((len(y), 0)))
    kw = dict(lam=1.0, shrinkage=0.5, max_length=3, min_cover=0.5, patience=4)
    got, got_losses = grow_rules(bins, y, w, margin, max_rules, fixed=fixed, held=held,
                                 **{k: kw[k] for k in ("lam", "shrinkage", "max_length",
                                                       "min_cover", "patience")})
    want, want_losses = reference_boosting(bins, y, w, margin, max_rules,
                                           fixed if with_fixed else sp.csr_matrix(
                                               np.zeros((len(y), 0))),
                                           held, kw["lam"], kw["shrinkage"],
                                           kw["max_length"], kw["min_cover"], kw["patience"])
    assert [r for r, _ in got] == [r for r, _ in want]
    np.testing.assert_allclose([x for _, x in got], [x for _, x in want], rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-9, atol=1e-12)
