"""SLIPPER's grow step of two builds of the core, on the very calls a fit
makes, in one process:

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_grow_replay.py SHAPE[,...] REPS OLD [NEW] [--every K] [--per-call]

Fits SLIPPER (its defaults) on each shape of ``bench_shapes.py`` (the
training two thirds) with this tree, recording every ``K``-th call of
``core.grow_dense`` (default every call), then replays the recorded calls
with ``OLD``'s and ``NEW``'s ``_slipper`` extension (checkouts with their
extensions built in place; ``NEW``: this tree), the two in turn, ``REPS``
times (a build whose grower takes scratch space gets one for all calls,
as a booster passes it). Prints the median seconds of all the calls per build, their ratio
new / old, and whether the two builds grew the same rules. With
``--per-call`` the builds take turns call by call instead (which goes
first alternating), each repetition printing the two builds' summed
seconds and their ratio: the machine's drift then falls on both alike
(two runs of one build gave ratios of 0.998-1.000).
"""
import glob
import importlib.util
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from bench_shapes import make_learner, make_shape, split  # noqa: E402

from orangecontrib.rules import slipper  # noqa: E402


def load(root, name):
    path = glob.glob(os.path.join(root, "orangecontrib/rules/core/_slipper.*.so"))[0]
    spec = importlib.util.spec_from_file_location("_slipper", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_fit_calls(name, shape, every=1, keep=lambda args: args):
    """The calls of ``slipper.<name>`` during a SLIPPER fit (its defaults)
    on the training two thirds of ``shape``: every ``every``-th call's
    arguments as ``keep`` makes them (copies of what the fit changes)."""
    calls, seen = [], [0]
    real = getattr(slipper, name)

    def recording(*args):
        if seen[0] % every == 0:
            calls.append(keep(args))
        seen[0] += 1
        return real(*args)
    setattr(slipper, name, recording)
    try:
        make_learner("slipper")(split(make_shape(shape))[0])
    finally:
        setattr(slipper, name, real)
    return calls


def record(shape, every):
    # without the scratch space (args[12]), if any; copies of the arrays of
    # this round (ypos, D, signed_q, grow); the table's (Xd, n_values,
    # order, groups, n_valid, XcT) are not changed
    return record_fit_calls("grow_dense", shape, every, lambda args: tuple(
        np.array(a) if k in (2, 3, 8, 9) else a for k, a in enumerate(args[:12])))


def replay(module, calls):
    """The calls with ``module``'s grower; one scratch space for all of
    them where the grower takes one (as a booster passes it)."""
    size = max(4 * (args[4].shape[0] * args[2].shape[0] + 1) for args in calls)
    work = np.empty(size, dtype=np.int32)
    try:
        module.grow_dense(*calls[0], work)
        extra = (work,)
    except TypeError:  # a grower without it
        extra = ()
    start = time.perf_counter()
    out = [module.grow_dense(*args, *extra) for args in calls]
    return time.perf_counter() - start, out


def per_call(builds, calls):
    """Both builds on every call, taking turns call by call: their summed
    seconds ``(old, new)`` and whether they grew the same rules."""
    size = max(4 * (args[4].shape[0] * args[2].shape[0] + 1) for args in calls)
    work = {name: (np.empty(size, dtype=np.int32),) for name in builds}
    for name, module in builds.items():
        try:
            module.grow_dense(*calls[0], *work[name])
        except TypeError:  # a grower without the scratch space
            work[name] = ()
    seconds, agree = {"old": 0.0, "new": 0.0}, True
    for k, args in enumerate(calls):
        out = {}
        for name in (("old", "new") if k % 2 else ("new", "old")):
            start = time.perf_counter()
            out[name] = builds[name].grow_dense(*args, *work[name])
            seconds[name] += time.perf_counter() - start
        agree = agree and same([out["old"]], [out["new"]])
    return seconds["old"], seconds["new"], agree


def same(a, b):
    return all(ca == cb and np.array_equal(la, lb) for (ca, la), (cb, lb) in zip(a, b))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    every = 1
    for a in sys.argv[1:]:
        if a.startswith("--every"):
            every = int(a.split("=", 1)[1])
    shapes, reps, old = args[0].split(","), int(args[1]), args[2]
    new = args[3] if len(args) > 3 else os.path.dirname(os.path.dirname(HERE))
    builds = {"old": load(old, "old"), "new": load(new, "new")}
    for shape in shapes:
        calls = record(shape, every)
        if "--per-call" in sys.argv:
            for _ in range(reps):
                o, n, agree = per_call(builds, calls)
                print(f"{shape}: {len(calls)} calls, new {n:.3f} s, old {o:.3f} s, new / old "
                      f"{n / o:.3f}; same rules: {agree}", flush=True)
            continue
        times = {"old": [], "new": []}
        outs = {}
        for _ in range(reps):
            for name, module in builds.items():
                t, outs[name] = replay(module, calls)
                times[name].append(t)
        o, n = statistics.median(times["old"]), statistics.median(times["new"])
        pairs = ", ".join(f"{b / a:.3f}" for a, b in zip(times["old"], times["new"]))
        print(f"{shape}: {len(calls)} calls, new {n:.3f} s, old {o:.3f} s, new / old "
              f"{n / o:.3f} (pairs: {pairs}); same rules: {same(outs['old'], outs['new'])}",
              flush=True)


if __name__ == "__main__":
    main()
