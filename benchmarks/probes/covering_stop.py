"""Learner variants on the shapes of the shape benchmark (held-out third):
rules, conditions, accuracy, AUC, log loss and fit seconds, one job.

    OMP_NUM_THREADS=1 python benchmarks/probes/covering_stop.py \
        [--shapes 5000x20x2,...] "evc" "evc[min_new_coverage=0.02]" ...

A learner is a name of ``bench_protocol.py`` with optional parameters in
brackets (``name[key=value/key=value]``). Used to choose EVC's
``min_new_coverage`` (doc/evc.md, "How many rules").
"""
import argparse
import os
import sys
import time


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from bench_protocol import learners, parse_learner  # noqa: E402
from bench_shapes import make_shape, split  # noqa: E402

from orangecontrib.rules.evaluation import fold_metrics  # noqa: E402


def conditions(model):
    return sum(len(r.conditions) for r in getattr(model, "rule_list", []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("learners", nargs="+")
    ap.add_argument("--shapes", default="5000x20x2,20000x10x2,1000x10x11,360x90x15,5000x40x11")
    args = ap.parse_args()
    catalogue = learners()
    print("| shape | learner | rules | conditions | accuracy | AUC | log loss | fit s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for shape in args.shapes.split(","):
        train, test = split(make_shape(shape))
        y = test.Y.astype(int)
        for spec in args.learners:
            _, (label, factory) = parse_learner(spec, catalogue)
            t = time.perf_counter()
            model = factory()(train)
            fit = time.perf_counter() - t
            ca, auc, ll, _ = fold_metrics(y, model(test, model.Probs),
                                          len(train.domain.class_var.values))
            print(f"| {shape} | {spec} | {model.size[0]} | {model.size[1]} | "
                  f"{ca:.3f} | {auc:.3f} | {ll:.3f} | {fit:.1f} |", flush=True)


if __name__ == "__main__":
    main()
