"""Regression tests for bad input and silent wrong output: each test fails
without its fix (value order by name, code validation, extreme values and
weights, SLIPPER's folds without weight, SLS's multi-class fallback, absent
classes, ROCCER on more data)."""
import pickle
import warnings

import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

import orangecontrib.rules as R
from registry import KINDS, REGISTRY, factory, make

#: the registry's settings for real data
LEARNERS = factory("real")


def reorder_values(data, name):
    """``data`` with the discrete attribute ``name`` listing its values in
    reverse order, its codes recoded to match (the same information)."""
    var = data.domain[name]
    new = DiscreteVariable(name, tuple(reversed(var.values)))
    attrs = [new if a.name == name else a for a in data.domain.attributes]
    X = data.X.copy()
    j = [a.name for a in data.domain.attributes].index(name)
    X[:, j] = len(var.values) - 1 - X[:, j]
    return Table.from_numpy(Domain(attrs, data.domain.class_var), X, data.Y)


@pytest.fixture(scope="module")
def titanic():
    return Table("titanic")


@pytest.mark.parametrize("kind", KINDS)
def test_discrete_values_are_mapped_by_name(titanic, kind):
    model = LEARNERS[kind]()(titanic)
    other = reorder_values(titanic, "sex")
    assert other.domain["sex"] == titanic.domain["sex"]  # Orange calls them equal
    expected = model(titanic, model.Probs)
    np.testing.assert_allclose(model(other, model.Probs), expected)
    np.testing.assert_array_equal(model.covering(other), model.covering(titanic))
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(again(other, again.Probs), expected)


def test_a_value_the_model_never_saw_is_unknown(titanic):
    model = R.SlipperLearner(T=10)(titanic)
    var = titanic.domain["sex"]
    new = DiscreteVariable("sex", tuple(var.values) + ("other",))
    attrs = [new if a.name == "sex" else a for a in titanic.domain.attributes]
    X = titanic.X.copy()
    j = [a.name for a in titanic.domain.attributes].index("sex")
    X[:5, j] = 2  # "other"
    other = Table.from_numpy(Domain(attrs, titanic.domain.class_var), X, titanic.Y)
    unknown = titanic.copy()
    with unknown.unlocked():
        unknown.X[:5, j] = np.nan
    np.testing.assert_allclose(model(other, model.Probs), model(unknown, model.Probs))


def two_class_domain():
    return Domain([ContinuousVariable("x"), DiscreteVariable("d", ("u", "v"))],
                  DiscreteVariable("y", ("a", "b")))


@pytest.mark.parametrize("labels", [(1, 2), (-1, 1)])
@pytest.mark.parametrize("kind", KINDS)
def test_class_codes_outside_the_values_are_a_clear_error(kind, labels):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.integers(0, 2, 40)])
    y = np.where(rng.random(40) < 0.5, *labels).astype(float)
    data = Table.from_numpy(two_class_domain(), X, y)
    with pytest.raises(ValueError, match="class 'y' has codes"):
        LEARNERS[kind]()(data)


@pytest.mark.parametrize("kind", KINDS)
def test_attribute_codes_outside_the_values_are_a_clear_error(kind):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.integers(0, 2, 40)])
    y = (rng.random(40) < 0.5).astype(float)
    good = Table.from_numpy(two_class_domain(), X.copy(), y)
    X[3, 1] = 5
    bad = Table.from_numpy(two_class_domain(), X, y)
    with pytest.raises(ValueError, match="attribute 'd' has codes 5"):
        LEARNERS[kind]()(bad)
    model = LEARNERS[kind]()(good)
    with pytest.raises(ValueError, match="attribute 'd' has codes 5"):
        model(bad)
    str(model)  # the model's own rules print


@pytest.mark.parametrize("kind", KINDS)
def test_extreme_values_are_a_clear_error(kind):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.integers(0, 2, 40)])
    X[0, 0] = 1.7e308
    data = Table.from_numpy(two_class_domain(), X, (rng.random(40) < 0.5).astype(float))
    with pytest.raises(ValueError, match="attribute 'x' has values of magnitude"):
        LEARNERS[kind]()(data)


def test_lr_with_rules_fits_extreme_weights(heart):
    """Weights of 1e160 or 1e300 (which overflowed the solver) fit: the
    loss is divided by the mean weight and lambda with it, so a weight still
    counts as that many rows (``test_logreg`` checks weight 2 = a duplicated
    row) and the probabilities are finite."""
    for scale in (1e-3, 1e160, 1e300):
        data = heart.copy()
        with data.unlocked():
            data.W = np.full(len(data), scale)
        for learner in (R.RuleLogisticRegressionLearner(use_rules=False),
                        R.RuleLogisticRegressionLearner(
                            rule_learner=R.EVCRuleLearner(n_permutations=5))):
            model = learner(data)
            p = model(heart, model.Probs)
            assert np.all(np.isfinite(p)) and np.allclose(p.sum(axis=1), 1)
            assert np.isfinite(model.lam) and model.lam >= 0


