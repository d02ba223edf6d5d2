"""SLS probabilities from 2 or 3 regions per rule set (see sls_regions.py)
on a held-out third: the 20-class probe's data (make_classification 5000 x
20, 20 classes; a seeded random third) and the shapes 1000x10x11 and
5000x40x11 of the shape benchmark (its split). Prints accuracy, AUC, log loss.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_regions_heldout.py
"""
import os
import sys

import numpy as np
from sklearn.datasets import make_classification

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from bench_shapes import make_shape, split  # noqa: E402
from sls_regions import probabilities  # noqa: E402

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics  # noqa: E402


def twenty_classes():
    X, y = make_classification(5000, 20, n_informative=10, n_classes=20,
                               n_clusters_per_class=1, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(20))))
    data = Table.from_numpy(domain, X, y.astype(float))
    idx = np.random.default_rng(0).permutation(len(data))
    return data[idx[:3333]], data[idx[3333:]]


for name, (train, test) in [("20-class probe", twenty_classes()),
                            ("1000x10x11", split(make_shape("1000x10x11"))),
                            ("5000x40x11", split(make_shape("5000x40x11")))]:
    model = R.SLSEnsembleLearner(n_jobs=2)(train)
    Xtr = model.data_to_model_domain(train).X
    Xte = model.data_to_model_domain(test).X
    for G in (2, 3):
        p = probabilities(model, Xtr, train.Y.astype(int), Xte, G)
        print(name, f"G={G}", np.round(fold_metrics(test.Y.astype(int), p, model.n_classes)[:3], 3),
              flush=True)
