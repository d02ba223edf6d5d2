"""The coverage kernels on a model of many rules: the 7,048 rules of SLS on
the shape 5000x40x11 (its training two thirds): failed conditions per row
and rule, sparse and dense coverage (least of three), and the model's
prediction on the held-out third.

    OMP_NUM_THREADS=1 python benchmarks/probes/coverage_kernels.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.rules import covering, covering_sparse, violations  # noqa: E402

train, test = split(make_shape("5000x40x11"))
model = R.SLSEnsembleLearner(n_jobs=2)(train)
X = model._model_X(train)
for kernel in (violations, covering_sparse, covering):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        kernel(model.rule_list, X)
        times.append(time.perf_counter() - t)
    print(kernel.__name__, len(model.rule_list), "rules", X.shape, f"{min(times):.3f} s")
t = time.perf_counter()
model(test, model.Probs)
print("predict test third", f"{time.perf_counter() - t:.3f} s")
