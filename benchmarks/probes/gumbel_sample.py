"""The Gumbel parameters of EVC rules fitted on a stratified sample of the
rows against all rows, and the models they give (held-out third).

    OMP_NUM_THREADS=1 python benchmarks/probes/gumbel_sample.py [--rows 100000]
        [--samples none,20000,5000]

Data: ``make_classification(rows, 20, n_informative=10, n_redundant=0,
random_state=0)``, as in ``bench_million.py``. Per sample size: the seconds
of the permutation fit, ``mu`` and ``beta`` of class 0 at rule lengths 1,
3 and 5, and the rules, AUC and log loss of the model on the held-out
third.
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--samples", default="none,20000,5000")
    args = ap.parse_args()
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    import orangecontrib.rules as R
    from orangecontrib.rules.features import encode_table
    from orangecontrib.rules.evaluation import fold_metrics

    X, y = make_classification(args.rows, 20, n_informative=10, n_redundant=0,
                               random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("a", "b")))
    data = Table.from_numpy(domain, X, y.astype(float))
    tr, te = train_test_split(np.arange(len(y)), test_size=1 / 3, random_state=0, stratify=y)
    train, test = data[tr], data[te]
    enc = encode_table(train)
    print("| sample | fit s | mu (L=1, 3, 5) | beta (L=1, 3, 5) | rules | AUC | log loss |")
    print("|---|---:|---|---|---:|---:|---:|")
    for spec in args.samples.split(","):
        size = None if spec == "none" else int(spec)
        learner = R.EVCRuleLearner(gumbel_sample=size)
        t = time.perf_counter()
        g = learner.fit_gumbel(enc)
        seconds = time.perf_counter() - t
        model = R.EVCRuleLearner(gumbel=g)(train)
        _, auc, ll, _ = fold_metrics(test.Y.astype(int), model(test, model.Probs), 2)
        mu = ", ".join(f"{g.mu[0, L - 1]:.2f}" for L in (1, 3, 5))
        beta = ", ".join(f"{g.beta[0, L - 1]:.2f}" for L in (1, 3, 5))
        print(f"| {spec} | {seconds:.1f} | {mu} | {beta} | {len(model.rule_list)} | "
              f"{auc:.4f} | {ll:.4f} |", flush=True)


if __name__ == "__main__":
    main()
