"""Renders the screenshots of the documentation, offscreen:

* the help pages' (``orangecontrib/rules/widgets/help/images``, which
  ``doc/screenshots`` links to): every widget and the main views of the
  example workflows, each widget at its own default size;
* ``doc/reading/``: what a user first sees of each kind of model in the Rule
  Viewer, at the viewer's default size (1150 x 700) and on a small screen
  (1024 x 640), and each learner's panel at its default size
  (``doc/reading.md`` shows them).

    QT_QPA_PLATFORM=offscreen python scripts/make_screenshots.py [--only help|reading]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "orangecontrib", "rules", "widgets", "help", "images")
READING = os.path.join(ROOT, "doc", "reading")
RUNS = [  # workflow, rules to select in each Rule Viewer, nodes to capture
    ("rules-roc-comparison.ows", 0,
     "Test and Score,ROC Analysis,SLIPPER,EVC Rules,LR with Rules,"
     "SLS Ensembles,ROCCER"),
    ("rules-viewer.ows", 3, "Rule Viewer (SLIPPER),Rule Viewer (EVC),"
                            "Covered by EVC rules"),
    ("rules-plots.ows", 2, "Rule Scoring,Rule Viewer (ROCCER),"
                           "Rule Viewer (SLS Ensembles),Rule Viewer (Rule Scoring)"),
    ("rules-why.ows", 0, "Rule Viewer (why),Why each patient"),
]
#: the Rule Viewer's sizes the reading screenshots are taken at
SIZES = ((1150, 700), (1024, 640))
#: the learner of each kind of model the Rule Viewer shows (on heart_disease)
KINDS = ("slipper", "evc", "lrr", "sls", "roccer", "scoring", "cn2")


def help_images():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for workflow, select, nodes in RUNS:
        cmd = [sys.executable, os.path.join(ROOT, "scripts", "run_workflow.py"),
               workflow, "--select", str(select), "--nodes", nodes,
               "--screenshots", OUT]
        print(" ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, env=env)


def fitted(kind, data):
    """The model of ``kind`` on ``data``, each learner with its defaults."""
    import orangecontrib.rules as R
    if kind == "cn2":
        from Orange.classification import CN2UnorderedLearner
        return CN2UnorderedLearner()(data)
    return {"slipper": R.SlipperLearner, "evc": R.EVCRuleLearner,
            "lrr": R.RuleLogisticRegressionLearner, "sls": R.SLSEnsembleLearner,
            "roccer": R.ROCCERLearner, "scoring": R.RuleScoringLearner}[kind]()(data)


def save_small(widget, path):
    """``widget`` as a PNG of 256 colours (a fifth of the bytes, the text as
    sharp: the screenshots are of text on flat colours)."""
    from AnyQt.QtCore import Qt
    from AnyQt.QtGui import QImage
    image = widget.grab().toImage().convertToFormat(
        QImage.Format_Indexed8, Qt.ThresholdDither | Qt.AvoidDither)
    image.save(path, "PNG", 0)


def reading_images():
    """The viewer with each kind of model at :data:`SIZES`, and each learner
    panel, as a user first sees them (settings as the widgets' defaults:
    a temporary settings folder)."""
    import tempfile

    from AnyQt.QtWidgets import QApplication
    from orangewidget.settings import set_widget_settings_dir_components
    settings = tempfile.TemporaryDirectory(prefix="orange-rules-")
    set_widget_settings_dir_components(settings.name, "screenshots")
    app = QApplication.instance() or QApplication(sys.argv)
    from Orange.data import Table

    from orangecontrib.rules.widgets.owevcrules import OWEVCRules
    from orangecontrib.rules.widgets.owroccer import OWROCCER
    from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
    from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
    from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer
    from orangecontrib.rules.widgets.owslipper import OWSlipper
    from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles

    os.makedirs(READING, exist_ok=True)
    heart = Table("heart_disease")
    for kind in KINDS:
        model = fitted(kind, heart)
        model.instances = heart
        for width, height in SIZES:
            # as on the canvas: the viewer is open, then the model arrives
            w = OWRulesViewer()
            w.resize(width, height)
            w.show()
            app.processEvents()
            w.set_model(model)
            w.set_data(heart)
            w.handleNewSignals()
            for _ in range(10):
                app.processEvents()
            name = os.path.join(READING, f"viewer-{kind}-{width}x{height}.png")
            save_small(w, name)
            print(name, flush=True)
            w.hide()
            w.onDeleteWidget()
    for cls in (OWRuleScoring, OWSlipper, OWEVCRules, OWRuleLogisticRegression,
                OWSLSEnsembles, OWROCCER):
        w = cls()
        w.resize(w.sizeHint())
        w.show()
        for _ in range(5):
            app.processEvents()
        stem = cls.name.lower().replace(" ", "-")
        name = os.path.join(READING, f"panel-{stem}.png")
        save_small(w, name)
        print(name, f"{w.width()} x {w.height()}", flush=True)
        w.hide()
        w.onDeleteWidget()
    settings.cleanup()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=("help", "reading"))
    args = p.parse_args()
    if args.only in (None, "help"):
        help_images()
    if args.only in (None, "reading"):
        reading_images()
    return 0


if __name__ == "__main__":
    sys.exit(main())
