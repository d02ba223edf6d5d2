"""The model's attributes in terms of the training data's columns, for the
exporters: a learner's preprocessing (SLS's own, or an Orange
``Discretize()`` given as ``preprocessors``) makes the attributes the rules
test from the columns of the training data (``model.original_domain``)
through each variable's ``compute_value``. Each supported transformation
is read here once, as SQL over the original columns (:func:`sql_source`)
and as a JSON description that rebuilds the variable (:func:`describe`,
:func:`rebuild`); any other transformation is refused with the name of the
attribute and of the transformation (:class:`ExportError`).

Supported: a column of the training data as it is (``Identity`` or none),
Orange's ``Discretizer`` (its cut points: value ``i`` is ``points[i - 1]
<= x < points[i]``), ``Normalizer`` (``(x - offset) * factor``),
``ReplaceUnknowns`` (a fixed value for a missing one), and SLS's
``UnknownAsValue`` (a missing discrete value as the extra value) and
``IsUnknown`` (the indicator of a missing value).
"""
from __future__ import annotations

import math

from Orange.data import ContinuousVariable, DiscreteVariable, Domain
from Orange.preprocess.discretize import Discretizer
from Orange.preprocess.impute import ReplaceUnknowns
from Orange.preprocess.transformation import Identity, Normalizer

from ..rules import MISSING_OF
from ..features import IsUnknown, UnknownAsValue


class ExportError(ValueError):
    """A model, or a part of it, that the exporters cannot write."""


# ------------------------------------------------------------------ SQL text

def quote(name: str) -> str:
    """``name`` as an SQL identifier: in double quotes, a double quote in
    it doubled (SQL-92; SQLite and PostgreSQL)."""
    return '"' + str(name).replace('"', '""') + '"'


def text(value: str) -> str:
    """``value`` as an SQL string literal (a quote in it doubled)."""
    return "'" + str(value).replace("'", "''") + "'"


def number(x: float) -> str:
    """A float as an SQL literal that reads back as the same double:
    Python's shortest round-trip digits, always with a point or an
    exponent (so SQLite never divides integers)."""
    x = float(x)
    if not math.isfinite(x):
        raise ExportError(f"a number of the model is {x}, which SQL cannot write")
    text_ = repr(x)
    return text_ if any(ch in text_ for ch in ".en") else text_ + ".0"


#: an SQL condition that is never true / always true (portable: SQLite
#: before 3.23 has no TRUE and FALSE)
FALSE, TRUE = "(1 = 0)", "(1 = 1)"


def negate(condition: str) -> str:
    return f"(NOT {condition})"


# ------------------------------------------------------------ the sources

class Source:
    """How the model reads one of its attributes from the original table.

    A discrete source answers :meth:`is_value` (an SQL condition: the row
    has value ``v``; never true on a missing value) and :attr:`missing`
    (an SQL condition that is never NULL); a numeric one :attr:`value` (an
    SQL expression, NULL when missing)."""

    discrete = False
    value: str = None
    missing: str = None

    def is_value(self, v: int) -> str:
        raise NotImplementedError


class Column(Source):
    """A column of the training data as it is."""

    def __init__(self, var):
        self.var = var
        self.discrete = var.is_discrete
        q = quote(var.name)
        if self.discrete:
            values = ", ".join(text(v) for v in var.values)
            # a value the variable does not have is unknown, as in
            # RuleModel.data_to_model_domain (tables.map_values_by_name)
            self.missing = (f"({q} IS NULL OR {q} NOT IN ({values}))" if values
                            else f"({q} IS NULL OR {q} = {q})")
        else:
            self.value = q
            self.missing = f"({q} IS NULL)"

    def is_value(self, v):
        return f"({quote(self.var.name)} = {text(self.var.values[int(v)])})"


class Intervals(Source):
    """Orange's ``Discretizer``: ``np.digitize(x, points)``, value ``i`` the
    interval ``points[i - 1] <= x < points[i]``; missing stays missing."""

    discrete = True

    def __init__(self, source, points):
        self.source, self.points = source, [float(p) for p in points]
        self.missing = source.missing

    def is_value(self, v):
        v, x, p = int(v), self.source.value, self.points
        parts = []
        if v > 0:
            parts.append(f"{x} >= {number(p[v - 1])}")
        if v < len(p):
            parts.append(f"{x} < {number(p[v])}")
        if not parts:  # no cut points: every known value is value 0
            return negate(self.missing)
        return "(" + " AND ".join(parts) + ")"


class UnknownValue(Source):
    """SLS's ``UnknownAsValue``: the source's values, and a missing one as
    the extra value ``n_values``."""

    discrete = True
    missing = FALSE

    def __init__(self, source, n_values):
        self.source, self.n_values = source, int(n_values)

    def is_value(self, v):
        return self.source.missing if int(v) == self.n_values else self.source.is_value(v)


class Unknown(Source):
    """SLS's ``IsUnknown``: value 1 (``yes``) where the source is missing."""

    discrete = True
    missing = FALSE

    def __init__(self, source):
        self.source = source

    def is_value(self, v):
        return self.source.missing if int(v) == 1 else negate(self.source.missing)


class Scaled(Source):
    """Orange's ``Normalizer``: ``(x - offset) * factor``."""

    def __init__(self, source, offset, factor):
        self.source, self.offset, self.factor = source, float(offset), float(factor)
        self.value = f"(({source.value} - {number(self.offset)}) * {number(self.factor)})"
        self.missing = source.missing


class Replaced(Source):
    """Orange's ``ReplaceUnknowns``: a missing value replaced by ``value``
    (a value index of a discrete source)."""

    missing = FALSE

    def __init__(self, source, value):
        self.source, self.replacement = source, float(value)
        self.discrete = source.discrete
        if not self.discrete:
            self.value = f"COALESCE({source.value}, {number(self.replacement)})"

    def is_value(self, v):
        if int(v) == int(self.replacement):
            return f"({self.source.is_value(v)} OR {self.source.missing})"
        return self.source.is_value(v)


