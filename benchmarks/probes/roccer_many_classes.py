"""Why ROCCER found no rule on make_classification(5000, 20, 20 classes)
with its defaults: the candidates per class at the default confidence and
at 20%, and iris for comparison.

    OMP_NUM_THREADS=1 python benchmarks/probes/roccer_many_classes.py
"""
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from sklearn.datasets import make_classification

from orangecontrib.rules import ROCCERLearner

X, y = make_classification(5000, 20, n_informative=10, n_classes=20, n_clusters_per_class=1,
                           random_state=0)
domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                DiscreteVariable("y", values=tuple(f"c{i}" for i in range(20))))
d = Table.from_numpy(domain, X, y.astype(float))
m = ROCCERLearner()(d)
print(m.stats, len(m.rules))
m = ROCCERLearner(min_confidence=0.2)(d)
print(m.stats["candidates"], len(m.rules), (m(d) == y).mean())
iris = Table("iris")
m = ROCCERLearner()(iris)
print(len(m.rules), (m(iris) == iris.Y).mean())
