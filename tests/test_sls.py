"""SLS rule-set ensembles (Rückert & Kramer 2006): kernel moves against a
numpy reference, Algorithm 2's weights, the PAC-Bayes bound, abstention and
the learner on real data."""
import pickle
from math import comb, log, sqrt

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.rules import SLSEnsembleLearner, SLSEnsembleModel, core
from orangecontrib.rules.base import PriorRuleModel
from orangecontrib.rules.encoding import Literals
from orangecontrib.rules.sls import (Nominalise, log_n_rule_sets,
                                     pac_bayes_epsilon, rule_set_fires,
                                     white_noise_weights)


# ----------------------------------------------------------- numpy reference

def random_problem(seed, m=60, n_attrs=4, n_values=3, weighted=False):
    rng = np.random.default_rng(seed)
    Xd = rng.integers(0, n_values, (m, n_attrs)).astype(np.int32)
    lits = Literals.of(Xd, np.full(n_attrs, n_values, np.int32))
    y = rng.random(m) < 0.4
    w = rng.random(m) + 0.1 if weighted else np.ones(m)
    return rng, Xd, lits, y, w


def bits(mask):
    return core.pack_bits(np.asarray(mask, np.uint8))


def score_of(rules, lits, Xd, y, w):
    covered = np.zeros(len(Xd), bool)
    for row in rules:
        c = np.ones(len(Xd), bool)
        for lit in row[row >= 0]:
            c &= Xd[:, lits.attr[lit]] == lits.value[lit]
        covered |= c
    return float(w[covered != y].sum()), covered


def random_rules(rng, lits, k, n_attrs, p=0.5):
    rules = np.full((k, n_attrs), -1, np.int32)
    for t in range(k):
        for a in range(n_attrs):
            if rng.random() < p:
                ids = np.flatnonzero(lits.attr == a)
                rules[t, a] = rng.choice(ids)
    return rules


def move(lits, y, w, rules, x, p_noise=0.0, seed=0):
    return core.sls_move(lits.bits, lits.attr, lits.ex_lit, bits(y), bits(w > 0),
                         w, rules, x, p_noise, seed)


# ----------------------------------------------------------- kernel moves

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans())
def test_specialisation_is_the_best_literal_and_uncovers_x(seed, k, weighted):
    rng, Xd, lits, y, w = random_problem(seed, weighted=weighted)
    rules = random_rules(rng, lits, k, Xd.shape[1], p=0.2)
    _, covered = score_of(rules, lits, Xd, y, w)
    candidates = np.flatnonzero(covered & ~y)
    if not len(candidates):
        return
    x = int(rng.choice(candidates))
    new, t = move(lits, y, w, rules, x)
    assert t >= 0
    changed = np.flatnonzero((new != rules).any(axis=1))
    assert list(changed) == [t]  # one rule, one literal added
    diff = np.flatnonzero(new[t] != rules[t])
    assert len(diff) == 1 and rules[t, diff[0]] == -1
    lit = new[t, diff[0]]
    assert lits.value[lit] != Xd[x, diff[0]]  # x violates the new literal
    # the changed rule no longer covers x; if no other rule did, x is uncovered
    _, cov_rule = score_of(new[t:t + 1], lits, Xd, y, w)
    assert not cov_rule[x]
    others = np.delete(rules, t, axis=0)
    if not score_of(others, lits, Xd, y, w)[1][x]:
        assert not score_of(new, lits, Xd, y, w)[1][x]
    # greedy: no admissible literal gives a lower score (numpy reference)
    best = score_of(new, lits, Xd, y, w)[0]
    for l in range(len(lits.attr)):
        a = lits.attr[l]
        if rules[t, a] >= 0 or lits.value[l] == Xd[x, a]:
            continue
        alt = rules.copy()
        alt[t, a] = l
        assert score_of(alt, lits, Xd, y, w)[0] >= best - 1e-9


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans())
def test_generalisation_drops_the_best_violated_literal(seed, k, weighted):
    rng, Xd, lits, y, w = random_problem(seed, weighted=weighted)
    rules = random_rules(rng, lits, k, Xd.shape[1], p=0.6)
    _, covered = score_of(rules, lits, Xd, y, w)
    candidates = np.flatnonzero(~covered & y)
    if not len(candidates):
        return
    x = int(rng.choice(candidates))
    viol = [(rules[r] >= 0) & (lits.value[np.maximum(rules[r], 0)] != Xd[x])
            for r in range(k)]
    new, t = move(lits, y, w, rules, x)
    assert viol[t].sum() == min(v.sum() for v in viol)  # the closest rule
    dropped = np.flatnonzero(new[t] != rules[t])
    assert len(dropped) == 1 and viol[t][dropped[0]] and new[t, dropped[0]] == -1
    best = score_of(new, lits, Xd, y, w)[0]
    for a in np.flatnonzero(viol[t]):
        alt = rules.copy()
        alt[t, a] = -1
        assert score_of(alt, lits, Xd, y, w)[0] >= best - 1e-9
    if viol[t].sum() == 1:  # one literal away: the step covers x
        assert score_of(new, lits, Xd, y, w)[1][x]


