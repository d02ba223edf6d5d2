"""L2-penalised logistic regression: the solvers LR with rules and ROCCER
fit their models with (Možina et al. 2019, Section 4.3.3, eq. 19-22;
doc/evc.md).

The loss of a binary model with an intercept ``b0``, weights ``w`` on the
columns of ``X`` and ``b`` on those of a second block ``R`` (the rule
indicators of LR with rules) is eq. 21,

    L = -sum_i v_i log phi(y_i f_i) + lambda/2 (|w|^2 + |b|^2) + sum_k gamma_k |b_k|,

``f_i = b0 + x_i w + r_i b``, with example weights ``v_i`` and an
unpenalised intercept; without ``R`` it is plain L2 logistic regression
(eq. 19, gradient eq. 20). The ``|b_k|`` term is made smooth and exact by
splitting ``b = b+ - b-`` with ``b+, b- >= 0`` and minimising with
L-BFGS-B under those bounds, with the analytic gradient.

* two classes: :func:`fit_binary` (eq. 21), :func:`fit_l2` (eq. 19:
  Newton's method up to ``NEWTON_MAX_FEATURES`` columns, else L-BFGS);
* more classes, the softmax link: :func:`fit_multinomial` (eq. 21 with
  each column of ``R`` weighing on one class's log-odds),
  :func:`multinomial_l2` (without ``R``: Newton or L-BFGS);
* ``lambda`` by internal cross-validation of the model without ``R``:
  :func:`choose_lambda`.

Arrays in, arrays out: nothing here knows of Orange, rules or learners.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from .core import IndicatorMatrix

#: the L2 weights internal CV chooses from (:func:`choose_lambda`)
DEFAULT_LAMBDAS = tuple(float(x) for x in np.logspace(-2, 3, 11))


# ------------------------------------------------------------ two classes
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


def fit_binary(X, R, y, v, lam, gamma, max_iter=2000, start=None, tol=1e-9):
    """Minimise eq. 21 (L-BFGS-B, ``b+``, ``b-`` bounded below by 0).
    Returns ``(b0, w, b)``; ``start``: a previous ``(b0, w, b)`` to start
    from (a warm start along a path of ``lambda``); ``tol``: L-BFGS-B's
    relative decrease at which it stops."""
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
    R, Rt = fast_products(R)
    # ftol 1e-9 (about scipy's default) rather than a tighter one: the same
    # accuracy, AUC and log loss on the 12-set protocol to three decimals, in
    # fewer iterations (2e64135:benchmarks/probes/lrr_profile.py)
    res = minimize(loss_and_gradient, theta0, args=(X, R, y, v, lam, gamma, Rt),
                   jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(maxiter=max_iter, gtol=1e-6, ftol=tol, maxcor=50))
    theta = res.x
    return theta[0], theta[1:1 + p], theta[1 + p:1 + p + K] - theta[1 + p + K:]


def fast_products(R):
    """``(R, Rt)``: for a sparse ``R``, row-major copies of ``R`` and of its
    transpose (fast products; rule indicators without a data array), else
    ``(R, None)``."""
    if not sp.issparse(R):
        return R, None
    R = sp.csr_matrix(R)
    if not R.nnz or np.all(R.data == 1):  # rule indicators: no data array
        R = IndicatorMatrix(R)
        return R, R.T
    return R, sp.csr_matrix(R.T)


# ------------------------------------------------------------ many classes
def softmax_loss_and_gradient(theta, X, blocks, Y, v, lam, gamma):
    """Eq. 21 for ``C`` classes with the softmax link (a multinomial model):
    ``theta = [b0 (C), W (p x C, row-major), b+ (K), b- (K)]``, the log-odds
    of class ``j`` against a reference ``f_j = b0_j + X W_j + R_j b_j``
    where ``R_j`` holds the rules whose head is class ``j`` (each rule has
    one weight, on its own class, as in the one-vs-rest models), and

        L = -sum_i v_i log softmax(f_i)_{y_i} + lambda |W|^2 + lambda/2 |b|^2
            + sum_k gamma_k |b_k|.

    ``blocks``: per class ``(rule indices, R_j, R_j')`` (:func:`fast_products`),
    ``Y``: ``(n, C)`` 0/1 class indicators. The attributes' weight is
    ``lambda``, not ``lambda / 2``: on two classes the minimiser has
    ``W_1 = -W_0 = w / 2``, and ``lambda |W|^2 = lambda/2 |w|^2``, so the
    model is the binary eq. 21 with the same ``lambda`` (a rule of class 0
    weighs ``-b`` on the log-odds of class 1)."""
    n, p = X.shape
    C, K = Y.shape[1], len(gamma)
    b0 = theta[:C]
    W = theta[C:C + p * C].reshape(p, C)
    bp, bm = theta[C + p * C:C + p * C + K], theta[C + p * C + K:]
    b = bp - bm
    f = b0 + X @ W
    for j, (idx, Rj, _) in enumerate(blocks):
        if len(idx):
            f[:, j] += Rj @ b[idx]
    f -= f.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(f).sum(axis=1))
    nll = -np.dot(v, (f * Y).sum(axis=1) - log_norm)
    loss = nll + lam * np.sum(W * W) + 0.5 * lam * (b @ b) + gamma @ (bp + bm)
    G = v[:, None] * (np.exp(f - log_norm[:, None]) - Y)
    grad_b = lam * b
    for j, (idx, _, Rtj) in enumerate(blocks):
        if len(idx):
            grad_b[idx] += Rtj @ G[:, j]
    grad = np.concatenate((G.sum(axis=0), (X.T @ G + 2 * lam * W).ravel(),
                           grad_b + gamma, -grad_b + gamma))
    return loss, grad


def rule_blocks(R, heads, C):
    """Per class ``j < C``: ``(indices of the rules with head j, R_j, R_j')``
    for :func:`softmax_loss_and_gradient`."""
    heads = np.asarray(heads, dtype=int)
    out = []
    for j in range(C):
        idx = np.flatnonzero(heads == j)
        Rj, Rtj = fast_products(R[:, idx]) if len(idx) else (None, None)
        if Rtj is None and Rj is not None:
            Rtj = Rj.T
        out.append((idx, Rj, Rtj))
    return out


def fit_multinomial(X, R, heads, y, v, lam, gamma, n_classes, max_iter=2000, start=None,
                    tol=1e-9):
    """Minimise :func:`softmax_loss_and_gradient` (L-BFGS-B, ``b+``, ``b-``
    bounded below by 0). ``y``: class codes ``0 .. n_classes-1``, ``heads``:
    each rule's class. Returns ``(b0 (C), W (p x C), b (K))``; ``start``: a
    previous such triple, or ``(b0, W)`` (a warm start along a path)."""
    y = np.asarray(y, dtype=int)
    n, p = X.shape
    C = int(n_classes)
    K = len(gamma)
    Y = np.eye(C)[y]
    theta0 = np.zeros(C + p * C + 2 * K)
    if start is None:
        theta0[:C] = log_prior(y, v, C)
    else:
        theta0[:C], theta0[C:C + p * C] = start[0], np.ravel(start[1])
        if K:
            theta0[C + p * C:C + p * C + K] = np.maximum(start[2], 0)
            theta0[C + p * C + K:] = np.maximum(-start[2], 0)
    blocks = rule_blocks(R, heads, C) if K else [(np.zeros(0, int), None, None)] * C
    bounds = [(None, None)] * (C + p * C) + [(0.0, None)] * (2 * K)
    res = minimize(softmax_loss_and_gradient, theta0, args=(X, blocks, Y, v, lam, gamma),
                   jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(maxiter=max_iter, gtol=1e-6, ftol=tol, maxcor=50))
    t = res.x
    return t[:C], t[C:C + p * C].reshape(p, C), t[C + p * C:C + p * C + K] - t[C + p * C + K:]


def multinomial_l2(X, y, v, lam, n_classes, start=None, tol=1e-10):
    """The multinomial model without rules (:func:`fit_multinomial` with
    ``K = 0``): :func:`newton_multinomial` for a dense ``X`` with at most
    ``NEWTON_MAX_FEATURES`` weights in all, else L-BFGS. Returns ``(b0,
    W)``."""
    if sp.issparse(X) or (X.shape[1] + 1) * n_classes > NEWTON_MAX_FEATURES:
        b0, W, _ = fit_multinomial(X, None, [], y, v, lam, np.zeros(0), n_classes,
                                   start=start, tol=tol)
        return b0, W
    return newton_multinomial(X, y, v, lam, n_classes, start, tol=tol)


def newton_multinomial(X, y, v, lam, n_classes, start=None, tol=1e-10, max_iter=100):
    """The multinomial model without rules by Newton's method with step
    halving (what :func:`newton_l2` is for two classes): the loss of
    :func:`softmax_loss_and_gradient` with ``K = 0``, its Hessian with blocks
    ``Z' diag(v p_j (delta_jk - p_k)) Z`` (``Z``: ``X`` with a column of
    ones) plus ``2 lambda`` on the attributes' weights. The last class's
    intercept is held at 0 (the softmax is unchanged by a common shift of
    the intercepts), so the Hessian is positive definite. Returns ``(b0,
    W)``."""
    from scipy.linalg.blas import dsyrk

    y = np.asarray(y, dtype=int)
    n, p = X.shape
    C, q = int(n_classes), p + 1
    Z = np.hstack([np.ones((n, 1)), X])
    Y = np.zeros((n, C))
    Y[np.arange(n), y] = 1.0
    T = np.zeros((q, C))  # row 0: intercepts
    if start is not None:
        T[0], T[1:] = start[0] - start[0][-1], start[1]
    else:
        prior = np.clip(np.bincount(y, weights=v, minlength=C) / max(v.sum(), 1e-300),
                        1e-6, None)
        T[0] = np.log(prior) - np.log(prior[-1])
    reg = np.full((q, C), 2.0 * lam)
    reg[0] = 0.0
    free = np.ones(q * C, dtype=bool)  # parameters in class-major order: j * q + a
    free[(C - 1) * q] = False

    def loss(T):
        f = Z @ T
        f -= f.max(axis=1, keepdims=True)
        log_p = f - np.log(np.exp(f).sum(axis=1, keepdims=True))
        return -np.dot(v, (log_p * Y).sum(axis=1)) + lam * np.sum(T[1:] ** 2), log_p

    current, log_p = loss(T)
    for _ in range(max_iter):
        P = np.exp(log_p)
        grad = (Z.T @ (v[:, None] * (P - Y)) + reg * T).T.ravel()
        # H = blockdiag_j(Z' diag(v p_j) Z) - M'M with M = [Z * sqrt(v) p_j]_j:
        # one symmetric rank-n update instead of C^2 / 2 products
        M = (Z[:, None, :] * (np.sqrt(v)[:, None] * P)[:, :, None]).reshape(n, C * q)
        H = -dsyrk(1.0, M.T, trans=0, lower=0)  # upper triangle (Fortran order)
        for j in range(C):
            root = np.sqrt(v * P[:, j])
            H[j * q:(j + 1) * q, j * q:(j + 1) * q] += dsyrk(
                1.0, (Z * root[:, None]).T, trans=0, lower=0)
        H[np.diag_indices(C * q)] += reg.T.ravel() + 1e-10
        step = np.zeros(C * q)
        step[free] = solve_spd(H[np.ix_(free, free)], grad[free])
        T, current, log_p, done = newton_step(loss, T, step.reshape(C, q).T, current, tol)
        if done:
            break
    return T[0].copy(), T[1:].copy()


def log_prior(y, v, n_classes) -> np.ndarray:
    """The log of the weighted class shares (at least 1e-6), centred: the
    intercepts of a softmax model without features."""
    prior = np.clip(np.bincount(y, weights=v, minlength=n_classes) / max(v.sum(), 1e-300),
                    1e-6, None)
    return np.log(prior) - np.log(prior).mean()


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
        theta, current, f, done = newton_step(loss, theta, solve_spd(H, grad), current, tol)
        if done:
            break
    return theta[0], theta[1:]


def solve_spd(H, g) -> np.ndarray:
    """``H^-1 g`` for a symmetric ``H`` of which only the upper triangle is
    read: Cholesky, or least squares where ``H`` is not numerically
    positive definite. ``H`` is overwritten."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve
    try:
        return cho_solve(cho_factor(H, lower=False, overwrite_a=True, check_finite=False),
                         g, check_finite=False)
    except LinAlgError:
        return np.linalg.lstsq(np.triu(H) + np.triu(H, 1).T, g, rcond=None)[0]


def newton_step(loss, theta, step, current, tol):
    """Newton's step ``step`` from ``theta`` (loss ``current``) with step
    halving (:func:`halving`): ``(theta, its loss, the loss's second
    value, done)``, ``done`` once the loss fell by at most ``tol`` of
    itself (at least 1) or no step lowers it (then ``theta`` and
    ``current`` as they were)."""
    found = halving(loss, theta, step, current)
    if found is None:
        return theta, current, None, True
    theta, new, aux = found
    return theta, new, aux, current - new <= tol * max(1.0, abs(new))


def halving(loss, theta, step, current):
    """Newton's step with step halving: ``(theta - t step, its loss, the
    loss's second value)`` for the first ``t = 1, 1/2, ...`` whose loss is
    not above ``current``; ``None`` if ``t`` falls below 1e-10."""
    t = 1.0
    while t > 1e-10:
        new, aux = loss(theta - t * step)
        if new <= current:
            return theta - t * step, new, aux
        t /= 2
    return None


def choose_lambda(X, y, v, lambdas=DEFAULT_LAMBDAS, n_folds=5, random_state=0,
                  patience=2, n_classes=None):
    """L2 ``lambda`` of plain logistic regression (no rules) with the lowest
    weighted log loss in stratified ``n_folds``-fold internal CV (ties to the
    larger ``lambda``). ``y``: 0/1, or with ``n_classes``, class codes of a
    multinomial model (:func:`fit_multinomial`).

    The ``lambdas`` are tried from the strongest down, each fold's fit
    warm-started from its fit at the previous one, and the path stops once
    the CV loss has been above its lowest for ``patience`` ``lambdas`` in a
    row (``None``: try every one): the loss of a weaker penalty only falls
    again on a curve with two dips (doc/evc.md, "Choosing lambda")."""
    from sklearn.model_selection import StratifiedKFold

    counts = np.bincount(y.astype(int), minlength=n_classes or 2)
    n_folds = int(min(n_folds, counts.min()))
    if n_folds < 2 or len(lambdas) == 1:
        return float(lambdas[len(lambdas) // 2])
    skf = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    newton = not sp.issparse(X) and X.shape[1] <= NEWTON_MAX_FEATURES and not n_classes

    def with_ones(A):  # the design Newton's method reads (the intercept first)
        return np.hstack([np.ones((A.shape[0], 1)), A]) if newton else None

    def fit(Xtr, Ztr, ytr, vtr, lam, start):
        if n_classes:
            return multinomial_l2(Xtr, ytr, vtr, lam, n_classes, start, tol=1e-7)
        return fit_l2(Xtr, ytr, vtr, lam, start, tol=1e-7, Z=Ztr)

    def held_out_loss(model, Xte, yte, vte):
        if n_classes:
            f = model[0] + Xte @ model[1]
            f -= f.max(axis=1, keepdims=True)
            log_p = f[np.arange(len(yte)), yte] - np.log(np.exp(f).sum(axis=1))
            return -np.dot(vte, log_p)
        f = model[0] + Xte @ model[1]
        return -np.dot(vte, log_expit(np.where(yte > 0, f, -f)))

    folds = [(X[train], with_ones(X[train]), y[train], v[train],
              X[test], y[test].astype(int), v[test])
             for train, test in skf.split(np.zeros(len(y)), y)]
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
            fits[i] = fit(Xtr, Ztr, ytr, vtr, lambdas[j], fits[i])
            losses[j] += held_out_loss(fits[i], Xte, yte, vte)
        worse = worse + 1 if losses[j] > losses.min() * (1 + 1e-12) else 0
        if patience is not None and worse >= patience:
            break
    best = np.flatnonzero(losses <= losses.min() * (1 + 1e-12))
    return float(lambdas[best[-1]])
