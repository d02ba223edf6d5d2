"""LR with rules with richer candidate pools (EVC's min_new_coverage) on
bench_million.py's data: rules of non-zero weight, held-out AUC, fit seconds.

    OMP_NUM_THREADS=1 python benchmarks/probes/lr_pool.py ROWS 0.02,0.005,0.002

The first ROWS rows of bench_million.py's draw train, its last 100,000
rows test.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from bench_million import TEST_ROWS, make_data  # noqa: E402


def main():
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    import orangecontrib.rules as R
    from orangecontrib.rules.evaluation import fold_metrics
    rows, pools = int(sys.argv[1]), [float(p) for p in sys.argv[2].split(",")]
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    test = Table.from_numpy(domain, X[-TEST_ROWS:], y[-TEST_ROWS:].astype(float))
    print("| rows | pool min_new_coverage | candidates | non-zero rules | AUC | fit s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for pool in pools:
        t = time.perf_counter()
        model = R.RuleLogisticRegressionLearner(
            rule_learner=R.EVCRuleLearner(min_new_coverage=pool))(train)
        seconds = time.perf_counter() - t
        auc = fold_metrics(test.Y.astype(int), model(test, model.Probs), 2)[1]
        print(f"| {rows} | {pool:g} | {len(model.rule_list)} | {model.size[0]} | "
              f"{auc:.4f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
