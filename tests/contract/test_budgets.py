"""Rule budgets (``max_rules``) of every learner: the model has at most that
many rules, and it is the model its method makes at that size, not a list
cut short: EVC's and Rule Scoring's coverings stopped (each class's rules a
prefix of its covering), SLIPPER's boosters stopped after their rounds, LR
with rules the rules an L1 path keeps within the budget, refitted, SLS's
ensemble re-weighted over the rule sets it keeps, ROCCER's lists re-scored
after rules leave them; and the size-accuracy curve of :func:`size_curve`."""
import numpy as np
import pytest
from Orange.data import Table
from scipy.special import expit

import orangecontrib.rules as R
from orangecontrib.rules.evc import DEFAULT_MIN_NEW_COVERAGE
from orangecontrib.rules.rules import allocate_budget, budget_coverage, budget_prefixes, covering
from registry import KINDS, factory

#: the registry's budget settings
LEARNERS = factory("budget")


@pytest.fixture(scope="module", params=["heart_disease", "iris"])
def data(request):
    return Table(request.param)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("budget", [1, 3, 10])
def test_budget_is_respected(kind, budget, data):
    model = LEARNERS[kind](max_rules=budget)(data)
    rules, conditions = model.size
    assert rules <= budget
    assert conditions == sum(len(r.conditions) for r in model.used_rules())
    probs = model(data, model.Probs)
    assert np.all(np.isfinite(probs))
    np.testing.assert_allclose(probs.sum(axis=1), 1)


def test_budget_prefixes_take_turns_by_first_covered_share():
    shares = [[0.5, 0.2, 0.1], [0.4, 0.3], []]
    assert budget_prefixes(shares, 0) == [0, 0, 0]
    assert budget_prefixes(shares, 3) == [1, 2, 0]  # 0.5, 0.4, 0.3
    assert budget_prefixes(shares, 10) == [3, 2, 0]


@pytest.mark.parametrize("kind", ["evc", "scoring"])
def test_covering_stops_at_the_budget(kind, data):
    """Each class's rules are the first of its covering, a covering whose
    rules each cover at least the class's share of the budget
    (``budget_coverage``: with 4 rules for 2 or 3 classes, half the class)."""
    n_classes = len(data.domain.class_var.values)
    share = budget_coverage(DEFAULT_MIN_NEW_COVERAGE, n_classes, 4)
    assert share == min(0.5, n_classes / 4)
    full = LEARNERS[kind](min_new_coverage=share)(data)
    budgeted = LEARNERS[kind](max_rules=4)(data)
    for cls in range(len(data.domain.class_var.values)):
        a = [r.conditions for r in full.rule_list if r.head == cls]
        b = [r.conditions for r in budgeted.rule_list if r.head == cls]
        assert b == a[:len(b)]
    assert len(budgeted.rule_list) == min(4, len(full.rule_list))


def test_slipper_boosters_stop_after_their_rounds(data):
    budgeted = LEARNERS["slipper"](max_rules=5)(data)
    assert sum(budgeted.rounds.values()) <= 5
    fixed = LEARNERS["slipper"](T=max(budgeted.rounds.values()))(data)
    for (cls, rules), (cls2, rules2) in zip(budgeted.boosters, fixed.boosters):
        assert cls == cls2
        if budgeted.rounds[cls] == max(budgeted.rounds.values()):
            assert [r.conditions for r in rules] == [r.conditions for r in rules2]


def test_lr_with_rules_budget_refits_the_path_rules(data):
    """The rules are those of the last point of the L1 path within the
    budget; their weights are eq. 21 at ``t = 0`` on those rules alone: each
    non-zero weight balances its EVC penalty exactly (gradient =
    -sign(b) gamma), every other rule's weight is exactly 0."""
    if len(data.domain.class_var.values) != 2:
        pytest.skip("the check reads the one submodel of two-class data")
    model = LEARNERS["lrr"](max_rules=3)(data)
    chosen = next(p for p in model.size_curve if p["chosen"])
    assert model.size[0] <= chosen["rules"] <= 3
    cls, idx, b0, w, b = model.submodels[0]
    X = model.data_to_model_domain(data).X
    F = model.features(X)
    cover = covering([model.rule_list[k] for k in idx], X).astype(float)
    y = (data.Y == cls).astype(float)
    f = b0 + F @ w + cover @ b
    grad = cover.T @ (expit(f) - y) + model.lam * b
    gamma = R.logreg.rule_penalties([model.rule_list[k] for k in idx], cls)
    kept = b != 0
    assert np.count_nonzero(kept) == model.size[0]
    np.testing.assert_allclose(grad[kept], -np.sign(b[kept]) * gamma[kept],
                               rtol=1e-2, atol=1e-2)


