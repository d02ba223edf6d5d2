"""Why ROCCER found no rule on make_classification(5000, 20, 20 classes)
with its defaults: the candidates per class at the default confidence and
at 20%, and iris for comparison.

    OMP_NUM_THREADS=1 python benchmarks/probes/roccer_many_classes.py
"""
from many_classes import classification_table  # this directory
from Orange.data import Table

from orangecontrib.rules import ROCCERLearner

d = classification_table(5000, 20)
m = ROCCERLearner()(d)
print(m.stats, len(m.rules))
m = ROCCERLearner(min_confidence=0.2)(d)
print(m.stats["candidates"], len(m.rules), (m(d) == d.Y).mean())
iris = Table("iris")
m = ROCCERLearner()(iris)
print(len(m.rules), (m(iris) == iris.Y).mean())
