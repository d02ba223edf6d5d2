"""LR with rules on many classes: each rule weighing on its own class's
log-odds (the default multinomial model) against each rule weighing on
every class's log-odds, with the EVC penalty, half of it, and twice it; on
a stratified held-out third (seed 0) of each data set.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/probes/lr_rules_on_every_class.py vowel,vehicle,1000x10x11,movement_libras
"""
import os
import sys

import numpy as np
from scipy.optimize import minimize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from orangecontrib.rules.logreg import fast_products, log_prior  # noqa: E402


def softmax_all_loss_and_gradient(theta, X, R, Rt, Y, v, lam, gamma):
    """:func:`softmax_loss_and_gradient` with each rule weighing on the
    log-odds of every class: ``theta = [b0 (C), W (p x C), B+ (K x C), B-
    (K x C)]``, ``f = b0 + X W + R B``, the penalty ``lambda |W|^2 +
    lambda/2 |B|^2 + sum_k gamma_k sum_j |B_kj|`` (a rule that fires says
    something of every class: of its own, and of those it rules out).
    ``R``, ``Rt``: :func:`fast_products` of the rule indicators."""
    n, p = X.shape
    C, K = Y.shape[1], len(gamma)
    b0 = theta[:C]
    W = theta[C:C + p * C].reshape(p, C)
    Bp = theta[C + p * C:C + p * C + K * C].reshape(K, C)
    Bm = theta[C + p * C + K * C:].reshape(K, C)
    B = Bp - Bm
    f = b0 + X @ W
    if K:
        f += np.column_stack([R @ B[:, j] for j in range(C)])
    f -= f.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(f).sum(axis=1))
    nll = -np.dot(v, (f * Y).sum(axis=1) - log_norm)
    loss = (nll + lam * np.sum(W * W) + 0.5 * lam * np.sum(B * B)
            + gamma @ (Bp + Bm).sum(axis=1))
    G = v[:, None] * (np.exp(f - log_norm[:, None]) - Y)
    grad_B = lam * B
    if K:
        grad_B += np.column_stack([Rt @ G[:, j] for j in range(C)])
    g = gamma[:, None]
    return loss, np.concatenate((G.sum(axis=0), (X.T @ G + 2 * lam * W).ravel(),
                                 (grad_B + g).ravel(), (-grad_B + g).ravel()))


def fit_multinomial_all(X, R, y, v, lam, gamma, n_classes, max_iter=2000, start=None,
                        tol=1e-9):
    """Minimise :func:`softmax_all_loss_and_gradient`. Returns ``(b0, W,
    B)``, ``B``: ``(K, C)``."""
    y = np.asarray(y, dtype=int)
    n, p = X.shape
    C, K = int(n_classes), len(gamma)
    Y = np.eye(C)[y]
    theta0 = np.zeros(C + p * C + 2 * K * C)
    if start is None:
        theta0[:C] = log_prior(y, v, C)
    else:
        theta0[:C], theta0[C:C + p * C] = start[0], np.ravel(start[1])
        if K and len(start) > 2:
            theta0[C + p * C:C + p * C + K * C] = np.maximum(start[2], 0).ravel()
            theta0[C + p * C + K * C:] = np.maximum(-start[2], 0).ravel()
    R, Rt = fast_products(R) if K else (None, None)
    if K and Rt is None:
        Rt = R.T
    bounds = [(None, None)] * (C + p * C) + [(0.0, None)] * (2 * K * C)
    res = minimize(softmax_all_loss_and_gradient, theta0,
                   args=(X, R, Rt, Y, v, lam, np.asarray(gamma, dtype=float)),
                   jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(maxiter=max_iter, gtol=1e-6, ftol=tol, maxcor=50))
    t = res.x
    B = (t[C + p * C:C + p * C + K * C] - t[C + p * C + K * C:]).reshape(K, C)
    return t[:C], t[C:C + p * C].reshape(p, C), B



def main():
    import orangecontrib.rules as R
    from bench_multiclass import load
    from bench_shapes import split
    from scipy.special import softmax

    from orangecontrib.rules.rules import dense_X
    from orangecontrib.rules.evaluation import fold_metrics
    from orangecontrib.rules.logreg import rule_penalties
    from orangecontrib.rules.rules import covering_sparse
    print("| data | rules | own class: acc, AUC, log loss | every class, gamma: acc, AUC, "
          "log loss, rules | gamma / 2 | gamma x 2 |")
    print("|---|---:|---|---|---|---|")
    for name in sys.argv[1].split(","):
        tr, te = split(load(name))
        k = len(tr.domain.class_var.values)
        ytr, yte = tr.Y.astype(int), te.Y.astype(int)
        m = R.RuleLogisticRegressionLearner()(tr)
        cells = [", ".join(f"{x:.3f}" for x in fold_metrics(yte, m(te, m.Probs), k)[:3])]
        Xtr, Xte = dense_X(tr.X), dense_X(te.X)
        Ftr, Fte = m.features(Xtr), m.features(Xte)
        Ctr, Cte = covering_sparse(m.rule_list, Xtr), covering_sparse(m.rule_list, Xte)
        gamma = rule_penalties(m.rule_list, None)
        for g in (gamma, gamma / 2, gamma * 2):
            b0, W, B = fit_multinomial_all(Ftr, Ctr, ytr, np.ones(len(ytr)), m.lam, g, k)
            p = softmax(b0 + Fte @ W + Cte @ B, axis=1)
            cells.append(", ".join(f"{x:.3f}" for x in fold_metrics(yte, p, k)[:3])
                         + f", {int((np.abs(B).sum(axis=1) > 0).sum())}")
        print(f"| {name} | {len(m.rule_list)} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
