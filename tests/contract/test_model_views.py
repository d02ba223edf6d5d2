"""Every view of a model agrees with the model (issue 67's defects, one
regression test each): the columns a model reads for an Instance, an
array and a sparse matrix; the rules table and class counts by value
name; the abstention curve; a base rule learner's preprocessing carried
with its rules; progress; example weights in the size curve and the
command line's cross-validation (the command line's bad values:
project/test_cli_values.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from Orange.data import Table
from Orange.preprocess import Discretize

import orangecontrib.rules as R
from registry import factory, make


@pytest.fixture(scope="module")
def titanic():
    return Table("titanic")


@pytest.fixture(scope="module")
def iris():
    return Table("iris")


# ---------------------------------------- 1, 2: the columns a model reads
#: every learner with its settings for real data, and SLS with the paper's intervals
QUICK = {**factory("real"),
         "sls-intervals": lambda **kw: make("sls", "real", numeric="intervals", **kw)}


def explained(model, x):
    return np.array([e.probabilities() for e in model.explain(x)])


@pytest.mark.parametrize("kind", sorted(QUICK))
def test_an_instance_is_read_without_its_class(kind, titanic):
    """``explain`` and ``covering`` of ``data[0]`` (an Orange Instance, whose
    class value is not a column) give what they give for ``data[:1]``."""
    model = QUICK[kind]()(titanic)
    np.testing.assert_array_equal(model.covering(titanic[0]), model.covering(titanic[:1]))
    np.testing.assert_allclose(explained(model, titanic[0]),
                               model(titanic[:1], model.Probs), atol=1e-12)


@pytest.mark.parametrize("pps", [None, [Discretize()]], ids=["own", "discretize"])
@pytest.mark.parametrize("kind", sorted(QUICK))
def test_an_array_is_read_in_the_training_columns(kind, pps, iris):
    """``explain(X)`` and ``covering(X)`` of a numpy array or a sparse
    matrix read ``X`` in the training columns, as ``model(X)`` does, also
    when the learner's preprocessing changed the columns (a ``Discretize()``
    preprocessor, SLS's intervals)."""
    data = iris[::2]
    model = QUICK[kind](**({} if pps is None else {"preprocessors": pps}))(data)
    probs = model(data, model.Probs)
    np.testing.assert_allclose(model(data.X, model.Probs), probs, atol=1e-12)
    cover = model.covering(data)
    for X in (data.X, sp.csr_matrix(data.X)):
        np.testing.assert_allclose(explained(model, X), probs, atol=1e-12)
        np.testing.assert_array_equal(model.covering(X), cover)
    np.testing.assert_allclose(explained(model, data.X[3]), probs[3:4], atol=1e-12)
    with pytest.raises(ValueError, match="columns"):
        model.explain(data.X[:, :2])


# ---------------------------------------- 3, 4: the rules table
def relisted(data, values):
    """``data`` with its class variable listing ``values`` (names of the
    old values, some may be left out: those rows get an unknown class)."""
    from Orange.data import DiscreteVariable, Domain
    cv = data.domain.class_var
    new = DiscreteVariable(cv.name, tuple(values))
    index = {v: k for k, v in enumerate(values)}
    y = np.array([index.get(cv.values[int(c)], np.nan) for c in data.Y])
    return Table.from_numpy(Domain(data.domain.attributes, new), data.X, y,
                            W=data.W if data.has_weights() else None)


