"""SLIPPER (Cohen & Singer 1999): equations, rule growth/pruning, learner."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.evaluation import AUC, CA, CrossValidation

from orangecontrib.rules import encode_table
from orangecontrib.rules.slipper import (
    SlipperLearner, SlipperModel, boost, grow_objective, merge_duplicates,
    prune_loss, prune_rule, smoothed_confidence, z_score)


def test_equations_against_hand_computation():
    # eq. 4: 0.5 ln((0.3 + 1/20) / (0.1 + 1/20))
    assert smoothed_confidence(0.3, 0.1, 10) == pytest.approx(0.5 * np.log(0.35 / 0.15))
    assert smoothed_confidence(0.3, 0.1, 10) == pytest.approx(0.423648, abs=1e-6)
    # bounded by 1/2 ln(2n) + small: W+ = 1, W- = 0
    assert smoothed_confidence(1.0, 0.0, 10) == pytest.approx(0.5 * np.log(21))
    # eq. 5: 1 - (sqrt(.3) - sqrt(.1))^2
    assert z_score(0.3, 0.1) == pytest.approx(0.946410, abs=1e-6)
    # eq. 6
    assert grow_objective(0.25, 0.04) == pytest.approx(0.3)
    # eq. 7: 0.7 + 0.2 e^-0.5 + 0.1 e^0.5
    assert prune_loss(0.2, 0.1, 0.5) == pytest.approx(0.986178, abs=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_pruning_keeps_a_prefix(seed, length):
    rng = np.random.default_rng(seed)
    n = 40
    D = rng.random(n)
    D /= D.sum()
    ypos = (rng.random(n) < 0.5).astype(np.int32)
    grow = rng.random(n) < 0.66
    masks = [rng.random(n) < 0.8 for _ in range(length)]
    kept = prune_rule(list(range(length)), masks, ypos, D, grow, ~grow, n)
    assert 1 <= kept <= length
    # the same prefix as one prefix at a time (the numpy reference's sums)
    import slipper_reference as reference
    assert kept == reference.prune_length(list(range(length)), masks, ypos, D, grow, n)
    with pytest.raises(ValueError, match="~grow"):  # the PruneSet is the rest
        prune_rule(list(range(length)), masks, ypos, D, grow, grow, n)


def noise_data(n=400, pos_share=0.3, seed=0):
    rng = np.random.default_rng(seed)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(3)] +
                    [DiscreteVariable("d", values=("a", "b", "c"))],
                    DiscreteVariable("y", values=("neg", "pos")))
    X = np.column_stack([rng.normal(size=(n, 3)), rng.integers(0, 3, n)])
    y = (rng.random(n) < pos_share).astype(float)
    return Table.from_numpy(domain, X, y)


def test_default_rule_wins_on_pure_noise():
    enc = encode_table(noise_data())
    ypos = (enc.y == 1).astype(np.int32)
    for seed in range(5):
        (conds, c), = boost(enc, ypos, enc.w, 1, np.random.default_rng(seed))
        assert conds == ()  # eq. 5 prefers the default rule
        d_pos = enc.w[ypos == 1].sum() / enc.w.sum()
        assert c == pytest.approx(smoothed_confidence(d_pos, 1 - d_pos, enc.n))
        assert c < 0


def test_grown_rules_separate_a_clean_concept():
    data = noise_data(600, 0.5, seed=1)
    with data.unlocked(data.Y):
        data.Y[:] = (data.X[:, 0] > 0.3).astype(float)
    model = SlipperLearner(T=5)(data)
    first = [r for r in model.rules if r.conditions][0]
    assert first.conditions[0].column == 0
    assert np.mean(model(data) == data.Y) > 0.97


def test_merging_duplicates_does_not_change_predictions():
    data = Table("heart_disease")
    enc = encode_table(data)
    ypos = (enc.y == 1).astype(np.int32)
    hyp = boost(enc, ypos, enc.w, 60, np.random.default_rng(0))
    merged = merge_duplicates(hyp)
    assert len(merged) < len(hyp)  # the default rule recurs, at least

    def f(h):
        out = np.zeros(enc.n)
        for conds, c in h:
            cov = np.ones(enc.n, bool)
            for kind, col, op, value in conds:
                x = enc.Xd[:, col] if kind == 0 else enc.Xc[:, col]
                with np.errstate(invalid="ignore"):
                    cov &= {0: x == value, 1: x <= value, 2: x >= value}[op]
            out[cov] += c
        return out
    np.testing.assert_allclose(f(hyp), f(merged))


@pytest.mark.parametrize("name,min_ca,min_auc", [
    ("titanic", 0.77, 0.72), ("heart_disease", 0.75, 0.82), ("iris", 0.9, 0.93)])
def test_cross_validation_on_real_data(name, min_ca, min_auc):
    res = CrossValidation(k=5, random_state=0)(Table(name), [SlipperLearner(T_max=40)])
    assert CA(res)[0] > min_ca and AUC(res)[0] > min_auc


def test_multiclass_probabilities_and_printing():
    iris = Table("iris")
    model = SlipperLearner(T=20)(iris)
    assert isinstance(model, SlipperModel) and len(model.boosters) == 3
    p = model(iris, model.Probs)
    assert p.shape == (150, 3) and not np.isnan(p).any()
    np.testing.assert_allclose(p.sum(axis=1), 1)
    text = str(model)
    assert "booster for iris = Iris-setosa" in text and "IF petal" in text


def test_two_class_positive_is_the_minority_by_default():
    titanic = Table("titanic")  # survived = yes is the minority
    assert SlipperLearner(T=3)(titanic).boosters[0][0] == 1
    assert SlipperLearner(T=3, positive_class=0)(titanic).boosters[0][0] == 0


def test_determinism_and_n_jobs():
    data = Table("heart_disease")
    a = SlipperLearner(T_max=20, random_state=5)(data)
    b = SlipperLearner(T_max=20, random_state=5)(data)
    c = SlipperLearner(T_max=20, random_state=5, n_jobs=2)(data)
    assert [str(r) for r in a.rules] == [str(r) for r in b.rules] == \
        [str(r) for r in c.rules]
    assert a.rounds == c.rounds


def test_bins_of_any_size_give_the_same_model(monkeypatch):
    """The learner's grows sweep by bins of about ``slipper.BIN_ROWS``
    examples: the same model with bins of one tie group each and with one
    bin per column (every cut found inside a bin), on a table with ties,
    missing values and rules that keep most of their examples."""
    from orangecontrib.rules import slipper

    rng = np.random.default_rng(0)
    n = 3000
    X = np.round(rng.normal(size=(n, 3)), 1)  # many ties
    X[rng.random((n, 3)) < 0.05] = np.nan
    # conditions that each keep most of a rule's examples (x_j > -1)
    y = np.all(np.nan_to_num(X, nan=1.0) > -1, axis=1).astype(float)
    flip = rng.random(n) < 0.1  # label noise: rules with negatives left
    y[flip] = 1 - y[flip]
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(3)],
                    DiscreteVariable("y", ("a", "b")))
    data = Table.from_numpy(domain, X, y)
    models = []
    for rows in (slipper.BIN_ROWS, 1, n):
        monkeypatch.setattr(slipper, "BIN_ROWS", rows)
        models.append(str(SlipperLearner(T=6, positive_class=1)(data)))
    assert models[0] == models[1] == models[2] and models[0].count("IF") > 1


def test_pickle_and_missing_values_at_predict_time():
    data = Table("heart_disease")  # has unknown values at fit time
    model = SlipperLearner(T=15)(data)
    m2 = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(m2(data, m2.Probs), model(data, model.Probs))
    blank = data[:3].copy()
    with blank.unlocked(blank.X):
        blank.X[:] = np.nan
    f_default = sum(r.quality for r in model.rules if not r.conditions)
    expected_pos = 1 / (1 + np.exp(-2 * f_default))
    pos = model.boosters[0][0]
    np.testing.assert_allclose(model(blank, model.Probs)[:, pos], expected_pos)


def test_weights_are_the_initial_distribution():
    data = Table("heart_disease")
    scaled = data.copy()
    with scaled.unlocked(scaled.W):
        scaled.W = np.full(len(data), 4.0)
    a, b = SlipperLearner(T=10)(data), SlipperLearner(T=10)(scaled)
    assert [str(r.conditions) for r in a.rules] == [str(r.conditions) for r in b.rules]
    for ra, rb in zip(a.rules, b.rules):
        np.testing.assert_allclose(rb.class_distribution, 4 * ra.class_distribution)
        assert ra.quality == pytest.approx(rb.quality)
    # zero weight on every positive but one changes the first rule decision
    skew = data.copy()
    pos = np.flatnonzero(data.Y == 1)
    with skew.unlocked(skew.W):
        skew.W = np.ones(len(data))
        skew.W[pos[1:]] = 0.0
    m = SlipperLearner(T=1)(skew)
    assert m.rules[0].conditions == () and m.rules[0].quality < -1


def test_bad_input():
    with pytest.raises(ValueError, match="categorical class"):
        SlipperLearner()(Table("housing"))
    with pytest.raises(ValueError):
        SlipperLearner(T=0)
    one = noise_data(20)
    with one.unlocked(one.Y):
        one.Y[:] = 0
    p = SlipperLearner()(one)(one, 1)
    np.testing.assert_allclose(p, np.tile([1, 0], (20, 1)))


def test_holdout_errors_and_aucs_by_hand():
    """After each round: the weighted share of rows on the wrong side of 0,
    the weighted log loss of the model's probabilities and the weighted
    AUC of f (scikit-learn's, ties counting half)."""
    from sklearn.metrics import roc_auc_score

    from orangecontrib.rules.core import KIND_CONTINUOUS, OP_GE, OP_LE
    from orangecontrib.rules.slipper import Booster
    from orangecontrib.rules.slipper_rounds import HoldoutErrors, ranking_auc
    data = Table("heart_disease")
    enc = encode_table(data)
    rng = np.random.default_rng(0)
    enc.w = rng.uniform(0.5, 2.0, enc.n)
    ypos = (enc.y == 1).astype(np.int32)
    a = int(enc.attr_col[[v.name for v in data.domain.attributes].index("age")])
    hyp = [((), -0.3), (((KIND_CONTINUOUS, a, OP_GE, 55.0),), 0.8),
           (((KIND_CONTINUOUS, a, OP_LE, 40.0),), -0.5)]
    track = HoldoutErrors(ypos, enc.w, aucs=True)
    for conds, c in hyp:
        track(Booster.covered(enc, conds), c)
    errors, aucs = track.errors, track.aucs
    age = data.get_column("age")
    f = np.zeros(enc.n)
    for k, (cover, c) in enumerate([(np.ones(enc.n, bool), -0.3), (age >= 55, 0.8),
                                    (age <= 40, -0.5)]):
        f[cover] += c
        assert errors[k] == pytest.approx(enc.w[(f > 0) != (ypos == 1)].sum() / enc.w.sum())
        assert aucs[k] == pytest.approx(roc_auc_score(ypos, f, sample_weight=enc.w))
        # the log loss of the model's P(+|x) = 1 / (1 + exp(-2 f))
        p = 1 / (1 + np.exp(-2 * f))
        want = -np.average(np.where(ypos == 1, np.log(p), np.log(1 - p)), weights=enc.w)
        assert track.losses[k] == pytest.approx(want)
    assert aucs[0] == 0.5  # a default rule ranks nothing
    for _ in range(20):  # ties, weights, one class absent
        score = rng.integers(0, 5, 60).astype(float)
        y, w = rng.random(60) < 0.3, rng.uniform(0, 2, 60)
        want = roc_auc_score(y, score, sample_weight=w) if 0 < y.sum() < 60 else 0.5
        assert ranking_auc(score, y, w) == pytest.approx(want)
    assert ranking_auc(np.arange(5.0), np.zeros(5, bool), np.ones(5)) == 0.5


def test_a_stratified_sample_keeps_each_labels_share():
    from orangecontrib.rules.slipper_rounds import stratified_sample
    labels = np.repeat([0, 1, 2], [700, 290, 10])
    rows = np.arange(0, 2000, 2)  # a training part: every other row of 2000
    labels = np.repeat(labels, 2)
    assert stratified_sample(rows, labels, 1000, 0) is rows  # small enough as it is
    sample = stratified_sample(rows, labels, 100, 3)
    assert len(sample) == 100 and np.all(np.diff(sample) > 0)  # sorted, no repeats
    assert np.isin(sample, rows).all()
    np.testing.assert_array_equal(np.bincount(labels[sample], minlength=3), [70, 29, 1])
    np.testing.assert_array_equal(sample, stratified_sample(rows, labels, 100, 3))
    assert not np.array_equal(sample, stratified_sample(rows, labels, 100, 4))
    # a label rarer than one row in the sample still keeps one
    few = stratified_sample(rows, labels, 20, 0)
    np.testing.assert_array_equal(np.bincount(labels[few], minlength=3), [14, 5, 1])
    # with many such labels, a few more rows than asked for
    many = stratified_sample(rows, np.repeat(np.arange(100), 20), 50, 0)
    assert len(many) == 100 and len(np.unique(np.repeat(np.arange(100), 20)[many])) == 100


def test_a_stratified_sample_never_asks_a_class_for_more_rows_than_it_has():
    """A class of one row whose share rounds up (0.95 of a row here) keeps
    its one row; the row it cannot give goes to the next largest
    remainder (this raised ValueError before)."""
    from orangecontrib.rules.slipper_rounds import stratified_sample
    labels = np.repeat([0, 1, 2], [1, 10, 9])
    sample = stratified_sample(np.arange(20), labels, 19, 0)
    assert len(sample) == 19
    # remainders .95 (no row to spare), .5, .55
    np.testing.assert_array_equal(np.bincount(labels[sample]), [1, 9, 9])

def test_internal_folds_sample_the_training_part_only(monkeypatch):
    import orangecontrib.rules.slipper_rounds as S
    data = Table("heart_disease")
    enc = encode_table(data)
    seed = np.random.SeedSequence(1)
    exact = S.internal_folds(enc, enc.y, 5, seed, train_rows=None)
    capped = S.internal_folds(enc, enc.y, 5, seed, train_rows=100)
    assert len(exact) == len(capped) == 5
    for (tr, te), (ctr, cte) in zip(exact, capped):
        np.testing.assert_array_equal(te, cte)  # the hold-out part whole
        assert len(ctr) == 100 and np.isin(ctr, tr).all()
        share = np.bincount(enc.y[tr]) / len(tr)
        assert np.abs(np.bincount(enc.y[ctr]) / 100 - share).max() <= 0.01
    # the same seed, the same folds (the seed is not consumed)
    for a, b in zip(capped, S.internal_folds(enc, enc.y, 5, seed, train_rows=100)):
        np.testing.assert_array_equal(a[0], b[0])
    # the module's cap is read at the call: at or above the rows, the exact folds
    monkeypatch.setattr(S, "CV_TRAIN_ROWS", len(data))
    for a, b in zip(exact, S.internal_folds(enc, enc.y, 5, seed)):
        np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("name", ["heart_disease", "iris"])
def test_choosing_T_on_a_sample_of_the_training_part(name, monkeypatch):
    """With the cap above the rows the model is the exact one; below them
    ``T`` is chosen on boosters of the sampled rows (the very curves of
    boosting on them), the final boosters on all rows."""
    import orangecontrib.rules.slipper_rounds as S
    from orangecontrib.rules.slipper import Booster
    data = Table(name)
    monkeypatch.setattr(S, "CV_TRAIN_ROWS", None)
    exact = SlipperLearner(T_max=20)(data)
    monkeypatch.setattr(S, "CV_TRAIN_ROWS", len(data))
    assert str(SlipperLearner(T_max=20)(data)) == str(exact)
    monkeypatch.setattr(S, "CV_TRAIN_ROWS", 60)
    sampled = SlipperLearner(T_max=20)(data)
    assert str(SlipperLearner(T_max=20)(data)) == str(sampled)  # deterministic
    assert all(1 <= T <= 20 for T in sampled.rounds.values())
    p = sampled(data, sampled.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    # the curve it chose from: boosting on the sampled rows, held out on the fold
    enc = encode_table(data)
    learner = SlipperLearner(T_max=20)
    classes = learner._positive_classes(enc, data.domain.class_var.values)
    if len(classes) == 1:
        ypos = (enc.y == classes[0]).astype(np.int32)
        seed = np.random.SeedSequence(0).spawn(3)[0]
        T, mean = S.choose_rounds(Booster, enc, ypos, 20, 5, seed)
        assert T == sampled.rounds[classes[0]]
        seeds = np.random.SeedSequence(0).spawn(3)[0].spawn(6)  # as choose_rounds spawns
        folds = S.internal_folds(enc, ypos, 5, seeds[0])
        assert all(len(tr) == 60 for tr, _ in folds)
        errors = [S._fold_run(Booster, enc, ypos, tr, te, 20, s).curve[0]
                  for (tr, te), s in zip(folds, seeds[1:])]
        np.testing.assert_allclose(mean, np.mean(errors, axis=0))


# ------------------------------------------ the internal CV's bound doubling
def test_a_bounded_growset_is_the_first_rows_of_the_papers(monkeypatch):
    """``_split`` with ``max_rows``: the paper's GrowSet (the random order's
    first examples up to 2/3 of the weight) cut to its first ``max_rows``
    examples of the same order, the PruneSet all the rest; at or above the
    GrowSet's size, the paper's split; the same random numbers either way."""
    import orangecontrib.rules.slipper as S
    D = np.random.default_rng(3).random(1000)
    D /= D.sum()
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(len(D))
        cum = np.cumsum(D[order])
        paper = np.zeros(len(D), bool)
        paper[order[:np.searchsorted(cum, cum[-1] * 2 / 3) + 1]] = True  # by hand
        for max_rows in (None, len(D), int(paper.sum())):
            rng = np.random.default_rng(seed)
            grow, prune = S._split(rng, D, max_rows)
            np.testing.assert_array_equal(grow, paper)
            np.testing.assert_array_equal(prune, ~paper)
            after = rng.random()
        for max_rows in (1, 100, int(paper.sum()) - 1):
            rng = np.random.default_rng(seed)
            grow, prune = S._split(rng, D, max_rows)
            assert grow.sum() == max_rows
            np.testing.assert_array_equal(np.flatnonzero(grow), np.sort(order[:max_rows]))
            np.testing.assert_array_equal(prune, ~grow)
            assert rng.random() == after
    # the module's bound, read at the call
    monkeypatch.setattr(S, "GROW_MAX_ROWS", 10)
    assert S._split(np.random.default_rng(0), D)[0].sum() == 10
    monkeypatch.setattr(S, "GROW_MAX_ROWS", None)
    assert S._split(np.random.default_rng(0), D)[0].sum() > 600


@pytest.mark.parametrize("name", ["heart_disease", "iris"])
def test_rules_grown_on_a_bounded_growset(name, monkeypatch):
    """At or above the rows the bound gives the paper's model; below them
    every round grows its rule on that many examples (and prunes it on the
    rest): a deterministic model, with good probabilities, that says so."""
    import orangecontrib.rules.slipper as S
    data = Table(name)
    monkeypatch.setattr(S, "GROW_MAX_ROWS", None)
    exact = SlipperLearner(T_max=20)(data)
    assert "at most" not in str(exact) and exact.grow_rows is None
    monkeypatch.setattr(S, "GROW_MAX_ROWS", len(data))
    assert str(SlipperLearner(T_max=20)(data)) == str(exact)
    sizes = []
    split = S._split

    def recorded(rng, D):
        grow, prune = split(rng, D)
        sizes.append(int(grow.sum()))
        return grow, prune
    monkeypatch.setattr(S, "_split", recorded)
    monkeypatch.setattr(S, "GROW_MAX_ROWS", 50)
    bounded = SlipperLearner(T_max=20)(data)
    monkeypatch.setattr(S, "_split", split)
    assert sizes and max(sizes) == 50
    assert str(SlipperLearner(T_max=20)(data)) == str(bounded)  # deterministic
    assert str(bounded) != str(exact)
    assert bounded.grow_rows == 50
    assert "Each rule grown on a GrowSet of at most 50 rows" in "\n".join(bounded.summary_lines())
    p = bounded(data, bounded.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert CA()(CrossValidation(k=3, random_state=0)(data, [SlipperLearner(T_max=20)]))[0] > 0.5
    # older pickles, without the attribute, still describe themselves
    del bounded.grow_rows
    assert "at most" not in "\n".join(bounded.summary_lines())


def test_rounds_still_pay_by_hand():
    """The doubling test (doc/slipper.md, "More rounds on many rows"): the
    lowest error past the first half must beat the first half's lowest by
    more than z standard errors, sqrt(2 p (1 - p) / n)."""
    from orangecontrib.rules.slipper_rounds import DOUBLING_Z, rounds_still_pay
    mean = [0.30, 0.25, 0.20, 0.22, 0.18, 0.19]  # first half's best 0.20, all 0.18
    se = np.sqrt(2 * 0.2 * 0.8 / 1000)  # 0.0179: 0.02 is 1.12 standard errors
    assert DOUBLING_Z == 2.0
    assert not rounds_still_pay(mean, 1000)
    assert rounds_still_pay(mean, 1000, z=0.02 / se - 1e-6)
    assert not rounds_still_pay(mean, 1000, z=0.02 / se + 1e-6)
    # 10,000 examples: 3.54 standard errors
    assert rounds_still_pay(mean, 10_000)
    # the first half no worse, a single round, no hold-out, no error left
    assert not rounds_still_pay([0.2, 0.1, 0.2, 0.1], 10**9)
    assert not rounds_still_pay([0.2], 10**9)
    assert not rounds_still_pay(mean, 0)
    assert not rounds_still_pay([0.0, 0.0], 10**9)


def test_a_booster_goes_on_where_it_stopped():
    """Boosting to 6 rounds and then on to 15, or to 15 after a pickle (a
    process or Dask task), gives the rules of 15 rounds at once."""
    import orangecontrib.rules.slipper_rounds as S
    from orangecontrib.rules.slipper import Booster
    enc = encode_table(Table("heart_disease"))
    ypos = (enc.y == 1).astype(np.int32)
    at_once = boost(enc, ypos, enc.w, 15, np.random.default_rng(3))
    b = Booster(enc, ypos, enc.w, np.random.default_rng(3))
    assert b.boost(6) == at_once[:6]
    assert b.boost(15) == at_once
    b = pickle.loads(pickle.dumps(Booster(enc, ypos, enc.w, np.random.default_rng(3))))
    assert b.enc is None  # a pickle leaves the table behind: given again to go on
    b.enc = enc
    b.boost(6)
    b = pickle.loads(pickle.dumps(b))
    assert b.enc is None and b.cache is None
    b.enc = enc
    assert b.boost(15) == at_once
    # a fold's run detached between its rounds: the same curve
    folds = S.internal_folds(enc, ypos, 5, np.random.SeedSequence(1))
    (train, test), seed = folds[0], np.random.SeedSequence(2)
    whole = S._fold_run(Booster, enc, ypos, train, test, 15, seed)
    run = S._fold_run(Booster, enc, ypos, train, test, 6, seed)
    assert run.booster.enc is None and run.held_out is None
    run = pickle.loads(pickle.dumps(run))
    np.testing.assert_array_equal(S._fold_run_on(run, enc, 15).curve, whole.curve)
    assert run.booster.hypothesis == whole.booster.hypothesis


def signal_data(k=2, n=3000, seed=1):
    """A table where more boosting rounds keep lowering the hold-out error."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n, 8, n_informative=5, n_redundant=0, n_classes=k,
                               random_state=seed)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(8)],
                    DiscreteVariable("y", values=[str(i) for i in range(k)]))
    return Table.from_numpy(domain, X, y)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("kw", [{}, {"n_jobs": 2}, {"patience": 30}],
                         ids=["one job", "two jobs", "patience"])
def test_a_doubled_bound_is_the_bound_given_at_once(k, kw):
    """On data whose hold-out error still falls at ``T_max = 5``, the bound
    doubles twice (5 -> 20), and the model is that of ``T_max = 20`` without
    doubling (the folds' boosters go on, or run again from their seeds, on
    every path: one job, the folds and final booster in parallel, lockstep
    with patience, one booster per class); one doubling stops at 10."""
    data = signal_data(k)
    model = SlipperLearner(T_max=5, **kw)(data)
    assert set(model.rounds_tried.values()) == {20}
    exact = SlipperLearner(T_max=20, max_doublings=0, **kw)(data)
    assert str(model) == str(exact) and model.rounds == exact.rounds
    assert set(SlipperLearner(T_max=5, max_doublings=1, **kw)(data).rounds_tried.values()) == {10}
    assert set(SlipperLearner(T_max=5, max_doublings=0, **kw)(data).rounds_tried.values()) == {5}


def test_probabilities_hold_by_hand():
    """A doubled bound is kept if the log loss at its round of least error
    is no higher than at the old bound's round of least error."""
    from orangecontrib.rules.slipper_rounds import probabilities_hold
    errors = [0.30, 0.20, 0.25, 0.18, 0.19, 0.17]  # least: round 2 of 3, round 6 of 6
    assert probabilities_hold(np.array([errors, [0.6, 0.5, 0.5, 0.4, 0.4, 0.45]]), 3)
    assert probabilities_hold(np.array([errors, [0.6, 0.5, 0.5, 0.4, 0.4, 0.5]]), 3)  # equal
    assert not probabilities_hold(np.array([errors, [0.6, 0.5, 0.5, 0.4, 0.4, 0.51]]), 3)
    # no lower error past the old bound: the same round, kept
    assert probabilities_hold(np.array([[0.3, 0.1, 0.2, 0.2], [0.5, 0.4, 0.9, 0.9]]), 2)


def test_the_bound_doubles_by_the_evidence_of_the_folds():
    """Each doubling is the test of the curve so far: the folds' mean
    hold-out errors and log losses (``choose_rounds``) decide it as
    :func:`rounds_still_pay` and :func:`probabilities_hold` say, checked
    against the curve of 40 rounds at once. On small real data
    the bound stays (the same model as without doubling); under a budget
    it never doubles."""
    import orangecontrib.rules.slipper_rounds as S
    from orangecontrib.rules.slipper import Booster
    data = signal_data(2)
    enc = encode_table(data)
    ypos = (enc.y == 1).astype(np.int32)
    folds = S.internal_folds(enc, ypos, 5, np.random.SeedSequence(0).spawn(6)[0])
    n_holdout = S.holdout_size(enc, folds)
    assert n_holdout == pytest.approx(len(data))
    _, mean5 = S.choose_rounds(Booster, enc, ypos, 5, 5, 0)
    _, mean = S.choose_rounds(Booster, enc, ypos, 5, 5, 0, doublings=3)
    np.testing.assert_allclose(mean[:5], mean5)  # the same folds' first rounds
    seeds = np.random.SeedSequence(0).spawn(6)  # as choose_rounds spawns them
    whole = np.mean([S._fold_run(Booster, enc, ypos, tr, te, 40, s).curve
                     for (tr, te), s in zip(folds, seeds[1:])], axis=0)
    bound = 5
    while (bound < 40 and S.rounds_still_pay(whole[0, :bound], n_holdout)
           and S.probabilities_hold(whole[:, :2 * bound], bound)):
        bound *= 2
    assert bound > 5  # the data has the signal for it
    np.testing.assert_allclose(mean, whole[0, :bound])
    heart = Table("heart_disease")
    model = SlipperLearner(T_max=20)(heart)
    assert set(model.rounds_tried.values()) == {20}
    assert str(model) == str(SlipperLearner(T_max=20, max_doublings=0)(heart))
    budgeted = SlipperLearner(T_max=5, max_rules=30)(data)
    assert set(budgeted.rounds_tried.values()) == {5}


def test_each_booster_of_many_classes_doubles_on_its_own(monkeypatch):
    """Three boosters, the test passing for the first and the third only:
    those two are the boosters of ``T_max = 10``, the second that of
    ``T_max = 5`` (each booster's folds have their own seeds)."""
    import orangecontrib.rules.slipper_rounds as S
    data = signal_data(3)
    answers = iter([True, False, True, False, False])
    monkeypatch.setattr(S, "rounds_still_pay", lambda mean, n: next(answers))
    monkeypatch.setattr(S, "probabilities_hold", lambda mean, bound: True)
    model = SlipperLearner(T_max=5)(data)
    assert model.rounds_tried == {0: 10, 1: 5, 2: 10}
    monkeypatch.undo()
    five, ten = (SlipperLearner(T_max=T, max_doublings=0)(data) for T in (5, 10))

    def booster(m, b):
        return [str(r) for r in m.boosters[b][1]]
    assert booster(model, 0) == booster(ten, 0) and booster(model, 2) == booster(ten, 2)
    assert booster(model, 1) == booster(five, 1)
    assert model.rounds == {0: ten.rounds[0], 1: five.rounds[1], 2: ten.rounds[2]}


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("kw", [{}, {"n_jobs": 2}, {"patience": 30}],
                         ids=["one job", "two jobs", "patience"])
def test_a_doubling_that_costs_probabilities_is_undone(k, kw, monkeypatch):
    """When the doubled bound's round of least error has a higher hold-out
    log loss, the bound stays and ``T`` is chosen among its rounds: the
    model of no doubling, on every path."""
    import orangecontrib.rules.slipper_rounds as S
    data = signal_data(k)
    monkeypatch.setattr(S, "rounds_still_pay", lambda mean, n: True)
    monkeypatch.setattr(S, "probabilities_hold", lambda mean, bound: False)
    model = SlipperLearner(T_max=5, **kw)(data)
    assert set(model.rounds_tried.values()) == {5}
    fixed = SlipperLearner(T_max=5, max_doublings=0, **kw)(data)
    assert str(model) == str(fixed) and model.rounds == fixed.rounds


@pytest.mark.parametrize("kw", [{}, {"n_jobs": 2}, {"patience": 30}],
                         ids=["one job", "two jobs", "patience"])
def test_choosing_T_reports_its_progress_and_bound(kw):
    """The internal CV reports its progress with the bound it boosts to,
    every stage of a doubling included: each stage ends at 1, a doubled
    bound's stage starts from the half done; the final boosting follows."""
    from orangecontrib.rules.slipper_rounds import stage_share
    assert stage_share(0.5, 10, 0) == 0.5 and stage_share(0.0, 20, 10) == 0.5
    assert stage_share(1.0, 20, 10) == 1.0
    seen = []
    model = SlipperLearner(T_max=5, **kw)(signal_data(2),
                                          progress_callback=lambda p, s="": seen.append((p, s)))
    assert set(model.rounds_tried.values()) == {20}
    cv = [(p, s) for p, s in seen if "up to" in s]
    bounds = [int(s.split("up to ")[1].split()[0]) for _, s in cv]
    assert sorted(set(bounds)) == [5, 10, 20] and bounds == sorted(bounds)
    assert all(0 <= p <= 1 for p, _ in seen)
    # the CV's share of the bar (half, or all of it with the final booster
    # in parallel), as the reporter scales a fit's progress
    share = [p for p, s in seen if "up to" in s or s == "boosting"]
    if "n_jobs" not in kw:
        assert [s for p, s in seen if s == "boosting"]  # the final boosting follows
        assert max(p for p, s in cv) <= min(p for p, s in seen if s == "boosting")
    for bound in (5, 10, 20):
        shares = [p for (p, _), b in zip(cv, bounds) if b == bound]
        assert shares == sorted(shares)
    assert share[-1] == max(share)