def test_moves_on_a_hand_made_case():
    # attributes A, B with values 0/1; positives: A=0; rule set {A=1 AND B=0}
    Xd = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.int32)
    lits = Literals.of(Xd, np.array([2, 2], np.int32))  # literals A=0,A=1,B=0,B=1
    y = Xd[:, 0] == 0
    w = np.ones(4)
    rules = np.array([[1, 2]], np.int32)
    new, t = move(lits, y, w, rules, 0)  # positive (0,0) violates only A=1
    assert t == 0 and new.tolist() == [[-1, 2]]  # now covers x = 0
    # covered negative (1,0) under {B=0}: add A=0 (the only literal it
    # violates on an untested attribute) -> exactly the target
    new2, _ = move(lits, y, w, new, 2)
    assert new2.tolist() == [[0, 2]]
    assert not score_of(new2, lits, Xd, y, w)[1][2]
    # correctly classified example: no move
    same, t = move(lits, y, w, new2, 0)
    assert t == -1 and same.tolist() == new2.tolist()


def test_sls_search_score_matches_reference_and_is_deterministic():
    rng, Xd, lits, y, w = random_problem(3, m=200, n_attrs=6, weighted=True)
    out = core.sls_search(lits.bits, lits.attr, lits.ex_lit, bits(y), bits(w > 0),
                          w, 3, 500, 0.2, 0.01, 11)
    rules, score, steps = out
    assert score == pytest.approx(score_of(rules, lits, Xd, y, w)[0])
    again = core.sls_search(lits.bits, lits.attr, lits.ex_lit, bits(y), bits(w > 0),
                            w, 3, 500, 0.2, 0.01, 11)
    assert np.array_equal(again[0], rules) and again[1] == score
    # the best of the search is never worse than its start (one random literal)
    assert 0 < steps <= 500


@pytest.mark.parametrize("seed", range(5))
def test_sls_finds_a_consistent_dnf(seed):
    rng = np.random.default_rng(seed)
    Xd = rng.integers(0, 3, (400, 8)).astype(np.int32)
    y = ((Xd[:, 0] == 0) & (Xd[:, 1] == 1)) | ((Xd[:, 2] == 2) & (Xd[:, 5] == 0))
    lits = Literals.of(Xd, np.full(8, 3, np.int32))
    w = np.ones(400)
    rules, score, _ = core.sls_search(lits.bits, lits.attr, lits.ex_lit, bits(y),
                                      bits(w > 0), w, 2, 5000, 0.2, 0.01, seed)
    assert score == 0
    assert score_of(rules, lits, Xd, y, w)[0] == 0


def test_kernel_rejects_bad_input():
    _, Xd, lits, y, w = random_problem(0)
    args = (lits.bits, lits.attr, lits.ex_lit, bits(y), bits(w > 0), w)
    with pytest.raises(ValueError):
        core.sls_search(*args, 0)
    with pytest.raises(ValueError):
        core.sls_search(lits.bits, lits.attr, lits.ex_lit, bits(y), bits(w > 0),
                        w[:-1], 2)
    bad = lits.ex_lit.copy()
    bad[0, 0] = lits.bits.shape[0] + 5
    with pytest.raises(ValueError):
        core.sls_search(lits.bits, lits.attr, bad, bits(y), bits(w > 0), w, 2)
    with pytest.raises(ValueError):
        core.sls_search(*args[:5], -w, 2)
    with pytest.raises(IndexError):
        core.sls_move(*args, np.full((1, Xd.shape[1]), -1), len(w))


# ----------------------------------------------------------- formulas

def test_white_noise_weights():
    q = white_noise_weights([0, 1, 2], 0.9)
    np.testing.assert_allclose(q, np.array([1, 0.9, 0.81]) / 2.71)
    # huge error counts do not underflow
    q = white_noise_weights([5000, 5001], 0.9)
    np.testing.assert_allclose(q, np.array([1, 0.9]) / 1.9)