def test_rules_table_counts_classes_by_value_name(titanic):
    """The rules table (the viewer's Rules output) counts a row under its
    class's value name, whatever codes the data give it: data listing the
    class values in another order, or only "yes"."""
    from orangecontrib.rules import viewer
    model = R.RuleScoringLearner()(titanic)
    plain = viewer.rules_as_table(model, titanic)
    names = [f"n {v}" for v in titanic.domain.class_var.values]
    expected = np.column_stack([plain.get_column(n) for n in names])
    other = viewer.rules_as_table(model, relisted(titanic, ("yes", "no")))
    np.testing.assert_array_equal(np.column_stack([other.get_column(n) for n in names]),
                                  expected)
    np.testing.assert_array_equal(other.get_column("precision"), plain.get_column("precision"))
    yes = titanic[titanic.Y == 1]
    only = viewer.rules_as_table(model, relisted(yes, ("yes",)))
    np.testing.assert_array_equal(only.get_column("n no"), 0)
    np.testing.assert_array_equal(only.get_column("n yes"),
                                  viewer.rules_as_table(model, yes).get_column("n yes"))
    assert only.get_column("n yes").sum() > 0


@pytest.mark.parametrize("name", ["rule", "coverage", "precision", "conditions", "n yes",
                                  "length"])
def test_rules_table_takes_any_class_name(name, titanic):
    """A class variable named as one of the table's columns keeps its name
    (the column is renamed), and the table is the same otherwise."""
    from Orange.data import DiscreteVariable, Domain
    from orangecontrib.rules import viewer
    cv = titanic.domain.class_var
    renamed = titanic.transform(Domain(titanic.domain.attributes,
                                       DiscreteVariable(name, cv.values,
                                                        compute_value=lambda d: d.Y)))
    model = R.RuleScoringLearner()(renamed)
    table = viewer.rules_as_table(model, renamed)
    assert table.domain.class_var.name == name
    plain = viewer.rules_as_table(R.RuleScoringLearner()(titanic), titanic)
    np.testing.assert_array_equal(table.X, plain.X)
    np.testing.assert_array_equal(table.Y, plain.Y)
    assert len({v.name for v in table.domain.variables + table.domain.metas}) == \
        len(table.domain.variables) + len(table.domain.metas)


# ---------------------------------------- 7: the abstention curve
def test_abstention_curve_skips_unknown_classes_and_reads_values_by_name():
    """SLS's abstention curve (the viewer's abstention plot) leaves rows
    with an unknown class out, reads the class values by name, and counts
    rows by their weight (a row of weight 0 is no row)."""
    heart = Table("heart_disease")
    model = R.SLSEnsembleLearner(n_rule_sets=4, max_steps=300)(heart)
    thetas = [0.0, 0.2, 0.5, 1.0]
    plain = model.abstention_curve(heart, thetas)
    assert plain[0]["accuracy"] > 0.6
    unknown = heart.copy()
    with unknown.unlocked():
        unknown.Y[::3] = np.nan
    known = heart[np.isfinite(unknown.Y)]
    assert model.abstention_curve(unknown, thetas) == model.abstention_curve(known, thetas)
    cv = heart.domain.class_var
    assert model.abstention_curve(relisted(heart, cv.values[::-1]), thetas) == plain
    weighted = Table.from_numpy(heart.domain, heart.X, heart.Y,
                                W=np.where(np.arange(len(heart)) % 4 == 0, 0.0, 1.0))
    assert model.abstention_curve(weighted, thetas) == \
        model.abstention_curve(heart[np.arange(len(heart)) % 4 != 0], thetas)


# ---------------------------------------- 12: the command line's rules column
def test_the_command_lines_rules_column_counts_what_the_model_reads():
    """LR with rules reads only its rules of non-zero weight: the command
    line's "rules" column (evaluation.count_rules) counts those,
    ``model.size``, not its whole rule list."""
    from orangecontrib.rules.evaluation import count_rules
    heart = Table("heart_disease")
    model = R.RuleLogisticRegressionLearner(
        rule_learner=R.EVCRuleLearner(n_permutations=20))(heart)
    assert model.size[0] < len(model.rule_list)
    assert count_rules(model) == model.size[0]
    slipper = R.SlipperLearner()(heart)
    assert count_rules(slipper) == slipper.size[0] == len(slipper.rule_list)


