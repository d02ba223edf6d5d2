"""The sums of one SLIPPER round (the split, the GrowSet's, the rule's and
all class weights, the signed weights in fixed point, PruneRule's table,
the reweighting) by the numpy expressions of ``tests/slipper_reference.py``
and by the core, in one process in turn:

    OMP_NUM_THREADS=1 python benchmarks/probes/slipper_round_sums.py ROWS[,...] REPS

``ROWS``: the examples a booster sees (2,667 for an internal fold of
5000x40x11's training two thirds, 532 for 1000x10x11's, 240 for
360x90x15's). Prints microseconds a round, least of ``REPS`` repetitions of
2,000 rounds, and whether the two gave the same floats.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests"))

import slipper_reference as ref  # noqa: E402

from orangecontrib.rules import core  # noqa: E402


def numpy_round(rng, D, ypos, lengths, L):
    perm = rng.permutation(len(D))
    grow = ref.split_grow(perm, D)
    pos, neg = ypos == 1, ypos == 0
    g = D[grow & pos].sum(), D[grow & neg].sum()
    q = core.fixed_point(np.where(pos, D, -D))
    cov, d_prune = ref.prune_table(lengths, grow, ypos, D, L)
    covered = lengths >= L - 1
    w = D[covered & pos].sum(), D[covered & neg].sum(), D[pos].sum(), D[neg].sum()
    return g, q, cov, d_prune, w, ref.reweight(D, covered, ypos, 0.8, 1.25)


def core_round(rng, D, ypos, lengths, L):
    perm = rng.permutation(len(D))
    grow = core.split_grow(perm, D)
    g = core.class_sums(D, ypos, grow)
    q = core.signed_fixed_point(D, ypos)
    cov, d_prune = core.prune_table(lengths, grow, ypos, D, L)
    covered = lengths >= L - 1
    w = core.class_sums(D, ypos, covered) + core.class_sums(D, ypos)
    return g, q, cov, d_prune, w, core.reweight(D, covered.view(np.uint8), ypos, 0.8, 1.25)


def same(a, b):
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b))


def main():
    sizes, reps = [int(r) for r in sys.argv[1].split(",")], int(sys.argv[2])
    for n in sizes:
        rng = np.random.default_rng(0)
        D = rng.random(n) ** 3
        D /= D.sum()
        ypos = (rng.random(n) < 0.1).astype(np.int32)
        L = 4
        lengths = rng.integers(0, L, n).astype(np.int32)
        best = {}
        for _ in range(reps):
            for name, f in (("numpy", numpy_round), ("core", core_round)):
                r = np.random.default_rng(1)
                start = time.perf_counter()
                for _ in range(2000):
                    f(r, D, ypos, lengths, L)
                t = (time.perf_counter() - start) / 2000 * 1e6
                best[name] = min(best.get(name, np.inf), t)
        alike = same(numpy_round(np.random.default_rng(2), D, ypos, lengths, L),
                     core_round(np.random.default_rng(2), D, ypos, lengths, L))
        print(f"{n} rows: numpy {best['numpy']:.1f} us, core {best['core']:.1f} us a round, "
              f"core / numpy {best['core'] / best['numpy']:.3f}; the same floats: {alike}")


if __name__ == "__main__":
    main()
