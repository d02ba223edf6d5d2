"""EVC rule learning (Možina et al. 2019): eq. 14, the correction, the Gumbel fit,
the search and the learner."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import brentq
from scipy.stats import chi2

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.evaluation import AUC, CA, CrossValidation

from orangecontrib.rules import EVCRuleLearner, encode_table
from orangecontrib.rules.core import corrected_positives
from orangecontrib.rules.evc import (
    EVCRuleModel, GumbelParameters, chi2_isf, chi2_sf, evc_quality, fit_gumbel,
    gumbel_sf, likelihood_ratio, m_estimate)


def lrs_reference(s, n, S, N):
    """Eq. 14 written out cell by cell (0 log 0 = 0; 0 below the prior)."""
    if n <= 0 or n >= N or s < n * S / N:
        return 0.0
    cells = [(s, n * S / N), (n - s, n * (N - S) / N),
             (S - s, (N - n) * S / N), ((N - n) - (S - s), (N - n) * (N - S) / N)]
    return 2 * sum(x * np.log(x / e) for x, e in cells if x > 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 500), st.data())
def test_lrs_matches_direct_computation(N, data):
    S = data.draw(st.integers(0, N))
    n = data.draw(st.integers(0, N))
    s = data.draw(st.integers(max(0, n - (N - S)), min(n, S)))
    assert likelihood_ratio(s, n, S, N)[0] == pytest.approx(
        lrs_reference(s, n, S, N), rel=1e-9, abs=1e-9)


def test_lrs_is_dunnings_g_statistic():
    from scipy.stats import chi2_contingency
    s, n, S, N = 30, 50, 60, 200
    table = np.array([[s, n - s], [S - s, N - n - (S - s)]])
    g, *_ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert likelihood_ratio(s, n, S, N)[0] == pytest.approx(g)


def test_paper_worked_example():
    # Section 4.1: 20 examples, prior 0.5, rule covers 10 with 8 positive,
    # Gumbel mu = 3, beta = 2 for rules of length 2
    s, n, S, N = 8.0, 10.0, 10.0, 20.0
    L = likelihood_ratio(s, n, S, N)[0]
    assert L == pytest.approx(7.7, abs=0.05)
    p_a = gumbel_sf(L, 3.0, 2.0)
    assert p_a == pytest.approx(0.09, abs=0.005)
    assert 2 * p_a == pytest.approx(0.18, abs=0.01)
    lrs_bar = chi2_isf(2 * p_a)
    assert lrs_bar == pytest.approx(1.82, abs=0.05)  # read from a figure in the paper
    q, p, l = evc_quality([s], [n], S, N, 3.0, 2.0)
    assert q[0] * n == pytest.approx(6.5, abs=0.05)
    assert q[0] == pytest.approx(0.65, abs=0.005)
    assert p[0] == pytest.approx(p_a) and l[0] == pytest.approx(L)


def test_chi_square_helpers_match_scipy():
    x = np.array([0.0, 1e-6, 0.3, 1.82, 7.7, 40.0])
    np.testing.assert_allclose(chi2_sf(x), chi2.sf(x, 1), rtol=1e-10, atol=1e-300)
    p = np.array([1.0, 0.9, 0.18, 1e-3, 1e-12])
    np.testing.assert_allclose(chi2_isf(p), chi2.isf(p, 1), rtol=1e-9, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(10, 300), st.data())
def test_brent_root_matches_scipy(N, data):
    S = data.draw(st.integers(1, N - 1))
    n = data.draw(st.integers(1, N - 1))
    s = data.draw(st.integers(max(0, n - (N - S)), min(n, S)))
    full = likelihood_ratio(s, n, S, N)[0]
    target = data.draw(st.floats(0.01, 0.99)) * full
    got = corrected_positives(np.array([s], float), np.array([n], float),
                              float(S), float(N), np.array([target]))[0]
    if full <= 0:
        assert got == s
        return
    lo = n * S / N
    ref = brentq(lambda x: likelihood_ratio(x, n, S, N)[0] - target, lo, s, xtol=1e-12)
    assert got == pytest.approx(ref, abs=1e-6)
    assert lo <= got <= s


def test_longer_rules_get_lower_quality():
    # the same counts with the parameters of longer rules (larger mu)
    g = GumbelParameters(mu=np.array([[3.0, 6.0, 9.0]]), beta=np.array([[2.0, 2.2, 2.4]]))
    qs = [evc_quality([30.0], [40.0], 100.0, 200.0, *g.of(0, L))[0][0] for L in (1, 2, 3)]
    assert qs[0] > qs[1] > qs[2] >= 0.5
    assert qs[0] <= 30 / 40


@settings(max_examples=50, deadline=None)
@given(st.integers(5, 80), st.floats(0.5, 15), st.floats(0.3, 4))
def test_quality_keeps_order_under_one_distribution(n, mu, beta):
    # with one Gumbel distribution and fixed coverage, more positives never
    # give a lower corrected quality; and q stays in [prior, s / n]
    S, N = 100.0, 300.0
    s = np.arange(int(np.ceil(n * S / N)), n + 1, dtype=float)
    s = s[s <= S]
    q, _, _ = evc_quality(s, np.full(len(s), float(n)), S, N, mu, beta)
    assert np.all(np.diff(q) >= -1e-9)
    assert np.all(q >= S / N - 1e-9) and np.all(q <= s / n + 1e-9)


def test_no_optimism_falls_back_to_relative_frequency():
    q, p, l = evc_quality([30.0], [40.0], 100.0, 200.0, 0.0, 0.0)
    assert q[0] == pytest.approx(0.75)
    assert p[0] == pytest.approx(chi2.sf(l[0], 1))


def test_m_estimate():
    assert m_estimate(8, 10, 0.5, 2) == pytest.approx(9 / 12)
    assert m_estimate(8, 10, 0.5, 0) == pytest.approx(0.8)


def test_gumbel_method_of_moments():
    rng = np.random.default_rng(0)
    mu, beta = 5.0, 2.0
    sample = rng.gumbel(mu, beta, size=(20000, 1))
    m, b = fit_gumbel(sample)
    assert m[0] == pytest.approx(mu, abs=0.05) and b[0] == pytest.approx(beta, abs=0.05)
    # best up to length L is a running maximum; mu is made non-decreasing
    best = np.array([[5.0, 3.0], [7.0, 4.0], [6.0, 9.0]])
    m, b = fit_gumbel(best)
    assert m[1] >= m[0]
    upto = np.array([[5, 5], [7, 7], [6, 9]], float)
    assert b[1] == pytest.approx(np.sqrt(6) * upto[:, 1].std(ddof=1) / np.pi)


# ------------------------------------------------------------ learner
def informative_data(n=300, seed=0):
    """Class = a AND b (binary), flipped with probability 0.1, plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6)).astype(float)
    y = (X[:, 0] == 1) & (X[:, 1] == 1)
    y ^= rng.random(n) < 0.1
    domain = Domain([DiscreteVariable(f"a{i}", values=("0", "1")) for i in range(6)],
                    DiscreteVariable("y", values=("no", "yes")))
    return Table.from_numpy(domain, X, y.astype(float))


