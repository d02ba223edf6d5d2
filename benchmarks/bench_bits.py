"""The cost of the portable bit operations: every kernel built again with
``RULES_BITS_PORTABLE`` (what a compiler with neither builtin nor intrinsic
runs, ``core/_bits.pxd``) against this build's (one instruction), on the
coverage kernels and on each learner's fit.

    OMP_NUM_THREADS=1 python benchmarks/bench_bits.py [--out results/bits.md]
        [--reps 3] [--build DIR]

The coverage kernels run on SLS's rules of the shape 5000x40x11 (its
training two thirds): failed conditions per row and rule
(``violations``), sparse and dense coverage; the learners fit 5000x20x2
with their defaults, one job (SLS on its scalar loops, so that only the bit
operations differ). Each build runs in its own process, the builds in
turn, least of ``--reps``. ``--build DIR`` reuses kernels built by
``python scripts/build_kernels.py DIR``.
"""
import argparse
import glob
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LEARNERS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring")

CHILD = """
import json, pickle, sys, time
sys.path.insert(0, {scripts!r})
sys.path.insert(0, {bench!r})
paths = {paths!r}
if paths:
    from build_kernels import use_kernels
    use_kernels(paths)
import numpy as np
from orangecontrib.rules.core import bits_check
from orangecontrib.rules.rules import covering, covering_sparse, violations
from bench_shapes import make_learner, make_shape, split
rules, X = pickle.load(open({rules_file!r}, "rb"))
out = {{"impl": bits_check(np.ones(1, dtype=np.uint64))[4]}}
for kernel in (violations, covering_sparse, covering):
    t = time.perf_counter()
    kernel(rules, X)
    out[kernel.__name__] = time.perf_counter() - t
train, _ = split(make_shape("5000x20x2"))
for name in {learners!r}:
    learner = make_learner(name)
    if name == "sls":
        import orangecontrib.rules.sls as sls
        from functools import partial
        sls.SLSData = partial(sls.SLSData, simd=False)
    t = time.perf_counter()
    learner(train)
    out[name] = time.perf_counter() - t
print(json.dumps(out))
"""


def run_child(paths, rules_file, learners):
    code = CHILD.format(scripts=os.path.join(ROOT, "scripts"), bench=HERE, paths=paths,
                        rules_file=rules_file, learners=list(learners))
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)
    if done.returncode:
        raise RuntimeError(f"the timed run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(HERE, "results", "bits.md"))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--build", default=None)
    p.add_argument("--learners", default=",".join(LEARNERS))
    args = p.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from build_kernels import KERNELS, build_kernels

    tmp = tempfile.mkdtemp()
    if args.build:
        core = os.path.join(args.build, "lib", "orangecontrib", "rules", "core")
        paths = {k: glob.glob(os.path.join(core, f"{k}.*"))[0] for k in KERNELS}
    else:
        paths = build_kernels(os.path.join(tmp, "portable"))
    # the rules the coverage kernels evaluate: SLS's model of 5000x40x11
    from bench_shapes import make_shape, split

    import orangecontrib.rules as R
    train, _ = split(make_shape("5000x40x11"))
    model = R.SLSEnsembleLearner(n_jobs=2)(train)
    rules_file = os.path.join(tmp, "rules.pkl")
    with open(rules_file, "wb") as f:
        pickle.dump((model.rule_list, model._model_X(train)), f)
    learners = args.learners.split(",") if args.learners else []
    runs = {"this build": [], "portable": []}
    t0 = time.time()
    for _ in range(args.reps):
        runs["this build"].append(run_child({}, rules_file, learners))
        runs["portable"].append(run_child(paths, rules_file, learners))
    best = {b: {k: min(r[k] for r in rs) for k in rs[0] if k != "impl"}
            for b, rs in runs.items()}
    impl = {b: rs[0]["impl"] for b, rs in runs.items()}
    names = {"violations": "failed conditions per row and rule (violations)",
             "covering_sparse": "sparse coverage (covering_sparse)",
             "covering": "dense coverage (covering)"}
    rows = ["| what | this build (s) | portable (s) | portable / this build |",
            "|---|---:|---:|---:|"]
    for k in best["this build"]:
        a, b = best["this build"][k], best["portable"][k]
        label = names.get(k, f"{k} fit, 5000x20x2" + (" (scalar loops)" if k == "sls" else ""))
        rows.append(f"| {label} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
    from runner import command, git_commit, machine
    text = f"""# The cost of the portable bit operations

Command: `OMP_NUM_THREADS=1 {command()}` (commit {git_commit()},
{(time.time() - t0) / 60:.1f} min for the timed runs). Machine: {machine()}, {platform.machine()};
bit operations of this build: {impl["this build"]}; of the other: {impl["portable"]}
(every kernel built again with `RULES_BITS_PORTABLE` by `scripts/build_kernels.py`).

The coverage kernels evaluate SLS's {len(model.rule_list)} rules of 5000x40x11 on its
training two thirds; the learners fit 5000x20x2 with their defaults, one
job, SLS on its scalar loops. Each build in its own process, in turn, least
of {args.reps}. Both builds give the same models
(`tests/kernels/test_portable_bits.py`).

{chr(10).join(rows)}
"""
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
