"""The contract every view of a model keeps, as properties on random data
for every learner of the registry (``test_contract``'s random tables, its
fast settings and profiles: the fast one by default, the long one marked
``slow``). doc/promises.md states each promise in full (README.md in short);
one check per promise:

* ``explanations``: ``explain(x)``'s probabilities are ``model(x, Probs)``
  for a Table, an Instance, a numpy array and a sparse matrix, without and
  with preprocessing (``Discretize()``, SLS's intervals, a base / rule
  learner that discretises);
* ``counts``: the rules every view counts are ``model.size``, and the Rules
  output counts classes by value name (values listed in another order, or
  only some of them), whatever the class variable is named;
* ``class order views``: the rules (as a set: a model lists them class by
  class), the Rules output, each row's explained rules, the size and the
  abstention curve do not depend on the order of the class values;
* ``zero weight views``: rows of weight 0, in the data fitted or shown,
  change no view (and, long profile, not the size curve);
* ``budgets``: every budget gives a sensible model (:func:`check_sensible`);
* and every bad command-line value gets one line and exit code 2
  (:func:`test_every_bad_command_line_value_gets_one_line_and_code_2`).
"""
from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from Orange.data import Table
from Orange.preprocess import Discretize

import orangecontrib.rules as R
from orangecontrib.rules import viewer
from orangecontrib.rules.__main__ import EXTRA_LEARNERS
from orangecontrib.rules.__main__ import LEARNERS as CLI_LEARNERS
from orangecontrib.rules.evaluation import count_rules, size_curve
from orangecontrib.rules.ruleset import STRATEGIES
from registry import KINDS, make
from test_contract import (FAST, LEARNERS, LONG, LONG_SLOW_FITS, relabelled, tables,
                           valid_probabilities)


def discretising_evc():
    return make("evc", "fast", preprocessors=[Discretize()])


#: per learner, the learners with preprocessing whose explanations are checked
PREPROCESSED = {
    kind: [lambda kind=kind: LEARNERS[kind](preprocessors=[Discretize()])]
    for kind in LEARNERS}
PREPROCESSED["sls"].append(lambda: LEARNERS["sls"](numeric="intervals"))
PREPROCESSED["scoring"].append(lambda: LEARNERS["scoring"](base=discretising_evc()))
PREPROCESSED["lrr"].append(lambda: LEARNERS["lrr"](rule_learner=discretising_evc()))


def relisted(data, values, name=None):
    """``data`` with a class variable (named ``name``, default its own)
    listing ``values``, names of the old values; rows of a value not
    listed must not be in ``data``."""
    from Orange.data import DiscreteVariable, Domain
    cv = data.domain.class_var
    index = {v: k for k, v in enumerate(values)}
    y = np.array([index[cv.values[int(c)]] for c in data.Y], dtype=float)
    new = DiscreteVariable(name or cv.name, tuple(values))
    return Table.from_numpy(Domain(data.domain.attributes, new), data.X, y,
                            W=data.W if data.has_weights() else None)


def weights(data):
    return data.W.reshape(-1) if data.has_weights() else np.ones(len(data))


def explained(model, x):
    return np.array([e.probabilities() for e in model.explain(x)])