@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


def test_finds_the_concept_and_keeps_its_parameters():
    data = informative_data()
    model = EVCRuleLearner(n_permutations=30)(data)
    assert isinstance(model, EVCRuleModel)
    assert model.gumbel.mu.shape == (2, 5) and model.gumbel.n_permutations == 30
    yes = [r for r in model.rules if r.head == 1]
    assert yes and {(c.column, c.value) for c in yes[0].conditions} == {(0, 1), (1, 1)}
    for r in model.rules:  # both numbers are carried: corrected <= raw
        assert r.quality <= r.extra["raw_frequency"] + 1e-12
        assert r.extra["p_value"] <= 0.05
    text = str(model)
    assert "IF a0 = 1 AND a1 = 1 THEN y = yes" in text or \
        "IF a1 = 1 AND a0 = 1 THEN y = yes" in text


def test_noise_gives_no_rules():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(200, 5)).astype(float)
    y = (rng.random(200) < 0.5).astype(float)
    domain = Domain([DiscreteVariable(f"x{i}", values=("a", "b", "c")) for i in range(5)],
                    DiscreteVariable("y", values=("n", "p")))
    model = EVCRuleLearner(n_permutations=40)(Table.from_numpy(domain, X, y))
    assert len(model.rules) <= 1  # at alpha = 0.05, rarely one by chance


def test_precomputed_parameters_are_used(heart):
    enc = encode_table(heart)
    learner = EVCRuleLearner(n_permutations=10)
    g = learner.fit_gumbel(enc)
    a = EVCRuleLearner(gumbel=g)(heart)
    b = EVCRuleLearner(n_permutations=10)(heart)
    assert a.gumbel is g
    assert [str(r) for r in a.rules] == [str(r) for r in b.rules]
    # much more optimism assumed -> weaker rules (lower corrected quality)
    strict = GumbelParameters(g.mu + 10, g.beta)
    c = EVCRuleLearner(gumbel=strict)(heart)
    assert np.mean([r.quality for r in c.rules]) < np.mean([r.quality for r in a.rules]) - 0.01


