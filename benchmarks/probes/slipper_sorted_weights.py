"""SLIPPER's grow with the signed weights read by example and kept in the
sorted columns' order (``core.grow_dense``'s ``sorted_weights``), whole
fits of the two in turn in one process:

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_sorted_weights.py ROWS[,ROWS...] REPS [T]

For each size, the first ROWS rows of ``bench_million``'s data fitted by
``SlipperLearner(T=T)`` (default 30 rounds, no internal CV) ``REPS``
times each way, which goes first alternating (the module's
``SORTED_WEIGHTS_ROWS`` set to 0, every grow in order, or above the
rows, every grow by example). Prints the median seconds of each, their
ratio in order / by example, and whether the printed models are the same.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import make_data  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.core import _slipper  # noqa: E402


def main():
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    sizes, reps = [int(r) for r in sys.argv[1].split(",")], int(sys.argv[2])
    T = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", ("0", "1")))
    default = _slipper.SORTED_WEIGHTS_ROWS
    for rows in sizes:
        data = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
        seconds, models = {"by example": [], "in order": []}, {}
        for rep in range(reps):
            for way in (("in order", "by example") if rep % 2 else ("by example", "in order")):
                _slipper.SORTED_WEIGHTS_ROWS = 0 if way == "in order" else rows + 1
                start = time.perf_counter()
                models[way] = str(R.SlipperLearner(T=T)(data))
                seconds[way].append(time.perf_counter() - start)
        _slipper.SORTED_WEIGHTS_ROWS = default
        a, b = (statistics.median(seconds[w]) for w in ("by example", "in order"))
        print(f"{rows} rows: by example {a:.3f} s, in order {b:.3f} s, in order / by example "
              f"{b / a:.3f}; same model: {models['by example'] == models['in order']}",
              flush=True)


if __name__ == "__main__":
    main()
