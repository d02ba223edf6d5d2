"""Every learner at 10^4, 10^5 and 10^6 rows x 20 numeric columns (two
classes) on one machine: fit seconds, peak memory, and the log-log slope of
time in rows.

    python benchmarks/bench_million.py [--rows 10000,100000,1000000]
        [--learners slipper,evc,...] [--limit 600] [--out results/million.md]

Data: ``make_classification(rows, 20, n_informative=10, n_redundant=0,
random_state=0)``. Learners with their defaults, one job, except SLIPPER
with ``T = 100`` (a fixed number of rounds, as the scaling target states;
the default chooses ``T`` by 5-fold CV, five times the work). Each fit runs in
a fresh process (fork), which reports its fit seconds and its peak resident
memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and the resident
memory just before the fit (the data already built); "peak per row" is
their difference over the rows. A fit past ``--limit`` seconds is stopped,
and larger sizes of that learner are not tried. Writes
``results/million.md``.
"""
import argparse
import math
import multiprocessing as mp
import os
import resource
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LEARNERS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring", "rf")


def make_learner(name):
    from Orange.classification import RandomForestLearner

    import orangecontrib.rules as R
    return {"slipper": lambda: R.SlipperLearner(T=100), "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
            "roccer": R.ROCCERLearner, "scoring": R.RuleScoringLearner,
            "rf": lambda: RandomForestLearner(random_state=0)}[name]()


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _fit_one(name, rows, queue):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.datasets import make_classification
    X, y = make_classification(rows, 20, n_informative=10, n_redundant=0, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    data = Table.from_numpy(domain, X, y.astype(float))
    del X
    learner = make_learner(name)
    before = rss_kb()
    t = time.perf_counter()
    model = learner(data)
    fit_s = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rules = getattr(model, "rule_list", None)
    queue.put((fit_s, before, peak, len(rules) if rules is not None else float("nan")))


def fit_with_limit(name, rows, limit):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_fit_one, args=(name, rows, queue))
    proc.start()
    deadline = time.time() + limit + 120  # data generation on top of the fit
    while proc.is_alive() and time.time() < deadline and queue.empty():
        time.sleep(0.5)
    if queue.empty():
        if proc.is_alive():
            proc.terminate()
            proc.join()
            return None
        return "failed"
    out = queue.get()
    proc.join()
    return None if out[0] > limit else out


def slope(rows, secs):
    pts = [(math.log10(r), math.log10(s)) for r, s in zip(rows, secs) if s and s > 0]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def _commit():
    from runner import git_commit
    return git_commit()


COMMIT = _commit()  # the code this run uses (read before anything is fitted)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", default="10000,100000,1000000")
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--limit", type=float, default=600.0)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "million.md"))
    args = p.parse_args()
    sizes = [int(r) for r in args.rows.split(",")]
    learners = [s for s in args.learners.split(",") if s]
    res, t0 = {}, time.time()
    for name in learners:
        for rows in sizes:
            r = fit_with_limit(name, rows, args.limit)
            res[name, rows] = r
            print(name, rows, r, flush=True)
            report(args, learners, sizes, res, t0)
            if not isinstance(r, tuple):
                break  # larger sizes would not finish either


def report(args, learners, sizes, res, t0):
    from runner import command, machine
    cmd = command()
    head = " | ".join(f"{r:,} rows" for r in sizes)
    lines = ["# A million rows on one machine", "",
             f"Command: `{cmd}` (code of commit {COMMIT}, {(time.time() - t0) / 60:.1f} min).",
             f"Machine: {machine()}; one job per fit.", "",
             "Data: `make_classification(rows, 20, n_informative=10)`, two classes. Each "
             f"fit in a fresh process, limit {args.limit:g} s. Cells: fit seconds / peak "
             "resident memory of the process (MB) / peak minus the resident memory "
             "before the fit, per row (bytes; the data themselves take 160 bytes a "
             "row as float64). Slope: least-squares slope of log10(seconds) on "
             "log10(rows).", "",
             f"| learner | {head} | slope |", "|---|" + "---:|" * (len(sizes) + 1)]
    for name in learners:
        cells, secs, used = [], [], []
        for rows in sizes:
            r = res.get((name, rows), "")
            if r is None:
                cells.append(f"> {args.limit:g} s")
            elif r == "failed":
                cells.append("failed")
            elif r == "":
                cells.append("")
            else:
                fit_s, before, peak, _ = r
                per_row = max(peak - before, 0) * 1024 / rows
                cells.append(f"{fit_s:.1f} s / {peak / 1024:.0f} MB / {per_row:.0f} B")
                secs.append(fit_s)
                used.append(rows)
        s = slope(used, secs)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {s:.2f} |"
                     if np.isfinite(s) else f"| {name} | " + " | ".join(cells) + " | |")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
