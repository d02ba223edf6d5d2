"""Other ways to turn an SLS ensemble into probabilities, measured on the
12-set binary protocol (stratified 10-fold, seed 0) from one model per fold:
each rule set read as two regions (fires / does not: "two"), as one region
per pattern of firing rules ("pat") or as its most precise firing rule
("max"; Laplace estimates throughout), weighted by the posterior ``Q``,
uniformly ("U") or by ``sqrt(Q)``. Prints mean accuracy, AUC, log loss.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_probability_variants.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_protocol import DATASETS  # noqa: E402
from keel import load_keel  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402


def laplace(pos, n):
    return (pos + 1) / (n + 2)


def variants(model, Xtr, ytr, Xte):
    ens, cols = model.ensembles[0], model._columns[0]
    ctr, cte = model.covering(Xtr), model.covering(Xte)
    pos = (ytr == ens.cls).astype(float)
    R_ = len(ens.weights)
    two, pat, mx = (np.zeros((R_, len(Xte))) for _ in range(3))
    for i, idx in enumerate(cols):
        ftr, fte = ctr[:, idx], cte[:, idx]
        f = ftr.any(1)
        p1, p0 = laplace(pos[f].sum(), f.sum()), laplace(pos[~f].sum(), (~f).sum())
        two[i] = np.where(fte.any(1), p1, p0)
        key_tr, key_te = ftr @ (1 << np.arange(len(idx))), fte @ (1 << np.arange(len(idx)))
        est = {k: laplace(pos[key_tr == k].sum(), (key_tr == k).sum()) for k in np.unique(key_tr)}
        pat[i] = [est.get(k, two[i][j]) for j, k in enumerate(key_te)]
        rule = np.array([laplace(pos[ftr[:, j]].sum(), ftr[:, j].sum()) for j in range(len(idx))])
        mx[i] = np.where(fte.any(1), np.where(fte, rule[None, :], -1).max(1), p0)
    sq = np.sqrt(ens.weights) / np.sqrt(ens.weights).sum()
    return ens.cls, {f"{wn}-{vn}": w @ v
                     for wn, w in (("Q", ens.weights), ("U", np.full(R_, 1 / R_)), ("sqrtQ", sq))
                     for vn, v in (("two", two), ("pat", pat), ("max", mx))}


results = {}
for name in DATASETS:
    data = load_keel(name)
    y, per = data.Y.astype(int), {}
    for train, test in stratified_folds(data):
        model = R.SLSEnsembleLearner()(data[train])
        cls, out = variants(model, model.data_to_model_domain(data[train]).X, y[train],
                            model.data_to_model_domain(data[test]).X)
        for key, p1 in out.items():
            P = np.zeros((len(test), 2))
            P[:, cls], P[:, 1 - cls] = p1, 1 - p1
            per.setdefault(key, []).append(fold_metrics(y[test], P, 2))
    results[name] = {k: np.mean(v, axis=0) for k, v in per.items()}
    print(name, " ".join(f"{k}:{v[1]:.3f}/{v[2]:.3f}" for k, v in results[name].items()),
          flush=True)
print("mean over the sets: accuracy, AUC, log loss")
for key in next(iter(results.values())):
    m = np.mean([results[d][key] for d in results], axis=0)
    print(f"{key:10s} {m[0]:.4f} {m[1]:.4f} {m[2]:.4f}")
