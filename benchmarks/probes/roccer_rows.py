"""Why ROCCER's held-out AUC falls as the rows grow (issue "Rules that
follow the signal"): ROCCER on the first ``rows`` rows of
``bench_million.py``'s data, held-out AUC on its test rows, with the
candidates mined per class, the itemset length used (the longest whose
candidates fit the budget), whether mining was complete and the seconds
of mining and of selection.

    OMP_NUM_THREADS=1 python benchmarks/probes/roccer_rows.py 10000,100000 [max_cuts=4 ...]

Arguments after the sizes: keyword arguments of ``ROCCERLearner``.
"""
import ast
import os
import sys
import time


sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import MAX_ROWS, make_data  # noqa: E402


def main(sizes, kwargs):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.metrics import roc_auc_score

    import orangecontrib.rules as R
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("0", "1")))
    test = Table.from_numpy(domain, X[MAX_ROWS:], y[MAX_ROWS:].astype(float))
    for rows in sizes:
        train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
        t = time.perf_counter()
        model = R.ROCCERLearner(**kwargs)(train)
        seconds = time.perf_counter() - t
        auc = roc_auc_score(y[MAX_ROWS:], model(test, model.Probs)[:, 1])
        print(f"{rows} rows {kwargs}: {seconds:.1f} s, {len(model.rule_list)} rules, "
              f"AUC {auc:.4f}, candidates {model.stats['candidates']}, "
              f"length {model.stats['length']}, complete {model.stats['complete']}, "
              f"mining {model.stats['mining_s']:.1f} s, selection {model.stats['selection_s']:.1f} s")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1].split(",")],
         {k: ast.literal_eval(v) for k, v in (a.split("=", 1) for a in sys.argv[2:])})
