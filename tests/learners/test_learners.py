"""RuleScoringLearner and the shared base classes on real and bad data."""
import copy
import pickle

import numpy as np
import pytest

from Orange.classification import CN2Learner
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.evaluation import AUC, CA, CrossValidation

from orangecontrib.rules import (PriorRuleModel, RuleScoringLearner,
                                 RuleSetModel, STRATEGIES)
from registry import KINDS, REGISTRY, make


@pytest.fixture(scope="module")
def titanic():
    return Table("titanic")


@pytest.fixture(scope="module")
def titanic_model(titanic):
    return RuleScoringLearner()(titanic)


def check_probs(p, n, k):
    assert p.shape == (n, k)
    assert not np.isnan(p).any() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=1), 1)


@pytest.mark.parametrize("name,min_ca,min_auc", [
    ("titanic", 0.74, 0.70), ("iris", 0.88, 0.93),
    pytest.param("heart_disease", 0.70, 0.78, marks=pytest.mark.slow)])
def test_cross_validation_on_real_data(name, min_ca, min_auc):
    data = Table(name)
    learners = [RuleScoringLearner(strategy=s) for s in ("wvote", "lfpr")]
    res = CrossValidation(k=5, random_state=0)(data, learners)
    assert not res.failed[0] and not res.failed[1]
    assert (CA(res) > min_ca).all(), CA(res)
    assert (AUC(res) > min_auc).all(), AUC(res)


def test_many_classes():
    zoo = Table("zoo")
    model = RuleScoringLearner()(zoo)
    check_probs(model(zoo, model.Probs), len(zoo), 7)
    assert np.mean(model(zoo) == zoo.Y) > 0.9


def test_model_exposes_rules_and_covering(titanic, titanic_model):
    m = titanic_model
    assert isinstance(m, RuleSetModel) and len(m.rules) > 3
    cover = m.covering(titanic)
    assert cover.shape == (len(titanic), len(m.rules)) and cover.dtype == bool
    for j, rule in enumerate(m.rules):
        np.testing.assert_array_equal(rule.evaluate_data(titanic.X), cover[:, j])
        # distributions are the training counts of covered examples
        np.testing.assert_allclose(
            rule.class_distribution,
            np.bincount(titanic.Y[cover[:, j]].astype(int), minlength=2))
        assert rule.quality > titanic_model.prior[rule.head]
    text = str(m)
    assert "IF " in text and "THEN survived = " in text


def test_with_strategy_shares_rules(titanic, titanic_model):
    for s in STRATEGIES:
        other = titanic_model.with_strategy(s)
        assert other.rules is titanic_model.rules and other.strategy == s
        check_probs(other(titanic, other.Probs), len(titanic), 2)
    assert titanic_model.strategy == "wvote"


def test_pickle_roundtrip(titanic, titanic_model):
    m2 = pickle.loads(pickle.dumps(titanic_model))
    np.testing.assert_array_equal(m2(titanic, m2.Probs),
                                  titanic_model(titanic, titanic_model.Probs))
    assert [str(r) for r in m2.rules] == [str(r) for r in titanic_model.rules]
    assert m2.rules == titanic_model.rules


def test_learner_deepcopies_and_pickles():
    learner = RuleScoringLearner(strategy="lfpr")
    for other in (copy.deepcopy(learner), pickle.loads(pickle.dumps(learner))):
        assert other.strategy == "lfpr" and other.params["strategy"] == "lfpr"
    assert not hasattr(learner, "_progress_cb")


def test_params_rebuild_the_learner():
    learner = RuleScoringLearner(strategy="vote", beam_width=3, max_rule_length=2)
    clone = type(learner)(**learner.params)
    assert clone.default_base().beam_width == 3 and clone.default_base().max_rule_length == 2
    assert clone.strategy == "vote"
    from orangecontrib.rules.cn2 import cn2_base
    cn2 = RuleScoringLearner(base=cn2_base(beam_width=3, max_rule_length=2))
    clone = type(cn2)(**cn2.params)
    assert clone.base.rule_finder.search_algorithm.beam_width == 3
    assert clone.base.rule_finder.general_validator.max_rule_length == 2


