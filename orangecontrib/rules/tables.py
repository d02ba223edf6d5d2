"""The tables a learner and a model accept: clear errors for what Orange
lets through but no fit can use (:func:`check_table`, :func:`check_weights`,
:func:`check_sparse_memory`), the rows a fit learns from
(:func:`usable_rows`, :func:`stratified_rows`), and a table's discrete
values mapped to a model's by name (:func:`map_values_by_name`,
:func:`class_codes`)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from Orange.data import Domain, Table

from .rules import dense_X


#: continuous values beyond this magnitude are refused (discretisers and
#: solvers overflow on them); rescale such a column first
MAX_MAGNITUDE = 1e250


def _bad_codes(values, n_values: int) -> np.ndarray:
    """The distinct codes in ``values`` that are not NaN and not one of
    ``0..n_values-1``."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    bad = (v < 0) | (v >= n_values) | (v != np.round(v))
    return np.unique(v[bad])


def _columns(data: Table):
    """``(j, values)`` for every attribute column of ``data``: a sparse
    ``X``'s column as its stored values, with a 0 appended when the column
    has implicit zeros (one pass over the non-zeros, never densified)."""
    X = data.X
    if not sp.issparse(X):
        X = np.asarray(X)
        for j in range(X.shape[1]):
            yield j, np.asarray(X[:, j], dtype=float)
        return
    X = sp.csc_matrix(X)
    for j in range(X.shape[1]):
        stored = np.asarray(X.data[X.indptr[j]:X.indptr[j + 1]], dtype=float)
        yield j, stored if len(stored) == X.shape[0] else np.append(stored, 0.0)


def check_table(data: Table, fitting: bool = True):
    """Clear errors for codes Orange's ``Table.from_numpy`` lets through:
    a class or discrete attribute value that is not one of the variable's
    values (e.g. labels 1/2 or -1/+1 for a two-valued class), and numeric
    values too large to discretise or fit. Each message names the column
    and the value. ``fitting=False`` (prediction) checks only the codes of
    discrete attributes."""
    domain = data.domain
    cv = domain.class_var
    if fitting and cv is not None and cv.is_discrete and len(data):
        bad = _bad_codes(data.Y if data.Y.ndim == 1 else data.Y[:, 0], len(cv.values))
        if len(bad):
            raise ValueError(
                f"class '{cv.name}' has codes {_listing(bad)} that are not indices of "
                f"its {len(cv.values)} values ({_listing(cv.values)}); codes must be "
                f"0..{len(cv.values) - 1} (build the table with the class's values, "
                "e.g. Table.from_numpy with y mapped to value indices)")
    if fitting and data.has_weights() and len(data):
        check_weights(data.W)
    if not len(data):
        return
    for j, col in _columns(data):
        var = domain.attributes[j]
        if var.is_discrete:
            bad = _bad_codes(col, len(var.values))
            if len(bad):
                raise ValueError(
                    f"attribute '{var.name}' has codes {_listing(bad)} that are not "
                    f"indices of its {len(var.values)} values "
                    f"({_listing(var.values)})")
        elif fitting and var.is_continuous:
            big = np.abs(col[np.isfinite(col)])
            if big.size and big.max() > MAX_MAGNITUDE:
                raise ValueError(
                    f"attribute '{var.name}' has values of magnitude {big.max():.3g}; "
                    f"values beyond {MAX_MAGNITUDE:.0e} cannot be discretised or "
                    "fitted reliably: rescale the column")


#: the least total example weight a fit accepts: the learners divide by
#: the total (to scale weights to the number of rows) and by class totals
MIN_TOTAL_WEIGHT = 1e-100


