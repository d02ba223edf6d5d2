"""The example workflows are installed, load without errors and run
headless as the canvas runs them (scripts/run_workflow.py, in a fresh
interpreter with its own QApplication)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LEARNERS = ["SLIPPER", "EVC Rules", "LR with Rules",
            "SLS Ensembles", "ROCCER"]


def run(workflow, *args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "run_workflow.py"), workflow,
         *args], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_workflows_are_listed_by_the_canvas():
    from Orange.canvas.config import Config
    from orangecanvas.application.examples import workflows
    ours = sorted(os.path.basename(w.abspath()) for w in workflows(Config())
                  if "orangecontrib" in w.abspath())
    assert ours == ["rules-plots.ows", "rules-roc-comparison.ows", "rules-viewer.ows",
                    "rules-why.ows"]


@pytest.mark.slow
def test_roc_comparison_on_heart_disease():
    report = run("rules-roc-comparison.ows")
    assert report["load_errors"] == []
    nodes = report["nodes"]
    assert all(not n["errors"] for n in nodes.values()), nodes
    assert nodes["Test and Score"]["learners"] == LEARNERS
    assert nodes["Test and Score"]["failed"] == []
    roc = nodes["ROC Analysis"]
    assert roc["learners"] == LEARNERS
    assert not roc["nan_probabilities"]
    assert all(a > 0.6 for a in roc["auc"]), roc


@pytest.mark.slow
def test_rule_viewer_workflow():
    report = run("rules-viewer.ows", "--select", "2")
    assert report["load_errors"] == []
    nodes = report["nodes"]
    assert all(not n["errors"] for n in nodes.values()), nodes
    for viewer, table in (("Rule Viewer (SLIPPER)", "Covered by SLIPPER rules"),
                          ("Rule Viewer (EVC)", "Covered by EVC rules")):
        assert nodes[viewer]["rules"] > 2
        assert len(nodes[viewer]["selected_rules"]) == 2  # the first two listed
        assert nodes[table]["rows"] > 0
    assert nodes["Rule Viewer (EVC)"]["plot"]


@pytest.mark.slow
def test_plots_workflow():
    report = run("rules-plots.ows", "--select", "1")
    assert report["load_errors"] == []
    nodes = report["nodes"]
    assert all(not n["errors"] for n in nodes.values()), nodes
    assert nodes["Rule Viewer (ROCCER)"]["plot"]
    assert nodes["Rule Viewer (SLS Ensembles)"]["plot"]
    assert nodes["Rule Viewer (SLS Ensembles)"]["grouped"]  # rule set by rule set
    assert not nodes["Rule Viewer (Rule Scoring)"]["plot"]
    assert all(nodes[f"Rule Viewer ({t})"]["rules"] > 1
               for t in ("ROCCER", "SLS Ensembles", "Rule Scoring"))


@pytest.mark.slow
def test_why_this_prediction_workflow():
    """Five sampled patients in the Rule Viewer: the box explains the first
    (its predicted class, the rules that move it, only those listed), and
    the Data Table gets a "Why" column for each of the five."""
    report = run("rules-why.ows")
    assert report["load_errors"] == []
    nodes = report["nodes"]
    assert all(not n["errors"] for n in nodes.values()), nodes
    viewer = nodes["Rule Viewer (why)"]
    assert viewer["why"].startswith("<b>diameter narrowing = "), viewer
    assert "For it (" in viewer["why"] or "No firing rule supports it" in viewer["why"]
    assert viewer["why"].count("</b> rule ") == min(viewer["rules"], 5)  # its rules only
    table = nodes["Why each patient"]
    assert table["rows"] == 5 and "Why" in table["metas"]