def test_slipper_with_most_weights_zero_validates_on_weighted_rows(heart):
    from orangecontrib.rules.features import encode_table
    from orangecontrib.rules.slipper import Booster
    from orangecontrib.rules.slipper_rounds import choose_rounds
    data = heart.copy()
    w = np.zeros(len(data))
    w[np.random.default_rng(0).choice(len(data), 12, replace=False)] = 1
    with data.unlocked():
        data.W = w
    enc = encode_table(data)
    ypos = (enc.y == 1).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        T, errors = choose_rounds(Booster, enc, ypos, 20, 5, 0)
        R.SlipperLearner(T_max=20)(data)
    assert errors is not None and np.all(np.isfinite(errors))
    # every fold holds weight out: no fold's error curve is identically 0
    assert errors.max() > 0


def test_sls_multiclass_rows_without_firing_rules_get_the_prior():
    for name, kw in (("zoo", {}), ("iris", {"n_intervals": 2}), ("iris", {"rho": 0.01})):
        data = Table(name)
        model = R.SLSEnsembleLearner(n_rule_sets=3, max_steps=300, **kw)(data)
        unknown = np.full((2, len(data.domain.attributes)), np.nan)
        p = model(unknown, model.Probs)
        np.testing.assert_allclose(p, np.tile(model.prior, (2, 1)))
        p = model(data, model.Probs)
        assert np.all((p >= 0) & (p <= 1)) and np.allclose(p.sum(axis=1), 1)


def test_classes_absent_from_the_data_cost_nothing():
    """The Gumbel fit and the rule search skip a class without examples:
    its Gumbel parameters stay 0 and no rule predicts it; its probability is 0."""
    iris = Table("iris")
    cv = DiscreteVariable("iris", tuple(iris.domain.class_var.values) + ("unused",))
    data = Table.from_numpy(Domain(iris.domain.attributes, cv), iris.X, iris.Y)
    model = R.EVCRuleLearner(n_permutations=5)(data)
    assert np.all(np.asarray(model.gumbel.mu)[3] == 0)
    assert all(r.head != 3 for r in model.rule_list)
    for kind in KINDS:
        m = LEARNERS[kind]()(data)
        p = m(data, m.Probs)
        assert p.shape == (150, 4) and np.all(p[:, 3] == 0), kind


@pytest.mark.slow
def test_roccer_does_not_get_worse_with_more_data():
    from sklearn.datasets import make_classification
    from sklearn.metrics import roc_auc_score
    aucs = []
    for n in (2000, 20000):
        X, y = make_classification(n, 10, n_informative=5, random_state=0)
        dom = Domain([ContinuousVariable(f"x{i}") for i in range(10)],
                     DiscreteVariable("y", ("0", "1")))
        data = Table.from_numpy(dom, X, y.astype(float))
        model = R.ROCCERLearner()(data)
        assert all(v > 1000 for v in model.stats["candidates"].values())
        aucs.append(roc_auc_score(y, model(data, model.Probs)[:, 1]))
    assert aucs[1] >= aucs[0] - 0.01


@pytest.mark.parametrize("kind", KINDS)
def test_a_learner_pickles_in_the_middle_of_a_fit(kind):
    """A worker process receives the learner's methods pickled, while the
    caller's progress callback (here one holding a lock, like a widget's)
    is attached: the learner must pickle without it (unpicklable tasks made
    joblib's Dask backend wait forever)."""
    import threading
    lock, pickled = threading.Lock(), []
    learner = LEARNERS[kind]()

    def progress(p, *_):
        with lock:
            if not pickled:
                pickled.append(pickle.loads(pickle.dumps(learner)))

    learner(Table("iris"), progress)
    assert pickled and not hasattr(pickled[0], "_progress_cb")