def test_rand_is_deterministic_with_random_state(titanic):
    a = RuleScoringLearner(strategy="rand", random_state=3)(titanic)
    b = RuleScoringLearner(strategy="rand", random_state=3)(titanic)
    np.testing.assert_array_equal(a(titanic, a.Probs), b(titanic, b.Probs))


def test_ordered_base_uses_decision_list_order():
    iris = Table("iris")
    model = RuleScoringLearner(base=CN2Learner(), strategy="first")(iris)
    assert model.ordered
    assert RuleScoringLearner()(iris).ordered is False


def test_progress_callback_is_called_and_removed():
    seen = []
    learner = RuleScoringLearner()
    learner(Table("iris"), progress_callback=lambda p, *a: seen.append(p))
    assert seen and max(seen) <= 1 and seen == sorted(seen)
    assert not hasattr(learner, "_progress_cb")


# ---------------------------------------------------------------- bad input
def small_domain(class_values=("a", "b")):
    x = ContinuousVariable("x")
    d = DiscreteVariable("d", values=("u", "v"))
    return Domain([x, d], DiscreteVariable("y", values=class_values))


def test_empty_table():
    data = Table.from_numpy(small_domain(), np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="empty"):
        RuleScoringLearner()(data)


def test_only_unknown_classes_is_empty():
    data = Table.from_numpy(small_domain(), np.zeros((3, 2)), np.full(3, np.nan))
    with pytest.raises(ValueError, match="empty"):
        RuleScoringLearner()(data)


def test_single_class_gives_a_constant_model():
    X = np.random.default_rng(0).random((10, 2))
    X[:, 1] = X[:, 1] > 0.5  # the discrete column holds value indices
    data = Table.from_numpy(small_domain(), X, np.ones(10))
    model = RuleScoringLearner()(data)
    assert isinstance(model, PriorRuleModel) and model.rules == []
    np.testing.assert_allclose(model(data, model.Probs), np.tile([0, 1], (10, 1)))


def test_regression_target_and_no_class():
    with pytest.raises(ValueError, match="categorical class"):
        RuleScoringLearner()(Table("housing"))
    iris = Table("iris")
    no_class = iris.transform(Domain(iris.domain.attributes))
    with pytest.raises(ValueError, match="class variable"):
        RuleScoringLearner()(no_class)


def test_all_missing_and_constant_columns_and_unknowns_at_prediction():
    iris = Table("iris")
    domain = Domain(iris.domain.attributes + (ContinuousVariable("empty"),
                                              ContinuousVariable("const")),
                    iris.domain.class_var)
    X = np.hstack([iris.X, np.full((150, 1), np.nan), np.ones((150, 1))])
    data = Table.from_numpy(domain, X, iris.Y)
    model = RuleScoringLearner()(data)
    used = {c.column for r in model.rules for c in r.conditions}
    assert used and not used & {4, 5}
    test = data[:20].copy()
    with test.unlocked(test.X):
        test.X[:, :4] = np.nan  # every attribute unknown: no rule fires
    p = model(test, model.Probs)
    np.testing.assert_allclose(p, np.tile(model.prior, (20, 1)))
    assert not model.covering(test).any()


def test_weights_are_honoured():
    titanic = Table("titanic")
    rng = np.random.default_rng(0)
    heavy = titanic.copy()
    with heavy.unlocked(heavy.W):
        heavy.W = rng.choice([0.5, 1.0, 3.0], len(heavy))
    m1, m3 = RuleScoringLearner()(titanic), RuleScoringLearner()(heavy)
    cover = m3.covering(heavy)
    for j, rule in enumerate(m3.rules):  # distributions are weighted counts
        np.testing.assert_allclose(
            rule.class_distribution,
            np.bincount(heavy.Y[cover[:, j]].astype(int),
                        weights=heavy.W[cover[:, j]], minlength=2))
    np.testing.assert_allclose(m3.class_distribution,
                               np.bincount(heavy.Y.astype(int), heavy.W))
    # weighting one class up moves its prevalence, hence the default prediction
    skew = titanic.copy()
    with skew.unlocked(skew.W):
        skew.W = np.where(skew.Y == 1, 10.0, 1.0)
    ms = RuleScoringLearner()(skew)
    assert ms.prior[1] > m1.prior[1]


