"""The EVC beam search with its counts by complement (a refinement counted
as its parent's counts less the rows it drops, ``core._evc.complement_bytes``)
and without (every rule's own rows counted), in one process:

    OMP_NUM_THREADS=1 python benchmarks/probes/evc_complement_counts.py searches SHAPE[,...] N
    OMP_NUM_THREADS=1 python benchmarks/probes/evc_complement_counts.py fits SHAPE[,...] REPS LEARNER[,...]

``searches``: the Gumbel fit's permutation searches (``evc._permutation_maxima``,
EVC rules' defaults) of N permutations of each shape's training two thirds,
each permutation searched twice each way in turn (the least of the two
kept), so the machine's drift cancels: the mean milliseconds a permutation
and the ratio. ``fits``: whole fits of ``bench_shapes.py``'s learners
(evc, lrr, scoring), each way in turn REPS times: least and median
seconds, the ratio of the medians, and whether both gave the same model.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_shapes import make_learner, make_shape, split  # noqa: E402

from orangecontrib.rules.core import _evc  # noqa: E402
from orangecontrib.rules.evc import (EVCRuleLearner, _permutation_maxima,  # noqa: E402
                                     permutation_seeds)
from orangecontrib.rules.features import encode_table  # noqa: E402

DEFAULT = _evc.complement_bytes()[0]


def searches(shape, n):
    enc = encode_table(split(make_shape(shape))[0])
    learner = EVCRuleLearner()
    sd = learner.search_data(enc)[0]
    args = (learner.beam_width, learner.max_rule_length, learner.min_covered_examples,
            True)  # fit_gumbel_parameters' default: boundary points only
    total = {DEFAULT: 0.0, 0: 0.0}
    for seed in permutation_seeds(0, n):
        least = {}
        for size in (DEFAULT, 0, DEFAULT, 0):
            _evc.complement_bytes(size)
            start = time.perf_counter()
            _permutation_maxima(sd, enc.y, enc.w, enc.n_classes, seed, *args)
            t = time.perf_counter() - start
            least[size] = min(least.get(size, np.inf), t)
        for size in total:
            total[size] += least[size]
    _evc.complement_bytes(DEFAULT)
    print(f"{shape}, {n} permutations: by complement {total[DEFAULT] / n * 1e3:.2f} ms, "
          f"own rows {total[0] / n * 1e3:.2f} ms a permutation, "
          f"ratio {total[DEFAULT] / total[0]:.3f}", flush=True)


def fits(shape, reps, learners):
    train = split(make_shape(shape))[0]
    for name in learners:
        times, models = {DEFAULT: [], 0: []}, {}
        for _ in range(reps):
            for size in (DEFAULT, 0):
                _evc.complement_bytes(size)
                start = time.perf_counter()
                model = make_learner(name)(train)
                times[size].append(time.perf_counter() - start)
                models[size] = str(model)
        _evc.complement_bytes(DEFAULT)
        a, b = np.median(times[DEFAULT]), np.median(times[0])
        print(f"{name} {shape}: by complement least {min(times[DEFAULT]):.2f} s, median "
              f"{a:.2f} s; own rows least {min(times[0]):.2f} s, median {b:.2f} s; ratio "
              f"{a / b:.2f}; same model: {models[DEFAULT] == models[0]}", flush=True)


def main():
    mode, shapes, n = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
    for shape in shapes:
        if mode == "searches":
            searches(shape, n)
        else:
            fits(shape, n, sys.argv[4].split(","))


if __name__ == "__main__":
    main()
