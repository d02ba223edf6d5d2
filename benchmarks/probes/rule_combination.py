"""Does a multinomial logistic regression over a model's rules (each rule a
0/1 column: does it fire) give better many-class probabilities than the
learner's own? ROCCER does this by default on more than two classes
(doc/roccer.md, "Many classes"); this probe asks it of EVC rules, SLIPPER
and Rule Scoring, at a budget of 50 rules and at the default, on the
frontier benchmark's held-out third (seed 0). The L2 weight by internal
5-fold CV (``logreg.choose_lambda``).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/probes/rule_combination.py 5000x40x11,satimage evc,slipper,scoring

Prints per data set, learner and budget: ``model.size``, fit seconds, the
held-out AUC (one-vs-rest mean) and log loss of the model and of the
regression over its rules.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

LEARNERS = {"evc": "EVCRuleLearner", "slipper": "SlipperLearner",
            "scoring": "RuleScoringLearner", "sls": "SLSEnsembleLearner"}


def combined(model, train, test):
    """Held-out probabilities of the multinomial regression over the rules
    of ``model``, fitted on ``train``."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.special import softmax

    from orangecontrib.rules.logreg import DEFAULT_LAMBDAS, choose_lambda, multinomial_l2
    y = train.Y.astype(int)
    E = sp.csr_matrix(model.covering(train).astype(float))
    classes = np.unique(y)
    w = np.ones(len(y))
    lam = choose_lambda(E, y, w, DEFAULT_LAMBDAS, n_classes=len(classes), random_state=0)
    b0, W = multinomial_l2(E, y, w, lam, len(classes))
    p = np.zeros((len(test), len(train.domain.class_var.values)))
    p[:, classes] = softmax(b0 + np.asarray(sp.csr_matrix(
        model.covering(test).astype(float)) @ W), axis=1)
    return p


def main(sets, names):
    import numpy as np
    from sklearn.metrics import log_loss, roc_auc_score

    import orangecontrib.rules as R
    from bench_frontier import load, splits
    for ds in sets:
        data = load(ds)
        (tr, te), = splits("keel", data)
        train, test = data[tr], data[te]
        labels = list(range(len(data.domain.class_var.values)))
        y = test.Y.astype(int)
        for name in names:
            for budget in (50, None):
                t = time.perf_counter()
                model = getattr(R, LEARNERS[name])(max_rules=budget)(train)
                seconds = time.perf_counter() - t
                own = np.clip(model(test, model.Probs), 1e-15, 1)
                reg = combined(model, train, test)
                auc = [roc_auc_score(y, p, multi_class="ovr", labels=labels) for p in (own, reg)]
                ll = [log_loss(y, p, labels=labels) for p in (own, reg)]
                print(f"{ds} {name} max_rules={budget}: size {model.size}, {seconds:.1f} s, "
                      f"AUC {auc[0]:.3f} -> regression {auc[1]:.3f}, "
                      f"log loss {ll[0]:.3f} -> {ll[1]:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","), sys.argv[2].split(","))
