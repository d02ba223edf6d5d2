"""The add-on's parallel loops on one job, on two local processes and on a
two-worker Dask cluster, in one run on this machine.

    python benchmarks/bench_dask.py [--rows 5000] [--repeats 3] [--out results/dask.md]

Data: ``make_classification(rows, 20, n_informative=10, n_redundant=0,
random_state=0)``, two classes. Learners with their defaults:

* SLIPPER: ``T`` chosen by internal 5-fold CV up to ``T_max = 100`` (the
  folds are the parallel loop);
* EVC rules: 100 permutations for the Gumbel fit (the parallel loop),
  timed alone and within the whole fit (whose covering is sequential);
* SLS: the paper's defaults (``k_max = 8``, 20 rule sets per ``k``): the
  rule-set searches are the parallel loop.

Modes: ``n_jobs=1``; ``parallel_config(backend="threading", n_jobs=2)``
(two threads; the kernels release the GIL); ``parallel_config(backend="loky",
n_jobs=2)`` (two local worker processes); ``parallel_config(backend="dask", n_jobs=-1)``
with a ``distributed.Client`` on a ``LocalCluster(n_workers=2,
threads_per_worker=1, processes=True)`` on 127.0.0.1, running only while
the Dask mode is timed. Each learner gets one untimed fit per mode first
(worker processes import the add-on). Each mode's model is checked to be
byte-identical (pickle) to the one-job model. Seconds are the median of
``repeats`` fits. Writes
``results/dask.md``.
"""
import argparse
import os
import pickle
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def make_data(rows):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.datasets import make_classification
    X, y = make_classification(rows, 20, n_informative=10, n_redundant=0, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    return Table.from_numpy(domain, X, y.astype(float))


def timed(fit, repeats):
    times, model = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), model


def _commit():
    from runner import git_commit
    return git_commit()


COMMIT = _commit()  # the code this run uses (read before anything is fitted)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=5000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "dask.md"))
    args = p.parse_args()

    import distributed
    from joblib import parallel_config

    import orangecontrib.rules as R

    data = make_data(args.rows)
    t_start = time.time()

    from orangecontrib.rules.features import encode_table
    enc = encode_table(data)

    class GumbelFit:
        """The EVC learner's Gumbel fit alone (100 permutation searches)."""
        def __call__(self, _):
            return R.EVCRuleLearner().fit_gumbel(enc)

    learners = {
        "SLIPPER (T by 5-fold CV, T_max 100)": lambda: R.SlipperLearner(),
        "EVC rules, whole fit (100 permutations)": lambda: R.EVCRuleLearner(),
        "EVC Gumbel fit alone (100 permutations)": GumbelFit,
        "SLS (paper defaults)": lambda: R.SLSEnsembleLearner(),
    }
    modes = {
        "1 job": lambda fit: fit(),
        "2 threads": lambda fit: _in(parallel_config(backend="threading", n_jobs=2), fit),
        "2 processes (loky)": lambda fit: _in(parallel_config(backend="loky", n_jobs=2), fit),
        "Dask LocalCluster, 2 workers": lambda fit: _in(
            parallel_config(backend="dask", n_jobs=-1), fit),
    }
    res, same, one = {}, {}, {}
    for mode, run in modes.items():
        # the cluster runs only while its mode is timed: its idle scheduler,
        # nannies and workers took 15-20% of the two cores and slowed the
        # other modes (SLIPPER 0.93 -> 1.09 s on one job)
        cluster = client = None
        if mode.startswith("Dask"):
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                               processes=True, host="127.0.0.1",
                                               dashboard_address=None)
            client = distributed.Client(cluster)
        for name, make in learners.items():
            run(lambda: make()(data))  # warm-up: the workers import the add-on
            secs, model = timed(lambda: run(lambda: make()(data)), args.repeats)
            res[name, mode] = secs
            one.setdefault(name, pickle.dumps(model))
            same[name, mode] = pickle.dumps(model) == one[name]
            print(f"{name} | {mode}: {secs:.2f} s identical={same[name, mode]}", flush=True)
            report(args, learners, modes, res, same, time.time() - t_start)
        if client is not None:
            client.close()
            cluster.close()


def _in(context, fit):
    with context:
        return fit()


def report(args, learners, modes, res, same, elapsed):
    from runner import command, machine
    cmd = command()
    lines = ["# One job, two local processes and a two-worker Dask cluster", "",
             f"Command: `{cmd}` (code of commit {COMMIT}, {elapsed / 60:.1f} min).",
             f"Machine: {machine()}.", "",
             f"Data: `make_classification({args.rows}, 20, n_informative=10)`, two classes. "
             f"Median of {args.repeats} fits. Speed-up: one job's seconds over the mode's. "
             "\"identical\": the pickled model equals the one-job model byte for byte.", "",
             "| learner | " + " | ".join(modes) + " |",
             "|---|" + "---:|" * len(modes)]
    for name in learners:
        cells = []
        for mode in modes:
            if (name, mode) not in res:
                cells.append("")
                continue
            s = res[name, mode]
            one = res.get((name, "1 job"))
            speed = f" ({one / s:.2f}x)" if one and mode != "1 job" else ""
            mark = "" if same[name, mode] else " **differs**"
            cells.append(f"{s:.2f} s{speed}{mark}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