def test_weights_with_numeric_columns_and_missing_values():
    """Orange 3.40's own CN2 imputation fails on weighted tables with numeric
    columns; the default base imputes with weighted means / modes instead."""
    from orangecontrib.rules.cn2 import WeightedImpute
    heart = Table("heart_disease")
    rng = np.random.default_rng(1)
    heavy = heart.copy()
    with heavy.unlocked(heavy.W):
        heavy.W = rng.choice([0.5, 1.0, 4.0], len(heavy))
    model = RuleScoringLearner()(heavy)
    check_probs(model(heavy, 1), len(heavy), 2)
    assert model.rules
    imputed = WeightedImpute()(heavy)
    for var in ("major vessels colored", "thal"):  # the columns with unknowns
        col = heavy.get_column(var)
        known = ~np.isnan(col)
        assert (~known).any()
        value = imputed.get_column(var)[~known][0]
        w = heavy.W[known]
        if heavy.domain[var].is_continuous:
            assert value == pytest.approx(np.average(col[known], weights=w))
        else:
            assert value == np.argmax(np.bincount(col[known].astype(int), weights=w))
        np.testing.assert_array_equal(imputed.get_column(var)[known], col[known])


def test_weighted_imputation_by_hand():
    from orangecontrib.rules.cn2 import WeightedImpute
    X = np.array([[1e308, 1.0], [1e308, np.nan], [np.nan, 3.0], [0.0, 5.0]])
    domain = Domain([ContinuousVariable("a"), ContinuousVariable("b")],
                    DiscreteVariable("y", values=("0", "1")))
    data = Table.from_numpy(domain, X, np.array([0, 1, 0, 1.0]), W=np.array([1, 1, 1, 2.0]))
    with np.errstate(over="raise", invalid="raise"):
        out = WeightedImpute()(data).X
    assert out[2, 0] == pytest.approx(0.5e308)  # (1e308 + 1e308 + 2 * 0) / 4
    assert out[1, 1] == pytest.approx(3.5)      # (1 + 3 + 2 * 5) / 4


def test_unicode_names():
    a = DiscreteVariable("barva čokolade", values=("črna", "bela"))
    b = ContinuousVariable("Größe ü")
    cls = DiscreteVariable("razred ž", values=("ja", "ne"))
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 2, 200), rng.normal(size=200)])
    y = ((X[:, 0] == 1) & (X[:, 1] > 0)).astype(float)
    data = Table.from_numpy(Domain([a, b], cls), X, y)
    model = RuleScoringLearner()(data)
    text = str(model)
    assert "razred ž = " in text and ("barva čokolade" in text or "Größe ü" in text)
    check_probs(model(data, model.Probs), 200, 2)


def test_no_attributes_gives_the_prior():
    iris = Table("iris")
    data = iris.transform(Domain([], iris.domain.class_var))
    model = RuleScoringLearner()(data)
    np.testing.assert_allclose(model(data, model.Probs), np.full((150, 3), 1 / 3))


def test_array_input_uses_model_domain(titanic, titanic_model):
    p_table = titanic_model(titanic, titanic_model.Probs)
    p_array = titanic_model.predict(titanic.X)
    np.testing.assert_allclose(p_table, p_array)
    with pytest.raises(ValueError, match="columns"):
        titanic_model.predict(np.zeros((2, 5)))


def _every_learner():
    return [make(kind) for kind in KINDS]


