"""SLIPPER's boosting with its two growers in turn, in one process:
GrowRule in one call of the core (``_FitCache.grow`` on a dense table,
``core.grow_dense``) and the reference loop in Python (``grow_rule``, a
core call per sweep, compaction and condition mask):

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_grow_ab.py SHAPE[,...] T REPS

On each shape of ``bench_shapes.py`` (its training two thirds; the booster
of class 1 against the rest), ``T`` rounds of ``slipper.boost`` from the
same seed with each grower, ``REPS`` times in turn: the least seconds of
each, their ratio, and whether the rules are the same.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_shapes import make_shape, split  # noqa: E402

from orangecontrib.rules import encode_table  # noqa: E402
from orangecontrib.rules import slipper as S  # noqa: E402

FUSED = S._FitCache.grow


def python_grow(cache, ypos, D, grow):
    """What ``_FitCache.grow`` returns, by the reference loop."""
    conds, masks = S.grow_rule(cache.enc, ypos, D, grow, cache)
    return ([(k.kind, int(k.col), k.op, float(k.value)) for k in conds],
            S.prefix_lengths(masks, len(D)))


def main():
    shapes, T, reps = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    for shape in shapes:
        enc = encode_table(split(make_shape(shape))[0])
        ypos = np.ascontiguousarray(enc.y == 1, dtype=np.int32)
        cache = S._FitCache(enc)
        least, rules = {}, {}
        for _ in range(reps):
            for name, grow in (("core", FUSED), ("python", python_grow)):
                S._FitCache.grow = grow
                start = time.perf_counter()
                rules[name] = S.boost(enc, ypos, enc.w, T, np.random.default_rng(0),
                                      cache=cache)
                least[name] = min(least.get(name, np.inf), time.perf_counter() - start)
        S._FitCache.grow = FUSED
        print(f"{shape}, {T} rounds: core {least['core']:.3f} s, python "
              f"{least['python']:.3f} s, ratio {least['core'] / least['python']:.3f}, "
              f"same rules: {rules['core'] == rules['python']}", flush=True)


if __name__ == "__main__":
    main()
