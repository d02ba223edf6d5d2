"""Microseconds per SLS step on each of the kernel's code paths this CPU
can run (``ORANGE_RULES_SIMD``: scalar, avx2, avx512bw, avx512), in one
process, the paths taken in turn: 72 searches a repetition (the shape's
first three classes, k = 1..8, three seeds, 5,000 steps, the paper's
p_noise and p_restart) on the shape's training two thirds.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_paths.py 5000x40x11 [REPS]

Printed per path: the summed score of the searches (equal on every path:
the same searches), the least and the median microseconds per step.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

from orangecontrib.rules.core import SLSData, _sls, pack_bits, sls_search  # noqa: E402
from orangecontrib.rules.features import encode_table, interval_codes  # noqa: E402
from orangecontrib.rules.sls import SLSPreprocessor  # noqa: E402


def shape_codes(shape):
    """The SLS coding of the shape's training two thirds: ``(codes,
    n_bins, ordinal, y)``."""
    data, _ = split(make_shape(shape))
    data = SLSPreprocessor(10, "thresholds")(data)
    codes, n_bins, ordinal, _ = interval_codes(data, encode_table(data, with_order=False), 10)
    return codes, n_bins, ordinal, data.Y.astype(int)


def run_searches(sd, y, seeds):
    """The first three classes, k = 1..8, ``seeds`` seeds, 5,000 steps
    each: ``(seconds, steps, scores)``."""
    t, steps, scores = time.perf_counter(), 0, []
    for c in np.unique(y)[:3]:
        pos = pack_bits((y == c).astype(np.uint8))
        for k in range(1, 9):
            for seed in range(seeds):
                _, score, n, _, _ = sls_search(sd, pos, k, 5000, 0.2, 0.01, 7919 * seed + k)
                steps += n
                scores.append(score)
    return time.perf_counter() - t, steps, scores


def main():
    shape = sys.argv[1] if len(sys.argv) > 1 else "5000x40x11"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    codes, n_bins, ordinal, y = shape_codes(shape)
    paths = {p: SLSData(codes, n_bins, ordinal, np.ones(len(y)), simd=p)
             for p in _sls.simd_paths()}
    times = {p: [] for p in paths}
    totals = {}
    for _ in range(reps):
        for p, sd in paths.items():
            seconds, steps, scores = run_searches(sd, y, 3)
            times[p].append(seconds / steps * 1e6)
            totals[p] = sum(scores)
    for p, ts in times.items():
        print(f"{shape} {p:9s} score {totals[p]:.0f}  least {min(ts):.3f}  "
              f"median {np.median(ts):.3f} us/step")


if __name__ == "__main__":
    main()
