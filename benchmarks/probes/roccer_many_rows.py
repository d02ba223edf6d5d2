"""ROCCER on many rows of many classes: ``make_classification(rows +
100,000, 20, n_informative=10, n_redundant=0, n_classes=C,
random_state=0)``, fitted on the first ``rows`` rows, held-out AUC
(one-vs-rest mean) on the last 100,000, with the search sample (the
default) and without it.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/probes/roccer_many_rows.py 300000 5

Prints per setting: fit seconds, of which mining, selection and the
combination of the lists (the multinomial regression and its internal CV),
rules, the itemset length per class and the AUC.
"""
import sys
import time


def main(rows, n_classes):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from sklearn.datasets import make_classification
    from sklearn.metrics import roc_auc_score

    import orangecontrib.rules as R
    X, y = make_classification(rows + 100_000, 20, n_informative=10, n_redundant=0,
                               n_classes=n_classes, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", tuple(f"c{c}" for c in range(n_classes))))
    train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    test = Table.from_numpy(domain, X[rows:], y[rows:].astype(float))
    for search_rows in (100_000, None):
        t = time.perf_counter()
        model = R.ROCCERLearner(search_rows=search_rows)(train)
        seconds = time.perf_counter() - t
        auc = roc_auc_score(y[rows:], model(test, model.Probs), multi_class="ovr")
        st = model.stats
        rest = seconds - st["mining_s"] - st["selection_s"]
        print(f"{rows} rows, {n_classes} classes, search_rows={search_rows}: {seconds:.1f} s "
              f"(mining {st['mining_s']:.1f}, selection {st['selection_s']:.1f}, "
              f"the rest {rest:.1f}), {len(model.rule_list)} rules, length {st['length']}, "
              f"AUC {auc:.4f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