# ---------------------------------------- 11: weights in the size curve and the CLI
def with_ignored_rows(data, n_extra, seed=0):
    """``data`` (weights 1) followed by ``n_extra`` rows of weight 0: other
    rows of ``data`` with their classes shuffled."""
    rng = np.random.default_rng(seed)
    extra = rng.choice(len(data), n_extra)
    X = np.vstack([data.X, data.X[extra]])
    Y = np.concatenate([data.Y, rng.permutation(data.Y[extra])])
    W = np.concatenate([np.ones(len(data)), np.zeros(n_extra)])
    return Table.from_numpy(data.domain, X, Y, W=W)


def test_size_curve_and_cross_validation_score_with_the_weights():
    """150 rows of weight 0 added to 300: the size curve ("Compare sizes")
    and the command line's cross-validation give what the 300 give."""
    from orangecontrib.rules.evaluation import Entry, cross_validate, size_curve
    data = Table("heart_disease")[:300]
    padded = with_ignored_rows(data, 150)
    learner = R.RuleScoringLearner(beam_width=3)
    assert size_curve(learner, padded, budgets=(3, None)) == \
        size_curve(learner, data, budgets=(3, None))
    entries = [Entry("scoring", learner)]

    def scores(d):
        return {k: (v.ca, v.auc, v.logloss, v.brier, v.n_rules)
                for k, v in cross_validate(d, entries, k=3).items()}
    assert scores(padded) == scores(data)


def test_fold_metrics_count_a_weight_k_as_k_rows():
    from orangecontrib.rules.evaluation import fold_metrics
    rng = np.random.default_rng(1)
    for n_classes in (2, 3):
        y = rng.integers(0, n_classes, 40)
        p = rng.dirichlet(np.ones(n_classes), 40)
        w = rng.integers(0, 4, 40).astype(float)
        rows = np.repeat(np.arange(40), w.astype(int))
        np.testing.assert_allclose(fold_metrics(y, p, n_classes, w),
                                   fold_metrics(y[rows], p[rows], n_classes), rtol=1e-12)


# ---------------------------------------- 10: LR with rules' quality column
@pytest.mark.parametrize("rule_learner, name", [
    (lambda: R.EVCRuleLearner(n_permutations=10), "EVC quality"),
    (lambda: R.EVCRuleLearner(quality="m"), "m-estimate"),
    (lambda: R.SlipperLearner(T_max=5, n_folds=2), "Confidence"),
    (lambda: R.ROCCERLearner(max_length=2), "Likelihood ratio"),
], ids=["evc", "m", "slipper", "roccer"])
def test_lr_with_rules_names_its_rules_quality_as_their_learner_does(rule_learner, name,
                                                                     titanic):
    from orangecontrib.rules import viewer
    model = R.RuleLogisticRegressionLearner(rule_learner=rule_learner(), n_folds=2)(titanic)
    columns = {c.name: c for c in viewer.rule_table(model).columns}
    assert set(columns) == {"Weight", name}
    # the rule learner's words, and whose class the number is of
    assert columns[name].tooltip.startswith(model.rule_model.quality_column().tooltip)
    assert columns[name].tooltip.endswith("where the weight turned the rule toward "
                                          "another class.")
    np.testing.assert_array_equal(columns[name].values,
                                  [r.quality for r in model.rule_list])


# ---------------------------------------- 9: progress never goes back
@pytest.mark.parametrize("multi_class", ["multinomial", "ovr"])
def test_lr_with_rules_under_a_budget_never_moves_progress_back(multi_class, iris):
    """LR with rules with ``max_rules`` on three classes: the rule penalty's
    choice (0.82 to 0.86) comes before the L1 path (0.86); it went from
    0.883 back to 0.857."""
    seen = []
    R.RuleLogisticRegressionLearner(rule_learner=R.EVCRuleLearner(n_permutations=10),
                                    max_rules=3, multi_class=multi_class)(
        iris, lambda p, *_: seen.append(p))
    assert len(seen) > 5 and np.all(np.diff(seen) >= 0), seen


