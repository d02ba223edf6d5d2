"""Every learner on a sparse bag-of-words table: fit and prediction seconds
and peak memory, the model the same as on the dense table.

    python benchmarks/bench_sparse.py [--rows 8000] [--cols 10000]
        [--nnz 400000] [--learners slipper,evc,...] [--out results/sparse.md]

Data (seeded, as Orange Text's bag of words makes it): ``rows x cols`` word
counts with ``nnz`` non-zeros in CSR, the words' frequencies following
Zipf's law, and a two-valued class from a logistic model of ten frequent
words plus noise. Learners with their defaults, one job; ``slipper`` is
SLIPPER with ``T = 20`` (a fixed number of rounds), ``slipper-cv`` with its
defaults (``T`` by internal cross-validation). Each learner runs in a fresh
process (fork) that builds the table, fits, predicts the table and reports
fit and prediction seconds, rules, training accuracy, and its peak resident
memory (``ru_maxrss``) and the memory before the fit (the data built).
With ``--check-dense ROWS`` a second, small table of ``ROWS`` rows is
fitted as CSR and as a dense array, and the two models' printed rules and
probabilities are compared.
"""
import argparse
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

LEARNERS = ("slipper", "slipper-cv", "evc", "lrr", "sls", "roccer", "scoring")


def make_learner(name):
    import orangecontrib.rules as R
    return {"slipper": lambda: R.SlipperLearner(T=20), "slipper-cv": R.SlipperLearner,
            "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
            "roccer": R.ROCCERLearner, "scoring": R.RuleScoringLearner}[name]()


def bag_of_words(rows, cols, nnz, seed=0):
    """A CSR matrix of word counts and a two-valued class."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, cols + 1)
    freq /= freq.sum()
    r = rng.integers(0, rows, nnz)
    c = rng.choice(cols, size=nnz, p=freq)
    X = sp.csr_matrix((np.ones(nnz), (r, c)), shape=(rows, cols))
    X.sum_duplicates()
    words = rng.choice(50, 10, replace=False)
    beta = rng.normal(size=10) * 1.5
    f = np.asarray(X[:, words].toarray() @ beta).ravel()
    y = (f - np.median(f) + rng.logistic(size=rows) * 0.5 > 0).astype(float)
    return X, y


def table(X, y):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    domain = Domain([ContinuousVariable(f"w{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("no", "yes")))
    return Table.from_numpy(domain, X, y)


def _run(name, shape, queue):
    from runner import rss_kb
    X, y = bag_of_words(*shape)
    data = table(X, y)
    learner = make_learner(name)
    before = rss_kb()
    t0 = time.perf_counter()
    model = learner(data)
    t1 = time.perf_counter()
    values = model(data)
    t2 = time.perf_counter()
    queue.put(dict(fit=t1 - t0, predict=t2 - t1, rules=len(model.rule_list),
                   accuracy=float(np.mean(values == y)), before=before / 2 ** 10,
                   peak=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 10))


def _check_dense(name, rows, cols, queue):
    X, y = bag_of_words(rows, cols, rows * cols // 50, seed=1)
    sparse, dense = table(X, y), table(X.toarray(), y)
    a, b = make_learner(name)(sparse), make_learner(name)(dense)
    pa, pb = a(dense, a.Probs), b(dense, b.Probs)
    queue.put(dict(same_rules=str(a) == str(b), max_diff=float(np.abs(pa - pb).max())))


def in_process(target, *args, limit=3600):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.terminate()
        return None
    return queue.get() if not queue.empty() else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=8000)
    ap.add_argument("--cols", type=int, default=10000)
    ap.add_argument("--nnz", type=int, default=400_000)
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--check-dense", type=int, default=0, metavar="ROWS")
    ap.add_argument("--limit", type=float, default=1800)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from runner import command, git_commit, machine

    X, _ = bag_of_words(args.rows, args.cols, args.nnz)
    lines = [f"# Sparse bag-of-words data: {args.rows} x {args.cols}, {X.nnz} non-zeros",
             "", f"Command: `{command()}` (commit {git_commit()})",
             f"Machine: {machine()}", "",
             "One job, each learner in a fresh process; memory in MB (`ru_maxrss`; "
             "'before' is the process with the table built).", "",
             "| learner | fit s | predict s | rules | training accuracy | "
             "MB before | peak MB |", "|---|---:|---:|---:|---:|---:|---:|"]
    checks = []
    for name in args.learners.split(","):
        r = in_process(_run, name, (args.rows, args.cols, args.nnz), limit=args.limit)
        row = (f"| {name} | {r['fit']:.1f} | {r['predict']:.2f} | {r['rules']} | "
               f"{r['accuracy']:.3f} | {r['before']:.0f} | {r['peak']:.0f} |" if r
               else f"| {name} | > {args.limit:.0f} or failed | | | | | |")
        print(row, flush=True)
        lines.append(row)
        if args.check_dense:
            c = in_process(_check_dense, name, args.check_dense, 300, limit=args.limit)
            checks.append(f"| {name} | {c['same_rules'] if c else '-'} | "
                          f"{c['max_diff'] if c else '-'} |")
            print(checks[-1], flush=True)
    if checks:
        lines += ["", f"Sparse and dense input, {args.check_dense} x 300: the same printed "
                      "model, and the largest difference of a probability.", "",
                  "| learner | same printed model | max abs difference |",
                  "|---|---|---:|"] + checks
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