def test_pac_bayes_bound_by_hand():
    assert pac_bayes_epsilon(2.0, 100, 0.05) == pytest.approx(
        sqrt((2 + log(20) + log(100) + 2) / 199))
    # two binary attributes: 3 * 3 = 9 rules; rule sets of 1..2 rules
    assert log_n_rule_sets([2, 2], 2) == pytest.approx(log(comb(9, 1) + comb(9, 2)))
    assert log_n_rule_sets([1], 5) == pytest.approx(log(comb(2, 1) + comb(2, 2)))
    # huge N: ln C(N, k) -> k ln N - ln k!, summed over k
    n_values = [9] * 30  # N = 10^30
    big = log_n_rule_sets(n_values, 3)
    terms = [k * 30 * log(10) - sum(log(i) for i in range(1, k + 1)) for k in (1, 2, 3)]
    assert big == pytest.approx(max(terms) + log(sum(np.exp(np.array(terms) - max(terms)))))
    # N beyond float range (exp(ln N) overflows): finite, no warning
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert log_n_rule_sets([10] * 500, 8) == pytest.approx(
            8 * 500 * log(11) - sum(log(i) for i in range(1, 9)))


# ----------------------------------------------------------- the learner

@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


@pytest.fixture(scope="module")
def heart_model(heart):
    return SLSEnsembleLearner(k_max=3, n_rule_sets=5, max_steps=1000,
                              random_state=1)(heart)


def test_weights_and_bound_of_the_model(heart, heart_model):
    model = heart_model
    assert isinstance(model, SLSEnsembleModel)
    assert len(model.ensembles) == 1  # two classes: one ensemble
    ens = model.ensembles[0]
    data = Nominalise(10)(heart)
    Xd = model.data_to_model_domain(heart).X
    positive = data.Y == ens.cls
    for rs, e in zip(ens.rule_sets, ens.errors):
        assert e == pytest.approx(np.sum(rule_set_fires(rs, Xd) != positive))
    np.testing.assert_allclose(ens.weights, white_noise_weights(ens.errors, 0.9))
    bound = model.bounds[ens.cls]
    m = len(heart)
    assert bound.gibbs_error == pytest.approx(np.dot(ens.weights, ens.errors) / m)
    n_values = [len(v.values) for v in model.domain.attributes]
    entropy = -np.sum(ens.weights * np.log(ens.weights))
    kl = log_n_rule_sets(n_values, 3) - entropy
    assert bound.kl == pytest.approx(kl)
    assert bound.bound == pytest.approx(bound.gibbs_error + sqrt(
        (kl + log(1 / 0.05) + log(m) + 2) / (2 * m - 1)))
    assert model.voting_bound == pytest.approx(min(1, 2 * bound.bound))
    assert model.abstaining_bound(0) == pytest.approx(model.voting_bound)
    assert model.abstaining_bound(1) < model.abstaining_bound(0)


def test_class_score_and_probabilities(heart, heart_model):
    model = heart_model
    ens = model.ensembles[0]
    Xd = model.data_to_model_domain(heart).X
    c = sum(q * np.where(rule_set_fires(rs, Xd), 1, -1)
            for q, rs in zip(ens.weights, ens.rule_sets))
    scores = model.class_scores(heart)
    np.testing.assert_allclose(scores[:, ens.cls], c)
    np.testing.assert_allclose(scores[:, 1 - ens.cls], -c)
    # the probability: Q-weighted Laplace estimates of each rule set's two
    # regions, counted here from the training data by hand
    train = model.data_to_model_domain(heart)
    y = train.Y.astype(int) == ens.cls
    expected = np.zeros(len(heart))
    for q, rs in zip(ens.weights, ens.rule_sets):
        f = rule_set_fires(rs, train.X)
        p_fire = ((f & y).sum() + 1) / (f.sum() + 2)
        p_not = ((~f & y).sum() + 1) / ((~f).sum() + 2)
        expected += q * np.where(rule_set_fires(rs, Xd), p_fire, p_not)
    p = model(heart, model.Probs)
    np.testing.assert_allclose(p[:, ens.cls], expected)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert 0 < p.min() and p.max() < 1  # never certain
    assert (p.argmax(1) == heart.Y).mean() > 0.75