# --------------------------------------------------------------- properties
def check_explanations(kind, data, long=False):
    learners = [LEARNERS[kind]] + PREPROCESSED[kind]
    for learner in learners:
        model = learner()(data)
        probs = model(data, model.Probs)
        np.testing.assert_allclose(model(data.X, model.Probs), probs, rtol=0, atol=1e-12)
        for x in (data, data.X, sp.csr_matrix(data.X)):
            np.testing.assert_allclose(explained(model, x), probs, rtol=0, atol=1e-9)
        for i in range(0, len(data), 1 if long else max(1, len(data) // 4)):
            np.testing.assert_allclose(explained(model, data[i])[0], probs[i],
                                       rtol=0, atol=1e-9)


def class_counts(model, data):
    """``(n_rules, n_classes)``: the weight of the rows of each class (by
    value name) each rule is counted on (the rows it covers; ROCCER's, the
    rows it decides in its list: ``counted_cover``), counted directly."""
    names = list(data.domain.class_var.values)
    cover = model.counted_cover(data).astype(float)
    w = weights(data)
    out = np.zeros((cover.shape[1], len(model.domain.class_var.values)))
    for j, value in enumerate(model.domain.class_var.values):
        if value in names:
            out[:, j] = (w * (data.Y == names.index(value))) @ cover
    return out


def check_counts(kind, data, long=False):
    model = LEARNERS[kind]()(data)
    rules, conditions = model.size
    used = viewer.used_mask(model)
    lengths = np.array([len(r.conditions) for r in model.rule_list], dtype=int)
    assert used.sum() == rules and lengths[used].sum() == conditions
    assert count_rules(model) == rules
    apart = np.asarray(model.set_apart(), dtype=bool)
    assert (viewer.listed_mask(model) | (apart & used)).sum() == rules
    table = viewer.rule_table(model)  # its texts: a range "1 <= A < 3" is two conditions
    assert len(table.conditions) == len(lengths)
    out = viewer.rules_as_table(model, data)
    np.testing.assert_array_equal(out.get_column("rule"), np.arange(1, len(lengths) + 1))
    np.testing.assert_array_equal(out.get_column("length"), lengths)
    assert out.get_column("length")[used].sum() == conditions
    np.testing.assert_array_equal(out.Y, table.heads)
    values = model.domain.class_var.values
    C = len(values)
    perm = np.roll(np.arange(C), 1)[::-1]
    fewer = data[data.Y != C - 1]  # the data of all classes but the last ...
    fewer = relisted(fewer, values[:-1])  # ... listing only theirs
    for shown in (data, relabelled(data, perm)) + ((fewer,) if len(fewer) else ()):
        want = class_counts(model, shown)
        out = viewer.rules_as_table(model, shown)
        for j, value in enumerate(values):
            np.testing.assert_allclose(out.get_column(f"n {value}"), want[:, j], rtol=1e-12)
        np.testing.assert_allclose(out.get_column("coverage"), want.sum(axis=1), rtol=1e-12)
    # a class named like one of the output's columns keeps its name
    renamed = relisted(data, values, name="rule")
    out = viewer.rules_as_table(LEARNERS[kind]()(renamed), renamed)
    assert out.domain.class_var.name == "rule" and "rule (1)" in out.domain


def rule_rows(model):
    """The model's rules as the viewer shows them, each rule its conditions
    as text and its head's name, sorted by these (a model lists its rules
    class by class in the class variable's order); and the rules' order
    in that sort."""
    table = viewer.rule_table(model)
    names = model.domain.class_var.values
    rows = [(tuple(c), names[h]) for c, h in zip(table.conditions, table.heads)]
    order = sorted(range(len(rows)), key=lambda k: rows[k])
    return [rows[k] for k in order], np.array(order, dtype=int)


def same_rules(a, b):
    """The same rules (conditions, heads by name) with the same numbers."""
    rows_a, order_a = rule_rows(a)
    rows_b, order_b = rule_rows(b)
    assert rows_a == rows_b
    cols_a, cols_b = viewer.rule_table(a).columns, viewer.rule_table(b).columns
    assert [c.name for c in cols_a] == [c.name for c in cols_b]
    # to a relative 1e-5: a numerical minimiser fits some of them (LR with
    # rules' and ROCCER's many-class weights), from another start when the
    # classes are listed in another order (the probabilities agree to 1e-9)
    for x, y in zip(cols_a, cols_b):
        np.testing.assert_allclose(np.asarray(x.values, float)[order_a],
                                   np.asarray(y.values, float)[order_b], rtol=1e-5, atol=1e-9)


def same_rules_output(a, data_a, b, data_b):
    """The Rules output of model ``a`` shown ``data_a`` and of ``b`` shown
    ``data_b``: the same rows (in :func:`rule_rows`' order, but for the
    rule's number), columns read by name."""
    ta, tb = viewer.rules_as_table(a, data_a), viewer.rules_as_table(b, data_b)
    order_a, order_b = rule_rows(a)[1], rule_rows(b)[1]
    assert sorted(v.name for v in ta.domain.attributes) == \
        sorted(v.name for v in tb.domain.attributes)
    for var in ta.domain.attributes:
        if var.name != "rule":
            np.testing.assert_allclose(tb.get_column(var.name)[order_b],
                                       ta.get_column(var)[order_a], rtol=1e-5, atol=1e-9)
    cva, cvb = ta.domain.class_var, tb.domain.class_var
    assert [cva.values[int(y)] for y in ta.Y[order_a]] == \
        [cvb.values[int(y)] for y in tb.Y[order_b]]
    assert ta.metas[order_a].tolist() == tb.metas[order_b].tolist()


def explained_rules(model, data):
    """Per row, the rules its explanation names (a set of their conditions
    as the viewer prints them and their heads' names)."""
    table = viewer.rule_table(model)
    names = model.domain.class_var.values
    texts = [(tuple(c), names[h]) for c, h in zip(table.conditions, table.heads)]
    return [{texts[k] for k in e.rules} for e in model.explain(data)]


def same_abstention(a, data_a, b, data_b):
    if isinstance(a, R.SLSEnsembleModel):
        assert a.abstention_curve(data_a, [0, 0.5, 1]) == b.abstention_curve(data_b, [0, 0.5, 1])


def check_class_order_views(kind, data, long=False):
    C = len(data.domain.class_var.values)
    perm = np.roll(np.arange(C), 1)[::-1]
    other = relabelled(data, perm)
    a, b = LEARNERS[kind]()(data), LEARNERS[kind]()(other)
    assert a.size == b.size and count_rules(a) == count_rules(b)
    same_rules(a, b)
    same_rules_output(a, data, b, other)
    assert explained_rules(a, data) == explained_rules(b, other)
    same_abstention(a, data, b, other)


def check_zero_weight_views(kind, data, long=False):
    rng = np.random.default_rng(len(data))
    w = weights(data).copy()
    w[rng.random(len(data)) < 0.3] = 0
    if (w > 0).sum() < 2:
        return
    weighted = Table.from_numpy(data.domain, data.X, data.Y, W=w)
    kept = Table.from_numpy(data.domain, data.X[w > 0], data.Y[w > 0], W=w[w > 0])
    a, b = LEARNERS[kind]()(weighted), LEARNERS[kind]()(kept)
    assert a.size == b.size and count_rules(a) == count_rules(b)
    same_rules(a, b)
    same_rules_output(a, weighted, b, kept)
    same_rules_output(b, weighted, b, kept)  # shown data with rows of weight 0
    assert [e for e, keep in zip(explained_rules(a, weighted), w > 0) if keep] == \
        explained_rules(b, kept)
    same_abstention(a, weighted, b, kept)
    if not long:  # its own test: contract/test_model_views.py
        return
    learner = LEARNERS[kind]()
    assert size_curve(learner, weighted, budgets=(2,), n_folds=2) == \
        size_curve(learner, kept, budgets=(2,), n_folds=2)


def log_loss(probs, data):
    y = data.Y.astype(int)
    p = np.clip(probs[np.arange(len(y)), y], 1e-300, 1)
    return float(np.average(-np.log(p), weights=weights(data)))


#: how much worse than the class shares a sensible model may be on its
#: training data (nats of log loss): rounding and smoothed estimates
SENSIBLE_SLACK = 0.01


def check_sensible(model, data, budget=None):
    """A sensible model of ``data`` (doc/promises.md)."""
    probs = valid_probabilities(model, data)
    if budget is not None:
        assert model.size[0] <= budget
    shares = np.bincount(data.Y.astype(int), weights(data),
                         minlength=probs.shape[1]) / weights(data).sum()
    prior = log_loss(np.tile(shares, (len(data), 1)), data)
    assert log_loss(probs, data) <= prior + SENSIBLE_SLACK, (budget, str(model))


def check_budgets(kind, data, long=False):
    whole = LEARNERS[kind]()(data)
    check_sensible(whole, data)
    top = min(max(whole.size[0], 1), 8) if long else 3
    for budget in range(1, top + 1):
        check_sensible(LEARNERS[kind](max_rules=budget)(data), data, budget)


CHECKS = {"explanations": check_explanations, "counts": check_counts,
          "class order views": check_class_order_views,
          "zero weight views": check_zero_weight_views, "budgets": check_budgets}


#: the fast profile by default, the long one marked slow
PROFILES = [pytest.param(FAST, id="fast"), pytest.param(LONG, id="long", marks=pytest.mark.slow)]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("kind", KINDS)
def test_views_contract(kind, check, profile):
    long = profile is LONG
    if long:  # fewer examples than the learners' own contract: each runs several fits
        profile = settings(LONG, max_examples=LONG_SLOW_FITS.get(kind, LONG.max_examples) // 2)

    @profile
    @given(data=tables())
    def holds(data):
        CHECKS[check](kind, data, long)

    holds()


# --------------------------------------------------------------- the command line
def _is_int(text):
    try:
        int(text)
    except ValueError:
        return False
    return True


not_an_int = st.text(max_size=12).filter(lambda s: not _is_int(s))
tokens = st.lists(st.text(max_size=8), max_size=4)


def _bad_list(choices):
    """Comma-separated names of which none is known or one is not."""
    def known(name):
        return name.strip().lower() in choices
    return tokens.filter(lambda names: not any(map(known, names))
                         or not all(known(n) for n in names if n.strip())) \
        .map(",".join)


BAD = {
    "--folds": st.integers(max_value=1).map(str) | not_an_int,
    "--seed": (st.integers(max_value=-1) | st.integers(min_value=2 ** 32)).map(str)
    | not_an_int,
    "--permutations": st.integers(max_value=1).map(str) | not_an_int,
    "--max-rules": st.integers(max_value=-1).map(str) | not_an_int,
    "--strategies": _bad_list(STRATEGIES),
    "--learners": _bad_list(CLI_LEARNERS + EXTRA_LEARNERS),
    "--show-rules": st.text(max_size=8).filter(lambda s: s.lower() not in STRATEGIES),
    "--data": st.sampled_from(["housing", "no-such-file.tab", ""])
    | st.text(min_size=1, max_size=12).map(lambda s: f"no such data {s}"),
}


def one_line_and_code_2(argv):
    from orangecontrib.rules.__main__ import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 2, (argv, out.getvalue(), err.getvalue())
    assert out.getvalue() == ""
    lines = err.getvalue().split("\n")
    assert len(lines) == 2 and lines[1] == "", err.getvalue()
    assert lines[0].startswith("python -m orangecontrib.rules: error: ")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("option", sorted(BAD))
def test_every_bad_command_line_value_gets_one_line_and_code_2(option, profile):
    profile = settings(profile, max_examples=max(20, math.ceil(profile.max_examples / 3)))

    @profile
    @given(value=BAD[option], before=st.booleans())
    def holds(value, before):
        # the bad value among good values of the other options, first or last
        good = [arg for name, value in (("--data", "iris"), ("--learners", "scoring"))
                if name != option for arg in (name, value)]
        bad = [f"{option}={value}"]
        one_line_and_code_2(bad + good if before else good + bad)

    holds()
