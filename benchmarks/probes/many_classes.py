import numpy as np, time
from sklearn.datasets import make_classification
from Orange.data import Table, Domain, ContinuousVariable, DiscreteVariable
from orangecontrib.rules import *
X, y = make_classification(5000, 20, n_informative=10, n_classes=20, n_clusters_per_class=1, random_state=0)
d = Table.from_numpy(Domain([ContinuousVariable(f"x{i}") for i in range(20)], DiscreteVariable("y", values=tuple(f"c{i}" for i in range(20)))), X, y.astype(float))
for l in [SlipperLearner(random_state=0), SLSEnsembleLearner(random_state=0), ROCCERLearner(), EVCRuleLearner()]:
    t = time.perf_counter(); m = l(d); print(type(l).__name__, f"{time.perf_counter()-t:.1f}s", len(m.rules), (m(d) == y).mean(), flush=True)