def test_lr_with_rules_budget_that_does_not_bind_is_the_model_without(data):
    """A budget the paper's model keeps gives that model, weights and all."""
    full = LEARNERS["lrr"]()(data)
    kept = LEARNERS["lrr"](max_rules=full.size[0] + 1)(data)
    assert kept.size == full.size
    np.testing.assert_array_equal(kept(data, kept.Probs), full(data, full.Probs))


def test_sls_budget_reweights_the_kept_rule_sets(data):
    full = LEARNERS["sls"]()(data)
    budgeted = LEARNERS["sls"](max_rules=6)(data)
    for ens in budgeted.ensembles:
        np.testing.assert_allclose(ens.weights.sum(), 1)
        other = next(e for e in full.ensembles if e.cls == ens.cls)
        assert set(ens.rule_sets) <= set(other.rule_sets)
        # the weights are those of the kept sets alone (Q ∝ rho^errors)
        np.testing.assert_allclose(ens.weights,
                                   R.sls.white_noise_weights(ens.errors, 0.9))


def test_allocate_budget_is_the_least_summed_error():
    """Against every allocation within the budget (small cases); ties to
    fewer rules."""
    rng = np.random.default_rng(0)
    for it in range(300):
        C, T, budget = rng.integers(1, 5), rng.integers(1, 5), int(rng.integers(0, 12))
        curves = rng.integers(0, 6, (C, T)).astype(float) if it % 2 else rng.random((C, T))
        prior = rng.integers(0, 8, C).astype(float)
        err = np.hstack([prior[:, None], curves])
        out = allocate_budget(curves, prior, budget)
        assert sum(out) <= budget and all(0 <= n <= T for n in out)
        least = min(sum(err[c, n[c]] for c in range(C))
                    for n in np.ndindex(*(T + 1,) * C) if sum(n) <= budget)
        assert sum(err[c, out[c]] for c in range(C)) == pytest.approx(least)
    assert allocate_budget([[1.0, 1.0]], [3.0], 2) == [1]  # a second rule gains nothing
    assert allocate_budget([[2.0, 1.0]], [3.0], 10**12) == [2]  # a huge budget is cheap
    assert allocate_budget([[1.0, 0.0], [1.0, 0.5]], [4.0, 4.0], 2) == [1, 1]


def _unexplained(U, T, w):
    """var(T) (1 - corr(U, T)^2), weighted: the slow way."""
    w = w / w.sum()
    vt = np.sum(w * (T - np.sum(w * T)) ** 2)
    vu = np.sum(w * (U - np.sum(w * U)) ** 2)
    if vu <= 0:
        return vt
    cov = np.sum(w * (U - np.sum(w * U)) * (T - np.sum(w * T)))
    return vt - cov * cov / vu


def _random_sets(rng, n_sets, pool=8):
    rules = [((int(a), ">=", 0.0),) for a in range(pool)]
    sets = []
    while len(sets) < n_sets:
        k = int(rng.integers(1, 4))
        rs = tuple(sorted(rules[i] for i in rng.choice(pool, k, replace=False)))
        if rs not in sets:
            sets.append(rs)
    return sets


