"""What the covering learners' stopping rule trades (issue "Rules that
follow the signal"): EVC rules, Rule Scoring and LR with rules (on EVC's
rules) with ``min_new_coverage`` m (a rule must cover at least the share m
of its class not covered yet; default 0.02) on the first ``rows`` rows of
``bench_million.py``'s data, held-out AUC on its 100,000 test rows.

    OMP_NUM_THREADS=1 python benchmarks/probes/covering_rows.py evc,scoring,lrr 10000,100000 0.02,0.005,0.001 [BUDGETS]

``BUDGETS`` (optional, e.g. ``100,300``): each fit also with ``max_rules``
at each of them (LR with rules: an L1 path over the rules of the covering
with that m, ``doc/evc.md``). Prints per fit: learner, rows, m, seconds, rules, ``model.size`` (rules the
predictions read, their conditions) and the AUC.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import MAX_ROWS, make_data  # noqa: E402


def learner(name, m, k=None):
    import orangecontrib.rules as R
    if name == "evc":
        return R.EVCRuleLearner(min_new_coverage=m, max_rules=k)
    if name == "scoring":
        return R.RuleScoringLearner(min_new_coverage=m, max_rules=k)
    if name == "lrr":
        return R.RuleLogisticRegressionLearner(
            rule_learner=R.EVCRuleLearner(min_new_coverage=m), max_rules=k)
    raise ValueError(name)


def main(names, sizes, shares, budgets=(None,)):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.metrics import roc_auc_score
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("0", "1")))
    test = Table.from_numpy(domain, X[MAX_ROWS:], y[MAX_ROWS:].astype(float))
    for name in names:
        for rows in sizes:
            train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
            for m in shares:
                for k in budgets:
                    t = time.perf_counter()
                    model = learner(name, m, k)(train)
                    seconds = time.perf_counter() - t
                    auc = roc_auc_score(y[MAX_ROWS:], model(test, model.Probs)[:, 1])
                    print(f"{name} {rows} rows min_new_coverage={m} max_rules={k}: "
                          f"{seconds:.1f} s, {len(model.rule_list)} rules, size {model.size}, "
                          f"AUC {auc:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","), [int(a) for a in sys.argv[2].split(",")],
         [float(a) for a in sys.argv[3].split(",")],
         [None] + [int(a) for a in sys.argv[4].split(",")] if len(sys.argv) > 4 else (None,))
