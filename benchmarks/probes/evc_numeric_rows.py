import numpy as np, time, sys
from sklearn.datasets import make_classification
from Orange.data import Table, Domain, ContinuousVariable, DiscreteVariable
from orangecontrib.rules import EVCRuleLearner
for n, nc in [(1000, 2), (5000, 2), (1000, 10)]:
    X, y = make_classification(n, 20, n_informative=10, n_classes=nc, n_clusters_per_class=1, random_state=0)
    d = Table.from_numpy(Domain([ContinuousVariable(f"x{i}") for i in range(20)], DiscreteVariable("y", values=tuple(f"c{i}" for i in range(nc)))), X, y.astype(float))
    t = time.perf_counter(); m = EVCRuleLearner()(d); print(n, nc, f"{time.perf_counter()-t:.1f}s", len(m.rules), flush=True)