def test_determinism_and_n_jobs(heart):
    a = EVCRuleLearner(n_permutations=12, random_state=3)(heart)
    b = EVCRuleLearner(n_permutations=12, random_state=3, n_jobs=2)(heart)
    np.testing.assert_array_equal(a.gumbel.mu, b.gumbel.mu)
    assert [str(r) for r in a.rules] == [str(r) for r in b.rules]
    c = EVCRuleLearner(n_permutations=12, random_state=4)(heart)
    assert not np.array_equal(a.gumbel.mu, c.gumbel.mu)


def test_search_constraints(heart):
    g = EVCRuleLearner(n_permutations=10).fit_gumbel(encode_table(heart))
    base = EVCRuleLearner(gumbel=g)(heart)
    short = EVCRuleLearner(gumbel=g, max_rule_length=2, min_covered_examples=15)(heart)
    assert all(r.length <= 2 and r.n_covered >= 15 for r in short.rules)
    strict = EVCRuleLearner(gumbel=g, parent_alpha=0.01)(heart)
    assert np.mean([r.length for r in strict.rules]) <= \
        np.mean([r.length for r in base.rules])
    capped = EVCRuleLearner(gumbel=g, max_rules_per_class=1)(heart)
    assert len(capped.rules) == 2


def test_m_estimate_learner(heart):
    model = EVCRuleLearner(quality="m", m=2)(heart)
    assert model.gumbel is None and model.rules
    for r in model.rules:
        d = r.class_distribution
        prior = heart_prior(heart)[r.head]
        assert r.quality == pytest.approx((d[r.head] + 2 * prior) / (d.sum() + 2))


def heart_prior(data):
    counts = np.bincount(data.Y[~np.isnan(data.Y)].astype(int))
    return counts / counts.sum()


@pytest.mark.parametrize("name,min_ca,min_auc", [
    ("titanic", 0.77, 0.72), ("heart_disease", 0.72, 0.78), ("iris", 0.9, 0.93)])
def test_cross_validation_on_real_data(name, min_ca, min_auc):
    res = CrossValidation(k=5, random_state=0)(
        Table(name), [EVCRuleLearner(n_permutations=20)])
    assert CA(res)[0] > min_ca and AUC(res)[0] > min_auc


def test_multiclass_pickle_and_unknowns():
    iris = Table("iris")
    model = EVCRuleLearner(n_permutations=10)(iris)
    assert {r.head for r in model.rules} == {0, 1, 2}
    p = model(iris, model.Probs)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    m2 = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(m2(iris, m2.Probs), p)
    blank = iris[:2].copy()
    with blank.unlocked(blank.X):
        blank.X[:] = np.nan
    np.testing.assert_allclose(model(blank, model.Probs), np.full((2, 3), 1 / 3))
    assert model.with_strategy("first")(iris[:5]).shape == (5,)


def test_weights(heart):
    scaled = heart.copy()
    with scaled.unlocked(scaled.W):
        scaled.W = np.full(len(heart), 1.0)
    g = EVCRuleLearner(n_permutations=10).fit_gumbel(encode_table(heart))
    a = EVCRuleLearner(gumbel=g)(heart)
    b = EVCRuleLearner(gumbel=g)(scaled)
    assert [str(r) for r in a.rules] == [str(r) for r in b.rules]
    # weight 2 on every row = every row twice
    doubled = heart.copy()
    with doubled.unlocked(doubled.W):
        doubled.W = np.full(len(heart), 2.0)
    twice = Table.concatenate([heart, heart])
    c, d = EVCRuleLearner(gumbel=g)(doubled), EVCRuleLearner(gumbel=g)(twice)
    assert [str(r) for r in c.rules] == [str(r) for r in d.rules]
    # zero-weight rows count nowhere
    w = np.zeros(len(heart))
    w[::2] = 1
    weighted = heart.copy()
    with weighted.unlocked(weighted.W):
        weighted.W = w
    e = EVCRuleLearner(gumbel=g)(weighted)
    half = heart[::2]
    half = half[~np.isnan(half.Y)]
    cover = e.covering(half)
    for j, r in enumerate(e.rules):
        counts = np.bincount(half.Y[cover[:, j]].astype(int), minlength=2)
        np.testing.assert_allclose(r.class_distribution, counts)


