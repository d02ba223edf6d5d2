"""Where an EVC rules fit spends its time on a wide bag of words:
``EVCRuleLearner()`` (defaults) on ``bench_sparse.bag_of_words(2000, 10000,
80000)`` under cProfile; prints the fit's seconds and rules, then the
functions by cumulative time (the Gumbel fit's permutation searches are
``_permutation_maxima``, the rule searches ``find_rule``).

    OMP_NUM_THREADS=1 python benchmarks/probes/evc_sparse_profile.py
"""
import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_sparse import bag_of_words, table  # noqa: E402


def main():
    import orangecontrib.rules as R
    data = table(*bag_of_words(2000, 10000, 80000))
    profile = cProfile.Profile()
    t = time.perf_counter()
    model = profile.runcall(R.EVCRuleLearner(), data)
    print(f"fit {time.perf_counter() - t:.1f} s, {len(model.rule_list)} rules")
    pstats.Stats(profile).sort_stats("cumtime").print_stats(15)


if __name__ == "__main__":
    main()
