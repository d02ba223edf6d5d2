"""How long one learner widget's fit takes to stop after a cancel, at each
tenth of the fit (5%, 15%, .., 95%), repeated: the detail behind
``bench_cancel.py``'s longest wait, to see in which stage of a fit a cancel
waits (early: the fit's preparation and first stage; late: its last).

    QT_QPA_PLATFORM=offscreen python benchmarks/probes/cancel_points.py evc [REPS] [SHAPE]

WIDGET is one of slipper, evc, lrr, sls, roccer, scoring (their defaults,
all cores, as in the canvas); SHAPE defaults to 20000x10x2. Printed per
repetition: the full fit's seconds, then the seconds until the worker
thread ended for each cancel point. Run with ``PYTHONPATH=OLD`` (a
worktree of an older commit) to see the same for older code.
"""
import os
import sys


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    name = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    shape = sys.argv[3] if len(sys.argv) > 3 else "20000x10x2"
    from AnyQt.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from bench_cancel import fit_and_cancel
    from bench_shapes import make_shape
    from orangecontrib.rules.widgets.owevcrules import OWEVCRules
    from orangecontrib.rules.widgets.owroccer import OWROCCER
    from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
    from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
    from orangecontrib.rules.widgets.owslipper import OWSlipper
    from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
    cls = {"slipper": OWSlipper, "evc": OWEVCRules, "lrr": OWRuleLogisticRegression,
           "sls": OWSLSEnsembles, "roccer": OWROCCER, "scoring": OWRuleScoring}[name]
    data = make_shape(shape)
    for _ in range(reps):
        w = cls()
        full, _, waits = fit_and_cancel(app, w, data)
        print(f"{full:.2f} s: {[round(x, 2) for x in waits]}", flush=True)
        w.onDeleteWidget()


if __name__ == "__main__":
    main()