def test_bad_input():
    with pytest.raises(ValueError, match="categorical class"):
        EVCRuleLearner()(Table("housing"))
    with pytest.raises(ValueError):
        EVCRuleLearner(quality="laplace")
    with pytest.raises(ValueError):
        EVCRuleLearner(alpha=0)
    with pytest.raises(ValueError):
        EVCRuleLearner(n_permutations=1)(informative_data(50))
    iris = Table("iris")
    g = GumbelParameters(np.zeros((2, 5)), np.ones((2, 5)))
    with pytest.raises(ValueError, match="classes"):
        EVCRuleLearner(gumbel=g)(iris)
    one = informative_data(30)
    with one.unlocked(one.Y):
        one.Y[:] = 1
    p = EVCRuleLearner()(one)(one, 1)
    np.testing.assert_allclose(p, np.tile([0, 1], (30, 1)))
    # constant and all-missing columns
    domain = Domain([ContinuousVariable("c"), ContinuousVariable("m"),
                     DiscreteVariable("d", values=("u", "v"))],
                    DiscreteVariable("y", values=("a", "b")))
    rng = np.random.default_rng(0)
    X = np.column_stack([np.ones(60), np.full(60, np.nan), rng.integers(0, 2, 60)])
    data = Table.from_numpy(domain, X, X[:, 2].copy())
    model = EVCRuleLearner(n_permutations=10)(data)
    assert all(c.column == 2 for r in model.rules for c in r.conditions)
    assert CA(CrossValidation(k=3)(data, [EVCRuleLearner(n_permutations=10)]))[0] == 1


def test_wvote_uses_the_corrected_qualities():
    data = informative_data()
    model = EVCRuleLearner(n_permutations=20)(data)
    assert model.strategy == "wvote"
    cover = model.covering(data)
    p = model(data, model.Probs)
    heads = np.array([r.head for r in model.rules])
    q = np.array([r.quality for r in model.rules])
    checked = 0
    for i in range(len(data)):
        fired = np.flatnonzero(cover[i])
        if len(fired) and len(set(heads[fired])) == 1:  # one class's rules fire
            assert p[i, heads[fired[0]]] == pytest.approx(q[fired].mean())
            checked += 1
    assert checked > 50


def test_a_certain_rule_does_not_make_a_certain_prediction():
    """zoo has pure rules whose corrected quality is 1 exactly; the votes
    use at most the Laplace estimate (n + 1) / (n + 2), so no class gets
    probability 0 (a test row of housevotes did)."""
    from Orange.data import Table

    data = Table("zoo")
    model = EVCRuleLearner(n_permutations=20)(data)
    assert max(r.quality for r in model.rule_list) == 1.0
    probs = model(data, model.Probs)
    present = np.bincount(data.Y.astype(int), minlength=probs.shape[1]) > 0
    assert probs[:, present].min() > 0 and probs.max() < 1


@pytest.mark.parametrize("quality", ["evc", "m"])
@pytest.mark.parametrize("name", ["heart_disease", "titanic", "iris"])
def test_counting_on_every_row_gives_the_searchs_numbers(quality, name):
    """``count_on_every_row`` on the rows the search read gives back every
    number the compiled search gave its rules: class counts, quality, raw
    frequency, LRS and p-value (so on a sample's rules it gives those of
    the whole data by the search's own definitions)."""
    import copy
    data = Table(name)
    learner = EVCRuleLearner(quality=quality)
    model = learner(data)
    rules = copy.deepcopy(model.rule_list)
    learner.count_on_every_row(rules, data, encode_table(data), model.gumbel)
    assert rules
    for a, b in zip(model.rule_list, rules):
        np.testing.assert_array_equal(a.class_distribution, b.class_distribution)
        assert a.quality == pytest.approx(b.quality, abs=1e-12)
        for key in ("raw_frequency", "lrs", "p_value"):
            assert a.extra[key] == pytest.approx(b.extra[key], abs=1e-12)


