"""The feature space of a fit: how an Orange table becomes what the
learners' searches read, in one place (``doc/architecture.md``).

* **The encoding** (:func:`encode_table`, :class:`EncodedData`): the table
  as contiguous typed arrays, once per fit; every kernel of
  :mod:`orangecontrib.rules.core` reads these arrays and never touches
  Orange objects. A learner that calls another on the same rows (LR with
  rules and Rule Scoring call their rule learner) lends it its encoding
  (:func:`shared_encoding`), so a fit encodes its table once.
* **Printable cuts** (:func:`simplest_threshold`, :func:`simplest_cuts`,
  :class:`ShortThresholds`): a threshold moved to the number of fewest
  digits that splits the training values the same way, so rules read well.
* **Binnings**, the ways a numeric attribute is cut: every distinct value
  or weighted equal-frequency bins (:func:`ordinal_bins`, EVC rules and the
  learners built on them), Orange's equal-frequency cuts
  (:func:`equal_frequency_cuts`, SLS), entropy-MDL cuts topped up with
  equal-frequency ones (:func:`numeric_cuts`, ROCCER) and the paper's
  intervals (:func:`interval_cuts`, ROCCER); Orange's discretisers are
  called in one place (:func:`orange_points`).
* **Codings**, the binned table as a search reads it, and the way back
  from its codes to conditions: :func:`search_data` (EVC's beam search,
  whose kernel turns a bin into a threshold from the bins' smallest and
  largest values), :func:`interval_codes` and :func:`canonical_rule_set`
  (SLS's local search and its rule sets as conditions), :func:`make_items`
  (ROCCER's items: a bitset and its conditions per literal). SLIPPER reads
  the encoding's presorted columns.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from Orange.base import Learner
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.preprocess import Discretize
from Orange.preprocess.discretize import EntropyMDL, EqualFreq
from Orange.preprocess.transformation import Transformation

from .core import KIND_CONTINUOUS, KIND_DISCRETE, SearchData, column_mask, pack_bits
from .rules import OPERATORS, Condition, dense_X

MISSING_CODE = -1


@dataclass
class EncodedData:
    """A table as the Cython core sees it.

    ``attr_kind[a]``/``attr_col[a]`` say where attribute ``a`` of the domain
    lives: column ``attr_col[a]`` of ``Xd`` (discrete) or of ``Xc``
    (continuous). ``Xc`` of a sparse table stays sparse (CSC) unless the
    learner reads the sort order; read its columns with :meth:`column`.
    """

    Xd: np.ndarray          # int32 (n, n_disc), MISSING_CODE for unknown
    Xc: np.ndarray          # float64 (n, n_cont), NaN for unknown (or CSC)
    order: np.ndarray       # int32 (n_cont, n): argsort per column, NaN last
                            # ((n_cont, 0) when the learner does not read it
                            # or Xc is sparse: see stored_order)
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
        size = sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))
        if sp.issparse(self.Xc):
            size += self.Xc.data.nbytes + self.Xc.indices.nbytes + self.Xc.indptr.nbytes
        return object.__sizeof__(self) + size

    def column(self, j: int) -> np.ndarray:
        """Numeric column ``j`` of ``Xc``: ``n`` float64 values, NaN for
        unknown; made dense on its own when ``Xc`` is sparse."""
        if not sp.issparse(self.Xc):
            return self.Xc[:, j]
        start, end = self.Xc.indptr[j], self.Xc.indptr[j + 1]
        x = np.zeros(self.n)
        x[self.Xc.indices[start:end]] = self.Xc.data[start:end]
        return x

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
        Xc = (sp.csc_matrix(self.Xc[rows]) if sp.issparse(self.Xc)
              else np.ascontiguousarray(self.Xc[rows]))
        return EncodedData(
            Xd=np.ascontiguousarray(self.Xd[rows]), Xc=Xc, order=order,
            n_valid=_n_valid(Xc),
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


def _n_valid(Xc) -> np.ndarray:
    """Non-missing values per column of ``Xc`` (dense or CSC)."""
    if not sp.issparse(Xc):
        return (~np.isnan(Xc)).sum(axis=0).astype(np.int32)
    column_of = np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))
    missing = np.bincount(column_of[np.isnan(Xc.data)], minlength=Xc.shape[1])
    return (Xc.shape[0] - missing).astype(np.int32)


def stored_order(Xc) -> tuple:
    """The sort order of a sparse (CSC) ``Xc``'s columns, of their stored
    non-zero entries only (a column's zeros are one block between its
    negative and its positive values): ``(indptr, rows, values, n_neg,
    n_valid)``; column ``j`` is ``rows[indptr[j]:indptr[j + 1]]`` with
    ``values`` ascending, missing (NaN) last, its first ``n_neg[j]``
    negative and first ``n_valid[j]`` not missing. Memory and time in
    proportion to the non-zeros."""
    Xc = sp.csc_matrix(Xc)
    column_of = np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))
    keep = Xc.data != 0  # stored zeros (and -0.0) belong to the zero block
    values, rows, column_of = Xc.data[keep], Xc.indices[keep], column_of[keep]
    sort = np.lexsort((values, column_of))  # by column, then value (NaN last)
    values, rows, column_of = values[sort], rows[sort], column_of[sort]
    count = np.bincount(column_of, minlength=Xc.shape[1])
    indptr = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
    n_neg = np.bincount(column_of[values < 0], minlength=Xc.shape[1]).astype(np.int32)
    n_valid = np.bincount(column_of[~np.isnan(values)],
                          minlength=Xc.shape[1]).astype(np.int32)
    return (indptr, np.ascontiguousarray(rows, dtype=np.int32),
            np.ascontiguousarray(values, dtype=np.float64), n_neg, n_valid)


def encode_table(data: Table, with_order: bool = True) -> EncodedData:
    """Encode ``data`` (discrete class, no unknown class values) once.

    ``with_order``: also the sort order of every numeric column. A sparse
    table's numeric columns stay sparse (CSC, memory in proportion to the
    non-zeros) and get no ``order``: a learner that sorts them sorts their
    stored entries (:func:`stored_order`). Its discrete columns are made
    dense."""
    domain = data.domain
    if domain.class_var is None or not domain.class_var.is_discrete:
        raise ValueError("encode_table needs a categorical class variable")
    kind, col, disc, cont = attribute_layout(domain)
    n = len(data)
    if sp.issparse(data.X):  # the columns taken from CSC: X is never dense whole
        X = sp.csc_matrix(data.X, dtype=np.float64)

        def columns(cols, dense=True):
            part = sp.csc_matrix(X[:, cols]) if len(cols) else sp.csc_matrix((n, 0))
            part.sum_duplicates()
            return np.ascontiguousarray(part.toarray()) if dense else part
    else:
        X = dense_X(data.X)

        def columns(cols, dense=True):
            return np.ascontiguousarray(X[:, cols])

    n_values = np.array([len(domain.attributes[a].values) for a in disc],
                        dtype=np.int32)
    Xd_float = columns(disc)
    Xd = np.full(Xd_float.shape, MISSING_CODE, dtype=np.int32)
    ok = np.isfinite(Xd_float) & (Xd_float >= 0) & (Xd_float < n_values)
    Xd[ok] = Xd_float[ok].astype(np.int32)
    Xd = np.ascontiguousarray(Xd)
    del Xd_float, ok

    Xc = columns(cont, dense=False)
    if sp.issparse(Xc):
        Xc.data[~np.isfinite(Xc.data)] = np.nan  # +-inf is treated as unknown
    else:
        Xc[~np.isfinite(Xc)] = np.nan
    if with_order and len(cont) and not sp.issparse(Xc):
        order = np.ascontiguousarray(np.argsort(Xc, axis=0, kind="stable").T,
                                     dtype=np.int32)
    else:
        order = np.zeros((len(cont), n if with_order and not sp.issparse(Xc) else 0),
                         dtype=np.int32)
    n_valid = _n_valid(Xc)

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


# --------------------------------------------------- one encoding per fit

#: ``(learner id, table, encoding)`` lent by :func:`shared_encoding`
_LENT: ContextVar = ContextVar("orange_rules_lent_encoding", default=None)


@contextmanager
def shared_encoding(learner, data: Table, enc: EncodedData):
    """While the block runs, a fit of ``learner`` on ``data`` (this fit's
    table, already preprocessed and encoded as ``enc``) uses ``enc``
    instead of encoding the table again. Lent only when ``learner``
    preprocesses with its defaults (which leave such a table's rows as they
    are); a learner given its own preprocessors, or with preprocessing of
    its class's own (SLS), encodes what they make."""
    lend = ("preprocessors" not in vars(learner)
            and type(learner).active_preprocessors is Learner.active_preprocessors)
    token = _LENT.set((id(learner), data.domain, enc) if lend else None)
    try:
        yield
    finally:
        _LENT.reset(token)


