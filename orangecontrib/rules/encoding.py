"""Orange ``Table`` -> contiguous typed arrays, once per fit.

Every kernel in :mod:`orangecontrib.rules.core` reads these arrays and never
touches Orange objects (architecture: "encode once").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from .core import KIND_CONTINUOUS, KIND_DISCRETE, SearchData, condition_bitsets

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
                            # ((n_cont, 0) when the learner does not read it)
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

    def __sizeof__(self):
        """The bytes its arrays hold (so joblib's Dask backend sends it to
        the workers once instead of with every task)."""
        return object.__sizeof__(self) + sum(
            v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))

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
        if self.order.shape[1] == 0 and self.n > 0:  # encoded without the order
            order = np.zeros((self.order.shape[0], 0), dtype=np.int32)
        else:
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

    __sizeof__ = EncodedData.__sizeof__

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


def ordinal_bins(x: np.ndarray, max_thresholds: int | None = None, w=None):
    """A continuous column as ordinal bins: ``(codes, lo, hi)``.

    ``codes[i]`` is the bin of ``x[i]`` (``-1`` if missing), ``lo[b]`` and
    ``hi[b]`` the smallest and largest value in bin ``b``. Without
    ``max_thresholds`` every distinct value is a bin (exact: a threshold can
    fall between any two values). With it, the values are cut into at most
    ``max_thresholds + 1`` bins of about equal frequency, cuts only between
    distinct values (as histogram-based boosters bin their columns), so at
    most ``max_thresholds`` thresholds per column remain. ``w``: example
    weights; the frequencies are weighted, so a row of weight 2 moves the
    cuts as two equal rows do.
    """
    ok = ~np.isnan(x)
    codes = np.full(len(x), MISSING_CODE, dtype=np.int32)
    values, inverse = np.unique(x[ok], return_inverse=True)
    if max_thresholds is None or len(values) <= int(max_thresholds) + 1:
        codes[ok] = inverse
        return codes, values, values.copy()
    counts = np.bincount(inverse, weights=None if w is None else np.asarray(w)[ok],
                         minlength=len(values))
    b = int(max_thresholds)
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, b + 1) / (b + 1)
    cut_after = np.searchsorted(cum, targets, side="left")  # last value index below a cut
    cut_after = np.unique(cut_after[cut_after < len(values) - 1])
    bin_of_value = np.searchsorted(cut_after, np.arange(len(values)), side="left")
    codes[ok] = bin_of_value[inverse]
    first = np.r_[0, cut_after + 1]
    last = np.r_[cut_after, len(values) - 1]
    return codes, values[first], values[last]


def search_data(enc: EncodedData, max_thresholds: int | None = None):
    """The encoded table as the EVC beam search reads it
    (:class:`core.SearchData`): discrete columns as they are, continuous
    columns as :func:`ordinal_bins`. Returns ``(data, attrs)``, ``attrs[f]``
    the domain attribute of feature ``f``."""
    n = enc.n
    cols, n_bins, lo, hi = [enc.Xd], list(enc.n_values), [], []
    for v in enc.n_values:
        lo.append(np.zeros(v))
        hi.append(np.zeros(v))
    cont = np.empty((n, enc.Xc.shape[1]), dtype=np.int32)
    for j in range(enc.Xc.shape[1]):
        cont[:, j], l, h = ordinal_bins(enc.Xc[:, j], max_thresholds, enc.w)
        n_bins.append(len(l))
        lo.append(l)
        hi.append(h)
    codes = np.ascontiguousarray(np.hstack(cols + [cont]).reshape(n, -1), dtype=np.int32)
    ordinal = np.r_[np.zeros(enc.Xd.shape[1]), np.ones(enc.Xc.shape[1])].astype(np.int8)
    attrs = np.r_[enc.disc_attrs, enc.cont_attrs].astype(np.int32)
    def cat(a):
        return np.concatenate(a) if a else np.zeros(0)
    return SearchData(codes, np.array(n_bins, dtype=np.int32), ordinal,
                      cat(lo), cat(hi), enc.w), attrs
