"""Fawcett's resolution strategies on a hand-built rule set, against
probabilities computed by hand."""
import numpy as np
import pytest

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.rules import Condition, Rule, RuleSetModel, score_rules
from orangecontrib.rules.ruleset import STRATEGIES

PRIOR_COUNTS = np.array([50.0, 30.0, 20.0])
PRIOR = PRIOR_COUNTS / 100
# head, covered class distribution -> Laplace confidence, FP rate
RULES = [(0, [8, 1, 1]),   # conf 9/13,  fpr 2/50
         (1, [1, 5, 0]),   # conf 6/9,   fpr 1/70
         (1, [3, 9, 2]),   # conf 10/17, fpr 5/70
         (2, [0, 0, 3])]   # conf 4/6,   fpr 0/80
HEADS = np.array([h for h, _ in RULES])
CONF = np.array([9 / 13, 6 / 9, 10 / 17, 4 / 6])
FPR = np.array([2 / 50, 1 / 70, 5 / 70, 0.0])
COVER = np.array([[1, 1, 1, 0],    # x0
                  [0, 0, 0, 0],    # x1: nothing fires
                  [1, 0, 0, 1],    # x2
                  [0, 1, 0, 0],    # x3
                  [0, 0, 1, 1]],   # x4
                 dtype=bool)


def row(winner, s):
    """Score s for the winner, 1 - s spread over the others by prevalence."""
    p = PRIOR.copy()
    p[winner] = 0
    p = p / p.sum() * (1 - s)
    p[winner] = s
    return p


def voted(winner, s, mass):
    """Score s for the winner, 1 - s spread over the others by their votes
    ``mass`` (VOTE: rules, WVOTE: summed confidences) plus their prevalence."""
    p = np.asarray(mass, dtype=float) + PRIOR
    p[winner] = 0
    p = p / p.sum() * (1 - s)
    p[winner] = s
    return p


def test_rule_statistics_match_hand_computation():
    rules = [Rule([], h, d) for h, d in RULES]
    np.testing.assert_allclose([r.laplace_confidence() for r in rules], CONF)
    np.testing.assert_allclose([r.false_positive_rate(PRIOR_COUNTS) for r in rules], FPR)


EXPECTED = {
    # unordered FIRST: rules by decreasing confidence r0, r1, r3, r2
    "first": [row(0, 9 / 13), PRIOR, row(0, 9 / 13), row(1, 6 / 9), row(2, 4 / 6)],
    "lfpr": [row(1, 6 / 9), PRIOR, row(2, 4 / 6), row(1, 6 / 9), row(2, 4 / 6)],
    # VOTE ties (x2: class 0 vs 2, x4: class 1 vs 2) go to the more prevalent class
    "vote": [voted(1, 2 / 3, [1, 2, 0]), PRIOR, voted(0, 1 / 2, [1, 0, 1]),
             voted(1, 1.0, [0, 1, 0]), voted(1, 1 / 2, [0, 1, 1])],
    "wvote": [voted(1, (6 / 9 + 10 / 17) / 2, [9 / 13, 6 / 9 + 10 / 17, 0]), PRIOR,
              voted(0, 9 / 13, [9 / 13, 0, 4 / 6]), voted(1, 6 / 9, [0, 6 / 9, 0]),
              voted(2, 4 / 6, [0, 10 / 17, 4 / 6])],
}


def test_votes_spread_the_rest_like_the_prior_on_two_classes():
    """With two classes the other class takes 1 - score whatever its votes:
    the paper's score, as before the votes shared the rest."""
    prior = np.array([0.6, 0.4])
    cover = np.array([[1, 1], [1, 0], [0, 1]], dtype=bool)
    heads, conf = np.array([0, 1]), np.array([0.8, 0.7])
    for strategy in ("vote", "wvote"):
        got = score_rules(cover, heads, conf, np.zeros(2), prior, strategy)
        winner = got.argmax(axis=1)
        np.testing.assert_allclose(got.sum(axis=1), 1)
        np.testing.assert_allclose(got[[1, 2], winner[[1, 2]]],
                                   [1.0, 1.0] if strategy == "vote" else [0.8, 0.7])
    np.testing.assert_allclose(score_rules(cover, heads, conf, np.zeros(2), prior, "wvote")[0],
                               [0.8, 0.2])


