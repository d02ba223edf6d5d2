"""Why SLS's held-out AUC falls as the rows grow: the white-noise weights
``Q(r) ∝ rho^e(r)`` (Section 4) take the absolute number of training
errors, so with more rows the error differences between rule sets grow and
``Q`` puts (nearly) all its weight on one rule set. Prints, per size, the
held-out AUC, the largest ``Q`` and the effective number of rule sets
``1 / sum Q^2`` of each ensemble; with ``--per-rate M``, also the same
searches with the weights ``rho^(e(r) M / m)`` (the errors scaled to ``M``
examples, the paper's ``rho`` on an error rate), which leaves the rule
sets as they are and changes only their weights.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_rows.py 10000,100000 [--per-rate 1000]

Data: ``bench_million.py``'s (two classes, 20 numeric columns).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import MAX_ROWS, make_data  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sizes")
    p.add_argument("--per-rate", type=float, default=None)
    args = p.parse_args()
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.metrics import roc_auc_score

    import orangecontrib.rules as R
    from orangecontrib.rules import sls
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("0", "1")))
    test = Table.from_numpy(domain, X[MAX_ROWS:], y[MAX_ROWS:].astype(float))
    for rows in (int(a) for a in args.sizes.split(",")):
        train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
        t = time.perf_counter()
        model = R.SLSEnsembleLearner()(train)
        seconds = time.perf_counter() - t
        variants = [("rho^e (the paper's, default)", model)]
        if args.per_rate:
            scaled = R.SLSEnsembleLearner()
            original = sls.white_noise_weights

            def per_rate(errors, rho, m=rows):
                return original(np.asarray(errors, float) * args.per_rate / m, rho)
            sls.white_noise_weights = per_rate
            try:
                variants.append((f"rho^(e {args.per_rate:g} / m)", scaled(train)))
            finally:
                sls.white_noise_weights = original
        for name, m in variants:
            auc = roc_auc_score(y[MAX_ROWS:], m(test, m.Probs)[:, 1])
            q = [e.weights for e in m.ensembles]
            print(f"{rows} rows, {name}: fit {seconds:.1f} s, AUC {auc:.4f}, "
                  f"rule sets {[len(w) for w in q]}, largest Q "
                  f"{[round(float(w.max()), 3) for w in q]}, effective "
                  f"{[round(float(1 / np.sum(w ** 2)), 1) for w in q]}")


if __name__ == "__main__":
    main()
