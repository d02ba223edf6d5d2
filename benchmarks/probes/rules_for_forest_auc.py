"""How many rules the random forest's held-out AUC takes on
``bench_million.py``'s data (issue "Rules that follow the signal": within
0.01 of the forest's AUC at 10^6 rows, with at most twice the rules of 10^4
rows). Fits the gradient-boosted rules of BOOMER (package ``mlrl-boomer``, a
benchmark peer, not a dependency) with ``max_rules`` at each budget on the
first ``rows`` rows, the held-out AUC on the last 100,000:

    OMP_NUM_THREADS=1 python benchmarks/probes/rules_for_forest_auc.py ROWS[,...] BUDGETS[,...] [THREADS]

``THREADS`` (default 1): BOOMER's threads for rule refinement and
prediction. Prints per fit: rows, budget, seconds, rules, AUC.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import MAX_ROWS, make_data  # noqa: E402


def main(sizes, budgets, threads=1):
    from mlrl.boosting import BoomerClassifier
    from sklearn.metrics import roc_auc_score
    X, y = make_data()
    test_X, test_y = X[MAX_ROWS:], y[MAX_ROWS:]
    for rows in sizes:
        for k in budgets:
            model = BoomerClassifier(max_rules=k, random_state=1,
                                     parallel_rule_refinement=f"true{{num_threads={threads}}}"
                                     if threads > 1 else "false",
                                     parallel_prediction=f"true{{num_threads={threads}}}"
                                     if threads > 1 else "false")
            t = time.perf_counter()
            model.fit(X[:rows], y[:rows])
            seconds = time.perf_counter() - t
            auc = roc_auc_score(test_y, model.predict_proba(test_X)[:, 1])
            print(f"{rows} rows, max_rules={k}: {seconds:.1f} s, AUC {auc:.4f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1].split(",")], [int(a) for a in sys.argv[2].split(",")],
         int(sys.argv[3]) if len(sys.argv) > 3 else 1)