@pytest.mark.parametrize("strategy", sorted(EXPECTED))
def test_strategy_probabilities(strategy):
    got = score_rules(COVER, HEADS, CONF, FPR, PRIOR, strategy)
    np.testing.assert_allclose(got, np.array(EXPECTED[strategy]), atol=1e-12)


def test_first_follows_the_given_order_of_a_decision_list():
    got = score_rules(COVER, HEADS, CONF, FPR, PRIOR, "first", ordered=True)
    np.testing.assert_allclose(got[4], row(1, 10 / 17))  # r2 precedes r3
    np.testing.assert_allclose(got[0], row(0, 9 / 13))


def test_rand_is_seeded_and_picks_firing_rules_uniformly():
    """RAND picks one firing rule per row, the same for a row whatever
    rows are predicted with it (a hash of the seed and the firing rules),
    and over seeds each firing rule equally often."""
    a = score_rules(COVER, HEADS, CONF, FPR, PRIOR, "rand", random_state=7)
    b = score_rules(COVER, HEADS, CONF, FPR, PRIOR, "rand", random_state=7)
    np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(0)
    batch = rng.integers(0, len(COVER), 500)  # rows repeated, in another order
    np.testing.assert_array_equal(
        score_rules(COVER[batch], HEADS, CONF, FPR, PRIOR, "rand", random_state=7), a[batch])
    outcomes = [row(0, 9 / 13), row(1, 6 / 9), row(1, 10 / 17)]
    got = np.array([score_rules(COVER[[0]], HEADS, CONF, FPR, PRIOR, "rand",
                                random_state=seed)[0] for seed in range(3000)])
    which = np.array([[np.allclose(p, o) for o in outcomes] for p in got])
    assert which.sum(axis=1).tolist() == [1] * len(got)  # always one firing rule
    shares = which.mean(axis=0)
    np.testing.assert_allclose(shares, 1 / 3, atol=0.05)
    # a row where one rule fires is deterministic
    one = score_rules(COVER, HEADS, CONF, FPR, PRIOR, "rand", random_state=1)
    np.testing.assert_allclose(one[3], row(1, 6 / 9))
    np.testing.assert_allclose(one[1], PRIOR)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rows_are_distributions(strategy):
    rng = np.random.default_rng(0)
    cover = rng.random((200, 4)) < 0.4
    p = score_rules(cover, HEADS, CONF, FPR, PRIOR, strategy)
    assert p.shape == (200, 3)
    assert np.all(p >= 0) and not np.isnan(p).any()
    np.testing.assert_allclose(p.sum(axis=1), 1)


def test_no_rules_gives_the_prior():
    p = score_rules(np.zeros((3, 0), bool), [], [], [], PRIOR, "wvote")
    np.testing.assert_allclose(p, np.tile(PRIOR, (3, 1)))


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown scoring strategy"):
        score_rules(COVER, HEADS, CONF, FPR, PRIOR, "best")


def hand_table():
    """x0..x4 of COVER realised as data for conditions on two attributes."""
    a = DiscreteVariable("a", values=("p", "q", "r"))
    b = ContinuousVariable("b")
    cls = DiscreteVariable("cls", values=("k0", "k1", "k2"))
    domain = Domain([a, b], cls)
    rules = [Rule([Condition(0, "==", 0)], 0, RULES[0][1], domain=domain),
             Rule([Condition(1, "<=", 1.5)], 1, RULES[1][1], domain=domain),
             Rule([Condition(1, "<=", 2.5), Condition(1, ">=", 0.5)], 1,
                  RULES[2][1], domain=domain),
             Rule([Condition(1, ">=", 2.0)], 2, RULES[3][1], domain=domain)]
    X = np.array([[0, 1.0],      # r0, r1, r2
                  [1, np.nan],   # nothing: missing satisfies no condition
                  [0, 3.0],      # r0, r3
                  [np.nan, 0.0],  # r1
                  [2, 2.2]])     # r2, r3
    return domain, rules, Table.from_numpy(domain, X, np.zeros(5))


