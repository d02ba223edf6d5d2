"""Orange ``Table`` -> contiguous typed arrays, once per fit.

Every kernel in :mod:`orangecontrib.rules.core` reads these arrays and never
touches Orange objects (architecture: "encode once").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from .core import KIND_CONTINUOUS, KIND_DISCRETE, condition_bitsets

MISSING_CODE = -1


@dataclass
class EncodedData:
    """A table as the Cython core sees it.

    ``attr_kind[a]``/``attr_col[a]`` say where attribute ``a`` of the domain
    lives: column ``attr_col[a]`` of ``Xd`` (discrete) or of ``Xc``
    (continuous).
    """

    Xd: np.ndarray          # int32 (n, n_disc), MISSING_CODE for unknown
    Xc: np.ndarray          # float64 (n, n_cont), NaN for unknown
    order: np.ndarray       # int32 (n_cont, n): argsort per column, NaN last
    n_valid: np.ndarray     # int32 (n_cont,): non-missing values per column
    n_values: np.ndarray    # int32 (n_disc,): number of values per discrete column
    y: np.ndarray           # int32 (n,) class codes
    w: np.ndarray           # float64 (n,) example weights
    n_classes: int
    attr_kind: np.ndarray   # int32 (n_attrs,)
    attr_col: np.ndarray    # int32 (n_attrs,)
    disc_attrs: np.ndarray  # int32: domain attribute index of each Xd column
    cont_attrs: np.ndarray  # int32: domain attribute index of each Xc column

    @property
    def n(self) -> int:
        return self.y.shape[0]

    def class_distribution(self) -> np.ndarray:
        """Weighted class counts, shape ``(n_classes,)``."""
        return np.bincount(self.y, weights=self.w, minlength=self.n_classes)

    def subset(self, rows) -> "EncodedData":
        """The encoded data of ``rows`` (e.g. a cross-validation fold); the
        sort order is derived from the full one, without sorting again."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        new_index = np.full(self.n, -1, dtype=np.int64)
        new_index[rows] = np.arange(len(rows))
        order = np.empty((self.order.shape[0], len(rows)), dtype=np.int32)
        for j in range(self.order.shape[0]):
            mapped = new_index[self.order[j]]
            order[j] = mapped[mapped >= 0]
        Xc = np.ascontiguousarray(self.Xc[rows])
        return EncodedData(
            Xd=np.ascontiguousarray(self.Xd[rows]), Xc=Xc, order=order,
            n_valid=(~np.isnan(Xc)).sum(axis=0).astype(np.int32),
            n_values=self.n_values, y=np.ascontiguousarray(self.y[rows]),
            w=np.ascontiguousarray(self.w[rows]), n_classes=self.n_classes,
            attr_kind=self.attr_kind, attr_col=self.attr_col,
            disc_attrs=self.disc_attrs, cont_attrs=self.cont_attrs)


def attribute_layout(domain: Domain):
    """Split the attributes of ``domain`` into discrete and continuous columns."""
    kind = np.empty(len(domain.attributes), dtype=np.int32)
    col = np.empty(len(domain.attributes), dtype=np.int32)
    disc, cont = [], []
    for a, var in enumerate(domain.attributes):
        if isinstance(var, DiscreteVariable):
            kind[a], col[a] = KIND_DISCRETE, len(disc)
            disc.append(a)
        elif isinstance(var, ContinuousVariable):
            kind[a], col[a] = KIND_CONTINUOUS, len(cont)
            cont.append(a)
        else:
            raise ValueError(
                f"Attribute '{var.name}' is neither categorical nor numeric; "
                "rule learners need categorical or numeric attributes.")
    return kind, col, np.array(disc, dtype=np.int32), np.array(cont, dtype=np.int32)


def dense_X(X) -> np.ndarray:
    """Orange's ``X`` as a C-contiguous float64 array (sparse is densified)."""
    if sp.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X, dtype=np.float64)


def encode_table(data: Table, with_order: bool = True) -> EncodedData:
    """Encode ``data`` (discrete class, no unknown class values) once."""
    domain = data.domain
    if domain.class_var is None or not domain.class_var.is_discrete:
        raise ValueError("encode_table needs a categorical class variable")
    kind, col, disc, cont = attribute_layout(domain)
    X = dense_X(data.X)
    n = X.shape[0]

    n_values = np.array([len(domain.attributes[a].values) for a in disc],
                        dtype=np.int32)
    Xd_float = X[:, disc]
    Xd = np.full(Xd_float.shape, MISSING_CODE, dtype=np.int32)
    ok = np.isfinite(Xd_float) & (Xd_float >= 0) & (Xd_float < n_values)
    Xd[ok] = Xd_float[ok].astype(np.int32)
    Xd = np.ascontiguousarray(Xd)

    Xc = np.ascontiguousarray(X[:, cont])
    Xc[~np.isfinite(Xc)] = np.nan  # +-inf is treated as unknown
    if with_order and len(cont):
        order = np.ascontiguousarray(np.argsort(Xc, axis=0, kind="stable").T,
                                     dtype=np.int32)
    else:
        order = np.zeros((len(cont), n if with_order else 0), dtype=np.int32)
    n_valid = (~np.isnan(Xc)).sum(axis=0).astype(np.int32)

    Y = np.asarray(data.Y, dtype=np.float64).reshape(n, -1)[:, 0] if n else np.zeros(0)
    if np.isnan(Y).any():
        raise ValueError("rows with an unknown class must be removed before encoding")
    y = Y.astype(np.int32)

    if data.has_weights():
        w = np.ascontiguousarray(data.W, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise ValueError("example weights must be finite and non-negative")
    else:
        w = np.ones(n, dtype=np.float64)

    return EncodedData(Xd=Xd, Xc=Xc, order=order, n_valid=n_valid,
                       n_values=n_values, y=y, w=w,
                       n_classes=len(domain.class_var.values),
                       attr_kind=kind, attr_col=col,
                       disc_attrs=disc, cont_attrs=cont)


@dataclass
class Literals:
    """The literals ``A = v`` of nominal data (``Xd`` of :class:`EncodedData`)
    and their coverage bitsets: SLS searches over them, ROCCER mines them."""

    attr: np.ndarray    # int32 (n_lit,): attribute of each literal
    value: np.ndarray   # int32 (n_lit,): value index of each literal
    bits: np.ndarray    # uint64 (n_lit, words)
    ex_lit: np.ndarray  # int32 (m, n_attrs): literal each example satisfies, -1 none

    @classmethod
    def of(cls, Xd: np.ndarray, n_values: np.ndarray) -> "Literals":
        n_values = np.asarray(n_values, dtype=np.int32)
        offset = np.concatenate([[0], np.cumsum(n_values)]).astype(np.int32)
        attr = np.repeat(np.arange(len(n_values), dtype=np.int32), n_values)
        value = (np.arange(offset[-1]) - offset[attr]).astype(np.int32)
        bits = condition_bitsets(
            np.ascontiguousarray(Xd, dtype=np.int32), np.zeros((len(Xd), 0)),
            np.zeros(len(attr), np.int32), attr, np.zeros(len(attr), np.int8),
            value.astype(float))
        ex_lit = np.where(Xd == MISSING_CODE, -1, Xd + offset[:-1]).astype(np.int32)
        return cls(attr, value, bits, np.ascontiguousarray(ex_lit))
