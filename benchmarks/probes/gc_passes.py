"""Time a fit spends in Python's cyclic garbage collector, with the objects
made before the fit left out of its passes (``base.heap_frozen``, the
default) and without (the freeze replaced by nothing), in one process in
turn:

    OMP_NUM_THREADS=1 python benchmarks/probes/gc_passes.py SHAPE LEARNER[,...] REPS

Prints per learner and way: the least fit seconds, and the collector's
passes per generation and seconds of the last repetition (timed by
``gc.callbacks``). The process holds what Orange, scikit-learn and the
learners import (about 185,000 tracked objects); the canvas holds more.
"""
import contextlib
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_learner, make_shape, split  # noqa: E402

import orangecontrib.rules.base as base  # noqa: E402


def main():
    shape, learners, reps = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
    train = split(make_shape(shape))[0]
    frozen = base.heap_frozen
    passes, spent, start = {}, {}, [0.0]

    def watch(phase, info):
        if phase == "start":
            start[0] = time.perf_counter()
            return
        g = info["generation"]
        passes[g] = passes.get(g, 0) + 1
        spent[g] = spent.get(g, 0.0) + time.perf_counter() - start[0]

    print(f"{len(gc.get_objects())} objects tracked before the fits")
    for name in learners:
        best = {}
        for _ in range(reps):
            for way in ("frozen", "plain"):
                base.heap_frozen = frozen if way == "frozen" else contextlib.nullcontext
                learner = make_learner(name)
                gc.collect()
                passes.clear()
                spent.clear()
                gc.callbacks.append(watch)
                t = time.perf_counter()
                learner(train)
                took = time.perf_counter() - t
                gc.callbacks.remove(watch)
                best[way] = min(best.get(way, took), took)
                last = {g: (passes[g], round(spent[g], 3)) for g in sorted(passes)}
                best[way + " passes"] = last
        base.heap_frozen = frozen
        print(f"{shape} {name}: frozen {best['frozen']:.2f} s {best['frozen passes']}, "
              f"plain {best['plain']:.2f} s {best['plain passes']} "
              "(generation: (passes, seconds))")


if __name__ == "__main__":
    main()
