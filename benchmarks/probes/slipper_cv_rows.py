"""SLIPPER's choice of ``T`` on many rows with the internal fold's training
part capped at several sizes (``slipper.CV_TRAIN_ROWS``; ``none``: the
whole training part, four fifths of the rows): the chosen ``T``, the
hold-out error curve's minimum, and the seconds of the choice.

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_cv_rows.py ROWS CAP[,CAP...]

The data are ``bench_million``'s (the first ROWS rows); the booster, seed
and folds are those of ``SlipperLearner()`` with its defaults.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import make_data  # noqa: E402

import orangecontrib.rules.slipper as S  # noqa: E402
from orangecontrib.rules.features import encode_table  # noqa: E402


def main():
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    rows, caps = int(sys.argv[1]), sys.argv[2].split(",")
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    data = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    learner = S.SlipperLearner()
    enc = encode_table(data)
    pos = learner._positive_classes(enc, domain.class_var.values)[0]
    ypos = (enc.y == pos).astype(np.int32)
    print(f"{rows} rows, positive class {pos}")
    for cap in caps:
        S.CV_TRAIN_ROWS = None if cap == "none" else int(cap)
        seed = np.random.SeedSequence(learner.random_state).spawn(3)[0]
        t = time.perf_counter()
        T, mean = S.choose_rounds(enc, ypos, learner.T_max, learner.n_folds, seed)
        secs = time.perf_counter() - t
        print(f"cap {cap}: T = {T}, hold-out error at T {mean[T - 1]:.5f}, "
              f"at {learner.T_max} {mean[-1]:.5f}, {secs:.1f} s", flush=True)


if __name__ == "__main__":
    main()