def test_abstention(heart):
    learner = SLSEnsembleLearner(k_max=2, n_rule_sets=5, max_steps=500, random_state=0)
    model = learner(heart)
    assert not model.abstains(heart).any()  # theta = 0: never
    margins = model.margins(heart)
    assert np.all((margins >= 0) & (margins <= 2 + 1e-12))
    theta = float(np.median(margins))
    abst = model.abstains(heart, theta)
    np.testing.assert_array_equal(abst, margins < theta)
    model.theta = theta
    p = model(heart, model.Probs)
    np.testing.assert_allclose(p[abst], np.tile(model.prior, (abst.sum(), 1)))
    curve = model.abstention_curve(heart, [0, theta, 2.5])
    assert curve[0]["abstention"] == 0 and curve[-1]["abstention"] == 1
    assert curve[1]["abstention"] == pytest.approx(abst.mean())
    kept = ~abst
    correct = model.class_scores(heart).argmax(1) == heart.Y
    assert curve[1]["accuracy"] == pytest.approx(correct[kept].mean())
    # a learner's theta reaches the model
    assert SLSEnsembleLearner(k_max=1, n_rule_sets=2, max_steps=100,
                              theta=0.5)(heart).theta == 0.5


def test_multiclass_iris():
    iris = Table("iris")
    model = SLSEnsembleLearner(k_max=3, n_rule_sets=10, max_steps=2000,
                               random_state=0)(iris)
    assert [e.cls for e in model.ensembles] == [0, 1, 2]
    p = model(iris, model.Probs)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert (p.argmax(1) == iris.Y).mean() > 0.85
    assert model.voting_bound is None and len(model.bounds) == 3
    text = str(model)
    assert "class iris = Iris-setosa" in text and "literals by ensemble weight" in text


def test_determinism_and_n_jobs(heart):
    kw = dict(k_max=2, n_rule_sets=4, max_steps=300)
    a = SLSEnsembleLearner(random_state=5, **kw)(heart)
    b = SLSEnsembleLearner(random_state=5, **kw)(heart)
    c = SLSEnsembleLearner(random_state=5, n_jobs=2, **kw)(heart)
    d = SLSEnsembleLearner(random_state=6, **kw)(heart)
    pa = a(heart, a.Probs)
    np.testing.assert_array_equal(pa, b(heart, b.Probs))
    np.testing.assert_array_equal(pa, c(heart, c.Probs))
    assert a.ensembles[0].rule_sets == c.ensembles[0].rule_sets
    assert a.ensembles[0].rule_sets != d.ensembles[0].rule_sets


def test_pickle(heart, heart_model):
    model = pickle.loads(pickle.dumps(heart_model))
    np.testing.assert_array_equal(model(heart, model.Probs),
                                  heart_model(heart, heart_model.Probs))
    assert str(model) == str(heart_model)


def test_rules_for_viewers(heart_model):
    rules = heart_model.rule_list
    assert rules and all(r.head == heart_model.ensembles[0].cls for r in rules)
    # a rule's weight is the weight of the rule sets it is in
    ens = heart_model.ensembles[0]
    first = tuple((c.column, int(c.value)) for c in rules[0].conditions)
    assert rules[0].quality == pytest.approx(
        sum(q for q, rs in zip(ens.weights, ens.rule_sets) if first in rs))


def small_table(n=120, seed=0, names=("x", "d", "y")):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    d = rng.integers(0, 3, n)
    y = ((x > 0.3) | (d == 2)).astype(float)
    domain = Domain([ContinuousVariable(names[0]),
                     DiscreteVariable(names[1], values=("a", "b", "c"))],
                    DiscreteVariable(names[2], values=("no", "yes")))
    return Table.from_numpy(domain, np.column_stack([x, d]), y)


FAST = dict(k_max=2, n_rule_sets=3, max_steps=300, random_state=0)


def test_missing_values_become_a_value_and_unknowns_at_prediction():
    data = small_table()
    with data.unlocked(data.X):
        data.X[::7, 1] = np.nan
    model = SLSEnsembleLearner(**FAST, numeric="intervals")(data)
    d_var = model.domain.attributes[1]
    assert d_var.values[-1] == "unknown"
    x_var = model.domain.attributes[0]
    assert "unknown" not in x_var.values and len(x_var.values) == 10
    # thresholds: nine two-valued attributes for x, the discrete one as it was
    thresholds = SLSEnsembleLearner(**FAST)(data)
    names = [v.name for v in thresholds.domain.attributes]
    d_var = thresholds.domain[data.domain.attributes[1].name]
    assert d_var.values[-1] == "unknown"
    x_vars = [v for v in thresholds.domain.attributes if v is not d_var]
    assert len(x_vars) == 9 and all(len(v.values) == 2 for v in x_vars)
    assert len(set(names)) == len(names)
    test = small_table(seed=1)
    with test.unlocked(test.X):
        test.X[:5] = np.nan  # unknown in both, also where training had none
    for m in (model, thresholds):
        p = m(test, m.Probs)
        assert np.all(np.isfinite(p)) and np.allclose(p.sum(1), 1)