# ---------------------------------------- 8: a base's preprocessing travels with its rules
def with_missing(data, share=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = data.X.copy()
    X[rng.random(X.shape) < share] = np.nan
    return Table.from_numpy(data.domain, X, data.Y)


BASES = {
    "cn2+discretize": lambda: __import__("orangecontrib.rules.cn2", fromlist=["x"])
    .cn2_unordered_equality(preprocessors=[Discretize()]),
    "sls-intervals": lambda: R.SLSEnsembleLearner(n_rule_sets=4, max_steps=300,
                                                  numeric="intervals"),
    "sls-thresholds": lambda: R.SLSEnsembleLearner(n_rule_sets=4, max_steps=300),
    "evc+discretize": lambda: R.EVCRuleLearner(n_permutations=10,
                                               preprocessors=[Discretize()]),
    "roccer": lambda: R.ROCCERLearner(max_length=2),
}


def base_cover(base_model, data):
    """Which of the base model's rules fire on each row, read on the base
    model's own columns (Orange's transformation of ``data``)."""
    X = base_model.data_to_model_domain(data).X
    return np.column_stack([np.asarray(r.evaluate_data(X), dtype=bool)
                            for r in base_model.rule_list])


def names_the_columns(model, data):
    """Every condition the viewer prints names one of the data's
    attributes; the data's columns come first in the model's domain."""
    from orangecontrib.rules import viewer
    names = [a.name for a in data.domain.attributes]
    assert model.domain.attributes[:len(names)] == data.domain.attributes
    for conds in viewer.rule_table(model).conditions:
        for text in conds:
            assert any(n in text for n in names), text


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
@pytest.mark.parametrize("base", sorted(BASES))
def test_rule_scoring_reads_a_bases_rules_where_it_meant_them(base, missing, iris):
    """Rule Scoring with a base that preprocesses (Orange's CN2 with
    ``Discretize()``, SLS's intervals, EVC with a ``Discretize()``
    preprocessor): every kept rule covers the rows its base rule covers on
    the base's own columns (it covered none: iris accuracy 0.33), the model
    pickles, and the viewer's rule texts name the data's columns."""
    import pickle
    data = with_missing(iris) if missing else iris
    model = R.RuleScoringLearner(base=BASES[base]())(data)
    assert model.size[0] > 0
    base_model = BASES[base]()(data)  # the base's own model: deterministic
    theirs = base_cover(base_model, data)
    heads = np.array([int(r.prediction) for r in base_model.rule_list])
    ours = model.covering(data)
    for k, rule in enumerate(model.rule_list):
        same = (theirs == ours[:, [k]]).all(axis=0) & (heads == rule.head)
        assert same.any(), rule
    assert np.mean(model(data) == data.Y) > 0.85
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again(data.X, again.Probs), model(data, model.Probs))
    names_the_columns(model, data)


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
@pytest.mark.parametrize("base", sorted(set(BASES) - {"cn2+discretize"}))
def test_lr_with_rules_reads_its_rule_learners_rules_where_it_meant_them(base, missing,
                                                                         iris):
    """LR with rules whose rule learner preprocesses: each rule covers the
    rows it covers on the rule learner's own columns (every rule covered 0
    rows, or, with missing values, the fit failed), also on new data, as an
    array; the explanation equals the prediction; the model pickles; the
    viewer names the data's columns."""
    import pickle
    data = with_missing(iris) if missing else iris
    model = R.RuleLogisticRegressionLearner(rule_learner=BASES[base](), n_folds=3)(data)
    assert len(model.rule_list) == len(model.rule_model.rule_list) > 0
    test = with_missing(iris, 0.2, seed=1)
    for d in (data, test):
        np.testing.assert_array_equal(model.covering(d), base_cover(model.rule_model, d))
    np.testing.assert_array_equal(model.covering(test.X), model.covering(test))
    probs = model(test, model.Probs)
    np.testing.assert_allclose(explained(model, test.X), probs, atol=1e-12)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again(test.X, again.Probs), probs)
    names_the_columns(model, data)


