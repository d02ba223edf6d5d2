"""Microseconds per SLS step of several builds of the kernel, in one
process, taken in turn (this machine's timings drift by up to 10% between
runs; within one process, in turn, the builds compare to a few percent).

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_kernels_ab.py SHAPE REPS DIR [DIR...]

A DIR is a source tree with the kernel built in place (``git worktree add
DIR COMMIT``, then ``python setup.py build_ext --inplace`` inside DIR); its
``orangecontrib/rules/core/_sls*.so`` is loaded under its own name. Each
repetition runs 72 searches (the shape's first three classes, k = 1..8,
three seeds, 5,000 steps, the paper's p_noise and p_restart) with every
build; printed: the least and the median microseconds per step, and the
summed score of the searches (equal between builds that search the same).
``DIR:scalar`` runs that build's scalar loops (``SLSData(simd=False)``);
``:nobits`` (``DIR:nobits``, ``DIR:scalar:nobits``) scores the candidates
with the loops over the attributes' ranges (``SLSData(by_bits=False)``).
"""
import glob
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

from orangecontrib.rules.core import pack_bits  # noqa: E402
from orangecontrib.rules.features import encode_table, interval_codes  # noqa: E402
from orangecontrib.rules.sls import SLSPreprocessor  # noqa: E402


def load(root):
    path = glob.glob(os.path.join(root, "orangecontrib/rules/core/_sls.*.so"))[0]
    spec = importlib.util.spec_from_file_location("_sls", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    shape, reps, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    data, _ = split(make_shape(shape))
    data = SLSPreprocessor(10, "thresholds")(data)
    codes, n_bins, ordinal, _ = interval_codes(data, encode_table(data, with_order=False), 10)
    y = data.Y.astype(int)
    runs = {}
    for b in builds:
        root, *modes = b.split(":")
        module = load(root)
        kw = {"simd": False} if "scalar" in modes else {}
        if "nobits" in modes:
            kw["by_bits"] = False
        try:
            sd = module.SLSData(codes, n_bins, ordinal, np.ones(len(data)), **kw)
        except TypeError:  # a build from before the simd switch
            sd = module.SLSData(codes, n_bins, ordinal, np.ones(len(data)))
        runs[b] = (module, sd, [], [])
    for _ in range(reps):
        for b, (module, sd, times, scores) in runs.items():
            t, steps, score = time.perf_counter(), 0, 0.0
            for c in np.unique(y)[:3]:
                pos = pack_bits((y == c).astype(np.uint8))
                for k in range(1, 9):
                    for seed in range(3):
                        r = module.sls_search(sd, pos, k, 5000, 0.2, 0.01, 7919 * seed + k)
                        steps += r[2]
                        score += r[1]
            times.append((time.perf_counter() - t) / steps * 1e6)
            scores.append(score)
    for b, (_, _, times, scores) in runs.items():
        ts = sorted(times)
        print(f"{shape} {b}: least {ts[0]:.3f} median {ts[len(ts) // 2]:.3f} us/step, "
              f"score sum {scores[0]:g}")


if __name__ == "__main__":
    main()