# --------------------------------------------------------------- second fuzz round
def test_slipper_gives_an_uncovered_row_the_other_class():
    """f(x) = 0 on a row no rule covers is P = 0.5 / 0.5; the tie goes to
    the more prevalent class, not to the class listed first (which was the
    booster's positive class: training accuracy 0.46 instead of 1)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] > 0.15).astype(float)  # class 1 ("b") is the minority
    for values, labels in ((("a", "b"), y), (("b", "a"), 1 - y)):
        domain = Domain([ContinuousVariable("x0"), ContinuousVariable("x1")],
                        DiscreteVariable("y", values))
        data = Table.from_numpy(domain, X, labels)
        model = R.SlipperLearner()(data)
        assert np.mean(model(data) == data.Y) == 1.0


def test_tiny_weights_are_a_clear_error(titanic):
    data = titanic[:200].copy()
    with data.unlocked():
        data.W = np.full(len(data), 1e-310)
    for kind in KINDS:
        with pytest.raises(ValueError, match="example weights sum to"):
            LEARNERS[kind]()(data)


def test_wvote_with_confidences_near_zero_is_finite():
    """Every firing rule with a confidence below 1e-12: the vote goes to a
    class with a firing rule (it went to the most prevalent class, which
    had none: 0 / 0)."""
    cover = np.array([[True, True], [True, False]])
    heads = np.array([1, 1])
    probs = R.score_rules(cover, heads, [1e-14, 1e-13], [0.1, 0.1], [0.7, 0.3], "wvote")
    assert np.all(np.isfinite(probs))
    np.testing.assert_allclose(probs.sum(axis=1), 1)


@pytest.mark.parametrize("kind", KINDS)
def test_out_of_range_parameters_are_refused_by_name(kind):
    """Every public parameter refuses the registry's bad value for it."""
    import inspect
    cls, bad = REGISTRY[kind].cls, REGISTRY[kind].bad_parameters
    names = [p for p in inspect.signature(cls.__init__).parameters
             if p not in ("self", "preprocessors")]
    assert sorted(bad) == sorted(names)  # every public parameter
    for name, value in bad.items():
        with pytest.raises(ValueError, match=name):
            cls(**{name: value})
    cls()  # the defaults pass


def test_lr_with_rules_fits_a_many_valued_attribute_sparse():
    """An attribute of 1,200 values (an ID, a zip code): the one-hot columns
    are a sparse matrix and the solver quasi-Newton (it was a dense Newton
    solver, cubic in the values); the fit is the one Newton's method gives."""
    import scipy.sparse as sp

    from orangecontrib.rules import logistic
    rng = np.random.default_rng(0)
    n, k = 600, 400
    x = rng.integers(0, k, n).astype(float)
    y = (rng.normal(size=k)[x.astype(int)] + rng.normal(size=n) > 0).astype(float)
    domain = Domain([DiscreteVariable("zip", tuple(f"z{i}" for i in range(k)))],
                    DiscreteVariable("y", ("a", "b")))
    data = Table.from_numpy(domain, x[:, None], y)
    learner = R.RuleLogisticRegressionLearner(use_rules=False, lambda_=1.0)
    model = learner(data)
    assert sp.issparse(model.features(data.X))
    old = logistic.NEWTON_MAX_FEATURES
    try:
        logistic.NEWTON_MAX_FEATURES = 10 ** 6  # the dense Newton solver
        newton = learner(data)
        assert not sp.issparse(newton.features(data.X))
        expected = newton(data, newton.Probs)
    finally:
        logistic.NEWTON_MAX_FEATURES = old
    np.testing.assert_allclose(model(data, model.Probs), expected, atol=1e-4)


