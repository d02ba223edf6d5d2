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

import numpy as np
from sls_paths import run_searches, shape_codes  # this directory

from orangecontrib.rules.core import SLSData

args = [a for a in sys.argv[1:] if not a.startswith("--")]
shape = args[0] if args else "5000x40x11"
vector = "--scalar" not in sys.argv
codes, n_bins, ordinal, y = shape_codes(shape)
sd = SLSData(codes, n_bins, ordinal, np.ones(len(y)),
             simd=(os.environ.get("ORANGE_RULES_SIMD") or True) if vector else False)
dt, steps, scores = run_searches(sd, y, 5)
print(f"{shape}{'' if sd.simd else ' (scalar)'}: {dt:.3f} s, {steps} steps, "
      f"{dt / steps * 1e6:.3f} us/step, mean score {np.mean(scores):.3f}")