def test_a_bases_other_transformations_are_computed_columns(iris):
    """A base whose preprocessing is not a discretiser (``Normalize()``)
    has its rules read on the columns it computed, added to the model's
    domain under a name that says so."""
    from Orange.preprocess import Normalize
    base = R.EVCRuleLearner(n_permutations=10, preprocessors=[Normalize()])
    model = R.RuleScoringLearner(base=base)(iris)
    added = [a.name for a in model.domain.attributes[len(iris.domain.attributes):]]
    assert added and all(n.endswith(" (normalised)") for n in added)
    theirs = base_cover(base(iris), iris)
    ours = model.covering(iris)
    assert all((theirs == ours[:, [k]]).all(axis=0).any() for k in range(ours.shape[1]))
    np.testing.assert_array_equal(model(iris.X), model(iris))


def test_interval_bounds_read_discretisers_codes_exactly():
    """Orange's ``Discretizer`` puts ``x`` in interval ``v`` when
    ``p[v-1] <= x < p[v]``: every condition on the codes selects the same
    values as its bounds on ``x``."""
    from Orange.preprocess.discretize import Discretizer
    from orangecontrib.rules.base_rules import interval_bounds
    points = [-1.0, 0.0, 0.5, 2.0]
    x = np.array([-3, -1, -0.5, 0, 0.2, 0.5, 1, 2, 5, np.nan])
    codes = Discretizer(None, points).transform(x)
    ops = {"==": np.equal, "<=": np.less_equal, ">=": np.greater_equal, "<": np.less}
    thresholds = {">=": np.greater_equal, "<": np.less}
    for op, f in ops.items():
        for value in (-1, 0, 1, 2.5, 3, 4, 5):
            want = f(codes, value) & ~np.isnan(x)
            got = ~np.isnan(x)
            for o, t in interval_bounds(points, op, value):
                with np.errstate(invalid="ignore"):
                    got = got & thresholds[o](x, t)
            np.testing.assert_array_equal(got, want, err_msg=f"{op} {value}")


def test_abstention_curve_breaks_ties_as_prediction_does(iris):
    """Rows on which two classes score alike (here: the classes a budget of
    one rule left without an ensemble) go to the class more prevalent in
    training, as in prediction, not to the class listed first: the curve is
    the same for the class values listed in another order."""
    data = iris[10:]  # unequal classes: 40, 50, 50
    learner = R.SLSEnsembleLearner(n_rule_sets=3, max_steps=200, max_rules=1)
    thetas = [0.0, 0.5]
    plain = learner(data).abstention_curve(data, thetas)
    other = relisted(data, data.domain.class_var.values[::-1])
    assert learner(other).abstention_curve(other, thetas) == plain


# ---------------------------------------- a budget gives a sensible model
def test_slipper_budget_leaves_classes_without_a_round_at_their_prior():
    """SLIPPER with a budget of one rule on zoo's seven classes: six boosters
    get no round; their classes keep their training shares (they had
    probability 1/2 each, f = 0, and the model's training log loss 1.722 was
    worse than the class shares' 1.657)."""
    zoo = Table("zoo")
    model = R.SlipperLearner(max_rules=1)(zoo)
    empty = [cls for cls, rules in model.boosters if not rules]
    assert len(empty) >= 2
    probs = model(zoo, model.Probs)
    a, b = empty[:2]
    np.testing.assert_allclose(probs[:, a] / probs[:, b], model.prior[a] / model.prior[b])
    y = zoo.Y.astype(int)
    loss = -np.mean(np.log(probs[np.arange(len(y)), y]))
    assert loss < -np.mean(np.log(model.prior[y]))
    np.testing.assert_allclose(explained(model, zoo), probs, atol=1e-12)