def check_weights(W):
    """Clear errors for example weights no fit can use: NaN, infinite or
    negative weights, a total that overflows, or a positive total so
    small (below ``MIN_TOTAL_WEIGHT``, e.g. subnormal weights) that
    dividing by it overflows. Weights count as that many rows: multiply
    all of them by one constant to bring them into range."""
    w = np.asarray(W, dtype=float).reshape(-1)
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("example weights must be finite and non-negative")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise ValueError(f"example weights sum to more than {np.finfo(float).max:.3g}; "
                         "divide them all by one constant")
    if 0 < total < MIN_TOTAL_WEIGHT:
        raise ValueError(f"example weights sum to {total:.3g}, too little to fit "
                         f"(at least {MIN_TOTAL_WEIGHT:g}); multiply them all by one "
                         "constant (a weight counts as that many rows)")


def _listing(values, most=5) -> str:
    items = [f"{v:g}" if isinstance(v, (float, np.floating)) else str(v) for v in values]
    return ", ".join(items[:most]) + (", ..." if len(items) > most else "")


def map_values_by_name(data: Table, domain: Domain) -> Table:
    """``data`` with every discrete variable that has the name of one of
    ``domain``'s but lists its values in another order (or other values)
    replaced by ``domain``'s, its codes mapped by value name; a value the
    model's variable does not have becomes unknown. Orange treats two such
    variables as equal and would read the codes in the wrong order."""
    ref = {v.name: v for v in domain.variables if v.is_discrete}
    changed = {}
    for j, var in enumerate(data.domain.variables):
        other = ref.get(var.name)
        if var.is_discrete and other is not None and tuple(var.values) != tuple(other.values):
            index = {name: k for k, name in enumerate(other.values)}
            changed[var] = (other, np.array([index.get(v, np.nan) for v in var.values]
                                            + [np.nan]))
    if not changed:
        return data

    def remap(var, col):
        _, lookup = changed[var]
        codes = np.where(np.isnan(col), len(lookup) - 1, col).astype(int)
        codes[(codes < 0) | (codes >= len(lookup))] = len(lookup) - 1
        return lookup[codes]

    attrs = list(data.domain.attributes)
    todo = [j for j, var in enumerate(attrs) if var in changed
            and var.name == changed[var][0].name and var is not changed[var][0]]
    if sp.issparse(data.X):  # the remapped columns replaced, the rest kept sparse
        X = sp.csc_matrix(data.X, dtype=np.float64)
        pieces, start = [], 0
        for j in todo:
            pieces += [X[:, start:j], sp.csc_matrix(
                remap(attrs[j], X[:, j].toarray().ravel())[:, None])]
            start = j + 1
        X = sp.hstack(pieces + [X[:, start:]], format="csr")
    else:
        X = dense_X(data.X).copy()
        for j in todo:
            X[:, j] = remap(attrs[j], X[:, j])
    for j in todo:
        attrs[j] = changed[attrs[j]][0]
    Y = np.array(data.Y, dtype=float, copy=True)
    classes = list(data.domain.class_vars)
    for j, var in enumerate(classes):
        if var in changed:
            if Y.ndim == 1:
                Y = remap(var, Y)
            else:
                Y[:, j] = remap(var, Y[:, j])
            classes[j] = changed[var][0]
    new = Domain(attrs, classes, data.domain.metas)
    return Table.from_numpy(new, X, Y, data.metas, data.W if data.has_weights() else None)


def class_codes(data: Table, class_var) -> np.ndarray:
    """Per row of ``data``, the index of its class value among
    ``class_var``'s values, matched by value name (the table may list the
    values in another order, or only some of them); ``-1`` for an unknown
    class or a value ``class_var`` does not have (all of them for a table
    without a discrete class)."""
    cv = data.domain.class_var
    n = len(data)
    if cv is None or not cv.is_discrete or not n:
        return np.full(n, -1, dtype=int)
    index = {name: k for k, name in enumerate(class_var.values)}
    lookup = np.array([index.get(name, -1) for name in cv.values] + [-1], dtype=int)
    y = np.asarray(data.Y, dtype=float).reshape(n, -1)[:, 0]
    codes = np.where(np.isnan(y), len(lookup) - 1, y).astype(int)
    codes[(codes < 0) | (codes >= len(lookup))] = len(lookup) - 1
    return lookup[codes]