def bag_of_words(n=300, p=400, classes=2):
    """A small bag of words (counts 1-3, 5% non-zeros, the class from the
    first three words), as a sparse table and the same table dense."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = sp.random(n, p, density=0.05, random_state=1, format="csr",
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    signal = np.asarray(X[:, :3].sum(axis=1)).ravel() + rng.normal(size=n) * 0.3
    y = np.digitize(signal, [0.3, 2.5][:classes - 1])
    domain = Domain([ContinuousVariable(f"w{j}") for j in range(p)],
                    DiscreteVariable("y", ("no", "yes", "many")[:classes]))
    return (Table.from_numpy(domain, X, y.astype(float)),
            Table.from_numpy(domain, X.toarray(), y.astype(float)))


def track_densified(monkeypatch, methods):
    """From now on, ``[cells]``: the most cells a sparse matrix was made
    dense with (its ``methods``, e.g. ``toarray``)."""
    import scipy.sparse as sp
    largest = [0]
    for cls in (sp.csr_matrix, sp.csc_matrix):
        for name in methods:
            original = getattr(cls, name)

            def densify(self, *args, _original=original, **kwargs):
                largest[0] = max(largest[0], self.shape[0] * self.shape[1])
                return _original(self, *args, **kwargs)
            monkeypatch.setattr(cls, name, densify)
    return largest


@pytest.mark.parametrize("kind", KINDS)
def test_predictions_on_sparse_data_densify_only_the_rules_columns(kind, monkeypatch):
    """A sparse table (Orange Text's bag of words) is predicted without
    densifying it: only the columns the rules test are made dense, and the
    probabilities are those of the dense table."""
    data, dense = bag_of_words()
    n, p = data.X.shape
    model = LEARNERS[kind]()(dense)
    expected = model(dense, model.Probs)
    X = data.X
    used = {c.column for r in model.rule_list for c in r.conditions}
    largest = track_densified(monkeypatch, ("toarray",))
    np.testing.assert_allclose(model(data, model.Probs), expected, atol=1e-12)
    np.testing.assert_allclose(model(X, model.Probs), expected, atol=1e-12)
    assert largest[0] <= n * max(len(used), 1)


@pytest.mark.parametrize("classes", [2, 3])
def test_lr_with_rules_fits_a_large_sparse_table_on_a_sparse_design(classes, monkeypatch):
    """LR with rules on a sparse table of more than ``DENSE_DESIGN_MAX_CELLS``
    cells (lowered here so that a small table counts as large): no dense
    array of the table, the dense table's rules, and its weights and
    probabilities to the solver's tolerance (the design is scaled but not
    centred; the intercept takes the difference)."""
    from orangecontrib.rules import logreg
    data, dense_data = bag_of_words(classes=classes)
    n, p = data.X.shape
    dense = LEARNERS["lrr"]()(dense_data)
    monkeypatch.setattr(logreg, "DENSE_DESIGN_MAX_CELLS", n * p - 1)
    largest = track_densified(monkeypatch, ("toarray", "todense"))
    model = LEARNERS["lrr"]()(data)
    assert largest[0] < n * p, largest[0]
    assert str(model.rule_model) == str(dense.rule_model)
    assert model.lam == dense.lam
    assert len(model.submodels) == len(dense.submodels) == (1 if classes == 2 else 3)
    for a, b in zip(model.submodels, dense.submodels):
        assert a[0] == b[0]
        np.testing.assert_allclose(a[2], b[2], atol=1e-4)  # intercept
        np.testing.assert_allclose(a[3], b[3], atol=1e-4)  # attribute weights
        np.testing.assert_allclose(a[4], b[4], atol=1e-4)  # rule weights
    np.testing.assert_allclose(model(data, model.Probs), dense(dense_data, dense.Probs),
                               atol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_a_sparse_table_too_large_for_the_memory_stops_before_the_fit(kind, monkeypatch):
    """A sparse table whose cells times the learner's bytes per cell exceed
    the memory available: a MemoryError that says so before anything is
    encoded; SLIPPER, whose memory follows the non-zeros, fits."""
    from orangecontrib.rules import base, features, tables
    data, dense = bag_of_words()
    monkeypatch.setattr(tables, "available_memory", lambda: 2 ** 20)  # 1 MB
    learner = LEARNERS[kind]()
    if kind == "slipper":
        assert learner(data).rule_list
        return

    def never(*args, **kwargs):
        raise AssertionError("encoded before the memory check")
    monkeypatch.setattr(base, "encode_table", never)
    monkeypatch.setattr(features, "encode_table", never)
    with pytest.raises(MemoryError, match=r"300 rows x 400 columns need about 1 MB, "
                                          r"and 1 MB are available\. SLIPPER"):
        learner(data)
    monkeypatch.undo()
    assert learner(dense).rule_list  # a dense table: no such check


SPARSE_FITS = {**LEARNERS,
               # SLIPPER choosing T by internal folds: one booster, and one
               # per class of three classes (folds shared by the boosters)
               "slipper-cv": lambda: make("slipper", "defaults", T_max=8, n_folds=3),
               "slipper-cv-3": lambda: make("slipper", "defaults", T_max=8, n_folds=3)}


@pytest.mark.parametrize("kind", ["evc", "roccer", "scoring", "sls", "slipper", "slipper-cv",
                                  "slipper-cv-3"])
def test_fitting_on_sparse_data_never_densifies_the_table(kind, monkeypatch):
    """EVC rules, ROCCER, Rule Scoring, SLS and SLIPPER fit a sparse table
    (Orange Text's bag of words) with its numeric columns kept sparse: no
    dense array of the whole table is made (only of the columns some rules
    test), and the model is the dense table's (LR with rules still builds
    dense arrays: README, benchmarks/results/sparse.md)."""
    import scipy.sparse as sp

    from orangecontrib.rules.features import encode_table
    data, dense_data = bag_of_words(classes=3 if kind.endswith("-3") else 2)
    n, p = data.X.shape
    dense = SPARSE_FITS[kind]()(dense_data)
    for with_order in (False, True):
        assert sp.issparse(encode_table(data, with_order=with_order).Xc)
    largest = track_densified(monkeypatch, ("toarray", "todense"))
    model = SPARSE_FITS[kind]()(data)
    assert largest[0] < n * p, largest[0]
    assert str(model) == str(dense)
