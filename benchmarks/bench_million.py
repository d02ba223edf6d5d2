"""Every learner at 10^4, 10^5 and 10^6 rows x 20 numeric columns (two
classes) on one machine: fit seconds, rules, held-out AUC, peak memory, and
the log-log slope of time in rows.

    python benchmarks/bench_million.py [--rows 10000,100000,1000000]
        [--learners slipper,evc,...] [--limit 600] [--out results/million.md]

Data: the first ``rows`` rows of one draw of ``make_classification(1,100,000,
20, n_informative=10, n_redundant=0, random_state=0)``; its last 100,000
rows are the held-out test set of every size (so every size samples one
distribution). Learners with their defaults, one job (``slipper-T100``:
SLIPPER with ``T = 100``, a fixed number of rounds; ``slipper-paper``:
``T`` chosen up to the paper's fixed ``T_max = 100``, ``max_doublings=0``,
the default before; ``rf``: Orange's random
forest; ``evc-paper``, ``scoring-paper``, ``lrr-paper``: the paper's
covering, ``min_new_coverage=0``, and the Gumbel fit on every row, the
defaults before; ``slipper-5folds``: ``T`` by five folds at every size;
``slipper-wholefold``: ``T`` by boosting on the internal fold's whole
training part, not on a sample of ``slipper_rounds.CV_TRAIN_ROWS`` of its rows;
``slipper-wholegrow``: every round's rule grown on the paper's whole
GrowSet, not on at most ``slipper.GROW_MAX_ROWS`` of its rows;
``evc-wholesearch``, ``scoring-wholesearch``, ``lrr-wholesearch``: the
covering's searches on every row (``search_rows=None``), not on a sample;
``sls-scalar``, ``sls-avx2``: SLS with its kernel's scalar loops or AVX2
code, what a CPU without AVX-512 runs, the same model; ``sls-searchN``:
SLS with ``search_rows=N``, combinable, e.g. ``sls-search20000-scalar``;
``roccer-2jobs``, ``scoring-2jobs``: ROCCER's classes, Rule Scoring's
base's classes in two threads, ``n_jobs=2``, the same model). Each fit runs in a fresh process (fork), which reports its fit
seconds, the rules its predictions read (``model.size``), the held-out AUC,
its peak resident memory during the fit (``VmHWM``, reset after the data
are built) and the resident memory just before the fit;
"peak per row" is their difference over the rows. A fit past ``--limit``
seconds is stopped, and larger sizes of that learner are not tried. Writes
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

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one job per fit: BLAS too (before numpy)

import numpy as np

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LEARNERS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring", "rf")


def make_learner(name):
    from Orange.classification import RandomForestLearner

    import orangecontrib.rules as R
    if name.startswith("sls-") and name != "sls-paper-rho":
        # sls-scalar, sls-avx2: this process only, the kernel's path capped
        # (what a CPU without AVX-512 runs); sls-searchN: search_rows=N
        kw = {}
        for part in name.split("-")[1:]:
            if part.startswith("search"):
                kw["search_rows"] = int(part[len("search"):])
            else:
                os.environ["ORANGE_RULES_SIMD"] = part
        return R.SLSEnsembleLearner(**kw)
    if name == "sls-paper-rho":  # the paper's Q(r) ∝ rho^e(r) on any number of rows
        return R.SLSEnsembleLearner(rho_rows=None)
    if name == "slipper-5folds":  # T by all five folds at every size (the old default)
        import orangecontrib.rules.slipper_rounds as S
        S.CV_MAX_ROWS = None
    if name == "slipper-wholefold":  # T by boosting on the fold's whole training part
        import orangecontrib.rules.slipper_rounds as S
        S.CV_TRAIN_ROWS = None
    if name == "slipper-wholegrow":  # every rule grown on the paper's whole GrowSet
        import orangecontrib.rules.slipper as S
        S.GROW_MAX_ROWS = None
    paper_evc = dict(min_new_coverage=0.0, gumbel_sample=None)
    return {"slipper": R.SlipperLearner, "slipper-T100": lambda: R.SlipperLearner(T=100),
            "slipper-paper": lambda: R.SlipperLearner(max_doublings=0),
            "slipper-5folds": R.SlipperLearner, "slipper-wholefold": R.SlipperLearner,
            "slipper-wholegrow": R.SlipperLearner,
            # the paper's covering, every row in the Gumbel fit (the old defaults)
            "evc-paper": lambda: R.EVCRuleLearner(**paper_evc),
            "scoring-paper": lambda: R.RuleScoringLearner(min_new_coverage=0.0),
            "lrr-paper": lambda: R.RuleLogisticRegressionLearner(
                rule_learner=R.EVCRuleLearner(**paper_evc)),
            "evc-wholesearch": lambda: R.EVCRuleLearner(search_rows=None),
            "scoring-wholesearch": lambda: R.RuleScoringLearner(search_rows=None),
            "lrr-wholesearch": lambda: R.RuleLogisticRegressionLearner(
                rule_learner=R.EVCRuleLearner(search_rows=None)),
            "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
            "roccer": R.ROCCERLearner, "roccer-2jobs": lambda: R.ROCCERLearner(n_jobs=2),
            "scoring": R.RuleScoringLearner,
            "scoring-2jobs": lambda: R.RuleScoringLearner(n_jobs=2),
            "rf": lambda: RandomForestLearner(random_state=0)}[name]()


#: rows of the held-out test set, drawn with the training rows
TEST_ROWS = 100_000
#: the most training rows any run takes (the data are drawn once for all)
MAX_ROWS = 1_000_000


def make_data():
    """``X, y`` of ``MAX_ROWS + TEST_ROWS`` rows from one distribution:
    ``make_classification`` draws its clusters after the rows, so drawing
    each size separately would give each size another problem. Drawn once
    into a temporary file, which every fit's process maps."""
    import tempfile
    path = os.path.join(tempfile.gettempdir(), "orange_rules_million_v1.npz")
    if not os.path.exists(path):
        from sklearn.datasets import make_classification
        X, y = make_classification(MAX_ROWS + TEST_ROWS, 20, n_informative=10,
                                   n_redundant=0, random_state=0)
        np.savez(path, X=X, y=y)
    data = np.load(path)
    return data["X"], data["y"]


