"""The three covering learners' widgets as a user sees them on a 1600 x 1000
screen (an X server, Qt's xcb platform, a fresh settings directory), with
EVC Rules' "new (%)" (least new coverage) set to 0.5; the screen grabbed
after 3 s.

    Xvfb :99 -screen 0 1600x1000x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb python benchmarks/probes/widgets_screenshot.py OUT.png
"""
import os
import sys
import tempfile


def main(out):
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
    from AnyQt.QtCore import QTimer
    from AnyQt.QtWidgets import QApplication
    app = QApplication(sys.argv)
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

    def grab():
        app.primaryScreen().grabWindow(0).save(out)
        app.quit()
    QTimer.singleShot(3000, grab)
    app.exec_()


if __name__ == "__main__":
    main(sys.argv[1])
