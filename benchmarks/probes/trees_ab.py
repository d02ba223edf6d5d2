"""One learner's fit on the shapes of ``bench_shapes.py``, two source trees
in turn, each fit in a fresh process (so the machine's drift falls on both):

    OMP_NUM_THREADS=1 python benchmarks/probes/trees_ab.py [--missing F] LEARNER SHAPE[,...] PAIRS OLD [NEW]

``OLD`` and ``NEW`` are checkouts with their extensions built in place
(``NEW``: this tree), for example
``git worktree add ../old COMMIT && (cd ../old && python setup.py
build_ext --inplace)``. Prints, per shape, the median fit seconds of each
tree (the fit alone: the process's imports and data are not timed), their
ratio new / old and the ratio of every pair. ``--missing F``: a share
``F`` of the training cells made missing first (seeded), for code that
treats missing values its own way.
"""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

FIT = """
import sys, time
sys.path.insert(0, {bench!r})
from bench_shapes import make_learner, make_shape, split
train = split(make_shape({shape!r}))[0]
if {missing!r}:
    import numpy as np
    from Orange.data import Table
    X = train.X.copy()
    X[np.random.default_rng(0).random(X.shape) < {missing!r}] = np.nan
    train = Table.from_numpy(train.domain, X, train.Y)
learner = make_learner({learner!r})
start = time.perf_counter()
learner(train)
print(time.perf_counter() - start)
"""


def fit_seconds(tree, learner, shape, missing=0.0):
    code = FIT.format(bench=os.path.join(tree, "benchmarks"), shape=shape, learner=learner,
                      missing=missing)
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    args, missing = sys.argv[1:], 0.0
    if args[0] == "--missing":
        missing, args = float(args[1]), args[2:]
    learner, shapes, pairs, old = args[:4]
    new = args[4] if len(args) > 4 else os.path.dirname(os.path.dirname(HERE))
    old, new = os.path.abspath(old), os.path.abspath(new)
    for shape in shapes.split(","):
        times = [(fit_seconds(new, learner, shape, missing),
                  fit_seconds(old, learner, shape, missing))
                 for _ in range(int(pairs))]
        n = statistics.median(t[0] for t in times)
        o = statistics.median(t[1] for t in times)
        print(f"{shape}: new {n:.2f} s, old {o:.2f} s, new / old {n / o:.3f} "
              f"(pairs: {', '.join(f'{a / b:.2f}' for a, b in times)})", flush=True)


if __name__ == "__main__":
    main()