def test_covering_on_a_sample_of_the_rows():
    """Beyond ``search_rows`` rows the covering runs on a stratified sample
    (the rules those rows alone give, with the Gumbel parameters and bins of
    all rows), the rules are counted on every row; up to ``search_rows``
    nothing changes."""
    from orangecontrib.rules.rules import rule_class_weights
    data = Table("titanic")  # discrete: the sample's bins are those of all rows
    exact = EVCRuleLearner(search_rows=None)(data)
    roomy = EVCRuleLearner(search_rows=len(data))(data)
    assert roomy.search_rows is None and str(roomy) == str(exact)
    assert not any("sample of" in line for line in exact.summary_lines())

    learner = EVCRuleLearner(search_rows=400)
    model = learner(data)
    rows = learner.search_sample(data.Y.astype(int), data.domain.class_var.values)
    assert model.search_rows == len(rows) and abs(len(rows) - 400) <= 1
    assert str(learner(data)) == str(model)  # deterministic
    assert any("sample of 400 rows" in line for line in model.summary_lines())
    on_sample = EVCRuleLearner(search_rows=None, gumbel=model.gumbel)(data[rows])

    def bodies(m):
        return [(tuple(r.conditions), r.head) for r in m.rule_list]
    assert bodies(model) == bodies(on_sample) and bodies(model)
    enc = encode_table(data)
    np.testing.assert_array_equal(
        [r.class_distribution for r in model.rule_list],
        rule_class_weights(model.rule_list, data.X, enc.y, enc.w, enc.n_classes))
    for r in model.rule_list:  # the quality of the counts on every row
        S, N = float(np.sum(enc.y == r.head)), float(len(enc.y))
        s, n = r.class_distribution[r.head], r.class_distribution.sum()
        mu, beta = model.gumbel.of(r.head, len(r.conditions))
        assert r.quality == pytest.approx(float(evc_quality(s, n, S, N, mu, beta)[0][0]))
    p = model(data, model.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert pickle.loads(pickle.dumps(model)).search_rows == model.search_rows


def test_rule_scoring_and_lr_with_rules_search_a_sample_too():
    from orangecontrib.rules import RuleLogisticRegressionLearner, RuleScoringLearner
    data = Table("titanic")
    scoring = RuleScoringLearner(search_rows=400)(data)
    assert scoring.search_rows == 400
    assert any("sample of 400 rows" in line for line in scoring.summary_lines())
    assert RuleScoringLearner()(data).search_rows is None  # 2,201 rows: all of them
    lrr = RuleLogisticRegressionLearner(rule_learner=EVCRuleLearner(search_rows=400))(data)
    assert any("sample of 400 rows" in line for line in lrr.summary_lines())
    np.testing.assert_allclose(lrr(data, lrr.Probs).sum(axis=1), 1)


def test_rule_scoring_takes_the_every_row_counts_of_its_default_base(monkeypatch):
    """Beyond ``search_rows`` rows the default base (EVC's covering on a
    sample) has counted its rules on every row; Rule Scoring takes those
    counts instead of counting again, and they are those of a recount."""
    from orangecontrib.rules import RuleScoringLearner, scoring
    from orangecontrib.rules.rules import rule_class_weights
    data = Table("heart_disease")  # numeric columns with missing values
    recounts = []
    monkeypatch.setattr(scoring, "rule_class_weights",
                        lambda *args: recounts.append(1) or rule_class_weights(*args))
    model = RuleScoringLearner(search_rows=150)(data)
    assert model.search_rows == 150 and not recounts and model.rule_list
    enc = encode_table(data)
    np.testing.assert_array_equal(
        [r.class_distribution for r in model.rule_list],
        rule_class_weights(model.rule_list, data.X, enc.y, enc.w, enc.n_classes))
    for r in model.rule_list:
        assert r.quality == r.laplace_confidence()
    RuleScoringLearner(search_rows=None)(data)  # no sample: counted here, once
    assert len(recounts) == 1


def test_printout_gives_the_vote_where_the_laplace_cap_lowers_the_quality():
    """A rule's EVC quality can be 1 while the model votes with at most
    (n + 1) / (n + 2): the printout says "votes v" beside it, the viewer's
    Vote column holds v, and the explanations read v (zoo: "EVC quality
    1.000" beside "+0.933 confidence" in the explanation)."""
    import numpy as np
    from Orange.data import Table

    from orangecontrib.rules import EVCRuleLearner, viewer
    data = Table("zoo")
    model = EVCRuleLearner()(data)
    votes = model.rule_confidences()
    quality = np.array([r.quality for r in model.rule_list])
    columns = {c.name: c.values for c in viewer.rule_table(model).columns}
    np.testing.assert_array_equal(columns["Vote"], votes)
    lines = str(model).splitlines()[1:]
    capped = 0
    for k, line in enumerate(lines[:len(model.rule_list)]):
        lowered = round(votes[k], 3) < round(quality[k], 3)
        assert (f", votes {votes[k]:.3f}" in line) == lowered, line
        capped += lowered
    assert capped
    for e in model.explain(data):
        for j, k in enumerate(e.rules):
            assert e.contributions[j].max() == votes[k]
