"""Pickle one small model of each learner, and its probabilities on a fixed
table, for ``tests/project/test_saved_models.py``: models saved by one version of
the add-on must load and predict the same in later ones.

    python scripts/make_model_pickles.py [--out OUT_DIR] [--commit COMMIT]
        [--learners NAME,...]

Run it at the commit whose models the test should keep loading (each
model's entry in ``tests/data/pickles/manifest.json`` names the commit and
versions it was made with), never to make a failing test pass: a model
that no longer loads, or predicts otherwise, is a defect of the change
that did it. ``--learners`` makes only those (a new learner's) and keeps
the others as they are. Each model is fitted on half of a bundled Orange
table with small settings (two classes: heart_disease, with unknown
values; three: iris) and predicted on the whole table.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def learners():
    """``{name: learner}``: every learner, and the variants whose models
    hold other classes (a budget's path, SLS's intervals, ROCCER's
    logistic combination on three classes)."""
    import orangecontrib.rules as R

    def evc():
        return R.EVCRuleLearner(n_permutations=10, beam_width=5, max_rule_length=3)
    return {
        "slipper": R.SlipperLearner(T_max=8, n_folds=3),
        "evc": evc(),
        "lrr": R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=3),
        "lrr_budget": R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=3,
                                                      max_rules=4),
        "sls": R.SLSEnsembleLearner(k_max=3, n_rule_sets=4, max_steps=300),
        "sls_intervals": R.SLSEnsembleLearner(k_max=3, n_rule_sets=4, max_steps=300,
                                              numeric="intervals"),
        "roccer": R.ROCCERLearner(max_length=2),
        "scoring": R.RuleScoringLearner(beam_width=5, max_rule_length=3),
    }


def tables():
    """``{name: (training half, whole table)}``."""
    from Orange.data import Table
    return {name: (Table(name)[::2], Table(name)) for name in ("heart_disease", "iris")}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "pickles"))
    p.add_argument("--commit", help="the add-on's commit (default: this checkout's HEAD)")
    p.add_argument("--learners", help="only these (names of learners()); keep the others")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import Orange
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                           capture_output=True, text=True).stdout.strip()
    made = {"commit": commit, "python": platform.python_version(), "numpy": np.__version__,
            "Orange": Orange.__version__}
    manifest_path = os.path.join(args.out, "manifest.json")
    probs_path = os.path.join(args.out, "probabilities.npz")
    manifest, probs = {"models": {}}, {}
    if args.learners:  # the others as they are
        with open(manifest_path) as f:
            manifest = json.load(f)
        with np.load(probs_path) as old:
            probs = dict(old)
    chosen = args.learners.split(",") if args.learners else list(learners())
    for data_name, (train, whole) in tables().items():
        for name, learner in learners().items():
            if name not in chosen:
                continue
            key = f"{name}-{data_name}"
            model = learner(train)
            with open(os.path.join(args.out, key + ".pkl"), "wb") as f:
                pickle.dump(model, f, protocol=4)
            probs[key] = np.asarray(model(whole, model.Probs), dtype=float)
            manifest["models"][key] = dict(
                made, model=f"{type(model).__module__}.{type(model).__qualname__}")
            print(key, manifest["models"][key]["model"], len(model.rule_list), "rules")
    np.savez_compressed(probs_path, **probs)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
