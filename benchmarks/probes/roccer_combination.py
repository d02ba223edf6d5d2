"""Where ROCCER loses on many classes: on a shape of ``bench_shapes.py``
(default 5000x40x11; a stratified held-out third), held-out accuracy, AUC
and log loss of

* the candidate settings: discretisation (``max_cuts``), the mining budget
  (``max_candidates``; the longest rule length whose mining completes),
  the per-class lift threshold (``min_lift``), with the hulls' odds;
* the same rules combined into class probabilities in other ways: each
  class's hull odds normalised (``multi_class="hulls"``, the rule before
  2026-11), the product of the likelihood ratios of every firing entry, a
  multinomial regression over each class's segment (one-hot: which entry
  fires first), over the entries with a weight on their own class only, and
  over the entries with a weight on every class (``multi_class="logistic"``).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/probes/roccer_combination.py [SHAPE]
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

SETTINGS = ("", "max_cuts=2", "max_cuts=3", "max_cuts=4", "max_cuts=4, max_candidates=1_000_000",
            "max_cuts=8, max_candidates=1_000_000", "min_lift=1.5, max_cuts=4", "min_lift=3")


def segments(model, T):
    """Per class: the index of the first firing entry (its list length: none)."""
    cover = model.covering(T)
    out = []
    for cl in model.class_lists:
        seg = np.full(len(T), len(cl.rules))
        for e in range(len(cl.rules) - 1, -1, -1):
            seg[cover[:, cl.columns[e]].any(axis=1)] = e
        out.append(seg)
    return out


def main():
    import scipy.sparse as sp

    import orangecontrib.rules as R
    from bench_shapes import make_shape, split
    from orangecontrib.rules.evaluation import fold_metrics
    from orangecontrib.rules.logreg import (choose_lambda, fit_multinomial,
                                            multinomial_l2)
    from scipy.special import softmax
    shape = sys.argv[1] if len(sys.argv) > 1 else "5000x40x11"
    tr, te = split(make_shape(shape))
    k = len(tr.domain.class_var.values)
    ytr, yte = tr.Y.astype(int), te.Y.astype(int)

    def row(name, probs, extra=""):
        ca, auc, ll = fold_metrics(yte, probs, k)[:3]
        print(f"| {name} | {ca:.3f} | {auc:.3f} | {ll:.3f} | {extra} |", flush=True)

    print(f"## {shape}: candidate settings (hulls' odds)\n")
    print("| setting | accuracy | AUC | log loss | rules, rule length, candidates, s |")
    print("|---|---:|---:|---:|---|")
    for spec in SETTINGS:
        t = time.perf_counter()
        m = R.ROCCERLearner(multi_class="hulls", **eval(f"dict({spec})"))(tr)
        s = time.perf_counter() - t
        row(spec or "defaults", m(te, m.Probs),
            f"{m.size[0]}, {max(m.stats['length'].values())}, "
            f"{sum(m.stats['candidates'].values())}, {s:.1f}")

    print(f"\n## {shape}: the default rules, combined in other ways\n")
    print("| combination | accuracy | AUC | log loss | |")
    print("|---|---:|---:|---:|---|")
    m = R.ROCCERLearner(multi_class="hulls")(tr)
    row("hulls' odds, normalised", m(te, m.Probs))
    log_lr = np.zeros((len(te), k))
    for cl, fires in zip(m.class_lists, segments(m, te)):
        lr = np.log(cl.likelihood_ratios())
        cover = m.covering(te)
        fire = np.column_stack([cover[:, c].any(axis=1) for c in cl.columns])
        log_lr[:, cl.cls] = (fire @ lr[:-1] + (~fire.any(axis=1)) * lr[-1]
                             + np.log(cl.P / cl.N))
    row("product of the firing entries' likelihood ratios", softmax(log_lr, axis=1))
    w = np.ones(len(ytr))

    def onehot(T):
        cols = []
        for cl, seg in zip(m.class_lists, segments(m, T)):
            oh = np.zeros((len(T), len(cl.rules) + 1))
            oh[np.arange(len(T)), seg] = 1
            cols.append(oh)
        return sp.csr_matrix(np.hstack(cols))

    Str, Ste = onehot(tr), onehot(te)
    lam = choose_lambda(Str, ytr, w, n_classes=k)
    b0, W = multinomial_l2(Str, ytr, w, lam, k)
    row("multinomial regression over the segments (which entry fires first)",
        softmax(b0 + Ste @ W, axis=1), f"lambda {lam:.3g}")
    Etr, Ete = m.entry_indicators(tr), m.entry_indicators(te)
    heads = np.array([cl.cls for cl in m.class_lists for _ in cl.columns])
    b0, W, b = fit_multinomial(np.zeros((len(ytr), 0)), Etr, heads, ytr, w, lam,
                               np.zeros(len(heads)), k)
    f = np.tile(b0, (len(te), 1))
    for j in range(k):
        f[:, j] += Ete[:, np.flatnonzero(heads == j)] @ b[heads == j]
    row("multinomial regression over the entries, each on its own class", softmax(f, axis=1),
        f"lambda {lam:.3g}")
    full = R.ROCCERLearner()(tr)
    row("multinomial regression over the entries, each on every class (default)",
        full(te, full.Probs))


if __name__ == "__main__":
    main()
