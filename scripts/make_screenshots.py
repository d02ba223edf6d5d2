"""Renders the screenshots the help pages use (``doc/screenshots``, which is
the installed ``orangecontrib/rules/widgets/help/images``): every widget and
the main views of the example workflows, offscreen.

    QT_QPA_PLATFORM=offscreen python scripts/make_screenshots.py
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "orangecontrib", "rules", "widgets", "help", "images")
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


def main():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for workflow, select, nodes in RUNS:
        cmd = [sys.executable, os.path.join(ROOT, "scripts", "run_workflow.py"),
               workflow, "--select", str(select), "--nodes", nodes,
               "--screenshots", OUT]
        print(" ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
