"""The contract every learner of the add-on keeps, as properties on random
data (the way scikit-learn's ``check_estimator`` runs every estimator
through one set of checks). A new learner joins by its entry in
``tests/registry.py`` (its ``fast`` and ``deterministic`` settings).
README.md ("What the learners promise") states the same promises, in
these words:

* probabilities are finite, in [0, 1], and each row sums to 1; the
  predicted class is a most probable one;
* a row of weight 0 is the same as no row: the same model, rules and
  printed model, as if the row were not in the data;
* an integer weight ``k`` is the same as ``k`` copies of the row, for every
  learner whose search draws no random numbers over the rows (ROCCER and
  LR with rules with a given ``lambda_``, Rule Scoring, EVC rules with
  given Gumbel parameters or the m-estimate); SLIPPER (its GrowSet/PruneSet
  split) and SLS (its random steps) draw over rows, so for them only the
  counts are: each rule's class distribution is the weighted count;
* the order in which the class variable lists its values changes no
  prediction: the probabilities are those of the other order with the
  columns permuted (ties go to the more prevalent class, then to the value
  name that sorts first; per-class seeds are handed out in name order);
* a row's prediction does not depend on the rows predicted with it (its
  class exactly, its probabilities to rounding, 1e-12);
* the same ``random_state`` gives the same model and the same printed
  model in a fresh process (another hash seed);
* one learner fitted from two threads at once gives the models that two
  fits one after the other give, each reporting progress to its own
  callback;
* rows with an unknown class are dropped whatever ``preprocessors`` the
  learner has (Orange's Preprocess input replaces the default list);
* a table whose ``X`` is sparse (Orange Text's bag of words) gives the
  model the dense table gives, and the same predictions;
* the progress a fit reports never goes back and ends at 1, with or
  without a rule budget.

Each property runs a fast profile (six tables); the properties whose
failures need a rarer table (ties in thresholds or class prevalence, a
zero-weight row on a cut point, a sparse column's zeros) also run a long
one, marked ``slow``. Probabilities have no long profile here: the fuzz
suite checks them on wilder tables, at 12 and 150 examples.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.preprocess import Impute

from registry import KINDS, deterministic, factory

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # registry.py's

#: the registry's fast settings (tiny random tables)
LEARNERS = factory("fast")


FAST = settings(max_examples=6, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=100, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
#: the long profile of the learners whose fits take longest (a check of
#: ROCCER's took up to 54 s, of LR with rules' up to 25 s, at 300 examples,
#: on a 2-core VM): fewer examples, so the run keeps the long profile of
#: every learner
LONG_SLOW_FITS = {"roccer": 40, "lrr": 50}


@st.composite
def tables(draw, weights=True):
    """A small table: numeric and discrete columns (with ties and missing
    values), two or three classes, integer weights if ``weights``."""
    n = draw(st.integers(12, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    n_cont, n_disc = draw(st.integers(1, 3)), draw(st.integers(0, 2))
    cols, attrs = [], []
    for i in range(n_cont):
        attrs.append(ContinuousVariable(f"x{i}"))
        cols.append(np.round(rng.normal(size=n), draw(st.sampled_from([0, 1, 2]))))
    for i in range(n_disc):
        k = draw(st.integers(2, 4))
        attrs.append(DiscreteVariable(f"d{i}", tuple(f"v{j}" for j in range(k))))
        cols.append(rng.integers(0, k, n).astype(float))
    X = np.column_stack(cols)
    if draw(st.booleans()):
        X[rng.random(X.shape) < 0.1] = np.nan
    n_classes = draw(st.integers(2, 3))
    signal = np.nan_to_num(X[:, 0]) + rng.normal(size=n) * draw(st.sampled_from([0.3, 1.0]))
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    W = rng.integers(1, 4, n).astype(float) if weights and draw(st.booleans()) else None
    cv = DiscreteVariable("y", tuple(f"c{j}" for j in range(n_classes)))
    return Table.from_numpy(Domain(attrs, cv), X, y.astype(float), W=W)


def probs_of(model, data):
    return model(data, model.Probs)


def same_model(a, b, data, exact=True):
    """Two models are the same: the same printed model (exact) and the same
    probabilities on ``data``."""
    if exact:
        assert str(a) == str(b)
        np.testing.assert_array_equal(probs_of(a, data), probs_of(b, data))
    else:
        np.testing.assert_allclose(probs_of(a, data), probs_of(b, data), atol=1e-6)


# --------------------------------------------------------------- properties
def check_probabilities(kind, data):
    valid_probabilities(LEARNERS[kind]()(data), data)


def valid_probabilities(model, data):
    """The model's probabilities of ``data``: finite, in [0, 1], rows
    summing to 1; its predicted class a most probable one."""
    probs = probs_of(model, data)
    assert probs.shape == (len(data), len(data.domain.class_var.values))
    assert np.all(np.isfinite(probs)) and np.all((probs >= 0) & (probs <= 1))
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-9)
    values = np.asarray(model(data), dtype=int)
    np.testing.assert_allclose(probs[np.arange(len(data)), values], probs.max(axis=1),
                               rtol=1e-12, atol=1e-12)
    return probs


def check_zero_weight_is_absent(kind, data):
    rng = np.random.default_rng(len(data))
    w = data.W.copy() if data.has_weights() else np.ones(len(data))
    w[rng.random(len(data)) < 0.3] = 0
    if (w > 0).sum() < 2:
        return
    weighted = Table.from_numpy(data.domain, data.X, data.Y, W=w)
    kept = Table.from_numpy(data.domain, data.X[w > 0], data.Y[w > 0], W=w[w > 0])
    same_model(LEARNERS[kind]()(weighted), LEARNERS[kind]()(kept), data)


def check_integer_weights_are_copies(kind, data):
    rng = np.random.default_rng(len(data))
    w = rng.integers(1, 4, len(data)).astype(float)
    weighted = Table.from_numpy(data.domain, data.X, data.Y, W=w)
    rows = np.repeat(np.arange(len(data)), w.astype(int))
    copies = Table.from_numpy(data.domain, data.X[rows], data.Y[rows])
    learner = deterministic(kind, len(data.domain.class_var.values))
    if learner is not None:
        a, b = learner(weighted), learner(copies)
        # LR with rules and many-class ROCCER's probabilities come from a
        # numerical minimiser: the same to rounding; ROCCER's rules exactly
        same_model(a, b, data, exact=kind not in ("lrr", "roccer"))
        if kind == "roccer":
            assert str(a) == str(b)
        return
    # SLIPPER and SLS draw random numbers over the rows: the counts they
    # report are the weighted counts
    model = LEARNERS[kind]()(weighted)
    cover = model.covering(copies)
    y = copies.Y.astype(int)
    for k, rule in enumerate(model.rule_list):
        counts = np.bincount(y[cover[:, k]], minlength=len(data.domain.class_var.values))
        np.testing.assert_allclose(rule.class_distribution, counts)


def relabelled(data, perm):
    """``data`` with the class values listed in the order ``perm`` (the
    same classes: value ``perm[j]`` of the old variable is value ``j``)."""
    cv = data.domain.class_var
    new = DiscreteVariable(cv.name, tuple(cv.values[p] for p in perm))
    inverse = np.argsort(perm)
    y = inverse[data.Y.astype(int)].astype(float)
    return Table.from_numpy(Domain(data.domain.attributes, new), data.X, y,
                            W=data.W if data.has_weights() else None)


def check_class_order(kind, data):
    C = len(data.domain.class_var.values)
    perm = np.roll(np.arange(C), 1)[::-1]  # a permutation that moves every class
    other = relabelled(data, perm)
    a, b = LEARNERS[kind]()(data), LEARNERS[kind]()(other)
    pa, pb = probs_of(a, data), probs_of(b, other)
    np.testing.assert_allclose(pb, pa[:, perm], atol=1e-9)
    va = np.asarray(a(data), dtype=int)
    vb = np.asarray(b(other), dtype=int)
    np.testing.assert_array_equal(perm[vb], va)


def check_batch(kind, data):
    model = LEARNERS[kind]()(data)
    whole = probs_of(model, data)
    rng = np.random.default_rng(0)
    rows = rng.permutation(len(data))[: max(2, len(data) // 3)]
    values = np.asarray(model(data), dtype=int)
    # to rounding: a matrix product's last bit may depend on its size
    np.testing.assert_allclose(probs_of(model, data[rows]), whole[rows], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(model(data[rows]), dtype=int), values[rows])
    for i in rows[:3]:
        np.testing.assert_allclose(probs_of(model, data[i:i + 1])[0], whole[i],
                                   rtol=0, atol=1e-12)
        assert int(model(data[i:i + 1])[0]) == values[i]


def check_sparse_is_dense(kind, data):
    import scipy.sparse as sp
    sparse = Table.from_numpy(data.domain, sp.csr_matrix(data.X), data.Y,
                              W=data.W if data.has_weights() else None)
    a, b = LEARNERS[kind]()(data), LEARNERS[kind]()(sparse)
    assert str(a) == str(b)
    # the same predictions, for a dense and for a sparse table
    np.testing.assert_allclose(probs_of(b, data), probs_of(a, data), rtol=0, atol=1e-12)
    np.testing.assert_allclose(probs_of(b, sparse), probs_of(a, data), rtol=0, atol=1e-12)


def check_progress(kind, data):
    """Progress reported to the caller's callback never goes back, stays in
    [0, 1] and ends at 1, with and without a rule budget."""
    for kw in ({}, {"max_rules": 2}):
        seen = []
        LEARNERS[kind](**kw)(data, lambda p, *_: seen.append(float(p)))
        assert seen and seen[-1] == 1, seen
        assert np.all(np.diff(seen) >= 0) and 0 <= seen[0], seen


def check_explanations(kind, data):
    """The explanation contract (:func:`reading.check_reasons`) on random
    data, Rule Scoring under every strategy."""
    from reading import check_reasons
    from orangecontrib.rules.ruleset import STRATEGIES
    model = LEARNERS[kind]()(data)
    models = [model.with_strategy(s) for s in STRATEGIES] if kind == "scoring" else [model]
    for m in models:
        explanations = m.explain(data)
        np.testing.assert_allclose([e.probabilities() for e in explanations],
                                   probs_of(m, data), atol=1e-12)
        check_reasons(m, explanations, data)


CHECKS = {"probabilities": check_probabilities, "zero weight": check_zero_weight_is_absent,
          "explanations": check_explanations,
          "integer weights": check_integer_weights_are_copies,
          "class order": check_class_order, "batch": check_batch,
          "sparse": check_sparse_is_dense, "progress": check_progress}


#: the properties with a long profile as well (see the module's docstring)
LONG_CHECKS = ("batch", "class order", "integer weights", "sparse", "zero weight")
PROFILES = ([pytest.param(check, FAST, id=f"{check}-fast") for check in sorted(CHECKS)]
            + [pytest.param(check, LONG, id=f"{check}-long", marks=pytest.mark.slow)
               for check in LONG_CHECKS])


@pytest.mark.parametrize("check,profile", PROFILES)
@pytest.mark.parametrize("kind", KINDS)
def test_contract(kind, check, profile):
    if profile is LONG and kind in LONG_SLOW_FITS:
        profile = settings(LONG, max_examples=LONG_SLOW_FITS[kind])

    @profile
    @given(data=tables())
    def holds(data):
        CHECKS[check](kind, data)

    holds()


# --------------------------------------------------------------- one data set each
@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_classes_are_dropped_whatever_the_preprocessors(kind, heart):
    data = heart[:150].copy()
    with data.unlocked():
        data.Y[::7] = np.nan
    known = data[~np.isnan(data.Y)]
    for pps in ([], [Impute()]):
        model = LEARNERS[kind](preprocessors=pps)(data)
        same_model(model, LEARNERS[kind](preprocessors=pps)(known), known)


@pytest.mark.parametrize("kind", KINDS)
def test_two_threads_fit_one_learner(kind, heart):
    """One learner, two fits at once in two threads, each with its own
    callback: the models of two fits one after the other, and each
    callback hears only its own fit (a fit reports from its own thread)."""
    learner = LEARNERS[kind]()
    parts = [heart[:150], heart[150:]]
    sequential = [learner(p) for p in parts]
    models, heard, errors = [None, None], [set(), set()], []

    def fit(i):
        try:
            models[i] = learner(parts[i], lambda *_: heard[i].add(threading.get_ident()))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=fit, args=(i,)) for i in range(2)]
    idents = []
    for t in threads:
        t.start()
        idents.append(t.ident)
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(2):
        same_model(models[i], sequential[i], parts[i])
        assert heard[i] == {idents[i]}


FRESH = """
import hashlib, json, sys
import numpy as np
from Orange.data import Table
sys.path.insert(0, {tests!r})
from registry import KINDS, make
data = Table("heart_disease")
out = {{}}
for kind in KINDS:
    model = make(kind, "fast")(data)
    probs = np.ascontiguousarray(model(data, model.Probs))
    out[kind] = [hashlib.sha256(str(model).encode()).hexdigest(),
                 hashlib.sha256(probs.tobytes()).hexdigest()]
print(json.dumps(out))
"""


@pytest.mark.slow  # two fresh interpreters
def test_same_seed_same_model_in_a_fresh_process():
    """The printed model and the probabilities of two fresh processes with
    different hash seeds (set iteration order) are the same, for every
    learner (two processes that fit them all: one pair of interpreters, not
    one pair per learner)."""
    outs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, "-c", FRESH.format(tests=TESTS)], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        outs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert sorted(outs[0]) == KINDS
    differ = [kind for kind in KINDS if outs[0][kind] != outs[1][kind]]
    assert not differ, f"another model in another process: {differ}"
