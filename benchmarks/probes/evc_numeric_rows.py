"""EVC rules on 20 numeric columns (make_classification): fit seconds and
rules at 1,000 and 5,000 rows of two classes and 1,000 rows of ten.

    OMP_NUM_THREADS=1 python benchmarks/probes/evc_numeric_rows.py
"""
import time

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from sklearn.datasets import make_classification

from orangecontrib.rules import EVCRuleLearner

for n, nc in [(1000, 2), (5000, 2), (1000, 10)]:
    X, y = make_classification(n, 20, n_informative=10, n_classes=nc, n_clusters_per_class=1,
                               random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(nc))))
    d = Table.from_numpy(domain, X, y.astype(float))
    t = time.perf_counter()
    m = EVCRuleLearner()(d)
    print(n, nc, f"{time.perf_counter() - t:.1f}s", len(m.rules), flush=True)
