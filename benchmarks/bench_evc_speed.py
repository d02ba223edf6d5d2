"""EVC rule learning speed on ``german`` (1000 rows, 20 attributes) with
``max_rule_length = 5``, ``beam_width = 10`` and 100 permutations: the time
to fit the Gumbel parameters and to learn the rules, next to Orange's
``CN2UnorderedLearner`` on the same data in the same run (median of
``--repeats`` runs each).

    python benchmarks/bench_evc_speed.py [--repeats 3] [--data german]

Writes ``results/evc_speed.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from Orange.classification import CN2UnorderedLearner  # noqa: E402

from orangecontrib.rules import EVCRuleLearner, encode_table  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import git_commit, machine, write_report  # noqa: E402


def timed(f, repeats):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", default="german")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--permutations", type=int, default=100)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "evc_speed.md"))
    args = p.parse_args()
    data = load_keel(args.data)
    settings = dict(max_rule_length=5, beam_width=10, n_permutations=args.permutations)
    rows = []
    for n_jobs in (1, 2):
        learner = EVCRuleLearner(n_jobs=n_jobs, **settings)
        t_gumbel, g = timed(lambda: learner.fit_gumbel(encode_table(data)), args.repeats)
        rows.append((f"Gumbel parameters ({args.permutations} permutations x "
                     f"{len(data.domain.class_var.values)} classes), n_jobs={n_jobs}",
                     t_gumbel))
    t_rules, model = timed(lambda: EVCRuleLearner(gumbel=g, **settings)(data), args.repeats)
    rows.append((f"rule search with given parameters ({len(model.rules)} rules)", t_rules))
    t_all, _ = timed(lambda: EVCRuleLearner(**settings)(data), args.repeats)
    rows.append(("whole EVC fit (parameters + rules), n_jobs=1", t_all))
    t_cn2, cn2 = timed(lambda: CN2UnorderedLearner()(data), args.repeats)
    cn2_rules = sum(1 for r in cn2.rule_list if r.selectors)
    rows.append((f"Orange CN2UnorderedLearner() ({cn2_rules} rules)", t_cn2))
    finder = CN2UnorderedLearner()
    finder.rule_finder.search_algorithm.beam_width = 10
    finder.rule_finder.general_validator.max_rule_length = 5
    t_cn2b, cn2b = timed(lambda: finder(data), args.repeats)
    rows.append((f"Orange CN2UnorderedLearner, beam 10, length <= 5 "
                 f"({sum(1 for r in cn2b.rule_list if r.selectors)} rules)", t_cn2b))
    lines = ["# EVC rule learning: speed", "",
             f"Command: `python benchmarks/bench_evc_speed.py --data {args.data} "
             f"--repeats {args.repeats} --permutations {args.permutations}` "
             f"(commit {git_commit()}).",
             f"Machine: {machine()}.", "",
             f"Data: `{args.data}` ({len(data)} rows, {len(data.domain.attributes)} "
             "attributes). EVC: `max_rule_length=5, beam_width=10`. Median of "
             f"{args.repeats} runs, seconds, all in this one run.", "",
             "| step | seconds |", "|---|---:|"]
    lines += [f"| {name} | {t:.2f} |" for name, t in rows]
    lines += ["", f"Whole EVC fit: {t_all:.1f} s (target < 30 s). Rule search alone vs "
              f"Orange's CN2 unordered (defaults): {t_rules / t_cn2:.2f}x its time; vs "
              f"CN2 with the same beam and length: {t_rules / t_cn2b:.2f}x.", ""]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
