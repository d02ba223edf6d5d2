"""SLIPPER, SLS, ROCCER and EVC rules on make_classification(5000, 20,
20 classes): fit seconds, rules, training accuracy.

    OMP_NUM_THREADS=1 python benchmarks/probes/many_classes.py
"""
import time

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from sklearn.datasets import make_classification


def classification_table(rows, n_classes, columns=20):
    """``make_classification(rows, columns, n_informative=10, n_classes,
    one cluster per class, random_state=0)`` as an Orange table."""
    X, y = make_classification(rows, columns, n_informative=10, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(columns)],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(n_classes))))
    return Table.from_numpy(domain, X, y.astype(float))


def main():
    from orangecontrib.rules import (EVCRuleLearner, ROCCERLearner, SlipperLearner,
                                     SLSEnsembleLearner)
    d = classification_table(5000, 20)
    for learner in [SlipperLearner(random_state=0), SLSEnsembleLearner(random_state=0),
                    ROCCERLearner(), EVCRuleLearner()]:
        t = time.perf_counter()
        m = learner(d)
        print(type(learner).__name__, f"{time.perf_counter() - t:.1f}s", len(m.rules),
              (m(d) == d.Y).mean(), flush=True)


if __name__ == "__main__":
    main()
