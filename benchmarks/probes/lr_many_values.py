"""LR with rules on an attribute of many values (an ID, a zip code): fit
seconds, and 5-fold CV with the sparse quasi-Newton solver against the dense
Newton solver (``NEWTON_MAX_FEATURES`` raised).

    OMP_NUM_THREADS=1 python benchmarks/probes/lr_many_values.py [--cv]

2,000 rows, one discrete attribute of 1,200 values whose effects are drawn
at random, two classes (the case of issue 31).
"""
import sys
import time

import numpy as np


def main():
    from Orange.data import DiscreteVariable, Domain, Table
    from Orange.evaluation import AUC, CA, CrossValidation, LogLoss

    import orangecontrib.rules as R
    import orangecontrib.rules.logreg as LR
    rng = np.random.default_rng(0)
    n, k = 2000, 1200
    x = rng.integers(0, k, n).astype(float)
    y = (rng.normal(size=k)[x.astype(int)] + rng.normal(size=n) > 0).astype(float)
    domain = Domain([DiscreteVariable("zip", tuple(f"z{i}" for i in range(k)))],
                    DiscreteVariable("y", ("a", "b")))
    data = Table.from_numpy(domain, x[:, None], y)
    t = time.perf_counter()
    R.RuleLogisticRegressionLearner()(data)
    print(f"fit: {time.perf_counter() - t:.2f} s")
    if "--cv" in sys.argv:
        for limit, name in ((LR.NEWTON_MAX_FEATURES, "sparse, L-BFGS"),
                            (10 ** 6, "dense, Newton")):
            LR.NEWTON_MAX_FEATURES = limit
            t = time.perf_counter()
            res = CrossValidation(k=5, random_state=0)(data, [R.RuleLogisticRegressionLearner()])
            print(f"{name}: {time.perf_counter() - t:.1f} s, CA {CA(res)[0]:.3f}, "
                  f"AUC {AUC(res)[0]:.3f}, log loss {LogLoss(res)[0]:.3f}")


if __name__ == "__main__":
    main()
