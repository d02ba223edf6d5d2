"""Each learner's parameters are declared once, in its table
(``orangecontrib.rules.params.ParameterTable``): the table names every
``__init__`` argument, checks it at construction and again at the fit (an
attribute set afterwards included), and the learner's numpydoc Parameters
section names every parameter with its default and states its range as
the table does."""
from __future__ import annotations

import ast
import inspect
import re
import sys

import numpy as np
import pytest
from Orange.data import Table

import orangecontrib.rules as R
from orangecontrib.rules.params import check_int

LEARNERS = [getattr(R, name) for name in R.__all__
            if isinstance(getattr(R, name), type) and issubclass(getattr(R, name), R.RuleLearner)
            and getattr(R, name) is not R.RuleLearner]
#: settings that keep a fit short
QUICK = {R.SLSEnsembleLearner: dict(k_max=2, n_rule_sets=2, max_steps=100),
         R.EVCRuleLearner: dict(n_permutations=10),
         R.SlipperLearner: dict(T_max=10)}


def signature_names(cls):
    return [name for name in inspect.signature(cls.__init__).parameters
            if name not in ("self", "preprocessors")]


def documented(cls) -> dict:
    """``{name: (type, default)}`` from the header lines of the numpydoc
    Parameters section of ``cls``' docstring (``name : type, default x``)."""
    doc = inspect.getdoc(cls)
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n\n\S[^\n]*\n-{3,}\n", section)[0]  # up to the next section
    out = {}
    for line in section.splitlines():
        m = re.match(r"^(\w+) : (.*)$", line)
        if m:
            kind, _, default = m.group(2).rpartition(", default ")
            out[m.group(1)] = (kind, default) if kind else (m.group(2), None)
    return out


def default_value(text, cls):
    """The value a docstring's default names: a literal, or a name of the
    learner's module."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return eval(text, vars(sys.modules[cls.__module__]))  # a module constant


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_the_table_names_every_argument_in_order(cls):
    assert [p.name for p in cls.parameters] == signature_names(cls)
    assert all(p.meaning for p in cls.parameters)
    learner = cls()
    for p in cls.parameters:  # the defaults pass their own checks unchanged
        assert p.check(cls.parameters.defaults[p.name]) == getattr(learner, p.name) or \
            p.name == "rule_learner"


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_the_docstring_names_every_parameter_with_its_default_and_range(cls):
    doc = documented(cls)
    assert set(doc) == set(signature_names(cls)) | {"preprocessors"}
    for p in cls.parameters:
        kind, default = doc[p.name]
        assert default is not None, f"{p.name}: no default in the docstring"
        want = cls.parameters.defaults[p.name]
        got = default_value(default, cls)
        assert got == want and type(got) is type(want), (p.name, got, want)
        stated = re.search(r"(in [\[(][^\])]*[\])]|[<>]=? -?[\d.e+]+)", kind)
        if stated or p.range is not None:
            assert stated and stated.group(1) == p.range, (p.name, kind, p.range)
        assert kind.endswith(" or None") == p.none, (p.name, kind)
        if p.kind == "choice":
            assert kind == "{" + ", ".join(f'"{c}"' for c in p.choices) + "}", p.name
        elif p.kind in ("int", "float", "bool"):
            assert kind.split()[0] == p.kind, (p.name, kind)


def bad_value(p):
    """A value the parameter ``p`` refuses."""
    if p.kind in ("int", "float"):
        return p.low if p.low_open else (p.low - 1 if p.low is not None else "x")
    return {"bool": "yes", "choice": "no such", "instance": "x", "floats": (),
            "n_jobs": 0}[p.kind]


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_a_bad_value_is_refused_by_name_at_construction_and_at_the_fit(cls):
    """Each parameter's bad value: a ValueError naming it from the
    constructor, and from the fit when it was set after construction,
    before anything is fitted."""
    data = Table("iris")
    for p in cls.parameters:
        value = bad_value(p)
        with pytest.raises(ValueError, match=p.name):
            cls(**{p.name: value})
        learner = cls(**QUICK.get(cls, {}))
        setattr(learner, p.name, value)
        with pytest.raises(ValueError, match=p.name):
            learner(data)
    learner = cls(**QUICK.get(cls, {}))
    if "max_rules" in signature_names(cls):  # a good value set afterwards is kept
        learner.max_rules = 4.0
        learner(data)
        assert learner.max_rules == 4 and type(learner.max_rules) is int


def test_an_attribute_set_after_construction_reaches_the_default_base():
    """Rule Scoring makes its default base from its attributes at the fit."""
    data = Table("iris")
    learner = R.RuleScoringLearner()
    learner.max_rule_length = 1
    model = learner(data)
    assert max(len(r.conditions) for r in model.rule_list) == 1
    assert str(model) == str(R.RuleScoringLearner(max_rule_length=1)(data))
    learner.n_jobs = 2  # with a base of one's own, n_jobs is the base's to set
    learner.base = R.EVCRuleLearner()
    with pytest.raises(ValueError, match="n_jobs"):
        learner(data)


def test_large_exact_integers_are_integers():
    """An integer of any size is accepted as it is (not rounded through a
    float); a float with an integer value still passes; a float with a
    fraction, an infinity or a bool does not."""
    assert check_int("n", sys.maxsize, 1) == sys.maxsize
    assert check_int("n", 10 ** 30, 1) == 10 ** 30
    assert check_int("n", np.int64(2 ** 62), 1) == 2 ** 62
    assert check_int("n", 20.0, 1) == 20 and type(check_int("n", 20.0, 1)) is int
    assert check_int("n", 1e20, 1) == 10 ** 20
    for bad in (2.5, float("inf"), float("nan"), True, "3"):
        with pytest.raises(ValueError, match="n must be an integer"):
            check_int("n", bad, 1)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        check_int("n", -10 ** 30, 1)


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_a_budget_and_a_sample_larger_than_any_data_are_accepted(cls):
    """``max_rules=sys.maxsize`` and ``search_rows=10**30`` (issue 67): the
    learner is made and fitted, its model a model of the data."""
    kw = dict(QUICK.get(cls, {}), max_rules=sys.maxsize)
    if "search_rows" in signature_names(cls):
        kw["search_rows"] = 10 ** 30
    learner = cls(**kw)
    assert learner.max_rules == sys.maxsize
    for data in (Table("iris"), Table("heart_disease")[::3]):
        model = learner(data)
        p = model(data, model.Probs)
        np.testing.assert_allclose(p.sum(axis=1), 1)
        assert np.mean(model(data) == data.Y) > 0.6


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_a_huge_integer_is_refused_by_name_or_works(cls):
    """Every integer parameter given 10**30: refused at construction with its
    name (the table's range), or the fit runs: never an OverflowError from
    the compiled core, nor a fit without end (a count of rounds, steps,
    permutations or conditions has an upper bound)."""
    iris = Table("iris")[::5]
    for p in cls.parameters:
        if p.kind != "int":
            continue
        settings = dict(QUICK.get(cls, {}))
        settings[p.name] = 10 ** 30
        try:
            learner = cls(**settings)
        except ValueError as exc:
            assert p.name in str(exc)
            continue
        model = learner(iris)  # no OverflowError, no hang
        assert model(iris, model.Probs).shape == (len(iris), 3)