def reset_peak():
    """Start the peak resident memory (``VmHWM``) afresh (Linux: writing 5
    to ``clear_refs``); ``False`` where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _fit_one(name, rows, queue):
    from runner import rss_kb
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    from orangecontrib.rules.evaluation import fold_metrics
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    data = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    test = Table.from_numpy(domain, X[-TEST_ROWS:], y[-TEST_ROWS:].astype(float))
    del X, y
    learner = make_learner(name)
    import gc
    gc.collect()
    before = rss_kb()
    reset_peak()  # the peak of the fit, not of building the data
    t = time.perf_counter()
    model = learner(data)
    fit_s = time.perf_counter() - t
    peak = peak_kb()
    size = model.size[0] if hasattr(model, "size") else float("nan")
    auc = fold_metrics(test.Y.astype(int), model(test, model.Probs), 2)[1]
    queue.put((fit_s, before, peak, size, auc))


def fit_with_limit(name, rows, limit):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_fit_one, args=(name, rows, queue))
    proc.start()
    deadline = time.time() + limit + 180  # data and prediction on top of the fit
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
    make_data()  # drawn once, before the fits
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
             "Data: the first `rows` rows of `make_classification(1,100,000, 20, "
             "n_informative=10, n_redundant=0, random_state=0)` (two classes), the last "
             f"{TEST_ROWS:,} rows the held-out test set of every size (one distribution "
             f"for all sizes). Each fit in a fresh process, limit {args.limit:g} s. "
             "Cells: fit seconds / rules the predictions read (LR with rules: non-zero "
             "weights) / held-out AUC / peak resident memory of the process during the "
             "fit (MB) / peak "
             "minus the resident memory before the fit, per row (bytes; the training "
             "rows take 160 bytes a row as float64). Slope: least-squares slope of "
             "log10(seconds) on log10(rows).", "",
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
                fit_s, before, peak, size, auc = r
                per_row = max(peak - before, 0) * 1024 / rows
                cells.append(f"{fit_s:.1f} s / {size:.0f} / {auc:.4f} / "
                             f"{peak / 1024:.0f} MB / {per_row:.0f} B")
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