@pytest.mark.parametrize("strategy", sorted(EXPECTED))
def test_rule_set_model_end_to_end(strategy):
    domain, rules, data = hand_table()
    model = RuleSetModel(domain, rules, PRIOR_COUNTS, strategy)
    np.testing.assert_array_equal(model.covering(data), COVER)
    np.testing.assert_allclose(model(data, model.Probs), np.array(EXPECTED[strategy]),
                               atol=1e-12)
    assert str(rules[2]) == "IF 0.5 <= b <= 2.5 THEN cls = k1  [3/9/2]"  # one range


@pytest.mark.parametrize("cn2", [False, True])
def test_base_reports_progress_and_can_be_cancelled(cn2):
    """The default (compiled) base and Orange's CN2 (which reports no
    progress itself) move the progress bar per rule, and Cancel stops them."""
    from Orange.data import Table

    from orangecontrib.rules import Interrupted, RuleScoringLearner
    from orangecontrib.rules.cn2 import cn2_base
    data = Table("iris")
    seen = []
    learner = RuleScoringLearner(base=cn2_base() if cn2 else None)
    if not cn2:
        model = learner(data, progress_callback=lambda p, *_: seen.append(p))
        assert len([p for p in seen if 0.1 < p < 0.9]) >= 3 and seen == sorted(seen)
        with pytest.raises(Interrupted):
            learner(data, progress_callback=lambda p, *_: (_ for _ in ()).throw(
                Interrupted()) if p > 0.3 else None)
        again = learner(data)
        assert [str(r) for r in again.rule_list] == [str(r) for r in model.rule_list]
        return
    model = learner(data, progress_callback=lambda p, *_: seen.append(p))
    inside = [p for p in seen if 0.1 < p < 0.9]
    assert len(inside) >= 3 and inside == sorted(inside)
    finder = learner.base.rule_finder
    assert type(finder).__name__ != "ProgressFinder"  # restored after the fit

    def cancel(p, *_):
        if p > 0.3:
            raise Interrupted()
    with pytest.raises(Interrupted):
        learner(data, progress_callback=cancel)
    assert learner.base.rule_finder is finder
    again = learner(data)
    assert [str(r) for r in again.rule_list] == [str(r) for r in model.rule_list]


def test_equality_only_search_gives_no_inequality_conditions():
    """The CN2 base on Orange 3.38 (no ``restrict_equality``): the search
    that drops ``A != v`` conditions, tried here on any Orange, and the
    rules convert into this add-on's rules."""
    from Orange.classification import CN2UnorderedLearner

    from orangecontrib.rules import RuleScoringLearner
    from orangecontrib.rules.cn2 import EqualityOnlySearch
    data = Table("titanic")
    plain = CN2UnorderedLearner()(data)
    assert any(s.op == "!=" for r in plain.rule_list for s in r.selectors)
    base = CN2UnorderedLearner()
    base.rule_finder.search_strategy = EqualityOnlySearch()
    ops = {s.op for r in base(data).rule_list for s in r.selectors}
    assert ops and "!=" not in ops
    model = RuleScoringLearner(base=base)(data)
    assert len(model.rule_list) and np.allclose(model(data, model.Probs).sum(axis=1), 1)


@pytest.mark.parametrize("name, params", [("RuleScoringLearner", {}), ("ROCCERLearner", {}),
                                          ("EVCRuleLearner", {"n_permutations": 5})])