def usable_rows(data: Table) -> Table:
    """``data`` without the rows a rule learner cannot use: those with an
    unknown class, and those of weight 0 (an example of weight 0 counts
    for nothing, so it must not create a candidate threshold or move a
    discretiser's cut either). If every row has weight 0, the rows with a
    known class are kept (the fit then gives the prior)."""
    cv = data.domain.class_var
    if cv is None or not len(data):
        return data
    y = np.asarray(data.Y, dtype=float).reshape(len(data), -1)[:, 0]
    keep = ~np.isnan(y)
    if data.has_weights():
        w = np.asarray(data.W, dtype=float).reshape(-1)
        positive = keep & (w > 0)
        if positive.any():
            keep = positive
    return data if keep.all() else data[keep]


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (psutil's estimate,
    else Linux's ``MemAvailable``), or ``None`` where neither is known."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _size(n_bytes: float) -> str:
    return (f"{n_bytes / 2 ** 30:.1f} GB" if n_bytes >= 2 ** 30
            else f"{n_bytes / 2 ** 20:.0f} MB")


def check_sparse_memory(name: str, data: Table, bytes_per_cell: float):
    """Before a fit allocates anything: a clear MemoryError when a sparse
    table's ``rows x columns`` cells times ``bytes_per_cell`` (what the
    learner holds per cell while it fits, :attr:`RuleLearner.bytes_per_cell`)
    exceed the memory available. Nothing to check for a dense table (it
    already holds 8 bytes a cell), a learner whose memory follows the
    non-zeros (``bytes_per_cell == 0``) or where the memory is not known."""
    if not sp.issparse(data.X) or not bytes_per_cell:
        return
    n, p = data.X.shape
    need = float(n) * p * bytes_per_cell
    free = available_memory()
    if free is not None and need > free:
        learner = name[:1].upper() + name[1:]
        raise MemoryError(
            f"{learner} holds about {bytes_per_cell:g} bytes per cell of a sparse table "
            f"while it learns: {n:,} rows x {p:,} columns need about {_size(need)}, "
            f"and {_size(free)} are available. SLIPPER learns from a sparse table "
            "in memory in proportion to its non-zeros; or keep fewer columns first "
            "(e.g. Preprocess: Select Relevant Features).")


def stratified_rows(y, size: int, rng, classes=None, exact=False) -> np.ndarray:
    """The sorted row indices of a sample of about ``size`` of the rows of
    class codes ``y``, drawn without replacement by ``rng``: each class in
    its share, rounded, and at least one row of each class present.
    ``classes``: the order in which the classes draw (default: their
    codes ascending). ``exact``: the shares rounded down and the rows this
    leaves given to the classes of the largest remainders, so exactly
    ``size`` rows (a few more only when classes too rare for a row each
    keep one)."""
    y = np.asarray(y)
    n = len(y)
    members = [np.flatnonzero(y == c) for c in (np.unique(y) if classes is None else classes)]
    members = [m for m in members if len(m)]
    shares = np.array([len(m) for m in members]) * size / n if n else np.zeros(0)
    if exact:
        takes = np.maximum(1, np.floor(shares)).astype(int)
        extra = max(0, size - int(takes.sum()))
        # to the largest remainders among the classes with a row to spare
        spare = [c for c in np.argsort(-(shares - np.floor(shares)), kind="stable")
                 if takes[c] < len(members[c])]
        for c in spare[:extra]:
            takes[c] += 1
    else:
        takes = [max(1, int(round(size * len(m) / n))) for m in members]
    rows = [rng.choice(m, size=min(int(t), len(m)), replace=False)
            for m, t in zip(members, takes)]
    return np.sort(np.concatenate(rows)) if rows else np.zeros(0, dtype=np.intp)
