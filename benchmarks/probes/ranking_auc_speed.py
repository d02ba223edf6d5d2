"""``slipper.ranking_auc`` against scikit-learn's ``roc_auc_score`` on one
internal fold's size: 4,400 rows, 4% positives, tied scores (one decimal),
random weights; the same value, milliseconds per call (least of 5 runs of
500 calls).

    OMP_NUM_THREADS=1 python benchmarks/probes/ranking_auc_speed.py
"""
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from orangecontrib.rules.slipper import ranking_auc

rng = np.random.default_rng(0)
n = 4400
y = rng.random(n) < 0.04
w = rng.uniform(0.5, 2.0, n)
f = np.round(rng.normal(size=n), 1)
print(f"values: ranking_auc {ranking_auc(f, y, w):.12f}, "
      f"roc_auc_score {roc_auc_score(y, f, sample_weight=w):.12f}")
for name, call in (("ranking_auc", lambda: ranking_auc(f, y, w)),
                   ("roc_auc_score", lambda: roc_auc_score(y, f, sample_weight=w))):
    best = np.inf
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(500):
            call()
        best = min(best, (time.perf_counter() - t) / 500)
    print(f"{name}: {best * 1e3:.3f} ms per call")
