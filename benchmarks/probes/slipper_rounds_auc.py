"""SLIPPER's held-out AUC and size by its number of rounds, on the data of
``bench_million.py`` (the first ROWS rows to train, its 100,000 test rows):

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_rounds_auc.py ROWS T[,T...]

Each ``T`` is a fixed number of rounds (``SlipperLearner(T=T)``; ``cv``:
the default, ``T`` chosen by internal CV up to ``T_max = 100``, a bound
that doubles while more rounds clearly help, and ``cvN``: up to a fixed
``T_max = N``, ``max_doublings=0``). Prints the fit seconds, the rules and
conditions, and the AUC: how many rules SLIPPER needs to come near a
random forest's AUC (``bench_million.py``'s ``rf`` row) as the rows grow.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_million import MAX_ROWS, make_data  # noqa: E402

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

import orangecontrib.rules as R  # noqa: E402


def main():
    rows, specs = int(sys.argv[1]), sys.argv[2].split(",")
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", values=("0", "1")))
    train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    test = Table.from_numpy(domain, X[MAX_ROWS:], y[MAX_ROWS:].astype(float))
    for spec in specs:
        if spec == "cv":
            learner = R.SlipperLearner()
        elif spec.startswith("cv"):
            learner = R.SlipperLearner(T_max=int(spec[2:]), max_doublings=0)
        else:
            learner = R.SlipperLearner(T=int(spec))
        start = time.perf_counter()
        model = learner(train)
        seconds = time.perf_counter() - start
        auc = roc_auc_score(y[MAX_ROWS:], model(test, model.Probs)[:, 1])
        print(f"{rows} rows, T {spec}: {seconds:.1f} s, {model.size[0]} rules, "
              f"{model.size[1]} conditions, AUC {auc:.4f}", flush=True)


if __name__ == "__main__":
    main()
