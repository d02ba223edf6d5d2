import numpy as np, time
from sklearn.datasets import make_classification
from Orange.data import Table, Domain, ContinuousVariable, DiscreteVariable
from orangecontrib.rules import *
from orangecontrib.rules.roccer import MDLDiscretise
X, y = make_classification(5000, 20, n_informative=10, n_classes=20, n_clusters_per_class=1, random_state=0)
d = Table.from_numpy(Domain([ContinuousVariable(f"x{i}") for i in range(20)], DiscreteVariable("y", values=tuple(f"c{i}" for i in range(20)))), X, y.astype(float))
dd = MDLDiscretise()(d)
print([len(v.values) for v in dd.domain.attributes])
m = ROCCERLearner()(d); print(m.stats, len(m.rules))
m = ROCCERLearner(min_confidence=0.2)(d); print(m.stats["candidates"], len(m.rules), (m(d)==y).mean())
iris = Table("iris"); m = ROCCERLearner()(iris); print(len(m.rules), (m(iris)==iris.Y).mean())
