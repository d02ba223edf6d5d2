"""Microseconds per SLS step on one shape: 120 searches (the first three
classes, k = 1..8, five seeds, 5,000 steps each, the paper's p_noise and
p_restart) on the shape's training two thirds, in this process.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_step_cost.py 5000x40x11 [--scalar]

``--scalar``: the kernel's scalar loops even where the CPU has AVX-512 (the
searches are the same; what a CPU without it runs); otherwise the path
``ORANGE_RULES_SIMD`` names, or the CPU's best (``sls_paths.py`` compares
all paths in one process).
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

from orangecontrib.rules.core import SLSData, pack_bits, sls_search  # noqa: E402
from orangecontrib.rules.sls import SLSPreprocessor, sls_coding  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
shape = args[0] if args else "5000x40x11"
vector = "--scalar" not in sys.argv
data, _ = split(make_shape(shape))
data = SLSPreprocessor(10, "thresholds")(data)
codes, n_bins, ordinal, _ = sls_coding(data, 10)
sd = SLSData(codes, n_bins, ordinal, np.ones(len(data)),
             simd=(os.environ.get("ORANGE_RULES_SIMD") or True) if vector else False)
y = data.Y.astype(int)
t = time.perf_counter()
steps, scores = 0, []
for c in np.unique(y)[:3]:
    pos = pack_bits((y == c).astype(np.uint8))
    for k in range(1, 9):
        for seed in range(5):
            rules, score, n, _, _ = sls_search(sd, pos, k, 5000, 0.2, 0.01, 7919 * seed + k)
            steps += n
            scores.append(score)
dt = time.perf_counter() - t
print(f"{shape}{'' if sd.simd else ' (scalar)'}: {dt:.3f} s, {steps} steps, {dt / steps * 1e6:.3f} us/step, "
      f"mean score {np.mean(scores):.3f}")