def test_bad_input():
    data = small_table()
    with pytest.raises(ValueError):
        SLSEnsembleLearner(k_max=0)
    with pytest.raises(ValueError):
        SLSEnsembleLearner(rho=0)
    with pytest.raises(ValueError):
        SLSEnsembleLearner(delta=1)
    # regression target
    housing = Table("housing")
    with pytest.raises(ValueError, match="categorical class"):
        SLSEnsembleLearner(**FAST)(housing)
    # empty data
    with pytest.raises(ValueError, match="empty"):
        SLSEnsembleLearner(**FAST)(data[:0])
    # one class: the prior
    one = data[data.Y == 1]
    model = SLSEnsembleLearner(**FAST)(one)
    assert isinstance(model, PriorRuleModel)
    # constant and all-missing columns
    domain = Domain(list(data.domain.attributes) + [
        ContinuousVariable("const"), ContinuousVariable("missing")], data.domain.class_var)
    X = np.column_stack([data.X, np.ones(len(data)), np.full(len(data), np.nan)])
    odd = Table.from_numpy(domain, X, data.Y)
    model = SLSEnsembleLearner(**FAST)(odd)
    p = model(odd, model.Probs)
    assert np.all(np.isfinite(p)) and (p.argmax(1) == odd.Y).mean() > 0.7


def test_many_classes_and_unicode_names():
    rng = np.random.default_rng(0)
    n = 300
    d = rng.integers(0, 6, n)
    domain = Domain([DiscreteVariable("größe", values=tuple("αβγδεζ")),
                     ContinuousVariable("温度")],
                    DiscreteVariable("类别", values=tuple(f"k{i}" for i in range(6))))
    X = np.column_stack([d, rng.normal(size=n)])
    data = Table.from_numpy(domain, X, d.astype(float))
    model = SLSEnsembleLearner(**FAST)(data)
    assert len(model.ensembles) == 6
    assert (model(data) == data.Y).mean() > 0.95
    assert "größe = α" in str(model)


def test_example_weights():
    data = small_table(200)
    learner = SLSEnsembleLearner(**FAST)
    base = learner(data)
    # scaling every weight changes nothing
    scaled = data.copy()
    with scaled.unlocked(scaled.W):
        scaled.W = np.full(len(data), 3.0)
    other = learner(scaled)
    np.testing.assert_allclose(base(data, base.Probs), other(data, other.Probs))
    # heavy weights on the negatives make the ensemble predict fewer positives
    heavy = data.copy()
    with heavy.unlocked(heavy.W):
        heavy.W = np.where(data.Y == 0, 20.0, 1.0)
    skewed = learner(heavy)
    assert (skewed(data) == 1).sum() <= (base(data) == 1).sum()
    np.testing.assert_allclose(skewed.class_distribution,
                               [20 * (data.Y == 0).sum(), (data.Y == 1).sum()])


def test_progress_callback(heart):
    seen = []
    SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=100)(
        heart, progress_callback=lambda p, *a: seen.append(p))
    assert seen and seen == sorted(seen) and seen[-1] > 0.9


def test_probabilities_are_calibrated_where_the_vote_is_unanimous():
    """One attribute decides the class 70% of the time: every rule set votes
    the same, so the paper's ``(c + 1) / 2`` would say 1.0; the probability
    must say about 0.7."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 2000)
    y = np.where(rng.random(2000) < 0.7, a, 1 - a)
    domain = Domain([DiscreteVariable("a", values=("0", "1")),
                     DiscreteVariable("noise", values=("p", "q", "r"))],
                    DiscreteVariable("y", values=("0", "1")))
    data = Table.from_numpy(domain, np.column_stack([a, rng.integers(0, 3, 2000)]), y)
    model = SLSEnsembleLearner(k_max=2, n_rule_sets=5, max_steps=500)(data)
    scores = model.class_scores(data)
    assert np.all(np.abs(scores[:, 1]) > 0.95)  # the vote is (nearly) unanimous
    p = model(data, model.Probs)[:, 1]
    assert abs(p[a == 1].mean() - 0.7) < 0.03 and abs(p[a == 0].mean() - 0.3) < 0.03
    assert p.max() < 0.8 and p.min() > 0.2