def test_predictions_in_row_blocks_and_sparse_counts(name, params, monkeypatch):
    """Models of many rules predict in row blocks (bounded memory): the same
    probabilities with blocks of a few rows; the rules' class counts from the
    sparse coverage equal those of the dense one."""
    import orangecontrib.rules as R
    import orangecontrib.rules.rules as rules_module
    data = Table("heart_disease")
    model = getattr(R, name)(**params)(data)
    whole = model(data, model.Probs)
    monkeypatch.setattr(rules_module, "COVER_CELLS", 3 * len(model.rule_list))
    np.testing.assert_allclose(model(data, model.Probs), whole, atol=1e-12)
    X = model.data_to_model_domain(data).X
    y = data.Y.astype(int)
    dense = R.covering(model.rule_list, X).astype(float).T @ np.eye(len(model.prior))[y]
    np.testing.assert_allclose(
        rules_module.rule_class_weights(model.rule_list, X, y, np.ones(len(y)),
                                        len(model.prior)), dense)


def test_rule_statistics_are_kept_and_follow_a_new_rule_list():
    """RuleSetModel makes its rules' statistics once; they equal a fresh
    computation, survive pickling, and a new rule list is computed anew."""
    import pickle

    from orangecontrib.rules import RuleScoringLearner
    data = Table("heart_disease")
    model = RuleScoringLearner()(data)

    def fresh(m):
        heads = np.array([r.head for r in m.rule_list])
        conf = np.array([r.laplace_confidence() for r in m.rule_list])
        fpr = np.array([r.false_positive_rate(m.class_distribution) for r in m.rule_list])
        return heads, conf, fpr
    first = model.rule_statistics()
    assert model.rule_statistics()[1] is first[1]  # kept, not made again
    for got, want in zip(first, fresh(model)):
        np.testing.assert_array_equal(got, want)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again(data, again.Probs), model(data, model.Probs))
    model.rule_list = model.rule_list[:3]
    for got, want in zip(model.rule_statistics(), fresh(model)):
        np.testing.assert_array_equal(got, want)
    assert len(model.rule_statistics()[0]) == 3


def test_m_is_the_default_searchs_m_estimate(heart):
    """``m`` (default 10) is the m-estimate of the default base's search:
    the model is the one the EVC search with that ``m`` gives, scored."""
    from orangecontrib.rules import EVCRuleLearner, RuleScoringLearner
    assert RuleScoringLearner().m == 10.0 and RuleScoringLearner().default_base().m == 10.0
    for m in (2.0, 10.0):
        learner = RuleScoringLearner(m=m)
        base = EVCRuleLearner(quality="m", m=m, min_new_coverage=0.02, random_state=0)
        a, b = learner(heart), RuleScoringLearner(base=base)(heart)
        assert str(a) == str(b)
    assert str(RuleScoringLearner(m=2.0)(heart)) != str(RuleScoringLearner()(heart))


def test_n_jobs_runs_the_default_bases_classes_in_threads(heart):
    """``n_jobs`` goes to the default base (its classes' searches in
    threads): the same model on two classes and on three; a base of one's
    own keeps its own threads."""
    from Orange.classification import CN2UnorderedLearner

    from orangecontrib.rules import RuleScoringLearner
    for data in (heart, Table("iris")):
        one, two = RuleScoringLearner()(data), RuleScoringLearner(n_jobs=2)(data)
        assert str(one) == str(two)
        np.testing.assert_array_equal(one(data, one.Probs), two(data, two.Probs))
    assert RuleScoringLearner(n_jobs=-1).default_base().n_jobs == -1
    with pytest.raises(ValueError, match="give it to your base learner"):
        RuleScoringLearner(base=CN2UnorderedLearner(), n_jobs=2)


def test_printout_and_summary_name_the_resolution_strategy():
    """The same rules under five strategies print alike but for the
    strategy, which the printout's first line and the summary name."""
    from Orange.data import Table

    from orangecontrib.rules import RuleScoringLearner
    data = Table("titanic")
    for strategy in ("first", "rand", "vote", "wvote", "lfpr"):
        model = RuleScoringLearner(strategy=strategy)(data)
        assert str(model).splitlines()[0].endswith(f"; resolution: {strategy}")
        assert f"Resolution: {strategy}" in model.summary_lines()
