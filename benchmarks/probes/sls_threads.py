"""SLS fit seconds on one shape's training two thirds with one job and with
two threads (``n_jobs=2``: the same searches, the same model), twice each,
in turn, in this process.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_threads.py [5000x40x11]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

import orangecontrib.rules as R  # noqa: E402

shape = sys.argv[1] if len(sys.argv) > 1 else "5000x40x11"
train, _ = split(make_shape(shape))
for n_jobs in (1, 2, 1, 2):
    t = time.perf_counter()
    R.SLSEnsembleLearner(n_jobs=n_jobs)(train)
    print(f"{shape} n_jobs={n_jobs}: {time.perf_counter() - t:.2f} s", flush=True)
