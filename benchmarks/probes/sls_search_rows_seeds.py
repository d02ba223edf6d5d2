"""SLS's search sample (``search_rows``) against the searches' own noise:
held-out AUC, rules and fit seconds of SLS at ``ROWS`` rows of
``bench_million.py``'s data for each search-sample size and
``random_state`` (the seeds move the searches, the samples and the rest
samples), so that a difference between sizes can be set against the
spread between seeds of one size.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_search_rows_seeds.py \\
        100000 100000,50000,30000 0,1,2,3

Data: ``bench_million.py``'s (two classes, 20 numeric columns; its last
100,000 rows the held-out test set). One job per fit, in this process.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import MAX_ROWS, make_data  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("rows", type=int)
    p.add_argument("search_rows", help="comma-separated sizes")
    p.add_argument("seeds", help="comma-separated random_state values")
    args = p.parse_args()
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.metrics import roc_auc_score

    import orangecontrib.rules as R
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("0", "1")))
    train = Table.from_numpy(domain, X[:args.rows], y[:args.rows].astype(float))
    test = Table.from_numpy(domain, X[MAX_ROWS:], y[MAX_ROWS:].astype(float))
    for seed in map(int, args.seeds.split(",")):
        for size in map(int, args.search_rows.split(",")):
            t = time.perf_counter()
            model = R.SLSEnsembleLearner(n_jobs=1, search_rows=size, random_state=seed)(train)
            seconds = time.perf_counter() - t
            auc = roc_auc_score(test.Y, model(test, model.Probs)[:, 1])
            print(f"seed {seed} search_rows {size} fit {seconds:.1f} s "
                  f"rules {len(model.rule_list)} auc {auc:.4f}", flush=True)


if __name__ == "__main__":
    main()