def lent_encoding(learner, data: Table, with_order: bool) -> EncodedData | None:
    """The encoding :func:`shared_encoding` lends ``learner`` for ``data``
    (the same domain and rows), or ``None``; taken once: a fit the
    learner's own fit starts (on other rows) encodes its own table."""
    lent = _LENT.get()
    if lent is None:
        return None
    learner_id, domain, enc = lent
    if learner_id != id(learner) or data.domain != domain or len(data) != enc.n \
            or (with_order and not sp.issparse(enc.Xc) and enc.order.shape[1] != enc.n):
        return None
    _LENT.set(None)
    return enc


# ---------------------------------------------------------- printable cuts

def significant_digits(x: float) -> int:
    """Significant decimal digits of the shortest decimal that reads back
    as ``x`` (``0`` has one): the digits of ``repr(x)`` without sign,
    exponent, point and the zeros before the first and after the last
    other digit (what ``Decimal(repr(x)).normalize()`` keeps, read off the
    string: a model's thresholds take many such counts)."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return 1
    return len(repr(x).partition("e")[0].replace("-", "").replace(".", "").strip("0"))


def simplest_between(lo: float, hi: float, lo_open: bool, hi_open: bool,
                     target: float | None = None) -> float | None:
    """The number of the fewest significant decimal digits in the interval
    from ``lo`` to ``hi`` (each end open or closed), the one nearest
    ``target`` (default: the middle) among those; ``None`` if the interval
    is empty. A threshold between two neighbouring training values may be
    any number that still splits them: this one reads best."""
    from decimal import ROUND_FLOOR, Decimal
    lo, hi = float(lo), float(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi or (
            lo == hi and (lo_open or hi_open)):
        return None
    if target is None:  # the middle, without overflow near 1.8e308
        target = 0.5 * (lo + hi) if abs(lo) < 1e307 and abs(hi) < 1e307 else 0.5 * lo + 0.5 * hi
    target = float(target)

    def inside(v):
        return (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)

    if inside(0.0):
        return 0.0
    for d in range(1, 18):
        # the numbers of d digits nearest the target and nearest either end
        found = []
        for x in (target, lo, hi):
            if x == 0:
                continue
            e = math.floor(math.log10(abs(x))) - d + 1
            # x / 10**e in decimal: 10.0**e under- or overflows near 1e-308
            k = int((Decimal(repr(x)).scaleb(-e)).to_integral_value(ROUND_FLOOR))
            for kk in range(k - 1, k + 3):
                v = float(f"{kk}e{e}")
                if inside(v) and significant_digits(v) <= d:
                    found.append(v)
        if found:
            return min(found, key=lambda v: (abs(v - target), v))
    return target if inside(target) else None


def simplest_cuts(values, cuts) -> np.ndarray:
    """Cut points ``t`` (a value ``>= t`` is above the cut) moved to the
    shortest number that splits the training ``values`` the same way;
    sorted and distinct."""
    return np.unique([simplest_threshold(values, ">=", float(t)) for t in cuts]
                     ).astype(float)


class ShortThresholds:
    """:func:`simplest_threshold` for many conditions on the columns of one
    training table: each column sorted once, each ``(column, op, t)``
    answered once (``column(j)`` gives column ``j``'s values)."""

    def __init__(self, column):
        self.column = column
        self.sorted, self.whole, self.done = {}, {}, {}

    def __call__(self, j, op: str, t: float) -> float:
        key = (j, op, float(t))
        if key not in self.done:
            if j not in self.sorted:
                v = np.asarray(self.column(j), dtype=float)
                self.sorted[j] = np.unique(v[np.isfinite(v)])
                self.whole[j] = _whole_numbers(self.sorted[j])
            self.done[key] = _simplest_in_sorted(self.sorted[j], op, float(t), self.whole[j])
        return self.done[key]


def simplest_threshold(values, op: str, t: float) -> float:
    """A threshold with the fewest digits that splits the training
    ``values`` exactly as ``op`` at ``t`` does (``<=``, ``>=``, ``<``); ``t``
    if none is shorter. Missing values are ignored."""
    v = np.asarray(values, dtype=float)
    return _simplest_in_sorted(np.sort(v[np.isfinite(v)]), op, float(t))


def _simplest_in_sorted(v, op: str, t: float, whole: bool | None = None) -> float:
    """:func:`simplest_threshold` on ``v``, finite values in ascending order.
    On a column whose values are all whole numbers (counts, codes, ratings)
    the cut is a value of the data: ``A <= 0`` rather than ``A <= 0.5``,
    ``A >= 1`` and ``A < 1`` rather than ``A >= 0.5`` and ``A < 0.5``, the
    same split of every value the column can hold."""
    if op == "<=":  # covers <= t: any t' in [a, b) with a the largest covered
        k = int(np.searchsorted(v, t, side="right"))  # v[:k] <= t < v[k:]
        lo_open, hi_open = False, True
    elif op in (">=", "<"):  # the split falls in (a, b], b the smallest >= t
        k = int(np.searchsorted(v, t, side="left"))  # v[:k] < t <= v[k:]
        lo_open, hi_open = True, False
    else:
        return t
    lo = float(v[k - 1]) if k > 0 else -np.inf
    hi = float(v[k]) if k < len(v) else np.inf
    if not np.isfinite(lo) or not np.isfinite(hi):
        return t
    if _whole_numbers(v) if whole is None else whole:
        return lo if op == "<=" else hi  # the end of the interval that is a data value
    best = simplest_between(lo, hi, lo_open, hi_open, target=t)
    return t if best is None or significant_digits(best) >= significant_digits(t) else best


def _whole_numbers(v) -> bool:
    """Whether every (finite) value of ``v`` is a whole number."""
    v = np.asarray(v, dtype=float)
    return bool(len(v)) and bool(np.all(v == np.floor(v))) and bool(np.all(np.abs(v) < 2 ** 53))


# ---------------------------------------------------------------- binnings

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


def column_table(data: Table, var) -> Table:
    """``data`` with the one attribute ``var``, dense: Orange's
    discretisers read a sparse column's stored values only (its zeros do
    not count), which would make the cuts of a sparse table differ from
    those of the same table dense."""
    if not sp.issparse(data.X):
        return data
    return Table.from_numpy(Domain([var], data.domain.class_var),
                            data.get_column(var)[:, None], data.Y,
                            W=data.W if data.has_weights() else None)


def orange_points(method, data: Table, var) -> np.ndarray:
    """The finite cut points Orange's discretisation ``method``
    (``EntropyMDL()``, ``EqualFreq(n=k)``) puts on the numeric ``var`` of
    ``data``; none where it cannot cut (e.g. no weight, a constant column)."""
    try:
        points = getattr(method(column_table(data, var), var).compute_value, "points", [])
    except (AssertionError, ValueError, ZeroDivisionError, FloatingPointError):
        points = []
    points = np.asarray(points, dtype=float)
    return points[np.isfinite(points)]


def equal_frequency_cuts(data: Table, var, n_intervals: int) -> np.ndarray:
    """The cut points of Orange's equal-frequency discretisation of ``var``
    into ``n_intervals`` (sorted, distinct, each the shortest number between
    the same two training values; none for a constant column)."""
    return simplest_cuts(data.get_column(var),
                         orange_points(EqualFreq(n=n_intervals), data, var))


def numeric_cuts(data: Table, var, min_cuts: int, max_cuts: int | None = None) -> np.ndarray:
    """Cut points of a numeric attribute: Fayyad & Irani's entropy-MDL cuts
    (Orange's ``EntropyMDL``), and when there are fewer than ``min_cuts`` of
    them, the equal-frequency cuts into ``min_cuts + 1`` intervals as well, so
    that rules of a few conditions can still follow a curved boundary; at
    most ``max_cuts`` of them, evenly spaced among them."""
    cuts = orange_points(EntropyMDL(), data, var)
    if len(cuts) < min_cuts:
        cuts = np.r_[cuts, orange_points(EqualFreq(n=min_cuts + 1), data, var)]
    cuts = simplest_cuts(data.get_column(var), cuts)
    if max_cuts is not None and len(cuts) > max_cuts:
        cuts = cuts[np.unique(np.round(np.linspace(0, len(cuts) - 1, max_cuts)).astype(int))]
    return cuts


def interval_attributes(data: Table, n_intervals: int) -> Table:
    """``data`` with every numeric attribute replaced by a nominal one of
    Orange's ``n_intervals`` equal-frequency intervals (SLS's paper
    encoding, ``numeric="intervals"``)."""
    return Discretize(EqualFreq(n=n_intervals), remove_const=False)(data)


def interval_cuts(data: Table, var, n_fallback: int = 4) -> np.ndarray:
    """The ROCCER paper's discretisation: entropy-MDL cuts, or
    ``n_fallback`` equal-frequency intervals where MDL finds none."""
    cuts = orange_points(EntropyMDL(), data, var)
    if not len(cuts):
        cuts = orange_points(EqualFreq(n=n_fallback), data, var)
    return simplest_cuts(data.get_column(var), cuts)


# ----------------------------------------------------------------- codings

def search_data(enc: EncodedData, max_thresholds: int | None = None):
    """The encoded table as the EVC beam search reads it
    (:class:`core.SearchData`): discrete columns as they are, continuous
    columns as :func:`ordinal_bins`. Returns ``(data, attrs)``, ``attrs[f]``
    the domain attribute of feature ``f``."""
    n, n_disc, n_cont = enc.n, enc.Xd.shape[1], enc.Xc.shape[1]
    n_bins, lo, hi = list(enc.n_values), [], []
    for v in enc.n_values:
        lo.append(np.zeros(v))
        hi.append(np.zeros(v))
    # written column by column, as the search reads them (Fortran order:
    # SearchData takes them without a copy)
    codes = np.empty((n, n_disc + n_cont), dtype=np.int32, order="F")
    codes[:, :n_disc] = enc.Xd
    for j in range(n_cont):
        codes[:, n_disc + j], l, h = ordinal_bins(enc.column(j), max_thresholds, enc.w)
        n_bins.append(len(l))
        lo.append(l)
        hi.append(h)
    ordinal = np.r_[np.zeros(enc.Xd.shape[1]), np.ones(enc.Xc.shape[1])].astype(np.int8)
    attrs = np.r_[enc.disc_attrs, enc.cont_attrs].astype(np.int32)
    def cat(a):
        return np.concatenate(a) if a else np.zeros(0)
    return SearchData(codes, np.array(n_bins, dtype=np.int32), ordinal,
                      cat(lo), cat(hi), enc.w), attrs


def interval_codes(data: Table, enc: EncodedData, n_intervals: int):
    """The table as :class:`core.SLSData` codes it: ``(codes, n_bins,
    ordinal, cuts)``. A discrete attribute's codes are its value indices; a
    numeric one's are the index of its equal-frequency bin
    (:func:`equal_frequency_cuts`; ``code >= j`` is ``A >= cuts[a][j -
    1]``, ``code <= j`` is ``A < cuts[a][j]``); ``-1`` is missing. ``data``
    is the table ``enc`` encodes (the discretiser reads its columns)."""
    m, A = enc.n, len(data.domain.attributes)
    codes = np.full((m, A), MISSING_CODE, dtype=np.int32)
    n_bins = np.empty(A, dtype=np.int32)
    ordinal = np.zeros(A, dtype=np.int8)
    cuts = [None] * A
    for a, var in enumerate(data.domain.attributes):
        col = enc.attr_col[a]
        if var.is_discrete:
            n_bins[a] = max(len(var.values), 1)
            codes[:, a] = enc.Xd[:, col]
            continue
        x = enc.column(col)
        known = ~np.isnan(x)
        cuts[a] = equal_frequency_cuts(data, var, n_intervals)
        ordinal[a], n_bins[a] = 1, len(cuts[a]) + 1
        codes[known, a] = np.searchsorted(cuts[a], x[known], side="right")
    return codes, n_bins, ordinal, cuts


def canonical_rule_set(rules: np.ndarray, ordinal, n_bins, cuts) -> tuple:
    """The rule set of :func:`core.sls_search`'s ``(k, n_attrs, 2)`` array,
    its literals as conditions on the domain's attributes (a nominal value
    ``(a, "==", v)``, a lower bound ``(a, ">=", t)``, an upper bound ``(a,
    "<", t)`` at the cut points ``cuts[a]``), each rule's in the order of
    its attributes, a lower bound before an upper one."""
    ordinal = np.asarray(ordinal, dtype=bool)
    nbm = np.asarray(n_bins) - 1
    lo, hi = rules[:, :, 0], rules[:, :, 1]
    has_lo = np.where(ordinal, lo > 0, lo >= 0)
    has_hi = ordinal & (hi < nbm)
    out = set()
    for t in range(len(rules)):
        rule = []
        lo_t, hi_t = lo[t].tolist(), hi[t].tolist()
        for a in np.flatnonzero(has_lo[t] | has_hi[t]).tolist():
            if not ordinal[a]:
                rule.append((a, "==", float(lo_t[a])))
                continue
            if has_lo[t, a]:
                rule.append((a, ">=", float(cuts[a][lo_t[a] - 1])))
            if has_hi[t, a]:
                rule.append((a, "<", float(cuts[a][hi_t[a]])))
        out.add(tuple(rule))
    return tuple(sorted(out))


# ------------------------------------------------------------ ROCCER's items

@dataclass
class Items:
    """The items ROCCER mines: their coverage bitsets, the group of each (an
    itemset takes at most one item of a group) and the conditions each one
    stands for (one, or two for an interval), on the attributes of the
    training data."""

    bits: np.ndarray        # uint64 (n_items, words)
    group: np.ndarray       # int32 (n_items,), non-decreasing
    conditions: list        # a tuple of Conditions per item


def make_items(data: Table, enc, min_cuts: int, max_cuts: int | None = None,
               numeric: str = "thresholds", report=None) -> Items:
    """Items of every attribute: ``A = v`` for the values of a discrete one
    (one group). A numeric one, with ``numeric="thresholds"``: ``A >= t``
    (a group) and ``A < t`` (another) for its cuts (:func:`numeric_cuts`),
    so an itemset holds at most one bound of each kind, an interval; with
    ``numeric="intervals"`` (the paper's encoding): one item per interval
    between the cuts of :func:`interval_cuts` (one group). A missing value
    is in no item. ``report(a)``, if given, is called before attribute ``a``
    (a progress report, which may stop the fit)."""
    bits, groups, conditions = [], [], []

    def add(x, conds, group):  # the rows an item covers: the core's test
        covered = np.ones(len(x), dtype=bool)
        for c in conds:
            covered &= column_mask(x, OPERATORS[c.op], c.value)
        bits.append(pack_bits(covered.view(np.uint8)))
        groups.append(group)
        conditions.append(conds)

    group = 0
    for a, var in enumerate(data.domain.attributes):
        if report is not None:  # before each attribute (its cuts take a while)
            report(a)
        col = enc.attr_col[a]
        if var.is_discrete:
            codes = enc.Xd[:, col].astype(float)  # -1, missing, equals no value
            for v in range(len(var.values)):
                add(codes, (Condition(a, "==", v),), group)
            group += 1
            continue
        x = enc.column(col)
        if numeric == "intervals":
            cuts = interval_cuts(data, var)
            if not len(cuts):
                continue
            edges = np.r_[-np.inf, cuts, np.inf]
            for lo, hi in zip(edges[:-1], edges[1:]):
                bounds = []
                if np.isfinite(lo):
                    bounds.append(Condition(a, ">=", float(lo)))
                if np.isfinite(hi):
                    bounds.append(Condition(a, "<", float(hi)))
                add(x, tuple(bounds), group)
            group += 1
            continue
        cuts = numeric_cuts(data, var, min_cuts, max_cuts)
        if not len(cuts):
            continue
        for op in (">=", "<"):
            for t in cuts:
                add(x, (Condition(a, op, float(t)),), group)
            group += 1
    n = enc.n
    if not bits:
        return Items(np.zeros((0, (n + 63) // 64), np.uint64), np.zeros(0, np.int32), [])
    return Items(np.array(bits),
                 np.array(groups, dtype=np.int32), conditions)


# ------------------------------------------------ unknown values as features
class UnknownAsValue(Transformation):
    """The values of a discrete variable, with unknowns mapped to the extra
    value index ``n_values`` (the value ``unknown`` of SLS's preprocessor,
    :class:`~orangecontrib.rules.sls.SLSPreprocessor`)."""

    def __init__(self, variable, n_values):
        super().__init__(variable)
        self.n_values = int(n_values)

    @property
    def unknown_index(self) -> int:
        """The index of the value ``unknown`` (rules print ``A is unknown``)."""
        return self.n_values

    def transform(self, c):
        c = np.array(c, dtype=float)
        c[np.isnan(c)] = self.n_values
        return c

    def __eq__(self, other):
        return super().__eq__(other) and self.n_values == other.n_values

    def __hash__(self):
        return hash((super().__hash__(), self.n_values))


class IsUnknown(Transformation):
    """1 where a value is missing, 0 where it is known: the values of the
    indicator SLS's preprocessor adds for a numeric attribute with
    missing values."""

    InheritEq = True  # equal when made from the same variable

    def transform(self, c):
        return np.isnan(np.asarray(c, dtype=float)).astype(float)