def _original(var, original: Domain):
    """The attribute of the training data ``var`` is (by name), or None."""
    for a in original.attributes:
        if a.name == var.name and a.is_discrete == var.is_discrete and (
                not var.is_discrete or tuple(a.values) == tuple(var.values)):
            return a
    return None


def _transformation(var):
    """``var``'s compute_value, with a clear error for one that is not
    read here."""
    cv = var.compute_value
    if isinstance(cv, (Identity, Discretizer, Normalizer, ReplaceUnknowns, UnknownAsValue,
                       IsUnknown)):
        return cv
    raise ExportError(
        f"attribute {var.name!r} is made by {type(cv).__name__}, a transformation "
        "the export cannot translate to the training data's columns (supported: "
        "Orange's Discretize, Normalize and Impute with a fixed value, and SLS's own "
        "preprocessing); train the model without that preprocessor")


def sql_source(var, original: Domain) -> Source:
    """How the model's attribute ``var`` reads the columns of ``original``
    (the training data's domain)."""
    own = _original(var, original)
    if var.compute_value is None or (own is not None and own is var):
        if own is None:
            raise ExportError(f"attribute {var.name!r} of the model is not a column of "
                              "the training data and has no transformation to make it")
        return Column(own)
    cv = _transformation(var)
    source = sql_source(cv.variable, original)
    if isinstance(cv, Identity):
        return source
    if isinstance(cv, Discretizer):
        _need(source, False, var, cv)
        return Intervals(source, cv.points)
    if isinstance(cv, UnknownAsValue):
        _need(source, True, var, cv)
        return UnknownValue(source, cv.n_values)
    if isinstance(cv, IsUnknown):
        return Unknown(source)
    if isinstance(cv, Normalizer):
        _need(source, False, var, cv)
        return Scaled(source, cv.offset, cv.factor)
    return Replaced(source, cv.value)


def _need(source, discrete, var, cv):
    if source.discrete != discrete:
        raise ExportError(f"attribute {var.name!r}: {type(cv).__name__} of a "
                          f"{'numeric' if source.discrete else 'categorical'} variable")


# ------------------------------------------------------------------ JSON

def describe_original(var) -> dict:
    """A column of the training data: its name, type and (categorical) values."""
    if var.is_discrete:
        return {"name": var.name, "type": "categorical", "values": list(var.values)}
    if var.is_continuous:
        return {"name": var.name, "type": "numeric"}
    raise ExportError(f"attribute {var.name!r} is neither categorical nor numeric")


def describe(var, original: Domain) -> dict:
    """The model's attribute ``var``: a column of the training data (``{"name"}``,
    described among the training data's attributes), or a variable made from
    another (``"from"``, recursively) by a transformation (``"transform"``
    and its numbers), with its own name, type and values."""
    own = _original(var, original)
    if var.compute_value is None or (own is not None and own is var):
        if own is None:
            raise ExportError(f"attribute {var.name!r} of the model is not a column of "
                              "the training data and has no transformation to make it")
        return {"name": own.name}
    cv = _transformation(var)
    out = describe_original(var)
    out["from"] = describe(cv.variable, original)
    if isinstance(cv, Identity):
        out["transform"] = "identity"
    elif isinstance(cv, Discretizer):
        out.update(transform="intervals", points=[float(p) for p in cv.points])
    elif isinstance(cv, UnknownAsValue):
        out.update(transform="unknown as value", n_values=int(cv.n_values))
    elif isinstance(cv, IsUnknown):
        out["transform"] = "is unknown"
    elif isinstance(cv, Normalizer):
        out.update(transform="normalize", offset=float(cv.offset), factor=float(cv.factor))
    else:
        out.update(transform="replace unknowns", value=float(cv.value))
    if MISSING_OF in var.attributes:
        out["missing_of"] = var.attributes[MISSING_OF]
    return out


def rebuild_original(desc: dict):
    """The Orange variable of a column of the training data."""
    if desc["type"] == "categorical":
        return DiscreteVariable(desc["name"], values=tuple(desc["values"]))
    if desc["type"] == "numeric":
        return ContinuousVariable(desc["name"])
    raise ExportError(f"unknown attribute type {desc['type']!r}")


def rebuild(desc: dict, originals: dict):
    """The Orange variable :func:`describe` described, made from the
    variables of ``originals`` (name -> variable of the training data)."""
    if "from" not in desc:
        var = originals.get(desc["name"])
        if var is None:
            raise ExportError(f"attribute {desc['name']!r} is not among the training "
                              "data's attributes of the file")
        return var
    source = rebuild(desc["from"], originals)
    transform = desc["transform"]
    cv = {"identity": lambda: Identity(source),
          "intervals": lambda: Discretizer(source, list(map(float, desc["points"]))),
          "unknown as value": lambda: UnknownAsValue(source, desc["n_values"]),
          "is unknown": lambda: IsUnknown(source),
          "normalize": lambda: Normalizer(source, desc["offset"], desc["factor"]),
          "replace unknowns": lambda: ReplaceUnknowns(source, desc["value"])}.get(transform)
    if cv is None:
        raise ExportError(f"attribute {desc['name']!r}: unknown transformation "
                          f"{transform!r}")
    if desc["type"] == "categorical":
        var = DiscreteVariable(desc["name"], values=tuple(desc["values"]),
                               compute_value=cv())
    else:
        var = ContinuousVariable(desc["name"], compute_value=cv())
    if "missing_of" in desc:
        var.attributes[MISSING_OF] = desc["missing_of"]
    return var