def test_sls_nearest_ensemble_path_matches_a_slow_reference():
    """Each pick lowers the unexplained variance of the whole ensemble's
    estimate most per rule added (a set of kept rules: per quarter rule),
    within the budget; the path stops where nothing lowers it."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        R_, n = int(rng.integers(1, 9)), int(rng.integers(5, 40))
        sets = _random_sets(rng, R_)
        E = rng.choice([0.1, 0.3, 0.5, 0.8], (R_, n)) + rng.random((R_, n)) * 0.01
        q = rng.random(R_) + 0.05
        w = rng.random(n) + 0.1
        budget = int(rng.integers(1, 10))
        T = q @ E
        path, points = R.sls.nearest_ensemble_path(E, q, T, w, sets, budget)
        kept, rules, loss = [], set(), _unexplained(np.zeros(n), T, w)
        assert points[0] == (0, pytest.approx(loss))
        while True:
            best = None
            for r in range(R_):
                new = len(set(sets[r]) - rules)
                if r in kept or len(rules) + new > budget:
                    continue
                lr = _unexplained(q[kept + [r]] @ E[kept + [r]], T, w)
                gain = (loss - lr) / max(new, 0.25)
                if gain > loss * 1e-9 + 1e-12 and (best is None or gain > best[0] + 1e-12):
                    best = (gain, r, lr)
            if best is None:
                break
            kept.append(best[1])
            rules |= set(sets[best[1]])
            loss = best[2]
        assert path == kept
        assert [u for u, _ in points[1:]] == [len(set().union(*(sets[r] for r in path[:i + 1])))
                                              for i in range(len(path))]
        np.testing.assert_allclose([x for _, x in points[1:]],
                                   [_unexplained(q[path[:i + 1]] @ E[path[:i + 1]], T, w)
                                    for i in range(len(path))], atol=1e-12)
        assert all(u <= budget for u, _ in points)


def test_sls_budget_is_shared_among_the_classes():
    """The classes' paths are cut where the budget's sharing says: the least
    summed loss (rules.allocate_budget over the paths' curves), every class
    a prefix of its path, all within the budget; with room for everything
    each class keeps its whole path."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        C, n = int(rng.integers(2, 5)), 30
        found, estimates = {}, {}
        for c in range(C):
            sets = _random_sets(rng, 6)
            found[c] = {rs: (len(rs), np.array([5.0, 1, 1, 20])) for rs in sets}
            estimates[c] = (rng.choice([0.05, 0.2, 0.6], (6, n)), rng.random(6) + 0.1,
                            np.ones(n))
        budget = int(rng.integers(1, 12))
        kept = R.sls.keep_within_budget(found, estimates.__getitem__, budget)
        curves, prior, paths = [], [], {}
        for c in range(C):
            E, q, w = estimates[c]
            sets = list(found[c])
            paths[c] = R.sls.nearest_ensemble_path(E, q, q @ E, w, sets, budget)
            prior.append(paths[c][1][0][1])
        width = max(max(u for u, _ in paths[c][1]) for c in range(C))
        width = max(width, 1)
        for c in range(C):
            curves.append([min(x for u, x in paths[c][1] if u <= m) for m in range(1, width + 1)])
        shares = allocate_budget(np.array(curves), prior, budget)
        used = 0
        for c in range(C):
            path, points = paths[c]
            i = max(j for j, (u, _) in enumerate(points) if u <= shares[c])
            assert list(kept[c]) == [list(found[c])[r] for r in path[:i]]
            used += len({r for rs in kept[c] for r in rs})
        assert used <= budget
        everything = R.sls.keep_within_budget(found, estimates.__getitem__, 10**6)
        for c in range(C):
            E, q, w = estimates[c]
            whole, _ = R.sls.nearest_ensemble_path(E, q, q @ E, w, list(found[c]), 10**6)
            assert list(everything[c]) == [list(found[c])[r] for r in whole]


def test_sls_budget_keeps_the_sets_nearest_the_whole_ensemble(data):
    """On real data the budgeted model's kept sets are the first of the
    whole ensemble's nearest-ensemble paths, re-weighted among themselves,
    and predict with the leaf estimates of the whole model's rule sets."""
    full = LEARNERS["sls"]()(data)
    budgeted = LEARNERS["sls"](max_rules=10)(data)
    from orangecontrib.rules.rules import violations
    V = violations(full.rule_list, full.data_to_model_domain(data).X)
    for ens in budgeted.ensembles:
        other = next(e for e in full.ensembles if e.cls == ens.cls)
        cols = full._columns[full.ensembles.index(other)]
        E = np.array([other.leaf[r, R.sls.nearest_misses(V, cols[r])]
                      for r in range(len(other.rule_sets))])
        path, _ = R.sls.nearest_ensemble_path(E, other.weights, other.weights @ E,
                                              np.ones(len(data)), other.rule_sets, 10)
        assert list(ens.rule_sets) == [other.rule_sets[r] for r in path[:len(ens.rule_sets)]]
        for r, rs in enumerate(ens.rule_sets):
            np.testing.assert_allclose(ens.leaf[r], other.leaf[other.rule_sets.index(rs)])


def test_roccer_lists_are_rescored_after_rules_leave(data):
    model = LEARNERS["roccer"](max_rules=3)(data)
    X = data.X
    y = data.Y.astype(int)
    for cl in model.class_lists:
        union = np.zeros(len(data), bool)
        for e, cols in enumerate(cl.columns):
            union |= covering([model.rule_list[k] for k in cols], X).any(axis=1)
            np.testing.assert_allclose(cl.points[e + 1],
                                       [union[y != cl.cls].mean(), union[y == cl.cls].mean()])


def test_size_curve_reports_each_budget(data):
    curve = R.size_curve(R.EVCRuleLearner(n_permutations=10), data, budgets=(2, None),
                         n_folds=2)
    assert [p["budget"] for p in curve] == [2, None]
    assert curve[0]["rules"] <= 2 <= curve[1]["rules"]
    for p in curve:
        assert 0 <= p["accuracy"] <= 1 and 0 <= p["auc"] <= 1 and p["logloss"] > 0


# --------------------------------------------------------------- covering stop, sampling
def test_every_rule_covers_its_share_of_new_ground(data):
    """With min_new_coverage = f, each rule covers at least f of its class
    that the class's earlier rules leave uncovered; with 0, at least one
    example (the paper's covering)."""
    from orangecontrib.rules.rules import first_cover_shares
    y, w = data.Y.astype(int), np.ones(len(data))
    for f in (0.0, 0.05):
        model = R.EVCRuleLearner(n_permutations=10, min_new_coverage=f)(data)
        shares = first_cover_shares(model.rule_list, data.X, y, w,
                                    len(data.domain.class_var.values))
        assert np.all(shares >= max(f, 1e-12) - 1e-12)
    assert len(model.rule_list) <= len(R.EVCRuleLearner(n_permutations=10,
                                                        min_new_coverage=0)(data).rule_list)


def test_budget_coverage_shares_the_budget_among_the_classes():
    assert budget_coverage(0.02, 3, None) == 0.02
    assert budget_coverage(0.02, 2, 100) == 0.02  # the budget asks less than the stop
    assert budget_coverage(0.02, 11, 50) == pytest.approx(0.22)
    assert budget_coverage(0.02, 26, 25) == 0.5  # capped: some classes get no rule
    assert budget_coverage(0.3, 2, 50) == 0.3


@pytest.mark.parametrize("kind", ["evc", "scoring"])
def test_budgeted_covering_rules_cover_the_class_share(kind, data):
    """Under a budget of 6 rules every rule covers at least n_classes / 6 of
    its class not covered by the class's earlier rules."""
    from orangecontrib.rules.rules import first_cover_shares
    n_classes = len(data.domain.class_var.values)
    model = LEARNERS[kind](max_rules=6)(data)
    y, w = data.Y.astype(int), np.ones(len(data))
    shares = first_cover_shares(model.rule_list, data.X, y, w, n_classes)
    assert len(model.rule_list) and np.all(shares >= n_classes / 6 - 1e-12)


def test_gumbel_sample_is_stratified_and_exact_when_large(data):
    from orangecontrib.rules.evc import gumbel_rows
    y = data.Y.astype(int)
    assert gumbel_rows(y, None, None) is None
    assert gumbel_rows(y, None, len(y)) is None
    rows = gumbel_rows(y, None, 60, random_state=3)
    np.testing.assert_array_equal(rows, gumbel_rows(y, None, 60, random_state=3))
    assert abs(len(rows) - 60) <= len(np.unique(y))
    shares = np.bincount(y[rows], minlength=y.max() + 1) / len(rows)
    np.testing.assert_allclose(shares, np.bincount(y) / len(y), atol=0.03)
    exact = R.EVCRuleLearner(n_permutations=10, gumbel_sample=None)(data)
    same = R.EVCRuleLearner(n_permutations=10, gumbel_sample=len(data))(data)
    np.testing.assert_array_equal(exact.gumbel.mu, same.gumbel.mu)
    assert str(exact) == str(same)
    sampled = R.EVCRuleLearner(n_permutations=10, gumbel_sample=100)(data)
    assert sampled.gumbel.mu.shape == exact.gumbel.mu.shape
    assert np.all(np.isfinite(sampled.gumbel.mu)) and not np.array_equal(
        sampled.gumbel.mu, exact.gumbel.mu)


def test_slipper_on_many_rows_chooses_T_on_the_first_fold(data):
    from orangecontrib.rules.features import encode_table
    from orangecontrib.rules.slipper_rounds import internal_folds
    enc = encode_table(data)
    y = enc.y
    seed = np.random.SeedSequence(0)
    every = internal_folds(enc, y, 5, seed, max_rows=None)
    first = internal_folds(enc, y, 5, seed, max_rows=len(y) - 1)
    assert len(every) == 5 and len(first) == 1
    for a, b in zip(first[0], every[0]):
        np.testing.assert_array_equal(a, b)


def test_size_curve_reports_from_within_fits_and_keeps_preprocessors(data):
    """The curve's progress is called inside each fit (so a cancel raised
    there stops a long fit), and the learner's preprocessors are kept."""
    from Orange.preprocess import Impute

    from orangecontrib.rules.base import Interrupted
    seen = []
    learner = R.RuleScoringLearner(preprocessors=[Impute()])
    curve = R.size_curve(learner, data, budgets=(2, None), n_folds=2, progress=seen.append)
    assert len(seen) > 4 and seen == sorted(seen) and seen[-1] == 1
    assert len(curve) == 2

    def cancel(fraction):
        if fraction > 0:
            raise Interrupted()
    with pytest.raises(Interrupted):
        R.size_curve(learner, data, budgets=(2, None), n_folds=2, progress=cancel)
    fitted = []
    original = R.RuleScoringLearner.fit_storage

    def spy(self, table):
        fitted.append(self.preprocessors)
        return original(self, table)
    import unittest.mock as mock
    with mock.patch.object(R.RuleScoringLearner, "fit_storage", spy):
        R.size_curve(learner, data, budgets=(2,), n_folds=2)
    assert all(any(isinstance(p, Impute) for p in pp) for pp in fitted)