@pytest.mark.parametrize("which", ["all zero", "one class zero", "two rows"])
def test_degenerate_weights_give_a_sensible_model(which):
    """Weights that leave fewer than two classes (or nothing) with weight give
    the (weighted) prior, for every learner of the add-on."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(float)
    W = {"all zero": np.zeros(60), "one class zero": np.where(y == 1, 0.0, 1.0),
         "two rows": np.where(np.arange(60) < 2, 1.0, 0.0)}[which]
    domain = Domain([ContinuousVariable("a"), ContinuousVariable("b")],
                    DiscreteVariable("y", values=("n", "p")))
    data = Table.from_numpy(domain, X, y, W=W)
    for learner in _every_learner():
        p = learner(data)(data, 1)
        check_probs(p, 60, 2)
        if which == "one class zero":
            assert (p[:, 0] > 0.5).all(), type(learner).__name__


def test_array_input_reads_the_training_columns():
    """``model(data.X)`` equals ``model(data)`` for every learner, also where
    preprocessing (discretisation in ROCCER and SLS) changed the columns."""
    heart = Table("heart_disease")
    for learner in _every_learner():
        model = learner(heart)
        p = model(heart, model.Probs)
        np.testing.assert_allclose(model(heart.X, model.Probs), p)
        np.testing.assert_allclose(model(heart.X[3], model.Probs), p[3])
        values, probs = model(heart.X[:5], model.ValueProbs)
        np.testing.assert_array_equal(values, model(heart[:5]))
        np.testing.assert_allclose(probs, p[:5])
        with pytest.raises(ValueError, match="columns"):
            model(np.zeros((2, 3)))


@pytest.mark.parametrize("kind", KINDS)
def test_params_are_the_whole_signature_and_round_trip(kind):
    import inspect

    from orangecontrib.rules.evc import GumbelParameters
    GUMBEL = GumbelParameters(np.ones((2, 1)), np.full((2, 1), 0.5))

    cls = REGISTRY[kind].cls
    name = cls.__name__
    names = [p for p in inspect.signature(cls.__init__).parameters
             if p not in ("self", "preprocessors")]
    default = cls()
    assert list(default.params) == names
    # a non-default value of every parameter that has an obvious one survives
    changed = {k: v for k, v in {
        "T_max": 7, "random_state": 5, "n_jobs": 2, "beam_width": 3, "max_thresholds": None,
        "gumbel": GUMBEL, "lambdas": (0.1, 1.0), "n_folds": 3,
        "k_max": 3, "numeric": "intervals", "min_lift": 3.0, "max_candidates": 99,
        "strategy": "vote", "patience": 4}.items() if k in names}
    learner = cls(**changed)
    clone = type(learner)(**learner.params)
    for k, v in changed.items():
        assert clone.params[k] == v, k
    assert clone.params == learner.params or name == "RuleLogisticRegressionLearner"
    assert repr(clone) == repr(learner) or name == "RuleLogisticRegressionLearner"


def test_parallel_config_n_jobs_reaches_thread_loops():
    """joblib drops a configured n_jobs when a loop prefers threads and the
    configuration names no backend; the learners read it themselves."""
    import threading

    from joblib import parallel_config

    from orangecontrib.rules.parallel import parallel_jobs
    assert parallel_jobs(3) == 3 and parallel_jobs(None) is None
    with parallel_config(n_jobs=2):
        assert parallel_jobs(None) == 2
    import orangecontrib.rules as R
    seen = set()
    import orangecontrib.rules.sls as S
    original = S._search_batch

    def spy(*args):
        seen.add(threading.current_thread().name)
        return original(*args)
    S._search_batch = spy
    try:
        with parallel_config(n_jobs=2):
            R.SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=100)(Table("iris"))
    finally:
        S._search_batch = original
    assert seen and "MainThread" not in seen


def test_a_fit_leaves_the_older_objects_out_of_the_collectors_passes_and_restores_them(
        titanic, monkeypatch):
    """``base.heap_frozen``: during a fit the objects that existed before
    it are frozen (``gc.freeze``), after it (also after an error, and after
    fits in two threads at once) nothing is; a program's own freeze is
    left as it was; the model is the same."""
    import gc
    import threading

    from orangecontrib.rules import EVCRuleLearner

    assert gc.get_freeze_count() == 0
    seen = []
    original = EVCRuleLearner.fit_rules

    def spy(self, data, enc):
        seen.append(gc.get_freeze_count())
        return original(self, data, enc)

    monkeypatch.setattr(EVCRuleLearner, "fit_rules", spy)
    model = EVCRuleLearner()(titanic)
    assert seen[0] > 1000 and gc.get_freeze_count() == 0
    gc.freeze()  # a program's own freeze stays; the same rules either way
    try:
        again = EVCRuleLearner()(titanic)
        assert gc.get_freeze_count() > 1000  # not unfrozen by the fit
    finally:
        gc.unfreeze()
    assert [str(r) for r in again.rule_list] == [str(r) for r in model.rule_list]

    def fail(self, data, enc):
        raise RuntimeError("stop")

    monkeypatch.setattr(EVCRuleLearner, "fit_rules", fail)
    with pytest.raises(RuntimeError, match="stop"):
        EVCRuleLearner()(titanic)
    assert gc.get_freeze_count() == 0
    monkeypatch.setattr(EVCRuleLearner, "fit_rules", spy)
    threads = [threading.Thread(target=EVCRuleLearner(), args=(titanic,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.get_freeze_count() == 0 and all(n > 0 for n in seen)


def test_the_blas_limit_holds_while_any_fit_runs():
    """Fits that overlap share one BLAS limit: a fit still running when
    the one that set the limit ends keeps one thread to its end (its sums
    would otherwise change rounding halfway), and the last to end, here in
    another thread, restores the limit the first read."""
    import threading

    from threadpoolctl import threadpool_limits

    from orangecontrib.rules.parallel import _blas_controller, one_blas_thread

    def threads():
        return [lib["num_threads"] for lib in _blas_controller().info()]

    if not threads():
        pytest.skip("threadpoolctl controls no BLAS library in this Python "
                    "(e.g. Apple's Accelerate): nothing to limit")
    with threadpool_limits(limits=2, user_api="blas"):
        if set(threads()) != {2}:
            pytest.skip(f"this BLAS cannot be given two threads (it has {threads()})")
        started, first_done, seen = threading.Event(), threading.Event(), []

        def second_fit():
            with one_blas_thread():
                started.set()
                first_done.wait()
                seen.append(threads())  # the first fit has ended

        worker = threading.Thread(target=second_fit)
        with one_blas_thread():  # the first fit
            worker.start()
            started.wait()
            seen.append(threads())
        first_done.set()
        worker.join()
        assert [set(n) for n in seen] == [{1}, {1}]
        assert set(threads()) == {2}


def test_a_fit_runs_blas_on_one_thread_and_restores_its_limit(titanic, monkeypatch):
    """``parallel.one_blas_thread``: during a fit (LR with rules, whose
    L-BFGS and Newton steps call BLAS, and the EVC rules fit inside it)
    numpy's and scipy's BLAS libraries use one thread; after it (also after
    an error, and after fits in four threads at once) their limit is what
    it was before."""
    import threading

    from threadpoolctl import threadpool_limits

    from orangecontrib.rules import EVCRuleLearner, RuleLogisticRegressionLearner
    from orangecontrib.rules.parallel import _blas_controller

    def threads():
        return [lib["num_threads"] for lib in _blas_controller().info()]

    if not threads():
        pytest.skip("threadpoolctl controls no BLAS library in this Python "
                    "(e.g. Apple's Accelerate): nothing to limit")
    seen = []

    def spy_on(cls):
        def spy(self, data, enc, original=cls.fit_rules):
            seen.append(threads())
            return original(self, data, enc)
        monkeypatch.setattr(cls, "fit_rules", spy)

    spy_on(RuleLogisticRegressionLearner)
    spy_on(EVCRuleLearner)
    with threadpool_limits(limits=2, user_api="blas"):
        if set(threads()) != {2}:
            pytest.skip(f"this BLAS cannot be given two threads (it has {threads()})")
        model = RuleLogisticRegressionLearner()(titanic)
        assert len(seen) == 2 and all(set(n) == {1} for n in seen)  # LR with rules, its EVC
        assert set(threads()) == {2}
        assert model(titanic).shape == (len(titanic),)

        def fail(self, data, enc):
            raise RuntimeError("stop")

        monkeypatch.setattr(EVCRuleLearner, "fit_rules", fail)
        with pytest.raises(RuntimeError, match="stop"):
            RuleLogisticRegressionLearner()(titanic)
        assert set(threads()) == {2}
    # fits in threads (as Orange's widgets fit), the main thread holding no limit
    before = threads()
    monkeypatch.undo()
    seen.clear()
    spy_on(EVCRuleLearner)
    workers = [threading.Thread(target=EVCRuleLearner(), args=(titanic,)) for _ in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert len(seen) == 4 and all(set(n) == {1} for n in seen)
    assert threads() == before
