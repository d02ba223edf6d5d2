"""Widgets as a user sees them on a 1600 x 1000 screen (an X server, Qt's
xcb platform, a fresh settings directory); the screen grabbed after 3 s.
``covering`` (the default): the three covering learners' widgets, with EVC
Rules' "new (%)" (least new coverage) set to 0.5. ``slipper``: the SLIPPER
widget fitted on heart_disease with its defaults and a Rule Viewer showing
the model.

    Xvfb :99 -screen 0 1600x1000x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb python benchmarks/probes/widgets_screenshot.py OUT.png [slipper]
"""
import os
import sys
import tempfile


def covering():
    from orangecontrib.rules.widgets.owevcrules import OWEVCRules
    from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
    from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
    widgets = []
    for i, cls in enumerate((OWEVCRules, OWRuleLogisticRegression, OWRuleScoring)):
        w = cls()
        w.show()
        w.move(10 + 530 * i, 10)
        widgets.append(w)
    widgets[0].new_coverage_spin.setValue(0.5)
    return widgets


def slipper():
    from Orange.data import Table
    from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer
    from orangecontrib.rules.widgets.owslipper import OWSlipper
    data = Table("heart_disease")
    learner = OWSlipper()
    learner.set_data(data)
    learner.unconditional_apply()
    model = learner.create_learner()(data)  # the model the widget sends
    viewer = OWRulesViewer()
    viewer.set_model(model)
    viewer.handleNewSignals()
    learner.show()
    learner.move(10, 10)
    viewer.show()
    viewer.move(520, 10)
    viewer.resize(1060, 960)
    return [learner, viewer]


def main(out, which="covering"):
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
    from AnyQt.QtCore import QTimer
    from AnyQt.QtWidgets import QApplication
    app = QApplication(sys.argv)
    widgets = {"covering": covering, "slipper": slipper}[which]()  # noqa: F841 (kept alive)

    def grab():
        app.primaryScreen().grabWindow(0).save(out)
        app.quit()
    QTimer.singleShot(3000, grab)
    app.exec_()


if __name__ == "__main__":
    main(*sys.argv[1:])
