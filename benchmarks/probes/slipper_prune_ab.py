"""SLIPPER's PruneRule (``slipper.prune_rule``) of two source trees on the
very calls a fit makes, in one process, the two taking turns call by call:

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_prune_ab.py SHAPE OLD

Fits SLIPPER (its defaults) on the training two thirds of the shape of
``bench_shapes.py`` with this tree, recording every ``prune_rule`` call,
then runs each call with ``OLD``'s ``prune_rule`` (a checkout; its
``slipper.py`` loaded as a module of this package, so both use this tree's
core) and this tree's. Prints the calls, the summed seconds of each, their
ratio new / old and how many calls kept another prefix length.
"""
import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from slipper_grow_replay import record_fit_calls  # noqa: E402

from orangecontrib.rules import slipper  # noqa: E402


def load_old(root):
    path = os.path.join(root, "orangecontrib", "rules", "slipper.py")
    spec = importlib.util.spec_from_file_location("orangecontrib.rules._old_slipper", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main():
    shape, old_root = sys.argv[1], sys.argv[2]
    old = load_old(os.path.abspath(old_root)).prune_rule
    calls = record_fit_calls("prune_rule", shape, keep=lambda args: tuple(
        np.array(a) if isinstance(a, np.ndarray) else a for a in args))
    seconds, differ = {"old": 0.0, "new": 0.0}, 0
    for k, args in enumerate(calls):
        out = {}
        for name in (("old", "new") if k % 2 else ("new", "old")):
            start = time.perf_counter()
            out[name] = (old if name == "old" else slipper.prune_rule)(*args)
            seconds[name] += time.perf_counter() - start
        differ += out["old"] != out["new"]
    print(f"{shape}: {len(calls)} calls, new {seconds['new']:.3f} s, old {seconds['old']:.3f} s, "
          f"new / old {seconds['new'] / seconds['old']:.3f}; other lengths: {differ}")


if __name__ == "__main__":
    main()
