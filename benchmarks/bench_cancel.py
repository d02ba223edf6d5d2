"""How soon a learner widget's fit stops when it is cancelled (a setting
changed, new data, the node removed): each widget fits the shape 20000x10x2
with its defaults in its worker thread; the fit is cancelled at 5%, 15%, ..
95% of its full time and the seconds until the thread ends are measured.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_cancel.py
        [--shape 20000x10x2] [--out results/cancel.md]

The widgets' own settings (all cores, as in the canvas). A fit stops at
its next progress report, so this is the longest stretch between reports
that a cancel meets. It also measures how long the GUI thread freezes
during a fit.
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def wait(app, widget):
    """Runs the GUI's event loop until the widget's fit is done; returns the
    longest time the GUI thread could not run between two turns of the
    loop (beyond its 2 ms sleep): how long the canvas froze during the fit,
    for example while the fit's thread held Python's lock."""
    longest, last = 0.0, time.perf_counter()
    while widget.task is not None:
        app.processEvents()
        time.sleep(0.002)
        now = time.perf_counter()
        longest, last = max(longest, now - last - 0.002), now
    return longest


def fit_and_cancel(app, widget, data, shares=np.arange(0.05, 1.0, 0.1)):
    """``(full, stall, waits)``: the widget's full fit of ``data`` in
    seconds and the GUI stall during it (:func:`wait`), then the seconds
    until the fit's thread ended after a cancel at each of ``shares`` of
    the full time."""
    t = time.perf_counter()
    widget.set_data(data)
    widget.handleNewSignals()
    stall = wait(app, widget)
    full = time.perf_counter() - t
    waits = []
    for share in shares:
        widget.set_data(None)
        widget.handleNewSignals()
        app.processEvents()
        widget.set_data(data)
        widget.handleNewSignals()
        future = widget.task.future
        time.sleep(full * share)
        t = time.perf_counter()
        widget.cancel()
        while not future.done():
            time.sleep(0.001)
        waits.append(time.perf_counter() - t)
    return full, stall, waits


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", default="20000x10x2")
    p.add_argument("--out", default=os.path.join(HERE, "results", "cancel.md"))
    args = p.parse_args()
    from AnyQt.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv)
    from bench_shapes import make_shape
    from runner import report_head, write_report

    from orangecontrib.rules.widgets.owevcrules import OWEVCRules
    from orangecontrib.rules.widgets.owroccer import OWROCCER
    from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
    from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
    from orangecontrib.rules.widgets.owslipper import OWSlipper
    from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles

    data = make_shape(args.shape)
    rows = ["| widget | fit (s) | GUI stall during the fit (s) | cancel: longest wait (s) "
            "| median (s) |", "|---|---:|---:|---:|---:|"]
    for cls in (OWSlipper, OWEVCRules, OWRuleLogisticRegression, OWSLSEnsembles, OWROCCER,
                OWRuleScoring):
        w = cls()
        full, stall, waits = fit_and_cancel(app, w, data)
        rows.append(f"| {cls.name} | {full:.1f} | {stall:.2f} | {max(waits):.2f} | "
                    f"{np.median(waits):.2f} |")
        print(rows[-1], flush=True)
        w.onDeleteWidget()
    text = "\n".join([
        *report_head("How soon a cancelled fit stops"),
        f"Each learner widget fits {args.shape} with its defaults in its worker thread; "
        "the fit is cancelled at 5%, 15%, .., 95% of its full time and the seconds until "
        "the thread ends are measured (longest and median of the ten). GUI stall: during "
        "the first, uncancelled fit, the longest the GUI thread's event loop could not "
        "turn (beyond its 2 ms sleep); the canvas is frozen that long.", "", *rows, ""])
    write_report(args.out, text.splitlines())


if __name__ == "__main__":
    main()
