"""SLS with its searches on a stratified sample of ``search_rows`` rows
(the leaf estimates on every row) against every row, on the frontier
benchmark's larger sets (its held-out third): fit seconds, rules,
accuracy, AUC, log loss.

    OMP_NUM_THREADS=1 [ORANGE_RULES_SIMD=scalar] python \\
        benchmarks/probes/sls_search_rows.py [--datasets magic,20000x10x2,letter] \\
        [--search-rows 10000,20000,100000]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from bench_frontier import load, splits  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="magic,20000x10x2,letter")
    ap.add_argument("--search-rows", default="10000,20000,100000")
    args = ap.parse_args()
    for name in args.datasets.split(","):
        data = load(name)
        group = "shapes" if name[0].isdigit() else "keel"
        (train, test), = splits(group, data)
        train, test = data[train], data[test]
        C = len(data.domain.class_var.values)
        for rows in [int(r) for r in args.search_rows.split(",")]:
            t = time.perf_counter()
            model = R.SLSEnsembleLearner(search_rows=rows)(train)
            seconds = time.perf_counter() - t
            ca, auc, ll = fold_metrics(test.Y.astype(int), model(test, model.Probs), C)[:3]
            print(f"{name} ({len(train)} training rows) search_rows={rows}: {seconds:.1f} s, "
                  f"rules {model.size[0]}, acc {ca:.3f}, auc {auc:.3f}, ll {ll:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
