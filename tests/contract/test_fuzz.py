"""Fuzz suite: hypothesis generates Orange tables (mixed discrete and
numeric columns, missing values, large magnitudes, weights, many or unused
classes, unicode names, sparse X) and every learner goes through fit,
predict, pickle, deepcopy and refit, with the invariants a user relies on:

* probabilities finite, in [0, 1], rows summing to 1, 0 for a class absent
  from the training data, and the predicted value a most probable class;
* ``model(X)`` equals ``model(table)``; a pickled or deep-copied model
  predicts the same; a refit with the same ``random_state`` gives the same;
* a prediction table that lists a discrete attribute's values in another
  order gives the same predictions;
* bad input is a ``ValueError`` with a message, never another exception.

The short profile runs in CI; ``-m slow`` runs the long one.
"""
import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from registry import factory, make

#: the registry's fast settings, and the searches on a sample of the rows
#: (beyond ``search_rows`` rows; by default 100,000)
LEARNERS = {**factory("fast"),
            "roccer-sample": lambda: make("roccer", "fast", search_rows=10),
            "evc-sample": lambda: make("evc", "fast", search_rows=10)}

NAMES = st.text(alphabet=st.sampled_from("abcxyzäöüčšž日本αβ _-"), min_size=1, max_size=6)


@st.composite
def tables(draw):
    """An Orange table with a discrete class (possibly with unused values)."""
    n = draw(st.integers(2, 50))
    n_cont, n_disc = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    if n_cont + n_disc == 0:
        n_cont = 1
    names = draw(st.lists(NAMES, min_size=n_cont + n_disc + 1,
                          max_size=n_cont + n_disc + 1, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    attrs, cols = [], []
    scale = draw(st.sampled_from([1.0, 1e-200, 1e6, 1e200]))
    for i in range(n_cont):
        attrs.append(ContinuousVariable(names[i]))
        kind = draw(st.sampled_from(["normal", "constant", "ties"]))
        col = {"normal": rng.normal(size=n), "constant": np.ones(n),
               "ties": rng.integers(0, 3, n).astype(float)}[kind] * scale
        cols.append(col)
    for i in range(n_disc):
        k = draw(st.integers(1, 4))
        attrs.append(DiscreteVariable(names[n_cont + i], tuple(f"v{j}ü" for j in range(k))))
        cols.append(rng.integers(0, k, n).astype(float))
    X = np.column_stack(cols)
    missing = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    n_values = draw(st.integers(2, 6))
    used = draw(st.integers(1, n_values))
    y = rng.integers(0, used, n).astype(float)
    if draw(st.booleans()):
        y[rng.random(n) < 0.1] = np.nan  # rows with an unknown class
    class_var = DiscreteVariable(names[-1] + "_y", tuple(f"c{j}" for j in range(n_values)))
    W = None
    weights = draw(st.sampled_from(["none", "random", "zeros", "huge"]))
    if weights != "none":
        W = {"random": rng.random(n) * 3,
             "zeros": np.where(rng.random(n) < 0.7, 0.0, 1.0),
             "huge": np.full(n, 1e150)}[weights]
    domain = Domain(attrs, class_var)
    if draw(st.booleans()) and not missing:
        X = sp.csr_matrix(np.nan_to_num(X))
    return Table.from_numpy(domain, X, y, W=W)


def check_probabilities(model, data, train):
    probs = model(data, model.Probs)
    n_classes = len(data.domain.class_var.values)
    assert probs.shape == (len(data), n_classes)
    assert np.all(np.isfinite(probs)) and np.all((probs >= 0) & (probs <= 1))
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-9)
    y = np.asarray(train.Y, dtype=float)
    w = train.W if train.has_weights() else np.ones(len(train))
    known = ~np.isnan(y)
    present = np.bincount(y[known].astype(int), weights=w[known], minlength=n_classes) > 0
    if present.sum() >= 1:
        assert np.all(probs[:, ~present] == 0)
    values = np.asarray(model(data), dtype=int)  # a most probable class (ties: see
    # RuleModel.predict_storage)
    np.testing.assert_allclose(probs[np.arange(len(probs)), values], probs.max(axis=1),
                               rtol=1e-12, atol=1e-12)
    return probs


def reorder_first_discrete(data):
    for j, var in enumerate(data.domain.attributes):
        if var.is_discrete and len(var.values) > 1:
            new = DiscreteVariable(var.name, tuple(reversed(var.values)))
            attrs = list(data.domain.attributes)
            attrs[j] = new
            X = np.asarray(data.X.toarray() if sp.issparse(data.X) else data.X, dtype=float).copy()
            X[:, j] = np.where(np.isnan(X[:, j]), np.nan, len(var.values) - 1 - X[:, j])
            return Table.from_numpy(Domain(attrs, data.domain.class_var), X, data.Y)
    return None


def run_one(kind, data):
    learner = LEARNERS[kind]()
    try:
        model = learner(data)
    except ValueError as exc:  # a clear error is acceptable, with a message
        assert str(exc)
        return
    probs = check_probabilities(model, data, data)
    dense = np.asarray(data.X.toarray() if sp.issparse(data.X) else data.X)
    np.testing.assert_allclose(model(dense, model.Probs), probs)
    for other in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        np.testing.assert_allclose(other(data, other.Probs), probs)
        str(other)
    again = LEARNERS[kind]()(data)
    np.testing.assert_allclose(again(data, again.Probs), probs)
    reordered = reorder_first_discrete(data)
    if reordered is not None:
        np.testing.assert_allclose(model(reordered, model.Probs), probs)


FAST = settings(max_examples=12, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=150, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("kind", sorted(LEARNERS))
@FAST
@given(data=tables())
def test_fuzz_short(kind, data):
    run_one(kind, data)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(LEARNERS))
@LONG
@given(data=tables())
def test_fuzz_long(kind, data):
    run_one(kind, data)
