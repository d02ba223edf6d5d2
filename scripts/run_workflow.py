"""Runs one of the add-on's example workflows headless, as the canvas would,
and reports what its widgets hold; optionally saves screenshots.

    QT_QPA_PLATFORM=offscreen python scripts/run_workflow.py rules-viewer.ows \
        [--select 3] [--screenshots doc/screenshots] [--timeout 600]

Prints one JSON object: per node its title, error messages and a summary
(Test & Score / ROC Analysis: learners and AUCs; Rule Viewer: rules shown;
Data Table: rows). The tests run both workflows through this script.
"""
import argparse
import json
import os
import sys
import time


def wait_idle(app, scheme, timeout, settle=2.0):
    """Processes events until no signal is pending and no widget is busy for
    ``settle`` seconds (or ``timeout`` passes)."""
    t0 = time.time()
    idle_since = None
    while time.time() - t0 < timeout:
        app.processEvents()
        widgets = [scheme.widget_for_node(n) for n in scheme.nodes]
        busy = scheme.signal_manager.has_pending() or any(
            w.isBlocking() or w.isInvalidated()
            or getattr(w, "task", None) is not None  # ConcurrentWidgetMixin
            or getattr(w, "processingState", 0)       # a progress bar runs
            for w in widgets)
        if busy:
            idle_since = None
        elif idle_since is None:
            idle_since = time.time()
        elif time.time() - idle_since > settle:
            return time.time() - t0
        time.sleep(0.02)
    raise TimeoutError(f"workflow still busy after {timeout} s")


def summary(widget):
    import numpy as np
    from Orange.evaluation import AUC
    from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer
    out = {"errors": [m.formatted for m in widget.Error.active]}
    name = type(widget).__name__
    if name == "OWTestAndScore":
        slots = list(widget.learners.values())
        out["learners"] = [s.learner.name for s in slots]
        out["failed"] = [s.learner.name for s in slots
                         if s.results is None or not s.results.success]
    elif name == "OWROCAnalysis" and widget.results is not None:
        res = widget.results
        out["learners"] = list(getattr(res, "learner_names", []))
        out["auc"] = [float(a) for a in AUC(res)]
        out["nan_probabilities"] = bool(np.isnan(res.probabilities).any())
    elif isinstance(widget, OWRulesViewer):
        out["rules"] = widget.rule_model.rowCount()
        out["selected_rules"] = widget.selected_rules()
        out["plot"] = widget.plot.isVisibleTo(widget)
        out["grouped"] = bool(widget.group_sets and widget.group_check.isEnabled())
        out["why"] = widget.why_label.text() if widget.why_box.isVisibleTo(widget) else None
    elif name == "OWTable":
        data = getattr(widget, "input", None) or getattr(widget, "data", None)
        table = None if data is None else getattr(data, "table", data)
        out["rows"] = None if table is None else len(table)
        out["metas"] = [] if table is None else [m.name for m in table.domain.metas]
    return out


def render_scheme(scheme, registry, path):
    """The workflow as the canvas draws it, to a PNG."""
    from AnyQt.QtCore import QRectF, Qt
    from AnyQt.QtGui import QImage, QPainter
    from orangecanvas.canvas.scene import CanvasScene
    scene = CanvasScene()
    scene.set_channel_names_visible(True)
    scene.set_registry(registry)
    scene.set_scheme(scheme)
    rect = scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
    image = QImage(int(rect.width() * 2), int(rect.height() * 2), QImage.Format_ARGB32)
    image.fill(Qt.white)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    image.save(path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("workflow", help="file name in orangecontrib/rules/tutorials")
    p.add_argument("--select", type=int, default=0,
                   help="select this many first rules in each Rule Viewer")
    p.add_argument("--screenshots", default=None, help="directory for PNGs")
    p.add_argument("--nodes", default=None,
                   help="comma-separated node titles to screenshot (default: all)")
    p.add_argument("--timeout", type=float, default=600)
    args = p.parse_args(argv)

    import tempfile

    from AnyQt.QtWidgets import QApplication
    from orangewidget.settings import set_widget_settings_dir_components
    # the widgets' class defaults and the workflow's settings only: not the
    # defaults this machine's canvas saved when a widget was last closed
    settings = tempfile.TemporaryDirectory(prefix="orange-rules-")
    set_widget_settings_dir_components(settings.name, "run")
    app = QApplication([])
    from Orange.canvas.config import Config
    from orangecanvas.application.examples import workflows
    from orangecanvas.registry import WidgetRegistry
    from orangecanvas.scheme.readwrite import scheme_load
    from orangewidget.workflow.widgetsscheme import WidgetsScheme
    from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer

    registry = WidgetRegistry()
    Config.widget_discovery(registry).run(Config.widgets_entry_points())
    found = [w for w in workflows(Config())
             if os.path.basename(w.abspath()) == args.workflow]
    if not found:
        sys.exit(f"{args.workflow}: not among the installed example workflows")
    scheme = WidgetsScheme()
    errors = []
    with open(found[0].abspath(), "rb") as f:
        scheme_load(scheme, f, registry=registry, error_handler=errors.append)
    seconds = wait_idle(app, scheme, args.timeout)
    widgets = {n.title: scheme.widget_for_node(n) for n in scheme.nodes}
    if args.select:
        for w in widgets.values():
            if isinstance(w, OWRulesViewer):
                w.select_rules(w.listed_rules()[:args.select])
        seconds += wait_idle(app, scheme, args.timeout)
    report = {"workflow": args.workflow, "load_errors": [str(e) for e in errors],
              "seconds": round(seconds, 1),
              "nodes": {t: summary(w) for t, w in widgets.items()}}
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        stem = os.path.splitext(args.workflow)[0]
        render_scheme(scheme, registry, os.path.join(args.screenshots, stem + ".png"))
        chosen = None if args.nodes is None else set(args.nodes.split(","))
        for title, w in widgets.items():
            if chosen is not None and title not in chosen:
                continue
            w.resize(w.sizeHint())  # the size a user first sees, not a big screen's
            w.show()
            app.processEvents()
            name = "".join(ch if ch.isalnum() else "-" for ch in f"{stem}--{title}")
            name = name.replace("---", "--").strip("-").lower()
            w.grab().save(os.path.join(args.screenshots, name + ".png"))
            w.hide()
    print(json.dumps(report))
    scheme.clear()
    app.processEvents()
    settings.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
