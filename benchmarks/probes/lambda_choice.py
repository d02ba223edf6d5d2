"""Does stopping the lambda path early (``choose_lambda(patience=2)``, the
default) choose the same lambda as trying every value (``patience=None``)?
On the training folds of the 12-set protocol (stratified 10-fold, seed 0)
and on every one-vs-rest problem of the shape benchmark's training sets;
prints the problems whose choice differs and the time of both.

    OMP_NUM_THREADS=1 python benchmarks/probes/lambda_choice.py
"""
import os
import sys
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
from bench_protocol import DATASETS  # noqa: E402
from bench_shapes import SHAPES, make_shape, split  # noqa: E402
from keel import load_keel  # noqa: E402

from orangecontrib.rules.rules import dense_X  # noqa: E402
from orangecontrib.rules.logreg import AttributeFeatures, choose_lambda  # noqa: E402


def problems():
    """``(label, training table, the classes to model)``."""
    for name in DATASETS:
        data = load_keel(name)
        folds = StratifiedKFold(10, shuffle=True, random_state=0)
        for f, (train, _) in enumerate(folds.split(data.X, data.Y)):
            yield f"{name}/{f}", data[train], [1]
    for shape in SHAPES:
        train, _ = split(make_shape(shape))
        k = len(train.domain.class_var.values)
        yield shape, train, [1] if k == 2 else list(range(k))


def main():
    n = same = 0
    spent = {None: 0.0, 2: 0.0}
    widest = 0.0  # the choice (patience 2) for all classes of 5000x40x11
    for label, data, classes in problems():
        X = dense_X(data.X)
        v = np.ones(len(X))
        F = AttributeFeatures(data.domain, X, v)(X)
        for c in classes:
            y = (data.Y.astype(int) == c).astype(float)
            chosen = {}
            for patience in spent:
                t = time.perf_counter()
                chosen[patience] = choose_lambda(F, y, v, patience=patience)
                spent[patience] += time.perf_counter() - t
                if patience == 2 and label == "5000x40x11":
                    widest += time.perf_counter() - t
            n += 1
            same += chosen[None] == chosen[2]
            if chosen[None] != chosen[2]:
                print(f"{label} class {c}: every value {chosen[None]}, patience 2 {chosen[2]}")
    print(f"{n} problems, the same lambda on {same}; every value {spent[None]:.2f} s, "
          f"patience 2 {spent[2]:.2f} s; all 11 classes of 5000x40x11: {widest:.2f} s")


if __name__ == "__main__":
    main()
