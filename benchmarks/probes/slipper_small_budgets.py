"""SLIPPER's rule budgets on Orange's small many-class sets: 10-fold CV
(stratified, seed 0) of ``SlipperLearner(max_rules=b)`` on iris, zoo and
brown-selected at budgets 3, 5, 8 and 15; mean rules, conditions, AUC
(prior-weighted one against the rest) and log loss per budget.

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_small_budgets.py

Run at two commits (a worktree each) to compare how they share a budget
among the classes' boosters.
"""
import numpy as np
from Orange.data import Table

import orangecontrib.rules as R
from orangecontrib.rules.evaluation import fold_metrics, stratified_folds

for name in ["iris", "zoo", "brown-selected"]:
    d = Table(name)
    C = len(d.domain.class_var.values)
    for b in (3, 5, 8, 15):
        res = []
        for tr, te in stratified_folds(d, 10, 0):
            m = R.SlipperLearner(max_rules=b)(d[tr])
            ca, auc, ll, _ = fold_metrics(d[te].Y.astype(int), m(d[te], m.Probs), C)
            res.append((m.size[0], m.size[1], auc, ll))
        r = np.mean(res, axis=0)
        print(f"{name} {b}: rules {r[0]:.1f} conds {r[1]:.1f} auc {r[2]:.3f} ll {r[3]:.3f}",
              flush=True)
