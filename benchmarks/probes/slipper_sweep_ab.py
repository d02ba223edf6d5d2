"""Milliseconds of SLIPPER's threshold sweeps of several builds of the
kernel, in one process, taken in turn, on the very calls of real boosters.

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_sweep_ab.py SHAPE CLASSES REPS DIR [DIR...]

A DIR is a source tree with the kernel built in place (``git worktree add
DIR COMMIT``, then ``python setup.py build_ext --inplace`` inside DIR); its
``orangecontrib/rules/core/_slipper*.so`` is loaded under its own name.
The boosters of the shape's first CLASSES classes (one against the rest,
100 rounds, on the training two thirds, with this tree's learner) are run
once and every call of ``best_sqrt_thresholds`` is recorded; each
repetition replays them all with every build (a build without ``beat``
is called without it). The builds must take the arguments this tree's
learner passes: from the tie-group layout on (``core.tie_groups``),
``(order, groups, n_valid, full_order, XcT, signed, covered, beat)``;
before it ``(order, xs, dq, n_valid, covered[, beat])``, so compare
builds of before it from a tree of before it. Printed: the least and the median milliseconds,
nanoseconds per swept element, and a check that every build picks the
same best condition.
"""
import glob
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_shapes import make_shape, split  # noqa: E402

import orangecontrib.rules.slipper as S  # noqa: E402
from orangecontrib.rules.features import encode_table  # noqa: E402


def load(root):
    path, = glob.glob(os.path.join(root, "orangecontrib/rules/core/_slipper*.so"))
    spec = importlib.util.spec_from_file_location("_slipper", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sweep_of(module):
    """The build's sweep, called with or without ``beat``."""
    f = module.best_sqrt_thresholds
    if "beat" in (f.__doc__ or ""):
        return f
    return lambda *args: f(*args[:5])


def main():
    shape, n_classes, reps, roots = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    calls = []
    recorded = S.best_sqrt_thresholds

    def record(*args):
        calls.append(tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args))
        return recorded(*args)

    S.best_sqrt_thresholds = record
    enc = encode_table(split(make_shape(shape))[0])
    for c in range(n_classes):
        S.boost(enc, (enc.y == c).astype(np.int32), enc.w, 100, np.random.default_rng(c))
    S.best_sqrt_thresholds = recorded
    elements = sum(a[0].size for a in calls)
    print(f"{shape}, {n_classes} boosters x 100 rounds: {len(calls)} sweeps, "
          f"{elements / 1e6:.1f} M elements")
    sweeps = [sweep_of(load(r)) for r in roots]
    times = [[] for _ in roots]
    for _ in range(reps):
        for sweep, t in zip(sweeps, times):
            start = time.perf_counter()
            for args in calls:
                sweep(*args)
            t.append(time.perf_counter() - start)
    for root, t in zip(roots, times):
        print(f"{root}: least {min(t) * 1e3:.1f} ms, median {np.median(t) * 1e3:.1f} ms, "
              f"{np.median(t) / elements * 1e9:.2f} ns per element")
    for args in calls:  # every build: the same best condition (when it beats ``beat``)
        picks = set()
        for sweep in sweeps:
            score, thr, op, _, _ = sweep(*args)
            j = int(np.argmax(score))
            if score[j] > args[-1]:  # beat, the last argument
                picks.add((j, score[j], thr[j], op[j]))
        assert len(picks) <= 1, picks
    print("every build picks the same best conditions")


if __name__ == "__main__":
    main()
